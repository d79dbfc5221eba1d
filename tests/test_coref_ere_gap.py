"""The ``coref_ere_gap`` experiment on a tiny config: rows, invariants, summary, figure; the pilot
part skips without pilot data, the synthetic fallback always runs."""

from __future__ import annotations

import pytest

from exactalign.data import DataDir, resolve_data_dir
from experiments import coref_ere_gap as exp
from experiments.runner import read_rows, write_rows

TINY = {**exp.QUICK, "rates": [0.3], "replicates": 1, "gtt_docs": 3, "synthetic_docs": 4}


def _pilot() -> bool:
    try:
        d = resolve_data_dir()
    except Exception:
        return False
    return d.available and (d.path / "coref").is_dir()


def _check_rows(rows):
    assert rows and all(set(r) == set(exp.COLUMNS) for r in rows)
    for r in rows:
        assert r["ceafe_greedy"] <= r["ceafe_exact"] + 1e-9
        assert r["ceafm_greedy"] <= r["ceafm_exact"] + 1e-9
        proc = (r["ere_count_proc"], r["ere_overlap_proc"])
        assert proc <= (r["ere_count_exact"], r["ere_overlap_exact"])
        assert r["ere_below"] == (proc < (r["ere_count_exact"], r["ere_overlap_exact"]))
        assert r["certificate_ok"] is True
        assert (r["ent_complete_exact"] + r["ent_incomplete_exact"] + r["ent_nomatch_exact"]
                == r["key_entities"])


@pytest.mark.pilot
@pytest.mark.skipif(not _pilot(), reason="no pilot data")
def test_pilot_rows(tmp_path):
    rows = exp.run(TINY)
    _check_rows(rows)
    pilot = [r for r in rows if r["kind"] == "pilot"]
    # 36 CoNLL test cases (one document each), 2 + 2 EvmEval demo documents
    assert sum(r["source"] == "conll-tests" for r in pilot) == 36
    assert sum(r["source"] == "evmeval-events" for r in pilot) == 4
    assert {r["source"] for r in rows if r["kind"] == "perturbed"} == {
        "conll-tests", "evmeval-events", "muc4-gtt"}
    write_rows(tmp_path / "rows.csv", rows, exp.COLUMNS)
    back = read_rows(tmp_path / "rows.csv")
    text = exp.summary(back)
    assert "| conll-tests | pilot | 36 |" in text and "Time to score the pilot corpus" in text
    figs = exp.figures(tmp_path / "rows.csv", tmp_path)
    assert [f.name for f in figs] == list(exp.FIGURES)
    assert figs[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_synthetic_fallback(monkeypatch, tmp_path):
    monkeypatch.setattr(exp, "resolve_data_dir", lambda: DataDir(None, "synthetic"))
    rows = exp.run(TINY)
    _check_rows(rows)
    assert {(r["source"], r["kind"]) for r in rows} == {("synthetic", "perturbed")}
    assert len(rows) == 4
    # the headline says the data is synthetic (it counted "the 0 unperturbed pilot documents")
    assert exp.headline(rows)["finding"].endswith(
        "; no pilot documents: perturbed synthetic gold clusters only.")

    def untimed(rs):
        return [{k: v for k, v in r.items() if not k.startswith("time")} for r in rs]

    assert untimed(rows) == untimed(exp.run(TINY))  # seeded: the same rows again
