"""The solver's cache file (issue 23, items 3 and 4): :func:`trash_env.neighbor.solver.load_solution`.

Each test makes a bad cache file itself, from the session's good one (``conftest.solved``): damaged
(empty, cut short, a bit flipped, not an npz archive, a pickle), of another layout (arrays missing
or added, ints, another shape, object arrays, a header claiming a huge array, another solver
version) or well-formed, with its content hash right, but holding values that are not the solution
(NaN, infinite, outside [0, 1], ``1 - v``, all 0.5, one value off by 1e-6, other settings). Each is:

- named in one warning line with what is wrong, solved again, and the file replaced by a good one
  (the solve is the session's solution handed back: ``conftest.solves``; one slow test solves);
- with ``may_solve=False``, refused by a one-line ``ValueError`` naming the file and
  ``trash-solve``, the file left as it was;
- never unpickled: a pickled payload would create a marker file, which never appears.

The commands (``trash-solve``, ``trash-evaluate optimal``, ``trash-play --opponents optimal``)
carry on with a damaged cache without a traceback, and ``trash-solve`` only reports checked
solutions: its residual and win probability are the solved game's, whatever the file held.
"""

from __future__ import annotations

import io
import logging
import os
import pickle
import re
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from agents.commands import evaluate, play
from agents.commands import solve as solve_command
from trash_env.neighbor import solver
from trash_env.neighbor.solver import (
    SOLVER_VERSION,
    TOLERANCE,
    TOTALS,
    Solution,
    cache_path,
    content_hash,
    load_solution,
    read_solution,
    save_solution,
    solution_arrays,
)

ROOT = Path(__file__).resolve().parents[2]
MARKER = "payload_ran"  # the file a pickled payload would create, beside the cache folder


class Payload:
    """Unpickled, creates the folder ``marker``: the proof that a loader ran code from a file."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self) -> tuple[Callable[[str], None], tuple[str]]:
        return os.mkdir, (self.marker,)


def marker_of(path: Path) -> Path:
    return path.parent.parent / MARKER


def well_formed(path: Path, solution: Solution, **changes: object) -> None:
    """A cache file as the solver writes one, its content hash right, with ``changes`` to its arrays."""
    arrays = {**solution_arrays(solution), **{name: np.asarray(array) for name, array in changes.items()}}
    np.savez(path, **arrays, sha256=np.array(content_hash(arrays)))


def changed_value(solution: Solution, state: tuple[int, int], to: float) -> np.ndarray:
    value = solution.value.copy()
    value[state] = to
    return value


def flipped(data: bytes, offset: int) -> bytes:
    damaged = bytearray(data)
    damaged[offset] ^= 0x01
    return bytes(damaged)


def huge_header(path: Path, solution: Solution) -> None:
    """The good file with ``value.npy`` replaced by a header claiming 2^40 floats (8 TiB) and no data."""
    well_formed(path, solution)
    members = {}
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            members[name] = archive.read(name)
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (1 << 40,)})
    members["value.npy"] = header.getvalue() + b"\0" * 64  # the header (its magic included) and 64 bytes
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def version_1_file(path: Path, solution: Solution) -> None:
    """The file as version 1 of the solver wrote it: no version, no hash."""
    np.savez(
        path,
        totals=np.array(solution.totals),
        value=solution.value,
        tolerance=solution.tolerance,
        iterations=solution.iterations,
        seconds=solution.seconds,
    )


def tampered(path: Path, solution: Solution) -> None:
    """One value changed after the file was written (its zip checksums redone, its hash left)."""
    arrays = solution_arrays(solution)
    stored = content_hash(arrays)
    arrays["value"] = changed_value(solution, (3, 5), 0.25)
    np.savez(path, **arrays, sha256=np.array(stored))


Maker = Callable[[Path, Solution], None]
DAMAGED: list[tuple[str, Maker, str]] = [
    ("empty", lambda path, s: path.write_bytes(b""), "is empty"),
    ("cut_in_half", lambda path, s: path.write_bytes(path.read_bytes()[: path.stat().st_size // 2]), "cannot be read"),
    ("last_byte_cut", lambda path, s: path.write_bytes(path.read_bytes()[:-1]), "cannot be read"),
    ("bit_flipped", lambda path, s: path.write_bytes(flipped(path.read_bytes(), path.stat().st_size // 2)), "CRC"),
    ("text", lambda path, s: path.write_text("value = 0.5\n"), "cannot be read as an npz archive"),
    ("npy_not_npz", lambda path, s: path.write_bytes(npy_bytes(s.value)), "cannot be read as an npz archive"),
    ("pickle", lambda path, s: path.write_bytes(pickle.dumps(Payload(marker_of(path)))), "cannot be read"),
    ("only_value", lambda path, s: np.savez(path, value=s.value), "lacks the arrays iterations, seconds, sha256"),
    ("version_1_layout", version_1_file, "lacks the arrays sha256, version"),
    ("an_extra_array", lambda path, s: well_formed(path, s, extra=np.zeros(3)), "holds arrays no solver writes: extra"),
    ("ints", lambda path, s: well_formed(path, s, value=(s.value * 1000).astype(np.int64)), "'value' as int64"),
    ("float32", lambda path, s: well_formed(path, s, value=s.value.astype(np.float32)), "'value' as float32"),
    ("wrong_shape", lambda path, s: well_formed(path, s, value=s.value[:512, :512]), "of shape (512, 512)"),
    (
        "object_array",
        lambda path, s: well_formed(path, s, value=np.array([Payload(marker_of(path))], dtype=object)),
        "'value' as object",
    ),
    ("huge_header", huge_header, "shape (1099511627776,)"),
    (
        "old_version",
        lambda path, s: well_formed(path, s, version=1),
        f"solver version 1, and this is version {SOLVER_VERSION}",
    ),
    ("tampered", tampered, "does not match its content hash"),
]
WRONG: list[tuple[str, Maker, str]] = [
    (
        "nan",
        lambda path, s: well_formed(path, s, value=changed_value(s, (3, 5), np.nan)),
        "NaN or infinite (1 of 1,048,576)",
    ),
    ("inf", lambda path, s: well_formed(path, s, value=changed_value(s, (0, 0), np.inf)), "NaN or infinite"),
    ("above_one", lambda path, s: well_formed(path, s, value=changed_value(s, (3, 5), 1.5)), "outside [0, 1]"),
    ("negative", lambda path, s: well_formed(path, s, value=changed_value(s, (3, 5), -0.25)), "outside [0, 1]"),
    ("one_minus_v", lambda path, s: well_formed(path, s, value=1 - s.value), "break the Bellman equations by 0.4"),
    ("all_half", lambda path, s: well_formed(path, s, value=np.full_like(s.value, 0.5)), "Bellman equations by 0.069"),
    (
        "one_value_off",
        lambda path, s: well_formed(path, s, value=changed_value(s, (3, 5), s.value[3, 5] + 1e-6)),
        "break the Bellman equations by 9.7e-07",
    ),
    ("other_totals", lambda path, s: well_formed(path, s, totals=np.arange(10)), "is for the totals (0, 1,"),
    ("other_tolerance", lambda path, s: well_formed(path, s, tolerance=1e-6), "tolerance 1e-06, not 1e-12"),
    ("nan_seconds", lambda path, s: well_formed(path, s, seconds=np.nan), "sweeps and nan s"),
]
BAD = [pytest.param(make, what, id=name) for name, make, what in DAMAGED + WRONG]


def npy_bytes(array: np.ndarray) -> bytes:
    out = io.BytesIO()
    np.save(out, array)
    return out.getvalue()


def solver_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == solver.__name__]


def assert_good_file(path: Path, solution: Solution) -> None:
    """The cache file at ``path`` is a good one holding ``solution``, and alone in its folder."""
    np.testing.assert_array_equal(read_solution(path).value, solution.value)
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no partial file left beside it


# --------------------------------------------------------------------------
# A good file, and the payload that shows a file's code would have run


def test_a_good_cache_file_is_loaded_without_solving_or_a_word(solved, solver_cache, solves, caplog) -> None:
    with caplog.at_level(logging.WARNING, logger=solver.__name__):
        solution = load_solution()
        assert load_solution(may_solve=False) is solution  # from memory now
    np.testing.assert_array_equal(solution.value, solved[0].value)
    assert (solution.iterations, solution.tolerance) == (solved[0].iterations, TOLERANCE)
    assert solves == [] and solver_warnings(caplog) == []


def test_the_payload_runs_when_unpickled(tmp_path: Path) -> None:
    """The marker the tests below look for does appear when the payload is unpickled: their check of
    its absence can fail."""
    pickle.loads(pickle.dumps(Payload(tmp_path / MARKER)))
    assert (tmp_path / MARKER).exists()


# --------------------------------------------------------------------------
# Bad files: named in one line, solved again, replaced; or refused where solving is not wanted


@pytest.mark.parametrize(("make", "what"), BAD)
def test_a_bad_cache_file_is_named_in_one_line_solved_again_and_replaced(
    make: Maker, what: str, solved, solver_cache: Path, solves, caplog
) -> None:
    make(solver_cache, solved[0])
    with caplog.at_level(logging.WARNING, logger=solver.__name__):
        solution = load_solution()
    (warning,) = solver_warnings(caplog)
    assert "\n" not in warning and warning.startswith(f"the solver cache {solver_cache} ")
    assert what in warning and warning.endswith("; solving the game again to replace it")
    assert solves == [TOTALS]
    np.testing.assert_array_equal(solution.value, solved[0].value)
    assert_good_file(solver_cache, solved[0])
    assert not marker_of(solver_cache).exists()


@pytest.mark.parametrize(("make", "what"), BAD)
def test_without_solving_a_bad_cache_file_is_refused_naming_the_command(
    make: Maker, what: str, solved, solver_cache: Path, solves
) -> None:
    make(solver_cache, solved[0])
    before = solver_cache.read_bytes()
    with pytest.raises(ValueError) as refused:
        load_solution(may_solve=False)
    message = str(refused.value)
    assert "\n" not in message and message.startswith(f"the solver cache {solver_cache} ")
    assert what in message and message.endswith("; run trash-solve to solve it again")
    assert solves == [] and solver_cache.read_bytes() == before and not marker_of(solver_cache).exists()
    assert solver._loaded == {}


def test_without_solving_a_missing_cache_is_refused_naming_the_command(solver_cache: Path, solves) -> None:
    solver_cache.unlink()
    with pytest.raises(ValueError, match=r"^the game is not solved yet \(no solver cache .*\); run trash-solve"):
        load_solution(may_solve=False)
    assert solves == [] and not solver_cache.exists()


def test_a_folder_in_the_caches_place_is_named_and_the_solution_used_unkept(
    solved, solver_cache: Path, solves, caplog
) -> None:
    """A folder where the file should be: reported, solved, and a second line says it cannot be kept."""
    solver_cache.unlink()
    solver_cache.mkdir()
    with caplog.at_level(logging.WARNING, logger=solver.__name__):
        solution = load_solution()
    first, second = solver_warnings(caplog)
    assert first == f"the solver cache {solver_cache} is not a regular file; solving the game again to replace it"
    assert second.startswith(f"cannot write the solver cache {solver_cache} (") and "\n" not in second
    np.testing.assert_array_equal(solution.value, solved[0].value)
    assert solves == [TOTALS] and solver_cache.is_dir() and not any(solver_cache.iterdir())


def test_an_unwritable_cache_folder_is_named_and_the_solution_used(
    solved, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, solves, caplog
) -> None:
    """``$TRASH_RL_CACHE`` under a regular file: the game is solved, used, and said not to be kept."""
    (tmp_path / "a_file").write_text("")
    monkeypatch.setenv("TRASH_RL_CACHE", str(tmp_path / "a_file" / "cache"))
    monkeypatch.setattr(solver, "_loaded", {})
    with caplog.at_level(logging.WARNING, logger=solver.__name__):
        solution = load_solution()
    (warning,) = solver_warnings(caplog)
    assert warning.startswith(f"cannot write the solver cache {cache_path()} (") and "\n" not in warning
    np.testing.assert_array_equal(solution.value, solved[0].value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


def test_writing_the_cache_is_atomic(solved, solver_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write that fails half way leaves the old file whole and no partial file beside it."""
    before = solver_cache.read_bytes()

    def half_written(path: Path, **arrays: np.ndarray) -> None:
        Path(path).write_bytes(before[: len(before) // 2])
        raise OSError("No space left on device")

    monkeypatch.setattr(solver.np, "savez", half_written)
    with pytest.raises(OSError, match="No space left"):
        save_solution(solved[0])
    assert solver_cache.read_bytes() == before
    assert [p.name for p in solver_cache.parent.iterdir()] == [solver_cache.name]


def test_a_solver_whose_solution_fails_the_check_is_a_bug_not_a_cache(
    solved, solver_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The solve behind a bad file is checked as the file was: a wrong solution is never written."""
    solver_cache.unlink()
    wrong = Solution(TOTALS, 1 - solved[0].value, TOLERANCE, 1, 0.0)
    monkeypatch.setattr(solver, "solve", lambda *args, **kwargs: wrong)
    with pytest.raises(RuntimeError, match="the solver's own solution fails its check: it holds values that break"):
        load_solution()
    assert not solver_cache.exists()


# --------------------------------------------------------------------------
# The commands


def report_numbers(out: str) -> tuple[float, float]:
    """The residual and the first roller's probability of winning printed by ``trash-solve``."""
    residual = re.search(r"largest Bellman residual over all 1,048,576 states: (\S+)\n", out)
    chance = re.search(r"the first roller wins with probability (\S+) when both play optimally", out)
    assert residual and chance, out
    return float(residual.group(1)), float(chance.group(1))


@pytest.mark.parametrize(("make", "what"), [pytest.param(m, w, id=n) for n, m, w in DAMAGED[1:2] + WRONG[4:6]])
def test_trash_solve_reports_only_a_checked_solution(
    make: Maker, what: str, solved, solver_cache: Path, solves, caplog, capsys
) -> None:
    """Whatever the file held, ``trash-solve`` names it in one line, solves again, and reports the
    solved game's residual and first-roller chance: no residual of 0.43 and no probability of 502."""
    make(solver_cache, solved[0])
    with caplog.at_level(logging.WARNING, logger=solver.__name__):
        assert solve_command.main([]) == 0
    out, err = capsys.readouterr()
    residual, chance = report_numbers(out)
    assert residual <= 2 * TOLERANCE and chance == pytest.approx(solved[0].value[0, 0], abs=1e-9)
    assert 0.5 < chance < 0.51 and "Traceback" not in err
    (warning,) = solver_warnings(caplog)
    assert what in warning and str(solver_cache) in warning
    assert solves == [TOTALS]
    assert_good_file(solver_cache, solved[0])


def test_trash_solve_check_refuses_a_bad_cache_in_one_line(solved, solver_cache: Path, solves, capsys) -> None:
    assert solve_command.main(["--check"]) == 0  # the good file
    assert report_numbers(capsys.readouterr().out)[0] <= 2 * TOLERANCE
    well_formed(solver_cache, solved[0], value=1 - solved[0].value)
    solver._loaded.clear()
    before = solver_cache.read_bytes()
    assert solve_command.main(["--check"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert re.fullmatch(
        rf".*: error: the solver cache {re.escape(str(solver_cache))} holds values that break the "
        r"Bellman equations by 0\.4.*; run trash-solve to solve it again\n",
        err,
    )
    assert solves == [] and solver_cache.read_bytes() == before


def test_trash_solve_fresh_replaces_a_damaged_cache(solved, solver_cache: Path, solves, capsys) -> None:
    solver_cache.write_bytes(b"\0" * 100)
    assert solve_command.main(["--fresh"]) == 0
    assert report_numbers(capsys.readouterr().out)[0] <= 2 * TOLERANCE
    assert solves == [TOTALS]
    assert_good_file(solver_cache, solved[0])


def test_trash_solve_fresh_says_in_one_line_when_it_cannot_keep_the_solution(
    solver_cache: Path, solves, capsys
) -> None:
    solver_cache.unlink()
    solver_cache.mkdir()
    assert solve_command.main(["--fresh"]) == 2
    out, err = capsys.readouterr()
    assert report_numbers(out)[0] <= 2 * TOLERANCE
    assert err.count("\n") == 1 and f": error: cannot write the solver cache {solver_cache}: " in err


def test_trash_evaluate_optimal_with_a_damaged_cache_solves_once_and_plays(
    solved, solver_cache: Path, solves, caplog, capsys
) -> None:
    """The cache is checked (and solved again) once, when the agents are checked, before any game."""
    solver_cache.write_bytes(solver_cache.read_bytes()[:1000])
    argv = ["optimal", "heuristic", "--game", "help_your_neighbor", "--deals", "4", "--bootstrap", "0", "--quiet"]
    with caplog.at_level(logging.WARNING, logger=solver.__name__):
        assert evaluate.main(argv) == 0
    out, err = capsys.readouterr()
    assert "optimal" in out and "Traceback" not in err
    (warning,) = solver_warnings(caplog)
    assert "cannot be read as an npz archive" in warning
    assert solves == [TOTALS]
    assert_good_file(solver_cache, solved[0])


def test_trash_play_against_optimal_with_a_damaged_cache_plays(solved, solver_cache: Path, solves, caplog) -> None:
    well_formed(solver_cache, solved[0], value=np.full_like(solved[0].value, 0.5))

    def leave(prompt: str = "") -> str:
        raise EOFError

    out = io.StringIO()
    with caplog.at_level(logging.WARNING, logger=solver.__name__):
        play.main(["--game", "help_your_neighbor", "--opponents", "optimal"], input_fn=leave, out=out)
    assert "you left the game" in out.getvalue()
    (warning,) = solver_warnings(caplog)
    assert "break the Bellman equations" in warning
    assert solves == [TOTALS]
    assert_good_file(solver_cache, solved[0])


@pytest.mark.slow
def test_trash_solve_solves_a_damaged_cache_from_scratch_in_a_process_of_its_own(solved, solver_cache: Path) -> None:
    """The real thing: a bit-flipped cache, ``trash-solve`` in its own process, solving for real.
    One line on stderr names the file, no traceback, and the file holds the solution again."""
    solver_cache.write_bytes(flipped(solver_cache.read_bytes(), solver_cache.stat().st_size // 2))
    env = {**os.environ, "TRASH_RL_CACHE": str(solver_cache.parent)}
    done = subprocess.run(
        [sys.executable, "-m", "agents.commands.solve"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("\n") == 1 and f"the solver cache {solver_cache} cannot be read" in done.stderr
    residual, chance = report_numbers(done.stdout)
    assert residual <= 2 * TOLERANCE and 0.5 < chance < 0.51
    fresh = read_solution(solver_cache)
    np.testing.assert_allclose(fresh.value, solved[0].value, rtol=0, atol=1e-11)
