"""The monotone matching problem: :class:`MonotoneInstance` (two orders and the candidate pairs),
the pairs that may not be matched together (:func:`conflicts`, :func:`conflict_pairs`) and the
checker (:func:`check`, which re-verifies any alignment and recomputes its objective)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from ...core.arrays import frozen as _frozen
from ...core.errors import InfeasibleAlignmentError, InputError, ModelTooLargeError
from .. import bipartite
from ..bipartite import BipartiteInstance
from .orders import Order

#: kind -> (capacity of a reference item, capacity of a predicted item); None = unlimited.
#: The kinds of bipartite matching except N:N, which is not supported here.
KINDS: dict[str, tuple[int | None, int | None]] = {
    k: caps for k, caps in bipartite.KINDS.items() if k != "N:N"}


#: Candidate pairs compared per block when listing conflicts (bounds memory).
_BLOCK = 4_000_000


# --------------------------------------------------------------------------------------------
# instance
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class MonotoneInstance:
    """Two orders and the sparse candidate pairs between them (a :class:`BipartiteInstance`,
    canonical: sorted, no duplicates, weights > 0), with ``strict`` the variant of the order
    rule (module docstring)."""

    ref: Order
    pred: Order
    pairs: BipartiteInstance
    strict: bool = False

    def __post_init__(self):
        if self.pairs.kind not in KINDS:
            raise InputError(f"monotone matching supports kinds {', '.join(KINDS)}, not "
                             f"{self.pairs.kind!r}")
        if (self.pairs.n_ref, self.pairs.n_pred) != (self.ref.n, self.pred.n):
            raise InputError(f"the pairs are over {self.pairs.n_ref} x {self.pairs.n_pred} "
                             f"items but the orders have {self.ref.n} and {self.pred.n}")
        object.__setattr__(self, "strict", bool(self.strict))

    @classmethod
    def sequences(cls, W, kind: str = "1:1", strict: bool = False) -> MonotoneInstance:
        """Two sequences with dense (or sparse) weight matrix ``W`` (reference x predicted)."""
        pairs = (BipartiteInstance.from_sparse(W, kind) if sp.issparse(W)
                 else BipartiteInstance.from_dense(W, kind))
        return cls(Order.sequence(pairs.n_ref), Order.sequence(pairs.n_pred), pairs, strict)

    @classmethod
    def dags(cls, W, ref_edges, pred_edges, kind: str = "1:1",
             strict: bool = False) -> MonotoneInstance:
        """Two DAGs given by edge lists, with weight matrix ``W``."""
        pairs = (BipartiteInstance.from_sparse(W, kind) if sp.issparse(W)
                 else BipartiteInstance.from_dense(W, kind))
        return cls(Order.from_edges(pairs.n_ref, ref_edges, what="reference DAG"),
                   Order.from_edges(pairs.n_pred, pred_edges, what="predicted DAG"),
                   pairs, strict)

    @property
    def n_ref(self) -> int:
        return self.ref.n

    @property
    def n_pred(self) -> int:
        return self.pred.n

    @property
    def kind(self) -> str:
        return self.pairs.kind

    @property
    def num_pairs(self) -> int:
        return self.pairs.num_pairs

    @property
    def is_sequence(self) -> bool:
        """Both orders are total: the dynamic program applies."""
        return self.ref.total and self.pred.total

    def with_strict(self, strict: bool) -> MonotoneInstance:
        return replace(self, strict=strict)

    def __repr__(self) -> str:
        shape = "sequences" if self.is_sequence else "orders"
        return (f"MonotoneInstance({shape} {self.n_ref}x{self.n_pred}, pairs={self.num_pairs}, "
                f"kind={self.kind!r}, strict={self.strict})")


# --------------------------------------------------------------------------------------------
# conflicts and check
# --------------------------------------------------------------------------------------------
def conflicts(inst: MonotoneInstance, e: np.ndarray, f: np.ndarray, *,
              capacity: bool = True) -> np.ndarray:
    """Elementwise: may candidate pairs ``e`` and ``f`` (indices) not both be matched?

    True when they cross, when (``strict``) their order relations differ, and -- if
    ``capacity`` -- when they share an item of capacity 1. ``e == f`` is never a conflict."""
    p = inst.pairs
    ra, rb, ca, cb = p.rows[e], p.rows[f], p.cols[e], p.cols[f]
    a_lt, a_gt = inst.ref.lt(ra, rb), inst.ref.lt(rb, ra)
    b_lt, b_gt = inst.pred.lt(ca, cb), inst.pred.lt(cb, ca)
    c = (a_lt & b_gt) | (a_gt & b_lt)
    if inst.strict:
        c |= (a_lt != b_lt) | (a_gt != b_gt)
    if capacity:
        ref_cap, pred_cap = inst.pairs.caps
        if ref_cap == 1:
            c |= ra == rb
        if pred_cap == 1:
            c |= ca == cb
    return c & (np.asarray(e) != np.asarray(f))


def conflict_pairs(inst: MonotoneInstance, *, capacity: bool = True,
                   max_pairs: int | None = None) -> np.ndarray:
    """All unordered conflicting candidate pairs ``(e, f)``, ``e < f``, as an ``(k, 2)``
    array (see :func:`conflicts`); computed in blocks. Raises :class:`ModelTooLargeError` when
    more than ``max_pairs`` are found."""
    E = inst.num_pairs
    out, total = [], 0
    step = max(1, _BLOCK // max(E, 1))
    for lo in range(0, E, step):
        e = np.arange(lo, min(lo + step, E))
        ee, ff = np.meshgrid(e, np.arange(E), indexing="ij")
        keep = ff > ee
        ee, ff = ee[keep], ff[keep]
        c = conflicts(inst, ee, ff, capacity=capacity)
        out.append(np.stack([ee[c], ff[c]], axis=1))
        total += int(c.sum())
        if max_pairs is not None and total > max_pairs:
            raise ModelTooLargeError(f"more than {max_pairs:,} conflicting candidate pairs "
                                     f"({E:,} candidates): too many for pairwise rows")
    return np.concatenate(out) if out else np.zeros((0, 2), dtype=np.int64)


def check(inst: MonotoneInstance, alignment) -> float:
    """Verify ``alignment`` and return its objective, recomputed from the weights.

    Raises :class:`InfeasibleAlignmentError` for a pair out of range, not a candidate or
    repeated, an item over its capacity (all through :func:`bipartite.check`), or two pairs
    that cross (or, strict, whose order relations differ), naming both."""
    obj = bipartite.check(inst.pairs, alignment)
    a = np.asarray(alignment, dtype=np.int64).reshape(-1, 2)
    if len(a) < 2:
        return obj
    idx = inst.pairs.pair_index(a)
    i, j = np.triu_indices(len(a), 1)
    bad = conflicts(inst, idx[i], idx[j], capacity=False)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        (r1, c1), (r2, c2) = a[i[k]], a[j[k]]
        rule = "violate the strict order rule" if inst.strict else "cross"
        raise InfeasibleAlignmentError(f"pairs ({r1}, {c1}) and ({r2}, {c2}) {rule}")
    return obj


def alignment_from_edges(inst: MonotoneInstance, edges) -> np.ndarray:
    edges = np.sort(np.asarray(edges, dtype=np.int64))
    return _frozen(np.stack([inst.pairs.rows[edges], inst.pairs.cols[edges]], axis=1))
