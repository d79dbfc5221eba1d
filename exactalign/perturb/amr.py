r"""Seeded, parser-like errors in sentence AMR graphs (:class:`penman.Graph`).

:func:`perturb_graph` turns a gold sentence graph into a "system" graph with the errors AMR
parsers make, each at its own rate (:class:`AmrErrorRates`; the rates are per opportunity):

``concept``        per node: its concept becomes a *related* one when the inventory has one --
                   another sense of the same predicate (``go-02`` -> ``go-01``), else a concept
                   sharing its first four characters (``possible-01`` -> ``possibility``) -- and
                   otherwise another concept of the same kind (predicate or not) drawn from the
                   inventory by frequency;
``role``           per edge: its role becomes another one -- a core role ``:ARGk`` another core
                   role (``:ARG0`` <-> ``:ARG1`` above all), any other role another non-core
                   role drawn from the inventory by frequency;
``drop_edge``      per reentrant edge (its target has more than one incoming edge): dropped, as
                   parsers miss reentrancies;
``add_edge``       per node: one spurious edge from it to another node of the graph, its role
                   drawn from the inventory by frequency (a wrong attachment or reentrancy);
``attribute``      per attribute (constants: ``:polarity -``, names' ``:op1 "Paris"``,
                   quantities): dropped when its role has a single value in the inventory
                   (``:polarity``), else its value becomes another value of the same role;
``drop_subgraph``  per non-top node: the node and everything attached to the graph only through
                   it are removed (a missed clause or modifier), unless that would bring the
                   nodes removed so far above a third of the graph's (at least 1).

The inventory (:class:`AmrInventory`: concepts, roles and attribute values with their
frequencies) comes from a bank of gold graphs, so substitutes are plausible labels. After the
errors, every node no longer connected to the top (edges taken both ways) is removed with its
triples, so the graph can always be written in PENMAN. Variables keep their names; the input
graph is never modified. A rate of 0 everywhere returns a copy of the graph's triples.

The decisions for graph ``index`` are drawn from ``numpy.random.default_rng([seed, index])``,
in a fixed order, so a graph's errors depend only on the seed, its index and the graph, not on
the other graphs perturbed with it. :data:`PROFILES` names the
error profiles the ``doc_smatch`` experiment uses as its "systems".

    >>> import penman
    >>> g = penman.decode("(w / want-01 :ARG0 (b / boy) :ARG1 (g / go-02 :ARG0 b))")
    >>> inv = AmrInventory.from_graphs([g, penman.decode("(g / go-01 :polarity -)")])
    >>> p = perturb_graph(g, AmrErrorRates(concept=1.0), inv, seed=0, index=0)
    >>> sorted(c for _, _, c in p.graph.instances())  # go-02 -> go-01, want-01 -> go-02
    ['boy', 'go-01', 'go-02']
    >>> dict(p.applied)
    {'concept': 2}
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, fields

import numpy as np

from ..core.errors import InputError
from ..metrics.smatch import reachable

#: The error classes, in the order :func:`perturb_graph` applies them.
ERROR_KINDS = ("drop_subgraph", "drop_edge", "role", "concept", "attribute", "add_edge")
_SENSE = re.compile(r"^(.+)-(\d\d)$")
_CORE = re.compile(r"^:ARG(\d)$")
#: The core roles a core role may become.
CORE_ROLES = tuple(f":ARG{k}" for k in range(5))
#: drop_subgraph errors remove at most this share of a graph's nodes (at least 1), together.
MAX_DROP_SHARE = 1 / 3


@dataclass(frozen=True)
class AmrErrorRates:
    """The probability of each error class per opportunity (module docstring)."""

    concept: float = 0.0
    role: float = 0.0
    drop_edge: float = 0.0
    add_edge: float = 0.0
    attribute: float = 0.0
    drop_subgraph: float = 0.0

    def __post_init__(self):
        for k in ERROR_KINDS:
            v = getattr(self, k)
            if not (isinstance(v, int | float) and 0.0 <= v <= 1.0):
                raise InputError(f"error rate {k} must be in [0, 1], not {v!r}")

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


#: Error profiles of the perturbed "systems": ``lexical`` gets labels wrong (concepts, senses,
#: roles, constants) on a mostly right structure; ``structural`` gets the labels mostly right
#: but misses subgraphs and reentrancies and attaches wrongly. Their Smatch against gold is
#: similar (0.840 and 0.839 on the first 300 sentences of the Little Prince bank v3.0, seed 0),
#: so the alignment can decide their order.
PROFILES = {
    "lexical": AmrErrorRates(concept=0.15, role=0.12, attribute=0.2, drop_edge=0.1,
                             add_edge=0.02, drop_subgraph=0.01),
    "structural": AmrErrorRates(concept=0.05, role=0.05, attribute=0.05, drop_edge=0.4,
                                add_edge=0.08, drop_subgraph=0.05),
}


@dataclass(frozen=True)
class AmrInventory:
    """Labels and their frequencies in a bank of graphs: ``concepts``, non-core ``roles``
    (of edges between variables) and ``values`` per attribute role, each a tuple of
    ``(label, count)`` sorted by label (deterministic draws)."""

    concepts: tuple
    roles: tuple
    values: dict

    @classmethod
    def from_graphs(cls, graphs) -> AmrInventory:
        concepts, roles, values = Counter(), Counter(), {}
        for g in graphs:
            variables = g.variables()
            for _, r, t in g.triples:
                if r == ":instance":
                    if t is not None:
                        concepts[t] += 1
                elif t in variables:
                    if not _CORE.match(r):
                        roles[r] += 1
                else:
                    values.setdefault(r, Counter())[t] += 1
        return cls(tuple(sorted(concepts.items())), tuple(sorted(roles.items())),
                   {r: tuple(sorted(c.items())) for r, c in sorted(values.items())})

    @property
    def senses(self) -> dict:
        """Predicate lemma -> its senses in the inventory (``go`` -> ``go-01``, ``go-02``)."""
        out: dict = {}
        for c, _ in self.concepts:
            m = _SENSE.match(c)
            if m:
                out.setdefault(m.group(1), []).append(c)
        return out


@dataclass
class AmrPerturbation:
    """A perturbed graph and the errors applied, per class (:attr:`applied`), with the
    opportunities each class had."""

    graph: object  # penman.Graph
    applied: Counter = field(default_factory=Counter)
    opportunities: Counter = field(default_factory=Counter)


def _draw(rng: np.random.Generator, items: tuple, exclude=None):
    """A label of ``items`` (``(label, count)``) drawn by frequency, never ``exclude`` (None
    when nothing else is left)."""
    labels = [x for x, _ in items if x != exclude]
    if not labels:
        return None
    w = np.array([c for x, c in items if x != exclude], dtype=float)
    return labels[int(rng.choice(len(labels), p=w / w.sum()))]


def _concept_kind(c: str) -> bool:
    return bool(_SENSE.match(c))


class _Substitutes:
    """Precomputed substitute lists of an inventory (related concepts, concepts by kind)."""

    def __init__(self, inv: AmrInventory):
        self.inv = inv
        self.senses = inv.senses
        self.by_kind = {k: tuple((c, n) for c, n in inv.concepts if _concept_kind(c) == k)
                        for k in (True, False)}
        self.by_prefix: dict = {}
        for c, _ in inv.concepts:
            self.by_prefix.setdefault(c[:4], []).append(c)

    def concept(self, c: str, rng: np.random.Generator) -> str | None:
        m = _SENSE.match(c)
        related = ([s for s in self.senses.get(m.group(1), ()) if s != c] if m else [])
        if not related:
            related = [x for x in self.by_prefix.get(c[:4], ()) if x != c] if len(c) >= 4 else []
        if related:
            return related[int(rng.integers(len(related)))]
        return _draw(rng, self.by_kind[_concept_kind(c)], exclude=c)

    def role(self, r: str, rng: np.random.Generator) -> str | None:
        m = _CORE.match(r)
        if m:
            k = int(m.group(1))
            # ARG0 <-> ARG1 confusions first, as parsers make them
            near = [x for x in ((":ARG1",) if k == 0 else (":ARG0",) if k == 1 else ())]
            if near and rng.random() < 0.6:
                return near[0]
            others = [x for x in CORE_ROLES if x != r]
            return others[int(rng.integers(len(others)))]
        return _draw(rng, self.inv.roles, exclude=r)


def _connected(top, triples, variables) -> set:
    """Variables connected to ``top`` through edges between variables, taken both ways."""
    adj: dict = {}
    for s, r, t in triples:
        if r != ":instance" and t in variables:
            adj.setdefault(s, []).append(t)
            adj.setdefault(t, []).append(s)
    return reachable(adj, top)


def _restrict(triples, keep: set, variables: set) -> list:
    """The triples whose variables are all in ``keep``."""
    return [(s, r, t) for s, r, t in triples
            if s in keep and (r == ":instance" or t not in variables or t in keep)]


def perturb_graph(graph, rates: AmrErrorRates, inventory: AmrInventory | _Substitutes, *,
                  seed: int, index: int = 0) -> AmrPerturbation:
    """``graph`` (a :class:`penman.Graph`) with parser-like errors (module docstring), drawn
    from ``numpy.random.default_rng([seed, index])``."""
    import penman

    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise InputError(f"seed must be an int >= 0, not {seed!r}")
    subs = inventory if isinstance(inventory, _Substitutes) else _Substitutes(inventory)
    rng = np.random.default_rng([int(seed), int(index)])
    top = graph.top
    variables = set(graph.variables())
    triples = list(graph.triples)
    applied, opp = Counter(), Counter()

    # drop_subgraph: a node and what hangs only on it
    nodes = [v for v in sorted(variables) if v != top]
    opp["drop_subgraph"] = len(nodes)
    cap = max(1, MAX_DROP_SHARE * len(variables))  # nodes the class may remove in all
    for v in nodes:
        if rng.random() >= rates.drop_subgraph or v not in variables:
            continue
        rest = [t for t in triples if v not in (t[0], t[2])]
        keep = _connected(top, rest, variables) & (variables - {v})
        if len(graph.variables()) - len(keep) > cap:
            continue
        triples = _restrict(rest, keep, variables)
        variables = keep
        applied["drop_subgraph"] += 1

    # drop_edge: reentrant edges only (their target stays attached through another edge)
    indeg = Counter(t for s, r, t in triples if r != ":instance" and t in variables)
    out = []
    for s, r, t in triples:
        if r != ":instance" and t in variables and indeg[t] > 1:
            opp["drop_edge"] += 1
            if rng.random() < rates.drop_edge:
                indeg[t] -= 1
                applied["drop_edge"] += 1
                continue
        out.append((s, r, t))
    triples = out

    # role, concept, attribute: labels
    out = []
    for s, r, t in triples:
        if r == ":instance":
            opp["concept"] += 1
            if t is not None and rng.random() < rates.concept:
                new = subs.concept(t, rng)
                if new is not None:
                    t = new
                    applied["concept"] += 1
        elif t in variables:
            opp["role"] += 1
            if rng.random() < rates.role:
                new = subs.role(r, rng)
                if new is not None:
                    r = new
                    applied["role"] += 1
        else:
            opp["attribute"] += 1
            if rng.random() < rates.attribute:
                vals = subs.inv.values.get(r, ())
                applied["attribute"] += 1
                if len(vals) <= 1:
                    continue  # :polarity - dropped
                t = _draw(rng, vals, exclude=t)
        out.append((s, r, t))
    triples = out

    # add_edge: a spurious edge from a node to another
    ordered = sorted(variables)
    opp["add_edge"] = len(ordered)
    for v in ordered:
        if rng.random() < rates.add_edge and len(ordered) > 1:
            w = ordered[int(rng.integers(len(ordered)))]
            role = _draw(rng, subs.inv.roles)
            if w != v and role is not None and (v, role, w) not in triples:
                triples.append((v, role, w))
                applied["add_edge"] += 1

    keep = _connected(top, triples, variables)
    triples = _restrict(triples, keep, variables)
    return AmrPerturbation(penman.Graph(triples, top=top), applied, opp)


def perturb_graphs(graphs, rates: AmrErrorRates, inventory: AmrInventory, *,
                   seed: int, first_index: int = 0) -> list[AmrPerturbation]:
    """:func:`perturb_graph` of every graph, graph ``k`` drawn with ``index=first_index + k``
    (the graph's position in its source, so its errors do not depend on where a document
    cut starts)."""
    subs = _Substitutes(inventory)
    return [perturb_graph(g, rates, subs, seed=seed, index=first_index + k)
            for k, g in enumerate(graphs)]
