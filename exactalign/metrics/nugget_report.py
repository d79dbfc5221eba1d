"""The report of an event-nugget run under v1.8's Dice scheme: everything ``exactalign nugget``
(``--scheme dice``) prints, as text or ``--json``, and the files it writes, built once in one
pass (:func:`report_pair`, :func:`report_files`).

The command asks for the report and only writes it out; a Python caller gets the same object::

    from exactalign.metrics.nugget_report import report_files

    rep = report_files("gold.tbf", "system.tbf", coref=True, sequencing=True)
    rep.texts["kbp"]              # v1.8's report, as the command prints it
    rep.json["overall"]           # the --json document
    rep.evaluation.scores["kbp"]  # the scores themselves

In one pass: the pair read (``doc_id``: one document, v1.8's ``-dn``), scored under every mapping
(:func:`~exactalign.metrics.nugget.evaluate`), a type white list that keeps nothing warned about,
with ``sequencing`` v1.8's event sequencing of every mapping
(:func:`~exactalign.metrics.sequencing.sequencing_evaluate`; its warnings those of the first
mapping), then what the outputs show: per mapping the text of v1.8's report with its sequencing
section and, without ``compat``, the coreference details; the ``--json`` document; the exact
mapping's solves and the heuristics' worst documents (``--mapping all``); and, when asked, the
files v1.8 writes for the first mapping (``-c PREFIX``'s CoNLL files, ``-d``'s comparison,
``-a DIR``'s TimeML files).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..core.errors import InputError
from ..core.result import combine_results, worst_status
from ..io.tbf import TbfFile, TbfWarning
from . import nugget
from .aggregation import prf_counts_dict
from .nugget.scores import GapSummary
from .sequencing import (
    EVAL_TYPES,
    format_v18_sequencing,
    py2_percent,
    sequencing_evaluate,
    v18_directory,
)

__all__ = ["NuggetReport", "report_pair", "report_files", "report_text", "one_document",
           "whitelist_warning", "to_json", "coref_to_json", "sequencing_to_json",
           "vs_exact_to_json", "score_name", "document_rows"]


@dataclass(frozen=True, eq=False)
class NuggetReport:
    """A v1.8 (Dice scheme) run, as ``exactalign nugget`` shows it.

    ``gold``, ``system``: the files read (with ``doc_id``, reduced to that document);
    ``whitelist``: the type white list read, or ``None``; ``evaluation``: the
    :class:`~exactalign.metrics.nugget.NuggetEvaluation`; ``sequencing``: mapping ->
    :class:`~exactalign.metrics.sequencing.SequencingScore` (empty without sequencing);
    ``warnings``: every warning, in the order met (the evaluation's, the white list's, the
    sequencing's); ``texts``: mapping -> its text report; ``json``: the ``--json`` document
    (its ``documents`` empty when the rows were not asked for); ``exact_solves``: the exact
    mapping's solves and their worst status (``None`` without it); ``worst``: per heuristic
    mapping and combination below the exact one, ``(mapping, combination, doc id, TP gap,
    pairs to remove, pairs to add)`` of its document furthest below; ``conll``: the key and
    response CoNLL files of ``-c PREFIX``; ``comparison``: ``-d``'s file; ``timeml``: ``-a
    DIR``'s files (:func:`~exactalign.metrics.sequencing.v18_directory`) -- those three of the
    first mapping, ``None`` unless asked for."""

    gold: TbfFile
    system: TbfFile
    whitelist: list | None
    evaluation: nugget.NuggetEvaluation
    sequencing: dict
    warnings: tuple
    texts: dict
    json: dict
    exact_solves: tuple | None = None
    worst: tuple = ()
    conll: tuple | None = field(default=None, repr=False)
    comparison: str | None = field(default=None, repr=False)
    timeml: tuple | None = field(default=None, repr=False)

    @property
    def mappings(self) -> tuple:
        return tuple(self.evaluation.scores)


def one_document(doc_id: str, gold: TbfFile, system: TbfFile, tables=None):
    """v1.8's ``-dn``: the gold and system files (and token tables) reduced to ``doc_id`` (a
    document missing from the gold is an error -- v1.8 crashes --; one missing from the system
    scores empty)."""
    from dataclasses import replace

    if doc_id not in gold.documents:
        raise InputError(f"-dn {doc_id}: no such document in the gold standard",
                         path=gold.path)
    gold = replace(gold, documents={doc_id: gold.documents[doc_id]})
    system = replace(system, documents={k: v for k, v in system.documents.items()
                                        if k == doc_id})
    if tables is not None:
        tables = {doc_id: tables.get(doc_id)}
    return gold, system, tables


def whitelist_warning(ev, whitelist_path, strict: bool = False) -> None:
    """Warn in ``ev.warnings`` (an :class:`InputError` with ``strict``) when the type white
    list ``whitelist_path`` keeps no gold and no system mention -- a file of blank lines, of
    other types, or not a type list at all: every score is then 0, which v1.8 reports without a
    word. Either scheme's evaluation."""
    if whitelist_path is None:
        return
    docs = next(iter(ev.scores.values())).documents
    if any(d.n_gold or d.n_system for d in docs):
        return
    message = ("the type white list keeps no gold and no system mention (no mention has a type "
               "it lists): every score is 0")
    if strict:
        raise InputError(message + " (an error under strict checking)", path=whitelist_path)
    ev.warnings.append(TbfWarning(message, whitelist_path, None))


def report_files(gold_path, system_path, *, token_dir=None, token_ext: str = ".tab",
                 offset_fields: tuple[int, int] | None = None, type_whitelist=None,
                 strict: bool = False, doc_id: str | None = None, **kwargs) -> NuggetReport:
    """:func:`report_pair` of two TBF files (:func:`~exactalign.metrics.nugget.read_pair`:
    ``token_dir`` for token mode, ``type_whitelist`` a file of types), reduced to ``doc_id``
    when given (v1.8's ``-dn``)."""
    extra = {} if offset_fields is None else {"offset_fields": offset_fields}
    gold, system, tables, whitelist = nugget.read_pair(
        gold_path, system_path, token_dir=token_dir, token_ext=token_ext,
        type_whitelist=type_whitelist, strict=strict, **extra)
    if doc_id is not None:
        gold, system, tables = one_document(doc_id, gold, system, tables)
    return report_pair(gold, system, token_tables=tables, type_whitelist=whitelist,
                       whitelist_path=type_whitelist
                       if isinstance(type_whitelist, str | os.PathLike) else None, strict=strict, **kwargs)


def report_pair(gold: TbfFile, system: TbfFile, *, mappings: Iterable[str] = ("kbp",),
                token_tables=None, type_whitelist=None, whitelist_path=None,
                compat: bool = False, strict: bool = False, exact_method: str = "exact",
                solve_options: Mapping | None = None, type_credit: float | None = None,
                attribute_credits=None, coref: bool = False,
                coref_combination: str | None = None, coref_threshold: float = 1.0,
                sequencing: bool = False, validate: bool = True, rows: bool = True,
                conll: bool = False, comparison: bool = False,
                timeml: bool = False) -> NuggetReport:
    """The :class:`NuggetReport` of ``system`` against ``gold``: the options of
    :func:`~exactalign.metrics.nugget.evaluate`, with ``type_credit`` (``--type-credit C``:
    level credit ``C`` on the type within a TAC KBP family, an ``attribute_credits`` of the
    first attribute); ``whitelist_path``: the white list's file, named by the warning when it
    keeps nothing; ``sequencing``: v1.8's ``-a`` (``validate=False``: its ``-nv``); ``rows``:
    build the ``--json`` document's per-document rows (the command skips them when it prints
    text: their witnesses cost a third of a ``--mapping all`` run); ``conll``, ``comparison``,
    ``timeml``: the files of ``-c PREFIX``, ``-d`` and ``-a DIR``."""
    if type_credit is not None:
        attribute_credits = {0: nugget.LevelCredit(levels=(0.0, type_credit),
                                                   families=nugget.KBP_EVENT_FAMILIES)}
    ev = nugget.evaluate(gold, system, token_tables=token_tables,
                         type_whitelist=type_whitelist, mappings=mappings, compat=compat,
                         strict=strict, exact_method=exact_method,
                         solve_options=solve_options, attribute_credits=attribute_credits,
                         coref=coref, coref_combination=coref_combination,
                         coref_threshold=coref_threshold)
    whitelist_warning(ev, whitelist_path, strict)
    seq = {}
    if sequencing:
        seq = _sequencing(ev, gold, system, type_whitelist, coref_combination,
                          validate=validate, strict=strict)
    first = next(iter(ev.scores))
    score = ev.scores[first]
    texts = {m: report_text(sc, compat, seq.get(m)) for m, sc in ev.scores.items()}
    doc = to_json(ev, rows=rows)
    for m, entry in doc["mappings"].items():
        entry["sequencing"] = sequencing_to_json(seq[m]) if seq else None
    exact_solves, worst = _vs_exact(ev)
    return NuggetReport(
        gold=gold, system=system, whitelist=type_whitelist, evaluation=ev, sequencing=seq,
        warnings=tuple(ev.warnings), texts=texts, json=doc, exact_solves=exact_solves,
        worst=worst,
        conll=(tuple(nugget.format_v18_conll(score.coref.documents))
               if conll and score.coref is not None else None),
        comparison=(nugget.format_v18_comparison(score, gold, system, type_whitelist)
                    if comparison else None),
        timeml=v18_directory(seq[first]) if timeml and seq else None)


def _sequencing(ev, gold, system, whitelist, coref_combination, *, validate: bool,
                strict: bool) -> dict:
    """``-a``: mapping name -> :class:`~exactalign.metrics.sequencing.SequencingScore`, the
    first mapping's warnings joined to ``ev``'s (an error with ``strict``)."""
    out = {}
    for m, sc in ev.scores.items():
        combination = nugget.resolve_coref_combination(coref_combination, sc.combinations)
        out[m] = sequencing_evaluate(gold, system, sc, combination,
                                                type_whitelist=whitelist, validate=validate)
    first = next(iter(out.values()))
    if strict and first.warnings:
        w = first.warnings[0]
        raise InputError(w.message + " (an error under strict checking)", path=w.path,
                         line=w.line)
    ev.warnings.extend(first.warnings)
    return out


def report_text(score, compat: bool, seq=None) -> str:
    """The text of one mapping's report (:attr:`NuggetReport.texts`): v1.8's report of the
    :class:`~exactalign.metrics.nugget.NuggetScore` ``score`` (with ``seq``, its event
    sequencing section); without ``compat``, the coreference details follow it."""
    text = nugget.format_v18(score)
    if seq is not None:
        text += format_v18_sequencing(seq)
    if score.coref is not None and not compat:
        text += nugget.format_coref_details(score.coref)
    return text


def _vs_exact(ev) -> tuple:
    """The exact mapping's ``(solves, worst status)`` and, per heuristic mapping and
    combination below it, its worst document (by TP) with the witness there: how many mention
    pairs to remove and add to reach an optimal mapping."""
    exact = ev.scores.get("exact")
    if exact is None:
        return None, ()
    statuses = [r.status for d in exact.documents for r in d.results.values()]
    solves = (len(statuses), worst_status(statuses).value if statuses else "optimal")
    worst = []
    for m, sc in ev.scores.items():
        if m == "exact":
            continue
        for c, g in ev.gaps(m).items():
            if not g.with_gap:
                continue
            d = max(g.with_gap, key=lambda x: x.tp_gap)
            w = sc.document(d.doc_id).witness(c, exact.document(d.doc_id).tp(c))
            worst.append((m, c, d.doc_id, d.tp_gap, len(w["remove"]), len(w["add"])))
    return solves, tuple(worst)


# --------------------------------------------------------------------------------------------
# the --json document
# --------------------------------------------------------------------------------------------
def _prf(x, f1: float | None = None) -> dict:
    if isinstance(x, dict):  # aggregation.macro: v1.8's macro F1 is the F1 of the means
        return prf_counts_dict(x["precision"], x["recall"], x["f1_of_means"])
    return prf_counts_dict(x.precision, x.recall, x.f1 if f1 is None else f1)


def _prf_counts(x) -> dict:
    """A :class:`~exactalign.metrics.aggregation.PRF` with its four counts."""
    return prf_counts_dict(x.precision, x.recall, x.f1, x.counts())


def _solve(results, method: str) -> dict:
    return combine_results(list(results), method).to_dict()


def to_json(ev, *, rows: bool = True) -> dict:
    """The ``--json`` object (``exactalign/output.schema.json``) of a Dice-scheme evaluation.
    Stable keys: ``gold``, ``system``, ``mode``, ``scheme`` (``"dice"``; the MUC scheme's
    document is the command's), ``attribute_credits`` (attribute name -> ``{levels,
    separators, families}`` of the hierarchical partial credit used instead of equality;
    ``{}``: v1.8's equality), ``attributes``, ``combinations``, ``compat``, ``warnings``
    (strings ``file:line: message``), and

    * ``overall``: ``MAPPING/COMBINATION`` -> the micro P/R/F over the valid documents (v1.8's
      headline), with its counts (``recall_num`` = ``precision_num`` = TP, ``recall_den`` =
      gold mentions, ``precision_den`` = system mentions);
    * ``solves``: ``MAPPING/COMBINATION`` -> the corpus solve (every document's
      :meth:`Result.to_dict` combined: worst status, summed objectives = TP);
    * ``documents``: a list, in gold order, of ``{"id", "scores", "solves", "n_gold",
      "n_system", "n_system_ids", "valid", "details"}`` -- ``scores`` and ``solves``
      by ``MAPPING/COMBINATION`` as above, ``details`` by the same names: ``tp``, ``fp``,
      ``prf_tp_fp`` (precision over TP + FP) and, when the exact mapping ran, ``exact_tp``,
      ``gap_to_exact`` and ``witness``: where the mapping is below the exact one, the fewest
      (gold, system) mention pairs to remove and add to make it optimal (``{"remove", "add",
      "changes", "gain"}``, pairs as ``[gold mention id, system mention id]``), else ``null``
      (empty when ``rows`` is false);
    * ``mappings[m]``: ``valid_documents``, ``excluded_system_mentions``, ``macro`` and
      ``micro_tp_fp`` (combination -> P/R/F; the macro F1 is v1.8's F1 of the mean P and R),
      ``per_type`` (``combination``, ``types[type]``: P/R/F with counts ``tp``, ``n_gold``,
      ``n_system``), ``coreference`` (:func:`coref_to_json` with ``-c``, else ``null``) and,
      added by :func:`report_pair`, ``sequencing`` (:func:`sequencing_to_json` with ``-a``,
      else ``null``);
    * ``vs_exact``: :func:`vs_exact_to_json`.

    Ratios with a zero denominator are 0, not v1.8's ``nan``."""
    exact = ev.scores.get("exact")
    overall, solves, mappings = {}, {}, {}
    for m, sc in ev.scores.items():
        for c in sc.combinations:
            overall[score_name(m, c)] = _prf_counts(sc.micro(c))
            results = [d.results[c] for d in sc.documents]
            solves[score_name(m, c)] = _solve(results, results[0].method if results else m)
        mappings[m] = {
            "valid_documents": len(sc.valid_documents),
            "excluded_system_mentions": sc.excluded_system_mentions,
            "macro": {c: _prf(sc.macro(c)) for c in sc.combinations},
            "micro_tp_fp": {c: _prf(sc.micro_tp_fp(c)) for c in sc.combinations},
            "per_type": {"combination": sc.type_combination,
                         "types": {t: prf_counts_dict(ts.prf.precision, ts.prf.recall,
                                                      ts.prf.f1,
                                                      {"tp": ts.tp, "n_gold": ts.n_gold,
                                                       "n_system": ts.n_system})
                                   for t, ts in sc.per_type.items()}},
            "coreference": None if sc.coref is None else coref_to_json(sc.coref),
        }
    documents = []
    for doc_id, by_mapping in (document_rows(ev.scores) if rows else ()):
        first = next(iter(by_mapping.values()))
        row = {"id": doc_id, "scores": {}, "solves": {}, "n_gold": first.n_gold,
               "n_system": first.n_system, "n_system_ids": first.n_system_ids,
               "valid": first.valid, "details": {}}
        for m, d in by_mapping.items():
            for c in ev.scores[m].combinations:
                name = score_name(m, c)
                row["scores"][name] = _prf_counts(d.prf(c))
                row["solves"][name] = d.results[c].to_dict()
                detail = {"tp": d.tp(c), "fp": d.fp(c), "prf_tp_fp": _prf(d.prf_tp_fp(c))}
                if exact is not None:
                    x = exact.document(d.doc_id).tp(c)
                    detail["exact_tp"] = x
                    detail["gap_to_exact"] = x - d.tp(c)
                    detail["witness"] = (d.witness(c, x) if m != "exact"
                                         and x - d.tp(c) > GapSummary.TOL else None)
                row["details"][name] = detail
        documents.append(row)
    credits = {ev.attributes[a]: {"levels": list(lc.levels), "separators": lc.separators,
                                  "families": list(lc.families)}
               for a, lc in ev.attribute_credits.items()}
    return {"gold": ev.gold_path, "system": ev.system_path, "mode": ev.mode, "scheme": "dice",
            "attribute_credits": credits,
            "attributes": list(ev.attributes), "combinations": list(ev.combinations),
            "compat": ev.compat, "warnings": [str(w) for w in ev.warnings],
            "overall": overall, "solves": solves, "documents": documents,
            "mappings": mappings, "vs_exact": vs_exact_to_json(ev)}


def vs_exact_to_json(ev) -> dict | None:
    """``vs_exact`` of the ``--json`` document: heuristic mapping -> combination -> ``tp``,
    ``exact_tp``, ``shortfall``, ``documents_with_gap``, ``max_document_tp_gap``,
    ``max_document_f1_gap``, ``micro_f1``, ``exact_micro_f1``, ``macro_f1``,
    ``exact_macro_f1`` (``None`` without the exact mapping)."""
    if "exact" not in ev.scores:
        return None
    vs_exact = {}
    for m in ev.scores:
        if m == "exact":
            continue
        vs_exact[m] = {}
        for c, g in ev.gaps(m).items():
            vs_exact[m][c] = {
                "tp": g.tp, "exact_tp": g.exact_tp, "shortfall": g.exact_tp - g.tp,
                "documents_with_gap": [d.doc_id for d in g.with_gap],
                "max_document_tp_gap": g.max_tp_gap, "max_document_f1_gap": g.max_f1_gap,
                "micro_f1": g.micro_f1, "exact_micro_f1": g.exact_micro_f1,
                "macro_f1": g.macro_f1, "exact_macro_f1": g.exact_macro_f1,
            }
    return vs_exact


def score_name(mapping: str, combination: str) -> str:
    """The name of a (mapping, attribute combination) score in ``overall``, ``solves`` and the
    document rows: ``MAPPING/COMBINATION``, grouped as the text report groups them."""
    return f"{mapping}/{combination}"


def document_rows(scores: dict) -> list:
    """The documents of every mapping, by document: ``[(doc_id, {mapping: document})]`` in
    the gold's order (every mapping scores the same documents)."""
    rows: dict = {}
    for m, sc in scores.items():
        for d in sc.documents:
            rows.setdefault(d.doc_id, {})[m] = d
    return list(rows.items())


def _metric_json(x) -> dict:
    """A coreference metric: P/R/F (fractions) and its counts (BLANC: of both link kinds)."""
    d = x.to_dict()
    return {**_prf(x, x.f1), **{k: v for k, v in d.items() if k not in ("recall", "precision",
                                                                        "f1")}}


def coref_to_json(c) -> dict:
    """The coreference evaluation of one mapping: ``combination`` and ``threshold`` of the
    mapping that placed the mentions; ``v18`` (``scores`` -- metric -> the truncated percentage
    v1.8 prints, in its order -- and ``average``, v1.8's average including BLANC); ``metrics``
    (metric -> ``recall``, ``precision``, ``f1`` as fractions, untruncated, with ``counts`` or,
    for BLANC, ``coref`` and ``noncoref`` link counts); ``conll_average`` (CoNLL-2012: MUC, B³,
    CEAFe; a fraction); ``mentions`` (``rows``, ``gold``, ``system``, ``aligned``); ``ceaf``
    (``ceafm``/``ceafe`` -> ``exact``: the corpus solve, ``greedy``: the metric with the greedy
    entity alignment, and ``gap``: :meth:`~exactalign.metrics.coref.CorefScores.ceaf_gap`);
    ``documents`` (a list of ``{"id", "rows", "aligned", "metrics"`` as above,
    ``"conll_average"}``)."""
    from .coref import CEAF_PHI

    docs = []
    for r, d in zip(c.documents, c.scores.documents, strict=True):
        docs.append({"id": r.doc_id, "rows": len(r.gold), "aligned": r.aligned,
                     "metrics": {m: _metric_json(x) for m, x in d.scores.items()},
                     "conll_average": d.conll})
    ceaf = {}
    for m in CEAF_PHI:
        res = c.scores.ceaf_result(m)
        ceaf[m] = {"exact": None if res is None else res.to_dict(),
                   "greedy": _metric_json(c.greedy.overall[m]), "gap": c.greedy.ceaf_gap(m)}
    return {
        "combination": c.combination, "threshold": c.threshold,
        "v18": {"scores": c.v18_scores(), "average": c.v18_average()},
        "metrics": {m: _metric_json(x) for m, x in c.scores.overall.items()},
        "conll_average": c.conll,
        "mentions": {"rows": sum(len(r.gold) for r in c.documents),
                     "gold": sum(len(r.key.mentions) for r in c.documents),
                     "system": sum(len(r.response.mentions) for r in c.documents),
                     "aligned": sum(r.aligned for r in c.documents)},
        "ceaf": ceaf,
        "documents": docs,
    }


def sequencing_to_json(sc) -> dict:
    """``-a``'s scores of one mapping: ``combination`` (the mapping's attribute combination
    that places system mentions on gold ones), ``types[type]`` for Subevent, After and All
    (``precision``, ``recall``, ``f1`` as fractions, with the summed ``counts``
    ``prec_matched``, ``system_links``, ``rec_credit``, ``gold_links``, and ``v18`` -- the
    strings v1.8 prints for P, R and F1) and ``documents`` (a list of ``{"id", "types": {type:
    counts}}``, the toolkit's counts of that document: ``prec_matched``, ``system_links``,
    ``rec_matched``, ``implicit_matched``, ``common_entities``, ``weight``, ``rec_credit``,
    ``gold_links``)."""
    types = {}
    for t in EVAL_TYPES:
        p, r, f = sc.scores(t)
        types[t] = {**prf_counts_dict(p, r, f, dict(sc.totals(t))),
                    "v18": {"precision": py2_percent(p),
                            "recall": py2_percent(r),
                            "f1": py2_percent(f)}}
    return {"combination": sc.combination, "types": types,
            "documents": [{"id": d.doc_id, "types": {t: c.to_dict() for t, c in d.counts.items()}}
                          for d in sc.documents]}
