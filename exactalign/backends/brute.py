"""Enumeration of every integer point of a small pure-integer model (vectorised in blocks).

An oracle for tests: it refuses models with continuous variables, unbounded integers, or more
than :data:`MAX_POINTS` points with :class:`ModelTooLargeError`. Its optimum is proven by
exhaustion, so the bound equals the objective."""

from __future__ import annotations

import time

import numpy as np

from ..core.errors import ModelTooLargeError
from ..core.model import LinearModel
from ..core.outcome import BackendOutcome, SolveOptions
from ..core.result import Status

NAME = "brute"
MAX_POINTS = 1 << 20
_BLOCK = 1 << 14


def solve(model: LinearModel, options: SolveOptions) -> BackendOutcome:
    t0 = time.perf_counter()
    if not model.integrality.all():
        raise ModelTooLargeError("the brute backend enumerates pure-integer models only; "
                                 f"{model.name!r} has continuous variables")
    lo, hi = np.ceil(model.col_lo), np.floor(model.col_hi)
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        raise ModelTooLargeError(f"the brute backend needs finite bounds ({model.name!r})")
    sizes = np.maximum(hi - lo + 1, 0).astype(np.int64)
    total = float(np.prod(sizes.astype(float))) if sizes.size else 1.0
    if total > MAX_POINTS:
        raise ModelTooLargeError(
            f"the brute backend enumerates at most {MAX_POINTS} points; {model.name!r} has "
            f"{total:.3g} ({model.num_vars} variables)")
    n = model.num_vars
    best_val, best_x = -np.inf, None
    sign = 1.0 if model.maximize else -1.0
    total = int(total)
    radices = np.cumprod(np.concatenate([[1], sizes[:-1]])) if n else np.zeros(0, np.int64)
    for start in range(0, total, _BLOCK):
        idx = np.arange(start, min(total, start + _BLOCK), dtype=np.int64)
        X = lo + (idx[:, None] // radices[None, :]) % np.maximum(sizes, 1)[None, :]
        AX = (model.A @ X.T).T if model.num_rows else np.zeros((len(idx), 0))
        ok = np.all((AX >= model.row_lo - 1e-9) & (AX <= model.row_hi + 1e-9), axis=1)
        if not ok.any():
            continue
        vals = sign * (X[ok] @ model.c)
        k = int(np.argmax(vals))  # first maximiser: deterministic
        if vals[k] > best_val + 1e-12:
            best_val, best_x = vals[k], X[ok][k]
    wall = time.perf_counter() - t0
    if best_x is None:
        return BackendOutcome(Status.INFEASIBLE, None, None, None, total, wall, NAME,
                              "exactalign-brute", "infeasible (exhausted)")
    obj = float(best_x @ model.c + model.offset)
    return BackendOutcome(Status.OPTIMAL, best_x.astype(float), obj, obj, total, wall, NAME,
                          "exactalign-brute", "optimal (exhausted)")
