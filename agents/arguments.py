"""What every command-line entry point of the package shares: arguments and errors.

- :class:`ArgumentParser`: argparse whose errors are one line on stderr
  (``prog: error: argument --deals: ...``) and exit status 2, never a usage
  block or a traceback.
- :func:`dataclass_parser` / :func:`parse_dataclass`: a command line built from a
  dataclass of settings (CleanRL style: one field per flag, the field's
  docstring is its help), and :func:`command_line`, the flags that rebuild a
  given settings value (for the resume command a stopped run prints).
- :func:`fail`: the one-line message and exit status 2 for a bad argument found
  after parsing (a range, an unknown agent, a policy file for other rules).
- :func:`stoppable_command`: a training command whose Ctrl-C and SIGTERM stop it at its next safe
  point (:class:`agents.processes.GracefulStop`).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import inspect
import itertools
import json
import shlex
import shutil
import signal
import sys
import textwrap
import types
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from agents.processes import GracefulStop

USAGE_ERROR = 2  # the exit status of a bad argument (argparse's, and the shell convention)


class ArgumentParser(argparse.ArgumentParser):
    """argparse with one-line errors and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: error: {one_line(message)} (see {self.prog} --help)\n")


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def at_least(flag: str, value: float, low: float, when: str = "") -> None:
    """A ``ValueError`` naming ``flag`` unless ``value >= low``."""
    if not value >= low:  # also refuses NaN
        raise ValueError(f"{flag} must be at least {low}{when}, got {value}")


def fail(prog: str, error: BaseException | str, stream: TextIO | None = None) -> int:
    """Print ``prog: error: ...`` on one line to stderr and return the usage-error status (2)."""
    print(f"{prog}: error: {one_line(error)}", file=stream or sys.stderr, flush=True)
    return USAGE_ERROR


# ---------------------------------------------------------------------- dataclass command lines


def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of a dataclass (the string literal after its line)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError):
        return {}
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    docs = {}
    for node, following in itertools.pairwise(body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[node.target.id] = one_line(following.value.value)
    return docs


def _default(field: dataclasses.Field[Any]) -> Any:
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _strip_optional(kind: Any) -> Any:
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        others = [arg for arg in typing.get_args(kind) if arg is not type(None)]
        if len(others) == 1:
            return others[0]
    return kind


def _scalar(kind: Any) -> dict[str, Any]:
    """argparse keywords for one value of ``kind``: a type, or choices for a Literal."""
    if typing.get_origin(kind) is typing.Literal:
        choices = typing.get_args(kind)
        return {"type": type(choices[0]), "choices": choices}
    if kind in (int, float, str, Path):
        return {"type": kind, "metavar": kind.__name__.upper() if kind is not Path else "PATH"}
    raise TypeError(f"no command-line form for fields of type {kind!r}")


def dataclass_parser(cls: type, prog: str, description: str | None = None) -> ArgumentParser:
    """A parser with one flag per field of the dataclass ``cls`` (``run_name`` -> ``--run-name``):
    booleans as ``--flag`` / ``--no-flag``, lists as several values, Literals as choices; each
    field's docstring is its help."""
    parser = ArgumentParser(
        prog=prog,
        description=description or (cls.__doc__ or "").strip().splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    docs = field_docs(cls)
    hints = typing.get_type_hints(cls)
    for field in dataclasses.fields(cls):
        kind = _strip_optional(hints[field.name])
        keywords: dict[str, Any] = {"dest": field.name, "default": _default(field), "help": docs.get(field.name, " ")}
        if kind is bool:
            keywords["action"] = argparse.BooleanOptionalAction
        elif typing.get_origin(kind) is list:
            keywords.update(_scalar(typing.get_args(kind)[0]), nargs="*")
        else:
            keywords.update(_scalar(kind))
        parser.add_argument(_flag(field.name), **keywords)
    return parser


def parse_dataclass(cls: type, argv: Sequence[str] | None, prog: str, description: str | None = None) -> Any:
    """``cls`` filled in from the command line (a bad one exits with status 2 and one line)."""
    namespace = dataclass_parser(cls, prog, description).parse_args(argv)
    return cls(**vars(namespace))


def command_line(settings: Any) -> list[str]:
    """The flags that rebuild the dataclass value ``settings`` with :func:`parse_dataclass`
    (every field that differs from its default)."""
    words: list[str] = []
    for field in dataclasses.fields(settings):
        value, default = getattr(settings, field.name), _default(field)
        if value == default:
            continue
        flag = _flag(field.name)
        if isinstance(value, bool):
            words.append(flag if value else "--no-" + flag[2:])
        elif isinstance(value, list):
            words += [flag, *map(str, value)]
        elif value is not None:
            words += [flag, str(value)]
    return words


def shell_command(words: Sequence[str]) -> str:
    return shlex.join(words)


def python_command() -> str:
    """How to run this Python again from the working directory: ``python`` if that is the one on
    the PATH, the relative path of a virtual environment's (``.venv/bin/python``), else the full path."""
    executable = Path(sys.executable)
    on_path = shutil.which("python")
    if on_path and Path(on_path).absolute() == executable.absolute():  # not resolved: a venv links its base
        return "python"
    with contextlib.suppress(ValueError):
        return str(executable.absolute().relative_to(Path.cwd()))
    return str(executable)




def stoppable_command(
    prog: str,
    settings_type: type,
    prepare: Callable[[Any], Any],
    run: Callable[[Any, GracefulStop], dict[str, Any]],
    safe_point: str,
    argv: Sequence[str] | None = None,
    description: str | None = None,
) -> int:
    """A training command: the settings from the command line, checked by ``prepare`` (a bad one is
    one line and exit status 2, nothing written), then ``run``, whose result's ``exit_code`` is the
    status (0, or 128 + the signal number when a signal stopped it)."""
    settings = parse_dataclass(settings_type, argv, prog, description)
    try:
        setup = prepare(settings)
    except ValueError as error:
        return fail(prog, error)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted before anything was written", file=sys.stderr)
        return 128 + signal.SIGINT
    with GracefulStop(safe_point) as stop:
        return run(setup, stop)["exit_code"]
def parse_overrides(items: Sequence[str]) -> dict[str, Any]:
    """``FIELD=VALUE`` pairs; values are read as JSON where possible (10, true, null)."""
    overrides = {}
    for item in items:
        field, sep, text = item.partition("=")
        if not sep:
            raise ValueError(f"--override {item!r} must be FIELD=VALUE")
        try:
            overrides[field] = json.loads(text)
        except json.JSONDecodeError:
            overrides[field] = text
    return overrides
