"""The batched engine against `trash_v0` and `leduc_holdem_v4`, and MaskablePPO on its vector env.

All in one run, on this machine:

1. random legal play, decisions per second (observations and action masks
   included): the batched engine at B = 1, 64, 1024, 8192 games (actions drawn
   uniformly from the masks with NumPy, counted in the time), `trash_v0` and
   PettingZoo's `leduc_holdem_v4` through their AEC API (as benchmarks/bench_env.py);
2. MaskablePPO training timesteps per second at the same number of games:
   the batched engine's `TrashVecEnv` against SB3's `DummyVecEnv` and
   `SubprocVecEnv` over `TrashSingleAgentEnv`, with `random` opponents and
   the same model settings.

    python benchmarks/bench_batched.py                 # about 2 minutes
    python benchmarks/bench_batched.py --seconds 2 --timesteps 8192

Needs the batched, train and bench extras.
"""

from __future__ import annotations

import time

from bench_env import play_aec, play_engine
from figures import (  # this folder's: run as a script, its folder is on sys.path
    engine_speed_parser,
    one_torch_thread,
    write_figures,
)

import trash_env
from trash_env import make_config
from trash_env.trash.batched import TrashBatch


def play_batched(batch_size: int, seconds: float, seed: int) -> float:
    """Decisions/s of random play on the batched engine (fast mode, every seat asked)."""
    return play_engine(TrashBatch(make_config("standard"), batch_size, seed=seed), seconds, seed)


def train_speed(kind: str, n_envs: int, timesteps: int, seed: int) -> float:
    """MaskablePPO timesteps/s (learner decisions, updates included) on one kind of vector env."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from agents.baselines import RandomAgent
    from trash_env import TrashSingleAgentEnv
    from trash_env.trash.vec_env import TrashVecEnv

    if kind == "batched":
        env = TrashVecEnv(n_envs, opponents=["random"], seed=seed)
    else:
        env = make_vec_env(
            lambda: TrashSingleAgentEnv(opponents=[RandomAgent()]),
            n_envs=n_envs,
            seed=seed,
            vec_env_cls=SubprocVecEnv if kind == "subproc" else DummyVecEnv,
        )
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=max(8, 4096 // n_envs), batch_size=512, learning_rate=1e-4, seed=seed, verbose=0
    )
    model.learn(model.n_steps * n_envs)  # warm-up: compilation, process start
    start = time.perf_counter()
    model.learn(timesteps, reset_num_timesteps=False)
    elapsed = time.perf_counter() - start
    env.close()
    return timesteps / elapsed


def main() -> None:
    parser = engine_speed_parser(__doc__.splitlines()[0], "docs/speed/batched.json")
    parser.add_argument("--n-envs", type=int, nargs="+", default=[16, 64], help="games for the training comparison")
    args = parser.parse_args()
    print(one_torch_thread())
    from pettingzoo.classic import leduc_holdem_v4

    print("\n1. random legal play (observations and masks included), decisions per second")
    rows = [(f"batched engine, B = {b}", play_batched(b, args.seconds, args.seed)) for b in (1, 64, 1024, 8192)]
    trash = play_aec(trash_env.env, args.seconds, args.seed)[0]
    leduc = play_aec(leduc_holdem_v4.env, args.seconds, args.seed)[0]
    rows += [("trash_v0 via env()", trash), ("leduc_holdem_v4 via env()", leduc)]
    for name, rate in rows:
        print(f"  {name:30s} {rate:12,.0f}   {rate / trash:6.1f}x trash_v0   {rate / leduc:7.1f}x leduc")

    training = []
    print("\n2. MaskablePPO training (random opponents), timesteps per second")
    for n_envs in args.n_envs:
        speeds = {
            kind: train_speed(kind, n_envs, args.timesteps, args.seed) for kind in ("batched", "dummy", "subproc")
        }
        line = ", ".join(f"{kind} {speed:,.0f}" for kind, speed in speeds.items())
        ratio = speeds["batched"] / max(speeds["dummy"], speeds["subproc"])
        print(f"  {n_envs} games: {line}; batched / best scalar {ratio:.2f}x")
        training.append({"n_envs": n_envs, **speeds, "ratio": ratio})
    write_figures(
        args.json,
        {
            "random_play": dict(rows),
            "decisions_per_second": dict(rows)["batched engine, B = 1024"],
            "training": training,
        },
    )


if __name__ == "__main__":
    main()
