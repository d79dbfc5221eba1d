"""Peer check: metametric's ``GraphMatchingMetric`` (the public implementation of Chen et al.
2023's DAG matching, pairwise reachability constraints) scores random small DAG pairs exactly as
our *strict* variant does (its rule: two pairs conflict when the reflexive reachabilities of
their reference and predicted items differ). Skips when metametric is not installed."""

import numpy as np
import pytest

from exactalign.problems import monotone as M

mm = pytest.importorskip("metametric.core.matching_metrics")
metric_mod = pytest.importorskip("metametric.core.metric")


class _Graph:
    """The minimal graph protocol metametric reads (nodes, successors, predecessors)."""

    def __init__(self, nodes, edges):
        self._nodes, self._edges = list(nodes), list(edges)

    def nodes(self):
        return self._nodes

    def successors(self, x):
        return [b for a, b in self._edges if a == x]

    def predecessors(self, x):
        return [a for a, b in self._edges if b == x]


def _random_dag(rng, n):
    perm = rng.permutation(n)
    return [(int(perm[i]), int(perm[j])) for i in range(n) for j in range(i + 1, n)
            if rng.random() < 0.4]


def test_strict_variant_equals_metametric():
    rng = np.random.default_rng(0)
    metric = mm.GraphMatchingMetric(metric_mod.DiscreteMetric(str), "1:1")
    differs = 0
    for _ in range(40):
        na, nb = (int(x) for x in rng.integers(1, 8, 2))
        a = [str(x) for x in rng.choice(list("abcdefgh"), na, replace=False)]
        b = [str(x) for x in rng.choice(list("abcdefgh"), nb, replace=False)]
        ea, eb = _random_dag(rng, na), _random_dag(rng, nb)
        score, _ = metric.compute(_Graph(a, [(a[i], a[j]) for i, j in ea]),
                                  _Graph(b, [(b[i], b[j]) for i, j in eb]))
        W = np.array([[float(x == y) for y in b] for x in a])
        strict = M.solve(M.MonotoneInstance.dags(W, ea, eb, strict=True))
        weak = M.solve(M.MonotoneInstance.dags(W, ea, eb))
        assert strict.objective == pytest.approx(score, abs=1e-9)
        assert strict.objective <= weak.objective + 1e-9
        differs += weak.objective > strict.objective + 1e-9
    assert differs > 0  # the two rules really differ on some of these instances
