"""Tables, plots and a JSON leaderboard from a folder of result files (``trash-bench report DIR``).

Long on purpose: every table, plot and figure of the leaderboard comes from one reading of the result
files here, so that the published pages are reproduced byte for byte by one module.

Everything here is computed from the result files and the stored reference scores, so the same files
always give the same Markdown, byte for byte (bootstraps are seeded): the README's leaderboard is this
output between its ``<!-- table:leaderboard -->`` and ``<!-- /table:leaderboard -->`` markers
(``--readme README.md`` puts it there; ``scripts/readme_tables.py`` checks it is current).

What is compared with what:

- **One section per protocol, task version and budget fraction** (:class:`Section`): runs that differ
  in any of them are not the same experiment (a 1% smoke run is no finished run, a v1 score is not a
  v2 one), so a folder mixing them is refused with one line unless ``separate`` is asked for; then
  each group is its own section, titled with its label (:attr:`Section.label`). Every table, every
  plot's title and ``leaderboard.json`` state that label.
- **Invalid runs are left out** (format 2 ``"valid": false``: over budget, checkpoints at timesteps the
  run had not reached, ...) and listed with their reasons at the end of their section.
- **Per task, every task** an algorithm ran; with format-2 results, beside each task's headline row,
  the same policies' normalised scores against the task's held-out opponents (never met in training).
- **Across tasks, only over shared tasks**: the IQM, mean, optimality gap, probability of improvement
  and performance profiles are computed over a task set that every algorithm of the comparison ran
  (:func:`task_sets`: each algorithm's tasks and their intersections, largest first), one table (and
  one plot panel) per set, naming its tasks; an algorithm is never averaged over other tasks than
  those it is compared on.
- **Exact where it can be**: on the solved tasks (``hyn-2p``, ``hyn-2p-selfplay`` from v3) a run
  scored exactly (``"scoring": "exact"``) counts with its exact scores (curve, final, held out:
  :attr:`agents.bench.results.FinalEvaluation.headline`), and the baselines' columns are their exact
  scores too; a run without them (a policy that does not decide in batches) counts with its sampled ones.
- **Baselines** are the stored reference scores of the section's task version: ``references.json``
  (``trash-bench references``), and for task version 1 the frozen ``references_v1.json`` (the anchors
  the committed v1 results were normalised with), so protocol-v1 results keep the columns they had.

Nothing is written unless every result file of the folder is good (:mod:`agents.bench.results`: a
bad one is named with what is wrong, and the report refused), the folder is one group or
``separate`` is given, and every ``--readme`` has its markers. Names are shown through
:func:`agents.bench.markdown.literal` (code if plain, escaped otherwise), and so are the reasons
a run is invalid (text from a file).
"""

from __future__ import annotations

import functools
import json
import re
import textwrap
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from agents.bench import statistics
from agents.bench.markdown import literal, marked_names, markers, run_text
from agents.bench.markdown import splice as splice_marked
from agents.bench.markdown import table as markdown_table
from agents.bench.results import Result
from agents.bench.settings import MASKLESS
from agents.bench.store import load_results
from agents.bench.tasks import HEADLINE, SANITY, TASKS, load_references
from trash_env.files import atomic_path, check_output_path, write_json, write_text

THRESHOLDS = np.linspace(0.0, 1.25, 51)
PASS_SCORE = 0.9  # a learner passes a sanity-tier task at this mean normalised score or more (tiered reports)
MASKLESS_TRACK = "no masks track"  # the tiered report's section of the learners without action masks
Grouped = dict[str, dict[str, list[Result]]]  # algorithm -> task -> its runs (result files)
PLOTS = ("performance_profiles.png", "sample_efficiency_per_task.png", "sample_efficiency.png")
# Frozen reference scores of older task versions, beside the current ones (references.json):
# version 1's as they were when the committed v1 results were run (before commit a632562).
FROZEN_REFERENCES = {1: Path(__file__).with_name("references_v1.json")}
PROTOCOL_NOTES = {
    1: "Protocol v1 (result format 1): final scores on deals of the evaluation seed, which training could "
    "reach; no held-out opponents; budgets not counted. Its baseline columns are the v1 reference scores "
    "(`agents/bench/references_v1.json`), those its runs were normalised with.",
    2: "Protocol v2: final scores on test deals drawn after training (their seed recorded in each result), "
    "curves on validation deals, every score normalised with anchors measured on its own deals, budgets "
    "counted; runs that broke the protocol are left out and listed with their reasons.",
}


# ---------------------------------------------------------------------- what a run is


def invalid_reasons(result: Result) -> list[str]:
    """Why the runner marked ``result`` invalid (format 2), as its file says."""
    return list(result.invalid_reasons or ())


def heldout_of(result: Result) -> dict[str, float]:
    """Held-out opponent -> the run's normalised final score against it (format 2; none in format 1)."""
    return {entry.opponent: entry.headline for entry in result.heldout or ()}


Key = tuple[int, int, float]  # (protocol, task version, budget fraction): what makes runs comparable


def key_of(result: Result) -> Key:
    return result.protocol_version, result.task_version, result.budget_fraction


def label(key: Key) -> str:
    """``protocol v2, task version 2, budget fraction 0.1``: what every table and plot says it reports."""
    protocol, version, fraction = key
    track = " (open budget)" if fraction > 1 else ""
    return f"protocol v{protocol}, task version {version}, budget fraction {fraction!r}{track}"


@dataclass(frozen=True)
class Section:
    """The runs of one protocol, task version and budget fraction: the valid ones grouped by algorithm
    and task (:func:`collect`), and the invalid ones, left out of every figure and listed."""

    key: Key
    grouped: Grouped
    invalid: tuple[Result, ...] = ()
    # exploitability and cross-play files of the folder, by (task, task version)
    # (agents.bench.measurements.load_measurements)
    measured: dict[tuple[str, int], dict[str, dict[str, Any]]] = field(default_factory=dict, compare=False)
    tiered: bool = False  # v3: across-task figures over the headline tier only, the sanity tier pass or fail
    track: str = ""  # a labelled part of the runs of one key (MASKLESS_TRACK), said in the label

    @property
    def label(self) -> str:
        return label(self.key) + (f", {self.track}" if self.track else "")

    @property
    def compared(self) -> Grouped:
        """The runs the across-task figures compare: in a tiered section those of the headline tier's
        tasks only (:func:`headline_only`), else all of them."""
        return headline_only(self.grouped) if self.tiered else self.grouped

    @property
    def protocol(self) -> int:
        return self.key[0]

    @property
    def task_version(self) -> int:
        return self.key[1]

    @property
    def fraction(self) -> float:
        return self.key[2]

    @classmethod
    def of(cls, grouped: Grouped) -> Section:
        """The section of already grouped runs (their algorithm names as ``grouped`` has them), which
        must all be of one protocol, task version and fraction."""
        keys = {key_of(r) for per in grouped.values() for runs in per.values() for r in runs}
        if len(keys) > 1:
            raise ValueError(f"the runs mix {_mixed(keys)}: report them as separate sections")
        if not keys:
            raise ValueError("no runs to report")
        return cls(keys.pop(), grouped)


def collect(results: Iterable[Result]) -> Grouped:
    """algorithm -> task -> its valid runs (sorted by seed), in algorithm order."""
    grouped: dict[str, dict[str, list[Result]]] = defaultdict(lambda: defaultdict(list))
    for result in results:
        if result.is_valid:
            grouped[result.algorithm][result.task].append(result)
    for per_task in grouped.values():
        for runs in per_task.values():
            runs.sort(key=lambda r: r.seed)
    return {algorithm: {t: per[t] for t in _ordered(per)} for algorithm, per in sorted(grouped.items())}


def sections(
    results: Iterable[Result], separate: bool = False, folder: Path | str = "the results", tiered: bool = False
) -> list[Section]:
    """The runs as sections, one per (protocol, task version, budget fraction), newest protocol and
    version first, and within them the full budget first (what a summary shows), then the open-budget
    track (fractions above 1), then smaller fractions, largest first. Runs of several groups are a
    ValueError naming them, unless ``separate``. ``tiered`` (the v3 leaderboard): each section's
    learners without action masks (:data:`agents.bench.settings.MASKLESS`) are a section of their own
    after it, labelled :data:`MASKLESS_TRACK`, and both report by tier (:func:`headline_only`,
    :func:`sanity_table`)."""
    by_key: dict[Key, list[Result]] = defaultdict(list)
    for result in results:
        by_key[key_of(result)].append(result)
    if len(by_key) > 1 and not separate:
        counts = "; ".join(f"{_count(len(by_key[k]), 'run')} of {label(k)}" for k in sorted(by_key, reverse=True))
        raise ValueError(
            f"{folder} mixes {_mixed(set(by_key))} ({counts}): give --separate to report each group apart, "
            "or move them into separate folders"
        )
    found = []
    for key in sorted(by_key, key=_section_order, reverse=True):
        runs = by_key[key]
        masked = [r for r in runs if r.algorithm not in MASKLESS]
        tracks = [("", masked), (MASKLESS_TRACK, [r for r in runs if r.algorithm in MASKLESS])]
        for track, members in tracks if tiered else [("", runs)]:
            if not members:
                continue
            invalid = tuple(sorted((r for r in members if not r.is_valid), key=lambda r: (r.task, r.algorithm, r.seed)))
            found.append(Section(key, collect(members), invalid, tiered=tiered, track=track))
    return found


def headline_only(grouped: Grouped) -> Grouped:
    """``grouped`` with the runs of the headline tier's tasks only (:attr:`agents.bench.tasks.Task.tier`;
    a task the registry does not know is in none), an algorithm with none of them left out."""
    headline = {name for name, task in TASKS.items() if task.tier == HEADLINE}
    kept = {a: {t: runs for t, runs in per.items() if t in headline} for a, per in grouped.items()}
    return {a: per for a, per in kept.items() if per}


def sanity_tasks(grouped: Grouped) -> list[str]:
    """The tasks of the sanity tier that any algorithm of ``grouped`` ran, in registry order."""
    return [t for t in _tasks(grouped) if t in TASKS and TASKS[t].tier == SANITY]


def sanity_results(grouped: Grouped) -> dict[str, dict[str, dict[str, Any]]]:
    """algorithm -> sanity task -> its mean normalised score, runs and whether it passed (a mean of
    :data:`PASS_SCORE` or more)."""
    tasks = sanity_tasks(grouped)
    found: dict[str, dict[str, dict[str, Any]]] = {}
    for algorithm, per in grouped.items():
        means = {t: float(finals(per[t]).mean()) for t in tasks if t in per}
        found[algorithm] = {t: {"mean": m, "runs": len(per[t]), "passed": m >= PASS_SCORE} for t, m in means.items()}
    return found


def sanity_table(grouped: Grouped, tag: str) -> str | None:
    """The sanity tier as pass or fail: per task, each algorithm's mean normalised score, marked pass or
    fail (:data:`PASS_SCORE`), and a last row counting its passes; None if no sanity task was run."""
    tasks = sanity_tasks(grouped)
    if not tasks:
        return None
    found = sanity_results(grouped)

    def cell(entry: dict[str, Any] | None) -> str:
        if entry is None:
            return "-"
        return f"{'pass' if entry['passed'] else '**fail**'} {entry['mean']:.2f} ({entry['runs']})"

    ran = [a for a in grouped if found[a]]  # a headline-only learner has no column
    rows = [[literal(t), *(cell(found[a].get(t)) for a in ran)] for t in tasks]
    rows.append(["passed", *(f"{sum(e['passed'] for e in found[a].values())} of {len(found[a])}" for a in ran)])
    return _section(
        f"Sanity tier: pass or fail ({tag})",
        ["task", *_names(ran)],
        rows,
        f"(The saturated tasks, which every working masked learner reaches: a learner passes one when the mean "
        f"normalised score of its final policies is {PASS_SCORE:.2f} or more; number of seeds in parentheses. "
        "They are not in the across-task figures above, which are over the headline tier.)",
    )


def _section_order(key: Key) -> tuple[int, int, bool, float]:
    protocol, version, fraction = key
    return protocol, version, fraction == 1.0, fraction


def _mixed(keys: set[Key]) -> str:
    """What differs between the groups ``keys``: ``budget fractions 0.01 and 1.0``, ..."""
    parts = []
    for i, what in enumerate(("protocols", "task versions", "budget fractions")):
        values = sorted({k[i] for k in keys})
        if len(values) > 1:
            shown = [f"v{v}" if i < 2 else repr(v) for v in values]
            parts.append(f"{what} {', '.join(shown[:-1])} and {shown[-1]}")
    return "; ".join(parts)


def _ordered(names: Iterable[str]) -> list[str]:
    """Task names in registry order (any unknown one after them, by name)."""
    order = {name: i for i, name in enumerate(TASKS)}
    return sorted(names, key=lambda name: (order.get(name, len(order)), name))


def _tasks(grouped: Grouped) -> list[str]:
    """The tasks any algorithm of ``grouped`` ran, in registry order."""
    return _ordered({task for per in grouped.values() for task in per})


def task_sets(grouped: Grouped) -> list[tuple[str, ...]]:
    """The sets of tasks the across-task figures are computed over: each algorithm's tasks and every
    non-empty intersection of them (so any two algorithms meet over exactly the tasks both ran),
    largest first, then in registry order; each set's tasks in registry order."""
    sets = {frozenset(per) for per in grouped.values() if per}
    while True:
        more = {a & b for a in sets for b in sets if a & b} - sets
        if not more:
            break
        sets |= more
    order = {name: i for i, name in enumerate(_tasks(grouped))}
    ordered = [tuple(_ordered(s)) for s in sets]
    return sorted(ordered, key=lambda s: (-len(s), [order[t] for t in s]))


def sharing(grouped: Grouped, tasks: Sequence[str]) -> list[str]:
    """The algorithms of ``grouped`` that ran every one of ``tasks``."""
    return [algorithm for algorithm, per in grouped.items() if set(tasks) <= set(per)]


# ---------------------------------------------------------------------- figures


def finals(runs: list[Result]) -> np.ndarray:
    """The final policies' normalised scores of ``runs``."""
    return np.array([r.final.headline for r in runs])


def final_scores(runs_by_task: dict[str, list[Result]], tasks: Iterable[str] | None = None) -> dict[str, np.ndarray]:
    """task -> the runs' final normalised scores, for ``tasks`` (default: every task of ``runs_by_task``)."""
    return {task: finals(runs_by_task[task]) for task in (runs_by_task if tasks is None else tasks)}


def heldout_scores(runs: list[Result]) -> dict[str, np.ndarray]:
    """Held-out opponent -> the normalised final scores against it of the runs that were scored on it."""
    scores: dict[str, list[float]] = defaultdict(list)
    for run in runs:
        for opponent, value in heldout_of(run).items():
            scores[opponent].append(value)
    return {opponent: np.array(values) for opponent, values in scores.items()}


def exploitability_scores(runs: list[Result]) -> np.ndarray:
    """The exact exploitability per deal of the runs' final policies, of the runs that have it (a task
    scored by exact exploitability, ``Task.exploitability``)."""
    return np.array([run.final.exploitability.per_deal for run in runs if run.final.exploitability])


def heldout_opponents(grouped: Grouped, task: str) -> list[str]:
    """The held-out opponents any run of ``task`` was scored against: the task's order, then by name."""
    found = {o for per in grouped.values() for run in per.get(task, ()) for o in heldout_of(run)}
    named = [o for o in (TASKS[task].heldout if task in TASKS else ()) if o in found]
    return named + sorted(found - set(named))


def _interval(point: float, low: float, high: float) -> str:
    return f"{point:.2f} [{low:.2f}, {high:.2f}]"


def _gap(value: float) -> str:
    """``value`` to two decimals, with no "-0.00" for a gap that rounds to nothing."""
    return f"{value:.2f}" if round(value, 2) != 0 else "0.00"


@functools.cache
def _frozen_references(path: Path) -> dict[str, dict[str, Any]]:
    return json.loads(path.read_text()) if path.is_file() else {}


def stored_references(version: int | None, task: str) -> dict[str, Any] | None:
    """The stored reference scores of ``task`` at task ``version`` (None: the task's current version):
    the frozen file of that version if there is one, else ``references.json``; None if neither holds them."""
    spec = TASKS.get(task)
    if version is None:
        if spec is None:
            return None
        version = spec.version
    frozen = FROZEN_REFERENCES.get(version)
    stored = (_frozen_references(frozen) if frozen is not None else load_references()).get(task)
    return stored if stored is not None and stored.get("version") == version else None


def _normalized(anchors: dict[str, Any], score: float) -> float:
    return (score - anchors["random"]) / (anchors["reference"] - anchors["random"])


def _exact_normalized(exact: dict[str, float], reference: str) -> dict[str, float]:
    """Baselines' exact scores against one opponent, normalised with ``random``'s and ``reference``'s among them."""
    anchors = {"random": exact["random"], "reference": exact[reference]}
    return {b: _normalized(anchors, score) for b, score in exact.items()}


def baseline_scores(version: int | None = None) -> dict[str, dict[str, float]]:
    """task -> baseline name -> its normalised score, from the stored reference scores of task
    ``version`` (:func:`stored_references`; None: each task's current version)."""
    out: dict[str, dict[str, float]] = {}
    for name in TASKS:
        stored = stored_references(version, name)
        if stored is not None and "exact" in stored:  # a task scored exactly: the baselines' exact scores
            out[name] = _exact_normalized(stored["exact"]["baselines"], TASKS[name].reference)
        elif stored is not None:
            out[name] = {b: _normalized(stored, score) for b, score in stored.get("baselines", {}).items()}
    return out


def heldout_baseline_scores(version: int | None = None) -> dict[tuple[str, str], dict[str, float]]:
    """(task, held-out opponent) -> baseline name -> its normalised score against that opponent, where
    the stored references hold them (``"heldout": {OPPONENT: {"random", "reference", "baselines"}}``)."""
    out: dict[tuple[str, str], dict[str, float]] = {}
    for name in TASKS:
        stored = stored_references(version, name) or {}
        if "exact" in stored:
            for opponent, section in stored["exact"]["heldout"].items():
                out[name, opponent] = _exact_normalized(section["baselines"], TASKS[name].reference)
            continue
        for opponent, anchors in (stored.get("heldout") or {}).items():
            if isinstance(anchors, dict) and {"random", "reference"} <= set(anchors):
                baselines = anchors.get("baselines", {})
                out[name, opponent] = {b: _normalized(anchors, s) for b, s in baselines.items()}
    return out


# ---------------------------------------------------------------------- Markdown


def markdown(report: Grouped | Section | Sequence[Section]) -> str:
    """The leaderboard as Markdown, per section (:class:`Section`; a plain :data:`Grouped` is one):
    what it reports, per task every learner, the best learner of each task, across tasks per shared
    task set the aggregates and the probability of improvement, the compute, and the runs left out;
    each a paragraph with its table, each saying the section's label."""
    parts = _sections_of(report)
    return "\n".join(section_markdown(section, heading=len(parts) > 1) for section in parts)


def _sections_of(report: Grouped | Section | Sequence[Section]) -> list[Section]:
    if isinstance(report, Section):
        return [report]
    if isinstance(report, dict):
        return [Section.of(report)]
    return list(report)


def section_markdown(section: Section, heading: bool = False) -> str:
    """One section of the leaderboard (with a ``###`` heading of its label when ``heading``)."""
    grouped, tag = section.grouped, section.label
    tasks = _tasks(grouped)
    parts = [(f"### {tag[0].upper()}{tag[1:]}\n\n" if heading else "") + section_intro(section)]
    if grouped:
        baselines = baseline_scores(section.task_version)
        parts += [
            per_task_table(grouped, tasks, baselines, tag, heldout_baseline_scores(section.task_version)),
            "\n".join(best_per_task(grouped, tasks, baselines, tag)),
        ]
        exploitable = exploitability_table(grouped, tasks, tag)
        if exploitable:
            parts.append(exploitable)
        compared = section.compared
        for shared in task_sets(compared):
            parts += across_tasks(compared, shared, tag, tier=HEADLINE if section.tiered else None)
        sanity = sanity_table(grouped, tag) if section.tiered else None
        if sanity:
            parts.append(sanity)
        parts.append(compute_table(grouped, tag))
        two_player = two_player_table(section)
        if two_player:
            parts.append(two_player)
    if section.invalid:
        parts.append(invalid_table(section))
    return "\n".join(parts)


def section_intro(section: Section) -> str:
    """The paragraph that opens a section: its label, what it holds, and what its protocol measured."""
    grouped = section.grouped
    runs = sum(len(runs) for per in grouped.values() for runs in per.values())
    left = f"; {_count(len(section.invalid), 'invalid run')} left out" if section.invalid else ""
    counts = f"{_count(runs, 'run')} of {_count(len(grouped), 'algorithm')} on {_count(len(_tasks(grouped)), 'task')}"
    return f"Results of {section.label}: {counts}{left}. {PROTOCOL_NOTES.get(section.protocol, '')}".rstrip() + "\n"


def _count(number: int, what: str) -> str:
    """``1 run``, ``2 runs``."""
    return f"{number} {what}{'s' if number != 1 else ''}"


def _cell(values: np.ndarray | None) -> str:
    """A learner's cell of the per-task table: its score and, in parentheses, its number of runs."""
    return f"{_score(values)} ({len(values)})" if values is not None and len(values) else "-"


def per_task_table(
    grouped: Grouped,
    tasks: list[str],
    baselines: dict[str, dict[str, float]],
    tag: str | None = None,
    heldout_baselines: dict[tuple[str, str], dict[str, float]] | None = None,
) -> str:
    """Per task, every learner's mean normalised score over its runs, and the baselines' scores; below
    a task's row, a row per held-out opponent its runs were scored against (format 2)."""
    tag = tag or Section.of(grouped).label
    heldout_baselines = heldout_baselines or {}
    baseline_names = sorted({b for task in tasks for b in baselines.get(task, {})} - {"random"})

    def baseline_cells(scores: dict[str, float]) -> list[str]:
        return [f"{scores[b]:.2f}" if b in scores else "-" for b in baseline_names]

    rows = []
    for task in tasks:
        rows.append(
            [literal(task)]
            + [_cell(finals(per[task]) if task in per else None) for per in grouped.values()]
            + baseline_cells(baselines.get(task, {}))
        )
        for opponent in heldout_opponents(grouped, task):
            rows.append(
                [f"↳ vs {literal(opponent)} (held out)"]  # the task is the row above's (a short name: no squeeze)
                + [_cell(heldout_scores(per.get(task, [])).get(opponent)) for per in grouped.values()]
                + baseline_cells(heldout_baselines.get((task, opponent), {}))
            )
    heldout = any(heldout_opponents(grouped, task) for task in tasks)
    note = "(95% Student-t interval over seeds; number of seeds in parentheses; baselines: one evaluation each."
    if heldout:
        note += (
            " A held-out row (↳, under its task): the same final policies against an opponent never met in "
            "training, normalised with `random`'s and the reference agent's scores against it on the same deals."
        )
    return _section(
        f"Normalised score (0: `random`, 1: the task's reference agent) of the final policy, mean over seeds ({tag})",
        ["task", *_names(grouped), *_names(baseline_names)],
        rows,
        note + ")",
    )


def best_per_task(
    grouped: Grouped, tasks: list[str], baselines: dict[str, dict[str, float]], tag: str | None = None
) -> list[str]:
    """Per task, the learner with the highest mean score, and how far it is from the reference agent
    (normalised 1) and from the optimum where the task has one (its ``optimal`` baseline): the lines
    of that paragraph of the leaderboard."""
    tag = tag or Section.of(grouped).label
    rows = []
    for task in tasks:
        scores = {a: finals(per[task]) for a, per in grouped.items() if task in per}
        best = max(scores, key=lambda a: (scores[a].mean(), a))
        mean = float(scores[best].mean())
        optimal = baselines.get(task, {}).get("optimal")
        gaps = [_gap(1 - mean), _gap(optimal - mean) if optimal is not None else "-"]
        rows.append([literal(task), literal(best), _score(scores[best]), *gaps])
    return _section(
        f"Best learned policy on each task, and its gap to the reference agent and to the optimum ({tag}):",
        ["task", "best learner", "score", "gap to reference", "gap to optimum"],
        rows,
        "(A negative gap: the learner scores above the reference.)",
    ).split("\n")


def exploitability_table(grouped: Grouped, tasks: list[str], tag: str) -> str | None:
    """On the tasks scored by exact exploitability (``Task.exploitability``), every learner's final
    policies' exploitability per deal, mean over its runs that have it, beside the baselines' (stored
    references); None where no run has it."""
    from agents.bench.tasks import load_references

    scored = [t for t in tasks if any(r.final.exploitability for per in grouped.values() for r in per.get(t, []))]
    if not scored:
        return None
    references = {t: load_references().get(t, {}).get("exploitability", {}).get("baselines", {}) for t in scored}
    baseline_names = sorted({name for found in references.values() for name in found})
    rows = []
    for task in scored:
        cells = []
        for per in grouped.values():
            values = exploitability_scores(per.get(task, []))
            mean, low, high, runs = statistics.per_task({"task": values})["task"] if len(values) else (0, 0, 0, 0)
            cells.append(
                "-" if not runs else f"{mean:.3f} [{low:.3f}, {high:.3f}] ({runs})" if runs > 1 else f"{mean:.3f}"
            )
        found = references[task]
        rows.append([literal(task), *cells, *[f"{found[b]:.3f}" if b in found else "-" for b in baseline_names]])
    return _section(
        f"Exact exploitability per deal of the final policy (0: unexploitable, lower is better), mean ({tag})",
        ["task", *_names(grouped), *_names(baseline_names)],
        rows,
        "(What a best response wins per deal against the policy, both seats, computed exactly; 95% Student-t "
        "interval over seeds, their number in parentheses; baselines: their exact exploitability.)",
    )


ACROSS = "Across tasks"  # how every across-tasks title starts (:func:`summary` finds the first)


def _task_list(tasks: Sequence[str]) -> str:
    return f"the {_count(len(tasks), 'task')} {', '.join(map(literal, tasks))}"


def across_tasks(grouped: Grouped, tasks: Sequence[str], tag: str, tier: str | None = None) -> list[str]:
    """The across-tasks paragraphs of one shared task set: the aggregates of every algorithm that ran
    all of ``tasks``, over those tasks only, and (for two or more) the probability of improvement;
    ``tier``: the tier the tasks are all of, said in the title."""
    members = sharing(grouped, tasks)
    of_tier = f" of the {tier} tier" if tier else ""
    parts = [
        _section(
            f"{ACROSS}, over {_task_list(tasks)}{of_tier}, which every algorithm below ran ({tag}; stratified "
            "bootstrap over seeds, 95% intervals):",
            ["algorithm", "tasks", *statistics.AGGREGATES],
            [
                [literal(a), _compared(len(tasks), len(grouped[a])), *_aggregates(final_scores(grouped[a], tasks))]
                for a in members
            ],
            None
            if all(len(grouped[a]) == len(tasks) for a in members)
            else "(N of M: compared over N of the M tasks the algorithm ran.)",
        )
    ]
    if len(members) > 1:
        parts.append(
            _section(
                f"Probability of improvement, P(row > column), over the same {len(tasks)} tasks ({tag}; 95% interval):",
                ["", *_names(members)],
                [[literal(a), *(_improvement(grouped, a, b, tasks) for b in members)] for a in members],
            )
        )
    return parts


def _compared(shared: int, ran: int) -> str:
    return str(shared) if shared == ran else f"{shared} of {ran}"


def compute_table(grouped: Grouped, tag: str) -> str:
    """Each algorithm's number of runs, their wall times summed and the timesteps their environments
    counted, summed (``counted_steps``: protocol v2; a dash where a run has no count, as in v1)."""
    rows = []
    for algorithm, per in grouped.items():
        runs = [r for runs in per.values() for r in runs]
        seconds = sum(r.wall_seconds for r in runs)
        counts = [r.counted_steps for r in runs]
        steps = "-" if None in counts else f"{sum(counts):,}"
        rows.append([literal(algorithm), str(len(runs)), f"{seconds:,.0f} s ({seconds / 3600:.1f} h)", steps])
    return _section(
        f"Compute ({tag}): each algorithm's runs, their wall times summed (W workers take about 1/W of"
        " it) and the timesteps they counted:",
        ["algorithm", "runs", "wall time of its runs", "timesteps counted"],
        rows,
    )


def invalid_table(section: Section) -> str:
    """The runs left out of the section, each with the reasons its result file gives."""
    rows = [
        [
            literal(r.task),
            literal(r.algorithm),
            str(r.seed),
            literal("; ".join(invalid_reasons(r)) or "no reason given"),
        ]
        for r in section.invalid
    ]
    return _section(
        f"Left out ({section.label}): {_count(len(rows), 'invalid run')}, not in any "
        "figure above, with the reasons their result files give:",
        ["task", "algorithm", "seed", "why it is invalid"],
        rows,
    )


def _section(title: str, header: list[str], rows: list[list[str]], note: str | None = None) -> str:
    """A paragraph of the leaderboard: its title, its table and, below, a note."""
    return f"{title}\n\n{markdown_table(header, rows)}" + (f"\n{note}\n" if note else "")


def _names(names: Iterable[str]) -> list[str]:
    return [literal(name) for name in names]


def _frozen(scores: dict[str, np.ndarray]) -> tuple[tuple[str, tuple[float, ...]], ...]:
    """``scores`` as a key of a cache (the Markdown and the JSON ask for the same bootstraps)."""
    return tuple((task, tuple(map(float, values))) for task, values in scores.items())


def _aggregate_figures(scores: dict[str, np.ndarray]) -> dict[str, tuple[float, float, float]]:
    """IQM, mean and optimality gap of one algorithm's scores, each with its bootstrap interval."""
    return _bootstraps(_frozen(scores))


@functools.lru_cache(maxsize=1024)
def _bootstraps(key: tuple[tuple[str, tuple[float, ...]], ...]) -> dict[str, tuple[float, float, float]]:
    scores = {task: np.array(values) for task, values in key}
    return {
        name: statistics.stratified_bootstrap(scores, f, resamples=1000) for name, f in statistics.AGGREGATES.items()
    }


def _aggregates(scores: dict[str, np.ndarray]) -> list[str]:
    return [_interval(*figures) for figures in _aggregate_figures(scores).values()]


def _score(values: np.ndarray) -> str:
    """A task's mean score over runs with its 95% interval; the mean alone for one run (no interval)."""
    return _figure_of(_stats(values))


def _figure_of(stats: dict[str, Any]) -> str:
    """:func:`_stats`' figures as text: the mean with its 95% interval, the mean alone for one run."""
    return _interval(stats["mean"], stats["low"], stats["high"]) if stats["runs"] > 1 else f"{stats['mean']:.2f}"


@functools.lru_cache(maxsize=4096)
def _improvement_figures(
    x: tuple[tuple[str, tuple[float, ...]], ...], y: tuple[tuple[str, tuple[float, ...]], ...]
) -> tuple[float, float, float]:
    a, b = ({task: np.array(values) for task, values in side} for side in (x, y))
    return statistics.probability_of_improvement_interval(a, b, resamples=500)


def improvement(grouped: Grouped, a: str, b: str, tasks: Sequence[str]) -> tuple[float, float, float]:
    """P(a > b) over ``tasks`` with its interval (cached: the Markdown and the JSON ask the same)."""
    return _improvement_figures(*(_frozen(final_scores(grouped[name], tasks)) for name in (a, b)))


def _improvement(grouped: Grouped, a: str, b: str, tasks: Sequence[str]) -> str:
    """P(a > b) with its interval, over ``tasks``; ``-`` on the diagonal."""
    return "-" if a == b else _interval(*improvement(grouped, a, b, tasks))


def summary(text: str) -> str:
    """The first across-tasks paragraph of the leaderboard's Markdown ``text`` (its title, naming its
    tasks and label, and its table of IQM, mean and optimality gap): the README's summary."""
    found = re.search(rf"^{ACROSS}\b", text, re.MULTILINE)
    if found is None:
        raise ValueError("the leaderboard has no across-tasks table")
    table_start = text.index("\n\n", found.start()) + 2
    end = text.find("\n\n", table_start)
    return text[found.start() : end if end >= 0 else len(text)].rstrip("\n") + "\n"


# ---------------------------------------------------------------------- JSON


def _stats(values: np.ndarray) -> dict[str, Any]:
    # one run has no interval: its low and high are infinite, null in the file
    return dict(zip(("mean", "low", "high", "runs"), statistics.per_task({"x": values})["x"]))


def section_json(section: Section) -> dict[str, Any]:
    """One section as JSON: its label and key, per algorithm its per-task (and held-out) figures, exact
    exploitability where scored, and wall time, per shared task set the aggregates and probabilities of
    improvement, the two-player tasks' exploitability and cross-play files (:func:`two_player`), and the
    runs left out."""
    grouped = section.grouped
    protocol, version, fraction = section.key
    algorithms = {}
    for algorithm, per in grouped.items():
        heldout = {
            task: {opponent: _stats(values) for opponent, values in heldout_scores(runs).items()}
            for task, runs in per.items()
        }
        exploitable = {task: exploitability_scores(runs) for task, runs in per.items()}
        algorithms[algorithm] = {
            "tasks": {task: _stats(scores) for task, scores in final_scores(per).items()},
            "heldout": {task: figures for task, figures in heldout.items() if figures},
            # exact exploitability per deal of the final policies, on the tasks that score it (Task.exploitability)
            "exploitability": {task: _stats(values) for task, values in exploitable.items() if len(values)},
            "runs": sum(map(len, per.values())),
            "wall_seconds": round(sum(r.wall_seconds for runs in per.values() for r in runs), 1),
        }
    aggregates = []
    compared = section.compared
    for tasks in task_sets(compared):
        members = sharing(compared, tasks)
        aggregates.append(
            {
                "tasks": list(tasks),
                "algorithms": {
                    a: {
                        name: dict(zip(("point", "low", "high"), figures))
                        for name, figures in _aggregate_figures(final_scores(compared[a], tasks)).items()
                    }
                    for a in members
                },
                "improvement": {
                    a: {
                        b: dict(zip(("point", "low", "high"), improvement(compared, a, b, tasks)))
                        for b in members
                        if b != a
                    }
                    for a in members
                },
            }
        )
    tiers = {}
    if section.tiered:
        tiers = {
            "track": section.track,
            "headline_tasks": _tasks(compared),
            "sanity": {"pass_score": PASS_SCORE, "algorithms": sanity_results(grouped)},
        }
    return {
        "label": section.label,
        "protocol": protocol,
        "task_version": version,
        "budget_fraction": fraction,
        "tiered": section.tiered,
        **tiers,
        "algorithms": algorithms,
        "aggregates": aggregates,
        # the two-player tasks' exploitability and cross-play files, the section's share (two_player)
        "two_player": two_player(section),
        "invalid": [
            {"task": r.task, "algorithm": r.algorithm, "seed": r.seed, "reasons": invalid_reasons(r)}
            for r in section.invalid
        ],
    }


def leaderboard(report: Grouped | Section | Sequence[Section]) -> dict[str, Any]:
    """The same as JSON: ``{"sections": [...]}``, one object per section (:func:`section_json`), each
    with its ``label``, ``protocol``, ``task_version`` and ``budget_fraction``."""
    return {"sections": [section_json(section) for section in _sections_of(report)]}


# ---------------------------------------------------------------------- plots


def curves(runs: list[Result], fractions: Sequence[float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The runs' learning curves on a common grid: (timesteps [points], normalised scores [runs, points]).

    Each run's curve is read against **its own budget** (its points' timesteps over ``run.budget``) and
    interpolated at ``fractions`` of it (default: the task's evaluation points); the timesteps returned
    are those fractions of the runs' budget (a 10% run's axis ends at its 10% budget, not the task's)."""
    fractions = np.array(TASKS[runs[0].task].eval_points if fractions is None else fractions, dtype=float)
    values = []
    for run in runs:
        steps = np.array([p.timesteps for p in run.curve], dtype=float) / run.budget
        scores = np.array([p.headline for p in run.curve])
        values.append(np.interp(fractions, steps, scores) if len(steps) else np.full(len(fractions), np.nan))
    budget = float(np.mean([run.budget for run in runs]))  # one budget per section and task
    return fractions * budget, np.array(values)


def plot_names(report: Sequence[Section]) -> list[list[str]]:
    """The plot files of each section: :data:`PLOTS` for the first (the one a summary shows: the
    README's plots stay where they are), and for each other section the same with its key
    (``performance_profiles_protocol2_v2_fraction0.1.png``)."""
    return [list(PLOTS)] + [
        [name.replace(".png", f"_protocol{s.protocol}_v{s.task_version}_fraction{s.fraction!r}{_slug(s.track)}.png")
         for name in PLOTS]
        for s in report[1:]
    ]


def _slug(track: str) -> str:
    """A track's part of a plot's file name: ``_no_masks_track``; none for the section itself."""
    return "".join(f"_{word}" for word in re.findall(r"[a-z0-9]+", track.lower()))


def plots(report: Grouped | Section | Sequence[Section], folder: Path) -> list[Path]:
    """Per section: performance profiles and aggregated (IQM) sample-efficiency curves, a panel per
    shared task set, and sample-efficiency curves per task, as PNG; every title says the section's label."""
    parts = _sections_of(report)
    written = []
    for section, names in zip(parts, plot_names(parts)):
        if section.grouped:
            written += _section_plots(section, Path(folder), names)
    return written


def _section_plots(section: Section, folder: Path, names: list[str]) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    grouped, tag = section.grouped, section.label
    written = []
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colour = {algorithm: cycle[i % len(cycle)] for i, algorithm in enumerate(grouped)}  # one per algorithm
    compared = section.compared  # the across-task panels: the headline tier only in a tiered section
    shared = task_sets(compared)
    handles = [plt.Line2D([], [], color=colour[a], marker="o", label=_plot_text(a)) for a in grouped]

    def panels() -> tuple[Any, Any]:
        count = max(len(shared), 1)
        figure, grid = plt.subplots(1, count, figsize=(5.5 * count, 4.2), squeeze=False)
        if not shared:  # a tiered section none of whose runs is of the headline tier
            grid[0, 0].set_title("no run of a headline-tier task", fontsize=9)
        return figure, grid.ravel()

    figure, axes_row = panels()
    for axes, tasks in zip(axes_row, shared):
        for algorithm in sharing(compared, tasks):
            profile = statistics.performance_profile(final_scores(compared[algorithm], tasks), THRESHOLDS)
            axes.plot(THRESHOLDS, profile, label=_plot_text(algorithm), color=colour[algorithm])
        _label(axes, "normalised score tau", "fraction of runs with score > tau", _set_title(tasks))
    figure.suptitle(f"performance profiles of the final policies, every seed ({tag})", fontsize=10)
    written.append(_save_with_legend(figure, handles, folder / names[0]))

    tasks = _tasks(grouped)
    columns = 3
    rows = -(-len(tasks) // columns)
    figure, grid = plt.subplots(rows, columns, figsize=(4 * columns, 3 * rows), squeeze=False)
    for axes, task in zip(grid.ravel(), tasks):
        for algorithm, per in grouped.items():
            if task in per:
                steps, values = curves(per[task])
                axes.plot(steps, values.mean(axis=0), marker="o", label=_plot_text(algorithm), color=colour[algorithm])
                axes.fill_between(steps, values.min(axis=0), values.max(axis=0), alpha=0.15, color=colour[algorithm])
        axes.set_title(task, fontsize=9)
        axes.set_xlabel("timesteps of the run's budget", fontsize=7)
        axes.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(_thousands))
        axes.grid(alpha=0.3)
    for axes in grid.ravel()[len(tasks) :]:
        axes.axis("off")
    figure.suptitle(f"normalised score over timesteps, mean over seeds, band: min-max ({tag})", fontsize=10)
    written.append(_save_with_legend(figure, handles, folder / names[1]))

    figure, axes_row = panels()
    for axes, tasks in zip(axes_row, shared):
        fractions = np.array(sorted({f for task in tasks for f in TASKS[task].eval_points}))  # one grid for all
        for algorithm in sharing(compared, tasks):
            stacked = {task: curves(compared[algorithm][task], fractions)[1] for task in tasks}
            points = np.array(
                [
                    statistics.stratified_bootstrap(
                        {task: values[:, k] for task, values in stacked.items()}, statistics.iqm, resamples=300
                    )
                    for k in range(len(fractions))
                ]
            )
            axes.plot(fractions, points[:, 0], marker="o", label=_plot_text(algorithm), color=colour[algorithm])
            axes.fill_between(fractions, points[:, 1], points[:, 2], alpha=0.2, color=colour[algorithm])
        _label(axes, "fraction of each run's training budget", "IQM normalised score (95% CI)", _set_title(tasks))
    figure.suptitle(f"sample efficiency across tasks ({tag})", fontsize=10)
    written.append(_save_with_legend(figure, handles, folder / names[2]))
    return written


def _thousands(value: float, _position: Any = None) -> str:
    """A timestep tick: ``25k`` for 25,000 (whole numbers of thousands up to 150,000 fit a small panel)."""
    return f"{value / 1000:g}k" if value else "0"


def _set_title(tasks: Sequence[str]) -> str:
    """A panel's title: the shared task set it aggregates, its tasks named (wrapped)."""
    names = textwrap.fill(", ".join(_plot_text(t) for t in tasks), 70)
    return f"over the {len(tasks)} shared task{'s' if len(tasks) != 1 else ''}:\n{names}"


def _plot_text(name: str) -> str:
    """``name`` as matplotlib shows it as it is: a ``$`` would start mathematics (and an odd one fail)."""
    return name.replace("$", r"\$")


def _label(axes: Any, xlabel: str, ylabel: str, title: str) -> None:
    """An across-tasks panel's labels, title (small: it names tasks) and light grid."""
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_title(title, fontsize=7)
    axes.grid(alpha=0.3)


def _save_with_legend(figure: Any, handles: list[Any], path: Path) -> Path:
    """The figure with one legend for all its panels (an entry per algorithm) below them, saved."""
    figure.legend(handles=handles, loc="lower center", ncol=min(len(handles), 4), fontsize=8)
    rows = -(-len(handles) // 4)
    bottom = (0.15 + 0.18 * rows) / figure.get_figheight()  # room for the legend's rows (inches)
    return _save(figure, path, rect=(0, bottom, 1, 1))


def _save(figure: Any, path: Path, rect: tuple[float, float, float, float] = (0, 0, 1, 1)) -> Path:
    import matplotlib.pyplot as plt

    figure.tight_layout(rect=rect)
    with atomic_path(path) as partial:
        figure.savefig(partial, dpi=110)
    plt.close(figure)
    return path


# ---------------------------------------------------------------------- files


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
    first across-tasks paragraph between the ``leaderboard-summary`` markers (:mod:`agents.bench.markdown`);
    other generated tables are left alone, and a file with neither marker is a ValueError."""
    content = _check_readme(readme)
    parts = {"leaderboard": text, "leaderboard-summary": summary(text) if ACROSS in text else None}
    write_text(readme, splice_marked(content, parts.get)[0])


def load_sections(results: Path, separate: bool = False, tiered: bool = False) -> list[Section]:
    """The sections of the results folder ``results`` (:func:`sections`), every file checked first."""
    from agents.bench.measurements import load_measurements

    found = sections(load_results(results), separate, folder=results, tiered=tiered)
    if not found:
        raise ValueError(f"{results} holds no finished result files")
    measured = load_measurements(results)
    return [replace(section, measured=measured) for section in found]


def elo_text(row: dict[str, Any]) -> str:
    """A cross-play rating (``mean``, ``low``, ``high`` on the Elo scale) as text: ``+1081 [+1063, +1106]``."""
    return f"{row['mean']:+.0f} [{row['low']:+.0f}, {row['high']:+.0f}]"


def _fraction_of(row: dict[str, Any]) -> float:
    """The budget fraction of an exploitability row or cross-play entry: recorded, or read from its
    result file's place (``ALGORITHM/fraction_F/seed_N.json``; none: the full budget)."""
    recorded = row.get("budget_fraction")
    if isinstance(recorded, (int, float)) and not isinstance(recorded, bool):
        return float(recorded)
    for part in str(row.get("result", "")).split("/"):
        if part.startswith("fraction_"):
            try:
                return float(part[len("fraction_") :])
            except ValueError:
                break
    return 1.0


BOUND_METHODS = {"trained": "MaskablePPO responder", "fast": "fast PPO responder", "local": "local best response"}
"""How the two-player table names the method of an exploitability bound (``exploit-TASK.json``'s ``method``;
files written before it was recorded are MaskablePPO's)."""


def two_player(section: Section) -> dict[str, dict[str, Any]]:
    """Per two-player task with an exploitability or cross-play file in the folder (``trash-bench
    exploit RESULTS`` / ``crossplay RESULTS``, :mod:`agents.bench.measurements`), the section's share of
    them: per algorithm the exploitability of its runs (``kind`` ``exact``: the mean over them, with its
    interval and number; ``bound``: its best run's lower bound, with the bound's ``method``) and the
    cross-play rating of its best-rated run; the baselines' ratings. The two-player table and
    ``leaderboard.json``'s ``two_player`` read it."""
    grouped, found = section.grouped, {}
    for task in _tasks(grouped):
        measured = section.measured.get((task, section.task_version), {})
        exploit, crossplay = measured.get("exploit"), measured.get("crossplay")
        if exploit is None and crossplay is None:
            continue
        # the section's runs only: those of its budget fraction (both files cover every run of the task)
        ours = section.fraction
        by_run = {row["run"]: row for row in (exploit or {}).get("runs", []) if _fraction_of(row) == ours}
        ratings = {row["agent"]: row for row in (crossplay or {}).get("ratings", [])}
        kinds = {entry["name"]: entry for entry in (crossplay or {}).get("entries", [])}
        algorithms = {}
        for algorithm in grouped:
            runs = [row for row in by_run.values() if row["algorithm"] == algorithm]
            rated = [
                name
                for name in ratings
                if kinds[name].get("algorithm") == algorithm and _fraction_of(kinds[name]) == ours
            ]
            if not runs and not rated:
                continue
            entry: dict[str, Any] = {"exploitability": None, "rating": None}
            if runs and exploit["kind"] == "exact":
                entry["exploitability"] = {"kind": "exact", **_stats(np.array([row["exploitability"] for row in runs]))}
            elif runs:
                row = runs[0]
                entry["exploitability"] = {
                    "kind": "bound", "mean": row["exploitability"], "low": row["low"], "high": row["high"],
                    "method": exploit.get("method", "trained"), "run": row["run"],
                }
            if rated:
                best = max(rated, key=lambda name: ratings[name]["mean"])
                entry["rating"] = {"run": best, **{key: ratings[best][key] for key in ("mean", "low", "high")}}
            algorithms[algorithm] = entry
        baselines = {
            name: {key: ratings[name][key] for key in ("mean", "low", "high")}
            for name, entry in kinds.items()
            if entry.get("kind") == "baseline" and name in ratings
        }
        found[task] = {"algorithms": algorithms, "baselines": baselines}
    return found


def two_player_table(section: Section) -> str | None:
    """The two-player tasks' table (:func:`two_player`): per task and algorithm its exploitability
    (exact: mean over runs; a trained bound: its best run's) and the cross-play rating of its best-rated
    run, with the baselines' ratings; None if there is none."""
    rows = []
    for task, measured in two_player(section).items():
        for algorithm, entry in measured["algorithms"].items():
            found, rated = entry["exploitability"], entry["rating"]
            if found is None:
                exploitability = "-"
            elif found["kind"] == "exact":
                exploitability = f"{_figure_of(found)} exact ({found['runs']})"
            else:
                bound = _interval(found["mean"], found["low"], found["high"])
                method = BOUND_METHODS.get(found["method"], found["method"])
                exploitability = f"≥ {bound}, {method} ({run_text(found['run'])})"
            rating = f"{elo_text(rated)} ({run_text(rated['run'])})" if rated else "-"
            rows.append([literal(task), literal(algorithm), exploitability, rating])
        for name, rated in measured["baselines"].items():
            rows.append([literal(task), f"{literal(name)} (baseline)", "-", elo_text(rated)])
    if not rows:
        return None
    return _section(
        f"Two-player tasks: exploitability and cross-play ({section.label})",
        ["task", "algorithm", "exploitability per deal", "cross-play rating (Elo), best run"],
        rows,
        "(Exploitability: how much the best opponent wins against the final policy, in score difference per "
        "deal, 0 for an optimal policy; exact on the solved tasks, mean over runs; elsewhere a lower bound, "
        "what a best response wins against the algorithm's best run, with its 95% interval and the method named "
        "(`trash-bench exploit --method`: a MaskablePPO responder trained against it, the fast trainer's, or a "
        "local best response). "
        "Cross-play rating: Bradley-Terry on the Elo scale (`random` 0) from every run and baseline "
        "playing each other on the same duplicate deals, with its 95% bootstrap interval.)",
    )


def report(
    results: Path,
    out: Path | None = None,
    readme: Path | list[Path] | None = None,
    with_plots: bool = True,
    separate: bool = False,
    tiered: bool = False,
) -> str:
    """Read ``results``, write ``leaderboard.md``, ``leaderboard.json`` and the plots into ``out``
    (default: ``results``), optionally splice the Markdown into ``readme`` (a file or several);
    returns the Markdown. Everything is checked before anything is written: every result file
    (:func:`agents.bench.store.load_results`: a bad one is a ``BadResultsError`` naming each), that the
    folder holds one protocol, task version and budget fraction (or ``separate``: a section for each),
    the output folder, and the markers of every ``readme``. ``tiered``: the v3 leaderboard's layout
    (:func:`sections`: by tier, the learners without masks as their own track)."""
    found = load_sections(results, separate, tiered)
    out = Path(out or results)
    readmes = [readme] if isinstance(readme, Path) else list(readme or [])
    for name in ["leaderboard.md", "leaderboard.json", *(n for names in plot_names(found) for n in names)]:
        check_output_path("--out", out / name)
    for path in readmes:
        _check_readme(path)
    text = markdown(found)
    board = leaderboard(found)
    write_text(out / "leaderboard.md", text)
    write_json(out / "leaderboard.json", board)
    if with_plots:
        plots(found, out)
    for path in readmes:
        splice(path, text)
    return text
