"""A game record as pictures: every position's SVG, an animated GIF, a self-contained HTML replay.

    python -m trash_env.rendering.media RECORD.json --gif game.gif --html game.html [--fps 2]

The HTML file holds every frame inline (no network, opens offline) with step, play/pause and a
slider, and names each move. Work in progress (issue 15).
"""

from __future__ import annotations

import argparse
import html
import json
from pathlib import Path
from typing import Any

from trash_env import core, neighbor
from trash_env.records import NEIGHBOR_GAME_NAME, load_record, replay
from trash_env.rendering.svg import neighbor_svg, trash_svg


def frames(record: dict[str, Any]) -> list[tuple[str, str]]:
    """(the move that led here, the table's SVG) for the start and after every action of ``record``."""
    is_neighbor = record.get("game") == NEIGHBOR_GAME_NAME
    draw = neighbor_svg if is_neighbor else trash_svg
    name = neighbor.action_name if is_neighbor else core.action_name
    out: list[tuple[str, str]] = []

    def on_step(state: Any, index: int, action: int) -> None:
        out.append(("start" if index < 0 else f"move {index + 1}: {name(action)}", draw(state)))

    replay(record, on_step)
    return out


def write_gif(record: dict[str, Any], path: Path, fps: float = 2.0) -> None:
    from PIL import Image

    from trash_env.files import atomic_path
    from trash_env.rendering.image import svg_to_rgb

    pictures = [Image.fromarray(svg_to_rgb(svg)) for _, svg in frames(record)]
    with atomic_path(path) as partial:
        pictures[0].save(
            partial, format="GIF", save_all=True, append_images=pictures[1:], duration=int(1000 / fps), loop=0
        )


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:sans-serif;background:#f4f4ee;margin:16px}} #move{{margin:8px 0;font-weight:bold}}</style>
</head><body>
<h1>{title}</h1>
<div id="table"></div>
<div id="move"></div>
<button id="back">&lt; step</button> <button id="play">play</button> <button id="next">step &gt;</button>
<input id="slider" type="range" min="0" max="{last}" value="0" style="width:60%">
<script>
const frames = {frames};
let i = 0, timer = null;
const show = k => {{ i = Math.max(0, Math.min(frames.length - 1, k));
  document.getElementById("table").innerHTML = frames[i][1];
  document.getElementById("move").textContent = `${{i}} / ${{frames.length - 1}}: ${{frames[i][0]}}`;
  document.getElementById("slider").value = i; }};
document.getElementById("back").onclick = () => show(i - 1);
document.getElementById("next").onclick = () => show(i + 1);
document.getElementById("slider").oninput = e => show(Number(e.target.value));
document.getElementById("play").onclick = e => {{
  if (timer) {{ clearInterval(timer); timer = null; e.target.textContent = "play"; return; }}
  e.target.textContent = "pause";
  timer = setInterval(() => {{ if (i >= frames.length - 1) {{ clearInterval(timer); timer = null;
    e.target.textContent = "play"; }} else show(i + 1); }}, {interval}); }};
show(0);
</script></body></html>
"""


def write_html(record: dict[str, Any], path: Path, fps: float = 2.0) -> None:
    from trash_env.files import write_text

    shown = frames(record)
    title = html.escape(f"{record.get('game', 'game')} replay")
    data = json.dumps(shown).replace("</", "<\\/")  # no "</script>" inside the script
    write_text(path, PAGE.format(title=title, last=len(shown) - 1, frames=data, interval=int(1000 / fps)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m trash_env.rendering.media", description=__doc__.splitlines()[0])
    parser.add_argument("record", type=Path)
    parser.add_argument("--gif", type=Path)
    parser.add_argument("--html", type=Path)
    parser.add_argument("--fps", type=float, default=2.0)
    args = parser.parse_args(argv)
    record = load_record(args.record)
    if args.gif:
        write_gif(record, args.gif, args.fps)
    if args.html:
        write_html(record, args.html, args.fps)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
