"""OpenSpiel's Python search bots against the package's baselines, on duplicate deals.

    python benchmarks/openspiel_bots.py [--neighbor-deals 80] [--trash-deals 200]
        [--mcts-simulations 4 16 48] [--ismcts-simulations 10 50 200] [--out docs/openspiel_bots.json]

``openspiel_mcts`` (:mod:`agents.openspiel_bots`) plays two-player Help Your Neighbor against
``random``, ``heuristic`` and ``optimal``; ``openspiel_ismcts`` plays the standard two-player Trash
against ``random``, ``greedy`` and ``counter``; one random rollout per leaf, ``uct_c`` 2. Every pair
plays the same duplicate deals (each deal once from each seat, :func:`agents.evaluation.duplicate.run_pairings`),
and its score difference (the bot's mean reward minus the opponent's, per deal) gets a 95% interval
over deals. The cost per decision is the bot's own time per real decision (R13, R14), over every game
it played, in CPU seconds of the process (``time.process_time``: other work on the machine does not
count). The JSON file is written again after every pair, so a run cut short keeps
what it finished; ``scripts/readme_tables.py`` makes the table of ``docs/openspiel.md`` from it.

Why not exactly against ``optimal``: the exact evaluation of two-player Help Your Neighbor
(:func:`agents.evaluation.exact.decision_tables`) needs the policy's decision at every state where
a choice is made; the number of those states and, at the measured cost, the time they would take
are written to the JSON file too.
"""

from __future__ import annotations

import argparse
import platform
import time
from typing import Any

import numpy as np

from agents.base import Agent, SeatView
from agents.evaluation.duplicate import run_pairings
from agents.evaluation.stats import pair_summaries
from agents.registry import make_agent
from trash_env.files import write_json
from trash_env.neighbor.rules import NUM_MARKERS
from trash_env.neighbor.rules import make_config as neighbor_config
from trash_env.trash.config import make_config

OPPONENTS = {"help_your_neighbor": ("random", "heuristic", "optimal"), "trash": ("random", "greedy", "counter")}
BOTS = {"help_your_neighbor": "openspiel_mcts", "trash": "openspiel_ismcts"}


class Timed(Agent):
    """An agent whose decisions are timed (its own time only, not the game's)."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name, self.games, self.spec = agent.name, agent.games, getattr(agent, "spec", agent.name)
        self.seconds = 0.0
        self.decisions = 0

    def check_config(self, config: Any) -> None:
        self.agent.check_config(config)

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        start = time.process_time()
        action = self.agent.act(view, rng)
        self.seconds += time.process_time() - start
        self.decisions += 1
        return action


def exact_decision_states() -> int:
    """The states of two-player Help Your Neighbor at which exact evaluation asks a policy for its
    decision (:func:`agents.evaluation.exact.decision_tables`): after each roll of a total the mover
    holds the marker of, and after a 7 with two or more markers covered."""
    size = 1 << NUM_MARKERS
    choose = NUM_MARKERS * (size // 2) * size  # per total: the mover has its marker covered
    uncover = sum(1 for bits in range(size) if bin(bits).count("1") >= 2) * size
    return choose + uncover


def play_pair(game: str, simulations: int, opponent: str, deals: int, seed: int) -> dict[str, Any]:
    config = neighbor_config(num_players=2) if game == "help_your_neighbor" else make_config()
    spec = f"{BOTS[game]}:simulations={simulations}"
    bot = Timed(make_agent(spec, game))
    start = time.process_time()
    results = run_pairings(config, [(spec, opponent)], deals, seed=seed, prebuilt={spec: bot}, engine="scalar")
    summary = pair_summaries(results)[0]
    difference = summary.score_difference
    return {
        "game": game,
        "bot": spec,
        "simulations": simulations,
        "opponent": opponent,
        "deals": summary.deals,
        "games": summary.games,
        "score_difference": {"mean": difference.mean, "low": difference.low, "high": difference.high},
        "bot_win_rate": summary.first_win_rate,
        "opponent_win_rate": summary.second_win_rate,
        "decisions": bot.decisions,
        "seconds_per_decision": bot.seconds / max(bot.decisions, 1),
        "seconds": time.process_time() - start,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--neighbor-deals", type=int, default=80)
    parser.add_argument("--trash-deals", type=int, default=200)
    parser.add_argument("--mcts-simulations", type=int, nargs="+", default=[4, 16, 48])
    parser.add_argument("--ismcts-simulations", type=int, nargs="+", default=[10, 50, 200])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="docs/openspiel_bots.json")
    args = parser.parse_args(argv)
    runs = [("trash", s, o, args.trash_deals) for s in args.ismcts_simulations for o in OPPONENTS["trash"]]
    runs += [
        ("help_your_neighbor", s, o, args.neighbor_deals)
        for s in args.mcts_simulations
        for o in OPPONENTS["help_your_neighbor"]
    ]
    out: dict[str, Any] = {
        "seed": args.seed,
        "rollouts": 1,
        "uct_c": 2.0,
        "machine": f"{platform.machine()}, Python {platform.python_version()}, one process, CPU seconds",
        "exact_decision_states": exact_decision_states(),
        "pairs": [],
    }
    for game, simulations, opponent, deals in runs:
        pair = play_pair(game, simulations, opponent, deals, args.seed)
        out["pairs"].append(pair)
        difference = pair["score_difference"]
        print(
            f"{pair['bot']:34} vs {opponent:9} {pair['deals']:4} deals  "
            f"{difference['mean']:+.3f} [{difference['low']:+.3f}, {difference['high']:+.3f}]  "
            f"{pair['seconds_per_decision']:.4f} s/decision  ({pair['seconds']:.0f} s)",
            flush=True,
        )
        write_json(args.out, out)
    mcts = [p for p in out["pairs"] if p["game"] == "help_your_neighbor"]
    if mcts:
        cheapest = min(p["seconds_per_decision"] for p in mcts)
        hours = cheapest * out["exact_decision_states"] / 3600
        out["exact_hours_at_cheapest"] = hours
        states = out["exact_decision_states"]
        print(f"exact evaluation: {states} decisions, about {hours:.0f} h at the cheapest setting")
        write_json(args.out, out)


if __name__ == "__main__":
    main()
