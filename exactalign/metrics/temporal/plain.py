"""Link scores without closure (TempEval-1 and -2), one document at a time
(:func:`plain_document`)."""

from __future__ import annotations

from ...io.timeml import TimeMLDocument
from .corpus import DocScore
from .links import align_ids, canonical_unique, document_links, link_notes, written

__all__ = ["plain_document"]


def plain_document(gold: TimeMLDocument, system: TimeMLDocument) -> DocScore:
    """One document scored without closure, as TempEval-1 and -2 did and as UzZaman & Allen
    (2011, §1-3) contrast with temporal awareness: precision = system links stated in the
    reference (a link or its inverse, relation for relation) / system links; recall = reference
    links stated in the system output / reference links. Links are counted once (a link and its
    inverse are one link)."""
    mapping, unaligned = align_ids(gold, system)
    g_links = document_links(gold, gold)
    s_links = document_links(system, gold, mapping)
    g, s = canonical_unique(g_links), canonical_unique(s_links)
    g_written, s_written = written(g), written(s)
    prec = sum(link in g_written for link in s)
    rec = sum(link in s_written for link in g)
    return DocScore(gold.doc_id, prec, len(s), rec, len(g), link_notes(g_links, s_links, unaligned))

