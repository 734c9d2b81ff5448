"""Tabular CFR on a reduced Trash, and the exact exploitability of the package's baselines there.

    python benchmarks/openspiel_cfr.py [--presets tiny micro] [--iterations 200]
        [--out docs/openspiel_cfr.json] [--plot docs/openspiel_cfr.png]

The reduced games are ``python_trash(preset=tiny)`` and ``python_trash(preset=micro)``
(:data:`trash_env.openspiel.REDUCED_PRESETS`: two players, a layout of two slots or one, no final
round, a draw after one turn each, chance nodes that draw a card when it is turned face up). For
each: its histories counted with OpenSpiel's ``get_all_states`` (and the time that took), OpenSpiel's
``CFRPlusSolver`` run for ``--iterations`` iterations with the exploitability of its average policy
at log-spaced iterations, and the exploitability of ``random``, ``greedy`` and ``counter`` (the
package's agents as OpenSpiel policies over their seat's view, :class:`agents.openspiel_bots.AgentPolicy`).
Exploitability is OpenSpiel's NashConv over two (``exploitability.nash_conv``, exact best
responses): the games are two-player zero-sum, so it is what a best response wins against the
policy, averaged over the two seats, 0 at a Nash equilibrium. ``search`` is left out: it draws
from its generator at every decision and has no policy to read off.

Times are CPU seconds of the process (``time.process_time``). The JSON file is written again
after every measurement; ``scripts/readme_tables.py`` makes the table
of ``docs/openspiel.md`` from it.
"""

from __future__ import annotations

import argparse
import platform
import time
from typing import Any

import pyspiel
from open_spiel.python.algorithms import cfr, exploitability, get_all_states

from agents.openspiel_bots import AgentPolicy
from agents.registry import make_agent
from trash_env import openspiel as osp
from trash_env.files import write_json

BASELINES = ("random", "greedy", "counter")


def checkpoints(iterations: int) -> list[int]:
    """1, 2, 5, 10, 20, 50, ... up to ``iterations``, which is always the last."""
    marks = [m * 10**e for e in range(7) for m in (1, 2, 5) if m * 10**e < iterations]
    return marks + [iterations]


def exploitability_of(game: Any, policy: Any) -> float:
    return float(exploitability.nash_conv(game, policy)) / game.num_players()


def count_states(game: Any) -> dict[str, Any]:
    start = time.process_time()
    states = get_all_states.get_all_states(game, include_terminals=True, include_chance_states=True)
    seconds = time.process_time() - start
    decisions = [s for s in states.values() if not s.is_terminal() and not s.is_chance_node()]
    return {
        "histories": len(states),
        "decision": len(decisions),
        "chance": sum(1 for s in states.values() if s.is_chance_node()),
        "terminal": sum(1 for s in states.values() if s.is_terminal()),
        "information_states": len({s.information_state_string() for s in decisions}),
        "seconds": seconds,
    }


def run(preset: str, iterations: int, record: dict[str, Any], save: Any) -> None:
    game = pyspiel.load_game(osp.TRASH_NAME, {"preset": preset})
    record.update(game=str(game), config=game.config.to_dict(), states=count_states(game), baselines={}, cfr=[])
    print(f"{game}: {record['states']}", flush=True)
    save()
    for name in BASELINES:
        start = time.process_time()
        value = exploitability_of(game, AgentPolicy(game, make_agent(name, "trash")))
        record["baselines"][name] = value
        print(f"  {name:8} exploitability {value:.6f}  ({time.process_time() - start:.1f} s)", flush=True)
        save()
    solver = cfr.CFRPlusSolver(game)
    done, spent = 0, 0.0
    for mark in checkpoints(iterations):
        start = time.process_time()
        for _ in range(mark - done):
            solver.evaluate_and_update_policy()
        spent += time.process_time() - start
        done = mark
        value = exploitability_of(game, solver.average_policy())
        record["cfr"].append({"iterations": mark, "exploitability": value, "seconds": spent})
        print(f"  CFR+ {mark:5} iterations: exploitability {value:.6f}  ({spent:.0f} s solving)", flush=True)
        save()


def plot(out: dict[str, Any], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(out["games"]), figsize=(5.5 * len(out["games"]), 4), squeeze=False)
    for axis, (preset, record) in zip(axes[0], out["games"].items()):
        curve = record["cfr"]
        axis.loglog([c["iterations"] for c in curve], [c["exploitability"] for c in curve], "o-", label="CFR+ average")
        for (name, value), style in zip(record["baselines"].items(), ("--", ":", "-.")):
            if value > 0:
                axis.axhline(value, linestyle=style, color="grey", label=f"{name} ({value:.3g})")
            else:
                axis.plot([], [], linestyle=style, color="grey", label=f"{name} (0)")
        axis.set_title(f"python_trash(preset={preset}): {record['states']['information_states']} information states")
        axis.set_xlabel("CFR+ iterations")
        axis.set_ylabel("exploitability (NashConv / 2)")
        axis.legend(fontsize=8)
        axis.grid(True, which="both", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=100)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presets", nargs="+", default=["tiny", "micro"], choices=sorted(osp.REDUCED_PRESETS))
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--out", default="docs/openspiel_cfr.json")
    parser.add_argument("--plot", default="docs/openspiel_cfr.png")
    args = parser.parse_args(argv)
    if args.iterations < 1:
        parser.error(f"--iterations must be at least 1, got {args.iterations}")
    out: dict[str, Any] = {
        "iterations": args.iterations,
        "solver": "CFRPlusSolver",
        "machine": f"{platform.machine()}, Python {platform.python_version()}, one process, CPU seconds",
        "games": {},
    }
    for preset in args.presets:
        out["games"][preset] = {}
        run(preset, args.iterations, out["games"][preset], lambda: write_json(args.out, out))
    plot(out, args.plot)


if __name__ == "__main__":
    main()
