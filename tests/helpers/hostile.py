"""Hostile and damaged files for the tests that check the package refuses them: a pickle payload
that leaves a marker file if anything unpickles it, and zips rewritten member by member."""

from __future__ import annotations

import base64
import pickle
import zipfile
from pathlib import Path
from typing import Any


class Payload:
    """Unpickling this writes ``marker``: what a crafted file could do instead."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (exec, (f"open({str(self.marker)!r}, 'w').write('ran')",))


def serialized_payload(marker: Path, kind: str = "<class 'object'>") -> dict[str, str]:
    """A payload as SB3 stores a pickled field of its ``data`` member: base64 under ``:serialized:``."""
    return {":type:": kind, ":serialized:": base64.b64encode(pickle.dumps(Payload(marker))).decode()}


def rewrite(source: Path, target: Path, members: dict[str, bytes | None]) -> Path:
    """A copy of the zip ``source`` with some members replaced (``None``: left out)."""
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(target, "w") as out:
        for item in archive.infolist():
            content = members.get(item.filename, archive.read(item.filename))
            if content is not None:
                out.writestr(item, content)
    return target
