"""Temporal awareness (UzZaman & Allen 2011): the TempEval-3 toolkit's score and an exact one.

A system TLINK counts for precision when the reference graph's closure entails it, a reference
TLINK counts for recall when the system graph's closure entails it; P and R are micro-averaged
over documents, F1 is their harmonic mean.

Common steps (all modes)
------------------------
* Ids: in ``exact`` and ``plain`` mode, system entities are mapped to reference entities by id
  when both files use the id for the same character span, else by identical span
  (:func:`align_ids`). ``te3`` mode aligns them as the toolkit's TimeML-Normalizer does before
  the links are read (:func:`te3_link_ids`): events by first token, timexes by overlap (one to
  one, in text order), the DCTs with each other, event instances by MAKEINSTANCE order, with the
  toolkit's tokenizer -- so ``last Friday`` aligns with ``Friday`` and ``left town`` with
  ``left`` (where the texts of ``<TEXT>`` differ the toolkit stops; ``te3`` then falls back to
  :func:`align_ids` and notes ``texts_differ``). Either way, unaligned system entities keep a
  private id (their links stay, in the precision denominator) and are reported.
* Orientation: as the normaliser writes them, every link is turned so that an event comes before
  a timex and, between two of a kind, the one earlier in the reference text (the DCT first) is
  the source (``te3``: the lower normalised number -- text order of first tokens, an event's
  further instances after every first instance); the label is inverted when turned
  (:data:`~exactalign.problems.temporal.INVERSE`). The normaliser also writes every IDENTITY as
  SIMULTANEOUS, which matters for exact matches.
* Labels are upper-cased; DURING and DURING_INV read as SIMULTANEOUS (toolkit's
  ``consider_DURING_as_SIMULTANEOUS``); labels without point semantics (VAGUE, ...) are reported.

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

Entity extraction (:func:`entity_scores`)
-----------------------------------------
The toolkit's EVENT and TIMEX3 scores (``evaluation-entities/evaluate_entities.py``), with its
TimeML-Normalizer's alignment re-implemented token for token (:func:`te3_entity_ids`): strict
and relaxed P/R/F1, attribute accuracy and "Attribute F1", micro-averaged over documents.
``te3`` link scores use the same alignment (:func:`te3_link_ids`); ``exact`` and ``plain``
link scores the simpler :func:`align_ids`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from xml.parsers import expat

import numpy as np

from ..core.errors import InputError
from ..io.timeml import TimeMLDocument
from ..problems import temporal as tp
from .aggregation import PRF, micro, prf_dict

__all__ = ["DocScore", "CorpusScore", "align_ids", "document_links", "te3_document",
           "exact_document", "score_corpus", "Timegraph", "te3_graph", "EVENT_ATTRIBUTES",
           "TIMEX_ATTRIBUTES", "EntityCounts", "DocEntities", "EntityScores", "toolkit_tokens",
           "te3_entity_ids", "te3_link_ids", "entity_document", "entity_scores"]


@dataclass(frozen=True)
class DocScore:
    """Counts of one document: credited system links / system links (precision) and credited
    reference links / reference links (recall), plus what was noticed on the way."""

    doc_id: str
    prec_matched: float
    sys_total: int
    rec_matched: float
    gold_total: int
    notes: dict = field(default_factory=dict)

    @property
    def prf(self) -> PRF:
        return PRF(self.rec_matched, self.gold_total, self.prec_matched, self.sys_total)

    @property
    def precision(self) -> float:
        return self.prf.precision

    @property
    def recall(self) -> float:
        return self.prf.recall

    @property
    def f1(self) -> float:
        return self.prf.f1


@dataclass(frozen=True)
class CorpusScore:
    mode: str
    documents: tuple[DocScore, ...]

    @property
    def prf(self) -> PRF:
        """Micro: the documents' counts summed."""
        return micro(d.prf for d in self.documents)

    @property
    def precision(self) -> float:
        return self.prf.precision

    @property
    def recall(self) -> float:
        return self.prf.recall

    @property
    def f1(self) -> float:
        return self.prf.f1


# ---------------------------------------------------------------- ids, orientation

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


def _order_key(gold: TimeMLDocument):
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
    key = _order_key(gold) if key is None else key
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


# ---------------------------------------------------------------- te3 mode

_TE3_TESTS = {
    # label: ((p, q, accepted outcomes), ...) -- the toolkit's interval_rel_X_Y, check_n_merge
    "BEFORE": (("xe", "ys", "<"),),
    "AFTER": (("ye", "xs", "<"),),
    "IBEFORE": (("xe", "ys", "="),),
    "IAFTER": (("ye", "xs", "="),),
    "BEGUN_BY": (("xs", "ys", "="), ("ye", "xe", "<")),
    "ENDS": (("xe", "ye", "="), ("ys", "xs", "<")),
    "ENDED_BY": (("xe", "ye", "="), ("xs", "ys", "<")),
    "INCLUDES": (("xs", "ys", "<"), ("ye", "xe", "<")),
    "IS_INCLUDED": (("ys", "xs", "<"), ("xe", "ye", "<")),
    "SIMULTANEOUS": (("xs", "ys", "="), ("xe", "ye", "=")),
    "IDENTITY": (("xs", "ys", "="), ("xe", "ye", "=")),
}


# ---------------------------------------------------------------- the toolkit's Timegraph

_NIL = "-1"      # relation_to_timegraph.py: NIL
_BASE = 100000   # base_value: pseudo time of a new chain's first point
_DIFF = 1000     # diff: pseudo-time step between neighbours in a chain

# add_relation_for_existing_entities_in_timegraph: (earlier, later) point pairs it connects
# through the metagraph, per relation (BEGINS never gets there).
_MERGE = {
    "BEFORE": (("xe", "ys"),), "AFTER": (("ye", "xs"),),
    "IBEFORE": (("ys", "xe"), ("xe", "ys")), "IAFTER": (("ye", "xs"), ("xs", "ye")),
    "BEGUN_BY": (("ys", "xs"), ("xs", "ys"), ("ye", "xe")),
    "ENDS": (("ys", "xs"), ("ye", "xe"), ("xe", "ye")),
    "ENDED_BY": (("xs", "ys"), ("xe", "ye"), ("ye", "xe")),
    "INCLUDES": (("xs", "ys"), ("ye", "xe")), "IS_INCLUDED": (("ys", "xs"), ("xe", "ye")),
    "SIMULTANEOUS": (("ys", "xs"), ("xs", "ys"), ("ye", "xe"), ("xe", "ye")),
    "IDENTITY": (("ys", "xs"), ("xs", "ys"), ("ye", "xe"), ("xe", "ye")),
}
# both intervals new: the four points' pseudo-time offsets (in steps) and family strings
# (parent, child, sibling) as the toolkit lays them out in one new chain.
_NEW_PAIR = {
    "BEFORE": {"xs": (0, "N", "xe", ""), "xe": (1, "xs", "ys", ""), "ys": (2, "xe", "ye", ""),
               "ye": (3, "ys", "N", "")},
    "AFTER": {"ys": (0, "N", "ye", ""), "ye": (1, "ys", "xs", ""), "xs": (2, "ye", "xe", ""),
              "xe": (3, "xs", "N", "")},
    "IBEFORE": {"xs": (0, "N", "xe ys", ""), "xe": (1, "xs", "ye", "ys"),
                "ys": (1, "xs", "ye", "xe"), "ye": (2, "ys xe", "N", "")},
    "IAFTER": {"ys": (0, "N", "ye xs", ""), "ye": (1, "ys", "xe", "xs"),
               "xs": (1, "ys", "xe", "ye"), "xe": (2, "xs ye", "N", "")},
    "BEGINS": {"xs": (0, "N", "xe", "ys"), "ys": (0, "N", "xe", "xs"),
               "xe": (1, "xs ys", "ye", ""), "ye": (2, "xe", "N", "")},
    "BEGUN_BY": {"xs": (0, "N", "ye", "ys"), "ys": (0, "N", "ye", "xs"),
                 "ye": (1, "xs ys", "xe", ""), "xe": (2, "ye", "N", "")},
    "ENDS": {"ys": (0, "N", "xs", ""), "xs": (1, "ys", "xe ye", ""), "xe": (2, "xs", "N", "ye"),
             "ye": (2, "xs", "N", "xe")},
    "ENDED_BY": {"xs": (0, "N", "ys", ""), "ys": (1, "xs", "xe ye", ""),
                 "xe": (2, "ys", "N", "ye"), "ye": (2, "ys", "N", "xe")},
    "INCLUDES": {"xs": (0, "N", "ys", ""), "ys": (1, "xs", "ye", ""), "ye": (2, "ys", "xe", ""),
                 "xe": (3, "ye", "N", "")},
    "IS_INCLUDED": {"ys": (0, "N", "xs", ""), "xs": (1, "ys", "xe", ""),
                    "xe": (2, "xs", "ye", ""), "ye": (3, "xe", "N", "")},
    "SIMULTANEOUS": {"xs": (0, "N", "xe ye", "ys"), "ys": (0, "N", "xe ye", "xs"),
                     "xe": (1, "xs ys", "N", "ye"), "ye": (1, "xs ys", "N", "xe")},
}
_NEW_PAIR["IDENTITY"] = _NEW_PAIR["SIMULTANEOUS"]
_TG_INVERSE = dict(tp.INVERSE, IDENTITY="SIMULTANEOUS", DURING="DURING_DURING_INV")


class _Node:
    __slots__ = ("chain", "pseudo", "parent", "child", "sibling")

    def __init__(self, chain: int = 0, pseudo: int = 0):
        self.chain, self.pseudo = chain, pseudo
        self.parent = self.child = self.sibling = ""


def _has(name: str, names: str) -> bool:
    """The toolkit's search_x_in_y: ``name`` is a space-separated item of ``names``."""
    return f" {name} " in f" {names} "


class Timegraph:
    """A re-implementation of the TempEval-3 toolkit's Timegraph (``relation_to_timegraph.py``,
    UzZaman & Allen 2011 after Miller & Schubert): points live on chains with integer pseudo
    times (same chain: order by pseudo time); chains are joined by metagraph edges from a
    connection point to points of other chains, searched depth-first with a per-path chain
    history. Insertion reproduces the toolkit's case analysis for a link with a new interval
    (``add_relation_in_timegraph``) including its defects, which change answers: a point put
    before a chain head gets pseudo time ``0 - diff`` for its start (the start's pseudo time is
    computed before the end's), so two intervals prepended in turn can share a pseudo time and
    read as equal; nested midpoints use integer division. Only the ``visualization == ''``
    branches are reachable and reproduced; DURING never reaches it (read as SIMULTANEOUS)."""

    def __init__(self):
        self.nodes: dict[str, _Node] = {}
        self.next_chain = 0
        self.meta: dict[int, tuple[list[str], dict[str, list[str]]]] = {}

    # -- queries
    def _reaches(self, a: _Node, b: _Node, history: frozenset) -> bool:
        if a.chain == b.chain:
            return a.pseudo <= b.pseudo
        history = history | {a.chain}
        cps, cross = self.meta.get(a.chain, ((), {}))
        for cp in cps:
            if a.pseudo <= self.nodes[cp].pseudo:
                for name in cross[cp]:
                    nxt = self.nodes[name]
                    if nxt.chain not in history and self._reaches(nxt, b, history):
                        return True
        return False

    def query(self, p: str, q: str) -> str | None:
        """point_rel_x_y: ``<``, ``>``, ``=`` or None."""
        a, b = self.nodes[p], self.nodes[q]
        if a.chain == b.chain:
            return "<" if a.pseudo < b.pseudo else (">" if a.pseudo > b.pseudo else "=")
        ab, ba = self._reaches(a, b, frozenset()), self._reaches(b, a, frozenset())
        if ab and ba:
            return "="
        return "<" if ab else (">" if ba else None)

    def has(self, x: str) -> bool:
        return f"{x}_s" in self.nodes and f"{x}_e" in self.nodes

    # -- insertion
    def insert(self, x: str, y: str, rel: str) -> str:
        """add_relation_in_timegraph: ``"added"``, ``"entailed"`` or ``"set aside"``."""
        aside = x == y and rel not in ("SIMULTANEOUS", "IDENTITY")
        if not self.has(y) and self.has(x):
            x, y, rel = y, x, _TG_INVERSE.get(rel, rel)
        px = {"xs": f"{x}_s", "xe": f"{x}_e", "ys": f"{y}_s", "ye": f"{y}_e"}
        if not any(p in self.nodes for p in px.values()):
            handled = self._both_new(px, rel)
        elif not self.has(x) and self.has(y):
            handled = self._one_new(px, rel)
        else:
            handled = False
        if aside:
            return "set aside"
        if handled:
            return "added"
        outcome = self._check(x, y, rel) if self.has(x) and self.has(y) else "contradicted"
        if outcome == "possible":
            for a, b in _MERGE[rel]:
                self._link(px[b], px[a], self.nodes[px[a]])
            return "added"
        return "entailed" if outcome == "entailed" else "set aside"

    def _check(self, x: str, y: str, rel: str) -> str:
        tests = _TE3_TESTS.get(rel)
        if tests is None:
            return "contradicted"
        px = {"xs": f"{x}_s", "xe": f"{x}_e", "ys": f"{y}_s", "ye": f"{y}_e"}
        answers = [self.query(px[p], px[q]) for p, q, _ in tests]
        if any(a is not None and a != want for a, (_, _, want) in zip(answers, tests, strict=True)):
            return "contradicted"
        return "entailed" if all(a is not None for a in answers) else "possible"

    def entails(self, x: str, y: str, rel: str) -> bool:
        """interval_rel_X_Y(.., 'evaluation') == 'true'."""
        tests = _TE3_TESTS.get(rel)
        if tests is None or not (self.has(x) and self.has(y)):
            return False
        px = {"xs": f"{x}_s", "xe": f"{x}_e", "ys": f"{y}_s", "ye": f"{y}_e"}
        return all(self.query(px[p], px[q]) == want for p, q, want in tests)

    def _both_new(self, px: dict, rel: str) -> bool:
        chain = self.next_chain
        self.next_chain += 1
        layout = _NEW_PAIR.get(rel)
        made = {}
        for k in ("xs", "xe", "ys", "ye"):
            node = made[k] = _Node(chain)
            if layout is not None:
                step, parent, child, sibling = layout[k]
                node.pseudo = _BASE + _DIFF * step
                node.parent, node.child, node.sibling = (
                    " ".join(_NIL if w == "N" else px[w] for w in s.split()) if s else ""
                    for s in (parent, child, sibling))
        for k in ("xs", "xe", "ys", "ye"):
            self.nodes[px[k]] = made[k]
        return layout is not None

    def _new_chain(self) -> int:
        self.next_chain += 1
        return self.next_chain - 1

    def _link(self, later: str, earlier: str, earlier_node: _Node) -> None:
        """add_X_after_Y_metagraph(x=later, y=earlier): at ``earlier`` on its chain, a step
        to ``later``."""
        cps, cross = self.meta.setdefault(earlier_node.chain, ([], {}))
        if earlier not in cps:
            cps.append(earlier)
        targets = cross.setdefault(earlier, [])
        if later not in targets:
            targets.append(later)

    def _point_after(self, x: str, y: str) -> _Node:
        """add_point_x_AFTER_y."""
        ny, nx = self.nodes[y], _Node()
        nx.pseudo = ny.pseudo + _DIFF
        if ny.child == _NIL:
            nx.chain, ny.child, nx.parent, nx.child = ny.chain, x, y, _NIL
        else:
            nx.chain, nx.parent, nx.child = self._new_chain(), _NIL, _NIL
            self._link(x, y, ny)
        return nx

    def _point_before(self, x: str, y: str) -> _Node:
        """add_point_x_BEFORE_y."""
        ny, nx = self.nodes[y], _Node()
        nx.pseudo = ny.pseudo - _DIFF
        if ny.parent == _NIL:
            nx.chain, ny.parent, nx.parent, nx.child = ny.chain, x, _NIL, y
        else:
            nx.chain, nx.parent, nx.child = self._new_chain(), _NIL, _NIL
            self._link(y, x, nx)
        return nx

    def _point_between(self, x: str, y: str, z: str) -> _Node:
        """add_point_x_DURING_y_z (y < x < z)."""
        ny, nz, nx = self.nodes[y], self.nodes[z], _Node()
        if ny.chain == nz.chain and _has(z, ny.child) and _has(y, nz.parent):
            nx.chain, ny.child, nz.parent, nx.parent, nx.child = ny.chain, x, x, y, z
            nx.pseudo = ny.pseudo + (nz.pseudo - ny.pseudo) // 2
        elif ny.child == _NIL:
            nx.chain, ny.child, nx.parent, nx.child = ny.chain, x, y, _NIL
            nx.pseudo = ny.pseudo + _DIFF
            self._link(z, x, nx)
        elif nz.parent == _NIL:
            nz.parent, nx.child, nx.chain = x, z, nz.chain
            nx.pseudo = nz.pseudo - _DIFF
            self._link(x, y, ny)
        else:
            nx.chain = self._new_chain()
            nx.pseudo = ny.pseudo + (nz.pseudo - ny.pseudo) // 2
            self._link(x, y, ny)
            self._link(z, x, nx)
        return nx

    def _one_new(self, px: dict, rel: str) -> bool:
        """Interval x new, y known: the toolkit's per-relation placement of x's points."""
        x1, x2, y1, y2 = px["xs"], px["xe"], px["ys"], px["ye"]
        ny1, ny2 = self.nodes[y1], self.nodes[y2]
        nx1, nx2 = _Node(), _Node()
        same = ny1.chain == ny2.chain
        adjacent = same and _has(y2, ny1.child) and _has(y1, ny2.parent)
        if rel == "BEFORE":
            chain = ny1.chain if ny1.parent == _NIL else self._new_chain()
            nx1.chain = nx2.chain = chain
            nx1.pseudo = nx2.pseudo - _DIFF          # defect: nx2.pseudo is still 0 here
            nx1.parent, nx1.child = _NIL, x2
            nx2.pseudo, nx2.parent, nx2.child = ny1.pseudo - _DIFF, x1, y1
            if chain == ny1.chain:
                ny1.parent = x2
            else:
                ny1.parent += " " + x2
                self._link(y1, x2, nx2)
        elif rel == "AFTER":
            chain = ny2.chain if ny2.child == _NIL else self._new_chain()
            nx1.chain = nx2.chain = chain
            nx1.pseudo, nx1.parent, nx1.child = ny2.pseudo + _DIFF, y2, x2
            nx2.pseudo, nx2.parent, nx2.child = nx1.pseudo + _DIFF, x1, _NIL
            if chain == ny2.chain:
                ny2.child = x1
            else:
                ny2.child += " " + x1
                self._link(x1, y2, ny2)
        elif rel == "IBEFORE":
            head = ny1.parent == _NIL
            nx2.chain = ny1.chain
            nx1.chain = ny1.chain if head else self._new_chain()
            ny1.parent = x1 if head else ny1.parent + " " + x1
            ny1.sibling += " " + x2
            ny2.parent += " " + x2
            nx2.pseudo = ny1.pseudo
            nx2.parent = x1 if head else ny1.parent
            nx2.child, nx2.sibling = ny1.child, ny1.sibling + " " + y1
            nx1.pseudo, nx1.child, nx1.parent = nx2.pseudo - _DIFF, x2 + " " + y1, _NIL
            if not head:
                self._link(x2, x1, nx1)
        elif rel == "IAFTER":
            ny1.child += " " + x1
            if ny2.child == _NIL:
                ny2.sibling += " " + x1
                ny2.child = x2
                nx1.chain = nx2.chain = ny2.chain
                nx1.pseudo, nx1.parent, nx1.child = ny2.pseudo, ny2.parent, x2
                nx1.sibling = ny2.sibling + " " + y2
                nx2.pseudo, nx2.parent, nx2.child = nx1.pseudo + _DIFF, x1 + " " + y2, _NIL
            else:
                nx1 = ny2                            # x's start becomes y's end node
                nx1.sibling += " " + y2
                ny2.child += " " + x2
                ny2.sibling += " " + x1
                nx2.chain = self._new_chain()
                nx2.pseudo, nx2.parent, nx2.child = ny2.pseudo + _DIFF, x1 + " " + y2, _NIL
                self._link(x2, x1, nx1)
        elif rel == "BEGINS":
            if adjacent:
                nx1 = ny1
                ny1.sibling += " " + y1
                nx2.chain, nx2.parent, nx2.child = ny1.chain, x1 + " " + y1, y2
                ny1.sibling += " " + x1
                ny1.child = ny1.child.replace(y2, x2)
                nx2.pseudo = ny1.pseudo + (ny2.pseudo - ny1.pseudo) // 2
                ny2.parent = ny2.parent.replace(y1, x2)
            else:
                nx2 = self._point_between(x2, y1, y2)
                ny1.sibling += " " + x1
                nx1 = ny1
                nx1.sibling += " " + y1
        elif rel == "BEGUN_BY":
            if ny2.child == _NIL and same:
                nx2.chain, nx2.pseudo = ny1.chain, ny2.pseudo + _DIFF
                ny1.sibling += " " + x1
                nx1 = ny1
                nx1.sibling += " " + y1
                ny2.parent += " " + x1
                nx2.parent, ny2.child, nx2.child = y2, x2, _NIL
            else:
                nx2 = self._point_after(x2, y2)
                nx1 = ny1
        elif rel == "ENDS":
            if adjacent:
                nx1.chain = nx2.chain = ny1.chain
                nx1.pseudo = ny1.pseudo + (ny2.pseudo - ny1.pseudo) // 2
                nx2.pseudo = ny2.pseudo
                ny1.child, nx1.parent, nx1.child, nx2.parent = x1, y1, x2, x1
                nx2.sibling = ny2.sibling + " " + y2
                ny2.sibling += " " + x2
                nx2.child, ny2.parent = ny2.child, x1
            else:
                nx2 = ny2
                nx1 = self._point_between(x1, y1, y2)
        elif rel == "ENDED_BY":
            if ny1.parent == _NIL and same:
                nx1.chain = nx2.chain = ny1.chain
                nx1.pseudo, nx2.pseudo = ny1.pseudo - _DIFF, ny2.pseudo
                nx1.parent, nx1.child = _NIL, y1
                nx2.parent, nx2.child = ny2.parent, ny2.child
                nx2.sibling = ny2.sibling + " " + y2
                ny1.parent = x1
                ny1.child += " " + x2
                ny2.sibling += " " + x2
            else:
                nx2 = ny2
                nx1 = self._point_before(x1, y1)
        elif rel == "INCLUDES":
            if ny1.parent == _NIL and ny2.child == _NIL and same:
                nx1.chain, nx2.chain, ny1.parent = ny1.chain, ny2.chain, x1
                nx1.pseudo, nx1.parent, nx1.child = ny1.pseudo - _DIFF, _NIL, y1
                ny2.child, nx2.parent, nx2.child = x2, y2, _NIL
                nx2.pseudo = ny2.pseudo + _DIFF
            elif ny1.parent != _NIL or ny2.child != _NIL:
                nx1.chain = nx2.chain = self._new_chain()
                nx1.pseudo, nx2.pseudo = ny1.pseudo - _DIFF, ny2.pseudo + _DIFF
                nx1.parent, nx2.parent, nx2.child = _NIL, x1, _NIL
                self._link(y1, x1, nx1)
                self._link(x2, y2, ny2)
            else:
                nx1 = self._point_before(x1, y1)
                nx2 = self._point_after(x2, y2)
        elif rel == "IS_INCLUDED":
            span = ny2.pseudo - ny1.pseudo
            nx1.chain = nx2.chain = ny1.chain if adjacent else self._new_chain()
            nx1.pseudo, nx2.pseudo = ny1.pseudo + span // 3, ny1.pseudo + span * 2 // 3
            if adjacent:
                nx1.parent, nx2.child = ny1.sibling + " " + y1, ny2.sibling + " " + y2
                ny1.child, nx1.child, nx2.parent = x1, x2, x1
            else:
                nx1.parent, nx1.child, nx2.parent, nx2.child = _NIL, x2, x1, _NIL
                self._link(x1, y1, ny1)
                self._link(y2, x2, nx2)
        elif rel in ("SIMULTANEOUS", "IDENTITY"):
            nx1, nx2 = ny1, ny2                      # x's points become y's nodes
            if same:
                ny1.sibling += f" {y1} {x1}"
                ny2.sibling += f" {y2} {x2}"
        else:
            return False
        self.nodes[x1], self.nodes[x2], self.nodes[y1], self.nodes[y2] = nx1, nx2, ny1, ny2
        return True


@dataclass
class _Te3Graph:
    graph: Timegraph
    final: list[tuple[str, str, str]]      # kept (non-entailed) links, then set-aside ones
    set_aside: list[tuple[str, str, str]]
    redundant: list[tuple[str, str, str]]


def te3_graph(links: list[tuple[str, str, str]]) -> _Te3Graph:
    """Steps 1-3 of ``te3`` mode on oriented links in file order."""
    tg = Timegraph()
    kept, aside, redundant = [], [], []
    for s, t, rel in dict.fromkeys(links):
        outcome = tg.insert(s, t, rel)
        (kept if outcome == "added" else redundant if outcome == "entailed" else aside).append(
            (s, t, rel))
    # the Timegraph records a set-aside link with its label upper-cased, and the final
    # relations are the links not found (case-sensitively) among those, then those: a
    # set-aside link written in lower case (a normaliser's "null") is counted twice
    again = [(s, t, rel.upper()) for s, t, rel in aside if rel != rel.upper()]
    return _Te3Graph(tg, kept + aside + again, aside, redundant)


def _written(links) -> set[tuple[str, str, str]]:
    """Every link and its inverse, as the toolkit's ``get_triples`` writes them (the inverse
    of a label without one: the label upper-cased)."""
    out = set()
    for s, t, rel in links:
        out.add((s, t, rel))
        if s != t:
            out.add((t, s, tp.INVERSE.get(rel, rel.upper())))
    return out


def _te3_matched(final, other: _Te3Graph, other_written) -> int:
    count = 0
    for s, t, rel in final:
        if (s, t, rel) in other_written:
            count += 1
        elif other.graph.entails(s, t, rel):
            count += 1
    return count


def te3_link_ids(gold: TimeMLDocument, system: TimeMLDocument
                 ) -> tuple[dict[str, str], dict[str, str]]:
    """The ids the TimeML-Normalizer writes in the TLINKs of the reference and of the system
    (``TimeML_Normalizer.normalize``, reference first, as ``TE3-evaluation.py`` runs it before
    ``temporal_evaluation.py`` reads the links): ``{id a TLINK uses (eiid, the eid of an
    event without instance, tid): normalised id}`` for each file. Link endpoints with the same
    normalised id are one entity for the link scores.

    * The DCT (the first TIMEX3 of ``<DCT>``) is ``t0`` in both files.
    * A TIMEX3 of ``<TEXT>`` has its :func:`te3_entity_ids` id ``tN`` (overlap, one to one in
      text order).
    * An event instance: the first MAKEINSTANCE (file order) of an EVENT with id ``eN``
      (:func:`te3_entity_ids`: same first token) is ``eiN``; each further instance of that
      EVENT ``ei`` + the first number from 1000000 + N not yet used in the file. So the
      *second* instance of a system event aligns with the second instance of the reference
      event, whatever the eiids. An EVENT without MAKEINSTANCE (a TLINK naming its eid) is
      ``eiN`` here; the normaliser has no instance id for it.
    * A system entity without reference counterpart keeps a number of its own (the counters
      are shared by both files, so it never collides with a reference id): its links stay in
      the system graph, counted in the precision denominator, matchable by nothing.
    * No id: entities outside ``<TEXT>`` other than the DCT (TimeBank's headline EVENTs), and
      entities that label no token (see :func:`te3_entity_ids`). The normaliser stops with an
      exception on a TLINK or MAKEINSTANCE naming one of them, and no score is printed.
    """
    ents = te3_entity_ids(gold, system)
    out: tuple[dict[str, str], dict[str, str]] = ({}, {})
    for doc, ent, ids in zip((gold, system), ents, out, strict=True):
        dct = _dct_tid(doc)
        for k, t in doc.timexes.items():
            if k == dct:
                ids[k] = "t0"
            elif (n := ent.get(("TIMEX3", t.tid))) is not None:
                ids[k] = n
        seen, used = set(), set()
        for k, e in doc.events.items():     # MAKEINSTANCE order, then events without one
            n = ent.get(("EVENT", e.eid))
            if n is None:
                continue
            num = int(n[1:])
            if e.eiid is not None and n in seen:
                num += 1000000
                while num in used:
                    num += 1
            seen.add(n)
            used.add(num)
            ids[k] = f"ei{num}"
    return out


def _dct_tid(doc: TimeMLDocument) -> str | None:
    """The tid the normaliser renames ``t0``: the first TIMEX3 of ``<DCT>`` (for a document
    without file, or without ``<DCT>``: :attr:`TimeMLDocument.dct` when outside ``<TEXT>``)."""
    dct = _elements(doc).dct
    if dct is None and doc.dct in doc.timexes and doc.timexes[doc.dct].start is None:
        dct = doc.dct
    return dct


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
        return None, mapping, _order_key(gold), unaligned
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
    prec = _te3_matched(s.final, g, _written(g_links))
    rec = _te3_matched(g.final, s, _written(s_links))
    notes = _notes(g_links, s_links, unaligned)
    if g_names is None:
        notes["texts_differ"] = True
    notes.update(gold_set_aside=len(g.set_aside), system_set_aside=len(s.set_aside),
                 gold_redundant=len(g.redundant), system_redundant=len(s.redundant))
    return DocScore(gold.doc_id, prec, len(s.final), rec, len(g.final), notes)


def _notes(g_links, s_links, unaligned) -> dict:
    def count(links):
        return {"links": len(links), "duplicates": len(links) - len(set(links)),
                "self": sum(s == t for s, t, _ in links),
                "unknown_labels": sorted({r for _, _, r in links if not tp.is_known(r)})}
    return {"gold": count(g_links), "system": count(s_links), "unaligned": unaligned}


# ---------------------------------------------------------------- exact mode

@dataclass
class _ExactGraph:
    inst: tp.TemporalInstance
    closure: tp.Closure
    scored: list[int]              # link indices in the reduction, then dropped ones
    dropped: list[int]
    result: object


def _canonical_unique(links):
    """Unique links, a link and its inverse counted once (the orientation of the first)."""
    seen, out = set(), []
    for s, t, rel in links:
        if (s, t, rel) in seen or (t, s, tp.INVERSE.get(rel, rel)) in seen:
            continue
        seen.add((s, t, rel))
        out.append((s, t, rel))
    return out


def exact_graph(links, *, backend: str = "highs", time_limit: float | None = None
                ) -> _ExactGraph:
    """Maximum consistent subset, its closure and a canonical transitive reduction."""
    unique = _canonical_unique(links)
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
    prec = _exact_matched(s, g, _written(g_links))
    rec = _exact_matched(g, s, _written(s_links))
    notes = _notes(g_links, s_links, unaligned)
    notes.update(gold_dropped=len(g.dropped), system_dropped=len(s.dropped),
                 gold_status=g.result.status.value, system_status=s.result.status.value)
    return DocScore(gold.doc_id, prec, len(s.scored), rec, len(g.scored), notes)


# ---------------------------------------------------------------- plain mode

def plain_document(gold: TimeMLDocument, system: TimeMLDocument) -> DocScore:
    """One document scored without closure, as TempEval-1 and -2 did and as UzZaman & Allen
    (2011, §1-3) contrast with temporal awareness: precision = system links stated in the
    reference (a link or its inverse, relation for relation) / system links; recall = reference
    links stated in the system output / reference links. Links are counted once (a link and its
    inverse are one link)."""
    mapping, unaligned = align_ids(gold, system)
    g_links = document_links(gold, gold)
    s_links = document_links(system, gold, mapping)
    g, s = _canonical_unique(g_links), _canonical_unique(s_links)
    g_written, s_written = _written(g), _written(s)
    prec = sum(link in g_written for link in s)
    rec = sum(link in s_written for link in g)
    return DocScore(gold.doc_id, prec, len(s), rec, len(g), _notes(g_links, s_links, unaligned))


MODES = ("exact", "te3", "plain")


def _check_same_documents(gold_docs: dict, sys_docs: dict) -> None:
    """A reference document without system output is an error, as is a system document without
    reference (naming the first few, and the system directory)."""
    missing = sorted(set(gold_docs) - set(sys_docs))
    extra = sorted(set(sys_docs) - set(gold_docs))
    if missing or extra:
        what = (f"no system output for {', '.join(missing[:5])}" if missing else
                f"system documents without reference: {', '.join(extra[:5])}")
        path = next(iter(sys_docs.values())).path.parent if sys_docs else None
        raise InputError(what, path=path)


def score_corpus(gold_docs: dict[str, TimeMLDocument], sys_docs: dict[str, TimeMLDocument],
                 mode: str = "exact", *, backend: str = "highs",
                 time_limit: float | None = None) -> CorpusScore:
    """Score every reference document (a reference document without system output is an
    error, as is a system document without reference) in ``mode`` (:data:`MODES`)."""
    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    _check_same_documents(gold_docs, sys_docs)
    docs = []
    for d in sorted(gold_docs):
        if mode == "te3":
            docs.append(te3_document(gold_docs[d], sys_docs[d]))
        elif mode == "plain":
            docs.append(plain_document(gold_docs[d], sys_docs[d]))
        else:
            docs.append(exact_document(gold_docs[d], sys_docs[d], backend=backend,
                                       time_limit=time_limit))
    return CorpusScore(mode, tuple(docs))


# ---------------------------------------------------------------- consistency of one document

def document_instance(doc: TimeMLDocument) -> tp.TemporalInstance:
    """All TLINKs of ``doc`` in file order (duplicates kept, unit weights, names = lids)."""
    return tp.TemporalInstance.from_links(
        (lk.source, lk.target, lk.rel_type, 1.0, lk.lid) for lk in doc.tlinks)


@dataclass(frozen=True)
class ConsistencyReport:
    """Whether a document's TLINKs are consistent, a witness cycle (lids) when not, and the
    fewest links to drop: exact (proven or with bound) and each greedy heuristic."""

    doc_id: str
    links: int
    consistent: bool
    witness: tuple[str, ...]
    exact: object                  # Result of the maximum consistent subset
    heuristics: dict               # name -> Result

    @property
    def min_drop(self) -> int:
        return self.links - round(self.exact.objective)


def check_document(doc: TimeMLDocument, *, backend: str = "highs",
                   time_limit: float | None = None) -> ConsistencyReport:
    inst = document_instance(doc)
    cycle = tp.find_inconsistency(inst)
    witness = tuple(f"{inst.names[k]}:{inst.rel[k]}" for k in cycle) if cycle else ()
    exact = tp.solve(inst, "exact", backend=backend, time_limit=time_limit)
    heur = {name: tp.solve(inst, name) for name in tp.HEURISTICS} if cycle else {}
    return ConsistencyReport(doc.doc_id, inst.n_links, cycle is None, witness, exact, heur)


# ---------------------------------------------------------------- entities (TempEval-3)
#
# The toolkit scores EVENT and TIMEX3 extraction in two steps, re-implemented here:
# TimeML-Normalizer.jar (class ``timemlnormalizer.TimeML_Normalizer``) renames the entities of
# both files so that aligned entities share an id, then ``evaluation-entities/
# evaluate_entities.py`` compares the two files id by id (see :func:`entity_scores`).

EVENT_ATTRIBUTES = ("class", "tense", "aspect", "pos", "polarity", "modality")
TIMEX_ATTRIBUTES = ("value", "type")       # in the order the toolkit prints them

# tokenize.pl (H. Schmid), as the normaliser runs it: English (-e), one line at a time
_P_CHAR = "\\[{(\u00b4`\"\u00bb\u00ab\x82\x84\x86\x87\x8b\x91-\x97\x9b"   # a regex class body
_F_CHAR = "\\]}'`\"),;:!?%\u00bb\u00ab\x82\x84\x85\x86\x87\x89\x8b\x91-\x97\x9b"
_TK = {
    "sgml": re.compile(r"(<[^<>]*>|&[^; \t\n\r]*;)"),
    "dots": re.compile(r"(\.\.\.)"),
    "punct": re.compile(r"([;!?/])([^ ])"),
    "comma": re.compile(r"(,)([^ 0-9.])"),
    "caps": re.compile("([a-zA-Z\u00c0-\u00ff][a-zA-Z\u00c0-\u00ff][.:])([A-Z\u00c0-\u00dd])"),
    "lead": re.compile(f"^([{_P_CHAR}])(.)"),
    "trail": re.compile(f"(.)([{_F_CHAR}])$"),
    "dot_after": re.compile(f"([{_F_CHAR}])\\.$"),
    "initials": re.compile("(?:[A-Za-z\u00c0-\u00ff]\\.)+"),
    "final_dot": re.compile(r"(..*)\."),
    "clitic": re.compile(r"(.)('(?:s|re|ve|d|m|em|ll)|n't)$"),
    # Perl's \s on character strings
    "space": re.compile("[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f"
                        "\u205f\u3000]+"),
    "hyphen": re.compile(r"[^-]+-[^-]+"),
}


# The words of the tokenizer's abbreviation list (``english-abbreviations``) that can end a
# time expression: kept whole, period included. The list's other words (titles, company and
# state abbreviations such as ``Mr.``, ``Inc.``, ``Calif.``) get their period split off here,
# which moves the boundary of no EVENT or TIMEX3 that matters; but a TIMEX3 such as ``the
# next few days`` written before the period of ``days.`` ends inside that token, and the
# normaliser then labels the token ``O`` (see :func:`_token_labels`).
_KEEP_PERIOD = frozenset({"days.", "Jan.", "Feb.", "Aug.", "Sept.", "Oct.", "Nov.", "Dec."})


def _tokenize_word(word: str) -> list[str]:
    """One blank-separated word of tokenize.pl: brackets and punctuation cut off, a final
    period split unless the word is initials (``U.S.``) or in :data:`_KEEP_PERIOD`, English
    clitics cut off."""
    head, suffix = [], []
    while word not in _KEEP_PERIOD:
        if (m := _TK["lead"].match(word)) is not None:
            head.append(m.group(1))
            word = word[1:]
        elif _TK["trail"].search(word) is not None:
            suffix.insert(0, word[-1])
            word = word[:-1]
        elif (m := _TK["dot_after"].search(word)) is not None:
            word = word[:-2]
            suffix.insert(0, ".")
            if word == "":
                word = m.group(1)
            else:
                suffix.insert(0, m.group(1))
        else:
            break
    if word in _KEEP_PERIOD:
        return head + [word] + suffix
    if _TK["initials"].fullmatch(word):
        return head + [word] + suffix
    if word != "..." and (m := _TK["final_dot"].fullmatch(word)) is not None:
        word = m.group(1)
        suffix.insert(0, ".")
    while (m := _TK["clitic"].search(word)) is not None:
        suffix.insert(0, m.group(2))
        word = word[:m.start(2)]
    return head + [word] + suffix


def toolkit_tokens(text: str) -> list[tuple[int, int]]:
    """Character spans of the tokens the TimeML-Normalizer labels: ``tokenize.pl -e -a
    english-abbreviations`` (one line at a time; see :func:`_tokenize_word`) run on the text of
    ``<TEXT>``, then its ``Tokenizer.execute``: a token ``a-b`` with a single hyphen is split
    into ``a``, ``-``, ``b``. A token the text does not hold where expected (which the
    normaliser would reject with 'Distinct chars') is skipped."""
    words: list[str] = []
    for line in text.replace("\r", "").split("\n"):
        for seg in _TK["sgml"].split(line):
            if not seg:
                continue
            if seg.startswith("<") and seg.endswith(">"):
                words.append(seg)
                continue
            s = f" {seg} "
            for key, rep in (("dots", r" \1 "), ("punct", r"\1 \2"), ("comma", r"\1 \2"),
                             ("caps", r"\1 \2")):
                s = _TK[key].sub(rep, s)
            for w in _TK["space"].split(s):
                if w:
                    words.extend(_tokenize_word(w))
    spans: list[tuple[int, int]] = []
    pos = 0
    haystack = text.replace("|", "-")
    for w in words:
        w = re.sub(r"[ \t\n\x0b\f\r]+", " ", w).strip().replace("|", "-")
        if not w:
            continue
        parts = w.replace("-", "\n-\n").split("\n") if _TK["hyphen"].fullmatch(w) else [w]
        for part in parts:
            k = haystack.find(part, pos)
            if k < 0 or text[pos:k].strip():
                continue
            spans.append((k, k + len(part)))
            pos = k + len(part)
    return spans


def _entity_tags(doc: TimeMLDocument) -> list[tuple[int, int, str, str]]:
    """``(offset, rank, tag, id)`` of every EVENT/TIMEX3 opening and closing tag inside
    ``<TEXT>``, in document order (rank: 0 closes an entity begun earlier, 1 opens, 2 closes
    an empty entity; ``tag`` is ``EVENT``, ``TIMEX3``, ``/EVENT`` or ``/TIMEX3``)."""
    spans = {}
    for e in doc.events.values():
        if e.start is not None:
            spans.setdefault(("EVENT", e.eid), (e.start, e.end))
    for t in doc.timexes.values():
        if t.start is not None:
            spans[("TIMEX3", t.tid)] = (t.start, t.end)
    tags = []
    for (tag, ident), (start, end) in spans.items():
        tags.append((start, 1, -end, tag, ident))
        tags.append((end, 0 if end > start else 2, 0, "/" + tag, ident))
    return [(off, rank, tag, ident) for off, rank, _, tag, ident in sorted(tags)]


def _token_labels(tokens: list[tuple[int, int]], tags) -> list[tuple[str, str, str | None]]:
    """The normaliser's ``merge_tok_n_tml``: each token's ``(B|I|O, EVENT|TIMEX3|'', id)``.

    A tag is read while the token holding the character after it is matched (at the token's
    start, or inside it). An opening tag makes the token ``B`` with that tag's id (the last one
    wins when several open in one token); a closing tag read at a token's start makes that
    token ``O``; one read inside the token where its entity opened closes after the token
    (``delayed_closing``), one read inside a later token makes that token ``O``."""
    labels = []
    bio, in_tag, in_id = "O", "", None
    k = 0
    for ts, te in tokens:
        opened_here = delayed = False
        while k < len(tags) and tags[k][0] < te:
            off, _, tag, ident = tags[k]
            k += 1
            if not tag.startswith("/"):
                opened_here, in_tag, in_id, bio = True, tag, ident, "B"
            elif tag[1:] == in_tag:
                if opened_here and off > ts:
                    delayed = True
                elif opened_here:
                    bio, in_tag, in_id, opened_here = "O", "", None, False
                else:
                    bio, in_tag = "O", ""
        labels.append((bio, in_tag if bio != "O" else "", in_id if bio == "B" else None))
        if bio == "B":
            bio, in_id = "I", None
        if delayed:
            bio, in_tag, in_id = "O", "", None
    return labels


def te3_entity_ids(gold: TimeMLDocument, system: TimeMLDocument
                   ) -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], str]]:
    """The ids the TimeML-Normalizer gives the entities of ``<TEXT>`` (``TimeML_Normalizer.
    normalize`` with the reference first, as ``TE3-evaluation.py`` runs it): ``{("EVENT", eid)
    | ("TIMEX3", tid): new id}`` for the reference and for the system. Entities of the two
    files with the same new id are aligned.

    Both files' tokens (:func:`toolkit_tokens`) are walked together. An EVENT gets a new id
    ``eN`` at the token where it begins, shared with the other file's EVENT beginning at the
    same token: events align when they begin in the same token, whatever their ends. A TIMEX3
    beginning at a token takes the id of the other file's TIMEX3 still *open* there (begun at
    this or an earlier token) unless its own previous TIMEX3 already had that id or a later
    one, else a new ``tN``: timexes align when one begins inside the other, one to one, in text
    order (of two system timexes inside one reference timex only the first is aligned). A
    file's TIMEX3 stays open until a token of that file labelled ``O`` or ``B-TIMEX3``: a
    token inside an EVENT does not close it. An entity that labels no token (empty, or
    superseded by a later tag in the same token) gets no id."""
    labels = []
    for doc in (gold, system):
        labels.append(_token_labels(toolkit_tokens(doc.text), _entity_tags(doc)))
    if len(labels[0]) != len(labels[1]):
        raise InputError(f"{gold.doc_id}: the reference and the system texts differ",
                         path=system.path)
    maps: tuple[dict, dict] = ({}, {})
    last_eid = last_tid = 1
    open_t, last_local = [0, 0], [0, 0]
    for line in zip(*labels, strict=True):
        open_event = 0
        for a, (bio, tag, ident) in enumerate(line):
            if bio == "B" and tag == "EVENT":
                if open_event == 0:
                    open_event, last_eid = last_eid, last_eid + 1
                maps[a][("EVENT", ident)] = f"e{open_event}"
            if bio == "O" or (bio == "B" and tag == "TIMEX3"):
                open_t[a] = 0
        for a, (bio, tag, ident) in enumerate(line):
            if bio == "B" and tag == "TIMEX3":
                open_t[a] = last_tid
                other = open_t[1 - a]
                if other != 0 and last_local[a] < other:
                    open_t[a] = other
                last_local[a] = open_t[a]
                if open_t[a] == last_tid:
                    last_tid += 1
                maps[a][("TIMEX3", ident)] = f"t{open_t[a]}"
    return maps


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


@dataclass
class _Elements:
    """What ``get_attributes`` reads from a file beyond :class:`TimeMLDocument`: every EVENT
    and TIMEX3 element in file order as ``(tag, id, inside <TEXT>, without child element)``,
    the attributes of each EVENT tag, the DCT's tid and whether the normaliser renames it
    ``t0`` (it does only where the file writes ``<DCT><TIMEX3`` with nothing between)."""

    order: list[tuple[str, str, bool, bool]]
    event_tags: dict[str, dict[str, str]]
    dct: str | None
    dct_renamed: bool


def _elements(doc: TimeMLDocument) -> _Elements:
    """Read ``doc``'s file again (expat, tags only): :class:`~exactalign.io.timeml.Event`
    keeps only ``class`` of the EVENT tag, and TimeML 1.1 puts tense, aspect, ... there. A
    document parsed from a string (no file) gives its entities (those outside ``<TEXT>``
    first), ``class`` only, and a renamed DCT."""
    path = doc.path
    if path is not None and path.is_file():
        data = path.read_bytes()
        order: list[tuple[str, str, bool, bool]] = []
        tags: dict[str, dict[str, str]] = {}
        state = {"text": 0, "dct": 0, "open": [], "dct_tid": None}

        def start(name, attrs):
            for k in state["open"]:
                order[k] = order[k][:3] + (False,)
            if name == "TEXT":
                state["text"] += 1
            elif name == "DCT":
                state["dct"] += 1
            elif name in ("EVENT", "TIMEX3"):
                ident = attrs.get("eid" if name == "EVENT" else "tid", "")
                if name == "EVENT":
                    tags.setdefault(ident, attrs)
                elif state["dct"] and state["dct_tid"] is None:
                    state["dct_tid"] = ident
                state["open"].append(len(order))
                order.append((name, ident, state["text"] > 0, True))

        def end(name):
            if name == "TEXT":
                state["text"] -= 1
            elif name == "DCT":
                state["dct"] -= 1
            elif name in ("EVENT", "TIMEX3") and state["open"]:
                state["open"].pop()
        parser = expat.ParserCreate()
        parser.StartElementHandler, parser.EndElementHandler = start, end
        try:
            parser.Parse(data, True)
        except expat.ExpatError:
            pass
        else:
            dct = state["dct_tid"]
            renamed = dct is not None and re.search(
                rb'<DCT><TIMEX3[^>]*tid="' + re.escape(dct.encode()) + rb'"', data) is not None
            return _Elements(order, tags, dct, renamed)
    outside = [("EVENT", e.eid) for e in doc.events.values() if e.start is None] + \
        [("TIMEX3", t.tid) for t in doc.timexes.values() if t.start is None]
    inside = sorted([(e.start, "EVENT", e.eid) for e in doc.events.values()
                     if e.start is not None] +
                    [(t.start, "TIMEX3", t.tid) for t in doc.timexes.values()
                     if t.start is not None])
    order = [(tag, ident, False, True) for tag, ident in dict.fromkeys(outside)] + \
        [(tag, ident, True, True) for _, tag, ident in dict.fromkeys(inside)]
    return _Elements(order, {e.eid: {"class": e.eclass} for e in doc.events.values()
                             if e.eclass is not None}, doc.dct, True)


def _event_records(doc: TimeMLDocument, ids: dict, el: _Elements) -> tuple[dict, list[str]]:
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


def _timex_records(doc: TimeMLDocument, ids: dict, el: _Elements) -> tuple[dict, list[str]]:
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
    g_el, s_el = _elements(gold), _elements(system)
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
    _check_same_documents(gold_docs, sys_docs)
    return EntityScores(tuple(entity_document(gold_docs[d], sys_docs[d])
                              for d in sorted(gold_docs)))
