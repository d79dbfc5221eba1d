"""The 2015 pilot study's own scoring (Liu, Mitamura & Hovy 2015): Algorithm 1's mapping on
spans, Algorithm 2's span TP with its original, EvmEval and fixed precisions, Algorithm 3's
attribute accuracies, section 2.6's multiplied scores and Algorithm 4 (:func:`pilot_study`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...io.tbf import (
    DEFAULT_ATTRIBUTES,
    TOKEN_FILE_EXT,
    TOKEN_OFFSET_FIELDS,
    Mention,
    TbfFile,
    TbfWarning,
    TokenTable,
)
from ..aggregation import PRF, macro, micro
from .instances import PLAIN, combination_masks, document_instances
from .mappings import SPAN_FIRST, span_first_mapping, span_first_results
from .reading import document_pairs, read_pair, setup_evaluation

#: Precision formulas of :func:`pilot_study` (see :class:`PilotStudyScore`).
PILOT_PRECISIONS = ("original", "evmeval", "fixed")

#: How :meth:`PilotStudyScore.accuracy` averages Algorithm 3 over gold mentions.
PILOT_ACCURACY_OVER = ("gold", "mapped")

#: How :meth:`PilotStudyScore.multiplied` takes a combination's attribute accuracy.
PILOT_PRODUCTS = ("individual", "joint")


@dataclass(frozen=True, eq=False)
class PilotDocument:
    """One document under the pilot study's scoring.

    ``mapping``: M of Algorithm 1 (per gold mention, the system mentions it collected, best
    first); ``tp``: Algorithm 2's TP (per gold mention the highest Dice in M_G);
    ``correct[c]``: the sum over the gold mentions of Algorithm 3's accuracy for the attributes
    of combination ``c`` (``plain``: no attribute, so 1 per mapped gold mention);
    ``alg4_tp[c]``: Algorithm 4's TP (``plain``: equal to ``tp``)."""

    doc_id: str
    n_gold: int
    n_system: int
    mapping: tuple[tuple[int, ...], ...]
    tp: float
    correct: Mapping[str, float]
    alg4_tp: Mapping[str, float]

    @property
    def valid(self) -> bool:
        """Documents with gold mentions enter the averages (as in v1.8, and in v1.1)."""
        return self.n_gold > 0

    @property
    def n_mapped_gold(self) -> int:
        """Gold mentions with ``|M_G| > 0``."""
        return sum(1 for m in self.mapping if m)

    @property
    def one_to_one(self) -> bool:
        """Whether no gold mention collected more than one system mention."""
        return all(len(m) <= 1 for m in self.mapping)

    def fp(self, precision: str = "original") -> float:
        """False positives under ``precision`` (:data:`PILOT_PRECISIONS`): ``original`` --
        Algorithm 2's lines 3-4 literally, one per gold mention with ``|M_G| = 0``;
        ``evmeval`` -- what the pilot's scorer (EvmEval v1.0-v1.1) computes,
        ``N_S - #{G : |M_G| > 0}``; ``fixed`` -- section 2.4's ``N_S - TP``."""
        if precision == "original":
            return float(self.n_gold - self.n_mapped_gold)
        if precision == "evmeval":
            return float(self.n_system - self.n_mapped_gold)
        if precision == "fixed":
            return self.n_system - self.tp
        raise ValueError(f"unknown precision {precision!r}; choose one of "
                         + ", ".join(PILOT_PRECISIONS))

    def span(self, precision: str = "fixed") -> PRF:
        """Span counts: recall TP / N_G; precision TP / (TP + FP) (``fixed``: TP / N_S)."""
        den = self.n_system if precision == "fixed" else self.tp + self.fp(precision)
        return PRF(self.tp, self.n_gold, self.tp, den)

    def alg4(self, combination: str) -> PRF:
        """Algorithm 4's TP over N_G and N_S."""
        return PRF.from_tp(self.alg4_tp[combination], self.n_gold, self.n_system)

    def to_dict(self) -> dict:
        return {"doc_id": self.doc_id, "n_gold": self.n_gold, "n_system": self.n_system,
                "n_mapped_gold": self.n_mapped_gold, "one_to_one": self.one_to_one,
                "tp": self.tp, "fp": {p: self.fp(p) for p in PILOT_PRECISIONS},
                "span": {p: self.span(p).to_dict(counts=False) for p in PILOT_PRECISIONS},
                "accuracy": {c: (x / self.n_gold if self.n_gold else 0.0)
                             for c, x in self.correct.items()},
                "algorithm4_tp": dict(self.alg4_tp),
                "mapping": [list(m) for m in self.mapping]}


@dataclass(eq=False)
class PilotStudyScore:
    """The pilot study's scores of a corpus (:func:`pilot_study`), micro-averaged over the
    valid documents (those with gold mentions) -- section 4: "micro average across these
    mentions".

    * :meth:`span`: Algorithm 2's TP with recall TP / N_G and one of three precisions
      (:data:`PILOT_PRECISIONS`): ``original`` = TP / (TP + FP) with FP as Algorithm 2's lines
      3-4 print it (one per *gold* mention without a mapped system mention -- literally a count
      of missed gold mentions, so spurious system mentions cost nothing); ``evmeval`` = TP /
      (TP + FP) with the FP of the scorer the pilot ran (EvmEval v1.0-v1.1: ``fp =
      len(s_lines) - num_gold_found``, the system mentions that are not the first of a gold
      mention), the formula whose "FP = 0 gives perfect precision" section 2.4 complains of;
      ``fixed`` = TP / N_S (section 2.4's fix, FP = N_S - TP, which v1.8 prints).
      Micro: the counts summed over documents (TP, TP + FP or N_S, N_G), then divided.
    * :meth:`accuracy`: Algorithm 3 -- per gold mention G and attribute set A, the share of the
      system mentions in M_G whose attributes A all agree with G's (canonical values, as
      everywhere in this module, where v1.1 compared raw strings; a gold ``NOT_ANNOTATED``
      agrees with anything, as v1.1 gives a mapped gold mention full realis credit for a
      missing realis); 0 when ``|M_G| = 0`` (Accuracy starts at 0 and the loop is empty). "Attribute
      scores are only calculated on the gold standard mentions" (section 4.2): our reading, the
      mean over **all** gold mentions of the valid documents, unmapped ones contributing 0 --
      what EvmEval v1.1 prints (``total_type_correct / total_gold_mentions``). The alternative,
      the mean over mapped gold mentions only, is ``over="mapped"``. For a combination of several
      attributes, A is the whole set (all must agree).
    * :meth:`multiplied`: section 2.6's "naive" combination (Figure 2): span F1 times the
      accuracies of the combination's attributes -- by default each attribute's own accuracy
      (the paper multiplies "these individual scores"), with ``product="joint"`` the accuracy of
      the attribute set as one. Every factor is at most 1, so the product is at most each of them
      and shrinks with every attribute: the paper's point that the scores "soon become too small".
    * :meth:`alg4`: Algorithm 4 on the same mapping (the ``pilot2015-alg4`` mapping of
      :func:`evaluate`), precision over N_S as that algorithm's input says.
    """

    mapping: str
    attributes: tuple[str, ...]
    combinations: tuple[str, ...]
    documents: list[PilotDocument]
    warnings: list[TbfWarning] = field(default_factory=list)

    @property
    def valid_documents(self) -> list[PilotDocument]:
        return [d for d in self.documents if d.valid]

    @property
    def excluded_system_mentions(self) -> int:
        """System mentions in documents without gold mentions (counted nowhere, as v1.8)."""
        return sum(d.n_system for d in self.documents if not d.valid)

    @property
    def one_to_one(self) -> bool:
        """Whether Algorithm 1's mapping is 1:1 in every valid document."""
        return all(d.one_to_one for d in self.valid_documents)

    def span(self, precision: str = "fixed") -> PRF:
        """Micro span P/R/F1 under ``precision`` (:data:`PILOT_PRECISIONS`)."""
        if precision not in PILOT_PRECISIONS:
            raise ValueError(f"unknown precision {precision!r}; choose one of "
                             + ", ".join(PILOT_PRECISIONS))
        return micro(d.span(precision) for d in self.valid_documents)

    def span_macro(self, precision: str = "fixed") -> dict:
        """Macro span scores (the pilot scorer printed both; :func:`aggregation.macro`)."""
        return macro(d.span(precision) for d in self.valid_documents)

    def accuracy(self, combination: str, over: str = "gold") -> float:
        """Algorithm 3's accuracy of ``combination``'s attribute set, micro over gold mentions
        (``over="gold"``: all of them, unmapped ones 0) or over mapped gold mentions only."""
        if over not in PILOT_ACCURACY_OVER:
            raise ValueError(f"unknown accuracy denominator {over!r}; choose one of "
                             + ", ".join(PILOT_ACCURACY_OVER))
        docs = self.valid_documents
        den = sum(d.n_gold if over == "gold" else d.n_mapped_gold for d in docs)
        return sum(d.correct[combination] for d in docs) / den if den else 0.0

    def attribute_accuracies(self, combination: str, over: str = "gold") -> dict[str, float]:
        """Each attribute of ``combination`` with its own Algorithm 3 accuracy."""
        names = [] if combination == PLAIN else combination.split("+")
        return {a: self.accuracy(a, over) for a in names}

    def multiplied(self, combination: str, precision: str = "fixed",
                   product: str = "individual", over: str = "gold") -> float:
        """Section 2.6's product: span F1 (under ``precision``) times the accuracies of the
        attributes of ``combination`` (``individual``) or of the set at once (``joint``)."""
        if product not in PILOT_PRODUCTS:
            raise ValueError(f"unknown product {product!r}; choose one of "
                             + ", ".join(PILOT_PRODUCTS))
        out = self.span(precision).f1
        if product == "joint":
            return out * self.accuracy(combination, over)
        for x in self.attribute_accuracies(combination, over).values():
            out *= x
        return out

    def alg4(self, combination: str) -> PRF:
        """Micro Algorithm 4 scores of ``combination``."""
        return micro(d.alg4(combination) for d in self.valid_documents)

    def to_dict(self, documents: bool = True) -> dict:
        out = {
            "mapping": self.mapping, "attributes": list(self.attributes),
            "combinations": list(self.combinations),
            "valid_documents": len(self.valid_documents),
            "excluded_system_mentions": self.excluded_system_mentions,
            "n_mapped_gold": sum(d.n_mapped_gold for d in self.valid_documents),
            "one_to_one": self.one_to_one,
            "span": {p: {**self.span(p).to_dict(), "fp": sum(
                d.fp(p) for d in self.valid_documents)} for p in PILOT_PRECISIONS},
            "span_macro": {p: self.span_macro(p) for p in PILOT_PRECISIONS},
            "accuracy": {o: {c: self.accuracy(c, o) for c in self.combinations}
                         for o in PILOT_ACCURACY_OVER},
            "multiplied": {c: {f"{p}/{k}": self.multiplied(c, p, k)
                               for p in PILOT_PRECISIONS for k in PILOT_PRODUCTS}
                           for c in self.combinations},
            "algorithm4": {c: self.alg4(c).to_dict() for c in self.combinations},
        }
        if documents:
            out["documents"] = [d.to_dict() for d in self.documents]
        return out


def pilot_document(doc_id: str, gold: Sequence[Mention], system: Sequence[Mention],
                   combos: Sequence[tuple[int, ...]], names: Sequence[str],
                   mapping: str = "pilot2015-alg4") -> PilotDocument:
    """Algorithms 1-4 on one document (see :class:`PilotStudyScore`)."""
    instances = dict(zip(names, document_instances(gold, system, combos), strict=True))
    collected = span_first_mapping(mapping, instances[PLAIN])
    alg4 = span_first_results(mapping, instances, collected)
    pairs = np.array([(r, c) for r, cs in enumerate(collected) for c in cs],
                     dtype=np.int64).reshape(-1, 2)
    share = np.array([1.0 / len(collected[r]) for r in pairs[:, 0].tolist()])
    masks = combination_masks(gold, system, pairs[:, 0], pairs[:, 1], combos)
    correct = {n: float(share[k].sum()) for n, k in zip(names, masks, strict=True)}
    return PilotDocument(doc_id, len(gold), len(system), tuple(tuple(m) for m in collected),
                         float(alg4[PLAIN].objective or 0.0), correct,
                         {n: float(r.objective or 0.0) for n, r in alg4.items()})


def pilot_study(gold: TbfFile, system: TbfFile, *, mapping: str = "pilot2015-alg4",
                token_tables: Mapping[str, TokenTable | None] | None = None,
                type_whitelist: Iterable[str] | None = None,
                strict: bool = False) -> PilotStudyScore:
    """Score as the event nugget pilot study does (Liu, Mitamura & Hovy 2015): Algorithm 1's
    mapping on spans, Algorithm 2's span TP with its original and its fixed precision, Algorithm
    3's attribute accuracies, section 2.6's multiplicative combination and Algorithm 4, per
    document and micro-averaged (:class:`PilotStudyScore`). Documents are paired as v1.8 pairs
    them (:func:`document_pairs`; the same white list, token checks and warnings as
    :func:`evaluate`). ``mapping``: ``pilot2015-alg4`` (Algorithm 1) or ``kbp-span-first``
    (v1.8's 1:1 greedy on spans as M)."""
    if mapping not in SPAN_FIRST:
        raise ValueError(f"unknown span-first mapping {mapping!r}; choose one of "
                         + ", ".join(SPAN_FIRST))
    attributes, combos, names, warnings = setup_evaluation(gold, system)
    docs = [pilot_document(doc_id, g, s, combos, names, mapping)
            for doc_id, g, s in document_pairs(gold, system, warnings, token_tables=token_tables,
                                               type_whitelist=type_whitelist, strict=strict)]
    return PilotStudyScore(mapping, attributes, names, docs, warnings)


def pilot_study_files(gold_path, system_path, *, token_dir=None,
                      token_ext: str = TOKEN_FILE_EXT,
                      offset_fields: tuple[int, int] = TOKEN_OFFSET_FIELDS,
                      attributes: Sequence[str] = DEFAULT_ATTRIBUTES, type_whitelist=None,
                      strict: bool = False, mapping: str = "pilot2015-alg4"
                      ) -> PilotStudyScore:
    """Read (as :func:`evaluate_files`) and score with :func:`pilot_study`."""
    gold, system, tables, type_whitelist = read_pair(
        gold_path, system_path, token_dir=token_dir, token_ext=token_ext,
        offset_fields=offset_fields, attributes=attributes, type_whitelist=type_whitelist,
        strict=strict)
    return pilot_study(gold, system, mapping=mapping, token_tables=tables,
                       type_whitelist=type_whitelist, strict=strict)


def format_pilot_study(score: PilotStudyScore) -> str:
    """A text report of :func:`pilot_study` (percentages, micro averages)."""
    out = ["=======Pilot study (Liu et al. 2015), micro average=========\n",
           f"Mapping M: {score.mapping}; {len(score.valid_documents)} documents, "
           f"{sum(d.n_gold for d in score.valid_documents)} gold mentions "
           f"({sum(d.n_mapped_gold for d in score.valid_documents)} mapped), "
           f"{sum(d.n_system for d in score.valid_documents)} system mentions\n",
           "Span (Algorithm 2)\tTP\tFP\tPrec\tRec\tF1\n"]
    for p in PILOT_PRECISIONS:
        x = score.span(p)
        fp = sum(d.fp(p) for d in score.valid_documents)
        out.append(f"{p}\t{x.recall_num:.4f}\t{fp:.4f}\t{100 * x.precision:.2f}\t"
                   f"{100 * x.recall:.2f}\t{100 * x.f1:.2f}\n")
    out.append("Attributes\tAcc (Alg. 3)\tAcc mapped\tF1 x acc (orig)\tF1 x acc (fixed)"
               "\tAlg. 4 F1\n")
    for c in score.combinations:
        if c == PLAIN:
            continue
        out.append(f"{c}\t{100 * score.accuracy(c):.2f}\t{100 * score.accuracy(c, 'mapped'):.2f}"
                   f"\t{100 * score.multiplied(c, 'original'):.2f}"
                   f"\t{100 * score.multiplied(c, 'fixed'):.2f}\t{100 * score.alg4(c).f1:.2f}\n")
    return "".join(out)
