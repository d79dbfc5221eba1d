"""Temporal awareness (UzZaman & Allen 2011): the TempEval-3 toolkit's score and an exact one.

A system TLINK counts for precision when the reference graph's closure entails it, a reference
TLINK counts for recall when the system graph's closure entails it; P and R are micro-averaged
over documents, F1 is their harmonic mean.

Common steps (both modes)
-------------------------
* Ids: system entities are mapped to reference entities by id when both files use the id for
  the same character span, else by identical span (the TimeML-Normalizer's alignment, which the
  toolkit runs first); unaligned system entities keep a private id and are reported.
* Orientation: as the normaliser writes them, every link is turned so that an event comes before
  a timex and, between two of a kind, the one earlier in the reference text (the DCT first) is the
  source; the label is inverted when turned (:data:`~exactalign.problems.temporal.INVERSE`).
  The normaliser also writes every IDENTITY as SIMULTANEOUS, which matters for exact matches.
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
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.errors import InputError
from ..io.timeml import TimeMLDocument
from ..problems import temporal as tp

__all__ = ["DocScore", "CorpusScore", "align_ids", "document_links", "te3_document",
           "exact_document", "score_corpus", "Timegraph", "te3_graph"]


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
    def precision(self) -> float:
        return self.prec_matched / self.sys_total if self.sys_total else 0.0

    @property
    def recall(self) -> float:
        return self.rec_matched / self.gold_total if self.gold_total else 0.0

    @property
    def f1(self) -> float:
        return _f1(self.precision, self.recall)


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


@dataclass(frozen=True)
class CorpusScore:
    mode: str
    documents: tuple[DocScore, ...]

    @property
    def precision(self) -> float:
        tot = sum(d.sys_total for d in self.documents)
        return sum(d.prec_matched for d in self.documents) / tot if tot else 0.0

    @property
    def recall(self) -> float:
        tot = sum(d.gold_total for d in self.documents)
        return sum(d.rec_matched for d in self.documents) / tot if tot else 0.0

    @property
    def f1(self) -> float:
        return _f1(self.precision, self.recall)


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


def document_links(doc: TimeMLDocument, gold: TimeMLDocument,
                   mapping: dict[str, str] | None = None) -> list[tuple[str, str, str]]:
    """The document's TLINKs as ``(source, target, label)`` in file order, ids mapped to the
    reference's, oriented and labelled as in the module docstring (duplicates kept)."""
    key = _order_key(gold)
    out = []
    for lk in doc.tlinks:
        s = mapping.get(lk.source, "sys:" + lk.source) if mapping is not None else lk.source
        t = mapping.get(lk.target, "sys:" + lk.target) if mapping is not None else lk.target
        rel = lk.rel_type.strip().upper()
        if rel == "IDENTITY":   # the TimeML-Normalizer writes every IDENTITY as SIMULTANEOUS
            rel = "SIMULTANEOUS"
        if key(t) < key(s) and s != t:
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
    return _Te3Graph(tg, kept + aside, aside, redundant)


def _written(links) -> set[tuple[str, str, str]]:
    """Every link and its inverse, as the toolkit's ``get_triples`` writes them."""
    out = set()
    for s, t, rel in links:
        out.add((s, t, rel))
        if s != t:
            out.add((t, s, tp.INVERSE.get(rel, rel)))
    return out


def _te3_matched(final, other: _Te3Graph, other_written) -> int:
    count = 0
    for s, t, rel in final:
        if (s, t, rel) in other_written:
            count += 1
        elif other.graph.entails(s, t, rel):
            count += 1
    return count


def te3_document(gold: TimeMLDocument, system: TimeMLDocument) -> DocScore:
    """One document scored as the TempEval-3 toolkit does (module docstring, ``te3``)."""
    mapping, unaligned = align_ids(gold, system)
    g_links = document_links(gold, gold)
    s_links = document_links(system, gold, mapping)
    g, s = te3_graph(g_links), te3_graph(s_links)
    prec = _te3_matched(s.final, g, _written(g_links))
    rec = _te3_matched(g.final, s, _written(s_links))
    notes = _notes(g_links, s_links, unaligned)
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


def score_corpus(gold_docs: dict[str, TimeMLDocument], sys_docs: dict[str, TimeMLDocument],
                 mode: str = "exact", *, backend: str = "highs",
                 time_limit: float | None = None) -> CorpusScore:
    """Score every reference document (a reference document without system output is an
    error, as is a system document without reference) in ``mode`` (:data:`MODES`)."""
    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    missing = sorted(set(gold_docs) - set(sys_docs))
    extra = sorted(set(sys_docs) - set(gold_docs))
    if missing or extra:
        what = (f"no system output for {', '.join(missing[:5])}" if missing else
                f"system documents without reference: {', '.join(extra[:5])}")
        path = next(iter(sys_docs.values())).path.parent if sys_docs else None
        raise InputError(what, path=path)
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
