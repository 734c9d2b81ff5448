"""The exploitability and cross-play files of a results folder (``exploit-TASK.json``, written by
:func:`agents.bench.twoplayer.exploit_runs`; ``crossplay-TASK.json``, by
:func:`agents.bench.crossplay.crossplay`), read and checked for the report (:mod:`agents.bench.report`):
a damaged or hostile file is refused in one line naming it, never half-read."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from trash_env.files import read_bounded

EXPLOIT_FORMAT = 1  # of exploit-TASK.json
CROSSPLAY_FORMAT = 1  # of crossplay-TASK.json
LIMIT = 1 << 24  # either file: 16 MiB at most
FILES = re.compile(r"(crossplay|exploit)-([a-z0-9-]+)\.json")


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{where} is {value!r}, not a number")
    return float(value)


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value or len(value) > 200:
        raise ValueError(f"{where} is {value!r}, not a name")
    return value


def _list(data: dict[str, Any], key: str, name: str) -> list[dict[str, Any]]:
    rows = data.get(key)
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        raise ValueError(f"{name}: {key} is not a list of objects")
    return rows


def check_exploit(data: Any, name: str) -> dict[str, Any]:
    """``data`` (an ``exploit-TASK.json``) if it is one: a one-line ValueError naming ``name`` otherwise."""
    if not isinstance(data, dict) or data.get("format") != EXPLOIT_FORMAT:
        raise ValueError(f"{name} is not an exploitability file of format {EXPLOIT_FORMAT}")
    if data.get("kind") not in ("exact", "bound"):
        raise ValueError(f"{name}: kind is {data.get('kind')!r}, not 'exact' or 'bound'")
    for i, row in enumerate(_list(data, "runs", name)):
        for key in ("run", "algorithm"):
            _text(row.get(key), f"{name}: runs[{i}].{key}")
        value = _number(row.get("exploitability"), f"{name}: runs[{i}].exploitability")
        if not -2.0 <= value <= 2.0:
            raise ValueError(f"{name}: runs[{i}].exploitability is {value}, outside [-2, 2]")
        if data["kind"] == "bound":
            low, high = (_number(row.get(k), f"{name}: runs[{i}].{k}") for k in ("low", "high"))
            if not low <= value <= high:
                raise ValueError(f"{name}: runs[{i}] has its interval [{low}, {high}] not around {value}")
    return data


def check_crossplay(data: Any, name: str) -> dict[str, Any]:
    """``data`` (a ``crossplay-TASK.json``) if it is one: a one-line ValueError naming ``name`` otherwise."""
    if not isinstance(data, dict) or data.get("format") != CROSSPLAY_FORMAT:
        raise ValueError(f"{name} is not a cross-play file of format {CROSSPLAY_FORMAT}")
    kinds = {}
    for i, entry in enumerate(_list(data, "entries", name)):
        kinds[_text(entry.get("name"), f"{name}: entries[{i}].name")] = entry
        if entry.get("kind") == "run":
            _text(entry.get("algorithm"), f"{name}: entries[{i}].algorithm")
        elif entry.get("kind") != "baseline":
            raise ValueError(f"{name}: entries[{i}].kind is {entry.get('kind')!r}, not 'run' or 'baseline'")
    for i, row in enumerate(_list(data, "ratings", name)):
        if _text(row.get("agent"), f"{name}: ratings[{i}].agent") not in kinds:
            raise ValueError(f"{name}: ratings[{i}] rates {row['agent']!r}, which is not an entry")
        low, mean, high = (_number(row.get(k), f"{name}: ratings[{i}].{k}") for k in ("low", "mean", "high"))
        if not low <= mean <= high:
            raise ValueError(f"{name}: ratings[{i}] has its interval [{low}, {high}] not around {mean}")
    return data


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
        data = (check_exploit if kind == "exploit" else check_crossplay)(data, str(path))
        if data.get("task") != task or isinstance(data.get("task_version"), bool):
            raise ValueError(f"{path} is named for task {task} but holds {data.get('task')!r}")
        version = data.get("task_version")
        if not isinstance(version, int):
            raise ValueError(f"{path}: task_version is {version!r}, not a number")
        found.setdefault((task, version), {})[kind] = data
    return found
