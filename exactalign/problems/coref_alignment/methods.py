"""Solving, verified: :func:`solve` (one MILP when F1 is linear in the numerators, else the
outer approximation) with every answer re-checked against :func:`evaluate`."""

from __future__ import annotations

import time

import numpy as np

from ...core.errors import VerificationError
from ...core.model import MAXIMIZE
from ...core.result import Result, Status, close
from ...core.solve import SolveOptions, remaining, route_details, solve_model
from .evaluation import check_alignment, evaluate, f1_of
from .heuristics import HEURISTICS, brute_force, stagewise
from .instance import METRICS, MentionAlignmentInstance, as_alignment
from .model import Formulation, decode, formulation, linear_objective, master

#: Relative tolerance on ``g = pd/u + rd/v`` at which the outer approximation stops.
OA_TOL = 1e-9
#: Most MILPs one outer approximation solves (each adds a tangent; far more than ever needed).
OA_MAX_ITER = 200


# --------------------------------------------------------------------------------------------
# solving
# --------------------------------------------------------------------------------------------
def _verify(inst, f: Formulation, xs: np.ndarray, alignment) -> tuple[float, ...]:
    """The recomputed counts of ``alignment``, after checking the model's numerators at
    ``xs`` against them."""
    counts = evaluate(inst, alignment, f.metric)
    u = float(f.pu @ xs[: f.builder.n])
    v = float(f.rv @ xs[: f.builder.n])
    if not (close(u, counts[0]) and close(v, counts[2])):
        raise VerificationError(
            f"coref alignment ({f.metric}): the model's numerators ({u!r}, {v!r}) differ from "
            f"the metric recomputed on its alignment ({counts[0]!r}, {counts[2]!r})")
    return counts


def solve(inst: MentionAlignmentInstance, metric: str = "ceafe", method: str = "exact", *,
          backend: str = "highs", time_limit: float | None = None, threads: int = 1,
          seed: int = 0, warm_start=None) -> Result:
    """The alignment maximising ``metric``'s F1, by ``method``:

    ``exact``/``ilp``  the model of the module docstring through ``backend`` (one MILP, or the
                       outer approximation's sequence), warm-started from ``warm_start`` (an
                       alignment, e.g. a heuristic's) or from :func:`stagewise`;
                       ``time_limit`` bounds the whole solve: the result is then the best
                       alignment met with a valid bound (status TIME_LIMIT);
    ``brute``          :func:`brute_force`;
    ``stagewise``      the similarity heuristic (status FEASIBLE, no bound).

    ``objective`` is the F1 recomputed from the alignment; ``details`` hold ``counts``
    (precision num/den, recall num/den), ``iterations`` (MILPs solved) and ``metric``."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose from " + ", ".join(METRICS))
    t0 = time.perf_counter()
    if method in HEURISTICS:
        al = HEURISTICS[method](inst)
        counts = evaluate(inst, al, metric)
        return Result(Status.FEASIBLE, f1_of(counts), None, al, method,
                      time.perf_counter() - t0, details={"counts": counts, "metric": metric})
    if method == "brute":
        val, al = brute_force(inst, metric)
        counts = evaluate(inst, al, metric)
        return Result(Status.OPTIMAL, f1_of(counts), f1_of(counts), al, method,
                      time.perf_counter() - t0, details={"counts": counts, "metric": metric})
    if method not in ("exact", "ilp"):
        raise ValueError(f"unknown method {method!r}; choose one of " + ", ".join(METHODS))
    start = as_alignment([]) if warm_start is None else check_alignment(inst, warm_start)
    if warm_start is None and inst.num_pairs:
        start = stagewise(inst)
    options = SolveOptions(time_limit=time_limit, threads=threads, seed=seed)
    f = formulation(inst, metric)
    start_counts = evaluate(inst, start, metric)
    lam = f.proportional
    if f.pd <= 0 or f.rd <= 0 or not (f.pu.any() and f.rv.any()) or not inst.num_pairs:
        # F1 is 0 (or the same) for every alignment: nothing to choose
        v = f1_of(start_counts)
        return Result(Status.OPTIMAL, v, v, start, method, time.perf_counter() - t0,
                      backend=None, details={"counts": start_counts, "metric": metric,
                                             "iterations": 0, "form": "constant"})
    if lam is not None:
        return _solve_linear(inst, f, lam, start, backend, options, method, t0)
    return _solve_oa(inst, f, start, start_counts, backend, options, method, t0)


def _solve_linear(inst, f, lam, start, backend, options, method, t0) -> Result:
    from dataclasses import replace

    model = f.model(linear_objective(f, lam), MAXIMIZE)
    out = solve_model(model, backend, replace(options, warm_start=f.lift(start)))
    details = {"metric": f.metric, "iterations": 1, "form": "linear",
               "raw_status": out.raw_status, **route_details(out)}
    if out.x is None:   # stopped before the warm start was read: keep it, bound F1 <= 1
        counts = evaluate(inst, start, f.metric)
        return Result(Status.TIME_LIMIT if out.status is Status.TIME_LIMIT else Status.ERROR,
                      f1_of(counts), 1.0 if out.bound is None else max(out.bound,
                                                                       f1_of(counts)),
                      start, method, time.perf_counter() - t0, out.nodes, out.backend,
                      options.seed, out.solver_version, details={**details, "counts": counts})
    al = decode(inst, out.x)
    counts = _verify(inst, f, out.x, al)
    obj = f1_of(counts)
    if not close(obj, model.objective_value(out.x)):
        raise VerificationError(f"coref alignment ({f.metric}): F1 {obj!r} recomputed, the "
                                f"model says {model.objective_value(out.x)!r}")
    bound = 1.0 if out.bound is None else min(float(out.bound), 1.0)
    if bound < obj - 1e-6 * max(1.0, obj):
        raise VerificationError(f"coref alignment ({f.metric}): bound {bound!r} below the "
                                f"alignment's F1 {obj!r}")
    bound = max(bound, obj)
    status = out.status
    if status is Status.OPTIMAL and not close(obj, bound):
        status = Status.FEASIBLE
    return Result(status, obj, bound, al, method, time.perf_counter() - t0, out.nodes,
                  out.backend, options.seed, out.solver_version,
                  details={**details, "counts": counts})


def _g(f: Formulation, counts) -> float:
    if counts[0] <= 0 or counts[2] <= 0:
        return np.inf
    return f.pd / counts[0] + f.rd / counts[2]


def _solve_oa(inst, f, start, start_counts, backend, options, method, t0) -> Result:
    from dataclasses import replace

    best, best_counts = start, start_counts
    best_g = _g(f, best_counts)
    tu: list[float] = []
    tv: list[float] = []
    if np.isfinite(best_g):
        tu.append(best_counts[0])
        tv.append(best_counts[2])
    else:
        tu.append(f.delta_u)
        tv.append(f.delta_v)
    lower, nodes, status, iterations = 0.0, 0, Status.OPTIMAL, 0
    last = None
    while True:
        new_u = new_v = False
        limit = remaining(options.time_limit, time.perf_counter() - t0)
        if (limit is not None and limit <= 0) or iterations >= OA_MAX_ITER:
            status = Status.TIME_LIMIT if iterations < OA_MAX_ITER else Status.FEASIBLE
            break
        model = master(f, tu, tv)
        warm = None
        if np.isfinite(best_g):
            warm = np.concatenate([f.lift(best), [f.pd / best_counts[0],
                                                  f.rd / best_counts[2]]])
        out = solve_model(model, backend, replace(options, time_limit=limit, warm_start=warm))
        iterations += 1
        last = out
        nodes += out.nodes or 0
        if out.status is Status.INFEASIBLE:
            # no alignment has both numerators positive: F1 is 0 for every one
            lower = np.inf
            break
        if out.bound is not None:
            lower = max(lower, float(out.bound))
        if out.x is not None:
            al = decode(inst, out.x)
            counts = _verify(inst, f, out.x, al)
            g = _g(f, counts)
            if g < best_g and (not np.isfinite(best_g)
                               or g < best_g - 1e-12 * max(1.0, best_g)):
                best, best_counts, best_g = al, counts, g
            if counts[0] > 0 and counts[2] > 0:
                new_u = not any(close(counts[0], t, 1e-12) for t in tu)
                new_v = not any(close(counts[2], t, 1e-12) for t in tv)
                if new_u:
                    tu.append(counts[0])
                if new_v:
                    tv.append(counts[2])
        if out.status is not Status.OPTIMAL:
            status = Status.TIME_LIMIT if out.status is Status.TIME_LIMIT else out.status
            break
        if best_g - lower <= OA_TOL * max(1.0, best_g):
            break
        if out.x is None or not (new_u or new_v):
            # the iterate satisfies its own tangents: the MILP's bound is g at the iterate up
            # to the solver's tolerances (module docstring)
            if not close(best_g, lower):  # pragma: no cover
                status = Status.FEASIBLE
            break
    obj = f1_of(best_counts)
    if lower == np.inf:
        bound = obj
    elif lower > 0:
        bound = max(obj, 2.0 / lower)
    else:
        bound = None
    if bound is None:
        bound = 1.0     # F1 never exceeds 1: the one bound known without a solve
    if status is Status.OPTIMAL and not close(obj, bound):
        status = Status.FEASIBLE
    if status is Status.OPTIMAL:
        bound = obj
    details = {"metric": f.metric, "iterations": iterations, "form": "outer-approximation",
               "counts": best_counts, "g_lower": float(lower)}
    if last is not None:
        details.update(route_details(last))
        details["raw_status"] = last.raw_status
    return Result(status, obj, bound, best, method, time.perf_counter() - t0, nodes,
                  last.backend if last else None, options.seed,
                  last.solver_version if last else None, details=details)


# --------------------------------------------------------------------------------------------


METHODS = ("exact", "ilp", "brute", *HEURISTICS)
