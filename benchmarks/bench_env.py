"""Random legal play: the Trash core, `trash_v0`, PettingZoo's `leduc_holdem_v4` and Help Your Neighbor in one run.

Prints decisions per second and hands (games) per second for each, and the ratio of
`trash_v0` to `leduc_holdem_v4`. Every player picks uniformly among the legal
actions in the action mask, with the same cheap chooser for both envs (uniform
floats drawn in advance), so the chooser costs both the same.

    python benchmarks/bench_env.py              # about 5 x 5 s
    python benchmarks/bench_env.py --seconds 10

Needs the ``bench`` extra for leduc (``pip install -e .[bench]``: rlcard, pygame).
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from figures import write_figures  # this folder's: run as a script, its folder is on sys.path

import trash_env
from trash_env import help_your_neighbor_v0
from trash_env.games import NEIGHBOR, TRASH, Game


class UniformChooser:
    """Picks uniformly among legal actions with pre-drawn floats (seeded)."""

    def __init__(self, seed: int, size: int = 1 << 20) -> None:
        self.floats = np.random.default_rng(seed).random(size).tolist()
        self.size = size
        self.k = 0

    def pick(self, legal) -> int:  # a list or an index array
        self.k += 1
        return int(legal[int(self.floats[self.k % self.size] * len(legal))])


def play_engine(batch: Any, seconds: float, seed: int) -> float:
    """Decisions/s of random legal play on a batched engine (``TrashBatch`` or ``NeighborBatch``, fast
    mode, every seat asked): the actions drawn from the masks with NumPy, counted in the time."""
    batch_size = batch.masks.shape[0]
    _, masks = batch.reset()
    batch.step(masks.argmax(axis=1))  # compiled code loaded before timing
    rng = np.random.default_rng(seed)
    decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        weights = rng.random(masks.shape, dtype=np.float32)
        weights *= masks
        _, masks, _, _ = batch.step(weights.argmax(axis=1))
        decisions += batch_size
    return decisions / (time.perf_counter() - start)


def play_aec(make_env: Callable, seconds: float, seed: int) -> tuple[float, float]:
    """Decisions/s and hands/s of random masked play on an AEC env through its public API."""
    env = make_env()
    env.reset(seed=seed)
    chooser = UniformChooser(seed)
    decisions = hands = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset()
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                action = chooser.pick(obs["action_mask"].nonzero()[0])
                decisions += 1
            env.step(action)
        hands += 1
    elapsed = time.perf_counter() - start
    return decisions / elapsed, hands / elapsed


def play_core(seconds: float, seed: int, game: Game = TRASH, **overrides) -> tuple[float, float]:
    """Decisions/s and games/s of random play on a rules core alone, forced moves skipped (R13, R14)."""
    config = game.make_config(**overrides)
    rng = np.random.default_rng(seed)
    chooser = UniformChooser(seed)
    decisions = hands = 0
    new_game, play_forced, apply_action, legal_actions = (
        game.new_game,
        game.play_forced,
        game.apply_action,
        game.legal_actions,
    )
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = new_game(config, rng, None)
        play_forced(state, rng)
        while not state.over:
            apply_action(state, chooser.pick(legal_actions(state)), rng)
            play_forced(state, rng)
            decisions += 1
        hands += 1
    elapsed = time.perf_counter() - start
    return decisions / elapsed, hands / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="also write the figures here (make bench: docs/speed/env.json)")
    args = parser.parse_args()

    try:
        from pettingzoo.classic import leduc_holdem_v4
    except ImportError as error:
        raise SystemExit(f"leduc_holdem_v4 needs the bench extra: pip install -e '.[bench]' ({error})") from None

    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}, one process")
    rows = [
        ("core alone (standard, 2 players)", *play_core(args.seconds, args.seed)),
        ("trash_v0 via env() (standard, 2 players)", *play_aec(trash_env.env, args.seconds, args.seed)),
        ("leduc_holdem_v4 via env()", *play_aec(leduc_holdem_v4.env, args.seconds, args.seed)),
        ("Help Your Neighbor core alone (2 players)", *play_core(args.seconds, args.seed, NEIGHBOR)),
        ("help_your_neighbor_v0 via env() (2 players)", *play_aec(help_your_neighbor_v0.env, args.seconds, args.seed)),
    ]
    print(f"{'':44s} {'decisions/s':>12s} {'games/s':>10s}")
    for name, decisions, hands in rows:
        print(f"{name:44s} {decisions:12,.0f} {hands:10,.0f}")
    print(f"trash_v0 / leduc_holdem_v4 decisions per second: {rows[1][1] / rows[2][1]:.2f}x")
    write_figures(
        args.json,
        {
            "rows": [{"what": name, "decisions_per_second": d, "games_per_second": g} for name, d, g in rows],
            "trash_v0_decisions_per_second": rows[1][1],
            "trash_v0_over_leduc": rows[1][1] / rows[2][1],
        },
    )


if __name__ == "__main__":
    main()
