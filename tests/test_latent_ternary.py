"""Latent-variable matching with clauses of up to three variables (DRS clauses): an independent
oracle (every one-to-one partial mapping, counted from the clauses) == brute force == exact ==
ILP (both linkings, several backends) == branch and bound, with repeated variables, duplicate
clauses and random ``allowed`` restrictions; hand-derived degenerate cases; heuristic <= exact
<= LP relaxation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactalign.core.result import Status
from exactalign.core.solve import SolveOptions, solve_model
from exactalign.problems import latent
from exactalign.problems.latent import LatentInstance
from exactalign.problems.latent.bnb3 import branch_and_bound3
from exactalign.problems.latent.ternary import improve

KEYS = {1: "ab", 2: "rs", 3: "AB"}


def _clauses(rng, n, k):
    out = []
    for _ in range(k):
        arity = int(rng.integers(1, 4))
        out.append((KEYS[arity][int(rng.integers(2))],
                    *(int(rng.integers(n)) for _ in range(arity))))
    return out


@st.composite
def instances(draw, max_vars=4, restrict=True):
    nl = draw(st.integers(1, max_vars))
    nr = draw(st.integers(1, max_vars))

    def side(n):
        clause = st.one_of(
            st.tuples(st.sampled_from(KEYS[1]), st.integers(0, n - 1)),
            st.tuples(st.sampled_from(KEYS[2]), st.integers(0, n - 1), st.integers(0, n - 1)),
            st.tuples(st.sampled_from(KEYS[3]), st.integers(0, n - 1), st.integers(0, n - 1),
                      st.integers(0, n - 1)))
        cl = draw(st.lists(clause, max_size=3 * n))
        # duplicate clauses on purpose (each copy counts)
        return cl + draw(st.lists(st.sampled_from(cl), max_size=2)) if cl else cl

    left, right = side(nl), side(nr)
    allowed = None
    if restrict and draw(st.booleans()):
        every = [(v, w) for v in range(nl) for w in range(nr)]
        allowed = frozenset(draw(st.lists(st.sampled_from(every), max_size=len(every))))
    return LatentInstance.from_clauses(nl, nr, left, right, allowed)


def oracle(inst: LatentInstance) -> int:
    """The optimum by enumerating every one-to-one partial mapping of all variables, counted
    from the clauses (:func:`latent.count_matches`): independent of the compiled form."""
    best = 0
    for k in range(min(inst.n_left, inst.n_right) + 1):
        for lefts in itertools.combinations(range(inst.n_left), k):
            for rights in itertools.permutations(range(inst.n_right), k):
                best = max(best, latent.count_matches(inst, list(zip(lefts, rights,
                                                                     strict=True))))
    return best


def _agree(inst):
    best = oracle(inst)
    if inst.num_pairs <= latent.BRUTE_MAX_PAIRS:
        assert latent.brute_force(inst)[0] == best
    ex = latent.solve(inst, "exact")
    assert ex.status is Status.OPTIMAL and ex.objective == ex.bound == best
    al = np.asarray(ex.alignment).reshape(-1, 2)
    assert latent.check(inst, al) == latent.count_matches(inst, al) == best
    if inst.allowed is not None:
        assert all((a, b) in inst.allowed for a, b in al.tolist())
    for linking in ("aggregated", "simple"):
        il = latent.solve(inst, "ilp", linking=linking)
        assert il.proven_optimal and il.objective == best
    bnb = latent.solve(inst, "bnb")
    assert bnb.proven_optimal and bnb.objective == best
    return best


@settings(max_examples=150, deadline=None)
@given(instances())
def test_exact_brute_bnb_oracle_agree(inst):
    _agree(inst)


@settings(max_examples=60, deadline=None)
@given(instances(), st.randoms(use_true_random=False))
def test_check_counts_the_clauses(inst, rnd):
    # a random one-to-one mapping: the compiled form (check) and the clauses agree
    lefts = list(range(inst.n_left))
    rights = list(range(inst.n_right))
    rnd.shuffle(lefts)
    rnd.shuffle(rights)
    k = rnd.randint(0, min(len(lefts), len(rights)))
    m = sorted(zip(lefts[:k], rights[:k], strict=True))
    assert latent.check(inst, np.array(m, np.int64).reshape(-1, 2)) == latent.count_matches(
        inst, m)
    un, bi = latent.matched_pairs(inst, m) if inst.allowed is None else ([], [])
    if inst.allowed is None:
        assert len(un) + len(bi) + len(latent.matches.matched_ternary(inst, m)) == \
            latent.count_matches(inst, m)


@settings(max_examples=80, deadline=None)
@given(instances(max_vars=5))
def test_heuristic_exact_lp_order(inst):
    ex = latent.solve(inst).objective
    heur = improve(inst, np.zeros((0, 2), np.int64))
    assert latent.check(inst, heur) <= ex
    lps = []
    for linking in ("simple", "aggregated"):
        m = latent.ilp_model(inst, linking)
        lps.append(solve_model(m.relax()).objective if m.num_vars else 0.0)
    assert ex - 1e-6 <= lps[1] <= lps[0] + 1e-6


@settings(max_examples=40, deadline=None)
@given(instances(max_vars=5), st.integers(1, 5))
def test_bnb_cut_short_keeps_a_valid_bound(inst, nodes):
    out = branch_and_bound3(inst, node_limit=nodes)
    best = latent.solve(inst).objective
    assert out.objective <= best <= out.bound
    assert out.objective == latent.count_matches(inst, out.mapping)


# -- hand-derived ----------------------------------------------------------------------------
def test_ternary_needs_all_three_pairs():
    inst = LatentInstance.from_clauses(3, 3, [("Agent", 0, 1, 2)], [("Agent", 2, 0, 1)])
    assert inst.num_pairs == 3 and inst.tri_w.tolist() == [1.0] and not len(inst.bin_w)
    assert latent.check(inst, [[0, 2], [1, 0]]) == 0.0
    assert latent.check(inst, [[0, 2], [1, 0], [2, 1]]) == 1.0
    r = latent.solve(inst)
    assert r.proven_optimal and r.objective == 1.0
    assert np.asarray(r.alignment).tolist() == [[0, 2], [1, 0], [2, 1]]


def test_inconsistent_ternary_pairs_are_dropped():
    # left repeats a variable (fields 1, 2) the right does not: one left var onto two right
    inst = LatentInstance.from_clauses(2, 3, [("EQU", 0, 0, 1)], [("EQU", 0, 1, 2)])
    assert inst.num_pairs == 0 and latent.solve(inst).objective == 0.0
    # and the other way round: two left variables onto one right
    inst = LatentInstance.from_clauses(3, 2, [("EQU", 0, 1, 2)], [("EQU", 0, 0, 1)])
    assert inst.num_pairs == 0 and latent.solve(inst, "bnb").objective == 0.0


def test_degenerate_ternary_pairs():
    # repeated on both sides in the same fields: a pair of pairs (0,2)-(1,0)
    inst = LatentInstance.from_clauses(2, 3, [("R", 0, 1, 0)], [("R", 2, 0, 2)])
    assert not len(inst.tri_w) and inst.bin_w.tolist() == [1.0]
    assert latent.solve(inst).objective == 1.0
    assert latent.check(inst, [[0, 2]]) == 0.0
    # the same variable thrice on both sides: a unary term
    inst = LatentInstance.from_clauses(2, 1, [("R", 1, 1, 1)], [("R", 0, 0, 0)])
    assert inst.unary.tolist() == [1.0] and not len(inst.bin_w)
    assert latent.check(inst, [[1, 0]]) == 1.0 == latent.solve(inst).objective


def test_arities_never_match_each_other():
    inst = LatentInstance.from_clauses(3, 3, [("A", 0), ("A", 0, 1)], [("A", 0, 1, 2)])
    assert inst.num_pairs == 0 and latent.count_matches(inst, [[0, 0], [1, 1], [2, 2]]) == 0


def test_duplicates_count_every_pair():
    left = [("A", 0, 1, 2), ("A", 0, 1, 2)]
    right = [("A", 0, 1, 2)] * 3
    inst = LatentInstance.from_clauses(3, 3, left, right)
    assert inst.tri_w.tolist() == [6.0]
    assert latent.solve(inst).objective == 6.0 == oracle(inst)


def _allowed_example(allowed):
    left = [("b", 0), ("Agent", 0, 1, 2), ("Theme", 0, 1, 2), ("c", 1), ("c", 2)]
    right = [("b", 0), ("Agent", 0, 1, 2), ("Theme", 0, 1, 2), ("c", 1), ("c", 2)]
    return LatentInstance.from_clauses(3, 3, left, right, allowed)


def test_allowed_restriction_lowers_the_optimum():
    assert latent.solve(_allowed_example(None)).objective == 5.0  # the identity: every clause
    # (2, 2) forbidden: no ternary clause can match (both need it); left c(2) can only take
    # right c(1) (2->1), so left c(1) takes c(2) (1->2): {0->0, 1->2, 2->1} = b + c + c = 3
    for allowed in ({(v, w) for v in range(3) for w in range(3)} - {(2, 2)},
                    lambda v, w: (v, w) != (2, 2)):
        inst = _allowed_example(allowed)
        r = latent.solve(inst)
        assert r.proven_optimal and r.objective == 3.0 == oracle(inst)
        assert latent.solve(inst, "bnb").objective == 3.0
    # boxes only onto boxes (variable 0 the box on both sides), 1 and 2 crossed: 1 + 0 + 2
    inst = _allowed_example({(0, 0), (1, 2), (2, 1)})
    assert latent.solve(inst).objective == 3.0 == oracle(inst)


def test_bad_clauses_are_refused():
    with pytest.raises(Exception, match="one to three variables"):
        LatentInstance.from_clauses(2, 2, [("A", 0, 1, 0, 1)], [])
    with pytest.raises(Exception, match="ternary clause"):
        LatentInstance(2, 2, [], [], [], [], left_ternary=[("A", 0, 1, 2)])


def test_hillclimb_refuses_ternary():
    inst = LatentInstance.from_clauses(3, 3, [("A", 0, 1, 2)], [("A", 0, 1, 2)])
    with pytest.raises(ValueError, match="ternary"):
        latent.solve(inst, "hillclimb")


def test_smatch_instances_compile_unchanged():
    inst = LatentInstance(2, 2, [("a", 0)], [("r", 0, 1)], [("a", 0)], [("r", 0, 1)])
    assert not len(inst.tri_w) and not inst.has_ternary
    assert repr(inst) == ("LatentInstance(2x2 variables, triples 2/2, pairs=2, "
                          "pairs_of_pairs=1)")
    assert latent.ilp_model(inst).num_vars == 3


# -- seeded DRS-like instances -----------------------------------------------------------------
def _drs_like(rng, n, k, allowed_boxes=False):
    left, right = _clauses(rng, n, k), _clauses(rng, n, k)
    allowed = None
    if allowed_boxes:  # even variables are "boxes": boxes onto boxes only
        allowed = lambda v, w: v % 2 == w % 2  # noqa: E731
    return LatentInstance.from_clauses(n, n, left, right, allowed)


@pytest.mark.parametrize("backend", ["scipy", "pulp"])
def test_backends_agree(backend):
    rng = np.random.default_rng(7)
    for _ in range(4):
        inst = _drs_like(rng, 5, 12)
        ref = latent.solve(inst).objective
        assert latent.solve(inst, "ilp", backend=backend).objective == ref


def test_batches_mix_ternary_and_smatch_instances():
    rng = np.random.default_rng(11)
    insts = [_drs_like(rng, int(rng.integers(3, 7)), int(rng.integers(5, 15)),
                       allowed_boxes=bool(rng.integers(2))) for _ in range(25)]
    insts.append(LatentInstance(2, 2, [("a", 0)], [("r", 0, 1)], [("a", 0)], [("r", 0, 1)]))
    many = latent.solve_exact_many(insts)
    assert many[-1].objective == 2.0 and "ternary" not in many[-1].details
    for inst, r in zip(insts, many, strict=True):
        assert r.proven_optimal and r.objective == latent.check(inst, r.alignment)
        assert r.objective == latent.solve(inst, "bnb").objective
        assert r.objective == latent.solve(inst, "ilp", linking="simple").objective


def test_fractional_lp_goes_past_the_lp():
    # seeded search for instances whose LP point is fractional: settled by rounding or the MIP,
    # still equal to the oracle
    rng = np.random.default_rng(3)
    settled = 0
    for _ in range(300):
        inst = _drs_like(rng, 4, 10)
        r = latent.solve(inst)
        if set(r.details["proven_by"]) & {"LP bound", "MIP"}:
            settled += 1
            assert r.proven_optimal and r.objective == oracle(inst)
    assert settled > 0


def test_time_limit_reports_status_and_bound():
    rng = np.random.default_rng(5)
    inst = _drs_like(rng, 12, 60)
    r = latent.solve_exact_many([inst], options=SolveOptions(time_limit=0.0))[0]
    assert r.objective == latent.check(inst, r.alignment) <= r.bound
    best = latent.solve(inst).objective
    assert r.objective <= best <= r.bound
