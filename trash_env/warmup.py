"""Compile every Numba kernel of the environments ahead of their first use (``trash-bench warmup``).

Numba compiles a kernel at its first call and caches it on disk (``cache=True``), so the first
batched evaluation, training run or exact evaluation in a new environment waits for the compile
(:mod:`trash_env.jit` says so in one line), and every later one loads the cache. :func:`warm_up` runs
each kernel once on a tiny input of the types the package uses (both engines in their fast and
exact modes, one thread and parallel; the exact solver's sweeps on a reduced game), so that the
wait happens once, when the user chooses: after ``pip install``, or in a container's build. The
measured costs are in docs/batched.md (``python benchmarks/compile_cost.py``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from trash_env.jit import HAVE_NUMBA, silent_compiles


def _run_engine(batch_type: Callable[..., Any], config: Any, baselines: tuple[str, str]) -> None:
    """An engine's kernels: fast mode (a seat asked, one in-engine baseline), exact mode (two in-engine
    baselines) and single-agent, each on one thread and in parallel."""
    asked, other = baselines
    for parallel in (False, True):
        batch = batch_type(config, 2, seed=0, policies=[None, asked], parallel=parallel)
        _play(batch.reset()[1], batch.step)
        batch_type(config, 2, exact=True, policies=[asked, other], parallel=parallel).reset(seeds=[0, 1])
        single = batch_type(config, 2, seed=0, opponents=[asked], parallel=parallel)
        _play(single.reset()[1], single.step)


def _run_trash() -> None:
    from trash_env.trash import batched
    from trash_env.trash.config import make_config

    _run_engine(batched.TrashBatch, make_config(num_players=2), ("greedy", "counter"))


def _run_neighbor() -> None:
    from trash_env.neighbor import batched
    from trash_env.neighbor.rules import make_config

    _run_engine(batched.NeighborBatch, make_config(num_players=2), ("heuristic", "roller"))


def _run_solver() -> None:
    """The solver's compiled sweeps, on the game of three markers (the kernels' types are the full game's)."""
    from trash_env.neighbor import solver

    totals = (2, 3, 4)
    tables = solver.optimal_tables(solver.solve(totals))
    solver.evaluate_policies(tables, tables, totals)
    solver.best_response(tables, totals)
    solver.turn_visits_step(np.zeros((8, 8)), tables, totals)


def _play(masks: np.ndarray, step: Callable[[np.ndarray], tuple[np.ndarray, ...]], moves: int = 8) -> None:
    """A few steps of a batch with each game's first legal action."""
    for _ in range(moves):
        masks = step(np.asarray(masks).argmax(axis=1))[1]


KERNELS: dict[str, Callable[[], None]] = {
    "the Trash batched engine": _run_trash,
    "the Help Your Neighbor batched engine": _run_neighbor,
    "the exact solver of Help Your Neighbor": _run_solver,
}
"""Everything :func:`warm_up` compiles, by the name the compile notice gives it."""


def warm_up(report: Callable[[str, float], None] | None = None) -> dict[str, float]:
    """Compile (or load from the cache) every kernel of :data:`KERNELS`; the seconds each took, also
    passed to ``report`` as they finish. Without Numba there is nothing to compile: an empty dict."""
    if not HAVE_NUMBA:
        return {}
    seconds = {}
    for what, run in KERNELS.items():
        start = time.perf_counter()
        with silent_compiles():  # the caller says what is compiling
            run()
        seconds[what] = time.perf_counter() - start
        if report is not None:
            report(what, seconds[what])
    return seconds
