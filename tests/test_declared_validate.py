"""``exactalign validate`` and :func:`exactalign.declared.validate.validate`: a heuristic held
against the certified optimum on your documents, every small instance (exhaustive), a guided
and a random search; sandboxed user code; scoped verdicts; shrunk, runnable counterexamples."""

from __future__ import annotations

import json
import textwrap

import pytest

from exactalign import cli
from exactalign.core.errors import InputError
from exactalign.declared import Func, Match, Metric
from exactalign.declared.files import load_spec
from exactalign.declared.library import LIBRARY
from exactalign.declared.sandbox import Sandbox, check_answer
from exactalign.declared.search import enumerate_tier, shrink, size, tiers
from exactalign.declared.validate import evaluate_case, pytest_case, validate

NER = """
name = "ner-overlap"
field = "entities"
[spec]
type = "match"
constraint = "1:1"
normalizer = "f1"
[spec.element]
type = "record"
fields.span = { type = "span", measure = "overlap" }
fields.label = { type = "eq" }
"""

HEURISTICS = '''
import itertools
import os
import sys
import time


def _ov(x, y):
    return x["label"] == y["label"] and x["span"][0] < y["span"][1] and y["span"][0] < x["span"][1]


def largest_overlap(reference, prediction):
    """Pairs by decreasing overlap length: not optimal for 'do they overlap'."""
    X, Y = reference["entities"], prediction["entities"]
    def length(x, y):
        return min(x["span"][1], y["span"][1]) - max(x["span"][0], y["span"][0])
    cand = sorted((-length(x, y), i, j) for i, x in enumerate(X) for j, y in enumerate(Y)
                  if _ov(x, y))
    ux, uy, pairs = set(), set(), []
    for _, i, j in cand:
        if i not in ux and j not in uy:
            pairs.append((i, j)); ux.add(i); uy.add(j)
    return pairs


def first_fit_ner(reference, prediction):
    used, pairs = set(), []
    for i, x in enumerate(reference["entities"]):
        for j, y in enumerate(prediction["entities"]):
            if j not in used and _ov(x, y):
                pairs.append((i, j)); used.add(j); break
    return pairs


def optimal_ner(reference, prediction):
    X, Y = reference["entities"], prediction["entities"]
    best = []
    for perm in itertools.permutations(range(max(len(X), len(Y))), len(X)):
        pairs = [(i, j) for i, j in enumerate(perm) if j < len(Y) and _ov(X[i], Y[j])]
        if len(pairs) > len(best):
            best = pairs
    return best


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


def events_first_fit(reference, prediction):
    """event-argument-cls: events paired first-fit by trigger span and type, arguments
    ignored when pairing."""
    used, pairs = set(), []
    for i, x in enumerate(reference["events"]):
        for j, y in enumerate(prediction["events"]):
            if j not in used and x["trigger"] == y["trigger"] and x["type"] == y["type"]:
                pairs.append((i, j)); used.add(j); break
    return pairs


def twice(reference, prediction):
    return [(0, 0), (0, 0)]


def cheat(reference, prediction):
    return 1e9


def negative(reference, prediction):
    return -1.0


def floats(reference, prediction):
    return [(0.9, 0.9)]


def endless(reference, prediction):
    while True:
        yield (0, 0)


def crash(reference, prediction):
    return 1 / len(prediction["entities"][1:])


def sleeper(reference, prediction):
    time.sleep(1000)


def exits(reference, prediction):
    sys.exit(0)


def dies(reference, prediction):
    os._exit(3)


def chatty(reference, prediction):
    print("thinking...")
    print("to stderr", file=sys.stderr)
    return optimal_ner(reference, prediction)


def hog(reference, prediction):
    return [0] * 10**11
'''


@pytest.fixture
def heuristics(tmp_path, monkeypatch):
    (tmp_path / "user_heuristics.py").write_text(HEURISTICS)
    (tmp_path / "broken.py").write_text("def f(r, p):\n    return [(0, 0)\n")
    (tmp_path / "exits_on_import.py").write_text("import sys\nsys.exit(3)\n")
    (tmp_path / "ner.toml").write_text(NER)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    import importlib

    return importlib.import_module("user_heuristics")


@pytest.fixture
def ner(heuristics, tmp_path):
    return load_spec(tmp_path / "ner.toml")[0]


def greedy_twin(metric: Metric):
    """The shipped greedy twin, as a user would hand it in: the root score it reaches."""
    def h(reference, prediction):
        return metric.score_document(prediction=prediction, reference=reference,
                                     method="greedy").results[0].objective
    return h


# --------------------------------------------------------------------------------------------
# what is found, and what the verdict claims
# --------------------------------------------------------------------------------------------
def test_a_two_by_two_counterexample_is_found_by_the_exhaustive_search_on_every_seed(ner):
    """The issue's span-overlap NER F1 with a largest-overlap-first aligner: the 2x2
    counterexample is inside the exhaustive tiers, so no seed can miss it."""
    for seed in (0, 7):
        report = validate(ner, "user_heuristics:largest_overlap", guided=0, examples=0,
                          seed=seed)
        assert not report.ok
        c = report.counterexample
        assert c.phase == "exhaustive" and c.kind == "short"
        assert len(c.reference["entities"]) == len(c.prediction["entities"]) == 2
        assert (c.optimum, c.heuristic) == (2.0, 1.0)
    code = pytest_case(ner, report.heuristic, c)
    namespace: dict = {}
    exec(compile(code, "<pasted>", "exec"), namespace)
    with pytest.raises(AssertionError):  # the pasted test reproduces the failure
        namespace["test_heuristic_reaches_the_optimum"]()


def test_order_dependent_failures_are_enumerated(ner):
    """First fit fails only when the wider gold span comes first: the tiers hold both
    orders."""
    report = validate(ner, "user_heuristics:first_fit_ner", guided=0, examples=0)
    assert not report.ok and report.counterexample.phase == "exhaustive"
    assert any("reversed" in t or "every order" in t for t in report.exhaustive)


def test_an_optimal_aligner_is_never_flagged_and_the_verdict_says_what_was_checked(ner):
    report = validate(ner, "user_heuristics:optimal_ner", seed=3)
    assert report.ok and report.counterexample is None
    d = report.to_dict()
    assert d["scope"]["exhaustive"] > 500 and d["scope"]["guided"] == 300
    assert d["scope"]["random"] == 200 and d["scope"]["documents"] == 0
    assert d["scope"]["instances"] == sum(d["scope"][p] for p in
                                          ("documents", "exhaustive", "guided", "random"))
    verdict = report.verdict()
    assert verdict.startswith(f"OK: no counterexample in {report.checked} instances: ")
    assert "every instance with up to 3 items a side" in verdict
    assert "300 guided, 200 random" in verdict and "unchecked" in verdict


def test_nothing_checked_is_not_ok(heuristics, capsys):
    report = validate(LIBRARY["coref-ceafm"](), "user_heuristics:first_fit", examples=0,
                      guided=0, exhaustive=0)
    assert report.checked == 0 and not report.ok
    rc = cli.main(["validate", "--metric", "coref-ceafm", "--heuristic",
                   "user_heuristics:first_fit", "--examples", "0", "--guided", "0",
                   "--exhaustive", "0"])
    assert rc == 2 and "nothing to check" in capsys.readouterr().err


@pytest.mark.parametrize("seed", range(6))
def test_every_failure_carries_a_counterexample(heuristics, seed):
    """Random and guided failures alone (no exhaustive tier): the failure comes with a shrunk
    instance that fails again when re-run (the issue's seed 3 gave none)."""
    metric = LIBRARY["coref-ceafe"]()
    report = validate(metric, "user_heuristics:first_fit", exhaustive=0, guided=40,
                      examples=60, seed=seed)
    assert not report.ok  # first fit is not optimal for CEAFe; 12 of 12 seeds find it
    c = report.counterexample
    assert c is not None and c.failed
    assert evaluate_case(metric, "user_heuristics:first_fit", c.reference,
                         c.prediction).failed
    found = min((x for x in report.generated if x.failed),
                key=lambda x: size(x.reference) + size(x.prediction))
    assert size(c.reference) + size(c.prediction) <= size(found.reference) + \
        size(found.prediction)


@pytest.mark.parametrize("name", ["coref-ceafe", "coref-ceafm", "event-argument-cls",
                                  "relation-strict", "dependency-las", "ceaf-ree-prop",
                                  "smatch"])
def test_the_shipped_greedy_twins_are_validated(name):
    metric = LIBRARY[name]()
    report = validate(metric, greedy_twin(metric), exhaustive=400, guided=30, examples=30,
                      seed=1)
    assert report.generated and not any(c.problem for c in report.generated)
    assert all(c.heuristic <= c.optimum + 1e-9 for c in report.generated)
    if name in ("dependency-las", "relation-strict"):  # equality weights: greedy is optimal
        assert report.ok and report.counterexample is None
    if name in ("coref-ceafe", "coref-ceafm"):  # known 2x2 shortfalls: inside the tiers
        assert not report.ok
    if not report.ok:  # a shortfall was found: it was shrunk to a small failing instance
        c = report.counterexample
        assert c is not None and c.failed
        assert evaluate_case(metric, greedy_twin(metric), c.reference, c.prediction).failed


# --------------------------------------------------------------------------------------------
# the user's documents
# --------------------------------------------------------------------------------------------
def test_documents_that_fall_short_are_listed_and_shrunk(ner, tmp_path, capsys):
    def ent(a, b):
        return {"span": [a, b], "label": "PER"}

    def loc(a, b):
        return {"span": [a, b], "label": "LOC"}

    gold = [{"id": "ok", "entities": [ent(0, 2)]},
            {"id": "bad", "entities": [loc(20, 22), ent(0, 1), ent(0, 2), loc(30, 31)]},
            {"id": "bad2", "entities": [ent(5, 6), ent(5, 7)]}]
    system = [{"id": "ok", "entities": [ent(0, 2)]},
              {"id": "bad", "entities": [loc(30, 31), ent(0, 2), ent(1, 2), loc(20, 22)]},
              {"id": "bad2", "entities": [ent(5, 7), ent(6, 7)]}]
    (tmp_path / "g.jsonl").write_text("".join(json.dumps(d) + "\n" for d in gold))
    (tmp_path / "s.jsonl").write_text("\n" + "".join(json.dumps(d) + "\n" for d in system))
    rc = cli.main(["validate", "--spec", "ner.toml", "--heuristic",
                   "user_heuristics:largest_overlap", "g.jsonl", "s.jsonl", "--exhaustive",
                   "0", "--guided", "0", "--examples", "0", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 1 and not doc["ok"]
    rows = doc["documents_short"]
    assert [(r["id"], r["source"]) for r in rows] == [("bad", "g.jsonl:2"),
                                                      ("bad2", "g.jsonl:3")]
    small = rows[0]["minimal"]
    assert small["reference"]["id"] == "bad"  # the id is kept
    # the two LOC entities cannot matter: shrinking drops them
    assert len(small["reference"]["entities"]) == len(small["prediction"]["entities"]) == 2
    assert (small["optimum"], small["heuristic"]) == (2.0, 1.0)
    assert evaluate_case(ner, "user_heuristics:largest_overlap", small["reference"],
                         small["prediction"]).kind == "short"
    assert doc["counterexample"]["phase"] == "documents"
    assert "document bad" in doc["pytest_case"]


def test_a_document_the_metric_cannot_read_is_named_with_its_file_and_line(
        heuristics, tmp_path, capsys):
    (tmp_path / "g.jsonl").write_text('{"id": "a", "entities": [["m1"]]}\n'
                                      '{"id": "b", "entities": 7}\n')
    (tmp_path / "s.jsonl").write_text('{"id": "a", "entities": [["m1"]]}\n'
                                      '{"id": "b", "entities": [["m1"]]}\n')
    rc = cli.main(["validate", "--metric", "coref-ceafm", "--heuristic",
                   "user_heuristics:first_fit", "g.jsonl", "s.jsonl"])
    err = capsys.readouterr().err
    assert rc == 2 and "g.jsonl:2" in err and "'b'" in err and "Traceback" not in err


def test_validate_leaves_hypothesis_storage_where_it_was(heuristics, capsys):
    """The command points hypothesis' storage at a temporary directory and back: left pointing
    there, a later use in the same process re-created the removed directory (one leaked per
    test run)."""
    from hypothesis.configuration import storage_directory

    cli.main(["validate", "--metric", "coref-ceafm", "--heuristic", "user_heuristics:first_fit",
              "--examples", "2", "--guided", "0", "--exhaustive", "0"])
    capsys.readouterr()
    assert "exactalign-validate-" not in str(storage_directory("x", intent_to_write=False).path)


# --------------------------------------------------------------------------------------------
# the sandbox: whatever the user's code does, validate reports it
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "kind", "words"), [
    ("crash", "raised", "ZeroDivisionError"),
    ("exits", "raised", "SystemExit: sys.exit(0)"),
    ("dies", "died", "exit status 3"),
    ("floats", "invalid", "the index 0.9 is not an integer"),
    ("endless", "invalid", "an endless generator"),
    ("negative", "invalid", "finite number >= 0"),
    ("twice", "invalid", "matched twice"),
    ("cheat", "above", "above the proven optimum"),
    ("hog", "raised", "MemoryError"),
])
def test_misbehaving_heuristics_are_failures_of_the_instance(ner, name, kind, words):
    report = validate(ner, f"user_heuristics:{name}", exhaustive=30, guided=0, examples=0,
                      memory_mb=1024)
    assert len(report.cases["exhaustive"]) > 0 and not report.ok
    failed = [c for c in report.cases["exhaustive"] if c.failed]
    assert failed and all(c.kind == kind for c in failed)
    assert any(words in c.problem for c in failed)
    assert report.counterexample is not None and report.counterexample.kind == kind


def test_a_heuristic_that_never_returns_is_stopped(ner):
    report = validate(ner, "user_heuristics:sleeper", exhaustive=50, guided=20, examples=20,
                      time_limit=0.3)
    timeouts = [c for c in report.cases["exhaustive"] if c.kind == "timeout"]
    assert len(timeouts) == 3 and report.checked == 3 and not report.ok
    assert any("stopped after 3 time-outs" in n for n in report.notes)
    assert "did not return within 0.3 s" in timeouts[0].problem


def test_prints_go_to_stderr_and_json_stays_clean(heuristics, capfd):
    rc = cli.main(["validate", "--spec", "ner.toml", "--heuristic", "user_heuristics:chatty",
                   "--exhaustive", "20", "--guided", "0", "--examples", "5", "--json"])
    out, err = capfd.readouterr()
    doc = json.loads(out)  # exactly one JSON document
    assert rc == 0 and doc["ok"] and "thinking..." in err and "thinking" not in out


@pytest.mark.parametrize(("ref", "words"), [
    ("broken:f", "SyntaxError"),
    ("exits_on_import:f", "SystemExit"),
    ("no_such_module:f", "No module named 'no_such_module'"),
    ("user_heuristics:nope", "has no 'nope'"),
])
def test_a_heuristic_that_cannot_load_is_one_clear_error(heuristics, capfd, ref, words):
    rc = cli.main(["validate", "--spec", "ner.toml", "--heuristic", ref])
    out, err = capfd.readouterr()
    assert rc == 2 and words in err and "cannot load the heuristic" in err
    assert "Traceback" not in err and out == ""


def test_answers_are_checked_never_coerced():
    assert check_answer([(0, 1)], 1, 2).value == [(0, 1)]
    assert check_answer(iter([(0, 1)]), 1, 2).kind == "pairs"
    assert check_answer(2.5, None, None).value == 2.5
    for bad in ([(1.0, 0)], [(True, 0)], [("0", 0)], [(0,)], [[0, 1, 2]], "01", None, True,
                {"0": 1}, float("nan"), float("inf"), -0.5):
        a = check_answer(bad, 2, 2)
        assert a.kind == "invalid", bad
    assert "more than 4 pairs" in check_answer(iter([(0, 0)] * 5), 2, 2).message


def test_in_process_callables_are_guarded_too():
    def loud(r, p):
        print("noise")
        raise SystemExit(2)

    with Sandbox(loud) as sb:
        assert not sb.isolate
        a = sb([], [], 0, 0)
    assert a.kind == "raised" and "sys.exit(2)" in a.message


def test_invalid_answers_are_named(heuristics):
    metric = LIBRARY["coref-ceafm"]()
    gold = {"entities": [["a", "b"], ["c"]]}
    pred = {"entities": [["a"], ["b", "c"]]}
    case = evaluate_case(metric, "user_heuristics:twice", gold, pred)
    assert case.failed and "matched twice" in case.problem
    case = evaluate_case(metric, heuristics.cheat, gold, pred)
    assert case.failed and "above the proven optimum 2.0" in case.problem
    case = evaluate_case(metric, heuristics.first_fit, gold, pred)
    assert not case.failed and case.optimum == 2.0


def test_user_similarities_cannot_be_generated_but_data_still_validates():
    metric = Metric(Match(Func(lambda g, p: float(g == p))))
    report = validate(metric, lambda r, p: 0.0, [[1, 2]], [[2, 3]], examples=50)
    assert any("cannot generate" in n for n in report.notes)
    assert [c.shortfall for c in report.data] == [1.0]
    assert report.verdict().startswith("FAILED: 1 of 1 instances")
    with pytest.raises(InputError, match="2 reference but 1 predicted"):
        validate(metric, lambda r, p: 0.0, [[1], [2]], [[1]], examples=0)


# --------------------------------------------------------------------------------------------
# the search and the shrinker
# --------------------------------------------------------------------------------------------
def test_the_tiers_fit_the_budget_and_are_enumerated_in_full(ner):
    for budget in (50, 500, 3000):
        chosen = tiers(ner, budget)
        assert chosen and sum(t.instances for t in chosen) <= budget
    t = tiers(ner, 3000)[-1]
    pairs = list(enumerate_tier(ner, t))
    # one representative per renaming of labels: only 'a' here (one-label universe) or both
    assert 0 < len(pairs) <= t.instances
    sizes = [size(x) + size(y) for x, y in pairs]
    assert sizes == sorted(sizes)  # smallest first
    assert len({json.dumps(p, sort_keys=True) for p in pairs}) == len(pairs)


def test_shrink_finds_the_minimal_failing_pair():
    """A failure that needs item 3 on the left and item 5 on the right: everything else goes,
    and the integers move down."""
    def fails(x, y):
        return any(v >= 3 for v in x["xs"]) and 5 in [v + 2 for v in y["xs"]] or False

    (x, y), calls = shrink(({"id": "d", "xs": [1, 3, 8, 9]}, {"id": "d", "xs": [0, 3, 7, 1]}),
                           fails, field="xs")
    assert x["id"] == y["id"] == "d"
    assert len(x["xs"]) == 1 and len(y["xs"]) == 1 and fails(x, y) and calls < 100


def test_cli_defaults_are_the_library_defaults():
    from exactalign.cli import validate as v
    from exactalign.declared import sandbox
    from exactalign.declared import validate as lib

    assert (v.EXHAUSTIVE, v.GUIDED, v.RANDOM) == (lib.EXHAUSTIVE, lib.GUIDED, lib.RANDOM)
    assert (v.TIME_LIMIT, v.MEMORY_MB) == (sandbox.TIME_LIMIT, sandbox.MEMORY_MB)


def test_cli_validate(heuristics, tmp_path, capsys):
    gold = tmp_path / "gold.jsonl"
    pred = tmp_path / "pred.jsonl"
    gold.write_text('{"id": "d1", "entities": [["a", "b"], ["c"]]}\n')
    pred.write_text('{"id": "d1", "entities": [["a"], ["b", "c"]]}\n')
    rc = cli.main(["validate", "--metric", "coref-ceafm", "--heuristic",
                   "user_heuristics:first_fit", str(gold), str(pred), "--examples", "0",
                   "--guided", "0", "--exhaustive", "0", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["ok"] and doc["scope"]["documents"] == 1
    assert doc["verdict"].startswith("OK: no counterexample in 1 instances: 1 of your doc")
    rc = cli.main(["validate", "--metric", "coref-ceafe", "--heuristic",
                   "user_heuristics:first_fit", "--guided", "0", "--examples", "0"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "def test_heuristic_reaches_the_optimum" in out
    assert textwrap.dedent(out.split("as a test case:\n\n")[1].split("FAILED")[0]).strip()
    assert "FAILED: " in out and "exhaustive" in out
    rc = cli.main(["validate", "--metric", "coref-ceafm", "--heuristic", "user_heuristics:no"])
    err = capsys.readouterr().err
    assert rc == 2 and "has no 'no'" in err


@pytest.mark.slow
@pytest.mark.parametrize("name", ["first_fit_ner", "largest_overlap"])
def test_caught_on_at_least_19_of_20_seeds_with_defaults(ner, name):
    caught = sum(not validate(ner, f"user_heuristics:{name}", seed=s).ok for s in range(20))
    assert caught >= 19


def test_generated_values_come_from_your_documents(tmp_path, monkeypatch):
    """A dependency aligner doing arithmetic on heads: on generated labels ('a') it raises, and
    the note says why; given documents, the generated edges use their integers and labels."""
    (tmp_path / "dep_aligner.py").write_text(textwrap.dedent('''
        def by_key(reference, prediction):
            free = {}
            for j, e in enumerate(prediction["edges"]):
                free.setdefault((e["dep"] + 0, e["head"] + 0, e["label"]), []).append(j)
            pairs = []
            for i, e in enumerate(reference["edges"]):
                k = (e["dep"] + 0, e["head"] + 0, e["label"])
                if free.get(k):
                    pairs.append((i, free[k].pop(0)))
            return pairs
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    metric = LIBRARY["dependency-las"]()
    report = validate(metric, "dep_aligner:by_key", exhaustive=60, guided=10, examples=10)
    assert not report.ok and {c.kind for c in report.generated if c.failed} == {"raised"}
    assert any("raised only on generated documents" in n for n in report.notes)
    gold = [{"edges": [{"dep": 1, "head": 0, "label": "root"},
                       {"dep": 2, "head": 1, "label": "nsubj"}]}]
    system = [{"edges": [{"dep": 1, "head": 0, "label": "root"},
                         {"dep": 2, "head": 1, "label": "obj"}]}]
    report = validate(metric, "dep_aligner:by_key", gold, system, exhaustive=300, guided=30,
                      examples=30)
    assert report.ok, report.verdict()
    heads = {e["head"] for c in report.generated for d in (c.reference, c.prediction)
             for e in d["edges"]}
    assert heads and all(isinstance(h, int) for h in heads) and {0, 1} <= heads


def test_a_user_similarity_declaring_its_values_can_be_generated(heuristics):
    """MUC's link similarity is a function; ``like=Match(Eq())`` says it compares sets of
    mentions, so coref-muc is validated on generated entities too (and the declaration
    survives a round trip through its dict form)."""
    metric = LIBRARY["coref-muc"]()
    again = Metric.from_dict(metric.to_dict())
    assert again.to_dict() == metric.to_dict()
    assert again.spec.element.like.to_dict()["element"] == {"type": "eq"}
    report = validate(again, "user_heuristics:first_fit", exhaustive=200, guided=20,
                      examples=20)
    assert report.cases["exhaustive"] and report.cases["random"] and not report.notes
    no_like = Metric(Match(Func(lambda g, p: 1.0)))
    with pytest.raises(InputError, match="declare the values it compares with 'like'"):
        from exactalign.declared.search import tiers as _tiers

        _tiers(no_like, 100)


def test_nothing_that_can_be_generated_and_no_documents_is_one_error(heuristics, capsys):
    rc = cli.main(["validate", "--metric", "coref-bcubed", "--heuristic",
                   "user_heuristics:first_fit"])
    err = capsys.readouterr().err
    assert rc == 2 and "nothing could be checked" in err and "transforms its documents" in err


@pytest.mark.slow
def test_a_heuristic_found_by_the_guided_and_random_search_on_19_of_20_seeds(heuristics):
    """Two events with the same trigger and type but different arguments, in the other
    order: outside the exhaustive tiers of event-argument-cls, found by the searches."""
    metric = LIBRARY["event-argument-cls"]()
    caught = sum(not validate(metric, "user_heuristics:events_first_fit", seed=s).ok
                 for s in range(20))
    assert caught >= 19
