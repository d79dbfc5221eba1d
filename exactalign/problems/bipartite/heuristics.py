"""The heuristics of published scorers, tie-breaking included (:func:`greedy`,
:func:`pilot2015`, :func:`ref_order`; :data:`HEURISTICS` by name), and :func:`brute_force`, the
oracle for tiny inputs."""

from __future__ import annotations

import numpy as np

from ...core.arrays import frozen as _frozen
from ...core.errors import ModelTooLargeError
from .instance import BipartiteInstance, alignment_from_edges

#: brute_force refuses instances with more candidate pairs than this.
BRUTE_MAX_PAIRS = 20


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
    return alignment_from_edges(inst, taken)


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
    return alignment_from_edges(inst, taken)


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
    return max(best_val, 0.0), alignment_from_edges(inst, best_set)
