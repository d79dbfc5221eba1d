"""The branch and bound of instances with ternary clauses (:func:`branch_and_bound3`), which
:func:`~.bnb.branch_and_bound` hands them to: a depth-first search over the left variables'
images on the compiled form (numpy only to read it), proven optimal when it finishes within its
node budget. Small instances only (DRS pairs); cross-checked against the ILP and brute force.

The bound: at a node where some left variables are decided (mapped, or left unmapped) and the
set ``R`` is not, every completion scores at most ``V + sum_{a in R} max(0, max_b h(a, b))``.
``V`` is the score of the terms (unary, pairs and triples of pairs) whose pairs are all decided
and on; for a useful pair ``p = (a, b)``, ``b`` free, ``h(p)`` is ``unary(p)`` plus, for every
term holding ``p`` that is still *alive* (its decided pairs on, the right variables of its
undecided pairs free), its weight divided by ``u``, its number of undecided pairs. Valid:
a term earned by a completion has its ``u`` undecided pairs chosen, by ``u`` distinct undecided
left variables (a term's pairs have distinct left variables), each crediting ``w / u``; every
other credit is non-negative; relaxing the one-to-one constraint among the undecided variables
only loosens it. The objective is an integer, so a node is pruned when ``floor(bound) <=``
incumbent."""

from __future__ import annotations

from .instance import LatentInstance
from .matches import BNB_MAX_DEPTH, BnbOutcome, count_matches

#: :func:`branch_and_bound3` stops after about this many (pairs x terms) units of work.
BNB3_WORK_LIMIT = 5_000_000


def branch_and_bound3(inst: LatentInstance, start=(), *, node_limit: int | None = None,
                      work_limit: int = BNB3_WORK_LIMIT) -> BnbOutcome:
    """The best one-to-one mapping of ``inst`` (module docstring). ``start``: an incumbent
    (rows; the better of it and :func:`~.ternary.improve` from it is used). After ``node_limit``
    nodes (default ``work_limit`` divided by pairs + term memberships) it stops: the incumbent,
    not proven, with the root bound."""
    from .ternary import improve  # numpy: only for instances with ternary clauses

    pl, pr, un = inst.pair_left.tolist(), inst.pair_right.tolist(), inst.unary.tolist()
    P = len(pl)
    terms: list = [(tuple(t[:-1]), float(t[-1])) for t in zip(
        inst.bin_p.tolist(), inst.bin_q.tolist(), inst.bin_w.tolist(), strict=True)]
    terms += [(tuple(t[:-1]), float(t[-1])) for t in zip(
        inst.tri_p.tolist(), inst.tri_q.tolist(), inst.tri_r.tolist(), inst.tri_w.tolist(),
        strict=True)]
    of_pair: list = [[] for _ in range(P)]
    for k, (ps, _) in enumerate(terms):
        for p in ps:
            of_pair[p].append(k)
    size = P + sum(len(x) for x in of_pair)
    if node_limit is None:
        node_limit = max(1, work_limit // max(1, size))
    cand: dict = {}
    for p in range(P):
        cand.setdefault(pl[p], []).append(p)
    lefts = sorted(cand)
    img: dict = {}  # decided left variable -> right variable, or -1 (unmapped)
    used: set = set()

    def value_of(chosen) -> float:
        on = set(chosen)
        return sum(un[p] for p in on) + sum(w for ps, w in terms if all(p in on for p in ps))

    def state(p) -> int:
        """1: pair on, 0: off (decided otherwise or its right taken), 2: undecided and free."""
        a = pl[p]
        if a in img:
            return 1 if img[a] == pr[p] else 0
        return 0 if pr[p] in used else 2

    def h(p) -> float:
        total = un[p]
        for k in of_pair[p]:
            ps, w = terms[k]
            st = [state(q) for q in ps]
            if 0 not in st:
                total += w / st.count(2)
        return total

    def bound(rest) -> float:
        on = [p for p in range(P) if pl[p] in img and img[pl[p]] == pr[p]]
        v = value_of(on)
        for a in rest:
            v += max([0.0] + [h(p) for p in cand[a] if pr[p] not in used])
        return v

    m0 = improve(inst, [tuple(r) for r in start] if len(start) else [])
    index = {(a, b): p for p, (a, b) in enumerate(zip(pl, pr, strict=True))}
    best_set = [index[(int(a), int(b))] for a, b in m0.tolist() if (int(a), int(b)) in index]
    best = value_of(best_set)
    nodes = 0
    aborted = False
    root = bound(lefts)

    def search(depth: int) -> None:
        nonlocal best, best_set, nodes, aborted
        if aborted:
            return
        nodes += 1
        if nodes > node_limit:
            aborted = True
            return
        rest = lefts[depth:]
        if int(bound(rest) + 1e-9) <= best:
            return
        if depth == len(lefts):
            on = [index[(a, b)] for a, b in img.items() if b >= 0 and (a, b) in index]
            v = value_of(on)
            if v > best:
                best, best_set = v, on
            return
        a = lefts[depth]
        opts = sorted((p for p in cand[a] if pr[p] not in used), key=lambda p: -h(p))
        for p in opts:
            img[a] = pr[p]
            used.add(pr[p])
            search(depth + 1)
            used.discard(pr[p])
            del img[a]
        img[a] = -1
        search(depth + 1)
        del img[a]

    if len(lefts) > BNB_MAX_DEPTH:  # the search recurses once per left variable
        aborted = True
    elif best < int(root + 1e-9):
        search(0)
    mapping = tuple(sorted((pl[p], pr[p]) for p in best_set))
    obj = count_matches(inst, mapping)
    if obj != best:
        raise AssertionError(f"branch and bound claimed {best}, its mapping counts {obj}")
    return BnbOutcome(mapping, obj, obj if not aborted else max(int(root + 1e-9), obj),
                      not aborted, nodes)
