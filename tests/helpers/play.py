"""Driving the terminal game (``agents.commands.play``) with scripted input, and the positions whose
hidden cards a test rearranges (R2): shared by the terminal and browser play tests."""

from __future__ import annotations

import io
import re
from collections.abc import Sequence

from agents.base import SeatView
from agents.baselines import GreedyAgent
from agents.commands import play
from agents.commands import table as play_table
from trash_env.neighbor import rules as neighbor
from trash_env.trash import rules as trash
from trash_env.trash.config import TrashConfig
from trash_env.trash.observation import TrashObserver
from trash_env.trash.rules import FACE_DOWN, OVER, TrashState

ALL = 10**6  # autoplay to the end of the game


HYN = ["--game", "help_your_neighbor"]  # the arguments that choose Help Your Neighbor


class Script:
    """A fake ``input_fn``: gives ``answers`` in order, then ``autoplay`` times the lowest
    legal action of the last menu printed to ``out``, then raises EOFError. At the question after a
    game (``play.AGAIN_PROMPT`` printed last to ``out``) it gives the next of ``again`` instead, or
    raises EOFError when they are used up.

    The answer ``"ILLEGAL"`` is replaced by the lowest action number missing from the last menu (typed
    as ``#N``, the way the prompt takes an action number); autoplay types ``#N`` too.
    """

    def __init__(
        self,
        answers: Sequence[str] = (),
        out: io.StringIO | None = None,
        autoplay: int = 0,
        again: Sequence[str] = (),
    ) -> None:
        self.answers = list(answers)
        self.out = out
        self.autoplay = autoplay
        self.again = list(again)
        self.calls = 0
        self.questions = 0  # how often the question after a game was asked

    def __call__(self, prompt: str = "") -> str:
        self.calls += 1
        if self.out is not None and self.out.getvalue().endswith(play.AGAIN_PROMPT):
            self.questions += 1
            if self.again:
                return self.again.pop(0)
            raise EOFError
        if self.answers:
            answer = self.answers.pop(0)
            if answer == "ILLEGAL":
                answer = f"#{min(set(range(trash.NUM_ACTIONS)) - set(last_menu(self.out.getvalue())))}"
            return answer
        if self.autoplay > 0:
            self.autoplay -= 1
            return f"#{min(last_menu(self.out.getvalue()))}"
        raise EOFError


def menu_action(word: str, description: str) -> int:
    """The action number (R13, R14) of a menu line: the word to type and what the move does."""
    if description.startswith("draw from the stock"):
        return trash.DRAW_STOCK
    if description.startswith("take the discard"):
        return trash.TAKE_DISCARD
    if description.startswith("discard"):
        return trash.DISCARD
    if description.startswith("place"):
        return trash.PLACE_SLOT_0 + trash.RANK_NAMES.index(word) - 1
    if description.startswith("roll"):
        return neighbor.ROLL_DICE
    if description == "end the turn":
        return neighbor.END_TURN
    assert description.startswith("uncover"), description
    return neighbor.UNCOVER_0 + neighbor.TOTALS.index(int(word))


def last_menu(text: str) -> list[int]:
    """The action numbers of the moves of the last ``your moves:`` menu in ``text`` (each line shows the
    word to type and what the move does)."""
    menu = text.rsplit("your moves:\n", 1)[1]
    actions = []
    for line in menu.splitlines():
        match = re.match(r"  (\S+) +(\S.*)$", line)
        if not match:
            break
        actions.append(menu_action(match.group(1), match.group(2)))
    assert actions, "no menu found"
    return actions


def run(
    argv: Sequence[str], answers: Sequence[str] = (), autoplay: int = 0, again: Sequence[str] = ()
) -> tuple[int, str, Script]:
    """``trash-play ARGV`` (``play.main``) with a :class:`Script` as its input: the exit code, all it
    printed, and the script."""
    out = io.StringIO()
    script = Script(answers, out, autoplay, again)
    code = play.main(list(argv), input_fn=script, out=out)
    return code, out.getvalue(), script


def first_game(text: str) -> str:
    """What ``trash-play`` printed up to the question after its first game (which must be there)."""
    game, question, _ = text.partition("\nplay again? ")
    assert question, f"no question after the game:\n{text}"
    return game


def lines_in_order(text: str, expected: Sequence[str]) -> None:
    """Each expected line appears as a whole line of ``text``, in this order."""
    lines = text.splitlines()
    position = 0
    for line in expected:
        assert line in lines[position:], f"missing (in order): {line!r}\n---\n{text}"
        position = lines.index(line, position) + 1


def choices(config: TrashConfig, deck: list[int], seed: int, human: int, count: int) -> list[TrashState]:
    """Copies of the state at the human's first ``count`` real choices (fewer if the game
    ends first), replayed on the core
    with greedy opponents, the generators ``agents.commands.play`` uses, and the human always taking
    the lowest legal action (as ``Script`` does)."""
    rng = play_table.game_rng(seed)
    agent_rngs = [play_table.agent_rng(seed, seat) for seat in range(config.num_players)]
    observer = TrashObserver(config)
    state = trash.new_game(config, rng, deck)
    found = []
    while len(found) < count:
        trash.play_forced(state, rng)
        if state.phase == OVER:
            break
        seat = state.current
        if seat == human:
            found.append(trash.clone(state))
            action = trash.legal_actions(state)[0]
        else:
            action = GreedyAgent().act(SeatView(state, seat, observer), agent_rngs[seat])
        trash.apply_action(state, action, rng)
    return found


def hidden_positions(state: TrashState, deck: list[int]) -> list[int]:
    """Deck positions (R3) of the cards nobody has seen: face-down slots and the stock."""
    n = state.num_players
    positions = []
    for seat in range(n):
        for slot, value in enumerate(state.up[seat]):
            if value == FACE_DOWN:
                position = slot * n + (seat - state.hand_first) % n
                assert deck[position] == state.down[seat][slot]
                positions.append(position)
    rest = len(deck) - len(state.stock)
    assert state.stock == deck[rest:][::-1], "no reshuffle (R7) yet"
    return positions + list(range(rest, len(deck)))


def unseen_moved(state: TrashState, deck: list[int]) -> list[int]:
    """``deck`` with the cards unseen at ``state`` rearranged so that every unseen place (R2: the
    face-down slots and the stock) holds another rank: sorted by rank, shifted by half."""
    hidden = hidden_positions(state, deck)
    order = sorted(hidden, key=lambda position: deck[position])
    half = len(order) // 2
    moved = deck[:]
    for i, position in enumerate(order):
        moved[position] = deck[order[(i + half) % len(order)]]
    assert all(moved[position] != deck[position] for position in hidden)
    return moved
