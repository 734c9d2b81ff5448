"""Refusals in one line on the newest surfaces (issue 49): sizes checked against a named cap before
anything of that size is built, exact paths with agents that do not decide in batches, options that
would have no effect, and messages that say the right thing. Each of these was a traceback, a hang, an
allocation of many GiB or a misleading line before."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agents.arguments import one_line
from agents.commands import bench, evaluate


def refused(main, argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Runs a command that must refuse ``argv``: exit status 2, one line on stderr; returns it."""
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["run", "--algorithm", "random_policy", "--tasks", "hyn-4p", "--seeds", "1000000000000", "--results", "R"],
            "--seeds must be at most 1,000,000 (training seeds are 0..999999), got 1,000,000,000,000",
        ),
        (
            [
                "run",
                "--algorithm",
                "random_policy",
                "--tasks",
                "hyn-4p",
                "--seeds",
                "2",
                "--first-seed",
                "999999",
                "--results",
                "R",
            ],
            "--seeds must be at most 1",
        ),
        (["exploit", "heuristic", "--task", "hyn-2p", "--n-envs", "100000000"], "--n-envs must be at most 4,096"),
        (
            ["exploit", "heuristic", "--task", "hyn-2p", "--budget", str(10**23)],
            "--budget must be at most 1,000,000,000",
        ),
        (["exploit", "heuristic", "--task", "hyn-2p", "--seeds", "5000"], "--seeds must be at most 1,000"),
        (["exploit", "heuristic", "--task", "hyn-2p", "--deals", "10000000"], "--deals must be at most 1,000,000"),
    ],
)
def test_the_bench_refuses_sizes_over_their_caps_before_building_anything(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert message in refused(bench.main, argv, capsys)
    assert not (tmp_path / "R").exists()


def test_exploit_of_a_folder_on_a_four_player_task_says_what_is_two_player(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "results").mkdir()
    err = refused(bench.main, ["exploit", str(tmp_path / "results"), "--task", "hyn-4p"], capsys)
    assert "a best response to one policy is for two-player tasks" in err and "cross-play" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["search", "greedy", "--deals", "10000000000"], "--deals must be at most 10,000,000"),
        (
            ["heuristic", "optimal", "--game", "help_your_neighbor", "--exact", "--override", "max_turns=1"],
            "--override would have no effect",
        ),
        (
            ["heuristic", "--game", "help_your_neighbor", "--exact", "--exploitability", "--override", "max_turns=9"],
            "--override would have no effect",
        ),
    ],
)
def test_evaluate_refuses_in_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert message in refused(evaluate.main, argv, capsys)


def test_exact_paths_refuse_an_agent_that_decides_one_position_at_a_time(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyspiel")
    argv = ["openspiel_mcts", "--game", "help_your_neighbor", "--exact", "--exploitability"]
    assert "openspiel_mcts decides one at a time" in refused(evaluate.main, argv, capsys)
    argv = ["best_response:openspiel_mcts", "heuristic", "--game", "help_your_neighbor"]
    assert "openspiel_mcts decides one position at a time" in refused(evaluate.main, argv, capsys)


def test_the_openspiel_bots_cap_their_search() -> None:
    from agents.registry import make_agent

    with pytest.raises(ValueError, match=r"simulations must be at most 1,000,000, got 100,000,000,000,000,000,000"):
        make_agent("openspiel_mcts:simulations=100000000000000000000", "help_your_neighbor")
    with pytest.raises(ValueError, match=r"rollouts must be at most 1,000"):
        make_agent("openspiel_mcts:rollouts=5000", "help_your_neighbor")


def test_chance_outcomes_are_a_chance_nodes_only() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import trash_env.openspiel  # noqa: F401 (registers the games)

    for name in ("python_trash(preset=micro)", "python_help_your_neighbor"):
        state = pyspiel.load_game(name).new_initial_state()
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert outcomes and abs(sum(p for _, p in outcomes) - 1) < 1e-9
            state.apply_action(outcomes[0][0])
        with pytest.raises(ValueError, match=rf"chance_outcomes\(\) at a node of player {state.current_player()}"):
            state.chance_outcomes()
        rng = np.random.default_rng(0)
        for _ in range(100_000):  # random play to the end (R10, R12)
            if state.is_terminal():
                break
            choices = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
            state.apply_action(int(rng.choice(choices)))
        assert state.is_terminal()
        with pytest.raises(ValueError, match=r"at a terminal node"):
            state.chance_outcomes()


def test_a_cut_short_value_table_is_said_to_be_cut_short(tmp_path: Path) -> None:
    from agents.value_table import ValueTableAgent, load_npz

    path = ValueTableAgent(np.full((1024, 1024), 0.5)).save(tmp_path / "table.npz")
    path.write_bytes(path.read_bytes()[:-200])
    with pytest.raises(ValueError) as refused_error:
        load_npz(path)
    message = str(refused_error.value)
    assert "is not a readable trash-rl policy file (.npz): it is cut short" in message
    assert "linear policy" not in message


def test_control_characters_are_written_out_not_sent_to_the_terminal() -> None:
    assert one_line("boom \x1b[31mred\x1b[0m\nnext\x07") == "boom \\x1b[31mred\\x1b[0m next\\x07"


def test_an_exploit_file_whose_task_version_is_not_a_number_says_so(tmp_path: Path) -> None:
    import json

    from agents.bench.measurements import load_measurements

    data = {"format": 1, "task": "hyn-2p", "task_version": True, "kind": "exact", "runs": []}
    (tmp_path / "exploit-hyn-2p.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"task_version is True, not a number"):
        load_measurements(tmp_path)
