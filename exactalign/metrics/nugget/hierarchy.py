"""Hierarchical types: level-based partial credit for an attribute (type -> subtype) instead of
v1.8's equality (:class:`LevelCredit`; the CLI's ``--type-credit``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...io.tbf import NOT_ANNOTATED, Mention, canonical

#: The canonical form of ``NOT_ANNOTATED``: a gold attribute value that agrees with anything.
NOT_APPLICABLE = canonical(NOT_ANNOTATED)

#: The TAC KBP 2015 event type families: canonical event types start with one of them
#: (``conflictattack`` = conflict / attack), the hierarchy :class:`LevelCredit` can use when
#: the separator is gone.
KBP_EVENT_FAMILIES = ("business", "conflict", "contact", "justice", "life", "manufacture",
                      "movement", "personnel", "transaction")


@dataclass(frozen=True)
class LevelCredit:
    """Level-based partial credit for a hierarchical attribute (type -> subtype, as in ACE's
    entity type and subtype, Florian et al. 2006; Chen et al. 2023's hierarchical types).

    A value is a path of levels: the raw value split at any character of ``separators``
    (``Conflict.Attack``, ``ORG:Commercial``, ``Conflict_Attack`` -> two levels), each level
    compared canonically; a value without separator whose canonical form starts with one of
    ``families`` (and is longer) is split after it (``conflictattack`` -> conflict / attack).
    ``credit(gold, system)`` is 1 when the two paths are equal (or the gold value is
    ``NOT_ANNOTATED``) and otherwise ``levels[k]`` for ``k`` leading levels in common (the last
    entry for deeper agreement), so the default ``(0.0, 0.5)`` gives half credit for the right
    type with the wrong subtype and nothing for a wrong type. ``levels`` all 0 is v1.8's
    exact equality."""

    levels: tuple[float, ...] = (0.0, 0.5)
    separators: str = "._:"
    families: tuple[str, ...] = ()

    def __post_init__(self):
        if not self.levels or any(not (0.0 <= x < 1.0) for x in self.levels):
            raise ValueError(f"level credits must be in [0, 1), got {self.levels!r}")

    def path(self, value: str) -> tuple[str, ...]:
        if any(ch in value for ch in self.separators):
            parts = [value]
            for sep in self.separators:
                parts = [q for p in parts for q in p.split(sep)]
            return tuple(canonical(p) for p in parts if canonical(p))
        v = canonical(value)
        for f in sorted(self.families, key=len, reverse=True):
            if v.startswith(f) and len(v) > len(f):
                return f, v[len(f):]
        return (v,)

    def credit(self, gold: str, system: str) -> float:
        if canonical(gold) == NOT_APPLICABLE:
            return 1.0
        g, s = self.path(gold), self.path(system)
        if g == s:
            return 1.0
        k = 0
        while k < min(len(g), len(s)) and g[k] == s[k]:
            k += 1
        return self.levels[min(k, len(self.levels) - 1)]

    def pair_credits(self, gold: Sequence[Mention], system: Sequence[Mention], r: np.ndarray,
                     c: np.ndarray, attribute: int) -> np.ndarray:
        """The credit of attribute ``attribute`` for each pair ``(r[e], c[e])``."""
        memo: dict[tuple[str, str], float] = {}
        out = np.empty(len(r))
        for e, (i, j) in enumerate(zip(r.tolist(), c.tolist(), strict=True)):
            key = (gold[i].attributes[attribute], system[j].attributes[attribute])
            if key not in memo:
                memo[key] = self.credit(*key)
            out[e] = memo[key]
        return out
