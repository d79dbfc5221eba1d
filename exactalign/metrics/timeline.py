"""Event timelines from TimeML, matched without ids under the order constraint.

A document's *timeline* (:func:`timeline`) is the strict partial order of its event instances
given by the transitive closure of its explicit event-event TLINKs of type ``BEFORE`` and
``IBEFORE`` (source before target) and ``AFTER`` and ``IAFTER`` (target before source); every
other relation type, and every link involving a TIMEX3, is ignored. Links are added in file
order; a link that would close a cycle (the document is temporally inconsistent) is dropped and
counted in :attr:`Timeline.dropped`. Reference events are numbered in document order (text
offset, then id); system events are renumbered in a seeded random order (:func:`shuffled`), so
that no method can exploit the positions through the tie-breaking of equal weights.

A system timeline is matched to the reference one with :mod:`exactalign.problems.monotone`
*without using ids*: the similarity of a reference and a system event is 1 when their texts are
equal ignoring case and their classes are equal, 0.5 when only the texts are, and 0 otherwise.
Repeated words ("said", "war") make this ambiguous; the order has to resolve it. The methods
compared (:data:`METHODS`):

``dag``            the exact monotone matching of the two partial orders (proven optimal);
``dag-greedy``, ``dag-linext``, ``dag-local``  the monotone heuristics;
``sequence``       the exact DP on each timeline read as a sequence: a linear extension of the
                   order taking, among the events that are ready, the earliest in the text (so
                   this reading, unlike the others, uses the narrative order);
``unconstrained``  the maximum-weight assignment of :mod:`~exactalign.problems.bipartite`,
                   which ignores the order.

The TimeML files of the pilot data share event-instance ids between reference and system, so
the *id-based alignment* (same ``eiid``) is the ground truth: :attr:`DocTimeline.recovered`
counts the truth pairs each method finds.

The order-aware score (Chen et al. 2023, §5 with their normalisation by self-similarity): the
weight of the exact monotone matching, over the number of system events (precision) and of
reference events (recall) -- each event scores 1 against itself. Counts are summed over
documents (micro average, :mod:`~exactalign.metrics.aggregation`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.result import Result
from ..io.timeml import TimeMLDocument
from ..problems import bipartite, monotone
from .aggregation import PRF, micro

#: Relation type -> True when the source precedes the target, False when it follows it.
ORDER_RELATIONS = {"BEFORE": True, "IBEFORE": True, "AFTER": False, "IAFTER": False}

#: Similarity of two events with equal text (ignoring case): class equal / class different.
SAME_CLASS, OTHER_CLASS = 1.0, 0.5

METHODS = ("dag", "dag-greedy", "dag-linext", "dag-local", "sequence", "unconstrained")


@dataclass(frozen=True, eq=False)
class Timeline:
    """The event instances of a document (in document order) and their partial order."""

    doc_id: str
    ids: tuple[str, ...]
    texts: tuple[str, ...]
    classes: tuple[str | None, ...]
    positions: tuple[int, ...]  # text offset (-1 outside the text): only the sequence reading
    order: monotone.Order
    links: int  # order links used
    dropped: int  # order links dropped because they closed a cycle

    @property
    def n(self) -> int:
        return len(self.ids)


def timeline(doc: TimeMLDocument) -> Timeline:
    """The timeline of ``doc`` (module docstring)."""
    events = sorted(doc.events.values(),
                    key=lambda e: (-1 if e.start is None else e.start, e.key))
    ids = tuple(e.key for e in events)
    index = {k: i for i, k in enumerate(ids)}
    n = len(ids)
    reach = np.zeros((n, n), dtype=bool)
    used = dropped = 0
    for link in doc.tlinks:
        forward = ORDER_RELATIONS.get(link.rel_type)
        if forward is None or link.source not in index or link.target not in index:
            continue
        u, v = index[link.source], index[link.target]
        if not forward:
            u, v = v, u
        if u == v or reach[v, u]:
            dropped += 1
            continue
        used += 1
        src = reach[:, u].copy()
        src[u] = True
        dst = reach[v].copy()
        dst[v] = True
        reach |= np.outer(src, dst)
    return Timeline(doc.doc_id, ids, tuple(e.text for e in events),
                    tuple(e.eclass for e in events),
                    tuple(-1 if e.start is None else e.start for e in events),
                    monotone.Order.from_relation(reach, what=f"timeline of {doc.doc_id}"),
                    used, dropped)


def similarity(gold: Timeline, system: Timeline) -> bipartite.BipartiteInstance:
    """Candidate pairs by event text and class (module docstring), ids unused."""
    gt = np.array([t.lower() for t in gold.texts], dtype=object)
    st = np.array([t.lower() for t in system.texts], dtype=object)
    same_text = gt[:, None] == st[None, :] if gold.n and system.n else \
        np.zeros((gold.n, system.n), dtype=bool)
    gc = np.array(gold.classes, dtype=object)
    sc = np.array(system.classes, dtype=object)
    same_class = gc[:, None] == sc[None, :] if gold.n and system.n else same_text
    W = np.where(same_text, np.where(same_class, SAME_CLASS, OTHER_CLASS), 0.0)
    return bipartite.BipartiteInstance.from_dense(W.reshape(gold.n, system.n))


def id_alignment(gold: Timeline, system: Timeline) -> np.ndarray:
    """The ground truth: ``(reference, system)`` index pairs of events with the same id."""
    sys_index = {k: j for j, k in enumerate(system.ids)}
    pairs = [(i, sys_index[k]) for i, k in enumerate(gold.ids) if k in sys_index]
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


@dataclass(frozen=True, eq=False)
class DocTimeline:
    """One document: every method's verified :class:`Result` (alignments in event indices of
    the two timelines), the id-based truth, and what each method recovers of it."""

    doc_id: str
    gold: Timeline
    system: Timeline
    pairs: bipartite.BipartiteInstance  # the candidate pairs (similarities)
    results: dict[str, Result]
    truth: np.ndarray
    truth_monotone: bool  # the id-based alignment itself respects both orders
    recovered: dict[str, int] = field(default_factory=dict)

    @property
    def prf(self) -> PRF:
        """Order-aware counts: exact monotone weight over system and reference events."""
        return PRF.from_tp(self.results["dag"].objective, self.gold.n, self.system.n)


def shuffled(tl: Timeline, seed) -> Timeline:
    """``tl`` with its events renumbered in a random order (``numpy.random.default_rng(seed)``),
    so that no method profits from the document order through index tie-breaking."""
    perm = np.random.default_rng(seed).permutation(tl.n)
    less = tl.order.less[np.ix_(perm, perm)]
    return Timeline(tl.doc_id, tuple(tl.ids[i] for i in perm), tuple(tl.texts[i] for i in perm),
                    tuple(tl.classes[i] for i in perm), tuple(tl.positions[i] for i in perm),
                    monotone.Order.from_relation(less),
                    tl.links, tl.dropped)


def match_document(gold: TimeMLDocument, system: TimeMLDocument | None, *,
                   backend: str = "highs", time_limit: float | None = None,
                   methods=METHODS, seed=0) -> DocTimeline:
    """Every method of ``methods`` on one document (a missing system document is an empty
    timeline). The system's events are :func:`shuffled` with ``seed``."""
    g = timeline(gold)
    s = shuffled(timeline(system), seed) if system is not None else Timeline(
        gold.doc_id, (), (), (), (), monotone.Order.sequence(0), 0, 0)
    pairs = similarity(g, s)
    inst = monotone.MonotoneInstance(g.order, s.order, pairs)
    truth = id_alignment(g, s)
    results: dict[str, Result] = {}
    for m in methods:
        if m == "dag":
            results[m] = monotone.solve(inst, "ilp", backend=backend, time_limit=time_limit)
        elif m.startswith("dag-"):
            results[m] = monotone.solve(inst, m[4:])
        elif m == "sequence":
            results[m] = _solve_sequence(g, s, pairs)
        elif m == "unconstrained":
            results[m] = bipartite.solve(pairs, "exact")
        else:
            raise ValueError(f"unknown timeline method {m!r}; choose from " + ", ".join(METHODS))
    truth_keys = {tuple(p) for p in truth.tolist()}
    recovered = {m: sum(tuple(p) in truth_keys for p in r.alignment.tolist())
                 for m, r in results.items()}
    try:
        monotone.check(monotone.MonotoneInstance(
            g.order, s.order, bipartite.BipartiteInstance.from_pairs(
                truth, np.ones(len(truth)), g.n, s.n)), truth)
        truth_monotone = True
    except monotone.InfeasibleAlignmentError:
        truth_monotone = False
    return DocTimeline(gold.doc_id, g, s, pairs, results, truth, truth_monotone, recovered)


def _solve_sequence(g: Timeline, s: Timeline, pairs: bipartite.BipartiteInstance) -> Result:
    """The exact DP on the two timelines read as sequences; the alignment is mapped back to
    event indices (it is then monotone for the sequences, not necessarily for the DAGs)."""
    lg = g.order.linear_extension(g.positions)
    ls = s.order.linear_extension(s.positions)
    pg, ps = np.empty_like(lg), np.empty_like(ls)
    pg[lg], ps[ls] = np.arange(len(lg)), np.arange(len(ls))
    seq = monotone.MonotoneInstance(
        monotone.Order.sequence(g.n), monotone.Order.sequence(s.n),
        bipartite.BipartiteInstance(g.n, s.n, pg[pairs.rows], ps[pairs.cols], pairs.weights))
    r = monotone.solve(seq, "dp")
    al = np.stack([lg[r.alignment[:, 0]], ls[r.alignment[:, 1]]], axis=1).reshape(-1, 2)
    al = al[np.lexsort((al[:, 1], al[:, 0]))]
    return Result(r.status, bipartite.check(pairs, al), r.bound, al, "sequence", r.wall_time,
                  details={**r.details, "problem": "the two linear extensions as sequences"})


@dataclass(frozen=True, eq=False)
class CorpusTimeline:
    documents: list[DocTimeline]

    @property
    def prf(self) -> PRF:
        """The documents' order-aware counts summed (micro average)."""
        return micro(d.prf for d in self.documents)

    def recovery(self, method: str) -> tuple[int, int]:
        """(truth pairs recovered by ``method``, truth pairs) over the corpus."""
        return (sum(d.recovered[method] for d in self.documents),
                sum(len(d.truth) for d in self.documents))


def match_corpus(gold: dict[str, TimeMLDocument], system: dict[str, TimeMLDocument], *,
                 backend: str = "highs", time_limit: float | None = None,
                 methods=METHODS, seed: int = 0) -> CorpusTimeline:
    """:func:`match_document` on every reference document (system documents without a
    reference are an error)."""
    from ..core.errors import InputError

    extra = sorted(set(system) - set(gold))
    if extra:
        raise InputError(f"system document {extra[0]!r} has no reference document",
                         path=str(system[extra[0]].path))
    return CorpusTimeline([match_document(doc, system.get(k), backend=backend,
                                          time_limit=time_limit, methods=methods,
                                          seed=[seed, i])
                           for i, (k, doc) in enumerate(gold.items())])
