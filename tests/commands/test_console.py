"""The console scripts' launcher (:mod:`agents.commands.console`) and the extras' messages
(:mod:`trash_env.extras`): a command that needs an extra the environment lacks says so in one line,
spelled one way, wherever the import fails; anything else propagates. (The wheel test,
tests/test_package.py, runs every console script in an environment with the core alone.)"""

from __future__ import annotations

import sys
import types

import pytest
from helpers import ROOT

from agents.commands import console
from trash_env import extras


def test_every_extra_the_messages_name_is_one_of_pyprojects() -> None:
    tomllib = pytest.importorskip("tomllib")
    optional = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(extras.EXTRA_OF_MODULE.values()) <= set(optional)
    assert set(optional) - set(extras.EXTRA_OF_MODULE.values()) == {"dev"}  # the test tools: no command needs them


@pytest.mark.parametrize(
    ("what", "extra", "missing", "said"),
    [
        ("this command", "eval", "rich", "this command needs the eval extra: pip install 'trash-rl[eval]' "
         "(rich is not installed)"),
        ("pictures", "render", "drawsvg, PIL", "pictures need the render extra: pip install 'trash-rl[render]' "
         "(drawsvg, PIL are not installed)"),
        ("--web", "web", None, "--web needs the web extra: pip install 'trash-rl[web]'"),
    ],
)  # fmt: skip
def test_the_message_names_the_extra_and_how_to_install_it(what: str, extra: str, missing: str | None, said) -> None:
    assert extras.needs_extra(what, extra, missing) == said


def fake_command(monkeypatch: pytest.MonkeyPatch, main: types.FunctionType) -> None:
    module = types.ModuleType("agents.commands.fake")
    module.main = main
    monkeypatch.setitem(sys.modules, "agents.commands.fake", module)
    monkeypatch.setitem(console.COMMANDS, "trash-fake", "fake")


def test_a_missing_extras_module_anywhere_in_a_command_is_one_line(monkeypatch, capsys) -> None:
    def main() -> int:
        raise ModuleNotFoundError("No module named 'stable_baselines3.common'", name="stable_baselines3.common")

    fake_command(monkeypatch, main)
    assert console.run("trash-fake") == 2
    err = capsys.readouterr().err
    assert err == (
        "trash-fake: error: this command needs the train extra: pip install 'trash-rl[train]' "
        "(stable_baselines3 is not installed)\n"
    )


def test_the_librarys_own_message_is_kept_and_rllib_is_named_for_its_command(monkeypatch, capsys) -> None:
    def pictures() -> int:
        raise extras.missing_extra("pictures", "render", ModuleNotFoundError(name="resvg_py"))

    fake_command(monkeypatch, pictures)
    assert console.run("trash-fake") == 2
    assert capsys.readouterr().err.endswith("pictures need the render extra: pip install 'trash-rl[render]' "
                                            "(resvg_py is not installed)\n")  # fmt: skip

    def ray_missing() -> int:
        raise ModuleNotFoundError(name="ray")

    fake_command(monkeypatch, ray_missing)
    monkeypatch.setitem(console.COMMANDS, "trash-train-rllib", "fake")
    assert console.run("trash-train-rllib") == 2
    assert "needs the rllib extra: pip install 'trash-rl[rllib]' (ray is not installed)" in capsys.readouterr().err


def test_a_missing_module_no_extra_brings_is_a_bug_and_propagates(monkeypatch) -> None:
    def main() -> int:
        raise ModuleNotFoundError(name="agents.no_such_module")

    fake_command(monkeypatch, main)
    with pytest.raises(ModuleNotFoundError):
        console.run("trash-fake")
