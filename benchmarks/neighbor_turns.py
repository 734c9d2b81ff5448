"""How long Help Your Neighbor games last, and how often the turn limit (R12, as R7) is reached.

    python benchmarks/neighbor_turns.py                       # 20,000 games per line, 2 and 4 players
    python benchmarks/neighbor_turns.py --games 50000 --seed 1

For each player count and lineup (every seat random, every seat the heuristic, every seat a
player who always ends the turn when allowed: the longest games) plays games with no effective
turn limit and reports the turns of the longest game, the 99.9th percentile, and how many
games would have reached the default limit of 1000 turns (and so been drawn).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from neighbor_heuristics import AlwaysEnd

from agents.evaluation.seatings import play_game
from agents.registry import make_agent
from trash_env.neighbor.rules import MAX_TURNS, make_config

LINEUPS = {
    "random": lambda: make_agent("random", "help_your_neighbor"),
    "heuristic": lambda: make_agent("heuristic", "help_your_neighbor"),
    "always_end": AlwaysEnd,
}


def turns_of_games(num_players: int, lineup: str, games: int, seed: int) -> np.ndarray:
    config = make_config(num_players=num_players, max_turns=10**9)  # no limit in practice
    agents = [LINEUPS[lineup]() for _ in range(num_players)]
    turns = np.empty(games, np.int64)
    for game in range(games):
        rngs = [np.random.default_rng([seed, game, seat]) for seat in range(num_players)]
        state = play_game(config, agents, np.random.default_rng([seed, game]), rngs)
        turns[game] = state.turn
    return turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"{args.games:,} games per line, seed {args.seed}; the default limit is {MAX_TURNS} turns")
    print("| players | every seat | longest game (turns) | 99.9th percentile | games reaching the limit |")
    print("|---|---|---|---|---|")
    for players in args.players:
        for lineup in LINEUPS:
            turns = turns_of_games(players, lineup, args.games, args.seed)
            over = int((turns >= MAX_TURNS).sum())
            print(
                f"| {players} | {lineup} | {turns.max():,} | {np.percentile(turns, 99.9):,.0f} | "
                f"{over} of {args.games:,} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
