"""Benchmarks (``make bench``): DRS scoring as Counter counts it (:mod:`exactalign.metrics.
drs_report`), the proven-optimal mapping against our replica of Counter's hill-climbing (20
restarts, the smart mapping first), each timed on its own over the same pairs.

Inputs: the pilot pair PMB 3.0.0 ``bert_only`` run 1 against the gold dev set (885 pairs,
Counter's official settings: the signature, ``-ill dummy``, the WordNet map; skipped, saying
why, without the pilot files), and synthetic pairs that always run (random DRSs against seeded
perturbations of them, as ``experiments/drs_gap.py`` makes them). In the default suite these
run once, as plain tests of agreement (every pair proven optimal, the replica never above the
optimum on any pair, the corpus F in [0, 1], on the pilot the published F); timings are only
measured with ``--benchmark-enable`` and never asserted.

Measured by ``make bench`` on 2 cores shared with an experiments run (medians of 3 rounds,
2026-12-04; two runs, which varied with the load): the pilot pair, exact 1.35-2.60 s, the
replica 1.23-2.17 s (both including reading the files and the referee); synthetic (200 pairs),
exact 0.27-0.41 s, the replica 0.36-0.67 s. The whole commands against Counter itself:
``docs/metrics/drs.md``, Speed."""

import random

import pytest

from exactalign.data import resolve_data_dir
from exactalign.metrics.drs_report import score_drss, score_files
from experiments.drs_gap import perturbed, synthetic_drs

BERT = "systems/pmb-3.0.0/en/dev/bert_only"
PILOT_PRED = f"{BERT}/output1.txt"
PILOT_GOLD = "gold/pmb-3.0.0/dev.txt"
#: Counter's published P, R, F of bert_only run 1 (eval.txt, with the WordNet map)
PUBLISHED = (0.8895, 0.8659, 0.8775)
SYNTHETIC_PAIRS = 200


def _pilot():
    d = resolve_data_dir()
    root = None if d.path is None else d.path / "drs"
    if root is None or not (root / PILOT_PRED).is_file() or not (root / PILOT_GOLD).is_file():
        pytest.skip("DRS pilot files absent (../shared/pilot/drs or $EXACTALIGN_DATA)")
    from exactalign.data.wordnet import load_sense_map

    sense = load_sense_map()
    if sense is None:
        pytest.skip("the WordNet 3.0 sense map is not fetched (python -m exactalign.data.wordnet)"
                    ": without it the published F is not reproduced")
    return root, sense


def _synthetic():
    pred, gold = [], []
    for k in range(SYNTHETIC_PAIRS):
        rng = random.Random(f"0/synthetic/{k}")
        g = synthetic_drs(rng)
        gold.append(g)
        pred.append(perturbed(g, rng))
    return pred, gold


def _score(kind, method):
    if kind == "pilot":
        root, sense = _pilot()
        return lambda: score_files(root / PILOT_PRED, root / PILOT_GOLD, ill="dummy",
                                   sense_map=sense, method=method)
    pred, gold = _synthetic()
    return lambda: score_drss(pred, gold, method=method)


@pytest.fixture(scope="module")
def optimum():
    """The exact report per input, computed once (the replica's benchmark compares to it)."""
    cache = {}

    def get(kind):
        if kind not in cache:
            cache[kind] = _score(kind, "exact")()
        return cache[kind]
    return get


def _check_exact(rep):
    assert rep.proven() == len(rep.pairs) > 0
    for p in rep.pairs:
        assert p.exact.objective <= p.exact.bound + 1e-9
    _, _, f = rep.scores("exact")
    assert 0.0 <= f <= 1.0


@pytest.mark.parametrize("kind", ["pilot", "synthetic"])
def test_bench_drs_exact(benchmark, kind):
    run = _score(kind, "exact")
    benchmark.group = f"drs-{kind}"  # one table per input, the ratio between the two
    rep = benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=0)
    _check_exact(rep)
    if kind == "pilot":
        assert len(rep.pairs) == 885
        assert rep.scores("exact") == PUBLISHED  # eval.txt, run 1


@pytest.mark.parametrize("kind", ["pilot", "synthetic"])
def test_bench_drs_counter_replica(benchmark, optimum, kind):
    run = _score(kind, "counter")
    benchmark.group = f"drs-{kind}"  # one table per input, the ratio between the two
    rep = benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=0)
    ex = optimum(kind)
    assert len(rep.pairs) == len(ex.pairs)
    for c, e in zip(rep.pairs, ex.pairs, strict=True):  # the replica's mapping is one of many
        assert (c.produced, c.gold) == (e.produced, e.gold)
        assert c.counter.matched <= e.exact.objective, c.index
    f = rep.scores("counter")[2]
    assert 0.0 <= f <= ex.scores("exact")[2] <= 1.0


def test_bench_drs_both_agree_on_synthetic():
    """One call with both methods: the report's own comparison (no pair above the optimum)."""
    pred, gold = _synthetic()
    rep = score_drss(pred, gold, method="both")
    _check_exact(rep)
    assert all(p.counter.matched <= p.exact.objective for p in rep.pairs)
    assert rep.totals("counter")[0] <= rep.totals("exact")[0] <= rep.bound()
