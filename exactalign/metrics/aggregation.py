"""Counts and their aggregation: the one place P/R/F are computed.

A :class:`PRF` holds the recall and precision numerators and denominators. Summing PRFs is
micro-averaging (sum counts, then divide); :func:`macro` averages the per-item ratios. Division by
a zero denominator gives 0 (as the CoNLL reference scorer and the TAC KBP scorer do), and F1 is 0
when precision and recall are both 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


def ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


@dataclass(frozen=True)
class PRF:
    """Recall = recall_num / recall_den, precision = precision_num / precision_den."""

    recall_num: float = 0.0
    recall_den: float = 0.0
    precision_num: float = 0.0
    precision_den: float = 0.0

    @classmethod
    def from_tp(cls, tp: float, n_gold: float, n_pred: float) -> PRF:
        """The common case: one true-positive count over the gold and predicted totals."""
        return cls(tp, n_gold, tp, n_pred)

    @property
    def recall(self) -> float:
        return ratio(self.recall_num, self.recall_den)

    @property
    def precision(self) -> float:
        return ratio(self.precision_num, self.precision_den)

    @property
    def f1(self) -> float:
        return f1(self.precision, self.recall)

    def __add__(self, other: PRF) -> PRF:
        return PRF(self.recall_num + other.recall_num, self.recall_den + other.recall_den,
                   self.precision_num + other.precision_num,
                   self.precision_den + other.precision_den)

    def to_dict(self, counts: bool = True) -> dict:
        """``{"recall", "precision", "f1"}`` (the JSON shape of every P/R/F), plus the counts."""
        d = {"recall": self.recall, "precision": self.precision, "f1": self.f1}
        if counts:
            d["counts"] = {"recall_num": self.recall_num, "recall_den": self.recall_den,
                           "precision_num": self.precision_num,
                           "precision_den": self.precision_den}
        return d


def micro(items: Iterable[PRF]) -> PRF:
    """Sum of counts (micro average)."""
    total = PRF()
    for item in items:
        total = total + item
    return total


def macro(items: Iterable[PRF]) -> dict:
    """Mean of per-item recall and precision, with both macro F1 conventions: ``f1`` is the mean
    of per-item F1s, ``f1_of_means`` the F1 of the mean precision and mean recall (the TAC KBP
    event-nugget scorer v1.8's macro F1)."""
    items = list(items)
    if not items:
        return {"recall": 0.0, "precision": 0.0, "f1": 0.0, "f1_of_means": 0.0, "n": 0}
    n = len(items)
    r = sum(i.recall for i in items) / n
    p = sum(i.precision for i in items) / n
    return {"recall": r, "precision": p, "f1": sum(i.f1 for i in items) / n,
            "f1_of_means": f1(p, r), "n": n}
