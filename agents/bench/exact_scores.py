"""Exact scores on the benchmark's solved tasks: ``hyn-2p`` and ``hyn-2p-selfplay`` (``Task.exact``).

Two-player Help Your Neighbor is solved, so a policy that decides in batches (``agent.batchable``: the
built-ins' networks, :class:`agents.linear.LinearAgent`, the baselines) has an exact score against any
opponent: its decision at every state is read off once
(:func:`agents.evaluation.exact.decision_tables`) and the two policies are evaluated against each other
over every state (:func:`agents.evaluation.exact.exact_pair`). The exact score is the expected score
difference per deal (a deal played from both seats, as on duplicate deals), of which the sampled
duplicate-deal score is an estimate, and it is normalised the same way, with the exact scores of
``random`` and the reference agent against the same opponent as 0 and 1 (:func:`exact_anchors`,
stored by ``trash-bench references`` beside the sampled anchors).

"Exact" within :data:`EXACT_TOLERANCE`: the policy evaluation stops when no value moves by more than
that in a sweep, which leaves every score within about 1e-7 of the limit (far below the 4 decimals
reported, and the sampled estimate's interval of about +-0.06 on 2,000 deals). The curve's points,
shown to two decimals and never evaluated again, stop at :data:`CURVE_TOLERANCE` (within about 1e-4,
in about two thirds of the sweeps); the final and held-out scores, which ``trash-bench evaluate`` reproduces,
at :data:`EXACT_TOLERANCE`. The assumptions of
:mod:`agents.evaluation.exact` hold (no privilege marker, turn 0, no turn limit), which is why the
sampled estimate on the test deals stays beside the exact score as a check.

Cost (``benchmarks/bench_exact.py``): a policy network's tables a few seconds (a value table's, read
off its lookup tables, a fraction of a second), a pair about 10 s on one core at
:data:`EXACT_TOLERANCE`; a run of an exact task scores its five curve points, its final and its
held-out opponent this way. The solver's sweeps give the same result on any number of threads
(tested), so a run gives them the cores it has to itself
(:func:`set_solver_threads`, which the runner sets: all of the machine's for a run alone, a share
when several run side by side), whatever the threads its training is limited to.
"""

from __future__ import annotations

import functools
from typing import Any

from agents.base import Agent
from agents.bench.tasks import Task, load_references
from trash_env.neighbor.game import GAME as NEIGHBOR

EXACT_TOLERANCE = 1e-8
CURVE_TOLERANCE = 1e-5  # the curve's points (see the module docstring)
SCORING = ("exact", "sampled")  # what a result file's "scoring" says
_SOLVER_THREADS: int | None = None  # Numba's threads for the solver's sweeps (None: the process's)


def set_solver_threads(count: int | None) -> None:
    """The threads :func:`exact_score` gives the solver's sweeps (their results do not depend on it);
    None: as many as the process's other Numba kernels."""
    global _SOLVER_THREADS
    _SOLVER_THREADS = count


def solver_threads() -> Any:
    """A context in which the solver's sweeps run on :func:`set_solver_threads`'s threads."""
    from agents.processes import numba_threads

    return numba_threads(_SOLVER_THREADS)


def applies(task: Task, agent: Any) -> bool:
    """Whether ``agent`` is scored exactly on ``task``: an exact task and an agent that decides in batches."""
    return task.exact and isinstance(agent, Agent) and bool(getattr(agent, "batchable", False))


@functools.cache
def baseline_tables(name: str) -> Any:
    """A baseline's decision tables (once per process): ``optimal``'s from the solution itself."""
    from agents.evaluation.exact import decision_tables
    from agents.registry import make_agent
    from trash_env.neighbor.solver import load_solution, optimal_tables

    if name == "optimal":
        return optimal_tables(load_solution())
    return decision_tables(make_agent(name, game=NEIGHBOR.name))


def tables_of(agent: Agent) -> Any:
    """The agent's decision tables (:func:`agents.evaluation.exact.decision_tables`)."""
    from agents.evaluation.exact import decision_tables

    return decision_tables(agent)


def exact_score(tables: Any, opponent: str, tolerance: float = EXACT_TOLERANCE) -> float:
    """The exact score difference per deal of the policy with ``tables`` against the baseline ``opponent``."""
    from agents.evaluation.exact import exact_pair

    with solver_threads():
        pair = exact_pair(("policy", tables), (opponent, baseline_tables(opponent)), tolerance)
    return pair.score_difference


def baseline_scores(task: Task, baselines: list[str], opponent: str) -> dict[str, float]:
    """Each baseline's exact score against ``opponent`` (the opponent against itself: 0, by symmetry)."""
    return {name: 0.0 if name == opponent else exact_score(baseline_tables(name), opponent) for name in baselines}


@functools.cache
def exact_anchors(task_name: str, opponent: str) -> dict[str, float]:
    """``random``'s and the reference agent's exact scores against ``opponent``: stored by
    ``trash-bench references`` (``"exact"`` in ``references.json``), else computed here (once per
    process, about a minute)."""
    from agents.bench.tasks import get_task

    task = get_task(task_name)
    stored = load_references().get(task.name, {})
    if stored.get("version") == task.version and "exact" in stored:
        section = stored["exact"] if opponent == task.reference else stored["exact"]["heldout"].get(opponent)
        if section is not None:
            return {"random": section["baselines"]["random"], "reference": section["baselines"][task.reference]}
    scores = baseline_scores(task, ["random", task.reference], opponent)
    return {"random": scores["random"], "reference": scores[task.reference]}


def exact_entry(task: Task, tables: Any, opponent: str, tolerance: float = EXACT_TOLERANCE) -> dict[str, Any]:
    """``{"score", "normalized", "anchors"}``: the exact score against ``opponent``, normalised with
    the exact anchors (:func:`exact_anchors`)."""
    score = exact_score(tables, opponent, tolerance)
    anchors = exact_anchors(task.name, opponent)
    normalized = (score - anchors["random"]) / (anchors["reference"] - anchors["random"])
    return {"score": score, "normalized": normalized, "anchors": dict(anchors)}


def references(task: Task, baselines: list[str]) -> dict[str, Any]:
    """The ``"exact"`` section of a task's stored references: every baseline's exact score against the
    reference and against each held-out opponent."""
    return {
        "baselines": baseline_scores(task, baselines, task.reference),
        "heldout": {opponent: {"baselines": baseline_scores(task, baselines, opponent)} for opponent in task.heldout},
        "tolerance": EXACT_TOLERANCE,
    }


EXACT_FIELDS = ("exact", "exploitability")  # computed by the exact solver, which converges to a tolerance


def reproduced(again: Any, stored: Any, solved: bool = False) -> str | None:
    """How ``again`` (a re-evaluation's final and held-out scores) reproduces ``stored``: ``"exactly"``
    (the same numbers, bit for bit), ``"within tolerance"`` (the games and sampled scores exactly, the
    exact solver's figures within :data:`EXACT_TOLERANCE`: the solver converges
    to that tolerance, and a change of summation order since the run moves its last digits), or None
    (they differ)."""
    if again == stored:
        return "exactly"
    if isinstance(again, dict) and isinstance(stored, dict):
        if again.keys() != stored.keys():
            return None
        found = [reproduced(again[key], stored[key], solved or key in EXACT_FIELDS) for key in again]
    elif isinstance(again, list) and isinstance(stored, list):
        if len(again) != len(stored):
            return None
        found = [reproduced(a, b, solved) for a, b in zip(again, stored, strict=True)]
    else:
        numbers = isinstance(again, float) and isinstance(stored, float)
        return "within tolerance" if solved and numbers and abs(again - stored) <= EXACT_TOLERANCE else None
    if None in found:
        return None
    return "exactly" if all(how == "exactly" for how in found) else "within tolerance"
