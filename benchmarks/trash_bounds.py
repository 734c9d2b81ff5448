"""Lower bounds on the exploitability of Trash policies by a local best response (issue 53, part 3).

For every two-player Trash task (``agents.bench.tasks``), the policies measured are ``greedy``,
``counter``, the task's best kept learner (the run with the highest final score among the kept runs
of the results folder: ``docs/results-v2``, or ``docs/results-multiagent`` for the tasks only it holds)
and each shipped Trash policy whose rules are the task's. Each is measured by
``trash-bench exploit POLICY --task T --method local`` (:func:`agents.bench.local_exploit.local_exploitability`:
every decision played out ``--rollouts`` times per legal action, the hidden cards sampled per world,
R2, R15) on ``--deals`` duplicate deals of the test seed 77 (``--match-deals`` for matches, R9), and
its result file written to ``--out`` as ``TASK--POLICY.json``. A file already there is kept (the run is
resumable: kill it and start it again); ``--only`` limits the tasks.

The bound is a lower bound whatever its size: the responder is one opponent. How much of the truth
it finds is measured where the truth is known: on the solved ``hyn-2p`` (``benchmarks/local_best_response.py``)
and on the reduced Trash games (``tests/evaluation/test_local_best_response.py``); the table
(``scripts/readme_tables.py``, ``trash-local-bounds``) prints that calibration beside the figures::

    python benchmarks/trash_bounds.py --out docs/exploit/trash
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = (ROOT / "docs" / "results-v2", ROOT / "docs" / "results-multiagent")


def two_player_trash_tasks() -> list[Any]:
    from agents.bench.tasks import TASKS

    return [task for task in TASKS.values() if task.game == "trash" and task.num_players == 2]


def best_kept_learner(task: Any) -> str | None:
    """The result file (relative to the repository) of the kept run with the highest final score on
    ``task``, from the first results folder that holds runs of it; None if none is kept."""
    from agents.bench.store import kept_policy, scan

    for folder in FOLDERS:
        good, _ = scan(folder) if folder.is_dir() else ({}, None)
        runs = [
            (run.final.headline, path)
            for path, run in sorted(good.items())
            if run.task == task.name and run.task_version == task.version and run.is_valid
        ]
        kept = [(score, path) for score, path in runs if _kept(path, good[path], kept_policy)]
        if kept:
            return max(kept, key=lambda item: item[0])[1].relative_to(ROOT).as_posix()
        if runs:
            return None
    return None


def _kept(path: Path, run: Any, kept_policy: Any) -> bool:
    try:
        return kept_policy(path, run).is_file()
    except (ValueError, OSError):
        return False


def shipped_for(task: Any) -> list[str]:
    """The shipped Trash policies whose rules are ``task``'s."""
    from agents.registry import make_agent
    from agents.shipped import SHIPPED

    found = []
    for name, policy in SHIPPED.items():
        if policy.game != "trash":
            continue
        try:
            make_agent(f"shipped:{name}", "trash").check_config(task.config())
        except ValueError:
            continue
        found.append(f"shipped:{name}")
    return found


def file_name(task: str, policy: str) -> str:
    return f"{task}--{policy.replace('shipped:', 'shipped-').replace('/', '_').removesuffix('.json')}.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "exploit" / "trash")
    parser.add_argument("--rollouts", type=int, default=64, help="rollouts per legal action at each decision")
    parser.add_argument("--deals", type=int, default=400, help="test deals of a hand task")
    parser.add_argument("--match-deals", type=int, default=40, help="test deals of a match task (R9)")
    parser.add_argument(
        "--horizon", type=int, default=None, help="engine steps a rollout of a hand task at most (default: no limit)"
    )
    parser.add_argument(
        "--match-horizon", type=int, default=None, help="engine steps a rollout of a match task at most (R9)"
    )
    parser.add_argument(
        "--match-continuation",
        default=None,
        help="the rollouts' continuation on a match task (default: the policy itself), e.g. greedy",
    )
    parser.add_argument("--only", nargs="*", default=None, metavar="TASK", help="these tasks only")
    args = parser.parse_args()
    from agents.bench.local_exploit import local_exploitability
    from trash_env.files import write_json

    args.out.mkdir(parents=True, exist_ok=True)
    for task in two_player_trash_tasks():
        if args.only and task.name not in args.only:
            continue
        learner = best_kept_learner(task)
        policies = ["greedy", "counter", *([learner] if learner else []), *shipped_for(task)]
        for policy in policies:
            path = args.out / file_name(task.name, policy)
            if path.is_file():
                print(f"{path.name}: kept")
                continue
            deals = args.match_deals if task.config().match else args.deals
            began = time.perf_counter()
            result = local_exploitability(
                str(ROOT / policy) if policy.endswith(".json") else policy,
                task,
                rollouts=args.rollouts,
                deals=deals,
                seed=77,
                exact=False,
                horizon=args.match_horizon if task.config().match else args.horizon,
                continuation=args.match_continuation if task.config().match else None,
                progress=lambda line, name=path.stem: print(f"{name}: {line}", flush=True),
            )
            result["policy"] = policy  # as the repository names it, not this machine's path
            write_json(path, result)
            print(
                f"{task.name}, {policy}: {result['score']:+.4f} [{result['low']:+.4f}, {result['high']:+.4f}] per deal "
                f"on {deals} deals, {time.perf_counter() - began:.0f} s",
                flush=True,
            )
    print(json.dumps({"written": sorted(p.name for p in args.out.glob("*.json"))}))


if __name__ == "__main__":
    main()
