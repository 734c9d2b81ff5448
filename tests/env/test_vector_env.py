"""The Gymnasium ``VectorEnv`` over each batched engine (:mod:`trash_env.vector_env`): the single-agent
envs' ``vector_entry_point``, checked as Gymnasium checks its own vector envs (batched spaces, seeded
determinism, SAME_STEP autoreset, its vector wrappers) and against the Stable-Baselines3 ``VecEnv`` over
the same engine, game for game."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

import trash_env  # noqa: F401  (registers the ids)
from trash_env.games import get_game

IDS = {"trash": "TrashSingleAgent-v0", "help_your_neighbor": "HelpYourNeighborSingleAgent-v0"}
CLASSES = {"trash": "TrashVectorEnv", "help_your_neighbor": "NeighborVectorEnv"}


def masked_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])


def play(envs, steps: int, seed: int = 0) -> list[tuple]:
    """``steps`` steps of random legal play from ``reset(seed=seed)``: every step's returns."""
    rng = np.random.default_rng(seed)
    observations, infos = envs.reset(seed=seed)
    seen = [(observations, infos)]
    for _ in range(steps):
        returned = envs.step(masked_actions(infos["action_mask"], rng))
        seen.append(returned)
        infos = returned[-1]
    return seen


@pytest.mark.parametrize("game", list(IDS))
def test_make_vec_gives_the_batched_engine_with_batched_spaces_and_same_step_autoreset(game: str) -> None:
    envs = gymnasium.make_vec(IDS[game], num_envs=5, opponents=["random"], num_players=3)
    single = gymnasium.make(IDS[game], num_players=3)
    assert type(envs).__name__ == CLASSES[game] and envs.num_envs == 5
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert envs.single_observation_space == single.observation_space
    assert envs.single_action_space == single.action_space
    assert envs.observation_space == batch_space(single.observation_space, 5)
    assert envs.action_space == batch_space(single.action_space, 5)
    observations, infos = envs.reset(seed=3)
    assert observations in envs.observation_space and observations.dtype == np.float32
    masks = infos["action_mask"]
    assert masks.dtype == np.int8 and masks.shape == (5, single.action_space.n) and infos["_action_mask"].all()
    assert np.array_equal(masks.astype(bool), envs.action_masks())
    for b in range(5):  # R13, R14: each game's mask is its learner's legal actions now
        state = envs.batch.game_state(b)
        assert np.flatnonzero(masks[b]).tolist() == get_game(game).legal_actions(state)
    for mode in ("sync", "async"):  # the single-agent env stays available to the Python-loop modes
        looped = gymnasium.make_vec(IDS[game], num_envs=2, vectorization_mode=mode)
        assert type(looped).__name__ != CLASSES[game]
        looped.close()


@pytest.mark.parametrize("game", list(IDS))
def test_the_same_seed_and_actions_give_the_same_games(game: str) -> None:
    """Gymnasium's determinism check for vector envs: reset(seed) and the same actions reproduce every
    returned value (data_equivalence); another seed deals other games."""
    first = play(gymnasium.make_vec(IDS[game], num_envs=6), 60, seed=11)
    again = play(gymnasium.make_vec(IDS[game], num_envs=6), 60, seed=11)
    other = play(gymnasium.make_vec(IDS[game], num_envs=6), 60, seed=12)
    assert data_equivalence(first, again, exact=True)
    assert not data_equivalence(first[0][0], other[0][0])


@pytest.mark.parametrize("game", list(IDS))
def test_a_game_that_ends_returns_its_last_observation_in_final_obs_and_the_next_games_first(game: str) -> None:
    """SAME_STEP (as SyncVectorEnv in that mode): the ending step's reward, termination or truncation are
    the finished game's, its last observation is in ``infos["final_obs"]`` (marked by ``_final_obs``),
    and ``observations`` already holds the new game's first, whose mask is a real choice."""
    envs = gymnasium.make_vec(IDS[game], num_envs=8, opponents=["random"])
    steps = play(envs, 300, seed=5)
    ended = 0
    for observations, rewards, terminations, truncations, infos in steps[1:]:
        assert rewards.dtype == np.float64 and terminations.dtype == truncations.dtype == np.bool_
        done = terminations | truncations
        assert not (terminations & truncations).any()
        assert (rewards[~done] == 0).all() and set(np.unique(rewards[done])) <= {-1.0, 0.0, 1.0}
        if not done.any():
            assert "final_obs" not in infos
            continue
        assert np.array_equal(infos["_final_obs"], done) and np.array_equal(infos["_final_info"], done)
        for b in np.flatnonzero(done):
            ended += 1
            last = infos["final_obs"][b]
            assert last.shape == envs.single_observation_space.shape and last in envs.single_observation_space
            assert not np.array_equal(last, observations[b])  # the new game's first observation is beside it
        assert all(infos["final_obs"][b] is None for b in np.flatnonzero(~done))
        assert (infos["action_mask"].sum(axis=1) >= 1).all()
    assert ended >= 8


@pytest.mark.parametrize("game", list(IDS))
def test_it_plays_the_very_games_of_the_sb3_vec_env_over_the_same_engine(game: str) -> None:
    """Both faces of one engine (BatchedGames): from the same seed and actions, the same observations,
    rewards and ends, and a finished game's last observation in ``final_obs`` as SB3's
    ``terminal_observation``."""
    pytest.importorskip("stable_baselines3")
    vector = get_game(game).vector_env(4, opponents=["random"], seed=9)
    sb3 = get_game(game).vec_env(4, opponents=["random"], seed=9)
    observations, infos = vector.reset()
    assert np.array_equal(observations, sb3.reset())
    rng = np.random.default_rng(2)
    for _ in range(150):
        actions = masked_actions(infos["action_mask"], rng)
        observations, rewards, terminations, truncations, infos = vector.step(actions)
        obs_sb3, rewards_sb3, dones, infos_sb3 = sb3.step(actions)
        assert np.array_equal(observations, obs_sb3) and np.array_equal(rewards, rewards_sb3)
        assert np.array_equal(terminations | truncations, dones)
        for b in np.flatnonzero(dones):
            assert np.array_equal(infos["final_obs"][b], infos_sb3[b]["terminal_observation"])
            assert truncations[b] == infos_sb3[b]["TimeLimit.truncated"]


def test_gymnasiums_vector_wrappers_count_its_episodes() -> None:
    """``RecordEpisodeStatistics`` (which reads the autoreset mode) sees each finished game once, with its
    return and length."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    envs = RecordEpisodeStatistics(gymnasium.make_vec(IDS["trash"], num_envs=4), buffer_length=1000)
    rng = np.random.default_rng(0)
    _, infos = envs.reset(seed=1)
    finished = 0
    for _ in range(400):
        _, _, terminations, truncations, infos = envs.step(masked_actions(infos["action_mask"], rng))
        finished += int((terminations | truncations).sum())
        if "episode" in infos:
            assert set(infos["episode"]["r"][infos["_episode"]]) <= {-1.0, 0.0, 1.0}
    assert finished > 4 and len(envs.return_queue) == finished


def test_bad_input_is_one_line() -> None:
    envs = gymnasium.make_vec(IDS["trash"], num_envs=3)
    _, infos = envs.reset(seed=0)
    illegal = np.array([np.flatnonzero(mask == 0)[0] for mask in infos["action_mask"]])
    with pytest.raises(ValueError, match="needs masked actions"):
        envs.step(illegal)
    with pytest.raises(ValueError, match="expected 3 actions, got 2"):
        envs.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="reset takes no options"):
        envs.reset(options={"deck": []})
    with pytest.raises(TypeError, match=r"\['frameskip'\]"):
        gymnasium.make_vec(IDS["trash"], num_envs=2, frameskip=4)
