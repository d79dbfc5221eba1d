"""The model: :class:`Formulation` (the numerators as linear functions of the pair and
auxiliary variables) and :func:`ilp_model`, with the pieces the solves build on it (:func:`decode`,
:func:`linear_objective`, :func:`master`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...core.model import MAXIMIZE, MINIMIZE, LinearModel
from ...core.sparse import Csr
from .evaluation import best_entity_alignment
from .instance import METRICS, MentionAlignmentInstance, as_alignment


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


def decode(inst: MentionAlignmentInstance, xs: np.ndarray) -> np.ndarray:
    on = np.flatnonzero(np.asarray(xs[: inst.num_pairs]) > 0.5)
    return as_alignment(zip(inst.rows[on].tolist(), inst.cols[on].tolist(), strict=True))


def ilp_model(inst: MentionAlignmentInstance, metric: str = "ceafe") -> LinearModel:
    """The first MILP :func:`solve` builds for ``metric``: F1 itself when it is linear (CEAF,
    MUC without a mention in two clusters), else the outer approximation's master problem with
    tangents at the largest values the numerators can take (module docstring)."""
    f = formulation(inst, metric)
    lam = f.proportional
    if lam is not None or not (f.pu.any() and f.rv.any()):
        return f.model(linear_objective(f, lam), MAXIMIZE)
    u_hi = float(np.sum(np.clip(f.pu, 0, None) * np.array(f.builder.hi)))
    v_hi = float(np.sum(np.clip(f.rv, 0, None) * np.array(f.builder.hi)))
    return master(f, [max(u_hi, f.delta_u)], [max(v_hi, f.delta_v)])


def linear_objective(f: Formulation, lam: float | None) -> np.ndarray:
    """F1 = κ v when u = λ v (κ = 2λ / (λ rd + pd)); 0 when a denominator is 0."""
    if lam is None or f.pd <= 0 or f.rd <= 0:
        return np.zeros(f.builder.n)
    return 2 * lam / (lam * f.rd + f.pd) * f.rv


def master(f: Formulation, tu: Sequence[float], tv: Sequence[float]) -> LinearModel:
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
