"""Every method by name: :func:`solve` (``exact``, ``ilp``, ``brute``, ``bnb``,
``hillclimb``), :data:`METHODS` and the heuristics (:data:`HEURISTICS`)."""

from __future__ import annotations

import random
import time
from dataclasses import replace

import numpy as np

from ...core.deadline import Deadline
from ...core.errors import VerificationError
from ...core.result import Result, Status
from ...core.solve import SolveOptions, solve_model, verified_result
from .bnb import bnb_result
from .brute import brute_force
from .exact import solve_exact_many
from .hillclimb import DEFAULT_RESTARTS, hillclimb_mapping, hillclimb_result
from .instance import LatentInstance
from .model import as_mapping_array, check, decode_point, ilp_model, mapping_array, model_point
from .ternary import improve

EXACT_METHODS = ("exact", "ilp", "brute", "bnb")
METHODS = EXACT_METHODS + ("hillclimb",)


def _hillclimb_default(inst: LatentInstance) -> np.ndarray:
    """smatch's hill-climbing with its default 4 restarts and seed 0 (a mapping array)."""
    return as_mapping_array(hillclimb_mapping(inst)[0])


#: The heuristics, by the names :func:`solve` accepts.
HEURISTICS = {"hillclimb": _hillclimb_default}


def solve(inst: LatentInstance, method: str = "exact", *, backend: str = "highs",
          time_limit: float | None = None, seed: int = 0, restarts: int = DEFAULT_RESTARTS,
          rng: random.Random | None = None, linking: str = "aggregated",
          threads: int = 1) -> Result:
    """Solve ``inst`` with ``method`` and return a verified :class:`Result`.

    ``exact``      :func:`solve_exact_many` on this one instance (components, LP bound, MIP
                   only where needed; HiGHS for the LP, ``backend`` for the MIP).
    ``ilp``        the whole ILP of :func:`ilp_model` through ``backend`` (highs, scipy, pulp,
                   brute), warm-started on HiGHS from the smart initial mapping climbed.
    ``brute``      :func:`brute_force` (tiny instances).
    ``bnb``        :func:`~.bnb.branch_and_bound` (pure Python, for
                   small instances; status FEASIBLE with its bound when its node budget runs
                   out).
    ``hillclimb``  (refused on instances with ternary clauses on both sides: smatch's climber
                   knows none) smatch 1.0.4's hill-climbing with ``restarts`` restarts drawing from ``rng``
                   (else ``random.Random(seed)``); status FEASIBLE, no bound;
                   ``details["rounds"]``: the count each round reached; stopped by
                   ``time_limit`` (or the command's budget): status TIME_LIMIT with the best
                   mapping reached (:func:`~.hillclimb.hillclimb_result`).

    The objective is always recomputed by :func:`check`; ``time_limit`` is an overall budget."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} for latent-variable matching; choose one "
                         "of " + ", ".join(METHODS))
    t0 = time.perf_counter()
    if method == "hillclimb" and inst.left_ternary and inst.right_ternary:
        raise ValueError("hillclimb is smatch's hill-climber, which knows no ternary clauses; "
                         "use an exact method (or ternary.improve for a heuristic mapping)")
    if method == "hillclimb":
        r = hillclimb_result(inst, restarts, rng=rng, seed=seed,
                             deadline=Deadline(time_limit))
        return r.replace(alignment=as_mapping_array(r.alignment))
    if method == "bnb":
        r = bnb_result(inst)
        m = as_mapping_array(r.alignment)
        obj = check(inst, m)
        if obj != r.objective:
            raise VerificationError(f"branch and bound reported {r.objective} matches but its "
                                    f"mapping scores {obj}")
        return r.replace(alignment=m, wall_time=time.perf_counter() - t0)
    if method == "brute":
        _, m = brute_force(inst)
        obj = check(inst, m)
        return Result(Status.OPTIMAL, obj, obj, m, "brute", time.perf_counter() - t0)
    options = SolveOptions(time_limit=time_limit, threads=threads, seed=seed)
    if method == "exact":
        return solve_exact_many([inst], options=options, backend=backend, linking=linking)[0]
    model = ilp_model(inst, linking)
    if model.num_vars == 0:  # nothing can match: the empty mapping is optimal
        return Result(Status.OPTIMAL, 0.0, 0.0, mapping_array([], []), "ilp",
                      time.perf_counter() - t0, backend=backend, seed=seed)
    if backend == "highs":
        start = (improve(inst, np.zeros((0, 2), np.int64)) if inst.left_ternary
                 and inst.right_ternary else as_mapping_array(hillclimb_mapping(inst, 0,
                                                                                 seed=seed)[0]))
        options = replace(options, warm_start=model_point(inst, start))
    return verified_result(solve_model(model, backend, options), model,
                           decode=lambda x: decode_point(inst, x), check=lambda al: check(inst, al),
                           method="ilp", seed=seed)
