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
``torch.load(weights_only=True)``, which accepts tensors and nothing else.
Resuming training (``train.py --resume FILE``, :mod:`agents.training.sb3`) does
not unpickle either: it builds the model from the command's settings, loads the
weights and optimizer state as tensors, and the counters from ``trash_rl.json``.

**A damaged or hostile file is refused in one line naming it and what is wrong**
(a ``ValueError``; the commands print it and exit with status 2), before it can
use much memory or play with weights it does not have:

- the zip must be whole (:func:`trash_env.files.open_zip`: a file cut short is
  said to be cut short) and have ``trash_rl.json``, ``data`` and ``policy.pth``;
- every member is read with a bound, checked from its declared size before any
  of it is read and again while reading: ``trash_rl.json`` at most
  :data:`METADATA_LIMIT`, ``data`` :data:`DATA_LIMIT`, and ``policy.pth`` the
  size of the network's own tensors plus :data:`WEIGHTS_SLACK`;
- the network described may have at most :data:`MAX_PARAMETERS` parameters
  (counted from the description before it is built);
- the weights must be exactly the network's (:func:`check_weight_names`,
  :func:`check_weight`): the same names, none missing or extra, each of the
  network's shape and dtype, every value finite, then loaded with
  ``load_state_dict(strict=True)``.

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
import reprlib
import zipfile
from collections.abc import Collection, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent, SeatView
from trash_env.extras import missing_extra
from trash_env.files import atomic_path, open_zip, read_zip_member
from trash_env.games import GAMES, game_of

METADATA_NAME = "trash_rl.json"
_ENV_NAMES = tuple(game.env_name for game in GAMES.values())
POLICY_FORMAT = 1
# Fields that may differ between training and play without changing what the policy sees.
_IGNORED_FIELDS = ("max_turns",)
WEIGHTS_NAME = "policy.pth"
# The members every policy file has (SB3's save, and ours), and what each holds.
_MEMBERS = {METADATA_NAME: "what it was trained for", "data": "SB3's settings", WEIGHTS_NAME: "the network's weights"}
# Bounds on what a policy file may make this process read or allocate (a file's declared sizes are
# checked against them before anything is read). Files saved by train.py are far below them: the
# shipped policy's trash_rl.json is under 1 kB, its data 21 kB, its network 75,000 parameters.
METADATA_LIMIT = 1 << 20  # trash_rl.json: 1 MiB
DATA_LIMIT = 8 << 20  # SB3's data (JSON): 8 MiB
MAX_PARAMETERS = 1 << 26  # 67 million parameters: 256 MiB of float32 weights
WEIGHTS_SLACK = 1 << 20  # policy.pth beyond its tensors' bytes: torch's pickle and zip headers
MAX_LAYERS = 64  # hidden layers in a network description


def _require_training_extra() -> None:
    try:
        import sb3_contrib  # noqa: F401
        import stable_baselines3  # noqa: F401
        import torch  # noqa: F401
    except ImportError as error:
        raise missing_extra("learned policies", "train", error) from None


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
        "MaskableA2C": MaskableActorCriticPolicy,  # the masked learners (agents.training.sb3.masked)
        "MaskedDQN": DQNPolicy,
        "MaskedQRDQN": QRDQNPolicy,
        "PPO": ActorCriticPolicy,
        "A2C": ActorCriticPolicy,
        "DQN": DQNPolicy,
        "QRDQN": QRDQNPolicy,
    }


Q_NETWORKS = ("DQN", "QRDQN", "MaskedDQN", "MaskedQRDQN")  # algorithms whose policy is a Q-network and its target

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
    """The metadata of a policy file; a ValueError naming the problem if there is none: the file
    missing, not a zip, cut short, without one of the members a policy file has (named), or with a
    ``trash_rl.json`` over :data:`METADATA_LIMIT`, not JSON, or not a policy description."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"policy file {str(path)!r} does not exist")
    with open_zip(path, kind="policy file") as archive:
        names = set(archive.namelist())
        if METADATA_NAME not in names:
            raise ValueError(f"{path} is not a trash-rl policy: it has no {METADATA_NAME} (was it saved by train.py?)")
        for name, role in _MEMBERS.items():
            if name not in names:
                raise ValueError(f"{path}: the policy could not be loaded: it has no {name} ({role})")
        text = read_zip_member(archive, METADATA_NAME, METADATA_LIMIT, path)
    metadata = parse_json(text, f"{path} is not a readable policy file: its {METADATA_NAME}")
    if not isinstance(metadata, dict) or not isinstance(metadata.get("config"), dict):
        raise ValueError(f"{path}: its {METADATA_NAME} is not a policy description (no config)")
    if metadata.get("format") != POLICY_FORMAT or metadata.get("game") not in _ENV_NAMES:
        raise ValueError(f"{path}: unsupported policy format {metadata.get('format')!r} for {metadata.get('game')!r}")
    return metadata


def parse_json(data: bytes, source: str) -> Any:
    """``data`` parsed as JSON; a ValueError naming ``source`` if it is not JSON (nor UTF-8), nests
    too deep for the parser, or holds a number too long to read."""
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as error:  # JSONDecodeError, UnicodeDecodeError, int digits
        message = "it nests too deep" if isinstance(error, RecursionError) else str(error)
        raise ValueError(f"{source} is not JSON ({message})") from None


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
        data = parse_json(read_zip_member(archive, "data", DATA_LIMIT, path), f"{path}: its data")
        network = data.get("policy_kwargs", {}) if isinstance(data, dict) else None
        if not isinstance(network, dict) or any(key.startswith(":") for key in network):
            raise ValueError(f"{path}: the network is described only by a pickle, which is not loaded for play")
    if not isinstance(network, dict) or set(network) - {"net_arch", "activation_fn", "n_quantiles"}:
        raise ValueError(f"{path}: {METADATA_NAME} has an unreadable network description {reprlib.repr(network)}")
    kwargs: dict[str, Any] = {}
    if network.get("net_arch") is not None:
        kwargs["net_arch"] = network["net_arch"]
    if network.get("n_quantiles") is not None:
        if not _positive_int(network["n_quantiles"]):
            raise ValueError(
                f"{path}: {METADATA_NAME} has an invalid n_quantiles {reprlib.repr(network['n_quantiles'])}"
            )
        kwargs["n_quantiles"] = network["n_quantiles"]
    if network.get("activation_fn") is not None:
        if network["activation_fn"] not in ACTIVATIONS:
            raise ValueError(
                f"{path}: unknown activation {reprlib.repr(network['activation_fn'])} (known: {ACTIVATIONS})"
            )
        kwargs["activation_fn"] = getattr(torch.nn, network["activation_fn"])
    return kwargs


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _layers(path: Path, widths: Any) -> list[int]:
    """The hidden layer widths of a network description, checked: a list of positive integers."""
    if not isinstance(widths, list) or len(widths) > MAX_LAYERS or not all(map(_positive_int, widths)):
        raise ValueError(
            f"{path}: {METADATA_NAME} has an invalid net_arch {reprlib.repr(widths)} (up to {MAX_LAYERS} widths)"
        )
    return widths


def _mlp_parameters(inputs: int, widths: list[int], outputs: int) -> int:
    """The weights and biases of fully connected layers ``inputs -> widths... -> outputs``."""
    sizes = [inputs, *widths, outputs]
    return sum((a + 1) * b for a, b in pairwise(sizes))


def count_parameters(path: Path, algorithm: str, inputs: int, actions: int, kwargs: dict[str, Any]) -> int:
    """The parameter count of the network ``kwargs`` describe (SB3's MLP policies, as
    :func:`build_network` builds them), checked before it is built: a ValueError naming ``path``
    if the description is malformed or over :data:`MAX_PARAMETERS`."""
    arch = kwargs.get("net_arch")
    if algorithm in Q_NETWORKS:  # the Q-network and its target copy
        outputs = actions * kwargs.get("n_quantiles", 200) if "QRDQN" in algorithm else actions
        count = 2 * _mlp_parameters(inputs, _layers(path, [64, 64] if arch is None else arch), outputs)
    else:  # actor-critic: a policy and a value network over the same features
        if arch is None:
            arch = {"pi": [64, 64], "vf": [64, 64]}
        if isinstance(arch, dict):
            if set(arch) - {"pi", "vf"}:
                raise ValueError(
                    f"{path}: {METADATA_NAME} has an invalid net_arch {reprlib.repr(arch)} (keys pi and vf)"
                )
            pi, vf = _layers(path, arch.get("pi", [])), _layers(path, arch.get("vf", []))
        else:
            pi = vf = _layers(path, arch)
        count = _mlp_parameters(inputs, pi, actions) + _mlp_parameters(inputs, vf, 1)
    if count > MAX_PARAMETERS:
        raise ValueError(f"{path}: its network would have {count:,} parameters, over the limit of {MAX_PARAMETERS:,}")
    return count


_NAME_REPR = reprlib.Repr()
_NAME_REPR.maxstring = 120  # a weight's name as a file gives it, shortened if it is longer


def _few(names: Sequence[str]) -> str:
    """The first of ``names``, and how many more."""
    return _NAME_REPR.repr(names[0]) + (f" and {len(names) - 1} more" if len(names) > 1 else "")


def check_weight_names(source: str, found: Collection[str], expected: Collection[str]) -> None:
    """A ValueError naming ``source`` (a weights file) unless its weights are named exactly as the
    network's: none missing (a partial file), none extra, none renamed (one missing, one extra)."""
    if not found:
        raise ValueError(f"{source} holds no weights (the network needs {len(expected)})")
    missing = [name for name in expected if name not in found]
    extra = [name for name in found if name not in expected]
    problems = ([f"lacks {_few(missing)}"] if missing else []) + (
        [f"has {_few(extra)}, which the network does not have"] if extra else []
    )
    if problems:
        raise ValueError(f"{source} does not fit the network: it {' and '.join(problems)}")


def check_weight(source: str, name: str, shape: Sequence[int], dtype: str, expected: tuple[Sequence[int], str]) -> None:
    """A ValueError naming ``source`` and the weight ``name`` unless its shape and dtype are the
    network's (``expected``)."""
    if tuple(shape) != tuple(expected[0]):
        raise ValueError(f"{source}: weight {name!r} has shape {tuple(shape)}, the network's is {tuple(expected[0])}")
    if dtype != expected[1]:
        raise ValueError(f"{source}: weight {name!r} is {dtype}, the network's is {expected[1]}")


def check_finite(source: str, name: str, values: np.ndarray) -> None:
    """A ValueError naming ``source`` and the weight ``name`` if any of its values is NaN or infinite."""
    bad = values.size - int(np.count_nonzero(np.isfinite(values)))
    if bad:
        raise ValueError(f"{source}: weight {name!r} holds {bad:,} NaN or infinite values (of {values.size:,})")


def _check_torch_archive(path: Path, data: bytes) -> None:
    """A ValueError unless ``policy.pth`` is the plain zip ``torch.save`` writes: every record stored
    uncompressed, within the member (torch allocates each record's declared size before reading)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as inner:
            records = inner.infolist()
    except (zipfile.BadZipFile, EOFError, ValueError) as error:
        raise ValueError(f"{path}: its {WEIGHTS_NAME} is not a torch save ({error})") from None
    for record in records:
        if record.compress_type != zipfile.ZIP_STORED or record.file_size != record.compress_size:
            raise ValueError(
                f"{path}: its {WEIGHTS_NAME} is not a plain torch save ({record.filename!r} is compressed)"
            )
        if record.file_size > len(data):
            raise ValueError(f"{path}: its {WEIGHTS_NAME} is damaged ({record.filename!r} is larger than the member)")


def _load_weights(path: Path, data: bytes, expected: dict[str, Any]) -> dict[str, Any]:
    """The tensors of ``policy.pth``, loaded as weights only and checked against the network's
    state (``expected``): names, shapes, dtypes, finite values."""
    import torch

    _check_torch_archive(path, data)
    try:
        weights = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as error:  # weights that are not tensors, a damaged pickle
        raise ValueError(f"{path}: the policy could not be loaded: {error}") from None
    source = f"{path} ({WEIGHTS_NAME})"
    if not isinstance(weights, dict) or not all(
        isinstance(name, str) and isinstance(value, torch.Tensor) and value.layout == torch.strided
        for name, value in weights.items()
    ):
        raise ValueError(f"{source} is not a table of named tensors")
    check_weight_names(source, weights, expected)
    for name, tensor in expected.items():
        value = weights[name]
        check_weight(source, name, value.shape, _dtype_name(value.dtype), (tensor.shape, _dtype_name(tensor.dtype)))
        check_finite(source, name, value.detach().numpy())
    return weights


def _dtype_name(dtype: Any) -> str:
    return str(dtype).removeprefix("torch.")


def build_network(path: str | Path, metadata: dict[str, Any]) -> Any:
    """The policy network of a policy file, rebuilt from its description, with its weights loaded
    as weights only (``torch.load(weights_only=True)``): no pickle from the file is run. The
    description is bounded (:func:`count_parameters`) before the network is built, and the weights
    must be exactly the network's (names, shapes, dtypes, finite values) before they are loaded
    (``strict=True``)."""
    from gymnasium import spaces

    path = Path(path)
    algorithm = metadata.get("algorithm")
    policy_class = policy_classes().get(algorithm)
    if policy_class is None:
        raise ValueError(f"{path}: unknown algorithm {reprlib.repr(algorithm)}")
    game = GAMES[next(name for name, game in GAMES.items() if game.env_name == metadata["game"])]
    size = metadata.get("observation_size")
    if not _positive_int(size):
        raise ValueError(f"{path}: {METADATA_NAME} has no valid observation_size")
    with open_zip(path, kind="policy file") as archive:
        kwargs = _network_kwargs(path, metadata, archive)
        count_parameters(path, algorithm, size, game.num_actions, kwargs)
        try:
            observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)
            network = policy_class(observation_space, spaces.Discrete(game.num_actions), lambda _: 0.0, **kwargs)
        except Exception as error:  # a description SB3 does not accept
            raise ValueError(f"{path}: the policy could not be loaded: {error}") from None
        expected = network.state_dict()
        limit = sum(tensor.numel() * tensor.element_size() for tensor in expected.values()) + WEIGHTS_SLACK
        data = read_zip_member(archive, WEIGHTS_NAME, limit, path)
    weights = _load_weights(path, data, expected)
    try:
        network.load_state_dict(weights, strict=True)
    except Exception as error:  # checked above; kept strict whatever torch finds besides
        raise ValueError(f"{path}: the policy could not be loaded: {error}") from None
    network.set_training_mode(False)
    return network


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
