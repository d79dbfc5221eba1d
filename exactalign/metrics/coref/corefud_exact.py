"""The metric-optimal mention alignment of CorefUD documents: the exact counterpart of the
CorefUD scorer's staged alignment (:mod:`exactalign.metrics.coref.corefud`).

The staged alignment maximises mention similarity stage by stage and the metrics are computed
on top of it. Here, per metric (MUC, B³, CEAFe, CEAFm, LEA), the 1:1 alignment of key and
response mentions is chosen to maximise that metric's F1, over every pair the matching allows
(:func:`~exactalign.metrics.coref.corefud.allowed_pairs`): under ``head`` any two mentions with
the same head word, under ``partial`` any response mention inside the key mention and holding its
head, under ``exact`` only the same mention; with ``dependent`` zero matching also any two zeros
of one sentence with a positive dependency score, with ``linear`` zeros are ordinary mentions.
The pairs the scorer fixes in its first two stages (zeros by dependencies, identical mentions)
are choices too. The problem and its certified solve are
:mod:`exactalign.problems.coref_alignment` (a MILP on HiGHS; F1 linear for MUC and CEAF, an
outer approximation for B³ and LEA); every answer is re-verified by recomputing the metric from
the alignment.

What is not an alignment choice stays outside: the zero score's lookup by position, MOR's own
word-overlap matching and BLANC are not optimised (they are the scorer's, on the staged
alignment), and where a mention lies in two entities of one side it counts, as in the scorer,
in the last one.

Counting on an alignment. The scorer keeps one dict for both directions
(``Alignment.mapping``): where a zero that the dependency stage aligned is also, by position,
a mention of the other side, a later entry overwrites an earlier one, and a mention may then
count as a mention of its own side. The optimisation counts on the alignment itself -- a key
mention counts as the response mention it is paired with and nothing else
(:func:`exactalign.problems.coref_alignment.evaluate`) -- so the staged alignment is compared
on the same footing (:attr:`MetricComparison.staged`); the scorer's own numbers for it are
:attr:`MetricComparison.scorer`, and they differ only in those documents
(:attr:`MetricComparison.quirk`).

Corpus level. The scorer sums each metric's counts over documents. For MUC and CEAF the F1 of
a document is proportional to a numerator with fixed denominators, so the documents' optima
also maximise the corpus F1. For B³ and LEA the precision and recall numerators differ, and the
corpus optimum is solved as one problem over all documents (the union of their instances:
clusters and pairs never cross documents, so its counts are the corpus's sums), warm-started
from the better of the staged and the documents' optimal alignments (:attr:`ExactScores.corpus`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ...core.result import Result, Status, worst_status
from ...core.solve import remaining
from ...problems import coref_alignment as ca
from ..aggregation import PRF
from .corefud import (
    Alignment,
    DocumentResult,
    Prepared,
    allowed_pairs,
    document_counts,
    prepare,
    staged_alignment,
)

#: The metrics whose alignment is optimised (the scorer's order).
EXACT_METRICS = ("muc", "bcub", "ceafe", "ceafm", "lea")
#: ``--method``: the scorer's staged alignment, the metric-optimal one, or both with the gap.
METHODS = ("staged", "exact", "both")
#: An exact F1 above the staged one by more than this counts as a gap.
GAP_TOL = 1e-9


@dataclass(frozen=True, eq=False)
class Problem:
    """One document's alignment problem: the instance and the scorer's mention ids of its key
    (``key_ids[i]``) and response (``response_ids[j]``) mention indices."""

    instance: ca.MentionAlignmentInstance
    key_ids: tuple[int, ...]
    response_ids: tuple[int, ...]

    def indices(self, pairs) -> np.ndarray:
        """Scorer id pairs as an alignment of the instance's indices."""
        ki = {m: i for i, m in enumerate(self.key_ids)}
        ri = {m: j for j, m in enumerate(self.response_ids)}
        return ca.as_alignment((ki[k], ri[r]) for k, r in pairs)

    def ids(self, alignment) -> tuple[tuple[int, int], ...]:
        """An alignment of indices as scorer id pairs."""
        return tuple((self.key_ids[i], self.response_ids[j])
                     for i, j in np.asarray(alignment).reshape(-1, 2).tolist())


def problem(p: Prepared, match: str = "head", zero_match: str = "dependent") -> Problem:
    """The alignment problem of one prepared document (module docstring)."""
    key_ids = tuple(dict.fromkeys(i for c in p.key_clusters for i in c))
    resp_ids = tuple(dict.fromkeys(i for c in p.response_clusters for i in c))
    ki = {m: i for i, m in enumerate(key_ids)}
    ri = {m: j for j, m in enumerate(resp_ids)}
    pairs = allowed_pairs(p, match, zero_match)
    inst = ca.MentionAlignmentInstance(
        len(key_ids), len(resp_ids),
        tuple(tuple(ki[m] for m in c) for c in p.key_clusters),
        tuple(tuple(ri[m] for m in c) for c in p.response_clusters),
        np.array([ki[k] for k, _, _, _ in pairs], dtype=np.int64),
        np.array([ri[r] for _, r, _, _ in pairs], dtype=np.int64),
        np.array([w for *_, w in pairs], dtype=np.float64),
        np.array([s for _, _, s, _ in pairs], dtype=np.int64))
    return Problem(inst, key_ids, resp_ids)


def _prf(counts) -> PRF:
    pn, pd, rn, rd = counts
    return PRF(rn, rd, pn, pd)


@dataclass(frozen=True, eq=False)
class MetricComparison:
    """One metric on one document: the staged alignment counted on its pairs (``staged``), the
    scorer's own counts for it (``scorer``), and the metric-optimal alignment's certified solve
    (``exact``: F1 as objective, bound, status; its alignment as ``(key id, response id)``
    pairs in ``exact_pairs``) and counts. Counts are ``(precision num, precision den, recall
    num, recall den)``."""

    metric: str
    staged: tuple
    scorer: tuple
    exact: Result | None
    exact_counts: tuple | None
    exact_pairs: tuple = ()

    @property
    def staged_prf(self) -> PRF:
        return _prf(self.staged)

    @property
    def exact_prf(self) -> PRF | None:
        return None if self.exact_counts is None else _prf(self.exact_counts)

    @property
    def staged_f1(self) -> float:
        return ca.f1_of(self.staged)

    @property
    def exact_f1(self) -> float | None:
        return None if self.exact_counts is None else ca.f1_of(self.exact_counts)

    @property
    def gap(self) -> float | None:
        """Exact F1 minus the staged alignment's F1 (never negative)."""
        return None if self.exact_counts is None else self.exact_f1 - self.staged_f1

    @property
    def quirk(self) -> bool:
        """The scorer's counts for the staged alignment differ from the counts on its pairs
        (its one dict for both directions: module docstring)."""
        return not all(abs(a - b) <= 1e-9 * max(1.0, abs(a)) for a, b in
                       zip(self.staged, self.scorer, strict=True))


@dataclass(frozen=True, eq=False)
class ExactDocument:
    """One document: the scorer's result on the staged alignment and, per metric, the
    comparison with the metric-optimal alignment; ``words[i]`` the word positions of mention
    id ``i`` (``(sentence, ord)``)."""

    name: str
    staged: DocumentResult
    metrics: dict
    problem: Problem
    words: tuple = ()


@dataclass(frozen=True, eq=False)
class ExactScores:
    """A corpus under both alignments (module docstring). ``corpus`` holds, per metric, the
    solve of the corpus-level optimum (B³, LEA) or the combination of the documents' solves
    (MUC, CEAF), with its counts."""

    documents: tuple[ExactDocument, ...]
    metrics: tuple[str, ...]
    match: str
    zero_match: str
    keep_singletons: bool
    method: str
    corpus: dict = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    wall_time: float = 0.0
    #: the scorer's own scores on its staged alignment (every metric asked for, BLANC and the
    #: mention metrics too), when :func:`compare_files` was asked for them
    scorer: object | None = None

    def overall(self, kind: str = "exact") -> dict:
        """Metric -> :class:`PRF` summed over documents: ``staged`` (the staged alignment counted
        on its pairs), ``scorer`` (the scorer's numbers) or ``exact`` (the corpus optimum)."""
        out = {}
        for m in self.metrics:
            if kind == "exact":
                if m in self.corpus:
                    out[m] = _prf(self.corpus[m][1])
                continue
            s = [0.0, 0.0, 0.0, 0.0]
            for d in self.documents:
                c = getattr(d.metrics[m], kind)
                for i in range(4):
                    s[i] += c[i]
            out[m] = _prf(s)
        return out

    def conll(self, kind: str = "exact") -> float | None:
        o = self.overall(kind)
        if not all(m in o for m in ("muc", "bcub", "ceafe")):
            return None
        return (o["muc"].f1 + o["bcub"].f1 + o["ceafe"].f1) / 3


def compare_documents(pairs, metrics=EXACT_METRICS, *, match: str = "head",
                      zero_match: str = "dependent", keep_singletons: bool = False,
                      method: str = "both", backend: str = "highs",
                      time_limit: float | None = None, threads: int = 1, seed: int = 0,
                      warnings: tuple[str, ...] = ()) -> ExactScores:
    """Score paired CorefUD documents with the staged alignment and, unless ``method`` is
    ``staged``, solve each metric's optimal alignment per document and for the corpus.
    ``time_limit`` (seconds) bounds all the solves together: a solve reached after it ran out
    keeps the staged alignment with the bound F1 <= 1 (status TIME_LIMIT)."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose from " + ", ".join(METHODS))
    metrics = tuple(m for m in EXACT_METRICS if m in set(metrics))
    t0 = time.perf_counter()
    solve = method != "staged"
    docs = []
    for k, r in pairs:
        p = prepare(k, r, match, keep_singletons)
        a = staged_alignment(p, match, zero_match)
        scorer_counts = document_counts(p, a, metrics)
        staged = DocumentResult(p.name, scorer_counts, a,
                                sum(len(c) for c in p.key_clusters),
                                sum(len(c) for c in p.response_clusters))
        prob = problem(p, match, zero_match)
        start = prob.indices(a.pairs)
        per = {}
        for m in metrics:
            staged_counts = ca.evaluate(prob.instance, start, m)
            res = counts = None
            pairs_ = ()
            if solve:
                res = ca.solve(prob.instance, m, "exact", backend=backend,
                               time_limit=remaining(time_limit, time.perf_counter() - t0),
                               threads=threads, seed=seed, warm_start=start)
                counts = tuple(res.details["counts"])
                pairs_ = prob.ids(res.alignment)
            per[m] = MetricComparison(m, staged_counts, scorer_counts[m], res, counts, pairs_)
        docs.append(ExactDocument(p.name, staged, per, prob, tuple(p.words)))
    corpus = {}
    if solve:
        for m in metrics:
            corpus[m] = _corpus(docs, m, backend,
                                remaining(time_limit, time.perf_counter() - t0), threads, seed)
    return ExactScores(tuple(docs), metrics, match, zero_match, keep_singletons, method,
                       corpus, warnings, time.perf_counter() - t0)


def _corpus(docs, metric: str, backend, time_limit, threads, seed) -> tuple[Result, tuple]:
    """The corpus optimum of ``metric``: ``(solve, counts)``."""
    results = [d.metrics[metric].exact for d in docs]
    if metric not in ("bcub", "lea") or len(docs) <= 1:
        counts = [0.0, 0.0, 0.0, 0.0]
        for d in docs:
            for i in range(4):
                counts[i] += d.metrics[metric].exact_counts[i]
        f = ca.f1_of(counts)
        status = worst_status(r.status for r in results) if results else Status.OPTIMAL
        bound = None
        if metric not in ("bcub", "lea") and all(r.bound is not None for r in results):
            bound = _linear_corpus_bound(docs, metric, f)
        elif status is Status.OPTIMAL:
            bound = f
        res = Result(status, f, bound if status is not Status.OPTIMAL else f, None, "exact",
                     float(sum(r.wall_time for r in results)),
                     nodes=int(sum(r.nodes or 0 for r in results)),
                     backend=results[0].backend if results else None, seed=seed,
                     components=len(results), details={"documents": len(results)})
        return res, tuple(counts)
    inst, offsets = _union([d.problem.instance for d in docs])
    best = None
    for kind in ("staged", "exact"):
        al = []
        for d, (ok, orr) in zip(docs, offsets, strict=True):
            a = (d.problem.indices(d.staged.alignment.pairs) if kind == "staged"
                 else np.asarray(d.metrics[metric].exact.alignment).reshape(-1, 2))
            al.extend((k + ok, r + orr) for k, r in a.tolist())
        al = ca.as_alignment(al)
        v = ca.check(inst, al, metric)
        if best is None or v > best[0]:
            best = (v, al)
    res = ca.solve(inst, metric, "exact", backend=backend, time_limit=time_limit,
                   threads=threads, seed=seed, warm_start=best[1])
    return res.replace(components=len(docs)), tuple(res.details["counts"])


def _linear_corpus_bound(docs, metric: str, f: float) -> float:
    """For MUC and CEAF, F1 of a document is ``κ_d`` times its numerator; a bound on it bounds
    the numerator, and the corpus F1 is ``2 Σ num / (Σ pd + Σ rd)`` scaled the same way."""
    num, pd, rd = 0.0, 0.0, 0.0
    for d in docs:
        c = d.metrics[metric]
        r = c.exact
        cp = c.exact_counts
        pd += cp[1]
        rd += cp[3]
        if cp[0] != cp[2]:        # MUC with a mention in two entities: no linear bound
            return max(f, 1.0)
        if r.status is Status.OPTIMAL or not (cp[1] > 0 and cp[3] > 0):
            num += cp[0]
        else:                     # F1 = 2 n / (pd + rd)  =>  n <= bound (pd + rd) / 2
            num += r.bound * (cp[1] + cp[3]) / 2
    if pd <= 0 or rd <= 0:
        return f
    return max(f, min(1.0, 2 * num / (pd + rd)))


def _union(instances):
    """One instance of several documents' (indices offset), and the offsets."""
    ok = orr = 0
    kc, rc, rows, cols, w, s, offsets = [], [], [], [], [], [], []
    for inst in instances:
        offsets.append((ok, orr))
        kc.extend(tuple(m + ok for m in c) for c in inst.key_clusters)
        rc.extend(tuple(m + orr for m in c) for c in inst.response_clusters)
        rows.append(inst.rows + ok)
        cols.append(inst.cols + orr)
        w.append(inst.weight)
        s.append(inst.stage)
        ok += inst.n_key
        orr += inst.n_response

    def cat(a, dt):
        return np.concatenate(a).astype(dt) if a else np.zeros(0, dt)
    return ca.MentionAlignmentInstance(ok, orr, tuple(kc), tuple(rc), cat(rows, np.int64),
                                       cat(cols, np.int64), cat(w, np.float64),
                                       cat(s, np.int64)), offsets


def compare_files(key_path, response_path, metrics=EXACT_METRICS, *, scorer_metrics=(),
                  **options) -> ExactScores:
    """Read, pair and compare a key and a response CorefUD file (options as
    :func:`compare_documents`); ``scorer_metrics``: also the scorer's own scores of these
    metrics on its staged alignment (:attr:`ExactScores.scorer`; ``exactalign coref --method
    both``), on the options the comparison ran with, outside its time limit."""
    from dataclasses import replace

    from ...io.corefud import pair_corefud, read_corefud
    from .corefud import score_documents

    key = read_corefud(key_path)
    response = read_corefud(response_path)
    pairs = pair_corefud(key, response)
    warnings = tuple(f"{key.path}: {w}" for w in key.warnings) + tuple(
        f"{response.path}: {w}" for w in response.warnings)
    ex = compare_documents(pairs, metrics, warnings=warnings, **options)
    if not scorer_metrics:
        return ex
    return replace(ex, scorer=score_documents(pairs, scorer_metrics, match=ex.match,
                                              zero_match=ex.zero_match,
                                              keep_singletons=ex.keep_singletons,
                                              warnings=warnings))


__all__ = ["EXACT_METRICS", "GAP_TOL", "METHODS", "Alignment", "ExactDocument", "ExactScores",
           "MetricComparison", "Problem", "compare_documents", "compare_files", "problem"]
