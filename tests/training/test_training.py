"""Tests of training and learned policies: ``train.py``, :mod:`agents.learned` and policy files
used through :mod:`agents.registry`, :mod:`agents.commands.evaluate` and :mod:`agents.commands.play`.

Every training here is tiny (at most a few thousand learner decisions on 2 environments, a handful
of evaluation deals), so these tests check the plumbing, not the strength of the policies: runs
finish and write their files, policy files load (or are refused with a clear ``ValueError``), a
learned agent only ever plays legal actions (R13), a policy is tied to the rules configuration it was
trained for, resuming continues the timestep count, and self-play keeps a bounded snapshot pool.
Every output goes to a temporary directory.
"""

from __future__ import annotations

import io
import json
import logging
import os
import pickle
import signal
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from helpers.tiny_training import sb3_load, tiny_args

pytest.importorskip("sb3_contrib")
pytest.importorskip("stable_baselines3")

from agents.base import Agent, SeatView
from agents.baselines import RandomAgent
from agents.commands import play as play_cli
from agents.commands.evaluate import main as evaluate_main
from agents.evaluation.seatings import play_game
from agents.learned import (
    METADATA_NAME,
    LearnedAgent,
    algorithms,
    policy_classes,
    read_metadata,
    save_policy,
)
from agents.registry import make_agent
from agents.training.runs import TrainResult
from trash_env import TrashSingleAgentEnv
from trash_env.trash.config import make_config

ROOT = Path(__file__).resolve().parents[2]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def run_in_repo(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` from the repository root, as a user runs it; output captured."""
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


ALGORITHM_CLASSES = {"maskable_ppo": "MaskablePPO", "ppo": "PPO", "a2c": "A2C", "dqn": "DQN", "qrdqn": "QRDQN"}
# DQN and QR-DQN only start learning after 2,000 decisions (train.py's learning_starts): give them a few updates.
BUDGET = {"maskable_ppo": 512, "ppo": 512, "a2c": 512, "dqn": 2_200, "qrdqn": 2_200}
TINY_RUN = [
    "--total-timesteps", "2000", "--n-envs", "2", "--n-steps", "256", "--batch-size", "128",
    "--eval-every", "1000", "--eval-deals", "10", "--final-eval-deals", "20", "--eval-workers", "1",
    "--checkpoint-every", "1000", "--run-name", "tiny", "--no-progress-bar",
]  # fmt: skip


# --------------------------------------------------------------------------
# Fixtures and helpers


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    """The tiny ``train.py`` run of the README, as a user runs it (a subprocess): MaskablePPO on
    standard rules with 2 players, 2,000 decisions, checkpoints every 1,000. Returns the finished
    process and the run folder."""
    out_dir = tmp_path_factory.mktemp("tiny_run")
    completed = run_in_repo("train.py", *TINY_RUN, "--out-dir", str(out_dir), timeout=300)
    return completed, out_dir / "tiny"


@pytest.fixture(scope="module")
def tiny_policy(tiny_run: tuple[subprocess.CompletedProcess[str], Path]) -> Path:
    """The policy file of the tiny run (MaskablePPO, standard rules, 2 players)."""
    completed, run_dir = tiny_run
    assert completed.returncode == 0, completed.stderr[-3000:]
    return run_dir / "policy.zip"


@pytest.fixture(scope="module")
def train_policy(train: ModuleType, tmp_path_factory: pytest.TempPathFactory):
    """A factory of tiny in-process training runs, one per (algorithm, preset, players), cached for
    the module; returns what ``train.train`` returns."""
    cache: dict[tuple[str, str, int], TrainResult] = {}

    def get(algo: str = "maskable_ppo", preset: str = "standard", num_players: int = 2) -> TrainResult:
        key = (algo, preset, num_players)
        if key not in cache:
            out_dir = tmp_path_factory.mktemp(f"{algo}_{preset}_{num_players}p")
            args = tiny_args(
                train, out_dir, algo=algo, preset=preset, num_players=num_players, total_timesteps=BUDGET[algo]
            )
            cache[key] = train.train(args)
        return cache[key]

    return get


class LegalOnly(Agent):
    """Wraps a learned agent: asserts that every action it returns is legal (R13), counts its
    decisions and how often the policy's unmasked favourite was illegal."""

    def __init__(self, agent: LearnedAgent) -> None:
        self.agent = agent
        self.name = agent.name
        self.decisions = 0
        self.illegal_favourites = 0

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        legal = list(view.legal_actions)
        if int(np.argmax(self.agent.preferences(view.observation))) not in legal:
            self.illegal_favourites += 1
        action = self.agent.act(view, rng)
        assert isinstance(action, (int, np.integer)), f"action {action!r} is not an integer"
        assert action in legal, f"{self.name} chose illegal action {action} (legal: {legal})"
        self.decisions += 1
        return int(action)


def files_under(folder: Path) -> set[Path]:
    return {path for path in folder.rglob("*")}


def first_states(config_kwargs: dict[str, Any], count: int, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """``count`` learner observations with their action masks from the single-agent environment."""
    env = TrashSingleAgentEnv(**config_kwargs)
    observation, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        mask = info["action_mask"]
        states.append((observation, mask))
        action = int(rng.choice(np.flatnonzero(mask)))
        observation, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            observation, info = env.reset()
    return states


# --------------------------------------------------------------------------
# 1. The training script end to end


@pytest.mark.slow
def test_train_script_tiny_run_end_to_end(tiny_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    """``python train.py`` with a tiny budget exits 0, prints the periodic evaluations and the
    final table, and writes the policy, checkpoints, evaluation history, final evaluation, learning
    curve, TensorBoard logs and its arguments; no temporary ``.partial.zip`` is left behind."""
    completed, run_dir = tiny_run
    assert completed.returncode == 0, completed.stderr[-3000:]
    out = completed.stdout
    assert "[eval @ 1,000 steps, 10 duplicate deals] vs random:" in out
    assert f"{run_dir / 'policy.zip'} vs baselines, 20 duplicate deals per baseline" in out  # the name in full
    final_table = out[out.index("vs baselines, 20 duplicate deals") :]
    assert "score difference per deal [95% CI]" in final_table and "baseline's win rate" in final_table
    assert "per seat" not in final_table and "…" not in final_table  # one table (final_eval.json has the rest)
    assert [line.split()[1] for line in final_table.splitlines() if line.split()[1:2] in (["random"], ["greedy"])] == [
        "random",
        "greedy",
    ]

    policy = run_dir / "policy.zip"
    assert zipfile.is_zipfile(policy)
    metadata = read_metadata(policy)
    assert metadata["algorithm"] == "MaskablePPO"
    assert metadata["config"] == make_config("standard", num_players=2).to_dict()
    assert metadata["num_timesteps"] >= 2000

    final = json.loads((run_dir / "final_eval.json").read_text())
    assert final["deals"] == 20
    assert final["policy"] == str(policy)
    assert {row["agent"] for row in final["agents"]} == {str(policy), "random", "greedy"}
    assert [(row["first"], row["second"], row["deals"]) for row in final["pairs"]] == [
        (str(policy), "random", 20),
        (str(policy), "greedy", 20),
    ]

    history = json.loads((run_dir / "eval_history.json").read_text())["history"]
    steps = [row["timesteps"] for row in history]
    assert steps == sorted(set(steps)) and steps[0] == 0 and steps[1] >= 1000 and steps[-1] == metadata["num_timesteps"]
    for row in history:
        for baseline in ("random", "greedy"):
            assert row[baseline]["low"] <= row[baseline]["mean"] <= row[baseline]["high"]

    assert (run_dir / "learning_curve.png").read_bytes()[:8] == PNG_MAGIC
    checkpoints = sorted(path.name for path in (run_dir / "checkpoints").iterdir())
    assert checkpoints == ["step_1000.zip", "step_2000.zip"]
    assert read_metadata(run_dir / "checkpoints" / "step_1000.zip")["num_timesteps"] == 1000
    assert any((run_dir / "tb").rglob("events.out.tfevents.*"))
    args = json.loads((run_dir / "args.json").read_text())
    assert args["total_timesteps"] == 2000 and args["algo"] == "maskable_ppo"
    assert not [path for path in files_under(run_dir) if path.name.endswith(".partial.zip")]


@pytest.mark.slow
def test_evaluate_cli_loads_the_saved_policy(tiny_policy: Path) -> None:
    """``trash-evaluate POLICY.zip greedy`` loads the policy file from its path and plays
    the duplicate-deal tournament: exit 0 and the policy in the table."""
    completed = run_in_repo("-m", "agents.commands.evaluate", str(tiny_policy), "greedy", "--deals", "10", "--quiet")
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert str(tiny_policy) in completed.stdout
    assert "10 duplicate deals per pair" in completed.stdout


def test_train_returns_what_the_run_wrote(train_policy) -> None:
    """``train`` returns a :class:`TrainResult` that agrees with the run folder: the policy file and
    the same policy as an agent, the timestep count, the learning curve of ``eval_history.json``, the
    summary of ``final_eval.json``; a finished run is not interrupted, has exit status 0 and no
    checkpoint to resume."""
    result = train_policy("maskable_ppo")
    assert isinstance(result, TrainResult)
    assert result.policy == result.run_dir / "policy.zip" and result.policy.is_file()
    assert isinstance(result.agent, LearnedAgent) and result.agent.path == str(result.policy)
    loaded = LearnedAgent.load(result.policy)
    for observation, _ in first_states({"preset": "standard"}, 5):
        np.testing.assert_allclose(result.agent.preferences(observation), loaded.preferences(observation))
    assert result.timesteps == loaded.metadata["num_timesteps"] >= BUDGET["maskable_ppo"]
    assert result.history == json.loads((result.run_dir / "eval_history.json").read_text())["history"]
    final = json.loads((result.run_dir / "final_eval.json").read_text())
    assert result.summary is not None and result.summary["pairs"] == final["pairs"]
    assert (result.interrupted, result.exit_status, result.checkpoint) == (False, 0, None)


def test_a_stopped_run_returns_its_checkpoint_and_exit_status(
    train: ModuleType, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A run whose stop is asked before its first step (as Ctrl-C would ask it) saves a checkpoint
    and the policy so far, skips the final evaluation and returns ``interrupted``, exit status 130
    and the checkpoint, which the logged resume command names."""
    from agents.processes import GracefulStop

    stop = GracefulStop()
    stop.signum = signal.SIGINT  # what its handler records for Ctrl-C
    with caplog.at_level(logging.INFO, logger="agents.training"):
        result = train.train(tiny_args(train, tmp_path, total_timesteps=2000), stop=stop)
    assert result.interrupted and result.exit_status == 130 and result.summary is None
    assert result.checkpoint == tmp_path / "run" / "checkpoints" / f"step_{result.timesteps}.zip"
    assert read_metadata(result.checkpoint)["interrupted"] is True and result.timesteps < 2000
    assert read_metadata(result.policy)["interrupted"] is True
    assert "final evaluation skipped" in caplog.text and f"--resume {result.checkpoint}" in caplog.text
    assert not (tmp_path / "run" / "final_eval.json").exists()


# --------------------------------------------------------------------------
# 2. Every algorithm


@pytest.mark.parametrize("algo", sorted(ALGORITHM_CLASSES))
def test_each_algorithm_trains_and_saves_a_loadable_policy(algo: str, train_policy, train: ModuleType) -> None:
    """Every train.py algorithm trains in-process for a tiny budget; the saved policy loads as a
    LearnedAgent of that algorithm whose metadata names it, the configuration and the timesteps."""
    result = train_policy(algo)
    assert result.timesteps >= BUDGET[algo]
    agent = make_agent(str(result.policy))
    assert isinstance(agent, LearnedAgent)
    assert type(agent.policy) is policy_classes()[ALGORITHM_CLASSES[algo]]
    model = sb3_load(result.policy)
    assert type(model).__name__ == ALGORITHM_CLASSES[algo]
    if algo == "qrdqn":  # --n-quantiles reaches the model (not sb3-contrib's default of 200)
        assert model.n_quantiles == train.Args().n_quantiles != 200
    assert agent.metadata["algorithm"] == ALGORITHM_CLASSES[algo]
    assert agent.metadata["num_timesteps"] == result.timesteps
    assert agent.metadata["config"] == make_config("standard").to_dict()
    assert agent.metadata["train_seconds"] >= 0
    agent.check_config(make_config("standard"))
    final = json.loads((result.run_dir / "final_eval.json").read_text())
    assert [row["second"] for row in final["pairs"]] == ["random"]
    assert [row["timesteps"] for row in result.history] == [result.timesteps]


@pytest.mark.parametrize("algo", sorted(ALGORITHM_CLASSES))
def test_learned_agent_plays_the_policys_own_choice(algo: str, train_policy) -> None:
    """The agent's action is the model's deterministic prediction whenever that is legal (for
    MaskablePPO, with the action mask, always): masking never overrides a legal first choice."""
    path = train_policy(algo).policy
    agent, model = LearnedAgent.load(path), sb3_load(path)
    compared = 0
    for observation, mask in first_states({"preset": "standard"}, 180):
        kwargs = {"action_masks": mask} if algo == "maskable_ppo" else {}
        predicted, _ = model.predict(observation, deterministic=True, **kwargs)
        legal = [int(a) for a in np.flatnonzero(mask)]
        scores = agent.preferences(observation)
        chosen = legal[int(np.argmax(scores[legal]))]
        if int(predicted) in legal:
            assert chosen == int(predicted)
            compared += 1
        if algo == "maskable_ppo":
            assert int(predicted) in legal
    assert compared >= 10


# --------------------------------------------------------------------------
# 3. Only legal actions


@pytest.mark.parametrize(
    ("algo", "preset", "num_players"),
    [("maskable_ppo", "standard", 2), ("ppo", "standard", 2), ("ppo", "pagat", 3), ("dqn", "standard", 2)],
    ids=["maskable_ppo-standard-2p", "ppo-standard-2p", "ppo-pagat-3p", "dqn-standard-2p"],
)
def test_learned_agent_only_returns_legal_actions(algo: str, preset: str, num_players: int, train_policy) -> None:
    """Played through ``play_game`` against random players, in every seat, for at least 300
    decisions, the learned agent only returns legal actions, although the (barely trained) policy
    often ranks an illegal action first; games finish normally."""
    agent = LegalOnly(LearnedAgent.load(train_policy(algo, preset, num_players).policy))
    config = make_config(preset, num_players=num_players)
    agent.agent.check_config(config)
    game = 0
    while agent.decisions < 300:
        seat = game % num_players
        players: list[Agent] = [RandomAgent() for _ in range(num_players)]
        players[seat] = agent
        rng = np.random.default_rng([11, game])
        agent_rngs = [np.random.default_rng([11, game, s]) for s in range(num_players)]
        play_game(config, players, rng, agent_rngs)
        game += 1
        assert game < 2_000, "the learned agent is hardly ever asked to act"
    assert agent.illegal_favourites > 0  # the mask mattered, so the test could have caught a leak


# --------------------------------------------------------------------------
# 4. Clear errors on bad policy files and other configurations


def _corrupt(folder: Path, policy: Path) -> Path:
    path = folder / "corrupt.zip"
    path.write_bytes(np.random.default_rng(0).bytes(4096))
    return path


def _truncated(folder: Path, policy: Path) -> Path:
    data = policy.read_bytes()
    path = folder / "truncated.zip"
    path.write_bytes(data[: len(data) // 2])
    return path


def _plain_sb3_save(folder: Path, policy: Path) -> Path:
    path = folder / "plain.zip"
    sb3_load(policy).save(path)
    return path


def _other_zip(folder: Path, policy: Path) -> Path:
    path = folder / "other.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("notes.txt", "not a policy")
    return path


def _missing(folder: Path, policy: Path) -> Path:
    return folder / "missing.zip"


def _without_weights(folder: Path, policy: Path) -> Path:
    path = folder / "no_weights.zip"
    with zipfile.ZipFile(policy) as source, zipfile.ZipFile(path, "w") as archive:
        for name in source.namelist():
            if name != "policy.pth":
                archive.writestr(name, source.read(name))
    return path


def _bad_metadata_json(folder: Path, policy: Path) -> Path:
    path = folder / "bad_json.zip"
    with zipfile.ZipFile(policy) as source, zipfile.ZipFile(path, "w") as archive:
        for name in source.namelist():
            archive.writestr(name, b"{not json" if name == METADATA_NAME else source.read(name))
    return path


BAD_FILES = [
    pytest.param(_corrupt, "not a readable policy file", id="random-bytes"),
    pytest.param(_truncated, "not a readable policy file", id="truncated"),
    pytest.param(_plain_sb3_save, "has no trash_rl.json", id="plain-sb3-save"),
    pytest.param(_other_zip, "has no trash_rl.json", id="other-zip"),
    pytest.param(_missing, "does not exist", id="missing"),
    pytest.param(_without_weights, "could not be loaded", id="no-weights"),
    pytest.param(_bad_metadata_json, "not a readable policy file", id="bad-metadata-json"),
]


@pytest.mark.parametrize(("make_bad", "message"), BAD_FILES)
def test_bad_policy_files_raise_a_clear_value_error(make_bad, message: str, tiny_policy: Path, tmp_path: Path) -> None:
    """A corrupt, truncated, foreign or missing policy file is refused by ``LearnedAgent.load``,
    ``read_metadata`` (where it can tell) and ``make_agent`` with a ValueError naming the file and the
    problem; loading writes nothing (no partial file left behind)."""
    path = make_bad(tmp_path, tiny_policy)
    before = files_under(tmp_path)
    with pytest.raises(ValueError, match=message) as caught:
        LearnedAgent.load(path)
    assert path.name in str(caught.value)
    with pytest.raises(ValueError, match=message):
        make_agent(str(path))
    if message != "could not be loaded":  # only the weights are damaged: the metadata itself is fine
        with pytest.raises(ValueError, match=message):
            read_metadata(path)
    assert files_under(tmp_path) == before


def test_policy_metadata_that_is_not_an_object_is_a_value_error(tiny_policy: Path, tmp_path: Path) -> None:
    """A policy file whose trash_rl.json is valid JSON but not an object is refused with a ValueError."""
    path = tmp_path / "array_metadata.zip"
    with zipfile.ZipFile(tiny_policy) as source, zipfile.ZipFile(path, "w") as archive:
        for name in source.namelist():
            archive.writestr(name, b"[1, 2]" if name == METADATA_NAME else source.read(name))
    with pytest.raises(ValueError, match=r"array_metadata\.zip"):
        LearnedAgent.load(path)


@pytest.mark.parametrize(
    ("config_kwargs", "fields"),
    [
        ({"preset": "standard", "num_players": 3}, ["num_players: trained 2, asked 3", "num_decks"]),
        ({"preset": "pagat"}, ["wild: trained 'K', asked 'J'", "discard_draw", "final_turn", "starter"]),
        ({"preset": "standard", "match": True}, ["match: trained False, asked True"]),
    ],
    ids=["standard-3p", "pagat-2p", "standard-match"],
)
def test_policy_refuses_another_configuration(
    config_kwargs: dict[str, Any], fields: list[str], tiny_policy: Path
) -> None:
    """A policy trained for standard rules with 2 players refuses another configuration with a
    ValueError naming every differing field; its own configuration (and another turn limit, which
    the policy does not see) is accepted."""
    agent = make_agent(str(tiny_policy))
    agent.check_config(make_config("standard"))
    agent.check_config(make_config("standard", max_turns=50))
    preset = config_kwargs.pop("preset")
    with pytest.raises(ValueError, match="trained for another configuration") as caught:
        agent.check_config(make_config(preset, **config_kwargs))
    for field in fields:
        assert field in str(caught.value)


@pytest.mark.slow
def test_evaluate_cli_refuses_a_policy_for_another_player_count(tiny_policy: Path) -> None:
    """``trash-evaluate POLICY.zip greedy --num-players 3`` exits 2 with an error naming
    the differing field, before playing any game."""
    completed = run_in_repo(
        "-m", "agents.commands.evaluate", str(tiny_policy), "greedy", "--num-players", "3", "--quiet"
    )
    assert completed.returncode == 2
    assert "error:" in completed.stderr and "num_players: trained 2, asked 3" in completed.stderr
    assert "Traceback" not in completed.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--preset", "pagat"], "wild: trained 'K', asked 'J'"),
        (["--deals", "2"], "not a readable policy file"),
    ],
    ids=["pagat", "corrupt-file"],
)
def test_evaluate_main_refuses_bad_policies(
    argv: list[str], message: str, tiny_policy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The evaluation command returns 2 with the problem named for a policy trained for other rules
    and for a corrupt policy file."""
    policy = tiny_policy
    if message.startswith("not a readable"):
        policy = tmp_path / "corrupt.zip"
        policy.write_bytes(b"PK\x03\x04 but not really a zip")
    assert evaluate_main([str(policy), "greedy", "--quiet", *argv]) == 2
    assert message in capsys.readouterr().err


def test_play_cli_accepts_a_policy_opponent(tiny_policy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``agents.commands.play --opponents POLICY.zip`` seats the learned agent (it moves first when you take
    seat 1) and refuses it for a 3-player table with exit code 2."""
    out = io.StringIO()
    code = play_cli.main(["--opponents", str(tiny_policy), "--seat", "1"], input_fn=lambda prompt: "q", out=out)
    assert code == 0
    assert f"player_0 ({tiny_policy}) draws" in out.getvalue() or f"player_0 ({tiny_policy}) takes" in out.getvalue()
    code = play_cli.main(["--opponents", str(tiny_policy), "--num-players", "3"], input_fn=lambda prompt: "q")
    assert code == 2
    assert "num_players: trained 2, asked 3" in capsys.readouterr().err


def test_save_policy_writes_atomically_and_round_trips(tiny_policy: Path, tmp_path: Path) -> None:
    """``save_policy`` adds ``.zip`` when missing, overwrites an earlier save, leaves no
    ``.partial.zip`` behind, and the file loads back with the same preferences and metadata."""
    agent, model = LearnedAgent.load(tiny_policy), sb3_load(tiny_policy)
    config = make_config("standard")
    path = save_policy(model, tmp_path / "copy", config, "standard", note="first")
    assert path == tmp_path / "copy.zip"
    path = save_policy(model, tmp_path / "copy.zip", config, "standard", note="second")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.zip"]
    copy = LearnedAgent.load(path)
    assert copy.metadata["note"] == "second"
    assert copy.metadata["config"] == agent.metadata["config"]
    for observation, _ in first_states({"preset": "standard"}, 5):
        np.testing.assert_allclose(copy.preferences(observation), agent.preferences(observation))


def test_learned_agent_pickles_as_its_file(tiny_policy: Path) -> None:
    """A loaded LearnedAgent travels to worker processes as its file (same name, same choices); one
    made from a model in memory cannot be pickled, with a TypeError saying so."""
    agent = LearnedAgent.load(tiny_policy, name="mine")
    clone = pickle.loads(pickle.dumps(agent))
    assert clone.name == "mine" and clone.path == str(tiny_policy)
    observation, _ = first_states({"preset": "standard"}, 1)[0]
    np.testing.assert_allclose(clone.preferences(observation), agent.preferences(observation))
    with pytest.raises(TypeError, match="save it first"):
        pickle.dumps(LearnedAgent(agent.policy, agent.metadata))


# --------------------------------------------------------------------------
# 5. Resuming


@pytest.fixture(scope="module")
def resumed(train: ModuleType, tiny_run, tmp_path_factory: pytest.TempPathFactory) -> TrainResult:
    """The tiny run resumed from its 2,000-decision checkpoint up to 3,000 decisions, with
    checkpoints and evaluations every 1,000; returns what ``train.train`` returns."""
    completed, run_dir = tiny_run
    assert completed.returncode == 0, completed.stderr[-3000:]
    out_dir = tmp_path_factory.mktemp("resumed")
    args = tiny_args(
        train,
        out_dir,
        run_name="resumed",
        resume=run_dir / "checkpoints" / "step_2000.zip",
        total_timesteps=3000,
        checkpoint_every=1000,
        eval_every=1000,
    )
    result = train.train(args)
    assert result.run_dir == out_dir / "resumed"
    return result


def test_resume_continues_the_timestep_count(resumed: TrainResult, tiny_policy: Path) -> None:
    """Resuming from a checkpoint continues its count: the resumed model reaches the new total
    (more than the first run), its policy file says so, and the evaluation history and checkpoints
    continue after the checkpoint's count."""
    first_run = read_metadata(tiny_policy)["num_timesteps"]
    assert first_run >= 2000
    assert resumed.timesteps >= 3000 and resumed.timesteps > first_run
    agent = LearnedAgent.load(resumed.policy)
    assert sb3_load(resumed.policy).num_timesteps == resumed.timesteps == agent.metadata["num_timesteps"]
    steps = [row["timesteps"] for row in resumed.history]
    assert steps == sorted(set(steps))
    assert steps[0] > 2000 and steps[-1] == resumed.timesteps
    assert any(step >= 3000 for step in steps)
    checkpoints = [int(p.stem.removeprefix("step_")) for p in (resumed.run_dir / "checkpoints").iterdir()]
    assert checkpoints and min(checkpoints) > 2000


def test_resume_keeps_the_checkpoint_spacing(resumed: TrainResult) -> None:
    """After resuming at 2,000 decisions with checkpoints every 1,000, the first new checkpoint comes
    at least 1,000 decisions later (not a copy of the checkpoint just loaded)."""
    checkpoints = [int(p.stem.removeprefix("step_")) for p in (resumed.run_dir / "checkpoints").iterdir()]
    assert min(checkpoints) >= 3000


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"num_players": 3}, "num_players: trained 2, asked 3"),
        ({"preset": "pagat"}, "wild: trained 'K', asked 'J'"),
        ({"algo": "ppo"}, "trained with MaskablePPO, not PPO"),
        ({"algo": "dqn"}, "trained with MaskablePPO, not DQN"),
    ],
    ids=["num_players", "preset", "algo-ppo", "algo-dqn"],
)
def test_resume_refuses_another_configuration_or_algorithm(
    fields: dict[str, Any], message: str, train: ModuleType, tiny_policy: Path, tmp_path: Path
) -> None:
    """Resuming a standard 2-player MaskablePPO policy with other rules or another algorithm raises
    a ValueError naming the mismatch, before any training."""
    args = tiny_args(train, tmp_path, resume=tiny_policy, total_timesteps=3000, **fields)
    with pytest.raises(ValueError, match=message):
        train.train(args)
    assert not (tmp_path / "run" / "policy.zip").exists()


def test_resume_from_a_corrupt_file_is_a_value_error(train: ModuleType, tmp_path: Path) -> None:
    """``--resume`` of a file that is not a policy raises the loader's ValueError."""
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip at all")
    with pytest.raises(ValueError, match="not a readable policy file"):
        train.train(tiny_args(train, tmp_path, resume=bad, total_timesteps=3000))


def test_resume_with_the_budget_already_reached_still_evaluates(
    train: ModuleType, tiny_policy: Path, tmp_path: Path
) -> None:
    """Resuming a finished policy with ``--total-timesteps`` at or below its count trains nothing but
    still saves and evaluates the policy (e.g. to re-run a finished command)."""
    done = read_metadata(tiny_policy)["num_timesteps"]
    result = train.train(tiny_args(train, tmp_path, resume=tiny_policy, total_timesteps=done))
    assert result.timesteps == done
    assert [row["timesteps"] for row in result.history] == [done]


# --------------------------------------------------------------------------
# Rules options of train.py


def test_overrides_of_num_players_agree_with_the_environment(train: ModuleType, tmp_path: Path) -> None:
    """``--override num_players=3`` trains a 3-player policy, as ``trash-evaluate --override`` would
    play it: the policy's metadata and its environments agree on the configuration."""
    result = train.train(tiny_args(train, tmp_path, overrides=["num_players=3"], total_timesteps=256))
    assert read_metadata(result.policy)["config"]["num_players"] == 3


def test_overrides_reach_the_policy_metadata(train: ModuleType, tmp_path: Path) -> None:
    """A rules override (``layout_size=6``) trains on that configuration and the saved policy is
    tied to it: accepted for it, refused for the plain preset."""
    result = train.train(tiny_args(train, tmp_path, overrides=["layout_size=6"], total_timesteps=256))
    agent = make_agent(str(result.policy))
    agent.check_config(make_config("standard", layout_size=6))
    with pytest.raises(ValueError, match="layout_size: trained 6, asked 10"):
        agent.check_config(make_config("standard"))


# --------------------------------------------------------------------------
# 6. Self-play


@pytest.mark.slow
def test_self_play_writes_snapshots_and_keeps_the_newest_in_the_pool(
    train: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tiny self-play run saves a loadable snapshot every ``snapshot_every`` decisions, hands the
    environments the baselines plus at most ``pool_size`` snapshots (the newest), and finishes."""
    pools: list[list[str]] = []
    original = TrashSingleAgentEnv.set_opponents

    def recording(self: TrashSingleAgentEnv, opponents: Any) -> None:
        pools.append([getattr(opponent, "name", repr(opponent)) for opponent in opponents])
        original(self, opponents)

    monkeypatch.setattr(TrashSingleAgentEnv, "set_opponents", recording)
    args = tiny_args(
        train, tmp_path, self_play=True, snapshot_every=500, pool_size=2, total_timesteps=2000, n_steps=256
    )
    result = train.train(args)
    assert result.timesteps >= 2000
    snapshots = sorted((tmp_path / "run" / "snapshots").iterdir(), key=lambda p: int(p.stem.removeprefix("step_")))
    assert [p.name for p in snapshots] == ["step_500.zip", "step_1000.zip", "step_1500.zip", "step_2000.zip"]
    assert LearnedAgent.load(snapshots[-1]).metadata["num_timesteps"] == 2000
    snapshot_pools = [[name for name in pool if name.startswith("snapshot_")] for pool in pools]
    assert max(len(pool) for pool in snapshot_pools) == 2
    assert pools[-1] == ["random", "greedy", "snapshot_1500", "snapshot_2000"]
    assert (tmp_path / "run" / "policy.zip").is_file()


def test_self_play_pool_size_zero_keeps_no_snapshot(train: ModuleType, tiny_policy: Path, tmp_path: Path) -> None:
    """The self-play snapshot callback never keeps more than ``pool_size`` snapshots, 0 included
    (or refuses pool_size 0 with a ValueError)."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    config = make_config("standard")
    vec_env = DummyVecEnv([lambda: TrashSingleAgentEnv("standard")])
    model = algorithms()["MaskablePPO"].load(str(tiny_policy), env=vec_env, device="cpu")
    pool: list[Any] = []
    try:
        callback = train.PolicyCheckpoint(tmp_path, 10, config, "standard", pool, [RandomAgent()], pool_size=0)
    except ValueError:
        return
    callback.init_callback(model)
    for step in (10, 20, 30):
        model.num_timesteps = step
        callback.on_step()
    assert len(pool) == 0
    vec_env.close()


def test_no_partial_file_after_any_save(resumed: TrainResult) -> None:
    """Policy files and checkpoints are written through a temporary ``.partial.zip`` that is renamed
    into place: after a run none is left anywhere in the run folder."""
    leftovers = [path for path in files_under(resumed.run_dir) if ".partial" in path.name]
    assert leftovers == []
    assert all(zipfile.is_zipfile(path) for path in resumed.run_dir.rglob("*.zip"))
    assert os.path.isfile(resumed.policy)


# --------------------------------------------------------------------------
# The shipped policy


SHIPPED_POLICY = ROOT / "agents" / "policies" / "standard_2p_maskable_ppo.zip"


def test_shipped_policy_loads_for_its_configuration_and_plays_legal_actions() -> None:
    """The policy shipped in the repository is a MaskablePPO policy for the standard preset with 2
    players (hand mode, R11); it refuses another configuration and, playing 30 hands against greedy
    in both seats, only ever returns legal actions (R13)."""
    agent = make_agent(str(SHIPPED_POLICY))
    assert isinstance(agent, LearnedAgent)
    assert agent.metadata["algorithm"] == "MaskablePPO"
    config = make_config("standard")
    agent.check_config(config)
    with pytest.raises(ValueError, match="num_players"):
        agent.check_config(make_config("standard", num_players=3))

    asked = 0

    class Checked(Agent):
        def act(self, view: SeatView, rng: np.random.Generator) -> int:
            nonlocal asked
            action = agent.act(view, rng)
            assert action in view.legal_actions
            asked += 1
            return action

    greedy = make_agent("greedy")
    for game in range(30):
        seats = [Checked(), greedy] if game % 2 == 0 else [greedy, Checked()]
        rngs = [np.random.default_rng([game, seat]) for seat in range(2)]
        play_game(config, seats, np.random.default_rng(game), rngs)
    assert asked > 60


# --------------------------------------------------------------------------
# Learned policies on the batched engine


@pytest.mark.parametrize("algo", ["maskable_ppo", "dqn"])
def test_learned_policy_plays_the_same_games_on_the_batched_engine(algo: str, train_policy) -> None:
    """A learned policy is asked in batches (one forward pass for every game waiting on it) on the
    batched engine and plays exactly the games it plays on the core, one position at a time, against
    greedy and against random (whose generator is the scalar path's too), in every seat."""
    from agents.evaluation.duplicate import run_pairings

    policy = str(train_policy(algo).policy)
    config = make_config("standard")
    pairs = [(policy, "greedy"), (policy, "random")]
    scalar = run_pairings(config, pairs, 150, seed=4, engine="scalar")
    on_batch = run_pairings(config, pairs, 150, seed=4, engine="batched")
    assert on_batch == scalar and len(scalar) == 600
    assert run_pairings(config, pairs, 150, seed=4) == scalar  # auto picks the batched engine, same games


def test_the_learning_curve_has_one_point_at_the_end(train: ModuleType, tmp_path: Path) -> None:
    """PPO's last rollout overshoots the budget (600 asked, 640 trained: rollouts of 2 x 64): the
    periodic evaluation due at 600 is left to the final point, so the curve ends once, at 640, with
    the saved policy (it had 600 and again 640)."""
    result = train.train(tiny_args(train, tmp_path, total_timesteps=600, eval_every=300, n_steps=64, batch_size=64))
    assert [row["timesteps"] for row in result.history] == [0, 300, 640] and result.timesteps == 640
