"""Self-play training speed: the batched engine against SB3's vector env over the scalar env.

Two runs of ``train.py --self-play-only`` in one process that differ only in ``--batched``: MaskablePPO
against frozen snapshots of itself, the same games, settings, budget and seed. On the batched engine
the snapshots are asked for all their waiting games at once (``TrashVecEnv``); on SB3's
``DummyVecEnv`` over ``TrashSingleAgentEnv`` each snapshot decides one position at a time. Prints
timesteps (learner decisions, updates included) per second of each and their ratio, after an
untimed warm-up run of each (imports and the engine's compiled code are paid once).

    python benchmarks/bench_selfplay.py        # 256 games, minibatches of 2048, 4 epochs, 100,000 timesteps
    python benchmarks/bench_selfplay.py --n-envs 64 --batch-size 512 --n-epochs 10    # SB3's default epochs
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from figures import write_figures

from agents.training import sb3 as train


def run(batched: bool, args: argparse.Namespace, out_dir: Path) -> float:
    """Timesteps per second of one self-play run."""
    start = time.perf_counter()
    result = train.train(
        train.Args(
            run_name="batched" if batched else "dummy",
            out_dir=out_dir,
            batched=batched,
            self_play_only=True,
            opponents=[],
            n_envs=args.n_envs,
            total_timesteps=args.timesteps,
            snapshot_every=args.snapshot_every,
            pool_size=5,
            seed=args.seed,
            n_steps=max(16, 8192 // args.n_envs),
            batch_size=args.batch_size,
            n_epochs=args.n_epochs,
            eval_every=0,
            final_eval_deals=0,
            checkpoint_every=0,
            progress_bar=False,
            tensorboard=False,
        )
    )
    return result.timesteps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=100_000)
    parser.add_argument("--n-envs", type=int, default=256)
    parser.add_argument("--snapshot-every", type=int, default=20_000)
    parser.add_argument("--batch-size", type=int, default=2048)
    parser.add_argument("--n-epochs", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="also write the figures here (make bench: docs/speed/selfplay*.json)")
    args = parser.parse_args()
    torch.set_num_threads(1)  # the same for both runs; faster for these small networks here
    print(
        f"MaskablePPO self-play only (standard, 2 players), {args.n_envs} games, {args.timesteps:,} timesteps, "
        f"a snapshot every {args.snapshot_every:,}, {8192 // args.n_envs * args.n_envs} steps per update, "
        f"minibatches of {args.batch_size}, {args.n_epochs} epochs, torch with one thread"
    )
    with tempfile.TemporaryDirectory() as folder:
        warm_up = argparse.Namespace(**{**vars(args), "timesteps": 2 * 8192, "snapshot_every": 8192})
        for batched in (True, False):  # imports, the engine's compiled code: paid once, not timed
            run(batched, warm_up, Path(folder) / "warm_up")
        rates = {batched: run(batched, args, Path(folder)) for batched in (True, False)}
    print(f"  TrashVecEnv (batched engine, snapshots asked in batches): {rates[True]:8,.0f} timesteps/s")
    print(f"  DummyVecEnv over TrashSingleAgentEnv (SB3, one at a time): {rates[False]:8,.0f} timesteps/s")
    print(f"  batched / SB3: {rates[True] / rates[False]:.2f}x")
    settings = {key: getattr(args, key) for key in ("timesteps", "n_envs", "snapshot_every", "batch_size", "n_epochs")}
    write_figures(
        args.json,
        {"settings": settings, "batched": rates[True], "dummy": rates[False], "ratio": rates[True] / rates[False]},
    )


if __name__ == "__main__":
    main()
