"""The LP relaxation of a big latent model by column generation (:func:`column_generation`).

Document-level AMR pairs have hundreds of thousands of candidate pairs and pairs of pairs (a
1,500-variable pair: 530,456 pairs, 471,772 pairs of pairs), of which an optimal LP point uses a
few thousand. Column generation solves the LP on a small set ``S`` of pairs (their columns, the
pairs of pairs between them, and the rows these touch), then prices every pair outside ``S``
with the LP's duals and adds the most attractive, until none is.

Pricing is weak duality on the *whole* model (:func:`~exactalign.core.model.dual_bound_terms`):
the restricted LP's row duals, extended to the rows it does not hold (:func:`_extend`), are
multipliers of the full model's rows, so ``sum(terms)`` bounds the full LP whatever they are.
When that bound meets the restricted LP's value, the restricted point (zero outside ``S``) is an
optimal point of the full LP and the extended duals an optimal dual -- the answer the full LP
would give, which :func:`~.exact._solve_batch` certifies again per component from the duals.
Stopped earlier (time limit), the point is feasible and the duals still bound: the caller treats
them as an unfinished LP's.

The extension: a row of the full model that the restricted LP does not hold links a pair of
pairs ``y`` (both ends needed) to one end ``q`` outside ``S``; its multiplier ``g`` lowers the
reduced cost of every ``y`` in the row by ``g`` and raises ``q``'s by ``g``. A pair of pairs with
positive reduced cost ``r`` (under the restricted duals) is covered by its ends outside ``S`` (all
of ``r`` by the one end outside, half each when both are); per end, the rows grouped by the
other end's left variable or those grouped by its right variable (the two aggregated linking
rows), whichever set costs less. A pair ``q`` outside ``S`` then prices at its reduced cost with
those multipliers: positive, it may improve the LP.

Measured (AMR Bio test bank, held out: consecutive sentences joined with :mod:`~exactalign.io.
docamr`, the system side perturbed, 10%): 600 variables, 86,973 pairs: 12 rounds, 20,850 pairs
in ``S``, LP optimum 1,044 certified in 5.8 s (the full LP: PDLP 14 s, dual simplex 81 s);
1,500 variables, 530,456 pairs: 37 rounds, 76,713 pairs, 2,749.75 in 331 s (PDLP on the full
LP: 700 s)."""

from __future__ import annotations

import time

import numpy as np

from ...core.deadline import Deadline
from ...core.model import LinearModel, dual_bound_terms
from ...core.outcome import BackendOutcome, SolveOptions
from ...core.result import Status
from .instance import LatentInstance

#: Pairs per variable (on each side) in the first restricted LP, by :func:`potentials`.
FIRST_PER_VARIABLE = 3

#: Pairs added per round at most: the most attractive (measured on the 600-variable pair: 1,000
#: 6.4 s, 2,000 5.8 s, 5,000 5.6 s, 10,000 7.3 s; one per variable and round: 27 s).
BATCH = 2000

#: A pair prices as attractive when its reduced cost exceeds this (HiGHS' dual tolerance is
#: 1e-7: smaller values are noise).
PRICE_TOL = 1e-7

#: Rounds at most; past them the answer is returned as unfinished (a feasible point and a bound).
MAX_ROUNDS = 1000


def potentials(inst: LatentInstance) -> np.ndarray:
    """Per pair, what it can earn at most in a one-to-one mapping, counting each pair of pairs
    half at each end and, per end, only the best of those whose other end has the same left
    variable: its unary weight plus, over the other ends' left variables, the best half weight."""
    pot = np.asarray(inst.unary, np.float64).copy()
    width = inst.n_left + 1
    for ends, others in ((inst.bin_p, inst.bin_q), (inst.bin_q, inst.bin_p)):
        key = ends * width + inst.pair_left[others]
        uk, inv = np.unique(key, return_inverse=True)
        best = np.zeros(len(uk))
        np.maximum.at(best, inv, inst.bin_w / 2)
        np.add.at(pot, uk // width, best)
    return pot


def first_pairs(inst: LatentInstance, k: int = FIRST_PER_VARIABLE) -> np.ndarray:
    """The first restricted set: per left and per right variable its ``k`` pairs of highest
    :func:`potentials` (ties by pair order). A boolean mask over the pairs."""
    pot = potentials(inst)
    keep = np.zeros(inst.num_pairs, dtype=bool)
    for side in (inst.pair_left, inst.pair_right):
        order = np.lexsort((-pot, side))
        s = side[order]
        first = np.r_[True, s[1:] != s[:-1]] if len(s) else np.zeros(0, bool)
        idx = np.arange(len(s))
        rank = idx - np.maximum.accumulate(np.where(first, idx, 0))
        keep[order[rank < k]] = True
    return keep


class _Structure:
    """The full model's rows as column generation needs them (scipy)."""

    def __init__(self, model: LinearModel, inst: LatentInstance) -> None:
        P = inst.num_pairs
        self.A = model.A.to_scipy().tocsr()
        self.Ac = self.A.tocsc()
        coo = self.A.tocoo()
        neg = coo.data < 0  # a linking row's end pair (coefficient -1)
        self.row_end = np.full(self.A.shape[0], -1, np.int64)
        self.row_end[coo.row[neg]] = coo.col[neg]
        yc = self.Ac[:, P:].tocoo()  # entries of the pairs of pairs' columns
        self.y_rows, self.y_b = yc.row.astype(np.int64), yc.col.astype(np.int64)
        self.y_end = self.row_end[self.y_rows]
        other = np.where(self.y_end == inst.bin_p[self.y_b], inst.bin_q[self.y_b],
                         inst.bin_p[self.y_b])
        self.y_other = other
        # of the two rows linking a pair of pairs to one end, the first is grouped by the other
        # end's left variable (ilp_model builds the left block first), the second by its right
        key = self.y_b * (P + 1) + self.y_end
        o = np.lexsort((self.y_rows, key))
        ks = key[o]
        first = np.zeros(len(key), dtype=bool)
        first[o] = np.r_[True, ks[1:] != ks[:-1]] if len(ks) else np.zeros(0, bool)
        self.left_row = np.zeros(self.A.shape[0], dtype=bool)
        self.left_row[self.y_rows[first]] = True


def _extend(model: LinearModel, inst: LatentInstance, st: _Structure, inside: np.ndarray,
            y: np.ndarray) -> np.ndarray:
    """The multipliers ``y`` (the restricted LP's duals, zero on the rows it does not hold) with
    the rows linking pairs of pairs to ends outside ``inside`` given their share (module
    docstring)."""
    P = inst.num_pairs
    d = model.c - st.Ac.T @ y
    need = np.maximum(d[P:], 0.0)[st.y_b]
    out = ~inside[st.y_end]
    share = np.where(out, np.where(inside[st.y_other], need, need / 2), 0.0)
    g = np.zeros(len(y))
    np.maximum.at(g, st.y_rows, share)
    rows, first = np.unique(st.y_rows, return_index=True)
    end, left = st.y_end[first], st.left_row[rows]
    cost_l = np.bincount(end[left], weights=g[rows[left]], minlength=P)
    cost_r = np.bincount(end[~left], weights=g[rows[~left]], minlength=P)
    use_left = cost_l <= cost_r
    chosen = np.where(left, use_left[end], ~use_left[end]) & ~inside[end]
    y = y.copy()
    y[rows[chosen]] = g[rows[chosen]]
    return y


def column_generation(model: LinearModel, inst: LatentInstance, options: SolveOptions
                      ) -> BackendOutcome:
    """The LP relaxation of ``model`` (:func:`~.model.ilp_model` of ``inst``, aggregated
    linking) by column generation (module docstring), within ``options.time_limit``.

    Returns a :class:`~exactalign.core.outcome.BackendOutcome` over the full model: converged,
    status OPTIMAL with the point ``x`` (zero outside the generated columns), ``objective`` and
    ``row_dual`` (the extended duals, maximisation sign); stopped by the time limit or
    :data:`MAX_ROUNDS`, status TIME_LIMIT with the last restricted optimum as ``iterate`` (a
    feasible point) and the extended duals (a valid bound by weak duality); no restricted LP
    solved at all, no duals."""
    from ...backends.highs import IncrementalLP

    t0 = time.perf_counter()
    deadline = Deadline(options.time_limit, t0)
    P = inst.num_pairs
    st = _Structure(model, inst)
    A, Ac = st.A, st.Ac
    inside = first_pairs(inst)
    col_at = np.full(model.num_vars, -1, np.int64)
    row_at = np.full(model.num_rows, -1, np.int64)

    def pair_cols():
        return P + np.flatnonzero(inside[inst.bin_p] & inside[inst.bin_q] & (col_at[P:] < 0))

    cols = np.concatenate([np.flatnonzero(inside), pair_cols()])
    rows = np.flatnonzero(np.diff(A[:, cols].tocsr().indptr) > 0)
    col_at[cols], row_at[rows] = np.arange(len(cols)), np.arange(len(rows))
    sub = LinearModel(c=model.c[cols], A=A[rows][:, cols], row_lo=model.row_lo[rows],
                      row_hi=model.row_hi[rows], col_lo=model.col_lo[cols],
                      col_hi=model.col_hi[cols], integrality=np.zeros(len(cols), dtype=bool),
                      sense=model.sense, name=f"{model.name} restricted")
    lp = IncrementalLP(sub, options)
    sign, y, best, rounds, status = None, None, None, 0, Status.TIME_LIMIT
    while True:
        res = lp.solve(deadline.left())
        if res.status is not Status.OPTIMAL:
            break
        best, rounds = res, rounds + 1
        if sign is None:  # HiGHS' sign convention: the one under which the duals bound
            sign = min((1.0, -1.0), key=lambda s: sum(
                float(t.sum()) for t in dual_bound_terms(sub, s * res.row_dual)))
        y = np.zeros(model.num_rows)
        y[rows] = sign * res.row_dual
        y = _extend(model, inst, st, inside, y)
        d = model.c - Ac.T @ y
        price = np.where(inside, 0.0, np.maximum(d[:P], 0.0))
        hot = np.flatnonzero(d[P:] > PRICE_TOL)
        np.maximum.at(price, inst.bin_p[hot], d[P + hot])
        np.maximum.at(price, inst.bin_q[hot], d[P + hot])
        price[inside] = 0.0
        cand = np.flatnonzero(price > PRICE_TOL)
        if len(cand) == 0:
            status = Status.OPTIMAL
            break
        if rounds >= MAX_ROUNDS or deadline.expired():
            break
        add = cand[np.argsort(-price[cand], kind="stable")[:BATCH]]
        inside[add] = True
        new = np.concatenate([add, pair_cols()])
        touched = np.unique(Ac[:, new].tocoo().row)
        new_rows = touched[row_at[touched] < 0]
        lp.add_rows(model.row_lo[new_rows], model.row_hi[new_rows],
                    A[new_rows][:, cols].tocsr())
        row_at[new_rows] = len(rows) + np.arange(len(new_rows))
        rows = np.concatenate([rows, new_rows])
        lp.add_cols(model.c[new], model.col_lo[new], model.col_hi[new],
                    Ac[:, new][rows].tocsc())
        col_at[new] = len(cols) + np.arange(len(new))
        cols = np.concatenate([cols, new])
    wall = time.perf_counter() - t0
    common = dict(nodes=0, wall_time=wall, backend="highs", solver_version=lp.version,
                  presolve=False)
    if best is None:
        return BackendOutcome(status=Status.TIME_LIMIT, x=None, objective=None, bound=None,
                              raw_status="column generation: no restricted LP solved", **common)
    x = np.zeros(model.num_vars)
    x[cols[:len(best.x)]] = best.x
    raw = (f"column generation: {rounds} rounds, {int(inside.sum())} of {P} pairs"
           + ("" if status is Status.OPTIMAL else ", stopped"))
    if status is Status.OPTIMAL:
        return BackendOutcome(status=status, x=x, objective=float(model.c @ x), bound=None,
                              raw_status=raw, row_dual=y, **common)
    return BackendOutcome(status=status, x=None, objective=None, bound=None, raw_status=raw,
                          row_dual=y, iterate=x, **common)
