"""The table both ways of playing share (:mod:`agents.commands.play` in the terminal,
:mod:`agents.commands.web.server` in the browser): one game between a human seat and agents, with
every move narrated as a line (``player_1 (greedy) draws 7``, ``you roll 8 and cover it``).

:class:`Table` holds the game on its rules core (Trash R1-R10, R13; Help Your Neighbor R12, R14):
forced moves are played for everyone, the agents are asked at their real choices, and the human's
seat waits for a legal action. Only public information is shown (R2).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import Agent, SeatView
from trash_env.games import NEIGHBOR, TRASH, Game, game_of
from trash_env.neighbor import rules as neighbor
from trash_env.neighbor.rules import END_TURN, NOBODY, ROLL_DICE, SEVEN, TOTALS, UNCOVER, UNCOVER_0, NeighborState
from trash_env.neighbor.text import render_neighbor
from trash_env.trash import rules as core
from trash_env.trash.config import RulesConfig
from trash_env.trash.rules import (
    DISCARD,
    DRAW_STOCK,
    FACE_DOWN,
    OVER,
    PLACE_SLOT_0,
    RANK_NAMES,
    TAKE_DISCARD,
    GameState,
)
from trash_env.trash.text import render_table

YOU = "you"
ACTION_NUMBER = "#"  # "#5": the action numbered 5 (R13, R14), typed as such at the prompt


def game_rng(seed: int) -> np.random.Generator:
    """The generator of the deal, reshuffles (R7) and later hands (R9)."""
    return np.random.default_rng([seed, 0])


def agent_rng(seed: int, seat: int) -> np.random.Generator:
    """The generator of the agent in ``seat``; independent of the game's."""
    return np.random.default_rng([seed, 1, seat])


def seat_names(agents: Sequence[Agent | None]) -> list[str]:
    """``you`` for the human seat (``None``), ``player_i (agent)`` for the others."""
    return [YOU if agent is None else f"player_{seat} ({agent.name})" for seat, agent in enumerate(agents)]


def _slot(slot: int) -> str:
    """A slot as a person names it: by the rank whose place it is (R2), ``the 4's slot``."""
    return f"the {RANK_NAMES[slot + 1]}'s slot"


def choice_text(state: GameState, action: int) -> str:
    """What a legal ``action`` of ``state.current`` does, for the menu (public information only)."""
    if action == DRAW_STOCK:
        return "draw from the stock"
    if action == TAKE_DISCARD:
        return f"take the discard ({RANK_NAMES[state.discard[-1]]})"
    held = RANK_NAMES[state.held]
    if action == DISCARD:
        return f"discard {held}"
    slot = action - PLACE_SLOT_0
    previous = state.up[state.current][slot]
    text = f"place {held} in {_slot(slot)}"
    if previous != FACE_DOWN:
        text += f", taking back the {RANK_NAMES[previous]}"  # R5: displacing a wild
    return text


def move_words(state: GameState, action: int) -> tuple[str, ...]:
    """What a person types for a legal ``action`` of ``state.current``, the first as the menu shows it:
    ``draw`` (or ``d``), ``take`` (``t``), ``discard`` (``x``), and a placement by its slot's rank
    (R2): ``3`` puts the held card in the Three's place, ``A`` (or ``1``) in the Ace's."""
    if action == DRAW_STOCK:
        return ("draw", "d", "stock")
    if action == TAKE_DISCARD:
        return ("take", "t")
    if action == DISCARD:
        return ("discard", "x")
    rank = RANK_NAMES[action - PLACE_SLOT_0 + 1]
    return (rank, "1") if rank == "A" else (rank,)


def move_prefixes(state: GameState) -> tuple[str, ...]:
    """Words that may come before a slot (``place 3``, ``slot 3``, ``K 3`` when the held card is a King)."""
    held = RANK_NAMES[state.held] if state.held >= 0 else None
    return ("place", "p", "slot", *((held,) if held else ()))


def listing(names: Sequence[str], conjunction: str = "and") -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {conjunction} {names[-1]}"


def apply_and_describe(state: GameState, action: int, rng: np.random.Generator, names: Sequence[str]) -> list[str]:
    """Apply a legal ``action`` of ``state.current`` and say what happened, one line per event.

    Only what the action makes public is named (R2): the card drawn (held, so
    public), the card a placement turns up, the card discarded.
    """
    seat = state.current
    name = names[seat]
    you = name == YOU

    def said(verb: str) -> str:  # "you draw" / "player_1 (greedy) draws"
        return f"{name} {verb if you else verb + 's'}"

    held = state.held
    hand, hands_won, drawn_hands = state.hand, state.hands_won[:], state.drawn_hands
    had_winners = bool(state.hand_winners)
    lines = []
    if action == DRAW_STOCK:
        if not state.stock:
            lines.append("the stock is empty: the discard pile, all but its top card, is shuffled as a new stock (R7)")
        core.apply_action(state, action, rng)
        if state.drawn_hands == drawn_hands:
            lines.append(f"{said('draw')} {RANK_NAMES[state.held]}")
    elif action == TAKE_DISCARD:
        lines.append(f"{said('take')} the discard {RANK_NAMES[state.discard[-1]]}")
        core.apply_action(state, action, rng)
    elif action == DISCARD:
        lines.append(f"{said('discard')} {RANK_NAMES[held]}")
        core.apply_action(state, action, rng)
    else:
        slot = action - PLACE_SLOT_0
        previous = state.up[seat][slot]
        completes = previous == FACE_DOWN and state.face_down[seat] == 1
        # The card under the slot is read before the action only to name it once it is turned up.
        turned_up = state.down[seat][slot] if previous == FACE_DOWN else None
        core.apply_action(state, action, rng)
        card = RANK_NAMES[held]
        if turned_up is None:
            lines.append(f"{said('place')} {card} in {_slot(slot)}, taking back the {RANK_NAMES[previous]}")
        else:
            where = f" in {_slot(slot)}" if state.is_wild[held] else ""
            lines.append(f"{said('place')} {card}{where} and {'turn' if you else 'turns'} up {RANK_NAMES[turned_up]}")
        if completes:
            lines.append(f"{said('complete')} the layout! The {RANK_NAMES[turned_up]} goes on the discard pile (R5)")
            if state.phase != OVER and state.hand == hand and not had_winners and state.config.final_turn:
                lines.append("final round: every other player has one more turn (R8)")
    if state.drawn_hands != drawn_hands:
        lines.append("the stock and the discard pile are used up: the hand is a draw (R7)")
    if state.hand != hand:
        winners = [s for s in range(state.num_players) if state.hands_won[s] > hands_won[s]]
        if winners:
            sizes = ", ".join(f"{names[s]} {state.sizes[s]}" for s in range(state.num_players))
            lines.append(f"hand {hand + 1} won by {listing([names[s] for s in winners])}; layout sizes now: {sizes}")
        first = names[state.current]
        lines.append(f"hand {state.hand + 1} is dealt; {first} {'play' if first == YOU else 'plays'} first")
    return lines


def describe_config(config: RulesConfig) -> str:
    """One line: players, layout, wild cards, hand or match."""
    wild = {"K": "Kings wild", "J": "Jacks wild", None: "no wild rank"}[config.wild]
    if config.jokers:
        wild += ", Jokers wild"
    kind = "a match of hands (R9)" if config.match else "one hand"
    return f"Trash: {config.num_players} players, {config.layout_size}-card layouts, {wild}, {kind}"


def result_text(state: GameState, names: Sequence[str], human: int) -> str:
    """Who won and the human's reward (R10), once the game is over."""
    reward = core.returns(state)[human]
    if state.truncated:
        outcome = "a draw: the turn limit was reached (R7)"
    elif not state.winners:
        outcome = "a draw"
    else:
        winners = [names[seat] for seat in state.winners]
        outcome = f"{listing(winners)} {'win' if winners == [YOU] or len(winners) > 1 else 'wins'}"
        outcome += " the match" if state.config.match else " the hand"
    return f"result: {outcome}; your reward {reward:+g}"


# --------------------------------------------------------------------------
# Help Your Neighbor (R12, R14): everything is public, only the dice to come are unknown.


def neighbor_choice_text(state: NeighborState, action: int) -> str:
    """What a legal ``action`` of ``state.current`` does, for the menu (R14)."""
    if action == ROLL_DICE:
        return "roll again" if state.phase == neighbor.CHOOSE else "roll the dice"
    if action == END_TURN:
        return "end the turn"
    return f"uncover {TOTALS[action - UNCOVER_0]}"


def neighbor_apply_and_describe(
    state: NeighborState, action: int, rng: np.random.Generator, names: Sequence[str]
) -> list[str]:
    """Apply a legal ``action`` of ``state.current`` and say what happened (R12), one line per event:
    the total rolled and who covers it (the roller, or the neighbour with the privilege), a 7,
    the marker uncovered, the end of the turn, and the end of the game."""
    seat = state.current
    name = names[seat]

    def said(who: str, verb: str) -> str:  # "you roll" / "player_1 (heuristic) rolls"
        return f"{who} {verb if who == YOU else verb + 's'}"

    left = state.left[seat]
    lines = []
    neighbor.apply_action(state, action, rng)
    if action == ROLL_DICE:
        total = state.roll
        if total == SEVEN and state.phase == UNCOVER:
            lines.append(f"{said(name, 'roll')} 7 and must uncover a marker (R12)")
        elif total == SEVEN:
            lines.append(f"{said(name, 'roll')} 7 with no marker covered; the turn passes to {names[state.current]}")
        elif state.helper != NOBODY:
            helper = names[state.helper]
            taken = "" if state.over else f" and {'take' if helper == YOU else 'takes'} the turn"
            lines.append(f"{said(name, 'roll')} {total}: {said(helper, 'cover')} it (help your neighbor){taken}")
        elif state.left[seat] < left:
            lines.append(f"{said(name, 'roll')} {total} and {'cover' if name == YOU else 'covers'} it")
        else:
            lines.append(f"{said(name, 'roll')} {total}: nobody can use it")
    elif action == END_TURN:
        lines.append(f"{said(name, 'end')} the turn")
    else:
        lines.append(f"{said(name, 'uncover')} {TOTALS[action - UNCOVER_0]}")
    if state.over and state.winners:
        winner = names[state.winners[0]]
        lines.append(f"{said(winner, 'cover')} all ten markers and {'win' if winner == YOU else 'wins'} (R12)")
    elif state.truncated:
        lines.append(f"the turn limit ({state.config.max_turns} turns) is reached: the game is a draw (R12)")
    return lines


def neighbor_move_words(state: NeighborState, action: int) -> tuple[str, ...]:
    """What a person types for a legal ``action`` (R14): ``roll`` (``r``), ``end`` (``e``), and a
    marker to uncover after a 7 by its total (``8``)."""
    if action == ROLL_DICE:
        return ("roll", "r")
    if action == END_TURN:
        return ("end", "e")
    return (str(TOTALS[action - UNCOVER_0]),)


def neighbor_describe_config(config: neighbor.NeighborConfig) -> str:
    """One line: players and the turn limit (R12)."""
    return f"Help Your Neighbor: {config.num_players} players, ten markers each, a turn limit of {config.max_turns}"


def neighbor_result_text(state: NeighborState, names: Sequence[str], human: int) -> str:
    """Who won and the human's reward (R12), once the game is over."""
    reward = neighbor.returns(state)[human]
    if state.truncated or not state.winners:
        outcome = "a draw: the turn limit was reached (R12)"
    else:
        winner = names[state.winners[0]]
        outcome = f"{winner} {'win' if winner == YOU else 'wins'} the game"
    return f"result: {outcome}; your reward {reward:+g}"


# --------------------------------------------------------------------------
# One game loop for both games


@dataclass(frozen=True)
class Narrator:
    """How the play commands tell one game (a :class:`~trash_env.games.Game`): the menu text of
    a legal action, the narration of an applied one, the one-line description and the result."""

    game: Game
    describe_config: Callable[[Any], str]
    choice_text: Callable[[Any, int], str]
    apply_and_describe: Callable[[Any, int, np.random.Generator, Sequence[str]], list[str]]
    result_text: Callable[[Any, Sequence[str], int], str]
    words: Callable[[Any, int], tuple[str, ...]]  # what may be typed for a legal action, the menu's first
    prefixes: Callable[[Any], tuple[str, ...]]  # words that may come before a slot or total (``place 3``)
    legend: str  # how the text table shows what is hidden or covered
    turn_of: Callable[[Any], tuple[int, ...]]  # changes exactly when a turn ends
    reveal: Callable[..., str]  # (state, names) -> the table with everything hidden shown, once a hand ends


NARRATORS: dict[str, Narrator] = {
    "trash": Narrator(
        TRASH,
        describe_config,
        choice_text,
        apply_and_describe,
        result_text,
        move_words,
        move_prefixes,
        "Face-down cards show as ##, a wild card in a slot as K*; forced moves are played for you.",
        lambda state: (state.hand, state.turn),
        functools.partial(render_table, reveal=True),
    ),
    "help_your_neighbor": Narrator(
        NEIGHBOR,
        neighbor_describe_config,
        neighbor_choice_text,
        neighbor_apply_and_describe,
        neighbor_result_text,
        neighbor_move_words,
        lambda state: ("uncover", "u"),
        "Covered markers show as ##; forced moves (every turn's first roll) are played for you.",
        lambda state: (state.turn,),
        render_neighbor,  # nothing is hidden (R12)
    ),
}


def narrator_of(config: Any) -> Narrator:
    """The narrator of the game ``config`` belongs to."""
    return NARRATORS[game_of(config).name]


class Table:
    """One game between the human (the seat whose agent is ``None``) and agents, on its rules core:
    the state, the generators (:func:`game_rng`, :func:`agent_rng`) and the narration of each move.
    The terminal and the browser front-ends (:mod:`agents.commands.web.server`) both play through it.
    ``deal`` stacks the first deal (a deck, R3; dice, R12) instead of drawing it from the seed."""

    def __init__(self, config: Any, agents: Sequence[Agent | None], seed: int = 0, deal: Any = None) -> None:
        self.config = config
        self.narrator = narrator_of(config)
        self.game = self.narrator.game
        self.agents = list(agents)
        self.human = self.agents.index(None)
        self.names = seat_names(self.agents)
        self.seed = seed
        self.rng = game_rng(seed)
        self.agent_rngs = [agent_rng(seed, seat) for seat in range(config.num_players)]
        self.observer = self.game.make_observer(config)
        self.state = self.game.new_game(config, self.rng, deal)
        self.ended_hand: Any = None  # the hand of a match the last move ended, as it ended (apply)

    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def waiting(self) -> bool:
        """Whether the human has a real choice now (two or more legal moves, R13, R14)."""
        state = self.state
        return not state.over and state.current == self.human and self.game.forced_action(state) < 0

    def legal_actions(self) -> list[int]:
        return self.game.legal_actions(self.state)

    def introduction(self) -> str:
        others = listing([name for name in self.names if name != YOU])
        return (
            f"{self.narrator.describe_config(self.config)}. You are seat {self.human} against {others}; "
            f"seed {self.seed}."
        )

    def automatic_action(self) -> int:
        """The next move when the human has no real choice: a forced move (anyone's) or an agent's."""
        state = self.state
        action = self.game.forced_action(state)
        if action < 0:
            seat = state.current
            action = self.agents[seat].act(SeatView(state, seat, self.observer, self.game), self.agent_rngs[seat])
        return action

    def apply(self, action: int) -> list[str]:
        """Apply a legal action of the seat to act; what happened, one line per event. When it ends a
        hand of a match (R9), :attr:`ended_hand` is that hand as it ended, before the next was dealt
        (for :meth:`revealed_text`); else None."""
        ending = None
        if self.game is TRASH and self.state.config.match:
            ending = core.clone(self.state), copy.deepcopy(self.rng), self.state.hand
        lines = self.narrator.apply_and_describe(self.state, action, self.rng, self.names)
        self.ended_hand = None
        if ending is not None and self.state.hand != ending[2] and not self.state.over:
            ended, rng, _ = ending
            ended.config = dataclasses.replace(ended.config, match=False)  # the hand alone ends where it is
            core.apply_action(ended, action, rng)
            self.ended_hand = ended
        return lines

    def text(self) -> str:
        """The public table as text."""
        return self.game.render(self.state, self.names)

    def choice_text(self, action: int) -> str:
        return self.narrator.choice_text(self.state, action)

    def move_word(self, action: int) -> str:
        """The word the menu shows for a legal ``action``: what to type for it."""
        return self.narrator.words(self.state, action)[0]

    def read_move(self, text: str) -> int:
        """The legal action ``text`` names, as a person types it (``draw``, ``K 3``, ``3``; ``#4`` for
        action 4 of R13 or R14); a ValueError saying why not otherwise."""
        legal = self.legal_actions()
        words = text.strip().lower().split()
        if len(words) == 1 and words[0].startswith(ACTION_NUMBER) and words[0][1:].isdigit():
            number = int(words[0][1:])
            if number in legal:
                return number
            raise ValueError(f"{words[0]} is not a legal move now")
        prefixes = [word.lower() for word in self.narrator.prefixes(self.state)]
        if len(words) == 2 and words[0] in prefixes:
            words = words[1:]
        named = {word.lower(): action for action in legal for word in self.narrator.words(self.state, action)}
        if len(words) == 1 and words[0] in named:
            return named[words[0]]
        if not words:
            raise ValueError("enter a move")
        if self.game is TRASH and len(words) == 2 and words[0].upper() in RANK_NAMES:
            held = self.state.held
            raise ValueError(f"you hold {RANK_NAMES[held] if held >= 0 else 'no card'}, not {words[0].upper()}")
        every = {
            word.lower()
            for action in range(self.game.num_actions)
            for word in (self.narrator.words(self.state, action) if action not in legal else ())
        }
        if len(words) == 1 and words[0] in every:
            raise ValueError(f"{words[0]} is not a legal move now")
        raise ValueError(f"{text.strip()!r} is not a move")

    def revealed_text(self, state: Any = None) -> str:
        """The table with every hidden card shown, as the end of a hand lays it open: the game's state
        once it is over, or a hand of a match that ended (:attr:`ended_hand`)."""
        return self.narrator.reveal(self.state if state is None else state, self.names)

    def result_text(self) -> str:
        return self.narrator.result_text(self.state, self.names, self.human)


# --------------------------------------------------------------------------
# The terminal
