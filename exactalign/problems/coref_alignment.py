r"""The mention alignment that maximises a coreference metric: key and response mentions paired
1:1 over the pairs a matching allows, chosen so that MUC, B³, CEAFe, CEAFm or LEA -- computed on
the aligned mentions -- has the highest F1 (the exact counterpart of scorers that first align
mentions by similarity and then compute the metric on top, such as the CorefUD scorer's staged
alignment, :mod:`exactalign.metrics.coref.corefud`).

The instance (:class:`MentionAlignmentInstance`)
------------------------------------------------
Key mentions ``0..n_key-1`` in key clusters ``K_a`` (tuples of mention indices), response
mentions ``0..n_response-1`` in response clusters ``R_b``, and the *allowed pairs* ``(k, r)``
(``rows``, ``cols``) with a similarity ``weight`` and a ``stage`` (what the heuristic uses). A
mention may lie in two clusters of its side; where one cluster is needed it is the *last* one
holding it (``last(k)``, ``last(r)``: the CorefUD and CoNLL scorers' dicts).

The metric on an alignment (:func:`evaluate`, the checker)
----------------------------------------------------------
An alignment ``π`` is a set of allowed pairs, no mention in two. A key mention counts as the
response mention it is paired with and vice versa; an unpaired mention is twinless. With
``n(a, b)`` the number of mentions of ``K_a`` paired into ``last = R_b`` and ``n'(b, a)`` the
number of mentions of ``R_b`` paired with a mention whose last key cluster is ``K_a``
(``n = n'`` when no mention lies in two clusters):

* MUC: recall ``Σ_a (Σ_b n(a,b) − #{b : n(a,b) > 0}) / Σ_a (|K_a| − 1)``, precision the same
  on ``n'``;
* B³: recall ``Σ_a Σ_b n(a,b)² / |K_a| / Σ_a |K_a|``, precision on ``n'`` over ``|R_b|``;
* LEA: recall ``Σ_a |K_a| · Σ_b C(n(a,b), 2) / C(|K_a|, 2) / Σ_a |K_a|``, a singleton ``K_a``
  resolved (1) when its mention is paired into a singleton response cluster; precision mirrored;
* CEAFm / CEAFe: ``o(a, b)`` the mentions of ``K_a`` paired with a mention of ``R_b`` (any
  cluster holding it); the best 1:1 entity alignment ``σ`` of ``Σ φ(a, σ(a))``, ``φ = o``
  (CEAFm; denominators ``Σ|K_a|``, ``Σ|R_b|``) or ``2o/(|K_a| + |R_b|)`` (CEAFe; the numbers of
  clusters).

F1 is ``2PR/(P+R)`` (0 when both are 0; a ratio with denominator 0 is 0). Every denominator is
fixed by the clusters; only the numerators depend on ``π``.

The model (:func:`ilp_model`, :func:`solve`)
--------------------------------------------
Binary ``x_e`` per allowed pair, ``Σ x ≤ 1`` per mention. The numerators are linear in ``x``
and auxiliary variables, per *cell* ``(a, b)`` of the pairs that count towards ``n(a, b)``
(``n'``'s cells share the variables where they hold the same pairs):

* MUC: ``y_ab ∈ [0, 1]`` with ``y_ab ≥ x_e`` for each pair of the cell: numerator
  ``Σ x − Σ y`` (maximising pushes ``y`` down to ``[n(a,b) > 0]``);
* B³ and LEA: binaries ``z_ab,1 ≥ z_ab,2 ≥ ... ≥ z_ab,J`` with ``Σ_j z_ab,j = n(a, b)`` (so
  ``z_ab,j = [n(a,b) ≥ j]``, ``J`` the most pairs the cell can hold), ``n² = Σ (2j − 1) z_j``
  and ``C(n, 2) = Σ (j − 1) z_j``; LEA's singletons are sums of ``x`` directly;
* CEAF: binary ``s_ab`` (a 1:1 entity alignment) and ``t_e,ab ∈ [0, 1]`` with ``t ≤ x_e``,
  and per mention and cell ``Σ t ≤ s_ab``: ``Σ φ_ab t`` is the entity alignment's similarity,
  so the model chooses the mention and the entity alignments together.

With ``u = pn(x)`` and ``v = rn(x)`` the precision and recall numerators and ``pd``, ``rd`` their
denominators, ``F1 = 2 / (pd/u + rd/v)``.

* When ``u`` is a multiple of ``v`` (CEAF always: one similarity; MUC when no mention lies in two
  clusters) F1 is linear in ``v``: one MILP maximises it.
* Otherwise (B³, LEA) F1 is maximised by minimising the convex ``g = pd/u + rd/v`` by
  outer approximation (Kelley's cutting planes): the MILP minimises ``α + β`` subject to
  tangents ``α ≥ pd (2/t − u/t²)`` at points ``t`` met so far (and ``β`` likewise in ``v``),
  and ``u ≥ δ_u``, ``v ≥ δ_v`` (the smallest positive values the numerators can take: an
  alignment with ``u = 0`` or ``v = 0`` has F1 0). Tangents under-estimate ``g``, so the MILP's
  optimum (or its dual bound, when cut short) is a lower bound ``L`` on ``g`` and ``2/L`` an
  upper bound on F1; its solution is a feasible alignment. A tangent is added at each new
  ``(u, v)`` until ``g`` of the best alignment meets ``L``: finitely many steps, as ``u, v``
  take finitely many values (an iterate met again satisfies its own tangents, which closes the
  gap). When no alignment has ``u, v > 0`` the optimum is 0.

Every answer is re-verified: the alignment is checked (allowed, 1:1), the metric recomputed by
:func:`evaluate` (independent of the model), and the model's ``u(x)``, ``v(x)`` must equal the
recomputed numerators. The result (:class:`~exactalign.core.result.Result`) carries the F1 as
``objective``, the bound, the status, and in ``details`` the counts, the iterations and the MILP
nodes. :func:`brute_force` enumerates every alignment of a tiny instance; :func:`stagewise` is
the similarity heuristic (stage by stage a maximum-weight assignment, as such scorers align).
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core.errors import (
    InfeasibleAlignmentError,
    InputError,
    ModelTooLargeError,
    VerificationError,
)
from ..core.model import MAXIMIZE, MINIMIZE, LinearModel
from ..core.result import Result, Status, close
from ..core.solve import SolveOptions, remaining, route_details, solve_model
from ..core.sparse import Csr

#: The metrics whose F1 an alignment can maximise.
METRICS = ("muc", "bcub", "ceafe", "ceafm", "lea")
#: Largest number of allowed pairs :func:`brute_force` enumerates.
BRUTE_MAX_PAIRS = 16
#: Relative tolerance on ``g = pd/u + rd/v`` at which the outer approximation stops.
OA_TOL = 1e-9
#: Most MILPs one outer approximation solves (each adds a tangent; far more than ever needed).
OA_MAX_ITER = 200


# --------------------------------------------------------------------------------------------
# the instance
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class MentionAlignmentInstance:
    """Key and response clusters of mention indices and the allowed pairs (module docstring)."""

    n_key: int
    n_response: int
    key_clusters: tuple[tuple[int, ...], ...]
    response_clusters: tuple[tuple[int, ...], ...]
    rows: np.ndarray
    cols: np.ndarray
    weight: np.ndarray
    stage: np.ndarray

    def __post_init__(self):
        put = object.__setattr__
        put(self, "key_clusters", tuple(tuple(int(m) for m in c) for c in self.key_clusters))
        put(self, "response_clusters",
            tuple(tuple(int(m) for m in c) for c in self.response_clusters))
        rows = np.asarray(self.rows, dtype=np.int64).reshape(-1)
        cols = np.asarray(self.cols, dtype=np.int64).reshape(-1)
        weight = np.asarray(self.weight, dtype=np.float64).reshape(-1)
        stage = np.asarray(self.stage, dtype=np.int64).reshape(-1)
        if not (rows.shape == cols.shape == weight.shape == stage.shape):
            raise InputError("mention alignment: rows, cols, weight and stage need one entry "
                             "per allowed pair")
        for side, n, clusters in (("key", self.n_key, self.key_clusters),
                                  ("response", self.n_response, self.response_clusters)):
            seen = set()
            for c in clusters:
                if not c:
                    raise InputError(f"mention alignment: an empty {side} cluster")
                if len(set(c)) != len(c):
                    raise InputError(f"mention alignment: a {side} cluster repeats a mention")
                if min(c) < 0 or max(c) >= n:
                    raise InputError(f"mention alignment: a {side} mention outside 0..{n - 1}")
                seen.update(c)
            if len(seen) != n:
                raise InputError(f"mention alignment: {n - len(seen)} {side} mention(s) in no "
                                 "cluster")
        if len(rows) and (rows.min() < 0 or rows.max() >= self.n_key or cols.min() < 0
                          or cols.max() >= self.n_response):
            raise InputError("mention alignment: an allowed pair names a mention that is not "
                             "there")
        if len(set(zip(rows.tolist(), cols.tolist(), strict=True))) != len(rows):
            raise InputError("mention alignment: an allowed pair is listed twice")
        if not np.all(np.isfinite(weight)):
            raise InputError("mention alignment: pair weights must be finite")
        for name, a in (("rows", rows), ("cols", cols), ("weight", weight), ("stage", stage)):
            a.flags.writeable = False
            put(self, name, a)

    @property
    def num_pairs(self) -> int:
        return len(self.rows)

    def key_last(self) -> list[int]:
        return _last(self.key_clusters, self.n_key)

    def response_last(self) -> list[int]:
        return _last(self.response_clusters, self.n_response)


def _last(clusters, n: int) -> list[int]:
    out = [-1] * n
    for ci, c in enumerate(clusters):
        for m in c:
            out[m] = ci
    return out


def as_alignment(pairs) -> np.ndarray:
    """An ``(m, 2)`` int array of ``(key, response)`` pairs, sorted."""
    a = np.asarray(sorted((int(k), int(r)) for k, r in pairs), dtype=np.int64).reshape(-1, 2)
    a.flags.writeable = False
    return a


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
    from . import bipartite

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
# the model
# --------------------------------------------------------------------------------------------
class _Builder:
    """Columns and rows of a sparse model, added one at a time."""

    def __init__(self):
        self.lo, self.hi, self.integer, self.names = [], [], [], []
        self.r_i, self.r_j, self.r_v, self.row_lo, self.row_hi = [], [], [], [], []

    def var(self, name: str, lo=0.0, hi=1.0, integer=False) -> int:
        self.lo.append(lo)
        self.hi.append(hi)
        self.integer.append(integer)
        self.names.append(name)
        return len(self.lo) - 1

    def row(self, coefs: dict[int, float], lo=-np.inf, hi=np.inf) -> None:
        i = len(self.row_lo)
        for j, v in coefs.items():
            if v:
                self.r_i.append(i)
                self.r_j.append(j)
                self.r_v.append(v)
        self.row_lo.append(lo)
        self.row_hi.append(hi)

    @property
    def n(self) -> int:
        return len(self.lo)


@dataclass(frozen=True, eq=False)
class Formulation:
    """The alignment model of one metric without objective: its columns and rows, the
    precision and recall numerators ``u = pu @ x``, ``v = rv @ x`` over all columns, their
    denominators, the smallest positive values they can take, and how to lift an alignment to a
    full column vector."""

    metric: str
    builder: _Builder
    pu: np.ndarray
    rv: np.ndarray
    pd: float
    rd: float
    delta_u: float
    delta_v: float
    lift: object  # callable: alignment -> column vector

    def model(self, c: np.ndarray, sense: str, extra_rows=(), extra_cols=0,
              name: str = "") -> LinearModel:
        b = self.builder
        n = b.n + extra_cols
        ri, rj, rv = list(b.r_i), list(b.r_j), list(b.r_v)
        lo, hi = list(b.row_lo), list(b.row_hi)
        for coefs, rlo, rhi in extra_rows:
            i = len(lo)
            for j, v in coefs.items():
                if v:
                    ri.append(i)
                    rj.append(j)
                    rv.append(float(v))
            lo.append(rlo)
            hi.append(rhi)
        A = Csr.from_coo(np.array(ri, dtype=np.int64), np.array(rj, dtype=np.int64),
                         np.array(rv, dtype=np.float64), (len(lo), n))
        names = list(b.names) + [f"aux{i}" for i in range(extra_cols)]
        return LinearModel(c=c, A=A, row_lo=np.array(lo, dtype=float),
                           row_hi=np.array(hi, dtype=float),
                           col_lo=np.array(b.lo + [0.0] * extra_cols),
                           col_hi=np.array(b.hi + [np.inf] * extra_cols),
                           integrality=np.array(b.integer + [False] * extra_cols, dtype=bool),
                           sense=sense, var_names=names,
                           name=name or f"coref-alignment-{self.metric}")

    @property
    def proportional(self) -> float | None:
        """``λ`` when ``u = λ v`` for every column vector (F1 is then linear in ``v``)."""
        if not self.rv.any() or not self.pu.any():
            return None
        lam = float(self.pu @ self.rv) / float(self.rv @ self.rv)
        if lam > 0 and np.allclose(self.pu, lam * self.rv, rtol=1e-12, atol=1e-12):
            return lam
        return None


def formulation(inst: MentionAlignmentInstance, metric: str) -> Formulation:
    """The model of ``metric``'s numerators over ``inst``'s alignments (module docstring)."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose from " + ", ".join(METRICS))
    b = _Builder()
    E = inst.num_pairs
    rows, cols = inst.rows.tolist(), inst.cols.tolist()
    x = [b.var(f"x[{k},{r}]", integer=True) for k, r in zip(rows, cols, strict=True)]
    by_k, by_r = defaultdict(list), defaultdict(list)
    for e in range(E):
        by_k[rows[e]].append(e)
        by_r[cols[e]].append(e)
    for es in list(by_k.values()) + list(by_r.values()):
        if len(es) > 1:
            b.row({x[e]: 1.0 for e in es}, hi=1.0)
    K, R = inst.key_clusters, inst.response_clusters
    klast, rlast = inst.key_last(), inst.response_last()
    pu: dict[int, float] = defaultdict(float)
    rv: dict[int, float] = defaultdict(float)
    lifters = []   # each: (pairs set, fwd, bwd) -> {column: value}

    k_in, r_in = defaultdict(list), defaultdict(list)  # mention -> the entities holding it
    for a, c in enumerate(K):
        for m in c:
            k_in[m].append(a)
    for bb, c in enumerate(R):
        for m in c:
            r_in[m].append(bb)
    if metric in ("ceafe", "ceafm"):
        entity = metric == "ceafe"
        cell_pairs: dict[tuple[int, int], list[int]] = defaultdict(list)
        for e in range(E):
            for a in k_in[rows[e]]:
                for bb in r_in[cols[e]]:
                    cell_pairs[(a, bb)].append(e)
        s = {ab: b.var(f"s[{ab[0]},{ab[1]}]", integer=True) for ab in cell_pairs}
        by_a, by_b = defaultdict(list), defaultdict(list)
        for (a, bb), j in s.items():
            by_a[a].append(j)
            by_b[bb].append(j)
        for js in list(by_a.values()) + list(by_b.values()):
            if len(js) > 1:
                b.row({j: 1.0 for j in js}, hi=1.0)
        t = {}
        for (a, bb), es in cell_pairs.items():
            phi = 2.0 / (len(K[a]) + len(R[bb])) if entity else 1.0
            per_k, per_r = defaultdict(list), defaultdict(list)
            for e in es:
                j = t[(e, a, bb)] = b.var(f"t[{rows[e]},{cols[e]},{a},{bb}]")
                b.row({j: 1.0, x[e]: -1.0}, hi=0.0)
                pu[j] += phi
                rv[j] += phi
                per_k[rows[e]].append(j)
                per_r[cols[e]].append(j)
            for js in list(per_k.values()) + list(per_r.values()):
                b.row({**{j: 1.0 for j in js}, s[(a, bb)]: -1.0}, hi=0.0)

        def lift_ceaf(fwd, out):
            col = {}
            for e2, a, bb in t:
                if fwd.get(rows[e2]) == cols[e2]:
                    col[(a, bb)] = col.get((a, bb), 0) + 1
            # the entity alignment: the best one on the realised overlaps
            if col:
                chosen = set(best_entity_alignment(
                    {(a, bb): n * (2.0 / (len(K[a]) + len(R[bb])) if entity else 1.0)
                     for (a, bb), n in col.items()}))
                for ab in chosen:
                    out[s[ab]] = 1.0
                for (e, a, bb), j in t.items():
                    if (a, bb) in chosen and fwd.get(rows[e]) == cols[e]:
                        out[j] = 1.0
        lifters.append(lift_ceaf)
        if entity:
            pd, rd = float(len(R)), float(len(K))
        else:
            pd, rd = float(sum(map(len, R))), float(sum(map(len, K)))
        delta_u = delta_v = 0.0   # (unused: CEAF is linear)
    else:
        # cells: recall side (a, last(r)) per occurrence of k in K_a; precision side
        # (last(k), b) per occurrence of r in R_b
        rcell: dict[tuple[int, int], list[int]] = defaultdict(list)
        pcell: dict[tuple[int, int], list[int]] = defaultdict(list)
        for e in range(E):
            for a in k_in[rows[e]]:
                rcell[(a, rlast[cols[e]])].append(e)
            for bb in r_in[cols[e]]:
                pcell[(klast[rows[e]], bb)].append(e)
        if metric == "muc":
            shared: dict[tuple, int] = {}

            def y_of(es):
                key = tuple(sorted(es))
                if key not in shared:
                    j = shared[key] = b.var(f"y[{len(shared)}]")
                    for e in es:
                        b.row({x[e]: 1.0, j: -1.0}, hi=0.0)
                return shared[key]

            for es in rcell.values():
                for e in es:
                    rv[x[e]] += 1.0
                rv[y_of(es)] -= 1.0
            for es in pcell.values():
                for e in es:
                    pu[x[e]] += 1.0
                pu[y_of(es)] -= 1.0

            def lift_muc(fwd, out):
                for key, j in shared.items():
                    out[j] = 1.0 if any(fwd.get(rows[e]) == cols[e] for e in key) else 0.0
            lifters.append(lift_muc)
            pd = float(sum(len(c) - 1 for c in R))
            rd = float(sum(len(c) - 1 for c in K))
            delta_u = delta_v = 1.0
        else:
            zs: dict[tuple, list[int]] = {}

            def z_of(es):
                key = tuple(sorted(es))
                if key not in zs:
                    J = min(len({rows[e] for e in es}), len({cols[e] for e in es}))
                    js = [b.var(f"z[{len(zs)},{i + 1}]", integer=True) for i in range(J)]
                    b.row({**{x[e]: 1.0 for e in es}, **{j: -1.0 for j in js}}, lo=0.0, hi=0.0)
                    for j0, j1 in zip(js, js[1:], strict=False):
                        b.row({j1: 1.0, j0: -1.0}, hi=0.0)
                    zs[key] = js
                return zs[key]

            def add_cells(cells, size_of, target):
                for (a, bb), es in cells.items():
                    n = size_of(a, bb)
                    if metric == "bcub":
                        for i, j in enumerate(z_of(es), 1):
                            target[j] += (2 * i - 1) / n
                    elif n > 1:
                        js = z_of(es)
                        if len(js) >= 2:
                            for i, j in enumerate(js, 1):
                                target[j] += n * (i - 1) / (n * (n - 1) / 2)

            add_cells(rcell, lambda a, bb: len(K[a]), rv)
            add_cells(pcell, lambda a, bb: len(R[bb]), pu)
            if metric == "lea":    # singletons: resolved when paired into a singleton
                for e in range(E):
                    k, r = rows[e], cols[e]
                    for a in k_in[k]:
                        if len(K[a]) == 1 and len(R[rlast[r]]) == 1:
                            rv[x[e]] += 1.0
                    for bb in r_in[r]:
                        if len(R[bb]) == 1 and len(K[klast[k]]) == 1:
                            pu[x[e]] += 1.0

            def lift_z(fwd, out):
                for key, js in zs.items():
                    n = sum(1 for e in key if fwd.get(rows[e]) == cols[e])
                    for i, j in enumerate(js, 1):
                        out[j] = 1.0 if n >= i else 0.0
            lifters.append(lift_z)
            pd, rd = float(sum(map(len, R))), float(sum(map(len, K)))
            # every coefficient is >= 0 on binaries: a positive numerator is at least the
            # smallest positive coefficient
            pos_u = [v for v in pu.values() if v > 1e-15]
            pos_v = [v for v in rv.values() if v > 1e-15]
            delta_u = min(pos_u) if pos_u else 0.0
            delta_v = min(pos_v) if pos_v else 0.0

    n = b.n
    pu_vec, rv_vec = np.zeros(n), np.zeros(n)
    for j, v in pu.items():
        pu_vec[j] = v
    for j, v in rv.items():
        rv_vec[j] = v

    def lift(alignment) -> np.ndarray:
        fwd = {int(k): int(r) for k, r in np.asarray(alignment).reshape(-1, 2).tolist()}
        out = np.zeros(n)
        for e in range(E):
            if fwd.get(rows[e]) == cols[e]:
                out[x[e]] = 1.0
        for f in lifters:
            f(fwd, out)
        return out

    return Formulation(metric, b, pu_vec, rv_vec, pd, rd, float(delta_u), float(delta_v), lift)


def _decode(inst: MentionAlignmentInstance, xs: np.ndarray) -> np.ndarray:
    on = np.flatnonzero(np.asarray(xs[: inst.num_pairs]) > 0.5)
    return as_alignment(zip(inst.rows[on].tolist(), inst.cols[on].tolist(), strict=True))


def ilp_model(inst: MentionAlignmentInstance, metric: str = "ceafe") -> LinearModel:
    """The first MILP :func:`solve` builds for ``metric``: F1 itself when it is linear (CEAF,
    MUC without a mention in two clusters), else the outer approximation's master problem with
    tangents at the largest values the numerators can take (module docstring)."""
    f = formulation(inst, metric)
    lam = f.proportional
    if lam is not None or not (f.pu.any() and f.rv.any()):
        return f.model(_linear_objective(f, lam), MAXIMIZE)
    u_hi = float(np.sum(np.clip(f.pu, 0, None) * np.array(f.builder.hi)))
    v_hi = float(np.sum(np.clip(f.rv, 0, None) * np.array(f.builder.hi)))
    return _master(f, [max(u_hi, f.delta_u)], [max(v_hi, f.delta_v)])


def _linear_objective(f: Formulation, lam: float | None) -> np.ndarray:
    """F1 = κ v when u = λ v (κ = 2λ / (λ rd + pd)); 0 when a denominator is 0."""
    if lam is None or f.pd <= 0 or f.rd <= 0:
        return np.zeros(f.builder.n)
    return 2 * lam / (lam * f.rd + f.pd) * f.rv


def _master(f: Formulation, tu: Sequence[float], tv: Sequence[float]) -> LinearModel:
    n = f.builder.n
    ja, jb = n, n + 1
    rows = []
    for t in tu:
        coefs = {ja: 1.0, **{j: f.pd / t**2 * v for j, v in enumerate(f.pu) if v}}
        rows.append((coefs, 2 * f.pd / t, np.inf))
    for t in tv:
        coefs = {jb: 1.0, **{j: f.rd / t**2 * v for j, v in enumerate(f.rv) if v}}
        rows.append((coefs, 2 * f.rd / t, np.inf))
    rows.append(({j: v for j, v in enumerate(f.pu) if v}, f.delta_u, np.inf))
    rows.append(({j: v for j, v in enumerate(f.rv) if v}, f.delta_v, np.inf))
    c = np.zeros(n + 2)
    c[ja] = c[jb] = 1.0
    return f.model(c, MINIMIZE, rows, extra_cols=2, name=f"coref-alignment-{f.metric}-oa")


# --------------------------------------------------------------------------------------------
# solving
# --------------------------------------------------------------------------------------------
def _verify(inst, f: Formulation, xs: np.ndarray, alignment) -> tuple[float, ...]:
    """The recomputed counts of ``alignment``, after checking the model's numerators at
    ``xs`` against them."""
    counts = evaluate(inst, alignment, f.metric)
    u = float(f.pu @ xs[: f.builder.n])
    v = float(f.rv @ xs[: f.builder.n])
    if not (close(u, counts[0]) and close(v, counts[2])):
        raise VerificationError(
            f"coref alignment ({f.metric}): the model's numerators ({u!r}, {v!r}) differ from "
            f"the metric recomputed on its alignment ({counts[0]!r}, {counts[2]!r})")
    return counts


def solve(inst: MentionAlignmentInstance, metric: str = "ceafe", method: str = "exact", *,
          backend: str = "highs", time_limit: float | None = None, threads: int = 1,
          seed: int = 0, warm_start=None) -> Result:
    """The alignment maximising ``metric``'s F1, by ``method``:

    ``exact``/``ilp``  the model of the module docstring through ``backend`` (one MILP, or the
                       outer approximation's sequence), warm-started from ``warm_start`` (an
                       alignment, e.g. a heuristic's) or from :func:`stagewise`;
                       ``time_limit`` bounds the whole solve: the result is then the best
                       alignment met with a valid bound (status TIME_LIMIT);
    ``brute``          :func:`brute_force`;
    ``stagewise``      the similarity heuristic (status FEASIBLE, no bound).

    ``objective`` is the F1 recomputed from the alignment; ``details`` hold ``counts``
    (precision num/den, recall num/den), ``iterations`` (MILPs solved) and ``metric``."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose from " + ", ".join(METRICS))
    t0 = time.perf_counter()
    if method in HEURISTICS:
        al = HEURISTICS[method](inst)
        counts = evaluate(inst, al, metric)
        return Result(Status.FEASIBLE, f1_of(counts), None, al, method,
                      time.perf_counter() - t0, details={"counts": counts, "metric": metric})
    if method == "brute":
        val, al = brute_force(inst, metric)
        counts = evaluate(inst, al, metric)
        return Result(Status.OPTIMAL, f1_of(counts), f1_of(counts), al, method,
                      time.perf_counter() - t0, details={"counts": counts, "metric": metric})
    if method not in ("exact", "ilp"):
        raise ValueError(f"unknown method {method!r}; choose one of " + ", ".join(METHODS))
    start = as_alignment([]) if warm_start is None else check_alignment(inst, warm_start)
    if warm_start is None and inst.num_pairs:
        start = stagewise(inst)
    options = SolveOptions(time_limit=time_limit, threads=threads, seed=seed)
    f = formulation(inst, metric)
    start_counts = evaluate(inst, start, metric)
    lam = f.proportional
    if f.pd <= 0 or f.rd <= 0 or not (f.pu.any() and f.rv.any()) or not inst.num_pairs:
        # F1 is 0 (or the same) for every alignment: nothing to choose
        v = f1_of(start_counts)
        return Result(Status.OPTIMAL, v, v, start, method, time.perf_counter() - t0,
                      backend=None, details={"counts": start_counts, "metric": metric,
                                             "iterations": 0, "form": "constant"})
    if lam is not None:
        return _solve_linear(inst, f, lam, start, backend, options, method, t0)
    return _solve_oa(inst, f, start, start_counts, backend, options, method, t0)


def _solve_linear(inst, f, lam, start, backend, options, method, t0) -> Result:
    from dataclasses import replace

    model = f.model(_linear_objective(f, lam), MAXIMIZE)
    out = solve_model(model, backend, replace(options, warm_start=f.lift(start)))
    details = {"metric": f.metric, "iterations": 1, "form": "linear",
               "raw_status": out.raw_status, **route_details(out)}
    if out.x is None:   # stopped before the warm start was read: keep it, bound F1 <= 1
        counts = evaluate(inst, start, f.metric)
        return Result(Status.TIME_LIMIT if out.status is Status.TIME_LIMIT else Status.ERROR,
                      f1_of(counts), 1.0 if out.bound is None else max(out.bound,
                                                                       f1_of(counts)),
                      start, method, time.perf_counter() - t0, out.nodes, out.backend,
                      options.seed, out.solver_version, details={**details, "counts": counts})
    al = _decode(inst, out.x)
    counts = _verify(inst, f, out.x, al)
    obj = f1_of(counts)
    if not close(obj, model.objective_value(out.x)):
        raise VerificationError(f"coref alignment ({f.metric}): F1 {obj!r} recomputed, the "
                                f"model says {model.objective_value(out.x)!r}")
    bound = 1.0 if out.bound is None else min(float(out.bound), 1.0)
    if bound < obj - 1e-6 * max(1.0, obj):
        raise VerificationError(f"coref alignment ({f.metric}): bound {bound!r} below the "
                                f"alignment's F1 {obj!r}")
    bound = max(bound, obj)
    status = out.status
    if status is Status.OPTIMAL and not close(obj, bound):
        status = Status.FEASIBLE
    return Result(status, obj, bound, al, method, time.perf_counter() - t0, out.nodes,
                  out.backend, options.seed, out.solver_version,
                  details={**details, "counts": counts})


def _g(f: Formulation, counts) -> float:
    if counts[0] <= 0 or counts[2] <= 0:
        return np.inf
    return f.pd / counts[0] + f.rd / counts[2]


def _solve_oa(inst, f, start, start_counts, backend, options, method, t0) -> Result:
    from dataclasses import replace

    best, best_counts = start, start_counts
    best_g = _g(f, best_counts)
    tu: list[float] = []
    tv: list[float] = []
    if np.isfinite(best_g):
        tu.append(best_counts[0])
        tv.append(best_counts[2])
    else:
        tu.append(f.delta_u)
        tv.append(f.delta_v)
    lower, nodes, status, iterations = 0.0, 0, Status.OPTIMAL, 0
    last = None
    while True:
        new_u = new_v = False
        limit = remaining(options.time_limit, time.perf_counter() - t0)
        if (limit is not None and limit <= 0) or iterations >= OA_MAX_ITER:
            status = Status.TIME_LIMIT if iterations < OA_MAX_ITER else Status.FEASIBLE
            break
        model = _master(f, tu, tv)
        warm = None
        if np.isfinite(best_g):
            warm = np.concatenate([f.lift(best), [f.pd / best_counts[0],
                                                  f.rd / best_counts[2]]])
        out = solve_model(model, backend, replace(options, time_limit=limit, warm_start=warm))
        iterations += 1
        last = out
        nodes += out.nodes or 0
        if out.status is Status.INFEASIBLE:
            # no alignment has both numerators positive: F1 is 0 for every one
            lower = np.inf
            break
        if out.bound is not None:
            lower = max(lower, float(out.bound))
        if out.x is not None:
            al = _decode(inst, out.x)
            counts = _verify(inst, f, out.x, al)
            g = _g(f, counts)
            if g < best_g and (not np.isfinite(best_g)
                               or g < best_g - 1e-12 * max(1.0, best_g)):
                best, best_counts, best_g = al, counts, g
            if counts[0] > 0 and counts[2] > 0:
                new_u = not any(close(counts[0], t, 1e-12) for t in tu)
                new_v = not any(close(counts[2], t, 1e-12) for t in tv)
                if new_u:
                    tu.append(counts[0])
                if new_v:
                    tv.append(counts[2])
        if out.status is not Status.OPTIMAL:
            status = Status.TIME_LIMIT if out.status is Status.TIME_LIMIT else out.status
            break
        if best_g - lower <= OA_TOL * max(1.0, best_g):
            break
        if out.x is None or not (new_u or new_v):
            # the iterate satisfies its own tangents: the MILP's bound is g at the iterate up
            # to the solver's tolerances (module docstring)
            if not close(best_g, lower):  # pragma: no cover
                status = Status.FEASIBLE
            break
    obj = f1_of(best_counts)
    if lower == np.inf:
        bound = obj
    elif lower > 0:
        bound = max(obj, 2.0 / lower)
    else:
        bound = None
    if bound is None:
        bound = 1.0     # F1 never exceeds 1: the one bound known without a solve
    if status is Status.OPTIMAL and not close(obj, bound):
        status = Status.FEASIBLE
    if status is Status.OPTIMAL:
        bound = obj
    details = {"metric": f.metric, "iterations": iterations, "form": "outer-approximation",
               "counts": best_counts, "g_lower": float(lower)}
    if last is not None:
        details.update(route_details(last))
        details["raw_status"] = last.raw_status
    return Result(status, obj, bound, best, method, time.perf_counter() - t0, nodes,
                  last.backend if last else None, options.seed,
                  last.solver_version if last else None, details=details)


# --------------------------------------------------------------------------------------------
# brute force and the heuristic
# --------------------------------------------------------------------------------------------
def brute_force(inst: MentionAlignmentInstance, metric: str = "ceafe"
                ) -> tuple[float, np.ndarray]:
    """The best F1 over every alignment (each subset of allowed pairs with no mention twice),
    by enumeration; at most :data:`BRUTE_MAX_PAIRS` pairs. Independent of the model: the oracle
    the tests compare it with."""
    E = inst.num_pairs
    if E > BRUTE_MAX_PAIRS:
        raise ModelTooLargeError(f"brute_force enumerates at most {BRUTE_MAX_PAIRS} allowed "
                                 f"pairs; this instance has {E}")
    rows, cols = inst.rows.tolist(), inst.cols.tolist()
    best_val, best = -1.0, []
    chosen: list[tuple[int, int]] = []
    used_k, used_r = set(), set()

    def rec(e: int):
        nonlocal best_val, best
        if e == E:
            v = check(inst, chosen, metric)
            if v > best_val + 1e-12:
                best_val, best = v, list(chosen)
            return
        k, r = rows[e], cols[e]
        if k not in used_k and r not in used_r:
            used_k.add(k)
            used_r.add(r)
            chosen.append((k, r))
            rec(e + 1)
            chosen.pop()
            used_k.discard(k)
            used_r.discard(r)
        rec(e + 1)

    rec(0)
    return best_val, as_alignment(best)


def stagewise(inst: MentionAlignmentInstance) -> np.ndarray:
    """The similarity heuristic: stage by stage (``stage`` ascending), a maximum-weight 1:1
    assignment of the stage's pairs among the mentions still unpaired (what scorers that align
    by similarity do; :func:`exactalign.metrics.coref.corefud.staged_alignment` is the CorefUD
    scorer's own, ties included)."""
    from . import bipartite

    used_k, used_r, out = set(), set(), []
    for s in sorted(set(inst.stage.tolist())):
        idx = [e for e in np.flatnonzero(inst.stage == s).tolist()
               if inst.rows[e] not in used_k and inst.cols[e] not in used_r
               and inst.weight[e] > 0]
        if not idx:
            continue
        bi = bipartite.BipartiteInstance(inst.n_key, inst.n_response,
                                         inst.rows[idx].copy(), inst.cols[idx].copy(),
                                         inst.weight[idx].copy(), "1:1")
        res = bipartite.solve(bi, "exact")
        for k, r in np.asarray(res.alignment).reshape(-1, 2).tolist():
            out.append((k, r))
            used_k.add(k)
            used_r.add(r)
    return as_alignment(out)


HEURISTICS = {"stagewise": stagewise}
METHODS = ("exact", "ilp", "brute", *HEURISTICS)
