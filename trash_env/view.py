"""What one seat may see when it is asked to act (R15): the view agents receive.

It lives in ``trash_env`` so that the environments can hand it to opponents
(agent objects or plain callables) without importing ``agents``.
"""

from __future__ import annotations

import functools

import numpy as np

from trash_env import core
from trash_env.belief import public_view
from trash_env.config import RulesConfig
from trash_env.core import GameState
from trash_env.observation import Observer


class SeatView:
    """What ``seat`` may see while it is asked to act; valid only during that call.

    - ``legal_actions``: the legal actions of R13, in increasing order;
    - ``action_mask``: the same as an int8 mask of 13;
    - ``observation``: the env's observation vector (R15), computed on first use;
    - ``public_state``: a :class:`~trash_env.core.GameState` with every hidden card
      scrubbed (:func:`~trash_env.belief.public_view`), computed on first use.
    """

    def __init__(self, state: GameState, seat: int, observer: Observer) -> None:
        self.seat = seat
        self.config: RulesConfig = state.config
        self.legal_actions: list[int] = core.legal_actions(state)
        self._state = state
        self._observer = observer

    @functools.cached_property
    def public_state(self) -> GameState:
        return public_view(self._state)

    @functools.cached_property
    def observation(self) -> np.ndarray:
        return self._observer.encode(self._state, self.seat)

    @functools.cached_property
    def action_mask(self) -> np.ndarray:
        return core.action_mask(self.legal_actions)
