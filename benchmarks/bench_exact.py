"""Exact evaluation of two-player Help Your Neighbor: its cost, and the level sweep against the old path.

All in one run, on this machine, one thread (as the benchmark's evaluation processes run):

1. a policy's decision tables (``agents.evaluation.exact.decision_tables``: one forward pass over
   every state): ``heuristic`` and the shipped MaskablePPO policy (``policies/``, if torch is there);
2. one pair's exact evaluation (the shipped policy, else ``heuristic``, against ``optimal``) by
   ``evaluate_policies`` (Gauss-Seidel sweeps over the levels of covered markers, Anderson
   accelerated) and by ``evaluate_policies_by_rolls`` (the one-roll equations of both players
   iterated, the old path), at the solver's tolerance and at the suite's (``EXACT_TOLERANCE``), with
   how far apart their answers are.

    python benchmarks/bench_exact.py          # about 3 minutes
    python benchmarks/bench_exact.py --json docs/speed/exact.json   # as make bench runs it

Needs Numba (the batched extra); with torch also for the shipped policy.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

if "numba" not in sys.modules:  # before Numba starts: changed later, its next compile would refuse it
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np
from figures import write_figures  # this folder's: run as a script, its folder is on sys.path

from agents.bench.exact_scores import EXACT_TOLERANCE
from agents.evaluation.exact import decision_tables
from agents.registry import make_agent
from trash_env.neighbor.solver import (
    TOLERANCE,
    TOTALS,
    evaluate_policies,
    evaluate_policies_by_rolls,
    load_solution,
    optimal_tables,
)

FULL = (1 << len(TOTALS)) - 1  # every marker covered: the game is over
POLICY = Path(__file__).resolve().parents[1] / "agents" / "policies" / "help_your_neighbor_2p_maskable_ppo.zip"


def timed(call):
    start = time.perf_counter()
    value = call()
    return value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the figures here (docs/speed/exact.json)")
    args = parser.parse_args()
    optimal = optimal_tables(load_solution())
    agents = {"heuristic": make_agent("heuristic", game="help_your_neighbor")}
    try:
        agents["shipped policy"] = make_agent(str(POLICY), game="help_your_neighbor")
    except (ImportError, ValueError) as error:
        print(f"(the shipped policy is left out: {error})")
    tables, table_seconds, pairs = {}, {}, []
    print("decision tables (one forward pass over every state):")
    for name, agent in agents.items():
        tables[name], table_seconds[name] = timed(lambda agent=agent: decision_tables(agent))
        print(f"  {name:>15}: {table_seconds[name]:6.1f} s")
    name = "shipped policy" if "shipped policy" in tables else "heuristic"
    evaluate_policies(tables[name], optimal, tolerance=1e-3)  # compile both paths first
    evaluate_policies_by_rolls(tables[name], optimal, tolerance=1e-3)
    print(f"one pair's exact evaluation, {name} against optimal:")
    for tolerance in (TOLERANCE, EXACT_TOLERANCE):
        new, new_seconds = timed(lambda t=tolerance: evaluate_policies(tables[name], optimal, tolerance=t))
        old, old_seconds = timed(lambda t=tolerance: evaluate_policies_by_rolls(tables[name], optimal, tolerance=t))
        playing = np.ix_(range(FULL), range(FULL))  # the states of a game still on (no complete set)
        apart = max(abs(a[playing] - b[playing]).max() for a, b in zip(new, old, strict=True))
        print(
            f"  tolerance {tolerance:g}: level sweep {new_seconds:6.1f} s, one-roll iteration {old_seconds:6.1f} s "
            f"({old_seconds / new_seconds:.1f}x); first roller wins {new[0][0, 0]:.10f} vs {old[0][0, 0]:.10f}; "
            f"largest difference over the states of a game still on {apart:.1e}"
        )
        pairs.append(
            {"tolerance": tolerance, "level_sweep": new_seconds, "by_rolls": old_seconds, "largest_difference": apart}
        )
    load = os.getloadavg()[0]  # what else ran beside it: 1 or more on this machine's 2 cores halves the figures
    write_figures(args.json, {"decision_tables": table_seconds, "pair": name, "pairs": pairs, "load_average": load})


if __name__ == "__main__":
    main()
