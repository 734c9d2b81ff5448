"""A counter-based generator both engines draw from identically: Philox4x64-10, as NumPy's.

A counter-based generator computes its k-th output from (key, k) alone, with no state carried
from one draw to the next: ``philox_random(key0, key1, k)`` is the k-th ``random()`` of
``numpy.random.Generator(numpy.random.Philox(key=[key0, key1]))``, bit for bit. So a stream keyed
by where it is used (an evaluation's seed, deal and seat: :mod:`agents.evaluation.seatings`) gives the
same numbers whether a NumPy generator plays it on the rules core or the compiled batched engine
(:mod:`trash_env.trash.batched`) computes them inside its loops, many games at once.

NumPy's Philox (``numpy/random/src/philox/philox.h``) is Random123's Philox4x64 with 10 rounds: a
256-bit counter of four 64-bit words and a 128-bit key of two. Before each block of four outputs
it increments the counter, so a fresh ``Philox(key=...)`` (counter 0) makes its first block from
counter 1: output k is word ``k % 4`` of the block at counter ``k // 4 + 1``. ``Generator.random()``
takes one output per draw, ``(output >> 11) * 2**-53``.

The arithmetic is plain 64-bit unsigned integers (the high half of a 64x64-bit product from four
32x32-bit ones), so Numba compiles it (``trash_env.jit``) and, without Numba, the same functions
run on NumPy ``uint64`` scalars; there the products wrap by design, so call them inside
:func:`wrapping` (the functions below that take Python values do).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trash_env.jit import njit

# Philox4x64's multipliers and key increments (the "Weyl" constants), as Random123 and NumPy have them.
M0, M1 = np.uint64(0xD2E7470EE14C6C93), np.uint64(0xCA5A826395121157)
W0, W1 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBB67AE8584CAA73B)
ROUNDS = 10
LOW32 = np.uint64(0xFFFFFFFF)
SHIFT32, SHIFT11, TWO, ONE, THREE = np.uint64(32), np.uint64(11), np.uint64(2), np.uint64(1), np.uint64(3)
UNIT = 2.0**-53  # random() = (output >> 11) * 2**-53: 53 random bits in [0, 1)


def wrapping() -> Any:
    """The context the functions of this module run in as plain Python: NumPy warns when a
    ``uint64`` product wraps, and Philox's low halves wrap by design (compiled code never warns)."""
    return np.errstate(over="ignore")


@njit(cache=True)
def _mulhilo(a: np.uint64, b: np.uint64) -> tuple[np.uint64, np.uint64]:
    """The 128-bit product of two 64-bit words as (high, low) words: the low one is the wrapping
    product, the high one is summed from the four 32x32-bit products (none of which overflows)."""
    a_lo, a_hi = a & LOW32, a >> SHIFT32
    b_lo, b_hi = b & LOW32, b >> SHIFT32
    hi_hi, hi_lo, lo_hi, lo_lo = a_hi * b_hi, a_hi * b_lo, a_lo * b_hi, a_lo * b_lo
    carry = ((hi_lo & LOW32) + (lo_hi & LOW32) + (lo_lo >> SHIFT32)) >> SHIFT32
    return hi_hi + (hi_lo >> SHIFT32) + (lo_hi >> SHIFT32) + carry, a * b


@njit(cache=True)
def philox_block(
    c0: np.uint64, c1: np.uint64, c2: np.uint64, c3: np.uint64, k0: np.uint64, k1: np.uint64
) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """Philox4x64-10 of the counter (c0, c1, c2, c3) under the key (k0, k1): four output words.
    Each round multiplies words 0 and 2 and mixes in the key; the key grows by the Weyl constants
    between rounds (``_philox4x64round`` and ``_philox4x64bumpkey`` of NumPy's philox.h)."""
    for round_ in range(ROUNDS):
        if round_ > 0:
            k0 += W0
            k1 += W1
        hi0, lo0 = _mulhilo(M0, c0)
        hi1, lo1 = _mulhilo(M1, c2)
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    return c0, c1, c2, c3


@njit(cache=True)
def philox_output(k0: np.uint64, k1: np.uint64, index: np.uint64) -> np.uint64:
    """Output ``index`` (from 0) of ``numpy.random.Philox(key=[k0, k1])``: word ``index % 4`` of
    the block at counter ``index // 4 + 1`` (the bit generator counts up before each block)."""
    block = philox_block((index >> TWO) + ONE, np.uint64(0), np.uint64(0), np.uint64(0), k0, k1)
    return block[np.int64(index & THREE)]


@njit(cache=True)
def philox_random(k0: np.uint64, k1: np.uint64, index: np.uint64) -> float:
    """Draw ``index`` (from 0) of ``Generator(Philox(key=[k0, k1])).random()``: a float in [0, 1)."""
    return np.float64(philox_output(k0, k1, index) >> SHIFT11) * UNIT


def key_words(key: Any) -> tuple[np.uint64, np.uint64]:
    """A key (two integers below 2**64) as the two ``uint64`` words of the functions above."""
    words = np.asarray(key, dtype=np.uint64)
    if words.shape != (2,):
        raise ValueError(f"a Philox key is two 64-bit words, got {key!r}")
    return words[0], words[1]


def random_draws(key: Any, indices: Any) -> np.ndarray:
    """Draws ``indices`` of the stream ``key`` (from Python, compiled or not), as float64: what
    ``keyed_generator(key).random()`` returns at those positions."""
    k0, k1 = key_words(key)
    with wrapping():
        return np.array([philox_random(k0, k1, np.uint64(i)) for i in np.asarray(indices).ravel()], np.float64)


def keyed_generator(key: Any) -> np.random.Generator:
    """A NumPy generator over the stream ``key`` (``Philox(key=key)``, counter 0): its k-th
    ``random()`` is ``philox_random(*key, k)``, and the compiled engine can reproduce it."""
    return np.random.Generator(np.random.Philox(key=np.asarray(key, dtype=np.uint64)))


__all__ = ["keyed_generator", "philox_block", "philox_output", "philox_random", "random_draws", "wrapping"]
