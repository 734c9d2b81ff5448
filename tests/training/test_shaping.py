"""Reward shaping by progress in hands and layouts (:mod:`agents.training.shaping`, R4, R5, R9, R15).

- the potential read from an observation is the one computed from the rules core's state (hands
  won, R9; face-up slots of a layout over its size, R4, R5, R9 shrinking it), seats seen from the
  learner's chair;
- over whole matches the shaped rewards add up to the task's return plus the potential at the end
  less the potential at the start, episode by episode through SB3's auto-reset;
- bad weights and observations of another size are refused in one line;
- ``maskable_ppo_shaped`` trains against the task's reference only, through the counting wrapper,
  with the shaping on top, and refuses Help Your Neighbor.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.bench.tasks import get_task
from agents.training.shaping import ProgressPotential, progress_shaping
from trash_env import TrashSingleAgentEnv

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def potential_from_state(state: Any, seat: int, hands: float, progress: float) -> float:
    """The potential computed from the rules core's state, independently of the observation."""
    n = state.num_players
    seats = [(seat + k) % n for k in range(n)]  # the learner first, then in turn order (R15)
    won = [state.hands_won[s] for s in seats]
    fraction = [(state.sizes[s] - state.face_down[s]) / state.sizes[s] for s in seats]
    return hands * (won[0] - np.mean(won[1:])) + progress * (fraction[0] - np.mean(fraction[1:]))


def random_policy(rng: np.random.Generator):
    def act(observation: np.ndarray, mask: np.ndarray) -> int:
        return int(rng.choice(np.flatnonzero(mask)))

    return act


@pytest.mark.parametrize(("preset", "players"), [("pagat", 4), ("standard", 2), ("pagat", 3)])
def test_the_potential_of_an_observation_is_the_one_of_the_state(preset: str, players: int) -> None:
    rng = np.random.default_rng(3)
    env = TrashSingleAgentEnv(preset, num_players=players, match=True, max_turns=400)
    potential = ProgressPotential(players, hands=0.7, progress=1.3)
    act = random_policy(rng)
    seen_won = seen_progress = 0
    for episode in range(3):
        observation, _ = env.reset(seed=episode)
        done = False
        while not done:
            expected = potential_from_state(env.state, env.seat, 0.7, 1.3)
            assert potential(observation[None])[0] == pytest.approx(expected, abs=1e-9)
            seen_won += any(env.state.hands_won)
            seen_progress += env.state.sizes[env.seat] > env.state.face_down[env.seat]
            observation, _, terminated, truncated, _ = env.step(act(observation, env.action_masks()))
            done = terminated or truncated
        expected = potential_from_state(env.state, env.seat, 0.7, 1.3)
        assert potential(observation[None])[0] == pytest.approx(expected, abs=1e-9)
    assert seen_won and seen_progress  # the test reached states where both parts count


def test_shaped_rewards_add_up_to_the_return_plus_the_change_of_potential() -> None:
    from stable_baselines3.common.vec_env import DummyVecEnv

    def make(seed: int):
        return lambda: TrashSingleAgentEnv("pagat", num_players=4, match=True, layout_size=4, max_turns=600)

    plain = DummyVecEnv([make(0), make(1)])
    shaped_env = progress_shaping(DummyVecEnv([make(0), make(1)]), 4, hands=1.0, progress=2.0)
    potential = ProgressPotential(4, hands=1.0, progress=2.0)
    plain.seed(11)
    shaped_env.seed(11)
    first = plain.reset()
    assert np.array_equal(first, shaped_env.reset())
    start = potential(first)
    rng = np.random.default_rng(5)
    sums_plain, sums_shaped = np.zeros(2), np.zeros(2)
    finished = 0
    while finished < 6:
        masks = np.stack([env.action_masks() for env in plain.envs])
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        observations, rewards, dones, infos = plain.step(actions)
        shaped_observations, shaped_rewards, shaped_dones, _ = shaped_env.step(actions)
        assert np.array_equal(observations, shaped_observations) and np.array_equal(dones, shaped_dones)
        assert shaped_rewards.dtype == np.float32
        sums_plain += rewards
        sums_shaped += shaped_rewards
        for index in np.flatnonzero(dones):
            end = potential(infos[index]["terminal_observation"][None])[0]
            assert end != start[index] or sums_plain[index] != 0  # a real episode went by
            assert sums_shaped[index] == pytest.approx(sums_plain[index] + end - start[index], abs=1e-4)
            assert sums_plain[index] != 0  # a match pays its result at the end (R9, R10)
            sums_plain[index] = sums_shaped[index] = 0
            start[index] = potential(observations[index][None])[0]
            finished += 1


@pytest.mark.parametrize(
    ("hands", "progress", "message"),
    [(-1.0, 1.0, "hands must be a finite number >= 0"), (1.0, float("nan"), "progress must be a finite number >= 0")],
)
def test_bad_weights_are_refused_in_one_line(hands: float, progress: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ProgressPotential(4, hands, progress)


def test_an_observation_of_another_size_is_refused() -> None:
    with pytest.raises(ValueError, match="4-player Trash observation has"):
        ProgressPotential(4, 1.0, 1.0)(np.zeros((1, 10), dtype=np.float32))


def test_the_shaped_builtin_trains_against_the_reference_with_the_shaping_on_top(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("sb3_contrib")
    from agents.bench.algorithms import BUILTIN, SHAPING, TaskContext, make_opponents
    from agents.training import sb3 as training

    task = get_task("trash-pagat-4p-match")
    assert set(task.opponents) > {task.reference}  # the task trains against more than its reference
    seen: dict[str, Any] = {}

    def fake_train(args: Any, callbacks: Any = (), wrap_env: Any = None) -> Any:
        seen["opponents"] = args.opponents
        from stable_baselines3.common.vec_env import DummyVecEnv

        env = wrap_env(DummyVecEnv([lambda: TrashSingleAgentEnv("pagat", num_players=4, match=True)]))
        seen["env"] = env
        raise RuntimeError("stop here")

    monkeypatch.setattr(training, "train", fake_train)
    context = TaskContext(task, 0, 1000, [0, 1000], tmp_path, make_opponents(task))
    with pytest.raises(RuntimeError, match="stop here"):
        BUILTIN["maskable_ppo_shaped"]().train(context, lambda timesteps, agent: None)
    assert seen["opponents"] == [task.reference]
    env = seen["env"]
    assert env.potential.hands == SHAPING["hands"] and env.potential.progress == SHAPING["progress"]
    env.reset()
    env.step(np.array([int(np.flatnonzero(env.venv.venv.envs[0].action_masks())[0])]))
    assert context.counter.steps == 1  # the counting wrapper sees every step, under the shaping


def test_the_shaped_builtin_refuses_help_your_neighbor(tmp_path: Path) -> None:
    from agents.bench.algorithms import BUILTIN, TaskContext, make_opponents

    task = get_task("hyn-2p")
    context = TaskContext(task, 0, 1000, [0, 1000], tmp_path, make_opponents(task))
    with pytest.raises(ValueError, match="maskable_ppo_shaped shapes Trash rewards"):
        BUILTIN["maskable_ppo_shaped"]().train(context, lambda timesteps, agent: None)


def test_the_shaped_builtin_keeps_the_suite_settings() -> None:
    from agents.bench.algorithms import BUILTIN, SETTINGS

    algorithm = BUILTIN["maskable_ppo_shaped"]()
    assert algorithm.settings == SETTINGS["maskable_ppo"] and algorithm.against_reference
    assert dataclasses.asdict(algorithm)["shaping"] == {"hands": 1.0, "progress": 1.0}
