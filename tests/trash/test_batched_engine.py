"""The batched engine (:mod:`trash_env.trash.batched`) beyond exact mode: fast mode against the rules
core step by step, parallel and serial kernels, seeding, the in-engine baselines against
:mod:`agents.baselines`, the single-agent batch (R13's first-move rule), argument validation and
the plain-Python path without Numba.

Rules are cited by their section of the rule book (``RULES.md``) (R1-R10, R13). Fast mode draws its
shuffles from the engine's own generator, so the core cannot replay them: each step is predicted
on a clone of ``batch.game_state(b)`` with a generator that records whether it was used, and the
prediction is compared wherever no shuffle (R7 reshuffle, R9 deal) happened in between.
"""

from __future__ import annotations

import itertools
import textwrap
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from helpers import plain_python_ways, run_python
from helpers.batched import assert_same_state

from agents.baselines import CountingAgent, GreedyAgent, RandomAgent
from agents.evaluation.seatings import play_game
from trash_env import engine_host
from trash_env.counter_rng import keyed_generator
from trash_env.trash import batched
from trash_env.trash import rules as trash
from trash_env.trash.belief import public_view
from trash_env.trash.config import PRESETS, make_config
from trash_env.trash.observation import TrashObserver

ROOT = Path(__file__).resolve().parents[2]
AGENTS = {batched.GREEDY: GreedyAgent(), batched.COUNTER: CountingAgent()}


# --------------------------------------------------------------------------
# Helpers


class RecordingRng:
    """A ``numpy.random.Generator`` stand-in for the core that records whether it was used
    (the core draws only ``permutation`` for a deck, R3/R9, and ``shuffle`` for a reshuffle, R7)."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.calls = 0

    def shuffle(self, x: list[int]) -> None:
        self.calls += 1
        self.rng.shuffle(x)

    def permutation(self, n: int) -> np.ndarray:
        self.calls += 1
        return self.rng.permutation(n)


def assert_states_equal(expected: trash.TrashState, actual: trash.TrashState, where: str) -> None:
    """Every field of the core's state (but the deck record, which ``game_state`` leaves empty)."""
    for name in trash.TrashState.__slots__:
        if name == "deck":
            continue
        assert getattr(actual, name) == getattr(expected, name), f"{where}: {name}"


def check_conservation(state: trash.TrashState, where: str) -> None:
    """R1: the table holds exactly the configured cards; R15: the hidden cards (face down or in
    the stock) are those counted as unaccounted or known to be in the stock."""
    counts = [0] * trash.NUM_RANKS
    hidden = [0] * trash.NUM_RANKS
    for seat in range(state.num_players):
        up = state.up[seat]
        assert len(up) == state.sizes[seat], where
        assert state.face_down[seat] == up.count(trash.FACE_DOWN), where
        for value, card in zip(up, state.down[seat]):
            if value == trash.FACE_DOWN:
                counts[card] += 1
                hidden[card] += 1
            else:
                counts[value] += 1
    for card in state.stock:
        counts[card] += 1
        hidden[card] += 1
    for card in state.discard:
        counts[card] += 1
    if state.held != trash.NO_CARD:
        counts[state.held] += 1
    assert counts == list(state.config.copies_per_rank), where
    assert hidden == [u + k for u, k in zip(state.unaccounted, state.known_stock)], where
    in_stock = Counter(state.stock)
    assert all(known <= in_stock[rank] for rank, known in enumerate(state.known_stock)), where


def dealt_deck(batch: batched.TrashBatch, b: int) -> list[int]:
    """The deck game ``b``'s first hand was dealt from (the DECK cells, a permutation of the
    configured cards in rank order)."""
    d = batch.config.deck_size
    perm = batch.state[b, batched.DECK : batched.DECK + d].tolist()
    assert sorted(perm) == list(range(d))
    return [batch.config.ordered_deck[i] for i in perm]


def check_new_game(batch: batched.TrashBatch, b: int, stats: Counter) -> None:
    """A game dealt in fast mode is the core's game on the same deck (R3) advanced to its first
    real choice (R13; in a match that may lie in a later hand, R9), or, when the whole game would
    pass without one, the fresh deal at seat 0's first move (R13)."""
    config = batch.config
    state = batch.game_state(b)
    where = f"new game {b}"
    fresh = trash.new_game(config, np.random.default_rng(0), dealt_deck(batch, b))
    expected = trash.clone(fresh)
    rng = RecordingRng()
    trash.play_forced(expected, rng)
    if state.turn == 0 and state.phase == trash.DRAW and not state.discard:  # only the draw is legal
        fresh.deck = []
        assert state == fresh, where  # R13: the first move is asked even though it is forced
        assert expected.over or rng.calls, where
        stats["first_move_deals"] += 1
    elif not rng.calls:
        assert_states_equal(expected, state, where)
        stats["new_games_compared"] += 1


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``masks``."""
    keys = rng.random(masks.shape) * masks
    return keys.argmax(axis=1).astype(np.int64)


# --------------------------------------------------------------------------
# 1. Fast mode against the core, step by step


def play_fast(config, batch_size: int, seed: int, steps: int) -> Counter:
    """Step ``batch_size`` fast-mode games with random legal choices; check every asked state
    against the core and every step whose outcome the core can predict (no shuffle in between)."""
    batch = batched.TrashBatch(config, batch_size, seed=seed, parallel=False)
    obs, masks = batch.reset()
    observer = TrashObserver(config)
    chooser = np.random.default_rng(seed)
    stats: Counter = Counter()
    for b in range(batch_size):
        check_new_game(batch, b, stats)
    for step in range(steps):
        actions = np.empty(batch_size, np.int64)
        predictions = []
        for b in range(batch_size):
            state = batch.game_state(b)
            where = f"step {step}, game {b}, turn {state.turn}"
            check_conservation(state, where)
            assert state.phase != trash.OVER, where
            legal = trash.legal_actions(state)
            assert batch.seats[b] == state.current, where
            np.testing.assert_array_equal(masks[b], trash.action_mask(legal), err_msg=where)
            np.testing.assert_array_equal(obs[b], observer.encode(state, state.current), err_msg=where)
            if len(legal) < 2:  # R13: only the first move of a game without any real choice
                assert (state.turn, state.hand, state.current, state.phase) == (0, 0, 0, trash.DRAW), where
                stats["forced_asks"] += 1
            action = legal[int(chooser.integers(len(legal)))]
            actions[b] = action
            expected = trash.clone(state)
            rng = RecordingRng(seed)
            trash.apply_action(expected, action, rng)
            trash.play_forced(expected, rng)
            predictions.append((expected, rng))
        obs, masks, rewards, dones = batch.step(actions)
        for b, (expected, rng) in enumerate(predictions):
            where = f"step {step}, game {b}"
            if dones[b]:
                stats["dones"] += 1
                stats["truncated"] += bool(batch.truncs[b])
                check_new_game(batch, b, stats)
                row = rewards[b].tolist()
                assert set(row) <= {-1.0, 0.0, 1.0} and (1.0 in row or not any(row)), where
            else:
                assert not rewards[b].any(), where
            if rng.calls:
                stats["shuffled"] += 1
                continue
            assert bool(dones[b]) == expected.over, where
            if dones[b]:
                assert rewards[b].tolist() == trash.returns(expected), where  # R10
                assert bool(batch.truncs[b]) == expected.truncated, where
                stats["ends_compared"] += 1
            else:
                assert_states_equal(expected, batch.game_state(b), where)
                stats["steps_compared"] += 1
                stats["later_hands"] += expected.hand > 0
                stats["after_reshuffle"] += any(expected.known_stock)
    return stats


FAST_CASES = list(itertools.product(sorted(PRESETS), (2, 5), (False, True)))


@pytest.mark.parametrize(("preset", "players", "match"), FAST_CASES, ids=lambda v: str(v))
def test_fast_mode_matches_the_core_step_by_step(preset: str, players: int, match: bool) -> None:
    """R1-R10, R13 in fast mode: at every step the acting seat, mask and observation are the
    core's for ``batch.game_state(b)``; the next state is the core's (when no shuffle came in
    between), the ends and rewards are the core's, every new game is the core's deal of its deck,
    and the cards are conserved."""
    # R9: matches on half the preset's layout (at least that many hands won), so that some end
    config = make_config(preset, num_players=players, match=match)
    if match:
        config = make_config(preset, num_players=players, match=True, layout_size=config.layout_size // 2)
    steps = 40 if preset == "seven_up" else 300 if match else 150
    stats = play_fast(config, 16, seed=players * 10 + match, steps=steps)
    assert stats["steps_compared"] > 0 or preset == "seven_up"
    assert stats["dones"] > 0
    # a Seven Up match is played out in one step (R13) and deals later hands (R9) from the
    # engine's generator, so the core cannot predict its end
    assert stats["ends_compared"] > 0 or (preset == "seven_up" and match)
    assert stats["new_games_compared"] + stats["first_move_deals"] > 0
    if preset == "seven_up":  # R13: every move forced; each episode asks seat 0's first move
        assert stats["forced_asks"] == 16 * steps and stats["first_move_deals"] > 0
    if match and preset != "seven_up":
        assert stats["later_hands"] > 0


@pytest.mark.parametrize(
    ("preset", "players", "match"), [("standard", 4, False), ("pagat", 4, False), ("jokers", 5, False)]
)
def test_fast_mode_after_reshuffles(preset: str, players: int, match: bool) -> None:
    """R7 in fast mode: with one deck for four or five players the stock runs out often; the
    reshuffled stock is counted as known (R15) and play goes on as in the core."""
    config = make_config(preset, num_players=players, match=match, num_decks=1)
    stats = play_fast(config, 16, seed=players, steps=150)
    assert stats["after_reshuffle"] > 100 and stats["ends_compared"] > 0, stats


def test_fast_mode_truncation() -> None:
    """R7 in fast mode: a game truncated at max_turns ends as a draw (rewards 0, ``truncs``)."""
    stats = play_fast(make_config("pagat", num_players=3, max_turns=25), 16, seed=3, steps=60)
    assert stats["truncated"] > 0 and stats["ends_compared"] > 0


# --------------------------------------------------------------------------
# 2-3. Parallel and serial kernels, seeds


def run_batch(batch: batched.TrashBatch, steps: int, seed: int) -> list[tuple[np.ndarray, ...]]:
    """Reset and step ``batch`` with random legal actions; every step's outputs, copied."""
    chooser = np.random.default_rng(seed)
    obs, masks = batch.reset()
    trace = [(obs.copy(), masks.copy(), batch.seats.copy(), batch.state.copy())]
    for _ in range(steps):
        obs, masks, rewards, dones = batch.step(random_actions(masks, chooser))
        trace.append(
            (
                obs.copy(),
                masks.copy(),
                rewards.copy(),
                dones.copy(),
                batch.seats.copy(),
                batch.truncs.copy(),
                batch.learner_rewards.copy(),
                batch.final_obs.copy(),
                batch.state.copy(),
            )
        )
    return trace


def assert_same_trace(one: list[tuple[np.ndarray, ...]], other: list[tuple[np.ndarray, ...]]) -> None:
    assert len(one) == len(other)
    for step, (a, b) in enumerate(zip(one, other)):
        for k, (x, y) in enumerate(zip(a, b)):
            np.testing.assert_array_equal(x, y, err_msg=f"step {step}, output {k}")


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"opponents": ["random", "greedy", "counter"]}],
    ids=["all-asked", "single-agent"],
)
def test_parallel_and_serial_kernels_agree(kwargs: dict) -> None:
    """Each game has its own generator, so spreading games over threads changes nothing."""
    config = make_config("standard", num_players=3)
    traces = [
        run_batch(batched.TrashBatch(config, 512, seed=7, parallel=parallel, **kwargs), 50, seed=1)
        for parallel in (True, False)
    ]
    assert sum(step[3].sum() for step in traces[0][1:]) > 0  # some games ended and were dealt again
    assert_same_trace(*traces)


def test_same_seed_same_games_other_seed_other_games() -> None:
    config = make_config("jokers", num_players=2, match=True)
    one = run_batch(batched.TrashBatch(config, 64, seed=7), 60, seed=2)
    again = run_batch(batched.TrashBatch(config, 64, seed=7), 60, seed=2)
    assert_same_trace(one, again)
    reseeded = batched.TrashBatch(config, 64, seed=123)
    reseeded.seed(7)
    assert_same_trace(one, run_batch(reseeded, 60, seed=2))
    other = batched.TrashBatch(config, 64, seed=8)
    other.reset()
    assert (other.state != one[0][3]).any(axis=1).all()  # every game dealt differently
    unseeded = [batched.TrashBatch(config, 8), batched.TrashBatch(config, 8)]
    assert not np.array_equal(*(batch.rng_state for batch in unseeded))


def test_a_game_does_not_depend_on_the_other_games() -> None:
    """A game's randomness is its own generator's: the same generator state gives the same game
    in a batch of 4 and in a batch of 12 (with other games around it)."""
    config = make_config("standard", num_players=2)
    small = batched.TrashBatch(config, 4, seed=1, parallel=False)
    large = batched.TrashBatch(config, 12, seed=2, parallel=True)
    large.rng_state[3:7] = small.rng_state
    chooser = np.random.default_rng(5)
    _, masks = small.reset()
    large.reset()
    for _ in range(80):
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
    ("preset", "players", "match"), [("standard", 4, False), ("jokers", 3, True), ("pagat", 2, True)]
)
def test_a_placed_position_reads_back_and_plays_on_as_the_game_it_came_from(preset: str, players: int, match: bool):
    """``place_state`` undoes ``game_state``: a game's position put in another batch's slot reads back
    the same (every field of R2, R15), and with the slot's generator at the same state it plays on
    exactly as the game it came from (reshuffles R7, the next hands of a match R9, new games). One deck:
    the stock runs out often, so some positions hold a reshuffled, known stock (R15)."""
    config = make_config(preset, num_players=players, match=match, num_decks=1)
    source = batched.TrashBatch(config, 24, seed=3)
    chooser = np.random.default_rng(4)
    _, masks = source.reset()
    for _ in range(60):
        _, masks, _, _ = source.step(random_actions(masks, chooser))
    copy = batched.TrashBatch(config, 24, seed=99)
    copy.reset()
    for b in range(24):
        copy.place_state(b, source.game_state(b))
        assert_states_equal(source.game_state(b), copy.game_state(b), f"game {b}")
    if players == 4:
        assert any(sum(copy.game_state(b).known_stock) for b in range(24))
    copy.rng_state[:] = source.rng_state
    for step in range(150):
        actions = random_actions(masks, chooser)
        outputs = [batch.step(actions) for batch in (source, copy)]
        for one, other in zip(*outputs):
            np.testing.assert_array_equal(one, other, err_msg=f"step {step}")
        np.testing.assert_array_equal(source.seats, copy.seats)
        masks = outputs[0][1]


def test_place_state_refuses_what_it_cannot_hold() -> None:
    config = make_config("standard", num_players=2)
    batch = batched.TrashBatch(config, 2, seed=1)
    batch.reset()
    state = batch.game_state(0)
    with pytest.raises(ValueError, match="fast mode"):
        batched.TrashBatch(config, 1, exact=True).place_state(0, state)
    with pytest.raises(ValueError, match="another configuration"):
        batched.TrashBatch(make_config("standard", num_players=3), 1).place_state(0, state)
    with pytest.raises(ValueError, match="hides cards"):
        batch.place_state(1, public_view(state))
    state.phase = trash.OVER
    with pytest.raises(ValueError, match="over"):
        batch.place_state(1, state)


# --------------------------------------------------------------------------
# 4. The in-engine policies against the agents


@pytest.mark.parametrize(("preset", "players"), [("standard", 2), ("jokers", 3), ("pagat", 2), ("eight_card", 4)])
def test_in_engine_greedy_and_counter_choose_as_the_agents(preset: str, players: int) -> None:
    """At real choices (>= 2 legal actions, R13) of random fast-mode positions, the compiled
    GREEDY and COUNTER policies pick what GreedyAgent and CountingAgent pick from the public state."""
    config = make_config(preset, num_players=players)
    batch = batched.TrashBatch(config, 32, seed=11, parallel=False)
    _, masks = batch.reset()
    chooser = np.random.default_rng(3)
    counts: Counter = Counter()
    for _ in range(60):
        for b in range(batch.batch_size):
            count = int(masks[b].sum())
            assert count >= 2
            state = batch.game_state(b)
            view = public_view(state)
            legal = trash.legal_actions(state)
            choices = {}
            for code, agent in AGENTS.items():
                rs, ks = batch.rng_state.copy(), batch.streams.copy()
                choices[code] = batched._policy(batch.state, batch.rules, rs, ks, b, code, masks[b].copy(), count)
                assert choices[code] == agent.choose(view, legal, np.random.default_rng(0)), (code, state)
                np.testing.assert_array_equal(rs, batch.rng_state)  # the baselines draw nothing
                np.testing.assert_array_equal(ks, batch.streams)
            counts["choices"] += 1
            counts["wild_choices"] += state.phase == trash.PLACE and len(legal) > 2
            counts["differ"] += choices[batched.GREEDY] != choices[batched.COUNTER]
        _, masks, _, _ = batch.step(random_actions(masks, chooser))
    assert counts["wild_choices"] > 0 and counts["differ"] > 0, counts


POLICY_GAMES = [
    ("standard", 2, False),
    ("jokers", 3, False),
    ("pagat", 2, True),
    ("eight_card", 4, False),
    ("standard", 3, True),
]


@pytest.mark.parametrize(("preset", "players", "match"), POLICY_GAMES, ids=lambda v: str(v))
def test_exact_games_of_in_engine_baselines_are_the_agents_games(preset: str, players: int, match: bool) -> None:
    """Whole games (exact mode, every seat an in-engine greedy or counter) end exactly as
    ``play_game`` with GreedyAgent / CountingAgent on the same seeds: same final state and rewards."""
    config = make_config(preset, num_players=players, match=match, **({"layout_size": 4} if match else {}))
    names = ["greedy", "counter"]
    lineups = [[names[(seat + b) % 2] for seat in range(players)] for b in range(12)]
    seeds = [[42, b] for b in range(12)]
    batch = batched.TrashBatch(config, 12, exact=True, policies=lineups)
    batch.reset(seeds)
    assert batch.dones.all()  # nobody is asked: the games are played out inside reset
    agents = {"greedy": GreedyAgent(), "counter": CountingAgent()}
    for b, (lineup, seed) in enumerate(zip(lineups, seeds)):
        rngs = [np.random.default_rng(0) for _ in range(players)]
        state = play_game(config, [agents[name] for name in lineup], np.random.default_rng(seed), rngs)
        assert_same_state(state, batch, b)
        assert batch.rewards[b].tolist() == trash.returns(state)


class CountingDraws:
    """A generator for RandomAgent that counts its ``random()`` draws."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng, self.draws = rng, 0

    def random(self) -> float:
        self.draws += 1
        return self.rng.random()


@pytest.mark.parametrize(("preset", "players", "match"), POLICY_GAMES, ids=lambda v: str(v))
def test_exact_random_is_random_agent_on_keyed_streams(preset: str, players: int, match: bool) -> None:
    """In exact mode the in-engine ``random`` is RandomAgent with each seat's keyed generator
    (``keyed_generator(draw_keys[b, seat])``, Philox): whole games, most seats random and some
    greedy, end exactly as ``play_game`` with those agents and generators (same final state and
    rewards, R10), and each seat's stream has made one draw per real decision of that seat."""
    config = make_config(preset, num_players=players, match=match, **({"layout_size": 4} if match else {}))
    lineups = [["random" if (seat + b) % 3 else "greedy" for seat in range(players)] for b in range(12)]
    seeds = [[7, b] for b in range(12)]
    keys = np.random.default_rng(1).integers(0, 2**64, size=(12, players, 2), dtype=np.uint64)
    batch = batched.TrashBatch(config, 12, exact=True, policies=lineups)
    batch.reset(seeds, draw_keys=keys)
    assert batch.dones.all()  # nobody is asked: the games are played out inside reset
    agents = {"greedy": GreedyAgent(), "random": RandomAgent()}
    decisions = 0
    for b, (lineup, seed) in enumerate(zip(lineups, seeds)):
        rngs = [CountingDraws(keyed_generator(keys[b, seat])) for seat in range(players)]
        state = play_game(config, [agents[name] for name in lineup], np.random.default_rng(seed), rngs)
        assert_same_state(state, batch, b)
        assert batch.rewards[b].tolist() == trash.returns(state)
        assert batch.streams[b, :players, engine_host.DRAWS].tolist() == [rng.draws for rng in rngs]
        decisions += sum(rng.draws for rng in rngs)
    assert decisions > 50


def test_exact_random_needs_its_draw_keys() -> None:
    """Exact mode's random has no stream of its own: without ``draw_keys`` (or with the wrong shape)
    ``reset`` is a ValueError; a batch without random seats needs none."""
    config = make_config("standard")
    batch = batched.TrashBatch(config, 2, exact=True, policies=["random", "greedy"])
    with pytest.raises(ValueError, match="draw_keys"):
        batch.reset([[0, 0], [0, 1]])
    with pytest.raises(ValueError, match="draw_keys"):
        batch.reset([[0, 0], [0, 1]], draw_keys=np.zeros((2, 3, 2), np.uint64))
    batched.TrashBatch(config, 2, exact=True, policies=["counter", "greedy"]).reset([[0, 0], [0, 1]])


def test_random_policy_is_legal_and_uniform() -> None:
    """The in-engine random policy returns legal actions, about uniformly (R13 choices)."""
    config = make_config("jokers", num_players=2)
    batch = batched.TrashBatch(config, 64, seed=5, parallel=False)
    _, masks = batch.reset()
    chooser = np.random.default_rng(0)
    positions = []
    for _ in range(200):
        for b in range(batch.batch_size):
            if masks[b].sum() >= 3 and len(positions) < 3:
                positions.append((batch.state.copy(), b, masks[b].copy()))
        if len(positions) == 3:
            break
        _, masks, _, _ = batch.step(random_actions(masks, chooser))
    positions.append((batch.state.copy(), 0, masks[0].copy()))  # and any other choice
    assert len(positions) == 4
    for g, b, mask in positions:
        count = int(mask.sum())
        rs, ks = batch.rng_state.copy(), batch.streams
        draws = 6000
        code = engine_host.RANDOM
        picks = Counter(batched._policy(g, batch.rules, rs, ks, b, code, mask, count) for _ in range(draws))
        assert set(picks) == set(np.flatnonzero(mask).tolist())
        expected = draws / count
        assert all(abs(n - expected) < 5 * np.sqrt(expected) for n in picks.values()), picks


# --------------------------------------------------------------------------
# 5. The single-agent batch (opponents)


def test_single_agent_batch_asks_only_the_learner() -> None:
    """Only the learner is asked, at real choices (R13, except its first move in a game that
    would pass without any); each episode draws the learner's seat and its opponents; a finished
    game's ``learner_rewards`` is the learner's R10 reward and ``final_obs`` its view of the end."""
    config = make_config("standard", num_players=3)
    pool = ["random", "greedy", "counter"]
    batch = batched.TrashBatch(config, 64, seed=9, opponents=pool, parallel=False)
    observer = TrashObserver(config)
    _, masks = batch.reset()
    chooser = np.random.default_rng(1)
    learners: Counter = Counter()
    ends = first_moves = 0
    codes = {batched.POLICY_CODES[name] for name in pool}
    for _ in range(150):
        for b in range(batch.batch_size):
            state = batch.game_state(b)
            learner = int(batch.state[b, batched.LEARNER])
            assert batch.seats[b] == learner == state.current
            assert len(trash.legal_actions(state)) == masks[b].sum()
            if masks[b].sum() < 2:  # R13: the learner would have no real choice in the whole game
                assert (state.phase, state.hand, state.turn) == (trash.DRAW, 0, learner)
                first_moves += 1
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
    assert ends > 20 and first_moves > 0 and set(learners) == {0, 1, 2}


@pytest.mark.parametrize(("preset", "players", "match"), [("standard", 2, False), ("jokers", 3, True)])
def test_single_agent_batch_against_the_core(preset: str, players: int, match: bool) -> None:
    """With a fixed learner seat and deterministic opponents (greedy, counter), the learner's
    action followed by the opponents' moves (the agents' choices) and forced moves (R13) is the
    core's: the same next state, or the same end with the learner's reward (R10) and its final
    observation of the finished game."""
    config = make_config(preset, num_players=players, match=match, **({"layout_size": 3} if match else {}))
    learner = 1
    batch = batched.TrashBatch(config, 24, seed=4, opponents=["greedy", "counter"], learner_seat=learner)
    observer = TrashObserver(config)
    obs, masks = batch.reset()
    chooser = np.random.default_rng(2)
    counts: Counter = Counter()
    for _ in range(120):
        assert (batch.seats == learner).all()
        actions = random_actions(masks, chooser)
        predictions = []
        for b in range(batch.batch_size):
            state = batch.game_state(b)
            np.testing.assert_array_equal(obs[b], observer.encode(state, learner))
            expected = trash.clone(state)
            rng = RecordingRng()
            trash.apply_action(expected, int(actions[b]), rng)
            while not expected.over:
                action = trash.forced_action(expected)
                if action < 0:
                    if expected.current == learner:
                        break
                    agent = AGENTS[int(batch.policies[b, expected.current])]
                    action = agent.choose(public_view(expected), trash.legal_actions(expected), None)
                trash.apply_action(expected, action, rng)
            predictions.append((expected, rng))
        obs, masks, rewards, dones = batch.step(actions)
        for b, (expected, rng) in enumerate(predictions):
            if rng.calls:
                continue
            assert bool(dones[b]) == expected.over
            if dones[b]:
                returns = trash.returns(expected)
                assert rewards[b].tolist() == returns
                assert batch.learner_rewards[b] == returns[learner]
                np.testing.assert_array_equal(batch.final_obs[b], observer.encode(expected, learner))
                counts["ends"] += 1
            else:
                assert_states_equal(expected, batch.game_state(b), f"game {b}")
                counts["steps"] += 1
    assert counts["ends"] > 0 and counts["steps"] > 0, counts


@pytest.mark.parametrize("learner_seat", [None, 1])
def test_seven_up_learner_is_asked_its_forced_first_move(learner_seat: int | None) -> None:
    """R13: in Seven Up every move is forced, so the learner is asked its first move (a mask
    with one action), and that step plays the rest of the episode out."""
    config = make_config("seven_up", num_players=3)
    batch = batched.TrashBatch(config, 64, seed=6, opponents=["random", "greedy"], learner_seat=learner_seat)
    _, masks = batch.reset()
    seats_seen: Counter = Counter()
    rewards_seen: Counter = Counter()
    for _ in range(15):
        assert (masks.sum(axis=1) == 1).all() and (masks[:, trash.DRAW_STOCK] == 1).all()
        for b in range(batch.batch_size):
            state = batch.game_state(b)
            assert state.current == batch.seats[b] == batch.state[b, batched.LEARNER]
            # the learner's first turn of the first hand: each seat before it had one turn
            assert (state.phase, state.hand, state.turn) == (trash.DRAW, 0, state.current)
        if learner_seat is not None:
            assert (batch.seats == learner_seat).all()
        asked = batch.seats.copy()
        seats_seen.update(asked.tolist())
        _, masks, rewards, dones = batch.step(masks.argmax(axis=1).astype(np.int64))
        assert dones.all()
        learner_rewards = rewards[np.arange(batch.batch_size), asked]
        np.testing.assert_array_equal(batch.learner_rewards, learner_rewards)
        rewards_seen.update(learner_rewards.tolist())
        final = batch.observer.view(batch.final_obs[0])
        assert not final["current"].any()
    assert set(rewards_seen) <= {-1.0, 0.0, 1.0} and rewards_seen[1.0] > 0 and rewards_seen[-1.0] > 0
    assert set(seats_seen) == ({0, 1, 2} if learner_seat is None else {learner_seat})


@pytest.mark.parametrize(
    ("preset", "players", "policies"),
    [("seven_up", 2, ["greedy", None]), ("standard", 3, ["greedy", None, "counter"])],
    ids=["seven_up", "standard"],
)
def test_fast_mode_policies_ask_only_the_external_seats(preset: str, players: int, policies: list) -> None:
    """Every seat is asked unless ``policies`` names an in-engine baseline for it (TrashBatch):
    the acting seat is always an external one, R13's forced first move included."""
    config = make_config(preset, num_players=players)
    external = [seat for seat, name in enumerate(policies) if name is None]
    batch = batched.TrashBatch(config, 256, seed=3, policies=policies, parallel=False)
    _, masks = batch.reset()
    chooser = np.random.default_rng(0)
    asked: Counter = Counter()
    for _ in range(100):
        asked.update(batch.seats.tolist())
        _, masks, _, _ = batch.step(random_actions(masks, chooser))
    assert set(asked) == set(external), asked


def test_exact_mode_dones_stays_set() -> None:
    """Exact mode does not deal a finished game again: ``dones`` stays set (call ``reset``)."""
    batch = batched.TrashBatch(make_config("standard"), 8, exact=True)
    _, masks = batch.reset([[5, b] for b in range(8)])
    chooser = np.random.default_rng(0)
    finished = np.zeros(8, bool)
    while not finished.all():
        over = batch.state[:, batched.PHASE] == trash.OVER
        actions = np.where(over, -1, random_actions(masks, chooser))
        _, masks, _, dones = batch.step(actions)
        assert dones[finished].all()
        finished |= dones


# --------------------------------------------------------------------------
# 6. Validation


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"batch_size": 0}, "batch_size"),
        ({"batch_size": True}, "batch_size"),
        ({"batch_size": 1.5}, "batch_size"),
        ({"policies": ["greedy", "alphazero"]}, "alphazero"),
        ({"policies": ["greedy"]}, "policies"),
        ({"policies": [["greedy", None]] * 3}, "policies"),
        ({"opponents": []}, "opponents"),
        ({"opponents": ["search"]}, "search"),
        ({"opponents": ["random"], "exact": True}, "opponents"),
        ({"opponents": ["random"], "policies": ["random", None]}, "opponents"),
        ({"opponents": ["random"], "learner_seat": 2}, "learner_seat"),
        ({"opponents": ["random"], "learner_seat": -1}, "learner_seat"),
        ({"opponents": ["random"], "learner_seat": True}, "learner_seat"),
        ({"max_turns": 40000}, "max_turns"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict, message: str) -> None:
    kwargs = {"batch_size": 4, **kwargs}
    config = make_config("standard", num_players=2, max_turns=kwargs.pop("max_turns", None))
    with pytest.raises(ValueError, match=message):
        batched.TrashBatch(config, **kwargs)


def test_exact_mode_needs_one_seed_per_game() -> None:
    batch = batched.TrashBatch(make_config("standard"), 3, exact=True)
    with pytest.raises(ValueError, match="seed"):
        batch.reset()
    with pytest.raises(ValueError, match="seed"):
        batch.reset([1, 2])


def test_a_deck_beyond_the_engine_limit_is_refused_by_name() -> None:
    config = make_config("standard", num_players=2, num_decks=4)
    state = trash.new_game(config, np.random.default_rng(0))  # R1: any number of decks; the core plays it
    TrashObserver(config).encode(state, 0)
    with pytest.raises(ValueError, match=r"num_decks|deck_size|cards"):
        batched.TrashBatch(config, 4)


# --------------------------------------------------------------------------
# 7. Without Numba


DIFFERENTIAL = """
import sys
sys.path.insert(0, "tests")
{prelude}
from trash_env.trash import batched
from trash_env.trash.config import make_config
from helpers.batched import play_both
assert not hasattr(batched._step_games, "py_func"), batched._step_games  # a plain Python function
counts = play_both(make_config("standard", max_turns=60), 2, seed=5)
print(batched.HAVE_NUMBA, counts["decisions"])
"""


@plain_python_ways()
def test_plain_python_path_matches_the_core(env: dict, prelude: str, have_numba: str) -> None:
    """The same functions run as plain Python (Numba's JIT disabled, or Numba missing) and still
    agree with the core in exact mode (a short differential run, truncated at 60 turns, R7)."""
    result = run_python(textwrap.dedent(DIFFERENTIAL).format(prelude=prelude), env)
    assert result.returncode == 0, result.stderr[-3000:]
    flag, decisions = result.stdout.split()
    assert flag == have_numba and int(decisions) > 0
