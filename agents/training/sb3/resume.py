"""Resuming a Stable-Baselines3 run without unpickling anything (``--resume FILE``).

SB3's own loader (``BaseAlgorithm.load``) unpickles the fields of a checkpoint's ``data`` member, so a
crafted file could run code. A resume instead builds the model from the settings as a new run does,
loads the weights and optimizer state as tensors only (``torch.load(weights_only=True)``) after
checking that they fit it (names, shapes, finite values), and restores SB3's step counters from the
JSON this package writes (``training_state`` in ``trash_rl.json``; for older files the plain-JSON
fields of ``data``, never its pickles). A checkpoint, self-play snapshot or learning curve that is
damaged is refused in one line before the run writes anything."""

from __future__ import annotations

import copy
import io
import json
import math
import warnings
import zipfile
from collections import deque
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from stable_baselines3.common.vec_env import DummyVecEnv

from agents import registry
from agents.arguments import (
    command_line,
    override_words,
    program_words,
    shell_command,
)
from agents.learned import (
    METADATA_NAME,
    LearnedAgent,
    describe_network,
    save_policy,
)
from agents.training.runs import (
    RunFolder,
)
from agents.training.sb3.envs import make_model
from agents.training.sb3.settings import COMMAND, MAX_COUNT, Args, rules_fields
from trash_env.files import read_zip_member
from trash_env.games import get_game

# ---------------------------------------------------------------------- resuming without unpickling
#
# SB3's own loader (BaseAlgorithm.load) unpickles the fields of a checkpoint's ``data`` member, so a crafted
# file could run code. A resume instead builds the model from the settings, as a new run does, loads the
# weights and optimizer state as tensors only (``torch.load(weights_only=True)``) after checking that they fit
# it, and restores SB3's step counters from JSON this package writes (``training_state`` in ``trash_rl.json``;
# for files written before, the plain-JSON fields of ``data``, never its pickles).

TRAINING_STATE_VERSION = 1
# SB3's counters that training goes on from, by the type each has; the rest of what SB3 saves (schedules,
# spaces, the policy class) is rebuilt from the settings. DQN and QR-DQN also keep their exploration.
COUNTERS: dict[str, type] = {
    "num_timesteps": int,
    "_episode_num": int,
    "_n_updates": int,
    "_current_progress_remaining": float,  # the learning-rate (and exploration) schedules' progress
}
EXPLORATION_COUNTERS: dict[str, type] = {"_n_calls": int, "exploration_rate": float}
# Settings a model keeps, by their flag: a resume notes those its checkpoint was trained with otherwise.
SETTING_FLAGS = {
    "learning_rate": "--learning-rate",
    "gamma": "--gamma",
    "ent_coef": "--ent-coef",
    "n_steps": "--n-steps",
    "batch_size": "--batch-size",
    "n_epochs": "--n-epochs",
    "learning_starts": "--learning-starts",
    "target_update_interval": "--target-update-interval",
}
DATA_LIMIT = 64 * 2**20  # bytes of SB3's data member read from an older checkpoint
HISTORY_LIMIT = 64 * 2**20  # bytes of a run's eval_history.json


def counters_of(algorithm: str) -> dict[str, type]:
    """The counters (:data:`COUNTERS`) a model of ``algorithm`` (``DQN``, ``MaskablePPO`` ...) trains on from."""
    return COUNTERS | (EXPLORATION_COUNTERS if algorithm in ("DQN", "QRDQN", "MaskedDQN", "MaskedQRDQN") else {})


def finite_number(value: Any) -> bool:
    """A JSON number (not a boolean) that is finite and within a 64-bit count."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return abs(value) <= MAX_COUNT if isinstance(value, int) else math.isfinite(value)


def number_settings(model_or_data: Any) -> dict[str, Any]:
    """The numeric settings of :data:`SETTING_FLAGS` that a model (or SB3's data, a dict) holds."""
    get = model_or_data.get if isinstance(model_or_data, dict) else lambda name: getattr(model_or_data, name, None)
    return {name: get(name) for name in SETTING_FLAGS if finite_number(get(name))}


def training_state(model: Any) -> dict[str, Any]:
    """What a checkpoint keeps (in its ``trash_rl.json``) for a resume to go on where it stopped, as
    JSON: SB3's counters, the settings the model trained with, and the recent episodes behind the
    logged rollout means."""
    episodes = [
        {"r": float(episode["r"]), "l": int(episode["l"]), "t": float(episode["t"])}
        for episode in model.ep_info_buffer or ()
        if isinstance(episode, dict) and {"r", "l", "t"} <= set(episode)
    ]
    return {
        "version": TRAINING_STATE_VERSION,
        "counters": {name: kind(getattr(model, name)) for name, kind in counters_of(type(model).__name__).items()},
        "settings": number_settings(model),
        "episodes": episodes,
    }


def save_checkpoint(model: Any, path: Path, config: Any, preset: str, **extra: Any) -> Path:
    """:func:`~agents.learned.save_policy` with the :func:`training_state` a resume needs: every
    policy file and checkpoint a run writes can be resumed without unpickling."""
    return save_policy(model, path, config, preset, training_state=training_state(model), **extra)


@dataclass
class Resume:
    """What :func:`prepare` read for ``--resume``, every part checked: nothing is read later."""

    parameters: dict[str, Any]  # SB3's state dicts by name (policy, policy.optimizer): tensors only
    counters: dict[str, Any]  # COUNTERS (and EXPLORATION_COUNTERS) to go on from
    episodes: list[dict[str, Any]]  # the recent episodes (SB3's ep_info_buffer), possibly none
    notes: list[str]  # settings the checkpoint was trained with otherwise, to log
    history: list[dict[str, Any]]  # the run's learning curve before the checkpoint
    snapshots: list[Any] | None  # the self-play pool up to the checkpoint (None without self-play)


def first_line(error: BaseException) -> str:
    """An exception as one short line: its message's first line (its type when it has none)."""
    lines = str(error).strip().splitlines()
    return lines[0][:300] if lines else type(error).__name__


def load_tensors(path: Path, name: str, raw: bytes) -> Any:
    """A ``.pth`` member loaded with ``torch.load(weights_only=True)``: tensors and plain containers
    only, anything else (a pickled object) refused before it is built."""
    import pickle

    import torch

    try:
        return torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:
        raise ValueError(f"{path}: its {name} holds more than tensors, which is never loaded") from None
    except Exception as error:
        raise ValueError(f"{path}: its {name} is damaged ({first_line(error)})") from None


def check_weights(path: Path, member: str, saved: Any, module: Any) -> None:
    """A ValueError unless ``saved`` is a state dict of ``module``: every name, shape and dtype as
    it has them (strict: no weight missing, none renamed or left over), every value finite."""
    import torch

    if not isinstance(saved, dict) or not all(
        isinstance(key, str) and isinstance(value, torch.Tensor) for key, value in saved.items()
    ):
        raise ValueError(f"{path}: its {member} is not a set of named tensors")
    wanted = module.state_dict()
    differences = [f"{key} missing" for key in wanted if key not in saved]
    differences += [f"{key} unexpected" for key in saved if key not in wanted]
    differences += [
        f"{key} is {tuple(saved[key].shape)} {saved[key].dtype}, not {tuple(value.shape)} {value.dtype}"
        for key, value in wanted.items()
        if key in saved and (saved[key].shape != value.shape or saved[key].dtype != value.dtype)
    ]
    if differences:
        more = f" and {len(differences) - 3} more" if len(differences) > 3 else ""
        raise ValueError(
            f"{path}: its {member} does not fit the network these settings build ({'; '.join(differences[:3])}{more})"
        )
    broken = [key for key, value in saved.items() if value.is_floating_point() and not bool(value.isfinite().all())]
    if broken:
        raise ValueError(f"{path}: its {member} holds non-finite weights ({', '.join(broken[:3])})")


def fits(value: Any, parameter: Any) -> bool:
    """An optimizer state value for ``parameter``: a finite number, or a finite tensor of its shape
    (or a scalar, Adam's step)."""
    import torch

    if isinstance(value, torch.Tensor):
        shaped = value.dim() == 0 or value.shape == parameter.shape
        return shaped and (not value.is_floating_point() or bool(value.isfinite().all()))
    return finite_number(value)


def check_optimizer_state(path: Path, member: str, saved: Any, optimizer: Any) -> dict[str, Any]:
    """The state of ``saved`` for ``optimizer``, with ``optimizer``'s own parameter groups (its
    hyperparameters, from the settings); a ValueError unless it is a state of these parameters."""
    fresh = optimizer.state_dict()
    wanted = [group["params"] for group in fresh["param_groups"]]
    groups = saved.get("param_groups") if isinstance(saved, dict) else None
    state = saved.get("state") if isinstance(saved, dict) else None
    if (
        not isinstance(state, dict)
        or not isinstance(groups, list)
        or [group.get("params") if isinstance(group, dict) else None for group in groups] != wanted
    ):
        raise ValueError(f"{path}: its {member} is not an optimizer state of this network's parameters")
    parameters = dict(
        zip(
            [index for group in wanted for index in group],
            [parameter for group in optimizer.param_groups for parameter in group["params"]],
            strict=True,
        )
    )
    for index, values in state.items():
        if index not in parameters or not isinstance(values, dict):
            raise ValueError(f"{path}: its {member} holds a state for a parameter the network does not have")
        if not all(fits(value, parameters[index]) for value in values.values()):
            raise ValueError(f"{path}: its {member} holds a state of parameter {index} that does not fit it")
    return {"state": state, "param_groups": copy.deepcopy(fresh["param_groups"])}


def dry_step(probe: Any, parameters: dict[str, Any]) -> None:
    """Load a copy of ``parameters`` into the throwaway model ``probe`` and take one optimizer step
    with zero gradients, as training's first update will: an optimizer state that does not fit fails
    here, before the run writes anything."""
    import torch

    probe.set_parameters(copy.deepcopy(parameters), exact_match=True, device="cpu")
    optimizer = probe.policy.optimizer
    for group in optimizer.param_groups:
        for parameter in group["params"]:
            parameter.grad = torch.zeros_like(parameter)
    optimizer.step()


def read_parameters(path: Path, archive: zipfile.ZipFile, probe: Any) -> dict[str, Any]:
    """SB3's state dicts of the checkpoint (``policy.pth``, ``policy.optimizer.pth``), as tensors
    only, checked against ``probe`` (a model built from the settings): each member no larger than
    four times the network, every weight named and shaped as the network has it and finite, the
    optimizer state one for these parameters; a ValueError naming the file and the problem."""
    import torch
    from stable_baselines3.common.save_util import recursive_getattr

    network_bytes = sum(tensor.numel() * tensor.element_size() for tensor in probe.policy.state_dict().values())
    limit = 4 * network_bytes + 2**20
    parameters: dict[str, Any] = {}
    for name in probe._get_torch_save_params()[0]:
        target, member = recursive_getattr(probe, name), f"{name}.pth"
        saved = load_tensors(path, member, read_zip_member(archive, member, limit, path))
        if isinstance(target, torch.optim.Optimizer):
            parameters[name] = check_optimizer_state(path, member, saved, target)
        else:
            check_weights(path, member, saved, target)
            parameters[name] = saved
    try:
        dry_step(probe, parameters)
    except Exception as error:
        raise ValueError(f"{path}: its weights do not load into the network ({first_line(error)})") from None
    return parameters


def check_counters(path: Path, where: str, values: Any, kinds: dict[str, type]) -> dict[str, Any]:
    """The counters ``kinds`` of ``values`` (a dict read from JSON), each of its type and range; a
    ValueError naming the first that is missing or wrong."""
    checked: dict[str, Any] = {}
    for name, kind in kinds.items():
        value = values.get(name) if isinstance(values, dict) else None
        valid = finite_number(value) and (kind is float or (isinstance(value, int) and value >= 0))
        if valid and name == "exploration_rate":
            valid = 0 <= value <= 1
        if not valid:
            raise ValueError(f"{path}: {where} has no valid {name} (found {value!r}), so it cannot be resumed")
        checked[name] = kind(value)
    return checked


def check_episodes(path: Path, episodes: Any, window: int) -> list[dict[str, Any]]:
    """The recent episodes of a training state: at most ``window`` of them, each its return, length
    and time as finite numbers."""
    valid = isinstance(episodes, list) and len(episodes) <= window
    valid = valid and all(
        isinstance(episode, dict) and set(episode) == {"r", "l", "t"} and all(map(finite_number, episode.values()))
        for episode in episodes
    )
    if not valid:
        raise ValueError(f"{path}: its {METADATA_NAME} has a training_state whose episodes are unreadable")
    return episodes


def read_sb3_data(path: Path, archive: zipfile.ZipFile) -> dict[str, Any]:
    """The plain-JSON fields of SB3's ``data`` member (of a checkpoint written before this package
    kept its training state): every value SB3 pickled (``:serialized:``) is dropped unread."""
    raw = read_zip_member(archive, "data", DATA_LIMIT, path)
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as error:
        raise ValueError(f"{path}: its SB3 data is not JSON ({first_line(error)})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: its SB3 data is not a JSON object")
    return {key: value for key, value in data.items() if not (isinstance(value, dict) and ":serialized:" in value)}


def read_training_state(
    path: Path, metadata: dict[str, Any], archive: zipfile.ZipFile, window: int
) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """The counters, settings and recent episodes a resume goes on from: the ``training_state`` of
    ``trash_rl.json``, or for an older file the plain-JSON fields of SB3's data (no episodes)."""
    kinds = counters_of(metadata["algorithm"])
    state = metadata.get("training_state")
    if state is None:
        data = read_sb3_data(path, archive)
        return check_counters(path, "its SB3 data", data, kinds), number_settings(data), []
    if not isinstance(state, dict) or state.get("version") != TRAINING_STATE_VERSION:
        found = state.get("version") if isinstance(state, dict) else state
        raise ValueError(f"{path}: its {METADATA_NAME} has a training_state of an unknown version ({found!r})")
    counters = check_counters(path, f"its {METADATA_NAME}'s training_state", state.get("counters"), kinds)
    settings = state.get("settings")
    return (
        counters,
        number_settings(settings if isinstance(settings, dict) else {}),
        check_episodes(path, state.get("episodes", []), window),
    )


def probe_model(args: Args, opponents: list[Any], run_dir: Path) -> Any:
    """A model built as the run will build its own (:func:`make_model`), on one environment and with
    SB3's remarks on its sizes silenced: what a checkpoint to resume must fit. Nothing is written."""
    game, rules = get_game(args.game), rules_fields(args)
    vec_env = DummyVecEnv([lambda: game.single_agent_env(preset=args.preset, opponents=opponents, **rules)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make_model(args, vec_env, run_dir)


def check_network(path: Path, metadata: dict[str, Any], probe: Any) -> None:
    """A ValueError when the checkpoint describes another network than the settings build."""
    trained, built = metadata.get("network"), describe_network(probe)
    if trained is not None and trained != built:
        flags = "--net-arch and --n-quantiles" if "n_quantiles" in built else "--net-arch"
        raise ValueError(f"{path} holds the network {trained}, these settings build {built}: give the run's {flags}")


def read_checkpoint(path: Path, metadata: dict[str, Any], probe: Any) -> tuple[dict[str, Any], ...]:
    """The parameters (:func:`read_parameters`) and the training state (:func:`read_training_state`)
    of the checkpoint at ``path``; a ValueError for a file that is not a whole, undamaged checkpoint."""
    check_network(path, metadata, probe)
    try:
        with zipfile.ZipFile(path) as archive:
            parameters = read_parameters(path, archive, probe)
            counters, settings, episodes = read_training_state(path, metadata, archive, probe._stats_window_size)
    except ValueError:
        raise
    except Exception as error:  # the archive itself: truncated or changed since read_metadata read it
        raise ValueError(f"{path} is not a readable checkpoint ({first_line(error)})") from None
    if metadata.get("num_timesteps", counters["num_timesteps"]) != counters["num_timesteps"]:
        raise ValueError(
            f"{path}: its {METADATA_NAME} says {metadata['num_timesteps']!r} timesteps, its training state "
            f"{counters['num_timesteps']}: the file is damaged"
        )
    return parameters, counters, settings, episodes


def read_history(path: Path, before: int, baselines: list[str]) -> list[dict[str, Any]]:
    """The points of a run's learning curve (``eval_history.json``) before ``before`` timesteps, which
    a resumed run extends; a ValueError naming the file if it is not a curve against ``baselines``."""
    if not path.is_file():
        return []
    try:
        if path.stat().st_size > HISTORY_LIMIT:
            raise ValueError(f"larger than {HISTORY_LIMIT:,} bytes")
        rows = json.loads(path.read_bytes()).get("history")
    except (OSError, ValueError, RecursionError, AttributeError) as error:
        rows = f"unreadable: {first_line(error)}"

    def point(row: Any) -> bool:
        if (
            not isinstance(row, dict)
            or isinstance(row.get("timesteps"), bool)
            or not isinstance(row.get("timesteps"), int)
        ):
            return False
        scores = [row.get(baseline) for baseline in baselines]
        return all(
            isinstance(score, dict)
            and finite_number(score.get("mean"))
            and all(score.get(key) is None or finite_number(score.get(key)) for key in ("low", "high"))
            for score in scores
        )

    if not isinstance(rows, list) or not all(map(point, rows)):
        found = rows if isinstance(rows, str) else "points without a score against each of them"
        raise ValueError(
            f"{path} is not a learning curve against {', '.join(baselines)} ({found}): resume with the run's "
            "--eval-baselines, or move the file out of the run to start its curve again"
        )
    return [row for row in rows if row["timesteps"] < before]


def reload_snapshots(run_dir: Path, timesteps: int, pool_size: int, config: Any) -> list[Any]:
    """A resumed self-play run's pool: its newest snapshots up to the step it resumes from, each loaded
    as weights only (nothing unpickled) for these rules; a ValueError naming a snapshot that cannot be."""
    steps = sorted(
        int(path.stem.removeprefix("step_"))
        for path in (run_dir / "snapshots").glob("step_*.zip")
        if path.stem.removeprefix("step_").isdigit()
    )
    pool = []
    for step in [step for step in steps if step <= timesteps][-pool_size:]:
        path = run_dir / "snapshots" / f"step_{step}.zip"
        try:
            snapshot = LearnedAgent.load(path, name=f"snapshot_{step}")
            snapshot.check_config(config)
        except ValueError as error:
            raise ValueError(
                f"self-play snapshot {path} cannot be loaded as weights only ({error}); "
                f"move it out of {path.parent} to resume without it"
            ) from None
        pool.append(snapshot)
    return pool


def read_resume(args: Args, config: Any, metadata: dict[str, Any], folder: RunFolder, opponents: list[Any]) -> Resume:
    """Everything ``--resume`` goes on from, read and checked before the run writes anything: the
    checkpoint's weights, optimizer state and counters (:func:`read_checkpoint`, against a model
    built from the settings), and from the run folder its learning curve and self-play snapshots."""
    assert args.resume is not None
    path = Path(args.resume)
    probe = probe_model(args, opponents, folder.path)
    try:
        parameters, counters, settings, episodes = read_checkpoint(path, metadata, probe)
        notes = [
            f"{path} was trained with {flag} {settings[name]}; this run trains with {getattr(probe, name)}"
            for name, flag in SETTING_FLAGS.items()
            if name in settings and hasattr(probe, name) and settings[name] != getattr(probe, name)
        ]
    finally:
        probe.env.close()
    steps = counters["num_timesteps"]
    history = [] if folder.replace else read_history(folder.path / "eval_history.json", steps, args.eval_baselines)
    snapshots = None
    if args.self_play:
        snapshots = [] if folder.replace else reload_snapshots(folder.path, steps, args.pool_size, config)
    return Resume(parameters, counters, episodes, notes, history, snapshots)


def continue_from(model: Any, resume: Resume) -> None:
    """Set ``model`` (built from the settings, its parameters loaded) to the checkpoint's counters
    and recent episodes, so ``learn(reset_num_timesteps=False)`` goes on as SB3's own loader would."""
    for name, value in resume.counters.items():
        setattr(model, name, value)
    if resume.episodes:
        model.ep_info_buffer = deque(resume.episodes, maxlen=model._stats_window_size)
        model.ep_success_buffer = deque(maxlen=model._stats_window_size)


def resume_command(args: Args, folder: RunFolder, checkpoint: Path) -> str:
    """The command line that continues this run from ``checkpoint`` with the same settings (rules
    given from Python become ``--override`` flags)."""
    defaults = list(registry.default_baselines(args.game))
    settings = replace(
        args,
        resume=checkpoint,
        run_name=folder.name,
        overwrite=False,
        # What resolve_baselines filled in: the game's defaults, and --self-play-only's placeholder opponent
        # and the --self-play it implies (given again, --opponents would be refused with --self-play-only).
        opponents=[] if args.self_play_only or args.opponents == defaults else args.opponents,
        self_play=args.self_play and not args.self_play_only,
        eval_baselines=[] if args.eval_baselines == defaults else args.eval_baselines,
        rules={},
        overrides=[*override_words(args.rules), *args.overrides],
    )
    return shell_command([*program_words(COMMAND), *command_line(settings)])
