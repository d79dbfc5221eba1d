"""Read-only arrays: what instances and results hold, so that nothing downstream changes them."""

from __future__ import annotations

import numpy as np


def frozen(a) -> np.ndarray:
    """``a`` as a C-contiguous array marked read-only (the same object when it already is
    contiguous; a copy otherwise)."""
    a = np.ascontiguousarray(a)
    a.flags.writeable = False
    return a
