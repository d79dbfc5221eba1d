"""Event sequencing (TAC KBP 2017): the ``-a`` of the TAC KBP event nugget scorer v1.8.

v1.8 (EvmEval ``scorer_v1.8.py`` with ``temporal.py``, ``utils.py`` and the TempEval-3 toolkit
it bundles in ``evaluation_relations/``) scores the ``@After`` and ``@Subevent`` links of a TBF
file (relation names compared case-sensitively; other names are ignored) as temporal
relations. Per document and link type:

1. *Mapping*: system mentions go on gold mentions through the mapping v1.8 uses for
   coreference (its ``-m``; default the greedy mapping of ``mention_type``). Every aligned pair
   counts, whatever its Dice (``-ct`` plays no part here).
2. *Clusters*: the side's ``@Coreference`` clusters in file order, then every other mention as
   a singleton (``find_equivalent_sets``). With a type white list, relations keep only the
   scored mentions and drop when fewer than two remain (``filter_relations``).
3. *Propagation* (``propagate_through_equivalence``): each link goes up to the clusters of its
   two mentions (a link inside one cluster is dropped, with a warning); the cluster links are
   transitively reduced -- ``A -> B`` is dropped when ``A`` reaches a cluster ``C`` (not ``A``,
   not ``B``) from which ``B`` is reachable -- and each remaining one is expanded to every
   mention pair of its two clusters. Coreference is not a link itself: mentions of one cluster
   are not made ``SIMULTANEOUS``. A link with more than two mentions is an error (v1.8
   crashes).
4. *Validation* (off with v1.8's ``-nv``): a type with links both ways between two mentions is
   an error (v1.8 exits; for the system side it may crash).
5. *TimeML*: gold mention ``i`` (in file order, after the white list) is node ``te<i>``; a
   system mention aligned to it gets the same node, an unaligned one a new node numbered after
   the gold ones, in file order. ``After`` is written ``BEFORE``, ``Subevent`` ``INCLUDES``;
   type ``All`` is the ``Subevent`` links followed by the ``After`` links. The links come in the
   iteration order of the Python 2 ``set`` the expansion is collected in, which
   :func:`py2_set_order` reproduces; it matters, because the toolkit builds its graph in file
   order.
6. *Score*: each type is scored by the toolkit's temporal awareness in its
   ``implicit_in_recall`` variant (``temporal_evaluation.py``, no TimeML normaliser), with the
   toolkit's graph as :func:`exactalign.metrics.temporal.te3_graph` re-implements it: the
   reduced graph of a side is its kept links followed by the set-aside ones (duplicates
   dropped); a link is credited when the other side has it written the same way or inverted,
   or the other side's graph entails it. Precision = credited system links / system links.
   Recall adds *implicit* credit: with ``m`` the credited gold links, ``n`` the entities common
   to both reduced graphs and ``k`` the system links that are not, verbatim, in the gold
   reduced graph but that the gold graph entails, a document contributes
   ``m + w k`` with ``w = 0.99 / (1 + n (n - 1) / 2 - m)`` to the numerator (v1.8 crashes when
   that denominator is 0 -- a pair with both an ``After`` and a ``Subevent`` link on both sides
   does it in type ``All`` -- and so do we, with an error). P and R are summed over
   documents (micro), F1 is their harmonic mean, and each is printed as Python 2 prints
   ``100 * round(x, 6)`` (:func:`py2_percent`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from ..core.errors import InputError
from ..io.tbf import Mention, Relation, TbfDocument, TbfFile, TbfWarning
from ..problems import temporal as tp
from .temporal import te3_graph

__all__ = ["LINK_TYPES", "EVAL_TYPES", "TIMEML_RELATIONS", "py2_set_order", "py2_percent",
           "LinkCounts", "SequencingDocument", "SequencingScore", "document_links",
           "score_links", "sequencing_evaluate", "format_v18_sequencing", "timeml_text",
           "v18_directory", "write_v18_directory", "write_v18_files"]

#: v1.8's ``Config.script_types``, in its order, and the types it reports.
LINK_TYPES = ("Subevent", "After")
EVAL_TYPES = ("Subevent", "After", "All")
#: How v1.8 writes a link type as a TimeML relation (``temporal.convert_name``).
TIMEML_RELATIONS = {"After": "BEFORE", "Subevent": "INCLUDES"}
COREFERENCE = "Coreference"

# --------------------------------------------------------------------------------------------
# Python 2.7's set iteration order (CPython 2.7 setobject.c, string and tuple hashes, 64 bits,
# hash randomisation off -- Python 2's default)
# --------------------------------------------------------------------------------------------
_M64 = (1 << 64) - 1


def _py2_str_hash(text: str) -> int:
    """``hash(str)`` in CPython 2.7 (of the UTF-8 bytes), as an unsigned 64-bit value."""
    b = text.encode("utf-8", "surrogateescape")
    if not b:
        return 0
    x = (b[0] << 7) & _M64
    for c in b:
        x = ((1000003 * x) & _M64) ^ c
    x ^= len(b)
    return (_M64 - 1) if x == _M64 else x     # -1 is reserved: it becomes -2


def _py2_tuple_hash(items: tuple[str, ...]) -> int:
    """``hash(tuple)`` in CPython 2.7 (``tuplehash``), unsigned 64 bits."""
    x, mult = 0x345678, 1000003
    n = len(items)
    for item in items:
        n -= 1
        x = ((x ^ _py2_str_hash(item)) * mult) & _M64
        mult += 82520 + n + n
    x = (x + 97531) & _M64
    return (_M64 - 1) if x == _M64 else x


def _probe(table: list, h: int, mask: int):
    """Slots visited for hash ``h`` (``set_lookkey``/``set_insert_clean``)."""
    i = h & mask
    yield i
    perturb = h
    while True:
        i = (5 * i + perturb + 1) & _M64
        yield i & mask
        perturb >>= 5


def py2_set_order(items: Iterable[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """``list(s)`` for a Python 2.7 ``set`` ``s`` filled with ``items`` (tuples of strings) in
    order: open addressing with perturbed probing, table of 8 slots grown to the smallest power
    of two above ``4 * used`` once two thirds are filled, entries re-inserted in slot order."""
    mask = 7
    table: list = [None] * 8
    used = 0
    for item in items:
        h = _py2_tuple_hash(item)
        for i in _probe(table, h, mask):
            entry = table[i]
            if entry is None:
                table[i] = (h, item)
                used += 1
                break
            if entry[0] == h and entry[1] == item:
                break
        else:  # pragma: no cover - the probe sequence is endless
            raise AssertionError
        if entry is None and used * 3 >= (mask + 1) * 2:
            size = 8
            while size <= used * (2 if used > 50000 else 4):
                size <<= 1
            old, mask, table = table, size - 1, [None] * size
            for e in old:
                if e is not None:
                    for i in _probe(table, e[0], mask):
                        if table[i] is None:
                            table[i] = e
                            break
    return [e[1] for e in table if e is not None]


def py2_percent(x: float) -> str:
    """``str(100 * round(x, 6))`` as Python 2.7 prints it (round half away from zero, 12
    significant digits, ``.0`` added to a whole number)."""
    r = float(Decimal(x).quantize(Decimal("1e-6"), rounding=ROUND_HALF_UP))
    s = format(100 * r, ".12g")
    if not any(c in s for c in ".en"):
        s += ".0"
    return s


# --------------------------------------------------------------------------------------------
# v1.8's links of one document
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Side:
    """One side of a document as v1.8's ``TemporalEval`` prepares it: per link type, the
    expanded mention-level links ``(mention id, mention id)`` in Python 2 set order."""

    links: dict[str, list[tuple[str, str]]]
    dropped_self: list[Relation]


def _filtered(relations: Sequence[Relation], kept: set[str] | None) -> list[Relation]:
    """v1.8's ``filter_relations`` (only with a type white list)."""
    if kept is None:
        return list(relations)
    out = []
    for r in relations:
        args = tuple(a for a in r.arguments if a in kept)
        if len(args) > 1:
            out.append(Relation(r.name, r.relation_id, args, r.line))
    return out


def _equivalent_sets(clusters: Sequence[Relation], nuggets: Sequence[str]):
    """``find_equivalent_sets``: set index -> member ids, member id -> (last) set index."""
    set_2_nodes: dict[int, list[str]] = {}
    node_2_set: dict[str, int] = {}
    clustered: set[str] = set()
    index = 0
    for c in clusters:
        for e in c.arguments:
            node_2_set[e] = index
            clustered.add(e)
            set_2_nodes.setdefault(index, []).append(e)
        index += 1
    for node in nuggets:
        if node not in clustered:
            node_2_set[node] = index
            set_2_nodes.setdefault(index, []).append(node)
            index += 1
    return set_2_nodes, node_2_set


def _reduced(set_links: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``compute_reduced_graph``: drop ``a -> b`` when some ``c`` (``c != a``, ``c != b``) is
    reachable from ``a`` and reaches ``b`` (reachability includes the node itself)."""
    succ: dict[int, set[int]] = {}
    for a, b in set_links:
        succ.setdefault(a, set()).add(b)
        succ.setdefault(b, set())
    reach: dict[int, set[int]] = {}
    for s in succ:
        seen, stack = {s}, [s]
        while stack:
            for nxt in succ[stack.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        reach[s] = seen
    indirect = set()
    for a in succ:
        for c in reach[a]:
            if c != a:
                indirect.update((a, b) for b in reach[c] if b != c)
    return [(a, b) for a, b in set_links if (a, b) not in indirect]


def _side(doc: TbfDocument | None, mentions: Sequence[Mention], kept: set[str] | None,
          path: str) -> _Side:
    relations = _filtered(doc.relations, kept) if doc is not None else []
    clusters = [r for r in relations if r.name == COREFERENCE]
    set_2_nodes, node_2_set = _equivalent_sets(clusters, [m.mention_id for m in mentions])
    links: dict[str, list[tuple[str, str]]] = {}
    dropped = []
    for name in LINK_TYPES:
        typed = [r for r in relations if r.name == name]
        if not typed:
            continue
        set_links = []
        for r in typed:
            if len(r.arguments) != 2:
                raise InputError(f"@{name} {r.relation_id} links {len(r.arguments)} mentions; "
                                 "event sequencing takes exactly two (v1.8 crashes)",
                                 path=path, line=r.line)
            a, b = r.arguments
            if a not in node_2_set or b not in node_2_set:   # v1.8 logs an error and skips
                continue
            if node_2_set[a] == node_2_set[b]:
                dropped.append(r)
                continue
            set_links.append((node_2_set[a], node_2_set[b]))
        expanded = ((n1, n2, name) for a, b in _reduced(set_links)
                    for n1 in set_2_nodes[a] for n2 in set_2_nodes[b])
        links[name] = [(n1, n2) for n1, n2, _ in py2_set_order(expanded)]
    return _Side(links, dropped)


def _check_one_way(side: _Side, doc_id: str, path: str, what: str) -> None:
    """v1.8's ``validate``: no link type may link two mentions both ways."""
    for name, links in side.links.items():
        seen = set(links)
        for a, b in links:
            if (b, a) in seen:
                raise InputError(
                    f"document {doc_id}: the {what} @{name} links go both ways between {a} and "
                    f"{b} (after propagation through coreference), which v1.8 refuses as an "
                    "invalid script graph; -nv/--no-script-validation scores them anyway",
                    path=path)


def _nodes(gold: Sequence[Mention], system: Sequence[Mention],
           alignment: Iterable[tuple[int, int]]):
    """``store_nugget_nodes``: mention id -> TimeML node of each side, and the node lists."""
    to_sys = dict(alignment)
    gold_node: dict[str, str] = {}
    sys_node: dict[str, str] = {}
    gold_nodes, sys_nodes = [], []
    mapped = set()
    for gi, m in enumerate(gold):
        node = f"te{gi}"
        gold_node[m.mention_id] = node
        gold_nodes.append(node)
        si = to_sys.get(gi)
        if si is not None:
            sys_node[system[si].mention_id] = node
            sys_nodes.append(node)
            mapped.add(si)
    tid = len(gold)
    for si, m in enumerate(system):
        if si not in mapped:
            node = f"te{tid}"
            tid += 1
            sys_node[m.mention_id] = node
            sys_nodes.append(node)
    return gold_node, sys_node, gold_nodes, sys_nodes


def _timeml_links(side: _Side, to_node: Mapping[str, str]) -> dict[str, list[tuple[str, str, str]]]:
    """``make_all_time_ml``: per evaluated type, ``(node, node, TimeML relation)`` in order;
    links with a mention that has no node are skipped (``create_tlinks``)."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    for name in LINK_TYPES:
        out[name] = [(to_node[a], to_node[b], TIMEML_RELATIONS[name])
                     for a, b in side.links.get(name, []) if a in to_node and b in to_node]
    out["All"] = [x for name in LINK_TYPES for x in out[name]]
    return out


# --------------------------------------------------------------------------------------------
# the toolkit's implicit_in_recall score
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LinkCounts:
    """One document and link type, as ``evaluate_two_files_implicit_in_recall`` counts it."""

    prec_matched: int      # system reduced links credited
    system_links: int      # system reduced links (kept + set aside)
    rec_matched: int       # gold reduced links credited
    implicit_matched: int  # system links not verbatim in the gold reduced graph, entailed by it
    common_entities: int   # n
    weight: float          # w = 0.99 / (1 + n(n-1)/2 - rec_matched)
    gold_links: int        # gold reduced links (kept + set aside)

    @property
    def rec_credit(self) -> float:
        return self.rec_matched + self.weight * self.implicit_matched

    def to_dict(self) -> dict:
        return {"prec_matched": self.prec_matched, "system_links": self.system_links,
                "rec_matched": self.rec_matched, "implicit_matched": self.implicit_matched,
                "common_entities": self.common_entities, "weight": self.weight,
                "rec_credit": self.rec_credit, "gold_links": self.gold_links}


def _written(links) -> set[tuple[str, str, str]]:
    """Every link and its inverse (the toolkit's ``get_triples``)."""
    out = set()
    for s, t, rel in links:
        out.add((s, t, rel))
        if s != t:
            out.add((t, s, tp.INVERSE.get(rel, rel)))
    return out


def _entities(links) -> set[str]:
    return {x for s, t, _ in links for x in (s, t)}


def score_links(gold: Sequence[tuple[str, str, str]], system: Sequence[tuple[str, str, str]],
                where: str = "", path: str | None = None) -> LinkCounts:
    """Score one document's TimeML links (in file order) as the toolkit's
    ``implicit_in_recall`` mode (module docstring, step 6). Raises :class:`InputError`
    (``where`` + message, at ``path``) where v1.8 divides by zero."""
    g, s = te3_graph(list(gold)), te3_graph(list(system))
    g_written, s_written = _written(gold), _written(system)
    prec = sum(1 for x in s.final if x in g_written or g.graph.entails(*x))
    rec = sum(1 for x in g.final if x in s_written or s.graph.entails(*x))
    g_final = set(g.final)
    implicit = sum(1 for x in s.final if x not in g_final and g.graph.entails(*x))
    n = len(_entities(g.final) & _entities(s.final))
    denominator = 1 + 0.5 * n * (n - 1) - rec
    if denominator == 0:
        raise InputError(f"{where}the toolkit's implicit-recall weight 0.99 / (1 + n(n-1)/2 - "
                         f"matched) divides by zero (n = {n} common events, {rec} gold links "
                         "matched), where v1.8 crashes (ZeroDivisionError): two events linked "
                         "both ways (-nv), or by both After and Subevent (type All), in the gold "
                         "and the system do it", path=path)
    return LinkCounts(prec, len(s.final), rec, implicit, n, 0.99 / denominator, len(g.final))


# --------------------------------------------------------------------------------------------
# documents and corpus
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class SequencingDocument:
    doc_id: str
    gold_nodes: tuple[str, ...]
    system_nodes: tuple[str, ...]
    #: evaluated type -> TimeML links ``(node, node, relation)`` in v1.8's order
    gold_links: dict[str, list[tuple[str, str, str]]]
    system_links: dict[str, list[tuple[str, str, str]]]
    counts: dict[str, LinkCounts]


@dataclass(frozen=True, eq=False)
class SequencingScore:
    """v1.8's event sequencing scores of a corpus under one mention mapping."""

    combination: str
    documents: tuple[SequencingDocument, ...]
    warnings: tuple[TbfWarning, ...] = field(default=())

    def totals(self, eval_type: str) -> dict:
        docs = [d.counts[eval_type] for d in self.documents]
        return {"prec_matched": sum(c.prec_matched for c in docs),
                "system_links": sum(c.system_links for c in docs),
                "rec_credit": sum(c.rec_credit for c in docs),
                "gold_links": sum(c.gold_links for c in docs)}

    def scores(self, eval_type: str) -> tuple[float, float, float]:
        """``(precision, recall, f1)`` as fractions (``final_score``; 0 for a 0 denominator)."""
        t = self.totals(eval_type)
        p = t["prec_matched"] / t["system_links"] if t["system_links"] else 0.0
        r = t["rec_credit"] / t["gold_links"] if t["gold_links"] else 0.0
        f = 0.0 if (p == 0 and r == 0) or p + r == 0 else 2.0 * p * r / (p + r)
        return p, r, f


def document_links(doc_id: str, gold_doc: TbfDocument, system_doc: TbfDocument | None,
                   gold: Sequence[Mention], system: Sequence[Mention],
                   alignment: Iterable[tuple[int, int]], *, filtered: bool = False,
                   validate: bool = True, gold_path: str = "<gold>",
                   system_path: str = "<system>", warnings: list | None = None
                   ) -> SequencingDocument:
    """One document as v1.8 writes it to TimeML and scores it (module docstring). ``gold`` and
    ``system``: the scored mentions (after the white list: ``filtered``); ``alignment``:
    ``(gold index, system index)`` pairs of the coreference mapping."""
    g_side = _side(gold_doc, gold, {m.mention_id for m in gold} if filtered else None,
                   gold_path)
    s_side = _side(system_doc, system, {m.mention_id for m in system} if filtered else None,
                   system_path)
    if warnings is not None:
        for side, path in ((g_side, gold_path), (s_side, system_path)):
            for r in side.dropped_self:
                warnings.append(TbfWarning(
                    f"@{r.name} {r.relation_id} links two mentions of one coreference cluster "
                    f"({', '.join(r.arguments)}); ignored for sequencing (as v1.8 does)",
                    path, r.line))
    if validate:
        _check_one_way(g_side, doc_id, gold_path, "gold")
        _check_one_way(s_side, doc_id, system_path, "system")
    gold_node, sys_node, gold_nodes, sys_nodes = _nodes(gold, system, alignment)
    g_links, s_links = _timeml_links(g_side, gold_node), _timeml_links(s_side, sys_node)
    counts = {t: score_links(g_links[t], s_links[t], f"document {doc_id}, type {t}: ",
                             gold_path) for t in EVAL_TYPES}
    return SequencingDocument(doc_id, tuple(gold_nodes), tuple(sys_nodes), g_links, s_links,
                              counts)


def sequencing_evaluate(gold: TbfFile, system: TbfFile, score, combination: str = "mention_type",
                        *, type_whitelist: Iterable[str] | None = None,
                        validate: bool = True) -> SequencingScore:
    """Event sequencing of every document of ``score`` (a
    :class:`~exactalign.metrics.nugget.NuggetScore` of ``gold`` against ``system``, whose
    alignment of ``combination`` places the system mentions; v1.8: ``kbp``, ``mention_type``).
    ``type_whitelist``: the white list the nugget scores were computed with."""
    from .nugget import type_filter

    keep = type_filter(type_whitelist)
    warnings: list[TbfWarning] = []
    docs = []
    for d in score.documents:
        g_doc = gold.documents[d.doc_id]
        s_doc = system.documents.get(d.doc_id)
        g = [m for m in g_doc.mentions if keep is None or m.type in keep]
        s = [] if s_doc is None else [m for m in s_doc.mentions if keep is None or m.type in keep]
        al, _ = d.pair_weights(combination)
        docs.append(document_links(d.doc_id, g_doc, s_doc, g, s,
                                   [(int(a), int(b)) for a, b in al.tolist()],
                                   filtered=keep is not None, validate=validate,
                                   gold_path=gold.path, system_path=system.path,
                                   warnings=warnings))
    return SequencingScore(combination, tuple(docs), tuple(warnings))


# --------------------------------------------------------------------------------------------
# output
# --------------------------------------------------------------------------------------------
def _seq_out(sc: SequencingScore, eval_type: str) -> str:
    """The toolkit's ``final_score`` output (v1.8's ``seq.out`` of a type)."""
    p, r, f = sc.scores(eval_type)
    return ("=== Temporal Awareness Score ===\n"
            "Evaluated considering implicit relations in recall as well\n"
            "Temporal Score\tF1\tP\tR\n"
            f"\t\t{py2_percent(f)}\t{py2_percent(p)}\t{py2_percent(r)}\t\n"
            f"Overall Temporal Awareness Score (F1 score): {py2_percent(f)}\n\n")


def format_v18_sequencing(sc: SequencingScore) -> str:
    """v1.8's event sequencing section (what follows its mention and coreference results)."""
    out = ["\n"]
    for t in EVAL_TYPES:
        out.append(f"=======Event Sequencing Results for {t} =======\n")
        out.append(_seq_out(sc, t))
    return "".join(out)


def timeml_text(nodes: Sequence[str], links: Sequence[tuple[str, str, str]]) -> str:
    """A document's TimeML file as v1.8 writes it (``pretty_xml``; every TLINK has lid l0)."""
    lines = ['<?xml version="1.0" ?>',
             '<TimML xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
             'xsi:noNamespaceSchemaLocation="http://timeml.org/timeMLdocs/TimeML_1.2.1.xsd">',
             "  <DCT>",
             '    <TIMEX3 functionInDocument="CREATION_TIME" scriptFunction="false" tid="t0" '
             'type="TIME" value=""/>',
             "  </DCT>"]
    if nodes:
        lines += ["  <TEXT>", *(f'    <EVENT eid="{n}"/>' for n in nodes), "  </TEXT>"]
    else:
        lines.append("  <TEXT/>")
    lines += [f'  <MAKEINSTANCE eid="{n}" eiid="instance_{n}"/>' for n in nodes]
    lines += [f'  <TLINK eventInstanceID="{a}" lid="l0" relType="{rel}" '
              f'relatedToEventInstance="{b}"/>' for a, b, rel in links]
    lines.append("</TimML>")
    return "\n".join(lines) + "\n"


def v18_directory(sc: SequencingScore) -> tuple:
    """What v1.8's ``-a DIR`` leaves in ``DIR``, as text: per type of :data:`EVAL_TYPES`,
    ``(type, {"gold": {doc id: TimeML}, "sys": {doc id: TimeML}}, seq.out)``."""
    out = []
    for t in EVAL_TYPES:
        sides = {sub: {d.doc_id: timeml_text(getattr(d, nodes_of), getattr(d, links_of)[t])
                       for d in sc.documents}
                 for sub, nodes_of, links_of in (("gold", "gold_nodes", "gold_links"),
                                                 ("sys", "system_nodes", "system_links"))}
        out.append((t, sides, _seq_out(sc, t)))
    return tuple(out)


def write_v18_directory(directory, sc: SequencingScore) -> None:
    """Write what v1.8's ``-a DIR`` leaves in ``DIR`` (:func:`v18_directory`): per type,
    ``gold/<doc>.tml``, ``sys/<doc>.tml`` and ``seq.out`` (earlier ``.tml`` files of those
    folders removed)."""
    write_v18_files(directory, v18_directory(sc))


def write_v18_files(directory, files) -> None:
    """Write :func:`v18_directory`'s ``files`` into ``directory`` as v1.8's ``-a DIR`` does."""
    for t, sides, seq_out in files:
        for sub, docs in sides.items():
            folder = os.path.join(directory, t, sub)
            os.makedirs(folder, exist_ok=True)
            for name in os.listdir(folder):
                if name.lower().endswith(".tml"):
                    os.remove(os.path.join(folder, name))
            for doc_id, text in docs.items():
                with open(os.path.join(folder, doc_id + ".tml"), "w", encoding="utf-8",
                          errors="surrogateescape", newline="\n") as f:
                    f.write(text)
        with open(os.path.join(directory, t, "seq.out"), "w", encoding="utf-8",
                  newline="\n") as f:
            f.write(seq_out)
