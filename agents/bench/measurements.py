"""The exploitability and cross-play files of a results folder (``exploit-TASK.json``, written by
:func:`agents.bench.twoplayer.exploit_runs`; ``crossplay-TASK.json``, by
:func:`agents.bench.crossplay.crossplay`), read and checked for the report (:mod:`agents.bench.report`):
their fields by pydantic (:class:`ExploitFile`, :class:`CrossplayFile`), what relates them here; a
damaged or hostile file is refused in one line naming it, never half-read."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from trash_env.files import read_bounded
from trash_env.schema import Integer, Number, first_problem

EXPLOIT_FORMAT = 1  # of exploit-TASK.json
CROSSPLAY_FORMAT = 1  # of crossplay-TASK.json
LIMIT = 1 << 24  # either file: 16 MiB at most
FILES = re.compile(r"(crossplay|exploit)-([a-z0-9-]+)\.json")

Name = Annotated[str, Field(strict=True, min_length=1, max_length=200)]


class _Part(BaseModel):
    """A part of either file: the fields the report reads, checked; others (what the writer adds for
    people: the policy's file, the deals) are kept as they are."""

    model_config = ConfigDict(extra="allow", frozen=True)


class ExploitRun(_Part):
    """One run's exploitability: exact, or a lower bound with its 95% interval."""

    run: Name
    algorithm: Name
    exploitability: Annotated[Number, Field(ge=-2.0, le=2.0)]
    low: Number | None = None
    high: Number | None = None


class ExploitFile(_Part):
    """``exploit-TASK.json``."""

    format: Literal[1]
    task: Name
    task_version: Integer
    kind: Literal["exact", "bound"]
    runs: list[ExploitRun]


class CrossplayEntry(_Part):
    """A player of the cross-play: a kept run's policy (with its algorithm) or a baseline."""

    name: Name
    kind: Literal["run", "baseline"]
    algorithm: Name | None = None


class Rating(_Part):
    """An entry's rating with its interval."""

    agent: Name
    low: Number
    mean: Number
    high: Number


class Cell(_Part):
    """A pair's score in the matrix: the row's mean score difference per deal and its interval."""

    mean: Number
    low: Number
    high: Number


class CrossplayFile(_Part):
    """``crossplay-TASK.json``."""

    format: Literal[1]
    task: Name
    task_version: Integer
    entries: list[CrossplayEntry]
    agents: list[Name]
    matrix: list[list[Cell | None]]
    ratings: list[Rating]


def _validated(model: type[BaseModel], data: Any, name: str, what: str) -> Any:
    """``data`` as ``model``: a one-line ValueError naming ``name`` and the first field that is wrong."""
    if not isinstance(data, dict) or data.get("format") != 1:
        raise ValueError(f"{name} is not {what} of format 1")
    try:
        return model.model_validate(data)
    except ValidationError as error:
        problem = first_problem(error)
    if problem.missing:
        raise ValueError(f"{name}: {problem.field} is missing")
    if problem.kind == "list_type":
        raise ValueError(f"{name}: {problem.field} is not a list of objects")
    if problem.kind == "literal_error":
        expected = problem.message.removeprefix("Input should be ")
        raise ValueError(f"{name}: {problem.field} is {problem.value!r}, not {expected}")
    if problem.kind in ("greater_than_equal", "less_than_equal"):
        raise ValueError(f"{name}: {problem.field} is {problem.value}, outside [-2, 2]")
    if problem.kind in ("float_type", "finite_number", "int_type"):
        raise ValueError(f"{name}: {problem.field} is {problem.value!r}, not a number")
    raise ValueError(f"{name}: {problem.field} is {problem.value!r}, not a name ({problem.message.lower()})")


EXACT_TOLERANCE = 1e-6  # how far below 0 an exact exploitability may be (rounding): it is never negative


def _unique(names: list[str], where: str) -> None:
    seen: set[str] = set()
    for i, item in enumerate(names):
        if item in seen:
            raise ValueError(f"{where}[{i}] names {item!r} again")
        seen.add(item)


def _of_a_run(run: str, algorithm: str | None, runs: set[str] | None, where: str) -> None:
    """A row of a run: the run is one of the folder's (``runs``: ``ALGORITHM[/fraction_F]/seed_N``; None:
    not checked) and its algorithm the run's."""
    if runs is not None and run not in runs:
        raise ValueError(f"{where} is {run!r}, which is not a run of the results folder")
    if algorithm is not None and run.split("/")[0] != algorithm:
        raise ValueError(f"{where} is {run!r}, not a run of its algorithm {algorithm!r}")


def check_exploit(data: Any, name: str, runs: set[str] | None = None) -> dict[str, Any]:
    """``data`` (an ``exploit-TASK.json``) if it is one: a one-line ValueError naming ``name`` otherwise
    (``runs``: the runs of the task in the folder, which its rows must be)."""
    file = _validated(ExploitFile, data, name, "an exploitability file")
    _unique([row.run for row in file.runs], f"{name}: runs")
    for i, row in enumerate(file.runs):
        _of_a_run(row.run, row.algorithm, runs, f"{name}: runs[{i}].run")
        if file.kind == "exact" and row.exploitability < -EXACT_TOLERANCE:
            raise ValueError(f"{name}: runs[{i}].exploitability is {row.exploitability}, below 0: never exact")
        if file.kind == "bound":
            if row.low is None or row.high is None:
                raise ValueError(f"{name}: runs[{i}] is a bound without its interval (low, high)")
            if not row.low <= row.exploitability <= row.high:
                interval = f"[{row.low}, {row.high}]"
                raise ValueError(f"{name}: runs[{i}] has its interval {interval} not around {row.exploitability}")
    return data


def check_crossplay(data: Any, name: str, runs: set[str] | None = None) -> dict[str, Any]:
    """``data`` (a ``crossplay-TASK.json``) if it is one: a one-line ValueError naming ``name`` otherwise
    (``runs``: the runs of the task in the folder, which its run entries must be)."""
    file = _validated(CrossplayFile, data, name, "a cross-play file")
    _unique([entry.name for entry in file.entries], f"{name}: entries")
    _unique([row.agent for row in file.ratings], f"{name}: ratings")
    for i, entry in enumerate(file.entries):
        if entry.kind == "run" and entry.algorithm is None:
            raise ValueError(f"{name}: entries[{i}] is a run without its algorithm")
        if entry.kind == "run":
            _of_a_run(entry.name, entry.algorithm, runs, f"{name}: entries[{i}].name")
    names = {entry.name for entry in file.entries}
    if sorted(file.agents) != sorted(names):
        raise ValueError(f"{name}: agents are not the entries' names")
    size = len(file.agents)
    if len(file.matrix) != size or any(len(line) != size for line in file.matrix):
        raise ValueError(f"{name}: matrix is not {size} x {size}, one row and column per agent")
    for i, row in enumerate(file.ratings):
        if row.agent not in names:
            raise ValueError(f"{name}: ratings[{i}] rates {row.agent!r}, which is not an entry")
        if not row.low <= row.mean <= row.high:
            raise ValueError(f"{name}: ratings[{i}] has its interval [{row.low}, {row.high}] not around {row.mean}")
    return data


def runs_of(results: Path, task: str) -> set[str]:
    """The runs of ``task`` in the results folder, as the two files name them: ``ALGORITHM[/fraction_F]/seed_N``."""
    folder = Path(results) / task
    return {path.relative_to(folder).with_suffix("").as_posix() for path in folder.glob("**/seed_*.json")}


def load_measurements(results: Path) -> dict[tuple[str, int], dict[str, dict[str, Any]]]:
    """The exploitability and cross-play files at the top of ``results``, checked, by (task, task
    version): ``{"exploit": ..., "crossplay": ...}`` (either may be missing)."""
    from agents.learned import parse_json

    found: dict[tuple[str, int], dict[str, dict[str, Any]]] = {}
    for path in sorted(Path(results).glob("*-*.json")):
        match = FILES.fullmatch(path.name)
        if match is None:
            continue
        kind, task = match.groups()
        data = parse_json(read_bounded(path, LIMIT), str(path))
        runs = runs_of(results, task)
        data = (check_exploit if kind == "exploit" else check_crossplay)(data, str(path), runs)
        if data["task"] != task:
            raise ValueError(f"{path} is named for task {task} but holds {data['task']!r}")
        found.setdefault((task, data["task_version"]), {})[kind] = data
    return found
