"""The batched engine played beside the rules core, compared after every step (R1-R10, R13)."""

from __future__ import annotations

import numpy as np

from trash_env.trash import batched
from trash_env.trash import rules as trash
from trash_env.trash.observation import TrashObserver


def assert_same_state(state: trash.TrashState, batch: batched.TrashBatch, b: int) -> None:
    """Every field of the core's state equals the batch's game ``b``."""
    g = batch.arrays
    s = g.s[b]
    n = state.num_players
    where = f"game {b}, turn {state.turn}"
    assert s[batched.PHASE] == state.phase, where
    assert s[batched.CUR] == state.current, where
    assert s[batched.TURN] == state.turn, where
    assert s[batched.HAND] == state.hand, where
    if state.phase != trash.OVER:
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
    if state.phase == trash.OVER:
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
        state = trash.new_game(config, rngs[b])
        trash.play_forced(state, rngs[b])
        states.append(state)
    observer = TrashObserver(config)
    chooser = np.random.default_rng([seed, 99])
    decisions = 0
    for _ in range(steps_cap):
        actions = np.full(batch_size, -1, np.int64)
        for b, state in enumerate(states):
            assert_same_state(state, batch, b)
            if state.phase == trash.OVER:
                assert batch.arrays.s[b, batched.PHASE] == trash.OVER
                continue
            legal = trash.legal_actions(state)
            assert batch.seats[b] == state.current
            np.testing.assert_array_equal(masks[b], trash.action_mask(legal))
            np.testing.assert_array_equal(obs[b], observer.encode(state, state.current))
            actions[b] = legal[int(chooser.integers(len(legal)))]
        if (actions < 0).all():
            break
        obs, masks, rewards, dones = batch.step(actions)
        for b, state in enumerate(states):
            if actions[b] < 0:
                continue
            trash.apply_action(state, int(actions[b]), rngs[b])
            trash.play_forced(state, rngs[b])
            decisions += 1
            assert bool(dones[b]) == (state.phase == trash.OVER)
            if dones[b]:
                assert rewards[b].tolist() == trash.returns(state)
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


def assert_learners_see_the_cores(env, obs: np.ndarray, masks: np.ndarray, observer, rules) -> None:
    """Each game of a batched vector env waits on its learner, who sees the game as the scalar observer
    encodes the same state and may play what the rules core (``rules``, the game's) calls legal."""
    for b in range(len(masks)):
        state = env.batch.game_state(b)
        learner = int(env.batch.state[b, env.batch.learner_cell])
        assert state.current == learner
        np.testing.assert_array_equal(obs[b], observer.encode(state, learner))
        np.testing.assert_array_equal(masks[b], rules.action_mask(rules.legal_actions(state)).astype(bool))


def assert_model_plays_legal_moves(model, env, steps: int = 20) -> None:
    """A MaskablePPO ``model`` trained on the vector env ``env`` then plays ``steps`` steps of all its
    games from a reset, each action legal by the masks SB3's ``get_action_masks`` reads."""
    from sb3_contrib.common.maskable.utils import get_action_masks

    obs = env.reset()
    for _ in range(steps):
        masks = get_action_masks(env)
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert masks[np.arange(len(masks)), actions].all()
        obs, _, _, _ = env.step(actions)
