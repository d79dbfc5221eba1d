"""The numpy-only sparse matrix of a LinearModel (exactalign.core.sparse.Csr) against
scipy.sparse: the same canonical arrays, products and column-wise arrays, so the solver path
can leave scipy unimported without changing what any backend receives."""

import pickle
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from exactalign import InputError, LinearModel
from exactalign.core.model import binary_model
from exactalign.core.sparse import Csr


@st.composite
def coo(draw):
    m = draw(st.integers(0, 6))
    n = draw(st.integers(0, 6))
    k = draw(st.integers(0, 20)) if m and n else 0
    rows = draw(st.lists(st.integers(0, max(m - 1, 0)), min_size=k, max_size=k))
    cols = draw(st.lists(st.integers(0, max(n - 1, 0)), min_size=k, max_size=k))
    vals = draw(st.lists(st.sampled_from([-2.5, -1.0, 0.0, 0.5, 1.0, 3.0]), min_size=k,
                         max_size=k))
    return np.array(rows, np.int64), np.array(cols, np.int64), np.array(vals), (m, n)


@given(coo(), st.integers(0, 2**31 - 1))
@settings(max_examples=200, deadline=None)
def test_csr_matches_scipy(t, seed):
    rows, cols, vals, shape = t
    ours = Csr.from_coo(rows, cols, vals, shape)
    ref = sp.csr_array((vals, (rows, cols)), shape=shape)
    ref.sum_duplicates()
    # the same canonical arrays (duplicates summed, explicit zeros kept, columns ascending)
    assert ours.shape == ref.shape and ours.nnz == ref.nnz
    assert np.array_equal(ours.indptr, ref.indptr) and np.array_equal(ours.indices, ref.indices)
    assert np.allclose(ours.data, ref.data, rtol=0, atol=1e-12)
    assert np.array_equal(ours.toarray(), ref.toarray())
    for other in (Csr.of(ref), Csr.of(ref.toarray()), Csr.of(ours.to_scipy())):
        assert np.array_equal(other.toarray(), ours.toarray())
    rng = np.random.default_rng(seed)
    x, y = rng.normal(size=shape[1]), rng.normal(size=shape[0])
    X = rng.normal(size=(shape[1], 3))
    assert np.allclose(ours @ x, ref @ x, rtol=1e-12, atol=1e-12)
    assert np.allclose(ours.T @ y, ref.T @ y, rtol=1e-12, atol=1e-12)
    assert np.allclose(ours @ X, ref @ X, rtol=1e-12, atol=1e-12)
    # what HiGHS receives: the arrays of scipy's tocsc with sorted indices
    csc = ref.tocsc()
    csc.sort_indices()
    starts, r, v = ours.csc_arrays()
    assert np.array_equal(starts, csc.indptr) and np.array_equal(r, csc.indices)
    assert np.allclose(v, csc.data, rtol=0, atol=1e-12)
    back = pickle.loads(pickle.dumps(ours))
    assert np.array_equal(back.toarray(), ours.toarray()) and back.shape == ours.shape


def test_csr_rejects_what_is_not_canonical():
    with pytest.raises(ValueError, match="ascending"):
        Csr([0, 2], [1, 0], [1.0, 1.0], (1, 2))
    with pytest.raises(ValueError, match="ascending"):
        Csr([0, 2], [1, 1], [1.0, 1.0], (1, 2))  # a duplicate
    with pytest.raises(ValueError, match="outside"):
        Csr([0, 1], [2], [1.0], (1, 2))
    with pytest.raises(ValueError, match="compressed"):
        Csr([0, 1, 3], [0, 1], [1.0, 1.0], (2, 2))
    with pytest.raises(ValueError, match="outside the shape"):
        Csr.from_coo([0], [3], [1.0], (1, 2))
    with pytest.raises(ValueError, match="multiply"):
        Csr.from_coo([0], [1], [1.0], (1, 2)) @ np.ones(3)
    with pytest.raises(AttributeError):
        Csr.from_coo([0], [1], [1.0], (1, 2)).shape = (2, 2)
    # a row may start below where the one before ended
    ok = Csr([0, 2, 3], [1, 3, 0], [1.0, 2.0, 3.0], (2, 4))
    assert ok.toarray().tolist() == [[0, 1, 0, 2], [3, 0, 0, 0]]


def test_a_model_says_when_its_matrix_is_not_one():
    with pytest.raises(InputError, match="not a matrix"):
        LinearModel([1.0], [1.0, 2.0], [0], [1], [0], [1], [True])
    with pytest.raises(InputError, match="shape"):
        binary_model([1.0, 1.0], Csr.from_coo([0], [0], [1.0], (1, 3)), [-np.inf], [1.0])


def test_a_mid_size_smatch_pair_is_proven_by_the_lp(tmp_path):
    """A mid-size Smatch pair that branch and bound cannot prove goes to the LP (HiGHS), whose
    model's matrix is a :class:`Csr`: proven optimal, with the objective recounted (84)."""
    from experiments.performance import amr_pair
    from experiments.smatch_walltime import amr_text

    test, gold = amr_pair(50, 0)
    a, b = tmp_path / "t.amr", tmp_path / "g.amr"
    a.write_text(amr_text([test]), encoding="utf-8")
    b.write_text(amr_text([gold]), encoding="utf-8")
    code = ("import contextlib, io, json, sys; from exactalign.cli import main\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            f"    rc = main(['smatch', '--method', 'exact', '--json', '-f', {str(a)!r}, "
            f"{str(b)!r}])\n"
            "s = json.loads(out.getvalue())['solves']['exact']\n"
            "print('ROUTE', s['backend'], s['proven_optimal'], s['objective'], rc)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "ROUTE highs True 84.0 0" in proc.stdout, proc.stdout  # the LP proved it


def test_a_model_leaves_the_callers_matrix_alone():
    """Building a model neither freezes nor reorders the caller's arrays."""
    data = np.array([1.0, 2.0])
    ours = Csr(np.array([0, 2]), np.array([0, 1]), data, (1, 2))
    data[0] = 5.0  # still the caller's to change
    assert not ours.data.flags.writeable
    S = sp.csr_array((np.array([1.0, 2.0]), np.array([1, 0]), np.array([0, 2])), shape=(1, 2))
    before = S.indices.copy()
    assert Csr.of(S).toarray().tolist() == [[2.0, 1.0]]
    assert np.array_equal(S.indices, before) and S.data.flags.writeable


def test_index_arrays_are_int32_while_they_fit_and_shared_with_scipy():
    """Half the index memory of a big model (a 3,000-variable document pair has 17.8 million
    entries), and ``to_scipy`` copies nothing (scipy keeps one index dtype for both arrays)."""
    A = Csr.from_coo(np.array([1, 0, 1], np.int32), np.array([2, 0, 0], np.int32),
                     np.array([1.0, -1.0, 2.0]), (2, 3))
    assert A.indptr.dtype == A.indices.dtype == np.int32
    assert A.toarray().tolist() == [[-1.0, 0.0, 0.0], [2.0, 0.0, 1.0]]
    S = A.to_scipy()
    assert np.shares_memory(S.indices, A.indices) and np.shares_memory(S.indptr, A.indptr)
    assert (A.T @ np.array([1.0, 1.0])).tolist() == [1.0, 0.0, 1.0]
    wide = Csr(np.array([0, 1]), np.array([2**31]), np.array([1.0]), (1, 2**31 + 1))
    assert wide.indptr.dtype == wide.indices.dtype == np.int64 and wide.indices[0] == 2**31
