"""A tighter bound for an exact run stopped before its LP: the Lagrangian dual of the linking
rows, the one-to-one rows kept (:func:`tighten`).

When the exact path's LP does not finish within ``--time-limit`` (a document pair of thousands
of variables), its bound is weak duality on the multipliers the LP reached: column generation's
last round, or PDLP's last iterate. Those bound far above the optimum (a 1,500-variable held-out
pair stopped at 8 s: 3,146 against an optimum of 2,755; a 3,000-variable one at 45 s: 6,923
against 5,638). Two things lower it, both valid whatever the multipliers:

1. For the linking multipliers ``lam`` (rows ``y_q - x_p <= 0``, ``b = 0``) the rest of the
   model is an assignment: ``L(lam) = max over one-to-one x of sum_p d_p x_p + sum_q max(d_q,
   0)`` with ``d = c - A_link^T lam``. The best one-to-one multipliers for ``lam`` are the
   assignment's optimal duals, which bound no higher than any others (the LP's own included).
   The assignment is solved exactly (:func:`scipy.optimize.linear_sum_assignment` on the
   component's dense matrix of positive ``d_p``).
2. Subgradient steps on ``lam`` (``g = A_link z`` for the maximiser ``z``; Polyak steps towards
   the best mapping known, the step halved after :data:`STALL` steps without a better bound),
   per component, within the time left and :data:`MAX_STEPS`, stopping while three more would
   still fit (for the last assignment, its potentials and the caller's recomputation).

A component whose dense matrix would exceed :data:`MAX_DENSE` entries keeps its multipliers.

Nothing is trusted: each component's one-to-one multipliers are the potentials of its
assignment at its best ``lam`` (:func:`_potentials`), and the caller recomputes the bound of the
whole multiplier vector by weak duality (:func:`~exactalign.core.model.dual_bound_terms`), as
for any LP's duals.

Measured (one core; held-out Bio AMR document pairs, ``docs/metrics/smatch.md`` has the table):
on the 1,500-variable pair stopped after 8 rounds of column generation the first step alone
lowers the bound 3,146.5 -> 2,975.7 (the assignment 0.2 s, its potentials 45 passes, 0.4 s);
30 steps (0.3 s each) 2,868.6, with ``THETA`` 1 2,879.6 and ``STALL`` 2 or 5 2,883.7 and
2,873.6. On the 3,000-variable pair after 12 rounds: 6,924.0 -> 6,304.9 by the first step; five
steps (1.3-1.9 s each, most of it the assignment) find nothing lower with ``THETA`` 2, 1 or
0.5. ``--time-limit 15`` on the 1,500-variable pair reports 2,949 instead of 3,146, ``60`` on
the 3,000-variable one 6,304 instead of 6,923."""

from __future__ import annotations

import logging
import time

import numpy as np

from ...core.deadline import Deadline
from ...core.model import LinearModel
from ...core.outcome import SolveOptions
from .instance import LatentInstance
from .model import one_to_one_rows

log = logging.getLogger(__name__)

#: Subgradient steps at most (each: one assignment per component and two products with the
#: linking rows).
MAX_STEPS = 200
#: The first step's share of the Polyak step, and steps without a better bound before it halves.
THETA = 2.0
STALL = 3
#: Components whose dense assignment matrix has more entries are left as they are (128 MB).
MAX_DENSE = 2 ** 24


def _dense(inst: LatentInstance, pairs: np.ndarray):
    """The component's dense index: its pairs' rows and columns in a matrix over its own
    variables, and the pair at each cell (-1: none), or None when it would not fit."""
    ul, li = np.unique(inst.pair_left[pairs], return_inverse=True)
    ur, ri = np.unique(inst.pair_right[pairs], return_inverse=True)
    if len(ul) * len(ur) > MAX_DENSE:
        return None
    kind = np.int32 if len(inst.pair_left) < 2 ** 31 else np.int64
    at = np.full((len(ul), len(ur)), -1, kind)
    at[li, ri] = pairs
    return li, ri, at


def _assignment(d: np.ndarray, pairs: np.ndarray, dense, duals: Deadline | None = None):
    """The pairs of a maximum-weight one-to-one set under weights ``d`` (only positive ones
    count), exact; given a deadline ``duals``, also potentials ``u`` (rows) and ``v``
    (columns) of the dense matrix, ``u_i + v_j >= W_ij`` everywhere and ``>= 0``
    (:func:`_potentials`)."""
    from scipy.optimize import linear_sum_assignment

    li, ri, at = dense
    W = np.zeros(at.shape)
    W[li, ri] = np.maximum(d[pairs], 0.0)
    r, c = linear_sum_assignment(W, maximize=True)
    chosen = at[r, c]
    chosen = chosen[chosen >= 0]
    chosen = chosen[d[chosen] > 0]
    if duals is None:
        return chosen
    return chosen, _potentials(W, r, c, duals)


def _potentials(W: np.ndarray, r: np.ndarray, c: np.ndarray, deadline: Deadline,
                passes: int = 10_000):
    """Dual potentials of the maximum-weight assignment ``(r, c)`` of ``W >= 0``: feasible
    (``u_i + v_j >= W_ij``, both ``>= 0``) always; optimal (summing to the assignment's value)
    once the passes converge (within ``passes`` and ``deadline``). Label correcting on the
    assignment's alternating paths (a Bellman-Ford, one pass over the positive cells at a
    time): ``v`` rises to its column's largest excess, the matched rows' ``u`` falls to keep
    their pair tight; unmatched rows keep ``u = 0``. ``scipy.optimize.linear_sum_assignment``
    computes such potentials but does not return them; the bound built from these is
    recomputed by weak duality all the same."""
    w = W[r, c]
    mr, mc = r[w > 0], c[w > 0]  # zero-weight cells are "unmatched"
    j, i = np.nonzero(W.T)  # the positive cells (row i, column j), by column
    cols, starts = np.unique(j, return_index=True)
    wij = W[i, j]
    u = np.zeros(W.shape[0])
    u[mr] = W[mr, mc]
    v = np.zeros(W.shape[1])

    def rise(u):
        out = np.zeros(W.shape[1])
        if len(wij):
            out[cols] = np.maximum(np.maximum.reduceat(wij - u[i], starts), 0.0)
        return out

    n = 0
    while n < passes and not deadline.expired():
        n += 1
        nv = rise(u)
        nu = u.copy()
        nu[mr] = np.maximum(W[mr, mc] - nv[mc], 0.0)
        if np.array_equal(nv, v) and np.array_equal(nu, u):
            break
        u, v = nu, nv
    log.debug("assignment potentials: %d passes", n)
    return u, rise(u)


def tighten(model: LinearModel, inst: LatentInstance, y: np.ndarray, col_label: np.ndarray,
            comps, target: np.ndarray, options: SolveOptions,
            max_steps: int | None = None) -> np.ndarray:
    """Row multipliers of ``model`` (the latent ILP of ``inst``: maximised, columns in
    ``[0, 1]``, one-to-one rows ``<= 1``, linking rows ``<= 0``) that bound the components
    ``comps`` (labels of ``col_label``) no worse than ``y`` (maximisation sign, ``>= 0``) should:
    ``y`` elsewhere; on each component, its linking multipliers after subgradient steps (module
    docstring) and one-to-one multipliers from its assignment's potentials. ``target[k]``: the best
    mapping's value known for component ``k`` (Polyak's target). Runs within
    ``options.time_limit`` and ``max_steps`` (default :data:`MAX_STEPS`); the caller recomputes
    the bound (nothing here is trusted)."""
    deadline = Deadline(options.time_limit)
    P = inst.num_pairs
    A = model.A.to_scipy()
    y = np.maximum(np.asarray(y, np.float64), 0.0)
    if not model.maximize or not np.isin(model.row_hi, (0.0, 1.0)).all():
        raise ValueError("tighten takes the latent model: maximised, rows <= 1 or <= 0")
    row_label = col_label[A.indices[A.indptr[:-1]]]
    comps = np.asarray(comps, np.int64)
    mine = np.isin(row_label, comps)
    link = np.flatnonzero(mine & (model.row_hi == 0))
    one = np.flatnonzero(mine & (model.row_hi == 1))
    out = y.copy()
    if len(link) == 0:
        return out
    m = np.zeros(model.num_rows)

    def reduced(lam):  # c - A_link^T lam (the one-to-one rows' multipliers left out)
        m[link] = lam
        return model.c - A.T @ m

    lab_link = row_label[link]
    pair_label = col_label[:P]
    members = {int(k): np.flatnonzero(pair_label == k) for k in comps}
    dense = {k: _dense(inst, p) for k, p in members.items()}
    todo = [k for k in members if dense[k] is not None]
    q_label = col_label[P:]
    q_members = {k: np.flatnonzero(q_label == k) for k in todo}
    row_members = {k: np.flatnonzero(lab_link == k) for k in todo}
    lam = y[link].copy()
    best = {k: np.inf for k in todo}
    best_lam = lam.copy()
    theta = {k: THETA for k in todo}
    stall = {k: 0 for k in todo}
    steps, took = 0, 0.0
    for steps in range(1, (MAX_STEPS if max_steps is None else max_steps) + 1):
        left = deadline.left()
        if not todo or left is not None and left < 3 * took:  # keep time for the last assignment
            steps -= 1
            break
        t0 = time.perf_counter()
        d = reduced(lam)
        z = np.zeros(model.num_vars)
        z[P:] = d[P:] > 0
        step = np.zeros(len(link))
        for k in list(todo):
            chosen = _assignment(d, members[k], dense[k])
            z[chosen] = 1.0
            val = float(d[chosen].sum()) + float(np.maximum(d[P + q_members[k]], 0.0).sum())
            rows = row_members[k]
            if val < best[k] - 1e-9:
                best[k], stall[k] = val, 0
                best_lam[rows] = lam[rows]
            else:
                stall[k] += 1
                if stall[k] >= STALL:
                    theta[k], stall[k] = theta[k] / 2, 0
            if np.floor(best[k] + 1e-6) <= target[k] or theta[k] < 1e-4:
                todo.remove(k)  # proven by the caller's recomputation, or no progress left
                continue
            step[rows] = theta[k] * (val - target[k])
        if not todo:
            break
        g = (A @ z)[link]
        g[(lam <= 0) & (g < 0)] = 0.0
        norm = np.bincount(lab_link, weights=g * g)  # per component (labels are small ints)
        size = np.where(norm[lab_link] > 0, step / np.where(norm[lab_link] > 0,
                                                             norm[lab_link], 1.0), 0.0)
        lam = np.maximum(0.0, lam + size * g)
        took = time.perf_counter() - t0
    out[link] = best_lam
    d = reduced(best_lam)
    log.debug("%d Lagrangian steps on %d components, %.2f s; best %s", steps, len(members),
              time.perf_counter() - deadline.start, {k: round(v, 2) for k, v in best.items()})
    # the one-to-one multipliers: the potentials of each component's assignment at its best
    # lam, on its variables' rows (a variable of one pair has no row: its potential is dropped,
    # and its pair's reduced cost term grows by at most that much)
    row_of_left, row_of_right = one_to_one_rows(A, model.row_hi, inst)
    out[one] = 0.0
    for k in members:
        if dense[k] is None:  # left as it was
            mask = row_label[one] == k
            out[one[mask]] = y[one[mask]]
            continue
        _, (u, v) = _assignment(d, members[k], dense[k], deadline)
        ul = np.unique(inst.pair_left[members[k]])
        ur = np.unique(inst.pair_right[members[k]])
        for var, pot, rows in ((ul, u, row_of_left), (ur, v, row_of_right)):
            r = rows[var]
            out[r[r >= 0]] = pot[r >= 0]
    log.debug("with its one-to-one multipliers, %.2f s", time.perf_counter() - deadline.start)
    return out
