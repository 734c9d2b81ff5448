"""Playing evaluation games: duplicate or independent deals, on one or more processes.

A *deal* is a shuffled deck plus the seed of every later random event
(reshuffles, R7; later hands of a match, R9); in Help Your Neighbor (R12) it is
the seed of the dice, rolled in order whoever rolls them. With **duplicate deals** each deal
is played once for every seating of the pair (every rotation of the lineup over the seats, and
with an odd number of seats those of the other alternation too, :func:`~agents.evaluation.seatings.deal_plan`),
so every agent gets every seat's cards and the luck of the deal cancels in the comparison.
With **independent deals** the same number of games is played, each on its own deck: the
classic way, kept for comparison.

Every random number comes from the evaluation seed, the deal and the seat
(:mod:`agents.evaluation.seatings`): the same seed gives the same games whatever the number of
worker processes, and whichever order a pair is named in (``B A`` plays the mirrors of ``A B``'s
games).

Engines. A pair that a batched engine can play is played on it when Numba is installed: in Trash
(:mod:`trash_env.trash.batched`, exact mode) ``random``, ``greedy`` and ``counter`` inside the
engine; in Help Your Neighbor (:mod:`trash_env.neighbor.batched`) ``random``, ``heuristic``,
``roller`` and, with two players, ``optimal`` inside it; in both games learned policies, which
decide many positions at once with ``act_batch``, outside it. The deals (decks and reshuffles, or
dice) are the scalar path's, and every agent draws from the same keyed stream as there, so the
games are identical whichever engine plays them (tested), and a pair's games never depend on the
other agents of the tournament. Other pairs (``search``, agents without ``act_batch``) are played
on the rules core, on ``workers`` processes.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from agents.base import Agent
from agents.evaluation.batched import BATCH_CHUNK, batched_eligible, play_deals_batched
from agents.evaluation.seatings import (
    SEED_LIMIT,
    GameResult,
    agent_generator,
    deal_plan,
    deal_seed,
    game_keys,
    games_per_deal,
    play_game,
)
from agents.processes import worker_setup
from agents.registry import make_agent
from trash_env.games import game_of

MAX_DEALS = 10_000_000  # per pair: every game's result is kept in memory (a few GiB at this size)


def _games(
    config: Any, pair: tuple[str, str], deals: Sequence[int], seed: int, duplicate: bool
) -> Iterator[tuple[int, int, list[str], list[int], list[np.random.Generator]]]:
    """Every game of ``pair`` on ``deals`` (:func:`deal_plan`): (deal, rotation, the spec in each
    seat, the deal's seed, the agents' generators, keyed by deal and seat)."""
    for number in deals:
        for seating in deal_plan(pair, config.num_players):
            agent_rngs = [agent_generator(key) for key in game_keys(seed, number, seating, duplicate)]
            seeded_by = deal_seed(seed, number, seating.rotation if duplicate else seating.canonical, duplicate)
            yield number, seating.rotation, list(seating.seats), seeded_by, agent_rngs


def _dealt(config: Any, deal_seed: int | list[int]) -> tuple[np.random.Generator, Any]:
    """A game's generator, seeded by ``deal_seed``, and the deal drawn from it first (a deck for
    Trash, R3; nothing for Help Your Neighbor, whose dice come from the generator as it goes)."""
    rng = np.random.default_rng(deal_seed)
    return rng, game_of(config).new_deal(config, rng)


def _make_agents(config: Any, pair: tuple[str, str], prebuilt: dict[str, Agent] | None) -> dict[str, Agent]:
    prebuilt = prebuilt or {}
    name = game_of(config).name
    agents = {spec: prebuilt[spec] if spec in prebuilt else make_agent(spec, name) for spec in pair}
    for agent in agents.values():
        agent.check_config(config)
    return agents


def play_deals(
    config: Any,
    pair: tuple[str, str],
    deals: Sequence[int],
    seed: int,
    duplicate: bool,
    prebuilt: dict[str, Agent] | None = None,
) -> list[GameResult]:
    """Every rotation of ``pair``'s lineup on each deal in ``deals``. Agents are made
    from their specs, except those given in ``prebuilt`` (spec -> agent)."""
    game = game_of(config)
    agents = _make_agents(config, pair, prebuilt)
    observer = game.make_observer(config)
    results = []
    for number, rotation, seats, seeded_by, agent_rngs in _games(config, pair, deals, seed, duplicate):
        rng, deal = _dealt(config, seeded_by)
        state = play_game(config, [agents[spec] for spec in seats], rng, agent_rngs, deal, observer)
        results.append(
            GameResult(pair, number, rotation, tuple(seats), tuple(game.returns(state)), state.turn, state.truncated)
        )
    return results


def record_game(
    config: Any,
    agents: Sequence[Agent],
    deal_seed: int | list[int],
    agent_rngs: Sequence[np.random.Generator],
    names: Sequence[str],
    observer: Any = None,
) -> dict[str, Any]:
    """Play one game seeded by ``deal_seed`` on the rules core, as the evaluation does
    (``agents[seat]`` in each seat), and return its record (:mod:`trash_env.records`). The record
    also names the agent in each seat (``players``: ``names``, their specs) and holds each decision's action
    probabilities where the agent has them (``probabilities``: learned policies), for replays
    (:mod:`trash_env.rendering.media`)."""
    from trash_env import records

    game = game_of(config)
    rng, deal = _dealt(config, deal_seed)
    log: list[tuple[int, bool, dict[int, float] | None]] = []
    state = play_game(config, agents, rng, agent_rngs, deal, observer, log)
    actions = [action for action, _, _ in log]
    record = records.make_record(game, config, deal_seed, game.record_deal(state, deal), False, actions, state)
    record["players"] = list(names)
    record["probabilities"] = [None if p is None else {str(a): round(v, 6) for a, v in p.items()} for _, _, p in log]
    return record


def record_deals(
    config: Any,
    pair: tuple[str, str],
    deals: Sequence[int],
    seed: int,
    duplicate: bool = True,
    prebuilt: dict[str, Agent] | None = None,
) -> list[dict[str, Any]]:
    """The records (:func:`record_game`) of the games :func:`play_deals` plays, played again on
    the rules core: the same games whichever engine the evaluation used, each with where it
    stands in the evaluation (``evaluation``: pairing, deal, rotation, seed)."""
    agents = _make_agents(config, pair, prebuilt)
    observer = game_of(config).make_observer(config)
    out = []
    for number, rotation, seats, seeded_by, agent_rngs in _games(config, pair, deals, seed, duplicate):
        record = record_game(config, [agents[spec] for spec in seats], seeded_by, agent_rngs, seats, observer)
        record["evaluation"] = {"pairing": list(pair), "deal": number, "rotation": rotation, "seed": seed}
        out.append(record)
    return out


def round_robin(specs: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair of distinct agents once (a head-to-head is a round robin of two)."""
    if len(set(specs)) != len(specs) or len(specs) < 2:
        raise ValueError(f"a tournament needs at least two distinct agents, got {list(specs)}")
    return list(itertools.combinations(specs, 2))


def run_tournament(
    config: Any,
    specs: Sequence[str],
    deals: int,
    seed: int = 0,
    duplicate: bool = True,
    workers: int = 1,
    on_progress: Callable[[int], None] | None = None,
    engine: str = "auto",
) -> list[GameResult]:
    """All pairings of ``specs`` over ``deals`` deals each, on ``workers`` processes.

    The same seed gives the same results for any number of workers: each game's
    randomness depends only on the seed, the deal and the seats (:mod:`agents.evaluation.seatings`),
    and results are sorted.
    ``on_progress(n)`` is called as batches of n deals finish.
    """
    return run_pairings(config, round_robin(specs), deals, seed, duplicate, workers, on_progress, engine=engine)


def check_pairings(
    config: Any,
    pairs: Sequence[tuple[str, str]],
    deals: int,
    seed: int,
    workers: int,
    prebuilt: dict[str, Agent],
    engine: str,
) -> tuple[dict[str, Agent], dict[tuple[str, str], bool]]:
    """Everything :func:`run_pairings` needs, checked before any game is played: a ValueError naming
    the problem (a count out of range, an unknown agent, a policy file missing, damaged or for
    other rules, an engine that cannot play these agents). Returns the agents by spec and, per pair,
    whether the batched engine plays it."""
    if engine not in ("auto", "scalar", "batched"):
        raise ValueError(f"engine={engine!r} is not one of 'auto', 'scalar', 'batched'")
    if deals < 1:
        raise ValueError(f"deals must be at least 1, got {deals}")
    if deals > MAX_DEALS:
        raise ValueError(f"deals must be at most {MAX_DEALS:,} (each deal's games are kept in memory), got {deals:,}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if not 0 <= seed < SEED_LIMIT:  # the evaluation seed is one word of every draw key
        raise ValueError(f"seed must be 0 or more and below 2**64, got {seed}")
    game = game_of(config)
    agents = {
        spec: prebuilt[spec] if spec in prebuilt else make_agent(spec, game.name)
        for spec in dict.fromkeys(spec for pair in pairs for spec in pair)
    }
    for agent in agents.values():
        agent.check_config(config)
    on_batch = {pair: engine != "scalar" and batched_eligible(config, pair, agents) for pair in pairs}
    if engine == "batched" and not all(on_batch.values()):
        refused = next(pair for pair, batched_ok in on_batch.items() if not batched_ok)
        raise ValueError(
            f"--engine batched cannot play {refused[0]} vs {refused[1]}: the batched engines play Trash's "
            "random, greedy and counter, Help Your Neighbor's random, heuristic, roller and optimal, and "
            "learned policies (within their limits), and need Numba (the batched extra)"
        )
    return agents, on_batch


def run_pairings(
    config: Any,
    pairs: Sequence[tuple[str, str]],
    deals: int,
    seed: int = 0,
    duplicate: bool = True,
    workers: int = 1,
    on_progress: Callable[[int], None] | None = None,
    prebuilt: dict[str, Agent] | None = None,
    engine: str = "auto",
) -> list[GameResult]:
    """Like :func:`run_tournament`, for given pairs (a pair may hold one agent twice);
    ``prebuilt`` maps specs to agent objects to use instead of making them (for
    example a policy being trained). ``engine``: ``"auto"`` plays each pair the batched engine
    can play there (the games are the same either way), ``"scalar"`` always on the core,
    ``"batched"`` insists on the batched engine."""
    prebuilt = prebuilt or {}
    agents, on_batch = check_pairings(config, pairs, deals, seed, workers, prebuilt, engine)
    results: list[GameResult] = []
    for pair in [pair for pair in pairs if on_batch[pair]]:
        chunk = max(1, BATCH_CHUNK // games_per_deal(pair, config.num_players))
        for start in range(0, deals, chunk):
            done = range(start, min(start + chunk, deals))
            results += play_deals_batched(config, pair, done, seed, duplicate, agents)
            if on_progress:
                on_progress(len(done))
    scalar_pairs = [pair for pair in pairs if not on_batch[pair]]
    batch = max(1, min(64, deals // (workers * 8) or 1))
    jobs = [
        (pair, range(start, min(start + batch, deals))) for pair in scalar_pairs for start in range(0, deals, batch)
    ]
    if workers == 1 or not jobs:
        for pair, chunk_deals in jobs:
            results += play_deals(config, pair, chunk_deals, seed, duplicate, agents)
            if on_progress:
                on_progress(len(chunk_deals))
    else:
        pool = ProcessPoolExecutor(max_workers=min(workers, os.cpu_count() or 1), initializer=worker_setup)
        try:
            futures = [pool.submit(play_deals, config, pair, part, seed, duplicate, prebuilt) for pair, part in jobs]
            for future, (_, part) in zip(futures, jobs):
                results += future.result()
                if on_progress:
                    on_progress(len(part))
        except BaseException:  # Ctrl-C or an error: drop the jobs not started rather than wait for them
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
    order = {pair: i for i, pair in enumerate(pairs)}
    results.sort(key=lambda r: (order[r.pairing], r.deal, r.rotation))
    return results
