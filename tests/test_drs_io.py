"""The DRS clause-format reader (exactalign.io.drs): Counter's splitting of lines into fields,
comments, DRS boundaries, line numbers, strict mode's errors, the writer; and the pilot's files
(skipped without them): DRSs per file as the MANIFEST states, and specific clauses."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactalign.core.errors import InputError
from exactalign.data import resolve_data_dir
from exactalign.data.pilot import DRS_GOLD, drs_files
from exactalign.io.drs import (
    Drs,
    field_problem,
    format_drs,
    parse_drs,
    read_drs_file,
    tokenise,
    write_drs_file,
)

TEXT = """\
%%% Tom carried the bag .
b1 REF x1          % Tom [0...3]
b1 Name x1 "tom"
b1 male "n.02" x1
b2 REF e1
b2 carry "v.01" e1
b2 Agent e1 x1
b2 TPR t1 "now"


%%% second
b3 NOT b4
   % a comment inside does not end the DRS
b4 REF x2\t% tab before the percent: not a comment to Counter
b4 Quantity x2 "50%"
"""


def test_clauses_lines_indices_and_comments():
    a, b = parse_drs(TEXT, "t.txt")
    assert isinstance(a, Drs) and (a.index, b.index) == (0, 1)
    assert a.clauses == (("b1", "REF", "x1"), ("b1", "Name", "x1", '"tom"'),
                         ("b1", "male", '"n.02"', "x1"), ("b2", "REF", "e1"),
                         ("b2", "carry", '"v.01"', "e1"), ("b2", "Agent", "e1", "x1"),
                         ("b2", "TPR", "t1", '"now"'))
    assert a.lines == (2, 3, 4, 5, 6, 7, 8) and a.line == 2 and len(a) == 7
    assert a.comments == ((1, "%%% Tom carried the bag ."),)
    assert a.trailing[0] == "% Tom [0...3]" and a.trailing[1] == ""
    assert a.path == "t.txt"
    # a comment line inside a DRS is skipped; a tab before % does not start a comment (Counter
    # splits at " %" only); % inside a field stays
    assert b.clauses == (("b3", "NOT", "b4"), ("b4", "REF", "x2", "%", "tab", "before", "the",
                                                "percent:", "not", "a", "comment", "to",
                                                "Counter"),
                         ("b4", "Quantity", "x2", '"50%"'))
    assert b.lines == (12, 14, 15)
    assert [n for n, _ in b.comments] == [11, 13]


def test_counter_splitting_quotes_do_not_group():
    assert tokenise('b1 Name x1 "new york"') == (("b1", "Name", "x1", '"new', 'york"'), "")
    assert tokenise('b1 Quantity x1 "50 %"  % fifty') == (("b1", "Quantity", "x1", '"50'),
                                                         '%"  % fifty')
    assert tokenise("b1\tREF   x1 ") == (("b1", "REF", "x1"), "")


def test_field_problems():
    assert field_problem(("b1", "REF", "x1")) is None
    assert field_problem(("b1", "TPR", "t1", '"now"')) is None
    assert "3 or 4 fields, this one has 2" in field_problem(("b1", "REF"))
    assert "quoted constant with a space" in field_problem(("b1", "Name", "x1", '"new', 'york"'))
    assert "unbalanced" in field_problem(("b1", "Quantity", "x1", '"50'))
    assert "unbalanced" in field_problem(("b1", '"', '"r.01"', "x5"))


def test_line_endings_blank_lines_and_no_final_newline():
    text = "b1 REF x1\r\nb1 dog \"n.01\" x1\r\n \t \r\n\r\nb2 REF x2\rb2 cat \"n.01\" x2"
    a, b = parse_drs(text)
    assert a.lines == (1, 2) and b.lines == (5, 6)
    assert b.clauses[-1] == ("b2", "cat", '"n.01"', "x2")
    assert parse_drs("") == [] and parse_drs("% only a comment\n\n") == []


@pytest.mark.parametrize("text, line, words", [
    ("b1 REF x1\nb1 REF\n", 2, "has 2"),
    ("b1 REF x1\n\nb2 REF x2\nb2 Name x2 \"new york\"\n", 4, "quoted constant with a space"),
    ('b1 REF x1\nb1 Name x1 "tom\n', 2, "unbalanced"),
])
def test_strict_mode_names_the_line(tmp_path, text, line, words):
    p = tmp_path / "bad.txt"
    p.write_text(text, encoding="utf-8")
    assert len(read_drs_file(p)) >= 1  # lenient: kept for the referee
    with pytest.raises(InputError) as e:
        read_drs_file(p, strict=True)
    assert e.value.line == line and e.value.path == str(p) and words in str(e.value)
    assert str(e.value).startswith(f"{p}:{line}: ")


def test_unreadable_and_binary_files_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        read_drs_file(tmp_path / "missing.txt")
    with pytest.raises(InputError, match="cannot read"):
        read_drs_file(tmp_path)
    p = tmp_path / "bin.txt"
    p.write_bytes(b"b1 REF x1\nb1 \xff\xfe REF\n")
    with pytest.raises(InputError) as e:
        read_drs_file(p)
    assert e.value.line == 2
    p.write_bytes(b"b1 REF x1\n\x00\n")
    with pytest.raises(InputError, match="NUL"):
        read_drs_file(p)


def test_writer_round_trip(tmp_path):
    drss = parse_drs(TEXT, "t.txt")
    p = tmp_path / "out.txt"
    write_drs_file(drss, p)
    back = read_drs_file(p)
    assert [d.clauses for d in back] == [d.clauses for d in drss]
    assert [d.trailing for d in back] == [d.trailing for d in drss]
    plain = format_drs([[("b1", "REF", "x1")], [("b2", "REF", "x2")]])
    assert plain == "b1 REF x1\n\nb2 REF x2\n"
    assert format_drs(drss, comments=False).startswith("b1 REF x1\nb1 Name")


def test_reader_does_not_import_metrics():
    code = ("import sys, exactalign.io.drs; "
            "assert not any(m.startswith('exactalign.metrics') for m in sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)


# -- the pilot files ----------------------------------------------------------------------------
def _pilot():
    d = resolve_data_dir()
    root = None if d.path is None else d.path / "drs"
    if root is None or not all((root / p).is_file() for p, _ in DRS_GOLD.values()):
        pytest.skip("DRS pilot files absent (../shared/pilot/drs or $EXACTALIGN_DATA)")
    return root


@pytest.mark.parametrize("name", sorted(DRS_GOLD))
def test_pilot_gold_counts(name):
    root = _pilot()
    path, n = DRS_GOLD[name]
    drss = read_drs_file(root / path, strict=True)
    assert len(drss) == n
    assert [d.index for d in drss] == list(range(n))
    assert all(len(c) in (3, 4) for d in drss for c in d.clauses)


def test_pilot_specific_clauses():
    root = _pilot()
    first = read_drs_file(root / DRS_GOLD["pmb-2.1.0/dev"][0])[0]
    # "Tom can't speak French. Tom can't speak Spanish either." (lines 4-26 of the file)
    assert first.clauses[0] == ("b8", "CONTINUATION", "b1", "b5")
    assert first.clauses[4] == ("b2", "Name", "x1", '"tom"') and first.lines[4] == 8
    assert ("b4", "speak", '"v.03"', "e1") in first.clauses
    assert first.lines[-1] == 26 and first.trailing[4] == "% Tom [0...3] Tom [24...27]"
    assert first.comments[2] == (3, "%%% ø Tom ca n't speak ø French . ø Tom ca n't speak ø "
                                    "Spanish either .")


def test_pilot_every_file_reads_with_the_gold_count():
    root = _pilot()
    files = drs_files(root)
    assert len(files) == 85
    sizes = {}
    for f in files:
        sizes[f] = len(read_drs_file(f))
    assert sum(sizes.values()) == 56943
    counts = {n for _, n in DRS_GOLD.values()}
    assert set(sizes.values()) <= counts
    # a seq2seq output with a stray quote: kept, for the referee to judge
    odd = root / "systems/pmb-2.1.0/dev/seq2seq_word_best_gold_only.txt"
    bad = [(d.index, ln) for d in read_drs_file(odd)
           for c, ln in zip(d.clauses, d.lines, strict=True) if field_problem(c)]
    assert (5737 in [ln for _, ln in bad])


_FIELD_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")),
                      min_size=1, max_size=6)
_CLAUSE = st.lists(_FIELD_TEXT, min_size=1, max_size=5).filter(
    lambda c: not c[0].startswith("%") and all(f == "".join(f.split()) for f in c))


@given(st.lists(st.lists(_CLAUSE, min_size=1, max_size=4), max_size=4))
def test_writer_reader_round_trip_property(drss):
    text = format_drs(drss)
    assert [list(map(list, d.clauses)) for d in parse_drs(text)] == drss


def test_writer_refuses_what_would_not_read_back():
    for bad in ([("%b1", "REF", "x1")], [("b1", "", "x1")], [("b1", "new york", "x1")], [()]):
        with pytest.raises(ValueError, match="cannot be written"):
            format_drs([bad])
    assert format_drs([[]]) == ""
