"""A small NumPy policy as an agent, saved weights-only: linear (``logits = obs @ W + b``) or a few
fully connected layers, playing the legal action of highest logit.

For learners that are not from Stable-Baselines3 (``examples/reinforce.py`` returns one): the
benchmark keeps the final policy of every run beside its result file and evaluates it again in
another process (:mod:`agents.bench.artifacts`), so a policy must be savable without pickling.

**The file** (``.npz``, :meth:`LinearAgent.save`): ``numpy.savez`` of plain float arrays
``weight_0, bias_0, ..., weight_k, bias_k`` (layer ``i`` maps ``x`` to ``x @ weight_i + bias_i``,
the hidden layers followed by the activation) and ``metadata``, a string array holding JSON: the
game, the observation layout version and size, the number of actions, the hidden widths
(``layers``), the activation, and the rules configuration the policy was trained for when it was
given. Written atomically.

**Loading never unpickles, and refuses in one line** (a ``ValueError`` naming the file and the
problem, :meth:`LinearAgent.load`) a file that is not a whole zip (:func:`trash_env.files.open_zip`),
has other members than those, a metadata over :data:`METADATA_LIMIT` or not a description, a
network over :data:`MAX_PARAMETERS` (counted from the description before any weight is read), an
array whose header declares another shape or a dtype other than float32/float64 (read from its
header before its data, so a header cannot make the loader allocate), a member larger than its
shape needs, or a NaN or infinite weight. Every array is read with ``allow_pickle=False``.
"""

from __future__ import annotations

import io
import json
import reprlib
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent, SeatView
from trash_env.files import atomic_path, open_zip, read_zip_member
from trash_env.games import GAMES, game_of, get_game

FORMAT = 1
KIND = "trash-rl linear policy"
ACTIVATIONS = ("relu", "tanh")
METADATA_LIMIT = 1 << 16  # the metadata member: 64 KiB (a description is under 1 kB, a config included)
MAX_PARAMETERS = 1 << 24  # 16.8 million weights: 128 MiB of float64
MAX_LAYERS = 16  # hidden layers
HEADER_SLACK = 1 << 12  # an .npy member beyond its data: the header (numpy writes 128 bytes)
_FLOATS = ("float32", "float64")


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


class LinearAgent(Agent):
    """The policy ``weights``/``biases`` (one pair per layer; one pair: linear) of a game, playing the
    legal action of highest logit (deterministic). ``config``: the rules it was trained for, checked
    by :meth:`check_config` (without it only the game and the observation size are). ``sample``: play
    a draw from the softmax of the legal actions' logits instead, with each game's generator or, where a
    game has none, the agent's own (seeded by ``seed``): a self-play trainer's opponent playing a mixed
    strategy. Not saved: a loaded policy plays greedily."""

    batchable = True
    sample = False  # (a loaded policy, made without __init__, plays greedily)

    def __init__(
        self,
        weights: np.ndarray | Sequence[np.ndarray],
        biases: np.ndarray | Sequence[np.ndarray],
        game: str,
        activation: str = "tanh",
        config: Any = None,
        name: str = "linear",
        sample: bool = False,
        seed: int = 0,
    ) -> None:
        if isinstance(weights, np.ndarray):
            weights = [weights]
        if isinstance(biases, np.ndarray):
            biases = [biases]
        self.game = get_game(game)
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation {activation!r} is not one of {ACTIVATIONS}")
        if config is not None and game_of(config) is not self.game:
            raise ValueError(f"a {self.game.name} policy cannot carry a {game_of(config).name} configuration")
        self.weights = [np.array(w, dtype=np.float64) for w in weights]
        self.biases = [np.array(b, dtype=np.float64) for b in biases]
        self.activation, self.config, self.name, self.games = activation, config, name, (self.game.name,)
        self.sample, self._generator = bool(sample), np.random.default_rng(seed)
        self._check_shapes("LinearAgent")

    def _check_shapes(self, source: str) -> None:
        """A ValueError naming ``source`` unless the layers chain (observation -> ... -> actions) and
        every weight is finite."""
        weights, biases = self.weights, self.biases
        if not weights or len(weights) != len(biases) or len(weights) > MAX_LAYERS + 1:
            raise ValueError(
                f"{source}: {len(weights)} weight matrices and {len(biases)} biases (1 to {MAX_LAYERS + 1})"
            )
        for i, (w, b) in enumerate(zip(weights, biases)):
            if w.ndim != 2 or b.shape != (w.shape[1],) or min(w.shape) < 1:
                raise ValueError(
                    f"{source}: layer {i} has weights {w.shape} and bias {b.shape}: not (in, out) and (out,)"
                )
            if i and w.shape[0] != weights[i - 1].shape[1]:
                raise ValueError(
                    f"{source}: layer {i} takes {w.shape[0]} inputs, layer {i - 1} gives {weights[i - 1].shape[1]}"
                )
        if weights[-1].shape[1] != self.game.num_actions:
            raise ValueError(
                f"{source}: the last layer gives {weights[-1].shape[1]} logits, {self.game.name} has "
                f"{self.game.num_actions} actions"
            )
        if self.config is not None and weights[0].shape[0] != self.game.make_observer(self.config).size:
            raise ValueError(
                f"{source}: the first layer takes {weights[0].shape[0]} inputs, the configuration's observation "
                f"has {self.game.make_observer(self.config).size}"
            )
        for i, (w, b) in enumerate(zip(weights, biases)):
            for kind, values in (("weight", w), ("bias", b)):
                bad = values.size - int(np.count_nonzero(np.isfinite(values)))
                if bad:
                    raise ValueError(f"{source}: {kind}_{i} holds {bad:,} NaN or infinite values")

    @property
    def observation_size(self) -> int:
        return int(self.weights[0].shape[0])

    @property
    def layers(self) -> list[int]:
        """The hidden widths (empty: linear)."""
        return [int(w.shape[1]) for w in self.weights[:-1]]

    def logits_batch(self, observations: np.ndarray) -> np.ndarray:
        """The logits of every action for each row."""
        x = np.asarray(observations, np.float64).reshape(len(observations), -1)
        for w, b in zip(self.weights[:-1], self.biases[:-1]):
            x = x @ w + b
            x = np.maximum(x, 0.0) if self.activation == "relu" else np.tanh(x)
        return x @ self.weights[-1] + self.biases[-1]

    def act_batch(self, observations: np.ndarray, masks: np.ndarray, rngs: Sequence[Any]) -> np.ndarray:
        """For each row the legal action (mask > 0) of highest logit, ties to the lowest action; with
        ``sample``, a draw from the softmax over the legal actions (Gumbel-max: an illegal action's
        logit stays minus infinity), with the row's generator or the agent's own."""
        logits = np.where(np.asarray(masks) > 0, self.logits_batch(observations), -np.inf)
        if self.sample:
            logits = logits + np.stack([(rng or self._generator).gumbel(size=logits.shape[1]) for rng in rngs])
        return logits.argmax(axis=1)

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        return int(self.act_batch(view.observation[None], view.action_mask[None], [rng])[0])

    def check_config(self, config: Any) -> None:
        """A ValueError unless ``config`` is of this policy's game, with the observation size its first
        layer takes and, when the policy knows its rules, those rules (every field that differs named)."""
        super().check_config(config)
        size = self.game.make_observer(config).size
        if size != self.observation_size:
            raise ValueError(
                f"policy {self.name} takes observations of {self.observation_size}, these rules give {size}"
            )
        if self.config is not None:
            from agents.learned import check_compatible

            check_compatible(self._description(), config, source=f"policy {self.name}")

    def _description(self) -> dict[str, Any]:
        game = self.game
        return {
            "format": FORMAT,
            "kind": KIND,
            "game": game.env_name,
            "observation_version": game.observation_version,
            "observation_size": self.observation_size,
            "actions": game.num_actions,
            "layers": self.layers,
            "activation": self.activation,
            **({"config": self.config.to_dict()} if self.config is not None else {}),
        }

    def save(self, path: str | Path) -> Path:
        """Write the policy to ``path`` (``.npz`` added if missing), atomically; returns the path."""
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_name(path.name + ".npz")
        arrays = {"metadata": np.array(json.dumps(self._description()))}
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            arrays[f"weight_{i}"], arrays[f"bias_{i}"] = w, b
        with atomic_path(path) as partial, open(partial, "wb") as handle:
            np.savez(handle, **arrays)
        return path

    @classmethod
    def load(cls, path: str | Path, name: str | None = None) -> LinearAgent:
        """The policy saved at ``path`` (:meth:`save`), read weights-only and checked (the module
        docstring): a one-line ValueError naming the file and what is wrong otherwise."""
        path = Path(path)
        with open_zip(path, max_members=2 * (MAX_LAYERS + 1) + 1, kind=KIND) as archive:
            names = set(archive.namelist())
            if "metadata.npy" not in names:
                raise ValueError(f"{path} is not a {KIND}: it has no metadata")
            raw = _read_array(archive, "metadata.npy", path, METADATA_LIMIT, None, ("str",))
            metadata = _parse_metadata(path, raw)
            game = next(game for game in GAMES.values() if game.env_name == metadata["game"])
            widths = [metadata["observation_size"], *metadata["layers"], game.num_actions]
            count = sum((a + 1) * b for a, b in pairwise(widths))
            if count > MAX_PARAMETERS:
                raise ValueError(
                    f"{path}: its network would have {count:,} weights, over the limit of {MAX_PARAMETERS:,}"
                )
            expected = {"metadata.npy"}
            weights, biases = [], []
            for i, (a, b) in enumerate(pairwise(widths)):
                expected |= {f"weight_{i}.npy", f"bias_{i}.npy"}
                weights.append(_read_array(archive, f"weight_{i}.npy", path, None, (a, b), _FLOATS))
                biases.append(_read_array(archive, f"bias_{i}.npy", path, None, (b,), _FLOATS))
            if names != expected:
                extra = sorted(names - expected)
                raise ValueError(f"{path}: it holds {reprlib.repr(extra)}, which its network does not have")
        config = None
        if "config" in metadata:
            config = _config_of(path, game, metadata["config"])
        agent = cls.__new__(cls)
        agent.game = game
        agent.weights = [np.asarray(w, np.float64) for w in weights]
        agent.biases = [np.asarray(b, np.float64) for b in biases]
        agent.activation, agent.config, agent.games = metadata["activation"], config, (game.name,)
        agent.name = name or str(path)
        agent._check_shapes(str(path))
        return agent


def _read_array(
    archive: Any, member: str, path: Path, limit: int | None, shape: tuple[int, ...] | None, kinds: Sequence[str]
) -> np.ndarray:
    """The array ``member`` of the zip ``archive`` (the file ``path``): its header read first (shape
    ``shape`` unless None, a dtype of ``kinds``), then its data, no more bytes than that shape needs
    (or ``limit``), with ``allow_pickle=False``."""
    if member not in archive.namelist():
        raise ValueError(f"{path}: it has no {member.removesuffix('.npy')} (its network needs it)")
    if limit is None:
        limit = int(np.prod(shape)) * 8 + HEADER_SLACK
    data = read_zip_member(archive, member, limit, path)
    label = member.removesuffix(".npy")
    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
        header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        found, _, dtype = header(stream)
    except (ValueError, OSError, EOFError, SyntaxError, TypeError) as error:
        raise ValueError(f"{path}: its {label} is not a NumPy array ({error})") from None
    if dtype.hasobject or (dtype.name not in kinds and not (dtype.kind == "U" and "str" in kinds)):
        raise ValueError(f"{path}: its {label} is {dtype}, not {' or '.join(kinds)}")
    if shape is not None and tuple(found) != tuple(shape):
        raise ValueError(f"{path}: its {label} has shape {tuple(found)}, its network needs {tuple(shape)}")
    try:
        return np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError) as error:
        raise ValueError(f"{path}: its {label} is damaged ({error})") from None


def read_metadata(path: Path, raw: np.ndarray, kind: str, version: int) -> dict[str, Any]:
    """The JSON object a NumPy policy file's metadata array holds, if it says it is a ``kind`` of
    format ``version``; a one-line ValueError naming ``path`` otherwise (the kinds' own fields are theirs)."""
    from agents.learned import parse_json

    if raw.shape != ():
        raise ValueError(f"{path}: its metadata is not one string")
    metadata = parse_json(str(raw).encode(), f"{path}: its metadata")
    if not isinstance(metadata, dict) or metadata.get("kind") != kind or metadata.get("format") != version:
        raise ValueError(f"{path} is not a {kind} of format {version}")
    return metadata


def _parse_metadata(path: Path, raw: np.ndarray) -> dict[str, Any]:
    """The policy description held in the metadata array, checked field by field."""
    metadata = read_metadata(path, raw, KIND, FORMAT)
    games = {game.env_name: game for game in GAMES.values()}
    game = games.get(metadata.get("game"))
    if game is None:
        raise ValueError(f"{path}: unknown game {reprlib.repr(metadata.get('game'))} (known: {sorted(games)})")
    if metadata.get("observation_version") != game.observation_version:
        raise ValueError(
            f"{path}: observation layout v{metadata.get('observation_version')!r}, this package has "
            f"v{game.observation_version}"
        )
    if not _positive_int(metadata.get("observation_size")) or metadata.get("actions") != game.num_actions:
        raise ValueError(f"{path}: its metadata has no valid observation_size and actions ({game.num_actions})")
    layers = metadata.get("layers")
    if not isinstance(layers, list) or len(layers) > MAX_LAYERS or not all(map(_positive_int, layers)):
        raise ValueError(f"{path}: invalid layers {reprlib.repr(layers)} (up to {MAX_LAYERS} positive widths)")
    if metadata.get("activation") not in ACTIVATIONS:
        raise ValueError(
            f"{path}: unknown activation {reprlib.repr(metadata.get('activation'))} (known: {ACTIVATIONS})"
        )
    if "config" in metadata and not isinstance(metadata["config"], dict):
        raise ValueError(f"{path}: its config is not a rules configuration")
    return metadata


def _config_of(path: Path, game: Any, fields: dict[str, Any]) -> Any:
    """The rules configuration stored in a policy file, rebuilt and validated by the game."""
    try:
        return game.config_type.from_dict(fields)
    except (ValueError, TypeError, KeyError) as error:
        raise ValueError(f"{path}: its config is not valid rules ({error})") from None


def numpy_copy(agent: Agent) -> LinearAgent | None:
    """A torch policy (:class:`agents.learned.LearnedAgent`) as a NumPy :class:`LinearAgent` playing the
    same argmax (the same logits, in float64), for code that asks it millions of times in small batches
    (the rollouts of a local best response), where torch's per-call cost dominates; None unless it is an
    actor-critic MLP (PPO, A2C, MaskablePPO) on flattened observations with tanh or ReLU layers."""
    policy, metadata = getattr(agent, "policy", None), getattr(agent, "metadata", None)
    if policy is None or not isinstance(metadata, dict) or not hasattr(policy, "action_net"):
        return None
    from stable_baselines3.common.torch_layers import FlattenExtractor
    from torch import nn

    extractor = getattr(policy, "pi_features_extractor", None) or getattr(policy, "features_extractor", None)
    if not isinstance(extractor, FlattenExtractor):
        return None
    hidden = list(policy.mlp_extractor.policy_net)
    kinds = {nn.Tanh: "tanh", nn.ReLU: "relu"}
    linears, activations = hidden[0::2], hidden[1::2]
    if (
        len(linears) != len(activations)
        or not all(isinstance(layer, nn.Linear) for layer in [*linears, policy.action_net])
        or len({type(layer) for layer in activations}) > 1
        or any(type(layer) not in kinds for layer in activations)
    ):
        return None
    layers = [*linears, policy.action_net]
    weights = [layer.weight.detach().cpu().numpy().T for layer in layers]
    biases = [layer.bias.detach().cpu().numpy() for layer in layers]
    game = next(game.name for game in GAMES.values() if game.env_name == metadata.get("game"))
    activation = kinds[type(activations[0])] if activations else "tanh"
    return LinearAgent(weights, biases, game, activation=activation, name=agent.name)
