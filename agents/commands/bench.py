"""``trash-bench``: the benchmark suite's command (not the speed scripts of ``benchmarks/``).

    trash-bench tasks                                          # the tasks, with what each tests
    trash-bench run --algorithm maskable_ppo --tasks all --seeds 5 --results docs/results --workers 2
    trash-bench run --algorithm my_module:MyAlgorithm --tasks hyn-2p --seeds 3 --results runs/bench
    trash-bench run ... --ray [ADDRESS]                        # the runs as Ray tasks (local or a cluster)
    trash-bench run ... --budget-fraction 0.01                 # smoke test: every budget and evaluation scaled
    trash-bench report docs/results [--out DIR] [--readme docs/suite.md --readme README.md]
    trash-bench references [--tasks ...]                       # recompute the stored reference scores

``run`` skips runs whose result file exists (a stopped sweep resumes) and prints each finished run.
Ctrl-C stops the sweep at once: finished runs are kept, the runs under way start again next time.
Bad arguments get one line and exit status 2. So do bad result files (:mod:`agents.bench.results`):
``report`` and ``run`` read every result file of the folder first and, if any is bad, print a line
for each, naming it and what is wrong, and stop before writing anything (``run --skip-bad-results``
instead leaves each bad file as it is, warns, and runs the rest).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from agents.arguments import ArgumentParser, at_least, fail, one_line, program_name
from agents.bench.results import BadResultsError
from agents.bench.tasks import REFERENCES, TASKS, load_references, select_tasks
from agents.registry import SCORED_BASELINES
from trash_env.files import check_output_path, write_json

COMMAND = "trash-bench"


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog=program_name(COMMAND), description="The trash-rl benchmark suite: tasks, runs, reports."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("tasks", help="list the tasks")
    run = commands.add_parser("run", help="train an algorithm on tasks x seeds and write result files")
    run.add_argument(
        "--algorithm",
        required=True,
        help="a built-in name (maskable_ppo, ppo, a2c, dqn, qrdqn, maskable_ppo_selfplay) or module:attribute",
    )
    run.add_argument(
        "--tasks", nargs="+", required=True, help="task names, or a group: all, baseline-opponents, self-play"
    )
    run.add_argument("--seeds", type=int, required=True, help="how many seeds (0 .. N-1)")
    run.add_argument("--first-seed", type=int, default=0, help="the first seed (default 0)")
    run.add_argument("--results", type=Path, required=True, help="the results folder")
    run.add_argument("--workers", type=int, default=1, help="runs at a time, each in its own process")
    run.add_argument("--budget-fraction", type=float, default=1.0, help="scale every budget and evaluation")
    run.add_argument(
        "--threads",
        type=int,
        default=1,
        metavar="N",
        help="torch, OpenMP and Numba threads per run (default 1: runs go side by side, one per core)",
    )
    run.add_argument(
        "--ray", nargs="?", const="", default=None, metavar="ADDRESS", help="run on Ray (local, or ADDRESS)"
    )
    run.add_argument(
        "--skip-bad-results",
        action="store_true",
        help="run even if the results folder holds bad result files: warn about each, leave it as it is "
        "(never overwritten) and do not run its run (default: refuse, naming them)",
    )
    report = commands.add_parser("report", help="tables, plots and a JSON leaderboard from a results folder")
    report.add_argument("results", type=Path)
    report.add_argument("--out", type=Path, default=None, help="where to write (default: the results folder)")
    report.add_argument(
        "--readme",
        type=Path,
        action="append",
        default=[],
        help="splice the tables into this Markdown file's markers (repeatable)",
    )
    report.add_argument("--no-plots", action="store_true")
    references = commands.add_parser("references", help="recompute the tasks' stored reference scores")
    references.add_argument("--tasks", nargs="+", default=["all"])
    return parser


def list_tasks() -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="trash-bench tasks")
    for column in ("task", "v", "game", "rules", "trained against", "budget", "reference", "tests"):
        table.add_column(column)
    for task in TASKS.values():
        table.add_row(
            task.name,
            str(task.version),
            task.game,
            task.rules_text,
            " ".join(task.opponents),
            f"{task.budget:,}",
            task.reference,
            task.tests,
        )
    Console(width=None if sys.stdout.isatty() else 200).print(table)


def compute_references(names: list[str]) -> None:
    """Each task's reference scores: random's, the reference agent's and the other baselines' score
    difference per deal against the evaluation opponent on the final evaluation deals."""
    from agents.evaluation.duplicate import run_pairings
    from agents.evaluation.stats import pair_summaries

    stored = dict(load_references())
    for task in select_tasks(names):
        config = task.config()
        scores = {}
        for baseline in SCORED_BASELINES[task.game]:
            if baseline == "optimal" and task.num_players != 2:
                continue
            results = run_pairings(
                config, [(baseline, task.reference)], task.final_deals, seed=task.eval_seed, workers=2
            )
            scores[baseline] = round(pair_summaries(results)[0].score_difference.mean, 6)
        stored[task.name] = {
            "version": task.version,
            "random": scores["random"],
            "reference": scores[task.reference],
            "baselines": scores,
            "deals": task.final_deals,
            "seed": task.eval_seed,
        }
        print(f"{task.name}: {scores}", flush=True)
        write_json(REFERENCES, dict(sorted(stored.items())))
    load_references.cache_clear()


def run_command(args) -> int:
    from rich.console import Console

    from agents.bench.algorithms import load_algorithm
    from agents.bench.results import check_name
    from agents.bench.runner import plan, result_name, sweep

    tasks = select_tasks(args.tasks)
    at_least("--seeds", args.seeds, 1)
    at_least("--first-seed", args.first_seed, 0)
    at_least("--workers", args.workers, 1)
    at_least("--threads", args.threads, 1)
    if not 0 < args.budget_fraction <= 1:
        raise ValueError(f"--budget-fraction must be in (0, 1], got {args.budget_fraction}")
    check_output_path("--results", args.results / "x.json")
    check_name(result_name(args.algorithm), "--algorithm: the results' name")  # a folder, a table's row
    load_algorithm(args.algorithm)  # an unknown algorithm is refused before any work
    for task in tasks:
        task.reference_scores  # noqa: B018 - refuses a task without stored references, before any work
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    todo, done, skipped = plan(tasks, args.algorithm, seeds, args.results, args.skip_bad_results)
    for problem in skipped:
        warn(f"{problem} (skipped: left as it is, its run not run again)")
    console = Console(soft_wrap=True, markup=False)  # never folded, in a terminal or piped; no [markup]
    left = f", {len(skipped)} bad result files left alone" if skipped else ""
    console.print(f"{args.algorithm}: {len(todo)} runs to do, {len(done)} already finished{left} in {args.results}")
    count = [0]

    def show(result: dict) -> None:
        count[0] += 1
        final = result["final"]
        console.print(
            f"[{count[0]}/{len(todo)}] {result['task']} seed {result['seed']}: normalised {final['normalized']:+.3f} "
            f"(score {final['score']:+.4f} [{final['low']:+.4f}, {final['high']:+.4f}]), {result['wall_seconds']:.0f} s"
        )

    try:
        sweep(
            tasks,
            args.algorithm,
            seeds,
            args.results,
            args.workers,
            args.budget_fraction,
            ray_address=args.ray or None,
            use_ray=args.ray is not None,
            on_result=show,
            threads=args.threads,
            skip_bad_results=args.skip_bad_results,
        )
    except KeyboardInterrupt:
        print(
            f"\n{program_name(COMMAND)}: interrupted; {count[0]} runs finished and kept, rerun the command to go on",
            file=sys.stderr,
        )
        return 130
    return 0


def warn(message: str) -> None:
    """``prog: warning: MESSAGE`` on one line of stderr."""
    print(f"{program_name(COMMAND)}: warning: {one_line(message)}", file=sys.stderr, flush=True)


def refuse_bad_results(error: BadResultsError, command: str) -> int:
    """A line for each bad result file, then what was not done and why: exit status 2."""
    prog = program_name(COMMAND)
    for problem in error.problems:
        fail(prog, problem)
    if command == "run":
        advice = "nothing run: fix, move or delete them (a deleted run is run again), or give --skip-bad-results"
    else:
        advice = "nothing written: fix, move or delete them"
    return fail(prog, f"{error.summary}: {advice}")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "tasks":
            list_tasks()
            return 0
        if args.command == "references":
            select_tasks(args.tasks)
            compute_references(args.tasks)
            return 0
        if args.command == "report":
            from agents.bench.report import report

            if not args.results.is_dir():
                raise ValueError(f"results folder {str(args.results)!r} does not exist")
            print(report(args.results, args.out, args.readme, with_plots=not args.no_plots), end="")
            return 0
        return run_command(args)
    except BadResultsError as error:
        return refuse_bad_results(error, args.command)
    except ValueError as error:
        return fail(program_name(COMMAND), error)


if __name__ == "__main__":
    raise SystemExit(main())
