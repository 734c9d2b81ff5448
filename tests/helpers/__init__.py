"""Helpers shared by the tests: stacked decks (:mod:`helpers.decks`), random play of AEC envs
(:mod:`helpers.aec_play`) and tiny training runs (:mod:`helpers.tiny_training`)."""

from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]  # the repository


def run_python(code: str, env: dict[str, str] | None = None, timeout: float = 120) -> Any:
    """``python -c code`` from the repository, with ``env`` on top of this process's environment
    (Numba's JIT off, a blocked import ...); its output captured as text."""
    import os
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
