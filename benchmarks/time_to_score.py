"""Time to a normalised score (issue 50): how many seconds of training ``fast_ppo`` and MaskablePPO
take to reach 0.95 normalised on a task, in one run.

Each algorithm is the ``trash-bench`` built-in, trained in this process on one torch thread with the
task's budget, opponents and seed, as a run of the suite trains it, but checkpointed at many points
(``--points``, spaced evenly on a log scale from ``--first`` of the budget to all of it, since both
learners pass 0.95 on ``trash-standard-2p`` within its first tenth) instead of the curve's five. At each checkpoint the
training time so far is read (the time spent keeping the checkpoint is left out) and a deep copy
of the policy is kept; after training each kept policy is scored on the task's validation deals (as many as a curve
point, normalised with the same anchors), so the scoring costs no training time. A run's **time to
the target** is the training time of its first checkpoint at or above ``--target``; it is an upper
bound at the points' resolution (a learner checkpoints only between its updates: ``fast_ppo`` every
rollout of 64 games x 32 steps, SB3 at any step), and a run that never reaches it has none. Each
point is scored on as many validation deals as a curve point (500 on ``trash-standard-2p``), so a
point can pass the target by luck: the median over seeds is reported.

    python benchmarks/time_to_score.py                                 # trash-standard-2p, 5 seeds
    python benchmarks/time_to_score.py --json docs/speed/time_to_score.json   # make bench
    python benchmarks/time_to_score.py --task hyn-2p --algorithms maskable_ppo fast_ppo_throughput \
        --fractions 1 10 --target 0.8 --json docs/speed/hyn_ten_times.json   # ten times the budget

``--fractions`` gives each algorithm its own budget (a fraction of the task's, one per algorithm:
the time saved spent on more timesteps). On a task scored exactly (``hyn-2p``) each run's final
policy is also scored exactly against the reference (the optimum there).

Needs the train and batched extras. Run it on an idle machine: it measures wall time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository, for agents

import numpy as np
from figures import one_torch_thread, write_figures

ALGORITHMS = ("maskable_ppo", "fast_ppo")


def snapshot(agent: Any) -> Any:
    """A copy of ``agent`` that later training leaves alone (an SB3 policy in memory: its network copied)."""
    import copy

    from agents.learned import LearnedAgent

    if isinstance(agent, LearnedAgent) and agent.path is None:
        return LearnedAgent(copy.deepcopy(agent.policy), dict(agent.metadata), name=agent.name)
    return copy.deepcopy(agent)


def train_timed(
    task: Any, algorithm_name: str, seed: int, points: list[int], folder: Path, budget: int
) -> list[dict[str, Any]]:
    """Train the built-in on ``task`` with ``seed`` for ``budget`` timesteps, keeping a copy of its policy
    at each of ``points``: ``[{"timesteps", "seconds", "policy"}]``, the training seconds so far at each."""
    from agents.bench.algorithms import TaskContext, as_agent, load_algorithm, make_opponents

    algorithm = load_algorithm(algorithm_name)
    kept: list[dict[str, Any]] = []
    paused = 0.0
    work = folder / "work"
    work.mkdir(parents=True, exist_ok=True)
    context = TaskContext(task, seed, budget, points, work, make_opponents(task))

    def checkpoint(timesteps: Any, policy: Any) -> None:
        nonlocal paused
        now = time.perf_counter()
        seconds = now - start - paused
        kept.append({"timesteps": int(timesteps), "seconds": seconds, "policy": snapshot(as_agent(policy, task))})
        paused += time.perf_counter() - now

    start = time.perf_counter()
    algorithm.train(context, checkpoint)
    return kept


def scored(task: Any, kept: list[dict[str, Any]], validation: Any) -> list[dict[str, Any]]:
    """Each kept policy's normalised score on the validation deals, beside its timesteps and seconds."""
    return [
        {
            "timesteps": entry["timesteps"],
            "seconds": round(entry["seconds"], 2),
            "normalized": round(validation.score(entry["policy"])["normalized"], 4),
        }
        for entry in kept
    ]


def time_to(curve: list[dict[str, Any]], target: float) -> float | None:
    """The training seconds of the first point at or above ``target``, or None."""
    return next((point["seconds"] for point in curve if point["normalized"] >= target), None)


def main() -> None:
    from agents.bench.runner import ValidationDeals
    from agents.bench.tasks import get_task

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="trash-standard-2p")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--points", type=int, default=30, help="checkpoints, evenly spaced on a log scale")
    parser.add_argument("--first", type=float, default=0.002, help="the first checkpoint, a fraction of the budget")
    parser.add_argument("--target", type=float, default=0.95, help="the normalised score to reach")
    parser.add_argument("--algorithms", nargs="+", default=list(ALGORITHMS))
    parser.add_argument("--fractions", nargs="+", type=float, default=None, help="each algorithm's budget fraction")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    args = parser.parse_args()
    print(one_torch_thread())
    task = get_task(args.task)
    fractions = args.fractions or [1.0] * len(args.algorithms)
    if len(fractions) != len(args.algorithms):
        parser.error("--fractions: one per algorithm")
    validation = ValidationDeals(task, task.scaled_deals()[0])
    figures: dict[str, Any] = {"task": task.name, "budget": task.budget, "target": args.target, "runs": {}}
    with tempfile.TemporaryDirectory(prefix="time-to-score-") as temp:
        for name, fraction in zip(args.algorithms, fractions, strict=True):
            budget = task.scaled_budget(fraction)
            points = sorted({round(budget * share) for share in np.geomspace(args.first, 1.0, args.points)})
            label = name if fraction == 1.0 else f"{name} x{fraction:g}"
            runs = []
            for seed in range(args.seeds):
                kept = train_timed(task, name, seed, points, Path(temp) / f"{name}-{seed}", budget)
                curve = scored(task, kept, validation)
                reached = time_to(curve, args.target)
                run = {
                    "seed": seed,
                    "budget": budget,
                    "curve": curve,
                    "time_to_target": reached,
                    "train_seconds": curve[-1]["seconds"],
                }
                exact = validation.exact(kept[-1]["policy"])
                if exact is not None:
                    run["exact"] = {"score": round(exact["score"], 4), "normalized": round(exact["normalized"], 4)}
                runs.append(run)
                print(
                    f"{label} seed {seed}: trained {curve[-1]['seconds']:.1f} s, final {curve[-1]['normalized']:.3f} "
                    f"normalised"
                    + (f" ({run['exact']['normalized']:.3f} exact)" if exact else "")
                    + f", {args.target} reached "
                    + (f"after {reached:.1f} s" if reached is not None else "never")
                )
            figures["runs"][label] = runs
    print(f"\n{task.name}, {args.seeds} seeds, time to {args.target} normalised (median over the seeds that reach it):")
    medians = {}
    for name, runs in figures["runs"].items():
        times = [run["time_to_target"] for run in runs if run["time_to_target"] is not None]
        trained = statistics.median(run["train_seconds"] for run in runs)
        medians[name] = statistics.median(times) if times else None
        shown = f"{medians[name]:.1f} s" if times else "never"
        print(f"  {name}: {shown} ({len(times)} of {len(runs)} seeds reach it); whole training {trained:.1f} s")
    labels = list(medians)
    if len(labels) >= 2 and medians[labels[0]] and medians[labels[1]]:
        ratio = medians[labels[1]] / medians[labels[0]]
        figures["ratio"] = round(ratio, 3)
        print(f"  {labels[1]} / {labels[0]}: {ratio:.3f}")
    write_figures(args.json, figures)


if __name__ == "__main__":
    main()
