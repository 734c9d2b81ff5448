"""Properties that must hold in every game, checked over many seeded random games.

The rules core is played with random legal actions over every preset (R11),
every player count (R1) and both hand and match mode (R9). One module fixture
plays ``NUM_GAMES`` games once and records every violation by kind; each test
below then asserts that its kind is empty, so a failure names the property, the
configuration and the game. Further tests check that observations leak nothing
hidden (R15), that the belief sampler is consistent and uniform (R15), and that
game records replay exactly and reject corruption.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import trash_env
from trash_env.records import replay
from trash_env.trash import rules as trash
from trash_env.trash.belief import sample_hidden_state
from trash_env.trash.config import PRESETS, TrashConfig, make_config
from trash_env.trash.observation import TrashObserver
from trash_env.trash.rules import (
    DISCARD,
    DRAW,
    DRAW_STOCK,
    FACE_DOWN,
    NO_CARD,
    NUM_ACTIONS,
    NUM_RANKS,
    OVER,
    PLACE,
    TrashState,
)

NUM_GAMES = 10_000  # random games on the core, over every case of CASES
CONSERVATION_STRIDE = 10  # every 10th game checks card conservation and R15 at every step; all games at the end
NUM_ENV_GAMES = 2_000  # games played through trash_env.env() and replayed from their records
SEED = 20240611

PRESET_NAMES = tuple(PRESETS)
PLAYER_COUNTS = tuple(range(2, 9))


# --------------------------------------------------------------------------
# The configurations played


def _min_decks(preset: str, **overrides: Any) -> int:
    """The fewest decks that R1 accepts: small stocks make the reshuffles of R7 common."""
    for decks in range(1, 5):
        try:
            make_config(preset, num_decks=decks, **overrides)
        except ValueError:
            continue
        return decks
    raise AssertionError(f"no deck count works for {preset} {overrides}")


def _cases() -> list[tuple[str, dict[str, Any]]]:
    """(preset, overrides) per game slot; a case listed k times gets k times the games.

    Hands with the default decks are the bulk; hands with the fewest decks
    exercise reshuffles (R7); hands and matches with a small ``max_turns``
    exercise truncation (R7); matches use small layouts to stay short (R9).
    """
    cases: list[tuple[str, dict[str, Any]]] = []
    for preset in PRESET_NAMES:
        for n in PLAYER_COUNTS:
            hand = {"num_players": n}
            cases += [(preset, hand)] * 4
            cases.append((preset, {**hand, "num_decks": _min_decks(preset, **hand)}))
            cases.append((preset, {**hand, "max_turns": 3 * n}))
            layout = 3 if n % 2 else 4
            cases.append((preset, {**hand, "match": True, "layout_size": layout}))
            if n in (2, 5, 8):
                small = {**hand, "match": True, "layout_size": layout}
                cases.append((preset, {**small, "num_decks": _min_decks(preset, **small), "max_turns": 12 * n}))
    # Rule choices that no preset combines (R11: any field can be overridden).
    cases += [
        ("standard", {"num_players": 3, "discard_draw": "any", "final_turn": False}),
        ("standard", {"num_players": 4, "match": True, "layout_size": 3, "starter": "winner"}),
        ("pagat", {"num_players": 3, "final_turn": True, "jokers": True}),
        ("pagat", {"num_players": 4, "match": True, "layout_size": 4, "starter": "rotate", "final_turn": True}),
        ("seven_up", {"num_players": 2, "wild": "K", "discard_draw": "playable"}),
        ("eight_card", {"num_players": 6, "wild": None, "jokers": True, "discard_draw": "never"}),
    ]
    return cases


CASES = _cases()


def _label(preset: str, overrides: dict[str, Any]) -> str:
    return preset + "(" + ", ".join(f"{k}={v}" for k, v in overrides.items()) + ")"


# --------------------------------------------------------------------------
# Invariants of one state (each returns a list of violations; empty when fine)


def _counts(cards: list[int]) -> list[int]:
    counts = [0] * NUM_RANKS
    for card in cards:
        counts[card] += 1
    return counts


def face_down_slots(state: TrashState) -> list[tuple[int, int]]:
    """(seat, slot) of every face-down slot, in seat order."""
    return [(seat, slot) for seat, up in enumerate(state.up) for slot, value in enumerate(up) if value == FACE_DOWN]


def _places(state: TrashState) -> tuple[list[int], list[int], list[int]]:
    """Per-rank counts of the cards face down in layouts, visible (face up, held,
    discard pile) and in the stock, read from the state's card positions."""
    face_down, visible = [0] * NUM_RANKS, [0] * NUM_RANKS
    for up, down in zip(state.up, state.down):
        for value, card in zip(up, down):
            if value == FACE_DOWN:
                face_down[card] += 1
            else:
                visible[value] += 1
    if state.held != NO_CARD:
        visible[state.held] += 1
    discard, stock = state.discard, state.stock
    visible = [count + discard.count(rank) for rank, count in enumerate(visible)]
    return face_down, visible, [stock.count(rank) for rank in range(NUM_RANKS)]


def conservation_errors(state: TrashState, places: tuple[list[int], ...] | None = None) -> list[str]:
    """R1: the layouts, stock, discard pile and held card hold exactly the configured deck.
    ``places`` is ``_places(state)`` if already computed."""
    errors = []
    for seat in range(state.num_players):
        size = state.sizes[seat]
        if not (len(state.up[seat]) == len(state.down[seat]) == size):
            errors.append(f"seat {seat}: {len(state.up[seat])} slots up, {len(state.down[seat])} down, size {size}")
    if (state.held != NO_CARD) != (state.phase == PLACE):
        errors.append(f"held={state.held} in phase {state.phase}")
    face_down, visible, stock = places or _places(state)
    total = [a + b + c for a, b, c in zip(face_down, visible, stock)]
    if total != list(state.config.copies_per_rank):
        errors.append(f"cards per rank {total} != deck {list(state.config.copies_per_rank)}")
    return errors


def layout_errors(state: TrashState) -> list[str]:
    """R2, R5, R6: a face-up slot holds its own rank or a wild card; ``face_down`` counts the rest."""
    errors = []
    for seat in range(state.num_players):
        up = state.up[seat]
        for slot, value in enumerate(up):
            if value not in (FACE_DOWN, slot + 1) and value not in state.config.wild_ranks:
                errors.append(f"seat {seat} slot {slot} holds {value} face up")
        if state.face_down[seat] != up.count(FACE_DOWN):
            errors.append(f"seat {seat}: face_down={state.face_down[seat]}, {up.count(FACE_DOWN)} slots face down")
    return errors


def r15_errors(state: TrashState, reshuffled: bool, places: tuple[list[int], ...] | None = None) -> list[str]:
    """R15 counts. ``reshuffled``: the stock of this hand was rebuilt from the discard
    pile (R7), so every card in it is known; before that none is."""
    errors = []
    face_down, visible, stock = places or _places(state)
    known, unaccounted = state.known_stock, state.unaccounted
    copies = state.config.copies_per_rank
    expected_known = stock if reshuffled else [0] * NUM_RANKS
    if known != expected_known:
        errors.append(f"known_stock {known} != {expected_known} (reshuffled={reshuffled})")
    for rank in range(NUM_RANKS):
        if known[rank] + unaccounted[rank] + visible[rank] != copies[rank]:
            errors.append(
                f"rank {rank}: known {known[rank]} + unaccounted {unaccounted[rank]} + visible {visible[rank]}"
                f" != {copies[rank]} copies"
            )
        hidden = face_down[rank] + stock[rank] - known[rank]
        if unaccounted[rank] != hidden:
            errors.append(f"rank {rank}: unaccounted {unaccounted[rank]} != {hidden} face down or unknown in the stock")
    return errors


def legality_errors(state: TrashState, legal: list[int]) -> list[str]:
    """R13: until the end the acting seat has a legal action; ``forced_action`` agrees."""
    if state.phase == OVER:
        return [] if legal == [] else [f"legal actions {legal} after the end"]
    if not legal:
        return [f"no legal action for seat {state.current} in phase {state.phase}"]
    errors = []
    if legal != sorted(set(legal)) or not all(0 <= a < NUM_ACTIONS for a in legal):
        errors.append(f"legal actions {legal} are not distinct sorted actions of R13")
    if state.phase == DRAW and DRAW_STOCK not in legal:
        errors.append(f"the draw phase does not allow drawing: {legal}")
    forced = trash.forced_action(state)
    if forced != (legal[0] if len(legal) == 1 else -1):
        errors.append(f"forced_action {forced} but legal actions {legal}")
    return errors


def reward_errors(state: TrashState, first_completion_turn: int | None) -> list[str]:
    """R10 (with R7, R8, R9): who is rewarded at the end, and how much."""
    config = state.config
    n = state.num_players
    errors = []
    got = trash.returns(state)
    expected = [1.0 if seat in state.winners else -1.0 for seat in range(n)] if state.winners else [0.0] * n
    if got != expected:
        errors.append(f"returns {got} for winners {state.winners}")
    if state.truncated:
        if state.winners or state.turn != config.max_turns:
            errors.append(f"truncated at turn {state.turn} (max {config.max_turns}) with winners {state.winners}")
        return errors
    if not state.winners:
        errors.append(f"over at turn {state.turn}, not truncated, but nobody won")
        return errors
    if config.match:
        (winner,) = state.winners if len(state.winners) == 1 else (None,)
        if winner is None or state.sizes[winner] != 1 or state.face_down[winner] != 0:
            errors.append(f"match winners {state.winners} with sizes {state.sizes}, face_down {state.face_down}")
        return errors
    completed = [seat for seat in range(n) if state.face_down[seat] == 0]
    if sorted(state.winners) != completed or state.winners != state.hand_winners:
        errors.append(f"winners {state.winners}, hand_winners {state.hand_winners}, completed {completed}")
    if not config.final_turn and len(state.winners) != 1:
        errors.append(f"final_turn=False but {len(state.winners)} winners")
    if state.hands_won != [int(seat in state.winners) for seat in range(n)]:
        errors.append(f"hands_won {state.hands_won} for winners {state.winners}")
    # R8: the hand ends with the completing turn, or n - 1 turns later with a final round.
    end = None if first_completion_turn is None else first_completion_turn + (n if config.final_turn else 1)
    if state.turn != end:
        errors.append(f"the hand ended at turn {state.turn}; first completion in turn {first_completion_turn}")
    return errors


def hand_snapshot(state: TrashState) -> SimpleNamespace:
    """What ``new_hand_errors`` needs of the state before an action (a full clone is slower)."""
    return SimpleNamespace(
        config=state.config,
        num_players=state.num_players,
        hand=state.hand,
        hand_first=state.hand_first,
        current=state.current,
        sizes=state.sizes[:],
        hands_won=state.hands_won[:],
        hand_winners=state.hand_winners[:],
    )


def new_hand_errors(before: SimpleNamespace, after: TrashState) -> list[str]:
    """R9 and R3: after a hand of a match, its winners lose a slot and the next hand is dealt."""
    n = before.num_players
    errors = []
    winners = [seat for seat in range(n) if after.hands_won[seat] == before.hands_won[seat] + 1]
    first_winner = before.hand_winners[0] if before.hand_winners else before.current
    if not winners or first_winner not in winners:
        errors.append(f"hand ended with winners {winners}, first {first_winner}")
    sizes = [before.sizes[seat] - (seat in winners) for seat in range(n)]
    if after.sizes != sizes:
        errors.append(f"sizes {before.sizes} -> {after.sizes} for hand winners {winners}")
    rule = before.config.starter
    first = first_winner if rule == "winner" else (before.hand_first + 1) % n
    # A new hand dealt at the end of turn max_turns is truncated at once (R7).
    phase = OVER if after.truncated else DRAW
    if after.hand_first != first or after.current != first or after.phase != phase:
        errors.append(f"starter={rule}: next hand starts with {after.current}/{after.hand_first}, expected {first}")
    if after.face_down != sizes or after.discard or after.hand_winners or after.held != NO_CARD:
        errors.append("the next hand is not a fresh deal")
    if len(after.stock) != before.config.deck_size - sum(sizes):
        errors.append(f"stock of {len(after.stock)} after dealing {sum(sizes)} cards")
    return errors


def reshuffle_errors(discard_before: list[int], after: TrashState) -> list[str]:
    """R7: drawing from an empty stock shuffles the discard pile except its top card into the stock."""
    if after.discard != discard_before[-1:]:
        return [f"after the reshuffle the discard pile is {after.discard}, was topped by {discard_before[-1:]}"]
    if Counter([*after.stock, after.held]) != Counter(discard_before[:-1]):
        return ["the reshuffled stock and drawn card are not the discard pile below its top"]
    return []


# --------------------------------------------------------------------------
# Playing the random games


@dataclass
class Outcomes:
    """Violations by kind (first few of each, with the game that showed them) and coverage."""

    violations: dict[str, list[str]] = field(default_factory=dict)
    coverage: Counter = field(default_factory=Counter)
    checked_steps: int = 0

    def add(self, kind: str, where: str, errors: list[str]) -> None:
        if errors:
            found = self.violations.setdefault(kind, [])
            if len(found) < 5:
                found.append(f"{where}: {errors[:3]}")


class RandomPolicy:
    """Uniform random legal actions from a seeded Generator, drawn in blocks for speed."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.block = rng.random(256)
        self.next = 0

    def choose(self, legal: list[int]) -> int:
        if self.next == len(self.block):
            self.block = self.rng.random(256)
            self.next = 0
        u = self.block[self.next]
        self.next += 1
        return legal[int(u * len(legal))]


def play_random_game(config: TrashConfig, index: int, outcomes: Outcomes, where: str, check_every_step: bool) -> None:
    rng = np.random.default_rng((SEED, index))
    policy = RandomPolicy(np.random.default_rng((SEED, index, 1)))
    state = trash.new_game(config, rng)
    reshuffled = False
    first_completion_turn: int | None = None
    # Each turn has one draw, at most one placement per slot plus the wild moves, and one discard.
    step_bound = config.max_turns * (4 * config.layout_size + 4)
    steps = 0
    while True:
        legal = trash.legal_actions(state)
        outcomes.add("legality", f"{where} step {steps}", legality_errors(state, legal))
        if state.turn > config.max_turns:
            outcomes.add("termination", where, [f"turn {state.turn} > max_turns {config.max_turns}"])
            break
        if check_every_step or state.phase == OVER:
            outcomes.checked_steps += 1
            places = _places(state)
            outcomes.add("conservation", f"{where} step {steps}", conservation_errors(state, places))
            outcomes.add("layout", f"{where} step {steps}", layout_errors(state))
            outcomes.add("r15", f"{where} step {steps}", r15_errors(state, reshuffled, places))
        if state.phase == OVER or not legal:
            break
        if steps > step_bound:
            outcomes.add("termination", where, [f"not over after {steps} actions (turn {state.turn})"])
            break
        action = policy.choose(legal)
        discard_before = state.discard[:] if action == DRAW_STOCK and not state.stock else None
        hand_before = hand_snapshot(state) if config.match else None
        trash.apply_action(state, action, rng)
        steps += 1
        if discard_before is not None:
            reshuffled = True
            outcomes.coverage["reshuffles"] += 1
            outcomes.add("reshuffle", f"{where} step {steps}", reshuffle_errors(discard_before, state))
        if hand_before is not None and state.hand != hand_before.hand:
            reshuffled = False
            outcomes.coverage["match hands"] += 1
            outcomes.add("match", f"{where} step {steps}", new_hand_errors(hand_before, state))
        elif first_completion_turn is None and (state.hand_winners or state.winners):
            first_completion_turn = state.turn - 1
    if state.phase != OVER:
        outcomes.add("termination", where, [f"stopped at turn {state.turn} in phase {state.phase}"])
        return
    outcomes.coverage["games"] += 1
    outcomes.coverage["truncated" if state.truncated else "won"] += 1
    outcomes.coverage[f"players={config.num_players}"] += 1
    outcomes.coverage["match games" if config.match else "hand games"] += 1
    if not state.truncated and len(state.winners) > 1:
        outcomes.coverage["shared wins"] += 1
    outcomes.add("rewards", where, reward_errors(state, first_completion_turn))


@pytest.fixture(scope="module")
def random_games() -> Outcomes:
    outcomes = Outcomes()
    configs = {}
    for index in range(NUM_GAMES):
        preset, overrides = CASES[index % len(CASES)]
        key = (preset, tuple(sorted(overrides.items())))
        if key not in configs:
            configs[key] = make_config(preset, **overrides)
        outcomes.coverage[f"preset={preset}"] += 1
        where = f"game {index} {_label(preset, overrides)}"
        play_random_game(configs[key], index, outcomes, where, check_every_step=index % CONSERVATION_STRIDE == 0)
    return outcomes


def _assert_none(outcomes: Outcomes, kind: str) -> None:
    found = outcomes.violations.get(kind, [])
    assert not found, f"{kind} violated:\n" + "\n".join(found)


@pytest.mark.slow
def test_random_games_cover_every_preset_player_count_and_mode(random_games: Outcomes) -> None:
    """R1, R7, R8, R9, R11: the random games reach every preset, player count and mode,
    and include reshuffles, truncations, shared wins and multi-hand matches, so the
    properties below are not checked on easy games only."""
    coverage = random_games.coverage
    assert coverage["games"] == NUM_GAMES
    for preset in PRESET_NAMES:
        assert coverage[f"preset={preset}"] >= NUM_GAMES // 10
    for n in PLAYER_COUNTS:
        assert coverage[f"players={n}"] >= NUM_GAMES // 20
    assert coverage["match games"] >= NUM_GAMES // 20
    assert coverage["match hands"] >= 2 * coverage["match games"]
    assert coverage["reshuffles"] >= NUM_GAMES // 10
    assert coverage["truncated"] >= NUM_GAMES // 20
    assert coverage["shared wins"] >= NUM_GAMES // 100
    assert random_games.checked_steps >= 100 * NUM_GAMES // CONSERVATION_STRIDE


@pytest.mark.slow
def test_cards_are_conserved_at_every_step(random_games: Outcomes) -> None:
    """R1: at every checked step the layouts (face up and face down), the stock, the
    discard pile and the held card hold exactly the configured deck."""
    _assert_none(random_games, "conservation")


@pytest.mark.slow
def test_face_up_slots_hold_their_rank_or_a_wild(random_games: Outcomes) -> None:
    """R2, R5, R6: a face-up slot holds its own rank (filled) or a wild card (wild-filled),
    and ``face_down`` counts the face-down slots."""
    _assert_none(random_games, "layout")


@pytest.mark.slow
def test_r15_counts_match_the_cards(random_games: Outcomes) -> None:
    """R15: known-in-stock + unaccounted + visible copies = copies per rank; unaccounted is
    the true count face down plus the stock part no reshuffle (R7) has shown; known-in-stock
    is the whole stock after a reshuffle of this hand and nothing before it."""
    _assert_none(random_games, "r15")


@pytest.mark.slow
def test_reshuffle_takes_the_discard_pile_below_its_top(random_games: Outcomes) -> None:
    """R7: drawing from an empty stock turns the discard pile, except its top card, into the stock."""
    _assert_none(random_games, "reshuffle")


@pytest.mark.slow
def test_every_episode_ends_within_max_turns_with_a_legal_action_until_then(random_games: Outcomes) -> None:
    """R7, R13: every episode is over within ``max_turns`` turns; until then the seat to act
    has a legal action (drawing, in the draw phase), and ``forced_action`` names the only one."""
    _assert_none(random_games, "termination")
    _assert_none(random_games, "legality")


@pytest.mark.slow
def test_rewards_follow_r10(random_games: Outcomes) -> None:
    """R10 with R7, R8, R9: +1 to each winner, -1 to the others, 0 on truncation. A hand's
    winners are exactly the seats with no face-down slot, in completion order (one without
    a final round), and the hand ends n - 1 turns after the first completion with a final
    round (R8); a match has one winner, whose last layout had one slot."""
    _assert_none(random_games, "rewards")


@pytest.mark.slow
def test_match_hands_shrink_winners_and_pass_the_start(random_games: Outcomes) -> None:
    """R9, R3: after each hand of a match, exactly its winners lose a slot, the next hand
    is dealt fresh, and it starts with the first winner (``winner``) or the next seat (``rotate``)."""
    _assert_none(random_games, "match")


def _corrupt(state: TrashState, how: str) -> TrashState:
    state = trash.clone(state)
    if how == "drop a stock card":
        state.stock.pop()
    elif how == "duplicate the discard top":
        state.discard.append(state.discard[-1])
    elif how == "turn a slot face up without counting":
        seat = next(s for s in range(state.num_players) if state.face_down[s])
        slot = state.up[seat].index(FACE_DOWN)
        state.up[seat][slot] = state.down[seat][slot]
    elif how == "miscount unaccounted":
        state.unaccounted[5] += 1
    return state


@pytest.mark.parametrize(
    ("how", "check"),
    [
        ("drop a stock card", conservation_errors),
        ("duplicate the discard top", conservation_errors),
        ("turn a slot face up without counting", layout_errors),
        ("miscount unaccounted", lambda state: r15_errors(state, reshuffled=False)),
        ("drop a stock card", lambda state: r15_errors(state, reshuffled=False)),
    ],
    ids=["conservation-stock", "conservation-discard", "layout", "r15-unaccounted", "r15-stock"],
)
def test_the_invariant_checks_catch_a_corrupt_state(how: str, check: Callable[[TrashState], list[str]]) -> None:
    """R1, R2, R15: the checks used above do fail on a state that breaks them."""
    config = make_config("standard", num_players=3)
    rng = np.random.default_rng(SEED)
    state = trash.new_game(config, rng)
    policy = RandomPolicy(rng)
    while len(state.discard) < 3:
        trash.apply_action(state, policy.choose(trash.legal_actions(state)), rng)
    while state.phase != DRAW:
        trash.apply_action(state, policy.choose(trash.legal_actions(state)), rng)
    assert check(state) == []
    assert check(_corrupt(state, how)) != []


# --------------------------------------------------------------------------
# Mid-game states for the observation and belief tests


def mid_game_states(count: int, seed: int, reshuffled_only: bool = False) -> list[TrashState]:
    """Random mid-game states over every preset and player count, hands and matches.

    With ``reshuffled_only`` every state is taken after a reshuffle (R7) of its hand,
    from configurations with the fewest decks so reshuffles come early.
    """
    rng = np.random.default_rng(seed)
    states: list[TrashState] = []
    for attempt in range(100 * count):
        if len(states) == count:
            break
        preset = PRESET_NAMES[attempt % len(PRESET_NAMES)]
        n = PLAYER_COUNTS[(attempt // len(PRESET_NAMES)) % len(PLAYER_COUNTS)]
        overrides: dict[str, Any] = {"num_players": n}
        if attempt % 3 == 2:
            overrides.update(match=True, layout_size=4)
        if reshuffled_only or attempt % 2:
            overrides["num_decks"] = _min_decks(preset, **overrides)
        config = make_config(preset, **overrides)
        state = trash.new_game(config, rng)
        policy = RandomPolicy(rng)
        # Reservoir sampling: one uniformly chosen state among those where something is still hidden.
        kept, seen = None, 0
        while state.phase != OVER:
            if any(state.face_down) and (not reshuffled_only or any(state.known_stock)):
                seen += 1
                if policy.choose(range(seen)) == 0:
                    kept = trash.clone(state)
            trash.apply_action(state, policy.choose(trash.legal_actions(state)), rng)
        if kept is not None:
            states.append(kept)
    assert len(states) == count, f"only {len(states)} of {count} states found"
    return states


def permute_hidden(state: TrashState, rng: np.random.Generator) -> TrashState:
    """The same public state with the hidden cards rearranged (R15): the stock reordered and
    the cards under face-down slots and in the unknown part of the stock redistributed. Cards
    a reshuffle put into the stock (``known_stock``) stay in the stock."""
    new = trash.clone(state)
    known = list(state.known_stock)
    stock_known, stock_unknown = [], []
    for card in state.stock:
        if known[card]:
            known[card] -= 1
            stock_known.append(card)
        else:
            stock_unknown.append(card)
    slots = face_down_slots(state)
    pool = [state.down[seat][slot] for seat, slot in slots] + stock_unknown
    pool = [pool[i] for i in rng.permutation(len(pool))]
    for (seat, slot), card in zip(slots, pool):
        new.down[seat][slot] = card
    stock = pool[len(slots) :] + stock_known
    new.stock = [stock[i] for i in rng.permutation(len(stock))]
    return new


Encoder = Callable[[TrashState, int], np.ndarray]


def leaks(encode: Encoder, states: list[TrashState], rng: np.random.Generator, permutations: int = 4) -> int:
    """How many (state, permutation) pairs change some seat's encoding or the legal actions."""
    changed = 0
    for state in states:
        seats = range(state.num_players)
        original = [encode(state, seat) for seat in seats]
        for _ in range(permutations):
            other = permute_hidden(state, rng)
            same = all(np.array_equal(original[seat], encode(other, seat)) for seat in seats)
            same = same and trash.legal_actions(other) == trash.legal_actions(state)
            same = same and trash.forced_action(other) == trash.forced_action(state)
            changed += not same
    return changed


def _observer_encoder() -> Encoder:
    observers: dict[TrashConfig, TrashObserver] = {}

    def encode(state: TrashState, seat: int) -> np.ndarray:
        if state.config not in observers:
            observers[state.config] = TrashObserver(state.config)
        return observers[state.config].encode(state, seat)

    return encode


@pytest.fixture(scope="module")
def some_states() -> list[TrashState]:
    return mid_game_states(300, seed=SEED + 1)


@pytest.fixture(scope="module")
def reshuffled_states() -> list[TrashState]:
    return mid_game_states(100, seed=SEED + 2, reshuffled_only=True)


def test_permuting_hidden_cards_changes_no_observation(
    some_states: list[TrashState], reshuffled_states: list[TrashState]
) -> None:
    """R15, R2: shuffling the stock and redistributing the cards under face-down slots among
    the face-down slots and the unknown stock (known-stock cards stay in the stock) leaves
    every seat's observation and the legal actions unchanged, also after reshuffles (R7)."""
    rng = np.random.default_rng(SEED + 3)
    states = some_states + reshuffled_states
    assert sum(any(s.known_stock) for s in states) >= len(reshuffled_states)
    # The permutations do move hidden cards, so the invariance is not vacuous.
    moved = sum(permute_hidden(s, rng).down != s.down for s in states)
    assert moved >= 0.9 * len(states)
    assert leaks(_observer_encoder(), states, rng) == 0


def test_the_leak_check_catches_a_leaky_observation(some_states: list[TrashState]) -> None:
    """R15: the permutation check above would catch an observation that shows the top of
    the stock or the card under a face-down slot."""
    rng = np.random.default_rng(SEED + 4)
    encode = _observer_encoder()

    def shows_stock_top(state: TrashState, seat: int) -> np.ndarray:
        return np.append(encode(state, seat), state.stock[-1] if state.stock else -1)

    def shows_own_face_down(state: TrashState, seat: int) -> np.ndarray:
        hidden = [d for d, u in zip(state.down[seat], state.up[seat]) if u == FACE_DOWN]
        return np.append(encode(state, seat), hidden)

    states = some_states[:60]
    assert leaks(shows_stock_top, states, rng) >= len(states)
    assert leaks(shows_own_face_down, states, rng) >= len(states)


def test_changing_a_public_card_changes_every_observation(some_states: list[TrashState]) -> None:
    """R15, R2: a face-up card, the top discard and the held card are public, so changing
    one changes the observation of every seat (the check above is not blind)."""
    encode = _observer_encoder()
    tested = 0
    for state in some_states:
        n = state.num_players
        original = [encode(state, seat) for seat in range(n)]
        changed = []
        filled = [(s, i) for s in range(n) for i, u in enumerate(state.up[s]) if u == i + 1]
        if filled and state.config.wild_ranks:
            seat, slot = filled[0]
            other = trash.clone(state)
            other.up[seat][slot] = state.config.wild_ranks[0]  # filled -> wild-filled
            changed.append(other)
        if state.discard:
            other = trash.clone(state)
            other.discard[-1] = (state.discard[-1] % 13) + 1
            changed.append(other)
        if state.phase == PLACE:
            other = trash.clone(state)
            other.held = (state.held % 13) + 1
            changed.append(other)
        for other in changed:
            tested += 1
            for seat in range(n):
                assert not np.array_equal(original[seat], encode(other, seat)), (state, seat)
    assert tested >= len(some_states)


# --------------------------------------------------------------------------
# Belief sampling (R15)

# ``down`` and the stock order are hidden; ``deck`` (the hand's deal order, kept for game
# records) reveals the deal, so nothing public may depend on it and it is not compared.
_PUBLIC_FIELDS = tuple(name for name in TrashState.__slots__ if name not in ("down", "stock", "deck"))


def test_belief_sample_keeps_every_public_field(
    some_states: list[TrashState], reshuffled_states: list[TrashState]
) -> None:
    """R15, R2: a sampled hidden state differs from the real one only in hidden places: every
    other field, the face-up slots, the stock size, each seat's observation and the legal
    actions are identical."""
    rng = np.random.default_rng(SEED + 5)
    encode = _observer_encoder()
    for state in some_states[:150] + reshuffled_states[:50]:
        for _ in range(3):
            sample = sample_hidden_state(state, rng)
            for name in _PUBLIC_FIELDS:
                assert getattr(sample, name) == getattr(state, name), name
            for seat in range(state.num_players):
                for slot, u in enumerate(state.up[seat]):
                    if u != FACE_DOWN:
                        assert sample.down[seat][slot] == state.down[seat][slot]
                assert np.array_equal(encode(sample, seat), encode(state, seat))
            assert len(sample.stock) == len(state.stock)
            assert trash.legal_actions(sample) == trash.legal_actions(state)


def test_belief_sample_conserves_cards(some_states: list[TrashState], reshuffled_states: list[TrashState]) -> None:
    """R1, R15: a sampled state holds the same hidden cards (so the whole deck), and the R15
    counts still describe it."""
    rng = np.random.default_rng(SEED + 6)
    for state in some_states[:150] + reshuffled_states[:50]:
        sample = sample_hidden_state(state, rng)
        assert Counter(sample.hidden_cards()) == Counter(state.hidden_cards())
        assert conservation_errors(sample) == []
        assert r15_errors(sample, reshuffled=any(state.known_stock)) == []


def test_belief_sample_keeps_known_stock_cards_in_the_stock(reshuffled_states: list[TrashState]) -> None:
    """R7, R15: after a reshuffle every stock card is known, so a sample keeps the same stock
    cards (in a fresh order) and redistributes only the face-down cards among the face-down slots."""
    rng = np.random.default_rng(SEED + 7)
    reordered = 0
    for state in reshuffled_states:
        assert _counts(state.stock) == state.known_stock
        face_down = Counter(state.hidden_cards()) - Counter(state.stock)
        for _ in range(3):
            sample = sample_hidden_state(state, rng)
            assert Counter(sample.stock) == Counter(state.stock)
            assert Counter(sample.hidden_cards()) - Counter(sample.stock) == face_down
            reordered += sample.stock != state.stock
    assert reordered >= len(reshuffled_states)  # the stock order is redrawn, not copied


def _chi_square(observed: list[int], probabilities: list[float]) -> tuple[float, int]:
    """Pearson's statistic over the ranks of positive probability, and its degrees of freedom."""
    total = sum(observed)
    statistic, cells = 0.0, 0
    for seen, p in zip(observed, probabilities):
        if p > 0:
            statistic += (seen - total * p) ** 2 / (total * p)
            cells += 1
        elif seen:
            return float("inf"), cells
    return statistic, cells - 1


def _looks_uniform(observed: list[int], probabilities: list[float]) -> bool:
    """Within 6 standard deviations of the chi-square mean: never flaky with fixed seeds,
    yet far below what a biased sampler gives."""
    statistic, df = _chi_square(observed, probabilities)
    return statistic <= df + 6 * (2 * df) ** 0.5


def _positions(state: TrashState) -> dict[str, Callable[[TrashState], int]]:
    slots = face_down_slots(state)
    (s0, i0), (s1, i1) = slots[0], slots[-1]
    return {
        "first face-down slot": lambda g: g.down[s0][i0],
        "last face-down slot": lambda g: g.down[s1][i1],
        "top of the stock": lambda g: g.stock[-1],
        "bottom of the stock": lambda g: g.stock[0],
    }


SAMPLES = 3_000


def test_belief_sample_is_uniform_over_hidden_places(
    some_states: list[TrashState], reshuffled_states: list[TrashState]
) -> None:
    """R15: every arrangement consistent with the public state is equally likely, so the card
    under a face-down slot has each rank with probability unaccounted[rank] / all unaccounted,
    and so has a stock card before a reshuffle; after one (R7) a stock card follows the known
    counts. A sampler that returns the real cards fails this check."""
    rng = np.random.default_rng(SEED + 8)
    fresh = next(s for s in some_states if not any(s.known_stock) and s.num_players >= 3 and len(s.stock) > 5)
    shuffled = next(s for s in reshuffled_states if len(s.stock) >= 3 and sum(s.face_down) >= 4)
    for state in (fresh, shuffled):
        unknown = sum(state.unaccounted)
        unknown_p = [c / unknown for c in state.unaccounted]
        known_p = [c / len(state.stock) for c in state.known_stock] if any(state.known_stock) else unknown_p
        positions = _positions(state)
        counts = {name: [0] * NUM_RANKS for name in positions}
        pairs: dict[str, list[int]] = {name: [] for name in positions}
        for _ in range(SAMPLES):
            sample = sample_hidden_state(state, rng)
            for name, card_at in positions.items():
                card = card_at(sample)
                counts[name][card] += 1
                pairs[name].append(card)
        for name, observed in counts.items():
            expected = known_p if "stock" in name else unknown_p
            assert _looks_uniform(observed, expected), (name, observed, [round(p * SAMPLES) for p in expected])
            # Teeth: a "sampler" that always returns the real card in that place is far from uniform.
            truth = [0] * NUM_RANKS
            truth[positions[name](state)] = SAMPLES
            assert not _looks_uniform(truth, expected)
        # Jointly too: two face-down slots hold the same rank as often as two cards drawn
        # without replacement from the unaccounted ones (within 6 standard deviations).
        same = sum(a == b for a, b in zip(pairs["first face-down slot"], pairs["last face-down slot"]))
        p_same = sum(c * (c - 1) for c in state.unaccounted) / (unknown * (unknown - 1))
        assert abs(same - SAMPLES * p_same) <= 6 * (SAMPLES * p_same * (1 - p_same)) ** 0.5, (same, SAMPLES * p_same)


# --------------------------------------------------------------------------
# Game records through the PettingZoo environment


def _env_cases() -> list[tuple[str, dict[str, Any], bool]]:
    cases = []
    for n in PLAYER_COUNTS:
        for preset in PRESET_NAMES:
            cases.append((preset, {"num_players": n}, n % 2 == 0))
            cases.append((preset, {"num_players": n, "num_decks": _min_decks(preset, num_players=n)}, True))
            cases.append((preset, {"num_players": n, "match": True, "layout_size": 3}, n % 3 != 0))
    return cases


def play_env_game(env: Any, seed: int, policy: RandomPolicy) -> dict[str, float]:
    """One episode with random masked actions; the final cumulative reward of each agent."""
    env.reset(seed=seed)
    final: dict[str, float] = {}
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            final[agent] = reward
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        env.step(policy.choose(legal))
    return final


@pytest.mark.slow
def test_replayed_records_end_identically() -> None:
    """R3, R7, R9, R10, R13: a game record, after a JSON round trip, replays every action
    (forced moves included) to the environment's final state, and its returns are the
    environment's final cumulative rewards."""
    cases = _env_cases()
    envs = {}
    policy = RandomPolicy(np.random.default_rng(SEED + 9))
    seeds = np.random.default_rng(SEED + 10).integers(2**31, size=NUM_ENV_GAMES)
    over = 0
    for index in range(NUM_ENV_GAMES):
        preset, overrides, skip_forced = cases[index % len(cases)]
        key = (preset, tuple(sorted(overrides.items())), skip_forced)
        if key not in envs:
            envs[key] = trash_env.env(preset, skip_forced=skip_forced, **overrides)
        env = envs[key]
        final = play_env_game(env, int(seeds[index]), policy)
        record = env.unwrapped.game_record()
        loaded = json.loads(json.dumps(record))
        assert loaded == record  # plain JSON values only: nothing changes in the round trip
        record = loaded
        where = f"env game {index} {_label(preset, overrides)} skip_forced={skip_forced}"
        state = replay(record)
        assert state == env.unwrapped.game_state, where
        assert record["returns"] == [final[agent] for agent in env.possible_agents], where
        assert record["returns"] == trash.returns(state), where
        assert record["winners"] == state.winners and record["truncated"] == state.truncated, where
        over += record["over"]
    assert over == NUM_ENV_GAMES


# --------------------------------------------------------------------------
# Corrupt records


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    env = trash_env.env("standard", num_players=3)
    play_env_game(env, 7, RandomPolicy(np.random.default_rng(SEED + 11)))
    record = json.loads(json.dumps(env.unwrapped.game_record()))
    assert len(record["actions"]) > 20
    return record


def _illegal_action_at(record: dict[str, Any], index: int) -> int:
    """An action of R13 that is not legal where the record's action ``index`` stands."""
    config = TrashConfig.from_dict(record["config"])
    rng = np.random.default_rng(record["seed"])
    state = trash.new_game(config, rng)
    for action in record["actions"][:index]:
        trash.apply_action(state, action, rng)
    legal = trash.legal_actions(state)
    return next(a for a in (DISCARD, DRAW_STOCK, 1, 2, 11) if a not in legal)


def test_replay_accepts_the_intact_record(record: dict[str, Any]) -> None:
    """R13: the record used below replays to its end as it is, so each rejection below is
    caused by its corruption alone."""
    state = replay(record)
    assert state.phase == OVER and trash.returns(state) == record["returns"]


@pytest.mark.parametrize(
    ("corruption", "message"),
    [
        (lambda r: r.update(game="chess_v0"), "not a trash_v0 or help_your_neighbor_v0 game record"),
        (lambda r: r.update(version=2), "version 2 is not supported"),
        (lambda r: r.update(version="1"), "version '1' is not supported"),
        (lambda r: r.pop("actions"), "missing \\['actions'\\]"),
        (lambda r: r["deck"].reverse(), "deck does not match the deck its seed shuffles"),
        (lambda r: r.update(seed=r["seed"] + 1), "deck does not match the deck its seed shuffles"),
        (lambda r: r["actions"].append(DRAW_STOCK), "action #\\d+ cannot be replayed: the game is over"),
        (lambda r: r.update(deck_source="given", deck=r["deck"][:-1]), "the deck has \\d+ cards"),
    ],
    ids=["wrong game", "bad version", "version text", "no actions", "deck", "seed", "after the end", "short deck"],
)
def test_replay_rejects_a_corrupt_record(record: dict[str, Any], corruption: Callable, message: str) -> None:
    """R3, R13: a record of another game, of another version, with a deck that its seed does
    not shuffle, or an action after the end is a ValueError naming the problem."""
    corrupt = copy.deepcopy(record)
    corruption(corrupt)
    with pytest.raises(ValueError, match=message):
        replay(corrupt)


@pytest.mark.parametrize("index", [0, 1, 7, 15, -1])
def test_replay_names_the_illegal_action(record: dict[str, Any], index: int) -> None:
    """R13: an action that is not legal where it stands is a ValueError naming its index."""
    index %= len(record["actions"])
    corrupt = copy.deepcopy(record)
    corrupt["actions"][index] = _illegal_action_at(record, index)
    with pytest.raises(ValueError, match=f"action #{index} cannot be replayed: action {corrupt['actions'][index]} "):
        replay(corrupt)


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param("0", id="string"),
        pytest.param(None, id="null"),
        pytest.param([0], id="list"),
        pytest.param(2.5, id="fraction"),
        pytest.param(True, id="boolean"),
    ],
)
def test_replay_names_a_non_integer_action(record: dict[str, Any], bad: Any) -> None:
    """R13: an entry of ``actions`` that is not an action number at all is also a ValueError
    naming its index (a JSON record can hold any value there)."""
    corrupt = copy.deepcopy(record)
    corrupt["actions"][5] = bad
    with pytest.raises(ValueError, match="action #5 cannot be replayed"):
        replay(corrupt)


@pytest.mark.parametrize(
    "corruption",
    [
        pytest.param(lambda r: r.update(seed="abc"), id="seed not an integer"),
        pytest.param(lambda r: r.update(seed=True), id="seed a bool"),
        pytest.param(lambda r: r.update(actions=5), id="actions not a list"),
        pytest.param(lambda r: r.update(deck=None), id="deck not a list"),
        pytest.param(lambda r: r.update(deck_source="x"), id="unknown deck source"),
        pytest.param(lambda r: r.update(version=True), id="version a bool"),
        pytest.param(lambda r: r.update(config=[1, 2]), id="config not a dict"),
    ],
)
def test_replay_rejects_mistyped_fields(record: dict[str, Any], corruption: Callable) -> None:
    """R3, R13: a record whose seed, deck or actions have the wrong type is a ValueError,
    not some other exception from deep inside."""
    corrupt = copy.deepcopy(record)
    corruption(corrupt)
    with pytest.raises(ValueError):
        replay(corrupt)
