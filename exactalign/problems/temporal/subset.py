"""Maximum-weight consistent subset of a temporal graph's links: exact, heuristics, brute
force and checker.

Keep links ``y_l in {0, 1}`` maximising ``sum w_l y_l`` such that the kept links are consistent.
Two exact ILPs (per connected component of the entity graph): ``ilp-rank`` -- a real rank
``r_p in [0, P-1]`` per point, ``r_v - r_u >= 1 - M (1 - y_l)`` for a strict edge of link ``l``,
``r_v - r_u >= -M (1 - y_l)`` for each non-strict edge, ``r_Xe - r_Xs >= 1`` hard, ``M = P``;
and ``ilp-cuts`` -- only ``y``, with lazily generated cuts ``sum_{l in C} y_l <= |C| - 1`` for
the link set ``C`` of each witness cycle of the incumbent, re-solved until the kept set is
consistent (then proven optimal: every cut is valid, and the relaxation's optimum is feasible).
Heuristics: ``greedy-order`` (insert in file order, set aside a link that makes the kept set
inconsistent -- the toolkit's idea with a complete consistency test), ``greedy-confidence``
(the same by decreasing weight, ties in file order), ``greedy-cycles`` (repeatedly drop the link
lying on most witness cycles, ties: smallest weight, then latest in the file; then re-insert in
file order what is still consistent).

The point algebra, the closure and the witness cycles are
:mod:`exactalign.problems.temporal.algebra`'s.
"""

from __future__ import annotations

import itertools
import time

import numpy as np
import scipy.sparse as sp

from ...core.errors import InfeasibleAlignmentError, InputError, ModelTooLargeError
from ...core.model import LinearModel
from ...core.result import Result, Status, worst_status
from ...core.solve import SolveOptions, remaining, solve_model, verified_result
from .algebra import Closure, Reach, TemporalInstance, find_inconsistency, is_known, witness

__all__ = ["check", "greedy_order", "greedy_confidence", "greedy_cycles", "HEURISTICS",
           "ilp_rank_model", "brute_force", "METHODS", "solve"]


def check(inst: TemporalInstance, kept) -> float:
    """Weight of the kept links (indices or boolean mask); raises InfeasibleAlignmentError if
    they are inconsistent."""
    mask = _as_mask(inst, kept)
    cyc = find_inconsistency(inst, mask)
    if cyc is not None:
        names = ", ".join(inst.names[k] for k in cyc[:6]) if inst.names else str(cyc)
        raise InfeasibleAlignmentError(f"kept links are inconsistent (cycle through {names})")
    return float(inst.weight[mask].sum())


def _as_mask(inst: TemporalInstance, kept) -> np.ndarray:
    kept = np.asarray(kept)
    if kept.dtype == bool:
        if kept.shape != (inst.n_links,):
            raise InfeasibleAlignmentError("mask has the wrong length")
        return kept
    mask = np.zeros(inst.n_links, bool)
    if kept.size and (kept.min() < 0 or kept.max() >= inst.n_links):
        raise InfeasibleAlignmentError("kept link index out of range")
    mask[kept.astype(np.int64)] = True
    return mask

# ---------------------------------------------------------------- heuristics

def _greedy_insert(inst: TemporalInstance, order) -> np.ndarray:
    reach = Reach(inst.n_points)
    kept = np.zeros(inst.n_links, bool)
    for k in order:
        kept[k] = reach.try_link(int(inst.src[k]), int(inst.dst[k]), inst.rel[k])
    return kept


def greedy_order(inst: TemporalInstance) -> np.ndarray:
    """Insert links in file order; set aside each one that would make the kept set
    inconsistent (the toolkit's greedy idea, with a complete consistency test)."""
    return _greedy_insert(inst, range(inst.n_links))


def greedy_confidence(inst: TemporalInstance) -> np.ndarray:
    """:func:`greedy_order` by decreasing weight, ties in file order."""
    return _greedy_insert(inst, np.argsort(-inst.weight, kind="stable"))


def greedy_cycles(inst: TemporalInstance) -> np.ndarray:
    """Drop the link on most witness cycles (one per strict edge inside a component), ties by
    smallest weight then latest in the file, until consistent; then re-insert dropped links in
    file order where they stay consistent (so the result is maximal)."""
    mask = np.ones(inst.n_links, bool)
    while True:
        cl = Closure(inst, mask)
        if cl.consistent:
            break
        counts = np.zeros(inst.n_links, np.int64)
        for e in cl.bad_edges:
            for k in witness(cl, int(e)):
                counts[k] += 1
        cand = np.flatnonzero(counts == counts.max())
        best = min(cand, key=lambda k: (inst.weight[k], -k))
        mask[best] = False
    reach = Reach(inst.n_points)
    for k in np.flatnonzero(mask):
        reach.add_link(int(inst.src[k]), int(inst.dst[k]), inst.rel[k])
    for k in np.flatnonzero(~mask):
        mask[k] = reach.try_link(int(inst.src[k]), int(inst.dst[k]), inst.rel[k])
    return mask


HEURISTICS = {"greedy-order": greedy_order, "greedy-confidence": greedy_confidence,
              "greedy-cycles": greedy_cycles}


# ---------------------------------------------------------------- exact

def _sub(inst: TemporalInstance, links: np.ndarray) -> tuple[TemporalInstance, np.ndarray]:
    """The sub-instance on ``links`` with its own compact node numbering."""
    used = np.unique(np.concatenate([inst.src[links], inst.dst[links]]))
    remap = np.full(len(inst.nodes), -1)
    remap[used] = np.arange(len(used))
    sub = TemporalInstance(tuple(inst.nodes[i] for i in used), remap[inst.src[links]],
                           remap[inst.dst[links]], tuple(inst.rel[k] for k in links),
                           inst.weight[links], tuple(inst.names[k] for k in links))
    return sub, links


def ilp_rank_model(inst: TemporalInstance) -> LinearModel:
    """The point-rank big-M ILP of the module docstring (variables ``y`` then ``r``)."""
    L, P = inst.n_links, inst.n_points
    u, v, strict, link = inst.point_edges()
    M = float(P)
    m = len(u)
    rows = np.arange(m)
    hard = link < 0
    # r_v - r_u + M*(1 - y) >= rhs  <=>  r_v - r_u - M*y >= rhs - M
    data = np.concatenate([np.ones(m), -np.ones(m), np.full(int((~hard).sum()), -M)])
    ri = np.concatenate([rows, rows, rows[~hard]])
    ci = np.concatenate([L + v, L + u, link[~hard]])
    A = sp.csr_array((data, (ri, ci)), shape=(m, L + P))
    rhs = np.where(strict, 1.0, 0.0) - np.where(hard, 0.0, M)
    c = np.concatenate([inst.weight, np.zeros(P)])
    return LinearModel(c, A, rhs, np.full(m, np.inf), np.zeros(L + P),
                       np.concatenate([np.ones(L), np.full(P, P - 1.0)]),
                       np.concatenate([np.ones(L, bool), np.zeros(P, bool)]),
                       var_names=[f"y{k}" for k in range(L)] + [f"r{p}" for p in range(P)],
                       name="temporal-rank")


def _solve_rank(inst, backend, options) -> Result:
    model = ilp_rank_model(inst)
    out = solve_model(model, backend, options)
    return verified_result(out, model, decode=lambda x: np.flatnonzero(x[:inst.n_links] > 0.5),
                           check=lambda kept: check(inst, kept), method="ilp-rank",
                           seed=options.seed)


def _solve_cuts(inst, backend, options) -> Result:
    """Lazy cycle cuts: solve, add a cut for every witness cycle of the incumbent, repeat."""
    L = inst.n_links
    cuts: list[list[int]] = []
    t0, rounds = time.perf_counter(), 0
    while True:
        rounds += 1
        A = sp.csr_array((np.ones(sum(len(c) for c in cuts)),
                          (np.repeat(np.arange(len(cuts)), [len(c) for c in cuts]),
                           np.concatenate(cuts).astype(np.int64) if cuts else
                           np.zeros(0, np.int64))), shape=(len(cuts), L))
        model = LinearModel(inst.weight, A, np.full(len(cuts), -np.inf),
                            np.array([len(c) - 1.0 for c in cuts]), np.zeros(L), np.ones(L),
                            np.ones(L, bool), name="temporal-cuts")
        left = remaining(options.time_limit, time.perf_counter() - t0)
        opts = SolveOptions(time_limit=left, mip_rel_gap=options.mip_rel_gap,
                            threads=options.threads, seed=options.seed)
        out = solve_model(model, backend, opts)
        if out.x is None or out.status is not Status.OPTIMAL:
            return _cuts_incomplete(inst, out, t0, rounds, options.seed)
        mask = out.x > 0.5
        cl = Closure(inst, mask)
        if cl.consistent:
            res = verified_result(out, model, decode=lambda x: np.flatnonzero(x > 0.5),
                                  check=lambda kept: check(inst, kept), method="ilp-cuts",
                                  seed=options.seed, details={"rounds": rounds,
                                                              "cuts": len(cuts)})
            return _retime(res, time.perf_counter() - t0)
        new = {tuple(sorted(witness(cl, int(e)))) for e in cl.bad_edges}
        cuts.extend(list(c) for c in sorted(new))


def _cuts_incomplete(inst, out, t0, rounds, seed) -> Result:
    """On a time limit inside the cut loop: the best consistent set we have (greedy by the
    relaxation's choice) and the last relaxation bound."""
    kept = greedy_confidence(inst)
    return Result(status=Status.TIME_LIMIT, objective=check(inst, kept), bound=out.bound,
                  alignment=np.flatnonzero(kept), method="ilp-cuts",
                  wall_time=time.perf_counter() - t0, backend=out.backend, seed=seed,
                  solver_version=out.solver_version, details={"rounds": rounds})


def _retime(res: Result, wall: float) -> Result:
    return Result(status=res.status, objective=res.objective, bound=res.bound,
                  alignment=res.alignment, method=res.method, wall_time=wall, nodes=res.nodes,
                  backend=res.backend, seed=res.seed, solver_version=res.solver_version,
                  components=res.components, details=res.details)


def brute_force(inst: TemporalInstance, max_links: int = 16) -> np.ndarray:
    """Maximum-weight consistent subset by enumeration (largest weight first, ties: the first
    subset in lexicographic order of kept indices)."""
    known = [k for k in range(inst.n_links) if is_known(inst.rel[k])]
    if len(known) > max_links:
        raise ModelTooLargeError(f"brute force over {len(known)} links (> {max_links})")
    best, best_w = None, -1.0
    base = np.array([not is_known(r) for r in inst.rel], bool)
    for r in range(len(known), -1, -1):
        for combo in itertools.combinations(known, r):
            mask = base.copy()
            mask[list(combo)] = True
            w = float(inst.weight[mask].sum())
            if w > best_w + 1e-12 and Closure(inst, mask).consistent:
                best, best_w = mask, w
    return best


METHODS = ("exact", "ilp", "ilp-rank", "ilp-cuts", "brute", *HEURISTICS)


def solve(inst: TemporalInstance, method: str = "exact", *, backend: str = "highs",
          time_limit: float | None = None, seed: int = 0) -> Result:
    """Maximum-weight consistent subset of ``inst``'s links. ``exact`` and ``ilp`` are
    ``ilp-cuts`` (the faster on the pilot data, see experiments/temporal_gap.py). The alignment
    is the sorted array of kept link indices; links with unknown labels are always kept."""
    if method not in METHODS:
        raise InputError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    t0 = time.perf_counter()
    if method in HEURISTICS:
        kept = HEURISTICS[method](inst)
        return Result(status=Status.FEASIBLE, objective=check(inst, kept), bound=None,
                      alignment=np.flatnonzero(kept), method=method,
                      wall_time=time.perf_counter() - t0, seed=seed)
    if method == "brute":
        kept = brute_force(inst)
        w = check(inst, kept)
        return Result(status=Status.OPTIMAL, objective=w, bound=w,
                      alignment=np.flatnonzero(kept), method="brute",
                      wall_time=time.perf_counter() - t0, seed=seed)
    one = _solve_rank if method == "ilp-rank" else _solve_cuts     # exact, ilp, ilp-cuts
    kept = np.array([not is_known(r) for r in inst.rel], bool)
    statuses, bound, comps = [Status.OPTIMAL], float(inst.weight[kept].sum()), 0
    used, fallback, presolve = set(), [], True  # what answered the components that needed a solve
    for links in inst.components():
        sub, _ = _sub(inst, links)
        if Closure(sub).consistent:
            kept[links] = True
            bound += float(inst.weight[links].sum())
            continue
        opts = SolveOptions(time_limit=remaining(time_limit, time.perf_counter() - t0), seed=seed)
        res = one(sub, backend, opts)
        comps += 1
        statuses.append(res.status)
        used.add(res.backend)
        fallback.extend(res.fallback)
        presolve = presolve and res.details.get("presolve", True)
        kept[links[np.asarray(res.alignment, dtype=np.int64)]] = True
        bound = bound + res.bound if res.bound is not None else float("inf")
    objective = check(inst, kept)
    status = worst_status(statuses)
    return Result(status=status, objective=objective, bound=max(bound, objective),
                  alignment=np.flatnonzero(kept),
                  method="ilp-rank" if method == "ilp-rank" else "ilp-cuts",
                  wall_time=time.perf_counter() - t0,
                  # no solver ran when every component was consistent as it stood
                  backend="+".join(sorted(b for b in used if b)) or None, seed=seed,
                  components=comps,
                  details={**({"fallback": fallback} if fallback else {}),
                           **({} if presolve else {"presolve": False})})

