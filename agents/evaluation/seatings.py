"""One evaluation game and where its randomness comes from: what every engine of the evaluation shares.

A pair's games on a deal are fixed by the evaluation seed, the deal's number and who sits where,
never by the order the pair was named in, so naming ``B A`` plays exactly the games of ``A B``
seen from the other side (mirrors: the score difference changes sign exactly, tested).

- **The seatings** (:func:`deal_plan`). The two agents alternate seats (A, B, A, ...,
  :func:`lineup`) and every rotation of that lineup is played. With an even number of seats the
  rotations hold both alternations (A, B, ... and B, A, ...); with an odd number they hold only
  those where A has the extra seat, so the rotations of B, A, B, ... are played too (2n games a
  deal, each agent as often in every seat; a pair of one agent twice has n). Rotation ``r`` of
  ``(B, A)`` is then rotation ``r`` of ``(A, B)`` with the agents' seats swapped.
- **The deal** (:func:`deal_seed`): with duplicate deals one generator per deal, seeded by
  (seed, deal), deals every game of it (the deck and every later reshuffle for Trash, R3, R7, R9;
  the dice for Help Your Neighbor, R12). With independent deals each game has its own, seeded by
  (seed, deal, rotation + 1), the rotation counted in the pair's canonical order (its names
  sorted) so that a game and its mirror share it.
- **The agents' draws** (:func:`draw_keys`): the agent in a seat draws from a counter-based stream,
  Philox4x64-10 (:mod:`trash_env.counter_rng`) keyed by (seed, deal, seat, stream): the stream
  number tells apart the games of a deal with the same seating (a seating comes back every two
  rotations with four or more seats), and with independent deals it is the canonical rotation, as
  the deal is. Which agent sits there does not enter the key: a seat's draws are common to every
  agent that holds it on the deal, in every pairing (common random numbers). The scalar path hands
  each agent ``numpy.random.Generator(numpy.random.Philox(key))`` (:func:`agent_generator`); the
  batched engine computes the same draws inside its compiled loops (``random`` there) or hands
  agents asked in batches generators of the same keys, so both play the same games.

:func:`play_game` plays one game on its rules core.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import Agent, SeatView
from trash_env.counter_rng import keyed_generator
from trash_env.games import Game, game_of


@dataclass(frozen=True)
class GameResult:
    """One evaluation game: which agent sat where and what each seat got (R10)."""

    pairing: tuple[str, str]  # the two agents compared (head-to-head), as given
    deal: int
    rotation: int  # the game's number in the deal (:func:`deal_plan`): 0..n-1, or 0..2n-1 with an odd n
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
    """The seed of a game's own generator (its deal, R3, R7, R9, R12): (seed, deal) for every game
    of a duplicate deal; with independent deals also ``rotation``, counted in the pair's canonical
    order (:attr:`Seating.canonical`) so that a game and its mirror share it."""
    return [seed, deal] if duplicate else [seed, deal, rotation + 1]


@dataclass(frozen=True)
class Seating:
    """One game of a pair on every deal: who sits where, and what keys its randomness."""

    rotation: int  # the game's number in the deal, in the pair's order as named
    seats: tuple[str, ...]  # the agent spec in each seat
    stream: int  # how many earlier games of the deal had these seats: tells their draws apart
    canonical: int  # the same game's number for the pair with its names sorted (independent deals)


@functools.lru_cache(maxsize=256)
def deal_plan(pair: tuple[str, str], num_players: int) -> tuple[Seating, ...]:
    """The games of ``pair`` on one deal, in order: every rotation of the lineup A, B, A, ...
    (:func:`lineup`), then, with an odd number of seats and two different agents, every rotation of
    B, A, B, ... (which an odd lineup's rotations never reach). The plans of ``(A, B)`` and
    ``(B, A)`` hold the same games; at the same rotation their seats are swapped."""
    n = num_players
    bases = [lineup(pair, n)]
    if n % 2 and pair[0] != pair[1]:
        bases.append(lineup((pair[1], pair[0]), n))
    seatings = [tuple(base[r:] + base[:r]) for base in bases for r in range(n)]
    streams = [seatings[:rotation].count(seats) for rotation, seats in enumerate(seatings)]
    ordered = tuple(sorted(pair))
    if ordered == pair:
        canonical = list(range(len(seatings)))
    else:
        plan = deal_plan(ordered, n)  # the same games, in the sorted pair's order
        canonical = [next(g.rotation for g in plan if (g.seats, g.stream) == game) for game in zip(seatings, streams)]
    return tuple(Seating(r, seats, streams[r], canonical[r]) for r, seats in enumerate(seatings))


def games_per_deal(pair: tuple[str, str], num_players: int) -> int:
    """How many games :func:`deal_plan` plays on each deal: n, or 2n with an odd number n of seats
    and two different agents."""
    return len(deal_plan(tuple(pair), num_players))


SEED_LIMIT, DEAL_LIMIT = 2**64, 2**56  # what fits the words of a draw key


def draw_keys(seed: int, deals: Any, streams: Any, num_players: int) -> np.ndarray:
    """The Philox keys (:mod:`trash_env.counter_rng`) of every seat's draws in games of ``deals``
    with stream numbers ``streams`` (equal-length sequences, one entry per game), as a
    [games, num_players, 2] uint64 array: the evaluation seed as one word; deal, stream (below 32)
    and seat (below 8) packed in the other, ``deal << 8 | stream << 3 | seat``."""
    if not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"seed must be 0 or more and below 2**64, got {seed}")
    deals, streams = np.asarray(deals, dtype=np.int64), np.asarray(streams, dtype=np.int64)
    if len(deals) and not (deals.min() >= 0 and deals.max() < DEAL_LIMIT):
        raise ValueError(f"deal numbers go from 0 up to 2**56, got {deals.min()}..{deals.max()}")
    if num_players > 8 or (len(streams) and not (streams.min() >= 0 and streams.max() < 32)):
        raise ValueError("a draw key packs up to 8 seats and 32 games of a deal")  # both games seat at most 8
    deals, streams, seats = deals.astype(np.uint64), streams.astype(np.uint64), np.arange(num_players, dtype=np.uint64)
    keys = np.empty((len(deals), num_players, 2), np.uint64)
    keys[:, :, 0] = np.uint64(seed)
    keys[:, :, 1] = deals[:, None] << np.uint64(8) | streams[:, None] << np.uint64(3) | seats[None, :]
    return keys


def stream_of(seating: Seating, duplicate: bool) -> int:
    """The stream number in a game's draw keys: the seating's own on a duplicate deal, the
    canonical rotation (as the deal is) with independent deals."""
    return seating.stream if duplicate else seating.canonical


def game_keys(seed: int, deal: int, seating: Seating, duplicate: bool) -> np.ndarray:
    """Every seat's draw key in one game ([num_players, 2], :func:`draw_keys`)."""
    return draw_keys(seed, [deal], [stream_of(seating, duplicate)], len(seating.seats))[0]


def agent_generator(key: Any) -> np.random.Generator:
    """The generator an agent draws from in the seat of ``key``: Philox4x64-10 over that key, whose
    k-th ``random()`` the batched engine computes too (:func:`trash_env.counter_rng.philox_random`)."""
    return keyed_generator(key)
