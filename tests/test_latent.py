"""Latent-variable matching: exact == ILP (every backend, both linkings) == brute force on small
random instances; the hill-climber never beats the optimum; the checker recomputes every
objective; batches equal single solves."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from exactalign.core.errors import InfeasibleAlignmentError
from exactalign.core.solve import solve_model
from exactalign.problems import latent
from exactalign.problems.latent import LatentInstance
from exactalign.problems.latent import exact as latent_exact


@st.composite
def instances(draw, max_vars=4):
    nl = draw(st.integers(1, max_vars))
    nr = draw(st.integers(1, max_vars))

    def side(n):
        un = draw(st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, n - 1)),
                           max_size=2 * n))
        bi = draw(st.lists(st.tuples(st.sampled_from("rs"), st.integers(0, n - 1),
                                     st.integers(0, n - 1)), max_size=2 * n))
        return un, bi

    lu, lb = side(nl)
    ru, rb = side(nr)
    return LatentInstance(nl, nr, lu, lb, ru, rb)


# Two variables per side; each left triple has two right partners (smatch's "cycle" case).
SQUARE = LatentInstance(2, 2, [("a", 0), ("a", 1)], [("r", 0, 1), ("r", 1, 0)],
                        [("a", 0), ("a", 1)], [("r", 0, 1)])


def test_square_by_hand():
    # map 0->0, 1->1: two instance matches + r(0,1) ; 0->1, 1->0: two + r(1,0)->r(0,1)
    assert latent.check(SQUARE, [[0, 0], [1, 1]]) == 3.0
    assert latent.check(SQUARE, [[0, 1], [1, 0]]) == 3.0
    assert latent.check(SQUARE, [[0, 0]]) == 1.0
    r = latent.solve(SQUARE)
    assert r.proven_optimal and r.objective == 3.0 and r.bound == 3.0


def test_check_rejects_non_injective():
    with pytest.raises(InfeasibleAlignmentError, match="mapped 2 times"):
        latent.check(SQUARE, [[0, 0], [1, 0]])
    with pytest.raises(InfeasibleAlignmentError, match="outside"):
        latent.check(SQUARE, [[0, 2]])


@given(instances())
def test_exact_ilp_brute_agree(inst):
    assume(inst.num_pairs <= 12)
    brute, _ = latent.brute_force(inst)
    ex = latent.solve(inst, "exact")
    assert ex.proven_optimal and ex.objective == brute == latent.check(inst, ex.alignment)
    for linking in ("aggregated", "simple"):
        il = latent.solve(inst, "ilp", linking=linking)
        assert il.proven_optimal and il.objective == brute
    hc = latent.solve(inst, "hillclimb", seed=3)
    assert hc.objective <= brute
    assert hc.objective == latent.check(inst, hc.alignment)


@given(instances(max_vars=5))
def test_aggregated_lp_is_tighter(inst):
    bounds = []
    for linking in ("simple", "aggregated"):
        m = latent.ilp_model(inst, linking)
        bounds.append(solve_model(m.relax()).objective if m.num_vars else 0.0)
    ex = latent.solve(inst).objective
    assert ex - 1e-6 <= bounds[1] <= bounds[0] + 1e-6


@pytest.mark.parametrize("backend", ["scipy", "pulp", "brute"])
def test_backends_agree(backend):
    rng = np.random.default_rng(0)
    for _ in range(3):
        n = 4
        lu = [(str(rng.integers(3)), int(rng.integers(n))) for _ in range(4)]
        ru = [(str(rng.integers(3)), int(rng.integers(n))) for _ in range(4)]
        lb = [("r", int(rng.integers(n)), int(rng.integers(n))) for _ in range(4)]
        rb = [("r", int(rng.integers(n)), int(rng.integers(n))) for _ in range(4)]
        inst = LatentInstance(n, n, lu, lb, ru, rb)
        ref = latent.solve(inst).objective
        if backend == "brute" and inst.num_pairs + len(inst.bin_w) > 20:
            continue
        assert latent.solve(inst, "ilp", backend=backend).objective == ref


def test_batch_equals_single():
    rng = np.random.default_rng(1)
    insts = []
    for _ in range(20):
        n = int(rng.integers(2, 7))
        lu = [(int(rng.integers(4)), int(rng.integers(n))) for _ in range(n)]
        ru = [(int(rng.integers(4)), int(rng.integers(n))) for _ in range(n)]
        lb = [(int(rng.integers(2)), int(rng.integers(n)), int(rng.integers(n)))
              for _ in range(2 * n)]
        rb = [(int(rng.integers(2)), int(rng.integers(n)), int(rng.integers(n)))
              for _ in range(2 * n)]
        insts.append(LatentInstance(n, n, lu, lb, ru, rb))
    many = latent.solve_exact_many(insts)
    for inst, r in zip(insts, many, strict=True):
        assert r.proven_optimal
        assert r.objective == latent.solve(inst, "ilp").objective
        assert r.objective == latent.check(inst, r.alignment)


def test_hillclimb_is_seeded():
    inst = LatentInstance(3, 3, [("a", 0), ("a", 1), ("a", 2)], [("r", 0, 1), ("r", 1, 2)],
                          [("a", 0), ("a", 1), ("a", 2)], [("r", 2, 1), ("r", 1, 0)])
    a = latent.solve(inst, "hillclimb", seed=5, restarts=3)
    b = latent.solve(inst, "hillclimb", seed=5, restarts=3)
    assert a.details["rounds"] == b.details["rounds"]
    assert np.array_equal(a.alignment, b.alignment)
    assert a.objective <= latent.solve(inst).objective == 5.0


def _fractional_instance():
    """An instance whose LP bound (3) exceeds the optimum (2) by a whole unit (found by a seeded
    search): only the MIP can prove it."""
    lb = [("1", 2, 1), ("0", 3, 1), ("1", 1, 0), ("1", 0, 3), ("1", 3, 2), ("1", 2, 0)]
    rb = [("0", 2, 0), ("0", 2, 1), ("1", 1, 3), ("1", 0, 2), ("0", 2, 2), ("0", 1, 2)]
    return LatentInstance(4, 4, [], lb, [], rb)


def test_mip_path_and_time_limit():
    inst = _fractional_instance()
    brute, _ = latent.brute_force(inst)
    assert solve_model(latent.ilp_model(inst).relax()).objective == pytest.approx(3.0)
    r = latent.solve(inst)
    assert r.proven_optimal and r.objective == brute == 2.0
    assert r.details["proven_by"] == {"reduced-cost MIP": 1} and r.bound == 2.0
    # No time at all: the LP is not solved either (the limit bounds the whole computation), so
    # the result is the assignment start with a loose but valid bound.
    t = latent.solve(inst, time_limit=0.0)
    assert t.status.value == "time_limit" and t.objective == latent.check(inst, t.alignment)
    assert t.objective <= brute <= t.bound
    assert latent.solve(inst, time_limit=30.0).objective == 2.0


@settings(max_examples=60, deadline=None)
@given(instances(max_vars=4))
def test_reduced_cost_fixing_keeps_the_optimum(inst):
    """The worst incumbent (nothing mapped) sends every component the LP does not prove to the
    MIP over the pairs that reduced-cost fixing keeps: still the brute-force optimum, proven,
    with a bound that holds."""
    import unittest.mock as mock

    assume(inst.num_pairs <= 12)
    brute, _ = latent.brute_force(inst)
    with mock.patch.object(latent_exact, "round_point",
                           lambda sub, xp, climb=True, deadline=None: latent.mapping_array([], [])):
        r = latent.solve(inst, "exact")
    assert r.proven_optimal and r.objective == brute == latent.check(inst, r.alignment)
    assert r.bound == brute


def _model_sizes(monkeypatch) -> list:
    """The candidate pairs of every model the exact method builds, in order."""
    sizes = []
    real = latent.ilp_model
    monkeypatch.setattr(latent_exact, "ilp_model",
                        lambda i, linking="aggregated": sizes.append(i.num_pairs) or real(i, linking))
    return sizes


def test_no_mapping_on_the_reduced_cost_pairs_reaches_the_lp_bound(monkeypatch):
    """On the fractional instance (LP 3, optimum 2): the batch LP (16 pairs); the MIP on the LP
    point's support (8 pairs) reaches only 2; the next set around the point holds all 14 pairs
    that could take part in a mapping worth floor(LP) = 3 (the LP's reduced costs rule out 2),
    and its MIP proves none does -- so every mapping is worth at most 2 and the incumbent is
    optimal without a MIP on the whole component."""
    inst = _fractional_instance()
    sizes = _model_sizes(monkeypatch)
    r = latent.solve(inst, "exact")
    assert r.proven_optimal and r.objective == r.bound == 2.0
    assert sizes == [inst.num_pairs, 8, 14]
    assert r.details["proven_by"] == {"reduced-cost MIP": 1}


def test_targets_skip_a_set_that_is_most_of_the_reduced_cost_set():
    """A 10 x 10 instance whose LP point is a 3-cycle of halves on variables 0-2 (6 pairs), the
    pairs of zero reduced cost those among variables 0-5 on both sides (36 of 100). The
    ``fractional`` set (the 6 plus the zero pairs among 0-2: 9 pairs, a quarter of 36) is
    tried; ``near fractional`` (27 of the 36) is not: the ``reduced cost`` set comes next."""
    from exactalign.problems.latent.instance import compiled_view

    left, right = np.divmod(np.arange(100), 10)
    inst = compiled_view(10, 10, dict(
        pair_left=left, pair_right=right, unary=np.ones(100),
        bin_p=np.zeros(0, np.int64), bin_q=np.zeros(0, np.int64), bin_w=np.zeros(0)))
    xp = np.zeros(100)
    xp[[0, 11, 22, 1, 12, 20]] = 0.5  # (0,0) (1,1) (2,2) (0,1) (1,2) (2,0)
    if_one = np.where((left < 6) & (right < 6), 10.0, 5.0)
    got = [(name, len(pairs), complete)
           for name, pairs, complete in latent_exact._targets(inst, xp, 10.0, if_one)]
    assert got == [("support", 6, False), ("fractional", 9, False), ("reduced cost", 36, True)]
    # without the reduced-cost set (more than TARGET_SHARE of the pairs) nothing is skipped
    wide = np.where(left < 6, 10.0, 5.0)  # 60 of 100 pairs
    got = [name for name, _, _ in latent_exact._targets(inst, xp, 10.0, wide)]
    assert got == ["support", "fractional", "near fractional"]


def test_targets_try_the_pairs_column_generation_held_before_the_reduced_cost_set():
    """The instance above, ``wide`` made the reduced-cost set (36 pairs) again: of its pairs,
    those column generation held (``held``) join the LP point's support in a ``held`` set, tried
    before the last set when at most HELD_SHARE of it (here 6 + 10 = 16 of 36), skipped when
    more (30 of 36), and skipped too when no larger than the set before it."""
    from exactalign.problems.latent.instance import compiled_view

    left, right = np.divmod(np.arange(100), 10)
    inst = compiled_view(10, 10, dict(
        pair_left=left, pair_right=right, unary=np.ones(100),
        bin_p=np.zeros(0, np.int64), bin_q=np.zeros(0, np.int64), bin_w=np.zeros(0)))
    xp = np.zeros(100)
    xp[[0, 11, 22, 1, 12, 20]] = 0.5
    if_one = np.where((left < 6) & (right < 6), 10.0, 5.0)

    def names(held):
        return [(name, len(pairs), complete)
                for name, pairs, complete in latent_exact._targets(inst, xp, 10.0, if_one, held)]

    held = (left >= 3) & (left < 5) & (right < 5)  # 10 zero pairs outside the support
    held[99] = True  # a pair of nonzero reduced cost: never in the set
    assert latent_exact.HELD_SHARE == 0.5
    assert names(held) == [("support", 6, False), ("fractional", 9, False),
                           ("held", 16, False), ("reduced cost", 36, True)]
    most = (left < 6) & (right < 6) & (left >= 1)  # 30 of the 36: skipped
    assert names(most) == [("support", 6, False), ("fractional", 9, False),
                           ("reduced cost", 36, True)]
    inner = (left < 3) & (right < 3)  # inside the fractional set: no larger, skipped
    assert names(inner) == names(None)


def test_restricted_mips_run_without_root_restarts(monkeypatch):
    """Every MIP the exact path runs on a set of pairs is solved with ``restart=MIP_RESTART``
    (off), and the fractional instance is still proven at its brute-force optimum."""
    seen = []
    real = latent_exact.solve_model
    monkeypatch.setattr(latent_exact, "solve_model",
                        lambda model, backend, opts: (model.is_mip and seen.append(opts.restart))
                        or real(model, backend, opts))
    inst = _fractional_instance()
    r = latent.solve(inst, "exact")
    assert r.proven_optimal and r.objective == latent.brute_force(inst)[0] == 2.0
    assert latent_exact.MIP_RESTART is False and seen == [False, False]


def test_the_mip_on_pairs_that_can_beat_the_incumbent(monkeypatch):
    """Without the sets around the LP point, the incumbent 2 goes to the last step: the MIP on
    the 14 pairs that could beat it (reduced-cost fixing drops 2 of 16), which proves 2."""
    monkeypatch.setattr(latent_exact, "_targets", lambda *a: [])
    inst = _fractional_instance()
    sizes = _model_sizes(monkeypatch)
    r = latent.solve(inst, "exact")
    assert r.proven_optimal and r.objective == r.bound == 2.0
    assert sizes == [inst.num_pairs, 14]
    assert r.details["proven_by"] == {"MIP": 1}


def test_the_support_mip_reaches_a_tight_lp_bound(monkeypatch):
    """An instance (found by a seeded search) whose LP optimum 4 is the optimum but whose LP
    point is fractional and rounds to less: the MIP on the point's 7 support pairs finds a
    mapping worth 4, proven by the LP bound -- no MIP on the whole instance."""
    lb = [("1", 1, 0), ("0", 1, 2), ("0", 3, 0), ("0", 1, 2), ("0", 3, 0), ("1", 0, 3),
          ("0", 1, 1), ("1", 2, 3)]
    rb = [("0", 2, 2), ("1", 2, 3), ("0", 1, 0), ("1", 0, 2), ("1", 1, 1), ("1", 2, 2),
          ("1", 0, 1), ("0", 3, 0)]
    inst = LatentInstance(4, 4, [("1", 2)], lb, [], rb)
    sizes = _model_sizes(monkeypatch)
    r = latent.solve(inst, "exact")
    assert r.proven_optimal and r.objective == r.bound == latent.brute_force(inst)[0] == 4.0
    assert sizes == [inst.num_pairs, 7]
    assert r.details["proven_by"] == {"LP bound, restricted MIP": 1}


@settings(max_examples=40, deadline=None)
@given(instances(max_vars=4), st.integers(0, 2**32 - 1))
def test_a_restricted_mip_keeps_its_whole_start(inst, seed):
    """The MIP on a set of pairs is warm-started from a mapping that may use pairs outside the
    set: those pairs join it, so the answer is never worse than the start (the start cut down
    to the set could be), and the answer is a checked mapping of the instance."""
    import time

    from exactalign.core.solve import SolveOptions

    assume(2 <= inst.num_pairs <= 12)
    rng = np.random.default_rng(seed)
    start, start_map = latent.brute_force(inst)
    keep = np.flatnonzero(rng.random(inst.num_pairs) < 0.3)
    mapping, objective, _ = latent_exact._restricted_mip(
        inst, keep, start_map, "aggregated", SolveOptions(), "highs", time.perf_counter())
    assert objective == latent.check(inst, mapping) >= start


def _best_with(inst: LatentInstance) -> np.ndarray:
    """Per useful pair, the best objective of a one-to-one mapping that uses it (every mapping
    enumerated and scored by :func:`latent.check`, independently of any LP)."""
    pl, pr = inst.pair_left.tolist(), inst.pair_right.tolist()
    best = np.full(inst.num_pairs, -np.inf)
    chosen: list = []

    def rec(k: int, used_l: frozenset, used_r: frozenset) -> None:
        if k == inst.num_pairs:
            if chosen:
                val = latent.check(inst, [[pl[p], pr[p]] for p in chosen])
                best[chosen] = np.maximum(best[chosen], val)
            return
        if pl[k] not in used_l and pr[k] not in used_r:
            chosen.append(k)
            rec(k + 1, used_l | {pl[k]}, used_r | {pr[k]})
            chosen.pop()
        rec(k + 1, used_l, used_r)

    rec(0, frozenset(), frozenset())
    return best


@settings(max_examples=150, deadline=None)
@given(instances(max_vars=4), st.data())
def test_settle_is_exact_for_any_valid_bounds(inst, data):
    """:func:`_settle`'s reasoning needs only that its bounds hold: ``lp_bound`` at least the
    optimum, ``if_one[p]`` at least the best mapping through pair ``p``. Given any such bounds
    (the exact ones inflated at random, so the sets it tries and the steps it takes vary) and any
    point to round, it returns the brute-force optimum, proven, with the optimum as bound. The
    reduced-cost step is reached here far more often than from real LPs of tiny instances (a
    set holding every pair that could reach ``floor(LP)`` finds none that does, so the bound
    drops by one), and lowering the bound by more would stop at a worse incumbent."""
    import time

    from exactalign.core.solve import SolveOptions

    assume(2 <= inst.num_pairs <= 10)
    opt, _ = latent.brute_force(inst)
    P = inst.num_pairs
    slack = data.draw(st.integers(0, 2), label="lp_bound - optimum")
    inflate = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.0, 0.5, 1.0, 2.0, 9.0]),
                                          min_size=P, max_size=P), label="if_one inflation"))
    if_one = None if data.draw(st.booleans(), label="no if_one") else _best_with(inst) + inflate
    xp = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=P, max_size=P),
                            label="LP point"))
    m, obj, bound, status, how, _, _ = latent_exact._settle(
        inst, xp, float(opt + slack), "aggregated", SolveOptions(), "highs",
        time.perf_counter(), if_one)
    assert obj == latent.check(inst, m) == opt, how
    assert status.value == "optimal" and bound == opt, (how, bound)


@settings(max_examples=80, deadline=None)
@given(instances(max_vars=4))
def test_the_lp_duals_bound_every_mapping_through_each_pair(inst):
    """The per-pair bounds reduced-cost fixing uses (:func:`certified_lp_bound`: the
    component's weak-duality bound with that pair's column fixed to 1) hold: no mapping
    through a pair scores above its bound plus the other components' bounds (an instance of
    two components failed the old comparison with the pair's bound alone), and the components'
    bounds hold the optimum."""
    from exactalign.core.solve import SolveOptions

    assume(1 <= inst.num_pairs <= 10)
    model = latent.ilp_model(inst)
    lp = latent_exact._lp_relaxation(model, SolveOptions())
    count, label = latent_exact.component_labels(inst)
    col_label = np.concatenate([label, label[inst.bin_p]])
    lp_val = np.bincount(col_label, weights=model.c * lp.x, minlength=count)
    cert, if_one = latent_exact.certified_lp_bound(model, lp, col_label, lp_val, count)
    best = _best_with(inst)
    # a mapping through pair p scores at most p's bound in its component plus the others' bounds
    through = if_one[:inst.num_pairs] + cert.sum() - cert[label]
    assert (best <= through + 1e-6).all(), (best, if_one, cert, label)
    opt, _ = latent.brute_force(inst)
    assert cert.sum() >= opt - 1e-6
