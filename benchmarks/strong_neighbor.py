"""What makes the tabular self-play recipe (``tabular_td``) reach near-optimal two-player Help Your
Neighbor: an ablation, each variant judged exactly.

    python benchmarks/strong_neighbor.py [--budget 60000000] [--points 15000000 30000000]
        [--variants recipe no-exploration no-replay one-state] [--out docs/strong_neighbor.json]

Each variant trains with :func:`agents.training.tabular_td.train` on the batched engine
(``NeighborVecEnv``, the same engine and settings the benchmark's ``tabular_td`` uses, seed 0) and
changes one part of the recipe:

- ``recipe``: the defaults (:class:`~agents.training.tabular_td.Settings`), judged also at
  ``--points`` (the budget curve);
- ``no-exploration``: ``epsilon=0``, the learner always greedy;
- ``no-replay``: a finished game's states are not backed up again;
- ``one-state``: after a roll only the state the chosen action leads to is backed up (not both
  rolling again and ending).

Judged by the solution, never taught by it (:mod:`agents.evaluation.exploitability`): the exact loss
to ``optimal`` per deal (both seats) and the exact exploitability (what the best response wins per
deal), with the loss split by kind of decision (roll again or end; which marker to uncover) from the
best response's own accounting of what each decision gives away. Training seconds are wall time of
this process with one Numba thread. The JSON file is written again after every measurement;
``scripts/readme_tables.py`` makes the table of ``docs/strong-agents.md`` from it.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from dataclasses import asdict, replace
from typing import Any

if "numba" not in sys.modules:  # before Numba starts: changed later, its next compile would refuse it
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")

from agents.evaluation.exploitability import exploitability
from agents.training.tabular_td import Settings, train
from trash_env.files import write_json
from trash_env.neighbor.vec_env import NeighborVecEnv

VARIANTS: dict[str, dict[str, Any]] = {
    "recipe": {},
    "no-exploration": {"epsilon": 0.0},
    "no-replay": {"replay": False},
    "one-state": {"both_choices": False},
}


def judge(agent: Any) -> dict[str, Any]:
    """The agent's exact loss to optimal play and exploitability, per deal, with where it loses."""
    began = time.perf_counter()
    found = exploitability(agent, examples=0)
    return {
        "loss_to_optimal": found.loss_to_optimal,
        "exploitability": found.exploitability,
        "given_away": found.given_away,
        "taken_back": found.taken_back,
        "given_away_by_kind": found.given_away_by_kind,
        "judge_seconds": round(time.perf_counter() - began, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=60_000_000, help="timesteps per variant")
    parser.add_argument("--points", type=int, nargs="*", default=[15_000_000, 30_000_000], help="the recipe's curve")
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="docs/strong_neighbor.json")
    args = parser.parse_args(argv)
    data: dict[str, Any] = {
        "budget": args.budget,
        "seed": args.seed,
        "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count()},
        "variants": {},
    }
    for name in args.variants:
        settings = replace(Settings(), **VARIANTS[name])
        entry: dict[str, Any] = {"settings": asdict(settings), "curve": []}
        data["variants"][name] = entry
        clock = {"trained": 0.0, "since": time.perf_counter()}

        def checkpoint(timesteps: int, agent: Any, entry: dict = entry, clock: dict = clock, name: str = name) -> None:
            clock["trained"] += time.perf_counter() - clock["since"]
            point = {"timesteps": timesteps, "train_seconds": round(clock["trained"], 1), **judge(agent)}
            entry["curve"].append(point)
            print(name, point, flush=True)
            write_json(args.out, data)
            clock["since"] = time.perf_counter()

        points = sorted({*(args.points if name == "recipe" else []), args.budget})
        train(
            lambda n, opponents: NeighborVecEnv(n, opponents=opponents, num_players=2, parallel=False),
            args.budget,
            args.seed,
            settings,
            points,
            checkpoint,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
