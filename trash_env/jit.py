"""Numba where it is installed (the ``batched`` extra), plain Python where it is not.

``njit`` and ``prange`` are Numba's when Numba imports; otherwise ``njit`` returns the function as it
is and ``prange`` is ``range``, so the same code runs (about a hundred times slower). ``HAVE_NUMBA``
says which; code with a NumPy path of its own uses that path without Numba.
"""

from __future__ import annotations

from typing import Any

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

__all__ = ["HAVE_NUMBA", "njit", "prange"]
