"""Temporal awareness as the TempEval-3 toolkit computes it, one document at a time
(:func:`te3_document`).

``te3`` mode -- TempEval-3 toolkit (``temporal_evaluation.py`` + ``relation_to_timegraph.py``)
------------------------------------------------------------------------------------------------
1. Duplicates (same source, target, label after orientation) are dropped (``handled_relation``).
2. Links are inserted in file order into the toolkit's Timegraph, re-implemented with its case
   analysis (:class:`Timegraph`). A link with a new interval is placed unchecked. Between two
   known intervals the toolkit queries single point pairs (same chain: by pseudo time; else by
   a search of the metagraph, one-way reachability reading as ``<``), with these outcomes:
   *entailed* -> dropped from the reduced graph (``remove_from_reduce``); *possible* -> joined
   through the metagraph; *contradicted* -> set aside (``violated_relations``). Only the queried
   points are checked, so a link contradicting the graph only jointly (e.g. INCLUDES) can be
   added and make the graph inconsistent. Defects reproduced: (a) a BEGINS link between two
   known intervals is always set aside (its test ``x1_y1 == '=' and x1_y1 == 'UNKNOWN'`` can
   never hold); (b) a self link other than SIMULTANEOUS/IDENTITY is set aside, while
   ``X SIMULTANEOUS X`` with X new is kept; (c) a link with an unknown label is always set
   aside; (d) pseudo times of intervals placed before a chain head can coincide, so unrelated
   points read as equal (see :class:`Timegraph`) -- this changes scores on TE3-Platinum.
3. The reduced graph is the kept links in order, followed by the set-aside ones
   (``final_relations + violated_relations``): set-aside links stay in the denominators.
   A link the normaliser turned but whose label it cannot invert (VAGUE, NONE, ...) is
   written ``null``; set aside (upper-cased) it is not recognised among the set-aside links
   and counts twice, ``null`` and ``NULL`` (the inverse of such a label is it upper-cased).
4. A link of one reduced graph is credited when the other document has the same link written
   the same way or inverted (exact string match), or when the
   other Timegraph entails it (:meth:`Timegraph.entails`): a BEGINS link is never verified through
   closure (the same impossible test), and IDENTITY/SIMULTANEOUS need both point equalities.
"""

from __future__ import annotations

from ...io.timeml import TimeMLDocument
from .corpus import DocScore
from .links import align_ids, document_links, link_notes, order_key, written
from .normaliser import te3_link_ids
from .timegraph import Te3Graph, te3_graph

__all__ = ["te3_document"]


def _te3_matched(final, other: Te3Graph, other_written) -> int:
    count = 0
    for s, t, rel in final:
        if (s, t, rel) in other_written:
            count += 1
        elif other.graph.entails(s, t, rel):
            count += 1
    return count


def _te3_alignment(gold: TimeMLDocument, system: TimeMLDocument):
    """Node names of the reference's and the system's link endpoints, the orientation key and
    the unaligned system ids, as the toolkit sees them (:func:`te3_link_ids`): endpoints are
    named by their normalised ids and oriented by their numbers (events before timexes, then
    the lower number first), as the normaliser writes the links. An endpoint without
    normalised id (where the toolkit stops, see :func:`te3_link_ids`) keeps its own id and
    aligns by id and span (:func:`align_ids`). When the texts of ``<TEXT>`` differ (the
    toolkit stops: 'Tokens doesn't match'), the ids are those of :func:`align_ids`."""
    if gold.text != system.text:
        mapping, unaligned = align_ids(gold, system)
        return None, mapping, order_key(gold), unaligned
    ids = te3_link_ids(gold, system)
    by_id, _ = align_ids(gold, system)
    order: dict[str, tuple] = {}
    names: tuple[dict[str, str], dict[str, str]] = ({}, {})
    for side, doc in enumerate((gold, system)):
        for k in [*doc.events, *doc.timexes]:
            kind = 0 if k in doc.events else 1
            n = ids[side].get(k)
            if n is not None:
                order[n] = (kind, int(n[2 - kind:]), "")
            elif side == 0:
                n = "~" + k
            elif by_id.get(k) is not None and by_id[k] not in ids[0]:
                n = "~" + by_id[k]
            else:
                n = "~sys:" + k
            order.setdefault(n, (kind, -1, n))
            names[side][k] = n
    known = set(names[0].values())
    unaligned = [k for k, n in names[1].items() if n not in known]
    return names[0], names[1], lambda name: order.get(name, (2, 0, name)), unaligned


def te3_document(gold: TimeMLDocument, system: TimeMLDocument) -> DocScore:
    """One document scored as the TempEval-3 toolkit does (module docstring, ``te3``)."""
    g_names, s_names, key, unaligned = _te3_alignment(gold, system)
    g_links = document_links(gold, gold, g_names, key, turned_unknown="null")
    s_links = document_links(system, gold, s_names, key, turned_unknown="null")
    g, s = te3_graph(g_links), te3_graph(s_links)
    prec = _te3_matched(s.final, g, written(g_links))
    rec = _te3_matched(g.final, s, written(s_links))
    notes = link_notes(g_links, s_links, unaligned)
    if g_names is None:
        notes["texts_differ"] = True
    notes.update(gold_set_aside=len(g.set_aside), system_set_aside=len(s.set_aside),
                 gold_redundant=len(g.redundant), system_redundant=len(s.redundant))
    return DocScore(gold.doc_id, prec, len(s.final), rec, len(g.final), notes)

