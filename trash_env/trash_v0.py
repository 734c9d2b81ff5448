"""`trash_v0`: the versioned name of the Trash environment (PettingZoo convention)."""

from trash_env.trash.env import env, raw_env

__all__ = ["env", "raw_env"]
