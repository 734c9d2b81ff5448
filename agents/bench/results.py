"""The benchmark's result files as types, and the check every reader makes of them.

A result file (where it lies: :mod:`agents.bench.store`) is written once by
:func:`agents.bench.runner.run_one` when its run has finished (the fields: :class:`Result`). Its
readers, ``trash-bench run`` when it resumes a sweep, ``trash-bench evaluate`` and ``trash-bench
report``, take nothing in it on trust: :func:`check` (a parsed JSON value and its path) returns the
typed :class:`Result` or raises a ``ValueError`` naming the file, the field and what is wrong with it
(and :func:`agents.bench.store.read` reads a file, bounded, and checks also that it lies where it says):
- every field of its type, checked by pydantic against the dataclasses below (JSON's own types:
  :mod:`trash_env.schema`; an integer is not a string, a bool or a float; a number is finite and
  within :data:`LIMIT`), none missing, none unknown (a field this version does not know could be one
  that changes what the file means: a newer format is refused by its number, not half-read);
- the task is one of the registry's, the algorithm a plain name (:func:`check_name`), the seed a
  training seed; for the task's current version, the budget, the evaluation opponents, deals and
  seeds are the task's at the file's budget fraction;
- every ``normalized`` is what its ``score`` gives with the anchors it was measured with, within
  :data:`TOLERANCE`; intervals hold their point, and the curve's timesteps never go back.

Two formats are read (:data:`FORMATS`). **Format 1** (protocol v1): one set of anchors for the
whole file (``reference``), the curve and the final on deals of one evaluation seed. **Format 2**
(protocol v2, :data:`FORMAT`) adds: ``protocol``; ``algorithm_spec`` (what was run:
``maskable_ppo``, ``module:attribute``); ``valid`` and ``invalid_reasons`` (a run that broke the
protocol is written, marked, and left out of reports); ``counted_steps`` (the learner's timesteps
the context's environments counted); ``validation`` (``{seed, deals, anchors}``: the curve's deals
and the anchors measured on them); ``final.seed`` (the test seed, drawn after training) and
``final.anchors`` (measured on those test deals); ``heldout`` (the final policy against each
held-out opponent, on the same test deals, with its anchors); ``artifact`` (the policy's file name,
beside the result); ``provenance`` (:func:`agents.bench.provenance.provenance` of the training
process). In format 2, ``reference`` is the final's anchors. Later in format 2 (absent from files
written before it, which still read): ``scoring``, ``"exact"`` or ``"sampled"``, required of the
current version of a task scored exactly (``hyn-2p``, ``hyn-2p-selfplay``: :mod:`agents.bench.exact_scores`);
with ``"exact"`` every curve point, the final and every held-out entry carry ``exact``
(``{score, normalized, anchors}``: the score computed without deals, normalised with its exact
anchors), all of them or none. Later still: ``artifact_sha256``, the SHA-256 of the kept policy (its
readers refuse a policy file that is not the one the run kept: :func:`agents.bench.store.kept_policy`).

The schema grows by fields: a new field is a new attribute of its dataclass, with a default (None)
if files written before it lack it, so that they still read; a change of what a field means bumps
:data:`FORMAT` and this module reads the formats in :data:`FORMATS`.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, with_config

from agents.bench.tasks import MAX_FRACTION, MAX_TRAINING_SEED, PROTOCOL_VERSION, TASKS, TEST_SEEDS
from trash_env.schema import Flag, Integer, Number, Problem, Text, first_problem

FORMAT = 2  # the format run_one writes
FORMATS = (1, 2)  # the formats this version reads
LIMIT = 1e9  # no figure of a result file comes near: beyond it a number is damage, not a measurement
MAX_INTEGER = 2**53  # integers JSON readers everywhere hold exactly
TOLERANCE = 1e-6  # how far a stored normalised score may be from the one recomputed from its score
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")  # a plain name: a folder name, and text in a table
# an algorithm as given: a built-in, module:attribute, or a built-in with named settings (ALGORITHM@NAME)
SPEC = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:-]{0,199}(@[A-Za-z0-9_][A-Za-z0-9_.-]{0,99})?")
KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,39}")  # a key of a mapping (a library's name)
MAX_REASON = 300  # characters of one reason a run is invalid

# The field types of a result file beyond JSON's own (trash_env.schema): numbers within bounds.
Count = Annotated[Integer, Field(ge=-MAX_INTEGER, le=MAX_INTEGER)]
Figure = Annotated[Number, Field(ge=-LIMIT, le=LIMIT)]
Key = Annotated[Text, Field(pattern=KEY.pattern)]
FILE_CONFIG = ConfigDict(extra="forbid")  # a field this version does not know is refused, not skipped


@with_config(FILE_CONFIG)
@dataclass(frozen=True)
class Anchors:
    """The scores a normalised score was computed with: ``random``'s (0) and the reference agent's
    (1), against the same opponent (format 2: on the same deals; for an exact score, exactly)."""

    random: Figure
    reference: Figure

    def normalize(self, score: float) -> float:
        return (score - self.random) / (self.reference - self.random)


@with_config(FILE_CONFIG)
@dataclass(frozen=True)
class ExactScore:
    """A score computed exactly, without deals (:mod:`agents.bench.exact_scores`, the solved tasks): the
    expected score difference per deal against the same opponent as the sampled score beside it, and
    normalised with ``random``'s and the reference agent's exact scores against that opponent."""

    score: Figure
    normalized: Figure
    anchors: Anchors


@with_config(FILE_CONFIG)
@dataclass(frozen=True)
class ExploitabilityScore:
    """A policy's exact exploitability (:mod:`agents.bench.exploitability_scores`, the tasks that have
    it): what a best response wins against it per deal (0 .. 2, lower is better), normalised with
    ``random``'s on the same task (``1 - per_deal / random``: 0 is ``random``, 1 unexploitable)."""

    per_deal: Figure
    normalized: Figure
    random: Figure


class _Headlined:
    """A score with its ``normalized`` (sampled) and, on a run scored exactly, its ``exact``."""

    normalized: Figure
    exact: ExactScore | None

    @property
    def headline(self) -> float:
        """The normalised score a report shows: the exact one where there is one, else the sampled."""
        return self.exact.normalized if self.exact is not None else self.normalized


@with_config(FILE_CONFIG)
@dataclass(frozen=True)
class CurvePoint(_Headlined):
    """The policy at one evaluation point: its score difference per deal against the evaluation
    opponent, the 95% interval over deals, and the score normalised (0: random, 1: the reference);
    ``exact`` where the run was scored exactly (``scoring: "exact"``)."""

    timesteps: Count
    score: Figure
    low: Figure
    high: Figure
    normalized: Figure
    exact: ExactScore | None = None
    exploitability: ExploitabilityScore | None = None
    train_seconds: Figure | None = None  # the training's wall time to the point, its evaluations left out


@with_config(FILE_CONFIG)
@dataclass(frozen=True)
class FinalEvaluation(_Headlined):
    """The returned policy, evaluated on the final deals (the same figures as a :class:`CurvePoint`);
    format 2 adds the test seed (drawn after training) and the anchors measured on those deals."""

    score: Figure
    low: Figure
    high: Figure
    normalized: Figure
    deals: Count
    seed: Count | None = None
    anchors: Anchors | None = None
    exact: ExactScore | None = None
    exploitability: ExploitabilityScore | None = None


@with_config(FILE_CONFIG)
@dataclass(frozen=True)
class HeldOutEvaluation(_Headlined):
    """The final policy against one held-out opponent (never met in training), on the final's test
    deals, normalised with ``random``'s and the reference agent's scores against it on those deals."""

    opponent: Text
    score: Figure
    low: Figure
    high: Figure
    normalized: Figure
    deals: Count
    anchors: Anchors
    exact: ExactScore | None = None


@with_config(FILE_CONFIG)
@dataclass(frozen=True)
class Validation:
    """The validation deals of the curve (the first ``deals`` deals of ``seed``) and the anchors
    measured on them."""

    seed: Count
    deals: Count
    anchors: Anchors


@with_config(FILE_CONFIG)
@dataclass(frozen=True)
class GitCommit:
    """The checkout a run was made from: its commit, and whether tracked files differed from it."""

    commit: Text
    modified: Flag


@with_config(FILE_CONFIG)
@dataclass(frozen=True)
class Provenance:
    """Where a run's figures came from besides its settings (:func:`agents.bench.provenance.provenance`
    of the process that trained it): they repeat exactly only with the same of all these."""

    package_version: Text
    git: GitCommit | None
    cpu: Text
    cores: Count | None
    python: Text
    versions: dict[Key, Text]
    torch_threads: Count | None


@with_config(FILE_CONFIG)
@dataclass(frozen=True)
class Protocol:
    """How the policy was evaluated: the opponent, the deals at each point and at the end, the seed."""

    opponent: Text
    deals: Count
    final_deals: Count
    seed: Count


@dataclass(frozen=True)
class SettingsRecord:
    """The named settings a run trained with (``trash-bench run --settings NAME``: :mod:`agents.bench.tune`)."""

    name: Text
    values: dict[Key, Integer | Number | Text | tuple[Integer, ...]]


@with_config(FILE_CONFIG)
@dataclass(frozen=True)
class Result:
    """One finished run (task, algorithm, seed): a result file's fields, in the file's order."""

    format: Count
    task: Text
    task_version: Count
    algorithm: Text
    seed: Count
    budget: Count
    budget_fraction: Figure
    curve: tuple[CurvePoint, ...]
    final: FinalEvaluation
    reference: Anchors
    evaluation: Protocol
    wall_seconds: Figure
    package_version: Text
    complete: Flag
    # format 2 (None in format 1)
    protocol: Count | None = None
    algorithm_spec: Text | None = None
    valid: Flag | None = None
    invalid_reasons: tuple[Text, ...] | None = None
    counted_steps: Count | None = None
    validation: Validation | None = None
    heldout: tuple[HeldOutEvaluation, ...] | None = None
    artifact: Text | None = None
    provenance: Provenance | None = None
    # later in format 2 (absent from files written before it)
    scoring: Text | None = None  # "exact" (every score also exact) or "sampled"
    artifact_sha256: Text | None = None  # the kept policy's SHA-256: the readers refuse another file
    settings: SettingsRecord | None = None  # the named settings it trained with (--settings), if any

    @property
    def protocol_version(self) -> int:
        """The protocol the run followed: ``protocol`` (format 2), else 1."""
        return self.protocol or 1

    @property
    def is_valid(self) -> bool:
        """False only for a run its runner marked invalid (format 1 has no mark)."""
        return self.valid is not False

    @property
    def identity(self) -> tuple[str, int, str, int, float, int]:
        """What makes two runs the same run: (task, task version, algorithm, seed, budget fraction,
        protocol). A sweep skips a run only if a result of exactly this identity exists."""
        return (self.task, self.task_version, self.algorithm, self.seed, self.budget_fraction, self.protocol_version)

    def to_json(self) -> dict[str, Any]:
        """The result as the JSON object of its file (a format-1 file without format 2's fields)."""
        data = dataclasses.asdict(self)
        for point in [*data["curve"], data["final"], *(data["heldout"] or ())]:
            for name in ("exact", "exploitability", "train_seconds"):
                if point.get(name, 0) is None:
                    del point[name]
        for name in LATER_FIELDS:
            if data[name] is None:
                del data[name]
        if self.format == 1:
            for name in FORMAT_2_FIELDS:
                data.pop(name)
            for name in ("seed", "anchors"):
                data["final"].pop(name)
        return data


LATER_FIELDS = ("scoring", "artifact_sha256", "settings")  # format 2's fields that files written before them lack
FORMAT_2_FIELDS = tuple(
    f.name
    for f in dataclasses.fields(Result)
    if f.default is None and f.name != "format" and f.name not in LATER_FIELDS
)


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
            f"{what} {quoted(name)} is not a plain name (letters, digits, _ . -, not starting with . or -)"
        )
    return name


def check(data: Any, path: Path) -> Result:
    """``data`` (a parsed result file, read from ``path``) as a :class:`Result`, if what it holds is a
    valid result; else a ValueError ``PATH: FIELD WHAT``. Where it lies is
    :func:`agents.bench.store.check_location`'s to check (:func:`agents.bench.store.check` does both)."""
    path = Path(path)
    try:
        if not isinstance(data, dict):
            raise _FieldError("", f"holds {_kind(data)}, not a result object")
        if data.get("format") not in FORMATS:
            readable = ", ".join(map(str, FORMATS))
            raise _FieldError("format", f"is {_shown(data.get('format'))}: this version reads result format {readable}")
        result = _parse(data)
        _check_meaning(result, path)
    except _FieldError as error:
        raise ValueError(f"{path}: {error}") from None
    return result


# ---------------------------------------------------------------------- structure


_RESULT = TypeAdapter(Result)


def _parse(data: dict[str, Any]) -> Result:
    """``data`` as a :class:`Result` (pydantic checks the types); a :class:`_FieldError` naming the first
    field that is wrong otherwise."""
    try:
        return _RESULT.validate_python(data)
    except ValidationError as error:
        problem = first_problem(error)
    raise _FieldError(problem.field, _problem(problem)) from None


# What each kind of pydantic error says about the value it found (``{}``: the value as the file has it).
_PROBLEMS = {
    "int_type": "is {}, not an integer",
    "float_type": "is {}, not a number",
    "bool_type": "is {}, not true or false",
    "string_type": "is {}, not a string",
    "tuple_type": "is {}, not a list",
    "dict_type": "is {}, not an object",
    "dataclass_type": "is {}, not an object",
    "dataclass_exact_type": "is {}, not an object",
}


def _problem(problem: Problem) -> str:
    """What is wrong with a field, in the words of the file."""
    value = problem.value
    if problem.missing:
        return "is missing"
    if problem.unknown:
        return "is not a field of a result file (this version's fields only)"
    if problem.kind == "finite_number":
        return f"is {value}, not a finite number"
    if problem.kind in ("greater_than_equal", "less_than_equal"):
        if isinstance(value, int):
            return f"is {value}, beyond {MAX_INTEGER:,}: not a plausible figure"
        return f"is {value:g}, beyond {LIMIT:g} in size: not a plausible figure"
    if problem.kind == "string_pattern_mismatch":
        return f"has the key {quoted(value)}, not a plain name"
    return _PROBLEMS.get(problem.kind, "is {}: " + problem.message).format(_shown(value))


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


def quoted(text: Any) -> str:
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


SHA256 = re.compile(r"[0-9a-f]{64}")


def _check_meaning(result: Result, path: Path) -> None:
    """What the types do not say: the run the path names, a known task, plain names, figures in range
    and consistent with each other and with the task, normalised scores recomputed."""
    if result.complete is not True:
        raise _FieldError("complete", "is false: not a finished run")
    if result.task not in TASKS:
        raise _FieldError("task", f"{quoted(result.task)} is not a task of the suite")
    try:
        check_name(result.algorithm)
    except ValueError as error:
        raise _FieldError("", str(error)) from None
    if not 0 < result.budget_fraction <= MAX_FRACTION:
        raise _FieldError("budget_fraction", f"is {result.budget_fraction}, not in (0, {MAX_FRACTION:g}]")
    if result.task_version < 1:
        raise _FieldError("task_version", f"is {result.task_version}, not a version (1 or more)")
    if not 0 <= result.seed < MAX_TRAINING_SEED:
        raise _FieldError("seed", f"is {result.seed}, not a training seed (0..{MAX_TRAINING_SEED - 1})")
    if result.budget < 1:
        raise _FieldError("budget", f"is {result.budget}, not a number of timesteps (1 or more)")
    if result.wall_seconds < 0:
        raise _FieldError("wall_seconds", f"is {result.wall_seconds}, a negative time")
    _check_format_fields(result)
    if result.format >= 2:
        _check_format_2(result, path)
    _check_protocol(result)
    _check_scores(result)
    _check_exact(result)
    _check_exploitability(result)


def _check_format_fields(result: Result) -> None:
    """Format 1 holds none of format 2's fields, format 2 all of them."""
    optional = {name: getattr(result, name) for name in FORMAT_2_FIELDS}
    later = {name: getattr(result, name) for name in LATER_FIELDS}
    optional.update({f"final.{name}": getattr(result.final, name) for name in ("seed", "anchors")})
    if result.format == 1:
        present = [name for name, value in (optional | later).items() if value is not None]
        if present:
            raise _FieldError(present[0], "is a field of result format 2, in a format-1 file")
        if result.task_version == TASKS[result.task].version and result.task_version >= 2:
            raise _FieldError("format", f"is 1 but task version {result.task_version} results are format 2")
        return
    missing = [name for name, value in optional.items() if value is None]
    if missing:
        raise _FieldError(missing[0], f"is missing (result format {result.format} has it)")


def _check_format_2(result: Result, path: Path) -> None:
    """Format 2's own fields: the protocol, the algorithm as run, validity and its reasons, counted
    steps, the validation and test seeds, the held-out opponents, the artifact's name, provenance."""
    if not 2 <= result.protocol <= PROTOCOL_VERSION:
        raise _FieldError("protocol", f"is {result.protocol}: this version knows protocols 2..{PROTOCOL_VERSION}")
    if not SPEC.fullmatch(result.algorithm_spec):
        spec = quoted(result.algorithm_spec)
        raise _FieldError("algorithm_spec", f"{spec} is not a built-in name or module:attribute")
    named = result.algorithm_spec.partition("@")[2] or None
    if named != (result.settings.name if result.settings is not None else None):
        spec = quoted(result.algorithm_spec)
        raise _FieldError("settings", f"does not match algorithm_spec {spec} (ALGORITHM@NAME trains with NAME)")
    if result.artifact_sha256 is not None and not SHA256.fullmatch(result.artifact_sha256):
        raise _FieldError("artifact_sha256", f"is {quoted(result.artifact_sha256)}, not a SHA-256 (64 hex digits)")
    reasons = result.invalid_reasons
    for i, reason in enumerate(reasons):
        if not reason or "\n" in reason or len(reason) > MAX_REASON:
            raise _FieldError(f"invalid_reasons[{i}]", f"is not one line of at most {MAX_REASON} characters")
    if result.valid and reasons:
        raise _FieldError("invalid_reasons", "is not empty but valid is true")
    if not result.valid and not reasons:
        raise _FieldError("invalid_reasons", "is empty but valid is false: an invalid run says why")
    if result.counted_steps < 0:
        raise _FieldError("counted_steps", f"is {result.counted_steps}, a negative count")
    if result.valid:
        reached = max((point.timesteps for point in result.curve), default=0)
        if result.counted_steps == 0:
            raise _FieldError("valid", "is true but counted_steps is 0: nothing was trained through the context")
        if reached > result.counted_steps:
            raise _FieldError(
                "valid", f"is true but the curve reaches {reached} timesteps, beyond the {result.counted_steps} counted"
            )
    validation, evaluation = result.validation, result.evaluation
    if (validation.seed, validation.deals) != (evaluation.seed, evaluation.deals):
        raise _FieldError(
            "validation",
            f"has seed {validation.seed} and {validation.deals} deals but evaluation has {evaluation.seed} and "
            f"{evaluation.deals}",
        )
    low, high = TEST_SEEDS
    if not low <= result.final.seed < high:
        raise _FieldError("final.seed", f"is {result.final.seed}, not a test seed ({low:,} .. {high - 1:,})")
    for i, entry in enumerate(result.heldout):
        if entry.deals != result.final.deals:
            raise _FieldError(f"heldout[{i}].deals", f"is {entry.deals} but the final has {result.final.deals}")
    opponents = [entry.opponent for entry in result.heldout]
    if len(set(opponents)) != len(opponents):
        raise _FieldError("heldout", f"names an opponent twice ({opponents})")
    provenance = result.provenance
    if provenance.git is not None and not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", provenance.git.commit):
        raise _FieldError("provenance.git.commit", f"is {quoted(provenance.git.commit)}, not a commit hash")
    for field in ("cores", "torch_threads"):
        value = getattr(provenance, field)
        if value is not None and value < 1:
            raise _FieldError(f"provenance.{field}", f"is {value}, not a count (1 or more)")


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
        "evaluation.seed": (evaluation.seed, task.validation_seed),
    }
    if result.format >= 2:
        expected["heldout"] = (tuple(entry.opponent for entry in result.heldout), task.heldout)
    for field, (stored, wanted) in expected.items():
        if stored != wanted:
            raise _FieldError(
                field, f"is {quoted(stored)} but {task.name} v{task.version} has {wanted!r} at fraction {fraction}"
            )
    try:
        task.check_fraction(fraction)
    except ValueError as error:
        raise _FieldError("budget_fraction", f"is {fraction!r}: {error}") from None


def _check_anchors(field: str, anchors: Anchors) -> None:
    if not anchors.reference > anchors.random:
        raise _FieldError(
            field, f"has the reference agent's score {anchors.reference} not above random's {anchors.random}"
        )


def _check_scores(result: Result) -> None:
    """Anchors that make a scale, intervals that hold their points, timesteps in order, and every
    normalised score equal to the one its score gives with its anchors: the file's ``reference``
    (format 1), or the anchors measured on its own deals (format 2: ``validation.anchors`` for the
    curve, ``final.anchors``, each held-out opponent's)."""
    _check_anchors("reference", result.reference)
    curve_anchors = result.reference
    final_anchors = result.reference
    points: list[tuple[str, Any, Anchors, str]] = []
    if result.format >= 2:
        _check_anchors("validation.anchors", result.validation.anchors)
        _check_anchors("final.anchors", result.final.anchors)
        if result.final.anchors != result.reference:
            raise _FieldError("reference", "is not final.anchors (format 2's reference is the final's anchors)")
        curve_anchors, final_anchors = result.validation.anchors, result.final.anchors
        for i, entry in enumerate(result.heldout):
            _check_anchors(f"heldout[{i}].anchors", entry.anchors)
            points.append((f"heldout[{i}]", entry, entry.anchors, f"heldout[{i}].anchors"))
    anchor_names = ("validation.anchors", "final.anchors") if result.format >= 2 else ("the file's anchors",) * 2
    points = (
        [(f"curve[{i}]", point, curve_anchors, anchor_names[0]) for i, point in enumerate(result.curve)]
        + [("final", result.final, final_anchors, anchor_names[1])]
        + points
    )
    for field, point, anchors, where in points:
        slack = 1e-9 * max(1.0, abs(point.score))
        if not point.low - slack <= point.score <= point.high + slack:
            raise _FieldError(field, f"has its score {point.score} outside its interval [{point.low}, {point.high}]")
        expected = anchors.normalize(point.score)
        if not math.isclose(point.normalized, expected, rel_tol=TOLERANCE, abs_tol=TOLERANCE):
            raise _FieldError(
                f"{field}.normalized",
                f"is {point.normalized} but its score {point.score} with {where} (random "
                f"{anchors.random}, reference {anchors.reference}) gives {expected:.6g}",
            )
    steps = [point.timesteps for point in result.curve]
    if any(step < 0 for step in steps):
        raise _FieldError("curve", "has a negative timestep")
    if steps != sorted(steps):
        raise _FieldError("curve", f"has its timesteps out of order ({steps})")
    seconds = [point.train_seconds for point in result.curve if point.train_seconds is not None]
    if any(second < 0 for second in seconds) or seconds != sorted(seconds):
        raise _FieldError("curve", f"has training times negative or out of order ({seconds})")


def _check_exact(result: Result) -> None:
    """``scoring`` and the exact scores: all of the curve, the final and the held-out scores exact
    (``"exact"``) or none (``"sampled"``, or no ``scoring``: a file written before it); exact only on
    a task scored exactly (its current version), which also says which it is; each exact score a
    score difference per deal (within [-2, 2]) normalised as its exact anchors give."""
    points = [(f"curve[{i}]", point) for i, point in enumerate(result.curve)] + [("final", result.final)]
    points += [(f"heldout[{i}]", entry) for i, entry in enumerate(result.heldout or ())]
    with_exact = [field for field, point in points if point.exact is not None]
    scoring, task = result.scoring, TASKS[result.task]
    if result.format == 1 and (scoring is not None or with_exact):
        raise _FieldError(with_exact[0] + ".exact" if with_exact else "scoring", "is a field of result format 2")
    if scoring not in (None, "exact", "sampled"):
        raise _FieldError("scoring", f'is {quoted(scoring)}, not "exact" or "sampled"')
    current = result.task_version == task.version
    if current and task.exact and result.format >= 2 and scoring is None:
        raise _FieldError("scoring", f"is missing ({task.name} v{task.version} results say how they were scored)")
    if scoring == "exact":
        if current and not task.exact:
            raise _FieldError("scoring", f'is "exact" but {task.name} v{task.version} is not scored exactly')
        missing = [field for field, point in points if point.exact is None]
        if missing:
            raise _FieldError(f"{missing[0]}.exact", 'is missing but scoring is "exact"')
    elif with_exact:
        raise _FieldError(f"{with_exact[0]}.exact", f"is present but scoring is {quoted(scoring or 'absent')}")
    for field, point in points:
        if point.exact is None:
            continue
        exact = point.exact
        if not -2.0 <= exact.score <= 2.0:
            raise _FieldError(f"{field}.exact.score", f"is {exact.score}, not a score difference per deal (-2 .. 2)")
        _check_anchors(f"{field}.exact.anchors", exact.anchors)
        expected = exact.anchors.normalize(exact.score)
        if not math.isclose(exact.normalized, expected, rel_tol=TOLERANCE, abs_tol=TOLERANCE):
            raise _FieldError(
                f"{field}.exact.normalized",
                f"is {exact.normalized} but its score {exact.score} with its anchors gives {expected:.6g}",
            )


def _check_exploitability(result: Result) -> None:
    """The exact exploitability: on every curve point and the final or on none (a run of a policy that
    does not decide in batches, or a file written before it), only on a task that has it, each within
    0 .. 2 per deal and normalised as its ``random`` gives."""
    points = [(f"curve[{i}]", point) for i, point in enumerate(result.curve)] + [("final", result.final)]
    present = [field for field, point in points if point.exploitability is not None]
    if not present:
        return
    task = TASKS[result.task]
    if result.task_version == task.version and not task.exploitability:
        raise _FieldError(f"{present[0]}.exploitability", f"is present but {task.name} v{task.version} has none")
    missing = [field for field, point in points if point.exploitability is None]
    if missing:
        raise _FieldError(f"{missing[0]}.exploitability", f"is missing but {present[0]} has one (all or none)")
    for field, point in points:
        measured = point.exploitability
        if not -TOLERANCE <= measured.per_deal <= 2.0:
            raise _FieldError(f"{field}.exploitability.per_deal", f"is {measured.per_deal}, not within 0 .. 2 per deal")
        if not measured.random > 0.0:
            raise _FieldError(f"{field}.exploitability.random", f"is {measured.random}, not above 0")
        expected = 1.0 - measured.per_deal / measured.random
        if not math.isclose(measured.normalized, expected, rel_tol=TOLERANCE, abs_tol=TOLERANCE):
            raise _FieldError(
                f"{field}.exploitability.normalized",
                f"is {measured.normalized} but its per_deal {measured.per_deal} with random {measured.random} "
                f"gives {expected:.6g}",
            )
