"""Tiny in-process ``train.py`` runs for the tests: a few hundred decisions, quiet, no files to spare."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any


def tiny_args(train: ModuleType, out_dir: Path, **fields: Any) -> Any:
    """``train.Args`` for a tiny in-process run: 2 environments, no TensorBoard, minimal evaluation;
    ``fields`` override any setting."""
    settings: dict[str, Any] = {
        "out_dir": out_dir,
        "run_name": "run",
        "n_envs": 2,
        "n_steps": 128,
        "batch_size": 64,
        "total_timesteps": 512,
        "eval_every": 0,
        "eval_deals": 2,
        "eval_baselines": ["random"],
        "final_eval_deals": 2,
        "eval_workers": 1,
        "checkpoint_every": 0,
        "progress_bar": False,
        "tensorboard": False,
    }
    settings.update(fields)
    return train.Args(**settings)


def tiny_batched_args(train: ModuleType, out_dir: Path, **fields: Any) -> Any:
    """:func:`tiny_args` for a ``--batched`` run: 16 games, 64 steps each per update, 2,048 decisions,
    a handful of final evaluation deals; ``fields`` override any setting (``game=...``)."""
    settings = {"batched": True, "n_envs": 16, "n_steps": 64, "batch_size": 128, "total_timesteps": 2048}
    return tiny_args(train, out_dir, **{**settings, "final_eval_deals": 4, **fields})


def sb3_load(path: str | Path) -> Any:
    """Stable-Baselines3's own full loader (which unpickles fields of the file) on a file a test
    made itself: the reference the package's weights-only loaders are compared with."""
    from agents.learned import algorithms, read_metadata

    return algorithms()[read_metadata(path)["algorithm"]].load(str(path), device="cpu")
