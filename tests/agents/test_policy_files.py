"""Loading a policy file to play or evaluate never unpickles anything from it (:mod:`agents.learned`).

Stable-Baselines3's zip format stores several fields (the learning-rate schedule, the spaces, the
policy class) as pickles, so a crafted ``policy.zip`` can run code when SB3 loads it. A
:class:`~agents.learned.LearnedAgent` rebuilds the network from ``trash_rl.json`` and loads the
weights with ``torch.load(weights_only=True)``. Here a file whose pickled fields carry a payload
(it writes a marker file when unpickled) goes through every command that loads policies; the
payload never runs, while SB3's own loader (used only to resume training) does run it, so the
test can tell the two apart.
"""

from __future__ import annotations

import base64
import io
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from helpers.hostile import Payload, rewrite  # noqa: E402
from helpers.tiny_training import sb3_load  # noqa: E402

from agents.commands import evaluate, play  # noqa: E402
from agents.learned import METADATA_NAME, LearnedAgent  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from trash_env import TrashSingleAgentEnv  # noqa: E402
from trash_env.trash.config import make_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_POLICY = ROOT / "agents" / "policies" / "standard_2p_maskable_ppo.zip"
pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture
def crafted(tmp_path: Path) -> tuple[Path, Path]:
    """The shipped policy with a payload in every pickled field of SB3's ``data`` (as SB3 writes
    them: base64 of a pickle under ``:serialized:``); returns the file and the payload's marker."""
    marker = tmp_path / "payload_ran"
    with zipfile.ZipFile(SHIPPED_POLICY) as archive:
        data = json.loads(archive.read("data"))
    payload = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    for key, value in data.items():
        if isinstance(value, dict) and ":serialized:" in value:
            data[key] = {":type:": value[":type:"], ":serialized:": payload}
    path = rewrite(SHIPPED_POLICY, tmp_path / "crafted.zip", {"data": json.dumps(data).encode()})
    return path, marker


def test_sb3s_own_loader_runs_the_payload(crafted: tuple[Path, Path]) -> None:
    """The threat is real: SB3's full load (what resuming training does) runs the payload."""
    path, marker = crafted
    with pytest.raises(Exception):  # noqa: B017 - what SB3 makes of the payload's result does not matter
        sb3_load(path)
    assert marker.exists()


def test_loading_as_an_agent_runs_nothing_and_plays_as_the_original(crafted: tuple[Path, Path]) -> None:
    """``make_agent`` of the crafted file runs nothing, and the rebuilt network scores every action as
    SB3's full model of the original file does."""
    path, marker = crafted
    agent = make_agent(str(path))
    assert isinstance(agent, LearnedAgent)
    model = sb3_load(SHIPPED_POLICY)
    env = TrashSingleAgentEnv("standard")
    observation, _ = env.reset(seed=1)
    with torch.no_grad():
        obs = torch.as_tensor(observation).reshape(1, -1)
        expected = model.policy.get_distribution(obs).distribution.logits.numpy()[0]
    scores = agent.preferences(observation)
    np.testing.assert_allclose(scores - scores.max(), expected - expected.max(), rtol=1e-5, atol=1e-5)
    assert not marker.exists()


def test_every_command_that_loads_policies_runs_nothing(
    crafted: tuple[Path, Path], train, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The evaluation command, terminal play, and train.py (as an opponent and as an evaluation
    baseline, with a tiny run) all load the crafted file without running its payload."""
    from helpers.tiny_training import tiny_args

    path, marker = crafted
    assert evaluate.main([str(path), "greedy", "--deals", "3", "--quiet"]) == 0
    assert evaluate.main([str(path), "greedy", "--deals", "3", "--quiet", "--engine", "scalar", "--workers", "2"]) == 0
    assert play.main(["--opponents", str(path)], input_fn=lambda prompt: "q") == 0
    args = tiny_args(train, tmp_path, opponents=[str(path)], eval_baselines=[str(path)], total_timesteps=256)
    train.train(args)
    capsys.readouterr()
    assert not marker.exists()


def test_weights_that_are_not_tensors_are_refused(tmp_path: Path) -> None:
    """A ``policy.pth`` holding a pickled object instead of tensors is a ValueError naming the file;
    ``weights_only`` loading refuses it before anything runs."""
    marker = tmp_path / "payload_ran"
    buffer = io.BytesIO()
    torch.save({"mlp_extractor.policy_net.0.weight": Payload(marker)}, buffer)
    path = rewrite(SHIPPED_POLICY, tmp_path / "weights.zip", {"policy.pth": buffer.getvalue()})
    with pytest.raises(ValueError, match="could not be loaded"):
        make_agent(str(path))
    assert not marker.exists()


@pytest.mark.parametrize(
    ("network", "message"),
    [
        ({"net_arch": [64, 64], "activation_fn": "Tanh"}, r"has shape \(128, 150\), the network.s is \(64, 150\)"),
        ({"net_arch": {"pi": [128, 128], "vf": [128, 128]}, "activation_fn": "os.system"}, "unknown activation"),
        ({"net_arch": [64], "optimizer_class": "x"}, "unreadable network description"),
    ],
)
def test_a_network_description_that_does_not_fit_is_refused(network: dict, message: str, tmp_path: Path) -> None:
    """A ``trash_rl.json`` whose network does not match the weights, names an unknown activation, or
    holds other keys is a ValueError, never a guess."""
    with zipfile.ZipFile(SHIPPED_POLICY) as archive:
        metadata = json.loads(archive.read(METADATA_NAME))
    metadata["network"] = network
    path = rewrite(SHIPPED_POLICY, tmp_path / "net.zip", {METADATA_NAME: json.dumps(metadata).encode()})
    with pytest.raises(ValueError, match=message):
        LearnedAgent.load(path)


def test_the_shipped_policy_describes_its_network() -> None:
    agent = LearnedAgent.load(SHIPPED_POLICY)
    assert agent.metadata["network"] == {"net_arch": {"pi": [128, 128], "vf": [128, 128]}, "activation_fn": "Tanh"}
    agent.check_config(make_config("standard"))
