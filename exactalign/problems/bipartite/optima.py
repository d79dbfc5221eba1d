"""Among the optimal alignments: lexicographic solves (:func:`lexicographic`), how far a
secondary number moves between them (:func:`co_optimal_range`) and the optimal alignment
nearest to a given one (:func:`witness`, :class:`Witness`)."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ...core.errors import InputError, VerificationError
from ...core.model import binary_model
from ...core.result import Result, Status, close
from ...core.solve import solve_model, verified_result
from .ilp import ilp_model
from .instance import BipartiteInstance, alignment_from_edges, check
from .methods import solve


# --------------------------------------------------------------------------------------------
# among the optimal alignments: lexicographic solves, co-optimal ranges, gap witnesses
# --------------------------------------------------------------------------------------------
def lexicographic(inst: BipartiteInstance, secondary, *, maximize: bool = True,
                  optimum: float | None = None, backend: str = "highs",
                  primary=None) -> Result:
    """Among the alignments of maximum weight, one that maximises (``maximize=False``:
    minimises) ``sum(secondary[e])`` over its pairs ``e`` (``secondary`` is indexed like
    ``inst.weights``, any sign). An ILP through ``backend``: the problem's rows plus
    ``sum(w x) >= optimum - tol`` (``tol`` 1e-9 relative), objective the secondary weights.

    ``primary`` (indexed like ``inst.weights``, zeros allowed) replaces ``inst.weights`` as the
    weight ``w`` that is held at its optimum -- for problems whose candidate pairs include pairs
    of weight 0, which an instance drops (then ``optimum``, the maximum of ``sum(primary)``,
    must be given).

    The returned :class:`Result` is verified twice: its alignment is feasible and its primary
    weight (``details["primary"]``) equals the optimum; ``objective`` and ``bound`` are of the
    secondary sum. ``optimum`` defaults to the certified exact solve."""
    s = np.asarray(secondary, dtype=np.float64).ravel()
    if s.shape != inst.weights.shape:
        raise InputError(f"{len(s)} secondary weights for {inst.num_pairs} candidate pairs")
    w = inst.weights if primary is None else np.asarray(primary, dtype=np.float64).ravel()
    if w.shape != inst.weights.shape:
        raise InputError(f"{len(w)} primary weights for {inst.num_pairs} candidate pairs")
    if optimum is None:
        if primary is not None:
            raise InputError("lexicographic: give the optimum of the primary weights")
        optimum = float(solve(inst, "exact").objective)
    t0 = time.perf_counter()
    if inst.num_pairs == 0:
        empty = np.zeros((0, 2), dtype=np.int64)
        return Result(Status.OPTIMAL, 0.0, 0.0, empty, "lexicographic", 0.0,
                      details={"primary": 0.0})
    import scipy.sparse as sp

    base = ilp_model(inst)
    sign = 1.0 if maximize else -1.0
    tol = 1e-9 * max(1.0, abs(optimum))
    A = sp.vstack([base.A.to_scipy(), sp.csr_array(w.reshape(1, -1))], format="csr")
    model = binary_model(sign * s, A, np.append(base.row_lo, optimum - tol),
                         np.append(base.row_hi, np.inf),
                         name=f"lexicographic {base.name}")
    out = solve_model(model, backend)
    res = verified_result(
        out, model, decode=lambda x: alignment_from_edges(inst, np.flatnonzero(x > 0.5)),
        check=lambda al: sign * float(s[inst.pair_index(al)].sum()), method="lexicographic",
        seed=0)
    if res.alignment is None:
        raise VerificationError(f"the lexicographic solve found no alignment of weight "
                                f"{optimum!r} ({res.status.value})")
    primary = check(inst, res.alignment) if primary is None else \
        float(w[inst.pair_index(res.alignment)].sum()) if len(res.alignment) else 0.0
    if not close(primary, optimum):
        raise VerificationError(f"the lexicographic alignment weighs {primary!r}, not the "
                                f"optimum {optimum!r}")
    value = float(s[inst.pair_index(res.alignment)].sum())
    bound = None if res.bound is None else sign * float(res.bound)
    return res.replace(objective=value, bound=bound, wall_time=time.perf_counter() - t0,
                       details={**dict(res.details), "primary": primary,
                                "sense": "max" if maximize else "min"})


def co_optimal_range(inst: BipartiteInstance, secondary, *, backend: str = "highs",
                     primary=None, optimum: float | None = None) -> tuple[float, float]:
    """``(min, max)`` of ``sum(secondary)`` over every alignment of maximum weight: how far a
    secondary number can move between alignments the metric cannot tell apart. ``primary``
    and ``optimum``: as in :func:`lexicographic`."""
    if optimum is None and primary is None:
        optimum = float(solve(inst, "exact").objective)
    lo = lexicographic(inst, secondary, maximize=False, optimum=optimum, backend=backend,
                       primary=primary)
    hi = lexicographic(inst, secondary, maximize=True, optimum=optimum, backend=backend,
                       primary=primary)
    for r in (lo, hi):
        if r.status is not Status.OPTIMAL:
            raise VerificationError(f"co-optimal range not proven ({r.status.value})")
    return lo.objective, hi.objective


@dataclass(frozen=True)
class Witness:
    """The fewest pair changes that turn an alignment into an optimal one: drop ``remove``,
    add ``add`` (both ``(k, 2)`` arrays of (reference, predicted) pairs); ``optimal`` is the
    alignment reached, ``gain`` its weight minus the given alignment's."""

    remove: np.ndarray
    add: np.ndarray
    optimal: np.ndarray
    gain: float

    @property
    def changes(self) -> int:
        return len(self.remove) + len(self.add)

    def to_dict(self) -> dict:
        return {"remove": self.remove.tolist(), "add": self.add.tolist(),
                "changes": self.changes, "gain": self.gain}


def witness(inst: BipartiteInstance, alignment, *, backend: str = "highs", primary=None,
            optimum: float | None = None) -> Witness:
    """The optimal alignment nearest to ``alignment`` (fewest pairs removed plus added: among
    the optimal alignments, maximise ``+1`` per kept pair and ``-1`` per new pair) and the
    changes that lead there -- a heuristic's shortfall attributed to its pairs. ``primary``
    and ``optimum``: as in :func:`lexicographic`."""
    a = np.asarray(alignment, dtype=np.int64).reshape(-1, 2)
    before = check(inst, a)
    mine = np.zeros(inst.num_pairs, dtype=bool)
    if len(a):
        mine[inst.pair_index(a)] = True
    if primary is not None:
        before = float(np.asarray(primary, dtype=np.float64)[mine].sum())
    res = lexicographic(inst, np.where(mine, 1.0, -1.0), backend=backend, primary=primary,
                        optimum=optimum)
    if res.status is not Status.OPTIMAL:
        raise VerificationError(f"gap witness not proven ({res.status.value})")
    opt = res.alignment
    theirs = np.zeros(inst.num_pairs, dtype=bool)
    if len(opt):
        theirs[inst.pair_index(opt)] = True

    def pairs(mask):
        return alignment_from_edges(inst, np.flatnonzero(mask))

    return Witness(pairs(mine & ~theirs), pairs(theirs & ~mine), opt,
                   float(res.details["primary"]) - before)
