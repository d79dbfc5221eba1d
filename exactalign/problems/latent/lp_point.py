"""What one LP point of the latent model gives besides its value: a bound certified by weak
duality from the row duals, per component (:func:`certified_lp_bound`), and an incumbent rounded
from it (:func:`round_point`). Shared by the binary path (:mod:`.exact`) and the ternary one
(:mod:`.ternary`), with the batch size and integrality slack both use."""

from __future__ import annotations

import numpy as np

from ...core.deadline import Deadline
from ...core.errors import BackendError, VerificationError
from ...core.model import dual_bound_terms
from .hillclimb import Climber
from .instance import LatentInstance
from .model import as_mapping_array

#: :func:`solve_exact_many` solves the LP of this many model columns at a time (measured).
BATCH_COLUMNS = 3000

#: Slack under which an LP value counts as reaching the next integer (integer objective).
INT_TOL = 1e-6


class _NoMemo(dict):
    """A memo that keeps nothing (the polishing climb's: see :func:`round_point`)."""

    def __setitem__(self, key, value) -> None:
        pass


def round_point(sub: LatentInstance, xp: np.ndarray, climb: bool = True,
           deadline: Deadline | None = None) -> np.ndarray:
    """An incumbent from a fractional LP point: the maximum-weight one-to-one mapping for pair
    weights ``x_p + 0.001 unary_p`` (a bipartite assignment,
    :mod:`~exactalign.problems.bipartite`), then (``climb``) smatch's moves (best move or swap
    while it gains) on the compiled pairs, until ``deadline`` (each step of the climb costs
    ``O(n^2)`` swaps: minutes on an 800-variable pair)."""
    from .. import bipartite  # only where an LP point is fractional

    w = xp + 1e-3 * sub.unary
    keep = np.flatnonzero(w > 1e-9)
    lu, li = np.unique(sub.pair_left[keep], return_inverse=True)
    ru, ri = np.unique(sub.pair_right[keep], return_inverse=True)
    bi = bipartite.BipartiteInstance(len(lu), len(ru), li, ri, w[keep])
    al = bipartite.solve(bi, "exact", certify_exact=False).alignment
    start = [-1] * sub.n_left
    for a, b in zip(lu[al[:, 0]].tolist(), ru[al[:, 1]].tolist(), strict=True):
        start[a] = b
    if not climb:
        return as_mapping_array(start)
    climber = Climber.of_compiled(sub)
    climber.deadline = deadline
    climber.memo = _NoMemo()  # a pure cache; on a big pair it would grow by GBs a step
    best, _ = climber.climb(start)
    return as_mapping_array(best)


def certified_lp_bound(model, lp, col_label: np.ndarray, lp_val: np.ndarray,
                        count: int, point_is_optimal: bool = True
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Per component, the LP bound recomputed from HiGHS' row duals by weak duality
    (:func:`~exactalign.core.model.dual_bound_terms`; rows and columns of different components
    are disjoint, so the bound splits by component), not the solver's objective. Both sign
    conventions of the duals give valid bounds; the tighter is kept per component. A bound below
    the value ``lp_val`` of a point said to be optimal (feasible) means the point or the
    arithmetic is wrong: an error (not checked when ``point_is_optimal`` is false: the last point
    of a PDLP stopped at its time limit need not be feasible; its duals bound all the same).

    Also returns, per column, the same weak-duality bound of its component with that column
    fixed to 1 (its term ``max(d_j, 0)`` replaced by ``d_j``, ``d = c - A^T y``; the model is a
    maximisation over ``[0, 1]`` columns): reduced-cost fixing (:func:`_settle`)."""
    if model.num_vars == 0:
        return lp_val, np.zeros(0)
    if lp.row_dual is None:
        raise BackendError("HiGHS returned no dual values for the LP relaxation")
    if not model.maximize or (model.col_lo != 0).any() or (model.col_hi != 1).any():
        raise ValueError("the latent model maximises over [0, 1] columns")
    A = model.A
    row_label = col_label[A.indices[A.indptr[:-1]]] if model.num_rows else np.zeros(0, int)
    best = np.full(count, np.inf)
    one = np.full(model.num_vars, np.inf)
    for y in (lp.row_dual, -lp.row_dual):
        rt, ct = dual_bound_terms(model, y)
        cert = (np.bincount(row_label, weights=rt, minlength=count)
                + np.bincount(col_label, weights=ct, minlength=count))
        cert = np.where(np.isnan(cert), np.inf, cert)
        d = model.c - A.T @ np.asarray(y, dtype=np.float64)
        fixed = cert[col_label] - ct + d  # ct = max(d, 0) on a [0, 1] column
        better = cert < best
        one = np.where(better[col_label], fixed, one)
        best = np.where(better, cert, best)
    if point_is_optimal and (best < lp_val - 1e-6 * np.maximum(1.0, np.abs(lp_val))).any():
        raise VerificationError("the LP dual bound is below the LP point's value")
    return best, one
