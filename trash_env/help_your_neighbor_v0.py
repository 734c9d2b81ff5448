"""`help_your_neighbor_v0`: the versioned name of the Help Your Neighbor environment (R12)."""

from trash_env.neighbor.env import env, raw_env

__all__ = ["env", "raw_env"]
