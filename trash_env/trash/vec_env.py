"""A Stable-Baselines3 vector environment over the batched engine (:mod:`trash_env.trash.batched`).

``TrashVecEnv(num_envs, ...)`` is ``num_envs`` copies of the single-agent game of
:class:`~trash_env.single_agent.TrashSingleAgentEnv` stepped in one compiled call:
one learner seat per game (fixed, or drawn per episode), every other seat played
by an opponent drawn per seat per episode from ``opponents``: a vectorised
baseline inside the engine (``random``, ``greedy`` or ``counter``, by name), or
an agent that decides in batches (``act_batch``: a frozen snapshot of the
learner, :class:`agents.learned.LearnedAgent`), asked for all the games waiting
on it at once between the learner's steps. That is how ``train.py --batched
--self-play`` plays its snapshots. It follows SB3's
``VecEnv`` contract: finished games are reset at once, their last observation is
in ``infos[i]["terminal_observation"]``, a truncation (R7) sets
``infos[i]["TimeLimit.truncated"]``, and ``env_method("action_masks")`` serves
MaskablePPO (sb3-contrib). As in the single-agent env, the learner is asked only
at its real choices (R13), its first move is asked when it would otherwise have
none in the whole game, and a deal on which it would not move at all is
replaced by the next.

Needs stable-baselines3 (the ``train`` extra) and, to be fast, Numba (the
``batched`` extra).
"""

from __future__ import annotations

from trash_env.batched_vec_env import BatchedVecEnv
from trash_env.trash.vector_env import TrashGames


class TrashVecEnv(TrashGames, BatchedVecEnv):
    """``num_envs`` single-agent Trash games on the batched engine (see the module docstring; the
    arguments are :class:`~trash_env.trash.vector_env.TrashGames`')."""
