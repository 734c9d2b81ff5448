"""The agent interface shared by heuristic, search and learned agents.

An agent is asked to act only at a real choice (R13: forced moves are played
for it). It sees a :class:`SeatView`: what its seat may see (R15) and the
legal actions, nothing hidden. It returns one legal action and takes every
random choice from the generator it is given, so a seeded evaluation is
reproducible.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod

import numpy as np

from trash_env import core
from trash_env.belief import public_view
from trash_env.config import RulesConfig
from trash_env.core import GameState
from trash_env.observation import Observer


class SeatView:
    """What ``seat`` may see while it is asked to act; valid only during that call.

    - ``legal_actions``: the legal actions of R13, in increasing order;
    - ``action_mask``: the same as an int8 mask of 13;
    - ``observation``: the env's observation vector (R15), computed on first use;
    - ``public_state``: a :class:`~trash_env.core.GameState` with every hidden card
      scrubbed (:func:`~trash_env.belief.public_view`), computed on first use.
    """

    def __init__(self, state: GameState, seat: int, observer: Observer) -> None:
        self.seat = seat
        self.config: RulesConfig = state.config
        self.legal_actions: list[int] = core.legal_actions(state)
        self._state = state
        self._observer = observer

    @functools.cached_property
    def public_state(self) -> GameState:
        return public_view(self._state)

    @functools.cached_property
    def observation(self) -> np.ndarray:
        return self._observer.encode(self._state, self.seat)

    @functools.cached_property
    def action_mask(self) -> np.ndarray:
        mask = np.zeros(core.NUM_ACTIONS, dtype=np.int8)
        mask[self.legal_actions] = 1
        return mask


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
