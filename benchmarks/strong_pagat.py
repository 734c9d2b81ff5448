"""What makes a learner level with ``greedy`` in four-player ``pagat`` matches: an ablation of the
``maskable_ppo_kickstart`` recipe, each variant a benchmark run of ``trash-pagat-4p-match``.

    python benchmarks/strong_pagat.py [--variants ...] [--seeds 0] [--fraction 5]
        [--results docs/results-strong]

Each variant is a plugin algorithm of this module (``strong_pagat:NAME``) run through the suite's
runner like any other (``trash-bench run``: the counted budget, validation deals for the curve, the
final score on 2,000 held-out duplicate deals drawn after training), at ``--fraction`` times the
task's budget (5: 1,000,000 timesteps). Each changes the recipe in one or more parts:

- ``scratch``: the suite's MaskablePPO (its training opponents, no shaping, no imitation);
- ``shaped``: MaskablePPO against ``greedy`` only with the shaped reward (``maskable_ppo_shaped``);
- ``shaped_selected``: the same, returning the point best on validation deals (no imitation);
- ``imitation_only``: the whole budget spent on ``greedy``'s demonstrations, no reinforcement learning;
- ``kickstart_fast``: imitation for a tenth of the budget, then MaskablePPO at the suite's learning
  rate (3e-4), the final policy returned;
- ``kickstart_final``: the recipe without its selection: the final policy returned;
- ``kickstart_unshaped``: the same without the shaped reward.

The recipe itself is the built-in ``maskable_ppo_kickstart`` (its runs are in ``docs/results-v2``).
Result files go to ``--results`` (not the leaderboard's folder); ``scripts/readme_tables.py`` makes
the table of ``docs/strong-agents.md`` from them. A finished run is skipped, so the script resumes.
The committed results keep the result files only (each names a policy file that is not there);
rerun a variant for its policy.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path

if "numba" not in sys.modules:  # before Numba starts: changed later, its next compile would refuse it
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")

from agents.bench.algorithms import BUILTIN, SETTINGS

RECIPE = BUILTIN["maskable_ppo_kickstart"]()  # each variant is the recipe or a built-in with parts changed
SHAPED = BUILTIN["maskable_ppo_shaped"]()

scratch = replace(BUILTIN["maskable_ppo"](), name="pagat_scratch")
shaped = replace(SHAPED, name="pagat_shaped")
shaped_selected = replace(SHAPED, name="pagat_shaped_selected", select=True)
imitation_only = replace(
    RECIPE, name="pagat_imitation_only", settings=SETTINGS["maskable_ppo"], shaping={}, kickstart=1.0, select=False
)
kickstart_fast = replace(RECIPE, name="pagat_kickstart_fast", settings=SETTINGS["maskable_ppo"], select=False)
kickstart_final = replace(RECIPE, name="pagat_kickstart_final", select=False)
kickstart_unshaped = replace(RECIPE, name="pagat_kickstart_unshaped", shaping={}, select=False)

VARIANTS = (
    "scratch",
    "shaped",
    "shaped_selected",
    "imitation_only",
    "kickstart_fast",
    "kickstart_final",
    "kickstart_unshaped",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=VARIANTS)
    parser.add_argument("--seeds", type=int, nargs="*", default=[0])
    parser.add_argument("--fraction", type=float, default=5.0, help="times the task's budget")
    parser.add_argument("--results", default="docs/results-strong")
    args = parser.parse_args(argv)

    from agents.bench.runner import sweep
    from agents.bench.tasks import get_task

    task = get_task("trash-pagat-4p-match")
    for variant in args.variants:
        for result in sweep([task], f"strong_pagat:{variant}", args.seeds, Path(args.results), fraction=args.fraction):
            final = result["final"]
            print(
                f"{variant} seed {result['seed']}: {final['score']:+.4f} [{final['low']:+.4f}, {final['high']:+.4f}]"
                f" vs greedy, {result['wall_seconds']:.0f} s",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
