"""Trash's vector environments over the batched engine (:mod:`trash_env.trash.batched`): the games
they host (:class:`TrashGames`) and their Gymnasium face, :class:`TrashVectorEnv`, the
``vector_entry_point`` of ``TrashSingleAgent-v0`` (:mod:`trash_env.vector_env` says its contract); the
Stable-Baselines3 face is :class:`trash_env.trash.vec_env.TrashVecEnv`.

``num_envs`` copies of the single-agent game of :class:`~trash_env.single_agent.TrashSingleAgentEnv`
stepped in one compiled call: one learner seat per game (fixed, or drawn per episode), every other
seat played by an opponent drawn per seat per episode from ``opponents``: a vectorised baseline
inside the engine (``random``, ``greedy`` or ``counter``, by name), or an agent that decides in
batches (``act_batch``: a frozen snapshot of the learner, :class:`agents.learned.LearnedAgent`), asked
for all the games waiting on it at once between the learner's steps (R13: the learner is asked only
at its real choices).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trash_env.batched_games import BatchedGames
from trash_env.trash.batched import TrashBatch
from trash_env.trash.config import make_config
from trash_env.vector_env import BatchedVectorEnv


class TrashGames(BatchedGames):
    """``num_envs`` single-agent Trash games on the batched engine (see the module docstring)."""

    def __init__(
        self,
        num_envs: int,
        preset: str = "standard",
        opponents: Sequence[Any] = ("random",),
        learner_seat: int | None = None,
        seed: int | None = None,
        parallel: bool | None = None,
        **overrides: Any,
    ) -> None:
        BatchedGames.__init__(
            self, TrashBatch, make_config, num_envs, preset, opponents, learner_seat, seed, parallel, overrides
        )


class TrashVectorEnv(TrashGames, BatchedVectorEnv):
    """:class:`TrashGames` as a Gymnasium ``VectorEnv`` (:mod:`trash_env.vector_env`)::

        gymnasium.make_vec("TrashSingleAgent-v0", num_envs=1024, vectorization_mode="vector_entry_point")
    """
