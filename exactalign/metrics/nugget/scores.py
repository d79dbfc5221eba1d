"""v1.8's scores of a mapping: per document (TP, P/R/F1, v1.8's FP), per mention type, over
the corpus (micro and macro, valid documents only), and how far a heuristic mapping falls
below the exact one (:class:`GapSummary`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ...core.result import Result
from ...io.tbf import TbfWarning
from ...problems import bipartite
from ..aggregation import PRF, macro, micro
from .coreference import CorefEvaluation
from .instances import PLAIN


@dataclass(frozen=True, eq=False)
class DocumentScore:
    """One document under one mapping: per combination name, the solve :class:`Result`
    (``objective`` = TP; ``alignment`` = (gold index, system index) pairs) and its instance."""

    doc_id: str
    n_gold: int
    n_system: int
    n_system_ids: int  # distinct system mention ids (v1.8's span-only FP)
    results: Mapping[str, Result]
    instances: Mapping[str, bipartite.BipartiteInstance] = field(repr=False)
    gold_types: tuple[str, ...] = field(default=(), repr=False)  # canonical, per mention
    system_types: tuple[str, ...] = field(default=(), repr=False)
    gold_ids: tuple[str, ...] = field(default=(), repr=False)  # mention ids, per mention
    system_ids: tuple[str, ...] = field(default=(), repr=False)

    @property
    def valid(self) -> bool:
        """v1.8 averages only documents with gold mentions."""
        return self.n_gold > 0

    def tp(self, combination: str = PLAIN) -> float:
        return float(self.results[combination].objective or 0.0)

    def prf(self, combination: str = PLAIN) -> PRF:
        """TP / N_G and TP / N_S (the precision v1.8 prints)."""
        return PRF.from_tp(self.tp(combination), self.n_gold, self.n_system)

    def fp(self, combination: str = PLAIN) -> float:
        """v1.8's false positives: distinct system ids - TP for plain, N_S - TP otherwise."""
        n = self.n_system_ids if combination == PLAIN else self.n_system
        return n - self.tp(combination)

    def prf_tp_fp(self, combination: str = PLAIN) -> PRF:
        """Precision over TP + FP (see :meth:`fp`)."""
        tp = self.tp(combination)
        return PRF(tp, self.n_gold, tp, tp + self.fp(combination))

    def witness(self, combination: str, optimum: float) -> dict:
        """How far this mapping is from an optimal one for ``combination``, whose maximum TP is
        ``optimum``: the fewest (gold, system) mention pairs to remove and add
        (:func:`exactalign.problems.bipartite.witness`), as ``{"remove", "add", "changes",
        "gain"}`` with each pair ``[gold mention id, system mention id]``. A combination's
        alignment is always one of its instance (span-first mappings keep, per combination, the
        credited pairs of their span mapping), so for a span-first mapping the witness names
        the pairs it could have credited."""
        inst, res = self.instances[combination], self.results[combination]
        w = bipartite.witness(inst, res.alignment, optimum=optimum)

        def ids(pairs):
            return [[self.gold_ids[i], self.system_ids[j]] for i, j in pairs.tolist()]

        return {"remove": ids(w.remove), "add": ids(w.add), "changes": w.changes,
                "gain": w.gain}

    def pair_weights(self, combination: str) -> tuple[np.ndarray, np.ndarray]:
        """The alignment of ``combination`` and the Dice of each of its pairs."""
        res, inst = self.results[combination], self.instances[combination]
        al = np.asarray(res.alignment, dtype=np.int64).reshape(-1, 2)
        return al, inst.weights[inst.pair_index(al)]


@dataclass(frozen=True)
class TypeScore:
    type: str
    tp: float
    n_gold: int
    n_system: int

    @property
    def prf(self) -> PRF:
        return PRF.from_tp(self.tp, self.n_gold, self.n_system)


@dataclass(eq=False)
class NuggetScore:
    """The corpus under one mapping."""

    mapping: str
    combinations: tuple[str, ...]
    documents: list[DocumentScore]
    per_type: dict[str, TypeScore]
    type_combination: str
    compat: bool
    #: v1.8's coreference evaluation under this mapping (``evaluate(coref=True)``), else None
    coref: CorefEvaluation | None = None

    @property
    def valid_documents(self) -> list[DocumentScore]:
        return [d for d in self.documents if d.valid]

    @property
    def excluded_system_mentions(self) -> int:
        """System mentions in documents without gold mentions: v1.8 counts them nowhere."""
        return sum(d.n_system for d in self.documents if not d.valid)

    def micro(self, combination: str = PLAIN) -> PRF:
        return micro(d.prf(combination) for d in self.valid_documents)

    def micro_tp_fp(self, combination: str = PLAIN) -> PRF:
        return micro(d.prf_tp_fp(combination) for d in self.valid_documents)

    def macro(self, combination: str = PLAIN) -> dict:
        """v1.8's macro average: mean precision and recall over valid documents; its F1 is
        ``f1_of_means`` (the key ``f1`` of :func:`aggregation.macro` is the mean of F1s)."""
        return macro(d.prf(combination) for d in self.valid_documents)

    def total_tp(self, combination: str = PLAIN) -> float:
        return sum(d.tp(combination) for d in self.valid_documents)

    def document(self, doc_id: str) -> DocumentScore:
        for d in self.documents:
            if d.doc_id == doc_id:
                return d
        raise KeyError(doc_id)


@dataclass(eq=False)
class NuggetEvaluation:
    """Every requested mapping of one gold/system pair, with the warnings met on the way."""

    gold_path: str
    system_path: str
    mode: str
    attributes: tuple[str, ...]
    combinations: tuple[str, ...]
    compat: bool
    scores: dict[str, NuggetScore]
    warnings: list[TbfWarning]
    #: attribute index -> the :class:`LevelCredit` used instead of equality (empty: v1.8)
    attribute_credits: dict = field(default_factory=dict)

    def gaps(self, heuristic: str = "kbp", reference: str = "exact") -> dict[str, GapSummary]:
        """Per combination, how far ``heuristic`` falls below ``reference`` (both must have
        been computed)."""
        h, e = self.scores[heuristic], self.scores[reference]
        return {c: gap_summary(h, e, c) for c in self.combinations}


@dataclass(frozen=True)
class DocumentGap:
    doc_id: str
    tp: float
    exact_tp: float
    f1: float
    exact_f1: float

    @property
    def tp_gap(self) -> float:
        return self.exact_tp - self.tp

    @property
    def f1_gap(self) -> float:
        return self.exact_f1 - self.f1


@dataclass(frozen=True)
class GapSummary:
    """A heuristic mapping against the exact one for one combination."""

    combination: str
    documents: tuple[DocumentGap, ...]
    micro_f1: float
    exact_micro_f1: float
    macro_f1: float
    exact_macro_f1: float

    #: TP differences at or below this are ties (the TP of both are sums of the same floats).
    TOL = 1e-9

    @property
    def with_gap(self) -> tuple[DocumentGap, ...]:
        return tuple(d for d in self.documents if d.tp_gap > self.TOL)

    @property
    def tp(self) -> float:
        return sum(d.tp for d in self.documents)

    @property
    def exact_tp(self) -> float:
        return sum(d.exact_tp for d in self.documents)

    @property
    def max_tp_gap(self) -> float:
        return max((d.tp_gap for d in self.documents), default=0.0)

    @property
    def max_f1_gap(self) -> float:
        return max((d.f1_gap for d in self.documents), default=0.0)


def gap_summary(heuristic: NuggetScore, exact: NuggetScore, combination: str) -> GapSummary:
    docs = []
    for d in heuristic.documents:
        x = exact.document(d.doc_id)
        docs.append(DocumentGap(d.doc_id, d.tp(combination), x.tp(combination),
                                d.prf(combination).f1, x.prf(combination).f1))
    return GapSummary(combination, tuple(docs), heuristic.micro(combination).f1,
                      exact.micro(combination).f1,
                      heuristic.macro(combination)["f1_of_means"],
                      exact.macro(combination)["f1_of_means"])
