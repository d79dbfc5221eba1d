"""Hypothesis properties of monotone matching: the DP equals the ILP (every formulation) and brute
force on sequences; on DAGs the ILP equals brute force, heuristic <= exact <= LP bound, the
compact LP is never weaker than the pairwise one; backends agree; check accepts every result."""

import numpy as np
import pytest
from hypothesis import assume, given, settings, target
from hypothesis import strategies as st

from exactalign.problems import monotone as M

TOL = 1e-7
WEIGHTS = st.sampled_from([0.0, 0.0, 0.25, 0.5, 0.5, 1.0, 0.3, 0.75])


@st.composite
def weights(draw, max_n=5, max_m=5):
    n = draw(st.integers(0, max_n))
    m = draw(st.integers(0, max_m))
    return np.array(draw(st.lists(WEIGHTS, min_size=n * m, max_size=n * m)),
                    dtype=float).reshape(n, m)


@st.composite
def dag_edges(draw, n):
    """Edges of a random DAG on ``n`` items (forward edges of a random permutation)."""
    perm = draw(st.permutations(range(n)))
    cand = [(perm[i], perm[j]) for i in range(n) for j in range(i + 1, n)]
    keep = draw(st.lists(st.booleans(), min_size=len(cand), max_size=len(cand)))
    return [e for e, k in zip(cand, keep, strict=True) if k]


@st.composite
def sequence_instances(draw, max_n=5, max_m=5):
    W = draw(weights(max_n, max_m))
    kind = draw(st.sampled_from(tuple(M.KINDS)))
    return M.MonotoneInstance.sequences(W, kind, draw(st.booleans()))


@st.composite
def dag_instances(draw, max_n=5, max_m=5):
    W = draw(weights(max_n, max_m))
    kind = draw(st.sampled_from(tuple(M.KINDS)))
    ea, eb = draw(dag_edges(W.shape[0])), draw(dag_edges(W.shape[1]))
    return M.MonotoneInstance.dags(W, ea, eb, kind, draw(st.booleans()))


@given(sequence_instances())
def test_dp_equals_ilp_and_brute_on_sequences(inst):
    dp = M.solve(inst, "dp")
    assert dp.proven_optimal and M.check(inst, dp.alignment) == pytest.approx(dp.objective)
    brute, _ = M.brute_force(inst)
    assert dp.objective == pytest.approx(brute, abs=TOL)
    for f in M.FORMULATIONS:
        ilp = M.solve(inst, "ilp", formulation=f)
        assert ilp.proven_optimal, f
        assert ilp.objective == pytest.approx(dp.objective, abs=TOL), f
    assert M.solve(inst, "linext").objective == pytest.approx(dp.objective, abs=TOL)
    if inst.kind == "1:1" and not inst.strict:  # perfect conflict graph: integral LP
        assert M.lp_bound(inst) == pytest.approx(dp.objective, abs=1e-6)


@given(dag_instances())
def test_dag_exact_brute_heuristics_and_bounds(inst):
    exact = M.solve(inst, "exact")
    assert exact.proven_optimal and exact.details["formulation"] == "compact"
    brute, brute_al = M.brute_force(inst)
    assert M.check(inst, brute_al) == pytest.approx(brute)
    assert exact.objective == pytest.approx(brute, abs=TOL)
    lp = {f: M.lp_bound(inst, f) for f in M.FORMULATIONS}
    assert lp["compact"] == pytest.approx(lp["grid"], abs=1e-6)
    assert exact.objective <= lp["compact"] + TOL <= lp["pairwise"] + 2 * TOL
    for name in M.HEURISTICS:
        h = M.solve(inst, name)
        assert M.check(inst, h.alignment) == pytest.approx(h.objective)
        assert h.objective <= exact.objective + TOL, name
    assert M.solve(inst, "local").objective >= M.solve(inst, "greedy").objective - TOL
    target(exact.objective - M.solve(inst, "greedy").objective, label="exact - greedy")
    target(exact.objective - M.solve(inst, "linext").objective, label="exact - linext")


@given(dag_instances(max_n=6, max_m=6))
def test_formulations_agree_on_dags(inst):
    values = {f: M.solve(inst, "ilp", formulation=f) for f in M.FORMULATIONS}
    assert all(r.proven_optimal for r in values.values())
    ref = values["pairwise"].objective
    for f, r in values.items():
        assert r.objective == pytest.approx(ref, abs=TOL), f


@settings(max_examples=15)
@given(dag_instances(max_n=4, max_m=4))
def test_backends_agree(inst):
    exact = M.solve(inst, "exact").objective
    for backend in ("scipy", "pulp"):
        r = M.solve(inst, "ilp", backend=backend)
        assert r.proven_optimal, backend
        assert r.objective == pytest.approx(exact, abs=TOL), backend
    if inst.num_pairs <= 12:
        r = M.solve(inst, "ilp", formulation="pairwise", backend="brute")
        assert r.objective == pytest.approx(exact, abs=TOL)


@settings(max_examples=30)
@given(sequence_instances(max_n=12, max_m=12))
def test_dp_equals_compact_ilp_on_longer_sequences(inst):
    dp = M.solve(inst, "dp")
    ilp = M.solve(inst, "ilp")
    assert ilp.proven_optimal and ilp.objective == pytest.approx(dp.objective, abs=TOL)
    assert M.solve(inst, "greedy").objective <= dp.objective + TOL
    if inst.kind == "1:1" and not inst.strict:
        assert M.lp_bound(inst) == pytest.approx(dp.objective, abs=1e-6)


@st.composite
def total_order_instances(draw, max_n=7, max_m=7):
    """Two total orders, given as sequences or as chains over a random permutation."""
    W = draw(weights(max_n, max_m))
    kind = draw(st.sampled_from(tuple(M.KINDS)))
    strict = draw(st.booleans())
    if draw(st.booleans()):
        return M.MonotoneInstance.sequences(W, kind, strict)

    def chain(n):
        perm = draw(st.permutations(range(n)))
        return [(perm[k], perm[k + 1]) for k in range(n - 1)]

    return M.MonotoneInstance.dags(W, chain(W.shape[0]), chain(W.shape[1]), kind, strict)


@given(total_order_instances(), st.randoms(use_true_random=False))
@settings(max_examples=300, deadline=None)
def test_sequence_filter_keeps_what_the_pairwise_filter_keeps(inst, rnd):
    """The O(log k) filter on total orders keeps exactly the pairs the pairwise conflict check
    keeps, for any order of the candidates (greedy's, or a shuffled one)."""
    assume(inst.is_sequence)  # an order of 0 or 1 items given by edges is not marked total
    order = list(range(inst.num_pairs))
    rnd.shuffle(order)
    for o in (order, M._score_order(inst)):
        assert M._filter_sequences(inst, o) == M._filter_pairwise(inst, o)
