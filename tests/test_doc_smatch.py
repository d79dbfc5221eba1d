"""The doc_smatch experiment: its quick rows (pilot data when present, and the synthetic
fallback always), their invariants, the summary, headline and figure."""

from __future__ import annotations

import pytest

from exactalign import data
from exactalign.data import resolve_data_dir
from experiments import REGISTRY, doc_smatch
from experiments.runner import ExperimentError, completed_rows, write_rows

penman = pytest.importorskip("penman")

STATUSES = {"optimal", "time_limit"}


@pytest.fixture(scope="module")
def quick_rows():
    return doc_smatch.run(doc_smatch.QUICK, quiet=True)


@pytest.fixture(scope="module")
def synthetic_rows():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(data.ENV_VAR, "none")
        assert not resolve_data_dir().available
        return doc_smatch.run(doc_smatch.QUICK, quiet=True)


def _check_rows(rows, config):
    assert rows
    for r in rows:
        assert set(r) == set(doc_smatch.COLUMNS)
        assert all(r[c] is not None for c in doc_smatch.COLUMNS if c != "error"), r
        assert r["hc_status"] in {"feasible", "time_limit"}
        assert r["restricted_status"] in STATUSES and r["unrestricted_status"] in STATUSES
        assert r["proven"] == (r["restricted_status"] == r["unrestricted_status"] == "optimal")
        # bounds hold whatever the status; the chain of optima where proven
        assert r["hc_matched"] <= r["restricted_bound"] + 1e-9
        assert r["restricted_matched"] <= r["unrestricted_bound"] + 1e-9
        if r["proven"]:
            assert r["hc_matched"] <= r["restricted_matched"] <= r["unrestricted_matched"]
            assert r["restricted_bound"] == r["restricted_matched"]
            assert r["unrestricted_bound"] == r["unrestricted_matched"]
            assert r["hc_f1"] <= r["restricted_f1"] <= r["unrestricted_f1"]
            assert r["gap_unrestricted_f1"] == pytest.approx(
                100 * (r["unrestricted_f1"] - r["hc_f1"]))
            assert r["restriction_cost_f1"] == pytest.approx(
                100 * (r["unrestricted_f1"] - r["restricted_f1"]))
        assert 0 <= r["gap_restricted_f1"] <= r["gap_unrestricted_f1"] + 1e-9
        assert r["restriction_cost_f1"] >= 0
        assert 0 < r["pairs_restricted"] <= r["pairs_unrestricted"]
        assert r["triples_test"] > 0 and r["triples_gold"] > 0
        assert r["merges_gold"] >= 0 and r["merges_test"] >= 0
        assert r["variables_gold"] > r["sentences"]
        assert min(r["hc_time_s"], r["restricted_time_s"], r["unrestricted_time_s"]) >= 0
    # every (document, system) once, each system of a perturbed source on every document
    keys = [(r["source"], r["document"], r["system"]) for r in rows]
    assert len(keys) == len(set(keys))
    for source in {r["source"] for r in rows if r["kind"] == "perturbed"}:
        sel = [r for r in rows if r["source"] == source]
        assert {r["system"] for r in sel} == set(config["systems"])
        assert len(sel) == len({r["document"] for r in sel}) * len(config["systems"])


def test_quick_rows_complete_and_consistent(quick_rows):
    _check_rows(quick_rows, doc_smatch.QUICK)
    if resolve_data_dir().available:
        sources = {r["source"] for r in quick_rows}
        assert sources == {"lpp-v3.0", "lp-jamr-camr", "lp-bart-t5"}
        parser = [r for r in quick_rows if r["kind"] == "parser"]
        assert {r["system"] for r in parser} == {"JAMR", "CAMR", "BART", "T5"}
        assert all(r["sentences"] == doc_smatch.QUICK["parser_window"] for r in parser)
        # the documents have coreference merges, in gold and in the systems
        assert sum(r["merges_gold"] for r in quick_rows) > 0
        assert sum(r["merges_test"] for r in quick_rows) > 0


def test_synthetic_fallback_runs_and_says_so(synthetic_rows):
    _check_rows(synthetic_rows, doc_smatch.QUICK)
    assert {r["source"] for r in synthetic_rows} == {doc_smatch.SYNTHETIC}
    assert len(synthetic_rows) == (doc_smatch.QUICK["synthetic_docs"]
                                   * len(doc_smatch.QUICK["systems"]))
    assert "No pilot data" in doc_smatch.summary(synthetic_rows)
    assert "synthetic" in doc_smatch.headline(synthetic_rows)["finding"]


def test_summary_headline_and_figure_from_the_csv(quick_rows, tmp_path):
    csv_path = tmp_path / "rows.csv"
    write_rows(csv_path, quick_rows, list(doc_smatch.COLUMNS))
    rows = completed_rows(csv_path)
    text = doc_smatch.summary(rows)
    table = [ln for ln in text.splitlines() if ln.startswith("| ")]
    assert len(table) == 1 + len({(r["source"], r["system"]) for r in rows})
    assert "System rankings" in text
    sources = list(dict.fromkeys(r["source"] for r in rows))
    assert sum(ln.startswith("- ") and "order" in ln for ln in text.splitlines()) == len(sources)
    h = doc_smatch.headline(rows)
    assert h["instances"] == len(rows) and 0 <= h["below"] <= len(rows)
    assert h["rankings"] == len(sources) and 0 <= h["rankings_changed"] <= h["rankings"]
    assert h["finding"].endswith(".") and "\n" not in h["finding"]
    if h["below"]:
        assert 0 < h["gap_mean"] <= h["gap_max"]
    (png,) = doc_smatch.figures(csv_path, tmp_path)
    assert png.read_bytes().startswith(b"\x89PNG") and png.stat().st_size > 10_000


def test_unproven_documents_are_listed_never_called_optimal(quick_rows):
    rows = [dict(r) for r in quick_rows]
    r = rows[0]
    r.update(unrestricted_status="time_limit", proven=False,
             unrestricted_bound=r["unrestricted_matched"] + 7)
    text = doc_smatch.summary(rows)
    assert "Not proven within the time limit" in text
    assert f"{r['source']}/{r['document']}/{r['system']}" in text and "(7)" in text
    assert "not proven within the time limit" in doc_smatch.headline(rows)["finding"]


def test_violated_invariants_raise(quick_rows):
    r = dict(quick_rows[0])
    doc_smatch.check_row(r)
    with pytest.raises(ExperimentError, match="above a bound"):
        doc_smatch.check_row({**r, "hc_matched": r["restricted_bound"] + 1})
    with pytest.raises(ExperimentError, match="above the restricted optimum"):
        doc_smatch.check_row({**r, "restricted_matched": r["hc_matched"] - 1,
                              "restricted_status": "optimal"})
    bad = {**r, "restricted_matched": r["unrestricted_matched"] + 1,
           "restricted_bound": r["unrestricted_matched"] + 1}
    with pytest.raises(ExperimentError):
        doc_smatch.check_row(bad)


def test_documents_split_chapters_evenly_and_mentions():
    assert doc_smatch._parts(166, 60) == [(0, 55), (55, 111), (111, 166)]
    assert doc_smatch._parts(60, 60) == [(0, 60)]
    assert doc_smatch._parts(12, 5) == [(0, 4), (4, 8), (8, 12)]
    g = penman.decode('(s / say-01 :ARG0 (h / he) :ARG1 (a / and :op1 (c / city :name '
                      '(n / name :op1 "X")) :op2 (l / little)) :time (d / date-entity))')
    assert [v for v in sorted(g.variables()) if doc_smatch.is_mention(g, v)] == ["h"]


def test_registered():
    assert REGISTRY["doc_smatch"] is doc_smatch
    assert doc_smatch.COLUMNS[-1] == "error" and "fallback" in doc_smatch.COLUMNS
