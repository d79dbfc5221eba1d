"""ERE inter-annotator agreement (Kulick, Bies & Mott 2014, "Inter-Annotator Agreement for ERE
Annotation"): the match categories the paper reports, derived from a mention mapping between
File A and File B.

The mapping itself -- the paper's procedure and the exact lexicographic optimum it aims at,
with certificate, brute force and checker -- is a matching problem,
:mod:`exactalign.problems.ere`; this module reads two annotated documents through it
(:func:`compare_document`) and counts.

Reports (Sections 2.2-5)
------------------------
* mentions: exact / overlap / unmatched-in-A / unmatched-in-B counts; each overlap match
  categorised by its edge differences (:func:`edge_category`); level (NAM/NOM/PRO) mismatches.
* entities (:func:`entity_categories`): ``complete`` -- a 1-1 correspondence between the
  mentions of ``x`` and ``y``; ``incomplete`` -- every mapped mention of ``x`` maps into ``y``
  and every mapped mention of ``y`` into ``x``, but some mention of either is unmapped;
  ``no_match`` otherwise (including an entity with no mapped mention). Type mismatches listed
  for complete and incomplete pairs.
* relations (:func:`relation_categories`): argument mentions mapped (arg1 to arg1, arg2 to arg2)
  onto one relation of the other file; then ``exact`` (type, subtype and trigger agree),
  ``types_different``, ``triggers_different`` (types agree), else ``no_match``. Triggers agree
  when both are absent or both mapped to each other by the trigger mapping.
* events (:func:`event_categories`): every argument -- (role, mapped mention) or (role, mapped
  date) -- and the trigger map onto one event of the other file: ``exact`` when the
  type/subtype agree, else ``types_different``; ``no_match`` otherwise (an unmapped argument or
  trigger makes a no match, the paper's footnote 5).

Readings stated: relation and event triggers and event dates get their own mappings, built
with the same method as the mention mapping (Section 5 "establish a mapping ... as we did for
the entity mentions"); identical trigger (date) spans count once. Each relation or event is
categorised against the other file independently (the paper states no 1:1 pairing of
relations); among several candidates the best category counts (exact first).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..io.ere import EreDocument, Span
from ..problems.ere import Mapping, SpanPairs, check, map_spans, procedure, span_pairs

#: Words whose presence alone at an edge makes a "determiner" edge difference (our list: the
#: paper names determiners and punctuation as the examples of edge material).
DETERMINERS = frozenset("the a an this that these those its his her their our my your some any "
                        "each every all both no".split())


# --------------------------------------------------------------------------------------------
# mention report
# --------------------------------------------------------------------------------------------
def _material(text: str | None, b: int, e: int) -> str:
    if text is None:
        return ""
    s = text[b:e].strip()
    if not s:
        return "space"
    if not any(c.isalnum() for c in s):
        return "punctuation"
    words = [w.strip(".,;:!?\"'()").lower() for w in s.split()]
    return "determiner" if all(w in DETERMINERS for w in words if w) else "other"


def edge_category(sa: Span, sb: Span, text: str | None = None) -> str:
    """The edge difference of two overlapping spans, e.g. ``left: B+determiner; right: same``
    -- per edge ``same``, or which file's mention extends further and, with the text, what the
    extra material is (``determiner``, ``punctuation``, ``space``, ``other``). Spans with
    identical outer edges but different pieces are ``inner pieces differ``."""
    ba, ea, bb, eb = sa[0][0], sa[-1][1], sb[0][0], sb[-1][1]
    if (ba, ea) == (bb, eb):
        return "inner pieces differ"
    parts = []
    for name, x, y, lo_first in (("left", ba, bb, True), ("right", ea, eb, False)):
        if x == y:
            parts.append(f"{name}: same")
            continue
        longer = ("A" if x < y else "B") if lo_first else ("A" if x > y else "B")
        mat = _material(text, min(x, y), max(x, y))
        parts.append(f"{name}: {longer}+{mat}" if mat else f"{name}: {longer}")
    return "; ".join(parts)


def mention_report(da: EreDocument, db: EreDocument, m: Mapping) -> dict:
    """Counts of exact, overlap and unmatched mentions; overlap categories; level mismatches."""
    text = da.text if da.text is not None else db.text
    cats: Counter = Counter()
    levels = []
    for (a, b), ex in zip(m.pairs.tolist(), m.exact.tolist(), strict=True):
        ma, mb = da.mentions[a], db.mentions[b]
        if not ex:
            cats[edge_category(ma.span, mb.span, text)] += 1
        if ma.level != mb.level:
            levels.append([ma.id, mb.id, ma.level, mb.level])
    n_exact = int(m.exact.sum())
    return {"exact": n_exact, "overlap": m.count - n_exact,
            "unmatched_a": len(da.mentions) - m.count, "unmatched_b": len(db.mentions) - m.count,
            "total_overlap": m.total_overlap, "overlap_categories": dict(sorted(cats.items())),
            "level_mismatches": levels}


# --------------------------------------------------------------------------------------------
# entities, relations, events
# --------------------------------------------------------------------------------------------
ENTITY_CATEGORIES = ("complete", "incomplete", "no_match")
RELATION_CATEGORIES = ("exact", "types_different", "triggers_different", "no_match")
EVENT_CATEGORIES = ("exact", "types_different", "no_match")


def entity_categories(da: EreDocument, db: EreDocument, m: Mapping) -> dict:
    """``{"a": {entity: [category, partner]}, "b": {...}, "type_mismatches": [...]}``."""
    ia, ib = da.mention_index(), db.mention_index()
    fwd = m.as_dict()
    back = {b: a for a, b in fwd.items()}
    ent_a = [x.entity for x in da.mentions]
    ent_b = [x.entity for x in db.mentions]
    cat_a, cat_b, types = {}, {}, []
    ents_b = {e.id: e for e in db.entities}
    for x in da.entities:
        idx = [ia[k] for k in x.mentions]
        targets = {ent_b[fwd[i]] for i in idx if i in fwd}
        if len(targets) != 1:
            cat_a[x.id] = ["no_match", None]
            continue
        y = ents_b[targets.pop()]
        jdx = [ib[k] for k in y.mentions]
        if {ent_a[back[j]] for j in jdx if j in back} != {x.id}:
            cat_a[x.id] = ["no_match", None]
            continue
        full = all(i in fwd for i in idx) and all(j in back for j in jdx)
        category = "complete" if full else "incomplete"
        cat_a[x.id], cat_b[y.id] = [category, y.id], [category, x.id]
        if x.type != y.type:
            types.append([x.id, y.id, x.type, y.type])
    for y in db.entities:
        cat_b.setdefault(y.id, ["no_match", None])
    return {"a": cat_a, "b": cat_b, "type_mismatches": types}


def _unique_spans(spans: list[Span]) -> tuple[list[Span], dict[Span, int]]:
    uniq = list(dict.fromkeys(spans))
    return uniq, {s: i for i, s in enumerate(uniq)}


def _side_map(spans_a: list[Span], spans_b: list[Span], mapping: str, options: dict
              ) -> tuple[dict[Span, int], dict[Span, int], dict[int, int], Mapping]:
    ua, ia = _unique_spans(spans_a)
    ub, ib = _unique_spans(spans_b)
    if not ua or not ub:  # nothing to map (most documents: no triggers or dates)
        return ia, ib, {}, procedure(span_pairs(ua, ub))
    _, m = map_spans(ua, ub, mapping, **options)
    return ia, ib, m.as_dict(), m


def relation_categories(da: EreDocument, db: EreDocument, m: Mapping, mapping: str = "procedure",
                        **options) -> dict:
    """Relation categories of both files (module docstring); the trigger mapping is built with
    ``mapping``. Returns ``{"a": {id: [category, partner]}, "b": ..., "triggers": Mapping}``."""
    ta = [r.trigger for r in da.relations if r.trigger is not None]
    tb = [r.trigger for r in db.relations if r.trigger is not None]
    tia, tib, tmap, tm = _side_map(ta, tb, mapping, options)
    out = {}
    for side, x, y, mm, ix, iy, tm_fwd, tix, tiy in (
            ("a", da, db, m.as_dict(), da.mention_index(), db.mention_index(), tmap, tia, tib),
            ("b", db, da, {b: a for a, b in m.as_dict().items()}, db.mention_index(),
             da.mention_index(), {b: a for a, b in tmap.items()}, tib, tia)):
        by_args: dict[tuple[int, int], list] = {}
        for s in y.relations:
            by_args.setdefault((iy[s.args[0]], iy[s.args[1]]), []).append(s)
        cats = {}
        for r in x.relations:
            args = tuple(mm.get(ix[g]) for g in r.args)
            best = ["no_match", None]
            for s in by_args.get(args, []) if None not in args else []:
                same_type = (r.type, r.subtype) == (s.type, s.subtype)
                same_trig = (r.trigger is None and s.trigger is None) or (
                    r.trigger is not None and s.trigger is not None
                    and tm_fwd.get(tix[r.trigger]) == tiy[s.trigger])
                c = ("exact" if same_trig else "triggers_different") if same_type \
                    else "types_different"
                if RELATION_CATEGORIES.index(c) < RELATION_CATEGORIES.index(best[0]):
                    best = [c, s.id]
            cats[r.id] = best
        out[side] = cats
    out["triggers"] = tm
    return out


def event_categories(da: EreDocument, db: EreDocument, m: Mapping, mapping: str = "procedure",
                     **options) -> dict:
    """Event categories of both files (module docstring); trigger and date mappings built with
    ``mapping``. Returns ``{"a": ..., "b": ..., "triggers": Mapping, "dates": Mapping}``."""
    tia, tib, tmap, tm = _side_map([v.trigger for v in da.events],
                                   [v.trigger for v in db.events], mapping, options)
    dates_a = [g.date for v in da.events for g in v.args if g.date is not None]
    dates_b = [g.date for v in db.events for g in v.args if g.date is not None]
    dia, dib, dmap, dm = _side_map(dates_a, dates_b, mapping, options)
    mfwd = m.as_dict()
    out = {}
    for side, x, y, mm, ix, iy, tf, tix, tiy, df, dix, diy in (
            ("a", da, db, mfwd, da.mention_index(), db.mention_index(), tmap, tia, tib, dmap,
             dia, dib),
            ("b", db, da, {b: a for a, b in mfwd.items()}, db.mention_index(),
             da.mention_index(), {b: a for a, b in tmap.items()}, tib, tia,
             {b: a for a, b in dmap.items()}, dib, dia)):

        def own(v, iy=iy, diy=diy, tiy=tiy):
            args = Counter((g.role, "m", iy[g.mention]) if g.mention is not None
                           else (g.role, "d", diy[g.date]) for g in v.args)
            return tiy[v.trigger], frozenset(args.items())

        index: dict = {}
        for s in y.events:
            index.setdefault(own(s), []).append(s)
        cats = {}
        for v in x.events:
            mapped = [(g.role, "m", mm.get(ix[g.mention])) if g.mention is not None
                      else (g.role, "d", df.get(dix[g.date])) for g in v.args]
            trig = tf.get(tix[v.trigger])
            best = ["no_match", None]
            if trig is not None and all(t[2] is not None for t in mapped):
                for s in index.get((trig, frozenset(Counter(mapped).items())), []):
                    c = "exact" if (v.type, v.subtype) == (s.type, s.subtype) \
                        else "types_different"
                    if EVENT_CATEGORIES.index(c) < EVENT_CATEGORIES.index(best[0]):
                        best = [c, s.id]
            cats[v.id] = best
        out[side] = cats
    out["triggers"], out["dates"] = tm, dm
    return out


# --------------------------------------------------------------------------------------------
# documents and corpora
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class DocumentAgreement:
    """Everything the paper reports for one document under one mapping method."""

    name: str
    mapping: str
    pairs: SpanPairs
    mentions: Mapping
    mention_report: dict
    entities: dict
    relations: dict
    events: dict
    mention_ids: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())

    def counts(self) -> dict:
        """Category counts: ``mentions`` (exact, overlap, unmatched_a, unmatched_b,
        total_overlap), ``entities_a``/``entities_b``, ``relations_a``/``_b``,
        ``events_a``/``_b``, ``entity_type_mismatches``."""
        r = self.mention_report
        out = {"mentions": {k: r[k] for k in ("exact", "overlap", "unmatched_a", "unmatched_b",
                                              "total_overlap")}}
        for kind, cats, names in (("entities", self.entities, ENTITY_CATEGORIES),
                                  ("relations", self.relations, RELATION_CATEGORIES),
                                  ("events", self.events, EVENT_CATEGORIES)):
            for side in ("a", "b"):
                c = Counter(v[0] for v in cats[side].values())
                out[f"{kind}_{side}"] = {n: c.get(n, 0) for n in names}
        out["entity_type_mismatches"] = len(self.entities["type_mismatches"])
        return out


def compare_document(da: EreDocument, db: EreDocument, mapping: str = "procedure",
                     **options) -> DocumentAgreement:
    """Map the mentions of one document pair with ``mapping`` and derive every category."""
    p, m = map_spans([x.span for x in da.mentions], [x.span for x in db.mentions], mapping,
                     **options)
    check(p, m, keep_exact=options.get("keep_exact", True))
    return DocumentAgreement(da.id, mapping, p, m, mention_report(da, db, m),
                             entity_categories(da, db, m),
                             relation_categories(da, db, m, mapping, **options),
                             event_categories(da, db, m, mapping, **options),
                             (tuple(x.id for x in da.mentions), tuple(x.id for x in db.mentions)))


def sum_counts(docs: Sequence[DocumentAgreement]) -> dict:
    """Every count of :meth:`DocumentAgreement.counts` summed over documents."""
    total: dict = {}
    for d in docs:
        for k, v in d.counts().items():
            if isinstance(v, dict):
                t = total.setdefault(k, dict.fromkeys(v, 0))
                for n, x in v.items():
                    t[n] += x
            else:
                total[k] = total.get(k, 0) + v
    return total


def differences(proc: DocumentAgreement, exact: DocumentAgreement) -> list[dict]:
    """What changes between two mappings of one document: mention pairs only in one of them
    (kind ``mention_pair``, item ``[A mention id, B mention id]``), and every entity, relation or event whose category
    or partner differs (kind ``entity_a``, ``relation_b``, ..., item its id)."""
    out = []
    pp = {tuple(x) for x in proc.mentions.pairs.tolist()}
    pe = {tuple(x) for x in exact.mentions.pairs.tolist()}
    ids_a, ids_b = proc.mention_ids

    def item(a: int, b: int) -> list:
        return [ids_a[a], ids_b[b]] if ids_a else [a, b]

    for a, b in sorted(pp - pe):
        out.append({"document": proc.name, "kind": "mention_pair", "item": item(a, b),
                    proc.mapping: "mapped", exact.mapping: "not mapped"})
    for a, b in sorted(pe - pp):
        out.append({"document": proc.name, "kind": "mention_pair", "item": item(a, b),
                    proc.mapping: "not mapped", exact.mapping: "mapped"})
    for kind, name in (("entities", "entity"), ("relations", "relation"), ("events", "event")):
        for side in ("a", "b"):
            x, y = getattr(proc, kind)[side], getattr(exact, kind)[side]
            for item in x:
                if x[item] != y[item]:
                    out.append({"document": proc.name, "kind": f"{name}_{side}",
                                "item": item, proc.mapping: x[item], exact.mapping: y[item]})
    return out


__all__ = [
    "DETERMINERS", "ENTITY_CATEGORIES", "EVENT_CATEGORIES", "RELATION_CATEGORIES",
    "DocumentAgreement", "compare_document", "differences", "edge_category",
    "entity_categories", "event_categories", "mention_report", "relation_categories",
    "sum_counts",
]
