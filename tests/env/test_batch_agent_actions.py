"""What an agent that decides in batches returns is checked before an engine applies it (issue 49): in the
vector envs (the opponents' actions and the learner's), batched duplicate evaluation, and the exact
evaluation of two-player Help Your Neighbor (its policy). Each refusal is the scalar path's
``IllegalActionError`` (R13, R14), one line naming the agent; before the check, ``2**40`` from a
``TrashVecEnv`` opponent crashed the process, ``-1`` hung both vector envs, any illegal action hung the
Trash engine, and on Help Your Neighbor action 11 played silently."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents.base import Agent
from trash_env.kernel import IllegalActionError, checked_actions, checked_policy

pytest.importorskip("numba")
pytest.importorskip("stable_baselines3")

MASKS = np.array([[1, 0, 1], [0, 1, 0]], np.int8)


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        ([0, 1], None),
        (np.array([2, 1], np.uint8), None),
        ([1, 1], "bad: action 1 is illegal in game 0 (legal: [0, 2])"),
        ([0, -1], "bad: action -1 is illegal in game 1 (legal: [1])"),
        ([0, 2**40], "bad: action 1099511627776 is illegal in game 1"),
        ([0.0, 1.0], "bad returned actions of dtype float64: an action is an integer"),
        ([True, True], "dtype bool"),
        ([0], "bad returned actions of shape (1,) for 2 positions"),
        ([[0, 1]], "shape (1, 2)"),
        (None, "shape ()"),
        ([None, None], "dtype object"),
    ],
)
def test_a_batch_of_actions_is_integers_in_range_and_legal(actions: Any, message: str | None) -> None:
    if message is None:
        checked = checked_actions(actions, MASKS, "bad")
        assert checked.dtype == np.int64 and checked.tolist() == np.asarray(actions).tolist()
        return
    with pytest.raises(IllegalActionError) as refused:
        checked_actions(actions, MASKS, "bad")
    assert message in str(refused.value) and "\n" not in str(refused.value)


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        ([[0.5, 0.0, 0.5], [0.0, 1.0, 0.0]], None),
        ([[0.5, 0.5, 0.0], [0.0, 1.0, 0.0]], "position 0 is not a distribution over the legal actions [0, 2]"),
        ([[0.5, 0.0, 0.4], [0.0, 1.0, 0.0]], "position 0"),
        ([[1.5, 0.0, -0.5], [0.0, 1.0, 0.0]], "position 0"),
        ([[0.5, 0.0, 0.5], [0.0, np.nan, 0.0]], "position 1"),
        ([[1.0, 0.0, 0.0]], "not a (2, 3) array of probabilities"),
        ([["a", "b", "c"], ["a", "b", "c"]], "not a (2, 3) array"),
    ],
)
def test_a_batch_policy_is_a_distribution_over_the_legal_actions(policy: Any, message: str | None) -> None:
    if message is None:
        assert checked_policy(policy, MASKS, "bad").shape == MASKS.shape
        return
    with pytest.raises(IllegalActionError) as refused:
        checked_policy(policy, MASKS, "bad")
    assert message in str(refused.value) and "bad" in str(refused.value) and "\n" not in str(refused.value)


class Returns(Agent):
    """Decides in batches and returns ``action`` for every position (legal or not): a hostile plugin."""

    batchable = True
    games = None

    def __init__(self, action: Any) -> None:
        self.action = action
        self.name = f"returns_{action}"

    def act(self, view: Any, rng: np.random.Generator) -> int:
        return self.action

    def act_batch(self, observations: np.ndarray, masks: np.ndarray, rngs: Any) -> np.ndarray:
        return np.full(len(masks), self.action)


@pytest.mark.parametrize(
    ("game", "action"),
    [("trash", 2**40), ("trash", -1), ("trash", 13), ("help_your_neighbor", 11), ("help_your_neighbor", -1)],
)
def test_an_opponent_that_plays_outside_the_rules_is_refused(game: str, action: int) -> None:
    """Trash: 2**40 crashed the process, -1 hung it, 13 (an illegal action) hung the engine; Help Your
    Neighbor: 11 played silently, -1 hung it."""
    from agents.training.sb3 import batched_vec_env

    env = batched_vec_env(game, 4, "standard", [Returns(action)], 0, {})
    with pytest.raises(IllegalActionError, match=rf"opponent returns_{action}: action {action} is illegal in game"):
        env.reset()
        for _ in range(200):
            env.step(np.array([int(np.flatnonzero(mask)[0]) for mask in env.action_masks()]))


def test_the_learners_float_actions_are_refused_in_one_line() -> None:
    from trash_env.trash.vec_env import TrashVecEnv

    env = TrashVecEnv(2, seed=0)
    env.reset()
    with pytest.raises(IllegalActionError, match=r"the learner returned actions of dtype float64.*MaskablePPO"):
        env.step(np.array([0.0, 1.0]))


@pytest.mark.parametrize("game", ["trash", "help_your_neighbor"])
def test_batched_evaluation_refuses_an_illegal_action(game: str) -> None:
    from agents.evaluation.duplicate import run_pairings
    from trash_env.games import GAMES

    config = GAMES[game].make_config(num_players=2)
    agents = {"bad": Returns(99), "random": None}
    from agents.registry import make_agent

    agents["random"] = make_agent("random", game)
    with pytest.raises(IllegalActionError, match="bad: action 99 is illegal in game"):
        run_pairings(config, [("bad", "random")], deals=4, prebuilt=agents, engine="batched")


def test_exact_evaluation_refuses_a_policy_off_the_legal_actions() -> None:
    from agents.evaluation.exact import decision_tables

    class Spread(Returns):
        def policy_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
            return np.full(masks.shape, 1 / masks.shape[1])  # on every action, legal or not

    with pytest.raises(IllegalActionError, match="returns_99: action 99 is illegal in game 0"):
        decision_tables(Returns(99))  # the default policy_batch: the one-hot of act_batch
    with pytest.raises(IllegalActionError, match="returns_0: its policy in position 0 is not a distribution"):
        decision_tables(Spread(0))
