"""The terminal game ``agents.commands.play``: menus and input handling, the narration of
every move, public information only (R2), the result (R10), argument errors.

Games are driven through ``main``/``play`` with a scripted ``input_fn`` and a
``StringIO`` as ``out``; stacked decks (tests/helpers/decks.py, R3) make the narrated
moves exact.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.decks import stacked_deck
from helpers.play import ALL, HYN, Script, choices, first_game, last_menu, lines_in_order, run, unseen_moved

from agents.baselines import GreedyAgent
from agents.commands import play
from agents.commands import table as play_table
from trash_env.games import get_game
from trash_env.trash import narration
from trash_env.trash import rules as trash
from trash_env.trash.config import make_config
from trash_env.trash.text import render_table

ROOT = Path(__file__).resolve().parents[2]
J, Q, K = 11, 12, 13


# --------------------------------------------------------------------------
# Input handling


def test_invalid_input_gets_a_hint_and_the_prompt_again_then_the_game_is_played_out() -> None:
    """An empty line, text, a number that names no move, an illegal action number and ``?`` never
    crash: each gets a one-line hint (``?`` the menu again) and the prompt repeats; answering the
    lowest legal move from then on plays the hand to its end (R8), with the result (R10)."""
    code, text, script = run(["--seed", "0"], ["", "hello", "99", "ILLEGAL", "?"], autoplay=ALL)
    assert code == 0
    first_menu = text.split(play.PROMPT, 1)[0]
    illegal = min(set(range(trash.NUM_ACTIONS)) - set(last_menu(first_menu)))
    prompts = text.split(play.PROMPT)
    # After each of the first four answers, the hint is the whole next line, then the prompt.
    hints = [prompts[i].splitlines()[0] for i in range(1, 5)]
    assert hints[0].startswith("enter a move: choose ")
    assert hints[1].startswith("'hello' is not a move: choose ")
    assert hints[2].startswith("'99' is not a move: choose ")
    assert hints[3].startswith(f"#{illegal} is not a legal move now: choose ")
    assert all("? shows the moves again, q quits" in hint for hint in hints)
    # ``?`` shows the table and the same menu again before the next prompt.
    assert "your moves:" in prompts[5]
    assert last_menu(prompts[5]) == last_menu(first_menu)
    assert script.calls > 6
    game = first_game(text)
    tail = game.rstrip().splitlines()
    assert re.fullmatch(r"result: (.+ wins? the hand|a draw.*); your reward [+-][01]", tail[-1]), tail[-1]
    assert "-- over:" in game.rsplit("\n\n", 1)[1]  # the final table
    # Then the question after the game, whose end of input leaves cleanly.
    assert script.questions == 1
    assert text.rstrip().endswith(play.AGAIN_PROMPT + "\nend of input: you left the game.")


def test_draw_take_and_discard_by_name_where_legal() -> None:
    """``d`` and ``t`` (``draw``, ``take``) are refused with a hint where they are not legal: seed 1
    opens with a King to place (no draw choice, R4); ``x`` (``discard``) discards it (R13)."""
    code, text, _ = run(["--seed", "1"], ["d", "take", "x"])
    assert code == 0
    assert "d is not a legal move now: choose A, 2, 3, 4, 5, 6, 7, 8, 9, 10 or discard (? shows" in text
    assert "take is not a legal move now" in text
    assert "you discard K" in text


@pytest.mark.parametrize("typed", ["3", "K 3", "k 3", "place 3", "slot 3", "p 3", "#4"])
def test_a_slot_is_named_by_its_rank_with_or_without_the_card_held(typed: str) -> None:
    """Seed 1 opens with a wild King to place (R6): ``3``, ``K 3``, ``place 3`` and ``#4`` (action 4,
    R13) all put it in the Three's slot, the one a person calls the 3."""
    code, text, _ = run(["--seed", "1"], [typed])
    assert code == 0
    assert "you place K in the 3's slot and turn up " in text


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("Q 3", "you hold K, not Q: choose A, 2"),
        ("11", "'11' is not a move: choose A, 2"),
        ("#13", "#13 is not a legal move now"),
        ("place", "'place' is not a move"),
        ("3 4", "you hold K, not 3"),
        ("draw 3", "'draw 3' is not a move"),
    ],
)
def test_what_names_no_legal_move_is_refused_with_a_hint(typed: str, said: str) -> None:
    code, text, _ = run(["--seed", "1"], [typed])
    assert code == 0
    assert said in text and "you place K" not in text


def test_the_ace_slot_is_a_or_1() -> None:
    for typed in ("A", "a", "1", "K 1"):
        assert "you place K in the A's slot" in run(["--seed", "1"], [typed])[1]


def test_eof_at_the_first_prompt_leaves_cleanly() -> None:
    """End of input at the first prompt ends the program with a message and exit code 0."""
    code, text, script = run(["--seed", "0"])
    assert code == 0
    assert script.calls == 1
    assert text.rstrip().endswith("end of input: you left the game.")


GAMES = pytest.mark.parametrize("game", [[], HYN], ids=["trash", "help_your_neighbor"])


@GAMES
@pytest.mark.parametrize("word", ["q", "quit", " Q "])
def test_quit(word: str, game: list[str]) -> None:
    """``q`` or ``quit`` (any case, spaces ignored) leaves the game with exit code 0, in either game."""
    code, text, _ = run([*game, "--seed", "0"], [word])
    assert code == 0
    assert text.rstrip().endswith("you left the game.")
    assert "result:" not in text


@GAMES
def test_ctrl_c_leaves_cleanly(game: list[str]) -> None:
    """Ctrl-C at the prompt prints a message and returns 130 instead of a traceback, in either game."""

    def interrupt(prompt: str = "") -> str:
        raise KeyboardInterrupt

    out = io.StringIO()
    assert play.main([*game, "--seed", "0"], input_fn=interrupt, out=out) == 130
    assert out.getvalue().rstrip().endswith("interrupted: you left the game.")


@GAMES
@pytest.mark.parametrize("word", ["?", "h", "help"])
def test_help_explains_the_moves_then_shows_the_table_and_menu_again(word: str, game: list[str]) -> None:
    """``?``, ``h`` and ``help`` print the game's help: its rule section of the moves (R13 or R14),
    every word a move is typed as, the action numbers, how to ask for help and how to quit; then the
    table and the same menu again, and the prompt. Nothing is played meanwhile."""
    code, text, script = run([*game, "--seed", "0"], [word, "q"])
    assert code == 0 and script.calls == 2
    before, after, last = text.split(play.PROMPT)
    name = "help_your_neighbor" if game else "trash"
    help_text = get_game(name).narrator.help
    table_and_menu = before[before.rindex("\n\n") + 2 :]  # what the first prompt followed
    assert after == "\n" + help_text + "\n\n" + table_and_menu  # nothing else, nothing played
    assert last == "you left the game.\n"
    assert ("the rule book's R14" if game else "the rule book's R13") in help_text
    words = ("roll (or r)", "end (or e)", "2 .. 6, 8 .. 12", "#N") if game else (
        "draw (or d)", "take (or t)", "discard (or x)", "A, 2 .. 10", "K 3", "#N"
    )
    assert all(word in help_text for word in words)
    assert "? (or h, help)" in help_text and "q (or quit, exit)" in help_text


# --------------------------------------------------------------------------
# After a game: another hand, a match, or quit


def games_played(text: str) -> list[str]:
    """The text of each game ``trash-play`` printed, from its introduction to its result."""
    pieces = re.split(r"\n--- game \d+ ---\n", text)
    return [piece.partition("\nplay again? ")[0] for piece in pieces]


def test_after_a_hand_another_hand_then_a_match_each_from_the_next_seed() -> None:
    """At the end of a hand the player is asked (``n`` another hand, ``m`` a match, ``q`` quit):
    ``n`` deals game 2 from the next seed, the very game ``--seed 1`` plays; ``m`` then plays a match
    (R9) of the same rules from seed 2; ``q`` leaves with exit code 0."""
    code, text, script = run(["--seed", "0"], autoplay=ALL, again=["n", "m", "q"])
    assert code == 0 and script.questions == 3
    assert "\nplay again? n = another hand, m = a match of hands (R9), q = quit; Enter: another hand\n" in text
    first, second, third = games_played(text)
    assert first == first_game(run(["--seed", "0"], autoplay=ALL)[1])
    assert second == first_game(run(["--seed", "1"], autoplay=ALL)[1])
    assert third.startswith("Trash: 2 players, 10-card layouts, Kings wild, a match of hands (R9). ")
    assert "; seed 2.\n" in third
    assert re.search(r"^result: .* the match; your reward [+-]1$", third, re.M)
    assert "\nplay again? n = another match, o = one hand, q = quit; Enter: another match\n" in text
    assert text.rstrip().endswith(play.AGAIN_PROMPT + "you left the game.")


def test_after_a_match_enter_plays_another_match_and_o_one_hand() -> None:
    """After a match (R9), Enter plays another match from the next seed and ``o`` one hand of the
    same rules; an answer that is no choice gets a hint, and ``?`` says what the choices are."""
    config = make_config(layout_size=2, match=True)
    out = io.StringIO()
    script = Script(out=out, autoplay=ALL, again=["", "zz", "?", "o"])
    assert play.play_games(config, [None, GreedyAgent()], seed=5, input_fn=script, out=out) == 0
    text = out.getvalue()
    first, second, third = games_played(text)
    assert "a match of hands (R9)" in first and "; seed 5." in first
    assert "a match of hands (R9)" in second and "; seed 6." in second
    assert "2-card layouts, Kings wild, one hand." in third and "; seed 7." in third
    lines_in_order(
        text,
        [
            play.AGAIN_PROMPT + "'zz' is not an answer here: choose n (another match), o (one hand) or q (quit), "
            "or Enter for another match",
            play.AGAIN_PROMPT + "the game is over: n = another match, o = one hand, q = quit; Enter: another match. "
            "The next game is dealt from",
        ],
    )
    assert script.questions == 5  # after each of the three games, and after the two answers that started none
    assert text.rstrip().endswith("end of input: you left the game.")


def test_help_your_neighbor_offers_another_game() -> None:
    """Help Your Neighbor has no matches (R12): the question offers another game or quitting, ``m``
    gets a hint, ``n`` plays game 2 from the next seed; Ctrl-C at the question exits 130."""
    answers = iter(["m", "n"])

    out = io.StringIO()
    script = Script(out=out, autoplay=ALL)

    def answer(prompt: str = "") -> str:
        if out.getvalue().endswith(play.AGAIN_PROMPT):
            try:
                return next(answers)
            except StopIteration:
                raise KeyboardInterrupt from None
        return script(prompt)

    assert play.main([*HYN, "--seed", "5"], input_fn=answer, out=out) == 130
    text = out.getvalue()
    assert "\nplay again? n = another game, q = quit; Enter: another game\n" in text
    assert "'m' is not an answer here: choose n (another game) or q (quit), or Enter for another game" in text
    first, second = games_played(text)
    assert first == first_game(run([*HYN, "--seed", "5"], autoplay=ALL)[1])
    assert second == first_game(run([*HYN, "--seed", "6"], autoplay=ALL)[1])
    assert text.rstrip().endswith("interrupted: you left the game.")


class HandsOnly(GreedyAgent):
    """Greedy, refusing matches as a policy trained on single hands does (``check_config``)."""

    def check_config(self, config: object) -> None:
        super().check_config(config)
        if config.match:
            raise ValueError("policy hands.zip was trained for another configuration (match: trained False)")


def test_a_match_the_opponent_cannot_play_is_refused_at_the_question() -> None:
    """``m`` with an opponent that plays only hands says why and asks again; nothing is dealt."""
    out = io.StringIO()
    script = Script(out=out, autoplay=ALL, again=["m", "q"])
    config = make_config(layout_size=2)
    assert play.play_games(config, [None, HandsOnly()], seed=0, input_fn=script, out=out) == 0
    text = out.getvalue()
    lines_in_order(
        text,
        [
            play.AGAIN_PROMPT + "cannot play that: policy hands.zip was trained for another configuration "
            "(match: trained False)",
            play.AGAIN_PROMPT + "you left the game.",
        ],
    )
    assert "--- game 2 ---" not in text


# --------------------------------------------------------------------------
# Narration of moves


def test_every_move_is_narrated_and_the_menu_names_the_moves() -> None:
    """A stacked deck (R3): you draw a 7 whose slot hides a King (forced, R13), put the
    wild King on the Ace slot (R5, R6) over a Queen, which is discarded; greedy draws a 5
    that turns up a Jack; your Ace may then displace the wild (R5)."""
    config = make_config()
    you = [Q, 2, 3, 4, 5, 6, K, 8, 9, 10]
    greedy = [1, 2, 3, 4, J, 6, 7, 8, 9, 10]
    deck = stacked_deck(config, [you, greedy], stock=[7, 5, 1])
    out = io.StringIO()
    code = play.play(config, [None, GreedyAgent()], input_fn=Script(["A"]), out=out, deal=deck)
    text = out.getvalue()
    assert code == 0
    lines_in_order(
        text,
        [
            "you draw 7",
            "you place 7 and turn up K",
            "  A        place K in the A's slot",
            "  10       place K in the 10's slot",
            "  discard  discard K",
            "type a move as listed, ? for help, q to quit",
            play.PROMPT + "you place K in the A's slot and turn up Q",
            "you discard Q",
            "player_1 (greedy) draws 5",
            "player_1 (greedy) places 5 and turns up J",
            "player_1 (greedy) discards J",
            "you draw A",
            "  A        place A in the A's slot, taking back the K",
            "  discard  discard A",
        ],
    )
    menu = text.split("you place 7", 1)[1].split("your moves:\n", 1)[1].split(play.PROMPT, 1)[0]
    assert "the 7's slot" not in menu and len(menu.splitlines()) == 11  # the 7's slot is filled
    assert re.search(r"^you +> +K\*  ", text, re.MULTILINE)  # the wild on the Ace slot in the table


def test_completion_final_round_and_next_hand_of_a_match_are_narrated() -> None:
    """Two-card layouts in a match (R9): you complete first (R5), the final round (R8)
    follows, greedy takes the discarded Ace (R4) and fails; the hand is yours, your layout
    shrinks to one card and the next hand is dealt to the next seat (starter rotate).
    Played to the end with the lowest legal moves, the match has a winner (R10)."""
    config = make_config(layout_size=2, match=True)
    deck = stacked_deck(config, [[2, 1], [3, 4]], stock=[1])
    out = io.StringIO()
    code = play.play(config, [None, GreedyAgent()], input_fn=Script(out=out, autoplay=ALL), out=out, deal=deck)
    text = out.getvalue()
    assert code == 0
    lines_in_order(
        text,
        [
            "you draw A",
            "you place A and turn up 2",
            "you place 2 and turn up A",
            "you complete the layout! The A goes on the discard pile (R5)",
            "final round: every other player has one more turn (R8)",
            "player_1 (greedy) takes the discard A",
            "player_1 (greedy) places A and turns up 3",
            "player_1 (greedy) discards 3",
            "hand 1 won by you; layout sizes now: you 1, player_1 (greedy) 2",
            "hand 2 is dealt; player_1 (greedy) plays first",
        ],
    )
    assert re.search(r"^result: (you win|player_1 \(greedy\) wins) the match; your reward [+-]1$", text, re.MULTILINE)


def test_a_reshuffle_is_announced_before_the_draw() -> None:
    """R7: drawing from an empty stock first shuffles the discard pile, all but its top card, into
    a new stock, and the narration says so. Rare in play, so the position is made by moving
    the stock onto the discard pile of a fresh deal."""
    config = make_config()
    rng = np.random.default_rng(0)
    state = trash.new_game(config, rng)
    state.discard, state.stock = state.stock[::-1], []
    top = state.discard[-1]
    lines = narration.apply_and_describe(state, trash.DRAW_STOCK, rng, ["you", "player_1 (greedy)"])
    assert lines == [
        "the stock is empty: the discard pile, all but its top card, is shuffled as a new stock (R7)",
        f"you draw {trash.RANK_NAMES[state.held]}",
    ]
    assert state.discard == [top]


def test_a_whole_match_is_narrated_hand_by_hand() -> None:
    """A match (R9) played to its end with the lowest legal moves: every hand's end names
    its winners and the new layout sizes, the first player rotates (hand 3 is yours), the
    result names the match winner (R10), and your moves read in the second person."""
    code, text, _ = run(["--match", "--seed", "2"], autoplay=ALL)
    assert code == 0
    lines_in_order(text, ["hand 2 is dealt; player_1 (greedy) plays first", "hand 3 is dealt; you play first"])
    ends = re.findall(r"^hand (\d+) won by (.+); layout sizes now: you (\d+), player_1 \(greedy\) (\d+)$", text, re.M)
    assert len(ends) >= 9  # the winner's layout shrinks from 10 to 1 before the last hand
    assert [int(hand) for hand, *_ in ends] == list(range(1, len(ends) + 1))  # no drawn hands with this seed
    assert re.search(r"^result: (you win|player_1 \(greedy\) wins) the match; your reward [+-]1$", text, re.M)
    assert not re.search(r"\byou (draws|takes|places|turns|discards|completes|plays|wins)\b", text)


def replayed(config, seed: int) -> play_table.Table:
    """The game ``trash-play`` plays with ``seed`` against greedy when the human always takes the lowest
    legal move (as :class:`Script` does), replayed on its own table; with every hand of a match that
    ended, as it ended."""
    table = play_table.Table(config, [None, GreedyAgent()], seed)
    table.hands_ended = []
    while not table.over:
        table.apply(table.legal_actions()[0] if table.waiting else table.automatic_action())
        if table.ended_hand is not None:
            table.hands_ended.append(table.ended_hand)
    return table


def test_the_end_of_the_game_lays_every_face_down_card_open() -> None:
    """Once the hand is over nothing is hidden any more: the last table shows each face-down card in
    brackets, the very cards under those slots (R2 holds only while the hand is played)."""
    code, text, _ = run(["--seed", "4"], autoplay=ALL)
    assert code == 0
    table = replayed(make_config(), 4)
    state = table.state
    hidden = [state.down[s][i] for s in range(2) for i, v in enumerate(state.up[s]) if v == trash.FACE_DOWN]
    assert hidden, "seed 4's hand should end with face-down cards"
    last = first_game(text).rsplit("\n\n", 1)[1]
    assert table.revealed_text() in last
    shown = re.findall(r"\((A|[2-9]|10|J|Q|K)\)", last)
    assert shown == [trash.RANK_NAMES[card] for card in hidden]
    rows = re.findall(r"^(?:you|player_1 \(greedy\)) +>? +(.*)$", text.split(table.revealed_text())[0], re.M)
    assert rows and not any("(" in row for row in rows)  # no layout showed a face-down card before the end


def test_each_hand_of_a_match_lays_its_layouts_open_as_it_ends() -> None:
    """In a match (R9) every hand that ends shows its layouts, face-down cards open, before the next is
    dealt: the table as the hand ended, with its winner, then the next hand's first moves."""
    code, text, _ = run(["--match", "--seed", "2", "--override", "layout_size=3"], autoplay=ALL)
    assert code == 0
    table = replayed(make_config(match=True, layout_size=3), 2)
    assert len(table.hands_ended) >= 2
    shown = text.split("the layouts as the hand ended:\n")[1:]
    assert len(shown) == len(table.hands_ended)
    for piece, ended in zip(shown, table.hands_ended, strict=True):
        assert piece.startswith(table.revealed_text(ended) + "\n")
        assert "-- over: won by" in piece.splitlines()[0]
        assert not any(value == trash.FACE_DOWN and f"({trash.RANK_NAMES[ended.down[s][i]]})" not in piece
                       for s in range(2) for i, value in enumerate(ended.up[s]))  # fmt: skip


def test_a_game_without_choices_is_played_through() -> None:
    """Seven Up (R11) has only forced moves (R13): the game is narrated to its end
    without a single prompt before the question after it."""
    code, text, script = run(["--preset", "seven_up", "--seed", "3"])
    assert code == 0
    assert script.calls == script.questions == 1
    assert "your moves:" not in text
    assert "result: " in text


def test_opponents_fill_the_other_seats_in_order_repeating_the_last() -> None:
    """``--opponents`` names the other seats in seat order; the last is repeated and the
    number of players defaults to one more than the opponents named."""
    _, text, _ = run(["--opponents", "random", "counter", "--seat", "1"])
    assert text.startswith("Trash: 3 players, 10-card layouts, Kings wild, one hand. You are seat 1 against ")
    assert "against player_0 (random) and player_2 (counter);" in text
    _, text, _ = run(["--num-players", "4", "--opponents", "random"])
    assert "against player_1 (random), player_2 (random) and player_3 (random);" in text


# --------------------------------------------------------------------------
# Public information only (R2)


@pytest.mark.parametrize("human", [0, 1])
@pytest.mark.parametrize("seed", range(4))
def test_nothing_hidden_is_shown_before_your_choices(seed: int, human: int) -> None:
    """R2: at each of your first choices (up to four), everything printed so far is the same when
    the cards still unseen then (face-down slots, the stock) are rearranged so that every
    unseen place holds another rank; and the table shown is the public table, with ``##``
    for face-down cards and the stock as a count."""
    config = make_config()
    deck = trash.shuffled_deck(config, np.random.default_rng([seed, 99]))
    lineup = [GreedyAgent(), GreedyAgent()]
    lineup[human] = None
    states = choices(config, deck, seed, human, count=4)
    assert states
    for k, state in enumerate(states):
        moved = unseen_moved(state, deck)
        texts = []
        for stacked in (deck, moved):
            out = io.StringIO()
            script = Script(out=out, autoplay=k)  # answers k choices, then end of input at the next
            assert play.play(config, lineup, seed, input_fn=script, out=out, deal=stacked) == 0
            texts.append(out.getvalue())
        assert texts[0] == texts[1]
        shown = texts[0].rsplit("your moves:", 1)[0]
        assert shown.rstrip().endswith(render_table(state, play_table.seat_names(lineup)))
        assert f"stock {len(state.stock)} " in shown.rsplit("\n\n", 1)[1]


# --------------------------------------------------------------------------
# Arguments and the command line


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--preset", "nope"], "invalid choice: 'nope'"),
        (["--opponents", "wizard"], "unknown agent 'wizard'"),
        (["--opponents", "search:samples=0"], "search samples must be a positive integer"),
        (["--seat", "5"], "--seat 5 is out of range: seats are 0..1 with 2 players"),
        (["--seat", "-1"], "--seat -1 is out of range"),
        (["--num-players", "9"], "num_players=9 is out of range (2..8)"),
        (["--num-players", "2", "--opponents", "greedy", "counter"], "2 opponents named for 1 other seat(s)"),
        (["--seed", "-1"], "--seed must be a non-negative integer"),
        (["--seed", "x"], "argument --seed: invalid int value: 'x'"),
        (["--opponents"], "argument --opponents: expected at least one argument"),
        ([*HYN, "--preset", "pagat"], "--preset is an option of Trash (R9, R11); help_your_neighbor has no presets"),
        ([*HYN, "--preset", "standard"], "--preset is an option of Trash"),
        ([*HYN, "--match"], "--match is an option of Trash (R9, R11)"),
        ([*HYN, "--opponents", "greedy"], "unknown agent 'greedy' for help_your_neighbor"),
        (["--opponents", "heuristic"], "unknown agent 'heuristic' for trash"),
        ([*HYN, "--num-players", "3", "--opponents", "optimal"], "agent 'optimal' is the solved game of two players"),
        ([*HYN, "--num-players", "9"], "num_players=9 is out of range (2..8)"),
        ([*HYN, "--seat", "2"], "--seat 2 is out of range: seats are 0..1 with 2 players"),
        ([*HYN, "--seed", "-3"], "--seed must be a non-negative integer"),
        (["--game", "chess"], "argument --game: invalid choice: 'chess'"),
        ([*HYN, "--port", "8000"], "--host and --port are options of --web"),
        (["--host", "0.0.0.0"], "--host and --port are options of --web"),
        (["--web", "--port", "70000"], "--port must be 0 (a free port) to 65535, got 70000"),
        (["--web", "--port", "-1"], "--port must be 0 (a free port) to 65535, got -1"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(argv: list[str], message: str, capsys: pytest.CaptureFixture) -> None:
    """Bad presets, configurations, agents and seats, of either game (R9, R11, R12), and --web's
    options end with exit code 2 and a one-line error on stderr (after argparse's usage line for
    its own errors), never a traceback."""
    code, text, script = run(argv)
    err = capsys.readouterr().err
    assert code == 2
    assert script.calls == 0 and text == ""
    last = err.strip().splitlines()[-1]
    assert last.startswith("trash-play: error: ") and message in last, err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "answers", "expected"),
    [
        pytest.param(  # a refused d (seed 1 opens with a King to place), then q
            ["--seed", "1"], "d\nq\n", ["you draw K", "d is not a legal move now"], id="trash"
        ),
        pytest.param(  # a refused x, a roll again, then q
            [*HYN, "--seed", "3"],
            "x\nr\nq\n",
            ["you roll 11 and cover it", "'x' is not a move", "you roll 5 and cover it"],
            id="help_your_neighbor",
        ),
        pytest.param(  # no choices (R13): the question after the game, another hand, then the input ends
            ["--preset", "seven_up", "--seed", "3"],
            "n\n",
            ["play again? n = another hand, m = a match of hands (R9), q = quit; Enter: another hand", "seed 4."],
            id="another-hand-then-end-of-input",
        ),
    ],
)
def test_module_entry_point_with_piped_input(argv: list[str], answers: str, expected: list[str]) -> None:
    """``trash-play`` runs with piped input, in either game: exit code 0, nothing on stderr, the
    moves and refusals narrated, and ``q`` (or the end of the input) leaves."""
    result = subprocess.run(
        [sys.executable, "-m", "agents.commands.play", *argv],
        input=answers,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    for line in expected:
        assert line in result.stdout
    assert result.stdout.rstrip().endswith("you left the game.")
