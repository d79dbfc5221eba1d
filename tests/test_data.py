import pytest

from exactalign import InputError
from exactalign.data import CHECKOUT, resolve_data_dir


def test_env_var_wins(tmp_path):
    d = resolve_data_dir({"EXACTALIGN_DATA": str(tmp_path)})
    assert d.path == tmp_path.resolve() and d.source == "$EXACTALIGN_DATA" and d.available
    assert str(tmp_path.resolve()) in d.describe()


def test_env_var_must_be_a_directory(tmp_path):
    with pytest.raises(InputError, match="not a directory"):
        resolve_data_dir({"EXACTALIGN_DATA": str(tmp_path / "missing")})


def test_fallback_is_shared_pilot_or_synthetic():
    d = resolve_data_dir({})
    shared = CHECKOUT.parent / "shared" / "pilot"
    if shared.is_dir():
        # the copy itself, or a view of it with its stale derived files rebuilt
        assert (d.base or d.path) == shared and d.source == "../shared/pilot"
        assert d.base is None or (d.rebuilt or d.left_out)
    else:
        assert d.path is None and d.source == "synthetic" and "synthetic" in d.describe()
        with pytest.raises(InputError, match="needs the pilot data"):
            d.require("amr")


def test_require_names_missing_file(tmp_path):
    d = resolve_data_dir({"EXACTALIGN_DATA": str(tmp_path)})
    with pytest.raises(InputError, match="does not exist"):
        d.require("nugget", "nothing.tbf")
    (tmp_path / "x").mkdir()
    assert d.require("x") == tmp_path / "x"
