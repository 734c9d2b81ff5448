"""Protocol v2 of the benchmark (issue 24): what a run may see, what it is held to, and what it keeps.

- the final score is measured after training, in another process, on test deals from a seed drawn
  then: a plugin that picks its policy by evaluating candidates on every seed it can find (the
  runner's own ``evaluate``, ``run_pairings``, the seeds in its job file) is scored on other deals;
- a run that steps past its budget and slack, reports a checkpoint at timesteps it never reached,
  or trains on environments of its own (nothing counted) is written with ``valid: false`` and why;
- a run's identity includes its budget fraction (another folder): a sweep skips exactly the runs
  finished with their identity, and replaces the file of another task version;
- the policy is kept beside its result, weights-only, and ``trash-bench evaluate`` on the result file
  reproduces its final score exactly; every score's anchors are measured on its own deals; the held-out
  opponents are scored; provenance is recorded;
- a fraction below the task's smallest is refused in one line; a child's failure is one line; Ctrl-C
  leaves no training process behind.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.bench import results as schema
from agents.bench import store
from agents.bench.runner import draw_test_seed, measure_anchors, plan, run_one, slack
from agents.bench.store import result_location, scan
from agents.bench.tasks import MIN_FINAL_DEALS, TASKS, TEST_SEEDS, VALIDATION_SEED, get_task, minimum_budget
from agents.commands.bench import main

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
TASK, FRACTION = "hyn-4p", 0.005
pytestmark = pytest.mark.usefixtures("one_torch_thread")


# --------------------------------------------------------------------------
# Plugins


def zero_policy(context: Any, env: Any) -> Any:
    """The first legal move, as a savable policy (a LinearAgent of zeros: ties go to the lowest action)."""
    from agents.linear import LinearAgent

    size, actions = env.observation_space.shape[0], env.action_space.n
    return LinearAgent(np.zeros((size, actions)), np.zeros(actions), context.task.game, config=context.config)


def step_through(context: Any, env: Any, policy: Any, until: int, checkpoint: Any = None) -> int:
    """Step ``env`` with ``policy`` to ``until`` steps, calling ``checkpoint`` as each of the context's
    points is reached (at the steps taken); returns the steps taken."""
    observation, info = env.reset(seed=context.seed)
    pending = sorted(context.eval_points)
    steps = 0
    while True:
        while checkpoint and pending and steps >= pending[0]:
            pending.pop(0)
            checkpoint(steps, policy)
        if steps >= until:
            return steps
        action = int(policy.act_batch(observation[None], info["action_mask"][None], [None])[0])
        observation, _, terminated, truncated, info = env.step(action)
        steps += 1
        if terminated or truncated:
            observation, info = env.reset()


class Cheat:
    """Picks, among random linear policies, the best on every seed it can find: the validation seed,
    seeds near the training seed, seeds at the bottom of the test range, and every integer in its own
    job file, with the runner's ``evaluate`` and with ``run_pairings``; writes the seeds it used to
    ``$CHEAT_LOG``. Steps its budget honestly (its run is valid)."""

    name = "cheat"

    def train(self, context: Any, checkpoint: Any) -> Any:
        from agents.bench.runner import evaluate
        from agents.evaluation.duplicate import run_pairings
        from agents.linear import LinearAgent

        task, env = context.task, context.single_agent_env()
        size, actions = env.observation_space.shape[0], env.action_space.n
        rng = np.random.default_rng(context.seed)
        candidates = [
            LinearAgent(rng.normal(size=(size, actions)), rng.normal(size=actions), task.game, config=context.config)
            for _ in range(3)
        ]
        job = json.loads(Path(sys.argv[-1]).read_text())  # what the runner told this process
        found = [value for value in job.values() if isinstance(value, int) and not isinstance(value, bool)]
        low = TEST_SEEDS[0]
        guesses = sorted({VALIDATION_SEED, 0, context.seed, context.seed + 1, low, low + 1, *found} - {None})
        anchors = {"random": -0.43, "reference": 0.0}
        scores = [0.0] * len(candidates)
        for seed in guesses:
            for i, candidate in enumerate(candidates):
                scores[i] += evaluate(task, candidate, 10, seed=seed, anchors=anchors)["normalized"]
                run_pairings(task.config(), [("policy", task.reference)], 5, seed=seed, prebuilt={"policy": candidate})
        for i, candidate in enumerate(candidates):
            scores[i] += context.validate(candidate)["normalized"]  # allowed: model selection on validation deals
        best = candidates[int(np.argmax(scores))]
        Path(os.environ["CHEAT_LOG"]).write_text(json.dumps({"seeds": guesses, "best": float(max(scores))}))
        step_through(context, env, best, context.budget, checkpoint)
        return best


class OverBudget:
    """Steps 300 timesteps past its budget (the slack of a single env is 256): invalid."""

    name = "over_budget"

    def train(self, context: Any, checkpoint: Any) -> Any:
        env = context.single_agent_env()
        policy = zero_policy(context, env)
        step_through(context, env, policy, context.budget + 300, checkpoint)
        return policy


class FarCheckpoint:
    """Trains its budget, then reports a checkpoint at 10**9 timesteps: invalid."""

    name = "far_checkpoint"

    def train(self, context: Any, checkpoint: Any) -> Any:
        env = context.single_agent_env()
        policy = zero_policy(context, env)
        step_through(context, env, policy, context.budget, checkpoint)
        checkpoint(10**9, policy)
        return policy


class OwnEnv:
    """Trains on an environment it builds itself, outside the context: nothing counted, invalid."""

    name = "own_env"

    def train(self, context: Any, checkpoint: Any) -> Any:
        from agents.registry import make_agent
        from trash_env import NeighborSingleAgentEnv

        task = context.task
        opponents = [make_agent(name, task.game) for name in task.opponents]
        env = NeighborSingleAgentEnv(task.preset, opponents=opponents, **task.rules)
        policy = zero_policy(context, env)
        step_through(context, env, policy, context.budget, checkpoint)
        return policy


class Crash:
    """Fails with an error that is not a ValueError."""

    name = "crash"

    def train(self, context: Any, checkpoint: Any) -> Any:
        print("some output of the plugin")
        raise RuntimeError("boom")


class Sleeper:
    """Writes its process id to ``$SLEEPER_PID`` and sleeps: a training process to interrupt."""

    name = "sleeper"

    def train(self, context: Any, checkpoint: Any) -> Any:
        Path(os.environ["SLEEPER_PID"]).write_text(str(os.getpid()))
        time.sleep(600)


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plugins above importable as ``test_protocol:NAME`` (the runner hands its import path to its
    training process)."""
    monkeypatch.syspath_prepend(str(HERE))


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """One finished run of ``test_suite:FirstLegal`` (the first legal move, stepped exactly to its
    budget), its result folder and its result."""
    folder = tmp_path_factory.mktemp("finished")
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(HERE))
        result = run_one(TASK, "test_suite:FirstLegal", 0, str(folder), fraction=FRACTION)
    return folder, result


def path_of(folder: Path, result: dict[str, Any]) -> Path:
    return result_location(folder, result["task"], result["algorithm"], result["seed"], result["budget_fraction"])


# --------------------------------------------------------------------------
# The held-out test


@pytest.mark.slow
def test_a_cheating_plugin_is_scored_on_deals_it_could_not_see(
    tmp_path: Path, plugins: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cheat evaluates its candidates on every seed it can find, with the runner's own tools; its
    final is measured on test deals whose seed was drawn after its training ended: none of its seeds,
    not the validation seed, in the test range. Its run is valid (it stepped its budget)."""
    log = tmp_path / "cheat.json"
    monkeypatch.setenv("CHEAT_LOG", str(log))
    result = run_one(TASK, "test_protocol:Cheat", 0, str(tmp_path / "results"), fraction=FRACTION)
    used = json.loads(log.read_text())["seeds"]
    final_seed = result["final"]["seed"]
    assert VALIDATION_SEED in used and TEST_SEEDS[0] in used and len(used) >= 6
    assert final_seed not in used and final_seed != VALIDATION_SEED
    assert TEST_SEEDS[0] <= final_seed < TEST_SEEDS[1]
    assert result["valid"] is True and result["counted_steps"] == result["budget"]
    assert result["validation"]["seed"] == VALIDATION_SEED != final_seed


def test_test_seeds_are_fresh_and_never_a_training_or_validation_seed() -> None:
    seeds = {draw_test_seed() for _ in range(100)}
    assert len(seeds) == 100
    assert all(TEST_SEEDS[0] <= seed < TEST_SEEDS[1] for seed in seeds)
    assert TEST_SEEDS[0] > VALIDATION_SEED and TEST_SEEDS[1] <= schema.MAX_INTEGER  # exact in any JSON reader


PROBE = """
import numpy as np
from agents.linear import LinearAgent


class Probe:
    name = "probe"

    def train(self, context, checkpoint):
        env = context.single_agent_env()
        size, actions = env.observation_space.shape[0], env.action_space.n
        policy = LinearAgent(np.zeros((size, actions)), np.zeros(actions), context.task.game)
        observation, info = env.reset(seed=context.seed)
        for steps in range(context.budget + 1):
            if steps in context.eval_points:
                checkpoint(steps, policy)
            if steps < context.budget:
                _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
                if terminated or truncated:
                    observation, info = env.reset()
        return policy
"""


@pytest.mark.slow
def test_a_plugin_is_imported_from_the_working_directory_by_the_child_processes_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``module:attribute`` is found in the working directory, by the processes that train and name it;
    the process that runs the sweep never imports it; its results are filed under its ``name``."""
    (tmp_path / "probe_plugin.py").write_text(PROBE)
    monkeypatch.chdir(tmp_path)
    result = run_one(TASK, "probe_plugin:Probe", 0, "results", fraction=FRACTION)
    assert "probe_plugin" not in sys.modules
    assert result["algorithm"] == "probe" and result["algorithm_spec"] == "probe_plugin:Probe"
    assert (tmp_path / "results" / TASK / "probe" / f"fraction_{FRACTION!r}" / "seed_0.json").is_file()
    assert result["valid"] and [point["timesteps"] for point in result["curve"]] == get_task(TASK).points(FRACTION)


# --------------------------------------------------------------------------
# Counted budgets


@pytest.mark.slow
@pytest.mark.parametrize(
    ("plugin", "reason"),
    [
        ("OverBudget", "counted 1,050 timesteps, over the budget of 750 and its slack of 256"),
        ("FarCheckpoint", "a checkpoint was reported at 1,000,000,000 timesteps when 750 had been counted"),
        ("OwnEnv", "no timestep was counted: the algorithm did not step the context's environments"),
    ],
)
def test_a_run_outside_the_protocol_is_written_invalid_with_its_reason(
    tmp_path: Path, plugins: None, plugin: str, reason: str
) -> None:
    """The run finishes and its file is written, good to every reader, with ``valid: false`` and the
    reason; the sweep's line says so; a reader keeps it apart (``is_valid``)."""
    result = run_one(TASK, f"test_protocol:{plugin}", 0, str(tmp_path), fraction=FRACTION)
    assert result["valid"] is False and any(reason in line for line in result["invalid_reasons"]), result
    path = path_of(tmp_path, result)
    stored = store.read(path)
    assert stored.is_valid is False and stored.invalid_reasons == tuple(result["invalid_reasons"])
    assert list(scan(tmp_path)[0]) == [path]


def test_the_slack_is_one_rollout_of_the_widest_env_or_a_twentieth() -> None:
    assert slack(100_000, 8) == 5_000 and slack(1_000, 8) == 2_048 and slack(750, 1) == 256


# --------------------------------------------------------------------------
# Identity and resuming


def test_a_resumed_sweep_skips_only_runs_of_exactly_their_identity(
    finished: tuple[Path, dict[str, Any]], tmp_path: Path, plugins: None
) -> None:
    """A run at fraction 0.005 is finished for a sweep at 0.005 only: at the full budget or at 0.01 the
    same (task, algorithm, seed) is to do, at another path; a file of another task version at the
    run's own path is no reason to refuse, and is replaced (said so); other fractions' files are left."""
    folder, result = finished
    task = get_task(TASK)
    source = path_of(folder, result)
    results = tmp_path / "results"
    small = result_location(results, task, "first_legal", 0, FRACTION)
    small.parent.mkdir(parents=True)
    small.write_text(source.read_text())
    assert small == results / TASK / "first_legal" / "fraction_0.005" / "seed_0.json"
    assert (
        result_location(results, task, "first_legal", 0, 0.01)
        == results / TASK / "first_legal" / "fraction_0.01" / "seed_0.json"
    )
    assert result_location(results, task, "first_legal", 0, 1.0) == results / TASK / "first_legal" / "seed_0.json"
    same = plan([task], "test_suite:FirstLegal", [0, 1], results, fraction=FRACTION)
    assert [seed for _, seed in same.done] == [0] and [seed for _, seed in same.todo] == [1] and not same.replaced
    for fraction in (1.0, 0.01):
        other = plan([task], "test_suite:FirstLegal", [0], results, fraction=fraction)
        assert [seed for _, seed in other.todo] == [0] and not other.done and not other.replaced
    older = copy.deepcopy(json.loads(source.read_text()))
    older["task_version"] = 1  # the same place, another task version: another run
    small.write_text(json.dumps(older))
    again = plan([task], "test_suite:FirstLegal", [0], results, fraction=FRACTION)
    assert [seed for _, seed in again.todo] == [0] and not again.done
    assert len(again.replaced) == 1 and "v1" in again.replaced[0] and str(small) in again.replaced[0]


# --------------------------------------------------------------------------
# Artifacts, re-evaluation, anchors, held-out opponents, provenance


def test_the_policy_is_kept_beside_its_result_and_loads_weights_only(finished: tuple[Path, dict[str, Any]]) -> None:
    from agents.bench.artifacts import load_artifact
    from agents.linear import LinearAgent

    folder, result = finished
    path = path_of(folder, result)
    artifact = path.with_name(result["artifact"])
    assert result["artifact"] == "seed_0.policy.npz" and artifact.is_file()
    with zipfile.ZipFile(artifact) as archive:
        assert all(name.endswith(".npy") for name in archive.namelist())
    with np.load(artifact, allow_pickle=False) as arrays:  # plain arrays: nothing to unpickle
        assert all(arrays[name].dtype != object for name in arrays.files)
    agent = load_artifact(artifact, get_task(TASK))
    assert isinstance(agent, LinearAgent) and not np.any(agent.weights[0])


def test_evaluate_on_a_result_file_reproduces_its_final_exactly(
    finished: tuple[Path, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    """``trash-bench evaluate RESULT`` loads the kept policy and plays the recorded test deals: the very
    final and held-out scores stored; on the policy file with ``--task`` and ``--seed`` too; another
    seed gives another evaluation."""
    folder, result = finished
    path = path_of(folder, result)
    capsys.readouterr()
    assert main(["evaluate", str(path), "--json"]) == 0
    evaluated = json.loads(capsys.readouterr().out)
    assert evaluated["final"] == result["final"] and evaluated["heldout"] == result["heldout"]
    assert evaluated["stored"] == {"final": result["final"], "heldout": result["heldout"]}
    assert evaluated["reproduced"] == "exactly"
    assert main(["evaluate", str(path)]) == 0
    assert "reproduced exactly" in capsys.readouterr().out
    policy = path.with_name(result["artifact"])
    seed, deals = str(result["final"]["seed"]), str(result["final"]["deals"])
    assert main(["evaluate", str(policy), "--task", TASK, "--seed", seed, "--deals", deals, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["final"] == result["final"]
    assert main(["evaluate", str(path), "--seed", "5", "--json"]) == 0
    other = json.loads(capsys.readouterr().out)
    assert other["final"]["seed"] == 5 and other["stored"] is None and other["reproduced"] is None


def test_a_re_evaluation_reproduces_exactly_or_within_the_exact_solvers_tolerance_or_not_at_all() -> None:
    """Sampled scores must be equal bit for bit; the exact solver's figures (``exact``,
    ``exploitability``), which it computes to a tolerance, may move in their last digits (a summation
    order changed since the run): within the tolerance they reproduce, beyond it they do not."""
    from agents.bench.exact_scores import EXACT_TOLERANCE, reproduced

    stored = {
        "final": {"score": -0.5, "normalized": 0.4, "exact": {"score": -0.4, "normalized": 0.6}, "seed": 3},
        "heldout": [{"opponent": "roller", "score": -0.2, "exploitability": {"per_deal": 0.18}}],
    }

    def changed(path: tuple[Any, ...], by: float) -> dict[str, Any]:
        again = copy.deepcopy(stored)
        place = again
        for key in path[:-1]:
            place = place[key]
        place[path[-1]] += by
        return again

    assert reproduced(copy.deepcopy(stored), stored) == "exactly"
    assert reproduced(changed(("final", "exact", "score"), 6e-16), stored) == "within tolerance"
    assert reproduced(changed(("heldout", 0, "exploitability", "per_deal"), EXACT_TOLERANCE / 2), stored) == (
        "within tolerance"
    )
    assert reproduced(changed(("final", "exact", "score"), 10 * EXACT_TOLERANCE), stored) is None
    assert reproduced(changed(("final", "score"), 6e-16), stored) is None  # a sampled score: bit for bit
    assert reproduced(changed(("heldout", 0, "score"), 1e-3), stored) is None
    assert reproduced(changed(("final", "seed"), 1), stored) is None
    fewer = copy.deepcopy(stored)
    del fewer["final"]["exact"]
    assert reproduced(fewer, stored) is None and reproduced(stored, fewer) is None
    assert reproduced({**stored, "heldout": []}, stored) is None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["evaluate", "nowhere/seed_0.json"], "does not exist"),
        (["evaluate", "{policy}"], "give --task"),
        (["evaluate", "{policy}", "--task", "trash-standard-2p"], "does not fit task trash-standard-2p"),
        (["evaluate", "{result}", "--task", "hyn-2p"], "is a run of hyn-4p"),
        (["evaluate", "{result}", "--deals", "1"], "--deals must be at least 2"),
        (["evaluate", "{v1}"], "a format-1 result keeps no policy"),
        (["evaluate", "{bad}"], "final is missing"),
    ],
)
def test_evaluate_refuses_bad_input_in_one_line(
    finished: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder, result = finished
    path = path_of(folder, result)
    bad = tmp_path / TASK / "first_legal" / f"fraction_{FRACTION!r}" / "seed_0.json"
    bad.parent.mkdir(parents=True)
    bad.write_text(json.dumps({key: value for key, value in result.items() if key != "final"}))
    v1 = next((ROOT / "docs" / "results-v1").rglob("seed_*.json"))
    names = {"policy": str(path.with_name(result["artifact"])), "result": str(path), "v1": str(v1), "bad": str(bad)}
    capsys.readouterr()
    assert main([word.format(**names) for word in argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err


def test_every_score_is_normalised_with_anchors_measured_on_its_own_deals(
    finished: tuple[Path, dict[str, Any]],
) -> None:
    """The curve's anchors are random's and the reference's scores on the curve's validation deals;
    the final's and each held-out opponent's on the final's test deals: measured again here, the same."""
    _, result = finished
    task = get_task(TASK)
    validation, final = result["validation"], result["final"]
    assert validation["deals"] == task.scaled_deals(FRACTION)[0] and final["deals"] == MIN_FINAL_DEALS
    assert validation["anchors"] == measure_anchors(task, task.reference, validation["deals"], VALIDATION_SEED)
    assert final["anchors"] == measure_anchors(task, task.reference, final["deals"], final["seed"])
    assert [entry["opponent"] for entry in result["heldout"]] == list(task.heldout) == ["roller"]
    for entry in result["heldout"]:
        assert entry["deals"] == final["deals"]
        assert entry["anchors"] == measure_anchors(task, entry["opponent"], final["deals"], final["seed"])
        anchors = entry["anchors"]
        assert entry["normalized"] == pytest.approx(
            (entry["score"] - anchors["random"]) / (anchors["reference"] - anchors["random"])
        )


def test_held_out_opponents_are_never_training_opponents_nor_the_reference() -> None:
    for task in TASKS.values():
        assert task.heldout and task.version == 3
        assert not set(task.heldout) & set(task.opponents) and task.reference not in task.heldout, task.name


def test_a_result_records_its_provenance_and_what_was_run(finished: tuple[Path, dict[str, Any]]) -> None:
    _, result = finished
    provenance = result["provenance"]
    assert set(provenance) == {"package_version", "git", "cpu", "cores", "python", "versions", "torch_threads"}
    assert provenance["git"] is None or len(provenance["git"]["commit"]) == 40
    assert provenance["python"].count(".") == 2 and provenance["cpu"] and provenance["cores"] >= 1
    assert {"numpy", "numba", "torch", "stable-baselines3", "sb3-contrib"} <= set(provenance["versions"])
    assert provenance["torch_threads"] == 1  # the run's --threads
    assert result["protocol"] == 2 and result["algorithm_spec"] == "test_suite:FirstLegal"
    assert result["algorithm"] == "first_legal"  # the plugin's own name
    assert result["counted_steps"] == result["budget"] == 750 and result["valid"] is True


# --------------------------------------------------------------------------
# Refusals, failures, interruption


def test_a_fraction_below_the_tasks_smallest_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = get_task(TASK)
    assert task.min_fraction < FRACTION and get_task("trash-standard-2p").min_fraction <= 0.01
    for each in TASKS.values():  # the smallest fraction leaves at least the minimum budget, the next one less
        assert each.scaled_budget(each.min_fraction) >= minimum_budget() > round(each.budget * 0.99 * each.min_fraction)
        each.check_fraction(each.min_fraction)
    args = ["run", "--algorithm", "maskable_ppo", "--tasks", TASK, "--seeds", "1", "--results", str(tmp_path)]
    assert main([*args, "--budget-fraction", "0.001"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--budget-fraction 0.001 is below hyn-4p's smallest, 0.00342" in err[0], err
    with pytest.raises(ValueError, match="is below hyn-4p's smallest"):
        run_one(TASK, "maskable_ppo", 0, str(tmp_path), fraction=0.001)
    assert list(tmp_path.iterdir()) == []


def test_at_the_smallest_fraction_every_builtin_still_learns_between_distinct_points() -> None:
    """The rule behind ``min_fraction``: there, every built-in on-policy algorithm's fitted rollout keeps
    MIN_ROLLOUT_STEPS steps per env and fits UPDATES_AT_LEAST times, the off-policy ones start learning
    within a quarter of the budget, and the evaluation points are distinct, a rollout or more apart."""
    from agents.bench.algorithms import ON_POLICY, SELF_PLAY_SETTINGS, SETTINGS, UPDATES_AT_LEAST, fit_to_budget
    from agents.bench.tasks import MIN_ROLLOUT_STEPS

    for task in TASKS.values():
        budget, points = task.scaled_budget(task.min_fraction), task.points(task.min_fraction)
        assert len(points) == len(task.eval_points), task.name
        for name, settings in SETTINGS.items():
            fitted = fit_to_budget({**settings, **SELF_PLAY_SETTINGS}, budget)
            if name in ON_POLICY:
                rollout = fitted["n_envs"] * fitted["n_steps"]
                assert fitted["n_steps"] >= MIN_ROLLOUT_STEPS, (task.name, name)
                assert UPDATES_AT_LEAST * rollout <= budget, (task.name, name)
                assert min(b - a for a, b in itertools.pairwise(points)) >= rollout
            else:
                assert UPDATES_AT_LEAST * fitted["learning_starts"] <= budget


def test_a_crashing_plugin_is_one_line_naming_the_run_and_its_error(tmp_path: Path, plugins: None) -> None:
    """Not a nested traceback: the run, what failed and the child's last line; its whole output (the
    traceback) is kept in a log named there; no result file."""
    with pytest.raises(ValueError) as failed:
        run_one(TASK, "test_protocol:Crash", 0, str(tmp_path / "results"), fraction=FRACTION)
    message = str(failed.value)
    assert message.startswith(f"{TASK} crash seed 0 at fraction {FRACTION}: training failed: RuntimeError: boom")
    assert "\n" not in message
    kept = Path(message.rsplit("(its output: ", 1)[1].rstrip(")"))
    try:
        text = kept.read_text()
        assert "Traceback" in text and "some output of the plugin" in text
    finally:
        kept.unlink()
    assert not (tmp_path / "results").exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")
def test_ctrl_c_stops_the_training_process_too(tmp_path: Path) -> None:
    """Ctrl-C at ``trash-bench run`` (SIGINT to the command) ends the run's training process, which is
    in a process group of its own, at once: nothing is left running and nothing written."""
    pid_file = tmp_path / "pid"
    results = tmp_path / "results"
    args = ["run", "--algorithm", "test_protocol:Sleeper", "--tasks", TASK, "--seeds", "1", "--results", str(results)]
    process = subprocess.Popen(
        [sys.executable, "-m", "agents.commands.bench", *args, "--budget-fraction", str(FRACTION)],
        cwd=HERE,
        env={**os.environ, "SLEEPER_PID": str(pid_file), "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while not pid_file.exists() or not pid_file.read_text():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.1)
    child = int(pid_file.read_text())
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    deadline = time.monotonic() + 10
    while Path(f"/proc/{child}").exists() and "Z" not in Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1][:3]:
        assert time.monotonic() < deadline, "the training process outlived the sweep"
        time.sleep(0.1)
    assert not results.exists() or not list(results.rglob("seed_*.json"))


def test_validation_anchors_make_a_scale_at_every_allowed_fraction() -> None:
    """On every number of validation deals a fraction can give (10 to 500), random scores below the
    reference agent on every task: no curve's normalisation divides by zero or flips."""
    from agents.evaluation.duplicate import run_pairings
    from agents.evaluation.stats import deal_scores

    for task in TASKS.values():
        deals = task.eval_deals
        played = run_pairings(task.config(), [("random", task.reference)], deals, seed=task.validation_seed)
        per_deal = deal_scores(played)
        pair = ("random", task.reference)
        differences = np.array(
            [per_deal[(pair, d)]["random"] - per_deal[(pair, d)][task.reference] for d in range(deals)]
        )
        prefix = np.cumsum(differences) / np.arange(1, deals + 1)
        assert prefix[task.scaled_deals(task.min_fraction)[0] - 1 :].max() < 0, task.name


@pytest.mark.slow
def test_a_builtin_run_is_reproduced_exactly_from_its_kept_policy(tmp_path: Path) -> None:
    """MaskablePPO's kept policy file (SB3, loaded weights-only in a fresh process) re-evaluated by
    ``trash-bench evaluate`` gives the stored final and held-out scores exactly."""
    result = run_one("trash-standard-2p", "maskable_ppo", 0, str(tmp_path), fraction=0.01)
    path = path_of(tmp_path, result)
    assert result["artifact"] == "seed_0.policy.zip" and path.with_name(result["artifact"]).is_file()
    assert result["valid"] and result["budget"] <= result["counted_steps"] <= result["budget"] + slack(1000, 8)
    from helpers.reevaluate import evaluate_in_fresh_process  # here: a runner's child imports this module

    evaluated = evaluate_in_fresh_process(path)
    assert evaluated["final"] == result["final"] and evaluated["heldout"] == result["heldout"]
    assert evaluated["reproduced"] == "exactly"


# --------------------------------------------------------------------------
# Runs that cannot finish (issue 49): a training process that never returns, a policy that plays illegally


def test_a_training_process_over_its_time_limit_is_stopped_and_its_run_fails(
    tmp_path: Path, plugins: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The limit comes from the budget (``child_timeouts``; here made seconds); past it the child's whole
    process group is killed and the run fails in one line saying so, with nothing written."""
    from agents.bench import runner

    monkeypatch.setattr(runner, "CHILD_GRACE", 3.0)
    monkeypatch.setattr(runner, "SLOWEST_RATE", 10**12)
    pid_file = tmp_path / "pid"
    monkeypatch.setenv("SLEEPER_PID", str(pid_file))
    start = time.perf_counter()
    limit = r"sleeper seed 0 at fraction 0.005: training took longer than its limit of 3 s"
    with pytest.raises(ValueError, match=limit):
        run_one(TASK, "test_protocol:Sleeper", 0, str(tmp_path / "results"), fraction=FRACTION)
    assert time.perf_counter() - start < 60
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # gone, not left sleeping
    assert not (tmp_path / "results").exists() or not list((tmp_path / "results").rglob("seed_*.json"))


def test_the_limits_grow_with_the_budget_and_the_deals() -> None:
    from agents.bench.runner import CHILD_GRACE, child_timeouts

    small, large = child_timeouts(10_000, 100), child_timeouts(1_000_000, 10_000)
    assert CHILD_GRACE == small["describe"] < small["train"] < large["train"]
    assert small["evaluate"] < large["evaluate"]


class IllegalLinear:
    """Keeps a :class:`agents.linear.LinearAgent` subclass that picks action 0 wherever it stands, legal or
    not (in Help Your Neighbor: rolling the dice after a 7, where only an uncover is legal)."""

    name = "illegal_linear"

    def train(self, context: Any, checkpoint: Any) -> Any:
        from agents.linear import LinearAgent

        class AlwaysZero(LinearAgent):
            def act_batch(self, observations: np.ndarray, masks: np.ndarray, rngs: Any) -> np.ndarray:
                return np.zeros(len(masks), np.int64)

        env = context.single_agent_env()
        env.reset(seed=context.seed)
        size, actions = env.observation_space.shape[0], env.action_space.n
        policy = AlwaysZero(np.zeros((size, actions)), np.zeros(actions), context.task.game, config=context.config)
        checkpoint(0, policy)
        return policy


def test_a_policy_that_plays_an_illegal_action_fails_its_run_and_nothing_is_written(
    tmp_path: Path, plugins: None
) -> None:
    """Before, such a run was written valid with a score computed from illegal play."""
    results = tmp_path / "results"
    with pytest.raises(ValueError) as refused:
        run_one(TASK, "test_protocol:IllegalLinear", 0, str(results), fraction=FRACTION)
    message = str(refused.value)
    assert "training failed" in message and "action 0 is illegal in game" in message and "\n" not in message
    assert not list(results.rglob("seed_*.json"))


# --------------------------------------------------------------------------
# Kept policies tied to their runs (issue 49)


def test_a_result_records_its_kept_policys_hash(finished: tuple[Path, dict[str, Any]]) -> None:
    import hashlib

    folder, result = finished
    artifact = path_of(folder, result).with_name(result["artifact"])
    assert result["artifact_sha256"] == hashlib.sha256(artifact.read_bytes()).hexdigest()
    assert store.read(path_of(folder, result)).artifact_sha256 == result["artifact_sha256"]


@pytest.fixture
def swapped(finished: tuple[Path, dict[str, Any]], tmp_path: Path) -> Path:
    """A copy of the finished run whose kept policy was swapped for another (weights of ones)."""
    import shutil

    folder, result = finished
    copy = tmp_path / "swapped"
    shutil.copytree(folder, copy)
    path = path_of(copy, result)
    artifact = path.with_name(result["artifact"])
    with np.load(artifact, allow_pickle=False) as arrays:
        changed = {name: np.ones_like(value) if value.dtype.kind == "f" else value for name, value in arrays.items()}
    with artifact.open("wb") as stream:
        np.savez(stream, **changed)
    return path


def test_evaluate_exploit_and_crossplay_refuse_a_swapped_policy(
    swapped: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agents.bench.crossplay import collect
    from agents.bench.exploit import load_policy

    capsys.readouterr()
    assert main(["evaluate", str(swapped)]) == 2
    err = capsys.readouterr().err
    assert "is not the one the run kept (its SHA-256 differs" in err and err.count("\n") == 1
    with pytest.raises(ValueError, match="is not the one the run kept"):
        load_policy(str(swapped), get_task(TASK))
    results = swapped.parents[3]
    with pytest.raises(ValueError, match="is not the one the run kept"):
        collect(results, get_task(TASK))


def test_a_result_with_a_malformed_hash_is_refused(finished: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    folder, result = finished
    data = copy.deepcopy(result) | {"artifact_sha256": "abc"}
    with pytest.raises(ValueError, match="artifact_sha256 is 'abc', not a SHA-256"):
        store.check(data, path_of(folder, result))


def test_evaluate_says_what_differs_and_fails_outside_the_interval_under_the_same_provenance(
    finished: tuple[Path, dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A stored final far from what its kept policy plays: under this machine's own provenance that is
    a failure (exit 1); with another library version named, evaluate says which and exits 0."""
    import shutil

    from agents.bench.provenance import provenance

    folder, result = finished
    copy_folder = tmp_path / "forged"
    shutil.copytree(folder, copy_folder)
    path = path_of(copy_folder, result)
    data = copy.deepcopy(result)
    data["provenance"] = json.loads(json.dumps(provenance()))
    final = data["final"]
    shift = (final["high"] - final["low"]) * 3 + 1.0
    final.update(score=final["score"] + shift, low=final["low"] + shift, high=final["high"] + shift)
    anchors = final["anchors"]
    final["normalized"] = (final["score"] - anchors["random"]) / (anchors["reference"] - anchors["random"])
    path.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["evaluate", str(path)]) == 1
    out = capsys.readouterr().out
    assert "under the same provenance: outside its interval" in out
    data["provenance"]["versions"]["numpy"] = "0.0.1"
    path.write_text(json.dumps(data))
    assert main(["evaluate", str(path)]) == 0
    assert "numpy: 0.0.1 -> " in capsys.readouterr().out


# --------------------------------------------------------------------------
# A built-in agent kept as a run's policy (issue 49)


def _keeps_heuristic_train(self: Any, context: Any, checkpoint: Any) -> Any:
    from test_suite import FirstLegal

    from agents.registry import make_agent

    FirstLegal.train(self, context, checkpoint)  # steps its budget, reports its points
    return make_agent("heuristic", context.task.game)


class KeepsHeuristic:
    """Steps its budget, then keeps the built-in ``heuristic`` as what it learned."""

    name = "keeps_heuristic"
    checkpoints_callables = False
    train = _keeps_heuristic_train


class DeclaredHeuristic(KeepsHeuristic):
    """The same, declaring itself a baseline."""

    name = "declared_heuristic"
    baseline = True


def test_a_run_that_keeps_a_built_in_agent_is_invalid_unless_its_algorithm_is_a_baseline(
    tmp_path: Path, plugins: None
) -> None:
    results = tmp_path / "results"
    kept = run_one(TASK, "test_protocol:KeepsHeuristic", 0, str(results), fraction=FRACTION)
    assert kept["valid"] is False
    assert kept["invalid_reasons"] == [
        "its kept policy is the built-in agent 'heuristic', not one it learned (an algorithm that is a baseline "
        "says so: baseline = True)"
    ]
    declared = run_one(TASK, "test_protocol:DeclaredHeuristic", 0, str(results), fraction=FRACTION)
    assert declared["valid"] is True and declared["invalid_reasons"] == []
