"""Policy artifacts (issue 24, item 5): the final policy of a run kept beside its result file,
weights-only, and loaded again for the task (:mod:`agents.bench.artifacts`).

- each kind a plugin may return is saved and loaded back as the same policy: a LearnedAgent with a
  policy file (copied as it is), a LinearAgent (``.npz``), a registry baseline (``.json``: its spec,
  which ``make_agent`` keeps on the agent);
- what cannot be saved (a plain callable, a LearnedAgent with no file) is refused in one line, and so
  is a policy or an artifact for another game or other rules;
- a baseline artifact names a baseline, never a path, and a hostile or oversized one is refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents.bench.artifacts import REFUSAL, load_artifact, save_artifact
from agents.bench.tasks import get_task
from agents.linear import LinearAgent
from agents.registry import make_agent

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "agents" / "policies" / "standard_2p_maskable_ppo.zip"
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def positions(size: int, actions: int, count: int = 64) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    masks = (rng.random((count, actions)) < 0.4).astype(np.int8)
    masks[:, 0] = 1
    return rng.random((count, size)).astype(np.float32), masks


def test_a_learned_policy_with_a_file_is_copied_without_its_optimizer_and_loads_as_the_same_policy(
    tmp_path: Path,
) -> None:
    pytest.importorskip("sb3_contrib")
    import zipfile

    from agents.learned import LearnedAgent

    task = get_task("trash-standard-2p")
    policy = LearnedAgent.load(SHIPPED)
    path = save_artifact(policy, task, tmp_path / "seed_0.policy")
    assert path == tmp_path / "seed_0.policy.zip"
    with zipfile.ZipFile(SHIPPED) as original, zipfile.ZipFile(path) as kept:
        assert "policy.optimizer.pth" in original.namelist()
        assert kept.namelist() == [name for name in original.namelist() if name != "policy.optimizer.pth"]
        assert all(kept.read(name) == original.read(name) for name in kept.namelist())
    assert path.stat().st_size < SHIPPED.stat().st_size / 2
    loaded = load_artifact(path, task)
    observations, masks = positions(150, 13)
    assert np.array_equal(loaded.act_batch(observations, masks, []), policy.act_batch(observations, masks, []))
    with pytest.raises(ValueError, match="trained for another configuration") as error:
        save_artifact(policy, get_task("trash-pagat-2p"), tmp_path / "other")
    assert "\n" not in str(error.value) and not (tmp_path / "other.zip").exists()
    with pytest.raises(ValueError, match="does not fit task trash-standard-4p"):
        load_artifact(path, get_task("trash-standard-4p"))


def test_a_learned_policy_without_a_file_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    from agents.learned import LearnedAgent

    shipped = LearnedAgent.load(SHIPPED)
    in_memory = LearnedAgent(shipped.policy, shipped.metadata, path=None)
    with pytest.raises(ValueError, match=r"cannot be saved.*model in memory, with no policy file"):
        save_artifact(in_memory, get_task("trash-standard-2p"), tmp_path / "seed_0.policy")
    assert not list(tmp_path.iterdir())


def test_a_linear_policy_is_saved_as_npz_and_loads_for_its_task_only(tmp_path: Path) -> None:
    task = get_task("hyn-4p")
    rng = np.random.default_rng(1)
    policy = LinearAgent(rng.normal(size=(67, 12)), rng.normal(size=12), task.game, config=task.config())
    path = save_artifact(policy, task, tmp_path / "seed_1.policy")
    assert path == tmp_path / "seed_1.policy.npz"
    loaded = load_artifact(path, task)
    assert isinstance(loaded, LinearAgent) and loaded.name == "policy"
    observations, masks = positions(67, 12)
    assert np.array_equal(loaded.act_batch(observations, masks, []), policy.act_batch(observations, masks, []))
    with pytest.raises(ValueError, match="takes observations of 67, these rules give 41"):
        save_artifact(policy, get_task("hyn-2p"), tmp_path / "other")
    with pytest.raises(ValueError, match=r"does not fit task trash-standard-2p: agent .* plays help_your_neighbor"):
        load_artifact(path, get_task("trash-standard-2p"))


@pytest.mark.parametrize(
    ("task_name", "spec", "kind"),
    [
        ("trash-standard-2p", "greedy", "GreedyAgent"),
        ("trash-standard-4p", "search:samples=4,rollouts=1", "SearchAgent"),
        ("hyn-4p", "roller", "NeighborRoller"),
        ("hyn-2p", "optimal", "OptimalAgent"),
    ],
)
def test_a_baseline_is_saved_as_its_spec_and_made_again(tmp_path: Path, task_name: str, spec: str, kind: str) -> None:
    task = get_task(task_name)
    agent = make_agent(spec, task.game)
    assert agent.spec == spec
    path = save_artifact(agent, task, tmp_path / "seed_2.policy")
    assert path == tmp_path / "seed_2.policy.json"
    assert json.loads(path.read_text()) == {"agent": spec, "game": task.game}
    loaded = load_artifact(path, task)
    assert type(loaded).__name__ == kind and loaded.spec == spec


@pytest.mark.parametrize(
    "policy",
    [lambda observation, mask: 0, object(), "greedy"],
    ids=["callable", "object", "string"],
)
def test_what_cannot_be_saved_is_refused_in_one_line(tmp_path: Path, policy: object) -> None:
    with pytest.raises(ValueError, match=f"^{REFUSAL}") as error:
        save_artifact(policy, get_task("hyn-2p"), tmp_path / "seed_0.policy")
    assert "\n" not in str(error.value) and not list(tmp_path.iterdir())


def test_an_agent_the_registry_did_not_make_is_not_saved_as_a_baseline(tmp_path: Path) -> None:
    from agents.bench.algorithms import as_agent

    wrapped = as_agent(lambda observation, mask: 0, get_task("hyn-2p"))
    wrapped.spec = "/some/policy.zip"  # a path is no baseline: nothing outside the artifact is trusted
    with pytest.raises(ValueError, match=REFUSAL):
        save_artifact(wrapped, get_task("hyn-2p"), tmp_path / "seed_0.policy")
    with pytest.raises(ValueError, match="plays trash, not help_your_neighbor"):
        save_artifact(make_agent("greedy"), get_task("hyn-2p"), tmp_path / "seed_0.policy")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({"agent": str(SHIPPED), "game": "trash"}, "is not a baseline of trash"),
        ({"agent": "optimal", "game": "help_your_neighbor"}, "holds a baseline of 'help_your_neighbor'"),
        ({"agent": "greedy"}, "is not a baseline artifact"),
        ({"agent": ["greedy"], "game": "trash"}, "is not a baseline artifact"),
        ({"agent": "greedy", "game": "trash", "code": "x"}, "is not a baseline artifact"),
        ("greedy", "is not a baseline artifact"),
        ({"agent": "search:samples=x", "game": "trash"}, "must be key=integer"),
    ],
)
def test_a_bad_baseline_artifact_is_refused_in_one_line(tmp_path: Path, content: object, message: str) -> None:
    path = tmp_path / "seed_0.policy.json"
    path.write_text(json.dumps(content))
    with pytest.raises(ValueError, match=message) as error:
        load_artifact(path, get_task("trash-standard-2p"))
    assert "\n" not in str(error.value)


def test_an_oversized_or_unknown_artifact_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "seed_0.policy.json"
    big.write_text(json.dumps({"agent": "greedy", "game": "trash", "pad": " " * 10_000}))
    with pytest.raises(ValueError, match="over the limit"):
        load_artifact(big, get_task("trash-standard-2p"))
    other = tmp_path / "seed_0.policy.pkl"
    other.write_bytes(b"anything")
    with pytest.raises(ValueError, match=r"not a policy artifact: its name ends in none of \.zip, \.npz, \.json"):
        load_artifact(other, get_task("trash-standard-2p"))
    with pytest.raises(ValueError, match=r"missing\.npz is not a readable trash-rl policy file"):
        load_artifact(tmp_path / "missing.npz", get_task("trash-standard-2p"))
