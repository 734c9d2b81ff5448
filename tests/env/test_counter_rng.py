"""The counter-based generator (:mod:`trash_env.counter_rng`): Philox4x64-10 written in plain 64-bit
integer arithmetic, bit for bit NumPy's ``numpy.random.Philox``, compiled by Numba and as plain
Python (Numba's JIT off, or Numba missing)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from helpers import plain_python_ways, run_python

from trash_env import counter_rng

ROOT = Path(__file__).resolve().parents[2]


def numpy_outputs(key: np.ndarray, start: int, count: int) -> list[int]:
    """Outputs ``start .. start + count - 1`` of NumPy's Philox over ``key``: its counter set to the
    block before ``start``'s (it counts up before each block), then the first of its outputs skipped."""
    bit_generator = np.random.Philox(key=key, counter=[start // 4, 0, 0, 0])
    return bit_generator.random_raw(start % 4 + count)[start % 4 :].tolist()


KEYS = np.concatenate(
    [
        np.random.default_rng(0).integers(0, 2**64, size=(60, 2), dtype=np.uint64),
        np.array([[0, 0], [2**64 - 1, 2**64 - 1], [0, 2**64 - 1], [3, 2**8 | 2 << 3 | 1]], dtype=np.uint64),
    ]
)


def test_outputs_are_numpys_philox_bit_for_bit() -> None:
    """Over 64 keys (random ones and the edges: zero, all ones) and outputs 0-11 (three blocks, every
    word of a block), then outputs around counters up to 2**50: every 64-bit output equals NumPy's."""
    with counter_rng.wrapping():
        for key in KEYS:
            k0, k1 = counter_rng.key_words(key)
            for start in (0, 5, 2**20 + 3, 2**50 - 2):
                ours = [int(counter_rng.philox_output(k0, k1, np.uint64(start + i))) for i in range(12)]
                assert ours == numpy_outputs(key, start, 12), (key, start)


def test_random_is_the_generators_random() -> None:
    """``philox_random(k0, k1, k)`` is the k-th ``random()`` of ``Generator(Philox(key))``, and
    ``keyed_generator`` is that generator: 40 draws each for 64 keys, equal as floats."""
    for key in KEYS:
        expected = np.random.Generator(np.random.Philox(key=key)).random(40)
        assert counter_rng.random_draws(key, range(40)).tolist() == expected.tolist()
        assert counter_rng.keyed_generator(key).random(40).tolist() == expected.tolist()


def test_a_key_is_two_words() -> None:
    with pytest.raises(ValueError, match="two 64-bit words"):
        counter_rng.key_words([1, 2, 3])


PLAIN = """
import sys
{prelude}
import numpy as np
from trash_env import counter_rng
from trash_env.trash import batched
assert not hasattr(counter_rng.philox_block, "py_func"), counter_rng.philox_block  # a plain Python function
keys = np.random.default_rng(5).integers(0, 2**64, size=(8, 2), dtype=np.uint64)
for key in keys:
    expected = np.random.Generator(np.random.Philox(key=key)).random(9).tolist()
    assert counter_rng.random_draws(key, range(9)).tolist() == expected, key
# the batched engine's random (exact mode) as plain Python: RandomAgent's games on the core
from agents.baselines import RandomAgent
from agents.evaluation.seatings import play_game
from trash_env.trash.config import make_config
from trash_env.trash.rules import returns
config = make_config("standard", max_turns=40)
batch = batched.TrashBatch(config, 2, exact=True, policies=["random", "random"])
batch.reset([[1, 0], [1, 1]], draw_keys=keys[:4].reshape(2, 2, 2))
for b in range(2):
    rngs = [counter_rng.keyed_generator(keys[2 * b + seat]) for seat in range(2)]
    state = play_game(config, [RandomAgent(), RandomAgent()], np.random.default_rng([1, b]), rngs)
    assert (int(batch.state[b, batched.TURN]), batch.rewards[b].tolist()) == (state.turn, returns(state)), b
print(batched.HAVE_NUMBA)
"""


@plain_python_ways()
def test_plain_python_draws_the_same(env: dict, prelude: str, have_numba: str) -> None:
    """The same functions as plain Python (NumPy ``uint64`` scalars, Numba's JIT off or Numba
    missing) give NumPy's draws too, and the batched engine's ``random`` (exact mode) drawing
    from them plays RandomAgent's games on the core."""
    result = run_python(textwrap.dedent(PLAIN).format(prelude=prelude), env)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == [have_numba]
