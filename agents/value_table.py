"""A learned value table for two-player Help Your Neighbor, played greedily (R12, R14).

With two players everything that matters for the rest of a game is public and small: the markers
each player has covered, two sets of ten (``trash_env.neighbor.solver`` explains why). A
:class:`ValueTableAgent` holds one number per pair of sets, ``value[me, opp]``: its estimate of the
probability that the player about to roll wins, both playing as the table says. It decides as the
solved game's policy does from the solved values, here from its own:

- after a roll it could use (or nobody could), it **rolls again** if ``value[me, opp]`` (its turn
  again) is at least ``1 - value[opp, me]`` (the opponent's turn), else ends the turn;
- after a 7 it **uncovers** the marker that leaves the opponent the lowest ``value[opp, me ^ bit]``
  (ties: the lowest total).

The table is what :mod:`agents.training.tabular_td` learns from play; the solution is never read.
The agent decides in batches (``act_batch``), so it is evaluated exactly like ``optimal``
(``trash-evaluate --exact``, ``agents.evaluation.exploitability``), and it can play inside the
batched engine as a table lookup (:meth:`ValueTableAgent.engine_tables`), which is how the trainer
plays it against itself.

**The file** (``.npz``, :meth:`ValueTableAgent.save`): ``value``, float32 ``[1024, 1024]``, and
``metadata``, a string array holding JSON (kind, format, game, players). Loading
(:meth:`ValueTableAgent.load`) never unpickles and refuses in one line a file that is not a whole
zip, has other members, declares another shape or dtype in an array header (read before the data),
or holds a value that is not finite or outside [0, 1].
"""

from __future__ import annotations

import json
import reprlib
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent
from agents.optimal import TableAgent
from trash_env.files import atomic_path, open_zip
from trash_env.neighbor.game import GAME as NEIGHBOR
from trash_env.neighbor.rules import NUM_MARKERS, TOTALS

KIND = "trash-rl neighbor value table"
FORMAT = 1
SIZE = 1 << NUM_MARKERS
METADATA_LIMIT = 1 << 12


class ValueTableAgent(TableAgent):
    """Two-player Help Your Neighbor played greedily from ``value[me, opp]`` (the module docstring);
    a new table starts at 0.5 everywhere (no idea who wins)."""

    def __init__(self, value: np.ndarray | None = None, name: str = "value_table") -> None:
        if value is None:
            value = np.full((SIZE, SIZE), 0.5, np.float32)
        value = np.asarray(value)
        check_value(value, f"agent {name}")
        self.value = np.ascontiguousarray(value, np.float32)
        self.name = name
        self._tables: tuple[np.ndarray, np.ndarray] | None = None

    def check_config(self, config: Any) -> None:
        super().check_config(config)
        if config.num_players != 2:
            raise ValueError(
                f"agent {self.name} is a value table of two-player Help Your Neighbor; it cannot play "
                f"{config.num_players} players"
            )

    def engine_tables(self) -> tuple[np.ndarray, np.ndarray]:
        """The greedy policy as the batched engine's lookup tables, [me, opp] -> roll again (uint8) and
        -> the marker to uncover after a 7 (int8, -1 with nothing covered): computed from the value
        once and kept, so an engine built with them sees :meth:`refresh`'s updates (in place)."""
        if self._tables is None:
            self._tables = np.zeros((SIZE, SIZE), np.uint8), np.zeros((SIZE, SIZE), np.int8)
            self.refresh()
        return self._tables

    def refresh(self) -> None:
        """Recompute :meth:`engine_tables` from the value as it is now (after training changed it)."""
        from trash_env.neighbor.solver import roll_again_table, uncover_table

        if self._tables is None:
            return
        roll_again, uncover = self._tables
        value = self.value.astype(np.float64)
        roll_again[:] = roll_again_table(value, value)
        uncover[:] = uncover_table(value, TOTALS)

    def tables(self) -> tuple[np.ndarray, np.ndarray]:
        return self.engine_tables()

    def save(self, path: str | Path) -> Path:
        """Write the table to ``path`` (``.npz`` added if missing), compressed and atomically."""
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_name(path.name + ".npz")
        metadata = {"kind": KIND, "format": FORMAT, "game": NEIGHBOR.name, "num_players": 2}
        with atomic_path(path) as partial, open(partial, "wb") as handle:
            np.savez_compressed(handle, value=self.value, metadata=np.array(json.dumps(metadata)))
        return path

    @classmethod
    def load(cls, path: str | Path, name: str | None = None) -> ValueTableAgent:
        """The table saved at ``path`` (:meth:`save`), read without pickle and checked (the module
        docstring): a one-line ValueError naming the file and the problem otherwise."""
        from agents.linear import _read_array

        path = Path(path)
        with open_zip(path, max_members=2, kind=KIND) as archive:
            names = set(archive.namelist())
            if names != {"value.npy", "metadata.npy"}:
                raise ValueError(f"{path} is not a {KIND}: it holds {reprlib.repr(sorted(names))}")
            raw = _read_array(archive, "metadata.npy", path, METADATA_LIMIT, None, ("str",))
            _check_metadata(path, raw)
            value = _read_array(archive, "value.npy", path, SIZE * SIZE * 4 + 4096, (SIZE, SIZE), ("float32",))
        check_value(value, str(path))
        return cls(value, name=name or str(path))


def is_value_table(path: str | Path) -> bool:
    """Whether the ``.npz`` file at ``path`` says it is a value table (else, say, a LinearAgent's):
    only its metadata member is read, bounded; a file that cannot be read is not one."""
    from agents.linear import _read_array

    try:
        with open_zip(Path(path), max_members=64, kind=KIND) as archive:
            if "value.npy" not in archive.namelist() or "metadata.npy" not in archive.namelist():
                return False
            raw = _read_array(archive, "metadata.npy", Path(path), METADATA_LIMIT, None, ("str",))
        return json.loads(str(raw)).get("kind") == KIND
    except (ValueError, OSError, AttributeError):
        return False


def load_npz(path: str | Path, name: str | None = None) -> Agent:
    """The NumPy policy saved at ``path``: a value table if the file says it is one, else a
    :class:`~agents.linear.LinearAgent` (whose loader names what is wrong with anything else)."""
    from agents.linear import LinearAgent

    with open_zip(Path(path), max_members=64, kind="trash-rl policy file (.npz)"):
        pass  # a cut-short or damaged file is said to be one, before it is taken for either kind
    if is_value_table(path):
        return ValueTableAgent.load(path, name=name)
    return LinearAgent.load(path, name=name)


def _check_metadata(path: Path, raw: np.ndarray) -> None:
    from agents.linear import read_metadata

    metadata = read_metadata(path, raw, KIND, FORMAT)
    if metadata.get("game") != NEIGHBOR.name or metadata.get("num_players") != 2:
        raise ValueError(f"{path}: a value table is of two-player help_your_neighbor, this one says otherwise")


def check_value(value: np.ndarray, source: str) -> None:
    """A one-line ValueError naming ``source`` unless ``value`` is a [1024, 1024] table of finite
    probabilities."""
    if value.shape != (SIZE, SIZE):
        raise ValueError(f"{source}: the value table has shape {value.shape}, not ({SIZE}, {SIZE})")
    if not np.issubdtype(value.dtype, np.floating):
        raise ValueError(f"{source}: the value table is {value.dtype}, not floats")
    bad = int(np.count_nonzero(~np.isfinite(value) | (value < 0) | (value > 1)))
    if bad:
        raise ValueError(f"{source}: the value table holds {bad:,} values that are not probabilities in [0, 1]")
