"""The table both ways of playing share (:mod:`agents.commands.play` in the terminal,
:mod:`agents.commands.web.server` in the browser): one game between a human seat and agents, with
every move narrated as a line (``player_1 (greedy) draws 7``, ``you roll 8 and cover it``) by the
game's narrator (its descriptor's :class:`~trash_env.game.Narrator`).

:class:`Table` holds the game on its rules core (Trash R1-R10, R13; Help Your Neighbor R12, R14):
forced moves are played for everyone, the agents are asked at their real choices, and the human's
seat waits for a legal action. Only public information is shown (R2) until a hand is over.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.base import Agent, SeatView
from trash_env.games import game_of
from trash_env.narration import YOU, listing

__all__ = ["ACTION_NUMBER", "YOU", "Table", "agent_rng", "game_rng", "listing", "seat_names"]

ACTION_NUMBER = "#"  # "#5": the action numbered 5 (R13, R14), typed as such at the prompt


def game_rng(seed: int) -> np.random.Generator:
    """The generator of the deal, reshuffles (R7) and later hands (R9)."""
    return np.random.default_rng([seed, 0])


def agent_rng(seed: int, seat: int) -> np.random.Generator:
    """The generator of the agent in ``seat``; independent of the game's."""
    return np.random.default_rng([seed, 1, seat])


def seat_names(agents: Sequence[Agent | None]) -> list[str]:
    """``you`` for the human seat (``None``), ``player_i (agent)`` for the others."""
    return [YOU if agent is None else f"player_{seat} ({agent.name})" for seat, agent in enumerate(agents)]


class Table:
    """One game between the human (the seat whose agent is ``None``) and agents, on its rules core:
    the state, the generators (:func:`game_rng`, :func:`agent_rng`) and the narration of each move.
    The terminal and the browser front-ends (:mod:`agents.commands.web.server`) both play through it.
    ``deal`` stacks the first deal (a deck, R3; dice, R12) instead of drawing it from the seed."""

    def __init__(self, config: Any, agents: Sequence[Agent | None], seed: int = 0, deal: Any = None) -> None:
        self.config = config
        self.game = game_of(config)
        if self.game.narrator is None:
            raise ValueError(f"{self.game.title} has no narrator: it cannot be played at the table")
        self.narrator = self.game.narrator
        self.agents = list(agents)
        self.human = self.agents.index(None)
        self.names = seat_names(self.agents)
        self.seed = seed
        self.rng = game_rng(seed)
        self.agent_rngs = [agent_rng(seed, seat) for seat in range(config.num_players)]
        self.observer = self.game.make_observer(config)
        self.state = self.game.new_game(config, self.rng, deal)
        self.ended_hand: Any = None  # the hand of a match the last move ended, as it ended (apply)

    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def waiting(self) -> bool:
        """Whether the human has a real choice now (two or more legal moves, R13, R14)."""
        state = self.state
        return not state.over and state.current == self.human and self.game.forced_action(state) < 0

    def legal_actions(self) -> list[int]:
        return self.game.legal_actions(self.state)

    def introduction(self) -> str:
        others = listing([name for name in self.names if name != YOU])
        return (
            f"{self.narrator.describe_config(self.config)}. You are seat {self.human} against {others}; "
            f"seed {self.seed}."
        )

    def automatic_action(self) -> int:
        """The next move when the human has no real choice: a forced move (anyone's) or an agent's."""
        state = self.state
        action = self.game.forced_action(state)
        if action < 0:
            seat = state.current
            action = self.agents[seat].act(SeatView(state, seat, self.observer, self.game), self.agent_rngs[seat])
        return action

    def apply(self, action: int) -> list[str]:
        """Apply a legal action of the seat to act; what happened, one line per event. When it ends a
        hand of a match (R9), :attr:`ended_hand` is that hand as it ended, before the next was dealt
        (for :meth:`revealed_text`); else None."""
        ending = self.narrator.ended_hand
        ended = ending(self.state, action, copy.deepcopy(self.rng)) if ending is not None else None
        lines = self.narrator.apply_and_describe(self.state, action, self.rng, self.names)
        self.ended_hand = ended if not self.state.over else None  # the game's own end: revealed_text()
        return lines

    def text(self) -> str:
        """The public table as text."""
        return self.game.render(self.state, self.names)

    def choice_text(self, action: int) -> str:
        return self.narrator.choice_text(self.state, action)

    def move_word(self, action: int) -> str:
        """The word the menu shows for a legal ``action``: what to type for it."""
        return self.narrator.words(self.state, action)[0]

    def read_move(self, text: str) -> int:
        """The legal action ``text`` names, as a person types it (``draw``, ``K 3``, ``3``; ``#4`` for
        action 4 of R13 or R14); a ValueError saying why not otherwise."""
        legal = self.legal_actions()
        words = text.strip().lower().split()
        if len(words) == 1 and words[0].startswith(ACTION_NUMBER) and words[0][1:].isdigit():
            number = int(words[0][1:])
            if number in legal:
                return number
            raise ValueError(f"{words[0]} is not a legal move now")
        prefixes = [word.lower() for word in self.narrator.prefixes(self.state)]
        if len(words) == 2 and words[0] in prefixes:
            words = words[1:]
        named = {word.lower(): action for action in legal for word in self.narrator.words(self.state, action)}
        if len(words) == 1 and words[0] in named:
            return named[words[0]]
        if not words:
            raise ValueError("enter a move")
        misnamed = self.narrator.misnamed(self.state, words[0]) if len(words) == 2 and self.narrator.misnamed else None
        if misnamed:
            raise ValueError(misnamed)
        every = {
            word.lower()
            for action in range(self.game.num_actions)
            for word in (self.narrator.words(self.state, action) if action not in legal else ())
        }
        if len(words) == 1 and words[0] in every:
            raise ValueError(f"{words[0]} is not a legal move now")
        raise ValueError(f"{text.strip()!r} is not a move")

    def revealed_text(self, state: Any = None) -> str:
        """The table with every hidden card shown, as the end of a hand lays it open: the game's state
        once it is over, or a hand of a match that ended (:attr:`ended_hand`)."""
        return self.narrator.reveal(self.state if state is None else state, self.names)

    def result_text(self) -> str:
        return self.narrator.result_text(self.state, self.names, self.human)


# --------------------------------------------------------------------------
# The terminal
