"""Solving a :class:`LinearModel` through a named backend, and turning the outcome into a
verified :class:`Result`.

Backends return a :class:`BackendOutcome` (raw numbers, our own :class:`Status`).
:func:`solve_model` checks every answer against the model itself (bounds, rows, integrality, the
reported objective recomputed as ``c·x``, a bound the solution does not beat) and, when a solver's
answer fails that check, does not give up: it retries the same backend with presolve off, then
each other backend in :data:`FALLBACK_ORDER`, and raises :class:`VerificationError` only when every
route fails. The outcome records the routes that failed (``attempts``) and the presolve setting of
the one that succeeded. Problems then call :func:`verified_result`, which decodes the solution into
an alignment, re-verifies it with the problem's checker, recomputes the objective, and refuses
(``VerificationError``) when the solver's numbers disagree with the recomputation.

(HiGHS 1.16.0's MIP presolve returns such wrong answers: a 5x5 assignment reported optimal at 40
whose returned solution scores 33, see ``tests/test_solver_trust.py``.)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from .backend import (  # noqa: F401  (re-exported: the names problems and tests import)
    BACKENDS,
    FALLBACK_ORDER,
    PRESOLVE_BACKENDS,
    get_backend,
)
from .deadline import clamp
from .errors import BackendError, ExactAlignError, VerificationError
from .model import LinearModel
from .outcome import BackendOutcome, SolveOptions, finalize_status  # noqa: F401
from .result import OBJ_TOL, Result, Status, close


def check_outcome(outcome: BackendOutcome, model: LinearModel) -> str | None:
    """Why ``outcome`` cannot be trusted as an answer to ``model`` (``None`` if it can).

    Checks what the model alone can tell: the solution satisfies every bound, row and integrality;
    the reported objective equals ``c·x + offset``; the reported bound is not beaten by ``x``."""
    if outcome.x is None:
        return None
    viol = model.violations(outcome.x)
    if viol:
        return "its solution violates the model: " + "; ".join(viol[:3])
    value = float(model.c @ outcome.x + model.offset)
    if outcome.objective is not None and not close(value, outcome.objective):
        return (f"it reported objective {outcome.objective!r} but its solution scores "
                f"{value!r}")
    if outcome.bound is not None:
        sign = 1.0 if model.maximize else -1.0
        if sign * (outcome.bound - value) < -OBJ_TOL * max(1.0, abs(value)):
            return f"its solution ({value!r}) beats the bound it reported ({outcome.bound!r})"
    return None


def _routes(backend: str, options: SolveOptions):
    """The (backend, options) pairs :func:`solve_model` tries, in order."""
    yield backend, options
    if not options.fallback:
        return
    if options.presolve and backend in PRESOLVE_BACKENDS:
        yield backend, replace(options, presolve=False)
    for other in FALLBACK_ORDER:
        if other != backend:
            yield other, options


def solve_model(model: LinearModel, backend: str = "highs", options: SolveOptions | None = None,
                **kwargs) -> BackendOutcome:
    """Solve ``model`` with ``backend``; ``kwargs`` build :class:`SolveOptions` if none given.

    An answer that fails :func:`check_outcome` is not returned: the next route is tried (see the
    module docstring), within what is left of ``options.time_limit``. Raises
    :class:`VerificationError` when every route fails, naming each failure."""
    options = options or SolveOptions(**kwargs)
    if options.time_limit != clamp(options.time_limit):  # the command's budget ends first
        options = replace(options, time_limit=clamp(options.time_limit))
    get_backend(backend)  # an unknown backend is the caller's error, not a route to skip
    t0 = time.perf_counter()
    attempts: list[dict] = []
    for name, opts in _routes(backend, options):
        if attempts and options.time_limit is not None:
            opts = replace(opts, time_limit=remaining(options.time_limit,
                                                      time.perf_counter() - t0))
        try:
            outcome = get_backend(name)(model, opts)
        except ExactAlignError as exc:
            if not attempts:
                raise
            attempts.append({"backend": name, "presolve": opts.presolve, "error": str(exc)})
            continue
        except ImportError as exc:  # an optional backend's package is missing
            if not attempts:
                raise BackendError(f"backend {name!r} is not available: {exc}") from exc
            attempts.append({"backend": name, "presolve": opts.presolve, "error": str(exc)})
            continue
        problem = check_outcome(outcome, model)
        if problem is None:
            if attempts:
                outcome = replace(outcome, attempts=tuple(attempts),
                                  wall_time=time.perf_counter() - t0)
            return outcome
        attempts.append({"backend": name, "presolve": opts.presolve, "error": problem})
    raise VerificationError(
        f"no backend produced an answer that passes verification ({model.name}): "
        + "; ".join(f"{a['backend']}" + ("" if a["presolve"] else " (presolve off)")
                    + f": {a['error']}" for a in attempts))


def verified_result(outcome: BackendOutcome, model: LinearModel, *,
                    decode: Callable[[np.ndarray], object],
                    check: Callable[[object], float],
                    method: str, seed: int | None, details: dict | None = None) -> Result:
    """Turn a backend outcome into a :class:`Result` after re-verifying it.

    ``decode(x)`` maps a model solution to the problem's alignment; ``check(alignment)`` raises if
    the alignment is infeasible and returns its objective recomputed from the problem's data."""
    details = dict(details or {})
    details["raw_status"] = outcome.raw_status
    details.update(route_details(outcome))
    if outcome.x is None:
        return Result(status=outcome.status, objective=None, bound=outcome.bound, alignment=None,
                      method=method, wall_time=outcome.wall_time, nodes=outcome.nodes,
                      backend=outcome.backend, seed=seed, solver_version=outcome.solver_version,
                      details=details)
    viol = model.violations(outcome.x)
    if viol:
        raise VerificationError(
            f"{outcome.backend} returned a solution that violates the model "
            f"({model.name}): " + "; ".join(viol[:3]))
    alignment = decode(outcome.x)
    objective = float(check(alignment))
    if outcome.objective is not None and not close(objective, outcome.objective):
        raise VerificationError(
            f"{outcome.backend} reported objective {outcome.objective!r} but the alignment it "
            f"returned scores {objective!r} ({model.name})")
    bound = outcome.bound
    if bound is not None:
        sign = 1.0 if model.maximize else -1.0
        if sign * (bound - objective) < -OBJ_TOL * max(1.0, abs(objective)):
            raise VerificationError(
                f"{outcome.backend} reported bound {bound!r} which the alignment it returned "
                f"beats ({objective!r}); refusing to report an inconsistent certificate")
        # Float noise can put a proven bound a hair on the wrong side of the recomputed value.
        bound = max(bound, objective) if model.maximize else min(bound, objective)
    status = outcome.status
    if status is Status.OPTIMAL and not (bound is not None and close(objective, bound)):
        status = Status.FEASIBLE
    return Result(status=status, objective=objective, bound=bound, alignment=alignment,
                  method=method, wall_time=outcome.wall_time, nodes=outcome.nodes,
                  backend=outcome.backend, seed=seed, solver_version=outcome.solver_version,
                  details=details)


def route_details(outcome: BackendOutcome) -> dict:
    """What a :class:`Result`'s ``details`` record of the route that produced ``outcome``:
    ``presolve`` (when it was off) and ``fallback``, the routes that failed before it."""
    out = {}
    if not outcome.presolve:
        out["presolve"] = False
    if outcome.attempts:
        out["fallback"] = [dict(a) for a in outcome.attempts]
    return out


def remaining(time_limit: float | None, spent: float) -> float | None:
    """What is left of an overall ``time_limit`` after ``spent`` seconds, and no more than what
    is left of the command's budget (:func:`~exactalign.core.deadline.clamp`; ``None``: no
    limit)."""
    return clamp(None if time_limit is None else max(0.0, time_limit - spent))
