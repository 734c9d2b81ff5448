"""Helpers shared by the tests: stacked decks (:mod:`helpers.decks`), random play of AEC envs
(:mod:`helpers.aec_play`) and tiny training runs (:mod:`helpers.tiny_training`)."""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]  # the repository

# The optional packages of the extras (pyproject.toml), by the name they are imported under.
EXTRA_OF_MODULE = {
    **dict.fromkeys(("scipy", "rich", "choix", "matplotlib"), "eval"),
    **dict.fromkeys(("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "tqdm", "tyro"), "train"),
    **dict.fromkeys(("drawsvg", "resvg_py", "PIL"), "render"),
    **dict.fromkeys(("moviepy",), "video"),
    **dict.fromkeys(("starlette", "uvicorn", "httpx"), "web"),
    **dict.fromkeys(("numba",), "batched"),
    **dict.fromkeys(("ray",), "rllib"),
    **dict.fromkeys(("mkdocs", "material", "mkdocstrings"), "docs"),
    **dict.fromkeys(("rlcard", "pygame"), "bench"),
    **dict.fromkeys(("playwright",), "dev"),
    **dict.fromkeys(("pyspiel", "open_spiel"), "openspiel"),
}


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
