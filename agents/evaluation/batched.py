"""Evaluation games on the batched engine (:mod:`trash_env.trash.batched`, exact mode): the same
games as the rules core plays, many at once.

A pair of Trash agents that the batched engine can play is played here when Numba is installed:
``random``, ``greedy`` and ``counter`` inside the engine, learned policies (which decide many
positions at once with ``act_batch``) outside it. Every game gets the same seatings, decks and
reshuffles as on the scalar path, and every seat the same keyed stream of draws
(:mod:`agents.evaluation.games`): the engine's ``random`` computes its draws from the seat's Philox
key in compiled code (``TrashBatch.reset(draw_keys=...)``), exactly as ``RandomAgent`` draws from a
NumPy generator over that key, and an agent asked in batches gets generators over those keys. So
the games are identical whichever engine plays them (tested game by game).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from agents.base import Agent
from agents.baselines import CountingAgent, GreedyAgent, RandomAgent
from agents.evaluation.games import GameResult, agent_generator, deal_plan, deal_seed, draw_keys, stream_of
from trash_env.games import game_of
from trash_env.trash import batched
from trash_env.trash.batched import TRUNC, TURN, TrashBatch

VECTORISABLE = ("random", "greedy", "counter")  # the engine's own baselines (training opponents, TrashVecEnv)


BATCH_CHUNK = 4096  # games per batched-engine call


def engine_policy(agent: Agent) -> str | None:
    """The batched engine's name for an agent it plays inside itself, choosing exactly as the agent
    does (exact mode's ``random`` draws as ``RandomAgent`` from the seat's keyed stream), else None."""
    return {RandomAgent: "random", GreedyAgent: "greedy", CountingAgent: "counter"}.get(type(agent))


def batched_eligible(config: Any, pair: tuple[str, str], agents: dict[str, Agent]) -> bool:
    """Whether the batched engine can play ``pair``: Trash within the engine's limits, Numba
    installed, and each agent an in-engine baseline or one that decides in batches."""
    return (
        batched.HAVE_NUMBA
        and game_of(config).name == "trash"
        and config.deck_size <= batched.MAX_DECK
        and config.max_turns <= np.iinfo(np.int16).max
        and all(engine_policy(agents[spec]) or agents[spec].batchable for spec in pair)
    )


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
    """:func:`play_deals` on the batched engine: the same games (seatings, decks and reshuffle seeds,
    every seat's keyed draws); ``random``, ``greedy`` and ``counter`` play inside the engine, the
    other agents are asked in batches (``act_batch``) with generators over the keys :func:`play_deals`
    gives them, so the games are the same."""
    plan = deal_plan(pair, config.num_players)
    games = [(deal, seating) for deal in deals for seating in plan]
    inside_of = {spec: engine_policy(agents[spec]) for spec in pair}
    outside = [spec for spec in dict.fromkeys(pair) if inside_of[spec] is None]
    inside_by_rotation = [[inside_of[spec] for spec in seating.seats] for seating in plan]
    who_by_rotation = np.array([[outside.index(s) if s in outside else -1 for s in seating.seats] for seating in plan])
    results = []
    for start in range(0, len(games), BATCH_CHUNK):
        chunk = games[start : start + BATCH_CHUNK]
        chunk_rotations = np.array([seating.rotation for _, seating in chunk])
        batch = TrashBatch(
            config, len(chunk), exact=True, policies=[inside_by_rotation[r] for r in chunk_rotations.tolist()]
        )
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
                actions[rows] = agents[spec].act_batch(batch.obs[rows], batch.masks[rows], rngs)
            batch.step(actions)
        state, rewards = batch.state, batch.rewards
        for b, (deal, seating) in enumerate(chunk):
            results.append(
                GameResult(
                    pair,
                    deal,
                    seating.rotation,
                    seating.seats,
                    tuple(rewards[b].tolist()),
                    int(state[b, TURN]),
                    bool(state[b, TRUNC]),
                )
            )
    return results
