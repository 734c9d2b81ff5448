"""Both games as OpenSpiel Python games (the ``openspiel`` extra).

Importing this module registers ``python_trash`` and ``python_help_your_neighbor`` with ``pyspiel``:

    import pyspiel
    import trash_env.openspiel  # registers the games

    game = pyspiel.load_game("python_trash(players=3,preset=pagat)")
    state = game.new_initial_state()  # a chance node: the deck is being shuffled

Every rule is the rules core's (:mod:`trash_env.trash.rules`, :mod:`trash_env.neighbor.rules`); the
states here only hold a core state and turn the core's random draws into OpenSpiel chance nodes:

- **Trash**: the core shuffles a deck at every deal (R3, and R9's next hand in a match) and the
  discard pile when the stock runs out (R7), each time from the generator it is handed. Here that
  generator is a stand-in that hands out chosen orders: a move that needs a shuffle waits, and one
  chance node per card draws the order, a card at a time, uniformly from the cards still to place
  (outcome = the rank 0..13, probability = copies left / cards left). For a deal the cards are in
  dealing order (R3: the first one drawn is the first one dealt; the first left over is the top of
  the stock); for a reshuffle the first card drawn is the new top of the stock. Once the order is
  complete the core applies the move with it.
- **Help Your Neighbor**: a roll (R12, action 0 of R14) is followed by one chance node whose outcome is
  the total 2..12 with probability ways/36, handed to the core as a stacked die.

A reduced Trash for tabular methods (:data:`REDUCED_PRESETS`, ``python_trash(preset=tiny)``;
:mod:`trash_env.trash.reduced`, which needs no OpenSpiel) is a
configuration of the core (a preset of R11 with overrides: no rule of its own) whose chance nodes draw
a card only when it is turned face up (``"reveal"``): nobody sees a hidden card (R2), so the card a
draw or a placement turns up is uniform among the cards it may be (R15's unaccounted cards, or after
a reshuffle those known to be in the stock). The core state holds placeholders for the hidden cards,
and the card drawn is swapped into place before the core applies the move. The same games, with far
fewer histories: no deck order is drawn that play never shows.

Returns are the core's (R10, R12), so the PettingZoo envs' rewards; observation tensors are the envs'
observation vectors (R15 for Trash), from the seat asked for. Unlike the PettingZoo envs
(``skip_forced=True``), an OpenSpiel state asks for every move, forced ones too (R13, R14).
"""

from __future__ import annotations

from trash_env.neighbor.openspiel import NEIGHBOR_NAME, ROLLS_PER_TURN, OpenSpielNeighbor, OpenSpielNeighborState
from trash_env.trash.openspiel import DEAL, TRASH_NAME, OpenSpielTrash, OpenSpielTrashState
from trash_env.trash.reduced import REDUCED_PRESETS, RESHUFFLE, REVEAL, STOCK

__all__ = [
    "DEAL",
    "NEIGHBOR_NAME",
    "REDUCED_PRESETS",
    "RESHUFFLE",
    "REVEAL",
    "ROLLS_PER_TURN",
    "STOCK",
    "TRASH_NAME",
    "OpenSpielNeighbor",
    "OpenSpielNeighborState",
    "OpenSpielTrash",
    "OpenSpielTrashState",
]
