"""``exactalign temporal``: scoring and ``check`` on small TimeML directories."""

from __future__ import annotations

import json

from exactalign.cli import main

HEAD = ('<TimeML><DOCID>{doc}</DOCID><TEXT><EVENT eid="e1">a</EVENT> <EVENT eid="e2">b</EVENT> '
        '<EVENT eid="e3">c</EVENT></TEXT><MAKEINSTANCE eventID="e1" eiid="ei1"/>'
        '<MAKEINSTANCE eventID="e2" eiid="ei2"/><MAKEINSTANCE eventID="e3" eiid="ei3"/>')
LINK = '<TLINK lid="{lid}" relType="{rel}" eventInstanceID="{s}" relatedToEventInstance="{t}"/>'


def write(path, links, doc="d1"):
    path.mkdir(exist_ok=True)
    body = "".join(LINK.format(lid=f"l{k}", rel=r, s=s, t=t) for k, (s, r, t) in
                   enumerate(links))
    (path / f"{doc}.tml").write_text(HEAD.format(doc=doc) + body + "</TimeML>")


def test_score_json_and_check(tmp_path, capsys):
    write(tmp_path / "gold", [("ei1", "BEFORE", "ei2"), ("ei2", "BEFORE", "ei3")])
    write(tmp_path / "sys", [("ei1", "BEFORE", "ei3"), ("ei3", "BEFORE", "ei1"),
                             ("ei2", "AFTER", "ei1")])
    for mode in ("te3", "exact"):
        assert main(["temporal", str(tmp_path / "gold"), str(tmp_path / "sys"), "--mode", mode,
                     "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["mode"] == mode and set(out["overall"]) == {"awareness"}
        assert set(out["overall"]["awareness"]) == {"precision", "recall", "f1", "counts"}
        counts = out["documents"][0]["scores"]["awareness"]["counts"]
        # te3: 'ei3 BEFORE ei1' is set aside but stays in the denominator; exact: dropped by
        # the maximum consistent subset and likewise counted
        assert counts["sys_total"] == 3 and counts["prec_matched"] == 2
        assert counts["gold_total"] == 2 and counts["rec_matched"] == 1
    # an inconsistent document: the full report, then exit status 1 (0 when all are consistent)
    assert main(["temporal", "check", str(tmp_path / "sys"), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    doc = out["documents"][0]
    assert out["inconsistent"] == 1 and doc["min_drop"] == 1 and doc["solves"]["exact"]["proven_optimal"]
    assert sorted(doc["witness"]) == ["l0:BEFORE", "l1:BEFORE"]
    assert main(["temporal", "check", str(tmp_path / "sys")]) == 1
    assert "1 inconsistent" in capsys.readouterr().out
    assert main(["temporal", "check", str(tmp_path / "gold"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["inconsistent"] == 0


def test_errors_exit_2(tmp_path, capsys):
    write(tmp_path / "gold", [("ei1", "BEFORE", "ei2")])
    write(tmp_path / "sys", [("ei1", "BEFORE", "ei2")], doc="other")
    assert main(["temporal", str(tmp_path / "gold"), str(tmp_path / "sys")]) == 2
    assert "no system output for d1" in capsys.readouterr().err
    assert main(["temporal", str(tmp_path / "gold")]) == 2
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "x.tml").write_text("<TimeML><TEXT>")
    assert main(["temporal", "check", str(tmp_path / "bad")]) == 2
    assert "x.tml:1: malformed XML" in capsys.readouterr().err


def test_system_ids_aligned_by_span(tmp_path, capsys):
    write(tmp_path / "gold", [("ei1", "BEFORE", "ei2"), ("ei2", "BEFORE", "ei3")])
    write(tmp_path / "sys", [("ei1", "BEFORE", "ei2"), ("ei2", "BEFORE", "ei3")])
    renamed = (tmp_path / "sys" / "d1.tml").read_text()
    for old, new in (("ei1", "ei71"), ("ei2", "ei72"), ("ei3", "ei73"), ('"e1"', '"e51"'),
                     ('"e2"', '"e52"'), ('"e3"', '"e53"')):
        renamed = renamed.replace(old, new)
    (tmp_path / "sys" / "d1.tml").write_text(renamed)
    assert main(["temporal", str(tmp_path / "gold"), str(tmp_path / "sys"), "--mode", "te3",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["overall"]["awareness"]["f1"] == 1.0
    assert out["documents"][0]["notes"]["unaligned"] == []


def test_begins_verified_through_closure_only_in_exact_mode(tmp_path, capsys):
    write(tmp_path / "gold", [("ei1", "BEGINS", "ei2")])
    write(tmp_path / "sys", [("ei1", "SIMULTANEOUS", "ei3"), ("ei3", "BEGINS", "ei2")])
    recall = {}
    for mode in ("te3", "exact"):
        assert main(["temporal", str(tmp_path / "gold"), str(tmp_path / "sys"), "--mode", mode,
                     "--json"]) == 0
        recall[mode] = json.loads(capsys.readouterr().out)["overall"]["awareness"]["recall"]
    assert recall == {"te3": 0.0, "exact": 1.0}


def test_help_and_output_say_which_mode_is_the_tempeval3_score(tmp_path, capsys):
    """The default mode is not the TempEval-3 score: --help and the first output line say so."""
    assert main(["temporal", "--help"]) == 0
    helptext = " ".join(capsys.readouterr().out.split())
    assert "te3: the TempEval-3 score" in helptext and "exact (default)" in helptext
    g = tmp_path / "g"
    write(g, [("ei1", "BEFORE", "ei2")])
    for mode, phrase in (("exact", "not the TempEval-3 score: that is --mode te3"),
                         ("te3", "the TempEval-3 toolkit's score")):
        assert main(["temporal", str(g), str(g), "--mode", mode]) == 0
        assert phrase in capsys.readouterr().out.splitlines()[0]
