"""Column generation for the LP of big latent models (:mod:`exactalign.problems.latent.colgen`):
it reaches the whole LP's optimum with duals that certify it on the whole model, the exact path
through it is brute force, and stopped early it keeps a valid bound. Forced onto tiny instances
(one pair per variable to start, one pair added per round) so that many rounds run."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from exactalign.core.model import dual_bound_terms
from exactalign.core.outcome import SolveOptions
from exactalign.core.result import Status
from exactalign.core.solve import solve_model
from exactalign.problems import latent
from exactalign.problems.latent import colgen
from exactalign.problems.latent import exact as latent_exact
from tests.test_latent import SQUARE
from tests.test_latent import instances as latent_instances


def _slow(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(colgen, "FIRST_PER_VARIABLE", 1)
    mp.setattr(colgen, "BATCH", 1)


def _bound(model, y) -> float:
    return min(sum(float(t.sum()) for t in dual_bound_terms(model, s * y)) for s in (1, -1))


@settings(max_examples=60, deadline=None)
@given(latent_instances(max_vars=6))
def test_column_generation_reaches_the_whole_lp_and_certifies_it(inst):
    model = latent.ilp_model(inst)
    assume(model.num_vars > 0)
    with pytest.MonkeyPatch.context() as mp:
        _slow(mp)
        cg = colgen.column_generation(model, inst, SolveOptions())
    full = solve_model(model.relax(), "highs", SolveOptions())
    assert cg.status is Status.OPTIMAL
    assert cg.objective == pytest.approx(full.objective, abs=1e-6)
    assert model.relax().violations(cg.x) == []  # zero outside the generated columns
    assert float(model.c @ cg.x) == pytest.approx(cg.objective, abs=1e-9)
    assert _bound(model, cg.row_dual) == pytest.approx(full.objective, abs=1e-6)
    assert np.all(np.diff(cg.held) > 0) and cg.held[-1] < model.num_vars
    assert not np.delete(cg.x, cg.held).any()  # the point lives on the columns held


@settings(max_examples=60, deadline=None)
@given(latent_instances(max_vars=5))
def test_exact_through_column_generation_is_brute_force(inst):
    assume(inst.num_pairs <= 12)
    brute, _ = latent.brute_force(inst)
    with pytest.MonkeyPatch.context() as mp:
        _slow(mp)
        mp.setattr(latent_exact, "COLGEN_COLUMNS", 0)
        ex = latent.solve(inst, "exact")
    assert ex.proven_optimal and ex.objective == brute == latent.check(inst, ex.alignment)
    assert ex.bound == brute and "fallback" not in ex.details


@settings(max_examples=60, deadline=None)
@given(latent_instances(max_vars=5))
def test_column_generation_stopped_after_one_round_keeps_a_valid_bound(inst):
    """Stopped (its round limit, as a time limit stops it): the last restricted point is rounded,
    the extended duals bound; the result never claims more than it has."""
    assume(inst.num_pairs <= 12)
    brute, _ = latent.brute_force(inst)
    with pytest.MonkeyPatch.context() as mp:
        _slow(mp)
        mp.setattr(colgen, "MAX_ROUNDS", 1)
        mp.setattr(latent_exact, "COLGEN_COLUMNS", 0)
        ex = latent.solve(inst, "exact", time_limit=60.0)
    assert ex.objective == latent.check(inst, ex.alignment) <= brute <= ex.bound + 1e-9
    assert ex.status in (Status.OPTIMAL, Status.TIME_LIMIT)
    if ex.status is Status.TIME_LIMIT:
        assert "column generation" in ex.details["stopped"]
    else:
        assert ex.objective == brute


@settings(max_examples=60, deadline=None)
@given(latent_instances(max_vars=6))
def test_the_restricted_lp_without_the_pairs_of_pairs_bounds_is_the_lp(inst):
    """The restricted LP drops ``y <= 1`` (implied by the linking rows): on every column and
    row it is the whole LP, same optimum; its point keeps every bound of the model."""
    model = latent.ilp_model(inst)
    assume(model.num_vars > 0)
    hi = colgen.restricted_col_hi(model, inst.num_pairs)
    P = inst.num_pairs
    assert (hi[:P] == model.col_hi[:P]).all() and np.isinf(hi[P:]).all()
    loose = solve_model(replace(model.relax(), col_hi=hi), "highs", SolveOptions())
    full = solve_model(model.relax(), "highs", SolveOptions())
    assert loose.objective == pytest.approx(full.objective, abs=1e-6)
    assert model.relax().violations(loose.x) == []


@settings(max_examples=60, deadline=None)
@given(latent_instances(max_vars=6))
def test_the_boxed_bounds_of_the_jittered_lp_never_bind(inst):
    """A pair of pairs at most 2, a linking row at least -2, a one-to-one row at least -1: the
    same LP optimum as the model's, and its optimal point keeps every bound of the model."""
    model = latent.ilp_model(inst)
    assume(model.num_vars > 0)
    structure = colgen._Structure(model, inst)
    hi, lo = colgen.boxed_bounds(model, inst.num_pairs, structure.row_end)
    P = inst.num_pairs
    assert (hi[:P] == model.col_hi[:P]).all() and (hi[P:] == 2).all()
    linking = structure.row_end >= 0
    assert (lo[linking] == -2).all() and (lo[~linking] == -1).all()
    boxed = solve_model(replace(model.relax(), col_hi=hi, row_lo=lo), "highs", SolveOptions())
    full = solve_model(model.relax(), "highs", SolveOptions())
    assert boxed.objective == pytest.approx(full.objective, abs=1e-6)
    assert model.relax().violations(boxed.x) == []


def _floor(v: float) -> float:
    return float(np.floor(v + 1e-6))


@settings(max_examples=60, deadline=None)
@given(latent_instances(max_vars=6), st.sampled_from([colgen.JITTER, 0.5]))
def test_jittered_column_generation_certifies_the_next_integer_as_the_lp_does(inst, jitter):
    """With an integer objective the restricted LP's costs are jittered: its point is feasible
    and worth at most the LP, and its duals bound the whole LP below the same next integer as
    the LP's own optimum, and within :data:`~colgen.SETTLE_SLACK` of it. A jitter too large
    for that (0.5) is dropped: the true costs are solved again and the duals are the LP's."""
    model = latent.ilp_model(inst)
    assume(model.num_vars > 0)
    from exactalign.backends.highs import IncrementalLP

    dropped = []
    real = IncrementalLP.set_costs
    with pytest.MonkeyPatch.context() as mp:
        _slow(mp)
        mp.setattr(colgen, "JITTER", jitter)
        mp.setattr(IncrementalLP, "set_costs",
                   lambda self, c: (dropped.append(True), real(self, c))[1])
        cg = colgen.column_generation(model, inst, SolveOptions(seed=7), integral=True)
    full = solve_model(model.relax(), "highs", SolveOptions()).objective
    assert cg.status is Status.OPTIMAL
    assert model.relax().violations(cg.x) == []
    assert float(model.c @ cg.x) <= full + 1e-6
    bound = _bound(model, cg.row_dual)
    assert bound >= full - 1e-6 and _floor(bound) == _floor(full)
    if jitter == colgen.JITTER:  # close to the LP, for the caller's reduced-cost fixing
        assert bound <= full + 0.1 + 1e-6
    if dropped:
        assert bound == pytest.approx(full, abs=1e-6)


def test_the_first_set_takes_the_best_pairs_of_each_variable():
    # SQUARE: 4 pairs, each earns its concept (1) and half of the one pair of pairs it is in
    # ((0,0)-(1,1) for r(0,1) with r(0,1), (1,0)-(0,1) for r(1,0) with r(0,1))
    assert colgen.potentials(SQUARE).tolist() == [1.5, 1.5, 1.5, 1.5]
    keep = colgen.first_pairs(SQUARE, 1)
    for side, n in ((SQUARE.pair_left, 2), (SQUARE.pair_right, 2)):
        assert sorted(set(side[keep].tolist())) == list(range(n))  # every variable has one
    assert colgen.first_pairs(SQUARE, 2).all()


@settings(max_examples=60, deadline=None)
@given(latent_instances(max_vars=5), st.integers(0, 2**32 - 1))
def test_balancing_never_raises_the_bound(inst, seed):
    """Any nonnegative multipliers: raising a variable's row by the second largest positive
    reduced cost of its pairs keeps the weak-duality bound valid and never raises it."""
    model = latent.ilp_model(inst)
    assume(model.num_vars > 0)
    y = np.random.default_rng(seed).exponential(0.5, model.num_rows)
    structure = colgen._Structure(model, inst)
    before = sum(float(t.sum()) for t in dual_bound_terms(model, y))
    after = sum(float(t.sum()) for t in dual_bound_terms(
        model, colgen._balance(model, inst, structure, y.copy())))
    full = solve_model(model.relax(), "highs", SolveOptions()).objective
    assert full - 1e-6 <= after <= before + 1e-9


def test_column_generation_stops_with_the_deadline():
    """No time at all: no restricted LP is solved, nothing to bound with (the exact path then
    solves without its LP: :func:`~exactalign.problems.latent.exact._batch_without_lp`)."""
    model = latent.ilp_model(SQUARE)
    out = colgen.column_generation(model, SQUARE, SolveOptions(time_limit=0.0))
    assert out.status is Status.TIME_LIMIT and out.row_dual is None and out.x is None
    assert np.isfinite(latent.solve(SQUARE, "exact", time_limit=60.0).bound)


def test_the_exact_path_hands_the_pairs_column_generation_held_to_its_targets(monkeypatch):
    """On the fractional instance (LP 3, optimum 2) solved through column generation, the sets
    tried around the LP point are given the pairs its restricted LP held (a mask of the
    component's pairs holding the LP point's support), and the answer is still brute force."""
    from tests.test_latent import _fractional_instance

    inst = _fractional_instance()
    seen = []
    real = latent_exact._targets

    def spy(sub, xp, lp_bound, if_one, held=None):
        seen.append((xp.copy(), held))
        return real(sub, xp, lp_bound, if_one, held)

    _slow(monkeypatch)
    monkeypatch.setattr(latent_exact, "COLGEN_COLUMNS", 0)
    monkeypatch.setattr(latent_exact, "_targets", spy)
    r = latent.solve(inst, "exact")
    assert r.proven_optimal and r.objective == latent.brute_force(inst)[0] == 2.0
    [(xp, held)] = seen
    assert held is not None and held.dtype == bool and len(held) == inst.num_pairs
    assert held[xp > 0].all() and 0 < held.sum() <= inst.num_pairs


@settings(max_examples=20, deadline=None)
@given(latent_instances(max_vars=6))
def test_column_generation_on_two_threads_reaches_the_same_lp(inst):
    """Given two threads the restricted LPs run HiGHS' parallel dual simplex (PAMI), to the same
    LP optimum and a bound that certifies it."""
    from exactalign.backends.highs import PARALLEL_DUAL, IncrementalLP

    model = latent.ilp_model(inst)
    assume(model.num_vars > 0)
    lp = IncrementalLP(model, SolveOptions(threads=2))
    assert lp._h.getOptionValue("simplex_strategy")[1] == PARALLEL_DUAL
    assert IncrementalLP(model, SolveOptions())._h.getOptionValue("simplex_strategy")[1] == 1
    many = IncrementalLP(model, SolveOptions(threads=9))  # HiGHS takes at most 8 here
    assert many._h.getOptionValue("simplex_max_concurrency")[1] == 8
    with pytest.MonkeyPatch.context() as mp:
        _slow(mp)
        one = colgen.column_generation(model, inst, SolveOptions())
        two = colgen.column_generation(model, inst, SolveOptions(threads=2))
    assert two.status is Status.OPTIMAL
    assert two.objective == pytest.approx(one.objective, abs=1e-6)
    assert _bound(model, two.row_dual) == pytest.approx(two.objective, abs=1e-6)


def test_each_solve_of_the_incremental_lp_gets_the_time_left_after_its_run_time():
    """HiGHS counts its time limit over every run() of one object: a solve asked for 5 more
    seconds after 100 s of runs is given 105 (it was given 5, and stopped at once)."""
    from exactalign.backends.highs import IncrementalLP

    model = latent.ilp_model(SQUARE)
    lp = IncrementalLP(model, SolveOptions())
    real = lp._h
    seen = []

    class Clocked:
        def __getattr__(self, name):
            return getattr(real, name)

        def getRunTime(self):
            return 100.0

        def setOptionValue(self, name, value):
            if name == "time_limit":
                seen.append(value)
            return real.setOptionValue(name, value)

    lp._h = Clocked()
    assert lp.solve(5.0).status is Status.OPTIMAL
    assert lp.solve(None).status is Status.OPTIMAL
    assert seen == [105.0, float("inf")]


@settings(max_examples=60, deadline=None)
@given(latent_instances(max_vars=6))
def test_the_structure_read_off_the_rows_is_the_models(inst):
    """:class:`~colgen._Structure` reads the model's compressed rows alone: each pair of pairs'
    four rows are its column's entries; of its two rows at one end, the one marked as grouped
    by the left variable holds pairs of pairs whose other ends share their left variable, the
    other theirs right; every linking row is listed once with its end; a variable's one-to-one
    row holds exactly its pairs."""
    model = latent.ilp_model(inst)
    assume(model.num_vars > 0)
    s = colgen._Structure(model, inst)
    P, B = inst.num_pairs, len(inst.bin_w)
    C = model.A.to_scipy().tocsc()
    R = model.A.to_scipy()

    def entries(M, k):
        return M.indices[M.indptr[k]:M.indptr[k + 1]].tolist()

    for b in range(B):
        assert sorted(s.rows_by_y[b].tolist()) == sorted(entries(C, P + b))
        p, q = int(inst.bin_p[b]), int(inst.bin_q[b])
        for end in (p, q):
            mine = [int(r) for r in s.rows_by_y[b] if s.row_end[r] == end]
            assert len(mine) == 2 and s.left_row[mine].sum() == 1
            for r in mine:
                others = []
                for col in entries(R, r):
                    if col >= P:
                        bp, bq = int(inst.bin_p[col - P]), int(inst.bin_q[col - P])
                        others.append(bq if bp == end else bp)
                side = inst.pair_left if s.left_row[r] else inst.pair_right
                assert len(set(side[others].tolist())) == 1
    linking = np.flatnonzero(s.row_end >= 0)
    assert s.link_rows.tolist() == linking.tolist()
    assert s.link_end.tolist() == s.row_end[linking].tolist()
    assert s.y_rows[s.link_starts].tolist() == linking.tolist()
    for side, rows, n in ((inst.pair_left, s.one_row_left, inst.n_left),
                          (inst.pair_right, s.one_row_right, inst.n_right)):
        for v in range(n):
            pairs = np.flatnonzero(side == v).tolist()
            if len(pairs) < 2:
                assert rows[v] == -1
            else:
                assert entries(R, rows[v]) == pairs


@settings(max_examples=60, deadline=None)
@given(latent_instances(max_vars=6), st.integers(0, 2**32 - 1))
def test_the_bound_from_reduced_costs_at_hand_is_weak_dualitys(inst, seed):
    """Multipliers ``y >= 0`` (some exactly 0): the same number as
    :func:`~exactalign.core.model.dual_bound_terms`' terms summed."""
    model = latent.ilp_model(inst)
    assume(model.num_vars > 0)
    rng = np.random.default_rng(seed)
    y = rng.exponential(0.5, model.num_rows) * (rng.random(model.num_rows) < 0.7)
    d = model.c - model.A.T @ y
    assert colgen._bound(model, y, d) == sum(float(t.sum()) for t in dual_bound_terms(model, y))
