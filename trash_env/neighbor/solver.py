"""Two-player Help Your Neighbor solved exactly (R12, R14): the optimal policy and every state's value.

Long on purpose: one algorithm whose parts share the indexing of one state space (the states and their
numbering, value iteration with its compiled sweeps and Anderson mixing, the policy's tables, the visit
counts of a pair of policies, the cached solution); split, each part would import that indexing back.

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
later uses load it in well under a second. The cache file is plain arrays (an npz archive, read
without pickle), written atomically with the solver's version and a hash of its content; on the way
back in each array's dtype and shape (before its data is read), the hash, the values' finiteness
and range and one Bellman sweep's residual are checked (:func:`read_solution`), so a damaged file,
another version's or one holding values that are not the solution is reported in one line and
solved again (:func:`load_solution`), never used.

Beyond the solution: :func:`evaluate_policies` gives the exact values of any two policies (as
:class:`PolicyTables`) playing each other, :func:`best_response` the exact best response to any one
policy (the responder maximising by :func:`best_backup`, the sweep :func:`bellman` is made of, the
policy following its tables by :func:`policy_backup`), and :func:`turn_visits` the expected number of
visits to every state when two policies play (``agents.evaluation.exploitability`` builds on them).

``totals`` (test-only) plays the game with markers for fewer totals, to check the solver against an
exhaustive expectimax on a game small enough for it; the rules core plays only the full game.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from trash_env.array_cache import CacheError, cache_folder, read_cached, write_cached
from trash_env.array_cache import content_hash as content_hash  # (the cache's hash, as tests import it)
from trash_env.jit import HAVE_NUMBA, compile_notice, njit, prange
from trash_env.neighbor.rules import SEVEN, TOTALS, WAYS

SOLVER_VERSION = 2  # bump when the solved game or the file format changes (2: the content hash)
TOLERANCE = 1e-12

logger = logging.getLogger(__name__)


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
        return roll_again_table(self.value, self.value)

    def uncover(self) -> np.ndarray:
        """[me, opp]: the marker (index into ``totals``) the optimal player uncovers after a 7, -1 when
        nothing is covered (ties: the lowest index)."""
        return uncover_table(self.value, self.totals)

    def residual(self) -> float:
        """The largest violation of the Bellman equations over every state."""
        return float(np.abs(bellman(self.value, self.totals) - self.value)[: self.full, : self.full].max())


def roll_again_table(own: np.ndarray, other: np.ndarray) -> np.ndarray:
    """[me, opp]: True where rolling again is at least as good for a player as ending the turn (ties
    roll), given their turn-start values ``own`` and the other player's, ``other``."""
    return own >= 1.0 - other.T


def uncover_table(other: np.ndarray, totals: tuple[int, ...]) -> np.ndarray:
    """[me, opp]: the marker (index into ``totals``) to uncover after a 7 that leaves the other player,
    whose turn-start values are ``other``, the lowest value; -1 when nothing is covered (ties: the
    lowest index)."""
    worst = np.full(other.shape, np.inf)
    best = np.full(other.shape, -1, np.int8)
    index = np.arange(other.shape[0])
    for j in range(len(totals)):
        bit = 1 << j
        holds = (index & bit) != 0
        # uncovering j leaves the other to roll at other[opp, me ^ bit]: the smaller the better
        after = other.T[index ^ bit, :]
        better = holds[:, None] & (after < worst - 1e-15)
        worst = np.where(better, after, worst)
        best = np.where(better, j, best)
    return best


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


def best_backup(own: np.ndarray, other: np.ndarray, totals: tuple[int, ...] = TOTALS) -> np.ndarray:
    """:func:`backup` for a player who chooses best given ``own`` (their turn-start values) and
    ``other`` (the other player's): the better of rolling again and ending; after a 7 the marker
    that leaves the other the least. With ``other`` the values of a fixed policy this is the best
    response's sweep (:func:`best_response`); with ``own`` and ``other`` the same array, the
    Bellman operator of the game (:func:`bellman`)."""
    transposed = np.ascontiguousarray(other.T)  # transposed[me, opp] = other[opp, me]: the other's turn
    choose = np.maximum(own, 1.0 - transposed)
    least = np.full_like(own, np.inf)
    least[0] = transposed[0]  # nothing covered: the turn just passes
    for j in range(len(totals)):
        lacks = marker_views(transposed, 1 << j)[0]  # uncovering j: the other rolls at other[opp, me ^ bit]
        holding = marker_views(least, 1 << j)[1]
        np.minimum(holding, lacks, out=holding)
    return backup(other, lambda total: choose, 1.0 - least, totals)


def bellman(value: np.ndarray, totals: tuple[int, ...] = TOTALS) -> np.ndarray:
    """One sweep of the Bellman operator: every state's value given ``value`` for the next ones
    (both players optimal: choose the better of rolling again and ending; after a 7 uncover the
    marker that leaves the opponent the least)."""
    return best_backup(value, value, totals)


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """The inner product of two vectors, the same to the last bit however many threads BLAS may use
    (``a @ b`` may split the sum by thread): so an exact score does not depend on the thread count
    of the process that computes it (a run's worker, one thread, or ``trash-bench evaluate``)."""
    return float(np.einsum("i,i->", a, b))


def fixed_point(
    step: Callable[[np.ndarray], np.ndarray], start: np.ndarray, tolerance: float, memory: int = 10
) -> tuple[np.ndarray, int]:
    """The fixed point of ``step`` by Anderson-accelerated iteration, to a residual
    ``max |step(x) - x| <= tolerance``; returns it and the number of sweeps.

    Plain iteration converges slowly here (about 400 sweeps to 1e-12: the game passes the turn back
    and forth); mixing each new sweep with the last ``memory`` ones, by least squares on their
    residuals, takes about a third as many. Returns ``step(x)``, whose residual was checked.

    With Numba the mixing is compiled (:func:`_anderson_residual`, :func:`_anderson_mix`: one pass
    each over the iterate, on every thread, the inner products summed by fixed blocks so that the
    result is the same whatever the thread count); without it, :func:`fixed_point_numpy`, the same
    iteration in NumPy (equal to within rounding)."""
    if not HAVE_NUMBA:
        return fixed_point_numpy(step, start, tolerance, memory)
    shape = start.shape
    x = np.ascontiguousarray(start, dtype=np.float64).ravel().copy()
    n = x.size
    steps, residuals = np.empty((memory, n)), np.empty((memory, n))  # rings of differences
    previous_stepped, previous_residual = np.empty(n), np.empty(n)
    partial = np.empty((-(-n // ANDERSON_BLOCK), 2 * memory + 1))
    order: list[int] = []  # the slots of the rings in use, oldest first
    gram = np.zeros((0, 0))
    for sweep in range(1, 100_000):
        stepped = np.ascontiguousarray(step(x.reshape(shape)), dtype=np.float64).ravel()
        have_previous = sweep > 1
        if have_previous:  # the slot the new differences go to: a free one, or the oldest's
            slot = order.pop(0) if len(order) == memory else len(order)
            order.append(slot)
            if len(gram) == memory:  # the oldest difference was dropped: so are its products
                gram = gram[1:, 1:]
        else:
            slot = 0
        active = np.array(order if have_previous else [], np.int64)
        with compile_notice("the exact solver of Help Your Neighbor"):
            _anderson_residual(x, stepped, previous_stepped, previous_residual, steps, residuals, slot,
                               have_previous, active, partial)  # fmt: skip
        if partial[:, 2 * memory].max() <= tolerance:
            return stepped.reshape(shape), sweep
        if not have_previous:
            x = stepped.copy()
            continue
        m = len(order)
        sums = partial[:, : 2 * memory].sum(axis=0)  # the blocks' partial sums, in block order
        products, right = sums[:m], sums[memory : memory + m]
        grown = np.empty((m, m))
        grown[:-1, :-1], grown[-1], grown[:, -1] = gram, products, products
        gram = grown
        regularised = gram + 1e-12 * np.trace(gram) * np.eye(m)  # keep it invertible
        weights = np.linalg.solve(regularised, right)
        _anderson_mix(x, stepped, steps, active, weights)
    raise RuntimeError(f"the iteration did not converge to {tolerance}")


ANDERSON_BLOCK = 1 << 14  # elements per block of the compiled inner products (fixed: the sums do not depend on threads)


@njit(cache=True, parallel=True, fastmath={"reassoc"})  # reassoc: the block's sums vectorised, in a fixed order
def _anderson_residual(x, stepped, previous_stepped, previous_residual, steps, residuals, slot, have_previous, active,
                       partial):  # fmt: skip
    """:func:`fixed_point`'s pass after a sweep, block by block: the residual ``r = stepped - x`` and
    its largest magnitude; with a previous sweep, the new differences of the steps and of the
    residuals into the rings' ``slot``, and the inner products of each active residual difference
    with the new one and with ``r`` (``partial[block]``: ``[products..., right sides..., max |r|]``);
    then the previous sweep's step and residual become this one's."""
    n = x.shape[0]
    m = active.shape[0]
    memory = steps.shape[0]
    for block in prange(partial.shape[0]):
        low = block * ANDERSON_BLOCK
        high = min(n, low + ANDERSON_BLOCK)
        largest = 0.0
        for i in range(low, high):
            r = stepped[i] - x[i]
            largest = max(largest, abs(r))
            if have_previous:
                steps[slot, i] = stepped[i] - previous_stepped[i]
                residuals[slot, i] = r - previous_residual[i]
            previous_stepped[i] = stepped[i]
            previous_residual[i] = r
        for k in range(2 * memory):
            partial[block, k] = 0.0
        for k in range(m):
            row = active[k]
            product, right = 0.0, 0.0
            for i in range(low, high):
                product += residuals[row, i] * residuals[slot, i]
                right += residuals[row, i] * previous_residual[i]
            partial[block, k] = product
            partial[block, memory + k] = right
        partial[block, 2 * memory] = largest


@njit(cache=True, parallel=True)
def _anderson_mix(x, stepped, steps, active, weights):
    """``x = stepped - sum_k weights[k] * steps[active[k]]``, in that order at every element."""
    for i in prange(x.shape[0]):
        value = stepped[i]
        for k in range(active.shape[0]):
            value -= weights[k] * steps[active[k], i]
        x[i] = value


def fixed_point_numpy(
    step: Callable[[np.ndarray], np.ndarray], start: np.ndarray, tolerance: float, memory: int = 10
) -> tuple[np.ndarray, int]:
    """:func:`fixed_point` in NumPy: where Numba is not installed, and the check of the compiled one."""
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
        products = np.array([_dot(a, residuals[-1]) for a in residuals])  # only the newest pairs are new
        grown = np.empty((len(residuals), len(residuals)))
        grown[:-1, :-1], grown[-1], grown[:, -1] = gram, products, products
        gram = grown
        regularised = gram + 1e-12 * np.trace(gram) * np.eye(len(residuals))  # keep it invertible
        weights = np.linalg.solve(regularised, np.array([_dot(a, residual) for a in residuals]))
        x = stepped.copy()
        for weight, difference in zip(weights, steps):
            x -= weight * difference
    raise RuntimeError(f"the iteration did not converge to {tolerance}")


def affine_fixed_point(
    step: Callable[[np.ndarray], np.ndarray], start: np.ndarray, tolerance: float, limit: int = 20_000
) -> tuple[np.ndarray, int]:
    """The fixed point of an affine ``step`` (``step(x) = c + L x``, ``L`` linear) to a residual
    ``max |step(x) - x| <= tolerance``, by BiCGSTAB on ``(I - L) x = c``; returns it and the number of
    calls of ``step``. For the transient sums of :func:`turn_visits` it takes about half the sweeps
    of :func:`fixed_point` and less arithmetic per sweep. The residual is checked on
    ``step`` itself, never only on the recurrence's estimate; a breakdown restarts from the last
    iterate with a new shadow residual."""
    shape = start.shape
    constant = step(np.zeros(shape)).ravel()
    calls = 1

    def apply(x: np.ndarray) -> np.ndarray:  # (I - L) x
        nonlocal calls
        calls += 1
        return x - (step(x.reshape(shape)).ravel() - constant)

    x = start.ravel().copy()
    for restart in range(limit):
        residual = constant - apply(x)  # = step(x) - x
        if np.abs(residual).max() <= tolerance:
            return x.reshape(shape), calls
        if calls >= limit:
            break
        # A random shadow residual: the usual choice, the first residual, is as sparse as the start
        # here (the opening states) and makes the recurrence stagnate or break down.
        shadow = np.random.default_rng(restart).standard_normal(x.size)
        rho = alpha = omega = 1.0
        v = np.zeros_like(x)
        p = np.zeros_like(x)
        while calls < limit:
            rho_next = _dot(shadow, residual)
            if rho_next == 0.0 or omega == 0.0:
                break  # breakdown: restart from x
            p = residual + (rho_next / rho) * (alpha / omega) * (p - omega * v)
            v = apply(p)
            projected = _dot(shadow, v)
            if projected == 0.0:
                break
            alpha = rho_next / projected
            x += alpha * p
            residual -= alpha * v
            if np.abs(residual).max() <= tolerance:
                break
            t = apply(residual)
            norm = _dot(t, t)
            if norm == 0.0:
                break
            omega = _dot(t, residual) / norm
            x += omega * residual
            residual -= omega * t
            rho = rho_next
            if np.abs(residual).max() <= tolerance:
                break
    raise RuntimeError(f"the linear solve did not converge to {tolerance} in {limit} sweeps")


def solve(totals: tuple[int, ...] = TOTALS, tolerance: float = TOLERANCE) -> Solution:
    """The solved game: values with Bellman residual at most ``tolerance`` at every state."""
    start = time.perf_counter()
    size = 1 << len(totals)
    value, sweeps = fixed_point(lambda v: bellman(v, totals), np.full((size, size), 0.5), tolerance)
    return Solution(tuple(totals), value, tolerance, sweeps, time.perf_counter() - start)


def cache_path(totals: tuple[int, ...] = TOTALS) -> Path:
    """Where the solution is kept: ``$TRASH_RL_CACHE`` or ``~/.cache/trash-rl``."""
    folder = cache_folder()
    key = hashlib.sha256(repr((SOLVER_VERSION, totals, TOLERANCE)).encode()).hexdigest()[:12]
    return folder / f"help_your_neighbor_2p_v{SOLVER_VERSION}_{key}.npz"


# --------------------------------------------------------------------------
# The cache file: plain arrays, a content hash, and every check on the way back in

RESIDUAL_SLACK = 2.0  # a checked solution's residual is within this many tolerances (rounding of a sweep)


def cache_layout(totals: tuple[int, ...]) -> dict[str, tuple[np.dtype, tuple[int, ...]]]:
    """Every array of a cache file (but the hash) with its dtype and shape: nothing else is read."""
    size = 1 << len(totals)
    integer, real = np.dtype("<i8"), np.dtype("<f8")
    return {
        "version": (integer, ()),
        "totals": (integer, (len(totals),)),
        "value": (real, (size, size)),
        "tolerance": (real, ()),
        "iterations": (integer, ()),
        "seconds": (real, ()),
    }


def solution_arrays(solution: Solution) -> dict[str, np.ndarray]:
    """The arrays a cache file holds for ``solution`` (but the hash), in the layout's dtypes."""
    fields = {
        "version": SOLVER_VERSION,
        "totals": solution.totals,
        "value": solution.value,
        "tolerance": solution.tolerance,
        "iterations": solution.iterations,
        "seconds": solution.seconds,
    }
    layout = cache_layout(solution.totals)
    return {name: np.asarray(fields[name], dtype=dtype) for name, (dtype, _) in layout.items()}


def save_solution(solution: Solution, path: str | Path | None = None) -> None:
    """Write ``solution`` to the cache (``cache_path()`` unless ``path``) atomically: a reader sees the
    old file or the new one, never a part. Plain arrays (``np.savez``, read without pickle) and the
    hash of their content; an ``OSError`` if it cannot be written."""
    arrays = solution_arrays(solution)
    write_cached(path or cache_path(solution.totals), arrays)


def read_arrays(path: Path, totals: tuple[int, ...]) -> dict[str, np.ndarray]:
    """The arrays of the cache file at ``path`` for ``totals``, each as the layout says, and their hash
    matching: a :class:`CacheError` saying what is wrong otherwise."""

    def layout_of(read: Callable[..., np.ndarray], names: list[str]) -> dict[str, tuple[np.dtype, tuple[int, ...]]]:
        layout = cache_layout(totals)
        if "version.npy" in names:  # another version's file has another layout: say that first
            version = int(read("version", *layout["version"]))
            if version != SOLVER_VERSION:
                raise CacheError(f"was written by solver version {version}, and this is version {SOLVER_VERSION}")
        return layout

    return read_cached(path, layout_of, "solver")


def check_solution(solution: Solution) -> None:
    """A :class:`CacheError` unless ``solution`` is the solved game: its settings the solver's,
    its values finite probabilities that satisfy the Bellman equations (one sweep moves none by
    more than the tolerance; wrong values, ``1 - v`` or all 0.5, move by far more)."""
    value = solution.value
    if solution.tolerance != TOLERANCE:
        raise CacheError(f"was solved to tolerance {solution.tolerance:g}, not {TOLERANCE:g}")
    if not (solution.iterations >= 1 and math.isfinite(solution.seconds) and solution.seconds >= 0):
        raise CacheError(f"says it took {solution.iterations} sweeps and {solution.seconds} s")
    if not np.isfinite(value).all():
        raise CacheError(
            f"holds values that are NaN or infinite ({int((~np.isfinite(value)).sum()):,} of {value.size:,})"
        )
    if value.min() < 0 or value.max() > 1:
        raise CacheError(f"holds values from {value.min():.3g} to {value.max():.3g}, outside [0, 1]")
    residual = solution.residual()
    if not residual <= RESIDUAL_SLACK * solution.tolerance:
        raise CacheError(
            f"holds values that break the Bellman equations by {residual:.2g} (the solver's tolerance is "
            f"{solution.tolerance:g}): they are not the solution"
        )


def read_solution(path: Path, totals: tuple[int, ...] = TOTALS) -> Solution:
    """The checked solution in the cache file at ``path``: a :class:`CacheError` saying what is wrong
    with the file otherwise (damaged, another format or version, or values that are not the solution)."""
    arrays = read_arrays(path, totals)
    found = tuple(int(t) for t in arrays["totals"])
    if found != tuple(totals):
        raise CacheError(f"is for the totals {found}, not {tuple(totals)}")
    solution = Solution(
        found,
        arrays["value"],
        float(arrays["tolerance"]),
        int(arrays["iterations"]),
        float(arrays["seconds"]),
    )
    check_solution(solution)
    return solution


def solve_checked(totals: tuple[int, ...] = TOTALS) -> Solution:
    """:func:`solve`, its solution checked as a cache file's is (a failure is a bug of the solver)."""
    solution = solve(totals)
    try:
        check_solution(solution)
    except CacheError as problem:
        raise RuntimeError(f"the solver's own solution fails its check: it {problem}") from None
    return solution


_loaded: dict[tuple[int, ...], Solution] = {}


def _one_line(text: str) -> str:
    return " ".join(text.split())


def load_solution(totals: tuple[int, ...] = TOTALS, may_solve: bool = True) -> Solution:
    """The solution, from memory, from the disk cache (every array checked: :func:`read_solution`), or
    solved now and cached.

    A cache file that is missing is solved; one that is damaged or wrong is reported in one line
    (a warning naming the file and what is wrong), solved again and replaced. With ``may_solve``
    false nothing is solved: a missing or bad file is a ``ValueError`` naming it, what is wrong
    and the command that solves it."""
    if totals in _loaded:
        return _loaded[totals]
    path = cache_path(totals)
    if not path.exists():
        if not may_solve:
            raise ValueError(
                _one_line(f"the game is not solved yet (no solver cache {path}); run trash-solve to solve it")
            )
        solution = None
    else:
        try:
            solution = read_solution(path, totals)
        except CacheError as problem:
            if not may_solve:
                raise ValueError(
                    _one_line(f"the solver cache {path} {problem}; run trash-solve to solve it again")
                ) from None
            logger.warning(_one_line(f"the solver cache {path} {problem}; solving the game again to replace it"))
            solution = None
    if solution is None:
        solution = solve_checked(totals)
        try:
            save_solution(solution, path)
        except OSError as error:
            logger.warning(_one_line(f"cannot write the solver cache {path} ({error}): the solution is not kept"))
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
        with compile_notice("the exact solver of Help Your Neighbor"):
            _policy_sweep(own, transposed, *arrays, self.seven, out)
        return out

    def visits(self, turns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:func:`turn_visits_step` compiled."""
        again, handed = np.zeros_like(turns), np.zeros_like(turns)
        arrays = self.rolls, self.table_of, self.uncover, self.bits, self.probabilities
        with compile_notice("the exact solver of Help Your Neighbor"):
            _visits_sweep(turns, *arrays, self.seven, again, handed)
        return again, handed


def policy_sweeper(tables: PolicyTables, totals: tuple[int, ...]) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """:func:`policy_backup` for ``tables`` as a function of (own, other): the compiled sweep with
    Numba (several times faster), the NumPy one otherwise."""
    if HAVE_NUMBA:
        return _CompiledTables(tables, totals).sweep
    return lambda own, other: policy_backup(own, other, tables, totals)


def marker_groups(totals: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Every incomplete marker set (``0 .. 2**len(totals) - 2``) ordered by how many markers it
    covers, most first, and where each group of equally many starts (``order[starts[g]:starts[g + 1]]``)."""
    size = 1 << len(totals)
    counts = np.array([bin(x).count("1") for x in range(size - 1)])
    order = np.argsort(-counts, kind="stable").astype(np.int64)
    starts = np.searchsorted(-counts[order], np.arange(-len(totals) + 1, 1), side="left")
    return order, np.append(starts, len(order)).astype(np.int64)


def _mover_terms(own, other, tables, me, opp, totals):
    """A state's mover value as ``alpha - beta * other[opp, me]`` (NumPy, for arrays of states): every
    term but the partner's (the other to roll at the same state, after the mover ends its turn)."""
    full = (1 << len(totals)) - 1
    known = np.zeros(len(me))
    stay = np.zeros(len(me))  # rolling again from this very state (a roll nobody can use)
    ends = np.zeros(len(me))  # handing this very state to the other
    for total, bit, p in roll_outcomes(totals):
        roll = tables.roll[total]
        if bit:
            lacks = (me & bit) == 0
            other_lacks = ~lacks & ((opp & bit) == 0)
            mine, theirs = me | bit, opp | bit
            r = roll[mine, opp]
            covered = np.where(mine == full, 1.0, r * own[mine, opp] + (1.0 - r) * (1.0 - other[opp, mine]))
            known += p * np.where(lacks, covered, 0.0)
            known += p * np.where(other_lacks & (theirs != full), 1.0 - other[theirs, me], 0.0)
            nobody = ~lacks & ~other_lacks
        else:
            nobody = np.ones(len(me), bool)
        r = roll[me, opp]
        stay += p * np.where(nobody, r, 0.0)
        ends += p * np.where(nobody, 1.0 - r, 0.0)
    seven = WAYS[SEVEN] / 36
    ends += np.where(me == 0, seven, 0.0)  # nothing to uncover: the turn just passes
    for j in range(len(totals)):
        holding = (me >> j) & 1 == 1
        known += seven * np.where(holding, tables.uncover[j][me, opp] * (1.0 - other[opp, me ^ (1 << j)]), 0.0)
    return (known + ends) / (1.0 - stay), ends / (1.0 - stay)


def level_sweep_numpy(
    values: np.ndarray, first: PolicyTables, second: PolicyTables, totals: tuple[int, ...]
) -> np.ndarray:
    """:func:`level_sweep` in NumPy, a block of states at a time (the same blocks, in the same order)."""
    order, starts = marker_groups(totals)
    groups = [order[starts[g] : starts[g + 1]] for g in range(len(starts) - 1)]
    va, vb = values[0].copy(), values[1].copy()
    for rows in groups:
        for columns in groups:
            me, opp = (x.ravel() for x in np.meshgrid(rows, columns, indexing="ij"))
            alpha_a, beta_a = _mover_terms(va, vb, first, me, opp, totals)
            alpha_b, beta_b = _mover_terms(vb, va, second, opp, me, totals)
            va[me, opp] = (alpha_a - beta_a * alpha_b) / (1.0 - beta_a * beta_b)
            vb[opp, me] = alpha_b - beta_b * va[me, opp]
    return np.stack([va, vb])


@njit(cache=True, inline="always")
def _at(array, i, j, flip):
    return array[j, i] if flip else array[i, j]


@njit(cache=True)
def _mover(own, other, rolls, table_of, uncover, bits, probabilities, seven, me, opp, flip):
    """:func:`_mover_terms` for one state, compiled: ``(alpha, beta)``. Every array is stored in the
    first player's frame (``[a, b]``), so that both players' values are read along its rows: with
    ``flip`` (the second player moves) the mover's own values and tables are stored transposed; without
    it (the first moves) the other's values are."""
    full = own.shape[0] - 1
    known = 0.0
    stay = 0.0
    ends = 0.0
    for k in range(len(bits)):
        bit = bits[k]
        p = probabilities[k]
        if bit != 0 and me & bit == 0:  # the mover covers it (a full set wins), then chooses
            mine = me | bit
            if mine == full:
                known += p
            else:
                r = _at(rolls[table_of[k]], mine, opp, flip)
                known += p * (r * _at(own, mine, opp, flip) + (1.0 - r) * (1.0 - _at(other, opp, mine, not flip)))
        elif bit != 0 and opp & bit == 0:  # the other covers it and rolls next (or wins)
            theirs = opp | bit
            if theirs != full:
                known += p * (1.0 - _at(other, theirs, me, not flip))
        else:  # nobody can use it: the mover rolls again from here or ends
            r = _at(rolls[table_of[k]], me, opp, flip)
            stay += p * r
            ends += p * (1.0 - r)
    if me == 0:
        ends += seven
    else:
        for j in range(uncover.shape[0]):
            if me >> j & 1:
                u = _at(uncover[j], me, opp, flip)
                known += seven * u * (1.0 - _at(other, opp, me ^ (1 << j), not flip))
    return (known + ends) / (1.0 - stay), ends / (1.0 - stay)


@njit(cache=True, parallel=True)
def _level_sweep(va, wb, order, starts, rolls_a, rolls_b, table_of, uncover_a, uncover_b, bits, probabilities, seven):
    """:func:`level_sweep` compiled, in place: the first player's sets ``a`` a group at a time (most
    markers first), the sets of a group in parallel, and for each the second player's sets ``b`` in
    the same order. Everything is in the first player's frame ``[a, b]``: ``va`` its values, ``wb``
    the second's transposed, ``rolls_b``/``uncover_b`` the second's tables transposed;
    ``rolls_x[table_of[k]]`` the table after the k-th outcome of ``bits``/``probabilities`` (as
    :class:`_CompiledTables`)."""
    for group in range(len(starts) - 1):
        for i in prange(starts[group], starts[group + 1]):
            a = order[i]
            for j in range(len(order)):
                b = order[j]
                alpha_a, beta_a = _mover(
                    va, wb, rolls_a, table_of[0], uncover_a, bits, probabilities, seven, a, b, False
                )
                alpha_b, beta_b = _mover(
                    wb, va, rolls_b, table_of[1], uncover_b, bits, probabilities, seven, b, a, True
                )
                value = (alpha_a - beta_a * alpha_b) / (1.0 - beta_a * beta_b)
                va[a, b] = value
                wb[a, b] = alpha_b - beta_b * value


def level_sweep(values: np.ndarray, first: PolicyTables, second: PolicyTables, totals: tuple[int, ...]) -> np.ndarray:
    """One Gauss-Seidel sweep of two policies' values (``values``: ``[v_first, v_second]``, each
    ``[me, opp]`` in its player's frame), returned new.

    The states ``(a, b)`` (``a`` the first player's markers, ``b`` the second's) are taken with ``a``
    by how many markers it covers, most first, and for each ``a`` the sets ``b`` in the same order. A
    roll that covers a marker leads to ``(a | bit, b)`` or ``(a, b | bit)``, already swept; ending a
    turn (or a roll nobody can use, ended) hands the same state to the other player, so the two values
    of a state (the first player's to roll and the second's) are solved together, exactly, with each
    mover's own roll-again loop summed; only a 7's uncover leads to a state not yet swept, read from
    the previous sweep. So a sweep settles every line of play up to the next uncover: about 30 sweeps
    reach 1e-8 where the one-roll iteration of both players (:func:`policy_backup`) takes about 110.
    States with a complete set (the game is over) are left as they are.
    """
    return _level_sweeper(first, second, totals)(values)


def _level_sweeper(
    first: PolicyTables, second: PolicyTables, totals: tuple[int, ...]
) -> Callable[[np.ndarray], np.ndarray]:
    """:func:`level_sweep` for two policies as a function of the values, the tables laid out once.
    The compiled sweep works on ``[v_first, v_second transposed]``, which this converts."""
    if not HAVE_NUMBA:
        return lambda values: level_sweep_numpy(values, first, second, totals)
    order, starts = marker_groups(totals)
    laid = _CompiledTables(first, totals), _CompiledTables(second, totals)
    rolls_a, rolls_b = laid[0].rolls, np.ascontiguousarray(laid[1].rolls.transpose(0, 2, 1))
    uncover_a, uncover_b = laid[0].uncover, np.ascontiguousarray(laid[1].uncover.transpose(0, 2, 1))
    table_of = np.stack([laid[0].table_of, laid[1].table_of])
    bits, probabilities, seven = laid[0].bits, laid[0].probabilities, laid[0].seven

    def sweep(values: np.ndarray) -> np.ndarray:
        return from_laid(laid_sweep(to_laid(values)))

    def laid_sweep(laid_values: np.ndarray) -> np.ndarray:
        out = laid_values.copy()
        arrays = rolls_a, rolls_b, table_of, uncover_a, uncover_b, bits, probabilities, seven
        with compile_notice("the exact solver of Help Your Neighbor"):
            _level_sweep(out[0], out[1], order, starts, *arrays)
        return out

    sweep.laid = laid_sweep  # the sweep on [v_first, v_second transposed], as evaluate_policies iterates it
    return sweep


def to_laid(values: np.ndarray) -> np.ndarray:
    """``[v_first, v_second]`` in the compiled sweep's frame: ``[v_first, v_second transposed]``."""
    return np.stack([values[0], values[1].T])


def from_laid(laid_values: np.ndarray) -> np.ndarray:
    """:func:`to_laid` undone (the transpose is its own inverse)."""
    return to_laid(laid_values)


def evaluate_policies(
    first: PolicyTables, second: PolicyTables, totals: tuple[int, ...] = TOTALS, tolerance: float = TOLERANCE
) -> tuple[np.ndarray, np.ndarray]:
    """The exact turn-start values of two policies playing each other: ``[v_first, v_second]``, each
    ``[me, opp]`` the probability that the player to roll (the one following that table) wins.
    The first roller of a game that ``first`` opens wins with probability ``v_first[0, 0]``.

    Solved by Gauss-Seidel sweeps over the levels of covered markers (:func:`level_sweep`), Anderson
    accelerated (:func:`fixed_point`), to a change of at most ``tolerance`` per sweep at every
    state; several times faster than iterating the one-roll equations (:func:`policy_backup`,
    :func:`evaluate_policies_by_rolls`), whose residual the result is tested against."""
    size = 1 << len(totals)
    sweep = _level_sweeper(first, second, totals)
    start = np.full((2, size, size), 0.5)
    if hasattr(sweep, "laid"):  # compiled: iterate in its own frame, converted once (not at every sweep)
        laid_values, _ = fixed_point(sweep.laid, to_laid(start), tolerance)
        values = from_laid(laid_values)
    else:
        values, _ = fixed_point(sweep, start, tolerance)
    return values[0], values[1]


def evaluate_policies_by_rolls(
    first: PolicyTables, second: PolicyTables, totals: tuple[int, ...] = TOTALS, tolerance: float = TOLERANCE
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`evaluate_policies` by iterating the one-roll equations (:func:`policy_backup`) of both
    players together: the plain way, kept as the check of the turn-at-a-time solve."""
    size = 1 << len(totals)
    sweeps = policy_sweeper(first, totals), policy_sweeper(second, totals)

    def step(values: np.ndarray) -> np.ndarray:
        return np.stack([sweeps[0](values[0], values[1]), sweeps[1](values[1], values[0])])

    values, _ = fixed_point(step, np.full((2, size, size), 0.5), tolerance)
    return values[0], values[1]


# --------------------------------------------------------------------------
# Best response: the exact best reply to any policy, and how often play reaches each state


@dataclass(frozen=True)
class BestResponse:
    """The best response to a fixed policy (``against``), solved: ``responder[me, opp]`` is the
    probability that the responder, about to roll, wins (``me`` its markers); ``policy[me, opp]``
    that the policy's player, about to roll, wins against it (``me`` the policy's markers). The
    responder's first roll of a game it opens wins with ``responder[0, 0]``, and as second roller
    it wins with ``1 - policy[0, 0]``: one iteration answers from both seats, the best response
    being one choice per state whoever opened."""

    totals: tuple[int, ...]
    against: PolicyTables
    responder: np.ndarray
    policy: np.ndarray
    tolerance: float
    iterations: int
    seconds: float

    def roll_again(self) -> np.ndarray:
        """[me, opp]: True where the responder rolls again (ties roll), whatever the roll was."""
        return roll_again_table(self.responder, self.policy)

    def uncover(self) -> np.ndarray:
        """[me, opp]: the marker the responder uncovers after a 7 (-1 with nothing covered)."""
        return uncover_table(self.policy, self.totals)

    def tables(self) -> PolicyTables:
        """The responder's policy as tables (deterministic)."""
        roll = self.roll_again().astype(np.float64)
        choice = self.uncover()
        uncover = np.stack([(choice == j).astype(np.float64) for j in range(len(self.totals))])
        return PolicyTables({total: roll for total, _, _ in roll_outcomes(self.totals)}, uncover)

    def residual(self) -> float:
        """The largest violation of the best response's equations (the responder's Bellman equations,
        the policy's evaluation equations) over every state."""
        full = (1 << len(self.totals)) - 1
        responder = best_backup(self.responder, self.policy, self.totals)
        policy = policy_backup(self.policy, self.responder, self.against, self.totals)
        return float(
            max(
                np.abs(responder - self.responder)[:full, :full].max(),
                np.abs(policy - self.policy)[:full, :full].max(),
            )
        )


def best_response(
    against: PolicyTables,
    totals: tuple[int, ...] = TOTALS,
    tolerance: float = TOLERANCE,
    start: np.ndarray | None = None,
) -> BestResponse:
    """The exact best response to the policy ``against``: value iteration in which the policy's player
    follows its tables (:func:`policy_backup`) and the responder maximises its probability of
    winning (:func:`best_backup`), to a residual of at most ``tolerance`` at every state.

    Against a fixed policy the game is a Markov decision process for the responder; every policy
    pair ends with probability 1 (each turn starts with a forced roll, and covering is five times
    likelier than uncovering), so the fixed point is unique and ``start`` ([responder, policy], for
    example the solved values twice) only changes how many sweeps it takes."""
    began = time.perf_counter()
    size = 1 << len(totals)
    policy_sweep = policy_sweeper(against, totals)

    def step(values: np.ndarray) -> np.ndarray:
        return np.stack([best_backup(values[0], values[1], totals), policy_sweep(values[1], values[0])])

    initial = np.full((2, size, size), 0.5) if start is None else np.asarray(start, dtype=np.float64)
    values, sweeps = fixed_point(step, initial, tolerance)
    seconds = time.perf_counter() - began
    return BestResponse(tuple(totals), against, values[0], values[1], tolerance, sweeps, seconds)


def roll_visits(
    turns: np.ndarray, totals: tuple[int, ...] = TOTALS
) -> tuple[dict[int, np.ndarray], np.ndarray, np.ndarray]:
    """Where a player's turns lead before they decide: from ``turns[me, opp]``, the expected number of
    times they start a turn at each state, the expected number of times they

    - choose after a roll of ``t`` (``{t: [me, opp]}``, ``me`` after covering ``t``),
    - uncover after a 7 (``[me, opp]``, ``me`` holding at least one marker),
    - hand the turn over without a choice (``[me, opp]`` in the mover's frame, ``opp`` after the
      other covered the roll through the privilege: the other then starts at ``[opp, me]``).

    Rolls that complete a set end the game and lead nowhere. The transpose of :func:`backup`."""
    n = turns.shape[0]
    full = n - 1
    choose: dict[int, np.ndarray] = {}
    handed = np.zeros_like(turns)
    for total, bit, p in roll_outcomes(totals):
        if not bit:  # nobody can use it: the roller chooses
            choose[total] = p * turns
            continue
        after = np.zeros_like(turns)
        high = n // (2 * bit)
        shape = (high, 2, bit, high, 2, bit)  # [me: high, has, low, opp: high, has, low]
        turns6, after6, handed6 = turns.reshape(shape), after.reshape(shape), handed.reshape(shape)
        after6[:, 1] += p * turns6[:, 0]  # the roller lacks it: covers it, then chooses
        after6[:, 1, :, :, 1, :] += p * turns6[:, 1, :, :, 1, :]  # both hold it: the roller chooses
        handed6[:, 1, :, :, 1, :] += p * turns6[:, 1, :, :, 0, :]  # only the other lacks it: theirs
        after[full] = 0.0  # the roller's set is complete: they won
        choose[total] = after
    handed[:, full] = 0.0  # the other's set is complete: they won
    seven = WAYS[SEVEN] / 36
    handed[0] += seven * turns[0]  # nothing covered: the turn just passes
    uncover = seven * turns
    uncover[0] = 0.0
    return choose, uncover, handed


def turn_visits_step(turns: np.ndarray, tables: PolicyTables, totals: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The turns that follow ``turns`` (expected visits to a player's turn starts, [me, opp]) when the
    player follows ``tables``: (their own next turn starts, after rolling again; the other's, in the
    other's frame)."""
    choose, uncover, handed = roll_visits(turns, totals)
    again = np.zeros_like(turns)
    for total, visits in choose.items():
        roll = tables.roll[total]
        again += roll * visits
        handed += (1.0 - roll) * visits
    for j in range(len(totals)):
        lacks = marker_views(handed, 1 << j)[0]
        lacks += marker_views(tables.uncover[j] * uncover, 1 << j)[1]
    return again, np.ascontiguousarray(handed.T)


@njit(cache=True)
def _visits_sweep(
    turns: np.ndarray,
    rolls: np.ndarray,
    table_of: np.ndarray,
    uncover: np.ndarray,
    bits: np.ndarray,
    probabilities: np.ndarray,
    seven: float,
    again: np.ndarray,
    handed: np.ndarray,
) -> None:
    """:func:`turn_visits_step` compiled, state by state, adding into ``again`` (the player's next turn
    starts) and ``handed`` (the other's, in the other's frame). One thread: each state scatters to
    several others, which threads would write at once."""
    n = turns.shape[0]
    full = n - 1
    for me in range(n):
        for opp in range(n):
            w = turns[me, opp]
            if w == 0.0:
                continue
            for k in range(len(bits)):
                bit = bits[k]
                mass = probabilities[k] * w
                if bit != 0 and me & bit == 0:  # the roller covers it (a full set wins), then chooses
                    mine = me | bit
                    if mine != full:
                        r = rolls[table_of[k], mine, opp]
                        again[mine, opp] += r * mass
                        handed[opp, mine] += (1.0 - r) * mass
                elif bit != 0 and opp & bit == 0:  # the other covers it and rolls next (or wins)
                    theirs = opp | bit
                    if theirs != full:
                        handed[theirs, me] += mass
                else:  # nobody can use it: the roller chooses
                    r = rolls[table_of[k], me, opp]
                    again[me, opp] += r * mass
                    handed[opp, me] += (1.0 - r) * mass
            mass = seven * w
            if me == 0:
                handed[opp, 0] += mass
            else:
                for j in range(uncover.shape[0]):
                    if me >> j & 1:
                        handed[opp, me ^ (1 << j)] += uncover[j, me, opp] * mass


def visits_stepper(
    tables: PolicyTables, totals: tuple[int, ...]
) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """:func:`turn_visits_step` for ``tables`` as a function of the turns: the compiled sweep with
    Numba, the NumPy one otherwise (as :func:`policy_sweeper`)."""
    if HAVE_NUMBA:
        return _CompiledTables(tables, totals).visits
    return lambda turns: turn_visits_step(turns, tables, totals)


def turn_visits(
    first: PolicyTables,
    second: PolicyTables,
    totals: tuple[int, ...] = TOTALS,
    opens: tuple[float, float] = (1.0, 1.0),
    tolerance: float = 1e-12,
) -> tuple[np.ndarray, np.ndarray]:
    """The expected number of times each player starts a turn at each state ([me, opp], ``me`` the
    player's markers) when ``first`` and ``second`` play each other, over ``opens[0]`` games that
    ``first`` opens and ``opens[1]`` that ``second`` opens (the default: one game of each, the two
    games of a duplicate deal). The visits at a player's decisions follow by :func:`roll_visits`.
    Solved as the fixed point of ``visits = start + step(visits)`` (every game ends, so the series
    converges), to ``tolerance``, by :func:`affine_fixed_point`."""
    size = 1 << len(totals)
    start = np.zeros((2, size, size))
    start[0, 0, 0], start[1, 0, 0] = opens
    steps = visits_stepper(first, totals), visits_stepper(second, totals)

    def step(visits: np.ndarray) -> np.ndarray:
        again_first, to_second = steps[0](visits[0])
        again_second, to_first = steps[1](visits[1])
        return start + np.stack([again_first + to_first, again_second + to_second])

    visits, _ = affine_fixed_point(step, start, tolerance)
    return visits[0], visits[1]
