"""Duplicate triples: counted once by default (F <= 1, a graph against itself scores 1), each
dropped copy reported; ``duplicates="keep"`` reproduces smatch 1.0.4's counts, F above 1
included (checked against the real smatch when the ``peers`` extra is installed)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings

from exactalign.io.amr import parse_graph
from exactalign.metrics import smatch
from exactalign.testing.strategies import penman_graphs

# a :ARG0 b stated twice, :polarity - twice: 2 instances + TOP + 2 + 2 = 7 triples as smatch
# 1.0.4 counts them, 5 distinct.
DUP = "(a / x :ARG0 (b / y) :ARG0 b :polarity - :polarity -)"


def test_a_graph_with_duplicates_against_itself_scores_one():
    g = parse_graph(DUP)
    sc = smatch.score_pairs([(g, g)], method="both")
    assert sc.totals("exact") == (5.0, 5, 5)
    for method in ("exact", "hillclimb"):
        s = sc.scores(method)
        assert (s.precision, s.recall, s.f1) == (1.0, 1.0, 1.0)
    assert sorted((d.side, d.triple, d.copies) for d in sc.duplicates) == [
        ("gold", ("ARG0", "a", "b"), 2), ("gold", ("polarity", "a", "-"), 2),
        ("test", ("ARG0", "a", "b"), 2), ("test", ("polarity", "a", "-"), 2)]
    msg = sc.duplicates[0].message("t.amr")
    assert msg.startswith("t.amr:") and "graph 1 states (a :polarity -) 2 times; counted once" \
        in msg and "--duplicates keep" in msg


def test_keep_counts_as_smatch_does_f_above_one():
    """smatch 1.0.4 counts every (test copy, gold copy) pair: the relation 2 x 2 = 4 times, the
    attribute 4 times, instances 2, TOP 1: 11 matched of 7 test and 7 gold triples."""
    g = parse_graph(DUP)
    sc = smatch.score_pairs([(g, g)], method="both", duplicates="keep")
    assert sc.totals("exact") == (11.0, 7, 7) and sc.totals("hillclimb")[0] == 11.0
    assert sc.scores("exact").f1 == pytest.approx(11 / 7)
    assert sc.duplicates == ()


def test_keep_is_smatch_1_0_4():
    sm = pytest.importorskip("smatch", reason="smatch (peers extra) not installed")
    sm.match_triple_dict.clear()
    match, nt, ng = sm.get_amr_match(DUP, DUP)
    g = parse_graph(DUP)
    sc = smatch.score_pairs([(g, g)], duplicates="keep")
    assert sc.totals("exact") == (float(match), nt, ng) == (11.0, 7, 7)


def test_duplicates_are_compared_as_smatch_compares_triples():
    """Case and smatch's closing-quote mark do not make two triples different; an inverted role
    and its plain form are the same triple."""
    g = parse_graph('(a / x :ARG0 (b / y) :name "Pat" :name Pat :name pat :ARG0 b'
                    ' :ARG1 (c / z :ARG1-of a))')
    d, found = smatch.distinct(g)
    # the first copy is kept and named, in smatch's form of the constant ("Pat" -> Pat_)
    assert sorted(found) == [(("ARG0", "a", "b"), 2), (("ARG1", "a", "c"), 2),
                             (("name", "a", "Pat_"), 3)]
    assert d.num_triples == g.num_triples - 4
    assert smatch.distinct(d) == (d, [])
    # one inverted flag per relation kept (the first copy's): docSmatch's buckets read them
    assert len(d.inverted) == len(d.relations) and d.inverted == (False, False)
    assert smatch.sentence_buckets(d) == [set(range(3))]


def test_unknown_duplicates_rule():
    with pytest.raises(ValueError, match="choose one of set, keep"):
        smatch.score_pairs([], duplicates="twice")


@settings(max_examples=100, deadline=None)
@given(penman_graphs(max_nodes=5), penman_graphs(max_nodes=5))
def test_f_never_above_one_and_a_graph_against_itself_is_one(a, b):
    ga, gb = parse_graph(a), parse_graph(b)
    sc = smatch.score_pairs([(ga, gb), (ga, ga)], method="both")
    s = sc.scores("exact")
    assert s.precision <= 1 and s.recall <= 1 and s.f1 <= 1 + 1e-12
    same = sc.pairs[1]
    assert same.exact.objective == same.test_triples == same.gold_triples


def test_cli_warns_per_duplicate_and_keep_is_smatch(tmp_path, capsys):
    from exactalign.cli import main

    f = tmp_path / "dup.amr"
    f.write_text("# ::id 1\n" + DUP + "\n")  # the graph starts on line 2
    assert main(["smatch", "-f", str(f), str(f), "--json"]) == 0
    out, err = capsys.readouterr()
    d = json.loads(out)
    assert d["duplicates"] == "set" and d["duplicate_triples"] == 4
    assert d["overall"]["exact"]["f1"] == 1.0
    lines = err.splitlines()
    assert len(lines) == 4 and all(x.startswith(f"exactalign: warning: {f}:2: graph 1 states ")
                                   for x in lines)
    assert main(["smatch", "-f", str(f), str(f), "--duplicates", "keep", "--pr"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[:3] == ["Precision: 1.57", "Recall: 1.57", "F-score: 1.57"]
    assert err == ""
