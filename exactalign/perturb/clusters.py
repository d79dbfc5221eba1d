"""Seeded perturbations of gold coreference clusters: the errors a system (or a second
annotator) makes -- missing and extra mentions, boundary shifts, split and merged entities.

A clustering is a list of clusters, each a tuple of spans; a span is a tuple of
``(begin, end)`` pieces (``end`` exclusive) in some unit (characters, or tokens with
``(first, last + 1)``), as in :mod:`exactalign.io.ere`. :func:`perturb_clusters` applies, in
this order, with the probabilities of a :class:`ClusterNoise`:

1. ``missing``  each mention is dropped with probability ``missing``;
2. ``shift``    each mention has, with probability ``shift``, its left or right edge (chosen
                evenly) moved by 1 .. ``max_shift`` units outward or inward (evenly), kept
                non-empty and inside ``[0, length]``;
3. ``extra``    ``Binomial(mentions, extra)`` new mentions, each a *nested* variant of a random
                mention -- a strict sub-span (a head), a super-span (1 .. ``max_shift`` more units
                on one side), or, for a mention of two or more units, its two halves as two
                mentions (the paper's Figure 1 pattern) -- placed in the mention's cluster or in
                a new singleton cluster (evenly);
4. ``split``    each cluster of two or more mentions is, with probability ``split``, cut into two
                non-empty random parts;
5. ``merge``    ``Binomial(clusters - 1, merge)`` times, two random clusters become one.

A new span equal to one already present is discarded (so no mention is repeated); clusters
left empty are dropped. Randomness comes only from the generator passed in (``seed`` may be an
int or a ``numpy.random.Generator``); the same seed gives the same output.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

Span = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class ClusterNoise:
    """Probabilities of each perturbation (see the module) and the largest edge shift."""

    missing: float = 0.1
    shift: float = 0.1
    extra: float = 0.1
    split: float = 0.1
    merge: float = 0.1
    max_shift: int = 2

    def __post_init__(self):
        for name in ("missing", "shift", "extra", "split", "merge"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"{name} must be a probability in [0, 1], not {v!r}")
        if self.max_shift < 1:
            raise ValueError(f"max_shift must be >= 1, not {self.max_shift!r}")

    @classmethod
    def uniform(cls, rate: float, max_shift: int = 2) -> ClusterNoise:
        """Every perturbation at the same ``rate``."""
        return cls(rate, rate, rate, rate, rate, max_shift)


def _size(s: Span) -> int:
    return sum(e - b for b, e in s)


def _shifted(s: Span, rng: np.random.Generator, max_shift: int, length: int) -> Span:
    pieces = [list(p) for p in s]
    d = int(rng.integers(1, max_shift + 1)) * (1 if rng.random() < 0.5 else -1)
    if rng.random() < 0.5:  # left edge; d > 0 moves it outward (to the left)
        p = pieces[0]
        p[0] = min(max(0, p[0] - d), p[1] - 1)
    else:
        p = pieces[-1]
        p[1] = max(min(length, p[1] + d), p[0] + 1)
    return tuple((b, e) for b, e in pieces)


def _nested(s: Span, rng: np.random.Generator, max_shift: int, length: int) -> list[Span]:
    kind = int(rng.integers(0, 3))
    b0, e1 = s[0][0], s[-1][1]
    if kind == 0 and _size(s) >= 2:  # a strict sub-span of one piece
        b, e = s[int(rng.integers(0, len(s)))]
        if e - b >= 2:
            w = int(rng.integers(1, e - b))
            start = int(rng.integers(b, e - w + 1))
            return [((start, start + w),)]
    if kind == 1 and len(s) == 1 and e1 - b0 >= 2:  # the two halves
        mid = int(rng.integers(b0 + 1, e1))
        return [((b0, mid),), ((mid, e1),)]
    d = int(rng.integers(1, max_shift + 1))
    if rng.random() < 0.5 and b0 > 0:
        return [((max(0, b0 - d), s[0][1]),) + s[1:]]
    if e1 < length:
        return [s[:-1] + ((s[-1][0], min(length, e1 + d)),)]
    return []


def perturb_clusters(clusters, length: int, noise: ClusterNoise, seed=0
                     ) -> tuple[list[tuple[Span, ...]], Counter]:
    """A perturbed copy of ``clusters`` (spans inside ``[0, length]``) and a count of the
    perturbations applied, by name (see the module for the procedure)."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    applied: Counter = Counter()
    out = [[tuple(tuple(p) for p in s) for s in c] for c in clusters]
    kept = []
    for c in out:  # 1. missing
        keep = [s for s in c if rng.random() >= noise.missing]
        applied["missing"] += len(c) - len(keep)
        kept.append(keep)
    present = {s for c in kept for s in c}
    out = kept

    for c in out:  # 2. shift
        for i, s in enumerate(c):
            if rng.random() < noise.shift:
                t = _shifted(s, rng, noise.max_shift, length)
                if t != s and t not in present:
                    present.discard(s)
                    present.add(t)
                    c[i] = t
                    applied["shift"] += 1

    mentions = [(ci, s) for ci, c in enumerate(out) for s in c]
    n_extra = int(rng.binomial(len(mentions), noise.extra)) if mentions else 0
    for _ in range(n_extra):  # 3. extra
        ci, s = mentions[int(rng.integers(0, len(mentions)))]
        new = [t for t in _nested(s, rng, noise.max_shift, length) if t not in present]
        same = rng.random() < 0.5
        for t in new:
            present.add(t)
            if same:
                out[ci].append(t)
            else:
                out.append([t])
            applied["extra"] += 1

    split = []
    for c in out:  # 4. split
        if len(c) >= 2 and rng.random() < noise.split:
            mask = rng.random(len(c)) < 0.5
            if mask.all() or not mask.any():
                mask[int(rng.integers(0, len(c)))] ^= True
            split += [[s for s, m in zip(c, mask, strict=True) if m],
                      [s for s, m in zip(c, mask, strict=True) if not m]]
            applied["split"] += 1
        elif c:
            split.append(c)
    out = split

    n_merge = int(rng.binomial(len(out) - 1, noise.merge)) if len(out) > 1 else 0
    for _ in range(n_merge):  # 5. merge
        if len(out) < 2:
            break
        i, j = sorted(rng.choice(len(out), size=2, replace=False).tolist())
        out[i] = out[i] + out.pop(j)
        applied["merge"] += 1
    return [tuple(c) for c in out if c], applied


__all__ = ["ClusterNoise", "perturb_clusters"]
