"""smatch 1.0.4's hill-climber (smatch.py: ``get_best_match`` and the functions it calls),
pure Python: its candidate pool (:func:`smatch_pool`), the climbing state (:class:`Climber`:
smart and random initial mappings, best move or swap while it gains), the climb with random
restarts (:func:`hillclimb_mapping`) and its verified :class:`~exactalign.core.result.Result`
(:func:`hillclimb_result`).

One shortcut smatch 1.0.4 does not take (later smatch and docSmatch do): a swap whose two new
pairs are both outside the candidates is skipped -- their weights are empty, so it gains at most
0 and can never be the strictly best step. The results, the memo's effect and the random draws
are smatch 1.0.4's (the tests run it call for call); on a 236-variable document pair the climb
takes 19 s instead of 50 (2 s instead of 15 with docSmatch's sentence restriction).

Two bounds smatch does not have, so that the climb respects a command's budgets (a step costs
``O(n^2)`` swaps in pure Python: on a 250-variable pair half a second and, through smatch's memo,
~70 MB a step -- its memo grew to 17.8 GB, issue 36):

* time: the climb checks a :class:`~exactalign.core.deadline.Deadline` (by default the command's
  ``--time-limit``, :func:`~exactalign.core.deadline.command_budget`) between rows of its move and
  swap loops; once it passes, the climb stops with the mapping reached, the rounds left are skipped,
  and the result says so (status ``time_limit``, ``details["stopped"]``);
* memory: the memo (``match_triple_dict``) keeps at most :func:`memo_capacity` entries; once full
  it stops memoising (nothing is evicted, later look-ups still hit the entries it holds). The memo
  is a pure cache of exact counts -- a hit returns what the computation would -- so the mapping,
  the counts and the random draws are smatch's whether or not it fills
  (``details["memo_full"]`` says if it did). It rarely helps: in one climb on synthetic pairs,
  1% of its look-ups hit at 30 variables, 0.1% or fewer at 60 to 250.
"""

from __future__ import annotations

import random
import time

from ...core.deadline import Deadline
from ...core.errors import VerificationError
from ...core.memory import memory_limit
from ...core.result import Result, Status
from .instance import LatentInstance
from .matches import count_matches, mapping_rows

#: smatch's default number of random restarts (``-r 4``).
DEFAULT_RESTARTS = 4
#: The most memory one pair's memo may take (bytes) ...
MEMO_MAX_BYTES = 512 * 2 ** 20
#: ... and at most this share of :func:`~exactalign.core.memory.memory_limit`.
MEMO_SHARE = 0.125
#: Bytes a memo entry takes beyond its key's 8 bytes a variable: the tuple's header, the dict's
#: slot and index and the count. Measured with tracemalloc after two steps on synthetic pairs of
#: 31, 123 and 259 variables: 79 bytes each time (2,151 an entry at 259); about twice that
#: leaves room for a dict just grown (its table doubles) and counts above 256 (not cached ints).
MEMO_ENTRY_OVERHEAD = 176


def memo_capacity(n_left: int, budget: int | None = None) -> int:
    """Entries the memo of a pair with ``n_left`` left variables may hold: ``budget`` bytes
    (default: :data:`MEMO_MAX_BYTES`, or :data:`MEMO_SHARE` of the memory limit if less) over
    the bytes an entry takes."""
    if budget is None:
        limit = memory_limit()
        budget = MEMO_MAX_BYTES if limit is None else min(MEMO_MAX_BYTES,
                                                           int(MEMO_SHARE * limit))
    return max(0, budget) // (8 * n_left + MEMO_ENTRY_OVERHEAD)


def smatch_pool(inst: LatentInstance):
    """smatch's ``compute_pool``: ``candidates[i]``, the set of right variables left variable
    ``i`` may map to (any variable pair some triple pair needs, including the pairs of binary
    triple pairs that can never match), and ``weights``, smatch's ``weight_dict``:
    ``weights[(i, j)][-1]`` the unary count and ``weights[(i, j)][(k, l)]`` the binary count
    with pair ``(k, l)``, stored both ways. Built with smatch's loop order (left triple by left
    triple, then right triples in order), so the sets receive their elements in smatch's order
    -- their iteration order, which drives the smart initial mapping, depends on it."""
    candidates = [set() for _ in range(inst.n_left)]
    weights: dict = {}
    by_key: dict = {}
    for k, w in inst.right_unary:
        by_key.setdefault(k, []).append(w)
    allows = inst.allows
    for k, v in inst.left_unary:
        for w in by_key.get(k, ()):
            if not allows(v, w):  # docSmatch's compute_pool: outside the allowed pairs
                continue
            candidates[v].add(w)
            d = weights.setdefault((v, w), {-1: 0})
            d[-1] += 1
    by_key = {}
    for k, w1, w2 in inst.right_binary:
        by_key.setdefault(k, []).append((w1, w2))
    for k, v1, v2 in inst.left_binary:
        for w1, w2 in by_key.get(k, ()):
            if not (allows(v1, w1) and allows(v2, w2)):
                continue
            candidates[v1].add(w1)
            candidates[v2].add(w2)
            p1, p2 = (v1, w1), (v2, w2)
            if p1 == p2:
                d = weights.setdefault(p1, {-1: 0})
                d[-1] += 1
                continue
            if v1 > v2:
                p1, p2 = p2, p1
            for a, b in ((p1, p2), (p2, p1)):
                d = weights.setdefault(a, {-1: 0})
                d[b] = d.get(b, 0) + 1
    return candidates, weights


class Climber:
    """One pair's hill-climbing state: smatch's pool and its ``match_triple_dict`` memo (kept for
    the whole pair, across restarts, as smatch keeps it, up to :attr:`memo_cap` entries: then it
    stops memoising). :attr:`deadline` (a :class:`~exactalign.core.deadline.Deadline`, ``None``:
    none): :meth:`climb` stops, keeping its mapping, once it passes, and sets :attr:`stopped`."""

    def __init__(self, candidates, weights, n_right: int, left_concepts=None,
                 right_concepts=None, memo_cap: int | None = None):
        self.candidates, self.weights, self.n_right = candidates, weights, n_right
        self.c1, self.c2 = left_concepts, right_concepts
        self.memo: dict = {}
        self.memo_cap = memo_capacity(len(candidates)) if memo_cap is None else memo_cap
        self.deadline: Deadline | None = None
        self.stopped = False  # the deadline stopped a climb

    @property
    def memo_full(self) -> bool:
        """The memo reached :attr:`memo_cap` (and stopped memoising)."""
        return len(self.memo) >= self.memo_cap

    def _expired(self) -> bool:
        if self.deadline is not None and self.deadline.expired():
            self.stopped = True
        return self.stopped

    @classmethod
    def of(cls, inst: LatentInstance) -> Climber:
        """The climber on smatch's own pool of ``inst``'s triples."""
        cands, weights = smatch_pool(inst)
        return cls(cands, weights, inst.n_right, inst.left_concepts, inst.right_concepts)

    @classmethod
    def of_compiled(cls, inst: LatentInstance) -> Climber:
        """The climber on the compiled pairs (the same objective; pairs of binary triples that
        can never match are not candidates): used to polish an incumbent."""
        cands = [set() for _ in range(inst.n_left)]
        weights: dict = {}
        pl, pr = inst.pair_left.tolist(), inst.pair_right.tolist()
        for a, b, w in zip(pl, pr, inst.unary.tolist(), strict=True):
            cands[a].add(b)
            weights[(a, b)] = {-1: int(w)}
        for p, q, w in zip(inst.bin_p.tolist(), inst.bin_q.tolist(), inst.bin_w.tolist(),
                           strict=True):
            a, b = (pl[p], pr[p]), (pl[q], pr[q])
            weights[a][b] = weights[a].get(b, 0) + int(w)
            weights[b][a] = weights[b].get(a, 0) + int(w)
        return cls(cands, weights, inst.n_right)

    def smart_init(self, rng: random.Random) -> list:
        """``smart_init_mapping``: each left variable takes the first candidate (in set order)
        with an identical concept not yet taken; the others then draw candidates uniformly
        (``randint``), discarding taken ones."""
        c1, c2 = self.c1, self.c2
        taken: set = set()
        result, no_match = [], []
        for i, cands in enumerate(self.candidates):
            if not cands:
                result.append(-1)
                continue
            if c1 is not None and c2 is not None:
                for j in cands:
                    if c1[i] == c2[j] and j not in taken:
                        result.append(j)
                        taken.add(j)
                        break
            if len(result) == i:
                no_match.append(i)
                result.append(-1)
        for i in no_match:
            cands = list(self.candidates[i])
            while cands:
                rid = rng.randint(0, len(cands) - 1)
                if cands[rid] in taken:
                    cands.pop(rid)
                else:
                    taken.add(cands[rid])
                    result[i] = cands[rid]
                    break
        return result

    def random_init(self, rng: random.Random) -> list:
        """``random_init_mapping``: every left variable in turn draws a free candidate."""
        taken: set = set()
        result = []
        for c in self.candidates:
            cands = list(c)
            found = -1
            while cands:
                rid = rng.randint(0, len(cands) - 1)
                if cands[rid] in taken:
                    cands.pop(rid)
                else:
                    taken.add(cands[rid])
                    found = cands[rid]
                    break
            result.append(found)
        return result

    def match(self, mapping: list) -> int:
        """``compute_match``: the objective of a mapping (memoised)."""
        key = tuple(mapping)
        if key in self.memo:
            return self.memo[key]
        total = 0
        for i, m in enumerate(mapping):
            d = self.weights.get((i, m)) if m != -1 else None
            if d is None:
                continue
            for k, w in d.items():
                if k == -1:
                    total += w
                elif k[0] >= i and mapping[k[0]] == k[1]:
                    total += w
        if len(self.memo) < self.memo_cap:
            self.memo[key] = total
        return total

    def move_gain(self, mapping, i, old, new, cur) -> int:
        """``move_gain``: change of the objective when left ``i`` moves from ``old`` to ``new``."""
        new_list = mapping[:]
        new_list[i] = new
        key = tuple(new_list)
        if key in self.memo:
            return self.memo[key] - cur
        gain = 0
        for k, w in self.weights.get((i, new), {}).items():
            if k == -1 or new_list[k[0]] == k[1]:
                gain += w
        for k, w in self.weights.get((i, old), {}).items():
            if k == -1 or mapping[k[0]] == k[1]:
                gain -= w
        if len(self.memo) < self.memo_cap:
            self.memo[key] = cur + gain
        return gain

    def swap_gain(self, mapping, i, mi, j, mj, cur) -> int:
        """``swap_gain`` for ``i < j``: left ``i`` takes ``mj`` and ``j`` takes ``mi``."""
        new_list = mapping[:]
        new_list[i], new_list[j] = mj, mi
        key = tuple(new_list)
        if key in self.memo:
            return self.memo[key] - cur
        gain = 0
        W = self.weights
        for k, w in W.get((i, mj), {}).items():
            if k == -1 or new_list[k[0]] == k[1]:
                gain += w
        for k, w in W.get((j, mi), {}).items():
            if k == -1:
                gain += w
            elif k[0] != i and new_list[k[0]] == k[1]:
                gain += w
        for k, w in W.get((i, mi), {}).items():
            if k == -1 or mapping[k[0]] == k[1]:
                gain -= w
        for k, w in W.get((j, mj), {}).items():
            if k == -1:
                gain -= w
            elif k[0] != i and mapping[k[0]] == k[1]:
                gain -= w
        if len(self.memo) < self.memo_cap:
            self.memo[key] = cur + gain
        return gain

    def best_gain(self, mapping: list, cur: int):
        """``get_best_gain``: the first strictly best move (left variables in order, free right
        variables ascending), then swaps ``(i, j)``, ``i < j`` in order, which must beat it
        strictly. Returns ``(gain, new mapping)``."""
        best, node1, node2, use_swap = 0, None, None, True
        unmatched = set(range(self.n_right))
        for nid in mapping:
            unmatched.discard(nid)
        timed = self.deadline is not None
        for i, nid in enumerate(mapping):
            if timed and self._expired():
                return 0, mapping  # out of time: no move (climb() stops here)
            cands = self.candidates[i]
            for nm in unmatched:
                if nm in cands:
                    g = self.move_gain(mapping, i, nid, nm, cur)
                    if g > best:
                        best, node1, node2, use_swap = g, i, nm, False
        n = len(mapping)
        cands = self.candidates
        for i in range(n):
            if timed and self._expired():
                return 0, mapping  # out of time: no move (climb() stops here)
            mi, ci = mapping[i], cands[i]
            for j in range(i + 1, n):
                mj = mapping[j]
                if mj not in ci and mi not in cands[j]:
                    # both new pairs carry no weight: the swap gains at most 0, so it cannot
                    # be chosen (later smatch and docSmatch skip it too; the result is
                    # smatch 1.0.4's, only faster)
                    continue
                g = self.swap_gain(mapping, i, mi, j, mj, cur)
                if g > best:
                    best, node1, node2, use_swap = g, i, j, True
        new = mapping[:]
        if node1 is not None:
            if use_swap:
                new[node1], new[node2] = new[node2], new[node1]
            else:
                new[node1] = node2
        return best, new

    def climb(self, mapping: list) -> tuple[list, int]:
        """Apply the best move or swap while it gains (smatch's inner ``while True`` loop);
        with a :attr:`deadline`, stop when it passes (:attr:`stopped`), keeping the mapping
        reached."""
        cur = self.match(mapping)
        if self.deadline is not None and self._expired():
            return mapping, cur
        while True:
            gain, new = self.best_gain(mapping, cur)
            if gain <= 0:
                return mapping, cur
            cur += gain
            mapping = new


def _climbed(inst: LatentInstance, restarts: int, rng: random.Random | None, seed: int,
             deadline: Deadline | None, memo_cap: int | None):
    """:func:`hillclimb_mapping`'s search; also returns its :class:`Climber`."""
    if restarts < 0:
        raise ValueError(f"restarts must be >= 0, not {restarts!r}")
    rng = rng if rng is not None else random.Random(seed)
    c = Climber.of(inst)
    if memo_cap is not None:
        c.memo_cap = memo_cap
    c.deadline = Deadline(None) if deadline is None else deadline
    if c.deadline.limit is None:
        c.deadline = None  # no budget: no checks
    best, best_num, rounds = [-1] * inst.n_left, 0, []
    for r in range(restarts + 1):
        if c.stopped:
            break  # out of time: the rounds left are skipped
        start = c.smart_init(rng) if r == 0 else c.random_init(rng)
        mapping, num = c.climb(start)
        rounds.append(num)
        if num > best_num:
            best, best_num = mapping[:], num
    return best, best_num, rounds, c


def hillclimb_mapping(inst: LatentInstance, restarts: int = DEFAULT_RESTARTS, *,
                      rng: random.Random | None = None, seed: int = 0,
                      deadline: Deadline | None = None, memo_cap: int | None = None):
    """smatch 1.0.4's ``get_best_match`` with ``restarts`` random restarts (``-r``): round 0
    starts from the smart initial mapping, rounds 1..restarts from random ones; each climbs
    until no move or swap gains; the first round reaching the best count is kept.

    Randomness comes only from ``rng`` (else ``random.Random(seed)``), called exactly where smatch
    calls the global ``random.randint``. smatch itself calls ``random.seed()`` (fresh system
    entropy) at each initial mapping, so its runs cannot be reproduced by any seed; with that
    reseeding disabled and the global generator seeded like ``rng``, smatch makes the same calls
    and returns the same mapping (the tests check this). Returns ``(mapping list, count,
    per-round counts)`` with ``mapping[i]`` the right variable of left ``i`` or -1.

    Budgets (module docstring): ``deadline`` (default: the enclosing command's budget, none
    outside one) stops the climb with the best mapping reached, skipping the rounds left (then
    fewer counts than rounds, and ``rng`` has made fewer draws than smatch would);
    ``memo_cap`` (default :func:`memo_capacity`) bounds the memo without changing the result."""
    best, best_num, rounds, _ = _climbed(inst, restarts, rng, seed, deadline, memo_cap)
    return best, best_num, rounds


def hillclimb_result(inst: LatentInstance, restarts: int = DEFAULT_RESTARTS, *,
                     rng: random.Random | None = None, seed: int = 0,
                     deadline: Deadline | None = None, memo_cap: int | None = None) -> Result:
    """:func:`hillclimb_mapping` as a :class:`~exactalign.core.result.Result` (no bound; the
    alignment a sorted tuple of rows; ``details["rounds"]``: the count each round reached,
    ``details["memo_full"]``: whether the memo reached its cap). Status FEASIBLE, or TIME_LIMIT
    when ``deadline`` stopped the climb (``details["stopped"]``: ``"time limit"``): the best
    mapping reached so far. The count it reports is re-verified by :func:`count_matches`."""
    t0 = time.perf_counter()
    ml, num, rounds, c = _climbed(inst, restarts, rng, seed, deadline, memo_cap)
    m = mapping_rows(ml)
    obj = count_matches(inst, m)
    if obj != num:
        raise VerificationError(f"hill-climbing reported {num} matches but its mapping scores "
                                f"{obj}")
    details = {"restarts": restarts, "rounds": tuple(rounds), "memo_full": c.memo_full}
    if c.stopped:
        details["stopped"] = "time limit"
    return Result(Status.TIME_LIMIT if c.stopped else Status.FEASIBLE, float(obj), None, m,
                  "hillclimb", time.perf_counter() - t0, seed=seed, details=details)
