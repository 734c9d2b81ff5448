"""Trash as an OpenSpiel Python game, ``python_trash`` (the ``openspiel`` extra; registered when this
module is imported: ``import trash_env.openspiel`` registers every game's). :mod:`trash_env.openspiel`
tells how the core's shuffles become chance nodes, and the reduced Trash of :data:`REDUCED_PRESETS`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from trash_env.kernel import check_action
from trash_env.openspiel_common import (
    GENERAL_SUM,
    Held,
    Observer,
    RulesState,
    Shared,
    game_type,
    parameters,
    pyspiel,
    register,
)
from trash_env.trash import rules as trash
from trash_env.trash.belief import sample_hidden_state
from trash_env.trash.config import MAX_PLAYERS, MIN_PLAYERS, PRESETS, TrashConfig, make_config
from trash_env.trash.observation import TrashObserver
from trash_env.trash.reduced import (
    REDUCED_PRESETS,
    RESHUFFLE,
    REVEAL,
    Reveal,
    RevealDraws,
    bring,
    reveal_counts,
    revealed_place,
)
from trash_env.trash.text import render_table

TRASH_NAME = "python_trash"

DEAL = "deal"  # what a Trash chance node is drawing for (R3/R9; RESHUFFLE: R7)
_FIRST_DEAL = -1  # the move that waits for the first deal: the game's start (R3)


# R8: with a final round several seats can win a hand (+1 each), so Trash's returns have no fixed sum.
TRASH_TYPE = game_type(
    TRASH_NAME,
    "Trash (trash-rl)",
    pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    GENERAL_SUM,
    {"preset": "standard", "players": 2, "match": False},
    (MIN_PLAYERS, MAX_PLAYERS),
)


class _DrawNeeded(Exception):  # noqa: N818 (a signal: the core asked for a draw not made yet)
    def __init__(self, kind: str, cards: Sequence[int]) -> None:
        super().__init__(kind)
        self.kind = kind
        self.cards = list(cards)


class _ChosenDraws:
    """Stands in for the ``numpy.random.Generator`` the Trash core shuffles with (R3, R7, R9): it
    hands out the orders the chance nodes drew, in turn, and raises :class:`_DrawNeeded` at the first
    shuffle it has no order for. The core calls ``permutation`` (of its configured deck: the cards
    of a deal) and ``shuffle`` (of the discard pile turned into the stock); anything else it might
    ask for is an error naming it, never a silent random draw."""

    def __init__(self, decided: Sequence[tuple[str, tuple[int, ...]]], deck: Sequence[int]) -> None:
        self._decided = decided
        self._deck = deck
        self.used = 0

    def _next(self, kind: str, cards: Sequence[int]) -> tuple[int, ...]:
        if self.used == len(self._decided):
            raise _DrawNeeded(kind, cards)
        found, drawn = self._decided[self.used]
        if found != kind or sorted(drawn) != sorted(cards):
            raise RuntimeError(f"the rules core asked for a {kind} that the chance nodes did not draw")
        self.used += 1
        return drawn

    def permutation(self, n: int) -> np.ndarray:
        """The permutation of the deck's positions that puts the drawn ranks in dealing order."""
        deck = self._deck
        if n != len(deck):
            raise RuntimeError(f"the rules core asked for a permutation of {n}, not of its deck of {len(deck)} cards")
        drawn = self._next(DEAL, deck)
        positions: dict[int, list[int]] = {}
        for position in range(len(deck) - 1, -1, -1):
            positions.setdefault(deck[position], []).append(position)
        return np.array([positions[rank].pop() for rank in drawn])

    def shuffle(self, cards: list[int]) -> None:
        """The new stock in the drawn order: the first card drawn on top (the list's end)."""
        cards[:] = self._next(RESHUFFLE, cards)[::-1]

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"the rules core drew rng.{name}(), which trash_env.openspiel has no chance node for")


class _Draw:
    """A Trash move waiting for a shuffle (the first deal, or a player's move that reshuffles or
    deals the next hand): the orders already drawn, and the one being drawn card by card."""

    __slots__ = ("move", "decided", "kind", "left", "remaining", "drawn")

    def __init__(self, move: int, decided: list, kind: str, cards: Sequence[int]) -> None:
        self.move = move
        self.decided = decided
        self.kind = kind
        self.left = [0] * trash.NUM_RANKS  # per rank: copies still to draw
        for card in cards:
            self.left[card] += 1
        self.remaining = len(cards)
        self.drawn: list[int] = []

    def __deepcopy__(self, memo: dict) -> _Draw:
        new = _Draw.__new__(_Draw)
        new.move, new.decided, new.kind, new.remaining = self.move, self.decided[:], self.kind, self.remaining
        new.left, new.drawn = self.left[:], self.drawn[:]
        return new

    def __getstate__(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __setstate__(self, data: tuple) -> None:
        for name, value in zip(self.__slots__, data):
            setattr(self, name, value)


class OpenSpielTrash(pyspiel.Game):
    """``python_trash``: parameters ``preset`` (R11, the PettingZoo env's names, or a reduced Trash of
    :data:`REDUCED_PRESETS`), ``players`` (2..8, R1) and ``match`` (R9); by default the standard
    two-player hand."""

    def __init__(self, params: dict | None = None) -> None:
        params = parameters(TRASH_TYPE, params)
        preset = params["preset"]
        if preset not in PRESETS and preset not in REDUCED_PRESETS:
            raise ValueError(f"{TRASH_NAME}: preset={preset!r} is not one of {sorted({**PRESETS, **REDUCED_PRESETS})}")
        if not isinstance(params["match"], bool):
            raise ValueError(f"{TRASH_NAME}: match must be true or false, got {params['match']!r}")
        reduced = dict(REDUCED_PRESETS.get(preset, {"preset": preset}))
        config: TrashConfig = make_config(
            reduced.pop("preset"), **reduced, num_players=params["players"], match=params["match"]
        )
        self.reveal = preset in REDUCED_PRESETS
        # Two seats without a final round (R8): exactly one wins, or a draw, so the game is zero-sum.
        zero_sum = self.reveal and config.num_players == 2 and not config.final_turn
        info = pyspiel.GameInfo(
            num_distinct_actions=trash.NUM_ACTIONS,
            max_chance_outcomes=trash.NUM_RANKS,
            num_players=config.num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if zero_sum else None,
            # A turn (R4, R5) is at most a draw, a placement per slot turned over, a displaced wild
            # before each of those and one more, and a discard; the game ends after max_turns (R7).
            max_game_length=(2 * config.layout_size + 3) * config.max_turns,
        )
        kind = TRASH_TYPE
        if zero_sum:
            kind = game_type(
                TRASH_NAME, TRASH_TYPE.long_name, TRASH_TYPE.information, pyspiel.GameType.Utility.ZERO_SUM,
                TRASH_TYPE.parameter_specification, (MIN_PLAYERS, MAX_PLAYERS),
            )  # fmt: skip
        super().__init__(kind, info, params)
        self.config = config
        self.shared = Shared(str(self), config, TrashObserver(config), self.reveal)
        self._first_draw: tuple[str, list[int]] | None = None
        try:
            table = trash.new_game(config, RevealDraws() if self.reveal else _ChosenDraws((), config.ordered_deck))
        except _DrawNeeded as need:
            self._first_draw = (need.kind, need.cards)  # the first deal's shuffle (R3)
        else:
            if not self.reveal:  # pragma: no cover - a core that deals without shuffling
                raise RuntimeError("the rules core dealt without shuffling")
            # A reduced Trash deals placeholders, nothing drawn yet: every initial state holds this
            # table, and a move from it applies to a copy (:meth:`OpenSpielTrashState._reveal_step`).
            self._first_table = Held(table, trash.clone)

    def max_chance_nodes_in_history(self) -> int:
        if self.reveal:  # at most one card turned up a move
            return self.max_game_length()
        # One card a node; a turn can reshuffle (R7) and deal the next hand (R9), plus the first deal.
        return self.config.deck_size * (2 * self.config.max_turns + 1)

    def new_initial_state(self) -> OpenSpielTrashState:
        return OpenSpielTrashState(self)

    def state_at(self, table: trash.TrashState) -> OpenSpielTrashState:
        """A state whose table is (a copy of) ``table``, a seat to move there, with no history: its
        information-state string starts here. What :mod:`agents.openspiel_bots` searches from, given
        a table whose hidden cards were sampled from the public ones (R15)."""
        if table.config != self.config:
            raise ValueError(f"state_at: the table is of another configuration than {self}")
        state = OpenSpielTrashState(self)
        state._draw = None
        state._core = Held(trash.clone(table), trash.clone)
        return state

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        return Observer(self.shared.encoder, iig_obs_type, params)


class OpenSpielTrashState(RulesState):
    """A state of ``python_trash``: a :class:`~trash_env.trash.rules.TrashState` and, at a chance
    node, the move waiting for a shuffle and the cards drawn for it so far (in a reduced Trash, the
    move waiting for the card it turns face up)."""

    _rules = trash

    def __init__(self, game: OpenSpielTrash) -> None:
        super().__init__(game)
        self._shared = game.shared
        self._core = None
        self._draw: _Draw | None = None
        self._reveal: Reveal | None = None  # a reduced Trash's move waiting for the card it turns up
        if game._first_draw is None:
            self._core = game._first_table
        else:
            kind, cards = game._first_draw
            self._draw = _Draw(_FIRST_DEAL, [], kind, cards)
        # The public history (R2, R15): per move the seat, the action, and the cards then held and
        # on top of the discard pile (what the move turned face up).
        self._public = ""

    def _waiting(self) -> bool:
        return self._draw is not None or self._reveal is not None

    @property
    def chance_kind(self) -> str | None:
        """At a chance node, what the cards are drawn for: ``"deal"`` (R3, R9) or ``"reshuffle"``
        (R7), or in a reduced Trash ``"reveal"`` (the card a move turns face up); else ``None``."""
        if self._reveal is not None:
            return REVEAL
        return None if self._draw is None else self._draw.kind

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        if self._reveal is not None:
            counts = self._reveal.counts
            total = sum(counts)
            return [(rank, count / total) for rank, count in enumerate(counts) if count]
        draw = self._draw
        return [(rank, count / draw.remaining) for rank, count in enumerate(draw.left) if count]

    def _apply_action(self, action: int) -> None:
        if self._shared.reveal:
            self._reveal_step(int(action))
            return
        draw = self._draw
        if draw is None:
            self._move(int(action), [])
            return
        if not 0 <= action < trash.NUM_RANKS or not draw.left[action]:
            raise ValueError(f"chance outcome {action} is not the rank of a card left to draw for the {draw.kind}")
        draw.left[action] -= 1
        draw.remaining -= 1
        draw.drawn.append(int(action))
        if not draw.remaining:
            self._move(draw.move, draw.decided + [(draw.kind, tuple(draw.drawn))])

    def _reveal_step(self, action: int) -> None:
        """A reduced Trash: a move that turns a hidden card up waits for it at a chance node; the
        card drawn there is swapped into place (:func:`bring`) and the core applies the move."""
        table = self._core.state
        if self._reveal is None:
            check_action(
                table, action, trash.legal_actions, trash.action_name, trash.PHASE_NAMES, "R13", trash.NUM_ACTIONS
            )
            place = revealed_place(table, action)
            if place is not None:
                self._reveal = Reveal(action, place, reveal_counts(table, place))
                return
            move, draws = action, RevealDraws()
        else:
            move, place = self._reveal.move, self._reveal.place
            if not 0 <= action < trash.NUM_RANKS or not self._reveal.counts[action]:
                raise ValueError(f"chance outcome {action} is not the rank of a card the move may turn up")
            draws = RevealDraws(action)
        # A state's table is its own (a clone copies it), but for the first table, which every
        # initial state shares: the move changes its own table in place, as the core does, and a
        # copy of the first. (Read game_state afresh after a move: the object may have changed.)
        state = trash.clone(table) if self._core is self.get_game()._first_table else table
        seat = state.current
        if self._reveal is not None:
            bring(state, place, action)
            self._reveal = None
        trash.apply_action(state, move, draws)
        self._commit(state, seat, move)

    def _commit(self, state: trash.TrashState, seat: int, move: int) -> None:
        """The table after ``seat``'s ``move`` (or the first deal) and its entry in the public history."""
        self._draw = None
        self._core = Held(state, trash.clone)
        if move != _FIRST_DEAL:
            held = trash.RANK_NAMES[state.held] if state.held != trash.NO_CARD else "-"
            top = trash.RANK_NAMES[state.discard[-1]] if state.discard else "-"
            self._public += f"{seat}:{move}:{held}:{top} "

    def _move(self, move: int, decided: list) -> None:
        """Apply ``move`` (a player's action, or the first deal) with the shuffles ``decided``; wait
        at a chance node if the core asks for one more. An illegal action raises the core's
        IllegalActionError and changes nothing."""
        config = self._shared.config
        draws = _ChosenDraws(decided, config.ordered_deck)
        try:
            if move == _FIRST_DEAL:
                state = trash.new_game(config, draws)
            else:
                state = trash.clone(self._core.state)
                seat = state.current
                trash.apply_action(state, move, draws)
        except _DrawNeeded as need:
            self._draw = _Draw(move, decided, need.kind, need.cards)
            return
        deals = [drawn for kind, drawn in decided if kind == DEAL]
        if draws.used != len(decided) or (deals and tuple(state.deck) != deals[-1]):
            raise RuntimeError("the rules core did not use the shuffles drawn for it as trash_env.openspiel expects")
        self._commit(state, seat if move != _FIRST_DEAL else 0, move)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            kind = self.chance_kind or "card"
            return f"{kind} {trash.RANK_NAMES[action]}" if 0 <= action < trash.NUM_RANKS else f"{kind} {action}"
        return trash.action_name(action)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> OpenSpielTrashState:
        """A state with the same public history whose hidden cards (face-down slots, stock order)
        are drawn again, uniformly among those consistent with it (R15,
        :func:`~trash_env.trash.belief.sample_hidden_state`): what ISMCTS searches over. Its
        ``history()`` keeps this state's chance outcomes."""
        if self._waiting():
            raise ValueError("resample_from_infostate: a chance node has no information state to resample")
        seed = int(probability_sampler() * 2**53)
        sampled = self.clone()
        sampled._core = Held(sample_hidden_state(self._core.state, np.random.default_rng(seed)), trash.clone)
        return sampled

    def _history_string(self) -> str:
        return self._public.rstrip()

    def _table_string(self, player: int) -> str:
        state = self.game_state
        if state is None:
            return f"Trash  the deck is being shuffled: {len(self._draw.drawn)} cards drawn"
        encoder = self._shared.encoder
        parts = encoder.view(encoder.encode(state, player))
        counts = [
            f"{name} {encoder.piece_text(name, parts[name]) or '-'}" for name in ("known_in_stock", "unaccounted")
        ]
        return render_table(state) + "\n" + "  ".join(counts)

    def __str__(self) -> str:
        lines = []
        state = self.game_state
        if state is not None:
            lines.append(render_table(state))
            if self._shared.reveal:
                lines.append("hidden cards: not drawn until turned face up")
            else:
                for seat in range(state.num_players):
                    cells = [
                        trash.RANK_NAMES[c] if u == trash.FACE_DOWN else "."
                        for c, u in zip(state.down[seat], state.up[seat])
                    ]
                    lines.append(f"player_{seat} face down: {' '.join(cells)}")
                lines.append("stock, top first: " + " ".join(trash.RANK_NAMES[c] for c in reversed(state.stock)))
        draw = self._draw
        if draw is not None:
            waiting = "the first deal" if draw.move == _FIRST_DEAL else trash.action_name(draw.move)
            drawn = " ".join(trash.RANK_NAMES[c] for c in draw.drawn)
            lines.append(f"chance: {draw.kind} for {waiting}, drawn {drawn or '-'} ({draw.remaining} to draw)")
        if self._reveal is not None:
            lines.append(f"chance: the card {trash.action_name(self._reveal.move)} turns face up")
        return "\n".join(lines)


register(TRASH_TYPE, OpenSpielTrash)
