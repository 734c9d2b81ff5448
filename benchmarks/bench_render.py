"""Drawing speed: the SVG of a table, and its rasterisation by each candidate library (issue 15).

    python benchmarks/bench_render.py            # a 3-player Trash match table and a 3-player HYN table

Prints milliseconds per frame: the SVG (drawsvg), then PNG bytes with resvg-py (a Rust wheel, no
system libraries) with the shipped font subset (what ``rgb_array`` uses) and with every system font,
with CairoSVG (a peer; it needs the system's libcairo, so it is not a dependency), and the decode to
an (H, W, 3) uint8 array with Pillow, then a whole ``env.render()``.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable

import numpy as np

from trash_env import help_your_neighbor_v0, trash_v0
from trash_env.neighbor.drawing import neighbor_svg
from trash_env.rendering.image import FONTS
from trash_env.trash.drawing import trash_svg


def per_call(function: Callable[[], object], repeats: int = 20) -> float:
    function()
    start = time.perf_counter()
    for _ in range(repeats):
        function()
    return (time.perf_counter() - start) / repeats * 1000


def played(module, steps: int, **kwargs):
    env = module.env(render_mode="rgb_array", **kwargs)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for i, _ in enumerate(env.agent_iter()):
        observation, _, terminated, truncated, _ = env.last()
        if i == steps:
            break
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return env


def measure(name: str, draw: Callable, state: object, env: object) -> None:
    import resvg_py
    from PIL import Image

    svg = draw(state)
    png = bytes(resvg_py.svg_to_bytes(svg_string=svg))
    shape = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).shape
    print(f"{name} ({shape[1]} x {shape[0]} pixels)")
    print(f"  SVG (drawsvg)                    {per_call(lambda: draw(state)):7.1f} ms")
    shipped = lambda: resvg_py.svg_to_bytes(svg_string=svg, skip_system_fonts=True, font_files=FONTS)  # noqa: E731
    print(f"  resvg-py, the shipped fonts      {per_call(shipped):7.1f} ms")
    print(f"  resvg-py, every system font      {per_call(lambda: resvg_py.svg_to_bytes(svg_string=svg)):7.1f} ms")
    try:
        import cairosvg

        cairo = per_call(lambda: cairosvg.svg2png(bytestring=svg.encode()))
        print(f"  CairoSVG (peer, system libcairo) {cairo:7.1f} ms")
    except (ImportError, OSError) as error:
        print(f"  CairoSVG (peer): not available ({type(error).__name__})")
    decode = lambda: np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))  # noqa: E731
    print(f"  PNG to (H, W, 3) uint8 (Pillow)  {per_call(decode):7.1f} ms")
    print(f"  env.render(), rgb_array, in all  {per_call(env.render):7.1f} ms")


def main() -> None:
    tables = {
        "trash, 3 players, match": (trash_svg, played(trash_v0, 60, num_players=3, match=True)),
        "help your neighbor, 3 players": (neighbor_svg, played(help_your_neighbor_v0, 40, num_players=3)),
    }
    for name, (draw, env) in tables.items():
        measure(name, draw, env.unwrapped.game_state, env)


if __name__ == "__main__":
    main()
