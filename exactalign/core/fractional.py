"""Maximising a ratio of linear functions over a binary feasible set, proven: Dinkelbach's method.

Scores such as MUC's F = 2·(COR + ½PAR) / (POS + ACT) are ratios whose denominator depends on the
alignment when unaligned optional items do not count. For ``N(x) = n·x + n0`` and
``D(x) = d·x + d0 > 0`` on the feasible set X, Dinkelbach (1967) solves the parametric problems

    P(λ) = max_{x ∈ X}  N(x) − λ·D(x)

with λ_{k+1} = N(x_k)/D(x_k) for the maximiser x_k of P(λ_k). P is decreasing in λ and
P(λ*) = 0 exactly at the optimal ratio λ*, so the iteration stops when P(λ_k) ≤ 0: then
N(x) ≤ λ_k·D(x) for every x ∈ X, i.e. λ_k is the optimum, attained by the incumbent. On a finite
X the λ_k increase strictly and the method ends after finitely many steps (superlinearly).

Proof of a bound when a parametric solve is cut short: if ``u ≥ P(λ)`` is a proven upper bound
and ``D(x) ≥ den_min > 0`` on X, then for every x ∈ X

    N(x)/D(x) ≤ λ + max(u, 0)/den_min,

which is the ``bound`` reported whenever the last parametric problem was not solved to optimality
(without ``den_min`` and with u > 0 no bound can be given and ``bound`` is ``None``).

Two entry points: :func:`dinkelbach` takes a :class:`LinearModel` (its objective is ignored) and
solves P(λ) through a backend; :func:`dinkelbach_oracle` takes any exact solver of P(λ), e.g. an
assignment special path when X is a set of matchings.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from .errors import InputError
from .model import MAXIMIZE, LinearModel
from .result import Status
from .solve import SolveOptions, remaining, solve_model

#: Absolute tolerance on P(λ) (scaled by max(1, |λ|)) below which λ is accepted as optimal.
TOL = 1e-9


@dataclass(frozen=True, eq=False)
class RatioResult:
    """The outcome of a ratio maximisation.

    ``ratio`` is recomputed as N(x)/D(x) from ``x``; ``bound`` is a valid upper bound on the best
    ratio (equal to ``ratio`` when ``status`` is OPTIMAL); ``history`` holds one
    ``(lambda, param_value, param_bound)`` triple per parametric solve."""

    status: Status
    x: np.ndarray | None
    ratio: float | None
    bound: float | None
    iterations: int
    wall_time: float
    history: tuple

    @property
    def proven_optimal(self) -> bool:
        return self.status is Status.OPTIMAL


#: ``param_solve(lam) -> (x, value, upper_bound, proven)`` for max N(x) − lam·D(x).
ParamSolver = Callable[[float], tuple]


def dinkelbach_oracle(param_solve: ParamSolver, ratio_of: Callable[[object], tuple[float, float]],
                      x0=None, *, den_min: float | None = None, max_iter: int = 100,
                      tol: float = TOL, time_limit: float | None = None) -> RatioResult:
    """Dinkelbach's iteration around an arbitrary solver of the parametric problem.

    ``ratio_of(x) -> (N(x), D(x))`` evaluates a solution; ``x0`` (optional) is a feasible start,
    e.g. a heuristic's solution -- otherwise the first parametric problem is P(0) = max N.
    ``param_solve`` must return ``proven=True`` only when ``upper_bound`` is a proven bound equal
    to ``value`` within tolerance. The iteration stops early (status TIME_LIMIT) once
    ``time_limit`` seconds have passed, and after ``max_iter`` parametric solves (FEASIBLE)."""
    start = time.perf_counter()
    best_x, best_ratio = None, None
    if x0 is not None:
        best_x, best_ratio = x0, _ratio(ratio_of, x0)
    lam = best_ratio if best_ratio is not None else 0.0
    history = []
    status, bound = Status.FEASIBLE, None
    for _ in range(max_iter):
        x, value, upper, proven = param_solve(lam)
        history.append((lam, value, upper))
        if x is not None:
            r = _ratio(ratio_of, x)
            if best_ratio is None or r > best_ratio:
                best_x, best_ratio = x, r
        scale = max(1.0, abs(lam))
        if upper is not None:
            bound = _ratio_bound(lam, upper, den_min, tol * scale)
        if proven and value is not None and value <= tol * scale:
            status = Status.OPTIMAL
            break
        if x is None or best_ratio is None or best_ratio <= lam + tol * scale:
            # No progress: the solver was cut short (or returned nothing) at this lambda.
            status = Status.TIME_LIMIT if not proven else Status.FEASIBLE
            break
        lam = best_ratio
        if time_limit is not None and time.perf_counter() - start >= time_limit:
            status = Status.TIME_LIMIT
            break
    if status is Status.OPTIMAL:
        bound = best_ratio if best_ratio is not None else lam
    elif bound is not None and best_ratio is not None:
        bound = max(bound, best_ratio)
    return RatioResult(status=status, x=best_x, ratio=best_ratio, bound=bound,
                       iterations=len(history), wall_time=time.perf_counter() - start,
                       history=tuple(history))


def dinkelbach(model: LinearModel, num: tuple[np.ndarray, float], den: tuple[np.ndarray, float],
               *, backend: str = "highs", options: SolveOptions | None = None, x0=None,
               den_min: float | None = None, max_iter: int = 100) -> RatioResult:
    """Maximise ``(num[0]@x + num[1]) / (den[0]@x + den[1])`` over ``model``'s feasible set.

    The model's own objective and sense are ignored. The denominator must be positive on the
    feasible set; ``den_min`` defaults to the minimum of D over the variable box (used only when
    positive, to bound the ratio after a time limit). ``options.time_limit`` is the limit for the
    whole iteration; ``options.warm_start`` is ignored (the incumbent of each step warm-starts
    the next)."""
    options = options or SolveOptions()
    n, n0 = _linear(num, model.num_vars, "numerator")
    d, d0 = _linear(den, model.num_vars, "denominator")
    if den_min is None:
        box_min = d0 + float(np.sum(np.where(d > 0, d * model.col_lo, d * model.col_hi)))
        den_min = box_min if np.isfinite(box_min) and box_min > 0 else None
    start = time.perf_counter()
    state = {"warm": None if x0 is None else np.asarray(x0, dtype=np.float64)}

    def param_solve(lam: float):
        limit = remaining(options.time_limit, time.perf_counter() - start)
        if limit is not None and limit <= 0:
            return None, None, None, False
        m = replace(model, c=n - lam * d, offset=n0 - lam * d0, sense=MAXIMIZE,
                    name=f"{model.name}-dinkelbach")
        out = solve_model(m, backend, replace(options, time_limit=limit,
                                              warm_start=state["warm"]))
        if out.x is not None:
            state["warm"] = out.x
        proven = out.status is Status.OPTIMAL
        return out.x, out.objective, out.bound, proven

    def ratio_of(x):
        x = np.asarray(x, dtype=np.float64)
        return float(n @ x + n0), float(d @ x + d0)

    res = dinkelbach_oracle(param_solve, ratio_of, x0, den_min=den_min, max_iter=max_iter,
                            time_limit=options.time_limit)
    return replace(res, wall_time=time.perf_counter() - start)


def _linear(pair, size: int, what: str) -> tuple[np.ndarray, float]:
    coef, const = pair
    coef = np.asarray(coef, dtype=np.float64)
    if coef.shape != (size,) or not np.all(np.isfinite(coef)) or not np.isfinite(const):
        raise InputError(f"dinkelbach: the {what} needs {size} finite coefficients and a finite "
                         f"constant (got shape {coef.shape})")
    return coef, float(const)


def _ratio(ratio_of, x) -> float:
    num, den = ratio_of(x)
    if not den > 0:
        raise InputError(f"dinkelbach: the denominator is {den!r} at a feasible solution; it "
                         "must be positive on the whole feasible set")
    return num / den


def _ratio_bound(lam: float, upper: float, den_min: float | None, tol: float) -> float | None:
    if upper <= tol:
        return lam
    if den_min is None or den_min <= 0:
        return None
    return lam + upper / den_min
