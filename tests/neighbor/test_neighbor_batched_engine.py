"""The batched Help Your Neighbor engine (:mod:`trash_env.neighbor.batched`) against the rules core
(R12, R14), and the evaluation that plays on it (:mod:`agents.evaluation.batched`).

1. The dice: the engine's PCG64 and bounded integers are NumPy's, bit for bit.
2. Exact mode against the core, game by game on the same dice (the core's generator seeded alike),
   2 to 8 players: after every step the same state, dice generator, acting seat, mask, observation,
   rewards, end and truncation.
3. Fast mode against the core step by step: each game's next state is predicted by the core rolling
   with a NumPy generator at the engine's dice state; every new game is the core's; R14's forced
   first move.
4. The in-engine baselines choose as the agents (``random`` as ``RandomAgent`` on the keyed streams,
   ``heuristic``, ``roller``, ``optimal``): at random positions, and in whole games.
5. The single-agent batch: only the learner is asked, and its steps are the core's.
6. Kernels, seeds and validation; the plain-Python path without Numba.
7. The evaluation on the engine gives the very games of the scalar path (``--engine batched``).
"""

from __future__ import annotations

import json
import textwrap
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from helpers import plain_python_ways, run_python

from agents.baselines import RandomAgent
from agents.commands.evaluate import main as evaluate_main
from agents.evaluation.duplicate import run_pairings
from agents.evaluation.seatings import play_game
from agents.heuristic import NeighborHeuristic, NeighborRoller
from agents.optimal import OptimalAgent
from trash_env import engine_host
from trash_env.counter_rng import keyed_generator
from trash_env.games import NEIGHBOR
from trash_env.neighbor import batched
from trash_env.neighbor import rules as neighbor
from trash_env.neighbor.observation import NeighborObserver
from trash_env.view import SeatView

ROOT = Path(__file__).resolve().parents[2]
# the engine keeps no rolls
COMPARED = [name for name in neighbor.NeighborState.__slots__ if name not in ("dice", "rolls")]


# --------------------------------------------------------------------------
# Helpers


def assert_same_state(expected: neighbor.NeighborState, batch: batched.NeighborBatch, b: int, where: str = "") -> None:
    """Every field of the core's state (but the rolls, which the engine does not keep) is game ``b``'s."""
    actual = batch.game_state(b)
    for name in COMPARED:
        assert getattr(actual, name) == getattr(expected, name), f"{where} game {b}: {name}"


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``masks``."""
    return (rng.random(masks.shape) * masks).argmax(axis=1).astype(np.int64)


@pytest.fixture(scope="module")
def optimal(solved) -> OptimalAgent:
    """The optimal agent with the session's solution (no cache file read)."""
    solution, _ = solved
    agent = OptimalAgent()
    agent._tables = (solution.roll_again(), solution.uncover())
    return agent


# --------------------------------------------------------------------------
# 1. The dice


@pytest.mark.parametrize("seed", [0, 1, 12345, [3, 4], [7, 0, 2], 2**63 - 1])
def test_the_engine_rolls_numpys_dice(seed) -> None:
    """R12 as the core rolls: one ``rng.integers(36)`` per roll from ``default_rng(seed)``. The engine's
    PCG64 gives the same totals, and its generator is then in NumPy's very state."""
    batch = batched.NeighborBatch(neighbor.make_config(), 1, exact=True)
    batch.dice[0] = batched.dice_words(seed)
    rng = np.random.default_rng(seed)
    with batch._wrapping():
        ours = [batched._two_dice(batch.dice, 0) for _ in range(2000)]
    assert ours == [pair // 6 + pair % 6 + 2 for pair in rng.integers(36, size=2000).tolist()]
    assert batch.dice_state(0) == rng.bit_generator.state
    assert Counter(ours)[7] > 250 and set(ours) == set(range(2, 13))


@pytest.mark.parametrize("spare", [0, 2**31, 3 * 2**30, pow(9, -1, 2**30), 2**32 - 1])
def test_lemires_rejection_is_numpys(spare: int) -> None:
    """NumPy's bounded integers reject a 32-bit draw whose scaled low word falls below (2**32 - 36) % 36
    = 4 (0, 2**31 and 3 * 2**30 do; the inverse of 9 lands on 4 and does not): with that draw as the
    generator's spare half, the engine rolls what NumPy rolls."""
    state = np.random.PCG64(99).state
    state["has_uint32"], state["uinteger"] = 1, spare
    rng = np.random.Generator(np.random.PCG64())
    rng.bit_generator.state = state
    batch = batched.NeighborBatch(neighbor.make_config(), 1, exact=True)
    batch.dice[0] = batched.state_words(state)
    with batch._wrapping():
        ours = [batched._two_dice(batch.dice, 0) for _ in range(5)]
    assert ours == [pair // 6 + pair % 6 + 2 for pair in rng.integers(36, size=5).tolist()]
    assert batch.dice_state(0) == rng.bit_generator.state


# --------------------------------------------------------------------------
# 2. Exact mode against the core


def play_both(config: neighbor.NeighborConfig, batch_size: int, seed: int) -> Counter:
    """Play ``batch_size`` games through the engine (exact mode) and the core side by side, on the
    dice of ``default_rng([seed, b])`` and with the same uniformly random choices; compare everything
    after every step."""
    batch = batched.NeighborBatch(config, batch_size, exact=True, parallel=False)
    seeds = [[seed, b] for b in range(batch_size)]
    obs, masks = batch.reset(seeds)
    rngs = [np.random.default_rng(s) for s in seeds]
    states = [neighbor.new_game(config) for _ in seeds]
    for state, rng in zip(states, rngs):
        neighbor.play_forced(state, rng)
    observer = NeighborObserver(config)
    chooser = np.random.default_rng([seed, 99])
    counts: Counter = Counter()
    while True:
        actions = np.full(batch_size, -1, np.int64)
        for b, state in enumerate(states):
            where = f"turn {state.turn}"
            assert_same_state(state, batch, b, where)
            assert batch.dice_state(b) == rngs[b].bit_generator.state, where
            if state.over:
                continue
            legal = neighbor.legal_actions(state)
            assert len(legal) >= 2 and batch.seats[b] == state.current and batch.status[b] == len(legal), where
            np.testing.assert_array_equal(masks[b], neighbor.action_mask(legal), err_msg=where)
            np.testing.assert_array_equal(obs[b], observer.encode(state, state.current), err_msg=where)
            actions[b] = legal[int(chooser.integers(len(legal)))]
            counts["uncover_choices"] += state.phase == neighbor.UNCOVER
        if (actions < 0).all():
            break
        obs, masks, rewards, dones = batch.step(actions)
        for b, state in enumerate(states):
            if actions[b] < 0:
                assert dones[b]  # a finished game keeps its dones and rewards (exact mode)
                continue
            neighbor.apply_action(state, int(actions[b]), rngs[b])
            neighbor.play_forced(state, rngs[b])
            counts["decisions"] += 1
            counts["privileges"] += state.privileged != neighbor.NOBODY  # someone has covered another's roll
            assert bool(dones[b]) == state.over
            if dones[b]:
                assert rewards[b].tolist() == neighbor.returns(state)
                assert bool(batch.truncs[b]) == state.truncated
                counts["truncated"] += state.truncated
                counts["won"] += bool(state.winners)
            else:
                assert not rewards[b].any()
    return counts


@pytest.mark.parametrize("players", range(2, 9))
def test_exact_mode_matches_the_core_game_by_game(players: int) -> None:
    """R12, R14 for 2 to 8 players: 24 whole games on the core's dice with random choices give the same
    states (markers, phase, roll, roller, helper, privilege, turn), dice generator, acting seats, masks,
    observations, rewards and ends after every step; the games reach the privilege and the choice of
    marker after a 7."""
    counts = play_both(neighbor.make_config(num_players=players), 24, seed=players)
    assert counts["won"] == 24 and counts["decisions"] > 500, counts
    assert counts["privileges"] > 200 and counts["uncover_choices"] > 20, counts


@pytest.mark.parametrize("players", [2, 5])
def test_exact_mode_truncates_as_the_core(players: int) -> None:
    """R12 (as R7): with a limit of 12 turns most games are truncated as draws (0 to all), as on the core."""
    counts = play_both(neighbor.make_config(num_players=players, max_turns=12), 32, seed=40 + players)
    assert counts["truncated"] > 16, counts


# --------------------------------------------------------------------------
# 3. Fast mode against the core


def check_new_game(batch: batched.NeighborBatch, b: int, counts: Counter) -> None:
    """A game dealt in fast mode is the core's game on its dice (a generator at the episode's first dice
    state) advanced to its first real choice; or, when the whole game would pass without one (R14),
    the fresh game at the first player's forced first roll."""
    rng = batch.dice_generator(b, start=True)
    expected = neighbor.new_game(batch.config)
    neighbor.play_forced(expected, rng)
    if expected.over:
        assert_same_state(neighbor.new_game(batch.config), batch, b, "first move")
        assert batch.dice_state(b) == batch.dice_generator(b, start=True).bit_generator.state
        assert batch.masks[b].tolist() == neighbor.action_mask([neighbor.ROLL_DICE]).tolist()
        counts["first_moves"] += 1
        return
    assert_same_state(expected, batch, b, "new game")
    assert batch.dice_state(b) == rng.bit_generator.state
    counts["new_games"] += 1


def play_fast(config: neighbor.NeighborConfig, batch_size: int, seed: int, steps: int) -> Counter:
    """Random legal play in fast mode, every seat asked: each step predicted by the core from
    ``game_state(b)`` with a generator at the engine's dice state."""
    batch = batched.NeighborBatch(config, batch_size, seed=seed, parallel=False)
    obs, masks = batch.reset()
    observer = NeighborObserver(config)
    chooser = np.random.default_rng(seed)
    counts: Counter = Counter()
    for b in range(batch_size):
        check_new_game(batch, b, counts)
    for step in range(steps):
        predictions = []
        for b in range(batch_size):
            state = batch.game_state(b)
            legal = neighbor.legal_actions(state)
            where = f"step {step}, game {b}"
            assert batch.seats[b] == state.current, where
            np.testing.assert_array_equal(masks[b], neighbor.action_mask(legal), err_msg=where)
            np.testing.assert_array_equal(obs[b], observer.encode(state, state.current), err_msg=where)
            if len(legal) < 2:  # R14: only the first roll of a game that would pass without a choice
                assert (state.turn, state.current, state.phase) == (0, 0, neighbor.ROLL), where
            rng = batch.dice_generator(b)
            expected = neighbor.clone(state)
            predictions.append((expected, rng))
        actions = random_actions(masks, chooser)
        for b, (expected, rng) in enumerate(predictions):
            neighbor.apply_action(expected, int(actions[b]), rng)
            neighbor.play_forced(expected, rng)
        obs, masks, rewards, dones = batch.step(actions)
        for b, (expected, _) in enumerate(predictions):
            where = f"step {step}, game {b}"
            assert bool(dones[b]) == expected.over, where
            if dones[b]:
                assert rewards[b].tolist() == neighbor.returns(expected), where
                assert bool(batch.truncs[b]) == expected.truncated, where
                counts["ends"] += 1
                counts["truncated"] += expected.truncated
                check_new_game(batch, b, counts)
            else:
                assert not rewards[b].any(), where
                assert_same_state(expected, batch, b, where)
                counts["steps"] += 1
    return counts


@pytest.mark.parametrize("players", [2, 4, 8])
def test_fast_mode_matches_the_core_step_by_step(players: int) -> None:
    """R12, R14 in fast mode: the acting seat, mask and observation are the core's for
    ``game_state(b)``, the next state (or the end, its rewards and truncation) is the core's with the
    engine's dice, and every new game is the core's game on its dice."""
    counts = play_fast(neighbor.make_config(num_players=players), 16, seed=players, steps=150)
    assert counts["ends"] > 5 and counts["steps"] > 1000 and counts["new_games"] > 16, counts


def test_fast_mode_asks_a_forced_first_roll_when_the_game_has_no_choice() -> None:
    """R14 (as R13): with a one-turn limit a game whose first roll is a 7 would pass with no choice at
    all: the engine asks that first roll (a mask of one action), and the step ends the game as a
    draw."""
    counts = play_fast(neighbor.make_config(num_players=3, max_turns=1), 32, seed=5, steps=30)
    assert counts["first_moves"] > 20 and counts["truncated"] == counts["ends"] > 100, counts


# --------------------------------------------------------------------------
# 4. The in-engine baselines


def agent_choice(agent, state: neighbor.NeighborState, observer: NeighborObserver) -> tuple[int, int]:
    """The agent's choice at ``state``, by ``act`` and by ``act_batch`` on the observation."""
    view = SeatView(state, state.current, observer, NEIGHBOR)
    batch_choice = agent.act_batch(view.observation[None], view.action_mask[None], [None])[0]
    return agent.act(view, np.random.default_rng(0)), int(batch_choice)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 4])
def test_in_engine_baselines_choose_as_the_agents(players: int, request: pytest.FixtureRequest) -> None:
    """At the real choices (R14) of random fast-mode positions, the compiled heuristic, roller and (two
    players) optimal pick what NeighborHeuristic, NeighborRoller and OptimalAgent pick, and draw
    nothing; the heuristic's guard (end the turn) and every kind of choice are reached."""
    config = neighbor.make_config(num_players=players)
    agents = {batched.HEURISTIC: NeighborHeuristic(), batched.ROLLER_POLICY: NeighborRoller()}
    tables = None
    if players == 2:
        agents[batched.OPTIMAL] = request.getfixturevalue("optimal")
        tables = agents[batched.OPTIMAL].tables()
    batch = batched.NeighborBatch(config, 64, seed=11, parallel=False, optimal_tables=tables)
    observer = NeighborObserver(config)
    _, masks = batch.reset()
    chooser = np.random.default_rng(3)
    counts: Counter = Counter()
    for _ in range(120):
        for b in range(batch.batch_size):
            state = batch.game_state(b)
            count = int(masks[b].sum())
            for code, agent in agents.items():
                rs, ks = batch.rng_state.copy(), batch.streams.copy()
                mine = batched._policy(batch.state, batch.rules, rs, ks, batch.tables, b, code, masks[b], count)
                assert (mine, mine) == agent_choice(agent, state, observer), (code, state)
                np.testing.assert_array_equal(rs, batch.rng_state)
                counts[(code, mine == neighbor.END_TURN, state.phase)] += 1
        _, masks, _, _ = batch.step(random_actions(masks, chooser))
    assert counts[(batched.HEURISTIC, True, neighbor.CHOOSE)] > 0, counts  # the guard fires
    assert counts[(batched.HEURISTIC, False, neighbor.UNCOVER)] > 50, counts
    if players == 2:
        assert counts[(batched.OPTIMAL, True, neighbor.CHOOSE)] > 0, counts


class CountingDraws:
    """A generator for RandomAgent that counts its ``random()`` draws."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng, self.draws = rng, 0

    def random(self) -> float:
        self.draws += 1
        return self.rng.random()


WHOLE_GAMES = [
    (2, ("heuristic", "random")),
    (2, ("optimal", "roller")),
    (2, ("optimal", "random")),
    (3, ("roller", "random")),
    (5, ("heuristic", "random")),
    (8, ("random", "roller")),
]


@pytest.mark.parametrize(("players", "names"), WHOLE_GAMES, ids=lambda v: str(v))
def test_exact_games_of_in_engine_baselines_are_the_agents_games(
    players: int, names: tuple[str, str], request: pytest.FixtureRequest
) -> None:
    """Whole games with every seat inside the engine (exact mode) end exactly as ``play_game`` with the
    agents on the same dice (``default_rng(seed)``) and, for ``random``, each seat's keyed generator:
    same final state and rewards, and one keyed draw per real decision of a random seat."""
    config = neighbor.make_config(num_players=players)
    agents = {"heuristic": NeighborHeuristic(), "roller": NeighborRoller(), "random": RandomAgent()}
    if "optimal" in names:
        agents["optimal"] = request.getfixturevalue("optimal")
    tables = agents["optimal"].tables() if "optimal" in names else None
    lineups = [[names[(seat + b) % 2] for seat in range(players)] for b in range(16)]
    seeds = [[9, b] for b in range(16)]
    keys = np.random.default_rng(1).integers(0, 2**64, size=(16, players, 2), dtype=np.uint64)
    batch = batched.NeighborBatch(config, 16, exact=True, policies=lineups, optimal_tables=tables)
    batch.reset(seeds, draw_keys=keys)
    assert batch.dones.all()  # nobody is asked: the games are played out inside reset
    draws = 0
    for b, (lineup, seed) in enumerate(zip(lineups, seeds)):
        rngs = [CountingDraws(keyed_generator(keys[b, seat])) for seat in range(players)]
        state = play_game(config, [agents[name] for name in lineup], np.random.default_rng(seed), rngs)
        assert_same_state(state, batch, b)
        assert batch.rewards[b].tolist() == neighbor.returns(state)
        assert batch.streams[b, :players, engine_host.DRAWS].tolist() == [rng.draws for rng in rngs]
        draws += sum(rng.draws for rng in rngs)
    assert (draws > 50) == ("random" in names)


def test_exact_random_needs_its_draw_keys() -> None:
    """Exact mode's random has no stream of its own: without ``draw_keys`` (or with the wrong shape)
    ``reset`` is a ValueError; a batch without random seats needs none."""
    config = neighbor.make_config()
    batch = batched.NeighborBatch(config, 2, exact=True, policies=["random", "heuristic"])
    with pytest.raises(ValueError, match="draw_keys"):
        batch.reset([[0, 0], [0, 1]])
    with pytest.raises(ValueError, match="draw_keys"):
        batch.reset([[0, 0], [0, 1]], draw_keys=np.zeros((2, 3, 2), np.uint64))
    batched.NeighborBatch(config, 2, exact=True, policies=["roller", "heuristic"]).reset([[0, 0], [0, 1]])


def test_fast_random_is_legal_and_uniform() -> None:
    """The fast mode's random policy returns legal actions, about uniformly."""
    config = neighbor.make_config(num_players=2)
    batch = batched.NeighborBatch(config, 64, seed=5, parallel=False)
    _, masks = batch.reset()
    chooser = np.random.default_rng(0)
    for _ in range(200):
        wide = np.flatnonzero(masks.sum(axis=1) >= 3)
        if len(wide):
            break
        _, masks, _, _ = batch.step(random_actions(masks, chooser))
    b = int(wide[0])
    mask, count = masks[b].copy(), int(masks[b].sum())
    rs = batch.rng_state.copy()
    picks = Counter(
        batched._policy(batch.state, batch.rules, rs, batch.streams, batch.tables, b, engine_host.RANDOM, mask, count)
        for _ in range(6000)
    )
    assert set(picks) == set(np.flatnonzero(mask).tolist())
    expected = 6000 / count
    assert all(abs(n - expected) < 5 * np.sqrt(expected) for n in picks.values()), picks


# --------------------------------------------------------------------------
# 5. The single-agent batch


def test_single_agent_batch_asks_only_the_learner() -> None:
    """Only the learner is asked, at real choices (R14); each episode draws the learner's seat and its
    opponents; a finished game's ``learner_rewards`` is the learner's reward (R12) and ``final_obs``
    its view of the end."""
    config = neighbor.make_config(num_players=3)
    pool = ["random", "heuristic", "roller"]
    batch = batched.NeighborBatch(config, 64, seed=9, opponents=pool, parallel=False)
    observer = NeighborObserver(config)
    _, masks = batch.reset()
    chooser = np.random.default_rng(1)
    learners: Counter = Counter()
    ends = 0
    codes = {batched.POLICY_CODES[name] for name in pool}
    for _ in range(200):
        assert (masks.sum(axis=1) >= 2).all()
        for b in range(batch.batch_size):
            learner = int(batch.state[b, batched.LEARNER])
            assert batch.seats[b] == learner == batch.game_state(b).current
            assert batch.policies[b, learner] == engine_host.EXTERNAL
            assert {int(c) for seat, c in enumerate(batch.policies[b]) if seat != learner} <= codes
        asked = batch.seats.copy()
        learners.update(asked.tolist())
        _, masks, rewards, dones = batch.step(random_actions(masks, chooser))
        for b in np.flatnonzero(dones):
            ends += 1
            assert batch.learner_rewards[b] == rewards[b, asked[b]]
            final = observer.view(batch.final_obs[b])
            assert not final["current"].any() and not final["phase"].any()  # the game is over
            assert (final["left"][0] == 0) == (batch.learner_rewards[b] == 1.0)
    assert ends > 50 and set(learners) == {0, 1, 2}


@pytest.mark.parametrize(("players", "learner"), [(2, 0), (3, 1), (5, 4)])
def test_single_agent_batch_against_the_core(players: int, learner: int) -> None:
    """With a fixed learner seat and deterministic opponents (heuristic, roller), the learner's action
    followed by the opponents' choices (the agents') and forced moves (R14) is the core's on the
    engine's dice: the same next state, or the same end with the learner's reward and its final
    observation."""
    config = neighbor.make_config(num_players=players)
    agents = {batched.HEURISTIC: NeighborHeuristic(), batched.ROLLER_POLICY: NeighborRoller()}
    batch = batched.NeighborBatch(config, 24, seed=4, opponents=["heuristic", "roller"], learner_seat=learner)
    observer = NeighborObserver(config)
    obs, masks = batch.reset()
    chooser = np.random.default_rng(2)
    counts: Counter = Counter()
    for _ in range(150):
        assert (batch.seats == learner).all()
        actions = random_actions(masks, chooser)
        predictions = []
        for b in range(batch.batch_size):
            state = batch.game_state(b)
            np.testing.assert_array_equal(obs[b], observer.encode(state, learner))
            expected, rng = neighbor.clone(state), batch.dice_generator(b)
            neighbor.apply_action(expected, int(actions[b]), rng)
            while not expected.over:
                action = neighbor.forced_action(expected)
                if action < 0:
                    if expected.current == learner:
                        break
                    agent = agents[int(batch.policies[b, expected.current])]
                    action = agent.act(SeatView(expected, expected.current, observer, NEIGHBOR), None)
                neighbor.apply_action(expected, action, rng)
            predictions.append(expected)
        obs, masks, rewards, dones = batch.step(actions)
        for b, expected in enumerate(predictions):
            assert bool(dones[b]) == expected.over
            if dones[b]:
                returns = neighbor.returns(expected)
                assert rewards[b].tolist() == returns
                assert batch.learner_rewards[b] == returns[learner]
                np.testing.assert_array_equal(batch.final_obs[b], observer.encode(expected, learner))
                counts["ends"] += 1
            else:
                assert_same_state(expected, batch, b)
                counts["steps"] += 1
    assert counts["ends"] > 10 and counts["steps"] > 1000, counts


def test_the_learners_forced_first_move_and_a_learner_that_never_moves() -> None:
    """R14 (as R13) for the single agent: with a two-turn limit the learner in seat 1 has one turn; when
    its first roll is a 7 it would have no choice at all, so that roll is asked (one legal action).
    With a one-turn limit seat 1 never moves: a RuntimeError, not a game nobody is asked in."""
    config = neighbor.make_config(num_players=2, max_turns=2)
    batch = batched.NeighborBatch(config, 64, seed=3, opponents=["heuristic"], learner_seat=1)
    _, masks = batch.reset()
    forced = 0
    for _ in range(20):
        for b in np.flatnonzero(masks.sum(axis=1) == 1):
            state = batch.game_state(b)
            assert (state.turn, state.current, state.phase) == (1, 1, neighbor.ROLL)
            forced += 1
        _, masks, _, dones = batch.step(masks.argmax(axis=1))  # roll (again)
        assert batch.truncs[dones].all()  # the learner's turn is the last: its end ends the game
    assert forced > 50
    with pytest.raises(RuntimeError, match="no game in 1000 gave the learner a move"):
        batched.NeighborBatch(neighbor.make_config(max_turns=1), 4, opponents=["random"], learner_seat=1).reset()


# --------------------------------------------------------------------------
# 6. Kernels, seeds, validation, plain Python


def run_batch(batch: batched.NeighborBatch, steps: int, seed: int) -> list[tuple[np.ndarray, ...]]:
    """Reset and step ``batch`` with random legal actions; every step's outputs, copied."""
    chooser = np.random.default_rng(seed)
    obs, masks = batch.reset()
    trace = [(obs.copy(), masks.copy(), batch.state.copy(), batch.dice.copy())]
    for _ in range(steps):
        obs, masks, rewards, dones = batch.step(random_actions(masks, chooser))
        outputs = (obs, masks, rewards, dones, batch.seats, batch.truncs, batch.learner_rewards, batch.final_obs)
        trace.append(tuple(x.copy() for x in (*outputs, batch.state, batch.dice)))
    return trace


def assert_same_trace(one: list[tuple[np.ndarray, ...]], other: list[tuple[np.ndarray, ...]]) -> None:
    assert len(one) == len(other)
    for step, (a, b) in enumerate(zip(one, other)):
        for k, (x, y) in enumerate(zip(a, b)):
            np.testing.assert_array_equal(x, y, err_msg=f"step {step}, output {k}")


@pytest.mark.parametrize("kwargs", [{}, {"opponents": ["random", "heuristic", "roller"]}], ids=["asked", "single"])
def test_parallel_and_serial_kernels_agree(kwargs: dict) -> None:
    """Each game has its own generators, so spreading games over threads changes nothing."""
    config = neighbor.make_config(num_players=3)
    traces = [
        run_batch(batched.NeighborBatch(config, 300, seed=7, parallel=parallel, **kwargs), 60, seed=1)
        for parallel in (True, False)
    ]
    assert sum(step[3].sum() for step in traces[0][1:]) > 0  # some games ended and were dealt again
    assert_same_trace(*traces)


def test_same_seed_same_games_other_seed_other_games() -> None:
    config = neighbor.make_config(num_players=4)
    one = run_batch(batched.NeighborBatch(config, 32, seed=7), 80, seed=2)
    assert_same_trace(one, run_batch(batched.NeighborBatch(config, 32, seed=7), 80, seed=2))
    reseeded = batched.NeighborBatch(config, 32, seed=123)
    reseeded.seed(7)
    assert_same_trace(one, run_batch(reseeded, 80, seed=2))
    other = run_batch(batched.NeighborBatch(config, 32, seed=8), 80, seed=2)
    assert (other[-1][-2] != one[-1][-2]).any(axis=1).all()  # every game went differently


def test_a_game_does_not_depend_on_the_other_games() -> None:
    """The same generator states give the same game in a batch of 4 and in a batch of 12."""
    config = neighbor.make_config(num_players=2)
    small = batched.NeighborBatch(config, 4, seed=1, parallel=False)
    large = batched.NeighborBatch(config, 12, seed=2, parallel=True)
    large.rng_state[3:7] = small.rng_state
    large.dice[3:7] = small.dice
    chooser = np.random.default_rng(5)
    _, masks = small.reset()
    large.reset()
    for _ in range(100):
        np.testing.assert_array_equal(small.state, large.state[3:7])
        np.testing.assert_array_equal(small.obs, large.obs[3:7])
        actions = random_actions(masks, chooser)
        padded = random_actions(large.masks, chooser)
        padded[3:7] = actions
        _, masks, rewards, dones = small.step(actions)
        large.step(padded)
        np.testing.assert_array_equal(rewards, large.rewards[3:7])
        np.testing.assert_array_equal(dones, large.dones[3:7])


@pytest.mark.parametrize(
    ("players", "kwargs", "message"),
    [
        (2, {"batch_size": 0}, "batch_size"),
        (2, {"batch_size": True}, "batch_size"),
        (2, {"policies": ["heuristic", "greedy"]}, "greedy"),
        (2, {"policies": ["heuristic"]}, "policies"),
        (2, {"policies": ["heuristic", "roller"]}, "every game needs a seat that is asked"),
        (3, {"policies": ["optimal", None, None]}, "optimal is the solved game of two players"),
        (4, {"opponents": ["random", "optimal"]}, "two players"),
        (2, {"opponents": []}, "opponents"),
        (2, {"opponents": ["counter"]}, "counter"),
        (2, {"opponents": ["random"], "exact": True}, "opponents"),
        (2, {"opponents": ["random"], "policies": ["random", None]}, "opponents"),
        (2, {"opponents": ["random"], "learner_seat": 2}, "learner_seat"),
        (2, {"opponents": ["random"], "learner_seat": True}, "learner_seat"),
        (2, {"optimal_tables": (np.zeros((4, 4)), np.zeros((4, 4)))}, "optimal_tables"),
        (2, {"max_turns": 40000}, "max_turns"),
    ],
)
def test_bad_arguments_are_refused(players: int, kwargs: dict, message: str) -> None:
    kwargs = {"batch_size": 4, **kwargs}
    config = neighbor.make_config(num_players=players, max_turns=kwargs.pop("max_turns", None))
    with pytest.raises(ValueError, match=message):
        batched.NeighborBatch(config, **kwargs)


def test_other_arguments_are_refused() -> None:
    from trash_env.trash.config import make_config as trash_config

    with pytest.raises(ValueError, match="NeighborConfig"):
        batched.NeighborBatch(trash_config("standard"), 4)
    batch = batched.NeighborBatch(neighbor.make_config(), 3, exact=True)
    with pytest.raises(ValueError, match="seed"):
        batch.reset()
    with pytest.raises(ValueError, match="seed"):
        batch.reset([1, 2])
    with pytest.raises(ValueError, match="neither in-engine baselines"):
        batched.NeighborBatch(neighbor.make_config(), 3, opponents=["random"]).set_pool([7])


DIFFERENTIAL = """
import sys
sys.path[:0] = ["tests", "tests/neighbor"]
{prelude}
from trash_env.neighbor import batched
from trash_env.neighbor.rules import make_config
from test_neighbor_batched_engine import play_both
assert not hasattr(batched._step_games, "py_func"), batched._step_games  # a plain Python function
counts = play_both(make_config(num_players=3, max_turns=40), 3, seed=5)
print(batched.HAVE_NUMBA, counts["decisions"])
"""


@plain_python_ways()
def test_plain_python_path_matches_the_core(env: dict, prelude: str, have_numba: str) -> None:
    """The same functions run as plain Python (Numba's JIT disabled, or Numba missing) and still agree
    with the core in exact mode, the dice included (a short differential run, truncated at 40 turns)."""
    result = run_python(textwrap.dedent(DIFFERENTIAL).format(prelude=prelude), env)
    assert result.returncode == 0, result.stderr[-3000:]
    flag, decisions = result.stdout.split()
    assert flag == have_numba and int(decisions) > 0


# --------------------------------------------------------------------------
# 7. Evaluation on the engine


@pytest.fixture
def batched_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Records the pairs the evaluation plays on the batched engine."""
    import agents.evaluation.duplicate as duplicate

    calls: list[tuple[str, str]] = []
    real = duplicate.play_deals_batched

    def spy(config, pair, deals, seed, duplicate_deals, agents):
        calls.append(pair)
        return real(config, pair, deals, seed, duplicate_deals, agents)

    monkeypatch.setattr(duplicate, "play_deals_batched", spy)
    return calls


EVALUATIONS = [
    pytest.param(2, {}, [("heuristic", "random"), ("random", "random")], 150, True, id="2p"),
    pytest.param(2, {}, [("random", "heuristic")], 100, False, id="2p-independent"),
    pytest.param(2, {"max_turns": 20}, [("heuristic", "roller")], 100, True, id="2p-truncated"),
    pytest.param(3, {}, [("heuristic", "random"), ("roller", "heuristic")], 40, True, id="3p"),
    pytest.param(5, {}, [("random", "heuristic")], 20, False, id="5p-independent"),
]


@pytest.mark.parametrize(("players", "rules", "pairs", "deals", "duplicate"), EVALUATIONS)
def test_batched_evaluation_plays_the_scalar_games(
    players: int, rules: dict, pairs: list, deals: int, duplicate: bool, batched_calls: list
) -> None:
    """The same deals (the dice of each game's deal seed) and, heuristic and roller choosing
    deterministically and random drawing from the keyed streams, the very same games: the results
    list of ``engine="batched"`` is ``engine="scalar"``'s, field by field, and ``auto`` plays on the
    engine."""
    config = neighbor.make_config(num_players=players, **rules)
    scalar = run_pairings(config, pairs, deals, seed=7, duplicate=duplicate, engine="scalar")
    assert batched_calls == []
    assert run_pairings(config, pairs, deals, seed=7, duplicate=duplicate, engine="batched") == scalar
    assert run_pairings(config, pairs, deals, seed=7, duplicate=duplicate) == scalar
    assert batched_calls == pairs * 2
    assert len({game.rewards for game in scalar}) > 1
    if rules:
        assert 0 < sum(game.truncated for game in scalar) < len(scalar)
    assert run_pairings(config, pairs, deals, seed=8, duplicate=duplicate, engine="batched") != scalar


def test_batched_evaluation_of_optimal_and_learned_policies(optimal: OptimalAgent) -> None:
    """``optimal`` (the solution's tables inside the engine) and a learned policy (asked in batches,
    ``act_batch``) play the scalar games on the engine too."""
    from agents.registry import make_agent

    config = neighbor.make_config(num_players=2)
    policy = make_agent("shipped:hyn-2p-maskable-ppo", "help_your_neighbor")
    prebuilt = {"optimal": optimal, "policy": policy}
    pairs = [("optimal", "heuristic"), ("policy", "random"), ("policy", "optimal")]
    scalar = run_pairings(config, pairs, 100, seed=3, prebuilt=prebuilt, engine="scalar")
    assert run_pairings(config, pairs, 100, seed=3, prebuilt=prebuilt, engine="batched") == scalar


def test_evaluate_cli_engine_batched_for_help_your_neighbor(tmp_path: Path) -> None:
    """``trash-evaluate heuristic random --game help_your_neighbor --engine batched`` writes the same
    summary as ``--engine scalar``."""
    args = ["heuristic", "random", "--game", "help_your_neighbor", "--deals", "60", "--quiet", "--bootstrap", "20"]
    for engine in ("batched", "scalar"):
        assert evaluate_main([*args, "--engine", engine, "--json", str(tmp_path / f"{engine}.json")]) == 0
    assert json.loads((tmp_path / "batched.json").read_text()) == json.loads((tmp_path / "scalar.json").read_text())
