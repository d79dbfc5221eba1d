"""docSmatch's search space (IBM/docAMR, ``docSmatch/smatch.py``): sentence buckets of a document
graph, the candidate pairs they allow, and exact Smatch and the hill-climbing restricted to them
(``exactalign smatch --restrict sentence``).

The expected buckets were checked against docSmatch's own ``AMR.parse_AMR_line`` (docAMR at
``e8937ba``): equal on these graphs, on the repository's DocAMR example and on 40 documents built
from the Little Prince test bank and JAMR's parses of it (5 sentences each, cross-sentence
reentrancies)."""

from __future__ import annotations

import json

import pytest

from exactalign import cli
from exactalign.core.errors import InputError
from exactalign.io.amr import parse_graph
from exactalign.metrics.smatch import allowed_pairs, instance_of, score_pairs, sentence_buckets
from exactalign.problems.latent.brute import brute_force

#: A DocAMR document (docAMR's example, trimmed): London (s2.c) is merged across sentences.
DOC = """(d / document
   :snt1 (s1.g / go-02 :ARG0 (s1.p / person :name (s1.n / name :op1 "Hailey"))
               :ARG4 (s2.c / city :name (s2.n2 / name :op1 "London")))
   :snt2 (s2.p / plan-01 :ARG0 (pro / she)
               :ARG1 (s2.g / go-02 :ARG0 pro :time (s2.a / after :op1 s2.c)))
   :snt3 (s3.s / see-01 :ARG0 pro))"""

#: Written inverted edges spill a bucket into another sentence; :mod does not; :coref-of goes
#: from the mention to the chain node only.
TRICKY = """(d / document
   :snt1 (a / alpha :ARG1 e :mod (m / mu))
   :snt2 (c / gamma :ARG1-of (e / eps) :ARG2 (f / phi :part-of (g / gee)))
   :snt3 (h / eta :coref-of (k / kappa)))"""


def names(g, buckets):
    return [sorted(g.variables[i] for i in b) for b in buckets]


def test_buckets_follow_docsmatch():
    g = parse_graph(DOC)
    assert names(g, sentence_buckets(g)) == [
        ["d"],
        ["s1.g", "s1.n", "s1.p", "s2.c", "s2.n2"],
        ["pro", "s2.a", "s2.c", "s2.g", "s2.n2", "s2.p"],
        ["pro", "s3.s"]]
    g = parse_graph(TRICKY)
    assert names(g, sentence_buckets(g)) == [
        ["d"], ["a", "c", "e", "f", "g", "m"], ["c", "e", "f", "g"], ["h", "k"]]
    g = parse_graph("(a / alpha :ARG0 (b / beta))")  # no :snt edge: one bucket of everything
    assert names(g, sentence_buckets(g)) == [["a", "b"]]


def test_allowed_pairs_match_buckets_by_sentence_number():
    test = parse_graph("(d / document :snt1 (a / alpha) :snt2 (b / beta))")
    gold = parse_graph("(e / document :snt1 (x / alpha) :snt2 (y / alpha) :snt3 (z / beta))")
    # d-e (bucket 0), a-x (1), b-y (2); gold's sentence 3 has no test sentence
    assert allowed_pairs(test, gold) == {(0, 0), (1, 1), (2, 2)}
    plain = parse_graph("(a / alpha :ARG0 (b / beta))")
    # a graph without :snt edges against a document: its one bucket meets the gold's root only
    assert allowed_pairs(plain, gold) == {(0, 0), (1, 0)}


def test_sentence_numbers_must_run_from_one(tmp_path):
    g = parse_graph("(d / document :snt1 (a / alpha) :snt3 (b / beta))")
    with pytest.raises(InputError, match=":snt1 .. :snt2, not :snt1, :snt3"):
        sentence_buckets(g)


@pytest.mark.parametrize("pair", [
    ("(d / document :snt1 (a / alpha :ARG0 (b / beta)) :snt2 (c / beta :ARG1 a))",
     "(d / document :snt1 (a / beta) :snt2 (c / alpha :ARG0 (b / beta) :ARG1 c))"),
    ("(d / document :snt1 (a / go :ARG0 (p / she)) :snt2 (b / see :ARG0 p :ARG1 (c / city)))",
     "(d / document :snt1 (a / go :ARG0 (p / she) :ARG4 (c / city)) :snt2 (b / see :ARG0 p))"),
    (TRICKY, TRICKY.replace("alpha", "gamma").replace(":mod", ":ARG2")),
])
def test_restricted_optimum_is_brute_force_and_below_the_unrestricted(pair):
    test, gold = (parse_graph(t) for t in pair)
    allowed = allowed_pairs(test, gold)
    inst = instance_of(test, gold, allowed=allowed)
    best, mapping = brute_force(inst)
    assert all(tuple(row) in allowed for row in mapping.tolist())
    restricted = score_pairs([(test, gold)], method="both", restrict="sentence").pairs[0]
    free = score_pairs([(test, gold)], method="exact").pairs[0]
    assert restricted.exact.proven_optimal and restricted.exact.objective == best
    assert restricted.hillclimb.objective <= restricted.exact.objective
    assert restricted.exact.objective <= free.exact.objective


def test_without_sentence_edges_the_restriction_changes_nothing():
    test = parse_graph("(a / alpha :ARG0 (b / beta) :ARG1 (c / beta))")
    gold = parse_graph("(x / alpha :ARG1 (y / beta) :ARG0 (z / gamma))")
    r = score_pairs([(test, gold)], method="exact", restrict="sentence").pairs[0]
    f = score_pairs([(test, gold)], method="exact").pairs[0]
    assert r.exact.objective == f.exact.objective == 5  # alpha, beta, TOP, ARG0, ARG1


def test_cli_restrict_sentence(tmp_path, capsys):
    a, b = tmp_path / "test.amr", tmp_path / "gold.amr"
    # the test's sentence 2 holds what the gold's sentence 1 says: unrestricted, the
    # beta node of sentence 2 may take the gold's beta of sentence 1; restricted, not
    a.write_text("(d / document :snt1 (a / alpha) :snt2 (b / beta :ARG0 (c / gamma)))\n")
    b.write_text("(d / document :snt1 (b / beta :ARG0 (c / gamma)) :snt2 (a / alpha))\n")
    rc = cli.main(["smatch", "-f", str(a), str(b), "--restrict", "sentence", "--json"])
    doc = json.loads(capsys.readouterr().out)
    rc2 = cli.main(["smatch", "-f", str(a), str(b), "--json"])
    free = json.loads(capsys.readouterr().out)
    assert rc == rc2 == 0 and doc["options"]["restrict"] == "sentence"
    # free: the four instances, TOP and ARG0 (the :snt roles cross): 6 of 8 triples a side;
    # restricted: d-d (instance, TOP) and a->b, b->a for the two :snt relations: 4
    assert free["overall"]["exact"]["counts"]["matched"] == 6
    assert doc["overall"]["exact"]["counts"]["matched"] == 4
    b.write_text("(d / document :snt1 (a / alpha) :snt3 (b / beta))\n")
    rc = cli.main(["smatch", "-f", str(a), str(b), "--restrict", "sentence"])
    err = capsys.readouterr().err
    assert rc == 2 and "gold.amr" in err and ":snt1, :snt3" in err
