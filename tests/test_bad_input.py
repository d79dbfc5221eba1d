"""Bad input gets one clear line (file, line, problem) and a non-zero exit -- never a traceback,
never a silent zero. Each case here was found failing by a user; each test fails when its fix is
reverted."""

from __future__ import annotations

import json

import pytest
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
