"""More rule scenarios on the pure core: the cases a mutation pass found untested.

``scripts/mutants.py`` changes one rule of ``trash_env/trash/rules.py`` or ``trash_env/neighbor/rules.py`` at a
time and runs the rule, property, env and agent tests (not the batched engine's comparisons with
the core). The mutants that survived are killed by the scenarios here, each citing its section:
taking a discard for every ``discard_draw`` case (a wild-held slot included, R4, R5), the order of
the reshuffled stock (R7), and the others listed in the tests below. Positions no short game
reaches quickly are built by editing a freshly dealt state, as each test says.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.decks import stacked_deck

from trash_env.trash import rules as trash
from trash_env.trash.config import make_config
from trash_env.trash.rules import (
    DISCARD,
    DRAW,
    DRAW_STOCK,
    FACE_DOWN,
    PLACE_SLOT_0,
    TAKE_DISCARD,
    apply_action,
    legal_actions,
)

ACE, FIVE, TEN, JACK, QUEEN, KING = 1, 5, 10, 11, 12, 13
LAYOUTS = [[2, 3, 4, 5, 6, 7, 8, 9, 10, ACE], [ACE, 2, 3, 4, 5, 6, 7, 8, 9, 10]]


def slot(i: int) -> int:
    return PLACE_SLOT_0 + i


def dealt(rule: str, layout_size: int = 10) -> trash.TrashState:
    """Seat 0 to draw in a fresh 2-player standard hand (R3), with ``discard_draw=rule``."""
    config = make_config(discard_draw=rule, layout_size=layout_size)
    layouts = [layout[:layout_size] for layout in LAYOUTS]
    return trash.new_game(config, np.random.default_rng(0), stacked_deck(config, layouts, [QUEEN]))


def fill(state: trash.TrashState, seat: int, slot_index: int, card: int) -> None:
    """Edit the state: ``seat``'s slot holds ``card`` face up (its rank, or a wild)."""
    assert state.up[seat][slot_index] == FACE_DOWN
    state.up[seat][slot_index] = card
    state.face_down[seat] -= 1


# The top discard seen by seat 0, what its layout is then, and whether R5 lets it place that card.
CASES = {
    "pip card, its slot face down": (lambda s: None, FIVE, True),
    "pip card, its slot wild-filled": (lambda s: fill(s, 0, 4, KING), FIVE, True),
    "pip card, its slot filled": (lambda s: fill(s, 0, 4, FIVE), FIVE, False),
    "pip card above the layout size": (lambda s: None, TEN, False),
    "an unplayable rank (a Queen)": (lambda s: None, QUEEN, False),
    "a wild card, face-down slots left": (lambda s: None, KING, True),
}


@pytest.mark.parametrize("rule", ["playable", "any", "never"])
@pytest.mark.parametrize("case", CASES)
def test_taking_the_discard_in_every_case(rule: str, case: str) -> None:
    """R4.1 with R5: under ``playable`` the top discard may be taken exactly when it could be placed
    now, under ``any`` always, under ``never`` never. A taken pip card whose slot holds a wild may
    displace it (R5: the wild comes back to the hand) or go back on the pile. (The layouts are edited:
    seat 0's Five slot is made wild-filled or filled; an 8-card layout makes the Ten dead.)"""
    edit, top, placeable = CASES[case]
    state = dealt(rule, layout_size=8) if top == TEN else dealt(rule)
    edit(state)
    state.discard = [top]
    may_take = {"playable": placeable, "any": True, "never": False}[rule]
    assert legal_actions(state) == ([DRAW_STOCK, TAKE_DISCARD] if may_take else [DRAW_STOCK])
    if not may_take:
        return
    apply_action(state, TAKE_DISCARD, np.random.default_rng(0))
    assert (state.held, state.discard) == (top, [])
    if case == "pip card, its slot wild-filled":
        assert legal_actions(state) == [slot(4), DISCARD]  # R5: may displace the wild
        apply_action(state, slot(4), np.random.default_rng(0))
        assert (state.up[0][4], state.held) == (FIVE, KING)  # the displaced King is held again
        assert legal_actions(state) == [*[slot(i) for i in range(10) if i != 4], DISCARD]
    elif not placeable:
        assert legal_actions(state) == [DISCARD]  # taken under `any`, but it goes straight back


def test_a_wild_fills_the_last_face_down_slot() -> None:
    """R5, R6: a wild card may go on the last face-down slot, which completes the layout (R5: the
    turned-up card is discarded at once); as the top discard it may then be taken (R4.1)."""
    state = dealt("playable")
    for i in range(1, 10):
        fill(state, 0, i, i + 1)
    assert state.face_down[0] == 1
    state.discard = [KING]
    assert legal_actions(state) == [DRAW_STOCK, TAKE_DISCARD]
    apply_action(state, TAKE_DISCARD, np.random.default_rng(0))
    assert legal_actions(state) == [slot(0), DISCARD]
    apply_action(state, slot(0), np.random.default_rng(0))
    assert state.hand_winners == [0] and state.up[0][0] == KING and state.discard[-1] == 2


def test_the_reshuffled_stock_is_the_pile_below_its_top_shuffled_by_the_generator() -> None:
    """R7: drawing from an empty stock shuffles the discard pile except its top card into a new
    stock: the cards in pile order (bottom first), shuffled in place by the generator passed in
    (``rng.shuffle``), the last card the top of the new stock. The next draws take them from the
    top down; the top discard stays where it was. (The empty stock is made by editing the state.)"""
    state = dealt("playable")
    pile = [QUEEN, JACK, 3, QUEEN, 7, KING, JACK, 9]
    state.stock, state.discard = [], pile[:]
    expected = pile[:-1]
    np.random.default_rng(42).shuffle(expected)
    rng = np.random.default_rng(42)
    apply_action(state, DRAW_STOCK, rng)
    assert state.discard == [pile[-1]]
    assert state.held == expected[-1] and state.stock == expected[:-1]
    assert state.known_stock[QUEEN] == expected[:-1].count(QUEEN)  # R15: the new stock is known
    drawn = []
    while state.stock:
        state.phase, state.held = DRAW, trash.NO_CARD
        apply_action(state, DRAW_STOCK, rng)
        drawn.append(state.held)
    assert drawn == expected[:-1][::-1]
    assert state.phase != DRAW and state.known_stock == [0] * trash.NUM_RANKS


def test_equal_layouts_are_dealt_from_the_first_player(next_decks: list[list[int]]) -> None:
    """R3 with R8, R9: both players complete in hand 1 of a match (seat 1 in the final round), so
    both shrink to nine slots and hand 2, with equal layouts, is dealt from seat 1 (rotate): seat 1
    gets the 1st, 3rd, 5th ... card, seat 0 the 2nd, 4th ..., and the 19th card is the top of the
    stock."""
    config = make_config(match=True)
    chain = [2, 3, 4, 5, 6, 7, 8, 9, 10]  # an Ace turns up each card in turn (R5) and completes
    first = trash.new_game(
        config, np.random.default_rng(0), stacked_deck(config, [chain + [JACK], chain + [QUEEN]], [ACE, ACE])
    )
    deck = [int(card) for card in np.random.default_rng(5).permutation(config.ordered_deck)]
    next_decks.append(deck)
    rng = np.random.default_rng(0)
    while not first.hand_winners:
        apply_action(first, trash.forced_action(first), rng)  # seat 0: the Ace turns up the chain
    assert first.hand_winners == [0] and first.current == 1  # the final round (R8)
    while first.hand == 0:
        apply_action(first, trash.forced_action(first), rng)  # seat 1 completes too
    assert (first.hand, first.sizes, first.hands_won, first.hand_first, first.current) == (1, [9, 9], [1, 1], 1, 1)
    assert first.down[1] == deck[0:18:2] and first.down[0] == deck[1:18:2]
    assert first.stock[-1] == deck[18]
