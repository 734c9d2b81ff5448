"""The shipped policy's strength, on duplicate deals: the figures the README reports.

    python benchmarks/shipped_policy.py                          # 20,000 deals, both cores
    python benchmarks/shipped_policy.py --policy runs/NAME/policy.zip --deals 2000

Plays the policy against `greedy` and against `random`, and `greedy` against
`random`, on the same deals (the deals depend only on the seed), and prints:
the policy's score difference against greedy with its 95% interval (is it
measurably worse than greedy?), and its score against random next to greedy's
score against random on the same deals, with the paired difference of the two.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import trash_env
from agents.evaluation.duplicate import run_pairings
from agents.evaluation.stats import Interval, deal_scores, pair_summaries

SHIPPED = Path(__file__).resolve().parents[1] / "agents" / "policies" / "standard_2p_maskable_ppo.zip"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", type=Path, default=SHIPPED)
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    config = trash_env.make_config("standard")
    policy = str(args.policy)
    pairs = [(policy, "greedy"), (policy, "random"), ("greedy", "random")]
    start = time.perf_counter()
    results = run_pairings(config, pairs, args.deals, seed=args.seed, workers=args.workers)
    elapsed = time.perf_counter() - start
    summaries = {(p.first, p.second): p.score_difference for p in pair_summaries(results)}
    print(f"{args.policy.name}: {args.deals:,} duplicate deals per pair, seed {args.seed} ({elapsed:.0f} s)")
    print(f"  policy - greedy, per deal:          {summaries[(policy, 'greedy')]}")
    vs_random, greedy_vs_random = summaries[(policy, "random")], summaries[("greedy", "random")]
    print(f"  policy - random:                    {vs_random}")
    print(f"  greedy - random (same deals):       {greedy_vs_random}")
    # Paired by deal: how much the policy's edge over random differs from greedy's.
    scores = deal_scores(results)
    by_deal: dict[int, dict[str, float]] = {}
    for (pair, deal), per in scores.items():
        if pair == (policy, "random"):
            by_deal.setdefault(deal, {})["policy"] = per[policy] - per["random"]
        elif pair == ("greedy", "random"):
            by_deal.setdefault(deal, {})["greedy"] = per["greedy"] - per["random"]
    gap = Interval.of([d["policy"] - d["greedy"] for d in by_deal.values()])
    print(f"  (policy - random) - (greedy - random): {gap}")
    worse = summaries[(policy, "greedy")].high < 0
    within = abs(vs_random.mean - greedy_vs_random.mean) <= 0.03
    print(f"  measurably worse than greedy: {'yes' if worse else 'no'}")
    print(f"  score against random within 0.03 of greedy's: {'yes' if within else 'no'}")


if __name__ == "__main__":
    main()
