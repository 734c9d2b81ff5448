"""Exploitability and cross-play of a results folder's runs on the two-player tasks, for the report.

Two measurements go beyond a fixed opponent, and both are made on the runs' kept final policies
after the sweep, by anyone, with the published runs:

- **Exploitability** (:func:`exploit_runs`, ``trash-bench exploit RESULTS --task T``): how much the
  best opponent wins against each run's policy, in score difference per deal (the game's value, 0,
  taken off). On a solved task (``hyn-2p``, ``hyn-2p-selfplay``) it is exact for every run whose
  policy decides in batches (:func:`agents.evaluation.exploitability.exploitability`); elsewhere it
  is the lower bound a trained best response finds (:func:`agents.bench.exploit.trained_exploitability`),
  for the best run of each algorithm (the highest final score: the run a reader would pick).
  Written to ``RESULTS/exploit-TASK.json``.
- **Cross-play** (:mod:`agents.bench.crossplay`, ``trash-bench crossplay``): every run and baseline
  against each other, Bradley-Terry ratings on the Elo scale, in ``RESULTS/crossplay-TASK.json``.

:mod:`agents.bench.measurements` reads both kinds of file for the report (:mod:`agents.bench.report`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.bench.measurements import EXPLOIT_FORMAT as FORMAT
from agents.bench.measurements import exploit_name
from trash_env.files import write_json


def _best_runs(entries: list[Any]) -> list[Any]:
    """The run with the highest final score of each algorithm (ties: the first by name)."""
    best: dict[str, Any] = {}
    for entry in entries:
        algorithm = entry.result.algorithm
        if algorithm not in best or entry.result.final.headline > best[algorithm].result.final.headline:
            best[algorithm] = entry
    return list(best.values())


def exploit_runs(
    results: Path,
    task_name: str,
    budget: int | None = None,
    deals: int | None = None,
    seed: int | None = None,
    skip_missing: bool = False,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The exploitability of the runs of ``task_name`` in ``results`` (module docstring): exact for
    every run on a solved task, else the trained lower bound for each algorithm's best run (``budget``
    timesteps, default the task's; ``deals`` test deals and test ``seed`` as
    :func:`~agents.bench.exploit.trained_exploitability` has them). Written to
    ``RESULTS/exploit-TASK.json`` after each run, so a stopped command keeps what it measured; returns
    the file's content."""
    from agents.bench import exact
    from agents.bench.crossplay import check_task, collect
    from agents.bench.runner import package_version
    from trash_env.files import check_output_path

    task = check_task(task_name)
    results = Path(results)
    path = results / exploit_name(task)
    check_output_path("--results", path)
    entries, agents, left_out = collect(results, task, skip_missing)
    runs = [entry for entry in entries if entry.result is not None]
    data: dict[str, Any] = {
        "format": FORMAT,
        "task": task.name,
        "task_version": task.version,
        "kind": "exact" if task.exact else "bound",
        "runs": [],
        "left_out": left_out,
        "package_version": package_version(),
    }
    if task.exact:
        from agents.evaluation.exploitability import exploitability

        for entry in runs:
            agent = agents[entry.name]
            if not exact.applies(task, agent):
                data["left_out"].append({"result": entry.path, "reason": "its policy does not decide in batches"})
                continue
            if progress:
                progress(f"{task.name} {entry.name}: exact exploitability")
            found = exploitability(agent, examples=0, versus_optimal=False)
            data["runs"].append(_run(entry, found.exploitability))
            write_json(path, data)
    else:
        from agents.bench.exploit import trained_exploitability

        for entry in _best_runs(runs):
            if progress:
                progress(f"{task.name} {entry.name}: training a best response")
            trained = trained_exploitability(
                str(results / entry.path), task, budget, deals=deals, seed=seed, exact=False, progress=progress
            )
            point = trained["points"][-1]
            mean = point["mean"]
            bound = {"low": mean["low"], "high": mean["high"], "budget": point["budget"], "deals": mean["deals"]}
            data["runs"].append(_run(entry, mean["score"]) | bound | {"test_seed": trained["test_seed"]})
            write_json(path, data)
    write_json(path, data)
    return data


def _run(entry: Any, value: float) -> dict[str, Any]:
    return {
        "run": entry.name,
        "result": entry.path,
        "algorithm": entry.result.algorithm,
        "seed": entry.result.seed,
        "exploitability": value,
    }
