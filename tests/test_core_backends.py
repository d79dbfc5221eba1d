"""Every backend through the same cases (the PuLP conformance-suite shape: one base class, one
subclass per backend overriding only what differs)."""

import numpy as np
import pytest
import scipy.sparse as sp

from exactalign import LinearModel, ModelTooLargeError, Status, solve_model
from exactalign.core.model import binary_model


def knapsack():
    # Hand-derived: {a,b} weighs 5 and scores 9; {a,c} 8; {b,c} 7; all three weigh 6 > 5.
    return binary_model([5.0, 4.0, 3.0], sp.csr_array([[2.0, 3.0, 1.0]]), [-np.inf], [5.0])


def integer_min():
    # min x + y s.t. 2x + 2y >= 3, x, y integers in [0, 5]: optimum 2 (LP optimum 1.5).
    return LinearModel(c=[1.0, 1.0], A=sp.csr_array([[2.0, 2.0]]), row_lo=[3.0],
                       row_hi=[np.inf], col_lo=0.0, col_hi=5.0, integrality=[True, True],
                       sense="min")


def equality_and_range():
    # max x0 + 2 x1 + 3 x2 with x0 + x1 + x2 == 2 and 1 <= x1 + x2 <= 1 (binaries): {x0, x2} = 4.
    A = sp.csr_array([[1.0, 1.0, 1.0], [0.0, 1.0, 1.0]])
    return binary_model([1.0, 2.0, 3.0], A, [2.0, 1.0], [2.0, 1.0])


def infeasible():
    return binary_model([1.0, 1.0], sp.csr_array([[1.0, 1.0]]), [3.0], [np.inf])


def lp_only():
    # max x + y s.t. x + 2y <= 4, 3x + y <= 6, x, y >= 0: vertex (1.6, 1.2), value 2.8.
    return LinearModel(c=[1.0, 1.0], A=sp.csr_array([[1.0, 2.0], [3.0, 1.0]]),
                       row_lo=[-np.inf, -np.inf], row_hi=[4.0, 6.0], col_lo=0.0,
                       col_hi=np.inf, integrality=[False, False])


def no_rows():
    return binary_model([1.0, -1.0, 2.0], sp.csr_array((0, 3)), [], [])


def hard_knapsack(seed=1, n=80, m=6):
    rng = np.random.default_rng(seed)
    A = rng.integers(1, 100, (m, n)).astype(float)
    c = rng.integers(1, 100, n).astype(float)
    return binary_model(c, sp.csr_array(A), np.full(m, -np.inf), A.sum(1) / 2)


CASES = [
    (knapsack, 9.0),
    (integer_min, 2.0),
    (equality_and_range, 4.0),
    (no_rows, 3.0),
]


class BackendCases:
    backend = ""

    @pytest.mark.parametrize("build, expected", CASES)
    def test_known_optimum(self, build, expected):
        model = build()
        out = solve_model(model, self.backend)
        assert out.status is Status.OPTIMAL
        assert out.objective == pytest.approx(expected, abs=1e-9)
        assert out.bound == pytest.approx(expected, abs=1e-6)
        assert model.violations(out.x) == []
        assert model.objective_value(out.x) == pytest.approx(expected, abs=1e-9)
        assert out.backend == self.backend and out.solver_version

    def test_infeasible(self):
        out = solve_model(infeasible(), self.backend)
        assert out.status is Status.INFEASIBLE and out.x is None

    def test_lp(self):
        out = solve_model(lp_only(), self.backend)
        assert out.status is Status.OPTIMAL
        assert out.objective == pytest.approx(2.8, abs=1e-7)
        assert out.x == pytest.approx([1.6, 1.2], abs=1e-6)

    def test_relaxation_bounds_integer_optimum(self):
        out = solve_model(integer_min().relax(), self.backend)
        assert out.objective == pytest.approx(1.5, abs=1e-7)

    def test_time_limit_is_never_reported_optimal(self):
        out = solve_model(hard_knapsack(), self.backend, time_limit=0.0)
        assert out.status is Status.TIME_LIMIT
        if out.objective is not None and out.bound is not None:
            assert out.bound >= out.objective - 1e-9

    @pytest.mark.parametrize("time_limit", [None, 0.0])
    def test_status_optimal_implies_bound_meets_objective(self, time_limit):
        # Both outcomes, each on every machine (a limit of 0.02 s gave one or the other
        # depending on the machine's speed): no limit solves it, none at all stops it.
        out = solve_model(hard_knapsack(), self.backend, time_limit=time_limit)
        assert out.status is (Status.OPTIMAL if time_limit is None else Status.TIME_LIMIT)
        if out.status is Status.OPTIMAL:
            assert out.bound == pytest.approx(out.objective, abs=1e-6)
        else:
            assert "time" in out.raw_status.lower()


class TestHighs(BackendCases):
    backend = "highs"

    def test_warm_start_accepted(self):
        model = hard_knapsack()
        ref = solve_model(model, "highs")
        warm = solve_model(model, "highs", warm_start=ref.x)
        assert warm.status is Status.OPTIMAL and warm.objective == ref.objective

    def test_relative_gap_stop_is_feasible_not_optimal(self):
        # Stopping on a 50% gap may or may not close the gap; OPTIMAL only if it did.
        out = solve_model(hard_knapsack(seed=3, n=120), "highs", mip_rel_gap=0.5)
        if out.status is Status.OPTIMAL:
            assert out.bound == pytest.approx(out.objective, abs=1e-6)
        else:
            assert out.status is Status.FEASIBLE and out.bound > out.objective


class TestScipy(BackendCases):
    backend = "scipy"


class TestPulp(BackendCases):
    backend = "pulp"

    def test_time_limit_is_never_reported_optimal(self):
        # CBC with no time at all: PuLP says "Not Solved"; we must say TIME_LIMIT, not ERROR.
        out = solve_model(hard_knapsack(seed=2, n=200, m=10), "pulp", time_limit=0.0)
        assert out.status is not Status.OPTIMAL


class TestBrute(BackendCases):
    backend = "brute"

    def test_lp(self):
        with pytest.raises(ModelTooLargeError, match="pure-integer"):
            solve_model(lp_only(), "brute")

    def test_relaxation_bounds_integer_optimum(self):
        with pytest.raises(ModelTooLargeError):
            solve_model(integer_min().relax(), "brute")

    def test_time_limit_is_never_reported_optimal(self):
        with pytest.raises(ModelTooLargeError, match="at most"):
            solve_model(hard_knapsack(), "brute")

    @pytest.mark.parametrize("time_limit", [None, 0.0])
    def test_status_optimal_implies_bound_meets_objective(self, time_limit):
        with pytest.raises(ModelTooLargeError):
            solve_model(hard_knapsack(), "brute")


def test_backends_agree_on_random_knapsacks():
    for seed in range(5):
        model = hard_knapsack(seed=seed, n=18, m=3)
        values = {b: solve_model(model, b).objective for b in ("highs", "scipy", "pulp", "brute")}
        assert max(values.values()) - min(values.values()) < 1e-6, values


def test_unknown_backend_is_a_clear_error():
    from exactalign import BackendError

    with pytest.raises(BackendError, match="unknown backend 'gurobi'; choose one of highs"):
        solve_model(knapsack(), "gurobi")


# --------------------------------------------------------------------------------------------
# LP dual certificates (weak duality recomputed from the model, the duals from HiGHS)
# --------------------------------------------------------------------------------------------
def _dual_bound(model, y):
    from exactalign.core.model import dual_bound_terms

    rt, ct = dual_bound_terms(model, y)
    return model.offset + rt.sum() + ct.sum()


@pytest.mark.parametrize("make", [lp_only, integer_min, equality_and_range, knapsack,
                                  hard_knapsack])
def test_highs_lp_duals_certify_the_lp_optimum(make):
    model = make().relax()
    out = solve_model(model, "highs")
    assert out.status is Status.OPTIMAL and out.row_dual is not None
    bounds = [_dual_bound(model, y) for y in (out.row_dual, -out.row_dual)]
    tight = min(bounds) if model.maximize else max(bounds)
    assert tight == pytest.approx(out.objective, abs=1e-7)
    # lp_only by hand: duals (0.4, 0.2) on the two rows give 4 * 0.4 + 6 * 0.2 = 2.8
    if make is lp_only:
        assert tight == pytest.approx(2.8)


def test_any_multipliers_give_a_valid_bound():
    """Weak duality: whatever the row multipliers, the bound is on the right side of the LP
    optimum (or infinite) -- a wrong dual vector loosens the proof, it cannot fake one."""
    rng = np.random.default_rng(0)
    for make in (lp_only, integer_min, equality_and_range, knapsack, hard_knapsack):
        model = make().relax()
        opt = solve_model(model, "highs").objective
        for _ in range(50):
            b = _dual_bound(model, rng.normal(size=model.num_rows) * 5)
            assert (b >= opt - 1e-9) if model.maximize else (b <= opt + 1e-9)


# --------------------------------------------------------------------------------------------
# Integral objectives: a gap under 1 proves optimality (HiGHS' mip_abs_gap, bound rounded)
# --------------------------------------------------------------------------------------------
def _independent_set(seed, n=60, p=0.1):
    """Maximum weight independent set (integer weights 1-3) on a random graph: its LP is
    fractional, its objective integral."""
    rng = np.random.default_rng(seed)
    edges = np.array([(i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < p])
    A = sp.csr_array((np.ones(2 * len(edges)),
                      (np.repeat(np.arange(len(edges)), 2), edges.ravel())),
                     shape=(len(edges), n))
    c = rng.integers(1, 4, n).astype(float)
    return binary_model(c, A, np.full(len(edges), -np.inf), np.ones(len(edges)))


def test_integral_objective_is_recognised_only_when_every_feasible_point_scores_an_integer():
    from dataclasses import replace

    from exactalign.backends.highs import integral_objective

    assert integral_objective(knapsack()) and integral_objective(integer_min())
    assert not integral_objective(knapsack().relax())  # an LP
    assert not integral_objective(replace(knapsack(), c=np.array([5.0, 4.5, 3.0])))
    assert not integral_objective(replace(knapsack(), offset=0.5))
    mixed = replace(knapsack(), integrality=np.array([True, False, True]))
    assert not integral_objective(mixed)  # a costed continuous column
    free = replace(mixed, c=np.array([5.0, 0.0, 3.0]))
    assert integral_objective(free)  # the continuous column costs nothing


def test_highs_gap_is_under_one_on_integral_objectives_and_tight_otherwise():
    from dataclasses import replace

    from exactalign import SolveOptions
    from exactalign.backends import highs

    for model, gap in ((knapsack(), highs.INTEGRAL_GAP),
                       (replace(knapsack(), c=np.array([0.5, 0.4, 0.3])), 1e-9)):
        h = highs.to_highs(model)
        highs._configure(h, model, SolveOptions())
        assert h.getOptionValue("mip_abs_gap")[1] == gap


def test_highs_restart_follows_the_options_and_the_optimum_does_not():
    """``SolveOptions(restart=False)`` switches HiGHS' root restarts off (on by default); the
    proven optimum is the same either way."""
    from exactalign import SolveOptions
    from exactalign.backends import highs
    from exactalign.core.solve import solve_model

    model = knapsack()
    for restart in (True, False):
        h = highs.to_highs(model)
        highs._configure(h, model, SolveOptions(restart=restart))
        assert h.getOptionValue("mip_allow_restart")[1] is restart
    on, off = (solve_model(model, "highs", SolveOptions(restart=r)) for r in (True, False))
    assert on.status is off.status is Status.OPTIMAL and on.objective == off.objective


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("presolve", [True, False])
def test_integral_gap_still_proves_the_optimum(seed, presolve):
    """With the gap under 1, HiGHS' answer is the optimum SciPy's milp proves (no absolute gap
    there), its bound an integer equal to it."""
    from exactalign import SolveOptions

    model = _independent_set(seed)
    ours = solve_model(model, "highs", SolveOptions(presolve=presolve))
    ref = solve_model(model, "scipy")
    assert ours.status is Status.OPTIMAL and ref.status is Status.OPTIMAL
    assert ours.objective == pytest.approx(ref.objective, abs=1e-6)
    assert ours.bound == np.round(ours.bound) == pytest.approx(ref.objective, abs=1e-6)
