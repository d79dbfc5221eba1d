"""``exactalign ere``: table and JSON output, both mappings with their differences, TBF input,
one-line errors with exit status 2."""

from __future__ import annotations

import json

import pytest

from exactalign import cli

# The hand-derived gap of tests/test_ere.py: the procedure maps 2 mentions (7 characters),
# the optimum 3 (4 characters); with entities {a0}, {a1, a2} and {b0}, {b1, b2} the exact
# mapping turns both no-matches into complete matches.
A = {"documents": [{"id": "d", "mentions": [
    {"id": "a0", "span": [0, 6]}, {"id": "a1", "span": [9, 11]}, {"id": "a2", "span": [9, 12]}],
    "entities": [{"id": "x", "type": "PER", "mentions": ["a0"]},
                 {"id": "y", "type": "ORG", "mentions": ["a1", "a2"]}]}]}
B = {"documents": [{"id": "d", "mentions": [
    {"id": "b0", "span": [0, 1]}, {"id": "b1", "span": [1, 10]}, {"id": "b2", "span": [10, 20]}],
    "entities": [{"id": "u", "type": "PER", "mentions": ["b0"]},
                 {"id": "v", "type": "ORG", "mentions": ["b1", "b2"]}]}]}


@pytest.fixture
def files(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(A))
    b.write_text(json.dumps(B))
    return str(a), str(b)


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_procedure(capsys, files):
    code, out, err = run(capsys, "ere", *files, "--json")
    assert (code, err) == (0, "")
    j = json.loads(out)
    assert j["mapping"] == "procedure"
    assert j["counts"]["mentions"] == {"exact": 0, "overlap": 2, "unmatched_a": 1,
                                        "unmatched_b": 1, "total_overlap": 7}
    assert j["counts"]["entities_a"] == {"complete": 0, "incomplete": 0, "no_match": 2}
    assert j["other_counts"]["entities_a"] == {"complete": 2, "incomplete": 0, "no_match": 0}
    assert j["vs_exact"] == {"documents": 1, "documents_below": 1, "count_shortfall": 1,
                             "overlap_shortfall": -3}
    assert j["solves"]["exact"]["status"] == "optimal" and j["solves"]["exact"]["proven_optimal"]
    kinds = {(d["kind"], str(d["item"])) for d in j["differences"]}
    assert ("entity_a", "x") in kinds and ("mention_pair", "['a0', 'b0']") in kinds
    assert j["documents"][0]["gap"]["below_optimum"] is True


def test_table_exact(capsys, files):
    code, out, _ = run(capsys, "ere", *files, "--mapping", "exact", "--documents")
    assert code == 0
    assert "mapping: exact" in out
    assert "entities   A: complete 2, incomplete 0, no match 0" in out
    assert "below it in 1 of 1 document(s) (mapped mentions 1 short" in out
    assert "d  mention_pair  ['a0', 'b0']: not mapped -> mapped" in out
    assert "entity_a  x: ['no_match', None] -> ['complete', 'u']" in out


def test_ilp_backend(capsys, files):
    code, out, _ = run(capsys, "ere", *files, "--json", "--backend", "scipy")
    assert code == 0
    j = json.loads(out)
    exact = j["solves"]["exact"]
    assert exact["method"] == "exact/ilp" and exact["status"] == "optimal"
    assert j["vs_exact"]["count_shortfall"] == 1


def test_tbf_input(capsys, tmp_path):
    tbf = ("#BeginOfDocument doc\nsys\tdoc\tE1\t0,5\tx\tT\tActual\nsys\tdoc\tE2\t10,15\ty\tT\t"
           "Actual\n@Coreference\tR1\tE1,E2\n#EndOfDocument\n")
    p = tmp_path / "g.tbf"
    p.write_text(tbf)
    code, out, _ = run(capsys, "ere", str(p), str(p), "--json")
    assert code == 0
    j = json.loads(out)
    assert j["counts"]["mentions"]["exact"] == 2
    assert j["counts"]["entities_a"]["complete"] == 1


def test_errors_are_one_line(capsys, files, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"documents": [{"id": "d", "mentions": [{"id": "m", "span": [5, 2]}]}]}')
    code, out, err = run(capsys, "ere", str(bad), files[1])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "bad.json: documents[0] (d).mentions[0] (m)" in err
    code, _, err = run(capsys, "ere", files[0], str(tmp_path / "missing.json"))
    assert code == 2 and err.startswith("exactalign: error:")
