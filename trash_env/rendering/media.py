"""A game record as pictures: every position's SVG, an animated GIF, a self-contained HTML replay.

    trash-replay RECORD.json --html game.html --gif game.gif [--fps 2]   # the command: agents.commands.replay

Records come from the environments (``env.unwrapped.game_record()``) or from evaluation
(``trash-evaluate A B --save-records DIR``). There is one frame per position: the start, the
position before each move, and the end. Each frame shows a decision with the position it was made
in: who moved and what they played, marked when forced (R13, R14), and for learned agents the
probability their policy gave each legal action, where the record has them; the next frame shows
its result, and the last the end of the game. The HTML file holds every frame inline (no network:
it opens offline) with step, play/pause and a slider. Players are named in full, a policy by its
file's name. Needs the ``render`` extra.

What a record holds is shown as text, never read as markup: a player's name is escaped in the
page's HTML and in its SVG, and the frames' JSON inside the page's script has ``<``, ``>`` and ``&``
escaped (:func:`script_json`). Only a record that :func:`trash_env.records.replay` accepts (its
actions legal, its stated result the one they give) is drawn.
"""

from __future__ import annotations

import html
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from trash_env.game import Game, game_of_record
from trash_env.records import check_record, replay


@dataclass
class Frame:
    """One position of a replay and the decision made in it (none in the last frame, the end)."""

    label: str  # "move 12: player_1 (greedy): draw from the stock", or at the end "end: won by player_1 (greedy)"
    svg: str  # the position the decision is made in (the last frame: the end)
    forced: bool = False  # whether the decision is forced (R13, R14)
    probabilities: list[tuple[str, float]] | None = None  # (action name, probability), the deciding policy's
    after: str = ""  # what led to the position: "the start", or "after move 11: player_0 (random): discard"
    action: str | None = None  # the name of the action played here (one of ``probabilities``), None at the end


def is_file_name(name: str) -> bool:
    """Whether a player's name (an agent spec) is a policy file or folder rather than an agent's name."""
    return "/" in name or "\\" in name or name.endswith((".zip", ".json"))


def short_name(name: str) -> str:
    """A player's name for the table: a policy file's stem (``standard_2p_maskable_ppo``), any other
    name as it is. Never cut: the whole name is shown."""
    return Path(name.replace("\\", "/")).stem if is_file_name(name) else name


def file_name(name: str) -> str:
    """A player's name for the replay's header: a policy by its file's name
    (``standard_2p_maskable_ppo.zip``, not the path it was loaded from), any other name as it is."""
    return Path(name.replace("\\", "/")).name if is_file_name(name) else name


def seat_names(record: dict[str, Any], num_players: int) -> list[str]:
    """``player_i (name)`` per seat from the record's ``players`` (:func:`short_name`), or
    ``player_i`` when the record names none."""
    seats = [f"player_{seat}" for seat in range(num_players)]
    players = record.get("players")
    if isinstance(players, list) and len(players) == num_players:
        return [f"{seat} ({short_name(str(p))})" for seat, p in zip(seats, players, strict=True)]
    return seats


def _ending(state: Any, names: list[str]) -> str:
    if not state.over:
        return "end of the record: the game goes on"
    if state.winners:
        return "end: won by " + ", ".join(names[seat] for seat in state.winners)
    return "end: a draw at the turn limit" if state.truncated else "end: a draw"


def frames(record: dict[str, Any]) -> list[Frame]:
    """One frame per position of ``record``: the position before each of its actions with that
    decision (its mover, its action, whether it was forced, its probabilities), then the end."""
    check_record(record)  # before anything is drawn: a record of a known game, its fields of their types
    game: Game = game_of_record(record)
    probabilities = (record.get("probabilities") or []) if isinstance(record, dict) else []
    positions: list[tuple[str, int, bool]] = []  # (svg, who acts, whether their move is forced) per position
    names: list[str] = []

    def on_step(state: Any, index: int, action: int) -> None:
        if index < 0:
            names.extend(seat_names(record, state.num_players))
        forced = not state.over and game.forced_action(state) != -1
        positions.append((game.draw(state, names), state.current, forced))

    final = replay(record, on_step)
    out: list[Frame] = []
    after = "the start"
    for index, action in enumerate(record["actions"]):
        svg, mover, forced = positions[index]
        move = f"move {index + 1}: {names[mover]}: {game.action_name(action)}"
        chances = probabilities[index] if index < len(probabilities) else None
        shown = None
        if isinstance(chances, dict):
            ranked = sorted(chances.items(), key=lambda item: -float(item[1]))
            shown = [(game.action_name(int(a)), float(p)) for a, p in ranked]
        label = move + (" (forced)" if forced else "")
        out.append(Frame(label, svg, forced, shown, after, game.action_name(action)))
        after = "after " + label
    out.append(Frame(_ending(final, names), positions[-1][0], after=after))
    return out


def write_gif(record: dict[str, Any], path: str | Path, fps: float = 2.0, shown: list[Frame] | None = None) -> None:
    """An animated GIF of the record, one frame per position, looping (``shown``: its
    :func:`frames`, if already made)."""
    from PIL import Image

    from trash_env.files import atomic_path
    from trash_env.rendering.image import svg_to_rgb

    pictures = [Image.fromarray(svg_to_rgb(frame.svg)) for frame in shown or frames(record)]
    with atomic_path(path) as partial:
        pictures[0].save(
            partial, format="GIF", save_all=True, append_images=pictures[1:], duration=int(1000 / fps), loop=0
        )


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body{{font-family:sans-serif;background:#f4f4ee;margin:16px;color:#1b1b1b}}
#after{{margin:8px 0;color:#555}}
#move{{margin:8px 0;font-weight:bold}} #move.forced{{color:#777;font-style:italic}}
#controls{{margin:8px 0}} #probabilities td{{padding:0 8px}} #probabilities .bar{{background:#1f6f43;height:10px}}
#probabilities tr.played td{{font-weight:bold}}
</style>
</head><body>
<h1>{title}</h1>
<p>{subtitle}</p>
<div id="after"></div>
<div id="table"></div>
<div id="move"></div>
<div id="controls">
<button id="first">|&lt;</button> <button id="back">&lt; step</button> <button id="play">play</button>
<button id="next">step &gt;</button> <button id="last">&gt;|</button>
<input id="slider" type="range" min="0" max="{last}" value="0" style="width:50%">
<label><input id="skip" type="checkbox"> play skips forced moves</label>
</div>
<table id="probabilities"></table>
<script>
const frames = {frames};
let i = 0, timer = null;
const byId = id => document.getElementById(id);
const escaped = text => text.replace(/[&<>"]/g, c => ({{"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}})[c]);
function show(k) {{
  i = Math.max(0, Math.min(frames.length - 1, k));
  const f = frames[i];
  byId("after").textContent = f.after;
  byId("table").innerHTML = f.svg;
  byId("move").textContent = `${{i + 1}} / ${{frames.length}}: ${{f.label}}`;
  byId("move").className = f.forced ? "forced" : "";
  byId("slider").value = i;
  const rows = (f.probabilities || []).map(([name, p]) =>
    `<tr${{name === f.action ? ' class="played"' : ""}}><td>${{escaped(name)}}</td>` +
    `<td>${{(100 * p).toFixed(1)}}%</td><td><div class="bar" style="width:${{Math.round(200 * p)}}px"></div></td>` +
    `<td>${{name === f.action ? "played" : ""}}</td></tr>`);
  byId("probabilities").innerHTML = rows.length ? "<tr><th colspan=4>the policy's probabilities here</th></tr>" +
    rows.join("") : "";
}}
function step() {{
  let k = i + 1;
  while (byId("skip").checked && k < frames.length - 1 && frames[k].forced) k++;
  show(k);
}}
function stop() {{ clearInterval(timer); timer = null; byId("play").textContent = "play"; }}
byId("first").onclick = () => show(0);
byId("last").onclick = () => show(frames.length - 1);
byId("back").onclick = () => show(i - 1);
byId("next").onclick = step;
byId("slider").oninput = e => show(Number(e.target.value));
byId("play").onclick = () => {{
  if (timer) return stop();
  byId("play").textContent = "pause";
  timer = setInterval(() => {{ if (i >= frames.length - 1) stop(); else step(); }}, {interval});
}};
show(0);
</script></body></html>
"""


SCRIPT_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def script_json(value: Any) -> str:
    """``value`` as JSON to put inside an HTML ``<script>`` element: ``<``, ``>`` and ``&`` are
    written as JSON escapes (``\\u003c`` ...), and every character beyond ASCII too (the line
    separators U+2028 and U+2029 among them: ``ensure_ascii``), so that no text in it (a player's
    name with ``</script>`` or ``<!--<script>``) can end the element or change how the HTML parser
    reads it; ``json.loads`` (or the script) reads the same value back."""
    text = json.dumps(value, ensure_ascii=True)
    return text.translate(SCRIPT_ESCAPES)


def replay_html(record: dict[str, Any], fps: float = 2.0, shown: list[Frame] | None = None) -> str:
    """The self-contained HTML replay of ``record`` (one string; no external resource; ``shown``:
    its :func:`frames`, if already made)."""
    shown = shown or frames(record)
    game = record.get("game", "game")
    subtitle = f"{len(shown) - 1} moves, {sum(frame.forced for frame in shown)} of them forced"
    if record.get("players"):
        players = ", ".join(f"player_{s} {file_name(str(p))}" for s, p in enumerate(record["players"]))
        subtitle += f"; players: {players}"
    data = script_json([asdict(frame) for frame in shown])
    return PAGE.format(
        title=html.escape(f"{game} replay"),
        subtitle=html.escape(subtitle),
        last=len(shown) - 1,
        frames=data,
        interval=int(1000 / fps),
    )


def write_html(record: dict[str, Any], path: str | Path, fps: float = 2.0, shown: list[Frame] | None = None) -> None:
    from trash_env.files import write_text

    write_text(path, replay_html(record, fps, shown))


def check_fps(fps: float) -> None:
    """A ValueError naming ``--fps`` unless it is a rate a GIF and the replay can play."""
    if not 0 < fps <= 50:
        raise ValueError(f"--fps must be above 0 and at most 50, got {fps}")
