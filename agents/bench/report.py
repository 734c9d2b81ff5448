"""Tables, plots and a JSON leaderboard from a folder of result files (``trash-bench report DIR``).

Everything here is computed from the result files and the tasks' stored reference scores, so the
same files always give the same Markdown, byte for byte (bootstraps are seeded): the README's
leaderboard is this output between its ``<!-- table:leaderboard -->`` and ``<!-- /table:leaderboard -->``
markers (``--readme README.md`` puts it there; ``scripts/readme_tables.py`` checks it is current).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from agents.bench import statistics
from agents.bench.runner import load_results
from agents.bench.tasks import TASKS, load_references
from trash_env.files import atomic_path, write_json, write_text

START, END = "<!-- table:leaderboard -->", "<!-- /table:leaderboard -->"
THRESHOLDS = np.linspace(0.0, 1.25, 51)


def collect(results: list[dict[str, Any]]) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """algorithm -> task -> its runs (sorted by seed), for results of the tasks' current versions."""
    grouped: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for result in results:
        task = TASKS.get(result["task"])
        if task is not None and result["task_version"] == task.version:
            grouped[result["algorithm"]][result["task"]].append(result)
    for per_task in grouped.values():
        for runs in per_task.values():
            runs.sort(key=lambda r: r["seed"])
    return {algorithm: dict(per) for algorithm, per in sorted(grouped.items())}


def finals(runs: list[dict[str, Any]]) -> np.ndarray:
    """The final policies' normalised scores of ``runs``."""
    return np.array([r["final"]["normalized"] for r in runs])


def final_scores(runs_by_task: dict[str, list[dict[str, Any]]]) -> dict[str, np.ndarray]:
    return {task: finals(runs) for task, runs in runs_by_task.items()}


def _interval(point: float, low: float, high: float) -> str:
    return f"{point:.2f} [{low:.2f}, {high:.2f}]"


def _gap(value: float) -> str:
    """``value`` to two decimals, with no "-0.00" for a gap that rounds to nothing."""
    return f"{value:.2f}" if round(value, 2) != 0 else "0.00"


def baseline_scores() -> dict[str, dict[str, float]]:
    """task -> baseline name -> its normalised score (from the stored reference scores)."""
    out: dict[str, dict[str, float]] = {}
    for name, stored in load_references().items():
        task = TASKS.get(name)
        if task is None or stored.get("version") != task.version:
            continue
        out[name] = {baseline: task.normalize(score) for baseline, score in stored.get("baselines", {}).items()}
    return out


def markdown(grouped: dict[str, dict[str, list[dict[str, Any]]]]) -> str:
    """The leaderboard as Markdown: per task, across tasks, probability of improvement."""
    algorithms = list(grouped)
    tasks = [name for name in TASKS if any(name in grouped[a] for a in algorithms)]
    baselines = baseline_scores()
    baseline_names = sorted({b for name in tasks for b in baselines.get(name, {})} - {"random"})
    lines = ["Normalised score (0: `random`, 1: the task's reference agent) of the final policy, mean over seeds", ""]
    lines.append(
        "| task | "
        + " | ".join(f"`{a}`" for a in algorithms)
        + " | "
        + " | ".join(f"`{b}`" for b in baseline_names)
        + " |"
    )
    lines.append("|---|" + "---|" * (len(algorithms) + len(baseline_names)))
    for task in tasks:
        cells = []
        for algorithm in algorithms:
            runs = grouped[algorithm].get(task)
            if not runs:
                cells.append("-")
                continue
            m, low, high, n = statistics.per_task({task: finals(runs)})[task]
            cells.append(f"{_interval(m, low, high) if n > 1 else f'{m:.2f}'} ({n})")
        base = [
            f"{baselines.get(task, {}).get(b, float('nan')):.2f}" if b in baselines.get(task, {}) else "-"
            for b in baseline_names
        ]
        lines.append(f"| `{task}` | " + " | ".join(cells + base) + " |")
    lines += [
        "",
        "(95% Student-t interval over seeds; number of seeds in parentheses; baselines: one evaluation each.)",
        "",
    ]
    lines += best_per_task(grouped, tasks, baselines)
    lines += ["Across tasks (stratified bootstrap over seeds, 95% intervals):", ""]
    lines.append("| algorithm | tasks | " + " | ".join(statistics.AGGREGATES) + " |")
    lines.append("|---|---|" + "---|" * len(statistics.AGGREGATES))
    for algorithm in algorithms:
        scores = final_scores(grouped[algorithm])
        cells = [
            _interval(*statistics.stratified_bootstrap(scores, f, resamples=1000))
            for f in statistics.AGGREGATES.values()
        ]
        lines.append(f"| `{algorithm}` | {len(scores)} | " + " | ".join(cells) + " |")
    if len(algorithms) > 1:
        lines += ["", "Probability of improvement, P(row > column), over the tasks both ran (95% interval):", ""]
        lines.append("| | " + " | ".join(f"`{a}`" for a in algorithms) + " |")
        lines.append("|---|" + "---|" * len(algorithms))
        for a in algorithms:
            row = []
            for b in algorithms:
                if a == b:
                    row.append("-")
                    continue
                p, low, high = statistics.probability_of_improvement_interval(
                    final_scores(grouped[a]), final_scores(grouped[b]), resamples=500
                )
                row.append(_interval(p, low, high))
            lines.append(f"| `{a}` | " + " | ".join(row) + " |")
    lines += ["", "Compute: each algorithm's runs and their wall times summed (W workers take about 1/W of it):"]
    lines += ["", "| algorithm | runs | wall time of its runs |", "|---|---|---|"]
    for algorithm in algorithms:
        runs = [r for per in grouped[algorithm].values() for r in per]
        seconds = sum(r["wall_seconds"] for r in runs)
        lines.append(f"| `{algorithm}` | {len(runs)} | {seconds:,.0f} s ({seconds / 3600:.1f} h) |")
    return "\n".join(lines) + "\n"


def best_per_task(
    grouped: dict[str, dict[str, list[dict[str, Any]]]], tasks: list[str], baselines: dict[str, dict[str, float]]
) -> list[str]:
    """Per task, the learner with the highest mean score, and how far it is from the reference agent
    (normalised 1) and from the optimum where the task has one (its ``optimal`` baseline)."""
    lines = ["Best learned policy on each task, and its gap to the reference agent and to the optimum:", ""]
    lines += ["| task | best learner | score | gap to reference | gap to optimum |", "|---|---|---|---|---|"]
    for task in tasks:
        scores = {a: finals(per[task]) for a, per in grouped.items() if task in per}
        best = max(scores, key=lambda a: (scores[a].mean(), a))
        m, low, high, n = statistics.per_task({task: scores[best]})[task]
        optimal = baselines.get(task, {}).get("optimal")
        score = _interval(m, low, high) if n > 1 else f"{m:.2f}"
        gaps = [_gap(1 - m), _gap(optimal - m) if optimal is not None else "-"]
        lines.append(f"| `{task}` | `{best}` | {score} | " + " | ".join(gaps) + " |")
    return lines + ["", "(A negative gap: the learner scores above the reference.)", ""]


def leaderboard(grouped: dict[str, dict[str, list[dict[str, Any]]]]) -> dict[str, Any]:
    """The same as JSON: per algorithm, per task and aggregate figures, and the wall time of its runs."""
    out: dict[str, Any] = {}
    for algorithm, per in grouped.items():
        scores = final_scores(per)
        out[algorithm] = {
            "tasks": {  # one run has no interval: its low and high are null
                task: dict(
                    zip(("mean", "low", "high", "runs"), map(_json_number, statistics.per_task({task: s})[task]))
                )
                for task, s in scores.items()
            },
            "aggregate": {
                name: dict(zip(("point", "low", "high"), statistics.stratified_bootstrap(scores, f, resamples=1000)))
                for name, f in statistics.AGGREGATES.items()
            },
            "wall_seconds": round(sum(r["wall_seconds"] for runs in per.values() for r in runs), 1),
        }
    return out


def _json_number(value: float) -> float | None:
    """``value`` for JSON, which has no NaN: None (null) instead."""
    return None if isinstance(value, float) and np.isnan(value) else value


def _curves(runs: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """[runs, points]: the normalised score at each evaluation point, by fraction of the budget."""
    fractions = np.array(TASKS[runs[0]["task"]].eval_points)
    values = []
    for run in runs:
        steps = np.array([p["timesteps"] for p in run["curve"]], dtype=float) / run["budget"]
        scores = np.array([p["normalized"] for p in run["curve"]])
        values.append(np.interp(fractions, steps, scores) if len(steps) else np.full(len(fractions), np.nan))
    return fractions, np.array(values)


def plots(grouped: dict[str, dict[str, list[dict[str, Any]]]], folder: Path) -> list[Path]:
    """Performance profiles, sample-efficiency curves per task and aggregated (IQM), as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colour = {algorithm: cycle[i % len(cycle)] for i, algorithm in enumerate(grouped)}  # one per algorithm
    label = {algorithm: f"{algorithm} ({len(per)} tasks)" for algorithm, per in grouped.items()}
    figure, axes = plt.subplots(figsize=(9.5, 4))
    for algorithm, per in grouped.items():
        profile = statistics.performance_profile(final_scores(per), THRESHOLDS)
        axes.plot(THRESHOLDS, profile, label=label[algorithm], color=colour[algorithm])
    axes.set_xlabel("normalised score tau")
    axes.set_ylabel("fraction of runs with score > tau")
    axes.set_title("performance profiles (final policies, every task and seed)")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    written.append(_save(figure, folder / "performance_profiles.png"))
    tasks = [t for t in TASKS if any(t in per for per in grouped.values())]
    columns = 3
    rows = -(-len(tasks) // columns)
    figure, grid = plt.subplots(rows, columns, figsize=(4 * columns, 3 * rows), squeeze=False)
    for axes, task in zip(grid.ravel(), tasks):
        for algorithm, per in grouped.items():
            if task in per:
                fractions, values = _curves(per[task])
                steps = fractions * TASKS[task].budget
                axes.plot(steps, values.mean(axis=0), marker="o", label=algorithm, color=colour[algorithm])
                axes.fill_between(steps, values.min(axis=0), values.max(axis=0), alpha=0.15, color=colour[algorithm])
        axes.set_title(task, fontsize=9)
        axes.grid(alpha=0.3)
    for axes in grid.ravel()[len(tasks) :]:
        axes.axis("off")
    handles = [plt.Line2D([], [], color=colour[a], marker="o", label=a) for a in grouped]
    figure.legend(handles=handles, loc="lower center", ncol=min(len(handles), 4), fontsize=8)
    figure.suptitle("normalised score over timesteps (mean over seeds, band: min-max)")
    bottom = 0.04 + 0.02 * ((len(handles) - 1) // 4)  # room for the legend's rows
    written.append(_save(figure, folder / "sample_efficiency_per_task.png", rect=(0, bottom, 1, 1)))
    figure, axes = plt.subplots(figsize=(9.5, 4))
    for algorithm, per in grouped.items():
        curves = [_curves(runs) for runs in per.values()]
        fractions = curves[0][0]
        stacked = {str(i): c[1] for i, c in enumerate(curves)}
        points = []
        for k in range(len(fractions)):
            at = {task: values[:, k] for task, values in stacked.items()}
            points.append(statistics.stratified_bootstrap(at, statistics.iqm, resamples=300))
        points = np.array(points)
        axes.plot(fractions, points[:, 0], marker="o", label=label[algorithm], color=colour[algorithm])
        axes.fill_between(fractions, points[:, 1], points[:, 2], alpha=0.2, color=colour[algorithm])
    axes.set_xlabel("fraction of the training budget")
    axes.set_ylabel("IQM normalised score (95% CI)")
    axes.set_title("sample efficiency, across tasks")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    written.append(_save(figure, folder / "sample_efficiency.png"))
    return written


def _save(figure: Any, path: Path, rect: tuple[float, float, float, float] = (0, 0, 1, 1)) -> Path:
    import matplotlib.pyplot as plt

    figure.tight_layout(rect=rect)
    with atomic_path(path) as partial:
        figure.savefig(partial, dpi=110)
    plt.close(figure)
    return path


SUMMARY_START, SUMMARY_END = "<!-- table:leaderboard-summary -->", "<!-- /table:leaderboard-summary -->"


def summary(text: str) -> str:
    """The across-tasks table of the leaderboard's Markdown ``text`` (IQM, mean, optimality gap)."""
    start = text.index("| algorithm | tasks |")
    return text[start : text.index("\n\n", start)] + "\n"


def splice(readme: Path, text: str) -> None:
    """Replace what stands between the leaderboard markers of ``readme`` with ``text``, and between
    its summary markers with the across-tasks table; a file with neither is a ValueError."""
    content = readme.read_text()
    found = False
    for start, end, body in ((START, END, text), (SUMMARY_START, SUMMARY_END, summary(text))):
        if start in content and end in content:
            head, rest = content.split(start, 1)
            _, tail = rest.split(end, 1)
            content, found = f"{head}{start}\n{body}{end}{tail}", True
    if not found:
        raise ValueError(f"{readme} has no {START} or {SUMMARY_START} markers for the leaderboard")
    write_text(readme, content)


def report(
    results: Path, out: Path | None = None, readme: Path | list[Path] | None = None, with_plots: bool = True
) -> str:
    """Read ``results``, write ``leaderboard.md``, ``leaderboard.json`` and the plots into ``out``
    (default: ``results``), optionally splice the Markdown into ``readme`` (a file or several);
    returns the Markdown."""
    grouped = collect(load_results(results))
    if not grouped:
        raise ValueError(f"{results} holds no finished result files")
    out = Path(out or results)
    text = markdown(grouped)
    write_text(out / "leaderboard.md", text)
    write_json(out / "leaderboard.json", leaderboard(grouped))
    if with_plots:
        plots(grouped, out)
    for path in [readme] if isinstance(readme, Path) else readme or []:
        splice(path, text)
    return text
