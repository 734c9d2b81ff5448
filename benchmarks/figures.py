"""The figures a speed script measured, written as JSON for the tables generated from them
(``scripts/readme_tables.py``: the README's headline figures), with the machine they came from."""

from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository, for agents
from agents.bench.provenance import machine


def write_figures(path: Path | None, figures: dict[str, Any]) -> None:
    """``figures`` (with the machine and the date) as JSON at ``path``; nothing when ``path`` is None."""
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"figures": figures, "machine": machine(), "date": datetime.date.today().isoformat()}
    path.write_text(json.dumps(data, indent=2) + "\n")
    print(f"wrote {path}")
