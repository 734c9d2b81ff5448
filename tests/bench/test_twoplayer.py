"""Exploitability and cross-play of a results folder in the report (:mod:`agents.bench.twoplayer`).

- the report of a folder with ``crossplay-TASK.json`` and ``exploit-TASK.json`` gains the two-player
  table: each algorithm's exploitability and best-rated run, the baselines' ratings; without them,
  no such table;
- damaged or hostile files are refused in one line naming the file, before anything is written;
- (slow) on the solved ``hyn-2p`` every run's exploitability is exact: a run keeping ``heuristic``
  gets :func:`agents.evaluation.exploitability.exploitability` of ``heuristic``, at least its exact loss
  to ``optimal``; a run whose policy does not decide in batches is left out with its reason;
- elsewhere the bound is measured for the best run of each algorithm and budget fraction, chosen
  from the result files whether or not the other runs kept their policies; the best run's missing
  policy is refused in one line naming it, or left out with ``skip_missing``; the report's table
  shows, in each budget fraction's section, only that fraction's runs;
- a resumed measurement keeps the rows of unchanged policies and settings, and measures the rest;
- the folder form of ``trash-bench exploit`` refuses, in one line, what it cannot do, and
  ``--resume`` and ``--skip-missing`` are refused for one policy.
"""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_crossplay import FRACTION, TASK, folder  # noqa: F401 (folder: the module's fixture)

from agents.bench import crossplay as cp
from agents.bench import measurements
from agents.bench import twoplayer as tp
from agents.bench.report import report
from agents.bench.store import fraction_folder
from agents.bench.tasks import get_task
from agents.registry import make_agent
from trash_env.files import write_json

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def measured(folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:  # noqa: F811
    """A copy of the cross-play test's folder with its cross-play (20 deals) and an exploitability
    file in the command's format (the figures are made up: this tests the reading and the table)."""
    results = tmp_path_factory.mktemp("measured") / "results"
    shutil.copytree(folder, results)
    cp.crossplay(results, TASK.name, 20, bootstrap=20, with_plot=False)
    entries, _, _ = cp.collect(results, TASK)
    runs = [entry for entry in entries if entry.result is not None]
    rows = [tp._run(entry, 0.1 * (i + 1)) | {"low": 0.0, "high": 0.5} for i, entry in enumerate(runs)]
    write_json(results / tp.exploit_name(TASK), exploit_file(rows))
    return results


def exploit_file(rows: list[dict[str, Any]], kind: str = "bound") -> dict[str, Any]:
    head = {"format": measurements.EXPLOIT_FORMAT, "task": TASK.name, "task_version": TASK.version}
    return head | {"kind": kind, "runs": rows}


def test_the_report_gains_the_two_player_table(measured: Path, tmp_path: Path) -> None:
    text = report(measured, tmp_path / "out", with_plots=False)
    title = "Two-player tasks: exploitability and cross-play"
    assert title in text
    table = text[text.index(title) :].split("\n\n")[1].splitlines()
    rows = {row.split(" | ")[1]: row for row in table[2:]}
    data = json.loads((measured / f"crossplay-{TASK.name}.json").read_text())
    ratings = {row["agent"]: row for row in data["ratings"]}
    best = max((name for name in ratings if name.startswith("first_legal/")), key=lambda n: ratings[n]["mean"])
    assert f"({best})" in rows["`first_legal`"] and f"{ratings[best]['mean']:+.0f} [" in rows["`first_legal`"]
    # the bound is the algorithm's first row of the file (the best run, as exploit_runs writes it)
    assert "≥ 0.10 [0.00, 0.50], MaskablePPO responder" in rows["`first_legal`"] and "≥ 0.30" in rows["`plain_greedy`"]
    assert f"{ratings['greedy']['mean']:+.0f}" in rows["`greedy` (baseline)"]
    # leaderboard.json carries the same figures, for what reads it (the README's findings)
    (section,) = json.loads((tmp_path / "out" / "leaderboard.json").read_text())["sections"]
    measured_json = section["two_player"][TASK.name]
    first = measured_json["algorithms"]["first_legal"]
    bound = {"kind": "bound", "mean": 0.1, "low": 0.0, "high": 0.5, "method": "trained"}
    assert first["exploitability"] == bound | {"run": first["exploitability"]["run"]}
    assert first["rating"]["run"] == best and first["rating"]["mean"] == pytest.approx(ratings[best]["mean"])
    assert measured_json["baselines"]["greedy"]["mean"] == pytest.approx(ratings["greedy"]["mean"])


def test_an_exact_file_is_the_mean_over_each_algorithms_runs(measured: Path, tmp_path: Path) -> None:
    """An exact exploitability file: each algorithm's figure is the mean over all its runs' rows, with their
    number, in the table and in leaderboard.json alike."""
    results = tmp_path / "results"
    shutil.copytree(measured, results)
    data = json.loads((results / tp.exploit_name(TASK)).read_text())
    rows = [{key: value for key, value in row.items() if key not in ("low", "high")} for row in data["runs"]]
    write_json(results / tp.exploit_name(TASK), exploit_file(rows, kind="exact"))
    text = report(results, tmp_path / "out", with_plots=False)
    (section,) = json.loads((tmp_path / "out" / "leaderboard.json").read_text())["sections"]
    for algorithm, entry in section["two_player"][TASK.name]["algorithms"].items():
        values = [row["exploitability"] for row in rows if row["algorithm"] == algorithm]
        found = entry["exploitability"]
        assert found["kind"] == "exact" and found["runs"] == len(values)
        assert found["mean"] == pytest.approx(sum(values) / len(values))
        assert f"| `{TASK.name}` | `{algorithm}` | {found['mean']:.2f}" in text and f" exact ({len(values)}) |" in text


def test_without_the_files_there_is_no_two_player_table(folder: Path, tmp_path: Path) -> None:  # noqa: F811
    results = tmp_path / "results"
    shutil.copytree(folder, results)
    assert "Two-player tasks" not in report(results, tmp_path / "out", with_plots=False)


BAD = [
    ("not JSON", lambda path, data: path.write_text("{oops"), "crossplay"),
    ("another format", lambda path, data: write_json(path, data | {"format": 9}), "is not a cross-play file"),
    (
        "rating outside its interval",
        lambda path, data: write_json(path, data | {"ratings": [data["ratings"][0] | {"low": 1e9}]}),
        "not around",
    ),
    (
        "a rating of no entry",
        lambda path, data: write_json(path, data | {"ratings": [data["ratings"][0] | {"agent": "ghost"}]}),
        "'ghost', which is not an entry",
    ),
    ("another task inside", lambda path, data: write_json(path, data | {"task": "hyn-2p"}), "named for task"),
    ("a list", lambda path, data: write_json(path, [1, 2]), "is not a cross-play file"),
    (
        "a run of no algorithm",
        lambda path, data: write_json(path, data | {"entries": [{"name": "x/seed_0", "kind": "run"}]}),
        "entries[0] is a run without its algorithm",
    ),
]


@pytest.mark.parametrize(("how", "damage", "message"), BAD, ids=[case[0] for case in BAD])
def test_a_damaged_crossplay_file_is_refused_by_name(measured: Path, tmp_path: Path, how, damage, message) -> None:
    results = tmp_path / "results"
    shutil.copytree(measured, results)
    path = results / f"crossplay-{TASK.name}.json"
    damage(path, json.loads(path.read_text()))
    out = tmp_path / "out"
    with pytest.raises(ValueError) as refused:
        report(results, out)
    assert message in str(refused.value) and str(path) in str(refused.value) and "\n" not in str(refused.value)
    assert not out.exists()  # nothing written


def fake_trainer(calls: list[str]):
    """Stands in for the trained best response (minutes of training): records which policy it was
    asked about and returns a bound in the trainer's format."""

    def trained(policy: str, task: Any, budget: Any, deals: Any = None, seed: Any = None, **_: Any) -> dict:
        calls.append(policy)
        mean = {"score": 0.25, "low": 0.1, "high": 0.4, "deals": 20}
        return {"points": [{"budget": 100, "mean": mean}], "test_seed": 5}

    return trained


def result_files(results: Path, algorithm: str) -> list[Path]:
    return sorted(p for p in (results / TASK.name / algorithm).rglob("seed_*.json") if "policy" not in p.name)


def best_of(results: Path, algorithm: str) -> str:
    files = result_files(results, algorithm)
    return (
        max(files, key=lambda path: json.loads(path.read_text())["final"]["normalized"]).relative_to(results).as_posix()
    )


def test_the_bound_is_measured_on_each_algorithms_best_run(
    folder: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agents.bench import exploit

    results = tmp_path / "results"
    shutil.copytree(folder, results)
    best = best_of(results, "first_legal")
    other = next(p for p in result_files(results, "first_legal") if not str(p).endswith(best))
    (other.with_name(json.loads(other.read_text())["artifact"])).unlink()  # a run that is not the best: not needed
    calls: list[str] = []
    monkeypatch.setattr(exploit, "trained_exploitability", fake_trainer(calls))
    data = tp.exploit_runs(results, TASK.name)
    assert sorted(calls) == sorted(str(results / path) for path in (best, best_of(results, "plain_greedy")))
    assert data["left_out"] == [] and {row["budget_fraction"] for row in data["runs"]} == {FRACTION}
    # the best run's policy missing: refused by name, or left out with skip_missing
    best_file = results / best
    (best_file.with_name(json.loads(best_file.read_text())["artifact"])).unlink()
    with pytest.raises(ValueError, match="is not beside it") as refused:
        tp.exploit_runs(results, TASK.name)
    assert str(best_file) in str(refused.value) and "\n" not in str(refused.value)
    data = tp.exploit_runs(results, TASK.name, skip_missing=True)
    assert [row["algorithm"] for row in data["runs"]] == ["plain_greedy"]
    assert [line["result"] for line in data["left_out"]] == [best]


def test_a_resumed_measurement_keeps_the_rows_of_unchanged_policies(
    folder: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``resume`` (``trash-bench exploit RESULTS --task T --resume``; the stand-in trainer measures 20 deals
    at a budget of 100): a rerun keeps each row whose
    policy file (by SHA-256) and settings are unchanged and measures only the rest; without it, or at
    another budget, every run is measured again; a damaged file is refused by name before any training."""
    from agents.bench import exploit

    results = tmp_path / "results"
    shutil.copytree(folder, results)
    calls: list[str] = []
    monkeypatch.setattr(exploit, "trained_exploitability", fake_trainer(calls))
    first = tp.exploit_runs(results, TASK.name, budget=100, deals=20)
    assert len(calls) == 2 and all(len(row["policy_sha256"]) == 64 for row in first["runs"])
    calls.clear()
    resumed = tp.exploit_runs(results, TASK.name, budget=100, deals=20, resume=True)
    assert resumed["runs"] == first["runs"] and calls == []
    # one run's policy retrained (its bytes and the result's record of them change): only it is measured
    best = results / best_of(results, "plain_greedy")
    result = json.loads(best.read_text())
    policy = best.with_name(result["artifact"])
    policy.write_text(policy.read_text() + "\n")  # the same policy in other bytes
    write_json(best, result | {"artifact_sha256": hashlib.sha256(policy.read_bytes()).hexdigest()})
    again = tp.exploit_runs(results, TASK.name, budget=100, deals=20, resume=True)
    assert calls == [str(best)] and again["runs"][0] == first["runs"][0] and again["runs"][1] != first["runs"][1]
    calls.clear()
    tp.exploit_runs(results, TASK.name, budget=200, deals=20, resume=True)  # other settings: nothing kept
    assert len(calls) == 2
    calls.clear()
    tp.exploit_runs(results, TASK.name, budget=200, deals=20)  # without resume: everything measured
    assert len(calls) == 2
    calls.clear()
    (results / tp.exploit_name(TASK)).write_text('{"format": 1, "runs": "oops"')
    with pytest.raises(ValueError, match="exploit-") as refused:
        tp.exploit_runs(results, TASK.name, budget=200, deals=20, resume=True)
    assert calls == [] and "\n" not in str(refused.value)


def test_each_sections_table_shows_only_its_budget_fractions_runs(measured: Path, tmp_path: Path) -> None:
    results = tmp_path / "results"
    shutil.copytree(measured, results)
    path = results / tp.exploit_name(TASK)
    data = json.loads(path.read_text())
    other = RUN["run"].replace("seed_0", "seed_1")  # its row says it was measured at another fraction
    elsewhere = {"budget_fraction": 25.0, "exploitability": 0.9, "low": 0.8, "high": 1.0}
    rows = [row | elsewhere if row["run"] == other else row for row in data["runs"]]
    first = sorted(rows, key=lambda row: row["run"] != other)  # the other fraction's row first: the "best"
    write_json(path, data | {"runs": first})
    text = report(results, tmp_path / "out", with_plots=False)
    table = text[text.index("Two-player tasks") :].split("\n\n")[1]
    assert "≥ 0.10 [0.00, 0.50]" in table and "0.90" not in table


RUN = {"run": f"first_legal/{fraction_folder(FRACTION)}/seed_0", "algorithm": "first_legal"}  # a run of the folder


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"kind": "guess"}, "not 'exact' or 'bound'"),
        ({"runs": [RUN | {"exploitability": 7.0, "low": 0, "high": 9}]}, "outside"),
        ({"runs": [RUN | {"exploitability": 0.5, "low": 0.6, "high": 0.9}]}, "not around"),
        ({"runs": [RUN | {"exploitability": "NaN"}]}, "not a number"),
        ({"runs": "everything"}, "runs is not a list"),
        ({"runs": [RUN | {"exploitability": 0.5}]}, "runs[0] is a bound without its interval"),
        ({"runs": [RUN | {"exploitability": True, "low": 0, "high": 1}]}, "exploitability is True, not a number"),
        ({"runs": [{"algorithm": "a", "exploitability": 0.5, "low": 0, "high": 1}]}, "runs[0].run is missing"),
        # what does not fit the folder (issue 49)
        ({"kind": "exact", "runs": [RUN | {"exploitability": -2.0}]}, "is -2.0, below 0: never exact"),
        ({"runs": [RUN | {"run": "first_legal/seed_9", "exploitability": 0.1, "low": 0, "high": 1}]}, "not a run of"),
        ({"runs": [RUN | {"exploitability": 0.1, "low": 0, "high": 1}] * 2}, "runs[1] names"),
        ({"runs": [RUN | {"algorithm": "dqn", "exploitability": 0.1, "low": 0, "high": 1}]}, "not a run of its"),
    ],
)
def test_a_damaged_exploit_file_is_refused_by_name(measured: Path, tmp_path: Path, change, message) -> None:
    results = tmp_path / "results"
    shutil.copytree(measured, results)
    path = results / tp.exploit_name(TASK)
    write_json(path, json.loads(path.read_text()) | change)
    with pytest.raises(ValueError) as refused:
        report(results, tmp_path / "out")
    assert message in str(refused.value) and str(path) in str(refused.value) and "\n" not in str(refused.value)


@pytest.mark.slow
def test_on_the_solved_task_every_runs_exploitability_is_exact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two runs of ``hyn-2p`` (their kept policies: ``heuristic``, and a bare callable that does not
    decide in batches): the first is measured exactly, the second left out with its reason. (The runs
    stand in for what ``collect`` reads from a folder, which the cross-play tests cover: a real run of
    ``hyn-2p`` costs minutes.)"""
    from types import SimpleNamespace

    from agents.bench.algorithms import CallablePolicy
    from agents.evaluation.exploitability import exploitability

    task = get_task("hyn-2p")
    heuristic = make_agent("heuristic", task.game)
    bare = CallablePolicy(lambda observation, mask: int(mask.argmax()), task.game)
    entries = [
        cp.Entry(
            f"{name}/seed_0", SimpleNamespace(algorithm=name, seed=0, budget_fraction=1.0), f"hyn-2p/{name}/seed_0.json"
        )
        for name in ("plain_heuristic", "bare")
    ]
    agents = {"plain_heuristic/seed_0": heuristic, "bare/seed_0": bare}
    monkeypatch.setattr(cp, "collect", lambda results, task, skip_missing: ([*entries, cp.Entry("random")], agents, []))
    data = tp.exploit_runs(tmp_path, task.name)
    assert data["kind"] == "exact" and [row["run"] for row in data["runs"]] == ["plain_heuristic/seed_0"]
    reason = "its policy does not decide in batches"
    assert data["left_out"] == [{"result": "hyn-2p/bare/seed_0.json", "reason": reason}]
    expected = exploitability(make_agent("heuristic", task.game), examples=0)
    assert data["runs"][0]["exploitability"] == pytest.approx(expected.exploitability, abs=1e-9)
    assert expected.exploitability >= expected.loss_to_optimal - 1e-9 > 0  # at least its exact loss to optimal
    assert json.loads((tmp_path / tp.exploit_name(task)).read_text()) == json.loads(json.dumps(data))


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--seeds", "2"], "with a results folder, give at most one --budget"),
        (["--budget", "10", "20"], "with a results folder, give at most one --budget"),
        (["--method", "local", "--resume"], "--method local measures one policy"),
    ],
)
def test_the_folder_form_of_exploit_refuses_what_it_cannot_do(
    folder: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    arguments: list[str],
    message: str,
) -> None:
    from agents.commands.bench import main

    assert main(["exploit", str(folder), "--task", TASK.name, *arguments]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1
    assert not (folder / tp.exploit_name(TASK)).exists()


@pytest.mark.parametrize("flag", ["--resume", "--skip-missing"])
def test_a_results_folders_flags_are_refused_for_one_policy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    from agents.commands.bench import main

    assert main(["exploit", "greedy", "--task", TASK.name, "--method", "local", flag]) == 2
    error = capsys.readouterr().err
    assert f"{flag} is for a results folder, not one policy" in error and error.count("\n") == 1


def test_the_folder_form_refuses_a_task_of_more_players(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    from agents.commands.bench import main

    assert main(["exploit", str(folder), "--task", "trash-jokers-3p"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


# --------------------------------------------------------------------------
# What the files say is checked against the folder, and shown as text (issue 49)


def crossplay_change(path: Path, data: dict[str, Any], how: str) -> dict[str, Any]:
    entries, ratings = data["entries"], data["ratings"]
    if how == "an entry named twice":
        return data | {"entries": [*entries, entries[0]]}
    if how == "a rating twice":
        return data | {"ratings": [*ratings, ratings[0]]}
    if how == "a matrix of another shape":
        return data | {"matrix": data["matrix"][:-1]}
    if how == "a run that is not in the folder":
        ghost = {"name": "first_legal/seed_9", "kind": "run", "algorithm": "first_legal"}
        return data | {"entries": [*entries, ghost], "agents": [*data["agents"], ghost["name"]]}
    raise AssertionError(how)


@pytest.mark.parametrize(
    ("how", "message"),
    [
        ("an entry named twice", "names"),
        ("a rating twice", "again"),
        ("a matrix of another shape", "matrix is not"),
        ("a run that is not in the folder", "'first_legal/seed_9', which is not a run of the results folder"),
    ],
)
def test_a_crossplay_file_that_does_not_fit_its_folder_is_refused(
    measured: Path, tmp_path: Path, how: str, message: str
) -> None:
    results = tmp_path / "results"
    shutil.copytree(measured, results)
    path = results / f"crossplay-{TASK.name}.json"
    write_json(path, crossplay_change(path, json.loads(path.read_text()), how))
    with pytest.raises(ValueError) as refused:
        report(results, tmp_path / "out")
    assert message in str(refused.value) and str(path) in str(refused.value) and "\n" not in str(refused.value)


def test_names_from_the_files_are_text_in_the_two_player_table(measured: Path) -> None:
    """Defence in depth (the files' names must be runs of the folder): names holding Markdown, HTML or a
    marker, put straight into a section's measurements, render as their own text in a table whose rows
    keep their columns, with no element made of them, on GitHub's kind of Markdown and the site's."""
    from dataclasses import replace

    from test_result_files import HOSTILE_NAMES, Cells, renderers

    from agents.bench.report import load_sections, two_player_table

    hostile = [*HOSTILE_NAMES, "<img src=x onerror=alert(1)>"]
    (section,) = [s for s in load_sections(measured) if two_player_table(s) is not None]
    measured_files = copy.deepcopy(section.measured)
    files = measured_files[(TASK.name, TASK.version)]
    runs = [{"run": f"first_legal/{name}", "algorithm": "first_legal", "budget_fraction": FRACTION} for name in hostile]
    files["exploit"]["runs"] = [row | {"exploitability": 0.2, "low": 0.1, "high": 0.3} for row in runs]
    files["crossplay"]["entries"] = [row | {"name": row["run"], "kind": "run"} for row in runs]
    ratings = [{"agent": row["run"], "mean": 10.0 * i, "low": 0.0, "high": 99.0} for i, row in enumerate(runs)]
    files["crossplay"]["ratings"] = ratings
    text = two_player_table(replace(section, measured=measured_files))
    assert "<!-- /table" not in text and "<script" not in text and "<img" not in text
    for render in renderers():
        cells = Cells()
        cells.feed(render(text))
        assert cells.tags <= {"table", "thead", "tbody", "tr", "th", "td", "code", "p", "h2", "h3", "em"}, cells.tags
        assert len({len(row) for row in cells.rows}) == 1
        shown = " ".join(" ".join(row) for row in cells.rows)
        assert f"first_legal/{hostile[0]}" in shown and f"first_legal/{hostile[-1]}" in shown
