"""PettingZoo's ``env.state()``: the global state for centralised critics, hidden cards included.

``trash_v0`` and ``help_your_neighbor_v0`` implement ``state()`` and ``state_space`` as PettingZoo
documents (its own ``state_test`` passes); the game itself is ``env.unwrapped.game_state``. In
Trash the state holds what no seat observes (R2, R15): the card under each face-down slot and the
stock; in Help Your Neighbor nothing is hidden (R12).
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import trash_env
from trash_env import help_your_neighbor_v0
from trash_env.trash import rules as trash
from trash_env.trash.config import make_config
from trash_env.trash.observation import TrashGlobalState

# The module (pettingzoo.test exports a function of the same name).
state_test = importlib.import_module("pettingzoo.test.state_test")


@pytest.mark.parametrize("num_players", [2, 3, 5, 8])
@pytest.mark.parametrize("make", [trash_env.env, help_your_neighbor_v0.env], ids=["trash", "help_your_neighbor"])
def test_pettingzoos_state_test_passes(make, num_players: int) -> None:
    env = make(num_players=num_players)
    state_test.test_state_space(env.unwrapped)
    state_test.test_state(env, num_cycles=50, seed=num_players)


def test_trash_state_holds_the_hidden_cards() -> None:
    """The state's pieces are seat 0's observation, the face-down card of every slot and the stock
    (counts and top card), checked against the core's game state after each move of random games;
    two states that differ only in a hidden card have the same observations and different states."""
    env = trash_env.raw_env("standard", num_players=3)
    rng = np.random.default_rng(0)
    pieces = env.global_state
    for seed in range(20):
        env.reset(seed=seed)
        while not env.game_state.over:
            state, vector = env.game_state, env.state()
            assert env.state_space.contains(vector)
            parts = pieces.view(vector)
            np.testing.assert_array_equal(parts["public"], env.observer.encode(state, 0))
            for seat in range(3):
                for slot, (value, card) in enumerate(zip(state.up[seat], state.down[seat])):
                    expected = np.eye(trash.NUM_RANKS)[card] if value == trash.FACE_DOWN else 0
                    np.testing.assert_array_equal(parts["face_down_cards"][seat, slot], expected)
            counts = np.rint(parts["stock_counts"] * np.asarray(state.config.copies_per_rank)).astype(int)
            assert counts.tolist() == np.bincount(state.stock, minlength=trash.NUM_RANKS).tolist()
            assert np.flatnonzero(parts["stock_top"]).tolist() == ([state.stock[-1]] if state.stock else [])
            legal = trash.legal_actions(state)
            env.step(int(rng.choice(legal)))

    config = make_config("standard")
    first = trash.new_game(config, np.random.default_rng(1))
    second = trash.clone(first)
    second.down[0][0], second.down[1][0] = first.down[1][0], first.down[0][0]
    if first.down[0][0] != first.down[1][0]:
        observer, encoder = env.observer.__class__(config), TrashGlobalState(config)
        for seat in range(2):
            np.testing.assert_array_equal(observer.encode(first, seat), observer.encode(second, seat))
        assert not np.array_equal(encoder.encode(first), encoder.encode(second))


def test_help_your_neighbor_state_is_seat_zeros_observation() -> None:
    env = help_your_neighbor_v0.raw_env(num_players=4)
    env.reset(seed=3)
    np.testing.assert_array_equal(env.state(), env.observer.encode(env.game_state, 0))
    assert env.state_space.shape == (env.observer.size,)


def test_state_before_reset_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        trash_env.raw_env().state()


def test_docstring_state_size_matches_the_encoder() -> None:
    """The size the docstring of trash_v0 states for env.state() ("90 + 184 n", 458 for two)."""
    import re

    doc = trash_env.trash.env.__doc__
    formulas = re.findall(r"(\d+) \+ (\d+) n floats", doc)
    assert formulas and re.search(r"\((\d+) for two players\)", doc)[1] == str(TrashGlobalState(make_config()).size)
    for a, b in formulas:
        for n in range(2, 9):
            assert int(a) + int(b) * n == TrashGlobalState(make_config(num_players=n)).size
