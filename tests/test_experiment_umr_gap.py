"""The umr_gap experiment: its quick rows (the pilot's English conversion and AnCast's samples
when present; the synthetic fallback always), their invariants, the summary, headline and
figure. Needs the ``ancast`` peer."""

from __future__ import annotations

import pytest

from exactalign import data
from exactalign.data import resolve_data_dir
from experiments import umr_gap
from experiments.runner import write_rows

pytest.importorskip("penman")
pytest.importorskip("ancast", reason="the ancast peer (pip install 'exactalign[peers]')")


def _check(rows):
    assert rows
    for r in rows:
        assert set(r) == set(umr_gap.COLUMNS)
        assert r["snt_ancast"] <= r["snt_exact"] and r["snt_proven"] == r["sentences"]
        assert r["doc_exact_sentence"] <= r["doc_exact"] and r["doc_proven"]
        assert r["doc_ancast"] is None or r["doc_ancast"] <= r["doc_exact_sentence"]
        assert (r["snt_below"] > 0) == (r["snt_exact"] > r["snt_ancast"])
        assert r["snt_gap_f1_max"] >= r["snt_gap_f1_mean"] >= 0


@pytest.fixture(scope="module")
def synthetic_rows():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(data.ENV_VAR, "none")
        mp.delenv(umr_gap.ENV, raising=False)
        return umr_gap.run(umr_gap.QUICK, quiet=True)


def test_synthetic_rows(synthetic_rows, tmp_path):
    _check(synthetic_rows)
    assert {r["source"] for r in synthetic_rows} == {"synthetic"}
    assert [r["system"] for r in synthetic_rows] == umr_gap.QUICK["systems"]
    # the perturbation is seeded: the same rows again
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(data.ENV_VAR, "none")
        mp.delenv(umr_gap.ENV, raising=False)
        again = umr_gap.run(umr_gap.QUICK, quiet=True)
    keys = ("snt_exact", "snt_ancast", "snt_test", "doc_exact", "doc_ancast")
    assert [[r[k] for k in keys] for r in again] == [[r[k] for k in keys]
                                                    for r in synthetic_rows]
    text = umr_gap.summary(synthetic_rows)
    assert "| synthetic | light |" in text
    head = umr_gap.headline(synthetic_rows)
    assert head["instances"] == sum(r["sentences"] for r in synthetic_rows)
    csv = tmp_path / "rows.csv"
    write_rows(csv, synthetic_rows, umr_gap.COLUMNS)
    (png,) = umr_gap.figures(csv, tmp_path)
    assert png.read_bytes().startswith(b"\x89PNG")


def test_pilot_rows():
    d = resolve_data_dir()
    if d.path is None or not (d.path / "umr" / "ufal-english").is_dir():
        pytest.skip("UMR pilot files absent")
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv(umr_gap.ENV, raising=False)
        rows = umr_gap.run({**umr_gap.QUICK, "languages": ["none"]}, quiet=True)
    _check(rows)
    conv = next(r for r in rows if r["source"] == "conversion")
    assert (conv["sentences"], conv["snt_exact"], conv["snt_ancast"], conv["snt_below"]) == (
        209, 1507, 1354, 80)
    assert conv["ancast_doc_failure"].startswith("ValueError")
    assert conv["doc_exact_sentence"] == 1507 and conv["doc_ancast"] is None
    assert "conversion AnCast's Smatch-format F is 28.81 vs 32.07" in umr_gap.headline(
        rows)["finding"]
