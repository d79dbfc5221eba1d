"""The similarity algebra of Chen et al. (2023), "A Unified View of Evaluation Metrics for
Structured Prediction", as declarations.

A declaration is a tree of nodes; every node is a similarity ``phi(x, y) >= 0`` between a
reference object ``x`` and a predicted object ``y``:

=====================  ==========================================================================
node                   similarity
=====================  ==========================================================================
:class:`Eq`            discrete: ``[x == y]`` (Eq. 1), optionally of one field of the objects
:class:`Span`          offsets ``(start, end)``: exact match, overlap, Dice or Jaccard, with an
                       optional threshold (SciREX: Jaccard > 0.5)
:class:`Hierarchy`     a type path (``"Conflict.Attack"``): the depth of the deepest common prefix
                       over the number of levels (the partial credit of §6)
:class:`Func`          any user callable ``f(x, y) -> float >= 0``
:class:`Record`        product similarity of named fields (Eq. 2; ``combine="sum"`` for a weighted
                       sum instead)
:class:`Match`         the matching score of two collections (Eq. 13): the best total similarity
                       of a matching under a constraint (``1:1``, ``1:N``, ``N:1``, ``N:N``,
                       reference:predicted), optionally order-preserving (``order="sequence"``,
                       §5), normalised by precision, recall, F1, Fβ or Jaccard (Eqs. 4-7) --
                       nested, it is the similarity of an outer pair (Eq. 16)
:class:`Latent`        triples with variables matched under one consistent 1:1 variable mapping
                       (§4, Smatch generalised to any triple set)
=====================  ==========================================================================

Normalisers follow the paper: with ``S(X, Y)`` the matching score, precision is
``S(X, Y) / S(Y, Y)``, recall ``S(X, Y) / S(X, X)``, F1 ``2 S(X, Y) / (S(X, X) + S(Y, Y))`` and
Jaccard ``S / (S(X, X) + S(Y, Y) - S)``: the self-scores are matchings too, so unnormalised inner
similarities (CEAFm's ``|k ∩ r|``, MUC's links) give the right denominators. ``"directional"``
takes the direction of the outer score being computed (B³: recall-normalised entities inside the
recall, precision-normalised inside the precision).

Every node also says which pairs can have a positive similarity (:meth:`Node.hash_key`,
:meth:`Node.tokens`), so a matching only looks at candidate pairs instead of all
``|X| x |Y|`` -- the reason a nested metric over a thousand mentions costs milliseconds.
Evaluation (exact, greedy twin, brute force) is in :mod:`exactalign.declared.engine`.
"""

from __future__ import annotations

import importlib
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..core.errors import InputError
from ..io.pairs import MAX_WEIGHT, MIN_WEIGHT

#: Matching constraints, written reference:predicted (as :mod:`exactalign.problems.bipartite`).
CONSTRAINTS = ("1:1", "1:N", "N:1", "N:N")
#: Normalisers of a matching score.
NORMALIZERS = ("none", "precision", "recall", "f1", "fbeta", "jaccard", "directional")
#: Span similarity measures.
SPAN_MEASURES = ("exact", "overlap", "dice", "jaccard")
#: Order constraints of a matching: none, a total order on both sides (the list order), or a
#: partial order given by DAG edges between item indices.
ORDERS = (None, "sequence", "dag")
#: Spans are offsets below 2**53 (where float arithmetic on them is still exact).
SPAN_LIMIT = 2**53
#: How deep a declaration may nest (a spec file past it is an error, not a RecursionError).
MAX_DEPTH = 64


def freeze(value: Any):
    """A hashable copy of a JSON-like value (lists become tuples, dicts sorted item tuples)."""
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, freeze(v)) for k, v in value.items()))
    if isinstance(value, set | frozenset):
        return frozenset(freeze(v) for v in value)
    if isinstance(value, float) and value != value:
        # NaN (JSON has none; Python's decoder reads it) equals nothing, itself included: a NaN
        # label or index was scored as a mismatch without a word (issue 36)
        raise InputError("a value is NaN, which equals nothing (not even NaN); write null or "
                         "a string for a missing value")
    return value


def _in_range(name: str, w: float) -> None:
    """A nonzero weight outside the solvers' dynamic range (:data:`exactalign.io.pairs.
    MIN_WEIGHT`, ``MAX_WEIGHT``, as for instance files) is refused, not scored."""
    if w and not MIN_WEIGHT <= w <= MAX_WEIGHT:
        raise InputError(f"{name} is {w!r}: nonzero weights lie in [{MIN_WEIGHT:g}, "
                         f"{MAX_WEIGHT:g}] (the solvers' tolerances would swamp a smaller one "
                         "and a larger one nears their infinity: a proof of optimality would "
                         "mean nothing); scale the weights, or write 0")


def get_field(obj: Any, name: str | int):
    """``obj[name]`` for mappings and sequences, ``getattr(obj, name)`` otherwise."""
    try:
        if isinstance(obj, Mapping) or (isinstance(name, int) and isinstance(obj, Sequence)):
            return obj[name]
        return getattr(obj, name)
    except (KeyError, IndexError, AttributeError, TypeError):
        kind = type(obj).__name__
        raise InputError(f"a {kind} value has no field {name!r}: {_short(obj)}") from None


def _short(obj: Any, n: int = 80) -> str:
    text = repr(obj)
    return text if len(text) <= n else text[: n - 3] + "..."


# The options of a node are checked when it is built, so that a spec file's mistake is one
# error naming the option (and, through from_dict, its place), never a traceback or a silent
# coercion ("no" taken as true, 2.7 levels taken as 2).
def _number(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{name} must be a number, not {_short(value)}")
    value = float(value)
    if not math.isfinite(value):
        raise InputError(f"{name} must be a finite number, not {value!r}")
    return value


def _integer(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(f"{name} must be an integer, not {_short(value)}")
    return int(value)


def _flag(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"{name} must be true or false, not {_short(value)}")
    return value


def _string(name: str, value) -> str:
    if not isinstance(value, str):
        raise InputError(f"{name} must be a string, not {_short(value)}")
    return value


def _field(value, name: str = "field"):
    """A field name: a string, an integer index, or None (the object itself)."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, str | int)):
        raise InputError(f"{name} must be a string (or an integer index), not "
                         f"{_short(value)}")
    return value


class Node:
    """A similarity declaration. Subclasses define :meth:`sim` and may define :meth:`hash_key`
    (``phi(x, y) > 0`` implies equal keys) or :meth:`tokens` (``phi(x, y) > 0`` implies the two
    token sets intersect); both return ``None`` when they cannot say."""

    kind = "node"
    #: True when phi(x, y) <= 1 for every pair (a proper similarity).
    bounded = True

    def sim(self, x, y, ev) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def hash_key(self, x):
        return None

    def has_hash_key(self) -> bool:
        return False

    def tokens(self, x):
        return None

    def has_tokens(self) -> bool:
        return False

    def children(self) -> tuple[Node, ...]:
        return ()

    def is_discrete(self) -> bool:
        """True when ``phi(x, y) == [hash_key(x) == hash_key(y)]`` (0 or 1): a matching of such
        elements has a closed form (the multiset intersection of their keys)."""
        return False

    def to_dict(self) -> dict:  # pragma: no cover - abstract
        raise NotImplementedError

    def walk(self):
        yield self
        for c in self.children():
            yield from c.walk()

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.to_dict().items() if k != "type")
        return f"{type(self).__name__}({args})"

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(repr(self))


class Eq(Node):
    """Discrete similarity ``[x == y]`` (of ``x[field]`` and ``y[field]`` when ``field`` is
    given). Lists compare as tuples, so JSON spans ``[3, 5]`` are equal values."""

    kind = "eq"

    def __init__(self, field: str | int | None = None):
        self.field = _field(field)

    def _value(self, x):
        return freeze(x if self.field is None else get_field(x, self.field))

    def sim(self, x, y, ev) -> float:
        if ev is not None:
            return 1.0 if ev.key(self, x) == ev.key(self, y) else 0.0
        return 1.0 if self._value(x) == self._value(y) else 0.0

    def hash_key(self, x):
        return self._value(x)

    def has_hash_key(self) -> bool:
        return True

    def is_discrete(self) -> bool:
        return True

    def to_dict(self) -> dict:
        d = {"type": "eq"}
        if self.field is not None:
            d["field"] = self.field
        return d


def _span(value, inclusive: bool) -> tuple[int, int]:
    """``(start, end)`` end-exclusive: two integers (not booleans, not floats, not strings),
    ``0 <= start <= end < 2**53`` (``[2, 2]`` is empty, or one offset long when
    ``inclusive``)."""
    pair = (value.get("start"), value.get("end")) if isinstance(value, Mapping) else value
    if not (isinstance(pair, list | tuple) and len(pair) == 2 and type(pair[0]) is int
            and type(pair[1]) is int):  # the fast path: JSON integers
        if (not isinstance(pair, list | tuple) or len(pair) != 2
                or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool)
                           for v in pair)):  # numpy integers are integers, bools are not
            raise InputError(f"a span must be [start, end], two integers, not "
                             f"{_short(value)}")
    start, end = int(pair[0]), int(pair[1])
    if start < 0:
        raise InputError(f"span {_short(value)} starts before 0")
    if end >= SPAN_LIMIT:
        raise InputError(f"span {_short(value)} ends at or past 2**53")
    if end < start:
        raise InputError(f"span {_short(value)} ends before it starts")
    return (start, end + 1) if inclusive else (start, end)


class Span(Node):
    """Similarity of two offset spans ``[start, end)`` (``inclusive=True``: ``[start, end]``).

    ``measure``: ``exact`` (both boundaries equal), ``overlap`` (any common offset), ``dice``
    (``2|x ∩ y| / (|x| + |y|)``) or ``jaccard`` (``|x ∩ y| / |x ∪ y|``). With ``threshold``
    ``t``, a value not above ``t`` becomes 0 (SciREX: Jaccard > 0.5); ``binary=True`` then
    turns every kept value into 1."""

    kind = "span"

    def __init__(self, measure: str = "exact", threshold: float | None = None,
                 binary: bool = False, inclusive: bool = False, field: str | None = None):
        if measure not in SPAN_MEASURES:
            raise InputError(f"unknown span measure {measure!r}; choose one of "
                             + ", ".join(SPAN_MEASURES))
        threshold = None if threshold is None else _number("threshold", threshold)
        if threshold is not None and not (0.0 <= threshold < 1.0):
            raise InputError(f"a span threshold must be in [0, 1), not {threshold!r}")
        self.measure = measure
        self.threshold = threshold
        self.binary = _flag("binary", binary)
        self.inclusive = _flag("inclusive", inclusive)
        self.field = _field(field)

    def _span(self, x):
        return _span(x if self.field is None else get_field(x, self.field), self.inclusive)

    def sim(self, x, y, ev) -> float:
        a, b = self._span(x), self._span(y)
        if self.measure == "exact":
            return 1.0 if a == b else 0.0
        inter = max(0, min(a[1], b[1]) - max(a[0], b[0]))
        if self.measure == "overlap":
            value = 1.0 if inter > 0 or a == b else 0.0
        elif self.measure == "dice":
            total = (a[1] - a[0]) + (b[1] - b[0])
            value = 2.0 * inter / total if total else float(a == b)
        else:
            union = (a[1] - a[0]) + (b[1] - b[0]) - inter
            value = inter / union if union else float(a == b)
        if self.threshold is not None and value <= self.threshold:
            return 0.0
        return 1.0 if self.binary and value > 0 else value

    def hash_key(self, x):
        return self._span(x) if self.measure == "exact" else None

    def has_hash_key(self) -> bool:
        return self.measure == "exact"

    def is_discrete(self) -> bool:
        return self.measure == "exact"

    def tokens(self, x):
        start, end = self._span(x)
        return range(start, end) if end > start else (("empty", start),)

    def has_tokens(self) -> bool:
        return self.measure != "exact"

    def to_dict(self) -> dict:
        d: dict = {"type": "span", "measure": self.measure}
        if self.threshold is not None:
            d["threshold"] = self.threshold
        if self.binary:
            d["binary"] = True
        if self.inclusive:
            d["inclusive"] = True
        if self.field is not None:
            d["field"] = self.field
        return d


class Hierarchy(Node):
    """Partial credit for hierarchical types (§6): a type is a path of levels (a list, or a string
    split at ``sep``); ``phi = (length of the longest common prefix) / L``, with ``L`` = ``levels``
    when given, else the longer of the two paths (so ``phi(x, x) = 1``). Zero unless the top
    levels agree."""

    kind = "hierarchy"

    def __init__(self, sep: str = ".", levels: int | None = None, field: str | None = None):
        if levels is not None and _integer("levels", levels) < 1:
            raise InputError(f"levels must be >= 1, not {levels!r}")
        if not _string("sep", sep):
            raise InputError("sep must be a non-empty string")
        self.sep = sep
        self.levels = None if levels is None else int(levels)
        self.field = _field(field)

    def _path(self, x) -> tuple:
        v = x if self.field is None else get_field(x, self.field)
        if isinstance(v, str):
            return tuple(v.split(self.sep)) if v else ()
        return tuple(freeze(v))

    def sim(self, x, y, ev) -> float:
        a, b = self._path(x), self._path(y)
        common = 0
        for u, v in zip(a, b, strict=False):
            if u != v:
                break
            common += 1
        depth = self.levels or max(len(a), len(b))
        return common / depth if depth else 0.0

    def hash_key(self, x):
        p = self._path(x)
        return p[0] if p else ()

    def has_hash_key(self) -> bool:
        return True

    def to_dict(self) -> dict:
        d: dict = {"type": "hierarchy", "sep": self.sep}
        if self.levels is not None:
            d["levels"] = self.levels
        if self.field is not None:
            d["field"] = self.field
        return d


def resolve_callable(ref: str) -> Callable:
    """``"package.module:function"`` -> the function (the form spec files use)."""
    if not isinstance(ref, str) or ":" not in ref:
        raise InputError(f"a function is named 'module:function', not {ref!r}")
    module, _, name = ref.partition(":")
    try:
        obj = importlib.import_module(module)
    except ImportError as e:
        raise InputError(f"cannot import {module!r} for {ref!r}: {e}") from None
    for part in name.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise InputError(f"{module!r} has no {name!r} (from {ref!r})") from None
    if not callable(obj):
        raise InputError(f"{ref!r} is not callable")
    return obj


def _importable_name(fn) -> str | None:
    """``module:qualname`` of a module-level function (what a spec file can name), else None."""
    module, qual = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
    if not module or not qual or "<" in qual:
        return None
    return f"{module}:{qual}"


class Func(Node):
    """A user similarity ``fn(x, y) -> float >= 0``. ``fn`` may be a callable or a
    ``"module:function"`` name. ``shares_element=True`` promises that ``fn(x, y) == 0`` whenever
    the collections ``x`` and ``y`` have no element in common (MUC's link similarity), so only
    such pairs are evaluated. ``bounded=False`` declares values above 1 (unnormalised).
    ``like``: a node whose values this function compares (MUC's entities are those of
    ``Match(Eq())``), used only to generate instances (``exactalign validate``); without it a
    user function's values cannot be generated."""

    kind = "func"

    def __init__(self, fn: Callable | str, name: str | None = None,
                 shares_element: bool = False, bounded: bool = True,
                 like: Node | None = None):
        if like is not None and not isinstance(like, Node):
            raise InputError(f"Func's 'like' must be a similarity node, not {_short(like)}")
        self.like = like
        self.ref = fn if isinstance(fn, str) else _importable_name(fn)
        self.fn = resolve_callable(fn) if isinstance(fn, str) else fn
        if not callable(self.fn):
            raise InputError(f"Func needs a callable, not {fn!r}")
        if name is not None:
            _string("name", name)
        self.name = name or self.ref or getattr(self.fn, "__qualname__", repr(self.fn))
        self.shares_element = _flag("shares_element", shares_element)
        self.bounded = _flag("bounded", bounded)

    def sim(self, x, y, ev) -> float:
        try:
            v = float(self.fn(x, y))
        except InputError:
            raise
        except Exception as e:  # a user function failing is an input problem, said once
            raise InputError(f"similarity {self.name} failed on ({_short(x, 40)}, "
                             f"{_short(y, 40)}): {type(e).__name__}: {e}") from None
        if not math.isfinite(v) or v < 0:
            raise InputError(f"similarity {self.name} returned {v!r} for ({_short(x, 40)}, "
                             f"{_short(y, 40)}); similarities must be finite and >= 0")
        if v and not MIN_WEIGHT <= v <= MAX_WEIGHT:
            raise InputError(f"similarity {self.name} returned {v!r} for ({_short(x, 40)}, "
                             f"{_short(y, 40)}): nonzero similarities lie in [{MIN_WEIGHT:g}, "
                             f"{MAX_WEIGHT:g}] (the solvers' tolerances would swamp it and a "
                             "proof of optimality mean nothing); scale it, or return 0")
        return v

    def tokens(self, x):
        return {freeze(e) for e in x} if self.shares_element else None

    def has_tokens(self) -> bool:
        return self.shares_element

    def to_dict(self) -> dict:
        d: dict = {"type": "func", "fn": self.ref or self.name}
        if self.shares_element:
            d["shares_element"] = True
        if not self.bounded:
            d["bounded"] = False
        if self.like is not None:
            d["like"] = self.like.to_dict()
        return d


class Record(Node):
    """Product similarity of named fields (Chen et al. Eq. 2): ``phi(x, y) = prod_f
    phi_f(x.f, y.f)``; a field given as ``None`` (or ``...``) compares by equality.
    ``combine="sum"`` gives the weighted sum ``sum_f w_f phi_f`` instead (``weights`` default 1).
    Fields are evaluated in the order given and a product stops at the first zero, so cheap
    fields first make nested ones rare."""

    kind = "record"

    def __init__(self, fields: Mapping[str | int, Node | None], combine: str = "product",
                 weights: Mapping[str | int, float] | None = None):
        if not fields:
            raise InputError("a Record needs at least one field")
        if combine not in ("product", "sum"):
            raise InputError(f"Record combine must be 'product' or 'sum', not {combine!r}")
        self.fields = {k: (Eq() if (v is None or v is Ellipsis) else v)
                       for k, v in fields.items()}
        for k, v in self.fields.items():
            if not isinstance(v, Node):
                raise InputError(f"field {k!r} of a Record must be a similarity node, not {v!r}")
        self.combine = combine
        if weights is not None and not isinstance(weights, Mapping):
            raise InputError(f"weights must be a table of field -> number, not "
                             f"{_short(weights)}")
        weights = {k: _number(f"weights.{k}", w) for k, w in (weights or {}).items()}
        unknown = set(weights) - set(self.fields)
        if unknown:
            raise InputError(f"weights name fields the Record does not have: {sorted(unknown)}")
        if combine == "product" and weights:
            raise InputError("weights apply to combine='sum' only")
        self.weights = {k: weights.get(k, 1.0) for k in self.fields}
        if any(w < 0 for w in self.weights.values()):
            raise InputError("field weights must be finite and >= 0")
        for k, w in self.weights.items():
            _in_range(f"weights.{k}", w)
        self.bounded = (all(v.bounded for v in self.fields.values()) if combine == "product"
                        else all(v.bounded for v in self.fields.values())
                        and sum(self.weights.values()) <= 1.0)

    def sim(self, x, y, ev) -> float:
        if self.combine == "product":
            value = 1.0
            for name, node in self.fields.items():
                value *= node.sim(get_field(x, name), get_field(y, name), ev)
                if value == 0.0:
                    return 0.0
            return value
        return sum(w * node.sim(get_field(x, name), get_field(y, name), ev)
                   for (name, node), w in zip(self.fields.items(), self.weights.values(),
                                              strict=True) if w)

    def _keyed(self):
        return [(n, f) for n, f in self.fields.items() if f.has_hash_key()]

    def is_discrete(self) -> bool:
        """A product of discrete fields is 1 exactly when every field's key agrees, which is
        when the tuple of keys (:meth:`hash_key`) agrees."""
        return self.combine == "product" and all(f.is_discrete() for f in self.fields.values())

    def has_hash_key(self) -> bool:
        return self.combine == "product" and bool(self._keyed())

    def hash_key(self, x):
        if not self.has_hash_key():
            return None
        return tuple(f.hash_key(get_field(x, n)) for n, f in self._keyed())

    def has_tokens(self) -> bool:
        return self.combine == "product" and any(f.has_tokens() for f in self.fields.values())

    def tokens(self, x):
        if self.combine != "product":
            return None
        for n, f in self.fields.items():
            if f.has_tokens():
                return f.tokens(get_field(x, n))
        return None

    def children(self) -> tuple[Node, ...]:
        return tuple(self.fields.values())

    def to_dict(self) -> dict:
        d: dict = {"type": "record",
                   "fields": {str(k): v.to_dict() for k, v in self.fields.items()}}
        if self.combine != "product":
            d["combine"] = self.combine
            d["weights"] = {str(k): w for k, w in self.weights.items()}
        return d


class _Items(list):
    """The items of a DAG-ordered collection, carrying its edges."""

    def __init__(self, items, edges):
        super().__init__(items)
        self.edges = edges


class Match(Node):
    """The matching score of two collections (Chen et al. Eq. 13), normalised (Eqs. 4-7).

    ``element``: the similarity of two elements. ``constraint``: ``1:1`` (partial bijection),
    ``1:N`` (a reference element may match several predicted ones, each predicted at most one),
    ``N:1`` (the converse) or ``N:N``. ``order="sequence"``: the matching must also preserve
    the order of the two lists (weighted LCS, §5); ``order="dag"``: the partial order of a DAG
    (``x[field]`` the items, ``x[edges]`` pairs of item indices; the ILP of §5 / App. A.2). ``normalizer``: ``none`` (the raw score, an
    unnormalised similarity), ``precision``, ``recall``, ``f1``, ``fbeta`` (with ``beta``),
    ``jaccard``, or ``directional`` (recall inside a recall, precision inside a precision; B³).
    ``field``: match ``x[field]`` with ``y[field]`` (a collection inside a record).
    ``threshold`` / ``minimum`` / ``binary``: as a nested similarity, the normalised score is
    kept only above ``threshold`` / at least ``minimum``, and counts 1 when ``binary``
    (CEAF-REE's ``p ⊆ g``: precision-normalised, minimum 1, binary; SciREX's entity match:
    recall-normalised, threshold 0.5, binary)."""

    kind = "match"

    def __init__(self, element: Node | None = None, constraint: str = "1:1",
                 normalizer: str = "none", beta: float = 1.0, order: str | None = None,
                 field: str | None = None, threshold: float | None = None,
                 minimum: float | None = None, binary: bool = False, edges: str = "edges"):
        element = Eq() if (element is None or element is Ellipsis) else element
        if not isinstance(element, Node):
            raise InputError(f"a Match element must be a similarity node, not {element!r}")
        if constraint not in CONSTRAINTS:
            raise InputError(f"unknown matching constraint {constraint!r}; choose one of "
                             + ", ".join(CONSTRAINTS))
        if normalizer not in NORMALIZERS:
            raise InputError(f"unknown normalizer {normalizer!r}; choose one of "
                             + ", ".join(NORMALIZERS))
        if order not in ORDERS:
            raise InputError(f"unknown order {order!r}; choose 'sequence' or 'dag', or leave "
                             "it out")
        if order == "dag" and field is None:
            raise InputError("an order='dag' match reads {field: items, edges: [[i, j], ...]}: "
                             "give its field")
        if order == "sequence" and constraint == "N:N":
            raise InputError("an order-preserving matching cannot be N:N")
        if not _number("beta", beta) > 0:
            raise InputError(f"beta must be > 0, not {beta!r}")
        self.element = element
        self.constraint = constraint
        self.normalizer = normalizer
        self.beta = float(beta)
        self.order = order
        self.field = _field(field)
        self.edges = _field(edges, "edges")
        self.threshold = None if threshold is None else _number("threshold", threshold)
        self.minimum = None if minimum is None else _number("minimum", minimum)
        self.binary = _flag("binary", binary)
        self.bounded = normalizer != "none" or self.binary

    def cut(self, value: float) -> float:
        """``threshold`` (keep values above it), ``minimum`` (keep values at least it) and
        ``binary`` (a kept value counts 1) applied to a normalised score."""
        if self.threshold is not None and value <= self.threshold:
            return 0.0
        if self.minimum is not None and value < self.minimum - 1e-12:
            return 0.0
        return 1.0 if self.binary and value > 0 else value

    def items(self, x) -> list:
        v = x if self.field is None else get_field(x, self.field)
        if isinstance(v, str | bytes) or not isinstance(v, Sequence | set | frozenset):
            raise InputError(f"a Match compares collections (lists), not {_short(v)}")
        if self.order == "dag":
            edges = get_field(x, self.edges)
            try:
                edges = [(int(a), int(b)) for a, b in edges]
            except (TypeError, ValueError):
                raise InputError(f"DAG edges are [from, to] item indices, not "
                                 f"{_short(edges)}") from None
            return _Items(v, edges)
        return list(v)

    def sim(self, x, y, ev) -> float:
        return self.cut(ev.match(self, x, y).normalized)

    def tokens(self, x):
        """A match is zero unless some element pair is a candidate: the elements' keys."""
        el = self.element
        if el.has_hash_key():
            return {("k", el.hash_key(e)) for e in self.items(x)}
        if el.has_tokens():
            return {t for e in self.items(x) for t in el.tokens(e)}
        return None

    def has_tokens(self) -> bool:
        return self.element.has_hash_key() or self.element.has_tokens()

    def children(self) -> tuple[Node, ...]:
        return (self.element,)

    def to_dict(self) -> dict:
        d: dict = {"type": "match", "constraint": self.constraint,
                   "normalizer": self.normalizer, "element": self.element.to_dict()}
        if self.normalizer == "fbeta":
            d["beta"] = self.beta
        if self.order is not None:
            d["order"] = self.order
        if self.order == "dag":
            d["edges"] = self.edges
        if self.field is not None:
            d["field"] = self.field
        for key in ("threshold", "minimum"):
            if getattr(self, key) is not None:
                d[key] = getattr(self, key)
        if self.binary:
            d["binary"] = True
        return d


class Latent(Node):
    """Triples with variables (§4): each side is a record with ``triples`` (lists
    ``[relation, source, target]``) and ``variables`` (the names that are variables; every other
    source/target is a constant). The score is the largest number of triples matched under one
    1:1 mapping of reference variables to predicted variables -- Smatch's matching for any triple
    set. Solved by :mod:`exactalign.problems.latent` (certified ILP) or its hill-climber."""

    kind = "latent"
    bounded = False

    def __init__(self, triples: str = "triples", variables: str = "variables",
                 normalizer: str = "none"):
        if normalizer not in NORMALIZERS or normalizer == "directional":
            raise InputError(f"unknown normalizer {normalizer!r} for Latent")
        self.triples = _string("triples", triples)
        self.variables = _string("variables", variables)
        self.normalizer = normalizer
        self.bounded = normalizer != "none"

    def sim(self, x, y, ev) -> float:
        return ev.latent(self, x, y).normalized

    def to_dict(self) -> dict:
        d = {"type": "latent", "triples": self.triples, "variables": self.variables}
        if self.normalizer != "none":
            d["normalizer"] = self.normalizer
        return d


NODE_TYPES: dict[str, type[Node]] = {
    "eq": Eq, "span": Span, "hierarchy": Hierarchy, "func": Func, "record": Record,
    "match": Match, "latent": Latent,
}


def from_dict(d: Any, where: str = "spec", depth: int = 0) -> Node:
    """A node from its dict form (``{"type": "match", "element": {...}, ...}``), as spec files
    write it. Errors name the place in the spec (``spec.element.fields.trigger``); a
    declaration nested deeper than :data:`MAX_DEPTH` nodes is an error."""
    if depth >= MAX_DEPTH:
        too_deep = InputError(f"{where.split('.')[0]}.spec: nested deeper than {MAX_DEPTH} "
                              "similarities")
        too_deep.placed = True  # said where it is: the enclosing levels add nothing
        raise too_deep
    if d is None or (isinstance(d, str) and d == "eq"):
        return Eq()
    if isinstance(d, str) and d in NODE_TYPES:
        d = {"type": d}
    if not isinstance(d, Mapping):
        raise InputError(f"{where}: a similarity is a table with a 'type', not {_short(d)}")
    d = dict(d)
    kind = d.pop("type", None)
    if not isinstance(kind, str) or kind not in NODE_TYPES:
        raise InputError(f"{where}: unknown similarity type {_short(kind)}; choose one of "
                         + ", ".join(NODE_TYPES))
    try:
        if kind == "record":
            fields = d.pop("fields", None)
            if not isinstance(fields, Mapping):
                raise InputError("a record needs a 'fields' table")
            d["fields"] = {k: from_dict(v, f"{where}.fields.{k}", depth + 1)
                           for k, v in fields.items()}
        elif kind == "match":
            d["element"] = from_dict(d.get("element"), f"{where}.element", depth + 1)
        elif kind == "func" and d.get("like") is not None:
            d["like"] = from_dict(d["like"], f"{where}.like", depth + 1)
        return NODE_TYPES[kind](**d)
    except TypeError as e:
        raise InputError(f"{where}: bad options for a {kind}: {e}") from None
    except InputError as e:
        if e.message.startswith(where) or getattr(e, "placed", False):
            raise
        raise InputError(f"{where}: {e.message}") from None
