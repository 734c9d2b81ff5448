"""The report under protocol v2 (issue 24, items 1, 7 and 10; :mod:`agents.bench.report`):

- a folder mixing budget fractions, task versions or protocols is refused with one line (exit 2,
  nothing written) unless ``separate``: then one section per group, each with its label, in the
  Markdown, in ``leaderboard.json`` and in the plots' names and titles;
- an invalid run (format 2 ``"valid": false``) is in no figure, and is listed with its reasons;
- across-task figures are computed over task sets every compared algorithm ran, each table naming
  its tasks; the per-task table shows every task;
- the per-task curves are drawn against each run's own budget;
- format-2 results show their held-out opponents' normalised scores in the per-task table;
- the committed results (format 1, task version 1) are reported as protocol v1, with the v1 baselines.

The runs here are made as :class:`agents.bench.results.Result` objects with the fields the report reads
(the runner's files are tested in ``test_result_files.py``); the report command reads them through a
patched ``load_results``.
"""

from __future__ import annotations

import html.parser
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.bench import report, results, statistics
from agents.bench.tasks import TASKS
from agents.commands.bench import main

ROOT = Path(__file__).resolve().parents[2]
ANCHORS = results.Anchors(random=-1.0, reference=0.0)  # score s is normalised s + 1


def run(
    task: str,
    seed: int,
    final: float,
    algorithm: str = "a",
    fraction: float = 1.0,
    version: int | None = None,
    protocol: int = 2,
    valid: bool = True,
    reasons: Sequence[str] = (),
    heldout: dict[str, float] | None = None,
    curve: Sequence[float] | None = None,
) -> results.Result:
    """A finished run of ``task`` whose final policy scores ``final`` normalised (and ``heldout``:
    opponent -> normalised score against it), at ``fraction`` of the budget, its curve ``curve`` at
    the task's evaluation points of that budget; format 2 for protocol 2, else format 1."""
    spec = TASKS[task]
    budget = spec.scaled_budget(fraction)
    values = curve if curve is not None else [final * f for f in spec.eval_points]
    points = tuple(
        results.CurvePoint(round(f * budget), n - 1, n - 1, n - 1, n) for f, n in zip(spec.eval_points, values)
    )
    two = protocol == 2
    last = results.FinalEvaluation(
        final - 1, final - 1, final - 1, final, 100, seed=2**40 if two else None, anchors=ANCHORS if two else None
    )
    fields: dict[str, Any] = dict(
        format=2 if two else 1,
        task=task,
        task_version=spec.version if version is None else version,
        algorithm=algorithm,
        seed=seed,
        budget=budget,
        budget_fraction=fraction,
        curve=points,
        final=last,
        reference=ANCHORS,
        evaluation=results.Protocol(spec.reference, 10, 100, 1_000_003),
        wall_seconds=10.0,
        package_version="0",
        complete=True,
    )
    if two:
        fields.update(
            protocol=2,
            counted_steps=budget,
            valid=valid,
            invalid_reasons=tuple(reasons),
            heldout=tuple(
                results.HeldOutEvaluation(opponent, n - 1, n - 1, n - 1, n, 100, ANCHORS)
                for opponent, n in (heldout or {}).items()
            ),
        )
    return results.Result(**fields)


def runs(task: str, *finals: float, **options: Any) -> list[results.Result]:
    return [run(task, seed, value, **options) for seed, value in enumerate(finals)]


def served(monkeypatch: pytest.MonkeyPatch, found: list[results.Result]) -> None:
    """``report`` reads ``found`` as a results folder's checked files."""
    monkeypatch.setattr(report, "load_results", lambda folder: list(found))


def files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


# --------------------------------------------------------------------------
# One protocol, task version and fraction per report, unless separate


def test_the_compute_table_sums_wall_time_and_counted_timesteps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each algorithm's runs, their wall times and counted timesteps summed; v1 runs counted none."""
    served(
        monkeypatch,
        runs("hyn-4p", 0.9, 0.8) + runs("hyn-2p", 0.5, algorithm="b") + runs("hyn-4p", 0.7, protocol=1, version=1),
    )
    text = report.report(tmp_path, tmp_path / "out", with_plots=False, separate=True)
    v2, v1 = text.split("### ")[1:]
    budget4, budget2 = TASKS["hyn-4p"].scaled_budget(1.0), TASKS["hyn-2p"].scaled_budget(1.0)
    assert f"| `a` | 2 | 20 s (0.0 h) | {2 * budget4:,} |" in v2 and f"| `b` | 1 | 10 s (0.0 h) | {budget2:,} |" in v2
    assert "| `a` | 1 | 10 s (0.0 h) | - |" in v1


def test_a_folder_mixing_budget_fractions_is_refused_in_one_line_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's case: a 1% smoke run beside full-budget runs is not merged into their cells."""
    served(monkeypatch, runs("hyn-4p", 0.9, 0.8) + runs("hyn-4p", 0.1, fraction=0.01))
    readme = tmp_path / "page.md"
    readme.write_text("<!-- table:leaderboard -->\nold\n<!-- /table:leaderboard -->\n")
    before = files(tmp_path)
    assert main(["report", str(tmp_path), "--readme", str(readme)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert captured.out == "" and len(lines) == 1, captured
    assert "mixes budget fractions 0.01 and 1.0" in lines[0] and "--separate" in lines[0]
    assert "2 runs of protocol v2, task version 3, budget fraction 1.0" in lines[0]
    assert "1 run of protocol v2, task version 3, budget fraction 0.01" in lines[0]
    assert files(tmp_path) == before and "old" in readme.read_text()


@pytest.mark.parametrize(
    ("second", "mixed"),
    [
        ({"version": 2}, "task versions v2 and v3"),
        ({"protocol": 1}, "protocols v1 and v2"),
        ({"protocol": 1, "version": 1, "fraction": 0.1}, "protocols v1 and v2; task versions v1 and v3; budget fr"),
    ],
    ids=["task versions", "protocols", "all three"],
)
def test_a_folder_mixing_task_versions_or_protocols_is_refused(second: dict[str, Any], mixed: str) -> None:
    found = runs("hyn-2p", 0.5) + runs("hyn-2p", 0.6, **second)
    with pytest.raises(ValueError, match="give --separate") as refused:
        report.sections(found, folder="runs")
    assert str(refused.value).startswith(f"runs mixes {mixed}") and "\n" not in str(refused.value)
    assert len(report.sections(found, separate=True)) == 2


def test_separate_gives_one_section_per_group_each_with_its_label(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every table of a section and its JSON say the section's label; the plots of each section have
    its key in their names; the sections come newest protocol and largest fraction first."""
    served(
        monkeypatch,
        runs("hyn-4p", 0.9, 0.8) + runs("hyn-4p", 0.1, 0.2, fraction=0.01) + runs("hyn-4p", 0.7, protocol=1, version=1),
    )
    text = report.report(tmp_path, tmp_path / "out", with_plots=False, separate=True)
    labels = [
        "protocol v2, task version 3, budget fraction 1.0",
        "protocol v2, task version 3, budget fraction 0.01",
        "protocol v1, task version 1, budget fraction 1.0",
    ]
    parts = text.split("### ")[1:]
    assert [part.split("\n")[0] for part in parts] == [label[0].upper() + label[1:] for label in labels]
    for part, label in zip(parts, labels):
        titles = [line for line in part.split("\n") if line.startswith(("Normalised", "Best", "Across", "Compute"))]
        assert len(titles) == 4 and all(f"({label}" in title for title in titles), titles
    assert (
        "| `hyn-4p` | 0.85 [" in parts[0]
        and "| `hyn-4p` | 0.15 [" in parts[1]
        and "| `hyn-4p` | 0.70 (1) |" in parts[2]
    )
    assert "Protocol v1 (result format 1)" in parts[2] and "Protocol v2:" in parts[0]
    board = json.loads((tmp_path / "out" / "leaderboard.json").read_text())
    assert [s["label"] for s in board["sections"]] == labels
    assert [(s["protocol"], s["task_version"], s["budget_fraction"]) for s in board["sections"]] == [
        (2, 3, 1.0),
        (2, 3, 0.01),
        (1, 1, 1.0),
    ]
    assert [s["algorithms"]["a"]["tasks"]["hyn-4p"]["runs"] for s in board["sections"]] == [2, 2, 1]
    names = report.plot_names(report.sections(report.load_results(tmp_path), separate=True))
    assert names[0] == list(report.PLOTS)  # the leading section's: where the README shows them
    assert names[1] == [
        "performance_profiles_protocol2_v3_fraction0.01.png",
        "sample_efficiency_per_task_protocol2_v3_fraction0.01.png",
        "sample_efficiency_protocol2_v3_fraction0.01.png",
    ]
    assert report.plot_names(report.sections(runs("hyn-4p", 0.9)))[0] == list(report.PLOTS)  # one: plain names


def test_every_plot_title_states_the_label(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("matplotlib")
    figures: list[Any] = []
    monkeypatch.setattr(report, "_save", lambda figure, path, rect=None: figures.append(figure) or path)
    section = report.sections(runs("hyn-4p", 0.4, 0.5, fraction=0.1))[0]
    report.plots([section], tmp_path)
    assert len(figures) == 3
    assert all("(protocol v2, task version 3, budget fraction 0.1)" in f._suptitle.get_text() for f in figures)


# --------------------------------------------------------------------------
# Invalid runs


def test_an_invalid_run_is_left_out_of_every_figure_and_listed_with_its_reasons(tmp_path: Path) -> None:
    cheat = run("hyn-4p", 2, 5.0, valid=False, reasons=["counted 9,000 steps over a budget of 1,500 | slack 256"])
    section = report.sections([*runs("hyn-4p", 0.4, 0.6), cheat, *runs("hyn-2p", 0.5)])[0]
    assert [r.seed for r in section.grouped["a"]["hyn-4p"]] == [0, 1] and section.invalid == (cheat,)
    text = report.markdown(section)
    assert "| `hyn-4p` | 0.50 [" in text and "(2) |" in text  # the mean of the valid two, and two runs
    assert "5.00" not in text and "; 1 invalid run left out." in text
    left = text[text.index("Left out (protocol v2, task version 3, budget fraction 1.0): 1 invalid run,") :]
    reason = "counted 9,000 steps over a budget of 1,500 &#124; slack 256".replace(".", "&#46;")
    assert f"| `hyn-4p` | `a` | 2 | {reason} |" in left
    board = report.leaderboard(section)["sections"][0]
    assert board["invalid"] == [{"task": "hyn-4p", "algorithm": "a", "seed": 2, "reasons": list(cheat.invalid_reasons)}]
    assert board["algorithms"]["a"]["tasks"]["hyn-4p"]["runs"] == 2
    profile = statistics.performance_profile(report.final_scores(section.grouped["a"]), np.array([1.0]))
    assert profile.tolist() == [0.0]  # the invalid 5.0 is above 1: were it counted, the profile would not be 0


def test_a_folder_of_invalid_runs_only_lists_them(tmp_path: Path) -> None:
    section = report.sections([run("hyn-4p", 0, 0.5, valid=False, reasons=["nothing was counted"])])[0]
    text = report.markdown(section)
    assert section.grouped == {} and "nothing was counted" in text and "Across" not in text


# --------------------------------------------------------------------------
# Across tasks: only over the tasks the compared algorithms share


def test_aggregates_are_over_the_tasks_the_compared_algorithms_share() -> None:
    """An algorithm that ran 3 tasks is compared with one that ran 4 over its 3 only (and the table
    names them); the one with 4 has its own table over its 4; the per-task table shows all 4."""
    three = ["trash-standard-2p", "trash-pagat-2p-match", "hyn-2p"]
    four = [*three, "hyn-4p"]
    grouped = {
        "big": {t: runs(t, 0.2 + i / 10, 0.3 + i / 10, algorithm="big") for i, t in enumerate(four)},
        "small": {t: runs(t, 0.9, 1.0 - i / 10, algorithm="small") for i, t in enumerate(three)},
    }
    section = report.Section.of(grouped)
    assert report.task_sets(grouped) == [tuple(four), tuple(three)]
    text = report.markdown(section)
    across = [part for part in text.split("\n\n") if part.startswith("Across tasks")]
    assert across[0].startswith(f"Across tasks, over the 4 tasks {', '.join(f'`{t}`' for t in four)}, which every")
    assert across[1].startswith(f"Across tasks, over the 3 tasks {', '.join(f'`{t}`' for t in three)}, which every")
    tables = [part for part in text.split("\n\n") if part.startswith("| algorithm | tasks | IQM")]
    assert [len(t.strip().split("\n")) - 2 for t in tables] == [1, 2]  # big alone; then big and small
    for name, table, tasks in (("big", tables[0], four), ("big", tables[1], three), ("small", tables[1], three)):
        scores = {t: report.finals(grouped[name][t]) for t in tasks}
        iqm = statistics.stratified_bootstrap(scores, statistics.iqm, resamples=1000)
        row = next(line for line in table.split("\n") if line.startswith(f"| `{name}` |"))
        assert f" | {iqm[0]:.2f} [{iqm[1]:.2f}, {iqm[2]:.2f}] | " in row, (name, row)
    assert "| `big` | 3 of 4 |" in tables[1] and "| `small` | 3 |" in tables[1]
    poi = text[text.index("Probability of improvement, P(row > column), over the same 3 tasks") :]
    expected = statistics.probability_of_improvement_interval(
        {t: report.finals(grouped["small"][t]) for t in three},
        {t: report.finals(grouped["big"][t]) for t in three},
        resamples=500,
    )
    assert f"| `small` | {expected[0]:.2f} [{expected[1]:.2f}, {expected[2]:.2f}] | - |" in poi
    per_task = text[: text.index("Best learned policy")]
    assert all(f"| `{t}` |" in per_task for t in four) and "| `hyn-4p` | 0.55 [" in per_task
    board = report.leaderboard(section)["sections"][0]["aggregates"]
    assert [a["tasks"] for a in board] == [four, three] and sorted(board[1]["algorithms"]) == ["big", "small"]
    assert board[1]["algorithms"]["big"]["IQM"]["point"] == pytest.approx(
        statistics.iqm(np.stack([report.finals(grouped["big"][t]) for t in three], axis=1))
    )


def test_task_sets_hold_every_intersection_so_any_two_algorithms_meet_over_what_both_ran() -> None:
    grouped = {
        "x": {"hyn-2p": [], "hyn-4p": [], "trash-standard-2p": []},
        "y": {"hyn-4p": [], "trash-standard-2p": [], "trash-pagat-2p": []},
    }
    assert report.task_sets(grouped) == [
        ("trash-standard-2p", "trash-pagat-2p", "hyn-4p"),  # ties by registry order
        ("trash-standard-2p", "hyn-2p", "hyn-4p"),
        ("trash-standard-2p", "hyn-4p"),
    ]
    assert report.sharing(grouped, ("trash-standard-2p", "hyn-4p")) == ["x", "y"]


def test_the_readme_summary_is_the_largest_shared_task_set_with_its_label() -> None:
    grouped = {"a": {t: runs(t, 0.5) for t in ("hyn-2p", "hyn-4p")}, "b": {"hyn-2p": runs("hyn-2p", 0.7)}}
    summary = report.summary(report.markdown(grouped))
    assert summary.startswith("Across tasks, over the 2 tasks `hyn-2p`, `hyn-4p`, which every algorithm below ran")
    assert "(protocol v2, task version 3, budget fraction 1.0;" in summary
    assert summary.endswith("| `a` | 2 | 0.50 [0.50, 0.50] | 0.50 [0.50, 0.50] | 0.50 [0.50, 0.50] |\n")


# --------------------------------------------------------------------------
# Plots


def test_the_per_task_curves_are_against_each_runs_own_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 10% run of a 100,000-step task is drawn over 0..10,000 timesteps (the issue: the full budget)."""
    ten = runs("trash-standard-2p", 0.8, 0.6, fraction=0.1, curve=[0.0, 0.2, 0.4, 0.6, 0.8])
    steps, values = report.curves(ten)
    assert steps.tolist() == [0.0, 2500.0, 5000.0, 7500.0, 10000.0]
    np.testing.assert_allclose(values, [[0.0, 0.2, 0.4, 0.6, 0.8]] * 2)
    steps, _ = report.curves(runs("trash-standard-2p", 0.8))
    assert steps[-1] == TASKS["trash-standard-2p"].budget
    pytest.importorskip("matplotlib")
    figures: list[Any] = []
    monkeypatch.setattr(report, "_save", lambda figure, path, rect=None: figures.append(figure) or path)
    report.plots(report.sections(ten), tmp_path)
    (line,) = figures[1].axes[0].get_lines()
    assert list(line.get_xdata()) == [0.0, 2500.0, 5000.0, 7500.0, 10000.0]


# --------------------------------------------------------------------------
# Held-out opponents


def test_held_out_opponents_are_beside_the_headline_in_the_per_task_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """Below a task's row, one per held-out opponent: every learner's normalised score against it and
    the baselines' (from the stored references' held-out anchors); format 1 has none."""
    stored = {
        "version": TASKS["hyn-4p"].version,
        "random": -1.0,
        "reference": 0.0,
        "baselines": {"random": -1.0, "heuristic": 0.0, "roller": -0.5},
        "heldout": {"roller": {"random": -2.0, "reference": 0.0, "baselines": {"heuristic": 0.0, "roller": -1.5}}},
    }
    monkeypatch.setattr(report, "load_references", lambda: {"hyn-4p": stored})
    grouped = {
        "a": {
            "hyn-4p": [run("hyn-4p", s, 0.9, heldout={"roller": v}) for s, v in enumerate((0.4, 0.6))],
            "trash-standard-2p": [run("trash-standard-2p", 0, 1.0, heldout={"counter": 0.95})],
        },
        "b": {"hyn-4p": [run("hyn-4p", 0, 0.7, algorithm="b", heldout={"roller": 0.3})]},
    }
    text = report.markdown(grouped)
    lines = text.split("\n")
    header = next(line for line in lines if line.startswith("| task |"))
    assert header == "| task | `a` | `b` | `heuristic` | `roller` |"
    row = lines.index(next(line for line in lines if line.startswith("| `hyn-4p` |")))
    assert lines[row].endswith(" (2) | 0.70 (1) | 1.00 | 0.50 |")
    assert lines[row + 1].startswith(
        "| ↳ vs `roller` (held out) | 0.50 [-0.77, 1.77] (2) | 0.30 (1) | 1.00 | 0.25 |"
    )
    assert "| ↳ vs `counter` (held out) | 0.95 (1) | - | - | - |" in text
    assert "an opponent never met in training" in text
    held = report.leaderboard(grouped)["sections"][0]["algorithms"]["a"]["heldout"]
    assert held["hyn-4p"]["roller"]["mean"] == pytest.approx(0.5) and held["hyn-4p"]["roller"]["runs"] == 2
    one = report.markdown({"a": {"hyn-4p": runs("hyn-4p", 0.9, protocol=1)}})  # format 1: none
    assert "held out" not in one


# --------------------------------------------------------------------------
# The committed results of protocol v1, kept aside in docs/results-v1


def test_references_v1_hold_the_anchors_every_committed_result_was_normalised_with() -> None:
    """``references_v1.json`` (the references as they were before commit a632562) has a version-1 entry
    for every task of the committed results, with the very anchors each of their files stores."""
    frozen = json.loads(report.FROZEN_REFERENCES[1].read_text())
    found = report.load_results(ROOT / "docs" / "results-v1")
    added_since = {"trash-small-2p-selfplay"}  # tasks of later leaderboards
    assert {r.task for r in found} == set(TASKS) - added_since and len(found) > 300
    for result in found:
        entry = frozen[result.task]
        assert entry["version"] == 1 == result.task_version
        assert (entry["random"], entry["reference"]) == (result.reference.random, result.reference.reference)
        assert entry["baselines"]["random"] == entry["random"]


def test_the_committed_results_are_one_section_labelled_protocol_v1_with_the_v1_baselines() -> None:
    (section,) = report.load_sections(ROOT / "docs" / "results-v1")
    assert section.key == (1, 1, 1.0) and not section.invalid
    assert section.label == "protocol v1, task version 1, budget fraction 1.0"
    intro = report.section_intro(section)
    assert intro.startswith("Results of protocol v1, task version 1, budget fraction 1.0: 365 runs of 7 algorithms")
    assert "Protocol v1 (result format 1)" in intro
    baselines = report.baseline_scores(1)
    frozen = json.loads(report.FROZEN_REFERENCES[1].read_text())["hyn-2p"]
    assert baselines["hyn-2p"]["heuristic"] == pytest.approx(
        (frozen["baselines"]["heuristic"] - frozen["random"]) / (frozen["reference"] - frozen["random"])
    )
    tasks = report._tasks(section.grouped)
    table = report.per_task_table(section.grouped, tasks, baselines, section.label)
    assert table.startswith("Normalised score (0: `random`, 1: the task's reference agent) of the final policy, ")
    assert "mean over seeds (protocol v1, task version 1, budget fraction 1.0)\n" in table
    assert "| `hyn-2p` | 0.50 [-0.18, 1.18] (5) |" in table and "| - | - | 0.89 | 1.00 |" in table
    assert "held out" not in table


def test_results_of_an_unknown_version_have_no_baseline_columns() -> None:
    assert report.baseline_scores(7) == {}
    assert report.stored_references(1, "hyn-2p")["version"] == 1


def test_a_section_is_titled_by_its_runs_and_refuses_a_mixed_grouping() -> None:
    with pytest.raises(ValueError, match=r"the runs mix budget fractions 0\.1 and 1\.0"):
        report.Section.of({"a": {"hyn-4p": [run("hyn-4p", 0, 0.5), run("hyn-4p", 1, 0.5, fraction=0.1)]}})
    assert report.Section.of({"a": {"hyn-4p": runs("hyn-4p", 0.5)}}).key == (2, TASKS["hyn-4p"].version, 1.0)


class Tags(html.parser.HTMLParser):
    """The tags of an HTML fragment, each table's rows' widths, and the text of its cells."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.widths: list[list[int]] = []
        self.cells: list[str] = []
        self.in_cell = False

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self.tags.add(tag)
        if tag == "table":
            self.widths.append([])
        elif tag == "tr":
            self.widths[-1].append(0)
        elif tag in ("td", "th"):
            self.widths[-1][-1] += 1
            self.cells.append("")
            self.in_cell = True

    def handle_endtag(self, tag: str) -> None:
        self.in_cell = self.in_cell and tag not in ("td", "th")

    def handle_data(self, data: str) -> None:
        if self.in_cell:
            self.cells[-1] += data


def test_reasons_names_and_held_out_rows_stay_text_in_the_html_of_every_section() -> None:
    """Defence in depth (the schema refuses such names, and bounds reasons): a name and a reason made of
    Markdown and HTML give tables whose rows all have their header's width and no element of their own."""
    markdown_it = pytest.importorskip("markdown_it")
    name, reason = "<b>x</b>|y", "<script>alert(1)</script> | `x` *y* [z](https://example.com)"
    found = [
        *runs("hyn-4p", 0.5, 0.6, algorithm=name, heldout={"roller": 0.2}),
        run("hyn-4p", 2, 0.7, algorithm=name, valid=False, reasons=[reason]),
        *runs("hyn-4p", 0.5, algorithm=name, fraction=0.1),
    ]
    text = report.markdown(report.sections(found, separate=True))
    page = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(text)
    parsed = Tags()
    parsed.feed(page)
    assert parsed.tags <= {"table", "thead", "tbody", "tr", "th", "td", "code", "p", "h3"}, parsed.tags
    assert all(len(set(widths)) == 1 for widths in parsed.widths), parsed.widths
    assert reason in parsed.cells and name in parsed.cells and f"{name} vs roller (held out)" not in parsed.cells
    assert "↳ vs roller (held out)" in parsed.cells


def test_the_full_budget_leads_then_the_open_budget_track_then_smaller_fractions() -> None:
    """A summary shows the first section: the full budget's, whatever else the folder holds; the
    open-budget track (a fraction above 1) is its own section, labelled so."""
    found = [
        *runs("hyn-2p", 0.5, 0.6, fraction=0.1),
        *runs("hyn-2p", 0.99, algorithm="b", fraction=1000.0),
        *runs("hyn-2p", 0.4, 0.5),
    ]
    sections = report.sections(found, separate=True)
    assert [section.key[2] for section in sections] == [1.0, 1000.0, 0.1]
    assert "(open budget)" in sections[1].label and "open budget" not in sections[0].label
    assert "budget fraction 1.0;" in report.summary(report.markdown(sections))


# --------------------------------------------------------------------------
# Tiers (v3, issue 54): the headline aggregate over the headline tier only, the sanity tier pass or
# fail, the learners without masks as their own track


def test_a_tiered_report_aggregates_the_headline_tier_and_passes_or_fails_the_sanity_tier(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("matplotlib")
    assert TASKS["hyn-2p"].tier == TASKS["trash-pagat-2p-match"].tier == "headline"
    assert TASKS["trash-standard-2p"].tier == TASKS["trash-pagat-2p"].tier == "sanity"
    found = runs("hyn-2p", 0.6, 0.7) + runs("trash-pagat-2p-match", 0.8, 0.9)
    found += runs("trash-standard-2p", 0.95, 0.97) + runs("trash-pagat-2p", 0.5, 0.52)
    found += runs("hyn-2p", 0.2, 0.3, algorithm="ppo") + runs("trash-standard-2p", -0.3, -0.2, algorithm="ppo")
    served(monkeypatch, found)
    out = tmp_path / "out"
    assert main(["report", str(tmp_path), "--out", str(out), "--tiers"]) == 0
    text = (out / "leaderboard.md").read_text()
    masked, maskless = text.split("### ")[1:]
    assert masked.startswith("Protocol v2, task version 3, budget fraction 1.0\n")
    assert maskless.startswith("Protocol v2, task version 3, budget fraction 1.0, no masks track\n")
    assert "`ppo`" not in masked and "| `a`" not in maskless
    across = [line for line in masked.split("\n") if line.startswith("Across tasks")]
    assert across == [line for line in across if "of the headline tier" in line] and len(across) == 1
    assert "`trash-pagat-2p-match`, `hyn-2p` of" in across[0] and "trash-standard-2p" not in across[0]
    assert "| `trash-standard-2p` | pass 0.96 (2) |" in masked and "| `trash-pagat-2p` | **fail** 0.51 (2) |" in masked
    assert "| passed | 1 of 2 |" in masked and "| `trash-standard-2p` | **fail** -0.25 (2) |" in maskless
    board = json.loads((out / "leaderboard.json").read_text())
    first, second = board["sections"]
    assert first["tiered"] and first["track"] == "" and second["track"] == "no masks track"
    assert first["headline_tasks"] == ["trash-pagat-2p-match", "hyn-2p"] and second["headline_tasks"] == ["hyn-2p"]
    assert [aggregate["tasks"] for aggregate in first["aggregates"]] == [["trash-pagat-2p-match", "hyn-2p"]]
    sanity = first["sanity"]["algorithms"]["a"]
    assert sanity["trash-standard-2p"]["passed"] and not sanity["trash-pagat-2p"]["passed"]
    assert len(first["algorithms"]["a"]["tasks"]) == 4  # every task in the per-task figures
    assert any(name.endswith("_no_masks_track.png") for name in files(out))
    untiered = report.sections(found)
    assert len(untiered) == 1 and not untiered[0].tiered and "Sanity tier" not in report.markdown(untiered)


def test_the_sanity_table_has_no_column_for_a_learner_that_ran_no_sanity_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A learner run on headline tasks only (as the multi-agent learners on ``hyn-2p-selfplay``) is in
    the headline figures but not in the sanity table, where it would read "0 of 0"."""
    found = runs("hyn-2p", 0.6, 0.7) + runs("trash-standard-2p", 0.95, 0.97)
    found += runs("hyn-2p", 0.7, 0.8, algorithm="headline_only")
    served(monkeypatch, found)
    out = tmp_path / "out"
    assert main(["report", str(tmp_path), "--out", str(out), "--tiers", "--no-plots"]) == 0
    text = (out / "leaderboard.md").read_text()
    sanity = text[text.index("Sanity tier: pass or fail"):].split("\n\n")[1]
    assert sanity.startswith("| task | `a` |\n") and "headline_only" not in sanity and "0 of 0" not in sanity
    assert "| `hyn-2p` | 0.65" in text and "`headline_only`" in text.split("Sanity tier")[0]


def test_leaderboard_json_carries_the_exact_exploitability_of_the_final_policies(tmp_path: Path) -> None:
    """On a task scored by exact exploitability (``hyn-2p-selfplay``), ``leaderboard.json`` gives each
    learner's exploitability per deal over its runs (as the Markdown table does), and none where a task
    does not score it."""
    import shutil

    for name in ("mmd", "nfsp"):
        shutil.copytree(ROOT / "docs" / "results-v3" / "hyn-2p-selfplay" / name, tmp_path / "hyn-2p-selfplay" / name)
    shutil.copytree(ROOT / "docs" / "results-v3" / "hyn-4p" / "dqn", tmp_path / "hyn-4p" / "dqn")
    loaded = report.load_results(tmp_path)
    (section,) = report.leaderboard(report.sections(loaded, separate=True))["sections"]
    for name in ("mmd", "nfsp"):
        values = [r.final.exploitability.per_deal for r in loaded if r.algorithm == name]
        found = section["algorithms"][name]["exploitability"]["hyn-2p-selfplay"]
        assert len(values) == found["runs"] == 10 and found["mean"] == pytest.approx(sum(values) / 10)
        assert found["low"] < found["mean"] < found["high"]
    assert section["algorithms"]["dqn"]["exploitability"] == {}
