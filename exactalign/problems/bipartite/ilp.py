"""The ILP of bipartite matching (:func:`ilp_model`), its LP bound (:func:`lp_bound`) and its
solve per connected component, warm-started from the greedy alignment (:func:`solve_ilp`,
``solve(..., "ilp")``)."""

from __future__ import annotations

import time

import numpy as np

from ...core.decompose import bipartite_components
from ...core.model import binary_model
from ...core.result import Result, Status, worst_status
from ...core.solve import remaining, solve_model, verified_result
from ...core.sparse import Csr
from .heuristics import greedy
from .instance import BipartiteInstance, alignment_from_edges, check, trivial_bound


# --------------------------------------------------------------------------------------------
# exact: ILP
# --------------------------------------------------------------------------------------------
def ilp_model(inst: BipartiteInstance):
    """The ILP: one binary per candidate pair, one ``<= 1`` row per capacity-1 item that has two
    or more candidates (a single candidate is already bounded by the variable's bound)."""
    E = inst.num_pairs
    ref_cap, pred_cap = inst.caps
    blocks = []
    if ref_cap is not None:
        blocks.append((inst.rows, inst.n_ref))
    if pred_cap is not None:
        blocks.append((inst.cols, inst.n_pred))
    row_ids, offset = [], 0
    for ids, n in blocks:
        deg = np.bincount(ids, minlength=n)
        keep = deg >= 2
        new_id = np.cumsum(keep) - 1 + offset
        sel = keep[ids]
        row_ids.append((new_id[ids[sel]], np.flatnonzero(sel)))
        offset += int(keep.sum())
    if row_ids:
        r = np.concatenate([x[0] for x in row_ids])
        c = np.concatenate([x[1] for x in row_ids])
    else:
        r = c = np.zeros(0, dtype=np.int64)
    A = Csr.from_coo(r, c, np.ones(len(r)), (offset, E))
    return binary_model(inst.weights, A, np.full(offset, -np.inf), np.ones(offset),
                        name=f"bipartite {inst.kind} {inst.n_ref}x{inst.n_pred}")


def pair_names(inst: BipartiteInstance) -> list[str]:
    """Readable variable names ``x[r3,p7]`` for :func:`exactalign.backends.highs.write_lp_file` debugging."""
    return [f"x[r{r},p{c}]" for r, c in zip(inst.rows.tolist(), inst.cols.tolist(), strict=True)]


def lp_bound(inst: BipartiteInstance, backend: str = "highs") -> float:
    """Optimal value of the LP relaxation: an upper bound on every alignment."""
    if inst.num_pairs == 0:
        return 0.0
    out = solve_model(ilp_model(inst).relax(), backend)
    if out.status is not Status.OPTIMAL:
        raise RuntimeError(f"LP relaxation not solved: {out.raw_status}")
    return float(out.objective)


def _components(inst: BipartiteInstance, decompose: bool):
    """Yield ``(refs, preds, edges)`` of every component with at least one candidate pair."""
    if not decompose:
        if inst.num_pairs:
            yield np.arange(inst.n_ref), np.arange(inst.n_pred), np.arange(inst.num_pairs)
        return
    comps = bipartite_components(inst.n_ref, inst.n_pred, inst.rows, inst.cols)
    for k in np.flatnonzero(comps.sizes()[2] > 0):
        yield comps.members(int(k))


def solve_ilp(inst, backend, options, decompose, warm_start, t0) -> Result:
    from dataclasses import replace

    edge_parts, statuses, objs, bounds, nodes = [], [], [], [], []
    version = None
    ncomp = 0
    raw = set()
    used, fallback = set(), []  # backends that answered; routes that failed verification
    presolve = True  # False when some component's answer was computed with presolve off
    for refs, preds, edges in _components(inst, decompose):
        ncomp += 1
        sub = inst._restrict(refs, preds, edges)
        model = ilp_model(sub)
        start = greedy(sub) if warm_start else None
        opts = replace(options, time_limit=remaining(options.time_limit,
                                                     time.perf_counter() - t0))
        if start is not None:
            x0 = np.zeros(sub.num_pairs)
            x0[sub.pair_index(start)] = 1.0
            opts = replace(opts, warm_start=x0)
        if opts.time_limit == 0.0 and start is not None:
            # Budget exhausted: keep the warm start, bound it without solving.
            res = Result(Status.TIME_LIMIT, check(sub, start), trivial_bound(sub), start,
                         "ilp", 0.0, backend=backend)
        else:
            out = solve_model(model, backend, opts)
            res = verified_result(
                out, model,
                decode=lambda x, s=sub: alignment_from_edges(s, np.flatnonzero(x > 0.5)),
                check=lambda al, s=sub: check(s, al), method="ilp", seed=options.seed)
            version = out.solver_version
            raw.add(out.raw_status)
            used.add(out.backend)
            fallback.extend(res.details.get("fallback", ()))
            presolve = presolve and out.presolve
            if res.alignment is None and start is not None:
                # No incumbent from the solver (e.g. time limit before any): keep the start.
                res = Result(res.status, check(sub, start),
                             res.bound if res.bound is not None else trivial_bound(sub),
                             start, "ilp", res.wall_time, backend=backend)
        if res.alignment is None:
            statuses.append(res.status)
            objs.append(np.nan)
            bounds.append(res.bound if res.bound is not None else trivial_bound(sub))
            continue
        al = np.asarray(res.alignment, dtype=np.int64).reshape(-1, 2)
        edge_parts.append(edges[sub.pair_index(al)])
        statuses.append(res.status)
        objs.append(res.objective)
        bounds.append(res.bound if res.bound is not None else trivial_bound(sub))
        nodes.append(res.nodes or 0)
    status = worst_status(statuses) if statuses else Status.OPTIMAL
    edges = np.concatenate(edge_parts) if edge_parts else np.zeros(0, dtype=np.int64)
    al = alignment_from_edges(inst, edges)
    obj = check(inst, al)
    if status in (Status.INFEASIBLE, Status.ERROR):
        obj_out, al_out = None, None
    else:
        obj_out, al_out = obj, al
    bound = float(np.sum(bounds)) if bounds else 0.0
    if status is Status.OPTIMAL:
        bound = max(bound, obj)
    details = {"raw_status": sorted(raw)}
    if fallback:
        details["fallback"] = fallback
    if not presolve:
        details["presolve"] = False
    return Result(status, obj_out, bound, al_out, "ilp", time.perf_counter() - t0,
                  nodes=int(np.sum(nodes)) if nodes else 0,
                  backend="+".join(sorted(used)) if used else backend,
                  seed=options.seed, solver_version=version, components=ncomp,
                  details=details)
