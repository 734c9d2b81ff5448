"""Playing evaluation games: duplicate or independent deals, on one or more processes.

A *deal* is a shuffled deck plus the seed of every later random event
(reshuffles, R7; later hands of a match, R9); in Help Your Neighbor (R12) it is
the seed of the dice, rolled in order whoever rolls them. With **duplicate deals** each deal
is played once for every rotation of the lineup over the seats, so every agent
gets every seat's cards and the luck of the deal cancels in the comparison.
With **independent deals** the same number of games is played, each rotation
on its own deck: the classic way, kept for comparison.

Every random number comes from the evaluation seed, so the same seed gives the
same games whatever the number of worker processes.

Engines. A pair of Trash agents that the batched engine can play (``greedy``
and ``counter`` inside it; ``random`` and learned policies, which decide many
positions at once with ``act_batch``, outside it) is played on the batched
engine (:mod:`trash_env.batched`, exact mode) when Numba is installed: the same
decks and reshuffles as the scalar path, and every agent draws from the same
generator as there, so the games are identical whichever engine plays them
(tested), and a pair's games never depend on the other agents of the
tournament. Other pairs (``search``, Help Your Neighbor) are played on the
rules core, on ``workers`` processes.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import Agent, SeatView
from agents.registry import make_agent
from trash_env.cli import worker_setup
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


def _deal_seed(seed: int, deal: int, rotation: int, duplicate: bool) -> list[int]:
    return [seed, deal] if duplicate else [seed, deal, rotation + 1]


def _agent_seed(seed: int, deal: int, rotation: int, seat: int, num_players: int) -> list[int]:
    """The seed of the generator of the agent in ``seat``: each lineup position keeps its random
    stream across rotations (common random numbers)."""
    return [seed, deal, (seat + rotation) % num_players, 7]


def _games(
    config: Any, pair: tuple[str, str], deals: Sequence[int], seed: int, duplicate: bool
) -> Iterator[tuple[int, int, list[str], list[int], list[np.random.Generator]]]:
    """Every game of ``pair`` on ``deals``: (deal, rotation, the spec in each seat, the deal's seed,
    the agents' generators)."""
    n = config.num_players
    base = lineup(pair, n)
    for number in deals:
        for rotation in range(n):
            deal_seed = _deal_seed(seed, number, rotation, duplicate)
            agent_rngs = [np.random.default_rng(_agent_seed(seed, number, rotation, seat, n)) for seat in range(n)]
            yield number, rotation, base[rotation:] + base[:rotation], deal_seed, agent_rngs


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
    for number, rotation, seats, deal_seed, agent_rngs in _games(config, pair, deals, seed, duplicate):
        rng, deal = _dealt(config, deal_seed)
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
    if game.name == "trash":
        record = records.make_record(config, deal_seed, list(deal), False, actions, state)
    else:
        record = records.make_neighbor_record(config, deal_seed, [], state, actions)
    record["players"] = list(names)
    record["probabilities"] = [
        None if p is None else {str(a): round(v, 6) for a, v in p.items()} for _, _, p in log
    ]
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
    for number, rotation, seats, deal_seed, agent_rngs in _games(config, pair, deals, seed, duplicate):
        record = record_game(config, [agents[spec] for spec in seats], deal_seed, agent_rngs, seats, observer)
        record["evaluation"] = {"pairing": list(pair), "deal": number, "rotation": rotation, "seed": seed}
        out.append(record)
    return out


VECTORISABLE = ("random", "greedy", "counter")  # the engine's own baselines (training opponents, TrashVecEnv)
BATCH_CHUNK = 4096  # games per batched-engine call


def engine_policy(agent: Agent) -> str | None:
    """The batched engine's name for an agent it plays inside itself, choosing exactly as the agent
    does (the deterministic baselines), else None. ``random`` is asked outside, with its own generator."""
    from agents.baselines import CountingAgent, GreedyAgent

    return {GreedyAgent: "greedy", CountingAgent: "counter"}.get(type(agent))


def batched_eligible(config: Any, pair: tuple[str, str], agents: dict[str, Agent]) -> bool:
    """Whether the batched engine can play ``pair``: Trash within the engine's limits, Numba
    installed, and each agent an in-engine baseline or one that decides in batches."""
    from trash_env import batched

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
    from trash_env.batched import TRUNC, TURN, TrashBatch

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
                generators[key] = np.random.default_rng(_agent_seed(seed, deal, rotation, seat, n))
            return generators[key]

        batch.reset([_deal_seed(seed, deal, rotation, duplicate) for deal, rotation in chunk])
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

    The same seed gives the same results for any number of workers: each deal's
    randomness depends only on (seed, deal, rotation), and results are sorted.
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
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if seed < 0:
        raise ValueError(f"seed must be 0 or more, got {seed}")
    game = game_of(config)
    agents = {
        spec: prebuilt[spec] if spec in prebuilt else make_agent(spec, game.name)
        for spec in dict.fromkeys(spec for pair in pairs for spec in pair)
    }
    for agent in agents.values():
        agent.check_config(config)
    on_batch = {pair: engine != "scalar" and batched_eligible(config, pair, agents) for pair in pairs}
    if engine == "batched" and not all(on_batch.values()):
        raise ValueError(
            "the batched engine plays Trash agents that are greedy, counter, random or learned policies "
            "(within its limits), and needs Numba (the batched extra)"
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
    chunk = max(1, BATCH_CHUNK // config.num_players)
    for pair in [pair for pair in pairs if on_batch[pair]]:
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
