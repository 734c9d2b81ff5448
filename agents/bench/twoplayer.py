"""Exploitability and cross-play of a results folder's runs on the two-player tasks, for the report.

Two measurements go beyond a fixed opponent, and both are made on the runs' kept final policies
after the sweep, by anyone, with the published runs:

- **Exploitability** (:func:`exploit_runs`, ``trash-bench exploit RESULTS --task T``): how much the
  best opponent wins against each run's policy, in score difference per deal (the game's value, 0,
  taken off). On a solved task (``hyn-2p``, ``hyn-2p-selfplay``) it is exact for every run whose
  policy decides in batches (:func:`agents.evaluation.exploitability.exploitability`); elsewhere it
  is the lower bound a trained best response finds (:func:`agents.bench.exploit.trained_exploitability`),
  for the best run of each algorithm (the highest final score: the run a reader would pick).
  Written to ``RESULTS/exploit-TASK.json``, each row with the SHA-256 of the policy file it measured;
  with ``resume`` a rerun keeps the rows of that file whose policy and settings are unchanged
  (:func:`kept_rows`), so a long measurement stopped part-way, or redone after new runs came in,
  measures only what is new.
- **Cross-play** (:mod:`agents.bench.crossplay`, ``trash-bench crossplay``): every run and baseline
  against each other, Bradley-Terry ratings on the Elo scale, in ``RESULTS/crossplay-TASK.json``.

:mod:`agents.bench.measurements` reads both kinds of file for the report (:mod:`agents.bench.report`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.bench.measurements import EXPLOIT_FORMAT as FORMAT
from agents.bench.store import exploit_name
from trash_env.files import write_json


def _best_runs(results: Path, task: Any) -> list[tuple[str, Any]]:
    """The run with the highest final score of each algorithm and budget fraction (ties: the first by
    name) among the task's valid runs of its current version in ``results``, whether or not its policy
    is kept: (its result file relative to ``results``, its result)."""
    from agents.bench.store import scan

    best: dict[tuple[str, float], tuple[str, Any]] = {}
    good, _ = scan(results)
    for path, run in sorted(good.items()):
        if run.task != task.name or run.task_version != task.version or not run.is_valid:
            continue
        key = (run.algorithm, run.budget_fraction)
        if key not in best or run.final.headline > best[key][1].final.headline:
            best[key] = (path.relative_to(results).as_posix(), run)
    return list(best.values())


def exploit_runs(
    results: Path,
    task_name: str,
    budget: int | None = None,
    deals: int | None = None,
    seed: int | None = None,
    skip_missing: bool = False,
    progress: Callable[[str], None] | None = None,
    resume: bool = False,
) -> dict[str, Any]:
    """The exploitability of the runs of ``task_name`` in ``results`` (module docstring): exact for
    every run on a solved task, else the trained lower bound for each algorithm's best run (``budget``
    timesteps, default the task's; ``deals`` test deals and test ``seed`` as
    :func:`~agents.bench.exploit.trained_exploitability` has them). Written to
    ``RESULTS/exploit-TASK.json`` after each run, so a stopped command keeps what it measured, and with
    ``resume`` the rows that file already holds for the same policy files and settings are kept, not
    measured again (:func:`kept_rows`); returns the file's content."""
    from agents.bench import exact_scores as exact
    from agents.bench.crossplay import collect
    from agents.bench.exploit import _file_hash, check_task
    from agents.bench.runner import package_version
    from agents.bench.tasks import get_task
    from trash_env.files import check_output_path

    task = check_task(get_task(task_name))
    results = Path(results)
    path = results / exploit_name(task)
    check_output_path("--results", path)
    entries, agents, left_out = collect(results, task, skip_missing or not task.exact)
    runs = [entry for entry in entries if entry.result is not None]
    if not task.exact:
        # each algorithm's best run (of each budget fraction) is measured, so only its policy must be kept
        measured = {name for name, _ in _best_runs(results, task)}
        left_out = [line for line in left_out if line["result"] in measured]
        if left_out and not skip_missing:
            raise ValueError(f"{results / left_out[0]['result']}: {left_out[0]['reason']}")
        runs = [entry for entry in runs if entry.path in measured]
    data: dict[str, Any] = {
        "format": FORMAT,
        "task": task.name,
        "task_version": task.version,
        "kind": "exact" if task.exact else "bound",
        "method": "exact" if task.exact else "trained",  # trash-bench exploit's --method of the bounds
        "runs": [],
        "left_out": left_out,
        "package_version": package_version(),
    }
    measured_at = {"budget": budget or task.budget, "deals": deals or task.final_deals, "test_seed": seed}
    settings = {} if task.exact else measured_at
    kept = kept_rows(path, data, settings) if resume else {}

    def measure(entry: Any, how: Callable[[], dict[str, Any]]) -> None:
        """The entry's row: the kept one if its policy file is unchanged, else measured by ``how``."""
        digest = _file_hash(str(results / entry.path), task)  # None: no such result file (a stand-in)
        row = kept.get((entry.path, digest)) if digest is not None else None
        if row is None:
            row = how() | ({} if digest is None else {"policy_sha256": digest})
        elif progress:
            progress(f"{task.name} {entry.name}: kept from {path.name} (its policy is unchanged)")
        data["runs"].append(row)
        write_json(path, data)

    if task.exact:
        from agents.evaluation.exploitability import exploitability

        for entry in runs:
            agent = agents[entry.name]
            if not exact.applies(task, agent):
                data["left_out"].append({"result": entry.path, "reason": "its policy does not decide in batches"})
                continue

            def exact_row(entry: Any = entry, agent: Any = agent) -> dict[str, Any]:
                if progress:
                    progress(f"{task.name} {entry.name}: exact exploitability")
                return _run(entry, exploitability(agent, examples=0, versus_optimal=False).exploitability)

            measure(entry, exact_row)
    else:
        from agents.bench.exploit import trained_exploitability

        for entry in runs:

            def bound_row(entry: Any = entry) -> dict[str, Any]:
                if progress:
                    progress(f"{task.name} {entry.name}: training a best response")
                trained = trained_exploitability(
                    str(results / entry.path), task, budget, deals=deals, seed=seed, exact=False, progress=progress
                )
                point = trained["points"][-1]
                mean = point["mean"]
                bound = {"low": mean["low"], "high": mean["high"], "budget": point["budget"], "deals": mean["deals"]}
                return _run(entry, mean["score"]) | bound | {"test_seed": trained["test_seed"]}

            measure(entry, bound_row)
    write_json(path, data)
    return data


def kept_rows(path: Path, data: dict[str, Any], settings: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """The rows of the exploitability file at ``path`` that a resumed measurement keeps, by (result
    file, the SHA-256 of the policy it measured): none if there is no such file, or if it was measured
    otherwise than ``data`` says (another kind, method or task version); of a bound, only the rows
    measured at ``settings``' budget and, where given, its deals and test seed. A row without its
    policy's SHA-256 (a file written before they were recorded) is measured again. A damaged file is
    refused in one line naming it (:func:`agents.bench.measurements.check_exploit`), before anything
    is measured."""
    from agents.bench.measurements import LIMIT, check_exploit
    from agents.learned import parse_json
    from trash_env.files import read_bounded

    if not path.is_file():
        return {}
    before = check_exploit(parse_json(read_bounded(path, LIMIT), str(path)), str(path))
    if any(before.get(key) != data[key] for key in ("task", "task_version", "kind", "method")):
        return {}
    wanted = {key: value for key, value in settings.items() if value is not None}
    return {
        (row["result"], row["policy_sha256"]): row
        for row in before["runs"]
        if isinstance(row.get("result"), str)
        and isinstance(row.get("policy_sha256"), str)
        and all(row.get(key) == value for key, value in wanted.items())
    }


def _run(entry: Any, value: float) -> dict[str, Any]:
    return {
        "run": entry.name,
        "result": entry.path,
        "algorithm": entry.result.algorithm,
        "budget_fraction": entry.result.budget_fraction,
        "seed": entry.result.seed,
        "exploitability": value,
    }
