"""Event-nugget (mention detection) scoring: the TAC KBP scorer v1.8, faithfully, and exactly.

The metric (EvmEval ``scorer_v1.8.py``), per document:

1. *Similarity*: the Dice coefficient of the spans, ``2 |G ∩ S| / (|G| + |S|)``, over token ids
   (token mode) or characters (character mode). Quirk reproduced: in character mode v1.8 counts
   the characters of a span as a *list*, so overlapping or repeated pieces inflate the
   denominator (:attr:`~exactalign.io.tbf.Mention.size`). Only pairs with Dice > 0 are
   candidates.
2. *Attribute combinations*: ``plain`` (span only) and every non-empty combination of the
   attributes in column order (by default ``mention_type``, ``realis_status``,
   ``mention_type+realis_status``). For a combination, a pair is a candidate only when the
   canonical attributes (:func:`~exactalign.io.tbf.canonical`) agree on every attribute of the
   combination; a gold value ``NOT_ANNOTATED`` agrees with anything ("full credit").
3. *Mapping*: for **each combination separately**, a 1:1 alignment of gold (rows) and system
   (columns) mentions on those candidates. v1.8 pops one heap of all pairs in the order
   ``(-Dice, system index, gold index)`` and, for each combination with its own used-sets,
   keeps a pair whose two mentions are still free and whose attributes match: exactly the global
   greedy of :func:`exactalign.problems.bipartite.greedy` on the combination's filtered
   instance. Mappings, by name (:data:`MAPPINGS`): ``kbp`` (that greedy, v1.7-v1.8),
   ``kbp-gold-order`` (v1.6 of 2015-08-11: gold mentions in order take their best free system
   mention), ``pilot2015`` (Liu et al. 2015, EvmEval v1.0-v1.3: a gold mention collects several
   system mentions and scores its first) and ``exact`` (a maximum-weight matching, proven
   optimal). Our reading: the older procedures are applied, like the v1.8 greedy, to each
   combination's filtered candidates (v1.0-v1.6 combined attributes differently); that keeps
   every mapping an alignment of the same objective, so that their values compare. The exact
   mapping of a combination therefore maximises the attribute-augmented TP directly (the
   *joint* objective). The pilot study's own order -- one mapping on spans, attributes scored
   on it (Algorithms 1 and 4) -- is offered as the span-first mappings of :data:`SPAN_FIRST`
   (``pilot2015-alg4``, ``kbp-span-first``; :func:`span_first_results`).
4. *Counts*: TP = the total Dice of the alignment. Precision = TP / N_S with N_S the number of
   system mentions (v1.2's "fixed" precision, which v1.8 prints); recall = TP / N_G. We also
   give precision over TP + FP, v1.8's false-positive count: for attribute combinations
   ``FP = N_S - TP`` (the same thing), but for ``plain`` v1.8 computes ``FP = #distinct system
   mention ids - TP`` -- a quirk that differs only when mention ids repeat.

Corpus level, exactly as v1.8 (``print_eval_results``/``get_averages``):

* Documents are the gold documents, in sorted order; a system document absent from the gold is
  ignored; a gold document absent from the system is scored with no system mentions.
* Only *valid* documents -- those with at least one gold mention -- enter the averages. Quirk
  reproduced: the system mentions of a document without gold mentions count nowhere, not even
  against micro precision (:attr:`NuggetScore.excluded_system_mentions` reports how many).
* Micro: summed TP over summed N_G and N_S of the valid documents.
* Macro: the mean over valid documents of the per-document precision (0 for a document without
  system mentions) and of the recall; **macro F1 is the F1 of those two means** (not the mean of
  the per-document F1s).
* Undefined ratios: v1.8 prints ``nan`` where a denominator is 0 (and for F1 when P + R = 0);
  :func:`v18_numbers` reproduces those for the report, while :class:`PRF` (and the JSON) follow
  the project convention of 0.

Per-type table (``Mention Type Results``): for each mention type (canonical first attribute),
TP = the Dice of the gold mentions of that type in some mapping, N_G and N_S = the gold and
system mentions of that type, P/R/F1 as fractions. Quirk: v1.8 takes the mapping of the *last*
combination that starts with ``mention_type`` -- i.e. ``mention_type+realis_status`` -- so a
realis error also costs a type its credit, and it lists only types that occur in the gold. With
``compat=True`` we reproduce that; by default (corrected) the table uses the ``mention_type``
mapping and lists every type of the gold or the system.

Coreference (v1.8's ``-c``; :func:`coref_rows`, :func:`coref_evaluate`): v1.8 writes each
document as a CoNLL key and response file with one row per mention -- every gold mention, paired
with the system mention the mapping of ``mention_type`` aligns to it when their Dice is at least
1 (identical spans), then the leftover system mentions -- each row's cluster being the mention's
``@Coreference`` cluster or a singleton, and runs the CoNLL reference scorer v8.01 (MUC, B³,
CEAFm, CEAFe, BLANC) on them. We build the same documents in memory and score them with
:mod:`exactalign.metrics.coref`. Quirks reproduced: the printed scores are the reference's F1
truncated to 0.01 (B³ and CEAFe numerators summed in its floating-point order), in Python 2's
dict order; "Overall Average CoNLL score" averages MUC, B³, CEAFe **and BLANC** (CEAFm is
starred out), which is not the CoNLL-2012 average; a document without coreference scores MUC
0/0. A mention in two clusters is an error, as in v1.8.

White list: v1.8's ``-wl`` (off by default) drops every gold and system mention whose canonical
type is not listed, before anything else (and, with ``-c``, their ids from the clusters). Quirk
reproduced: an empty white list (a file without lines) filters nothing (:func:`type_filter`;
we warn).

The pilot study's own scoring (:func:`pilot_study`, Liu, Mitamura & Hovy 2015): one mapping on
spans (Algorithm 1), the span TP of Algorithm 2 with its *original* precision -- TP / (TP + FP)
with FP literally as Algorithm 2's lines 3-4 print it (one per unmapped gold mention), or
(``evmeval``) as the pilot's scorer EvmEval v1.0-v1.1 computed it (N_S - mapped gold mentions)
-- beside the fixed TP / N_S of section 2.4; Algorithm 3's attribute accuracies over the gold
mentions; section 2.6's multiplicative combination; Algorithm 4; micro averages over the
documents paired as above (:class:`PilotStudyScore` says which reading we take where the paper
is ambiguous).

Scheme ``muc`` (:func:`muc_evaluate`): the MUC partial-credit scheme the pilot study contrasts
with Dice -- COR for an aligned pair with the same span, PAR (0.5, or the pair's Dice) for an
overlapping one, P = credit / ACT, R = credit / POS, and the alignment of highest F, with
optional gold mentions (``optional_values``) solved exactly as a ratio by Dinkelbach's method.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import combinations
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..core.errors import InputError
from ..core.fractional import dinkelbach_oracle
from ..core.result import Result, Status
from ..io.conll import Document as ConllDocument
from ..io.tbf import (
    DEFAULT_ATTRIBUTES,
    NOT_ANNOTATED,
    TOKEN_FILE_EXT,
    TOKEN_OFFSET_FIELDS,
    Mention,
    Relation,
    TbfDocument,
    TbfFile,
    TbfWarning,
    TokenTable,
    canonical,
    check_token_ids,
    read_tbf,
    read_token_table,
    read_type_whitelist,
    token_table_path,
)
from ..problems import bipartite
from . import coref as corefm
from .aggregation import PRF, macro, micro

#: mapping name -> method of :func:`exactalign.problems.bipartite.solve`.
MAPPINGS = {
    "kbp": "greedy",
    "kbp-gold-order": "ref-order",
    "pilot2015": "pilot2015",
    "exact": "exact",
}
HEURISTIC_MAPPINGS = ("kbp", "kbp-gold-order", "pilot2015")
#: Span-first mappings (:func:`span_first_results`): mapping name -> heuristic of
#: :data:`exactalign.problems.bipartite.HEURISTICS` run on the span-only candidates.
SPAN_FIRST = {"pilot2015-alg4": "pilot2015", "kbp-span-first": "greedy"}
PLAIN = "plain"
#: Scoring schemes: v1.8's Dice partial credit, or MUC's COR/PAR (see :func:`muc_evaluate`).
SCHEMES = ("dice", "muc")
#: Partial credit of an overlapping pair under the MUC scheme: MUC's 0.5, or the pair's Dice.
PARTIAL_CREDITS = ("half", "dice")
_NA = canonical(NOT_ANNOTATED)


# --------------------------------------------------------------------------------------------
# attribute combinations and per-document instances
# --------------------------------------------------------------------------------------------
def attribute_combinations(n_attributes: int) -> list[tuple[int, ...]]:
    """``()`` (plain) and every non-empty combination of attribute indices, in v1.8's order
    (by size, then lexicographic)."""
    out: list[tuple[int, ...]] = [()]
    for k in range(1, n_attributes + 1):
        out.extend(combinations(range(n_attributes), k))
    return out


def combination_name(combo: Sequence[int], attributes: Sequence[str]) -> str:
    return "+".join(attributes[i] for i in combo) if combo else PLAIN


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
        if canonical(gold) == _NA:
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


def span_overlap(gold: Sequence[Mention], system: Sequence[Mention]):
    """``(rows, cols, inter)`` of every (gold, system) pair sharing a unit, ``inter`` the size of
    the intersection of their unit sets (sparse: pairs sharing nothing are absent)."""
    vocab: dict = {}
    mats = []
    for side in (gold, system):
        rows, cols = [], []
        for i, m in enumerate(side):
            for u in m.units:
                rows.append(i)
                cols.append(vocab.setdefault(u, len(vocab)))
        mats.append((rows, cols))
    V = len(vocab)
    G = sp.csr_array((np.ones(len(mats[0][0])), mats[0]), shape=(len(gold), V))
    S = sp.csr_array((np.ones(len(mats[1][0])), mats[1]), shape=(len(system), V))
    inter = (G @ S.T).tocoo()
    return inter.row, inter.col, inter.data


def span_dice(gold: Sequence[Mention], system: Sequence[Mention]) -> sp.coo_array:
    """Dice of every (gold, system) pair sharing a unit, as v1.8 computes it:
    ``2.0 * |set(G) & set(S)| / (G.size + S.size)`` (sparse; absent pairs are 0)."""
    r, c, inter = span_overlap(gold, system)
    gs = np.array([m.size for m in gold], dtype=np.float64)
    ss = np.array([m.size for m in system], dtype=np.float64)
    val = 2.0 * inter / (gs[r] + ss[c])
    return sp.coo_array((val, (r, c)), shape=(len(gold), len(system)))


def document_instances(gold: Sequence[Mention], system: Sequence[Mention],
                       combos: Sequence[tuple[int, ...]],
                       credits: Mapping[int, LevelCredit] | None = None
                       ) -> list[bipartite.BipartiteInstance]:
    """One bipartite instance per combination: gold rows, system columns, Dice weights, only
    the pairs whose attributes of the combination agree (gold ``NOT_ANNOTATED`` agrees with
    anything). With ``credits`` (attribute index -> :class:`LevelCredit`) those attributes
    give level-based partial credit instead: a pair's weight is its Dice times the product of
    the credits of the combination's hierarchical attributes (pairs of weight 0 are no
    candidates); without, or with every credit 0 below a full match, this is v1.8's filter."""
    D = span_dice(gold, system)
    masks = combination_masks(gold, system, D.row, D.col, combos, set(credits or ()))
    out = []
    for combo, k in zip(combos, masks, strict=True):
        w = D.data[k]
        for a in combo:
            if credits and a in credits:
                w = w * credits[a].pair_credits(gold, system, D.row[k], D.col[k], a)
        out.append(bipartite.BipartiteInstance(len(gold), len(system), D.row[k], D.col[k], w))
    return out


def combination_masks(gold: Sequence[Mention], system: Sequence[Mention], r: np.ndarray,
                      c: np.ndarray, combos: Sequence[tuple[int, ...]],
                      skip: Iterable[int] = ()) -> list[np.ndarray]:
    """Per combination, which pairs ``(r[e], c[e])`` agree on every attribute of it (the
    attributes in ``skip`` are not compared)."""
    n_attr = max((max(k) + 1 for k in combos if k), default=0)
    skip = set(skip)
    agree = []
    for a in range(n_attr):
        if a in skip:
            agree.append(np.ones(len(r), dtype=bool))
            continue
        g = np.array([m.canonical_attributes[a] for m in gold], dtype=object)
        s = np.array([m.canonical_attributes[a] for m in system], dtype=object)
        if len(r):
            agree.append((g[r] == s[c]) | (g[r] == _NA))
        else:
            agree.append(np.zeros(0, dtype=bool))
    out = []
    for combo in combos:
        keep = np.ones(len(r), dtype=bool)
        for a in combo:
            keep &= agree[a]
        out.append(keep)
    return out


# --------------------------------------------------------------------------------------------
# scores
# --------------------------------------------------------------------------------------------
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


# --------------------------------------------------------------------------------------------
# evaluation
# --------------------------------------------------------------------------------------------
def _method_for(mapping: str, exact_method: str) -> str:
    if mapping in SPAN_FIRST:
        return mapping
    if mapping not in MAPPINGS:
        raise ValueError(f"unknown mapping {mapping!r}; choose one of "
                         + ", ".join([*MAPPINGS, *SPAN_FIRST]))
    return exact_method if mapping == "exact" else MAPPINGS[mapping]


def span_first_mapping(mapping: str, plain: bipartite.BipartiteInstance) -> list[list[int]]:
    """The span mapping M of a span-first mapping (:data:`SPAN_FIRST`) on the ``plain``
    instance: per gold mention, the system mentions mapped to it, best first.
    ``pilot2015-alg4``: Algorithm 1 of Liu et al. 2015 (:func:`bipartite.pilot2015_mapping`; a
    gold mention may collect several); ``kbp-span-first``: v1.8's 1:1 greedy on spans."""
    if SPAN_FIRST[mapping] == "pilot2015":
        return bipartite.pilot2015_mapping(plain)
    collected: list[list[int]] = [[] for _ in range(plain.n_ref)]
    for r, c in bipartite.greedy(plain).tolist():
        collected[r].append(c)
    return collected


def span_first_results(mapping: str, instances: Mapping[str, bipartite.BipartiteInstance],
                       collected: Sequence[Sequence[int]] | None = None) -> dict[str, Result]:
    """The pilot study's way of scoring attributes (Liu et al. 2015, Algorithms 1 and 4): the
    mapping M is computed **once, on spans alone** (the ``plain`` instance), and for each
    attribute combination every gold mention G scores the system mention of highest Dice in
    M_G whose attributes agree (ties: the one mapped first). ``pilot2015-alg4``: M from
    Algorithm 1 (a gold mention collects several system mentions); ``kbp-span-first``: M is
    v1.8's 1:1 greedy span mapping. Each combination's alignment is feasible for that
    combination's instance, so its TP is at most the exact mapping's, which chooses the mapping
    to maximise the attribute-augmented TP directly (the joint objective); the difference is
    what fixing the mapping on spans costs. ``collected``: M, when already computed
    (:func:`span_first_mapping`)."""
    t0 = time.perf_counter()
    if collected is None:
        collected = span_first_mapping(mapping, instances[PLAIN])
    pairs = np.array([(r, c) for r, cs in enumerate(collected) for c in cs],
                     dtype=np.int64).reshape(-1, 2)
    out = {}
    for name, inst in instances.items():
        idx = inst.pair_index(pairs)
        ok = idx >= 0
        best: dict[int, tuple[float, int]] = {}
        for (r, c), e in zip(pairs[ok].tolist(), idx[ok].tolist(), strict=True):
            w = float(inst.weights[e])
            if r not in best or w > best[r][0]:
                best[r] = (w, c)
        al = np.array(sorted((r, c) for r, (_, c) in best.items()),
                      dtype=np.int64).reshape(-1, 2)
        out[name] = Result(Status.FEASIBLE, bipartite.check(inst, al), None, al, mapping,
                           time.perf_counter() - t0)
    return out


def evaluate(gold: TbfFile, system: TbfFile, *, mappings: Iterable[str] = ("kbp",),
             token_tables: Mapping[str, TokenTable | None] | None = None,
             type_whitelist: Iterable[str] | None = None, compat: bool = False,
             strict: bool = False, exact_method: str = "exact",
             solve_options: Mapping | None = None,
             attribute_credits: Mapping[int | str, LevelCredit] | None = None,
             coref: bool = False, coref_combination: str | None = None,
             coref_threshold: float = 1.0) -> NuggetEvaluation:
    """Score ``system`` against ``gold`` under each mapping.

    ``token_tables`` (token mode): document id -> its table, or ``None`` when missing (a
    warning; ids unchecked); token ids of scored mentions must be in their table.
    ``type_whitelist``: canonical types to keep (v1.8's ``-wl``). ``compat``: the per-type
    table as v1.8 prints it (see the module docstring). ``exact_method``: ``exact``
    (assignment) or ``ilp`` (then ``solve_options`` -- backend, time_limit, seed -- apply).
    ``strict``: warnings become :class:`InputError`. ``attribute_credits``: attribute (index
    or name) -> :class:`LevelCredit`, hierarchical partial credit instead of equality for those
    attributes (see :func:`document_instances`); the per-type table then sums weighted TP.

    ``coref=True`` adds v1.8's coreference evaluation (its ``-c``) to every mapping's
    :attr:`NuggetScore.coref` (see :func:`coref_evaluate`): the mentions are put on rows through
    that mapping's alignment of ``coref_combination`` (default: the first attribute alone, v1.8's
    ``mention_type``; ``plain`` for spans only, v1.8's ``-m``) kept where the pair's weight is
    at least ``coref_threshold`` (v1.8's ``-ct``, default 1: identical spans)."""
    mappings = list(dict.fromkeys(mappings))
    methods = {m: _method_for(m, exact_method) for m in mappings}
    opts = dict(solve_options or {})
    attributes, combos, names, warnings = _setup(gold, system)
    credits = _credit_indices(attribute_credits, attributes)
    if coref:
        coref_combination = _coref_combination(coref_combination, names)
        _check_threshold(coref_threshold)
    per_doc: dict[str, list[DocumentScore]] = {m: [] for m in mappings}
    chains: list[tuple[list[frozenset[str]], list[frozenset[str]]]] = []
    mentions: list[tuple[list[Mention], list[Mention]]] = []
    if type_whitelist is not None:
        type_whitelist = list(type_whitelist)
    filtered = type_filter(type_whitelist) is not None
    for doc_id, g, s in document_pairs(gold, system, warnings, token_tables=token_tables,
                                       type_whitelist=type_whitelist, strict=strict):
        if coref:
            chains.append(_document_chains(gold, system, doc_id, g, s, filtered=filtered))
            mentions.append((g, s))
        instances = dict(zip(names, document_instances(g, s, combos, credits), strict=True))
        for m in mappings:
            if m in SPAN_FIRST:
                results = span_first_results(m, instances)
            else:
                results = {n: bipartite.solve(inst, methods[m], **opts)
                           for n, inst in instances.items()}
            per_doc[m].append(DocumentScore(doc_id, len(g), len(s),
                                            len({x.mention_id for x in s}), results, instances,
                                            tuple(x.type for x in g), tuple(x.type for x in s)))
    type_combo = _type_combination(combos, attributes, compat)
    scores = {m: NuggetScore(m, names, per_doc[m], _per_type(per_doc[m], type_combo, compat),
                             type_combo, compat) for m in mappings}
    if coref:
        for sc in scores.values():
            rows = [coref_rows(d.doc_id, g, s, g_chains, s_chains,
                               *d.pair_weights(coref_combination), coref_threshold)
                    for d, (g, s), (g_chains, s_chains) in zip(sc.documents, mentions, chains,
                                                               strict=True)]
            sc.coref = coref_evaluate(rows, coref_combination, coref_threshold)
    return NuggetEvaluation(gold.path, system.path, gold.mode, attributes, names, compat, scores,
                            warnings, credits)


def _credit_indices(credits, attributes: Sequence[str]) -> dict[int, LevelCredit]:
    out = {}
    for key, credit in (credits or {}).items():
        if isinstance(key, str):
            if key not in attributes:
                raise ValueError(f"unknown attribute {key!r} for partial credit; the "
                                 f"attributes are {', '.join(attributes)}")
            key = attributes.index(key)
        if not 0 <= key < len(attributes):
            raise ValueError(f"attribute index {key} out of range")
        out[int(key)] = credit
    return out


def _setup(gold: TbfFile, system: TbfFile):
    """Attributes, combinations (indices and names) and the warning list of a scoring run."""
    if gold.mode != system.mode:
        raise ValueError(f"gold is read in {gold.mode} mode, system in {system.mode} mode")
    if tuple(gold.attributes) != tuple(system.attributes):
        raise ValueError("gold and system are read with different attribute lists")
    attributes = tuple(gold.attributes)
    combos = attribute_combinations(len(attributes))
    names = tuple(combination_name(c, attributes) for c in combos)
    return attributes, combos, names, list(gold.warnings) + list(system.warnings)


def document_pairs(gold: TbfFile, system: TbfFile, warnings: list, *,
                   token_tables: Mapping[str, TokenTable | None] | None = None,
                   type_whitelist: Iterable[str] | None = None, strict: bool = False):
    """Yield ``(doc_id, gold mentions, system mentions)`` for every gold document in sorted
    order, as v1.8 pairs them (see the module docstring), after the type white list; appends
    warnings (or raises :class:`InputError` when ``strict``) for documents missing on either
    side and missing token tables, and checks token ids against their tables."""

    def warn(message, path, line):
        if strict:
            raise InputError(message + " (an error under strict checking)", path=path,
                             line=line)
        warnings.append(TbfWarning(message, path, line))

    for doc_id, d in system.documents.items():
        if doc_id not in gold.documents:
            warn(f"system document {doc_id} is not in the gold standard; ignored (as v1.8 "
                 "does)", system.path, d.begin_line)
    for doc_id, d in gold.documents.items():
        if doc_id not in system.documents:
            warn(f"gold document {doc_id} has no system document; scored as empty (as v1.8 "
                 "does)", gold.path, d.begin_line)
    keep = type_filter(type_whitelist)
    if type_whitelist is not None and keep is None:
        warn("the type white list is empty: every type is scored (as v1.8 does)", None, None)
    for doc_id in sorted(gold.documents):
        g_doc = gold.documents[doc_id]
        s_doc = system.documents.get(doc_id)
        if token_tables is not None:
            table = token_tables.get(doc_id)
            if table is None:
                warn(f"no token table for document {doc_id}; its token ids are not checked",
                     gold.path, g_doc.begin_line)
            else:
                check_token_ids(g_doc, table, gold.path)
                if s_doc is not None:
                    check_token_ids(s_doc, table, system.path)
        g = [m for m in g_doc.mentions if keep is None or m.type in keep]
        s = [] if s_doc is None else [m for m in s_doc.mentions if keep is None or m.type in keep]
        yield doc_id, g, s


def type_filter(type_whitelist: Iterable[str] | None) -> frozenset[str] | None:
    """The canonical types to keep, or ``None`` for all: v1.8 tests its white-list set for
    truth, so an empty white list (a file without lines) filters nothing."""
    if type_whitelist is None:
        return None
    keep = frozenset(canonical(t) for t in type_whitelist)
    return keep or None


def _type_combination(combos, attributes, compat: bool) -> str:
    """The combination whose alignment the per-type table uses: v1.8 (compat) keeps the last
    combination whose first attribute is the type (attribute 0); corrected, the type alone."""
    with_type = [c for c in combos if c and c[0] == 0]
    if not with_type:
        return PLAIN
    return combination_name(with_type[-1] if compat else (0,), attributes)


def _per_type(docs: list[DocumentScore], combination: str, compat: bool) -> dict[str, TypeScore]:
    tp: dict[str, float] = {}
    n_gold: dict[str, int] = {}
    n_sys: dict[str, int] = {}
    for d in docs:
        g_types, s_types = d.gold_types, d.system_types
        al, w = d.pair_weights(combination)
        for (gi, _), x in zip(al.tolist(), w.tolist(), strict=True):
            tp[g_types[gi]] = tp.get(g_types[gi], 0.0) + x
        for t in g_types:
            n_gold[t] = n_gold.get(t, 0) + 1
        for t in s_types:
            n_sys[t] = n_sys.get(t, 0) + 1
    types = set(n_gold) if compat else set(n_gold) | set(n_sys)
    return {t: TypeScore(t, tp.get(t, 0.0), n_gold.get(t, 0), n_sys.get(t, 0))
            for t in sorted(types)}


def evaluate_files(gold_path, system_path, *, token_dir=None, token_ext: str = TOKEN_FILE_EXT,
                   offset_fields: tuple[int, int] = TOKEN_OFFSET_FIELDS,
                   attributes: Sequence[str] = DEFAULT_ATTRIBUTES, type_whitelist=None,
                   scheme: str = "dice", **kwargs) -> NuggetEvaluation | MucEvaluation:
    """Read and score: token mode when ``token_dir`` is given (as v1.8's ``-t``), character
    mode otherwise. ``type_whitelist``: a file (v1.8's ``-wl``) or an iterable of types.
    ``scheme``: ``dice`` (v1.8, other keywords go to :func:`evaluate`) or ``muc`` (other
    keywords go to :func:`muc_evaluate`). A ``token_dir`` that is not a directory is an error
    (v1.8 silently falls back to the current directory)."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; choose one of {', '.join(SCHEMES)}")
    gold, system, tables, type_whitelist = read_pair(
        gold_path, system_path, token_dir=token_dir, token_ext=token_ext,
        offset_fields=offset_fields, attributes=attributes, type_whitelist=type_whitelist,
        strict=kwargs.get("strict", False))
    score = evaluate if scheme == "dice" else muc_evaluate
    return score(gold, system, token_tables=tables, type_whitelist=type_whitelist, **kwargs)


def read_pair(gold_path, system_path, *, token_dir=None, token_ext: str = TOKEN_FILE_EXT,
              offset_fields: tuple[int, int] = TOKEN_OFFSET_FIELDS,
              attributes: Sequence[str] = DEFAULT_ATTRIBUTES, type_whitelist=None,
              strict: bool = False):
    """Read a gold and a system file as :func:`evaluate_files` does: ``(gold, system, token
    tables or None, type white list or None)`` (the white list read when it is a path)."""
    mode = "char" if token_dir is None else "token"
    gold = read_tbf(gold_path, mode=mode, attributes=attributes, strict=strict)
    if not gold.documents:  # v1.8 would score the system against nothing, silently
        raise InputError("the gold standard has no documents (no #BeginOfDocument line): "
                         "nothing to score against", path=str(gold_path))
    system = read_tbf(system_path, mode=mode, attributes=attributes, strict=strict)
    if system.documents and not set(system.documents) & set(gold.documents):
        first = next(iter(system.documents))
        raise InputError(f"none of its {len(system.documents)} document(s) is in the gold "
                         f"standard (first: {first}); are these the right files?",
                         path=str(system_path))
    tables = None
    if token_dir is not None:
        if not Path(token_dir).is_dir():
            raise InputError(f"token directory {token_dir} does not exist")
        tables = {}
        for doc_id in gold.documents:
            p = token_table_path(token_dir, doc_id, token_ext)
            tables[doc_id] = (read_token_table(p, offset_fields=offset_fields, strict=strict)
                              if p.is_file() else None)
        for t in tables.values():
            if t is not None:
                gold.warnings.extend(t.warnings)
    if isinstance(type_whitelist, str | Path):
        type_whitelist = read_type_whitelist(type_whitelist)
    return gold, system, tables, type_whitelist


# --------------------------------------------------------------------------------------------
# the pilot study's own scores (Liu, Mitamura & Hovy 2015, Algorithms 2 and 3, section 2.6)
# --------------------------------------------------------------------------------------------
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
    attributes, combos, names, warnings = _setup(gold, system)
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


# --------------------------------------------------------------------------------------------
# coreference: v1.8's "-c" (conll_coref.py, scored by the CoNLL reference scorer v8.01)
# --------------------------------------------------------------------------------------------
#: The metrics v1.8 has the reference scorer compute (``scorer.pl all``), in the scorer's order.
COREF_METRICS = ("muc", "bcub", "ceafm", "ceafe", "blanc")
#: The order v1.8 prints them in: Python 2.7's iteration order of the dict ``get_conll_scores``
#: fills in the order above (checked against Python 2.7.18; insertion-order dependent).
V18_COREF_ORDER = ("bcub", "ceafe", "ceafm", "muc", "blanc")
#: Printed with ``*`` and left out of v1.8's average (``Config.skipped_metrics``).
V18_COREF_SKIPPED = frozenset({"ceafm"})


def _coref_combination(name: str | None, names: Sequence[str]) -> str:
    """v1.8's ``Config.coref_criteria``: the first attribute alone (``mention_type``) unless
    another combination is named (``plain``: v1.8's ``-m 0``, span only)."""
    if name is None:
        return names[1] if len(names) > 1 else PLAIN
    if name not in names:
        raise ValueError(f"unknown attribute combination {name!r} for the coreference mapping; "
                         f"choose one of {', '.join(names)}")
    return name


def _check_threshold(threshold: float) -> None:
    # v1.8 with -ct <= 0 takes an unmapped gold mention's placeholder (-1, 0) as a match with
    # system mention -1 (the last one): a crash-free but meaningless table we do not reproduce.
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"coreference mapping threshold must be in (0, 1], got {threshold}")


def coref_chains(doc: TbfDocument | None, kept: set[str] | None, path: str
                 ) -> list[frozenset[str]]:
    """The ``@Coreference`` clusters of one document as v1.8 takes them
    (``utils.parse_relation_lines``): in file order, each the *set* of its mention ids; with a
    type white list (``kept`` = the ids of the mentions kept) reduced to kept ids and dropped
    when fewer than two remain -- without one, a single-mention cluster stays a cluster. A
    mention in two clusters is an error (v1.8: ``transitive_not_resolved``, it quits); ``doc``
    ``None`` (a gold document absent from the system) has none."""
    if doc is None:
        return []
    out: list[frozenset[str]] = []
    first: dict[str, Relation] = {}
    for r in doc.relations:
        if r.name != "Coreference":
            continue
        ids = r.arguments
        if kept is not None:
            ids = tuple(a for a in ids if a in kept)
            if len(ids) < 2:
                continue
        for a in dict.fromkeys(ids):
            if a in first:
                f = first[a]
                raise InputError(f"mention {a} of document {doc.doc_id} is in coreference "
                                 f"clusters {f.relation_id} (line {f.line}) and "
                                 f"{r.relation_id}: the transitive closure must be resolved "
                                 "(v1.8 refuses to score)", path=path, line=r.line)
            first[a] = r
        out.append(frozenset(ids))
    return out


def _document_chains(gold: TbfFile, system: TbfFile, doc_id: str, g: Sequence[Mention],
                     s: Sequence[Mention], filtered: bool):
    """Gold and system clusters of one document (reduced to the scored mentions ``g``, ``s``
    when a type white list ``filtered`` them, as v1.8's ``filter_relations``)."""
    return (coref_chains(gold.documents[doc_id],
                         {m.mention_id for m in g} if filtered else None, gold.path),
            coref_chains(system.documents.get(doc_id),
                         {m.mention_id for m in s} if filtered else None, system.path))


@dataclass(frozen=True, eq=False)
class CorefRows:
    """One document as v1.8 writes it to its key and response CoNLL files
    (``ConllEvaluator.prepare_conll_lines``): row ``i`` holds gold mention ``gold[i]`` and system
    mention ``system[i]`` (indices into the document's mention lists; ``None``: nothing, v1.8's
    ``None (-)`` line). ``key`` and ``response`` are those files' documents, every mention the
    one-token span ``(i, i)`` of its row, so a key and a response mention are the same mention
    exactly when they share a row."""

    doc_id: str
    gold: tuple[int | None, ...]
    system: tuple[int | None, ...]
    key: ConllDocument
    response: ConllDocument
    #: per row, the text column v1.8 writes for each side: the mention text with white space
    #: runs replaced by ``_``, ``None`` on a row without mention
    texts: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())

    @property
    def aligned(self) -> int:
        """Rows with both a gold and a system mention."""
        return sum(g is not None and s is not None
                   for g, s in zip(self.gold, self.system, strict=True))


def coref_rows(doc_id: str, gold: Sequence[Mention], system: Sequence[Mention],
               gold_chains: Sequence[frozenset[str]], system_chains: Sequence[frozenset[str]],
               alignment: np.ndarray, weights: np.ndarray, threshold: float = 1.0
               ) -> CorefRows:
    """v1.8's conversion of one document (``create_aligned_tables`` + ``prepare_lines``).

    Rows: first every gold mention in file order, with the system mention the mapping aligns
    to it when the pair's weight (Dice) is at least ``threshold`` (v1.8's default 1.0: identical
    spans; partially overlapping mapped pairs are split); then every system mention left over,
    in file order, on a row of its own. Clusters: a mention takes the first ``@Coreference``
    cluster (in file order) holding its id, else a fresh singleton cluster -- so two mentions
    sharing an id share a cluster only through a relation. CoNLL entity numbers play no part in
    the scores, only which rows share one."""
    sys_of: list[int | None] = [None] * len(gold)
    used: set[int] = set()
    for (gi, si), w in zip(np.asarray(alignment).reshape(-1, 2).tolist(),
                           np.asarray(weights).tolist(), strict=True):
        if w >= threshold:
            sys_of[gi] = si
            used.add(si)
    extra = [j for j in range(len(system)) if j not in used]
    g_rows = (*range(len(gold)), *([None] * len(extra)))
    s_rows = (*sys_of, *extra)
    name = f"({doc_id}); part 000"
    key = _conll_document(name, [None if i is None else gold[i].mention_id for i in g_rows],
                          gold_chains)
    response = _conll_document(name, [None if j is None else system[j].mention_id
                                      for j in s_rows], system_chains)
    texts = (tuple("None" if i is None else "_".join(gold[i].text.split()) for i in g_rows),
             tuple("None" if j is None else "_".join(system[j].text.split()) for j in s_rows))
    return CorefRows(doc_id, g_rows, s_rows, key, response, texts)


def format_v18_conll(rows: Sequence[CorefRows]) -> tuple[str, str]:
    """The key and response CoNLL files v1.8 writes for ``rows`` (``<-c>_gold.conll`` and
    ``<-c>_sys.conll``), byte for byte: one ``doc<TAB>row<TAB>text<TAB>(entity)`` line per row,
    ``(-)`` on a row without mention, entity numbers as v1.8 gives them (the cluster's index
    among the document's ``@Coreference`` clusters, singletons numbered on from there)."""
    files = []
    for side in (0, 1):
        out = []
        for r in rows:
            doc = (r.key, r.response)[side]
            label = {row: cid for c, cid in zip(doc.clusters, doc.cluster_ids, strict=True)
                     for row, _ in c}
            out.append(f"#begin document ({r.doc_id}); part 000\n")
            for row, text in enumerate(r.texts[side]):
                out.append(f"{r.doc_id}\t{row}\t{text}\t({label.get(row, '-')})\n")
            out.append("#end document\n")
        files.append("".join(out))
    return files[0], files[1]


def _conll_document(name: str, ids: Sequence[str | None], chains: Sequence[frozenset[str]]
                    ) -> ConllDocument:
    """The CoNLL document of one side: row ``r`` is a one-token mention of the cluster of
    ``ids[r]`` (no mention when ``None``); clusters in order of their first row, as the
    reference scorer numbers entities."""
    chain_of: dict[str, int] = {}
    for k, c in enumerate(chains):
        for a in c:
            chain_of.setdefault(a, k)
    fresh = len(chains)
    clusters: dict[int, list[tuple[int, int]]] = {}
    for row, mid in enumerate(ids):
        if mid is None:
            continue
        label = chain_of.get(mid)
        if label is None:
            label, fresh = fresh, fresh + 1
        clusters.setdefault(label, []).append((row, row))
    return ConllDocument(name, tuple(tuple(c) for c in clusters.values()),
                         tuple(str(k) for k in clusters), len(ids))


@dataclass(frozen=True, eq=False)
class CorefEvaluation:
    """v1.8's coreference evaluation of a corpus under one mention mapping.

    ``scores``: :func:`exactalign.metrics.coref.score_documents` on the rows' key/response
    documents, every metric of :data:`COREF_METRICS`, CEAF aligned exactly (the reference's
    Munkres); ``greedy``: CEAFm and CEAFe with the greedy entity alignment, compared with the
    exact one (:meth:`~exactalign.metrics.coref.CorefScores.ceaf_gap`)."""

    combination: str
    threshold: float
    documents: tuple[CorefRows, ...]
    scores: corefm.CorefScores
    greedy: corefm.CorefScores

    def v18_scores(self) -> dict[str, float]:
        """The score v1.8 prints per metric, in its order (:data:`V18_COREF_ORDER`): the corpus
        F1 as the reference scorer prints it -- **truncated** to two decimals of a percentage,
        ``int(F1 * 10000) / 100`` (``CorScorer.pm``'s ``ShowRPF``; BLANC's F1 as its TOTALS
        combine it) -- which v1.8 parses back from the scorer's output.

        Truncation makes the last digit sensitive to rounding when an F1 is exactly on a
        0.01 % step (e.g. B³ F1 = 1/4 computed as 0.2499999...). MUC, CEAFm and BLANC counts
        are integers, so their F1 is the reference's to the bit; for B³ and CEAFe the document
        numerators are computed the Perl way (:func:`_perl_numerators`). Across documents the
        reference adds them in Perl's hash order, which changes from run to run (Perl >= 5.18
        randomises it), so on such a step the official scorer itself prints either value; we
        take the correctly rounded sum (``math.fsum``), independent of order: on the 5 such
        corpora met among 1,140 random ones run through ``scorer_v1.8.py``, it printed what
        most of 10 Perl hash seeds print in 4; every other number was equal."""
        out = {}
        for m in V18_COREF_ORDER:
            x = self.scores.overall[m]
            if m in ("bcub", "ceafe"):
                nums = [_perl_numerators(m, d, ds)
                        for d, ds in zip(self._identified, self.scores.documents, strict=True)]
                x = PRF(math.fsum(a for a, _ in nums), x.recall_den,
                        math.fsum(b for _, b in nums), x.precision_den)
            out[m] = _truncated(x.f1)
        return out

    @cached_property
    def _identified(self) -> list[corefm.Identified]:
        return [corefm.identify(r.key, r.response) for r in self.documents]

    def v18_average(self) -> float:
        """v1.8's "Overall Average CoNLL score": the mean of the printed (truncated) scores of
        every metric but CEAFm -- **BLANC included** (MUC, B³, CEAFe, BLANC), summed in printing
        order. Not the CoNLL-2012 average (:attr:`conll`)."""
        total, n = 0.0, 0
        for m, x in self.v18_scores().items():
            if m not in V18_COREF_SKIPPED:
                total += x
                n += 1
        return total / n

    @property
    def conll(self) -> float:
        """The CoNLL-2012 average: mean F1 (fraction, untruncated) of MUC, B³ and CEAFe."""
        return self.scores.conll


def _truncated(f1: float) -> float:
    return math.trunc(f1 * 10000) / 100


def _perl_numerators(metric: str, d: corefm.Identified, ds: corefm.DocumentScores
                     ) -> tuple[float, float]:
    """The recall and precision numerators of B³ or CEAFe of one document, with the reference
    scorer's floating-point operations in its order (``CorScorer.pm``): B³ adds ``c/|R|`` and
    ``c/|K|`` mention by mention, response chain by response chain (``BCUBED``); CEAFe adds,
    key entity by key entity, ``1 - (1 - phi4)`` of its aligned entity (``CEAF`` minimises
    ``1 - phi4`` and converts back), the alignment being our exact one."""
    if metric == "bcub":
        key = [set(c.tolist()) for c in d.key_chains]
        acc_r = acc_p = 0.0
        for chain in d.response_chains:
            ids = chain.tolist()
            for m in ids:
                k = int(d.key_of[m])
                if k < 0:
                    continue  # c = 0: adds 0/|R| to precision and nothing to recall
                c = sum(1 for x in ids if x in key[k])
                acc_p += c / len(ids)
                acc_r += c / len(d.key_chains[k])
        return acc_r, acc_p
    inst = corefm.ceaf_instance(d, "entity")
    res = ds.ceaf[metric]
    al = np.asarray(res.alignment, dtype=np.int64).reshape(-1, 2)
    w = inst.weights[inst.pair_index(al)]
    phi = dict(zip(al[:, 0].tolist(), w.tolist(), strict=True))
    num = 0.0
    for i in range(len(d.key_chains)):
        num += 1 - (1 - phi.get(i, 0.0))
    return num, num


def coref_evaluate(rows: Sequence[CorefRows], combination: str = "mention_type",
                   threshold: float = 1.0) -> CorefEvaluation:
    """Score the converted documents (:func:`coref_rows`) with the reference scorer's metrics,
    in memory: the corpus counts are summed over all documents, as ``scorer.pl all`` does over
    v1.8's concatenated files (a document without mentions adds nothing; one without
    coreference has only singletons, so its MUC counts are 0/0)."""
    pairs = [(r.key, r.response) for r in rows]
    scores = corefm.score_documents(pairs, COREF_METRICS)
    greedy = corefm.score_documents(pairs, tuple(corefm.CEAF_PHI), ceaf_method="greedy",
                                    compare_exact=True)
    return CorefEvaluation(combination, threshold, tuple(rows), scores, greedy)


# --------------------------------------------------------------------------------------------
# v1.8's report: its numbers (nan included), its layout, and a parser for it
# --------------------------------------------------------------------------------------------
NAN = float("nan")
_SMALL = "Prec  \tRec  \tF1   "


def _div(n: float, d: float) -> float:
    """v1.8's ``safe_div``: nan unless the denominator is > 0 (a nan denominator gives nan)."""
    return 1.0 * n / d if d > 0 else NAN


def _f1(p: float, r: float) -> float:
    return _div(2 * p * r, p + r)


def v18_numbers(score: NuggetScore) -> dict:
    """Every number v1.8 prints, computed its way (percentages, ``nan`` included):
    ``{"documents": {doc: {comb: (P, R, F1)}}, "types": {type: (P, R, F1, #gold, #sys)},
    "micro": {comb: (P, R, F1)}, "macro": {comb: (P, R, F1)}}`` (per-type P/R/F1 are
    fractions with nan shown as 0, as printed)."""
    docs: dict = {}
    sums = {c: [0.0, 0.0, 0.0] for c in score.combinations}  # tp*100, sum of P, sum of R
    n_gold = n_sys = valid = 0
    for d in score.documents:
        row = {}
        for c in score.combinations:
            tp = d.tp(c) * 100
            p, r = _div(tp, d.n_system), _div(tp, d.n_gold)
            row[c] = (p, r, _f1(p, r))
            if not math.isnan(r):
                sums[c][0] += tp
                sums[c][1] += 0.0 if math.isnan(p) else p
                sums[c][2] += r
        docs[d.doc_id] = row
        if d.n_gold > 0:
            valid += 1
            n_gold += d.n_gold
            n_sys += d.n_system
    mic, mac = {}, {}
    for c, (tp, ps, rs) in sums.items():
        p, r = _div(tp, n_sys), _div(tp, n_gold)
        mic[c] = (p, r, _f1(p, r))
        p, r = _div(ps, valid), _div(rs, valid)
        mac[c] = (p, r, _f1(p, r))

    def z(v):
        return 0.0 if math.isnan(v) else v

    types = {}
    for t, ts in score.per_type.items():
        p, r = _div(ts.tp, ts.n_system), _div(ts.tp, ts.n_gold)
        types[t] = (z(p), z(r), z(_f1(p, r)), ts.n_gold, ts.n_system)
    return {"documents": docs, "types": types, "micro": mic, "macro": mac}


def _pad(s: str, n: int) -> str:
    return " " * (n - len(s)) + s


def format_v18(score: NuggetScore) -> str:
    """v1.8's report, in its layout (tabs, padding, ``nan``): mention detection, then -- when
    the coreference evaluation was asked for (:attr:`NuggetScore.coref`, v1.8's ``-c``) --
    the coreference section (:func:`format_v18_coref`). With ``compat=True`` and the ``kbp``
    mapping it is v1.8's output byte for byte."""
    v = v18_numbers(score)
    combos = score.combinations
    out = []
    w = max((len(d) for d in v["documents"]), default=0)
    headers = [_pad(c, len(_SMALL)) for c in combos]
    out.append("========Document Mention Detection Results==========\n")
    out.append(_pad("", w) + "\t" + "\t|\t".join(headers) + "\n")
    out.append(_pad("Doc ID", w) + "\t" + "\t|\t".join([_SMALL] * len(combos)) + "\n")
    for doc_id, row in v["documents"].items():
        cells = "\t|\t".join("\t".join(f"{x:.2f}" for x in row[c]) for c in combos)
        out.append(f"{_pad(doc_id, w)}\t{cells}\n")
    out.append("\n\n========Mention Type Results==========\n")
    if v["types"]:
        tw = max(len(t) for t in v["types"])
        out.append(_pad("Type", tw) + "\tPrec\tRec\tF1\t#Gold\t#Sys\n")
        for t, row in v["types"].items():
            p, r, f, ng, ns = row
            out.append(f"{_pad(t, tw)}\t{p:.2f}\t{r:.2f}\t{f:.2f}\t{ng:d}\t{ns:d}\n")
    out.append("\n=======Final Mention Detection Results=========\n")
    aw = max(len(h) for h in headers)
    out.append(_pad("", aw) + "\t" + "\t".join(_pad(h, len(_SMALL)) for h in
                                              ("Micro Average", "Macro Average")) + "\n")
    out.append(_pad("Attributes", aw) + "\t" + "\t".join([_SMALL] * 2) + "\n")
    for c, h in zip(combos, headers, strict=True):
        nums = v["micro"][c] + v["macro"][c]
        out.append(_pad(h, aw) + "\t" + "\t".join(f"{x:.2f}" for x in nums) + "\n")
    if score.coref is not None and score.coref.documents:
        # v1.8 without any document writes no CoNLL file: the scorer reads nothing and the
        # section is left out
        out.append(format_v18_coref(score.coref))
    return "".join(out)


COREF_SECTION = "\n=======Final Mention Coreference Results========="
_COREF_FOOTNOTE = "\n* Score not included for final CoNLL score.\n"


def format_v18_coref(c: CorefEvaluation) -> str:
    """v1.8's "Final Mention Coreference Results" (``print_eval_results``): one line per metric
    in v1.8's order with its truncated score (CEAFm marked ``*``), then the average of the
    others (:meth:`CorefEvaluation.v18_average`) and the footnote."""
    out = [COREF_SECTION + "\n"]
    for m, x in c.v18_scores().items():
        star = " *" if m in V18_COREF_SKIPPED else ""
        out.append(f"Metric : {m}\tScore\t{x:.2f}{star}\n")
    out.append(f"Overall Average CoNLL score\t{c.v18_average():.2f}\n")
    out.append(_COREF_FOOTNOTE)
    return "".join(out)


def format_coref_details(c: CorefEvaluation) -> str:
    """What v1.8's coreference section leaves out, in percent: per metric the untruncated
    recall, precision and F1 (the reference scorer's TOTALS), the CoNLL-2012 average (MUC, B³,
    CEAFe; v1.8's average includes BLANC), the rows v1.8's conversion produced, and CEAFm/CEAFe
    with the greedy entity alignment against the exact one."""
    out = ["\n=======Coreference details (exactalign)=========\n",
           "Metric\tRec\tPrec\tF1\n"]
    for m in COREF_METRICS:
        p = c.scores.overall[m]
        out.append(f"{m}\t{100 * p.recall:.4f}\t{100 * p.precision:.4f}\t{100 * p.f1:.4f}\n")
    out.append(f"CoNLL-2012 average (muc, bcub, ceafe)\t{100 * c.conll:.4f}\n")
    n_key = sum(len(r.key.mentions) for r in c.documents)
    n_resp = sum(len(r.response.mentions) for r in c.documents)
    out.append(f"Rows: {sum(len(r.gold) for r in c.documents)} ({n_key} gold, {n_resp} "
               f"system, {sum(r.aligned for r in c.documents)} aligned on "
               f"{c.combination} with Dice >= {c.threshold:g})\n")
    for m in corefm.CEAF_PHI:
        g, x = c.greedy.overall[m], c.scores.overall[m]
        gap = c.greedy.ceaf_gap(m)
        out.append(f"{m}: greedy alignment F1 {100 * g.f1:.4f} vs exact {100 * x.f1:.4f} "
                   f"(shortfall {gap['shortfall']:.4f} in {gap['documents_with_gap']} of "
                   f"{gap['documents']} documents)\n")
    return "".join(out)


def parse_v18_coref(text: str, path: str = "<report>") -> dict | None:
    """The coreference section of a v1.8 report: ``{"scores": {metric: score}, "average":
    x}`` in printed order, or ``None`` when the report has none."""
    if COREF_SECTION not in text:
        return None
    lines = text.split(COREF_SECTION, 1)[1].split("\n")
    scores: dict[str, float] = {}
    for line in lines[1:]:
        try:
            if line.startswith("Metric : "):
                name, _, value = line[len("Metric : "):].split("\t")
                scores[name] = float(value.rstrip(" *"))
            elif line.startswith("Overall Average CoNLL score\t"):
                return {"scores": scores, "average": float(line.split("\t")[1])}
        except ValueError as e:
            raise InputError(f"malformed coreference line {line!r} ({e})", path=path) from None
    raise InputError("coreference section without its average line", path=path)


def parse_v18_report(text: str, path: str = "<report>") -> dict:
    """Parse v1.8's mention-detection report (ours or the official one) into the shape of
    :func:`v18_numbers`; the coreference section, if any, is left to
    :func:`parse_v18_coref`."""
    lines = text.split(COREF_SECTION, 1)[0].split("\n")
    out: dict = {"documents": {}, "types": {}, "micro": {}, "macro": {}}
    i = 0

    def expect(title: str) -> int:
        for j in range(i, len(lines)):
            if lines[j].strip() == title:
                return j + 1
        raise InputError(f"section {title!r} not found", path=path)

    try:
        i = expect("========Document Mention Detection Results==========")
        combos = [h.strip() for h in lines[i].split("\t", 1)[1].split("\t|\t")]
        i += 2
        while i < len(lines) and lines[i].strip():
            cells = lines[i].split("\t")
            nums = [float(x) for x in cells[1:] if x != "|"]
            out["documents"][cells[0].strip()] = {
                c: tuple(nums[3 * k:3 * k + 3]) for k, c in enumerate(combos)}
            i += 1
        i = expect("========Mention Type Results==========")
        if i < len(lines) and lines[i].strip().startswith("Type"):
            i += 1
            while i < len(lines) and lines[i].strip():
                cells = lines[i].split("\t")
                out["types"][cells[0].strip()] = (*(float(x) for x in cells[1:4]),
                                                  int(cells[4]), int(cells[5]))
                i += 1
        i = expect("=======Final Mention Detection Results=========") + 2
        while i < len(lines) and lines[i].strip():
            cells = lines[i].split("\t")
            nums = [float(x) for x in cells[1:7]]
            out["micro"][cells[0].strip()] = tuple(nums[:3])
            out["macro"][cells[0].strip()] = tuple(nums[3:])
            i += 1
    except (IndexError, ValueError) as e:
        raise InputError(f"not a v1.8 mention report ({e})", path=path, line=i + 1) from None
    return out


# --------------------------------------------------------------------------------------------
# the MUC-style scheme: exact span COR, overlap PAR, F maximised over alignments
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class MucInstance:
    """One document and attribute combination under the MUC scheme: ``credits`` (gold rows,
    system columns) has weight 1 for a pair with the same unit set (COR) and the partial credit
    (0.5 or the pair's Dice, < 1) for any other pair sharing a unit (PAR), on the pairs whose
    attributes agree; ``optional`` marks the optional gold mentions (counted only if aligned)."""

    credits: bipartite.BipartiteInstance
    optional: np.ndarray  # bool per gold mention
    n_system: int

    @property
    def n_required(self) -> int:
        return int(len(self.optional) - self.optional.sum())

    def counts(self, alignment) -> MucCounts:
        """COR, PAR, credit, ACT and POS of ``alignment`` (re-verified by the checker)."""
        al = np.asarray(alignment, dtype=np.int64).reshape(-1, 2)
        credit = bipartite.check(self.credits, al)
        w = self.credits.weights[self.credits.pair_index(al)]
        cor = int((w >= 1.0).sum())
        opt = int(self.optional[al[:, 0]].sum()) if len(al) else 0
        return MucCounts(cor, len(al) - cor, credit, self.n_system, self.n_required + opt, opt)


@dataclass(frozen=True)
class MucCounts:
    """MUC counts: P = credit / ACT, R = credit / POS with credit = COR + partial credits (0.5
    each under MUC), ACT = system mentions, POS = required gold mentions + aligned optional
    ones. F = 2 credit / (ACT + POS)."""

    cor: int
    par: int
    credit: float
    act: int
    pos: int
    optional_aligned: int = 0

    @property
    def prf(self) -> PRF:
        return PRF(self.credit, self.pos, self.credit, self.act)


@dataclass(frozen=True, eq=False)
class MucDocument:
    doc_id: str
    n_gold: int
    n_system: int
    alignments: Mapping[str, np.ndarray]
    counts: Mapping[str, MucCounts]
    instances: Mapping[str, MucInstance] = field(repr=False)

    @property
    def valid(self) -> bool:
        return self.n_gold > 0


@dataclass(eq=False)
class MucScore:
    """The corpus under one mapping and the MUC scheme. ``ratio[c]`` is, for the exact mapping,
    the :class:`~exactalign.core.fractional.RatioResult` of maximising corpus F for combination
    ``c`` (status, bound, iterations); ``None`` for heuristics."""

    mapping: str
    partial: str
    combinations: tuple[str, ...]
    documents: list[MucDocument]
    ratio: dict

    @property
    def valid_documents(self) -> list[MucDocument]:
        return [d for d in self.documents if d.valid]

    def micro(self, combination: str = PLAIN) -> PRF:
        return micro(d.counts[combination].prf for d in self.valid_documents)

    def totals(self, combination: str = PLAIN) -> MucCounts:
        cs = [d.counts[combination] for d in self.valid_documents]
        return MucCounts(sum(c.cor for c in cs), sum(c.par for c in cs),
                         sum(c.credit for c in cs), sum(c.act for c in cs),
                         sum(c.pos for c in cs), sum(c.optional_aligned for c in cs))

    def status(self, combination: str = PLAIN) -> str:
        r = self.ratio.get(combination)
        return "feasible" if r is None else r.status.value


@dataclass(eq=False)
class MucEvaluation:
    gold_path: str
    system_path: str
    mode: str
    attributes: tuple[str, ...]
    combinations: tuple[str, ...]
    partial: str
    scores: dict[str, MucScore]
    warnings: list[TbfWarning]


def muc_instances(gold: Sequence[Mention], system: Sequence[Mention],
                  combos: Sequence[tuple[int, ...]], partial: str = "half",
                  optional: Sequence[bool] | None = None) -> list[MucInstance]:
    """One :class:`MucInstance` per combination (pairs filtered as in
    :func:`document_instances`). Exact span match: the two unit *sets* are equal."""
    if partial not in PARTIAL_CREDITS:
        raise ValueError(f"unknown partial credit {partial!r}; choose one of "
                         + ", ".join(PARTIAL_CREDITS))
    r, c, inter = span_overlap(gold, system)
    dice = span_dice(gold, system).data  # the same pairs, in the same order
    g_n = np.array([len(m.units) for m in gold], dtype=np.float64)
    s_n = np.array([len(m.units) for m in system], dtype=np.float64)
    same = (inter == g_n[r]) & (inter == s_n[c])
    w = np.where(same, 1.0, 0.5 if partial == "half" else dice)
    opt = np.zeros(len(gold), dtype=bool) if optional is None else np.asarray(optional, bool)
    return [MucInstance(bipartite.BipartiteInstance(len(gold), len(system), r[k], c[k], w[k]),
                        opt, len(system))
            for k in combination_masks(gold, system, r, c, combos)]


def muc_evaluate(gold: TbfFile, system: TbfFile, *, mappings: Iterable[str] = ("kbp",),
                 partial: str = "half", optional_values: Iterable[str] = (),
                 token_tables: Mapping[str, TokenTable | None] | None = None,
                 type_whitelist: Iterable[str] | None = None, strict: bool = False,
                 max_iter: int = 100) -> MucEvaluation:
    """Score under the MUC-style scheme (Liu et al. 2015, section 3.1; Chinchor 1992).

    Per document and attribute combination, an alignment (1:1) of gold and system mentions on
    the candidate pairs of :func:`muc_instances` gives COR (aligned pairs with equal spans), PAR
    (other aligned pairs), credit = COR + partial credits; P = credit / ACT, R = credit / POS
    (the pilot study's footnote formula has ACT and POS swapped; this is MUC's). A gold mention
    with an attribute (canonically) in ``optional_values`` is optional: it counts in POS only
    when aligned, as MUC's optional keys do. The documents entering the averages are those with
    gold mentions (as v1.8).

    Mappings: a heuristic (``kbp``, ``kbp-gold-order``, ``pilot2015``) runs on the credit
    weights, ignoring optionality, as a greedy scorer would; ``exact`` maximises **corpus micro
    F** = 2 Σ credit / Σ (ACT + POS) over all alignments of all documents -- MUC's "highest F
    over all possible alignments". Without optional mentions the denominator is constant and
    that is a maximum-weight matching per document; with them F is a ratio, maximised by
    Dinkelbach's method (:func:`exactalign.core.fractional.dinkelbach_oracle`): the
    parametric problem max Σ 2·credit − λ (ACT + POS) separates into one matching per document
    with weights ``2 c_e − λ [gold of e optional]`` (pairs of weight <= 0 dropped), each solved
    by the certified assignment path, so the final P(λ) <= 0 proves λ optimal."""
    mappings = list(dict.fromkeys(mappings))
    for m in mappings:
        if m in SPAN_FIRST:
            raise ValueError(f"mapping {m} is not defined for the muc scheme")
        _method_for(m, "exact")
    attributes, combos, names, warnings = _setup(gold, system)
    opt_vals = frozenset(canonical(v) for v in optional_values)
    docs = []
    for doc_id, g, s in document_pairs(gold, system, warnings, token_tables=token_tables,
                                       type_whitelist=type_whitelist, strict=strict):
        optional = [bool(opt_vals & set(m.canonical_attributes)) for m in g]
        docs.append((doc_id, len(g), len(s), dict(zip(
            names, muc_instances(g, s, combos, partial, optional), strict=True))))
    scores = {}
    for m in mappings:
        al: dict[str, list[np.ndarray]] = {}
        ratio: dict = {}
        for c in names:
            insts = [d[3][c] for d in docs]
            if m == "exact":
                res = _muc_exact(insts, [d[1] > 0 for d in docs], max_iter)
                ratio[c], al[c] = res, list(res.x)
            else:
                al[c] = [bipartite.HEURISTICS[MAPPINGS[m]](i.credits) for i in insts]
        documents = [MucDocument(d[0], d[1], d[2], {c: al[c][k] for c in names},
                                 {c: d[3][c].counts(al[c][k]) for c in names}, d[3])
                     for k, d in enumerate(docs)]
        scores[m] = MucScore(m, partial, names, documents, ratio)
    return MucEvaluation(gold.path, system.path, gold.mode, attributes, names, partial, scores,
                         warnings)


def _muc_exact(insts: list[MucInstance], valid: list[bool], max_iter: int):
    """Maximise corpus F over the valid documents' alignments (see :func:`muc_evaluate`);
    returns the RatioResult, whose ``x`` is the list of per-document alignments (empty for
    documents outside the averages)."""
    use = [i for i, v in zip(insts, valid, strict=True) if v]
    const = sum(i.n_system + i.n_required for i in use)
    empty = np.zeros((0, 2), dtype=np.int64)

    def ratio_of(x):
        cs = [i.counts(a) for i, a in zip(use, x, strict=True)]
        return 2.0 * sum(c.credit for c in cs), float(sum(c.act + c.pos for c in cs))

    def param_solve(lam):
        x, value, bound, proven = [], -lam * const, -lam * const, True
        for i in use:
            w = 2.0 * i.credits.weights - lam * i.optional[i.credits.rows]
            keep = w > 0
            sub = bipartite.BipartiteInstance(i.credits.n_ref, i.credits.n_pred,
                                              i.credits.rows[keep], i.credits.cols[keep],
                                              w[keep])
            r = bipartite.solve(sub, "exact")
            x.append(r.alignment)
            value += r.objective
            bound += r.bound
            proven &= r.proven_optimal
        return x, value, bound, proven

    if const == 0:  # no system and no required gold mention: every alignment is empty
        res = dinkelbach_oracle(lambda lam: ([empty] * len(use), 0.0, 0.0, True),
                                lambda x: (0.0, 1.0), x0=None, den_min=1.0)
    else:
        x0 = [bipartite.greedy(i.credits) for i in use]
        res = dinkelbach_oracle(param_solve, ratio_of, x0=x0, den_min=float(const),
                                max_iter=max_iter)
    it = iter(res.x)
    return replace(res, x=[next(it) if v else empty for v in valid])
