"""The Smatch report (exactalign/metrics/smatch_report.py): built once from a corpus, it holds
what ``exactalign smatch`` prints, and the command only formats it."""

from __future__ import annotations

import ast
import contextlib
import io
import json
from pathlib import Path

import pytest

from exactalign.core.result import Result, Status
from exactalign.metrics import smatch
from exactalign.metrics.smatch_report import report, report_files

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"


def _corpus():
    """Two pairs by hand: (test, gold) triples (4, 4) proven at 3; (3, 4) cut short at 1 with
    bound 2; the hill-climbing finds 3 and 1."""
    ex = (Result(Status.OPTIMAL, 3.0, 3.0, None, "exact"),
          Result(Status.TIME_LIMIT, 1.0, 2.0, None, "exact"))
    hc = (Result(Status.FEASIBLE, 3.0, None, None, "hillclimb"),
          Result(Status.FEASIBLE, 1.0, None, None, "hillclimb",
                 details={"stopped": "time limit"}))
    pairs = (smatch.PairScore(0, 4, 4, ex[0], hc[0]), smatch.PairScore(1, 3, 4, ex[1], hc[1]))
    return smatch.CorpusScore(pairs, "full", ("exact", "hillclimb"),
                              {"exact": 0.5, "hillclimb": 0.25})


def test_the_report_of_a_corpus_by_hand():
    rep = report(_corpus())
    ex, hc = rep.overall["exact"], rep.overall["hillclimb"]
    assert (ex.matched, ex.test_triples, ex.gold_triples, ex.proven_pairs) == (4.0, 7, 8, 1)
    assert hc.proven_pairs is None and hc.wall_time == 0.25
    assert ex.score.f1 == pytest.approx(2 * 4 / (7 + 8))
    # one pair unproven: the most the pairs can match is 3 + 2, F at most 2 * 5 / (7 + 8)
    assert rep.bound == 5.0 and rep.bound_f1 == pytest.approx(10 / 15)
    assert ex.solve["status"] == "time_limit" and ex.solve["bound"] == 5.0
    assert (rep.hillclimb_stopped, rep.below, rep.short, rep.f1_points) == (1, 0, 0.0, 0.0)
    assert [r.id for r in rep.pairs] == [0, 1] and rep.pairs_scored == 2
    assert rep.pairs[1].gap == {"triples": 0.0, "f1_points": 0.0}
    assert rep.pairs[1].solves["exact"]["status"] == "time_limit"


def test_rows_only_when_asked_the_rest_the_same():
    full, bare = report(_corpus()), report(_corpus(), rows=False)
    assert bare.pairs == () and bare.pairs_scored == 2
    assert bare.overall == full.overall and bare.bound == full.bound


def test_the_command_prints_the_report():
    """``exactalign smatch --json`` is the report of ``report_files`` on the same files."""
    from exactalign import cli

    test, gold = str(EXAMPLES / "test.amr"), str(EXAMPLES / "gold.amr")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["smatch", "-f", test, gold, "--method", "both", "--json"]) == 0
    doc = json.loads(out.getvalue())
    rep = report_files(test, gold, method="both")
    assert doc["pairs_scored"] == rep.pairs_scored == len(doc["documents"]) == 2
    for m, o in rep.overall.items():
        assert doc["overall"][m]["f1"] == o.score.f1
        assert doc["overall"][m]["counts"]["matched"] == o.matched
        assert doc["methods"][m]["proven_pairs"] == o.proven_pairs
        assert doc["solves"][m]["status"] == o.solve["status"]
    for row, x in zip(doc["documents"], rep.pairs, strict=True):
        assert row["id"] == x.id and row["gap"] == x.gap
        assert {m: s["f1"] for m, s in row["scores"].items()} == \
            {m: s.f1 for m, s in x.scores.items()}


def test_the_command_only_formats():
    """``cli/smatch.py`` asks the report module once and reaches nothing else of the metric or
    of the results: data goes down once and comes back once."""
    tree = ast.parse((ROOT / "exactalign" / "cli" / "smatch.py").read_text(encoding="utf-8"))
    imported = {(n.module, a.name) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                for a in n.names}
    assert {m for m, _ in imported} <= {"__future__", "metrics.smatch_report", "common", None}
    assert {a for m, a in imported if m is None} <= {"argtypes"}  # the shared argument types
    called = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert not called & {"pair_report", "smatch_scores", "matched_triples", "result",
                         "totals", "to_dict"}
