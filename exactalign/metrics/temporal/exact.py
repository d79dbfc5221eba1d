"""Temporal awareness on maximum consistent subsets, closed exactly, one document at a time
(:func:`exact_document`).

``exact`` mode
--------------
Each graph is reduced to a maximum consistent subset (exact ILP, proven, unit weight per unique
link), its closure computed exactly (:class:`~exactalign.problems.temporal.Closure`), and the
kept links reduced to a *transitive reduction*: links are visited in canonical order (by
entity ids and label, not file order) and dropped when the others left entail them, so no
remaining link is entailed by the rest. The scored links of a graph are that reduction plus the
links the subset dropped (they stay in the denominator, as in the toolkit); a link is credited
when the other graph's consistent closure entails it (every relation, BEGINS included), and a
link with an unknown label when the other document has it verbatim.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...io.timeml import TimeMLDocument
from ...problems import temporal as tp
from .corpus import DocScore
from .links import align_ids, canonical_unique, document_links, link_notes, written

__all__ = ["exact_graph", "exact_document"]


@dataclass
class _ExactGraph:
    inst: tp.TemporalInstance
    closure: tp.Closure
    scored: list[int]              # link indices in the reduction, then dropped ones
    dropped: list[int]
    result: object


def exact_graph(links, *, backend: str = "highs", time_limit: float | None = None
                ) -> _ExactGraph:
    """Maximum consistent subset, its closure and a canonical transitive reduction."""
    unique = canonical_unique(links)
    inst = tp.TemporalInstance.from_links(unique)
    res = tp.solve(inst, "exact", backend=backend, time_limit=time_limit)
    kept = np.zeros(inst.n_links, bool)
    kept[np.asarray(res.alignment, dtype=np.int64)] = True
    closure = tp.Closure(inst, kept)
    order = sorted(np.flatnonzero(kept).tolist(), key=lambda k: unique[k][:3])
    reduction = tp.transitive_reduction(inst, kept, order)
    dropped = [int(k) for k in np.flatnonzero(~kept)]
    return _ExactGraph(inst, closure, [int(k) for k in np.flatnonzero(reduction)] + dropped,
                       dropped, res)


def _exact_matched(g: _ExactGraph, other: _ExactGraph, other_written) -> int:
    idx = {n: i for i, n in enumerate(other.inst.nodes)}
    count = 0
    for k in g.scored:
        s, t, rel = g.inst.nodes[g.inst.src[k]], g.inst.nodes[g.inst.dst[k]], g.inst.rel[k]
        if not tp.is_known(rel):
            count += (s, t, rel) in other_written
        elif s in idx and t in idx and other.closure.entails(idx[s], idx[t], rel):
            count += 1
    return count


def exact_document(gold: TimeMLDocument, system: TimeMLDocument, *, backend: str = "highs",
                   time_limit: float | None = None) -> DocScore:
    """One document in ``exact`` mode (module docstring)."""
    mapping, unaligned = align_ids(gold, system)
    g_links = document_links(gold, gold)
    s_links = document_links(system, gold, mapping)
    g = exact_graph(g_links, backend=backend, time_limit=time_limit)
    s = exact_graph(s_links, backend=backend, time_limit=time_limit)
    prec = _exact_matched(s, g, written(g_links))
    rec = _exact_matched(g, s, written(s_links))
    notes = link_notes(g_links, s_links, unaligned)
    notes.update(gold_dropped=len(g.dropped), system_dropped=len(s.dropped),
                 gold_status=g.result.status.value, system_status=s.result.status.value)
    return DocScore(gold.doc_id, prec, len(s.scored), rec, len(g.scored), notes)

