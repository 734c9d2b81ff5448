"""Evaluation speed: duplicate deals on each engine and worker count, and search's cost per decision.

    python benchmarks/bench_eval.py                 # standard preset, 2 players
    python benchmarks/bench_eval.py --deals 20000

For each pair (greedy vs greedy, random vs greedy, the shipped policy vs greedy) prints the hands
(games) per second of a duplicate evaluation on the rules core with 1 and with 2 worker processes
(``engine="scalar"``) and on the batched engine (``engine="batched"``: one process; greedy and
random play inside the engine, random's draws computed there from the same keyed Philox streams as
on the scalar path; the policy is asked in batches), each line naming its engine and workers, and
checks that the engines played the same games. Last, random vs greedy's batched speed against
greedy vs greedy's (the goal: within 1.5x). The agents are built once, outside
the timing (loading a policy file takes longer than its batched evaluation), and torch uses one
thread everywhere. Then milliseconds per decision of ``search`` at its default budget and at a
larger one (scalar, one process).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from figures import write_figures  # this folder's: run as a script, its folder is on sys.path

import trash_env
from agents.base import Agent, SeatView
from agents.evaluation.duplicate import run_pairings
from agents.evaluation.seatings import play_game
from agents.registry import make_agent
from trash_env.trash.observation import TrashObserver


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


def search_cost(spec: str, config: trash_env.TrashConfig, hands: int, seed: int) -> float:
    """Milliseconds per decision of ``spec`` playing against greedy."""
    timed = TimedAgent(make_agent(spec))
    greedy = make_agent("greedy")
    observer = TrashObserver(config)
    for hand in range(hands):
        rng = np.random.default_rng([seed, hand])
        agents = [timed, greedy] if hand % 2 == 0 else [greedy, timed]
        play_game(config, agents, rng, [np.random.default_rng([seed, hand, s]) for s in range(2)], None, observer)
    return 1000 * timed.seconds / timed.decisions


SHIPPED_POLICY = str(Path(__file__).resolve().parents[1] / "agents" / "policies" / "standard_2p_maskable_ppo.zip")


def timed_run(
    config: Any, pair: tuple[str, str], deals: int, seed: int, engine: str, workers: int, agents: dict[str, Agent]
) -> tuple[list, float]:
    """The games of one evaluation and its time; the agents are built beforehand (a policy file is
    loaded once, outside the timing) and handed to the worker processes as they are."""
    start = time.perf_counter()
    results = run_pairings(config, [pair], deals, seed=seed, workers=workers, engine=engine, prebuilt=agents)
    return results, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=10_000)
    parser.add_argument("--policy-deals", type=int, default=2_000, help="deals for the pair with the policy")
    parser.add_argument("--search-hands", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="also write the figures here (make bench: docs/speed/eval.json)")
    args = parser.parse_args()
    torch.set_num_threads(1)  # the faster setting for one small network per decision; the same for every line
    config = trash_env.make_config()
    agents = {name: make_agent(name) for name in ("greedy", "random")}
    agents[SHIPPED_POLICY] = make_agent(SHIPPED_POLICY)
    for pair in (("greedy", "random"), (SHIPPED_POLICY, "greedy")):  # compile (or load) the engine first
        run_pairings(config, [pair], 300, engine="batched", prebuilt=agents)
    pairs = [
        ("greedy", "greedy", args.deals),
        ("random", "greedy", args.deals),
        ("policy", "greedy", args.policy_deals),
    ]
    batched_rates, figures = {}, []
    for first, second, deals in pairs:
        pair = (SHIPPED_POLICY if first == "policy" else first, second)
        print(f"{first} vs {second}, {deals} duplicate deals (standard, 2 players: {2 * deals} hands)")
        rates, games = {}, {}
        for engine, workers in (("scalar", 1), ("scalar", 2), ("batched", 1)):
            results, elapsed = timed_run(config, pair, deals, args.seed, engine, workers, agents)
            rates[engine, workers], games[engine] = len(results) / elapsed, results
            print(f"  engine={engine:7s} workers={workers}: {len(results) / elapsed:10,.0f} hands/s  ({elapsed:.1f} s)")
        same = "the same games" if games["scalar"] == games["batched"] else "DIFFERENT GAMES"
        print(f"  batched / scalar on 1 worker: {rates['batched', 1] / rates['scalar', 1]:.1f}x, {same}")
        batched_rates[first, second] = rates["batched", 1]
        figures.append(
            {
                "pair": f"`{first}` vs `{second}`" if first != "policy" else f"the shipped policy vs `{second}`",
                "deals": deals,
                "batched": rates["batched", 1],
                "scalar": rates["scalar", 1],
                "scalar_two_workers": rates["scalar", 2],
                "same_games": games["scalar"] == games["batched"],
            }
        )
    slower = batched_rates["greedy", "greedy"] / batched_rates["random", "greedy"]
    print(f"batched engine: greedy vs greedy / random vs greedy = {slower:.2f}x (hands/s)")
    search = []
    for spec in ("search", "search:samples=64"):
        cost = search_cost(spec, config, args.search_hands, args.seed)
        print(f"{spec:20s} {cost:6.2f} ms per decision (against greedy, {args.search_hands} hands)")
        search.append({"agent": spec, "milliseconds_per_decision": cost, "hands": args.search_hands})
    write_figures(args.json, {"pairs": figures, "greedy_over_random": slower, "search": search})


if __name__ == "__main__":
    main()
