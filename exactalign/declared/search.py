"""Instances to hold a heuristic against, derived from a declaration, and shrinking.

Three sources, cheapest first (:mod:`exactalign.declared.validate` runs them in this order):

* **exhaustive** -- :func:`tiers` and :func:`enumerate_tier`: *every* pair of documents with at
  most ``k`` items a side over a small universe of values built node by node (:func:`values`:
  labels ``a``, ``b``, ``c``; every span in a window of 2, 3 or 5 positions; type paths; sets
  of mentions; graphs of one or two variables), smallest instances first, one representative
  per renaming of the labels. The tiers (universe level, ``k``) are chosen to fill a budget of
  instances, and each is either run completely or not at all, so "every instance up to ..." is
  literally true;
* **guided** and **random** -- :func:`document_strategy`: hypothesis strategies whose pools are
  drawn once per instance (how many labels, how wide the span window) so that values collide
  and items compete for the same partner -- what makes an aligner choose;
* :func:`shrink` -- delta debugging of a failing document pair: drop chunks of every list, then
  single items, then move every integer down, while the failure persists.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import math
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from types import MappingProxyType

from ..core.errors import InputError
from .metric import Metric
from .nodes import Eq, Func, Hierarchy, Latent, Match, Node, Record, Span, get_field

#: Labels of equality-compared values (renaming them is a symmetry of every metric).
LABELS = ("a", "b", "c")
#: Span windows (positions) of the universe levels.
WINDOWS = (2, 3, 5)
LEVELS = 3
#: Largest universe of one record (the product of its fields' universes) per level.
RECORD_CAP = (4, 12, 24)
#: Items a side tried by the exhaustive tiers.
MAX_ITEMS = 4


# --------------------------------------------------------------------------------------------
# values drawn from the user's documents
# --------------------------------------------------------------------------------------------
#: id(node) -> the distinct values of an Eq or Hierarchy node seen in the user's documents
#: (set by :func:`using`); empty: the labels a, b, c and type paths x, x.y, ...
_POOLS: ContextVar[Mapping] = ContextVar("exactalign_validate_pools",
                                         default=MappingProxyType({}))


def observe(metric: Metric, documents) -> dict[int, list]:
    """The distinct values each equality or hierarchy node compares in ``documents``, in order
    of first appearance: generated instances use them (ints stay ints, a user's labels stay
    labels), so a heuristic meets the kind of values it was written for."""
    pools: dict[int, list] = {}
    seen: dict[int, set] = {}

    def add(node, value):
        key = repr(value)
        if key not in seen.setdefault(id(node), set()):
            seen[id(node)].add(key)
            pools.setdefault(id(node), []).append(copy.deepcopy(value))

    def walk(node, v):
        if isinstance(node, Match):
            for item in node.items(v):
                walk(node.element, item)
        elif isinstance(node, Record):
            for name, f in node.fields.items():
                walk(f, get_field(v, name))
        elif isinstance(node, Eq | Hierarchy):
            add(node, v if node.field is None else get_field(v, node.field))

    for doc in documents:
        with contextlib.suppress(InputError, RecursionError):
            walk(metric.spec, metric._root(doc))
    return pools


@contextlib.contextmanager
def using(pools: dict[int, list]):
    """Generate with the values of :func:`observe` inside the block."""
    token = _POOLS.set(pools)
    try:
        yield
    finally:
        _POOLS.reset(token)


def _labels(node: Node, n: int) -> list:
    """``n`` values for an equality node: the user's first ones, topped up with fresh values of
    the same kind when the documents have fewer."""
    seen = _POOLS.get().get(id(node))
    if not seen:
        return list(LABELS[:n]) if n <= len(LABELS) else [*LABELS, *(f"l{k}" for k in
                                                                     range(n - len(LABELS)))]
    out = list(seen[:n])
    k = 0
    while len(out) < n and k < 50:
        if all(isinstance(v, int) and not isinstance(v, bool) for v in out):
            fresh = max(out) + 1 + k
        elif all(isinstance(v, str) for v in out):
            fresh = f"{out[0]}~{k}"
        else:
            break
        k += 1
        if fresh not in out:
            out.append(fresh)
    return out


def _paths(node: Hierarchy, n: int) -> list:
    seen = _POOLS.get().get(id(node))
    sep = node.sep
    default = ["x", "x" + sep + "y", "x" + sep + "z", "w"]
    if not seen:
        return default[:n]
    out = list(seen[:n])
    out += [p for p in default if p not in out][: n - len(out)]
    return out


# --------------------------------------------------------------------------------------------
# exhaustive: small universes
# --------------------------------------------------------------------------------------------
def _wrap(field, value):
    return value if field is None else {field: value}


def values(node: Node, level: int) -> list:
    """Every value of ``node``'s universe at ``level`` (0, 1, 2: larger each time)."""
    if isinstance(node, Eq):
        return _wrap_all(node.field, _labels(node, level + 1))
    if isinstance(node, Span):
        w = WINDOWS[level]
        end = 1 if node.inclusive else 0
        spans = [[s, e - end] for s in range(w) for e in range(s + 1, min(w, s + 4) + 1)]
        return _wrap_all(node.field, spans)
    if isinstance(node, Hierarchy):
        return _wrap_all(node.field, _paths(node, (1, 2, 4)[level]))
    if isinstance(node, Record):
        return _record_values(node, level)
    if isinstance(node, Match):
        if node.order == "dag":
            raise InputError("cannot enumerate DAG-ordered collections")
        inner = values(node.element, max(level - 1, 0))
        sizes = range(1 if type(node.element) is Eq else 0, (1, 2, 2)[level] + 1)
        combos = itertools.combinations if type(node.element) is Eq else \
            itertools.combinations_with_replacement
        out = [[inner[i] for i in c] for s in sizes for c in combos(range(len(inner)), s)]
        return _wrap_all(node.field, out)
    if isinstance(node, Latent):
        return _graph_values(node, level)
    if isinstance(node, Func) and node.like is not None:
        return values(node.like, level)
    if isinstance(node, Func):
        raise InputError(f"cannot generate values for the user similarity {node.name} "
                         "(declare the values it compares with 'like'); validate on your "
                         "documents (GOLD SYSTEM) instead")
    raise InputError(f"cannot generate values for a {node.kind}")


def _wrap_all(field, vals: list) -> list:
    return vals if field is None else [{field: v} for v in vals]


def _record_values(node: Record, level: int) -> list:
    names = list(node.fields)
    levels = {n: level for n in names}

    def size(lv):
        return math.prod(len(values(node.fields[n], lv[n])) for n in names)

    while size(levels) > RECORD_CAP[level] and any(levels.values()):
        widest = max((n for n in names if levels[n]),
                     key=lambda n: len(values(node.fields[n], levels[n])))
        levels[widest] -= 1
    pools = [values(node.fields[n], levels[n]) for n in names]
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*pools)]


def _graph_values(node: Latent, level: int) -> list:
    n_vars, concepts, n_edges = [(1, ("x",), 1), (2, ("x", "y"), 1), (2, ("x", "y"), 2)][level]
    out = []
    for n in range(1, n_vars + 1):
        names = [f"v{k}" for k in range(n)]
        edges = [("r", a, b) for a in names for b in [*names, "c"]]
        for cs in itertools.product(concepts, repeat=n):
            if list(cs) != sorted(cs):  # renaming variables: one order of concepts
                continue
            for m in range(n_edges + 1):
                for es in itertools.combinations(edges, m):
                    triples = [["instance", v, c] for v, c in zip(names, cs, strict=True)]
                    out.append({node.triples: triples + [list(e) for e in es],
                                node.variables: names})
    return out


@dataclass(frozen=True)
class Tier:
    """Every document pair with at most ``k`` items a side over the level's universe, each
    collection in its sorted and its reversed order (an aligner's ties are broken by order:
    for two items that is every order)."""

    level: int
    k: int
    universe: int  # distinct values of one item (graphs: of one document)
    documents: int  # distinct documents of one side
    ordered: bool  # a sequence-ordered root: every order of every multiset

    @property
    def instances(self) -> int:
        return self.documents ** 2

    def describe(self, metric: Metric) -> str:
        if isinstance(metric.spec, Latent):
            return f"every pair of {self.documents} graphs (level {self.level})"
        order = "in every order" if self.ordered or self.k <= 2 else \
            "in sorted and reversed order"
        return (f"every instance with up to {self.k} item{'s' * (self.k > 1)} a side over "
                f"{self.universe} value{'s' * (self.universe != 1)} (level {self.level}), {order}")


def _orders(u: int, k: int, ordered: bool) -> list[tuple[int, ...]]:
    """The index tuples of one side's documents: every sequence (``ordered``), else every
    multiset sorted and reversed."""
    out: list[tuple[int, ...]] = []
    for s in range(k + 1):
        if ordered:
            out.extend(itertools.product(range(u), repeat=s))
            continue
        for c in itertools.combinations_with_replacement(range(u), s):
            out.append(c)
            if c != c[::-1]:
                out.append(c[::-1])
    return out


def _documents_bound(u: int, k: int, ordered: bool) -> int:
    if ordered:
        return sum(u ** s for s in range(k + 1))
    return sum(math.comb(u + s - 1, s) * (1 if s < 2 else 2) for s in range(k + 1))


def _root(metric: Metric) -> Node:
    if metric.transform is not None:
        raise InputError(f"metric {metric.name} transforms its documents before matching, "
                         "so documents cannot be generated from its declaration; validate it on "
                         "your documents (GOLD SYSTEM)")
    return metric.spec


def tiers(metric: Metric, budget: int) -> list[Tier]:
    """The tiers that fit ``budget`` instances together, cheapest first."""
    root = _root(metric)
    candidates = []
    for level in range(LEVELS):
        if isinstance(root, Latent):
            n = len(values(root, level))
            candidates.append(Tier(level, 1, n, n, False))
            continue
        if not isinstance(root, Match):
            raise InputError(f"cannot enumerate documents of a {root.kind} root")
        u = len(values(root.element, level))
        ordered = root.order == "sequence"
        for k in range(1, MAX_ITEMS + 1):
            if _documents_bound(u, k, ordered) ** 2 > budget:
                break
            candidates.append(Tier(level, k, u, len(_orders(u, k, ordered)), ordered))
    chosen, left = [], budget
    for t in sorted(candidates, key=lambda t: (t.instances, t.level, t.k)):
        if t.instances <= left and not any(c.level >= t.level and c.k >= t.k for c in chosen):
            chosen = [c for c in chosen if not (t.level >= c.level and t.k >= c.k)] + [t]
            left = budget - sum(c.instances for c in chosen)
    return sorted(chosen, key=lambda t: t.instances)


def enumerate_tier(metric: Metric, tier: Tier) -> Iterator[tuple[object, object]]:
    """The tier's document pairs, smallest first (``|X| + |Y|``), one per label renaming."""
    root = _root(metric)
    if isinstance(root, Latent):
        graphs = values(root, tier.level)
        docs = [(len(g[root.triples]), _wrap(metric.field, g)) for g in graphs]
        for _, i, j in sorted((a[0] + b[0], i, j) for i, a in enumerate(docs)
                              for j, b in enumerate(docs)):
            yield docs[i][1], docs[j][1]
        return
    items = values(root.element, tier.level)
    by_size: list[list] = [[] for _ in range(tier.k + 1)]
    for idx in _orders(len(items), tier.k, tier.ordered):
        by_size[len(idx)].append(idx)

    def doc(idx):
        return _wrap(metric.field, _wrap(root.field, [copy.deepcopy(items[i]) for i in idx]))

    for total in range(2 * tier.k + 1):
        for a in range(max(0, total - tier.k), min(tier.k, total) + 1):
            for x in by_size[a]:
                for y in by_size[total - a]:
                    dx, dy = doc(x), doc(y)
                    if _POOLS.get() or _canonical(dx, dy):  # the user's values: all
                        yield dx, dy


def _canonical(x, y) -> bool:
    """True when the pair names its labels ``a``, ``b``, ``c`` in order of first appearance
    (every other pair is a renaming of one that does)."""
    seen: list[str] = []

    def walk(v) -> bool:
        if isinstance(v, str):
            if v in LABELS and v not in seen:
                if v != LABELS[len(seen)]:
                    return False
                seen.append(v)
            return True
        if isinstance(v, dict):
            return all(walk(e) for e in v.values())
        if isinstance(v, list):
            return all(walk(e) for e in v)
        return True

    return walk(x) and walk(y)


# --------------------------------------------------------------------------------------------
# guided and random: hypothesis strategies with pools drawn per instance
# --------------------------------------------------------------------------------------------
def strategy(node: Node, size: int = 4, path: str = "root"):
    """A hypothesis strategy for values ``node`` compares. Pools (the number of labels, the
    span window) are drawn once per instance, shared by both documents, so values collide."""
    from hypothesis import strategies as st

    def wrap(field_name, inner):
        return inner if field_name is None else st.fixed_dictionaries({field_name: inner})

    if isinstance(node, Match):
        if node.order == "dag":
            raise InputError("cannot generate DAG-ordered collections")
        unique = {"unique_by": repr} if type(node.element) is Eq else {}
        inner = strategy(node.element, max(size - 1, 2), path + ".element")
        return wrap(node.field, st.lists(inner, min_size=1 if unique else 0, max_size=size,
                                         **unique))
    if isinstance(node, Record):
        return st.fixed_dictionaries({k: strategy(v, size, f"{path}.{k}")
                                      for k, v in node.fields.items()})
    if isinstance(node, Span):
        end = 1 if node.inclusive else 0

        def spans(w):
            return st.integers(0, w - 1).flatmap(
                lambda s: st.integers(s + 1, min(w, s + 5)).map(lambda e: [s, e - end]))

        return wrap(node.field, st.shared(st.integers(2, 8), key=path).flatmap(spans))
    if isinstance(node, Hierarchy):
        if _POOLS.get().get(id(node)):
            return wrap(node.field, st.sampled_from(_paths(node, 4)))
        return wrap(node.field, st.lists(st.sampled_from("xy"), min_size=1, max_size=3).map(
            node.sep.join))
    if isinstance(node, Eq):
        pool = st.shared(st.integers(1, 4), key=path)
        return wrap(node.field, pool.flatmap(lambda n: st.sampled_from(_labels(node, n))))
    if isinstance(node, Latent):
        return _graphs(node)
    if isinstance(node, Func) and node.like is not None:
        return strategy(node.like, size, path)
    if isinstance(node, Func):
        raise InputError(f"cannot generate values for the user similarity {node.name} "
                         "(declare the values it compares with 'like'); validate on your "
                         "documents (GOLD SYSTEM) instead")
    raise InputError(f"cannot generate values for a {node.kind}")


def _graphs(node: Latent):
    from hypothesis import strategies as st

    @st.composite
    def graph(draw):
        names = [f"v{k}" for k in range(draw(st.integers(1, 4)))]
        triples = [["instance", v, draw(st.sampled_from(["x", "y"]))] for v in names]
        triples += [[r, a, b] for r, a, b in draw(st.lists(st.tuples(
            st.sampled_from(["r", "s"]), st.sampled_from(names),
            st.sampled_from([*names, "c"])), max_size=4))]
        return {node.triples: triples, node.variables: names}

    return graph()


def document_strategy(metric: Metric):
    from hypothesis import strategies as st

    inner = strategy(_root(metric))
    return inner if metric.field is None else st.fixed_dictionaries({metric.field: inner})


def pair_strategy(metric: Metric):
    """Document pairs: half the time two independent documents, half the time a system
    document made as systems make them -- near copies of reference items (one field redrawn,
    a span end moved, a member dropped or added), some fresh items, in a shuffled order. Near
    copies tie and compete for the same partner: what an aligner must decide."""
    from hypothesis import strategies as st

    root = _root(metric)
    docs = document_strategy(metric)

    @st.composite
    def pair(draw):
        reference = draw(docs)
        if not draw(st.booleans()):
            return reference, draw(docs)
        inner = reference if metric.field is None else reference[metric.field]
        if isinstance(root, Latent):
            out = _mutant_graph(root, inner, draw)
        else:
            items = root.items(inner) if root.order != "dag" else list(inner)
            fresh = strategy(root.element, 3, "root.element")
            made = []
            for _ in range(draw(st.integers(0, len(items) + 1))):
                if items and draw(st.integers(0, 3)):
                    made.append(_mutant(root.element, draw(st.sampled_from(items)), draw,
                                        "root.element"))
                else:
                    made.append(draw(fresh))
            made = draw(st.permutations(made)) if made else made
            if type(root.element) is Eq:
                made = list({repr(v): v for v in made}.values())
            out = made if root.field is None else {root.field: made}
        return reference, out if metric.field is None else {metric.field: out}

    return pair()


def _mutant(node: Node, value, draw, path: str):
    """``value`` with one small change (or none): what a system gets almost right."""
    from hypothesis import strategies as st

    if draw(st.integers(0, 4)) == 0:
        return copy.deepcopy(value)
    if isinstance(node, Record):
        name = draw(st.sampled_from(list(node.fields)))
        out = dict(value)
        out[name] = _mutant(node.fields[name], value[name], draw, f"{path}.{name}")
        return out
    if isinstance(node, Span) and node.field is None:
        s, e = value
        if draw(st.booleans()):
            s = max(0, s + draw(st.sampled_from([-1, 1])))
        else:
            e = e + draw(st.sampled_from([-1, 1]))
        lo = s + (0 if node.inclusive else 1)
        return [s, max(e, lo)]
    if isinstance(node, Match) and node.field is None and node.order is None:
        items = list(value)
        if items and draw(st.booleans()):
            del items[draw(st.integers(0, len(items) - 1))]
        else:
            items.append(draw(strategy(node.element, 3, path + ".element")))
        if type(node.element) is Eq:
            items = list({repr(v): v for v in items}.values())
            if not items:
                return copy.deepcopy(value)
        return items
    return draw(strategy(node, 3, path))


def _mutant_graph(node: Latent, graph, draw):
    from hypothesis import strategies as st

    triples = [list(t) for t in graph[node.triples]]
    names = list(graph[node.variables])
    for _ in range(draw(st.integers(1, 3))):
        k = draw(st.integers(0, 2))
        if k == 0 and triples:
            del triples[draw(st.integers(0, len(triples) - 1))]
        elif k == 1 and names:
            t = draw(st.sampled_from([t for t in triples if t[0] == "instance"] or [None]))
            if t is not None:
                t[2] = draw(st.sampled_from(["x", "y"]))
        elif names:
            triples.append([draw(st.sampled_from(["r", "s"])), draw(st.sampled_from(names)),
                            draw(st.sampled_from([*names, "c"]))])
    used = {t[1] for t in triples if t[0] == "instance"}
    triples = [t for t in triples if t[0] == "instance" or (t[1] in used and (
        t[2] in used or t[2] not in names))]
    return {node.triples: triples, node.variables: [v for v in names if v in used]}


# --------------------------------------------------------------------------------------------
# shrinking
# --------------------------------------------------------------------------------------------
def _lists(v, path=()) -> Iterator[tuple]:
    """Paths of every non-empty list inside ``v``, outermost first."""
    if isinstance(v, list):
        if v:
            yield path
        for k, e in enumerate(v):
            yield from _lists(e, (*path, k))
    elif isinstance(v, dict):
        for k, e in v.items():
            yield from _lists(e, (*path, k))


def _get(v, path):
    for p in path:
        v = v[p]
    return v


def _ints(v) -> list[int]:
    if isinstance(v, bool):
        return []
    if isinstance(v, int):
        return [v]
    if isinstance(v, list):
        return [i for e in v for i in _ints(e)]
    if isinstance(v, dict):
        return [i for e in v.values() for i in _ints(e)]
    return []


def _shift(v, d):
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v - d
    if isinstance(v, list):
        return [_shift(e, d) for e in v]
    if isinstance(v, dict):
        return {k: _shift(e, d) for k, e in v.items()}
    return v


def size(doc) -> int:
    """Items in every list of a document (what shrinking makes smaller)."""
    if isinstance(doc, list):
        return len(doc) + sum(size(e) for e in doc)
    if isinstance(doc, dict):
        return sum(size(e) for e in doc.values())
    return 0


def shrink(pair: tuple, fails: Callable[[object, object], bool], *, field=None,
           max_calls: int = 2000) -> tuple[tuple, int]:
    """A smaller pair on which ``fails`` still holds (and the calls spent): chunks of every
    list dropped (halves, quarters, ... single items), then every integer moved down by the
    smallest one, until nothing more goes. Only ``doc[field]`` is touched when ``field`` is
    given (an ``id`` and other keys stay)."""
    pair = (_plain(pair[0]), _plain(pair[1]))
    calls = 0

    def attempt(candidate) -> bool:
        nonlocal calls, pair
        if calls >= max_calls:
            return False
        calls += 1
        try:
            ok = fails(*candidate)
        except InputError:
            ok = False
        if ok:
            pair = candidate
        return ok

    progress = True
    while progress and calls < max_calls:
        progress = False
        for side in (0, 1):
            base = () if field is None or not isinstance(pair[side], dict) \
                or field not in pair[side] else (field,)
            changed = True
            while changed and calls < max_calls:
                changed = False
                for path in list(_lists(_get(pair[side], base), base)):
                    n = len(_get(pair[side], path))
                    chunk = n
                    while chunk >= 1 and not changed:
                        for start in range(0, n, chunk):
                            cand = copy.deepcopy(pair[side])
                            del _get(cand, path)[start:start + chunk]
                            new = (cand, pair[1]) if side == 0 else (pair[0], cand)
                            if attempt(new):
                                changed = progress = True
                                break
                        chunk //= 2
                    if changed:
                        break
        ints = _ints([_get(d, (field,)) if field is not None and isinstance(d, dict)
                      and field in d else d for d in pair])
        if ints and min(ints) > 0:
            d = min(ints)
            new = tuple(({**doc, field: _shift(doc[field], d)} if field is not None
                         and isinstance(doc, dict) and field in doc else _shift(doc, d))
                        for doc in pair)
            if attempt(new):
                progress = True
    return pair, calls


def _plain(doc):
    """A copy with lists for tuples, so every collection can shrink."""
    if isinstance(doc, list | tuple):
        return [_plain(e) for e in doc]
    if isinstance(doc, dict):
        return {k: _plain(e) for k, e in doc.items()}
    return copy.deepcopy(doc)
