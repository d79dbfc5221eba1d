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
whose returned solution scores 33, see ``tests/test_core_backends.py``.)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from .deadline import clamp
from .errors import BackendError, ExactAlignError, VerificationError
from .model import LinearModel
from .result import OBJ_TOL, Result, Status, close

BACKENDS = ("highs", "scipy", "pulp", "brute")

#: Backends tried, in this order, after the requested one fails verification twice (as asked and
#: with presolve off). ``brute`` comes last and refuses all but tiny pure-integer models.
FALLBACK_ORDER = ("highs", "scipy", "pulp", "brute")

#: Backends with a presolve switch (``SolveOptions.presolve``).
_PRESOLVE = ("highs", "scipy", "pulp")


@dataclass(frozen=True)
class SolveOptions:
    """Options every backend understands (those a backend cannot honour are documented there).

    ``mip_rel_gap`` defaults to 0: the solver must prove optimality. ``threads`` defaults to 1 and
    ``seed`` to 0 so that runs are reproducible. ``presolve=False`` switches the solver's presolve
    off. ``fallback=False`` makes :func:`solve_model` raise on the first answer that fails
    verification instead of trying other routes (for tests of one backend). ``lp_method``
    (``"simplex"``, ``"ipm"``; ``None``: the solver's choice) picks the algorithm of a pure LP on
    HiGHS (an interior point method with crossover, which still returns a basis and its duals,
    is several times faster than simplex on the LPs of big Smatch pairs); other backends ignore
    it."""

    time_limit: float | None = None
    mip_rel_gap: float = 0.0
    threads: int = 1
    seed: int = 0
    warm_start: np.ndarray | None = None
    verbose: bool = False
    presolve: bool = True
    fallback: bool = True
    lp_method: str | None = None

    def __post_init__(self):
        if self.lp_method not in (None, "simplex", "ipm"):
            raise ValueError(f"lp_method must be None, 'simplex' or 'ipm', not "
                             f"{self.lp_method!r}")
        if self.time_limit is not None and not (self.time_limit >= 0):
            raise ValueError(f"time_limit must be >= 0 seconds, not {self.time_limit!r}")
        if not (0.0 <= self.mip_rel_gap < 1.0):
            raise ValueError(f"mip_rel_gap must be in [0, 1), not {self.mip_rel_gap!r}")
        if int(self.threads) < 1:
            raise ValueError(f"threads must be >= 1, not {self.threads!r}")


@dataclass(frozen=True, eq=False)
class BackendOutcome:
    """What a backend reports, translated to our status; numbers not yet verified."""

    status: Status
    x: np.ndarray | None
    objective: float | None
    bound: float | None
    nodes: int | None
    wall_time: float
    backend: str
    solver_version: str
    raw_status: str
    row_dual: np.ndarray | None = None  # LPs on HiGHS: one dual value per row (any sign convention)
    presolve: bool = True  # the presolve setting this answer was computed with
    attempts: tuple = ()  # routes that failed verification before this one: dicts (see solve_model)

    @property
    def fallback(self) -> bool:
        """Whether this answer comes from a fallback route (an earlier one failed verification)."""
        return bool(self.attempts)


def get_backend(name: str) -> Callable[[LinearModel, SolveOptions], BackendOutcome]:
    """The ``solve(model, options)`` function of backend ``name`` (imported lazily)."""
    if name == "highs":
        from ..backends.highs import solve
    elif name == "scipy":
        from ..backends.scipy_milp import solve
    elif name == "pulp":
        from ..backends.pulp_cbc import solve
    elif name == "brute":
        from ..backends.brute import solve
    else:
        raise BackendError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
    return solve


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
    if options.presolve and backend in _PRESOLVE:
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


def finalize_status(raw_optimal: bool, objective: float | None, bound: float | None,
                    time_limited: bool, maximize: bool = True) -> Status:
    """Our status from a backend's claim: OPTIMAL only if the solver claims it *and* the bound
    meets the objective within :data:`OBJ_TOL` (a MIP stopped on a relative gap is FEASIBLE)."""
    if objective is None:
        return Status.TIME_LIMIT if time_limited else Status.ERROR
    if raw_optimal and bound is not None and close(objective, bound):
        return Status.OPTIMAL
    return Status.TIME_LIMIT if time_limited else Status.FEASIBLE


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
