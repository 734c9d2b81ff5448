"""``trash-train-rllib`` (and ``python train_rllib.py``): train on ``trash_v0`` with Ray RLlib as a
multi-agent problem, then evaluate against the baselines.

    trash-train-rllib                                    # local Ray, self-play, small budget
    trash-train-rllib --opponents random greedy          # one learner seat against baseline seats
    trash-train-rllib --num-env-runners 8 --address auto # an existing cluster (or set RAY_ADDRESS)
    trash-train-rllib --num-players 3 --override layout_size=8

The training itself is the library :mod:`agents.training.rllib`; this is its command line, which
shows the library's log and the final evaluation's tables (:func:`agents.arguments.stoppable_command`).
"""

from __future__ import annotations

from collections.abc import Sequence

from agents.arguments import training_command
from agents.training import rllib


def main(argv: Sequence[str] | None = None) -> int:
    """Exit status 0, 2 for a bad argument (one line, before Ray starts), or 128 + the signal number
    when Ctrl-C or SIGTERM stopped the run."""
    return training_command(rllib, argv)


if __name__ == "__main__":
    raise SystemExit(main())
