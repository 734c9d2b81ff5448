"""Evaluation: agents against each other on duplicate deals, with intervals that separate skill from luck.

- :mod:`agents.evaluation.api`: :func:`evaluate`, any policy in memory (a callable, an agent, a name)
  against another on duplicate deals;
- :mod:`agents.evaluation.duplicate`: tournaments and pairings on duplicate (or independent) deals,
  on worker processes (:func:`run_pairings`, :func:`run_tournament`), and game records of them;
- :mod:`agents.evaluation.seatings`: one game, its seatings and its keyed random streams, shared by every engine;
- :mod:`agents.evaluation.batched`: the same games on the batched engine, many at once;
- :mod:`agents.evaluation.stats`: intervals over deals, ratings (:func:`summarize`);
- :mod:`agents.evaluation.exact`: exact evaluation of two-player Help Your Neighbor against its solution;
- :mod:`agents.evaluation.summary`: the tables, files and plots of a summary.

The names most used are importable from here.
"""

from agents.evaluation.api import CallableAgent, evaluate
from agents.evaluation.duplicate import (
    check_pairings,
    play_deals,
    record_deals,
    record_game,
    round_robin,
    run_pairings,
    run_tournament,
)
from agents.evaluation.seatings import GameResult, play_game
from agents.evaluation.stats import pair_summaries, summarize

__all__ = [
    "CallableAgent",
    "GameResult",
    "check_pairings",
    "evaluate",
    "pair_summaries",
    "play_deals",
    "play_game",
    "record_deals",
    "record_game",
    "round_robin",
    "run_pairings",
    "run_tournament",
    "summarize",
]
