"""Fixtures of the Help Your Neighbor tests: the full game solved once per test session.

A solve takes several seconds (about 8 s on an idle 2-core machine), so the solver's tests and the
cache's share one: :func:`solved` is the solution and a good cache file of it, :func:`solver_cache`
a test's own copy of that file where ``$TRASH_RL_CACHE`` points, and :func:`solves` stands in for
the solver (handing the session's solution back, counting the calls) wherever a test only needs to
know that the game was solved again, not to wait for it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from trash_env.neighbor import solver
from trash_env.neighbor.solver import Solution, cache_path, save_solution, solve_checked


@pytest.fixture(scope="session")
def solved(tmp_path_factory: pytest.TempPathFactory) -> tuple[Solution, Path]:
    """The full game solved (and checked) once per session, and a cache file written from it."""
    solution = solve_checked()
    path = tmp_path_factory.mktemp("solved") / "solution.npz"
    save_solution(solution, path)
    return solution, path


@pytest.fixture
def solver_cache(solved: tuple[Solution, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``$TRASH_RL_CACHE`` pointed at a folder of the test's holding a copy of the good cache file,
    and nothing in memory (as in a new process): the cache file's path."""
    monkeypatch.setenv("TRASH_RL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(solver, "_loaded", {})
    path = cache_path()
    path.parent.mkdir(parents=True)
    shutil.copyfile(solved[1], path)
    return path


@pytest.fixture
def solves(solved: tuple[Solution, Path], monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, ...]]:
    """The solver replaced by one handing back the session's solution: the totals of each call."""
    calls: list[tuple[int, ...]] = []

    def solve(totals: tuple[int, ...] = solver.TOTALS, tolerance: float = solver.TOLERANCE) -> Solution:
        calls.append(tuple(totals))
        return solved[0]

    monkeypatch.setattr(solver, "solve", solve)
    return calls
