"""What the OpenSpiel games of every game share (the ``openspiel`` extra): the game type and parameters,
the pyspiel state over a rules core's state, the observer, the registration. Each game's own is in its
folder (:mod:`trash_env.trash.openspiel`, :mod:`trash_env.neighbor.openspiel`); :mod:`trash_env.openspiel`
registers them all."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from trash_env.extras import missing_extra

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - the extra is missing
    raise missing_extra("trash_env.openspiel", "openspiel", error) from None


def game_type(
    short_name: str, long_name: str, information: Any, utility: Any, parameters: dict, players: tuple[int, int]
) -> Any:
    """A sequential game with explicit chance nodes and terminal rewards, ``players`` (least, most)."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=information,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=players[1],
        min_num_players=players[0],
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters,
    )


GENERAL_SUM = pyspiel.GameType.Utility.GENERAL_SUM


def parameters(game_type: Any, params: dict | None) -> dict[str, Any]:
    """``params`` over the game's defaults; an unknown name or a player count out of range is a
    one-line ValueError naming it."""
    spec = game_type.parameter_specification
    given = dict(params or {})
    unknown = sorted(set(given) - set(spec))
    if unknown:
        raise ValueError(f"{game_type.short_name}: unknown parameter(s) {unknown}; parameters are {sorted(spec)}")
    merged = {name: given.get(name, default) for name, default in spec.items()}
    players, least, most = merged["players"], game_type.min_num_players, game_type.max_num_players
    if isinstance(players, bool) or not isinstance(players, int) or not least <= players <= most:
        raise ValueError(f"{game_type.short_name}: players={players!r} is out of range ({least}..{most})")
    return merged


class Shared:
    """What every state of one game shares (its configuration and encoder): never copied when
    OpenSpiel clones a state, pickled as the game's string when it serializes one."""

    def __init__(self, game_string: str, config: Any, encoder: Any, reveal: bool = False) -> None:
        self.game_string = game_string
        self.config = config
        self.encoder = encoder
        self.reveal = reveal  # a reduced Trash: cards are drawn when turned face up

    def __deepcopy__(self, memo: dict) -> Shared:
        return self

    def __reduce__(self) -> tuple:
        return shared_of, (self.game_string,)


@functools.cache
def shared_of(game_string: str) -> Shared:
    return pyspiel.load_game(game_string).shared


class Held:
    """A rules-core state held by an OpenSpiel state, copied by the core's own ``clone``."""

    __slots__ = ("state", "clone")

    def __init__(self, state: Any, clone: Callable[[Any], Any]) -> None:
        self.state = state
        self.clone = clone

    def __deepcopy__(self, memo: dict) -> Held:
        return Held(self.clone(self.state), self.clone)

    def __getstate__(self) -> tuple:
        return self.state, self.clone

    def __setstate__(self, data: tuple) -> None:
        self.state, self.clone = data


class Observer:
    """The PyObserver of both games: the tensor is the PettingZoo env's observation vector of the
    seat asked for (its named pieces in ``dict``); the string is the table as text, or with
    ``perfect_recall`` the public history. Nothing in either game is private to one player (R2,
    R12), so ``private_info`` changes nothing; without ``public_info`` there is nothing to observe."""

    def __init__(self, encoder: Any, iig_obs_type: Any, params: Any) -> None:
        if isinstance(iig_obs_type, dict):  # OpenSpiel passes the params alone when no type is given
            iig_obs_type, params = None, iig_obs_type
        if params:
            raise ValueError(f"observation parameters are not supported, got {dict(params)}")
        obs_type = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        self._encoder = encoder
        self._public = obs_type.public_info
        self._perfect_recall = obs_type.perfect_recall
        self.tensor = np.zeros(encoder.size, np.float32) if self._public else None
        self.dict = encoder.view(self.tensor) if self._public else {}

    def set_from(self, state: RulesState, player: int) -> None:
        if self.tensor is not None:
            game_state = state.game_state
            if game_state is None:
                self.tensor.fill(0.0)  # before the first deal: nothing on the table yet
            else:
                self.tensor[:] = self._encoder.encode(game_state, player)

    def string_from(self, state: RulesState, player: int) -> str:
        if not self._public:
            return ""
        return state._history_string() if self._perfect_recall else state._table_string(player)


class RulesState(pyspiel.State):
    """What the states of both games share: a core state (``game_state``) whose rules decide."""

    _rules: Any  # the rules core module
    _core: Held | None

    @property
    def game_state(self) -> Any:
        """The rules core's state (``None`` before Trash's first deal is complete); read it, do not
        change it."""
        return None if self._core is None else self._core.state

    def _waiting(self) -> bool:
        raise NotImplementedError

    def current_player(self) -> int:
        if self._waiting():
            return pyspiel.PlayerId.CHANCE
        state = self._core.state
        return pyspiel.PlayerId.TERMINAL if state.over else state.current

    def _legal_actions(self, player: int) -> list[int]:
        return self._rules.legal_actions(self._core.state)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The chance node's outcomes and their probabilities; a ValueError at a player's or a terminal
        node, which has none (as OpenSpiel's own games refuse it)."""
        if not self._waiting():
            where = "a terminal node" if self._core.state.over else f"a node of player {self._core.state.current}"
            raise ValueError(f"chance_outcomes() at {where}: only a chance node has chance outcomes")
        return self._chance_outcomes()

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        raise NotImplementedError

    def is_terminal(self) -> bool:
        return not self._waiting() and self._core.state.over

    def returns(self) -> list[float]:
        """R10 (Trash) or R12 (Help Your Neighbor): the core's returns, zeros until the game is over."""
        state = self.game_state
        return [0.0] * self.num_players() if state is None else list(self._rules.returns(state))

    def _history_string(self) -> str:
        raise NotImplementedError

    def _table_string(self, player: int) -> str:
        raise NotImplementedError


class NoDraws:
    """The generator a rules core is handed where every random event is a chance node already decided
    (Help Your Neighbor's dice, stacked): any draw is an error naming it, never a silent random one."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"the rules core drew rng.{name}(), which trash_env.openspiel has no chance node for")


def register(game_type: Any, game_class: type) -> None:
    if game_type.short_name not in pyspiel.registered_names():
        pyspiel.register_game(game_type, game_class)
