"""Policy-Space Response Oracles (:mod:`agents.training.psro`): the meta-solver, the weighted pool, the
distillation of a mixture, a run on the batched engine, and the benchmark built-in."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("numba")

from agents.bench.algorithms import PSRO, TaskContext, make_opponents
from agents.bench.tasks import get_task
from agents.linear import LinearAgent
from agents.training.fast_ppo import FastSettings
from agents.training.psro import PSROSettings, distil, fitted, meta_nash, train_psro, weighted_pool
from trash_env.games import get_game

TASK = get_task("hyn-2p-selfplay")
SMALL = PSROSettings(iterations=2, payoff_games=16, distil_decisions=1_024, distil_epochs=5,
                     oracle=FastSettings(n_envs=16, n_steps=16, epochs=2, minibatch=128, hidden=(16,)))


def test_the_meta_solver_finds_the_equilibrium_of_small_games() -> None:
    rock_paper_scissors = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], float)
    np.testing.assert_allclose(meta_nash(rock_paper_scissors, 20_000), [1 / 3] * 3, atol=0.01)
    dominated = np.array([[0, -1, -1], [1, 0, 0.5], [1, -0.5, 0]], float)  # the second beats both others
    assert meta_nash(dominated, 20_000)[1] > 0.99


def test_the_weighted_pool_seats_members_in_proportion() -> None:
    pool = weighted_pool(["a", "b", "c"], np.array([0.5, 0.25, 0.0]), slots=20)
    assert pool.count("a") == 10 and pool.count("b") == 5 and "c" not in pool


def _context(budget: int, seed: int = 0) -> TaskContext:
    return TaskContext(TASK, seed, budget, [0, budget // 2, budget], Path(tempfile.mkdtemp()), make_opponents(TASK))


def _blank(context: TaskContext, bias: np.ndarray | None = None, sample: bool = False) -> LinearAgent:
    game = get_game(TASK.game)
    size = game.make_observer(context.config).size
    return LinearAgent(np.zeros((size, game.num_actions)), np.zeros(game.num_actions) if bias is None else bias,
                       TASK.game, config=context.config, sample=sample)


def test_the_distillation_of_one_pure_member_plays_as_it_does() -> None:
    """A mixture of one deterministic policy (always the legal action of lowest index) distils into a
    network that chooses as it does on nearly every decision it reaches."""
    context = _context(20_000)
    game = get_game(TASK.game)
    lowest = _blank(context, bias=-np.arange(game.num_actions, dtype=float))
    venv = context.vec_env(16, opponents=[lowest], batched=True)
    settings = dataclasses.replace(SMALL, distil_epochs=30)
    distilled = distil(venv, [lowest], np.ones(1), TASK.game, context.config, settings,
                       np.random.default_rng(0), 4_096)
    observations, masks = venv.reset(), venv.action_masks()
    agree = []
    for _ in range(50):
        ours = distilled.act_batch(observations, masks, [None] * len(masks))
        theirs = lowest.act_batch(observations, masks, [None] * len(masks))
        agree.extend((ours == theirs).tolist())
        observations, *_ = venv.step_arrays(theirs)
        observations, masks = observations.copy(), venv.action_masks()
    assert np.mean(agree) > 0.9


def test_a_run_counts_its_budget_checkpoints_its_points_and_repeats_with_its_seed() -> None:
    def run(seed: int) -> tuple[LinearAgent, list[int], int]:
        context = _context(12_000, seed)
        venv = context.vec_env(16, opponents=[_blank(context)], batched=True)
        points: list[int] = []
        policy = train_psro(venv, 12_000, TASK.game, context.config, seed, SMALL, points=tuple(context.eval_points),
                            checkpoint=lambda timesteps, agent: points.append(timesteps) or reported.append(agent),
                            counted=lambda: context.counted_steps)
        return policy, points, context.counted_steps

    reported: list[LinearAgent] = []
    policy, points, counted = run(0)
    assert 12_000 <= counted < 12_000 + 16 and policy.name == "psro"
    assert points[0] == 0 and len(points) == 3 and points[-1] == 12_000
    assert reported[-1] is policy  # the last point reports the policy returned (not the one before the last fit)
    again, other = run(0)[0], run(1)[0]
    assert all(np.array_equal(a, b) for a, b in zip(policy.weights, again.weights, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(policy.weights, other.weights, strict=True))


def test_settings_fit_a_small_budget_and_bad_ones_are_refused() -> None:
    small = fitted(PSROSettings(), 10_000)
    assert small.distil_decisions * small.iterations <= 10_000 // 4 + 64 * small.iterations
    with pytest.raises(ValueError, match=r"PSROSettings\.iterations"):
        PSROSettings(iterations=0).check()


def test_the_builtin_refuses_a_task_that_is_not_two_player_self_play() -> None:
    task = get_task("hyn-2p")
    context = TaskContext(task, 0, 1000, [1000], Path(tempfile.mkdtemp()), make_opponents(task))
    with pytest.raises(ValueError, match="not such a task"):
        PSRO().train(context, lambda timesteps, agent: None)


@pytest.mark.slow
def test_the_builtin_keeps_the_protocol_on_the_solved_self_play_task(tmp_path: Path) -> None:
    from agents.bench.runner import run_one

    result = run_one("hyn-2p-selfplay", "psro", 0, str(tmp_path), fraction=0.1)
    assert result["valid"] and result["algorithm"] == "psro" and result["final"]["exact"] is not None
