"""``exactalign score`` and the declared-metric API read their input strictly (issue 36): how
documents pair (ids, positions), what a span is, what a spec option may be, which average the
table prints, and which argument is the prediction. Each test fails when its fix is reverted;
every expected value is derived by hand in the comments."""

from __future__ import annotations

import json

import pytest
from test_bad_input import one_error_line as error_line
from test_bad_input import run

import exactalign
from exactalign import cli
from exactalign.core.errors import InputError
from exactalign.declared import Eq, Match, Metric, Record, Span
from exactalign.declared.files import load_spec

# A 10-line span-overlap NER F1, as the user wrote it.
NER = """\
name = "ner"
field = "entities"
average = "{average}"

[spec]
type = "match"

[spec.element]
type = "record"
fields.span = {{ type = "span", measure = "overlap" }}
fields.type = {{ type = "eq" }}
"""


def ent(start, end, kind="PER"):
    return {"span": [start, end], "type": kind}


def one_error_line(err: str) -> str:
    """The one error line, without its ``exactalign: error:`` prefix."""
    return error_line(err)[len("exactalign: error: "):]


def write_jsonl(path, docs):
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return path


@pytest.fixture
def ner(tmp_path):
    def make(average="micro"):
        spec = tmp_path / f"ner_{average}.toml"
        spec.write_text(NER.format(average=average))
        return spec

    return make


# --------------------------------------------------------------------------------------------
# pairing documents
# --------------------------------------------------------------------------------------------
def test_without_ids_a_missing_line_is_an_error_not_a_shift(tmp_path, capsys, ner):
    gold = write_jsonl(tmp_path / "gold.jsonl", [{"entities": [ent(0, 1)]}] * 3)
    system = write_jsonl(tmp_path / "sys.jsonl", [{"entities": [ent(0, 1)]}] * 2)
    code, out, err = run(capsys, "score", "--spec", ner(), gold, system)
    assert code == 2 and out == ""
    assert one_error_line(err) == (
        f"{system} has 2 documents and {gold} has 3, and neither gives its documents an "
        "'id', so they pair by position: give every document an 'id' to score a subset")


def test_without_ids_documents_pair_by_position_not_by_line(tmp_path, capsys, ner):
    # a blank line in the system file does not shift the pairs: both documents match 1/1
    gold = write_jsonl(tmp_path / "gold.jsonl", [{"entities": [ent(0, 1)]},
                                                 {"entities": [ent(5, 6)]}])
    system = tmp_path / "sys.jsonl"
    system.write_text("\n" + json.dumps({"entities": [ent(0, 1)]}) + "\n\n"
                      + json.dumps({"entities": [ent(5, 6)]}) + "\n")
    code, out, _ = run(capsys, "score", "--spec", ner(), gold, system, "--json",
                       "--method", "exact")
    doc = json.loads(out)
    assert code == 0 and doc["overall"]["ner/exact"]["f1"] == 1.0
    # an unnamed document is named by its line in the reference file
    assert [d["id"] for d in doc["documents"]] == ["1", "2"] and doc["missing"] == []


def test_a_gold_document_missing_from_the_system_is_empty_and_named(tmp_path, capsys, ner):
    gold = write_jsonl(tmp_path / "gold.jsonl", [
        {"id": f"d{k}", "entities": [ent(0, 1)]} for k in range(8)])
    system = write_jsonl(tmp_path / "sys.jsonl", [{"id": "d0", "entities": [ent(0, 1)]}])
    code, out, err = run(capsys, "score", "--spec", ner(), gold, system, "--json",
                         "--method", "exact")
    assert code == 0
    assert err.strip() == (
        f"exactalign: warning: 7 of the 8 documents of {gold} are not in {system} and are "
        "scored as empty predictions: 'd1', 'd2', 'd3', 'd4', 'd5' and 2 more")
    doc = json.loads(out)
    assert doc["missing"] == [f"d{k}" for k in range(1, 8)]
    # 1 of 8 gold entities found, the one predicted is right: R 1/8, P 1
    assert doc["overall"]["ner/exact"]["recall"] == 1 / 8
    assert doc["overall"]["ner/exact"]["precision"] == 1.0


def test_ids_in_some_lines_only_is_an_error(tmp_path, capsys, ner):
    gold = write_jsonl(tmp_path / "gold.jsonl", [{"id": "a", "entities": []},
                                                 {"entities": []}])
    code, _, err = run(capsys, "score", "--spec", ner(), gold, gold)
    assert code == 2
    assert one_error_line(err) == (
        f"{gold}:2: this document has no 'id' but the one on line 1 has: give every "
        "document an 'id' (pairs by id) or none (pairs by position)")


def test_ids_in_one_file_only_is_an_error(tmp_path, capsys, ner):
    gold = write_jsonl(tmp_path / "gold.jsonl", [{"id": "a", "entities": []}])
    system = write_jsonl(tmp_path / "sys.jsonl", [{"entities": []}])
    code, _, err = run(capsys, "score", "--spec", ner(), gold, system)
    assert code == 2
    assert one_error_line(err) == (
        f"{system}:1: this document has no 'id' but the documents of {gold} have ids: give "
        "both files ids (pairs by id) or neither (pairs by position)")


def test_a_duplicate_id_is_one_error_with_file_and_line(tmp_path, capsys, ner):
    gold = write_jsonl(tmp_path / "gold.jsonl", [{"id": "a", "entities": []},
                                                 {"id": "b", "entities": []},
                                                 {"id": "a", "entities": []}])
    code, _, err = run(capsys, "score", "--spec", ner(), gold, gold)
    assert code == 2
    assert one_error_line(err) == f"{gold}:3: document id 'a' already used on line 1"


def test_stdin_for_both_files_is_refused(capsys, ner):
    code, _, err = run(capsys, "score", "--spec", ner(), "-", "-")
    assert code == 2
    assert one_error_line(err) == ("GOLD and SYSTEM cannot both be '-' (standard input can "
                                   "be read once)")


# --------------------------------------------------------------------------------------------
# macro average: the table, the gap row and the JSON agree
# --------------------------------------------------------------------------------------------
# d1: gold PER[0,2) LOC[5,6), system PER[0,1): P 1/1, R 1/2, F1 2/3
# d2: gold ORG[1,3), system ORG[1,3) LOC[7,8) LOC[9,10): P 1/3, R 1/1, F1 1/2
# macro: P (1 + 1/3)/2 = 66.67, R (1/2 + 1)/2 = 75.00, F1 (2/3 + 1/2)/2 = 7/12 = 58.33
# micro: 2 matched of 3 gold, 4 predicted: P 50.00, R 66.67, F1 4/7 = 57.14
MACRO_GOLD = [{"id": "d1", "entities": [ent(0, 2), ent(5, 6, "LOC")]},
              {"id": "d2", "entities": [ent(1, 3, "ORG")]}]
MACRO_SYS = [{"id": "d1", "entities": [ent(0, 1)]},
             {"id": "d2", "entities": [ent(1, 3, "ORG"), ent(7, 8, "LOC"), ent(9, 10, "LOC")]}]


def test_macro_metric_table_gap_and_json_agree(tmp_path, capsys, ner):
    gold = write_jsonl(tmp_path / "gold.jsonl", MACRO_GOLD)
    system = write_jsonl(tmp_path / "sys.jsonl", MACRO_SYS)
    code, out, _ = run(capsys, "score", "--spec", ner("macro"), gold, system)
    assert code == 0
    rows = [line.split() for line in out.splitlines()]
    assert rows[1][:5] == ["ner", "exact", "66.67", "75.00", "58.33"]
    assert rows[2][:5] == ["ner", "greedy", "66.67", "75.00", "58.33"]
    assert rows[3][:3] == ["ner", "gap", "0.00"]
    code, out, _ = run(capsys, "score", "--spec", ner("macro"), gold, system, "--json")
    doc = json.loads(out)
    exact = doc["overall"]["ner/exact"]
    assert (exact["precision"], exact["recall"]) == (pytest.approx(2 / 3), 0.75)
    assert exact["f1"] == pytest.approx(7 / 12)
    assert doc["metrics"][0]["exact"]["value"] == pytest.approx(7 / 12)
    # the micro metric on the same files prints the micro counts
    code, out, _ = run(capsys, "score", "--spec", ner("micro"), gold, system,
                       "--method", "exact")
    assert out.splitlines()[1].split()[:5] == ["ner", "exact", "50.00", "66.67", "57.14"]


# --------------------------------------------------------------------------------------------
# spans are two integers, 0 <= start <= end < 2**53
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("span", "problem"), [
    ('["0", 2]', "a span must be [start, end], two integers, not ['0', 2]"),
    ("[0.9, 4.2]", "a span must be [start, end], two integers, not [0.9, 4.2]"),
    ("[0, 3.0]", "a span must be [start, end], two integers, not [0, 3.0]"),
    ("[true, 2]", "a span must be [start, end], two integers, not [True, 2]"),
    ("[0, Infinity]", "a span must be [start, end], two integers, not [0, inf]"),
    ("[0, 1, 2]", "a span must be [start, end], two integers, not [0, 1, 2]"),
    ("[-5, -1]", "span [-5, -1] starts before 0"),
    ("[0, 9007199254740992]", "span [0, 9007199254740992] ends at or past 2**53"),
    ("[4, 2]", "span [4, 2] ends before it starts"),
])
def test_a_bad_span_is_one_error_naming_file_line_and_document(tmp_path, capsys, ner, span,
                                                                problem):
    gold = write_jsonl(tmp_path / "gold.jsonl", [{"id": "a", "entities": [ent(0, 1)]},
                                                 {"id": "b", "entities": [ent(0, 1)]}])
    system = tmp_path / "sys.jsonl"
    system.write_text('{"id": "a", "entities": []}\n'
                      '{"id": "b", "entities": [{"span": ' + span + ', "type": "PER"}]}\n')
    code, _, err = run(capsys, "score", "--spec", ner(), gold, system)
    assert code == 2
    assert one_error_line(err) == f"{system}:2: document 'b': {problem}"


def test_a_bad_reference_span_names_the_reference_file(tmp_path, capsys, ner):
    gold = tmp_path / "gold.jsonl"
    gold.write_text('\n{"id": "x", "entities": [{"span": [3, 1], "type": "PER"}]}\n')
    system = write_jsonl(tmp_path / "sys.jsonl", [{"id": "x", "entities": [ent(0, 1)]}])
    code, _, err = run(capsys, "score", "--spec", ner(), gold, system)
    assert one_error_line(err) == f"{gold}:2: document 'x': span [3, 1] ends before it starts"


def test_a_document_nested_too_deep_to_score_is_one_error():
    # a value json can still parse (near 1000 levels, fewer under a deep stack) recursed out
    # of the comparison with a RecursionError; built here in memory, 5000 levels deep
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    m = Metric(Match(Record({"span": Span(), "type": Eq()})), field="e")
    with pytest.raises(InputError) as e:
        m.compute(predictions=[{"e": [{"span": [0, 1], "type": deep}]}],
                  references=[{"e": [ent(0, 1)]}])
    assert str(e.value) == ("document '0': nested too deeply to score (a value inside lists "
                            "or tables hundreds of levels deep)")
    assert (e.value.document, e.value.side) == (0, "prediction")


def test_inclusive_spans_may_be_one_offset_long():
    m = Metric(Match(Span(inclusive=True)))
    r = m.compute(predictions=[[[2, 2]]], references=[[[2, 2]]])
    assert r.score.f1 == 1.0
    with pytest.raises(InputError, match=r"span \[3, 2\] ends before it starts"):
        m.compute(predictions=[[[3, 2]]], references=[[[2, 2]]])


# --------------------------------------------------------------------------------------------
# spec files: options, nesting
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("node", "message"), [
    ('{type = "span", measure = "overlap", threshold = "high"}',
     "metric.spec.element: threshold must be a number, not 'high'"),
    ('{type = "span", measure = "overlap", binary = "no"}',
     "metric.spec.element: binary must be true or false, not 'no'"),
    ('{type = "hierarchy", levels = "two"}',
     "metric.spec.element: levels must be an integer, not 'two'"),
    ('{type = "hierarchy", levels = 2.5}',
     "metric.spec.element: levels must be an integer, not 2.5"),
    ('{type = "match", normalizer = "fbeta", beta = "x"}',
     "metric.spec.element: beta must be a number, not 'x'"),
    ('{type = "match", normalizer = "f1", threshold = true}',
     "metric.spec.element: threshold must be a number, not True"),
    ('{type = "record", combine = "sum", fields.a = "eq", weights.a = "one"}',
     "metric.spec.element: weights.a must be a number, not 'one'"),
    ('{type = "hierarchy", sep = 1}',
     "metric.spec.element: sep must be a string, not 1"),
])
def test_a_bad_spec_option_is_one_error_naming_it(tmp_path, capsys, node, message):
    spec = tmp_path / "m.toml"
    spec.write_text(f'field = "x"\n[spec]\ntype = "match"\nelement = {node}\n')
    gold = write_jsonl(tmp_path / "gold.jsonl", [{"x": []}])
    code, _, err = run(capsys, "score", "--spec", spec, gold, gold)
    assert code == 2
    assert one_error_line(err) == f"{spec}: {message}"


@pytest.mark.parametrize(("key", "value", "message"), [
    ("name", "7", "metric: a metric's name must be a string, not 7"),
    ("field", "true", "metric: a metric's field must be a string, not True"),
    ("average", '"mean"', "metric: average must be 'micro' or 'macro', not 'mean'"),
    ("transform", "3", "metric: a transform is a function or its 'module:function' name, "
                       "not 3"),
])
def test_a_bad_metric_key_is_one_error_naming_it(tmp_path, key, value, message):
    spec = tmp_path / "m.toml"
    spec.write_text(f'{key} = {value}\n[spec]\ntype = "match"\n')
    with pytest.raises(InputError) as e:
        load_spec(spec)
    assert str(e.value) == f"{spec}: {message}"


def test_a_spec_nested_too_deep_is_one_error(tmp_path, capsys):
    deep = tmp_path / "deep.json"
    deep.write_text('{"spec": ' + '{"type": "match", "element": ' * 100 + '"eq"'
                    + "}" * 101)
    with pytest.raises(InputError, match="nested deeper than 64 similarities"):
        load_spec(deep)
    deeper = tmp_path / "deeper.json"
    deeper.write_text('{"spec": ' + "[" * 100_000 + "]" * 100_000 + "}")
    code, _, err = run(capsys, "score", "--spec", deeper, deeper, deeper)
    assert one_error_line(err) == f"{deeper}: nested too deeply to read"
    toml = tmp_path / "deeper.toml"
    toml.write_text("spec = " + "[" * 100_000 + "]" * 100_000 + "\n")
    code, _, err = run(capsys, "score", "--spec", toml, deeper, deeper)
    assert one_error_line(err) == f"{toml}: nested too deeply to read"


# --------------------------------------------------------------------------------------------
# --metric and --spec together
# --------------------------------------------------------------------------------------------
def test_metric_and_spec_together_score_both_metric_first(tmp_path, capsys, ner):
    # one file for both metrics: NER's 'entities' and event-trigger-id's 'events'
    events = [{"id": d["id"], "events": [{"trigger": e["span"]} for e in d["entities"]],
               "entities": d["entities"]} for d in MACRO_GOLD]
    both = write_jsonl(tmp_path / "both.jsonl", events)
    code, out, _ = run(capsys, "score", "--spec", ner(), "--metric", "event-trigger-id",
                       both, both, "--json", "--method", "exact")
    doc = json.loads(out)
    assert code == 0 and [m["name"] for m in doc["metrics"]] == ["event-trigger-id", "ner"]
    assert doc["overall"]["ner/exact"]["f1"] == 1.0


# --------------------------------------------------------------------------------------------
# the Python API: documents by keyword
# --------------------------------------------------------------------------------------------
def test_compute_takes_the_documents_by_keyword():
    m = Metric(Match(Record({"span": Span(), "type": Eq()})), field="e")
    gold = [{"e": [ent(0, 1), ent(2, 3)]}]
    pred = [{"e": [ent(0, 1)]}]
    r = m.compute(predictions=pred, references=gold)
    assert (r.score.precision, r.score.recall) == (1.0, 0.5)
    # the keyword order does not matter, and exactalign.score uses the same names
    r2 = exactalign.score(m, references=gold, predictions=pred, method="greedy")
    assert (r2.score.precision, r2.score.recall) == (1.0, 0.5)
    with pytest.raises(TypeError, match=r"Metric.compute takes the documents by keyword: "
                                        r"compute\(predictions=\.\.\., references=\.\.\.\)"):
        m.compute(pred, gold)
    with pytest.raises(TypeError, match=r"exactalign.score takes the documents by keyword: "
                                        r"score\(metric, references=\.\.\., "
                                        r"predictions=\.\.\.\)"):
        exactalign.score(m, gold, pred)


def test_witness_takes_its_documents_by_keyword():
    # greedy takes a-y (0.9, the largest), which blocks b-y, b's only pair: 0.9 in all; the
    # optimum a-x 0.8 + b-y 0.7 = 1.5: one pair out (a-y), two in (a-x, b-y)
    sims = {("a", "x"): 0.8, ("a", "y"): 0.9, ("b", "y"): 0.7}
    from exactalign.declared import Func

    m = Metric(Match(Func(lambda g, p: sims.get((g, p), 0.0))))
    greedy = m.compute(predictions=[["x", "y"]], references=[["a", "b"]], method="greedy")
    w = m.witness(prediction=["x", "y"], reference=["a", "b"],
                  alignment=greedy.documents[0].results[0].alignment)
    assert [tuple(p) for p in w.remove] == [(0, 1)]
    assert (w.changes, sorted(map(tuple, w.add))) == (3, [(0, 0), (1, 1)])
    with pytest.raises(TypeError):
        m.witness(["x", "y"], ["a", "b"], greedy.documents[0].results[0].alignment)


def test_score_on_files_warns_about_missing_documents(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", [{"id": "a", "entities": [ent(0, 1)]},
                                                 {"id": "b", "entities": [ent(0, 1)]}])
    system = write_jsonl(tmp_path / "sys.jsonl", [{"id": "b", "entities": [ent(0, 1)]}])
    spec = tmp_path / "ner.toml"
    spec.write_text(NER.format(average="micro"))
    with pytest.warns(UserWarning, match=r"1 of the 2 documents of .* are not in .*: 'a'$"):
        r = exactalign.score(spec, references=gold, predictions=system)
    assert (r.score.recall, r.score.precision) == (0.5, 1.0)


@pytest.mark.parametrize("weight", ["1e-300", "1e300", "1e-6"])
def test_record_weights_outside_the_solvers_range_are_refused(tmp_path, capsys, weight):
    """Weights of 1e-300 gave "optimal" with an F1 bound of 125 and a nonsense witness; 1e300
    a HiGHS traceback. Nonzero weights lie in [1e-5, 1e12], as in instance files."""
    spec = tmp_path / "w.toml"
    spec.write_text('name = "w"\nfield = "entities"\n[spec]\ntype = "match"\n'
                    '[spec.element]\ntype = "record"\ncombine = "sum"\n'
                    f'weights = {{ span = {weight}, label = 1 }}\n'
                    'fields.span = { type = "span", measure = "overlap" }\n'
                    'fields.label = { type = "eq" }\n')
    gold, system = tmp_path / "g.jsonl", tmp_path / "s.jsonl"
    gold.write_text('{"id": "a", "entities": [{"span": [0, 3], "label": "x"}]}\n')
    system.write_text('{"id": "a", "entities": [{"span": [1, 3], "label": "x"}]}\n')
    rc = cli.main(["score", "--spec", str(spec), str(gold), str(system)])
    err = capsys.readouterr().err
    assert rc == 2 and "weights.span" in err and "[1e-05, 1e+12]" in err
    assert "Traceback" not in err


def test_a_user_similarity_outside_the_range_is_named():
    from exactalign.declared import Func

    metric = Metric(Match(Func(lambda g, p: 1e-9 if g == p else 0.0, name="tiny")))
    with pytest.raises(InputError, match=r"similarity tiny returned 1e-09 .*\[1e-05, 1e\+12\]"):
        metric.compute(predictions=[[1]], references=[[1]])
