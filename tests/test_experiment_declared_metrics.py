"""The ``declared_metrics`` experiment: greedy twins vs proven optima of the shipped declared
metrics.

Without data: the protocol, the seeded synthetic corpora (deterministic, realistic sizes,
colliding spans), the per-corpus measurement on a case where greedy falls short, the fallbacks
when the pilot data (or part of it) is absent. With the pilot data: the quick run through the
command line -- every shipped metric present, exact >= greedy and proven optimal everywhere, the
CoNLL rows equal to the reference scorer's expected values, the smatch rows equal to the
reference optimum, GRIT's 54.50, the summary and the figure written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from exactalign.data import DataDir, resolve_data_dir
from exactalign.declared.library import LIBRARY
from experiments import REGISTRY
from experiments import declared_metrics as dm
from experiments.__main__ import main
from experiments.runner import ERROR_COLUMN, read_rows

DATA = resolve_data_dir()
TINY = {**dm.QUICK, "coref_docs": 3, "event_docs": 2, "relation_docs": 2, "dependency_docs": 2,
        "synthetic_fallback_docs": 4}


# ------------------------------------------------------------------------------------------
# without data
# ------------------------------------------------------------------------------------------
def test_registered_with_the_runner_protocol():
    assert REGISTRY["declared_metrics"] is dm
    assert dm.COLUMNS[-1] == ERROR_COLUMN and len(set(dm.COLUMNS)) == len(dm.COLUMNS)
    assert set(dm.QUICK) == set(dm.FULL) and dm.FIGURES == ("gap_by_metric.png",)
    shipped = [m for ms in dm.FAMILIES.values() for m in ms]
    assert sorted(shipped) == sorted(LIBRARY)  # every shipped metric, once


def test_a_metric_without_a_dataset_gives_an_absent_row(monkeypatch):
    monkeypatch.setattr(dm, "resolve_data_dir", lambda: DataDir(None, "synthetic"))
    monkeypatch.setitem(dm.FAMILIES, "event", dm.FAMILIES["event"][:-1])
    units = dm.units(TINY)
    (u,) = [u for u in units if u["metric"] == "event-trigger-hierarchical"]
    assert u["kind"] == "absent" and "no dataset" in u["note"]


@pytest.mark.parametrize("family", ["coref", "event", "relation", "dependency", "ree", "template",
                                    "smatch"])
def test_synthetic_corpora_are_seeded_and_deterministic(family):
    a = dm.synthetic_corpus(family, 1, 0.2, 3, seed=7)
    assert a == dm.synthetic_corpus(family, 1, 0.2, 3, seed=7)
    assert a != dm.synthetic_corpus(family, 1, 0.2, 3, seed=8)
    ids, refs, preds = a
    assert len(ids) == len(refs) == len(preds) == 3
    # the gold does not depend on the system (rate index), only the prediction
    _, refs2, preds2 = dm.synthetic_corpus(family, 2, 0.35, 3, seed=7)
    assert refs2 == refs and preds2 != preds


def test_synthetic_sizes_and_collisions():
    _, refs, preds = dm.synthetic_corpus("event", 0, 0.2, 6, seed=0)
    for ref in refs:
        events = ref["events"]
        assert 20 <= len(events) <= 60
        triggers = [tuple(e["trigger"]) for e in events]
        assert len(set(triggers)) < len(triggers)  # triggers shared by two events
        spans = [tuple(a["span"]) for e in events for a in e["arguments"]]
        assert len(set(spans)) < len(spans)  # argument spans collide across events
    keyed = [(tuple(e["trigger"]), e["type"]) for p in preds for e in p["events"]]
    assert len(set(keyed)) < len(keyed)  # predicted events of one trigger and type
    _, refs, _ = dm.synthetic_corpus("relation", 0, 0.2, 4, seed=0)
    assert all(20 <= len(r["relations"]) <= 60 for r in refs)
    _, refs, preds = dm.synthetic_corpus("coref", 0, 0.2, 6, seed=0)
    for ref, pred in zip(refs, preds, strict=True):
        mentions = [tuple(m) for c in ref["entities"] for m in c]
        assert 15 <= len(mentions) <= 120 and len(set(mentions)) == len(mentions)
        assert max(map(len, ref["entities"])) >= 3  # some long chains
        assert pred != ref
    _, refs, _ = dm.synthetic_corpus("dependency", 0, 0.2, 3, seed=0)
    for ref in refs:
        deps = [e["dep"] for e in ref["edges"]]
        assert deps == list(range(1, len(deps) + 1)) and len(deps) >= 40


def test_measure_counts_a_greedy_shortfall():
    # CEAFm (φ3 = |k ∩ r|): {ab}-{abcde} 2, {cdefg}-{abcde} 3, {cdefg}-{fg} 2. Greedy takes
    # the 3 and is left with nothing for {ab}; the optimum pairs 2 + 2 = 4 (of 7 mentions).
    gold = {"entities": [["a", "b"], ["c", "d", "e", "f", "g"]]}
    pred = {"entities": [["a", "b", "c", "d", "e"], ["f", "g"]]}
    same = {"entities": [["a", "b"], ["c", "d"]]}
    out = dm.measure("coref-ceafm", ["d0", "d1", "d2"], [gold, gold, same], [pred, pred, same],
                     0, "test")
    assert (out["exact_recall_num"], out["greedy_recall_num"], out["recall_den"]) == (12, 10, 18)
    assert out["docs_short"] == 2 and out["documents"] == 3
    assert out["gap_f1_points"] == pytest.approx(100 * (12 - 10) / 18)
    assert out["max_doc_gap_f1_points"] == pytest.approx(100 * (4 - 3) / 7)
    assert out["status"] == "optimal" and out["greedy_status"] == "feasible"
    assert out["f1_bound"] == pytest.approx(out["exact_f1"])


def test_without_pilot_data_synthetic_fallbacks(monkeypatch):
    monkeypatch.setattr(dm, "resolve_data_dir", lambda: DataDir(None, "synthetic"))
    rows = dm.run(TINY, quiet=True)
    assert {r["kind"] for r in rows} == {"synthetic"}
    assert {r["metric"] for r in rows} == set(LIBRARY)
    assert {"synthetic-amr", "synthetic-ree", "synthetic-templates"} <= {r["dataset"] for r in rows}
    for r in rows:
        assert r["status"] == "optimal"
        assert r["greedy_f1"] <= r["exact_f1"] + 1e-12 and r["gap_f1_points"] >= -1e-9
    text = dm.summary(rows)
    assert "No pilot data" in text and "synthetic-amr" in text


def test_missing_pilot_folders_give_absent_rows(monkeypatch, tmp_path):
    monkeypatch.setattr(dm, "resolve_data_dir", lambda: DataDir(tmp_path, "test"))
    rows = dm.run({**TINY, "rates": [0.2]}, quiet=True)
    absent = [r for r in rows if r["kind"] == "absent"]
    assert {r["dataset"] for r in absent} == {"conll-tests", "lpp-test", "grit-ree",
                                              "muc4-templates"}
    assert all("absent" in r["note"] for r in absent)
    assert all(r["kind"] in ("absent", "synthetic") for r in rows)
    text = dm.summary(rows)
    assert "Skipped: " in text and "conll-tests (pilot folder coref/" in text


# ------------------------------------------------------------------------------------------
# pilot data: the quick run through the command line
# ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def quick(tmp_path_factory) -> Path:
    if not DATA.available:
        pytest.skip("pilot data not available")
    out = tmp_path_factory.mktemp("declared-quick")
    assert main(["run", "declared_metrics", "--quick", "--out", str(out), "--quiet"]) == 0
    assert main(["figures", "--out", str(out), "--quiet"]) == 0
    return out


@pytest.mark.pilot
def test_quick_run_exact_beats_greedy_everywhere(quick):
    rows = read_rows(quick / "declared_metrics" / "rows.csv")
    assert rows and not any(r["error"] for r in rows)
    assert {r["metric"] for r in rows} == set(LIBRARY)
    assert not [r for r in rows if r["kind"] == "absent"]
    for r in rows:
        assert r["status"] == "optimal" and r["greedy_status"] == "feasible", r
        assert r["greedy_recall_num"] <= r["exact_recall_num"] + 1e-9
        assert r["greedy_precision_num"] <= r["exact_precision_num"] + 1e-9
        assert r["greedy_f1"] <= r["exact_f1"] + 1e-12
        assert r["gap_f1_points"] == pytest.approx(100 * (r["exact_f1"] - r["greedy_f1"]),
                                                   abs=1e-9)
        assert r["f1_bound"] == pytest.approx(r["exact_f1"], abs=1e-9)
        assert 0 <= r["docs_short"] <= r["documents"]
        assert r["time_exact_s"] >= 0 and r["time_greedy_s"] >= 0
        if r["docs_short"] == 0:
            assert r["gap_f1_points"] == pytest.approx(0, abs=1e-9)
    kinds = {r["dataset"]: r["kind"] for r in rows}
    assert kinds["conll-tests"] == "pilot" and kinds["synthetic-events"] == "synthetic"
    # somewhere the greedy twin does fall short (smatch on the Little Prince test at least)
    assert any(r["docs_short"] > 0 for r in rows if r["metric"] == "smatch")


@pytest.mark.pilot
def test_quick_run_coref_rows_equal_the_conll_expected_values(quick):
    base = DATA.path / "coref" / "conll-reference-scorer-tests"
    cases = json.loads((base / "expected_values.json").read_text())
    short = {"coref-muc": "muc", "coref-bcubed": "bcub", "coref-ceafe": "ceafe",
             "coref-ceafm": "ceafm"}
    rows = [r for r in read_rows(quick / "declared_metrics" / "rows.csv")
            if r["dataset"] == "conll-tests"]
    assert len(rows) == 4 * len(cases)
    by = {(r["metric"], r["system"].split(" ")[0]): r for r in rows}
    checked = 0
    for case in cases:
        for metric, name in short.items():
            r = by[(metric, case["id"])]
            expected = case["expected_metrics"].get(name)
            if expected is None:
                assert r["reference_match"] is None
                continue
            got = (r["exact_recall"], r["exact_precision"], r["exact_f1"])
            assert sum(abs(e - a) for e, a in zip(expected, got, strict=True)) < 1e-4, r
            assert r["reference_match"] is True
            assert r["reference_f1"] == pytest.approx(expected[2])
            checked += 1
    assert checked == 64  # MUC 28, B³ 16, CEAFe 10, CEAFm 10


@pytest.mark.pilot
def test_quick_run_smatch_grit_summary_and_figure(quick):
    rows = read_rows(quick / "declared_metrics" / "rows.csv")
    sm = [r for r in rows if r["metric"] == "smatch"]
    assert {r["system"] for r in sm} == {"JAMR", "CAMR"}
    assert all(r["documents"] == 103 for r in sm)
    if (resolve_data_dir().path / "amr" / "reference").is_dir():
        assert all(r["reference_match"] is True for r in sm)
        assert all(r["exact_f1"] == pytest.approx(r["reference_f1"], abs=1e-12) for r in sm)
    else:  # a fetched cache: the recorded references are absent, and the rows say so
        assert all(r["reference_f1"] is None and "absent" in r["note"] for r in sm)
    (grit,) = [r for r in rows if r["dataset"] == "grit-ree" and r["metric"] == "ceaf-ree"]
    assert round(100 * grit["exact_f1"], 2) == 54.50 and grit["reference_match"] is True
    assert (quick / "declared_metrics" / "gap_by_metric.png").read_bytes()[:4] == b"\x89PNG"
    section = (quick / "SUMMARY.md").read_text().split("## declared_metrics", 1)[1]
    assert "| metric | dataset | data | systems | docs | exact F1 | greedy F1 | gap (pts)" \
        in section
    assert "| smatch | lpp-test | pilot | 2 | 206 |" in section
    assert "synthetic: synthetic-coref" in section
    assert "64/64 (case, metric)" in section
    assert "GRIT CEAF-REE exact 54.50 = published 54.50" in section
    assert "gap_by_metric.png" in section
    h = dm.headline([r for r in rows if not r["error"]], None)
    assert h["instances"] == len(rows) and 0 < h["below"] <= h["instances"]
    assert h["gap_max"] >= h["gap_mean"] > 0 and h["finding"].endswith(".")
