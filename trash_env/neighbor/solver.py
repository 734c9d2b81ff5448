"""Two-player Help Your Neighbor solved exactly (R12, R14): the optimal policy and every state's value.

With two players everything that matters for the rest of the game is public and small: the markers
each player has covered (2^10 x 2^10 sets), whose turn it is, and the phase. This module computes,
by value iteration over all of them at once (vectorised NumPy), the probability that the player
about to roll wins when both play optimally (each maximises their own probability of winning; the
game is zero-sum), and from it the optimal choices:

- **roll again or end the turn** (after a roll the roller could use, or that nobody could use);
- **which marker to uncover** after a 7.

State and notation. ``me`` and ``opp`` are bit sets of covered markers (bit j is the marker of
``TOTALS[j]``) of the player to act and of the other. ``value[me, opp]`` is the probability that
the player to act wins at the start of their turn (before its forced first roll, R14). A roll of
``t`` with probability ``WAYS[t] / 36``:

- 7: the roller uncovers one covered marker of their choice and the turn passes (with nothing
  covered the turn just passes);
- the roller has ``t`` uncovered: they cover it (all covered: they win), then choose;
- only the other player has ``t`` uncovered: they cover it through the privilege (all covered:
  they win), and the turn passes to them;
- nobody can use ``t``: the roller chooses.

Choosing is worth ``max(value[me, opp], 1 - value[opp, me])``: rolling again is a turn's roll
again, ending hands the turn over. The turn limit (R12, as R7) is left out of the solved game:
``benchmarks/neighbor_turns.py`` measures how rarely play comes near it.

The iteration stops when no value changes by more than ``tolerance`` between sweeps; the
Bellman residual at every state is then checked (``Solution.residual``). The solution is cached
on disk (``cache_path()``: ``$TRASH_RL_CACHE`` or ``~/.cache/trash-rl``) after the first solve, so
later uses load it in well under a second.

``totals`` (test-only) plays the game with markers for fewer totals, to check the solver against an
exhaustive expectimax on a game small enough for it; the rules core plays only the full game.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from trash_env.files import atomic_path
from trash_env.jit import HAVE_NUMBA, njit, prange
from trash_env.neighbor.rules import SEVEN, TOTALS, WAYS

SOLVER_VERSION = 1  # bump when the solved game or the file format changes
TOLERANCE = 1e-12


@dataclass(frozen=True)
class Solution:
    """The solved game: ``value[me, opp]`` (float64) and the optimal choices, for ``totals``."""

    totals: tuple[int, ...]
    value: np.ndarray
    tolerance: float
    iterations: int
    seconds: float

    @property
    def full(self) -> int:
        return (1 << len(self.totals)) - 1

    def roll_again(self) -> np.ndarray:
        """[me, opp]: True where rolling again is at least as good as ending the turn (ties roll)."""
        return self.value >= 1.0 - self.value.T

    def uncover(self) -> np.ndarray:
        """[me, opp]: the marker (index into ``totals``) the optimal player uncovers after a 7, -1 when
        nothing is covered (ties: the lowest index)."""
        worst = np.full(self.value.shape, np.inf)
        best = np.full(self.value.shape, -1, np.int8)
        index = np.arange(self.full + 1)
        for j in range(len(self.totals)):
            bit = 1 << j
            holds = (index & bit) != 0
            # uncovering j leaves the opponent to roll at value[opp, me ^ bit]: the smaller the better
            after = self.value.T[index ^ bit, :]
            better = holds[:, None] & (after < worst - 1e-15)
            worst = np.where(better, after, worst)
            best = np.where(better, j, best)
        return best

    def residual(self) -> float:
        """The largest violation of the Bellman equations over every state."""
        return float(np.abs(bellman(self.value, self.totals) - self.value)[: self.full, : self.full].max())


def roll_outcomes(totals: tuple[int, ...]) -> list[tuple[int, int, float]]:
    """Every total but 7 with its marker's bit (0 for a total without a marker: nobody can use it)
    and its probability."""
    return [(t, 1 << totals.index(t) if t in totals else 0, WAYS[t] / 36) for t in range(2, 13) if t != SEVEN]


def backup(
    other: np.ndarray,
    after_roll: Callable[[int], np.ndarray],
    after_seven: np.ndarray,
    totals: tuple[int, ...] = TOTALS,
) -> np.ndarray:
    """The value at the start of a turn of the player to roll, from what follows each roll (R12).

    ``other[x, y]``: the other player's turn-start values (``x`` their markers, ``y`` the roller's); ``after_roll(t)``
    the roller's value, [me, opp], of choosing after a roll of ``t`` that they covered or that
    nobody could use; ``after_seven``: their value after a 7. A roll the roller cannot use but the
    other can is the other's to cover, and the turn is theirs: ``1 - other[opp | bit, me]``.

    For the marker with bit ``b = 2**j`` a state index splits as ``(high, bit, low)``, so
    ``array.reshape(high, 2, b, ...)[:, 0]`` are the sets lacking the marker and ``[:, 1]`` those
    holding it: each outcome is an in-place operation on views, with no gathering."""
    n = other.shape[0]
    full = n - 1
    new = WAYS[SEVEN] / 36 * after_seven
    for total, bit, p in roll_outcomes(totals):
        choose = after_roll(total)
        if not bit:  # nobody can use it: the roller chooses
            new += p * choose
            continue
        high = n // (2 * bit)
        shape = (high, 2, bit, high, 2, bit)  # [me: high, has, low, opp: high, has, low]
        new6, choose6, other6 = new.reshape(shape), choose.reshape(shape), other.reshape(shape)
        # The roller lacks the marker: covers it, then chooses (with a full set, wins).
        new6[:, 0] += p * choose6[:, 1]
        new[full ^ bit] += p * (1.0 - choose[full])
        # The roller holds it and the other lacks it: they cover it and roll next (a full set wins).
        new6[:, 1, :, :, 0, :] += p * (1.0 - other6[:, 1, :, :, 1, :].transpose(2, 3, 0, 1))
        new6[:, 1, :, high - 1, 0, bit - 1] -= p * (1.0 - other6[high - 1, 1, bit - 1][:, 1, :])
        # Both hold it: nobody can use the roll, and the roller chooses.
        new6[:, 1, :, :, 1, :] += p * choose6[:, 1, :, :, 1, :]
    return new


def marker_views(array: np.ndarray, bit: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``array`` lacking and holding the marker ``bit`` (views of shape [high, bit, ...])."""
    high = array.shape[0] // (2 * bit)
    blocks = array.reshape(high, 2, bit, *array.shape[1:])
    return blocks[:, 0], blocks[:, 1]


def bellman(value: np.ndarray, totals: tuple[int, ...] = TOTALS) -> np.ndarray:
    """One sweep of the Bellman operator: every state's value given ``value`` for the next ones
    (both players optimal: choose the better of rolling again and ending; after a 7 uncover the
    marker that leaves the opponent the least)."""
    transposed = np.ascontiguousarray(value.T)  # transposed[me, opp] = value[opp, me]: the other's turn
    choose = np.maximum(value, 1.0 - transposed)
    least = np.full_like(value, np.inf)
    least[0] = transposed[0]  # nothing covered: the turn just passes
    for j in range(len(totals)):
        lacks = marker_views(transposed, 1 << j)[0]  # uncovering j: the opponent rolls at value[opp, me ^ bit]
        holding = marker_views(least, 1 << j)[1]
        np.minimum(holding, lacks, out=holding)
    return backup(value, lambda total: choose, 1.0 - least, totals)


def fixed_point(
    step: Callable[[np.ndarray], np.ndarray], start: np.ndarray, tolerance: float, memory: int = 10
) -> tuple[np.ndarray, int]:
    """The fixed point of ``step`` by Anderson-accelerated iteration, to a residual
    ``max |step(x) - x| <= tolerance``; returns it and the number of sweeps.

    Plain iteration converges slowly here (about 400 sweeps to 1e-12: the game passes the turn back
    and forth); mixing each new sweep with the last ``memory`` ones, by least squares on their
    residuals, takes about a third as many. Returns ``step(x)``, whose residual was checked."""
    shape = start.shape
    x = start.ravel().copy()
    previous = None
    steps: list[np.ndarray] = []  # differences of successive step(x)
    residuals: list[np.ndarray] = []  # differences of successive residuals
    gram = np.zeros((0, 0))  # their inner products, kept as they come
    for sweep in range(1, 100_000):
        stepped = step(x.reshape(shape)).ravel()
        residual = stepped - x
        if np.abs(residual).max() <= tolerance:
            return stepped.reshape(shape), sweep
        if previous is not None:
            steps.append(stepped - previous[0])
            residuals.append(residual - previous[1])
            del steps[:-memory], residuals[:-memory]
        previous = stepped, residual
        if not residuals:
            x = stepped
            continue
        if len(gram) == len(residuals):  # the oldest difference was dropped: so are its products
            gram = gram[1:, 1:]
        products = np.array([a @ residuals[-1] for a in residuals])  # only the newest pairs are new
        grown = np.empty((len(residuals), len(residuals)))
        grown[:-1, :-1], grown[-1], grown[:, -1] = gram, products, products
        gram = grown
        regularised = gram + 1e-12 * np.trace(gram) * np.eye(len(residuals))  # keep it invertible
        weights = np.linalg.solve(regularised, np.array([a @ residual for a in residuals]))
        x = stepped.copy()
        for weight, difference in zip(weights, steps):
            x -= weight * difference
    raise RuntimeError(f"the iteration did not converge to {tolerance}")


def solve(totals: tuple[int, ...] = TOTALS, tolerance: float = TOLERANCE) -> Solution:
    """The solved game: values with Bellman residual at most ``tolerance`` at every state."""
    start = time.perf_counter()
    size = 1 << len(totals)
    value, sweeps = fixed_point(lambda v: bellman(v, totals), np.full((size, size), 0.5), tolerance)
    return Solution(tuple(totals), value, tolerance, sweeps, time.perf_counter() - start)


def cache_path(totals: tuple[int, ...] = TOTALS) -> Path:
    """Where the solution is kept: ``$TRASH_RL_CACHE`` or ``~/.cache/trash-rl``."""
    folder = Path(os.environ.get("TRASH_RL_CACHE") or Path.home() / ".cache" / "trash-rl")
    key = hashlib.sha256(repr((SOLVER_VERSION, totals, TOLERANCE)).encode()).hexdigest()[:12]
    return folder / f"help_your_neighbor_2p_v{SOLVER_VERSION}_{key}.npz"


_loaded: dict[tuple[int, ...], Solution] = {}


def load_solution(totals: tuple[int, ...] = TOTALS) -> Solution:
    """The solution, from memory, from the disk cache, or solved now (and cached)."""
    if totals in _loaded:
        return _loaded[totals]
    path = cache_path(totals)
    solution = None
    if path.is_file():
        try:
            with np.load(path, allow_pickle=False) as data:
                solution = Solution(
                    tuple(int(t) for t in data["totals"]),
                    data["value"],
                    float(data["tolerance"]),
                    int(data["iterations"]),
                    float(data["seconds"]),
                )
            if solution.totals != tuple(totals) or solution.value.shape != (1 << len(totals),) * 2:
                solution = None
        except (OSError, ValueError, KeyError):
            solution = None  # a damaged cache file is solved again and replaced
    if solution is None:
        solution = solve(totals)
        with atomic_path(path) as partial:
            np.savez(
                partial,
                totals=np.array(solution.totals),
                value=solution.value,
                tolerance=solution.tolerance,
                iterations=solution.iterations,
                seconds=solution.seconds,
            )
    _loaded[totals] = solution
    return solution


# --------------------------------------------------------------------------
# Policy evaluation: the exact value of any pair of policies


@dataclass(frozen=True)
class PolicyTables:
    """One player's decisions at every state, as probabilities: ``roll[t][me, opp]`` of rolling
    again when choosing after a roll of ``t``; ``uncover[j][me, opp]`` of uncovering marker ``j``
    after a 7 (0 where ``me`` lacks it; the row sums to 1 wherever ``me`` holds one)."""

    roll: dict[int, np.ndarray]
    uncover: np.ndarray


def optimal_tables(solution: Solution) -> PolicyTables:
    """The optimal policy of ``solution`` as tables."""
    roll = solution.roll_again().astype(np.float64)
    choice = solution.uncover()
    uncover = np.stack([(choice == j).astype(np.float64) for j in range(len(solution.totals))])
    return PolicyTables({total: roll for total, _, _ in roll_outcomes(solution.totals)}, uncover)


def policy_backup(own: np.ndarray, other: np.ndarray, tables: PolicyTables, totals: tuple[int, ...]) -> np.ndarray:
    """:func:`backup` for a player who follows ``tables`` (``own``: their turn-start values; ``other``:
    the other player's)."""
    transposed = np.ascontiguousarray(other.T)  # [me, opp]: the other to roll next
    ending = 1.0 - transposed
    gain = own - ending  # of rolling again over ending
    made: dict[int, np.ndarray] = {}  # by table: most agents choose alike whatever the roll

    def after_roll(total: int) -> np.ndarray:
        roll = tables.roll[total]
        if id(roll) not in made:
            made[id(roll)] = ending + roll * gain
        return made[id(roll)]

    left_to_other = np.zeros_like(own)
    left_to_other[0] = transposed[0]  # nothing covered: the turn just passes
    for j in range(len(totals)):
        holding = marker_views(left_to_other, 1 << j)[1]
        holding += marker_views(tables.uncover[j], 1 << j)[1] * marker_views(transposed, 1 << j)[0]
    return backup(other, after_roll, 1.0 - left_to_other, totals)


@njit(cache=True, parallel=True)
def _policy_sweep(
    own: np.ndarray,
    transposed: np.ndarray,
    rolls: np.ndarray,
    table_of: np.ndarray,
    uncover: np.ndarray,
    bits: np.ndarray,
    probabilities: np.ndarray,
    seven: float,
    out: np.ndarray,
) -> None:
    """:func:`policy_backup` compiled, state by state (each thread a block of ``me``): ``transposed`` is
    the other player's values transposed ([me, opp]: the other to roll next), ``rolls[table_of[k]]``
    the table of the k-th total of ``bits``/``probabilities`` (bit 0: a total without a marker)."""
    n = own.shape[0]
    full = n - 1
    for me in prange(n):
        for opp in range(n):
            total = 0.0
            for k in range(len(bits)):
                bit = bits[k]
                table = table_of[k]  # (indexed in place: a slice per state would cost more than the sum)
                if bit != 0 and me & bit == 0:  # the roller covers it (a full set wins), then chooses
                    mine = me | bit
                    if mine == full:
                        value = 1.0
                    else:
                        r = rolls[table, mine, opp]
                        value = r * own[mine, opp] + (1.0 - r) * (1.0 - transposed[mine, opp])
                elif bit != 0 and opp & bit == 0:  # the other covers it and rolls next (or wins)
                    theirs = opp | bit
                    value = 0.0 if theirs == full else 1.0 - transposed[me, theirs]
                else:  # nobody can use it: the roller chooses
                    r = rolls[table, me, opp]
                    value = r * own[me, opp] + (1.0 - r) * (1.0 - transposed[me, opp])
                total += probabilities[k] * value
            if me == 0:
                after = 1.0 - transposed[0, opp]
            else:
                after = 0.0
                for j in range(uncover.shape[0]):
                    if me >> j & 1:
                        after += uncover[j, me, opp] * (1.0 - transposed[me ^ (1 << j), opp])
            out[me, opp] = total + seven * after


class _CompiledTables:
    """A policy's tables laid out for :func:`_policy_sweep` (distinct roll tables stacked once)."""

    def __init__(self, tables: PolicyTables, totals: tuple[int, ...]) -> None:
        outcomes = roll_outcomes(totals)
        distinct: dict[int, int] = {}
        arrays = []
        for total, _, _ in outcomes:
            table = tables.roll[total]
            if id(table) not in distinct:
                distinct[id(table)] = len(arrays)
                arrays.append(np.asarray(table, dtype=np.float64))
        self.rolls = np.stack(arrays)
        self.table_of = np.array([distinct[id(tables.roll[total])] for total, _, _ in outcomes], np.int64)
        self.bits = np.array([bit for _, bit, _ in outcomes], np.int64)
        self.probabilities = np.array([p for _, _, p in outcomes])
        self.uncover = np.ascontiguousarray(tables.uncover, dtype=np.float64)
        self.seven = WAYS[SEVEN] / 36

    def sweep(self, own: np.ndarray, other: np.ndarray) -> np.ndarray:
        out = np.empty_like(own)
        transposed = np.ascontiguousarray(other.T)
        arrays = self.rolls, self.table_of, self.uncover, self.bits, self.probabilities
        _policy_sweep(own, transposed, *arrays, self.seven, out)
        return out


def evaluate_policies(
    first: PolicyTables, second: PolicyTables, totals: tuple[int, ...] = TOTALS, tolerance: float = TOLERANCE
) -> tuple[np.ndarray, np.ndarray]:
    """The exact turn-start values of two policies playing each other: ``[v_first, v_second]``, each
    ``[me, opp]`` the probability that the player to roll (the one following that table) wins.
    The first roller of a game that ``first`` opens wins with probability ``v_first[0, 0]``."""
    size = 1 << len(totals)
    if HAVE_NUMBA:  # the compiled sweep (several times faster); the NumPy one otherwise
        compiled = _CompiledTables(first, totals), _CompiledTables(second, totals)

        def backups(first_value: np.ndarray, second_value: np.ndarray) -> list[np.ndarray]:
            return [compiled[0].sweep(first_value, second_value), compiled[1].sweep(second_value, first_value)]
    else:

        def backups(first_value: np.ndarray, second_value: np.ndarray) -> list[np.ndarray]:
            return [
                policy_backup(first_value, second_value, first, totals),
                policy_backup(second_value, first_value, second, totals),
            ]

    def step(values: np.ndarray) -> np.ndarray:
        return np.stack(backups(values[0], values[1]))

    values, _ = fixed_point(step, np.full((2, size, size), 0.5), tolerance)
    return values[0], values[1]
