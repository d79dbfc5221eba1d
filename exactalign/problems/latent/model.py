"""The problem on its compiled form (numpy): mappings as arrays (:func:`mapping_array`,
:func:`as_mapping_array`), the checker (:func:`check`) and the ILP (:func:`ilp_model`, the
package docstring of :mod:`exactalign.problems.latent`), with the model point of a mapping
(:func:`model_point`) and the mapping of a model point (:func:`decode_point`).

A mapping (the alignment of a :class:`~exactalign.Result`) is a ``(k, 2)`` int64 array of
``(left variable, right variable)`` rows sorted ascending."""

from __future__ import annotations

import numpy as np

from ...core.arrays import frozen
from ...core.errors import InfeasibleAlignmentError
from ...core.model import binary_model
from ...core.sparse import Csr, index_dtype
from .instance import LatentInstance
from .matches import mapping_rows


def mapping_array(left, right) -> np.ndarray:
    """The mapping array of the pairs ``(left[i], right[i])``."""
    m = np.stack([np.asarray(left, np.int64), np.asarray(right, np.int64)], axis=1)
    m = m.reshape(-1, 2)
    return frozen(m[np.lexsort((m[:, 1], m[:, 0]))])


# --------------------------------------------------------------------------------------------
# check
# --------------------------------------------------------------------------------------------
def check(inst: LatentInstance, mapping) -> float:
    """Verify that ``mapping`` is a one-to-one partial mapping between the variables and return
    its objective (the number of matching triple pairs), recomputed from the compiled form.

    Any in-range pair is allowed (a pair no triple pair needs simply earns nothing). Raises
    :class:`InfeasibleAlignmentError` for a row out of range or a variable mapped twice."""
    m = np.asarray(mapping, dtype=np.int64)
    if m.size == 0:
        return 0.0
    if m.ndim != 2 or m.shape[1] != 2:
        raise InfeasibleAlignmentError(f"a mapping is a (k, 2) array, got shape {m.shape}")
    bad = (m[:, 0] < 0) | (m[:, 0] >= inst.n_left) | (m[:, 1] < 0) | (m[:, 1] >= inst.n_right)
    if bad.any():
        a, b = m[np.flatnonzero(bad)[0]]
        raise InfeasibleAlignmentError(f"pair ({a}, {b}) is outside the {inst.n_left} x "
                                       f"{inst.n_right} variables")
    for col, side in ((0, "left"), (1, "right")):
        vals, cnt = np.unique(m[:, col], return_counts=True)
        if (cnt > 1).any():
            raise InfeasibleAlignmentError(f"{side} variable {vals[cnt > 1][0]} is mapped "
                                           f"{cnt.max()} times")
    on = np.zeros(inst.num_pairs, dtype=bool)
    idx = inst.pair_index(m)
    on[idx[idx >= 0]] = True
    value = float(inst.unary[on].sum() + inst.bin_w[on[inst.bin_p] & on[inst.bin_q]].sum())
    if len(inst.tri_w):
        value += float(inst.tri_w[on[inst.tri_p] & on[inst.tri_q] & on[inst.tri_r]].sum())
    return value


# --------------------------------------------------------------------------------------------
# the ILP
# --------------------------------------------------------------------------------------------
def _rows_per_group(groups: np.ndarray, cols: np.ndarray, min_size: int):
    """Row id per entry for groups of at least ``min_size`` entries (others dropped)."""
    uniq, inv, cnt = np.unique(groups, return_inverse=True, return_counts=True)
    keep = cnt[inv] >= min_size
    new = np.cumsum(cnt >= min_size) - 1
    return new[inv[keep]], cols[keep], int((cnt >= min_size).sum())


def _ternary_blocks(inst: LatentInstance, linking: str) -> list:
    """The linking rows of the ``z`` columns (one per triple of pairs ``(p, q, r)``, after the
    ``y`` columns), as :func:`ilp_model`'s blocks. ``simple``: ``z <= x_e`` for each of its
    three pairs ``e``. ``aggregated``: for each pair ``e`` and each set ``{a', a''}`` of left
    variables (right: ``{b', b''}``), ``sum z <= x_e`` over the triples that hold ``e`` and two
    pairs on those variables -- valid because ``a'`` and ``a''`` each map to at most one variable,
    so at most one such triple is fully on; each row implies the simple ones of its triples."""
    P, B, T = inst.num_pairs, len(inst.bin_w), len(inst.tri_w)
    if not T:
        return []  # (Smatch: the model is unchanged)
    tp, tq, tr = inst.tri_p, inst.tri_q, inst.tri_r
    ends = np.concatenate([tp, tq, tr])
    o1, o2 = np.concatenate([tq, tp, tp]), np.concatenate([tr, tr, tq])
    zcols = P + B + np.tile(np.arange(T), 3)
    if linking == "simple":
        n = 3 * T
        return [(np.concatenate([np.arange(n), np.arange(n)]), np.concatenate([zcols, ends]),
                 np.concatenate([np.ones(n), -np.ones(n)]), n)]
    blocks = []
    base = max(inst.n_left, inst.n_right, 1)
    for side in (inst.pair_left, inst.pair_right):
        s1, s2 = side[o1], side[o2]
        g = (ends * base + np.minimum(s1, s2)) * base + np.maximum(s1, s2)
        r, c, n = _rows_per_group(g, zcols, 1)
        _, first = np.unique(r, return_index=True)
        blocks.append((np.concatenate([r, np.arange(n)]), np.concatenate([c, ends[first]]),
                       np.concatenate([np.ones(len(r)), -np.ones(n)]), n))
    return blocks


def ilp_model(inst: LatentInstance, linking: str = "aggregated"):
    """The ILP (package docstring): columns ``x`` (one per useful variable pair), ``y`` (one
    per pair of pairs), then ``z`` (one per triple of pairs; none for Smatch), all binary;
    maximise the number of matching triple pairs."""
    if linking not in ("aggregated", "simple"):
        raise ValueError(f"linking must be 'aggregated' or 'simple', not {linking!r}")
    P, B, T = inst.num_pairs, len(inst.bin_w), len(inst.tri_w)
    pl, pr, bp, bq = inst.pair_left, inst.pair_right, inst.bin_p, inst.bin_q
    blocks = []  # (row ids, column ids, coefficients, number of rows)
    for side in (pl, pr):  # 1:1 rows
        r, c, n = _rows_per_group(side, np.arange(P), 2)
        blocks.append((r, c, np.ones(len(r)), n))
    if B:
        ends = np.concatenate([bp, bq])
        others = np.concatenate([bq, bp])
        ycols = P + np.concatenate([np.arange(B), np.arange(B)])
        if linking == "simple":
            n = 2 * B
            blocks.append((np.concatenate([np.arange(n), np.arange(n)]),
                           np.concatenate([ycols, ends]),
                           np.concatenate([np.ones(n), -np.ones(n)]), n))
        else:
            for side in (pl, pr):
                g = ends * max(inst.n_left, inst.n_right, 1) + side[others]
                r, c, n = _rows_per_group(g, ycols, 1)
                _, first = np.unique(r, return_index=True)
                blocks.append((np.concatenate([r, np.arange(n)]),
                               np.concatenate([c, ends[first]]),
                               np.concatenate([np.ones(len(r)), -np.ones(n)]), n))
                del g, r, c, first
        del ends, others, ycols
    blocks += _ternary_blocks(inst, linking)
    # assembled block by block into int32 (when the model fits: half the memory of a
    # document pair's 17.8 million entries), each block released once copied
    nnz, off = sum(len(b[0]) for b in blocks), sum(b[3] for b in blocks)
    idx = index_dtype(nnz, off, P + B + T)
    rows, cols, vals = np.empty(nnz, idx), np.empty(nnz, idx), np.empty(nnz)
    his = []
    at = off = 0
    while blocks:
        r, c, v, n = blocks.pop(0)
        k = len(r)
        rows[at:at + k] = r + off
        cols[at:at + k] = c
        vals[at:at + k] = v
        his.append(np.full(n, 1.0 if v.size and v.min() > 0 else 0.0))
        at, off = at + k, off + n
        del r, c, v
    A = Csr.from_coo(rows, cols, vals, (off, P + B + T))
    del rows, cols, vals
    hi = np.concatenate(his) if his else np.zeros(0)
    return binary_model(np.concatenate([inst.unary, inst.bin_w, inst.tri_w]), A, -np.inf, hi,
                        name=f"latent {inst.n_left}x{inst.n_right} {linking}")


def one_to_one_rows(A, row_hi: np.ndarray, inst: LatentInstance):
    """Each left and each right variable's one-to-one row in the ILP (its compressed rows ``A``,
    ``scipy.sparse`` CSR, and ``row_hi``: one-to-one rows are the ``<= 1`` ones), -1 for a
    variable of one pair, which has none: a row whose pairs share their left variable is that
    variable's, else its pairs share their right variable."""
    rows = np.flatnonzero(np.asarray(row_hi) == 1)
    sub = A[rows]  # their entries only (about two a pair), not the whole model's
    r, p = np.repeat(rows, np.diff(sub.indptr)), sub.indices
    lo = np.full(A.shape[0], np.iinfo(np.int64).max)
    hi = np.full(A.shape[0], -1)
    np.minimum.at(lo, r, inst.pair_left[p])
    np.maximum.at(hi, r, inst.pair_left[p])
    left = lo[r] == hi[r]
    of_left = np.full(inst.n_left, -1, np.int64)
    of_right = np.full(inst.n_right, -1, np.int64)
    of_left[inst.pair_left[p[left]]] = r[left]
    of_right[inst.pair_right[p[~left]]] = r[~left]
    return of_left, of_right


def model_point(inst: LatentInstance, mapping) -> np.ndarray:
    """The model point of a mapping (warm start)."""
    P, B = inst.num_pairs, len(inst.bin_w)
    x = np.zeros(P + B + len(inst.tri_w))
    idx = inst.pair_index(mapping)
    x[idx[idx >= 0]] = 1.0
    x[P:P + B] = x[inst.bin_p] * x[inst.bin_q]
    x[P + B:] = x[inst.tri_p] * x[inst.tri_q] * x[inst.tri_r]
    return x


def decode_point(inst: LatentInstance, x) -> np.ndarray:
    """The mapping of a model point (the pairs whose column is 1)."""
    on = np.flatnonzero(np.asarray(x)[:inst.num_pairs] > 0.5)
    return mapping_array(inst.pair_left[on], inst.pair_right[on])


def as_mapping_array(mapping) -> np.ndarray:
    """A mapping in any form :func:`~.matches.mapping_rows` takes (rows,
    or smatch's list with -1 for unmapped) as a mapping array."""
    rows = mapping_rows(mapping)
    return mapping_array([a for a, _ in rows], [b for _, b in rows])
