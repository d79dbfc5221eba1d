"""The heuristics of monotone matching (:func:`greedy`, :func:`linext`, :func:`local_search`;
:data:`HEURISTICS` by name) and :func:`brute_force`, the oracle for tiny inputs."""

from __future__ import annotations

import numpy as np

from ...core.deadline import Deadline
from ...core.errors import ModelTooLargeError
from ..bipartite import BipartiteInstance
from .dp import sequence_dp
from .instance import MonotoneInstance, alignment_from_edges, conflict_pairs, conflicts
from .orders import Order

#: brute_force refuses instances with more candidate pairs than this.
BRUTE_MAX_PAIRS = 22


#: Local search visits the free candidates against the matched ones in blocks of this many cells.
_LOCAL_BLOCK = 1 << 22


# --------------------------------------------------------------------------------------------
# heuristics
# --------------------------------------------------------------------------------------------
def score_order(inst: MonotoneInstance) -> np.ndarray:
    """Pairs by ``(-weight, predicted, reference)``: the heap order of the TAC KBP scorer that
    :func:`bipartite.greedy` reproduces."""
    p = inst.pairs
    return np.lexsort((p.rows, p.cols, -p.weights))


def _filter(inst: MonotoneInstance, order) -> list[int]:
    """Keep each pair of ``order`` in turn unless it conflicts with one kept before
    (:func:`conflicts`; on two sequences by :func:`filter_sequences`, the same pairs)."""
    return (filter_sequences if inst.is_sequence else filter_pairwise)(inst, order)


def filter_pairwise(inst: MonotoneInstance, order) -> list[int]:
    """:func:`_filter` by :func:`conflicts` against every kept pair (any two orders)."""
    kept: list[int] = []
    for e in np.asarray(order, dtype=np.int64).tolist():
        if kept and conflicts(inst, np.full(len(kept), e), np.asarray(kept)).any():
            continue
        kept.append(e)
    return kept


def filter_sequences(inst: MonotoneInstance, order) -> list[int]:
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
    """Greedy by weight with an order check: pairs in :func:`score_order`, each kept when it
    neither exceeds a capacity nor crosses (strict: mismatches) a pair kept before."""
    return alignment_from_edges(inst, _filter(inst, score_order(inst)))


def linext(inst: MonotoneInstance) -> np.ndarray:
    """The sequence DP over one linear extension of each order (:meth:`Order.linear_extension`,
    smallest ready item first). Exact on two sequences; on DAGs a heuristic whose result is
    monotone (``a < a'`` puts ``a`` first in the extension, and the DP never crosses). Under
    ``strict`` the DP's pairs are then filtered in :func:`score_order` (an embedding of the
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
        rank[score_order(inst)] = np.arange(inst.num_pairs)
        edges = _filter(inst, edges[np.argsort(rank[edges])])
    return alignment_from_edges(inst, edges)


def local_search(inst: MonotoneInstance, seed=0, *, start=None, max_passes: int = 100,
                 time_limit: float | None = None):
    """Local search from :func:`greedy` (or ``start``) with two moves, in the style of the
    (1, 2)-swap local search for independent sets (Andrade, Resende & Werneck 2012):

    * *insert*: an unmatched pair whose weight exceeds the total weight of the matched pairs it
      conflicts with enters and evicts them;
    * *swap*: a matched pair leaves, and the unmatched pairs that conflict with no other matched
      pair enter greedily (:func:`score_order`) when their total weight exceeds the one that
      left (with unit weights: one out, two in).

    Candidates and matched pairs are visited in a random order (``numpy.random.default_rng
    (seed)``, a new permutation for each pass); an improving move is applied at once. Stops
    after a pass without improvement (or ``max_passes``), or -- with the alignment reached so
    far, which is feasible -- once ``time_limit`` seconds have passed (checked between moves)."""
    deadline = Deadline(time_limit)  # also ends with the command's budget (core.deadline)
    rng = np.random.default_rng(seed)
    w = inst.pairs.weights
    rank = np.empty(inst.num_pairs, dtype=np.int64)
    rank[score_order(inst)] = np.arange(inst.num_pairs)
    sel = np.zeros(inst.num_pairs, dtype=bool)
    sel[inst.pairs.pair_index(greedy(inst) if start is None else start)] = True
    for _ in range(max_passes):
        improved = False
        for e in rng.permutation(inst.num_pairs).tolist():
            if deadline.expired():
                return alignment_from_edges(inst, np.flatnonzero(sel))
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
                return alignment_from_edges(inst, np.flatnonzero(sel))
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
    return alignment_from_edges(inst, np.flatnonzero(sel))


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
    return best_val, alignment_from_edges(inst, [e for e in range(E) if best_mask >> e & 1])
