"""What every command-line entry point of the package shares: arguments, rules flags and errors.

- :class:`ArgumentParser`: argparse whose errors are one line on stderr
  (``prog: error: argument --deals: ...``) and exit status 2, never a usage
  block or a traceback.
- :func:`parse_dataclass`: a command line built from a dataclass of settings by
  `tyro <https://brentyi.github.io/tyro/>`_ (CleanRL style: one field per flag,
  the field's docstring is its help), with the same one-line errors; and
  :func:`command_line`, the flags that rebuild a given settings value (for the
  resume command a stopped run prints).
- :func:`rules_config`: a game's rules configuration from the flags every command
  spells the same way (``--game``, ``--preset``, ``--num-players``, ``--match``
  and ``--override FIELD=VALUE``, repeatable; :func:`add_override_flag` adds the last
  to an argparse command).
- :func:`fail`: the one-line message and exit status 2 for a bad argument found
  after parsing (a range, an unknown agent, a policy file for other rules).
- :func:`stoppable_command`: a training command whose Ctrl-C and SIGTERM stop it at its next safe
  point (:class:`agents.processes.GracefulStop`), with the training library's log lines on stdout.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import logging
import re
import shlex
import shutil
import signal
import sys
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from agents.processes import THREADS_HELP, GracefulStop
from trash_env.games import get_game

USAGE_ERROR = 2  # the exit status of a bad argument (argparse's, and the shell convention)
TRAINING_LOGGER = "agents.training"  # the logger both training libraries log their progress under


class ArgumentParser(argparse.ArgumentParser):
    """argparse with one-line errors and exit status 2; its ``epilog`` is printed as written (a
    table, as :func:`shipped_epilog`), after the help argparse wraps."""

    def error(self, message: str) -> NoReturn:
        usage_error(self.prog, message)

    def format_help(self) -> str:
        epilog, self.epilog = self.epilog, None
        try:
            text = super().format_help()
        finally:
            self.epilog = epilog
        return f"{text}\n{epilog.strip(chr(10))}\n" if epilog else text


def shipped_epilog(game: str | None = None) -> str:
    """The ``--help`` section naming the policies shipped inside the package (of ``game``, or all),
    each usable wherever an agent is named, and where the rule book is."""
    from agents.shipped import listing

    return f"shipped policies (usable wherever an agent is named):\n{listing(game)}\n\n{RULES_POINTER}"


RULES_POINTER = "the rules: trash-play --rules prints the rule book (RULES.md, R1-R15), installed with the package"


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def usage_error(prog: str, message: str) -> NoReturn:
    """Exit with status 2 after ``prog: error: MESSAGE (see prog --help)`` on one line of stderr."""
    print(f"{prog}: error: {one_line(message)} (see {prog} --help)", file=sys.stderr, flush=True)
    raise SystemExit(USAGE_ERROR)


def at_least(flag: str, value: float, low: float, when: str = "") -> None:
    """A ``ValueError`` naming ``flag`` unless ``value >= low``."""
    if not value >= low:  # also refuses NaN
        raise ValueError(f"{flag} must be at least {low}{when}, got {value}")


def fail(prog: str, error: BaseException | str, stream: TextIO | None = None) -> int:
    """Print ``prog: error: ...`` on one line to stderr and return the usage-error status (2)."""
    print(f"{prog}: error: {one_line(error)}", file=stream or sys.stderr, flush=True)
    return USAGE_ERROR


# ---------------------------------------------------------------------- rules flags


def parse_overrides(items: Sequence[str]) -> dict[str, Any]:
    """``--override FIELD=VALUE`` words as rules fields; values are read as JSON where they parse
    (``10``, ``true``, ``null``), else kept as text (``wild=J``)."""
    overrides = {}
    for item in items:
        field, sep, text = item.partition("=")
        if not sep or not field:
            raise ValueError(f"--override {item!r} must be FIELD=VALUE, a rules field and its value (layout_size=8)")
        try:
            overrides[field] = json.loads(text)
        except json.JSONDecodeError:
            overrides[field] = text
    return overrides


def override_words(rules: Mapping[str, Any]) -> list[str]:
    """Rules fields as ``--override`` values that :func:`parse_overrides` reads back to the same fields."""
    return [f"{field}={json.dumps(value)}" for field, value in rules.items()]


def rules_fields(
    game: str,
    num_players: int,
    match: bool = False,
    overrides: Sequence[str] = (),
    rules: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The rules fields of ``--num-players`` and ``--match``, then ``rules`` (given from Python), then every
    ``--override`` on top: what a game's ``make_config`` and environments take besides the preset.
    ``--match`` is refused for a game without matches (Help Your Neighbor's games are single, R12)."""
    fields: dict[str, Any] = {"num_players": num_players}
    described = get_game(game)
    if described.matches:
        fields["match"] = match
    elif match:
        raise ValueError(f"--match: {described.title} has no matches of hands (R9 is Trash's)")
    return {**fields, **(rules or {}), **parse_overrides(overrides)}


def rules_config(
    game: str,
    preset: str,
    num_players: int,
    match: bool = False,
    overrides: Sequence[str] = (),
    rules: Mapping[str, Any] | None = None,
) -> Any:
    """The rules configuration every command builds from its flags (``--game``, ``--preset``,
    ``--num-players``, ``--match``, ``--override``): a ValueError naming a bad one."""
    return get_game(game).make_config(preset, **rules_fields(game, num_players, match, overrides, rules))


def presets() -> list[str]:
    """Every game's presets (``--preset`` choices): Trash's of R11, and ``standard`` every game has."""
    from trash_env.games import GAMES

    return sorted({preset for game in GAMES.values() for preset in game.presets})


def add_threads_flag(parser: argparse.ArgumentParser) -> None:
    """``--threads N``: torch, OpenMP and Numba threads (:func:`agents.processes.set_threads`)."""
    parser.add_argument("--threads", type=int, default=None, metavar="N", help=THREADS_HELP)


def add_override_flag(parser: argparse.ArgumentParser) -> None:
    """``--override FIELD=VALUE``, repeatable, as the training commands spell it too."""
    parser.add_argument(
        "--override",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="a rules field on top of the preset (VALUE read as JSON where it parses: 8, true, null); repeatable",
    )


# ---------------------------------------------------------------------- dataclass command lines

_ANSI_CODE = re.compile(r"\x1b\[[0-9;]*m")


def tyro_error_message(report: str) -> str:
    """The message of the error tyro printed, as one line. tyro draws a box: a title, the message,
    a rule, then hints (the argument's help, "For full helptext ..."); the message is the text
    between the title and the first rule, without the frame, the colours or the line wrapping."""
    lines = [_ANSI_CODE.sub("", line).strip(" │") for line in report.splitlines()]
    message: list[str] = []
    for line in lines[1:]:  # the first line is the box's title
        if not line.strip("─- "):  # a rule (or an empty line) ends the message
            if message:
                break
            continue
        message.append(line.strip())
    return " ".join(message) or one_line(_ANSI_CODE.sub("", report))


def parse_dataclass(cls: type, argv: Sequence[str] | None, prog: str, description: str | None = None) -> Any:
    """``cls`` filled in from the command line by tyro (one flag per field, ``run_name`` ->
    ``--run-name``; booleans as ``--flag`` / ``--no-flag``; each field's docstring is its help).
    ``--help`` prints the help and exits 0; a bad argument exits with status 2 after one line on
    stderr, ``prog: error: ...``, as :class:`ArgumentParser` does (tyro's own error is a box of
    several lines, kept here as its message only)."""
    import tyro

    report = io.StringIO()
    try:
        with contextlib.redirect_stderr(report):
            settings = tyro.cli(cls, prog=prog, description=description, args=argv)
    except SystemExit as exit_:
        if exit_.code in (0, None):  # --help, printed on stdout
            raise
        usage_error(prog, tyro_error_message(report.getvalue()))
    sys.stderr.write(report.getvalue())  # anything else said while parsing (a warning) still shows
    return settings


@dataclasses.dataclass(frozen=True)
class _Spelling:
    flag: str
    repeated: bool  # a list given one value per flag (--override A --override B), not after one flag
    suppressed: bool  # not on the command line at all


def _spellings(cls: type) -> dict[str, _Spelling]:
    """How each field of the dataclass ``cls`` is spelled on tyro's command line, read from the
    ``tyro.conf`` markers of its annotation (``arg(name=...)``, ``UseAppendAction``, ``Suppress``)."""
    import tyro

    hints = typing.get_type_hints(cls, include_extras=True)
    spellings = {}
    for field in dataclasses.fields(cls):
        metadata = getattr(hints[field.name], "__metadata__", ())
        names = [item.name for item in metadata if isinstance(item, type(tyro.conf.arg())) and item.name]
        spellings[field.name] = _Spelling(
            flag="--" + (names[-1] if names else field.name).replace("_", "-"),
            repeated=tyro.conf.UseAppendAction in metadata,
            suppressed=tyro.conf.Suppress in metadata,
        )
    return spellings


def _default(field: dataclasses.Field[Any]) -> Any:
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


def command_line(settings: Any) -> list[str]:
    """The flags that rebuild the dataclass value ``settings`` with :func:`parse_dataclass`: every
    field that differs from its default. A field kept off the command line (``tyro.conf.Suppress``)
    that differs is a ValueError: the caller turns it into flags first (rules into ``--override``)."""
    words: list[str] = []
    spellings = _spellings(type(settings))
    for field in dataclasses.fields(settings):
        value, spelling = getattr(settings, field.name), spellings[field.name]
        if value == _default(field):
            continue
        if spelling.suppressed:
            raise ValueError(f"{field.name} = {value!r} has no command-line form")
        if isinstance(value, bool):
            words.append(spelling.flag if value else "--no-" + spelling.flag[2:])
        elif isinstance(value, list) and spelling.repeated:
            words += [word for item in value for word in (spelling.flag, str(item))]
        elif isinstance(value, list):
            words += [spelling.flag, *map(str, value)]
        else:
            words += [spelling.flag, str(value)]  # None too: tyro reads "None" for an optional field
    return words


def shell_command(words: Sequence[str]) -> str:
    return shlex.join(words)


SCRIPT_NAMES = ("train.py", "train_rllib.py")  # the repository's root scripts (shims of agents.commands)


def program_words(console_name: str) -> list[str]:
    """How the user ran this command, for the commands it prints (a resume command): ``python -m
    agents.commands.play`` when run as a module, ``python train.py`` for a root script, the console
    script's name when run as one (``trash-play``), else ``console_name`` (inside a test)."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    module = (getattr(spec, "name", None) or "").removesuffix(".__main__")
    if module.startswith(("agents.", "trash_env.")):
        return [python_command(), "-m", module]
    script = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    name = script if script in SCRIPT_NAMES or script.startswith("trash-") else console_name
    return [python_command(), name] if name.endswith(".py") else [name]


def program_name(console_name: str) -> str:
    """The name a command gives itself in its usage and errors: :func:`program_words` without the
    interpreter before a script (``train.py``, as argparse says), ``python -m agents.commands.play``
    for a module, ``trash-play`` for a console script."""
    words = program_words(console_name)
    if words[1:2] == ["-m"]:
        return shell_command(["python", *words[1:]])
    return shell_command(words[1:] if len(words) == 2 else words)


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


# ---------------------------------------------------------------------- training commands


@contextlib.contextmanager
def console_log(name: str = TRAINING_LOGGER) -> Iterator[None]:
    """While the block runs, the INFO messages of logger ``name`` (and of its children) as plain
    lines on stdout: how a training command shows the progress its library logs. Without it the
    library says nothing (the benchmark suite, a notebook, another program's own logging)."""
    logger = logging.getLogger(name)
    handler = logging.StreamHandler(sys.stdout)  # flushed after every line: progress shows as it happens
    handler.setFormatter(logging.Formatter("%(message)s"))
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def training_command(library: Any, argv: Sequence[str] | None = None) -> int:
    """A training library's command line (``trash-train``: :mod:`agents.training.sb3`; ``trash-train-rllib``:
    :mod:`agents.training.rllib`): :func:`stoppable_command` over the library's ``COMMAND``, ``Args``,
    ``prepare``, ``run`` and ``SAFE_POINT``, described by the first line of its docstring."""
    description = (library.__doc__ or "").splitlines()[0]
    return stoppable_command(
        program_name(library.COMMAND), library.Args, library.prepare, library.run, library.SAFE_POINT, argv, description
    )


def stoppable_command(
    prog: str,
    settings_type: type,
    prepare: Callable[[Any], Any],
    run: Callable[[Any, GracefulStop], Any],
    safe_point: str,
    argv: Sequence[str] | None = None,
    description: str | None = None,
) -> int:
    """A training command: the settings from the command line, checked by ``prepare`` (a bad one is
    one line and exit status 2, nothing written), then ``run`` with its log lines on stdout, then the
    final evaluation's table (:func:`agents.evaluation.report.print_final_table`; the whole summary
    is in the run's ``final_eval.json``). ``run`` returns a :class:`agents.training.runs.TrainResult`, whose
    ``exit_status`` is the command's (0, or 128 + the signal number when a signal stopped it)."""
    settings = parse_dataclass(settings_type, argv, prog, description)
    try:
        setup = prepare(settings)
    except ValueError as error:
        return fail(prog, error)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted before anything was written", file=sys.stderr)
        return 128 + signal.SIGINT
    with console_log(), GracefulStop(safe_point) as stop:
        result = run(setup, stop)
    if result.summary is not None:
        from agents.evaluation.report import final_evaluation_title, print_final_table

        print_final_table(result.summary, final_evaluation_title(str(result.policy), settings.final_eval_deals))
    return result.exit_status
