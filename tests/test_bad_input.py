"""Bad input gets one clear line (file, line, problem) and a non-zero exit -- never a traceback,
never a silent zero. Each case here was found failing by a user; each test fails when its fix is
reverted."""

from __future__ import annotations

import json

import pytest
from test_json_every_command import (  # tiny valid inputs of every format
    AMR_GOLD,
    AMR_TEST,
    GOLD_TBF,
    GTT_GOLD,
    GTT_PRED,
    KEY_CONLL,
    MUC_KEY,
    MUC_RESP,
    REE_GOLD,
    REE_PRED,
    RESP_CONLL,
    SYS_TBF,
    TEMPORAL_GOLD,
    TEMPORAL_SYS,
)
from test_nugget import tbf_text

from exactalign import cli
from exactalign.testing import pilot_path

GOLD = {"d1": [("m1", "0,4", "Conflict_Attack", "Actual"), ("m2", "10,15", "Life_Die", "Actual")]}


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("exactalign: error: ")
    return lines[0]


@pytest.mark.parametrize("content", [b"\xff\xfe[\"a\"]", b"[\"a\", \"\xe9\"]", bytes(range(256))],
                         ids=["bom-like", "latin-1", "random"])
def test_monotone_non_utf8_is_one_line(tmp_path, capsys, content):
    bad, ok = tmp_path / "bad.json", tmp_path / "ok.json"
    bad.write_bytes(content)
    ok.write_text('["a"]')
    code, out, err = run(capsys, "monotone", bad, ok)
    assert (code, out) == (2, "")
    line = 2 if content == bytes(range(256)) else 1  # byte 10 is a newline
    assert f"{bad}:{line}: not UTF-8 text (byte 0x" in one_error_line(err)


def test_nugget_empty_gold_is_an_error(tmp_path, capsys):
    gold, system = tmp_path / "gold.tbf", tmp_path / "sys.tbf"
    gold.write_text("")
    system.write_text(tbf_text(GOLD, "sys"))
    for extra in ((), ("--scheme", "muc")):
        code, out, err = run(capsys, "nugget", "-g", gold, "-s", system, *extra)
        assert (code, out) == (2, "")
        assert "the gold standard has no documents" in one_error_line(err)


def test_nugget_invalid_utf8_is_scored_as_bytes_with_a_warning(tmp_path, capsys):
    gold, system = tmp_path / "gold.tbf", tmp_path / "sys.tbf"
    gold.write_text(tbf_text(GOLD, "gold"))
    text = tbf_text(GOLD, "sys").encode()
    cut = text.index(b"\n", text.index(b"m2"))
    system.write_bytes(text[:cut] + b"\t\xff" + text[cut:])  # a stray byte at the end of line 3
    code, out, err = run(capsys, "nugget", "-g", gold, "-s", system, "--json")
    assert code == 0
    doc = json.loads(out)
    assert f"{system}:3: not UTF-8 text (byte 0xff at offset {cut + 1})" in err
    assert any("not UTF-8" in w for w in doc["warnings"])


def test_temporal_check_exits_1_on_inconsistency(tmp_path, capsys):
    from test_temporal_cli import write

    write(tmp_path / "bad", [("ei1", "BEFORE", "ei2"), ("ei2", "BEFORE", "ei1")])
    write(tmp_path / "good", [("ei1", "BEFORE", "ei2")])
    code, out, _ = run(capsys, "temporal", "check", tmp_path / "bad", "--json")
    assert code == 1 and json.loads(out)["inconsistent"] == 1
    code, out, _ = run(capsys, "temporal", "check", tmp_path / "good", "--json")
    assert code == 0 and json.loads(out)["inconsistent"] == 0


def test_muc4_report_without_mapping_lines_is_not_a_silent_zero(capsys):
    base = pilot_path("muc4", "muc4_1992")
    if base is None:
        pytest.skip("pilot data not available")
    report = base / "results/extracted/scores-pass1.tst4.nrad/sri-scores-pass1.tst4.nrad"
    code, out, err = run(capsys, "muc4", base / "keys/key-tst4.v2",
                         base / "responses/TST4/sri-response.tst4", "--history",
                         base / "results/extracted/final-cumulative-hist.tst4", "--report",
                         report, "--json")
    assert code == 0
    doc = json.loads(out)
    assert "recorded" not in json.dumps(doc["alignments"] if "alignments" in doc else doc
                                        .get("results", {}))
    assert any("records no template mapping" in w for w in doc["warnings"])
    assert "records no template mapping" in err


# --------------------------------------------------------------------------------------------
# the bad-input sweep of every sub-command (each case below failed before its fix)
# --------------------------------------------------------------------------------------------
DEEP_JSON = b'{"a":' * 100_000 + b"1" + b"}" * 100_000  # past Python's recursion limit
#: keys that name files or measure time: the rest of a command's JSON is its result
VOLATILE = {"wall_time", "solver_version", "gold", "system", "test", "a", "b", "key",
            "response", "keys", "responses", "warnings"}


def results(out: str):
    """A command's JSON output without file names and times (to compare two runs)."""
    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in VOLATILE}
        return [strip(v) for v in x] if isinstance(x, list) else x

    return strip(json.loads(out))


def put(tmp_path, name: str, data: bytes | str):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return p


def assert_input_error(capsys, argv, bad, *phrases):
    """``argv`` (with and without --json) exits 2, prints nothing on stdout and one line on
    stderr naming ``bad`` and every phrase."""
    for extra in ((), ("--json",)):
        code, out, err = run(capsys, *argv, *extra)
        line = one_error_line(err)
        assert (code, out) == (2, ""), err
        assert str(bad) in line, line
        for phrase in phrases:
            assert phrase in line, line


def middle(text: str, insert: bytes) -> bytes:
    """``text`` with ``insert`` in the middle of a line near its middle."""
    data = text.encode()
    cut = data.index(b"\n", len(data) // 2) - 2
    return data[:cut] + insert + data[cut:]


# -- a UTF-8 byte order mark at the start of a valid file works -------------------------------
@pytest.mark.parametrize("command,bom_on", [
    ("nugget", "gold"), ("nugget", "system"), ("ere-tbf", "gold"), ("ere-tbf", "system"),
    ("muc4-gtt", "gold"), ("muc4-gtt", "system"), ("muc4-ree", "gold"), ("muc4-ree", "system"),
])
def test_a_utf8_bom_is_read(tmp_path, capsys, command, bom_on):
    tbf = (GOLD_TBF, SYS_TBF, "tbf")
    gold, system, ext = {"nugget": tbf, "ere-tbf": tbf,
                         "muc4-gtt": (json.dumps(GTT_GOLD) + "\n", json.dumps(GTT_PRED), "json"),
                         "muc4-ree": (json.dumps(REE_GOLD) + "\n", json.dumps(REE_PRED), "json"),
                         }[command]
    argv = {"nugget": lambda g, s: ["nugget", "-g", g, "-s", s],
            "ere-tbf": lambda g, s: ["ere", g, s],
            "muc4-gtt": lambda g, s: ["muc4", g, s, "--format", "gtt"],
            "muc4-ree": lambda g, s: ["muc4", g, s, "--format", "gtt", "--metric", "ceaf-ree"],
            }[command]
    g, s = put(tmp_path, f"g.{ext}", gold), put(tmp_path, f"s.{ext}", system)
    code, plain, err = run(capsys, *argv(g, s), "--json")
    assert code == 0, err
    bom = {"gold": g, "system": s}[bom_on]
    bom.write_bytes(b"\xef\xbb\xbf" + bom.read_bytes())
    code, out, err = run(capsys, *argv(g, s), "--json")
    assert code == 0 and "Traceback" not in err, err
    assert results(out) == results(plain)


def test_a_token_table_with_a_bom_or_crlf_keeps_its_first_token_id(tmp_path):
    from exactalign.io.tbf import read_token_table

    p = put(tmp_path, "d1.tab", b"\xef\xbb\xbft1\tx\t0\t1\r\nt2\ty\t2\t3\r\n")
    table = read_token_table(p)
    assert "t1" in table and "t2" in table and table.warnings == []


# -- bytes that are not UTF-8 ------------------------------------------------------------------
def test_ere_tbf_with_invalid_utf8_warns_like_nugget(tmp_path, capsys):
    a = put(tmp_path, "a.tbf", middle(GOLD_TBF, b"\xff"))
    b = put(tmp_path, "b.tbf", SYS_TBF)
    code, out, err = run(capsys, "ere", a, b, "--json")
    assert code == 0 and json.loads(out)
    assert err.startswith(f"exactalign: warning: {a}:") and "not UTF-8 text (byte 0xff" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_token_table_with_invalid_utf8_is_a_warning(tmp_path, capsys):
    tkn = tmp_path / "tkn"
    put(tmp_path, "tkn/d1.tab", b"t1\tx\xff\t0\t1\nt2\ty\t2\t3\n")
    gold = put(tmp_path, "g.tbf", tbf_text({"d1": [("m1", "t1", "A", "Actual")]}, "gold"))
    code, out, err = run(capsys, "nugget", "-g", gold, "-s", gold, "-t", tkn, "--json")
    assert code == 0 and json.loads(out)["warnings"]
    assert f"exactalign: warning: {tkn / 'd1.tab'}:1: not UTF-8 text (byte 0xff" in err


@pytest.mark.parametrize("bad", ["gold", "preds"])
@pytest.mark.parametrize("content", ["stray-byte", "random", "utf-16"])
def test_gtt_files_that_are_not_utf8(tmp_path, capsys, bad, content):
    texts = {"gold": json.dumps(GTT_GOLD) + "\n", "preds": json.dumps(GTT_PRED, indent=1)}
    data = {"stray-byte": middle(texts[bad], b"\xff"),
            "random": bytes(range(128, 256)) * 3,
            "utf-16": texts[bad].encode("utf-16")}[content]
    files = {k: put(tmp_path, f"{k}.json", data if k == bad else v) for k, v in texts.items()}
    hint = ["UTF-16 byte order mark"] if content == "utf-16" else []
    assert_input_error(capsys, ["muc4", files["gold"], files["preds"], "--format", "gtt"],
                       files[bad], "not UTF-8 text (byte 0x", *hint)


def test_timeml_with_invalid_utf8_names_the_byte(tmp_path, capsys):
    gold = put(tmp_path, "gold/d1.tml", middle(TEMPORAL_GOLD.replace("><", ">\n<"), b"\xff"))
    put(tmp_path, "sys/d1.tml", TEMPORAL_SYS)
    assert_input_error(capsys, ["temporal", tmp_path / "gold", tmp_path / "sys"], f"{gold}:",
                       "not UTF-8 text (byte 0xff at offset")


@pytest.mark.parametrize("command", ["nugget", "coref", "bipartite"])
def test_a_utf16_file_says_so(tmp_path, capsys, command):
    bad = put(tmp_path, "bad.txt", {"nugget": GOLD_TBF, "coref": KEY_CONLL,
                                    "bipartite": "0 0 1\n"}[command].encode("utf-16"))
    ok = put(tmp_path, "ok.txt", {"nugget": SYS_TBF, "coref": RESP_CONLL, "bipartite": ""}[command])
    argv = {"nugget": ["nugget", "-g", bad, "-s", ok], "coref": ["coref", bad, ok],
            "bipartite": ["bipartite", bad]}[command]
    assert_input_error(capsys, argv, f"{bad}:1:", "not UTF-8 text (byte 0xff at offset 0",
                       "UTF-16 byte order mark: save it as UTF-8")


# -- empty files and files without documents ---------------------------------------------------
@pytest.mark.parametrize("content", ["", "  \n\t\n", "# a comment\n"], ids=["empty", "blank",
                                                                             "comment"])
@pytest.mark.parametrize("bad", ["key", "response"])
def test_coref_file_without_documents_names_it(tmp_path, capsys, bad, content):
    key = put(tmp_path, "key.conll", content if bad == "key" else KEY_CONLL)
    resp = put(tmp_path, "resp.conll", content if bad == "response" else RESP_CONLL)
    assert_input_error(capsys, ["coref", key, resp], {"key": key, "response": resp}[bad],
                       "no document in the file")


def test_coref_two_files_without_documents_is_no_traceback(tmp_path, capsys):
    key, resp = put(tmp_path, "key.conll", "\n"), put(tmp_path, "resp.conll", "")
    assert_input_error(capsys, ["coref", key, resp], key, "no document in the file")


@pytest.mark.parametrize("bad", ["test", "gold"])
def test_smatch_file_without_graphs_names_it(tmp_path, capsys, bad):
    test = put(tmp_path, "test.amr", "" if bad == "test" else AMR_TEST)
    gold = put(tmp_path, "gold.amr", "# ::id x\n\n" if bad == "gold" else AMR_GOLD)
    assert_input_error(capsys, ["smatch", "-f", test, gold], {"test": test, "gold": gold}[bad],
                       "no AMR graph in the file")


def test_smatch_two_files_without_graphs_are_an_error(tmp_path, capsys):
    """smatch 1.0.4 prints F 0.00; a score of nothing is an error here."""
    test, gold = put(tmp_path, "test.amr", ""), put(tmp_path, "gold.amr", "\n")
    assert_input_error(capsys, ["smatch", "-f", test, gold, "--json"], test,
                       f"no AMR graph in the file, nor in {gold}")


@pytest.mark.parametrize("format_", ["gtt", "ree"])
def test_gtt_gold_without_documents_names_it(tmp_path, capsys, format_):
    gold = put(tmp_path, "gold.json", "\n \n")
    preds = put(tmp_path, "preds.json", json.dumps(GTT_PRED if format_ == "gtt" else REE_PRED))
    extra = ["--metric", "ceaf-ree"] if format_ == "ree" else []
    assert_input_error(capsys, ["muc4", gold, preds, "--format", "gtt", *extra], gold,
                       "no document in the file")


# -- JSON nested past the recursion limit, AMR too -----------------------------------------------
@pytest.mark.parametrize("command", ["bipartite", "ere", "monotone", "muc4-gtt-gold",
                                     "muc4-gtt-preds", "muc4-ree-preds"])
def test_json_nested_too_deeply(tmp_path, capsys, command):
    deep = put(tmp_path, "deep.json", DEEP_JSON)
    gold = put(tmp_path, "gold.json", json.dumps(GTT_GOLD) + "\n")
    ree = put(tmp_path, "ree.json", json.dumps(REE_GOLD) + "\n")
    argv = {"bipartite": ["bipartite", deep], "ere": ["ere", deep, deep],
            "monotone": ["monotone", deep, deep],
            "muc4-gtt-gold": ["muc4", deep, gold, "--format", "gtt"],
            "muc4-gtt-preds": ["muc4", gold, deep, "--format", "gtt"],
            "muc4-ree-preds": ["muc4", ree, deep, "--format", "gtt", "--metric", "ceaf-ree"],
            }[command]
    assert_input_error(capsys, argv, deep, "nested too deeply")


def test_amr_nested_too_deeply(tmp_path, capsys):
    n = 5000
    deep = put(tmp_path, "deep.amr", "".join(f"(a{i} / b :ARG0 " for i in range(n)) + ")" * n)
    ok = put(tmp_path, "ok.amr", "(a / b)\n")
    assert_input_error(capsys, ["smatch", "-f", deep, ok], f"{deep}:1:", "graph 1",
                       "nested too deeply")


# -- directories and files mixed up --------------------------------------------------------------
def test_timeml_dir_missing_or_a_file(tmp_path, capsys):
    put(tmp_path, "gold/d1.tml", TEMPORAL_GOLD)
    afile = put(tmp_path, "sys.tml", TEMPORAL_SYS)
    assert_input_error(capsys, ["temporal", tmp_path / "gold", afile], afile,
                       "not a directory (a directory of .tml files is expected)")
    assert_input_error(capsys, ["timeline", tmp_path / "nope", tmp_path / "gold"],
                       tmp_path / "nope", "not a directory: no such file or directory")


def test_nugget_token_dir_that_is_a_file(tmp_path, capsys):
    gold = put(tmp_path, "g.tbf", GOLD_TBF)
    assert_input_error(capsys, ["nugget", "-g", gold, "-s", gold, "-t", gold], gold,
                       "not a directory (-t names the directory of the token tables")


# -- a type white list that keeps nothing --------------------------------------------------------
@pytest.mark.parametrize("content", [b"\n\n", b"Life_Di\n", bytes(range(200, 256)) * 4],
                         ids=["blank-lines", "no-such-type", "random"])
@pytest.mark.parametrize("scheme", ["dice", "muc"])
def test_nugget_white_list_keeping_nothing_is_not_a_silent_zero(tmp_path, capsys, content,
                                                                   scheme):
    gold, system = put(tmp_path, "g.tbf", GOLD_TBF), put(tmp_path, "s.tbf", SYS_TBF)
    wl = put(tmp_path, "types.txt", content)
    argv = ["nugget", "-g", gold, "-s", system, "--type-whitelist", wl, "--scheme", scheme]
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0
    warning = f"{wl}: the type white list keeps no gold and no system mention"
    assert f"exactalign: warning: {warning}" in err and "Traceback" not in err
    assert any(w.startswith(warning) for w in json.loads(out)["warnings"])
    assert_input_error(capsys, [*argv, "--strict"], wl, "keeps no gold and no system mention")


def test_monotone_stdin_is_named_stdin(capsys, monkeypatch, tmp_path):
    import io

    ok = put(tmp_path, "b.json", '["a"]')
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"")))
    code, out, err = run(capsys, "monotone", "-", ok)
    assert (code, out) == (2, "")
    assert one_error_line(err).startswith("exactalign: error: <stdin>:1: not valid JSON")


# --------------------------------------------------------------------------------------------
# muc4, 1992 format: 8-bit text read as Latin-1 (as the 1992 scorer read it: no byte is
# replaced, so no warning); a UTF-8 byte order mark dropped, UTF-16 refused; no key templates
# is an error, no response templates a warning
# --------------------------------------------------------------------------------------------
def test_muc4_1992_key_file_without_templates_names_itself(tmp_path, capsys):
    key, resp = put(tmp_path, "key", "\n\n"), put(tmp_path, "resp", MUC_RESP)
    assert_input_error(capsys, ["muc4", key, resp], key, "no template in the file")


def test_muc4_1992_response_file_without_templates_warns(tmp_path, capsys):
    key, resp = put(tmp_path, "key", MUC_KEY), put(tmp_path, "resp", "")
    code, out, err = run(capsys, "muc4", str(key), str(resp), "--json")
    assert code == 0 and json.loads(out)["warnings"]
    assert err.count("\n") == 1 and err.startswith(f"exactalign: warning: {resp}: no template")


def test_muc4_1992_byte_order_mark_is_dropped(tmp_path, capsys):
    key = put(tmp_path, "key", b"\xef\xbb\xbf" + MUC_KEY.encode())
    resp = put(tmp_path, "resp", b"\xef\xbb\xbf" + MUC_RESP.encode())
    plain = put(tmp_path, "key0", MUC_KEY)
    code, out, err = run(capsys, "muc4", str(key), str(resp), "--json")
    code0, out0, _ = run(capsys, "muc4", str(plain), str(resp), "--json")
    assert code == code0 == 0 and err == ""
    def overall(text):
        return json.loads(text)["overall"]

    assert overall(out) == overall(out0)


def test_muc4_1992_utf16_is_named(tmp_path, capsys):
    key = put(tmp_path, "key", MUC_KEY.encode("utf-16"))
    resp = put(tmp_path, "resp", MUC_RESP)
    assert_input_error(capsys, ["muc4", key, resp], key, "UTF-16 text")


def test_nugget_system_without_a_gold_document_is_an_error(tmp_path, capsys):
    """Mismatched files (v1.8 scores 0 with a warning per document): one error line."""
    gold = put(tmp_path, "gold.tbf", GOLD_TBF)
    system = put(tmp_path, "sys.tbf", SYS_TBF.replace("d1", "other"))
    assert_input_error(capsys, ["nugget", "-g", gold, "-s", system], system,
                       "none of its 1 document(s) is in the gold standard (first: other)")
