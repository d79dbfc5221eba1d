"""The bipartite matching problem itself: :data:`KINDS`, the instance
(:class:`BipartiteInstance`), the checker (:func:`check`, which re-verifies any alignment and
recomputes its objective) and the bound without solving (:func:`trivial_bound`). numpy alone:
scipy is imported by the methods that use it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...core.arrays import frozen as _frozen
from ...core.errors import InfeasibleAlignmentError, InputError

if TYPE_CHECKING:
    import scipy.sparse as sp

#: kind -> (capacity of a reference item, capacity of a predicted item); None = unlimited.
KINDS: dict[str, tuple[int | None, int | None]] = {
    "1:1": (1, 1),
    "1:N": (None, 1),
    "N:1": (1, None),
    "N:N": (None, None),
}


@dataclass(frozen=True, eq=False)
class BipartiteInstance:
    """Candidate pairs ``(rows[e], cols[e])`` with weights ``weights[e] > 0``.

    Canonical form (enforced on construction): pairs sorted by (reference, predicted), no
    duplicates, zero weights dropped. Construct with :meth:`from_dense`, :meth:`from_sparse` or
    :meth:`from_pairs`."""

    n_ref: int
    n_pred: int
    rows: np.ndarray
    cols: np.ndarray
    weights: np.ndarray
    kind: str = "1:1"

    def __post_init__(self):
        if self.kind not in KINDS:
            raise InputError(f"unknown matching kind {self.kind!r}; choose one of "
                             + ", ".join(KINDS))
        n_ref, n_pred = int(self.n_ref), int(self.n_pred)
        if n_ref < 0 or n_pred < 0:
            raise InputError(f"item counts must be >= 0, got {n_ref} x {n_pred}")
        rows = np.asarray(self.rows, dtype=np.int64).ravel()
        cols = np.asarray(self.cols, dtype=np.int64).ravel()
        w = np.asarray(self.weights, dtype=np.float64).ravel()
        if not (len(rows) == len(cols) == len(w)):
            raise InputError(f"rows, cols and weights differ in length "
                             f"({len(rows)}, {len(cols)}, {len(w)})")
        if len(w):
            if not np.all(np.isfinite(w)):
                e = int(np.flatnonzero(~np.isfinite(w))[0])
                raise InputError(f"weight of pair ({rows[e]}, {cols[e]}) is {w[e]}: "
                                 "weights must be finite")
            if np.any(w < 0):
                e = int(np.flatnonzero(w < 0)[0])
                raise InputError(f"weight of pair ({rows[e]}, {cols[e]}) is {w[e]}: "
                                 "weights must be non-negative")
            bad = (rows < 0) | (rows >= n_ref) | (cols < 0) | (cols >= n_pred)
            if bad.any():
                e = int(np.flatnonzero(bad)[0])
                raise InputError(f"pair ({rows[e]}, {cols[e]}) is outside the "
                                 f"{n_ref} x {n_pred} instance")
        keep = w > 0
        rows, cols, w = rows[keep], cols[keep], w[keep]
        order = np.lexsort((cols, rows))
        rows, cols, w = rows[order], cols[order], w[order]
        if len(rows) > 1:
            dup = (rows[1:] == rows[:-1]) & (cols[1:] == cols[:-1])
            if dup.any():
                e = int(np.flatnonzero(dup)[0])
                raise InputError(f"pair ({rows[e]}, {cols[e]}) is given twice")
        set_ = object.__setattr__
        set_(self, "n_ref", n_ref)
        set_(self, "n_pred", n_pred)
        set_(self, "rows", _frozen(rows))
        set_(self, "cols", _frozen(cols))
        set_(self, "weights", _frozen(w))

    # -- constructors ----------------------------------------------------------------------
    @classmethod
    def from_dense(cls, W, kind: str = "1:1") -> BipartiteInstance:
        W = np.asarray(W, dtype=np.float64)
        if W.ndim != 2:
            raise InputError(f"a weight matrix must be 2-dimensional, got shape {W.shape}")
        r, c = np.nonzero(W)
        return cls(W.shape[0], W.shape[1], r, c, W[r, c], kind)

    @classmethod
    def from_sparse(cls, S, kind: str = "1:1") -> BipartiteInstance:
        import scipy.sparse as sp

        S = sp.coo_array(S)
        S.sum_duplicates()
        return cls(S.shape[0], S.shape[1], S.row, S.col, S.data, kind)

    @classmethod
    def from_pairs(cls, pairs, weights, n_ref: int, n_pred: int,
                   kind: str = "1:1") -> BipartiteInstance:
        p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        return cls(n_ref, n_pred, p[:, 0], p[:, 1], weights, kind)

    def with_kind(self, kind: str) -> BipartiteInstance:
        return BipartiteInstance(self.n_ref, self.n_pred, self.rows, self.cols, self.weights,
                                 kind)

    # -- views -------------------------------------------------------------------------------
    @property
    def num_pairs(self) -> int:
        return len(self.weights)

    @property
    def caps(self) -> tuple[int | None, int | None]:
        return KINDS[self.kind]

    def to_sparse(self) -> sp.csr_array:
        import scipy.sparse as sp

        return sp.csr_array((self.weights, (self.rows, self.cols)),
                            shape=(self.n_ref, self.n_pred))

    def to_dense(self) -> np.ndarray:
        W = np.zeros((self.n_ref, self.n_pred))
        W[self.rows, self.cols] = self.weights
        return W

    def pair_index(self, pairs) -> np.ndarray:
        """Index into ``rows/cols/weights`` of each (reference, predicted) pair; -1 if the pair
        is not a candidate."""
        p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        keys = self.rows * max(self.n_pred, 1) + self.cols  # sorted (canonical order)
        q = p[:, 0] * max(self.n_pred, 1) + p[:, 1]
        pos = np.searchsorted(keys, q)
        pos = np.minimum(pos, max(len(keys) - 1, 0))
        ok = (len(keys) > 0) & (keys[pos] == q) if len(keys) else np.zeros(len(q), bool)
        return np.where(ok, pos, -1)

    @classmethod
    def _canonical(cls, n_ref: int, n_pred: int, rows, cols, weights,
                   kind: str = "1:1") -> BipartiteInstance:
        """An instance from arrays the caller built in canonical form -- pairs ascending by
        (reference, predicted), no duplicates, weights positive and finite, indices in range --
        without checking them again (a metric's own instance built per document in a loop:
        CEAF's from its sorted joins). Tests compare it with the checked constructor."""
        inst = object.__new__(cls)
        for name, value in (("n_ref", int(n_ref)), ("n_pred", int(n_pred)),
                            ("rows", _frozen(np.asarray(rows, dtype=np.int64))),
                            ("cols", _frozen(np.asarray(cols, dtype=np.int64))),
                            ("weights", _frozen(np.asarray(weights, dtype=np.float64))),
                            ("kind", kind)):
            object.__setattr__(inst, name, value)
        return inst

    def _restrict(self, refs, preds, edges) -> BipartiteInstance:
        """The instance restricted to a connected component, or a union of components (global
        ``refs``, ``preds``, ``edges``, each ascending, edges only between them), renumbered from
        0 without re-validation: renumbering keeps the canonical order. Returns ``self`` when
        the part is the whole instance."""
        if len(refs) == self.n_ref and len(preds) == self.n_pred and len(edges) == self.num_pairs:
            return self
        ref_local = np.empty(self.n_ref, dtype=np.int64)
        ref_local[refs] = np.arange(len(refs))
        pred_local = np.empty(self.n_pred, dtype=np.int64)
        pred_local[preds] = np.arange(len(preds))
        sub = object.__new__(BipartiteInstance)
        for name, value in (("n_ref", len(refs)), ("n_pred", len(preds)),
                            ("rows", _frozen(ref_local[self.rows[edges]])),
                            ("cols", _frozen(pred_local[self.cols[edges]])),
                            ("weights", _frozen(self.weights[edges])), ("kind", self.kind)):
            object.__setattr__(sub, name, value)
        return sub

    def __repr__(self) -> str:
        return (f"BipartiteInstance({self.n_ref}x{self.n_pred}, pairs={self.num_pairs}, "
                f"kind={self.kind!r})")


def alignment_from_edges(inst: BipartiteInstance, edges) -> np.ndarray:
    edges = np.sort(np.asarray(edges, dtype=np.int64))  # canonical order == (ref, pred) order
    return _frozen(np.stack([inst.rows[edges], inst.cols[edges]], axis=1))


# --------------------------------------------------------------------------------------------
# check
# --------------------------------------------------------------------------------------------
def check(inst: BipartiteInstance, alignment) -> float:
    """Verify ``alignment`` against ``inst`` and return its objective, recomputed.

    Raises :class:`InfeasibleAlignmentError` naming the first offending pair when a pair is out of
    range, not a candidate, repeated, or when an item exceeds the capacity of the kind."""
    a = np.asarray(alignment, dtype=np.int64)
    if a.size == 0:
        return 0.0
    if a.ndim != 2 or a.shape[1] != 2:
        raise InfeasibleAlignmentError(f"an alignment is a (k, 2) array, got shape {a.shape}")
    bad = (a[:, 0] < 0) | (a[:, 0] >= inst.n_ref) | (a[:, 1] < 0) | (a[:, 1] >= inst.n_pred)
    if bad.any():
        r, c = a[np.flatnonzero(bad)[0]]
        raise InfeasibleAlignmentError(f"pair ({r}, {c}) is outside the "
                                       f"{inst.n_ref} x {inst.n_pred} instance")
    idx = inst.pair_index(a)
    if (idx < 0).any():
        r, c = a[np.flatnonzero(idx < 0)[0]]
        raise InfeasibleAlignmentError(f"pair ({r}, {c}) is not a candidate (weight 0)")
    # counted with bincount (a third of np.unique's time on document-sized alignments)
    if np.bincount(idx, minlength=inst.num_pairs).max() > 1:
        raise InfeasibleAlignmentError("the alignment repeats a pair")
    ref_cap, pred_cap = inst.caps
    for side, col, cap, n in (("reference", 0, ref_cap, inst.n_ref),
                              ("predicted", 1, pred_cap, inst.n_pred)):
        if cap is None:
            continue
        counts = np.bincount(a[:, col], minlength=n)
        if (counts > cap).any():
            item = int(np.flatnonzero(counts > cap)[0])
            raise InfeasibleAlignmentError(
                f"{side} item {item} is matched {counts.max()} times; kind {inst.kind} allows "
                f"{cap}")
    return float(inst.weights[idx].sum())


def trivial_bound(inst: BipartiteInstance) -> float:
    """A valid upper bound without solving: each capacity-1 side can collect at most its best
    weight per item; the smaller of the two sides' sums (or the total, for N:N)."""
    if inst.num_pairs == 0:
        return 0.0
    ref_cap, pred_cap = inst.caps
    total = float(inst.weights.sum())
    best = [total]
    if ref_cap is not None:
        m = np.zeros(inst.n_ref)
        np.maximum.at(m, inst.rows, inst.weights)
        best.append(float(m.sum()))
    if pred_cap is not None:
        m = np.zeros(inst.n_pred)
        np.maximum.at(m, inst.cols, inst.weights)
        best.append(float(m.sum()))
    return min(best)
