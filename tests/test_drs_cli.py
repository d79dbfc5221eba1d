"""``exactalign drs PRED GOLD``: text and JSON output, Counter's options, and bad input (one
``exactalign: error: FILE:LINE: ...`` line, exit 2)."""

from __future__ import annotations

import json

from test_bad_input import one_error_line, put, run
from test_json_every_command import DRS_GOLD, DRS_PRED

from exactalign.metrics.drs import counter_f
from exactalign.metrics.drs_report import score_files


def _files(tmp_path):
    return put(tmp_path, "pred.drs", DRS_PRED), put(tmp_path, "gold.drs", DRS_GOLD)


def test_text_both_methods_and_ms_rows(tmp_path, capsys):
    pred, gold = _files(tmp_path)
    code, out, err = run(capsys, "drs", pred, gold, "--no-wordnet", "--ms")
    assert code == 0 and err == ""
    lines = out.splitlines()
    p, r, f = counter_f(5, 7, 7)
    assert lines[0] == (f"[exact] P {p} R {r} F {f} (5 of 7 produced / 7 gold clauses matched); "
                        "2/2 DRS pairs proven optimal")
    assert lines[1].startswith(f"[hillclimb] P {p} R {r} F {f} (5 of 7 produced")
    assert lines[1].endswith("-r 20, seed 0")
    assert lines[2] == ("Counter's mapping is below the optimum on 0 of 2 DRS pairs, 0 clauses, "
                        "0.00 F1 points")
    # DRS 1: the role and the sense are wrong (REF clauses left out): 2 of 4
    assert lines[3] == ("DRS 1 (line 1): produced 4 gold 4; exact 2 P 0.5 R 0.5 F 0.5; "
                        "hillclimb 2 P 0.5 R 0.5 F 0.5")
    # DRS 2: EQU x2 x1 matches EQU x1 x2
    assert lines[4].startswith("DRS 2 (line 8): produced 3 gold 3; exact 3 P 1.0")


def test_json_document(tmp_path, capsys):
    pred, gold = _files(tmp_path)
    code, out, _ = run(capsys, "drs", pred, gold, "--no-wordnet", "--json", "--runs", "2",
                       "--seed", "4")
    assert code == 0
    doc = json.loads(out)
    assert doc["command"] == "drs" and doc["inputs"] == {"reference": str(gold),
                                                         "system": str(pred)}
    assert doc["overall"]["exact"]["counts"] == {"matched": 5, "test_clauses": 7,
                                                     "gold_clauses": 7}
    assert doc["counter"]["below"] == 0 and len(doc["counter"]["runs"]) == 2
    assert doc["solves"]["exact"]["status"] == "optimal"
    rows = doc["documents"]
    assert [r["id"] for r in rows] == [0, 1] and [r["line"] for r in rows] == [1, 8]
    assert rows[0]["counter"]["runs"] == [2, 2]
    assert doc["ill"] == {"mode": "error", "pred": 0, "gold": 0}
    # what it prints is the report score_files returns, built once
    rep = score_files(pred, gold, runs=2, seed=4)
    assert doc["overall"] == rep.overall and doc["counter"] == rep.counter
    assert [r["scores"] for r in rows] == [r["scores"] for r in rep.documents]
    assert [list(r) for r in rep.per_run] == [[x["precision"], x["recall"], x["f1"]]
                                               for x in doc["counter"]["runs"]]


def test_options_change_the_clauses(tmp_path, capsys):
    pred, gold = _files(tmp_path)
    counts = {}
    for flags in ((), ("-ic",), ("-dse",), ("-dr",), ("-dc",)):
        code, out, _ = run(capsys, "drs", pred, gold, "--no-wordnet", "--json",
                           "--method", "exact", *flags)
        assert code == 0
        c = json.loads(out)["overall"]["exact"]["counts"]
        counts[flags] = (c["matched"], c["test_clauses"], c["gold_clauses"])
    assert counts[()] == (5, 7, 7)
    assert counts[("-ic",)] == (9, 11, 11)  # four REF clauses, each matched
    assert counts[("-dse",)] == (6, 7, 7)  # eat "v.02" -> "n.01" as eat "v.01" does
    assert counts[("-dr",)] == (6, 7, 7)  # Theme and Agent both Role
    assert counts[("-dc",)] == (6, 7, 7)


def test_different_numbers_of_drss_is_an_input_error(tmp_path, capsys):
    pred = put(tmp_path, "one.drs", DRS_PRED.split("\n\n")[0] + "\n")
    gold = put(tmp_path, "gold.drs", DRS_GOLD)
    code, out, err = run(capsys, "drs", pred, gold, "--no-wordnet")
    assert (code, out) == (2, "")
    line = one_error_line(err)
    assert str(pred) in line and "1 DRSs in the produced file but 2" in line


def test_ill_formed_error_dummy_score(tmp_path, capsys):
    bad = put(tmp_path, "bad.drs", 'b1 REF x1\nb1 Foo x1 x2 x3\n\n' + DRS_PRED.split("\n\n")[1])
    gold = put(tmp_path, "gold.drs", DRS_GOLD)
    code, out, err = run(capsys, "drs", bad, gold, "--no-wordnet")
    assert (code, out) == (2, "")
    line = one_error_line(err)
    assert line.startswith(f"exactalign: error: {bad}:2: DRS 1 is ill-formed")
    code, out, err = run(capsys, "drs", bad, gold, "--no-wordnet", "--ill", "dummy", "--json")
    assert code == 0 and "1 ill-formed DRS in" in err
    doc = json.loads(out)
    assert doc["ill"] == {"mode": "dummy", "pred": 1, "gold": 0}
    # the dummy: b1 REF x1 (left out: x1 occurs in its concept) and an always-wrong concept
    assert doc["documents"][0]["scores"]["exact"]["counts"]["matched"] == 0
    short = put(tmp_path, "short.drs", 'b1 REF x1\nb1 Foo\n\n' + DRS_PRED.split("\n\n")[1])
    code, out, err = run(capsys, "drs", short, gold, "--no-wordnet", "--ill", "score")
    assert (code, out) == (2, "")
    assert one_error_line(err).startswith(f"exactalign: error: {short}:2: DRS 1: a clause of 2")


def test_empty_file_is_an_input_error(tmp_path, capsys):
    empty = put(tmp_path, "empty.drs", "")
    code, out, err = run(capsys, "drs", empty, empty, "--no-wordnet")
    assert (code, out) == (2, "")
    assert f"{empty}: no DRS in the file" in one_error_line(err)


def test_bad_arguments(tmp_path, capsys):
    pred, gold = _files(tmp_path)
    for argv in (("-r", "0"), ("--runs", "x"), ("-sig", "0")):
        code, out, err = run(capsys, "drs", pred, gold, *argv)
        assert (code, out) == (2, "")
        one_error_line(err)
