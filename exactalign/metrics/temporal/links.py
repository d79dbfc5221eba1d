"""A document's TLINKs as every mode scores them: system ids mapped to the reference's,
links oriented and labelled as the TimeML-Normalizer writes them; and the small helpers the
modes share (a link written both ways, unique links, what was noticed on the way).

Common steps (all modes)
------------------------
* Ids: in ``exact`` and ``plain`` mode, system entities are mapped to reference entities by id
  when both files use the id for the same character span, else by identical span
  (:func:`align_ids`). ``te3`` mode aligns them as the toolkit's TimeML-Normalizer does before
  the links are read (:func:`~exactalign.metrics.temporal.normaliser.te3_link_ids`): events by
  first token, timexes by overlap (one to one, in text order), the DCTs with each other, event
  instances by MAKEINSTANCE order, with the toolkit's tokenizer -- so ``last Friday`` aligns
  with ``Friday`` and ``left town`` with ``left`` (where the texts of ``<TEXT>`` differ the
  toolkit stops; ``te3`` then falls back to :func:`align_ids` and notes ``texts_differ``).
  Either way, unaligned system entities keep a private id (their links stay, in the precision
  denominator) and are reported.
* Orientation: as the normaliser writes them, every link is turned so that an event comes before
  a timex and, between two of a kind, the one earlier in the reference text (the DCT first) is
  the source (``te3``: the lower normalised number -- text order of first tokens, an event's
  further instances after every first instance); the label is inverted when turned
  (:data:`~exactalign.problems.temporal.INVERSE`). The normaliser also writes every IDENTITY as
  SIMULTANEOUS, which matters for exact matches.
* Labels are upper-cased; DURING and DURING_INV read as SIMULTANEOUS (toolkit's
  ``consider_DURING_as_SIMULTANEOUS``); labels without point semantics (VAGUE, ...) are reported.
"""

from __future__ import annotations

from ...io.timeml import TimeMLDocument
from ...problems import temporal as tp

__all__ = ["align_ids", "order_key", "document_links", "written", "canonical_unique",
           "link_notes"]


def align_ids(gold: TimeMLDocument, system: TimeMLDocument) -> tuple[dict[str, str], list[str]]:
    """``system id -> reference id`` (see the module docstring) and the unaligned system ids."""
    def span_table(doc):
        table = {}
        for k, e in doc.events.items():
            table.setdefault(("e", e.start, e.end, e.eiid is not None), k)
        for k, t in doc.timexes.items():
            if t.start is not None:
                table.setdefault(("t", t.start, t.end), k)
        return table

    by_span = span_table(gold)
    mapping, unaligned = {}, []
    for k, e in system.events.items():
        g = gold.events.get(k)
        if g is not None and (g.start, g.end) == (e.start, e.end):
            mapping[k] = k
        elif (key := by_span.get(("e", e.start, e.end, e.eiid is not None))) is not None:
            mapping[k] = key
        else:
            unaligned.append(k)
    for k, t in system.timexes.items():
        g = gold.timexes.get(k)
        if k == system.dct and gold.dct is not None:
            mapping[k] = gold.dct
        elif g is not None and (g.start, g.end) == (t.start, t.end):
            mapping[k] = k
        elif t.start is not None and (key := by_span.get(("t", t.start, t.end))) is not None:
            mapping[k] = key
        else:
            unaligned.append(k)
    return mapping, unaligned


def order_key(gold: TimeMLDocument):
    """Sort key of a (reference) id: events first, then by text position, DCT first."""
    def key(ident: str):
        if ident in gold.events:
            e = gold.events[ident]
            return (0, -1 if e.start is None else e.start, ident)
        if ident in gold.timexes:
            t = gold.timexes[ident]
            return (1, -1 if ident == gold.dct or t.start is None else t.start, ident)
        return (2, 0, ident)
    return key


# the labels the TimeML-Normalizer can invert (reverseRelationCategory); it writes any other
# label of a link it turns as "null"
_NORMALISER_INVERTS = frozenset({
    "BEFORE", "AFTER", "IBEFORE", "IAFTER", "DURING", "DURING_INV", "BEGINS", "BEGUN_BY", "ENDS",
    "ENDED_BY", "OVERLAPS", "OVERLAPPED_BY", "INCLUDES", "IS_INCLUDED", "IDENTITY",
    "SIMULTANEOUS"})


def document_links(doc: TimeMLDocument, gold: TimeMLDocument,
                   mapping: dict[str, str] | None = None, key=None, *,
                   turned_unknown: str | None = None) -> list[tuple[str, str, str]]:
    """The document's TLINKs as ``(source, target, label)`` in file order, ids mapped to the
    reference's, oriented and labelled as in the module docstring (duplicates kept). ``key``
    orders the (mapped) ids for orientation; by default the reference's text order. A turned
    link whose label the normaliser cannot invert is labelled ``turned_unknown`` when given
    (``te3``: ``"null"``, as the normaliser writes it), else keeps its label."""
    key = order_key(gold) if key is None else key
    out = []
    for lk in doc.tlinks:
        s = mapping.get(lk.source, "sys:" + lk.source) if mapping is not None else lk.source
        t = mapping.get(lk.target, "sys:" + lk.target) if mapping is not None else lk.target
        rel = lk.rel_type.strip().upper()
        if rel == "IDENTITY":   # the TimeML-Normalizer writes every IDENTITY as SIMULTANEOUS
            rel = "SIMULTANEOUS"
        if key(t) < key(s) and s != t:
            if turned_unknown is not None and rel not in _NORMALISER_INVERTS:
                out.append((t, s, turned_unknown))
                continue
            s, t, rel = t, s, tp.INVERSE.get(rel, rel)
        out.append((s, t, tp.canonical_relation(rel)))
    return out


def written(links) -> set[tuple[str, str, str]]:
    """Every link and its inverse, as the toolkit's ``get_triples`` writes them (the inverse
    of a label without one: the label upper-cased)."""
    out = set()
    for s, t, rel in links:
        out.add((s, t, rel))
        if s != t:
            out.add((t, s, tp.INVERSE.get(rel, rel.upper())))
    return out


def canonical_unique(links):
    """Unique links, a link and its inverse counted once (the orientation of the first)."""
    seen, out = set(), []
    for s, t, rel in links:
        if (s, t, rel) in seen or (t, s, tp.INVERSE.get(rel, rel)) in seen:
            continue
        seen.add((s, t, rel))
        out.append((s, t, rel))
    return out


def link_notes(g_links, s_links, unaligned) -> dict:
    """What was noticed on the way (a :class:`~exactalign.metrics.temporal.corpus.DocScore`'s
    ``notes``): per side, links, duplicates, self links and labels without point semantics;
    and the unaligned system ids."""
    def count(links):
        return {"links": len(links), "duplicates": len(links) - len(set(links)),
                "self": sum(s == t for s, t, _ in links),
                "unknown_labels": sorted({r for _, _, r in links if not tp.is_known(r)})}
    return {"gold": count(g_links), "system": count(s_links), "unaligned": unaligned}

