"""Rule scenarios on the pure core, each a named example of the rule book (RULES.md).

Every test cites the section it checks, deals a stacked deck (tests/helpers/decks.py,
R3: ``layouts[seat][slot]`` lies face down in that slot, ``stock[0]`` is drawn
first) and states the exact result. Hands after the first in a match are dealt
by the core from ``core.shuffled_deck``; the ``next_decks`` fixture replaces
that function with a queue of stacked decks, so whole matches are played with
known cards instead of editing states. The two positions no configuration can
reach (R7: empty stock and empty discard pile) are built by editing a state,
as their tests say.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np
import pytest
from helpers.decks import stacked_deck

from trash_env.trash import rules as trash
from trash_env.trash.config import PRESETS, TrashConfig, make_config
from trash_env.trash.rules import (
    DISCARD,
    DRAW,
    DRAW_STOCK,
    FACE_DOWN,
    NO_CARD,
    NUM_RANKS,
    OVER,
    PLACE,
    PLACE_SLOT_0,
    TAKE_DISCARD,
    TrashState,
    apply_action,
    clone,
    forced_action,
    legal_actions,
    new_game,
    returns,
)

JOKER, ACE, TEN, JACK, QUEEN, KING = 0, 1, 10, 11, 12, 13


# --------------------------------------------------------------------------
# Helpers


def rng() -> np.random.Generator:
    return np.random.default_rng(0)


def slot(i: int) -> int:
    """The action placing the held card in slot ``i`` (R13)."""
    return PLACE_SLOT_0 + i


def slots(*indices: int) -> list[int]:
    return [slot(i) for i in indices]


def chain_layout(size: int, last: int) -> list[int]:
    """Slot i holds rank i + 2 and the last slot holds ``last``: an Ace drawn turns
    up every card in one chain (R5) and completes the layout, discarding ``last``."""
    return [*range(2, size + 1), last]


def deal(
    cfg: TrashConfig,
    layouts: list[list[int]],
    stock: list[int] | tuple[int, ...] = (),
    first: int = 0,
    sizes: list[int] | None = None,
) -> TrashState:
    """A new game dealt from a stacked deck (R3)."""
    return new_game(cfg, rng(), stacked_deck(cfg, layouts, stock, first, sizes))


def hand_deck(cfg: TrashConfig, winner: int, first: int = 0, sizes: list[int] | None = None) -> list[int]:
    """A deck for one hand in which ``winner`` completes on their first turn (an Ace
    drawn into ``chain_layout``) and every other turn draws a dead Queen; every move
    of the hand is forced (R13). Other seats hold ``chain_layout(size, JACK)``."""
    n = cfg.num_players
    sizes = sizes or [cfg.layout_size] * n
    layouts = [chain_layout(sizes[seat], QUEEN if seat == winner else JACK) for seat in range(n)]
    stock = [QUEEN] * ((winner - first) % n) + [ACE] + [QUEEN] * (n - 1)
    return stacked_deck(cfg, layouts, stock, first, sizes)


def random_deck(cfg: TrashConfig, seed: int) -> list[int]:
    """A shuffled deck order, built here so tests never depend on the core's shuffle."""
    return np.random.default_rng(seed).permutation(trash.full_deck(cfg)).tolist()


def move(state: TrashState, legal: list[int], action: int) -> None:
    """Check the legal actions (R13) of the seat to act, then apply ``action``."""
    assert legal_actions(state) == legal
    apply_action(state, action, rng())


def play_forced_until(state: TrashState, done: Callable[[TrashState], bool]) -> None:
    """Apply forced moves (R13) until ``done(state)``; a real choice on the way fails."""
    while not done(state):
        action = forced_action(state)
        assert action >= 0, f"a choice {legal_actions(state)} where only forced moves were expected: {state!r}"
        apply_action(state, action, rng())


def finish_turn(state: TrashState) -> None:
    turn = state.turn
    play_forced_until(state, lambda s: s.turn != turn or s.over)


def finish_hand(state: TrashState) -> None:
    hand = state.hand
    play_forced_until(state, lambda s: s.hand != hand or s.over)


def assert_turn_passed_to(state: TrashState, seat: int, discard_top: int) -> None:
    """R4.3: the held card is on the discard pile and ``seat`` is to draw."""
    assert (state.phase, state.current, state.held) == (DRAW, seat, NO_CARD)
    assert state.discard[-1] == discard_top


# --------------------------------------------------------------------------
# R3: the deal


def test_deal_is_round_robin_from_seat_0() -> None:
    """R3: one card at a time to seats 0, 1, 2, 0, ... filling slots in order; the
    first card not dealt is the top of the stock; the discard pile is empty."""
    cfg = make_config(num_players=3)
    deck = random_deck(cfg, 7)
    state = new_game(cfg, rng(), deck)
    assert state.down == [[deck[3 * i + seat] for i in range(10)] for seat in range(3)]
    assert state.stock[-1] == deck[30]
    assert state.stock == deck[30:][::-1]
    assert state.up == [[FACE_DOWN] * 10] * 3
    assert state.face_down == [10, 10, 10]
    assert (state.discard, state.held, state.phase, state.current) == ([], NO_CARD, DRAW, 0)
    assert state.unaccounted == list(cfg.copies_per_rank)  # R15: nothing is face up yet


def test_deal_starts_with_first_player_and_skips_full_layouts(next_decks: list[list[int]]) -> None:
    """R3 with R9: seat 2 wins hand 1 of a 3-player match, so hand 2 is dealt from
    seat 1 (rotate) with sizes [10, 10, 9]: rounds go 1, 2, 0 and the last round
    skips seat 2, whose nine slots are full."""
    cfg = make_config(num_players=3, match=True)
    deck = random_deck(cfg, 11)
    next_decks.append(deck)
    state = new_game(cfg, rng(), hand_deck(cfg, winner=2))
    finish_hand(state)
    assert state.sizes == [10, 10, 9]
    assert (state.hand, state.hand_first, state.current) == (1, 1, 1)
    assert state.down[1] == [deck[3 * i] for i in range(9)] + [deck[27]]
    assert state.down[2] == [deck[3 * i + 1] for i in range(9)]
    assert state.down[0] == [deck[3 * i + 2] for i in range(9)] + [deck[28]]
    assert state.stock[-1] == deck[29]
    assert len(state.stock) == len(deck) - 29


# --------------------------------------------------------------------------
# R4, R5: a turn and placing the held card


def test_chain_placement_until_unplayable() -> None:
    """R4, R5: an Ace drawn must go to the face-down Ace slot; the 3 under it goes
    to slot 2, the 5 under that to slot 4, and the Ace under that is unplayable
    (its slot is filled): it is discarded and the turn passes. R15: every card
    turned up leaves the unaccounted counts."""
    cfg = make_config()
    state = deal(cfg, [[3, 6, 5, 7, ACE, 8, 9, 10, 2, 4], chain_layout(10, JACK)], stock=[ACE, QUEEN])
    move(state, [DRAW_STOCK], DRAW_STOCK)  # the first turn: no discard to take
    assert (state.phase, state.held) == (PLACE, ACE)
    move(state, slots(0), slot(0))
    assert state.held == 3
    move(state, slots(2), slot(2))
    assert state.held == 5
    move(state, slots(4), slot(4))
    assert state.held == ACE
    assert state.up[0] == [ACE, FACE_DOWN, 3, FACE_DOWN, 5] + [FACE_DOWN] * 5
    move(state, [DISCARD], DISCARD)
    assert_turn_passed_to(state, seat=1, discard_top=ACE)
    assert state.discard == [ACE]
    assert state.face_down == [7, 10]
    assert state.turn == 1
    assert state.up[1] == [FACE_DOWN] * 10
    assert [state.unaccounted[rank] for rank in (ACE, 3, 5, QUEEN)] == [2, 3, 3, 4]
    # The Ace is placeable in seat 1's face-down Ace slot, so it may be taken (R4, playable).
    assert legal_actions(state) == [DRAW_STOCK, TAKE_DISCARD]


def test_wild_card_goes_on_a_chosen_face_down_slot() -> None:
    """R5, R6: a held King may go on any face-down slot (filled slot 0 is not
    offered) or be discarded; the card under the chosen slot becomes the held card.
    Here that is another King, which may go on any slot still face down."""
    cfg = make_config()
    state = deal(cfg, [[QUEEN, 3, 4, 5, 6, 7, KING, 8, 9, JACK], chain_layout(10, JACK)], stock=[ACE, QUEEN, KING])
    finish_turn(state)  # the Ace fills slot 0; the Queen under it is discarded
    assert state.up[0][0] == ACE
    finish_turn(state)  # seat 1 draws a Queen and discards it
    move(state, [DRAW_STOCK], DRAW_STOCK)
    assert state.held == KING
    move(state, [*slots(*range(1, 10)), DISCARD], slot(6))
    assert state.up[0] == [ACE] + [FACE_DOWN] * 5 + [KING] + [FACE_DOWN] * 3
    assert (state.held, state.face_down[0]) == (KING, 8)
    move(state, [*slots(1, 2, 3, 4, 5, 7, 8, 9), DISCARD], slot(9))
    assert (state.up[0][9], state.held, state.face_down[0]) == (KING, JACK, 7)
    move(state, [DISCARD], DISCARD)
    assert_turn_passed_to(state, seat=1, discard_top=JACK)


@pytest.mark.parametrize(("preset", "wild"), [("standard", KING), ("jokers", JOKER)])
def test_pip_card_displaces_wild_card(preset: str, wild: int) -> None:
    """R5: a 5 drawn may go on slot 4 filled by a wild card (King, or Joker with
    jokers); the displaced wild card is held and may go on another face-down slot."""
    cfg = make_config(preset)
    state = deal(cfg, [[2, 3, 4, 6, QUEEN, 7, 8, JACK, 9, 10], chain_layout(10, JACK)], stock=[wild, QUEEN, 5])
    move(state, [DRAW_STOCK], DRAW_STOCK)
    move(state, [*slots(*range(10)), DISCARD], slot(4))
    move(state, [DISCARD], DISCARD)  # the Queen that was under slot 4
    finish_turn(state)  # seat 1: a Queen
    move(state, [DRAW_STOCK], DRAW_STOCK)
    move(state, [slot(4), DISCARD], slot(4))
    assert state.up[0][4] == 5
    assert (state.held, state.face_down[0]) == (wild, 9)
    move(state, [*slots(0, 1, 2, 3, 5, 6, 7, 8, 9), DISCARD], slot(7))
    assert (state.up[0][7], state.held, state.face_down[0]) == (wild, JACK, 8)


def test_declining_an_optional_placement_discards_and_ends_the_turn() -> None:
    """R5: declining to place a held King, or to put a 5 on its King-filled slot,
    discards the held card, leaves the layout as it was and passes the turn."""
    cfg = make_config()
    state = deal(
        cfg, [[2, 3, 4, 6, JACK, 7, 8, 9, 10, ACE], chain_layout(10, JACK)], stock=[KING, QUEEN, KING, JACK, 5]
    )
    move(state, [DRAW_STOCK], DRAW_STOCK)
    move(state, [*slots(*range(10)), DISCARD], DISCARD)
    assert_turn_passed_to(state, seat=1, discard_top=KING)
    assert state.up[0] == [FACE_DOWN] * 10
    assert (state.face_down, state.turn) == ([10, 10], 1)
    move(state, [DRAW_STOCK, TAKE_DISCARD], DRAW_STOCK)  # seat 1 could take the King
    move(state, [DISCARD], DISCARD)
    move(state, [DRAW_STOCK], DRAW_STOCK)
    move(state, [*slots(*range(10)), DISCARD], slot(4))
    move(state, [DISCARD], DISCARD)  # the Jack under slot 4
    finish_turn(state)  # seat 1: a Jack
    move(state, [DRAW_STOCK], DRAW_STOCK)
    move(state, [slot(4), DISCARD], DISCARD)
    assert_turn_passed_to(state, seat=1, discard_top=5)
    assert state.up[0] == [FACE_DOWN] * 4 + [KING] + [FACE_DOWN] * 5
    assert state.face_down == [9, 10]


def test_completion_discards_the_held_card_at_once() -> None:
    """R5, R8: a King fills slot 4; later an Ace starts a chain that turns up the
    last face-down card, a 5. The layout is complete, so the 5 is discarded at
    once (it may not displace the King) and the turn ends; seat 1 then has its
    final turn and seat 0 wins (R10: +1, -1)."""
    cfg = make_config()
    state = deal(cfg, [[2, 3, 4, 6, QUEEN, 7, 8, 9, 10, 5], chain_layout(10, JACK)], stock=[KING, QUEEN, ACE, QUEEN])
    move(state, [DRAW_STOCK], DRAW_STOCK)
    move(state, [*slots(*range(10)), DISCARD], slot(4))
    move(state, [DISCARD], DISCARD)
    finish_turn(state)  # seat 1: a Queen
    move(state, [DRAW_STOCK], DRAW_STOCK)
    for i in (0, 1, 2, 3, 5, 6, 7, 8, 9):
        move(state, slots(i), slot(i))
    assert state.up[0] == [ACE, 2, 3, 4, KING, 6, 7, 8, 9, 10]
    assert state.face_down[0] == 0
    assert_turn_passed_to(state, seat=1, discard_top=5)
    assert state.hand_winners == [0]
    assert state.final_round
    move(state, [DRAW_STOCK, TAKE_DISCARD], DRAW_STOCK)
    move(state, [DISCARD], DISCARD)
    assert state.over
    assert (state.winners, state.hands_won, returns(state)) == ([0], [1, 0], [1.0, -1.0])


# --------------------------------------------------------------------------
# R6: wild cards


@pytest.mark.parametrize(
    ("cfg", "wilds", "dead"),
    [
        pytest.param(make_config(), [KING], [JACK, QUEEN], id="kings-wild"),
        pytest.param(make_config(wild="J"), [JACK], [QUEEN, KING], id="jacks-wild"),
        pytest.param(make_config("jokers"), [JOKER, KING], [JACK, QUEEN], id="jokers"),
    ],
)
def test_wild_ranks_and_dead_ranks(cfg: TrashConfig, wilds: list[int], dead: list[int]) -> None:
    """R6 (with R4 playable, R5): seat 0 draws each dead rank (only discarding is
    legal, and seat 1 may not take it) and each wild rank (any face-down slot, or
    discard; seat 1 may take it), then places a wild card in slot 5."""
    seat0_draws = dead + wilds
    stock = [card for i, mine in enumerate(seat0_draws) for card in (mine, dead[i % 2])] + [wilds[0]]
    state = deal(cfg, [[2, 3, 4, 5, 6, dead[0], 7, 8, 9, 10], chain_layout(10, ACE)], stock)
    for card in seat0_draws:
        move(state, [DRAW_STOCK], DRAW_STOCK)
        assert state.held == card
        if card in wilds:
            move(state, [*slots(*range(10)), DISCARD], DISCARD)
            move(state, [DRAW_STOCK, TAKE_DISCARD], DRAW_STOCK)
        else:
            move(state, [DISCARD], DISCARD)
            move(state, [DRAW_STOCK], DRAW_STOCK)
        assert state.held in dead
        move(state, [DISCARD], DISCARD)
    move(state, [DRAW_STOCK], DRAW_STOCK)
    move(state, [*slots(*range(10)), DISCARD], slot(5))
    assert (state.up[0][5], state.held) == (wilds[0], dead[0])
    move(state, [DISCARD], DISCARD)


# --------------------------------------------------------------------------
# R4: taking the discard


@pytest.mark.parametrize("rule", ["playable", "any", "never"])
def test_discard_draw(rule: str) -> None:
    """R4.1: the top discard may be taken when placeable (playable), always (any)
    or never (never). Tops seen: none on the first turn, a 5 for a face-down 5
    slot (placeable), a dead Queen, a wild King (placeable), an Ace whose slot is
    already filled (not placeable)."""

    def legal_at_draw(placeable: bool) -> list[int]:
        may_take = {"playable": placeable, "any": True, "never": False}[rule]
        return [DRAW_STOCK, TAKE_DISCARD] if may_take else [DRAW_STOCK]

    cfg = make_config(discard_draw=rule)
    layouts = [[5, 2, 3, 4, 5, 6, 7, 8, 9, 10], [5, 2, 3, 4, ACE, 6, 7, 8, 9, 10]]
    state = deal(cfg, layouts, stock=[ACE, QUEEN, KING, ACE])
    assert legal_actions(state) == [DRAW_STOCK]  # R3: the discard pile starts empty
    finish_turn(state)  # seat 0: Ace to slot 0, 5 to slot 4, the other 5 is discarded
    assert state.discard == [5]
    move(state, legal_at_draw(placeable=True), DRAW_STOCK)
    move(state, [DISCARD], DISCARD)  # seat 1: a Queen
    move(state, legal_at_draw(placeable=False), DRAW_STOCK)
    move(state, [*slots(1, 2, 3, 5, 6, 7, 8, 9), DISCARD], DISCARD)  # seat 0 declines the King
    move(state, legal_at_draw(placeable=True), DRAW_STOCK)
    finish_turn(state)  # seat 1: Ace to slot 0, 5 to slot 4, the Ace under it is discarded
    assert state.discard[-1] == ACE
    assert state.up[0][0] == ACE
    move(state, legal_at_draw(placeable=False), TAKE_DISCARD if rule == "any" else DRAW_STOCK)
    if rule == "any":
        assert (state.held, state.discard[-1]) == (ACE, KING)
        assert legal_actions(state) == [DISCARD]  # taken, but unplayable: back it goes


@pytest.mark.parametrize("preset", PRESETS)
def test_first_turn_of_a_hand_has_no_discard_to_take(preset: str) -> None:
    """R3, R4: the discard pile starts empty, so the first move is always the draw."""
    state = new_game(make_config(preset), rng())
    assert state.discard == []
    assert legal_actions(state) == [DRAW_STOCK]
    assert forced_action(state) == DRAW_STOCK


def test_first_turn_of_a_later_match_hand_has_no_discard_to_take(next_decks: list[list[int]]) -> None:
    """R3, R4, R9: after a hand of a pagat match (discard_draw any) the discard pile
    of hand 2 is empty again, so the winner, starting (starter winner), must draw."""
    cfg = make_config("pagat", match=True)
    next_decks.append(hand_deck(cfg, winner=1, sizes=[9, 10]))
    state = new_game(cfg, rng(), hand_deck(cfg, winner=0))
    finish_hand(state)
    assert (state.hand, state.current, state.discard) == (1, 0, [])
    assert legal_actions(state) == [DRAW_STOCK]


# --------------------------------------------------------------------------
# R7: empty stock, truncation


def test_reshuffle_keeps_top_discard_and_counts_known_stock() -> None:
    """R7, R15: 4 players with one deck and no wild rank leave a stock of 12 dead
    cards (J, Q, K). After 12 turns the stock is empty; the next draw shuffles all
    discards but the top King into the stock, and ``known_stock`` counts exactly
    the stock's cards from then on (decreasing with each draw, refilled by the
    next reshuffle), while the face-down cards stay unaccounted."""
    cfg = make_config(num_players=4, num_decks=1, wild=None)
    state = deal(cfg, [list(range(1, 11))] * 4, stock=[JACK, QUEEN, KING] * 4)
    unaccounted = [0] + [4] * 10 + [0, 0, 0]
    for _ in range(12):
        finish_turn(state)
    assert (state.stock, len(state.discard), state.discard[-1]) == ([], 12, KING)
    assert state.known_stock == [0] * NUM_RANKS
    assert state.unaccounted == unaccounted
    assert state.current == 0
    move(state, [DRAW_STOCK], DRAW_STOCK)
    assert state.discard == [KING]
    assert len(state.stock) == 10
    expected = Counter({JACK: 4, QUEEN: 4, KING: 3})
    expected[state.held] -= 1
    assert state.known_stock == [expected[rank] for rank in range(NUM_RANKS)]
    assert state.unaccounted == unaccounted
    move(state, [DISCARD], DISCARD)
    for _ in range(30):  # two more reshuffles
        stock = Counter(state.stock)
        assert state.known_stock == [stock[rank] for rank in range(NUM_RANKS)]
        assert state.unaccounted == unaccounted
        finish_turn(state)


def exhaust(state: TrashState) -> None:
    """Edit ``state`` (at the start of a turn) so that the stock is empty and the
    discard pile holds one card, its old stock top: a position R1 makes unreachable.
    The rest of the stock simply vanishes."""
    assert state.phase == DRAW
    state.discard = [state.stock.pop()]
    state.stock = []


def test_empty_stock_and_discard_draws_the_hand() -> None:
    """R7, R10 (edited state): drawing when the stock is empty and the discard pile
    holds only its top card ends the hand as a draw: 0 to all."""
    cfg = make_config()
    state = deal(cfg, [chain_layout(10, JACK)] * 2, stock=[QUEEN])
    exhaust(state)
    move(state, [DRAW_STOCK], DRAW_STOCK)
    assert state.over
    assert (state.winners, state.truncated, state.drawn_hands) == ([], False, 1)
    assert returns(state) == [0.0, 0.0]
    assert legal_actions(state) == []


def test_empty_stock_and_discard_redeals_a_match_hand(next_decks: list[list[int]]) -> None:
    """R7, R9 (edited state): in hand 2 of a match (sizes [9, 10], seat 1 first) the
    exhausted draw deals the hand again with the same sizes and first player."""
    cfg = make_config(match=True)
    redeal = hand_deck(cfg, winner=1, first=1, sizes=[9, 10])
    next_decks.extend([hand_deck(cfg, winner=0, first=1, sizes=[9, 10]), redeal])
    state = new_game(cfg, rng(), hand_deck(cfg, winner=0))
    finish_hand(state)
    assert (state.sizes, state.hand_first, state.current) == ([9, 10], 1, 1)
    exhaust(state)
    move(state, [DRAW_STOCK], DRAW_STOCK)
    assert not state.over
    assert state.drawn_hands == 1
    assert (state.hand, state.sizes, state.hand_first, state.current, state.phase) == (2, [9, 10], 1, 1, DRAW)
    assert state.down == [chain_layout(9, JACK), chain_layout(10, QUEEN)]
    assert (state.discard, len(state.stock), state.face_down) == ([], 52 - 19, [9, 10])
    assert (state.hands_won, returns(state)) == ([1, 0], [0.0, 0.0])
    assert next_decks == []


@pytest.mark.parametrize("match", [False, True])
def test_max_turns_truncates_as_a_draw(match: bool) -> None:
    """R7, R10: with max_turns=3 the episode ends after the third turn, truncated,
    with no winner and 0 to all, in hand and in match mode."""
    cfg = make_config(max_turns=3, match=match)
    state = deal(cfg, [chain_layout(10, JACK)] * 2, stock=[QUEEN] * 3)
    finish_turn(state)
    finish_turn(state)
    assert not state.over
    finish_turn(state)
    assert (state.phase, state.truncated, state.winners, state.turn) == (OVER, True, [], 3)
    assert returns(state) == [0.0, 0.0]


@pytest.mark.parametrize(("preset", "winners", "rewards"), [("pagat", [0], [1.0, -1.0]), ("standard", [], [0.0, 0.0])])
def test_completion_on_the_last_allowed_turn(preset: str, winners: list[int], rewards: list[float]) -> None:
    """R7, R8: with max_turns=1 seat 0 completes on turn 1. Without a final round
    (pagat) the hand ended at once and seat 0 wins; with one (standard) the hand
    is not over after turn 1, so the episode is truncated as a draw."""
    cfg = make_config(preset, max_turns=1)
    state = new_game(cfg, rng(), hand_deck(cfg, winner=0))
    finish_turn(state)
    assert state.over
    assert (state.winners, state.truncated, returns(state)) == (winners, not winners, rewards)


# --------------------------------------------------------------------------
# R8: end of a hand


def two_winner_deck(cfg: TrashConfig) -> list[int]:
    """3 players: seat 0 draws a Queen, seat 1 completes with an Ace, seat 2 draws a
    Queen, seat 0 completes with an Ace (R5 chains, every move forced)."""
    layouts = [chain_layout(10, JACK), chain_layout(10, QUEEN), chain_layout(10, KING)]
    return stacked_deck(cfg, layouts, stock=[QUEEN, ACE, QUEEN, ACE])


def test_final_round_with_two_winners() -> None:
    """R8, R10 (final_turn): seat 1 completes; seats 2 and 0 then have one more
    turn each, in seat order; seat 0 completes too. Both winners get +1 and
    seat 2 gets -1."""
    cfg = make_config(num_players=3)
    state = new_game(cfg, rng(), two_winner_deck(cfg))
    finish_turn(state)  # seat 0: a Queen
    assert not state.final_round
    finish_turn(state)  # seat 1 completes
    assert state.up[1] == list(range(1, 11))
    assert state.hand_winners == [1]
    assert state.final_round
    assert_turn_passed_to(state, seat=2, discard_top=QUEEN)
    finish_turn(state)  # seat 2: a Queen, its last turn
    assert not state.over
    assert_turn_passed_to(state, seat=0, discard_top=QUEEN)
    finish_turn(state)  # seat 0 completes in its last turn
    assert state.over
    assert state.up[0] == list(range(1, 11))
    assert sorted(state.winners) == [0, 1]
    assert state.hands_won == [1, 1, 0]
    assert returns(state) == [1.0, 1.0, -1.0]


def test_without_final_turn_the_hand_ends_at_once() -> None:
    """R8 (final_turn False, pagat): seat 0 completes on the first turn of a
    3-player hand and the hand ends at once: +1 to seat 0, -1 to the others."""
    cfg = make_config("pagat", num_players=3)
    state = new_game(cfg, rng(), hand_deck(cfg, winner=0))
    finish_turn(state)
    assert state.over
    assert (state.turn, state.winners, state.hands_won) == (1, [0], [1, 0, 0])
    assert returns(state) == [1.0, -1.0, -1.0]
    assert legal_actions(state) == []
    with pytest.raises(ValueError, match="over"):
        apply_action(state, DRAW_STOCK, rng())


# --------------------------------------------------------------------------
# R9: matches


def test_match_winner_layout_shrinks_and_its_ten_is_dead(next_decks: list[list[int]]) -> None:
    """R9, R2, R4: seat 0 wins hand 1 of a match, so hand 2 deals it nine slots
    (seat 1 keeps ten and starts, rotate). A Ten drawn by seat 0 has no slot: only
    discarding is legal. Seat 1 may take that Ten; a Ten seat 1 discards may not be
    taken by seat 0 (playable); a King offers seat 0 slots 0..8 only."""
    cfg = make_config(match=True)
    layouts = [[2, 3, 4, 5, 6, 7, 8, 9, JACK], [2, 3, 4, 5, 6, 7, 8, 9, JACK, TEN]]
    next_decks.append(stacked_deck(cfg, layouts, [QUEEN, TEN, TEN, KING], first=1, sizes=[9, 10]))
    state = new_game(cfg, rng(), hand_deck(cfg, winner=0))
    finish_hand(state)
    assert not state.over
    assert (state.hand, state.sizes, state.hands_won, state.current) == (1, [9, 10], [1, 0], 1)
    assert [len(row) for row in state.up] == [9, 10]
    assert state.face_down == [9, 10]
    assert len(state.stock) == 52 - 19
    assert returns(state) == [0.0, 0.0]  # R10: match rewards come at the end
    finish_turn(state)  # seat 1: a Queen
    move(state, [DRAW_STOCK], DRAW_STOCK)
    assert state.held == TEN
    move(state, [DISCARD], DISCARD)
    move(state, [DRAW_STOCK, TAKE_DISCARD], DRAW_STOCK)  # seat 1 has a Ten slot
    move(state, [slot(9)], slot(9))
    move(state, [DISCARD], DISCARD)  # the Ten that was under seat 1's Ten slot
    assert state.discard[-1] == TEN
    move(state, [DRAW_STOCK], DRAW_STOCK)
    assert state.held == KING
    assert legal_actions(state) == [*slots(*range(9)), DISCARD]


@pytest.mark.parametrize(("starter", "firsts"), [("rotate", [0, 1, 2]), ("winner", [0, 2, 0])])
def test_starter_of_the_next_hand(next_decks: list[list[int]], starter: str, firsts: list[int]) -> None:
    """R9: in a 3-player match seat 2 wins hand 1 and seat 0 wins hand 2. With
    rotate the first player moves on one seat each hand (0, 1, 2); with winner it
    is the last hand's winner (0, 2, 0)."""
    cfg = make_config(num_players=3, match=True, starter=starter)
    next_decks.extend([hand_deck(cfg, winner=0, first=firsts[1], sizes=[10, 10, 9]), random_deck(cfg, 3)])
    state = new_game(cfg, rng(), hand_deck(cfg, winner=2))
    assert (state.hand_first, state.current) == (firsts[0], firsts[0])
    finish_hand(state)
    assert (state.hand_first, state.current, state.sizes) == (firsts[1], firsts[1], [10, 10, 9])
    assert state.down == [chain_layout(10, QUEEN), chain_layout(10, JACK), chain_layout(9, JACK)]
    finish_hand(state)
    assert (state.hand_first, state.current, state.sizes) == (firsts[2], firsts[2], [9, 10, 9])
    assert state.hands_won == [1, 0, 1]
    assert next_decks == []


def test_every_winner_shrinks_and_the_first_winner_starts(next_decks: list[list[int]]) -> None:
    """R9 (starter winner): seats 1 and 0 both win hand 1 of a 3-player match, seat 1
    first; both are dealt nine slots in hand 2 and seat 1, the first winner, starts."""
    cfg = make_config(num_players=3, match=True, starter="winner")
    next_decks.append(random_deck(cfg, 5))
    state = new_game(cfg, rng(), two_winner_deck(cfg))
    finish_hand(state)
    assert (state.hand, state.sizes, state.hands_won) == (1, [9, 9, 10], [1, 1, 0])
    assert (state.hand_first, state.current) == (1, 1)


def test_completing_a_one_slot_layout_wins_the_match_at_once(next_decks: list[list[int]]) -> None:
    """R9, R10: seat 0 wins nine hands in a row (rotate: seat 1 starts every other
    hand) and is down to one slot; completing it in hand 10 wins the match at
    once: seat 1 gets no final turn, +1 to seat 0 and -1 to seat 1."""
    cfg = make_config(match=True)
    next_decks.extend(hand_deck(cfg, winner=0, first=hand % 2, sizes=[10 - hand, 10]) for hand in range(1, 10))
    state = new_game(cfg, rng(), hand_deck(cfg, winner=0))
    for hand in range(1, 10):
        finish_hand(state)
        assert not state.over
        assert (state.hand, state.sizes, state.hands_won) == (hand, [10 - hand, 10], [hand, 0])
    assert state.current == 1
    finish_turn(state)  # seat 1: a Queen
    finish_turn(state)  # seat 0: an Ace into its only slot
    assert state.over
    assert state.up[0] == [ACE]
    assert (state.winners, state.hands_won, returns(state)) == ([0], [10, 0], [1.0, -1.0])
    assert state.stock[-1] == QUEEN  # seat 1's final-round card, never drawn
    assert len(state.stock) == 52 - 11 - 2


# --------------------------------------------------------------------------
# R11, R13: Seven Up, forced moves, illegal actions


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_seven_up_every_move_is_forced(num_players: int) -> None:
    """R11, R13: Seven Up (7 slots, no wild rank, never take the discard) leaves no
    choice at all: in whole games every state has exactly one legal action, and
    8, 9, 10, J, Q, K are always discarded."""
    cfg = make_config("seven_up", num_players=num_players)
    for seed in range(8):
        state = new_game(cfg, rng(), random_deck(cfg, seed))
        while not state.over:
            action = forced_action(state)
            assert action != -1
            assert legal_actions(state) == [action]
            if state.phase == PLACE and state.held >= 8:
                assert action == DISCARD
            apply_action(state, action, rng())
        assert state.winners and not state.truncated


def test_play_forced_plays_a_hand_without_choices() -> None:
    """R13: when every move is forced, play_forced applies them all, listing each:
    seat 0 draws an Ace and fills its ten slots in one chain (R5), and without a
    final round (pagat, R8) the hand is over."""
    cfg = make_config("pagat")
    state = new_game(cfg, rng(), hand_deck(cfg, winner=0))
    actions: list[int] = []
    assert trash.play_forced(state, rng(), actions) == 11
    assert actions == [DRAW_STOCK, *slots(*range(10))]
    assert (state.over, state.winners) == (True, [0])
    assert trash.play_forced(state, rng()) == 0


def illegal_action_cases() -> list[tuple[str, TrashState, list[int]]]:
    """States of every phase with actions R13 does not allow in them."""
    cfg = make_config()
    start = deal(cfg, [[KING, 3, 4, 5, 6, 7, 8, 9, 10, 2], chain_layout(10, JACK)], stock=[ACE])
    mandatory = clone(start)
    apply_action(mandatory, DRAW_STOCK, rng())  # an Ace with its slot face down
    wild = clone(mandatory)
    apply_action(wild, slot(0), rng())  # the King under the Ace slot
    over = new_game(make_config("pagat"), rng(), hand_deck(make_config("pagat"), winner=0))
    finish_turn(over)
    return [
        ("draw phase", start, [TAKE_DISCARD, slot(0), slot(9), DISCARD, 13, -1]),
        ("mandatory placement", mandatory, [DRAW_STOCK, TAKE_DISCARD, slot(1), DISCARD]),
        ("wild held", wild, [DRAW_STOCK, TAKE_DISCARD, slot(0), 13]),
        ("over", over, [DRAW_STOCK, DISCARD]),
    ]


def test_illegal_action_raises_and_leaves_the_state_unchanged() -> None:
    """R13: an action not legal in the state is a ValueError and changes nothing."""
    for name, state, actions in illegal_action_cases():
        for action in actions:
            before = clone(state)
            with pytest.raises(ValueError, match=r"illegal|over"):
                apply_action(state, action, rng())
            assert state == before, f"{name}: action {action} changed the state"
    # The comparison can see a change: a legal action does change the state.
    state = illegal_action_cases()[0][1]
    before = clone(state)
    apply_action(state, np.int64(DRAW_STOCK), rng())  # numpy integers are actions too
    assert state != before


@pytest.mark.parametrize("action", ["draw", None, 0.0, True])
def test_non_integer_action_raises_value_error(action: object) -> None:
    """R13: actions are the integers 0..12; anything else is illegal (ValueError)."""
    state = illegal_action_cases()[0][1]
    before = clone(state)
    with pytest.raises(ValueError):
        apply_action(state, action, rng())  # type: ignore[arg-type]
    assert state == before
