"""Weighted bipartite matching between reference and predicted items.

Given non-negative similarities ``w[i, j]`` between reference item ``i`` and predicted item ``j``
(sparse: only the candidate pairs with ``w > 0`` exist) and a *kind* of matching constraint, find
the alignment of maximum total weight. Kinds, written reference:predicted as in the "unified view"
of structured-prediction metrics (Chen et al. 2023):

========  =====================================  =====================================
kind      a reference item is matched to          a predicted item is matched to
========  =====================================  =====================================
``1:1``   at most one predicted item               at most one reference item
``1:N``   any number of predicted items            at most one reference item
``N:1``   at most one predicted item               any number of reference items
``N:N``   any number                               any number
========  =====================================  =====================================

The four faces of the problem (:mod:`exactalign.registry` lists every problem's):

* exact: :func:`ilp_model` (every kind, through any backend) and :func:`exact_special` (the
  assignment problem for 1:1 -- one item on a side by its best pair, ``linear_sum_assignment``
  when the dense matrix is small (:data:`DENSE_CELLS`), the sparse Jonker-Volgenant matching of
  ``scipy.sparse.csgraph`` otherwise, on the whole instance -- and closed forms for the other
  kinds); :func:`solve`'s ``exact`` tries the :func:`greedy` alignment first for 1:1 and keeps
  it when its dual certificate (:func:`certify`) proves it optimal;
* heuristics reproducing published procedures, with their tie-breaking: :func:`greedy`,
  :func:`pilot2015`, :func:`ref_order`;
* :func:`brute_force` for tiny inputs (enumerates matchings, independent of the ILP);
* :func:`check`, which re-verifies any alignment and recomputes its objective.

:func:`solve` runs any method by name and returns a verified :class:`~exactalign.Result`.
An alignment is an ``(k, 2)`` int64 array of ``(reference, predicted)`` pairs sorted ascending.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..core.arrays import frozen as _frozen
from ..core.decompose import bipartite_components
from ..core.errors import (
    InfeasibleAlignmentError,
    InputError,
    ModelTooLargeError,
    VerificationError,
)
from ..core.model import binary_model
from ..core.result import Result, Status, close, worst_status
from ..core.solve import SolveOptions, remaining, solve_model, verified_result
from ..core.sparse import Csr

if TYPE_CHECKING:
    import scipy.sparse as sp

# scipy (sparse matrices, the assignment solvers) is imported by the functions that use it, not
# here: the instance, the heuristics and the checker need numpy alone.

#: kind -> (capacity of a reference item, capacity of a predicted item); None = unlimited.
KINDS: dict[str, tuple[int | None, int | None]] = {
    "1:1": (1, 1),
    "1:N": (None, 1),
    "N:1": (1, None),
    "N:N": (None, None),
}

#: Components whose dense weight matrix has at most this many cells use dense
#: ``linear_sum_assignment``; larger ones the sparse matching of ``scipy.sparse.csgraph``.
DENSE_CELLS = 40_000

#: brute_force refuses instances with more candidate pairs than this.
BRUTE_MAX_PAIRS = 20


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


def _alignment_from_edges(inst: BipartiteInstance, edges) -> np.ndarray:
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


# --------------------------------------------------------------------------------------------
# exact: ILP
# --------------------------------------------------------------------------------------------
def ilp_model(inst: BipartiteInstance):
    """The ILP: one binary per candidate pair, one ``<= 1`` row per capacity-1 item that has two
    or more candidates (a single candidate is already bounded by the variable's bound)."""
    E = inst.num_pairs
    ref_cap, pred_cap = inst.caps
    blocks = []
    if ref_cap is not None:
        blocks.append((inst.rows, inst.n_ref))
    if pred_cap is not None:
        blocks.append((inst.cols, inst.n_pred))
    row_ids, offset = [], 0
    for ids, n in blocks:
        deg = np.bincount(ids, minlength=n)
        keep = deg >= 2
        new_id = np.cumsum(keep) - 1 + offset
        sel = keep[ids]
        row_ids.append((new_id[ids[sel]], np.flatnonzero(sel)))
        offset += int(keep.sum())
    if row_ids:
        r = np.concatenate([x[0] for x in row_ids])
        c = np.concatenate([x[1] for x in row_ids])
    else:
        r = c = np.zeros(0, dtype=np.int64)
    A = Csr.from_coo(r, c, np.ones(len(r)), (offset, E))
    return binary_model(inst.weights, A, np.full(offset, -np.inf), np.ones(offset),
                        name=f"bipartite {inst.kind} {inst.n_ref}x{inst.n_pred}")


def pair_names(inst: BipartiteInstance) -> list[str]:
    """Readable variable names ``x[r3,p7]`` for :func:`exactalign.backends.highs.write_lp_file` debugging."""
    return [f"x[r{r},p{c}]" for r, c in zip(inst.rows.tolist(), inst.cols.tolist(), strict=True)]


def lp_bound(inst: BipartiteInstance, backend: str = "highs") -> float:
    """Optimal value of the LP relaxation: an upper bound on every alignment."""
    if inst.num_pairs == 0:
        return 0.0
    out = solve_model(ilp_model(inst).relax(), backend)
    if out.status is not Status.OPTIMAL:
        raise RuntimeError(f"LP relaxation not solved: {out.raw_status}")
    return float(out.objective)


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


# --------------------------------------------------------------------------------------------
# exact: special paths
# --------------------------------------------------------------------------------------------
def _best_per(group: np.ndarray, weights: np.ndarray, other: np.ndarray) -> np.ndarray:
    """For each distinct ``group`` value, the edge of largest weight (ties: lowest ``other``)."""
    if len(group) == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort((other, -weights, group))
    g = group[order]
    first = np.ones(len(g), dtype=bool)
    first[1:] = g[1:] != g[:-1]
    return order[first]


def _assignment_edges(inst: BipartiteInstance) -> np.ndarray:
    """Edges of a maximum-weight 1:1 matching of the whole instance (connected or not): none
    without pairs, the best pair when one side has a single item, else
    ``linear_sum_assignment`` on the dense matrix (at most :data:`DENSE_CELLS` cells) or
    :func:`_sparse_assignment_edges`.

    One call on the whole instance, not one per connected component: measured with scipy
    loaded, on CEAF instances of generated coreference documents (20-1,000 mentions) the
    per-component path took 1.4-2.5x as long (1,000 mentions: 1.9 ms against 0.78 ms), and on
    random instances of 10-5,000 items a side (one component each) the two are within 10%."""
    if inst.num_pairs == 0:
        return np.zeros(0, dtype=np.int64)
    if inst.n_ref == 1:
        return _best_per(inst.rows, inst.weights, inst.cols)
    if inst.n_pred == 1:
        return _best_per(inst.cols, inst.weights, inst.rows)
    if inst.n_ref * inst.n_pred <= DENSE_CELLS:
        from scipy.optimize import linear_sum_assignment

        ri, ci = linear_sum_assignment(inst.to_dense(), maximize=True)
        idx = inst.pair_index(np.stack([ri, ci], axis=1))
        return idx[idx >= 0]
    return _sparse_assignment_edges(inst)


def _sparse_assignment_edges(inst: BipartiteInstance) -> np.ndarray:
    """Maximum-weight (not necessarily perfect) matching with the sparse Jonker-Volgenant solver
    of ``scipy.sparse.csgraph.min_weight_full_bipartite_matching``.

    That solver saturates the smaller side, so every item of the side put in rows (the smaller
    one; predicted on a tie, measured faster) gets a private dummy column: real pairs cost
    ``K - w``, the dummy ``K``. Every row is matched once, so the cost of a full matching is
    ``rows * K - weight`` and its minimum is a maximum-weight matching (an item matched to its
    dummy is unmatched). Any ``K > max w`` keeps costs positive (the solver treats zeros as
    missing edges); ``K = 16 max w + 1`` measured fastest on random 2,000 x 2,000 instances
    (``experiments/bipartite_scaling.py``). Measured against the squared construction (both sides
    padded): 4-5x faster."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    transpose = inst.n_pred <= inst.n_ref
    R, C = (inst.cols, inst.rows) if transpose else (inst.rows, inst.cols)
    n_rows, n_cols = (inst.n_pred, inst.n_ref) if transpose else (inst.n_ref, inst.n_pred)
    K = 16.0 * float(inst.weights.max()) + 1.0
    G = sp.csr_array(
        (np.concatenate([K - inst.weights, np.full(n_rows, K)]),
         (np.concatenate([R, np.arange(n_rows)]), np.concatenate([C, n_cols + np.arange(n_rows)]))),
        shape=(n_rows, n_cols + n_rows))
    left, right = min_weight_full_bipartite_matching(G)
    real = right < n_cols
    a, b = left[real], right[real]
    pairs = np.stack([b, a], axis=1) if transpose else np.stack([a, b], axis=1)
    idx = inst.pair_index(pairs)
    return idx[idx >= 0]


def exact_special(inst: BipartiteInstance) -> np.ndarray:
    """Edges of an optimal alignment without an ILP: the assignment problem for 1:1
    (:func:`_assignment_edges`); for 1:N each predicted item takes its best
    reference; for N:1 each reference its best predicted item; for N:N every candidate pair
    (weights are positive)."""
    if inst.kind == "1:1":
        return _assignment_edges(inst)
    if inst.kind == "1:N":
        return _best_per(inst.cols, inst.weights, inst.rows)
    if inst.kind == "N:1":
        return _best_per(inst.rows, inst.weights, inst.cols)
    return np.arange(inst.num_pairs)


# --------------------------------------------------------------------------------------------
# certificates: LP duals that prove an alignment optimal, checkable in O(pairs)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Certificate:
    """Dual values of the matching LP: ``u`` per reference item, ``v`` per predicted item (zero on a
    side without a capacity). ``bound`` = :func:`dual_bound` of them, an upper bound on every
    alignment of the instance; an alignment whose objective equals it is optimal."""

    u: np.ndarray
    v: np.ndarray
    bound: float


def dual_bound(inst: BipartiteInstance, u, v) -> float:
    """``sum(u) + sum(v) + sum_e max(0, w_e - u_i - v_j)``: an upper bound on the weight of every
    feasible alignment, for any ``u, v >= 0`` (``u`` must be 0 where references are uncapacitated,
    ``v`` where predictions are). Proof: weak LP duality, with ``max(0, .)`` the dual of ``x <= 1``."""
    u = np.asarray(u, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    if u.shape != (inst.n_ref,) or v.shape != (inst.n_pred,):
        raise ValueError("dual vectors do not match the instance")
    if (u < 0).any() or (v < 0).any():
        raise ValueError("dual values must be non-negative")
    ref_cap, pred_cap = inst.caps
    if (ref_cap is None and u.any()) or (pred_cap is None and v.any()):
        raise ValueError("a side without capacity constraints has no dual values")
    slack = np.maximum(0.0, inst.weights - u[inst.rows] - v[inst.cols])
    return float(u.sum() + v.sum() + slack.sum())


def certify(inst: BipartiteInstance, alignment) -> Certificate:
    """A dual certificate for ``alignment`` (its bound equals the objective iff it is optimal).

    For 1:1, Klein's criterion: the alignment is optimal iff the residual graph of the matching
    flow (source -> references -> predictions -> sink, pair arcs of cost ``-w`` both ways for
    matched pairs) has no negative cycle. A Bellman-Ford pass with a frontier (only arcs out of
    nodes improved in the last round are relaxed, vectorised) finds shortest distances ``d``;
    then ``u_i = max(0, d_i - d_source)``, ``v_j = max(0, d_sink - d_j)`` are dual feasible and
    tight on matched pairs. When the pass has not settled after :func:`_certificate_rounds`
    rounds -- a negative cycle (a non-optimal alignment), or unusually long shortest paths --
    the certificate is built the same way from an optimal alignment (:func:`exact_special`),
    whose residual graph has no negative cycle: its duals bound every alignment of the
    instance, so a non-optimal ``alignment`` gets the optimum as its bound (at about the cost
    of an exact solve, instead of ``n`` rounds: 4 s at 5,000 a side). Other kinds:
    the duals of the closed forms (best weight per capacitated item)."""
    a = np.asarray(alignment, dtype=np.int64).reshape(-1, 2)
    r, p = inst.n_ref, inst.n_pred
    u, v = np.zeros(r), np.zeros(p)
    if inst.num_pairs == 0:
        return Certificate(u, v, 0.0)
    if inst.kind != "1:1":
        if inst.kind == "1:N":
            np.maximum.at(v, inst.cols, inst.weights)
        elif inst.kind == "N:1":
            np.maximum.at(u, inst.rows, inst.weights)
        return Certificate(u, v, dual_bound(inst, u, v))
    d = _residual_distances(inst, a, _certificate_rounds(r + p + 2))
    if d is None:  # not settled: certify an optimal alignment instead (see above)
        d = _residual_distances(inst, _alignment_from_edges(inst, exact_special(inst)))
    if d is None:  # cannot happen in exact arithmetic; trivial duals still bound everything
        np.maximum.at(u, inst.rows, inst.weights)
        return Certificate(u, v, dual_bound(inst, u, v))
    u, v = _duals(inst, d)
    return Certificate(u, v, dual_bound(inst, u, v))


def _duals(inst: BipartiteInstance, d: np.ndarray, ref_block=None, pred_block=None,
           blocks: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``(u, v)`` of :func:`certify` from the residual distances ``d`` of
    :func:`_block_distances` (one source and sink per block, numbered after the items)."""
    r, p = inst.n_ref, inst.n_pred
    s = r + p + (np.zeros(r, np.int64) if ref_block is None else ref_block)
    t = r + p + blocks + (np.zeros(p, np.int64) if pred_block is None else pred_block)
    return np.maximum(0.0, d[:r] - d[s]), np.maximum(0.0, d[t] - d[r:r + p])


#: Rounds the exact path gives the residual pass on the greedy alignment before it solves the
#: assignment instead. Measured on the CEAF instances of 100 generated 60-mention documents
#: (40 entities on average): the 90% whose greedy alignment is optimal settled within 2-9
#: rounds; a non-optimal one never settles, so every round past those is lost on it.
GREEDY_ROUNDS = 32


def _improvable(inst: BipartiteInstance, a: np.ndarray, ref_block=None,
                blocks: int = 1) -> np.ndarray:
    """Per block (``ref_block``: each reference's; ``None``: one block), whether a local
    exchange improves the 1:1 alignment ``a`` by more than the residual pass's tolerance --
    proof that ``a`` is not optimal, found in one vectorised pass instead of a residual pass
    that never settles. With ``m(x)`` the weight of item ``x``'s pair in ``a`` (0 if free):
    a candidate pair ``(i, j)`` with ``w - m(i) - m(j) > 0`` (take it, drop both items'
    pairs), or a pair ``(i, j)`` of ``a`` with ``max_i' (w(i', j) - m(i')) + max_j' (w(i, j') -
    m(j')) - w(i, j) > 0`` (move ``j`` to ``i'`` and ``i`` to ``j'``, dropping their pairs; when
    ``i'`` and ``j'`` are each other's pair, that pair is counted twice, so the true swap gains
    more). Never claims an optimal alignment improvable; measured on the CEAF instances of 100
    generated 60-mention documents, it found all 20 non-optimal greedy alignments."""
    r, c, w = inst.rows, inst.cols, inst.weights
    idx = inst.pair_index(a)
    mr, mp = np.zeros(inst.n_ref), np.zeros(inst.n_pred)
    mr[a[:, 0]] = w[idx]
    mp[a[:, 1]] = w[idx]
    if ref_block is None:
        ref_block = np.zeros(inst.n_ref, np.int64)
    wmax = np.ones(blocks)
    np.maximum.at(wmax, ref_block[r], w)
    tol = 1e-12 * wmax
    out = np.zeros(blocks, dtype=bool)
    take = w - mr[r] - mp[c] > tol[ref_block[r]]
    out[ref_block[r[take]]] = True
    to_j = np.full(inst.n_pred, -np.inf)
    np.maximum.at(to_j, c, w - mr[r])
    to_i = np.full(inst.n_ref, -np.inf)
    np.maximum.at(to_i, r, w - mp[c])
    move = to_j[a[:, 1]] + to_i[a[:, 0]] - w[idx] > tol[ref_block[a[:, 0]]]
    out[ref_block[a[move, 0]]] = True
    return out


def _certificate_rounds(nodes: int) -> int:
    """Rounds :func:`certify` gives the Bellman-Ford pass on the alignment it was handed. On
    optimal alignments of random 100-5,000 a side instances (uniform and Dice weights) the pass
    settled within 18-230 rounds; a non-optimal one never settles (it would run ``nodes``)."""
    return 256 + 2 * math.isqrt(nodes)


def _residual_distances(inst: BipartiteInstance, a: np.ndarray,
                        max_rounds: int | None = None) -> np.ndarray | None:
    """Shortest distances from a virtual root (0-cost arcs to every node) in the residual graph
    of ``a``; ``None`` if a negative cycle exists, or if the distances have not settled after
    ``max_rounds`` rounds (default: enough to detect a negative cycle). Nodes: references,
    predictions, source, sink. Up to :data:`SMALL_PASS_PAIRS` pairs :func:`_small_distances`,
    else :func:`_block_distances` with one block (the same distances).

    Hand-written rather than ``scipy.sparse.csgraph.bellman_ford`` (which relaxes every arc in
    every round) because the frontier is what makes it scale: on optimal alignments of random
    instances, 0.5 ms against 0.5 ms at 20 items a side, 19 ms against 280 ms at 1,000 and
    90 ms against 7.7 s at 5,000 (the same distances)."""
    n = inst.n_ref + inst.n_pred + 2
    limit = n + 1 if max_rounds is None else min(n + 1, max_rounds)
    if inst.num_pairs <= SMALL_PASS_PAIRS:
        return _small_distances(inst, a, limit)
    d, settled = _block_distances(inst, a, None, None, np.array([limit]))
    return d if settled[0] else None


#: Instances with at most this many candidate pairs get the residual pass in plain Python
#: (:func:`_small_distances`), larger ones the vectorised pass: numpy's per-call cost dominates
#: a document-sized pass. Measured on random Dice instances (degree 3) with optimal
#: alignments: 30 pairs 0.034 ms against 0.197 ms, 120 pairs 0.136 against 0.291, 240 pairs
#: 0.30 against 0.46, 480 pairs 0.69 against 0.63, 960 pairs 1.6 against 0.67.
SMALL_PASS_PAIRS = 300


def _small_distances(inst: BipartiteInstance, a: np.ndarray, limit: int) -> np.ndarray | None:
    """:func:`_residual_distances` of one block in plain Python: the same arcs, the same rounds
    (each relaxes every arc out of the nodes improved in the last one, from the distances
    before it) and the same tolerance, so the same distances to the bit and the same
    settled/unsettled answer (``tests/test_bipartite.py`` compares them on random instances)."""
    r, p = inst.n_ref, inst.n_pred
    n, s, t = r + p + 2, r + p, r + p + 1
    adj: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    al = a.tolist()
    matched = {(i, j) for i, j in al}
    mr, mp = [False] * r, [False] * p
    for i, j in al:
        mr[i] = mp[j] = True
    w = inst.weights.tolist()
    for i, j, x in zip(inst.rows.tolist(), inst.cols.tolist(), w, strict=True):
        adj[i].append((r + j, -x))
        if (i, j) in matched:
            adj[r + j].append((i, x))
    for i in range(r):
        if mr[i]:
            adj[i].append((s, 0.0))
        else:
            adj[s].append((i, 0.0))
    for j in range(p):
        if mp[j]:
            adj[t].append((r + j, 0.0))
        else:
            adj[r + j].append((t, 0.0))
    if al:
        adj[s].append((t, 0.0))
    adj[t].append((s, 0.0))
    tol = 1e-12 * max(1.0, max(w, default=0.0))
    d = [0.0] * n
    frontier = range(n)
    inf = math.inf
    for _ in range(limit):
        new: dict[int, float] = {}
        for u in frontier:
            du = d[u]
            for h, c in adj[u]:
                v = du + c
                if v < new.get(h, inf):
                    new[h] = v
        improved = [h for h, v in new.items() if v < d[h] - tol]
        if not improved:
            return np.array(d)
        for h in improved:
            d[h] = new[h]
        frontier = improved
    return None


def _block_distances(inst: BipartiteInstance, a: np.ndarray, ref_block, pred_block,
                     limits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_residual_distances` of every block of a block-diagonal instance at once: block
    ``k`` (the items with ``ref_block == k`` / ``pred_block == k``; ``None``: one block) has its
    own source ``n_ref + n_pred + k`` and sink ``n_ref + n_pred + blocks + k``, so the blocks'
    residual graphs are disjoint and each pass is the one its block alone would run -- the same
    rounds, distances and tolerance (``1e-12`` of its largest weight) -- stopped after
    ``limits[k]`` rounds. Returns ``(d, settled)``: the distances, and per block whether they
    settled (else ``d`` of that block means nothing)."""
    r, p = inst.n_ref, inst.n_pred
    blocks = len(limits)
    if ref_block is None:
        ref_block, pred_block = np.zeros(r, np.int64), np.zeros(p, np.int64)
    n = r + p + 2 * blocks
    src = r + p + np.arange(blocks)
    snk = src + blocks
    matched = np.zeros(inst.num_pairs, dtype=bool)
    if len(a):
        matched[inst.pair_index(a)] = True
    rm = np.zeros(r, dtype=bool)
    rm[a[:, 0]] = True
    pm = np.zeros(p, dtype=bool)
    pm[a[:, 1]] = True
    some = np.zeros(blocks, dtype=bool)  # blocks with a matched pair: an arc source -> sink
    some[ref_block[a[:, 0]]] = True
    R, C, W = inst.rows, r + inst.cols, inst.weights
    ar, ap = np.arange(r), r + np.arange(p)
    sr, tp = src[ref_block], snk[pred_block]
    tail = np.concatenate([R, C[matched], np.where(rm, ar, sr), np.where(pm, tp, ap), src[some],
                           snk])
    head = np.concatenate([C, R[matched], np.where(rm, sr, ar), np.where(pm, ap, tp), snk[some],
                           src])
    cost = np.concatenate([-W, W[matched], np.zeros(r + p + int(some.sum()) + blocks)])
    order = np.argsort(tail, kind="stable")
    tail, head, cost = tail[order], head[order], cost[order]
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(tail, minlength=n), out=ptr[1:])
    # one block (an instance above SMALL_PASS_PAIRS) without the per-block bookkeeping:
    # 2.5 ms against 3.0 ms at 3,000 a side (random Dice instances, optimal alignments)
    single = blocks == 1
    if single:
        node_block = None
        tol = 1e-12 * max(1.0, float(W.max(initial=0.0)))
    else:
        node_block = np.concatenate([ref_block, pred_block, np.arange(blocks),
                                     np.arange(blocks)])
        wmax = np.ones(blocks)
        np.maximum.at(wmax, ref_block[inst.rows], W)
        tol = (1e-12 * wmax)[node_block]
    d = np.zeros(n)
    frontier = np.arange(n)
    active = np.ones(blocks, dtype=bool)  # neither settled nor out of rounds
    settled = np.zeros(blocks, dtype=bool)
    for rnd in range(int(limits.max(initial=0))):
        if not single:
            active &= limits > rnd  # a block out of rounds stays unsettled
            frontier = frontier[active[node_block[frontier]]]
        counts = ptr[frontier + 1] - ptr[frontier]
        starts = np.repeat(ptr[frontier] - np.cumsum(counts) + counts, counts)
        arcs = starts + np.arange(counts.sum())
        cand = d[tail[arcs]] + cost[arcs]
        new = d.copy()
        np.minimum.at(new, head[arcs], cand)
        improved = new < d - tol
        frontier = np.flatnonzero(improved)
        if single:
            if not len(frontier):  # no arc, or no improvement: the distances are final
                settled[0] = True
                break
        else:
            moved = np.zeros(blocks, dtype=bool)
            moved[node_block[frontier]] = True
            settled |= active & ~moved
            active &= moved
            if not active.any():
                break
        d = np.where(improved, new, d)
    return d, settled


# --------------------------------------------------------------------------------------------
# heuristics (each reproduces a published procedure, tie-breaking included)
# --------------------------------------------------------------------------------------------
def _score_order(inst: BipartiteInstance) -> np.ndarray:
    """Pairs in the order the TAC KBP event-nugget scorer (EvmEval, every version) pops them from
    its heap: key ``(-score, predicted index, reference index)`` ascending."""
    return np.lexsort((inst.rows, inst.cols, -inst.weights))


def greedy(inst: BipartiteInstance) -> np.ndarray:
    """Global greedy (TAC KBP event-nugget scorer v1.6 from 2015-08-12, v1.7, v1.8): take pairs in
    :func:`_score_order`, keeping a pair when both its items still have capacity under the kind
    (for 1:1: both still free). Returns the alignment."""
    ref_cap, pred_cap = inst.caps
    order = _score_order(inst)
    ref_free = bytearray(inst.n_ref)  # 0 = still has capacity
    pred_free = bytearray(inst.n_pred)
    taken = []
    rows, cols = inst.rows.tolist(), inst.cols.tolist()
    for e in order.tolist():
        r, c = rows[e], cols[e]
        if ref_free[r] or pred_free[c]:
            continue
        taken.append(e)
        if ref_cap is not None:
            ref_free[r] = 1
        if pred_cap is not None:
            pred_free[c] = 1
    return _alignment_from_edges(inst, taken)


def pilot2015_mapping(inst: BipartiteInstance) -> list[list[int]]:
    """Algorithm 1 of Liu, Mitamura & Hovy (2015), as EvmEval v1.0-v1.3 implement it: pop pairs
    in :func:`_score_order`; a predicted item is used at most once; a reference item collects
    every predicted item it pops while that item is unused. Returns, per reference item, the
    predicted items it collected, in the order collected (so the first is its best)."""
    mapping: list[list[int]] = [[] for _ in range(inst.n_ref)]
    used = bytearray(inst.n_pred)
    rows, cols = inst.rows.tolist(), inst.cols.tolist()
    for e in _score_order(inst).tolist():
        c = cols[e]
        if not used[c]:
            used[c] = 1
            mapping[rows[e]].append(c)
    return mapping


def pilot2015(inst: BipartiteInstance) -> np.ndarray:
    """The 1:1 alignment the pilot study's TP counts (its Algorithm 2: each reference item scores
    its best mapped predicted item): each reference keeps the first predicted item it collected
    in :func:`pilot2015_mapping`. Feasible for every kind."""
    pairs = [(r, m[0]) for r, m in enumerate(pilot2015_mapping(inst)) if m]
    return _frozen(np.array(pairs, dtype=np.int64).reshape(-1, 2))


def ref_order(inst: BipartiteInstance) -> np.ndarray:
    """Reference-order greedy (EvmEval v1.6 of 2015-08-11): reference items in index order each
    take their best predicted item that still has capacity, candidates ordered by
    ``(-score, predicted index)``; each reference takes at most one."""
    _, pred_cap = inst.caps
    order = np.lexsort((inst.cols, -inst.weights, inst.rows))
    used = bytearray(inst.n_pred)
    taken, done_ref = [], -1
    rows, cols = inst.rows.tolist(), inst.cols.tolist()
    for e in order.tolist():
        r, c = rows[e], cols[e]
        if r == done_ref or used[c]:
            continue
        taken.append(e)
        done_ref = r
        if pred_cap is not None:
            used[c] = 1
    return _alignment_from_edges(inst, taken)


#: The heuristics, by the names :func:`solve` and the command line accept.
HEURISTICS = {
    "greedy": greedy,
    "pilot2015": pilot2015,
    "ref-order": ref_order,
}


# --------------------------------------------------------------------------------------------
# brute force
# --------------------------------------------------------------------------------------------
def brute_force(inst: BipartiteInstance) -> tuple[float, np.ndarray]:
    """Enumerate every feasible alignment (refuses more than :data:`BRUTE_MAX_PAIRS` pairs),
    cutting only branches whose remaining weight cannot beat the best found. Independent of the
    ILP and of the assignment algorithms: the oracle the tests compare every exact path with."""
    E = inst.num_pairs
    if E > BRUTE_MAX_PAIRS:
        raise ModelTooLargeError(f"brute_force enumerates at most {BRUTE_MAX_PAIRS} candidate "
                                 f"pairs; this instance has {E}")
    ref_cap, pred_cap = inst.caps
    rows, cols, w = inst.rows.tolist(), inst.cols.tolist(), inst.weights.tolist()
    ref_load = [0] * inst.n_ref
    pred_load = [0] * inst.n_pred
    best_val, best_set, chosen = -1.0, [], []
    # suffix[e] = total weight of pairs e.. : a branch that cannot beat the best even by taking
    # all of them is cut (sound: it can only tie or lose), which keeps N:N tractable.
    suffix = np.concatenate([np.cumsum(inst.weights[::-1])[::-1], [0.0]]).tolist()

    def rec(e: int, val: float):
        nonlocal best_val, best_set
        if e == E:
            if val > best_val + 1e-12:
                best_val, best_set = val, list(chosen)
            return
        if val + suffix[e] <= best_val + 1e-12:
            return
        r, c = rows[e], cols[e]
        if (ref_cap is None or ref_load[r] < ref_cap) and \
                (pred_cap is None or pred_load[c] < pred_cap):
            ref_load[r] += 1
            pred_load[c] += 1
            chosen.append(e)
            rec(e + 1, val + w[e])
            chosen.pop()
            ref_load[r] -= 1
            pred_load[c] -= 1
        rec(e + 1, val)

    rec(0, 0.0)
    return max(best_val, 0.0), _alignment_from_edges(inst, best_set)


# --------------------------------------------------------------------------------------------
# solve: any method by name, verified
# --------------------------------------------------------------------------------------------
EXACT_METHODS = ("exact", "ilp", "brute")
METHODS = EXACT_METHODS + tuple(HEURISTICS)


def solve(inst: BipartiteInstance, method: str = "exact", *, backend: str = "highs",
          time_limit: float | None = None, mip_rel_gap: float = 0.0, threads: int = 1,
          seed: int = 0, decompose: bool = True, warm_start: bool = True,
          certify_exact: bool = True) -> Result:
    """Solve ``inst`` with ``method`` and return a verified :class:`Result`.

    ``exact``    1:1: the :func:`greedy` alignment when its own dual certificate (the
                 residual pass of :func:`certify`, without the fallback) proves it optimal
                 (``details["algorithm"] == "certified greedy"``), else the special paths of
                 :func:`exact_special` on the whole instance (one subproblem: ``decompose``
                 is the ILP's), proven by a dual certificate (:func:`certify`; its bound is
                 the result's ``bound``, and an alignment it does not prove optimal raises
                 ``VerificationError``). The greedy start is why a corpus of documents whose
                 greedy alignments are optimal needs no assignment solver, nor scipy's import
                 (measured on the 1,500-document nugget corpus of ``performance``: 0.4 s of
                 1.5 s). ``certify_exact=False`` skips the certificate of the assignment path
                 (about 20% faster on large 1:1 instances) and rests the proof on the
                 algorithm alone (``details["proof"] == "algorithm"``).
    ``ilp``      the ILP of :func:`ilp_model` through ``backend``, per connected component,
                 warm-started from the greedy alignment; ``time_limit`` is an overall budget:
                 a component reached after it ran out keeps its warm start and a trivial bound.
    ``brute``    :func:`brute_force` (tiny instances only).
    heuristic    any name in :data:`HEURISTICS` (status FEASIBLE, no bound).

    Every alignment is re-verified with :func:`check`; the objective is recomputed from it."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} for bipartite matching; choose one of "
                         + ", ".join(METHODS))
    t0 = time.perf_counter()
    if method in HEURISTICS:
        al = HEURISTICS[method](inst)
        obj = check(inst, al)
        return Result(Status.FEASIBLE, obj, None, al, method, time.perf_counter() - t0,
                      backend=None, seed=None)
    if method == "brute":
        val, al = brute_force(inst)
        obj = check(inst, al)
        return Result(Status.OPTIMAL, obj, obj, al, method, time.perf_counter() - t0,
                      backend=None, nodes=None)
    if method == "exact":
        return _solve_exact(inst, certify_exact, t0)
    options = SolveOptions(time_limit=time_limit, mip_rel_gap=mip_rel_gap, threads=threads,
                           seed=seed)
    return _solve_ilp(inst, backend, options, decompose, warm_start, t0)


#: The options of :func:`solve` only its ``ilp`` method reads.
_ILP_ONLY = ("backend", "time_limit", "mip_rel_gap", "threads", "seed", "warm_start")


def solve_many(instances, method: str = "exact", **options) -> list[Result]:
    """:func:`solve` of every instance of ``instances``, the same results -- with ``exact`` on
    1:1 instances in one solve: a corpus of documents, each its own small instance, costs one
    block-diagonal instance (document ``k``'s items after those of documents ``0 .. k-1``)
    instead of a solver set-up per document.

    The exact path decides each instance as :func:`solve` does, so every document gets the
    alignment its own solve returns: the greedy alignments of all (one :func:`greedy` pass
    on the whole: a pair's fate depends only on its own block) get one residual pass with a
    source and sink per block (:func:`_block_distances`: each block's pass is the one its
    own :func:`certify` runs, same rounds and tolerance); the blocks it proves keep them, with
    their duals as the certificate, and the others take their own :func:`exact_special` and
    :func:`certify`. The block-diagonal alignment is re-verified (:func:`check`) once; each
    document's objective is the sum of its pairs' weights, and its bound that of its duals.
    ``greedy`` (v1.8's mapping) batches the same way: it takes pairs in :func:`_score_order`
    (weight, then predicted and reference index, an order the offsets keep within each
    block), and a pair's fate depends only on the pairs of its own block taken before it. The
    ILP's options (``backend``, ``time_limit``, ``seed``...) are ignored there, as
    :func:`solve` ignores them. Every other method, and any option :func:`solve` takes
    besides ``certify_exact``, falls back to one :func:`solve` per instance.

    >>> a = BipartiteInstance.from_dense([[0.9, 0.2], [0.8, 0.0]])
    >>> b = BipartiteInstance.from_dense([[0.5]])
    >>> [r.objective for r in solve_many([a, b])] == [solve(a).objective, solve(b).objective]
    True
    """
    instances = list(instances)
    certify_exact = options.pop("certify_exact", True)
    # what only the ILP reads (solve ignores it for exact and greedy)
    ilp_only = {k: options.pop(k) for k in _ILP_ONLY if k in options}
    if (method not in ("exact", "greedy") or options or len(instances) < 2
            or any(i.kind != "1:1" for i in instances)):
        return [solve(i, method, certify_exact=certify_exact, **ilp_only, **options)
                for i in instances]
    t0 = time.perf_counter()
    n_ref = np.array([i.n_ref for i in instances], dtype=np.int64)
    n_pred = np.array([i.n_pred for i in instances], dtype=np.int64)
    r_off = np.concatenate([[0], np.cumsum(n_ref)])
    p_off = np.concatenate([[0], np.cumsum(n_pred)])
    sizes = np.array([i.num_pairs for i in instances], dtype=np.int64)
    doc_of_pair = np.repeat(np.arange(len(instances)), sizes)
    big = object.__new__(BipartiteInstance)  # canonical by construction: blocks in order
    for name, value in (("n_ref", int(r_off[-1])), ("n_pred", int(p_off[-1])),
                        ("rows", _frozen(np.concatenate([i.rows for i in instances]
                                                        + [np.zeros(0, np.int64)])
                                         + r_off[doc_of_pair])),
                        ("cols", _frozen(np.concatenate([i.cols for i in instances]
                                                        + [np.zeros(0, np.int64)])
                                         + p_off[doc_of_pair])),
                        ("weights", _frozen(np.concatenate([i.weights for i in instances]
                                                           + [np.zeros(0)]))),
                        ("kind", "1:1")):
        object.__setattr__(big, name, value)
    al = np.asarray(greedy(big), dtype=np.int64).reshape(-1, 2)
    check(big, al)  # re-verified: feasible, every pair a candidate
    idx = big.pair_index(al)
    doc_of_al = doc_of_pair[idx]
    starts = np.searchsorted(doc_of_al, np.arange(len(instances) + 1))
    parts = [al[starts[k]:starts[k + 1]] - (r_off[k], p_off[k]) for k in range(len(instances))]
    w_al = big.weights[idx]  # each instance's objective summed as check sums it
    obj = [float(w_al[starts[k]:starts[k + 1]].sum()) for k in range(len(instances))]
    if method == "greedy":
        wall = (time.perf_counter() - t0) / len(instances)
        return [Result(Status.FEASIBLE, obj[k], None, _frozen(parts[k]), method, wall,
                       backend=None, seed=None) for k in range(len(instances))]
    ref_block = np.repeat(np.arange(len(instances)), n_ref)
    pred_block = np.repeat(np.arange(len(instances)), n_pred)
    # each block's own limit, as _residual_distances(inst, al, GREEDY_ROUNDS) sets it
    limits = np.minimum(n_ref + n_pred + 3, GREEDY_ROUNDS)
    # a block a local exchange improves gets no rounds (as its own solve runs none)
    limits[_improvable(big, al, ref_block, len(instances))] = 0
    d, settled = _block_distances(big, al, ref_block, pred_block, limits)
    u, v = _duals(big, d, ref_block, pred_block, len(instances))
    slack = np.maximum(0.0, big.weights - u[big.rows] - v[big.cols])
    bounds = (np.bincount(ref_block, weights=u, minlength=len(instances))
              + np.bincount(pred_block, weights=v, minlength=len(instances))
              + np.bincount(doc_of_pair, weights=slack, minlength=len(instances)))
    wall = (time.perf_counter() - t0) / len(instances)
    out = []
    for k, inst in enumerate(instances):
        if not sizes[k]:
            out.append(_solve_exact(inst, certify_exact, time.perf_counter()))
        elif settled[k]:
            out.append(_proven_greedy(obj[k], float(bounds[k]),
                                      _frozen(parts[k]), wall))
        else:  # greedy not proven: the instance's own assignment and certificate
            out.append(_solve_exact_assignment(inst, certify_exact, time.perf_counter()))
    return out


def _components(inst: BipartiteInstance, decompose: bool):
    """Yield ``(refs, preds, edges)`` of every component with at least one candidate pair."""
    if not decompose:
        if inst.num_pairs:
            yield np.arange(inst.n_ref), np.arange(inst.n_pred), np.arange(inst.num_pairs)
        return
    comps = bipartite_components(inst.n_ref, inst.n_pred, inst.rows, inst.cols)
    for k in np.flatnonzero(comps.sizes()[2] > 0):
        yield comps.members(int(k))


def _solve_exact(inst: BipartiteInstance, certify_exact: bool, t0: float) -> Result:
    if inst.kind == "1:1" and inst.num_pairs:
        al = greedy(inst)
        d = None if _improvable(inst, al)[0] else _residual_distances(inst, al, GREEDY_ROUNDS)
        if d is not None:  # the greedy alignment, proven optimal by its own certificate
            obj = check(inst, al)
            u, v = _duals(inst, d)
            return _proven_greedy(obj, dual_bound(inst, u, v), al, time.perf_counter() - t0)
    return _solve_exact_assignment(inst, certify_exact, t0)


def _solve_exact_assignment(inst: BipartiteInstance, certify_exact: bool, t0: float) -> Result:
    """:func:`exact_special`'s alignment, re-verified, and certified unless told not to."""
    special = "assignment" if inst.kind == "1:1" else "closed-form"
    edges = exact_special(inst)
    ncomp = int(inst.num_pairs > 0)
    al = _alignment_from_edges(inst, edges)
    obj = check(inst, al)
    bound, proof = obj, "algorithm"
    if certify_exact:
        bound, proof = certify(inst, al).bound, "dual certificate"
        if not close(bound, obj):
            raise VerificationError(
                f"the {special} path returned an alignment of weight {obj!r} that its dual "
                f"certificate does not prove optimal (bound {bound!r})")
        bound = max(bound, obj)
    return Result(Status.OPTIMAL, obj, bound, al, "exact", time.perf_counter() - t0,
                  backend=None, components=ncomp,
                  details={"algorithm": special, "proof": proof})


def _proven_greedy(obj: float, bound: float, al: np.ndarray, wall: float) -> Result:
    """The result of a 1:1 instance whose :func:`greedy` alignment its dual certificate proves
    optimal (see :func:`solve`)."""
    if not close(bound, obj):  # cannot happen: settled distances give tight duals
        raise VerificationError(f"the certificate of the greedy alignment (weight {obj!r}) "
                                f"bounds it by {bound!r}")
    return Result(Status.OPTIMAL, obj, max(bound, obj), al, "exact", wall, backend=None,
                  components=1, details={"algorithm": "certified greedy",
                                         "proof": "dual certificate"})


def _solve_ilp(inst, backend, options, decompose, warm_start, t0) -> Result:
    from dataclasses import replace

    edge_parts, statuses, objs, bounds, nodes = [], [], [], [], []
    version = None
    ncomp = 0
    raw = set()
    used, fallback = set(), []  # backends that answered; routes that failed verification
    presolve = True  # False when some component's answer was computed with presolve off
    for refs, preds, edges in _components(inst, decompose):
        ncomp += 1
        sub = inst._restrict(refs, preds, edges)
        model = ilp_model(sub)
        start = greedy(sub) if warm_start else None
        opts = replace(options, time_limit=remaining(options.time_limit,
                                                     time.perf_counter() - t0))
        if start is not None:
            x0 = np.zeros(sub.num_pairs)
            x0[sub.pair_index(start)] = 1.0
            opts = replace(opts, warm_start=x0)
        if opts.time_limit == 0.0 and start is not None:
            # Budget exhausted: keep the warm start, bound it without solving.
            res = Result(Status.TIME_LIMIT, check(sub, start), trivial_bound(sub), start,
                         "ilp", 0.0, backend=backend)
        else:
            out = solve_model(model, backend, opts)
            res = verified_result(
                out, model,
                decode=lambda x, s=sub: _alignment_from_edges(s, np.flatnonzero(x > 0.5)),
                check=lambda al, s=sub: check(s, al), method="ilp", seed=options.seed)
            version = out.solver_version
            raw.add(out.raw_status)
            used.add(out.backend)
            fallback.extend(res.details.get("fallback", ()))
            presolve = presolve and out.presolve
            if res.alignment is None and start is not None:
                # No incumbent from the solver (e.g. time limit before any): keep the start.
                res = Result(res.status, check(sub, start),
                             res.bound if res.bound is not None else trivial_bound(sub),
                             start, "ilp", res.wall_time, backend=backend)
        if res.alignment is None:
            statuses.append(res.status)
            objs.append(np.nan)
            bounds.append(res.bound if res.bound is not None else trivial_bound(sub))
            continue
        al = np.asarray(res.alignment, dtype=np.int64).reshape(-1, 2)
        edge_parts.append(edges[sub.pair_index(al)])
        statuses.append(res.status)
        objs.append(res.objective)
        bounds.append(res.bound if res.bound is not None else trivial_bound(sub))
        nodes.append(res.nodes or 0)
    status = worst_status(statuses) if statuses else Status.OPTIMAL
    edges = np.concatenate(edge_parts) if edge_parts else np.zeros(0, dtype=np.int64)
    al = _alignment_from_edges(inst, edges)
    obj = check(inst, al)
    if status in (Status.INFEASIBLE, Status.ERROR):
        obj_out, al_out = None, None
    else:
        obj_out, al_out = obj, al
    bound = float(np.sum(bounds)) if bounds else 0.0
    if status is Status.OPTIMAL:
        bound = max(bound, obj)
    details = {"raw_status": sorted(raw)}
    if fallback:
        details["fallback"] = fallback
    if not presolve:
        details["presolve"] = False
    return Result(status, obj_out, bound, al_out, "ilp", time.perf_counter() - t0,
                  nodes=int(np.sum(nodes)) if nodes else 0,
                  backend="+".join(sorted(used)) if used else backend,
                  seed=options.seed, solver_version=version, components=ncomp,
                  details=details)


# --------------------------------------------------------------------------------------------
# among the optimal alignments: lexicographic solves, co-optimal ranges, gap witnesses
# --------------------------------------------------------------------------------------------
def lexicographic(inst: BipartiteInstance, secondary, *, maximize: bool = True,
                  optimum: float | None = None, backend: str = "highs",
                  primary=None) -> Result:
    """Among the alignments of maximum weight, one that maximises (``maximize=False``:
    minimises) ``sum(secondary[e])`` over its pairs ``e`` (``secondary`` is indexed like
    ``inst.weights``, any sign). An ILP through ``backend``: the problem's rows plus
    ``sum(w x) >= optimum - tol`` (``tol`` 1e-9 relative), objective the secondary weights.

    ``primary`` (indexed like ``inst.weights``, zeros allowed) replaces ``inst.weights`` as the
    weight ``w`` that is held at its optimum -- for problems whose candidate pairs include pairs
    of weight 0, which an instance drops (then ``optimum``, the maximum of ``sum(primary)``,
    must be given).

    The returned :class:`Result` is verified twice: its alignment is feasible and its primary
    weight (``details["primary"]``) equals the optimum; ``objective`` and ``bound`` are of the
    secondary sum. ``optimum`` defaults to the certified exact solve."""
    s = np.asarray(secondary, dtype=np.float64).ravel()
    if s.shape != inst.weights.shape:
        raise InputError(f"{len(s)} secondary weights for {inst.num_pairs} candidate pairs")
    w = inst.weights if primary is None else np.asarray(primary, dtype=np.float64).ravel()
    if w.shape != inst.weights.shape:
        raise InputError(f"{len(w)} primary weights for {inst.num_pairs} candidate pairs")
    if optimum is None:
        if primary is not None:
            raise InputError("lexicographic: give the optimum of the primary weights")
        optimum = float(solve(inst, "exact").objective)
    t0 = time.perf_counter()
    if inst.num_pairs == 0:
        empty = np.zeros((0, 2), dtype=np.int64)
        return Result(Status.OPTIMAL, 0.0, 0.0, empty, "lexicographic", 0.0,
                      details={"primary": 0.0})
    import scipy.sparse as sp

    base = ilp_model(inst)
    sign = 1.0 if maximize else -1.0
    tol = 1e-9 * max(1.0, abs(optimum))
    A = sp.vstack([base.A.to_scipy(), sp.csr_array(w.reshape(1, -1))], format="csr")
    model = binary_model(sign * s, A, np.append(base.row_lo, optimum - tol),
                         np.append(base.row_hi, np.inf),
                         name=f"lexicographic {base.name}")
    out = solve_model(model, backend)
    res = verified_result(
        out, model, decode=lambda x: _alignment_from_edges(inst, np.flatnonzero(x > 0.5)),
        check=lambda al: sign * float(s[inst.pair_index(al)].sum()), method="lexicographic",
        seed=0)
    if res.alignment is None:
        raise VerificationError(f"the lexicographic solve found no alignment of weight "
                                f"{optimum!r} ({res.status.value})")
    primary = check(inst, res.alignment) if primary is None else \
        float(w[inst.pair_index(res.alignment)].sum()) if len(res.alignment) else 0.0
    if not close(primary, optimum):
        raise VerificationError(f"the lexicographic alignment weighs {primary!r}, not the "
                                f"optimum {optimum!r}")
    value = float(s[inst.pair_index(res.alignment)].sum())
    bound = None if res.bound is None else sign * float(res.bound)
    return res.replace(objective=value, bound=bound, wall_time=time.perf_counter() - t0,
                       details={**dict(res.details), "primary": primary,
                                "sense": "max" if maximize else "min"})


def co_optimal_range(inst: BipartiteInstance, secondary, *, backend: str = "highs",
                     primary=None, optimum: float | None = None) -> tuple[float, float]:
    """``(min, max)`` of ``sum(secondary)`` over every alignment of maximum weight: how far a
    secondary number can move between alignments the metric cannot tell apart. ``primary``
    and ``optimum``: as in :func:`lexicographic`."""
    if optimum is None and primary is None:
        optimum = float(solve(inst, "exact").objective)
    lo = lexicographic(inst, secondary, maximize=False, optimum=optimum, backend=backend,
                       primary=primary)
    hi = lexicographic(inst, secondary, maximize=True, optimum=optimum, backend=backend,
                       primary=primary)
    for r in (lo, hi):
        if r.status is not Status.OPTIMAL:
            raise VerificationError(f"co-optimal range not proven ({r.status.value})")
    return lo.objective, hi.objective


@dataclass(frozen=True)
class Witness:
    """The fewest pair changes that turn an alignment into an optimal one: drop ``remove``,
    add ``add`` (both ``(k, 2)`` arrays of (reference, predicted) pairs); ``optimal`` is the
    alignment reached, ``gain`` its weight minus the given alignment's."""

    remove: np.ndarray
    add: np.ndarray
    optimal: np.ndarray
    gain: float

    @property
    def changes(self) -> int:
        return len(self.remove) + len(self.add)

    def to_dict(self) -> dict:
        return {"remove": self.remove.tolist(), "add": self.add.tolist(),
                "changes": self.changes, "gain": self.gain}


def witness(inst: BipartiteInstance, alignment, *, backend: str = "highs", primary=None,
            optimum: float | None = None) -> Witness:
    """The optimal alignment nearest to ``alignment`` (fewest pairs removed plus added: among
    the optimal alignments, maximise ``+1`` per kept pair and ``-1`` per new pair) and the
    changes that lead there -- a heuristic's shortfall attributed to its pairs. ``primary``
    and ``optimum``: as in :func:`lexicographic`."""
    a = np.asarray(alignment, dtype=np.int64).reshape(-1, 2)
    before = check(inst, a)
    mine = np.zeros(inst.num_pairs, dtype=bool)
    if len(a):
        mine[inst.pair_index(a)] = True
    if primary is not None:
        before = float(np.asarray(primary, dtype=np.float64)[mine].sum())
    res = lexicographic(inst, np.where(mine, 1.0, -1.0), backend=backend, primary=primary,
                        optimum=optimum)
    if res.status is not Status.OPTIMAL:
        raise VerificationError(f"gap witness not proven ({res.status.value})")
    opt = res.alignment
    theirs = np.zeros(inst.num_pairs, dtype=bool)
    if len(opt):
        theirs[inst.pair_index(opt)] = True

    def pairs(mask):
        return _alignment_from_edges(inst, np.flatnonzero(mask))

    return Witness(pairs(mine & ~theirs), pairs(theirs & ~mine), opt,
                   float(res.details["primary"]) - before)
