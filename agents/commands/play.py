"""Play Trash or Help Your Neighbor against the agents, in the terminal or in the browser:
``trash-play`` (or ``python -m agents.commands.play``).

    trash-play                                   # you (seat 0) against greedy, one standard hand
    trash-play --opponents counter --seat 1      # counter plays first
    trash-play --opponents greedy search:samples=8 counter --preset pagat
    trash-play --match --seed 7                  # a match of hands (R9)
    trash-play --game help_your_neighbor         # the dice game (R12) against heuristic
    trash-play --web                             # the same in the browser (agents.commands.web.server)
    trash-play --rules R9                        # the rule book's section R9 (--rules alone: all of it)

Options:

- ``--game NAME``: ``trash`` (default) or ``help_your_neighbor`` (R12).
- ``--opponents AGENT [AGENT ...]``: agent specs for the other seats in seat order
  (Trash: random, greedy, counter, search, with options as ``search:samples=8``;
  Help Your Neighbor: random, heuristic, roller, optimal; or a policy file); if fewer are
  given than there are other seats, the last is repeated. Default: ``greedy``
  (Trash), ``heuristic`` (Help Your Neighbor).
- ``--num-players N``: default 1 + the number of opponents named.
- ``--seat S``: your seat, 0-based (default 0; seat 0 plays first, R3, R12).
- ``--preset NAME``: a rules preset of R11 (default ``standard``); ``--match``
  plays a match of hands (R9) instead of one hand. Trash only: given with
  ``--game help_your_neighbor`` they are an argument error.
- ``--override FIELD=VALUE``: a rules field on top of the preset, repeatable (``--override
  layout_size=8``), as every command that takes rules spells it.
- ``--seed N``: the same seed deals the same cards (rolls the same dice) and makes
  the agents decide the same.
- ``--rules [SECTION]``: print the rule book installed with the package (``trash_env/RULES.md``), or
  one section of it (``R1`` to ``R15``), and exit.
- ``--web``: serve the game in the browser instead (:mod:`agents.commands.web.server`, the ``web``
  extra) on ``--host`` (default 127.0.0.1) and ``--port`` (default 0: a free port);
  the URL is printed on one line. Each "New game" there takes the next seed.

Forced moves (R13, R14) are played for everyone, you included, and every move of
every seat is shown as one line (``player_1 (greedy) draws 7``, ``you roll 8 and
cover it``). You see only public information (R2): face-down cards are ``##`` and
the stock is a count (Help Your Neighbor hides nothing; ``##`` is a covered marker).
At each real choice the table and a menu of the legal moves are shown, each by what to type for
it, as a player names the move: Trash ``draw`` (``d``), ``take`` (``t``), ``discard`` (``x``) and a
slot by its rank (``3`` places the held card in the Three's place; ``K 3``, ``place 3`` say the
same; ``A`` or ``1`` the Ace's); Help Your Neighbor ``roll`` (``r``), ``end`` (``e``) and a total to
uncover after a 7 (``8``). ``#N`` plays action number N (R13, R14). ``?``, ``h`` or ``help`` explain
the moves, then show the table and the menu again; ``q`` quits. When a hand ends (the game, or a
hand of a match) the table is shown with every face-down card laid open, in brackets (``(7)``).

At the end of a game you are asked whether to play again: ``n`` another hand (or,
after a match, another match), ``m`` a match of hands (R9), ``o`` one hand (after a
match), ``q`` quit; Enter plays the same again (Help Your Neighbor: ``n`` or Enter
another game, ``q`` quit). Each new game is dealt from the next seed (``--seed``,
then ``--seed`` + 1, ...). End of input and Ctrl-C leave the game at any prompt.
Exit codes: 0 after a game, a quit or the end of input, 2 for bad arguments, 130
after Ctrl-C (the web server: 128 + the signal that stopped it).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from agents.arguments import (
    ArgumentParser,
    add_override_flag,
    add_threads_flag,
    fail,
    presets,
    program_name,
    rules_config,
    shipped_epilog,
)
from agents.base import Agent
from agents.commands.table import Table, listing
from agents.processes import set_threads
from agents.registry import make_agent
from trash_env import rulebook
from trash_env.extras import needs_extra, top_module
from trash_env.games import GAMES, game_of

COMMAND = "trash-play"
PROMPT = "your move> "
AGAIN_PROMPT = "play again> "
HELP_WORDS = ("?", "h", "help")
QUIT_WORDS = ("q", "quit", "exit")
ANOTHER, HAND, MATCH = "another", "hand", "match"  # the answers at the end of a game, besides quitting
AGAIN_WORDS = {  # what may be typed at AGAIN_PROMPT; Enter (an empty line) is ANOTHER
    **dict.fromkeys(("n", "new", "another", "again", "y", "yes"), ANOTHER),
    **dict.fromkeys(("o", "one", "hand"), HAND),
    **dict.fromkeys(("m", "match"), MATCH),
}
FINISHED, LEFT, INTERRUPTED = "finished", "left", "interrupted"  # how one game ends, for the loop over games


def show_choice(table: Table, legal: Sequence[int], out: TextIO) -> None:
    """The table and the menu of legal moves, each by the word to type for it (R13, R14)."""
    print(table.text(), file=out)
    print("your moves:", file=out)
    width = max(len(table.move_word(action)) for action in legal)
    for action in legal:
        print(f"  {table.move_word(action):<{width}}  {table.choice_text(action)}", file=out)
    print("type a move as listed, ? for help, q to quit", file=out)


def _hint(table: Table, problem: str) -> str:
    choices = listing([table.move_word(action) for action in table.legal_actions()], "or")
    return f"{problem}: choose {choices} (? shows the moves again, q quits)"


def ask_human(table: Table, input_fn: Callable[[str], str], out: TextIO) -> int | None:
    """The human's move at a real choice; ``None`` to quit. ``EOFError`` from ``input_fn`` propagates.
    Help (``?``) prints the game's help (its narrator's), then the table and the menu again."""
    legal = table.legal_actions()
    show_choice(table, legal, out)
    while True:
        print(PROMPT, end="", file=out, flush=True)
        text = input_fn("").strip()
        if text.lower() in QUIT_WORDS:
            return None
        if text.lower() in HELP_WORDS:
            print(file=out)
            print(table.narrator.help, file=out)
            print(file=out)
            show_choice(table, legal, out)
            continue
        try:
            return table.read_move(text)
        except ValueError as problem:
            print(_hint(table, str(problem)), file=out)


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
    (a deck, R3; dice, R12) instead of drawing it from the seed. :func:`play_games` plays one game
    after another, as the command does."""
    ended = _play_one(config, agents, seed, input_fn, sys.stdout if out is None else out, deal)
    return 130 if ended == INTERRUPTED else 0


def _play_one(
    config: Any, agents: Sequence[Agent | None], seed: int, input_fn: Callable[[str], str], out: TextIO, deal: Any
) -> str:
    """One game, printed to ``out``: :data:`FINISHED` at its end, :data:`LEFT` after a quit or the end
    of input, :data:`INTERRUPTED` after Ctrl-C."""
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
                    return LEFT
            else:
                action = table.automatic_action()
            for line in table.apply(action):
                print(line, file=out)
                blank = False
            if table.ended_hand is not None:  # a hand of a match is over: its layouts laid open
                print("the layouts as the hand ended:", file=out)
                print(table.revealed_text(table.ended_hand), file=out)
            if not table.over and table.narrator.turn_of(table.state) != turn:
                print(file=out)  # a blank line between turns
                blank = True
    except EOFError:
        print("\nend of input: you left the game.", file=out)
        return LEFT
    except KeyboardInterrupt:
        print("\ninterrupted: you left the game.", file=out)
        return INTERRUPTED
    print(file=out)
    print(table.revealed_text(), file=out)  # the game is over: every face-down card shown
    print(table.result_text(), file=out)
    return FINISHED


def with_match(config: Any, match: bool) -> Any:
    """``config`` playing a match of hands (R9) or one hand: the same rules otherwise, and the turn
    limit of the new kind (R7; the play command never sets one of its own)."""
    return dataclasses.replace(config, match=match, max_turns=None)


def again_choices(config: Any) -> dict[str, str]:
    """What each answer at the end of a game of ``config`` does: key -> description, for the question."""
    if not game_of(config).matches:
        return {"n": "another game", "q": "quit"}
    if config.match:
        return {"n": "another match", "o": "one hand", "q": "quit"}
    return {"n": "another hand", "m": "a match of hands (R9)", "q": "quit"}


def ask_again(config: Any, input_fn: Callable[[str], str], out: TextIO) -> Any:
    """At the end of a game: the configuration of the next one (another of the same kind, or a
    hand or a match of the same rules, R9), or ``None`` to quit. ``EOFError`` and
    ``KeyboardInterrupt`` from ``input_fn`` propagate."""
    offered = again_choices(config)
    question = ", ".join(f"{key} = {what}" for key, what in offered.items())
    print(f"\nplay again? {question}; Enter: {offered['n']}", file=out)
    while True:
        print(AGAIN_PROMPT, end="", file=out, flush=True)
        text = input_fn("").strip().lower()
        if text in QUIT_WORDS:
            return None
        answer = ANOTHER if not text else AGAIN_WORDS.get(text)
        if answer == ANOTHER:
            return config
        if answer == HAND and "o" in offered:
            return with_match(config, False)
        if answer == MATCH and "m" in offered:
            return with_match(config, True)
        if text in HELP_WORDS:
            print(f"the game is over: {question}; Enter: {offered['n']}. The next game is dealt from", file=out)
            print("the next seed; the end of input (Ctrl-D) and Ctrl-C leave as q does.", file=out)
            continue
        keys = listing([f"{key} ({what})" for key, what in offered.items()], "or")
        print(f"{text!r} is not an answer here: choose {keys}, or Enter for {offered['n']}", file=out)


def play_games(
    config: Any,
    agents: Sequence[Agent | None],
    seed: int = 0,
    input_fn: Callable[[str], str] = input,
    out: TextIO | None = None,
    deal: Any = None,
) -> int:
    """Play games one after another, as ``trash-play`` does: after each, the human chooses another
    game, a hand or a match (R9, Trash) or to quit (:func:`ask_again`); game ``k`` (from 1) is
    dealt from ``seed + k - 1`` (``deal`` stacks the first). 0 after a quit or the end of input,
    130 after Ctrl-C."""
    out = sys.stdout if out is None else out
    number = 1
    while True:
        ended = _play_one(config, agents, seed + number - 1, input_fn, out, deal if number == 1 else None)
        if ended != FINISHED:
            return 130 if ended == INTERRUPTED else 0
        while True:
            try:
                chosen = ask_again(config, input_fn, out)
            except EOFError:
                print("\nend of input: you left the game.", file=out)
                return 0
            except KeyboardInterrupt:
                print("\ninterrupted: you left the game.", file=out)
                return 130
            if chosen is None:
                print("you left the game.", file=out)
                return 0
            try:
                for agent in agents:
                    if agent is not None:
                        agent.check_config(chosen)  # a policy trained on hands cannot play a match
            except ValueError as error:
                print(f"cannot play that: {error}", file=out)
                continue
            break
        config = chosen
        number += 1
        print(f"\n--- game {number} ---", file=out)


# --------------------------------------------------------------------------
# The command line


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog=program_name(COMMAND),
        description="Play Trash or Help Your Neighbor against agents, in the terminal or in the browser (--web); "
        "you see only public information (R2).",
        epilog=shipped_epilog(),
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
        "--preset", default=None, choices=presets(), help="rules preset (R11, Trash only; default standard)"
    )
    parser.add_argument("--num-players", type=int, default=None, help="default: 1 + the number of opponents")
    parser.add_argument(
        "--match", action="store_true", help="play a match of hands (R9) instead of one hand (Trash only)"
    )
    add_override_flag(parser)
    parser.add_argument("--seed", type=int, default=0, help="seed of the deal and the agents (default 0)")
    parser.add_argument(
        "--rules",
        nargs="?",
        const="",
        default=None,
        metavar="SECTION",
        help="print the rule book (or one section of it, R1 to R15: --rules R9) and exit",
    )
    add_threads_flag(parser)
    web = parser.add_argument_group("play in the browser (the web extra)")
    web.add_argument("--web", action="store_true", help="serve the game as a web page instead of the terminal")
    web.add_argument("--host", default=None, help="the address to listen on (default 127.0.0.1: this machine only)")
    web.add_argument("--port", type=int, default=None, help="the port (default 0: a free one, printed)")
    return parser


def setup(args: argparse.Namespace) -> tuple[Any, list[Agent | None]]:
    """The configuration and the seats (``None`` for the human); a ``ValueError`` says what is wrong."""
    game = GAMES[args.game]
    offered = {"--preset": (args.preset is not None, len(game.presets) > 1), "--match": (args.match, game.matches)}
    for flag, (given, has) in offered.items():
        if given and not has:
            raise ValueError(f"{flag} is an option of Trash (R9, R11); {game.name} has no presets or matches")
    if not args.web and (args.host is not None or args.port is not None):
        raise ValueError("--host and --port are options of --web")
    if args.port is not None and not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be 0 (a free port) to 65535, got {args.port}")
    if args.seed < 0:
        raise ValueError(f"--seed must be a non-negative integer, got {args.seed}")
    opponents = args.opponents or [game.default_opponent]
    num_players = args.num_players if args.num_players is not None else 1 + len(opponents)
    config = rules_config(game.name, args.preset or "standard", num_players, args.match, args.override)
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
    if args.rules is not None:
        try:
            print(rulebook.section(args.rules) if args.rules else rulebook.rule_book(), end="", file=out)
        except ValueError as error:
            return fail(program_name(COMMAND), error)
        return 0
    try:
        set_threads(args.threads)
        config, agents = setup(args)
    except ValueError as error:
        return fail(program_name(COMMAND), error)
    if args.web:
        try:
            from agents.commands.web import server as web
        except ImportError as error:
            return fail(program_name(COMMAND), needs_extra("--web", "web", top_module(error.name) or None))
        return web.serve(config, agents, args.seed, args.host or web.DEFAULT_HOST, args.port or 0, out)
    return play_games(config, agents, args.seed, input_fn, out)


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except BrokenPipeError:  # the reader went away (`... | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(0) from None
