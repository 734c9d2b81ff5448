"""Hostile requests to ``trash-play --web`` (``agents.commands.web.server``, issue 23 items 8 and 10):
a body nested thousands deep or larger than the bound, a failure inside the server, and requests
addressed to a name of another site (DNS rebinding) when the server listens on any loopback address.

Each test sends the request itself with Starlette's TestClient and asserts the refusal (its status
and its JSON reply) and that the game is as it was.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from helpers import ROOT
from helpers.web import web_or_skip

from agents.commands import play

TestClient, web = web_or_skip()

JSON_BODY = {"content-type": "application/json"}


def app_for(allowed_hosts: Any = None) -> Any:
    """The app of a default game (Trash against greedy), its Host check as ``allowed_hosts`` says."""
    config, agents = play.setup(play.build_parser().parse_args([]))
    return web.make_app(config, agents, 0, allowed_hosts=allowed_hosts)


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(app_for()) as made:
        yield made


def assert_json_error(response: Any, status: int, message: str) -> None:
    """A refusal: ``status``, a JSON reply ``{"error": ...}`` holding ``message``, on one line."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    error = response.json()["error"]
    assert message in error and "\n" not in error


# --------------------------------------------------------------------------
# Bodies


DEEP = {
    "arrays": "[" * 2000 + "]" * 2000,  # 4,000 bytes: within the size bound
    "objects": '{"":' * 800 + "0" + "}" * 800,
    "in a move": '{"action": ' + "[" * 1500 + "]" * 1500 + "}",
}


@pytest.mark.parametrize("path", ["/api/move", "/api/new"])
@pytest.mark.parametrize("body", DEEP.values(), ids=DEEP.keys())
def test_a_body_nested_thousands_deep_is_a_json_400(client: TestClient, path: str, body: str) -> None:
    """Thousands of levels of arrays or objects in a body under the size bound, which made the JSON
    parser raise RecursionError (a text/plain 500), are refused as JSON (400) before parsing."""
    assert len(body) <= web.MAX_BODY
    before = client.get("/api/state").json()
    response = client.post(path, content=body.encode(), headers=JSON_BODY)
    assert_json_error(response, 400, f"the body nests arrays and objects more than {web.MAX_DEPTH} levels deep")
    assert client.get("/api/state").json() == before


def test_brackets_inside_strings_are_not_nesting(client: TestClient) -> None:
    """Brackets inside a JSON string (an escaped quote among them) are text, not nesting: such a body
    is read as any other and refused only for what it is (an unknown field), not for its depth."""
    before = client.get("/api/state").json()
    key = '[[[[[[[[[[[[\\"[[[[{{{{{{{{{{{{'
    response = client.post("/api/move", content=f'{{"{key}": 1}}'.encode(), headers=JSON_BODY)
    assert_json_error(response, 400, "unexpected field(s)")
    assert json.loads(f'"{key}"') in response.json()["error"]
    assert client.get("/api/state").json() == before


@pytest.mark.parametrize(("depth", "status", "message"), [(10, 400, "must be a JSON object"), (11, 400, "levels deep")])
def test_the_depth_bound_is_exact(client: TestClient, depth: int, status: int, message: str) -> None:
    """A body of exactly MAX_DEPTH levels is parsed (and refused as no move); one more level is not."""
    assert web.MAX_DEPTH == 10
    body = "[" * depth + "]" * depth
    assert_json_error(client.post("/api/move", content=body.encode(), headers=JSON_BODY), status, message)


def call(app: Any, headers: dict[str, str], chunks: list[bytes]) -> tuple[int, dict[str, str], Any, int]:
    """``POST /api/move`` straight to the ASGI ``app``, its body sent in ``chunks``: the status, the
    headers and the JSON of the reply, and how many chunks the app read."""
    received = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal received
        if received == len(chunks):
            return {"type": "http.disconnect"}
        received += 1
        return {"type": "http.request", "body": chunks[received - 1], "more_body": received < len(chunks)}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/move",
        "raw_path": b"/api/move",
        "root_path": "",
        "query_string": b"",
        "headers": [(name.encode(), value.encode()) for name, value in {"host": "testserver", **headers}.items()],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    asyncio.run(app(scope, receive, send))
    start = next(message for message in sent if message["type"] == "http.response.start")
    body = b"".join(message.get("body", b"") for message in sent if message["type"] == "http.response.body")
    reply_headers = {name.decode(): value.decode() for name, value in start["headers"]}
    return start["status"], reply_headers, json.loads(body), received


def test_a_body_declared_larger_than_the_bound_is_refused_unread() -> None:
    """A ``Content-Length`` over the bound is refused (413, JSON) on the header alone: not one
    chunk of the body is read."""
    app = app_for()
    before = app.state.session.state()
    headers = {**JSON_BODY, "content-length": str(10**9)}
    status, reply_headers, reply, received = call(app, headers, [b"{" * 1024] * 10)
    assert (status, reply) == (413, {"error": f"the body is larger than {web.MAX_BODY} bytes"})
    assert reply_headers["content-type"] == "application/json"
    assert received == 0
    assert app.state.session.state() == before


def test_a_large_body_without_a_length_is_refused_at_the_bound() -> None:
    """A body streamed in chunks with no ``Content-Length`` (or a false, small one) is refused (413)
    as soon as the bound is passed: the chunks after it are never read."""
    app = app_for()
    before = app.state.session.state()
    for headers in (JSON_BODY, {**JSON_BODY, "content-length": "2"}):
        status, _, reply, received = call(app, headers, [b" " * 1024] * 100)
        assert (status, reply) == (413, {"error": f"the body is larger than {web.MAX_BODY} bytes"})
        assert received == web.MAX_BODY // 1024 + 1
    assert app.state.session.state() == before


# --------------------------------------------------------------------------
# A failure inside the server


@pytest.mark.parametrize(("method", "path"), [("GET", "/api/state"), ("POST", "/api/new"), ("GET", "/")])
def test_an_unexpected_error_is_a_json_500(monkeypatch: pytest.MonkeyPatch, method: str, path: str) -> None:
    """Whatever goes wrong inside the server (here the game's state cannot be read) is answered
    500 with a JSON ``{"error": ...}`` naming the request, never text/plain, and with the page's
    security headers."""
    app = app_for()
    session = app.state.session

    def broken(*args: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(session, "state", broken)
    monkeypatch.setattr(session, "new", broken)
    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.request(method, path)
    assert_json_error(response, 500, f"the server failed to answer {method} {path} (RuntimeError)")
    for name, value in web.SECURITY_HEADERS.items():
        assert response.headers[name] == value


# --------------------------------------------------------------------------
# The Host check


@pytest.mark.parametrize(
    ("host", "bound", "good"),
    [
        ("127.0.0.1", "127.0.0.1", "127.0.0.1:8000"),
        ("127.0.0.2", "127.0.0.2", "127.0.0.2:8000"),
        ("127.255.0.9", "127.255.0.9", "127.255.0.9"),
        ("::1", "::1", "[::1]:8000"),
        ("localhost", "127.0.0.1", "localhost:8000"),
        ("localhost", "::1", "[::1]:8000"),
        ("::ffff:127.0.0.1", "::ffff:127.0.0.1", "[::ffff:127.0.0.1]:8000"),
        ("myhost", "127.0.1.1", "myhost:8000"),  # a name of this machine that resolves to loopback
    ],
)
def test_a_rebinding_name_is_refused_on_every_loopback_address(host: str, bound: str, good: str) -> None:
    """Served on any loopback address (127.0.0.0/8, ::1, localhost, or a name bound to one), a
    request addressed to a name of another site (DNS rebinding: ``evil.example`` pointed here) is
    refused (400, JSON) and does not reach the game; the server's own name and address are served."""
    app = app_for(web.hosts_for(host, bound))
    session = app.state.session
    with TestClient(app) as client:
        before = client.get("/api/state", headers={"host": good}).json()
        for header in ("evil.example", "evil.example:8000", "localhost.evil.example", "127.0.0.1.evil.example"):
            for method, path in (("GET", "/api/state"), ("GET", "/"), ("POST", "/api/new")):
                response = client.request(method, path, headers={"host": header})
                assert_json_error(response, 400, f"a request addressed to {header!r} is refused")
                assert response.headers["x-content-type-options"] == "nosniff"
        assert session.number == 1
        assert client.get("/api/state", headers={"host": good}).json() == before
        assert client.get("/", headers={"host": "LOCALHOST:1"}).status_code == 200


@pytest.mark.parametrize("header", ["[::1", "evil@localhost", "localhost:8000:1", "[127.0.0.1]", "", "a b"])
def test_a_malformed_host_header_is_refused(header: str) -> None:
    """A ``Host`` header that is not ``host[:port]`` (an unclosed IPv6 bracket, user info, two
    ports, an IPv4 address in brackets, nothing) is refused on a loopback server."""
    with TestClient(app_for(web.hosts_for("127.0.0.1", "127.0.0.1"))) as client:
        response = client.get("/api/state", headers={"host": header})
    assert_json_error(response, 400, "is refused: this server answers to 127.0.0.1, localhost, [::1] only")


@pytest.mark.parametrize(("host", "bound"), [("0.0.0.0", "0.0.0.0"), ("::", "::"), ("192.168.1.5", "192.168.1.5")])
def test_a_server_meant_for_the_network_answers_any_host(host: str, bound: str) -> None:
    """Listening beyond this machine (``--host 0.0.0.0``), the server is reached by whatever name
    the network gives it: no Host check (the Origin check still guards POSTs)."""
    assert web.hosts_for(host, bound) is None
    with TestClient(app_for(web.hosts_for(host, bound))) as client:
        assert client.get("/api/state", headers={"host": "my-laptop.lan:8000"}).status_code == 200


@pytest.mark.parametrize("host", ["127.0.0.2", "::1"])
def test_the_command_turns_the_host_check_on_for_a_loopback_address(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, host: str
) -> None:
    """``trash-play --web --host 127.0.0.2`` (or ``::1``), which listened with no Host check, serves
    an app that refuses a rebinding name: :func:`serve` decides on the address it listens on.
    (The app is taken from the server instead of being served.)"""
    if host == "::1" and not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    served: list[Any] = []

    def run(app: Any, sock: socket.socket) -> int:
        served.append(app)
        sock.close()
        return 0

    monkeypatch.setattr(web, "run", run)
    config, agents = play.setup(play.build_parser().parse_args([]))
    code = web.serve(config, agents, host=host, port=0)
    if code == 2 and "cannot listen" in capsys.readouterr().err:
        pytest.skip(f"cannot listen on {host} here")
    assert code == 0
    (app,) = served
    with TestClient(app) as client:
        response = client.get("/api/state", headers={"host": "evil.example:8000"})
        assert_json_error(response, 400, "a request addressed to 'evil.example:8000' is refused")
        own = f"[{host}]:8000" if ":" in host else f"{host}:8000"
        assert client.get("/api/state", headers={"host": own}).status_code == 200


def test_the_documented_bounds_are_the_servers() -> None:
    """docs/play.md states the body's bounds the server keeps: its size in bytes and its depth."""
    text = " ".join((ROOT / "docs" / "play.md").read_text().split())
    assert f"a body over {web.MAX_BODY} bytes" in text
    assert f"nests arrays and objects more than {web.MAX_DEPTH} levels deep" in text
