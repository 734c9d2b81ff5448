"""Helpers shared by the tests: stacked decks (:mod:`helpers.decks`), random play of AEC envs
(:mod:`helpers.aec_play`) and tiny training runs (:mod:`helpers.tiny_training`)."""

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from trash_env import extras

ROOT = Path(__file__).resolve().parents[2]  # the repository

# The optional packages of the extras (pyproject.toml), by the name they are imported under: the
# package's own map, and the test tools of the dev extra.
EXTRA_OF_MODULE = {**extras.EXTRA_OF_MODULE, "playwright": "dev", "httpx": "dev"}


NEEDS_EXTRA = re.compile(r"\bneeds? the (\w+) extra\b")


def missing_extra(error: BaseException | None) -> str | None:
    """The extra whose absence raised ``error`` (a package of an extra that is not installed, or the
    package's own "needs the X extra" error), else None."""
    while error is not None:
        if isinstance(error, ModuleNotFoundError) and error.name:
            top = error.name.partition(".")[0]
            extra = EXTRA_OF_MODULE.get(top)
            # only a package that is not installed: a missing module inside an installed one is a bug
            if extra and importlib.util.find_spec(top) is None:
                return extra
        if isinstance(error, ImportError) and (match := NEEDS_EXTRA.search(str(error))):
            return match.group(1)
        error = error.__cause__ or error.__context__
    return None


def load_script(name: str) -> ModuleType:
    """A top-level script of the repository (``train``, ``train_rllib``: scripts, not package
    modules) imported from the repository root, once per process."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is created
    spec.loader.exec_module(module)
    return module


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


def plain_python_ways() -> Any:
    """``pytest.mark.parametrize`` over the two ways compiled code runs as plain Python, for a test taking
    ``env`` (added to a child's environment), ``prelude`` (code run first in the child) and
    ``have_numba`` (what the child's ``HAVE_NUMBA`` prints): Numba installed with its JIT off, and Numba
    missing (as without the batched extra)."""
    import pytest

    from trash_env.jit import HAVE_NUMBA

    return pytest.mark.parametrize(
        ("env", "prelude", "have_numba"),
        [
            pytest.param(  # Numba installed, its JIT off (without Numba this is the case below)
                {"NUMBA_DISABLE_JIT": "1"},
                "",
                "True",
                marks=pytest.mark.skipif(not HAVE_NUMBA, reason="needs Numba"),
            ),
            ({}, "sys.modules['numba'] = None  # as if the batched extra were not installed", "False"),
        ],
        ids=["NUMBA_DISABLE_JIT", "no-numba"],
    )
