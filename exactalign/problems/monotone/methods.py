"""Every method by name, verified: :func:`solve`."""

from __future__ import annotations

import time

from ...core.errors import VerificationError
from ...core.result import Result, Status
from ...core.solve import SolveOptions
from .dp import sequence_dp
from .heuristics import HEURISTICS, brute_force, local_search
from .ilp import FORMULATIONS, solve_ilp
from .instance import MonotoneInstance, check

# --------------------------------------------------------------------------------------------
# solve
# --------------------------------------------------------------------------------------------
EXACT_METHODS = ("exact", "dp", "ilp", "brute")
METHODS = EXACT_METHODS + tuple(HEURISTICS)


def solve(inst: MonotoneInstance, method: str = "exact", *, formulation: str = "compact",
          backend: str = "highs", time_limit: float | None = None, mip_rel_gap: float = 0.0,
          threads: int = 1, seed: int = 0, warm_start: bool = True) -> Result:
    """Solve ``inst`` with ``method`` and return a verified :class:`Result`.

    ``exact``   :func:`sequence_dp` on two sequences, else the ILP (``formulation``);
    ``dp``      :func:`sequence_dp` (sequences only; proven by the algorithm);
    ``ilp``     :func:`ilp_model` of ``formulation`` through ``backend``, warm-started from
                :func:`greedy`; on a time limit the incumbent and the solver's bound;
    ``brute``   :func:`brute_force` (tiny instances);
    heuristic   ``greedy``, ``linext``, ``local`` (``seed`` seeds ``local``); FEASIBLE, no bound.

    Every alignment is re-verified by :func:`check`, which recomputes the objective."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} for monotone matching; choose one of "
                         + ", ".join(METHODS))
    if formulation not in FORMULATIONS:
        raise ValueError(f"unknown formulation {formulation!r}; choose one of "
                         + ", ".join(FORMULATIONS))
    t0 = time.perf_counter()
    if method in HEURISTICS:
        al = (local_search(inst, seed, time_limit=time_limit) if method == "local"
              else HEURISTICS[method](inst))
        obj = check(inst, al)
        return Result(Status.FEASIBLE, obj, None, al, method, time.perf_counter() - t0,
                      seed=seed if method == "local" else None)
    if method == "brute":
        _, al = brute_force(inst)
        obj = check(inst, al)
        return Result(Status.OPTIMAL, obj, obj, al, method, time.perf_counter() - t0)
    if method == "dp" or (method == "exact" and inst.is_sequence):
        value, al = sequence_dp(inst)
        obj = check(inst, al)
        if abs(value - obj) > 1e-9 * max(1.0, abs(obj)):
            raise VerificationError(f"the DP's value {value!r} differs from its alignment's "
                                    f"recomputed weight {obj!r}")
        return Result(Status.OPTIMAL, obj, obj, al, method, time.perf_counter() - t0,
                      details={"algorithm": "dynamic programming", "proof": "algorithm"})
    options = SolveOptions(time_limit=time_limit, mip_rel_gap=mip_rel_gap, threads=threads,
                           seed=seed)
    return solve_ilp(inst, method, formulation, backend, options, warm_start, t0)
