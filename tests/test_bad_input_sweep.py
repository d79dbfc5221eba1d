"""Defects found by issue 36's held-out sweep of malformed and extreme input over every command
(empty, binary, truncated, wrong-format and huge-number files, long lines, duplicated ids,
unknown option values, stdin). Each case had a traceback, a hang or a silent score; each test
fails when its fix is reverted, and checks the one clear error (file, line) that replaced it."""

from __future__ import annotations

import json

from test_bad_input import assert_input_error, one_error_line, put, run
from test_json_every_command import (
    AMR_GOLD,
    AMR_TEST,
    GOLD_TBF,
    GTT_GOLD,
    GTT_PRED,
    KEY_CONLL,
    REE_GOLD,
    REE_PRED,
    RESP_CONLL,
    SAID,
    SYS_TBF,
    TIMELINE_GOLD,
    timeml,
)


# -- nugget: a span of 10**30 characters allocated them all (MemoryError traceback) -----------
def test_nugget_span_wider_than_the_cap_is_one_error(tmp_path, capsys):
    huge = GOLD_TBF.replace("10,15", "10,1000000000000000000000000000000", 1)
    assert huge != GOLD_TBF
    gold, system = put(tmp_path, "g.tbf", huge), put(tmp_path, "s.tbf", SYS_TBF)
    line = 1 + huge.split("\n").index(next(x for x in huge.split("\n") if "10,1000" in x))
    for extra in ((), ("--scheme", "muc"), ("--pilot-study",), ("-c", "-a")):
        assert_input_error(capsys, ["nugget", "-g", gold, "-s", system, *extra], f"{gold}:{line}:",
                           "covers 999999999999999999999999999990 characters, more than 100000")
    # on the system side too
    gold2, system2 = put(tmp_path, "g2.tbf", GOLD_TBF), put(tmp_path, "s2.tbf", huge)
    assert_input_error(capsys, ["nugget", "-g", gold2, "-s", system2], f"{system2}:{line}:",
                       "more than 100000")


def test_nugget_span_at_the_cap_is_scored(tmp_path, capsys):
    wide = GOLD_TBF.replace("10,15", "10,100010", 1)
    gold, system = put(tmp_path, "g.tbf", wide), put(tmp_path, "s.tbf", SYS_TBF)
    code, out, err = run(capsys, "nugget", "-g", gold, "-s", system, "--json")
    assert code == 0 and "Traceback" not in err
    json.loads(out)


# -- an error quoting a line of megabytes is cut in its middle --------------------------------
def test_an_error_quoting_a_huge_line_is_shortened(tmp_path, capsys):
    doc_id = "d" * 3_000_000  # a document id of 3 MB, quoted by the error
    gold = put(tmp_path, "g.tbf", GOLD_TBF)
    system = put(tmp_path, "s.tbf", SYS_TBF.replace("d1", doc_id))
    code, out, err = run(capsys, "nugget", "-g", gold, "-s", system)
    line = one_error_line(err)
    assert (code, out) == (2, "")
    assert line.startswith(f"exactalign: error: {system}: none of its 1 document(s)")
    assert len(line) < 1100 and "characters]... ddd" in line


def test_shorten_keeps_short_messages():
    from exactalign.cli import MAX_MESSAGE, shorten

    assert shorten("a" * MAX_MESSAGE) == "a" * MAX_MESSAGE
    cut = shorten("f.txt:3: " + "b" * 5000 + " end")
    assert cut.startswith("f.txt:3: bbb") and cut.endswith("b end") and len(cut) <= MAX_MESSAGE


# -- GTT/REE predictions without any document: a silent 0 ------------------------------------
def test_muc4_gtt_predictions_without_documents_warn(tmp_path, capsys):
    for gold_doc, metric in ((GTT_GOLD, "gtt-f1"), (REE_GOLD, "ceaf-ree")):
        gold = put(tmp_path, f"{metric}.json", json.dumps(gold_doc) + "\n")
        pred = put(tmp_path, "p.out", "{}")
        code, out, err = run(capsys, "muc4", "--format", "gtt", "--metric", metric, gold, pred,
                             "--json")
        assert code == 0 and "Traceback" not in err
        warning = f"{pred}: no document in the file: every key template counts as missing"
        assert f"exactalign: warning: {warning}" in err
        assert warning in json.loads(out)["warnings"]


def test_score_native_predictions_without_documents_are_an_error(tmp_path, capsys):
    pred = put(tmp_path, "p.out", "{}")
    for fmt, metric, gold_doc in (("gtt", "ceaf-rme-phi3", GTT_GOLD),
                                  ("ree", "ceaf-ree", REE_GOLD)):
        gold = put(tmp_path, f"{fmt}.json", json.dumps(gold_doc) + "\n")
        assert_input_error(capsys, ["score", "--format", fmt, "--metric", metric, gold, pred],
                           pred, "no documents")


def test_score_native_document_missing_from_predictions_is_named(tmp_path, capsys):
    for fmt, metric, gold_doc, pred_doc in (("gtt", "ceaf-rme-phi3", GTT_GOLD, GTT_PRED),
                                            ("ree", "ceaf-ree", REE_GOLD, REE_PRED)):
        other = dict(gold_doc, docid="TST3-MUC4-0002")
        gold = put(tmp_path, f"{fmt}.json", json.dumps(gold_doc) + "\n" + json.dumps(other)
                   + "\n")
        pred = put(tmp_path, f"{fmt}.out", json.dumps(pred_doc))
        code, out, err = run(capsys, "score", "--format", fmt, "--metric", metric, gold, pred,
                             "--json")
        assert code == 0 and "Traceback" not in err
        assert (f"1 of the 2 documents of {gold} are not in {pred} and are scored as empty "
                "predictions: 'TST3-MUC4-0002'") in err
        assert json.loads(out)["missing"] == ["TST3-MUC4-0002"]


# -- nugget: -d FILE (and --coref-conll's files) overwrote an input file, exit 0 -------------
def test_nugget_side_outputs_never_overwrite_an_input(tmp_path, capsys):
    gold, system = put(tmp_path, "g.tbf", GOLD_TBF), put(tmp_path, "s.tbf", SYS_TBF)
    for option in (("-d", gold), ("-d", system)):
        assert_input_error(capsys, ["nugget", "-g", gold, "-s", system, *option],
                           f"-d/--comparison-output {option[1]}: would overwrite", "input file")
    conll_gold = put(tmp_path, "x_gold.conll", GOLD_TBF)  # a gold file named as the prefix's
    assert_input_error(capsys, ["nugget", "-g", conll_gold, "-s", system, "-c",
                                tmp_path / "x"], f"--coref-conll {conll_gold}: would overwrite")
    out = put(tmp_path, "out.txt", "kept\n")
    code, _, err = run(capsys, "nugget", "-g", gold, "-s", system, "-d", out, "-o", out)
    assert code == 2 and "the -o FILE" in one_error_line(err)
    assert_input_error(capsys, ["nugget", "-g", gold, "-s", system, "-d", tmp_path],
                       f"-d/--comparison-output {tmp_path}: is a directory")
    assert_input_error(capsys, ["nugget", "-g", gold, "-s", system, "-a", out],
                       f"{out}: -a DIR: not a directory")
    assert gold.read_text() == GOLD_TBF and system.read_text() == SYS_TBF
    assert out.read_text() == "kept\n" and conll_gold.read_text() == GOLD_TBF
    # a new file is written as before
    code, _, err = run(capsys, "nugget", "-g", gold, "-s", system, "-d", tmp_path / "cmp.txt")
    assert code == 0 and (tmp_path / "cmp.txt").read_text()


# -- option values: a traceback, and a negative limit taken for "none" -------------------------
def test_smatch_significant_past_the_cap_is_a_usage_error(tmp_path, capsys):
    test, gold = put(tmp_path, "t.amr", AMR_TEST), put(tmp_path, "g.amr", AMR_GOLD)
    code, out, err = run(capsys, "smatch", "-f", test, gold, "--significant", "99999999999")
    assert (code, out) == (2, "")
    assert "argument --significant: must be at most 100, not 99999999999" in one_error_line(err)
    code, out, _ = run(capsys, "smatch", "-f", test, gold, "--significant", "100")
    assert code == 0 and len(out.split("F-score: ")[1].split()[0]) == 102


def test_coref_max_repeated_below_minus_one_is_a_usage_error(tmp_path, capsys):
    key, resp = put(tmp_path, "k.conll", KEY_CONLL), put(tmp_path, "r.conll", RESP_CONLL)
    code, out, err = run(capsys, "coref", key, resp, "--max-repeated", "-5")
    assert (code, out) == (2, "")
    assert "argument --max-repeated: must be >= 0, or -1 for no limit, not -5" in \
        one_error_line(err)
    assert run(capsys, "coref", key, resp, "--max-repeated", "-1")[0] == 0


# -- monotone: 20,000 labels a side died of a MemoryError; the local search seemed to hang -----
def test_monotone_too_many_label_pairs_is_one_error(tmp_path, capsys):
    a = put(tmp_path, "a.json", json.dumps(["x"] * 20_000))
    b = put(tmp_path, "b.json", json.dumps(["x"] * 501))
    assert_input_error(capsys, ["monotone", a, b], f"{a} has 20,000 items and {b} 501",
                       "10,020,000 label pairs, more than the 10,000,000")


def test_monotone_all_skips_the_local_search_past_its_size(tmp_path, capsys, monkeypatch):
    from exactalign.cli import monotone as monotone_cli

    monkeypatch.setattr(monotone_cli, "LOCAL_ALL_MAX_PAIRS", 10)
    a = put(tmp_path, "a.json", json.dumps(["x"] * 4))
    b = put(tmp_path, "b.json", json.dumps(["x"] * 3))  # 12 candidate pairs
    code, out, err = run(capsys, "monotone", a, b, "--json")
    assert code == 0 and "Traceback" not in err
    doc = json.loads(out)
    assert "local" not in doc["solves"] and "12 candidate pairs, more than the 10" in \
        doc["skipped"]["local"]
    assert "exactalign: warning: method local skipped: 12 candidate pairs" in err
    for extra in (("--method", "local"), ("--time-limit", "30")):  # asked for, or a budget
        code, out, _ = run(capsys, "monotone", a, b, "--json", *extra)
        assert code == 0 and "local" in json.loads(out)["solves"]


def test_monotone_exact_labels_build_the_same_weights():
    from exactalign.cli.monotone import _weights

    w = _weights(["a", "b", "a"], ["b", "a"], "exact")
    assert w.tolist() == [[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]
    assert _weights([], ["a"], "exact").shape == (0, 1)


# -- timeline: a reference document without system document was scored 0 without a word -----
def test_timeline_missing_system_document_is_named(tmp_path, capsys):
    put(tmp_path, "g/d1.tml", TIMELINE_GOLD)
    put(tmp_path, "g/d2.tml", timeml("d2", SAID, [(1, "BEFORE", 2)]))
    put(tmp_path, "s/d2.tml", timeml("d2", SAID, [(1, "BEFORE", 2)]))
    code, out, err = run(capsys, "timeline", tmp_path / "g", tmp_path / "s", "--json")
    assert code == 0 and "Traceback" not in err
    assert (f"exactalign: warning: 1 of the 2 documents of {tmp_path / 'g'} have no system "
            f"document in {tmp_path / 's'} and are scored as empty timelines: d1") in err
    json.loads(out)


# -- score: NaN, which JSON has not and Python reads, equals nothing: a silent mismatch -------
def test_score_nan_value_is_one_error_naming_the_document(tmp_path, capsys):
    edge = '{{"id": "{}", "edges": [{{"dep": 1, "head": {}, "label": "x"}}]}}\n'
    system = put(tmp_path, "s.jsonl", edge.format("a", 0) + edge.format("b", 0))
    gold = put(tmp_path, "g.jsonl", edge.format("a", 0) + edge.format("b", "NaN"))
    assert_input_error(capsys, ["score", "--metric", "dependency-las", gold, system],
                       f"{gold}:2: document 'b': a value is NaN, which equals nothing")
    both = put(tmp_path, "n.jsonl", edge.format("a", "NaN"))  # NaN against NaN too
    assert_input_error(capsys, ["score", "--metric", "dependency-uas", both, both],
                       "a value is NaN")
    spec = put(tmp_path, "spec.json", '{"name": "x", "field": "edges", "spec": {"type": '
               '"match", "element": {"type": "eq", "weight": Infinity}}}')
    assert_input_error(capsys, ["score", "--spec", spec, system, system], f"{spec}:",
                       "Infinity is not a JSON number")


# -- ere: TBF on standard input was read as JSON ("not valid JSON", exit 2) -------------------
def test_ere_reads_tbf_from_standard_input(tmp_path, capsys, monkeypatch):
    import io
    import sys

    system = put(tmp_path, "s.tbf", SYS_TBF)
    expected = run(capsys, "ere", put(tmp_path, "g.tbf", GOLD_TBF), system, "--json")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(GOLD_TBF.encode())))
    code, out, err = run(capsys, "ere", "-", system, "--json")
    assert code == expected[0] == 0 and "Traceback" not in err
    assert json.loads(out)["counts"] == json.loads(expected[1])["counts"]


def test_ere_tbf_named_otherwise_says_it_looks_like_tbf(tmp_path, capsys):
    gold, system = put(tmp_path, "gold.txt", GOLD_TBF), put(tmp_path, "s.tbf", SYS_TBF)
    assert_input_error(capsys, ["ere", gold, system], f"{gold}:1: not valid JSON",
                       "it looks like TBF: name the file *.tbf")


# -- data fetch --base-url with another scheme: a progress line, then an error blaming the env --
def test_data_fetch_base_url_scheme_is_checked_first(tmp_path, capsys):
    argv = ["data", "fetch", "--dest", tmp_path / "d", "--only", "amr", "--base-url", "ftp://x"]
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert one_error_line(err) == ("exactalign: error: --base-url ftp://x: must start with "
                                   "http://, https:// or file://")
    assert not (tmp_path / "d").exists()


def test_smatch_restarts_past_the_cap_is_a_usage_error(tmp_path, capsys):
    test, gold = put(tmp_path, "t.amr", AMR_TEST), put(tmp_path, "g.amr", AMR_GOLD)
    code, out, err = run(capsys, "smatch", "-f", test, gold, "-r", "99999999999999999999",
                         "--method", "both")  # ran until killed, printing nothing
    assert (code, out) == (2, "")
    assert "argument -r: must be at most 100000, not 99999999999999999999" in \
        one_error_line(err)
