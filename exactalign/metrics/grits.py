"""GriTS (Smock, Pesala & Abraham, ICDAR 2023): grid table similarity, factored and exact.

Two tables are compared as matrices of grid cells (:mod:`exactalign.io.tables`): ``top`` (each
position's span relative to it), ``con`` (text) and ``loc`` (box). A *substructure* of a matrix
keeps a subsequence of its rows and one of its columns; the most similar two-dimensional
substructures (2D-MSS) of a true matrix ``A`` and a predicted one ``B`` are two such with equal
shapes maximising ``sum f(A'[i, j], B'[i, j])`` -- a pair of order-preserving alignments, one of
rows, one of columns (:mod:`exactalign.problems.mss2d`). With ``tp`` that sum, ``P = tp / |B|``,
``R = tp / |A|`` (``|.|``: the number of grid positions) and ``GriTS = 2PR / (P + R)``.

Cell similarities ``f``: ``top`` and ``loc`` the intersection over union of two boxes (zero when
they only touch or the intersection is empty), ``con`` ``2 LCS(a, b) / (|a| + |b|)`` of two strings
(1 when equal, so two empty strings score 1), LCS the longest common subsequence of characters.

The factored solution (:func:`factored`, ``method="factored"``) is grits-metric 0.7.0's
``factored_2dmss`` (the reference implementation here; microsoft/table-transformer's
``src/grits.py`` @16d124f is the same algorithm without the two shortcuts below), replicated to the
bit: rows are aligned by a dynamic program whose reward for a (true row, predicted row) pair is
the best 1-D alignment of their cells (another dynamic program), columns likewise on the
transposes; ``tp`` is summed over the cross product of the two alignments. The upper bound it
reports is ``min(row score, column score)``. Ties: a diagonal step first, then skipping a true
row (column), then a predicted one, on exact float equality; sums are accumulated in the
package's order, so every value equals the package's exactly. Two shortcuts of grits-metric
0.7.0 (``shortcuts=True``, the default):

1. equal shapes: if the identity alignment scores ``tp >= (max(shape) - 1) * min(shape)`` it is
   returned, with bound ``tp``. This one is proven: any other substructure drops a row or a
   column and so has at most that many positions, each similarity at most 1.
2. equal column counts: after the row alignment, if its rows with all columns (the identity
   column alignment) score ``tp >= rows * columns - 1``, that is returned, with bound ``tp``.
   Also proven (the package says less): each aligned row pair then scores at least
   ``columns - 1`` on the identity, which no other 1-D alignment of the pair (at most
   ``columns - 1`` cells) beats, so the row score equals ``tp``, and the row score bounds
   every 2D-MSS. The tests check both on random grids against the exact optimum.

:func:`score` runs the factored solution and/or the exact 2D-MSS and builds a :class:`GritsReport`
(one :class:`Side` per variant and method).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import InputError, ModelTooLargeError
from ..core.result import Result, Status
from ..io.tables import Table

VARIANTS = ("top", "con", "loc")
METHODS = ("exact", "factored", "both")

#: The largest (true positions) x (predicted positions) accepted: GriTS's dynamic programs and
#: the exact solver hold a few dense float arrays of that size (20M: about 160 MB each).
MAX_POSITION_PAIRS = 20_000_000


# --------------------------------------------------------------------------------------------
# cell similarities
# --------------------------------------------------------------------------------------------
def lcs_length(a: str, b: str) -> int:
    """Length of the longest common subsequence of the characters of ``a`` and ``b``
    (bit-parallel: Allison & Dix 1986, in Hyyro's form, one big-integer step per character)."""
    if len(a) < len(b):
        a, b = b, a
    m = len(b)
    if m == 0:
        return 0
    masks: dict[str, int] = {}
    for i, ch in enumerate(b):
        masks[ch] = masks.get(ch, 0) | (1 << i)
    full = (1 << m) - 1
    v = full
    for ch in a:
        u = v & masks.get(ch, 0)
        v = ((v + u) | (v - u)) & full
    return m - bin(v).count("1")


def lcs_similarity(a: str, b: str) -> float:
    """``1.0`` for equal strings, else ``2 LCS / (|a| + |b|)`` (grits-metric's arithmetic)."""
    if a == b:
        return 1.0
    return 2 * lcs_length(a, b) / (len(a) + len(b))


def iou_matrix(boxes_a, boxes_b) -> np.ndarray:
    """Intersection over union of every box of ``boxes_a`` with every box of ``boxes_b``
    (``[x0, y0, x1, y1]``), with grits-metric's arithmetic: areas ``(x1 - x0) * (y1 - y0)``, the
    overlap's width ``min(x1) - max(x0)`` (zero unless the boxes overlap or touch on both axes),
    ``0`` for an empty intersection, else ``inter / (area_a + area_b - inter)``."""
    a = np.asarray(boxes_a, dtype=np.float64).reshape(-1, 4)[:, None, :]
    b = np.asarray(boxes_b, dtype=np.float64).reshape(-1, 4)[None, :, :]
    area_a = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
    area_b = (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])
    ox = (a[..., 0] <= b[..., 2]) & (b[..., 0] <= a[..., 2])
    oy = (a[..., 1] <= b[..., 3]) & (b[..., 1] <= a[..., 3])
    w = np.where(ox, np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]), 0.0)
    h = np.where(oy, np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]), 0.0)
    inter = w * h
    union = area_a + area_b - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(inter == 0, 0.0, inter / np.where(inter == 0, 1.0, union))
    return out


def reward_tensor(true_grid, pred_grid, variant: str) -> np.ndarray:
    """``W[i, j, k, l]``: the similarity of true position ``(i, j)`` and predicted ``(k, l)``,
    computed once per distinct pair of values."""
    rt, ct = len(true_grid), len(true_grid[0]) if true_grid else 0
    rp, cp = len(pred_grid), len(pred_grid[0]) if pred_grid else 0

    def index(grid):
        seen: dict = {}
        idx = np.array([[seen.setdefault(v, len(seen)) for v in row] for row in grid],
                       dtype=np.int64).reshape(len(grid), -1)
        return list(seen), idx

    if rt * ct * rp * cp > MAX_POSITION_PAIRS:
        raise ModelTooLargeError(
            f"GriTS compares every true grid position with every predicted one: {rt}x{ct} "
            f"against {rp}x{cp} positions is {rt * ct * rp * cp:,} pairs, more than "
            f"{MAX_POSITION_PAIRS:,}")
    ut, it = index(true_grid)
    up, ip = index(pred_grid)
    if not ut or not up:
        return np.zeros((rt, ct, rp, cp))
    if variant == "con":
        sim = np.array([[lcs_similarity(a, b) for b in up] for a in ut], dtype=np.float64)
    elif variant in ("top", "loc"):
        sim = iou_matrix(ut, up)
    else:
        raise InputError(f"unknown GriTS variant {variant!r}; choose one of "
                         + ", ".join(VARIANTS))
    return sim[it[:, :, None, None], ip[None, None, :, :]]


# --------------------------------------------------------------------------------------------
# the factored 2D-MSS of grits-metric 0.7.0
# --------------------------------------------------------------------------------------------
def inner_scores(W: np.ndarray) -> np.ndarray:
    """``S[i, k]``: the best 1-D alignment of true row ``i``'s cells with predicted row ``k``'s
    (grits-metric's ``_align_1d``, for every row pair at once: the same sums and maxima)."""
    rt, ct, rp, cp = W.shape
    S = np.zeros((rt, rp, ct + 1, cp + 1))
    for j in range(1, ct + 1):
        for l in range(1, cp + 1):  # noqa: E741
            diag = S[:, :, j - 1, l - 1] + W[:, j - 1, :, l - 1]
            S[:, :, j, l] = np.maximum(np.maximum(diag, S[:, :, j - 1, l]), S[:, :, j, l - 1])
    return S[:, :, ct, cp]


def outer_alignment(R: np.ndarray) -> tuple[list[int], list[int], float]:
    """The dynamic program of grits-metric's ``_align_2d_outer`` over rewards ``R`` (true x
    predicted), with its tie-breaking (diagonal, then up, then left) and traceback."""
    n, m = R.shape
    scores = [[0.0] * (m + 1) for _ in range(n + 1)]
    ptr = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        ptr[i][0] = -1
    for k in range(1, m + 1):
        ptr[0][k] = 1
    rows = R.tolist()
    for i in range(1, n + 1):
        prev, cur, rw, pi = scores[i - 1], scores[i], rows[i - 1], ptr[i]
        for k in range(1, m + 1):
            diag = prev[k - 1] + rw[k - 1]
            up = prev[k]
            left = cur[k - 1]
            best = max(diag, up, left)
            cur[k] = best
            pi[k] = 0 if diag == best else (-1 if up == best else 1)
    a, b = [], []
    i, k = n, m
    while not (i == 0 and k == 0):
        p = ptr[i][k]
        if p == -1:
            i -= 1
        elif p == 1:
            k -= 1
        else:
            i -= 1
            k -= 1
            a.append(i)
            b.append(k)
    return a[::-1], b[::-1], scores[n][m]


@dataclass(frozen=True)
class Factored:
    """The factored solution: the row and column alignments (``(true, predicted)`` index
    lists), ``tp``, the bound grits-metric reports, the always valid ``min(row score, column
    score)`` and which shortcut (if any) ended it."""

    rows: tuple
    cols: tuple
    tp: float
    package_bound: float
    bound: float
    shortcut: str | None
    wall_time: float


def factored(W: np.ndarray, *, shortcuts: bool = True) -> Factored:
    """grits-metric 0.7.0's ``factored_2dmss`` on the reward tensor ``W`` (module docstring);
    ``shortcuts=False``: table-transformer's, without the two early exits."""
    t0 = time.perf_counter()
    rt, ct, rp, cp = W.shape
    if shortcuts and (rt, ct) == (rp, cp):
        tp = 0.0
        for v in np.einsum("ijij->ij", W).reshape(-1).tolist():
            tp += v
        if tp >= (max(rt, ct) - 1) * min(rt, ct):
            ident = (tuple(range(rt)), tuple(range(rt)))
            identc = (tuple(range(ct)), tuple(range(ct)))
            return Factored(_pairs(*ident), _pairs(*identc), tp, tp, tp, "equal shapes",
                            time.perf_counter() - t0)
    tr, pr, row_score = outer_alignment(inner_scores(W))
    col_score = None
    if shortcuts and ct == cp:
        tp = 0.0
        for a, b in zip(tr, pr, strict=True):
            for v in W[a, :, b, :].diagonal().tolist():
                tp += v
        if tp >= len(tr) * ct - 1:
            col_score = outer_alignment(inner_scores(W.transpose(1, 0, 3, 2)))[2]
            return Factored(_pairs(tr, pr), _pairs(range(ct), range(ct)), tp, tp,
                            min(row_score, col_score), "equal column counts",
                            time.perf_counter() - t0)
    tc, pc, col_score = outer_alignment(inner_scores(W.transpose(1, 0, 3, 2)))
    tp = 0.0
    for a, b in zip(tr, pr, strict=True):
        row = W[a, :, b, :]
        for j, l in zip(tc, pc, strict=True):  # noqa: E741
            tp += float(row[j, l])
    bound = min(row_score, col_score)
    return Factored(_pairs(tr, pr), _pairs(tc, pc), tp, bound, bound, None,
                    time.perf_counter() - t0)


def _pairs(a, b) -> tuple:
    return tuple(zip((int(x) for x in a), (int(y) for y in b), strict=True))


def fscore(tp: float, n_true: int, n_pred: int) -> tuple[float, float, float]:
    """``(F, P, R)`` as grits-metric's ``compute_fscore``: ``P = 1`` with no predicted
    position, ``R = 1`` with no true one, ``F = 0`` when ``P + R = 0``."""
    precision = tp / n_pred if n_pred > 0 else 1.0
    recall = tp / n_true if n_true > 0 else 1.0
    f = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return f, precision, recall


# --------------------------------------------------------------------------------------------
# scoring two tables
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Side:
    """One variant by one method: ``tp``, P/R/F, the bound on ``tp`` and its F, the status and
    the solve (a verified :class:`~exactalign.core.result.Result`)."""

    variant: str
    method: str
    tp: float
    precision: float
    recall: float
    f1: float
    bound: float | None
    bound_f1: float | None
    result: Result
    package_bound: float | None = None
    shortcut: str | None = None


@dataclass(frozen=True)
class GritsReport:
    """GriTS of one (true, predicted) table pair: sizes and one :class:`Side` per (variant,
    method) computed, in variant order, factored first."""

    name: str
    true_shape: tuple[int, int]
    pred_shape: tuple[int, int]
    sides: tuple[Side, ...]

    def get(self, variant: str, method: str) -> Side | None:
        return next((s for s in self.sides if s.variant == variant and s.method == method),
                    None)


def variants_of(variant: str, gold: Table, pred: Table) -> tuple[str, ...]:
    """The variants ``variant`` (``top``, ``con``, ``loc`` or ``all``) names for this pair:
    ``all`` takes ``loc`` only when both tables have boxes; ``loc`` asked for without boxes is
    an error."""
    if variant == "all":
        return ("top", "con") + (("loc",) if gold.has_boxes and pred.has_boxes else ())
    if variant not in VARIANTS:
        raise InputError(f"unknown GriTS variant {variant!r}; choose one of "
                         + ", ".join((*VARIANTS, "all")))
    if variant == "loc":
        for t in (gold, pred):
            if not t.has_boxes:
                raise InputError(f"table {t.name}: GriTS-Loc needs cell boxes and this table "
                                 "has none", path=t.path)
    return (variant,)


def score(gold: Table, pred: Table, *, variant: str = "all", method: str = "both",
          shortcuts: bool = True, exact_method: str = "bnb", backend: str = "highs",
          time_limit: float | None = None) -> GritsReport:
    """GriTS of ``pred`` against ``gold``: the factored solution (grits-metric 0.7.0) and/or the
    exact 2D-MSS (:func:`exactalign.problems.mss2d.solve`, ``exact_method``), per variant."""
    from ..problems import mss2d

    if method not in METHODS:
        raise InputError(f"unknown method {method!r}; choose one of " + ", ".join(METHODS))
    n_true, n_pred = gold.size, pred.size
    # the similarities and the factored solution of every variant first
    prep = []
    for v in variants_of(variant, gold, pred):
        W = reward_tensor(gold.grid(v), pred.grid(v), v)
        fac = factored(W, shortcuts=shortcuts)
        prep.append((v, W, fac, fscore(fac.tp, n_true, n_pred),
                     fscore(fac.package_bound, n_true, n_pred)[0]))
    # then the solves: the factored alignment counted, the exact one found
    solved = []
    for _, W, fac, _, _ in prep:
        inst = mss2d.Mss2dInstance(W)
        fres = eres = None
        if method in ("factored", "both"):
            al = (np.array(fac.rows, dtype=np.int64).reshape(-1, 2),
                  np.array(fac.cols, dtype=np.int64).reshape(-1, 2))
            obj = mss2d.check(inst, al)
        if method in ("exact", "both"):
            eres = mss2d.solve(inst, exact_method, incumbent=(fac.rows, fac.cols),
                               bound=fac.bound, backend=backend, time_limit=time_limit)
        if method in ("factored", "both"):
            fres = Result(Status.FEASIBLE, obj, fac.bound, al, "factored", fac.wall_time,
                          details={"shortcut": fac.shortcut,
                                   "package_bound": fac.package_bound})
        solved.append((fres, eres))
    # then their scores
    sides = []
    for (v, _, fac, (f, p, r), bf), (fres, eres) in zip(prep, solved, strict=True):
        if fres is not None:
            sides.append(Side(v, "factored", fac.tp, p, r, f, fac.package_bound, bf, fres,
                              fac.package_bound, fac.shortcut))
        if eres is not None:
            f, p, r = fscore(eres.objective, n_true, n_pred)
            bf = None if eres.bound is None else fscore(eres.bound, n_true, n_pred)[0]
            sides.append(Side(v, "exact", eres.objective, p, r, f, eres.bound, bf, eres))
    return GritsReport(gold.name, (gold.n_rows, gold.n_cols), (pred.n_rows, pred.n_cols),
                       tuple(sides))


def pair_tables(gold: dict, pred: dict, gold_path=None, pred_path=None) -> list[tuple]:
    """``(gold, pred)`` table pairs by name; a file of one table pairs with a file of one
    table whatever their names. A gold table without a prediction (or the reverse) is an
    error naming it."""
    if len(gold) == 1 and len(pred) == 1:
        return [(next(iter(gold.values())), next(iter(pred.values())))]
    for name in gold:
        if name not in pred:
            raise InputError(f"table {name}: no predicted table of that name", path=pred_path)
    for name in pred:
        if name not in gold:
            raise InputError(f"table {name}: no gold table of that name", path=gold_path)
    return [(gold[n], pred[n]) for n in gold]


@dataclass(frozen=True)
class CorpusReport:
    """GriTS of every table pair of two files: the per-table reports, in gold order, and the
    corpus scores per ``(variant, method)``: micro (``tp`` and positions summed over the tables,
    grits-metric's ``compute_grits``) and macro (the mean of the tables' P, R and F,
    ``compute_mean_grits_per_sample``)."""

    gold: str
    pred: str
    tables: tuple[GritsReport, ...]
    micro: dict  # (variant, method) -> (f, p, r, tp, n_true, n_pred)
    macro: dict  # (variant, method) -> (f, p, r)
    #: what the command shows, built once by :func:`report` (the command only formats it),
    #: per score name ``VARIANT/METHOD``: the micro P/R/F with counts ``tp``, ``true_cells``,
    #: ``pred_cells`` (``overall``), the macro P/R/F (``macro_prf``), the tables' solves
    #: combined (``solves``)
    overall: dict = field(default_factory=dict)
    macro_prf: dict = field(default_factory=dict)
    solves: dict = field(default_factory=dict)
    #: one row per table: ``id``, ``scores``, ``solves``, ``true_shape``, ``pred_shape``,
    #: ``bounds``, ``shortcut`` (module :mod:`exactalign.cli.grits`)
    documents: tuple = ()
    #: per variant, the tables where the factored solution is below the proven optimum
    gaps: dict = field(default_factory=dict)
    #: every solve, ``TABLE:VARIANT/METHOD`` -> its Result (the command's exit status)
    results: dict = field(default_factory=dict)

    @property
    def keys(self) -> list[tuple[str, str]]:
        return list(self.micro)


def score_files(gold_path, pred_path, *, variant: str = "all", method: str = "both",
                shortcuts: bool = True, exact_method: str = "bnb", backend: str = "highs",
                time_limit: float | None = None) -> CorpusReport:
    """GriTS of the tables of ``pred_path`` against those of ``gold_path`` (any format of
    :func:`exactalign.io.tables.read_tables`, paired by name): the Python face of ``exactalign
    grits``. ``time_limit`` applies to each exact solve."""
    from ..io.tables import read_tables

    gold, pred = read_tables(gold_path), read_tables(pred_path)
    pairs = pair_tables(gold, pred, gold_path, pred_path)
    reports = tuple(score(a, b, variant=variant, method=method, shortcuts=shortcuts,
                          exact_method=exact_method, backend=backend, time_limit=time_limit)
                    for a, b in pairs)
    micro: dict = {}
    per: dict = {}
    for (a, b), rep in zip(pairs, reports, strict=True):
        for s in rep.sides:
            key = (s.variant, s.method)
            tp, nt, npred = micro[key][3:] if key in micro else (0.0, 0, 0)
            tp, nt, npred = tp + s.tp, nt + a.size, npred + b.size
            micro[key] = (*fscore(tp, nt, npred), tp, nt, npred)
            per.setdefault(key, []).append((s.f1, s.precision, s.recall))
    macro = {k: tuple(sum(x[i] for x in v) / len(v) for i in range(3)) for k, v in per.items()}
    return report(CorpusReport(str(gold_path), str(pred_path), reports, micro, macro))


def _name(side: Side) -> str:
    return f"{side.variant}/{side.method}"


def report(rep: CorpusReport) -> CorpusReport:
    """``rep`` (its tables scored) with what the command shows filled in
    (:class:`CorpusReport`'s fields from :attr:`~CorpusReport.overall` on): the corpus
    scores and gaps first, then the tables' rows and the combined solves."""
    from dataclasses import replace

    from ..core.result import combine_results
    from .aggregation import PRECISION_FIRST, prf_dict

    def prf(p, r, f, counts=None):
        out = prf_dict(r, p, f, PRECISION_FIRST)
        if counts is not None:
            out["counts"] = counts
        return out

    overall = {f"{v}/{m}": prf(p, r, f, {"tp": tp, "true_cells": nt, "pred_cells": npred})
               for (v, m), (f, p, r, tp, nt, npred) in rep.micro.items()}
    macro = {f"{v}/{m}": prf(p, r, f) for (v, m), (f, p, r) in rep.macro.items()}
    gaps: dict = {}
    for t in rep.tables:
        for s in t.sides:
            if s.method != "factored":
                continue
            ex = t.get(s.variant, "exact")
            gaps.setdefault(s.variant, [])
            if ex is not None and ex.tp > s.tp + 1e-9 * max(1.0, ex.tp):
                gaps[s.variant].append(t.name)
    scores = [{_name(s): prf(s.precision, s.recall, s.f1, {"tp": s.tp}) for s in t.sides}
              for t in rep.tables]
    # what goes down to the solvers' layer last: the tables' solves and the combined ones
    documents = []
    for t, sc in zip(rep.tables, scores, strict=True):
        documents.append({
            "id": t.name,
            "scores": sc,
            "solves": {_name(s): s.result.to_dict() | {
                "alignment": {"rows": s.result.alignment[0].tolist(),
                              "columns": s.result.alignment[1].tolist()}}
                for s in t.sides},
            "true_shape": list(t.true_shape), "pred_shape": list(t.pred_shape),
            "bounds": {_name(s): {"tp": s.bound, "f1": s.bound_f1} for s in t.sides},
            "shortcut": {s.variant: s.shortcut for s in t.sides if s.method == "factored"},
        })
    solves = {f"{v}/{m}": combine_results([s.result for t in rep.tables for s in t.sides
                                           if (s.variant, s.method) == (v, m)], m).to_dict()
              for v, m in rep.micro}
    results = {f"{t.name}:{_name(s)}": s.result for t in rep.tables for s in t.sides}
    return replace(rep, overall=overall, macro_prf=macro, solves=solves,
                   documents=tuple(documents), gaps=gaps, results=results)
