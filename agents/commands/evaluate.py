"""Evaluate agents against each other: ``trash-evaluate AGENT AGENT [AGENT ...]``.

Every pair of the named agents plays the same deals; with duplicate deals
(default) each deal is played once for every rotation of the seats, so the
luck of the deal cancels. Prints a table of per-agent results (win rate, mean
reward with 95% interval over deals, Bradley-Terry rating with interval), the
score difference of every pair with its 95% interval, and the per-seat
breakdown; optionally writes JSON, CSV (one row per game) and a PNG plot of the
ratings.

    trash-evaluate greedy random --deals 2000
    trash-evaluate greedy shipped:standard-2p
    trash-evaluate random greedy counter search --deals 2000 --workers 2 \\
        --json runs/ladder.json --csv runs/ladder.csv --plot runs/ladder.png
    trash-evaluate search:samples=64 greedy --preset pagat --num-players 4 --match
    trash-evaluate random heuristic --game help_your_neighbor --num-players 4
    trash-evaluate greedy counter --override layout_size=8 --override jokers=true
    trash-evaluate optimal heuristic --game help_your_neighbor --exact
    trash-evaluate heuristic --game help_your_neighbor --exact --exploitability

Agents are baseline names (Trash: random, greedy, counter, search, with options
as ``search:samples=64,rollouts=2``; Help Your Neighbor: random, heuristic, and
with two players optimal and ``best_response:SPEC``), policy files (``train.py``'s ``.zip``, a
NumPy ``.npz``, an RLlib folder), or the policies shipped inside the package by name
(``shipped:standard-2p``; ``--help`` lists them).

``--exact`` (two-player Help Your Neighbor) computes instead of sampling: every pair's
expected score and each agent's loss to optimal play; ``--exploitability`` adds each agent's
exact best response, what it wins per deal and where the agent gives it away
(:mod:`agents.evaluation.exploitability`; docs/exploitability.md).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.arguments import (
    ArgumentParser,
    add_override_flag,
    add_threads_flag,
    at_least,
    at_most,
    fail,
    presets,
    program_name,
    rules_config,
    shipped_epilog,
)
from agents.evaluation.duplicate import MAX_DEALS, check_pairings, round_robin, run_tournament
from agents.evaluation.seatings import GameResult
from agents.evaluation.stats import summarize
from agents.evaluation.summary import plot_ratings, print_summary, write_csv, write_json
from agents.processes import set_threads
from trash_env import files
from trash_env.games import GAMES, get_game

COMMAND = "trash-evaluate"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = ArgumentParser(
        prog=program_name(COMMAND),
        description="Duplicate-deal tournaments between Trash (or Help Your Neighbor) agents, "
        "with 95% intervals over deals.",
        epilog=shipped_epilog(),
    )
    parser.add_argument(
        "agents",
        nargs="+",
        help="agent specs: random, greedy, counter, search[:samples=N,...] (Help Your Neighbor: random, "
        "heuristic, roller, optimal, best_response:AGENT), a policy file (.zip, .npz, an RLlib folder) or "
        "shipped:NAME (below)",
    )
    parser.add_argument("--game", default="trash", choices=sorted(GAMES), help="the game (default trash)")
    parser.add_argument("--preset", default="standard", choices=presets(), help="rules preset (R11, Trash)")
    parser.add_argument("--num-players", type=int, default=2)
    parser.add_argument(
        "--match", action="store_true", help="play matches of hands (R9) instead of single hands (Trash)"
    )
    add_override_flag(parser)
    add_threads_flag(parser)
    parser.add_argument("--deals", type=int, default=1000, help="deals per pair of agents")
    parser.add_argument("--independent", action="store_true", help="a fresh deck for every game (no duplicate)")
    parser.add_argument("--workers", type=int, default=1, help="processes (2 uses both cores here)")
    parser.add_argument(
        "--engine",
        default="auto",
        choices=["auto", "scalar", "batched"],
        help="auto (default): pairs of in-engine baselines (Trash: random, greedy, counter; Help Your Neighbor: "
        "random, heuristic, roller, optimal) and learned policies on the batched engine, the same games",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bootstrap", type=int, default=200, help="bootstrap resamples for rating intervals")
    parser.add_argument("--json", type=Path, help="write the summary and settings as JSON")
    parser.add_argument("--csv", type=Path, help="write one row per game as CSV")
    parser.add_argument("--plot", type=Path, help="write a PNG plot of the ratings with their intervals")
    parser.add_argument(
        "--save-records",
        type=Path,
        metavar="DIR",
        help="write the game records of the first --record-deals deals of every pair (every rotation) as JSON "
        "under DIR, for replays (trash-replay)",
    )
    parser.add_argument("--record-deals", type=int, default=10, help="deals per pair whose records are saved")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--exact",
        action="store_true",
        help="two-player Help Your Neighbor: exact expected scores by policy evaluation over every state (no "
        "sampling), and each agent's loss to optimal play by kind of decision",
    )
    parser.add_argument(
        "--exploitability",
        action="store_true",
        help="with --exact: also each agent's exact best response, its exploitability (what the best response "
        "wins per deal) and the states where it gives most away (about 2 minutes an agent; one agent is enough)",
    )
    args = parser.parse_args(argv)
    if args.exploitability and not args.exact:
        parser.error("--exploitability goes with --exact (two-player Help Your Neighbor)")
    if len(args.agents) < (1 if args.exploitability else 2):
        parser.error("name at least two agents (or one, with --exact --exploitability)")
    return args


def build_config(args: argparse.Namespace) -> Any:
    """The game's preset with --num-players and --match, then any --override on top."""
    return rules_config(args.game, args.preset, args.num_players, args.match, args.override)


def check_arguments(args: argparse.Namespace) -> Any:
    """The configuration, once every argument is checked (ranges, rules, agents, output files):
    a ValueError naming the first bad one, before any game is played or file written."""
    at_least("--deals", args.deals, 1)
    at_most("--deals", args.deals, MAX_DEALS, "each deal's games are planned and kept in memory")
    at_least("--workers", args.workers, 1)
    at_least("--seed", args.seed, 0)
    at_least("--bootstrap", args.bootstrap, 0)
    at_least("--record-deals", args.record_deals, 1)
    for flag in ("json", "csv", "plot"):
        files.check_output_path(f"--{flag}", getattr(args, flag))
    if args.save_records is not None:
        if args.save_records.exists() and not args.save_records.is_dir():
            raise ValueError(f"--save-records {str(args.save_records)!r} is a file; give a folder")
        files.check_output_path("--save-records", args.save_records / "record.json")
    config = build_config(args)
    if args.exact:
        if args.save_records is not None:
            raise ValueError("--save-records saves played games; --exact plays none")
        if args.override:
            raise ValueError("--exact solves the game as R12 has it (no turn limit): --override would have no effect")
        if not get_game(args.game).solved or config.num_players != 2:
            raise ValueError(
                "--exact evaluates two-player Help Your Neighbor (the solved game): add --game help_your_neighbor"
            )
        if len(args.agents) > 1:  # (one agent is allowed with --exploitability)
            round_robin(args.agents)
        from agents.registry import make_agent

        for spec in args.agents:
            agent = make_agent(spec, args.game)
            agent.check_config(config)
            if not agent.batchable:
                raise ValueError(f"--exact asks for each agent's decision at every state; {spec} decides one at a time")
        return config
    check_pairings(config, round_robin(args.agents), args.deals, args.seed, args.workers, {}, args.engine)
    return config


def main(argv: Sequence[str] | None = None) -> int:
    """The command: 0 after a tournament, 2 for a bad argument (one line on stderr, nothing
    played or written), 130 after Ctrl-C (nothing written)."""
    args = parse_args(argv)
    try:
        set_threads(args.threads)
        config = check_arguments(args)
    except ValueError as error:
        return fail(program_name(COMMAND), error)
    if args.exact:
        return exact_main(args, config)
    try:
        results = run_with_progress(config, args)
    except KeyboardInterrupt:
        print(f"\n{program_name(COMMAND)}: interrupted; nothing was written", file=sys.stderr)
        return 130
    summary = summarize(results, bootstrap=args.bootstrap, seed=args.seed)
    mode = "independent" if args.independent else "duplicate"
    players = config.num_players
    game = get_game(args.game)
    if game.matches:
        what = f"{args.preset}, {players} players, {'matches' if config.match else 'hands'}"
    else:
        what = f"{game.title}, {players} players"
    print_summary(summary, f"{what}, {args.deals} {mode} deals per pair, seed {args.seed}")
    settings = {
        "game": get_game(args.game).env_name,
        "agents": args.agents,
        "config": config.to_dict(),
        "deals": args.deals,
        "duplicate": not args.independent,
        "seed": args.seed,
        "workers": args.workers,
        "games": len(results),
    }
    if args.json:
        write_json(args.json, {"settings": settings, **summary})
    if args.csv:
        write_csv(args.csv, results)
    if args.plot:
        plot_ratings(args.plot, summary, settings)
    if args.save_records is not None:
        count = save_records(config, args)
        print(f"wrote {count} game records under {args.save_records}")
    return 0


def save_records(config: Any, args: argparse.Namespace) -> int:
    """The records of the first ``--record-deals`` deals of every pair, as
    ``DIR/<agent>_vs_<agent>/deal_<d>_rotation_<r>.json``; the number written."""
    import re

    from agents.evaluation.duplicate import record_deals
    from trash_env.records import save_record

    deals = range(min(args.record_deals, args.deals))
    count = 0
    for pair in round_robin(args.agents):
        folder = args.save_records / "_vs_".join(re.sub(r"[^A-Za-z0-9.=-]+", "_", spec) for spec in pair)
        for record in record_deals(config, pair, deals, args.seed, not args.independent):
            where = record["evaluation"]
            save_record(record, folder / f"deal_{where['deal']}_rotation_{where['rotation']}.json")
            count += 1
    return count


def exact_main(args: argparse.Namespace, config: Any) -> int:
    """``--exact``: every pair's exact score, then each agent's loss to optimal play (and with
    ``--exploitability`` its exact best response: :func:`exploitability_section`)."""
    from rich.console import Console

    from agents.evaluation.exact import decision_tables, gap_to_optimal
    from agents.registry import make_agent

    console = Console(width=None if sys.stdout.isatty() else 120)
    agents = {spec: make_agent(spec, args.game) for spec in args.agents}

    def status(text: str) -> Any:
        return contextlib.nullcontext() if args.quiet else console.status(text)

    with status("reading every agent's decision at every state"):
        tables = {spec: decision_tables(agent) for spec, agent in agents.items()}
    pairs = []
    if len(args.agents) > 1:
        pairs = exact_pairs(args, tables, console, status)
    gaps = []
    for spec, agent in agents.items():
        if spec == "optimal":
            continue
        with status(f"{spec}: its loss to optimal play"):
            gap = gap_to_optimal(agent, seed=args.seed)
        gaps.append({**gap, "agent": spec})
        print_gap(console, spec, gap)
    exploits = []
    if args.exploitability:
        losses = {gap["agent"]: gap["all"] for gap in gaps}
        exploits = exploitability_section(agents, tables, losses, console, status)
    if args.json:
        settings = {"game": get_game(args.game).env_name, "agents": args.agents, "exact": True}
        found = {"pairs": pairs, "gaps": gaps}
        if args.exploitability:
            settings["exploitability"] = True
            found["exploitability"] = exploits
        write_json(args.json, {"settings": settings, **found})
    return 0


def exact_pairs(args: argparse.Namespace, tables: dict[str, Any], console: Any, status: Any) -> list[dict[str, Any]]:
    """``--exact``'s first table: every pair's exact win probabilities and score difference."""
    from rich.table import Table

    from agents.evaluation.exact import exact_pair

    pairs = []
    table = Table(title="exact, two-player Help Your Neighbor (no turn limit): first vs second")
    for column in (
        "first",
        "second",
        "first wins, rolling first",
        "first wins, rolling second",
        "score difference per deal",
    ):
        table.add_column(column, justify="left" if column in ("first", "second") else "right")
    for a, b in round_robin(args.agents):
        with status(f"policy evaluation: {a} vs {b}"):
            pair = exact_pair((a, tables[a]), (b, tables[b]))
        pairs.append(pair.to_dict())
        table.add_row(
            a,
            b,
            f"{pair.first_wins_as_first_roller:.6f}",
            f"{pair.first_wins_as_second_roller:.6f}",
            f"{pair.score_difference:+.6f}",
        )
    console.print(table)
    return pairs


def print_gap(console: Any, spec: str, gap: dict[str, Any]) -> None:
    """An agent's loss to optimal play by kind of decision, and the states where it errs most."""
    from rich.table import Table

    losses = Table(title=f"{spec} against optimal: what its own decisions cost (win probability, score per deal)")
    for column in ("its decisions", "loss rolling first", "loss rolling second", "score loss per deal"):
        losses.add_column(column, justify="left" if column == "its decisions" else "right")
    for key, label in (
        ("all", "all"),
        ("roll_or_end", "roll again or end only"),
        ("uncover", "which marker to uncover only"),
    ):
        row = gap[key]
        losses.add_row(
            label,
            f"{row['loss_as_first_roller']:.6f}",
            f"{row['loss_as_second_roller']:.6f}",
            f"{row['score_loss_per_deal']:.6f}",
        )
    console.print(losses)
    for example in gap["examples"]:
        options = ", ".join(f"{name} {p:.4f}" for name, p in example["win_probability"].items())
        rolls = " or ".join(str(roll) for roll in example["after_rolls"])
        console.print(
            f"  covered {example['covered']} vs {example['opponent_covered']}, after rolling {rolls}: "
            f"{spec} chooses to {example['agent']}, optimal to {example['optimal']} (win probability: {options}; "
            f"met {example['times_met']} times in 2000 sampled games)"
        )


def exploitability_section(
    agents: dict[str, Any], tables: dict[str, Any], losses: dict[str, dict[str, float]], console: Any, status: Any
) -> list[dict[str, Any]]:
    """``--exploitability``: each agent's exact best response, what it wins, and where the agent gives
    it away. The loss to optimal play is the gap's (already computed), 0 for ``optimal`` itself."""
    import dataclasses

    from rich.table import Table

    from agents.evaluation.exploitability import exploitability

    found = []
    table = Table(title="exploitability, two-player Help Your Neighbor (exact best response, no turn limit)")
    for column in (
        "agent",
        "best response wins, rolling first",
        "rolling second",
        "exploitability per deal",
        "loss to optimal per deal",
        "share optimal finds",
        "seconds",
    ):
        table.add_column(column, justify="left" if column == "agent" else "right")
    for spec, agent in agents.items():
        with status(f"{spec}: its exact best response"):
            result = exploitability(agent, tables=tables[spec], versus_optimal=False)
        if spec in losses:  # the agent's wins against optimal, from each seat: optimal's are the rest
            gap = losses[spec]
            optimal = 1.0 - gap["wins_as_second_roller"], 1.0 - gap["wins_as_first_roller"]
        else:  # optimal against itself wins the game's value from each seat
            optimal = result.game_value, 1.0 - result.game_value
        result = dataclasses.replace(
            result, optimal_wins_as_first_roller=optimal[0], optimal_wins_as_second_roller=optimal[1]
        )
        row = result.to_dict()
        found.append({**row, "agent": spec})
        share = "-" if row["optimal_finds"] is None else f"{row['optimal_finds']:.1%}"
        table.add_row(
            spec,
            f"{result.responder_wins_as_first_roller:.6f}",
            f"{result.responder_wins_as_second_roller:.6f}",
            f"{result.exploitability:.6f}",
            f"{result.loss_to_optimal:.6f}",
            share,
            f"{result.seconds['total']:.0f}",
        )
    console.print(table)
    for row in found:
        if not row["examples"]:
            continue
        console.print(
            f"{row['agent']} gives away {row['given_away']:.6f} per deal to its best response (which takes back "
            f"{row['taken_back']:.6f} by its own departures from optimal play); most at:"
        )
        for example in row["examples"]:
            rolls = " or ".join(str(roll) for roll in example.get("after_rolls", [7]))
            console.print(
                f"  covered {example['covered']} vs {example['opponent_covered']}, after rolling {rolls}: "
                f"{row['agent']} chooses to {example['agent']}, optimal to {example['optimal']} (loses "
                f"{example['loss']:.4f} win probability; met {example['visits_per_deal']:.3f} times a deal against "
                f"its best response: {example['given_away_per_deal']:.4f} per deal)"
            )
    return found


def run_with_progress(config: Any, args: argparse.Namespace) -> list[GameResult]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    pairs = len(args.agents) * (len(args.agents) - 1) // 2
    with Progress(
        TextColumn("deals"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), disable=args.quiet
    ) as progress:
        task = progress.add_task("deals", total=pairs * args.deals)
        return run_tournament(
            config,
            args.agents,
            args.deals,
            seed=args.seed,
            duplicate=not args.independent,
            workers=args.workers,
            on_progress=lambda n: progress.advance(task, n),
            engine=args.engine,
        )


if __name__ == "__main__":
    raise SystemExit(main())
