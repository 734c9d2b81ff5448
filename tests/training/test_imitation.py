"""Kickstarting by imitation (agents.training.imitation): the reference read from observations
decides as the baseline does on the rules core (R4, R5, R15), returns are discounted per episode,
and the callback spends its demonstrations inside the counted budget and hands a fitted policy
over."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.baselines import GreedyAgent
from agents.training.imitation import discounted_returns, greedy_batch, reference_batch
from trash_env import TrashSingleAgentEnv
from trash_env.trash.rules import DRAW_STOCK, TAKE_DISCARD

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize(
    ("preset", "players", "match"), [("pagat", 4, True), ("standard", 2, False), ("standard", 3, True)]
)
def test_greedy_read_from_observations_decides_as_greedy_on_the_rules_core(
    preset: str, players: int, match: bool
) -> None:
    env = TrashSingleAgentEnv(preset, num_players=players, match=match, max_turns=400, opponents=[GreedyAgent()])
    decide = greedy_batch(players)
    greedy, rng = GreedyAgent(), np.random.default_rng(0)
    choices = {"take": 0, "draw": 0, "place": 0}
    for episode in range(4):
        observation, _ = env.reset(seed=episode)
        done = False
        while not done:
            mask = env.action_masks()
            legal = np.flatnonzero(mask).tolist()
            expected = greedy.choose(env.state, legal, rng)
            assert decide(observation[None], mask[None])[0] == expected
            choices["take" if expected == TAKE_DISCARD else "draw" if expected == DRAW_STOCK else "place"] += 1
            observation, _, terminated, truncated, _ = env.step(expected)
            done = terminated or truncated
    # every kind of decision was checked (drawing while a discard could be taken: R4.1's "any" rule of pagat)
    assert choices["take"] and choices["place"] and (choices["draw"] or preset != "pagat"), choices


def test_the_reference_refuses_bad_input_in_one_line() -> None:
    decide = greedy_batch(2)
    with pytest.raises(ValueError, match="2-player Trash observation has 150 entries, got 238"):
        decide(np.zeros((1, 238), np.float32), np.ones((1, 13), bool))
    with pytest.raises(ValueError, match="every row needs a legal action"):
        decide(np.zeros((1, 150), np.float32), np.zeros((1, 13), bool))
    with pytest.raises(ValueError, match="imitates \\['greedy'\\] of Trash, not 'heuristic' of help_your_neighbor"):
        reference_batch("heuristic", "help_your_neighbor", 2)
    with pytest.raises(ValueError, match="not 'counter' of trash"):
        reference_batch("counter", "trash", 2)


def test_returns_are_discounted_to_the_end_of_each_episode() -> None:
    rewards = np.array([[0.0, 1.0], [0.5, 0.0], [1.0, 0.0], [0.0, 2.0]])
    dones = np.array([[False, True], [False, False], [True, False], [False, False]])
    returns = discounted_returns(rewards, dones, 0.5)
    # env 0: steps 0..2 form an episode (0 + 0.5 * (0.5 + 0.5 * 1)), step 3 has not ended
    assert returns[:, 0].tolist()[:3] == [0.5, 1.0, 1.0] and np.isnan(returns[3, 0])
    # env 1: step 0 ends its episode alone; steps 1..3 have not ended
    assert returns[0, 1] == 1.0 and np.isnan(returns[1:, 1]).all()


@pytest.mark.slow
def test_the_kickstarted_builtin_imitates_inside_its_budget_and_selects_on_validation(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    from agents.bench.algorithms import BUILTIN, TaskContext, make_opponents
    from agents.bench.tasks import get_task

    task = get_task("trash-pagat-4p-match")
    algorithm = BUILTIN["maskable_ppo_kickstart"]()
    budget = 8 * 256 * 6
    validated: list[Any] = []

    def validator(agent: Any, deals: int | None) -> dict[str, Any]:
        validated.append(agent)
        return {"score": [0.0, 0.5, 0.5][len(validated) - 1]}  # the second point is best (and tied by the third)

    context = TaskContext(task, 0, budget, [0, budget // 2, budget], tmp_path, make_opponents(task), validator)
    seen: list[tuple[int, Any]] = []
    policy = algorithm.train(context, lambda timesteps, agent: seen.append((timesteps, agent)))
    report = algorithm.last_kickstart
    demonstrations = int(budget * algorithm.kickstart) // 8 * 8
    assert report["demonstrations"] == demonstrations
    assert report["agreement"] > 0.9  # the fitted policy decides as greedy on (almost) every recorded decision
    assert budget <= context.counted_steps <= budget + 8 * 256  # demonstrations and training inside the budget
    timesteps = [point for point, _ in seen]
    assert timesteps[0] == demonstrations  # the first point comes after the demonstrations, already fitted
    assert timesteps[1] >= budget // 2 and timesteps[2] >= budget and len(timesteps) == 3
    assert [entry["timesteps"] for entry in algorithm.last_selection] == timesteps
    assert [entry["chosen"] for entry in algorithm.last_selection] == [False, True, False]
    assert policy is validated[1] and policy is not seen[1][1]  # kept at that point, not the live policy
    assert Path(policy.path).parent == tmp_path and Path(policy.path).is_file()  # savable: the runner keeps it


def test_selection_returns_the_point_best_on_validation_ties_to_the_earliest(tmp_path: Path) -> None:
    from agents.baselines import RandomAgent
    from agents.bench.algorithms import SETTINGS, SB3Algorithm, TaskContext
    from agents.bench.tasks import get_task

    task = get_task("trash-pagat-4p-match")
    agents = [GreedyAgent(), RandomAgent(), GreedyAgent(), RandomAgent()]
    scores = {id(agents[0]): -0.2, id(agents[1]): 0.1, id(agents[2]): 0.3, id(agents[3]): 0.3}
    asked: list[Any] = []

    def validator(agent: Any, deals: int | None) -> dict[str, Any]:
        asked.append(deals)
        return {"score": scores[id(agent)]}

    context = TaskContext(task, 0, 1000, [0, 1000], tmp_path, validator=validator)
    algorithm = SB3Algorithm("selecting", SETTINGS["maskable_ppo"], select=True)
    chosen = algorithm._best_on_validation(context, list(enumerate(agents)))
    assert chosen is agents[2]
    assert [entry["chosen"] for entry in algorithm.last_selection] == [False, False, True, False]
    assert [entry["validation_score"] for entry in algorithm.last_selection] == [-0.2, 0.1, 0.3, 0.3]
    assert asked == [None] * 4  # a curve point's validation deals, never more


@pytest.mark.slow
def test_keeping_each_point_for_selection_leaves_training_unchanged(tmp_path: Path) -> None:
    """Selection only keeps copies: a selecting run trains the same networks, point for point, as the
    run without it (the same seed), so an ablation of selection compares the same training."""
    pytest.importorskip("sb3_contrib")
    from agents.bench.algorithms import KICKSTART_SETTINGS, SB3Algorithm, TaskContext, make_opponents
    from agents.bench.tasks import get_task

    task = get_task("trash-pagat-2p")
    budget = 8 * 256 * 4
    runs: list[list[dict[str, Any]]] = []
    for select in (False, True):
        seen: list[dict[str, Any]] = []
        context = TaskContext(
            task, 0, budget, [0, budget // 4, budget // 2, budget], tmp_path / str(select), make_opponents(task),
            lambda agent, deals: {"score": 0.0},
        )  # fmt: skip
        context.work_dir.mkdir()
        algorithm = SB3Algorithm("x", KICKSTART_SETTINGS, against_reference=True, kickstart=0.1, select=select)
        algorithm.train(context, lambda _, agent, seen=seen: seen.append(copy.deepcopy(agent.policy.state_dict())))
        runs.append(seen)
    assert len(runs[0]) == len(runs[1]) == 4
    for unselected, selected in zip(*runs, strict=True):
        assert all(bool((selected[key] == unselected[key]).all()) for key in unselected)


@pytest.mark.slow
def test_a_kickstarted_run_through_the_runner_keeps_its_selected_policy(tmp_path: Path) -> None:
    """The selected point's policy is a policy file the runner keeps beside a valid result; on a small
    budget it is the imitation itself, level with ``greedy`` deal for deal."""
    pytest.importorskip("sb3_contrib")
    from agents.bench.runner import sweep
    from agents.bench.tasks import get_task
    from agents.learned import LearnedAgent

    (result,) = sweep([get_task("trash-pagat-2p")], "maskable_ppo_kickstart", [0], tmp_path, fraction=0.2)
    assert result["valid"] and result["complete"], result["invalid_reasons"]
    policy = tmp_path / "trash-pagat-2p" / "maskable_ppo_kickstart" / "fraction_0.2" / result["artifact"]
    agent = LearnedAgent.load(policy)
    assert agent.metadata["preset"] == "pagat"
    assert agent.metadata["config"] == get_task("trash-pagat-2p").config().to_dict()
    assert result["counted_steps"] <= result["budget"] + 8 * 256
