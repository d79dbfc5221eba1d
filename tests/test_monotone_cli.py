"""``exactalign monotone``: the JSON structure format, methods, kinds and one-line errors."""

import json

import pytest

from exactalign import cli


@pytest.fixture
def files(tmp_path):
    def write(name, obj, raw=False):
        p = tmp_path / name
        p.write_text(obj if raw else json.dumps(obj))
        return str(p)
    return write


def run_json(capsys, *argv):
    assert cli.main(["monotone", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_sequences_paper_example(files, capsys):
    a, b = files("a.json", list("abcd")), files("b.json", list("acbd"))
    out = run_json(capsys, a, b, "--alignment")
    assert out["instance"]["structure"] == "sequence" and out["instance"]["pairs"] == 4
    assert out["solves"]["exact"]["objective"] == 3.0
    assert out["solves"]["exact"]["status"] == "optimal"
    assert set(out["solves"]) == {"exact", "ilp", "greedy", "linext", "local"}
    assert out["vs_exact"]["optimum"] == 3.0
    assert out["solves"]["linext"]["objective"] == 3.0  # exact on sequences


def test_dags_antichain_and_strict(files, capsys):
    a = files("a.json", {"items": ["x", "y"], "edges": [[0, 1]]})
    b = files("b.json", {"items": ["y", "x"]})  # an antichain: no order
    out = run_json(capsys, a, b, "--method", "exact")
    assert out["instance"]["structure"] == "dag" and out["solves"]["exact"]["objective"] == 2.0
    out = run_json(capsys, a, b, "--method", "exact", "--strict")
    assert out["solves"]["exact"]["objective"] == 1.0 and out["instance"]["strict"]
    c = files("c.json", {"items": ["y", "x"], "edges": [[0, 1]]})
    out = run_json(capsys, a, c, "--method", "ilp", "--formulation", "pairwise")
    assert out["solves"]["ilp"]["objective"] == 1.0


def test_dice_similarity_and_matching_kind(files, capsys):
    a = files("a.json", ["new york city"])
    b = files("b.json", ["new york", "city"])
    out = run_json(capsys, a, b, "--similarity", "dice", "--method", "exact")
    assert out["solves"]["exact"]["objective"] == pytest.approx(2 * 2 / 5)
    out = run_json(capsys, a, b, "--similarity", "dice", "--matching", "1:N",
                   "--method", "exact")
    assert out["solves"]["exact"]["objective"] == pytest.approx(2 * 2 / 5 + 2 * 1 / 4)


def test_table_output(files, capsys):
    a, b = files("a.json", list("ab")), files("b.json", list("ba"))
    assert cli.main(["monotone", a, b, "--alignment"]) == 0
    out = capsys.readouterr().out
    assert "sequences of 2 and 2 items, 2 candidate pairs, kind 1:1" in out
    assert "alignment of exact: " in out


@pytest.mark.parametrize("content, message", [
    ('{"items": ["a"],\n', "bad.json:2: not valid JSON"),
    ('{"items": [1]}', "'items' must be a list of strings"),
    ('{"items": ["a"], "edges": [[0]]}', "'edges' must be a list of [u, v] integer pairs"),
    ('{"items": ["a", "b"], "edges": [[0, 1], [1, 0]]}', "items 0 and 1 lie on a cycle"),
    ('{"items": ["a"], "nodes": []}', "unknown key 'nodes'"),
])
def test_input_errors_are_one_line(files, capsys, content, message):
    a = files("a.json", ["a"])
    bad = files("bad.json", content, raw=True)
    assert cli.main(["monotone", a, bad]) == 2
    err = capsys.readouterr().err
    assert err.startswith("exactalign: error: ") and "bad.json" in err and message in err
    assert err.count("\n") == 1


def test_sequence_kind_refuses_edges(files, capsys):
    a = files("a.json", ["a"])
    b = files("b.json", {"items": ["a"], "edges": []})
    assert cli.main(["monotone", a, b, "--kind", "sequence"]) == 0
    capsys.readouterr()
    c = files("c.json", {"items": ["a", "b"], "edges": [[0, 1]]})
    assert cli.main(["monotone", a, c, "--kind", "sequence"]) == 2
    assert "has edges but --kind sequence" in capsys.readouterr().err
