"""Hostile and damaged game records (issue 23 item 9): ``trash_env.records`` (:func:`load_record`,
:func:`replay`), ``trash-replay`` and ``trash-record``, and the HTML replay
(:mod:`trash_env.rendering.media`).

A file that holds valid JSON but no record (a list, a number, an object with a field missing or of
the wrong type) is refused in one line naming the file; a record whose stated result (``over``,
``truncated``, ``winners``, ``returns``) is not the one its actions give is refused; a player's name
with ``<!--<script>`` or ``</script>`` in it stays text in the HTML replay. Each test makes the
record itself, asserts the refusal (exit status 2 and one ``PROG: error:`` line) and that nothing
was written.
"""

from __future__ import annotations

import copy
import dataclasses
import html
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from trash_env import help_your_neighbor_v0, trash_v0
from trash_env.records import check_record, load_record, replay


def played(module: Any, seed: int, moves: int | None = None) -> dict[str, Any]:
    """The JSON record of a game of ``module`` with random legal moves (the first ``moves`` of
    them only, when given: a game that goes on)."""
    env = module.env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for count, _ in enumerate(env.agent_iter()):
        if moves is not None and count == moves:
            break
        observation, _, terminated, truncated, _ = env.last()
        done = terminated or truncated
        env.step(None if done else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return json.loads(json.dumps(env.unwrapped.game_record()))


@pytest.fixture(scope="module", params=[trash_v0, help_your_neighbor_v0], ids=["trash", "help_your_neighbor"])
def record(request: pytest.FixtureRequest) -> dict[str, Any]:
    """A whole game's record, won by someone, that replays as it is."""
    made = played(request.param, 3)
    assert made["over"] and made["winners"] and replay(copy.deepcopy(made)).over
    return made


def replay_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, content: bytes, *outputs: str
) -> tuple[int, str]:
    """``trash-replay record.json --html OUT ...`` on a file holding ``content``, in ``tmp_path``:
    the exit status and stderr; asserts that a refusal printed nothing on stdout."""
    from agents.commands.replay import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "record.json").write_bytes(content)
    argv = ["record.json"]
    for output in outputs or ("out.html",):
        argv += [f"--{Path(output).suffix[1:]}", output]
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 0 or captured.out == ""
    return code, captured.err


def assert_refused(code: int, err: str, tmp_path: Path, message: str) -> None:
    """Exit 2 with one line naming the file and holding ``message``; nothing but the record in ``tmp_path``."""
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("trash-replay: error: record.json")
    assert message in err, err
    assert [path.name for path in tmp_path.iterdir()] == ["record.json"]


# --------------------------------------------------------------------------
# JSON that is not a record


NOT_RECORDS = {
    "a list": (b"[1, 2, 3]", "is not a game record: it holds a JSON list, not an object"),
    "an empty list": (b"[]", "it holds a JSON list, not an object"),
    "a number": (b"42", "it holds a JSON number, not an object"),
    "a fraction": (b"-0.5e3", "it holds a JSON number, not an object"),
    "a string": (b'"trash_v0"', "it holds a JSON string, not an object"),
    "true": (b"true", "it holds a JSON boolean, not an object"),
    "null": (b"null", "it holds a JSON null, not an object"),
    "an empty object": (b"{}", "not a trash_v0 or help_your_neighbor_v0 game record"),
    "another game": (b'{"game": "chess", "version": 1}', "not a trash_v0 or help_your_neighbor_v0 game record"),
    "a game name only": (b'{"game": "trash_v0"}', "game record version None is not supported"),
    "nested 100,000 deep": (b"[" * 100_000 + b"]" * 100_000, "its JSON is nested too deeply"),
    "NaN": (b"NaN", "is not a JSON game record: NaN is not a JSON number"),
    "Infinity in a record": (b'{"game": "trash_v0", "seed": Infinity}', "Infinity is not a JSON number"),
    "not UTF-8": (b'{"game": "\xff\xfe"}', "is not a JSON game record: it is not UTF-8 text"),
    "not JSON": (b"{oops", "is not a JSON game record: Expecting property name"),
}


@pytest.mark.parametrize(("content", "message"), NOT_RECORDS.values(), ids=NOT_RECORDS.keys())
def test_json_that_is_no_record_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, content: bytes, message: str
) -> None:
    """Valid JSON that is not a record object (a list was an AttributeError traceback), or a file
    that is not JSON at all, is refused naming the file; neither picture is written."""
    code, err = replay_command(tmp_path, monkeypatch, capsys, content, "out.html", "out.gif")
    assert_refused(code, err, tmp_path, message)
    with pytest.raises(ValueError, match=re.escape(message)):
        load_record(tmp_path / "record.json")


def deal_field(record: dict[str, Any]) -> str:
    """The field holding a record's deal: Trash's deck, Help Your Neighbor's stacked dice."""
    return "dice" if record["game"] == "help_your_neighbor_v0" else "deck"


MISTYPED: dict[str, tuple[Callable[[dict[str, Any]], Any], str]] = {
    # each a corruption that keeps the record valid JSON, and the refusal it gets ({deal}: deal_field)
    "no actions": (lambda r: r.pop("actions"), "game record is missing ['actions']"),
    "no result": (lambda r: [r.pop(k) for k in ("over", "winners")], "game record is missing ['over', 'winners']"),
    "actions a dict": (lambda r: r.update(actions={"0": 1}), "game record actions must be a list, got dict"),
    "the deal a string": (lambda r: r.update({deal_field(r): "123"}), "game record {deal} must be a list, got str"),
    "config a list": (lambda r: r.update(config=[2]), "game record config must be a dict"),
    "seed a string": (lambda r: r.update(seed="7"), "seed must be a non-negative integer or a list of them"),
    "version a string": (lambda r: r.update(version="1"), "game record version '1' is not supported"),
    "over a number": (lambda r: r.update(over=1), "game record over must be true or false, got 1"),
    "truncated null": (lambda r: r.update(truncated=None), "game record truncated must be true or false"),
    "winners a number": (lambda r: r.update(winners=0), "game record winners must be a list of seats, got 0"),
    "winners of strings": (lambda r: r.update(winners=["0"]), "winners must be a list of seats"),
    "winners of booleans": (lambda r: r.update(winners=[True]), "winners must be a list of seats"),
    "returns of strings": (lambda r: r.update(returns=["1"]), "game record returns must be a list of numbers"),
    "players a string": (lambda r: r.update(players="greedy"), "game record players must be a list of names"),
    "players of numbers": (lambda r: r.update(players=[1, 2]), "players must be a list of names"),
    "probabilities a dict": (lambda r: r.update(probabilities={}), "probabilities must be a list"),
    "too many probabilities": (
        lambda r: r.update(probabilities=[None] * (len(r["actions"]) + 1)),
        "at most one entry per action",
    ),
    "a probability of 2": (
        lambda r: r.update(probabilities=[{"0": 2}]),
        'game record probabilities #0 must be null or {"action": p} with p in [0, 1]',
    ),
    "a probability for no action": (
        lambda r: r.update(probabilities=[None, {"draw": 0.5}]),
        "game record probabilities #1 must be null",
    ),
    "a probability in words": (lambda r: r.update(probabilities=[{"0": "half"}]), "probabilities #0 must be"),
}


@pytest.mark.parametrize("case", MISTYPED)
def test_a_record_with_a_field_missing_or_mistyped_is_refused(
    record: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
    case: str,
) -> None:
    """An object missing a field, or with a field of the wrong type (the optional ``players`` and
    ``probabilities`` the pictures show included), is refused naming the file and the field."""
    corruption, message = MISTYPED[case]
    message = message.replace("{deal}", deal_field(record))
    corrupt = copy.deepcopy(record)
    corruption(corrupt)
    code, err = replay_command(tmp_path, monkeypatch, capsys, json.dumps(corrupt).encode(), "out.html")
    assert_refused(code, err, tmp_path, message)
    with pytest.raises(ValueError, match=re.escape(message)):
        check_record(corrupt)


# --------------------------------------------------------------------------
# A stated result its actions do not give


def other_result(record: dict[str, Any]) -> dict[str, Callable[[dict[str, Any]], Any]]:
    """Ways to make ``record`` claim a result its actions do not give."""
    loser = next(seat for seat in range(len(record["returns"])) if seat not in record["winners"])

    def swap_returns(r: dict[str, Any]) -> None:
        r["returns"] = [-value for value in r["returns"]]

    return {
        "winners another seat": lambda r: r.update(winners=[loser]),
        "no winners": lambda r: r.update(winners=[]),
        "winners an extra seat": lambda r: r.update(winners=[*r["winners"], loser]),
        "not over": lambda r: r.update(over=False),
        "truncated": lambda r: r.update(truncated=True),
        "returns swapped": swap_returns,
        "returns a seat short": lambda r: r.update(returns=r["returns"][:-1]),
    }


STATED = {
    "winners another seat": "the record states winners",
    "no winners": "the record states winners []",
    "winners an extra seat": "the record states winners",
    "not over": "the record states over False, but its actions give True",
    "truncated": "the record states truncated True, but its actions give False",
    "returns swapped": "the record states returns",
    "returns a seat short": "the record states returns",
}


@pytest.mark.parametrize("case", STATED)
def test_a_stated_result_its_replay_does_not_give_is_refused(
    record: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, case: str
) -> None:
    """A record that claims other winners, another end or other returns than its actions give
    (which the replay drew without a word) is refused in one line; neither picture is written."""
    pytest.importorskip("drawsvg")
    corrupt = copy.deepcopy(record)
    other_result(record)[case](corrupt)
    with pytest.raises(ValueError, match=re.escape(STATED[case])):
        replay(copy.deepcopy(corrupt))
    code, err = replay_command(tmp_path, monkeypatch, capsys, json.dumps(corrupt).encode(), "out.html", "out.gif")
    assert_refused(code, err, tmp_path, STATED[case])
    assert "but its actions give" in err


@pytest.mark.parametrize("module", [trash_v0, help_your_neighbor_v0], ids=["trash", "help_your_neighbor"])
def test_a_game_that_goes_on_must_not_claim_an_end(module: Any) -> None:
    """The record of a game still going on (``env.unwrapped.game_record()`` mid-game) replays as it
    is; the same record claiming the game is over, won by seat 0, is refused."""
    going_on = played(module, 5, moves=6)
    assert not going_on["over"] and not replay(copy.deepcopy(going_on)).over
    claimed = {**copy.deepcopy(going_on), "over": True}
    with pytest.raises(ValueError, match="the record states over True, but its actions give False"):
        replay(claimed)
    claimed = {**copy.deepcopy(going_on), "winners": [0]}
    with pytest.raises(ValueError, match=r"the record states winners \[0\], but its actions give \[\]"):
        replay(claimed)


def test_trash_record_refuses_a_game_that_does_not_replay_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """``trash-record`` replays the game it played (checking its result) before writing any file:
    a record that does not (here made so by a stand-in for the game's play) is one error line, exit
    2, and neither the record nor a picture is written."""
    pytest.importorskip("drawsvg")
    from agents.commands import record as command

    real = command.record_game

    def tampered(*args: Any, **kwargs: Any) -> dict[str, Any]:
        made = real(*args, **kwargs)
        made["winners"] = [seat for seat in range(len(made["returns"])) if seat not in made["winners"]]
        return made

    monkeypatch.setattr(command, "record_game", tampered)
    monkeypatch.chdir(tmp_path)
    for outputs in (["--json", "game.json"], ["--json", "game.json", "--html", "game.html", "--gif", "game.gif"]):
        assert command.main(["greedy", "random", "--seed", "1", *outputs]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("trash-record: error: the game played does not replay")
        assert "the record states winners" in err
        assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------
# Names with markup in the HTML replay


HOSTILE_NAMES = ["<!--<script> a & b > c <b> \u2028 \u2029 é", "x</script><script>alert(1)</script>"]


def test_a_name_with_markup_stays_text_in_the_html_replay(
    record: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """Player names with ``<!--<script>`` (which stopped the replay's script: the inline JSON escaped
    ``</`` only) and ``</script>`` are written into the script's JSON as ``\\u003c`` ... escapes: the
    script block holds no ``<``, ``>`` or ``&`` from the data and reads back every frame exactly; in
    the page's HTML (its subtitle) and in the table's SVG the names are escaped."""
    pytest.importorskip("drawsvg")
    from trash_env.rendering.media import file_name, frames, short_name

    players = (HOSTILE_NAMES * 3)[: len(record["returns"])]
    hostile = {**copy.deepcopy(record), "players": players}
    code, err = replay_command(tmp_path, monkeypatch, capsys, json.dumps(hostile).encode(), "out.html")
    assert (code, err) == (0, "")
    page = (tmp_path / "out.html").read_text()
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    assert len(scripts) == 1 and page.count("<script") == 1 and page.count("</script") == 1
    data = re.search(r"^const frames = (.*);$", scripts[0], re.M).group(1)
    assert not set("<>&\u2028\u2029") & set(data)
    assert "<!--" not in page
    expected = json.loads(json.dumps([dataclasses.asdict(frame) for frame in frames(hostile)]))
    assert json.loads(data) == expected
    labels = " ".join(frame["label"] for frame in expected)
    assert f"player_0 ({HOSTILE_NAMES[0]})" in labels  # exactly, as the replay names it
    for name in players:
        assert f"({short_name(name)})" in labels  # a name with "/" in it is shown as a file's
        assert html.escape(file_name(name)) in page
    subtitle = re.search(r"<p>(.*?)</p>", page, re.S).group(1)
    assert "<" not in subtitle and ">" not in subtitle
    for frame in expected:  # the table's SVG (put into the page as markup) has the names as escaped text
        assert "<!--" not in frame["svg"] and "<script" not in frame["svg"] and "&lt;script&gt;" in frame["svg"]
