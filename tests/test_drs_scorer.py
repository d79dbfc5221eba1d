"""The in-process DRS scorer (:class:`~exactalign.metrics.drs_report.DrsScorer`): the gold DRSs
built once, and every call returns what :func:`~exactalign.metrics.drs_report.score_drss`
returns on the same pairs and options -- counts, statuses, bounds, Counter's mappings."""

import random

import pytest

from exactalign.core.errors import InputError
from exactalign.metrics.drs_report import DrsScorer, score_drss
from experiments.drs_gap import synthetic_drs


def _corpus(n: int, seed: int):
    rng = random.Random(seed)
    gold = [synthetic_drs(rng) for _ in range(n)]
    pred = [synthetic_drs(rng) if k % 3 == 0 else list(g[: max(1, len(g) - k % 4)])
            for k, g in enumerate(gold)]
    return pred, gold


def _facts(rep):
    return [(p.produced, p.gold, p.exact.objective, p.exact.status.value, p.exact.bound,
             p.counter.matched, tuple(p.counter.mapping), p.runs) for p in rep.pairs]


@pytest.mark.parametrize("seed", [0, 1])
def test_scorer_equals_score_drss(seed):
    pred, gold = _corpus(12, seed)
    scorer = DrsScorer(gold, seed=seed, restarts=5, runs=2)
    once = score_drss(pred, gold, seed=seed, restarts=5, runs=2)
    for _ in range(2):  # the generator is seeded afresh at every call
        rep = scorer.score(pred)
        assert _facts(rep) == _facts(once)
        assert rep.totals("exact") == once.totals("exact")
        assert rep.totals("counter") == once.totals("counter")
    # a subset of the gold DRSs, by index, is the same as scoring that subset alone
    idx = [5, 2, 7]
    sub = scorer.score([pred[k] for k in idx], indices=idx)
    alone = score_drss([pred[k] for k in idx], [gold[k] for k in idx], seed=seed, restarts=5,
                       runs=2)
    assert _facts(sub) == _facts(alone)
    assert all(p.exact.proven_optimal for p in sub.pairs)
    assert all(p.counter.matched <= p.exact.objective + 1e-9 for p in sub.pairs)


def test_scorer_rejects_what_it_cannot_score():
    pred, gold = _corpus(3, 4)
    scorer = DrsScorer(gold, method="exact")
    assert len(scorer) == 3
    with pytest.raises(ValueError, match="2 predictions but 1 indices"):
        scorer.score(pred[:2], indices=[0])
    with pytest.raises(IndexError, match="gold DRS 3 out of range"):
        scorer.score(pred[:1], indices=[3])
    with pytest.raises(ValueError, match="unknown method"):
        DrsScorer(gold, method="smatch")
    with pytest.raises(InputError):
        DrsScorer([[("b1", "REF")]])


def test_a_counter_count_above_a_proven_optimum_is_an_error(monkeypatch):
    """The ceiling rule, enforced: were the exact model to miss a mapping Counter can reach,
    a Counter count above the 'proven' optimum stops the run (forged here: every optimum
    lowered by one clause)."""
    from exactalign.core.errors import VerificationError
    from exactalign.metrics import drs_report

    pred, gold = _corpus(4, 6)
    solve = drs_report._solve_exact

    def lowered(*a, **k):
        res, insts = solve(*a, **k)
        return [r.replace(objective=r.objective - 1, bound=r.objective - 1) for r in res], insts

    monkeypatch.setattr(drs_report, "_solve_exact", lowered)
    with pytest.raises(VerificationError, match="above the proven optimum"):
        score_drss(pred, gold, seed=0)
