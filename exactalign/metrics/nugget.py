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
   every mapping an alignment of the same objective, so that their values compare.
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

White list: v1.8's ``-wl`` (off by default) drops every gold and system mention whose canonical
type is not listed, before anything else.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..core.errors import InputError
from ..core.result import Result
from ..io.tbf import (
    DEFAULT_ATTRIBUTES,
    NOT_ANNOTATED,
    TOKEN_FILE_EXT,
    TOKEN_OFFSET_FIELDS,
    Mention,
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
from .aggregation import PRF, macro, micro

#: mapping name -> method of :func:`exactalign.problems.bipartite.solve`.
MAPPINGS = {
    "kbp": "greedy",
    "kbp-gold-order": "ref-order",
    "pilot2015": "pilot2015",
    "exact": "exact",
}
HEURISTIC_MAPPINGS = ("kbp", "kbp-gold-order", "pilot2015")
PLAIN = "plain"
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


def span_dice(gold: Sequence[Mention], system: Sequence[Mention]) -> sp.coo_array:
    """Dice of every (gold, system) pair sharing a unit, as v1.8 computes it:
    ``2.0 * |set(G) & set(S)| / (G.size + S.size)`` (sparse; absent pairs are 0)."""
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
    gs = np.array([m.size for m in gold], dtype=np.float64)
    ss = np.array([m.size for m in system], dtype=np.float64)
    val = 2.0 * inter.data / (gs[inter.row] + ss[inter.col])
    return sp.coo_array((val, (inter.row, inter.col)), shape=(len(gold), len(system)))


def document_instances(gold: Sequence[Mention], system: Sequence[Mention],
                       combos: Sequence[tuple[int, ...]]) -> list[bipartite.BipartiteInstance]:
    """One bipartite instance per combination: gold rows, system columns, Dice weights, only
    the pairs whose attributes of the combination agree (gold ``NOT_ANNOTATED`` agrees with
    anything)."""
    D = span_dice(gold, system)
    r, c, w = D.row, D.col, D.data
    n_attr = max((max(k) + 1 for k in combos if k), default=0)
    agree = []
    for a in range(n_attr):
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
        out.append(bipartite.BipartiteInstance(len(gold), len(system), r[keep], c[keep],
                                               w[keep]))
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
    if mapping not in MAPPINGS:
        raise ValueError(f"unknown mapping {mapping!r}; choose one of {', '.join(MAPPINGS)}")
    return exact_method if mapping == "exact" else MAPPINGS[mapping]


def evaluate(gold: TbfFile, system: TbfFile, *, mappings: Iterable[str] = ("kbp",),
             token_tables: Mapping[str, TokenTable | None] | None = None,
             type_whitelist: Iterable[str] | None = None, compat: bool = False,
             strict: bool = False, exact_method: str = "exact",
             solve_options: Mapping | None = None) -> NuggetEvaluation:
    """Score ``system`` against ``gold`` under each mapping.

    ``token_tables`` (token mode): document id -> its table, or ``None`` when missing (a
    warning; ids unchecked); token ids of scored mentions must be in their table.
    ``type_whitelist``: canonical types to keep (v1.8's ``-wl``). ``compat``: the per-type
    table as v1.8 prints it (see the module docstring). ``exact_method``: ``exact``
    (assignment) or ``ilp`` (then ``solve_options`` -- backend, time_limit, seed -- apply).
    ``strict``: warnings become :class:`InputError`."""
    if gold.mode != system.mode:
        raise ValueError(f"gold is read in {gold.mode} mode, system in {system.mode} mode")
    if tuple(gold.attributes) != tuple(system.attributes):
        raise ValueError("gold and system are read with different attribute lists")
    mappings = list(dict.fromkeys(mappings))
    methods = {m: _method_for(m, exact_method) for m in mappings}
    opts = dict(solve_options or {})
    attributes = tuple(gold.attributes)
    combos = attribute_combinations(len(attributes))
    names = tuple(combination_name(c, attributes) for c in combos)
    warnings = list(gold.warnings) + list(system.warnings)

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

    keep = None if type_whitelist is None else frozenset(canonical(t) for t in type_whitelist)
    per_doc: dict[str, list[DocumentScore]] = {m: [] for m in mappings}
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
        instances = dict(zip(names, document_instances(g, s, combos), strict=True))
        for m in mappings:
            results = {n: bipartite.solve(inst, methods[m], **opts)
                       for n, inst in instances.items()}
            per_doc[m].append(DocumentScore(doc_id, len(g), len(s),
                                            len({x.mention_id for x in s}), results, instances,
                                            tuple(x.type for x in g), tuple(x.type for x in s)))
    type_combo = _type_combination(combos, attributes, compat)
    scores = {m: NuggetScore(m, names, per_doc[m], _per_type(per_doc[m], type_combo, compat),
                             type_combo, compat) for m in mappings}
    return NuggetEvaluation(gold.path, system.path, gold.mode, attributes, names, compat, scores,
                            warnings)


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
                   **kwargs) -> NuggetEvaluation:
    """Read and score: token mode when ``token_dir`` is given (as v1.8's ``-t``), character
    mode otherwise. ``type_whitelist``: a file (v1.8's ``-wl``) or an iterable of types.
    Other keywords go to :func:`evaluate`. A ``token_dir`` that is not a directory is an error
    (v1.8 silently falls back to the current directory)."""
    mode = "char" if token_dir is None else "token"
    strict = kwargs.get("strict", False)
    gold = read_tbf(gold_path, mode=mode, attributes=attributes, strict=strict)
    system = read_tbf(system_path, mode=mode, attributes=attributes, strict=strict)
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
    return evaluate(gold, system, token_tables=tables, type_whitelist=type_whitelist, **kwargs)


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
    """The mention-detection part of v1.8's report, in its layout (tabs, padding, ``nan``).
    With ``compat=True`` and the ``kbp`` mapping it is v1.8's output up to the coreference
    section, which is not produced here."""
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
    return "".join(out)


COREF_SECTION = "\n=======Final Mention Coreference Results========="


def parse_v18_report(text: str, path: str = "<report>") -> dict:
    """Parse v1.8's mention-detection report (ours or the official one) into the shape of
    :func:`v18_numbers`; the coreference section, if any, is ignored."""
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
