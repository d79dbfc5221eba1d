"""Benchmarks (``make bench``): UMR at sentence scope as AnCast 0.1.1 counts it
(:func:`exactalign.metrics.umr.score_files`), the proven optimum against AnCast's own
anchor-and-broadcast mapping (AnCast run on the files, its mapping counted by our triples), each
timed on its own over the same files.

Inputs: the pilot's English conversion (``umr/ufal-english``: ÚFAL's automatic conversion
against the manual annotation, 209 sentences; skipped, saying why, without the pilot files),
and synthetic documents that always run (random AMR-like documents against seeded
perturbations of them, as ``experiments/umr_gap.py`` makes them). AnCast's benchmarks skip
without the ``ancast`` package. In the default suite these run once, as plain tests of
agreement (every sentence proven optimal, AnCast's count never above the optimum);
timings are only measured with ``--benchmark-enable`` and never asserted.

Measured by ``make bench`` on 2 cores shared with an experiments run (medians of 3 rounds,
2026-12-04; two runs, which varied with the load): the pilot conversion, exact 0.49-0.79 s,
AnCast 1.10-2.05 s (2.2-2.6x the exact; both including reading the files); synthetic (30
sentences), exact 0.024-0.032 s, AnCast 0.085-0.124 s."""

import pytest

from exactalign.data import resolve_data_dir
from exactalign.metrics import umr

CONVERTED = "ufal-english/converted_total_1-5.umr"
GOLD = "ufal-english/gold_total_1-5.umr"
SYNTHETIC = {"seed": 0, "documents": 1, "max_sentences": 30, "systems": ["medium"]}


def _pilot():
    d = resolve_data_dir()
    root = None if d.path is None else d.path / "umr"
    if root is None or not (root / CONVERTED).is_file() or not (root / GOLD).is_file():
        pytest.skip("UMR pilot files absent (../shared/pilot/umr or $EXACTALIGN_DATA)")
    return root / CONVERTED, root / GOLD


@pytest.fixture(scope="module")
def synthetic_files(tmp_path_factory):
    from experiments.umr_gap import _blocks, _perturbed, synthetic_documents

    (doc,) = synthetic_documents(SYNTHETIC)
    where = tmp_path_factory.mktemp("umr")
    test, gold = where / "test.umr", where / "gold.umr"
    gold.write_text(_blocks(doc), "utf-8")
    test.write_text(_perturbed(doc, "medium", SYNTHETIC, "synthetic", "synthetic-0"), "utf-8")
    return test, gold


@pytest.fixture(scope="module")
def files(synthetic_files):
    return lambda kind: _pilot() if kind == "pilot" else synthetic_files


@pytest.fixture(scope="module")
def optimum(files):
    """The exact report per input, computed once (AnCast's benchmark compares to it)."""
    cache = {}

    def get(kind):
        if kind not in cache:
            cache[kind] = umr.score_files(*files(kind), method="exact")
        return cache[kind]
    return get


@pytest.mark.parametrize("kind", ["pilot", "synthetic"])
def test_bench_umr_exact(benchmark, files, kind):
    test, gold = files(kind)
    benchmark.group = f"umr-{kind}"  # one table per input, the ratio between the two
    rep = benchmark.pedantic(umr.score_files, args=(test, gold), kwargs={"method": "exact"},
                             rounds=3, iterations=1, warmup_rounds=0)
    assert rep.proven() == len(rep.units) > 0
    for u in rep.units:
        assert u.matched("exact") <= u.bound("exact") + 1e-9
    assert 0.0 <= rep.scores("exact")[2] <= rep.bound_f() <= 1.0
    if kind == "pilot":
        assert len(rep.units) == 209 and rep.totals("exact")[0] == 1507


@pytest.mark.parametrize("kind", ["pilot", "synthetic"])
def test_bench_umr_ancast(benchmark, files, optimum, kind):
    pytest.importorskip("ancast", reason="the ancast peer (pip install 'exactalign[peers]')")
    test, gold = files(kind)
    benchmark.group = f"umr-{kind}"  # one table per input, the ratio between the two
    rep = benchmark.pedantic(umr.score_files, args=(test, gold), kwargs={"method": "ancast"},
                             rounds=3, iterations=1, warmup_rounds=0)
    assert rep.ancast_failure is None
    ex = optimum(kind)
    assert len(rep.units) == len(ex.units)
    for a, e in zip(rep.units, ex.units, strict=True):  # AnCast's mapping is one of many
        assert a.ancast[0] == a.ancast[1] <= e.matched("exact"), a
        assert a.ancast_twice == 0
    assert rep.scores("ancast")[2] <= ex.scores("exact")[2]
    if kind == "pilot":
        assert rep.totals("ancast")[0] == 1354
        assert sum(a.ancast[0] < e.matched("exact")
                   for a, e in zip(rep.units, ex.units, strict=True)) == 80
