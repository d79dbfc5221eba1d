"""Reading TimeML: events joined with instances, timexes, TLINKs, offsets and errors."""

from __future__ import annotations

import pytest

from exactalign import InputError
from exactalign.io.timeml import parse_timeml, read_timeml, read_timeml_dir

DOC = """<?xml version="1.0" ?>
<TimeML>
<DOCID>d1</DOCID>
<DCT><TIMEX3 tid="t0" type="DATE" value="1998-02-27"
  functionInDocument="CREATION_TIME">Feb 27</TIMEX3></DCT>
<TEXT>Kuchma &amp; Yeltsin <EVENT eid="e1" class="OCCURRENCE">signed</EVENT> it
<TIMEX3 tid="t1" type="DATE" value="1998-02-27">Friday</TIMEX3> and
<EVENT eid="e2" class="OCCURRENCE">left</EVENT>.</TEXT>
<MAKEINSTANCE eventID="e1" eiid="ei1" tense="PAST"/>
<MAKEINSTANCE eventID="e1" eiid="ei9" tense="PAST"/>
<TLINK lid="l1" relType="IS_INCLUDED" eventInstanceID="ei1" relatedToTime="t1"/>
<TLINK lid="l2" relType="before" timeID="t1" relatedToTime="t0"/>
</TimeML>
"""


def test_parse_events_timexes_links_and_offsets():
    doc = parse_timeml(DOC, "d.tml")
    assert doc.doc_id == "d1" and doc.dct == "t0"
    assert doc.text.startswith("Kuchma & Yeltsin signed")
    ev = doc.events["ei1"]
    assert (ev.eid, ev.text, ev.eclass) == ("e1", "signed", "OCCURRENCE")
    assert doc.text[ev.start:ev.end] == "signed"
    assert doc.events["ei9"].start == ev.start            # a second instance of e1
    assert doc.events["e2"].eiid is None                  # no MAKEINSTANCE: kept under its eid
    t1 = doc.timexes["t1"]
    assert doc.text[t1.start:t1.end] == "Friday" and t1.value == "1998-02-27"
    assert doc.timexes["t0"].start is None                 # the DCT is outside <TEXT>
    assert [(lk.lid, lk.source, lk.target, lk.rel_type, lk.line) for lk in doc.tlinks] == [
        ("l1", "ei1", "t1", "IS_INCLUDED", 11), ("l2", "t1", "t0", "BEFORE", 12)]


@pytest.mark.parametrize("bad, message, line", [
    ("<TimeML><TEXT>x</TEXT>", "malformed XML", 1),
    ('<TimeML>\n<TLINK lid="l1" relType="BEFORE" eventInstanceID="ei1" relatedToTime="t1"/>'
     "</TimeML>", "unknown id 'ei1'", 2),
    ('<TimeML>\n<MAKEINSTANCE eventID="e5" eiid="ei5"/></TimeML>', "unknown event 'e5'", 2),
    ('<TimeML><TEXT><TIMEX3 tid="t1">a</TIMEX3>\n<TIMEX3 tid="t1">b</TIMEX3></TEXT></TimeML>',
     "defined twice", 2),
    ('<TimeML><TEXT><TIMEX3 tid="t1">a</TIMEX3></TEXT>\n<TLINK lid="l" timeID="t1" '
     'relatedToTime="t1"/></TimeML>', "without relType", 2),
])
def test_errors_name_file_and_line(bad, message, line):
    with pytest.raises(InputError) as e:
        parse_timeml(bad, "bad.tml")
    assert message in str(e.value) and e.value.path == "bad.tml" and e.value.line == line


def test_unknown_ids_tolerated_when_not_strict():
    bad = ('<TimeML><TLINK lid="l1" relType="BEFORE" eventInstanceID="ei1" '
           'relatedToTime="t1"/></TimeML>')
    doc = parse_timeml(bad, "x.tml", strict=False)
    assert doc.tlinks == [] and "unknown id" in doc.warnings[0]


def test_read_dir(tmp_path):
    (tmp_path / "a.tml").write_text(DOC)
    (tmp_path / "notes.txt").write_text("ignored")
    docs = read_timeml_dir(tmp_path)
    assert list(docs) == ["d1"] and read_timeml(tmp_path / "a.tml").doc_id == "d1"
    (tmp_path / "b.tml").write_text(DOC)
    with pytest.raises(InputError, match="document id 'd1'"):
        read_timeml_dir(tmp_path)
    with pytest.raises(InputError, match="not a directory"):
        read_timeml_dir(tmp_path / "a.tml")
