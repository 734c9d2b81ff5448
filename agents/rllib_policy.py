"""RLlib-trained policies as agents: the exported folder format and :class:`RLlibAgent`.

``train_rllib.py`` exports its policy as a folder: RLlib's own checkpoint of the
RLModule (``module/``, loaded with ``RLModule.from_checkpoint``) and
``trash_rl.json``, the same description of what it was trained for as a
Stable-Baselines3 policy file carries (game, rules configuration, observation
layout version). The evaluation and play commands take the folder's path like
any agent spec; another configuration is a ValueError naming the difference.

The agent plays the module's most preferred legal action (deterministic), from
the observation of ``trash_v0`` and its action mask, as the module's own
action-masking forward pass does.

Needs the ``rllib`` extra.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent, SeatView
from agents.learned import METADATA_NAME, check_compatible, describe_policy
from trash_env.files import atomic_folder

ALGORITHM = "RLlib PPO"
MODULE_DIR = "module"


def export_policy(module: Any, folder: str | Path, config: Any, preset: str, **extra: Any) -> Path:
    """Write ``module`` (an RLlib RLModule) and its description to ``folder``, atomically
    (a folder already there is replaced only once the new one is complete)."""
    folder = Path(folder)
    with atomic_folder(folder) as partial:
        module.save_to_path(str((partial / MODULE_DIR).resolve()))
        metadata = describe_policy(config, preset, ALGORITHM, **extra)
        (partial / METADATA_NAME).write_text(json.dumps(metadata, indent=2))
    return folder


def is_rllib_policy(path: str | Path) -> bool:
    path = Path(path)
    return path.is_dir() and (path / METADATA_NAME).is_file()


def read_rllib_metadata(folder: str | Path) -> dict[str, Any]:
    folder = Path(folder)
    try:
        metadata = json.loads((folder / METADATA_NAME).read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"{folder}: no readable {METADATA_NAME} ({error})") from None
    if not isinstance(metadata, dict) or metadata.get("algorithm") != ALGORITHM:
        raise ValueError(f"{folder}: not an RLlib policy exported by train_rllib.py")
    if not isinstance(metadata.get("config"), dict):
        raise ValueError(f"{folder}: its {METADATA_NAME} is not a policy description (no config)")
    if not (folder / MODULE_DIR).is_dir():
        raise ValueError(f"{folder}: the RLlib module folder {MODULE_DIR}/ is missing")
    return metadata


class RLlibAgent(Agent):
    """An RLlib RLModule exported by ``train_rllib.py``, playing through the agent interface."""

    def __init__(self, module: Any, metadata: dict[str, Any], name: str, path: str) -> None:
        import torch

        self.module = module
        self.metadata = metadata
        self.name = name
        self.path = path
        self._torch = torch

    def __reduce__(self) -> tuple[Any, ...]:
        return (RLlibAgent.load, (self.path, self.name))  # worker processes load the folder

    @classmethod
    def load(cls, path: str | Path, name: str | None = None) -> RLlibAgent:
        metadata = read_rllib_metadata(path)
        try:
            from ray.rllib.core.rl_module.rl_module import RLModule
        except ImportError as error:
            raise ImportError(f"RLlib policies need the rllib extra: pip install -e '.[rllib]' ({error})") from None
        try:
            module = RLModule.from_checkpoint(str((Path(path) / MODULE_DIR).resolve()))
        except Exception as error:  # RLlib raises many kinds on a damaged checkpoint
            raise ValueError(f"{path}: the RLlib module could not be loaded: {error}") from None
        return cls(module, metadata, name=name or str(path), path=str(path))

    def check_config(self, config: Any) -> None:
        check_compatible(self.metadata, config, source=f"policy {self.name}")

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        torch = self._torch
        obs = {
            "observations": torch.as_tensor(view.observation, dtype=torch.float32).reshape(1, -1),
            "action_mask": torch.as_tensor(view.action_mask, dtype=torch.float32).reshape(1, -1),
        }
        with torch.no_grad():
            logits = self.module.forward_inference({"obs": obs})["action_dist_inputs"].numpy()[0]
        legal = view.legal_actions
        return legal[int(np.argmax(logits[legal]))]
