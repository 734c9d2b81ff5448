"""Evaluation games on the batched engine (:mod:`trash_env.trash.batched`, exact mode): the same
games as the rules core plays, many at once.

A pair of Trash agents that the batched engine can play (``greedy`` and ``counter`` inside it;
``random`` and learned policies, which decide many positions at once with ``act_batch``, outside it)
is played here when Numba is installed: the same decks and reshuffles as the scalar path, and every
agent draws from the same generator as there (:mod:`agents.evaluation.games`), so the games are
identical whichever engine plays them (tested).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from agents.base import Agent
from agents.baselines import CountingAgent, GreedyAgent
from agents.evaluation.games import GameResult, agent_seed, deal_seed, lineup
from trash_env.games import game_of
from trash_env.trash import batched
from trash_env.trash.batched import TRUNC, TURN, TrashBatch

VECTORISABLE = ("random", "greedy", "counter")  # the engine's own baselines (training opponents, TrashVecEnv)


BATCH_CHUNK = 4096  # games per batched-engine call


def engine_policy(agent: Agent) -> str | None:
    """The batched engine's name for an agent it plays inside itself, choosing exactly as the agent
    does (the deterministic baselines), else None. ``random`` is asked outside, with its own generator."""
    return {GreedyAgent: "greedy", CountingAgent: "counter"}.get(type(agent))


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
    """:func:`play_deals` on the batched engine: the same deals (decks and reshuffle seeds), every
    rotation; ``greedy`` and ``counter`` play inside the engine, the other agents are asked in
    batches (``act_batch``) with the generators :func:`play_deals` gives them, so the games are the same."""
    n = config.num_players
    base = lineup(pair, n)
    games = [(deal, rotation) for deal in deals for rotation in range(n)]
    inside_of = {spec: engine_policy(agents[spec]) for spec in pair}
    outside = [spec for spec in dict.fromkeys(pair) if inside_of[spec] is None]
    rotations = [base[rotation:] + base[:rotation] for rotation in range(n)]
    inside_by_rotation = [[inside_of[spec] for spec in seats] for seats in rotations]
    who_by_rotation = np.array([[outside.index(s) if s in outside else -1 for s in seats] for seats in rotations])
    results = []
    for start in range(0, len(games), BATCH_CHUNK):
        chunk = games[start : start + BATCH_CHUNK]
        chunk_rotations = np.array([rotation for _, rotation in chunk])
        lineups = [rotations[rotation] for rotation in chunk_rotations.tolist()]
        batch = TrashBatch(
            config, len(chunk), exact=True, policies=[inside_by_rotation[r] for r in chunk_rotations.tolist()]
        )
        who = who_by_rotation[chunk_rotations]
        generators: dict[tuple[int, int], np.random.Generator] = {}  # per (game, seat), made when first asked

        def generator(b: int, seat: int, chunk: list = chunk, generators: dict = generators) -> np.random.Generator:
            key = (b, seat)
            if key not in generators:
                deal, rotation = chunk[b]
                generators[key] = np.random.default_rng(agent_seed(seed, deal, rotation, seat, n))
            return generators[key]

        batch.reset([deal_seed(seed, deal, rotation, duplicate) for deal, rotation in chunk])
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
        for b, ((deal, rotation), seats) in enumerate(zip(chunk, lineups)):
            results.append(
                GameResult(
                    pair,
                    deal,
                    rotation,
                    tuple(seats),
                    tuple(rewards[b].tolist()),
                    int(state[b, TURN]),
                    bool(state[b, TRUNC]),
                )
            )
    return results
