"""The ILP of monotone matching in its three formulations (``"compact"``, ``"grid"``,
``"pairwise"``; :func:`ilp_model`), its LP bound (:func:`lp_bound`) and its verified solve
(:func:`solve_ilp`, ``solve(..., "ilp")``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from ...core.deadline import Deadline, TimeLimitReached
from ...core.errors import ModelTooLargeError
from ...core.model import LinearModel
from ...core.result import Result, Status
from ...core.solve import remaining, solve_model, verified_result
from .. import bipartite
from .heuristics import greedy
from .instance import (
    MonotoneInstance,
    alignment_from_edges,
    check,
    conflict_pairs,
    conflicts,
)
from .orders import COMPOSE_ROWS, compose

FORMULATIONS = ("compact", "grid", "pairwise")

#: The pairwise formulation refuses instances with more conflicting pairs than this.
PAIRWISE_MAX_ROWS = 5_000_000

#: The compact formulation builds a dense candidates x candidates relation (a few bytes a cell,
#: three arrays at once); beyond this many cells (about 1 GB at its peak) it refuses the instance
#: with :class:`ModelTooLargeError` instead of exhausting memory.
COMPACT_MAX_CELLS = 1 << 28


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
    blocks of :data:`COMPOSE_ROWS` rows, ``deadline`` checked between them."""
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
    for lo in range(0, E, COMPOSE_ROWS):
        if deadline is not None:
            deadline.check("building the compact ILP")
        e = np.arange(lo, min(lo + COMPOSE_ROWS, E))
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
    cover = R & ~compose(R, R, deadline)
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


def solve_ilp(inst, method, formulation, backend, options, warm_start, t0) -> Result:
    E = inst.num_pairs
    details = {"formulation": formulation}
    if E == 0:
        return Result(Status.OPTIMAL, 0.0, 0.0, alignment_from_edges(inst, []), method,
                      time.perf_counter() - t0, backend=backend, details=details)
    deadline = Deadline(options.time_limit, t0)
    try:
        built = (_chain(inst, deadline) if formulation == "compact" else
                 _BUILDERS[formulation](inst) if formulation in _BUILDERS else None)
    except TimeLimitReached as exc:  # the budget ran out while building: greedy's alignment
        al = greedy(inst) if warm_start else alignment_from_edges(inst, [])
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
        al = alignment_from_edges(inst, start)
        return Result(Status.TIME_LIMIT, check(inst, al), bipartite.trivial_bound(inst.pairs), al,
                      method, time.perf_counter() - t0, backend=backend, seed=options.seed,
                      details={**details, "stopped": "time limit before the solve"})
    options = replace(options, time_limit=left)
    out = solve_model(model, backend, options)
    res = verified_result(out, model,
                          decode=lambda x: alignment_from_edges(inst, np.flatnonzero(x[:E] > 0.5)),
                          check=lambda al: check(inst, al), method=method, seed=options.seed,
                          details=details)
    if res.status in (Status.TIME_LIMIT, Status.FEASIBLE):
        # Stopped early: keep the warm start if the solver has no incumbent, and fall back on
        # the bipartite bound (every monotone matching is a matching) if it has no bound.
        if res.alignment is None and start is not None:
            al = alignment_from_edges(inst, start)
            res = res.replace(objective=check(inst, al), alignment=al)
        if res.bound is None:
            res = res.replace(bound=bipartite.trivial_bound(inst.pairs))
    return res.replace(wall_time=time.perf_counter() - t0)
