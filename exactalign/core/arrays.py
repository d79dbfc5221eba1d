"""Read-only arrays: what instances and results hold, so that nothing downstream changes them."""

from __future__ import annotations

import numpy as np


def frozen(a) -> np.ndarray:
    """``a`` as a C-contiguous array marked read-only (the same object when it already is
    contiguous; a copy otherwise)."""
    a = np.ascontiguousarray(a)
    a.flags.writeable = False
    return a


def distinct(a) -> np.ndarray:
    """The sorted distinct values of a 1-D array: ``np.unique(a)`` without its cost at start-up.

    numpy 2.4's plain ``np.unique`` asks ``np.ma.is_masked``, which imports ``numpy.ma`` (10-25 ms,
    a tenth of a one-document command) the first time; the checks every command runs use this."""
    a = np.sort(np.asarray(a).ravel())
    if len(a) < 2:
        return a
    keep = np.empty(len(a), dtype=bool)
    keep[0] = True
    np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]
