"""Watch a game of Trash or Help Your Neighbor: random legal players, the table rendered at every decision.

    trash-demo                       # standard, 2 players
    trash-demo --preset pagat --num-players 4 --seed 7
    trash-demo --match --override layout_size=3
    trash-demo --game help_your_neighbor --num-players 3

The rules flags are spelled as every command spells them (``--game``, ``--preset``, ``--num-players``,
``--match``, ``--override FIELD=VALUE``; ``--layout-size N`` is ``--override layout_size=N``). Ends with
the game's result and where its JSON game record was written.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from agents.arguments import ArgumentParser, add_override_flag, at_least, presets, program_name, rules_fields
from trash_env import files
from trash_env.games import GAMES, get_game
from trash_env.records import replay


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(
        prog=program_name("trash-demo"), description="Watch random legal players play Trash or Help Your Neighbor."
    )
    parser.add_argument("--game", default="trash", choices=sorted(GAMES), help="the game (default trash)")
    parser.add_argument("--preset", default="standard", choices=presets(), help="rules preset (R11, Trash)")
    parser.add_argument("--num-players", type=int, default=2)
    parser.add_argument("--layout-size", type=int, default=None, help="the same as --override layout_size=N")
    parser.add_argument("--match", action="store_true", help="play a match of hands (R9, Trash)")
    add_override_flag(parser)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--record", type=Path, default=Path("runs/demo_record.json"), help="where to write the game record"
    )
    args = parser.parse_args(argv)

    layout = [] if args.layout_size is None else [f"layout_size={args.layout_size}"]
    try:
        game = get_game(args.game)
        if len(game.presets) == 1 and (args.preset != "standard" or args.layout_size is not None):
            raise ValueError(f"--preset and --layout-size are options of Trash (R11); {game.name} has neither")
        overrides = rules_fields(game.name, args.num_players, args.match, layout + args.override)
        at_least("--seed", args.seed, 0)
        files.check_output_path("--record", args.record)
        env = game.aec_env(preset=args.preset, render_mode="ansi", **overrides)
    except ValueError as error:
        parser.error(str(error))
    env.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        action = int(rng.choice(legal))
        print(env.render())
        print(f"{agent} chooses {action} ({game.action_name(action)}) from {[int(a) for a in legal]}\n")
        env.step(action)
    print(env.render())
    record = env.unwrapped.game_record()
    print("result:", dict(zip(env.possible_agents, record["returns"])))
    files.write_text(args.record, json.dumps(record))
    same = replay(record) == env.unwrapped.game_state
    print(f"game record: {args.record} ({len(record['actions'])} actions; replays identically: {same})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
