"""The smallest run of every built-in algorithm: how long it takes, and whether the line ``trash-bench run``
prints is the score its result file holds.

For each built-in (``trash-bench run --help`` lists them) and each task it plays, one run of seed 0 at
the task's smallest ``--budget-fraction`` (``Task.min_fraction``: the least budget every built-in still
learns in), as a user would start it: ``trash-bench run`` in a fresh process, with the Numba kernels
already compiled (``trash-bench warmup``; docs/batched.md gives the one-off compile's cost). A task an
algorithm does not play is refused in a line before anything is trained; it is listed as such.

    python benchmarks/smallest_runs.py                       # about an hour on 2 cores
    python benchmarks/smallest_runs.py --algorithms tabular_td maskable_ppo --tasks hyn-2p
    python benchmarks/smallest_runs.py --json docs/speed/smallest_runs.json

Needs the train, batched and eval extras.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from figures import write_figures  # this folder's: run as a script, its folder is on sys.path

from agents.bench.algorithms import BUILTIN
from agents.bench.store import result_location
from agents.bench.tasks import TASKS

BIN = Path(sys.executable).parent


def printed_score(output: str) -> float | None:
    """The normalised score of the run's line (``[1/1] TASK seed 0: normalised +0.017 (...)``)."""
    found = re.search(r"^\[1/1\] \S+ seed 0: normalised ([+-][\d.]+) ", output, re.M)
    return float(found.group(1)) if found else None


def held_score(result: dict) -> float:
    """The normalised final score the result file holds as its headline: exact where it was scored exactly."""
    final = result["final"]
    return final["exact"]["normalized"] if result.get("scoring") == "exact" else final["normalized"]


def one_run(algorithm: str, task: str, folder: Path) -> dict:
    fraction = TASKS[task].min_fraction
    argv = [str(BIN / "trash-bench"), "run", "--algorithm", algorithm, "--tasks", task, "--seeds", "1"]
    argv += ["--budget-fraction", str(fraction), "--results", str(folder)]
    start = time.perf_counter()
    completed = subprocess.run(argv, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    row = {"algorithm": algorithm, "task": task, "fraction": fraction, "seconds": round(seconds, 1)}
    if completed.returncode != 0:
        row["refused"] = completed.stderr.strip().splitlines()[-1] if completed.stderr.strip() else "failed"
        return row
    path = result_location(folder, TASKS[task], algorithm, 0, fraction)
    result = json.loads(path.read_text())
    printed, held = printed_score(completed.stdout), round(held_score(result), 3)
    row.update(printed=printed, held=held, same=printed == held, scoring=result.get("scoring"))
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", nargs="+", default=list(BUILTIN), choices=list(BUILTIN))
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), choices=list(TASKS))
    parser.add_argument("--json", type=Path, help="also write the figures here (docs/speed/smallest_runs.json)")
    args = parser.parse_args()
    subprocess.run([str(BIN / "trash-bench"), "warmup"], check=True, capture_output=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="trash-rl-smallest-") as folder:
        for algorithm in args.algorithms:
            for task in args.tasks:
                row = one_run(algorithm, task, Path(folder))
                rows.append(row)
                if "refused" in row:
                    print(f"{algorithm:24} {task:28} does not play it ({row['refused'][:90]})", flush=True)
                else:
                    same = "the same" if row["same"] else f"NOT the file's {row['held']:+.3f}"
                    print(
                        f"{algorithm:24} {task:28} {row['seconds']:6.1f} s  printed {row['printed']:+.3f}, "
                        f"{same} ({row['scoring']})",
                        flush=True,
                    )
    ran = [row for row in rows if "refused" not in row]
    slowest = max(ran, key=lambda row: row["seconds"])
    print(f"{len(ran)} runs; the slowest {slowest['seconds']:.1f} s ({slowest['algorithm']} on {slowest['task']}); "
          f"every printed score the file's: {all(row['same'] for row in ran)}")  # fmt: skip
    write_figures(args.json, {"runs": rows})


if __name__ == "__main__":
    main()
