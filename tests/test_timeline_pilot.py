"""Timelines on the pilot TimeML (TE3-Platinum, TimeBank-Dense test): the exact monotone
matching is proven optimal on every document; each reference matched against itself scores all
its events; the order-aware scores of the system runs (regression values, measured once: the
optimum does not depend on the seed). Skips without pilot data."""

import pytest

from exactalign.core.errors import InputError
from exactalign.data import resolve_data_dir
from exactalign.io.timeml import read_timeml_dir
from exactalign.metrics import timeline as T

pytestmark = pytest.mark.pilot


def _temporal():
    try:
        data = resolve_data_dir()
    except InputError:
        return None
    if not data.available or not (data.path / "temporal").is_dir():
        return None
    return data.path / "temporal"


BASE = _temporal()
skip = pytest.mark.skipif(BASE is None, reason="no pilot temporal/ data")

# run -> (reference, system, order-aware matched weight, reference events)
CASES = {
    "te3-gold": ("te3-platinum/gold", "te3-platinum/gold", 746, 746),
    "te3-SP+ILP": ("te3-platinum/gold", "te3-platinum/sys_ning17_SP+ILP", 727, 746),
    "te3-0.6_1.4_1": ("te3-platinum/gold", "te3-platinum/sys_ning17_0.6_1.4_1", 716, 746),
    "tbdense-caevo": ("tbdense/td-test-gold-timeml", "tbdense/td-test-sys-caevo", 296, 311),
}


@skip
@pytest.mark.parametrize("name", list(CASES))
def test_pilot_timelines(name):
    gold_dir, sys_dir, weight, events = CASES[name]
    corpus = T.match_corpus(read_timeml_dir(BASE / gold_dir), read_timeml_dir(BASE / sys_dir),
                            methods=("dag", "dag-greedy", "unconstrained"))
    assert all(d.results["dag"].proven_optimal for d in corpus.documents)
    prf = corpus.prf
    assert prf.recall_num == pytest.approx(weight) and prf.recall_den == events
    assert prf.recall == pytest.approx(weight / events)
    for d in corpus.documents:
        assert d.results["dag-greedy"].objective <= d.results["dag"].objective + 1e-9
        assert d.results["dag"].objective <= d.results["unconstrained"].objective + 1e-9
    truth_found, truth = corpus.recovery("dag")
    assert truth == events and 0 < truth_found <= truth
    if gold_dir == sys_dir:
        assert all(d.truth_monotone for d in corpus.documents)
