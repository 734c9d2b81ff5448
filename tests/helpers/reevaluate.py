"""``trash-bench evaluate RESULT --json`` in a fresh process: a kept policy loaded with nothing of the
test's process, as a user would run it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def evaluate_in_fresh_process(result: Path, timeout: float = 900) -> dict[str, Any]:
    """The command's JSON for ``result`` (a result file), asserting that it exited 0."""
    completed = subprocess.run(
        [sys.executable, "-m", "agents.commands.bench", "evaluate", str(result), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)
