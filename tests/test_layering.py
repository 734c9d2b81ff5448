"""The layers of the tree hold (every import counted, those inside functions too):

- ``trash_env`` (the environments) imports nothing of ``agents``;
- no library module imports a command module (``agents.commands`` is imported only from itself
  and from the thin root scripts);
- there are no import cycles between modules.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("trash_env", "agents")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(path): path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


def imports(source: str, name: str, is_package: bool) -> set[str]:
    """The modules of this tree that ``source`` (module ``name``) imports, anywhere in it."""
    known = modules()
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # a relative import, resolved against this module's package
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                child = f"{target}.{alias.name}"
                found.add(child if child in known else target)
    return {module for module in found if module in known}


@cache
def graph() -> dict[str, set[str]]:
    return {
        name: imports(path.read_text(), name, path.name == "__init__.py") - {name} for name, path in modules().items()
    }


def test_the_graph_sees_the_imports_it_should() -> None:
    """The walk finds module-level and function-level imports alike (else the checks below prove nothing)."""
    edges = graph()
    assert "trash_env.trash.rules" in edges["trash_env.trash.observation"]
    assert "agents.training.sb3" in edges["agents.commands.train"]
    assert "trash_env.neighbor.solver" in edges["agents.optimal"]  # imported inside a method
    with pytest.raises(AssertionError):
        check_no_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}})


def test_trash_env_never_imports_agents() -> None:
    offenders = {
        name: sorted(target for target in targets if target.split(".")[0] == "agents")
        for name, targets in graph().items()
        if name.split(".")[0] == "trash_env"
    }
    assert {name: targets for name, targets in offenders.items() if targets} == {}


def test_no_library_module_imports_a_command_module() -> None:
    offenders = {
        name: sorted(target for target in targets if target.startswith("agents.commands"))
        for name, targets in graph().items()
        if not name.startswith("agents.commands")
    }
    assert {name: targets for name, targets in offenders.items() if targets} == {}


def test_the_root_scripts_are_thin() -> None:
    """``train.py`` and ``train_rllib.py`` only call their command (three lines of code each)."""
    for script in ("train.py", "train_rllib.py"):
        tree = ast.parse((ROOT / script).read_text())
        code = [node for node in tree.body if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
        assert len(code) <= 3, script
        assert [type(node) for node in code] == [ast.ImportFrom, ast.If], script


def check_no_cycles(edges: dict[str, set[str]]) -> None:
    """An AssertionError naming a cycle of ``edges``, if there is one (depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for target in sorted(edges.get(node, ())):
            if state.get(target) == 1:
                cycle = path[path.index(target) :] + [target]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target)
        path.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)


def test_no_import_cycles() -> None:
    """A package's ``__init__`` that re-exports its own submodules is not a cycle: Python runs the
    ``__init__`` first whichever submodule is imported; any other loop is."""
    edges = {
        name: {target for target in targets if not (modules()[name].name == "__init__.py" and target.startswith(name))}
        for name, targets in graph().items()
    }
    check_no_cycles(edges)


CORE_ALONE = """
import importlib.abc, sys

BLOCKED = {blocked!r}


class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked)", name=name)
        return None


sys.meta_path.insert(0, Block())
try:
    import scipy  # noqa: F401
except ModuleNotFoundError:
    pass
else:
    raise SystemExit("the extras are not blocked")
import gymnasium
import numpy as np

import trash_env
from agents.evaluation.duplicate import run_pairings
from agents.registry import make_agent
from trash_env import help_your_neighbor_v0, trash_v0

for module in (trash_v0, help_your_neighbor_v0):
    env = module.env(num_players=3)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        mask = observation["action_mask"]
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(mask))))
single = gymnasium.make("TrashSingleAgent-v0", opponents=[make_agent("greedy")])
single.reset(seed=0)
results = run_pairings(trash_env.make_config(), [("greedy", "random")], 5)
assert len(results) == 10
print("core alone: ok")
"""


def test_the_core_needs_no_extra() -> None:
    """The environments, the baselines and duplicate-deal play work with none of the extras
    installed (each extra's packages blocked from import): the tests that skip without an extra
    (tests/conftest.py) cannot hide a core module that needs one."""
    import subprocess
    import sys

    blocked = sorted({"torch", "stable_baselines3", "sb3_contrib", "scipy", "rich", "choix", "matplotlib",
                      "drawsvg", "resvg_py", "PIL", "numba", "ray", "starlette", "uvicorn", "tyro", "moviepy"})
    completed = subprocess.run(
        [sys.executable, "-c", CORE_ALONE.format(blocked=blocked)], cwd=ROOT, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "core alone: ok"
