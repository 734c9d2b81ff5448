"""The context an algorithm trains in (issue 24, items 3 and 8; :class:`agents.bench.algorithms.TaskContext`).

- every env factory counts the learner's timesteps: a single-agent step is 1, a vector env's step
  is ``num_envs``, an AEC step with an action is 1 (a dead agent's ``None`` is not a decision); the
  widest vector env built is recorded for the runner's slack;
- the built-in algorithms train through the same counter (``sb3.train(wrap_env=...)``): the count
  is the model's own ``num_timesteps``;
- every vector env the context gives has ``action_masks()``, for both games, with the task's
  opponents or with given ones;
- ``validate`` goes to the runner's validator (none: one line), ``make_opponent`` turns a policy into
  an opponent, and a plain callable given as an opponent is refused in one line;
- the spaces the module docstring states are those of every task's envs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.bench import algorithms
from agents.bench.algorithms import TaskContext, make_opponents
from agents.bench.tasks import TASKS, get_task

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def first_legal(observation: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def context_for(name: str, tmp_path: Path, budget: int = 1000, **fields: Any) -> TaskContext:
    task = get_task(name)
    return TaskContext(task, 0, budget, task.points(), tmp_path, make_opponents(task), **fields)


def opponents_for(context: TaskContext) -> list[Any] | None:
    """On a self-play task, a snapshot stand-in (the first legal move) made into an opponent."""
    return [context.make_opponent(first_legal)] if context.task.self_play else None


# --------------------------------------------------------------------------
# Counting


@pytest.mark.parametrize("name", ["trash-standard-2p", "hyn-4p", "hyn-2p-selfplay"])
def test_the_single_agent_env_counts_each_step(tmp_path: Path, name: str) -> None:
    context = context_for(name, tmp_path)
    env = context.single_agent_env(opponents_for(context))
    _, info = env.reset(seed=context.seed)
    episodes = 0
    for _ in range(57):
        assert np.array_equal(env.action_masks(), info["action_mask"])
        _, _, terminated, truncated, info = env.step(first_legal(None, env.action_masks()))
        if terminated or truncated:
            episodes += 1
            _, info = env.reset()
    assert context.counted_steps == context.counter.steps == 57 and episodes >= 1
    assert context.counter.largest_batch == 1


@pytest.mark.parametrize("name", ["trash-standard-2p", "trash-standard-2p-selfplay", "hyn-4p"])
def test_a_vector_env_counts_num_envs_per_step_and_records_the_widest(tmp_path: Path, name: str) -> None:
    pytest.importorskip("stable_baselines3")
    context = context_for(name, tmp_path)
    wide = context.vec_env(5, opponents_for(context))
    narrow = context.vec_env(3, opponents_for(context))
    for env, steps in ((narrow, 11), (wide, 4)):
        env.reset()
        for _ in range(steps):
            masks = env.action_masks()
            env.step(np.array([first_legal(None, row) for row in masks]))
    assert context.counted_steps == 3 * 11 + 5 * 4
    assert context.counter.largest_batch == 5


@pytest.mark.parametrize("name", ["trash-standard-4p", "hyn-2p"])
def test_the_pettingzoo_env_counts_each_decision_not_the_dead_steps(tmp_path: Path, name: str) -> None:
    context = context_for(name, tmp_path)
    env = context.pettingzoo_env()
    decisions = dead = 0
    for game in range(3):
        env.reset(seed=game)
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                dead += 1
            else:
                env.step(first_legal(None, observation["action_mask"]))
                decisions += 1
    assert dead == 3 * context.task.num_players and decisions > 10
    assert context.counted_steps == decisions and context.counter.largest_batch == 1


@pytest.mark.parametrize(("name", "batched"), [("trash-standard-2p", True), ("hyn-4p", False)])
def test_a_builtin_algorithm_is_counted_through_wrap_env_as_the_model_counts(
    tmp_path: Path, name: str, batched: bool
) -> None:
    """MaskablePPO at a tiny budget (its rollout fitted to it) trains on the context's counting
    wrapper: the count is the model's ``num_timesteps``, at least the budget and at most one rollout
    more; every checkpoint is called at or after its point, with no more timesteps than counted."""
    pytest.importorskip("sb3_contrib")
    budget = 640
    context = context_for(name, tmp_path, budget)
    context.eval_points = [0, 320, 640]
    reported: list[tuple[int, int]] = []
    fitted = algorithms.fit_to_budget(algorithms.SETTINGS["maskable_ppo"], budget)
    rollout = fitted["n_envs"] * fitted["n_steps"]
    policy = algorithms.BUILTIN["maskable_ppo"]().train(
        context, lambda timesteps, agent: reported.append((timesteps, context.counted_steps))
    )
    assert context.counted_steps == policy.metadata["num_timesteps"]
    assert budget <= context.counted_steps < budget + rollout
    assert context.counter.largest_batch == fitted["n_envs"]
    assert [t >= p for (t, _), p in zip(reported, context.eval_points)] == [True] * 3
    assert all(timesteps <= counted for timesteps, counted in reported)
    assert Path(policy.path).is_file()  # what the artifact is copied from


# --------------------------------------------------------------------------
# Masks


@pytest.mark.parametrize(
    "name",
    ["trash-standard-2p", "trash-pagat-4p-match", "trash-standard-2p-selfplay", "hyn-2p", "hyn-4p", "hyn-2p-selfplay"],
)
def test_every_vector_env_of_the_context_has_action_masks(tmp_path: Path, name: str) -> None:
    """With the task's opponents (the game's batched engine) and with opponents given (the
    single-agent envs in ``DummyVecEnv``), on both games: ``action_masks()`` is the [num_envs,
    actions] bool array of legal actions, as ``env_method`` gives it to MaskablePPO; playing it never
    makes an illegal move."""
    pytest.importorskip("stable_baselines3")
    context = context_for(name, tmp_path)
    given = [context.make_opponent(first_legal)]
    kinds = [given] if context.task.self_play else [None, given]
    actions = 13 if context.task.game == "trash" else 12
    for opponents in kinds:
        env = context.vec_env(4, opponents)
        env.reset()
        for _ in range(40):
            masks = env.action_masks()
            assert masks.shape == (4, actions) and masks.dtype == bool and masks.any(axis=1).all()
            assert np.array_equal(np.stack(env.env_method("action_masks")).astype(bool), masks)
            _, _, _, infos = env.step(np.array([first_legal(None, row) for row in masks]))
            assert not any(info.get("illegal_action") for info in infos)
        env.close()


@pytest.mark.parametrize(
    ("name", "engine"),
    [("trash-standard-2p", "TrashVecEnv"), ("hyn-2p", "NeighborVecEnv"), ("hyn-4p", "NeighborVecEnv")],
)
def test_the_task_opponents_vector_env_is_the_games_batched_engine(tmp_path: Path, name: str, engine: str) -> None:
    """Without opponents given, ``context.vec_env`` is the game's batched engine with the task's
    opponents and seat count (issue 25: Help Your Neighbor too, no longer ``DummyVecEnv``)."""
    pytest.importorskip("stable_baselines3")
    context = context_for(name, tmp_path)
    env = context.vec_env(3)
    inner = env
    while hasattr(inner, "venv"):
        inner = inner.venv
    assert type(inner).__name__ == engine
    assert inner.config.num_players == context.task.num_players
    assert inner.num_envs == 3
    env.close()


# --------------------------------------------------------------------------
# Validation, opponents


def test_validate_asks_the_runners_validator_with_the_policy_as_an_agent(tmp_path: Path) -> None:
    asked: list[tuple[Any, int | None]] = []

    def validator(agent: Any, deals: int | None) -> dict[str, Any]:
        asked.append((agent, deals))
        return {"score": 0.5, "low": 0.4, "high": 0.6, "normalized": 0.7, "deals": deals or 500}

    context = context_for("hyn-2p", tmp_path, validator=validator)
    assert context.validate(first_legal)["normalized"] == 0.7
    assert context.validate(first_legal, deals=20)["deals"] == 20
    assert [deals for _, deals in asked] == [None, 20]
    assert all(isinstance(agent, algorithms.Agent) for agent, _ in asked)
    for bad in (9, 1, 0, -3, 2.5, True, "10"):
        with pytest.raises(ValueError, match="deals must be an integer of at least 10"):
            context.validate(first_legal, deals=bad)


def test_validate_without_a_validator_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no validator") as error:
        context_for("hyn-2p", tmp_path).validate(first_legal)
    assert "\n" not in str(error.value)


def test_a_policy_becomes_an_opponent_and_a_plain_callable_is_refused(tmp_path: Path) -> None:
    """The documented policy form ``(observation, mask) -> action`` is made an opponent with
    ``make_opponent`` and plays every seat's moves legally; given as it is, it is refused at once (it
    used to fail deep in the rules with an IllegalActionError)."""
    from agents.registry import make_agent

    context = context_for("trash-standard-2p-selfplay", tmp_path)
    opponent = context.make_opponent(first_legal)
    env = context.single_agent_env([opponent])
    _, info = env.reset(seed=0)
    for _ in range(200):
        _, _, terminated, truncated, info = env.step(first_legal(None, info["action_mask"]))
        assert not info.get("illegal_action")
        if terminated or truncated:
            _, info = env.reset()
    for factory in (lambda: context.single_agent_env([first_legal]), lambda: context.vec_env(2, [first_legal])):
        with pytest.raises(ValueError, match=r"opponents must be agents with act\(view, rng\).*make_opponent"):
            factory()
    with pytest.raises(ValueError, match="trains by self-play: give the opponents"):
        context.vec_env(2)
    with pytest.raises(ValueError, match="plays help_your_neighbor, not trash"):
        context.make_opponent(make_agent("heuristic", "help_your_neighbor"))
    assert context.make_opponent(opponent) is opponent


# --------------------------------------------------------------------------
# The documented spaces


def test_the_documented_spaces_are_those_of_every_tasks_envs(tmp_path: Path) -> None:
    doc = algorithms.__doc__
    formula = {"trash": (62, 44, 13), "help_your_neighbor": (15, 13, 12)}
    assert "62 + 44 n" in doc and "15 + 13 n" in doc
    assert "``Discrete(13)``" in doc and "``Discrete(12)``" in doc
    for task in TASKS.values():
        context = context_for(task.name, tmp_path)
        env = context.single_agent_env(opponents_for(context))
        base, per_player, actions = formula[task.game]
        size = base + per_player * task.num_players
        assert env.observation_space.shape == (size,) and env.action_space.n == actions, task.name
        assert f"{size} ({task.num_players} players)" in doc, task.name
        aec = context.pettingzoo_env()
        assert aec.observation_space("player_0")["observation"].shape == (size,)
        assert aec.action_space("player_0").n == actions


@pytest.mark.parametrize("name", ["hyn-2p", "hyn-2p-selfplay", "trash-standard-2p"])
def test_the_builtin_maskable_ppo_trains_on_the_games_batched_engine(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The built-in MaskablePPO trains every task's games on the batched engine, Help Your Neighbor's
    included (issue 25), its counted steps at least the budget."""
    pytest.importorskip("sb3_contrib")
    from agents.training import sb3 as training

    real, seen = training.train, []

    def spy(args: Any, **kwargs: Any) -> Any:
        seen.append(args.batched)
        return real(args, **kwargs)

    monkeypatch.setattr(training, "train", spy)
    context = context_for(name, tmp_path, budget=512)
    policy = algorithms.load_algorithm("maskable_ppo").train(context, lambda steps, agent: None)
    assert seen == [True]
    assert context.counted_steps >= 512
    assert policy is not None
