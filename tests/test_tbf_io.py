"""The TBF reader: structure, spans, relations, token tables, and every error/warning with its
file and line."""

from __future__ import annotations

import pytest

from exactalign import InputError
from exactalign.io import tbf
from exactalign.io.tbf import (
    canonical,
    check_token_ids,
    parse_span,
    parse_tbf,
    read_tbf,
    read_token_table,
    read_type_whitelist,
    token_table_path,
)


def line(mid, span, typ="Conflict_Attack", realis="Actual", doc="d1", *extra):
    return "\t".join(["run", doc, mid, span, "text", typ, realis, *extra])


def write(tmp_path, text, name="f.tbf"):
    p = tmp_path / name
    p.write_text(text)
    return p


def doc(*body, doc_id="d1"):
    return "\n".join([f"#BeginOfDocument {doc_id}", *body, "#EndOfDocument"]) + "\n"


def raises_at(p, lineno, match, **kw):
    with pytest.raises(InputError, match=match) as e:
        read_tbf(p, **kw)
    assert e.value.path == str(p)
    assert e.value.line == lineno
    assert str(e.value).startswith(f"{p}:{lineno}: ")
    return e.value


# --------------------------------------------------------------------------------------------
# well-formed input
# --------------------------------------------------------------------------------------------
def test_reads_documents_mentions_and_relations(tmp_path):
    p = write(tmp_path, "# a comment line\n\n" + doc(
        line("E1", "4,8;13,16"), line("E2", "20,25", "Personnel_Start-Position", "Generic",
                                      "d1", "0.9"),
        "  @Coreference\tR1\tE1,E2  ", "@After\tA1\tE1,E2", "@Subevent\tS1\tE2,E1")
        + doc(line("E1", "1,2", doc="d2"), doc_id="d2"))
    f = read_tbf(p)
    assert list(f.documents) == ["d1", "d2"] and f.run_id == "f.tbf" and f.warnings == []
    d1 = f.documents["d1"]
    assert (d1.begin_line, d1.end_line) == (3, 9)
    e1, e2 = d1.mentions
    assert e1.pieces == ((4, 8), (13, 16)) and e1.units == frozenset({4, 5, 6, 7, 13, 14, 15})
    assert e1.size == 7 and e1.line == 4 and e1.text == "text"
    assert e2.attributes == ("Personnel_Start-Position", "Generic") and e2.extra == ("0.9",)
    assert e2.type == "personnelstartposition"
    assert e2.canonical_attributes == ("personnelstartposition", "generic")
    names = [(r.name, r.relation_id, r.arguments, r.line) for r in d1.relations]
    assert names == [("Coreference", "R1", ("E1", "E2"), 6), ("After", "A1", ("E1", "E2"), 7),
                     ("Subevent", "S1", ("E2", "E1"), 8)]
    assert f.num_mentions == 3


def test_character_list_quirk_overlapping_pieces_count_twice_in_size():
    # v1.8 expands pieces into a *list*: 0..3 and 2..5 -> 8 characters, 6 distinct.
    m = parse_tbf(doc(line("E1", "0,4;2,6"))).documents["d1"].mentions[0]
    assert m.size == 4 + 4 and m.units == frozenset(range(6))


def test_token_mode_ids_are_a_set_in_order():
    m = parse_tbf(doc(line("E1", "t3,t5,t3")), mode="token").documents["d1"].mentions[0]
    assert m.pieces == ("t3", "t5") and m.size == 2 and m.units == {"t3", "t5"}
    # ';' means nothing in token mode: one (odd) id, as v1.8 reads it.
    assert parse_span("t1;t2", "token") == ("t1;t2",)


def test_canonical_keeps_ascii_letters_and_digits_lowercased():
    assert canonical("Personnel_Start-Position") == "personnelstartposition"
    assert canonical(" NOT_ANNOTATED ") == "notannotated"
    assert canonical("Conflict\u2013Attack\u00e9") == "conflictattack"  # non-ASCII dropped
    assert canonical("Life.Die2") == "lifedie2"


def test_empty_file_and_missing_final_newline(tmp_path):
    assert read_tbf(write(tmp_path, "")).documents == {}
    f = parse_tbf(doc(line("E1", "1,2")).rstrip("\n"))
    assert list(f.documents) == ["d1"]


def test_other_attribute_lists():
    f = parse_tbf(doc("\t".join(["run", "d1", "E1", "1,2", "x", "T", "R", "extra-attr"])),
                  attributes=("mention_type", "realis_status", "polarity"))
    assert f.documents["d1"].mentions[0].attributes == ("T", "R", "extra-attr")


# --------------------------------------------------------------------------------------------
# errors, one by one, with file and line
# --------------------------------------------------------------------------------------------
def test_missing_end_of_document_names_the_begin_line(tmp_path):
    p = write(tmp_path, doc(line("E1", "1,2")) + "#BeginOfDocument d2\n" + line("E1", "1,2"))
    raises_at(p, 4, "document d2 has no #EndOfDocument")


def test_begin_while_a_document_is_open(tmp_path):
    p = write(tmp_path, "#BeginOfDocument d1\n" + line("E1", "1,2") + "\n#BeginOfDocument d2\n")
    raises_at(p, 3, r"#BeginOfDocument d2 while document d1 \(opened at line 1\)")


def test_end_outside_a_document(tmp_path):
    raises_at(write(tmp_path, "#EndOfDocument\n"), 1, "#EndOfDocument outside a document")


def test_begin_without_id(tmp_path):
    raises_at(write(tmp_path, "#BeginOfDocument   \n#EndOfDocument\n"), 1, "without a document id")


def test_document_given_twice(tmp_path):
    p = write(tmp_path, doc(line("E1", "1,2")) + doc(line("E1", "1,2")))
    raises_at(p, 4, r"document d1 appears twice in the file \(first at line 1\)")


def test_mention_and_relation_lines_outside_a_document(tmp_path):
    raises_at(write(tmp_path, line("E1", "1,2") + "\n"), 1, "mention line outside a document")
    raises_at(write(tmp_path, doc(line("E1", "1,2")) + "@After\tA\tE1,E1\n"), 4,
              "relation line outside a document")


def test_too_few_fields(tmp_path):
    p = write(tmp_path, doc("d1\tE1\t1,2\ttext\tT\tR"))
    raises_at(p, 2, "mention line has 6 tab-separated fields, at least 7 are needed")


@pytest.mark.parametrize("span, match", [
    ("4-8", "each ';'-separated piece must be two integers"),
    ("4,8,9", "each ';'-separated piece must be two integers"),
    ("a,b", "each ';'-separated piece must be two integers"),
    ("4,8;", "each ';'-separated piece must be two integers"),
    ("t3,t5", "each ';'-separated piece must be two integers"),
    ("-1,3", "negative offset"),
    ("8,4", "begin 8 > end 4"),
    (" ", "empty span field"),
])
def test_malformed_character_spans(tmp_path, span, match):
    raises_at(write(tmp_path, doc(line("E1", "1,2"), line("E2", span))), 3, match)


def test_malformed_token_span(tmp_path):
    raises_at(write(tmp_path, doc(line("E1", "t1,,t2"))), 2, "an empty token id", mode="token")


def test_relation_errors(tmp_path):
    raises_at(write(tmp_path, doc(line("E1", "1,2"), "@After\tA1")), 3,
              "relation line has 2 tab-separated fields; expected 3")
    raises_at(write(tmp_path, doc(line("E1", "1,2"), "@After\tA1\tE1")), 3,
              "relation After A1 needs at least two mention ids")
    raises_at(write(tmp_path, doc(line("E1", "1,2"), "@Coreference\tR1\tE1,E9")), 3,
              "relation Coreference R1 names mention 'E9', which is not in document d1")


def test_unknown_token_id(tmp_path):
    tdir = tmp_path / "tkn"
    tdir.mkdir()
    (tdir / "d1.tab").write_text("t1\tThe\t0\t3\nt2\tcat\t4\t7\n")
    p = write(tmp_path, doc(line("E1", "t1,t2"), line("E2", "t2,t7")))
    f = read_tbf(p, mode="token")
    table = read_token_table(token_table_path(tdir, "d1"))
    with pytest.raises(InputError, match=r"token id 't7' of mention E2 is not in the token "
                                         r"table .*d1\.tab") as e:
        check_token_ids(f.documents["d1"], table, str(p))
    assert (e.value.path, e.value.line) == (str(p), 3)


def test_unknown_mode():
    with pytest.raises(ValueError, match="unknown span mode"):
        parse_tbf("", mode="chars")


# --------------------------------------------------------------------------------------------
# warnings (v1.8 carries on) and strict checking
# --------------------------------------------------------------------------------------------
WARNING_CASES = [
    (doc(line("E1", "1,2"), line("E1", "3,4")), 3,
     "mention id E1 repeats the one at line 2 in document d1; both mentions are kept"),
    (doc(line("E1", "1,2", doc="other")), 2,
     "document id field 'other' differs from the #BeginOfDocument id 'd1'"),
    (doc(line("E1", "1,2;5,5")), 2, "empty character piece '5,5'"),
    (doc(line("E1", "5,5")), 2, "mention E1 covers nothing"),
    (doc(line("E1", "1,2"), line("E2", "3,4"), "@Coref\tC1\tE1,E2"), 4,
     "unknown relation 'Coref'"),
    (doc(line("E1", "1,2"), "@Coreference\tC1\tE1"), 3, "coreference cluster C1 has a single"),
]


@pytest.mark.parametrize("text, lineno, message", WARNING_CASES)
def test_warnings_and_strict(tmp_path, text, lineno, message):
    p = write(tmp_path, text)
    f = read_tbf(p)
    assert [w.line for w in f.warnings][:1] == [lineno]
    assert message in f.warnings[0].message
    assert str(f.warnings[0]).startswith(f"{p}:{lineno}: ")
    e = raises_at(p, lineno, "strict checking", strict=True)
    assert message in str(e)


def test_duplicate_mentions_are_kept():
    f = parse_tbf(doc(line("E1", "1,2"), line("E1", "3,4")))
    assert [m.pieces for m in f.documents["d1"].mentions] == [((1, 2),), ((3, 4),)]


# --------------------------------------------------------------------------------------------
# token tables and white lists
# --------------------------------------------------------------------------------------------
def test_token_table_header_spaces_and_bad_lines(tmp_path):
    p = tmp_path / "d1.tab"
    p.write_text("token_id\ttoken_str\ttkn_begin\ttkn_end\n"
                 "t1\twhen\t0\t3\n"
                 "t5\tway\t17 \t19\n"          # a stray space, as in EvmEval's demo tables
                 "t6\tbroken\n"
                 "t7\tx\tfoo\t9\n\n")
    t = read_token_table(p)
    assert list(t.tokens) == ["t1", "t5", "t7"]
    assert (t.tokens["t5"].begin, t.tokens["t5"].end) == (17, 19)
    assert t.tokens["t7"].begin is None and "t7" in t
    assert [(w.line, w.message.split(",")[0]) for w in t.warnings] == [
        (4, "token line has 2 tab-separated fields"), (5, "token offsets 'foo'")]
    with pytest.raises(InputError, match="strict") as e:
        read_token_table(p, strict=True)
    assert e.value.line == 4
    assert token_table_path("tkn", "d1", ".txt").as_posix() == "tkn/d1.txt"


def test_type_whitelist(tmp_path):
    p = tmp_path / "types.txt"
    p.write_text("conflict attack\nPersonnel End-Position\n\n")
    assert read_type_whitelist(p) == {"conflictattack", "personnelendposition", ""}
    p.write_text("")
    assert read_type_whitelist(p) == frozenset()


def test_constants_match_v18():
    assert tbf.DEFAULT_ATTRIBUTES == ("mention_type", "realis_status")
    assert canonical(tbf.NOT_ANNOTATED) == "notannotated"
    assert tbf.TOKEN_FILE_EXT == ".tab" and tbf.TOKEN_OFFSET_FIELDS == (2, 3)


def test_format_tbf_round_trip_with_relations_and_extra_fields():
    text = doc(line("E1", "32,33;40,42", "Personnel_Nominate", "Actual", "d1", "0.8"),
               line("E2", "45,57", "Life_Die", "Generic"),
               "@Coreference\tR1\tE1,E2", "@After\tA1\tE1,E2")
    f = parse_tbf(text, path="a.tbf")
    out = tbf.format_tbf(f)
    assert out == text.replace("\t\n", "\n")
    back = parse_tbf(out, path="b.tbf")
    assert [(m.mention_id, m.pieces, m.attributes, m.extra) for m in back.documents["d1"].mentions] \
        == [(m.mention_id, m.pieces, m.attributes, m.extra) for m in f.documents["d1"].mentions]
    assert [(r.name, r.arguments) for r in back.documents["d1"].relations] == [
        ("Coreference", ("E1", "E2")), ("After", ("E1", "E2"))]


def test_dash_reads_standard_input(monkeypatch):
    import io

    text = ("#BeginOfDocument d1\nsys\td1\tE1\t0,5\tattack\tConflict_Attack\tActual\n"
            "#EndOfDocument\n")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    tbf = read_tbf("-")
    assert tbf.path == "<stdin>" and list(tbf.documents) == ["d1"]
