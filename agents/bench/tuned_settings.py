"""The tunable built-ins' search spaces and the named settings tuning makes of them (issue 51).

:data:`SEARCH_SPACES` is written down once here: :mod:`agents.bench.tune` samples from it, the docs'
table is generated from it (:func:`describe_space`), and a settings file may hold only what it
proposes. A settings file (``agents/bench/tuned/NAME.json``, :class:`SettingsFile`) keeps, for each
tuned algorithm, the best trial's settings and the study's summary; ``trash-bench run --algorithm A
--settings NAME`` trains with them (:func:`agents.bench.algorithms.load_algorithm`, spec ``A@NAME``),
files the results as ``A-NAME`` and records the settings in each (:func:`settings_record`). Files are
read as data only (pydantic), with a one-line refusal naming the file and what is wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError, with_config

from agents.bench.results import FILE_CONFIG, Count, Figure, Key, SettingsRecord, check_name
from trash_env.files import read_bounded, write_json
from trash_env.schema import Integer, Number, Text, first_problem

TUNED = Path(__file__).parent / "tuned"  # the settings files shipped with the package
SETTINGS_FORMAT = 1
SETTINGS_LIMIT = 1 << 20  # bytes of a settings file read

Value = int | float | str | tuple[int, ...]
Space = Callable[[Any], dict[str, Value]]


def _widths(trial: Any, name: str = "net_arch") -> tuple[int, ...]:
    """Hidden layer widths, as Optuna takes categorical choices: a string ``"64x64"``."""
    chosen = trial.suggest_categorical(name, ["64x64", "128x128", "256x256"])
    return tuple(int(width) for width in chosen.split("x"))


def _learning(trial: Any, rates: tuple[float, float] = (5e-5, 3e-3)) -> dict[str, Value]:
    """What every search space tunes: the learning rate (log-uniform) and the discount."""
    return {
        "learning_rate": trial.suggest_float("learning_rate", *rates, log=True),
        "gamma": trial.suggest_categorical("gamma", [0.98, 0.99, 0.995, 0.999]),
    }


def _entropy(trial: Any) -> dict[str, Value]:
    """The policy-gradient learners' entropy bonus (log-uniform)."""
    return {"ent_coef": trial.suggest_float("ent_coef", 1e-6, 3e-2, log=True)}


def _maskable_ppo(trial: Any) -> dict[str, Value]:
    return {
        **_learning(trial),
        "n_steps": trial.suggest_categorical("n_steps", [64, 128, 256, 512]),
        "batch_size": trial.suggest_categorical("batch_size", [64, 128, 256, 512]),
        "n_epochs": trial.suggest_categorical("n_epochs", [3, 5, 10, 20]),
        **_entropy(trial),
        "net_arch": _widths(trial),
    }


def _masked_a2c(trial: Any) -> dict[str, Value]:
    steps = {"n_steps": trial.suggest_categorical("n_steps", [5, 8, 16, 32, 64])}
    return {**_learning(trial), **steps, **_entropy(trial), "net_arch": _widths(trial)}


def _masked_q(trial: Any) -> dict[str, Value]:
    return {
        **_learning(trial, (1e-5, 1e-3)),
        "batch_size": trial.suggest_categorical("batch_size", [32, 64, 128, 256]),
        "learning_starts": trial.suggest_categorical("learning_starts", [500, 2000, 5000]),
        "target_update_interval": trial.suggest_categorical("target_update_interval", [500, 1000, 2000, 5000]),
        "net_arch": _widths(trial),
    }


def _masked_qrdqn(trial: Any) -> dict[str, Value]:
    return {**_masked_q(trial), "n_quantiles": trial.suggest_categorical("n_quantiles", [10, 25, 50])}


def _fast_ppo(trial: Any) -> dict[str, Value]:
    return {
        **_learning(trial),
        "n_envs": trial.suggest_categorical("n_envs", [16, 32, 64, 128]),
        "n_steps": trial.suggest_categorical("n_steps", [16, 32, 64, 128]),
        "epochs": trial.suggest_categorical("epochs", [2, 4, 10, 20]),
        "minibatch": trial.suggest_categorical("minibatch", [256, 512, 1024, 2048]),
        **_entropy(trial),
        "hidden": _widths(trial, "hidden"),
    }


# Each tunable built-in's search space: a function of an Optuna trial to the settings it proposes.
SEARCH_SPACES: dict[str, Space] = {
    "maskable_ppo": _maskable_ppo,
    "masked_a2c": _masked_a2c,
    "masked_dqn": _masked_q,
    "masked_qrdqn": _masked_qrdqn,
    "fast_ppo": _fast_ppo,
}


@dataclass(frozen=True)
class Study:
    """A study's summary as a settings file keeps it."""

    tasks: tuple[Text, ...]
    budget_fraction: Figure
    trials: Count  # the trials that ended (completed, pruned, failed by an error)
    completed: Count
    pruned: Count
    best_value: Figure
    best_trial: Count
    importance: dict[Key, Figure]
    seconds: Figure  # the wall time of every ended trial
    timesteps: Count  # the counted timesteps of every ended trial
    package_version: Text


@dataclass(frozen=True)
class Tuned:
    """One algorithm's tuned settings and the study they came from."""

    values: dict[Key, Integer | Number | Text | tuple[Integer, ...]]
    study: Study


@with_config(FILE_CONFIG)
@dataclass(frozen=True)
class SettingsFile:
    """A named, versioned set of tuned settings (``agents/bench/tuned/NAME.json``)."""

    format: Count
    name: Text
    algorithms: dict[Key, Tuned] = field(default_factory=dict)


_SETTINGS = TypeAdapter(SettingsFile)


def settings_path(name: str) -> Path:
    """Where the package keeps the settings named ``name`` (a plain name: no path)."""
    check_name(name, "settings name")
    return TUNED / f"{name}.json"


def read_settings(path: Path) -> SettingsFile:
    """The settings file at ``path``, checked: a ValueError in one line naming the file otherwise."""
    try:
        data = _SETTINGS.validate_json(read_bounded(path, SETTINGS_LIMIT))
    except OSError as error:
        raise ValueError(f"{path}: cannot be read ({error.strerror or error})") from None
    except ValidationError as error:
        problem = first_problem(error)
        raise ValueError(f"{path}: {problem.field or 'the file'} {problem.message.lower()}") from None
    if data.format != SETTINGS_FORMAT:
        raise ValueError(f"{path}: format {data.format}, this version reads format {SETTINGS_FORMAT}")
    for algorithm, tuned in data.algorithms.items():
        if algorithm not in SEARCH_SPACES:
            raise ValueError(f"{path}: {algorithm!r} is not a tunable algorithm ({', '.join(SEARCH_SPACES)})")
        unknown = sorted(set(tuned.values) - set(space_names(algorithm)))
        if unknown:
            raise ValueError(f"{path}: {algorithm} has settings {unknown} outside its search space")
    return data


def tuned_values(algorithm: str, name: str) -> dict[str, Any]:
    """The settings named ``name`` for ``algorithm``, from the package's settings files."""
    path = settings_path(name)
    if not path.is_file():
        known = sorted(p.stem for p in TUNED.glob("*.json"))
        raise ValueError(f"unknown settings {name!r}: the package has {known or 'none'}")
    tuned = read_settings(path).algorithms.get(algorithm)
    if tuned is None:
        tuned_ones = sorted(read_settings(path).algorithms)
        raise ValueError(f"settings {name!r} have nothing for {algorithm} (they tune {tuned_ones})")
    return dict(tuned.values)


def settings_name(spec: str) -> str:
    """The name the results of ``ALGORITHM@NAME`` are filed under, ``ALGORITHM-NAME``, once the
    package's settings ``NAME`` are found to tune ``ALGORITHM`` (one line otherwise)."""
    algorithm, _, name = spec.partition("@")
    tuned_values(algorithm, name)
    return check_name(f"{algorithm}-{name}", "algorithm name")


def settings_record(spec: str) -> SettingsRecord | None:
    """What a run of ``spec`` (``ALGORITHM@NAME``: :func:`agents.bench.algorithms.load_algorithm`)
    records of its settings, or None for a spec without settings."""
    algorithm, at, name = spec.partition("@")
    return SettingsRecord(name, tuned_values(algorithm, name)) if at else None


def space_names(algorithm: str) -> list[str]:
    """The settings an algorithm's search space proposes (what a settings file may hold for it)."""
    import optuna

    return list(SEARCH_SPACES[algorithm](optuna.trial.FixedTrial(_any_point(algorithm))))


class _Probe:
    """A stand-in for an Optuna trial that records what a search space asks of it."""

    def __init__(self) -> None:
        self.point: dict[str, Any] = {}  # each parameter's first choice or lower bound
        self.ranges: dict[str, str] = {}  # each parameter's range, in words

    def suggest_float(self, name: str, low: float, high: float, log: bool = False) -> float:
        self.point[name] = low
        self.ranges[name] = f"{low:g} to {high:g}" + (", log-uniform" if log else ", uniform")
        return low

    def suggest_categorical(self, name: str, choices: list[Any]) -> Any:
        self.point[name] = choices[0]
        self.ranges[name] = "one of " + ", ".join(str(choice) for choice in choices)
        return choices[0]


def _any_point(algorithm: str) -> dict[str, Any]:
    probe = _Probe()
    SEARCH_SPACES[algorithm](probe)
    return probe.point


def describe_space(algorithm: str) -> dict[str, str]:
    """``algorithm``'s search space in words: each parameter's range (the docs' table)."""
    probe = _Probe()
    SEARCH_SPACES[algorithm](probe)
    return probe.ranges


def export(path: Path, name: str, algorithm: str, tuned: Tuned) -> SettingsFile:
    """Write ``algorithm``'s tuned settings into the settings file at ``path`` named ``name`` (kept
    beside the other algorithms' there), atomically; returns the file's contents."""
    import dataclasses

    settings_path(name)  # a plain name
    current = read_settings(path) if path.exists() else SettingsFile(SETTINGS_FORMAT, name, {})
    if current.name != name:
        raise ValueError(f"{path}: holds the settings {current.name!r}, not {name!r}")
    updated = dataclasses.replace(current, algorithms={**current.algorithms, algorithm: tuned})
    write_json(path, _SETTINGS.dump_python(updated, mode="json"))
    return updated
