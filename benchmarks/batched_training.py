"""Same budget, same result? MaskablePPO trained by train.py on the batched vector env and on SB3's.

Two runs of ``train.py`` that differ only in ``--batched``: the same settings,
games, opponents, budget and seed; each policy is then evaluated by train.py's
final evaluation (duplicate deals against random and greedy). Prints the
training time and both tables.

    python benchmarks/batched_training.py                       # 150,000 timesteps, 16 games, seeds 0 1 2
    python benchmarks/batched_training.py --timesteps 300000 --n-envs 64
    python benchmarks/batched_training.py --seeds 0 1 2 3 4 5 --json docs/speed/batched_training.json
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from figures import write_figures

from agents.registry import default_baselines
from agents.training import sb3 as train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=150_000)
    parser.add_argument("--n-envs", type=int, default=16)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--out-dir", type=Path, default=Path("runs/batched_training"))
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file (docs/speed/)")
    args = parser.parse_args()
    torch.set_num_threads(1)  # the same for both runs; faster for these small networks here
    rows = []
    for seed, batched in itertools.product(args.seeds, (True, False)):
        name = "batched" if batched else "dummy"
        start = time.perf_counter()
        result = train.train(
            train.Args(
                run_name=f"{name}_seed{seed}",
                out_dir=args.out_dir,
                batched=batched,
                n_envs=args.n_envs,
                total_timesteps=args.timesteps,
                seed=seed,
                opponents=list(default_baselines("trash")),
                learning_rate=1e-4,
                n_steps=max(16, 8192 // args.n_envs),
                batch_size=512,
                ent_coef=0.0,
                eval_every=0,
                final_eval_deals=args.deals,
                checkpoint_every=0,
                progress_bar=False,
                tensorboard=False,
            )
        )
        seconds = time.perf_counter() - start
        for pair in result.summary["pairs"]:
            diff = pair["score_difference"]
            rows.append((name, seed, pair["second"], diff["mean"], diff["low"], diff["high"], seconds))
    print(f"\n{args.timesteps:,} timesteps, {args.n_envs} games, {args.deals} duplicate deals per baseline")
    for name, seed, baseline, mean, low, high, seconds in rows:
        print(
            f"  {name:8s} seed {seed}  vs {baseline:7s} {mean:+.4f} [{low:+.4f}, {high:+.4f}]   (run {seconds:.0f} s)"
        )
    for name, baseline in itertools.product(("batched", "dummy"), default_baselines("trash")):
        means = [row[3] for row in rows if row[0] == name and row[2] == baseline]
        print(f"  {name:8s} mean over seeds vs {baseline:7s} {np.mean(means):+.4f} (seeds {len(means)})")
    settings = {"timesteps": args.timesteps, "n_envs": args.n_envs, "deals": args.deals, "learning_rate": 1e-4}
    runs = [
        {"engine": name, "seed": seed, "baseline": baseline, "mean": mean, "low": low, "high": high, "seconds": seconds}
        for name, seed, baseline, mean, low, high, seconds in rows
    ]
    write_figures(args.json, {"settings": settings, "runs": runs})


if __name__ == "__main__":
    main()
