"""The games of the package: each game's folder exports its :class:`~trash_env.game.Game` descriptor,
and this module collects them (and only that): importing ``trash_env`` registers them, and the
look-ups by name, configuration and game record (:mod:`trash_env.game`) find them.

The environments, the agent views, the evaluation tools, training and the benchmark are written once
against a descriptor: Trash (:mod:`trash_env.trash.game`, R1-R11, R13, R15) and Help Your Neighbor
(:mod:`trash_env.neighbor.game`, R12, R14). A game defined elsewhere joins them with
:func:`~trash_env.game.register_game` (``docs/add-a-game.md`` walks through one).
"""

from __future__ import annotations

from trash_env.game import (
    CORE_FUNCTIONS,
    GAMES,
    Game,
    game_of,
    game_of_record,
    get_game,
    register_game,
)
from trash_env.neighbor.game import GAME as NEIGHBOR
from trash_env.trash.game import GAME as TRASH

register_game(TRASH)
register_game(NEIGHBOR)

__all__ = [
    "CORE_FUNCTIONS",
    "GAMES",
    "NEIGHBOR",
    "TRASH",
    "Game",
    "game_of",
    "game_of_record",
    "get_game",
    "register_game",
]
