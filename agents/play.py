"""Play Trash or Help Your Neighbor against the agents, in the terminal or in the browser:
``python -m agents.play`` (or ``trash-play``).

    python -m agents.play                                   # you (seat 0) against greedy, one standard hand
    python -m agents.play --opponents counter --seat 1      # counter plays first
    python -m agents.play --opponents greedy search:samples=8 counter --preset pagat
    python -m agents.play --match --seed 7                  # a match of hands (R9)
    python -m agents.play --game help_your_neighbor         # the dice game (R12) against heuristic
    python -m agents.play --web                             # the same in the browser (agents.web)

Options:

- ``--game NAME``: ``trash`` (default) or ``help_your_neighbor`` (R12).
- ``--opponents AGENT [AGENT ...]``: agent specs for the other seats in seat order
  (Trash: random, greedy, counter, search, with options as ``search:samples=8``;
  Help Your Neighbor: random, heuristic, optimal; or a policy file); if fewer are
  given than there are other seats, the last is repeated. Default: ``greedy``
  (Trash), ``heuristic`` (Help Your Neighbor).
- ``--num-players N``: default 1 + the number of opponents named.
- ``--seat S``: your seat, 0-based (default 0; seat 0 plays first, R3, R12).
- ``--preset NAME``: a rules preset of R11 (default ``standard``); ``--match``
  plays a match of hands (R9) instead of one hand. Trash only: given with
  ``--game help_your_neighbor`` they are an argument error.
- ``--seed N``: the same seed deals the same cards (rolls the same dice) and makes
  the agents decide the same.
- ``--web``: serve the game in the browser instead (:mod:`agents.web`, the ``web``
  extra) on ``--host`` (default 127.0.0.1) and ``--port`` (default 0: a free port);
  the URL is printed on one line. Each "New game" there takes the next seed.

Forced moves (R13, R14) are played for everyone, you included, and every move of
every seat is shown as one line (``player_1 (greedy) draws 7``, ``you roll 8 and
cover it``). You see only public information (R2): face-down cards are ``##`` and
the stock is a count (Help Your Neighbor hides nothing; ``##`` is a covered marker).
At each real choice the table and a menu of the legal moves are shown with their
action numbers (R13, R14); enter a number, or an alias (Trash: ``d`` draw, ``t``
take the discard, ``x`` discard; Help Your Neighbor: ``r`` roll again, ``e`` end
the turn), ``?`` or ``h`` (help: show the table and menu again), ``q`` (quit).
End of input and Ctrl-C also leave the game. Exit codes: 0 after a game or a
quit, 2 for bad arguments, 130 after Ctrl-C (the web server: 128 + the signal
that stopped it).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from agents.base import Agent, SeatView
from agents.registry import make_agent
from trash_env import core, neighbor
from trash_env.cli import ArgumentParser, fail
from trash_env.config import PRESETS, RulesConfig
from trash_env.core import DISCARD, DRAW_STOCK, FACE_DOWN, OVER, PLACE_SLOT_0, RANK_NAMES, TAKE_DISCARD, GameState
from trash_env.games import GAMES, NEIGHBOR, TRASH, Game, game_of
from trash_env.neighbor import END_TURN, NOBODY, ROLL_DICE, SEVEN, TOTALS, UNCOVER, UNCOVER_0, NeighborState

PROG = "trash-play"
PROMPT = "your move> "
ALIASES = {"d": DRAW_STOCK, "t": TAKE_DISCARD, "x": DISCARD}
NEIGHBOR_ALIASES = {"r": ROLL_DICE, "e": END_TURN}
HELP_WORDS = ("?", "h", "help")
QUIT_WORDS = ("q", "quit", "exit")
YOU = "you"
DEFAULT_OPPONENT = {"trash": "greedy", "help_your_neighbor": "heuristic"}


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
        outcome = f"{_listing(winners)} {'win' if winners == [YOU] or len(winners) > 1 else 'wins'}"
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
    aliases: dict[str, int]
    legend: str  # how the text table shows what is hidden or covered
    turn_of: Callable[[Any], tuple[int, ...]]  # changes exactly when a turn ends


NARRATORS: dict[str, Narrator] = {
    "trash": Narrator(
        TRASH,
        describe_config,
        choice_text,
        apply_and_describe,
        result_text,
        ALIASES,
        "Face-down cards show as ##, a wild card in a slot as K*; forced moves are played for you.",
        lambda state: (state.hand, state.turn),
    ),
    "help_your_neighbor": Narrator(
        NEIGHBOR,
        neighbor_describe_config,
        neighbor_choice_text,
        neighbor_apply_and_describe,
        neighbor_result_text,
        NEIGHBOR_ALIASES,
        "Covered markers show as ##; forced moves (every turn's first roll) are played for you.",
        lambda state: (state.turn,),
    ),
}


def narrator_of(config: Any) -> Narrator:
    """The narrator of the game ``config`` belongs to."""
    return NARRATORS[game_of(config).name]


class Table:
    """One game between the human (the seat whose agent is ``None``) and agents, on its rules core:
    the state, the generators (:func:`game_rng`, :func:`agent_rng`) and the narration of each move.
    The terminal and the browser front-ends (:mod:`agents.web`) both play through it.
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
        others = _listing([name for name in self.names if name != YOU])
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
        """Apply a legal action of the seat to act; what happened, one line per event."""
        return self.narrator.apply_and_describe(self.state, action, self.rng, self.names)

    def text(self) -> str:
        """The public table as text."""
        return self.game.render(self.state, self.names)

    def choice_text(self, action: int) -> str:
        return self.narrator.choice_text(self.state, action)

    def result_text(self) -> str:
        return self.narrator.result_text(self.state, self.names, self.human)


# --------------------------------------------------------------------------
# The terminal


def show_choice(table: Table, legal: Sequence[int], out: TextIO) -> None:
    """The table and the numbered menu of legal moves (R13, R14 action numbers)."""
    print(table.text(), file=out)
    print("your moves:", file=out)
    for action in legal:
        print(f"  {action:>2}  {table.choice_text(action)}", file=out)
    aliases = ", ".join(f"{key} = {action}" for key, action in table.narrator.aliases.items() if action in legal)
    print(f"enter a number{f' ({aliases})' if aliases else ''}, ? for help, q to quit", file=out)


def _hint(text: str, legal: Sequence[int], aliases: dict[str, int]) -> str:
    alias = {action: key for key, action in aliases.items()}
    numbers = [f"{action} ({alias[action]})" if action in alias else str(action) for action in legal]
    choices = _listing(numbers, "or")
    if not text:
        problem = "enter a move"
    elif text.isdigit() or text in aliases:
        problem = f"{text} is not a legal move now"
    else:
        problem = f"{text!r} is not a move"
    return f"{problem}: choose {choices} (? shows the moves again, q quits)"


def ask_human(table: Table, input_fn: Callable[[str], str], out: TextIO) -> int | None:
    """The human's move at a real choice; ``None`` to quit. ``EOFError`` from ``input_fn`` propagates."""
    legal = table.legal_actions()
    aliases = table.narrator.aliases
    show_choice(table, legal, out)
    while True:
        print(PROMPT, end="", file=out, flush=True)
        text = input_fn("").strip().lower()
        if text in QUIT_WORDS:
            return None
        if text in HELP_WORDS:
            print(file=out)
            show_choice(table, legal, out)
            continue
        action = aliases.get(text, int(text) if text.isdigit() else None)
        if action in legal:
            return action
        print(_hint(text, legal, aliases), file=out)


def play(
    config: Any,
    agents: Sequence[Agent | None],
    seed: int = 0,
    input_fn: Callable[[str], str] = input,
    out: TextIO | None = None,
    deal: Any = None,
) -> int:
    """Play one game (Trash or Help Your Neighbor, by ``config``) with the human in the seat whose
    agent is ``None``; 0 when it ends or on a quit, 130 on Ctrl-C. ``deal`` stacks the first deal
    (a deck, R3; dice, R12) instead of drawing it from the seed."""
    out = sys.stdout if out is None else out
    table = Table(config, agents, seed, deal)
    print(table.introduction(), file=out)
    print(table.narrator.legend, file=out)
    blank = False  # whether the last line printed is blank
    try:
        while not table.over:
            turn = table.narrator.turn_of(table.state)
            if table.waiting:
                if not blank:
                    print(file=out)
                action = ask_human(table, input_fn, out)
                if action is None:
                    print("you left the game.", file=out)
                    return 0
            else:
                action = table.automatic_action()
            for line in table.apply(action):
                print(line, file=out)
                blank = False
            if not table.over and table.narrator.turn_of(table.state) != turn:
                print(file=out)  # a blank line between turns
                blank = True
    except EOFError:
        print("\nend of input: you left the game.", file=out)
        return 0
    except KeyboardInterrupt:
        print("\ninterrupted: you left the game.", file=out)
        return 130
    print(file=out)
    print(table.text(), file=out)
    print(table.result_text(), file=out)
    return 0


# --------------------------------------------------------------------------
# The command line


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog=PROG,
        description="Play Trash or Help Your Neighbor against agents, in the terminal or in the browser (--web); "
        "you see only public information (R2).",
    )
    parser.add_argument(
        "--game", default="trash", choices=sorted(GAMES), help="the game (default trash; help_your_neighbor: R12)"
    )
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=None,
        metavar="AGENT",
        help="agent specs for the other seats in seat order, the last repeated "
        "(default: greedy for Trash, heuristic for Help Your Neighbor)",
    )
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0, plays first)")
    parser.add_argument(
        "--preset", default=None, choices=sorted(PRESETS), help="rules preset (R11, Trash only; default standard)"
    )
    parser.add_argument("--num-players", type=int, default=None, help="default: 1 + the number of opponents")
    parser.add_argument(
        "--match", action="store_true", help="play a match of hands (R9) instead of one hand (Trash only)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the deal and the agents (default 0)")
    web = parser.add_argument_group("play in the browser (the web extra)")
    web.add_argument("--web", action="store_true", help="serve the game as a web page instead of the terminal")
    web.add_argument("--host", default=None, help="the address to listen on (default 127.0.0.1: this machine only)")
    web.add_argument("--port", type=int, default=None, help="the port (default 0: a free one, printed)")
    return parser


def setup(args: argparse.Namespace) -> tuple[Any, list[Agent | None]]:
    """The configuration and the seats (``None`` for the human); a ``ValueError`` says what is wrong."""
    game = GAMES[args.game]
    if game is not TRASH:
        for flag, given in (("--preset", args.preset is not None), ("--match", args.match)):
            if given:
                raise ValueError(f"{flag} is an option of Trash (R9, R11); {game.name} has no presets or matches")
    if not args.web and (args.host is not None or args.port is not None):
        raise ValueError("--host and --port are options of --web")
    if args.port is not None and not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be 0 (a free port) to 65535, got {args.port}")
    if args.seed < 0:
        raise ValueError(f"--seed must be a non-negative integer, got {args.seed}")
    opponents = args.opponents or [DEFAULT_OPPONENT[game.name]]
    num_players = args.num_players if args.num_players is not None else 1 + len(opponents)
    if game is TRASH:
        config = game.make_config(args.preset or "standard", num_players=num_players, match=args.match)
    else:
        config = game.make_config(num_players=num_players)
    if len(opponents) > num_players - 1:
        raise ValueError(f"{len(opponents)} opponents named for {num_players - 1} other seat(s)")
    if not 0 <= args.seat < num_players:
        raise ValueError(
            f"--seat {args.seat} is out of range: seats are 0..{num_players - 1} with {num_players} players"
        )
    specs = opponents + [opponents[-1]] * (num_players - 1 - len(opponents))
    agents: list[Agent | None] = [make_agent(spec, game.name) for spec in specs]
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
    if args.web:
        try:
            from agents import web
        except ImportError as error:
            missing = f" ({error.name.partition('.')[0]} is not installed)" if error.name else ""
            return fail(PROG, f"--web needs the web extra: pip install 'trash-rl[web]'{missing}")
        return web.serve(config, agents, args.seed, args.host or web.DEFAULT_HOST, args.port or 0, out)
    return play(config, agents, args.seed, input_fn, out)


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except BrokenPipeError:  # the reader went away (`... | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(0) from None
