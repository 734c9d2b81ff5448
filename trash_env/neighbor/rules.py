"""The rules of Help Your Neighbor (RULES.md R12, R14): one pure core, like :mod:`trash_env.trash.rules`.

Help Your Neighbor is a dice game played on a Trash-like layout. Every player
has ten markers, one for each total of two dice except 7: 2, 3, 4, 5, 6, 8, 9,
10, 11 and 12, all uncovered at the start. A roller who can use the total
covers it; otherwise the first player after them in seat order who can use it
covers it and takes the turn; a 7 uncovers one of the roller's markers. The
first player to cover all ten wins (R12).

The public functions mirror the Trash core:

- :func:`new_game` starts a game (R12: seat 0 first), optionally with stacked dice;
- :func:`legal_actions` lists the legal actions of R14 for the seat to act;
- :func:`apply_action` applies one legal action (an illegal one is a ValueError);
- :func:`forced_action` / :func:`play_forced` find and apply forced moves (R14);
- :func:`returns` gives the rewards of R12 once the game is over;
- :func:`clone` copies a state, :func:`check_dice` validates stacked dice.

Every roll comes from the ``numpy.random.Generator`` passed in, one
``rng.integers(36)`` per roll (the two dice), except while stacked dice given
to :func:`new_game` last: those are used first, in order, then the generator.
Nothing else is random: the game has no hidden information, only future dice.
"""

from __future__ import annotations

import dataclasses
import functools
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

# IllegalActionError: what apply_action raises, defined in the kernel both games share.
from trash_env.kernel import IllegalActionError as IllegalActionError
from trash_env.kernel import apply_forced, check_action, check_int, known_fields

MIN_PLAYERS, MAX_PLAYERS = 2, 8  # R12: 3-8 in the text, 2 allowed for training
MAX_TURNS = 1_000  # R12: a turn limit "as in R7" (RULES.md, rules notes: play rarely comes near it)

TOTALS = (2, 3, 4, 5, 6, 8, 9, 10, 11, 12)  # R12: one marker per total, 7 excluded
NUM_MARKERS = len(TOTALS)
MARKER_OF_TOTAL = {total: j for j, total in enumerate(TOTALS)}
SEVEN = 7
# Ways to roll each total 2..12 with two dice, out of 36.
WAYS = {total: 6 - abs(total - 7) for total in range(2, 13)}

# Phases (R12): before a turn's first roll (forced, R14), after a usable or
# useless roll (roll again or end the turn), after a 7 with markers covered.
ROLL, CHOOSE, UNCOVER, OVER = 0, 1, 2, 3
PHASE_NAMES = ("roll", "choose", "uncover", "over")

# Actions (R14); the numbering is public API.
ROLL_DICE = 0
END_TURN = 1
UNCOVER_0 = 2  # UNCOVER_0 + j uncovers the marker of TOTALS[j]
NUM_ACTIONS = 12

NOBODY = -1


@dataclass(frozen=True)
class NeighborConfig:
    """The settings of Help Your Neighbor (R12): players and the turn limit (R7).

    ``max_turns`` left as ``None`` is filled in with :data:`MAX_TURNS`.
    """

    num_players: int = 2
    max_turns: int | None = None

    def __post_init__(self) -> None:
        check_int(self, "num_players", MIN_PLAYERS, MAX_PLAYERS)
        if self.max_turns is None:
            object.__setattr__(self, "max_turns", MAX_TURNS)
        check_int(self, "max_turns", 1, None)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NeighborConfig:
        return cls(**known_fields(cls, data, _WHAT))


PRESETS: dict[str, dict[str, Any]] = {"standard": {}}
_WHAT = "Help Your Neighbor"  # how configuration errors name this game's fields


def make_config(preset: str = "standard", **overrides: Any) -> NeighborConfig:
    """The configuration of Help Your Neighbor; ``standard`` is its only preset.

        >>> make_config(num_players=4).max_turns
        1000
    """
    if preset not in PRESETS:
        raise ValueError(f"preset={preset!r} is not one of {sorted(PRESETS)} (Help Your Neighbor has one)")
    return NeighborConfig(**known_fields(NeighborConfig, {**PRESETS[preset], **overrides}, _WHAT))


def action_name(action: int) -> str:
    """A short human-readable name for an action of R14."""
    if action == ROLL_DICE:
        return "roll"
    if action == END_TURN:
        return "end the turn"
    if isinstance(action, (int, np.integer)) and UNCOVER_0 <= action < NUM_ACTIONS:
        return f"uncover {TOTALS[action - UNCOVER_0]}"
    return f"<not an action: {action!r}>"


class NeighborState:
    """Everything about a game of Help Your Neighbor; all of it is public (R12)."""

    __slots__ = (
        "config",
        "num_players",
        "covered",
        "left",
        "phase",
        "current",
        "turn",
        "roll",
        "roller",
        "helper",
        "privileged",
        "dice",
        "rolls",
        "winners",
        "truncated",
    )

    config: NeighborConfig
    num_players: int
    covered: list[list[bool]]  # per seat, per marker j (TOTALS[j]): covered?
    left: list[int]  # per seat: markers still uncovered; 0 wins (R12)
    phase: int
    current: int  # the seat to act
    turn: int  # turns finished in the game (R7-style max_turns)
    roll: int  # the last total rolled in the game, 0 before the first roll
    roller: int  # the seat that rolled it, NOBODY before the first roll
    helper: int  # the neighbour who covered it through the privilege (R12), else NOBODY
    privileged: int  # the last neighbour in the game who covered a roll through the privilege, else NOBODY
    dice: list[int]  # stacked totals still to be used before the generator (tests)
    rolls: list[int]  # every total rolled so far, for game records
    winners: list[int]  # once over: the winner, or empty on a draw
    truncated: bool  # over by max_turns

    @property
    def over(self) -> bool:
        return self.phase == OVER

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NeighborState):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    def __repr__(self) -> str:
        return (
            f"NeighborState(phase={PHASE_NAMES[self.phase]}, current={self.current}, roll={self.roll}, "
            f"left={self.left}, turn={self.turn})"
        )


def check_dice(dice: Any) -> list[int]:
    """Validate stacked dice: a list of totals 2..12 (as ints). A ValueError names the problem."""
    if isinstance(dice, (str, bytes)) or not isinstance(dice, Sequence | np.ndarray) or np.ndim(dice) != 1:
        raise ValueError(f"dice must be a list of totals 2..12, got {dice!r}")
    totals = []
    for index, total in enumerate(dice):
        if isinstance(total, (bool, np.bool_)) or not isinstance(total, numbers.Integral) or not 2 <= total <= 12:
            raise ValueError(f"dice[{index}]={total!r} is not a total of two dice (2..12)")
        totals.append(int(total))
    return totals


def new_game(config: NeighborConfig, dice: Sequence[int] | None = None) -> NeighborState:
    """A new game: every marker uncovered, seat 0 to roll (R12).

    ``dice`` stacks the first rolls (totals 2..12, used in order before the
    generator passed to :func:`apply_action`).
    """
    state = NeighborState()
    n = config.num_players
    state.config = config
    state.num_players = n
    state.covered = [[False] * NUM_MARKERS for _ in range(n)]
    state.left = [NUM_MARKERS] * n
    state.phase = ROLL
    state.current = 0
    state.turn = 0
    state.roll = 0
    state.roller = NOBODY
    state.helper = NOBODY
    state.privileged = NOBODY
    state.dice = check_dice(dice)[::-1] if dice is not None else []  # reversed: pop() takes the next
    state.rolls = []
    state.winners = []
    state.truncated = False
    return state


def clone(state: NeighborState) -> NeighborState:
    new = NeighborState()
    for name in NeighborState.__slots__:
        setattr(new, name, getattr(state, name))
    new.covered = [row[:] for row in state.covered]
    new.left = state.left[:]
    new.dice = state.dice[:]
    new.rolls = state.rolls[:]
    new.winners = state.winners[:]
    return new


# --------------------------------------------------------------------------
# Legal actions (R14)


def covered_bits(state: NeighborState, seat: int) -> int:
    """``seat``'s covered markers as a bit set (bit j: the marker of ``TOTALS[j]``, R12), as the solver
    and the batched engine index them."""
    return sum(1 << j for j, covered in enumerate(state.covered[seat]) if covered)


def legal_actions(state: NeighborState) -> list[int]:
    """The legal actions of R14 for ``state.current``, in increasing order."""
    phase = state.phase
    if phase == ROLL:
        return [ROLL_DICE]  # R14: every turn's first roll is forced
    if phase == CHOOSE:
        return [ROLL_DICE, END_TURN]
    if phase == UNCOVER:
        return [UNCOVER_0 + j for j, c in enumerate(state.covered[state.current]) if c]
    return []


def forced_action(state: NeighborState) -> int:
    """The only legal action if there is exactly one (a forced move, R14), else -1."""
    phase = state.phase
    if phase == ROLL:
        return ROLL_DICE
    if phase == UNCOVER and state.left[state.current] == NUM_MARKERS - 1:
        return UNCOVER_0 + state.covered[state.current].index(True)
    return -1


def action_mask(legal: Sequence[int]) -> np.ndarray:
    """The int8 mask of the R14 actions, 1 where legal (a new array each call)."""
    return _mask_of(tuple(legal)).copy()


@functools.cache  # few distinct sets: roll, roll/end, and subsets of the markers
def _mask_of(legal: tuple[int, ...]) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[list(legal)] = 1
    return mask


# --------------------------------------------------------------------------
# Applying actions


def apply_action(state: NeighborState, action: int, rng: np.random.Generator) -> None:
    """Apply one legal action of R14 for ``state.current``; ``rng`` rolls the dice.
    An illegal action raises :class:`IllegalActionError` and leaves the state untouched."""
    check_action(state, action, legal_actions, action_name, PHASE_NAMES, "R14", NUM_ACTIONS)
    _apply(state, int(action), rng)


def play_forced(state: NeighborState, rng: np.random.Generator, actions: list[int] | None = None) -> int:
    """Apply forced moves (R14) until a seat has a real choice or the game is over.

    Appends each action applied to ``actions`` if given; returns how many.
    """
    return apply_forced(state, rng, actions, forced_action, _apply)


def roll_dice(state: NeighborState, rng: np.random.Generator) -> int:
    """The next total: a stacked one while they last, else two dice from ``rng``."""
    if state.dice:
        return state.dice.pop()
    pair = int(rng.integers(36))
    return pair // 6 + pair % 6 + 2


def _apply(state: NeighborState, action: int, rng: np.random.Generator) -> None:
    if action == ROLL_DICE:
        _roll(state, roll_dice(state, rng))
    elif action == END_TURN:
        _pass_turn(state, (state.current + 1) % state.num_players)  # R12: ending passes to the next player
    else:
        seat = state.current
        state.covered[seat][action - UNCOVER_0] = False  # R12: the 7 uncovers a marker of the roller's choice
        state.left[seat] += 1
        _pass_turn(state, (seat + 1) % state.num_players)


def _roll(state: NeighborState, total: int) -> None:
    """R12: what one roll of ``total`` does."""
    seat = state.current
    n = state.num_players
    state.rolls.append(total)
    state.roll = total
    state.roller = seat
    state.helper = NOBODY
    if total == SEVEN:
        if state.left[seat] < NUM_MARKERS:
            state.phase = UNCOVER  # uncover one covered marker, then the turn passes
        else:
            _pass_turn(state, (seat + 1) % n)  # nothing covered: the turn just passes
        return
    j = MARKER_OF_TOTAL[total]
    covered = state.covered
    if not covered[seat][j]:
        _cover(state, seat, j)  # the roller covers it and may roll again or end the turn
        if state.phase != OVER:
            state.phase = CHOOSE
        return
    for step in range(1, n):
        neighbour = (seat + step) % n
        if not covered[neighbour][j]:
            # The privilege passes around the table to the first player who can use the total:
            # they cover it and the turn moves to them.
            state.helper = state.privileged = neighbour
            _cover(state, neighbour, j)
            if state.phase != OVER:
                _pass_turn(state, neighbour)
            return
    state.phase = CHOOSE  # nobody can use it: the roller may roll again or end the turn


def _cover(state: NeighborState, seat: int, j: int) -> None:
    state.covered[seat][j] = True
    state.left[seat] -= 1
    if state.left[seat] == 0:
        state.winners = [seat]  # R12: the first to cover all ten markers wins
        state.phase = OVER


def _pass_turn(state: NeighborState, to: int) -> None:
    """The turn ends and ``to`` starts a turn with its forced first roll; the game is
    truncated as a draw once ``max_turns`` turns have ended (R12, as R7)."""
    state.turn += 1
    state.current = to
    state.phase = ROLL
    if state.turn >= state.config.max_turns:
        state.truncated = True
        state.phase = OVER


def returns(state: NeighborState) -> list[float]:
    """R12: +1 to the winner, -1 to the others; 0 to all on a draw (truncation).
    Zeros until the game is over."""
    if state.phase != OVER or not state.winners:
        return [0.0] * state.num_players
    winner = state.winners[0]
    return [1.0 if seat == winner else -1.0 for seat in range(state.num_players)]
