"""Playing AEC environments of either game with random legal actions, for the env tests."""

from __future__ import annotations

import numpy as np

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
