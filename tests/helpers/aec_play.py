"""Playing AEC environments of either game with random legal actions, and PettingZoo's own tests
of them, for the env tests."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from pettingzoo.test import api_test, render_test

MAX_STEPS = 200_000  # a safety net: max_turns (R7, R12) ends every test game far below it


def play(env, rng: np.random.Generator, on_ask=None) -> int:
    """Play random legal actions (None for done agents) until no agent is left.

    ``on_ask(env, agent, observation)`` is called before every step of a live
    agent. Returns the number of live steps.
    """
    asks = 0
    for _ in range(MAX_STEPS):
        if not env.agents:
            return asks
        agent = env.agent_selection
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if on_ask is not None:
            on_ask(env, agent, obs)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        asks += 1
    raise AssertionError(f"the episode did not end within {MAX_STEPS} steps")


# PettingZoo's api_test warns about every Dict observation; these two warnings say
# nothing about this environment. Every other api_test warning is made an error.
DICT_OBSERVATION_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
)


def seed_action_spaces(env) -> None:
    """Make api_test's action sampling reproducible."""
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(1000 + i)


def strict_api_test(env) -> None:
    """PettingZoo's ``api_test`` with its warnings made errors (but the two of any Dict observation)
    and the action spaces seeded, so a failure is the same on every run."""
    seed_action_spaces(env)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for message in DICT_OBSERVATION_WARNINGS:
            warnings.filterwarnings("ignore", message=message)
        api_test(env, num_cycles=1000)


def named_render_test(make_env: Callable[..., Any], agents: list[str]) -> None:
    """PettingZoo's ``render_test`` of ``make_env(render_mode=...)`` for its text modes, every ansi
    frame also naming every agent. render_test resets without a seed, so each env is first reset
    with seed 0 and its action spaces seeded: the test continues from there, reproducibly."""

    def env_fn(render_mode=None):
        env = make_env(render_mode=render_mode)
        env.reset(seed=0)
        seed_action_spaces(env)
        return env

    render_test(env_fn, custom_tests={"ansi": lambda text: all(agent in text for agent in agents)})
