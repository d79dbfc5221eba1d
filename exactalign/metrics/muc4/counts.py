"""MUC slot counts (POS, ACT, COR, PAR, INC, SPU, MIS) and their scores, and the 1992 scorer's
rounded percentage (:func:`normalized_percent`).

Precision and recall are :class:`~exactalign.metrics.aggregation.PRF`'s (credit over ACT and
over POS, 0 for an empty denominator: the same division, so the same float). F is MUC's
``2 credit / (POS + ACT)`` -- the ratio the exact alignments maximise -- and stays written out:
``PRF.f1`` computes ``2PR / (P + R)``, equal in exact arithmetic but not in floating point, so
it would change printed and serialised F values in their last digits."""

from __future__ import annotations

from dataclasses import dataclass

from ..aggregation import PRF

#: The counts of a MUC score row.
FIELDS = ("POS", "ACT", "COR", "PAR", "INC", "SPU", "MIS")


@dataclass(frozen=True)
class Counts:
    """MUC slot counts; ``+`` adds them."""

    POS: float = 0
    ACT: float = 0
    COR: float = 0
    PAR: float = 0
    INC: float = 0
    SPU: float = 0
    MIS: float = 0

    def __add__(self, o: Counts) -> Counts:
        return Counts(*(getattr(self, f) + getattr(o, f) for f in FIELDS))

    @property
    def credit(self) -> float:
        return self.COR + 0.5 * self.PAR

    @property
    def prf(self) -> PRF:
        """Recall credit / POS, precision credit / ACT."""
        return PRF(self.credit, self.POS, self.credit, self.ACT)

    @property
    def recall(self) -> float:
        return self.prf.recall

    @property
    def precision(self) -> float:
        return self.prf.precision

    @property
    def f1(self) -> float:
        """MUC's F, ``2 credit / (POS + ACT)`` (0 when both are 0): the ratio the exact
        alignments maximise, written out (see the module docstring)."""
        return 2 * self.credit / (self.POS + self.ACT) if self.POS + self.ACT else 0.0

    def to_dict(self) -> dict:
        return {**{f: getattr(self, f) for f in FIELDS}, "recall": self.recall,
                "precision": self.precision, "f1": self.f1}


def normalized_percent(num: int, num2: int, den: int) -> int:
    """``(num + ½ num2) / den`` as the scorer's rounded percentage (half to even).

    >>> normalized_percent(1, 0, 3), normalized_percent(1, 1, 4)
    (33, 38)
    """
    permil = (500 * (2 * num + num2)) // den
    q, r = divmod(permil, 10)
    return q + (1 if r > 5 or (r == 5 and q % 2) else 0)
