"""Every method by name, verified: :func:`solve` (one instance) and :func:`solve_many` (a
corpus, the exact and greedy paths batched into one block-diagonal instance)."""

from __future__ import annotations

import time

import numpy as np

from ...core.arrays import frozen as _frozen
from ...core.errors import VerificationError
from ...core.result import Result, Status, close
from ...core.solve import SolveOptions
from .assignment import (
    GREEDY_ROUNDS,
    block_distances,
    certify,
    dual_bound,
    duals,
    exact_special,
    improvable,
    residual_distances,
)
from .heuristics import HEURISTICS, brute_force, greedy
from .ilp import solve_ilp
from .instance import BipartiteInstance, alignment_from_edges, check

# --------------------------------------------------------------------------------------------
# solve: any method by name, verified
# --------------------------------------------------------------------------------------------
EXACT_METHODS = ("exact", "ilp", "brute")
METHODS = EXACT_METHODS + tuple(HEURISTICS)


def solve(inst: BipartiteInstance, method: str = "exact", *, backend: str = "highs",
          time_limit: float | None = None, mip_rel_gap: float = 0.0, threads: int = 1,
          seed: int = 0, decompose: bool = True, warm_start: bool = True,
          certify_exact: bool = True) -> Result:
    """Solve ``inst`` with ``method`` and return a verified :class:`Result`.

    ``exact``    1:1: the :func:`greedy` alignment when its own dual certificate (the
                 residual pass of :func:`certify`, without the fallback) proves it optimal
                 (``details["algorithm"] == "certified greedy"``), else the special paths of
                 :func:`exact_special` on the whole instance (one subproblem: ``decompose``
                 is the ILP's), proven by a dual certificate (:func:`certify`; its bound is
                 the result's ``bound``, and an alignment it does not prove optimal raises
                 ``VerificationError``). The greedy start is why a corpus of documents whose
                 greedy alignments are optimal needs no assignment solver, nor scipy's import
                 (measured on the 1,500-document nugget corpus of ``performance``: 0.4 s of
                 1.5 s). ``certify_exact=False`` skips the certificate of the assignment path
                 (about 20% faster on large 1:1 instances) and rests the proof on the
                 algorithm alone (``details["proof"] == "algorithm"``).
    ``ilp``      the ILP of :func:`ilp_model` through ``backend``, per connected component,
                 warm-started from the greedy alignment; ``time_limit`` is an overall budget:
                 a component reached after it ran out keeps its warm start and a trivial bound.
    ``brute``    :func:`brute_force` (tiny instances only).
    heuristic    any name in :data:`HEURISTICS` (status FEASIBLE, no bound).

    Every alignment is re-verified with :func:`check`; the objective is recomputed from it."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} for bipartite matching; choose one of "
                         + ", ".join(METHODS))
    t0 = time.perf_counter()
    if method in HEURISTICS:
        al = HEURISTICS[method](inst)
        obj = check(inst, al)
        return Result(Status.FEASIBLE, obj, None, al, method, time.perf_counter() - t0,
                      backend=None, seed=None)
    if method == "brute":
        val, al = brute_force(inst)
        obj = check(inst, al)
        return Result(Status.OPTIMAL, obj, obj, al, method, time.perf_counter() - t0,
                      backend=None, nodes=None)
    if method == "exact":
        return _solve_exact(inst, certify_exact, t0)
    options = SolveOptions(time_limit=time_limit, mip_rel_gap=mip_rel_gap, threads=threads,
                           seed=seed)
    return solve_ilp(inst, backend, options, decompose, warm_start, t0)


#: The options of :func:`solve` only its ``ilp`` method reads.
_ILP_ONLY = ("backend", "time_limit", "mip_rel_gap", "threads", "seed", "warm_start")


def solve_many(instances, method: str = "exact", **options) -> list[Result]:
    """:func:`solve` of every instance of ``instances``, the same results -- with ``exact`` on
    1:1 instances in one solve: a corpus of documents, each its own small instance, costs one
    block-diagonal instance (document ``k``'s items after those of documents ``0 .. k-1``)
    instead of a solver set-up per document.

    The exact path decides each instance as :func:`solve` does, so every document gets the
    alignment its own solve returns: the greedy alignments of all (one :func:`greedy` pass
    on the whole: a pair's fate depends only on its own block) get one residual pass with a
    source and sink per block (:func:`block_distances`: each block's pass is the one its
    own :func:`certify` runs, same rounds and tolerance); the blocks it proves keep them, with
    their duals as the certificate, and the others take their own :func:`exact_special` and
    :func:`certify`. The block-diagonal alignment is re-verified (:func:`check`) once; each
    document's objective is the sum of its pairs' weights, and its bound that of its duals.
    ``greedy`` (v1.8's mapping) batches the same way: it takes pairs in :func:`_score_order`
    (weight, then predicted and reference index, an order the offsets keep within each
    block), and a pair's fate depends only on the pairs of its own block taken before it. The
    ILP's options (``backend``, ``time_limit``, ``seed``...) are ignored there, as
    :func:`solve` ignores them. Every other method, and any option :func:`solve` takes
    besides ``certify_exact``, falls back to one :func:`solve` per instance.

    >>> a = BipartiteInstance.from_dense([[0.9, 0.2], [0.8, 0.0]])
    >>> b = BipartiteInstance.from_dense([[0.5]])
    >>> [r.objective for r in solve_many([a, b])] == [solve(a).objective, solve(b).objective]
    True
    """
    instances = list(instances)
    certify_exact = options.pop("certify_exact", True)
    # what only the ILP reads (solve ignores it for exact and greedy)
    ilp_only = {k: options.pop(k) for k in _ILP_ONLY if k in options}
    if (method not in ("exact", "greedy") or options or len(instances) < 2
            or any(i.kind != "1:1" for i in instances)):
        return [solve(i, method, certify_exact=certify_exact, **ilp_only, **options)
                for i in instances]
    t0 = time.perf_counter()
    n_ref = np.array([i.n_ref for i in instances], dtype=np.int64)
    n_pred = np.array([i.n_pred for i in instances], dtype=np.int64)
    r_off = np.concatenate([[0], np.cumsum(n_ref)])
    p_off = np.concatenate([[0], np.cumsum(n_pred)])
    sizes = np.array([i.num_pairs for i in instances], dtype=np.int64)
    doc_of_pair = np.repeat(np.arange(len(instances)), sizes)
    big = object.__new__(BipartiteInstance)  # canonical by construction: blocks in order
    for name, value in (("n_ref", int(r_off[-1])), ("n_pred", int(p_off[-1])),
                        ("rows", _frozen(np.concatenate([i.rows for i in instances]
                                                        + [np.zeros(0, np.int64)])
                                         + r_off[doc_of_pair])),
                        ("cols", _frozen(np.concatenate([i.cols for i in instances]
                                                        + [np.zeros(0, np.int64)])
                                         + p_off[doc_of_pair])),
                        ("weights", _frozen(np.concatenate([i.weights for i in instances]
                                                           + [np.zeros(0)]))),
                        ("kind", "1:1")):
        object.__setattr__(big, name, value)
    al = np.asarray(greedy(big), dtype=np.int64).reshape(-1, 2)
    check(big, al)  # re-verified: feasible, every pair a candidate
    idx = big.pair_index(al)
    doc_of_al = doc_of_pair[idx]
    starts = np.searchsorted(doc_of_al, np.arange(len(instances) + 1))
    parts = [al[starts[k]:starts[k + 1]] - (r_off[k], p_off[k]) for k in range(len(instances))]
    w_al = big.weights[idx]  # each instance's objective summed as check sums it
    obj = [float(w_al[starts[k]:starts[k + 1]].sum()) for k in range(len(instances))]
    if method == "greedy":
        wall = (time.perf_counter() - t0) / len(instances)
        return [Result(Status.FEASIBLE, obj[k], None, _frozen(parts[k]), method, wall,
                       backend=None, seed=None) for k in range(len(instances))]
    ref_block = np.repeat(np.arange(len(instances)), n_ref)
    pred_block = np.repeat(np.arange(len(instances)), n_pred)
    # each block's own limit, as residual_distances(inst, al, GREEDY_ROUNDS) sets it
    limits = np.minimum(n_ref + n_pred + 3, GREEDY_ROUNDS)
    # a block a local exchange improves gets no rounds (as its own solve runs none)
    limits[improvable(big, al, ref_block, len(instances))] = 0
    d, settled = block_distances(big, al, ref_block, pred_block, limits)
    u, v = duals(big, d, ref_block, pred_block, len(instances))
    slack = np.maximum(0.0, big.weights - u[big.rows] - v[big.cols])
    bounds = (np.bincount(ref_block, weights=u, minlength=len(instances))
              + np.bincount(pred_block, weights=v, minlength=len(instances))
              + np.bincount(doc_of_pair, weights=slack, minlength=len(instances)))
    wall = (time.perf_counter() - t0) / len(instances)
    out = []
    for k, inst in enumerate(instances):
        if not sizes[k]:
            out.append(_solve_exact(inst, certify_exact, time.perf_counter()))
        elif settled[k]:
            out.append(_proven_greedy(obj[k], float(bounds[k]),
                                      _frozen(parts[k]), wall))
        else:  # greedy not proven: the instance's own assignment and certificate
            out.append(_solve_exact_assignment(inst, certify_exact, time.perf_counter()))
    return out


def _solve_exact(inst: BipartiteInstance, certify_exact: bool, t0: float) -> Result:
    if inst.kind == "1:1" and inst.num_pairs:
        al = greedy(inst)
        d = None if improvable(inst, al)[0] else residual_distances(inst, al, GREEDY_ROUNDS)
        if d is not None:  # the greedy alignment, proven optimal by its own certificate
            obj = check(inst, al)
            u, v = duals(inst, d)
            return _proven_greedy(obj, dual_bound(inst, u, v), al, time.perf_counter() - t0)
    return _solve_exact_assignment(inst, certify_exact, t0)


def _solve_exact_assignment(inst: BipartiteInstance, certify_exact: bool, t0: float) -> Result:
    """:func:`exact_special`'s alignment, re-verified, and certified unless told not to."""
    special = "assignment" if inst.kind == "1:1" else "closed-form"
    edges = exact_special(inst)
    ncomp = int(inst.num_pairs > 0)
    al = alignment_from_edges(inst, edges)
    obj = check(inst, al)
    bound, proof = obj, "algorithm"
    if certify_exact:
        bound, proof = certify(inst, al).bound, "dual certificate"
        if not close(bound, obj):
            raise VerificationError(
                f"the {special} path returned an alignment of weight {obj!r} that its dual "
                f"certificate does not prove optimal (bound {bound!r})")
        bound = max(bound, obj)
    return Result(Status.OPTIMAL, obj, bound, al, "exact", time.perf_counter() - t0,
                  backend=None, components=ncomp,
                  details={"algorithm": special, "proof": proof})


def _proven_greedy(obj: float, bound: float, al: np.ndarray, wall: float) -> Result:
    """The result of a 1:1 instance whose :func:`greedy` alignment its dual certificate proves
    optimal (see :func:`solve`)."""
    if not close(bound, obj):  # cannot happen: settled distances give tight duals
        raise VerificationError(f"the certificate of the greedy alignment (weight {obj!r}) "
                                f"bounds it by {bound!r}")
    return Result(Status.OPTIMAL, obj, max(bound, obj), al, "exact", wall, backend=None,
                  components=1, details={"algorithm": "certified greedy",
                                         "proof": "dual certificate"})
