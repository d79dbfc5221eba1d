"""Benchmarks (``make bench``): the issue's reference point, 1:1 on a 2,000 x 2,000 sparse
instance with about 10 candidates per item. In the default suite these run once, as plain tests
of agreement; timings are only measured with ``--benchmark-enable`` and never asserted."""

import numpy as np
import pytest
import scipy.sparse as sp

from exactalign import bipartite as B


@pytest.fixture(scope="module")
def inst():
    rng = np.random.default_rng(0)
    n, k = 2000, 10
    rows = np.repeat(np.arange(n), k)
    cols = rng.integers(0, n, n * k)
    S = sp.coo_array((rng.random(n * k), (rows, cols)), shape=(n, n))
    S.sum_duplicates()
    return B.BipartiteInstance.from_sparse(S)


@pytest.fixture(scope="module")
def optimum(inst):
    return B.solve(inst, "exact").objective


@pytest.mark.parametrize("method", list(B.HEURISTICS))
def test_bench_heuristic(benchmark, inst, optimum, method):
    r = benchmark(B.solve, inst, method)
    assert r.objective < optimum  # every greedy falls short on this instance


def test_bench_exact(benchmark, inst, optimum):
    r = benchmark(B.solve, inst, "exact")
    assert r.proven_optimal and r.objective == optimum


def test_bench_ilp_build(benchmark, inst):
    m = benchmark(B.ilp_model, inst)
    assert m.num_vars == inst.num_pairs and m.A.nnz <= 2 * inst.num_pairs


def test_bench_ilp_highs(benchmark, inst, optimum):
    r = benchmark.pedantic(B.solve, args=(inst, "ilp"), rounds=1, iterations=1)
    assert r.proven_optimal and r.objective == pytest.approx(optimum, abs=1e-6)
