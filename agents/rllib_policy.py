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

RLlib's own ``set_state`` is not strict for a module built with
``inference_only=False``: weights it lacks keep their random initial values. So
the weights are checked against the module's own state (``get_state``) first,
and a folder is refused in one line naming ``weights.npz`` and what is wrong if
it holds no weights, or lacks, adds or renames one, or one has another shape or
dtype or a NaN or infinite value. The module described may have at most
:data:`agents.learned.MAX_PARAMETERS` parameters (counted on PyTorch's ``meta``
device, which allocates nothing, before it is built); each ``.npy`` member is
read with a bound (its tensor's bytes plus :data:`NPY_HEADER_LIMIT`, checked
before reading) and its header's shape checked before its data is;
``trash_rl.json`` may hold at most :data:`agents.learned.METADATA_LIMIT` bytes.

The agent plays the module's most preferred legal action (deterministic), from
the observation of ``trash_v0`` and its action mask, as the module's own
action-masking forward pass does.

Needs the ``rllib`` extra.
"""

from __future__ import annotations

import io
import json
import reprlib
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent, SeatView
from agents.learned import (
    MAX_LAYERS,
    MAX_PARAMETERS,
    METADATA_LIMIT,
    METADATA_NAME,
    check_compatible,
    check_finite,
    check_weight,
    check_weight_names,
    describe_policy,
    parse_json,
)
from trash_env.extras import missing_extra
from trash_env.files import atomic_folder, open_zip, read_bounded, read_zip_member

ALGORITHM = "RLlib PPO"
MODULE_DIR = "module"
WEIGHTS_NAME = "weights.npz"
NPY_HEADER_LIMIT = 1 << 16  # an .npy member beyond its array's bytes: its header (128 bytes as numpy writes it)


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


def _make_module(space: Any, model_config: dict[str, Any], device: str) -> Any:
    """RLlib's ``ActionMaskingTorchRLModule`` for ``space``, its tensors made on ``device``."""
    import gymnasium as gym
    import torch
    from ray.rllib.algorithms.ppo.ppo_catalog import PPOCatalog
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from trash_env.trash.rules import NUM_ACTIONS

    with torch.device(device):
        return ActionMaskingTorchRLModule(
            observation_space=space,
            action_space=gym.spaces.Discrete(NUM_ACTIONS),
            inference_only=False,
            learner_only=False,
            model_config=model_config,
            catalog_class=PPOCatalog,
        )


def _check_model_config(folder: Path, model_config: Any) -> dict[str, Any]:
    """``model_config`` checked to be a JSON object whose lists (the layer widths) are short."""
    if not isinstance(model_config, dict):
        raise ValueError(f"{folder}: its {METADATA_NAME} has no model_config (exported by an older train_rllib.py?)")
    for key, value in model_config.items():
        if isinstance(value, list) and len(value) > MAX_LAYERS:
            raise ValueError(
                f"{folder}: its {METADATA_NAME} has a model_config {reprlib.repr(key)} of {len(value):,} items"
            )
    return model_config


def _read_npy(source: str, name: str, data: bytes, expected: np.ndarray) -> np.ndarray:
    """The array of one ``.npy`` member, its header's shape and dtype checked against the module's
    (``expected``) before its data is read, then its values checked finite."""
    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
        read_header = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
        if version not in read_header:
            raise ValueError(f"npy format version {version} is not read")
        shape, _, dtype = read_header[version](stream)
    except ValueError as error:
        raise ValueError(f"{source}: weight {name!r} is not a readable array ({error})") from None
    check_weight(source, name, shape, str(dtype), (expected.shape, str(expected.dtype)))
    try:
        values = np.load(io.BytesIO(data), allow_pickle=False)
    except ValueError as error:  # data cut short
        raise ValueError(f"{source}: weight {name!r} is not a readable array ({error})") from None
    check_finite(source, name, values)
    return values


def read_weights(folder: Path, expected: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The arrays of ``weights.npz`` (plain arrays, ``allow_pickle=False``), checked to be exactly
    the module's state (``expected``): every name, shape and dtype, finite values; each member read
    with a bound."""
    path = folder / WEIGHTS_NAME
    source = str(path)
    with open_zip(path, kind="weights file") as archive:
        names = archive.namelist()
        others = [name for name in names if not name.endswith(".npy")]
        if others:
            raise ValueError(f"{source} holds {reprlib.repr(others[0])}, which is not an array (.npy)")
        members = {name.removesuffix(".npy"): name for name in names}
        check_weight_names(source, members, expected)
        return {
            name: _read_npy(
                source,
                name,
                read_zip_member(archive, members[name], want.nbytes + NPY_HEADER_LIMIT, path),
                want,
            )
            for name, want in expected.items()
        }


def build_module(folder: Path, metadata: dict[str, Any]) -> Any:
    """The action-masking RLModule, rebuilt from ``model_config`` with the weights of ``weights.npz``
    (plain arrays, loaded with ``allow_pickle=False``): nothing from the folder is unpickled. The
    module's size is bounded before it is built, and the weights must be exactly its state."""
    import gymnasium as gym

    from trash_env.trash.rules import NUM_ACTIONS

    model_config = _check_model_config(folder, metadata.get("model_config"))
    size = metadata.get("observation_size")
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"{folder}: its {METADATA_NAME} has no valid observation_size")
    space = gym.spaces.Dict(
        {
            "action_mask": gym.spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
            "observations": gym.spaces.Box(0.0, 1.0, (size,), np.float32),
        }
    )
    try:  # first on the meta device, which allocates nothing, to count its parameters
        count = sum(tensor.numel() for tensor in _make_module(space, model_config, "meta").state_dict().values())
    except Exception as error:  # a model_config RLlib does not accept
        raise ValueError(f"{folder}: the RLlib module could not be built: {error}") from None
    if count > MAX_PARAMETERS:
        raise ValueError(f"{folder}: its module would have {count:,} parameters, over the limit of {MAX_PARAMETERS:,}")
    try:
        module = _make_module(space, model_config, "cpu")
    except Exception as error:  # as above
        raise ValueError(f"{folder}: the RLlib module could not be built: {error}") from None
    state = read_weights(folder, module.get_state())
    try:
        module.set_state(state)
    except Exception as error:  # checked above; whatever RLlib finds besides
        raise ValueError(f"{folder}: the RLlib module could not be loaded: {error}") from None
    module.eval()
    return module


def is_rllib_policy(path: str | Path) -> bool:
    path = Path(path)
    return path.is_dir() and (path / METADATA_NAME).is_file()


def read_rllib_metadata(folder: str | Path) -> dict[str, Any]:
    """The description of an exported folder, read with a bound (:data:`agents.learned.METADATA_LIMIT`);
    a ValueError naming the folder if it is missing, not JSON, not an RLlib policy's, or the folder
    has no weights."""
    folder = Path(folder)
    path = folder / METADATA_NAME
    metadata = parse_json(read_bounded(path, METADATA_LIMIT), str(path))
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
            raise missing_extra("RLlib policies", "rllib", error) from None
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
