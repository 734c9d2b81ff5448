"""A results folder: where every file of the benchmark goes, reading result files back, and scanning a
folder. The one place the layout is written; :mod:`agents.bench.results` says what a result file may
hold, this module where it lies.

The layout (:data:`LAYOUT`): a run's result file is ``RESULTS/TASK/ALGORITHM/seed_N.json`` at the full
budget and ``RESULTS/TASK/ALGORITHM/fraction_F/seed_N.json`` at a fraction ``F`` of it
(:func:`result_location`); its final policy lies beside it, ``seed_N.policy.zip`` (``.npz``, ``.json``:
:func:`artifact_location`); a folder's exploitability and cross-play measurements are
``exploit-TASK.json`` and ``crossplay-TASK.json`` (with ``.md`` and ``.png``) at its top
(:func:`exploit_name`, :func:`crossplay_names`). A file still being written has ``.partial`` in its
name and is never read.

Reading (:func:`read`, :func:`read_result`, :func:`scan`, :func:`load_results`) checks each file
completely: what it holds (:func:`agents.bench.results.check`) and that it lies where its task,
algorithm, budget fraction and seed say it goes (:func:`check_location`); a bad file is a ValueError
naming it, the field and what is wrong.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from agents.bench import results as schema
from trash_env.files import PARTIAL_MARK, read_bounded

LAYOUT = "RESULTS/TASK/ALGORITHM/seed_N.json, or RESULTS/TASK/ALGORITHM/fraction_F/seed_N.json"
ARTIFACT_SUFFIXES = (".zip", ".npz", ".json")  # a policy file (SB3), a LinearAgent's arrays, a baseline's spec
ARTIFACT_MARK = ".policy"  # seed_N.policy.zip beside seed_N.json: never read as a result file
MAX_BYTES = 1_000_000  # a result file is a few kB: anything larger is refused before it is read


# ---------------------------------------------------------------------- where each file goes


def fraction_folder(fraction: float) -> str | None:
    """The folder of a run's budget fraction below its algorithm's (``fraction_0.01``: the fraction as
    Python writes the float), or None for the full budget (no folder)."""
    return None if float(fraction) == 1.0 else f"fraction_{float(fraction)!r}"


def result_location(results: Path, task: Any, algorithm: str, seed: int, fraction: float = 1.0) -> Path:
    """Where the result file of a run goes: ``RESULTS/TASK/ALGORITHM/seed_N.json`` at the full
    budget, ``RESULTS/TASK/ALGORITHM/fraction_F/seed_N.json`` at a fraction ``F`` of it (``task``: a
    :class:`~agents.bench.tasks.Task` or its name)."""
    folder = Path(results) / getattr(task, "name", task) / algorithm
    extra = fraction_folder(fraction)
    return (folder / extra if extra else folder) / f"seed_{seed}.json"


def artifact_location(path: Path, suffix: str) -> Path:
    """The final policy's file beside the result file ``path``: ``seed_N.policy.zip`` for ``seed_N.json``."""
    if suffix not in ARTIFACT_SUFFIXES:
        raise ValueError(f"a policy artifact is a {', '.join(ARTIFACT_SUFFIXES)} file, not {suffix!r}")
    return Path(path).with_name(f"{Path(path).stem}{ARTIFACT_MARK}{suffix}")


def exploit_name(task: Any) -> str:
    """The exploitability file of ``task`` (a :class:`~agents.bench.tasks.Task`) in a results folder."""
    return f"exploit-{task.name}.json"


def crossplay_names(task: Any) -> dict[str, str]:
    """The files cross-play writes for ``task``: ``crossplay-TASK.json``, ``.md`` and ``.png``."""
    return {kind: f"crossplay-{task.name}.{kind}" for kind in ("json", "md", "png")}


def in_place(parts: tuple[str, ...]) -> bool:
    """Whether a file's path below the results folder is a result file's place: ``TASK/ALGORITHM/
    seed_N.json`` or ``TASK/ALGORITHM/fraction_F/seed_N.json``."""
    return len(parts) == 3 or (len(parts) == 4 and parts[2].startswith("fraction_"))


# ---------------------------------------------------------------------- reading and checking


def check_location(result: schema.Result, path: Path) -> None:
    """A ValueError ``PATH: FIELD WHAT`` unless the file lies where its fields say it goes: its task,
    algorithm, budget fraction and seed are its folders' and its name's (format 1 had no fraction
    folders: its files are ``TASK/ALGORITHM/seed_N.json`` at any fraction), and its policy (format 2's
    ``artifact``) is named for the file, beside it."""
    path = Path(path)

    def refuse(field: str, problem: str) -> None:
        raise ValueError(f"{path}: {field} {problem}")

    extra = fraction_folder(result.budget_fraction) if result.format >= 2 else None
    algorithm_folder = path.parent
    if extra is not None:
        if path.parent.name != extra:
            refuse(
                "budget_fraction",
                f"is {result.budget_fraction!r} but the file is in the folder {schema.quoted(path.parent.name)}, "
                f"not {extra}",
            )
        algorithm_folder = path.parent.parent
    elif path.parent.name.startswith("fraction_"):
        refuse(
            "budget_fraction",
            f"is {result.budget_fraction!r} but the file is in the folder {schema.quoted(path.parent.name)} "
            "(a full-budget run has no fraction folder)",
        )
    for field, folder in {"task": algorithm_folder.parent.name, "algorithm": algorithm_folder.name}.items():
        if getattr(result, field) != folder:
            shown = schema.quoted(getattr(result, field))
            refuse(field, f"is {shown} but the file is in the folder {schema.quoted(folder)}")
    if path.name != f"seed_{result.seed}.json":
        refuse("seed", f"is {result.seed} but the file is {path.name}, not seed_{result.seed}.json")
    if result.format >= 2:
        names = {artifact_location(path, suffix).name for suffix in ARTIFACT_SUFFIXES}
        if result.artifact not in names:
            refuse("artifact", f"is {schema.quoted(result.artifact)}, not one of {sorted(names)} (beside the file)")


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def kept_policy(path: Path, result: schema.Result) -> Path:
    """The policy file the run of the result file ``path`` kept, beside it: a ValueError naming the
    result if there is none, or if it is not the file the run kept (its SHA-256 differs from the
    result's ``artifact_sha256``; results written before that field are taken as they are)."""
    if result.artifact is None:
        raise ValueError(f"{path}: a format-{result.format} result keeps no policy")
    artifact = Path(path).with_name(result.artifact)
    if not artifact.is_file():
        raise ValueError(f"{path}: its policy {artifact.name} is not beside it")
    if result.artifact_sha256 is not None and file_sha256(artifact) != result.artifact_sha256:
        raise ValueError(
            f"{path}: its policy {artifact.name} is not the one the run kept (its SHA-256 differs from the "
            "result's artifact_sha256): refused"
        )
    return artifact


def check(data: Any, path: Path) -> schema.Result:
    """``data`` (a parsed result file) as a :class:`~agents.bench.results.Result`, if it is a valid
    result (:func:`agents.bench.results.check`) of the run its ``path`` names (:func:`check_location`);
    else a ValueError ``PATH: FIELD WHAT``. What every reader checks, and what a run checks before it
    writes its file."""
    result = schema.check(data, path)
    check_location(result, path)
    return result


def read(path: Path) -> schema.Result:
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


def read_result(path: Path) -> schema.Result | None:
    """The finished run whose file is ``path``, checked (:func:`read`); None if there is no file; a
    ValueError naming the file and what is wrong if it is bad."""
    if not Path(path).exists():
        return None
    return read(path)


def scan(results: Path) -> tuple[dict[Path, schema.Result], dict[Path, str]]:
    """Every result file under ``results`` (``seed_*.json``; never a file still being written, whose
    name has ``.partial``, nor a policy artifact, ``seed_N.policy.json``), checked: the good ones, and
    for each bad one a line naming it and what is wrong (one at another place than :data:`LAYOUT`
    included)."""
    root = Path(results)
    good: dict[Path, schema.Result] = {}
    bad: dict[Path, str] = {}
    for path in sorted(root.rglob("seed_*.json")):
        if PARTIAL_MARK in path.name or ARTIFACT_MARK in path.name:
            continue
        try:
            if not in_place(path.relative_to(root).parts):
                raise ValueError(f"{path}: not where a result file goes ({LAYOUT})")
            good[path] = read(path)
        except ValueError as error:
            bad[path] = str(error)
    return good, bad


def load_results(results: Path) -> list[schema.Result]:
    """Every finished result file under ``results``, checked (:func:`scan`); a folder with a bad one
    is a :class:`agents.bench.results.BadResultsError` naming each."""
    good, bad = scan(results)
    if bad:
        raise schema.BadResultsError(results, list(bad.values()))
    return list(good.values())
