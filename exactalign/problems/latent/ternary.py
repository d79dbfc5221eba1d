"""The ``exact`` method on instances with ternary terms (clause pairs needing three variable
pairs: DRS clauses ``(key, v1, v2, v3)``, the package docstring of
:mod:`exactalign.problems.latent`): :func:`solve_ternary_many`, which
:func:`~.exact.solve_exact_many` calls for such instances, and the improving moves on the
compiled form (:func:`improve`).

The same steps as :func:`~.exact._solve_batch`, on a simpler path sized for many small
instances (DRS pairs: 5-150 clauses): a batch of instances is one ILP (:func:`~.model.ilp_model`
with its ``z`` columns) whose LP relaxation is one HiGHS simplex call; the components
(:func:`component_labels3`: variables joined by pairs, pairs of pairs and triples of pairs) are
bounded by ``floor`` of their LP value recomputed from the duals
(:func:`~.lp_point.certified_lp_bound`); a component whose LP point is integral and reaches that
bound is proven. Any other gets an incumbent -- the assignment rounding of its LP point
(:func:`~.lp_point.round_point` without smatch's climb, which knows no ternary terms) improved by
:func:`improve` -- proven when it reaches the bound, else the component's MIP, warm-started
from it, within the time left (status, bound and gap as for Smatch instances). Not on this path:
column generation, PDLP and the Lagrangian tightening (:mod:`~.colgen`, :mod:`~.lagrange`:
they know only pairs of pairs); an LP that does not finish leaves every component of its batch
to its MIP, bounded by the sum of its weights."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from ...core.deadline import Deadline
from ...core.decompose import graph_labels
from ...core.errors import BackendError, VerificationError
from ...core.result import Result, Status, worst_status
from ...core.solve import SolveOptions, remaining, solve_model, verified_result
from .instance import LatentInstance, compiled_view
from .lp_point import BATCH_COLUMNS, INT_TOL, certified_lp_bound, round_point
from .model import check, decode_point, ilp_model, mapping_array, model_point

#: :func:`improve` stops after this many improving moves (each costs ``O(P (P + B + T))``).
IMPROVE_STEPS = 200


def columns(inst: LatentInstance) -> int:
    """The model columns of ``inst``: pairs, pairs of pairs, triples of pairs."""
    return inst.num_pairs + len(inst.bin_w) + len(inst.tri_w)


def _concat3(instances) -> tuple[LatentInstance, np.ndarray, np.ndarray]:
    """The disjoint union of ``instances`` with their triples of pairs (see
    :func:`~.exact._concat`), and the offsets of their left variables and of their pairs."""
    nl = np.array([i.n_left for i in instances], np.int64)
    nr = np.array([i.n_right for i in instances], np.int64)
    npairs = np.array([i.num_pairs for i in instances], np.int64)
    loff, roff, poff = (np.concatenate([[0], np.cumsum(a)]) for a in (nl, nr, npairs))
    if len(instances) == 1:
        return instances[0], loff, poff

    def cat(name, off=None, dtype=np.int64):
        return np.concatenate([getattr(i, name) + (0 if off is None else off[k])
                               for k, i in enumerate(instances)]).astype(dtype)

    arrays = dict(pair_left=cat("pair_left", loff), pair_right=cat("pair_right", roff),
                  unary=cat("unary", dtype=np.float64), bin_p=cat("bin_p", poff),
                  bin_q=cat("bin_q", poff), bin_w=cat("bin_w", dtype=np.float64),
                  tri_p=cat("tri_p", poff), tri_q=cat("tri_q", poff), tri_r=cat("tri_r", poff),
                  tri_w=cat("tri_w", dtype=np.float64))
    return compiled_view(int(loff[-1]), int(roff[-1]), arrays), loff, poff


def component_labels3(inst: LatentInstance) -> tuple[int, np.ndarray]:
    """``(count, label per useful pair)``: pairs joined through shared variables, pairs of pairs
    or triples of pairs are in one component (:func:`~.exact.component_labels` with the
    ternary terms)."""
    nl, nr, pl = inst.n_left, inst.n_right, inst.pair_left
    u = np.concatenate([pl, pl[inst.bin_p], pl[inst.tri_p], pl[inst.tri_p]])
    v = np.concatenate([nl + inst.pair_right, pl[inst.bin_q], pl[inst.tri_q], pl[inst.tri_r]])
    _, labels = graph_labels(nl + nr, u, v)
    used, pair_label = np.unique(labels[pl], return_inverse=True)
    return len(used), pair_label.astype(np.int64)


def _restrict3(inst: LatentInstance, pairs: np.ndarray) -> LatentInstance:
    """The view of ``inst`` on ``pairs`` (ascending), variables renumbered ``0..`` in order; a
    pair (triple) of pairs is kept when all its pairs are."""
    local = np.full(inst.num_pairs, -1, dtype=np.int64)
    local[pairs] = np.arange(len(pairs))
    bins = np.flatnonzero((local[inst.bin_p] >= 0) & (local[inst.bin_q] >= 0))
    tris = np.flatnonzero((local[inst.tri_p] >= 0) & (local[inst.tri_q] >= 0)
                          & (local[inst.tri_r] >= 0))
    lu, li = np.unique(inst.pair_left[pairs], return_inverse=True)
    ru, ri = np.unique(inst.pair_right[pairs], return_inverse=True)
    return compiled_view(len(lu), len(ru), dict(
        pair_left=li, pair_right=ri, unary=inst.unary[pairs], bin_p=local[inst.bin_p[bins]],
        bin_q=local[inst.bin_q[bins]], bin_w=inst.bin_w[bins], tri_p=local[inst.tri_p[tris]],
        tri_q=local[inst.tri_q[tris]], tri_r=local[inst.tri_r[tris]],
        tri_w=inst.tri_w[tris]))


def _values(inst: LatentInstance, img: np.ndarray) -> np.ndarray:
    """The objective of each row of ``img`` (``(c, n_left)``: each left variable's image, -1
    unmapped) from the compiled form."""
    on = img[:, inst.pair_left] == inst.pair_right
    val = on @ inst.unary
    if len(inst.bin_w):
        val = val + (on[:, inst.bin_p] & on[:, inst.bin_q]) @ inst.bin_w
    if len(inst.tri_w):
        val = val + (on[:, inst.tri_p] & on[:, inst.tri_q] & on[:, inst.tri_r]) @ inst.tri_w
    return val


def improve(inst: LatentInstance, mapping, deadline: Deadline | None = None,
            max_steps: int = IMPROVE_STEPS) -> np.ndarray:
    """``mapping`` improved by the best of smatch's kind of moves while one gains (ternary terms
    counted): for every useful pair ``(a, b)`` not used, map ``a`` to ``b`` -- the left variable
    ``a'`` that held ``b`` either loses it (a move) or takes ``a``'s old image (a swap). Every
    candidate of a step is scored at once (:func:`_values`). Stops after ``max_steps`` moves or
    at ``deadline``. Returns a mapping array."""
    img = np.full(inst.n_left, -1, dtype=np.int64)
    m = np.asarray(mapping, dtype=np.int64).reshape(-1, 2)
    img[m[:, 0]] = m[:, 1]
    cur = float(_values(inst, img[None])[0])
    pl, pr = inst.pair_left, inst.pair_right
    for _ in range(max_steps):
        if deadline is not None and deadline.expired():
            break
        cand = np.flatnonzero(img[pl] != pr)
        if not len(cand):
            break
        pre = np.full(inst.n_right, -1, dtype=np.int64)
        mapped = np.flatnonzero(img >= 0)
        pre[img[mapped]] = mapped
        a, b = pl[cand], pr[cand]
        a2, old = pre[b], img[a]  # who holds b, and a's old image
        rows = np.arange(len(cand))
        moves = np.repeat(img[None], len(cand), axis=0)
        held = a2 >= 0
        moves[rows[held], a2[held]] = -1
        moves[rows, a] = b
        swaps = moves.copy()
        both = held & (old >= 0)
        swaps[rows[both], a2[both]] = old[both]
        allm = np.concatenate([moves, swaps[both]])
        vals = _values(inst, allm)
        k = int(np.argmax(vals))
        if vals[k] <= cur + 1e-9:
            break
        img, cur = allm[k].copy(), float(vals[k])
    on = np.flatnonzero(img >= 0)
    return mapping_array(on, img[on])


def _every(inst: LatentInstance, label: np.ndarray, count: int) -> np.ndarray:
    """Per component, the sum of its weights (every term earned): a bound without an LP."""
    return (np.bincount(label, weights=inst.unary, minlength=count)
            + np.bincount(label[inst.bin_p], weights=inst.bin_w, minlength=count)
            + np.bincount(label[inst.tri_p], weights=inst.tri_w, minlength=count))


def _settle3(sub: LatentInstance, xp: np.ndarray, bound: float, linking: str,
             options: SolveOptions, backend: str, t0: float):
    """A component the LP did not settle: ``(mapping, objective, bound, status, how, nodes,
    fallback)`` (see the module docstring)."""
    deadline = Deadline(options.time_limit, t0)
    m = improve(sub, round_point(sub, xp, climb=False), deadline)
    obj = check(sub, m)
    if obj >= bound:
        return m, obj, bound, Status.OPTIMAL, "LP bound", 0, []
    left = remaining(options.time_limit, time.perf_counter() - t0)
    if left == 0.0:
        return m, obj, bound, Status.TIME_LIMIT, "time limit", 0, []
    model = ilp_model(sub, linking)
    res = verified_result(
        solve_model(model, backend, replace(options, warm_start=model_point(sub, m),
                                            time_limit=left)),
        model, decode=lambda z: decode_point(sub, z), check=lambda al: check(sub, al),
        method="exact", seed=options.seed)
    if res.alignment is not None and res.objective >= obj:
        m, obj = np.asarray(res.alignment, dtype=np.int64).reshape(-1, 2), res.objective
    if res.bound is not None:
        bound = min(bound, float(np.floor(res.bound + INT_TOL)))
    bound = max(bound, obj)
    status = Status.OPTIMAL if obj >= bound else (
        res.status if res.status is not Status.OPTIMAL else Status.FEASIBLE)
    return m, obj, bound, status, "MIP", res.nodes or 0, list(res.details.get("fallback", ()))


def _batch3(instances, options: SolveOptions, backend: str, linking: str) -> list[Result]:
    """The ``exact`` method on a batch of instances (the module docstring)."""
    t0 = time.perf_counter()
    big, loff, poff = _concat3(instances)
    owner = np.searchsorted(loff, big.pair_left, "right") - 1
    count, label = component_labels3(big)
    P = big.num_pairs
    model = ilp_model(big, linking)
    col_label = np.concatenate([label, label[big.bin_p], label[big.tri_p]])
    bound = np.floor(_every(big, label, count) + INT_TOL)
    x = np.zeros(model.num_vars)
    solved = False
    if model.num_vars:
        left = remaining(options.time_limit, time.perf_counter() - t0)
        lp = solve_model(model.relax(), "highs", replace(
            options, warm_start=None, time_limit=None if left is None else 0.75 * left))
        if lp.status is Status.OPTIMAL and lp.x is not None:
            x, solved = lp.x, True
            lp_val = np.bincount(col_label, weights=model.c * x, minlength=count)
            cert, _ = certified_lp_bound(model, lp, col_label, lp_val, count)
            bound = np.minimum(bound, np.floor(cert + INT_TOL))
        elif lp.status is not Status.TIME_LIMIT:
            raise BackendError(f"the LP relaxation was not solved: {lp.raw_status}")
    xp = x[:P]
    on = xp > 0.5
    val = np.bincount(label, weights=big.unary * on, minlength=count)
    val += np.bincount(label[big.bin_p], weights=big.bin_w * (on[big.bin_p] & on[big.bin_q]),
                       minlength=count)
    val += np.bincount(label[big.tri_p], minlength=count, weights=big.tri_w * (
        on[big.tri_p] & on[big.tri_q] & on[big.tri_r]))
    bad = val < bound
    bad[label[np.abs(xp - np.round(xp)) > 1e-7]] = True
    how = np.where(np.bincount(col_label[P:], minlength=count) > 0, "LP integral",
                   "assignment").astype(object)
    status = np.full(count, Status.OPTIMAL, dtype=object)
    nodes = np.zeros(count, dtype=np.int64)
    fallback: dict[int, list] = {}
    for k in np.flatnonzero(bad):
        pairs = np.flatnonzero(label == k)
        sub = _restrict3(big, pairs)
        m, obj, b, st, hw, nd, fb = _settle3(sub, xp[pairs], float(bound[k]), linking,
                                             options, backend, t0)
        if fb:
            fallback[int(k)] = fb
        on[pairs] = False
        idx = sub.pair_index(m)
        on[pairs[idx[idx >= 0]]] = True
        bound[k], status[k], how[k], nodes[k] = b, st, hw, nd
    total = time.perf_counter() - t0
    comp_owner = np.zeros(count, dtype=np.int64)
    comp_owner[label] = owner
    sizes = np.array([columns(i) for i in instances], np.float64)
    share = sizes / sizes.sum() if sizes.sum() else np.zeros(len(instances))
    results = []
    for n, inst in enumerate(instances):
        sel = np.flatnonzero(on[poff[n]:poff[n + 1]])
        m = mapping_array(inst.pair_left[sel], inst.pair_right[sel])
        obj = check(inst, m)
        comps = np.flatnonzero(comp_owner == n)
        st = worst_status(status[comps]) if len(comps) else Status.OPTIMAL
        b = float(bound[comps].sum())
        if st is Status.OPTIMAL and obj < b:
            raise VerificationError(f"instance {n}: components proven optimal sum to {b} but "
                                    f"the mapping scores {obj}")
        proven_by: dict = {}
        for h in how[comps]:
            proven_by[str(h)] = proven_by.get(str(h), 0) + 1
        details: dict = {"proven_by": proven_by, "ternary": True}
        if not solved and model.num_vars:
            details["stopped"] = "LP time limit (bound: every term's weight)"
        failed = [a for c in comps for a in fallback.get(int(c), ())]
        if failed:
            details["fallback"] = failed
        solver = backend if "MIP" in proven_by else "highs" if model.num_vars else None
        results.append(Result(st, obj, max(b, obj), m, "exact", float(total * share[n]),
                              nodes=int(nodes[comps].sum()), backend=solver,
                              components=len(comps), details=details))
    return results


def solve_ternary_many(instances, *, options: SolveOptions | None = None,
                       backend: str = "highs", linking: str = "aggregated") -> list[Result]:
    """The ``exact`` method for instances with ternary terms (any instance, in fact): batches of
    about :data:`~.exact.BATCH_COLUMNS` model columns, each :func:`_batch3`. One verified
    :class:`Result` per instance (``details["ternary"]``: this path)."""
    options = options or SolveOptions()
    t0 = time.perf_counter()
    instances = list(instances)
    out: list[Result] = []
    start, cols = 0, 0
    for k, inst in enumerate(instances):
        cols += columns(inst)
        if cols >= BATCH_COLUMNS or k == len(instances) - 1:
            opts = replace(options, time_limit=remaining(options.time_limit,
                                                         time.perf_counter() - t0))
            out += _batch3(instances[start:k + 1], opts, backend, linking)
            start, cols = k + 1, 0
    return out
