"""``fast_ppo`` (agents/training/fast_ppo.py, issue 50): a masked PPO that steps a batched engine's arrays.

Checked here: generalised advantage estimation against a hand computation; every action the learner
takes is legal where it stands (R13, R14); the policy it returns is the network's (the same actions
after saving and loading, weights only); a run repeats exactly with one seed; the counted budget is
the budget (to one step of the games); the benchmark's built-in keeps the protocol."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")
torch = pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")

from agents.training.fast_ppo import MASKED, FastSettings, as_linear_agent, gae, train_fast  # noqa: E402
from agents.training.sb3 import batched_vec_env  # noqa: E402
from trash_env.games import GAMES  # noqa: E402

SMALL = FastSettings(n_envs=16, n_steps=8, epochs=2, minibatch=64, hidden=(16,))


def test_gae_matches_a_hand_computation() -> None:
    """Two games over three steps, gamma 0.9 and lambda 0.8; game 1 ends at step 1 (its next
    observation is a new game's: no bootstrap across it)."""
    rewards = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]], np.float32)
    values = np.array([[0.5, 0.2], [0.6, 0.3], [0.7, 0.4]], np.float32)
    dones = np.array([[0, 0], [0, 1], [1, 0]], np.float32)
    last = np.array([0.9, 0.8], np.float32)
    advantages, returns = gae(rewards, values, dones, last, 0.9, 0.8)
    # game 0: ends with step 2
    d2 = 1.0 - 0.7
    d1 = 0.0 + 0.9 * 0.7 - 0.6
    d0 = 0.0 + 0.9 * 0.6 - 0.5
    a2, a1 = d2, d1 + 0.72 * d2
    a0 = d0 + 0.72 * a1
    # game 1: ends with step 1; step 2 begins a new game and bootstraps from the last value
    e2 = 0.0 + 0.9 * 0.8 - 0.4
    e1 = 1.0 - 0.3
    e0 = 0.0 + 0.9 * 0.3 - 0.2
    b2, b1 = e2, e1
    b0 = e0 + 0.72 * b1
    np.testing.assert_allclose(advantages, [[a0, b0], [a1, b1], [a2, b2]], rtol=1e-5)
    np.testing.assert_allclose(returns, advantages + values, rtol=1e-6)


class Recording:
    """A vector env that records the masks the learner saw and the actions it took at every step."""

    def __init__(self, venv: Any) -> None:
        self.venv, self.seen = venv, []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.venv, name)

    def step_arrays(self, actions: np.ndarray) -> Any:
        self.seen.append((self.venv.action_masks().copy(), np.array(actions)))
        return self.venv.step_arrays(actions)


@pytest.mark.parametrize(("game", "preset"), [("trash", "standard"), ("help_your_neighbor", "standard")])
def test_every_action_the_learner_takes_is_legal(game: str, preset: str) -> None:
    venv = Recording(batched_vec_env(game, SMALL.n_envs, preset, ["random"], 0, {}))
    config = GAMES[game].make_config(preset)
    train_fast(venv, 2_000, game, config, 0, SMALL)
    assert len(venv.seen) >= 2_000 // SMALL.n_envs
    for masks, actions in venv.seen:
        assert masks[np.arange(len(actions)), actions].all()


def test_the_policy_is_the_networks_and_reloads_to_the_same_actions(tmp_path: Path) -> None:
    from agents.training.fast_ppo import _networks
    from agents.value_table import load_npz

    config = GAMES["trash"].make_config("standard")
    size = GAMES["trash"].make_observer(config).size
    torch.manual_seed(1)
    net = _networks(size, GAMES["trash"].num_actions, (32, 16))
    agent = as_linear_agent(net, "trash", config)
    rng = np.random.default_rng(0)
    observations = rng.random((200, size)).astype(np.float32)
    masks = (rng.random((200, GAMES["trash"].num_actions)) < 0.4).astype(np.int8)
    masks[:, 0] = 1
    with torch.no_grad():
        logits = net(torch.as_tensor(observations))[0].masked_fill(~torch.as_tensor(masks, dtype=torch.bool), MASKED)
    expected = logits.argmax(dim=1).numpy()
    np.testing.assert_array_equal(agent.act_batch(observations, masks, [None] * 200), expected)
    loaded = load_npz(agent.save(tmp_path / "policy.npz"))
    np.testing.assert_array_equal(loaded.act_batch(observations, masks, [None] * 200), expected)


def test_a_run_repeats_exactly_with_one_seed() -> None:
    config = GAMES["trash"].make_config("standard")

    def run(seed: int) -> list[np.ndarray]:
        venv = batched_vec_env("trash", SMALL.n_envs, "standard", ["random", "greedy"], seed, {})
        agent, _ = train_fast(venv, 1_500, "trash", config, seed, SMALL)
        return agent.weights

    first, again, other = run(3), run(3), run(4)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other))


@pytest.mark.parametrize("budget", [1_000, 1_024, 5_000])
def test_the_count_is_the_budget_to_one_step_of_the_games(budget: int) -> None:
    config = GAMES["trash"].make_config("standard")
    venv = batched_vec_env("trash", SMALL.n_envs, "standard", ["random"], 0, {})
    points, seen = (0, budget // 2, budget), []
    train_fast(venv, budget, "trash", config, 0, SMALL, points=points, checkpoint=lambda t, p: seen.append(t))
    steps = []
    original = venv.step_arrays

    def counting(actions: np.ndarray) -> Any:
        steps.append(len(actions))
        return original(actions)

    venv.step_arrays = counting
    train_fast(venv, budget, "trash", config, 0, SMALL)
    assert budget <= sum(steps) < budget + SMALL.n_envs
    assert seen[0] == 0 and len(seen) == 3 and seen == sorted(seen) and seen[-1] == budget


def test_self_play_seats_snapshots_of_the_learner() -> None:
    config = GAMES["help_your_neighbor"].make_config(num_players=2)
    venv = batched_vec_env("help_your_neighbor", SMALL.n_envs, "standard", ["random"], 0, {})
    settings = FastSettings(**{**SMALL.__dict__, "snapshot_every": 500, "pool_size": 2})
    seated: list[list[str]] = []
    original = venv.set_opponents

    def recording(opponents: list[Any]) -> None:
        seated.append([opponent.name for opponent in opponents])
        original(opponents)

    venv.set_opponents = recording
    train_fast(venv, 2_000, "help_your_neighbor", config, 0, settings, self_play=True)
    assert seated[0] == ["snapshot_0"] and len(seated) >= 3 and all(len(pool) <= 2 for pool in seated)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"n_envs": 0}, "n_envs must be a positive integer"),
        ({"gamma": 1.5}, "gamma must be in"),
        ({"learning_rate": 0.0}, "learning_rate must be above 0"),
        ({"hidden": ()}, "hidden must be one or more positive widths"),
        ({"ent_coef": -1.0}, "ent_coef must be 0 or more"),
    ],
)
def test_bad_settings_are_refused_in_one_line(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        FastSettings(**change).check()


def test_settings_fit_a_small_budget() -> None:
    fitted = FastSettings().fitted(10_000)
    assert fitted.n_envs * fitted.n_steps * 4 <= 10_000 and fitted.minibatch <= fitted.n_envs * fitted.n_steps


@pytest.mark.slow
def test_the_benchmark_built_in_keeps_the_protocol(tmp_path: Path) -> None:
    from agents.bench.runner import run_one

    result = run_one("trash-standard-2p", "fast_ppo", 0, str(tmp_path), fraction=0.1)
    assert result["valid"] and result["algorithm"] == "fast_ppo"
    assert result["budget"] <= result["counted_steps"] < result["budget"] + 1024
    assert result["artifact"].endswith(".npz") and result["final"]["normalized"] > 0.5


def test_trash_train_trainer_fast_saves_a_policy_trash_evaluate_plays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agents.commands import evaluate
    from agents.commands.train import main

    argv = ["--trainer", "fast", "--total-timesteps", "3000", "--out-dir", str(tmp_path), "--final-eval-deals", "20"]
    assert main([*argv, "--eval-every", "0", "--no-tensorboard", "--no-progress-bar", "--eval-workers", "1"]) == 0
    run = tmp_path / "standard_2p_fast_ppo_seed0"
    assert (run / "policy.npz").is_file() and (run / "final_eval.json").is_file() and (run / "fast_ppo.json").is_file()
    capsys.readouterr()
    assert evaluate.main([str(run / "policy.npz"), "random", "--deals", "10", "--quiet"]) == 0


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--algo", "dqn"], "--trainer fast is a masked PPO: --algo dqn is SB3's"),
        (["--subproc"], "--subproc is for --trainer sb3"),
    ],
)
def test_trash_train_trainer_fast_refuses_sb3_only_flags(
    tmp_path: Path, flags: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from agents.commands.train import main

    assert main(["--trainer", "fast", "--out-dir", str(tmp_path), *flags]) == 2
    assert message in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("game", ["trash", "help_your_neighbor"])
def test_step_arrays_is_the_vector_envs_step_without_the_infos(game: str) -> None:
    """The same seed and actions through ``step`` (SB3's contract) and ``step_arrays``: the same
    observations, rewards and dones; a finished game's last observation and truncation as the infos say."""
    one = batched_vec_env(game, 8, "standard", ["random", "greedy" if game == "trash" else "heuristic"], 5, {})
    two = batched_vec_env(game, 8, "standard", ["random", "greedy" if game == "trash" else "heuristic"], 5, {})
    np.testing.assert_array_equal(one.reset(), two.reset())
    ended = 0
    for _ in range(300):
        actions = np.argmax(one.action_masks(), axis=1)
        obs, rewards, dones, infos = one.step(actions)
        obs2, rewards2, dones2, truncs2, final2 = two.step_arrays(actions)
        np.testing.assert_array_equal(obs, obs2)
        np.testing.assert_array_equal(rewards, rewards2)
        np.testing.assert_array_equal(dones, dones2)
        for game_index in np.flatnonzero(dones):
            ended += 1
            np.testing.assert_array_equal(infos[game_index]["terminal_observation"], final2[game_index])
            assert infos[game_index]["TimeLimit.truncated"] == bool(truncs2[game_index])
    assert ended > 8
