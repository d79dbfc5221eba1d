"""The constraint matrix of a :class:`~exactalign.core.model.LinearModel`: :class:`Csr`, a
read-only sparse matrix in canonical compressed sparse row form.

Its arrays are ``scipy.sparse``'s (construction, products and the column-wise form are
scipy's); the class adds what a model shared between solves needs: the arrays are read-only,
the form is canonical (column indices ascending within each row, duplicates summed, explicit
zeros kept as given) and checked once, and it pickles as plain arrays. An earlier version did
the arithmetic in numpy alone to spare one-document commands scipy's import; with scipy loaded
that was 3-7x slower at every size measured (10,000 to 5,000,000 non-zeros: building 137 ms
against 27 ms at a million, ``A @ x`` 9.5 ms against 1.9 ms, the column-wise arrays 107 ms
against 15 ms)."""

from __future__ import annotations

import numpy as np

#: Index arrays are ``int32`` while every index and the number of entries fit (scipy's own rule,
#: so :meth:`Csr.to_scipy` shares them), else ``int64``: half the index memory of a big model
#: (a 3,000-variable document pair: 17.8 million entries).
INT32_MAX = np.iinfo(np.int32).max


def index_dtype(nnz: int, m: int, n: int):
    """The dtype of the index arrays of an ``m x n`` matrix of ``nnz`` entries."""
    return np.int32 if max(nnz, m, n) <= INT32_MAX else np.int64


def _frozen(a: np.ndarray) -> np.ndarray:
    """A read-only view of ``a`` (the caller's own array stays writable)."""
    v = a.view()
    v.flags.writeable = False
    return v


class Csr:
    """A read-only ``shape[0] x shape[1]`` sparse matrix: row ``i``'s entries are
    ``data[indptr[i]:indptr[i + 1]]`` in the columns ``indices[...]`` (ascending; ``int32``
    indices while they fit, :data:`INT32_MAX`). Build one with
    :meth:`from_coo` or :meth:`of`; ``A @ x`` and ``A.T @ y`` for vectors; :meth:`to_scipy`."""

    __slots__ = ("indptr", "indices", "data", "shape")
    ndim = 2

    def __init__(self, indptr, indices, data, shape) -> None:
        m, n = (int(s) for s in shape)
        data = np.asarray(data, dtype=np.float64)
        idx = index_dtype(len(data), m, n)
        indptr = np.asarray(indptr, dtype=idx)
        indices = np.asarray(indices, dtype=idx)
        if m < 0 or n < 0 or indptr.shape != (m + 1,) or indices.shape != data.shape \
                or indices.ndim != 1 or indptr[0] != 0 or indptr[-1] != len(indices) \
                or (np.diff(indptr) < 0).any():
            raise ValueError(f"not a compressed sparse row matrix of shape {(m, n)}")
        if len(indices) and (indices.min() < 0 or indices.max() >= n):
            raise ValueError(f"a column index is outside 0..{n - 1}")
        inner = np.diff(indices) > 0  # ascending within rows; row starts may go down
        starts = indptr[1:-1]
        inner[starts[(starts > 0) & (starts < len(indices))] - 1] = True
        if not inner.all():
            raise ValueError("column indices must be strictly ascending within each row")
        for name, a in (("indptr", indptr), ("indices", indices), ("data", data)):
            object.__setattr__(self, name, _frozen(a))
        object.__setattr__(self, "shape", (m, n))

    def __setattr__(self, name, value):
        raise AttributeError("a Csr matrix is read-only")

    def __reduce__(self):
        return (Csr, (np.array(self.indptr), np.array(self.indices), np.array(self.data),
                      self.shape))

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def from_coo(cls, rows, cols, vals, shape) -> Csr:
        """The matrix with ``vals[k]`` at ``(rows[k], cols[k])``, duplicates summed."""
        import scipy.sparse as sp

        m, n = (int(s) for s in shape)
        rows, cols = np.asarray(rows), np.asarray(cols)
        if rows.dtype.kind not in "iu" or cols.dtype.kind not in "iu":  # int32 kept as given
            rows, cols = rows.astype(np.int64), cols.astype(np.int64)
        vals = np.asarray(vals, dtype=np.float64)
        if not rows.shape == cols.shape == vals.shape or rows.ndim != 1:
            raise ValueError("rows, cols and vals must be vectors of one length")
        if len(rows) and (rows.min() < 0 or rows.max() >= m or cols.min() < 0
                          or cols.max() >= n):
            raise ValueError(f"an entry is outside the shape {(m, n)}")
        S = sp.csr_array((vals, (rows, cols)), shape=(m, n))
        S.sum_duplicates()  # also sorts the indices
        return cls(S.indptr, S.indices, S.data, (m, n))

    @classmethod
    def of(cls, A) -> Csr:
        """``A`` as a :class:`Csr`: itself, a ``scipy.sparse`` matrix or array (canonicalised on
        a copy), or anything ``numpy.asarray`` makes two-dimensional."""
        if isinstance(A, Csr):
            return A
        if hasattr(A, "tocsr") and hasattr(A, "nnz"):  # scipy.sparse (imported by the caller)
            S = A.tocsr()
            if not S.has_canonical_format:  # summed and sorted on a copy, not the caller's
                S = S.copy()
                S.sum_duplicates()
            return cls(S.indptr, S.indices, S.data, S.shape)
        a = np.asarray(A, dtype=np.float64)
        if a.ndim != 2:
            raise ValueError(f"a matrix must be two-dimensional, not of shape {a.shape}")
        r, c = np.nonzero(a)
        return cls.from_coo(r, c, a[r, c], a.shape)

    # -- what the solver path uses --------------------------------------------------------
    @property
    def nnz(self) -> int:
        return int(self.indptr[-1])

    def row_ids(self) -> np.ndarray:
        """The row of each stored entry."""
        return np.repeat(np.arange(self.shape[0], dtype=np.int64), np.diff(self.indptr))

    def __matmul__(self, x):
        """``A @ x`` for a vector ``x`` (entries summed in row order), or a dense matrix."""
        x = np.asarray(x, dtype=np.float64)
        if x.shape[:1] != (self.shape[1],) or x.ndim > 2:
            raise ValueError(f"cannot multiply a {self.shape} matrix by shape {x.shape}")
        return np.asarray(self.to_scipy() @ x, dtype=np.float64)

    @property
    def T(self) -> _Transposed:
        return _Transposed(self)

    def csc_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(column starts, row indices, values)`` of the same matrix column by column, row
        indices ascending within each column (scipy's ``tocsc``)."""
        C = self.to_scipy().tocsc()
        return (C.indptr.astype(np.int64, copy=False), C.indices.astype(np.int64, copy=False),
                C.data)

    def toarray(self) -> np.ndarray:
        out = np.zeros(self.shape)
        out[self.row_ids(), self.indices] = self.data
        return out

    def to_scipy(self):
        """The same matrix as a ``scipy.sparse.csr_array`` sharing its (read-only) arrays."""
        import scipy.sparse as sp

        return sp.csr_array((self.data, self.indices, self.indptr), shape=self.shape,
                            copy=False)

    def __repr__(self) -> str:
        return f"Csr(shape={self.shape}, nnz={self.nnz})"


class _Transposed:
    """``A.T`` of a :class:`Csr`, for ``A.T @ y``."""

    __slots__ = ("of",)

    def __init__(self, of: Csr) -> None:
        self.of = of

    @property
    def shape(self) -> tuple[int, int]:
        return self.of.shape[::-1]

    def __matmul__(self, y) -> np.ndarray:
        A = self.of
        y = np.asarray(y, dtype=np.float64)
        if y.shape != (A.shape[0],):
            raise ValueError(f"cannot multiply a {self.shape} matrix by shape {y.shape}")
        return np.asarray(A.to_scipy().T @ y, dtype=np.float64)
