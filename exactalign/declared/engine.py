"""Evaluating a declaration: exactly, with its greedy twin, or by brute force.

One :class:`Evaluator` walks the declaration over a (reference, predicted) pair of objects. At
every :class:`~exactalign.declared.nodes.Match` it

1. finds the candidate pairs -- those the element declaration says may score above zero (equal
   hash keys, or intersecting token sets: an inverted index), never all ``|X| x |Y|`` pairs
   unless the element cannot say (a plain user function);
2. computes their similarities (recursively: a nested match is solved for each candidate pair);
3. solves the matching with the problem code the project already certifies:
   :mod:`~exactalign.problems.bipartite` (assignment with a dual certificate for 1:1, closed
   forms for the one-sided and N:N constraints), :mod:`~exactalign.problems.monotone` (weighted
   LCS) for ``order="sequence"``, :mod:`~exactalign.problems.latent` for :class:`Latent`;
4. normalises by the self-scores ``S(X, X)`` and ``S(Y, Y)``, themselves matchings, always
   computed exactly (a denominator is a property of the data, not of the method).

Methods: ``exact`` (every level proven optimal), ``ilp`` (every matching as an ILP through
``backend`` -- the cross-check of the special algorithms, and what ``--backend`` reaches),
``greedy`` (every level matched by the greedy
twin: pairs by decreasing similarity, ties by predicted then reference index -- the TAC KBP
scorer's order -- or smatch's hill-climber for latent variables), ``brute`` (every level
enumerated over *all* pairs, with no candidate index and no special algorithm: the oracle the
tests hold the other two against; tiny inputs only).

A matching of 0/1 elements compared by key (:meth:`~exactalign.declared.nodes.Node.is_discrete`:
``Eq``, an exact ``Span``, a product ``Record`` of such fields) under 1:1 or N:N has a closed
form -- the multiset intersection of the keys -- and is computed so, except by ``ilp`` and
``brute``.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from ..core.result import Result, Status, worst_status
from .nodes import Latent, Match, freeze, get_field

METHODS = ("exact", "ilp", "greedy", "brute")


@dataclass
class Outcome:
    """One matching solved: the raw score ``value`` (``S(X, Y)``), the self-scores, the
    normalised value the node stands for, and the verified :class:`Result` (alignment: pairs
    ``(reference, predicted)``; bound: of ``value``)."""

    value: float
    normalized: float
    self_ref: float | None
    self_pred: float | None
    result: Result


def normalize(kind: str, value: float, sx: float | None, sy: float | None, beta: float = 1.0,
              direction: str | None = None) -> float:
    """Chen et al.'s normalisers (Eqs. 4-7) from the score and the two self-scores."""
    if kind == "directional":
        if direction not in ("precision", "recall"):
            raise ValueError("a 'directional' normalizer needs the direction of the outer score")
        kind = direction
    if kind == "none":
        return value
    if kind == "precision":
        return value / sy if sy else 0.0
    if kind == "recall":
        return value / sx if sx else 0.0
    if kind == "f1":
        return 2.0 * value / (sx + sy) if sx + sy else 0.0
    if kind == "jaccard":
        den = sx + sy - value
        return value / den if den > 0 else 0.0
    if kind == "fbeta":
        p = value / sy if sy else 0.0
        r = value / sx if sx else 0.0
        b2 = beta * beta
        return (1 + b2) * p * r / (b2 * p + r) if (b2 * p + r) else 0.0
    raise ValueError(f"unknown normalizer {kind!r}")


@dataclass
class Evaluator:
    """Evaluates declarations under one ``method`` (and, for ``directional`` normalisers, one
    ``direction``). Keeps the worst status met and a memo of self-scores for one evaluation."""

    method: str = "exact"
    direction: str | None = None
    seed: int = 0
    backend: str = "highs"
    statuses: list = field(default_factory=list)
    _self: dict = field(default_factory=dict)
    solves: int = 0
    _pairs: dict = field(default_factory=dict)
    _keys: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"unknown method {self.method!r}; choose one of "
                             + ", ".join(METHODS))

    def snapshot(self) -> tuple:
        """What this evaluation has computed so far that another evaluation of the same
        method and direction may reuse: the self-score and key memos (objects known by
        identity, each entry holding its object), the statuses met and the solve count
        (:meth:`resume`)."""
        return dict(self._self), dict(self._keys), tuple(self.statuses), self.solves

    def resume(self, snapshot: tuple, *, memos_only: bool = False) -> None:
        """Continue from a :meth:`snapshot`: its memos, statuses and solves count as this
        evaluation's own (``memos_only``: its memos alone -- self-scores are always exact and
        keys do not depend on the method, so any evaluation may take them)."""
        memo, keys, statuses, solves = snapshot
        self._self.update(memo)
        self._keys.update(keys)
        if not memos_only:
            self.statuses.extend(statuses)
            self.solves += solves

    # -- matching ----------------------------------------------------------------------------
    def match(self, node: Match, x, y, *, want_alignment: bool = False) -> Outcome:
        if not want_alignment:  # a nested matching met again (B³: once per shared mention)
            key = (id(node), id(x), id(y))
            hit = self._pairs.get(key)
            if hit is not None and hit[0] is x and hit[1] is y:
                return hit[2]
        X, Y = node.items(x), node.items(y)
        value, result = self._raw(node, X, Y, want_alignment)
        sx = sy = None
        if node.normalizer != "none":
            sx, sy = self.self_score(node, x, X), self.self_score(node, y, Y)
        norm = normalize(node.normalizer, value, sx, sy, node.beta, self.direction)
        out = Outcome(value, norm, sx, sy, result)
        if not want_alignment:
            self._pairs[(id(node), id(x), id(y))] = (x, y, out)
        return out

    def key(self, node, x):
        """``node.hash_key(x)``, memoised per object for this evaluation (freezing a span or a
        mention list again for every candidate pair cost half the time of CEAF)."""
        k = (id(node), id(x))
        hit = self._keys.get(k)
        if hit is not None and hit[0] is x:
            return hit[1]
        value = node.hash_key(x)
        self._keys[k] = (x, value)
        return value

    def self_score(self, node: Match, container, items=None) -> float:
        """``S(X, X)``, exact (brute under ``brute``), memoised per node and object."""
        key = (id(node), id(container), self.direction)
        hit = self._self.get(key)
        if hit is not None and hit[0] is container:
            return hit[1]
        X = node.items(container) if items is None else items
        inner = Evaluator("brute" if self.method == "brute" else "exact", self.direction,
                          self.seed, self.backend, [], self._self, _keys=self._keys)
        value, res = inner._raw(node, X, X, False)
        self.statuses.extend(inner.statuses)
        self.solves += inner.solves
        self._self[key] = (container, value)
        return value

    def _raw(self, node: Match, X: list, Y: list, want_alignment: bool):
        el = node.element
        t0 = time.perf_counter()
        if (self.method in ("exact", "greedy") and el.is_discrete() and node.order is None
                and node.constraint in ("1:1", "N:N")):
            return self._closed_form(node, el, X, Y, want_alignment, t0)
        rows, cols = self._candidates(el, X, Y)
        w = np.fromiter((el.sim(X[i], Y[j], self) for i, j in zip(rows, cols, strict=True)),
                        dtype=np.float64, count=len(rows))
        if X is Y and self.method != "brute" and node.order is None:
            res = self._self_by_dominance(node, X, rows, cols, w, t0)
            if res is not None:
                self.statuses.append(res.status)
                return float(res.objective), res
        res = self._solve(node, X, Y, rows, cols, w)
        self.solves += 1
        self.statuses.append(res.status)
        return float(res.objective), res

    def _self_by_dominance(self, node: Match, X, rows, cols, w, t0) -> Result | None:
        """``S(X, X)`` without solving when each item is at least as similar to itself as to
        any other (Chen et al.'s Definition 1, checked on the weights): then no matching beats
        the identity, since every matched pair weighs at most its row's diagonal and diagonals
        are >= 0. N:N has no such shortcut (every positive pair counts); None when it fails."""
        if node.constraint == "N:N":
            return None
        n = len(X)
        diag = np.zeros(n)
        on = rows == cols
        diag[rows[on]] = w[on]
        if np.any(w > diag[rows] + 1e-12) or np.any(w > diag[cols] + 1e-12):
            return None
        value = float(diag.sum())
        al = np.stack([np.arange(n), np.arange(n)], axis=1)[diag > 0]
        return Result(Status.OPTIMAL, value, value, al, self.method, time.perf_counter() - t0,
                      details={"algorithm": "identity (diagonal dominance)"})

    def _closed_form(self, node: Match, el, X, Y, want_alignment: bool, t0: float):
        kx = [self.key(el, v) for v in X]
        ky = [self.key(el, v) for v in Y]
        cx, cy = Counter(kx), Counter(ky)
        if node.constraint == "1:1":
            value = float(sum(min(n, cy[k]) for k, n in cx.items() if k in cy))
        else:
            value = float(sum(n * cy[k] for k, n in cx.items() if k in cy))
        al = None
        if want_alignment:
            where = defaultdict(list)
            for j, k in enumerate(ky):
                where[k].append(j)
            pairs, used = [], Counter()
            for i, k in enumerate(kx):
                js = where.get(k, ())
                if node.constraint == "1:1":
                    if used[k] < len(js):
                        pairs.append((i, js[used[k]]))
                        used[k] += 1
                else:
                    pairs += [(i, j) for j in js]
            al = np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)
        status = Status.OPTIMAL if self.method != "greedy" else Status.FEASIBLE
        bound = value if self.method != "greedy" else None
        res = Result(status, value, bound, al, self.method, time.perf_counter() - t0,
                     details={"algorithm": "closed form (multiset intersection)"})
        self.statuses.append(status)
        return value, res

    def _candidates(self, el, X: list, Y: list) -> tuple[np.ndarray, np.ndarray]:
        nx, ny = len(X), len(Y)
        if self.method == "brute" or not nx or not ny:
            r, c = np.divmod(np.arange(nx * ny, dtype=np.int64), max(ny, 1))
            return r, c
        if el.has_hash_key():
            index = defaultdict(list)
            for i, v in enumerate(X):
                index[self.key(el, v)].append(i)
            pairs = [(i, j) for j, v in enumerate(Y) for i in index.get(self.key(el, v), ())]
        elif el.has_tokens():
            index = defaultdict(set)
            for i, v in enumerate(X):
                for t in el.tokens(v):
                    index[t].add(i)
            pairs = []
            for j, v in enumerate(Y):
                hit = set()
                for t in el.tokens(v):
                    hit |= index.get(t, set())
                pairs += [(i, j) for i in hit]
        else:
            r, c = np.divmod(np.arange(nx * ny, dtype=np.int64), ny)
            return r, c
        if not pairs:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        p = np.array(sorted(pairs), dtype=np.int64)
        return p[:, 0], p[:, 1]

    def _solve(self, node: Match, X, Y, rows, cols, w) -> Result:
        from ..problems import bipartite

        nx, ny = len(X), len(Y)
        inst = bipartite.BipartiteInstance(nx, ny, rows, cols, w, node.constraint)
        if node.order is not None:
            from ..problems import monotone

            if node.order == "sequence":
                ref, pred = monotone.Order.sequence(nx), monotone.Order.sequence(ny)
            else:
                ref = monotone.Order.from_edges(nx, X.edges, what="reference DAG")
                pred = monotone.Order.from_edges(ny, Y.edges, what="predicted DAG")
            minst = monotone.MonotoneInstance(ref, pred, inst)
            return monotone.solve(minst, self.method, backend=self.backend, seed=self.seed)
        if self.method == "ilp":
            return bipartite.solve(inst, "ilp", backend=self.backend, seed=self.seed)
        return bipartite.solve(inst, self.method)

    # -- latent variables ----------------------------------------------------------------------
    def latent(self, node: Latent, x, y) -> Outcome:
        value, res = self._latent_raw(node, x, y)
        sx = sy = None
        if node.normalizer != "none":
            sx = self._latent_self(node, x)
            sy = self._latent_self(node, y)
        return Outcome(value, normalize(node.normalizer, value, sx, sy), sx, sy, res)

    def _latent_self(self, node: Latent, x) -> float:
        key = (id(node), id(x), None)
        hit = self._self.get(key)
        if hit is not None and hit[0] is x:
            return hit[1]
        value = float(len(set(_triples(node, x)[0])))  # the identity mapping matches all
        self._self[key] = (x, value)
        return value

    def _latent_raw(self, node: Latent, x, y):
        from ..problems import latent

        inst, constant = latent_instance(node, x, y)
        method = {"exact": "bnb", "ilp": "ilp", "greedy": "hillclimb",
                  "brute": "brute"}[self.method]
        res = latent.solve(inst, method, seed=self.seed, backend=self.backend)
        if self.method == "exact" and res.status is not Status.OPTIMAL:
            # the pure-Python branch and bound ran out of its budget: the certified LP/MIP
            res = latent.solve(inst, "exact", seed=self.seed)
        self.solves += 1
        self.statuses.append(res.status)
        obj = float(res.objective) + constant
        bound = None if res.bound is None else float(res.bound) + constant
        return obj, res.replace(objective=obj, bound=bound)

    def worst(self) -> Status:
        return worst_status(self.statuses) if self.statuses else Status.OPTIMAL


def _triples(node: Latent, x) -> tuple[list, set]:
    triples = get_field(x, node.triples)
    variables = get_field(x, node.variables)
    variables = {freeze(v) for v in variables}
    out = []
    for t in triples:
        t = freeze(t)
        if not isinstance(t, tuple) or len(t) != 3:
            from ..core.errors import InputError

            raise InputError(f"a triple is [relation, source, target], not {t!r}")
        out.append(t)
    return out, variables


def latent_instance(node: Latent, ref, pred):
    """The :class:`~exactalign.problems.latent.instance.LatentInstance` of two triple sets (left:
    predicted, right: reference, as :mod:`exactalign.metrics.smatch` builds it), plus the
    number of variable-free triples both sides state (matched under every mapping).
    Duplicate triples count once."""
    from ..problems.latent.instance import LatentInstance

    def side(x):
        triples, variables = _triples(node, x)
        names = sorted(variables, key=repr)
        index = {v: k for k, v in enumerate(names)}
        unary, binary, const = [], [], set()
        for rel, a, b in dict.fromkeys(triples):
            if a in index and b in index:
                binary.append((rel, index[a], index[b]))
            elif a in index:
                unary.append(((rel, "->", b), index[a]))
            elif b in index:
                unary.append(((rel, "<-", a), index[b]))
            else:
                const.add((rel, a, b))
        return len(names), unary, binary, const

    nl, lu, lb, lc = side(pred)
    nr, ru, rb, rc = side(ref)
    return LatentInstance(nl, nr, lu, lb, ru, rb), float(len(lc & rc))
