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


def print_ratios(title: str, ratios: dict[str, list[float]]) -> None:
    """Each measurement's ratios over the rounds: the median and the range, under ``title``."""
    import statistics

    print(f"\n{title}, median of the rounds (min-max):")
    for name, values in ratios.items():
        print(f"  {name}: {statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})")


def one_torch_thread() -> str:
    """torch on one thread (the training figures' setting), and the line that says what measured them:
    the versions of Python, NumPy, Numba and torch, Numba's threads and the machine's cores."""
    import os
    import platform

    import numba
    import numpy as np
    import torch

    torch.set_num_threads(1)
    return (
        f"python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__} "
        f"({numba.get_num_threads()} threads), torch {torch.__version__} (1 thread), {os.cpu_count()} cores"
    )


def engine_speed_parser(description: str, json_path: str) -> Any:
    """The command line both batched engines' speed scripts share: ``--seconds`` per random-play
    measurement, ``--timesteps`` per training measurement, ``--seed`` and ``--json`` (``json_path``:
    where ``make bench`` writes the figures); each script adds its own."""
    import argparse

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seconds", type=float, default=5.0, help="time per random-play measurement")
    parser.add_argument("--timesteps", type=int, default=32_768, help="timesteps per training measurement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help=f"also write the figures here (make bench: {json_path})")
    return parser


def sb3_ppo_kwargs(settings: dict[str, Any]) -> dict[str, Any]:
    """An SB3-style PPO's keyword arguments (SB3's MaskablePPO, SBX's PPO) for a speed script's settings
    (``n_envs`` games x ``n_steps``, ``minibatch``, ``epochs``, ``hidden``): separate policy and value
    networks, no entropy bonus, seed 0."""
    hidden = list(settings["hidden"])
    return {
        "n_steps": settings["n_steps"],
        "batch_size": settings["minibatch"],
        "n_epochs": settings["epochs"],
        "learning_rate": 3e-4,
        "ent_coef": 0.0,
        "policy_kwargs": {"net_arch": {"pi": hidden, "vf": hidden}},
        "seed": 0,
    }
