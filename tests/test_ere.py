"""ERE agreement (Kulick, Bies & Mott 2014): the mention mapping -- the paper's procedure and
the exact lexicographic optimum -- on the paper's figures and hand-derived cases, properties
under hypothesis (procedure <= exact lexicographically, exact == brute force, certificate and
checker on every mapping), and the entity / relation / event categories."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, target
from hypothesis import strategies as st

from exactalign import InfeasibleAlignmentError
from exactalign.io.ere import ere_from_dict
from exactalign.metrics import ere as agreement
from exactalign.problems import ere

# Figure 1: A's m-502 "THE EAST" and m-463 "SOUTH OF IRAN"; B's m-398 "THE EAST AND SOUTH OF
# IRAN" and m-892 "IRAN".
FIG1_TEXT = "THE EAST AND SOUTH OF IRAN"
FIG1_A = [((0, 8),), ((13, 26),)]
FIG1_B = [((0, 26),), ((22, 26),)]
# Figure 2: A's m-892 "TALIBAN MILITIA", m-905 "TALIBAN"; B's m-788 the whole phrase.
FIG2_TEXT = "THE NOW-OUSTED TALIBAN MILITIA"
FIG2_A = [((15, 30),), ((15, 22),)]
FIG2_B = [((0, 30),)]
# Step 3b (every A mention has two candidates) takes A0-B1 (overlap 5) and loses a mention:
# A0=[0,6) overlaps B0=[0,1) by 1 and B1=[1,10) by 5; A1=[9,11) and A2=[9,12) overlap B1 by 1
# and B2=[10,20) by 1 and 2. Procedure: A0-B1 (5), then A1, A2 both have only B2: A2-B2 (2)
# -> (2 mapped, 7 characters). Optimum: A0-B0 (1), A1-B1 (1), A2-B2 (2) -> (3, 4).
GAP_A = [((0, 6),), ((9, 11),), ((9, 12),)]
GAP_B = [((0, 1),), ((1, 10),), ((10, 20),)]


def _both(a, b, **kw):
    p = ere.span_pairs(a, b)
    return p, ere.procedure(p), ere.exact_mapping(p, **kw)


# --------------------------------------------------------------------------------------------
# the paper's figures and hand-derived cases
# --------------------------------------------------------------------------------------------
def test_figure1_disambiguation_by_unambiguous_mapping():
    p, proc, exact = _both(FIG1_A, FIG1_B)
    assert p.overlap.tolist() == [8, 13, 4]  # m-502/m-398, m-463/m-398, m-463/m-892
    assert proc.pairs.tolist() == [[0, 0], [1, 1]] == exact.pairs.tolist()
    assert proc.key == exact.key == (2, 8 + 4)
    assert proc.details == {"exact_step": 0, "unambiguous": 0, "ambiguous": 2}


def test_figure2_disambiguation_by_maximum_overlap():
    p, proc, exact = _both(FIG2_A, FIG2_B)
    assert proc.pairs.tolist() == [[0, 0]] == exact.pairs.tolist()  # TALIBAN MILITIA (15 chars)
    assert proc.key == exact.key == (1, 15)
    assert agreement.edge_category(FIG2_A[0], FIG2_B[0], FIG2_TEXT) == "left: B+other; right: same"


def test_procedure_below_optimum_hand_derived():
    p, proc, exact = _both(GAP_A, GAP_B)
    assert proc.pairs.tolist() == [[0, 1], [2, 2]]
    assert proc.key == (2, 5 + 2)
    assert exact.pairs.tolist() == [[0, 0], [1, 1], [2, 2]]
    assert exact.key == (3, 1 + 1 + 2)
    assert ere.brute_force(p) == (3, 4)
    assert ere.mapping_gap(proc, exact) == {"count_shortfall": 1, "overlap_shortfall": -3,
                                            "below_optimum": True}
    # M = 1 + min(sum_a max overlap = 5+1+2, sum_b max = 1+5+2) = 9; weight 3*9 + 4 = 31
    c = exact.certificate
    assert (c.M, c.weight, c.bound, c.proves) == (9, 31.0, 31.0, True)
    assert ere.verify_certificate(p, exact)


def test_exact_matches_fixed_first_and_unambiguous():
    # A0 == B0 exactly; A1 overlaps only B1 and B1 only A1; B2 duplicates B0's location.
    a = [((0, 5),), ((10, 14),)]
    b = [((0, 5),), ((12, 20),), ((0, 5),)]
    p, proc, exact = _both(a, b)
    assert proc.pairs.tolist() == [[0, 0], [1, 1]] == exact.pairs.tolist()
    assert proc.exact.tolist() == [True, False]
    assert proc.details == {"exact_step": 1, "unambiguous": 1, "ambiguous": 0}


def test_keep_exact_false_may_break_an_exact_match():
    # A0 == B0 = [0,5); A1 = [4,6) overlaps only B0; B1 = [2,3) lies inside A0. Keeping the
    # exact match maps 1 pair; the free optimum maps A0-B1 and A1-B0: (2, 1 + 1).
    a, b = [((0, 5),), ((4, 6),)], [((0, 5),), ((2, 3),)]
    p = ere.span_pairs(a, b)
    assert ere.exact_mapping(p).key == (1, 5) == ere.procedure(p).key
    free = ere.exact_mapping(p, keep_exact=False)
    assert free.key == (2, 2) == ere.brute_force(p, keep_exact=False)
    with pytest.raises(InfeasibleAlignmentError, match="exact match"):
        ere.check(p, free)
    assert ere.check(p, free, keep_exact=False) == (2, 2)


def test_discontinuous_spans_overlap_by_shared_characters():
    p = ere.span_pairs([((0, 4), (10, 14))], [((2, 12),), ((0, 4), (10, 14))])
    assert p.overlap.tolist() == [4, 8]
    assert p.exact.tolist() == [False, True]


@pytest.mark.parametrize("method,backend", [("ilp", "highs"), ("ilp", "scipy"), ("ilp", "pulp"),
                                            ("brute", None)])
def test_ilp_and_brute_methods_agree_with_exact(method, backend):
    p = ere.span_pairs(GAP_A, GAP_B)
    kw = {"backend": backend} if backend else {}
    m = ere.exact_mapping(p, method=method, **kw)
    assert m.key == (3, 4)
    assert m.certificate.proves and m.result.proven_optimal


def test_checker_rejects_bad_mappings():
    p = ere.span_pairs(FIG1_A, FIG1_B)
    good = ere.procedure(p)
    twice = ere.Mapping(np.array([[0, 0], [1, 0]]), np.array([False, False]), np.array([8, 13]),
                        "x")
    with pytest.raises(InfeasibleAlignmentError, match="twice"):
        ere.check(p, twice)
    nonpair = ere.Mapping(np.array([[0, 1]]), np.array([False]), np.array([1]), "x")
    with pytest.raises(InfeasibleAlignmentError, match="does not overlap"):
        ere.check(p, nonpair)
    wrong = ere.Mapping(good.pairs, good.exact, good.overlap + 1, "x")
    with pytest.raises(InfeasibleAlignmentError, match="overlap or exact flag"):
        ere.check(p, wrong)


# --------------------------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------------------------
def _span():
    single = st.tuples(st.integers(0, 24), st.integers(1, 7)).map(lambda t: ((t[0], t[0] + t[1]),))
    double = st.tuples(st.integers(0, 10), st.integers(1, 4), st.integers(1, 4),
                       st.integers(1, 4)).map(
        lambda t: ((t[0], t[0] + t[1]), (t[0] + t[1] + t[2], t[0] + t[1] + t[2] + t[3])))
    return st.one_of(single, single, single, double)


SPANS = st.lists(_span(), min_size=0, max_size=7)


@given(SPANS, SPANS, st.booleans())
def test_procedure_never_beats_exact_and_exact_is_brute_force(a, b, keep_exact):
    p = ere.span_pairs(a, b)
    proc = ere.procedure(p)
    exact = ere.exact_mapping(p, keep_exact=keep_exact)
    assert ere.check(p, proc) == proc.key
    assert ere.check(p, exact, keep_exact=keep_exact) == exact.key
    assert ere.verify_certificate(p, exact, keep_exact=keep_exact)
    assert exact.result.proven_optimal
    if keep_exact:
        assert proc.key <= exact.key
        target(float(exact.count - proc.count), label="mentions the procedure loses")
    else:  # the free optimum is a relaxation of the fixed one
        assert ere.exact_mapping(p).key <= exact.key
    free = len(ere.lex_instance(p, keep_exact)[1])
    if free <= ere.BRUTE_MAX_PAIRS:
        assert ere.brute_force(p, keep_exact=keep_exact) == exact.key


@settings(max_examples=25)
@given(SPANS, SPANS, st.sampled_from(["highs", "scipy"]))
def test_ilp_agrees_with_the_assignment_path(a, b, backend):
    p = ere.span_pairs(a, b)
    ilp = ere.exact_mapping(p, method="ilp", backend=backend)
    assert ilp.result.proven_optimal and ilp.certificate.proves
    assert ilp.key == ere.exact_mapping(p).key
    assert ere.check(p, ilp) == ilp.key


@given(SPANS, SPANS)
def test_overlaps_match_character_sets(a, b):
    p = ere.span_pairs(a, b)
    chars = [lambda s: {c for x, y in s for c in range(x, y)}][0]
    want = {(i, j): len(chars(x) & chars(y)) for i, x in enumerate(a) for j, y in enumerate(b)
            if chars(x) & chars(y)}
    got = dict(zip(zip(p.rows.tolist(), p.cols.tolist(), strict=True), p.overlap.tolist(),
                   strict=True))
    assert got == want
    for e, (i, j) in enumerate(zip(p.rows.tolist(), p.cols.tolist(), strict=True)):
        assert bool(p.exact[e]) == (chars(a[i]) == chars(b[j]))


# --------------------------------------------------------------------------------------------
# categories
# --------------------------------------------------------------------------------------------
def _doc(mentions, entities, relations=(), events=(), text=None):
    d = {"id": "d", "mentions": [{"id": k, "span": list(s), **({"level": lv} if lv else {})}
                                 for k, s, lv in mentions],
         "entities": [{"id": k, "type": t, "mentions": list(ms)} for k, t, ms in entities],
         "relations": list(relations), "events": list(events)}
    if text is not None:
        d["text"] = text
    return ere_from_dict({"documents": [d]}).documents["d"]


def test_figure3_complete_match_through_overlaps():
    text = "SUPPORTERS IN PAKISTAN ... SUPPORTERS IN PAKISTAN"
    a = _doc([("m-333", [0, 10], "NOM"), ("m-1724", [27, 37], "NOM")],
             [("x", "PER", ["m-333", "m-1724"])], text=text)
    b = _doc([("m-3763", [0, 22], "NOM"), ("m-1620", [27, 49], "NAM")],
             [("y", "PER", ["m-3763", "m-1620"])], text=text)
    r = agreement.compare_document(a, b, "procedure")
    assert r.entities["a"] == {"x": ["complete", "y"]}
    assert r.entities["b"] == {"y": ["complete", "x"]}
    rep = r.mention_report
    assert (rep["exact"], rep["overlap"], rep["unmatched_a"], rep["unmatched_b"]) == (0, 2, 0, 0)
    assert rep["overlap_categories"] == {"left: same; right: B+other": 2}
    assert rep["level_mismatches"] == [["m-1724", "m-1620", "NOM", "NAM"]]


def test_figure4_incomplete_and_no_match():
    a = _doc([("m-437", [0, 8], ""), ("m-593", [20, 36], ""), ("m-840", [50, 58], "")],
             [("x", "ORG", ["m-437", "m-593", "m-840"])])
    b = _doc([("m-424", [0, 8], ""), ("m-2580", [50, 58], "")],
             [("y", "PER", ["m-424", "m-2580"])])
    r = agreement.compare_document(a, b, "exact")
    assert r.entities["a"] == {"x": ["incomplete", "y"]}
    assert r.entities["type_mismatches"] == [["x", "y", "ORG", "PER"]]
    # If m-593 mapped into another B entity, there is not even an incomplete match.
    b2 = _doc([("m-424", [0, 8], ""), ("m-2580", [50, 58], ""), ("z1", [20, 36], "")],
              [("y", "ORG", ["m-424", "m-2580"]), ("z", "ORG", ["z1"])])
    r2 = agreement.compare_document(a, b2, "exact")
    assert r2.entities["a"] == {"x": ["no_match", None]}
    assert r2.entities["b"] == {"y": ["no_match", None], "z": ["no_match", None]}
    assert r2.counts()["entities_a"] == {"complete": 0, "incomplete": 0, "no_match": 1}


def _rel_docs(type_b="Located", trig_b=(40, 44), args_b=("p", "q")):
    ms = [("p", [0, 5], ""), ("q", [10, 20], "")]
    ents = [("e1", "PER", ["p"]), ("e2", "GPE", ["q"])]
    a = _doc(ms, ents, [{"id": "r", "type": "Physical", "subtype": "Located",
                         "args": ["p", "q"], "trigger": [40, 44]}])
    rel_b = {"id": "s", "type": "Physical", "subtype": type_b, "args": list(args_b)}
    if trig_b is not None:
        rel_b["trigger"] = list(trig_b)
    return a, _doc(ms, ents, [rel_b])


@pytest.mark.parametrize("kw,category", [
    ({}, "exact"),
    ({"type_b": "Near"}, "types_different"),
    ({"type_b": "Near", "trig_b": None}, "types_different"),
    ({"trig_b": (60, 64)}, "triggers_different"),
    ({"trig_b": None}, "triggers_different"),
    ({"args_b": ("q", "p")}, "no_match"),
])
def test_relation_categories(kw, category):
    a, b = _rel_docs(**kw)
    r = agreement.compare_document(a, b, "procedure")
    assert r.relations["a"]["r"][0] == category
    assert r.relations["b"]["s"][0] == category


def _event_docs(b_type="Arrest-Jail", b_trigger=(30, 42), b_role="person", b_date=(60, 73)):
    # Figure 5: A's argument m-502 POLICE maps to B's m-255 THE POLICE by overlap.
    a = _doc([("m-502", [4, 10], ""), ("m-292", [43, 58], "")],
             [("p", "ORG", ["m-502"]), ("t", "PER", ["m-292"])],
             events=[{"id": "v", "type": "Justice", "subtype": "Arrest-Jail",
                      "trigger": [30, 42],
                      "args": [{"role": "agent", "mention": "m-502"},
                               {"role": "person", "mention": "m-292"},
                               {"role": "date", "span": [60, 73]}]}])
    b = _doc([("m-255", [0, 10], ""), ("m-268", [43, 58], "")],
             [("p", "ORG", ["m-255"]), ("t", "PER", ["m-268"])],
             events=[{"id": "w", "type": "Justice", "subtype": b_type,
                      "trigger": list(b_trigger),
                      "args": [{"role": "agent", "mention": "m-255"},
                               {"role": b_role, "mention": "m-268"},
                               {"role": "date", "span": list(b_date)}]}])
    return a, b


@pytest.mark.parametrize("kw,category", [
    ({}, "exact"),
    ({"b_type": "Release-Parole"}, "types_different"),
    ({"b_trigger": (80, 85)}, "no_match"),    # trigger does not map
    ({"b_role": "agent"}, "no_match"),        # arguments differ in role
    ({"b_date": (90, 99)}, "no_match"),       # the date does not map
])
def test_event_categories(kw, category):
    a, b = _event_docs(**kw)
    for mapping in ("procedure", "exact"):
        r = agreement.compare_document(a, b, mapping)
        assert r.events["a"]["v"][0] == category
        assert r.events["b"]["w"][0] == category


def test_differences_between_mappings():
    ms_a = [(f"a{i}", list(s[0]), "") for i, s in enumerate(GAP_A)]
    ms_b = [(f"b{i}", list(s[0]), "") for i, s in enumerate(GAP_B)]
    a = _doc(ms_a, [("x", "", ["a0"]), ("y", "", ["a1", "a2"])])
    b = _doc(ms_b, [("u", "", ["b0"]), ("v", "", ["b1", "b2"])])
    proc = agreement.compare_document(a, b, "procedure")
    exact = agreement.compare_document(a, b, "exact")
    assert proc.entities["a"] == {"x": ["no_match", None], "y": ["no_match", None]}
    assert exact.entities["a"] == {"x": ["complete", "u"], "y": ["complete", "v"]}
    diffs = agreement.differences(proc, exact)
    kinds = [(d["kind"], d["item"]) for d in diffs]
    assert ("mention_pair", ["a0", "b1"]) in kinds and ("mention_pair", ["a0", "b0"]) in kinds
    assert ("entity_a", "x") in kinds and ("entity_b", "v") in kinds
    total = agreement.sum_counts([proc, exact])
    assert total["mentions"]["exact"] == 0 and total["mentions"]["overlap"] == 5


@pytest.mark.parametrize("a,b,text,want", [
    ((4, 8), (0, 8), "THE EAST", "left: B+determiner; right: same"),
    ((0, 8), (0, 9), "THE EAST,", "left: same; right: B+punctuation"),
    ((0, 9), (0, 8), None, "left: same; right: A"),
    ((2, 6), (0, 4), None, "left: B; right: A"),
])
def test_edge_categories(a, b, text, want):
    assert agreement.edge_category((a,), (b,), text) == want


def test_solve_by_name_and_ilp_model():
    p = ere.span_pairs(GAP_A, GAP_B)
    assert ere.solve(p, "procedure").key == (2, 7)
    assert ere.solve(p).key == ere.solve(p, "ilp").key == ere.solve(p, "brute").key == (3, 4)
    model = ere.ilp_model(p)
    # 6 candidate pairs; a <= 1 row for each item with two or more candidates: A0, A1, A2, B1, B2
    assert model.A.shape == (5, 6)
    with pytest.raises(ValueError, match="unknown method"):
        ere.solve(p, "greedy")
