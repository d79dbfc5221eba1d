"""CBC through PuLP (the ``cbc`` binary that ships inside the PuLP wheel).

PuLP's own status says "Optimal" after CBC stops on a time limit with a solution, so it is never
used on its own: we read PuLP's *solution* status (optimal vs. integer-feasible) and CBC's log
(result line, best bound, node count). The bound is parsed from CBC's summary; when CBC does not
print one, the result carries no bound (and so cannot be OPTIMAL unless CBC proved optimality).
Building a PuLP problem is a Python loop per variable: this backend is a cross-check, not the
fast path. PuLP 3.3 deprecates ``PULP_CBC_CMD`` and direct ``LpVariable`` construction ahead of
4.0, which stops bundling CBC: ``pyproject.toml`` pins ``pulp<4`` until this backend moves to
``COIN_CMD`` with the ``pulp[cbc]`` extra; the deprecation warnings are silenced here only."""

from __future__ import annotations

import os
import re
import tempfile
import time
import warnings

import numpy as np

from ..core.model import LinearModel
from ..core.outcome import BackendOutcome, SolveOptions, finalize_status
from ..core.result import Status

NAME = "pulp"

_RESULT = re.compile(r"^Result - (.*)$", re.M)
_BOUND = re.compile(r"^(?:Lower|Upper) bound:\s*(\S+)", re.M)
_NODES = re.compile(r"^Enumerated nodes:\s*(\d+)", re.M)
_OBJ = re.compile(r"^Objective value:\s*(\S+)", re.M)


def _to_pulp(model: LinearModel):
    import pulp

    prob = pulp.LpProblem(model.name.replace(" ", "_") or "model",
                          pulp.LpMaximize if model.maximize else pulp.LpMinimize)

    def b(v):
        return None if not np.isfinite(v) else float(v)

    xs = [
        pulp.LpVariable(f"x{j}", lowBound=b(model.col_lo[j]), upBound=b(model.col_hi[j]),
                        cat=pulp.LpInteger if model.integrality[j] else pulp.LpContinuous)
        for j in range(model.num_vars)
    ]
    prob += pulp.LpAffineExpression(
        [(xs[j], float(model.c[j])) for j in np.flatnonzero(model.c)], constant=model.offset)
    A = model.A
    for i in range(model.num_rows):
        lo, hi = model.row_lo[i], model.row_hi[i]
        sl = slice(A.indptr[i], A.indptr[i + 1])
        expr = pulp.LpAffineExpression(
            [(xs[j], float(v)) for j, v in zip(A.indices[sl], A.data[sl], strict=True)])
        if lo == hi:
            prob += expr == float(lo), f"r{i}"
            continue
        if np.isfinite(lo):
            prob += expr >= float(lo), f"r{i}_lo"
        if np.isfinite(hi):
            prob += expr <= float(hi), f"r{i}_hi"
    return prob, xs


def solve(model: LinearModel, options: SolveOptions) -> BackendOutcome:

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return _solve(model, options, t0)


def _solve(model: LinearModel, options: SolveOptions, t0: float) -> BackendOutcome:
    import pulp

    prob, xs = _to_pulp(model)
    warm = options.warm_start is not None and model.is_mip
    if warm:
        for xv, v in zip(xs, np.asarray(options.warm_start, dtype=float), strict=True):
            xv.setInitialValue(round(v) if xv.cat == pulp.LpInteger else v)
    with tempfile.TemporaryDirectory(prefix="exactalign-cbc-") as tmp:
        log = os.path.join(tmp, "cbc.log")
        solver = pulp.PULP_CBC_CMD(
            msg=bool(options.verbose), timeLimit=options.time_limit,
            gapRel=float(options.mip_rel_gap), gapAbs=1e-9, threads=int(options.threads),
            presolve=bool(options.presolve),
            warmStart=warm, logPath=log, options=[f"randomCbcSeed {int(options.seed) + 1}"],
        )
        try:
            prob.solve(solver)
        except pulp.PulpSolverError as exc:
            return BackendOutcome(Status.ERROR, None, None, None, None,
                                  time.perf_counter() - t0, NAME, _version(), str(exc))
        text = open(log, encoding="utf-8", errors="replace").read() if os.path.exists(log) else ""
    wall = time.perf_counter() - t0
    result_line = (_RESULT.search(text).group(1).strip() if _RESULT.search(text) else "")
    nodes = int(_NODES.search(text).group(1)) if _NODES.search(text) else None
    sol = prob.sol_status
    x = None
    obj = None
    if sol in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        x = np.array([v.varValue if v.varValue is not None else 0.0 for v in xs], dtype=float)
        obj = float(model.c @ x + model.offset)
    time_limited = "time" in result_line.lower()
    bound = None
    if sol == pulp.LpSolutionOptimal and not time_limited and obj is not None:
        bound = obj  # CBC proved optimality (its gap options are ours: 0 unless asked)
        if options.mip_rel_gap > 0:
            m = _BOUND.search(text)
            bound = float(m.group(1)) if m else None
    elif obj is not None:
        m = _BOUND.search(text)
        if m:
            try:
                bound = float(m.group(1))
            except ValueError:
                bound = None
    raw = f"{pulp.LpStatus.get(prob.status, prob.status)} / " \
          f"{pulp.LpSolution.get(sol, sol)}" + (f" / {result_line}" if result_line else "")
    if sol == pulp.LpSolutionOptimal and not time_limited:
        status = finalize_status(True, obj, bound, time_limited=False)
    elif sol in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        status = Status.TIME_LIMIT if time_limited else Status.FEASIBLE
    elif sol in (pulp.LpSolutionInfeasible, pulp.LpSolutionUnbounded):
        status = Status.INFEASIBLE
    elif time_limited:
        status = Status.TIME_LIMIT
    else:
        status = Status.ERROR
    return BackendOutcome(status=status, x=x, objective=obj, bound=bound, nodes=nodes,
                          wall_time=wall, backend=NAME, solver_version=_version(),
                          raw_status=raw, presolve=options.presolve)


def _version() -> str:
    import pulp

    return f"pulp {pulp.__version__} (CBC)"
