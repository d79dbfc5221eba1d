"""The metric on an alignment, independent of the model: :func:`evaluate` (the counts),
:func:`check` (the F1, after :func:`check_alignment`), :func:`f1_of` and the best entity alignment
of CEAF (:func:`best_entity_alignment`)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from ...core.errors import InfeasibleAlignmentError
from .instance import METRICS, MentionAlignmentInstance


# --------------------------------------------------------------------------------------------
# the metric on an alignment: the checker
# --------------------------------------------------------------------------------------------
def _ratio(n: float, d: float) -> float:
    return n / d if d else 0.0


def f1_of(counts: Sequence[float]) -> float:
    """F1 of ``(precision num, precision den, recall num, recall den)``."""
    p = _ratio(counts[0], counts[1])
    r = _ratio(counts[2], counts[3])
    return 2 * p * r / (p + r) if p + r else 0.0


def check_alignment(inst: MentionAlignmentInstance, alignment) -> np.ndarray:
    """``alignment`` as an ``(m, 2)`` array after checking that every pair is allowed and no
    mention is paired twice (:class:`InfeasibleAlignmentError` otherwise)."""
    a = np.asarray(alignment, dtype=np.int64).reshape(-1, 2)
    allowed = set(zip(inst.rows.tolist(), inst.cols.tolist(), strict=True))
    ks, rs = set(), set()
    for k, r in a.tolist():
        if (k, r) not in allowed:
            raise InfeasibleAlignmentError(f"pair ({k}, {r}) is not allowed")
        if k in ks or r in rs:
            raise InfeasibleAlignmentError(f"a mention of pair ({k}, {r}) is paired twice")
        ks.add(k)
        rs.add(r)
    return a


def evaluate(inst: MentionAlignmentInstance, alignment, metric: str) -> tuple[float, ...]:
    """``(precision num, precision den, recall num, recall den)`` of ``metric`` on the aligned
    mentions (module docstring), computed directly from the clusters -- independently of the
    model."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose from " + ", ".join(METRICS))
    a = check_alignment(inst, alignment)
    fwd = {k: r for k, r in a.tolist()}
    bwd = {r: k for k, r in a.tolist()}
    K, R = inst.key_clusters, inst.response_clusters
    if metric in ("ceafe", "ceafm"):
        return _ceaf_counts(K, R, fwd, metric == "ceafe")
    klast, rlast = inst.key_last(), inst.response_last()
    kg = [_group(c, fwd, rlast) for c in K]
    rg = [_group(c, bwd, klast) for c in R]
    if metric == "muc":
        rn = sum(sum(g.values()) - len(g) for g in kg)
        pn = sum(sum(g.values()) - len(g) for g in rg)
        return (float(pn), float(sum(len(c) - 1 for c in R)), float(rn),
                float(sum(len(c) - 1 for c in K)))
    if metric == "bcub":
        rn = sum(sum(n * n for n in g.values()) / len(c) for c, g in zip(K, kg, strict=True))
        pn = sum(sum(n * n for n in g.values()) / len(c) for c, g in zip(R, rg, strict=True))
    else:
        rn = _lea_num(K, kg, R)
        pn = _lea_num(R, rg, K)
    return (float(pn), float(sum(len(c) for c in R)), float(rn), float(sum(len(c) for c in K)))


def _group(cluster, mapping, other_last) -> dict[int, int]:
    g: dict[int, int] = defaultdict(int)
    for m in cluster:
        if m in mapping:
            g[other_last[mapping[m]]] += 1
    return g


def _lea_num(clusters, groups, other) -> float:
    total = 0.0
    for c, g in zip(clusters, groups, strict=True):
        if len(c) == 1:
            total += 1.0 if g and len(other[next(iter(g))]) == 1 else 0.0
        else:
            links = len(c) * (len(c) - 1) / 2
            total += len(c) * sum(n * (n - 1) / 2 for n in g.values()) / links
    return total


def _ceaf_counts(K, R, fwd, entity: bool) -> tuple[float, ...]:
    col_of: dict[int, list[int]] = defaultdict(list)
    for j, c in enumerate(R):
        for m in c:
            col_of[m].append(j)
    overlap: dict[tuple[int, int], int] = defaultdict(int)
    for i, c in enumerate(K):
        for m in c:
            if m in fwd:
                for j in col_of[fwd[m]]:
                    overlap[(i, j)] += 1
    sim = {(i, j): (2 * n / (len(K[i]) + len(R[j])) if entity else float(n))
           for (i, j), n in overlap.items()}
    total = math.fsum(sim[ab] for ab in best_entity_alignment(sim))
    if entity:
        return total, float(len(R)), total, float(len(K))
    return (total, float(sum(len(c) for c in R)), total, float(sum(len(c) for c in K)))


def best_entity_alignment(sim: dict[tuple[int, int], float]) -> list[tuple[int, int]]:
    """A 1:1 alignment of key entities ``a`` and response entities ``b`` maximising the total
    of ``sim[(a, b)]`` over the cells given (all others 0), as ``(a, b)`` pairs of positive
    similarity in order: the assignment path of :mod:`exactalign.problems.bipartite` on the
    sparse cells (a dense matrix only up to ``bipartite.DENSE_CELLS`` cells, else the sparse
    matching), so a corpus of thousands of entities never builds their full ``|K| x |R|``
    matrix."""
    from .. import bipartite

    cells = sorted(ab for ab, w in sim.items() if w > 0)
    if not cells:
        return []
    rows = np.array([a for a, _ in cells], dtype=np.int64)
    cols = np.array([b for _, b in cells], dtype=np.int64)
    w = np.array([sim[ab] for ab in cells], dtype=np.float64)
    inst = bipartite.BipartiteInstance(int(rows.max()) + 1, int(cols.max()) + 1, rows, cols, w)
    return sorted(cells[e] for e in bipartite.exact_special(inst).tolist())


def check(inst: MentionAlignmentInstance, alignment, metric: str = "ceafe") -> float:
    """The F1 of ``metric`` on ``alignment`` (raises if the alignment is not feasible)."""
    return f1_of(evaluate(inst, alignment, metric))


# --------------------------------------------------------------------------------------------
