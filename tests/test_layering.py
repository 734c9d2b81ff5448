"""The layers of the tree hold (every import counted, those inside functions too):

- ``trash_env`` (the environments) imports nothing of ``agents``;
- no library module imports a command module (``agents.commands`` is imported only from itself
  and from the thin root scripts);
- there are no import cycles between modules.
"""

from __future__ import annotations

import ast
import importlib.util
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
                      "drawsvg", "resvg_py", "PIL", "numba", "ray", "starlette", "uvicorn", "moviepy"})
    completed = subprocess.run(
        [sys.executable, "-c", CORE_ALONE.format(blocked=blocked)], cwd=ROOT, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "core alone: ok"


# ---------------------------------------------------------------------- games as plug-ins

GAME_FOLDERS = ("trash_env.trash", "trash_env.neighbor")
COLLECTORS = {  # the modules that gather every game (and only that), above the game folders
    "trash_env",
    "trash_env.games",
    "trash_env.openspiel",
    "trash_env.trash_v0",
    "trash_env.help_your_neighbor_v0",
}


def in_game_folder(name: str) -> bool:
    return any(name == folder or name.startswith(folder + ".") for folder in GAME_FOLDERS)


def game_names() -> set[str]:
    from trash_env.games import GAMES

    return {name for game in GAMES.values() for name in (game.name, game.env_name)}


def game_name_uses(source: str, names: set[str]) -> list[tuple[int, str]]:
    """Where ``source`` branches on a game's name or keys a table by it: a name compared (``==``, ``in``,
    in a tuple compared too), a dict key or a subscript (``TABLE["trash"]``)."""

    def named(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return node.value in names
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(named(item) for item in node.elts)
        return False

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(named(side) for side in (node.left, *node.comparators)):
            found.append((node.lineno, "compared"))
        elif isinstance(node, ast.Dict) and any(key is not None and named(key) for key in node.keys):
            found.append((node.lineno, "a dict keyed by it"))
        elif isinstance(node, ast.Subscript) and named(node.slice):
            found.append((node.lineno, "subscripted by it"))
        elif isinstance(node, ast.MatchValue) and named(node.value):
            found.append((node.lineno, "matched"))
    return found


def test_the_scan_finds_a_branch_on_a_game_name() -> None:
    names = {"trash"}
    assert game_name_uses("if game == 'trash': pass", names) == [(1, "compared")]
    assert game_name_uses("x = game in ('trash', 'other')", names) == [(1, "compared")]
    table = "T = {'trash': 1}\ny = T['trash']"
    assert game_name_uses(table, names) == [(1, "a dict keyed by it"), (2, "subscripted by it")]
    assert game_name_uses("games = ('trash',)\nmake(game='trash')", names) == []  # declarations, not branches


def test_no_code_outside_a_game_folder_branches_on_a_game_name() -> None:
    """What a game is lives in its folder (its descriptor, ``trash_env.game.Game``): no module outside the
    game folders compares a game's name, keys a table by it or looks one up by it; it reads the
    descriptor instead (``game.matches``, ``game.engine``, ``game.narrator`` ...)."""
    names = game_names()
    offenders = {
        name: game_name_uses(path.read_text(), names)
        for name, path in modules().items()
        if not in_game_folder(name)
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def test_the_game_folders_stand_below_the_modules_that_gather_them() -> None:
    """A game's folder imports nothing that imports the game folders (``trash_env.games`` and the other
    collectors): no arrow goes up from a game to what collects it, directly or through another module;
    and no module of ``trash_env`` outside the game folders but the collectors imports a game folder
    (the AEC env, the single-agent env, records, rendering and the engines' host are written against
    the descriptor, ``trash_env.game``)."""
    edges = graph()

    def reaches(start: str) -> set[str]:
        seen, stack = set(), [start]
        while stack:
            for target in edges.get(stack.pop(), ()):
                if target not in seen:
                    seen.add(target)
                    stack.append(target)
        return seen

    up = {
        name: sorted(reaches(name) & COLLECTORS)
        for name in edges
        if in_game_folder(name) and name not in GAME_FOLDERS  # a folder's __init__ may re-export it
    }
    assert {name: found for name, found in up.items() if found} == {}
    generic = {
        name: sorted(target for target in targets if in_game_folder(target))
        for name, targets in edges.items()
        if name.startswith("trash_env") and not in_game_folder(name) and name not in COLLECTORS
    }
    assert {name: found for name, found in generic.items() if found} == {}


LONG = 700  # lines a module may have before it must say why at its top


def test_a_long_module_says_why_at_its_top() -> None:
    """A module of the packages over 700 lines states why in its docstring ("Long on purpose: ..."):
    modules are split by job, and what stays long does so for a reason a reader can check."""
    unexplained = []
    for name, path in sorted(modules().items()):
        source = path.read_text()
        if source.count("\n") > LONG and "Long on purpose:" not in (ast.get_docstring(ast.parse(source)) or ""):
            unexplained.append(f"{name} ({source.count(chr(10))} lines)")
    assert unexplained == [], f"long modules without a reason at their top: {unexplained}"


# Spellings of Help Your Neighbor that the code's own names do not use (they say neighbor / Neighbor). The
# published ids keep theirs: the game's name (help_your_neighbor), its environment ids and its task names.
OTHER_SPELLINGS = ("help_your_neighbor", "helpyourneighbor", "hyn")
ENV_MODULES = {"trash_env.help_your_neighbor_v0", "trash_env.trash_v0"}  # PettingZoo's layout: a module per env id


def spelled_otherwise(source: str) -> list[str]:
    """The names a module defines (functions, classes, arguments, variables, attributes, imports under
    another name) that spell a game otherwise than its folder does."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, ast.arg):
            names = [node.arg]
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names = [node.id]
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names = [node.attr]
        elif isinstance(node, ast.alias) and node.asname:
            names = [node.asname]
        else:
            continue
        found += [name for name in names if any(other in name.lower() for other in OTHER_SPELLINGS)]
    return found


def test_the_scan_finds_another_spelling() -> None:
    source = "def play_hyn(help_your_neighbor_config): ...\nclass HelpYourNeighborThing: ...\nx.hyn_score = 1"
    found = sorted(spelled_otherwise(source))
    assert found == ["HelpYourNeighborThing", "help_your_neighbor_config", "hyn_score", "play_hyn"]


def test_the_code_spells_each_game_as_its_folder_does() -> None:
    """Modules, classes, functions and variables say ``neighbor`` (``Neighbor...``), never another spelling
    of the game (docs/project-layout.md, "Names")."""
    found = {
        name: spelled_otherwise(path.read_text())
        for name, path in modules().items()
        if name not in ENV_MODULES
    }
    assert {name: names for name, names in found.items() if names} == {}
    assert [name for name in modules() if name not in ENV_MODULES and any(o in name for o in OTHER_SPELLINGS)] == []


def test_only_an_extra_that_is_not_installed_turns_a_failure_into_a_skip() -> None:
    """The suite reports a test that fails for want of an optional extra as skipped (tests/conftest.py);
    a module missing inside an installed package (a misspelt import) stays a failure."""
    from helpers import missing_extra

    assert missing_extra(ModuleNotFoundError(name="numpy.no_such_module")) is None  # numpy: core, installed
    from helpers import EXTRA_OF_MODULE

    module, extra = next(iter(EXTRA_OF_MODULE.items()))
    expected = None if importlib.util.find_spec(module) else extra
    assert missing_extra(ModuleNotFoundError(name=f"{module}.something")) == expected
    assert missing_extra(ModuleNotFoundError(name="no_such_package_here")) is None  # no extra's
