"""Damaged and hostile policy files and folders are refused in one line (issue 23, items 2 and 11).

Each test makes the damaged file itself from a real policy (the shipped Stable-Baselines3 policy, or
a tiny RLlib module exported as ``train_rllib.py`` does) and checks that loading it is a
``ValueError`` naming the file and what is wrong, that the file is left as it was, and, through the
commands, exit status 2 with one line on stderr. Weights must be exactly the network's (a partial,
renamed, reshaped or non-finite weight would otherwise leave random or NaN weights playing), a zip
cut short is said to be cut short (it used to be taken for the zip stored inside it and said to lack
``trash_rl.json``), and a member over its size bound is refused before it is read (a 1 GB member was
read whole into memory first).
"""

from __future__ import annotations

import io
import json
import shutil
import struct
import subprocess
import sys
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from helpers.hostile import Payload, rewrite  # noqa: E402

from agents.commands import evaluate, play  # noqa: E402
from agents.learned import METADATA_LIMIT, METADATA_NAME, LearnedAgent, read_metadata  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_POLICY = ROOT / "agents" / "policies" / "standard_2p_maskable_ppo.zip"
GIB = 1 << 30
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def declare_size(path: Path, member: str, size: int) -> None:
    """Rewrite the uncompressed size the zip directory of ``path`` declares for ``member`` (what
    :mod:`zipfile` goes by): a member that claims to be ``size`` bytes, made without writing them."""
    data = bytearray(path.read_bytes())
    position = data.find(b"PK\x01\x02")
    while position >= 0:
        name_length = struct.unpack_from("<H", data, position + 28)[0]
        if data[position + 46 : position + 46 + name_length].decode() == member:
            struct.pack_into("<L", data, position + 24, size)
            path.write_bytes(bytes(data))
            return
        position = data.find(b"PK\x01\x02", position + 46)
    raise AssertionError(f"no {member} in {path}")


def shipped_weights() -> dict[str, torch.Tensor]:
    with zipfile.ZipFile(SHIPPED_POLICY) as archive:
        return torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=True)


def saved(weights: dict) -> bytes:
    buffer = io.BytesIO()
    torch.save(weights, buffer)
    return buffer.getvalue()


def refused(load: Callable[[], object], path: Path, *fragments: str) -> str:
    """Loading ``path`` is a one-line ValueError naming it and saying each of ``fragments``; the
    folder holding it is left as it was."""
    folder = path if path.is_dir() else path.parent
    before = {item: item.read_bytes() for item in folder.rglob("*") if item.is_file()}
    with pytest.raises(ValueError) as caught:
        load()
    message = str(caught.value)
    assert "\n" not in message and str(path) in message, message
    for fragment in fragments:
        assert fragment in message, message
    assert {item: item.read_bytes() for item in folder.rglob("*") if item.is_file()} == before
    return message


# ---------------------------------------------------------------------- Stable-Baselines3 policy files

FIRST = "mlp_extractor.policy_net.0.weight"
BIAS = "action_net.bias"


@pytest.mark.parametrize(
    ("damage", "fragments"),
    [
        (lambda w: {}, ["policy.pth", "holds no weights"]),
        (lambda w: {k: v for k, v in w.items() if k != FIRST}, ["policy.pth", f"lacks {FIRST!r}"]),
        (
            lambda w: {("renamed." + k if k == FIRST else k): v for k, v in w.items()},
            [f"lacks {FIRST!r}", f"has 'renamed.{FIRST}'"],
        ),
        (lambda w: {**w, "extra.weight": torch.zeros(3)}, ["has 'extra.weight'"]),
        (
            lambda w: {**w, FIRST: w[FIRST][:-1]},
            [f"weight {FIRST!r} has shape (127, 150), the network's is (128, 150)"],
        ),
        (lambda w: {k: torch.full_like(v, float("nan")) for k, v in w.items()}, ["NaN or infinite values"]),
        (lambda w: {**w, BIAS: torch.where(torch.arange(13) == 4, float("inf"), w[BIAS])}, [f"{BIAS!r} holds 1 NaN"]),
        (lambda w: {**w, FIRST: w[FIRST].double()}, [f"weight {FIRST!r} is float64, the network's is float32"]),
    ],
    ids=["empty", "missing", "renamed", "extra", "shape", "all-nan", "one-inf", "dtype"],
)
def test_weights_that_are_not_exactly_the_networks_are_refused(damage, fragments, tmp_path: Path) -> None:
    """A ``policy.pth`` that is empty, lacks, adds or renames a tensor, has one of another shape or
    dtype, or holds NaN or infinite values is refused naming the file and the first bad tensor,
    never loaded as a partly random or NaN network."""
    path = rewrite(SHIPPED_POLICY, tmp_path / "damaged.zip", {"policy.pth": saved(damage(shipped_weights()))})
    refused(lambda: LearnedAgent.load(path), path, *fragments)


def member_end(name: str) -> int:
    """The offset in the shipped policy where the data of member ``name`` ends."""
    with zipfile.ZipFile(SHIPPED_POLICY) as archive:
        info = archive.getinfo(name)
    with open(SHIPPED_POLICY, "rb") as handle:
        handle.seek(info.header_offset + 26)
        name_length, extra_length = struct.unpack("<HH", handle.read(4))
    return info.header_offset + 30 + name_length + extra_length + info.compress_size


@pytest.mark.parametrize(
    "cut",
    [100, 25_000, member_end("pytorch_variables.pth"), member_end("policy.pth"), -30, -1],
    ids=["header", "inside-a-member", "after-a-member", "after-policy.pth", "in-the-directory", "last-byte"],
)
def test_a_file_cut_short_is_said_to_be_cut_short(cut: int, tmp_path: Path) -> None:
    """A policy file cut short anywhere is said to be cut short; it used to be read as the torch zip
    stored inside it and said to lack ``trash_rl.json`` (the wrong missing member)."""
    path = tmp_path / "cut.zip"
    path.write_bytes(SHIPPED_POLICY.read_bytes()[:cut])
    message = refused(lambda: LearnedAgent.load(path), path, "is cut short")
    assert METADATA_NAME not in message


@pytest.mark.parametrize("member", ["policy.pth", "data", METADATA_NAME])
def test_a_missing_member_is_named(member: str, tmp_path: Path) -> None:
    """A whole zip without one of a policy file's members names that member."""
    path = rewrite(SHIPPED_POLICY, tmp_path / "partial.zip", {member: None})
    refused(lambda: LearnedAgent.load(path), path, f"has no {member}")


@pytest.mark.parametrize("member", [METADATA_NAME, "policy.pth"])
def test_a_member_declaring_a_huge_size_is_refused_before_it_is_read(member: str, tmp_path: Path) -> None:
    """A member whose declared size is over its bound (here 1 GiB, declared by the zip's directory)
    is refused from that size, naming the member."""
    path = rewrite(SHIPPED_POLICY, tmp_path / "huge.zip", {})
    declare_size(path, member, GIB)
    refused(lambda: LearnedAgent.load(path), path, f"its {member} is 1,073,741,824 bytes, over the limit")


def test_a_zip_of_too_many_members_is_refused_before_its_directory_is_read(tmp_path: Path) -> None:
    """A policy file with 5,000 members (a directory parsed whole on opening) is refused from the
    count in its end record."""
    path = rewrite(SHIPPED_POLICY, tmp_path / "many.zip", {})
    with zipfile.ZipFile(path, "a") as archive:
        for number in range(5000):
            archive.writestr(f"filler/{number}", b"")
    refused(lambda: LearnedAgent.load(path), path, "has 5,007 zip members, more than the 1,024 allowed")


@pytest.fixture(scope="module")
def gigabyte_member(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped policy whose ``policy.pth`` is 1 GiB of zeros, deflated to about 1 MB (written
    by chunks, never held whole)."""
    path = rewrite(SHIPPED_POLICY, tmp_path_factory.mktemp("big") / "gigabyte.zip", {"policy.pth": None})
    info = zipfile.ZipInfo("policy.pth")
    info.compress_type = zipfile.ZIP_DEFLATED
    chunk = bytes(16 << 20)
    with zipfile.ZipFile(path, "a") as archive, archive.open(info, "w", force_zip64=True) as stream:
        for _ in range(GIB // len(chunk)):
            stream.write(chunk)
    return path


@pytest.mark.parametrize("declared", [GIB, 1_000_000], ids=["declared-truly", "declared-small"])
def test_a_gigabyte_member_is_refused_without_reading_it_whole(
    declared: int, gigabyte_member: Path, tmp_path: Path
) -> None:
    """A real 1 GiB ``policy.pth`` is refused with little memory used: from its declared size, or,
    when the directory declares it small, by the read stopping there (then it is damaged: its
    checksum does not match). It used to be read whole first (a peak of 2.3-2.5 GB)."""
    path = tmp_path / "gigabyte.zip"
    shutil.copyfile(gigabyte_member, path)
    if declared != GIB:
        declare_size(path, "policy.pth", declared)
    LearnedAgent.load(SHIPPED_POLICY)  # what loading imports (torch, SB3) is not the refusal's allocation
    tracemalloc.start()
    try:
        message = refused(lambda: LearnedAgent.load(path), path, "policy.pth")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert ("over the limit" if declared == GIB else "is damaged") in message
    assert peak < 64 << 20, f"{peak:,} bytes allocated to refuse it"


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"network": {"net_arch": [100_000, 100_000], "activation_fn": "Tanh"}}, "parameters, over the limit"),
        ({"observation_size": 10**9}, "parameters, over the limit"),
        ({"network": {"net_arch": [1] * 1000}}, "invalid net_arch"),
        ({"network": {"net_arch": [64, "64"]}}, "invalid net_arch"),
        ({"network": {"net_arch": {"pi": [64], "qf": [64]}}}, "invalid net_arch"),
        ({"algorithm": "QRDQN", "network": {"n_quantiles": True}}, "invalid n_quantiles"),
    ],
    ids=["wide", "huge-observation", "deep", "not-ints", "unknown-key", "bool-quantiles"],
)
def test_a_network_description_too_large_or_malformed_is_refused_before_it_is_built(
    change: dict, fragment: str, tmp_path: Path
) -> None:
    """A ``trash_rl.json`` describing a network of 10 billion parameters (40 GB to build) or a
    malformed one is refused from the description, before anything is allocated."""
    metadata = json.loads(zipfile.ZipFile(SHIPPED_POLICY).read(METADATA_NAME))
    path = rewrite(SHIPPED_POLICY, tmp_path / "net.zip", {METADATA_NAME: json.dumps({**metadata, **change}).encode()})
    refused(lambda: LearnedAgent.load(path), path, fragment)


@pytest.mark.parametrize(
    ("content", "fragment"),
    [(b"[" * 200_000, "nests too deep"), (b"\xff\xfe{}", "is not JSON"), (b"{" * (METADATA_LIMIT + 1), "limit")],
    ids=["deep", "not-utf8", "over-the-limit"],
)
def test_a_trash_rl_json_that_is_not_json_is_refused(content: bytes, fragment: str, tmp_path: Path) -> None:
    """``trash_rl.json`` nested 200,000 deep (a RecursionError traceback before), not UTF-8, or over
    its bound is one line naming the file, also for the resume path's :func:`read_metadata`."""
    path = rewrite(SHIPPED_POLICY, tmp_path / "json.zip", {METADATA_NAME: content})
    refused(lambda: read_metadata(path), path, METADATA_NAME, fragment)


def test_the_commands_exit_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``trash-evaluate`` and ``trash-play`` given a policy with a NaN weight exit with status 2 and
    one line naming the file and the weight, and write nothing."""
    weights = shipped_weights()
    path = rewrite(
        SHIPPED_POLICY, tmp_path / "nan.zip", {"policy.pth": saved({**weights, BIAS: weights[BIAS] * np.nan})}
    )
    out = tmp_path / "eval.json"
    assert evaluate.main([str(path), "greedy", "--deals", "3", "--quiet", "--json", str(out)]) == 2
    assert play.main(["--opponents", str(path)], input_fn=lambda prompt: "q") == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2, lines
    assert all(": error: " in line and str(path) in line and f"{BIAS!r} holds 13 NaN" in line for line in lines)
    assert not out.exists()


def test_the_evaluate_command_in_its_own_process_exits_2_with_one_line(tmp_path: Path) -> None:
    """The same through ``python -m agents.commands.evaluate``: a file cut short, exit status 2, one
    line on stderr and no traceback."""
    path = tmp_path / "cut.zip"
    path.write_bytes(SHIPPED_POLICY.read_bytes()[:25_000])
    process = subprocess.run(
        [sys.executable, "-m", "agents.commands.evaluate", str(path), "greedy", "--deals", "3", "--quiet"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert process.returncode == 2, process.stderr
    assert process.stderr.count("\n") == 1 and "Traceback" not in process.stderr
    assert f"{path} is not a readable policy file: it is cut short" in process.stderr and ": error: " in process.stderr


# ---------------------------------------------------------------------- RLlib policy folders


@pytest.fixture(scope="module")
def rllib_policy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny RLlib action-masking module (one hidden layer of 8) exported as ``train_rllib.py``
    exports its policy: no training, the weights are its initial ones."""
    pytest.importorskip("ray.rllib")
    import gymnasium as gym
    from ray.rllib.algorithms.ppo.ppo_catalog import PPOCatalog
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from agents.rllib_policy import export_policy
    from trash_env.games import game_of
    from trash_env.trash.config import make_config
    from trash_env.trash.rules import NUM_ACTIONS

    config = make_config("standard")
    size = game_of(config).make_observer(config).size
    space = gym.spaces.Dict(
        {
            "action_mask": gym.spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
            "observations": gym.spaces.Box(0.0, 1.0, (size,), np.float32),
        }
    )
    module = ActionMaskingTorchRLModule(
        observation_space=space,
        action_space=gym.spaces.Discrete(NUM_ACTIONS),
        inference_only=False,
        learner_only=False,
        model_config={"fcnet_hiddens": [8], "head_fcnet_hiddens": [8]},
        catalog_class=PPOCatalog,
    )
    return export_policy(module, tmp_path_factory.mktemp("rllib") / "policy", config, "standard")


def load_rllib(folder: Path) -> object:
    from agents.rllib_policy import RLlibAgent

    return RLlibAgent.load(folder)


def rllib_copy(rllib_policy: Path, tmp_path: Path, weights: dict[str, np.ndarray] | None = None) -> Path:
    """A copy of the exported folder, with other weights if given."""
    folder = tmp_path / "policy"
    shutil.copytree(rllib_policy, folder)
    if weights is not None:
        np.savez(folder / "weights.npz", **weights)
    return folder


def exported_weights(folder: Path) -> dict[str, np.ndarray]:
    with np.load(folder / "weights.npz") as weights:
        return {name: weights[name] for name in weights.files}


ENCODER = "encoder.encoder.net.mlp.0.weight"


def test_the_exported_folder_loads_with_its_own_weights(rllib_policy: Path) -> None:
    """The intact folder loads, its module holding exactly the exported weights."""
    agent = load_rllib(rllib_policy)
    state = agent.module.get_state()
    exported = exported_weights(rllib_policy)
    assert set(state) == set(exported)
    for name, values in exported.items():
        np.testing.assert_array_equal(state[name], values)


@pytest.mark.parametrize(
    ("damage", "fragments"),
    [
        (lambda w: {}, ["holds no weights"]),
        (lambda w: {k: v for k, v in w.items() if k != ENCODER}, [f"lacks {ENCODER!r}"]),
        (
            lambda w: {("x" + k if k == ENCODER else k): v for k, v in w.items()},
            [f"lacks {ENCODER!r}", f"has 'x{ENCODER}'"],
        ),
        (lambda w: {**w, "extra": np.zeros(3, np.float32)}, ["has 'extra'"]),
        (lambda w: {**w, ENCODER: w[ENCODER][:-1]}, [f"{ENCODER!r} has shape (7, 150), the network's is (8, 150)"]),
        (lambda w: {**w, ENCODER: np.full_like(w[ENCODER], np.nan)}, [f"{ENCODER!r} holds 1,200 NaN"]),
        (lambda w: {**w, ENCODER: w[ENCODER].astype(np.float64)}, [f"{ENCODER!r} is float64"]),
    ],
    ids=["empty", "missing", "renamed", "extra", "shape", "nan", "dtype"],
)
def test_rllib_weights_that_are_not_exactly_the_modules_are_refused(
    damage, fragments, rllib_policy: Path, tmp_path: Path
) -> None:
    """An empty ``weights.npz`` (a random network played, +0.60 against greedy, before), a missing,
    renamed or extra key, a wrong shape or dtype, or a NaN value is refused naming ``weights.npz``
    and the key, where RLlib's ``set_state`` would have loaded what fits and kept the rest random."""
    folder = rllib_copy(rllib_policy, tmp_path, damage(exported_weights(rllib_policy)))
    refused(lambda: load_rllib(folder), folder, "weights.npz", *fragments)


def test_rllib_weights_holding_a_pickle_are_refused_and_run_nothing(rllib_policy: Path, tmp_path: Path) -> None:
    """A weight saved as an object array (a pickle inside the ``.npy``) is refused from its header's
    dtype; the pickle is never loaded."""
    marker = tmp_path / "payload_ran"
    weights = exported_weights(rllib_policy)
    payload = np.full(weights[ENCODER].shape, Payload(marker), dtype=object)
    folder = rllib_copy(rllib_policy, tmp_path, {**weights, ENCODER: payload})
    refused(lambda: load_rllib(folder), folder, f"{ENCODER!r} is object, the network's is float32")
    assert not marker.exists()
    with np.load(folder / "weights.npz", allow_pickle=True) as unsafe:  # the threat is real: a pickle loader runs it
        unsafe[ENCODER]
    assert marker.exists()


@pytest.mark.parametrize(
    "damage", ["huge-member", "cut-short", "not-an-array", "trash_rl.json-too-large", "huge-model"]
)
def test_a_damaged_rllib_folder_is_refused_before_reading_much(damage: str, rllib_policy: Path, tmp_path: Path) -> None:
    """A ``weights.npz`` member declaring 1 GiB, a ``weights.npz`` cut short or holding a member that
    is not an array, a ``trash_rl.json`` over its bound, or a ``model_config`` of a huge network:
    each one line naming the file."""
    folder = rllib_copy(rllib_policy, tmp_path)
    weights = folder / "weights.npz"
    if damage == "huge-member":
        declare_size(weights, f"{ENCODER}.npy", GIB)
        fragments = [f"its {ENCODER}.npy is 1,073,741,824 bytes, over the limit"]
    elif damage == "cut-short":
        weights.write_bytes(weights.read_bytes()[:-40])
        fragments = ["weights.npz is not a readable weights file: it is cut short"]
    elif damage == "not-an-array":
        with zipfile.ZipFile(weights, "a") as archive:
            archive.writestr("notes.txt", "not an array")
        fragments = ["weights.npz holds 'notes.txt', which is not an array"]
    elif damage == "trash_rl.json-too-large":
        (folder / METADATA_NAME).write_bytes(b" " * (METADATA_LIMIT + 1))
        fragments = [METADATA_NAME, "over the limit"]
    else:
        metadata = json.loads((folder / METADATA_NAME).read_text())
        metadata["model_config"]["fcnet_hiddens"] = [100_000, 100_000]
        (folder / METADATA_NAME).write_text(json.dumps(metadata))
        fragments = ["parameters, over the limit"]
    refused(lambda: load_rllib(folder), folder, *fragments)


def test_the_evaluate_command_refuses_an_empty_rllib_weights_file(
    rllib_policy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``trash-evaluate`` given a folder whose ``weights.npz`` is empty exits with status 2 and one
    line naming it, playing nothing."""
    folder = rllib_copy(rllib_policy, tmp_path, {})
    out = tmp_path / "eval.json"
    assert evaluate.main([str(folder), "random", "--deals", "3", "--quiet", "--json", str(out)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and ": error: " in lines[0] and "weights.npz holds no weights" in lines[0], lines
    assert not out.exists()
