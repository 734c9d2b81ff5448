"""The agent interface shared by heuristic, search and learned agents.

An agent is asked to act only at a real choice (R13: forced moves are played
for it). It sees a :class:`SeatView`: what its seat may see (R15) and the
legal actions, nothing hidden. It returns one legal action and takes every
random choice from the generator it is given, so a seeded evaluation is
reproducible.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from trash_env.config import RulesConfig
from trash_env.core import GameState
from trash_env.view import SeatView

__all__ = ["Agent", "PolicyAgent", "SeatView"]


class Agent(ABC):
    """A player of Trash. Subclasses set ``name`` and implement :meth:`act`."""

    name: str = "agent"

    @abstractmethod
    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        """A legal action for ``view.seat``."""

    def check_config(self, config: RulesConfig) -> None:  # noqa: B027 - optional hook
        """Raise ``ValueError`` if this agent cannot play ``config`` (learned agents do)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class PolicyAgent(Agent):
    """An agent defined by a policy over (public) states, usable in search rollouts.

    ``choose(state, legal, rng)`` reads only public fields of ``state``, so it is
    called with a public view when acting and with a sampled full state in rollouts.
    """

    @abstractmethod
    def choose(self, state: GameState, legal: list[int], rng: np.random.Generator) -> int:
        """A legal action for ``state.current`` given the legal actions ``legal``."""

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        return self.choose(view.public_state, view.legal_actions, rng)
