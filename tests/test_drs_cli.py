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


def test_text_both_methods_and_pair_rows(tmp_path, capsys):
    pred, gold = _files(tmp_path)
    code, out, err = run(capsys, "drs", pred, gold, "--no-wordnet", "--pairs")
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
    assert lines[3] == ("DRS 1 (line 1): produced 4 gold 4; exact 2 P 0.5 R 0.5 F 0.5 "
                        "optimal bound 2; hillclimb 2 P 0.5 R 0.5 F 0.5")
    # DRS 2: EQU x2 x1 matches EQU x1 x2
    assert lines[4].startswith("DRS 2 (line 8): produced 3 gold 3; exact 3 P 1.0")
    assert len(lines) == 5
    # Counter's -ms (and --ms) is another name for --pairs; without it, no rows
    for flag in ("-ms", "--ms"):
        assert run(capsys, "drs", pred, gold, "--no-wordnet", flag)[1] == out
    code, plain, _ = run(capsys, "drs", pred, gold, "--no-wordnet")
    assert plain.splitlines() == lines[:3]


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


def _document(out: str) -> dict:
    """A ``--json`` document without what may differ between two runs of the same scores:
    the wall times and the options that only say how the run was made (``jobs``), and with
    every spelling of ``--smart`` (``smart``) left out."""
    def strip(o):
        if isinstance(o, dict):
            return {k: strip(v) for k, v in o.items() if k != "wall_time"}
        if isinstance(o, list):
            return [strip(v) for v in o]
        return o

    doc = strip(json.loads(out))
    doc["options"].pop("jobs")
    return doc


def test_smart_conc_or_no_and_its_other_spellings(tmp_path, capsys):
    pred, gold = _files(tmp_path)
    docs = {}
    for flags in (("--smart", "no"), ("-s", "no"), ("--no-smart",), ("--smart", "conc"), ()):
        code, out, err = run(capsys, "drs", pred, gold, "--no-wordnet", "--json",
                             "--method", "hillclimb", "-r", "1", "--seed", "5", *flags)
        assert code == 0 and err == ""
        docs[flags] = _document(out)
    assert docs[("--smart", "no")] == docs[("-s", "no")] == docs[("--no-smart",)]
    assert docs[("--smart", "conc")] == docs[()]
    assert docs[()]["options"]["smart"] == "conc"
    assert docs[("--no-smart",)]["options"]["smart"] == "no"
    assert docs[()]["counter"]["smart"] is True
    assert docs[("--no-smart",)]["counter"]["smart"] is False
    # with -r 1 the one initial mapping is the smart one or a random one: the rounds say so
    assert [r["counter"]["smart"] for r in docs[()]["documents"]] == [2, 3]
    assert [r["counter"]["smart"] for r in docs[("--no-smart",)]["documents"]] == [None, None]


def test_an_unknown_smart_value_is_one_usage_error(tmp_path, capsys):
    pred, gold = _files(tmp_path)
    code, out, err = run(capsys, "drs", pred, gold, "--smart", "yes")
    assert (code, out) == (2, "")
    line = one_error_line(err)
    assert "--smart: invalid choice: 'yes' (choose from 'conc', 'no')" in line


def test_counter_spellings_are_the_same_options(tmp_path, capsys):
    pred, gold = _files(tmp_path)
    for ours, counters in ((("--include-ref",), ("--include_ref",)),
                           (("--default-sense",), ("--default_sense",)),
                           (("--digits", "2"), ("--significant", "2")),
                           (("--runs", "2"), ("-runs", "2"))):
        a = run(capsys, "drs", pred, gold, "--no-wordnet", "--json", *ours)[1]
        b = run(capsys, "drs", pred, gold, "--no-wordnet", "--json", *counters)[1]
        assert _document(a) == _document(b), ours


def _corpus_files(tmp_path, n: int):
    """Two files of ``n`` synthetic DRS pairs (a gold DRS against a copy missing clauses or
    another DRS)."""
    import random

    from experiments.drs_gap import synthetic_drs

    rng = random.Random(3)
    gold = [synthetic_drs(rng) for _ in range(n)]
    pred = [synthetic_drs(rng) if k % 3 == 0 else g[: max(1, len(g) - k % 4)]
            for k, g in enumerate(gold)]

    def text(drss):
        return "\n".join("\n".join(" ".join(c) for c in d) + "\n" for d in drss)

    return put(tmp_path, "pred.drs", text(pred)), put(tmp_path, "gold.drs", text(gold))


def test_jobs_give_the_same_document_as_one_process(tmp_path, capsys, monkeypatch):
    """``--jobs 2`` spreads the exact path's chunks over two workers; every number, status,
    bound and Counter mapping is the one of ``--jobs 1`` (the chunks do not depend on the
    workers). Small chunks here, so that a 30-pair file makes four."""
    from exactalign.metrics import drs_report

    monkeypatch.setattr(drs_report, "CHUNK_PAIRS", 8)
    pred, gold = _corpus_files(tmp_path, 30)
    docs = []
    for jobs in ("1", "2", "-1"):
        code, out, err = run(capsys, "drs", pred, gold, "--no-wordnet", "--ill", "score",
                             "--json", "--runs", "2", "--jobs", jobs)
        assert code == 0, err
        docs.append(_document(out))
    assert docs[0] == docs[1] == docs[2]
    assert docs[0]["pairs_scored"] == 30
    assert all(r["solves"]["exact"]["status"] == "optimal" for r in docs[0]["documents"])
    # and the mappings themselves (not in the document): the same per pair
    reps = [drs_report.score_files(pred, gold, ill="score", jobs=j) for j in (1, 2)]
    assert [[tuple(map(tuple, p.exact.alignment)) for p in r.pairs] for r in reps][0] == \
        [[tuple(map(tuple, p.exact.alignment)) for p in r.pairs] for r in reps][1]


def test_bad_jobs(tmp_path, capsys):
    pred, gold = _files(tmp_path)
    for value in ("0", "-2", "x"):
        code, out, err = run(capsys, "drs", pred, gold, "--jobs", value)
        assert (code, out) == (2, "")
        assert "--jobs" in one_error_line(err)
