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

import functools
import time
from collections.abc import Callable

import numpy as np

from trash_env.game import GAMES, Game
from trash_env.jit import HAVE_NUMBA, silent_compiles


def _run_engine(game: Game) -> None:
    """A game's engine kernels: fast mode (a seat asked, one in-engine baseline), exact mode (two in-engine
    baselines) and single-agent, each on one thread and in parallel."""
    engine = game.engine
    batch_type, config = engine.batch_type(), game.make_config(num_players=2)
    baselines = [name for name in engine.policies if name != "random"] or list(engine.policies)
    asked, other = baselines[0], baselines[1 % len(baselines)]
    for parallel in (False, True):
        batch = batch_type(config, 2, seed=0, policies=[None, asked], parallel=parallel)
        _play(batch.reset()[1], batch.step)
        batch_type(config, 2, exact=True, policies=[asked, other], parallel=parallel).reset(seeds=[0, 1])
        single = batch_type(config, 2, seed=0, opponents=[asked], parallel=parallel)
        _play(single.reset()[1], single.step)


def _play(masks: np.ndarray, step: Callable[[np.ndarray], tuple[np.ndarray, ...]], moves: int = 8) -> None:
    """A few steps of a batch with each game's first legal action."""
    for _ in range(moves):
        masks = step(np.asarray(masks).argmax(axis=1))[1]


def kernels() -> dict[str, Callable[[], None]]:
    """Everything :func:`warm_up` compiles, by the name the compile notice gives it: each game's engine,
    then each game's own kernels beyond it (its descriptor's ``warm_up``: the exact solver)."""
    found: dict[str, Callable[[], None]] = {}
    for game in GAMES.values():
        if game.engine is not None:
            found[f"the {game.title} batched engine"] = functools.partial(_run_engine, game)
    for game in GAMES.values():
        found.update(game.warm_up or {})
    return found


def warm_up(report: Callable[[str, float], None] | None = None) -> dict[str, float]:
    """Compile (or load from the cache) every kernel of :func:`kernels`; the seconds each took, also
    passed to ``report`` as they finish. Without Numba there is nothing to compile: an empty dict."""
    if not HAVE_NUMBA:
        return {}
    seconds = {}
    for what, run in kernels().items():
        start = time.perf_counter()
        with silent_compiles():  # the caller says what is compiling
            run()
        seconds[what] = time.perf_counter() - start
        if report is not None:
            report(what, seconds[what])
    return seconds
