"""MaskablePPO, PPO and DQN on the same budget and seeds: score against greedy over timesteps.

    python benchmarks/compare_algorithms.py                     # 200,000 timesteps each, seed 0
    python benchmarks/compare_algorithms.py --total-timesteps 100000 --seeds 0 1

Each algorithm is trained by ``train.py`` (same settings but the algorithm),
evaluated every ``--eval-every`` timesteps against ``greedy`` and ``random``
on the same duplicate deals, and finally on ``--final-eval-deals`` deals.
Prints a table and writes ``runs/compare/learning_curves.png`` and
``runs/compare/summary.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from agents.training import sb3 as train

ALGOS = ("maskable_ppo", "ppo", "dqn")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--total-timesteps", type=int, default=200_000)
    parser.add_argument("--eval-every", type=int, default=50_000)
    parser.add_argument("--eval-deals", type=int, default=300)
    parser.add_argument("--final-eval-deals", type=int, default=2000)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--out-dir", type=Path, default=Path("runs/compare"))
    args = parser.parse_args()

    runs = {}
    for algo in ALGOS:
        for seed in args.seeds:
            result = train.train(
                train.Args(
                    run_name=f"{algo}_seed{seed}",
                    out_dir=args.out_dir,
                    algo=algo,
                    seed=seed,
                    total_timesteps=args.total_timesteps,
                    eval_every=args.eval_every,
                    eval_deals=args.eval_deals,
                    final_eval_deals=args.final_eval_deals,
                    checkpoint_every=0,
                    progress_bar=False,
                )
            )
            runs[(algo, seed)] = result

    rows = []
    for (algo, seed), result in runs.items():
        pairs = {p["second"]: p["score_difference"] for p in result.summary["pairs"]}
        rows.append({"algo": algo, "seed": seed, "timesteps": result.timesteps, **pairs})
    print(f"\n{'algorithm':14s} {'seed':>4s} {'vs greedy [95% CI]':>28s} {'vs random [95% CI]':>28s}")
    for row in rows:
        cells = [f"{row[b]['mean']:+.4f} [{row[b]['low']:+.4f}, {row[b]['high']:+.4f}]" for b in ("greedy", "random")]
        print(f"{row['algo']:14s} {row['seed']:4d} {cells[0]:>28s} {cells[1]:>28s}")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4))
    for (algo, seed), result in runs.items():
        history = result.history
        steps = [h["timesteps"] for h in history]
        axes.plot(steps, [h["greedy"]["mean"] for h in history], marker="o", label=f"{algo} (seed {seed})")
        axes.fill_between(
            steps, [h["greedy"]["low"] for h in history], [h["greedy"]["high"] for h in history], alpha=0.15
        )
    axes.axhline(0, color="grey", linewidth=0.8)
    axes.set_xlabel("timesteps (learner decisions)")
    axes.set_ylabel("score difference vs greedy per deal (95% CI)")
    axes.set_title(f"standard, 2 players, {args.eval_deals} duplicate deals per evaluation")
    axes.legend()
    axes.grid(alpha=0.3)
    figure.tight_layout()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    figure.savefig(args.out_dir / "learning_curves.png", dpi=120)
    summary = {f"{r['algo']}_seed{r['seed']}": {**r, "history": runs[(r["algo"], r["seed"])]["history"]} for r in rows}
    (args.out_dir / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    print(f"wrote {args.out_dir / 'learning_curves.png'} and {args.out_dir / 'summary.json'}")


if __name__ == "__main__":
    main()
