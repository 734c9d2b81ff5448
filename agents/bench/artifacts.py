"""The final policy of a benchmark run, kept beside its result file and loaded again weights-only.

The runner trains in one process and measures the final score in another, on test deals drawn
after training (:mod:`agents.bench.runner`); ``trash-bench evaluate`` re-evaluates a run later
without retraining. Both load the policy from its **artifact**, written by :func:`save_artifact` at
``STEM`` + a suffix that says what it holds:

- ``.zip``: a Stable-Baselines3 policy file (:mod:`agents.learned`): what the built-in algorithms
  return, or any :class:`~agents.learned.LearnedAgent` that has a policy file, copied without the
  optimizer's state (``policy.optimizer.pth``, two thirds of a MaskablePPO file: it only serves to
  resume training, which an artifact is not for), so a kept policy is about 0.3 MB, not 0.9 MB;
- ``.npz``: a :class:`~agents.linear.LinearAgent` (NumPy layers, plain float arrays) or a
  :class:`~agents.value_table.ValueTableAgent` (a value table of two-player Help Your Neighbor),
  each file saying which in its metadata;
- ``.json``: a baseline of the registry, ``{"agent": SPEC, "game": GAME}`` (``greedy``,
  ``search:samples=32``): a plugin that returns an agent made by :func:`agents.registry.make_agent`.

Anything else, a plain callable ``policy(observation, mask)`` among them, cannot be saved and is
refused in one line: return an agent of one of those kinds. :func:`load_artifact` reads each kind
without running code from the file (``LearnedAgent.load``, ``LinearAgent.load``, ``make_agent`` of
a baseline name, never of a path) and checks that the policy plays the task's game and rules.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from agents.base import Agent
from agents.bench.tasks import Task
from agents.linear import LinearAgent
from agents.registry import baselines, make_agent
from agents.value_table import ValueTableAgent, load_npz
from trash_env.files import atomic_path, read_bounded, write_json

SUFFIXES = (".zip", ".npz", ".json")
SPEC_LIMIT = 1 << 12  # a baseline's .json: 4 KiB
LEFT_OUT = frozenset({"policy.optimizer.pth"})  # members of an SB3 file an artifact does not keep
REFUSAL = (
    "the policy cannot be saved: return an agent with a policy file, a LinearAgent, a ValueTableAgent or a baseline"
)


def _with_suffix(stem: Path, suffix: str) -> Path:
    """``stem`` with ``suffix`` appended (``seed_3.policy`` -> ``seed_3.policy.zip``: a dot already in
    the stem is kept, not replaced)."""
    stem = Path(stem)
    return stem.with_name(stem.name + suffix)


def _baseline_spec(agent: Agent, game: str) -> str | None:
    """The registry spec ``agent`` was made from, if it is a baseline of ``game``."""
    spec = getattr(agent, "spec", None)
    if isinstance(spec, str) and spec.partition(":")[0] in baselines(game):
        return spec
    return None


def _copy_without_optimizer(source: Path, target: Path) -> None:
    """``source`` (a policy file :func:`agents.learned.read_metadata` accepted) copied member by
    member to ``target``, each as it was stored, but for the members of :data:`LEFT_OUT`."""
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(target, "w") as kept:
        for info in original.infolist():
            if info.filename not in LEFT_OUT:
                kept.writestr(info, original.read(info))


def save_artifact(policy: Any, task: Task, stem: Path) -> Path:
    """Keep ``policy`` (what an algorithm's ``train`` returned) weights-only at ``stem`` + ``.zip``,
    ``.npz`` or ``.json`` (the module docstring), written atomically; returns the path written. A
    ValueError in one line if it cannot be saved or does not play the task's rules."""
    from agents.learned import LearnedAgent, check_compatible, read_metadata

    config = task.config()
    if isinstance(policy, LearnedAgent):
        if policy.path is None:
            raise ValueError(f"{REFUSAL} (this LearnedAgent was made from a model in memory, with no policy file)")
        source = Path(policy.path)
        check_compatible(read_metadata(source), config, source=f"policy file {source}")
        path = _with_suffix(stem, ".zip")
        with atomic_path(path) as partial:
            _copy_without_optimizer(source, partial)
        return path
    if isinstance(policy, (LinearAgent, ValueTableAgent)):
        policy.check_config(config)
        return policy.save(_with_suffix(stem, ".npz"))
    if isinstance(policy, Agent):
        policy.check_config(config)  # an agent of another game is said to be one
    spec = _baseline_spec(policy, task.game) if isinstance(policy, Agent) else None
    if spec is None:
        raise ValueError(f"{REFUSAL} (got {policy!r})")
    path = _with_suffix(stem, ".json")
    write_json(path, {"agent": spec, "game": task.game})
    return path


def load_artifact(path: str | Path, task: Task) -> Agent:
    """The policy kept at ``path`` by :func:`save_artifact`, read weights-only and checked against the
    task's game and rules: a one-line ValueError naming the file and the problem otherwise."""
    path = Path(path)
    config = task.config()
    if path.suffix == ".zip":
        from agents.learned import LearnedAgent

        agent: Agent = LearnedAgent.load(path, name="policy")
    elif path.suffix == ".npz":
        agent = load_npz(path, name="policy")
    elif path.suffix == ".json":
        agent = _load_baseline(path, task)
    else:
        raise ValueError(f"{path} is not a policy artifact: its name ends in none of {', '.join(SUFFIXES)}")
    try:
        agent.check_config(config)
    except ValueError as error:
        raise ValueError(f"{path} does not fit task {task.name}: {error}") from None
    return agent


def _load_baseline(path: Path, task: Task) -> Agent:
    from agents.learned import parse_json

    saved = parse_json(read_bounded(path, SPEC_LIMIT), f"{path}")
    if not isinstance(saved, dict) or set(saved) != {"agent", "game"} or not isinstance(saved["agent"], str):
        raise ValueError(f'{path} is not a baseline artifact: it must be {{"agent": SPEC, "game": GAME}}')
    if saved["game"] != task.game:
        raise ValueError(f"{path} holds a baseline of {saved['game']!r}, task {task.name} is {task.game}")
    name = saved["agent"].partition(":")[0]
    if name not in baselines(task.game):
        raise ValueError(
            f"{path}: {saved['agent']!r} is not a baseline of {task.game} ({sorted(baselines(task.game))})"
        )
    return make_agent(saved["agent"], task.game)
