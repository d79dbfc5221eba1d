"""Declared metrics: every shipped metric of :mod:`exactalign.declared.library` computed by its
greedy twin and by its proven optimum, on the pilot data where the pilot has it in the metric's
native format and on seeded synthetic corpora otherwise; how far the greedy twin falls short.

Data (one ``dataset`` per source; ``kind`` says ``pilot``, ``pilot-derived`` or ``synthetic``)
---------------------------------------------------------------------------------------------
* ``coref-*`` (MUC, B³, CEAFe, CEAFm):

  - ``conll-tests`` (pilot) -- every (key, response) pair of the CoNLL reference scorer's test
    suite (``coref/conll-reference-scorer-tests``, the pairs ``expected_values.json`` names; one
    ``system`` per test case), mentions after the reference scorer's identification
    (:data:`exactalign.declared.convert.READERS` ``conll``). Tiny documents: the exact values
    must equal the suite's expected values (the harness's check, summed |difference| < 1e-4);
  - ``synthetic-coref`` (synthetic) -- gold clusterings of OntoNotes-like size (20-120 token-span
    mentions per document in a Chinese-restaurant partition, some mentions nested in others),
    each perturbed by :func:`exactalign.perturb.clusters.perturb_clusters` at a uniform rate
    (missing, shifted, extra and nested mentions, split and merged entities): one ``system``
    per rate. Mentions are compared by their exact span.

* ``smatch``: ``lpp-test`` (Little Prince v1.6 test, gold vs JAMR and CAMR), ``lpp-two-parsers``
  (200 Little Prince sentences, the BART- and T5-based parsers as two systems: even and odd
  pairs of ``src.test.amr``) and ``bamboo-sts`` (1,380 pairs of silver AMRs, ``src`` vs
  ``tgt``), all read as :func:`exactalign.declared.convert.read_amr` does. Greedy twin: smatch
  1.0.4's hill-climbing (4 restarts, ``random.Random(seed)`` per pair). The exact matched triples
  are held against the independent optimum of ``amr/reference/*.json`` pair by pair -- except on
  pairs where a graph states a triple twice: the declared Smatch counts a duplicate once, smatch
  1.0.4 (and that reference) twice; those pairs are counted in ``note``.
  Without pilot data: ``synthetic-amr``, relabel perturbations of the synthetic bank of
  :func:`experiments.smatch_gap.synthetic_bank`.

* ``ceaf-ree``, ``ceaf-ree-prop``, ``ceaf-ree-phi4``: ``grit-ree`` (pilot: GRIT's role-filler
  entity predictions vs ``muc4/grit/test_ree.json``; CEAF-REE must round to GRIT's published
  54.50) and ``muc4-templates-as-ree`` (pilot-derived: the template predictions of GTT, the
  Das et al. 2022 systems and IterX flattened into role-filler entities -- per role, the
  distinct entities of all predicted templates, in order -- against the same REE gold; these
  systems never output REE themselves, so the numbers are not theirs). Without pilot data:
  ``synthetic-ree``.

* ``ceaf-rme-phi3`` (IterX's CEAF-RME, templates): ``muc4-templates`` (pilot: GTT's gold
  ``muc4/gtt/test.json`` vs the template predictions of GTT, the Das et al. 2022 systems and
  IterX, read by :data:`~exactalign.declared.convert.READERS` ``gtt``). Without pilot data:
  ``synthetic-templates`` (1-3 templates of MUC-4 incident types holding synthetic role-filler
  entities).

* ``event-*`` (trigger id/cls, argument id/cls, hierarchical trigger), ``relation-*`` (strict,
  boundary), ``dependency-*`` (UAS, LAS): no pilot data in these formats; ``synthetic-events``
  (20-60 events per document, ACE-like two-level types, triggers shared by two events, arguments
  drawn from one pool of entity spans so that they collide across events; systems with missed,
  shifted, retyped, split and merged events, dropped, shifted and re-roled arguments, spurious
  events on existing triggers), ``synthetic-relations`` (20-60 relations per document over a
  pool of typed entity mentions; missed, spurious, retyped, swapped, shifted and duplicated
  relations) and ``synthetic-dependency`` (documents of 5-15 sentences, 8-40 tokens each;
  attachment and label errors). One ``system`` per noise rate.

A shipped metric the experiment has no dataset for (one added to the library later) gives one
``kind = absent`` row saying so.

Per (metric, dataset, system) one row: the micro-averaged counts (denominators are self-scores,
exact under both methods), recall / precision / F1 of the exact optimum and of the greedy twin,
the gap in F1 points, the documents where the greedy twin scores below the optimum in recall or
precision and the largest per-document F1 gap, the exact status and its proven F1 bound, both
wall times, the reference value where one exists (``reference_f1``/``reference_match``: the
CoNLL expected F1 under the harness's check; GRIT's published CEAF-REE; the F1 of the
independent smatch optimum with smatch 1.0.4's triple counts), ``fallback`` (solver routes
that failed verification before the exact answers; 0 normally). A pilot source whose folder is
missing gives one ``kind = absent`` row saying so.

Invariants (:class:`ExperimentError`): every exact document proven optimal; the greedy twin never
above the optimum in either direction; equal denominators under both methods; the exact F1 equal
to its proven bound; the CoNLL expected values, the smatch reference optimum (pairs without
duplicate triples) and GRIT's 54.50 reproduced.

The corpora -- the families and datasets, the seeded synthetic documents and the pilot
datasets -- are :mod:`experiments.declared_corpora`, whose names are handed on here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from exactalign.core.result import Status
from exactalign.data import resolve_data_dir
from exactalign.declared.library import LIBRARY

from . import plot
from .declared_corpora import (  # noqa: F401  (handed on: the experiment's names in one place)
    CONLL,
    DEP_LABELS,
    ENTITY_TYPES,
    EVENT_TYPES,
    FAMILIES,
    FAMILY_INDEX,
    GRIT,
    GTT_GOLD,
    INCIDENT_TYPES,
    REE_ROLES,
    REE_WORDS,
    RELATION_TYPES,
    ROLES,
    SMATCH_SETS,
    TEMPLATE_SYSTEMS,
    TYPES,
    conll_cases,
    perturb_dependencies,
    perturb_events,
    perturb_ree,
    perturb_relations,
    perturb_templates,
    pilot_corpus,
    synthetic_coref_gold,
    synthetic_corpus,
    synthetic_dependency_gold,
    synthetic_event_gold,
    synthetic_ree_gold,
    synthetic_relation_gold,
    synthetic_templates,
)
from .runner import ExperimentError, fallback_count, parallel_map

NAME = "declared_metrics"
DESCRIPTION = ("Declared metrics (exactalign.declared): each shipped metric's greedy twin vs its "
               "proven optimum -- coreference on the CoNLL scorer tests and perturbed "
               "OntoNotes-sized clusterings, Smatch on the AMR pilot sets, CEAF-REE on GRIT and "
               "MUC-4 template systems, events, relations and dependencies on seeded synthetic "
               "corpora.")
DATA_SOURCE = ("pilot: coref/conll-reference-scorer-tests, amr/lpp-test-jamr-camr, "
               "amr/lpp-two-parsers, amr/bamboo-sts-test (+ amr/reference), muc4/grit, "
               "muc4/gtt, muc4/das2022, muc4/iterx; synthetic (always, labelled kind=synthetic): "
               "perturbed coreference clusterings, events, relations, dependencies; without "
               "pilot data the pilot sources are replaced by synthetic AMR, REE and template "
               "corpora")
#: The paths under the data directory this experiment reads (its meta.json records their digest).
DATA_READS = ("coref/conll-reference-scorer-tests", "amr/lpp-test-jamr-camr",
              "amr/lpp-two-parsers", "amr/bamboo-sts-test", "amr/reference", "muc4/grit",
              "muc4/gtt", "muc4/das2022", "muc4/iterx")
SEEDING = ("synthetic document d of family f: gold from numpy.random.default_rng([seed, f, 0, d])"
           ", the system at rate index s from default_rng([seed, f, 1 + s, d]); the greedy "
           "smatch hill-climbing: random.Random(seed) per pair (Metric.compute(seed=seed))")

TOL = 1e-9
#: CoNLL reference harness: sum of |expected - actual| over (R, P, F1) below this.
CONLL_TOLERANCE = 1e-4
#: GRIT's published CEAF-REE F1 (MANIFEST.md), in percent with two decimals.
GRIT_F1 = 54.50

FULL = {
    "seed": 0,
    "rates": [0.1, 0.2, 0.35],
    "coref_docs": 150,
    "event_docs": 40,
    "relation_docs": 60,
    "dependency_docs": 60,
    "smatch_sets": list(SMATCH_SETS),
    "template_systems": list(TEMPLATE_SYSTEMS),
    "synthetic_fallback_docs": 100,
}
QUICK = {**FULL, "rates": [0.2], "coref_docs": 12, "event_docs": 8, "relation_docs": 6,
         "dependency_docs": 6, "smatch_sets": ["lpp-test"], "template_systems": ["GTT"],
         "synthetic_fallback_docs": 12}

COLUMNS = (
    "family", "metric", "dataset", "system", "kind", "documents", "seed",
    "recall_den", "precision_den", "exact_recall_num", "exact_precision_num",
    "greedy_recall_num", "greedy_precision_num",
    "exact_recall", "exact_precision", "exact_f1", "greedy_recall", "greedy_precision",
    "greedy_f1", "gap_f1_points", "docs_short", "max_doc_gap_f1_points",
    "status", "greedy_status", "f1_bound", "time_exact_s", "time_greedy_s",
    "reference_f1", "reference_match", "note", "fallback", "error",
)
FIGURES = ("gap_by_metric.png",)


def _family(metric: str) -> str:
    return next((f for f, ms in FAMILIES.items() if metric in ms), "other")

# ------------------------------------------------------------------------------------------
# one unit: a metric on one (dataset, system)
# ------------------------------------------------------------------------------------------
def _nums(doc) -> tuple[float, float, float, float]:
    p = doc.prf
    return p.recall_num, p.recall_den, p.precision_num, p.precision_den


def _f1(rn, rd, pn, pd) -> float:
    r = rn / rd if rd else 0.0
    p = pn / pd if pd else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def measure(metric: str, ids, refs, preds, seed: int, label: str) -> dict:
    """Exact and greedy on one corpus, the invariants checked; the measured columns."""
    m = LIBRARY[metric]()
    ex = m.compute(predictions=preds, references=refs, method="exact", seed=seed, ids=ids)
    gr = m.compute(predictions=preds, references=refs, method="greedy", seed=seed, ids=ids)
    short, doc_gap = 0, 0.0
    for de, dg in zip(ex.documents, gr.documents, strict=True):
        if de.status is not Status.OPTIMAL:
            raise ExperimentError(f"{label}: exact document {de.id} is {de.status.value}, not "
                                  "proven optimal")
        er, erd, ep, epd = _nums(de)
        gr_, grd, gp, gpd = _nums(dg)
        if abs(erd - grd) > TOL * max(1, erd) or abs(epd - gpd) > TOL * max(1, epd):
            raise ExperimentError(f"{label}: document {de.id}: denominators differ between "
                                  f"exact ({erd}, {epd}) and greedy ({grd}, {gpd})")
        if gr_ > er + TOL * max(1, er) or gp > ep + TOL * max(1, ep):
            raise ExperimentError(f"{label}: document {de.id}: greedy ({gr_}, {gp}) above the "
                                  f"exact optimum ({er}, {ep})")
        if gr_ < er - TOL * max(1, er) or gp < ep - TOL * max(1, ep):
            short += 1
        doc_gap = max(doc_gap, 100 * (de.prf.f1 - dg.prf.f1))
    se, sg = ex.score, gr.score
    bound = ex.f1_bound
    if bound is None or abs(bound - se.f1) > 1e-9:
        raise ExperimentError(f"{label}: exact F1 {se.f1!r} is not its proven bound {bound!r}")
    return dict(
        documents=len(ex.documents), recall_den=se.recall_den, precision_den=se.precision_den,
        exact_recall_num=se.recall_num, exact_precision_num=se.precision_num,
        greedy_recall_num=sg.recall_num, greedy_precision_num=sg.precision_num,
        exact_recall=se.recall, exact_precision=se.precision, exact_f1=se.f1,
        greedy_recall=sg.recall, greedy_precision=sg.precision, greedy_f1=sg.f1,
        gap_f1_points=100 * (se.f1 - sg.f1), docs_short=short, max_doc_gap_f1_points=doc_gap,
        status=ex.status.value, greedy_status=gr.status.value, f1_bound=bound,
        time_exact_s=ex.wall_time, time_greedy_s=gr.wall_time,
        fallback=fallback_count(*(r for d in ex.documents for r in d.results)),
        _exact=ex)


def _reference(unit: dict, info: dict, out: dict, label: str) -> dict:
    """The reference columns (and the checks against them)."""
    ex = out.pop("_exact")
    if "expected" in info:
        exp = info["expected"]
        if exp is None:
            return {"note": "no expected value in the suite for this metric"}
        got = (out["exact_recall"], out["exact_precision"], out["exact_f1"])
        diff = sum(abs(e - a) for e, a in zip(exp, got, strict=True))
        if diff >= CONLL_TOLERANCE:
            raise ExperimentError(f"{label}: exact (R, P, F1) {got} differs from the reference "
                                  f"scorer's expected {tuple(exp)} by {diff:.3g}")
        return {"reference_f1": float(exp[2]), "reference_match": True}
    if "smatch" in info and info["smatch"] is None:
        return {"note": f"{info['reference_file']} (recorded, not fetchable) absent: no "
                        "reference optimum to compare with"}
    if "smatch" in info:
        ref, dup = info["smatch"], info["duplicates"]
        compared = 0
        for doc, r, d in zip(ex.documents, ref, dup, strict=True):
            if d:
                continue
            compared += 1
            if abs(doc.results[0].objective - r["optimal_match"]) > 1e-6:
                raise ExperimentError(f"{label}: pair {doc.id}: exact {doc.results[0].objective}"
                                      f" matched triples, the reference optimum "
                                      f"{r['optimal_match']}")
        m = sum(r["optimal_match"] for r in ref)
        f1 = _f1(m, sum(r["gold_triples"] for r in ref), m, sum(r["test_triples"] for r in ref))
        note = (f"{compared}/{len(ref)} pairs equal to the amr/reference optimum"
                + (f"; {len(ref) - compared} pairs state a triple twice (counted once here, "
                   "twice by smatch 1.0.4 and the reference): not compared"
                   if compared < len(ref) else ""))
        return {"reference_f1": f1, "reference_match": compared == len(ref), "note": note}
    if info.get("grit") and unit["metric"] == "ceaf-ree":
        ok = round(100 * out["exact_f1"], 2) == GRIT_F1
        if not ok:
            raise ExperimentError(f"{label}: CEAF-REE {100 * out['exact_f1']:.4f} does not "
                                  f"round to GRIT's published {GRIT_F1}")
        return {"reference_f1": GRIT_F1 / 100, "reference_match": True,
                "note": "GRIT's published CEAF-REE F1 (two decimals)"}
    return {}


def run_unit(unit: dict) -> dict:
    """One row: ``unit["metric"]`` on one (dataset, system), exact and greedy."""
    row = {c: None for c in COLUMNS}
    row.update({k: unit.get(k) for k in ("family", "metric", "dataset", "system", "kind",
                                         "seed")})
    if unit["kind"] == "absent":
        row["note"] = unit["note"]
        return row
    label = f"{unit['metric']} on {unit['dataset']} / {unit['system']}"
    if unit["kind"] == "synthetic":
        ids, refs, preds = synthetic_corpus(unit["family"], unit["rate_index"], unit["rate"],
                                            unit["docs"], unit["seed"])
        info: dict = {}
    else:
        ids, refs, preds, info = pilot_corpus(unit, resolve_data_dir().path)
    out = measure(unit["metric"], ids, refs, preds, unit["seed"], label)
    ref = _reference(unit, info, out, label)
    row.update(out)
    row.update(ref)
    return row


# ------------------------------------------------------------------------------------------
# units
# ------------------------------------------------------------------------------------------
def _absent(family: str, dataset: str, folder: str, seed: int) -> list[dict]:
    return [dict(family=family, metric=m, dataset=dataset, system=None, kind="absent",
                 seed=seed, note=f"pilot folder {folder} absent: dataset skipped")
            for m in FAMILIES[family]]


def _synthetic_units(family: str, dataset: str, docs: int, config: dict) -> list[dict]:
    return [dict(family=family, metric=m, dataset=dataset, system=f"noise {rate:g}",
                 kind="synthetic", seed=config["seed"], rate=float(rate), rate_index=k,
                 docs=docs)
            for k, rate in enumerate(config["rates"]) for m in FAMILIES[family]]


def units(config: dict) -> list[dict]:
    """Every (metric, dataset, system) instance, pilot sources first."""
    seed = config["seed"]
    data = resolve_data_dir()
    out: list[dict] = []
    if data.available:
        root = data.path
        if root.joinpath(*CONLL, "expected_values.json").is_file():
            for case in conll_cases(root):
                for m in FAMILIES["coref"]:
                    short = {"coref-muc": "muc", "coref-bcubed": "bcub",
                             "coref-ceafe": "ceafe", "coref-ceafm": "ceafm"}[m]
                    out.append(dict(family="coref", metric=m, dataset="conll-tests",
                                    system=f"{case['id']} ({Path(case['response_file']).name})",
                                    kind="pilot", seed=seed, key_file=case["key_file"],
                                    response_file=case["response_file"],
                                    expected=case["expected_metrics"].get(short)))
        else:
            out += _absent("coref", "conll-tests", "/".join(CONLL), seed)
        for ds in config["smatch_sets"]:
            for system, test, gold, _, _ in SMATCH_SETS[ds]:
                need = [root / "amr" / test, root / "amr" / gold]  # reference: when there
                if all(p.is_file() for p in need):
                    out.append(dict(family="smatch", metric="smatch", dataset=ds, system=system,
                                    kind="pilot", seed=seed))
                else:
                    out.append(dict(_absent("smatch", ds, f"amr/{Path(test).parent}", seed)[0],
                                    system=system))
        if all((root / p).is_file() for p in GRIT):
            out += [dict(family="ree", metric=m, dataset="grit-ree", system="GRIT", kind="pilot",
                         seed=seed) for m in FAMILIES["ree"]]
            for system in config["template_systems"]:
                if (root / TEMPLATE_SYSTEMS[system]).is_file():
                    out += [dict(family="ree", metric=m, dataset="muc4-templates-as-ree",
                                 system=system, kind="pilot-derived", seed=seed)
                            for m in FAMILIES["ree"]]
                else:
                    out += [dict(u, system=system) for u in _absent(
                        "ree", "muc4-templates-as-ree", str(Path(TEMPLATE_SYSTEMS[system]).parent),
                        seed)]
        else:
            out += _absent("ree", "grit-ree", "muc4/grit", seed)
        for system in config["template_systems"]:
            files = (root / GTT_GOLD, root / TEMPLATE_SYSTEMS[system])
            if all(f.is_file() for f in files):
                out += [dict(family="template", metric=m, dataset="muc4-templates",
                             system=system, kind="pilot", seed=seed)
                        for m in FAMILIES["template"]]
            else:
                out += [dict(u, system=system) for u in _absent(
                    "template", "muc4-templates", str(Path(TEMPLATE_SYSTEMS[system]).parent),
                    seed)]
    else:
        n = config["synthetic_fallback_docs"]
        out += _synthetic_units("smatch", "synthetic-amr", n, config)
        out += _synthetic_units("ree", "synthetic-ree", n, config)
        out += _synthetic_units("template", "synthetic-templates", n, config)
    out += _synthetic_units("coref", "synthetic-coref", config["coref_docs"], config)
    out += _synthetic_units("event", "synthetic-events", config["event_docs"], config)
    out += _synthetic_units("relation", "synthetic-relations", config["relation_docs"], config)
    out += _synthetic_units("dependency", "synthetic-dependency", config["dependency_docs"],
                            config)
    covered = {m for ms in FAMILIES.values() for m in ms}
    out += [dict(family="other", metric=m, dataset=None, system=None, kind="absent", seed=seed,
                 note="no dataset configured for this metric in the experiment")
            for m in LIBRARY if m not in covered]
    return out


def _cells(unit: dict) -> dict:
    return {k: unit.get(k) for k in ("family", "metric", "dataset", "system", "kind", "seed")}


def run(config: dict, *, jobs: int = 1, quiet: bool = False) -> list[dict]:
    rows = parallel_map(run_unit, units(config), jobs=jobs, desc=NAME, quiet=quiet,
                        cells=_cells)
    return [{c: r[c] for c in COLUMNS} for r in rows]


# ------------------------------------------------------------------------------------------
# summary and figure (from the CSV rows alone)
# ------------------------------------------------------------------------------------------
def _groups(rows: list[dict]) -> list[tuple[str, str, list[dict]]]:
    keys = list(dict.fromkeys((r["metric"], r["dataset"]) for r in rows))
    order = {m: k for k, m in enumerate(m for ms in FAMILIES.values() for m in ms)}
    keys.sort(key=lambda k: order.get(k[0], len(order)))
    return [(m, d, [r for r in rows if r["metric"] == m and r["dataset"] == d])
            for m, d in keys]


def pooled(sel: list[dict]) -> tuple[float, float]:
    """Micro F1 of the exact and the greedy counts summed over ``sel``'s rows."""
    rd = sum(r["recall_den"] for r in sel)
    pd = sum(r["precision_den"] for r in sel)
    fe = _f1(sum(r["exact_recall_num"] for r in sel), rd,
             sum(r["exact_precision_num"] for r in sel), pd)
    fg = _f1(sum(r["greedy_recall_num"] for r in sel), rd,
             sum(r["greedy_precision_num"] for r in sel), pd)
    return fe, fg


def summary(rows: list[dict]) -> str:
    """Per metric and dataset: exact vs greedy F1 (pooled over the systems), the gap, the
    largest system gap, documents where greedy is short, status and time; then which data is
    synthetic, the reference checks and the systems with the largest gaps."""
    measured = [r for r in rows if r["kind"] != "absent"]
    head = ["metric", "dataset", "data", "systems", "docs", "exact F1", "greedy F1",
            "gap (pts)", "max system gap (pts)", "docs short", "max doc gap (pts)", "exact",
            "exact s", "greedy s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * 3 + ["---:"] * 11) + "|"]
    for metric, ds, sel in _groups(measured):
        fe, fg = pooled(sel)
        docs = sum(r["documents"] for r in sel)
        short = sum(r["docs_short"] for r in sel)
        statuses = sorted({r["status"] for r in sel})
        lines.append("| " + " | ".join([
            metric, ds, sel[0]["kind"], str(len(sel)), str(docs), f"{100 * fe:.2f}",
            f"{100 * fg:.2f}", f"{100 * (fe - fg):.3f}",
            f"{max(r['gap_f1_points'] for r in sel):.3f}",
            f"{short} ({100 * short / docs:.1f}%)" if docs else "0",
            f"{max(r['max_doc_gap_f1_points'] for r in sel):.2f}", "/".join(statuses),
            f"{sum(r['time_exact_s'] for r in sel):.2f}",
            f"{sum(r['time_greedy_s'] for r in sel):.2f}"]) + " |")
    lines.append("")
    lines.append("F1 in percent, micro-averaged over every document of the dataset's systems "
                 "(counts summed); gap = exact − greedy F1; max system gap: the largest gap of "
                 "one system's corpus; docs short: documents where the greedy twin scores below "
                 "the optimum in recall or precision; exact: the status of the exact solves "
                 "(optimal = proven, with the F1 equal to its proven bound).")
    kinds: dict = {}
    for r in measured:
        kinds.setdefault(r["kind"], []).append(r["dataset"])
    parts = [f"{k}: {', '.join(dict.fromkeys(v))}" for k, v in kinds.items()]
    lines.append("Data -- " + "; ".join(parts) + ". Synthetic corpora are seeded and generated "
                 "in the experiment (see the module docstring); pilot-derived: MUC-4 template "
                 "predictions flattened into role-filler entities (not the systems' own REE "
                 "output).")
    absent = [r for r in rows if r["kind"] == "absent"]
    if absent:
        notes = list(dict.fromkeys(f"{r['metric'] if r['dataset'] is None else r['dataset']} "
                                   f"({r['note']})" for r in absent))
        lines.append("Skipped: " + "; ".join(notes) + ".")
    if not any(r["kind"] in ("pilot", "pilot-derived") for r in rows) and not absent:
        lines.append("No pilot data: the pilot sources (CoNLL tests, AMR sets, GRIT, MUC-4 "
                     "templates) were replaced by the synthetic-amr, synthetic-ree and "
                     "synthetic-templates corpora.")
    conll = [r for r in measured if r["dataset"] == "conll-tests"]
    if conll:
        checked = [r for r in conll if r["reference_match"] is not None]
        ok = sum(1 for r in checked if r["reference_match"])
        lines.append(f"CoNLL reference scorer tests: {ok}/{len(checked)} (case, metric) exact "
                     "(R, P, F1) triples equal the suite's expected values (harness check, "
                     f"summed difference < {CONLL_TOLERANCE:g}); "
                     f"{len(conll) - len(checked)} (case, metric) pairs have no expected value.")
    sm = [r for r in measured if r["metric"] == "smatch" and r["kind"] == "pilot"]
    for r in sm:
        ref = ("no reference F1" if r["reference_f1"] is None else
               f"reference F1 (smatch 1.0.4 triple counts) {100 * r['reference_f1']:.2f}")
        lines.append(f"Smatch {r['dataset']} / {r['system']}: {r['note']}; {ref}, declared "
                     f"exact {100 * r['exact_f1']:.2f}.")
    grit = [r for r in measured if r["dataset"] == "grit-ree" and r["reference_f1"] is not None]
    for r in grit:
        lines.append(f"GRIT CEAF-REE exact {100 * r['exact_f1']:.2f} = published "
                     f"{100 * r['reference_f1']:.2f}.")
    gaps = sorted((r for r in measured if r["gap_f1_points"] > 1e-9),
                  key=lambda r: -r["gap_f1_points"])
    if gaps:
        lines += ["", "Systems with the largest gaps:", "",
                  "| metric | dataset | system | docs | exact F1 | greedy F1 | gap (pts) | "
                  "docs short |", "|---|---|---|---:|---:|---:|---:|---:|"]
        for r in gaps[:12]:
            lines.append(f"| {r['metric']} | {r['dataset']} | {r['system']} | {r['documents']} "
                         f"| {100 * r['exact_f1']:.2f} | {100 * r['greedy_f1']:.2f} | "
                         f"{r['gap_f1_points']:.3f} | {r['docs_short']} |")
    zero = [f"{m} ({d})" for m, d, sel in _groups(measured)
            if all(r["gap_f1_points"] <= 1e-9 and r["docs_short"] == 0 for r in sel)]
    if zero:
        lines += ["", "Greedy equal to the optimum on every document: " + ", ".join(zero)
                  + ". For some this holds by construction: MUC matches N:N (nothing to "
                  "choose); relations, dependencies, trigger identification/classification and "
                  "B³'s memberships have 0/1 element similarities with an equality key, so every "
                  "block of candidate pairs is complete with equal weights. For the others it "
                  "is a property of this data."]
    same = [d for m, d, sel in _groups(measured) if m == "ceaf-ree-prop"
            and all(any(o["metric"] == "ceaf-ree" and o["dataset"] == d and o["system"]
                        == r["system"] and o["exact_recall_num"] == r["exact_recall_num"]
                        and o["greedy_recall_num"] == r["greedy_recall_num"] for o in measured)
                    for r in sel)]
    if same:
        lines.append("ceaf-ree-prop equals ceaf-ree on " + ", ".join(same) + ", as it must where "
                     "every predicted entity has a single mention (GRIT's and the template "
                     "systems' entities do): then φ_prop = |g ∩ p| / |p| = [p ⊆ g] = φ_strict.")
    return "\n".join(lines) + "\n"


def headline(rows: list[dict], meta: dict | None = None) -> dict:
    """The summary's line: one instance per (metric, dataset, system) corpus; below: corpora
    whose greedy F1 is under the exact one (gap: the corpus F1 lost, in points); the documents
    and metrics in the finding."""
    measured = [r for r in rows if r["kind"] != "absent"]
    below = [r for r in measured if r["gap_f1_points"] > 1e-9]
    docs = sum(r["documents"] for r in measured)
    short = sum(r["docs_short"] for r in measured)
    metrics = sorted({r["metric"] for r in measured})
    losing = sorted({r["metric"] for r in below})
    worst = max(below, key=lambda r: r["gap_f1_points"], default=None)
    finding = (f"The greedy twin falls below the proven optimum for {len(losing)} of "
               f"{len(metrics)} declared metrics, on {short:,} of {docs:,} documents")
    if worst is not None:
        finding += (f"; the largest corpus loss is {worst['gap_f1_points']:.2f} F1 points "
                    f"({worst['metric']}, {worst['dataset']}, {worst['system']})")
    finding += "."
    flips = pairs = 0  # system pairs ordered one way by exact F1, the other by greedy F1
    by_corpus: dict = {}
    for r in measured:
        by_corpus.setdefault((r["metric"], r["dataset"]), []).append(r)
    for rs in by_corpus.values():
        for i, a in enumerate(rs):
            for b in rs[i + 1:]:
                e, g = a["exact_f1"] - b["exact_f1"], a["greedy_f1"] - b["greedy_f1"]
                pairs += 1
                flips += (e > 1e-12 and g < -1e-12) or (e < -1e-12 and g > 1e-12)
    return {"heuristic": "greedy twins", "unit": "corpora (metric × system)",
            "instances": len(measured), "below": len(below),
            "gap_mean": (sum(r["gap_f1_points"] for r in below) / len(below)) if below else None,
            "gap_max": worst["gap_f1_points"] if worst is not None else 0.0,
            "gap_unit": "F1 points", "rankings_changed": flips, "rankings": pairs,
            "ranking_unit": "system pairs", "finding": finding}


#: One Okabe-Ito colour per family (:data:`experiments.plot.OKABE_ITO`).
FAMILY_COLORS = {f: plot.OKABE_ITO[c] for f, c in (
    ("coref", "blue"), ("smatch", "bluish green"), ("ree", "reddish purple"),
    ("template", "sky blue"), ("event", "vermillion"), ("relation", "orange"),
    ("dependency", "black"))}


def figures(csv_path: Path, out_dir: Path) -> list[Path]:
    """``gap_by_metric.png``: per (metric, dataset), the pooled F1 gap of the greedy twin (bar;
    dots: each system's own gap) and the share of documents where it falls short."""
    from matplotlib.patches import Patch

    from .runner import completed_rows

    plt = plot.pyplot()
    rows = [r for r in completed_rows(csv_path) if r["kind"] != "absent"]
    groups = _groups(rows)
    n = len(groups)
    fig, axes = plt.subplots(1, 2, figsize=(plot.TEXT_WIDTH, 0.2 * n + 1.2), sharey=True,
                             layout="constrained", gridspec_kw={"width_ratios": [3, 2]})
    ys = np.arange(n)[::-1]
    labels = []
    for y, (metric, ds, sel) in zip(ys, groups, strict=True):
        fe, fg = pooled(sel)
        color = FAMILY_COLORS.get(_family(metric), "k")
        gap = 100 * (fe - fg)
        hatch = None if sel[0]["kind"].startswith("pilot") else "///"
        axes[0].barh(y, gap, color=color, alpha=0.8, hatch=hatch, edgecolor="white",
                     linewidth=0)
        sys_gaps = [r["gap_f1_points"] for r in sel]
        axes[0].plot(sys_gaps, [y] * len(sys_gaps), "|", color="k", markersize=5, alpha=0.6)
        zero = gap <= 1e-9 and max(sys_gaps) <= 1e-9
        axes[0].text(max([gap, 0.0, *sys_gaps]), y,
                     " 0 (greedy optimal)" if zero else f"  {gap:.3f}",
                     va="center", fontsize=5.5, color="#555555" if zero else "#222222")
        docs = sum(r["documents"] for r in sel)
        share = 100 * sum(r["docs_short"] for r in sel) / docs if docs else 0.0
        axes[1].barh(y, share, color=color, alpha=0.8, hatch=hatch, edgecolor="white",
                     linewidth=0)
        axes[1].text(share, y, f" {share:.1f}%" if share else " 0", va="center", fontsize=5.5,
                     color="#333333" if share else "#555555")
        labels.append(f"{metric} · {ds}")
    axes[0].set_yticks(ys, labels, fontsize=6.5)
    axes[0].set_xlim(0, 1.2 * max([r["gap_f1_points"] for r in rows] + [0.05]))
    axes[0].set_xlabel("F1 gap, exact − greedy [points]\n(bar and value: all systems pooled; "
                       "ticks: each system's own gap)")
    axes[1].set_xlabel("documents where greedy falls short [%]")
    axes[1].set_xlim(0, 1.2 * max(axes[1].get_xlim()[1], 1.0))
    for ax in axes:
        ax.grid(True, axis="x", alpha=0.3)
        ax.set_ylim(-0.7, n - 0.3)
    handles = [Patch(color=c, alpha=0.8, label=f) for f, c in FAMILY_COLORS.items()
               if any(_family(m) == f for m, _, _ in groups)]
    handles.append(Patch(facecolor="white", edgecolor="k", hatch="///", label="synthetic data"))
    plot.legend_below(fig, handles, [h.get_label() for h in handles], ncol=4)
    fig.suptitle("Declared metrics: how far each greedy twin falls below the proven optimum",
                 fontsize=9)
    return [plot.save(fig, Path(out_dir) / "gap_by_metric.png")]


__all__ = ["COLUMNS", "DESCRIPTION", "FIGURES", "FULL", "NAME", "QUICK", "run", "summary",
           "headline", "figures", "units", "measure"]
