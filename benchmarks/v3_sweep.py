"""The benchmark v3 sweep (issue 54): every masked learner with its tuned settings, the fast trainer, the
example learner and the multi-agent learners, 10 seeds on the headline tier and 5 on the sanity tier,
full budget, policies kept, into ``docs/results-v3``.

It runs in parts, one ``trash-bench run`` each (:data:`PARTS`, in order: the headline tier first), and
is resumable: the runner skips every run whose result file is there already, so kill it and start it
again. ``--reuse`` first copies in the runs that v3 takes as they are, each with its kept policy:

- the multi-agent learners' runs (``docs/results-multiagent``: NFSP, PSRO, MMD, tabular TD and
  MaskablePPO self-play on the self-play tasks, 10 seeds, the same protocol and task versions);
- the "no masks" track: v2's learners without masks (``docs/results-v2``: ``ppo``, ``a2c``, ``dqn``,
  ``qrdqn``, 5 seeds on every task), which v3 keeps as its own labelled section.

::

    python benchmarks/v3_sweep.py --reuse --dry-run     # what is there, what is left, by part
    python benchmarks/v3_sweep.py --workers 2           # run what is left, part by part
    python benchmarks/v3_sweep.py --prune               # keep the policies v3 keeps (below), delete the rest

Kept policies, as in v2: MaskablePPO's (the reference learner's) for every run, and for every other
algorithm the best run's on each task (the highest final score); the other runs' result files stay,
naming a policy that is not there. ``--prune`` decides a task's best run of an algorithm once all its
seeds are in, and never touches the runs reused as they are.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results-v3"
HEADLINE_SEEDS, SANITY_SEEDS = 10, 5
TUNED = "tuned-v1"
MASKED = ("maskable_ppo", "fast_ppo", "masked_a2c", "masked_dqn", "masked_qrdqn")  # each with TUNED settings
EXAMPLE = "examples.reinforce:Reinforce"  # the example learner: tasks that train against baselines only
MASKLESS = ("ppo", "a2c", "dqn", "qrdqn")
MULTIAGENT = ROOT / "docs" / "results-multiagent"
V2 = ROOT / "docs" / "results-v2"
KEEP_EVERY = ("maskable_ppo",)  # the algorithms whose every run keeps its policy; the others keep each task's best


def parts() -> list[dict]:
    """The sweep's parts in the order they run: each one ``trash-bench run`` (algorithm, settings,
    tasks, seeds)."""
    from agents.bench.tasks import HEADLINE, SANITY, TASKS

    found = []
    for tier, seeds in ((HEADLINE, HEADLINE_SEEDS), (SANITY, SANITY_SEEDS)):
        tasks = [task.name for task in TASKS.values() if task.tier == tier]
        for algorithm in MASKED:
            found.append({"algorithm": algorithm, "settings": TUNED, "tasks": tasks, "seeds": seeds})
        baseline_tasks = [name for name in tasks if not TASKS[name].self_play]
        found.append({"algorithm": EXAMPLE, "settings": None, "tasks": baseline_tasks, "seeds": seeds})
    return found


def spec(part: dict) -> str:
    """The part's algorithm as the runner names it (a built-in with named settings: ``NAME@SETTINGS``)."""
    return part["algorithm"] if part["settings"] is None else f"{part['algorithm']}@{part['settings']}"


def reuse(results: Path) -> int:
    """Copy the runs v3 takes as they are (the module docstring) into ``results``, each result file with
    its kept policy; a file there already is left alone. Returns how many runs were copied."""
    copied = 0
    sources = [(MULTIAGENT, None), (V2, set(MASKLESS))]
    for folder, algorithms in sources:
        for result in sorted(folder.glob("*/*/seed_*.json")):
            algorithm = result.parent.name
            if algorithms is not None and algorithm not in algorithms:
                continue
            target = results / result.relative_to(folder)
            if target.exists():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            for path in result.parent.glob(result.stem + ".*"):  # the result and its kept policy
                shutil.copy2(path, target.with_name(path.name))
            copied += 1
    return copied


def prune(results: Path, dry_run: bool = False) -> list[Path]:
    """Delete the policies v3 does not keep (the module docstring) from the sweep's finished parts in
    ``results``: per part whose algorithm is not in :data:`KEEP_EVERY` and task whose seeds are all in,
    every policy but the best run's. Returns the policies deleted (with ``dry_run``: to delete)."""
    from agents.bench import store
    from agents.bench.runner import plan, result_name
    from agents.bench.tasks import get_task

    doomed = []
    for part in parts():
        if part["algorithm"] in KEEP_EVERY:
            continue
        planned = plan([get_task(name) for name in part["tasks"]], spec(part), range(part["seeds"]), results)
        waiting = {task.name for task, _ in planned.todo}  # a task with seeds to run: its best run is not known yet
        for name in part["tasks"]:
            if name in waiting:
                continue
            seeds = [seed for task, seed in planned.done if task.name == name]
            paths = [store.result_location(results, name, result_name(spec(part)), seed) for seed in seeds]
            runs = {path: store.read(path) for path in paths}
            valid = [path for path in paths if runs[path].is_valid]
            best = max(valid, key=lambda path: runs[path].final.headline) if valid else None
            for path in paths:
                artifact = path.with_name(runs[path].artifact)
                if path != best and artifact.is_file():
                    doomed.append(artifact)
    if not dry_run:
        for artifact in doomed:
            artifact.unlink()
    return doomed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--reuse", action="store_true", help="first copy in the runs v3 takes as they are")
    parser.add_argument("--dry-run", action="store_true", help="say what is done and what is left, run nothing")
    parser.add_argument("--only", nargs="*", type=int, default=None, metavar="PART", help="these parts (numbers)")
    parser.add_argument("--prune", action="store_true", help="only delete the policies v3 does not keep, run nothing")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from agents.bench.runner import plan, result_name
    from agents.bench.tasks import get_task

    if args.prune:
        doomed = prune(args.results, dry_run=args.dry_run)
        verb = "would delete" if args.dry_run else "deleted"
        print(f"{verb} {len(doomed)} policies v3 does not keep (each task's best run of an algorithm stays)")
        return 0

    if args.reuse:
        print(f"reused: {reuse(args.results)} runs copied into {args.results}", flush=True)
    for number, part in enumerate(parts()):
        if args.only is not None and number not in args.only:
            continue
        tasks = [get_task(name) for name in part["tasks"]]
        planned = plan(tasks, spec(part), range(part["seeds"]), args.results)
        print(
            f"part {number}: {result_name(spec(part))} on {len(tasks)} tasks x {part['seeds']} seeds: "
            f"{len(planned.done)} done, {len(planned.todo)} to run",
            flush=True,
        )
        if args.dry_run or not planned.todo:
            continue
        command = [sys.executable, "-m", "agents.commands.bench", "run", "--algorithm", part["algorithm"]]
        command += ["--tasks", *part["tasks"], "--seeds", str(part["seeds"]), "--results", str(args.results)]
        command += ["--workers", str(args.workers), *(["--settings", part["settings"]] if part["settings"] else [])]
        finished = subprocess.run(command, cwd=ROOT, check=False)
        if finished.returncode != 0:
            print(f"part {number} stopped with exit status {finished.returncode}", file=sys.stderr)
            return finished.returncode
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
