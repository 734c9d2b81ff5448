"""Runs never lose work: interrupts, reruns and bad arguments, for every command-line entry point.

- A real ``train.py`` run stopped by SIGINT (or SIGTERM) saves a resumable checkpoint and the
  policy so far, writes its history and learning curve, prints the command that resumes it and
  exits with 128 + the signal number; that command continues from the interrupted step count. A
  second signal exits at once and leaves every finished file whole. The same for
  ``train_rllib.py``, per iteration.
- A run folder that already holds a run is never overwritten silently (:mod:`agents.training.runs`).
- Every entry point answers a bad argument with exit status 2 and one line on stderr, no
  traceback, and writes nothing.
- Files are written atomically (:mod:`trash_env.files`).
"""

from __future__ import annotations

import json
import logging
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from helpers.tiny_training import tiny_args

from agents.arguments import ArgumentParser, command_line, parse_dataclass
from agents.processes import GracefulStop
from trash_env import files
from trash_env.trash.config import make_config

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.usefixtures("one_torch_thread")
SHIPPED_POLICY = ROOT / "agents" / "policies" / "standard_2p_maskable_ppo.zip"
# A long budget (never reached: the tests stop it) with a checkpoint and an evaluation every 1,000 steps.
LONG_RUN = [
    "--total-timesteps", "500000", "--n-envs", "2", "--n-steps", "128", "--batch-size", "64",
    "--checkpoint-every", "1000", "--eval-every", "1000", "--eval-deals", "4", "--eval-baselines", "random",
    "--final-eval-deals", "4", "--eval-workers", "1", "--no-progress-bar", "--no-tensorboard",
]  # fmt: skip


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file below ``folder`` with its size and modification time."""
    return {
        str(path.relative_to(folder)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in folder.rglob("*")
        if path.is_file()
    }


def partial_files(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if files.PARTIAL_MARK in path.name or ".old-" in path.name]


def start(script: str, *args: str, log: Path, new_group: bool = False) -> subprocess.Popen[bytes]:
    """``python SCRIPT ARGS`` from the repository root, output to ``log``; with ``new_group`` in a
    process group of its own (as a terminal runs a command, so that Ctrl-C reaches every process)."""
    handle = log.open("wb")
    environment = {**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(
        [sys.executable, script, *args],
        cwd=ROOT,
        stdout=handle,
        stderr=subprocess.STDOUT,
        env=environment,
        process_group=0 if new_group else None,
    )


def wait_for(condition: Callable[[], bool], process: subprocess.Popen[bytes], timeout: float, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert process.poll() is None, f"the run ended early:\n{log.read_text()[-3000:]}"
        assert time.monotonic() < deadline, f"timed out:\n{log.read_text()[-3000:]}"
        time.sleep(0.2)


def process_group(group: int) -> list[str]:
    """The processes still alive (not zombies) in a process group."""
    listing = subprocess.run(["ps", "-e", "-o", "pid=,pgid=,stat="], capture_output=True, text=True).stdout
    rows = [line.split() for line in listing.splitlines()]
    return [pid for pid, pgid, stat in rows if int(pgid) == group and not stat.startswith("Z")]


def resume_words(output: str) -> list[str]:
    """The resume command a stopped run printed (the line after "To resume the run:")."""
    lines = output.splitlines()
    index = next(i for i, line in enumerate(lines) if line.rstrip().endswith("To resume the run:"))
    words = shlex.split(lines[index + 1])
    assert Path(words[0]).name.startswith("python") and words[1].endswith(".py"), words
    return words


def set_flag(words: list[str], flag: str, value: str) -> list[str]:
    i = words.index(flag)
    return words[: i + 1] + [value] + words[i + 2 :]


# --------------------------------------------------------------------------
# 1. Interrupts: train.py


@pytest.fixture(scope="module")
def interrupted_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real ``train.py`` run sent SIGINT once it has trained past its first checkpoint."""
    out_dir = tmp_path_factory.mktemp("interrupted")
    log = out_dir / "log.txt"
    process = start("train.py", *LONG_RUN, "--run-name", "sig", "--out-dir", str(out_dir), log=log)
    run_dir = out_dir / "sig"
    wait_for(lambda: (run_dir / "checkpoints" / "step_2000.zip").is_file(), process, 240, log)
    process.send_signal(signal.SIGINT)
    code = process.wait(timeout=120)
    return {"code": code, "output": log.read_text(), "run_dir": run_dir, "out_dir": out_dir}


@pytest.mark.slow
def test_sigint_saves_a_loadable_policy_a_checkpoint_and_the_history(interrupted_run: dict[str, Any]) -> None:
    """Ctrl-C (SIGINT) during training: exit status 130; ``policy.zip`` loads as an agent and says it
    was interrupted at its timestep count; a checkpoint at that count; the evaluation history and
    learning curve are written; the final evaluation is skipped; no temporary file is left."""
    from agents.learned import read_metadata
    from agents.registry import make_agent

    run_dir, output = interrupted_run["run_dir"], interrupted_run["output"]
    assert interrupted_run["code"] == 130, output[-3000:]
    assert "Traceback" not in output
    metadata = read_metadata(run_dir / "policy.zip")
    steps = metadata["num_timesteps"]
    assert metadata["interrupted"] is True and 2000 <= steps < 500_000
    make_agent(str(run_dir / "policy.zip")).check_config(__import__("trash_env").make_config("standard"))
    checkpoint = run_dir / "checkpoints" / f"step_{steps}.zip"
    assert read_metadata(checkpoint)["num_timesteps"] == steps
    history = json.loads((run_dir / "eval_history.json").read_text())["history"]
    assert [row["timesteps"] for row in history][:3] == [0, 1000, 2000]
    assert (run_dir / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"
    assert not (run_dir / "final_eval.json").exists()
    assert f"stopped by SIGINT at {steps:,} of 500,000 timesteps" in output
    assert "final evaluation skipped" in output
    assert partial_files(run_dir) == []


@pytest.mark.slow
def test_the_printed_command_resumes_from_the_interrupted_step(interrupted_run: dict[str, Any]) -> None:
    """The command the stopped run printed continues it (with a smaller budget here): the count goes
    on from the interrupted step, the learning curve keeps its first points and grows, and the
    finished policy is no longer marked interrupted."""
    from agents.learned import read_metadata

    run_dir = interrupted_run["run_dir"]
    words = resume_words(interrupted_run["output"])
    stopped = read_metadata(run_dir / "policy.zip")["num_timesteps"]
    assert words[words.index("--resume") + 1] == str(run_dir / "checkpoints" / f"step_{stopped}.zip")
    assert words[words.index("--run-name") + 1] == "sig"
    words = set_flag(words, "--total-timesteps", str(stopped + 1000))
    completed = subprocess.run([sys.executable, *words[1:]], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert f"resuming {run_dir / 'checkpoints' / f'step_{stopped}.zip'} at {stopped:,} timesteps" in completed.stdout
    metadata = read_metadata(run_dir / "policy.zip")
    assert metadata["num_timesteps"] >= stopped + 1000 and metadata["interrupted"] is False
    steps = [row["timesteps"] for row in json.loads((run_dir / "eval_history.json").read_text())["history"]]
    assert steps[:3] == [0, 1000, 2000] and steps == sorted(set(steps))
    assert steps[-1] == metadata["num_timesteps"] and any(stopped < step for step in steps)
    assert (run_dir / "final_eval.json").is_file()


@pytest.mark.slow
def test_sigterm_stops_the_same_way_with_status_143(tmp_path: Path) -> None:
    """SIGTERM (what schedulers and ``kill`` send) is handled as Ctrl-C is: exit status 143, a
    checkpoint and the policy so far, and the resume command."""
    from agents.learned import read_metadata

    log = tmp_path / "log.txt"
    process = start("train.py", *LONG_RUN, "--run-name", "term", "--out-dir", str(tmp_path), log=log)
    run_dir = tmp_path / "term"
    wait_for(lambda: (run_dir / "checkpoints" / "step_1000.zip").is_file(), process, 240, log)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=120) == 143, log.read_text()[-3000:]
    steps = read_metadata(run_dir / "policy.zip")["num_timesteps"]
    assert (run_dir / "checkpoints" / f"step_{steps}.zip").is_file()
    assert "stopped by SIGTERM" in log.read_text() and resume_words(log.read_text())


@pytest.mark.slow
def test_a_second_sigint_exits_at_once_and_leaves_every_file_whole(tmp_path: Path) -> None:
    """Two Ctrl-C in a row: the run exits at once (status 130) and every file it had written is
    complete (each zip opens and holds its description; no temporary file is left)."""
    from agents.learned import read_metadata

    log = tmp_path / "log.txt"
    process = start("train.py", *LONG_RUN, "--run-name", "twice", "--out-dir", str(tmp_path), log=log)
    run_dir = tmp_path / "twice"
    wait_for(lambda: (run_dir / "checkpoints" / "step_1000.zip").is_file(), process, 240, log)
    process.send_signal(signal.SIGINT)
    time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=30) == 130, log.read_text()[-3000:]
    assert "Traceback" not in log.read_text()
    zips = list(run_dir.rglob("*.zip"))
    assert zips and all(zipfile.is_zipfile(path) for path in zips)
    for path in zips:
        read_metadata(path)
    json_files = list(run_dir.rglob("*.json"))
    for path in json_files:
        json.loads(path.read_text())
    assert partial_files(run_dir) == []


@pytest.mark.slow
def test_sigint_during_the_final_evaluation_exits_at_once_and_leaves_no_worker(tmp_path: Path) -> None:
    """Once training is over and everything is saved, Ctrl-C during the final evaluation (two worker
    processes, the whole process group signalled as a terminal does) exits at once with 130, names
    the command that runs the evaluation, writes no half file, and leaves no worker process behind."""
    args = [
        "--total-timesteps", "256", "--n-envs", "2", "--n-steps", "128", "--batch-size", "64", "--eval-every", "0",
        "--checkpoint-every", "0", "--final-eval-deals", "100000", "--eval-workers", "2", "--no-progress-bar",
        "--eval-baselines", "search:samples=2",  # played on the core, by the two workers (slowly)
        "--no-tensorboard", "--run-name", "final-eval", "--out-dir", str(tmp_path),
    ]  # fmt: skip
    log = tmp_path / "log.txt"
    process = start("train.py", *args, log=log, new_group=True)
    run_dir = tmp_path / "final-eval"
    wait_for(lambda: len(process_group(process.pid)) >= 3, process, 240, log)  # the two evaluation workers
    time.sleep(0.5)
    os.killpg(process.pid, signal.SIGINT)
    assert process.wait(timeout=30) == 130, log.read_text()[-3000:]
    output = log.read_text()
    assert "SIGINT: exiting now. The policy is saved to" in output and "To run the final evaluation:" in output
    assert not (run_dir / "final_eval.json").exists() and (run_dir / "policy.zip").is_file()
    deadline = time.monotonic() + 15  # terminated workers may take a moment to be reaped
    while (survivors := process_group(process.pid)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert survivors == []
    assert partial_files(run_dir) == []


# --------------------------------------------------------------------------
# 2. Interrupts: train_rllib.py


@pytest.mark.slow
def test_train_rllib_stops_after_the_iteration_and_resumes(tmp_path: Path) -> None:
    """``train_rllib.py`` stopped by SIGINT during its second iteration finishes that iteration,
    saves RLlib's checkpoint and the policy so far (marked interrupted), exits 130 and prints the
    resume command; that command continues the iteration count and the progress."""
    pytest.importorskip("ray")
    from agents.registry import make_agent

    args = [
        "--iterations", "40", "--batch-size", "400", "--minibatch-size", "200", "--epochs", "1", "--hidden", "32",
        "--checkpoint-every", "0", "--final-eval-deals", "4", "--eval-workers", "1", "--eval-baselines", "random",
    ]  # fmt: skip
    log = tmp_path / "log.txt"
    process = start("train_rllib.py", *args, "--run-name", "ray", "--out-dir", str(tmp_path), log=log)
    run_dir = tmp_path / "ray"
    wait_for(lambda: (run_dir / "progress.json").is_file(), process, 300, log)
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=300) == 130, log.read_text()[-3000:]
    output = log.read_text()
    done = len(json.loads((run_dir / "progress.json").read_text())["progress"])
    assert 1 <= done < 40
    assert (run_dir / "checkpoints" / f"iteration_{done}").is_dir()
    metadata = json.loads((run_dir / "policy" / "trash_rl.json").read_text())
    assert metadata["interrupted"] is True and metadata["iterations"] == done
    make_agent(str(run_dir / "policy"))
    words = set_flag(resume_words(output), "--iterations", str(done + 1))
    completed = subprocess.run([sys.executable, *words[1:]], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr[-3000:]
    progress = json.loads((run_dir / "progress.json").read_text())["progress"]
    assert [row["iteration"] for row in progress] == list(range(1, done + 2))
    assert progress[-1]["env_steps"] > progress[-2]["env_steps"]
    assert json.loads((run_dir / "policy" / "trash_rl.json").read_text())["interrupted"] is False
    assert partial_files(run_dir) == []


# --------------------------------------------------------------------------
# 3. Reruns


def test_a_second_run_with_the_default_name_goes_to_a_fresh_folder(
    train: ModuleType, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Running the same command twice without ``--run-name`` keeps the first run: the second goes
    to ``NAME_2`` and says so (in the log, which the command shows)."""
    first = train.train(tiny_args(train, tmp_path, run_name="", total_timesteps=256, final_eval_deals=0))
    assert first.run_dir == tmp_path / "standard_2p_maskable_ppo_seed0"
    before = snapshot(first.run_dir)
    with caplog.at_level(logging.INFO, logger="agents.training"):
        second = train.train(tiny_args(train, tmp_path, run_name="", total_timesteps=256, final_eval_deals=0))
    assert second.run_dir == tmp_path / "standard_2p_maskable_ppo_seed0_2"
    assert "already holds a run: this one goes to" in caplog.text
    assert snapshot(first.run_dir) == before


def test_an_explicit_run_name_that_holds_a_run_is_refused_unless_overwrite(
    train: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--run-name X`` where X holds a run: exit status 2 naming ``--resume`` and ``--overwrite``,
    nothing changed; with ``--overwrite`` the old run is replaced."""
    run_dir = tmp_path / "mine"
    train.train(tiny_args(train, tmp_path, run_name="mine", total_timesteps=256, final_eval_deals=0))
    (run_dir / "notes.txt").write_text("the user's own file")
    before = snapshot(tmp_path)
    argv = ["--run-name", "mine", "--out-dir", str(tmp_path), "--total-timesteps", "256", "--no-progress-bar"]
    from agents.commands.train import main as train_main

    assert train_main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--resume" in err and "--overwrite" in err, err
    assert snapshot(tmp_path) == before
    args = tiny_args(train, tmp_path, run_name="mine", total_timesteps=256, final_eval_deals=0, overwrite=True)
    train.train(args)
    assert not (run_dir / "notes.txt").exists() and (run_dir / "policy.zip").is_file()


def test_resume_writes_into_the_run_of_its_checkpoint(train: ModuleType, tmp_path: Path) -> None:
    """``--resume RUN/checkpoints/step_N.zip`` without ``--run-name`` continues that run's folder."""
    train.train(tiny_args(train, tmp_path, run_name="base", total_timesteps=512, checkpoint_every=256))
    args = tiny_args(
        train, tmp_path, run_name="", resume=tmp_path / "base" / "checkpoints" / "step_256.zip", total_timesteps=768
    )
    result = train.train(args)
    assert result.run_dir == tmp_path / "base" and result.timesteps >= 768
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base"]


def test_train_rllib_refuses_an_explicit_run_name_that_holds_a_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same rule for ``train_rllib.py``, answered before Ray starts."""
    pytest.importorskip("ray")

    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "progress.json").write_text("{}")
    from agents.commands.train_rllib import main as train_rllib_main

    assert train_rllib_main(["--run-name", "taken", "--out-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "already holds a run" in err and "--overwrite" in err


# --------------------------------------------------------------------------
# 4. Bad arguments, for every entry point


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("bad_files")
    corrupt = folder / "corrupt.zip"
    corrupt.write_bytes(b"PK\x03\x04 this is not a zip")
    plain = folder / "plain.zip"
    with zipfile.ZipFile(plain, "w") as archive:
        archive.writestr("data", "an SB3 save without trash_rl.json")
    (folder / "a_folder").mkdir()
    return {
        "MISSING": str(folder / "missing.zip"),
        "CORRUPT": str(corrupt),
        "PLAIN": str(plain),
        "SHIPPED": str(SHIPPED_POLICY),
        "FOLDER": str(folder / "a_folder"),
    }


def entry_point(name: str) -> Callable[[list[str]], int]:
    """The in-process main of each command-line entry point (what ``python ...`` runs)."""
    if name == "train.py":
        from agents.commands.train import main

        return main
    if name == "train_rllib.py":
        pytest.importorskip("ray")
        from agents.commands.train_rllib import main

        return main
    if name == "agents.commands.evaluate":
        from agents.commands.evaluate import main

        return main
    if name == "agents.commands.record":
        from agents.commands.record import main

        return main
    if name == "agents.commands.play":
        from agents.commands.play import main

        return lambda argv: main(argv, input_fn=lambda prompt: "q")
    from agents.commands.demo import main

    return main


# The one text of a malformed --override and of --match for Help Your Neighbor, in every command that takes them.
BAD_OVERRIDE = "error: --override 'layout_size' must be FIELD=VALUE, a rules field and its value (layout_size=8)"
NO_MATCHES = "error: --match: Help Your Neighbor has no matches of hands (R9 is Trash's)"
BAD_ARGUMENTS = [
    ("train.py", ["--preset", "nosuch"], "preset='nosuch' is not one of"),
    ("train.py", ["--game", "chess"], "argument --game: invalid choice: 'chess'"),
    ("train.py", ["--algo", "sac"], "argument --algo: invalid choice: 'sac'"),
    ("train.py", ["--total-timesteps", "-1"], "--total-timesteps must be at least 1, got -1"),
    ("train.py", ["--total-timesteps", "abc"], "argument --total-timesteps: invalid int value: 'abc'"),
    ("train.py", ["--no-such-flag"], "unrecognized arguments: --no-such-flag"),
    ("train.py", ["--rules", "{}"], "unrecognized arguments: --rules"),  # rules are given from Python only
    ("train.py", ["--n-envs", "0"], "--n-envs must be at least 1"),
    ("train.py", ["--seed", "-3"], "--seed must be at least 0"),
    ("train.py", ["--num-players", "9"], "num_players=9 is out of range (2..8)"),
    ("train.py", ["--eval-deals", "0"], "--eval-deals must be at least 1"),
    ("train.py", ["--eval-workers", "0"], "--eval-workers must be at least 1"),
    ("train.py", ["--learning-rate", "0"], "--learning-rate must be above 0"),
    ("train.py", ["--gamma", "1.5"], "--gamma must be in (0, 1]"),
    ("train.py", ["--self-play", "--pool-size", "0"], "--pool-size must be at least 1 with --self-play"),
    ("train.py", ["--opponents", "nosuch"], "unknown agent 'nosuch' for trash"),
    ("train.py", ["--eval-baselines", "heuristic"], "unknown agent 'heuristic' for trash"),
    ("train.py", ["--opponents", "MISSING"], "does not exist"),
    ("train.py", ["--opponents", "CORRUPT"], "not a readable policy file"),
    ("train.py", ["--opponents", "PLAIN"], "is not a trash-rl policy"),
    ("train.py", ["--opponents", "SHIPPED", "--num-players", "3"], "trained for another configuration"),
    ("train.py", ["--override", "layout_size"], BAD_OVERRIDE),
    ("train.py", ["--override", "colour=red"], "unknown rules field(s) ['colour']"),
    ("train.py", ["--override", "layout_size=8", "--override", "layout_size"], BAD_OVERRIDE),
    ("train.py", ["--resume", "MISSING"], "does not exist"),
    ("train.py", ["--resume", "SHIPPED", "--preset", "pagat"], "trained for another configuration"),
    ("train.py", ["--batched", "--game", "help_your_neighbor", "--algo", "ppo"], "--batched takes masked actions"),
    ("train.py", ["--match", "--game", "help_your_neighbor"], NO_MATCHES),
    ("train_rllib.py", ["--iterations", "0"], "--iterations must be at least 1"),
    ("train_rllib.py", ["--override", "layout_size"], BAD_OVERRIDE),
    ("train_rllib.py", ["--override", "colour=red"], "unknown rules field(s) ['colour']"),
    ("train_rllib.py", ["--preset", "nosuch"], "preset='nosuch' is not one of"),
    ("train_rllib.py", ["--opponents", "nosuch"], "unknown agent 'nosuch'"),
    ("train_rllib.py", ["--minibatch-size", "5000"], "--minibatch-size 5000 is larger than --batch-size 4000"),
    ("train_rllib.py", ["--num-env-runners", "-1"], "--num-env-runners must be at least 0"),
    ("train_rllib.py", ["--num-players", "1"], "num_players=1 is out of range (2..8)"),
    ("train_rllib.py", ["--resume", "FOLDER"], "is not a checkpoint folder"),
    ("train_rllib.py", ["--eval-baselines", "SHIPPED", "--num-players", "3"], "trained for another configuration"),
    ("agents.commands.evaluate", ["greedy", "random", "--workers", "0"], "--workers must be at least 1"),
    ("agents.commands.evaluate", ["greedy", "random", "--seed", "-1"], "--seed must be at least 0"),
    ("agents.commands.evaluate", ["greedy", "random", "--deals", "x"], "argument --deals: invalid int value: 'x'"),
    ("agents.commands.evaluate", ["greedy", "random", "--game", "chess"], "argument --game: invalid choice"),
    ("agents.commands.evaluate", ["greedy", "nosuch"], "unknown agent 'nosuch'"),
    ("agents.commands.evaluate", ["greedy", "MISSING"], "does not exist"),
    ("agents.commands.evaluate", ["greedy", "CORRUPT"], "not a readable policy file"),
    ("agents.commands.evaluate", ["SHIPPED", "greedy", "--num-players", "3"], "trained for another configuration"),
    ("agents.commands.evaluate", ["greedy", "random", "--json", "FOLDER"], "--json"),
    ("agents.commands.evaluate", ["greedy", "random", "--plot", "CORRUPT/x.png"], "is a file, not a folder"),
    ("agents.commands.evaluate", ["greedy"], "name at least two agents"),
    ("agents.commands.evaluate", ["greedy", "random", "--override", "layout_size"], BAD_OVERRIDE),
    ("agents.commands.evaluate", ["greedy", "random", "--match", "--game", "help_your_neighbor"], NO_MATCHES),
    ("agents.commands.record", ["greedy", "random", "--json", "x.json", "--override", "layout_size"], BAD_OVERRIDE),
    (
        "agents.commands.record",
        ["random", "random", "--json", "x.json", "--game", "help_your_neighbor", "--match"],
        NO_MATCHES,
    ),
    ("agents.commands.play", ["--opponents", "nosuch"], "unknown agent 'nosuch'"),
    ("agents.commands.play", ["--opponents", "MISSING"], "does not exist"),
    ("agents.commands.play", ["--opponents", "SHIPPED", "greedy"], "trained for another configuration"),
    ("agents.commands.play", ["--preset", "nosuch"], "argument --preset: invalid choice"),
    ("agents.commands.play", ["--seat", "5"], "--seat 5 is out of range"),
    ("agents.commands.demo", ["--num-players", "9"], "num_players=9 is out of range (2..8)"),
    ("agents.commands.demo", ["--layout-size", "11"], "layout_size=11 is out of range"),
    ("agents.commands.demo", ["--seed", "-1"], "--seed must be at least 0"),
    ("agents.commands.demo", ["--record", "FOLDER"], "--record"),
    ("agents.commands.demo", ["--preset", "x"], "argument --preset: invalid choice"),
]


@pytest.mark.parametrize(
    ("name", "argv", "message"), BAD_ARGUMENTS, ids=[f"{n} {' '.join(a)}" for n, a, _ in BAD_ARGUMENTS]
)
def test_bad_arguments_exit_2_with_one_line_and_write_nothing(
    name: str,
    argv: list[str],
    message: str,
    bad_files: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each bad argument: exit status 2, exactly one line on stderr that names the problem, no
    traceback, nothing on stdout, and no file created or changed (the default ``runs/`` is the
    temporary working directory here)."""
    main = entry_point(name)
    monkeypatch.chdir(tmp_path)
    argv = [bad_files.get(word, word) for word in argv]
    argv = [word.replace("CORRUPT", bad_files["CORRUPT"]) if "CORRUPT/" in word else word for word in argv]
    watched = [tmp_path, Path(bad_files["FOLDER"]).parent]
    before = [snapshot(folder) for folder in watched]
    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    captured = capsys.readouterr()
    assert code == 2, captured
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], captured.err
    assert "error:" in lines[0] and "Traceback" not in captured.err
    assert captured.out == ""
    assert [snapshot(folder) for folder in watched] == before


@pytest.mark.parametrize(
    ("command", "message"),
    [
        (["train.py", "--total-timesteps", "-1"], "train.py: error: --total-timesteps must be at least 1, got -1"),
        (["train_rllib.py", "--iterations", "0"], "train_rllib.py: error: --iterations must be at least 1, got 0"),
        (
            ["-m", "agents.commands.evaluate", "greedy", "nosuch"],
            "python -m agents.commands.evaluate: error: unknown agent 'nosuch'",
        ),
        (
            ["-m", "agents.commands.play", "--seat", "7"],
            "python -m agents.commands.play: error: --seat 7 is out of range",
        ),
        (["-m", "agents.commands.demo", "--num-players", "1"], "python -m agents.commands.demo: error: num_players=1"),
        (["trash-evaluate", "greedy", "nosuch"], "trash-evaluate: error: unknown agent 'nosuch'"),
    ],
)
def test_bad_arguments_as_a_user_runs_them(command: list[str], message: str, tmp_path: Path) -> None:
    """The same as real processes (``python train.py ...``): exit status 2, one line naming the command
    as it was run (``python -m agents.commands.play``, ``trash-evaluate``), nothing written."""
    if command[0].startswith("trash-"):  # a console script, installed beside this Python
        script = Path(sys.executable).parent / command[0]
        if not script.exists():
            pytest.skip(f"{command[0]} is not installed beside {sys.executable}")
        argv = [str(script), *command[1:]]
    else:
        argv = [sys.executable, *[str(ROOT / w) if w.endswith(".py") else w for w in command]]
    completed = subprocess.run(
        argv,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert completed.returncode == 2
    assert completed.stderr.strip().splitlines() == [completed.stderr.strip()]
    assert completed.stderr.startswith(message), completed.stderr
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------
# 5. The pieces: atomic files, the dataclass command line, signals


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path: Path) -> None:
    """A write that fails half-way leaves the previous content and no temporary file."""
    target = tmp_path / "summary.json"
    files.write_json(target, {"old": 1})
    with pytest.raises(RuntimeError), files.atomic_path(target) as partial:
        partial.write_text('{"new": ')
        raise RuntimeError("stopped mid-write")
    assert json.loads(target.read_text()) == {"old": 1}
    assert list(tmp_path.iterdir()) == [target]


def test_evaluate_outputs_replace_the_named_files_whole(tmp_path: Path) -> None:
    """``--json``, ``--csv`` and ``--plot`` may overwrite the files the user named, and do so whole."""
    from agents.commands.evaluate import main

    paths = {
        flag: tmp_path / f"out.{suffix}" for flag, suffix in (("--json", "json"), ("--csv", "csv"), ("--plot", "png"))
    }
    for path in paths.values():
        path.write_text("old")
    argv = ["greedy", "random", "--deals", "3", "--quiet", "--engine", "scalar"]
    assert main([*argv, *[word for flag, path in paths.items() for word in (flag, str(path))]]) == 0
    assert json.loads(paths["--json"].read_text())["settings"]["deals"] == 3
    assert paths["--csv"].read_text().startswith("first,second,deal")
    assert paths["--plot"].read_bytes()[:4] == b"\x89PNG"
    assert sorted(tmp_path.iterdir()) == sorted(paths.values())


def test_dataclass_command_line_round_trips(train: ModuleType) -> None:
    """The resume command is built from the settings: parsing its flags gives the same settings back,
    for a value that differs from the defaults in every kind of field (text with a space, a path, a
    choice, integers, a float, booleans turned on and off, lists after one flag, an empty list that
    replaces a default one, the repeated --override, an optional path); the defaults need no flag."""
    args = train.Args(
        run_name="x y",
        out_dir=Path("elsewhere/runs"),
        overwrite=True,
        game="help_your_neighbor",
        num_players=3,
        overrides=["layout_size=6", 'wild="J"'],
        algo="qrdqn",
        total_timesteps=123,
        learning_rate=1e-4,
        opponents=["random", "search:samples=4"],
        net_arch=[],
        eval_baselines=["random"],
        progress_bar=False,
        self_play=True,
        resume=Path("runs/a b/checkpoints/step_5.zip"),
    )
    words = command_line(args)
    assert words.count("--override") == 2 and "--no-progress-bar" in words and "--self-play" in words
    assert parse_dataclass(train.Args, shlex.split(shlex.join(words)), "train.py") == args
    assert command_line(train.Args()) == []
    assert parse_dataclass(train.Args, [], "train.py") == train.Args()


def test_rllib_command_line_round_trips() -> None:
    """The same for ``train_rllib.py``'s settings (an optional text, a list of integers)."""
    from agents.training import rllib

    args = rllib.Args(
        run_name="r", overrides=["max_turns=300"], opponents=["greedy"], hidden=[32, 16], address="HEAD:6379"
    )
    words = command_line(args)
    assert parse_dataclass(rllib.Args, words, "train_rllib.py") == args
    assert command_line(rllib.Args()) == []


def test_rules_given_from_python_resume_as_overrides(train: ModuleType, tmp_path: Path) -> None:
    """``Args.rules`` (the benchmark suite's) has no flag of its own: the command line refuses to drop
    it silently, and the resume command gives it as ``--override`` flags under the run's own, so the
    run resumes with the same rules."""
    args = tiny_args(train, tmp_path, rules={"layout_size": 8, "wild": "J"}, overrides=["max_turns=300"])
    with pytest.raises(ValueError, match=r"rules = .* has no command-line form"):
        command_line(args)
    setup = train.prepare(args)
    words = shlex.split(train.resume_command(args, setup.folder, tmp_path / "run" / "policy.zip"))[2:]
    assert words[words.index("--override") :][:6] == [
        "--override", "layout_size=8", "--override", 'wild="J"', "--override", "max_turns=300",
    ]  # fmt: skip
    resumed = parse_dataclass(train.Args, words, "train.py")
    expected = make_config("standard", layout_size=8, wild="J", max_turns=300)
    assert train.build_config(resumed) == setup.config == expected


def test_the_resume_command_of_a_self_play_only_run_is_accepted(train: ModuleType, tmp_path: Path) -> None:
    """What ``--self-play-only`` fills in (a placeholder opponent, ``--self-play``) is not given back:
    the printed command parses and passes the checks (resuming a policy of the same rules here)."""
    args = tiny_args(train, tmp_path, self_play_only=True, opponents=[])
    setup = train.prepare(args)
    assert args.opponents == ["random"] and args.self_play
    words = shlex.split(train.resume_command(args, setup.folder, SHIPPED_POLICY))[2:]
    assert "--opponents" not in words and "--self-play" not in words and "--self-play-only" in words
    train.prepare(parse_dataclass(train.Args, words, "train.py"))


def run_fake(commands: list[Any]) -> Callable[[Any, GracefulStop], Any]:
    """A training library's ``run`` that records the prepared run and trains nothing."""
    from agents.training.runs import TrainResult

    def run(setup: Any, stop: GracefulStop) -> TrainResult:
        commands.append(setup)
        return TrainResult(run_dir=setup.folder.path, policy=setup.folder.path, agent=None, timesteps=0)

    return run


@pytest.mark.parametrize("command", ["trash-train", "trash-train-rllib", "trash-evaluate", "trash-record"])
def test_a_repeated_override_reaches_the_rules_of_every_command(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--override FIELD=VALUE`` is one flag, spelled the same and repeatable, in each command that
    takes rules: both values reach the configuration the command plays or trains with."""
    overrides = ["--override", "layout_size=8", "--override", "max_turns=300"]
    expected = make_config("standard", layout_size=8, max_turns=300)
    if command in ("trash-train", "trash-train-rllib"):
        pytest.importorskip("stable_baselines3")
        from agents.commands import train, train_rllib
        from agents.training import rllib, sb3

        library, main = (sb3, train.main) if command == "trash-train" else (rllib, train_rllib.main)
        prepared: list[Any] = []
        monkeypatch.setattr(library, "run", run_fake(prepared))
        assert main([*overrides, "--out-dir", str(tmp_path)]) == 0
        assert [setup.config for setup in prepared] == [expected]
        return
    out = tmp_path / "out.json"
    if command == "trash-evaluate":
        from agents.commands.evaluate import main

        assert main(["greedy", "random", "--deals", "2", "--quiet", *overrides, "--json", str(out)]) == 0
        assert json.loads(out.read_text())["settings"]["config"] == expected.to_dict()
    else:
        from agents.commands.record import main

        assert main(["greedy", "random", *overrides, "--json", str(out)]) == 0
        assert json.loads(out.read_text())["config"] == expected.to_dict()


def console_scripts() -> dict[str, str]:
    """Each console script and the command module it runs (:data:`agents.commands.console.COMMANDS`)."""
    from agents.commands.console import COMMANDS

    return {name: f"agents.commands.{module}" for name, module in COMMANDS.items()}


def test_every_console_script_runs_its_command_through_the_launcher() -> None:
    """``[project.scripts]`` of pyproject.toml names every command of :mod:`agents.commands.console`,
    each by the launcher function that runs it (which says a missing extra in one line)."""
    tomllib = pytest.importorskip("tomllib")
    from agents.commands import console

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert sorted(scripts) == sorted(console.COMMANDS)
    for name, target in scripts.items():
        module, _, function = target.partition(":")
        assert module == "agents.commands.console" and function == console.COMMANDS[name]


@pytest.mark.parametrize("script", sorted(console_scripts()))
def test_help_exits_0_for_every_console_script(script: str) -> None:
    """``--help`` of every console script prints its usage and exits 0 (run as ``python -m MODULE``,
    as the script would run it), with nothing on stderr."""
    completed = subprocess.run(
        [sys.executable, "-m", console_scripts()[script], "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "usage:" in completed.stdout and completed.stderr == ""


@pytest.mark.slow
def test_train_help_shows_each_default_once() -> None:
    """``train.py --help`` gives every setting with its help and one default, never an empty one."""
    completed = subprocess.run(
        [sys.executable, "train.py", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert completed.returncode == 0, completed.stderr
    text = " ".join(completed.stdout.replace("│", " ").split())
    assert "(default: )" not in text and not re.search(r"\(default: [^)]*\) \(default:", text)
    assert "--override FIELD=VALUE a rules field on top of the preset" in text and "(repeatable)" in text
    assert "baseline opponents; each opponent seat draws one per episode (default: random and greedy for Trash;" in text
    assert "--rules" not in text


def test_argument_parser_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    parser = ArgumentParser(prog="prog")
    parser.add_argument("--count", type=int, required=True)
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args(["--count", "many"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == "prog: error: argument --count: invalid int value: 'many' (see prog --help)\n"


def test_graceful_stop_turns_a_signal_into_a_request(capsys: pytest.CaptureFixture[str]) -> None:
    """Inside :class:`GracefulStop` a SIGINT or SIGTERM sets the request and the exit status
    (128 + the signal number); the previous handlers come back afterwards."""
    previous = signal.getsignal(signal.SIGINT)
    for signum, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
        with GracefulStop("the test's safe point") as stop:
            assert not stop.requested
            os.kill(os.getpid(), signum)
            time.sleep(0.01)
            assert stop.requested and stop.exit_code == code
        assert "stopping at the test's safe point" in capsys.readouterr().err
    assert signal.getsignal(signal.SIGINT) is previous


def test_graceful_stop_at_once_exits_immediately_and_removes_partial_files(tmp_path: Path) -> None:
    """In an ``at_once`` section (or on a second signal) the process exits at once with 128 + the
    signal number, after removing the temporary file of a write in progress; finished files stay."""
    script = f"""
import os, signal, time
from pathlib import Path
from trash_env import files
from agents.processes import GracefulStop
folder = Path({str(tmp_path)!r})
files.write_text(folder / "done.txt", "finished")
with GracefulStop() as stop, stop.at_once("bye"), files.atomic_path(folder / "half.txt") as partial:
    partial.write_text("half")
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(5)
"""
    completed = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert completed.returncode == 130 and "bye" in completed.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["done.txt"]


def test_check_output_path_refuses_folders_and_files_as_parents(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    files.check_output_path("--json", tmp_path / "new" / "deep" / "out.json")
    for path, message in ((tmp_path, "is a folder"), (tmp_path / "file" / "out.json", "is a file, not a folder")):
        with pytest.raises(ValueError, match=message):
            files.check_output_path("--json", path)
