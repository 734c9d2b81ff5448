"""Evaluation speed: greedy vs greedy duplicate deals on one and two workers, and the
search agent's cost per decision.

    python benchmarks/bench_eval.py                 # standard preset, 2 players
    python benchmarks/bench_eval.py --deals 20000

Prints hands (games) per second of a duplicate evaluation with 1 and 2 worker
processes, and milliseconds per decision of `search` at its default budget and
at a larger one.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import trash_env
from agents.base import Agent, SeatView
from agents.evaluation import play_game, run_pairings
from agents.registry import make_agent
from trash_env.observation import Observer


class TimedAgent:
    """Wraps an agent and times its decisions."""

    def __init__(self, agent: Agent) -> None:
        self.agent, self.decisions, self.seconds = agent, 0, 0.0

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        start = time.perf_counter()
        action = self.agent.act(view, rng)
        self.seconds += time.perf_counter() - start
        self.decisions += 1
        return action


def search_cost(spec: str, config: trash_env.RulesConfig, hands: int, seed: int) -> float:
    """Milliseconds per decision of ``spec`` playing against greedy."""
    timed = TimedAgent(make_agent(spec))
    greedy = make_agent("greedy")
    observer = Observer(config)
    for hand in range(hands):
        rng = np.random.default_rng([seed, hand])
        agents = [timed, greedy] if hand % 2 == 0 else [greedy, timed]
        play_game(config, agents, rng, [np.random.default_rng([seed, hand, s]) for s in range(2)], None, observer)
    return 1000 * timed.seconds / timed.decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=10_000)
    parser.add_argument("--search-hands", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    config = trash_env.make_config()
    print(f"greedy vs greedy, {args.deals} duplicate deals (standard, 2 players: {2 * args.deals} hands)")
    for workers in (1, 2):
        start = time.perf_counter()
        results = run_pairings(config, [("greedy", "greedy")], args.deals, seed=args.seed, workers=workers)
        elapsed = time.perf_counter() - start
        print(f"  {workers} worker(s): {len(results) / elapsed:10,.0f} hands/s  ({elapsed:.1f} s)")
    for spec in ("search", "search:samples=64"):
        cost = search_cost(spec, config, args.search_hands, args.seed)
        print(f"{spec:20s} {cost:6.2f} ms per decision (against greedy, {args.search_hands} hands)")


if __name__ == "__main__":
    main()
