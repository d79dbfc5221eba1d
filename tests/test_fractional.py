"""Dinkelbach's method (exactalign.core.fractional): hand-derived ratios, brute force on small
random models, backend agreement, and the bound it reports when a parametric solve is cut short."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from exactalign.core.errors import InputError
from exactalign.core.fractional import dinkelbach, dinkelbach_oracle
from exactalign.core.model import binary_model
from exactalign.core.result import Status


def _free_model(n: int):
    """``n`` binaries and no constraints (one empty row keeps the matrix 2-D)."""
    return binary_model(np.zeros(n), sp.csr_array((0, n)), np.zeros(0), np.zeros(0))


def _at_most_one_per_row(rows: list[list[int]], n: int):
    """Binaries with sum over each listed group <= 1 (a matching-like set)."""
    data, ri, ci = [], [], []
    for r, group in enumerate(rows):
        for j in group:
            data.append(1.0)
            ri.append(r)
            ci.append(j)
    A = sp.csr_array((data, (ri, ci)), shape=(len(rows), n))
    return binary_model(np.zeros(n), A, np.full(len(rows), -np.inf), np.ones(len(rows)))


def _brute(model, n, n0, d, d0):
    best = None
    for bits in itertools.product((0.0, 1.0), repeat=model.num_vars):
        x = np.array(bits)
        if model.violations(x):
            continue
        r = (n @ x + n0) / (d @ x + d0)
        best = r if best is None else max(best, r)
    return best


def test_hand_derived_ratio():
    # x=(1,0): 3/2; x=(1,1): 4/3; x=(0,1): 1/2; x=(0,0): 0  ->  optimum 3/2 at (1,0).
    res = dinkelbach(_free_model(2), (np.array([3.0, 1.0]), 0.0), (np.array([1.0, 1.0]), 1.0))
    assert res.status is Status.OPTIMAL
    assert res.ratio == pytest.approx(1.5)
    assert res.bound == pytest.approx(1.5)
    assert res.x.tolist() == [1.0, 0.0]
    assert 1 <= res.iterations <= 3


def test_muc_like_f_with_optional_key():
    # Two key items (the second optional: it counts in POS only if aligned), one response.
    # Variables: a = response->key1 (full credit 1), b = response->key2 (credit 1); at most one.
    # F = 2*S / (POS + ACT) with ACT = 1, POS = 1 + b.
    #   a: 2*1/(1+1) = 1;  b: 2*1/(2+1) = 2/3;  none: 0.
    model = _at_most_one_per_row([[0, 1]], 2)
    res = dinkelbach(model, (np.array([2.0, 2.0]), 0.0), (np.array([0.0, 1.0]), 2.0))
    assert res.status is Status.OPTIMAL
    assert Fraction(res.ratio).limit_denominator(100) == 1
    assert res.x.tolist() == [1.0, 0.0]


def random_ratio_problem(n_vars: int, seed: int):
    """A seeded random ratio problem: ``(model, n, d, d0)``, at most one of each of up to three
    random groups of binaries, numerator ``n x + 0.25``, denominator ``d x + d0`` (positive on
    every binary point)."""
    rng = np.random.default_rng(seed)
    groups = [list(rng.choice(n_vars, size=min(n_vars, 3), replace=False))
              for _ in range(rng.integers(0, 4))]
    model = _at_most_one_per_row(groups, n_vars)
    n = np.round(rng.uniform(-1, 3, n_vars), 3)
    d = np.round(rng.uniform(-0.5, 2, n_vars), 3)
    return model, n, d, float(np.sum(np.abs(d))) + 0.5


@given(st.integers(2, 7), st.integers(0, 2**32 - 1))
def test_matches_brute_force_and_starts_anywhere(n_vars, seed):
    model, n, d, d0 = random_ratio_problem(n_vars, seed)
    expected = _brute(model, n, 0.25, d, d0)
    res = dinkelbach(model, (n, 0.25), (d, d0))
    assert res.status is Status.OPTIMAL
    assert res.ratio == pytest.approx(expected, abs=1e-7)
    assert not model.violations(res.x)
    # A feasible warm start (the empty solution) reaches the same optimum.
    res0 = dinkelbach(model, (n, 0.25), (d, d0), x0=np.zeros(n_vars))
    assert res0.ratio == pytest.approx(expected, abs=1e-7)


@pytest.mark.parametrize("backend", ["scipy", "pulp", "brute"])
def test_backends_agree(backend):
    rng = np.random.default_rng(7)
    model = _at_most_one_per_row([[0, 1, 2], [2, 3], [3, 4, 5]], 6)
    n, d = rng.uniform(0, 2, 6), rng.uniform(0, 1, 6)
    ref = dinkelbach(model, (n, 0.0), (d, 1.0))
    other = dinkelbach(model, (n, 0.0), (d, 1.0), backend=backend)
    assert other.status is Status.OPTIMAL
    assert other.ratio == pytest.approx(ref.ratio, abs=1e-7)


def test_cut_short_reports_incumbent_and_valid_bound():
    # Oracle that never proves: it returns the start solution and an upper bound of 0.5 on P.
    calls = []

    def param_solve(lam):
        calls.append(lam)
        return None, None, 0.5, False

    res = dinkelbach_oracle(param_solve, lambda x: (x, 2.0), x0=1.0, den_min=2.0)
    assert res.status is Status.TIME_LIMIT
    assert res.ratio == pytest.approx(0.5)          # the incumbent x0 = 1 -> 1/2
    assert res.bound == pytest.approx(0.5 + 0.5 / 2.0)
    assert calls == [0.5]


def test_cut_short_without_den_min_gives_no_bound():
    res = dinkelbach_oracle(lambda lam: (None, None, 0.5, False), lambda x: (x, 2.0), x0=1.0)
    assert res.status is Status.TIME_LIMIT and res.bound is None and res.ratio == 0.5


def test_non_positive_denominator_is_refused():
    with pytest.raises(InputError, match="denominator"):
        dinkelbach(_free_model(1), (np.array([1.0]), 0.0), (np.array([-1.0]), 1.0))


def test_coefficient_shape_is_checked():
    with pytest.raises(InputError, match="numerator needs 2"):
        dinkelbach(_free_model(2), (np.array([1.0]), 0.0), (np.array([1.0, 1.0]), 1.0))
