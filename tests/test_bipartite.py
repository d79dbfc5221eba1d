"""Bipartite matching: hand-derived values, the published heuristics' tie-breaking, validation."""

import numpy as np
import pytest
import scipy.sparse as sp

from exactalign import InfeasibleAlignmentError, InputError, ModelTooLargeError, Status
from exactalign import bipartite as B
from exactalign.similarity import dice_matrix


def counterexample():
    # Reference spans {t1,t2}, {t3,t4,t5}; predicted {t2,t3}, {t1,t2}.
    return B.BipartiteInstance.from_sparse(
        dice_matrix([{1, 2}, {3, 4, 5}], [{2, 3}, {1, 2}]))


def test_dice_values_are_hand_derived():
    W = counterexample().to_dense()
    # Dice = 2|R∩P| / (|R| + |P|)
    assert W == pytest.approx(np.array([[2 * 1 / (2 + 2), 2 * 2 / (2 + 2)],
                                        [2 * 1 / (3 + 2), 0.0]]))


def test_regression_pilot_greedy_counterexample():
    """Issue #2: the pilot-study greedy gets 1.0, the optimum is 1.4."""
    inst = counterexample()
    pilot = B.solve(inst, "pilot2015")
    assert pilot.objective == pytest.approx(1.0) and pilot.status is Status.FEASIBLE
    assert pilot.bound is None and not pilot.proven_optimal
    # Its full mapping: reference 0 collected both predictions (pred 1 first), reference 1 none.
    assert B.pilot2015_mapping(inst) == [[1, 0], []]
    for method in ("exact", "ilp", "brute"):
        r = B.solve(inst, method)
        assert r.proven_optimal and r.objective == pytest.approx(1 + 2 / 5)
        assert r.alignment.tolist() == [[0, 1], [1, 0]]
    # The KBP global greedy happens to find the optimum here.
    assert B.solve(inst, "greedy").objective == pytest.approx(1.4)


def tie_triangle():
    # (r0,p0), (r0,p1), (r1,p0), all weight 1: taking the lowest-index pair first loses.
    return B.BipartiteInstance.from_dense([[1.0, 1.0], [1.0, 0.0]])


def test_greedy_ties_go_to_lowest_predicted_then_reference_index():
    inst = tie_triangle()
    g = B.solve(inst, "greedy")
    assert g.alignment.tolist() == [[0, 0]] and g.objective == 1.0
    assert B.solve(inst, "exact").objective == 2.0


def test_pilot_ties_pred_used_once_by_lowest_reference():
    # Both references tie on predicted 0: EvmEval pops (-1, p0, r0) first.
    inst = B.BipartiteInstance.from_dense([[1.0], [1.0]])
    assert B.pilot2015_mapping(inst) == [[0], []]
    assert B.pilot2015(inst).tolist() == [[0, 0]]


def test_ref_order_takes_best_free_in_reference_order():
    # r0 takes p1 (0.9), r1's best p1 is taken so it takes p0 (0.5), r2 ties p0/p2 -> p2.
    W = [[0.2, 0.9, 0.0],
         [0.5, 0.95, 0.0],
         [0.7, 0.0, 0.7]]
    inst = B.BipartiteInstance.from_dense(W)
    assert B.ref_order(inst).tolist() == [[0, 1], [1, 0], [2, 2]]
    # Global greedy starts from the best pair (r1, p1) 0.95; (r0, p1) is blocked; the 0.7 tie
    # (r2, p0) vs (r2, p2) goes to the lower predicted index p0, which then blocks (r0, p0).
    assert B.greedy(inst).tolist() == [[1, 1], [2, 0]]
    assert B.solve(inst, "greedy").objective == pytest.approx(0.95 + 0.7)
    assert B.solve(inst, "exact").objective == pytest.approx(0.9 + 0.5 + 0.7)


def test_ref_order_tie_lowest_predicted():
    inst = B.BipartiteInstance.from_dense([[0.5, 0.5, 0.5]])
    assert B.ref_order(inst).tolist() == [[0, 0]]


@pytest.mark.parametrize("kind, expected, alignment", [
    ("1:1", 1.0 + 0.4, [[0, 1], [1, 0]]),
    ("1:N", 1.0 + 0.5, [[0, 0], [0, 1]]),      # each prediction takes its best reference
    ("N:1", 1.0 + 0.4, [[0, 1], [1, 0]]),      # each reference takes its best prediction
    ("N:N", 0.5 + 1.0 + 0.4, [[0, 0], [0, 1], [1, 0]]),
])
def test_kinds_hand_derived(kind, expected, alignment):
    inst = counterexample().with_kind(kind)
    for method in ("exact", "ilp", "brute"):
        r = B.solve(inst, method)
        assert r.objective == pytest.approx(expected), method
        assert r.proven_optimal
    assert B.solve(inst, "exact").alignment.tolist() == alignment


def test_greedy_respects_kind_capacities():
    inst = counterexample().with_kind("1:N")
    # 1:N greedy: prediction 1 -> r0 (1.0); prediction 0 -> r0 (0.5) is allowed (refs collect).
    assert B.greedy(inst).tolist() == [[0, 0], [0, 1]]


@pytest.mark.parametrize("alignment, phrase", [
    ([[0, 0], [0, 1]], "reference item 0 is matched 2 times; kind 1:1 allows 1"),
    ([[1, 1]], r"pair \(1, 1\) is not a candidate"),
    ([[2, 0]], r"pair \(2, 0\) is outside the 2 x 2 instance"),
    ([[0, 1], [0, 1]], "repeats a pair"),
    ([[0, 1, 2]], "a \\(k, 2\\) array"),
])
def test_check_rejects_with_precise_messages(alignment, phrase):
    with pytest.raises(InfeasibleAlignmentError, match=phrase):
        B.check(counterexample(), alignment)


def test_check_recomputes_objective():
    assert B.check(counterexample(), [[0, 1], [1, 0]]) == pytest.approx(1.4)
    assert B.check(counterexample(), np.zeros((0, 2))) == 0.0


@pytest.mark.parametrize("args, phrase", [
    ((2, 2, [0], [0], [-0.5]), "must be non-negative"),
    ((2, 2, [0], [0], [np.nan]), "must be finite"),
    ((2, 2, [0], [2], [0.5]), r"pair \(0, 2\) is outside the 2 x 2 instance"),
    ((2, 2, [0, 0], [1, 1], [0.5, 0.2]), r"pair \(0, 1\) is given twice"),
    ((2, 2, [0], [0, 1], [0.5]), "differ in length"),
])
def test_instance_validation(args, phrase):
    with pytest.raises(InputError, match=phrase):
        B.BipartiteInstance(*args)


def test_unknown_kind_and_method():
    with pytest.raises(InputError, match="unknown matching kind '2:2'"):
        B.BipartiteInstance(1, 1, [0], [0], [1.0], kind="2:2")
    with pytest.raises(ValueError, match="unknown method 'hungarian'"):
        B.solve(counterexample(), "hungarian")


def test_zero_weights_are_not_candidates():
    inst = B.BipartiteInstance(2, 2, [0, 1], [0, 1], [0.0, 0.3])
    assert inst.num_pairs == 1 and inst.pair_index([[0, 0], [1, 1]]).tolist() == [-1, 0]


def test_empty_instances():
    for inst in (B.BipartiteInstance(0, 0, [], [], []), B.BipartiteInstance(3, 2, [], [], [])):
        for method in B.METHODS:
            r = B.solve(inst, method)
            assert r.objective == 0.0 and r.alignment.shape == (0, 2)


def test_brute_force_refuses_large():
    inst = B.BipartiteInstance.from_dense(np.ones((5, 5)))
    with pytest.raises(ModelTooLargeError, match="at most 20 candidate pairs; this instance has 25"):
        B.brute_force(inst)


def test_components_are_solved_separately_and_merged():
    # Two disjoint blocks plus an isolated reference.
    W = np.zeros((5, 4))
    W[0:2, 0:2] = [[1.0, 1.0], [1.0, 0.0]]
    W[2:4, 2:4] = [[0.3, 0.6], [0.6, 0.0]]
    inst = B.BipartiteInstance.from_dense(W)
    for method in ("exact", "ilp"):
        r = B.solve(inst, method)
        # the ILP solves the two blocks apart; the assignment takes the whole instance at once
        assert r.components == (2 if method == "ilp" else 1)
        assert r.objective == pytest.approx(2.0 + 1.2)
        assert r.proven_optimal
        assert B.solve(inst, method, decompose=False).objective == pytest.approx(3.2)


def test_sparse_assignment_path_matches_ilp(monkeypatch):
    monkeypatch.setattr(B, "DENSE_CELLS", 0)
    rng = np.random.default_rng(7)
    for _ in range(20):
        n1, n2 = rng.integers(2, 30, 2)
        W = rng.random((n1, n2)) * (rng.random((n1, n2)) < 0.2)
        inst = B.BipartiteInstance.from_dense(W)
        exact, ilp = B.solve(inst, "exact"), B.solve(inst, "ilp")
        assert exact.objective == pytest.approx(ilp.objective, abs=1e-9)


def test_ilp_time_limit_returns_incumbent_and_bound():
    rng = np.random.default_rng(0)
    inst = B.BipartiteInstance.from_sparse(sp.random(40, 40, density=0.2, random_state=rng))
    r = B.solve(inst, "ilp", time_limit=0.0)
    assert r.status is Status.TIME_LIMIT and not r.proven_optimal
    assert r.objective == pytest.approx(B.solve(inst, "greedy").objective)  # the warm start
    assert r.bound >= B.solve(inst, "exact").objective - 1e-9
    assert r.gap > 0


def test_ilp_model_is_sparse_and_drops_redundant_rows():
    inst = counterexample()
    m = B.ilp_model(inst)
    # Pairs (0,0), (0,1), (1,0): r0 and p0 have two candidates; r1 and p1 only one.
    assert m.num_vars == 3 and m.num_rows == 2 and m.A.nnz == 4
    assert B.ilp_model(inst.with_kind("N:N")).num_rows == 0


def test_lp_bound_and_trivial_bound():
    inst = counterexample()
    assert B.lp_bound(inst) == pytest.approx(1.4)  # 1:1 bipartite matching is TU
    assert B.trivial_bound(inst) == pytest.approx(min(1.0 + 0.4, 0.5 + 1.0))


def test_exact_is_proven_by_a_checkable_dual_certificate():
    inst = counterexample()
    r = B.solve(inst, "exact")
    assert r.details["proof"] == "dual certificate" and r.bound == pytest.approx(1.4)
    cert = B.certify(inst, r.alignment)
    # Re-check the certificate by hand: duals non-negative, every pair covered, sum = objective.
    assert (cert.u >= 0).all() and (cert.v >= 0).all()
    assert (cert.u[inst.rows] + cert.v[inst.cols] >= inst.weights - 1e-12).all()
    assert cert.u.sum() + cert.v.sum() == pytest.approx(1.4)
    # The pilot alignment is not optimal: its certificate is an optimal alignment's, bound 1.4.
    pilot = B.pilot2015(inst)
    assert B.check(inst, pilot) == pytest.approx(1.0)
    assert B.certify(inst, pilot).bound == pytest.approx(1.4)
    # Its greedy alignment is optimal: proven by its own certificate, with or without
    # certify_exact. Where greedy is not optimal, the assignment path; certify_exact=False then
    # rests the proof on the algorithm.
    for flag in (True, False):
        assert dict(B.solve(inst, "exact", certify_exact=flag).details) == {
            "algorithm": "certified greedy", "proof": "dual certificate"}
    trap = B.BipartiteInstance.from_dense([[0.9, 0.8], [0.8, 0.0]])
    assert B.solve(trap, "greedy").objective == pytest.approx(0.9)
    r = B.solve(trap, "exact", certify_exact=False)
    assert r.objective == pytest.approx(1.6)
    assert dict(r.details) == {"algorithm": "assignment", "proof": "algorithm"}
    assert B.solve(trap, "exact").details["proof"] == "dual certificate"


def test_dual_bound_rejects_invalid_duals():
    inst = counterexample()
    with pytest.raises(ValueError, match="non-negative"):
        B.dual_bound(inst, [-1.0, 0.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="no dual values"):
        B.dual_bound(inst.with_kind("N:N"), [1.0, 0.0], [0.0, 0.0])
    # Any non-negative duals bound every alignment: here u = (1, 1) gives 2 + slack 0.
    assert B.dual_bound(inst, [1.0, 1.0], [0.0, 0.0]) == pytest.approx(2.0)


def test_wrong_assignment_is_caught_by_the_certificate(monkeypatch):
    # Sabotage the assignment path: the certificate must refuse to call it optimal.
    monkeypatch.setattr(B, "_assignment_edges", lambda sub, *_: np.array([0], dtype=np.int64))
    from exactalign import VerificationError

    trap = B.BipartiteInstance.from_dense([[0.9, 0.8], [0.8, 0.0]])  # greedy is not optimal
    with pytest.raises(VerificationError, match="does not prove optimal"):
        B.solve(trap, "exact", decompose=False)
    with pytest.raises(VerificationError, match="does not prove optimal"):
        B.solve(trap, "exact")


def test_a_false_greedy_proof_is_caught(monkeypatch):
    # Sabotage the exchange test and the residual pass: they let a greedy alignment that is
    # not optimal through, with settled distances (all 0). Its duals (all 0) bound it by the
    # total weight, not its own: refused.
    from exactalign import VerificationError

    trap = B.BipartiteInstance.from_dense([[0.9, 0.8], [0.8, 0.0]])
    assert B._improvable(trap, B.greedy(trap)).tolist() == [True]  # the real one sees it
    monkeypatch.setattr(B, "_improvable", lambda inst, a: np.zeros(1, dtype=bool))
    monkeypatch.setattr(B, "_residual_distances", lambda inst, a, rounds=None: np.zeros(6))
    with pytest.raises(VerificationError, match="bounds it by 2.5"):
        B.solve(trap, "exact")


def test_certificate_when_the_first_pass_does_not_settle(monkeypatch):
    """With a one-round budget no pass on the handed alignment settles, so every certificate
    comes from :func:`exact_special`'s alignment: still the optimum, for optimal and greedy
    alignments alike; the exact path's proof still holds."""
    from exactalign import synthetic

    inst = synthetic.random_bipartite(60, 60, seed=3)
    opt = B.solve(inst, "exact")
    monkeypatch.setattr(B, "_certificate_rounds", lambda nodes: 1)
    assert B._residual_distances(inst, np.asarray(opt.alignment), 1) is None
    for al in (opt.alignment, B.greedy(inst)):
        assert B.certify(inst, al).bound == pytest.approx(opt.objective)
    again = B.solve(inst, "exact")
    assert again.proven_optimal and again.bound == pytest.approx(opt.objective)
