"""Trained policies as agents, and the policy file format.

A policy file is a Stable-Baselines3 save (a zip) with one more member,
``trash_rl.json``, that says what it was trained for: the game (``trash_v0`` or
``help_your_neighbor_v0``), the rules
configuration (preset, overrides, players), the observation layout version
and size, and the algorithm. :func:`load_policy` refuses a file that is not a
zip, lacks that member, or was trained for another configuration, with an
error that names the problem; it never plays a policy on observations it was
not trained on.

A :class:`LearnedAgent` plays the policy's most preferred *legal* action
(deterministic): for MaskablePPO its masked distribution, for PPO the legal
action of highest probability, for DQN the legal action of highest Q-value.
Masking at play time restricts the policy's own ranking to legal moves; it
does not pick a move the policy does not rank first among them.

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent, SeatView
from trash_env.files import atomic_path
from trash_env.games import GAMES, game_of

METADATA_NAME = "trash_rl.json"
_ENV_NAMES = tuple(game.env_name for game in GAMES.values())
POLICY_FORMAT = 1
# Fields that may differ between training and play without changing what the policy sees.
_IGNORED_FIELDS = ("max_turns",)


def _require_training_extra() -> None:
    try:
        import sb3_contrib  # noqa: F401
        import stable_baselines3  # noqa: F401
        import torch  # noqa: F401
    except ImportError as error:
        raise ImportError(f"learned policies need the train extra: pip install -e '.[train]' ({error})") from None


def algorithms() -> dict[str, Any]:
    """The supported algorithm classes by name."""
    _require_training_extra()
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import DQN, PPO

    return {"MaskablePPO": MaskablePPO, "PPO": PPO, "DQN": DQN}


def describe_policy(config: Any, preset: str, algorithm: str, **extra: Any) -> dict[str, Any]:
    """What a policy was trained for (the ``trash_rl.json`` of every policy file or folder):
    the game, the rules, the observation layout, the algorithm."""
    game = game_of(config)
    return {
        "format": POLICY_FORMAT,
        "game": game.env_name,
        "algorithm": algorithm,
        "preset": preset,
        "config": config.to_dict(),
        "observation_version": game.observation_version,
        "observation_size": game.make_observer(config).size,
        **extra,
    }


def policy_metadata(model: Any, config: Any, preset: str, **extra: Any) -> dict[str, Any]:
    """:func:`describe_policy` of a Stable-Baselines3 model."""
    return describe_policy(config, preset, type(model).__name__, num_timesteps=int(model.num_timesteps), **extra)


def save_policy(model: Any, path: str | Path, config: Any, preset: str, **extra: Any) -> Path:
    """Save ``model`` with its metadata; written atomically (:mod:`trash_env.files`), so an
    interrupted save never leaves a half-written policy at ``path``."""
    path = Path(path)
    if path.suffix != ".zip":
        path = path.with_name(path.name + ".zip")
    with atomic_path(path) as partial:
        model.save(partial)
        with zipfile.ZipFile(partial, "a") as archive:
            archive.writestr(METADATA_NAME, json.dumps(policy_metadata(model, config, preset, **extra), indent=2))
    return path


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The metadata of a policy file; a ValueError naming the problem if there is none."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"policy file {str(path)!r} does not exist")
    try:
        with zipfile.ZipFile(path) as archive:
            if METADATA_NAME not in archive.namelist():
                raise ValueError(
                    f"{path} is not a trash-rl policy: it has no {METADATA_NAME} (was it saved by train.py?)"
                )
            metadata = json.loads(archive.read(METADATA_NAME))
    except (zipfile.BadZipFile, OSError, json.JSONDecodeError, EOFError) as error:
        raise ValueError(f"{path} is not a readable policy file (corrupt or truncated?): {error}") from None
    if not isinstance(metadata, dict) or not isinstance(metadata.get("config"), dict):
        raise ValueError(f"{path}: its {METADATA_NAME} is not a policy description (no config)")
    if metadata.get("format") != POLICY_FORMAT or metadata.get("game") not in _ENV_NAMES:
        raise ValueError(f"{path}: unsupported policy format {metadata.get('format')!r} for {metadata.get('game')!r}")
    return metadata


def check_compatible(metadata: dict[str, Any], config: Any, source: str = "policy") -> None:
    """A ValueError if the policy was trained for another game, another observation
    layout, or other rules (listing every rules field that differs)."""
    game = game_of(config)
    if metadata.get("game") != game.env_name:
        raise ValueError(f"{source} was trained for {metadata.get('game')}, not {game.env_name}")
    if metadata.get("observation_version") != game.observation_version:
        raise ValueError(
            f"{source} was trained on observation layout v{metadata.get('observation_version')}, "
            f"this package has v{game.observation_version}"
        )
    trained = metadata["config"]
    wanted = config.to_dict()
    diffs = [
        f"{field}: trained {trained.get(field)!r}, asked {wanted[field]!r}"
        for field in wanted
        if field not in _IGNORED_FIELDS and trained.get(field) != wanted[field]
    ]
    if diffs:
        raise ValueError(f"{source} was trained for another configuration ({'; '.join(diffs)})")


class LearnedAgent(Agent):
    """A trained SB3 policy playing through the agent interface (deterministic)."""

    def __init__(self, model: Any, metadata: dict[str, Any], name: str = "learned", path: str | None = None) -> None:
        import torch

        self.model = model
        self.metadata = metadata
        self.name = name
        self.path = path
        self._torch = torch

    def __reduce__(self) -> tuple[Any, ...]:
        # Sent to worker processes (evaluation, subprocess envs) as its file, not as tensors.
        if self.path is None:
            raise TypeError("a LearnedAgent made from a model in memory cannot be pickled; save it first")
        return (LearnedAgent.load, (self.path, self.name))

    @classmethod
    def load(cls, path: str | Path, name: str | None = None) -> LearnedAgent:
        """Load a policy file saved by ``train.py`` (checks the file before unpickling)."""
        _require_training_extra()
        metadata = read_metadata(path)
        algorithm = algorithms().get(metadata.get("algorithm"))
        if algorithm is None:
            raise ValueError(f"{path}: unknown algorithm {metadata.get('algorithm')!r}")
        try:
            model = algorithm.load(str(path), device="cpu")
        except Exception as error:  # SB3 raises many kinds on a damaged archive
            raise ValueError(f"{path}: the policy could not be loaded: {error}") from None
        return cls(model, metadata, name=name or str(path), path=str(path))

    def check_config(self, config: Any) -> None:
        check_compatible(self.metadata, config, source=f"policy {self.name}")

    def preferences(self, observation: np.ndarray) -> np.ndarray:
        """The policy's score for every action: logits (PPO family) or Q-values (DQN)."""
        policy = self.model.policy
        torch = self._torch
        with torch.no_grad():
            obs = torch.as_tensor(observation, dtype=torch.float32).reshape(1, -1)
            if hasattr(policy, "q_net"):
                scores = policy.q_net(obs)
            else:
                features = policy.extract_features(obs, policy.pi_features_extractor)
                scores = policy.action_net(policy.mlp_extractor.forward_actor(features))
        return scores.numpy()[0]

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        scores = self.preferences(view.observation)
        legal = view.legal_actions
        return legal[int(np.argmax(scores[legal]))]
