"""Why the batched engine is Numba: the observation encoding alone, NumPy-vectorised vs compiled.

Encoding the observations (the layout of trash_v0) and action masks of a batch
is one part of every step. This script encodes the same B positions with
whole-batch NumPy operations and with the engine's compiled loop, and prints
nanoseconds per game. NumPy's cost is that of the encoding alone; a NumPy
engine would add the rules, whose placement cascades (R5) and forced moves
(R13) take a varying number of sub-steps per game and so need masked
iterations over the whole batch.

    python benchmarks/numpy_vs_numba.py
"""

from __future__ import annotations

import time

import numpy as np

from trash_env import make_config
from trash_env.trash import batched
from trash_env.trash.batched import CUR, DISCN, HELD, NHW, PHASE, STOCKN, TrashBatch


def numpy_encode(batch: TrashBatch) -> np.ndarray:
    """The observations of every game's acting seat with whole-batch NumPy operations."""
    v, config = batch.arrays, batch.config
    b_count, p = batch.batch_size, config.num_players
    rows = np.arange(b_count)
    s = v.s
    seat = s[:, CUR].astype(np.int64)
    out = np.zeros((b_count, batch.observer.size), np.float32)
    phase = s[:, PHASE]
    out[rows[phase == 0], 0] = 1
    placing = phase == 1
    out[rows[placing], 1] = 1
    out[rows[placing], 2 + s[placing, HELD]] = 1
    has_discard = s[:, DISCN] > 0
    top = v.disc[rows, np.maximum(s[:, DISCN] - 1, 0)]
    out[rows[has_discard], 16 + top[has_discard]] = 1
    order = (seat[:, None] + np.arange(p)[None, :]) % p  # [B, P] seats from the observer's
    up = v.up[rows[:, None], order]  # [B, P, 10]
    slot_rank = np.arange(1, 11)[None, None, :]
    kind = np.where(up == -2, 3, np.where(up == -1, 0, np.where(up == slot_rank, 1, 2)))
    slots = np.zeros((b_count, p, 10, 4), np.float32)
    np.put_along_axis(slots, kind[..., None], 1.0, axis=3)
    out[:, 30 : 30 + 40 * p] = slots.reshape(b_count, -1)
    position = 30 + 40 * p
    out[rows, position] = 1  # current: the acting seat is seat 0 from its own view
    final_round = position + 2 * p
    out[rows[s[:, NHW] > 0], final_round] = 1
    scale = batch.scale
    start = final_round + 2
    out[:, start : start + p] = v.sizes[rows[:, None], order] * scale[start : start + p]
    out[:, start + p : start + 2 * p] = v.won[rows[:, None], order] * scale[start + p : start + 2 * p]
    out[:, start + 2 * p] = s[:, STOCKN] * scale[start + 2 * p]
    out[:, start + 2 * p + 1] = s[:, DISCN] * scale[start + 2 * p + 1]
    ranks = start + 2 * p + 2
    out[:, ranks : ranks + 14] = v.known * scale[ranks : ranks + 14]
    out[:, ranks + 14 : ranks + 28] = v.unacc * scale[ranks + 14 : ranks + 28]
    return out  # (completed and discard_playable left out: NumPy would need more work still)


def main() -> None:
    config = make_config("standard")
    print("ns per game to encode a batch of observations (standard, 2 players)")
    for size in (64, 1024, 8192):
        batch = TrashBatch(config, size, seed=0, parallel=False)
        _, masks = batch.reset()
        for _ in range(20):  # mid-game positions
            batch.step(masks.argmax(axis=1))
        reps = max(5, 200_000 // size)
        start = time.perf_counter()
        for _ in range(reps):
            numpy_encode(batch)
        numpy_ns = (time.perf_counter() - start) / reps / size * 1e9
        state, rules = batch.state, batch.rules
        start = time.perf_counter()
        for _ in range(reps):
            batched._observe_games(
                state, rules, batch.scale, batch._all, batch.obs, batch.masks, batch.seats, batch.status
            )
        numba_ns = (time.perf_counter() - start) / reps / size * 1e9
        print(f"  B = {size:5d}: NumPy {numpy_ns:7.1f} ns, Numba {numba_ns:6.1f} ns (observations and masks)")


if __name__ == "__main__":
    main()
