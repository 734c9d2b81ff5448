"""The benchmark's result files as types, and the check every reader makes of them.

A result file is ``RESULTS/TASK/ALGORITHM/seed_N.json``, written once by
:func:`agents.bench.runner.run_one` when its run has finished (the fields: :class:`Result`). Its
readers, ``trash-bench run`` when it resumes a sweep and ``trash-bench report``, take nothing in it
on trust: :func:`read` (a file) and :func:`check` (a parsed JSON value and its path) return the
typed :class:`Result` or raise a ``ValueError`` naming the file, the field and what is wrong with it:

- every field of its type (an integer is not a string, a bool or a float; a number is finite and
  within :data:`LIMIT`), none missing, none unknown (a field this version does not know could be one
  that changes what the file means: a newer format is refused by its number, not half-read);
- the file matches its path: its task, algorithm and seed are the folders' and the file's names;
- the task is one of the registry's, the algorithm a plain name (:func:`check_name`), the seed a
  training seed; for the task's current version, the budget, the evaluation opponent, deals and seed
  are the task's at the file's budget fraction;
- every ``normalized`` is what its ``score`` gives with the file's own anchors (``reference``: the
  scores of ``random`` and of the reference agent it was normalised with), within :data:`TOLERANCE`;
  intervals hold their point, and the curve's timesteps never go back.

The schema grows by fields: a new field is a new attribute of its dataclass, with a default (None)
if files written before it lack it, so that they still read; a change of what a field means bumps
:data:`FORMAT` and this module reads the formats in :data:`FORMATS`.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.bench.tasks import MAX_TRAINING_SEED, TASKS
from trash_env.files import read_bounded

FORMAT = 1  # the format run_one writes
FORMATS = (1,)  # the formats this version reads
MAX_BYTES = 1_000_000  # a result file is a few kB: anything larger is refused before it is read
LIMIT = 1e9  # no figure of a result file comes near: beyond it a number is damage, not a measurement
MAX_INTEGER = 2**53  # integers JSON readers everywhere hold exactly
TOLERANCE = 1e-6  # how far a stored normalised score may be from the one recomputed from its score
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")  # a plain name: a folder name, and text in a table


@dataclass(frozen=True)
class CurvePoint:
    """The policy at one evaluation point: its score difference per deal against the evaluation
    opponent, the 95% interval over deals, and the score normalised (0: random, 1: the reference)."""

    timesteps: int
    score: float
    low: float
    high: float
    normalized: float


@dataclass(frozen=True)
class FinalEvaluation:
    """The returned policy, evaluated on the final deals (the same figures as a :class:`CurvePoint`)."""

    score: float
    low: float
    high: float
    normalized: float
    deals: int


@dataclass(frozen=True)
class Anchors:
    """The scores a file's normalised scores were computed with: ``random``'s (0) and the
    reference agent's (1), against the evaluation opponent."""

    random: float
    reference: float

    def normalize(self, score: float) -> float:
        return (score - self.random) / (self.reference - self.random)


@dataclass(frozen=True)
class Protocol:
    """How the policy was evaluated: the opponent, the deals at each point and at the end, the seed."""

    opponent: str
    deals: int
    final_deals: int
    seed: int


@dataclass(frozen=True)
class Result:
    """One finished run (task, algorithm, seed): a result file's fields, in the file's order."""

    format: int
    task: str
    task_version: int
    algorithm: str
    seed: int
    budget: int
    budget_fraction: float
    curve: tuple[CurvePoint, ...]
    final: FinalEvaluation
    reference: Anchors
    evaluation: Protocol
    wall_seconds: float
    package_version: str
    complete: bool

    def to_json(self) -> dict[str, Any]:
        """The result as the JSON object of its file."""
        return dataclasses.asdict(self)


class BadResultsError(ValueError):
    """Result files of a folder that fail :func:`check`: ``problems`` holds one line per file."""

    def __init__(self, folder: Path, problems: Sequence[str]) -> None:
        self.folder, self.problems = Path(folder), list(problems)
        super().__init__(f"{self.summary}: {'; '.join(self.problems)}")

    @property
    def summary(self) -> str:
        count = len(self.problems)
        return f"{count} bad result file{'s' if count != 1 else ''} in {self.folder}"


class _FieldError(ValueError):
    """A problem with one field (its dotted name, and what is wrong), before the file is named."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field} {problem}" if field else problem)


def check_name(name: str, what: str = "algorithm name") -> str:
    """``name`` if it is plain (letters, digits, ``_``, ``.`` and ``-``, not starting with ``.`` or
    ``-``, at most 100 characters): the name of a results folder and of a row of the leaderboard."""
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ValueError(
            f"{what} {_quoted(name)} is not a plain name (letters, digits, _ . -, not starting with . or -)"
        )
    return name


def read(path: Path) -> Result:
    """The result file at ``path``, checked (:func:`check`); a ValueError naming it if it cannot be
    read, is larger than :data:`MAX_BYTES`, is not JSON or is not a valid result."""
    path = Path(path)
    try:
        data = json.loads(read_bounded(path, MAX_BYTES))  # never more, whatever the file claims or becomes
    except RecursionError:
        raise ValueError(f"{path}: not a result file: JSON nested too deep") from None
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError, or read_bounded's refusal
        if str(error).startswith(str(path)):  # read_bounded's "PATH is ... bytes, over the limit"
            raise ValueError(f"{path}: {str(error).removeprefix(str(path)).strip()}") from None
        raise ValueError(f"{path}: not valid JSON ({error})") from None
    return check(data, path)


def check(data: Any, path: Path) -> Result:
    """``data`` (a parsed result file) as a :class:`Result`, if it is a valid result of the run its
    ``path`` names (``.../TASK/ALGORITHM/seed_N.json``); else a ValueError ``PATH: FIELD WHAT``."""
    path = Path(path)
    try:
        if not isinstance(data, dict):
            raise _FieldError("", f"holds {_kind(data)}, not a result object")
        if data.get("format") not in FORMATS:
            readable = ", ".join(map(str, FORMATS))
            raise _FieldError("format", f"is {_shown(data.get('format'))}: this version reads result format {readable}")
        result = _parse(Result, data, "")
        _check_meaning(result, path)
    except _FieldError as error:
        raise ValueError(f"{path}: {error}") from None
    return result


# ---------------------------------------------------------------------- structure


def _parse(kind: Any, value: Any, field: str) -> Any:
    """``value`` as ``kind`` (a dataclass of this module, a tuple of one, int, float, str, bool, or
    one of them or None); a :class:`_FieldError` naming ``field`` otherwise."""
    if dataclasses.is_dataclass(kind):
        return _parse_object(kind, value, field)
    origin, arguments = typing.get_origin(kind), typing.get_args(kind)
    if origin is tuple:
        if not isinstance(value, list):
            raise _FieldError(field, f"is {_shown(value)}, not a list")
        return tuple(_parse(arguments[0], item, f"{field}[{i}]") for i, item in enumerate(value))
    if origin in (typing.Union, types.UnionType):
        if value is None:
            return None
        (inner,) = [argument for argument in arguments if argument is not type(None)]
        return _parse(inner, value, field)
    if kind is bool:
        if not isinstance(value, bool):
            raise _FieldError(field, f"is {_shown(value)}, not true or false")
        return value
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _FieldError(field, f"is {_shown(value)}, not an integer")
        if abs(value) > MAX_INTEGER:
            raise _FieldError(field, f"is {value}, beyond {MAX_INTEGER:,}: not a plausible figure")
        return value
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _FieldError(field, f"is {_shown(value)}, not a number")
        if not math.isfinite(value):
            raise _FieldError(field, f"is {value}, not a finite number")
        if abs(value) > LIMIT:
            raise _FieldError(field, f"is {value:g}, beyond {LIMIT:g} in size: not a plausible figure")
        return float(value)
    if kind is str:
        if not isinstance(value, str):
            raise _FieldError(field, f"is {_shown(value)}, not a string")
        return value
    raise TypeError(f"no check for {kind!r}")  # a field type this module does not handle: a bug here


def _parse_object(kind: Any, value: Any, field: str) -> Any:
    """A dataclass from a JSON object: every field present (or defaulted), none unknown."""
    if not isinstance(value, dict):
        raise _FieldError(field or "the file", f"is {_shown(value)}, not an object")
    fields = dataclasses.fields(kind)
    known = {f.name for f in fields}
    unknown = sorted(str(key) for key in value if key not in known)
    if unknown:
        key = unknown[0] if re.fullmatch(r"\w{1,40}", unknown[0]) else _quoted(unknown[0])
        raise _FieldError(_join(field, key), "is not a field of a result file (this version's fields only)")
    hints = typing.get_type_hints(kind)
    items = {}
    for f in fields:
        where = _join(field, f.name)
        if f.name in value:
            items[f.name] = _parse(hints[f.name], value[f.name], where)
        elif f.default is not dataclasses.MISSING:
            items[f.name] = f.default
        else:
            raise _FieldError(where, "is missing")
    return kind(**items)


def _join(field: str, name: str) -> str:
    return f"{field}.{name}" if field else name


def _kind(value: Any) -> str:
    """The JSON type of ``value``, in words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def _quoted(text: Any) -> str:
    """``text`` quoted as Python writes it (a line break as ``\\n``: one line), cut short."""
    quoted = repr(text)
    return quoted if len(quoted) <= 60 else quoted[:57] + "..."


def _shown(value: Any) -> str:
    """``value`` as it stands in the file, cut short, with its JSON type: ``"1" (a string)``, ``null``."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    text = text if len(text) <= 40 else text[:37] + "..."
    return f"{text} ({_kind(value)})"


# ---------------------------------------------------------------------- meaning


def _check_meaning(result: Result, path: Path) -> None:
    """What the types do not say: the run the path names, a known task, plain names, figures in range
    and consistent with each other and with the task, normalised scores recomputed."""
    if result.complete is not True:
        raise _FieldError("complete", "is false: not a finished run")
    if result.task not in TASKS:
        raise _FieldError("task", f"{_quoted(result.task)} is not a task of the suite")
    try:
        check_name(result.algorithm)
    except ValueError as error:
        raise _FieldError("", str(error)) from None
    _check_path(result, path)
    if result.task_version < 1:
        raise _FieldError("task_version", f"is {result.task_version}, not a version (1 or more)")
    if not 0 <= result.seed < MAX_TRAINING_SEED:
        raise _FieldError("seed", f"is {result.seed}, not a training seed (0..{MAX_TRAINING_SEED - 1})")
    if result.budget < 1:
        raise _FieldError("budget", f"is {result.budget}, not a number of timesteps (1 or more)")
    if not 0 < result.budget_fraction <= 1:
        raise _FieldError("budget_fraction", f"is {result.budget_fraction}, not in (0, 1]")
    if result.wall_seconds < 0:
        raise _FieldError("wall_seconds", f"is {result.wall_seconds}, a negative time")
    _check_protocol(result)
    _check_scores(result)


def _check_path(result: Result, path: Path) -> None:
    """The file's task, algorithm and seed are its folders' and its name's."""
    folders = {"task": path.parent.parent.name, "algorithm": path.parent.name}
    for field, folder in folders.items():
        if getattr(result, field) != folder:
            raise _FieldError(
                field, f"is {_quoted(getattr(result, field))} but the file is in the folder {_quoted(folder)}"
            )
    if path.name != f"seed_{result.seed}.json":
        raise _FieldError("seed", f"is {result.seed} but the file is {path.name}, not seed_{result.seed}.json")


def _check_protocol(result: Result) -> None:
    """For the task's current version: the budget and the evaluation the task fixes at the file's
    budget fraction (an older version's protocol is its own; such files are not compared anyway)."""
    task = TASKS[result.task]
    evaluation = result.evaluation
    if evaluation.deals < 1 or evaluation.final_deals < 1:
        raise _FieldError("evaluation", "has no deals")
    if result.final.deals != evaluation.final_deals:
        raise _FieldError(
            "final.deals", f"is {result.final.deals} but evaluation.final_deals is {evaluation.final_deals}"
        )
    if result.task_version != task.version:
        return
    fraction = result.budget_fraction
    expected = {
        "budget": (result.budget, task.scaled_budget(fraction)),
        "evaluation.opponent": (evaluation.opponent, task.reference),
        "evaluation.deals": (evaluation.deals, task.scaled_deals(fraction)[0]),
        "evaluation.final_deals": (evaluation.final_deals, task.scaled_deals(fraction)[1]),
        "evaluation.seed": (evaluation.seed, task.eval_seed),
    }
    for field, (stored, wanted) in expected.items():
        if stored != wanted:
            raise _FieldError(
                field, f"is {_quoted(stored)} but {task.name} v{task.version} has {wanted!r} at fraction {fraction}"
            )


def _check_scores(result: Result) -> None:
    """Anchors that make a scale, intervals that hold their points, timesteps in order, and every
    normalised score equal to the one its score gives with the file's anchors."""
    anchors = result.reference
    if not anchors.reference > anchors.random:
        raise _FieldError(
            "reference", f"has the reference agent's score {anchors.reference} not above random's {anchors.random}"
        )
    points = [(f"curve[{i}]", point) for i, point in enumerate(result.curve)] + [("final", result.final)]
    for field, point in points:
        slack = 1e-9 * max(1.0, abs(point.score))
        if not point.low - slack <= point.score <= point.high + slack:
            raise _FieldError(field, f"has its score {point.score} outside its interval [{point.low}, {point.high}]")
        expected = anchors.normalize(point.score)
        if not math.isclose(point.normalized, expected, rel_tol=TOLERANCE, abs_tol=TOLERANCE):
            raise _FieldError(
                f"{field}.normalized",
                f"is {point.normalized} but its score {point.score} with the file's anchors (random "
                f"{anchors.random}, reference {anchors.reference}) gives {expected:.6g}",
            )
    steps = [point.timesteps for point in result.curve]
    if any(step < 0 for step in steps):
        raise _FieldError("curve", "has a negative timestep")
    if steps != sorted(steps):
        raise _FieldError("curve", f"has its timesteps out of order ({steps})")
