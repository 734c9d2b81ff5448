"""Training speed by torch thread count, on an idle machine and beside one busy process.

Runs ``trash-train`` (``python train.py``, MaskablePPO, its default settings but a short budget, no
evaluation, checkpoints or TensorBoard) as a user would, once per thread count and load, and prints
the whole process's wall time and the training's timesteps per second. ``--threads 1`` is the
commands' default now; the old default was torch's own, one thread per core (2 on this project's
machines), which ``--threads 2`` reproduces. The busy process is one Python loop, as a second job on
the machine would be; it is stopped by its process id when each run ends.

    python benchmarks/threads.py                       # 8,192 timesteps, threads 1 and 2, idle and loaded
    python benchmarks/threads.py --timesteps 20480 --threads 1 2 4
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from figures import write_figures  # this folder's: run as a script, its folder is on sys.path

ROOT = Path(__file__).resolve().parents[1]
TRAINED = re.compile(r"trained ([\d,]+) timesteps in ([\d.]+) s")


def train_once(threads: int, timesteps: int, out_dir: Path, busy: bool) -> tuple[float, int, float]:
    """(whole-process seconds, timesteps trained, training seconds) of one run."""
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
    try:
        command = [
            sys.executable, "train.py", "--total-timesteps", str(timesteps), "--eval-every", "0",
            "--final-eval-deals", "0", "--checkpoint-every", "0", "--no-tensorboard", "--no-progress-bar",
            "--threads", str(threads), "--out-dir", str(out_dir), "--run-name", f"t{threads}_{int(busy)}",
        ]  # fmt: skip
        env = {key: value for key, value in os.environ.items() if key != "OMP_NUM_THREADS"}
        start = time.perf_counter()
        completed = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
        seconds = time.perf_counter() - start
    finally:
        if hog is not None:
            hog.kill()
            hog.wait()
    match = TRAINED.search(completed.stdout)
    if match is None:
        raise RuntimeError(f"no 'trained ... timesteps' line in the output:\n{completed.stdout[-2000:]}")
    return seconds, int(match.group(1).replace(",", "")), float(match.group(2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=8192)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--json", type=Path, help="also write the figures here (make bench: docs/speed/threads.json)")
    args = parser.parse_args()
    print(f"MaskablePPO (train.py defaults), {args.timesteps:,} timesteps, {os.cpu_count()} cores")
    print(f"{'load':<22} {'threads':>7} {'process s':>10} {'train s':>8} {'timesteps/s':>12}")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for busy in (False, True):
            for threads in args.threads:
                seconds, steps, train_seconds = train_once(threads, args.timesteps, Path(folder), busy)
                load = "one busy process" if busy else "idle"
                print(
                    f"{load:<22} {threads:>7} {seconds:>10.1f} {train_seconds:>8.1f} {steps / train_seconds:>12,.0f}",
                    flush=True,
                )
                rows.append(
                    {"load": load, "threads": threads, "process_seconds": seconds, "timesteps": steps,
                     "train_seconds": train_seconds}
                )  # fmt: skip
    write_figures(args.json, {"timesteps": args.timesteps, "rows": rows})


if __name__ == "__main__":
    main()
