import pytest

from exactalign.metrics.aggregation import PRF, macro, micro


def test_prf_hand_derived():
    x = PRF.from_tp(3, 4, 6)
    assert x.recall == 3 / 4 and x.precision == 3 / 6
    assert x.f1 == pytest.approx(2 * (1 / 2) * (3 / 4) / (1 / 2 + 3 / 4))
    assert PRF().f1 == 0.0 and PRF(0, 0, 1, 2).recall == 0.0


def test_micro_sums_counts_macro_averages_ratios():
    a, b = PRF.from_tp(1, 1, 1), PRF.from_tp(0, 3, 1)
    m = micro([a, b])
    assert (m.recall, m.precision) == (1 / 4, 1 / 2)
    mac = macro([a, b])
    assert mac["recall"] == (1 + 0) / 2 and mac["precision"] == (1 + 0) / 2
    assert mac["f1"] == (1 + 0) / 2 and mac["n"] == 2
    assert macro([])["f1"] == 0.0


def test_json_shape():
    d = PRF.from_tp(1, 2, 4).to_dict()
    assert set(d) == {"recall", "precision", "f1", "counts"}
    assert d["counts"]["precision_den"] == 4
