"""Temporal closure: inconsistent TLINK graphs, what greedy insertion drops, te3 vs exact scores.

Data (pilot ``temporal/``): TE3-Platinum gold and three system runs (Ning et al. 2017),
TimeBank-Dense test gold with CAEVO and CoDL outputs, TBAQ-cleaned TimeBank and AQUAINT. MATRES
and ``TimebankDense.full.txt`` are not TimeML and are not used. Seeded perturbations of the gold
sets: a fraction (5/10/20 %) of the TLINKs, drawn without replacement, gets another label drawn
uniformly from the other core relations (see ``LABELS``).

Two kinds of rows.

* ``kind = doc``: one per (set, perturbation, document): the number of TLINKs, whether they are
  consistent, the fewest links to drop (maximum consistent subset, unit weights) by the exact
  ILP with lazy cycle cuts (``exact_*``; status, time) and by the point-rank ILP (time, and
  whether it agrees; on unperturbed documents only, to keep FULL short), by each greedy
  heuristic of :mod:`exactalign.problems.temporal`, and what the TempEval-3 toolkit's
  Timegraph does with the document (``te3_set_aside``: links it sets aside, ``te3_redundant``:
  links it drops as entailed, ``te3_kept_consistent``: whether the links it keeps are consistent
  by exact closure -- its per-point checks can accept an inconsistent graph). Times are
  wall-clock seconds of one run.
* ``kind = score``: one per (system or perturbed gold, mode): temporal awareness P/R/F1 against
  the gold under ``te3`` (the toolkit reproduced) and ``exact`` (maximum consistent subsets), with
  the time of the whole corpus score.

* ``kind = relabel``: global inference on the gold documents of ``relabel_sets``: every
  annotated pair gets noisy scores for ``RELABELS`` (:func:`relabel_instance`), and one row per
  (document, method) of :func:`exactalign.problems.temporal.relabel` -- ``greedy``,
  ``triangle`` (the classical transitivity ILP over annotated triangles), ``exact`` (triangles
  plus lazy cycle cuts, proven) and, on documents of at most ``relabel_endpoint_max_pairs``
  pairs, ``endpoint`` (the point-rank big-M ILP): objective, bound, whether the labelling is
  consistent, accuracy against the gold labels, time.

``fallback`` (``doc`` and ``relabel`` rows): the solver routes that failed verification before
the exact answers (cut and rank ILPs; the relabelling method) (``Result.fallback``; 0
normally). An instance (a document, a corpus score) that raises is one row with its ``error``.

Invariants (:class:`~experiments.runner.ExperimentError`): the cut ILP and the rank ILP agree
whenever both prove optimality; no heuristic drops fewer links than a proven optimum (nor
scores more in relabelling, where the triangle ILP, a relaxation, never scores less); ``te3``
scores of the TE3-Platinum runs equal the toolkit's published numbers to 1e-4 (checked when no
document is left out: QUICK scores only the first ``max_docs`` documents of each set, by id).
An unproven optimum is not an error: it is recorded with its bound (``exact_status``,
``exact_bound_drop``). Without pilot data it runs on synthetic consistent documents (set ``synthetic``).
"""

from __future__ import annotations

import functools
import time
import zlib
from dataclasses import replace
from pathlib import Path

import numpy as np

from exactalign import synthetic
from exactalign.data import resolve_data_dir
from exactalign.io.timeml import parse_timeml, read_timeml_dir
from exactalign.metrics import temporal as tm
from exactalign.problems import temporal as tp

from . import plot
from .runner import ExperimentError, fallback_count, parallel_map

NAME = "temporal_gap"
DESCRIPTION = ("Temporal closure: inconsistent TLINK graphs in TE3-Platinum, TimeBank-Dense, "
               "TBAQ and seeded perturbations; links dropped by greedy vs the exact optimum; "
               "temporal awareness te3 vs exact.")
DATA_SOURCE = ("pilot data temporal/ (te3-platinum, tbdense TimeML, tbaq-cleaned); without "
               "it, synthetic consistent TimeML documents (exactalign.synthetic.random_timeml, "
               "set 'synthetic')")
#: The paths under the data directory this experiment reads (its meta.json records their digest).
DATA_READS = ("temporal/te3-platinum", "temporal/tbdense", "temporal/tbaq-cleaned")
SEEDING = ("perturbation of (set, document, fraction) from numpy.random.default_rng([seed, "
           "crc32(set/document), round(1000 * fraction)]); ILPs on HiGHS with threads=1, seed 0")

LABELS = ("BEFORE", "AFTER", "IBEFORE", "IAFTER", "BEGINS", "BEGUN_BY", "ENDS", "ENDED_BY",
          "INCLUDES", "IS_INCLUDED", "SIMULTANEOUS")
GOLD_SETS = {"te3-platinum": "te3-platinum/gold", "tbdense": "tbdense/td-test-gold-timeml",
             "timebank": "tbaq-cleaned/TimeBank", "aquaint": "tbaq-cleaned/AQUAINT"}
SYSTEMS = {  # run -> (gold set, directory)
    "ning17_SP+ILP": ("te3-platinum", "te3-platinum/sys_ning17_SP+ILP"),
    "ning17_20_0.01_0.0": ("te3-platinum", "te3-platinum/sys_ning17_20_0.01_0.0"),
    "ning17_0.6_1.4_1": ("te3-platinum", "te3-platinum/sys_ning17_0.6_1.4_1"),
    "caevo": ("tbdense", "tbdense/td-test-sys-caevo"),
    "ning17_codl": ("tbdense", "tbdense/td-test-sys-ning17-codl"),
}
#: The TempEval-3 toolkit's F1 on TE3-Platinum (pilot MANIFEST), checked in te3 mode.
TOOLKIT_F1 = {"ning17_SP+ILP": 0.672406, "ning17_20_0.01_0.0": 0.675557,
              "ning17_0.6_1.4_1": 0.402624}

FULL = {"seed": 0, "gold_sets": list(GOLD_SETS), "systems": list(SYSTEMS),
        "fractions": [0.05, 0.10, 0.20], "perturb_sets": list(GOLD_SETS),
        "score_perturbed": ["te3-platinum", "tbdense"], "max_docs": None,
        "exact_time_limit": 60.0, "relabel_sets": ["tbdense"], "relabel_sigma": 0.6,
        "relabel_endpoint_max_pairs": 70}
QUICK = {"seed": 0, "gold_sets": ["te3-platinum"], "systems": ["ning17_SP+ILP"],
         "fractions": [0.10], "perturb_sets": ["te3-platinum"],
         "score_perturbed": ["te3-platinum"], "max_docs": 10, "exact_time_limit": 20.0,
         "relabel_sets": ["te3-platinum"], "relabel_sigma": 0.6,
         "relabel_endpoint_max_pairs": 30}

COLUMNS = ("kind", "set", "run", "perturbation", "document", "links", "consistent",
           "exact_status", "exact_drop", "exact_bound_drop", "exact_time_s", "rank_time_s",
           "rank_agrees", "greedy_order_drop", "greedy_confidence_drop", "greedy_cycles_drop",
           "greedy_time_s", "te3_set_aside", "te3_redundant", "te3_kept_consistent", "mode",
           "precision", "recall", "f1", "score_time_s", "method", "status", "objective", "bound",
           "accuracy", "time_s", "fallback", "error")
FIGURES = ("temporal_drops.png", "temporal_scores.png", "temporal_times.png",
           "temporal_relabel.png")
RELABELS = ("BEFORE", "AFTER", "INCLUDES", "IS_INCLUDED", "SIMULTANEOUS", "VAGUE")
TOL = 1e-9


def perturb(doc, fraction: float, seed: int, set_name: str):
    """``doc`` with ``round(fraction * links)`` TLINK labels replaced (see the module doc)."""
    if not fraction:
        return doc
    rng = np.random.default_rng([seed, zlib.crc32(f"{set_name}/{doc.doc_id}".encode()),
                                 round(1000 * fraction)])
    links = list(doc.tlinks)
    k = round(fraction * len(links))
    for i in rng.choice(len(links), size=k, replace=False):
        old = tp.canonical_relation(links[i].rel_type)
        others = [lab for lab in LABELS if lab != old]
        links[i] = replace(links[i], rel_type=others[int(rng.integers(len(others)))])
    return replace(doc, tlinks=links)


def _doc_row(set_name: str, pert: str, doc, time_limit: float, with_rank: bool) -> dict:
    inst = tm.document_instance(doc)
    n = inst.n_links
    consistent = tp.find_inconsistency(inst) is None
    t0 = time.perf_counter()
    exact = tp.solve(inst, "ilp-cuts", time_limit=time_limit)
    t_exact = time.perf_counter() - t0
    rank, t_rank = None, None
    if with_rank:
        t0 = time.perf_counter()
        rank = tp.solve(inst, "ilp-rank", time_limit=time_limit)
        t_rank = time.perf_counter() - t0
    if rank is not None and exact.proven_optimal and rank.proven_optimal and abs(
            exact.objective - rank.objective) > TOL:
        raise ExperimentError(f"{set_name}/{doc.doc_id} ({pert}): cut ILP {exact.objective} "
                              f"!= rank ILP {rank.objective}")
    drops, t0 = {}, time.perf_counter()
    for name in tp.HEURISTICS:
        h = tp.solve(inst, name)
        drops[name] = n - round(h.objective)
        if exact.proven_optimal and h.objective > exact.objective + TOL:
            raise ExperimentError(f"{set_name}/{doc.doc_id}: {name} keeps more than the optimum")
    t_greedy = time.perf_counter() - t0
    g = tm.te3_graph(tm.document_links(doc, doc))
    kept = [lk for lk in g.final if lk not in set(g.set_aside)]
    kept_consistent = tp.find_inconsistency(tp.TemporalInstance.from_links(kept)) is None \
        if kept else True
    return {"kind": "doc", "set": set_name, "run": "gold", "perturbation": pert,
            "document": doc.doc_id, "links": n, "consistent": consistent,
            "exact_status": exact.status.value, "exact_drop": n - round(exact.objective),
            "exact_bound_drop": None if exact.bound is None else n - exact.bound,
            "exact_time_s": t_exact, "rank_time_s": t_rank,
            "rank_agrees": None if rank is None else abs(exact.objective - rank.objective) <= TOL,
            "greedy_order_drop": drops["greedy-order"],
            "greedy_confidence_drop": drops["greedy-confidence"],
            "greedy_cycles_drop": drops["greedy-cycles"], "greedy_time_s": t_greedy,
            "te3_set_aside": len(g.set_aside), "te3_redundant": len(g.redundant),
            "te3_kept_consistent": kept_consistent, "fallback": fallback_count(exact, rank)}


def _score_rows(set_name: str, run: str, pert: str, gold: dict, system: dict,
                complete: bool = False) -> list[dict]:
    rows = []
    for mode in ("te3", "exact"):
        t0 = time.perf_counter()
        sc = tm.score_corpus(gold, system, mode)
        rows.append({"kind": "score", "set": set_name, "run": run, "perturbation": pert,
                     "mode": mode, "precision": sc.precision, "recall": sc.recall, "f1": sc.f1,
                     "score_time_s": time.perf_counter() - t0,
                     "links": sum(len(d.tlinks) for d in system.values())})
        if complete and mode == "te3" and run in TOOLKIT_F1 and abs(sc.f1 - TOOLKIT_F1[run]) > 1e-6:
            raise ExperimentError(f"te3 F1 of {run} is {sc.f1:.6f}, the toolkit's "
                                  f"{TOOLKIT_F1[run]:.6f}")
    return rows


def relabel_instance(doc, seed: int, sigma: float, set_name: str):
    """A relabelling instance from a gold document: its pairs with a label in ``RELABELS``
    (first link of a pair wins), scores ``N(0, sigma)`` per candidate label plus 1 for the gold
    label, shifted to be positive; and the gold label index per pair."""
    pairs: dict = {}
    for s, t, rel in tm.document_links(doc, doc):
        if rel in RELABELS and (s, t) not in pairs and (t, s) not in pairs and s != t:
            pairs[(s, t)] = RELABELS.index(rel)
    nodes = sorted({n for p in pairs for n in p})
    index = {n: i for i, n in enumerate(nodes)}
    gold = np.array(list(pairs.values()), dtype=np.int64)
    rng = np.random.default_rng([seed, zlib.crc32(f"{set_name}/{doc.doc_id}".encode()), 7])
    scores = rng.normal(0.0, sigma, (len(pairs), len(RELABELS)))
    scores[np.arange(len(pairs)), gold] += 1.0
    scores = scores - scores.min() + 0.01 if len(pairs) else scores
    inst = tp.RelabelInstance(tuple(nodes), np.array([index[s] for s, _ in pairs], np.int64),
                              np.array([index[t] for _, t in pairs], np.int64), RELABELS,
                              scores)
    return inst, gold


def _relabel_rows(set_name: str, doc, config: dict) -> list[dict]:
    inst, gold = relabel_instance(doc, config["seed"], config["relabel_sigma"], set_name)
    if not len(gold):
        return []
    methods = ["greedy", "triangle", "exact"]
    if len(gold) <= config["relabel_endpoint_max_pairs"]:
        methods.append("endpoint")
    rows, results = [], {}
    for m in methods:
        t0 = time.perf_counter()
        res = results[m] = tp.relabel(inst, m, time_limit=config["exact_time_limit"])
        consistent = tp.find_inconsistency(inst.as_links(res.alignment)) is None
        rows.append({"kind": "relabel", "set": set_name, "run": "gold", "perturbation": "none",
                     "document": doc.doc_id, "links": len(gold), "consistent": consistent,
                     "method": m, "status": res.status.value, "objective": res.objective,
                     "bound": res.bound, "accuracy": float(np.mean(res.alignment == gold)),
                     "time_s": time.perf_counter() - t0, "fallback": fallback_count(res)})
    ex = results["exact"]
    for m in ("greedy", "endpoint"):
        r = results.get(m)
        if ex.proven_optimal and r is not None and r.objective > ex.objective + 1e-6:
            raise ExperimentError(f"{doc.doc_id}: relabelling {m} beats the proven optimum")
    if ex.proven_optimal and results["triangle"].proven_optimal and \
            results["triangle"].objective < ex.objective - 1e-6:
        raise ExperimentError(f"{doc.doc_id}: the triangle relaxation is below the optimum")
    return rows


def _subsample(docs: dict, max_docs: int | None) -> dict:
    if max_docs is None or len(docs) <= max_docs:
        return docs
    return {k: docs[k] for k in sorted(docs)[:max_docs]}


def synthetic_golds(seed: int, n_docs: int = 12) -> dict:
    """The fallback without pilot data: ``n_docs`` consistent documents of
    :func:`exactalign.synthetic.random_timeml` (10-30 events, 2-4 timexes, 20-60 links)."""
    rng = np.random.default_rng([seed, 8])
    docs = {}
    for k in range(n_docs):
        doc_id = f"synthetic{k:02d}"
        text = synthetic.random_timeml(doc_id, int(rng.integers(10, 31)),
                                       int(rng.integers(2, 5)), int(rng.integers(20, 61)),
                                       seed=[seed, 8, k])
        docs[doc_id] = parse_timeml(text, f"<{doc_id}>")
    return docs


def units(config: dict) -> tuple[list[dict], dict]:
    """``(units, config)``: the instances in row order -- per gold set and perturbation each
    document (``doc``) and the corpus score (``score``), the relabelled documents
    (``relabel``), per system run each document and its corpus score -- and the config they run
    under (without pilot data, adapted to the synthetic set). Documents travel in the units."""
    data = resolve_data_dir()
    out: list[dict] = []
    if not data.available:  # synthetic documents, perturbed and scored like the gold sets
        golds = {"synthetic": _subsample(synthetic_golds(config["seed"]), config["max_docs"])}
        config = {**config, "perturb_sets": ["synthetic"], "score_perturbed": ["synthetic"],
                  "relabel_sets": ["synthetic"], "systems": []}
    else:
        base = data.require("temporal")
        golds = {s: _subsample(read_timeml_dir(base / GOLD_SETS[s]), config["max_docs"])
                 for s in config["gold_sets"]}
    for s, docs in golds.items():
        fractions = [0.0] + (config["fractions"] if s in config["perturb_sets"] else [])
        for frac in fractions:
            pert = "none" if not frac else f"flip{round(100 * frac)}"
            out += [{"kind": "doc", "set": s, "run": "gold", "perturbation": pert,
                     "document": d.doc_id, "fraction": frac, "doc": d} for d in docs.values()]
            if frac and s in config["score_perturbed"]:
                out.append({"kind": "score", "set": s, "run": "gold", "perturbation": pert,
                            "fraction": frac, "gold": docs})
    for s in config["relabel_sets"]:
        out += [{"kind": "relabel", "set": s, "run": "gold", "perturbation": "none",
                 "document": d.doc_id, "doc": d} for d in golds.get(s, {}).values()]
    for run_name in config["systems"]:
        s, path = SYSTEMS[run_name]
        if s not in golds:
            continue
        system = {k: v for k, v in read_timeml_dir(base / path).items() if k in golds[s]}
        out += [{"kind": "doc", "set": s, "run": run_name, "perturbation": "none",
                 "document": d.doc_id, "fraction": 0.0, "doc": d} for d in system.values()]
        out.append({"kind": "score", "set": s, "run": run_name, "perturbation": "none",
                    "gold": golds[s], "system": system, "complete": config["max_docs"] is None})
    return out, config


def run_unit(unit: dict, config: dict) -> list[dict]:
    """The rows of one instance of :func:`units`."""
    s, seed = unit["set"], config["seed"]
    if unit["kind"] == "relabel":
        return _relabel_rows(s, unit["doc"], config)
    if unit["kind"] == "doc":
        frac = unit["fraction"]
        row = _doc_row(s, unit["perturbation"], perturb(unit["doc"], frac, seed, s),
                       config["exact_time_limit"], not frac)
        return [row | {"run": unit["run"]}]
    if "system" in unit:
        return _score_rows(s, unit["run"], "none", unit["gold"], unit["system"],
                           complete=unit["complete"])
    perturbed = {k: perturb(d, unit["fraction"], seed, s) for k, d in unit["gold"].items()}
    return _score_rows(s, "gold", unit["perturbation"], unit["gold"], perturbed)


def run(config: dict, *, jobs: int = 1, quiet: bool = False) -> list[dict]:
    """Rows of every instance in :func:`units` order (one process: ``jobs`` is not used)."""
    todo, config = units(config)
    per_unit = parallel_map(
        functools.partial(run_unit, config=config), todo, jobs=1, desc=NAME, quiet=quiet,
        key=lambda u: (u["kind"], u["set"], u["run"], u["perturbation"], u.get("document")))
    return [{c: r.get(c) for c in COLUMNS} for rows in per_unit for r in rows]


def summary(rows: list[dict]) -> str:
    if not rows:
        return "No pilot data: nothing scored."
    docs = [r for r in rows if r["kind"] == "doc"]
    groups: dict = {}
    for r in docs:
        groups.setdefault((r["set"], r["run"], r["perturbation"]), []).append(r)
    lines = ["| set | run | perturbation | docs | inconsistent | unproven | links | dropped: "
             "exact | greedy-order | greedy-conf. | greedy-cycles | te3 set aside | te3 kept "
             "inconsistent |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for (s, run_name, pert), rs in groups.items():
        lines.append(
            f"| {s} | {run_name} | {pert} | {len(rs)} | {sum(not r['consistent'] for r in rs)} "
            f"| {sum(r['exact_status'] != 'optimal' for r in rs)} | "
            f"{sum(r['links'] for r in rs)} | {sum(r['exact_drop'] for r in rs)} | "
            f"{sum(r['greedy_order_drop'] for r in rs)} | "
            f"{sum(r['greedy_confidence_drop'] for r in rs)} | "
            f"{sum(r['greedy_cycles_drop'] for r in rs)} | {sum(r['te3_set_aside'] for r in rs)}"
            f" | {sum(not r['te3_kept_consistent'] for r in rs)} |")
    scores = [r for r in rows if r["kind"] == "score"]
    lines += ["", "| set | run | perturbation | te3 F1 | exact F1 | exact − te3 |",
              "|---|---|---|---|---|---|"]
    by = {(r["set"], r["run"], r["perturbation"], r["mode"]): r for r in scores}
    for (s, run_name, pert, mode), r in by.items():
        if mode != "te3":
            continue
        ex = by[(s, run_name, pert, "exact")]
        lines.append(f"| {s} | {run_name} | {pert} | {100 * r['f1']:.2f} | "
                     f"{100 * ex['f1']:.2f} | {100 * (ex['f1'] - r['f1']):+.2f} |")
    lines += _relabel_summary([r for r in rows if r["kind"] == "relabel"])
    return "\n".join(lines)


def _relabel_summary(rows: list[dict]) -> list[str]:
    if not rows:
        return []
    out = ["", "| relabelling method | docs | pairs | proven | consistent | objective | "
           "accuracy | time (s) |", "|---|---|---|---|---|---|---|---|"]
    for m in ("greedy", "triangle", "exact", "endpoint"):
        rs = [r for r in rows if r["method"] == m]
        if not rs:
            continue
        pairs = sum(r["links"] for r in rs)
        acc = sum(r["accuracy"] * r["links"] for r in rs) / pairs
        out.append(f"| {m} | {len(rs)} | {pairs} | {sum(r['status'] == 'optimal' for r in rs)} "
                   f"| {sum(bool(r['consistent']) for r in rs)} | "
                   f"{sum(r['objective'] for r in rs):.2f} | {100 * acc:.1f} % | "
                   f"{sum(r['time_s'] for r in rs):.1f} |")
    return out


def headline(rows: list[dict], meta: dict | None = None) -> dict:
    """The summary's line: on every inconsistent TLINK graph, the links greedy repair (in
    document order) drops beyond the proven minimum (gap in links); temporal awareness exact vs
    the TE3 toolkit's way in the finding."""
    docs = [r for r in rows if r["kind"] == "doc" and not r["consistent"]]
    extra = [r["greedy_order_drop"] - r["exact_drop"] for r in docs]
    below = [x for x in extra if x > 0]
    exact_total = sum(r["exact_drop"] for r in docs)
    finding = (f"Greedy repair of inconsistent TLINK graphs drops more links than the proven "
               f"minimum on {len(below)} of {len(docs)} documents ("
               f"{sum(r['greedy_order_drop'] for r in docs):,} vs {exact_total:,} links)")
    scores = {(r["set"], r["run"], r["perturbation"], r["mode"]): r["f1"] for r in rows
              if r["kind"] == "score"}
    diff = [100 * (scores[(s, r, p, "exact")] - f) for (s, r, p, m), f in scores.items()
            if m == "te3" and (s, r, p, "exact") in scores]
    if diff:
        finding += (f"; temporal awareness on the exact consistent graph differs from the TE3 "
                    f"toolkit's by {min(diff):+.1f} to {max(diff):+.1f} F1 points")
    return {"heuristic": "greedy repair (document order)", "unit": "inconsistent documents",
            "instances": len(docs), "below": len(below),
            "gap_mean": float(np.mean(below)) if below else None,
            "gap_max": float(max(below)) if below else 0.0, "gap_unit": "extra links",
            "finding": finding + "."}


def figures(csv_path: Path, out_dir: Path) -> list[Path]:
    """``temporal_drops``: links dropped by greedy repair vs the proven minimum per
    inconsistent document; ``temporal_scores``: temporal awareness F1, TE3 toolkit's way vs
    exact, per (set, run, perturbation); ``temporal_times``: time per document vs its TLINKs;
    ``temporal_relabel``: relabelling objectives against the exact one. PNG, PDF and SVG."""
    from .runner import completed_rows

    plt = plot.pyplot()
    rows = completed_rows(csv_path)
    out_dir = Path(out_dir)
    oi = plot.OKABE_ITO
    docs = [r for r in rows if r["kind"] == "doc" and not r["consistent"]]
    out = []
    fig, ax = plt.subplots(figsize=(plot.COLUMN_WIDTH, 3.0), layout="constrained")
    for name, label, st in (("greedy_order_drop", "greedy, document order",
                             plot.STYLE["greedy"]),
                            ("greedy_cycles_drop", "greedy, cycle breaking",
                             plot.STYLE["ref-order"])):
        ax.scatter([r["exact_drop"] for r in docs], [r[name] for r in docs], s=14,
                   marker=st["marker"], color=st["color"], alpha=0.6, linewidths=0,
                   label=label)
    top = max([r["greedy_order_drop"] for r in docs] + [1])
    ax.plot([0, top], [0, top], color="0.5", lw=0.8, zorder=0, label="equal (optimal)")
    ax.set_xlabel("links dropped by the exact minimum [links]")
    ax.set_ylabel("links dropped by greedy repair [links]")
    ax.set_title(f"{len(docs)} inconsistent documents")
    ax.legend(loc="upper left", markerscale=1.5)
    out.append(plot.save(fig, out_dir / FIGURES[0]))

    scores = [r for r in rows if r["kind"] == "score"]
    labels = list(dict.fromkeys((r["set"], r["run"], r["perturbation"]) for r in scores))
    fig, ax = plt.subplots(figsize=(plot.COLUMN_WIDTH + 0.6, 0.32 * len(labels) + 1.1),
                           layout="constrained")
    ys = np.arange(len(labels))
    for k, (mode, label, colour) in enumerate((
            ("te3", "TE3 toolkit's way", oi["vermillion"]),
            ("exact", "exact consistent graph", oi["blue"]))):
        val = {(r["set"], r["run"], r["perturbation"]): r["f1"] for r in scores
               if r["mode"] == mode}
        ax.barh(ys + 0.4 * k - 0.2, [100 * val.get(lb, 0.0) for lb in labels], height=0.4,
                label=label, color=colour)
    ax.set_yticks(ys, [f"{s} · {r}" + ("" if p == "none" else f" · {p}")
                       for s, r, p in labels], fontsize=7.5)
    ax.invert_yaxis()
    ax.grid(False, axis="y")
    ax.set_xlabel("temporal awareness F1 [%]")
    ax.set_xlim(0, 100)
    plot.legend_below(fig, ax=ax, ncol=2)
    out.append(plot.save(fig, out_dir / FIGURES[1]))

    fig, ax = plt.subplots(figsize=(plot.COLUMN_WIDTH, 3.0), layout="constrained")
    alld = [r for r in rows if r["kind"] == "doc"]
    for name, label, st in (("exact_time_s", "exact: cut ILP", plot.STYLE["exact"]),
                            ("rank_time_s", "exact: rank ILP", plot.STYLE["ilp"]),
                            ("greedy_time_s", "the three greedy repairs", plot.STYLE["greedy"])):
        pts = [(r["links"], r[name]) for r in alld if r[name] not in (None, "")]
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=10, marker=st["marker"],
                   color=st["color"], alpha=0.5, linewidths=0, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("TLINKs in the document")
    ax.set_ylabel("wall time per document [s]")
    ax.legend(loc="upper left", markerscale=1.6)
    out.append(plot.save(fig, out_dir / FIGURES[2]))

    rel = [r for r in rows if r["kind"] == "relabel"]
    fig, ax = plt.subplots(figsize=(plot.COLUMN_WIDTH, 2.8), layout="constrained")
    exact = {r["document"]: r["objective"] for r in rel if r["method"] == "exact"}
    for m, label, st in (("greedy", "greedy", plot.STYLE["greedy"]),
                         ("triangle", "triangle ILP (a relaxation)",
                          plot.STYLE["ref-order"]),
                         ("endpoint", "endpoint ILP", plot.STYLE["ilp"])):
        pts = [(r["links"], r["objective"] / exact[r["document"]] - 1.0) for r in rel
               if r["method"] == m and exact.get(r["document"])]
        ax.scatter([p[0] for p in pts], [100 * p[1] for p in pts], s=18, marker=st["marker"],
                   color=st["color"], label=label, alpha=0.85, linewidths=0)
    ax.axhline(0.0, color="0.5", lw=0.8, zorder=0)
    ax.set_xlabel("annotated event pairs in the document")
    ax.set_ylabel("objective − exact [% of exact]")
    plot.legend_below(fig, ax=ax, ncol=2, markerscale=1.3)
    out.append(plot.save(fig, out_dir / FIGURES[3]))
    return out
