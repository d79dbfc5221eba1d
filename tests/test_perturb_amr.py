"""Parser-like AMR perturbations (exactalign.perturb.amr), the synthetic AMR sentences
(exactalign.synthetic.random_amr_sentences), join_sentences' ``mergeable`` and the pilot
loaders of sentence graphs (exactalign.data.pilot)."""

from __future__ import annotations

from collections import Counter

import pytest

from exactalign import synthetic
from exactalign.core.errors import InputError
from exactalign.data.pilot import amr_parser_runs, little_prince_chapters
from exactalign.io.amr import graph_from_tree
from exactalign.io.docamr import join_sentences
from exactalign.metrics import smatch
from exactalign.perturb.amr import (
    ERROR_KINDS,
    PROFILES,
    AmrErrorRates,
    AmrInventory,
    perturb_graph,
    perturb_graphs,
)
from exactalign.testing import pilot_path

penman = pytest.importorskip("penman")

BANK = synthetic.random_amr_sentences(60, seed=5)
INV = AmrInventory.from_graphs(BANK)


def _amr(g):
    return graph_from_tree(penman.configure(g))


def _connected(g) -> bool:
    variables = set(g.variables())
    adj: dict = {}
    for s, _, t in g.edges():
        adj.setdefault(s, set()).add(t)
        adj.setdefault(t, set()).add(s)
    seen, todo = {g.top}, [g.top]
    while todo:
        for w in adj.get(todo.pop(), ()):
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen == variables


def test_zero_rates_give_the_triples_back():
    for k, g in enumerate(BANK):
        p = perturb_graph(g, AmrErrorRates(), INV, seed=1, index=k)
        assert p.graph.triples == g.triples and p.graph.top == g.top
        assert not p.applied


def test_each_error_class_alone_applies_only_itself_and_keeps_a_writable_graph():
    for kind in ERROR_KINDS:
        applied = Counter()
        for k, g in enumerate(BANK):
            before = list(g.triples)
            p = perturb_graph(g, AmrErrorRates(**{kind: 0.5}), INV, seed=2, index=k)
            assert g.triples == before  # the input is never modified
            applied += p.applied
            assert set(p.applied) <= {kind}
            assert _connected(p.graph), (kind, k)
            penman.encode(p.graph)  # writable
            assert p.applied[kind] <= p.opportunities[kind]
        assert applied[kind] > 0, kind


def test_errors_lower_the_smatch_of_a_graph_against_itself():
    gold = [_amr(g) for g in BANK]
    for name, rates in PROFILES.items():
        test = [_amr(p.graph) for p in perturb_graphs(BANK, rates, INV, seed=3)]
        f = smatch.score_pairs(list(zip(test, gold, strict=True))).scores("exact").f1
        assert 0.5 < f < 0.99, name


def test_seeded_and_independent_of_the_other_graphs():
    a = perturb_graphs(BANK, PROFILES["lexical"], INV, seed=4)
    b = perturb_graphs(BANK, PROFILES["lexical"], INV, seed=4)
    assert [p.graph.triples for p in a] == [p.graph.triples for p in b]
    tail = perturb_graphs(BANK[10:], PROFILES["lexical"], INV, seed=4, first_index=10)
    assert [p.graph.triples for p in tail] == [p.graph.triples for p in a[10:]]
    c = perturb_graphs(BANK, PROFILES["lexical"], INV, seed=5)
    assert [p.graph.triples for p in c] != [p.graph.triples for p in a]


def test_related_concepts_and_constants():
    g = penman.decode('(w / want-01 :ARG0 (b / boy :polarity -) :ARG1 (c / city :name '
                      '(n / name :op1 "Paris")))')
    inv = AmrInventory.from_graphs([g, penman.decode("(w / want-02 :polarity -)"),
                                    penman.decode('(n / name :op1 "Rome")')])
    p = perturb_graph(g, AmrErrorRates(concept=1.0, attribute=1.0), inv, seed=0)
    concepts = {v: c for v, _, c in p.graph.instances()}
    assert concepts["w"] == "want-02"  # another sense of the same predicate
    attrs = {(s, r): t for s, r, t in p.graph.attributes()}
    assert ("b", ":polarity") not in attrs  # a single-valued role is dropped
    assert attrs[("n", ":op1")] == '"Rome"'


def test_drop_subgraph_never_removes_more_than_a_third():
    for k, g in enumerate(BANK):
        p = perturb_graph(g, AmrErrorRates(drop_subgraph=1.0), INV, seed=0, index=k)
        n = len(g.variables())
        assert n - len(p.graph.variables()) <= max(1, n / 3)


def test_bad_rates_and_seeds():
    with pytest.raises(InputError, match="concept"):
        AmrErrorRates(concept=1.5)
    with pytest.raises(InputError, match="seed"):
        perturb_graph(BANK[0], AmrErrorRates(), INV, seed=-1)


# ------------------------------------------------------------------------------------------
# synthetic sentences and join_sentences(mergeable=)
# ------------------------------------------------------------------------------------------
def test_synthetic_sentences_are_seeded_connected_amr_graphs():
    a = synthetic.random_amr_sentences(20, seed=1)
    assert [g.triples for g in a] == [g.triples for g in synthetic.random_amr_sentences(20, 1)]
    assert [g.triples for g in a] != [g.triples for g in synthetic.random_amr_sentences(20, 2)]
    for g in a:
        assert _connected(g) and _amr(g).variables
    with pytest.raises(InputError):
        synthetic.random_amr_sentences(3, seed=None)


def test_mergeable_limits_the_merges_and_none_keeps_the_old_draws():
    gs = synthetic.random_amr_sentences(12, seed=3)
    old = join_sentences(gs, merge=0.7, seed=9)
    assert join_sentences(gs, merge=0.7, seed=9, mergeable=None).triples == old.triples
    never = join_sentences(gs, merge=1.0, seed=9, mergeable=lambda g, v: False)
    assert len(never.variables()) == 1 + sum(len(g.variables()) for g in gs)
    only_he = join_sentences(gs, merge=1.0, seed=9,
                             mergeable=lambda g, v: ("he" == next(c for x, _, c in
                                                                   g.instances() if x == v)))
    merged = 1 + sum(len(g.variables()) for g in gs) - len(only_he.variables())
    per_sentence = [sum(1 for v, _, c in g.instances() if c == "he" and v != g.top)
                    for g in gs]
    first = next((k for k, n in enumerate(per_sentence) if n), None)
    # every "he" of a later sentence goes into the first sentence's first "he"
    assert first is not None and merged == sum(per_sentence[first + 1:]) > 0
    kept = [c for _, _, c in only_he.instances()].count("he")
    tops = sum(1 for g in gs for v, _, c in g.instances() if v == g.top and c == "he")
    assert kept == per_sentence[first] + tops


# ------------------------------------------------------------------------------------------
# pilot loaders
# ------------------------------------------------------------------------------------------
def test_little_prince_chapters():
    amr = pilot_path("amr")
    if amr is None or not (amr / "gold-banks" / "amr-bank-struct-v3.0.txt").is_file():
        pytest.skip("no pilot AMR bank")
    chapters = little_prince_chapters(amr)
    assert len(chapters) == 27 and sum(map(len, chapters)) == 1562
    assert all(c[0].metadata["snt"].startswith("Chapter ") for c in chapters)
    assert [len(c) for c in chapters][:3] == [35, 67, 43]


def test_parser_runs_in_text_order():
    amr = pilot_path("amr")
    runs = {r.name: r for r in amr_parser_runs(amr)} if amr is not None else {}
    if len(runs) < 2:
        pytest.skip("no pilot parser outputs")
    jc = runs["lp-jamr-camr"]
    assert set(jc.systems) == {"JAMR", "CAMR"} and len(jc.gold) == 103
    assert jc.ids[0] == "lpp_1943.1460" and jc.ids[-1] == "lpp_1943.1562"
    bt = runs["lp-bart-t5"]
    assert set(bt.systems) == {"BART", "T5"} and len(bt.gold) == len(bt.systems["T5"]) == 200
    nums = [int(i.rsplit(".", 1)[1]) for i in bt.ids]
    assert nums == sorted(nums) and len(set(nums)) == 200
    # each parse is of its gold sentence
    for name in ("BART", "T5"):
        assert all(s.metadata.get("snt") == g.metadata.get("snt")
                   for s, g in zip(bt.systems[name], bt.gold, strict=True))
