"""Why the Help Your Neighbor heuristic plays as it does: it against its variants.

    python benchmarks/neighbor_heuristics.py [--deals 4000] [--players 2 4] [--workers 2]

Each variant changes one rule of ``agents.heuristic.NeighborHeuristic``
and plays it on duplicate deals (same dice seeds, every rotation of the seats).
A positive difference means the shipped heuristic scores more per deal.

- ``odds_one_roll``: rolls again only when ways(own uncovered) >= ways(7) +
  ways(totals that help an opponent), the one-roll-ahead reading of "roll
  again only when the odds favour it";
- ``always_roll``: rolls again always (no guard against handing an opponent
  their last marker);
- ``always_end``: ends the turn whenever it may;
- ``uncover_least_likely``: after a 7 uncovers the total least likely to be
  rolled (2 or 12 first).
"""

from __future__ import annotations

import argparse

import numpy as np

from agents.base import SeatView
from agents.evaluation.duplicate import run_pairings
from agents.evaluation.stats import pair_summaries
from agents.heuristic import NeighborHeuristic
from trash_env.neighbor.rules import END_TURN, NUM_MARKERS, ROLL_DICE, TOTALS, UNCOVER_0, WAYS, make_config


class OddsOneRoll(NeighborHeuristic):
    name = "odds_one_roll"

    @staticmethod
    def rolls_again(state, seat: int) -> bool:
        own = helps = 0
        for j in range(NUM_MARKERS):
            ways = WAYS[TOTALS[j]]
            if not state.covered[seat][j]:
                own += ways
            elif any(not state.covered[o][j] for o in range(state.num_players) if o != seat):
                helps += ways
        return own >= WAYS[7] + helps


class AlwaysRoll(NeighborHeuristic):
    name = "always_roll"

    @staticmethod
    def rolls_again(state, seat: int) -> bool:
        return True


class AlwaysEnd(NeighborHeuristic):
    name = "always_end"

    @staticmethod
    def rolls_again(state, seat: int) -> bool:
        return False


class UncoverLeastLikely(NeighborHeuristic):
    name = "uncover_least_likely"

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        legal = view.legal_actions
        if legal[0] == ROLL_DICE:
            return ROLL_DICE if self.rolls_again(view.public_state, view.seat) else END_TURN
        return min(legal, key=lambda action: (WAYS[TOTALS[action - UNCOVER_0]], action))


VARIANTS = (OddsOneRoll, AlwaysRoll, AlwaysEnd, UncoverLeastLikely)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=4000)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    agents = {"heuristic": NeighborHeuristic(), **{v.name: v() for v in VARIANTS}}
    pairs = [("heuristic", v.name) for v in VARIANTS]
    print(f"heuristic minus variant, score per deal, {args.deals} duplicate deals, seed {args.seed}")
    for players in args.players:
        results = run_pairings(
            make_config(num_players=players), pairs, args.deals, args.seed, workers=args.workers, prebuilt=agents
        )
        for pair in pair_summaries(results):
            diff = pair.score_difference
            print(f"{players} players  {pair.second:22s} {diff.mean:+.4f} [{diff.low:+.4f}, {diff.high:+.4f}]")


if __name__ == "__main__":
    main()
