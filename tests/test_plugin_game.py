"""A game is a plug-in (issue 48): High card (``tests/helpers/toy_game.py``, chance and hidden cards in a
hundred lines) is defined outside the library, registers its descriptor, a baseline and a task, and
then plays through the library's own code, none of it edited: the PettingZoo AEC env (PettingZoo's
API test; a game record replayed), the Gymnasium single-agent env (Gymnasium's and SB3's env checkers),
duplicate evaluation and the ladder (round robin, ratings), and a benchmark task run in the runner's
own processes, as ``trash-bench run`` runs one."""

from __future__ import annotations

import importlib
import json
import sys
from types import ModuleType

import numpy as np
import pytest

from agents.bench import tasks
from agents.evaluation.duplicate import run_tournament
from agents.evaluation.stats import fit_ratings, pair_summaries
from agents.registry import BASELINES, make_agent
from trash_env.games import GAMES, game_of, get_game
from trash_env.records import replay


@pytest.fixture(scope="module", autouse=True)
def toy_game() -> ModuleType:
    """The plug-in registered for this module's tests only: the registries are restored after them, so the
    other tests (which may share this process) see the package's own games, baselines and tasks."""
    registries = (GAMES, BASELINES, tasks.TASKS, tasks._REGISTERED_BY)
    saved = [dict(registry) for registry in registries]
    yield importlib.import_module("helpers.toy_game")
    sys.modules.pop("helpers.toy_game", None)
    for registry, contents in zip(registries, saved):
        registry.clear()
        registry.update(contents)


def test_the_game_is_found_by_name_by_configuration_and_by_record(toy_game: ModuleType) -> None:
    GAME = toy_game.GAME  # noqa: N806 (the module's name for it)
    config = toy_game.make_config(num_players=3)
    assert GAMES["high_card"] is GAME and get_game("high_card_v0") is GAME and game_of(config) is GAME
    assert make_agent("high_keeper", GAME.name).name == "high_keeper"
    with pytest.raises(ValueError, match="plays trash, not high_card"):
        make_agent("greedy", "trash").check_config(config)


def test_the_aec_env_passes_pettingzoos_api_test_and_its_records_replay(toy_game: ModuleType) -> None:
    from pettingzoo.test import api_test

    api_test(toy_game.env(num_players=3), num_cycles=20)
    env = toy_game.env(num_players=2)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    record = json.loads(json.dumps(env.unwrapped.game_record()))
    assert record["game"] == "high_card_v0" and replay(record) == env.unwrapped.game_state


def test_the_single_agent_env_passes_the_env_checkers(toy_game: ModuleType) -> None:
    GAME = toy_game.GAME  # noqa: N806 (the module's name for it)
    from gymnasium.utils.env_checker import check_env

    env = GAME.single_agent_env(opponents=[make_agent("high_keeper", GAME.name)])
    check_env(env, skip_render_check=True)
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    sb3_check_env(GAME.single_agent_env(), warn=False)


def test_duplicate_evaluation_and_the_ladder_play_it(toy_game: ModuleType) -> None:
    """A round robin of three agents on duplicate deals: every pair plays every deal from both seats,
    so a pair of identical agents is level to the last game (the luck of the deal cancels)."""
    config = toy_game.make_config()
    results = run_tournament(config, ["random", "high_keeper", "high_keeper:"], deals=200, seed=0)
    summaries = {(s.first, s.second): s for s in pair_summaries(results)}
    assert len(summaries) == 3
    assert summaries[("high_keeper", "high_keeper:")].score_difference.mean == 0.0
    assert summaries[("random", "high_keeper")].score_difference.mean < 0  # keeping a high card wins more
    ratings = fit_ratings(results, bootstrap=20)
    assert ratings["high_keeper"].mean > ratings["random"].mean


@pytest.mark.slow
def test_a_benchmark_task_of_it_runs_in_the_runners_processes(toy_game: ModuleType, tmp_path, monkeypatch) -> None:
    """``toy-high-card`` runs as any task: training and the final evaluation each in a process of their
    own (which import the module that registered the task), a valid result file, its policy kept."""
    from agents.bench.runner import run_one
    from agents.bench.store import read_result, result_location

    monkeypatch.syspath_prepend(str(__import__("pathlib").Path(__file__).parent / "bench"))
    TASK = toy_game.TASK  # noqa: N806 (the module's name for it)
    result = run_one(TASK.name, "test_suite:FirstLegal", 0, str(tmp_path))
    path = result_location(tmp_path, TASK, "first_legal", 0, 1.0)
    stored = read_result(path)
    assert stored.valid and result["task"] == "toy-high-card" and len(result["curve"]) == 5
    assert -1.0 <= result["final"]["score"] <= 1.0 and list(tmp_path.rglob("seed_0.policy.*"))


def test_the_add_a_game_pages_excerpts_are_the_toy_games(toy_game: ModuleType) -> None:
    """docs/add-a-game.md shows excerpts of tests/helpers/toy_game.py: each parses, and every class,
    function and module constant it defines is the toy game's (or the package's it imports)."""
    import ast
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "add-a-game.md").read_text()
    excerpts = re.findall(r"```py\n(.*?)```", page, re.S)
    assert len(excerpts) >= 5, "the walkthrough lost its excerpts"
    defined = set()
    for excerpt in excerpts:
        for node in ast.parse(excerpt).body:
            if isinstance(node, ast.ClassDef | ast.FunctionDef):
                defined.add(node.name)
            elif isinstance(node, ast.Assign):
                defined.update(t.id for t in node.targets if isinstance(t, ast.Name) and t.id.isupper())
    assert defined >= {"ToyConfig", "GAME", "raw_env", "env", "ToySingleAgentEnv", "HighKeeper", "TASK"}
    assert [name for name in sorted(defined) if not hasattr(toy_game, name)] == []
