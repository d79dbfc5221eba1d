"""A corpus of latent instances solved as one job (:mod:`exactalign.problems.latent.corpus`):
every exact result proven and equal to brute force, the hill-climbing never above it and drawn
from one generator across the pairs in order, the methods by name."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactalign.problems import latent
from exactalign.problems.latent import corpus, hillclimb
from tests.test_latent import SQUARE, instances


@settings(max_examples=25, deadline=None)
@given(st.lists(instances(max_vars=4), min_size=1, max_size=4), st.integers(0, 3))
def test_both_methods_against_brute_force(insts, seed):
    solved = latent.solve_corpus(insts, "both", restarts=2, seed=seed)
    assert set(solved.times) == {"exact", "hillclimb"}
    for inst, ex, hc in zip(insts, solved.exact, solved.hillclimb, strict=True):
        best, _ = latent.brute_force(inst)
        assert ex.proven_optimal and ex.objective == best
        assert hc.objective <= ex.objective
        assert latent.count_matches(inst, latent.mapping_rows(ex.alignment)) == ex.objective


@settings(max_examples=15, deadline=None)
@given(st.lists(instances(max_vars=4), min_size=2, max_size=4), st.integers(0, 5))
def test_the_hill_climbing_draws_from_one_generator_in_order(insts, seed):
    rng = random.Random(seed)
    by_hand = [hillclimb.hillclimb_result(i, 3, rng=rng, seed=seed).alignment for i in insts]
    got = latent.solve_corpus(insts, "hillclimb", restarts=3, seed=seed)
    assert [r.alignment for r in got.hillclimb] == by_hand
    assert got.exact == (None,) * len(insts) and set(got.times) == {"hillclimb"}


def test_the_lp_path_alone_gives_the_same_optimum():
    ex = corpus.exact_results([SQUARE, SQUARE], time_limit=None, seed=0, backend="highs",
                              linking="aggregated", bnb_work=0)
    assert [r.objective for r in ex] == [3.0, 3.0] and all(r.proven_optimal for r in ex)
    assert all(r.alignment == ((0, 0), (1, 1)) or r.alignment == ((0, 1), (1, 0)) for r in ex)


def test_an_unknown_method_is_refused():
    with pytest.raises(ValueError, match="unknown method 'greedy'"):
        latent.solve_corpus([SQUARE], "greedy")


def test_the_old_name_in_the_smatch_metric_warns_and_gives_the_same_results():
    from exactalign.metrics import smatch

    kw = {"time_limit": None, "seed": 0, "backend": "highs", "linking": "aggregated",
          "bnb_work": None}
    with pytest.warns(DeprecationWarning, match="moved to exactalign.problems.latent"):
        old = smatch.exact_results([SQUARE], **kw)
    assert [r.objective for r in old] == [r.objective for r in corpus.exact_results([SQUARE], **kw)]
