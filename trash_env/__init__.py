"""trash-rl: the card game Trash (Garbage) and its dice relative Help Your Neighbor as
reinforcement-learning environments.

    >>> import trash_env
    >>> env = trash_env.env(preset="standard", num_players=2)
    >>> env.reset(seed=0)

A folder per game holds its rules core, configuration, observation, drawing and engines:
:mod:`trash_env.trash` (Trash, R1-R11, R13, R15; the PettingZoo env ``trash_v0``) and
:mod:`trash_env.neighbor` (Help Your Neighbor, R12, R14; ``help_your_neighbor_v0`` and the
exact solver of two players), each exporting its descriptor (:mod:`trash_env.game`), which
:mod:`trash_env.games` collects. :mod:`trash_env.kernel` is what both rules cores share; the rest of
this package is the env glue every game uses (the AEC base, the single-agent Gymnasium env, wrappers,
records, pictures, files). It never imports ``agents``.
"""

from importlib import metadata as _metadata
from typing import Any

import gymnasium

from trash_env.games import GAMES  # registers the package's games first: every look-up finds them
from trash_env.kernel import renamed
from trash_env.neighbor.single_agent import NeighborSingleAgentEnv
from trash_env.records import replay
from trash_env.trash.config import PRESETS, TrashConfig, make_config
from trash_env.trash.env import env, raw_env
from trash_env.trash.single_agent import TrashSingleAgentEnv

__all__ = [
    "PRESETS",
    "NeighborSingleAgentEnv",
    "NeighborVecEnv",
    "TrashConfig",
    "TrashSingleAgentEnv",
    "TrashVecEnv",
    "env",
    "make_config",
    "raw_env",
    "replay",
]

try:
    __version__ = _metadata.version("trash-rl")
except _metadata.PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"

# The vector envs over the batched engines need Stable-Baselines3 (the train extra).
_LAZY = {"TrashVecEnv": "trash_env.trash.vec_env", "NeighborVecEnv": "trash_env.neighbor.vec_env"}


def _lazy(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'trash_env' has no attribute {name!r}")


__getattr__ = renamed(__name__, {"RulesConfig": TrashConfig}, _lazy)  # the name before the game prefix


for _game in GAMES.values():  # each game's single-agent env under its Gymnasium id, its batched engine as make_vec's
    if _game.single_agent_id and _game.single_agent_id not in gymnasium.registry:
        gymnasium.register(
            id=_game.single_agent_id,
            entry_point=_game.single_agent_entry_point,
            vector_entry_point=_game.engine.vector_env if _game.engine else None,
        )
