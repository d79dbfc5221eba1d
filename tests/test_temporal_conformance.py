"""Reproduction of the TempEval-3 toolkit's temporal awareness on TE3-Platinum (pilot data).

Reference numbers: the official toolkit (naushadzaman/tempeval3_toolkit @e02eb2d: the
TimeML-Normalizer, then ``evaluation-relations/temporal_evaluation.py`` under Python 2.7), run on
``temporal/te3-platinum`` -- overall F1/P/R as it prints them, and per-document counts
``(prec_matched, system links, rec_matched, gold links)`` read from its ``evaluate_two_files``
for the run whose Timegraph defects matter most. Skips when the pilot data is absent."""

from __future__ import annotations

import pytest

from exactalign import InputError
from exactalign.cli import main
from exactalign.data import resolve_data_dir
from exactalign.io.timeml import read_timeml_dir
from exactalign.metrics.temporal import score_corpus
from exactalign.testing import recorded

pytestmark = pytest.mark.pilot

OVERALL = {  # run: (F1, P, R) in percent, as the toolkit prints them
    "gold": (100.0, 100.0, 100.0),
    "sys_ning17_SP+ILP": (67.2406, 69.0909, 65.4867),
    "sys_ning17_20_0.01_0.0": (67.5557, 69.7597, 65.4867),
    "sys_ning17_0.6_1.4_1": (40.2624, 35.5236, 46.4602),
}
PER_DOC_RUN = recorded.TE3_PER_DOC_RUN  # the toolkit per document, recorded outside the pilot
PER_DOC = recorded.TE3_PER_DOC


def _platinum():
    try:
        data = resolve_data_dir()
        return data.require("temporal", "te3-platinum") if data.available else None
    except InputError:
        return None


BASE = _platinum()
needs_data = pytest.mark.skipif(BASE is None, reason="pilot data (temporal/te3-platinum) absent")


@pytest.fixture(scope="module")
def gold():
    return read_timeml_dir(BASE / "gold")


@needs_data
@pytest.mark.parametrize("run", sorted(OVERALL))
def test_te3_mode_matches_the_toolkit(gold, run):
    scores = score_corpus(gold, read_timeml_dir(BASE / run), "te3")
    f1, p, r = OVERALL[run]
    assert 100 * scores.f1 == pytest.approx(f1, abs=1e-4)
    assert 100 * scores.precision == pytest.approx(p, abs=1e-4)
    assert 100 * scores.recall == pytest.approx(r, abs=1e-4)
    if run == PER_DOC_RUN:
        got = {d.doc_id: (d.prec_matched, d.sys_total, d.rec_matched, d.gold_total)
               for d in scores.documents}
        assert got == PER_DOC


@needs_data
def test_exact_mode_gold_against_itself_and_cli(gold, capsys):
    scores = score_corpus(gold, gold, "exact")
    assert scores.f1 == 1.0 and all(d.notes["gold_dropped"] == 0 for d in scores.documents)
    assert main(["temporal", str(BASE / "gold"), str(BASE / "sys_ning17_SP+ILP"), "--mode",
                 "te3"]) == 0
    assert "69.0909  65.4867  67.2406" in capsys.readouterr().out


TBDENSE = recorded.TBDENSE  # the toolkit on TimeBank-Dense, recorded outside the pilot


@pytest.mark.parametrize("run", sorted(TBDENSE))
def test_te3_mode_matches_the_toolkit_on_timebank_dense(run):
    data = resolve_data_dir()
    base = data.path / "temporal" / "tbdense" if data.available else None
    if base is None or not (base / run).is_dir():
        pytest.skip("pilot data (temporal/tbdense) absent")
    scores = score_corpus(read_timeml_dir(base / "td-test-gold-timeml"),
                          read_timeml_dir(base / run), "te3")
    f1, p, r = TBDENSE[run]
    assert (100 * scores.f1, 100 * scores.precision, 100 * scores.recall) == \
        pytest.approx((f1, p, r), abs=1e-4)
