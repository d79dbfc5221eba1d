"""``scipy.optimize.milp`` (HiGHS compiled into SciPy).

SciPy minimises only, so a maximisation is solved as the minimisation of ``-c``. Honours the time
limit, the relative gap and presolve. Not honoured: ``threads`` and ``seed`` (not exposed by SciPy)
and ``warm_start`` (unsupported)."""

from __future__ import annotations

import time

import numpy as np

from ..core.model import LinearModel
from ..core.outcome import BackendOutcome, SolveOptions, finalize_status
from ..core.result import Status

NAME = "scipy"

# scipy.optimize.milp's documented statuses.
_STATUS = {
    0: "optimal",
    1: "iteration or time limit",
    2: "infeasible",
    3: "unbounded",
    4: "other",
}


def solve(model: LinearModel, options: SolveOptions) -> BackendOutcome:
    import scipy
    from scipy.optimize import Bounds, LinearConstraint, milp

    sign = -1.0 if model.maximize else 1.0
    opts = {"disp": bool(options.verbose), "mip_rel_gap": float(options.mip_rel_gap),
            "presolve": bool(options.presolve)}
    if options.time_limit is not None:
        opts["time_limit"] = float(options.time_limit)
    constraints = []
    if model.num_rows:
        constraints.append(LinearConstraint(model.A.to_scipy(), model.row_lo, model.row_hi))
    t0 = time.perf_counter()
    res = milp(sign * model.c, integrality=model.integrality.astype(np.uint8),
               bounds=Bounds(model.col_lo, model.col_hi), constraints=constraints, options=opts)
    wall = time.perf_counter() - t0
    x = None if res.x is None else np.asarray(res.x, dtype=np.float64)
    obj = None if x is None else sign * float(res.fun) + model.offset
    bound = getattr(res, "mip_dual_bound", None)
    if bound is not None and np.isfinite(bound):
        bound = sign * float(bound) + model.offset
    else:
        bound = None
    if not model.is_mip and res.status == 0:
        bound = obj
    nodes = getattr(res, "mip_node_count", None)
    if res.status == 0:
        status = finalize_status(True, obj, bound, time_limited=False)
    elif res.status == 1:
        status = Status.TIME_LIMIT
    elif res.status in (2, 3):
        status, x, obj = Status.INFEASIBLE, None, None
    else:
        status = Status.ERROR
    return BackendOutcome(status=status, x=x, objective=obj, bound=bound,
                          nodes=None if nodes is None else int(nodes), wall_time=wall,
                          backend=NAME, solver_version=f"scipy {scipy.__version__}",
                          raw_status=_STATUS.get(res.status, str(res.status)) + f": {res.message}",
                          presolve=options.presolve)
