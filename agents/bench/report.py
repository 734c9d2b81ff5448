"""Tables, plots and a JSON leaderboard from a folder of result files (``trash-bench report DIR``).

Everything here is computed from the result files and the tasks' stored reference scores, so the
same files always give the same Markdown, byte for byte (bootstraps are seeded): the README's
leaderboard is this output between its ``<!-- table:leaderboard -->`` and ``<!-- /table:leaderboard -->``
markers (``--readme README.md`` puts it there; ``scripts/readme_tables.py`` checks it is current).

Nothing is written unless every result file of the folder is good (:mod:`agents.bench.results`: a
bad one is named with what is wrong, and the report refused) and every ``--readme`` has its markers.
Names are shown through :func:`agents.bench.markdown.literal` (code if plain, escaped otherwise).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from agents.bench import statistics
from agents.bench.markdown import literal, marked_names, markers
from agents.bench.markdown import splice as splice_marked
from agents.bench.markdown import table as markdown_table
from agents.bench.results import Result
from agents.bench.runner import load_results
from agents.bench.tasks import TASKS, load_references
from trash_env.files import atomic_path, check_output_path, write_json, write_text

THRESHOLDS = np.linspace(0.0, 1.25, 51)
Grouped = dict[str, dict[str, list[Result]]]  # algorithm -> task -> its runs (result files)
OUTPUTS = ("leaderboard.md", "leaderboard.json", "performance_profiles.png")  # checked writable first


def collect(results: list[Result]) -> Grouped:
    """algorithm -> task -> its runs (sorted by seed), for results of the tasks' current versions."""
    grouped: Grouped = defaultdict(lambda: defaultdict(list))
    for result in results:
        task = TASKS.get(result.task)
        if task is not None and result.task_version == task.version:
            grouped[result.algorithm][result.task].append(result)
    for per_task in grouped.values():
        for runs in per_task.values():
            runs.sort(key=lambda r: r.seed)
    return {algorithm: dict(per) for algorithm, per in sorted(grouped.items())}


def _tasks(grouped: Grouped) -> list[str]:
    """The tasks any algorithm of ``grouped`` ran, in registry order."""
    return [name for name in TASKS if any(name in per for per in grouped.values())]


def finals(runs: list[Result]) -> np.ndarray:
    """The final policies' normalised scores of ``runs``."""
    return np.array([r.final.normalized for r in runs])


def final_scores(runs_by_task: dict[str, list[Result]]) -> dict[str, np.ndarray]:
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


def markdown(grouped: Grouped) -> str:
    """The leaderboard as Markdown: per task, the best learner of each, across tasks, probability of
    improvement and compute, each a paragraph with its table."""
    tasks = _tasks(grouped)
    baselines = baseline_scores()
    sections = [
        per_task_table(grouped, tasks, baselines),
        "\n".join(best_per_task(grouped, tasks, baselines)),
        _section(
            "Across tasks (stratified bootstrap over seeds, 95% intervals):",
            ["algorithm", "tasks", *statistics.AGGREGATES],
            [
                [literal(algorithm), str(len(per)), *_aggregates(final_scores(per))]
                for algorithm, per in grouped.items()
            ],
        ),
    ]
    if len(grouped) > 1:
        sections.append(
            _section(
                "Probability of improvement, P(row > column), over the tasks both ran (95% interval):",
                ["", *_names(grouped)],
                [[literal(a), *(_improvement(grouped, a, b) for b in grouped)] for a in grouped],
            )
        )
    compute = []
    for algorithm, per in grouped.items():
        seconds = sum(r.wall_seconds for runs in per.values() for r in runs)
        compute.append(
            [literal(algorithm), str(sum(map(len, per.values()))), f"{seconds:,.0f} s ({seconds / 3600:.1f} h)"]
        )
    sections.append(
        _section(
            "Compute: each algorithm's runs and their wall times summed (W workers take about 1/W of it):",
            ["algorithm", "runs", "wall time of its runs"],
            compute,
        )
    )
    return "\n".join(sections)


def per_task_table(grouped: Grouped, tasks: list[str], baselines: dict[str, dict[str, float]]) -> str:
    """Per task, every learner's mean normalised score over its runs, and the baselines' scores."""
    baseline_names = sorted({b for task in tasks for b in baselines.get(task, {})} - {"random"})
    rows = [
        [literal(task)]
        + [_runs_cell(per.get(task)) for per in grouped.values()]
        + [f"{baselines[task][b]:.2f}" if b in baselines.get(task, {}) else "-" for b in baseline_names]
        for task in tasks
    ]
    return _section(
        "Normalised score (0: `random`, 1: the task's reference agent) of the final policy, mean over seeds",
        ["task", *_names(grouped), *_names(baseline_names)],
        rows,
        "(95% Student-t interval over seeds; number of seeds in parentheses; baselines: one evaluation each.)",
    )


def best_per_task(grouped: Grouped, tasks: list[str], baselines: dict[str, dict[str, float]]) -> list[str]:
    """Per task, the learner with the highest mean score, and how far it is from the reference agent
    (normalised 1) and from the optimum where the task has one (its ``optimal`` baseline): the lines
    of that paragraph of the leaderboard."""
    rows = []
    for task in tasks:
        scores = {a: finals(per[task]) for a, per in grouped.items() if task in per}
        best = max(scores, key=lambda a: (scores[a].mean(), a))
        mean = float(scores[best].mean())
        optimal = baselines.get(task, {}).get("optimal")
        gaps = [_gap(1 - mean), _gap(optimal - mean) if optimal is not None else "-"]
        rows.append([literal(task), literal(best), _score(scores[best]), *gaps])
    return _section(
        "Best learned policy on each task, and its gap to the reference agent and to the optimum:",
        ["task", "best learner", "score", "gap to reference", "gap to optimum"],
        rows,
        "(A negative gap: the learner scores above the reference.)",
    ).split("\n")


def _section(title: str, header: list[str], rows: list[list[str]], note: str | None = None) -> str:
    """A paragraph of the leaderboard: its title, its table and, below, a note."""
    return f"{title}\n\n{markdown_table(header, rows)}" + (f"\n{note}\n" if note else "")


def _names(names: Iterable[str]) -> list[str]:
    return [literal(name) for name in names]


def _aggregates(scores: dict[str, np.ndarray]) -> list[str]:
    """IQM, mean and optimality gap of one algorithm's scores, each with its bootstrap interval."""
    return [
        _interval(*statistics.stratified_bootstrap(scores, f, resamples=1000)) for f in statistics.AGGREGATES.values()
    ]


def _score(values: np.ndarray) -> str:
    """A task's mean score over runs with its 95% interval; the mean alone for one run (no interval)."""
    mean, low, high, runs = statistics.per_task({"task": values})["task"]
    return _interval(mean, low, high) if runs > 1 else f"{mean:.2f}"


def _runs_cell(runs: list[Result] | None) -> str:
    """A learner's cell of the per-task table: its score and, in parentheses, its number of runs."""
    return f"{_score(finals(runs))} ({len(runs)})" if runs else "-"


def _improvement(grouped: Grouped, a: str, b: str) -> str:
    """P(a > b) with its interval, over the tasks both ran; ``-`` on the diagonal."""
    if a == b:
        return "-"
    scores_a, scores_b = final_scores(grouped[a]), final_scores(grouped[b])
    return _interval(*statistics.probability_of_improvement_interval(scores_a, scores_b, resamples=500))


def leaderboard(grouped: Grouped) -> dict[str, Any]:
    """The same as JSON: per algorithm, per task and aggregate figures, and the wall time of its runs."""
    out: dict[str, Any] = {}
    for algorithm, per in grouped.items():
        scores = final_scores(per)
        out[algorithm] = {
            "tasks": {  # one run has no interval: its low and high are infinite, null in the file
                task: dict(zip(("mean", "low", "high", "runs"), statistics.per_task({task: s})[task]))
                for task, s in scores.items()
            },
            "aggregate": {
                name: dict(zip(("point", "low", "high"), statistics.stratified_bootstrap(scores, f, resamples=1000)))
                for name, f in statistics.AGGREGATES.items()
            },
            "wall_seconds": round(sum(r.wall_seconds for runs in per.values() for r in runs), 1),
        }
    return out


def _curves(runs: list[Result]) -> tuple[np.ndarray, np.ndarray]:
    """[runs, points]: the normalised score at each evaluation point, by fraction of the budget."""
    fractions = np.array(TASKS[runs[0].task].eval_points)
    values = []
    for run in runs:
        steps = np.array([p.timesteps for p in run.curve], dtype=float) / run.budget
        scores = np.array([p.normalized for p in run.curve])
        values.append(np.interp(fractions, steps, scores) if len(steps) else np.full(len(fractions), np.nan))
    return fractions, np.array(values)


def plots(grouped: Grouped, folder: Path) -> list[Path]:
    """Performance profiles, sample-efficiency curves per task and aggregated (IQM), as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colour = {algorithm: cycle[i % len(cycle)] for i, algorithm in enumerate(grouped)}  # one per algorithm
    label = {algorithm: f"{_plot_text(algorithm)} ({len(per)} tasks)" for algorithm, per in grouped.items()}
    figure, axes = plt.subplots(figsize=(9.5, 4))
    for algorithm, per in grouped.items():
        profile = statistics.performance_profile(final_scores(per), THRESHOLDS)
        axes.plot(THRESHOLDS, profile, label=label[algorithm], color=colour[algorithm])
    _label(
        axes,
        "normalised score tau",
        "fraction of runs with score > tau",
        "performance profiles (final policies, every task and seed)",
    )
    written.append(_save(figure, folder / "performance_profiles.png"))
    tasks = _tasks(grouped)
    columns = 3
    rows = -(-len(tasks) // columns)
    figure, grid = plt.subplots(rows, columns, figsize=(4 * columns, 3 * rows), squeeze=False)
    for axes, task in zip(grid.ravel(), tasks):
        for algorithm, per in grouped.items():
            if task in per:
                fractions, values = _curves(per[task])
                steps = fractions * TASKS[task].budget
                axes.plot(steps, values.mean(axis=0), marker="o", label=_plot_text(algorithm), color=colour[algorithm])
                axes.fill_between(steps, values.min(axis=0), values.max(axis=0), alpha=0.15, color=colour[algorithm])
        axes.set_title(task, fontsize=9)
        axes.grid(alpha=0.3)
    for axes in grid.ravel()[len(tasks) :]:
        axes.axis("off")
    handles = [plt.Line2D([], [], color=colour[a], marker="o", label=_plot_text(a)) for a in grouped]
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
    _label(axes, "fraction of the training budget", "IQM normalised score (95% CI)", "sample efficiency, across tasks")
    written.append(_save(figure, folder / "sample_efficiency.png"))
    return written


def _plot_text(name: str) -> str:
    """``name`` as matplotlib shows it as it is: a ``$`` would start mathematics (and an odd one fail)."""
    return name.replace("$", r"\$")


def _label(axes: Any, xlabel: str, ylabel: str, title: str) -> None:
    """An across-tasks plot's labels, title and light grid, and its legend to the right of it."""
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))


def _save(figure: Any, path: Path, rect: tuple[float, float, float, float] = (0, 0, 1, 1)) -> Path:
    import matplotlib.pyplot as plt

    figure.tight_layout(rect=rect)
    with atomic_path(path) as partial:
        figure.savefig(partial, dpi=110)
    plt.close(figure)
    return path


def summary(text: str) -> str:
    """The across-tasks table of the leaderboard's Markdown ``text`` (IQM, mean, optimality gap)."""
    start = text.index("| algorithm | tasks |")
    return text[start : text.index("\n\n", start)] + "\n"


def _check_readme(readme: Path) -> str:
    """``readme``'s text, if it has the leaderboard's markers (or the summary's); else a ValueError."""
    try:
        content = readme.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"--readme {str(readme)!r} cannot be read: {error}") from None
    names = ("leaderboard", "leaderboard-summary")
    if not set(names) & set(marked_names(content)):
        opening = " or ".join(markers(name)[0] for name in names)
        raise ValueError(f"{readme} has no {opening} markers for the leaderboard")
    return content


def splice(readme: Path, text: str) -> None:
    """Put the leaderboard's Markdown ``text`` between the ``leaderboard`` markers of ``readme`` and its
    across-tasks table between the ``leaderboard-summary`` markers (:mod:`agents.bench.markdown`); other
    generated tables are left alone, and a file with neither marker is a ValueError."""
    content = _check_readme(readme)
    parts = {"leaderboard": text, "leaderboard-summary": summary(text)}
    write_text(readme, splice_marked(content, parts.get)[0])


def report(
    results: Path, out: Path | None = None, readme: Path | list[Path] | None = None, with_plots: bool = True
) -> str:
    """Read ``results``, write ``leaderboard.md``, ``leaderboard.json`` and the plots into ``out``
    (default: ``results``), optionally splice the Markdown into ``readme`` (a file or several);
    returns the Markdown. Everything is checked before anything is written: every result file
    (:func:`agents.bench.runner.load_results`: a bad one is a ``BadResultsError`` naming each), the
    output folder, and the markers of every ``readme``."""
    grouped = collect(load_results(results))
    if not grouped:
        raise ValueError(f"{results} holds no finished result files of the tasks' current versions")
    out = Path(out or results)
    readmes = [readme] if isinstance(readme, Path) else list(readme or [])
    for name in OUTPUTS:
        check_output_path("--out", out / name)
    for path in readmes:
        _check_readme(path)
    text = markdown(grouped)
    board = leaderboard(grouped)
    write_text(out / "leaderboard.md", text)
    write_json(out / "leaderboard.json", board)
    if with_plots:
        plots(grouped, out)
    for path in readmes:
        splice(path, text)
    return text
