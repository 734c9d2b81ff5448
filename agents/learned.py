"""Trained policies as agents, and the policy file format.

A policy file is a Stable-Baselines3 save (a zip) with one more member,
``trash_rl.json``, that says what it was trained for: the game (``trash_v0`` or
``help_your_neighbor_v0``), the rules configuration (preset, overrides,
players), the observation layout version and size, the algorithm and the
network (``network``: layer sizes and activation). :func:`read_metadata` refuses
a file that is not a zip, lacks that member, or was trained for another
configuration, with an error that names the problem; a policy never plays on
observations it was not trained on.

**Loading a policy to play or evaluate never unpickles anything from the file.**
Stable-Baselines3's own loader unpickles several fields of the zip (the
learning-rate schedule, the spaces, the policy class), so a crafted file could
run code. :meth:`LearnedAgent.load` instead rebuilds the network from the
project's own description (``trash_rl.json``; for older files the plain-JSON
``policy_kwargs`` of SB3's ``data``) and loads ``policy.pth`` with
``torch.load(weights_only=True)``, which accepts tensors and nothing else. Only
resuming training (``train.py --resume FILE``, :func:`load_model`) loads the
whole SB3 model, optimizer and schedules included, and only from the file the
user names for that.

A :class:`LearnedAgent` plays the policy's most preferred *legal* action
(deterministic): for MaskablePPO its masked distribution, for PPO the legal
action of highest probability, for DQN the legal action of highest Q-value.
Masking at play time restricts the policy's own ranking to legal moves; it
does not pick a move the policy does not rank first among them.
:meth:`LearnedAgent.act_batch` does the same for many positions in one forward
pass (the batched engine's evaluation).

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib).
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Sequence
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
    from sb3_contrib import QRDQN, MaskablePPO
    from stable_baselines3 import A2C, DQN, PPO

    return {"MaskablePPO": MaskablePPO, "PPO": PPO, "A2C": A2C, "DQN": DQN, "QRDQN": QRDQN}


def policy_classes() -> dict[str, Any]:
    """The network class each algorithm's policy files hold."""
    _require_training_extra()
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from sb3_contrib.qrdqn.policies import QRDQNPolicy
    from stable_baselines3.common.policies import ActorCriticPolicy
    from stable_baselines3.dqn.policies import DQNPolicy

    return {
        "MaskablePPO": MaskableActorCriticPolicy,
        "PPO": ActorCriticPolicy,
        "A2C": ActorCriticPolicy,
        "DQN": DQNPolicy,
        "QRDQN": QRDQNPolicy,
    }


# Activations a network description may name (torch.nn classes without parameters of their own).
ACTIVATIONS = ("Tanh", "ReLU", "ELU", "LeakyReLU", "GELU", "SiLU", "Sigmoid")


def describe_network(model: Any) -> dict[str, Any]:
    """The network of an SB3 model as plain JSON: what :func:`build_network` needs to rebuild it."""
    policy = model.policy
    activation = policy.activation_fn.__name__
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation {activation} cannot be described in a policy file (known: {ACTIVATIONS})")
    description = {"net_arch": policy.net_arch, "activation_fn": activation}
    if hasattr(policy, "n_quantiles"):  # QR-DQN
        description["n_quantiles"] = int(policy.n_quantiles)
    return description


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
    """:func:`describe_policy` of a Stable-Baselines3 model, with its network."""
    return describe_policy(
        config,
        preset,
        type(model).__name__,
        num_timesteps=int(model.num_timesteps),
        network=describe_network(model),
        **extra,
    )


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


def _network_kwargs(path: Path, metadata: dict[str, Any], archive: zipfile.ZipFile) -> dict[str, Any]:
    """The network's constructor arguments from ``trash_rl.json`` (or, for files saved before it
    held them, SB3's ``policy_kwargs`` where that is plain JSON); nothing is unpickled."""
    import torch

    network = metadata.get("network")
    if network is None:
        try:
            network = json.loads(archive.read("data")).get("policy_kwargs", {})
        except (KeyError, json.JSONDecodeError, AttributeError) as error:
            raise ValueError(f"{path}: no description of the network ({error})") from None
        if not isinstance(network, dict) or any(key.startswith(":") for key in network):
            raise ValueError(f"{path}: the network is described only by a pickle, which is not loaded for play")
    if not isinstance(network, dict) or set(network) - {"net_arch", "activation_fn", "n_quantiles"}:
        raise ValueError(f"{path}: {METADATA_NAME} has an unreadable network description {network!r}")
    kwargs: dict[str, Any] = {}
    if network.get("net_arch") is not None:
        kwargs["net_arch"] = network["net_arch"]
    if network.get("n_quantiles") is not None:
        kwargs["n_quantiles"] = int(network["n_quantiles"])
    if network.get("activation_fn") is not None:
        if network["activation_fn"] not in ACTIVATIONS:
            raise ValueError(f"{path}: unknown activation {network['activation_fn']!r} (known: {ACTIVATIONS})")
        kwargs["activation_fn"] = getattr(torch.nn, network["activation_fn"])
    return kwargs


def build_network(path: str | Path, metadata: dict[str, Any]) -> Any:
    """The policy network of a policy file, rebuilt from its description, with its weights loaded
    as weights only (``torch.load(weights_only=True)``): no pickle from the file is run."""
    import torch
    from gymnasium import spaces

    path = Path(path)
    policy_class = policy_classes().get(metadata.get("algorithm"))
    if policy_class is None:
        raise ValueError(f"{path}: unknown algorithm {metadata.get('algorithm')!r}")
    game = GAMES[next(name for name, game in GAMES.items() if game.env_name == metadata["game"])]
    size = metadata.get("observation_size")
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"{path}: {METADATA_NAME} has no valid observation_size")
    try:
        with zipfile.ZipFile(path) as archive:
            kwargs = _network_kwargs(path, metadata, archive)
            weights = torch.load(io.BytesIO(archive.read("policy.pth")), map_location="cpu", weights_only=True)
        observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)
        network = policy_class(observation_space, spaces.Discrete(game.num_actions), lambda _: 0.0, **kwargs)
        network.load_state_dict(weights)
    except ValueError:
        raise
    except Exception as error:  # a damaged archive, weights that are not tensors, another architecture
        raise ValueError(f"{path}: the policy could not be loaded: {error}") from None
    network.set_training_mode(False)
    return network


def load_model(path: str | Path, **kwargs: Any) -> Any:
    """The whole Stable-Baselines3 model of a policy or checkpoint file (optimizer, schedules, counters),
    for resuming training. This runs SB3's loader, which unpickles fields of the file: use it only
    on files you trust (your own checkpoints); playing and evaluating use :meth:`LearnedAgent.load`."""
    metadata = read_metadata(path)
    algorithm = algorithms().get(metadata.get("algorithm"))
    if algorithm is None:
        raise ValueError(f"{path}: unknown algorithm {metadata.get('algorithm')!r}")
    try:
        return algorithm.load(str(path), device="cpu", **kwargs)
    except Exception as error:  # SB3 raises many kinds on a damaged archive
        raise ValueError(f"{path}: the model could not be loaded: {error}") from None


class LearnedAgent(Agent):
    """A trained SB3 policy network playing through the agent interface (deterministic)."""

    batchable = True

    def __init__(self, policy: Any, metadata: dict[str, Any], name: str = "learned", path: str | None = None) -> None:
        import torch

        self.policy = policy
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
        """Load a policy file saved by ``train.py``: its description is checked first, then the network
        is rebuilt and its weights loaded as weights only (nothing from the file is unpickled)."""
        _require_training_extra()
        metadata = read_metadata(path)
        return cls(build_network(path, metadata), metadata, name=name or str(path), path=str(path))

    def check_config(self, config: Any) -> None:
        check_compatible(self.metadata, config, source=f"policy {self.name}")

    def preferences_batch(self, observations: np.ndarray) -> np.ndarray:
        """The policy's score for every action of each row: logits (PPO, A2C) or Q-values (DQN, QR-DQN)."""
        policy = self.policy
        torch = self._torch
        with torch.no_grad():
            obs = torch.as_tensor(np.asarray(observations, dtype=np.float32)).reshape(len(observations), -1)
            if hasattr(policy, "quantile_net"):  # QR-DQN: the mean of the quantiles is the Q-value
                scores = policy.quantile_net(obs).mean(dim=1)
            elif hasattr(policy, "q_net"):
                scores = policy.q_net(obs)
            else:
                features = policy.extract_features(obs, policy.pi_features_extractor)
                scores = policy.action_net(policy.mlp_extractor.forward_actor(features))
        return scores.numpy()

    def preferences(self, observation: np.ndarray) -> np.ndarray:
        """The policy's score for every action: logits (PPO family) or Q-values (DQN)."""
        return self.preferences_batch(np.asarray(observation).reshape(1, -1))[0]

    def action_probabilities(self, view: SeatView) -> dict[int, float] | None:
        """The policy's distribution over the legal actions (a softmax of its logits restricted to
        them, as a masked policy samples). It acts greedily on it (:meth:`act`). None for DQN and
        QR-DQN, whose scores are values, not probabilities."""
        if hasattr(self.policy, "q_net") or hasattr(self.policy, "quantile_net"):
            return None
        legal = view.legal_actions
        logits = self.preferences(view.observation)[legal].astype(np.float64)
        weights = np.exp(logits - logits.max())
        return {int(a): float(w) for a, w in zip(legal, weights / weights.sum(), strict=True)}

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        scores = self.preferences(view.observation)
        legal = view.legal_actions
        return legal[int(np.argmax(scores[legal]))]

    def act_batch(self, observations: np.ndarray, masks: np.ndarray, rngs: Sequence[np.random.Generator]) -> np.ndarray:
        """:meth:`act` for each row (an observation and its action mask) in one forward pass."""
        scores = np.where(np.asarray(masks) > 0, self.preferences_batch(observations), -np.inf)
        return scores.argmax(axis=1)
