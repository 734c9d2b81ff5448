"""What every command-line entry point of the package shares: arguments, errors and signals.

- :class:`ArgumentParser`: argparse whose errors are one line on stderr
  (``prog: error: argument --deals: ...``) and exit status 2, never a usage
  block or a traceback.
- :func:`dataclass_parser` / :func:`parse_dataclass`: a command line built from a
  dataclass of settings (CleanRL style: one field per flag, the field's
  docstring is its help), and :func:`command_line`, the flags that rebuild a
  given settings value (for the resume command a stopped run prints).
- :func:`fail`: the one-line message and exit status 2 for a bad argument found
  after parsing (a range, an unknown agent, a policy file for other rules).
- :class:`GracefulStop`: SIGINT and SIGTERM become a request to stop at the next
  safe point; a second signal exits at once, removing only the temporary files
  of writes in progress (:mod:`trash_env.files`), so no finished file is lost.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import inspect
import itertools
import os
import shlex
import shutil
import signal
import sys
import textwrap
import threading
import types
import typing
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from trash_env.files import remove_partial_files

_PR_SET_PDEATHSIG = 1  # Linux prctl option: a signal for this process when its parent dies
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


# ---------------------------------------------------------------------- stoppable commands


def run_stoppable(
    settings: Any, prepare: Callable[[Any], Any], run: Callable[[Any, GracefulStop], Any], safe_point: str
) -> Any:
    """``run(prepare(settings), stop)`` with Ctrl-C and SIGTERM turned into ``stop`` requests;
    ``prepare`` checks everything (a ValueError) before ``run`` writes anything."""
    setup = prepare(settings)
    with GracefulStop(safe_point) as stop:
        return run(setup, stop)


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


# ---------------------------------------------------------------------- signals


def worker_signals() -> None:
    """In a worker process: leave Ctrl-C (SIGINT, sent by a terminal to the whole process group)
    to the main process, which stops its workers itself; let SIGTERM end the worker (a forked
    worker inherits the main process's handler); and on Linux, end with the main process: the
    kernel sends SIGKILL when the parent dies, so a killed or crashed main process leaves no
    orphans. (Not SIGTERM: a worker that trains installs :class:`GracefulStop`, which would turn
    it into a stop of the current run only, and the orphan would go on to the jobs still queued
    and write their result files.)"""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))


def one_thread_per_process() -> None:
    """In a worker process that runs beside others (one per core): one thread for torch, OpenMP and
    Numba's parallel kernels. Without it each worker's thread pools (libgomp's spin-waiting threads
    among them) compete with the other workers for the same cores, which made parallel benchmark
    runs several times slower."""
    os.environ["OMP_NUM_THREADS"] = "1"
    numba = sys.modules.get("numba")
    if numba is None:
        os.environ["NUMBA_NUM_THREADS"] = "1"
    else:
        with contextlib.suppress(Exception):
            numba.set_num_threads(1)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def worker_setup() -> None:
    """The initializer of a worker process that runs beside others (evaluation workers, benchmark
    runs): Ctrl-C left to the main process (:func:`worker_signals`) and one thread per process
    (:func:`one_thread_per_process`)."""
    worker_signals()
    one_thread_per_process()


def end_child_processes() -> None:
    """Terminate this process's multiprocessing children (evaluation workers, subprocess envs)."""
    import multiprocessing

    for child in multiprocessing.active_children():
        with contextlib.suppress(Exception):
            child.terminate()


class GracefulStop:
    """SIGINT and SIGTERM as a request to stop at the next safe point (a context manager).

    While active, the first signal sets :attr:`requested` and says so on stderr; the
    program checks it at its safe points, saves what it has and exits with
    :attr:`exit_code` (128 + the signal number: 130 for Ctrl-C, 143 for SIGTERM). A
    second signal exits at once. Inside :meth:`at_once` the first signal already exits
    at once, for work that has nothing left to save. An immediate exit removes the
    temporary files of writes in progress first; every finished file stays as it was.
    Outside the main thread (where Python cannot handle signals) it does nothing.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, safe_point: str = "the next safe point", stream: TextIO | None = None) -> None:
        self.safe_point = safe_point
        self.signum: int | None = None
        self._immediate: str | None = None
        self._stream = stream
        self._previous: dict[int, Any] = {}

    @property
    def requested(self) -> bool:
        return self.signum is not None

    @property
    def exit_code(self) -> int:
        return 128 + self.signum if self.signum is not None else 0

    @property
    def signal_name(self) -> str:
        return signal.Signals(self.signum).name if self.signum is not None else ""

    def __enter__(self) -> GracefulStop:
        if threading.current_thread() is threading.main_thread():
            self._previous = {signum: signal.signal(signum, self._handle) for signum in self.SIGNALS}
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous = {}

    @contextlib.contextmanager
    def at_once(self, message: str) -> Iterator[None]:
        """A section that any signal ends at once, printing ``message`` (what is saved, and
        how to do the rest by hand)."""
        self._immediate = message
        try:
            yield
        finally:
            self._immediate = None

    def _say(self, text: str) -> None:
        print(text, file=self._stream or sys.stderr, flush=True)

    def _handle(self, signum: int, frame: Any) -> None:
        name = signal.Signals(signum).name
        if self._immediate is not None or self.requested:
            self._say(f"\n{name}: exiting now. {self._immediate or 'Files already written are complete.'}")
            remove_partial_files()
            end_child_processes()
            with contextlib.suppress(Exception):
                sys.stdout.flush()
            os._exit(128 + signum)
        self.signum = signum
        self._say(
            f"\n{name}: stopping at {self.safe_point} to save the work so far; "
            "send it again (Ctrl-C) to exit at once without saving more."
        )
