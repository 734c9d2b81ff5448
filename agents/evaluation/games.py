"""One evaluation game and where its randomness comes from: what every engine of the evaluation shares.

A game of a duplicate-deal evaluation is fixed by the evaluation seed, the deal's number, the
rotation of the lineup and the seat: :func:`deal_seed` seeds the deal (the deck and every later
reshuffle for Trash, R3, R7, R9; the dice for Help Your Neighbor, R12) and :func:`agent_seed` the
generator of each agent. :func:`play_game` plays one game on its rules core.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import Agent, SeatView
from trash_env.games import Game, game_of


@dataclass(frozen=True)
class GameResult:
    """One evaluation game: which agent sat where and what each seat got (R10)."""

    pairing: tuple[str, str]  # the two agents compared (head-to-head), as given
    deal: int
    rotation: int
    seats: tuple[str, ...]  # the agent spec in each seat
    rewards: tuple[float, ...]
    turns: int
    truncated: bool


def lineup(pair: tuple[str, str], num_players: int) -> list[str]:
    """Seats alternate between the two agents: A, B, A, B, ..."""
    return [pair[seat % 2] for seat in range(num_players)]


def play_game(
    config: Any,
    agents: Sequence[Agent],
    rng: np.random.Generator,
    agent_rngs: Sequence[np.random.Generator],
    deal: Any = None,
    observer: Any = None,
    log: list[tuple[int, bool, dict[int, float] | None]] | None = None,
) -> Any:
    """Play one game on its rules core (Trash or Help Your Neighbor, by ``config``);
    ``agents[seat]`` is asked at each real choice (R13, R14). ``deal`` is a deck
    for Trash, stacked dice for Help Your Neighbor, or None. ``log``, if given, gets every action
    in order as (action, forced, the agent's action probabilities or None)."""
    game: Game = game_of(config)
    observer = observer or game.make_observer(config)
    state = game.new_game(config, rng, deal)
    forced: list[int] | None = [] if log is not None else None
    game.play_forced(state, rng, forced)
    while not state.over:
        if log is not None:
            log += [(action, True, None) for action in forced]
            forced.clear()
        seat = state.current
        view = SeatView(state, seat, observer, game)
        action = agents[seat].act(view, agent_rngs[seat])
        if log is not None:
            log.append((action, False, agents[seat].action_probabilities(view)))
        game.apply_action(state, action, rng)  # an illegal action is an error, never replaced
        game.play_forced(state, rng, forced)
    if log is not None:
        log += [(action, True, None) for action in forced]
    return state


def deal_seed(seed: int, deal: int, rotation: int, duplicate: bool) -> list[int]:
    return [seed, deal] if duplicate else [seed, deal, rotation + 1]


def agent_seed(seed: int, deal: int, rotation: int, seat: int, num_players: int) -> list[int]:
    """The seed of the generator of the agent in ``seat``: each lineup position keeps its random
    stream across rotations (common random numbers)."""
    return [seed, deal, (seat + rotation) % num_players, 7]
