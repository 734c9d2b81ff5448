"""Play in the browser: ``trash-play --web`` serves one game at a time on Starlette and uvicorn.

    trash-play --web                                  # Trash against greedy, on a free port
    trash-play --web --game help_your_neighbor --port 8000
    trash-play --web --opponents counter --seat 1 --host 0.0.0.0   # reachable from the network

The server holds the game (:class:`agents.commands.table.Table`, the terminal's game loop too); the opponents,
the seat, the rules and the seed are fixed from the command line when it starts. The page
(``static/``: HTML, CSS and vanilla JavaScript, served by this package, nothing fetched from
elsewhere) shows the public table as the SVG of :mod:`trash_env.rendering.svg` (face-down cards as
backs, R2), the human's legal moves as buttons (``data-action`` = the action number of R13 or R14,
named with the game's ``action_name``), every move as it happens (each intermediate table in turn,
and the narrated log of :mod:`agents.commands.play`), and the result (``#result``). "New game" (``#new-game``)
deals the next game, with the next seed.

The page (``GET /``) comes with the game as it stands: the server writes the table's SVG and the
state (the answer of ``GET /api/state``, as a JSON data block the script reads) into ``index.html``,
so the first paint is the table and the page asks nothing before the player's first click.

The JSON API (every reply JSON; ``docs/play.md`` lists each field of each reply): ``GET /api/state``
(the game), ``POST /api/move`` with ``{"action": N}`` (optionally ``"game"`` and ``"position"``:
those of the state the move was chosen in, so that a move from a stale page, another tab or a
second click is refused instead of played elsewhere) and ``POST /api/new`` (an empty body or
``{}``: the browser never chooses agents, rules or files). A move or a new game is answered with
``{"state": ..., "steps": [...]}``: the state after it and every move played, the human's and then
the forced and agents' moves up to the human's next real choice (R13, R14) or the end. A refused
request gets ``{"error": "..."}`` with a 4xx status and leaves the game as it was: 400 for a body
that is not a JSON object, nests deeper than :data:`MAX_DEPTH`, has a missing or unknown field, or
an action that is not an integer or not legal now, and for a request addressed to another host
(below); 403 for a POST from a page of another site (its ``Origin``); 409 for a move when the game
is over, for another game or position, or when it is not the human's turn; 413 for a body over
:data:`MAX_BODY` bytes (refused on its ``Content-Length``, or once that many bytes have come,
before the rest is read); 415 for a non-empty body not sent as JSON; 404 and 405 for unknown paths
and methods. Anything else that goes wrong in answering is a 500, JSON too.

Every request is served under one lock. Unless ``--host`` says otherwise the server listens on
127.0.0.1 only. Listening on any loopback address (127.0.0.0/8, ``::1``, ``localhost`` or a name
that resolves to one), where only programs of this machine reach it, it answers only requests
addressed to it by the name it was given, its address, ``localhost``, ``127.0.0.1`` or ``[::1]``
(the ``Host`` header), so that a page of another site whose name is made to point here (DNS
rebinding) cannot use it; listening elsewhere (``--host 0.0.0.0``) it answers any.
"""

from __future__ import annotations

import html
import ipaddress
import json
import re
import reprlib
import signal
import socket
import sys
import threading
from collections.abc import Sequence
from importlib import resources
from typing import Any, TextIO

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agents.arguments import fail, program_name
from agents.base import Agent
from agents.commands.table import Table
from trash_env.rendering.media import script_json

COMMAND = "trash-play"  # the server is trash-play --web
DEFAULT_HOST = "127.0.0.1"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")  # what a request to a loopback server may be addressed to
MAX_BODY = 4096  # bytes: a move is a few
MAX_DEPTH = 10  # levels of JSON arrays and objects in a body: a move is one
MOVE_FIELDS = ("action", "game", "position")
ASSETS = {  # file in static/ -> content type
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}
SECURITY_HEADERS = {
    # Only this server's own scripts, styles and requests; inline SVG needs nothing more.
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
}


class ApiError(Exception):
    """A refused request: its HTTP status and the message for ``{"error": ...}``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Session:
    """The game being played in the browser (one at a time) and the log of its moves.

    Game ``k`` (from 1) is played with the seed ``seed + k - 1``; ``deal`` stacks the first game's
    deal (tests). Every method that reads or changes the game holds :attr:`lock`.
    """

    def __init__(self, config: Any, agents: Sequence[Agent | None], seed: int = 0, deal: Any = None) -> None:
        if list(agents).count(None) != 1:
            raise ValueError("exactly one seat must be the human's (None)")
        self.config = config
        self.agents = list(agents)
        self.seed = seed
        self.lock = threading.Lock()
        self.number = 0
        self.position = 0  # moves played in the current game
        self.table: Table
        self.log: list[str] = []
        with self.lock:
            self._start(deal)

    def _start(self, deal: Any = None) -> list[dict[str, Any]]:
        self.number += 1
        self.table = Table(self.config, self.agents, self.seed + self.number - 1, deal)
        self.position = 0
        self.log = []
        return self._advance()

    def _advance(self) -> list[dict[str, Any]]:
        """Forced moves and the agents' moves until the human has a real choice or the game is over."""
        steps = []
        while not self.table.over and not self.table.waiting:
            steps.append(self._step(self.table.automatic_action()))
        return steps

    def _step(self, action: int) -> dict[str, Any]:
        table = self.table
        seat = table.state.current
        lines = table.apply(action)
        self.position += 1
        self.log.extend(lines)
        return {
            "seat": seat,
            "player": table.names[seat],
            "action": action,
            "name": table.game.action_name(action),
            "lines": lines,
            "svg": self._svg(),
        }

    def _svg(self) -> str:
        """The table as the browser shows it: public (R2), every face-down card laid open once the game is over."""
        state = self.table.state
        return self.table.game.draw(state, self.table.names, reveal=state.over)

    def _view(self) -> dict[str, Any]:
        table = self.table
        state = table.state
        game = table.game
        legal = table.legal_actions() if table.waiting else []
        view: dict[str, Any] = {
            "game": self.number,
            "position": self.position,
            "rules": game.name,
            "title": table.introduction(),
            "names": table.names,
            "seat": table.human,
            "seed": table.seed,
            "over": state.over,
            "your_turn": table.waiting,
            "to_act": None if state.over else table.names[state.current],
            "legal": [{"action": a, "name": game.action_name(a), "text": table.choice_text(a)} for a in legal],
            "svg": self._svg(),
            "log": list(self.log),
            "result": None,
        }
        if state.over:
            returns = game.returns(state)
            view["result"] = {
                "text": table.result_text().removeprefix("result: "),
                "winners": [table.names[seat] for seat in state.winners],
                "returns": returns,
                "reward": returns[table.human],
                "truncated": bool(state.truncated),
            }
        return view

    def state(self) -> dict[str, Any]:
        with self.lock:
            return self._view()

    def new(self) -> dict[str, Any]:
        """The next game, played up to the human's first real choice."""
        with self.lock:
            steps = self._start()
            return {"state": self._view(), "steps": steps}

    def move(self, action: Any, game: Any = None, position: Any = None) -> dict[str, Any]:
        """The human's ``action`` (validated against the rules core first: an :class:`ApiError`
        leaves the game unchanged), then everything up to their next real choice. ``game`` and
        ``position``, if given, must be the current ones."""
        for name, value, what in (
            ("action", action, "an action number"),
            ("game", game, "the number of the game"),
            ("position", position, "the moves played so far"),
        ):
            if (value is not None or name == "action") and (isinstance(value, bool) or not isinstance(value, int)):
                raise ApiError(400, f"{name} must be an integer ({what}), got {json.dumps(value)}")
        with self.lock:
            table = self.table
            if game is not None and game != self.number:
                raise ApiError(409, f"the move is for game {game}, but game {self.number} is being played")
            if position is not None and position != self.position:
                raise ApiError(
                    409,
                    f"the move is for position {position}, but the game is at {self.position} (reload the page)",
                )
            if table.over:
                raise ApiError(409, "the game is over: start a new one (POST /api/new)")
            if not table.waiting:
                raise ApiError(409, f"it is not your turn: {table.names[table.state.current]} is to act")
            legal = table.legal_actions()
            if action not in legal:
                rules = table.narrator.action_rules
                if not 0 <= action < table.game.num_actions:
                    problem = f"action {action} is not an action of {rules} (0..{table.game.num_actions - 1})"
                else:
                    problem = f"action {action} ({table.game.action_name(action)}) is not legal now"
                choices = ", ".join(f"{a} ({table.game.action_name(a)})" for a in legal)
                raise ApiError(400, f"{problem}: the legal actions are {choices}")
            steps = [self._step(action)] + self._advance()
            return {"state": self._view(), "steps": steps}


def _same_origin(request: Request) -> None:
    """An :class:`ApiError` (403) for a POST a page of another site sent: browsers name the page's
    origin in ``Origin`` on every POST, and a bare one (``/api/new`` takes an empty body, which
    needs no JSON content type and so no permission asked first) must not reach the game from
    elsewhere. Clients that are no browser send no ``Origin`` and are served."""
    origin = request.headers.get("origin")
    if origin is not None and origin != f"{request.url.scheme}://{request.headers.get('host', '')}":
        raise ApiError(403, f"a request from the page of another site ({origin}) is refused")


async def _json_body(request: Request, empty: bool = False) -> Any:
    """The request's JSON body; ``None`` for an empty one. Unless ``empty`` (an empty body needs no
    content type), the body must be sent as JSON; an :class:`ApiError` for anything else: a body
    over :data:`MAX_BODY` bytes is refused before more of it is read, and one nested deeper than
    :data:`MAX_DEPTH` before it is parsed."""
    _same_origin(request)
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if kind != "application/json" and not empty:
        raise ApiError(415, "send the body as JSON (Content-Type: application/json)")
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > MAX_BODY:
        raise ApiError(413, f"the body is larger than {MAX_BODY} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise ApiError(413, f"the body is larger than {MAX_BODY} bytes")
    if not body.strip():
        return None
    if kind != "application/json":
        raise ApiError(415, "send the body as JSON (Content-Type: application/json)")
    if json_depth(bytes(body)) > MAX_DEPTH:
        raise ApiError(400, f"the body nests arrays and objects more than {MAX_DEPTH} levels deep")
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ApiError(400, f"the body is not valid JSON: {error}") from None


JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)  # a JSON string, its escapes included


def json_depth(body: bytes) -> int:
    """How deeply the JSON text ``body`` nests arrays and objects, counted without parsing it (its
    strings skipped), so that a body nested thousands deep never reaches the parser's recursion."""
    depth = deepest = 0
    for byte in JSON_STRING.sub(b"", body):
        if byte in b"[{":
            depth += 1
            deepest = max(deepest, depth)
        elif byte in b"]}":
            depth -= 1
    return deepest


def _fields(value: Any, allowed: Sequence[str], what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ApiError(400, f"the body must be a JSON object {what}, got {type(value).__name__}")
    unexpected = [key for key in value if key not in allowed]
    if unexpected:
        raise ApiError(400, f"unexpected field(s) {', '.join(map(repr, unexpected))}: the body is {what}")
    return value


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address, or a name) is a loopback address: 127.0.0.0/8, ``::1`` (or
    127.0.0.0/8 mapped into IPv6), or ``localhost``."""
    try:
        address = ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return host.lower() == "localhost"
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


HOST_HEADER = re.compile(r"(?:\[(?P<ipv6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9._-]+))(?::[0-9]*)?")  # host[:port]


def host_of(header: str | None) -> str | None:
    """The host a ``Host`` header names, lower case, an IP address in its usual form
    (``[0:0::1]:8000`` -> ``::1``); None for a missing or malformed header."""
    found = HOST_HEADER.fullmatch(header or "")
    if found is None:
        return None
    if found["ipv6"]:
        try:
            return str(ipaddress.IPv6Address(found["ipv6"]))
        except ValueError:
            return None
    return canonical_host(found["name"])


def canonical_host(host: str) -> str:
    """A host name in lower case, or an IP address in its usual form (``0:0::1`` -> ``::1``)."""
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return host.lower()


def hosts_for(host: str, bound: str) -> tuple[str, ...] | None:
    """What requests to a server listening on ``--host`` ``host`` (its socket bound to the address
    ``bound``) may be addressed to: on a loopback address, its name, its address and
    :data:`LOOPBACK_NAMES` (a name of another site pointed here, DNS rebinding, is refused); None
    (any host) elsewhere, where the server is meant to be reached from the network."""
    if not (is_loopback(host) or is_loopback(bound)):
        return None
    return tuple(dict.fromkeys((*LOOPBACK_NAMES, host, bound)))


class AddressedTo:
    """ASGI middleware: only requests whose ``Host`` header names one of ``hosts`` are served; any
    other is refused (400, JSON) before it reaches the game."""

    def __init__(self, app: ASGIApp, hosts: Sequence[str]) -> None:
        self.app = app
        self.hosts = tuple(dict.fromkeys(canonical_host(host) for host in hosts))
        self.names = ", ".join(f"[{host}]" if ":" in host else host for host in self.hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            header = Headers(scope=scope).get("host")
            if host_of(header) not in self.hosts:
                addressed = reprlib.repr(header)
                refused = f"a request addressed to {addressed} is refused: this server answers to {self.names} only"
                await _error(400, refused)(scope, receive, send)
                return
        await self.app(scope, receive, send)


class SecurityHeaders:
    """ASGI middleware: :data:`SECURITY_HEADERS` on every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)


def asset(name: str) -> bytes:
    """A file of the page, from the package's ``static/`` folder."""
    return resources.files(__package__).joinpath("static", name).read_bytes()


PAGE_MARKS = ("<!--title-->", "<!--table-->", "<!--state-->")  # where index.html takes the game


def page_with(template: str, view: dict[str, Any]) -> str:
    """``index.html`` holding the game ``view`` (:meth:`Session.state`): its title, the table's SVG
    and the whole state as a JSON data block (``<script type="application/json">``, which is data,
    not a script: the content security policy lets it be), so that the first paint is the table and
    the page's script starts without a request. ``<``, ``>`` and ``&`` are escaped in the JSON
    (:func:`trash_env.rendering.media.script_json`), so nothing in it can end the block."""
    data = script_json(view)
    filled = {"<!--title-->": html.escape(view["title"]), "<!--table-->": view["svg"], "<!--state-->": data}
    # One pass over the template: a mark inside a value put in is never replaced.
    return re.sub("|".join(map(re.escape, PAGE_MARKS)), lambda found: filled[found.group(0)], template)


def make_app(
    config: Any,
    agents: Sequence[Agent | None],
    seed: int = 0,
    deal: Any = None,
    allowed_hosts: Sequence[str] | None = None,
) -> Starlette:
    """The web app of one human (the seat whose agent is ``None``) against ``agents``, playing
    ``config``'s game (Trash or Help Your Neighbor); its :class:`Session` is ``app.state.session``.
    ``allowed_hosts``: the host names (or addresses) requests may be addressed to (None: any;
    :func:`hosts_for`). Every reply is JSON, an unexpected error's too (500)."""
    session = Session(config, agents, seed, deal)
    files = {name: (asset(name), kind) for name, kind in ASSETS.items()}
    template = files["index.html"][0].decode("utf-8")
    if any(template.count(mark) != 1 for mark in PAGE_MARKS):
        raise RuntimeError(f"static/index.html must hold each of {PAGE_MARKS} once")

    def page(name: str) -> Any:
        async def endpoint(request: Request) -> Response:
            body, kind = files[name]
            return Response(body, media_type=kind)

        return endpoint

    async def index(request: Request) -> Response:
        view = await run_in_threadpool(session.state)
        return Response(page_with(template, view), media_type=ASSETS["index.html"])

    async def state(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(session.state))

    async def move(request: Request) -> Response:
        body = _fields(await _json_body(request), MOVE_FIELDS, '{"action": N} (optionally with "game", "position")')
        if "action" not in body:
            raise ApiError(400, "missing field 'action': the body is {\"action\": N}")
        move = session.move
        return JSONResponse(await run_in_threadpool(move, body["action"], body.get("game"), body.get("position")))

    async def new(request: Request) -> Response:
        body = await _json_body(request, empty=True)
        if body is not None:
            _fields(body, (), "{} (a new game takes no options: they are fixed when the server starts)")
        return JSONResponse(await run_in_threadpool(session.new))

    async def api_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, ApiError)
        return _error(error.status, error.message)

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        if error.status_code == 404:
            return _error(404, f"no such page: {request.url.path}")
        if error.status_code == 405:
            return _error(405, f"{request.method} is not allowed on {request.url.path}")
        return _error(error.status_code, str(error.detail))

    async def server_error(request: Request, error: Exception) -> Response:
        # Starlette's ServerErrorMiddleware, outside the others: the security headers are added here.
        # It raises the error again once this is sent, so the server's terminal shows what went wrong.
        message = f"the server failed to answer {request.method} {request.url.path} ({type(error).__name__})"
        return _error(500, message, SECURITY_HEADERS)

    routes = [
        Route("/", index, methods=["GET"]),
        Route("/static/app.js", page("app.js"), methods=["GET"]),
        Route("/static/style.css", page("style.css"), methods=["GET"]),
        Route("/api/state", state, methods=["GET"]),
        Route("/api/move", move, methods=["POST"]),
        Route("/api/new", new, methods=["POST"]),
    ]
    middleware = [Middleware(SecurityHeaders)]
    if allowed_hosts is not None:
        middleware.append(Middleware(AddressedTo, hosts=list(allowed_hosts)))
    app = Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={ApiError: api_error, HTTPException: http_error, Exception: server_error},
    )
    app.state.session = session
    return app


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port`` (0: a free port); ``OSError`` if it cannot be had."""
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0][0]
    return socket.create_server((host, port), family=family)


def url_of(sock: socket.socket, host: str) -> str:
    port = sock.getsockname()[1]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/"


def run(app: Starlette, sock: socket.socket) -> int:
    """Serve ``app`` with uvicorn on the listening ``sock`` until SIGINT or SIGTERM (or, outside the
    main thread, until the server is told to exit); 128 + the signal number, or 0."""
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=2)
    )
    stopped_by: list[int] = []

    def stop(signum: int, frame: Any) -> None:
        # uvicorn handles the signals while it serves, then raises the one it stopped for again: here.
        stopped_by.append(signum)
        server.should_exit = True

    previous = {}
    if threading.current_thread() is threading.main_thread():  # signals reach only the main thread
        previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.run(sockets=[sock])
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        sock.close()
    return 128 + stopped_by[0] if stopped_by else 0


def serve(
    config: Any,
    agents: Sequence[Agent | None],
    seed: int = 0,
    host: str = DEFAULT_HOST,
    port: int = 0,
    out: TextIO | None = None,
) -> int:
    """The ``--web`` command: print the game and the URL (one line, ``Serving on URL (Ctrl-C to
    stop)``), serve until stopped; 2 if the address cannot be had, else :func:`run`'s status."""
    out = sys.stdout if out is None else out
    try:
        sock = listen(host, port)
    except OSError as error:
        return fail(program_name(COMMAND), f"cannot listen on {host} port {port}: {error.strerror or error}")
    app = make_app(config, agents, seed, allowed_hosts=hosts_for(host, sock.getsockname()[0]))
    print(app.state.session.table.introduction(), file=out)
    print(f"Serving on {url_of(sock, host)} (Ctrl-C to stop)", file=out, flush=True)
    code = run(app, sock)
    print(f"stopped{f' ({signal.Signals(code - 128).name})' if code else ''}.", file=out, flush=True)
    return code
