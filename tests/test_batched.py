"""The batched engine against the rules core (R1-R10, R13): the same decks, reshuffles and
choices give the same acting seats, masks, observations, rewards and ends."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from trash_env.trash import batched
from trash_env.trash import rules as core
from trash_env.trash.config import PRESETS, make_config
from trash_env.trash.observation import Observer

PLAYER_COUNTS = (2, 3, 5, 8)


def assert_same_state(state: core.GameState, batch: batched.TrashBatch, b: int) -> None:
    """Every field of the core's state equals the batch's game ``b``."""
    g = batch.arrays
    s = g.s[b]
    n = state.num_players
    where = f"game {b}, turn {state.turn}"
    assert s[batched.PHASE] == state.phase, where
    assert s[batched.CUR] == state.current, where
    assert s[batched.TURN] == state.turn, where
    assert s[batched.HAND] == state.hand, where
    if state.phase != core.OVER:
        assert s[batched.HELD] == state.held, where
    assert g.sizes[b, :n].tolist() == state.sizes, where
    assert g.won[b, :n].tolist() == state.hands_won, where
    assert g.fd[b, :n].tolist() == state.face_down, where
    for seat in range(n):
        size = state.sizes[seat]
        assert g.up[b, seat, :size].tolist() == state.up[seat], where
    stock = g.stock[b, : s[batched.STOCKN]].tolist()
    assert stock == state.stock, where
    assert g.disc[b, : s[batched.DISCN]].tolist() == state.discard, where
    assert g.known[b].tolist() == state.known_stock, where
    assert g.unacc[b].tolist() == state.unaccounted, where
    assert g.hw[b, : s[batched.NHW]].tolist() == state.hand_winners, where
    assert bool(s[batched.TRUNC]) == state.truncated, where
    if state.phase == core.OVER:
        assert g.winners[b, : s[batched.NWIN]].tolist() == state.winners, where


def play_both(config, batch_size: int, seed: int, steps_cap: int = 100_000) -> dict[str, int]:
    """Play ``batch_size`` games through the batch (exact mode) and the core side by side,
    with the same uniformly random choices; compare everything after every step."""
    batch = batched.TrashBatch(config, batch_size, exact=True)
    seeds = [[seed, b] for b in range(batch_size)]
    obs, masks = batch.reset(seeds)
    rngs = [np.random.default_rng(s) for s in seeds]
    states = []
    for b in range(batch_size):
        state = core.new_game(config, rngs[b])
        core.play_forced(state, rngs[b])
        states.append(state)
    observer = Observer(config)
    chooser = np.random.default_rng([seed, 99])
    decisions = 0
    for _ in range(steps_cap):
        actions = np.full(batch_size, -1, np.int64)
        for b, state in enumerate(states):
            assert_same_state(state, batch, b)
            if state.phase == core.OVER:
                assert batch.arrays.s[b, batched.PHASE] == core.OVER
                continue
            legal = core.legal_actions(state)
            assert batch.seats[b] == state.current
            np.testing.assert_array_equal(masks[b], core.action_mask(legal))
            np.testing.assert_array_equal(obs[b], observer.encode(state, state.current))
            actions[b] = legal[int(chooser.integers(len(legal)))]
        if (actions < 0).all():
            break
        obs, masks, rewards, dones = batch.step(actions)
        for b, state in enumerate(states):
            if actions[b] < 0:
                continue
            core.apply_action(state, int(actions[b]), rngs[b])
            core.play_forced(state, rngs[b])
            decisions += 1
            assert bool(dones[b]) == (state.phase == core.OVER)
            if dones[b]:
                assert rewards[b].tolist() == core.returns(state)
            else:
                assert not rewards[b].any()
    else:
        raise AssertionError("the games did not end")
    for b, state in enumerate(states):
        assert_same_state(state, batch, b)
    return {
        "decisions": decisions,
        "later_hands": sum(state.hand for state in states),
        "truncated": sum(state.truncated for state in states),
    }


CASES = [
    (preset, players, match)
    for preset, players, match in itertools.product(sorted(PRESETS), PLAYER_COUNTS, (False, True))
]


@pytest.mark.parametrize(("preset", "players", "match"), CASES, ids=lambda v: str(v))
def test_batched_engine_matches_the_core(preset: str, players: int, match: bool) -> None:
    """R1-R10, R13: 24 games per case (every preset, 2/3/5/8 players, hand and match), the
    same decks and reshuffles (exact mode) and the same random choices: identical states,
    acting seats, masks, observations, rewards and ends after every step."""
    config = make_config(preset, num_players=players, match=match)
    counts = play_both(config, 24, seed=players * 10 + match)
    assert counts["decisions"] > 0 or preset == "seven_up"


def test_differential_games_include_reshuffles_new_hands_and_truncation(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison reaches the rare events: reshuffles (R7; in Seven Up about one hand in
    six has one), later hands of a match (R9) and truncation at max_turns (R7)."""
    reshuffles = []
    draw_stock = core._draw_stock

    def counting(state: core.GameState, rng: np.random.Generator) -> None:
        reshuffles.append(not state.stock)
        draw_stock(state, rng)

    monkeypatch.setattr(core, "_draw_stock", counting)
    counts = play_both(make_config("seven_up", num_players=2, match=True), 16, seed=1)
    assert sum(reshuffles) >= 10 and counts["later_hands"] >= 50
    counts = play_both(make_config("pagat", num_players=3, max_turns=25), 32, seed=2)
    assert counts["truncated"] > 0
