"""The corpus level of the link scores: one document's counts (:class:`DocScore`), their
micro average over documents (:class:`CorpusScore`), and the rule that the reference and the
system hold the same documents (:func:`check_same_documents`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...core.errors import InputError
from ..aggregation import PRF, micro

__all__ = ["DocScore", "CorpusScore", "check_same_documents"]


@dataclass(frozen=True)
class DocScore:
    """Counts of one document: credited system links / system links (precision) and credited
    reference links / reference links (recall), plus what was noticed on the way."""

    doc_id: str
    prec_matched: float
    sys_total: int
    rec_matched: float
    gold_total: int
    notes: dict = field(default_factory=dict)

    @property
    def prf(self) -> PRF:
        return PRF(self.rec_matched, self.gold_total, self.prec_matched, self.sys_total)

    @property
    def precision(self) -> float:
        return self.prf.precision

    @property
    def recall(self) -> float:
        return self.prf.recall

    @property
    def f1(self) -> float:
        return self.prf.f1


@dataclass(frozen=True)
class CorpusScore:
    mode: str
    documents: tuple[DocScore, ...]

    @property
    def prf(self) -> PRF:
        """Micro: the documents' counts summed."""
        return micro(d.prf for d in self.documents)

    @property
    def precision(self) -> float:
        return self.prf.precision

    @property
    def recall(self) -> float:
        return self.prf.recall

    @property
    def f1(self) -> float:
        return self.prf.f1


def check_same_documents(gold_docs: dict, sys_docs: dict) -> None:
    """A reference document without system output is an error, as is a system document without
    reference (naming the first few, and the system directory)."""
    missing = sorted(set(gold_docs) - set(sys_docs))
    extra = sorted(set(sys_docs) - set(gold_docs))
    if missing or extra:
        what = (f"no system output for {', '.join(missing[:5])}" if missing else
                f"system documents without reference: {', '.join(extra[:5])}")
        path = next(iter(sys_docs.values())).path.parent if sys_docs else None
        raise InputError(what, path=path)

