"""``exactalign grits``: text and JSON output, the corpus scores against grits-metric's
evaluator, and bad input as one error line."""

from __future__ import annotations

import json

import pytest
from test_bad_input import one_error_line, put, run
from test_grits import pubtabnet

from exactalign.metrics import grits as M

GOLD = ("<table><thead><tr><td colspan=2>h</td></tr></thead>"
        "<tbody><tr><td>a</td><td>b</td></tr></tbody></table>")
PRED = "<table><tr><td>h</td><td></td></tr><tr><td>a</td><td>b</td></tr></table>"


def test_text_output(tmp_path, capsys):
    g, p = put(tmp_path, "g.html", GOLD), put(tmp_path, "p.html", PRED)
    code, out, err = run(capsys, "grits", g, p, "--variant", "top")
    assert (code, err) == (0, "")
    # Top: the split header scores IoU 1/2 at both positions: tp 3 of 4 and 4
    assert "top/factored   P 0.7500  R 0.7500  F1 0.7500" in out
    assert "top/exact      P 0.7500  R 0.7500  F1 0.7500  optimal" in out
    assert "(tp 3.0000 of 4 true, 4 predicted positions)" in out


def test_json_matches_the_python_function(tmp_path, capsys):
    g, p = put(tmp_path, "g.html", GOLD), put(tmp_path, "p.html", PRED)
    code, out, _ = run(capsys, "grits", g, p, "--json")
    assert code == 0
    doc = json.loads(out)
    rep = M.score_files(g, p)
    assert set(doc["overall"]) == {"top/factored", "top/exact", "con/factored", "con/exact"}
    for (v, m), (f, prec, rec, tp, nt, npred) in rep.micro.items():
        o = doc["overall"][f"{v}/{m}"]
        assert (o["f1"], o["precision"], o["recall"]) == (f, prec, rec)
        assert o["counts"] == {"tp": tp, "true_cells": nt, "pred_cells": npred}
    row = doc["documents"][0]
    assert row["id"] == "g" and row["true_shape"] == [2, 2]
    assert row["solves"]["con/exact"]["proven_optimal"] is True
    assert row["solves"]["con/exact"]["alignment"] == {"rows": [[0, 0], [1, 1]],
                                                       "columns": [[0, 0], [1, 1]]}
    # Con: "h" = "h", "h" vs "" 0, "a", "b": tp 3 of 4
    assert row["scores"]["con/factored"]["counts"]["tp"] == 3.0
    assert doc["gaps"] == {"top": [], "con": []}
    # what it prints is the report score_files returns, built once
    assert doc["overall"] == rep.overall and doc["macro"] == rep.macro_prf
    assert doc["gaps"] == rep.gaps and doc["solves"].keys() == rep.solves.keys()
    assert [r["scores"] for r in doc["documents"]] == [r["scores"] for r in rep.documents]


@pytest.mark.parametrize("gold, message", [
    ("<p>none</p>", "table g: no <table> element in the HTML"),
    ("<table><tr><td rowspan=2>a</td></tr></table>",
     "table g: cell 0 (row 0, column 0): rowspan 2 reaches row 1, past the table's last row (0)"),
    ("<table><tr><td>a</td><td rowspan=2>b</td></tr><tr><td colspan=2>c</td></tr></table>",
     "table g: cell 2 (row 1, column 0): overlaps cell 1 at row 1, column 1"),
    ("<table><tr><td colspan=99999>a</td></tr></table>", "colspan=99999 is past the largest"),
    ("<table></table>", "table g: the table has no cells"),
])
def test_bad_input_is_one_error_line(tmp_path, capsys, gold, message):
    g, p = put(tmp_path, "g.html", gold), put(tmp_path, "p.html", PRED)
    code, out, err = run(capsys, "grits", g, p)
    assert (code, out) == (2, "")
    line = one_error_line(err)
    assert line.startswith(f"exactalign: error: {g}:") and message in line, line


def test_missing_prediction_and_loc_without_boxes(tmp_path, capsys):
    g = put(tmp_path, "g.json", json.dumps({"t1": GOLD, "t2": GOLD}))
    p = put(tmp_path, "p.json", json.dumps({"t1": PRED}))
    code, _, err = run(capsys, "grits", g, p)
    assert code == 2 and "table t2: no predicted table of that name" in one_error_line(err)
    code, _, err = run(capsys, "grits", g, g, "--variant", "loc")
    assert code == 2 and "GriTS-Loc needs cell boxes" in one_error_line(err)


def test_corpus_scores_equal_grits_metrics_evaluator():
    """Micro and macro GriTS over the 20 pilot predictions against grits-metric's
    GritsEvaluator. Residual: the evaluator keeps each table's tp in a float32 matrix (its
    Hungarian matching of tables), so its corpus scores differ from ours (float64, and equal
    to its per-table ``grits_*_matching`` bit for bit) by float32 rounding, < 1e-7."""
    grits = pytest.importorskip("grits")
    p = pubtabnet()
    gold = json.loads((p / "sample_gt.json").read_text())
    pred = json.loads((p / "sample_pred.json").read_text())
    ev = grits.GritsEvaluator(["top", "con"])
    for n in gold:  # one sample per table (a sample's tables are matched to one another)
        ev.eval_htmls([gold[n]["html"]], [pred[n]])
    micro, macro = ev.compute_grits(), ev.compute_mean_grits_per_sample()
    rep = M.score_files(p / "sample_gt.json", p / "sample_pred.json", method="factored")
    for v in ("top", "con"):
        f, prec, rec = rep.micro[(v, "factored")][:3]
        assert f == pytest.approx(micro[f"grits_{v}"], rel=1e-7, abs=0)
        assert prec == pytest.approx(micro[f"grits_{v}_precision"], rel=1e-7, abs=0)
        assert rec == pytest.approx(micro[f"grits_{v}_recall"], rel=1e-7, abs=0)
        assert rep.macro[(v, "factored")][0] == pytest.approx(
            macro[f"mean_grits_{v}_per_sample"], rel=1e-7, abs=0)


@pytest.mark.parametrize("name, content, message", [
    ("g.json", '{"t": "<table>', "not valid JSON"),
    ("g.json", "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ("g.json", '{"t": 5}', "table t: expected HTML text or a list of cells, not int"),
    ("g.jsonl", '{"filename": "x"}\n', "a PubTabNet line is an object with an 'html' object"),
    ("g.html", b"<table><tr><td>\xff</td></tr></table>", "not UTF-8 text"),
])
def test_unreadable_files_are_one_error_line(tmp_path, capsys, name, content, message):
    g = tmp_path / name
    (g.write_bytes if isinstance(content, bytes) else g.write_text)(content)
    p = put(tmp_path, "p.html", PRED)
    code, out, err = run(capsys, "grits", g, p)
    assert (code, out) == (2, "")
    line = one_error_line(err)
    assert line.startswith(f"exactalign: error: {g}") and message in line, line


def test_deeply_nested_html_is_read():
    from exactalign.io.tables import parse_html

    depth = 50_000
    t = parse_html("<table><tr><td>" + "<span>" * depth + "x" + "</span>" * depth
                   + "</td></tr></table>")
    assert [c.text for c in t.cells] == ["x"]
