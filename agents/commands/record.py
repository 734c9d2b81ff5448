"""Record one game between agents, as a game record, an HTML replay and an animated GIF:
``trash-record AGENT AGENT [AGENT ...]``.

    trash-record greedy shipped:standard-2p --gif game.gif --html game.html
    trash-record heuristic shipped:hyn-2p-maskable-ppo \\
        --game help_your_neighbor --html neighbor.html
    trash-record greedy counter search --preset pagat --match --seed 3 --json match.json

The agents sit in the order given (seat 0 plays first, R3), one per seat; ``--num-players`` repeats
the list around the table when it is larger. The game is played on the rules core exactly as
evaluation plays it (``--seed`` picks the deal; the same seed gives the same game). The replay
names every move, marks forced ones (R13, R14) and shows a learned policy's probability of each
legal action at its decisions. Pictures need the ``render`` extra. Exit codes: 0 after writing, 2
for a bad argument (nothing played or written) or a game that does not replay to the result it
records (nothing written: the record is replayed, and its result checked, before any file is).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agents.arguments import (
    ArgumentParser,
    add_override_flag,
    add_threads_flag,
    at_least,
    fail,
    presets,
    program_name,
    rules_config,
    shipped_epilog,
)
from agents.evaluation.duplicate import record_game
from agents.processes import set_threads
from agents.registry import make_agent
from trash_env import files
from trash_env.games import GAMES, get_game
from trash_env.rendering import media

COMMAND = "trash-record"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = ArgumentParser(prog=program_name(COMMAND), description=__doc__.splitlines()[0], epilog=shipped_epilog())
    parser.add_argument("agents", nargs="+", help="an agent spec per seat (as agents.commands.evaluate takes them)")
    parser.add_argument("--game", default="trash", choices=sorted(GAMES), help="the game (default trash)")
    parser.add_argument("--preset", default="standard", choices=presets(), help="rules preset (R11, Trash)")
    parser.add_argument("--num-players", type=int, help="default: one seat per agent named")
    parser.add_argument("--match", action="store_true", help="a match of hands (R9, Trash)")
    add_override_flag(parser)
    add_threads_flag(parser)
    parser.add_argument("--seed", type=int, default=0, help="the deal (and every later random event)")
    parser.add_argument("--json", type=Path, help="write the game record (JSON) here")
    parser.add_argument("--html", type=Path, help="write a self-contained HTML replay here")
    parser.add_argument("--gif", type=Path, help="write an animated GIF here")
    parser.add_argument("--fps", type=float, default=2.0, help="positions per second (default 2)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        set_threads(args.threads)
        if not (args.json or args.html or args.gif):
            raise ValueError("name at least one output: --json, --html or --gif")
        at_least("--seed", args.seed, 0)
        media.check_fps(args.fps)
        for flag in ("json", "html", "gif"):
            files.check_output_path(f"--{flag}", getattr(args, flag))
        game = get_game(args.game)
        players = args.num_players if args.num_players is not None else len(args.agents)
        config = rules_config(args.game, args.preset, players, args.match, args.override)
        if len(args.agents) > config.num_players:
            raise ValueError(f"{len(args.agents)} agents named for {config.num_players} seats")
        made = {spec: make_agent(spec, game.name) for spec in dict.fromkeys(args.agents)}
        for agent in made.values():
            agent.check_config(config)
        if args.html or args.gif:
            from trash_env.rendering import require

            require()  # the render extra, checked before playing
    except (ValueError, ImportError) as error:
        return fail(program_name(COMMAND), error)
    rngs = [np.random.default_rng([args.seed, seat, 7]) for seat in range(config.num_players)]
    specs = [args.agents[seat % len(args.agents)] for seat in range(config.num_players)]
    record = record_game(config, [made[spec] for spec in specs], [args.seed], rngs, specs)
    from trash_env.records import replay, save_record

    shown = None
    try:  # replayed, its result checked, before anything is written
        if args.html or args.gif:
            shown = media.frames(record)  # drawn once for both pictures
        else:
            replay(record)
    except ValueError as error:
        return fail(program_name(COMMAND), f"the game played does not replay (nothing written): {error}")
    if args.json:
        save_record(record, args.json)
    if args.html:
        media.write_html(record, args.html, args.fps, shown)
    if args.gif:
        media.write_gif(record, args.gif, args.fps, shown)
    names = media.seat_names(record, config.num_players)  # a policy by its file's name, as the replay shows it
    winners = ", ".join(names[s] for s in record["winners"]) or "nobody (a draw)"
    print(f"{len(record['actions'])} moves; won by {winners}")
    for flag in ("json", "html", "gif"):
        if getattr(args, flag):
            print(f"wrote {getattr(args, flag)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
