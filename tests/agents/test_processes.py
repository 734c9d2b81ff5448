"""Threads: every command that trains, evaluates or plays runs torch, OpenMP and Numba on one thread
unless told otherwise (``--threads N``, or ``OMP_NUM_THREADS`` when set)."""

from __future__ import annotations

import pytest

from agents.processes import default_threads, set_threads


def test_one_thread_unless_the_environment_says_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert default_threads() == 1
    for value, expected in (("3", 3), ("0", 1), ("many", 1), ("", 1)):
        monkeypatch.setenv("OMP_NUM_THREADS", value)
        assert default_threads() == expected, value


def test_set_threads_sets_torch_and_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # restored after the test, as is torch below
    try:
        assert set_threads(2) == 2
        assert torch.get_num_threads() == 2
        import os

        assert os.environ["OMP_NUM_THREADS"] == "2"  # for processes started later, and libraries loaded later
        assert set_threads() == 2  # the environment, when set
    finally:
        torch.set_num_threads(before)
    with pytest.raises(ValueError, match="--threads must be at least 1, got 0"):
        set_threads(0)


@pytest.mark.parametrize(
    "command",
    [
        ["agents.commands.evaluate", "greedy", "random", "--quiet"],
        ["agents.commands.play"],
        ["agents.commands.record", "greedy", "random", "--json", "x.json"],
        ["agents.commands.train"],
    ],
    ids=lambda command: command[0].rpartition(".")[2],
)
def test_every_command_refuses_zero_threads(
    command: list[str], capsys: pytest.CaptureFixture[str], tmp_path, monkeypatch
) -> None:
    """``--threads 0`` is one line and exit status 2, before anything runs or is written."""
    import importlib

    if command[0] == "agents.commands.train":
        pytest.importorskip("stable_baselines3")
    monkeypatch.chdir(tmp_path)
    main = importlib.import_module(command[0]).main
    assert main([*command[1:], "--threads", "0"]) == 2
    assert "--threads must be at least 1, got 0" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "command",
    [
        ["evaluate", "nowhere/seed_0.json"],
        ["crossplay", "nowhere", "--task", "trash-standard-2p"],
        ["exploit", "nowhere", "--task", "trash-standard-2p"],
    ],
    ids=lambda command: command[0],
)
def test_trash_bench_plays_policies_on_one_thread_unless_told(
    command: list[str], capsys: pytest.CaptureFixture[str], tmp_path, monkeypatch
) -> None:
    """``trash-bench evaluate``, ``crossplay`` and ``exploit`` play networks in this process: one torch
    thread unless ``--threads`` or ``OMP_NUM_THREADS`` says otherwise (with torch's default of one per
    core, a cross-play beside another job ran several times slower); ``--threads 0`` is one line."""
    torch = pytest.importorskip("torch")
    from agents.commands.bench import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        assert main(command) == 2  # no such file or folder: after the threads are set
        assert torch.get_num_threads() == 1
        assert main([*command, "--threads", "2"]) == 2
        assert torch.get_num_threads() == 2
        capsys.readouterr()
        assert main([*command, "--threads", "0"]) == 2
        assert "--threads must be at least 1, got 0" in capsys.readouterr().err
    finally:
        torch.set_num_threads(before)
    assert list(tmp_path.iterdir()) == []
