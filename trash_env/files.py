"""Files written so that a stop never leaves one half-written.

Every file the package writes (policy files, run histories, evaluation JSON,
CSV and plots, game records) goes through :func:`atomic_path`: the content is
written to a temporary file beside the target and renamed over it in one step
(``os.replace``), so the target holds either its old content or the new one,
never a part. Temporary files still being written are remembered, so that a
process told to exit at once (a second Ctrl-C, :mod:`agents.arguments`) can
remove them first with :func:`remove_partial_files`.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

PARTIAL_MARK = ".partial"
_in_progress: set[Path] = set()


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path to write ``path``'s new content to; renamed over ``path`` when the
    block ends without an error, removed otherwise. Parent folders are created. The
    temporary name keeps the suffix (``run.partial.png``), so writers that choose a format
    by suffix (matplotlib, SB3's ``.zip``) write the right one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.stem}{PARTIAL_MARK}-{os.getpid()}{path.suffix}")
    _in_progress.add(partial)
    try:
        yield partial
        os.replace(partial, path)
    finally:
        _in_progress.discard(partial)
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()


@contextlib.contextmanager
def atomic_folder(path: str | Path) -> Iterator[Path]:
    """:func:`atomic_path` for a folder (an RLlib checkpoint): filled under a temporary name, then
    put in place by renames, so ``path`` is never seen half-written; an old folder at ``path`` is
    replaced."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}{PARTIAL_MARK}-{os.getpid()}")
    old = path.with_name(f"{path.name}.old-{os.getpid()}")
    _in_progress.add(partial)
    try:
        yield partial
        if path.exists():
            os.replace(path, old)
        os.replace(partial, path)
    finally:
        _in_progress.discard(partial)
        for leftover in (partial, old):
            shutil.rmtree(leftover, ignore_errors=True)


def write_text(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically."""
    with atomic_path(path) as partial:
        partial.write_text(text)


def write_json(path: str | Path, data: Any, indent: int | None = 2) -> None:
    """Write ``data`` as strict JSON to ``path`` atomically. Strict JSON has no NaN or infinity, so
    every non-finite float, however deep in dicts, lists and tuples, is written as null (the
    unbounded interval of a single deal or seed, a mean of nothing): the one place that does it."""
    write_text(path, json.dumps(_finite(data), indent=indent, allow_nan=False))


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float in it replaced by None (JSON's null)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def remove_partial_files() -> None:
    """Remove the temporary files of writes still in progress (before an immediate exit)."""
    for partial in list(_in_progress):
        if partial.is_dir():
            shutil.rmtree(partial, ignore_errors=True)
        with contextlib.suppress(OSError):
            partial.unlink()


def check_output_path(flag: str, path: str | Path | None) -> None:
    """A ``ValueError`` naming ``flag`` if ``path`` cannot be written as a file: it is a
    folder, or a parent of it is a file. Checked before any work, so that a run does not
    fail at its very end."""
    if path is None:
        return
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{flag} {str(path)!r} is a folder; give a file name")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ValueError(f"{flag} {str(path)!r}: {str(parent)!r} is a file, not a folder")
            if not os.access(parent, os.W_OK):
                raise ValueError(f"{flag} {str(path)!r}: the folder {str(parent)!r} is not writable")
            return
