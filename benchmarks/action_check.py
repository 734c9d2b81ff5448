"""What checking a batch agent's actions costs (issue 49): the vector envs and batched evaluation with the
check (``trash_env.engine_host.checked_engine_actions``) against the same loops with it replaced by a pass-through,
in the same run, the two in turn, so the ratio holds while the machine's speed drifts.

- vector env: ``TrashVecEnv`` and ``NeighborVecEnv`` (``--games`` games) against an opponent that decides
  in batches outside the engine (its first legal action), the learner's actions drawn from the masks;
  steps per second;
- batched evaluation: duplicate deals of that agent against ``random`` on the batched engine; games per
  second.

    python benchmarks/action_check.py                # about a minute (make bench)
    python benchmarks/action_check.py --rounds 7

Needs the batched and train extras (SB3's VecEnv).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository, for agents

from figures import print_ratios

from agents.base import Agent
from agents.evaluation import batched as batched_evaluation
from trash_env import batched_vec_env


class FirstLegal(Agent):
    """Decides in batches: the first legal action of each row."""

    name = "first_legal"
    games = None
    batchable = True

    def act(self, view: Any, rng: np.random.Generator) -> int:
        return int(np.flatnonzero(view.action_mask)[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray, rngs: Any) -> np.ndarray:
        return np.argmax(masks, axis=1)


def vec_env_steps(kind: str, games: int, seconds: float) -> float:
    """Steps per second of a vector env against :class:`FirstLegal` asked outside the engine."""
    from trash_env.neighbor.vec_env import NeighborVecEnv
    from trash_env.trash.vec_env import TrashVecEnv

    env = (TrashVecEnv if kind == "trash" else NeighborVecEnv)(games, opponents=[FirstLegal()], seed=0)
    env.reset()
    rng = np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        masks = env.action_masks()
        env.step((rng.random(masks.shape) * masks).argmax(axis=1))
        steps += 1
    return steps * games / (time.perf_counter() - start)


def evaluation_games(game: str, deals: int) -> float:
    """Games per second of batched duplicate evaluation, :class:`FirstLegal` against ``random``."""
    from agents.evaluation.duplicate import run_pairings
    from agents.registry import make_agent
    from trash_env.games import GAMES

    config = GAMES[game].make_config(num_players=2)
    agents = {"first_legal": FirstLegal(), "random": make_agent("random", game)}
    start = time.perf_counter()
    results = run_pairings(config, [("first_legal", "random")], deals, prebuilt=agents, engine="batched")
    return len(results) / (time.perf_counter() - start)


def unchecked(actions: Any, masks: np.ndarray, rows: np.ndarray, who: str) -> np.ndarray:
    return np.asarray(actions, np.int64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4, help="measurements of each, the two in turn")
    parser.add_argument("--games", type=int, default=256, help="games of the vector envs")
    parser.add_argument("--seconds", type=float, default=3.0, help="per vector-env measurement")
    parser.add_argument("--deals", type=int, default=20_000, help="deals per evaluation measurement")
    args = parser.parse_args()
    checked = batched_vec_env.checked_engine_actions
    measures = {
        "TrashVecEnv (steps/s)": lambda: vec_env_steps("trash", args.games, args.seconds),
        "NeighborVecEnv (steps/s)": lambda: vec_env_steps("help_your_neighbor", args.games, args.seconds),
        "Trash batched evaluation (games/s)": lambda: evaluation_games("trash", args.deals),
        "Help Your Neighbor batched evaluation (games/s)": lambda: evaluation_games("help_your_neighbor", args.deals),
    }
    for measure in measures.values():
        measure()  # compiled and warm before timing
    def measure_unchecked(measure: Any) -> float:
        batched_vec_env.checked_engine_actions = batched_evaluation.checked_engine_actions = unchecked
        try:
            return measure()
        finally:
            batched_vec_env.checked_engine_actions = batched_evaluation.checked_engine_actions = checked

    ratios: dict[str, list[float]] = {name: [] for name in measures}
    for round_number in range(args.rounds):
        for name, measure in measures.items():
            if round_number % 2:  # each goes first in every other round: no order effect in the ratio
                without, with_check = measure_unchecked(measure), measure()
            else:
                with_check, without = measure(), measure_unchecked(measure)
            ratios[name].append(with_check / without)
            print(f"{name}: checked {with_check:,.0f}, unchecked {without:,.0f}")
    print_ratios("checked / unchecked", ratios)


if __name__ == "__main__":
    main()
