"""What both training libraries share: run folders that are never overwritten silently, the rules
flags of their settings, the result of a run (:class:`TrainResult`) and its final evaluation.

The rule of run folders, as users of Stable-Baselines3's zoo and TensorBoard know it:

- **No ``--run-name``**: the run goes to ``OUT_DIR/DEFAULT_NAME``; if that folder
  already holds a run, to the first free ``DEFAULT_NAME_2``, ``_3``, ... and the
  script says so.
- **An explicit ``--run-name``** whose folder already holds a run is refused,
  naming ``--resume`` (continue it) and ``--overwrite`` (replace it).
- **``--resume FILE``** continues the run that FILE belongs to (its folder, when
  FILE is in a run's ``checkpoints/`` or ``snapshots/``, or is its ``policy.zip``);
  writing into that run is what resuming means.
- **``--overwrite``** empties the folder before the run writes anything.

A folder "holds a run" when it exists and is not empty. ``--run-name`` is a plain folder name (no
``/``, no leading ``.``), so a run never writes outside ``--out-dir``; the folder is checked
writable before the run starts, and a run that fails before it has trained leaves no folder
behind (so the next run's default name is not bumped to ``_2``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Protocol

from agents.arguments import Flag
from agents.base import Agent
from agents.evaluation.summary import final_evaluation, write_json
from agents.processes import GracefulStop

logger = logging.getLogger(__name__)

# The rules flags of both training commands' settings: ``--override FIELD=VALUE`` given once per field (as
# trash-evaluate and trash-record take it), and rules given from Python only (the benchmark suite's tasks).
Overrides = Annotated[list[str], Flag(name="override", metavar="FIELD=VALUE", repeated=True)]
Rules = Annotated[dict[str, Any], Flag(hidden=True)]


def shown_default(text: str, **options: Any) -> Any:
    """``--help``'s "(default: TEXT)" for a field whose default value says nothing by itself (an empty
    list the game fills in, a name made from other settings): the :class:`~agents.arguments.Flag` of its
    ``Annotated`` type, with any other option of it (``metavar``)."""
    return Flag(default_text=text, **options)


RUN_FILES = ("args.json",)  # what marks a folder as a run's, besides anything else in it
CHECKPOINT_FOLDERS = ("checkpoints", "snapshots")


def holds_run(folder: Path) -> bool:
    return folder.is_dir() and any(folder.iterdir())


def run_of(path: Path) -> Path | None:
    """The run folder a checkpoint or policy file (or RLlib checkpoint folder) belongs to, if any."""
    path = Path(path).resolve()
    if path.parent.name in CHECKPOINT_FOLDERS:
        return path.parent.parent
    if any((path.parent / name).is_file() for name in RUN_FILES):
        return path.parent
    return None


@dataclass(frozen=True)
class RunFolder:
    path: Path
    name: str
    note: str | None  # what to tell the user (a fresh name was chosen), or None
    replace: bool  # empty the folder before writing (--overwrite of another run)

    def claim(self) -> Path:
        """Create the folder (emptied first with ``--overwrite``); call once all checks passed."""
        if self.replace and self.path.exists():
            shutil.rmtree(self.path)
        self.path.mkdir(parents=True, exist_ok=True)
        return self.path

    def release(self) -> None:
        """After a run that failed before training: remove the folder again if it holds nothing but
        its ``args.json`` (a folder holding anything else, a resumed run's above all, stays as it is),
        so a failed start leaves no folder behind and the next run's default name is not bumped."""
        if not self.path.is_dir() or any(path.name not in RUN_FILES for path in self.path.iterdir()):
            return
        with contextlib.suppress(OSError):
            for name in RUN_FILES:
                (self.path / name).unlink(missing_ok=True)
            self.path.rmdir()

    def start(self, settings: Any) -> Path:
        """Begin a run here once its settings are checked: say where it goes if a fresh name was
        chosen, claim the folder and write the settings (the dataclass ``settings``) to ``args.json``."""
        if self.note:
            logger.info(self.note)
        path = self.claim()
        write_json(path / "args.json", json.loads(json.dumps(dataclasses.asdict(settings), default=str)))
        return path


# The longest file name most file systems take (NAME_MAX, in bytes).
NAME_MAX = 255


def check_run_name(run_name: str) -> None:
    """A ValueError unless ``run_name`` (given: empty means the default) is a plain folder name, so
    that the run goes to ``OUT_DIR/NAME`` and nowhere else: not blank, no path separator, no leading
    dot (``.``, ``..``, hidden folders), no control character, at most 255 bytes."""
    if not run_name:
        return
    problems = {
        "is blank": not run_name.strip(),
        "holds a path separator": any(separator in run_name for separator in ("/", "\\", os.sep, os.altsep or "/")),
        "starts with a dot": run_name.startswith("."),
        "holds a control character": any(ord(character) < 32 or ord(character) == 127 for character in run_name),
        f"is longer than {NAME_MAX} bytes": len(run_name.encode("utf-8", "surrogateescape")) > NAME_MAX,
    }
    problem = next((problem for problem, found in problems.items() if found), None)
    if problem:
        raise ValueError(f"--run-name {run_name!r} {problem}: give a plain folder name, made inside --out-dir")


def check_writable(out_dir: Path, folder: RunFolder) -> None:
    """A ValueError naming ``--out-dir`` unless the run folder can be made and
    written: the nearest of it and its parents that exists must be a folder in which a folder can be
    made (tried with a temporary one, removed at once: permission bits alone do not tell, for root
    or on a read-only or virtual file system); with ``--overwrite`` its parent too."""
    places = [folder.path.parent] if folder.replace else []
    existing = folder.path
    try:
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
    except OSError as error:
        raise ValueError(f"--out-dir {str(out_dir)!r}: {str(existing)!r} cannot be read ({error.strerror})") from None
    flag = f"--out-dir {str(out_dir)!r}"
    if not existing.is_dir():
        raise ValueError(f"{flag}: {str(existing)!r} is a file, not a folder")
    for place in [existing, *places]:
        try:
            os.rmdir(tempfile.mkdtemp(prefix=".trash-rl-write-check-", dir=place))
        except OSError as error:
            raise ValueError(f"{flag}: cannot write in {str(place)!r} ({error.strerror or error})") from None


def choose_run_folder(
    out_dir: Path, run_name: str, default_name: str, overwrite: bool, resume: Path | None
) -> RunFolder:
    """Where a run writes, by the rule of the module docstring; a ValueError (before anything
    is written) when ``--run-name`` is not a plain name or holds another run, or the folder cannot be
    written."""
    check_run_name(run_name)
    try:
        folder = pick_run_folder(Path(out_dir), run_name, default_name, overwrite, resume)
    except OSError as error:  # a folder on the way that cannot be listed
        raise ValueError(f"--out-dir {str(out_dir)!r}: {error.strerror}: {str(error.filename)!r}") from None
    check_writable(Path(out_dir), folder)
    return folder


def pick_run_folder(out_dir: Path, run_name: str, default_name: str, overwrite: bool, resume: Path | None) -> RunFolder:
    """The run folder by the rule of the module docstring; a ValueError when an explicit
    ``--run-name`` holds another run."""
    resumed_run = run_of(resume) if resume is not None else None
    if run_name:
        folder = out_dir / run_name
        continuing = resumed_run is not None and folder.resolve() == resumed_run
        if holds_run(folder) and not continuing and not overwrite:
            raise ValueError(
                f"--run-name {run_name}: {folder} already holds a run; continue it with --resume "
                f"(a file in {folder / 'checkpoints'}), replace it with --overwrite, or choose another --run-name"
            )
        return RunFolder(folder, run_name, None, overwrite and not continuing)
    if resumed_run is not None and resumed_run.parent == out_dir.resolve():
        return RunFolder(out_dir / resumed_run.name, resumed_run.name, None, False)
    folder, name = out_dir / default_name, default_name
    if overwrite or not holds_run(folder):
        return RunFolder(folder, name, None, overwrite)
    number = 2
    while holds_run(out_dir / f"{default_name}_{number}"):
        number += 1
    name = f"{default_name}_{number}"
    note = (
        f"{folder} already holds a run: this one goes to {out_dir / name} "
        "(--resume continues a run, --overwrite replaces it, --run-name chooses the folder)"
    )
    return RunFolder(out_dir / name, name, note, False)


# ---------------------------------------------------------------------- the result of a run


@dataclass
class TrainResult:
    """What a finished (or stopped) training run returns: :func:`agents.training.sb3.train` and
    :func:`agents.training.rllib.train`, and the commands behind them, whose exit status it holds."""

    run_dir: Path
    """the run folder (``runs/NAME``), where every file of the run is"""
    policy: Path
    """the trained policy as saved: ``policy.zip`` (Stable-Baselines3) or the exported ``policy/`` folder (RLlib)"""
    agent: Agent
    """the trained policy as an agent, to play or evaluate without loading the file again"""
    timesteps: int
    """learner decisions trained in all, a resumed run's earlier ones included (RLlib: environment steps)"""
    history: list[dict[str, Any]] = field(default_factory=list)
    """the learning curve: the periodic evaluations (``eval_history.json``; RLlib: the progress of every
    iteration, ``progress.json``)"""
    summary: dict[str, Any] | None = None
    """the final evaluation's summary (``final_eval.json``), or None when it was skipped"""
    interrupted: bool = False
    """a signal stopped training before its budget"""
    exit_status: int = 0
    """0, or 128 + the signal number when Ctrl-C or SIGTERM stopped the run (130, 143): the command's"""
    checkpoint: Path | None = None
    """where an interrupted run can be resumed from (``--resume``), else None"""


class FinalEvaluationSettings(Protocol):
    """The settings of a final evaluation, as both training libraries' ``Args`` have them."""

    eval_baselines: list[str]
    final_eval_deals: int
    final_eval_on_interrupt: bool
    seed: int
    eval_workers: int


def run_under_stop(
    run: Callable[..., TrainResult], setup: Any, stop: GracefulStop | None, safe_point: str, *more: Any
) -> TrainResult:
    """``run(setup, stop, *more)``; without a ``stop`` from the caller, under a
    :class:`~agents.processes.GracefulStop` of its own (Ctrl-C and SIGTERM stop the run at ``safe_point``)."""
    if stop is not None:
        return run(setup, stop, *more)
    with GracefulStop(safe_point) as own:
        return run(setup, own, *more)


def evaluate_at_end(
    config: Any,
    policy: Path,
    settings: FinalEvaluationSettings,
    stop: GracefulStop,
    run_dir: Path,
    skipped: str,
    exiting: str,
    announce: str | None = None,
) -> dict[str, Any] | None:
    """The final evaluation of a run whose policy is saved: the policy, loaded as any user would load
    it, against every baseline (``final_eval.json``); its summary, or None when it is not asked for
    (``--final-eval-deals 0``) or a signal stopped the run (unless ``--final-eval-on-interrupt``),
    logging ``skipped`` then. ``announce`` is logged before it starts; a signal during it exits at
    once (everything else is saved), saying ``exiting``: what is saved and how to evaluate by hand."""
    if settings.final_eval_deals == 0 or (stop.requested and not settings.final_eval_on_interrupt):
        if stop.requested:
            logger.info(skipped)
        return None
    if announce:
        logger.info(announce)
    with stop.at_once(exiting):
        return final_evaluation(
            config,
            str(policy),
            settings.eval_baselines,
            settings.final_eval_deals,
            settings.seed,
            settings.eval_workers,
            run_dir / "final_eval.json",
            show=False,
        )
