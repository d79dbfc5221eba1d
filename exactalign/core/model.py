"""A backend-neutral, sparse (mixed-integer) linear model.

Problems build a :class:`LinearModel`; backends only solve one. The model is

    maximise/minimise   c @ x + offset
    subject to          row_lo <= A @ x <= row_hi
                        col_lo <=     x <= col_hi
                        x[j] integer where integrality[j]

with ``A`` a :class:`~exactalign.core.sparse.Csr` (sparse rows in numpy arrays: the solver path
never imports ``scipy.sparse``; a model built from a ``scipy.sparse`` or dense matrix holds its
canonical copy; :meth:`~exactalign.core.sparse.Csr.to_scipy` converts back). Infinite bounds are
``±numpy.inf``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from .errors import InputError
from .sparse import Csr

MAXIMIZE = "max"
MINIMIZE = "min"


def _vec(name, v, n, dtype=np.float64):
    a = np.asarray(v, dtype=dtype)
    if a.ndim == 0 or (a.shape == (n,) and n and a.strides == (0,)):
        # one value for every entry (a scalar, or such a vector of another model): a read-only
        # broadcast of a private copy of it, not n copies (a document pair's bounds: 100 MB)
        return np.broadcast_to(np.array(a.reshape(-1)[0], dtype=dtype), (n,))
    if a.shape != (n,):
        raise InputError(f"LinearModel: {name} has shape {a.shape}, expected ({n},)")
    a = a.copy()
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class LinearModel:
    """The model of the module docstring. ``A`` may be given as a ``scipy.sparse`` matrix, a
    dense array or an ``exactalign.core.sparse.Csr``; the model holds it as a read-only ``Csr``
    (``model.A @ x``, ``model.A.T @ y``, ``model.A.toarray()``; ``model.A.to_scipy()`` for a
    ``scipy.sparse.csr_array``). Vectors are read-only copies; a scalar is one value for every
    entry (a read-only broadcast, no copies)."""

    c: np.ndarray
    A: Csr
    row_lo: np.ndarray
    row_hi: np.ndarray
    col_lo: np.ndarray
    col_hi: np.ndarray
    integrality: np.ndarray
    sense: str = MAXIMIZE
    offset: float = 0.0
    var_names: Sequence[str] | None = None
    name: str = "model"

    def __post_init__(self):
        c = np.asarray(self.c, dtype=np.float64)
        if c.ndim != 1:
            raise InputError("LinearModel: c must be one-dimensional")
        n = c.shape[0]
        try:
            A = Csr.of(self.A)
        except ValueError as e:
            raise InputError(f"LinearModel: A is not a matrix: {e}") from None
        if A.shape[1] != n:
            raise InputError(f"LinearModel: A has shape {A.shape}, expected (m, {n})")
        m = A.shape[0]
        set_ = object.__setattr__
        set_(self, "c", _vec("c", c, n))
        set_(self, "A", A)
        set_(self, "row_lo", _vec("row_lo", self.row_lo, m))
        set_(self, "row_hi", _vec("row_hi", self.row_hi, m))
        set_(self, "col_lo", _vec("col_lo", self.col_lo, n))
        set_(self, "col_hi", _vec("col_hi", self.col_hi, n))
        set_(self, "integrality", _vec("integrality", self.integrality, n, dtype=bool))
        if self.sense not in (MAXIMIZE, MINIMIZE):
            raise InputError(f"LinearModel: sense must be 'max' or 'min', not {self.sense!r}")
        if not np.all(np.isfinite(self.c)) or not np.all(np.isfinite(A.data)):
            raise InputError("LinearModel: objective and matrix coefficients must be finite")
        if np.any(self.row_lo > self.row_hi) or np.any(self.col_lo > self.col_hi):
            raise InputError("LinearModel: a lower bound exceeds its upper bound")
        if self.var_names is not None:
            if len(self.var_names) != n:
                raise InputError(
                    f"LinearModel: {len(self.var_names)} variable names for {n} variables"
                )
            set_(self, "var_names", tuple(self.var_names))

    # -- shape -----------------------------------------------------------------------------
    @property
    def num_vars(self) -> int:
        return self.c.shape[0]

    @property
    def num_rows(self) -> int:
        return self.A.shape[0]

    @property
    def is_mip(self) -> bool:
        return bool(self.integrality.any())

    @property
    def maximize(self) -> bool:
        return self.sense == MAXIMIZE

    def names(self) -> tuple[str, ...]:
        """Variable names (``x0``, ``x1``, ... when none were given)."""
        if self.var_names is not None:
            return self.var_names
        return tuple(f"x{j}" for j in range(self.num_vars))

    @cached_property
    def index(self) -> dict[str, int]:
        """Map from variable name to column index."""
        return {name: j for j, name in enumerate(self.names())}

    # -- derived models ---------------------------------------------------------------------
    def relax(self) -> LinearModel:
        """The LP relaxation: the same model with every variable continuous."""
        return replace(self, integrality=False,
                       name=self.name + "-relaxed")

    # -- evaluation ---------------------------------------------------------------------------
    def objective_value(self, x) -> float:
        return float(self.c @ np.asarray(x, dtype=np.float64) + self.offset)

    def violations(self, x, tol: float = 1e-6) -> list[str]:
        """Human-readable list of every violated bound, row or integrality (empty if feasible)."""
        x = np.asarray(x, dtype=np.float64)
        out = []
        if x.shape != (self.num_vars,):
            return [f"solution has shape {x.shape}, expected ({self.num_vars},)"]
        names = None

        def nm(j):
            nonlocal names
            names = names or self.names()
            return names[j]

        for j in np.flatnonzero((x < self.col_lo - tol) | (x > self.col_hi + tol))[:10]:
            out.append(f"{nm(j)}={x[j]:g} outside [{self.col_lo[j]:g}, {self.col_hi[j]:g}]")
        frac = np.abs(x - np.round(x))
        for j in np.flatnonzero(self.integrality & (frac > tol))[:10]:
            out.append(f"{nm(j)}={x[j]:g} is not integral")
        ax = self.A @ x
        for i in np.flatnonzero((ax < self.row_lo - tol) | (ax > self.row_hi + tol))[:10]:
            out.append(f"row {i}: {ax[i]:g} outside [{self.row_lo[i]:g}, {self.row_hi[i]:g}]")
        return out

    def __repr__(self) -> str:
        kind = "MILP" if self.is_mip else "LP"
        return (f"LinearModel({self.name!r}, {kind}, {self.sense}, vars={self.num_vars}, "
                f"rows={self.num_rows}, nnz={self.A.nnz})")


def binary_model(c, A, row_lo, row_hi, *, sense=MAXIMIZE, var_names=None, name="model"):
    """A model whose variables are all binary (the usual shape of an alignment ILP)."""
    return LinearModel(
        c=c, A=A, row_lo=row_lo, row_hi=row_hi, col_lo=0.0, col_hi=1.0, integrality=True,
        sense=sense, var_names=var_names, name=name,
    )


def dual_bound_terms(model: LinearModel, y) -> tuple[np.ndarray, np.ndarray]:
    """Weak duality for the LP relaxation of ``model``, from *any* row multipliers ``y``: the
    per-row and per-column terms whose sum (plus ``offset``) bounds the relaxation's optimum --
    from above when maximising, from below when minimising.

    For maximisation, ``c x = y A x + (c - A^T y) x`` for every ``x``; over the feasible set
    ``y_r (A x)_r <= y_r row_hi_r`` when ``y_r > 0`` (``y_r row_lo_r`` when ``y_r < 0``) and
    ``d_j x_j <= d_j col_hi_j`` when ``d_j > 0`` (``d_j col_lo_j`` when ``d_j < 0``), with
    ``d = c - A^T y``. A term that would need an infinite bound is infinite (the bound is then
    useless, never wrong), except that a multiplier of rounding size (``|v| <= 1e-9``) against
    an infinite side counts as zero (the one tolerance; every column of the binary models the
    problems build is bounded, so it never applies to them). Minimisation is the same with the signs mirrored. Nothing here trusts
    the solver: a wrong ``y`` gives a loose bound, not a false one."""
    y = np.asarray(y, dtype=np.float64)
    if y.shape != (model.num_rows,):
        raise ValueError(f"{y.shape[0] if y.ndim else 0} row multipliers for "
                         f"{model.num_rows} rows")
    sign = 1.0 if model.maximize else -1.0
    ys = sign * y  # as multipliers of the maximisation of sign * c
    d = sign * model.c - model.A.T @ ys

    def term(v, lo, hi):
        # a multiplier of rounding size (|v| <= 1e-9) on an infinite side counts as zero
        side = np.where(v > 0, hi, lo)
        v = np.where(np.isinf(side) & (np.abs(v) <= 1e-9), 0.0, v)
        with np.errstate(invalid="ignore"):
            out = np.where(v > 0, v * hi, np.where(v < 0, v * lo, 0.0))
        return np.where(np.isnan(out), np.inf, out)

    return sign * term(ys, model.row_lo, model.row_hi), sign * term(d, model.col_lo,
                                                                    model.col_hi)
