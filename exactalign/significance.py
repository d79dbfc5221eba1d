"""Paired significance over documents for corpus-level (micro) precision, recall and F1.

A corpus score sums per-document counts before dividing (micro averaging), so a test must
resample *documents* and recompute the score from the resampled sums -- not average per-document
scores. Each system's per-document counts are an ``(n, 4)`` array of
``(precision numerator, precision denominator, recall numerator, recall denominator)``: for Smatch
``(matched, test triples, matched, gold triples)``, for event nuggets ``(TP, N_S, TP, N_G)``, for
MUC ``(COR + ½PAR, ACT, COR + ½PAR, POS)``. Two systems (or one system under two alignments) are
*paired*: row ``i`` of both is document ``i``.

* :func:`paired_bootstrap` -- Koehn (2004); Berg-Kirkpatrick, Burkett & Klein (2012): resample
  the documents with replacement ``n_resamples`` times; a percentile confidence interval of each
  score and of the difference; the two-sided p-value of "no difference" from the resampled
  differences centred on the observed one (``(1 + #{|d_i - d| >= |d|}) / (1 + n_resamples)``).
* :func:`approximate_randomization` -- Noreen (1989), as compare-mt and sacrebleu use it: swap
  the two systems' counts on each document with probability ½, ``n_trials`` times; two-sided
  p-value ``(1 + #{|d_t| >= |d|}) / (1 + n_trials)``.

Both are vectorised (one gather or one matrix product for all resamples) and seeded
(``numpy.random.default_rng(seed)``; no global random state): 10,000 resamples of 1,000
documents take a fraction of a second. A ratio whose denominator is 0 in a resample is 0, as the
scorers print it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

STATISTICS = ("f1", "precision", "recall")


def _as_counts(counts, name: str) -> np.ndarray:
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 2 or c.shape[1] != 4:
        raise ValueError(f"{name}: per-document counts are an (n, 4) array of (precision "
                         f"numerator, precision denominator, recall numerator, recall "
                         f"denominator), got shape {c.shape}")
    if not np.isfinite(c).all() or (c < 0).any():
        raise ValueError(f"{name}: counts must be finite and non-negative")
    return c


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den > 0)
    return out


def score(sums: np.ndarray, statistic: str = "f1") -> np.ndarray:
    """The statistic of summed counts (``(..., 4)``): micro precision, recall or F1."""
    p = _ratio(sums[..., 0], sums[..., 1])
    if statistic == "precision":
        return p
    r = _ratio(sums[..., 2], sums[..., 3])
    if statistic == "recall":
        return r
    if statistic != "f1":
        raise ValueError(f"unknown statistic {statistic!r}; choose one of "
                         + ", ".join(STATISTICS))
    return _ratio(2 * p * r, p + r)


@dataclass(frozen=True)
class PairedTest:
    """The outcome of a paired test of system ``a`` against system ``b`` on one statistic."""

    test: str            # "paired bootstrap" or "approximate randomization"
    statistic: str
    a: float             # observed corpus scores
    b: float
    delta: float         # a - b
    p_value: float       # two-sided, of "a and b do not differ"
    samples: int         # resamples or trials
    seed: int
    ci: tuple | None = None        # (level, (lo, hi) of a, (lo, hi) of b, (lo, hi) of delta)

    def significant(self, alpha: float = 0.05) -> bool:
        return self.p_value < alpha

    def to_dict(self) -> dict:
        d = {"test": self.test, "statistic": self.statistic, "a": self.a, "b": self.b,
             "delta": self.delta, "p_value": self.p_value, "samples": self.samples,
             "seed": self.seed}
        if self.ci is not None:
            level, a, b, delta = self.ci
            d["ci"] = {"level": level, "a": list(a), "b": list(b), "delta": list(delta)}
        return d


def _check_pair(a, b) -> tuple[np.ndarray, np.ndarray]:
    a, b = _as_counts(a, "a"), _as_counts(b, "b")
    if a.shape != b.shape:
        raise ValueError(f"paired systems need counts for the same documents: {a.shape[0]} "
                         f"and {b.shape[0]} rows")
    if a.shape[0] == 0:
        raise ValueError("no documents to resample")
    return a, b


def paired_bootstrap(a, b, *, statistic: str = "f1", n_resamples: int = 10_000,
                     seed: int = 0, level: float = 0.95, chunk: int = 2_000) -> PairedTest:
    """Paired bootstrap resampling of documents (module docstring). ``chunk`` resamples are
    drawn at a time (memory ``chunk x n`` indices)."""
    a, b = _check_pair(a, b)
    n = a.shape[0]
    rng = np.random.default_rng(seed)
    sa, sb = score(a.sum(0), statistic).item(), score(b.sum(0), statistic).item()
    delta = sa - sb
    ra, rb = np.empty(n_resamples), np.empty(n_resamples)
    for lo in range(0, n_resamples, chunk):
        k = min(chunk, n_resamples - lo)
        idx = rng.integers(0, n, size=(k, n))
        # each resample as the multiplicity of every document: sums are one matrix product
        w = np.bincount((idx + n * np.arange(k)[:, None]).ravel(),
                        minlength=k * n).reshape(k, n).astype(np.float64)
        ra[lo:lo + k] = score(w @ a, statistic)
        rb[lo:lo + k] = score(w @ b, statistic)
    d = ra - rb
    extreme = int(np.count_nonzero(np.abs(d - delta) >= abs(delta) - 1e-12))
    q = [(1 - level) / 2 * 100, (1 + level) / 2 * 100]

    def interval(x):
        lo_, hi_ = np.percentile(x, q)
        return float(lo_), float(hi_)

    return PairedTest("paired bootstrap", statistic, sa, sb, delta,
                      (1 + extreme) / (1 + n_resamples), n_resamples, seed,
                      (level, interval(ra), interval(rb), interval(d)))


def approximate_randomization(a, b, *, statistic: str = "f1", n_trials: int = 10_000,
                              seed: int = 0, chunk: int = 2_000) -> PairedTest:
    """Approximate randomization (module docstring): each trial swaps the two systems' counts on
    a random half of the documents; the sums of a trial are one matrix product."""
    a, b = _check_pair(a, b)
    n = a.shape[0]
    rng = np.random.default_rng(seed)
    ta, tb = a.sum(0), b.sum(0)
    sa, sb = score(ta, statistic).item(), score(tb, statistic).item()
    delta = sa - sb
    diff = b - a
    extreme = 0
    for lo in range(0, n_trials, chunk):
        k = min(chunk, n_trials - lo)
        swap = rng.random((k, n)) < 0.5
        moved = swap.astype(np.float64) @ diff  # what a gains (and b loses) by the swaps
        d = score(ta + moved, statistic) - score(tb - moved, statistic)
        extreme += int(np.count_nonzero(np.abs(d) >= abs(delta) - 1e-12))
    return PairedTest("approximate randomization", statistic, sa, sb, delta,
                      (1 + extreme) / (1 + n_trials), n_trials, seed)
