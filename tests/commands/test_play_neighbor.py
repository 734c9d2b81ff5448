"""The terminal game ``agents.commands.play --game help_your_neighbor`` (R12, R14): the narration of
every roll, the menu and input handling, the result, and the arguments only Trash takes.

Driven like tests/commands/test_play.py: ``main``/``play`` with a scripted ``input_fn`` and a
``StringIO`` as ``out``; stacked dice (R12 rules notes: totals) make the narrated rolls exact.
"""

from __future__ import annotations

import io
import re

from helpers.play import ALL, HYN, Script, first_game, last_menu, lines_in_order, run

from agents.commands import play
from agents.commands import table as play_table
from agents.heuristic import NeighborHeuristic
from trash_env.neighbor import rules as neighbor

HEURISTIC = "player_1 (heuristic)"
PROMPT = re.escape(play.PROMPT)


def test_a_whole_game_is_played_to_its_end_and_the_rolls_narrated_are_the_games() -> None:
    """Answering the lowest legal move (roll again, R14) plays the game to its end (R12): the
    result names the winner and your reward, the final table says who won, every roll is
    narrated once, in the order the rules core rolls them from the same seed."""
    code, text, script = run([*HYN, "--seed", "5"], autoplay=ALL)
    assert code == 0
    assert script.calls > 1
    assert text.startswith(
        "Help Your Neighbor: 2 players, ten markers each, a turn limit of 1000. You are seat 0 against "
        f"{HEURISTIC}; seed 5.\n"
    )
    text = first_game(text)
    tail = text.rstrip().splitlines()
    assert re.fullmatch(rf"result: (you win|{re.escape(HEURISTIC)} wins) the game; your reward [+-]1", tail[-1])
    winner = "you" if tail[-1].startswith("result: you") else HEURISTIC
    verb = "win" if winner == "you" else "wins"
    assert f"{winner} {'cover' if winner == 'you' else 'covers'} all ten markers and {verb} (R12)" in text
    assert f"-- over: won by {winner}" in text.rsplit("\n\n", 1)[1]  # the final table
    # Replay on the core: the human always takes the lowest legal action, as the script did.
    table = play_table.Table(neighbor.make_config(), [None, NeighborHeuristic()], seed=5)
    while not table.over:
        table.apply(table.legal_actions()[0] if table.waiting else table.automatic_action())
    rolls = rf"^(?:{PROMPT})?(?:you roll|player_1 \(heuristic\) rolls) (\d+)"
    narrated = [int(total) for total in re.findall(rolls, text, re.M)]
    assert narrated == table.state.rolls
    assert not re.search(r"\byou (rolls|covers|ends|uncovers|takes|wins)\b", text)


def test_every_kind_of_roll_is_narrated() -> None:
    """Stacked dice: a 7 with nothing covered passes the turn; the roller covers a total; a 7
    with one marker covered forces its uncovering (R14); a total the roller has covered goes to
    the neighbour with it uncovered, who takes the turn (the privilege, R12), you as well as the
    agent; a total nobody can use; ending the turn."""
    config = neighbor.make_config()
    dice = [7, 8, 7, 8, 8, 6, 6, 6]
    out = io.StringIO()
    code = play.play(config, [None, NeighborHeuristic()], input_fn=Script(["r", "e"]), out=out, deal=dice)
    text = out.getvalue()
    assert code == 0
    lines_in_order(
        text,
        [
            f"you roll 7 with no marker covered; the turn passes to {HEURISTIC}",
            f"{HEURISTIC} rolls 8 and covers it",
            f"{HEURISTIC} rolls 7 and must uncover a marker (R12)",
            f"{HEURISTIC} uncovers 8",
            "you roll 8 and cover it",
            "  roll  roll again",
            "  end   end the turn",
            "type a move as listed, ? for help, q to quit",
            play.PROMPT + f"you roll 8: {HEURISTIC} covers it (help your neighbor) and takes the turn",
            f"{HEURISTIC} rolls 6 and covers it",
            f"{HEURISTIC} rolls 6: you cover it (help your neighbor) and take the turn",
            "you roll 6: nobody can use it",
            play.PROMPT + "you end the turn",
        ],
    )
    assert text.rstrip().endswith("end of input: you left the game.")
    # The table before your first choice: your 8 covered (##), the agent's uncovered.
    first = text.split("your moves:", 1)[0]
    assert re.search(r"^you +> +2   3   4   5   6  ##   9  10  11  12  \(9 to cover\)$", first, re.M), first


def test_a_game_cut_off_by_the_turn_limit_is_a_draw() -> None:
    """R12: a game that reaches the turn limit (as R7) is a draw, 0 to everyone."""
    config = neighbor.make_config(max_turns=3)
    out = io.StringIO()
    code = play.play(config, [None, NeighborHeuristic()], seed=1, input_fn=Script(out=out, autoplay=ALL), out=out)
    text = out.getvalue()
    assert code == 0
    assert "the turn limit (3 turns) is reached: the game is a draw (R12)" in text
    assert text.rstrip().endswith("result: a draw: the turn limit was reached (R12); your reward +0")


def test_illegal_entries_are_asked_again() -> None:
    """A total that is not to be uncovered now, a move of Trash, text and ``?`` each get a hint (``?``
    the menu again) and the same prompt; ``q`` then leaves."""
    code, text, script = run([*HYN, "--seed", "3"], ["5", "d", "hello", "", "?", "q"])
    assert code == 0
    assert script.calls == 6
    prompts = text.split(play.PROMPT)
    hints = [prompts[i].splitlines()[0] for i in range(1, 5)]
    assert hints == [
        "5 is not a legal move now: choose roll or end (? shows the moves again, q quits)",
        "'d' is not a move: choose roll or end (? shows the moves again, q quits)",
        "'hello' is not a move: choose roll or end (? shows the moves again, q quits)",
        "enter a move: choose roll or end (? shows the moves again, q quits)",
    ]
    assert last_menu(prompts[5]) == [0, 1]
    assert text.rstrip().endswith("you left the game.")
    assert text.count("you roll") == 1  # no move was made


def test_uncovering_after_a_seven_is_a_menu_of_the_covered_markers() -> None:
    """After a 7 with two markers covered, the menu lists their uncovering (R14 actions 2 + j), each
    by its total: 9 is not covered (not legal), 6 is uncovered by typing 6 (``uncover 2`` or ``#2``
    would have taken the other)."""
    config = neighbor.make_config()
    out = io.StringIO()
    script = Script(["r", "r", "9", "6"], out)  # roll again twice; 9 is not covered, 6 is
    code = play.play(config, [None, NeighborHeuristic()], input_fn=script, out=out, deal=[2, 6, 7])
    text = out.getvalue()
    assert code == 0
    assert "you roll 7 and must uncover a marker (R12)" in text
    after_seven = text.split("must uncover a marker (R12)", 1)[1].split("you uncover 6", 1)[0]
    assert last_menu(after_seven) == [2, 6]
    assert "  2  uncover 2\n  6  uncover 6\n" in after_seven
    lines_in_order(
        text,
        [
            "type a move as listed, ? for help, q to quit",
            play.PROMPT + "9 is not a legal move now: choose 2 or 6 (? shows the moves again, q quits)",
            play.PROMPT + "you uncover 6",
        ],
    )


def test_end_of_input_leaves_cleanly() -> None:
    """(Quitting and Ctrl-C are tested for both games in test_play.py.)"""
    code, text, script = run(HYN)
    assert code == 0 and script.calls == 1
    assert text.rstrip().endswith("end of input: you left the game.")


def test_opponents_seats_and_players() -> None:
    """``--opponents`` names Help Your Neighbor's agents in seat order, the last repeated; in
    seat 1 the agent rolls first (R12)."""
    _, text, _ = run([*HYN, "--opponents", "random", "heuristic", "--seat", "1"])
    assert text.startswith("Help Your Neighbor: 3 players, ten markers each, a turn limit of 1000. You are seat 1 ")
    assert "against player_0 (random) and player_2 (heuristic);" in text
    assert text.splitlines()[2].startswith("player_0 (random) rolls ")
    _, text, _ = run([*HYN, "--num-players", "4", "--opponents", "random"])
    assert "against player_1 (random), player_2 (random) and player_3 (random);" in text


# The bad arguments of Help Your Neighbor (and of --web), and piped input, are in test_play.py's tables.
