"""Shimmy's OpenSpiel wrapper over ``python_trash`` and ``python_help_your_neighbor``, the way
docs/openspiel.md gives: ``OpenSpielCompatibilityV0(game_name=..., config={...})``. Passing a loaded
game (``env=``) is not that way: Shimmy's ``reset()`` loads the game again by its short name, so its
parameters are lost."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyspiel")
shimmy = pytest.importorskip("shimmy")

from pettingzoo.test import api_test  # noqa: E402

from trash_env import openspiel as osp  # noqa: E402  (registers the games)


def played(env, seed: int) -> tuple[dict[str, float], list[float]]:
    """A game of random legal moves: each agent's final ``env.rewards`` (read once, at its last turn)
    and OpenSpiel's ``returns()``."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    final = {}
    for agent in env.agent_iter():
        _, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            final[agent] = env.rewards[agent]
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    return final, list(env.game_state.returns())


@pytest.mark.parametrize(
    ("game", "config", "players"),
    [
        (osp.TRASH_NAME, {"players": 4}, 4),
        (osp.TRASH_NAME, {"preset": "tiny"}, 2),
        (osp.TRASH_NAME, {"players": 2, "match": True}, 2),
        (osp.NEIGHBOR_NAME, {"players": 3}, 3),
    ],
)
def test_shimmys_wrapper_keeps_the_parameters_given_as_config(game: str, config: dict, players: int) -> None:
    """The parameters survive Shimmy's ``reset()`` (its game is loaded again from ``game_name`` and
    ``config``), PettingZoo's API test passes, and at the end each agent's ``env.rewards`` is its
    OpenSpiel return (R10, R12): the figures to read, not ``last()``'s rewards summed over the game."""
    env = shimmy.OpenSpielCompatibilityV0(game_name=game, config=config)
    api_test(env, num_cycles=60)
    for seed in range(3):
        final, returns = played(env, seed)
        parameters = env._env.get_parameters()
        assert all(parameters[key] == value for key, value in config.items()) and len(env.possible_agents) == players
        assert [final[agent] for agent in env.possible_agents] == returns
