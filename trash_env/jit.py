"""Numba where it is installed (the ``batched`` extra), plain Python where it is not.

``njit`` and ``prange`` are Numba's when Numba imports; otherwise ``njit`` returns the function as it
is and ``prange`` is ``range``, so the same code runs (about a hundred times slower). ``HAVE_NUMBA``
says which; code with a NumPy path of its own uses that path without Numba.

The compiled kernels are cached on disk (``cache=True``), so each is compiled once per environment,
at its first use: tens of seconds for an engine (docs/batched.md measures it). :func:`compile_notice`
wraps the first call of a kernel from Python so that such a wait is never silent: if the call is
still running after :data:`NOTICE_AFTER` seconds, one line on stderr says what is compiling.
``trash-bench warmup`` compiles everything ahead.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import Any

NOTICE_AFTER = 2.0  # seconds a first call may take before the notice is printed
_FIRST_CALLED: set[str] = set()  # what has had its first call in this process
_SILENT = threading.local()  # .on while the caller says itself what is compiling (warming up)

try:
    from numba import njit, prange

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - exercised only without the extra
    HAVE_NUMBA = False

    def njit(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return lambda function: function

    prange = range



def _notice(what: str) -> None:
    print(
        f"trash-rl: compiling {what} with Numba, once for this environment (it is cached on disk "
        "afterwards; trash-bench warmup compiles everything ahead)",
        file=sys.stderr,
        flush=True,
    )


@contextlib.contextmanager
def compile_notice(what: str) -> Iterator[None]:
    """Around a call of compiled kernels from Python: the first time in this process, a call that takes
    more than :data:`NOTICE_AFTER` seconds (a compile: a cached kernel loads in well under a second)
    prints one line naming ``what``; later calls cost a set lookup."""
    if what in _FIRST_CALLED or not HAVE_NUMBA or getattr(_SILENT, "on", False):
        yield
        return
    timer = threading.Timer(NOTICE_AFTER, _notice, (what,))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
    _FIRST_CALLED.add(what)


@contextlib.contextmanager
def silent_compiles() -> Iterator[None]:
    """No compile notice in this thread while the block runs: its caller says what it compiles."""
    _SILENT.on = True
    try:
        yield
    finally:
        _SILENT.on = False


@contextlib.contextmanager
def kernel_call(what: str) -> Iterator[None]:
    """Around a call of an engine's kernels: :func:`compile_notice`, and NumPy's overflow warnings off
    (the generators' 64-bit arithmetic wraps by design; as plain Python NumPy would warn)."""
    import numpy as np

    with np.errstate(over="ignore"), compile_notice(what):
        yield


__all__ = ["HAVE_NUMBA", "NOTICE_AFTER", "compile_notice", "kernel_call", "njit", "prange", "silent_compiles"]
