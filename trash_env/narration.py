"""What the narrations of every game share (``trash_env.trash.narration``,
``trash_env.neighbor.narration``): the human's seat name and lists in words."""

from __future__ import annotations

from collections.abc import Sequence

YOU = "you"  # the human's seat, as the narration names it ("you draw 7")


def listing(names: Sequence[str], conjunction: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {conjunction} {names[-1]}"


def said(name: str, verb: str) -> str:
    """``you draw`` / ``player_1 (greedy) draws``: a verb in the person of the seat named."""
    return f"{name} {verb if name == YOU else verb + 's'}"
