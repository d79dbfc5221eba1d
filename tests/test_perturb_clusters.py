"""Seeded perturbation of gold clusters (exactalign.perturb.clusters)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactalign.perturb.clusters import ClusterNoise, perturb_clusters

GOLD = [(((0, 2),), ((3, 7),), ((10, 12),)), (((14, 15),),), (((20, 25),), ((30, 31),))]


def _spans(clusters):
    return [s for c in clusters for s in c]


def test_no_noise_is_identity():
    out, applied = perturb_clusters(GOLD, 40, ClusterNoise.uniform(0.0), seed=1)
    assert out == GOLD and sum(applied.values()) == 0


def test_same_seed_same_output_and_generators_accepted():
    noise = ClusterNoise.uniform(0.4)
    a = perturb_clusters(GOLD, 40, noise, seed=7)
    b = perturb_clusters(GOLD, 40, noise, seed=np.random.default_rng(7))
    assert a == b
    outs = {repr(perturb_clusters(GOLD, 40, noise, seed=s)[0]) for s in range(20)}
    assert len(outs) > 10


def test_each_kind_alone():
    out, applied = perturb_clusters(GOLD, 40, ClusterNoise(missing=1, shift=0, extra=0,
                                                           split=0, merge=0), seed=0)
    assert out == [] and applied["missing"] == 6
    out, applied = perturb_clusters(GOLD, 40, ClusterNoise(0, 0, 0, split=1, merge=0), seed=0)
    assert len(out) == 5 and applied["split"] == 2  # both clusters of two or more mentions
    assert sorted(_spans(out)) == sorted(_spans(GOLD))
    out, applied = perturb_clusters(GOLD, 40, ClusterNoise(0, 0, 0, 0, merge=1), seed=0)
    assert len(out) == 1 and applied["merge"] == 2
    out, applied = perturb_clusters(GOLD, 40, ClusterNoise(0, shift=1, extra=0, split=0,
                                                           merge=0), seed=0)
    assert [len(c) for c in out] == [3, 1, 2] and applied["shift"] >= 1
    assert out != GOLD


def test_invalid_noise():
    with pytest.raises(ValueError, match="probability"):
        ClusterNoise(missing=1.5)
    with pytest.raises(ValueError, match="max_shift"):
        ClusterNoise(max_shift=0)


@given(st.integers(0, 10_000), st.floats(0, 1))
def test_output_is_a_valid_clustering(seed, rate):
    out, applied = perturb_clusters(GOLD, 40, ClusterNoise.uniform(rate, 3), seed=seed)
    spans = _spans(out)
    assert len(spans) == len(set(spans))          # no repeated mention
    assert all(c for c in out)                    # no empty cluster
    for s in spans:
        assert all(0 <= b < e <= 40 for b, e in s)
        assert all(e1 <= b2 for (_, e1), (b2, _) in zip(s, s[1:], strict=False))
    assert set(applied) <= {"missing", "shift", "extra", "split", "merge"}
    assert len(spans) <= 6 + applied["extra"]
