"""Hypothesis properties over random sparse instances (every kind, tied and continuous weights):
heuristic <= exact <= LP relaxation; exact == brute force; all backends agree; every alignment
passes check; and a hypothesis.target steering towards large greedy gaps."""

import pytest
from hypothesis import given, settings, target

from exactalign import bipartite as B
from exactalign.testing.strategies import bipartite_instances

TOL = 1e-7


@given(bipartite_instances(max_pairs=B.BRUTE_MAX_PAIRS))
def test_sandwich_and_brute_force(inst):
    exact = B.solve(inst, "exact")
    assert exact.proven_optimal and exact.bound == pytest.approx(exact.objective, abs=TOL)
    assert B.check(inst, exact.alignment) == pytest.approx(exact.objective)
    brute_value, brute_al = B.brute_force(inst)
    assert exact.objective == pytest.approx(brute_value, abs=TOL)
    assert B.check(inst, brute_al) == pytest.approx(brute_value, abs=TOL)
    assert exact.objective <= B.lp_bound(inst) + TOL
    for name in B.HEURISTICS:
        h = B.solve(inst, name)
        assert B.check(inst, h.alignment) == pytest.approx(h.objective)
        assert h.objective <= exact.objective + TOL, name
    gap = exact.objective - B.solve(inst, "greedy").objective
    target(gap, label="exact - greedy")
    target(exact.objective - B.solve(inst, "pilot2015").objective, label="exact - pilot2015")


@given(bipartite_instances(max_ref=12, max_pred=12, kinds=("1:1",)))
def test_assignment_equals_ilp(inst):
    exact = B.solve(inst, "exact")
    for decompose in (True, False):
        ilp = B.solve(inst, "ilp", decompose=decompose)
        assert ilp.proven_optimal
        assert ilp.objective == pytest.approx(exact.objective, abs=TOL)
        assert ilp.bound == pytest.approx(exact.objective, abs=1e-6)


@given(bipartite_instances(max_ref=8, max_pred=8))
def test_highs_and_scipy_agree(inst):
    a = B.solve(inst, "ilp", backend="highs")
    b = B.solve(inst, "ilp", backend="scipy")
    assert a.proven_optimal and b.proven_optimal
    assert a.objective == pytest.approx(b.objective, abs=TOL)
    assert a.objective == pytest.approx(B.solve(inst, "exact").objective, abs=TOL)


@settings(max_examples=15)
@given(bipartite_instances(max_ref=5, max_pred=5, max_pairs=12))
def test_pulp_and_brute_backends_agree(inst):
    exact = B.solve(inst, "exact").objective
    for backend in ("pulp", "brute"):
        r = B.solve(inst, "ilp", backend=backend, decompose=False)
        assert r.proven_optimal, backend
        assert r.objective == pytest.approx(exact, abs=TOL), backend


@given(bipartite_instances(max_ref=10, max_pred=10))
def test_certificate_bounds_every_alignment_and_proves_exact(inst):
    exact = B.solve(inst, "exact")
    assert exact.bound == pytest.approx(exact.objective, abs=TOL)
    for name in B.HEURISTICS:
        al = B.solve(inst, name).alignment
        # every certificate is that of an optimum: a heuristic's bound is the optimum itself
        assert B.certify(inst, al).bound == pytest.approx(exact.objective, abs=TOL)


@given(bipartite_instances(max_pairs=B.UNIQUE_MAX_PAIRS, kinds=("1:1",)))
def test_unique_optimum_shortcut_is_the_assignment_solvers_alignment(inst):
    """Tiny 1:1 components skip scipy when their optimum is unique; then the alignment (not
    only its weight) is linear_sum_assignment's, and on a tie the shortcut declines."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    edges = B._unique_optimum_edges(inst)
    if inst.num_pairs == 0:
        return
    ri, ci = linear_sum_assignment(inst.to_dense(), maximize=True)
    lsa = inst.pair_index(np.stack([ri, ci], axis=1)[inst.to_dense()[ri, ci] != 0])
    best, _ = B.brute_force(inst)
    if edges is None:   # declined: some other alignment is (nearly) as heavy
        return
    assert float(inst.weights[edges].sum()) == pytest.approx(best, abs=TOL)
    assert sorted(edges.tolist()) == sorted(lsa.tolist())


def test_unique_optimum_shortcut_declines_ties():
    import numpy as np

    tied = B.BipartiteInstance(2, 2, np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]),
                               np.array([1.0, 1.0, 1.0, 1.0]))
    assert B._unique_optimum_edges(tied) is None
    clear = B.BipartiteInstance(2, 2, np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]),
                                np.array([3.0, 1.0, 1.0, 3.0]))
    assert sorted(B._unique_optimum_edges(clear).tolist()) == [0, 3]


@given(bipartite_instances(max_ref=40, max_pred=40))
def test_propagated_components_equal_scipys(inst):
    """Small shallow graphs get their component labels without scipy; they are scipy's."""
    import numpy as np
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    from exactalign.core import decompose

    n = inst.n_ref + inst.n_pred
    u, v = inst.rows.astype(np.int64), inst.cols.astype(np.int64) + inst.n_ref
    g = sp.coo_array((np.ones(len(u), dtype=np.int8), (u, v)), shape=(n, n))
    count, labels = connected_components(g, directed=False)
    for rounds in (0, 1, 2, decompose.PROPAGATION_ROUNDS, n + 1):
        found = decompose._propagated_labels(n, u, v, rounds)
        if found is not None:
            assert found[0] == count
            assert found[1].tolist() == labels.tolist()
    assert decompose._propagated_labels(n, u, v, n + 1) is not None   # n rounds always settle


def test_propagation_settles_a_long_path_in_few_rounds():
    """Pointer jumping: a path of 1,000 nodes in shuffled order (999 rounds of plain minimum
    propagation) settles within PROPAGATION_ROUNDS, with scipy's labels."""
    import numpy as np

    from exactalign.core import decompose

    order = np.random.default_rng(7).permutation(1000)
    u, v = order[:-1], order[1:]
    count, labels = decompose._propagated_labels(1000, u, v, decompose.PROPAGATION_ROUNDS)
    assert count == 1 and set(labels.tolist()) == {0}
    two = decompose._propagated_labels(1002, u, v, decompose.PROPAGATION_ROUNDS)
    assert two[0] == 3 and two[1].tolist() == [0] * 1000 + [1, 2]


@settings(max_examples=60)
@given(bipartite_instances(max_ref=12, max_pred=12, kinds=("1:1",)))
def test_the_assignment_lp_vertex_is_a_maximum_matching(inst):
    """The LP path returns a matching (checked) as heavy as linear_sum_assignment's."""
    from scipy.optimize import linear_sum_assignment

    edges = B._lp_assignment_edges(inst)
    assert edges is not None
    al = B._alignment_from_edges(inst, edges)
    W = inst.to_dense()
    ri, ci = linear_sum_assignment(W, maximize=True)
    assert B.check(inst, al) == pytest.approx(float(W[ri, ci].sum()), abs=TOL)


def _tied_blocks(k: int):
    """``k`` disjoint 4 x 4 blocks of equal weights: each a component of 16 pairs (past the
    enumeration shortcut) with tied optima of weight 4."""
    import numpy as np

    r, c = np.meshgrid(np.arange(4), np.arange(4), indexing="ij")
    rows = np.concatenate([r.ravel() + 4 * b for b in range(k)])
    cols = np.concatenate([c.ravel() + 4 * b for b in range(k)])
    return B.BipartiteInstance(4 * k, 4 * k, rows, cols, np.ones(len(rows)))


def test_hard_components_share_one_lp_and_skip_scipy(monkeypatch):
    calls = []
    real = B._lp_assignment_edges
    monkeypatch.setattr(B, "_lp_assignment_edges", lambda sub: calls.append(sub) or real(sub))
    monkeypatch.setattr(B, "_general_assignment_edges", lambda sub: pytest.fail("scipy path"))
    r = B.solve(_tied_blocks(3), "exact", any_optimum=True)
    assert r.proven_optimal and r.objective == 12 and r.components == 3
    assert len(calls) == 1 and calls[0].num_pairs == 48


def test_by_default_the_alignment_is_linear_sum_assignments(monkeypatch):
    """Without any_optimum the tie-breaking stays scipy's (the experiments count alignment
    changes against it): no LP, and the alignment is the one of linear_sum_assignment."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    inst = _tied_blocks(2)
    monkeypatch.setattr(B, "_lp_assignment_edges", lambda sub: pytest.fail("LP path"))
    al = B.solve(inst, "exact").alignment
    ri, ci = linear_sum_assignment(inst.to_dense(), maximize=True)
    assert al.tolist() == np.stack([ri, ci], axis=1).tolist()
    assert B.exact_special(inst).tolist() == inst.pair_index(al).tolist()


def test_past_the_lp_limit_off_a_vertex_or_on_an_error_the_general_path_answers(monkeypatch):
    import numpy as np

    from exactalign.core.errors import BackendError

    inst = _tied_blocks(3)
    monkeypatch.setattr(B, "LP_MAX_PAIRS", 40)  # 48 pairs in all: one by one, by scipy
    assert B.solve(inst, "exact", any_optimum=True).objective == 12
    monkeypatch.setattr(B, "LP_MAX_PAIRS", 2_000)

    class Fractional:  # what a solver off a vertex would return
        status, x = B.Status.OPTIMAL, np.full(48, 0.25)

    monkeypatch.setattr(B, "solve_model", lambda *a, **k: Fractional)
    assert B._lp_assignment_edges(inst) is None
    r = B.solve(inst, "exact", any_optimum=True)
    assert r.proven_optimal and r.objective == 12

    def failing(*a, **k):
        raise BackendError("HiGHS is not there")

    monkeypatch.setattr(B, "solve_model", failing)
    assert B._lp_assignment_edges(inst) is None
    assert B.solve(inst, "exact", any_optimum=True).objective == 12
