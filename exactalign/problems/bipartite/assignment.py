"""The certified assignment path: exact alignments without an ILP (:func:`exact_special`: the
assignment problem for 1:1, closed forms for the other kinds), their dual certificates
(:class:`Certificate`, :func:`certify`, :func:`dual_bound`) and the proofs the greedy-first
exact path rests on: the local exchange test (:func:`improvable`) and the residual pass
(:func:`residual_distances`, one block or many: :func:`block_distances`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .instance import BipartiteInstance, alignment_from_edges

#: Components whose dense weight matrix has at most this many cells use dense
#: ``linear_sum_assignment``; larger ones the sparse matching of ``scipy.sparse.csgraph``.
DENSE_CELLS = 40_000


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


def assignment_edges(inst: BipartiteInstance) -> np.ndarray:
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
    (:func:`assignment_edges`); for 1:N each predicted item takes its best
    reference; for N:1 each reference its best predicted item; for N:N every candidate pair
    (weights are positive)."""
    if inst.kind == "1:1":
        return assignment_edges(inst)
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
    tight on matched pairs. When the pass has not settled after :func:`certificate_rounds`
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
    d = residual_distances(inst, a, certificate_rounds(r + p + 2))
    if d is None:  # not settled: certify an optimal alignment instead (see above)
        d = residual_distances(inst, alignment_from_edges(inst, exact_special(inst)))
    if d is None:  # cannot happen in exact arithmetic; trivial duals still bound everything
        np.maximum.at(u, inst.rows, inst.weights)
        return Certificate(u, v, dual_bound(inst, u, v))
    u, v = duals(inst, d)
    return Certificate(u, v, dual_bound(inst, u, v))


def duals(inst: BipartiteInstance, d: np.ndarray, ref_block=None, pred_block=None,
           blocks: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``(u, v)`` of :func:`certify` from the residual distances ``d`` of
    :func:`block_distances` (one source and sink per block, numbered after the items)."""
    r, p = inst.n_ref, inst.n_pred
    s = r + p + (np.zeros(r, np.int64) if ref_block is None else ref_block)
    t = r + p + blocks + (np.zeros(p, np.int64) if pred_block is None else pred_block)
    return np.maximum(0.0, d[:r] - d[s]), np.maximum(0.0, d[t] - d[r:r + p])


#: Rounds the exact path gives the residual pass on the greedy alignment before it solves the
#: assignment instead. Measured on the CEAF instances of 100 generated 60-mention documents
#: (40 entities on average): the 90% whose greedy alignment is optimal settled within 2-9
#: rounds; a non-optimal one never settles, so every round past those is lost on it.
GREEDY_ROUNDS = 32


def improvable(inst: BipartiteInstance, a: np.ndarray, ref_block=None,
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


def certificate_rounds(nodes: int) -> int:
    """Rounds :func:`certify` gives the Bellman-Ford pass on the alignment it was handed. On
    optimal alignments of random 100-5,000 a side instances (uniform and Dice weights) the pass
    settled within 18-230 rounds; a non-optimal one never settles (it would run ``nodes``)."""
    return 256 + 2 * math.isqrt(nodes)


def residual_distances(inst: BipartiteInstance, a: np.ndarray,
                        max_rounds: int | None = None) -> np.ndarray | None:
    """Shortest distances from a virtual root (0-cost arcs to every node) in the residual graph
    of ``a``; ``None`` if a negative cycle exists, or if the distances have not settled after
    ``max_rounds`` rounds (default: enough to detect a negative cycle). Nodes: references,
    predictions, source, sink. Up to :data:`SMALL_PASS_PAIRS` pairs :func:`small_distances`,
    else :func:`block_distances` with one block (the same distances).

    Hand-written rather than ``scipy.sparse.csgraph.bellman_ford`` (which relaxes every arc in
    every round) because the frontier is what makes it scale: on optimal alignments of random
    instances, 0.5 ms against 0.5 ms at 20 items a side, 19 ms against 280 ms at 1,000 and
    90 ms against 7.7 s at 5,000 (the same distances)."""
    n = inst.n_ref + inst.n_pred + 2
    limit = n + 1 if max_rounds is None else min(n + 1, max_rounds)
    if inst.num_pairs <= SMALL_PASS_PAIRS:
        return small_distances(inst, a, limit)
    d, settled = block_distances(inst, a, None, None, np.array([limit]))
    return d if settled[0] else None


#: Instances with at most this many candidate pairs get the residual pass in plain Python
#: (:func:`small_distances`), larger ones the vectorised pass: numpy's per-call cost dominates
#: a document-sized pass. Measured on random Dice instances (degree 3) with optimal
#: alignments: 30 pairs 0.034 ms against 0.197 ms, 120 pairs 0.136 against 0.291, 240 pairs
#: 0.30 against 0.46, 480 pairs 0.69 against 0.63, 960 pairs 1.6 against 0.67.
SMALL_PASS_PAIRS = 300


def small_distances(inst: BipartiteInstance, a: np.ndarray, limit: int) -> np.ndarray | None:
    """:func:`residual_distances` of one block in plain Python: the same arcs, the same rounds
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


def block_distances(inst: BipartiteInstance, a: np.ndarray, ref_block, pred_block,
                     limits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`residual_distances` of every block of a block-diagonal instance at once: block
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
