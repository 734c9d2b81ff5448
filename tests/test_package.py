"""What a pip user gets: the built wheel, installed non-editable into a fresh environment and used from a
folder outside the repository (issue 47).

- **the core alone** (``pip install trash-rl``: numpy, gymnasium, pettingzoo, pydantic, resolved by pip from the
  wheel's metadata): the environments work, and every console script either works or, needing an
  extra, says which in one line with one spelling (``pip install 'trash-rl[eval]'``), never a
  traceback;
- **with the extras** (the wheel installed without its dependencies into a fresh environment that
  reads them from this one's, so that torch is not installed again): the README's quick start and
  Python examples, every console script's ``--help``, a shipped policy evaluated by name, its card and
  the rule book found where the package is installed, and the smallest ``trash-bench run``.

Slow (about two minutes: two environments, a wheel and a training run); ``make test-all`` and CI run it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from agents.commands.console import COMMANDS

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow
ONE_LINE_EXTRA = re.compile(r"^trash-[\w-]+: error: .*needs? the (\w+) extra: pip install 'trash-rl\[\1\]'")


def run(env: Path, argv: Sequence[str], cwd: Path, stdin: str = "", timeout: float = 300) -> Any:
    """``argv`` with the environment ``env``'s programs first on the PATH (``python`` its interpreter),
    from ``cwd``, nothing of this process's import path or virtual environment inherited."""
    environ = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    environ["PATH"] = f"{env / 'bin'}{os.pathsep}{environ.get('PATH', '')}"
    environ["TRASH_RL_CACHE"] = str(cwd / "cache")  # the solver's cache: the user's own
    program = [str(env / "bin" / argv[0]), *argv[1:]]
    return subprocess.run(program, cwd=cwd, env=environ, input=stdin, capture_output=True, text=True, timeout=timeout)


def said(completed: subprocess.CompletedProcess) -> list[str]:
    """What a command said on stderr besides the one-off notice that Numba is compiling (a fresh
    environment's first use: trash_env.jit)."""
    return [line for line in completed.stderr.splitlines() if not line.startswith("trash-rl: compiling ")]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--quiet", "-w", str(out)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (built,) = out.glob("trash_rl-*.whl")
    return built


def new_env(folder: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, capture_output=True, timeout=300)
    return folder


@pytest.fixture(scope="module")
def core_env(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh environment with the wheel and the core dependencies pip resolves from its metadata."""
    env = new_env(tmp_path_factory.mktemp("core") / "env")
    pip = [str(env / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)]
    completed = subprocess.run(pip, capture_output=True, text=True, timeout=900)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return env


@pytest.fixture(scope="module")
def full_env(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh environment with the wheel (not editable) and every extra's packages, read from this
    environment's site-packages (a ``.pth`` line: torch is not installed a second time). This
    environment's own copy of the package is an editable install, whose import hook a ``.pth`` path
    does not run: the wheel's copy is the one imported."""
    env = new_env(tmp_path_factory.mktemp("full") / "env")
    python = env / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    Path(site, "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    pip = [str(python), "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)]
    completed = subprocess.run(pip, capture_output=True, text=True, timeout=900)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return env


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A working folder outside the repository."""
    assert ROOT not in tmp_path.parents
    return tmp_path


def test_the_wheel_holds_the_package_data_and_the_metadata(wheel: Path) -> None:
    """The shipped policies and their cards, the rule book, py.typed, the licence, and metadata whose
    long description links only absolutely."""
    import zipfile

    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(next(name for name in names if name.endswith(".dist-info/METADATA"))).decode()
    from agents.shipped import SHIPPED

    for policy in SHIPPED.values():
        assert f"agents/policies/{policy.file}" in names
        assert policy.card is None or f"agents/policies/{policy.card}" in names
    assert {"trash_env/RULES.md", "trash_env/py.typed", "agents/py.typed", "agents/bench/references.json"} <= names
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    for field in ("License-Expression: MIT", "Classifier: Typing :: Typed", "Project-URL: Source", "Keywords:"):
        assert field in metadata, field
    description = metadata.split("\n\n", 1)[1]
    assert not re.findall(r"\]\((?!https?://)[^)]+\)", description) and 'src="docs/' not in description


def test_the_core_alone_runs_the_envs_and_each_command_works_or_names_its_extra(core_env: Path, outside: Path) -> None:
    """``pip install trash-rl`` (no extra): a game of each env plays, and each console script, asked for
    its help and for real work, exits 0 or names in one line the extra it needs."""
    game = (
        "import numpy as np, trash_env\n"
        "from trash_env import help_your_neighbor_v0\n"
        "for env in (trash_env.env(num_players=2), help_your_neighbor_v0.env(num_players=3)):\n"
        "    env.reset(seed=0); rng = np.random.default_rng(0)\n"
        "    for agent in env.agent_iter():\n"
        "        obs, _, done, cut, _ = env.last()\n"
        "        env.step(None if done or cut else int(rng.choice(np.flatnonzero(obs['action_mask']))))\n"
        "import agents; print(agents.__file__)\n"
    )
    completed = run(core_env, ["python", "-c", game], outside)
    assert completed.returncode == 0, completed.stderr
    assert str(core_env) in completed.stdout  # the installed copy, not the repository's
    work = {  # in this order: the demo's record is the replay's
        "trash-demo": ["--record", "demo.json"],
        "trash-replay": ["demo.json", "--html", "replay.html"],
        "trash-train": ["--total-timesteps", "64"],
        "trash-train-rllib": ["--iterations", "1"],
        "trash-evaluate": ["greedy", "random", "--deals", "4"],
        "trash-play": ["--web"],
        "trash-record": ["greedy", "random", "--gif", "game.gif"],
        "trash-bench": ["tasks"],
        "trash-solve": ["--check"],
    }
    assert set(work) == set(COMMANDS)
    named: dict[str, str] = {}
    for script, argv in work.items():
        for args in (["--help"], argv):
            completed = run(core_env, [script, *args], outside, stdin="q\n")
            assert "Traceback" not in completed.stderr, (script, args, completed.stderr)
            if completed.returncode == 0:
                continue
            lines = completed.stderr.strip().splitlines()
            assert len(lines) == 1, (script, args, completed.stderr)
            assert completed.returncode == 2, (script, args, completed.returncode, completed.stderr)
            extra = ONE_LINE_EXTRA.match(lines[0])
            assert extra or (script, args) == ("trash-solve", ["--check"]), (script, args, lines[0])
            if extra:
                named[script] = extra.group(1)
    assert (outside / "demo.json").is_file()
    expected = {"trash-replay": "render", "trash-train": "train", "trash-evaluate": "eval", "trash-play": "web"}
    expected["trash-train-rllib"] = "rllib"
    assert expected.items() <= named.items()


def test_with_the_extras_the_readme_and_every_command_work_outside_the_repo(full_env: Path, outside: Path) -> None:
    """The README's quick start and Python examples, every console script's ``--help``, a shipped policy
    by name, its card and the rule book, and the smallest benchmark run, from a folder of the user's."""
    import agents.shipped
    from agents.bench.tasks import TASKS

    code = "import agents, trash_env; print(agents.__file__, trash_env.__file__)"
    where = run(full_env, ["python", "-c", code], outside)
    assert where.returncode == 0 and str(ROOT) not in where.stdout and str(full_env) in where.stdout, where
    for script in COMMANDS:
        completed = run(full_env, [script, "--help"], outside)
        assert completed.returncode == 0 and "usage:" in completed.stdout and not said(completed), (script, completed)
    readme = (ROOT / "README.md").read_text()
    quick_start = re.search(r"## Quick start\n.*?```bash\n(.*?)```", readme, re.S).group(1)
    for line in quick_start.splitlines():
        argv = line.split("  #")[0].split()
        if argv[0] == "pip":
            continue  # what this environment did, from the wheel
        completed = run(full_env, argv, outside, stdin="q\n")
        assert completed.returncode == 0 and not said(completed), (argv, completed.stderr)
    for code in re.findall(r"```python\n(.*?)```", readme, re.S):
        completed = run(full_env, ["python", "-c", code], outside)
        assert completed.returncode == 0, (code, completed.stderr)
    evaluate = ["trash-evaluate", "greedy", "shipped:standard-2p", "--deals", "50", "--json", "out.json"]
    evaluated = run(full_env, evaluate, outside)
    assert evaluated.returncode == 0, evaluated.stderr
    assert {row["agent"] for row in json.loads((outside / "out.json").read_text())["agents"]} == {
        "greedy", "shipped:standard-2p"
    }  # fmt: skip
    listed = run(full_env, ["trash-evaluate", "--help"], outside).stdout
    assert all(policy.spec in listed for policy in agents.shipped.SHIPPED.values())
    cards = re.search(r"cards \(.*\): (\S+)/\*\.md", listed).group(1)
    assert str(full_env) in cards and sorted(p.name for p in Path(cards).glob("*.md")) == sorted(
        policy.card for policy in agents.shipped.SHIPPED.values() if policy.card
    )  # fmt: skip
    rules = run(full_env, ["trash-play", "--rules", "R13"], outside)
    assert rules.returncode == 0 and rules.stdout.startswith("## R13. Actions (Trash)")
    task = TASKS["trash-standard-2p"]
    bench = ["trash-bench", "run", "--algorithm", "maskable_ppo", "--tasks", task.name, "--seeds", "1"]
    completed = run(full_env, [*bench, "--budget-fraction", str(task.min_fraction), "--results", "results"], outside)
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert re.search(r"^\[1/1\] trash-standard-2p seed 0: normalised [+-]", completed.stdout, re.M), completed.stdout
    assert list((outside / "results").rglob("seed_0.json")) and list((outside / "results").rglob("seed_0.policy.*"))


def floors() -> list[str]:
    """The core dependencies at the lowest versions pyproject.toml allows (``name>=X`` as ``name==X``)."""
    import tomllib

    found = []
    for requirement in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]:
        name, _, floor = requirement.partition(">=")
        assert floor and "," not in floor, f"{requirement}: a core dependency has one floor, no pin"
        found.append(f"{name.strip()}=={floor.strip()}")
    return found


def test_the_envs_pass_their_checks_at_the_floors_of_the_core_dependencies(
    wheel: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The wheel in a fresh environment with each core dependency at its floor (Gymnasium 1.1, PettingZoo
    1.26.1, NumPy 1.26, ...): PettingZoo's api_test and seed_test, Gymnasium's check_env and make_vec
    (the batched vector env and the sync one, masked random play) pass (``tests/helpers/floor_check.py``)."""
    env = new_env(tmp_path_factory.mktemp("floors") / "env")
    python = str(env / "bin" / "python")
    pinned = floors()
    assert {"pettingzoo", "gymnasium"} <= {name.split("==")[0] for name in pinned}
    for argv in ([*pinned], ["--no-deps", str(wheel)]):
        install = [python, "-m", "pip", "install", "--quiet", *argv]
        completed = subprocess.run(install, capture_output=True, text=True, timeout=900)
        assert completed.returncode == 0, completed.stderr[-3000:]
    outside = tmp_path_factory.mktemp("outside")
    checked = run(env, ["python", str(ROOT / "tests" / "helpers" / "floor_check.py")], cwd=outside, timeout=900)
    assert checked.returncode == 0, checked.stdout[-2000:] + checked.stderr[-3000:]
    versions = checked.stdout.splitlines()[0]
    for requirement in pinned:
        name, version = requirement.split("==")
        if name in ("gymnasium", "pettingzoo"):
            assert f"{name} {version}" in versions, versions
    assert checked.stdout.rstrip().endswith("every check passed")

