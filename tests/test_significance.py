"""Paired significance over documents: micro scores recomputed from resampled sums; the
approximate randomization and bootstrap p-values approach the exact permutation / bootstrap
p-values enumerated on small corpora; identical systems never differ; seeded."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactalign.metrics.smatch import smatch_scores
from exactalign.significance import approximate_randomization, paired_bootstrap, score

# six documents: (precision num, den, recall num, den) of two systems
A = np.array([[3, 4, 3, 5], [2, 2, 2, 3], [5, 6, 5, 6], [1, 3, 1, 2], [4, 5, 4, 4],
              [0, 1, 0, 2]], dtype=float)
B = np.array([[2, 4, 2, 5], [2, 2, 2, 3], [3, 6, 3, 6], [1, 3, 1, 2], [2, 5, 2, 4],
              [1, 1, 1, 2]], dtype=float)


def test_micro_scores_by_hand():
    # sums: A 15/21 precision, 15/22 recall
    assert score(A.sum(0), "precision") == pytest.approx(15 / 21)
    assert score(A.sum(0), "recall") == pytest.approx(15 / 22)
    p, r = 15 / 21, 15 / 22
    assert score(A.sum(0)) == pytest.approx(2 * p * r / (p + r))
    assert score(np.zeros(4)) == 0.0  # empty denominators score 0, as the scorers print


@given(st.lists(st.tuples(*[st.integers(0, 20)] * 3), min_size=1, max_size=20))
def test_f1_is_smatchs_on_summed_counts(rows):
    c = np.array([(m, t, m, g) for m, t, g in rows], dtype=float)
    m, t, g = c[:, 0].sum(), c[:, 1].sum(), c[:, 3].sum()
    assert score(c.sum(0)) == pytest.approx(smatch_scores(m, t, g).f1)


def _exact_permutation_p(a, b, statistic="f1"):
    delta = score(a.sum(0), statistic) - score(b.sum(0), statistic)
    n, hits = a.shape[0], 0
    for swap in itertools.product((False, True), repeat=n):
        s = np.array(swap)[:, None]
        d = score(np.where(s, b, a).sum(0), statistic) - score(np.where(s, a, b).sum(0),
                                                                statistic)
        hits += abs(d) >= abs(delta) - 1e-12
    return hits / 2 ** n


@pytest.mark.parametrize("statistic", ["f1", "precision", "recall"])
def test_randomization_approaches_the_exact_permutation_test(statistic):
    exact = _exact_permutation_p(A, B, statistic)  # 64 swap patterns
    ar = approximate_randomization(A, B, statistic=statistic, n_trials=40_000, seed=3)
    assert ar.p_value == pytest.approx(exact, abs=0.01)
    assert ar.delta == pytest.approx(score(A.sum(0), statistic) - score(B.sum(0), statistic))


def test_bootstrap_approaches_the_exact_bootstrap_distribution():
    a, b = A[:5], B[:5]  # 5^5 = 3125 equally likely resamples
    delta = score(a.sum(0)) - score(b.sum(0))
    ds = np.array([score(a[list(i)].sum(0)) - score(b[list(i)].sum(0))
                   for i in itertools.product(range(5), repeat=5)])
    exact_p = np.mean(np.abs(ds - delta) >= abs(delta) - 1e-12)
    bs = paired_bootstrap(a, b, n_resamples=40_000, seed=5)
    assert bs.p_value == pytest.approx(exact_p, abs=0.01)
    level, ci_a, ci_b, ci_d = bs.ci
    assert level == 0.95
    lo, hi = np.percentile(ds, [2.5, 97.5])
    assert ci_d == pytest.approx((lo, hi), abs=0.02)
    assert ci_a[0] <= bs.a <= ci_a[1] and ci_b[0] <= bs.b <= ci_b[1]


def test_identical_systems_never_differ():
    for test in (paired_bootstrap(A, A, n_resamples=500), approximate_randomization(A, A)):
        assert test.delta == 0 and test.p_value == 1.0 and not test.significant()


def test_a_system_better_on_every_document_is_significant():
    rng = np.random.default_rng(0)
    gold = rng.integers(10, 20, 200).astype(float)
    good = np.stack([gold * 0.9, gold, gold * 0.9, gold], 1)
    bad = np.stack([gold * 0.5, gold, gold * 0.5, gold], 1)
    for test in (paired_bootstrap(good, bad, n_resamples=2000),
                 approximate_randomization(good, bad, n_trials=2000)):
        assert test.significant(0.001) and test.delta == pytest.approx(0.4)


def test_seeded_and_reproducible():
    one = paired_bootstrap(A, B, n_resamples=3000, seed=11)
    assert one == paired_bootstrap(A, B, n_resamples=3000, seed=11)
    assert one.ci != paired_bootstrap(A, B, n_resamples=3000, seed=12).ci
    # chunking does not change the draws: the same result in one chunk or many
    assert approximate_randomization(A, B, n_trials=3000, seed=2, chunk=3000) == \
        approximate_randomization(A, B, n_trials=3000, seed=2, chunk=700)
    assert paired_bootstrap(A, B, n_resamples=3000, seed=2, chunk=3000) == \
        paired_bootstrap(A, B, n_resamples=3000, seed=2, chunk=700)
    d = one.to_dict()
    assert d["test"] == "paired bootstrap" and d["ci"]["level"] == 0.95


@pytest.mark.parametrize("a,b,match", [
    (A[:, :3], B[:, :3], r"\(n, 4\)"), (A, B[:4], "same documents"),
    (-A, B, "non-negative"), (A[:0], B[:0], "no documents")])
def test_bad_counts_are_refused(a, b, match):
    with pytest.raises(ValueError, match=match):
        paired_bootstrap(a, b)


def test_results_are_plain_python_numbers():
    """They go into CSV rows and JSON: no numpy scalars (their repr is not a number)."""
    for t in (paired_bootstrap(A, B, n_resamples=200), approximate_randomization(A, B)):
        assert all(type(getattr(t, f)) is float for f in ("a", "b", "delta", "p_value"))
