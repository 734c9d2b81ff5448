"""Files written so that a stop never leaves one half-written.

Every file the package writes (policy files, run histories, evaluation JSON,
CSV and plots, game records) goes through :func:`atomic_path`: the content is
written to a temporary file beside the target and renamed over it in one step
(``os.replace``), so the target holds either its old content or the new one,
never a part. Temporary files still being written are remembered, so that a
process told to exit at once (a second Ctrl-C, :mod:`agents.arguments`) can
remove them first with :func:`remove_partial_files`.

Files the package *reads* that may come from someone else (policy files, RLlib weights) are read
with bounds: :func:`read_bounded` refuses a file over a size limit before reading it, and
:func:`open_zip` opens a zip only once its end record shows it whole (a zip cut short is said to be
cut short, not mistaken for a zip stored inside it) and its member count is small, while
:func:`read_zip_member` refuses a member whose declared size is over a limit before reading any of
it, and stops reading at the limit (a declared size can lie). Each refusal is a one-line
``ValueError`` naming the file.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import stat
import struct
import zipfile
import zlib
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


# ---------------------------------------------------------------------- reading with bounds

ZIP_MEMBERS_LIMIT = 1024  # a policy file has 7 members, an RLlib weights.npz one per tensor
# The zip end records (APPNOTE 4.3.14-16): signature, disk numbers, member counts (this disk, all),
# the directory's size and offset, then the comment's length (end record) or the record's own fields.
_ZIP_END = struct.Struct("<4s4H2LH")
_ZIP64_LOCATOR = struct.Struct("<4sLQL")
_ZIP64_END = struct.Struct("<4sQ2H2L4Q")


def _file_problem(path: Path) -> str | None:
    """Why ``path`` cannot be read as a regular file (missing, a folder, a pipe that would block the
    reader), or None."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        return str(error.strerror or error)
    return None if stat.S_ISREG(mode) else "it is not a regular file"


def read_bounded(path: str | Path, limit: int) -> bytes:
    """The content of the file ``path``; a ``ValueError`` naming it if it is over ``limit`` bytes,
    checked from its size before reading and again while reading (a file still growing)."""
    path = Path(path)
    problem = _file_problem(path)
    try:
        if problem is not None:
            raise OSError(problem)
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            data = handle.read(limit + 1) if size <= limit else b""
    except OSError as error:
        raise ValueError(f"{path} cannot be read: {error.strerror or error}") from None
    if size > limit or len(data) > limit:
        raise ValueError(f"{path} is {max(size, len(data)):,} bytes, over the limit of {limit:,}; it was not read")
    return data


def _zip_directory(handle: Any, size: int) -> tuple[int, int, int, int] | None:
    """From the end record that ends the file exactly (its comment reaching the last byte): the
    member count, the directory's offset and size, and where the directory must end (the end record,
    or the zip64 end record before it). None when the file has no such end, as a zip cut short."""
    start = max(0, size - _ZIP_END.size - 0xFFFF)
    handle.seek(start)
    tail = handle.read()
    position = tail.rfind(b"PK\x05\x06")
    while position >= 0:
        fields = _ZIP_END.unpack_from(tail, position) if position + _ZIP_END.size <= len(tail) else None
        if fields is not None and position + _ZIP_END.size + fields[-1] == len(tail):
            break
        position = tail.rfind(b"PK\x05\x06", 0, position)
    else:
        return None
    end = start + position
    members, directory_size, directory_offset = fields[4], fields[5], fields[6]
    if end >= _ZIP64_LOCATOR.size:
        handle.seek(end - _ZIP64_LOCATOR.size)
        locator = handle.read(_ZIP64_LOCATOR.size)
        if locator[:4] == b"PK\x06\x07":
            record = end - _ZIP64_LOCATOR.size - _ZIP64_END.size
            handle.seek(max(record, 0))
            raw = handle.read(_ZIP64_END.size)
            if record < 0 or len(raw) < _ZIP64_END.size or raw[:4] != b"PK\x06\x06":
                return None
            fields = _ZIP64_END.unpack(raw)
            members, directory_size, directory_offset, end = fields[7], fields[8], fields[9], record
    return members, directory_offset, directory_size, end


@contextlib.contextmanager
def open_zip(
    path: str | Path, max_members: int = ZIP_MEMBERS_LIMIT, kind: str = "zip file"
) -> Iterator[zipfile.ZipFile]:
    """The zip archive at ``path``, opened for reading once it is known whole: it ends with the zip's
    end record, whose directory ends right there (a file cut short otherwise finds the end record of
    a zip stored inside it, and seems to lack members it had), and it has at most ``max_members``
    members (its directory is parsed whole on opening). Otherwise a ``ValueError``: ``PATH is not a
    readable KIND: what is wrong``."""
    path = Path(path)
    refusal = f"{path} is not a readable {kind}"
    problem = _file_problem(path)
    try:
        if problem is not None:
            raise OSError(problem)
        handle = open(path, "rb")  # noqa: SIM115 - closed by the with below
    except OSError as error:
        raise ValueError(f"{refusal}: {error.strerror or error}") from None
    with handle:
        size = os.fstat(handle.fileno()).st_size
        handle.seek(0)
        starts_as_zip = handle.read(4) == b"PK\x03\x04"
        directory = _zip_directory(handle, size)
        if directory is None or directory[1] + directory[2] != directory[3]:
            if starts_as_zip:
                raise ValueError(f"{refusal}: it is cut short or damaged (the zip's directory at its end is missing)")
            raise ValueError(f"{refusal}: it is not a zip file")
        if directory[0] > max_members:
            raise ValueError(f"{refusal}: it has {directory[0]:,} zip members, more than the {max_members:,} allowed")
        try:
            archive = zipfile.ZipFile(handle)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, struct.error) as error:
            raise ValueError(f"{refusal}: it is a damaged zip ({error})") from None
        with archive:
            yield archive


def read_zip_member(archive: zipfile.ZipFile, name: str, limit: int, source: str | Path) -> bytes:
    """The member ``name`` of ``archive`` (the file ``source``), at most ``limit`` bytes: refused from
    its declared size before any of it is read, and reading stops past ``limit`` whatever the size
    said. A ``ValueError`` naming ``source`` and the member if it is missing, too large or damaged
    (a wrong checksum, a broken compressed stream)."""
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise ValueError(f"{source} has no member {name}") from None
    if info.file_size > limit:
        raise ValueError(f"{source}: its {name} is {info.file_size:,} bytes, over the limit of {limit:,}; not read")
    try:
        with archive.open(info) as stream:
            data = stream.read(limit + 1)
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error, NotImplementedError, RuntimeError) as error:
        raise ValueError(f"{source}: its {name} is damaged ({error})") from None
    if len(data) > limit:
        raise ValueError(f"{source}: its {name} holds more than {limit:,} bytes, over the limit; not read")
    return data
