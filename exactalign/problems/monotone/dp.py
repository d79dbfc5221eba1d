"""Exact on two sequences: :func:`sequence_dp`, the weighted longest common subsequence with its
alignment (1:1, 1:N and N:1)."""

from __future__ import annotations

import numpy as np

from ...core.arrays import frozen as _frozen
from ...core.errors import InputError
from .instance import MonotoneInstance


# --------------------------------------------------------------------------------------------
# exact: dynamic programming on two sequences
# --------------------------------------------------------------------------------------------
def sequence_dp(inst: MonotoneInstance) -> tuple[float, np.ndarray]:
    """Weighted longest common subsequence (Chen et al. 2023, Eq. 37) with the alignment.

    With ``f[i, j]`` the best value on the first ``i`` reference and ``j`` predicted items:

    * 1:1: ``f[i,j] = max(f[i-1,j], f[i,j-1], f[i-1,j-1] + w[i,j])``;
    * 1:N: ``f[i,j] = max(f[i-1,j], f[i,j-1] + w[i,j])`` (``w >= 0``; reference ``i`` may take
      several predicted items, all after those of earlier reference items);
    * N:1: the 1:N recurrence with the roles exchanged;
    * strict: 1:1 for every kind (module docstring).

    Each row is computed with numpy (a running maximum replaces the ``f[i,j-1]`` term), and the
    arg-max positions are kept, so the alignment is recovered exactly, without float comparisons.
    Returns ``(value, alignment)``."""
    if not inst.is_sequence:
        raise InputError("sequence_dp needs two sequences (total orders); use the ILP for DAGs")
    kind = "1:1" if inst.strict else inst.kind
    W = inst.pairs.to_dense()
    if kind == "N:1":
        value, pairs = _dp_one_to_many(W.T)
        pairs = pairs[:, ::-1]
    elif kind == "1:N":
        value, pairs = _dp_one_to_many(W)
    else:
        value, pairs = _dp_one_to_one(W)
    pairs = pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))] if len(pairs) else pairs
    return value, _frozen(np.ascontiguousarray(pairs, dtype=np.int64).reshape(-1, 2))


def _running_argmax(g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Running maximum of ``g`` and, per position, the last index where it is attained."""
    cm = np.maximum.accumulate(g)
    hit = np.where(g == cm, np.arange(len(g)), 0)
    return cm, np.maximum.accumulate(hit)


def _dp_one_to_one(W: np.ndarray) -> tuple[float, np.ndarray]:
    n, m = W.shape
    f = np.zeros(m + 1)
    arg = np.zeros((n + 1, m + 1), dtype=np.int64)
    diag = np.zeros((n + 1, m + 1), dtype=bool)
    for i in range(1, n + 1):
        g = f.copy()
        d = f[:-1] + W[i - 1]
        take = (W[i - 1] > 0) & (d > f[1:])
        g[1:] = np.where(take, d, f[1:])
        f, arg[i] = _running_argmax(g)
        diag[i, 1:] = take
    out, i, j = [], n, m
    while i > 0 and j > 0:
        j = arg[i, j]
        if diag[i, j]:
            out.append((i - 1, j - 1))
            j -= 1
        i -= 1
    return float(f[m]), np.array(out, dtype=np.int64).reshape(-1, 2)


def _dp_one_to_many(W: np.ndarray) -> tuple[float, np.ndarray]:
    n, m = W.shape
    f = np.zeros(m + 1)
    arg = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(1, n + 1):
        S = np.concatenate([[0.0], np.cumsum(W[i - 1])])
        cm, arg[i] = _running_argmax(f - S)
        f = S + cm
    out, i, j = [], n, m
    while i > 0:
        jp = arg[i, j]
        out.extend((i - 1, k - 1) for k in range(jp + 1, j + 1) if W[i - 1, k - 1] > 0)
        j = jp
        i -= 1
    return float(f[m]), np.array(out, dtype=np.int64).reshape(-1, 2)
