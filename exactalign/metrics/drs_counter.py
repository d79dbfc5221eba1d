"""Counter's hill-climber (RikVN/DRS_parsing @190838f, ``evaluation/hill_climbing.py``:
``get_best_match`` and what it calls), reproduced call for call on one
:class:`random.Random` (never the global one), pure Python.

What it does, per DRS pair (:func:`counter_match`):

1. the candidate pool (``compute_pool``, :func:`~exactalign.metrics.drs.counter_pool`);
2. with ``-s conc`` (the default, ``smart=True``) the smart initial mapping
   (``smart_concept_mapping``): for every produced concept clause, in order, against every gold
   one, in order, with equal concept and sense whose two variable pairs are both candidates, each
   produced variable still unmapped takes its gold partner if that one is free; then the blanks
   are filled at random (``add_random_mapping``: the produced variables visited in a shuffled
   order, each drawing candidates with ``randint`` until a free one comes up);
3. ``restarts - 1`` random initial mappings (``get_random_set``: all drawn up front, before any
   climbing; a mapping drawn before is discarded, and after 51 discards in a row the set is
   what it is);
4. each initial mapping in turn is climbed (``get_best_gain``): the first strictly best move
   (produced variable ``i`` in order to a free gold candidate, free gold variables ascending),
   then swaps ``(i, j)``, ``i < j``, which must beat it strictly, until nothing gains; an initial
   mapping equal to the end of an earlier climb is not climbed again (``done_mappings``: it takes
   that climb's count and can neither improve the best nor set ``found_idx``); after the smart
   mapping's round, a round ending with every produced clause matched (precision 1) stops the
   restarts;
5. the first round reaching the best count gives the mapping.

Counter's ``compute_match`` recounts the whole mapping for every neighbour (memoised); here the
gain of a move or a swap is counted from the clause pairs through the changed variable pairs
alone (the objective of :func:`~exactalign.metrics.drs.counter_instance`, which equals Counter's
count on every mapping), and a swap whose two new pairs are both outside the candidates is not
counted (it cannot gain: Counter evaluates it and never takes it). Neither changes a step, a draw
or a result; the tests run Counter itself on the same seed and compare.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from .drs import CounterDrs, counter_pool, instance_clauses

#: Counter's default ``-r``.
DEFAULT_RESTARTS = 20


class CounterMatch(NamedTuple):
    """What ``get_best_match`` returns for one pair: the ``mapping`` (per produced variable its
    gold variable or -1), the clauses ``matched``, ``found_idx`` (the round that found it),
    ``smart`` (the count of the smart mapping's round, ``None`` with ``smart=False``) and
    ``rounds`` (the count each round ended with)."""

    mapping: tuple
    matched: int
    found_idx: int
    smart: int | None
    rounds: tuple


def _terms(prod: CounterDrs, gold: CounterDrs) -> dict:
    """The clause pairs of the instance as terms: ``{((a, b), ...): weight}``, each term the
    sorted distinct variable pairs a clause pair needs (those that no one-to-one mapping can
    satisfy left out)."""
    right: dict = {}
    for c in instance_clauses(gold, "right"):
        right.setdefault(c[0], []).append(c[1:])
    terms: dict = {}
    for c in instance_clauses(prod, "left"):
        for g in right.get(c[0], ()):
            pairs = set(zip(c[1:], g, strict=True))
            if len({a for a, _ in pairs}) != len(pairs) or len({b for _, b in pairs}) != len(pairs):
                continue  # a variable on one side paired twice: never satisfiable
            t = tuple(sorted(pairs))
            terms[t] = terms.get(t, 0) + 1
    return terms


class CounterClimber:
    """One pair's climbing state: Counter's candidate pool and the terms through each pair."""

    def __init__(self, prod: CounterDrs, gold: CounterDrs):
        self.prod, self.gold = prod, gold
        self.cands = counter_pool(prod, gold)
        self.n_gold = gold.n_vars
        self.terms = _terms(prod, gold)
        by_pair: dict = {}
        for t, w in self.terms.items():
            for p in t:
                others = tuple(q for q in t if q != p)
                by_pair.setdefault(p, []).append((others, w))
        self.by_pair = by_pair

    # -- the objective -----------------------------------------------------------------------
    def count(self, mapping) -> int:
        """``compute_match``: the clauses matched under ``mapping``."""
        return sum(w for t, w in self.terms.items() if all(mapping[a] == b for a, b in t))

    def _through(self, i: int, m: int, mapping, skip: int = -1) -> int:
        """The weight of the terms through pair ``(i, m)`` whose other pairs ``mapping`` holds
        (those with a pair on produced variable ``skip`` left out)."""
        total = 0
        for others, w in self.by_pair.get((i, m), ()):
            for a, b in others:
                if a == skip or mapping[a] != b:
                    break
            else:
                total += w
        return total

    # -- initial mappings --------------------------------------------------------------------
    def random_fill(self, result: list, taken: set, rng: random.Random) -> list:
        """``add_random_mapping``."""
        indices = list(range(len(result)))
        rng.shuffle(indices)
        for idx in indices:
            if result[idx] == -1:
                cands = list(self.cands[idx])
                while cands:
                    rid = rng.randint(0, len(cands) - 1)
                    if cands[rid] in taken:
                        cands.pop(rid)
                    else:
                        taken.add(cands[rid])
                        result[idx] = cands[rid]
                        break
        return result

    def smart_mapping(self, rng: random.Random) -> list:
        """``smart_concept_mapping``."""
        taken: set = set()
        result = [-1] * len(self.cands)
        cands = self.cands
        for c1 in self.prod.concepts:
            for c2 in self.gold.concepts:
                if c1[1] == c2[1] and c1[2] == c2[2]:
                    v11, v12, v21, v22 = c1[0], c1[3], c2[0], c2[3]
                    if v21 in cands[v11] and v22 in cands[v12]:
                        if result[v11] == -1 and v21 not in taken:
                            result[v11] = v21
                            taken.add(v21)
                        if result[v12] == -1 and v22 not in taken:
                            result[v12] = v22
                            taken.add(v22)
        return self.random_fill(result, taken, rng)

    def random_set(self, count: int, rng: random.Random) -> list:
        """``get_random_set``: up to ``count`` distinct random mappings with their counts."""
        maps: list = []
        seen: set = set()
        dup = 0
        while len(maps) < count and dup <= 50:
            m = self.random_fill([-1] * len(self.cands), set(), rng)
            if tuple(m) not in seen:
                seen.add(tuple(m))
                maps.append((m, self.count(m)))
                dup = 0
            else:
                dup += 1
        return maps

    # -- climbing ----------------------------------------------------------------------------
    def best_gain(self, mapping: list) -> tuple[int, list]:
        """``get_best_gain``: ``(gain, new mapping)``."""
        best, node1, node2, use_swap = 0, None, None, False
        used = set(mapping)
        unmatched = [v for v in range(self.n_gold) if v not in used]
        cands, through = self.cands, self._through
        for i, nid in enumerate(mapping):
            ci = cands[i]
            old = through(i, nid, mapping) if nid != -1 else 0
            for nm in unmatched:
                if nm in ci:
                    g = through(i, nm, mapping) - old
                    if g > best:
                        best, node1, node2, use_swap = g, i, nm, False
        n = len(mapping)
        for i in range(n):
            mi, ci = mapping[i], cands[i]
            for j in range(i + 1, n):
                mj = mapping[j]
                if mj not in ci and mi not in cands[j]:
                    continue  # no weight through either new pair: gains at most 0
                lost = ((through(i, mi, mapping) if mi != -1 else 0)
                        + (through(j, mj, mapping, skip=i) if mj != -1 else 0))
                mapping[i], mapping[j] = mj, mi
                won = ((through(i, mj, mapping) if mj != -1 else 0)
                       + (through(j, mi, mapping, skip=i) if mi != -1 else 0))
                mapping[i], mapping[j] = mi, mj
                g = won - lost
                if g > best:
                    best, node1, node2, use_swap = g, i, j, True
        new = mapping[:]
        if node1 is not None:
            if use_swap:
                new[node1], new[node2] = new[node2], new[node1]
            else:
                new[node1] = node2
        return best, new

    def climb(self, mapping: list, num: int) -> tuple[list, int]:
        """Counter's inner ``while True`` loop from ``mapping`` of count ``num``."""
        total = self.prod.n_clauses
        while True:
            gain, new = self.best_gain(mapping)
            if num + gain > total:
                raise AssertionError(f"{num + gain} matches of {total} produced clauses")
            if gain <= 0:
                return mapping, num
            num += gain
            mapping = new


def counter_match(prod: CounterDrs, gold: CounterDrs, rng: random.Random,
                  restarts: int = DEFAULT_RESTARTS, smart: bool = True) -> CounterMatch:
    """Counter's ``get_best_match`` for one pair (module docstring), drawing from ``rng``
    exactly where Counter draws from the global ``random``."""
    if restarts < 1:
        raise ValueError(f"restarts must be at least 1 (Counter's -r), not {restarts!r}")
    c = CounterClimber(prod, gold)
    order: list = []
    n_smart = 0
    if smart:
        m = c.smart_mapping(rng)
        order.append((m, c.count(m)))
        n_smart = 1
    if restarts - n_smart > 0:
        order += c.random_set(restarts - n_smart, rng)
    best, best_num, found = [-1] * prod.n_vars, 0, 0
    done: dict = {}
    smart_num = None
    rounds = []
    total = prod.n_clauses
    for i, (m, num) in enumerate(order):
        key = tuple(m)
        if key in done:
            num = done[key]
        else:
            m, num = c.climb(list(m), num)
            done[tuple(m)] = num
            if num > best_num:
                best, best_num, found = m[:], num, i
        rounds.append(num)
        if i < n_smart:
            smart_num = num
        if num == total and i > n_smart - 1:
            break
    return CounterMatch(tuple(best), best_num, found, smart_num, tuple(rounds))
