"""``exactalign muc4``: both formats, every alignment, JSON keys, one-line errors."""

from __future__ import annotations

import json

import pytest
from test_muc4 import template_text  # tests/ is on sys.path (pytest rootdir insertion)

from exactalign import cli
from exactalign.data import resolve_data_dir


@pytest.fixture
def files_1992(tmp_path):
    key = tmp_path / "key"
    key.write_text(template_text("TST3-MUC4-0001", "1", {4: ["BOMBING"], 12: ['"BANK"']}))
    resp = tmp_path / "resp"
    resp.write_text(template_text("TST3-MUC4-0001", "1", {4: ["ATTACK"], 12: ['"BANK"']}) +
                    template_text("TST3-MUC4-0001", "2", {4: ["ARSON"]}))
    return key, resp


def test_1992_json(files_1992, capsys):
    key, resp = files_1992
    assert cli.main(["muc4", str(key), str(resp), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["format"] == "muc1992"
    assert set(out["alignments"]) == set(out["overall"]) == {"muc1992", "exact", "exact-corpus"}
    assert out["alignments"]["exact"]["status"] == "optimal" and len(out["documents"]) == 1
    ex = out["overall"]["exact"]
    # type PAR + BANK COR over POS 2, ACT 3 (ARSON template spurious): R 3/4, P 1.5/3
    assert ex["recall"] == pytest.approx(0.75)
    assert ex["precision"] == pytest.approx(0.5)
    assert ex["counts"]["SPU"] == 1


def test_1992_responses_from_standard_input(files_1992, capsys, monkeypatch):
    """``-`` reads standard input (as every command's file arguments); errors name it."""
    import io
    import sys

    key, resp = files_1992
    assert cli.main(["muc4", str(key), str(resp), "--json"]) == 0
    from_file = json.loads(capsys.readouterr().out)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(resp.read_bytes())))
    assert cli.main(["muc4", str(key), "-", "--json"]) == 0
    from_stdin = json.loads(capsys.readouterr().out)
    assert from_stdin["overall"] == from_file["overall"]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"0.  MESSAGE: ID  X\n99. Y\n")))
    assert cli.main(["muc4", str(key), "-"]) == 2
    assert capsys.readouterr().err.startswith(
        "exactalign: error: <stdin>:1: a template needs slots 0-24 in order")


def test_1992_table_and_single_alignment(files_1992, capsys):
    key, resp = files_1992
    assert cli.main(["muc4", str(key), str(resp), "--alignment", "greedy",
                     "--slot-matching", "first-fit"]) == 0
    out = capsys.readouterr().out
    assert "muc1992" in out and "exact" not in out.split("\n", 2)[2]


def test_errors_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad"
    bad.write_text("nonsense\n")
    assert cli.main(["muc4", str(bad), str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "not a slot line" in err and f"{bad}:1" in err
    assert cli.main(["muc4", str(bad), str(bad), "--format", "xml"]) == 2


@pytest.mark.pilot
def test_gtt_reproduction_through_the_cli(capsys):
    data = resolve_data_dir()
    if not data.available or not data.path.joinpath("muc4", "gtt").is_dir():
        pytest.skip("pilot data muc4/gtt not available")
    d = data.path / "muc4" / "gtt"
    assert cli.main(["muc4", str(d / "test.json"), str(d / "preds_gtt.out"), "--format", "gtt",
                     "--alignment", "all", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    out = doc["overall"]
    assert round(100 * out["gtt"]["f1"], 2) == 50.23
    assert doc["alignments"]["exact"]["status"] == "optimal"
    assert out["exact"]["f1"] >= out["greedy"]["f1"]


@pytest.mark.pilot
def test_grit_ceaf_ree_through_the_cli(capsys):
    data = resolve_data_dir()
    if not data.available or not data.path.joinpath("muc4", "grit").is_dir():
        pytest.skip("pilot data muc4/grit not available")
    d = data.path / "muc4" / "grit"
    assert cli.main(["muc4", str(d / "test_ree.json"), str(d / "preds_s_t.out"), "--format",
                     "gtt", "--metric", "ceaf-ree", "--alignment", "exact", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["overall"]
    assert set(out) == {"ceaf-ree-strict-exact", "ceaf-ree-prop-exact"}
    assert round(100 * out["ceaf-ree-strict-exact"]["f1"], 2) == 54.50


def test_1992_exact_corpus_alignment(files_1992, capsys):
    key, resp = files_1992
    assert cli.main(["muc4", str(key), str(resp), "--alignment", "exact-corpus", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    ex = out["alignments"]["exact-corpus"]
    assert set(out["alignments"]) == {"exact-corpus"} and ex["status"] == "optimal"
    # one message: the corpus optimum is the message optimum (R 3/4, P 1.5/3)
    assert out["overall"]["exact-corpus"]["f1"] == pytest.approx(2 * 1.5 / (2 + 3))
    assert ex["bound"] == pytest.approx(2 * 1.5 / (2 + 3))


def test_exact_corpus_refused_for_gtt(tmp_path, capsys):
    f = tmp_path / "x.json"
    f.write_text("")
    assert cli.main(["muc4", str(f), str(f), "--format", "gtt", "--alignment",
                     "exact-corpus"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "muc1992 only" in err


def test_response_documents_outside_the_keys(files_1992, tmp_path, capsys):
    key, resp = files_1992
    extra = tmp_path / "resp_extra"
    extra.write_text(resp.read_text() +
                     template_text("TST3-MUC4-0099", "1", {4: ["ARSON"]}))
    assert cli.main(["muc4", str(key), str(extra), "--alignment", "exact", "--json"]) == 0
    cap = capsys.readouterr()
    out = json.loads(cap.out)
    assert out["warnings"] == [f"{extra}: 1 document(s) not in the keys are not scored: "
                               "TST3-MUC4-0099"]
    assert "exactalign: warning:" in cap.err and "TST3-MUC4-0099" in cap.err
    # the extra message changes nothing: the same score as without it
    assert out["overall"]["exact"]["f1"] == pytest.approx(2 * 1.5 / 5)
    assert [d["id"] for d in out["documents"]] == ["TST3-MUC4-0001"]  # the keys' only
    other = tmp_path / "resp_other"
    other.write_text(template_text("TST4-MUC4-0001", "1", {4: ["ARSON"]}))
    assert cli.main(["muc4", str(key), str(other)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"{other}" in err and "none of its 1 document(s)" in err


def test_1992_compare_with_a_report(files_1992, tmp_path, capsys):
    """``--compare``: our scoring of the report's mapping next to the report, slot by slot."""
    key, resp = files_1992
    row = "{}\t        {}|  {}|  0   0|  {}|100 100   0"
    report = tmp_path / "scores"
    report.write_text("\n".join([
        "TST3-MUC4-0001\t     key: 1  response: 1", "",
        row.format("inc-type", "1   1", "0   1   0", "0   0   0"),
        row.format("phys-tgt-id", "1   1", "1   0   0", "0   0   0"),
        row.format("TOTAL\t", "2   2", "1   1   0", "0   0   0"),
        "TST3-MUC4-0001\t     key: <NONE>  response: 2\t [spurious]",
        row.format("inc-type", "0   1", "0   0   0", "1   0   0"),
        row.format("TOTAL\t", "0   1", "0   0   0", "1   0   0"),
        row.format("ALL TEMPLATES", "2   3", "1   1   0", "1   0   0")]))
    assert cli.main(["muc4", str(key), str(resp), "--report", str(report), "--compare",
                     "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["compare"]["exact"] and out["compare"]["slot_diffs"] == []
    assert out["overall"]["recorded"]["counts"]["PAR"] == 1
    assert cli.main(["muc4", str(key), str(resp), "--report", str(report), "--compare"]) == 0
    assert "report's mapping: reproduced" in capsys.readouterr().out
    assert cli.main(["muc4", str(key), str(resp), "--compare"]) == 2
    assert "--compare needs" in capsys.readouterr().err


def test_per_message_rows(tmp_path, capsys):
    """Each message's counts and F under every alignment (JSON: always, as the document rows;
    text: with --per-message); they add up to the ALL TEMPLATES totals."""
    import json

    from exactalign.cli import main
    from tests.test_json_every_command import MUC_KEY, MUC_RESP

    k, r = tmp_path / "key", tmp_path / "resp"
    k.write_text(MUC_KEY)
    r.write_text(MUC_RESP)
    assert main(["muc4", str(k), str(r), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [m["id"] for m in doc["documents"]] == ["TST3-MUC4-0001"]
    row = doc["documents"][0]
    for name, overall in doc["overall"].items():
        assert row["scores"][name]["counts"] == overall["counts"]
        assert row["alignments"][name]["alignment"] == [[0, 0]]
    assert main(["muc4", str(k), str(r), "--per-message"]) == 0
    out = capsys.readouterr().out
    assert "message" in out and "TST3-MUC4-0001" in out.split("message", 1)[1]
    assert main(["muc4", str(k), str(r), "--per-message", "--format", "gtt"]) == 2


@pytest.mark.pilot
def test_1992_witnesses_reach_the_optimum(capsys):
    """UMASS on TST3: every message the 1992 mapping leaves below its optimum F gets a witness;
    applying it to the 1992 mapping (pairs by template number) gives an alignment of the
    optimum's F, recomputed here from the message's pair table."""
    from exactalign.io import muc4 as io
    from exactalign.metrics import muc4
    from exactalign.metrics.muc4.guidelines import Judge

    data = resolve_data_dir()
    d = data.path / "muc4" / "muc4_1992" if data.available else None
    if d is None or not (d / "keys" / "key-tst3.v2").is_file():
        pytest.skip("pilot data muc4/muc4_1992 not available")
    key, resp = d / "keys" / "key-tst3.v2", d / "responses" / "TST3" / "UMASS.response.tst3"
    hist = d / "results" / "extracted" / "final-history-nrad.tst3"
    assert cli.main(["muc4", str(key), str(resp), "--history", str(hist), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["documents"]
    short = {r["id"] for r in rows
             if r["scores"]["exact"]["f1"] > r["scores"]["muc1992"]["f1"] + 1e-9}
    witnessed = {r["id"]: r for r in rows if r["alignments"]["muc1992"]["witness"]}
    assert set(witnessed) == short and len(short) == 8
    keys = io.by_message(io.read_templates(key))
    resps = io.by_message(io.read_templates(resp))
    history = io.read_history(hist)
    for msg, r in witnessed.items():
        t = muc4.message_table(msg, keys[msg], resps.get(msg, []), Judge(msg, history),
                               content=False)
        kn = {k.number: i for i, k in enumerate(t.keys)}
        rn = {x.number: j for j, x in enumerate(t.resps)}
        w = r["alignments"]["muc1992"]["witness"]
        al = {tuple(p) for p in r["alignments"]["muc1992"]["alignment"]}
        al -= {(kn[k], rn[x]) for k, x in w["remove"]}
        al |= {(kn[k], rn[x]) for k, x in w["add"]}
        assert t.counts(sorted(al)).f1 == pytest.approx(r["scores"]["exact"]["f1"], abs=1e-12)
        assert w["f_gain"] == pytest.approx(r["scores"]["exact"]["f1"]
                                            - r["scores"]["muc1992"]["f1"])
        assert w["changes"] == len(w["remove"]) + len(w["add"]) > 0
    # the text output names the count and the message furthest below
    assert cli.main(["muc4", str(key), str(resp), "--history", str(hist)]) == 0
    out = capsys.readouterr().out
    assert "muc1992: 8 of 100 messages below their optimum F" in out
    assert "  TST3-MUC4-0020: F -65.00: add 1-1 (key-response templates)" in out
