"""The two batched engines of this tree against those of another checkout, in the same run.

For a change to the engines (the shared host, a layout, a kernel): each tree's engines are timed in a
process of their own, the two trees in turn, so that the ratio holds while the machine's speed drifts.
Fast mode: random legal play of B games (actions drawn from the masks with NumPy, counted in the
time), decisions per second; exact mode: whole evaluation games between two in-engine baselines,
games per second (each game's deal drawn from its seed, as duplicate evaluation does).

    git worktree add /tmp/before HEAD~1
    python benchmarks/engine_against.py /tmp/before            # about a minute
    python benchmarks/engine_against.py /tmp/before --rounds 5 --games 4096

Needs the batched extra.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from figures import print_ratios  # (this script's folder, on the path of a script run from it)

ROOT = Path(__file__).resolve().parents[1]

# Run in a child with the tree's root first on the path: prints one JSON object of figures. Self-contained
# (not bench_env.play_engine, whose figures module puts this repository's root first on the path): the same
# timing code for both trees, whatever either holds.
CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
from trash_env.trash.batched import TrashBatch
from trash_env.trash.config import make_config
from trash_env.neighbor.batched import NeighborBatch
from trash_env.neighbor.rules import NeighborConfig

games, steps = int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(0)

def fast(batch):
    masks = batch.reset()[1]
    def pick(masks):
        return (rng.random(masks.shape) * np.asarray(masks, dtype=bool)).argmax(axis=1)
    for _ in range(20):
        masks = batch.step(pick(masks))[1]
    start = time.perf_counter()
    for _ in range(steps):
        masks = batch.step(pick(masks))[1]
    return games * steps / (time.perf_counter() - start)

def exact(kind, config, policies, rounds=5):
    batch = kind(config, games, exact=True, policies=policies)
    batch.reset(seeds=list(range(games)))
    start = time.perf_counter()
    for r in range(1, rounds + 1):
        batch.reset(seeds=list(range(r * games, (r + 1) * games)))
    return games * rounds / (time.perf_counter() - start)

print(json.dumps({
    "Trash, fast mode (decisions/s)": fast(TrashBatch(make_config("standard"), games, seed=1)),
    "Help Your Neighbor, fast mode (decisions/s)": fast(NeighborBatch(NeighborConfig(), games, seed=1)),
    "Trash, exact mode greedy vs counter (games/s)": exact(TrashBatch, make_config("standard"), ["greedy", "counter"]),
    "Help Your Neighbor, exact mode heuristic (games/s)": exact(
        NeighborBatch, NeighborConfig(), ["heuristic", "heuristic"]
    ),
}))
"""


def figures(tree: Path, games: int, steps: int) -> dict[str, float]:
    """One child process's figures for the engines of ``tree``."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(tree), str(games), str(steps)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"engine_against: the engines of {tree} failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="the other checkout's root (a git worktree of an older commit)")
    parser.add_argument("--rounds", type=int, default=3, help="processes per tree, the trees in turn (default 3)")
    parser.add_argument("--games", type=int, default=1024, help="games in a batch (default 1024)")
    parser.add_argument("--steps", type=int, default=400, help="fast-mode steps timed (default 400)")
    args = parser.parse_args(argv)
    if not (args.other / "trash_env" / "trash" / "batched.py").is_file():
        parser.error(f"{args.other} is not a checkout of trash-rl (no trash_env/trash/batched.py)")
    figures(ROOT, 8, 2), figures(args.other, 8, 2)  # compiled or loaded from each tree's cache first
    ratios: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        here, there = figures(ROOT, args.games, args.steps), figures(args.other, args.games, args.steps)
        for name in here:
            ratios.setdefault(name, []).append(here[name] / there[name])
            print(f"{name}: this tree {here[name]:,.0f}, the other {there[name]:,.0f}")
    print_ratios("this tree / the other", ratios)


if __name__ == "__main__":
    main()
