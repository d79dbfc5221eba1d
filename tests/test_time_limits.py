"""``--time-limit`` bounds the whole exact computation (model building and searches included):
past it a solve returns its incumbent, checked, with a valid bound and status ``time_limit``;
instances too large for a formulation are refused with one clear error, not by exhausting
memory."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactalign import ModelTooLargeError
from exactalign.core.deadline import Deadline, TimeLimitReached
from exactalign.core.result import Status
from exactalign.problems import latent, monotone
from exactalign.problems.latent import exact as latent_exact
from tests.test_latent import SQUARE
from tests.test_latent import instances as latent_instances


def test_deadline():
    d = Deadline(None)
    assert d.left() is None and not d.expired()
    d.check()
    d = Deadline(0.0)
    assert d.left() == 0.0 and d.expired()
    with pytest.raises(TimeLimitReached, match="time limit of 0 s reached while building"):
        d.check("building")


def _chain_dags(n, seed):
    rng = np.random.default_rng(seed)
    W = (rng.random((n, n)) < 0.3).astype(float)
    edges = [(i, i + 1) for i in range(0, n - 1, 2)]  # many incomparable items: a large relation
    return monotone.MonotoneInstance.dags(W, edges, edges)


def test_monotone_ilp_stops_while_building_and_keeps_a_checked_incumbent(monkeypatch):
    monkeypatch.setattr(monotone, "_COMPOSE_ROWS", 16)  # deadline checks every 16 rows
    inst = _chain_dags(40, 0)
    res = monotone.solve(inst, "ilp", time_limit=0.0)
    assert res.status is Status.TIME_LIMIT
    # stopped by a deadline check inside the build (not timed: a loaded machine is slower)
    assert "time limit" in res.details["stopped"] and "while building" in res.details["stopped"]
    assert res.objective == pytest.approx(monotone.check(inst, res.alignment))
    assert res.bound >= monotone.solve(inst, "exact").objective - 1e-9


def test_monotone_compact_ilp_refuses_a_relation_too_large(monkeypatch):
    monkeypatch.setattr(monotone, "COMPACT_MAX_CELLS", 100)
    inst = monotone.MonotoneInstance.sequences(np.ones((4, 4)))
    with pytest.raises(ModelTooLargeError, match="solved exactly by the DP"):
        monotone.solve(inst, "ilp")
    assert monotone.solve(inst, "exact").objective == 4.0  # the DP is unaffected


def test_monotone_cli_all_skips_a_refused_method(monkeypatch, tmp_path, capsys):
    import json

    from exactalign import cli

    monkeypatch.setattr(monotone, "COMPACT_MAX_CELLS", 100)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(list("aaaa")))  # 16 candidate pairs: 256 cells > 100
    b.write_text(json.dumps(list("aaaa")))
    assert cli.main(["monotone", str(a), str(b), "--json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert "ilp" in doc["skipped"] and "ilp" not in doc["solves"]
    assert doc["solves"]["exact"]["objective"] == 4.0
    assert "warning: method ilp skipped" in err


def test_local_search_honours_the_time_limit():
    inst = _chain_dags(30, 1)
    res = monotone.solve(inst, "local", time_limit=0.0)
    assert res.status is Status.FEASIBLE
    assert res.objective == pytest.approx(monotone.check(inst, res.alignment))
    # with no time the search stops at its greedy start
    assert res.objective == pytest.approx(monotone.solve(inst, "greedy").objective)


@settings(max_examples=15, deadline=None)
@given(latent_instances(max_vars=4))
def test_latent_exact_without_time_keeps_a_valid_bound(inst):
    """No time at all: the LP stops at once, the rounded start is kept, its bound holds."""
    res = latent.solve(inst, "exact", time_limit=0.0)
    best = latent.solve(inst, "brute").objective
    assert res.status in (Status.TIME_LIMIT, Status.OPTIMAL)
    assert res.objective == latent.check(inst, res.alignment)
    assert res.objective <= best + 1e-9 <= res.bound + 2e-9
    if res.status is Status.OPTIMAL:
        assert res.objective == best


def _dense_instance(n):
    """n variables a side, every pair of variables linked both ways: many pairs of pairs."""
    un = [("a", i) for i in range(n)]
    bi = [("r", i, j) for i in range(n) for j in range(n) if i != j]
    return latent.LatentInstance(n, n, un, bi, un, bi)


def _cycle_against_dag(n):
    """A directed n-cycle against an n-path with a chord (all variables 'a'): the cycle has n
    edges and the path n, but no one-to-one mapping keeps all n, so the optimum (2n - 1) is
    below the bound that counts triples (2n)."""
    un = [("a", i) for i in range(n)]
    return latent.LatentInstance(n, n, un, [("r", i, (i + 1) % n) for i in range(n)], un,
                                 [("r", i, i + 1) for i in range(n - 1)] + [("r", 0, 2)])


def test_latent_lp_time_limit_gives_no_mip_to_an_instance_that_holds_the_batch(monkeypatch):
    """When the batch LP runs out of time, an instance holding half of its columns or more gets
    no MIP (its root LP would not finish either: HiGHS' probing overran its time limit by
    seconds on an 800-node pair); a small one still gets its MIP. Both keep valid bounds."""
    from exactalign.core import solve as core_solve
    from exactalign.core.solve import BackendOutcome, SolveOptions

    calls = []
    real = core_solve.solve_model

    def fake(model, backend="highs", options=None, **kw):
        calls.append(model.is_mip)
        if not model.is_mip:  # the batch LP: out of time, no point
            return BackendOutcome(status=Status.TIME_LIMIT, x=None, objective=None, bound=None,
                                  nodes=0, wall_time=0.0, backend="highs", solver_version="x",
                                  raw_status="Time limit reached")
        return real(model, backend, options, **kw)

    monkeypatch.setattr(latent_exact, "solve_model", fake)
    big, small = _cycle_against_dag(20), SQUARE
    res = latent.solve_exact_many([big, small], options=SolveOptions(time_limit=60))
    assert calls == [False, True]  # the LP, then the small instance's MIP only
    r_big, r_small = res
    assert r_big.status is Status.TIME_LIMIT and r_big.backend == "highs"
    assert "no MIP" in r_big.details["stopped"]
    assert r_big.objective == latent.check(big, r_big.alignment) <= r_big.bound
    assert r_big.bound >= latent.solve(big, "bnb").objective
    assert r_small.proven_optimal and r_small.objective == 3.0


def test_latent_instance_over_the_memory_limit_is_not_modelled(monkeypatch):
    """A pair whose model would exceed EXACTALIGN_MEMORY_LIMIT gets no solver: a checked
    incumbent, a valid bound, status feasible, the reason; the other pairs are solved."""
    calls = []
    real = latent_exact.solve_model
    monkeypatch.setattr(latent_exact, "solve_model",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    big = _cycle_against_dag(20)
    cols = big.num_pairs + len(big.bin_w)
    assert latent.memory_estimate(big) == latent.BYTES_PER_COLUMN * cols
    monkeypatch.setenv("EXACTALIGN_MEMORY_LIMIT", str(latent.BYTES_PER_COLUMN * cols - 1))
    r_small, r_big = latent.solve_exact_many([SQUARE, big])
    assert r_big.status is Status.FEASIBLE and r_big.backend is None
    assert "memory" in r_big.details["stopped"]
    assert "EXACTALIGN_MEMORY_LIMIT" in r_big.details["stopped"]
    assert r_big.objective == latent.check(big, r_big.alignment)
    assert r_big.objective <= latent.solve(big, "bnb").objective <= r_big.bound
    assert r_small.proven_optimal and r_small.objective == 3.0
    assert calls  # the small pair was solved
    monkeypatch.setenv("EXACTALIGN_MEMORY_LIMIT", str(latent.BYTES_PER_COLUMN * cols))
    assert latent.solve_exact_many([big])[0].proven_optimal


def test_a_model_solved_by_column_generation_is_estimated_at_its_own_rate(monkeypatch):
    """Over :data:`~latent_exact.COLGEN_COLUMNS` columns with aggregated linking only a few
    percent of the model reaches HiGHS: such a pair is estimated (and refused) at
    :data:`~latent_exact.BYTES_PER_COLGEN_COLUMN` a column, and solved under a limit the
    whole-model rate would refuse; simple linking keeps the whole-model rate."""
    big = _cycle_against_dag(20)
    cols = big.num_pairs + len(big.bin_w)
    monkeypatch.setattr(latent_exact, "COLGEN_COLUMNS", cols - 1)
    assert latent.BYTES_PER_COLGEN_COLUMN < latent.BYTES_PER_COLUMN
    assert latent.memory_estimate(big) == latent.BYTES_PER_COLGEN_COLUMN * cols
    assert latent.memory_estimate(big, "simple") == latent.BYTES_PER_COLUMN * cols
    monkeypatch.setenv("EXACTALIGN_MEMORY_LIMIT", str(latent.BYTES_PER_COLGEN_COLUMN * cols))
    r = latent.solve_exact_many([big])[0]
    assert r.proven_optimal and r.objective == latent.solve(big, "bnb").objective
    assert latent.solve_exact_many([big], linking="simple")[0].status is Status.FEASIBLE
    monkeypatch.setenv("EXACTALIGN_MEMORY_LIMIT", str(latent.BYTES_PER_COLGEN_COLUMN * cols - 1))
    assert "memory" in latent.solve_exact_many([big])[0].details["stopped"]


@pytest.mark.parametrize("text,value", [("4G", 4 * 2 ** 30), ("512M", 512 * 2 ** 20),
                                        ("1500", 1500), ("1.5k", 1536), ("2GiB", 2 * 2 ** 30)])
def test_memory_limit_sizes(text, value):
    from exactalign.core.memory import parse_bytes
    assert parse_bytes(text) == value


def test_memory_limit_rejects_a_non_size(monkeypatch):
    from exactalign.core.errors import ExactAlignError
    from exactalign.core.memory import memory_limit
    monkeypatch.setenv("EXACTALIGN_MEMORY_LIMIT", "lots")
    with pytest.raises(ExactAlignError, match="EXACTALIGN_MEMORY_LIMIT='lots' is not a size"):
        memory_limit()


@settings(max_examples=200, deadline=None)
@given(latent_instances(max_vars=4))
def test_latent_bound_without_a_solver_is_valid(inst):
    """The bound a pair keeps when no solver ran (LP out of time, model over the memory limit)
    is never below the optimum, duplicate triples included."""
    assert latent.trivial_bound(inst) >= latent.solve(inst, "brute").objective - 1e-9


def test_latent_bound_without_a_solver_counts_triples():
    """Without duplicates the count bound is sum over keys of min(left, right) triples: SQUARE
    has 2 'a' triples a side and r-triples 2 left, 1 right: 2 + 1 = 3 (its optimum)."""
    assert latent.trivial_bound(SQUARE) == 3.0
    assert latent.trivial_bound(_dense_instance(4)) == 4 + 12
    assert latent.trivial_bound(_cycle_against_dag(6)) == 12
    assert latent.solve(_cycle_against_dag(6), "exact").objective == 11


def _stopped_pdlp(monkeypatch, perturb, finished=False):
    """Make the batch LP a PDLP stopped at its time limit (``finished``: one that converged,
    however far its duals are from optimal): status ``time_limit`` (``optimal``), no solution,
    the optimal point and duals of the LP as HiGHS' simplex gives them, passed through
    ``perturb(x, y) -> (iterate, duals)``. Returns the options each LP was asked with."""
    asked = []

    def fake(model, options):
        asked.append(options)
        out = latent_exact.solve_model(model, "highs", dataclasses.replace(
            options, lp_method=None, lp_tolerance=None))
        iterate, duals = perturb(out.x, out.row_dual)
        if finished:
            return dataclasses.replace(out, status=Status.ERROR, x=iterate, objective=None,
                                       bound=None, row_dual=duals, raw_status="Unknown")
        return dataclasses.replace(out, status=Status.TIME_LIMIT, x=None, objective=None,
                                   bound=None, row_dual=duals, iterate=iterate,
                                   raw_status="Time limit reached")

    monkeypatch.setattr(latent_exact, "_pdlp", fake)
    monkeypatch.setattr(latent_exact, "PDLP_GAP", np.inf)  # any duals are taken
    monkeypatch.setattr(latent_exact, "LARGE_LP_COLUMNS", 0)
    return asked


def _dual_bound(inst, duals) -> float:
    """The weak-duality bound of the LP of ``inst`` from ``duals`` (the better sign)."""
    from exactalign.core.model import dual_bound_terms

    model = latent.ilp_model(inst).relax()
    return min(sum(float(t.sum()) for t in dual_bound_terms(model, y)) for y in (duals, -duals))


@settings(max_examples=40, deadline=None)
@given(latent_instances(max_vars=4), st.integers(0, 2**32 - 1), st.floats(0.0, 2.0))
def test_latent_pdlp_stopped_at_the_limit_bounds_by_its_duals(inst, seed, noise):
    """PDLP stopped by the time limit, with any duals and any point (PDLP's last ones need not
    be optimal, nor the point feasible): the bound is the floor of what the duals certify by weak
    duality (no more than the triples' count), it holds the optimum, the mapping is checked; the
    LP ran under the limit with presolve off (HiGHS keeps duals of an unfinished PDLP only so)."""
    rng = np.random.default_rng(seed)

    def perturb(x, y):
        return (x + noise * rng.normal(size=x.shape),
                y * (1 + noise * rng.normal(size=y.shape)) + noise * rng.normal(size=y.shape))

    with pytest.MonkeyPatch.context() as mp:
        asked = _stopped_pdlp(mp, perturb)
        seen = []
        mp.setattr(latent_exact, "certified_lp_bound",
                   lambda *a, _f=latent_exact.certified_lp_bound, **k:
                   seen.append(a[1] and a[1].row_dual) or _f(*a, **k))
        res = latent.solve(inst, "exact", time_limit=30.0)
    best = latent.solve(inst, "brute").objective
    assert res.objective == latent.check(inst, res.alignment)
    assert res.objective <= best + 1e-9 <= res.bound + 2e-9
    if inst.num_pairs:
        assert [(o.lp_method, o.presolve) for o in asked] == [("pdlp", False)]
        assert asked[0].time_limit <= 0.75 * 30.0
        certified = min(_dual_bound(inst, seen[0]), latent.trivial_bound(inst))
        assert res.bound <= max(np.floor(certified + 1e-6), res.objective)
    if res.status is Status.OPTIMAL:
        assert res.objective == best
    else:
        assert res.status is Status.TIME_LIMIT and "PDLP" in res.details["stopped"]


@settings(max_examples=40, deadline=None)
@given(latent_instances(max_vars=4), st.integers(0, 2**32 - 1), st.floats(0.0, 2.0))
def test_latent_pdlp_converged_to_any_duals_still_proves_the_optimum(inst, seed, noise):
    """A big batch LP's PDLP answer is taken loosely (its point only rounded, its duals only
    certify): with any duals, as far from optimal as they come, the bound stays valid, reduced-
    cost fixing from them keeps the optimum, and without a time limit the optimum is proven."""
    rng = np.random.default_rng(seed)

    def perturb(x, y):
        return (x + noise * rng.normal(size=x.shape),
                y * (1 + noise * rng.normal(size=y.shape)) + noise * rng.normal(size=y.shape))

    with pytest.MonkeyPatch.context() as mp:
        asked = _stopped_pdlp(mp, perturb, finished=True)
        res = latent.solve(inst, "exact")
    best = latent.solve(inst, "brute").objective
    assert res.proven_optimal and res.objective == best == latent.check(inst, res.alignment)
    assert res.bound == best
    if inst.num_pairs:
        assert [(o.lp_method, o.presolve, o.lp_tolerance) for o in asked] == [
            ("pdlp", True, latent_exact.PDLP_TOLERANCE)]


def test_latent_pdlp_stopped_with_optimal_duals_proves_a_tight_lp():
    """Duals as good as the optimum's, a point left fractional: the rounding reaches their bound,
    which proves it (status optimal, by the LP bound)."""
    with pytest.MonkeyPatch.context() as mp:
        _stopped_pdlp(mp, lambda x, y: (np.full_like(x, 0.5), y))
        res = latent.solve(SQUARE, "exact", time_limit=30.0)
    assert res.proven_optimal and res.objective == res.bound == 3.0
    assert res.details["proven_by"] == {"LP bound": 1}


@pytest.mark.parametrize("iterations", [1, 10])
def test_latent_pdlp_on_highs_stopped_at_the_limit_keeps_its_duals(monkeypatch, iterations):
    """Real HiGHS: a PDLP stopped short (presolve off, as under a time limit) returns duals and
    its last point; the exact path keeps them (the point as ``iterate``), and the result keeps a
    valid bound and a checked mapping (a 200-variable random AMR pair, 13,409 columns, its LP
    sent to PDLP).

    PDLP is stopped by HiGHS' ``pdlp_iteration_limit``, not by the clock: the same stop on any
    machine (it was stopped at 0.075 s, and on a loaded machine PDLP barely started: its point,
    the all-zero start, is primal feasible, so HiGHS returned it as ``x``, not as ``iterate``,
    and the test failed). Both cases are here: after 1 iteration (HiGHS 1.15.1: the start, in
    ``x``) and after 10 (a point that is not feasible, in ``iterate``). HiGHS reports an
    iteration limit as a time limit is reported (status ``time_limit``)."""
    from exactalign.backends import highs as highs_backend
    from exactalign.metrics.smatch import instance_of
    from experiments.performance import amr_pair

    inst = instance_of(*amr_pair(200, 0), "full")
    best = latent.solve(inst, "exact")
    assert best.proven_optimal
    real_configure = highs_backend._configure

    def stop_early(h, model, options):
        integral = real_configure(h, model, options)
        if options.lp_method == "pdlp":
            h.setOptionValue("pdlp_iteration_limit", iterations)
        return integral

    monkeypatch.setattr(highs_backend, "_configure", stop_early)
    outcomes, relaxations = [], []
    real, real_relaxation = latent_exact._pdlp, latent_exact._lp_relaxation
    monkeypatch.setattr(latent_exact, "_pdlp", lambda m, o: (
        outcomes.append((o, out := real(m, o))) or out))
    monkeypatch.setattr(latent_exact, "_lp_relaxation", lambda m, o, *a: (
        relaxations.append(out := real_relaxation(m, o, *a)) or out))
    monkeypatch.setattr(latent_exact, "LARGE_LP_COLUMNS", 0)
    res = latent.solve(inst, "exact", time_limit=600.0)  # a limit, never reached
    opts, lp = outcomes[0]
    assert opts.lp_method == "pdlp" and not opts.presolve and opts.time_limit <= 0.75 * 600
    assert lp.status is Status.TIME_LIMIT and lp.raw_status == "Iteration limit reached"
    assert lp.row_dual is not None
    assert (lp.x is None) != (lp.iterate is None)  # its last point, feasible (x) or not
    kept = relaxations[0]  # what the exact path goes on with: the duals and the point
    assert kept.status is Status.TIME_LIMIT and kept.x is None
    assert kept.row_dual is not None and kept.iterate is not None
    assert res.objective == latent.check(inst, res.alignment) <= best.objective <= res.bound
    assert res.bound <= latent.trivial_bound(inst)
    assert res.to_dict()["presolve"] is False and best.to_dict()["presolve"] is True
