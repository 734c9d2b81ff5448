"""The benchmark suite: tasks (:mod:`agents.bench.tasks`), runs and sweeps (:mod:`agents.bench.runner`),
statistics (:mod:`agents.bench.statistics`), reports and the ``trash-bench`` command.

- the registry imports without torch, every task's reference scores are stored for its version, and
  the normalised score is 0 for random and 1 for the reference agent;
- a tiny sweep (2 tasks x 2 seeds) runs end to end as a user runs it, is interrupted, and resumes
  skipping the finished runs; ``report`` turns it into tables, plots and JSON;
- the statistics match hand-computed values on small inputs;
- any algorithm plugs in through the interface (a trivial learner here);
- snapshots asked in batches inside the batched vector env only ever play legal moves.
"""

from __future__ import annotations

import json
import math
import re
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.bench.tasks import TASKS, get_task, load_references, select_tasks

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def bench(*args: str, cwd: Path = ROOT, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agents.commands.bench", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


# --------------------------------------------------------------------------
# Tasks


def test_the_registry_imports_without_torch() -> None:
    code = "import sys, agents.bench.tasks as t; assert len(t.TASKS) >= 8; assert 'torch' not in sys.modules, 'torch'"
    completed = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, completed.stderr


def test_every_task_has_stored_references_and_a_normalised_scale() -> None:
    """At least 8 tasks spanning the issue's kinds (2-player hands, more players, pagat, a match, a
    self-play task, Help Your Neighbor with 2 and 4 players); every task's references are stored for
    its version on its own evaluation deals, and normalising gives 0 for random, 1 for the reference."""
    assert len(TASKS) >= 8
    kinds = {
        "more players": any(t.num_players > 2 and t.game == "trash" for t in TASKS.values()),
        "pagat": any(t.preset == "pagat" for t in TASKS.values()),
        "match": any(t.rules.get("match") for t in TASKS.values()),
        "self-play": any(t.self_play for t in TASKS.values()),
        "hyn 2": any(t.game == "help_your_neighbor" and t.num_players == 2 for t in TASKS.values()),
        "hyn 4": any(t.game == "help_your_neighbor" and t.num_players == 4 for t in TASKS.values()),
    }
    assert all(kinds.values()), kinds
    stored = load_references()
    for task in TASKS.values():
        assert stored[task.name]["version"] == task.version and stored[task.name]["seed"] == task.validation_seed
        assert stored[task.name]["deals"] == task.final_deals and stored[task.name]["protocol"] == 2
        assert sorted(stored[task.name]["heldout"]) == sorted(task.heldout)
        for opponent in task.heldout:
            anchors = task.heldout_reference_scores(opponent)
            assert anchors["random"] < anchors["reference"], (task.name, opponent)
        references = task.reference_scores
        assert task.normalize(references["random"]) == 0 and task.normalize(references["reference"]) == 1
        assert references["random"] < references["reference"]
        assert task.tests and task.budget > 0 and task.points() == sorted(task.points())
        task.config()  # a valid configuration (R1, R11, R12)
    assert get_task("hyn-2p").reference == "optimal"
    assert select_tasks(["all"]) == list(TASKS.values())
    with pytest.raises(ValueError, match="unknown task"):
        get_task("nosuch")


def test_the_stored_reference_of_one_task_is_what_the_command_recomputes() -> None:
    """``trash-bench references``'s computation: random against greedy on the first ``final_deals``
    validation deals (the curve's deals are their first ``eval_deals``)."""
    from agents.evaluation.duplicate import run_pairings
    from agents.evaluation.stats import pair_summaries

    task = get_task("trash-standard-2p")
    results = run_pairings(task.config(), [("random", "greedy")], task.final_deals, seed=task.validation_seed)
    assert round(pair_summaries(results)[0].score_difference.mean, 6) == task.reference_scores["random"]


# --------------------------------------------------------------------------
# A tiny sweep, interrupted and resumed, and its report


def finished_files(results: Path) -> list[Path]:
    """The result files a sweep has finished (not those still being written)."""
    return sorted(p for p in results.rglob("seed_*.json") if ".partial" not in p.name)


def start_tiny_sweep(tmp_path: Path, seeds: int) -> tuple[subprocess.Popen, list[str], Path]:
    """``trash-bench run`` of MaskablePPO on two tasks at 1% budgets on two workers, started and
    waited for until its first run has finished (its workers are then training the next ones);
    Ctrl-C reaches it as at a terminal."""
    results = tmp_path / "results"
    args = [
        "run", "--algorithm", "maskable_ppo", "--tasks", "trash-standard-2p", "hyn-2p", "--seeds", str(seeds),
        "--results", str(results), "--budget-fraction", "0.01", "--workers", "2",
    ]  # fmt: skip
    log = (tmp_path / "log.txt").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "agents.commands.bench", *args],
        cwd=ROOT,
        stdout=log,
        stderr=log,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # Ctrl-C as at a terminal
    )
    deadline = time.monotonic() + 300
    while not finished_files(results):
        assert process.poll() is None, (tmp_path / "log.txt").read_text()
        assert time.monotonic() < deadline
        time.sleep(0.2)
    return process, args, results


@pytest.mark.slow
def test_a_tiny_sweep_runs_is_interrupted_resumes_and_reports(tmp_path: Path) -> None:
    """``trash-bench run`` with tiny budgets on two worker processes: stopped by Ctrl-C after its first
    finished run, it ends its workers, keeps that run's file and exits 130; the same command again
    skips it and finishes the rest; each result file has the documented fields; ``report`` writes the
    tables, plots and JSON."""
    process, args, results = start_tiny_sweep(tmp_path, seeds=2)
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=120) == 130, (tmp_path / "log.txt").read_text()
    kept = sorted(p.relative_to(results) for p in results.rglob("seed_*.json"))
    assert 1 <= len(kept) < 4
    before = {path: (results / path).read_text() for path in kept}
    completed = bench(*args)
    assert completed.returncode == 0, completed.stderr
    assert f"{4 - len(kept)} runs to do, {len(kept)} already finished" in completed.stdout
    files = sorted(p.relative_to(results) for p in results.rglob("seed_*.json"))
    assert len(files) == 4
    assert all((results / path).read_text() == text for path, text in before.items())  # not run again
    for path in files:
        data = json.loads((results / path).read_text())
        for key in (
            "task",
            "task_version",
            "algorithm",
            "seed",
            "budget",
            "curve",
            "final",
            "wall_seconds",
            "package_version",
            "protocol",
            "valid",
            "counted_steps",
            "validation",
            "heldout",
            "artifact",
            "provenance",
        ):
            assert key in data
        task = get_task(data["task"])
        assert data["budget"] == task.scaled_budget(0.01) and data["budget_fraction"] == 0.01
        assert path.parts[-2] == "fraction_0.01" and (results / path).with_name(data["artifact"]).is_file()
        assert data["curve"][0]["timesteps"] == 0 and len(data["curve"]) == len(task.points(0.01))
        assert data["valid"] and data["counted_steps"] >= data["budget"]
        scored = [(p, data["validation"]["anchors"]) for p in data["curve"]]  # each score with its deals' anchors
        scored += [(entry, entry["anchors"]) for entry in [data["final"], *data["heldout"]]]
        for point, anchors in scored:
            assert point["low"] <= point["score"] <= point["high"]
            expected = (point["score"] - anchors["random"]) / (anchors["reference"] - anchors["random"])
            assert math.isclose(point["normalized"], expected)
    report = bench("report", str(results), "--out", str(tmp_path / "report"))
    assert report.returncode == 0, report.stderr
    text = (tmp_path / "report" / "leaderboard.md").read_text()
    assert "`trash-standard-2p`" in text and "`hyn-2p`" in text and "IQM" in text and "optimality gap" in text
    board = json.loads((tmp_path / "report" / "leaderboard.json").read_text())
    (section,) = board["sections"]  # one protocol, task version and fraction
    assert section["budget_fraction"] == 0.01 and section["label"].endswith("budget fraction 0.01")
    assert set(section["algorithms"]["maskable_ppo"]["tasks"]) == {"trash-standard-2p", "hyn-2p"}
    for name in ("performance_profiles.png", "sample_efficiency.png", "sample_efficiency_per_task.png"):
        assert (tmp_path / "report" / name).read_bytes()[:4] == b"\x89PNG"


def _alive(pid: int) -> bool:
    """``pid`` is a running process (not gone, not a zombie waiting to be reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_killing_a_sweep_ends_its_workers_and_they_write_nothing_more(tmp_path: Path) -> None:
    """``kill`` of a sweep's main process (SIGTERM, no handler there) ends its worker processes at
    once: they do not finish the runs still queued and write no further result file. (A worker's
    training turned the parent-death SIGTERM into a stop of its current run only, then went on
    with the queued runs for hours.)"""
    process, _, results = start_tiny_sweep(tmp_path, seeds=4)  # its workers are training now
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
    workers = [int(pid) for pid in children]
    assert len(workers) >= 2
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) == -signal.SIGTERM
    kept = finished_files(results)
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in workers):
        assert time.monotonic() < deadline, "worker processes outlived the sweep"
        time.sleep(0.2)
    time.sleep(2)
    assert finished_files(results) == kept
    assert len(kept) < 8


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--algorithm", "nosuch", "--tasks", "all", "--seeds", "1", "--results", "r"], "unknown algorithm"),
        (["run", "--algorithm", "ppo", "--tasks", "nosuch", "--seeds", "1", "--results", "r"], "unknown task"),
        (
            ["run", "--algorithm", "ppo", "--tasks", "all", "--seeds", "0", "--results", "r"],
            "--seeds must be at least 1",
        ),
        (
            [
                "run",
                "--algorithm",
                "ppo",
                "--tasks",
                "all",
                "--seeds",
                "1",
                "--results",
                "r",
                "--budget-fraction",
                "20000",
            ],
            "(0, 1], or up to 10000",
        ),
        (["run", "--algorithm", "os:path", "--tasks", "all", "--seeds", "1", "--results", "r"], "no train"),
        (["report", "nowhere"], "does not exist"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(argv: list[str], message: str, tmp_path: Path) -> None:
    completed = bench(*argv, cwd=tmp_path, timeout=120)
    assert completed.returncode == 2
    assert len(completed.stderr.strip().splitlines()) == 1 and message in completed.stderr, completed.stderr
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------
# Statistics


def test_aggregates_match_hand_computed_values() -> None:
    matrix = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    aggregate = pytest.importorskip("agents.bench.statistics")  # SciPy: the eval extra
    assert aggregate.iqm(matrix) == pytest.approx(4.5)  # the middle half of 1..8: 3, 4, 5, 6
    assert aggregate.mean(matrix) == pytest.approx(4.5)
    assert aggregate.optimality_gap(np.array([[0.5, 1.2], [0.0, 0.9]])) == pytest.approx((0.5 + 0 + 1 + 0.1) / 4)
    m, _, high, n = aggregate.per_task({"t": np.array([1.0, 2.0, 3.0])})["t"]
    assert (m, n) == (2.0, 3) and high - m == pytest.approx(4.302653 * 1 / math.sqrt(3), rel=1e-5)
    x = {"a": np.array([1.0, 3.0]), "b": np.array([0.5])}
    y = {"a": np.array([2.0, 3.0]), "b": np.array([0.5])}
    # task a: pairs (1>2? 0, 1>3? 0, 3>2 1, 3=3 0.5) -> 1.5/4; task b: a tie -> 0.5
    assert aggregate.probability_of_improvement(x, y) == pytest.approx((1.5 / 4 + 0.5) / 2)
    profile = aggregate.performance_profile(
        {"a": np.array([0.2, 0.8]), "b": np.array([0.6])}, np.array([0.0, 0.5, 1.0])
    )
    np.testing.assert_allclose(profile, [(1 + 1) / 2, (0.5 + 1) / 2, 0])


def test_stratified_bootstrap_resamples_within_tasks() -> None:
    """A task whose runs all agree contributes no spread; the interval holds the point estimate; the
    same seed gives the same interval."""
    aggregate = pytest.importorskip("agents.bench.statistics")  # SciPy: the eval extra
    scores = {"a": np.full(5, 0.7), "b": np.array([0.0, 0.2, 0.4, 0.6, 0.8])}
    point, low, high = aggregate.stratified_bootstrap(scores, aggregate.mean, resamples=500, seed=3)
    assert point == pytest.approx((0.7 + 0.4) / 2) and low <= point <= high < 0.7
    assert aggregate.stratified_bootstrap(scores, aggregate.mean, resamples=500, seed=3) == (point, low, high)
    constant = aggregate.stratified_bootstrap({"a": np.full(4, 0.3)}, aggregate.iqm, resamples=100)
    assert constant == pytest.approx((0.3, 0.3, 0.3))


def fake_run(task: str, seed: int, final: float, curve: Sequence[float] = ()) -> Any:
    """A finished run of ``task`` (a :class:`agents.bench.results.Result`) whose final policy scores
    ``final`` normalised and whose curve is ``curve`` at the task's evaluation points (all in
    agreement with its anchors, as in a good result file)."""
    from agents.bench.results import Anchors, CurvePoint, FinalEvaluation, Protocol, Result

    spec, anchors = TASKS[task], Anchors(random=-1.0, reference=0.0)
    points = [CurvePoint(round(f * spec.budget), n - 1, n - 1, n - 1, n) for f, n in zip(spec.eval_points, curve)]
    protocol = Protocol(spec.reference, spec.eval_deals, spec.final_deals, spec.validation_seed)
    last = FinalEvaluation(final - 1, final - 1, final - 1, final, spec.final_deals)
    return Result(
        1, task, spec.version, "x", seed, spec.budget, 1.0, tuple(points), last, anchors, protocol, 1.0, "0", True
    )


def test_the_best_learner_of_each_task_and_its_gaps_to_reference_and_optimum() -> None:
    """The report names the learner with the highest mean on each task and its gaps (issue 14,
    "how far the best learned policy is from the reference and the optimum")."""
    from agents.bench import report

    def runs(task: str, *scores: float) -> list[Any]:
        return [fake_run(task, i, s) for i, s in enumerate(scores)]

    grouped = {
        "a": {"hyn-2p": runs("hyn-2p", 0.5, 0.7), "trash-standard-2p": runs("trash-standard-2p", 1.02, 1.02)},
        "b": {"hyn-2p": runs("hyn-2p", 0.8, 0.8), "trash-standard-2p": runs("trash-standard-2p", 0.9, 0.9)},
    }
    baselines = {"hyn-2p": {"optimal": 1.0, "heuristic": 0.89}, "trash-standard-2p": {"greedy": 1.0}}
    rows = report.best_per_task(grouped, ["trash-standard-2p", "hyn-2p"], baselines)
    table = [line for line in rows if line.startswith("| `")]
    assert table == [
        "| `trash-standard-2p` | `a` | 1.02 [1.02, 1.02] | -0.02 | - |",
        "| `hyn-2p` | `b` | 0.80 [0.80, 0.80] | 0.20 | 0.20 |",
    ]


def test_a_task_with_one_run_has_no_interval_and_the_json_leaderboard_says_null(tmp_path: Path) -> None:
    """A sweep in progress can have one finished seed on a task: the Markdown shows the mean alone,
    and ``leaderboard.json`` (strict JSON, no NaN) gives null for the interval."""
    from agents.bench import report
    from trash_env.files import write_json

    grouped = {"a": {"hyn-2p": [fake_run("hyn-2p", 0, 0.5)]}}
    write_json(tmp_path / "leaderboard.json", report.leaderboard(grouped))
    board = json.loads((tmp_path / "leaderboard.json").read_text())
    figures = board["sections"][0]["algorithms"]["a"]["tasks"]["hyn-2p"]
    assert figures == {"mean": 0.5, "low": None, "high": None, "runs": 1}
    assert "| `hyn-2p` | 0.50 (1) |" in report.markdown(grouped)


def test_an_algorithm_has_one_colour_in_every_plot_even_where_others_are_missing(monkeypatch, tmp_path) -> None:
    """An algorithm that ran only some tasks must not shift the others' colours in the per-task
    panels (the legend is the figure's, one entry per algorithm)."""
    pytest.importorskip("matplotlib")
    from agents.bench import report

    def runs(task: str, score: float) -> list[Any]:
        return [fake_run(task, 0, score, [score * f for f in TASKS[task].eval_points])]

    grouped = {
        "a": {"hyn-2p": runs("hyn-2p", 0.5), "hyn-4p": runs("hyn-4p", 0.6)},
        "b": {"hyn-4p": runs("hyn-4p", 0.7)},  # only on the second task
        "c": {"hyn-2p": runs("hyn-2p", 0.8), "hyn-4p": runs("hyn-4p", 0.9)},
    }
    figures = []
    monkeypatch.setattr(report, "_save", lambda figure, path, rect=None: figures.append(figure) or path)
    report.plots(grouped, tmp_path)
    colours: dict[str, set] = {}
    for figure in figures:
        for axes in figure.axes:
            for line in axes.get_lines():
                colours.setdefault(line.get_label().split(" (")[0], set()).add(line.get_color())
    assert set(colours) == {"a", "b", "c"} and all(len(c) == 1 for c in colours.values()), colours
    assert len({next(iter(c)) for c in colours.values()}) == 3
    per_task = figures[1]
    assert [t.get_text() for t in per_task.legends[0].get_texts()] == ["a", "b", "c"]


# --------------------------------------------------------------------------
# Any algorithm


class FirstLegal:
    """A trivial learner: it learns nothing, reports at every point, and plays the first legal move (a
    :class:`agents.linear.LinearAgent` of zeros: its highest logit is a tie, broken to the lowest legal
    action), stepping the context's single-agent env exactly up to each point."""

    name = "first_legal"
    seen: list[int] = []
    checkpoints_callables = False  # checkpoint a bare callable (the same moves) instead of the agent

    def train(self, context: Any, checkpoint: Any) -> Any:
        from agents.linear import LinearAgent

        env = context.single_agent_env()
        observation, info = env.reset(seed=context.seed)
        steps = 0
        size, actions = env.observation_space.shape[0], env.action_space.n
        first = LinearAgent(np.zeros((size, actions)), np.zeros(actions), context.task.game, config=context.config)
        policy = lambda observation, mask: int(np.flatnonzero(mask)[0])  # noqa: E731
        for point in context.eval_points:
            while steps < point:
                observation, _, terminated, truncated, info = env.step(policy(observation, info["action_mask"]))
                steps += 1
                if terminated or truncated:
                    observation, info = env.reset()
            checkpoint(steps, policy if self.checkpoints_callables else first)
            FirstLegal.seen.append(steps)
        return first


def plugin_result(folder: Path, task: str, spec: str, name: str, fraction: float) -> dict[str, Any]:
    """The result file a run of the plugin ``spec`` (``module:Class`` of this folder, named ``name``)
    on ``task`` at ``fraction`` writes into ``folder``, as JSON."""
    from agents.bench.runner import run_one
    from agents.bench.store import result_location

    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(Path(__file__).parent))
        run_one(task, spec, 0, str(folder), fraction=fraction)
    return json.loads(result_location(folder, get_task(task), name, 0, fraction).read_text())


def place_result(folder: Path, task: str, fraction: float, data: dict[str, Any]) -> Path:
    """Write ``data`` where a result of its algorithm and seed on ``task`` at ``fraction`` lives."""
    from agents.bench.store import result_location

    path = result_location(folder, get_task(task), data["algorithm"], data["seed"], fraction)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


@pytest.mark.slow
def test_a_custom_algorithm_plugs_in(tmp_path: Path) -> None:
    """An algorithm outside the package (``module:Class``) is trained through the interface: its
    checkpoints become the curve, its returned callable the final policy."""
    from agents.bench.runner import run_one
    from agents.bench.store import result_location

    sys.path.insert(0, str(Path(__file__).parent))
    try:
        result = run_one("hyn-4p", "test_suite:FirstLegal", 0, str(tmp_path), fraction=0.005)
    finally:
        sys.path.remove(str(Path(__file__).parent))
    task = get_task("hyn-4p")
    assert [p["timesteps"] for p in result["curve"]] == task.points(0.005)
    assert result["algorithm"] == "first_legal" and result["final"]["deals"] == task.scaled_deals(0.005)[1]
    assert result_location(tmp_path, task, "first_legal", 0, 0.005).is_file()


@pytest.mark.slow
def test_a_sweep_runs_as_ray_tasks_on_a_local_ray_instance(tmp_path: Path) -> None:
    """``trash-bench run --ray`` starts a local Ray instance and runs each (task, seed) as a Ray task:
    the same result files as the process pool, and a second run skips them."""
    pytest.importorskip("ray")
    import os

    results = tmp_path / "results"
    args = [
        "run", "--algorithm", "test_suite:FirstLegal", "--tasks", "hyn-4p", "--seeds", "2",
        "--results", str(results), "--budget-fraction", "0.005", "--ray",
    ]  # fmt: skip
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), str(ROOT)]),
        "RAY_AUTH_MODE": "disabled",
    }
    completed = subprocess.run(
        [sys.executable, "-m", "agents.commands.bench", *args], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    assert "Started a local Ray instance" in completed.stderr
    files = sorted(results.rglob("seed_*.json"))
    assert [path.relative_to(results).as_posix() for path in files] == [
        f"hyn-4p/first_legal/fraction_0.005/seed_{seed}.json" for seed in (0, 1)
    ]
    for path in files:
        data = json.loads(path.read_text())
        assert data["complete"] and data["budget_fraction"] == 0.005
    again = subprocess.run(
        [sys.executable, "-m", "agents.commands.bench", *args], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert again.returncode == 0 and "0 runs to do, 2 already finished" in again.stdout, again.stderr


# --------------------------------------------------------------------------
# The built-in algorithms call the training library


@pytest.mark.parametrize(
    "algorithm", ["a2c", "maskable_ppo", "maskable_ppo_shaped", "masked_a2c", "masked_dqn", "masked_qrdqn"]
)
def test_a_builtin_algorithm_trains_through_the_library_and_prints_nothing(
    tmp_path: Path, algorithm: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A built-in algorithm calls ``agents.training.sb3.train`` with the task's rules as they are (a
    rules field beyond the players and matches included, on the scalar envs and on the batched
    engine), reports every evaluation point through the suite's callback and returns the trained
    policy as an agent for those rules. Without a log handler the library prints nothing."""
    pytest.importorskip("sb3_contrib")
    import dataclasses

    from agents.bench.algorithms import BUILTIN, TaskContext, make_opponents
    from agents.learned import LearnedAgent

    task = dataclasses.replace(get_task("trash-pagat-2p"), rules={"num_players": 2, "match": True, "layout_size": 8})
    points = [0, 256, 512]
    context = TaskContext(task, 0, 512, points, tmp_path, make_opponents(task))
    reported: list[int] = []
    capsys.readouterr()
    policy = BUILTIN[algorithm]().train(context, lambda timesteps, agent: reported.append(timesteps))
    assert capsys.readouterr().out == ""
    assert isinstance(policy, LearnedAgent)
    assert policy.metadata["config"] == task.config().to_dict() and policy.metadata["config"]["layout_size"] == 8
    assert len(reported) == len(points) and reported[0] == 0 and reported == sorted(reported)
    assert all(done >= point for done, point in zip(reported, points))


# --------------------------------------------------------------------------
# Snapshots inside the batched vector env


def test_snapshots_in_the_batched_vector_env_only_play_legal_moves() -> None:
    """Frozen policies asked in batches for their seats (self-play on the batched engine) are only ever
    asked at their own real choices, with their own observation and mask, and only play legal moves;
    the learner is asked at every step, and finished episodes report R10 rewards."""
    pytest.importorskip("stable_baselines3")
    from agents.learned import LearnedAgent
    from trash_env.trash.vec_env import TrashVecEnv

    shipped = LearnedAgent.load(ROOT / "agents" / "policies" / "standard_2p_maskable_ppo.zip", name="snapshot")

    class Checked:
        batchable, name = True, "checked"
        asked = 0

        def check_config(self, config: Any) -> None:
            shipped.check_config(config)

        def act_batch(self, observations: np.ndarray, masks: np.ndarray, rngs: Any) -> np.ndarray:
            actions = shipped.act_batch(observations, masks, rngs)
            assert masks.sum(axis=1).min() >= 2, "a snapshot was asked a forced move (R13)"
            assert (masks[np.arange(len(actions)), actions] == 1).all()
            Checked.asked += len(actions)
            return actions

    env = TrashVecEnv(32, opponents=[Checked(), "greedy"], seed=1)
    env.reset()
    rng = np.random.default_rng(0)
    rewards = []
    for _ in range(400):
        masks = env.action_masks()
        assert (masks.sum(axis=1) >= 1).all()
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
        _, reward, dones, infos = env.step(actions)
        rewards += reward[dones].tolist()
        assert all("terminal_observation" in infos[i] for i in np.flatnonzero(dones))
    assert Checked.asked > 100 and rewards and set(rewards) <= {-1.0, 0.0, 1.0}
    with pytest.raises(ValueError, match="num_players"):
        TrashVecEnv(4, opponents=[Checked()], num_players=3)
    with pytest.raises(ValueError, match="act_batch"):
        TrashVecEnv(4, opponents=[object()])


@pytest.mark.slow  # two runs and a re-evaluation, six processes loading torch: about 30 s each
@pytest.mark.parametrize(
    ("task", "algorithm"),
    [
        ("trash-standard-2p", "maskable_ppo"),
        ("trash-standard-2p-selfplay", "maskable_ppo"),
        ("trash-pagat-2p", "maskable_ppo_selfplay"),
        ("trash-standard-2p", "ppo"),
        ("hyn-2p", "a2c"),
        ("hyn-2p", "dqn"),
        ("trash-standard-2p", "qrdqn"),
    ],
)
def test_a_run_repeated_gives_the_same_result_file(tmp_path: Path, task: str, algorithm: str) -> None:
    """Seeded end to end, for every algorithm of the reference leaderboard: the same (task, algorithm,
    seed) at a tiny budget twice writes the same result file, apart from its timing (``wall_seconds``,
    each curve point's ``train_seconds``), the hash of its kept policy (the file holds its training's
    times: SB3's start time, the seconds trained) and its final scores, measured on test deals drawn
    afresh for each run: the second run's kept policy, evaluated on the first run's test deals, scores
    exactly the first's final."""
    from agents.bench.runner import reevaluate, run_one
    from agents.bench.store import result_location

    first = run_one(task, algorithm, 3, str(tmp_path / "one"), fraction=0.01)
    second = run_one(task, algorithm, 3, str(tmp_path / "two"), fraction=0.01)
    assert first["final"]["seed"] != second["final"]["seed"]
    path = result_location(tmp_path / "two", get_task(task), algorithm, 3, 0.01)
    again = reevaluate(path, seed=first["final"]["seed"])
    assert again["final"] == first["final"] and again["heldout"] == first["heldout"]
    for key in ("wall_seconds", "final", "heldout", "reference", "artifact_sha256"):
        first.pop(key), second.pop(key)
    for point in first["curve"] + second["curve"]:  # the training's wall time to each point: timing too
        assert point.pop("train_seconds") >= 0
    assert first == second
    assert len(first["curve"]) == len(get_task(task).points(0.01))


@pytest.mark.slow
def test_the_numpy_reinforce_example_runs_through_the_interface(tmp_path: Path) -> None:
    """``examples/reinforce.py`` (the README's learner that is not from SB3) trains on a Trash task and on
    Help Your Neighbor at a tiny budget; its policy is evaluated in batches and beats nothing by magic:
    the untrained policy's first point is a real evaluation (normalised score well below 1 at step 0)."""
    from agents.bench.runner import run_one

    sys.path.insert(0, str(ROOT))
    try:
        for task in ("trash-standard-2p", "hyn-2p"):
            result = run_one(task, "examples.reinforce:Reinforce", 0, str(tmp_path), fraction=0.02)
            assert result["algorithm"] == "reinforce_numpy"  # its own name
            assert [p["timesteps"] for p in result["curve"]] == get_task(task).points(0.02)
            assert result["curve"][0]["normalized"] < 0.9
    finally:
        sys.path.remove(str(ROOT))


def test_tasks_are_chosen_by_name_or_group_in_registry_order() -> None:
    names = list(TASKS)
    assert [t.name for t in select_tasks(["all"])] == names
    assert [t.name for t in select_tasks(["hyn-2p", "trash-standard-2p", "hyn-2p"])] == ["trash-standard-2p", "hyn-2p"]
    selfplay = [t.name for t in select_tasks(["self-play"])]
    assert selfplay and all(TASKS[n].self_play for n in selfplay)
    others = [t.name for t in select_tasks(["baseline-opponents"])]
    assert sorted(selfplay + others) == sorted(names)
    with pytest.raises(ValueError, match="unknown task 'nosuch'"):
        select_tasks(["nosuch"])
    headline, sanity = select_tasks(["headline"]), select_tasks(["sanity"])
    assert headline and all(task.tier == "headline" for task in headline)
    assert sorted(task.name for task in headline + sanity) == sorted(names)


def test_each_task_is_in_the_tier_its_v2_figures_put_it_in() -> None:
    """A task is *sanity* when its best v2 learner reached :data:`SATURATED` of the way to the reference
    (or, scored by exact exploitability, every multi-agent learner reached 0), *headline* otherwise:
    the figures docs/suite.md prints beside each tier; a plug-in task with no tier of the two is refused."""
    import dataclasses

    from helpers import load_script

    from agents.bench.tasks import SATURATED, register_task

    for name, entry in load_script("scripts/readme_tables").tier_figures().items():
        best, exploit = entry.get("best"), entry.get("exploitability")
        saturated = (best is not None and best["mean"] >= SATURATED) or (exploit is not None and exploit["worst"] == 0)
        assert best is not None or exploit is not None, name
        assert TASKS[name].tier == ("sanity" if saturated else "headline"), (name, entry)
    with pytest.raises(ValueError, match="tier must be one of"):
        register_task(dataclasses.replace(TASKS["hyn-2p"], name="hyn-2p-elsewhere", tier="top"))


def test_tasks_train_against_the_default_baselines_of_their_game() -> None:
    """The default baselines are each game's (its descriptor's ``default_opponent``, ``scored_baselines``,
    ``heldout``): every task that trains against baselines trains against its game's default baselines
    (``random`` and the default opponent), is evaluated against its held-out ones, and every name is a
    baseline of its game in the registry."""
    from agents.registry import baselines, default_baselines
    from trash_env.games import GAMES

    assert {task.game for task in TASKS.values()} == set(GAMES)
    for task in TASKS.values():
        assert task.self_play or task.opponents == default_baselines(task.game), task.name
        assert task.heldout == GAMES[task.game].heldout, task.name
    for name, game in GAMES.items():
        named = {game.default_opponent, *game.scored_baselines, *game.heldout, *default_baselines(name)}
        assert named <= set(baselines(name)), name
        assert {"random", game.default_opponent} <= set(game.scored_baselines), name


def test_worker_processes_keep_to_one_thread() -> None:
    """Runs (and evaluation workers) go side by side, one per core: in a worker, torch, OpenMP and Numba
    each use one thread, and the batched engine steps its games serially (threads spinning in every
    worker made parallel sweeps several times slower)."""
    code = (
        "import numba, torch\n"
        "from agents.processes import one_thread_per_process\n"
        "one_thread_per_process()\n"
        "from trash_env.trash.batched import TrashBatch\n"
        "from trash_env.trash.config import make_config\n"
        "batch = TrashBatch(make_config(), 1024, seed=0, opponents=['random'])\n"
        "print(torch.get_num_threads(), numba.get_num_threads(), batch.parallel)\n"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split() == ["1", "1", "False"]


@pytest.mark.slow
def test_each_finished_run_is_one_line_when_piped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``trash-bench run`` prints each finished run on one line, whatever the width (piped output has
    none: rich used to fold it at 80 columns, ``score -1.0000 [-1.0000,`` then the rest)."""
    from agents.commands.bench import main

    sys.path.insert(0, str(Path(__file__).parent))
    try:
        args = ["run", "--algorithm", "test_suite:FirstLegal", "--tasks", "hyn-4p", "--seeds", "1"]
        assert main([*args, "--results", str(tmp_path), "--budget-fraction", "0.005"]) == 0
    finally:
        sys.path.remove(str(Path(__file__).parent))
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2, lines
    one_run = r"\[1/1\] hyn-4p seed 0: normalised [+-]\d\.\d{3} \(score [+-]\d\.\d{4} \[.*\]\), \d+ s"
    assert re.fullmatch(one_run, lines[1])


@pytest.mark.parametrize("fraction", [0.01, 0.1, 1.0])
def test_every_builtin_algorithm_fits_its_budget(fraction: float) -> None:
    """At every budget fraction a built-in algorithm still learns: its rollout, its random steps
    before learning, its target-network period and its self-play snapshots each fit at least
    UPDATES_AT_LEAST times in the budget; at the full budget the settings are the published ones."""
    from agents.bench.algorithms import ON_POLICY, SELF_PLAY_SETTINGS, SETTINGS, UPDATES_AT_LEAST, fit_to_budget

    for task in TASKS.values():
        budget = task.scaled_budget(fraction)
        for name, settings in SETTINGS.items():
            fitted = fit_to_budget({**settings, **SELF_PLAY_SETTINGS}, budget)
            if name in ON_POLICY:
                rollout = fitted["n_envs"] * fitted["n_steps"]
                assert UPDATES_AT_LEAST * rollout <= budget, (task.name, name)
                assert 2 <= fitted.get("batch_size", 2) <= rollout
            else:
                assert UPDATES_AT_LEAST * fitted["learning_starts"] <= budget, (task.name, name)
                assert UPDATES_AT_LEAST * fitted["target_update_interval"] <= budget
            assert UPDATES_AT_LEAST * fitted["snapshot_every"] <= budget
            if fraction == 1.0:
                assert fitted == {**settings, **SELF_PLAY_SETTINGS}, (task.name, name)
