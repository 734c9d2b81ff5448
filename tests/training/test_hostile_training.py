"""``train.py`` given hostile or damaged files and arguments: a clear error, nothing lost, no code run.

- ``--resume FILE`` never unpickles anything: a checkpoint whose SB3 ``data`` carries pickle payloads
  (they would write a marker file) resumes without running them, and goes on exactly as SB3's own
  loader would have gone on (the same weights after the same steps).
- A damaged checkpoint (a byte flipped, cut short, members missing or too large, weights renamed,
  reshaped, non-finite or not tensors, an optimizer state that does not fit, counters that are not
  numbers) and a damaged self-play snapshot or learning curve of the run are one line, exit status 2,
  found before anything is written: the run's ``args.json`` stays as it was.
- Every numeric setting is checked finite and in range (memory included), ``--run-name`` is a plain
  name and ``--out-dir`` writable, before anything is written; a refused or failed run leaves no folder.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from helpers.hostile import Payload, rewrite, serialized_payload
from helpers.tiny_training import tiny_args

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from agents.commands.train import main as train_main  # noqa: E402
from agents.learned import METADATA_NAME, algorithms, read_metadata  # noqa: E402
from agents.registry import make_agent  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
Damage = Callable[[Path], None]  # what a test does to a file to damage it
# The flags of the tiny run below, for the command lines that resume it.
TINY = [
    "--n-envs", "2", "--n-steps", "128", "--batch-size", "64", "--eval-every", "0", "--eval-deals", "2",
    "--eval-baselines", "random", "--final-eval-deals", "0", "--eval-workers", "1", "--checkpoint-every", "0",
    "--no-progress-bar", "--no-tensorboard",
]  # fmt: skip


def members_of(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def tensors(raw: bytes) -> Any:
    return torch.load(io.BytesIO(raw), weights_only=True)


def saved(value: Any) -> bytes:
    buffer = io.BytesIO()
    torch.save(value, buffer)
    return buffer.getvalue()


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file below ``folder`` with its size and modification time."""
    return {
        str(path.relative_to(folder)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in folder.rglob("*")
        if path.is_file()
    }


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """``train.py ARGV`` run in-process: exit status 2 and one line on stderr, no traceback; that line."""
    capsys.readouterr()
    assert train_main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "error:" in lines[0] and "Traceback" not in captured.err, captured.err
    return lines[0]


@pytest.fixture(scope="module")
def base_run(train: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny self-play run (MaskablePPO, standard rules, 2 players): checkpoints and snapshots at 256 and
    512 decisions, a learning curve against random; returns its folder."""
    out_dir = tmp_path_factory.mktemp("base")
    args = tiny_args(
        train,
        out_dir,
        run_name="base",
        total_timesteps=512,
        checkpoint_every=256,
        self_play=True,
        snapshot_every=256,
        eval_every=256,
        final_eval_deals=0,
    )
    return train.train(args).run_dir


@pytest.fixture
def run_copy(base_run: Path, tmp_path: Path) -> Path:
    """A copy of the base run to resume (or to be refused) in."""
    return Path(shutil.copytree(base_run, tmp_path / "base"))


def resume_argv(checkpoint: Path, *more: str, total: int = 768) -> list[str]:
    return [
        "--resume",
        str(checkpoint),
        "--out-dir",
        str(checkpoint.parents[2]),
        "--total-timesteps",
        str(total),
        *TINY,
        *more,
    ]


# --------------------------------------------------------------------------
# Resume never unpickles


def crafted_checkpoint(checkpoint: Path, marker: Path, with_state: bool) -> Path:
    """``checkpoint`` with a payload in every pickled field of SB3's ``data``; ``with_state`` False
    drops the training state from ``trash_rl.json`` too (a file written before it was kept), so that
    the counters come from ``data``'s plain-JSON fields."""
    members = members_of(checkpoint)
    data = json.loads(members["data"])
    for key, value in data.items():
        if isinstance(value, dict) and ":serialized:" in value:
            data[key] = serialized_payload(marker)
    metadata = json.loads(members[METADATA_NAME])
    if not with_state:
        del metadata["training_state"]
    replaced = {"data": json.dumps(data).encode(), METADATA_NAME: json.dumps(metadata).encode()}
    return rewrite(checkpoint, checkpoint.with_name("crafted.zip"), replaced)


@pytest.mark.parametrize("with_state", [True, False], ids=["training-state", "older-file"])
def test_resume_runs_no_payload_and_goes_on(with_state: bool, run_copy: Path, tmp_path: Path) -> None:
    """``--resume`` of a checkpoint whose every pickled field is a payload trains on to the new budget
    (its count continued) and the payload never runs; SB3's own loader would run it."""
    marker = tmp_path / "payload_ran"
    crafted = crafted_checkpoint(run_copy / "checkpoints" / "step_512.zip", marker, with_state)
    assert train_main(resume_argv(crafted)) == 0
    assert not marker.exists()
    assert read_metadata(run_copy / "policy.zip")["num_timesteps"] >= 768
    with pytest.raises(Exception):  # noqa: B017 - the payload's result is no model: what matters is that it ran
        algorithms()["MaskablePPO"].load(str(crafted), device="cpu")
    assert marker.exists()  # the threat is real


def test_help_says_what_resume_trusts(capsys: pytest.CaptureFixture[str]) -> None:
    """``--help`` of ``--resume`` says that nothing in the file is unpickled and what is read."""
    with pytest.raises(SystemExit) as exit_:
        train_main(["--help"])
    assert exit_.value.code == 0
    text = " ".join(capsys.readouterr().out.replace("│", " ").split())
    assert "Nothing in it is unpickled" in text and "weights_only" in text and "as JSON" in text


@pytest.mark.parametrize(
    ("algo", "with_state"),
    [("maskable_ppo", True), ("maskable_ppo", False), ("dqn", True)],
    ids=["maskable_ppo", "maskable_ppo-older-file", "dqn"],
)
def test_a_resumed_run_goes_on_as_sb3s_own_loader_would(
    algo: str, with_state: bool, train: ModuleType, tmp_path: Path
) -> None:
    """The model a resume builds from the settings, with the checkpoint's weights, optimizer state and
    counters, trains to the same weights as SB3's own (unpickling) loader's model of the same file."""
    from stable_baselines3.common.utils import set_random_seed

    fields: dict[str, Any] = {"algo": algo, "final_eval_deals": 0}
    if algo == "dqn":  # learning (and the exploration schedule) under way at the checkpoint
        fields |= {"learning_starts": 100, "target_update_interval": 100}
    first = train.train(
        tiny_args(train, tmp_path, run_name="first", total_timesteps=384, checkpoint_every=256, **fields)
    )
    checkpoint = first.run_dir / "checkpoints" / "step_256.zip"
    if not with_state:
        metadata = json.loads(members_of(checkpoint)[METADATA_NAME])
        del metadata["training_state"]
        checkpoint = rewrite(checkpoint, tmp_path / "older.zip", {METADATA_NAME: json.dumps(metadata).encode()})
    args = tiny_args(train, tmp_path, run_name="resumed", resume=checkpoint, total_timesteps=512, **fields)
    resumed = train.train(args)

    set_random_seed(args.seed)  # what train.run does before it builds the environments and the model
    vec_env = train.make_vec_env_for(args, [make_agent(spec, "trash") for spec in args.opponents])
    reference = algorithms()[train.ALGORITHMS[algo]].load(str(checkpoint), env=vec_env, device="cpu")
    reference.learn(512 - reference.num_timesteps, reset_num_timesteps=False)
    vec_env.close()
    expected, got = reference.policy.state_dict(), resumed.agent.policy.state_dict()
    assert resumed.timesteps == reference.num_timesteps
    assert expected.keys() == got.keys() and all(torch.equal(expected[key], got[key]) for key in expected)


# --------------------------------------------------------------------------
# Damaged checkpoints: one line, exit 2, nothing written


def flip_a_byte(path: Path, member: str) -> None:
    """Flip one byte in the middle of ``member``'s stored data (found from its local header)."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(member)
    header = info.header_offset
    start = header + 30 + int.from_bytes(data[header + 26 : header + 28], "little")
    start += int.from_bytes(data[header + 28 : header + 30], "little")
    data[start + info.compress_size // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def change_weights(change: Callable[[dict[str, Any]], None]) -> Damage:
    """A damage that changes the state dict of ``policy.pth`` with ``change(state)``."""

    def damage(path: Path) -> None:
        state = tensors(members_of(path)["policy.pth"])
        change(state)
        replace_member(path, "policy.pth", saved(state))

    return damage


def change_optimizer(change: Callable[[dict[str, Any]], None]) -> Damage:
    """A damage that changes the state of ``policy.optimizer.pth`` with ``change(state)``."""

    def damage(path: Path) -> None:
        state = tensors(members_of(path)["policy.optimizer.pth"])
        change(state)
        replace_member(path, "policy.optimizer.pth", saved(state))

    return damage


def change_metadata(change: Callable[[dict[str, Any]], None]) -> Damage:
    """A damage that changes ``trash_rl.json`` with ``change(metadata)``."""

    def damage(path: Path) -> None:
        metadata = json.loads(members_of(path)[METADATA_NAME])
        change(metadata)
        replace_member(path, METADATA_NAME, json.dumps(metadata).encode())

    return damage


def replace_member(path: Path, name: str, content: bytes | None) -> None:
    copy = rewrite(path, path.with_name("rewritten.zip"), {name: content})
    os.replace(copy, path)


def first_key(state: dict[str, Any]) -> str:
    return next(iter(state))


def rename_first(state: dict[str, Any]) -> None:
    state["renamed.weight"] = state.pop(first_key(state))


def reshape_first(state: dict[str, Any]) -> None:
    state[first_key(state)] = torch.zeros(3, 3)


def nan_first(state: dict[str, Any]) -> None:
    state[first_key(state)][0] = float("nan")


def reshape_moment(state: dict[str, Any]) -> None:
    state["state"][0]["exp_avg"] = torch.zeros(2)


def drop_moment(state: dict[str, Any]) -> None:
    del state["state"][0]["exp_avg_sq"]


def counter(name: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(metadata: dict[str, Any]) -> None:
        metadata["training_state"]["counters"][name] = value

    return change


def pickle_only_counters(marker: Path) -> Damage:
    """An older file whose counters are pickles only (SB3 ``:serialized:``), never read."""

    def damage(path: Path) -> None:
        members = members_of(path)
        metadata, data = json.loads(members[METADATA_NAME]), json.loads(members["data"])
        del metadata["training_state"]
        data["num_timesteps"] = serialized_payload(marker)
        replace_member(path, METADATA_NAME, json.dumps(metadata).encode())
        replace_member(path, "data", json.dumps(data).encode())

    return damage


def weights_payload(marker: Path) -> Damage:
    """``policy.pth`` holding a pickled object instead of tensors."""

    def damage(path: Path) -> None:
        state = tensors(members_of(path)["policy.pth"])
        state[first_key(state)] = Payload(marker)
        replace_member(path, "policy.pth", saved(state))

    return damage


def oversized(path: Path) -> None:
    """``policy.pth`` declaring far more bytes than the network has (compressed, the file stays small)."""
    with zipfile.ZipFile(path) as archive, zipfile.ZipFile(path.with_name("big.zip"), "w") as out:
        for item in archive.infolist():
            if item.filename == "policy.pth":
                out.writestr("policy.pth", bytes(64 * 2**20), compress_type=zipfile.ZIP_DEFLATED)
            else:
                out.writestr(item, archive.read(item.filename))
    os.replace(path.with_name("big.zip"), path)


def older_file_without_data(path: Path) -> None:
    """A file without a training state (written before it was kept) and without SB3's data."""
    change_metadata(lambda metadata: metadata.pop("training_state"))(path)
    replace_member(path, "data", None)


DAMAGES: dict[str, tuple[Damage, str]] = {
    "byte-flipped-weights": (lambda path: flip_a_byte(path, "policy.pth"), "policy.pth"),
    "byte-flipped-optimizer": (lambda path: flip_a_byte(path, "policy.optimizer.pth"), "policy.optimizer.pth"),
    "truncated": (lambda path: path.write_bytes(path.read_bytes()[: path.stat().st_size // 2]), ""),
    "not-a-zip": (lambda path: path.write_bytes(b"not a zip at all"), ""),
    "no-optimizer": (lambda path: replace_member(path, "policy.optimizer.pth", None), "no member policy.optimizer.pth"),
    "no-weights": (lambda path: replace_member(path, "policy.pth", None), "has no policy.pth"),
    "renamed-weight": (change_weights(rename_first), "renamed.weight unexpected"),
    "reshaped-weight": (change_weights(reshape_first), "does not fit the network these settings build"),
    "nan-weight": (change_weights(nan_first), "holds non-finite weights"),
    "oversized-member": (oversized, "over the limit of"),
    "optimizer-state-reshaped": (change_optimizer(reshape_moment), "that does not fit it"),
    "optimizer-state-incomplete": (change_optimizer(drop_moment), "do not load into the network"),
    "counter-negative": (change_metadata(counter("num_timesteps", -5)), "no valid num_timesteps"),
    "counter-text": (change_metadata(counter("_n_updates", "ten")), "no valid _n_updates"),
    "counter-infinite": (change_metadata(counter("_current_progress_remaining", 1e400)), "no valid"),
    "unknown-state-version": (
        change_metadata(lambda metadata: metadata["training_state"].update(version=99)),
        "training_state of an unknown version",
    ),
    "count-mismatch": (change_metadata(lambda metadata: metadata.update(num_timesteps=7)), "the file is damaged"),
    "older-file-without-data": (older_file_without_data, "has no data"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_a_damaged_checkpoint_is_refused_before_anything_is_written(
    damage: str, run_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--resume`` of a damaged checkpoint of a run: exit status 2, one line naming the file (and what is
    wrong), and the run folder as it was: its ``args.json`` is not rewritten, nothing is added."""
    make, message = DAMAGES[damage]
    checkpoint = run_copy / "checkpoints" / "step_512.zip"
    make(checkpoint)
    before = snapshot(run_copy)
    line = refused(resume_argv(checkpoint), capsys)
    assert str(checkpoint) in line and message in line, line
    assert snapshot(run_copy) == before


@pytest.mark.parametrize("kind", ["pickle-only-counters", "weights-payload"])
def test_payloads_where_the_resume_reads_are_refused_unrun(
    kind: str, run_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A counter that is only a pickle, or weights that are a pickled object: refused in one line, the
    payload not run, nothing written."""
    marker = tmp_path / "payload_ran"
    checkpoint = run_copy / "checkpoints" / "step_512.zip"
    (pickle_only_counters if kind == "pickle-only-counters" else weights_payload)(marker)(checkpoint)
    before = snapshot(run_copy)
    line = refused(resume_argv(checkpoint), capsys)
    assert str(checkpoint) in line and ("no valid num_timesteps" in line or "holds more than tensors" in line), line
    assert snapshot(run_copy) == before and not marker.exists()


def test_a_checkpoint_of_another_network_is_refused(run_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Resuming with another ``--net-arch`` than the checkpoint's says which network it holds."""
    checkpoint = run_copy / "checkpoints" / "step_512.zip"
    before = snapshot(run_copy)
    line = refused(resume_argv(checkpoint, "--net-arch", "64", "64"), capsys)
    assert "holds the network" in line and "--net-arch" in line, line
    assert snapshot(run_copy) == before


# --------------------------------------------------------------------------
# The run's snapshots and learning curve


def pickle_only_snapshot(marker: Path) -> Damage:
    """A snapshot whose network is described only by a pickle (no ``network`` in ``trash_rl.json``, SB3's
    ``policy_kwargs`` a payload): it cannot be loaded as weights only."""

    def damage(path: Path) -> None:
        members = members_of(path)
        metadata, data = json.loads(members[METADATA_NAME]), json.loads(members["data"])
        del metadata["network"]
        data["policy_kwargs"] = serialized_payload(marker)
        replace_member(path, METADATA_NAME, json.dumps(metadata).encode())
        replace_member(path, "data", json.dumps(data).encode())

    return damage


@pytest.mark.parametrize("kind", ["pickle-only", "truncated", "byte-flipped"])
def test_a_snapshot_that_cannot_be_loaded_as_weights_is_refused(
    kind: str, run_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--resume ... --self-play`` over a run whose snapshot is pickle-only or damaged: one line naming
    the snapshot, exit 2, nothing written, no payload run."""
    marker = tmp_path / "payload_ran"
    bad = run_copy / "snapshots" / "step_256.zip"
    if kind == "pickle-only":
        pickle_only_snapshot(marker)(bad)
    elif kind == "truncated":
        bad.write_bytes(bad.read_bytes()[:1000])
    else:
        flip_a_byte(bad, "policy.pth")
    before = snapshot(run_copy)
    line = refused(
        resume_argv(run_copy / "checkpoints" / "step_512.zip", "--self-play", "--snapshot-every", "256"), capsys
    )
    assert f"self-play snapshot {bad} cannot be loaded as weights only" in line, line
    assert snapshot(run_copy) == before and not marker.exists()


@pytest.mark.parametrize(
    "content", ['{"history": [{"timesteps": "x"}]}', "[1, 2", '{"history": [{"timesteps": 0}]}'], ids=str
)
def test_a_damaged_learning_curve_is_refused(content: str, run_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The run's ``eval_history.json`` that a resume extends: unreadable or without scores against the
    evaluation's baselines, it is one line naming it, before anything is written."""
    history = run_copy / "eval_history.json"
    history.write_text(content)
    before = snapshot(run_copy)
    line = refused(resume_argv(run_copy / "checkpoints" / "step_512.zip"), capsys)
    assert f"{history} is not a learning curve against random" in line, line
    assert snapshot(run_copy) == before


# --------------------------------------------------------------------------
# Arguments: every number in range, a plain run name, a writable output folder


BAD_NUMBERS = [
    (["--learning-rate", "inf"], "--learning-rate must be above 0 and at most 1, got inf"),
    (["--learning-rate", "nan"], "--learning-rate must be above 0 and at most 1, got nan"),
    (["--learning-rate", "2"], "--learning-rate must be above 0 and at most 1"),
    (["--ent-coef", "inf"], "--ent-coef must be at least 0 and at most 1, got inf"),
    (["--ent-coef", "-0.5"], "--ent-coef must be at least 0"),
    (["--gamma", "nan"], "--gamma must be in (0, 1], got nan"),
    (["--gamma=-inf"], "--gamma must be in (0, 1]"),  # argparse reads "-inf" after a space as a flag
    (["--seed", "99999999999999999999"], "--seed must be at most 4,294,967,295"),
    (["--seed", "4294967296"], "--seed must be at most 4,294,967,295"),
    (["--total-timesteps", str(2**63)], "--total-timesteps must be at most"),
    (["--n-epochs", str(2**64)], "--n-epochs must be at most"),
    (["--eval-deals", "10000000"], "--eval-deals must be at most 1,000,000"),
    (["--final-eval-deals", "-1"], "--final-eval-deals must be at least 0"),
    (["--threads", "100000"], "--threads must be at most"),
    (["--n-envs", "10000000"], "--n-envs"),
    (["--n-steps", "1000000000000"], "lower --n-steps or --n-envs"),
    (["--net-arch", "1000000000"], "lower --net-arch"),
    (["--subproc", "--n-envs", "100000"], "lower --n-envs"),
    (["--algo", "dqn", "--batch-size", "1000000000000"], "lower --batch-size"),
    (["--algo", "qrdqn", "--batch-size", "1", "--n-quantiles", "10000000000"], "lower --net-arch or --n-quantiles"),
    (["--self-play", "--snapshot-every", str(2**70)], "--snapshot-every must be at most"),
]


@pytest.mark.parametrize(("argv", "message"), BAD_NUMBERS, ids=[" ".join(argv) for argv, _ in BAD_NUMBERS])
def test_every_number_is_checked_before_anything_is_written(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A number out of its range (infinite, NaN, past numpy's seed, more memory than there is): one line
    naming the flag, exit 2, and no folder made (the next run is not numbered ``_2``)."""
    line = refused([*TINY, "--total-timesteps", "256", "--out-dir", str(tmp_path / "runs"), *argv], capsys)
    assert message in line, line
    assert list(tmp_path.iterdir()) == []


def test_the_memory_message_names_what_is_too_large(
    train: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The memory refusal gives the estimate, what is available and the part that needs the most."""
    line = refused(["--total-timesteps", "256", "--out-dir", str(tmp_path), "--n-envs", "10000000"], capsys)
    assert "these settings need about" in line and "GiB available" in line and "the rollout buffer" in line, line
    small = train.memory_needed(train.Args(), 150, 13)
    assert sum(small.values()) < 64 * 2**20  # the default run: far below any machine's memory


BAD_NAMES = [
    ("../../escape", "holds a path separator"),
    ("a/b", "holds a path separator"),
    ("..", "starts with a dot"),
    (".hidden", "starts with a dot"),
    ("   ", "is blank"),
    ("line\nbreak", "holds a control character"),
    ("x" * 300, "is longer than 255 bytes"),
]


@pytest.mark.parametrize(
    ("name", "message"), BAD_NAMES, ids=["escape", "slash", "dotdot", "hidden", "blank", "newline", "long"]
)
def test_run_name_must_be_a_plain_name(
    name: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--run-name`` names a folder inside ``--out-dir`` and nothing else: anything that would reach
    outside it (or hide, or not be a name) is one line, exit 2, nothing written anywhere."""
    out_dir = tmp_path / "deep" / "runs"
    out_dir.mkdir(parents=True)
    line = refused([*TINY, "--total-timesteps", "256", "--out-dir", str(out_dir), "--run-name", name], capsys)
    assert line.startswith("train.py: error: --run-name ") and message in line, line
    assert list(out_dir.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["deep"]


def test_out_dir_under_a_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--out-dir`` that is a regular file, or under one: one line, exit 2, the file untouched."""
    file = tmp_path / "notes.txt"
    file.write_text("the user's file")
    for out_dir in (file, file / "runs"):
        line = refused([*TINY, "--total-timesteps", "256", "--out-dir", str(out_dir)], capsys)
        assert f"--out-dir {str(out_dir)!r}: {str(file)!r} is a file, not a folder" in line, line
    assert file.read_text() == "the user's file" and sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
def test_out_dir_that_cannot_be_written_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--out-dir`` where no folder can be made (``/proc``: not even root can) is one line, exit 2."""
    line = refused([*TINY, "--total-timesteps", "256", "--out-dir", "/proc/trash_rl_runs"], capsys)
    assert "--out-dir '/proc/trash_rl_runs': cannot write in '/proc'" in line, line
    assert not Path("/proc/trash_rl_runs").exists()


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes into read-only folders")
def test_out_dir_in_a_read_only_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        line = refused([*TINY, "--total-timesteps", "256", "--out-dir", str(locked / "runs")], capsys)
    finally:
        locked.chmod(0o755)
    assert f"cannot write in {str(locked)!r}" in line and list(locked.iterdir()) == []


def test_a_refused_or_failed_run_leaves_no_folder(
    train: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Neither a refused run nor one that fails before it trains leaves a folder holding only
    ``args.json``: the next run with the default name gets the name itself, not ``_2``."""
    refused([*TINY, "--run-name", "", "--out-dir", str(tmp_path), "--learning-rate", "inf"], capsys)

    def broken(*args: Any) -> Any:
        raise RuntimeError("no environments today")

    monkeypatch.setattr(train, "make_vec_env_for", broken)
    with pytest.raises(RuntimeError, match="no environments today"):
        train.train(tiny_args(train, tmp_path, run_name="", total_timesteps=256, final_eval_deals=0))
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    result = train.train(tiny_args(train, tmp_path, run_name="", total_timesteps=256, final_eval_deals=0))
    assert result.run_dir == tmp_path / "standard_2p_maskable_ppo_seed0"


def test_the_memory_available_is_psutils(train: ModuleType) -> None:
    """What the memory check compares with is what psutil says the system can still give."""
    psutil = pytest.importorskip("psutil")
    from agents.training.sb3.settings import available_memory

    available = available_memory()
    assert available is not None and 0 < available <= psutil.virtual_memory().total
