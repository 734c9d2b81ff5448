"""What every command-line entry point of the package shares: arguments, rules flags and errors.

- :class:`ArgumentParser`: argparse whose errors are one line on stderr
  (``prog: error: argument --deals: ...``) and exit status 2, never a usage
  block or a traceback.
- :func:`parse_dataclass`: a command line built with argparse from a dataclass of
  settings (CleanRL style: one field per flag, the field's docstring is its help,
  :class:`Flag` in its ``Annotated`` type for a flag spelled otherwise), with the
  same one-line errors and ``--help`` as every other command; and
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
import itertools
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


CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # what a terminal would act on (ESC sequences): shown, not sent


def one_line(text: str) -> str:
    """``text`` on one line (whitespace runs as one space), its control characters written out (``\\x1b``),
    so that a message from a plugin or a file can neither break the line nor drive the terminal."""
    return CONTROL.sub(lambda match: f"\\x{ord(match[0]):02x}", " ".join(str(text).split()))


def usage_error(prog: str, message: str) -> NoReturn:
    """Exit with status 2 after ``prog: error: MESSAGE (see prog --help)`` on one line of stderr."""
    print(f"{prog}: error: {one_line(message)} (see {prog} --help)", file=sys.stderr, flush=True)
    raise SystemExit(USAGE_ERROR)


def at_least(flag: str, value: float, low: float, when: str = "") -> None:
    """A ``ValueError`` naming ``flag`` unless ``value >= low``."""
    if not value >= low:  # also refuses NaN
        raise ValueError(f"{flag} must be at least {low}{when}, got {value}")


def at_most(flag: str, value: float, high: float, why: str = "") -> None:
    """A ``ValueError`` naming ``flag`` and the cap (and ``why`` it is there) unless ``value <= high``:
    checked before anything of that size is built."""
    if not value <= high:  # also refuses NaN
        raise ValueError(f"{flag} must be at most {high:,}{f' ({why})' if why else ''}, got {value:,}")


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


@dataclasses.dataclass(frozen=True)
class Flag:
    """How a field of a settings dataclass is spelled on the command line, as the metadata of its
    ``Annotated`` type (:func:`parse_dataclass`): ``name`` the flag's name (``override`` for
    ``--override``; default: the field's, ``_`` as ``-``), ``metavar`` the value's name in ``--help``,
    ``default_text`` what ``--help`` says of a default that says nothing by itself ("(default: TEXT)"),
    ``repeated`` for a list given one value per flag (``--override A --override B``), ``hidden`` for a
    field given from Python only."""

    name: str | None = None
    metavar: str | None = None
    default_text: str | None = None
    repeated: bool = False
    hidden: bool = False


def _flag_of(hint: Any) -> Flag:
    return next((item for item in getattr(hint, "__metadata__", ()) if isinstance(item, Flag)), Flag())


def _flag_name(field: dataclasses.Field[Any], flag: Flag) -> str:
    return "--" + (flag.name or field.name).replace("_", "-")


def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of the dataclass ``cls`` (a string literal on the line after the
    field, as CleanRL writes its settings): the field's help."""
    import ast
    import inspect
    import textwrap

    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        body = ast.parse(textwrap.dedent(inspect.getsource(klass))).body[0].body  # type: ignore[attr-defined]
        for field, doc in itertools.pairwise(body):
            if (
                isinstance(field, ast.AnnAssign)
                and isinstance(field.target, ast.Name)
                and isinstance(doc, ast.Expr)
                and isinstance(doc.value, ast.Constant)
                and isinstance(doc.value.value, str)
            ):
                docs[field.target.id] = " ".join(doc.value.value.split())
    return docs


def _optional(convert: Callable[[str], Any]) -> Callable[[str], Any]:
    """``convert`` for a field that may be None: the word ``None`` (what :func:`command_line` writes) is None."""

    def read(text: str) -> Any:
        return None if text == "None" else convert(text)

    read.__name__ = getattr(convert, "__name__", "value")  # argparse names the type in its error
    return read


def _add_field(parser: argparse.ArgumentParser, field: dataclasses.Field[Any], hint: Any, help_text: str) -> None:
    """One argparse option for a field: its type (``int``, ``float``, ``str``, ``Path``, a ``Literal``'s
    choices, a list of them, optional or not), its help and its default."""
    flag = _flag_of(hint)
    base = typing.get_args(hint)[0] if typing.get_origin(hint) is typing.Annotated else hint
    optional = type(None) in typing.get_args(base)
    if optional:
        base = next(arg for arg in typing.get_args(base) if arg is not type(None))
    default = _default(field)
    shown = flag.default_text if flag.default_text is not None else default
    said = " (repeatable)" if flag.repeated and not default else f" (default: {shown})"
    text = f"{help_text}{said}".replace("%", "%%")  # argparse formats help with %
    options: dict[str, Any] = {"dest": field.name, "default": default, "help": text}
    if flag.metavar:
        options["metavar"] = flag.metavar
    if base is bool:
        parser.add_argument(_flag_name(field, flag), action=argparse.BooleanOptionalAction, **options)
        return
    is_list = typing.get_origin(base) is list
    item = typing.get_args(base)[0] if is_list else base
    if typing.get_origin(item) is typing.Literal:
        options["choices"] = list(typing.get_args(item))
        convert: Callable[[str], Any] = str
    else:
        convert = {int: int, float: float, str: str, Path: Path}[item]
    options["type"] = _optional(convert) if optional else convert
    if is_list and flag.repeated:
        options.update(action="append", default=None)  # argparse would append to the default: see parse_dataclass
    elif is_list:
        options["nargs"] = "*"
    parser.add_argument(_flag_name(field, flag), **options)


def dataclass_parser(cls: type, prog: str, description: str | None = None) -> ArgumentParser:
    """An :class:`ArgumentParser` with one flag per field of the dataclass ``cls`` (``run_name`` ->
    ``--run-name``; booleans as ``--flag`` / ``--no-flag``; lists after one flag, or one value per flag
    where its :class:`Flag` says ``repeated``), each field's docstring its help (:func:`field_docs`)."""
    parser = ArgumentParser(prog=prog, description=description)
    hints, docs = typing.get_type_hints(cls, include_extras=True), field_docs(cls)
    for field in dataclasses.fields(cls):
        if field.init and not _flag_of(hints[field.name]).hidden:
            _add_field(parser, field, hints[field.name], docs.get(field.name, ""))
    return parser


def parse_dataclass(cls: type, argv: Sequence[str] | None, prog: str, description: str | None = None) -> Any:
    """``cls`` filled in from the command line (:func:`dataclass_parser`): ``--help`` prints the help
    and exits 0; a bad argument exits with status 2 after one line on stderr, ``prog: error: ...``, as
    every command of the package does."""
    parser = dataclass_parser(cls, prog, description)
    values = vars(parser.parse_args(None if argv is None else list(argv)))
    hints = typing.get_type_hints(cls, include_extras=True)
    for field in dataclasses.fields(cls):
        if _flag_of(hints[field.name]).repeated and values.get(field.name) is None:
            values[field.name] = _default(field)  # not given: the field's own default
    return cls(**values)


def _default(field: dataclasses.Field[Any]) -> Any:
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


def command_line(settings: Any) -> list[str]:
    """The flags that rebuild the dataclass value ``settings`` with :func:`parse_dataclass`: every
    field that differs from its default. A field kept off the command line (:class:`Flag` ``hidden``)
    that differs is a ValueError: the caller turns it into flags first (rules into ``--override``)."""
    words: list[str] = []
    hints = typing.get_type_hints(type(settings), include_extras=True)
    for field in dataclasses.fields(settings):
        value, flag = getattr(settings, field.name), _flag_of(hints[field.name])
        name = _flag_name(field, flag)
        if value == _default(field):
            continue
        if flag.hidden:
            raise ValueError(f"{field.name} = {value!r} has no command-line form")
        if isinstance(value, bool):
            words.append(name if value else "--no-" + name[2:])
        elif isinstance(value, list) and flag.repeated:
            words += [word for item in value for word in (name, str(item))]
        elif isinstance(value, list):
            words += [name, *map(str, value)]
        else:
            words += [name, str(value)]  # None too: an optional field reads "None" as None
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
    final evaluation's table (:func:`agents.evaluation.summary.print_final_table`; the whole summary
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
        from agents.evaluation.summary import final_evaluation_title, print_final_table

        print_final_table(result.summary, final_evaluation_title(str(result.policy), settings.final_eval_deals))
    return result.exit_status
