"""What the first use costs in a new environment: Numba compiling the kernels, and whether warming
them ahead (``trash-bench warmup``) takes that cost off the first command.

Each measurement runs in fresh processes with ``NUMBA_CACHE_DIR`` set to an empty folder, as in an
environment the package was just installed into (Numba's cache is where the compiled kernels go):

1. ``trash-bench warmup`` from an empty cache: what compiling each part costs (the engines, the exact
   solver, ``tabular_td``), then again from the cache it filled;
2. a first command from an empty cache (``trash-evaluate greedy random``: the Trash engine's batched
   evaluation), the same command again, and the same command in another empty cache after
   ``trash-bench warmup``: the compile notice's wait, and the warm-up's effect on it.

    python benchmarks/compile_cost.py                              # about two minutes
    python benchmarks/compile_cost.py --json docs/speed/compile.json

docs/batched.md quotes its figures. Needs the batched and eval extras (and train for ``tabular_td``).
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

BIN = Path(sys.executable).parent
FIRST_COMMAND = ["trash-evaluate", "greedy", "random", "--deals", "200"]


def timed(argv: list[str], cache: Path) -> tuple[float, str]:
    """Seconds ``argv`` took (a console script of this environment) with Numba's cache at ``cache``,
    and what it said on stderr (the compile notice)."""
    start = time.perf_counter()
    completed = subprocess.run(
        [str(BIN / argv[0]), *argv[1:]],
        env={**os.environ, "NUMBA_CACHE_DIR": str(cache)},
        capture_output=True,
        text=True,
        check=True,
    )
    return time.perf_counter() - start, completed.stdout + completed.stderr


def warmup_parts(output: str) -> dict[str, float]:
    """``trash-bench warmup``'s lines (``the Trash batched engine: ready in 14.7 s``) as part -> seconds."""
    return {part: float(seconds) for part, seconds in re.findall(r"^(.+): ready in ([\d.]+) s$", output, re.M)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the figures here (docs/speed/compile.json)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="trash-rl-numba-") as folder:
        root = Path(folder)
        cold_warmup, output = timed(["trash-bench", "warmup"], root / "a")
        parts = warmup_parts(output)
        cached_warmup, output = timed(["trash-bench", "warmup"], root / "a")
        cached_parts = warmup_parts(output)
        first, said = timed(FIRST_COMMAND, root / "b")
        again, _ = timed(FIRST_COMMAND, root / "b")
        timed(["trash-bench", "warmup"], root / "c")
        after_warmup, said_after = timed(FIRST_COMMAND, root / "c")
    figures = {
        "warmup_cold_seconds": cold_warmup,
        "warmup_parts_cold": parts,
        "warmup_cached_seconds": cached_warmup,
        "warmup_parts_cached": cached_parts,
        "first_command": " ".join(FIRST_COMMAND),
        "first_command_cold_seconds": first,
        "first_command_notice": "trash-rl: compiling" in said,
        "first_command_again_seconds": again,
        "first_command_after_warmup_seconds": after_warmup,
        "first_command_after_warmup_notice": "trash-rl: compiling" in said_after,
    }
    print(f"trash-bench warmup from an empty cache: {cold_warmup:.1f} s in all")
    for part, seconds in parts.items():
        print(f"  {part}: {seconds:.1f} s (from the cache: {cached_parts.get(part, float('nan')):.1f} s)")
    print(f"trash-bench warmup from its cache: {cached_warmup:.1f} s")
    notice = figures["first_command_notice"]
    print(f"{figures['first_command']}: {first:.1f} s from an empty cache (notice shown: {notice}),")
    print(f"  {again:.1f} s again, {after_warmup:.1f} s in an empty cache after trash-bench warmup")
    write_figures(args.json, figures)


if __name__ == "__main__":
    main()
