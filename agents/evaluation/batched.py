"""Evaluation games on the batched engines (exact mode): the same games as the rules cores play, many
at once.

A pair of agents that a game's batched engine can play (its descriptor's ``engine``) is played here
when Numba is installed: Trash on :mod:`trash_env.trash.batched` (``random``, ``greedy`` and
``counter`` inside the engine), Help Your Neighbor on :mod:`trash_env.neighbor.batched` (``random``,
``heuristic``, ``roller`` and, for two players, ``optimal`` inside it); learned policies (which
decide many positions at once with ``act_batch``) outside it, on either. Every game gets the same
seatings and deals as on the scalar path (decks and reshuffles for Trash; for Help Your Neighbor the
dice, which the engine rolls from the deal's generator exactly as the core does), and every seat the
same keyed stream of draws
(:mod:`agents.evaluation.seatings`): the engine's ``random`` computes its draws from the seat's Philox
key in compiled code (``reset(draw_keys=...)``), exactly as ``RandomAgent`` draws from a NumPy
generator over that key, and an agent asked in batches gets generators over those keys. So the
games are identical whichever engine plays them (tested game by game).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from agents.base import Agent
from agents.evaluation.seatings import GameResult, agent_generator, deal_plan, deal_seed, draw_keys, stream_of
from agents.registry import engine_policy
from trash_env.engine_host import checked_engine_actions
from trash_env.games import game_of
from trash_env.jit import HAVE_NUMBA

BATCH_CHUNK = 4096  # games per batched-engine call


def batched_eligible(config: Any, pair: tuple[str, str], agents: dict[str, Agent]) -> bool:
    """Whether ``config``'s game's batched engine can play ``pair``: Numba installed, the game with an
    engine and the configuration within its limits, and each agent an in-engine baseline or one that
    decides in batches."""
    game = game_of(config)
    if game.engine is None or not HAVE_NUMBA or not game.engine.fits(config):
        return False
    return all(engine_policy(agents[spec], game.name) or agents[spec].batchable for spec in pair)


class LazyGenerators(Sequence):
    """The generators of the seats asked in a batch, each made when an agent first reads it: an agent
    that decides without randomness (a learned policy's argmax) costs no generator at all."""

    def __init__(self, games: list[int], seats: list[int], make: Callable[[int, int], np.random.Generator]) -> None:
        self.games, self.seats, self.make = games, seats, make

    def __len__(self) -> int:
        return len(self.games)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self.make(self.games[index], self.seats[index])


def play_deals_batched(
    config: Any, pair: tuple[str, str], deals: Sequence[int], seed: int, duplicate: bool, agents: dict[str, Agent]
) -> list[GameResult]:
    """:func:`play_deals` on the batched engine of ``config``'s game: the same games (seatings, each
    game's deal seed, every seat's keyed draws); the engine's baselines play inside it, the other
    agents are asked in batches (``act_batch``) with generators over the keys :func:`play_deals`
    gives them, so the games are the same."""
    game = game_of(config)
    engine = game.engine
    plan = deal_plan(pair, config.num_players)
    games = [(deal, seating) for deal in deals for seating in plan]
    inside_of = {spec: engine_policy(agents[spec], game.name) for spec in pair}
    inside_agents = {name: agents[spec] for spec, name in inside_of.items() if name is not None}
    outside = [spec for spec in dict.fromkeys(pair) if inside_of[spec] is None]
    inside_by_rotation = [[inside_of[spec] for spec in seating.seats] for seating in plan]
    who_by_rotation = np.array([[outside.index(s) if s in outside else -1 for s in seating.seats] for seating in plan])
    results = []
    for start in range(0, len(games), BATCH_CHUNK):
        chunk = games[start : start + BATCH_CHUNK]
        chunk_rotations = np.array([seating.rotation for _, seating in chunk])
        inside = [inside_by_rotation[r] for r in chunk_rotations.tolist()]
        batch = engine.exact_batch(config, len(chunk), inside, inside_agents)
        who = who_by_rotation[chunk_rotations]
        streams = [stream_of(seating, duplicate) for _, seating in chunk]
        keys = draw_keys(seed, [deal for deal, _ in chunk], streams, config.num_players)  # [games, seats, 2]
        generators: dict[tuple[int, int], np.random.Generator] = {}  # per (game, seat), made when first asked

        def generator(b: int, seat: int, keys: np.ndarray = keys, generators: dict = generators) -> np.random.Generator:
            if (b, seat) not in generators:
                generators[(b, seat)] = agent_generator(keys[b][seat])
            return generators[(b, seat)]

        seeds = [
            deal_seed(seed, deal, seating.rotation if duplicate else seating.canonical, duplicate)
            for deal, seating in chunk
        ]
        batch.reset(seeds, draw_keys=keys)
        while len(waiting := np.flatnonzero(batch.status > 0)):  # games whose acting seat is asked
            actions = np.full(len(chunk), -1, np.int64)
            asked = who[waiting, batch.seats[waiting]]
            for index, spec in enumerate(outside):
                rows = waiting[asked == index]
                if not len(rows):
                    continue
                rngs = LazyGenerators(rows.tolist(), batch.seats[rows].tolist(), generator)
                chosen = agents[spec].act_batch(batch.obs[rows], batch.masks[rows], rngs)
                actions[rows] = checked_engine_actions(chosen, batch.masks, rows, spec)
            batch.step(actions)
        rewards = batch.rewards
        for b, (deal, seating) in enumerate(chunk):
            turns, truncated = batch.turns_and_truncation(b)
            results.append(
                GameResult(pair, deal, seating.rotation, seating.seats, tuple(rewards[b].tolist()), turns, truncated)
            )
    return results
