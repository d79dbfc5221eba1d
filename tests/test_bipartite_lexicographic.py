"""Among the optimal alignments (issue 22): lexicographic solves, co-optimal ranges and gap
witnesses, held against enumeration of every feasible alignment."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactalign.core.errors import InfeasibleAlignmentError, InputError
from exactalign.core.result import Status
from exactalign.problems import bipartite as B


def _alignments(inst):
    """Every feasible alignment (tiny instances)."""
    for k in range(inst.num_pairs + 1):
        for sub in itertools.combinations(range(inst.num_pairs), k):
            al = np.stack([inst.rows[list(sub)], inst.cols[list(sub)]], axis=1).reshape(-1, 2)
            try:
                yield sub, B.check(inst, al)
            except InfeasibleAlignmentError:
                continue


@st.composite
def instances(draw):
    n, m = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    W = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.5]), min_size=n * m,
                               max_size=n * m))).reshape(n, m)
    kind = draw(st.sampled_from(["1:1", "1:N", "N:1"]))
    return B.BipartiteInstance.from_dense(W, kind)


@settings(max_examples=60, deadline=None)
@given(inst=instances(), data=st.data())
def test_range_and_witness_equal_enumeration(inst, data):
    secondary = np.array(data.draw(st.lists(st.integers(-2, 2), min_size=inst.num_pairs,
                                            max_size=inst.num_pairs)), dtype=float)
    everything = list(_alignments(inst))
    best = max(v for _, v in everything)
    optimal = [set(sub) for sub, v in everything if v >= best - 1e-9]
    sec = [sum(secondary[list(s)]) for s in optimal]
    assert B.co_optimal_range(inst, secondary) == pytest.approx((min(sec), max(sec)))
    # a witness from the greedy alignment: fewest changes to reach an optimum
    g = B.greedy(inst)
    mine = set(inst.pair_index(g).tolist()) if len(g) else set()
    w = B.witness(inst, g)
    assert w.changes == min(len(mine ^ s) for s in optimal)
    assert B.check(inst, w.optimal) == pytest.approx(best)
    assert w.gain == pytest.approx(best - B.check(inst, g))


def test_witness_by_hand():
    # greedy takes (0,0) 0.9; the optimum (0,1)+(1,0) = 1.5: drop one pair, add two
    inst = B.BipartiteInstance.from_dense([[0.9, 0.8], [0.7, 0.0]])
    w = B.witness(inst, B.greedy(inst))
    assert w.remove.tolist() == [[0, 0]] and w.add.tolist() == [[0, 1], [1, 0]]
    assert w.gain == pytest.approx(0.6)
    assert B.witness(inst, w.optimal).changes == 0


def test_lexicographic_reports_its_primary_and_status():
    inst = B.BipartiteInstance.from_dense([[1, 1], [1, 1]])
    r = B.lexicographic(inst, [1, 0, 0, 0], maximize=False)
    assert r.status is Status.OPTIMAL and r.objective == 0.0 and r.details["primary"] == 2.0
    assert B.co_optimal_range(inst, [1, 0, 0, 0]) == (0.0, 1.0)


def test_primary_weights_keep_zero_weight_pairs_optional():
    # pairs (0,0) and (1,1); the held weight is 1 and 0: both {(0,0)} and {(0,0),(1,1)} are
    # optimal (weight 1), and a secondary that counts (1,1) ranges over 0..1
    inst = B.BipartiteInstance.from_pairs([[0, 0], [1, 1]], [1.0, 1.0], 2, 2)
    assert B.co_optimal_range(inst, [0.0, 1.0], primary=[1.0, 0.0],
                                      optimum=1.0) == (0.0, 1.0)
    w = B.witness(inst, [[1, 1]], primary=[1.0, 0.0], optimum=1.0)
    assert w.add.tolist() == [[0, 0]] and w.remove.tolist() == [] and w.gain == 1.0
    with pytest.raises(InputError, match="optimum of the primary"):
        B.lexicographic(inst, [0.0, 1.0], primary=[1.0, 0.0])
