"""Order-preserving (monotone) matching of two sequences or two DAGs.

Chen et al. (2023), "A Unified View of Evaluation Metrics for Structured Prediction", §5 (Eq. 37)
and App. A.2: two structures whose items carry an order -- a total order for sequences, a partial
order for DAGs -- are scored by the maximum-weight matching that *preserves* the order.

Definitions
-----------
Each side is a strict partial order ``<`` on its items ``0..n-1`` (:class:`Order`): for a
sequence ``i < j`` iff ``i`` comes first; for a DAG ``u < v`` iff ``v`` is reachable from ``u``
(the transitive closure of the edges given; a cycle is an input error). Items are *comparable*
when ``u < v`` or ``v < u``, otherwise *incomparable*.

Candidate pairs ``(a, b)`` of a reference item ``a`` and a predicted item ``b`` carry a weight
``w > 0`` (sparse, as in :mod:`~exactalign.problems.bipartite`). The *kind* caps how often an item
is matched, written reference:predicted: ``1:1`` (default), ``1:N`` (a reference item may take
several predicted items, each predicted item at most one), ``N:1`` (the converse).

Two matched pairs ``(a, b)`` and ``(a', b')`` *cross* when ``a < a'`` and ``b' < b`` (or the
same with the roles exchanged). A matching is *monotone* (the default, ``strict=False``) when no
two of its pairs cross and every item respects the capacity of the kind. Incomparable items
constrain nothing: if ``a`` and ``a'`` are incomparable, their partners may be in any relation,
and a comparable pair may be mapped onto an incomparable one. Under 1:N a reference item's
several partners may be in any order among themselves (they are matched to one item, which is
not ordered against itself).

The *strict* variant (``strict=True``) requires the matching to be an order embedding on the
matched items: for every two matched pairs ``[a < a'] == [b < b']`` (and hence also
``[a' < a] == [b' < b]``), so comparable items map to comparable items in the same direction and
incomparable to incomparable. It is the rule of the metametric library's ILP (Chen et al.'s
implementation), which forbids two pairs whenever the reachability of the reference items
differs from that of the predicted items. On sequences it forbids an item to be matched twice
(two partners of one item are comparable to each other but the item is not to itself), so
strict sequence matching is 1:1 matching for every kind.

The four faces
--------------
* exact: :func:`sequence_dp` (weighted LCS, with the alignment, for two total orders) and the
  ILP of :func:`ilp_model` in two formulations:

  Pairs are ordered by ``e ◁ e'`` iff ``a ⊑ a'`` and ``b' ⊑ b`` (``⊑`` is ``<=`` on a side
  whose items have capacity 1 and ``<`` on a side with unlimited capacity). Two pairs are
  comparable under ``◁`` exactly when they cross or share a capacity-1 item whose partners are
  comparable, so a monotone matching meets every ``◁``-chain at most once: the chain (clique)
  inequalities ``sum_{e in chain} x_e <= 1`` hold, and with the capacity rows they define the
  problem. There are exponentially many chains; both compact formulations project exactly onto
  all of them with one continuous "heaviest chain below" variable per node of a small DAG:

  - ``"compact"`` (default): ``U(e) >= x[e] + U(f)`` for every cover ``f ◁ e`` of the Hasse
    diagram of ``◁`` restricted to the candidates, with ``U(f) = x[f]`` for a minimal ``f``,
    ``U(e) = 1`` for a maximal ``e`` and a continuous ``u[e] in [0, 1]`` in between. One row per
    cover; a cover between a minimal and a maximal candidate is a pairwise row.
  - ``"grid"``: ``u[a, b]`` per cell of ``A x B`` that lies between two candidates, bounding the
    heaviest chain in ``{(a', b'): a' <= a, b' >= b}``, with rows along the Hasse edges of the
    two orders (``u[a,b] >= u[p,b] (+ x[a,b])`` for a Hasse predecessor ``p`` of ``a``,
    ``u[a,b] >= u[a,s] (+ x[a,b])`` for a Hasse successor ``s`` of ``b``; ``x`` is added when
    the neighbour's region lies strictly ``◁``-below ``(a, b)``).
  - ``"pairwise"``: one row ``x_e + x_f <= 1`` per crossing (or, strict, order-mismatched)
    pair of candidates, plus the capacity rows -- the formulation of the public implementation
    (metametric ``MonotonicityConstraintBuilder``, which in addition has a dense variable per
    ``A x B`` cell and both orientations of every row). Kept as a cross-check; its size grows
    with the square of the number of candidates.

  Both compact LPs have the same bound (the chain polytope), never above the pairwise LP bound;
  on two sequences (1:1) the conflict graph is a comparability graph, hence perfect, and the LP
  is integral. Measured on random DAG pairs (``experiments/monotone_gap.py``, n = 20..200): on
  sparse orders ``"compact"`` and ``"pairwise"`` are alike in size and time; on denser ones
  ``"compact"`` is 4-20x smaller, its LP bound is within 2-6% of the optimum against 13-32% for
  ``"pairwise"``, and it proves n = 200 optimal in about 11 s where the pairwise model has 174k
  rows. ``"grid"`` is the largest. Hence ``"compact"`` is the default.
  The strict variant adds pairwise rows for the order-mismatched pairs that do not cross.
* heuristics: :func:`greedy` (by weight with an order check), :func:`linext` (the DP over one
  linear extension of each DAG -- exact on chains), :func:`local_search` (from greedy);
* :func:`brute_force` for tiny inputs (enumerates conflict-free sets; independent of the ILP);
* :func:`check`, which re-verifies any alignment and recomputes its objective.

:func:`solve` runs any method by name and returns a verified :class:`~exactalign.Result`. An
alignment is a ``(k, 2)`` int64 array of ``(reference, predicted)`` pairs sorted ascending.
Connected components of the candidate graph are *not* solved separately: crossings couple them.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

from ..core.arrays import frozen as _frozen
from ..core.deadline import Deadline, TimeLimitReached
from ..core.errors import (
    InfeasibleAlignmentError,
    InputError,
    ModelTooLargeError,
    VerificationError,
)
from ..core.model import LinearModel
from ..core.result import Result, Status
from ..core.solve import SolveOptions, remaining, solve_model, verified_result
from . import bipartite
from .bipartite import BipartiteInstance

#: kind -> (capacity of a reference item, capacity of a predicted item); None = unlimited.
#: The kinds of bipartite matching except N:N, which is not supported here.
KINDS: dict[str, tuple[int | None, int | None]] = {
    k: caps for k, caps in bipartite.KINDS.items() if k != "N:N"}

FORMULATIONS = ("compact", "grid", "pairwise")

#: brute_force refuses instances with more candidate pairs than this.
BRUTE_MAX_PAIRS = 22

#: The pairwise formulation refuses instances with more conflicting pairs than this.
PAIRWISE_MAX_ROWS = 5_000_000

#: The compact formulation builds a dense candidates x candidates relation (a few bytes a cell,
#: three arrays at once); beyond this many cells (about 1 GB at its peak) it refuses the instance
#: with :class:`ModelTooLargeError` instead of exhausting memory.
COMPACT_MAX_CELLS = 1 << 28

#: Rows per block of the boolean products behind the compact formulation (deadline checks).
_COMPOSE_ROWS = 512

#: Local search visits the free candidates against the matched ones in blocks of this many cells.
_LOCAL_BLOCK = 1 << 22

#: Candidate pairs compared per block when listing conflicts (bounds memory).
_BLOCK = 4_000_000


# --------------------------------------------------------------------------------------------
# orders
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Order:
    """A strict partial order on ``n`` items, as the edges of its Hasse diagram (``hasse``,
    an ``(h, 2)`` array of ``(lower, upper)`` pairs, sorted). ``total`` marks the chain
    ``0 < 1 < ... < n-1`` of a sequence. Build with :meth:`sequence`, :meth:`from_edges` or
    :meth:`from_relation` (which validate; the constructor itself trusts ``hasse`` to be
    acyclic).

    >>> o = Order.from_edges(3, [(0, 1), (1, 2), (0, 2)])
    >>> o.hasse.tolist(), bool(o.less[0, 2]), o.linear_extension().tolist()
    ([[0, 1], [1, 2]], True, [0, 1, 2])
    """

    n: int
    hasse: np.ndarray
    total: bool = False

    @classmethod
    def sequence(cls, n: int) -> Order:
        """The total order of a sequence of ``n`` items."""
        if int(n) < 0:
            raise InputError(f"a sequence has n >= 0 items, not {n}")
        i = np.arange(max(int(n) - 1, 0), dtype=np.int64)
        return cls(int(n), _frozen(np.stack([i, i + 1], axis=1)), total=True)

    @classmethod
    def from_edges(cls, n: int, edges, *, path=None, what: str = "DAG") -> Order:
        """The order generated by ``edges`` (``(u, v)``: ``u`` before ``v``): its transitive
        closure. Raises :class:`InputError` for an item out of range or a cycle."""
        n = int(n)
        e = np.asarray(edges, dtype=np.int64).reshape(-1, 2) if len(edges) else \
            np.zeros((0, 2), dtype=np.int64)
        bad = (e < 0) | (e >= n)
        if bad.any():
            k = int(np.flatnonzero(bad.any(axis=1))[0])
            raise InputError(f"{what}: edge {k} ({e[k, 0]}, {e[k, 1]}) names an item outside "
                             f"0..{n - 1}", path=path)
        loop = e[:, 0] == e[:, 1]
        if loop.any():
            k = int(np.flatnonzero(loop)[0])
            raise InputError(f"{what}: edge {k} ({e[k, 0]}, {e[k, 1]}) is a self-loop; an order "
                             "must be acyclic", path=path)
        reach = _closure(n, e)
        cyc = reach & reach.T
        if cyc.any():
            u, v = (int(x) for x in np.argwhere(cyc)[0])
            raise InputError(f"{what}: items {u} and {v} lie on a cycle; an order must be "
                             "acyclic", path=path)
        return cls._from_closure(reach)

    @classmethod
    def from_relation(cls, less, *, path=None, what: str = "order") -> Order:
        """An explicit strict order: ``less[u, v]`` true iff ``u < v``. It must be irreflexive,
        antisymmetric and transitive (else :class:`InputError`)."""
        r = np.asarray(less, dtype=bool)
        if r.ndim != 2 or r.shape[0] != r.shape[1]:
            raise InputError(f"{what}: an order relation is a square matrix, got shape {r.shape}",
                             path=path)
        if np.diag(r).any():
            u = int(np.flatnonzero(np.diag(r))[0])
            raise InputError(f"{what}: item {u} precedes itself", path=path)
        if (r & r.T).any():
            u, v = (int(x) for x in np.argwhere(r & r.T)[0])
            raise InputError(f"{what}: items {u} and {v} precede each other", path=path)
        two = _compose(r, r)
        if (two & ~r).any():
            u, v = (int(x) for x in np.argwhere(two & ~r)[0])
            raise InputError(f"{what}: not transitive: {u} precedes {v} through another item "
                             "but not directly", path=path)
        return cls._from_closure(r)

    @classmethod
    def _from_closure(cls, reach: np.ndarray) -> Order:
        n = reach.shape[0]
        cover = reach & ~_compose(reach, reach)
        order = cls(n, _frozen(np.argwhere(cover).astype(np.int64).reshape(-1, 2)))
        object.__setattr__(order, "less", _frozen(reach.copy()))
        return order

    def __post_init__(self):
        h = np.asarray(self.hasse, dtype=np.int64).reshape(-1, 2)
        object.__setattr__(self, "hasse", _frozen(h))

    @cached_property
    def less(self) -> np.ndarray:
        """Dense ``(n, n)`` boolean matrix: ``less[u, v]`` iff ``u < v``."""
        if self.total:
            return _frozen(np.triu(np.ones((self.n, self.n), dtype=bool), 1))
        return _frozen(_closure(self.n, self.hasse))

    def lt(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Elementwise ``u < v``."""
        if self.total:
            return u < v
        return self.less[u, v]

    def leq(self) -> np.ndarray:
        """Dense reflexive closure ``u <= v`` as float64 (for matrix products)."""
        le = self.less.astype(np.float64)
        np.fill_diagonal(le, 1.0)
        return le

    def linear_extension(self, priority=None) -> np.ndarray:
        """One linear extension (topological order) of the order: Kahn's algorithm, taking the
        ready item of smallest ``(priority, index)`` first (default priority: none, so the
        smallest index; for a sequence, the sequence itself)."""
        if self.total:
            return np.arange(self.n, dtype=np.int64)
        prio = [0] * self.n if priority is None else list(priority)
        indeg = np.bincount(self.hasse[:, 1], minlength=self.n).tolist()
        succ = [[] for _ in range(self.n)]
        for u, v in self.hasse.tolist():
            succ[u].append(v)
        ready = [(prio[u], u) for u in range(self.n) if indeg[u] == 0]
        heapq.heapify(ready)
        out = []
        while ready:
            _, u = heapq.heappop(ready)
            out.append(u)
            for v in succ[u]:
                indeg[v] -= 1
                if indeg[v] == 0:
                    heapq.heappush(ready, (prio[v], v))
        return np.asarray(out, dtype=np.int64)

    def __repr__(self) -> str:
        kind = "sequence" if self.total else "order"
        return f"Order({kind}, n={self.n}, hasse={len(self.hasse)})"


def _closure(n: int, edges: np.ndarray) -> np.ndarray:
    """Transitive closure of ``edges`` on ``n`` items (``scipy.sparse.csgraph``), diagonal off."""
    if n == 0:
        return np.zeros((0, 0), dtype=bool)
    g = sp.csr_array((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(n, n))
    reach = np.isfinite(shortest_path(g, directed=True, unweighted=True))
    np.fill_diagonal(reach, False)
    return reach


def _compose(r: np.ndarray, s: np.ndarray, deadline: Deadline | None = None) -> np.ndarray:
    """Boolean product ``r ∘ s`` (through a float matrix product, in blocks of rows so that a
    ``deadline`` is checked between them)."""
    if r.size == 0:
        return np.zeros(r.shape, dtype=bool)
    s32 = s.astype(np.float32)
    if deadline is None or r.shape[0] <= _COMPOSE_ROWS:
        return (r.astype(np.float32) @ s32) > 0
    out = np.empty((r.shape[0], s.shape[1]), dtype=bool)
    for k in range(0, r.shape[0], _COMPOSE_ROWS):
        deadline.check("building the compact ILP")
        out[k:k + _COMPOSE_ROWS] = (r[k:k + _COMPOSE_ROWS].astype(np.float32) @ s32) > 0
    return out


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


def _alignment(inst: MonotoneInstance, edges) -> np.ndarray:
    edges = np.sort(np.asarray(edges, dtype=np.int64))
    return _frozen(np.stack([inst.pairs.rows[edges], inst.pairs.cols[edges]], axis=1))


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


# --------------------------------------------------------------------------------------------
# exact: ILP formulations
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class _Built:
    """A model with auxiliary chain columns after the ``E`` pair columns, and the map from a
    monotone set of pairs (edge indices) to a feasible value of those columns (warm start)."""

    model: LinearModel
    aux_of: Callable[[np.ndarray], np.ndarray]


def _capacity_block(inst: MonotoneInstance) -> sp.csr_array:
    """The capacity rows of the kind (those of :func:`bipartite.ilp_model`)."""
    return bipartite.ilp_model(inst.pairs).A.to_scipy()


def _pair_block(pairs: np.ndarray, ncols: int) -> sp.csr_array:
    """One row ``x_e + x_f <= 1`` per pair ``(e, f)``."""
    k = len(pairs)
    r = np.repeat(np.arange(k), 2)
    return sp.csr_array((np.ones(2 * k), (r, pairs.reshape(-1))), shape=(k, ncols))


def _extra_pairs(inst: MonotoneInstance, *, crossing: bool,
                 max_pairs: int | None = None) -> np.ndarray:
    """Conflicting pairs that the capacity rows do not already forbid; with ``crossing=False``
    also drop crossings (the compact chain rows forbid those)."""
    pairs = conflict_pairs(inst, capacity=False, max_pairs=max_pairs)
    if not len(pairs):
        return pairs
    p = inst.pairs
    e, f = pairs[:, 0], pairs[:, 1]
    ref_cap, pred_cap = p.caps
    covered = np.zeros(len(pairs), dtype=bool)
    if ref_cap == 1:
        covered |= p.rows[e] == p.rows[f]
    if pred_cap == 1:
        covered |= p.cols[e] == p.cols[f]
    if not crossing:
        strict_off = replace(inst, strict=False)
        covered |= conflicts(strict_off, e, f, capacity=False)
    return pairs[~covered]


def _model(inst: MonotoneInstance, blocks, nvars: int, integral: np.ndarray, name: str,
           lo: np.ndarray, hi: np.ndarray, c: np.ndarray) -> LinearModel:
    A = sp.vstack([sp.csr_array(b) for b in blocks], format="csr") if blocks else \
        sp.csr_array((0, nvars))
    return LinearModel(c=c, A=A, row_lo=lo, row_hi=hi, col_lo=np.zeros(nvars),
                       col_hi=np.ones(nvars), integrality=integral, name=name)


def pairwise_model(inst: MonotoneInstance, *, max_rows: int | None = PAIRWISE_MAX_ROWS):
    """The pairwise formulation: capacity rows, plus ``x_e + x_f <= 1`` for every crossing
    (strict: order-mismatched) pair of candidates. Raises :class:`ModelTooLargeError` beyond
    ``max_rows`` pair rows."""
    E = inst.num_pairs
    cap = _capacity_block(inst)
    pair = _pair_block(_extra_pairs(inst, crossing=True, max_pairs=max_rows), E)
    m = cap.shape[0] + pair.shape[0]
    return _model(inst, [cap, pair], E, np.ones(E, dtype=bool),
                  f"monotone pairwise {inst.kind} {inst.n_ref}x{inst.n_pred}",
                  np.full(m, -np.inf), np.ones(m), inst.pairs.weights)


def _kept_cells(inst: MonotoneInstance) -> np.ndarray:
    """Cells ``(a, b)`` with a candidate ``(a', b')``, ``a' <= a, b' >= b`` (below) and a
    candidate ``(a'', b'')``, ``a <= a'', b'' <= b`` (above): the only cells a chain between two
    candidates passes."""
    p = inst.pairs
    C = np.zeros((inst.n_ref, inst.n_pred))
    C[p.rows, p.cols] = 1.0
    LA, LB = inst.ref.leq(), inst.pred.leq()
    below = (LA.T @ C @ LB.T) > 0
    above = (LA @ C @ LB) > 0
    return below & above


def _grid(inst: MonotoneInstance) -> _Built:
    p = inst.pairs
    E, nA, nB = inst.num_pairs, inst.n_ref, inst.n_pred
    ref_cap, pred_cap = p.caps
    keep = _kept_cells(inst)
    cell_a, cell_b = np.nonzero(keep)
    K = len(cell_a)
    uid = np.full((nA, nB), -1, dtype=np.int64)
    uid[cell_a, cell_b] = E + np.arange(K)
    xid = np.full((nA, nB), -1, dtype=np.int64)
    xid[p.rows, p.cols] = np.arange(E)

    rows_r, rows_c, rows_v = [], [], []
    nrow = 0
    x_steps = np.zeros(E, dtype=np.int64)
    # (cell, neighbour) along Hasse edges: A-direction neighbour (p, b) of (a, b) for p -> a;
    # B-direction neighbour (a, s) of (a, b) for b -> s. The step adds x[a, b] when the
    # neighbour's region lies strictly ◁-below (a, b) (module docstring).
    for hasse, along_a, adds_x in ((inst.ref.hasse, True, pred_cap == 1),
                                   (inst.pred.hasse, False, ref_cap == 1)):
        if not len(hasse):
            continue
        other = np.arange(nB if along_a else nA)
        lo, hi = np.repeat(hasse[:, 0], len(other)), np.repeat(hasse[:, 1], len(other))
        o = np.tile(other, len(hasse))
        if along_a:
            cu, nu, cx = uid[hi, o], uid[lo, o], xid[hi, o]
        else:
            cu, nu, cx = uid[o, lo], uid[o, hi], xid[o, lo]
        sel = (cu >= 0) & (nu >= 0)
        cu, nu, cx = cu[sel], nu[sel], cx[sel]
        r = nrow + np.arange(len(cu))
        nrow += len(cu)
        rows_r += [r, r]
        rows_c += [cu, nu]
        rows_v += [np.ones(len(cu)), -np.ones(len(cu))]
        if adds_x:
            hx = cx >= 0
            rows_r.append(r[hx])
            rows_c.append(cx[hx])
            rows_v.append(-np.ones(int(hx.sum())))
            np.add.at(x_steps, cx[hx], 1)
    # u[a, b] >= x[a, b] where no step row carries x[a, b].
    lone = np.flatnonzero(x_steps == 0)
    r = nrow + np.arange(len(lone))
    nrow += len(lone)
    rows_r += [r, r]
    rows_c += [uid[p.rows[lone], p.cols[lone]], lone]
    rows_v += [np.ones(len(lone)), -np.ones(len(lone))]
    chain = sp.csr_array((np.concatenate(rows_v), (np.concatenate(rows_r),
                                                   np.concatenate(rows_c))),
                         shape=(nrow, E + K))
    cap = _capacity_block(inst)
    cap = sp.hstack([cap, sp.csr_array((cap.shape[0], K))], format="csr")
    blocks = [cap, chain]
    lo = [np.full(cap.shape[0], -np.inf), np.zeros(nrow)]
    hi = [np.ones(cap.shape[0]), np.full(nrow, np.inf)]
    if inst.strict:
        extra = _pair_block(_extra_pairs(inst, crossing=False), E + K)
        blocks.append(extra)
        lo.append(np.full(extra.shape[0], -np.inf))
        hi.append(np.ones(extra.shape[0]))
    integral = np.concatenate([np.ones(E, dtype=bool), np.zeros(K, dtype=bool)])
    c = np.concatenate([p.weights, np.zeros(K)])
    model = _model(inst, blocks, E + K, integral,
                   f"monotone grid {inst.kind} {inst.n_ref}x{inst.n_pred}",
                   np.concatenate(lo), np.concatenate(hi), c)

    def aux_of(edges):
        S = np.zeros((nA, nB))
        S[p.rows[edges], p.cols[edges]] = 1.0
        reg = (inst.ref.leq().T @ S @ inst.pred.leq().T) > 0
        return reg[cell_a, cell_b].astype(np.float64)

    return _Built(model, aux_of)


def _pair_order(inst: MonotoneInstance, deadline: Deadline | None = None) -> np.ndarray:
    """Dense ``(E, E)`` relation ``◁`` on the candidates: ``e ◁ f`` iff ``a_e ⊑ a_f`` and
    ``b_f ⊑ b_e`` (``⊑`` is ``<=`` on a capacity-1 side, ``<`` otherwise), ``e != f``; built in
    blocks of :data:`_COMPOSE_ROWS` rows, ``deadline`` checked between them."""
    p = inst.pairs
    E = inst.num_pairs
    if E * E > COMPACT_MAX_CELLS:
        raise ModelTooLargeError(
            f"the compact ILP needs a {E:,} x {E:,} relation over the candidate pairs (about "
            f"{3 * E * E / 2**30:,.0f} GiB); it refuses more than {COMPACT_MAX_CELLS:,} cells"
            + (" -- two sequences are solved exactly by the DP (method 'exact' or 'dp')"
               if inst.is_sequence else ""))
    ref_cap, pred_cap = p.caps
    less_b_t = inst.pred.less.T
    r = np.empty((E, E), dtype=bool)
    for lo in range(0, E, _COMPOSE_ROWS):
        if deadline is not None:
            deadline.check("building the compact ILP")
        e = np.arange(lo, min(lo + _COMPOSE_ROWS, E))
        la = inst.ref.less[np.ix_(p.rows[e], p.rows)]  # a_e < a_f
        lb = less_b_t[np.ix_(p.cols[e], p.cols)]  # b_f < b_e
        if ref_cap == 1:
            la |= p.rows[e, None] == p.rows[None, :]
        if pred_cap == 1:
            lb |= p.cols[e, None] == p.cols[None, :]
        block = la & lb
        block[np.arange(len(e)), e] = False  # e != f
        r[e] = block
    return r


def _chain(inst: MonotoneInstance, deadline: Deadline | None = None) -> _Built:
    """The compact chain formulation over the candidates. With ``U(e)`` the heaviest chain whose
    top is ``e``: ``U(e) >= x[e] + U(f)`` for every cover ``f ◁ e`` of the Hasse diagram of
    ``◁`` on the candidates, where ``U(f) = x[f]`` for a minimal ``f``, ``U(e) = 1`` (the bound
    itself) for a maximal ``e``, and a continuous ``u[e] in [0, 1]`` for the candidates in
    between -- so a cover between a minimal and a maximal candidate is the pairwise row
    ``x[e] + x[f] <= 1``, and candidates comparable to none need no row at all. Plus the capacity
    rows (and, strict, the pairwise rows of mismatched pairs that do not cross)."""
    p = inst.pairs
    E = inst.num_pairs
    R = _pair_order(inst, deadline)
    cover = R & ~_compose(R, R, deadline)
    lo_, hi_ = np.nonzero(cover)  # lo_ ◁ hi_, a cover
    k = len(lo_)
    has_lower, has_upper = cover.any(axis=0), cover.any(axis=1)
    mid = np.flatnonzero(has_lower & has_upper)
    col = np.arange(E)  # column of U(e): x[e] for minimal e, u[e] for those in between
    col[mid] = E + np.arange(len(mid))
    top = ~has_upper[hi_]  # maximal: U(hi) = 1, the row is x[hi] + U(lo) <= 1
    # u[hi] - x[hi] - U(lo) >= 0 for a non-maximal hi; x[hi] + U(lo) <= 1 for a maximal one.
    sign = np.where(top, 1.0, -1.0)
    r = np.concatenate([np.arange(k), np.arange(k), np.flatnonzero(~top)])
    c = np.concatenate([hi_, col[lo_], col[hi_[~top]]])
    v = np.concatenate([sign, sign, np.ones(int((~top).sum()))])
    K = E + len(mid)
    chain = sp.csr_array((v, (r, c)), shape=(k, K))
    cap = _capacity_block(inst)
    cap = sp.hstack([cap, sp.csr_array((cap.shape[0], len(mid)))], format="csr")
    blocks = [cap, chain]
    lo = [np.full(cap.shape[0], -np.inf), np.where(top, -np.inf, 0.0)]
    hi = [np.ones(cap.shape[0]), np.where(top, 1.0, np.inf)]
    if inst.strict:
        extra = _pair_block(_extra_pairs(inst, crossing=False), K)
        blocks.append(extra)
        lo.append(np.full(extra.shape[0], -np.inf))
        hi.append(np.ones(extra.shape[0]))
    integral = np.concatenate([np.ones(E, dtype=bool), np.zeros(len(mid), dtype=bool)])
    model = _model(inst, blocks, K, integral,
                   f"monotone compact {inst.kind} {inst.n_ref}x{inst.n_pred}",
                   np.concatenate(lo), np.concatenate(hi),
                   np.concatenate([p.weights, np.zeros(len(mid))]))

    def aux_of(edges):
        u = R[edges].any(axis=0)
        u[edges] = True
        return u[mid].astype(np.float64)

    return _Built(model, aux_of)


_BUILDERS = {"compact": _chain, "grid": _grid}


def ilp_model(inst: MonotoneInstance, formulation: str = "compact") -> LinearModel:
    """The ILP of ``formulation`` (``"compact"``, ``"grid"`` or ``"pairwise"``, module
    docstring). The first ``num_pairs`` columns are the candidate pairs, in canonical order."""
    if formulation in _BUILDERS:
        return _BUILDERS[formulation](inst).model
    if formulation == "pairwise":
        return pairwise_model(inst)
    raise ValueError(f"unknown formulation {formulation!r}; choose one of "
                     + ", ".join(FORMULATIONS))


def lp_bound(inst: MonotoneInstance, formulation: str = "compact",
             backend: str = "highs") -> float:
    """Optimal value of the LP relaxation of ``formulation``: an upper bound on every monotone
    matching."""
    if inst.num_pairs == 0:
        return 0.0
    out = solve_model(ilp_model(inst, formulation).relax(), backend)
    if out.status is not Status.OPTIMAL:
        raise RuntimeError(f"LP relaxation not solved: {out.raw_status}")
    return float(out.objective)


# --------------------------------------------------------------------------------------------
# heuristics
# --------------------------------------------------------------------------------------------
def _score_order(inst: MonotoneInstance) -> np.ndarray:
    """Pairs by ``(-weight, predicted, reference)``: the heap order of the TAC KBP scorer that
    :func:`bipartite.greedy` reproduces."""
    p = inst.pairs
    return np.lexsort((p.rows, p.cols, -p.weights))


def _filter(inst: MonotoneInstance, order) -> list[int]:
    """Keep each pair of ``order`` in turn unless it conflicts with one kept before
    (:func:`conflicts`; on two sequences by :func:`_filter_sequences`, the same pairs)."""
    return (_filter_sequences if inst.is_sequence else _filter_pairwise)(inst, order)


def _filter_pairwise(inst: MonotoneInstance, order) -> list[int]:
    """:func:`_filter` by :func:`conflicts` against every kept pair (any two orders)."""
    kept: list[int] = []
    for e in np.asarray(order, dtype=np.int64).tolist():
        if kept and conflicts(inst, np.full(len(kept), e), np.asarray(kept)).any():
            continue
        kept.append(e)
    return kept


def _filter_sequences(inst: MonotoneInstance, order) -> list[int]:
    """:func:`_filter` on two total orders in ``O(log k)`` per pair instead of ``O(k)``: the
    kept pairs never cross, so sorted by (reference position, predicted position) their
    predicted positions never decrease, and a pair ``(i, j)`` crosses a kept one exactly when
    the last kept pair before row ``i`` lies after ``j`` or the first kept pair after row ``i``
    lies before it (under ``strict``, also on ``j`` itself, and any kept pair sharing ``i`` or
    ``j`` differs in its order relations); a shared item of capacity 1 conflicts as in
    :func:`conflicts`."""
    from bisect import bisect_left, insort

    la, lb = inst.ref.linear_extension(), inst.pred.linear_extension()
    pa, pb = np.empty_like(la), np.empty_like(lb)
    pa[la], pb[lb] = np.arange(len(la)), np.arange(len(lb))
    rows = pa[inst.pairs.rows].tolist()
    cols = pb[inst.pairs.cols].tolist()
    ref_cap, pred_cap = inst.pairs.caps
    strict = inst.strict
    one_row, one_col = strict or ref_cap == 1, strict or pred_cap == 1
    used_rows: set[int] = set()
    used_cols: set[int] = set()
    chain: list[tuple[int, int]] = []  # kept (i, j), sorted
    kept: list[int] = []
    for e in np.asarray(order, dtype=np.int64).tolist():
        i, j = rows[e], cols[e]
        if (one_row and i in used_rows) or (one_col and j in used_cols):
            continue
        lo = bisect_left(chain, (i, -1))  # first kept pair with row >= i
        hi = bisect_left(chain, (i + 1, -1))  # first kept pair with row > i
        if lo and (chain[lo - 1][1] >= j if strict else chain[lo - 1][1] > j):
            continue
        if hi < len(chain) and (chain[hi][1] <= j if strict else chain[hi][1] < j):
            continue
        insort(chain, (i, j))
        used_rows.add(i)
        used_cols.add(j)
        kept.append(e)
    return kept


def greedy(inst: MonotoneInstance) -> np.ndarray:
    """Greedy by weight with an order check: pairs in :func:`_score_order`, each kept when it
    neither exceeds a capacity nor crosses (strict: mismatches) a pair kept before."""
    return _alignment(inst, _filter(inst, _score_order(inst)))


def linext(inst: MonotoneInstance) -> np.ndarray:
    """The sequence DP over one linear extension of each order (:meth:`Order.linear_extension`,
    smallest ready item first). Exact on two sequences; on DAGs a heuristic whose result is
    monotone (``a < a'`` puts ``a`` first in the extension, and the DP never crosses). Under
    ``strict`` the DP's pairs are then filtered in :func:`_score_order` (an embedding of the
    extensions may still map comparable items onto incomparable ones)."""
    la, lb = inst.ref.linear_extension(), inst.pred.linear_extension()
    pa, pb = np.empty_like(la), np.empty_like(lb)
    pa[la], pb[lb] = np.arange(len(la)), np.arange(len(lb))
    p = inst.pairs
    seq = MonotoneInstance(Order.sequence(inst.n_ref), Order.sequence(inst.n_pred),
                           BipartiteInstance(inst.n_ref, inst.n_pred, pa[p.rows], pb[p.cols],
                                             p.weights, p.kind), inst.strict)
    _, al = sequence_dp(seq)
    edges = p.pair_index(np.stack([la[al[:, 0]], lb[al[:, 1]]], axis=1))
    if inst.strict and not inst.is_sequence:
        rank = np.empty(inst.num_pairs, dtype=np.int64)
        rank[_score_order(inst)] = np.arange(inst.num_pairs)
        edges = _filter(inst, edges[np.argsort(rank[edges])])
    return _alignment(inst, edges)


def local_search(inst: MonotoneInstance, seed=0, *, start=None, max_passes: int = 100,
                 time_limit: float | None = None):
    """Local search from :func:`greedy` (or ``start``) with two moves, in the style of the
    (1, 2)-swap local search for independent sets (Andrade, Resende & Werneck 2012):

    * *insert*: an unmatched pair whose weight exceeds the total weight of the matched pairs it
      conflicts with enters and evicts them;
    * *swap*: a matched pair leaves, and the unmatched pairs that conflict with no other matched
      pair enter greedily (:func:`_score_order`) when their total weight exceeds the one that
      left (with unit weights: one out, two in).

    Candidates and matched pairs are visited in a random order (``numpy.random.default_rng
    (seed)``, a new permutation for each pass); an improving move is applied at once. Stops
    after a pass without improvement (or ``max_passes``), or -- with the alignment reached so
    far, which is feasible -- once ``time_limit`` seconds have passed (checked between moves)."""
    deadline = Deadline(time_limit)  # also ends with the command's budget (core.deadline)
    rng = np.random.default_rng(seed)
    w = inst.pairs.weights
    rank = np.empty(inst.num_pairs, dtype=np.int64)
    rank[_score_order(inst)] = np.arange(inst.num_pairs)
    sel = np.zeros(inst.num_pairs, dtype=bool)
    sel[inst.pairs.pair_index(greedy(inst) if start is None else start)] = True
    for _ in range(max_passes):
        improved = False
        for e in rng.permutation(inst.num_pairs).tolist():
            if deadline.expired():
                return _alignment(inst, np.flatnonzero(sel))
            if sel[e]:
                continue
            S = np.flatnonzero(sel)
            out = S[conflicts(inst, np.full(len(S), e), S)]
            if w[e] - w[out].sum() > 1e-12 * max(1.0, w[e]):
                sel[out] = False
                sel[e] = True
                improved = True
        for s in rng.permutation(np.flatnonzero(sel)).tolist():
            if deadline.expired():
                return _alignment(inst, np.flatnonzero(sel))
            rest = np.flatnonzero(sel)
            rest = rest[rest != s]
            free = np.flatnonzero(~sel)
            if not len(free):
                break
            blocked = np.zeros(len(free), dtype=bool)
            step = max(1, _LOCAL_BLOCK // max(1, len(rest)))
            for k in range(0, len(free), step):
                ee, ff = np.meshgrid(free[k:k + step], rest, indexing="ij")
                blocked[k:k + step] = conflicts(inst, ee.ravel(),
                                                ff.ravel()).reshape(ee.shape).any(axis=1)
            cand = free[~blocked]
            enter = _filter(inst, cand[np.argsort(rank[cand])])
            if w[enter].sum() - w[s] > 1e-12 * max(1.0, w[s]):
                sel[s] = False
                sel[enter] = True
                improved = True
        if not improved:
            break
    return _alignment(inst, np.flatnonzero(sel))


#: The heuristics, by the names :func:`solve` and the command line accept.
HEURISTICS = {
    "greedy": greedy,
    "linext": linext,
    "local": local_search,
}


# --------------------------------------------------------------------------------------------
# brute force
# --------------------------------------------------------------------------------------------
def brute_force(inst: MonotoneInstance) -> tuple[float, np.ndarray]:
    """Enumerate every conflict-free set of candidate pairs (refuses more than
    :data:`BRUTE_MAX_PAIRS`), cutting branches whose remaining weight cannot beat the best found.
    Independent of the DP and the ILP: the oracle of the tests."""
    E = inst.num_pairs
    if E > BRUTE_MAX_PAIRS:
        raise ModelTooLargeError(f"brute_force enumerates at most {BRUTE_MAX_PAIRS} candidate "
                                 f"pairs; this instance has {E}")
    adj = [0] * E
    for e, f in conflict_pairs(inst).tolist():
        adj[e] |= 1 << f
        adj[f] |= 1 << e
    w = inst.pairs.weights.tolist()
    suffix = np.concatenate([np.cumsum(inst.pairs.weights[::-1])[::-1], [0.0]]).tolist()
    best_val, best_mask = 0.0, 0

    def rec(e: int, mask: int, val: float):
        nonlocal best_val, best_mask
        if val > best_val + 1e-12:
            best_val, best_mask = val, mask
        if e == E or val + suffix[e] <= best_val + 1e-12:
            return
        if not adj[e] & mask:
            rec(e + 1, mask | (1 << e), val + w[e])
        rec(e + 1, mask, val)

    rec(0, 0, 0.0)
    return best_val, _alignment(inst, [e for e in range(E) if best_mask >> e & 1])


# --------------------------------------------------------------------------------------------
# solve
# --------------------------------------------------------------------------------------------
EXACT_METHODS = ("exact", "dp", "ilp", "brute")
METHODS = EXACT_METHODS + tuple(HEURISTICS)


def solve(inst: MonotoneInstance, method: str = "exact", *, formulation: str = "compact",
          backend: str = "highs", time_limit: float | None = None, mip_rel_gap: float = 0.0,
          threads: int = 1, seed: int = 0, warm_start: bool = True) -> Result:
    """Solve ``inst`` with ``method`` and return a verified :class:`Result`.

    ``exact``   :func:`sequence_dp` on two sequences, else the ILP (``formulation``);
    ``dp``      :func:`sequence_dp` (sequences only; proven by the algorithm);
    ``ilp``     :func:`ilp_model` of ``formulation`` through ``backend``, warm-started from
                :func:`greedy`; on a time limit the incumbent and the solver's bound;
    ``brute``   :func:`brute_force` (tiny instances);
    heuristic   ``greedy``, ``linext``, ``local`` (``seed`` seeds ``local``); FEASIBLE, no bound.

    Every alignment is re-verified by :func:`check`, which recomputes the objective."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} for monotone matching; choose one of "
                         + ", ".join(METHODS))
    if formulation not in FORMULATIONS:
        raise ValueError(f"unknown formulation {formulation!r}; choose one of "
                         + ", ".join(FORMULATIONS))
    t0 = time.perf_counter()
    if method in HEURISTICS:
        al = (local_search(inst, seed, time_limit=time_limit) if method == "local"
              else HEURISTICS[method](inst))
        obj = check(inst, al)
        return Result(Status.FEASIBLE, obj, None, al, method, time.perf_counter() - t0,
                      seed=seed if method == "local" else None)
    if method == "brute":
        _, al = brute_force(inst)
        obj = check(inst, al)
        return Result(Status.OPTIMAL, obj, obj, al, method, time.perf_counter() - t0)
    if method == "dp" or (method == "exact" and inst.is_sequence):
        value, al = sequence_dp(inst)
        obj = check(inst, al)
        if abs(value - obj) > 1e-9 * max(1.0, abs(obj)):
            raise VerificationError(f"the DP's value {value!r} differs from its alignment's "
                                    f"recomputed weight {obj!r}")
        return Result(Status.OPTIMAL, obj, obj, al, method, time.perf_counter() - t0,
                      details={"algorithm": "dynamic programming", "proof": "algorithm"})
    options = SolveOptions(time_limit=time_limit, mip_rel_gap=mip_rel_gap, threads=threads,
                           seed=seed)
    return _solve_ilp(inst, method, formulation, backend, options, warm_start, t0)


def _solve_ilp(inst, method, formulation, backend, options, warm_start, t0) -> Result:
    E = inst.num_pairs
    details = {"formulation": formulation}
    if E == 0:
        return Result(Status.OPTIMAL, 0.0, 0.0, _alignment(inst, []), method,
                      time.perf_counter() - t0, backend=backend, details=details)
    deadline = Deadline(options.time_limit, t0)
    try:
        built = (_chain(inst, deadline) if formulation == "compact" else
                 _BUILDERS[formulation](inst) if formulation in _BUILDERS else None)
    except TimeLimitReached as exc:  # the budget ran out while building: greedy's alignment
        al = greedy(inst) if warm_start else _alignment(inst, [])
        return Result(Status.TIME_LIMIT, check(inst, al), bipartite.trivial_bound(inst.pairs), al,
                      method, time.perf_counter() - t0, backend=backend, seed=options.seed,
                      details={**details, "stopped": str(exc)})
    model = built.model if built is not None else pairwise_model(inst)
    details.update(rows=model.num_rows, cols=model.num_vars, nonzeros=int(model.A.nnz),
                   build_s=time.perf_counter() - t0)
    start = None
    if warm_start:
        start = inst.pairs.pair_index(greedy(inst))
        x0 = np.zeros(E)
        x0[start] = 1.0
        if built is not None:
            x0 = np.concatenate([x0, built.aux_of(start)])
        options = replace(options, warm_start=x0)
    # The time limit covers the whole computation: building the model and the warm start too.
    left = remaining(options.time_limit, time.perf_counter() - t0)
    if left == 0.0 and start is not None:
        al = _alignment(inst, start)
        return Result(Status.TIME_LIMIT, check(inst, al), bipartite.trivial_bound(inst.pairs), al,
                      method, time.perf_counter() - t0, backend=backend, seed=options.seed,
                      details={**details, "stopped": "time limit before the solve"})
    options = replace(options, time_limit=left)
    out = solve_model(model, backend, options)
    res = verified_result(out, model,
                          decode=lambda x: _alignment(inst, np.flatnonzero(x[:E] > 0.5)),
                          check=lambda al: check(inst, al), method=method, seed=options.seed,
                          details=details)
    if res.status in (Status.TIME_LIMIT, Status.FEASIBLE):
        # Stopped early: keep the warm start if the solver has no incumbent, and fall back on
        # the bipartite bound (every monotone matching is a matching) if it has no bound.
        if res.alignment is None and start is not None:
            al = _alignment(inst, start)
            res = res.replace(objective=check(inst, al), alignment=al)
        if res.bound is None:
            res = res.replace(bound=bipartite.trivial_bound(inst.pairs))
    return res.replace(wall_time=time.perf_counter() - t0)
