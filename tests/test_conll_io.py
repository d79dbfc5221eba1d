"""The CoNLL-2012 reader: how the coreference column is decoded (as the reference scorer v8.01
does), and every error message one by one (file, line and key phrase)."""

from __future__ import annotations

import io
import sys

import pytest

from exactalign import InputError
from exactalign.io.conll import Document, pair_documents, parse_conll, read_conll, read_pair


def doc(name: str, cols: list[str], *, part: bool = True, sep: str = "\t") -> str:
    """A document whose coreference column is ``cols`` (``""`` = a sentence break)."""
    head = f"#begin document ({name}); part 000\n" if part else f"#begin document {name}\n"
    lines, t = [], 0
    for c in cols:
        if c == "":
            lines.append("")
            continue
        lines.append(sep.join([name, "0", str(t), f"w{t}", c]))
        t += 1
    return head + "\n".join(lines) + "\n#end document\n"


def write(tmp_path, text: str, name: str = "f.conll") -> str:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def err_of(tmp_path, text, name="f.conll") -> InputError:
    path = write(tmp_path, text, name)
    with pytest.raises(InputError) as info:
        read_conll(path)
    assert info.value.path == path
    return info.value


def assert_at(e: InputError, line: int | None, phrase: str) -> None:
    assert e.line == line, str(e)
    assert phrase in e.message, str(e)
    where = e.path if line is None else f"{e.path}:{line}"
    assert str(e) == f"{where}: {e.message}"


# --------------------------------------------------------------------------------------------
# valid files
# --------------------------------------------------------------------------------------------
def test_two_documents_clusters_and_token_numbering(tmp_path):
    text = (doc("a", ["(0", "0)", "-", "", "(1)", "(0)"])
            + "\n# a comment between documents\n"
            + doc("b", ["-", "(5|(7)", "5)"]))
    a, b = read_conll(write(tmp_path, text))
    assert (a.name, a.doc_id, a.part, a.n_tokens, a.line) == ("(a); part 000", "a", 0, 5, 1)
    # The blank line (sentence break) is not a token: "(1)" is token 3.
    assert a.clusters == (((0, 1), (4, 4)), ((3, 3),))
    assert a.cluster_ids == ("0", "1")
    assert a.mentions == [(0, 1), (4, 4), (3, 3)]
    # On one token one-token mentions are registered before openings: 7 is cluster 0.
    assert b.cluster_ids == ("7", "5")
    assert b.clusters == (((1, 1),), ((1, 2),))
    assert (b.line, b.n_tokens) == (11, 3)


def test_nested_mentions_of_one_entity_close_innermost_first():
    (d,) = parse_conll(doc("n", ["(1", "(1", "1)", "-", "1)"]))
    assert d.clusters == (((1, 2), (0, 4)),)


def test_nested_mentions_of_two_entities_and_pipe_combinations():
    (d,) = parse_conll(doc("n", ["(1|(2", "2)", "(3)|1)", "(2|(3)", "2)|(4)"]))
    assert d.cluster_ids == ("1", "2", "3", "4")
    assert d.clusters == (((0, 2),), ((0, 1), (3, 4)), ((2, 2), (3, 3)), ((4, 4),))


def test_empty_mark_of_evmeval_v18_is_no_mention():
    # scorer_v1.8 writes "(-)" on rows without a mention; the reference finds no id in it.
    (d,) = parse_conll(doc("e", ["(1)", "(-)", "(1)"]))
    assert d.clusters == (((0, 0), (2, 2)),)


def test_concatenation_without_pipes_as_the_reference_reads_it():
    # TC-A-7 of the reference tests: "(1(1" ... "1)1)" is one mention written twice.
    (d,) = parse_conll(doc("r", ["(1(1", "-", "1)1)"]))
    assert d.clusters == (((0, 2), (0, 2)),)
    # TC-A-8: "(1(3" ... "3)1)": the same span in entities 1 and 3; 1 is met first.
    (d,) = parse_conll(doc("r", ["(1(3", "3)1)"]))
    assert d.cluster_ids == ("1", "3") and d.clusters == (((0, 1),), ((0, 1),))


def test_open_and_close_on_one_token_and_ids_as_strings():
    (d,) = parse_conll(doc("s", ["(1|1)", "(012)", "(12)"]))
    assert d.clusters == (((0, 0),), ((1, 1),), ((2, 2),))
    assert d.cluster_ids == ("1", "012", "12")  # the Perl hash keys are strings


def test_double_antecedent_is_discarded_and_underscore_is_nothing():
    (d,) = parse_conll(doc("d", ["(1+2)", "_", "(3)|(4+5)"]))
    assert d.clusters == (((2, 2),),)


def test_removing_a_match_can_create_one_as_in_perl():
    # Perl's while(s///) restarts after each removal: "(1(2))" -> "(1)" -> a one-token 1.
    (d,) = parse_conll(doc("p", ["(1(2))"]))
    assert d.cluster_ids == ("2", "1")
    assert d.clusters == (((0, 0),), ((0, 0),))


def test_space_separated_crlf_bom_trailing_tab_and_name_without_part():
    text = "\ufeff" + doc("plain name", ["(0", "0)\t", "-"], part=False, sep="   ")
    (d,) = parse_conll(text.replace("\n", "\r\n"))
    assert (d.name, d.doc_id, d.part) == ("plain name", "plain name", None)
    assert d.clusters == (((0, 1),),)


def test_read_from_stdin(monkeypatch):
    data = doc("x", ["(0)", "(0)"]).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    (d,) = read_conll("-")
    assert (d.path, d.clusters) == ("<stdin>", (((0, 0), (1, 1)),))


def test_empty_file_has_no_documents():
    assert parse_conll("") == []


# --------------------------------------------------------------------------------------------
# every reader error
# --------------------------------------------------------------------------------------------
READER_ERRORS = [
    # id, text, line, phrase
    ("close-without-open", doc("a", ["-", "(1)", "2)"]), 4,
     "a mention of entity 2 closes here (token 2) but none is open"),
    ("close-twice", doc("a", ["(1", "1)", "1)"]), 4, "entity 1 closes here"),
    ("open-never-closed", doc("a", ["-", "(3", "(4)", "-"]), 3,
     "a mention of entity 3 opens here (token 1) but is not closed before '#end document' "
     "(line 6)"),
    ("begin-without-end", doc("a", ["(0)"]) + "#begin document (b); part 000\nb 0 0 w -\n", 4,
     "document '(b); part 000' has no '#end document'"),
    ("begin-inside-document", "#begin document (a); part 000\na 0 0 w -\n"
     + doc("b", ["-"]), 3,
     "'#begin document' inside document '(a); part 000' (begun at line 1): missing "
     "'#end document'"),
    ("end-without-begin", doc("a", ["-"]) + "#end document\n", 4,
     "'#end document' without '#begin document'"),
    ("token-outside-document", "a 0 0 w (0)\n" + doc("a", ["-"]), 1,
     "token line outside a document (missing '#begin document'?)"),
    ("hash-line-inside-document", "#begin document (a); part 000\n# note\n#end document\n", 2,
     "unexpected '#' line inside document '(a); part 000'"),
    ("begin-without-name", "#begin document\n#end document\n", 1,
     "'#begin document' without a document name"),
    ("duplicate-document", doc("a", ["-"]) + doc("a", ["-"]), 4,
     "document '(a); part 000' appears twice in the file (first at line 1)"),
    ("bad-annotation", doc("a", ["-", "(1)|x"]), 3, "unrecognised coreference annotation '(1)|x'"),
    ("bad-annotation-parenthesis", doc("a", ["("]), 2, "unrecognised coreference annotation"),
]


@pytest.mark.parametrize("text,line,phrase", [c[1:] for c in READER_ERRORS],
                         ids=[c[0] for c in READER_ERRORS])
def test_reader_errors(tmp_path, text, line, phrase):
    assert_at(err_of(tmp_path, text), line, phrase)


def test_not_utf8(tmp_path):
    p = tmp_path / "bad.conll"
    p.write_bytes(b"#begin document (a); part 000\na 0 0 \xff -\n#end document\n")
    with pytest.raises(InputError) as info:
        read_conll(p)
    assert_at(info.value, 2, "not UTF-8 text (byte 0xff")


def test_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_conll(tmp_path / "nope.conll")


# --------------------------------------------------------------------------------------------
# pairing key and response
# --------------------------------------------------------------------------------------------
def test_pairing_in_key_order(tmp_path):
    key = write(tmp_path, doc("a", ["(0)"]) + doc("b", ["-", "-"]), "key")
    resp = write(tmp_path, doc("b", ["(1)", "-"]) + doc("a", ["-"]), "resp")
    pairs = read_pair(key, resp)
    assert [(k.name, r.name) for k, r in pairs] == [("(a); part 000",) * 2,
                                                    ("(b); part 000",) * 2]
    assert pairs[1][1].clusters == (((0, 0),),)


def test_pairing_document_missing_from_response(tmp_path):
    key = write(tmp_path, doc("a", ["-"]) + doc("b", ["-"]) + doc("c", ["-"]), "key")
    resp = write(tmp_path, doc("a", ["-"]), "resp")
    with pytest.raises(InputError) as info:
        read_pair(key, resp)
    assert info.value.path == key
    assert_at(info.value, 4, f"document '(b); part 000' of the key is not in the response "
                             f"{resp} (and 1 more)")


def test_pairing_document_missing_from_key(tmp_path):
    key = write(tmp_path, doc("a", ["-"]), "key")
    resp = write(tmp_path, doc("a", ["-"]) + doc("z", ["-"]), "resp")
    with pytest.raises(InputError) as info:
        read_pair(key, resp)
    assert info.value.path == resp
    assert_at(info.value, 4, f"document '(z); part 000' of the response is not in the key {key}")


def test_pairing_token_count_mismatch(tmp_path):
    key = write(tmp_path, doc("a", ["-"]) + doc("b", ["(0)", "-", "(0)"]), "key")
    resp = write(tmp_path, doc("b", ["(0)", "(0)"]) + doc("a", ["-"]), "resp")
    with pytest.raises(InputError) as info:
        read_pair(key, resp)
    assert info.value.path == resp
    assert_at(info.value, 1, f"document '(b); part 000' has 2 tokens in the response but 3 in "
                             f"the key ({key}:4)")


def test_pairing_documents_built_in_memory():
    a = Document("a", (((0, 0),),), n_tokens=1)
    with pytest.raises(InputError, match="'a' of the key is not in the response"):
        pair_documents([a], [])
    assert pair_documents([a], [a]) == [(a, a)]
