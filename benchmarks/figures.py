"""The figures a speed script measured, written as JSON for the tables generated from them
(``scripts/readme_tables.py``: the README's headline figures), with the machine they came from."""

from __future__ import annotations

import datetime
import json
import os
import platform
from importlib import metadata
from pathlib import Path
from typing import Any


def machine() -> dict[str, Any]:
    """What the figures depend on besides the code: the processor, its cores and the library versions."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {}
    for package in ("numpy", "numba", "torch", "stable-baselines3", "sb3-contrib", "pettingzoo", "gymnasium"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(), "versions": versions}


def write_figures(path: Path | None, figures: dict[str, Any]) -> None:
    """``figures`` (with the machine and the date) as JSON at ``path``; nothing when ``path`` is None."""
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"figures": figures, "machine": machine(), "date": datetime.date.today().isoformat()}
    path.write_text(json.dumps(data, indent=2) + "\n")
    print(f"wrote {path}")
