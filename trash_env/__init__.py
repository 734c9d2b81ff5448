"""trash-rl: the card game Trash (Garbage) as reinforcement-learning environments.

    >>> import trash_env
    >>> env = trash_env.env(preset="standard", num_players=2)
    >>> env.reset(seed=0)

The rules live in one pure core (:mod:`trash_env.core`, configured by
:mod:`trash_env.config`); :mod:`trash_env.trash` wraps it as the PettingZoo AEC
environment ``trash_v0``. The dice variant Help Your Neighbor (R12) has its own
core, :mod:`trash_env.neighbor`, and environment, ``help_your_neighbor_v0``.
"""

import gymnasium

from trash_env.config import PRESETS, RulesConfig, make_config
from trash_env.records import replay
from trash_env.single_agent import NeighborSingleAgentEnv, TrashSingleAgentEnv
from trash_env.trash import env, raw_env

__all__ = [
    "PRESETS",
    "NeighborSingleAgentEnv",
    "RulesConfig",
    "TrashSingleAgentEnv",
    "env",
    "make_config",
    "raw_env",
    "replay",
]

if "TrashSingleAgent-v0" not in gymnasium.registry:
    gymnasium.register(id="TrashSingleAgent-v0", entry_point="trash_env.single_agent:TrashSingleAgentEnv")
if "HelpYourNeighborSingleAgent-v0" not in gymnasium.registry:
    gymnasium.register(id="HelpYourNeighborSingleAgent-v0", entry_point="trash_env.single_agent:NeighborSingleAgentEnv")
__version__ = "0.1.0"
