"""Slow cross-checks (``make test-slow``): larger instances than the default suite affords."""

import numpy as np
import pytest
import scipy.sparse as sp

from exactalign import bipartite as B

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("kind", list(B.KINDS))
def test_exact_equals_ilp_on_1500x1500(seed, kind):
    rng = np.random.default_rng(seed)
    S = sp.random(1500, 1500, density=0.007, random_state=rng)  # ~10 candidates per item
    inst = B.BipartiteInstance.from_sparse(S, kind=kind)
    exact, ilp = B.solve(inst, "exact"), B.solve(inst, "ilp")
    assert exact.proven_optimal and ilp.proven_optimal
    assert ilp.objective == pytest.approx(exact.objective, abs=1e-6)
    for name in B.HEURISTICS:
        assert B.solve(inst, name).objective <= exact.objective + 1e-9


def test_sparse_and_dense_assignment_agree_on_large_component(monkeypatch):
    rng = np.random.default_rng(11)
    S = sp.random(300, 300, density=0.05, random_state=rng)
    inst = B.BipartiteInstance.from_sparse(S)
    dense = B.solve(inst, "exact").objective
    monkeypatch.setattr(B, "DENSE_CELLS", 0)
    assert B.solve(inst, "exact").objective == pytest.approx(dense, abs=1e-9)
