"""Watch a game of Trash: random legal players, the table rendered at every decision.

    trash-demo                       # standard, 2 players
    trash-demo --preset pagat --num-players 4 --seed 7
    trash-demo --match --layout-size 3

Ends with the game's result and where its JSON game record was written.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import trash_env
from agents.arguments import ArgumentParser, at_least, program_name
from trash_env import files
from trash_env.records import replay
from trash_env.trash.config import PRESETS
from trash_env.trash.rules import action_name


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog=program_name("trash-demo"), description="Watch random legal players play Trash.")
    parser.add_argument("--preset", default="standard", choices=sorted(PRESETS))
    parser.add_argument("--num-players", type=int, default=2)
    parser.add_argument("--layout-size", type=int, default=None)
    parser.add_argument("--match", action="store_true", help="play a match of hands (R9)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--record", type=Path, default=Path("runs/demo_record.json"), help="where to write the game record"
    )
    args = parser.parse_args(argv)

    overrides = {"num_players": args.num_players, "match": args.match}
    if args.layout_size is not None:
        overrides["layout_size"] = args.layout_size
    try:
        at_least("--seed", args.seed, 0)
        files.check_output_path("--record", args.record)
        env = trash_env.env(args.preset, render_mode="ansi", **overrides)
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
        print(f"{agent} chooses {action} ({action_name(action)}) from {[int(a) for a in legal]}\n")
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
