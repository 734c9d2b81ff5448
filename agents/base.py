"""The agent interface shared by heuristic, search and learned agents.

An agent is asked to act only at a real choice (R13, R14: forced moves are
played for it). It sees a :class:`SeatView`: what its seat may see (R15) and
the legal actions, nothing hidden. ``games`` names the games an agent plays
(Trash, Help Your Neighbor or both); :meth:`Agent.check_config` refuses
others. It returns one legal action and takes every random choice from the
generator it is given, so a seeded evaluation is reproducible.

An agent that can decide many positions at once (``batchable``) also
implements :meth:`Agent.act_batch`, returning for each row exactly what
:meth:`Agent.act` would for that position and generator; the batched engine's
evaluation then plays it without leaving the engine's batch.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np

from trash_env.games import game_of
from trash_env.kernel import checked_actions
from trash_env.trash.rules import TrashState
from trash_env.view import SeatView

__all__ = ["Agent", "PolicyAgent", "SeatView"]


class Agent(ABC):
    """A player of Trash (or of Help Your Neighbor, per ``games``). Subclasses set
    ``name`` and implement :meth:`act`."""

    name: str = "agent"
    games: tuple[str, ...] | None = ("trash",)  # the names of the games this agent plays (None: every game)
    batchable: bool = False  # implements act_batch

    @abstractmethod
    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        """A legal action for ``view.seat``."""

    def act_batch(self, observations: np.ndarray, masks: np.ndarray, rngs: Sequence[np.random.Generator]) -> np.ndarray:
        """For each row (the env's observation and int8 action mask of a seat to act, and that
        seat's generator) the action :meth:`act` would return there. Only for ``batchable`` agents."""
        raise NotImplementedError(f"{type(self).__name__} decides one position at a time")

    def policy_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """For each row, the probability of every action (rows sum to 1, 0 off the mask): what the
        exact evaluation of Help Your Neighbor needs. The default is the one-hot of
        :meth:`act_batch`, right for agents that choose deterministically; an agent that draws from
        its generator overrides it with its real probabilities."""
        actions = checked_actions(self.act_batch(observations, masks, [None] * len(observations)), masks, self.name)
        probabilities = np.zeros(masks.shape, dtype=np.float64)
        probabilities[np.arange(len(actions)), actions] = 1.0
        return probabilities

    def action_probabilities(self, view: SeatView) -> dict[int, float] | None:
        """The probability this agent's policy gives each legal action at ``view``, for records and
        replays to show; None (the default) for agents without such a distribution."""
        return None

    def check_config(self, config: Any) -> None:
        """Raise ``ValueError`` if this agent cannot play ``config`` (another game;
        learned agents also check the rules they were trained for)."""
        game = game_of(config)
        if self.games is not None and game.name not in self.games:
            raise ValueError(f"agent {self.name!r} plays {' and '.join(self.games)}, not {game.name}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class PolicyAgent(Agent):
    """An agent defined by a policy over (public) states, usable in search rollouts.

    ``choose(state, legal, rng)`` reads only public fields of ``state``, so it is
    called with a public view when acting and with a sampled full state in rollouts.
    """

    @abstractmethod
    def choose(self, state: TrashState, legal: list[int], rng: np.random.Generator) -> int:
        """A legal action for ``state.current`` given the legal actions ``legal``."""

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        return self.choose(view.public_state, view.legal_actions, rng)
