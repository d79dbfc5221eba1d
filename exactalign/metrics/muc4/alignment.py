"""Template alignment of one message (:class:`MessageTable`: the allowed pairs with their
counts): the 1992 scorer's automatic mapping (:func:`align_muc1992`), the mapping of highest
message F (:func:`align_exact`) and the mappings of highest corpus F
(:func:`align_exact_corpus`), both by Dinkelbach's method over certified assignments."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.fractional import dinkelbach_oracle
from ...core.result import Status
from ...io.muc4 import MucTemplate
from ...problems import bipartite
from .counts import Counts
from .guidelines import Judge
from .pairs import (
    content_rule,
    content_rule_1992,
    mapping_score_1992,
    missing_counts,
    pair_counts,
    spurious_counts,
)

#: The computed template alignments (the module docstring of :mod:`exactalign.metrics.muc4`).
ALIGNMENTS = ("muc1992", "exact", "exact-corpus")


@dataclass(frozen=True)
class MessageTable:
    """Allowed pairs of a message with their counts, and the unmapped counts of each side."""

    message: str
    keys: tuple[MucTemplate, ...]
    resps: tuple[MucTemplate, ...]
    pairs: tuple[tuple[int, int], ...]
    pair_total: tuple[Counts, ...]
    miss: tuple[Counts, ...]
    spur: tuple[Counts, ...]
    allowed: tuple[bool, ...]  # the content rule, per pair (the candidates of ``exact``)
    #: per pair, the 1992 scorer's mapping score (:func:`mapping_score_1992`); empty: the
    #: ``muc1992`` alignment ranks by the pair's recall instead
    rank: tuple = ()
    #: per pair, whether the scorer's automatic mapping could take it with the final history
    #: (:func:`content_rule_1992`, strict); empty: every allowed pair
    auto: tuple = ()

    def counts(self, alignment) -> Counts:
        mapped = dict(((i, j), c) for (i, j), c in zip(self.pairs, self.pair_total, strict=True))
        total = Counts()
        ki, rj = set(), set()
        for i, j in alignment:
            total = total + mapped[(int(i), int(j))]
            ki.add(int(i))
            rj.add(int(j))
        for i, c in enumerate(self.miss):
            if i not in ki:
                total = total + c
        for j, c in enumerate(self.spur):
            if j not in rj:
                total = total + c
        return total


def message_table(message: str, keys, resps, judge: Judge, matching: str = "muc1992",
                  content: bool = True) -> MessageTable:
    """Every key/response pair of a message with its counts; ``content=True`` keeps only the
    pairs the content rule allows (``muc1992``: the official scorer's,
    :func:`content_rule_1992` -- lenient for the candidates, strict for the automatic
    mapping; otherwise :func:`content_rule`)."""
    pairs, totals, allowed, rank, auto = [], [], [], [], []
    for i, k in enumerate(keys):
        for j, r in enumerate(resps):
            total, per = pair_counts(k, r, judge, matching)
            if matching == "muc1992":
                ok = content_rule_1992(k, r, judge, lenient=True)
                strict = ok and content_rule_1992(k, r, judge)
            else:
                ok = strict = content_rule(per)
            if ok or not content:
                pairs.append((i, j))
                totals.append(total)
                allowed.append(ok)
                if matching == "muc1992":
                    rank.append(mapping_score_1992(k, r, judge))
                    auto.append(strict)
    return MessageTable(message, tuple(keys), tuple(resps), tuple(pairs), tuple(totals),
                        tuple(missing_counts(k) for k in keys),
                        tuple(spurious_counts(r) for r in resps), tuple(allowed), tuple(rank),
                        tuple(auto))


def restrict_content(t: MessageTable) -> MessageTable:
    """The table's pairs that the content rule allows: the candidates of :func:`align_exact`."""
    keep = [e for e in range(len(t.pairs)) if t.allowed[e]]
    return MessageTable(t.message, t.keys, t.resps, tuple(t.pairs[e] for e in keep),
                        tuple(t.pair_total[e] for e in keep), t.miss, t.spur,
                        tuple(True for _ in keep),
                        tuple(t.rank[e] for e in keep) if t.rank else (),
                        tuple(t.auto[e] for e in keep) if t.auto else ())


def align_muc1992(t: MessageTable) -> list[tuple[int, int]]:
    """The 1992 scorer's automatic mapping (``create-system-mapped-template-pairs``): the
    allowed pairs by decreasing mapping score (:attr:`MessageTable.rank`, else the pair's
    recall (COR + ½PAR)/POS), ties in key then response order, each taken while both its
    templates are free."""
    score = t.rank if t.rank else tuple(c.recall for c in t.pair_total)
    order = sorted((e for e in range(len(t.pairs)) if not t.auto or t.auto[e]),
                   key=lambda e: (-score[e], t.pairs[e]))
    used_k, used_r, out = set(), set(), []
    for e in order:
        i, j = t.pairs[e]
        if i not in used_k and j not in used_r:
            used_k.add(i)
            used_r.add(j)
            out.append((i, j))
    return sorted(out)


@dataclass(frozen=True, eq=False)
class _Parametric:
    """A message's F as a ratio of linear functions of its alignment, for Dinkelbach's method:
    credit = ``n0 + dn @ x`` and ``POS + ACT`` = ``d0 + dd @ x`` over the indicator ``x`` of the
    mapped pairs (mapping ``(i, j)`` replaces key ``i``'s and response ``j``'s unmapped counts by
    the pair's); ``den_min`` is a lower bound on ``POS + ACT`` over every alignment (a mapped
    response counts at least its fills, so the unmapped ACT is one; and ``d0`` plus every
    negative ``dd``). ``base``: the counts of the empty alignment (its credit ``n0``, its POS +
    ACT ``d0``)."""

    table: MessageTable
    pairs: np.ndarray
    dn: np.ndarray
    dd: np.ndarray
    base: Counts
    den_min: float

    @property
    def fixed(self) -> bool:
        """No allowed pair: nothing to choose."""
        return not len(self.pairs)

    @classmethod
    def of(cls, t: MessageTable) -> _Parametric:
        base = t.counts([])
        d0 = base.POS + base.ACT
        dn = np.array([c.credit - t.miss[i].credit - t.spur[j].credit
                       for (i, j), c in zip(t.pairs, t.pair_total, strict=True)])
        dd = np.array([(c.POS + c.ACT) - (t.miss[i].POS + t.miss[i].ACT)
                       - (t.spur[j].POS + t.spur[j].ACT)
                       for (i, j), c in zip(t.pairs, t.pair_total, strict=True)])
        den_min = max(base.ACT, d0 + float(np.minimum(dd, 0).sum()))
        return cls(t, np.array(t.pairs, dtype=np.int64).reshape(-1, 2), dn, dd, base, den_min)

    def solve(self, lam: float):
        """``max credit - lam (POS + ACT)``: ``(alignment, value, bound, proven)`` through the
        certified assignment path (pairs of non-positive weight dropped)."""
        off = self.base.credit - lam * (self.base.POS + self.base.ACT)
        if self.fixed:
            return [], off, off, True
        w = self.dn - lam * self.dd
        keep = w > 1e-12
        inst = bipartite.BipartiteInstance.from_pairs(self.pairs[keep], w[keep],
                                                      len(self.table.keys),
                                                      len(self.table.resps))
        res = bipartite.solve(inst, "exact")
        return ([tuple(map(int, p)) for p in res.alignment], res.objective + off,
                res.bound + off, res.proven_optimal)

    def ratio(self, al) -> tuple[float, float]:
        c = self.table.counts(al)
        return c.credit, c.POS + c.ACT


def align_exact(t: MessageTable) -> tuple[list[tuple[int, int]], Status, float | None]:
    """The mapping of maximum message F, by Dinkelbach over assignments (proven); returns
    ``(alignment, status, bound on the message F)``."""
    par = _Parametric.of(t)
    if par.fixed or not par.base.ACT:  # no choice, or no response fill: F is fixed (0)
        return [], Status.OPTIMAL, par.base.f1
    rr = dinkelbach_oracle(par.solve, par.ratio, x0=align_muc1992(t), den_min=par.den_min)
    return sorted(rr.x), rr.status, None if rr.bound is None else 2 * rr.bound


def align_exact_corpus(tables: list[MessageTable], x0=None):
    """The mappings of every message together maximising **corpus** F = 2 Σ credit / Σ (POS +
    ACT), the number the ALL TEMPLATES row reports (per-message optima need not reach it: a
    message may trade its own F for the corpus's). Dinkelbach's method; its parametric problem
    ``max Σ credit - λ Σ (POS + ACT)`` separates into one certified assignment per message, so
    the final ``P(λ) <= 0`` proves λ optimal over every combination of per-message alignments.
    ``x0``: a start (one alignment per table; default: the ``muc1992`` greedy's). Returns
    ``(alignments, status, bound on the corpus F)``."""
    pars = [_Parametric.of(t) for t in tables]
    if not pars:
        return [], Status.OPTIMAL, 0.0
    den_min = sum(p.den_min for p in pars)

    def param_solve(lam):
        out = [p.solve(lam) for p in pars]
        return ([o[0] for o in out], sum(o[1] for o in out), sum(o[2] for o in out),
                all(o[3] for o in out))

    def ratio_of(x):
        rs = [p.ratio(a) for p, a in zip(pars, x, strict=True)]
        return sum(r[0] for r in rs), sum(r[1] for r in rs)

    if den_min <= 0:  # no fill anywhere: every alignment is empty and F is 0
        return [[] for _ in pars], Status.OPTIMAL, 0.0
    x0 = [align_muc1992(t) for t in tables] if x0 is None else x0
    rr = dinkelbach_oracle(param_solve, ratio_of, x0=x0, den_min=den_min)
    return ([sorted(a) for a in rr.x], rr.status,
            None if rr.bound is None else 2 * rr.bound)


# -- ties among the optimal alignments, and a heuristic's distance to them --------------------
def _optimal_instance(t: MessageTable, optimum
                      ) -> tuple[bipartite.BipartiteInstance, np.ndarray, np.ndarray, float]:
    """The alignments of maximum message F as the maximum-``w`` alignments of one instance.

    At ``λ* = F*/2`` (``F* = 2 credit / (POS + ACT)`` of the proven-optimal ``optimum``), an
    alignment ``x`` has ``credit(x) - λ* (POS + ACT)(x) <= 0`` with equality exactly when its F
    is ``F*`` (``POS + ACT > 0`` for every alignment once a response has a fill). That value is
    ``n0 - λ* d0 + Σ w_e x_e`` with ``w = dn - λ* dd`` (:class:`_Parametric`), so the optimal
    alignments are those of maximum ``Σ w x`` (``= λ* d0 - n0``) over the pairs of weight
    ``>= 0`` -- pairs of weight 0 included, optional in an optimum; a pair of negative weight
    is in none; rounding below ``1e-9`` is taken as 0. Returns the instance (those pairs, unit
    weights: ``w`` is given apart as the primary weight of :func:`bipartite.lexicographic`),
    the indices of its pairs in ``t.pairs``, ``w`` of those pairs and its optimum."""
    par = _Parametric.of(t)
    c = t.counts(optimum)
    lam = c.credit / (c.POS + c.ACT) if c.POS + c.ACT else 0.0
    w = par.dn - lam * par.dd if len(par.pairs) else np.zeros(0)
    tol = 1e-9 * max(1.0, float(np.abs(w).max(initial=0.0)))
    keep = np.flatnonzero(w > -tol)
    w = np.where(np.abs(w) <= tol, 0.0, w)
    inst = bipartite.BipartiteInstance.from_pairs(par.pairs[keep].reshape(-1, 2),
                                                  np.ones(len(keep)), len(t.keys),
                                                  len(t.resps))
    best = lam * (par.base.POS + par.base.ACT) - par.base.credit
    return inst, keep, w[keep], best


def co_optimal_counts(t: MessageTable, optimum, fields=("COR", "PAR")) -> dict:
    """``{field: (min, max)}`` of each count of ``fields`` over every alignment of maximum
    message F of the content-restricted table ``t``, ``optimum`` one of them (proven by
    :func:`align_exact`): two lexicographic solves per field
    (:func:`exactalign.problems.bipartite.co_optimal_range`). A reader sees when the MUC
    COR/PAR split is decided by a tie, not by the metric."""
    base = t.counts([])
    if not len(t.pairs) or not base.ACT:  # nothing to choose, or F fixed at 0
        c = t.counts(optimum)
        return {f: (getattr(c, f), getattr(c, f)) for f in fields}
    inst, keep, w, best = _optimal_instance(t, optimum)
    out = {}
    for f in fields:
        delta = np.array([getattr(t.pair_total[e], f) - getattr(t.miss[i], f)
                          - getattr(t.spur[j], f)
                          for e, (i, j) in ((e, t.pairs[e]) for e in keep)], dtype=np.float64)
        lo, hi = bipartite.co_optimal_range(inst, delta, primary=w, optimum=best)
        b = float(getattr(base, f))
        out[f] = (b + lo, b + hi)
    return out


def witness(t: MessageTable, optimum, alignment) -> bipartite.Witness:
    """The alignment of maximum message F nearest to ``alignment`` (fewest pairs removed plus
    added) and the changes that lead there: a heuristic's shortfall on a message attributed to
    its pairs. Pairs of ``alignment`` in no optimal alignment (negative weight at ``λ*``) are
    among those removed. ``gain`` is in the parametric weight ``credit - λ* (POS + ACT)``."""
    if not len(t.pairs):
        empty = np.zeros((0, 2), dtype=np.int64)
        return bipartite.Witness(empty, empty, empty, 0.0)
    inst, keep, w_kept, best = _optimal_instance(t, optimum)
    par = _Parametric.of(t)
    c = t.counts(optimum)
    w = par.dn - (c.credit / (c.POS + c.ACT) if c.POS + c.ACT else 0.0) * par.dd
    index = {tuple(map(int, p)): e for e, p in enumerate(t.pairs)}
    kept = set(keep.tolist())
    a = [tuple(map(int, p)) for p in alignment]
    inside = [p for p in a if index[p] in kept]
    outside = [p for p in a if index[p] not in kept]
    wit = bipartite.witness(inst, np.array(inside, dtype=np.int64).reshape(-1, 2),
                            primary=w_kept, optimum=best)
    if not outside:
        return wit
    remove = np.concatenate([wit.remove, np.array(outside, dtype=np.int64)])
    remove = remove[np.lexsort((remove[:, 1], remove[:, 0]))]
    return bipartite.Witness(remove, wit.add, wit.optimal,
                             wit.gain - float(sum(w[index[p]] for p in outside)))
