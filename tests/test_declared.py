"""Declared metrics (exactalign.declared): hand-derived values, equality with the hand-built
implementations and the official scorers on the pilot data, and the three faces of every shipped
declaration held against each other on random tiny documents (greedy <= exact == brute force)."""

from __future__ import annotations

import json
from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exactalign.core.errors import InputError, ModelTooLargeError
from exactalign.core.result import Status
from exactalign.data import resolve_data_dir
from exactalign.declared import Eq, Func, Hierarchy, Match, Metric, Span
from exactalign.declared.library import LIBRARY
from exactalign.testing.strategies import EDGES, REE_ENTITIES, SPANS


def fr(a: int, b: int):
    """A hand-derived fraction, compared to a float to the last bit or so."""
    return pytest.approx(float(F(a, b)), abs=1e-15)


def _prf(r):
    s = r.score
    return s.recall, s.precision, s.f1


# --------------------------------------------------------------------------------------------
# hand-derived values
# --------------------------------------------------------------------------------------------
def test_ceaf_family_by_hand():
    gold = {"entities": [["a", "b", "c"], ["d", "e"]]}
    pred = {"entities": [["a", "b"], ["c", "d", "e", "f"]]}
    # CEAFm: {abc}-{ab} 2 + {de}-{cdef} 2 = 4 of 5 gold and 6 predicted mentions.
    r = LIBRARY["coref-ceafm"]().compute(predictions=[pred], references=[gold])
    assert (r.score.recall_num, r.score.recall_den, r.score.precision_den) == (4, 5, 6)
    # CEAFe: φ4 = 2|k∩r|/(|k|+|r|): {abc}-{ab} 4/5, {de}-{cdef} 4/6 (the alternative
    # {abc}-{cdef} 2/7 + {de}-{ab} 0 is worse); over 2 gold and 2 predicted entities.
    r = LIBRARY["coref-ceafe"]().compute(predictions=[pred], references=[gold])
    assert r.score.recall == pytest.approx(float((F(4, 5) + F(4, 6)) / 2), abs=1e-15)
    assert r.status is Status.OPTIMAL
    # MUC: links kept: {abc} split into {ab},{c}: 3-2 = 1 of 2; {de} kept whole: 1 of 1.
    r = LIBRARY["coref-muc"]().compute(predictions=[pred], references=[gold])
    assert (r.score.recall_num, r.score.recall_den) == (2, 3)
    # precision: {ab} 1 of 1; {cdef} split into {c},{de},{f}: 4-3 = 1 of 3.
    assert (r.score.precision_num, r.score.precision_den) == (2, 4)
    # B³ recall: a,b 2/3 each, c 1/3, d,e 2/2 each -> (2/3+2/3+1/3+1+1)/5
    r = LIBRARY["coref-bcubed"]().compute(predictions=[pred], references=[gold])
    assert r.score.recall == pytest.approx(float((F(5, 3) + 2) / 5), abs=1e-15)
    # precision: a,b 2/2, c 1/4, d,e 2/4, f 0 -> (2 + 1/4 + 1)/6
    assert r.score.precision == pytest.approx(float((2 + F(1, 4) + 1) / 6), abs=1e-15)


def test_events_nested_matching_by_hand():
    gold = {"events": [
        {"trigger": [0, 1], "type": "Attack",
         "arguments": [{"span": [2, 3], "role": "Attacker"}, {"span": [4, 6], "role": "Target"}]},
        {"trigger": [8, 9], "type": "Die", "arguments": [{"span": [4, 6], "role": "Victim"}]},
    ]}
    pred = {"events": [
        {"trigger": [0, 1], "type": "Attack",
         "arguments": [{"span": [2, 3], "role": "Target"}, {"span": [4, 6], "role": "Target"}]},
        {"trigger": [8, 9], "type": "Attack", "arguments": [{"span": [4, 6], "role": "Victim"}]},
        {"trigger": [10, 11], "type": "Die", "arguments": []},
    ]}
    cls = LIBRARY["event-trigger-cls"]().compute(predictions=[pred], references=[gold])
    assert (cls.score.recall_num, cls.score.recall_den, cls.score.precision_den) == (1, 2, 3)
    idn = LIBRARY["event-trigger-id"]().compute(predictions=[pred], references=[gold])
    assert idn.score.recall_num == 2
    # arguments count only inside events whose trigger (span and type) matches: the Attack
    # pair; there both spans match (identification 2), one role too (classification 1).
    aid = LIBRARY["event-argument-id"]().compute(predictions=[pred], references=[gold])
    assert (aid.score.recall_num, aid.score.recall_den, aid.score.precision_den) == (2, 3, 3)
    acl = LIBRARY["event-argument-cls"]().compute(predictions=[pred], references=[gold])
    assert acl.score.recall_num == 1
    hier = LIBRARY["event-trigger-hierarchical"]().compute(
        predictions=[{"events": [{"trigger": [0, 1], "type": "Conflict.Demonstrate"}]}],
        references=[{"events": [{"trigger": [0, 1], "type": "Conflict.Attack"}]}])
    assert hier.score.recall == 0.5


def test_relations_and_dependencies_by_hand():
    head = {"span": [0, 2], "type": "PER"}
    gold = {"relations": [{"type": "works_for", "head": head,
                           "tail": {"span": [5, 6], "type": "ORG"}}]}
    pred = {"relations": [{"type": "works_for", "head": head,
                           "tail": {"span": [5, 6], "type": "GPE"}}]}
    assert LIBRARY["relation-strict"]().compute(predictions=[pred],
                                                references=[gold]).score.f1 == 0.0
    assert LIBRARY["relation-boundary"]().compute(predictions=[pred],
                                                  references=[gold]).score.f1 == 1.0
    gold = {"edges": [{"dep": 1, "head": 2, "label": "nsubj"}, {"dep": 2, "head": 0,
                                                                 "label": "root"},
                      {"dep": 3, "head": 2, "label": "obj"}]}
    pred = {"edges": [{"dep": 1, "head": 2, "label": "obj"}, {"dep": 2, "head": 0,
                                                                "label": "root"},
                      {"dep": 3, "head": 1, "label": "obj"}]}
    uas = LIBRARY["dependency-uas"]().compute(predictions=[pred], references=[gold])
    las = LIBRARY["dependency-las"]().compute(predictions=[pred], references=[gold])
    assert (uas.score.recall, las.score.recall) == (fr(2, 3), fr(1, 3))


def test_ceaf_ree_by_hand_equals_the_template_module():
    from exactalign.io.gtt import ROLES
    from exactalign.metrics import templates as T

    # tests/test_templates.py::test_ceaf_ree_by_hand, declared.
    g = {"D": ((("army", "soldiers"), ("police",)),) + ((),) * 4}
    p = {"D": ((("army",), ("police", "guard"), ("soldiers",)),) + ((),) * 4}
    docs = [_ree_doc(g["D"], ROLES)], [_ree_doc(p["D"], ROLES)]
    strict = LIBRARY["ceaf-ree"]().compute(predictions=docs[1], references=docs[0]).score
    assert (strict.recall_num, strict.recall_den, strict.precision_den) == (1, 2, 3)
    prop = LIBRARY["ceaf-ree-prop"]().compute(predictions=docs[1], references=docs[0]).score
    assert prop.recall_num == pytest.approx(1.5)
    assert T.ceaf_ree(g, p, "prop", "exact").overall.recall_num == pytest.approx(1.5)


def _ree_doc(slots, roles) -> dict:
    return {"entities": [{"role": role, "mentions": list(e)}
                         for role, ents in zip(roles, slots, strict=True) for e in ents]}


def test_normalizers_by_hand():
    X, Y = ["a", "b", "c"], ["a", "b", "d", "e"]
    got = {n: Metric(Match(Match(Eq(), normalizer=n), "1:1")).compute(
        predictions=[[Y]], references=[[X]]).score
           for n in ("precision", "recall", "f1", "jaccard")}
    # one pair; S = 2, S(X,X) = 3, S(Y,Y) = 4
    assert got["precision"].recall_num == fr(2, 4)
    assert got["recall"].recall_num == fr(2, 3)
    assert got["f1"].recall_num == pytest.approx(float(F(4, 7)), abs=1e-15)
    assert got["jaccard"].recall_num == pytest.approx(float(F(2, 5)), abs=1e-15)
    fb = Metric(Match(Match(Eq(), normalizer="fbeta", beta=2.0))).compute(
        predictions=[[Y]], references=[[X]])
    p, r = F(1, 2), F(2, 3)
    assert fb.score.recall_num == pytest.approx(float(5 * p * r / (4 * p + r)), abs=1e-15)


def test_span_measures_and_threshold():
    ev = None
    assert Span("dice").sim([0, 4], [2, 6], ev) == 0.5
    assert Span("jaccard").sim([0, 4], [2, 6], ev) == fr(2, 6)
    assert Span("jaccard", threshold=0.5).sim([0, 4], [2, 6], ev) == 0.0
    assert Span("jaccard", threshold=0.3, binary=True).sim([0, 4], [2, 6], ev) == 1.0
    assert Span("overlap").sim([0, 4], [4, 6], ev) == 0.0
    assert Span("exact", inclusive=True).sim([0, 3], [0, 3], ev) == 1.0
    assert Hierarchy().sim("A.b.c", "A.b.d", ev) == fr(2, 3)
    assert Hierarchy(levels=4).sim("A", "A", ev) == 0.25


def test_sequence_order_is_weighted_lcs():
    m = Metric(Match(Eq(), "1:1", order="sequence"))
    # LCS of abcbdab / bdcaba is 4
    r = m.compute(predictions=[list("bdcaba")], references=[list("abcbdab")])
    assert r.score.recall_num == 4 and r.status is Status.OPTIMAL
    assert Metric(Match(Eq(), "1:1")).compute(predictions=[list("bdcaba")],
                                               references=[list("abcbdab")]).score.recall_num == 6


def test_dag_order():
    # reference a -> b, a -> c; predicted a -> b -> c: items in any order, edges by index
    m = Metric(Match(Eq(), "1:1", order="dag", field="items"))
    ref = {"items": ["a", "b", "c"], "edges": [[0, 1], [0, 2]]}
    pred = {"items": ["c", "b", "a"], "edges": [[2, 1], [1, 0]]}
    r = m.compute(predictions=[pred], references=[ref])
    # a<b and a<c hold on both sides; b, c incomparable on the left: all three match
    assert r.score.recall_num == 3 and r.status is Status.OPTIMAL
    pred_rev = {"items": ["a", "b", "c"], "edges": [[1, 0], [2, 0]]}  # b -> a, c -> a
    # a, and one of b/c
    assert m.compute(predictions=[pred_rev], references=[ref]).score.recall_num == 2
    assert m.compute(predictions=[pred_rev], references=[ref], method="brute").score.recall_num == 2
    with pytest.raises(InputError, match="give its field"):
        Match(Eq(), order="dag")


@pytest.mark.parametrize("backend", ["highs", "scipy", "pulp", "brute"])
def test_backends_agree_through_the_ilp_method(backend):
    gold = {"entities": [["a", "b", "c"], ["d", "e"], ["f"]]}
    pred = {"entities": [["a", "b"], ["c", "d", "e", "f"], ["g"]]}
    for name in ("coref-ceafe", "coref-ceafm", "coref-muc"):
        m = LIBRARY[name]()
        ilp = m.compute(predictions=[pred], references=[gold], method="ilp", backend=backend)
        exact = m.compute(predictions=[pred], references=[gold])
        assert ilp.status is Status.OPTIMAL
        assert ilp.score.recall_num == pytest.approx(exact.score.recall_num, abs=1e-9)


def test_greedy_twin_falls_short_and_exact_proves_it():
    # 1:1 with weights 0.9 (a-x), 0.8 (a-y), 0.7 (b-x): greedy takes a-x (0.9), exact 1.5.
    sims = {("a", "x"): 0.9, ("a", "y"): 0.8, ("b", "x"): 0.7}
    m = Metric(Match(Func(lambda g, p: sims.get((g, p), 0.0)), "1:1"))
    exact = m.compute(predictions=[["x", "y"]], references=[["a", "b"]])
    greedy = m.compute(predictions=[["x", "y"]], references=[["a", "b"]], method="greedy")
    assert exact.score.recall_num == pytest.approx(1.5)
    assert greedy.score.recall_num == pytest.approx(0.9)
    assert exact.status is Status.OPTIMAL and greedy.status is Status.FEASIBLE
    assert exact.f1_bound == pytest.approx(exact.score.f1)
    assert greedy.f1_bound is None


# --------------------------------------------------------------------------------------------
# specs as data
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(LIBRARY))
def test_every_shipped_metric_round_trips_through_its_dict(name):
    m = LIBRARY[name]()
    d = json.loads(json.dumps(m.to_dict()))
    again = Metric.from_dict(d)
    assert again.to_dict() == m.to_dict()


@pytest.mark.parametrize("spec, message", [
    ({"type": "match", "constraint": "2:2"}, r"spec: unknown matching constraint '2:2'"),
    ({"type": "match", "element": {"type": "record", "fields": {"x": {"type": "spam"}}}},
     r"spec\.element\.fields\.x: unknown similarity type 'spam'"),
    ({"type": "match", "element": {"type": "span", "measure": "cosine"}},
     r"spec\.element: unknown span measure 'cosine'"),
    ({"type": "match", "element": {"type": "func", "fn": "nosuchmodule:f"}},
     r"spec\.element: cannot import 'nosuchmodule'"),
    ({"type": "match", "normalizer": "directional"}, r"root's normalizer cannot be"),
    ({"type": "eq"}, r"root of a metric must be a match"),
])
def test_bad_specs_name_the_place(spec, message):
    with pytest.raises(InputError, match=message):
        Metric.from_dict({"spec": spec})


def test_bad_documents_are_input_errors():
    m = LIBRARY["event-trigger-cls"]()
    with pytest.raises(InputError, match=r"document '0': a dict value has no field 'type'"):
        m.compute(predictions=[{"events": [{"trigger": [0, 1]}]}],
                  references=[{"events": [{"trigger": [0, 1], "type": "A"}]}])
    with pytest.raises(InputError, match=r"document '0': a document has no 'events' field"):
        m.compute(predictions=[{}], references=[{"events": []}])
    with pytest.raises(InputError, match=r"span must be \[start, end\]"):
        m.compute(predictions=[{"events": [{"trigger": "x", "type": "A"}]}],
                  references=[{"events": [{"trigger": [0, 1], "type": "A"}]}])
    with pytest.raises(InputError, match=r"1 predicted documents but 2 reference"):
        m.compute(predictions=[{}], references=[{}, {}])
    bad = Metric(Match(Func(lambda g, p: -1.0)))
    with pytest.raises(InputError, match=r"must be finite and >= 0"):
        bad.compute(predictions=[[1]], references=[[1]])


def test_brute_refuses_large_inputs():
    m = LIBRARY["coref-ceafm"]()
    big = {"entities": [[i] for i in range(30)]}
    with pytest.raises(ModelTooLargeError):
        m.compute(predictions=[big], references=[big], method="brute")


# --------------------------------------------------------------------------------------------
# the three faces on random tiny documents, for every shipped metric
# --------------------------------------------------------------------------------------------
_span = SPANS


def _partition(items):
    return st.lists(st.integers(0, 2), min_size=len(items), max_size=len(items)).map(
        lambda labels: [list(g) for g in ({lab: [m for m, la in zip(items, labels,
                                                                     strict=True) if la == lab]
                                           for lab in set(labels)}).values()])


_entities = st.lists(st.integers(0, 6), min_size=0, max_size=5, unique=True).flatmap(
    _partition).map(lambda ents: {"entities": ents})
_relation = st.fixed_dictionaries({
    "type": st.sampled_from(["r", "s"]),
    "head": st.fixed_dictionaries({"span": _span, "type": st.sampled_from(["P", "O"])}),
    "tail": st.fixed_dictionaries({"span": _span, "type": st.sampled_from(["P", "O"])})})
_argument = st.fixed_dictionaries({"span": _span, "role": st.sampled_from(["a", "b"])})
_event = st.fixed_dictionaries({
    "trigger": _span, "type": st.sampled_from(["A.x", "A.y", "B.x"]),
    "arguments": st.lists(_argument, max_size=3)})
_edge = EDGES
_ree = REE_ENTITIES


@st.composite
def _graph(draw):
    names = ["v0", "v1", "v2"][: draw(st.integers(1, 3))]
    triples = [[":instance", v, draw(st.sampled_from(["boy", "girl", "want"]))] for v in names]
    extra = draw(st.lists(st.tuples(st.sampled_from([":ARG0", ":ARG1"]), st.sampled_from(names),
                                    st.sampled_from(names + ["-"])), max_size=2))
    return {"triples": triples + [list(t) for t in extra], "variables": names}


DOCS = {
    "coref-muc": _entities, "coref-bcubed": _entities, "coref-ceafe": _entities,
    "coref-ceafm": _entities,
    "relation-strict": st.lists(_relation, max_size=3).map(lambda r: {"relations": r}),
    "relation-boundary": st.lists(_relation, max_size=3).map(lambda r: {"relations": r}),
    "event-trigger-id": st.lists(_event, max_size=3).map(lambda e: {"events": e}),
    "event-trigger-cls": st.lists(_event, max_size=3).map(lambda e: {"events": e}),
    "event-argument-id": st.lists(_event, max_size=3).map(lambda e: {"events": e}),
    "event-argument-cls": st.lists(_event, max_size=3).map(lambda e: {"events": e}),
    "event-trigger-hierarchical": st.lists(_event, max_size=3).map(lambda e: {"events": e}),
    "dependency-uas": st.lists(_edge, max_size=4).map(lambda e: {"edges": e}),
    "dependency-las": st.lists(_edge, max_size=4).map(lambda e: {"edges": e}),
    "ceaf-ree": st.lists(_ree, max_size=4).map(lambda e: {"entities": e}),
    "ceaf-ree-prop": st.lists(_ree, max_size=4).map(lambda e: {"entities": e}),
    "ceaf-ree-phi4": st.lists(_ree, max_size=4).map(lambda e: {"entities": e}),
    "ceaf-rme-phi3": st.lists(st.fixed_dictionaries({
        "type": st.sampled_from(["attack", "bombing", "attack / bombing"]),
        "entities": st.lists(st.lists(st.tuples(st.sampled_from(["PerpInd", "Target"]),
                                                st.sampled_from(["a", "b", "c"])).map(list),
                                      min_size=1, max_size=2, unique_by=tuple), max_size=2)}),
        max_size=2).map(lambda t: {"templates": t}),
    "smatch": _graph(),
}


def test_every_shipped_metric_has_a_generator():
    assert set(DOCS) == set(LIBRARY)


@pytest.mark.parametrize("name", sorted(LIBRARY))
def test_greedy_le_exact_eq_brute(name):
    metric = LIBRARY[name]()

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(gold=DOCS[name], pred=DOCS[name])
    def check(gold, pred):
        exact = metric.compute(predictions=[pred], references=[gold], method="exact")
        brute = metric.compute(predictions=[pred], references=[gold], method="brute")
        ilp = metric.compute(predictions=[pred], references=[gold], method="ilp")
        assert ilp.status is Status.OPTIMAL
        assert ilp.score.recall_num == pytest.approx(exact.score.recall_num, abs=1e-9)
        assert ilp.score.precision_num == pytest.approx(exact.score.precision_num, abs=1e-9)
        greedy = metric.compute(predictions=[pred], references=[gold], method="greedy")
        assert exact.status is Status.OPTIMAL
        e, b, g = exact.score, brute.score, greedy.score
        assert e.recall_num == pytest.approx(b.recall_num, abs=1e-9)
        assert e.precision_num == pytest.approx(b.precision_num, abs=1e-9)
        assert (e.recall_den, e.precision_den) == pytest.approx((b.recall_den, b.precision_den))
        assert g.recall_num <= e.recall_num + 1e-9
        assert g.precision_num <= e.precision_num + 1e-9
        assert exact.f1_bound == pytest.approx(e.f1, abs=1e-9)
        # a self-score denominator keeps F1 <= 1; IterX's recall over gold entities need not
        assert 0.0 <= e.f1 <= 1.0 + 1e-12 or metric.recall_denominator

    check()


# --------------------------------------------------------------------------------------------
# equal to the official scorers and the hand-built implementations on the pilot data
# --------------------------------------------------------------------------------------------
def _pilot(*parts):
    data = resolve_data_dir()
    path = data.path.joinpath(*parts) if data.available else None
    if path is None or not path.exists():
        pytest.skip("pilot data " + "/".join(parts) + " not available")
    return path


@pytest.mark.pilot
def test_coref_specs_equal_the_conll_reference_scorer_and_the_coref_module():
    from exactalign.io.conll import read_pair
    from exactalign.metrics import coref

    expected = _pilot("coref", "conll-reference-scorer-tests", "expected_values.json")
    base = expected.parent
    cases = json.loads(expected.read_text())
    names = {"muc": "coref-muc", "bcub": "coref-bcubed", "ceafe": "coref-ceafe",
             "ceafm": "coref-ceafm"}
    checked = 0
    for case in cases:
        docs = [coref.identify(k, r)
                for k, r in read_pair(base / case["key_file"], base / case["response_file"])]
        gold = [{"entities": [c.tolist() for c in d.key_chains]} for d in docs]
        pred = [{"entities": [c.tolist() for c in d.response_chains]} for d in docs]
        ours = {
            "coref-muc": [coref.muc(d) for d in docs],
            "coref-bcubed": [coref.b_cubed(d) for d in docs],
            "coref-ceafe": [coref.ceaf(d, "entity").prf for d in docs],
            "coref-ceafm": [coref.ceaf(d, "mention").prf for d in docs],
        }
        for short, name in names.items():
            r = LIBRARY[name]().compute(predictions=pred, references=gold)
            assert r.status is Status.OPTIMAL
            expected = case["expected_metrics"].get(short)
            if expected is not None:  # the official values, printed to 5 decimals
                assert _prf(r) == pytest.approx(tuple(expected), abs=5.1e-6), (case["id"], name)
                checked += 1
            for doc, prf in zip(r.documents, ours[name], strict=True):
                assert doc.prf.recall == pytest.approx(prf.recall, abs=1e-12)
                assert doc.prf.precision == pytest.approx(prf.precision, abs=1e-12)
    assert checked >= 60


@pytest.mark.pilot
def test_ceaf_ree_spec_equals_grit_on_the_pilot():
    from exactalign.io import gtt
    from exactalign.metrics import templates as T

    gold = gtt.read_ree_gold(_pilot("muc4", "grit", "test_ree.json"))
    pred = gtt.read_ree_predictions(_pilot("muc4", "grit", "preds_s_t.out"))
    ids = sorted(gold)
    empty = ((),) * len(gtt.ROLES)
    g = [_ree_doc(gold[d], gtt.ROLES) for d in ids]
    p = [_ree_doc(pred.get(d, empty), gtt.ROLES) for d in ids]
    for phi, name in (("strict", "ceaf-ree"), ("prop", "ceaf-ree-prop")):
        ours = LIBRARY[name]().compute(predictions=p, references=g, ids=ids)
        ref = T.ceaf_ree(gold, pred, phi, "exact").overall
        assert ours.score.recall_num == pytest.approx(ref.recall_num, abs=1e-9)
        assert (ours.score.recall_den, ours.score.precision_den) == \
            (ref.recall_den, ref.precision_den)
        if phi == "strict":
            assert round(100 * ours.score.f1, 2) == 54.50  # GRIT's published CEAF-REE


@pytest.mark.pilot
@pytest.mark.parametrize("system", ["jamr.txt", "wang.txt"])
def test_smatch_spec_equals_the_exact_smatch_pair_by_pair(system):
    from exactalign.declared.convert import read_amr
    from exactalign.io.amr import read_pairs
    from exactalign.metrics import smatch

    base = _pilot("amr", "lpp-test-jamr-camr")
    ids, gold, pred = read_amr(base / "lp_test.txt", base / system)
    ours = LIBRARY["smatch"]().compute(predictions=pred, references=gold, ids=ids)
    ref = smatch.score_pairs(read_pairs(base / system, base / "lp_test.txt"))
    assert ours.status is Status.OPTIMAL
    assert [d.results[0].objective for d in ours.documents] == \
        [float(p.result("exact").objective) for p in ref.pairs]
    assert ours.score.f1 == pytest.approx(ref.scores("exact").f1, abs=1e-15)


def test_latent_triples_with_constants_and_inverse_roles():
    # ref: a boy wants to go, (want :ARG0 b) and a constant triple both sides state
    ref = {"triples": [["instance", "w", "want"], ["instance", "b", "boy"], [":ARG0", "w", "b"],
                       ["polarity", "w", "-"], ["note", "c1", "c2"]], "variables": ["w", "b"]}
    pred = {"triples": [["instance", "x", "boy"], ["instance", "y", "want"], [":ARG0", "y", "x"],
                        ["note", "c1", "c2"], ["note", "c1", "c2"]], "variables": ["x", "y"]}
    r = LIBRARY["smatch"]().compute(predictions=[pred], references=[ref])
    # matched: 2 instances + ARG0 + the constant triple = 4 of 5 (ref) and 4 of 4 (pred: the
    # duplicate counts once)
    s = r.score
    assert (s.recall_num, s.recall_den, s.precision_den) == (4, 5, 4)


@pytest.mark.pilot
def test_score_cli_on_native_formats(capsys):
    from exactalign import cli

    base = _pilot("coref", "conll-reference-scorer-tests", "DataFiles")
    rc = cli.main(["score", "--format", "conll", "--metric", "coref-ceafe", "--method", "exact",
                   str(base / "TC-A.key"), str(base / "TC-A-4.response"), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0
    m = doc["metrics"][0]["exact"]
    # TC-A-4's official CEAFe (expected_values.json): R 0.73333, P 0.55
    assert (m["micro"]["recall"], m["micro"]["precision"]) == pytest.approx((0.73333, 0.55),
                                                                           abs=5e-6)
    assert doc["metrics"][0]["greedy"] is None
    o = doc["overall"]["coref-ceafe/exact"]  # the same micro score, in the one shape
    assert (o["recall"], o["precision"]) == (m["micro"]["recall"], m["micro"]["precision"])
    assert set(doc["overall"]) == set(doc["solves"]) == {"coref-ceafe/exact"}


def test_score_cli_names_the_worst_documents_with_witnesses(tmp_path, capsys):
    from exactalign import cli

    # CEAFm: greedy takes {a,b,x,y}-{a,b,c} (2) first and strands {c}; the optimum pairs
    # {a,b,x,y}-{x,y} and {c}-{a,b,c} (2 + 1): drop one pair, add two.
    gold, pred = tmp_path / "g.jsonl", tmp_path / "p.jsonl"
    gold.write_text('{"id": "a", "entities": [["a", "b", "x", "y"], ["c"]]}\n')
    pred.write_text('{"id": "a", "entities": [["a", "b", "c"], ["x", "y"]]}\n')
    assert cli.main(["score", "--metric", "coref-ceafm", str(gold), str(pred), "--json"]) == 0
    gap = json.loads(capsys.readouterr().out)["metrics"][0]["gap"]
    assert gap["documents_short"] == 1 and gap["f1_points"] == pytest.approx(20.0)
    w = gap["worst_documents"][0]["witness"]
    assert (w["remove"], w["add"], w["gain"]) == ([[0, 0]], [[0, 1], [1, 0]], 1.0)


@pytest.mark.pilot
@pytest.mark.parametrize("encoder", ["bert-base", "bart-base", "bart-large", "t5-large-enc"])
def test_ceaf_rme_phi3_equals_iterx_outputs_document_by_document(encoder):
    import re

    from exactalign.declared.convert import read_gtt

    base = _pilot("muc4")
    ids, gold, pred = read_gtt(base / "gtt" / "test.json",
                               base / "iterx" / encoder / "preds.test.jsonlines")
    official = {}
    for line in (base / "iterx" / encoder / "test.rme.phi3.txt").read_text().splitlines():
        m = re.match(r"doc_id=(\S+)\s.*prec=([\d.]+)\s+rec=([\d.]+)", line)
        if m:
            official[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    r = LIBRARY["ceaf-rme-phi3"]().compute(predictions=pred, references=gold, ids=ids)
    assert r.status is Status.OPTIMAL and len(r.documents) == len(official) == 200
    for d in r.documents:  # printed to 4 decimals
        assert (d.prf.precision, d.prf.recall) == pytest.approx(official[d.id], abs=5.1e-5), d.id


def test_score_schema_is_a_plain_json_schema(capsys):
    import jsonschema

    from exactalign import cli

    assert cli.main(["score", "--metric", "event-argument-cls", "--schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert "command" not in schema and schema["required"] == ["events"]
    jsonschema.Draft202012Validator.check_schema(schema)
    doc = {"id": "d", "events": [{"trigger": [0, 1], "type": "A",
                                  "arguments": [{"span": [2, 3], "role": "r"}]}]}
    jsonschema.validate(doc, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"events": [{"trigger": [0], "type": "A", "arguments": []}]}, schema)
    from exactalign.declared.files import document_schema

    dag = document_schema(Metric(Match(Eq(), order="dag", field="items")))
    jsonschema.validate({"items": ["a", "b"], "edges": [[0, 1]]}, dag)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"items": ["a", "b"]}, dag)


def test_an_unproven_nested_level_voids_the_root_bound():
    import numpy as np

    from exactalign.core.result import Result
    from exactalign.declared.engine import Evaluator
    from exactalign.declared.metric import _with_status

    root = Result(Status.OPTIMAL, 2.0, 2.0, np.zeros((0, 2)), "ilp")
    ev = Evaluator("ilp", statuses=[Status.OPTIMAL, Status.TIME_LIMIT])
    out = _with_status(root, ev)
    assert out.status is Status.TIME_LIMIT and out.bound is None  # nothing proven above 2.0
    ev = Evaluator("ilp", statuses=[Status.OPTIMAL])
    assert _with_status(root, ev).bound == 2.0
