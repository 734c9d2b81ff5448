"""What one seat may see when it is asked to act (R15): the view agents receive.

It lives in ``trash_env`` so that the environments can hand it to opponents
(agent objects or plain callables) without importing ``agents``. It serves
every game (a :class:`~trash_env.game.Game` descriptor).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from trash_env.game import Game, game_of


class SeatView:
    """What ``seat`` may see while it is asked to act; valid only during that call.

    - ``game``: the :class:`~trash_env.game.Game` being played (``game.name``; by default the game
      of the state's configuration);
    - ``legal_actions``: the legal actions (R13, or R14 for Help Your Neighbor), in increasing order;
    - ``action_mask``: the same as an int8 mask;
    - ``observation``: the env's observation vector, computed on first use;
    - ``public_state``: the game state with everything hidden scrubbed (for Trash
      :func:`~trash_env.trash.belief.public_view`, R15; Help Your Neighbor hides nothing,
      so a copy), computed on first use.
    """

    def __init__(self, state: Any, seat: int, observer: Any, game: Game | None = None) -> None:
        self.seat = seat
        self.game = game if game is not None else game_of(state.config)
        self.config = state.config
        self.legal_actions: list[int] = self.game.legal_actions(state)
        self._state = state
        self._observer = observer

    @functools.cached_property
    def public_state(self) -> Any:
        return self.game.public_view(self._state)

    @functools.cached_property
    def observation(self) -> np.ndarray:
        return self._observer.encode(self._state, self.seat)

    @functools.cached_property
    def action_mask(self) -> np.ndarray:
        return self.game.action_mask(self.legal_actions)
