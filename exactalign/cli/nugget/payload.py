"""The ``--json`` document of ``exactalign nugget``'s dice scheme
(``exactalign/output.schema.json``): :func:`to_json`, with :func:`coref_to_json` (``-c``) and
:func:`sequencing_to_json` (``-a``); :func:`score_name` and :func:`document_rows`, which name
the scores and group the documents of every mapping, serve the MUC scheme's document too
(:mod:`~exactalign.cli.nugget.muc`)."""

from __future__ import annotations

from .gaps import vs_exact_to_json


def to_json(ev) -> dict:
    """The ``--json`` object (``exactalign/output.schema.json``). Stable keys: ``gold``,
    ``system``, ``mode``, ``scheme`` (``"dice"``; see
    :func:`~exactalign.cli.nugget.muc.muc_to_json` for ``muc``), ``attribute_credits``
    (attribute name -> ``{levels, separators, families}`` of the hierarchical partial credit
    used instead of equality; ``{}``: v1.8's equality),
    ``attributes``, ``combinations``, ``compat``, ``warnings`` (strings ``file:line:
    message``), and

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
      "changes", "gain"}``, pairs as ``[gold mention id, system mention id]``), else ``null``;
    * ``mappings[m]``: ``valid_documents``, ``excluded_system_mentions``, ``macro`` and
      ``micro_tp_fp`` (combination -> P/R/F; the macro F1 is v1.8's F1 of the mean P and R),
      ``per_type`` (``combination``, ``types[type]``: P/R/F with counts ``tp``, ``n_gold``,
      ``n_system``), ``coreference`` (:func:`coref_to_json` with ``-c``, else ``null``) and,
      added by the CLI, ``sequencing`` (:func:`sequencing_to_json` with ``-a``, else
      ``null``);
    * ``vs_exact[heuristic][combination]``: ``tp``, ``exact_tp``, ``shortfall``,
      ``documents_with_gap``, ``max_document_tp_gap``, ``max_document_f1_gap``, ``micro_f1``,
      ``exact_micro_f1``, ``macro_f1``, ``exact_macro_f1`` (``null`` without the exact
      mapping).

    Ratios with a zero denominator are 0, not v1.8's ``nan``."""
    from ...metrics.nugget.scores import GapSummary
    from ..common import combined_solve, prf, prf_of

    exact = ev.scores.get("exact")
    overall, solves, mappings = {}, {}, {}
    for m, sc in ev.scores.items():
        for c in sc.combinations:
            overall[score_name(m, c)] = prf_of(sc.micro(c))
            results = [d.results[c] for d in sc.documents]
            solves[score_name(m, c)] = combined_solve(
                results, results[0].method if results else m)
        mappings[m] = {
            "valid_documents": len(sc.valid_documents),
            "excluded_system_mentions": sc.excluded_system_mentions,
            "macro": {c: _prf(sc.macro(c)) for c in sc.combinations},
            "micro_tp_fp": {c: _prf(sc.micro_tp_fp(c)) for c in sc.combinations},
            "per_type": {"combination": sc.type_combination,
                         "types": {t: prf(ts.prf.recall, ts.prf.precision, ts.prf.f1,
                                          {"tp": ts.tp, "n_gold": ts.n_gold,
                                           "n_system": ts.n_system})
                                   for t, ts in sc.per_type.items()}},
            "coreference": None if sc.coref is None else coref_to_json(sc.coref),
        }
    documents = []
    for doc_id, by_mapping in document_rows(ev.scores):
        first = next(iter(by_mapping.values()))
        row = {"id": doc_id, "scores": {}, "solves": {}, "n_gold": first.n_gold,
               "n_system": first.n_system, "n_system_ids": first.n_system_ids,
               "valid": first.valid, "details": {}}
        for m, d in by_mapping.items():
            for c in ev.scores[m].combinations:
                name = score_name(m, c)
                row["scores"][name] = prf_of(d.prf(c))
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
    vs_exact = vs_exact_to_json(ev)
    credits = {ev.attributes[a]: {"levels": list(lc.levels), "separators": lc.separators,
                                  "families": list(lc.families)}
               for a, lc in ev.attribute_credits.items()}
    return {"gold": ev.gold_path, "system": ev.system_path, "mode": ev.mode, "scheme": "dice",
            "attribute_credits": credits,
            "attributes": list(ev.attributes), "combinations": list(ev.combinations),
            "compat": ev.compat, "warnings": [str(w) for w in ev.warnings],
            "overall": overall, "solves": solves, "documents": documents,
            "mappings": mappings, "vs_exact": vs_exact}


def _prf(x, f1: float | None = None) -> dict:
    from ..common import prf

    if isinstance(x, dict):  # aggregation.macro: v1.8's macro F1 is the F1 of the means
        return prf(x["recall"], x["precision"], x["f1_of_means"])
    return prf(x.recall, x.precision, x.f1 if f1 is None else f1)


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


def _documents_list(docs: dict) -> list[dict]:
    """``{doc_id: entry}`` as the output's document rows: ``[{"id": doc_id, **entry}]``."""
    return [{"id": doc_id, **entry} for doc_id, entry in docs.items()]


def coref_to_json(c) -> dict:
    """The coreference evaluation of one mapping: ``combination`` and ``threshold`` of the
    mapping that placed the mentions; ``v18`` (``scores`` -- metric -> the truncated percentage
    v1.8 prints, in its order -- and ``average``, v1.8's average including BLANC); ``metrics``
    (metric -> ``recall``, ``precision``, ``f1`` as fractions, untruncated, with ``counts`` or,
    for BLANC, ``coref`` and ``noncoref`` link counts); ``conll_average`` (CoNLL-2012: MUC, B³,
    CEAFe; a fraction); ``mentions`` (``rows``, ``gold``, ``system``, ``aligned``); ``ceaf``
    (``ceafm``/``ceafe`` -> ``exact``: the corpus solve, ``greedy``: the metric with the greedy
    entity alignment, and ``gap``: :meth:`~exactalign.metrics.coref.CorefScores.ceaf_gap`);
    ``documents`` (a list of ``{"id", "rows", "aligned", "metrics"`` as above, ``"conll_average"}``)."""
    from ...metrics.coref import CEAF_PHI

    docs = {}
    for r, d in zip(c.documents, c.scores.documents, strict=True):
        docs[r.doc_id] = {"rows": len(r.gold), "aligned": r.aligned,
                          "metrics": {m: _metric_json(x) for m, x in d.scores.items()},
                          "conll_average": d.conll}
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
        "documents": _documents_list(docs),
    }


def sequencing_to_json(sc) -> dict:
    """``-a``'s scores of one mapping: ``combination`` (the mapping's attribute combination
    that places system mentions on gold ones), ``types[type]`` for Subevent, After and All
    (``precision``, ``recall``, ``f1`` as fractions, with the summed ``counts``
    ``prec_matched``, ``system_links``, ``rec_credit``, ``gold_links``, and ``v18`` -- the
    strings v1.8 prints for P, R and F1) and ``documents`` (a list of ``{"id", "types": {type: counts}}``, the
    toolkit's counts of that document:
    ``prec_matched``, ``system_links``, ``rec_matched``, ``implicit_matched``,
    ``common_entities``, ``weight``, ``rec_credit``, ``gold_links``)."""
    from ...metrics import sequencing
    from ..common import prf

    types = {}
    for t in sequencing.EVAL_TYPES:
        p, r, f = sc.scores(t)
        types[t] = {**prf(r, p, f, dict(sc.totals(t))),
                    "v18": {"precision": sequencing.py2_percent(p),
                            "recall": sequencing.py2_percent(r),
                            "f1": sequencing.py2_percent(f)}}
    return {"combination": sc.combination, "types": types,
            "documents": [{"id": d.doc_id, "types": {t: c.to_dict() for t, c in d.counts.items()}}
                          for d in sc.documents]}
