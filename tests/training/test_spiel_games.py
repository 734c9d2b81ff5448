"""The batched multi-agent learners on OpenSpiel's games (agents/training/spiel_games.py, issue 52).

Checked here: the vector env behind the batched engines' interface plays Kuhn poker by its rules (the
learner in both seats, only legal actions, a reward only at the end and in the game's range); the
exact exploitability of the uniform policy is OpenSpiel's own figure for it; a greedy read-off puts
all weight on one action; ``nfsp`` and ``mmd`` run on the game unchanged and return policies whose
exploitability OpenSpiel scores, below the uniform policy's."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
torch = pytest.importorskip("torch")

from agents.training.spiel_games import (  # noqa: E402
    SpielPolicy,
    SpielVecEnv,
    exploitability,
    greedy,
    policy_of,
)

GAME = "kuhn_poker"


def _uniform() -> SpielPolicy:
    net = torch.nn.Linear(11, 2)
    torch.nn.init.zeros_(net.weight)
    torch.nn.init.zeros_(net.bias)
    return SpielPolicy(net, "uniform")


def test_the_vector_env_plays_kuhn_poker_in_both_seats() -> None:
    venv = SpielVecEnv(GAME, 16, seed=0)
    observations, rng = venv.reset(), np.random.default_rng(0)
    assert observations.shape == (16, 11) and venv.action_masks().shape == (16, 2)
    rewards, seats, ended = [], set(), 0
    for _ in range(300):
        masks = venv.action_masks()
        assert masks.any(axis=1).all()
        seats.update(int(seat) for seat in venv.seats)
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
        observations, reward, done, truncated, final = venv.step_arrays(actions)
        assert not truncated.any() and (reward[~done] == 0).all()
        assert (final[done, :2].sum(axis=1) == 1).all() and not final[~done].any()  # the seat's last view
        rewards.extend(reward[done].tolist())
        ended += int(done.sum())
    assert seats == {0, 1} and ended > 1000
    assert set(rewards) <= {-2.0, -1.0, 1.0, 2.0}  # Kuhn: an ante, and one bet at most
    with pytest.raises(ValueError, match="not legal"):
        venv.step_arrays(np.where(venv.action_masks()[:, 0], 5, 5))


def test_exploitability_is_openspiels_and_a_greedy_read_off_is_pure() -> None:
    from open_spiel.python import policy
    from open_spiel.python.algorithms import exploitability as spiel

    uniform = _uniform()
    expected = spiel.exploitability(pyspiel.load_game(GAME), policy.UniformRandomPolicy(pyspiel.load_game(GAME)))
    assert exploitability(GAME, uniform) == pytest.approx(expected, abs=1e-9)
    probabilities = greedy(uniform).probabilities(np.zeros((3, 11), np.float32), np.ones((3, 2), bool))
    assert np.array_equal(probabilities, np.eye(2)[[0, 0, 0]])


@pytest.mark.parametrize("method", ["nfsp", "mmd"])
def test_the_learners_run_unchanged_on_an_openspiel_game(method: str) -> None:
    from agents.training.fast_ppo import train_fast
    from agents.training.mmd import MMD
    from agents.training.nfsp import NFSPSettings, fitted, train_nfsp

    seen: list[Any] = []
    run = {"budget": 20_000, "game": None, "config": None, "seed": 0, "points": (20_000,),
           "checkpoint": lambda timesteps, policy: seen.append(policy), "policy_of": policy_of}
    venv = SpielVecEnv(GAME, 32, seed=0)
    if method == "nfsp":
        final = train_nfsp(venv, settings=fitted(NFSPSettings(n_envs=32), 20_000), **run)
    else:
        final, _ = train_fast(venv, settings=MMD.fitted(20_000), self_play=True, **run)
    assert isinstance(final, SpielPolicy) and len(seen) == 1
    assert exploitability(GAME, final) < exploitability(GAME, _uniform()) - 0.05
