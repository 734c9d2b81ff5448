"""How the play commands tell a game of Trash (the :class:`~trash_env.game.Narrator` of its
descriptor): the menu text of each legal action and the words a person types for it (a slot by its
rank, R2), the narration of every move (public information only, R2), the rules in a line, the result
(R10), the help, and a hand's layouts laid open once it ends (R9)."""

from __future__ import annotations

import copy
import dataclasses
import functools
from collections.abc import Sequence

import numpy as np

from trash_env.game import Narrator
from trash_env.narration import YOU, listing, said
from trash_env.trash import rules as trash
from trash_env.trash.config import TrashConfig
from trash_env.trash.rules import (
    DISCARD,
    DRAW_STOCK,
    FACE_DOWN,
    OVER,
    PLACE_SLOT_0,
    RANK_NAMES,
    TAKE_DISCARD,
    TrashState,
)
from trash_env.trash.text import render_table


def _slot(slot: int) -> str:
    """A slot as a person names it: by the rank whose place it is (R2), ``the 4's slot``."""
    return f"the {RANK_NAMES[slot + 1]}'s slot"


def choice_text(state: TrashState, action: int) -> str:
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


def move_words(state: TrashState, action: int) -> tuple[str, ...]:
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


def move_prefixes(state: TrashState) -> tuple[str, ...]:
    """Words that may come before a slot (``place 3``, ``slot 3``, ``K 3`` when the held card is a King)."""
    held = RANK_NAMES[state.held] if state.held >= 0 else None
    return ("place", "p", "slot", *((held,) if held else ()))


def apply_and_describe(state: TrashState, action: int, rng: np.random.Generator, names: Sequence[str]) -> list[str]:
    """Apply a legal ``action`` of ``state.current`` and say what happened, one line per event.

    Only what the action makes public is named (R2): the card drawn (held, so
    public), the card a placement turns up, the card discarded.
    """
    seat = state.current
    name = names[seat]
    held = state.held
    hand, hands_won, drawn_hands = state.hand, state.hands_won[:], state.drawn_hands
    had_winners = bool(state.hand_winners)
    lines = []
    if action == DRAW_STOCK:
        if not state.stock:
            lines.append("the stock is empty: the discard pile, all but its top card, is shuffled as a new stock (R7)")
        trash.apply_action(state, action, rng)
        if state.drawn_hands == drawn_hands:
            lines.append(f"{said(name, 'draw')} {RANK_NAMES[state.held]}")
    elif action == TAKE_DISCARD:
        lines.append(f"{said(name, 'take')} the discard {RANK_NAMES[state.discard[-1]]}")
        trash.apply_action(state, action, rng)
    elif action == DISCARD:
        lines.append(f"{said(name, 'discard')} {RANK_NAMES[held]}")
        trash.apply_action(state, action, rng)
    else:
        slot = action - PLACE_SLOT_0
        previous = state.up[seat][slot]
        completes = previous == FACE_DOWN and state.face_down[seat] == 1
        # The card under the slot is read before the action only to name it once it is turned up.
        turned_up = state.down[seat][slot] if previous == FACE_DOWN else None
        trash.apply_action(state, action, rng)
        card = RANK_NAMES[held]
        if turned_up is None:
            lines.append(f"{said(name, 'place')} {card} in {_slot(slot)}, taking back the {RANK_NAMES[previous]}")
        else:
            where = f" in {_slot(slot)}" if state.is_wild[held] else ""
            turns = "turn" if name == YOU else "turns"
            lines.append(f"{said(name, 'place')} {card}{where} and {turns} up {RANK_NAMES[turned_up]}")
        if completes:
            completed = said(name, "complete")
            lines.append(f"{completed} the layout! The {RANK_NAMES[turned_up]} goes on the discard pile (R5)")
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


def describe_config(config: TrashConfig) -> str:
    """One line: players, layout, wild cards, hand or match."""
    wild = {"K": "Kings wild", "J": "Jacks wild", None: "no wild rank"}[config.wild]
    if config.jokers:
        wild += ", Jokers wild"
    kind = "a match of hands (R9)" if config.match else "one hand"
    return f"Trash: {config.num_players} players, {config.layout_size}-card layouts, {wild}, {kind}"


def result_text(state: TrashState, names: Sequence[str], human: int) -> str:
    """Who won and the human's reward (R10), once the game is over."""
    reward = trash.returns(state)[human]
    if state.truncated:
        outcome = "a draw: the turn limit was reached (R7)"
    elif not state.winners:
        outcome = "a draw"
    else:
        winners = [names[seat] for seat in state.winners]
        outcome = f"{listing(winners)} {'win' if winners == [YOU] or len(winners) > 1 else 'wins'}"
        outcome += " the match" if state.config.match else " the hand"
    return f"result: {outcome}; your reward {reward:+g}"




def misnamed(state: TrashState, word: str) -> str | None:
    """Two words whose first is a card (``Q 3``) but not the one held: which card is held."""
    if word.upper() not in RANK_NAMES:
        return None
    held = RANK_NAMES[state.held] if state.held >= 0 else "no card"
    return f"you hold {held}, not {word.upper()}"


def ended_hand(state: TrashState, action: int, rng: np.random.Generator) -> TrashState | None:
    """The hand as it ends if ``action`` ends it in a match (R9; the match then deals the next at
    once): the action applied to a copy of the hand alone (``rng``, a copy of the game's generator,
    draws what the real one will), else None."""
    if not state.config.match:
        return None
    ended = trash.clone(state)
    ended.config = dataclasses.replace(ended.config, match=False)  # the hand alone ends where it is
    trash.apply_action(ended, action, copy.deepcopy(rng))
    return ended if ended.phase == OVER else None


HOW_TO_ENTER = (
    "Type a move as the menu names it; #N plays the action numbered N instead; ? (or h, help) shows this\n"
    "help and the moves again; q (or quit, exit) leaves the game, as do the end of input (Ctrl-D) and Ctrl-C."
)

HELP = (
    "help: type a move as a player names it (the rule book's R13 lists them):\n"
    "  draw (or d)      draw from the stock\n"
    "  take (or t)      take the top card of the discard pile (R4 says when it may be taken)\n"
    "  A, 2 .. 10       place the card you hold in that rank's slot: 3 puts it in the Three's place; the\n"
    "                   face-down card there becomes the card you hold, a wild card there comes back to you\n"
    "                   (R5, R6); K 3, place 3 and slot 3 say the same\n"
    "  discard (or x)   discard the card you hold, ending your turn\n"
    "Only the legal moves are listed; a move with no choice (forced, R13) is played for you. #N plays\n"
    "action N of R13 (0 draw, 1 take, 2..11 the slots A..10, 12 discard).\n"
    "The table shows only public information (R2): ## is a face-down card, K* a wild card in a slot,\n"
    "the stock a count; when a hand ends, every face-down card is shown in brackets, (7).\n"
    "The rules: trash-play --rules (R1-R11; one section: trash-play --rules R5).\n" + HOW_TO_ENTER
)

NARRATOR = Narrator(
    describe_config=describe_config,
    choice_text=choice_text,
    apply_and_describe=apply_and_describe,
    result_text=result_text,
    words=move_words,
    prefixes=move_prefixes,
    legend="Face-down cards show as ##, a wild card in a slot as K*; forced moves are played for you.",
    turn_of=lambda state: (state.hand, state.turn),
    reveal=functools.partial(render_table, reveal=True),
    help=HELP,
    action_rules="R13",
    misnamed=misnamed,
    ended_hand=ended_hand,
)
