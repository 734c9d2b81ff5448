"""Result files (issue 23, item 5): the typed schema (:mod:`agents.bench.results`) checked on every read.

Each damaged or hostile file is made here, in ``tmp_path``, from a good one the runner itself wrote
(:func:`agents.bench.runner.run_one` with the trivial ``FirstLegal`` learner of ``test_suite``):

- each is refused by name with what is wrong (one line), whatever is wrong: a field missing, null or
  of the wrong type, a number not finite or absurd, a normalised score its score and anchors do not
  give, a file whose content is not the run its path names, an unknown task, a name that is not plain,
  a file that is not JSON, too large, or nested too deep;
- ``trash-bench report`` exits 2 with a line per bad file and writes nothing (no leaderboard, no
  plots, no README splice); ``trash-bench run`` refuses to resume over them, or with
  ``--skip-bad-results`` warns, leaves them as they are and runs the rest;
- the committed results pass the schema, and their report is unchanged;
- names are escaped in the Markdown tables and so in the HTML a renderer makes of them.
"""

from __future__ import annotations

import copy
import dataclasses
import html.parser
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.reevaluate import evaluate_in_fresh_process

from agents.bench import markdown, results, store
from agents.bench.runner import run_one
from agents.bench.store import load_results, read_result, result_location, scan
from agents.bench.tasks import get_task
from agents.commands.bench import main

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).parent
TASK, PLUGIN, NAME, FRACTION = "hyn-4p", "test_suite:FirstLegal", "first_legal", 0.005
FOLDER = f"{TASK}/{NAME}/fraction_{FRACTION!r}"  # where its result files go (a budget fraction's folder)
RUN = ["run", "--algorithm", PLUGIN, "--tasks", TASK, "--seeds", "2", "--budget-fraction", str(FRACTION)]
HOSTILE_NAMES = [
    "a|b",
    "<script>alert(1)</script>",
    "`x`` y`",
    "[x](https://example.com)",
    "<!-- /table:leaderboard -->",
]


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A good result file's JSON, as the runner writes it (seed 0 of ``FirstLegal`` on hyn-4p)."""
    folder = tmp_path_factory.mktemp("good")
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(HERE))
        run_one(TASK, PLUGIN, 0, str(folder), fraction=FRACTION)
    return json.loads(result_location(folder, get_task(TASK), NAME, 0, FRACTION).read_text())


@pytest.fixture
def plugin_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(HERE))


def place(folder: Path, content: dict[str, Any] | bytes, where: str | None = None) -> Path:
    """``content`` (an object, written as Python's JSON writes it, NaN and Infinity included, or
    bytes) as a result file at ``where`` under ``folder`` (default: the good file's place)."""
    path = folder / (where or f"{FOLDER}/seed_0.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    return path


def with_seed(data: dict[str, Any], seed: int) -> dict[str, Any]:
    """The good file as seed ``seed``'s (its policy named after it)."""
    return {**copy.deepcopy(data), "seed": seed, "artifact": f"seed_{seed}.policy.npz"}


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` and its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def edit(change: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A variant of the good file: ``change`` applied to a copy of it."""

    def make(data: dict[str, Any]) -> dict[str, Any]:
        data = copy.deepcopy(data)
        change(data)
        return data

    return make


def _setitem(keys: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A change setting the field ``keys`` (``final.normalized``, ``curve.1.score``) to ``value``."""

    def change(data: dict[str, Any]) -> None:
        *parents, last = keys.split(".")
        target: Any = data
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        target[int(last) if isinstance(target, list) else last] = value

    return change


def _delete(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda data: data.pop(key)


def _score_beside(normalized: float) -> Callable[[dict[str, Any]], None]:
    """The issue's case: a final score of 0.05 (its interval around it) stored with ``normalized``."""
    return lambda data: data["final"].update(score=0.05, low=0.0, high=0.1, normalized=normalized)


def _same_anchors(data: dict[str, Any]) -> None:
    data["reference"]["random"] = data["reference"]["reference"]


def _low_above_score(data: dict[str, Any]) -> None:
    data["final"]["low"] = data["final"]["score"] + 1


def _curve_backwards(data: dict[str, Any]) -> None:
    data["curve"].reverse()


def _renamed(name: str) -> Callable[[dict[str, Any]], None]:
    return _setitem("algorithm", name)


def _good_bytes(data: dict[str, Any]) -> bytes:
    return json.dumps(data, indent=2).encode()


def _bit_flipped(data: dict[str, Any]) -> bytes:
    text = bytearray(_good_bytes(data))
    text[len(text) // 2] ^= 0x80  # an ASCII byte turned into one that is no UTF-8
    return bytes(text)


# (id, the variant made from the good file's JSON, where it is put under the results folder, what the
# message says)
VARIANTS: list[tuple[str, Callable[[dict[str, Any]], Any], str | None, str]] = [
    ("task_version missing", edit(_delete("task_version")), None, "task_version is missing"),
    ("final missing", edit(_delete("final")), None, "final is missing"),
    ("final null", edit(_setitem("final", None)), None, "final is null, not an object"),
    ("seed a string", edit(_setitem("seed", "0")), None, 'seed is "0" (a string), not an integer'),
    ("seed a boolean", edit(_setitem("seed", False)), None, "seed is false, not an integer"),
    ("seed a float", edit(_setitem("seed", 0.0)), None, "seed is 0.0 (a number), not an integer"),
    ("wall_seconds a string", edit(_setitem("wall_seconds", "12.5")), None, 'wall_seconds is "12.5" (a string), not a'),
    ("normalized 1e308", edit(_setitem("final.normalized", 1e308)), None, "final.normalized is 1e+308, beyond 1e+09"),
    ("normalized NaN", edit(_setitem("final.normalized", math.nan)), None, "final.normalized is nan, not a finite"),
    ("normalized inf", edit(_setitem("final.normalized", math.inf)), None, "final.normalized is inf, not a finite"),
    ("curve score -inf", edit(_setitem("curve.1.score", -math.inf)), None, "curve[1].score is -inf, not a finite"),
    ("normalized 1000 beside 0.05", edit(_score_beside(1000.0)), None, "final.normalized is 1000.0 but its score 0.05"),
    ("curve normalized edited", edit(_setitem("curve.2.normalized", 0.25)), None, "curve[2].normalized is 0.25 but"),
    ("anchors equal", edit(_same_anchors), None, "reference has the reference agent's score 0.0 not above random's"),
    ("score outside its interval", edit(_low_above_score), None, "final has its score"),
    ("curve backwards", edit(_curve_backwards), None, "curve has its timesteps out of order"),
    ("seed 0 saved as seed_1", edit(lambda d: None), f"{FOLDER}/seed_1.json", "seed is 0 but the file is seed_1"),
    (
        "another task than its folder",
        edit(lambda d: None),
        f"hyn-2p/{NAME}/fraction_{FRACTION!r}/seed_0.json",
        "task is 'hyn-4p' but the file is in the folder 'hyn-2p'",
    ),
    (
        "another algorithm than its folder",
        edit(lambda d: None),
        f"{TASK}/maskable_ppo/fraction_{FRACTION!r}/seed_0.json",
        f"algorithm is '{NAME}' but the file is in the folder 'maskable_ppo'",
    ),
    (
        "another fraction than its folder",
        edit(lambda d: None),
        f"{TASK}/{NAME}/fraction_0.01/seed_0.json",
        "budget_fraction is 0.005 but the file is in the folder 'fraction_0.01', not fraction_0.005",
    ),
    (
        "a fraction without its folder",
        edit(lambda d: None),
        f"{TASK}/{NAME}/seed_0.json",
        "budget_fraction is 0.005 but the file is in the folder 'first_legal', not fraction_0.005",
    ),
    (
        "unknown task",
        edit(_setitem("task", "nosuch")),
        f"nosuch/{NAME}/fraction_{FRACTION!r}/seed_0.json",
        "task 'nosuch' is not a task",
    ),
    *[
        (
            f"algorithm {name!r}",
            edit(_renamed(name)),
            f"{TASK}/{name.replace('/', '%')}/fraction_{FRACTION!r}/seed_0.json",
            "not a plain name",
        )
        for name in HOSTILE_NAMES
    ],
    (
        "algorithm with a space",
        edit(_renamed("my algo")),
        f"{TASK}/my algo/fraction_{FRACTION!r}/seed_0.json",
        "not a plain name",
    ),
    ("not complete", edit(_setitem("complete", False)), None, "complete is false: not a finished run"),
    ("complete missing", edit(_delete("complete")), None, "complete is missing"),
    (
        "another format",
        edit(_setitem("format", 3)),
        None,
        "format is 3 (a number): this version reads result format 1, 2",
    ),
    ("an unknown field", edit(_setitem("normalised", 1.0)), None, "normalised is not a field of a result file"),
    ("an unknown field on two lines", edit(_setitem("a\nb", 1)), None, "'a\\nb' is not a field of a result file"),
    ("budget not the task's", edit(_setitem("budget", 999)), None, "budget is 999 but hyn-4p v3 has 750"),
    ("another opponent", edit(_setitem("evaluation.opponent", "random")), None, "evaluation.opponent is 'random'"),
    ("seed out of range", edit(_setitem("seed", -1)), f"{FOLDER}/seed_-1.json", "seed is -1, not a training"),
    ("negative time", edit(_setitem("wall_seconds", -1.0)), None, "wall_seconds is -1.0, a negative time"),
    # format 2's fields
    ("provenance missing", edit(_delete("provenance")), None, "provenance is missing (result format 2 has it)"),
    ("test seed missing", edit(lambda d: d["final"].pop("seed")), None, "final.seed is missing (result format 2"),
    ("a protocol from the future", edit(_setitem("protocol", 3)), None, "protocol is 3: this version knows protocols"),
    ("valid with nothing counted", edit(_setitem("counted_steps", 0)), None, "valid is true but counted_steps is 0"),
    ("valid beyond its count", edit(_setitem("counted_steps", 100)), None, "valid is true but the curve reaches 750"),
    ("valid with a reason", edit(_setitem("invalid_reasons", ["x"])), None, "invalid_reasons is not empty but valid"),
    ("invalid for no reason", edit(_setitem("valid", False)), None, "invalid_reasons is empty but valid is false"),
    ("the validation seed as test seed", edit(_setitem("final.seed", 1_000_003)), None, "final.seed is 1000003, not a"),
    ("test seed beyond 2**53", edit(_setitem("final.seed", 2**60)), None, "final.seed is 1152921504606846976, beyond"),
    ("validation anchors edited", edit(_setitem("validation.anchors.random", -5.0)), None, "curve[0].normalized is"),
    ("held-out score edited", edit(_setitem("heldout.0.normalized", 5.0)), None, "heldout[0].normalized is 5.0 but"),
    ("held-out opponent", edit(_setitem("heldout.0.opponent", "random")), None, "heldout is ('random',) but hyn-4p"),
    ("reference not the final's", edit(_setitem("reference.random", -0.9)), None, "reference is not final.anchors"),
    ("artifact elsewhere", edit(_setitem("artifact", "../x.npz")), None, "artifact is '../x.npz', not one of"),
    ("not a commit", edit(_setitem("provenance.git", {"commit": "HEAD", "modified": False})), None, "not a commit"),
    ("versions not text", edit(_setitem("provenance.versions.numpy", 2)), None, "provenance.versions.numpy is 2"),
    ("spec not a spec", edit(_setitem("algorithm_spec", "a b")), None, "algorithm_spec 'a b' is not a built-in"),
    ("truncated", lambda d: _good_bytes(d)[:200], None, "not valid JSON"),
    ("empty", lambda d: b"", None, "not valid JSON"),
    ("bit-flipped", _bit_flipped, None, "not valid JSON"),
    ("a JSON list", lambda d: b"[1, 2]", None, "holds a list, not a result object"),
    ("nested too deep", lambda d: b"[" * 100_000, None, "nested too deep"),
    ("too large", lambda d: _good_bytes(d) + b" " * store.MAX_BYTES, None, "over the limit of"),
]
IDS = [variant[0] for variant in VARIANTS]


def make_bad(folder: Path, good: dict[str, Any], variant: tuple) -> tuple[Path, str]:
    """The variant's file under ``folder``, and what its refusal says."""
    _, make, where, message = variant
    return place(folder, make(good), where), message


def good_folder(folder: Path, good: dict[str, Any], seeds: tuple[int, ...] = (1, 2)) -> Path:
    """Good result files (the good file as seeds ``seeds``) under ``folder``."""
    for seed in seeds:
        place(folder, with_seed(good, seed), f"{FOLDER}/seed_{seed}.json")
    return folder


def error_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


# --------------------------------------------------------------------------
# Good files


def test_the_runners_file_is_a_good_result_and_reads_back_as_written(good: dict[str, Any], tmp_path: Path) -> None:
    """What :func:`run_one` writes passes the check and its typed value gives the same JSON back; a
    missing file is no result (a run to do), not an error."""
    path = place(tmp_path, good)
    result = read_result(path)
    assert isinstance(result, results.Result) and result.task == TASK and result.algorithm == NAME
    assert json.loads(json.dumps(result.to_json())) == good
    assert math.isclose(result.final.normalized, result.reference.normalize(result.final.score))
    assert read_result(tmp_path / FOLDER / "seed_5.json") is None


def test_the_committed_v1_results_pass_the_schema_as_protocol_v1() -> None:
    """Every result file of ``docs/results-v1`` (protocol v1: result format 1, task version 1, moved
    aside when the reference sweep was redone under v2) is still good, read as it is written, and of
    no current task version (so never taken for a v2 run)."""
    folder = ROOT / "docs" / "results-v1"
    loaded = load_results(folder)
    assert len(loaded) == len(list(folder.rglob("seed_*.json"))) > 300
    for result in loaded:
        assert (result.format, result.task_version, result.protocol_version, result.is_valid) == (1, 1, 1, True)
        assert result.task_version != get_task(result.task).version
    path = next(folder.rglob("seed_*.json"))
    assert json.loads(json.dumps(store.read(path).to_json())) == json.loads(path.read_text())


@pytest.mark.parametrize("sweep", ["results-v2", "results-v3"])
def test_the_committed_results_are_protocol_v2_runs_of_a_clean_commit_with_their_policies(sweep: str) -> None:
    """Every result file of ``docs/results-v2`` (the v2 reference sweep) and of ``docs/results-v3`` (the v3
    sweep, issue 54) is good, a valid run of protocol v2 on the current version of its task, made from
    a commit with no changes (its provenance says which, with the machine and libraries), and its kept
    policy, where there is one, is beside it and loads for its task."""
    from agents.bench.artifacts import load_artifact

    folder = ROOT / "docs" / sweep
    files = sorted(folder.rglob("seed_*.json"))
    loaded = load_results(folder)
    assert len(loaded) == len(files) > 0
    kept = 0
    for path in files:
        result = store.read(path)
        assert (result.format, result.protocol_version, result.is_valid) == (2, 2, True), path
        assert result.task_version == get_task(result.task).version, path
        provenance = result.provenance
        assert len(provenance.git.commit) == 40 and provenance.git.modified is False, path
        assert {"numpy", "torch", "stable-baselines3"} <= set(provenance.versions) and provenance.cpu, path
        artifact = path.with_name(result.artifact)
        if artifact.is_file():
            kept += 1
    assert kept > 0
    one = next(p for p in files if p.with_name(store.read(p).artifact).is_file())
    load_artifact(one.with_name(store.read(one).artifact), get_task(store.read(one).task))


V3 = ROOT / "docs" / "results-v3"
REUSED_FROM = (ROOT / "docs" / "results-multiagent", ROOT / "docs" / "results-v2")  # benchmarks/v3_sweep.py --reuse


def v3_runs_to_evaluate() -> dict[str, Path]:
    """The committed v3 runs evaluated again: per algorithm the v3 sweep ran, its run with a kept policy
    that is quickest to evaluate (a hand task before a match, R9; then by task and seed), and one run
    v3 reuses from an older sweep, scored exactly (where the solver's figures may move in their last
    digits)."""
    chosen: dict[str, tuple[tuple[bool, str, str], Path]] = {}
    for path in sorted(V3.rglob("seed_*.json")):
        result = store.read(path)
        if not path.with_name(result.artifact).is_file():
            continue
        reused = any((folder / path.relative_to(V3)).is_file() for folder in REUSED_FROM)
        if reused and result.scoring != "exact":
            continue
        name = "reused, scored exactly" if reused else result.algorithm
        key = (bool(getattr(get_task(result.task).config(), "match", False)), result.task, path.name)
        if name not in chosen or key < chosen[name][0]:
            chosen[name] = (key, path)
    return {name: path for name, (_, path) in sorted(chosen.items())}


V3_KEPT = v3_runs_to_evaluate()


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", sorted(V3_KEPT))
def test_evaluate_reproduces_a_committed_v3_final_exactly(algorithm: str) -> None:
    """``trash-bench evaluate`` on a committed v3 run of each algorithm (issue 54, item 5), in a fresh
    process from the kept policy alone: the stored final and held-out scores, exactly (the exact
    solver's figures of a run made by an older commit: within the solver's tolerance)."""
    path = V3_KEPT[algorithm]
    stored = json.loads(path.read_text())
    evaluated = evaluate_in_fresh_process(path)
    assert evaluated["stored"] == {"final": stored["final"], "heldout": stored["heldout"]}
    # bit for bit, or (a run the v2 sweep made, reused in v3) the exact solver's figures within its tolerance
    assert evaluated["reproduced"] in ("exactly", "within tolerance"), path


def test_the_committed_v3_leaderboard_counts_every_committed_v3_run() -> None:
    """``docs/results-v3/leaderboard.json`` (``trash-bench report docs/results-v3 --tiers``, which the
    docs' v3 findings read) was made from the v3 runs committed beside it: a part of the sweep committed
    without regenerating it leaves runs it does not count."""
    board = json.loads((V3 / "leaderboard.json").read_text())
    counted = sum(entry["runs"] for section in board["sections"] for entry in section["algorithms"].values())
    counted += sum(len(section["invalid"]) for section in board["sections"])
    assert counted == len(list(V3.rglob("seed_*.json"))) > 0


def committed() -> tuple[Any, str]:
    """The committed v1 results, grouped as the report groups them, and the leaderboard committed beside
    them (``docs/results-v1/leaderboard.md``)."""
    from agents.bench.report import collect

    folder = ROOT / "docs" / "results-v1"
    loaded = load_results(folder)
    assert len(loaded) == len(list(folder.rglob("seed_*.json"))) > 300
    return collect(loaded), (folder / "leaderboard.md").read_text()


def test_the_committed_v1_results_give_the_committed_per_task_tables() -> None:
    """Every result file of ``docs/results-v1`` is good (``trash-bench report docs/results-v1``
    regenerates the leaderboard beside them), and its per-task tables are still those committed."""
    from agents.bench import report

    grouped, leaderboard = committed()
    tasks, baselines = report._tasks(grouped), report.baseline_scores(1)
    per_task = report.per_task_table(grouped, tasks, baselines)
    best = "\n".join(report.best_per_task(grouped, tasks, baselines))
    assert per_task in leaderboard and best in leaderboard
    assert "| `trash-standard-2p` |" in per_task and "`examples.reinforce.Reinforce`" in per_task


@pytest.mark.slow
def test_the_committed_v1_results_give_the_committed_leaderboard() -> None:
    """The whole v1 leaderboard (its bootstrap tables too) from the committed results is the committed one."""
    from agents.bench.report import markdown as leaderboard_markdown

    grouped, leaderboard = committed()
    assert leaderboard_markdown(grouped) == leaderboard


# --------------------------------------------------------------------------
# Each bad file, named with what is wrong


@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
def test_a_bad_file_is_refused_by_name_with_what_is_wrong(good: dict[str, Any], tmp_path: Path, variant) -> None:
    path, message = make_bad(tmp_path, good, variant)
    with pytest.raises(ValueError) as refused:
        store.read(path)
    text = str(refused.value)
    assert text.startswith(f"{path}: ") and message in text, text
    assert "\n" not in text and len(text) < 400


def test_a_result_file_elsewhere_than_its_place_is_bad_and_one_being_written_is_not_read(
    good: dict[str, Any], tmp_path: Path
) -> None:
    """A result file is ``RESULTS/TASK/ALGORITHM/seed_N.json`` or ``RESULTS/TASK/ALGORITHM/fraction_F/
    seed_N.json``: one above or below that place is named (it was counted by what it claimed); a file
    still being written (``.partial``) and a policy kept beside a result (``seed_N.policy.json``) are
    not read as results."""
    good_folder(tmp_path, good, seeds=(0,))
    place(tmp_path, good, f"{TASK}/seed_0.json")
    place(tmp_path, good, f"archive/{TASK}/{NAME}/seed_0.json")
    place(tmp_path, b"{trunc", f"{FOLDER}/seed_1.partial-99.json")
    place(tmp_path, b'{"agent": "random", "game": "help_your_neighbor"}', f"{FOLDER}/seed_0.policy.json")
    found, bad = scan(tmp_path)
    assert list(found) == [tmp_path / FOLDER / "seed_0.json"]
    assert sorted(bad) == [tmp_path / "archive" / TASK / NAME / "seed_0.json", tmp_path / TASK / "seed_0.json"]
    layout = "not where a result file goes (RESULTS/TASK/ALGORITHM/seed_N.json, or RESULTS/TASK/ALGORITHM/fraction_F/"
    assert all(layout in line for line in bad.values()), bad


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_result_file_that_is_no_regular_file_is_not_read(tmp_path: Path) -> None:
    """A ``seed_N.json`` that is a link to an endless device, or a folder, is refused without reading."""
    device = tmp_path / FOLDER / "seed_0.json"
    device.parent.mkdir(parents=True)
    device.symlink_to("/dev/zero")
    (tmp_path / FOLDER / "seed_1.json").mkdir()
    _, bad = scan(tmp_path)
    assert sorted(bad) == [device, tmp_path / FOLDER / "seed_1.json"]
    assert all("not a regular file" in line for line in bad.values()), bad


# --------------------------------------------------------------------------
# trash-bench report: exit 2, a line per bad file, nothing written


@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
def test_report_refuses_a_folder_with_a_bad_file_and_writes_nothing(
    good: dict[str, Any], tmp_path: Path, variant, capsys: pytest.CaptureFixture[str]
) -> None:
    """Beside good files, one bad file: ``report`` (writing into the results folder itself, with a README
    to splice) exits 2 naming it, and no file is written or changed: no leaderboard, no plots, no splice."""
    folder = good_folder(tmp_path / "results", good)
    path, message = make_bad(folder, good, variant)
    readme = tmp_path / "README.md"
    readme.write_text("# Page\n\n<!-- table:leaderboard -->\nold\n<!-- /table:leaderboard -->\n")
    before = snapshot(tmp_path)
    capsys.readouterr()
    assert main(["report", str(folder), "--readme", str(readme)]) == 2
    captured = capsys.readouterr()
    lines = error_lines(captured.err)
    assert len(lines) == 2 and captured.out == "", captured
    assert f"error: {path}: " in lines[0] and message in lines[0]
    assert lines[1].endswith(f"error: 1 bad result file in {folder}: nothing written: fix, move or delete them")
    assert snapshot(tmp_path) == before


def test_report_names_every_bad_file_on_a_line_of_its_own(
    good: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = good_folder(tmp_path / "results", good)
    chosen = [
        VARIANTS[IDS.index(name)] for name in ("final null", "seed 0 saved as seed_1", "another task than its folder")
    ]
    made = [make_bad(folder, good, variant) for variant in chosen]
    out = tmp_path / "report"
    capsys.readouterr()
    assert main(["report", str(folder), "--out", str(out)]) == 2
    lines = error_lines(capsys.readouterr().err)
    assert len(lines) == 4 and "error: 3 bad result files in" in lines[-1]
    for path, message in made:
        assert sum(f"error: {path}: " in line and message in line for line in lines[:-1]) == 1, (path, lines)
    assert not out.exists()


def test_report_of_good_files_still_writes_everything(
    good: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The control: the same folder without the bad file is reported (Markdown and JSON)."""
    folder = good_folder(tmp_path / "results", good)
    assert main(["report", str(folder), "--out", str(tmp_path / "out"), "--no-plots"]) == 0
    assert f"`{NAME}`" in (tmp_path / "out" / "leaderboard.md").read_text()
    (section,) = json.loads((tmp_path / "out" / "leaderboard.json").read_text())["sections"]
    assert section["budget_fraction"] == FRACTION and section["algorithms"][NAME]["tasks"][TASK]["runs"] == 2


def test_report_checks_every_readme_before_writing(
    good: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``--readme`` without the leaderboard's markers is refused before the leaderboard is written."""
    folder = good_folder(tmp_path / "results", good)
    (tmp_path / "page.md").write_text("# No markers\n")
    before = snapshot(tmp_path)
    assert main(["report", str(folder), "--readme", str(tmp_path / "page.md")]) == 2
    assert "has no <!-- table:leaderboard -->" in capsys.readouterr().err
    assert snapshot(tmp_path) == before


# --------------------------------------------------------------------------
# trash-bench run: refuses to resume over bad files, or skips them


@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
def test_run_refuses_to_resume_over_a_folder_with_a_bad_file(
    good: dict[str, Any], tmp_path: Path, variant, plugin_importable: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 2 before any run, naming the bad file, and saying how to go on; nothing written."""
    folder = good_folder(tmp_path, good, seeds=(1,))
    path, message = make_bad(folder, good, variant)
    before = snapshot(tmp_path)
    capsys.readouterr()
    assert main([*RUN, "--results", str(folder)]) == 2
    captured = capsys.readouterr()
    lines = error_lines(captured.err)
    assert len(lines) == 2 and captured.out == "", captured
    assert f"error: {path}: " in lines[0] and message in lines[0]
    assert "1 bad result file in" in lines[1] and "nothing run" in lines[1] and "--skip-bad-results" in lines[1]
    assert snapshot(tmp_path) == before


@pytest.mark.slow
def test_run_told_to_skip_bad_files_warns_leaves_them_and_runs_the_rest(
    good: dict[str, Any], tmp_path: Path, plugin_importable: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--skip-bad-results``: a warning line per bad file; a bad file where a run of the sweep would go
    is left as it is and that run is not done; the other runs are; the same command again finds the
    run it did finished; report still refuses the folder."""
    mine = place(tmp_path, edit(_setitem("final", None))(good))  # seed 0 of this sweep
    other = place(tmp_path, b"{trunc", f"{TASK}/ppo/seed_0.json")  # another algorithm's
    before = {mine: mine.read_bytes(), other: other.read_bytes()}
    capsys.readouterr()
    assert main([*RUN, "--results", str(tmp_path), "--skip-bad-results"]) == 0
    captured = capsys.readouterr()
    warnings = error_lines(captured.err)
    assert len(warnings) == 2 and all("warning: " in line and "skipped: left as it is" in line for line in warnings)
    assert any(str(mine) in line for line in warnings) and any(str(other) in line for line in warnings)
    assert "1 runs to do, 0 already finished, 2 bad result files left alone" in captured.out
    assert {path: path.read_bytes() for path in before} == before
    assert store.read(tmp_path / FOLDER / "seed_1.json").seed == 1
    assert main([*RUN, "--results", str(tmp_path), "--skip-bad-results"]) == 0
    assert "0 runs to do, 1 already finished, 2 bad result files left alone" in capsys.readouterr().out
    assert {path: path.read_bytes() for path in before} == before
    assert main([*RUN, "--results", str(tmp_path)]) == 2


class NegativeCheckpoint:
    """A learner that reports a checkpoint at -1 timesteps."""

    def train(self, context: Any, checkpoint: Any) -> Any:
        checkpoint(-1, lambda observation, mask: 0)


class HostileName:
    """A learner whose name (what its results are filed under) is not a plain name."""

    name = "<b>x|y"

    def train(self, context: Any, checkpoint: Any) -> Any:
        raise AssertionError("never trained: its name is refused first")


def test_the_runner_writes_no_file_its_readers_would_refuse(tmp_path: Path, plugin_importable: None) -> None:
    """An algorithm that is neither a built-in nor ``module:attribute``, or a plugin whose name is not
    plain, is refused before any work (by ``run_one`` and by ``trash-bench run``), and a checkpoint at a
    negative timestep when it is reported, in one line naming the run; nothing is written."""
    with pytest.raises(ValueError, match="unknown algorithm '<b>x:Y'"):
        run_one(TASK, "<b>x:Y", 0, str(tmp_path), fraction=FRACTION)
    with pytest.raises(ValueError, match="not a plain name"):
        run_one(TASK, "test_result_files:HostileName", 0, str(tmp_path), fraction=FRACTION)
    with pytest.raises(ValueError, match="a checkpoint is at 0 timesteps or more") as failed:
        run_one(TASK, "test_result_files:NegativeCheckpoint", 0, str(tmp_path), fraction=FRACTION)
    assert str(failed.value).startswith(f"{TASK} NegativeCheckpoint seed 0 at fraction {FRACTION}: training failed: ")
    assert "\n" not in str(failed.value) and "Traceback" not in str(failed.value)
    assert main(["run", "--algorithm", "a|b:C", "--tasks", TASK, "--seeds", "1", "--results", str(tmp_path)]) == 2
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------
# Names escaped in Markdown and in the HTML made of it


class Cells(html.parser.HTMLParser):
    """The tags of an HTML fragment and the text of each table cell, row by row."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.rows: list[list[str]] = []
        self.in_cell = False

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self.tags.add(tag)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.rows[-1].append("")
            self.in_cell = True

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th"):
            self.in_cell = False

    def handle_data(self, data: str) -> None:
        if self.in_cell:
            self.rows[-1][-1] += data

    def handle_comment(self, data: str) -> None:
        self.tags.add("<!--")


def renderers() -> list[Callable[[str], str]]:
    """GitHub's kind of Markdown (CommonMark with tables, markdown-it, rich's) and the docs site's
    (Python-Markdown with its tables), where installed."""
    found = []
    markdown_it = pytest.importorskip("markdown_it")
    found.append(markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"]).render)
    try:
        import markdown as python_markdown
    except ImportError:
        return found
    found.append(lambda text: python_markdown.markdown(text, extensions=["tables", "attr_list", "md_in_html"]))
    return found


NAMES = [
    *HOSTILE_NAMES,
    "**bold** _it_ ~~struck~~ $x$",
    "&amp; \\ {: onclick=alert(1)}",
    "two\nlines",
    "plain_name.v2-x",
]


@pytest.mark.parametrize("name", NAMES)
def test_a_name_in_a_table_is_text_in_markdown_and_in_its_html(name: str) -> None:
    """Each name, in a table cell, renders as exactly its own text (a line break as U+FFFD), in a cell
    of its own, with no element, link or comment made of it."""
    text = markdown.table(["algorithm", "score"], [[markdown.literal(name), "0.50"]])
    assert len(text.splitlines()) == 3
    for render in renderers():
        cells = Cells()
        cells.feed(render(text))
        assert cells.tags <= {"table", "thead", "tbody", "tr", "th", "td", "code"}, cells.tags
        assert ("code" in cells.tags) == (name == "plain_name.v2-x")
        assert cells.rows == [["algorithm", "score"], [name.replace("\n", "\ufffd"), "0.50"]]


@pytest.mark.slow
def test_hostile_names_are_escaped_in_the_leaderboard_and_the_readme_splice(
    good: dict[str, Any], tmp_path: Path
) -> None:
    """Defence in depth (the schema refuses such names): runs named with Markdown and HTML in them
    give a leaderboard whose every table keeps its columns, whose HTML has no element made of a name,
    and which, spliced into a README, leaves its markers as they were (a name holding a closing marker
    does not end the generated part early); its plots are drawn ($ is no mathematics)."""
    from agents.bench import report

    base = results.check(good, Path(FOLDER) / "seed_0.json")
    grouped = {name: {TASK: [dataclasses.replace(base, algorithm=name)]} for name in HOSTILE_NAMES + ["a$b"]}
    text = report.markdown(grouped)
    for render in renderers():
        page = render(text)
        cells = Cells()
        cells.feed(page)
        assert cells.tags <= {"table", "thead", "tbody", "tr", "th", "td", "code", "p"}, cells.tags
        for table in text.split("\n\n"):  # each row as wide as its table's header
            if table.startswith("|"):
                rendered = Cells()
                rendered.feed(render(table))
                assert len({len(row) for row in rendered.rows}) == 1, table
        for name in HOSTILE_NAMES:
            assert any(name in row for row in cells.rows), name
    readme = tmp_path / "README.md"
    page = "# Page\n\n<!-- table:leaderboard -->\nold\n<!-- /table:leaderboard -->\n\nAfter.\n"
    readme.write_text(page)
    report.splice(readme, text)
    report.splice(readme, text)  # again: the same parts
    spliced = readme.read_text()
    assert markdown.marked_names(spliced) == ["leaderboard"] and spliced.endswith(
        "<!-- /table:leaderboard -->\n\nAfter.\n"
    )
    assert spliced == page.replace("old\n", text)
    pytest.importorskip("matplotlib")
    assert [path.name for path in report.plots(grouped, tmp_path)] == [
        "performance_profiles.png",
        "sample_efficiency_per_task.png",
        "sample_efficiency.png",
    ]
