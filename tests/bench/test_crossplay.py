"""Cross-play (``trash-bench crossplay RESULTS --task T``, :mod:`agents.bench.crossplay`): a task's kept
final policies and its baselines, each against each on the same duplicate deals.

- the score matrix is antisymmetric, and each ordered pair is what ``run_pairings`` gives that pair
  on the same deals and seed (a baseline pair, and a run's kept policy named second);
- the Bradley-Terry ratings put the strong baselines above ``random`` (= 0), best first;
- the JSON, the Markdown and the heatmap are written, and the JSON reads back as returned;
- bad input is one line and exit status 2: a missing folder, an unknown task, a task of more than
  two players, too few deals, a folder with no runs of the task, a missing kept policy (or, with
  ``--skip-missing``, a warning and the rest played), a bad result file of the task.

The results folder is made by the runner itself (:func:`agents.bench.runner.run_one`: schema-checked
result files and weights-only artifacts), its two child processes run in this process for speed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_suite import FirstLegal  # this folder's (on the path as pytest runs it)

from agents.bench import crossplay as cp
from agents.bench import runner, worker
from agents.bench.artifacts import load_artifact
from agents.bench.tasks import MAX_TRAINING_SEED, TEST_SEEDS, VALIDATION_SEED, get_task
from agents.commands.bench import main
from agents.evaluation.duplicate import run_pairings
from agents.evaluation.stats import pair_summaries
from agents.registry import make_agent
from trash_env.files import write_json

HERE = Path(__file__).parent
TASK = get_task("trash-standard-2p")
FRACTION = TASK.min_fraction
DEALS = 20
pytestmark = pytest.mark.usefixtures("one_torch_thread")


class PlainGreedy(FirstLegal):
    """Steps its budget as :class:`FirstLegal` does, then returns the ``greedy`` baseline (kept as a
    ``.json`` artifact naming it)."""

    name = "plain_greedy"
    baseline = True  # it keeps the built-in greedy by name, and says so

    def train(self, context: Any, checkpoint: Any) -> Any:
        super().train(context, checkpoint)
        return make_agent("greedy", context.task.game)


def in_process_child(command: str, job: dict[str, Any], temp: Path, label: str, timeout: float = 0) -> dict[str, Any]:
    """The runner's child process (``python -m agents.bench.worker COMMAND JOB``), run here: the same
    worker function on the same job, without a process's start-up."""
    write_json(job["output"], worker.COMMANDS[command](job))
    return json.loads(Path(job["output"]).read_text())


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results folder with three runs of the task: ``plain_greedy`` seed 0 (a baseline artifact) and
    ``first_legal`` seeds 0 and 1 (LinearAgents, ``.npz``)."""
    results = tmp_path_factory.mktemp("results")
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(HERE))
        patch.setattr(runner, "_child", in_process_child)
        for spec, name, seed in [
            ("test_crossplay:PlainGreedy", "plain_greedy", 0),
            ("test_suite:FirstLegal", "first_legal", 0),
            ("test_suite:FirstLegal", "first_legal", 1),
        ]:
            runner.run_one(TASK.name, spec, seed, str(results), fraction=FRACTION, name=name)
    return results


@pytest.fixture(scope="module")
def played(folder: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """The cross-play of the folder on ``DEALS`` deals of the default seed, and where it was written."""
    out = tmp_path_factory.mktemp("crossplay")
    return cp.crossplay(folder, TASK.name, DEALS, out=out, bootstrap=50), out


def run_name(algorithm: str, seed: int) -> str:
    return f"{algorithm}/fraction_{FRACTION!r}/seed_{seed}"


def cell(data: dict[str, Any], row: str, column: str) -> dict[str, float] | None:
    names = data["agents"]
    return data["matrix"][names.index(row)][names.index(column)]


def test_the_entries_are_every_run_then_the_scored_baselines(played: tuple[dict[str, Any], Path]) -> None:
    data, _ = played
    runs = [run_name("first_legal", 0), run_name("first_legal", 1), run_name("plain_greedy", 0)]
    assert data["agents"] == [*runs, "random", "greedy", "counter"]
    entries = {entry["name"]: entry for entry in data["entries"]}
    assert entries[runs[0]]["result"] == f"{TASK.name}/{runs[0]}.json"
    assert entries[runs[0]]["artifact"] == "seed_0.policy.npz" and entries[runs[2]]["artifact"] == "seed_0.policy.json"
    assert entries["greedy"] == {"name": "greedy", "kind": "baseline"} and data["left_out"] == []
    assert (data["task"], data["task_version"], data["deals"]) == (TASK.name, TASK.version, DEALS)
    assert data["seed"] == cp.CROSSPLAY_SEED and data["games"] == 15 * DEALS * 2


def test_the_default_seed_is_no_training_validation_or_test_seed() -> None:
    seed = cp.CROSSPLAY_SEED
    assert seed >= MAX_TRAINING_SEED and seed != VALIDATION_SEED and seed < TEST_SEEDS[0]


def test_the_matrix_is_antisymmetric(played: tuple[dict[str, Any], Path]) -> None:
    data, _ = played
    size = len(data["agents"])
    for i in range(size):
        assert data["matrix"][i][i] is None
        for j in range(i + 1, size):
            forward, backward = data["matrix"][i][j], data["matrix"][j][i]
            assert backward["mean"] == -forward["mean"] and backward["n"] == forward["n"] == DEALS
            assert (backward["low"], backward["high"]) == (-forward["high"], -forward["low"])


def test_each_ordered_pair_is_what_run_pairings_gives_on_the_same_deals(
    folder: Path, played: tuple[dict[str, Any], Path]
) -> None:
    """Played here directly in the order the matrix does not play them (the second's row): the same
    interval; the baseline pair on another seed differs (the seed is the one recorded)."""
    data, _ = played
    config, seed = TASK.config(), data["seed"]
    first_legal = run_name("first_legal", 0)
    policy = load_artifact(folder / TASK.name / "first_legal" / f"fraction_{FRACTION!r}" / "seed_0.policy.npz", TASK)
    pairs = [("random", "greedy"), ("counter", first_legal)]
    summaries = pair_summaries(run_pairings(config, pairs, DEALS, seed, prebuilt={first_legal: policy}))
    for summary in summaries:
        expected = cell(data, summary.first, summary.second)
        got = summary.score_difference
        assert (got.mean, got.low, got.high, got.n) == pytest.approx(
            (expected["mean"], expected["low"], expected["high"], expected["n"]), abs=1e-12
        )
    other = pair_summaries(run_pairings(config, [("greedy", "random")], DEALS, seed + 1))[0].score_difference
    assert other.mean != cell(data, "greedy", "random")["mean"]


def test_the_ratings_put_the_strong_baselines_above_random(played: tuple[dict[str, Any], Path]) -> None:
    data, _ = played
    ratings = {row["agent"]: row for row in data["ratings"]}
    assert ratings["random"]["mean"] == 0.0  # the anchor
    for strong in ("greedy", "counter", run_name("plain_greedy", 0)):
        assert ratings[strong]["low"] > ratings["random"]["high"], strong
    means = [row["mean"] for row in data["ratings"]]
    assert means == sorted(means, reverse=True) and set(ratings) == set(data["agents"])
    for row in data["ratings"]:
        assert row["low"] <= row["mean"] <= row["high"] and 0 <= row["win_rate"] <= 1


def test_the_json_markdown_and_heatmap_are_written(played: tuple[dict[str, Any], Path]) -> None:
    data, out = played
    files = {path.name for path in out.iterdir()}
    assert files == {f"crossplay-{TASK.name}.{kind}" for kind in ("json", "md", "png")}
    assert json.loads((out / f"crossplay-{TASK.name}.json").read_text()) == data
    text = (out / f"crossplay-{TASK.name}.md").read_text()
    assert text == cp.markdown(data)
    assert "| 1 | " in text and "`first_legal`/`fraction_0.00512`/`seed_0`" in text
    matrix = text.split("## Score matrix")[1]
    assert len([line for line in matrix.splitlines() if line.startswith("| ")]) == 1 + len(data["agents"])
    assert (out / f"crossplay-{TASK.name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one line ``trash-bench ARGV`` refuses with (exit status 2, nothing on stdout)."""
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("trash-bench: error: "), lines
    assert captured.out == ""
    return lines[0]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--task", "no-such-task"], "unknown task 'no-such-task'"),
        (["--task", "hyn-4p"], "task hyn-4p has 4 players: cross-play is for two-player tasks"),
        (["--task", "trash-pagat-2p"], "holds no playable run of task trash-pagat-2p"),
        (["--task", TASK.name, "--deals", "1"], "--deals must be at least 2, got 1"),
        (["--task", TASK.name, "--bootstrap", "-1"], "--bootstrap must be at least 0"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    folder: Path, arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert message in refused(["crossplay", str(folder), *arguments], capsys)


def test_a_missing_folder_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(["crossplay", str(tmp_path / "nowhere"), "--task", TASK.name], capsys)
    assert "does not exist" in line and "nowhere" in line


def copied(folder: Path, tmp_path: Path, seed: int) -> tuple[Path, Path]:
    """A copy of the results folder, and the result file of its ``first_legal`` run of ``seed``."""
    copy = tmp_path / "results"
    shutil.copytree(folder, copy)
    return copy, copy / TASK.name / "first_legal" / f"fraction_{FRACTION!r}" / f"seed_{seed}.json"


def test_a_missing_policy_is_refused_naming_its_file_or_left_out_when_asked(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy, result = copied(folder, tmp_path, 1)
    result.with_name("seed_1.policy.npz").unlink()
    line = refused(["crossplay", str(copy), "--task", TASK.name, "--deals", "2"], capsys)
    assert f"{result}: its policy seed_1.policy.npz is not beside it" in line
    assert not list(copy.glob("crossplay-*"))
    argv = ["crossplay", str(copy), "--task", TASK.name, "--deals", "2", "--bootstrap", "0", "--no-plot"]
    assert main([*argv, "--skip-missing"]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"trash-bench: warning: {result.relative_to(copy)}: left out: {line.removeprefix('trash-bench: error: ')}"
    ]
    data = json.loads((copy / f"crossplay-{TASK.name}.json").read_text())
    assert run_name("first_legal", 1) not in data["agents"] and len(data["agents"]) == 5
    assert captured.out.startswith(f"crossplay {TASK.name}: 2 runs and 3 baselines, 10 pairs x 2 deals")
    assert not (copy / f"crossplay-{TASK.name}.png").exists()


def test_a_bad_result_file_of_the_task_is_refused(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy, bad = copied(folder, tmp_path, 0)
    bad.write_text("{")
    assert main(["crossplay", str(copy), "--task", TASK.name, "--deals", "2"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith(f"trash-bench: error: {bad}: not valid JSON") and "1 bad result file" in lines[1]
