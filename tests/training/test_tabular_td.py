"""The tabular self-play recipe for two-player Help Your Neighbor (R12, R14; issue 28) and its value
table agent: the backup is the solver's Bellman operator state by state (the solver is checked
against the rules core), the agent decides as ``optimal`` does from the same values, the table file
is read weights-only and refused in one line when damaged, the engine plays a table player as the
agent would, and the trainer keeps to its counted budget and learns."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.bench.algorithms import TaskContext, load_algorithm, make_opponents
from agents.bench.artifacts import load_artifact, save_artifact
from agents.bench.runner import slack
from agents.bench.tasks import MAX_FRACTION, get_task
from agents.linear import LinearAgent
from agents.registry import make_agent
from agents.training.tabular_td import BIT, PROBABILITY, Settings, backup, greedy, train
from agents.value_table import SIZE, ValueTableAgent, is_value_table, load_npz
from trash_env.neighbor.rules import END_TURN, ROLL_DICE, TOTALS, UNCOVER_0
from trash_env.neighbor.solver import bellman, roll_again_table, uncover_table
from trash_env.neighbor.vec_env import NeighborVecEnv

FULL = SIZE - 1


def random_value(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).random((SIZE, SIZE))


def random_states(seed: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.integers(0, FULL, count), rng.integers(0, FULL, count)  # (neither player has won)


def test_the_backup_is_the_solvers_bellman_operator_state_by_state() -> None:
    """R12: one roll's totals by probability, a 7 uncovering the best marker, the privilege handing
    the turn over, a win on the last marker: the same equations as the solved game's."""
    value = random_value(0)
    swept = bellman(value)
    me, opp = random_states(1, 3000)
    mine = np.array([backup(value, m, o, BIT, PROBABILITY) for m, o in zip(me, opp)])
    np.testing.assert_allclose(mine, swept[me, opp], atol=1e-12)
    for m, o in [(0, 0), (FULL ^ 1, 0), (0, FULL ^ 1), (FULL ^ 1, FULL ^ 2)]:  # nothing covered; one marker left
        assert backup(value, m, o, BIT, PROBABILITY) == pytest.approx(swept[m, o], abs=1e-12)


def test_the_trainers_greedy_choice_is_the_agents() -> None:
    value = random_value(2)
    agent = ValueTableAgent(value.astype(np.float32))
    me, opp = random_states(3, 4000)
    me[:100] = 0b11  # two covered: an uncover with a choice
    choosing = np.arange(len(me)) % 2 == 0
    choosing[me == 0] = True  # nothing covered: never asked to uncover
    np.testing.assert_array_equal(
        greedy(agent.value.astype(np.float64), me, opp, choosing), agent.decide(me, opp, choosing)
    )


def test_a_table_of_the_solved_values_decides_as_optimal() -> None:
    """The agent's rule is the solved game's policy given values: fed the solution (here only to
    check the rule, never in training), it is ``optimal``."""
    from agents.optimal import OptimalAgent
    from trash_env.neighbor.solver import load_solution

    solution = load_solution()
    agent = ValueTableAgent(solution.value.astype(np.float32))
    roll_again, uncover = OptimalAgent().tables()
    me, opp = random_states(4, 20000)
    # float32 can only differ from float64 on near-ties; these are read at float64 by optimal
    value = solution.value
    clear = np.abs(value[me, opp] - (1 - value[opp, me])) > 1e-5
    assert clear.mean() > 0.95
    np.testing.assert_array_equal(agent.engine_tables()[0][me, opp][clear], roll_again[me, opp][clear])
    table = agent.engine_tables()[1]
    assert (table[me, opp] == uncover[me, opp]).mean() > 0.99


def test_the_engine_plays_a_table_player_as_the_agent_plays(tmp_path: Path) -> None:
    """A ValueTableAgent opponent plays inside the engine from its tables; asked outside the engine
    (a plain batch-deciding agent) it makes the same moves: same seeds, same games."""

    value = random_value(5).astype(np.float32)
    roll_again = roll_again_table(value.astype(np.float64), value.astype(np.float64))
    uncover = uncover_table(value.astype(np.float64), TOTALS)

    class Asked(ValueTableAgent):  # the same agent, without the engine's tables
        engine_tables = None  # type: ignore[assignment]

        def decide(self, me: Any, opp: Any, choosing: Any) -> Any:
            return np.where(choosing, np.where(roll_again[me, opp], ROLL_DICE, END_TURN), UNCOVER_0 + uncover[me, opp])

    trajectories = []
    for opponent in (ValueTableAgent(value), Asked(value)):
        env = NeighborVecEnv(64, opponents=[opponent], seed=7, num_players=2)
        observations, seen = env.reset(), []
        learner = ValueTableAgent(value)
        for _ in range(200):
            actions = learner.act_batch(observations, env.action_masks(), [None] * 64)
            observations, rewards, dones, _ = env.step(actions)
            seen.append((observations.copy(), rewards.copy(), dones.copy()))
        trajectories.append(seen)
    for (a, ra, da), (b, rb, db) in zip(*trajectories):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(da, db)


def test_the_engine_sees_a_refreshed_table_and_refuses_two_table_players() -> None:
    agent = ValueTableAgent()
    env = NeighborVecEnv(8, opponents=[agent], seed=0, num_players=2)
    assert env.batch.tables[0] is agent.engine_tables()[0]  # the very arrays: refresh() is seen
    agent.value[:] = 0.2
    agent.refresh()
    assert env.batch.tables[0] is agent.engine_tables()[0]
    with pytest.raises(ValueError, match="one table player at a time"):
        env.set_opponents([agent, ValueTableAgent()])
    with pytest.raises(ValueError, match="not beside optimal"):
        env.set_opponents([agent, "optimal"])
    with pytest.raises(ValueError, match="two-player"):
        NeighborVecEnv(8, opponents=[agent], seed=0, num_players=3)


# --------------------------------------------------------------------------
# The file


def test_a_table_is_saved_and_loaded_weights_only(tmp_path: Path) -> None:
    agent = ValueTableAgent(random_value(6).astype(np.float32))
    path = agent.save(tmp_path / "table")
    assert path.name == "table.npz" and is_value_table(path)
    for loaded in (ValueTableAgent.load(path), load_npz(path), make_agent(str(path), "help_your_neighbor")):
        assert isinstance(loaded, ValueTableAgent)
        np.testing.assert_array_equal(loaded.value, agent.value)
    linear = LinearAgent(np.zeros((41, 12)), np.zeros(12), "help_your_neighbor").save(tmp_path / "linear")
    assert not is_value_table(linear) and isinstance(load_npz(linear), LinearAgent)


def _write(path: Path, members: dict[str, Any]) -> Path:
    with open(path, "wb") as handle:
        np.savez(handle, **members)
    return path


METADATA = np.array(
    json.dumps({"kind": "trash-rl neighbor value table", "format": 1, "game": "help_your_neighbor", "num_players": 2})
)


@pytest.mark.parametrize(
    ("members", "message"),
    [
        ({"value": np.full((SIZE, SIZE), 0.5, np.float32)}, "not a trash-rl neighbor value table"),
        ({"value": np.full((SIZE, 8), 0.5, np.float32), "metadata": METADATA}, "has shape"),
        ({"value": np.full((SIZE, SIZE), 0.5, np.float64), "metadata": METADATA}, "over the limit"),
        ({"value": np.full((SIZE, SIZE), 1, np.int16), "metadata": METADATA}, "not float32"),
        ({"value": np.full((SIZE, SIZE), np.nan, np.float32), "metadata": METADATA}, "not probabilities"),
        ({"value": np.full((SIZE, SIZE), 1.5, np.float32), "metadata": METADATA}, "not probabilities"),
        ({"value": np.full((SIZE, SIZE), 0.5, np.float32), "metadata": np.array("{")}, "metadata"),
        (
            {"value": np.full((SIZE, SIZE), 0.5, np.float32), "metadata": METADATA, "extra": np.zeros(1)},
            "3 zip members",
        ),
    ],
)
def test_a_damaged_table_file_is_refused_in_one_line(members: dict[str, Any], message: str, tmp_path: Path) -> None:
    path = _write(tmp_path / "bad.npz", members)
    with pytest.raises(ValueError, match=message) as error:
        ValueTableAgent.load(path)
    assert "\n" not in str(error.value) and str(path) in str(error.value)


def test_a_pickled_value_is_never_loaded(tmp_path: Path) -> None:
    path = tmp_path / "pickled.npz"
    with zipfile.ZipFile(path, "w") as archive:
        with archive.open("value.npy", "w") as handle:
            np.lib.format.write_array(handle, np.array([{"a": 1}], dtype=object), allow_pickle=True)
        with archive.open("metadata.npy", "w") as handle:
            np.lib.format.write_array(handle, METADATA)
    with pytest.raises(ValueError, match="not float32"):
        ValueTableAgent.load(path)
    truncated = tmp_path / "truncated.npz"
    whole = ValueTableAgent(random_value(9).astype(np.float32)).save(tmp_path / "whole").read_bytes()
    truncated.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ValueError):
        ValueTableAgent.load(truncated)


def test_a_value_table_is_a_benchmark_artifact(tmp_path: Path) -> None:
    task = get_task("hyn-2p")
    agent = ValueTableAgent(random_value(8).astype(np.float32))
    path = save_artifact(agent, task, tmp_path / "seed_0.policy")
    assert path.name == "seed_0.policy.npz"
    loaded = load_artifact(path, task)
    assert isinstance(loaded, ValueTableAgent)
    np.testing.assert_array_equal(loaded.value, agent.value)
    with pytest.raises(ValueError, match="two-player"):
        save_artifact(agent, get_task("hyn-4p"), tmp_path / "four")


# --------------------------------------------------------------------------
# Training


def test_training_keeps_to_its_counted_budget_and_checkpoints(tmp_path: Path) -> None:
    task = get_task("hyn-2p-selfplay")
    context = TaskContext(task, 0, 40_000, [10_000, 40_000], tmp_path, make_opponents(task))
    seen: list[tuple[int, int]] = []
    agent = load_algorithm("tabular_td").train(context, lambda t, policy: seen.append((t, context.counted_steps)))
    assert isinstance(agent, ValueTableAgent)
    assert [t for t, _ in seen] == [10_000, 40_000] and all(counted >= t for t, counted in seen)
    # within the protocol's slack (one rollout of the widest vector env), as the runner checks it
    assert 40_000 <= context.counted_steps <= 40_000 + slack(40_000, context.counter.largest_batch)
    assert context.counted_steps - 40_000 < context.counter.largest_batch
    assert (agent.value != 0.5).sum() > 1000  # it learned something, somewhere


def test_tabular_td_refuses_another_game_in_one_line(tmp_path: Path) -> None:
    for name in ("trash-standard-2p", "hyn-4p"):
        task = get_task(name)
        context = TaskContext(task, 0, 10_000, [10_000], tmp_path, make_opponents(task))
        with pytest.raises(ValueError, match="learns two-player Help Your Neighbor"):
            load_algorithm("tabular_td").train(context, lambda t, policy: None)


def test_the_open_budget_track_grows_the_budget_not_the_deals() -> None:
    task = get_task("hyn-2p")
    assert task.check_fraction(1000) == 1000.0
    assert task.scaled_budget(1000) == 1000 * task.budget
    assert task.scaled_deals(1000) == task.scaled_deals(1.0)
    assert task.points(1000)[-1] == 1000 * task.budget
    with pytest.raises(ValueError, match="open-budget track"):
        task.check_fraction(2 * MAX_FRACTION)


@pytest.mark.slow
def test_a_few_million_timesteps_come_closer_to_optimal_play() -> None:
    """Judged exactly (the solution judges, never teaches): the loss to optimal play per deal falls
    from the untrained table's with a short self-play run."""
    from agents.evaluation.exact import decision_tables, first_roller_wins
    from trash_env.neighbor.solver import load_solution, optimal_tables

    def env(n: int, opponents: list[Any]) -> Any:
        return NeighborVecEnv(n, opponents=opponents, seed=0, num_players=2)

    def loss_to_optimal(agent: ValueTableAgent) -> float:  # per deal: optimal's score difference against it
        optimal_opens, agent_opens = first_roller_wins(optimal_tables(load_solution()), decision_tables(agent))
        return 2.0 * (optimal_opens + (1.0 - agent_opens) - 1.0)

    before = loss_to_optimal(ValueTableAgent())
    after = loss_to_optimal(train(env, 3_000_000, 0, Settings(num_envs=2048)))
    assert after < 0.8 * before, (before, after)
