"""Cross-play (``trash-bench crossplay RESULTS --task T``): every kept final policy of a results folder
and the task's baselines, each against each, on the same duplicate deals.

What plays (:func:`collect`): every result file of the task in the folder (every algorithm, seed and
budget fraction), one entry per run named by its place under ``RESULTS/TASK/``
(``maskable_ppo/seed_0``, ``ppo/fraction_0.01/seed_2``), its kept policy loaded weights-only
(:func:`agents.bench.artifacts.load_artifact`); then the task's scored baselines
(:func:`agents.registry.scored_baselines`, ``optimal`` where there are two players, as ``trash-bench
references`` scores them). Left out, each with a warning and its reason in the JSON: invalid runs
(``"valid": false``), runs of another task version, and format-1 results (they keep no policy). A
run whose policy is missing or cannot be loaded stops everything, in one line naming the file,
unless ``skip_missing``: then it is left out too. A bad result file of the task is refused as
``report`` refuses it (:class:`agents.bench.results.BadResultsError`).

How it plays: every pair once (:func:`agents.evaluation.duplicate.round_robin`,
:func:`agents.evaluation.duplicate.run_pairings` with the loaded policies prebuilt), on the first
``deals`` duplicate deals of ``seed``: each deal from both seats, so ``pairs x deals x 2`` games.
The default deals are the task's ``final_deals``, and the default seed is :data:`CROSSPLAY_SEED`,
which is neither a training seed, nor the validation seed (what runs may select models on), nor a
test seed. Only two-player tasks: with more seats, a pair's score would depend on how the seats are
shared out between the two.

What it gives (:func:`crossplay`): the score matrix, for each ordered pair (row, column) the row's
mean score difference per deal minus the column's with its 95% Student-t interval over deals
(:func:`agents.evaluation.stats.pair_summaries`; the column's view of the same games is the negation,
exactly, by the mirror symmetry of duplicate deals, :mod:`agents.evaluation.seatings`), and
Bradley-Terry ratings on the Elo scale, ``random`` = 0, with 95% bootstrap intervals over deals
(:func:`agents.evaluation.stats.fit_ratings`). Written to ``crossplay-TASK.json``,
``crossplay-TASK.md`` (:func:`markdown`) and ``crossplay-TASK.png`` (:func:`heatmap`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from agents.base import Agent
from agents.bench.markdown import literal
from agents.bench.markdown import table as markdown_table
from agents.bench.measurements import CROSSPLAY_FORMAT as FORMAT
from agents.bench.results import BadResultsError, Result
from agents.bench.store import crossplay_names, kept_policy, scan
from agents.bench.tasks import Task, get_task
from agents.evaluation.seatings import SEED_LIMIT
from agents.evaluation.stats import Interval, PairSummary
from agents.evaluation.summary import _interval
from agents.registry import scored_baselines
from trash_env.files import check_output_path, write_json, write_text

CROSSPLAY_SEED = 1_000_007
"""The default seed of cross-play's deals: not a training seed (below 1,000,000), not the validation
seed (1,000,003: runs may select their policy on those deals), and below every test seed (2**32 and
up, drawn after training)."""
BOOTSTRAP = 200  # resamples of the ratings' bootstrap over deals (fit_ratings' default)


@dataclass(frozen=True)
class Entry:
    """One player of the cross-play, by the name it has in every table: a run's kept policy (``result``,
    the run's result; ``path``, its file relative to the results folder) or a baseline (``result`` None)."""

    name: str
    result: Result | None = None
    path: str | None = None  # the result file, relative to the results folder

    def to_json(self) -> dict[str, Any]:
        if self.result is None:
            return {"name": self.name, "kind": "baseline"}
        run = self.result
        return {
            "name": self.name,
            "kind": "run",
            "result": self.path,
            "artifact": run.artifact,
            "algorithm": run.algorithm,
            "seed": run.seed,
            "budget_fraction": run.budget_fraction,
            "final_normalized": run.final.headline,
        }


def check_task(task_name: str) -> Task:
    """The task, if cross-play can compare its agents (two players); a one-line ValueError otherwise."""
    task = get_task(task_name)
    if task.num_players != 2:
        raise ValueError(
            f"task {task.name} has {task.num_players} players: cross-play is for two-player tasks (with more seats "
            "a pair's score depends on how the seats are shared out)"
        )
    return task


def baselines_of(task: Task) -> list[str]:
    """The task's scored baselines (``optimal`` only with two players), as ``trash-bench references``."""
    return scored_baselines(task.game, task.num_players)


def collect(
    results: Path, task: Task, skip_missing: bool = False
) -> tuple[list[Entry], dict[str, Agent], list[dict[str, str]]]:
    """The runs of ``task`` in ``results`` that cross-play plays (sorted by name) and the task's
    baselines, the runs' policies loaded (by name), and what was left out (``{"result", "reason"}``);
    one-line ValueErrors for a folder with no runs of the task or a policy that cannot be loaded
    (unless ``skip_missing``: then it is left out), a BadResultsError for bad result files of the task."""
    from agents.bench.artifacts import load_artifact

    results = Path(results)
    if not results.is_dir():
        raise ValueError(f"results folder {str(results)!r} does not exist")
    good, bad = scan(results)
    ours = [problem for path, problem in bad.items() if path.relative_to(results).parts[0] == task.name]
    if ours:
        raise BadResultsError(results, ours)
    runs: list[Entry] = []
    agents: dict[str, Agent] = {}
    left_out: list[dict[str, str]] = []
    for path, run in sorted(good.items()):
        if run.task != task.name:
            continue
        relative = path.relative_to(results).as_posix()
        reason = None
        if run.task_version != task.version:
            reason = f"a run of {task.name} v{run.task_version}; the task is v{task.version} now"
        elif not run.is_valid:
            reason = f"an invalid run ({'; '.join(run.invalid_reasons or ())})"
        elif run.artifact is None:
            reason = f"a format-{run.format} result keeps no policy"
        if reason is None:
            try:
                agent = load_artifact(kept_policy(path, run), task)
            except ValueError as error:
                if not skip_missing:
                    raise
                reason = str(error)
        if reason is not None:
            left_out.append({"result": relative, "reason": reason})
            continue
        name = path.relative_to(results / task.name).with_suffix("").as_posix()  # ALGORITHM[/fraction_F]/seed_N
        runs.append(Entry(name, run, relative))
        agents[name] = agent
    if not runs:
        reasons = "; ".join(f"{line['result']}: {line['reason']}" for line in left_out)
        left = f" ({len(left_out)} left out: {reasons})" if left_out else ""
        raise ValueError(f"{results} holds no playable run of task {task.name}{left}")
    return [*runs, *(Entry(name) for name in baselines_of(task))], agents, left_out


def matrix_of(names: Sequence[str], summaries: Sequence[PairSummary]) -> list[list[dict[str, float] | None]]:
    """Row ``i``, column ``j``: ``names[i]``'s mean score difference per deal against ``names[j]``
    with its 95% interval (``{mean, low, high, n}``), from the summaries of each pair played once;
    the pair named the other way is its negation (mirrored games); the diagonal is None."""
    index = {name: i for i, name in enumerate(names)}
    matrix: list[list[dict[str, float] | None]] = [[None] * len(names) for _ in names]
    for summary in summaries:
        i, j = index[summary.first], index[summary.second]
        score = summary.score_difference
        matrix[i][j] = asdict(score)
        matrix[j][i] = asdict(Interval(0.0 - score.mean, 0.0 - score.high, 0.0 - score.low, score.n))  # never -0.0
    return matrix


def play(
    task: Task,
    names: Sequence[str],
    agents: dict[str, Agent],
    deals: int,
    seed: int,
    workers: int = 1,
    bootstrap: int = BOOTSTRAP,
    on_progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Every pair of ``names`` (runs' names in ``agents``, baselines by their specs) once on the first
    ``deals`` duplicate deals of ``seed``: ``{"agents", "matrix", "pairs", "ratings"}`` (the ratings
    sorted best first), JSON-ready."""
    from agents.evaluation.duplicate import round_robin, run_pairings
    from agents.evaluation.stats import agent_summaries, fit_ratings, pair_summaries

    played = run_pairings(
        task.config(), round_robin(names), deals, seed, workers=workers, on_progress=on_progress, prebuilt=agents
    )
    summaries = pair_summaries(played)
    ratings = fit_ratings(played, bootstrap, seed)
    win_rates = {row.agent: row.win_rate for row in agent_summaries(played)}
    best_first = sorted(names, key=lambda name: -ratings[name].mean)
    return {
        "agents": list(names),
        "matrix": matrix_of(names, summaries),
        "pairs": [asdict(summary) for summary in summaries],
        "ratings": [{"agent": name, **asdict(ratings[name]), "win_rate": win_rates[name]} for name in best_first],
    }


def pairs_of(entries: int) -> int:
    """How many pairs ``entries`` players make: each pair plays every deal from both seats (2 games)."""
    return entries * (entries - 1) // 2


def crossplay(
    results: Path,
    task_name: str,
    deals: int | None = None,
    seed: int | None = None,
    workers: int = 1,
    out: Path | None = None,
    bootstrap: int = BOOTSTRAP,
    with_plot: bool = True,
    skip_missing: bool = False,
    warn: Callable[[str], None] | None = None,
    announce: Callable[[str, int], None] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Play every run of ``task_name`` in ``results`` and the task's baselines against each other
    (module docstring) on the first ``deals`` (default: the task's ``final_deals``) duplicate deals of
    ``seed`` (default :data:`CROSSPLAY_SEED`), and write ``crossplay-TASK.json``, ``.md`` and (with
    ``with_plot``) ``.png`` into ``out`` (default: ``results``); returns the JSON's content.
    Everything is checked before a game is played, in one-line ValueErrors. ``warn`` gets a line per
    run left out, ``announce`` a line saying how many games will be played and the number of deals
    (``pairs x deals``) before they are played, ``on_progress`` the deals as they are played."""
    from agents.bench.provenance import git_commit, machine
    from agents.bench.runner import package_version

    task = check_task(task_name)
    deals = task.final_deals if deals is None else deals
    seed = CROSSPLAY_SEED if seed is None else seed
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 2:
        raise ValueError(f"--deals must be at least 2, got {deals}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"--seed must be 0 or more and below 2**64, got {seed}")
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    if bootstrap < 0:
        raise ValueError(f"--bootstrap must be 0 or more, got {bootstrap}")
    out = Path(results if out is None else out)
    files = crossplay_names(task)
    for kind, name in files.items():
        if with_plot or kind != "png":
            check_output_path("--out", out / name)
    entries, agents, left_out = collect(results, task, skip_missing)
    for line in left_out if warn else ():
        warn(f"{line['result']}: left out: {line['reason']}")
    names = [entry.name for entry in entries]
    pairs, runs = pairs_of(len(names)), len(agents)
    if announce:
        announce(
            f"crossplay {task.name}: {runs} run{'s' if runs != 1 else ''} and {len(names) - runs} baselines, "
            f"{pairs} pairs x {deals:,} deals x 2 seats = {pairs * deals * 2:,} games (seed {seed})",
            pairs * deals,
        )
    played = play(task, names, agents, deals, seed, workers, bootstrap, on_progress)
    data = {
        "format": FORMAT,
        "task": task.name,
        "task_version": task.version,
        "game": task.game,
        "deals": deals,
        "seed": seed,
        "games": pairs * deals * 2,
        "bootstrap": bootstrap,
        "entries": [entry.to_json() for entry in entries],
        "left_out": left_out,
        **played,
        "package_version": package_version(),
        "git": git_commit(),
        "machine": machine(),
    }
    write_json(out / files["json"], data)
    write_text(out / files["md"], markdown(data))
    if with_plot:
        heatmap(data, out / files["png"])
    return data


# ---------------------------------------------------------------------- Markdown and the heatmap


def shown(name: str) -> str:
    """An entry's name in Markdown: each part of ``ALGORITHM/seed_N`` through :func:`literal`."""
    return "/".join(literal(part) for part in name.split("/"))


def ranked(data: dict[str, Any]) -> list[int]:
    """The indices of ``data["agents"]`` in the order of their ratings, best first."""
    index = {name: i for i, name in enumerate(data["agents"])}
    return [index[row["agent"]] for row in data["ratings"]]


def _cell(cell: dict[str, float] | None) -> str:
    return "-" if cell is None else _interval(cell, 3)


def markdown(data: dict[str, Any]) -> str:
    """The cross-play's page: what was played, the ratings best first, the score matrix (rows and
    columns in the ratings' order) and the runs left out."""
    names, order = data["agents"], ranked(data)
    kinds = {entry["name"]: entry["kind"] for entry in data["entries"]}
    runs = sum(entry["kind"] == "run" for entry in data["entries"])
    parts = [
        f"# Cross-play on {literal(data['task'])} v{data['task_version']}\n",
        f"{runs} run{'s' if runs != 1 else ''} and {len(names) - runs} baselines, every pair on the same "
        f"{data['deals']:,} duplicate deals of seed {data['seed']} (each deal from both seats: "
        f"{data['games']:,} games).\n",
        "## Ratings\n",
        f"Bradley-Terry ratings on the Elo scale (400 points: 10 to 1 odds of winning a game), `random` = 0, "
        f"with 95% bootstrap intervals over deals ({data['bootstrap']} resamples).\n",
        markdown_table(
            ["rank", "agent", "kind", "rating (Elo) [95% CI]", "win rate"],
            [
                [
                    str(rank),
                    shown(row["agent"]),
                    kinds[row["agent"]],
                    _interval(row, 0),
                    f"{row['win_rate']:.3f}",
                ]
                for rank, row in enumerate(data["ratings"], 1)
            ],
        ),
        "## Score matrix\n",
        "The row's mean score difference per deal against the column, with its 95% interval over deals.\n",
        markdown_table(
            ["row vs column", *(shown(names[j]) for j in order)],
            [[shown(names[i]), *(_cell(data["matrix"][i][j]) for j in order)] for i in order],
        ),
    ]
    if data["left_out"]:
        parts += [
            "## Left out\n",
            markdown_table(
                ["result file", "why"], [[literal(e["result"]), literal(e["reason"])] for e in data["left_out"]]
            ),
        ]
    return "\n".join(parts)


def heatmap(data: dict[str, Any], path: Path) -> Path:
    """The score matrix as an annotated heatmap (rows and columns in the ratings' order, the row's
    mean score difference per deal in each cell), written to ``path`` (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from agents.bench.report import _plot_text, _save

    names, order = data["agents"], ranked(data)
    cells = [[data["matrix"][i][j] for j in order] for i in order]
    means = np.array([[np.nan if cell is None else cell["mean"] for cell in row] for row in cells])
    labels = [_plot_text(names[i]) for i in order]
    limit = float(np.nanmax(np.abs(means))) if np.isfinite(means).any() else 1.0
    size = len(order)
    figure, axes = plt.subplots(figsize=(2.5 + 0.9 * size, 1.8 + 0.7 * size))
    colours = matplotlib.colormaps["RdBu"].with_extremes(bad="lightgrey")
    image = axes.imshow(np.ma.masked_invalid(means), cmap=colours, vmin=-limit or -1, vmax=limit or 1)
    for i in range(size):
        for j in range(size):
            cell = cells[i][j]
            text = "-" if cell is None else f"{cell['mean']:+.2f}\n±{(cell['high'] - cell['low']) / 2:.2f}"
            strong = cell is not None and abs(cell["mean"]) > 0.6 * limit
            axes.text(j, i, text, ha="center", va="center", fontsize=7, color="white" if strong else "black")
    axes.set_xticks(range(size), labels, rotation=45, ha="right", fontsize=8)
    axes.set_yticks(range(size), labels, fontsize=8)
    axes.set_xlabel("column")
    axes.set_ylabel("row")
    figure.colorbar(image, ax=axes, label="row's score difference per deal")
    axes.set_title(
        f"{data['task']} v{data['task_version']}: row vs column, {data['deals']:,} duplicate deals\n"
        "(mean ± half the 95% interval; best rated first)",
        fontsize=9,
    )
    return _save(figure, path)
