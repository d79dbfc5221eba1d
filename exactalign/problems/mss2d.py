"""The two-dimensional most similar substructures (2D-MSS) of two matrices, exactly.

Given ``W[i, j, k, l] >= 0``, the similarity of entry ``(i, j)`` of a true ``Rt x Ct`` matrix and
entry ``(k, l)`` of a predicted ``Rp x Cp`` one, choose an order-preserving one-to-one alignment
``rows`` of true rows to predicted rows and one ``cols`` of true columns to predicted columns
(each a monotone matching of two sequences, :mod:`exactalign.problems.monotone`) maximising

    sum over (i, k) in rows, (j, l) in cols of W[i, j, k, l].

GriTS (:mod:`exactalign.metrics.grits`) scores tables by it; its authors call it NP-hard and
solve it by the factored heuristic. An alignment is a pair ``(rows, cols)`` of ``(m, 2)`` int64
arrays of ``(true, predicted)`` indices, strictly increasing in both.

Bounds. For a fixed column alignment the best rows are a 1-D dynamic program over row-pair
weights ``sum over (j, l) in cols of W[i, j, k, l]``; relaxing "one column alignment for all
rows" to "each row pair its own" gives GriTS's row score, an upper bound (and the column score
likewise): ``factored <= exact <= min(row score, column score)``.

Methods (:func:`solve`):

``bnb``    branch and bound over the column alignments (or the row alignments, whichever side is
           smaller): true columns are decided in order (skipped, or aligned to a predicted
           column after the last one used); a node's bound is the row dynamic program over
           ``fixed(i, k) + suffix(i, k)``, where ``fixed`` sums the similarities of the columns
           aligned so far and ``suffix`` is the best 1-D alignment of row pair ``(i, k)``'s
           remaining columns (precomputed for every row pair and every pair of column
           positions). At the root this is GriTS's row score; at a leaf it is exact. Depth
           first, children by bound; the incumbent starts from the factored solution (or any
           given one) and each node's fixed part alone is a solution. Proven optimal when the
           tree is exhausted; the bound reported is the largest bound of a pruned node (at most
           the objective plus 1e-9) or, on a time limit, of the open nodes.
``ilp``    an integer program through the backend layer: binary ``y[i, k]`` (rows) and
           ``z[j, l]`` (columns), each constrained to a monotone matching by the compact chain
           formulation of :func:`exactalign.problems.monotone.ilp_model`, and a continuous
           ``x[i, j, k, l] in [0, 1]`` for every entry pair with ``W > 0`` linked to both:
           ``sum_k x[i, j, k, l] <= z[j, l]`` for every ``(i, j, l)`` and ``sum_l x[i, j, k, l]
           <= y[i, k]`` for every ``(i, j, k)`` (a true row has one partner, a true column one),
           maximise ``sum W x``. With ``y`` and ``z`` integral the optimal ``x`` is their
           product on the positive entries. Not warm-started (the chain formulation's auxiliary
           columns are the monotone module's own); the cross-check of ``bnb``.
``brute``  every pair of monotone matchings (tiny matrices; the oracle of the tests).

Every alignment is re-verified by :func:`check`, which recomputes the objective.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..core.deadline import Deadline
from ..core.errors import InfeasibleAlignmentError, InputError, ModelTooLargeError
from ..core.model import LinearModel
from ..core.result import Result, Status, close
from ..core.solve import SolveOptions, solve_model, verified_result
from . import monotone

METHODS = ("bnb", "ilp", "brute")

#: brute force refuses matrices with more (true x predicted) row or column pairs than this.
BRUTE_MAX_PAIRS = 16

#: Pruning tolerance of the branch and bound (absolute, on the objective).
PRUNE_TOL = 1e-9


@dataclass(frozen=True, eq=False)
class Mss2dInstance:
    """The similarity tensor ``W`` (``Rt x Ct x Rp x Cp``, float64, ``>= 0``)."""

    W: np.ndarray

    def __post_init__(self):
        W = np.asarray(self.W, dtype=np.float64)
        if W.ndim != 4:
            raise InputError(f"a 2D-MSS instance is a 4-dimensional tensor, not shape {W.shape}")
        if W.size and (not np.all(np.isfinite(W)) or W.min() < 0):
            raise InputError("2D-MSS similarities must be finite and non-negative")
        W = W.copy()
        W.flags.writeable = False
        object.__setattr__(self, "W", W)

    @property
    def shape(self) -> tuple[int, int, int, int]:
        return self.W.shape

    def transposed(self) -> Mss2dInstance:
        """Rows and columns exchanged on both sides."""
        return Mss2dInstance(self.W.transpose(1, 0, 3, 2))


def _as_pairs(a, n_true, n_pred, what) -> np.ndarray:
    a = np.asarray(a, dtype=np.int64).reshape(-1, 2)
    if len(a):
        if a.min() < 0 or a[:, 0].max() >= n_true or a[:, 1].max() >= n_pred:
            raise InfeasibleAlignmentError(f"{what} alignment names an index out of range")
        if np.any(np.diff(a[:, 0]) <= 0) or np.any(np.diff(a[:, 1]) <= 0):
            raise InfeasibleAlignmentError(f"{what} alignment is not strictly increasing in "
                                           "both sequences (it repeats or crosses)")
    return a


def check(inst: Mss2dInstance, alignment) -> float:
    """Verify ``alignment = (rows, cols)`` (in range, one-to-one, order-preserving) and return
    its objective recomputed from ``W``."""
    rt, ct, rp, cp = inst.shape
    rows = _as_pairs(alignment[0], rt, rp, "row")
    cols = _as_pairs(alignment[1], ct, cp, "column")
    if not len(rows) or not len(cols):
        return 0.0
    sub = inst.W[np.ix_(rows[:, 0], cols[:, 0], rows[:, 1], cols[:, 1])]
    return float(np.einsum("ijij->", sub))


# --------------------------------------------------------------------------------------------
# dynamic programs
# --------------------------------------------------------------------------------------------
def dp_value(M: np.ndarray) -> float:
    """The best order-preserving one-to-one alignment of rows and columns of ``M`` (>= 0)."""
    n, m = M.shape
    if n == 0 or m == 0:
        return 0.0
    f = np.zeros(m + 1)
    for i in range(n):
        g = f.copy()
        np.maximum(f[1:], f[:-1] + M[i], out=g[1:])
        f = np.maximum.accumulate(g)
    return float(f[m])


def dp_alignment(M: np.ndarray) -> np.ndarray:
    """An optimal alignment of :func:`dp_value` (through the monotone problem's DP)."""
    if M.size == 0 or not (M > 0).any():
        return np.zeros((0, 2), dtype=np.int64)
    inst = monotone.MonotoneInstance.sequences(M)
    return np.asarray(monotone.sequence_dp(inst)[1], dtype=np.int64)


def suffix_scores(W: np.ndarray) -> np.ndarray:
    """``Suf[i, k, j, l]``: the best 1-D alignment of true row ``i``'s columns ``j..`` with
    predicted row ``k``'s columns ``l..`` (zero past either end)."""
    rt, ct, rp, cp = W.shape
    S = np.zeros((rt, rp, ct + 1, cp + 1))
    for j in range(ct - 1, -1, -1):
        for l in range(cp - 1, -1, -1):  # noqa: E741
            np.maximum(np.maximum(S[:, :, j + 1, l], S[:, :, j, l + 1]),
                       S[:, :, j + 1, l + 1] + W[:, j, :, l], out=S[:, :, j, l])
    return S


def row_bound(inst: Mss2dInstance) -> float:
    """GriTS's row score: rows aligned by a DP whose reward is each row pair's best 1-D
    alignment of cells (an upper bound on the 2D-MSS)."""
    rt, ct, rp, cp = inst.shape
    if not min(inst.shape):
        return 0.0
    return dp_value(suffix_scores(inst.W)[:, :, 0, 0])


def bound(inst: Mss2dInstance) -> float:
    """``min(row score, column score)``: GriTS's upper bound on the 2D-MSS."""
    return min(row_bound(inst), row_bound(inst.transposed()))


# --------------------------------------------------------------------------------------------
# branch and bound
# --------------------------------------------------------------------------------------------
def bnb(inst: Mss2dInstance, incumbent=None, *, time_limit: float | None = None):
    """Branch and bound (module docstring). Returns ``(alignment, objective, bound, nodes,
    proven)``."""
    rt, ct, rp, cp = inst.shape
    if not min(inst.shape):
        empty = np.zeros((0, 2), dtype=np.int64)
        return (empty, empty), 0.0, 0.0, 0, True
    # branch on the side with fewer column pairs
    swap = rt * rp < ct * cp
    work = inst.transposed() if swap else inst
    W = work.W
    rt, ct, rp, cp = W.shape
    deadline = Deadline(time_limit)
    Suf = suffix_scores(W)
    best_val = -1.0
    best_cols: list = []
    if incumbent is not None:
        inc = (incumbent[1], incumbent[0]) if swap else incumbent
        inc_cols = [tuple(p) for p in np.asarray(inc[1], dtype=np.int64).reshape(-1, 2)]
        best_cols = inc_cols
        best_val = _cols_value(W, inc_cols)
    nodes = 0
    pruned_max = -np.inf
    # node: (bound, j, l_next, fixed, cols)
    zero = np.zeros((rt, rp))
    root_b = dp_value(Suf[:, :, 0, 0])
    stack = [(root_b, 0, 0, zero, [])]
    proven = True
    while stack:
        if deadline.expired():
            proven = False
            break
        b, j, ln, fixed, cols = stack.pop()
        if b <= best_val + PRUNE_TOL:
            pruned_max = max(pruned_max, b)
            continue
        nodes += 1
        if j == ct or ln == cp:
            # a leaf: the bound is the value of these columns with the best rows
            if b > best_val:
                best_val, best_cols = b, cols
            continue
        children = []
        # skip true column j
        children.append((dp_value(fixed + Suf[:, :, j + 1, ln]), j + 1, ln, fixed, cols))
        for l in range(ln, cp):  # noqa: E741
            f2 = fixed + W[:, j, :, l]
            c2 = [*cols, (j, l)]
            val = dp_value(f2)
            if val > best_val:
                best_val, best_cols = val, c2
            children.append((dp_value(f2 + Suf[:, :, j + 1, l + 1]), j + 1, l + 1, f2, c2))
        children.sort(key=lambda c: c[0])
        for ch in children:
            if ch[0] <= best_val + PRUNE_TOL:
                pruned_max = max(pruned_max, ch[0])
            else:
                stack.append(ch)
    if proven:
        top = max(best_val, pruned_max) if np.isfinite(pruned_max) else best_val
    else:
        top = max([best_val, pruned_max] + [s[0] for s in stack])
    cols_a = np.asarray(best_cols, dtype=np.int64).reshape(-1, 2)
    M = _row_weights(W, best_cols)
    rows_a = dp_alignment(M)
    al = (cols_a, rows_a) if swap else (rows_a, cols_a)
    return al, best_val, float(top), nodes, proven


def _row_weights(W: np.ndarray, cols) -> np.ndarray:
    rt, _, rp, _ = W.shape
    M = np.zeros((rt, rp))
    for j, l in cols:  # noqa: E741
        M += W[:, j, :, l]
    return M


def _cols_value(W: np.ndarray, cols) -> float:
    return dp_value(_row_weights(W, cols))


# --------------------------------------------------------------------------------------------
# brute force
# --------------------------------------------------------------------------------------------
def monotone_matchings(n: int, m: int):
    """Every order-preserving one-to-one matching of ``0..n-1`` with ``0..m-1``."""
    for k in range(min(n, m) + 1):
        for a in itertools.combinations(range(n), k):
            for b in itertools.combinations(range(m), k):
                yield tuple(zip(a, b, strict=True))


def brute_force(inst: Mss2dInstance):
    """Every (row matching, column matching) pair; refuses more than :data:`BRUTE_MAX_PAIRS`
    row or column pairs. Returns ``(value, alignment)``."""
    rt, ct, rp, cp = inst.shape
    if rt * rp > BRUTE_MAX_PAIRS or ct * cp > BRUTE_MAX_PAIRS:
        raise ModelTooLargeError(f"brute force enumerates at most {BRUTE_MAX_PAIRS} row and "
                                 f"column pairs; this instance has {rt * rp} and {ct * cp}")
    W = inst.W
    best, best_al = 0.0, ((), ())
    col_sets = list(monotone_matchings(ct, cp))
    for rows in monotone_matchings(rt, rp):
        for cols in col_sets:
            v = 0.0
            for i, k in rows:
                for j, l in cols:  # noqa: E741
                    v += W[i, j, k, l]
            if v > best + 1e-12:
                best, best_al = v, (rows, cols)
    return best, tuple(np.asarray(p, dtype=np.int64).reshape(-1, 2) for p in best_al)


# --------------------------------------------------------------------------------------------
# the ILP
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Mss2dModel:
    model: LinearModel
    row_pairs: np.ndarray  # (Er, 2) true/pred row of each y column
    col_pairs: np.ndarray  # (Ec, 2)
    y0: int  # first y column
    z0: int  # first z column
    n_row_aux: int
    n_col_aux: int
    cells: np.ndarray  # (Ex, 4) i, j, k, l of each x column


def ilp_model(inst: Mss2dInstance) -> Mss2dModel:
    """The ILP of the module docstring: columns ``[x | y, row chain aux | z, column aux]``."""
    rt, ct, rp, cp = inst.shape
    W = inst.W
    rmod = monotone.ilp_model(monotone.MonotoneInstance.sequences(np.ones((rt, rp))))
    cmod = monotone.ilp_model(monotone.MonotoneInstance.sequences(np.ones((ct, cp))))
    ri = monotone.MonotoneInstance.sequences(np.ones((rt, rp))).pairs
    ci = monotone.MonotoneInstance.sequences(np.ones((ct, cp))).pairs
    row_pairs = np.stack([ri.rows, ri.cols], axis=1)
    col_pairs = np.stack([ci.rows, ci.cols], axis=1)
    ryid = np.full((rt, rp), -1, dtype=np.int64)
    ryid[ri.rows, ri.cols] = np.arange(len(row_pairs))
    czid = np.full((ct, cp), -1, dtype=np.int64)
    czid[ci.rows, ci.cols] = np.arange(len(col_pairs))
    cells = np.argwhere(W > 0)
    ex = len(cells)
    nr, nc = rmod.num_vars, cmod.num_vars
    y0, z0 = ex, ex + nr
    n = ex + nr + nc
    i, j, k, l = cells.T  # noqa: E741
    blocks, lo, hi = [], [], []
    # sum_k x[i,j,k,l] - z[j,l] <= 0 per (i, j, l)
    key = (i * ct + j) * cp + l
    uk, grp = np.unique(key, return_inverse=True)
    m1 = len(uk)
    ui, rem = np.divmod(uk, ct * cp)
    uj, ul = np.divmod(rem, cp)
    A1 = sp.csr_array((np.concatenate([np.ones(ex), -np.ones(m1)]),
                       (np.concatenate([grp, np.arange(m1)]),
                        np.concatenate([np.arange(ex), z0 + czid[uj, ul]]))), shape=(m1, n))
    # sum_l x[i,j,k,l] - y[i,k] <= 0 per (i, j, k)
    key = (i * ct + j) * rp + k
    uk, grp = np.unique(key, return_inverse=True)
    m2 = len(uk)
    ui, rem = np.divmod(uk, ct * rp)
    _, uk2 = np.divmod(rem, rp)
    A2 = sp.csr_array((np.concatenate([np.ones(ex), -np.ones(m2)]),
                       (np.concatenate([grp, np.arange(m2)]),
                        np.concatenate([np.arange(ex), y0 + ryid[ui, uk2]]))), shape=(m2, n))
    blocks += [A1, A2]
    lo += [np.full(m1 + m2, -np.inf)]
    hi += [np.zeros(m1 + m2)]
    Ar = sp.hstack([sp.csr_array((rmod.num_rows, ex)), rmod.A.to_scipy(),
                    sp.csr_array((rmod.num_rows, nc))], format="csr")
    Ac = sp.hstack([sp.csr_array((cmod.num_rows, ex + nr)), cmod.A.to_scipy()], format="csr")
    blocks += [Ar, Ac]
    lo += [np.asarray(rmod.row_lo), np.asarray(cmod.row_lo)]
    hi += [np.asarray(rmod.row_hi), np.asarray(cmod.row_hi)]
    A = sp.vstack(blocks, format="csr")
    c = np.concatenate([W[i, j, k, l], np.zeros(nr + nc)])
    integ = np.concatenate([np.zeros(ex, dtype=bool), np.asarray(rmod.integrality),
                            np.asarray(cmod.integrality)])
    model = LinearModel(c=c, A=A, row_lo=np.concatenate(lo), row_hi=np.concatenate(hi),
                        col_lo=np.zeros(n), col_hi=np.ones(n), integrality=integ,
                        name=f"2d-mss {rt}x{ct} vs {rp}x{cp}")
    return Mss2dModel(model, row_pairs, col_pairs, y0, z0, nr - len(row_pairs),
                      nc - len(col_pairs), cells)


def _decode(built: Mss2dModel, x: np.ndarray):
    nr = len(built.row_pairs)
    nc = len(built.col_pairs)
    y = x[built.y0:built.y0 + nr] > 0.5
    z = x[built.z0:built.z0 + nc] > 0.5
    rows = built.row_pairs[y]
    cols = built.col_pairs[z]
    return (rows[np.argsort(rows[:, 0], kind="stable")], cols[np.argsort(cols[:, 0],
                                                                          kind="stable")])


# --------------------------------------------------------------------------------------------
# solve
# --------------------------------------------------------------------------------------------
def solve(inst: Mss2dInstance, method: str = "bnb", *, incumbent=None, bound: float | None = None,
          backend: str = "highs", time_limit: float | None = None, seed: int = 0) -> Result:
    """Solve ``inst`` exactly with ``method`` (``bnb``, ``ilp``, ``brute``) and return a verified
    :class:`~exactalign.core.result.Result` (alignment ``(rows, cols)``). ``incumbent``: a known
    alignment (the factored one) the branch and bound starts from, and the answer of an ILP
    stopped without a better one; ``bound``: a known upper bound (GriTS's), which
    the answer's bound never exceeds."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} for the 2D-MSS; choose one of "
                         + ", ".join(METHODS))
    t0 = time.perf_counter()
    # each method's own work first, the Result it comes to last
    if method == "brute":
        _, al = brute_force(inst)
        obj = check(inst, al)
        val, top, nodes, proven, details = obj, obj, None, True, None
    elif method == "bnb":
        al, val, top, nodes, proven = bnb(inst, incumbent, time_limit=time_limit)
        obj = check(inst, al)
        details = {"algorithm": "branch and bound over column alignments, row DP bound"}
    else:
        given = None  # the incumbent, counted: the answer of a solve stopped without one
        if incumbent is not None:
            al = tuple(np.asarray(a, dtype=np.int64).reshape(-1, 2) for a in incumbent)
            given = (al, check(inst, al))
        built = ilp_model(inst)
        options = SolveOptions(time_limit=time_limit, seed=seed)
        out = solve_model(built.model, backend, options)
        res = verified_result(out, built.model, decode=lambda x: _decode(built, x),
                              check=lambda al: check(inst, al), method=method, seed=seed,
                              details={"rows": built.model.num_rows,
                                       "cols": built.model.num_vars})
        if res.status in (Status.TIME_LIMIT, Status.FEASIBLE):
            # stopped early: keep the given incumbent when the solver has none (or a worse
            # one), and the given bound when it has none (or a looser one)
            if given is not None and (res.objective is None or given[1] > res.objective):
                res = res.replace(objective=given[1], alignment=given[0])
            if bound is not None and (res.bound is None or bound < res.bound):
                res = res.replace(bound=max(bound, res.objective or 0.0))
        return res.replace(wall_time=time.perf_counter() - t0)
    if not close(obj, val):
        raise InfeasibleAlignmentError(f"branch and bound: its value {val!r} differs from "
                                       f"its alignment's recomputed {obj!r}")
    if bound is not None:
        top = min(top, max(bound, obj))
    top = max(top, obj)
    status = Status.OPTIMAL if proven and close(obj, top) else Status.TIME_LIMIT
    return Result(status, obj, top, al, method, time.perf_counter() - t0, nodes=nodes,
                  details=details)
