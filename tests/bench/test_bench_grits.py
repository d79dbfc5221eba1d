"""Benchmarks (``make bench``): the issue's scale point, GriTS of a 50 x 15 table proven exactly
(target: 10 s each on one core), against a perturbation of itself and against an unrelated table
(the hard case: GriTS's bound about 10% loose). In the default suite these run once, as plain
tests of agreement (proven, factored <= exact <= bound); timings are only measured with
``--benchmark-enable`` and never asserted."""

import numpy as np
import pytest

from exactalign.metrics import grits as M
from exactalign.perturb.tables import TableErrors, perturb
from exactalign.problems import mss2d
from experiments.grits_gap import synthetic_table


def _pair(kind):
    gold = synthetic_table(50, 15, np.random.default_rng([1, 0]), "g")
    if kind == "perturbed":
        return gold, perturb(gold, TableErrors.structural(0.3), np.random.default_rng(2)).table
    return gold, synthetic_table(50, 15, np.random.default_rng([3, 0]), "p")


@pytest.mark.parametrize("kind", ["perturbed", "unrelated"])
@pytest.mark.parametrize("variant", ["top", "con"])
def test_bench_exact_50x15(benchmark, kind, variant):
    gold, pred = _pair(kind)
    W = M.reward_tensor(gold.grid(variant), pred.grid(variant), variant)
    fac = M.factored(W)
    inst = mss2d.Mss2dInstance(W)
    r = benchmark(mss2d.solve, inst, "bnb", incumbent=(fac.rows, fac.cols), bound=fac.bound)
    assert r.proven_optimal
    assert fac.tp <= r.objective + 1e-9 <= fac.bound + 2e-9


def test_bench_factored_50x15(benchmark):
    gold, pred = _pair("unrelated")
    W = M.reward_tensor(gold.grid("con"), pred.grid("con"), "con")
    fac = benchmark(M.factored, W)
    assert fac.tp <= fac.bound
