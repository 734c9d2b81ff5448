"""Trash for one learner seat, a Gymnasium environment (``TrashSingleAgent-v0``):
:class:`trash_env.single_agent.SingleAgentEnv` on Trash. Its documentation is the module docstring of
:mod:`trash_env.single_agent`."""

from __future__ import annotations

from trash_env.single_agent import SingleAgentEnv
from trash_env.trash.game import GAME


class TrashSingleAgentEnv(SingleAgentEnv):
    """One learner seat of Trash against opponents played inside ``step`` (``TrashSingleAgent-v0``; the
    documentation of :mod:`trash_env.single_agent`)."""

    game = GAME
