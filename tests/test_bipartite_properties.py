"""Hypothesis properties over random sparse instances (every kind, tied and continuous weights):
heuristic <= exact <= LP relaxation; exact == brute force; all backends agree; every alignment
passes check; and a hypothesis.target steering towards large greedy gaps."""

import numpy as np
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


@given(bipartite_instances(max_ref=12, max_pred=12, kinds=("1:1",)))
def test_the_sparse_path_equals_the_dense_one(inst):
    """Both assignment paths solve the whole instance: the sparse matching (forced by a zero
    dense limit) reaches linear_sum_assignment's optimum, and the certificate proves it."""
    dense = B.solve(inst, "exact")
    saved = B.DENSE_CELLS
    try:
        B.DENSE_CELLS = 0
        sparse = B.solve(inst, "exact")
    finally:
        B.DENSE_CELLS = saved
    assert sparse.proven_optimal and dense.proven_optimal
    assert sparse.objective == pytest.approx(dense.objective, abs=TOL)
    assert sparse.components == dense.components == int(inst.num_pairs > 0)


def _tied_blocks(k: int):
    """``k`` disjoint 4 x 4 blocks of equal weights: ``k`` connected components of 16 pairs
    with tied optima of weight 4 each."""
    import numpy as np

    r, c = np.meshgrid(np.arange(4), np.arange(4), indexing="ij")
    rows = np.concatenate([r.ravel() + 4 * b for b in range(k)])
    cols = np.concatenate([c.ravel() + 4 * b for b in range(k)])
    return B.BipartiteInstance(4 * k, 4 * k, rows, cols, np.ones(len(rows)))


def test_the_alignment_is_linear_sum_assignments_on_the_whole_instance():
    """One assignment call on the whole instance, components or not: on tied optima the
    alignment is the one linear_sum_assignment gives for the whole dense matrix (the
    experiments count heuristic alignments' distance from it), whatever ``decompose`` says."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    inst = _tied_blocks(3)
    ri, ci = linear_sum_assignment(inst.to_dense(), maximize=True)
    for decompose in (True, False):
        r = B.solve(inst, "exact", decompose=decompose)
        assert r.proven_optimal and r.objective == 12 and r.components == 1
        assert r.alignment.tolist() == np.stack([ri, ci], axis=1).tolist()
    assert B.exact_special(inst).tolist() == inst.pair_index(r.alignment).tolist()
    assert B.solve(inst, "ilp").components == 3  # the ILP still solves per component


@given(bipartite_instances(max_pairs=B.BRUTE_MAX_PAIRS, kinds=("1:1",)))
def test_exchange_test_never_flags_an_optimal_alignment(inst):
    # _improvable is a proof of non-optimality: when it flags the greedy alignment, brute force
    # finds a better one; the exact path's two routes both reach the optimum.
    g = B.greedy(inst)
    best, _ = B.brute_force(inst)
    if B._improvable(inst, g)[0]:
        assert B.check(inst, g) < best - 1e-12
    exact = B.solve(inst, "exact")
    assert exact.details["algorithm"] in ("certified greedy", "assignment")
    assert exact.objective == pytest.approx(best, abs=TOL)
    if exact.details["algorithm"] == "certified greedy":
        assert B.check(inst, g) == exact.objective


@given(bipartite_instances(max_ref=14, max_pred=14, kinds=("1:1",)))
def test_plain_and_vectorised_residual_passes_agree(inst):
    # The two implementations of the residual pass: the same distances to the bit and the same
    # settled answer, on optimal and greedy alignments, with enough rounds and with too few.
    for al in (B.solve(inst, "exact").alignment, B.greedy(inst), B.pilot2015(inst)):
        a = np.asarray(al, dtype=np.int64).reshape(-1, 2)
        for limit in (1, 3, inst.n_ref + inst.n_pred + 3):
            small = B._small_distances(inst, a, limit)
            d, settled = B._block_distances(inst, a, None, None, np.array([limit]))
            assert (small is not None) == bool(settled[0])
            if small is not None:
                assert np.array_equal(small, d)
