"""Rule scenarios on the Help Your Neighbor core (trash_env.neighbor.rules), each a named example
of the rule book (RULES.md) R12 and R14 (with the turn limit of R7).

Every scenario stacks its dice (``neighbor.new_game(config, dice=[...])``: totals used in
order) and plays them with a generator that fails if asked, so each roll is the one the
test names, and states the exact result: every seat's covered markers, the seat to act,
the phase, the turn count, the roller and helper, the legal actions. A few positions that
would take long to reach by rolls are built by covering markers directly (``cover``),
as their tests say. The last sections check the generator (one ``integers(36)`` per roll,
the two-dice distribution), ``clone``, config and dice validation, and game records.
"""

from __future__ import annotations

import copy
import json
import math
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import trash_env
from trash_env.games import NEIGHBOR
from trash_env.neighbor import rules as neighbor
from trash_env.neighbor.rules import (
    CHOOSE,
    END_TURN,
    MARKER_OF_TOTAL,
    MAX_TURNS,
    NOBODY,
    NUM_ACTIONS,
    NUM_MARKERS,
    OVER,
    ROLL,
    ROLL_DICE,
    TOTALS,
    UNCOVER,
    UNCOVER_0,
    WAYS,
    IllegalActionError,
    NeighborConfig,
    NeighborState,
    apply_action,
    check_dice,
    clone,
    forced_action,
    legal_actions,
    make_config,
    new_game,
    play_forced,
    returns,
)
from trash_env.records import make_record

# --------------------------------------------------------------------------
# Helpers


class NoRng:
    """A generator for scenarios with stacked dice: any roll beyond them is a test error."""

    def integers(self, *args: Any, **kwargs: Any) -> int:
        raise AssertionError("the scenario rolled more dice than it stacked")


class SpyRng:
    """A ``numpy`` generator that records every call of ``integers`` (arguments, value)."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.calls: list[tuple[tuple[Any, ...], dict[str, Any], int]] = []

    def integers(self, *args: Any, **kwargs: Any) -> Any:
        value = self.rng.integers(*args, **kwargs)
        self.calls.append((args, kwargs, int(value)))
        return value


class PairsRng:
    """A generator whose ``integers(36)`` returns the given pairs in order."""

    def __init__(self, pairs: list[int]) -> None:
        self.pairs = list(pairs)

    def integers(self, high: int) -> int:
        assert high == 36
        return self.pairs.pop(0)


NO_RNG = NoRng()


def game(num_players: int = 2, dice: list[int] | tuple[int, ...] = (), **overrides: Any) -> NeighborState:
    """A new game with stacked dice (R12: seat 0 first)."""
    return new_game(make_config(num_players=num_players, **overrides), list(dice))


def uncover(total: int) -> int:
    """The action uncovering the marker of ``total`` (R14)."""
    return UNCOVER_0 + MARKER_OF_TOTAL[total]


def move(state: NeighborState, legal: list[int], action: int) -> None:
    """Check the legal actions (R14) of the seat to act, then apply ``action`` with stacked dice only."""
    assert legal_actions(state) == legal
    apply_action(state, action, NO_RNG)


def cover(state: NeighborState, seat: int, *totals: int) -> None:
    """Set up a position: ``seat`` has covered ``totals`` (keeps ``covered`` and ``left`` consistent)."""
    for total in totals:
        j = MARKER_OF_TOTAL[total]
        assert not state.covered[seat][j]
        state.covered[seat][j] = True
        state.left[seat] -= 1


def covered_totals(state: NeighborState) -> list[list[int]]:
    """Per seat, the totals whose markers are covered, in the order of TOTALS."""
    return [[TOTALS[j] for j, c in enumerate(row) if c] for row in state.covered]


def expect(
    state: NeighborState,
    *,
    covered: list[list[int]],
    current: int,
    phase: int,
    turn: int,
    roll: int,
    roller: int,
    helper: int = NOBODY,
    legal: list[int],
) -> None:
    """The exact state after a scenario step."""
    assert covered_totals(state) == covered
    assert state.left == [NUM_MARKERS - len(c) for c in covered]
    assert (state.current, state.phase, state.turn) == (current, phase, turn)
    assert (state.roll, state.roller, state.helper) == (roll, roller, helper)
    assert legal_actions(state) == legal
    if phase != OVER:
        assert (state.winners, state.truncated) == ([], False)


def policy_game(
    config: NeighborConfig, seed: int, dice: list[int], policy_seed: int
) -> tuple[NeighborState, list[int]]:
    """A whole game: forced moves applied (R14), each choice drawn by a separate policy generator."""
    rng = np.random.default_rng(seed)
    choose = np.random.default_rng(policy_seed)
    state = new_game(config, dice)
    actions: list[int] = []
    while True:
        play_forced(state, rng, actions)
        if state.over:
            return state, actions
        legal = legal_actions(state)
        action = legal[int(choose.integers(len(legal)))]
        apply_action(state, action, rng)
        actions.append(action)


def total_of(pair: int) -> int:
    """The total of the two dice of ``rng.integers(36)``'s ``pair``."""
    return pair // 6 + pair % 6 + 2


# --------------------------------------------------------------------------
# R12: the start


@pytest.mark.parametrize("num_players", range(2, 9))
def test_new_game_seat_0_rolls_first_with_every_marker_uncovered(num_players: int) -> None:
    """R12, R14: every marker uncovered, seat 0 to act, its first roll forced."""
    state = game(num_players)
    expect(state, covered=[[]] * num_players, current=0, phase=ROLL, turn=0, roll=0, roller=NOBODY, legal=[ROLL_DICE])
    assert forced_action(state) == ROLL_DICE
    assert (state.num_players, state.rolls, state.dice, state.over) == (num_players, [], [], False)
    assert returns(state) == [0.0] * num_players


# --------------------------------------------------------------------------
# R12: the roller covers their own total


def test_roller_covers_own_total_then_rolls_again_or_ends_the_turn() -> None:
    """R12: a 6 covers the roller's 6 and they may roll again or end (no forced move);
    rolling again continues the same turn (an 8 covers the 8); ending passes the turn to
    seat 1, whose first roll is forced (R14) and covers its own 3."""
    state = game(2, dice=[6, 8, 3])
    move(state, [ROLL_DICE], ROLL_DICE)
    expect(state, covered=[[6], []], current=0, phase=CHOOSE, turn=0, roll=6, roller=0, legal=[ROLL_DICE, END_TURN])
    assert forced_action(state) == -1
    assert play_forced(state, NO_RNG) == 0
    move(state, [ROLL_DICE, END_TURN], ROLL_DICE)
    expect(state, covered=[[6, 8], []], current=0, phase=CHOOSE, turn=0, roll=8, roller=0, legal=[ROLL_DICE, END_TURN])
    move(state, [ROLL_DICE, END_TURN], END_TURN)
    expect(state, covered=[[6, 8], []], current=1, phase=ROLL, turn=1, roll=8, roller=0, legal=[ROLL_DICE])
    assert forced_action(state) == ROLL_DICE
    move(state, [ROLL_DICE], ROLL_DICE)
    expect(state, covered=[[6, 8], [3]], current=1, phase=CHOOSE, turn=1, roll=3, roller=1, legal=[ROLL_DICE, END_TURN])
    assert state.rolls == [6, 8, 3]
    assert state.dice == []


def test_ending_the_turn_goes_round_the_table() -> None:
    """R12: ending a turn passes it to the next seat, and from the last seat to seat 0."""
    state = game(3, dice=[2, 3, 4, 5])
    for seat, total in enumerate([2, 3, 4]):
        assert (state.current, state.turn) == (seat, seat)
        move(state, [ROLL_DICE], ROLL_DICE)
        assert (state.roll, state.roller, state.phase) == (total, seat, CHOOSE)
        move(state, [ROLL_DICE, END_TURN], END_TURN)
    expect(state, covered=[[2], [3], [4]], current=0, phase=ROLL, turn=3, roll=4, roller=2, legal=[ROLL_DICE])
    move(state, [ROLL_DICE], ROLL_DICE)
    expect(state, covered=[[2, 5], [3], [4]], current=0, phase=CHOOSE, turn=3, roll=5, roller=0, legal=[0, 1])


# --------------------------------------------------------------------------
# R12: the privilege passes around the table


def test_privilege_passes_to_the_next_seat_whose_first_roll_is_forced() -> None:
    """R12, R14: seat 0 covers its 6 and rolls a 6 again: seat 1, the first after it with
    6 uncovered, covers it and the turn moves to seat 1 (helper 1), whose first roll is
    forced; that roll (an 8) covers seat 1's own 8 and clears the helper."""
    state = game(3, dice=[6, 6, 8])
    move(state, [ROLL_DICE], ROLL_DICE)
    move(state, [ROLL_DICE, END_TURN], ROLL_DICE)
    expect(state, covered=[[6], [6], []], current=1, phase=ROLL, turn=1, roll=6, roller=0, helper=1, legal=[ROLL_DICE])
    assert forced_action(state) == ROLL_DICE
    actions: list[int] = []
    assert play_forced(state, NO_RNG, actions) == 1
    assert actions == [ROLL_DICE]
    expect(state, covered=[[6], [6, 8], []], current=1, phase=CHOOSE, turn=1, roll=8, roller=1, legal=[0, 1])


def test_privilege_skips_players_who_have_the_total_covered_and_wraps_around() -> None:
    """R12: seat 0 covers 6 and ends, seat 1 covers 8 and ends, seat 2 covers 6 and rolls
    6 again: after seat 2 comes seat 0 (6 covered, skipped), then seat 1, who covers it
    and takes the turn. Reached by rolls alone."""
    state = game(3, dice=[6, 8, 6, 6])
    move(state, [ROLL_DICE], ROLL_DICE)
    move(state, [ROLL_DICE, END_TURN], END_TURN)
    move(state, [ROLL_DICE], ROLL_DICE)
    move(state, [ROLL_DICE, END_TURN], END_TURN)
    move(state, [ROLL_DICE], ROLL_DICE)
    expect(state, covered=[[6], [8], [6]], current=2, phase=CHOOSE, turn=2, roll=6, roller=2, legal=[0, 1])
    move(state, [ROLL_DICE, END_TURN], ROLL_DICE)
    expect(state, covered=[[6], [6, 8], [6]], current=1, phase=ROLL, turn=3, roll=6, roller=2, helper=1, legal=[0])


@pytest.mark.parametrize(
    ("num_players", "roller", "already", "helper"),
    [
        (2, 0, [], 1),
        (2, 1, [], 0),  # wraps to seat 0
        (3, 0, [1], 2),
        (3, 2, [0], 1),  # wraps and skips
        (4, 1, [2, 3], 0),
        (4, 3, [0, 1], 2),  # the seat just before the roller
        (8, 0, [1, 2, 3, 4, 5, 6], 7),
        (8, 5, [6, 7, 0, 1, 2], 3),
        (8, 3, [4, 5, 6, 7, 0, 1], 2),
        (2, 0, [1], NOBODY),
        (3, 1, [2, 0], NOBODY),
        (8, 6, [7, 0, 1, 2, 3, 4, 5], NOBODY),
    ],
)
def test_privilege_goes_to_the_first_seat_after_the_roller_with_the_total_uncovered(
    num_players: int, roller: int, already: list[int], helper: int
) -> None:
    """R12: ``roller`` has 6 covered and rolls a 6; the seats in ``already`` have it covered
    too. The first seat after the roller in seat order with 6 uncovered covers it and takes
    the turn (its first roll forced, R14); if there is none, nobody can use it and the
    roller may roll again or end the turn. Set up by covering markers directly; every
    seat also has its 8 covered, which changes nothing."""
    state = game(num_players, dice=[6])
    for seat in range(num_players):
        cover(state, seat, 8)
    for seat in [roller, *already]:
        cover(state, seat, 6)
    state.current = roller
    before = covered_totals(state)
    move(state, [ROLL_DICE], ROLL_DICE)
    if helper == NOBODY:
        expect(state, covered=before, current=roller, phase=CHOOSE, turn=0, roll=6, roller=roller, legal=[0, 1])
    else:
        after = [[6, 8] if seat == helper else row for seat, row in enumerate(before)]
        expect(
            state, covered=after, current=helper, phase=ROLL, turn=1, roll=6, roller=roller, helper=helper, legal=[0]
        )
        assert forced_action(state) == ROLL_DICE


# --------------------------------------------------------------------------
# R12: nobody can use the total


def test_nobody_can_use_the_total_roller_rolls_again_or_ends() -> None:
    """R12: seat 0 covers 6, rolls 6 (seat 1 covers it through the privilege), and seat 1's
    forced roll is a 6 again: nobody has it uncovered, so nothing changes and seat 1 may roll
    again (a 5 covers its 5) or end the turn, passing it to seat 0."""
    state = game(2, dice=[6, 6, 6, 5])
    move(state, [ROLL_DICE], ROLL_DICE)
    move(state, [ROLL_DICE, END_TURN], ROLL_DICE)
    move(state, [ROLL_DICE], ROLL_DICE)
    expect(state, covered=[[6], [6]], current=1, phase=CHOOSE, turn=1, roll=6, roller=1, legal=[ROLL_DICE, END_TURN])
    assert forced_action(state) == -1
    move(state, [ROLL_DICE, END_TURN], ROLL_DICE)
    expect(state, covered=[[6], [5, 6]], current=1, phase=CHOOSE, turn=1, roll=5, roller=1, legal=[0, 1])
    move(state, [ROLL_DICE, END_TURN], END_TURN)
    expect(state, covered=[[6], [5, 6]], current=0, phase=ROLL, turn=2, roll=5, roller=1, legal=[ROLL_DICE])


def test_eight_players_each_cover_a_6_then_nobody_can_use_it() -> None:
    """R12 with 8 players: each seat in turn covers its 6 and ends; round the table again,
    seat 0's 6 can be used by nobody, and its 8 is its own."""
    state = game(8, dice=[6] * 9 + [8])
    for seat in range(8):
        assert state.current == seat
        move(state, [ROLL_DICE], ROLL_DICE)
        assert (state.roller, state.helper, state.phase) == (seat, NOBODY, CHOOSE)
        move(state, [ROLL_DICE, END_TURN], END_TURN)
    expect(state, covered=[[6]] * 8, current=0, phase=ROLL, turn=8, roll=6, roller=7, legal=[0])
    move(state, [ROLL_DICE], ROLL_DICE)
    expect(state, covered=[[6]] * 8, current=0, phase=CHOOSE, turn=8, roll=6, roller=0, legal=[0, 1])
    move(state, [ROLL_DICE, END_TURN], ROLL_DICE)
    expect(state, covered=[[6, 8]] + [[6]] * 7, current=0, phase=CHOOSE, turn=8, roll=8, roller=0, legal=[0, 1])


# --------------------------------------------------------------------------
# R12: a 7


def test_seven_uncovers_a_marker_of_the_rollers_choice_then_the_turn_passes() -> None:
    """R12, R14: seat 0 covers 6 and 8 and rolls a 7: the legal actions are exactly
    uncovering the 6 or the 8 (a choice, not forced). Uncovering the 8 passes the turn
    to seat 1."""
    state = game(3, dice=[6, 8, 7])
    move(state, [ROLL_DICE], ROLL_DICE)
    move(state, [ROLL_DICE, END_TURN], ROLL_DICE)
    move(state, [ROLL_DICE, END_TURN], ROLL_DICE)
    expect(state, covered=[[6, 8], [], []], current=0, phase=UNCOVER, turn=0, roll=7, roller=0, legal=[6, 7])
    assert legal_actions(state) == [uncover(6), uncover(8)]
    assert forced_action(state) == -1
    move(state, [uncover(6), uncover(8)], uncover(8))
    expect(state, covered=[[6], [], []], current=1, phase=ROLL, turn=1, roll=7, roller=0, legal=[ROLL_DICE])


def test_seven_uncovers_only_the_rollers_own_markers() -> None:
    """R12: seat 0 has its 6 covered; seat 1 covers 8 and 9 and rolls a 7: it may uncover
    its 8 or 9, never seat 0's 6. Uncovering the 9 passes the turn back to seat 0."""
    state = game(2, dice=[6, 8, 9, 7])
    move(state, [ROLL_DICE], ROLL_DICE)
    move(state, [ROLL_DICE, END_TURN], END_TURN)
    move(state, [ROLL_DICE], ROLL_DICE)
    move(state, [ROLL_DICE, END_TURN], ROLL_DICE)
    move(state, [ROLL_DICE, END_TURN], ROLL_DICE)
    expect(state, covered=[[6], [8, 9]], current=1, phase=UNCOVER, turn=1, roll=7, roller=1, legal=[7, 8])
    move(state, [uncover(8), uncover(9)], uncover(9))
    expect(state, covered=[[6], [8]], current=0, phase=ROLL, turn=2, roll=7, roller=1, legal=[ROLL_DICE])


def test_seven_with_one_covered_marker_forces_its_uncover() -> None:
    """R12, R14: seat 0 covers its 6 and rolls a 7: uncovering the 6 is forced, so
    play_forced applies it and then seat 1's forced first roll (an 8), stopping at seat 1's
    choice."""
    state = game(2, dice=[6, 7, 8])
    move(state, [ROLL_DICE], ROLL_DICE)
    move(state, [ROLL_DICE, END_TURN], ROLL_DICE)
    expect(state, covered=[[6], []], current=0, phase=UNCOVER, turn=0, roll=7, roller=0, legal=[uncover(6)])
    assert forced_action(state) == uncover(6)
    actions: list[int] = []
    assert play_forced(state, NO_RNG, actions) == 2
    assert actions == [uncover(6), ROLL_DICE]
    expect(state, covered=[[], [8]], current=1, phase=CHOOSE, turn=1, roll=8, roller=1, legal=[0, 1])


def test_seven_with_nothing_covered_just_passes_the_turn() -> None:
    """R12: a 7 with nothing covered passes the turn at once (no uncover phase); every move
    is then forced, so play_forced goes on through seat 1's 7 to seat 0's 5."""
    state = game(2, dice=[7, 7, 5])
    move(state, [ROLL_DICE], ROLL_DICE)
    expect(state, covered=[[], []], current=1, phase=ROLL, turn=1, roll=7, roller=0, legal=[ROLL_DICE])
    actions: list[int] = []
    assert play_forced(state, NO_RNG, actions) == 2
    assert actions == [ROLL_DICE, ROLL_DICE]
    expect(state, covered=[[5], []], current=0, phase=CHOOSE, turn=2, roll=5, roller=0, legal=[0, 1])
    assert state.rolls == [7, 7, 5]


def test_seven_on_the_helpers_forced_roll_uncovers_the_helpers_marker() -> None:
    """R12: seat 1 covers seat 0's rolled 6 through the privilege, then its forced roll is
    a 7: seat 1 must uncover that 6 (forced, its only covered marker) and the turn passes
    back to seat 0."""
    state = game(2, dice=[6, 6, 7])
    move(state, [ROLL_DICE], ROLL_DICE)
    move(state, [ROLL_DICE, END_TURN], ROLL_DICE)
    move(state, [ROLL_DICE], ROLL_DICE)
    expect(state, covered=[[6], [6]], current=1, phase=UNCOVER, turn=1, roll=7, roller=1, legal=[uncover(6)])
    assert forced_action(state) == uncover(6)
    move(state, [uncover(6)], uncover(6))
    expect(state, covered=[[6], []], current=0, phase=ROLL, turn=2, roll=7, roller=1, legal=[ROLL_DICE])


# --------------------------------------------------------------------------
# R12: winning


def assert_over(state: NeighborState) -> None:
    """R12, R14: the game is over: no action is legal, none is forced, and every action
    raises IllegalActionError (a ValueError) and leaves the state unchanged."""
    assert state.over
    assert legal_actions(state) == []
    assert forced_action(state) == -1
    assert play_forced(state, NO_RNG) == 0
    before = clone(state)
    for action in range(NUM_ACTIONS):
        with pytest.raises(IllegalActionError, match="the game is over: no action is legal"):
            apply_action(state, action, NO_RNG)
    assert issubclass(IllegalActionError, ValueError)
    assert state == before


@pytest.mark.parametrize("num_players", [2, 3, 8])
def test_roller_covering_all_ten_markers_wins(num_players: int) -> None:
    """R12: seat 0 rolls every total but 7 in one turn, rolling again each time: the tenth
    cover wins the game at once: +1 to seat 0, -1 to every other seat."""
    state = game(num_players, dice=list(TOTALS))
    move(state, [ROLL_DICE], ROLL_DICE)
    for _ in TOTALS[1:]:
        assert not state.over
        move(state, [ROLL_DICE, END_TURN], ROLL_DICE)
    others = [[]] * (num_players - 1)
    expect(state, covered=[list(TOTALS), *others], current=0, phase=OVER, turn=0, roll=12, roller=0, legal=[])
    assert (state.winners, state.truncated) == ([0], False)
    assert returns(state) == [1.0] + [-1.0] * (num_players - 1)
    assert_over(state)


def test_neighbour_covering_their_last_marker_through_the_privilege_wins() -> None:
    """R12: seat 0 covers 2..11 and ends; seat 1 covers its 12 and rolls 12 again: seat 0,
    the first after seat 1 with 12 uncovered, covers its last marker through the privilege
    and wins at once (the turn does not pass: seat 1 stays the seat of record)."""
    state = game(2, dice=[*TOTALS[:-1], 12, 12])
    move(state, [ROLL_DICE], ROLL_DICE)
    for _ in TOTALS[1:-1]:
        move(state, [ROLL_DICE, END_TURN], ROLL_DICE)
    move(state, [ROLL_DICE, END_TURN], END_TURN)
    move(state, [ROLL_DICE], ROLL_DICE)
    expect(state, covered=[list(TOTALS[:-1]), [12]], current=1, phase=CHOOSE, turn=1, roll=12, roller=1, legal=[0, 1])
    move(state, [ROLL_DICE, END_TURN], ROLL_DICE)
    expect(state, covered=[list(TOTALS), [12]], current=1, phase=OVER, turn=1, roll=12, roller=1, helper=0, legal=[])
    assert (state.winners, state.truncated) == ([0], False)
    assert returns(state) == [1.0, -1.0]
    assert_over(state)


def test_privilege_win_goes_to_the_first_seat_in_order_not_the_nearest_to_winning() -> None:
    """R12 (set up by covering markers): 4 players; seats 3 and 0 both need only their 12,
    seats 1 and 2 have 12 covered. Seat 1 rolls 12: seat 2 is skipped, seat 3 comes before
    seat 0 and wins through the privilege."""
    state = game(4, dice=[12])
    nine = TOTALS[:-1]
    cover(state, 0, *nine)
    cover(state, 1, 12)
    cover(state, 2, 12)
    cover(state, 3, *nine)
    state.current = 1
    move(state, [ROLL_DICE], ROLL_DICE)
    everything = list(TOTALS)
    expect(
        state,
        covered=[list(nine), [12], [12], everything],
        current=1,
        phase=OVER,
        turn=0,
        roll=12,
        roller=1,
        helper=3,
        legal=[],
    )
    assert state.winners == [3]
    assert returns(state) == [-1.0, -1.0, -1.0, 1.0]
    assert_over(state)


# --------------------------------------------------------------------------
# R12 with R7: the turn limit


def test_turn_limit_truncates_the_game_as_a_draw() -> None:
    """R12, R7: with max_turns=3, three 7s with nothing covered end three turns: the game
    is over, truncated, a draw (0 to all). Every move was forced, so play_forced plays it all."""
    state = game(2, dice=[7, 7, 7], max_turns=3)
    move(state, [ROLL_DICE], ROLL_DICE)
    move(state, [ROLL_DICE], ROLL_DICE)
    assert (state.turn, state.over) == (2, False)
    assert play_forced(state, NO_RNG) == 1
    expect(state, covered=[[], []], current=1, phase=OVER, turn=3, roll=7, roller=0, legal=[])
    assert (state.winners, state.truncated) == ([], True)
    assert returns(state) == [0.0, 0.0]
    assert_over(state)


def test_turn_limit_counts_ended_and_privilege_turns_not_rolls_again() -> None:
    """R12, R7: with max_turns=2, seat 0 rolls five times in its turn (turn count 0);
    its 6 rolled again moves the turn to seat 1 (turn 1); seat 1 covers 8 and ends the turn,
    the second: a draw, although seat 1 is ahead."""
    state = game(2, dice=[2, 3, 4, 5, 6, 6, 8], max_turns=2)
    move(state, [ROLL_DICE], ROLL_DICE)
    for _ in range(4):
        move(state, [ROLL_DICE, END_TURN], ROLL_DICE)
    assert (state.turn, state.current, state.phase) == (0, 0, CHOOSE)
    move(state, [ROLL_DICE, END_TURN], ROLL_DICE)
    expect(state, covered=[[2, 3, 4, 5, 6], [6]], current=1, phase=ROLL, turn=1, roll=6, roller=0, helper=1, legal=[0])
    move(state, [ROLL_DICE], ROLL_DICE)
    move(state, [ROLL_DICE, END_TURN], END_TURN)
    expect(state, covered=[[2, 3, 4, 5, 6], [6, 8]], current=0, phase=OVER, turn=2, roll=8, roller=1, legal=[])
    assert (state.winners, state.truncated) == ([], True)
    assert returns(state) == [0.0, 0.0]
    assert_over(state)


def test_turn_limit_reached_through_the_privilege_is_a_draw() -> None:
    """R12, R7: with max_turns=1, seat 0 covers 6 and rolls 6 again: seat 1 covers it and
    the turn that moves to it is the first to end: the game is over as a draw."""
    state = game(2, dice=[6, 6], max_turns=1)
    move(state, [ROLL_DICE], ROLL_DICE)
    move(state, [ROLL_DICE, END_TURN], ROLL_DICE)
    expect(state, covered=[[6], [6]], current=1, phase=OVER, turn=1, roll=6, roller=0, helper=1, legal=[])
    assert (state.winners, state.truncated) == ([], True)
    assert returns(state) == [0.0, 0.0]


def test_win_on_the_last_turn_is_a_win_not_a_draw() -> None:
    """R12, R7: with max_turns=1, seat 0 covers all ten in the only turn: it wins."""
    state = game(2, dice=list(TOTALS), max_turns=1)
    play_forced(state, NO_RNG)
    while not state.over:
        move(state, [ROLL_DICE, END_TURN], ROLL_DICE)
    assert (state.turn, state.winners, state.truncated) == (0, [0], False)
    assert returns(state) == [1.0, -1.0]


def test_privilege_win_on_the_last_turn_is_a_win_not_a_draw() -> None:
    """R12, R7: with max_turns=2, seat 0 covers 2..11 and ends (turn 1); seat 1 covers 12
    and rolls 12 again: seat 0 covers its last marker through the privilege. Passing the
    turn would have ended the second turn; the win comes first."""
    state = game(2, dice=[*TOTALS[:-1], 12, 12], max_turns=2)
    actions = [ROLL_DICE] * 9 + [END_TURN, ROLL_DICE, ROLL_DICE]
    for action in actions:
        apply_action(state, action, NO_RNG)
    assert (state.phase, state.turn, state.helper) == (OVER, 1, 0)
    assert (state.winners, state.truncated) == ([0], False)
    assert returns(state) == [1.0, -1.0]


def test_default_turn_limit() -> None:
    """R12, R7: a turn limit left unset is MAX_TURNS (the value is the project's choice)."""
    assert make_config().max_turns == MAX_TURNS
    assert NeighborConfig(num_players=5).max_turns == MAX_TURNS
    assert make_config(max_turns=None).max_turns == MAX_TURNS


# --------------------------------------------------------------------------
# Configuration and dice validation


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"num_players": 1}, r"num_players=1 is out of range \(2\.\.8\)"),
        ({"num_players": 9}, r"num_players=9 is out of range \(2\.\.8\)"),
        ({"num_players": 0}, "num_players=0"),
        ({"num_players": 3.0}, "num_players must be an integer, got 3.0"),
        ({"num_players": "3"}, "num_players must be an integer, got '3'"),
        ({"num_players": True}, "num_players must be an integer, got True"),
        ({"num_players": None}, "num_players must be an integer, got None"),
        ({"max_turns": 0}, r"max_turns=0 is out of range \(>= 1\)"),
        ({"max_turns": -5}, "max_turns=-5 is out of range"),
        ({"max_turns": 10.5}, "max_turns must be an integer"),
        ({"max_turns": False}, "max_turns must be an integer, got False"),
        ({"colour": "red"}, r"unknown Help Your Neighbor field\(s\) \['colour'\]"),
    ],
)
def test_config_rejects_bad_fields(overrides: dict[str, Any], message: str) -> None:
    """R12, R7: 2-8 players and a turn limit of at least 1, both integers (not bools); an
    unknown field is rejected. Each is a ValueError naming the field, from make_config and
    from_dict alike (NeighborConfig itself for known fields)."""
    with pytest.raises(ValueError, match=message):
        make_config(**overrides)
    with pytest.raises(ValueError, match=message):
        NeighborConfig.from_dict(overrides)
    if "colour" not in overrides:
        with pytest.raises(ValueError, match=message):
            NeighborConfig(**overrides)


def test_config_rejects_unknown_preset() -> None:
    """R12: 'standard' is the only preset; another name is a ValueError naming it."""
    with pytest.raises(ValueError, match=r"preset='expert' is not one of \['standard'\]"):
        make_config("expert")


@pytest.mark.parametrize("num_players", [2, 8, np.int64(5)])
def test_config_accepts_every_table_size_and_round_trips(num_players: int) -> None:
    """R12: 2 and 8 players are allowed; numpy integers are stored as ints; to_dict/from_dict
    round-trips."""
    config = make_config(num_players=num_players, max_turns=1)
    assert type(config.num_players) is int and config.num_players == num_players
    assert config.to_dict() == {"num_players": int(num_players), "max_turns": 1}
    assert NeighborConfig.from_dict(config.to_dict()) == config


@pytest.mark.parametrize("bad", [1, 13, 0, -3, 7.5, 7.0, True, np.bool_(True), "7", None])
def test_check_dice_rejects_a_bad_total_naming_its_index(bad: Any) -> None:
    """R12: stacked dice are totals of two dice, integers 2..12 (not bools); a bad one is a
    ValueError naming its index, from check_dice and new_game alike."""
    with pytest.raises(ValueError, match=r"dice\[2\]=.* is not a total of two dice \(2\.\.12\)"):
        check_dice([6, 8, bad])
    with pytest.raises(ValueError, match=r"dice\[2\]="):
        new_game(make_config(), [6, 8, bad])


@pytest.mark.parametrize("bad", ["66", b"66", 6, None, {6, 8}])
def test_check_dice_rejects_what_is_not_a_list(bad: Any) -> None:
    """R12: stacked dice are a list of totals; a string or a number is a ValueError."""
    with pytest.raises(ValueError, match=r"dice must be a list of totals 2\.\.12"):
        check_dice(bad)


def test_check_dice_accepts_totals_as_ints() -> None:
    """R12: 2..12 including 7, as a list, tuple or numpy array; returned as plain ints."""
    assert check_dice([2, 7, 12, np.int64(5)]) == [2, 7, 12, 5]
    assert check_dice((3, 11)) == [3, 11]
    totals = check_dice(np.array([4, 10]))
    assert totals == [4, 10] and all(type(t) is int for t in totals)
    assert check_dice([]) == []


# --------------------------------------------------------------------------
# R14: illegal actions


def at_roll() -> NeighborState:
    return game(2, dice=[6, 8, 7])


def at_choose() -> NeighborState:
    state = at_roll()
    move(state, [ROLL_DICE], ROLL_DICE)
    return state


def at_uncover() -> NeighborState:
    state = at_choose()
    move(state, [0, 1], ROLL_DICE)
    move(state, [0, 1], ROLL_DICE)
    return state


@pytest.mark.parametrize(
    ("position", "action", "message"),
    [
        (
            at_roll,
            END_TURN,
            r"action 1 \(end the turn\) is illegal for seat 0 in the roll phase; legal actions: 0 \(roll\)$",
        ),
        (at_roll, uncover(2), r"action 2 \(uncover 2\) is illegal .* legal actions: 0 \(roll\)$"),
        (at_roll, 12, r"action 12 \(<not an action: 12>\) is illegal .* legal actions: 0 \(roll\)$"),
        (at_roll, -1, r"action -1 .* legal actions: 0 \(roll\)$"),
        (at_choose, uncover(6), r"in the choose phase; legal actions: 0 \(roll\), 1 \(end the turn\)$"),
        (at_uncover, ROLL_DICE, r"in the uncover phase; legal actions: 6 \(uncover 6\), 7 \(uncover 8\)$"),
        (at_uncover, END_TURN, r"legal actions: 6 \(uncover 6\), 7 \(uncover 8\)$"),
        (at_uncover, uncover(9), r"action 8 \(uncover 9\) is illegal for seat 0 in the uncover phase"),
        (at_roll, "0", r"an action is an integer 0\.\.11 \(R14\), got '0'"),
        (at_roll, 0.0, r"an action is an integer 0\.\.11 \(R14\), got 0\.0"),
        (at_roll, True, r"an action is an integer 0\.\.11 \(R14\), got True"),
        (at_choose, None, r"an action is an integer 0\.\.11 \(R14\), got None"),
    ],
)
def test_illegal_action_names_the_legal_actions_and_changes_nothing(
    position: Callable[[], NeighborState], action: Any, message: str
) -> None:
    """R14: an action that is not legal where the game stands raises IllegalActionError (a
    ValueError) naming the legal actions; the state and the generator are unchanged."""
    state = position()
    before = clone(state)
    rng = np.random.default_rng(3)
    rng_before = copy.deepcopy(rng.bit_generator.state)
    with pytest.raises(IllegalActionError, match=message):
        apply_action(state, action, rng)
    assert state == before
    assert rng.bit_generator.state == rng_before


def test_numpy_integer_actions_are_accepted() -> None:
    """R14: an action may be a numpy integer."""
    state = at_choose()
    apply_action(state, np.int64(END_TURN), NO_RNG)
    assert (state.current, state.turn, state.phase) == (1, 1, ROLL)


# --------------------------------------------------------------------------
# The dice: stacked first, then one rng.integers(36) per roll


def test_stacked_dice_come_first_then_one_rng_draw_per_roll() -> None:
    """R12: the stacked 5 and 9 are rolled first without touching the generator; every
    later roll is exactly one rng.integers(36), the total pair // 6 + pair % 6 + 2."""
    config = make_config(num_players=3)
    spy = SpyRng(11)
    state = new_game(config, [5, 9])
    move(state, [ROLL_DICE], ROLL_DICE)
    move(state, [0, 1], ROLL_DICE)
    assert (state.rolls, spy.calls) == ([5, 9], [])
    choose = np.random.default_rng(1)
    while not state.over and len(state.rolls) < 300:
        play_forced(state, spy)
        legal = legal_actions(state)
        if legal:
            apply_action(state, legal[int(choose.integers(len(legal)))], spy)
    assert len(spy.calls) == len(state.rolls) - 2 > 50
    assert all(args == (36,) and kwargs == {} for args, kwargs, _ in spy.calls)
    assert state.rolls[2:] == [total_of(pair) for _, _, pair in spy.calls]
    reference = np.random.default_rng(11)
    assert [pair for _, _, pair in spy.calls] == [int(reference.integers(36)) for _ in spy.calls]


def test_every_pair_maps_to_its_total() -> None:
    """R12: the 36 pairs of two dice give each total as many times as there are ways to roll it."""
    state = game(2)
    rng = PairsRng(list(range(36)))
    totals = Counter(neighbor.roll_dice(state, rng) for _ in range(36))
    assert totals == Counter(WAYS)
    assert sum(WAYS.values()) == 36 and WAYS[7] == 6 and WAYS[2] == WAYS[12] == 1


def test_same_seed_and_same_stacked_prefix_give_the_same_game() -> None:
    """R12: once the stacked dice run out the generator continues: two games with the same
    seed, prefix and choices are identical; another seed gives other rolls."""
    config = make_config(num_players=4)
    dice = [6, 6, 7, 12]
    first, first_actions = policy_game(config, 5, dice, policy_seed=9)
    second, second_actions = policy_game(config, 5, dice, policy_seed=9)
    assert first == second and first_actions == second_actions
    assert first.rolls[:4] == dice and len(first.rolls) > 4
    other, _ = policy_game(config, 6, dice, policy_seed=9)
    assert other.rolls[:4] == dice and other.rolls != first.rolls


def test_totals_follow_the_two_dice_distribution() -> None:
    """R12: 36,000 rolls in games played to the end: each total's count is within 4 standard
    errors of 36,000 * ways / 36, and the chi-square statistic (10 degrees of freedom) is
    below 29.59, its 0.1% critical value."""
    config = make_config(num_players=3)
    rolls: list[int] = []
    seed = 0
    while len(rolls) < 36_000:
        state, _ = policy_game(config, seed, [], policy_seed=seed + 1000)
        rolls.extend(state.rolls)
        seed += 1
    counts = Counter(rolls[:36_000])
    assert set(counts) == set(range(2, 13))
    chi_square = 0.0
    for total, ways in WAYS.items():
        p = ways / 36
        expected = 36_000 * p
        assert abs(counts[total] - expected) < 4 * math.sqrt(36_000 * p * (1 - p)), (total, counts[total])
        chi_square += (counts[total] - expected) ** 2 / expected
    assert chi_square < 29.59


# --------------------------------------------------------------------------
# clone


def test_clone_is_equal_and_independent() -> None:
    """R12: a clone equals its original; changing the clone (markers, counts, dice, rolls,
    winners, applied actions) leaves the original as it was, and the other way round."""
    state = game(3, dice=[6, 6, 8, 9, 10])
    move(state, [ROLL_DICE], ROLL_DICE)
    move(state, [0, 1], ROLL_DICE)
    snapshot = clone(state)
    copied = clone(state)
    assert copied == state == snapshot and copied is not state
    copied.covered[0][0] = True
    copied.left[0] -= 1
    copied.dice.pop()
    copied.rolls.append(4)
    copied.winners.append(2)
    copied.current = 2
    assert state == snapshot
    copied = clone(state)
    apply_action(copied, ROLL_DICE, NO_RNG)
    assert covered_totals(copied) == [[6], [6, 8], []]
    assert state == snapshot
    apply_action(state, ROLL_DICE, NO_RNG)
    assert covered_totals(state) == [[6], [6, 8], []]
    assert snapshot != state and snapshot.dice == [10, 9, 8]
    assert copied == state


# --------------------------------------------------------------------------
# Game records


@pytest.mark.parametrize(
    ("num_players", "max_turns", "seed", "dice"),
    [(2, None, 1, []), (3, None, 7, [6, 6, 7, 12]), (8, None, 3, [2, 2, 2]), (4, 5, 2, [7])],
)
def test_record_of_a_whole_game_replays_to_its_final_state(
    num_players: int, max_turns: int | None, seed: int, dice: list[int]
) -> None:
    """R12, R14: a game played to its end (a win, or a draw by the turn limit) is recorded
    with make_record; the record survives a JSON round trip and trash_env.replay
    plays it to a state equal to the final one."""
    config = make_config(num_players=num_players, max_turns=max_turns)
    state, actions = policy_game(config, seed, dice, policy_seed=seed + 50)
    record = make_record(NEIGHBOR, config, seed, dice, True, actions, state)
    loaded = json.loads(json.dumps(record))
    assert loaded == record
    assert (loaded["game"], loaded["version"], loaded["seed"], loaded["dice"]) == (
        "help_your_neighbor_v0",
        1,
        seed,
        dice,
    )
    assert (loaded["over"], loaded["truncated"], loaded["winners"]) == (True, state.truncated, state.winners)
    assert loaded["returns"] == returns(state) and loaded["rolls"] == state.rolls
    assert state.truncated == (max_turns is not None)
    replayed = trash_env.replay(loaded)
    assert isinstance(replayed, NeighborState)
    assert replayed == state


def test_record_of_an_unfinished_game_replays_to_where_it_stands() -> None:
    """R14: a record of a game in progress replays to the same position; its rolls are the
    check that the seed gives the same dice, so a record without them is refused."""
    config = make_config(num_players=3)
    rng = np.random.default_rng(4)
    state = new_game(config, [6, 6])
    actions: list[int] = []
    play_forced(state, rng, actions)
    while len(actions) < 15:
        action = legal_actions(state)[0]
        apply_action(state, action, rng)
        actions.append(action)
        play_forced(state, rng, actions)
    assert not state.over
    record = json.loads(json.dumps(make_record(NEIGHBOR, config, 4, [6, 6], True, actions, state)))
    assert trash_env.replay(record) == state
    del record["rolls"]
    with pytest.raises(ValueError, match=r"missing \['rolls'\]"):
        trash_env.replay(record)


@pytest.fixture
def record() -> dict[str, Any]:
    """A whole 3-player game as a JSON record."""
    config = make_config(num_players=3)
    state, actions = policy_game(config, 21, [6, 8], policy_seed=22)
    assert len(actions) > 10
    return json.loads(json.dumps(make_record(NEIGHBOR, config, 21, [6, 8], True, actions, state)))


def test_replay_accepts_the_intact_record(record: dict[str, Any]) -> None:
    """R12: the record used below replays as it is, so each rejection below is caused by its
    corruption alone."""
    state = trash_env.replay(record)
    assert state.over and returns(state) == record["returns"] and state.rolls == record["rolls"]


@pytest.mark.parametrize(
    ("corruption", "message"),
    [
        (lambda r: r.update(game="yahtzee_v0"), "not a trash_v0 or help_your_neighbor_v0 game record"),
        (lambda r: r.update(version=2), r"version 2 is not supported \(expected 1\)"),
        (lambda r: r.update(version="1"), "version '1' is not supported"),
        (lambda r: r.update(version=True), "version True is not supported"),
        (lambda r: r.pop("version"), "version None is not supported"),
        (lambda r: r.pop("config"), r"missing \['config'\]"),
        (lambda r: r.pop("seed"), r"missing \['seed'\]"),
        (lambda r: r.pop("dice"), r"missing \['dice'\]"),
        (lambda r: r.pop("actions"), r"missing \['actions'\]"),
        (lambda r: r.pop("rolls"), r"missing \['rolls'\]"),
        (lambda r: r.update(seed=r["seed"] + 1), "rolls do not match|cannot be replayed"),
        (lambda r: r.update(seed=-1), "seed must be a non-negative integer or a list of them, got -1"),
        (lambda r: r.update(seed=True), "seed must be a non-negative integer or a list of them, got True"),
        (lambda r: r.update(seed="21"), "seed must be a non-negative integer or a list of them, got '21'"),
        (lambda r: r.update(seed=[]), r"seed must be a non-negative integer or a list of them, got \[\]"),
        (lambda r: r.update(seed=[3, -1]), r"seed must be a non-negative integer or a list of them, got \[3, -1\]"),
        (lambda r: r.update(actions=tuple(r["actions"])), "actions must be a list, got tuple"),
        (lambda r: r.update(dice="68"), "dice must be a list, got str"),
        (lambda r: r.update(dice=[6, 1]), r"dice\[1\]=1 is not a total of two dice"),
        (lambda r: r.update(config=[3]), "config must be a dict of Help Your Neighbor fields"),
        (lambda r: r["config"].update(colour="red"), r"unknown Help Your Neighbor field\(s\) \['colour'\]"),
        (lambda r: r["config"].update(num_players=9), "num_players=9 is out of range"),
        (lambda r: r["actions"].insert(0, END_TURN), r"action #0 cannot be replayed: action 1 \(end the turn\)"),
        (lambda r: r["actions"].append(ROLL_DICE), r"action #\d+ cannot be replayed: the game is over"),
        (lambda r: r["actions"].__setitem__(1, 99), r"action #1 cannot be replayed: action 99 \(<not an action"),
        (lambda r: r["rolls"].__setitem__(0, 7), "the record's rolls do not match the rolls its seed and dice give"),
        (lambda r: r["rolls"].append(7), "rolls do not match"),
    ],
)
def test_replay_rejects_a_corrupt_record(record: dict[str, Any], corruption: Callable, message: str) -> None:
    """R12, R14: a record of another game or version, with a key missing, a negative seed,
    bad dice or config, an action not legal where it stands, or rolls that its seed and dice
    do not give is a ValueError naming the problem."""
    corrupt = copy.deepcopy(record)
    corruption(corrupt)
    with pytest.raises(ValueError, match=message):
        trash_env.replay(corrupt)


def test_covered_bits_number_the_markers_in_the_order_of_the_totals() -> None:
    """R12: the markers are the totals 2..6, 8..12 in order; bit j of a seat's set is TOTALS[j] covered."""
    state = neighbor.new_game(neighbor.make_config(num_players=2))
    assert neighbor.covered_bits(state, 0) == 0
    state.covered[1][0] = state.covered[1][neighbor.TOTALS.index(12)] = True
    assert neighbor.covered_bits(state, 1) == 1 | 1 << 9 and neighbor.covered_bits(state, 0) == 0
