"""Cache files of plain arrays: what the package computes once and keeps (the solved Help Your
Neighbor, the reduced Trash's game tree), in ``$TRASH_RL_CACHE`` or ``~/.cache/trash-rl``.

A cache file is an npz archive of plain arrays (never pickled) with the sha256 of their content
(:data:`HASH`), written atomically (:func:`write_cached`). On the way back in (:func:`read_cached`)
every member's size, dtype and shape is checked before its data is read, the members are exactly
the layout's, and the hash must match, so a damaged, truncated, edited or foreign file is a
:class:`CacheError` saying what is wrong (its callers then say so in one line and compute the
content again), never used.
"""

from __future__ import annotations

import hashlib
import math
import os
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from trash_env.files import atomic_path

HASH = "sha256"  # the file's array holding the content hash of all the others
HEADER_BYTES = 4096  # an array's npy header is about 128 bytes: a member may hold this much beyond its data

Layout = dict[str, tuple[np.dtype, tuple[int, ...]]]  # every array's dtype and shape


class CacheError(ValueError):
    """What is wrong with a cache file, said as the end of a sentence naming it."""


def cache_folder() -> Path:
    """``$TRASH_RL_CACHE`` or ``~/.cache/trash-rl``."""
    return Path(os.environ.get("TRASH_RL_CACHE") or Path.home() / ".cache" / "trash-rl")


def content_hash(arrays: dict[str, np.ndarray]) -> str:
    """The sha256 of the arrays' names, dtypes, shapes and bytes, in name order (the hash kept in the
    file: any change of a stored array after it was written shows)."""
    digest = hashlib.sha256()
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}:{array.dtype.str}:{array.shape};".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def write_cached(path: str | Path, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` and their hash to ``path`` atomically: a reader sees the old file or the new
    one, never a part; an ``OSError`` if it cannot be written."""
    with atomic_path(path) as partial:
        np.savez(partial, **arrays, **{HASH: np.array(content_hash(arrays))})


def read_member(archive: zipfile.ZipFile, name: str, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """The array ``name`` of an npz archive, its size, dtype and shape checked before its data is read
    (a header claiming a huge shape allocates nothing); never unpickled."""
    info = archive.getinfo(f"{name}.npy")
    limit = HEADER_BYTES + dtype.itemsize * math.prod(shape)
    if info.file_size > limit:
        raise CacheError(f"holds {info.file_size:,} bytes for {name!r}, which takes at most {limit:,}")
    with archive.open(info) as member:
        version = np.lib.format.read_magic(member)
        if version not in ((1, 0), (2, 0)):
            raise CacheError(f"holds {name!r} in npy format {version}, not 1.0 or 2.0")
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        found_shape, _, found_dtype = read_header(member)
    if found_dtype != dtype or found_shape != shape:
        raise CacheError(f"holds {name!r} as {found_dtype} of shape {found_shape}, not {dtype} of shape {shape}")
    with archive.open(info) as member:
        return np.lib.format.read_array(member, allow_pickle=False)


def read_cached(
    path: Path, layout_of: Callable[[Callable[..., np.ndarray], list[str]], Layout], writer: str
) -> dict[str, np.ndarray]:
    """The arrays of the cache file at ``path``, each as its layout says, and their hash matching: a
    :class:`CacheError` saying what is wrong otherwise. ``layout_of(read, names)`` gives the layout
    (``read(name, dtype, shape)`` reads one member checked: a version or the sizes the layout
    depends on; ``names``: the archive's member names); ``writer`` names what writes such files."""
    if not path.is_file():
        raise CacheError("is not a regular file")
    if path.stat().st_size == 0:
        raise CacheError("is empty")
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            layout = {**layout_of(lambda *spec: read_member(archive, *spec), names), HASH: (np.dtype("<U64"), ())}
            stored = {name.removesuffix(".npy") for name in names}
            missing, unknown = sorted(set(layout) - stored), sorted(stored - set(layout))
            if missing or unknown:
                lacks = f"lacks the arrays {', '.join(missing)}" if missing else ""
                holds = f"holds arrays no {writer} writes: {', '.join(unknown)}" if unknown else ""
                raise CacheError(" and ".join(part for part in (lacks, holds) if part))
            arrays = {name: read_member(archive, name, *spec) for name, spec in layout.items()}
    except CacheError:
        raise
    except Exception as error:  # a damaged archive makes zipfile and numpy raise many kinds of error
        raise CacheError(f"cannot be read as an npz archive ({type(error).__name__}: {error})") from error
    stored_hash = str(arrays.pop(HASH))
    if stored_hash != content_hash(arrays):
        raise CacheError("does not match its content hash (changed or damaged after it was written)")
    return arrays
