"""Whether one document's TLINKs are consistent, a witness when not, and the fewest links to
drop, exact and by each greedy heuristic (:func:`check_document`)."""

from __future__ import annotations

from dataclasses import dataclass

from ...io.timeml import TimeMLDocument
from ...problems import temporal as tp

__all__ = ["document_instance", "ConsistencyReport", "check_document"]


def document_instance(doc: TimeMLDocument) -> tp.TemporalInstance:
    """All TLINKs of ``doc`` in file order (duplicates kept, unit weights, names = lids)."""
    return tp.TemporalInstance.from_links(
        (lk.source, lk.target, lk.rel_type, 1.0, lk.lid) for lk in doc.tlinks)


@dataclass(frozen=True)
class ConsistencyReport:
    """Whether a document's TLINKs are consistent, a witness cycle (lids) when not, and the
    fewest links to drop: exact (proven or with bound) and each greedy heuristic."""

    doc_id: str
    links: int
    consistent: bool
    witness: tuple[str, ...]
    exact: object                  # Result of the maximum consistent subset
    heuristics: dict               # name -> Result

    @property
    def min_drop(self) -> int:
        return self.links - round(self.exact.objective)


def check_document(doc: TimeMLDocument, *, backend: str = "highs",
                   time_limit: float | None = None) -> ConsistencyReport:
    inst = document_instance(doc)
    cycle = tp.find_inconsistency(inst)
    witness = tuple(f"{inst.names[k]}:{inst.rel[k]}" for k in cycle) if cycle else ()
    exact = tp.solve(inst, "exact", backend=backend, time_limit=time_limit)
    heur = {name: tp.solve(inst, name) for name in tp.HEURISTICS} if cycle else {}
    return ConsistencyReport(doc.doc_id, inst.n_links, cycle is None, witness, exact, heur)
