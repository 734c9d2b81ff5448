"""Help Your Neighbor as an OpenSpiel Python game, ``python_help_your_neighbor`` (the ``openspiel`` extra;
registered when this module is imported: ``import trash_env.openspiel`` registers every game's): a roll
(R12, action 0 of R14) is followed by one chance node whose outcome is the total 2..12 with probability
ways/36, handed to the core as a stacked die."""

from __future__ import annotations

from typing import Any

from trash_env.kernel import check_action
from trash_env.neighbor import rules as neighbor
from trash_env.neighbor.observation import ROLL_TOTALS, NeighborObserver
from trash_env.neighbor.text import render_neighbor
from trash_env.openspiel_common import (
    GENERAL_SUM,
    Held,
    NoDraws,
    Observer,
    RulesState,
    Shared,
    game_type,
    parameters,
    pyspiel,
    register,
)

NEIGHBOR_NAME = "python_help_your_neighbor"
# Help Your Neighbor has no bound on the rolls of one turn (R12: a roll nobody can use may be
# rolled again, for ever); max_game_length counts this many a turn, a length a game passes with
# probability below (5/6) ** 198 per turn (only a 7 must end a turn, and it comes 1 roll in 6).
ROLLS_PER_TURN = 200
_NO_DRAWS = NoDraws()  # its dice are stacked, never drawn


def _neighbor_type(utility: Any) -> Any:
    """Registered as general-sum (one winner +1, the others -1, a draw 0, R12); two players are
    zero-sum, and the game loaded for two says so."""
    return game_type(
        NEIGHBOR_NAME, "Help Your Neighbor (trash-rl)", pyspiel.GameType.Information.PERFECT_INFORMATION, utility,
        {"players": 2}, (neighbor.MIN_PLAYERS, neighbor.MAX_PLAYERS),
    )  # fmt: skip


NEIGHBOR_TYPE = _neighbor_type(GENERAL_SUM)


class OpenSpielNeighbor(pyspiel.Game):
    """``python_help_your_neighbor``: parameter ``players`` (2..8, R12)."""

    def __init__(self, params: dict | None = None) -> None:
        params = parameters(NEIGHBOR_TYPE, params)
        config = neighbor.make_config(num_players=params["players"])
        two = config.num_players == 2
        kind = _neighbor_type(pyspiel.GameType.Utility.ZERO_SUM) if two else NEIGHBOR_TYPE
        info = pyspiel.GameInfo(
            num_distinct_actions=neighbor.NUM_ACTIONS,
            max_chance_outcomes=max(ROLL_TOTALS) + 1,  # outcomes are the totals 2..12 themselves
            num_players=config.num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if two else None,
            # Not a strict bound (ROLLS_PER_TURN): a turn's rolls, then ending it or uncovering.
            max_game_length=(ROLLS_PER_TURN + 1) * config.max_turns,
        )
        super().__init__(kind, info, params)
        self.config = config
        self.shared = Shared(str(self), config, NeighborObserver(config))

    def max_chance_nodes_in_history(self) -> int:
        return ROLLS_PER_TURN * self.config.max_turns

    def new_initial_state(self) -> OpenSpielNeighborState:
        return OpenSpielNeighborState(self)

    def state_at(self, table: neighbor.NeighborState) -> OpenSpielNeighborState:
        """A state whose table is (a copy of) ``table``, a seat to move there (not a roll waiting for
        its dice), with no history. What :mod:`agents.openspiel_bots` searches from."""
        if table.config != self.config:
            raise ValueError(f"state_at: the table is of another configuration than {self}")
        state = OpenSpielNeighborState(self)
        state._core = Held(neighbor.clone(table), neighbor.clone)
        return state

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        return Observer(self.shared.encoder, iig_obs_type, params)


class OpenSpielNeighborState(RulesState):
    """A state of ``python_help_your_neighbor``: a :class:`~trash_env.neighbor.rules.NeighborState`,
    and whether a roll waits for its dice (a chance node)."""

    _rules = neighbor

    def __init__(self, game: OpenSpielNeighbor) -> None:
        super().__init__(game)
        self._shared = game.shared
        self._core = Held(neighbor.new_game(game.config), neighbor.clone)  # R12: seat 0 rolls first
        self._rolling = False

    def _waiting(self) -> bool:
        return self._rolling

    @property
    def chance_kind(self) -> str | None:
        """``"dice"`` at a chance node (a roll waiting for its total), else ``None``."""
        return "dice" if self._rolling else None

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        return [(total, neighbor.WAYS[total] / 36) for total in ROLL_TOTALS]

    def _apply_action(self, action: int) -> None:
        state = self._core.state
        if self._rolling:
            if action not in neighbor.WAYS:
                raise ValueError(f"chance outcome {action} is not a total of two dice (2..12)")
            state.dice.append(int(action))  # the core rolls stacked dice first (R12)
            neighbor.apply_action(state, neighbor.ROLL_DICE, _NO_DRAWS)
            self._rolling = False
        elif action == neighbor.ROLL_DICE:  # R14: the roll waits for the dice
            check_action(
                state, action, neighbor.legal_actions, neighbor.action_name, neighbor.PHASE_NAMES, "R14",
                neighbor.NUM_ACTIONS,
            )  # fmt: skip
            self._rolling = True
        else:
            neighbor.apply_action(state, int(action), _NO_DRAWS)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"roll {action}"
        return neighbor.action_name(action)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> OpenSpielNeighborState:
        """Nothing is hidden (R12): a copy of this state."""
        return self.clone()

    def _history_string(self) -> str:
        return self.history_str()  # perfect information: the whole history, dice included

    def _table_string(self, player: int) -> str:
        return render_neighbor(self._core.state)

    def __str__(self) -> str:
        text = render_neighbor(self._core.state)
        return text + "\nchance: the dice are rolling" if self._rolling else text


register(NEIGHBOR_TYPE, OpenSpielNeighbor)
