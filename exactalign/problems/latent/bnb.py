"""An exact solver for small instances, pure Python: :func:`branch_and_bound`, a depth-first
search over the left variables' images with a valid upper bound, proven optimal when the search
finishes within its node budget (:func:`bnb_result`: as a Result).
:func:`exactalign.problems.latent.solve` offers it as ``bnb``; the ``exact`` path of
:mod:`exactalign.metrics.smatch` tries it first on every pair and sends the pairs it does not
finish to the LP/MIP path (:mod:`.exact`).

The bound (:func:`branch_and_bound`): at a node where some left variables are decided (mapped,
or left unmapped) and the set ``R`` is not, every completion scores at most
``V + sum_{a in R} h(a)``. ``V`` is the score among decided pairs; ``h(a)`` is the best, over
``a``'s useful pairs ``p = (a, b)`` with ``b`` still free, of ``unary(p)`` + the pair-of-pairs
weights ``p`` shares with decided pairs + half, for every other undecided left variable ``a'``,
of the largest weight ``p`` shares with a pair ``(a', b')``, ``b'`` free. Valid because every
pair-of-pairs credit between two undecided variables is split in halves between its two ends,
``a'`` takes at most one image, and relaxing the one-to-one constraint among undecided variables
only loosens the bound. The same bound taken from the free right variables' side (each
takes its best pair with an undecided left variable, halves grouped by the partner's right
variable) is also valid; a node uses the smaller of the two (the right one only when the left
one does not prune). The objective is an integer, so a node is pruned when
``floor(V + sum h) <= incumbent``. A component with a single variable on one side has no pair
of pairs and is solved by its best pair directly.
"""

from __future__ import annotations

import time

from ...core.errors import InfeasibleAlignmentError
from ...core.result import Result, Status
from .bnb3 import branch_and_bound3
from .instance import LatentInstance
from .matches import (
    BNB_MAX_DEPTH,
    BnbOutcome,
    binary_candidates,
    count_bound,
    count_matches,
    mapping_rows,
)

#: :func:`branch_and_bound`'s default budget, in node x instance-size units (a node costs about
#: 0.4 microseconds per useful pair and pair-of-pairs link on the pilot AMR pairs, so this is
#: about 0.4 s): an instance of size ``s`` may use ``BNB_WORK_LIMIT // s`` nodes. Every pilot
#: pair but one finishes within it.
BNB_WORK_LIMIT = 1_000_000

#: :func:`branch_and_bound` does not search an instance with more useful pairs and pair-of-pairs
#: links than this (its pure-Python set-up costs about 10 microseconds per link).
BNB_MAX_SIZE = 50_000

#: :func:`branch_and_bound`'s mark of a left variable not yet decided.
UNDECIDED = -2


def _pure_pairs(inst: LatentInstance):
    """The compiled form in Python containers: ``pairs`` (useful ``(left, right)`` pairs),
    ``unary`` per pair, and ``adj[p]`` = {q: weight} of the pairs of pairs (both ways).

    The same pairs, weights and orders as reading smatch's pool (:func:`.hillclimb.smatch_pool`: pairs
    in the order the pool first meets them, each pair's partners too), built directly: the
    pool's links between two pairs that share a variable can never be credited (one-to-one),
    so they are not stored, and pairs left with nothing are dropped. Pairs are numbered as they
    are met: 0.026-0.030 s of CPU on the 1,500-pair bamboo corpus against 0.045 s keying the weights
    by ``(left, right)`` and numbering after (best of 15 alternating runs)."""
    index: dict = {}  # every pair the pool would hold -> its number, in the pool's order
    unary: list = []
    adj: list = []
    allowed = inst.allowed  # None: every pair allowed (:meth:`LatentInstance.allows`)

    def number(pair) -> int:
        """``pair``'s number, a new one (no credit, no link yet) when first met."""
        p = index.get(pair)
        if p is None:
            p = index[pair] = len(unary)
            unary.append(0)
            adj.append({})
        return p

    by_key: dict = {}
    for k, w in inst.right_unary:
        by_key.setdefault(k, []).append(w)
    for k, v in inst.left_unary:
        for w in by_key.get(k, ()):
            if allowed is not None and (v, w) not in allowed:
                continue
            unary[number((v, w))] += 1
    by_key = {}
    for k, w1, w2 in inst.right_binary:
        by_key.setdefault(k, []).append((w1, w2))
    for k, v1, v2 in inst.left_binary:
        for w1, w2 in by_key.get(k, ()):
            if allowed is not None and not ((v1, w1) in allowed and (v2, w2) in allowed):
                continue
            if v1 == v2 and w1 == w2:  # a self-loop matched to a self-loop: a unary credit
                unary[number((v1, w1))] += 1
                continue
            ab1, ab2 = ((v1, w1), (v2, w2)) if v1 <= v2 else ((v2, w2), (v1, w1))
            p1, p2 = number(ab1), number(ab2)
            if v1 != v2 and w1 != w2:
                d = adj[p1]
                d[p2] = d.get(p2, 0) + 1
                d = adj[p2]
                d[p1] = d.get(p1, 0) + 1
    pairs = list(index)
    keep = [p for p in range(len(pairs)) if unary[p] or adj[p]]
    if len(keep) < len(pairs):  # pairs met only in links sharing a variable: renumbered
        new = {p: n for n, p in enumerate(keep)}
        pairs = [pairs[p] for p in keep]
        unary = [unary[p] for p in keep]
        adj = [{new[q]: w for q, w in adj[p].items()} for p in keep]
    return pairs, unary, adj


def _by_variable(pairs) -> tuple[dict, dict]:
    """``(cand, rcand)``: per left (right) variable, its pairs in pair order."""
    cand: dict = {}
    rcand: dict = {}
    for p, (a, b) in enumerate(pairs):
        cand.setdefault(a, []).append(p)
        rcand.setdefault(b, []).append(p)
    return cand, rcand


def _components(pairs, adj, cand, rcand) -> list:
    """The useful pairs grouped into independent components (joined by a shared variable or a
    pair of pairs), each a list in pair order, in order of their smallest pair. ``cand[a]``
    (``rcand[b]``): the pairs of left variable ``a`` (right variable ``b``), from
    :func:`_by_variable`."""
    comp_of = [-1] * len(pairs)
    done_left: set = set()
    done_right: set = set()
    comps = []
    for start in range(len(pairs)):
        if comp_of[start] >= 0:
            continue
        c = len(comps)
        comp_of[start] = c
        members = [start]
        stack = [start]
        while stack:
            p = stack.pop()
            a, b = pairs[p]
            nxt = list(adj[p])
            if a not in done_left:
                done_left.add(a)
                nxt += cand[a]
            if b not in done_right:
                done_right.add(b)
                nxt += rcand[b]
            for q in nxt:
                if comp_of[q] < 0:
                    comp_of[q] = c
                    members.append(q)
                    stack.append(q)
        members.sort()
        comps.append(members)
    return comps


def branch_and_bound(inst: LatentInstance, start=(), *, node_limit: int | None = None,
                     work_limit: int = BNB_WORK_LIMIT) -> BnbOutcome:
    """The best one-to-one mapping of ``inst`` by depth-first branch and bound (module
    docstring for the bound), component by component (independent parts of the instance).
    ``start``: an incumbent mapping (rows ``(left, right)``; default none). Each component
    starts from the better of it and a greedy completion (left variables in order of their root
    ``h``, each taking its pair of largest immediate gain): measured 12-15% faster on the
    103-pair pilot files than letting the search's first dive find the incumbent, and faster
    than climbing smatch's smart initial mapping first. Branches on the undecided left variable
    with the largest ``h``, trying its images best first (twice the immediate gain plus the
    halves still reachable) and then "unmapped", skipping the children left once the incumbent
    reaches the node's bound (the same mapping, found first in the same order: 13,981 nodes
    instead of 16,515 on the 1,500 bamboo pairs, 3-7% less CPU); deterministic. After ``node_limit`` nodes in
    all (default: ``work_limit`` divided by the number of useful pairs and pair-of-pairs links,
    at least 1) it stops: the result is the incumbent, with the sum of the components' proven
    optima and of the others' root bounds as bound.

    An instance with more than :data:`BNB_MAX_SIZE` binary triple pairs of equal key
    (:func:`~.matches.binary_candidates`: about twice as many links) is not set up at all: the
    result is ``start`` with the key count bound (:func:`~.matches.count_bound`), not proven
    (the set-up of a 1,000-variable AMR pair's 90,000 candidates took 2.4 s).

    An instance with ternary clauses on both sides goes to :func:`~.bnb3.branch_and_bound3`
    (``work_limit`` not passed on: its own default)."""
    if inst.left_ternary and inst.right_ternary:
        return branch_and_bound3(inst, start, node_limit=node_limit)
    if (len(inst.left_binary) * len(inst.right_binary) > BNB_MAX_SIZE  # (cheap: pilot pairs)
            and binary_candidates(inst) > BNB_MAX_SIZE):
        mapping = mapping_rows(start)
        obj = count_matches(inst, mapping)
        return BnbOutcome(mapping, obj, max(obj, count_bound(inst)), False, 0)
    pairs, unary, adj = _pure_pairs(inst)
    size = len(pairs) + sum(len(x) for x in adj)
    if node_limit is None:
        node_limit = max(1, work_limit // max(1, size))
    if size > BNB_MAX_SIZE:  # the set-up alone would cost more than the LP path
        mapping = mapping_rows(start)
        obj = count_matches(inst, mapping)
        trivial = sum(unary) + sum(sum(x.values()) for x in adj) // 2
        return BnbOutcome(mapping, obj, max(obj, trivial), False, 0)
    index = {ab: p for p, ab in enumerate(pairs)}
    start_pairs = {index[(int(a), int(b))] for a, b in start if (int(a), int(b)) in index}
    cand, rcand = _by_variable(pairs)
    left_of = [a for a, _ in pairs]
    right_of = [b for _, b in pairs]
    unary2 = [2 * u for u in unary]

    def grouped(p, side, tops):
        """``p``'s neighbours grouped by their variable on ``side``, heaviest first (equal
        weights in any order: every use takes the first that qualifies, and they add the
        same); ``tops[p]``: the sum of the groups' heaviest weights."""
        g: dict = {}
        for q, w in adj[p].items():
            v = side[q]
            if v in g:
                g[v].append((w, q))
            else:
                g[v] = [(w, q)]
        top = 0
        for qs in g.values():
            if len(qs) > 1:
                qs.sort(reverse=True)
            top += qs[0][0]
        tops[p] = top
        return list(g.items())

    def capped(ps, tops):
        """Pairs ``ps`` by decreasing cap: twice the unary credit plus twice the heaviest link
        per partner variable (``tops[p]``, from :func:`grouped`), at least what any node's
        ``left_h2`` (``right_h2``) can give the pair, so a scan may stop at the first cap below
        its best."""
        caps = sorted([(-(unary2[p] + 2 * tops[p]), p) for p in ps])
        return [(-c, p) for c, p in caps]

    # Per pair, its partners grouped by left variable (every pair needs them at the root).
    # (The caps summed while grouping, groups sorted without a key function: the branch and
    # bound of the 1,500 bamboo pairs measured 2-5% faster, best of 15 alternating runs.)
    ltops = [0] * len(pairs)
    lgroups = [grouped(p, left_of, ltops) for p in range(len(pairs))]
    lcap = {a: capped(ps, ltops) for a, ps in cand.items()}
    # The right side's, built on first use (only where the left bound does not prune).
    rgroups: dict = {}
    rtops: dict = {}
    rcap: dict = {}

    def rcap_of(b):
        for p in rcand[b]:
            if p not in rgroups:
                rgroups[p] = grouped(p, right_of, rtops)
        out = rcap[b] = capped(rcand[b], rtops)
        return out

    # Search state, in lists indexed by variable (faster than dicts and sets here):
    state = [UNDECIDED] * inst.n_left  # per left variable: its pair, -1 unmapped, or UNDECIDED
    used = bytearray(inst.n_right)     # per right variable: 1 when taken
    lefts: list = []                   # the current component's left variables, ascending
    rights: list = []                  # the current component's right variables
    nodes = 0
    aborted = False
    best, best_set = 0, []

    def left_h2(a) -> int:
        """``2 h(a)``: the best free pair of ``a`` (twice its unary and decided links, plus per
        undecided partner variable the heaviest link to a free pair)."""
        top = 0
        for cap, p in lcap[a]:
            if cap <= top:
                break
            if used[right_of[p]]:
                continue
            s = unary2[p]
            for a2, qs in lgroups[p]:
                c = state[a2]
                if c == UNDECIDED:
                    for w, q in qs:
                        if not used[right_of[q]]:
                            s += w
                            break
                elif c >= 0:
                    s += 2 * adj[p].get(c, 0)
            if s > top:
                top = s
        return top

    def right_h2(b) -> int:
        """The same seen from free right variable ``b``: its best pair with an undecided left
        variable, halves grouped by the partner's right variable."""
        top = 0
        rc = rcap.get(b)
        for cap, p in (rcap_of(b) if rc is None else rc):
            if cap <= top:
                break
            if state[left_of[p]] != UNDECIDED:
                continue
            s = unary2[p]
            for b2, qs in rgroups[p]:
                if used[b2]:
                    for w, q in qs:
                        if state[left_of[q]] == q:
                            s += 2 * w
                            break
                else:
                    for w, q in qs:
                        if state[left_of[q]] == UNDECIDED:
                            s += w
                            break
            if s > top:
                top = s
        return top

    def bound2(value: int):
        """``(2 x bound, branching variable or None)`` at the current node."""
        left2, pick, pick_h = 0, None, -1
        for a in lefts:
            if state[a] != UNDECIDED:
                continue
            h = left_h2(a)
            left2 += h
            if h > pick_h:
                for p in cand[a]:
                    if not used[right_of[p]]:
                        pick, pick_h = a, h
                        break
        if pick is None:
            return 2 * value, None
        b2 = 2 * value + left2
        if b2 // 2 > best:
            b2 = 2 * value + min(left2, sum(right_h2(b) for b in rights if not used[b]))
        return b2, pick

    def gain(p) -> int:
        """What taking pair ``p`` adds now: its unary credit and its links to decided pairs."""
        return unary[p] + sum(w for q, w in adj[p].items() if state[left_of[q]] == q)

    def search(value: int) -> None:
        nonlocal best, best_set, nodes, aborted
        nodes += 1
        if nodes > node_limit:
            aborted = True
            return
        b2, pick = bound2(value)
        if pick is None:  # nothing left to map: a leaf
            if value > best:
                best, best_set = value, [state[a] for a in lefts if state[a] >= 0]
            return
        if b2 // 2 <= best:
            return
        options = []
        for p in cand[pick]:
            if used[right_of[p]]:
                continue
            g = gain(p)
            pot = 0
            for a2, qs in lgroups[p]:
                if state[a2] == UNDECIDED:
                    for w, q in qs:
                        if not used[right_of[q]]:
                            pot += w
                            break
            options.append((-(2 * g + pot), -g, p))
        options.sort()
        # This node's bound holds for every child: once a child's leaf reaches it, the
        # children left are not searched (nor bounded); only a better leaf replaces the
        # incumbent, so the mapping found is the same.
        for _, neg, p in options:
            state[pick] = p
            used[right_of[p]] = 1
            search(value - neg)
            used[right_of[p]] = 0
            if aborted or b2 // 2 <= best:
                break
        if not aborted and b2 // 2 > best:
            state[pick] = -1
            search(value)
        state[pick] = UNDECIDED

    def dive():
        """The current component's greedy completion (docstring above): (value, pairs)."""
        order = sorted(lefts, key=lambda a: -left_h2(a))
        taken, value = [], 0
        for a in order:
            top, top_p = 0, None
            for p in cand[a]:
                if not used[right_of[p]]:
                    g = gain(p)
                    if g > top:
                        top, top_p = g, p
            if top_p is not None:
                state[a] = top_p
                used[right_of[top_p]] = 1
                taken.append(top_p)
                value += top
        for p in taken:
            state[left_of[p]] = UNDECIDED
            used[right_of[p]] = 0
        return value, taken

    mapping_pairs: list = []
    bound = claimed = 0  # claimed: the incumbents' values, rechecked against the mapping
    for comp in _components(pairs, adj, cand, rcand):
        inc = [p for p in comp if p in start_pairs]
        if len({left_of[p] for p in comp}) == 1 or len({right_of[p] for p in comp}) == 1:
            # one variable on a side: no pair of pairs, and at most one pair can be taken
            top = max(comp, key=lambda p: (unary[p], -p))
            mapping_pairs.append(top)
            bound += unary[top]
            claimed += unary[top]
            continue
        best = sum(unary[p] for p in inc) + sum(
            w for p in inc for q, w in adj[p].items() if q in start_pairs and p < q)
        best_set = inc
        lefts = sorted({left_of[p] for p in comp})
        rights = sorted({right_of[p] for p in comp})
        gval, gset = dive()
        if gval > best:
            best, best_set = gval, gset
        if len(lefts) > BNB_MAX_DEPTH:
            aborted = True  # the search recurses once per left variable
        if aborted:
            root = bound2(0)[0] // 2
        else:
            search(0)
            root = best if not aborted else None
        if root is None:  # cut short inside this component (the search undid its state)
            root = bound2(0)[0] // 2
        mapping_pairs += best_set
        bound += max(root, best)
        claimed += best
    # The recursive closure's cycle broken, so that refcounting frees the set-up here rather
    # than the cyclic GC later (with the same in io.amr's graph_from_tree, scoring the 1,500
    # bamboo pairs runs 246 collections instead of 591, 0.035-0.05 s of CPU instead of
    # 0.11-0.12 s).
    search = None
    mapping = tuple(sorted((left_of[p], right_of[p]) for p in mapping_pairs))
    obj = count_matches(inst, mapping)
    total = sum(unary[p] for p in mapping_pairs) + sum(
        adj[p].get(q, 0) for p in mapping_pairs for q in mapping_pairs if p < q)
    if not obj == total == claimed:
        raise InfeasibleAlignmentError(f"branch and bound claimed {claimed} for its mapping, "
                                       f"which scores {total} and counts {obj} matches")
    return BnbOutcome(mapping, obj, obj if not aborted else max(bound, obj), not aborted, nodes)


def bnb_result(inst: LatentInstance, *, work_limit: int = BNB_WORK_LIMIT) -> Result:
    """:func:`branch_and_bound` as a :class:`~exactalign.core.result.Result` (method ``exact``,
    ``details["proven_by"] == {"branch and bound": 1}``; the alignment a sorted tuple of
    ``(left, right)`` rows). Status OPTIMAL when the search finished, else FEASIBLE with the
    bound it proved."""
    t0 = time.perf_counter()
    out = branch_and_bound(inst, work_limit=work_limit)
    status = Status.OPTIMAL if out.proven else Status.FEASIBLE
    how = "branch and bound" if out.proven else "branch and bound (cut short)"
    return Result(status, float(out.objective), float(out.bound), out.mapping, "exact",
                  time.perf_counter() - t0, nodes=out.nodes, details={"proven_by": {how: 1}})
