"""EVENT and TIMEX3 extraction scores of the TempEval-3 toolkit (:func:`entity_scores`).

The toolkit scores them in two steps, re-implemented here: TimeML-Normalizer.jar (class
``timemlnormalizer.TimeML_Normalizer``) renames the entities of both files so that aligned
entities share an id (:mod:`exactalign.metrics.temporal.normaliser`), then
``evaluation-entities/evaluate_entities.py`` compares the two files id by id: strict and
relaxed P/R/F1, attribute accuracy and "Attribute F1", micro-averaged over documents.
``te3`` link scores use the same alignment
(:func:`~exactalign.metrics.temporal.normaliser.te3_link_ids`); ``exact`` and ``plain`` link
scores the simpler :func:`~exactalign.metrics.temporal.links.align_ids`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.errors import InputError
from ...io.timeml import TimeMLDocument
from ..aggregation import PRF, prf_dict
from .corpus import check_same_documents
from .elements import FileElements, file_elements
from .normaliser import te3_entity_ids

__all__ = ["EVENT_ATTRIBUTES", "TIMEX_ATTRIBUTES", "EntityCounts", "DocEntities",
           "EntityScores", "entity_document", "entity_scores"]

EVENT_ATTRIBUTES = ("class", "tense", "aspect", "pos", "polarity", "modality")
TIMEX_ATTRIBUTES = ("value", "type")       # in the order the toolkit prints them


@dataclass(frozen=True)
class EntityCounts:
    """Counts of one entity kind (EVENT or TIMEX3), as ``evaluate_entities.py`` keeps them:
    reference and system entities, strict and relaxed matches, and for each attribute the
    relaxed matches whose values are equal."""

    gold: int = 0
    system: int = 0
    strict: int = 0
    relaxed: int = 0
    attributes: tuple[tuple[str, int], ...] = ()

    def __add__(self, other: EntityCounts) -> EntityCounts:
        names = [n for n, _ in self.attributes] or [n for n, _ in other.attributes]
        a, b = dict(self.attributes), dict(other.attributes)
        return EntityCounts(self.gold + other.gold, self.system + other.system,
                            self.strict + other.strict, self.relaxed + other.relaxed,
                            tuple((n, a.get(n, 0) + b.get(n, 0)) for n in names))

    @property
    def empty(self) -> bool:
        """Neither side has an entity: the toolkit then scores every F1 as 1."""
        return self.gold == 0 and self.system == 0

    def prf(self, kind: str = "relaxed") -> PRF:
        """Counts of the ``strict`` or ``relaxed`` matches."""
        return PRF.from_tp(getattr(self, kind), self.gold, self.system)

    def precision(self, kind: str = "relaxed") -> float:
        return self.prf(kind).precision

    def recall(self, kind: str = "relaxed") -> float:
        return self.prf(kind).recall

    def f1(self, kind: str = "relaxed") -> float:
        return 1.0 if self.empty else self.prf(kind).f1

    def accuracy(self, name: str) -> float:
        """Matching values of attribute ``name`` / relaxed matches."""
        return dict(self.attributes)[name] / self.relaxed if self.relaxed else 0.0

    def attribute_f1(self, name: str) -> float:
        """The toolkit's "Attribute F1": accuracy x relaxed F1 (1 when both sides are
        empty, 0 without relaxed match)."""
        if self.empty:
            return 1.0
        return self.accuracy(name) * self.f1("relaxed")

    def to_dict(self) -> dict:
        def prf(kind):
            return prf_dict(self.recall(kind), self.precision(kind), self.f1(kind))
        return {"counts": {"gold": self.gold, "system": self.system, "strict": self.strict,
                           "relaxed": self.relaxed, "attributes": dict(self.attributes)},
                "strict": prf("strict"), "relaxed": prf("relaxed"),
                "attributes": {n: {"accuracy": self.accuracy(n),
                                   "recall": self.accuracy(n) * self.recall(),
                                   "precision": self.accuracy(n) * self.precision(),
                                   "f1": self.attribute_f1(n)}
                               for n, _ in self.attributes}}


@dataclass(frozen=True)
class DocEntities:
    """One document's EVENT and TIMEX3 counts; ``unaligned`` lists the entities that got no
    normalised id (``EVENT:eid`` / ``TIMEX3:tid``, reference then system)."""

    doc_id: str
    events: EntityCounts
    timexes: EntityCounts
    unaligned: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {"document": self.doc_id, "events": self.events.to_dict(),
                "timexes": self.timexes.to_dict(), "unaligned": list(self.unaligned)}


@dataclass(frozen=True)
class EntityScores:
    """Per-document counts; the overall scores are computed from the counts summed over
    documents (``evaluate_entities.py`` keeps global counters)."""

    documents: tuple[DocEntities, ...]

    @property
    def events(self) -> EntityCounts:
        return sum((d.events for d in self.documents), EntityCounts())

    @property
    def timexes(self) -> EntityCounts:
        return sum((d.timexes for d in self.documents), EntityCounts())

    def to_dict(self) -> dict:
        return {"overall": {"events": self.events.to_dict(), "timexes": self.timexes.to_dict()},
                "documents": [d.to_dict() for d in self.documents]}


def _event_records(doc: TimeMLDocument, ids: dict, el: FileElements) -> tuple[dict, list[str]]:
    """``{id: (text, attribute values)}`` of the EVENTs, as ``get_attributes`` reads them from
    the normalised file: first an entry per MAKEINSTANCE under its event's id (the last
    instance of an event wins), then every EVENT element in file order, under its normalised
    id (outside ``<TEXT>``: its own id; without normalised id: ``null``, as the normaliser
    writes it), updating the entry of that id: its text, and the attributes its tag has. A
    missing attribute is ``''``. An EVENT holding another element is not read (its
    MAKEINSTANCE's entry stays, with no text)."""
    records: dict[str, list] = {}
    for e in doc.events.values():       # MAKEINSTANCE order
        key = ids.get(("EVENT", e.eid))
        if e.eiid is not None and key is not None:
            records[key] = ["", dict(e.attributes)]
    texts = {e.eid: e.text for e in doc.events.values()}
    unaligned = []
    for tag, ident, in_text, simple in el.order:
        if tag != "EVENT" or not simple or ident not in texts:
            continue
        key = ident
        if in_text:
            key = ids.get(("EVENT", ident))
            if key is None:
                key = "null"
                unaligned.append(f"EVENT:{ident}")
        rec = records.setdefault(key, ["", {}])
        rec[0] = texts[ident]
        rec[1].update(el.event_tags.get(ident, {}))
    return ({k: (text, tuple(attrs.get(n, "") for n in EVENT_ATTRIBUTES))
             for k, (text, attrs) in records.items()}, unaligned)


def _timex_records(doc: TimeMLDocument, ids: dict, el: FileElements) -> tuple[dict, list[str]]:
    """``{id: (text, (value, type))}`` of the TIMEX3s, as ``get_attributes`` reads them from
    the normalised file, in file order (a later entry replaces one with the same id): a TIMEX3
    of ``<TEXT>`` under its normalised id, dropped without one (the normaliser strips its
    tags); one outside ``<TEXT>`` under its own id, the DCT under ``t0`` when the normaliser
    renames it; entries with id ``t0`` are skipped, as are empty TIMEX3s outside ``<TEXT>``
    and TIMEX3s holding another element."""
    records: dict[str, tuple] = {}
    unaligned = []
    for tag, ident, in_text, simple in el.order:
        t = doc.timexes.get(ident)
        if tag != "TIMEX3" or t is None:
            continue
        key = ident
        if in_text:
            key = ids.get(("TIMEX3", ident))
            if key is None:
                unaligned.append(f"TIMEX3:{ident}")
                continue
        elif ident == el.dct and el.dct_renamed:
            key = "t0"
        if key == "t0" or not simple or (not in_text and not t.text):
            continue
        records[key] = (t.text, (t.value or "", t.type or ""))
    return records, unaligned


def _entity_counts(gold: dict, system: dict, names: tuple[str, ...]) -> EntityCounts:
    """``compute_precision_recall`` for one kind: a reference entry is matched (relaxed) when
    the system has an entry with its id, both texts non-blank; strictly when the texts are
    also equal; its attributes count where the values are equal."""
    strict = relaxed = 0
    same = [0] * len(names)
    for key, (text, values) in gold.items():
        other = system.get(key)
        if not text.strip() or other is None or not other[0].strip():
            continue
        relaxed += 1
        strict += text == other[0]
        for i, (v, w) in enumerate(zip(values, other[1], strict=True)):
            same[i] += v == w
    return EntityCounts(len(gold), len(system), strict, relaxed,
                        tuple(zip(names, same, strict=True)))


def entity_document(gold: TimeMLDocument, system: TimeMLDocument) -> DocEntities:
    """One document's entity counts as the TempEval-3 toolkit computes them (see
    :func:`entity_scores`)."""
    if gold.text != system.text:
        raise InputError(f"{gold.doc_id}: the text of <TEXT> differs from the reference's "
                         "(the toolkit stops: 'TEXTS NOT SAME')", path=system.path)
    g_ids, s_ids = te3_entity_ids(gold, system)
    g_el, s_el = file_elements(gold), file_elements(system)
    g_ev, g_ev_un = _event_records(gold, g_ids, g_el)
    s_ev, s_ev_un = _event_records(system, s_ids, s_el)
    g_tx, g_tx_un = _timex_records(gold, g_ids, g_el)
    s_tx, s_tx_un = _timex_records(system, s_ids, s_el)
    unaligned = tuple(f"gold {u}" for u in g_ev_un + g_tx_un) + \
        tuple(f"system {u}" for u in s_ev_un + s_tx_un)
    return DocEntities(gold.doc_id, _entity_counts(g_ev, s_ev, EVENT_ATTRIBUTES),
                       _entity_counts(g_tx, s_tx, TIMEX_ATTRIBUTES), unaligned)


def entity_scores(gold_docs: dict[str, TimeMLDocument],
                  sys_docs: dict[str, TimeMLDocument]) -> EntityScores:
    """EVENT and TIMEX3 extraction scores of the TempEval-3 toolkit (``TE3-evaluation.py``:
    TimeML-Normalizer, then ``evaluation-entities/evaluate_entities.py``), per document and
    overall (counts summed over documents, then P, R, F1).

    * Alignment: :func:`te3_entity_ids` (events: same first token; timexes: overlap, one to
      one in text order). The DCT is not scored; ``get_attributes`` reads the whole file, so
      an entity outside ``<TEXT>`` (a TimeBank headline's EVENTs) is scored under its own id,
      and shares the entry of a normalised id equal to it (:func:`_event_records`).
    * Per kind, ``compute_precision_recall``: an entity is a *relaxed* match when the other
      file has an entity with its normalised id, a *strict* match when their texts are also
      identical. Precision = matches / system entities, recall = matches / reference entities
      (strict and relaxed alike), F1 their harmonic mean.
    * Attributes (``get_performance``): over the relaxed matches, the number whose values are
      equal (absent = ``''``): EVENT class, tense, aspect, pos, polarity, modality (the toolkit
      prints class, tense and aspect; pos and polarity at debug 0.5; modality it counts only);
      TIMEX3 value and type. Accuracy = equal / relaxed matches; the toolkit's "Attribute F1"
      is accuracy x relaxed F1 (its attribute precision and recall: accuracy x relaxed P, R).
    * When neither side has an entity of a kind, the toolkit scores every F1 of that kind as
      1 (and P, R as 0); without relaxed match, attribute scores are 0.

    Every reference document needs a system document with the same id and the same text of
    ``<TEXT>``. Where the toolkit gives no score -- its normaliser stops on nested EVENT/TIMEX3
    tags, on a MAKEINSTANCE of an event it gives no id, on text its tokens do not match -- a
    score is computed all the same. Checked against the toolkit (``COUNTS`` of its global
    counters) on its sample data, on TE3-Platinum, TimeBank and AQUAINT against perturbed
    copies of themselves, and on hand cases (``tests/test_temporal_entities.py``).
    """
    check_same_documents(gold_docs, sys_docs)
    return EntityScores(tuple(entity_document(gold_docs[d], sys_docs[d])
                              for d in sorted(gold_docs)))
