"""Monotone matching: hand-derived examples, the order rules (weak and strict, incomparable
items, kinds), input errors, the checker, model sizes and the time-limit path."""

import numpy as np
import pytest

from exactalign.core.errors import InfeasibleAlignmentError, InputError, ModelTooLargeError
from exactalign.core.result import Status
from exactalign.problems import monotone as M


def kronecker(a: str, b: str) -> np.ndarray:
    return np.array([[float(x == y) for y in b] for x in a])


def test_paper_example_lcs():
    # Chen et al. (2023) §5: [a, b, c, d] vs [a, c, b, d] scores 3 (a, then b or c, then d).
    inst = M.MonotoneInstance.sequences(kronecker("abcd", "acbd"))
    r = M.solve(inst)
    assert r.proven_optimal and r.objective == 3.0 and r.method == "exact"
    assert r.details["algorithm"] == "dynamic programming"
    assert r.alignment.tolist() in ([[0, 0], [1, 2], [3, 3]], [[0, 0], [2, 1], [3, 3]])
    assert M.solve(inst, "ilp").objective == 3.0
    unconstrained = M.solve(M.MonotoneInstance.dags(kronecker("abcd", "acbd"), [], []))
    assert unconstrained.objective == 4.0  # no order: every letter finds its partner


def test_dp_kinds_on_sequences():
    W = np.array([[1.0, 1.0], [0.0, 0.0]])
    assert M.solve(M.MonotoneInstance.sequences(W, "1:1")).objective == 1.0
    assert M.solve(M.MonotoneInstance.sequences(W, "1:N")).objective == 2.0
    assert M.solve(M.MonotoneInstance.sequences(W.T, "N:1")).objective == 2.0
    assert M.solve(M.MonotoneInstance.sequences(W.T, "N:1")).alignment.tolist() == \
        [[0, 0], [1, 0]]
    # strict: an item matched twice maps two comparable items onto one (not comparable to
    # itself), so strict sequence matching is 1:1.
    assert M.solve(M.MonotoneInstance.sequences(W, "1:N", strict=True)).objective == 1.0


def test_one_to_many_still_preserves_order():
    # ref 0 takes pred 1; ref 1 may not take pred 0 (crossing), however heavy.
    W = np.array([[0.0, 1.0], [0.9, 0.0]])
    inst = M.MonotoneInstance.sequences(W, "1:N")
    assert M.solve(inst).objective == 1.0
    with pytest.raises(InfeasibleAlignmentError, match=r"\(0, 1\) and \(1, 0\) cross"):
        M.check(inst, [[0, 1], [1, 0]])


def test_incomparable_items_constrain_nothing_unless_strict():
    W = np.array([[0.0, 1.0], [1.0, 0.0]])
    chain_vs_chain = M.MonotoneInstance.dags(W, [(0, 1)], [(0, 1)])
    chain_vs_antichain = M.MonotoneInstance.dags(W, [(0, 1)], [])
    assert M.solve(chain_vs_chain).objective == 1.0       # the two pairs cross
    assert M.solve(chain_vs_antichain).objective == 2.0   # weak: comparable -> incomparable ok
    strict = chain_vs_antichain.with_strict(True)
    assert M.solve(strict).objective == 1.0
    with pytest.raises(InfeasibleAlignmentError, match="strict order rule"):
        M.check(strict, [[0, 1], [1, 0]])


def test_transitive_closure_is_used():
    # 0 -> 1 -> 2 in the reference: 0 < 2 without an explicit edge.
    W = np.zeros((3, 3))
    W[0, 2], W[2, 0] = 1.0, 1.0
    inst = M.MonotoneInstance.dags(W, [(0, 1), (1, 2)], [(0, 1), (1, 2)])
    assert M.solve(inst).objective == 1.0
    assert inst.ref.hasse.tolist() == [[0, 1], [1, 2]]


def test_explicit_relation_and_its_errors():
    less = np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]], dtype=bool)
    o = M.Order.from_relation(less)
    assert o.hasse.tolist() == [[0, 1], [1, 2]] and o.lt(np.array([0]), np.array([2]))[0]
    with pytest.raises(InputError, match="not transitive"):
        M.Order.from_relation(np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=bool))
    with pytest.raises(InputError, match="precede each other"):
        M.Order.from_relation(np.array([[0, 1], [1, 0]], dtype=bool))
    with pytest.raises(InputError, match="precedes itself"):
        M.Order.from_relation(np.array([[1]], dtype=bool))


def test_input_errors():
    with pytest.raises(InputError, match="items 0 and 1 lie on a cycle"):
        M.Order.from_edges(3, [(0, 1), (1, 0)])
    with pytest.raises(InputError, match="self-loop"):
        M.Order.from_edges(2, [(1, 1)])
    with pytest.raises(InputError, match=r"edge 0 \(0, 5\) names an item outside 0..2"):
        M.Order.from_edges(3, [(0, 5)])
    with pytest.raises(InputError, match="supports kinds"):
        M.MonotoneInstance.sequences(np.ones((2, 2)), "N:N")
    with pytest.raises(InputError, match="sequence_dp needs two sequences"):
        M.sequence_dp(M.MonotoneInstance.dags(np.ones((2, 2)), [], []))
    with pytest.raises(ValueError, match="unknown method"):
        M.solve(M.MonotoneInstance.sequences(np.ones((1, 1))), "hungarian")


def test_check_rejects_capacity_and_non_candidates():
    inst = M.MonotoneInstance.sequences(np.array([[1.0, 1.0], [0.0, 1.0]]))
    with pytest.raises(InfeasibleAlignmentError, match="matched 2 times"):
        M.check(inst, [[0, 0], [0, 1]])
    with pytest.raises(InfeasibleAlignmentError, match="not a candidate"):
        M.check(inst, [[1, 0]])
    assert M.check(inst, [[0, 0], [1, 1]]) == 2.0
    assert M.check(inst, np.zeros((0, 2))) == 0.0


def test_greedy_linext_local_hand_example():
    # Greedy takes the heaviest pair (0,1) = 1.0, which blocks (0,0) and (1,1) by capacity and
    # crosses (1,0); the optimum takes (0,0) + (1,1) = 1.2.
    W = np.array([[0.6, 1.0], [0.6, 0.6]])
    inst = M.MonotoneInstance.sequences(W)
    assert M.solve(inst, "greedy").objective == 1.0
    assert M.solve(inst, "exact").objective == pytest.approx(1.2)
    assert M.solve(inst, "linext").objective == pytest.approx(1.2)
    local = M.solve(inst, "local", seed=3)
    assert local.status is Status.FEASIBLE and local.seed == 3
    assert 1.0 <= local.objective <= 1.2 + 1e-12


def test_linext_is_a_heuristic_on_dags():
    # Reference: 0 and 1 incomparable; predicted: 1 < 0. The extension of the reference puts
    # 0 before 1, so the DP over extensions cannot take (0, 0) and (1, 1) together -- but the
    # DAGs allow it (incomparable reference items constrain nothing).
    W = np.eye(2)
    inst = M.MonotoneInstance.dags(W, [], [(1, 0)])
    assert M.solve(inst, "exact").objective == 2.0
    assert M.solve(inst, "linext").objective == 1.0
    assert M.solve(inst, "greedy").objective == 2.0


def test_model_sizes_and_pairwise_limit():
    rng = np.random.default_rng(0)
    W = rng.random((12, 12)) * (rng.random((12, 12)) < 0.5)
    inst = M.MonotoneInstance.sequences(W)
    sizes = {f: M.ilp_model(inst, f).num_rows for f in M.FORMULATIONS}
    assert sizes["compact"] < sizes["pairwise"]
    with pytest.raises(ModelTooLargeError, match="conflicting candidate pairs"):
        M.pairwise_model(inst, max_rows=10)
    r = M.solve(inst, "ilp", formulation="pairwise")
    assert r.details["rows"] == sizes["pairwise"] and r.details["nonzeros"] > 0
    with pytest.raises(ModelTooLargeError):
        M.brute_force(inst)


def test_time_limit_returns_incumbent_and_bound():
    rng = np.random.default_rng(1)
    n = 30
    W = rng.random((n, n)) * (rng.random((n, n)) < 0.2)
    edges = [(i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < 0.2]
    perm = rng.permutation(n)
    inst = M.MonotoneInstance.dags(W, edges, [(perm[i], perm[j]) for i, j in edges])
    r = M.solve(inst, "ilp", time_limit=0.0)
    assert r.status in (Status.TIME_LIMIT, Status.OPTIMAL)
    assert r.objective is not None and r.bound >= r.objective - 1e-9
    assert M.check(inst, r.alignment) == pytest.approx(r.objective)


def test_empty_instances():
    for inst in (M.MonotoneInstance.sequences(np.zeros((0, 3))),
                 M.MonotoneInstance.dags(np.zeros((2, 2)), [(0, 1)], [])):
        for m in M.METHODS:
            if m == "dp" and not inst.is_sequence:
                continue
            r = M.solve(inst, m)
            assert r.objective == 0.0 and len(r.alignment) == 0, m
