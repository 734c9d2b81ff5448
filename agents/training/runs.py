"""Run folders of the training scripts (``train.py``, ``train_rllib.py``): a run is never overwritten silently.

The rule, as users of Stable-Baselines3's zoo and TensorBoard know it:

- **No ``--run-name``**: the run goes to ``OUT_DIR/DEFAULT_NAME``; if that folder
  already holds a run, to the first free ``DEFAULT_NAME_2``, ``_3``, ... and the
  script says so.
- **An explicit ``--run-name``** whose folder already holds a run is refused,
  naming ``--resume`` (continue it) and ``--overwrite`` (replace it).
- **``--resume FILE``** continues the run that FILE belongs to (its folder, when
  FILE is in a run's ``checkpoints/`` or ``snapshots/``, or is its ``policy.zip``);
  writing into that run is what resuming means.
- **``--overwrite``** empties the folder before the run writes anything.

A folder "holds a run" when it exists and is not empty.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

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


def choose_run_folder(
    out_dir: Path, run_name: str, default_name: str, overwrite: bool, resume: Path | None
) -> RunFolder:
    """Where a run writes, by the rule of the module docstring; a ValueError (before anything
    is written) when an explicit ``--run-name`` holds another run."""
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
