import numpy as np
import pytest
import scipy.sparse as sp

from exactalign import InputError, LinearModel
from exactalign.core.model import binary_model
from exactalign.core.sparse import Csr


def small():
    # max 5a + 4b + 3c  s.t. 2a + 3b + c <= 5, binaries
    return binary_model([5.0, 4.0, 3.0], sp.csr_array([[2.0, 3.0, 1.0]]), [-np.inf], [5.0],
                        var_names=["a", "b", "c"], name="knapsack")


def test_model_is_sparse_and_frozen():
    m = small()
    assert isinstance(m.A, Csr) and m.A.toarray().tolist() == [[2.0, 3.0, 1.0]]
    with pytest.raises(ValueError):
        m.A.data[0] = 1.0  # the matrix is read-only too
    assert m.num_vars == 3 and m.num_rows == 1 and m.is_mip and m.maximize
    with pytest.raises(ValueError):
        m.c[0] = 1.0  # read-only arrays
    assert m.index == {"a": 0, "b": 1, "c": 2}


def test_relax_keeps_everything_but_integrality():
    m = small()
    r = m.relax()
    assert not r.is_mip and m.is_mip
    assert np.array_equal(r.c, m.c) and r.A is m.A
    assert np.array_equal(r.row_hi, m.row_hi)


def test_violations_name_variable_and_row():
    m = small()
    assert m.violations([1, 1, 0]) == []
    v = m.violations([1, 1, 1])
    assert len(v) == 1 and v[0].startswith("row 0: 6")
    v = m.violations([0.5, 0, 0])
    assert v == ["a=0.5 is not integral"]
    v = m.violations([2, 0, 0])
    assert "a=2 outside [0, 1]" in v[0]
    assert m.objective_value([1, 1, 0]) == 9.0


@pytest.mark.parametrize(
    "kwargs, phrase",
    [
        ({"c": [1.0, np.nan]}, "finite"),
        ({"row_lo": [3.0], "row_hi": [1.0]}, "lower bound exceeds"),
        ({"sense": "maximise"}, "sense must be"),
        ({"A": sp.csr_array(np.ones((1, 3)))}, "A has shape"),
        ({"var_names": ["x"]}, "1 variable names for 2 variables"),
    ],
)
def test_model_validation_messages(kwargs, phrase):
    base = dict(c=[1.0, 1.0], A=sp.csr_array(np.ones((1, 2))), row_lo=[0.0], row_hi=[1.0],
                col_lo=0.0, col_hi=1.0, integrality=[True, True])
    base.update(kwargs)
    with pytest.raises(InputError, match=phrase):
        LinearModel(**base)


def test_write_lp_file_writes_named_model(tmp_path):
    from exactalign.backends.highs import write_lp_file

    path = tmp_path / "m.lp"
    write_lp_file(small(), path)
    text = path.read_text()
    assert "max" in text.lower() and "+5 a" in text and "+3 c" in text and "bin" in text.lower()


def test_a_scalar_is_one_value_for_every_entry_not_n_copies():
    """A scalar bound or integrality is a read-only broadcast of one private value; derived
    models keep it so (a document pair's bounds would be 100 MB of copies), and a vector
    given is still copied."""
    A = sp.csr_array(np.ones((2, 4)))
    m = binary_model(np.arange(4.0), A, -np.inf, np.array([1.0, 2.0]))
    for v, value in ((m.col_lo, 0.0), (m.col_hi, 1.0), (m.integrality, True),
                     (m.row_lo, -np.inf)):
        assert v.strides == (0,) and not v.flags.writeable and (v == value).all()
    assert m.col_hi.shape == m.integrality.shape == (4,) and m.row_lo.shape == (2,)
    r = m.relax()
    assert r.integrality.strides == (0,) and not r.integrality.any()
    assert r.col_hi.strides == (0,) and r.col_hi.tolist() == [1.0] * 4
    with pytest.raises(ValueError):
        m.col_hi[0] = 2.0
    base = np.array(3.0)  # a caller's broadcast: its value is copied, not its base shared
    given = LinearModel(c=np.zeros(4), A=A, row_lo=0.0, row_hi=np.broadcast_to(base, (2,)),
                        col_lo=0.0, col_hi=1.0, integrality=False)
    base[...] = 7.0
    assert given.row_hi.tolist() == [3.0, 3.0]
    hi = np.array([5.0, 6.0])  # a vector: copied
    own = LinearModel(c=np.zeros(4), A=A, row_lo=0.0, row_hi=hi, col_lo=0.0, col_hi=1.0,
                      integrality=False)
    hi[0] = 0.0
    assert own.row_hi.tolist() == [5.0, 6.0] and own.row_hi.strides == (8,)
