"""Counts and their aggregation: the one place P/R/F are computed and serialised.

A :class:`PRF` holds the recall and precision numerators and denominators; precision, recall,
F1 and Fβ are derived from them. Summing PRFs is micro-averaging (sum counts, then divide);
:func:`macro` averages the per-item ratios. Division by a zero denominator gives 0 (as the CoNLL
reference scorer and the TAC KBP scorer do), and F1 is 0 when precision and recall are both 0.

Every P/R/F of the JSON output is written by :func:`prf_dict` (through :meth:`PRF.to_dict` where
the counts are known; directly for scores that are only ratios, such as a mean of F1s): keys
``recall``, ``precision``, ``f1`` in that order unless a command's schema fixes another
(:data:`PRECISION_FIRST`, smatch's), numbers as Python floats and a non-finite or missing number
as ``null``.

Imports nothing but the standard library's ``math`` -- not even :mod:`dataclasses`, whose import
(with :mod:`inspect`) costs about 15 ms of ``exactalign smatch``'s 0.1 s start-up -- so every
command, the quickest included, scores through this module.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

#: The JSON key order of a P/R/F (the CoNLL reference scorer's: recall first).
RECALL_FIRST = ("recall", "precision", "f1")
#: smatch's order (``Precision:``, ``Recall:``, ``F-score:``), kept by ``exactalign smatch``.
PRECISION_FIRST = ("precision", "recall", "f1")


def ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def fbeta(precision: float, recall: float, beta: float) -> float:
    """``(1 + β²) P R / (β² P + R)`` (0 when that denominator is 0); β = 1 is :func:`f1`
    exactly (the same operation order, so the same float)."""
    if beta == 1:
        return f1(precision, recall)
    b2 = beta * beta
    den = b2 * precision + recall
    return (1 + b2) * precision * recall / den if den else 0.0


def json_number(v: float | None) -> float | None:
    """A score as JSON writes it: a Python float, ``None`` for a missing or non-finite one."""
    return None if v is None or not math.isfinite(v) else float(v)


def prf_dict(recall: float | None, precision: float | None, f1: float | None,
             order: tuple[str, ...] = RECALL_FIRST) -> dict:
    """The JSON object every P/R/F is written as, keys in ``order`` (:func:`json_number`)."""
    values = {"recall": recall, "precision": precision, "f1": f1}
    return {k: json_number(values[k]) for k in order}


def prf_counts_dict(precision: float | None, recall: float | None, f1: float | None,
                    counts: dict | None = None) -> dict:
    """:func:`prf_dict` in :data:`PRECISION_FIRST` order, with ``counts`` when given: the
    ``prf`` object of the JSON output (the reports of UMR, DRS and the command line's own)."""
    out = prf_dict(recall, precision, f1, PRECISION_FIRST)
    if counts is not None:
        out["counts"] = counts
    return out


_FIELDS = ("recall_num", "recall_den", "precision_num", "precision_den")


class PRF:
    """Recall = recall_num / recall_den, precision = precision_num / precision_den.

    Immutable, compared and hashed by its four counts, as a frozen dataclass would be (it is
    written out to keep :mod:`dataclasses` out of the start-up: module docstring).

    3 true positives, 1 false positive, 3 false negatives: P = 3/4, R = 3/6, F1 = 2PR/(P+R) =
    3/5, F2 = 5PR/(4P+R) = 15/28; summing is micro-averaging:

    >>> s = PRF.from_counts(tp=3, fp=1, fn=3)
    >>> s == PRF.from_tp(3, n_gold=6, n_pred=4) == PRF(3, 6, 3, 4)
    True
    >>> s.precision, s.recall, round(s.f1, 12), round(s.fbeta(2), 12) == round(15 / 28, 12)
    (0.75, 0.5, 0.6, True)
    >>> s.to_dict(counts=False, order=PRECISION_FIRST)
    {'precision': 0.75, 'recall': 0.5, 'f1': 0.6}
    >>> (s + PRF.from_tp(1, 2, 4)).counts()
    {'recall_num': 4, 'recall_den': 8, 'precision_num': 4, 'precision_den': 8}
    """

    __slots__ = _FIELDS
    __match_args__ = _FIELDS

    recall_num: float
    recall_den: float
    precision_num: float
    precision_den: float

    def __init__(self, recall_num: float = 0.0, recall_den: float = 0.0,
                 precision_num: float = 0.0, precision_den: float = 0.0) -> None:
        for name, value in zip(_FIELDS, (recall_num, recall_den, precision_num, precision_den),
                               strict=True):
            object.__setattr__(self, name, value)

    # -- constructors -----------------------------------------------------------------------
    @classmethod
    def from_tp(cls, tp: float, n_gold: float, n_pred: float) -> PRF:
        """The common case: one true-positive count over the gold and predicted totals."""
        return cls(tp, n_gold, tp, n_pred)

    @classmethod
    def from_counts(cls, tp: float, fp: float, fn: float) -> PRF:
        """From true positives, false positives and false negatives: recall ``tp / (tp + fn)``,
        precision ``tp / (tp + fp)``."""
        return cls(tp, tp + fn, tp, tp + fp)

    # -- scores -----------------------------------------------------------------------------
    @property
    def recall(self) -> float:
        return ratio(self.recall_num, self.recall_den)

    @property
    def precision(self) -> float:
        return ratio(self.precision_num, self.precision_den)

    @property
    def f1(self) -> float:
        return f1(self.precision, self.recall)

    def fbeta(self, beta: float) -> float:
        """Fβ of :attr:`precision` and :attr:`recall` (:func:`fbeta`; ``fbeta(1) == f1``)."""
        return fbeta(self.precision, self.recall, beta)

    # -- aggregation and output -------------------------------------------------------------
    def __add__(self, other: PRF) -> PRF:
        return PRF(self.recall_num + other.recall_num, self.recall_den + other.recall_den,
                   self.precision_num + other.precision_num,
                   self.precision_den + other.precision_den)

    def counts(self) -> dict:
        """The four counts, by name."""
        return {k: getattr(self, k) for k in _FIELDS}

    def to_dict(self, counts: bool = True, order: tuple[str, ...] = RECALL_FIRST) -> dict:
        """``{"recall", "precision", "f1"}`` (:func:`prf_dict`, keys in ``order``), plus the
        counts under ``"counts"``."""
        d = prf_dict(self.recall, self.precision, self.f1, order)
        if counts:
            d["counts"] = self.counts()
        return d

    # -- value semantics (what ``@dataclass(frozen=True)`` would generate) -------------------
    def _astuple(self) -> tuple:
        return (self.recall_num, self.recall_den, self.precision_num, self.precision_den)

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a PRF (it is immutable)")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a PRF (it is immutable)")

    def __eq__(self, other) -> bool:
        if other.__class__ is self.__class__:
            return self._astuple() == other._astuple()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._astuple())

    def __reduce__(self):
        return (self.__class__, self._astuple())

    def __repr__(self) -> str:
        return "PRF(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in _FIELDS) + ")"


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
