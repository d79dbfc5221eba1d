"""The one result type every solve returns, and our own status enum."""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from types import MappingProxyType

#: Tolerance under which a solver's reported objective/bound and our recomputation are "equal".
#: Absolute and relative (max of the two is used).
OBJ_TOL = 1e-6


class Status(str, enum.Enum):
    """Outcome of a solve, independent of the backend.

    OPTIMAL     proven optimal: the bound equals the objective (within :data:`OBJ_TOL`).
    FEASIBLE    a feasible solution without a proof (every heuristic; a MIP stopped on a gap).
    TIME_LIMIT  stopped by the time limit: ``objective`` is the incumbent (if any), ``bound`` valid.
    INFEASIBLE  proven infeasible (or unbounded: neither can happen for a well-formed problem).
    ERROR       the backend failed; no usable solution.
    """

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    TIME_LIMIT = "time_limit"
    INFEASIBLE = "infeasible"
    ERROR = "error"

    def __str__(self) -> str:  # pragma: no cover - cosmetic
        return self.value


# Worst first: merging component results keeps the worst status.
_SEVERITY = {
    Status.OPTIMAL: 0,
    Status.FEASIBLE: 1,
    Status.TIME_LIMIT: 2,
    Status.INFEASIBLE: 3,
    Status.ERROR: 4,
}


def worst_status(statuses) -> Status:
    """The least favourable of ``statuses`` (OPTIMAL only if every one is OPTIMAL)."""
    worst = Status.OPTIMAL
    for s in statuses:
        if _SEVERITY[s] > _SEVERITY[worst]:
            worst = s
    return worst


def close(a: float, b: float, tol: float = OBJ_TOL) -> bool:
    """``a`` and ``b`` agree within ``tol`` absolute or relative."""
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def relative_gap(objective: float | None, bound: float | None) -> float | None:
    """|bound - objective| / max(1, |objective|); ``None`` when either is unknown.

    The ``max(1, .)`` keeps the gap finite when the objective is 0 (an empty alignment)."""
    if objective is None or bound is None:
        return None
    return abs(bound - objective) / max(1.0, abs(objective))


#: The fields of :class:`Result`, in constructor order.
_FIELDS = ("status", "objective", "bound", "alignment", "method", "wall_time", "nodes", "backend",
           "seed", "solver_version", "components", "details")


class Result:
    """What every solve returns, exact or heuristic.

    ``objective`` is always recomputed from ``alignment`` by the problem's checker, never copied
    from a solver. ``bound`` is a proven upper bound for maximisation (``None`` for heuristics,
    which prove nothing). ``alignment`` is problem specific (for bipartite matching an ``(k, 2)``
    integer array of ``(reference, predicted)`` pairs). ``details`` is a read-only mapping.

    Immutable: assigning a field raises :class:`AttributeError`; :meth:`replace` returns a copy
    with fields changed. (A plain class rather than a dataclass: importing ``dataclasses`` and
    generating the class cost about 15 ms at every command-line start, a tenth of a small
    ``exactalign smatch`` run.) Compared by identity, as the alignment may be an array."""

    __slots__ = _FIELDS

    def __init__(self, status: Status, objective: float | None, bound: float | None,
                 alignment, method: str, wall_time: float = 0.0, nodes: int | None = None,
                 backend: str | None = None, seed: int | None = None,
                 solver_version: str | None = None, components: int = 1, details=None):
        put = object.__setattr__
        put(self, "status", status)
        put(self, "objective", objective)
        put(self, "bound", bound)
        put(self, "alignment", alignment)
        put(self, "method", method)
        put(self, "wall_time", wall_time)
        put(self, "nodes", nodes)
        put(self, "backend", backend)
        put(self, "seed", seed)
        put(self, "solver_version", solver_version)
        put(self, "components", components)
        put(self, "details", details if isinstance(details, MappingProxyType)
            else MappingProxyType(dict(details or {})))

    def __setattr__(self, name, value):
        raise AttributeError(f"Result is immutable: cannot assign {name!r} (use replace())")

    def __delattr__(self, name):
        raise AttributeError(f"Result is immutable: cannot delete {name!r}")

    def replace(self, **changes) -> Result:
        """A copy with the given fields changed (``dataclasses.replace`` for this class)."""
        unknown = set(changes) - set(_FIELDS)
        if unknown:
            raise TypeError(f"Result has no field {sorted(unknown)[0]!r}")
        return Result(**{f: changes[f] if f in changes else getattr(self, f) for f in _FIELDS})

    def __reduce__(self):  # pickle and copy (the read-only details travel as a dict)
        values = [getattr(self, f) for f in _FIELDS]
        values[-1] = dict(values[-1])
        return Result, tuple(values)

    @property
    def proven_optimal(self) -> bool:
        return self.status is Status.OPTIMAL

    @property
    def fallback(self) -> tuple:
        """The solver routes that failed verification before this answer (empty: none did).
        Each is a dict: ``backend``, ``presolve`` and ``error`` (why it was rejected)."""
        return tuple(self.details.get("fallback", ()))

    @property
    def gap(self) -> float | None:
        """Relative gap between bound and objective (see :func:`relative_gap`)."""
        return relative_gap(self.objective, self.bound)

    @property
    def abs_gap(self) -> float | None:
        if self.objective is None or self.bound is None:
            return None
        return self.bound - self.objective

    def to_dict(self, *, alignment: bool = False) -> dict:
        """JSON-ready dict with stable keys (non-finite numbers become ``None``)."""

        def num(v):
            if v is None:
                return None
            v = float(v)
            return v if math.isfinite(v) else None

        out = {
            "status": self.status.value,
            "proven_optimal": self.proven_optimal,
            "objective": num(self.objective),
            "bound": num(self.bound),
            "gap": num(self.gap),
            "method": self.method,
            "backend": self.backend,
            "wall_time": num(self.wall_time),
            "nodes": self.nodes,
            "seed": self.seed,
            "solver_version": self.solver_version,
            "components": self.components,
            "presolve": (None if self.backend is None
                         else bool(self.details.get("presolve", True))),
            "fallback": [dict(a) for a in self.fallback],
        }
        if alignment:
            al = self.alignment
            out["alignment"] = al.tolist() if hasattr(al, "tolist") else al
        return out

    def __repr__(self) -> str:
        bound = "None" if self.bound is None else f"{self.bound:.6g}"
        obj = "None" if self.objective is None else f"{self.objective:.6g}"
        return (
            f"Result(status={self.status.value}, objective={obj}, bound={bound}, "
            f"method={self.method!r}, backend={self.backend!r}, wall_time={self.wall_time:.4f}s, "
            f"components={self.components})"
        )


def combine_results(results: Sequence[Result], method: str) -> Result:
    """One :class:`Result` for a corpus: the worst status, summed objectives, bounds (``None``
    if any is missing), wall times, nodes and components."""
    if not results:
        return Result(worst_status([]), 0.0, 0.0, None, method, components=0)
    objs = [r.objective for r in results]
    bounds = [r.bound for r in results]
    nodes = [r.nodes for r in results if r.nodes is not None]
    first = results[0]
    return Result(worst_status(r.status for r in results),
                  None if any(o is None for o in objs) else float(sum(objs)),
                  None if any(b is None for b in bounds) else float(sum(bounds)),
                  None, method, float(sum(r.wall_time for r in results)),
                  nodes=int(sum(nodes)) if nodes else None, backend=first.backend,
                  seed=first.seed, solver_version=first.solver_version,
                  components=int(sum(r.components for r in results)),
                  details={"documents": len(results)})
