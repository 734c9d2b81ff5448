"""Train a Trash (or Help Your Neighbor) agent with Stable-Baselines3 and evaluate it against the baselines.

    python train.py                                   # MaskablePPO, standard, 2 players, small budget
    python train.py --game help_your_neighbor         # the dice variant (R12)
    python train.py --algo ppo --total-timesteps 300000
    python train.py --self-play --opponents greedy    # greedy plus frozen snapshots of the learner
    python train.py --resume runs/NAME/checkpoints/step_50000.zip --total-timesteps 300000
    python train.py --help

Everything it does is in :mod:`agents.training` (arguments, environments, the model, callbacks,
checkpoints, the final evaluation); this script is its command line.
"""

from agents.training import *  # noqa: F403 - the script's settings and functions, for `import train`
from agents.training import cli

if __name__ == "__main__":
    raise SystemExit(cli())
