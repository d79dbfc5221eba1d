"""``exactalign validate`` and :func:`exactalign.declared.validate.validate`: a heuristic held
against the certified optimum, on given and on generated documents, with shrinking."""

from __future__ import annotations

import json
import textwrap

import pytest

from exactalign import cli
from exactalign.core.errors import InputError
from exactalign.declared import Func, Match, Metric
from exactalign.declared.library import LIBRARY
from exactalign.declared.validate import evaluate_case, pytest_case, validate

HEURISTICS = '''
def first_fit(reference, prediction):
    """Each gold entity takes the first unused predicted entity sharing a mention."""
    used, pairs = set(), []
    for i, k in enumerate(reference["entities"]):
        for j, r in enumerate(prediction["entities"]):
            if j not in used and set(map(str, k)) & set(map(str, r)):
                pairs.append((i, j))
                used.add(j)
                break
    return pairs


def twice(reference, prediction):
    return [(0, 0), (0, 0)]


def cheat(reference, prediction):
    return 1e9
'''


@pytest.fixture
def heuristics(tmp_path, monkeypatch):
    (tmp_path / "user_heuristics.py").write_text(HEURISTICS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    import importlib

    return importlib.import_module("user_heuristics")


def greedy_twin(metric: Metric):
    """The shipped greedy twin, as a user would hand it in: the root score it reaches."""
    def h(reference, prediction):
        return metric.score_document(prediction, reference, "greedy").results[0].objective
    return h


@pytest.mark.parametrize("name", ["coref-ceafe", "coref-ceafm", "event-argument-cls",
                                  "relation-strict", "dependency-las", "ceaf-ree-prop",
                                  "smatch"])
def test_the_shipped_greedy_twins_are_validated(name):
    metric = LIBRARY[name]()
    report = validate(metric, greedy_twin(metric), examples=60, seed=1)
    assert report.generated and not any(c.problem for c in report.generated)
    assert all(c.heuristic <= c.optimum + 1e-9 for c in report.generated)
    if name in ("dependency-las", "relation-strict"):  # equality weights: greedy is optimal
        assert report.ok and report.counterexample is None
    if not report.ok:  # a shortfall was found: it was shrunk to a small failing instance
        c = report.counterexample
        assert c is not None and c.failed
        assert evaluate_case(metric, greedy_twin(metric), c.reference, c.prediction).failed


def test_ceafe_greedy_twin_falls_short_and_the_counterexample_is_small():
    metric = LIBRARY["coref-ceafe"]()
    report = validate(metric, greedy_twin(metric), examples=200, seed=0)
    assert not report.ok
    c = report.counterexample
    assert c.shortfall > 0
    sizes = sum(len(e) for d in (c.reference, c.prediction) for e in d["entities"])
    assert sizes <= 8  # shrunk


def test_a_user_heuristic_and_its_ready_to_paste_case(heuristics):
    metric = LIBRARY["coref-ceafe"]()
    report = validate(metric, "user_heuristics:first_fit", examples=150, seed=0)
    assert not report.ok and report.counterexample is not None
    code = pytest_case(metric, "user_heuristics:first_fit", report.counterexample)
    namespace: dict = {}
    exec(compile(code, "<pasted>", "exec"), namespace)
    with pytest.raises(AssertionError):  # the pasted test reproduces the failure
        namespace["test_heuristic_reaches_the_optimum"]()


def test_invalid_answers_are_named(heuristics):
    metric = LIBRARY["coref-ceafm"]()
    gold = {"entities": [["a", "b"], ["c"]]}
    pred = {"entities": [["a"], ["b", "c"]]}
    case = evaluate_case(metric, heuristics.twice, gold, pred)
    assert case.failed and "matched twice" in case.problem
    case = evaluate_case(metric, heuristics.cheat, gold, pred)
    assert case.failed and "above the proven optimum 2.0" in case.problem
    case = evaluate_case(metric, heuristics.first_fit, gold, pred)
    assert not case.failed and case.optimum == 2.0


def test_user_similarities_cannot_be_generated_but_data_still_validates():
    metric = Metric(Match(Func(lambda g, p: float(g == p))))
    report = validate(metric, lambda r, p: 0.0, [[1, 2]], [[2, 3]], examples=50)
    assert "cannot generate" in report.generation_note
    assert [c.shortfall for c in report.data] == [1.0]
    with pytest.raises(InputError, match="2 reference but 1 predicted"):
        validate(metric, lambda r, p: 0.0, [[1], [2]], [[1]], examples=0)


def test_cli_validate(heuristics, tmp_path, capsys):
    gold = tmp_path / "gold.jsonl"
    pred = tmp_path / "pred.jsonl"
    gold.write_text('{"id": "d1", "entities": [["a", "b"], ["c"]]}\n')
    pred.write_text('{"id": "d1", "entities": [["a"], ["b", "c"]]}\n')
    rc = cli.main(["validate", "--metric", "coref-ceafm", "--heuristic",
                   "user_heuristics:first_fit", str(gold), str(pred), "--examples", "0",
                   "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["ok"] and doc["data"]["instances"] == 1
    rc = cli.main(["validate", "--metric", "coref-ceafe", "--heuristic",
                   "user_heuristics:first_fit", "--examples", "150"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "def test_heuristic_reaches_the_optimum" in out
    assert textwrap.dedent(out.split("as a test case:\n\n")[1].split("FAILED")[0]).strip()
    rc = cli.main(["validate", "--metric", "coref-ceafm", "--heuristic", "user_heuristics:no"])
    err = capsys.readouterr().err
    assert rc == 2 and "has no 'no'" in err
