"""Point algebra, closure, consistency, maximum consistent subsets, and the te3 Timegraph."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactalign.core.errors import InfeasibleAlignmentError
from exactalign.metrics.temporal import Timegraph, te3_graph
from exactalign.problems import temporal as tp

LABELS = ("BEFORE", "AFTER", "IBEFORE", "IAFTER", "BEGINS", "BEGUN_BY", "ENDS", "ENDED_BY",
          "INCLUDES", "IS_INCLUDED", "SIMULTANEOUS", "IDENTITY", "DURING", "VAGUE")


def inst(*links):
    return tp.TemporalInstance.from_links(links)


@pytest.mark.parametrize("rel", [r for r in LABELS if r not in ("VAGUE",)])
def test_inverse_has_the_same_points(rel):
    a = tp.Closure(inst(("x", "y", rel)))
    b = tp.Closure(tp.TemporalInstance.from_links([("y", "x", tp.INVERSE[rel])],
                                                  nodes=["x", "y"]))
    assert a.consistent and b.consistent
    canon = tp.canonical_relation(rel)
    assert a.entails(0, 1, canon) and b.entails(0, 1, canon)
    assert a.entails(1, 0, tp.INVERSE[canon])


def test_transitivity_and_unknown_labels():
    cl = tp.Closure(inst(("a", "b", "BEFORE"), ("b", "c", "INCLUDES"), ("c", "d", "VAGUE")))
    assert cl.entails(0, 2, "BEFORE") and not cl.entails(0, 2, "AFTER")
    assert cl.point_rel(1, 2) == "<" and cl.point_rel(4, 6) is None
    assert not cl.entails(2, 3, "VAGUE")                  # unknown labels entail nothing
    eq = tp.Closure(inst(("a", "b", "IBEFORE"), ("b", "c", "IBEFORE")))
    assert eq.point_rel(1, 2) == "=" and eq.entails(0, 2, "BEFORE")


def test_witness_cycle_is_inconsistent_on_its_own():
    i = inst(("a", "b", "BEFORE"), ("c", "d", "SIMULTANEOUS"), ("b", "c", "BEFORE"),
             ("c", "a", "INCLUDES"), ("a", "a", "BEFORE"))
    cyc = tp.find_inconsistency(i)
    assert cyc is not None
    mask = np.zeros(i.n_links, bool)
    mask[cyc] = True
    assert tp.find_inconsistency(i, mask) is not None
    with pytest.raises(InfeasibleAlignmentError):
        tp.check(i, np.arange(i.n_links))
    res = tp.solve(i)
    assert res.proven_optimal and res.objective == 3.0        # drop the self link and one more


@st.composite
def instances(draw):
    n = draw(st.integers(2, 5))
    m = draw(st.integers(1, 7))
    links = [(f"n{draw(st.integers(0, n - 1))}", f"n{draw(st.integers(0, n - 1))}",
              draw(st.sampled_from(LABELS)), float(draw(st.integers(1, 3))))
             for _ in range(m)]
    return tp.TemporalInstance.from_links(links)


@settings(max_examples=30)
@given(instances())
def test_exact_methods_agree_with_brute_force_and_bound_heuristics(i):
    brute = tp.solve(i, "brute")
    for method in ("ilp-cuts", "ilp-rank"):
        res = tp.solve(i, method)
        assert res.proven_optimal and res.objective == pytest.approx(brute.objective)
        assert tp.check(i, res.alignment) == pytest.approx(res.objective)
    for name in tp.HEURISTICS:
        h = tp.solve(i, name)
        assert h.objective <= brute.objective + 1e-9
        assert tp.check(i, h.alignment) == pytest.approx(h.objective)


@settings(max_examples=20)
@given(instances())
def test_backends_agree(i):
    a = tp.solve(i, "ilp-rank", backend="highs")
    b = tp.solve(i, "ilp-rank", backend="scipy")
    assert a.objective == pytest.approx(b.objective)


def _reduction_by_closures(i, kept, order):
    """The reference: rebuild the whole closure without each visited link."""
    mask = np.asarray(kept, bool).copy()
    for k in order:
        if mask[k] and tp.is_known(i.rel[k]):
            mask[k] = False
            if not tp.Closure(i, mask).entails(int(i.src[k]), int(i.dst[k]), i.rel[k]):
                mask[k] = True
    return mask


@settings(max_examples=60)
@given(instances(), st.randoms(use_true_random=False))
def test_transitive_reduction_equals_closure_per_link(i, rnd):
    kept = np.zeros(i.n_links, bool)
    kept[np.asarray(tp.solve(i, "greedy-order").alignment, dtype=np.int64)] = True
    order = [int(k) for k in np.flatnonzero(kept)]
    rnd.shuffle(order)
    red = tp.transitive_reduction(i, kept, order)
    assert red.tolist() == _reduction_by_closures(i, kept, order).tolist()
    assert not (red & ~kept).any()
    full, reduced = tp.Closure(i, kept), tp.Closure(i, red)
    for k in np.flatnonzero(kept):  # the reduction keeps every entailment of the kept links
        x, y, rel = int(i.src[k]), int(i.dst[k]), i.rel[k]
        assert reduced.entails(x, y, rel) == full.entails(x, y, rel)
    for k in np.flatnonzero(red):   # and no remaining link follows from the others
        rest = red.copy()
        rest[k] = False
        assert not tp.Closure(i, rest).entails(int(i.src[k]), int(i.dst[k]), i.rel[k])


def test_transitive_reduction_depends_on_the_order():
    chain = inst(("a", "b", "BEFORE"), ("b", "c", "BEFORE"), ("a", "c", "BEFORE"))
    for order in ([0, 1, 2], [2, 0, 1]):  # only a < c follows from the others
        assert tp.transitive_reduction(chain, np.ones(3, bool), order).tolist() == [
            True, True, False]
    # three equalities: whichever is visited first follows from the other two and goes
    eq = inst(("a", "b", "SIMULTANEOUS"), ("b", "c", "IDENTITY"), ("a", "c", "SIMULTANEOUS"))
    assert tp.transitive_reduction(eq, np.ones(3, bool), [0, 1, 2]).tolist() == [
        False, True, True]
    assert tp.transitive_reduction(eq, np.ones(3, bool), [2, 1, 0]).tolist() == [
        True, True, False]
    # only visited links can go
    assert tp.transitive_reduction(chain, np.ones(3, bool), [0, 1]).tolist() == [True] * 3


def test_greedy_order_is_suboptimal_where_file_order_misleads():
    # the first link contradicts each of the next two, which are consistent together
    i = inst(("a", "b", "SIMULTANEOUS"), ("a", "b", "BEFORE"), ("b", "a", "AFTER"))
    assert tp.solve(i, "greedy-order").objective == 1.0
    assert tp.solve(i).objective == 2.0 and tp.solve(i, "greedy-cycles").objective == 2.0


def test_rank_model_is_sparse_and_sized():
    i = inst(("a", "b", "BEFORE"), ("b", "c", "SIMULTANEOUS"))
    m = tp.ilp_rank_model(i)
    assert m.num_vars == 2 + 6 and m.num_rows == 3 + 1 + 2 * 2   # hard + BEFORE + 2 equalities


def test_te3_timegraph_entails_and_sets_aside():
    g = te3_graph([("a", "b", "BEFORE"), ("b", "c", "BEFORE"), ("a", "c", "BEFORE"),
                   ("c", "a", "BEFORE"), ("a", "c", "BEGINS"), ("x", "x", "BEFORE"),
                   ("a", "d", "VAGUE")])
    assert g.redundant == [("a", "c", "BEFORE")]
    # contradiction, BEGINS between known intervals (toolkit defect), self link, unknown label
    assert g.set_aside == [("c", "a", "BEFORE"), ("a", "c", "BEGINS"), ("x", "x", "BEFORE"),
                           ("a", "d", "VAGUE")]
    assert g.final[:2] == [("a", "b", "BEFORE"), ("b", "c", "BEFORE")]
    assert g.graph.entails("a", "c", "BEFORE") and not g.graph.entails("a", "c", "AFTER")


def test_te3_timegraph_begins_never_verified():
    tg = Timegraph()
    tg.insert("a", "b", "BEGINS")            # b new: placed, not checked
    assert tg.query("a_s", "b_s") == "=" and tg.query("a_e", "b_e") == "<"
    assert not tg.entails("a", "b", "BEGINS") and tg.entails("b", "a", "BEGUN_BY")


def test_te3_timegraph_prepend_defect():
    # two intervals put before a chain head in turn: the toolkit gives both starts the pseudo
    # time -1000, so they read as equal although nothing says so
    tg = Timegraph()
    tg.insert("c", "d", "BEFORE")
    tg.insert("b", "c", "BEFORE")
    tg.insert("a", "b", "BEFORE")
    assert tg.query("a_s", "b_s") in ("=", ">")


RELABELS = ("BEFORE", "AFTER", "INCLUDES", "SIMULTANEOUS", "VAGUE")


@st.composite
def relabel_instances(draw):
    n = draw(st.integers(3, 4))
    pairs = sorted({(a, b) for a in range(n) for b in range(a + 1, n)
                    if draw(st.booleans())} | {(0, 1), (1, 2)})
    scores = np.array([[draw(st.sampled_from([np.nan, 0.1, 0.5, 0.9])) for _ in RELABELS]
                       for _ in pairs])
    return tp.RelabelInstance(tuple(f"n{i}" for i in range(n)),
                              np.array([a for a, _ in pairs]), np.array([b for _, b in pairs]),
                              RELABELS, scores)


@settings(max_examples=15)
@given(relabel_instances())
def test_relabel_exact_is_brute_force_and_bounds_the_others(i):
    best = tp.check_labels(i, tp.brute_relabel(i))
    for method in ("exact", "endpoint"):
        res = tp.relabel(i, method)
        assert res.proven_optimal and res.objective == pytest.approx(best)
    assert tp.relabel(i, "greedy").objective <= best + 1e-9
    assert tp.relabel(i, "triangle").objective >= best - 1e-9   # a relaxation


def test_triangle_ilp_leaves_a_four_cycle_inconsistent():
    scores = np.array([[0.9, 0.1, np.nan, np.nan, 0.2]] * 4)
    i = tp.RelabelInstance(("a", "b", "c", "d"), np.array([0, 1, 2, 3]), np.array([1, 2, 3, 0]),
                           RELABELS, scores)
    tri, exact = tp.relabel(i, "triangle"), tp.relabel(i, "exact")
    assert tri.objective == pytest.approx(3.6) and tri.details["consistent"] is False
    assert exact.objective == pytest.approx(2.9)              # one pair falls back to VAGUE
