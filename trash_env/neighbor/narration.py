"""How the play commands tell a game of Help Your Neighbor (the :class:`~trash_env.game.Narrator`
of its descriptor): the menu text of each legal action and the words a person types for it (a
marker by its total), the narration of every roll (R12, the privilege included), the rules in a line,
the result and the help. Nothing is hidden (R12): the table is the same at the end."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from trash_env.game import Narrator
from trash_env.narration import YOU, said
from trash_env.neighbor import rules as neighbor
from trash_env.neighbor.rules import END_TURN, NOBODY, ROLL_DICE, SEVEN, TOTALS, UNCOVER, UNCOVER_0, NeighborState
from trash_env.neighbor.text import render_neighbor


def choice_text(state: NeighborState, action: int) -> str:
    """What a legal ``action`` of ``state.current`` does, for the menu (R14)."""
    if action == ROLL_DICE:
        return "roll again" if state.phase == neighbor.CHOOSE else "roll the dice"
    if action == END_TURN:
        return "end the turn"
    return f"uncover {TOTALS[action - UNCOVER_0]}"


def apply_and_describe(
    state: NeighborState, action: int, rng: np.random.Generator, names: Sequence[str]
) -> list[str]:
    """Apply a legal ``action`` of ``state.current`` and say what happened (R12), one line per event:
    the total rolled and who covers it (the roller, or the neighbour with the privilege), a 7,
    the marker uncovered, the end of the turn, and the end of the game."""
    seat = state.current
    name = names[seat]

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


def move_words(state: NeighborState, action: int) -> tuple[str, ...]:
    """What a person types for a legal ``action`` (R14): ``roll`` (``r``), ``end`` (``e``), and a
    marker to uncover after a 7 by its total (``8``)."""
    if action == ROLL_DICE:
        return ("roll", "r")
    if action == END_TURN:
        return ("end", "e")
    return (str(TOTALS[action - UNCOVER_0]),)


def describe_config(config: neighbor.NeighborConfig) -> str:
    """One line: players and the turn limit (R12)."""
    return f"Help Your Neighbor: {config.num_players} players, ten markers each, a turn limit of {config.max_turns}"


def result_text(state: NeighborState, names: Sequence[str], human: int) -> str:
    """Who won and the human's reward (R12), once the game is over."""
    reward = neighbor.returns(state)[human]
    if state.truncated or not state.winners:
        outcome = "a draw: the turn limit was reached (R12)"
    else:
        winner = names[state.winners[0]]
        outcome = f"{winner} {'win' if winner == YOU else 'wins'} the game"
    return f"result: {outcome}; your reward {reward:+g}"


HELP = (
    "help: type a move as a player names it (the rule book's R14 lists them):\n"
    "  roll (or r)      roll the dice again\n"
    "  end (or e)       end the turn\n"
    "  2 .. 6, 8 .. 12  after rolling a 7, uncover your marker of that total (R12; uncover 8 says the same)\n"
    "Only the legal moves are listed; every turn's first roll is forced (R14) and played for you. #N\n"
    "plays action N of R14 (0 roll, 1 end, 2..11 uncover 2..6 and 8..12).\n"
    "## is a covered marker. A total you have covered already is covered by the next player in seat\n"
    "order who has it uncovered, and the turn is theirs (help your neighbor). The rules: trash-play --rules R12.\n"
    "Type a move as the menu names it; #N plays the action numbered N instead; ? (or h, help) shows this\n"
    "help and the moves again; q (or quit, exit) leaves the game, as do the end of input (Ctrl-D) and Ctrl-C."
)

NARRATOR = Narrator(
    describe_config=describe_config,
    choice_text=choice_text,
    apply_and_describe=apply_and_describe,
    result_text=result_text,
    words=move_words,
    prefixes=lambda state: ("uncover", "u"),
    legend="Covered markers show as ##; forced moves (every turn's first roll) are played for you.",
    turn_of=lambda state: (state.turn,),
    reveal=render_neighbor,  # nothing is hidden (R12)
    help=HELP,
    action_rules="R14",
)
