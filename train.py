"""Train a Trash (or Help Your Neighbor) agent with Stable-Baselines3: ``python train.py --help``."""

from agents.commands.train import main

if __name__ == "__main__":
    raise SystemExit(main())
