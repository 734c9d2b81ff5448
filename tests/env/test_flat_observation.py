"""The AEC envs' ``flat_observation=True``: the observation an array, the action mask (int8) in the
agent's info, as PettingZoo's guidance for masked envs allows; the same game and the same figures as
the dict observation, PettingZoo's checks, and SuperSuit's observation wrappers over it."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from trash_env import help_your_neighbor_v0, trash_v0

MODULES = {"trash": trash_v0, "help_your_neighbor": help_your_neighbor_v0}


@pytest.mark.parametrize("game", list(MODULES))
@pytest.mark.parametrize("players", [2, 4])
def test_flat_observations_are_the_dict_ones_with_the_mask_in_info(game: str, players: int) -> None:
    """Step for step from the same seed: the flat observation is the dict's ``observation``, and every
    agent's ``info["action_mask"]`` its ``action_mask`` (the legal actions of the agent to act, zeros
    for the others), to the end of the game."""
    module = MODULES[game]
    flat, nested = module.env(flat_observation=True, num_players=players), module.env(num_players=players)
    flat.reset(seed=7)
    nested.reset(seed=7)
    space = flat.observation_space(flat.possible_agents[0])
    assert space == nested.observation_space(nested.possible_agents[0])["observation"]
    rng = np.random.default_rng(0)
    for agent in nested.agent_iter():
        assert flat.agent_selection == agent
        observation, reward, terminated, truncated, info = flat.last()
        expected, reward_nested, *_ = nested.last()
        assert np.array_equal(observation, expected["observation"]) and reward == reward_nested
        for other in flat.agents:
            mask = flat.infos[other]["action_mask"]
            assert mask.dtype == np.int8 and np.array_equal(mask, nested.observe(other)["action_mask"])
        if terminated or truncated:
            assert not info["action_mask"].any()
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        flat.step(action)
        nested.step(action)
    assert not flat.agents


@pytest.mark.parametrize("game", list(MODULES))
def test_pettingzoos_checks_pass_with_flat_observations(game: str) -> None:
    module = MODULES[game]
    api_test(module.env(flat_observation=True, num_players=3), num_cycles=300)
    seed_test(lambda: module.env(flat_observation=True), num_cycles=100)
    with pytest.raises(ValueError, match="flat_observation must be True or False"):
        module.env(flat_observation="yes")


@pytest.mark.parametrize("game", list(MODULES))
def test_supersuits_observation_wrappers_work_over_flat_observations(game: str) -> None:
    """``flatten``, ``dtype``, ``normalize_obs``, ``frame_stack``, ``pad_observations`` and ``agent_indicator``
    (each of which fails on the dict observation) pass PettingZoo's API test, the mask still in info."""
    supersuit = pytest.importorskip("supersuit")
    wrappers = {
        "flatten": supersuit.flatten_v0,
        "dtype": lambda env: supersuit.dtype_v0(env, np.float64),
        "normalize_obs": lambda env: supersuit.normalize_obs_v0(env, env_min=-1, env_max=1),
        "frame_stack": lambda env: supersuit.frame_stack_v2(env, 3),
        "pad_observations": supersuit.pad_observations_v0,
        "agent_indicator": supersuit.agent_indicator_v0,
    }
    size = MODULES[game].env(flat_observation=True).observation_space("player_0").shape[0]
    for name, wrap in wrappers.items():
        env = wrap(MODULES[game].env(flat_observation=True))
        api_test(env, num_cycles=40)
        env.reset(seed=0)
        observation, *_, info = env.last()
        assert info["action_mask"].dtype == np.int8 and info["action_mask"].any(), name
        shown = {"frame_stack": 3 * size, "agent_indicator": size + 2}.get(name, size)
        assert observation.shape == (shown,) and observation in env.observation_space(env.agent_selection), name
    with pytest.raises(Exception):  # noqa: B017 - SuperSuit's own error, whichever it raises
        supersuit.flatten_v0(MODULES[game].env()).reset(seed=0)
