"""``trash-bench``: the benchmark suite's command (not the speed scripts of ``benchmarks/``).

    trash-bench tasks                                          # the tasks, with what each tests
    trash-bench run --algorithm maskable_ppo --tasks all --seeds 5 --results runs/bench --workers 2
    trash-bench run --algorithm my_module:MyAlgorithm --tasks hyn-2p --seeds 3 --results runs/bench
    trash-bench run ... --ray [ADDRESS]                        # the runs as Ray tasks (local or a cluster)
    trash-bench run ... --budget-fraction 0.01                 # smoke test: every budget and evaluation scaled
    trash-bench run --algorithm tabular_td --tasks hyn-2p --seeds 1 --budget-fraction 1000 --results R
                                                               # the open-budget track (above 1): deals kept
    trash-bench evaluate RESULT_OR_POLICY [--task T] [--seed S] [--deals D]   # a kept policy, re-evaluated
    trash-bench report RESULTS [--tiers] [--out DIR] [--readme docs/suite.md --readme README.md]
    trash-bench references [--tasks ...]                       # recompute the stored reference scores
    trash-bench crossplay RESULTS --task T [--deals D] [--seed S]   # kept policies and baselines, each vs each
    trash-bench exploit POLICY --task T [--budget N ...] [--seeds K]   # a trained best response: a lower bound
    trash-bench exploit POLICY --task T --method fast [--budget N ...]   # the fast trainer as the responder
    trash-bench exploit POLICY --task T --method local [--rollouts R] [--rounds K]  # a local best response
    trash-bench exploit POLICY --task T --method search [--budget N] [--rollouts R]  # trained, then searched
    trash-bench warmup                                         # compile every Numba kernel now, not at first use
    trash-bench tune masked_dqn --tasks trash-standard-2p trash-pagat-2p-match hyn-2p --trials 20 \
        --storage tuning/masked_dqn.db [--export agents/bench/tuned/tuned-v1.json --name tuned-v1]
    trash-bench run --algorithm masked_dqn --settings tuned-v1 ...   # with the package's tuned settings

``run`` skips the runs whose result file has exactly their identity (task, task version, algorithm,
seed, budget fraction, protocol: a stopped sweep resumes) and prints each finished run. Ctrl-C
stops the sweep at once, its training processes too: finished runs are kept, the runs under way
start again next time. Bad arguments get one line and exit status 2. So do bad result files
(:mod:`agents.bench.results`): ``report`` and ``run`` read every result file of the folder first and,
if any is bad, print a line for each, naming it and what is wrong, and stop before writing anything
(``run --skip-bad-results`` instead leaves each bad file as it is, warns, and runs the rest).
``evaluate`` scores a run's kept policy again (:func:`agents.bench.runner.reevaluate`): given a
result file, on its own test deals unless told otherwise, saying whether it reproduces the stored
final score.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.arguments import ArgumentParser, add_threads_flag, at_least, at_most, fail, one_line, program_name
from agents.bench.algorithms import BUILTIN
from agents.bench.results import BadResultsError
from agents.bench.tasks import (
    MAX_TRAINING_SEED,
    PROTOCOL_VERSION,
    REFERENCES,
    TASKS,
    load_references,
    select_tasks,
)
from agents.commands.bench_exploit import add_exploit_parser, exploit_command
from agents.registry import scored_baselines
from trash_env.files import check_output_path, write_json

COMMAND = "trash-bench"


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog=program_name(COMMAND), description="The trash-rl benchmark suite: tasks, runs, reports."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("tasks", help="list the tasks")
    commands.add_parser(
        "warmup",
        help="compile every Numba kernel (the engines, the exact solver, tabular_td) ahead of its first use: "
        "once per environment, cached on disk",
    )
    run = commands.add_parser("run", help="train an algorithm on tasks x seeds and write result files")
    run.add_argument(
        "--algorithm",
        required=True,
        help=f"a built-in name ({', '.join(BUILTIN)}) or module:attribute",
    )
    run.add_argument(
        "--tasks",
        nargs="+",
        required=True,
        help="task names, or a group: all, baseline-opponents, self-play, headline, sanity",
    )
    run.add_argument(
        "--settings",
        default=None,
        metavar="NAME",
        help="a tunable built-in with the package's tuned settings NAME (agents/bench/tuned/NAME.json): "
        "results filed as ALGORITHM-NAME, the settings recorded in each",
    )
    run.add_argument("--seeds", type=int, required=True, help="how many seeds (0 .. N-1)")
    run.add_argument("--first-seed", type=int, default=0, help="the first seed (default 0)")
    run.add_argument("--results", type=Path, required=True, help="the results folder")
    run.add_argument("--workers", type=int, default=1, help="runs at a time, each in its own process")
    run.add_argument(
        "--budget-fraction",
        type=float,
        default=1.0,
        help="scale every budget and evaluation (above 1: the open-budget track, the deals kept at full)",
    )
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
    tune = commands.add_parser(
        "tune", help="tune a built-in's settings with Optuna on validation deals (resumable: an SQLite study)"
    )
    tune.add_argument(
        "algorithm", help="a tunable built-in: maskable_ppo, masked_a2c, masked_dqn, masked_qrdqn, fast_ppo"
    )
    tune.add_argument("--tasks", nargs="+", required=True, help="the tuning tasks (names or a group)")
    tune.add_argument("--trials", type=int, required=True, help="trials to end in the study (a rerun goes on to it)")
    tune.add_argument("--storage", type=Path, required=True, help="the study's SQLite file (created, or resumed)")
    tune.add_argument(
        "--budget-fraction", type=float, default=1.0, help="each trial's budget: this fraction of each task's"
    )
    tune.add_argument("--sampler-seed", type=int, default=0, help="the TPE sampler's seed")
    tune.add_argument("--export", type=Path, default=None, metavar="FILE", help="write the best settings into FILE")
    tune.add_argument("--name", default=None, help="the settings' name in FILE (with --export), e.g. tuned-v1")
    evaluate = commands.add_parser(
        "evaluate", help="evaluate a run's kept policy again (or a policy file) on test deals, without retraining"
    )
    evaluate.add_argument(
        "target",
        type=Path,
        metavar="RESULT_OR_POLICY",
        help="a result file (seed_N.json: its policy, task, test seed and deals) or a policy file "
        "(seed_N.policy.zip/.npz/.json, with --task)",
    )
    evaluate.add_argument("--task", default=None, help="the task (needed for a policy file)")
    evaluate.add_argument(
        "--seed", type=int, default=None, help="the test seed (default: the result's, or a fresh one for a policy)"
    )
    evaluate.add_argument(
        "--deals", type=int, default=None, help="test deals (default: the result's, or the task's final deals)"
    )
    evaluate.add_argument("--json", action="store_true", help="print the scores as JSON")
    add_threads_flag(evaluate)
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
    report.add_argument(
        "--separate",
        action="store_true",
        help="report each protocol, task version and budget fraction as its own section "
        "(default: refuse a folder mixing them)",
    )
    report.add_argument(
        "--tiers",
        action="store_true",
        help="the v3 layout: the across-task figures over the headline tier only, the sanity tier as pass or "
        "fail, the learners without masks as their own track",
    )
    references = commands.add_parser("references", help="recompute the tasks' stored reference scores")
    references.add_argument("--tasks", nargs="+", default=["all"])
    add_crossplay_parser(commands)
    add_exploit_parser(commands)
    return parser


def add_crossplay_parser(commands: Any) -> None:
    crossplay = commands.add_parser(
        "crossplay",
        help="a task's kept final policies and its baselines, each against each on duplicate deals: the score "
        "matrix and Bradley-Terry ratings (JSON, Markdown, heatmap)",
    )
    crossplay.add_argument("results", type=Path, metavar="RESULTS", help="the results folder")
    crossplay.add_argument("--task", required=True, help="a two-player task")
    crossplay.add_argument("--deals", type=int, default=None, help="deals per pair (default: the task's final deals)")
    crossplay.add_argument(
        "--seed", type=int, default=None, help="the deals' seed (default 1000007: no training, validation or test seed)"
    )
    crossplay.add_argument("--workers", type=int, default=1, help="processes for pairs the batched engine cannot play")
    crossplay.add_argument("--out", type=Path, default=None, help="where to write (default: the results folder)")
    crossplay.add_argument("--bootstrap", type=int, default=200, help="bootstrap resamples of the ratings")
    crossplay.add_argument("--no-plot", action="store_true", help="no heatmap")
    add_threads_flag(crossplay)
    crossplay.add_argument(
        "--skip-missing",
        action="store_true",
        help="leave out, with a warning, a run whose kept policy is missing or cannot be loaded (default: refuse)",
    )


def list_tasks() -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="trash-bench tasks")
    columns = ("task", "v", "tier", "game", "rules", "trained against", "budget", "reference", "held out")
    columns = (*columns, "min fraction")
    for column in (*columns, "tests"):
        table.add_column(column)
    for task in TASKS.values():
        table.add_row(
            task.name,
            str(task.version),
            task.tier,
            task.game,
            task.rules_text,
            " ".join(task.opponents),
            f"{task.budget:,}",
            task.reference,
            " ".join(task.heldout),
            f"{task.min_fraction:g}",
            task.tests,
        )
    Console(width=None if sys.stdout.isatty() else 200).print(table)


def baseline_scores(task: Any, baselines: list[str], opponent: str, workers: int) -> dict[str, float]:
    """Each baseline's score difference per deal against ``opponent`` on the task's first ``final_deals``
    validation deals (rounded to 6 decimals)."""
    from agents.evaluation.duplicate import run_pairings
    from agents.evaluation.stats import pair_summaries

    pairs = [(baseline, opponent) for baseline in baselines]
    played = run_pairings(task.config(), pairs, task.final_deals, seed=task.validation_seed, workers=workers)
    return {summary.first: round(summary.score_difference.mean, 6) for summary in pair_summaries(played)}


def compute_references(names: list[str], workers: int = 2) -> None:
    """Each task's stored reference scores (protocol v2), on its first ``final_deals`` validation deals:
    every scored baseline's score difference per deal against the evaluation opponent (``random``'s
    and the reference agent's are the anchors: ``random``, ``reference``), and the same against each
    held-out opponent (``heldout``); on a task scored exactly, the same exactly (``exact``). The
    report's baseline columns; runs measure their own anchors on their own deals, and take their exact
    anchors from here. Written after each task, so a stopped command keeps what it measured."""
    stored = dict(load_references())
    for task in select_tasks(names):
        baselines = scored_baselines(task.game, task.num_players)
        baselines += [] if task.reference in baselines else [task.reference]
        scores = baseline_scores(task, baselines, task.reference, workers)
        heldout = {}
        for opponent in task.heldout:
            versus = baseline_scores(task, baselines, opponent, workers)
            heldout[opponent] = {"random": versus["random"], "reference": versus[task.reference], "baselines": versus}
        stored[task.name] = {
            "version": task.version,
            "protocol": PROTOCOL_VERSION,
            "random": scores["random"],
            "reference": scores[task.reference],
            "baselines": scores,
            "heldout": heldout,
            "deals": task.final_deals,
            "seed": task.validation_seed,
        }
        if task.exact:  # the same baselines' exact scores (agents.bench.exact_scores): the anchors of exact scores
            from agents.bench import exact_scores as exact

            stored[task.name]["exact"] = exact.references(task, baselines)
        if task.exploitability:  # each baseline's exact exploitability: random's normalises the task's figures
            from agents.bench import exploitability_scores

            stored[task.name]["exploitability"] = exploitability_scores.references(task, baselines)
        print(f"{task.name}: {scores}; held out: {heldout}", flush=True)
        write_json(REFERENCES, dict(sorted(stored.items())))
        load_references.cache_clear()


def run_command(args) -> int:
    from rich.console import Console

    from agents.bench.results import check_name
    from agents.bench.runner import plan, result_name, sweep

    tasks = select_tasks(args.tasks)
    at_least("--seeds", args.seeds, 1)
    at_least("--first-seed", args.first_seed, 0)
    at_most("--first-seed", args.first_seed, MAX_TRAINING_SEED - 1, "the training seeds")
    seeds_are = f"training seeds are 0..{MAX_TRAINING_SEED - 1}"
    at_most("--seeds", args.seeds, MAX_TRAINING_SEED - args.first_seed, seeds_are)
    at_least("--workers", args.workers, 1)
    at_least("--threads", args.threads, 1)
    for task in tasks:  # (0, 1] or the open-budget track's (1, MAX_FRACTION], no smaller than the task allows
        task.check_fraction(args.budget_fraction)
    check_output_path("--results", args.results / "x.json")
    if args.settings is not None:
        if args.algorithm not in BUILTIN:
            raise ValueError(f"--settings takes a built-in algorithm, not {args.algorithm!r}")
        args.algorithm = f"{args.algorithm}@{args.settings}"
    # an unknown algorithm is refused before any work (a plugin is loaded in a child process, not here)
    name = check_name(result_name(args.algorithm), "--algorithm: the results' name")  # a folder, a table's row
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    todo, done, skipped, replaced = plan(
        tasks, args.algorithm, seeds, args.results, args.skip_bad_results, args.budget_fraction, name
    )
    for problem in skipped:
        warn(f"{problem} (skipped: left as it is, its run not run again)")
    for line in replaced:
        warn(line)
    console = Console(soft_wrap=True, markup=False)  # never folded, in a terminal or piped; no [markup]
    left = f", {len(skipped)} bad result files left alone" if skipped else ""
    console.print(f"{name}: {len(todo)} runs to do, {len(done)} already finished{left} in {args.results}")
    count = [0]

    def show(result: dict) -> None:
        count[0] += 1
        invalid = "" if result["valid"] else f", INVALID: {'; '.join(result['invalid_reasons'])}"
        console.print(
            f"[{count[0]}/{len(todo)}] {result['task']} seed {result['seed']}: {final_text(result)}, "
            f"{result['wall_seconds']:.0f} s{invalid}"
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


def final_text(result: dict[str, Any], digits: int = 3) -> str:
    """A run's final score (or a held-out entry, given as ``result``'s ``final``) as its result file
    holds it and the report counts it: exact where it was scored exactly (with the sampled estimate on
    the test deals beside it), else sampled."""
    final = result["final"]
    sampled = f"{final['score']:+.4f} [{final['low']:+.4f}, {final['high']:+.4f}]"
    if "exact" in final:
        exact = final["exact"]
        deals = f" on {final['deals']:,} test deals" if "deals" in final else ""
        return (
            f"normalised {exact['normalized']:+.{digits}f} (exact: score {exact['score']:+.4f}; "
            f"sampled{deals}: {sampled})"
        )
    return f"normalised {final['normalized']:+.{digits}f} (score {sampled})"


def evaluate_command(args) -> int:
    """``trash-bench evaluate``: the kept policy's final scores again, and whether they are the stored ones."""
    import json

    from agents.bench.exact_scores import EXACT_TOLERANCE
    from agents.bench.runner import reevaluate

    if args.deals is not None:
        at_least("--deals", args.deals, 2)
    if args.task is not None:
        select_tasks([args.task])  # one line for an unknown task
    evaluated = reevaluate(args.target, args.task, args.seed, args.deals)
    if args.json:
        print(json.dumps(evaluated, indent=2))
        return 0
    final = evaluated["final"]
    print(
        f"{evaluated['task']}, {evaluated['artifact']}, {evaluated['deals']} test deals of seed {evaluated['seed']}: "
        f"{final_text({'final': final}, 4)}"
    )
    for entry in evaluated["heldout"]:
        print(f"  against {entry['opponent']} (held out): {final_text({'final': entry}, 4)}")
    stored = evaluated["stored"]
    if stored is None:
        return 0
    if evaluated["reproduced"] == "exactly":
        print("the stored final and held-out scores, reproduced exactly")
        return 0
    if evaluated["reproduced"] == "within tolerance":
        print(
            "the stored final and held-out scores, reproduced: the games and sampled scores exactly, the exact "
            f"solver's figures within its tolerance ({EXACT_TOLERANCE:g})"
        )
        return 0
    was = stored["final"]
    outside = not was["low"] <= final["score"] <= was["high"]
    gap = f"score {final['score']:+.4f} against the stored {was['score']:+.4f} [{was['low']:+.4f}, {was['high']:+.4f}]"
    differences = evaluated["provenance_differences"]
    if differences:
        print(f"differs from the stored final ({gap}); the run's provenance differs here: {'; '.join(differences)}")
        return 0
    print(
        f"differs from the stored final ({gap}) under the same provenance"
        + (": outside its interval, so the kept policy is not the one that was scored" if outside else "")
    )
    return 1 if outside else 0


def crossplay_command(args) -> int:
    """``trash-bench crossplay``: the kept policies and the baselines, each against each
    (:func:`agents.bench.crossplay.crossplay`); prints the Markdown it writes."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from agents.bench.crossplay import crossplay, markdown

    if args.deals is not None:
        at_least("--deals", args.deals, 2)
    at_least("--workers", args.workers, 1)
    at_least("--bootstrap", args.bootstrap, 0)
    columns = (TextColumn("deals"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), disable=not sys.stderr.isatty()) as progress:
        bar = progress.add_task("deals", total=None)

        def announce(line: str, total: int) -> None:
            print(line, flush=True)
            progress.update(bar, total=total)

        data = crossplay(
            args.results,
            args.task,
            args.deals,
            args.seed,
            args.workers,
            args.out,
            args.bootstrap,
            with_plot=not args.no_plot,
            skip_missing=args.skip_missing,
            warn=warn,
            announce=announce,
            on_progress=lambda n: progress.advance(bar, n),
        )
    print(markdown(data), end="")
    return 0


def warn(message: str) -> None:
    """``prog: warning: MESSAGE`` on one line of stderr."""
    print(f"{program_name(COMMAND)}: warning: {one_line(message)}", file=sys.stderr, flush=True)


def warmup_command() -> int:
    """``trash-bench warmup``: :func:`trash_env.warmup.warm_up`, then ``tabular_td``'s kernels (with the
    train extra, whose vector env it learns on), each said as it finishes."""
    from trash_env.jit import HAVE_NUMBA
    from trash_env.warmup import warm_up

    if not HAVE_NUMBA:
        print("nothing to compile: Numba is not installed (the batched extra), so the kernels run as plain Python")
        return 0

    def said(what: str, seconds: float) -> None:
        print(f"{what}: ready in {seconds:.1f} s", flush=True)

    warm_up(said)
    try:
        from agents.training.tabular_td import warm_up as warm_up_tabular_td
    except ImportError as error:
        print(f"tabular_td: skipped ({error.name} is not installed: it learns on the train extra's vector env)")
    else:
        said("tabular_td's learning step", warm_up_tabular_td())
    return 0


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


def tune_command(args) -> int:
    """``trash-bench tune``: trials until ``--trials`` have ended, then the best settings (and, with
    ``--export``, the settings file)."""
    from agents.bench.tune import MAX_TRIALS, Tuning
    from agents.bench.tuned_settings import export

    at_least("--trials", args.trials, 1)
    at_most("--trials", args.trials, MAX_TRIALS)
    at_least("--sampler-seed", args.sampler_seed, 0)
    if (args.export is None) != (args.name is None):
        raise ValueError("--export and --name go together: the file and the settings' name in it")
    check_output_path("--storage", args.storage)
    if args.export is not None:
        check_output_path("--export", args.export)
    tuning = Tuning(args.algorithm, select_tasks(args.tasks), args.storage, args.budget_fraction, args.sampler_seed)
    try:
        study = tuning.run(args.trials)
    except KeyboardInterrupt:
        stopped = "interrupted; the study keeps its ended trials, rerun to go on"
        print(f"\n{program_name(COMMAND)}: {stopped}", file=sys.stderr)
        return 130
    tuned = tuning.summary(study)
    print(
        f"{args.algorithm}: best {tuned.study.best_value:.3f} (trial {tuned.study.best_trial}) of {tuned.study.trials} "
        f"trials ({tuned.study.pruned} pruned), {tuned.study.seconds / 3600:.2f} h: {tuned.values}"
    )
    if args.export is not None:
        export(args.export, args.name, args.algorithm, tuned)
        print(f"wrote {args.algorithm}'s settings {args.name!r} into {args.export}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command in ("evaluate", "crossplay", "exploit"):
            from agents.processes import set_threads

            set_threads(args.threads)  # one thread unless told: the policies' networks are small, the cores shared
        if args.command == "tasks":
            list_tasks()
            return 0
        if args.command == "warmup":
            return warmup_command()
        if args.command == "references":
            select_tasks(args.tasks)
            compute_references(args.tasks)
            return 0
        if args.command == "evaluate":
            return evaluate_command(args)
        if args.command == "crossplay":
            return crossplay_command(args)
        if args.command == "exploit":
            return exploit_command(args, program_name(COMMAND))
        if args.command == "tune":
            return tune_command(args)
        if args.command == "report":
            from agents.bench.report import report

            if not args.results.is_dir():
                raise ValueError(f"results folder {str(args.results)!r} does not exist")
            print(
                report(
                    args.results,
                    args.out,
                    args.readme,
                    with_plots=not args.no_plots,
                    separate=args.separate,
                    tiered=args.tiers,
                ),
                end="",
            )
            return 0
        return run_command(args)
    except BadResultsError as error:
        return refuse_bad_results(error, args.command)
    except ValueError as error:
        return fail(program_name(COMMAND), error)


if __name__ == "__main__":
    raise SystemExit(main())
