"""What every solver backend speaks: the options of a solve (:class:`SolveOptions`), the raw
answer a backend returns (:class:`BackendOutcome`) and our status from a backend's claim
(:func:`finalize_status`). Backends import this module (and :mod:`.model`), nothing else of the
core's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .result import Status, close

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class SolveOptions:
    """Options every backend understands (those a backend cannot honour are documented there).

    ``mip_rel_gap`` defaults to 0: the solver must prove optimality. ``threads`` defaults to 1 and
    ``seed`` to 0 so that runs are reproducible. ``presolve=False`` switches the solver's presolve
    off. ``fallback=False`` makes :func:`solve_model` raise on the first answer that fails
    verification instead of trying other routes (for tests of one backend). ``lp_method``
    (``"simplex"``, ``"ipm"``, ``"pdlp"``; ``None``: the solver's choice) picks the algorithm of
    a pure LP on HiGHS; other backends ignore it. ``"ipm"`` is the interior point method with
    crossover, which still returns a basis and its duals (several times faster than simplex on
    the LPs of big Smatch pairs). ``"pdlp"`` is HiGHS' first-order primal-dual method
    (cuPDLP-C, run to a KKT tolerance of 1e-8): no basis, and its point and duals are optimal
    only to that tolerance, so it suits a caller that takes its bound from the duals by weak
    duality (:func:`~exactalign.core.model.dual_bound_terms`) and whose point may be rounded; it
    is 3x faster than ``"ipm"`` on the LP of a 1,000-variable Smatch pair. ``lp_tolerance``
    replaces PDLP's KKT tolerance (``None``: 1e-8; a looser one returns sooner, its point further
    from feasible and its duals from optimal). ``restart=False`` forbids a MIP solver to restart
    its search at the root after the root's reductions (HiGHS' ``mip_allow_restart``; other
    backends ignore it)."""

    time_limit: float | None = None
    mip_rel_gap: float = 0.0
    threads: int = 1
    seed: int = 0
    warm_start: np.ndarray | None = None
    verbose: bool = False
    presolve: bool = True
    fallback: bool = True
    lp_method: str | None = None
    lp_tolerance: float | None = None
    restart: bool = True

    def __post_init__(self):
        if self.lp_method not in (None, "simplex", "ipm", "pdlp"):
            raise ValueError(f"lp_method must be None, 'simplex', 'ipm' or 'pdlp', not "
                             f"{self.lp_method!r}")
        if self.lp_tolerance is not None and not (0.0 < self.lp_tolerance < 1.0):
            raise ValueError(f"lp_tolerance must be in (0, 1), not {self.lp_tolerance!r}")
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
    #: A first-order LP method stopped early (PDLP at its time limit): its last primal point, which
    #: need not be feasible. Never an answer (``x`` is ``None``); a guide for rounding only.
    iterate: np.ndarray | None = None
    #: Column generation: the columns its restricted LP held at the end (sorted indices of the
    #: full model's columns); every other column is zero in ``x``. ``None`` for a whole LP.
    held: np.ndarray | None = None

    @property
    def fallback(self) -> bool:
        """Whether this answer comes from a fallback route (an earlier one failed verification)."""
        return bool(self.attempts)


def finalize_status(raw_optimal: bool, objective: float | None, bound: float | None,
                    time_limited: bool, maximize: bool = True) -> Status:
    """Our status from a backend's claim: OPTIMAL only if the solver claims it *and* the bound
    meets the objective within :data:`OBJ_TOL` (a MIP stopped on a relative gap is FEASIBLE)."""
    if objective is None:
        return Status.TIME_LIMIT if time_limited else Status.ERROR
    if raw_optimal and bound is not None and close(objective, bound):
        return Status.OPTIMAL
    return Status.TIME_LIMIT if time_limited else Status.FEASIBLE
