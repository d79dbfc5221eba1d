"""The ERE mention mapping (Kulick, Bies & Mott 2014, "Inter-Annotator Agreement for ERE
Annotation", Section 2.1): a matching problem between the mentions of File A and File B, as the
paper's procedure and as the exact lexicographic optimum it aims at.

The four faces of the problem (:mod:`exactalign.registry` lists every problem's):
the exact mapping (:func:`exact_mapping`,
:func:`ilp_model`), the paper's procedure as the heuristic (:data:`HEURISTICS`),
:func:`brute_force` for tiny inputs, and :func:`check`; :func:`solve` runs any method by name.
The agreement report built on the mapping (match categories of mentions, entities, relations
and events) is the metric, :mod:`exactalign.metrics.ere`.

The mapping problem
-------------------
Given the spans of File A's and File B's mentions of one document, a *mapping* is a 1:1 set of
pairs ``(a, b)`` whose spans overlap (share at least one character). A pair is an **exact**
match when both spans cover the same characters ("exactly the same location (offset and
length)", Section 2.1), else an **overlap** match. :class:`SpanPairs` holds the candidate pairs
and their character overlaps, computed with numpy (piece-by-piece interval intersection).

The procedure (:func:`procedure`), Section 2.1 step by step
------------------------------------------------------------
1. *Exact matches*: every pair at the same location is mapped. (Reading: a file holding two
   mentions at one location pairs them with the other file's in file order -- the first A
   mention with the first B mention, and so on.)
2. *Unambiguous overlaps*: among the mentions left, an A mention that overlaps one and only one
   B mention which in turn overlaps only it is mapped to it. (Reading: "one and only one" must
   hold on both sides -- in the paper's Figure 2 each A mention overlaps only m-788, yet the
   case is called ambiguous because m-788 overlaps both.)
3. *Ambiguous overlaps*, resolved "from the perspective of File A" (Section 2.1.1) to maximise
   the number of mapped mentions, then by greatest character overlap (Section 2.1.2). Our
   reading, repeated until no overlapping pair of unmapped mentions is left:

   a. if some unmapped A mention overlaps exactly one unmapped B mention (Figure 1: m-502 has
      only m-398, so m-463 must not take it), map the pair of greatest overlap among those
      A mentions and their single candidates (Figure 2: m-892 and m-905 both have only m-788;
      m-892 overlaps it more);
   b. otherwise (every A mention left has two or more candidates) map the pair of greatest
      overlap among all pairs left.

   Ties: lower A index (file order), then lower B index. Step (a) never loses a mapped mention
   (a mention with one candidate can only be mapped to it), step (b) can: the procedure is a
   heuristic for the maximum it describes (the Karp-Sipser degree-one rule, applied on File A's
   side only, with a greatest-overlap greedy when no A mention has a single candidate).

The exact mapping (:func:`exact_mapping`)
-----------------------------------------
Maximises, lexicographically, (number of mapped mentions, total character overlap) over the
mentions left after step 1 (``keep_exact=True``, the default: the paper's ambiguity
resolution optimises what remains once exact matches are fixed; ``keep_exact=False``
optimises over every mention, exact matches included). It is one maximum-weight 1:1 matching
(:mod:`exactalign.problems.bipartite`) with weight ``M + overlap(a, b)`` per candidate pair,
where ``M = 1 + U`` and ``U`` bounds the total overlap of every mapping (the smaller of
``sum_a max_b overlap`` and ``sum_b max_a overlap``).

*Proof that the weighted optimum is the lexicographic optimum.* A mapping ``X`` weighs
``w(X) = M |X| + ov(X)`` with ``0 <= ov(X) <= U < M``. If ``|X| > |Y|`` then
``w(X) >= M |Y| + M > M |Y| + U >= w(Y)``; so a maximum-weight ``X`` has maximum ``|X|``, and
among mappings of that size ``w`` orders by ``ov``. Conversely any bound ``B >= w(Y)`` for all
``Y``, met by ``w(X) = B``, proves ``X`` lexicographically optimal. All weights are integers, so
the float arithmetic of the solvers is exact (below 2**53).

The certificate (:class:`LexCertificate`) is the matching's LP dual ``(u, v)`` from
:func:`exactalign.problems.bipartite.certify` (``method="exact"``), checkable by anyone with
:func:`verify_certificate`, or the ILP's proven bound (``method="ilp"``).

The paper's Figure 1 (A: "THE EAST", "SOUTH OF IRAN"; B: "THE EAST AND SOUTH OF IRAN",
"IRAN"), where both mappings agree:

>>> from exactalign.problems import ere
>>> p = ere.span_pairs([((0, 8),), ((13, 26),)], [((0, 26),), ((22, 26),)])
>>> ere.procedure(p).pairs.tolist(), ere.exact_mapping(p).key
([[0, 0], [1, 1]], (2, 12))
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import InfeasibleAlignmentError, ModelTooLargeError, VerificationError
from ..core.result import Result
from . import bipartite

#: A mention's span: its pieces ``(begin, end)``, character offsets, end exclusive (the shape
#: of :data:`exactalign.io.ere.Span`, restated here so that problems never import a reader).
Span = tuple[tuple[int, int], ...]

#: Ways to build the mention mapping.
MAPPINGS = ("procedure", "exact")
#: Largest number of candidate pairs :func:`brute_force` enumerates.
BRUTE_MAX_PAIRS = 20
#: Cells of the piece x piece overlap block computed at once.
_BLOCK = 1 << 20


# --------------------------------------------------------------------------------------------
# the candidate pairs
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class SpanPairs:
    """Candidate pairs ``(rows[e], cols[e])`` of A and B spans sharing ``overlap[e] > 0``
    characters, sorted by (A, B); ``exact[e]`` when the two spans cover the same characters.
    ``len_a`` and ``len_b`` are the spans' sizes in characters."""

    n_a: int
    n_b: int
    rows: np.ndarray
    cols: np.ndarray
    overlap: np.ndarray
    exact: np.ndarray
    len_a: np.ndarray
    len_b: np.ndarray

    @property
    def num_pairs(self) -> int:
        return len(self.rows)


def _pieces(spans: Sequence[Span]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    owner = np.repeat(np.arange(len(spans)), [len(s) for s in spans])
    flat = np.array([p for s in spans for p in s], dtype=np.int64).reshape(-1, 2)
    return owner, flat[:, 0], flat[:, 1]


def span_pairs(spans_a: Sequence[Span], spans_b: Sequence[Span]) -> SpanPairs:
    """The candidate pairs of two lists of spans (blocks of piece x piece intersections)."""
    oa, ba, ea = _pieces(spans_a)
    ob, bb, eb = _pieces(spans_b)
    len_a = np.bincount(oa, weights=ea - ba, minlength=len(spans_a)).astype(np.int64)
    len_b = np.bincount(ob, weights=eb - bb, minlength=len(spans_b)).astype(np.int64)
    rows, cols, ovs = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    step = max(1, _BLOCK // max(1, len(bb)))
    for s in range(0, len(ba), step):
        sl = slice(s, s + step)
        ov = (np.minimum(ea[sl, None], eb[None, :]) - np.maximum(ba[sl, None], bb[None, :]))
        i, j = np.nonzero(ov > 0)
        rows.append(oa[sl][i])
        cols.append(ob[j])
        ovs.append(ov[i, j])
    code = np.concatenate(rows) * max(1, len(spans_b)) + np.concatenate(cols)
    keys, inv = np.unique(code, return_inverse=True)  # sorted by (A, B)
    ov = np.bincount(inv.ravel(), weights=np.concatenate(ovs), minlength=len(keys))
    ov = ov.astype(np.int64)
    r, c = keys // max(1, len(spans_b)), keys % max(1, len(spans_b))
    exact = (ov == len_a[r]) & (ov == len_b[c])
    return SpanPairs(len(spans_a), len(spans_b), r, c, ov, exact, len_a, len_b)


# --------------------------------------------------------------------------------------------
# mappings
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class LexCertificate:
    """Proof that a mapping is lexicographically optimal over its free part: weights
    ``M + overlap``; ``bound`` an upper bound on every mapping's weight (from the duals ``u``,
    ``v`` when given, else the ILP's proven bound); ``weight`` the mapping's own."""

    M: int
    bound: float
    weight: float
    u: np.ndarray | None = None
    v: np.ndarray | None = None

    @property
    def proves(self) -> bool:
        return self.bound < self.weight + 0.5  # integer weights: nothing fits in between


@dataclass(frozen=True, eq=False)
class Mapping:
    """A mention mapping: ``pairs`` an ``(k, 2)`` array of (A index, B index), sorted; ``exact``
    and ``overlap`` per pair. ``result`` is the weighted-matching solve (exact methods only),
    ``certificate`` its lexicographic proof."""

    pairs: np.ndarray
    exact: np.ndarray
    overlap: np.ndarray
    method: str
    wall_time: float = 0.0
    result: Result | None = None
    certificate: LexCertificate | None = None
    details: dict = field(default_factory=dict)

    @property
    def count(self) -> int:
        return len(self.pairs)

    @property
    def total_overlap(self) -> int:
        return int(self.overlap.sum())

    @property
    def key(self) -> tuple[int, int]:
        """The lexicographic objective (mapped pairs, total character overlap)."""
        return self.count, self.total_overlap

    def as_dict(self) -> dict[int, int]:
        return dict(zip(self.pairs[:, 0].tolist(), self.pairs[:, 1].tolist(), strict=True))


def exact_matches(p: SpanPairs) -> np.ndarray:
    """Step 1: edge indices of the exact matches, a file holding several mentions at one
    location paired in file order."""
    e = np.flatnonzero(p.exact)
    used_a, used_b, out = set(), set(), []
    for k in e.tolist():  # sorted by (A, B): file order
        a, b = int(p.rows[k]), int(p.cols[k])
        if a not in used_a and b not in used_b:
            used_a.add(a)
            used_b.add(b)
            out.append(k)
    return np.array(out, dtype=np.int64)


def _free_edges(p: SpanPairs, fixed: np.ndarray) -> np.ndarray:
    """Edges between mentions not in ``fixed`` pairs."""
    fa = np.zeros(p.n_a, bool)
    fb = np.zeros(p.n_b, bool)
    fa[p.rows[fixed]] = True
    fb[p.cols[fixed]] = True
    return np.flatnonzero(~fa[p.rows] & ~fb[p.cols])


def _make(p: SpanPairs, edges, method: str, t0: float, **kw) -> Mapping:
    edges = np.sort(np.asarray(edges, dtype=np.int64))
    pairs = np.stack([p.rows[edges], p.cols[edges]], axis=1).reshape(-1, 2)
    return Mapping(pairs, p.exact[edges], p.overlap[edges], method, time.perf_counter() - t0,
                   **kw)


def procedure(p: SpanPairs) -> Mapping:
    """The paper's procedure, steps 1-3 of the module docstring."""
    t0 = time.perf_counter()
    fixed = exact_matches(p)
    free = _free_edges(p, fixed)
    deg_a = np.bincount(p.rows[free], minlength=p.n_a)
    deg_b = np.bincount(p.cols[free], minlength=p.n_b)
    unamb = free[(deg_a[p.rows[free]] == 1) & (deg_b[p.cols[free]] == 1)]
    rest = np.setdiff1d(free, unamb)
    adj_a: dict[int, dict[int, tuple[int, int]]] = {}
    adj_b: dict[int, set[int]] = {}
    for k in rest.tolist():
        a, b = int(p.rows[k]), int(p.cols[k])
        adj_a.setdefault(a, {})[b] = (int(p.overlap[k]), k)
        adj_b.setdefault(b, set()).add(a)
    chosen = []
    while adj_a:
        forced = [a for a, nb in adj_a.items() if len(nb) == 1]
        pool = forced or list(adj_a)
        _, na, nb, k = max((ov, -a, -b, k) for a in pool for b, (ov, k) in adj_a[a].items())
        a, b = -na, -nb
        chosen.append(k)
        for b2 in adj_a.pop(a):
            adj_b[b2].discard(a)
        for a2 in adj_b.pop(b):
            if a2 in adj_a:
                adj_a[a2].pop(b, None)
                if not adj_a[a2]:
                    del adj_a[a2]
    return _make(p, np.concatenate([fixed, unamb, np.array(chosen, dtype=np.int64)]),
                 "procedure", t0, details={"exact_step": len(fixed), "unambiguous": len(unamb),
                                           "ambiguous": len(chosen)})


def lex_instance(p: SpanPairs, keep_exact: bool = True
                 ) -> tuple[bipartite.BipartiteInstance, np.ndarray, np.ndarray, int]:
    """``(instance, edges, fixed, M)``: the weighted matching over the free part (its pairs are
    ``edges`` of ``p``, weights ``M + overlap``) and the fixed exact-match edges."""
    fixed = exact_matches(p) if keep_exact else np.zeros(0, dtype=np.int64)
    edges = _free_edges(p, fixed)
    ov = p.overlap[edges]
    best_a = np.zeros(p.n_a, np.int64)
    best_b = np.zeros(p.n_b, np.int64)
    np.maximum.at(best_a, p.rows[edges], ov)
    np.maximum.at(best_b, p.cols[edges], ov)
    M = 1 + int(min(best_a.sum(), best_b.sum()))
    inst = bipartite.BipartiteInstance(p.n_a, p.n_b, p.rows[edges], p.cols[edges],
                                       (M + ov).astype(np.float64), "1:1")
    return inst, edges, fixed, M


def exact_mapping(p: SpanPairs, *, keep_exact: bool = True, method: str = "exact",
                  **solve_options) -> Mapping:
    """The lexicographic optimum (module docstring), proven: ``method`` ``exact`` (assignment +
    dual certificate), ``ilp`` (through ``solve_options["backend"]``) or ``brute``. Raises
    :class:`VerificationError` if the proof does not hold; on an ILP time limit returns the
    incumbent with a certificate that does not prove (``certificate.proves`` is False)."""
    t0 = time.perf_counter()
    inst, edges, fixed, M = lex_instance(p, keep_exact)
    res = bipartite.solve(inst, method, **solve_options)
    if res.alignment is None:
        raise VerificationError(f"the {method} solve returned no mapping (status "
                                f"{res.status.value})")
    al = res.alignment
    chosen = edges[inst.pair_index(al)] if len(al) else np.zeros(0, np.int64)
    u = v = None
    if method == "exact":
        cert = bipartite.certify(inst, al)
        u, v, bound = cert.u, cert.v, cert.bound
    else:
        bound = res.bound
    cert = LexCertificate(M, float(bound), float(res.objective or 0.0), u, v)
    m = _make(p, np.concatenate([fixed, chosen]), f"exact/{method}", t0, result=res,
              certificate=cert, details={"exact_step": len(fixed), "M": M,
                                         "keep_exact": keep_exact})
    if res.proven_optimal and not cert.proves:
        raise VerificationError(f"the lexicographic certificate does not hold (bound {bound!r}, "
                                f"weight {cert.weight!r})")
    return m


def check(p: SpanPairs, mapping: Mapping, *, keep_exact: bool = True) -> tuple[int, int]:
    """Verify a mapping (1:1, candidate pairs only, flags and overlaps as in ``p``, and -- with
    ``keep_exact`` -- every step-1 exact match present) and return its (count, overlap)."""
    a = np.asarray(mapping.pairs, dtype=np.int64).reshape(-1, 2)
    if len(np.unique(a[:, 0])) != len(a) or len(np.unique(a[:, 1])) != len(a):
        raise InfeasibleAlignmentError("a mention is mapped twice")
    key = p.rows * max(p.n_b, 1) + p.cols
    pos = np.searchsorted(key, a[:, 0] * max(p.n_b, 1) + a[:, 1])
    pos = np.minimum(pos, max(len(key) - 1, 0))
    if len(a) and (not len(key) or (key[pos] != a[:, 0] * max(p.n_b, 1) + a[:, 1]).any()):
        raise InfeasibleAlignmentError("a mapped pair does not overlap")
    if len(a) and ((p.overlap[pos] != mapping.overlap).any()
                   or (p.exact[pos] != mapping.exact).any()):
        raise InfeasibleAlignmentError("a pair's overlap or exact flag is wrong")
    if keep_exact:
        fixed = exact_matches(p)
        have = set(pos.tolist()) if len(a) else set()
        missing = [int(k) for k in fixed.tolist() if k not in have]
        if missing:
            raise InfeasibleAlignmentError(
                f"exact match ({p.rows[missing[0]]}, {p.cols[missing[0]]}) is not mapped")
    return len(a), int(p.overlap[pos].sum()) if len(a) else 0


def verify_certificate(p: SpanPairs, mapping: Mapping, *, keep_exact: bool = True) -> bool:
    """Re-check a dual certificate from scratch: ``u, v >= 0``, the dual bound recomputed from
    the instance equals the mapping's weight ``M * count + overlap`` on its free part, and
    ``M`` exceeds every mapping's overlap."""
    c = mapping.certificate
    if c is None or c.u is None:
        return False
    inst, edges, fixed, M = lex_instance(p, keep_exact)
    if M != c.M:
        return False
    n, ov = check(p, mapping, keep_exact=keep_exact)
    weight = M * (n - len(fixed)) + (ov - int(p.overlap[fixed].sum()))
    return bipartite.dual_bound(inst, c.u, c.v) < weight + 0.5


def brute_force(p: SpanPairs, *, keep_exact: bool = True) -> tuple[int, int]:
    """The lexicographic optimum (count, overlap) by enumerating every 1:1 subset of the free
    pairs (at most :data:`BRUTE_MAX_PAIRS`), independent of the matching code."""
    fixed = exact_matches(p) if keep_exact else np.zeros(0, dtype=np.int64)
    edges = _free_edges(p, fixed).tolist()
    if len(edges) > BRUTE_MAX_PAIRS:
        raise ModelTooLargeError(f"brute_force enumerates at most {BRUTE_MAX_PAIRS} pairs; "
                                 f"this instance has {len(edges)}")
    rows, cols, ov = p.rows.tolist(), p.cols.tolist(), p.overlap.tolist()
    best = (0, 0)

    def rec(i: int, ua: frozenset, ub: frozenset, n: int, o: int):
        nonlocal best
        if i == len(edges):
            best = max(best, (n, o))
            return
        k = edges[i]
        if rows[k] not in ua and cols[k] not in ub:
            rec(i + 1, ua | {rows[k]}, ub | {cols[k]}, n + 1, o + ov[k])
        rec(i + 1, ua, ub, n, o)

    rec(0, frozenset(), frozenset(), 0, 0)
    return best[0] + len(fixed), best[1] + int(p.overlap[fixed].sum())


def ilp_model(p: SpanPairs, keep_exact: bool = True):
    """The ILP of the exact mapping: :func:`bipartite.ilp_model` of :func:`lex_instance`."""
    return bipartite.ilp_model(lex_instance(p, keep_exact)[0])


#: The heuristic, by the name :func:`solve` accepts.
HEURISTICS = {"procedure": procedure}
#: Every method of :func:`solve`: exact ones (through :func:`exact_mapping`), then heuristics.
METHODS = ("exact", "ilp", "brute", *HEURISTICS)


def solve(p: SpanPairs, method: str = "exact", **options) -> Mapping:
    """The mapping of ``p`` by ``method`` (:data:`METHODS`), re-verified by :func:`check`;
    ``options`` go to :func:`exact_mapping` (``keep_exact``, ``backend``, ``time_limit``...)."""
    if method in HEURISTICS:
        m = HEURISTICS[method](p)
    elif method in METHODS:
        m = exact_mapping(p, method=method, **options)
    else:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    check(p, m, keep_exact=options.get("keep_exact", True))
    return m


def map_spans(spans_a: Sequence[Span], spans_b: Sequence[Span], mapping: str = "procedure",
              **options) -> tuple[SpanPairs, Mapping]:
    """Candidate pairs and the ``mapping`` (``procedure`` or ``exact``) of two span lists;
    ``options`` go to :func:`exact_mapping`."""
    p = span_pairs(spans_a, spans_b)
    if mapping == "procedure":
        return p, procedure(p)
    if mapping == "exact":
        return p, exact_mapping(p, **options)
    raise ValueError(f"unknown mapping {mapping!r}; choose one of {', '.join(MAPPINGS)}")


def mapping_gap(proc: Mapping, exact: Mapping) -> dict:
    """The procedure against the optimum: mapped-count and overlap shortfalls, and whether it
    is lexicographically below."""
    return {"count_shortfall": exact.count - proc.count,
            "overlap_shortfall": exact.total_overlap - proc.total_overlap,
            "below_optimum": proc.key < exact.key}


__all__ = [
    "BRUTE_MAX_PAIRS", "HEURISTICS", "MAPPINGS", "METHODS",
    "LexCertificate", "Mapping", "Span", "SpanPairs", "brute_force", "check", "exact_mapping",
    "exact_matches", "ilp_model", "lex_instance", "map_spans", "mapping_gap", "procedure",
    "solve", "span_pairs", "verify_certificate",
]
