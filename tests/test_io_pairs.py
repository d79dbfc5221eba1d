"""The bipartite instance reader: one test per error message (file, line and key phrase), and
round trips of valid files in both formats."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest

from exactalign import InputError
from exactalign.io import format_pairs, parse_pairs, read_pairs, write_pairs
from exactalign.io import pairs as pairs_mod
from exactalign.problems import bipartite
from exactalign.problems.bipartite import BipartiteInstance

# Dice of the counterexample: ref spans {t1,t2}, {t3,t4,t5}; pred spans {t2,t3}, {t1,t2}.
DICE = [[2 * 1 / (2 + 2), 2 * 2 / (2 + 2)],
        [2 * 1 / (3 + 2), 0.0]]

VALID_TEXT = """\
# the counterexample (Dice)
n_ref 2 n_pred 2 kind 1:1
0\t0\t0.5
0 1 1.0   # trailing comment
1 0 0.4
"""


def _err(tmp_path, content, name="inst.tsv", **kw) -> InputError:
    p = tmp_path / name
    p.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(InputError) as info:
        read_pairs(p, **kw)
    e = info.value
    assert e.path == str(p)
    return e


def _assert_at(e: InputError, line: int | None, phrase: str) -> None:
    assert e.line == line, str(e)
    assert phrase in e.message, str(e)
    where = e.path if line is None else f"{e.path}:{line}"
    assert str(e) == f"{where}: {e.message}"


# --------------------------------------------------------------------------------------------
# text format: every error
# --------------------------------------------------------------------------------------------
TEXT_ERRORS = [
    # id, content, line, phrase
    ("too-few-fields", "0 0 1\n0 1\n", 2, "expected 3 fields 'ref_index pred_index weight', "
                                          "got 2"),
    ("too-many-fields", "# c\n0 0 1 7\n", 2, "expected 3 fields"),
    ("ref-not-integer", "0 0 1\n\nx 1 0.5\n", 3, "reference index 'x' is not an integer"),
    ("pred-not-integer", "0 1.0 1\n", 1, "predicted index '1.0' is not an integer"),
    ("ref-negative", "0 0 1\n-1 0 0.5\n", 2, "reference index -1 is negative"),
    ("pred-negative", "0 -2 1\n", 1, "predicted index -2 is negative"),
    ("index-too-large", "0 99999999999 1\n", 1, "predicted index 99999999999 is too large"),
    ("ref-out-of-range", "n_ref 2 n_pred 5\n0 0 1\n2 0 1\n", 3,
     "reference index 2 is out of range: n_ref is 2 (declared on line 1)"),
    ("pred-out-of-range", "# x\nn_pred 1\n0 0 1\n0 1 1\n", 4,
     "predicted index 1 is out of range: n_pred is 1 (declared on line 2)"),
    ("weight-not-number", "0 0 abc\n", 1, "weight 'abc' is not a number"),
    ("weight-negative", "0 0 1\n1 1 -0.5\n", 2, "weight -0.5 is negative; weights must be >= 0"),
    ("weight-nan", "0 0 nan\n", 1, "weight nan is not finite"),
    ("weight-inf", "0 0 1\n0 1 inf\n", 2, "weight inf is not finite"),
    ("duplicate-pair", "0 0 1\n0 1 0.5\n# again\n0 1 0.7\n", 4,
     "pair (0, 1) is given twice (first on line 2)"),
    ("duplicate-zero-pair", "0 0 0\n0 0 0\n", 2, "pair (0, 0) is given twice (first on line 1)"),
    ("header-after-pair", "0 0 1\nn_ref 3 n_pred 3\n", 2, "header must come before the first pair"),
    ("second-header", "n_ref 3\nkind 1:N\n", 2, "a second header line (the first is line 1)"),
    ("header-odd-fields", "n_ref 3 n_pred\n", 1, "a header is 'n_ref N n_pred M [kind K]'"),
    ("header-unknown-key", "n_ref 3 n_items 4\n", 1, "unknown header key 'n_items'"),
    ("header-repeated-key", "n_ref 3 n_ref 4\n", 1, "header key 'n_ref' is given twice"),
    ("header-bad-size", "n_ref -3 n_pred 4\n", 1, "n_ref must be a non-negative integer, got '-3'"),
    ("unknown-kind", "# k\nn_ref 1 n_pred 1 kind 2:2\n0 0 1\n", 2,
     "unknown kind '2:2'; choose one of 1:1, 1:N, N:1, N:N"),
    ("not-utf8", b"0 0 1\n1 1 \xff\n", 2, "not UTF-8 text (byte 0xff"),
]


@pytest.mark.parametrize("content, line, phrase", [c[1:] for c in TEXT_ERRORS],
                         ids=[c[0] for c in TEXT_ERRORS])
def test_text_error(tmp_path, content, line, phrase):
    _assert_at(_err(tmp_path, content), line, phrase)


@pytest.mark.parametrize("content", ["", "\n\n", "# only a comment\n   # another\n"],
                         ids=["empty", "blank-lines", "comments-only"])
def test_text_empty_file(tmp_path, content):
    _assert_at(_err(tmp_path, content), None, "empty file: no header and no candidate pairs")


# --------------------------------------------------------------------------------------------
# JSON: every error
# --------------------------------------------------------------------------------------------
JSON_ERRORS = [
    ("malformed", '{"pairs": [\n  [0, 0, 1],\n  [0, 1 0.5]\n]}', 3,
     "malformed JSON: Expecting ',' delimiter (column 9)"),
    ("trailing-garbage", '{"pairs": []}\nxyz\n', 2, "malformed JSON: Extra data"),
    ("not-an-object", "\n[[0, 0, 1]]\n", 2, "expected a JSON object with 'pairs', got list"),
    ("unknown-key", '{"pairs": [],\n "nref": 3}', 2,
     "unknown key 'nref' (expected n_ref, n_pred, kind, pairs)"),
    ("duplicate-key", '{"n_ref": 2,\n "pairs": [],\n "n_ref": 3}', 3,
     "key 'n_ref' is given twice (first on line 1)"),
    ("missing-pairs", '\n{"n_ref": 2}', 2, "missing key 'pairs'"),
    ("pairs-not-list", '{\n"pairs":\n {"0": 1}}', 3, "'pairs' must be a list"),
    ("bad-size", '{"n_ref": 2.5,\n "pairs": []}', 1, "n_ref must be a non-negative integer, "
                                                     "got 2.5"),
    ("negative-size", '{"pairs": [],\n "n_pred": -1}', 2, "n_pred must be a non-negative integer"),
    ("unknown-kind", '{"pairs": [],\n\n "kind": "1:M"}', 3, "unknown kind '1:M'"),
    ("pair-wrong-length", '{"pairs": [\n [0, 0, 1],\n [0, 1]]}', 3,
     "expected a pair [ref_index, pred_index, weight], got [0, 1]"),
    ("pair-not-list", '{"pairs": [[0, 0, 1], {"r": 0}]}', 1, "expected a pair"),
    ("ref-not-integer", '{"pairs": [\n[0, 0, 1],\n[1.0, 0, 1]]}', 3,
     "reference index 1.0 is not an integer"),
    ("pred-bool", '{"pairs": [\n[0, true, 1]]}', 2, "predicted index true is not an integer"),
    ("negative-index", '{"pairs": [\n[0, 0, 1],\n[0, -1, 1]]}', 3, "predicted index -1 is negative"),
    ("out-of-range", '{"n_ref": 1,\n "pairs": [[0, 0, 1],\n [1, 0, 1]]}', 3,
     "reference index 1 is out of range: n_ref is 1 (declared on line 1)"),
    ("weight-string", '{"pairs": [[0, 0, "0.5"]]}', 1, 'weight "0.5" is not a number'),
    ("weight-negative", '{"pairs": [[0, 0, 1],\n  [1, 1, -2]]}', 2, "weight -2 is negative"),
    ("weight-nan", '{"pairs": [\n\n[0, 0, NaN]]}', 3, "weight NaN is not finite"),
    ("weight-overflow", '{"pairs": [[0, 0, 1' + "0" * 400 + ']]}', 1, "is not finite"),
    ("duplicate-pair", '{"pairs": [\n  [0, 1, 0.5],\n  [1, 1, 0.2],\n  [0, 1, 0.9]\n]}', 4,
     "pair (0, 1) is given twice (first on line 2)"),
]


@pytest.mark.parametrize("content, line, phrase", [c[1:] for c in JSON_ERRORS],
                         ids=[c[0] for c in JSON_ERRORS])
def test_json_error(tmp_path, content, line, phrase):
    _assert_at(_err(tmp_path, content, "inst.json"), line, phrase)


def test_json_empty_file(tmp_path):
    _assert_at(_err(tmp_path, "  \n", "inst.json"), None, "empty file: no JSON object")


def test_validation_happens_before_building(tmp_path, monkeypatch):
    """A bad line is reported by the reader (with its line), never by BipartiteInstance."""

    def fail(*a, **k):  # pragma: no cover - must not be reached
        raise AssertionError("BipartiteInstance built before validation finished")

    monkeypatch.setattr(BipartiteInstance, "from_pairs", fail)
    _assert_at(_err(tmp_path, "0 0 1\n0 0 2\n"), 2, "given twice")


# --------------------------------------------------------------------------------------------
# valid files
# --------------------------------------------------------------------------------------------
def _same(a: BipartiteInstance, b: BipartiteInstance) -> None:
    assert (a.n_ref, a.n_pred, a.kind) == (b.n_ref, b.n_pred, b.kind)
    np.testing.assert_array_equal(a.rows, b.rows)
    np.testing.assert_array_equal(a.cols, b.cols)
    np.testing.assert_array_equal(a.weights, b.weights)  # exact, not approximate


def test_valid_text_file(tmp_path):
    p = tmp_path / "ce.tsv"
    p.write_text(VALID_TEXT)
    inst = read_pairs(p)
    _same(inst, BipartiteInstance.from_dense(DICE))
    assert bipartite.solve(inst).objective == pytest.approx(1.0 + 0.4)


def test_text_round_trip(tmp_path):
    rng = np.random.default_rng(7)
    W = rng.random((6, 9)) * (rng.random((6, 9)) < 0.4)
    W[5, :] = 0.0  # an item without candidates: the header keeps the size
    inst = BipartiteInstance.from_dense(W, kind="N:1")
    p = tmp_path / "rt.tsv"
    write_pairs(inst, p)
    _same(read_pairs(p), inst)
    _same(parse_pairs(format_pairs(inst)), inst)


def test_sizes_inferred_from_largest_index(tmp_path):
    p = tmp_path / "x.txt"
    p.write_text("3 0 0.5\n0 4 1\n")
    inst = read_pairs(p)
    assert (inst.n_ref, inst.n_pred, inst.kind) == (4, 5, "1:1")


def test_header_only_is_an_empty_instance():
    inst = parse_pairs("n_ref 3 n_pred 2 kind N:N\n")
    assert (inst.n_ref, inst.n_pred, inst.num_pairs, inst.kind) == (3, 2, 0, "N:N")


def test_zero_weights_are_dropped_and_crlf_bom_accepted(tmp_path):
    p = tmp_path / "w.tsv"
    p.write_bytes("\ufeffn_ref 2 n_pred 2\r\n0 0 0\r\n1 1 0.25\r\n".encode())
    inst = read_pairs(p)
    assert inst.num_pairs == 1
    assert (inst.rows.tolist(), inst.cols.tolist(), inst.weights.tolist()) == ([1], [1], [0.25])


def test_json_file(tmp_path):
    p = tmp_path / "ce.json"
    p.write_text('{"n_ref": 2, "n_pred": 3, "kind": "1:N",\n'
                 ' "pairs": [[0, 0, 0.5], [0, 1, 1], [1, 0, 0.4]]}')
    inst = read_pairs(p)
    assert (inst.n_ref, inst.n_pred, inst.kind) == (2, 3, "1:N")
    np.testing.assert_array_equal(inst.to_dense()[:, :2], DICE)


def test_json_sizes_optional_and_detected_by_content(tmp_path):
    p = tmp_path / "no-suffix"
    p.write_text('  {"pairs": [[1, 0, 2.5]]}')
    inst = read_pairs(p)
    assert (inst.n_ref, inst.n_pred, inst.kind, inst.weights.tolist()) == (2, 1, "1:1", [2.5])


def test_kind_argument_overrides_the_file(tmp_path):
    p = tmp_path / "k.tsv"
    p.write_text("kind N:N\n0 0 1\n")
    assert read_pairs(p).kind == "N:N"
    assert read_pairs(p, kind="1:N").kind == "1:N"
    with pytest.raises(InputError, match="unknown kind '3:3'"):
        read_pairs(p, kind="3:3")


def test_explicit_format(tmp_path):
    p = tmp_path / "inst.json"
    p.write_text("0 0 1\n")  # a text file despite the suffix
    assert read_pairs(p, format="text").num_pairs == 1
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        parse_pairs("0 0 1", format="xml")


def test_stdin(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"0 1 0.5\n1 0 x\n")))
    with pytest.raises(InputError) as info:
        read_pairs("-")
    assert str(info.value) == "<stdin>:2: weight 'x' is not a number"


def test_missing_file_is_an_oserror(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_pairs(tmp_path / "absent.tsv")


def test_reader_kinds_match_the_problem():
    assert pairs_mod.KINDS == tuple(bipartite.KINDS)
