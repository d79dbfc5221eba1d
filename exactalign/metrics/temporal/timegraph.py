"""The TempEval-3 toolkit's Timegraph (``relation_to_timegraph.py``), re-implemented with its
case analysis and its defects (:class:`Timegraph`), and the reduced graph it builds from a
document's links (:func:`te3_graph`): steps 1-3 of ``te3`` mode
(:mod:`exactalign.metrics.temporal.te3`)."""

from __future__ import annotations

from dataclasses import dataclass

from ...problems import temporal as tp

__all__ = ["Timegraph", "Te3Graph", "te3_graph"]


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


# ---------------------------------------------------------------- the reduced graph

@dataclass
class Te3Graph:
    """A document's links as ``te3`` mode reduces them (:func:`te3_graph`)."""

    graph: Timegraph
    final: list[tuple[str, str, str]]      # kept (non-entailed) links, then set-aside ones
    set_aside: list[tuple[str, str, str]]
    redundant: list[tuple[str, str, str]]


def te3_graph(links: list[tuple[str, str, str]]) -> Te3Graph:
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
    return Te3Graph(tg, kept + aside + again, aside, redundant)

