"""``trash-train`` (and ``python train.py``): train a Trash or Help Your Neighbor agent with
Stable-Baselines3, then evaluate it against the baselines.

    trash-train                                   # MaskablePPO, standard, 2 players, small budget
    trash-train --game help_your_neighbor         # the dice variant (R12)
    trash-train --algo ppo --total-timesteps 300000
    trash-train --self-play --opponents greedy    # greedy plus frozen snapshots of the learner
    trash-train --preset pagat --override layout_size=8 --override max_turns=300
    trash-train --resume runs/NAME/checkpoints/step_50000.zip --total-timesteps 300000

The training itself is the library :mod:`agents.training.sb3`; this is its command line, which
shows the library's log and the final evaluation's tables (:func:`agents.arguments.stoppable_command`).

``--resume FILE`` unpickles nothing from FILE: it reads the weights and optimizer state as tensors
only and the step counters as JSON, and builds the model from the flags (the resume command a
stopped run prints gives them all); a damaged file, a bad number, a run name that is not a plain
name or an output folder that cannot be written is one line and exit status 2, with nothing written.
"""

from __future__ import annotations

from collections.abc import Sequence

from agents.arguments import training_command
from agents.training import sb3


def main(argv: Sequence[str] | None = None) -> int:
    """Exit status 0, 2 for a bad argument (one line, nothing written), or 128 + the signal number
    when Ctrl-C or SIGTERM stopped the run."""
    return training_command(sb3, argv)


if __name__ == "__main__":
    raise SystemExit(main())
