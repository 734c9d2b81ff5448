"""Help Your Neighbor's vector environments over the batched engine (:mod:`trash_env.neighbor.batched`):
the games they host (:class:`NeighborGames`) and their Gymnasium face, :class:`NeighborVectorEnv`, the
``vector_entry_point`` of ``HelpYourNeighborSingleAgent-v0`` (:mod:`trash_env.vector_env` says its
contract); the Stable-Baselines3 face is :class:`trash_env.neighbor.vec_env.NeighborVecEnv`.

``num_envs`` copies of the single-agent game of :class:`~trash_env.single_agent.NeighborSingleAgentEnv`
stepped in one compiled call: one learner seat per game (fixed, or drawn per episode), every other
seat played by an opponent drawn per seat per episode from ``opponents``: a vectorised baseline
inside the engine (``random``, ``heuristic``, ``roller`` or, for two players, ``optimal``, by name), a
table player, or an agent that decides in batches (``act_batch``), asked for all the games waiting
on it at once between the learner's steps (R14: the learner is asked only at its real choices).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from trash_env.batched_games import BatchedGames
from trash_env.neighbor.batched import NeighborBatch, _as_tables
from trash_env.neighbor.rules import make_config
from trash_env.vector_env import BatchedVectorEnv


class NeighborGames(BatchedGames):
    """``num_envs`` single-agent Help Your Neighbor games on the batched engine (see the module
    docstring). ``optimal_tables`` are the solution's tables for an ``optimal`` opponent (loaded
    from the solver's cache when it is needed and none are given)."""

    def __init__(
        self,
        num_envs: int,
        preset: str = "standard",
        opponents: Sequence[Any] = ("random",),
        learner_seat: int | None = None,
        seed: int | None = None,
        parallel: bool | None = None,
        optimal_tables: tuple[np.ndarray, np.ndarray] | None = None,
        **overrides: Any,
    ) -> None:
        BatchedGames.__init__(
            self,
            NeighborBatch,
            make_config,
            num_envs,
            preset,
            opponents,
            learner_seat,
            seed,
            parallel,
            overrides,
            optimal_tables=optimal_tables,
        )

    def _built(self, batch: Any) -> None:
        self._given_tables = batch.tables  # the tables of ``optimal`` the env was made with

    def set_opponents(self, opponents: Sequence[Any]) -> None:
        """As :meth:`BatchedGames.set_opponents`, and a **table player** (an agent with
        ``engine_tables()``, two-player lookup tables as :func:`~trash_env.neighbor.batched.optimal_tables`
        gives them: :class:`agents.value_table.ValueTableAgent`) plays inside the engine, from its own
        tables, as fast as ``optimal``; the engine reads the very arrays, so the agent's updates to
        them in place are seen at once. One table player at a time, and not beside ``optimal``."""
        if isinstance(opponents, str):
            super().set_opponents(opponents)  # refused there, in one line
        tabled = [o for o in opponents if not isinstance(o, str) and callable(getattr(o, "engine_tables", None))]
        if tabled:
            if any(o is not tabled[0] for o in tabled) or "optimal" in opponents:
                raise ValueError("opponents: one table player at a time, and not beside optimal (both play its tables)")
            tabled[0].check_config(self.config)
            tables = _as_tables(tabled[0].engine_tables())
            opponents = ["optimal" if o is tabled[0] else o for o in opponents]
        else:
            tables = self._given_tables
        previous = self.batch.tables
        self.batch.tables = tables
        try:
            super().set_opponents(opponents)
        except ValueError:
            self.batch.tables = previous
            raise


class NeighborVectorEnv(NeighborGames, BatchedVectorEnv):
    """:class:`NeighborGames` as a Gymnasium ``VectorEnv`` (:mod:`trash_env.vector_env`)::

        gymnasium.make_vec("HelpYourNeighborSingleAgent-v0", num_envs=1024, vectorization_mode="vector_entry_point")
    """
