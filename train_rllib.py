"""Train on ``trash_v0`` with Ray RLlib: ``python train_rllib.py --help``."""

from agents.commands.train_rllib import main

if __name__ == "__main__":
    raise SystemExit(main())
