"""Neural Fictitious Self-Play (:mod:`agents.training.nfsp`): its buffers, a run on the batched
engine, and the benchmark built-in's refusals."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from agents.bench.algorithms import NFSP, TaskContext, make_opponents
from agents.bench.tasks import get_task
from agents.linear import LinearAgent
from agents.training.nfsp import NFSPSettings, Reservoir, Ring, fitted, train_nfsp
from trash_env.games import get_game

TASK = get_task("hyn-2p-selfplay")


def test_the_reservoir_keeps_every_addition_with_the_same_probability() -> None:
    """10,000 additions into a reservoir of 100, 300 times over: the first tenth of the stream and the
    last tenth are each kept about a tenth of the time (a ring would keep only the last)."""
    rng = np.random.default_rng(0)
    kept = np.zeros(10_000)
    for _ in range(300):
        reservoir = Reservoir(100, {"x": ((), np.int64)}, rng)
        for start in range(0, 10_000, 50):
            reservoir.add(x=np.arange(start, start + 50))
        assert reservoir.size == 100
        kept[reservoir.arrays["x"]] += 1
    rates = kept / 300
    assert rates[:1000].mean() == pytest.approx(0.01, rel=0.15)
    assert rates[-1000:].mean() == pytest.approx(0.01, rel=0.15)


def test_the_ring_keeps_the_newest() -> None:
    ring = Ring(5, {"x": ((), np.int64)})
    ring.add(x=np.arange(3))
    ring.add(x=np.arange(3, 8))
    assert ring.size == 5 and sorted(ring.arrays["x"].tolist()) == [3, 4, 5, 6, 7]


def _context(budget: int, seed: int = 0) -> TaskContext:
    return TaskContext(TASK, seed, budget, [0, budget // 2, budget], Path(tempfile.mkdtemp()), make_opponents(TASK))


def _train(budget: int, seed: int) -> tuple[LinearAgent, list[int], int]:
    context = _context(budget, seed)
    game = get_game(TASK.game)
    size = game.make_observer(context.config).size
    blank = LinearAgent(np.zeros((size, game.num_actions)), np.zeros(game.num_actions), TASK.game)
    settings = dataclasses.replace(fitted(NFSPSettings(), budget), n_envs=16)
    venv = context.vec_env(settings.n_envs, opponents=[blank], batched=True)
    points: list[int] = []
    policy = train_nfsp(
        venv,
        budget,
        TASK.game,
        context.config,
        seed,
        settings,
        points=tuple(context.eval_points),
        checkpoint=lambda timesteps, agent: points.append(timesteps),
        counted=lambda: context.counted_steps,
    )
    return policy, points, context.counted_steps


def test_a_run_counts_its_budget_checkpoints_its_points_and_repeats_with_its_seed() -> None:
    """On the batched engine (which refuses an illegal action): the count is the budget to one step of
    the games, a checkpoint at each point, the same weights from the same seed and others from another."""
    policy, points, counted = _train(4_000, 0)
    assert 4_000 <= counted < 4_000 + 16
    assert len(points) == 3 and points[0] == 0 and 2_000 <= points[1] < 2_000 + 16 and points[2] == 4_000
    again, _, _ = _train(4_000, 0)
    other, _, _ = _train(4_000, 1)
    assert all(np.array_equal(a, b) for a, b in zip(policy.weights, again.weights, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(policy.weights, other.weights, strict=True))


@pytest.mark.parametrize(
    ("field", "value"), [("anticipatory", 1.5), ("batch_size", 0), ("rl_learning_rate", 0.0), ("hidden", ())]
)
def test_bad_settings_are_refused_naming_the_field(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=f"NFSPSettings.{field}"):
        dataclasses.replace(NFSPSettings(), **{field: value}).check()


def test_the_builtin_refuses_a_task_that_is_not_two_player_self_play() -> None:
    task = get_task("hyn-2p")
    context = TaskContext(task, 0, 1000, [1000], Path(tempfile.mkdtemp()), make_opponents(task))
    with pytest.raises(ValueError, match="not such a task"):
        NFSP().train(context, lambda timesteps, agent: None)
