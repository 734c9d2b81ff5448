"""Play Trash in the terminal against the agents: ``python -m agents.play`` (or ``trash-play``).

    python -m agents.play                                   # you (seat 0) against greedy, one standard hand
    python -m agents.play --opponents counter --seat 1      # counter plays first
    python -m agents.play --opponents greedy search:samples=8 counter --preset pagat
    python -m agents.play --match --seed 7                  # a match of hands (R9)

Options:

- ``--opponents AGENT [AGENT ...]``: agent specs for the other seats in seat order
  (random, greedy, counter, search, with options as ``search:samples=8``); if fewer
  are given than there are other seats, the last is repeated. Default: ``greedy``.
- ``--num-players N``: default 1 + the number of opponents named.
- ``--seat S``: your seat, 0-based (default 0; seat 0 plays first, R3).
- ``--preset NAME``: a rules preset of R11 (default ``standard``); ``--match``
  plays a match of hands (R9) instead of one hand.
- ``--seed N``: the same seed deals the same cards and makes the agents decide the same.

Forced moves (R13) are played for everyone, you included, and every move of
every seat is shown as one line (``player_1 (greedy) draws 7``). You see only
public information (R2): face-down cards are ``##`` and the stock is a count.
At each real choice the table and a menu of the legal moves are shown with their
R13 action numbers; enter a number, or ``d`` (draw), ``t`` (take the discard),
``x`` (discard), ``?`` or ``h`` (help: show the table and menu again), ``q`` (quit).
End of input and Ctrl-C also leave the game. Exit codes: 0 after a game or a
quit, 2 for bad arguments, 130 after Ctrl-C.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

import numpy as np

from agents.base import Agent, SeatView
from agents.registry import make_agent
from trash_env import core
from trash_env.cli import ArgumentParser, fail
from trash_env.config import PRESETS, RulesConfig, make_config
from trash_env.core import DISCARD, DRAW_STOCK, FACE_DOWN, OVER, PLACE_SLOT_0, RANK_NAMES, TAKE_DISCARD, GameState
from trash_env.observation import Observer
from trash_env.render import render_table

PROG = "trash-play"
PROMPT = "your move> "
ALIASES = {"d": DRAW_STOCK, "t": TAKE_DISCARD, "x": DISCARD}
HELP_WORDS = ("?", "h", "help")
QUIT_WORDS = ("q", "quit", "exit")
YOU = "you"


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
    return f"slot {slot} ({RANK_NAMES[slot + 1]})"


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


def _listing(names: Sequence[str], conjunction: str = "and") -> str:
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
            lines.append(f"hand {hand + 1} won by {_listing([names[s] for s in winners])}; layout sizes now: {sizes}")
        first = names[state.current]
        lines.append(f"hand {state.hand + 1} is dealt; {first} {'play' if first == YOU else 'plays'} first")
    return lines


def show_choice(state: GameState, names: Sequence[str], legal: Sequence[int], out: TextIO) -> None:
    """The table and the numbered menu of legal moves (R13 action numbers)."""
    print(render_table(state, names), file=out)
    print("your moves:", file=out)
    for action in legal:
        print(f"  {action:>2}  {choice_text(state, action)}", file=out)
    aliases = ", ".join(f"{key} = {action}" for key, action in ALIASES.items() if action in legal)
    print(f"enter a number ({aliases}), ? for help, q to quit", file=out)


def _hint(text: str, legal: Sequence[int]) -> str:
    alias = {action: key for key, action in ALIASES.items()}
    numbers = [f"{action} ({alias[action]})" if action in alias else str(action) for action in legal]
    choices = _listing(numbers, "or")
    if not text:
        problem = "enter a move"
    elif text.isdigit() or text in ALIASES:
        problem = f"{text} is not a legal move now"
    else:
        problem = f"{text!r} is not a move"
    return f"{problem}: choose {choices} (? shows the moves again, q quits)"


def ask_human(state: GameState, names: Sequence[str], input_fn: Callable[[str], str], out: TextIO) -> int | None:
    """The human's move at a real choice; ``None`` to quit. ``EOFError`` from ``input_fn`` propagates."""
    legal = core.legal_actions(state)
    show_choice(state, names, legal, out)
    while True:
        print(PROMPT, end="", file=out, flush=True)
        text = input_fn("").strip().lower()
        if text in QUIT_WORDS:
            return None
        if text in HELP_WORDS:
            print(file=out)
            show_choice(state, names, legal, out)
            continue
        action = ALIASES.get(text, int(text) if text.isdigit() else None)
        if action in legal:
            return action
        print(_hint(text, legal), file=out)


def describe_config(config: RulesConfig) -> str:
    """One line: players, layout, wild cards, hand or match."""
    wild = {"K": "Kings wild", "J": "Jacks wild", None: "no wild rank"}[config.wild]
    if config.jokers:
        wild += ", Jokers wild"
    kind = "a match of hands (R9)" if config.match else "one hand"
    return f"Trash: {config.num_players} players, {config.layout_size}-card layouts, {wild}, {kind}"


def play(
    config: RulesConfig,
    agents: Sequence[Agent | None],
    seed: int = 0,
    input_fn: Callable[[str], str] = input,
    out: TextIO | None = None,
    deck: Sequence[int] | None = None,
) -> int:
    """Play one game with the human in the seat whose agent is ``None``; 0 when it ends or on a quit,
    130 on Ctrl-C. ``deck`` stacks the first deal (R3) instead of shuffling it from the seed."""
    out = sys.stdout if out is None else out
    human = list(agents).index(None)
    names = seat_names(agents)
    rng = game_rng(seed)
    agent_rngs = [agent_rng(seed, seat) for seat in range(config.num_players)]
    observer = Observer(config)
    state = core.new_game(config, rng, deck)
    others = _listing([name for name in names if name != YOU])
    print(f"{describe_config(config)}. You are seat {human} against {others}; seed {seed}.", file=out)
    print("Face-down cards show as ##, a wild card in a slot as K*; forced moves are played for you.", file=out)
    blank = False  # whether the last line printed is blank
    try:
        while state.phase != OVER:
            seat = state.current
            turn, hand = state.turn, state.hand
            action = core.forced_action(state)
            if action < 0 and seat == human:
                if not blank:
                    print(file=out)
                action = ask_human(state, names, input_fn, out)
                if action is None:
                    print("you left the game.", file=out)
                    return 0
            elif action < 0:
                action = agents[seat].act(SeatView(state, seat, observer), agent_rngs[seat])
            for line in apply_and_describe(state, action, rng, names):
                print(line, file=out)
                blank = False
            if state.phase != OVER and (state.turn != turn or state.hand != hand):
                print(file=out)  # a blank line between turns
                blank = True
    except EOFError:
        print("\nend of input: you left the game.", file=out)
        return 0
    except KeyboardInterrupt:
        print("\ninterrupted: you left the game.", file=out)
        return 130
    print(file=out)
    print(render_table(state, names), file=out)
    print(result_text(state, names, human), file=out)
    return 0


def result_text(state: GameState, names: Sequence[str], human: int) -> str:
    """Who won and the human's reward (R10), once the game is over."""
    reward = core.returns(state)[human]
    if state.truncated:
        outcome = "a draw: the turn limit was reached (R7)"
    elif not state.winners:
        outcome = "a draw"
    else:
        winners = [names[seat] for seat in state.winners]
        outcome = f"{_listing(winners)} {'win' if winners == [YOU] or len(winners) > 1 else 'wins'}"
        outcome += " the match" if state.config.match else " the hand"
    return f"result: {outcome}; your reward {reward:+g}"


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog=PROG, description="Play Trash in the terminal against agents; you see only public information (R2)."
    )
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=["greedy"],
        metavar="AGENT",
        help="agent specs for the other seats in seat order, the last repeated (default: greedy)",
    )
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0, plays first)")
    parser.add_argument("--preset", default="standard", choices=sorted(PRESETS), help="rules preset (R11)")
    parser.add_argument("--num-players", type=int, default=None, help="default: 1 + the number of opponents")
    parser.add_argument("--match", action="store_true", help="play a match of hands (R9) instead of one hand")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deal and the agents (default 0)")
    return parser


def setup(args: argparse.Namespace) -> tuple[RulesConfig, list[Agent | None]]:
    """The configuration and the seats (``None`` for the human); a ``ValueError`` says what is wrong."""
    if args.seed < 0:
        raise ValueError(f"--seed must be a non-negative integer, got {args.seed}")
    num_players = args.num_players if args.num_players is not None else 1 + len(args.opponents)
    config = make_config(args.preset, num_players=num_players, match=args.match)
    if len(args.opponents) > num_players - 1:
        raise ValueError(f"{len(args.opponents)} opponents named for {num_players - 1} other seat(s)")
    if not 0 <= args.seat < num_players:
        raise ValueError(
            f"--seat {args.seat} is out of range: seats are 0..{num_players - 1} with {num_players} players"
        )
    specs = args.opponents + [args.opponents[-1]] * (num_players - 1 - len(args.opponents))
    agents: list[Agent | None] = [make_agent(spec) for spec in specs]
    for agent in agents:
        agent.check_config(config)
    agents.insert(args.seat, None)
    return config, agents


def main(argv: Sequence[str] | None = None, input_fn: Callable[[str], str] = input, out: TextIO | None = None) -> int:
    """The command line; all game output goes to ``out`` (default: standard output), errors to stderr."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exit_:  # argparse has printed its message (bad option or value, or --help)
        return exit_.code if isinstance(exit_.code, int) else 2
    try:
        config, agents = setup(args)
    except ValueError as error:
        return fail(PROG, error)
    return play(config, agents, args.seed, input_fn, out)


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except BrokenPipeError:  # the reader went away (`... | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(0) from None
