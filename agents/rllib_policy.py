"""RLlib-trained policies as agents: the exported folder format and :class:`RLlibAgent`.

``train_rllib.py`` exports its policy as a folder: RLlib's own checkpoint of the
RLModule (``module/``, for RLlib users: ``RLModule.from_checkpoint``),
``weights.npz`` (the module's parameters as plain arrays) and ``trash_rl.json``,
the same description of what it was trained for as a Stable-Baselines3 policy
file carries (game, rules configuration, observation layout version), plus the
module's ``model_config``. The evaluation and play commands take the folder's
path like any agent spec; another configuration is a ValueError naming the
difference.

Loading never unpickles anything from the folder: RLlib's checkpoint holds two
pickles (``class_and_ctor_args.pkl``, ``module_state.pkl``), so :meth:`RLlibAgent.load`
instead builds the module class this package trains (RLlib's
``ActionMaskingTorchRLModule``) from ``model_config`` and loads ``weights.npz``
with ``allow_pickle=False``. The ``module/`` checkpoint is loaded only by RLlib
itself, if a user does so.

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
WEIGHTS_NAME = "weights.npz"


def export_policy(module: Any, folder: str | Path, config: Any, preset: str, **extra: Any) -> Path:
    """Write ``module`` (an RLlib ``ActionMaskingTorchRLModule``), its weights and its description
    (with the module's ``model_config``) to ``folder``, atomically (a folder already there is
    replaced only once the new one is complete)."""
    model_config = dict(module.model_config)
    folder = Path(folder)
    with atomic_folder(folder) as partial:
        module.save_to_path(str((partial / MODULE_DIR).resolve()))
        np.savez(partial / WEIGHTS_NAME, **{name: np.asarray(value) for name, value in module.get_state().items()})
        metadata = describe_policy(config, preset, ALGORITHM, model_config=model_config, **extra)
        (partial / METADATA_NAME).write_text(json.dumps(metadata, indent=2))
    return folder


def build_module(folder: Path, metadata: dict[str, Any]) -> Any:
    """The action-masking RLModule, rebuilt from ``model_config`` with the weights of ``weights.npz``
    (plain arrays, loaded with ``allow_pickle=False``): nothing from the folder is unpickled."""
    import gymnasium as gym
    from ray.rllib.algorithms.ppo.ppo_catalog import PPOCatalog
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from trash_env.trash.rules import NUM_ACTIONS

    model_config = metadata.get("model_config")
    if not isinstance(model_config, dict):
        raise ValueError(f"{folder}: its {METADATA_NAME} has no model_config (exported by an older train_rllib.py?)")
    size = metadata.get("observation_size")
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"{folder}: its {METADATA_NAME} has no valid observation_size")
    space = gym.spaces.Dict(
        {
            "action_mask": gym.spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
            "observations": gym.spaces.Box(0.0, 1.0, (size,), np.float32),
        }
    )
    try:
        with np.load(folder / WEIGHTS_NAME, allow_pickle=False) as weights:
            state = {name: weights[name] for name in weights.files}
        module = ActionMaskingTorchRLModule(
            observation_space=space,
            action_space=gym.spaces.Discrete(NUM_ACTIONS),
            inference_only=False,
            learner_only=False,
            model_config=model_config,
            catalog_class=PPOCatalog,
        )
        module.set_state(state)
    except Exception as error:  # a missing or damaged weights file, or another architecture
        raise ValueError(f"{folder}: the RLlib module could not be loaded: {error}") from None
    module.eval()
    return module


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
    if not (folder / WEIGHTS_NAME).is_file():
        raise ValueError(f"{folder}: the module's weights ({WEIGHTS_NAME}) are missing")
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
            import ray.rllib  # noqa: F401
        except ImportError as error:
            raise ImportError(f"RLlib policies need the rllib extra: pip install -e '.[rllib]' ({error})") from None
        module = build_module(Path(path), metadata)
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
