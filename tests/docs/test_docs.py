"""The documentation is checked, not hoped (issue 16): the generated pages are current, every Python
example in the README and the docs runs, and every command line they show is one its command
accepts. The site's own build (``mkdocs build --strict``: no broken link, no missing reference)
runs in ``make test`` after pytest.
"""

from __future__ import annotations

import argparse
import os
import re
import runpy
import shlex
import sys
from pathlib import Path

import pytest
from helpers import EXTRA_OF_MODULE, load_script

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(
    p
    for p in (ROOT / "docs").rglob("*.md")
    if p.name != "index.md" and not p.relative_to(ROOT / "docs").parts[0].startswith("results")
)
DOCUMENTS = [ROOT / "README.md", *PAGES]  # index.md is the README again; results*/ hold outputs


def blocks(language: str) -> list[tuple[str, str]]:
    """(where, code) of every fenced block in ``language``."""
    found = []
    for path in DOCUMENTS:
        text = path.read_text()
        for match in re.finditer(rf"^```{language}\n(.*?)^```", text, re.S | re.M):
            line = text[: match.start()].count("\n") + 1
            found.append((f"{path.relative_to(ROOT)}:{line}", match.group(1)))
    return found


def test_every_console_script_is_found() -> None:
    """The metadata lists every command (else the command lines below would go unchecked)."""
    assert {"trash-train", "trash-evaluate", "trash-play", "trash-bench", "trash-solve"} <= set(SCRIPTS)


def test_the_generated_pages_are_current() -> None:
    """The environment pages, the rules page and the home page are their sources (docstrings,
    RULES.md, README.md) as ``scripts/docs_pages.py`` writes them."""
    assert load_script("scripts/docs_pages").main(["--check"]) == 0, "run python scripts/docs_pages.py"


def repository_url() -> str:
    """The repository's address, as ``pyproject.toml``'s ``[project.urls]`` gives it."""
    tomllib = pytest.importorskip("tomllib")
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]["Source"]


def test_the_readme_is_a_landing_page() -> None:
    """Well under 200 lines, and every docs page is one click away from it."""
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) < 200
    pages = {p.relative_to(ROOT).as_posix() for p in PAGES}
    linked = set(re.findall(rf"\]\({re.escape(repository_url())}/blob/main/(docs/[^)#]+\.md)", text))
    assert pages <= linked, f"pages the README does not link: {sorted(pages - linked)}"


def test_every_link_of_the_readme_is_absolute_and_names_a_file_of_the_repository() -> None:
    """The README is the package's long description on a package index, where a relative link or image
    leads nowhere: each is absolute, and each into the repository names a file that exists (so a moved
    page breaks this test, not a reader's click)."""
    text = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r'src="([^"]+)"', text)
    assert len(targets) > 20
    relative = [target for target in targets if not re.match(r"https?://", target)]
    assert relative == [], f"relative links in the README: {relative}"
    base, raw = repository_url(), "https://raw.githubusercontent.com/" + repository_url().split("github.com/")[1]
    for target in targets:
        path = target.split("#")[0]
        for prefix in (f"{base}/blob/main/", f"{base}/tree/main/", f"{raw}/main/"):
            if path.startswith(prefix):
                assert (ROOT / path.removeprefix(prefix)).exists(), f"the README links {target}, which does not exist"


def prose(text: str) -> str:
    """Markdown without its fenced code, its generated blocks (``<!-- table:NAME -->``), its HTML and its
    link targets: the sentences a person wrote."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    text = re.sub(r"<!-- table:([\w-]+) -->.*?<!-- /table:\1 -->", "", text, flags=re.S)
    text = re.sub(r"<[^>]+>", "", text)
    return re.sub(r"\]\([^)]*\)", "]", text)


@pytest.mark.parametrize("name", ["README.md", "docs/index.md"])
def test_no_figure_from_a_result_file_is_typed_into_the_readme(name: str) -> None:
    """Every score, interval or ratio in the README's prose comes from a result file through a generated
    block (``scripts/readme_tables.py``), so a figure of a superseded sweep cannot stand beside the
    current table (the v1 IQMs did, beside the v2 leaderboard). A figure is a decimal number; the
    written prose has none."""
    written = prose((ROOT / name).read_text())
    figures = re.findall(r"(?<![\w.=-])[+-]?\d+\.\d+(?![\w.+])", written)  # not a version: Python 3.10+
    assert figures == [], f"figures typed into {name}'s prose (generate them from their result file): {figures}"


def test_the_readme_findings_are_the_leaderboards() -> None:
    """The README's generated reading of the reference leaderboard (v3) names the tasks and scores of
    ``docs/results-v3/leaderboard.json``: each headline task it calls unsolved has its best learner's score
    there, below the threshold, and the leader it names has the highest IQM of the first across-task group."""
    import json

    tables = load_script("scripts/readme_tables")
    findings = tables.leaderboard_findings()
    section = next(
        s for s in json.loads((ROOT / "docs" / "results-v3" / "leaderboard.json").read_text())["sections"]
        if not s["track"]
    )
    unsolved = re.findall(r"`([\w-]+)` \(best: `([\w-]+)`, (-?\d\.\d\d)\)", findings)
    assert unsolved and {task for task, _, _ in unsolved} <= set(section["headline_tasks"])
    for task, name, score in unsolved:
        best = max(section["algorithms"].items(), key=lambda item: item[1]["tasks"].get(task, {}).get("mean", -9))
        assert (best[0], f"{best[1]['tasks'][task]['mean']:.2f}") == (name, score)
        assert score < f"{tables.SATURATED:.2f}"
    group = section["aggregates"][0]["algorithms"]
    leader = re.search(r"`([\w-]+)` leads with an IQM", findings).group(1)
    assert leader == max(group, key=lambda name: group[name]["IQM"]["point"])
    sanity = section["sanity"]["algorithms"]
    failing = {(name, task) for name, tasks in sanity.items() for task, entry in tasks.items() if not entry["passed"]}
    passed, ran = map(int, re.search(r"(\d+) of (\d+) learner-task pairs pass", findings).groups())
    assert (passed, ran) == (sum(map(len, sanity.values())) - len(failing), sum(map(len, sanity.values())))
    named = set()
    for part in findings.split("those that fail: ")[1].rstrip(".\n").split("; ") if failing else []:
        learner, *tasks = re.findall(r"`([\w-]+)`", part)
        named |= {(learner, task) for task in tasks}
    assert named == failing
    readme = (ROOT / "README.md").read_text()
    assert findings in readme and tables.leaderboard_summary() in readme
    assert "results-v3/performance_profiles.png" in readme


def test_the_v3_findings_are_the_v3_leaderboards() -> None:
    """The generated reading of the v3 leaderboard (docs/suite.md) names, for each headline task, the
    learner with the best mean in ``docs/results-v3/leaderboard.json`` and its score, and as leader of
    each across-task group the learner with the highest IQM there."""
    import json

    tables = load_script("scripts/readme_tables")
    findings = tables.v3_findings()
    section = next(
        s for s in json.loads((ROOT / "docs" / "results-v3" / "leaderboard.json").read_text())["sections"]
        if not s["track"]
    )
    headroom = re.search(r"\*\*Headroom\*\*.*", findings).group(0)
    named = re.findall(r"`([\w-]+)`: `([\w-]+)` (\d\.\d\d)", headroom)
    assert [task for task, _, _ in named] == section["headline_tasks"]
    for task, name, score in named:
        best = max(section["algorithms"].items(), key=lambda item: item[1]["tasks"].get(task, {}).get("mean", -9))
        assert (best[0], f"{best[1]['tasks'][task]['mean']:.2f}") == (name, score)
    leaders = re.findall(r"`([\w-]+)` leads with an IQM", findings)
    assert leaders[: len(section["aggregates"])] == [
        max(a["algorithms"], key=lambda name: a["algorithms"][name]["IQM"]["point"]) for a in section["aggregates"]
    ]
    assert findings in (ROOT / "docs" / "suite.md").read_text()
    two_player = re.search(r"\*\*Two-player measurements\*\*.*", findings)
    for task, measured in section["two_player"].items():
        rated = [entry["rating"] for entry in measured["algorithms"].values() if entry["rating"]]
        if task in section["headline_tasks"] and rated and measured["baselines"]:
            best = max(rated, key=lambda rating: rating["mean"])
            said = two_player.group(0)
            assert f"`{task}`: " in said and f"(`{best['run']}`, {best['mean']:+.0f} [" in said
    firsts = re.findall(r"\|---\|---\|---\|---\|---\|\n\| `([\w-]+)` \|", tables.v3_summary())
    assert firsts == leaders[: len(section["aggregates"])]  # each group's table, best IQM first


PYTHON = blocks("python")


@pytest.mark.parametrize("code", [code for _, code in PYTHON], ids=[where for where, _ in PYTHON])
def test_a_python_example_runs(code: str, tmp_path, monkeypatch) -> None:
    """Each Python example runs as it stands, in a fresh namespace, from the repository's root (its
    paths are the README's), writing only under a temporary folder."""
    if "import torch" in code or "sb3_contrib" in code or "stable_baselines3" in code:
        pytest.importorskip("torch")
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("TRASH_RL_CACHE", str(tmp_path / "cache"))
    exec(compile(code, "<docs example>", "exec"), {"__name__": "__docs__"})


def console_scripts() -> dict[str, str]:
    """The package's installed console scripts (``trash-train`` ...) and the command module each runs
    (:data:`agents.commands.console.COMMANDS`)."""
    from importlib.metadata import entry_points

    from agents.commands.console import COMMANDS

    installed = {script.name for script in entry_points(group="console_scripts")}
    return {name: f"agents.commands.{module}" for name, module in COMMANDS.items() if name in installed}


SCRIPTS = console_scripts()


def command_lines() -> list[tuple[str, list[str]]]:
    """Every ``python -m MODULE ...``, ``python SCRIPT ...`` and console-script (``trash-evaluate ...``)
    line of the bash examples, continuations joined and comments dropped, as argv lists."""
    found = []
    for where, code in blocks("bash"):
        for line in code.replace("\\\n", " ").splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith("#") or re.search(r"[|<>$;&`]|\.\.\.", line):  # pipes, variables, placeholders
                continue
            argv = shlex.split(line, comments=True)
            if argv[0] in SCRIPTS or (argv[:1] == ["python"] and len(argv) > 1):
                found.append((where, argv))
    return found


class Parsed(Exception):  # noqa: N818 (a signal, not an error)
    """Raised in place of a command's work once its arguments are parsed."""


COMMANDS = command_lines()


@pytest.mark.filterwarnings("ignore:.*found in sys.modules after import of package:RuntimeWarning")  # runpy, harmless
@pytest.mark.parametrize("argv", [argv for _, argv in COMMANDS], ids=[f"{w}: {' '.join(a)}" for w, a in COMMANDS])
def test_a_documented_command_line_parses(argv: list[str], monkeypatch, capsys) -> None:
    """Each command line of the docs is accepted by its command's argument parser (argparse, for every
    command: a renamed or removed option fails here); nothing is run past the parsing."""
    original_parse = argparse.ArgumentParser.parse_known_args

    def parse(self, args=None, namespace=None):
        namespace, extra = original_parse(self, args, namespace)
        if extra or self.prog.split()[0] in {"pytest", "__main__.py"}:  # parse_args refuses the extras
            return namespace, extra
        raise Parsed(namespace)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", parse)
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT))
    if argv[0] in SCRIPTS:
        target, rest, module = SCRIPTS[argv[0]], argv[1:], True
    elif argv[1] == "-m":
        target, rest, module = argv[2], argv[3:], True
    else:
        target, rest, module = str(ROOT / argv[1]), argv[2:], False
    if not module and not Path(target).exists():
        pytest.fail(f"{argv[1]} does not exist")
    if not module:  # as `python SCRIPT` does: the script's own folder first on the path
        monkeypatch.syspath_prepend(str(Path(target).parent))
    monkeypatch.setattr(sys, "argv", [target, *rest])
    numba_started = "numba" in sys.modules
    threads = os.environ.get("NUMBA_NUM_THREADS")
    with pytest.raises((Parsed, SystemExit, ModuleNotFoundError)) as outcome:
        if module:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(target, run_name="__main__")
    if numba_started:  # changed once Numba has started, its next compile in this process refuses it
        assert os.environ.get("NUMBA_NUM_THREADS") == threads, f"{' '.join(argv)} set NUMBA_NUM_THREADS"
    if outcome.type is ModuleNotFoundError:  # the command needs an extra this environment lacks
        extra = EXTRA_OF_MODULE.get((outcome.value.name or "").partition(".")[0])
        assert extra is not None, f"{' '.join(argv)}: {outcome.value}"  # not an extra's: a real error
        pytest.skip(f"{' '.join(argv)} needs the {extra} extra")
    if outcome.type is SystemExit:
        assert outcome.value.code in (0, None), f"{' '.join(argv)}: {capsys.readouterr().err.strip()}"


def test_the_docstring_examples_run() -> None:
    """Every ``>>>`` example in the package's docstrings (shown on the API reference) runs as
    doctest says."""
    import doctest
    import importlib

    modules = []
    for path in sorted([*(ROOT / "trash_env").rglob("*.py"), *(ROOT / "agents").rglob("*.py")]):
        if ">>> " in path.read_text():
            modules.append(".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"))
    assert len(modules) >= 4
    for name in modules:
        result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, f"{name}: {result.failed} doctest(s) failed"
        assert result.attempted > 0
