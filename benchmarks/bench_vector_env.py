"""The Gymnasium ``VectorEnv`` over each batched engine (``gymnasium.make_vec(ID, num_envs)``) against the
Stable-Baselines3 ``VecEnv`` over the same engine, in one run: learner steps a second, every game in
lockstep, random legal actions (drawn for all games at once from the masks), alternating rounds so that
both see the same machine load. Prints the figures and, with ``--json``, writes them::

    python benchmarks/bench_vector_env.py --num-envs 1024 --steps 200 --rounds 5 --json docs/speed/vector_env.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks``."""
    return np.argmax(np.where(masks > 0, rng.random(masks.shape), -1.0), axis=1)


def gymnasium_rate(env_id: str, num_envs: int, steps: int, seed: int) -> float:
    import gymnasium

    envs = gymnasium.make_vec(env_id, num_envs=num_envs, opponents=["random"])
    rng = np.random.default_rng(seed)
    _, infos = envs.reset(seed=seed)
    began = time.perf_counter()
    for _ in range(steps):
        _, _, _, _, infos = envs.step(random_legal(infos["action_mask"], rng))
    return steps * num_envs / (time.perf_counter() - began)


def sb3_rate(game: str, num_envs: int, steps: int, seed: int) -> float:
    from trash_env.games import get_game

    venv = get_game(game).vec_env(num_envs, opponents=["random"], seed=seed)
    rng = np.random.default_rng(seed)
    venv.reset()
    began = time.perf_counter()
    for _ in range(steps):
        venv.step(random_legal(venv.action_masks(), rng))
    return steps * num_envs / (time.perf_counter() - began)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=200, help="learner steps of every game per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    import trash_env  # noqa: F401  (registers the ids)
    from trash_env.games import GAMES

    figures = {}
    for name, game in GAMES.items():
        gymnasium_rate(game.single_agent_id, 8, 5, 0)  # compile (cached) and warm up both
        sb3_rate(name, 8, 5, 0)
        rates: dict[str, list[float]] = {"gymnasium": [], "sb3": []}
        for k in range(args.rounds):
            rates["gymnasium"].append(gymnasium_rate(game.single_agent_id, args.num_envs, args.steps, k))
            rates["sb3"].append(sb3_rate(name, args.num_envs, args.steps, k))
        medians = {face: statistics.median(values) for face, values in rates.items()}
        figures[name] = {
            "steps_per_second": {face: round(value) for face, value in medians.items()},
            "rounds": {face: [round(v) for v in values] for face, values in rates.items()},
            "gymnasium_over_sb3": round(medians["gymnasium"] / medians["sb3"], 3),
        }
        print(
            f"{name}: Gymnasium VectorEnv {medians['gymnasium']:,.0f} learner steps/s, SB3 VecEnv "
            f"{medians['sb3']:,.0f} ({figures[name]['gymnasium_over_sb3']:.2f}x), {args.num_envs} games, "
            f"median of {args.rounds} rounds",
            flush=True,
        )
    if args.json:
        settings = {"num_envs": args.num_envs, "steps": args.steps, "rounds": args.rounds}
        args.json.write_text(json.dumps({"settings": settings, "figures": figures}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
