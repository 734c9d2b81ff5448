"""Play in the browser (``agents.commands.web.server``, ``trash-play --web``): the JSON API, the page's
assets, public information only (R2), the command line, and whole games in a headless Chromium.

The API is driven in-process with Starlette's TestClient; the browser tests serve the app with
uvicorn in a background thread and drive Debian's Chromium through Playwright (marker
``browser``: skipped when either is missing, a failure when the environment variable CI is set).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import ROOT
from helpers.browser import headless_chromium
from helpers.play import choices, unseen_moved
from helpers.web import web_or_skip

from agents.commands import play
from agents.commands import table as play_table
from trash_env.trash import rules as trash
from trash_env.trash.config import make_config
from trash_env.trash.drawing import trash_svg

TestClient, web = web_or_skip()

TIMEOUT = 120  # seconds for a browser game or a server to start, on a busy machine
SVG_NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/2001/xml-events", "http://www.w3.org/1999/xlink"}


def setup(argv: Sequence[str]) -> tuple[Any, list[Any]]:
    """The configuration and seats the command line ``argv`` gives (as ``--web`` uses them)."""
    return play.setup(play.build_parser().parse_args(list(argv)))


def client_for(argv: Sequence[str] = (), seed: int = 0, deal: Any = None) -> TestClient:
    config, agents = setup(argv)
    return TestClient(web.make_app(config, agents, seed, deal))


def post(client: TestClient, path: str, body: Any) -> Any:
    return client.post(path, json=body)


def play_out(client: TestClient, rng: np.random.Generator) -> tuple[dict[str, Any], list[int], list[str]]:
    """Play the current game to its end with random legal moves: the final state, the human's
    actions, and the lines of every step answered (the opening's come from the log)."""
    state = client.get("/api/state").json()
    lines = list(state["log"])
    actions = []
    for _ in range(5000):
        if state["over"]:
            return state, actions, lines
        assert state["your_turn"] and state["legal"], state
        action = int(rng.choice([move["action"] for move in state["legal"]]))
        at = {"game": state["game"], "position": state["position"]}
        response = post(client, "/api/move", {"action": action, **at})
        assert response.status_code == 200, response.text
        answer = response.json()
        assert answer["steps"][0]["action"] == action and answer["steps"][0]["seat"] == state["seat"]
        assert answer["state"]["position"] == state["position"] + len(answer["steps"])
        for step in answer["steps"]:
            assert step["name"] == web_game(state).action_name(step["action"])
            assert step["svg"].startswith("<svg")
            lines.extend(step["lines"])
        actions.append(action)
        state = answer["state"]
    raise AssertionError("the game did not end")


def web_game(state: dict[str, Any]) -> Any:
    from trash_env.games import get_game

    return get_game(state["rules"])


# --------------------------------------------------------------------------
# Whole games through the API


GAMES = [
    ["--game", "trash"],
    ["--game", "trash", "--opponents", "counter", "random", "--seat", "1", "--preset", "jokers"],
    ["--game", "trash", "--match", "--preset", "eight_card"],
    ["--game", "help_your_neighbor"],
    ["--game", "help_your_neighbor", "--opponents", "random", "heuristic", "--seat", "2"],
]


@pytest.mark.parametrize("argv", GAMES, ids=[" ".join(argv[1:]) for argv in GAMES])
def test_whole_games_against_baselines_then_a_new_game(argv: list[str]) -> None:
    """New game, state, then random legal moves play the game to its end (R8, R9, R12): the
    result names the winners and the returns (R10, R12), the log is the narration of
    agents.commands.play for the same seed and moves (replayed on its Table), and the same state is
    served again. A move after the end is refused (409); "New game" deals game 2 with the next
    seed, from a fresh log."""
    seed = 4
    client = client_for(argv, seed)
    first = client.get("/api/state").json()
    assert first["game"] == 1 and first["seed"] == seed and not first["over"]
    assert first["names"][first["seat"]] == "you"
    state, actions, lines = play_out(client, np.random.default_rng(1))
    result = state["result"]
    assert state["over"] and not state["your_turn"] and state["legal"] == []
    assert result["returns"][state["seat"]] == result["reward"]
    if result["truncated"] or not result["winners"]:
        assert set(result["returns"]) == {0.0}
    else:
        winners = [state["names"].index(name) for name in result["winners"]]
        assert all(result["returns"][seat] == 1.0 for seat in winners)
        assert all(value == -1.0 for seat, value in enumerate(result["returns"]) if seat not in winners)
    assert re.fullmatch(r"(.+ wins?( the (hand|match|game))?|a draw.*); your reward [+-][01]", result["text"])
    assert state["log"] == lines
    # The same game on the terminal's game loop: the same narration, move for move.
    config, agents = setup(argv)
    table = play_table.Table(config, agents, seed)
    replayed, moves = [], iter(actions)
    while not table.over:
        replayed.extend(table.apply(next(moves) if table.waiting else table.automatic_action()))
    assert next(moves, None) is None
    assert replayed == state["log"]
    assert client.get("/api/state").json() == state
    # After the end: refused, nothing changes.
    response = post(client, "/api/move", {"action": 0})
    assert response.status_code == 409
    assert response.json() == {"error": "the game is over: start a new one (POST /api/new)"}
    assert client.get("/api/state").json() == state
    # A new game: the next seed.
    response = post(client, "/api/new", {})
    assert response.status_code == 200
    fresh = response.json()["state"]
    assert fresh["game"] == 2 and fresh["seed"] == seed + 1 and fresh["result"] is None
    assert fresh["log"] == [line for step in response.json()["steps"] for line in step["lines"]]
    assert client.get("/api/state").json() == fresh
    stale = post(client, "/api/move", {"action": (fresh["legal"] or [{"action": 0}])[0]["action"], "game": 1})
    assert stale.status_code == 409
    assert stale.json()["error"] == "the move is for game 1, but game 2 is being played"


def test_a_game_of_help_your_neighbor_with_stacked_dice() -> None:
    """The first game's deal can be stacked (tests): with the dice 8, 8 you cover your 8, may roll
    again (R14), and the roll of 8 that follows goes to the heuristic through the privilege (R12)."""
    client = client_for(["--game", "help_your_neighbor"], deal=[8, 8])
    state = client.get("/api/state").json()
    assert state["log"] == ["you roll 8 and cover it"]
    assert state["legal"] == [
        {"action": 0, "name": "roll", "text": "roll again"},
        {"action": 1, "name": "end the turn", "text": "end the turn"},
    ]
    answer = post(client, "/api/move", {"action": 0}).json()
    assert answer["steps"][0]["lines"] == [
        "you roll 8: player_1 (heuristic) covers it (help your neighbor) and takes the turn"
    ]
    assert answer["steps"][1]["seat"] == 1 and answer["steps"][1]["name"] == "roll"
    assert "player_1 (heuristic) rolls " in answer["steps"][1]["lines"][0]


# --------------------------------------------------------------------------
# Refused requests


def illegal_action(state: dict[str, Any]) -> int:
    legal = {move["action"] for move in state["legal"]}
    return min(set(range(web_game(state).num_actions)) - legal)


JSON_BODY = {"content-type": "application/json"}
REFUSED = [
    # (what, body: a value sent as JSON or bytes sent as they are, status, fragment of the error)
    ("illegal action", "ILLEGAL", 400, "is not legal now: the legal actions are "),
    ("action out of range", {"action": 99}, 400, "action 99 is not an action of R1"),
    ("negative action", {"action": -1}, 400, "action -1 is not an action of R1"),
    ("string action", {"action": "0"}, 400, 'action must be an integer (an action number), got "0"'),
    ("float action", {"action": 0.0}, 400, "action must be an integer (an action number), got 0.0"),
    ("boolean action", {"action": True}, 400, "action must be an integer (an action number), got true"),
    ("null action", {"action": None}, 400, "action must be an integer (an action number), got null"),
    ("list action", {"action": [0]}, 400, "action must be an integer (an action number), got [0]"),
    ("missing field", {}, 400, "missing field 'action'"),
    ("only a game", {"game": 1}, 400, "missing field 'action'"),
    ("malformed JSON", b'{"action": ', 400, "the body is not valid JSON: "),
    ("not JSON", b"action=0", 400, "the body is not valid JSON: "),
    ("not UTF-8", b'{"action": "\xff"}', 400, "the body is not valid JSON: "),
    ("empty body", b"", 400, "the body must be a JSON object"),
    ("a list", [0], 400, "the body must be a JSON object"),
    ("a number", 0, 400, "the body must be a JSON object"),
    ("a file path", {"action": "LEGAL", "path": "/etc/passwd"}, 400, "unexpected field(s) 'path'"),
    ("an agent", {"action": "LEGAL", "agent": "random"}, 400, "unexpected field(s) 'agent'"),
    ("opponents and config", {"action": "LEGAL", "opponents": ["search"], "config": {}}, 400, "'opponents', 'config'"),
    ("a seed", {"action": "LEGAL", "seed": 3}, 400, "unexpected field(s) 'seed'"),
    ("another game", {"action": "LEGAL", "game": 7}, 409, "the move is for game 7, but game 1 is being played"),
    ("a string game", {"action": "LEGAL", "game": "1"}, 400, "game must be an integer (the number of the game)"),
    ("another position", {"action": "LEGAL", "position": 999}, 409, "the move is for position 999, but the game is"),
    ("a float position", {"action": "LEGAL", "position": 1.5}, 400, "position must be an integer (the moves played"),
    ("too large", {"action": "LEGAL", "pad": "x" * 5000}, 413, "the body is larger than 4096 bytes"),
]


def send(client: TestClient, path: str, body: Any, state: dict[str, Any], headers: dict[str, str] = JSON_BODY) -> Any:
    legal = state["legal"][0]["action"] if state["legal"] else 0
    if isinstance(body, bytes):
        return client.post(path, content=body, headers=headers)
    if body == "ILLEGAL":
        body = {"action": illegal_action(state)}
    if isinstance(body, dict):
        body = {key: legal if value == "LEGAL" else value for key, value in body.items()}
    return client.post(path, content=json.dumps(body).encode(), headers=headers)


@pytest.mark.parametrize("game", ["trash", "help_your_neighbor"])
@pytest.mark.parametrize(("what", "body", "status", "message"), REFUSED, ids=[case[0] for case in REFUSED])
def test_a_refused_move_leaves_the_game_unchanged(game: str, what: str, body: Any, status: int, message: str) -> None:
    """Every move is checked before anything is played: a bad one gets its 4xx status and a JSON
    error naming the problem, and the state served before and after is the same."""
    client = client_for(["--game", game], seed=2)
    before = client.get("/api/state").json()
    assert before["your_turn"]
    response = send(client, "/api/move", body, before)
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    error = response.json()["error"]
    assert message in error, error
    assert client.get("/api/state").json() == before


def test_two_clicks_on_the_same_position_play_one_move() -> None:
    """Requests are served under one lock: the same move sent twice at once for the same position
    (a double click, two tabs) is played once; the other is refused (409) and changes nothing."""
    client = client_for(["--game", "help_your_neighbor"], deal=[8, 8, 8, 8])
    state = client.get("/api/state").json()
    body = {"action": 0, "game": state["game"], "position": state["position"]}
    barrier = threading.Barrier(2)
    answers: list[Any] = []

    def click() -> None:
        barrier.wait()
        answers.append(post(client, "/api/move", body))

    threads = [threading.Thread(target=click) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(answer.status_code for answer in answers) == [200, 409]
    played = next(answer.json() for answer in answers if answer.status_code == 200)
    assert client.get("/api/state").json() == played["state"]
    assert played["steps"][0]["lines"] == [
        "you roll 8: player_1 (heuristic) covers it (help your neighbor) and takes the turn"
    ]


def test_the_error_of_an_illegal_move_names_the_legal_ones() -> None:
    client = client_for(["--game", "help_your_neighbor"], deal=[8])
    response = post(client, "/api/move", {"action": 5})
    assert response.json() == {
        "error": "action 5 (uncover 5) is not legal now: the legal actions are 0 (roll), 1 (end the turn)"
    }


@pytest.mark.parametrize(
    ("content_type", "status"),
    [
        ("text/plain", 415),
        ("application/x-www-form-urlencoded", 415),
        (None, 415),
        ("application/json; charset=utf-8", 200),
    ],
)
def test_only_json_bodies_are_read(content_type: str | None, status: int) -> None:
    """A body not sent as JSON is refused (415): a page of another site cannot post a move without
    the browser asking this server first (CORS), which it never allows."""
    client = client_for()
    before = client.get("/api/state").json()
    headers = {"content-type": content_type} if content_type else {}
    body = json.dumps({"action": before["legal"][0]["action"]}).encode()
    response = client.post("/api/move", content=body, headers=headers)
    assert response.status_code == status, response.text
    if status != 200:
        assert response.json() == {"error": "send the body as JSON (Content-Type: application/json)"}
        assert client.get("/api/state").json() == before


@pytest.mark.parametrize(
    "body",
    [{"agent": "random"}, {"opponents": ["search"]}, {"path": "runs/x/policy.zip"}, {"seed": 5}, [1], b"{oops"],
)
def test_a_new_game_takes_no_options(body: Any) -> None:
    """The browser chooses nothing but moves: ``/api/new`` with any field (an agent, a file, a
    seed) is refused and the game goes on unchanged."""
    client = client_for()
    before = client.get("/api/state").json()
    response = send(client, "/api/new", body, before)
    assert response.status_code == 400
    assert "error" in response.json()
    if isinstance(body, dict):
        assert "a new game takes no options: they are fixed when the server starts" in response.json()["error"]
    assert client.get("/api/state").json() == before
    assert client.post("/api/new", content=b"", headers=JSON_BODY).json()["state"]["game"] == 2


@pytest.mark.parametrize(
    ("headers", "content"),
    [({}, b""), ({"content-type": "text/plain"}, b""), (JSON_BODY, b""), (JSON_BODY, b"{}"), (JSON_BODY, b" {} ")],
    ids=["bare", "empty text/plain", "empty JSON", "{}", "{} with spaces"],
)
def test_a_new_game_is_an_empty_post_or_an_empty_object(headers: dict[str, str], content: bytes) -> None:
    """``POST /api/new`` with no body (and no content type: ``curl -X POST``) starts the next game
    as ``{}`` does; a body that is not empty must still be sent as JSON (415)."""
    client = client_for()
    response = client.post("/api/new", content=content, headers=headers)
    assert response.status_code == 200, response.text
    assert response.json()["state"]["game"] == 2 and response.json()["state"]["seed"] == 1
    refused = client.post("/api/new", content=b"{}", headers={"content-type": "text/plain"})
    assert refused.status_code == 415
    assert client.get("/api/state").json()["game"] == 2


@pytest.mark.parametrize(("path", "body"), [("/api/new", None), ("/api/move", {"action": "LEGAL"})])
def test_a_post_from_a_page_of_another_site_is_refused(path: str, body: Any) -> None:
    """A page of another site can send a bare POST without asking first (CORS), and its browser
    names its origin: refused (403), nothing changes; the page's own origin is served."""
    client = client_for()
    before = client.get("/api/state").json()
    for origin in ("http://evil.example", "null", "http://testserver:8080"):
        headers = {**JSON_BODY, "origin": origin}
        response = send(client, path, body, before, headers) if body else client.post(path, headers=headers)
        assert response.status_code == 403, (origin, response.text)
        assert response.json() == {"error": f"a request from the page of another site ({origin}) is refused"}
        assert client.get("/api/state").json() == before
    same = {**JSON_BODY, "origin": "http://testserver"}  # the TestClient's own address
    response = send(client, path, body, before, same) if body else client.post(path, headers=same)
    assert response.status_code == 200, response.text


def test_the_page_comes_with_the_game_as_it_stands() -> None:
    """``GET /`` writes the game into the page: the title, the table's SVG inside ``#table`` and the
    state as a JSON data block equal to ``GET /api/state``'s answer, so the first paint is the table
    and the script needs no request; after a move, the page holds the new state."""
    client = client_for(["--game", "help_your_neighbor"], deal=[8, 8, 8])
    for _ in range(2):
        state = client.get("/api/state").json()
        page = client.get("/").text
        assert f'<div id="table" aria-live="polite">{state["svg"]}</div>' in page
        assert f'<h1 id="title">{state["title"]}</h1>' in page
        block = re.search(r'<script id="first-state" type="application/json">(.*?)</script>', page, re.S).group(1)
        assert "<" not in block  # escaped: nothing in the data can end the block
        assert json.loads(block) == state
        assert "Loading" not in page and "<!--" + "table-->" not in page
        post(client, "/api/move", {"action": 0})


def test_a_name_with_markup_is_escaped_in_the_page() -> None:
    """What the server writes into the page is text, never markup: a title or a log line with
    ``</script>`` or ``<!--state-->`` stays inert (escaped in the title, ``\\u003c`` in the JSON)."""
    view = {"title": "a <b> & </script> <!--state-->", "svg": "<svg></svg>", "log": ["</script><script>x()"]}
    page = web.page_with(web.asset("index.html").decode(), view)
    assert '<h1 id="title">a &lt;b&gt; &amp; &lt;/script&gt; &lt;!--state--&gt;</h1>' in page
    block = re.search(r'<script id="first-state" type="application/json">(.*?)</script>', page, re.S).group(1)
    assert json.loads(block) == view
    assert page.count("</script>") == 2  # app.js's and the data block's own


def test_a_move_when_it_is_not_your_turn_is_refused() -> None:
    """The server plays the agents up to the human's next choice before it answers, so a move on
    another seat's turn can only come from a broken client; made to happen, it is refused (409)."""
    client = client_for(["--game", "help_your_neighbor"], deal=[8])
    session = client.app.state.session
    before = client.get("/api/state").json()
    session.table.state.current = 1  # the heuristic's turn, as if it were still to act
    response = post(client, "/api/move", {"action": 0})
    assert response.status_code == 409
    assert response.json() == {"error": "it is not your turn: player_1 (heuristic) is to act"}
    session.table.state.current = 0
    assert client.get("/api/state").json() == before


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/nope", 404),
        ("GET", "/api", 404),
        ("GET", "/api/nope", 404),
        ("POST", "/api/nope", 404),
        ("GET", "/static/nope.js", 404),
        ("GET", "/static/index.html", 404),
        ("GET", "/static/../play.py", 404),
        ("GET", "/agents/play.py", 404),
        ("GET", "/api/move", 405),
        ("POST", "/api/state", 405),
        ("POST", "/", 405),
    ],
)
def test_unknown_paths_and_methods(method: str, path: str, status: int) -> None:
    client = client_for()
    before = client.get("/api/state").json()
    response = client.request(method, path, json={} if method == "POST" else None)
    assert response.status_code == status
    assert response.json()["error"].startswith("no such page: " if status == 404 else f"{method} is not allowed on ")
    assert client.get("/api/state").json() == before


def test_requests_must_name_this_server_when_it_listens_on_loopback() -> None:
    """Served on 127.0.0.1 the app answers only requests addressed to 127.0.0.1 or localhost, so
    a page of another site whose name points here (DNS rebinding) cannot use it."""
    config, agents = setup([])
    app = web.make_app(config, agents, allowed_hosts=web.LOOPBACK_NAMES)
    assert TestClient(app, base_url="http://127.0.0.1:8123").get("/api/state").status_code == 200
    assert TestClient(app, base_url="http://localhost:8123").get("/").status_code == 200
    assert TestClient(app, base_url="http://evil.example").get("/api/state").status_code == 400


# --------------------------------------------------------------------------
# The API as docs/play.md documents it


def documented_api() -> tuple[str, dict[str, dict[str, str]]]:
    """docs/play.md's section on the JSON API, and each of its ``###`` objects' fields: field -> type,
    from the table under the heading."""
    text = (ROOT / "docs" / "play.md").read_text()
    api = text.split("\n## The JSON API\n", 1)[1].split("\n## ", 1)[0]
    objects = {}
    for heading, body in re.findall(r"^### (.+?)\n(.*?)(?=^### |\Z)", api, re.M | re.S):
        rows = re.findall(r"^\| `(\w+)` \| ([^|]+) \|", body, re.M)
        objects[heading] = {field: kind.strip() for field, kind in rows}
    return api, objects


def has_type(value: Any, kind: str) -> bool:
    """Whether ``value`` is of the documented ``kind`` (``integer``, ``list of strings``, ``object or null`` ...)."""
    if kind.endswith(" or null") and value is None:
        return True
    kind = kind.removesuffix(" or null")
    if kind.startswith("list"):
        return isinstance(value, list)
    checks = {
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "string": lambda v: isinstance(v, str),
        "boolean": lambda v: isinstance(v, bool),
        "object": lambda v: isinstance(v, dict),
    }
    return checks[kind](value)


def test_the_documented_replies_are_the_replies() -> None:
    """docs/play.md lists each reply's fields with their types: they are exactly the fields the
    replies have (a state during the game and at its end, a legal move, the result, a move's and a
    new game's answer, a step, an error) and of those types; the move body's fields are the ones the
    server reads; the routes are the app's; every status the server refuses with is documented."""
    api, objects = documented_api()
    client = client_for(["--game", "help_your_neighbor"], deal=[8])
    playing = client.get("/api/state").json()
    moved = post(client, "/api/move", {"action": 1, "game": 1, "position": playing["position"]}).json()
    error = post(client, "/api/move", {"action": 99}).json()
    over, _, _ = play_out(client, np.random.default_rng(0))
    new = client.post("/api/new").json()
    samples = {
        "The state": [playing, over, moved["state"], new["state"]],
        "A legal move": playing["legal"],
        "The result": [over["result"]],
        "The answer of a move or a new game": [moved, new],
        "A step": moved["steps"] + new["steps"],
        "An error": [error],
    }
    assert set(objects) == {*samples, "A move"}
    for heading, replies in samples.items():
        documented = objects[heading]
        assert replies, heading
        for reply in replies:
            assert list(reply) == list(documented), heading  # the same fields, in the same order
            for field, kind in documented.items():
                assert has_type(reply[field], kind), (heading, field, kind, reply[field])
    assert tuple(objects["A move"]) == web.MOVE_FIELDS
    # The routes: the table's, the app's (its static files aside).
    routes = set(re.findall(r"^\| `(GET|POST) (/[a-z/]*)` \|", api, re.M))
    served = {
        (method, route.path)
        for route in client.app.routes
        for method in route.methods - {"HEAD"}
        if not route.path.startswith("/static/")
    }
    assert routes == served
    # Every status of a refusal: the server's ApiErrors, and the 404 and 405 of unknown paths and methods.
    statuses = {int(code) for code in re.findall(r"^\| (\d{3}) \|", api, re.M)}
    raised = {int(code) for code in re.findall(r"ApiError\((\d{3})", Path(web.__file__).read_text())}
    assert statuses == raised | {404, 405}


# --------------------------------------------------------------------------
# The page's assets


def test_the_assets_are_served_with_their_content_types_and_nothing_from_elsewhere() -> None:
    """The page, its script and its style come from the package with the right content types and
    a policy that lets the browser load nothing from anywhere else; none of them names another
    site, and the only URLs in the API's answers are the SVG namespaces."""
    client = client_for()
    kinds = {"/": "text/html", "/static/app.js": "text/javascript", "/static/style.css": "text/css"}
    texts = {}
    for path, kind in kinds.items():
        response = client.get(path)
        assert response.status_code == 200
        assert response.headers["content-type"] == f"{kind}; charset=utf-8"
        assert response.headers["x-content-type-options"] == "nosniff"
        assert "default-src 'none'" in response.headers["content-security-policy"]
        texts[path] = response.text
        # The page is its template with the game written in: the template's text is checked.
        text = web.asset("index.html").decode() if path == "/" else response.text
        assert "http://" not in text and "https://" not in text, path
        assert "//" not in re.sub(r"^\s*//.*$|/\*.*?\*/|<!--.*?-->", "", text, flags=re.M | re.S), path
    page = texts["/"]
    assert set(re.findall(r"https?://[^\"\\ ]+", page)) <= SVG_NAMESPACES  # the inlined table's
    for reference in re.findall(r'(?:src|href)="([^"]*)"', page):
        assert reference.startswith("/static/") or reference.startswith("data:"), reference
    for selector in ('id="table"', 'id="moves"', 'id="result"', 'id="new-game"', 'id="log"'):
        assert selector in page
    assert "button.dataset.action = " in texts["/static/app.js"]  # data-action="N" on each move button
    state = client.get("/api/state").text
    assert set(re.findall(r"https?://[^\"\\ ]+", state)) <= SVG_NAMESPACES


# --------------------------------------------------------------------------
# Public information only (R2)


def transcript(deck: list[int], seed: int, moves: int) -> list[Any]:
    """Everything the API serves in a Trash game on ``deck`` (greedy opponent) while the human
    answers ``moves`` choices with the lowest legal action: the states and the move answers."""
    client = client_for(["--opponents", "greedy"], seed, deal=deck)
    served = [client.get("/api/state").json()]
    for _ in range(moves):
        served.append(post(client, "/api/move", {"action": served[-1]["legal"][0]["action"]}).json())
        served.append(client.get("/api/state").json())
        if served[-1]["over"]:
            break
    return served


@pytest.mark.parametrize("seed", range(3))
def test_nothing_hidden_is_served(seed: int) -> None:
    """R2: up to each of the human's first four choices, everything served (tables, moves, log) is
    the same when the cards still unseen then (face-down slots, the stock) are rearranged so that
    every unseen place holds another rank; and each table drawn shows one card back per face-down
    slot and one for the stock (trash_svg draws what is public only)."""
    config = make_config()
    deck = trash.shuffled_deck(config, np.random.default_rng([seed, 99]))
    states = choices(config, deck, seed, 0, count=4)
    assert states
    for k, state in enumerate(states):
        moved = unseen_moved(state, deck)
        served = transcript(deck, seed, k)
        assert served == transcript(moved, seed, k)
        backs = served[-1]["svg"].count('fill="#2b4c9b"')  # svg.COLOURS["back"]
        face_down = sum(value == trash.FACE_DOWN for row in state.up for value in row)
        assert backs == face_down + (1 if state.stock else 0)


def test_the_table_of_a_finished_game_lays_the_face_down_cards_open() -> None:
    """Once the game is over the browser's table shows every face-down card (R2 hides them only while
    the hand is played): the served picture is the drawing with ``reveal``, and no card back is left
    in the layouts."""
    client = client_for(["--opponents", "greedy"], 4)
    state, actions, _ = play_out(client, np.random.default_rng(1))
    config, agents = setup(["--opponents", "greedy"])
    table = play_table.Table(config, agents, 4)
    moves = iter(actions)
    while not table.over:
        table.apply(next(moves) if table.waiting else table.automatic_action())
    assert any(value == trash.FACE_DOWN for row in table.state.up for value in row)
    assert state["svg"] == trash_svg(table.state, table.names, reveal=True)
    assert state["svg"].count('fill="#2b4c9b"') == (1 if table.state.stock else 0)  # the stock's back only


# --------------------------------------------------------------------------
# The command line


def test_missing_web_dependencies_are_named(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """Without Starlette (or uvicorn) ``--web`` names the extra to install and exits 2."""
    from agents.commands import web

    for name in [name for name in sys.modules if name == "starlette" or name.startswith("starlette.")]:
        monkeypatch.setitem(sys.modules, name, None)  # importing it raises ImportError
    monkeypatch.delitem(sys.modules, "agents.commands.web.server", raising=False)
    monkeypatch.delattr(web, "server", raising=False)
    assert play.main(["--web"]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == "trash-play: error: --web needs the web extra: pip install 'trash-rl[web]' (starlette is not installed)\n"
    )


def test_a_port_in_use_is_a_clear_error(capsys: pytest.CaptureFixture) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        out = io.StringIO()
        assert play.main(["--web", "--port", str(port)], out=out) == 2
    assert out.getvalue() == ""
    assert capsys.readouterr().err.startswith(f"trash-play: error: cannot listen on 127.0.0.1 port {port}: ")


def start_server(argv: Sequence[str]) -> tuple[subprocess.Popen, str]:
    """``trash-play --web ARGV`` and the URL of the line it prints."""
    process = subprocess.Popen(
        [sys.executable, "-m", "agents.commands.play", "--web", *argv],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])},
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter_lines(process)), daemon=True)
    reader.start()
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        found = [line for line in lines if line.startswith("Serving on ")]
        if found:
            match = re.fullmatch(r"Serving on (http://127\.0\.0\.1:(\d+)/) \(Ctrl-C to stop\)", found[0])
            assert match, found[0]
            assert int(match.group(2)) > 0
            process.lines = lines  # type: ignore[attr-defined]
            return process, match.group(1)
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    raise AssertionError(f"no URL printed: {lines!r} {process.stderr.read()!r}")


def iter_lines(process: subprocess.Popen) -> Iterator[str]:
    assert process.stdout is not None
    for line in process.stdout:
        yield line.rstrip("\n")


@pytest.mark.parametrize(
    ("argv", "signum"),
    [(["--port", "0"], signal.SIGINT), (["--game", "help_your_neighbor", "--seat", "1"], signal.SIGTERM)],
    ids=["trash-SIGINT", "help_your_neighbor-SIGTERM"],
)
def test_the_command_prints_its_url_serves_the_page_and_stops_on_a_signal(argv: list[str], signum: int) -> None:
    """``trash-play --web --port 0`` prints the game and ``Serving on URL (Ctrl-C to
    stop)`` on a free port of 127.0.0.1, serves the page and the API there, and on SIGINT or
    SIGTERM shuts down, says so and exits with 128 + the signal number, nothing on stderr."""
    process, url = start_server(argv)
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            assert response.status == 200
            assert response.headers["content-type"] == "text/html; charset=utf-8"
            assert 'id="new-game"' in response.read().decode()
        with urllib.request.urlopen(url + "api/state", timeout=30) as response:
            state = json.load(response)
        assert state["game"] == 1 and state["names"][state["seat"]] == "you"
        process.send_signal(signum)
        assert process.wait(timeout=30) == 128 + signum
    finally:
        if process.poll() is None:
            process.kill()
    stderr = process.stderr.read()
    assert stderr == ""
    lines = process.lines  # type: ignore[attr-defined]
    assert lines[0].startswith(("Trash: 2 players", "Help Your Neighbor: 2 players"))
    assert lines[-1] == f"stopped ({signal.Signals(signum).name})."


# --------------------------------------------------------------------------
# A real browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium (Debian's) driven by Playwright (:mod:`helpers.browser`)."""
    with headless_chromium() as launched:
        yield launched


@contextlib.contextmanager
def serving(argv: Sequence[str], seed: int = 0) -> Iterator[str]:
    """The app for ``argv`` served by uvicorn in a background thread on a free port; its URL."""
    import uvicorn

    config, agents = setup(argv)
    app = web.make_app(config, agents, seed, allowed_hosts=web.LOOPBACK_NAMES)
    sock = web.listen("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + TIMEOUT
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield web.url_of(sock, "127.0.0.1")
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


def settled(page: Any) -> str:
    """Wait until the page waits for a move or shows the end; which of the two."""
    # Selectors, not wait_for_function: the page's content security policy forbids eval, as it should.
    page.wait_for_selector("body[data-state='your-turn'], body[data-state='over']", timeout=TIMEOUT * 1000)
    return page.evaluate("document.body.dataset.state")


def play_in_browser(page: Any, rng: np.random.Generator) -> int:
    """Click random move buttons until ``#result`` shows; the number of clicks."""
    clicks = 0
    while settled(page) == "your-turn":
        buttons = page.locator("#moves button[data-action]")
        count = buttons.count()
        assert count >= 2  # forced moves are played for you (R13, R14)
        buttons.nth(int(rng.integers(count))).click()
        clicks += 1
        assert clicks < 3000
    page.wait_for_selector("#result", state="visible", timeout=TIMEOUT * 1000)
    return clicks


BROWSER_GAMES = [
    (["--game", "trash"], "?delay=0"),
    (["--game", "trash", "--opponents", "counter", "--seat", "1"], "?delay=1"),
    (["--game", "help_your_neighbor"], "?delay=0"),
    (["--game", "help_your_neighbor", "--opponents", "random", "heuristic", "--seat", "1"], "?delay=0"),
]


@pytest.mark.browser
@pytest.mark.parametrize(("argv", "query"), BROWSER_GAMES, ids=[" ".join(argv[1:]) for argv, _ in BROWSER_GAMES])
def test_whole_games_in_the_browser(browser: Any, argv: list[str], query: str) -> None:
    """In Chromium: the table is drawn, the legal moves are buttons named as the game names its
    actions; clicking them plays the game to its end, where ``#result`` names the outcome and
    every seat's return; "New game" then starts game 2 on a fresh log. The page asks nothing of
    any other site and logs no error (its content security policy included)."""
    with serving(argv) as url:
        context = browser.new_context()
        page = context.new_page()
        problems: list[str] = []
        page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: problems.append(str(error)))
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        page.goto(url + query)
        assert settled(page) in ("your-turn", "over")
        assert page.locator("#table svg").count() == 1
        assert page.locator("#title").inner_text().startswith(("Trash: ", "Help Your Neighbor: "))
        game = web_game({"rules": argv[1]})
        for button in page.locator("#moves button[data-action]").all():
            action = int(button.get_attribute("data-action"))
            assert game.action_name(action) in button.inner_text()
        clicks = play_in_browser(page, np.random.default_rng(7))
        assert clicks >= 1
        result = page.locator("#result")
        assert re.search(r"(wins?|a draw).*; your reward [+-][01]", result.inner_text())
        assert page.locator("#returns li").count() == setup(argv)[0].num_players
        assert page.locator("#moves button").count() == 0
        log_lines = page.locator("#log li").count()
        assert log_lines > clicks
        page.click("#new-game")
        page.wait_for_selector("body[data-game='2']", timeout=TIMEOUT * 1000)
        assert settled(page) in ("your-turn", "over")
        assert not result.is_visible()
        assert page.locator("#table svg").count() == 1
        if page.evaluate("document.body.dataset.state") == "your-turn":
            assert page.locator("#moves button[data-action]").count() >= 2
        assert page.locator("#log li").count() < log_lines
        context.close()
    assert problems == []
    assert requests and all(request.startswith(url) for request in requests), requests


FELT = (0x1F, 0x6F, 0x43)  # svg.COLOURS["table"], the table's green


def felt_share(png: bytes) -> float:
    """The share of a screenshot's pixels that are the table's green."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as picture:
        pixels = np.asarray(picture.convert("RGB")).reshape(-1, 3)
    return float(np.all(pixels == FELT, axis=1).mean())


@pytest.mark.browser
@pytest.mark.parametrize("game", ["trash", "help_your_neighbor"])
def test_the_first_paint_is_the_table(browser: Any, game: str, tmp_path: Any) -> None:
    """The page comes with the game: with no script at all the table is on the page and in a
    screenshot taken at load (most of the board's pixels are the table's green; nothing says
    "Loading"); with the script, at DOMContentLoaded and with every API request refused, the table,
    the title and the move buttons are there and no request to the API was made."""
    with serving(["--game", game]) as url:
        context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 800})
        page = context.new_page()
        page.goto(url, wait_until="domcontentloaded")
        assert page.locator("#table svg").count() == 1
        assert page.locator("#title").inner_text().startswith(("Trash: ", "Help Your Neighbor: "))
        assert "Loading" not in page.locator("body").inner_text()
        page.screenshot(path=str(tmp_path / f"first-paint-{game}.png"))  # to look at, when it fails
        board = page.locator("#board").screenshot()  # without the table: the page's paper colour only
        assert felt_share(board) > 0.5, felt_share(board)
        context.close()

        page = browser.new_page()
        asked: list[str] = []

        def refuse(route: Any) -> None:
            asked.append(route.request.url)
            route.abort()

        page.route("**/api/**", refuse)
        page.goto(url + "?delay=0", wait_until="domcontentloaded")
        assert page.locator("#table svg").count() == 1
        assert page.locator("#table svg").get_attribute("aria-label") == "the table"
        assert page.evaluate("document.body.dataset.state") == "your-turn"
        assert page.locator("#moves button[data-action]").count() >= 2
        assert page.locator("#status").inner_text() == "Your move:"
        assert asked == []
        page.close()


@pytest.mark.browser
def test_the_moves_of_the_agents_are_shown_one_after_another(browser: Any) -> None:
    """With a delay between moves (``?delay=N``), the tables and lines of the agents' moves appear
    one after another while the buttons are gone, before the next choice is offered."""
    with serving(["--game", "help_your_neighbor", "--seat", "1"], seed=3) as url:
        page = browser.new_page()
        page.goto(url + "?delay=150")
        assert settled(page) == "your-turn"
        before = page.locator("#log li").count()
        page.locator("#moves button[data-action='1']").click()  # end the turn: the heuristic plays
        seen = set()  # the number of lines in the log while the moves are replayed
        probe = (
            "[document.body.dataset.state, document.querySelectorAll('#log li').length, "
            "document.querySelectorAll('#moves button').length]"
        )
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            state, lines, buttons = page.evaluate(probe)
            if state != "busy":
                break
            assert buttons == 0
            seen.add(lines)
            time.sleep(0.02)
        assert state in ("your-turn", "over")
        assert len(seen - {before}) >= 2, seen  # your move, then at least the heuristic's first roll
        page.close()
