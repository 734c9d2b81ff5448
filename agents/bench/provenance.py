"""Where a figure came from: the code, the libraries and the machine (a result file's ``provenance``).

A benchmark result repeats exactly only on the same machine with the same versions (floating-point
reductions in torch differ between CPUs and releases); elsewhere it repeats statistically. So every
result file, and every speed figure of ``benchmarks/``, records what it depends on besides its
settings: :func:`provenance`.
"""

from __future__ import annotations

import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

LIBRARIES = ("numpy", "numba", "torch", "stable-baselines3", "sb3-contrib", "pettingzoo", "gymnasium")
REPOSITORY = Path(__file__).resolve().parents[2]  # the checkout, when the package runs from one


def cpu_model() -> str:
    """The processor's model name (Linux's ``/proc/cpuinfo``), else what :mod:`platform` says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def library_versions() -> dict[str, str]:
    """The installed version of each library a figure depends on (those installed)."""
    versions = {}
    for package in LIBRARIES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return versions


def machine() -> dict[str, Any]:
    """The processor, its cores, Python and the library versions."""
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "versions": library_versions(),
    }


def git_commit() -> dict[str, Any] | None:
    """The commit of the checkout the package runs from and whether its tracked files differ from it
    (``{"commit": ..., "modified": bool}``), or None when it is not run from a git checkout."""
    if not (REPOSITORY / ".git").exists():
        return None
    try:
        commit = subprocess.run(
            ["git", "-C", str(REPOSITORY), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10
        )
        status = subprocess.run(
            ["git", "-C", str(REPOSITORY), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if commit.returncode != 0:
        return None
    return {"commit": commit.stdout.strip(), "modified": bool(status.stdout.strip())}


def torch_threads() -> int | None:
    """torch's intra-op thread count in this process (None without torch)."""
    try:
        import torch
    except ImportError:
        return None
    return int(torch.get_num_threads())


def provenance() -> dict[str, Any]:
    """Everything a result depends on besides its settings: the package version, the git commit
    (when run from a checkout), the machine and libraries (:func:`machine`) and torch's threads."""
    import trash_env

    return {
        "package_version": trash_env.__version__,
        "git": git_commit(),
        **machine(),
        "torch_threads": torch_threads(),
    }


def provenance_differences(stored: dict[str, Any] | None) -> list[str]:
    """What differs between a run's provenance (its result's) and this process's: the package version,
    the commit, the machine, Python and each library, one ``what: then -> now`` each (none: the run's
    figures should repeat exactly here). Torch's threads are the training's, not an evaluation's."""
    if stored is None:
        return ["the result holds no provenance"]
    now = provenance()
    pairs = {name: (stored.get(name), now.get(name)) for name in ("package_version", "cpu", "cores", "python")}
    pairs["git commit"] = ((stored.get("git") or {}).get("commit"), (now.get("git") or {}).get("commit"))
    then_versions, now_versions = stored.get("versions") or {}, now.get("versions") or {}
    for library in sorted(set(then_versions) | set(now_versions)):
        pairs[library] = (then_versions.get(library), now_versions.get(library))
    return [f"{name}: {then} -> {here}" for name, (then, here) in pairs.items() if then != here]
