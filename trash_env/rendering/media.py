"""A game record as pictures: every position's SVG, an animated GIF, a self-contained HTML replay.

    trash-replay RECORD.json --html game.html --gif game.gif [--fps 2]   # the command: agents.commands.replay

Records come from the environments (``env.unwrapped.record()``) or from evaluation
(``trash-evaluate A B --save-records DIR``). The HTML file holds every frame inline (no
network: it opens offline) with step, play/pause and a slider; it names each move and who made it,
marks forced moves (R13, R14), and for learned agents lists the probability their policy gave each
legal action, where the record has them. Needs the ``render`` extra.
"""

from __future__ import annotations

import html
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from trash_env.games import NEIGHBOR, TRASH, Game
from trash_env.records import NEIGHBOR_GAME_NAME, replay


@dataclass
class Frame:
    """One position of a replay: the move that led to it and the table after it."""

    label: str  # "start" or "move 12: player_1 (greedy) draws from the stock"
    svg: str
    forced: bool = False
    probabilities: list[tuple[str, float]] | None = None  # (action name, probability), the acting policy's


def short_name(name: str) -> str:
    """A player's name short enough for the table: a policy file's stem, at most 14 characters."""
    stem = Path(name).stem if ("/" in name or name.endswith((".zip", ".json"))) else name
    return stem if len(stem) <= 14 else stem[:13] + "~"


def frames(record: dict[str, Any]) -> list[Frame]:
    """The start and the position after every action of ``record``, each with its move named."""
    game: Game = NEIGHBOR if isinstance(record, dict) and record.get("game") == NEIGHBOR_GAME_NAME else TRASH
    players = record.get("players") if isinstance(record, dict) else None
    probabilities = record.get("probabilities") or []
    out: list[Frame] = []
    names: list[str] = []
    mover, forced = [0], [False]  # who acts next, and whether that move is forced (R13, R14)

    def on_step(state: Any, index: int, action: int) -> None:
        if index < 0:
            seats = [f"player_{seat}" for seat in range(state.num_players)]
            if isinstance(players, list) and len(players) == state.num_players:
                seats = [f"{seat} ({short_name(str(p))})" for seat, p in zip(seats, players, strict=True)]
            names.extend(seats)
            out.append(Frame("start", game.draw(state, names)))
        else:
            was_forced = forced[0]
            chances = probabilities[index] if index < len(probabilities) else None
            shown = None
            if isinstance(chances, dict):
                ranked = sorted(chances.items(), key=lambda item: -float(item[1]))
                shown = [(game.action_name(int(a)), float(p)) for a, p in ranked]
            label = f"move {index + 1}: {names[mover[0]]} {game.action_name(action)}"
            out.append(Frame(label + (" (forced)" if was_forced else ""), game.draw(state, names), was_forced, shown))
        mover[0], forced[0] = state.current, not state.over and game.forced_action(state) != -1

    replay(record, on_step)
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
#move{{margin:8px 0;font-weight:bold}} #move.forced{{color:#777;font-style:italic}}
#controls{{margin:8px 0}} #probabilities td{{padding:0 8px}} #probabilities .bar{{background:#1f6f43;height:10px}}
</style>
</head><body>
<h1>{title}</h1>
<p>{subtitle}</p>
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
function show(k) {{
  i = Math.max(0, Math.min(frames.length - 1, k));
  const f = frames[i];
  byId("table").innerHTML = f.svg;
  byId("move").textContent = `${{i}} / ${{frames.length - 1}}: ${{f.label}}`;
  byId("move").className = f.forced ? "forced" : "";
  byId("slider").value = i;
  const rows = (f.probabilities || []).map(([name, p]) =>
    `<tr><td>${{name}}</td><td>${{(100 * p).toFixed(1)}}%</td>` +
    `<td><div class="bar" style="width:${{Math.round(200 * p)}}px"></div></td></tr>`);
  byId("probabilities").innerHTML = rows.length ? "<tr><th colspan=3>the policy's probabilities</th></tr>" +
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


def replay_html(record: dict[str, Any], fps: float = 2.0, shown: list[Frame] | None = None) -> str:
    """The self-contained HTML replay of ``record`` (one string; no external resource; ``shown``:
    its :func:`frames`, if already made)."""
    shown = shown or frames(record)
    game = record.get("game", "game")
    subtitle = f"{len(shown) - 1} moves, {sum(frame.forced for frame in shown)} of them forced"
    if record.get("players"):
        subtitle += "; players: " + ", ".join(f"player_{s} {p}" for s, p in enumerate(record["players"]))
    data = json.dumps([asdict(frame) for frame in shown]).replace("</", "<\\/")  # no "</script>" inside
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
