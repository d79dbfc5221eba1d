"""Do conclusions survive the alignment? Significance, ranking flips, co-optimal ranges, witnesses.

For every pilot data set where several systems are scored against one gold, each system is
scored under the heuristic alignment(s) its community uses and under the proven-optimal one, per
document, and the corpus conclusions are tested (:mod:`exactalign.significance`, seeded, paired
over documents):

* ``system`` rows: a system's corpus F under a heuristic against under exact: the difference,
  its paired-bootstrap 95% interval, the bootstrap and approximate-randomization p-values, the
  documents below the optimum, the system's rank under both.
* ``pair`` rows: two systems under one heuristic and under exact: both differences, the
  approximate-randomization p-value of each, whether the order **flips**, whether the exact
  difference is significant (raw and Holm-adjusted within the data set), and whether the
  *verdict* changes (the order flips, or the difference is significant under one alignment but
  not the other).
* ``range`` rows: secondary numbers that the optimum does not decide. When several alignments
  reach the optimum, a number the metric reports beside F can differ between them: the MUC
  COR/PAR split (1992 systems) and the attribute scores of event nuggets scored on the exact
  span mapping (the pilot study's order, Liu et al. 2015). Each is given as ``[min, max]`` over
  all optimal alignments (two lexicographic solves per document), beside the value of the
  solver's own optimal alignment.
* ``witness`` rows: for each document where a heuristic's alignment is below the optimum, the
  fewest pair changes that turn it into an optimal alignment (removed and added pairs).

Data sets: MUC-4 1992 TST3/TST4 (17 systems: the 1992 scorer's greedy mapping vs the alignment
of maximum message F); MUC-4 GTT-format systems (GTT, DyGIE++, Das et al. 2022 conversions,
IterX: GTT template F1 under GTT's search / greedy vs exact, CEAF-RME φ_subset under IterX's
assignment / greedy vs exact); ACE-2005 dev event nuggets (the system and three perturbed
systems, and seeded perturbations of the gold at four noise rates: v1.8's greedy, v1.6's
gold-order and the pilot study's mapping vs exact); AMR parsers on one gold (smatch -r 4
hill-climbing vs exact Smatch); TimeBank-Dense and TE3-Platinum systems (the TE3 toolkit's
temporal awareness vs exact). Without pilot data the nugget data set is built from a synthetic
gold and said so.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import numpy as np

from exactalign.core.result import Status
from exactalign.data import resolve_data_dir
from exactalign.data.pilot import (
    GTT_TEST,
    MUC4_1992_SYSTEMS,
    MUC4_MODERN,
    gtt_gold,
    muc4_1992_keys,
    muc4_1992_paths,
)
from exactalign.significance import approximate_randomization, paired_bootstrap, score

from . import nugget_gap
from .runner import ExperimentError, parallel_map

NAME = "robustness"
DESCRIPTION = ("Do conclusions survive the alignment? Paired significance of heuristic vs exact, "
               "system ranking flips with their significance, secondary numbers over all "
               "co-optimal alignments, and gap witnesses, on every multi-system pilot data set. "
               "Since 2026-12-03 the three perturbed ACE-dev systems are recipe-made (see "
               "nugget_gap): 65 system scores below their optimum, was 71.")
DATA_SOURCE = ("pilot data muc4/ (1992 and GTT-format systems), nugget/ace-dev (systems and "
               "seeded perturbations of the gold), amr/ (parsers on one gold), temporal/ "
               "(TimeBank-Dense, TE3-Platinum systems); without it, seeded perturbations of a "
               "synthetic nugget gold only")
#: The paths under the data directory this experiment reads (its meta.json records their digest).
DATA_READS = ("muc4", "nugget/ace-dev", "amr", "temporal/tbdense", "temporal/te3-platinum")
SEEDING = ("every test uses numpy.random.default_rng(config['seed']) (the same resamples for "
           "the heuristic and the exact comparison); perturbed nugget systems use "
           "exactalign.perturb.mentions.perturb with seed config['seed'] * 1000 + k; smatch "
           "hill-climbing: one random.Random(config['seed']) per parser")

FULL = {"seed": 0, "samples": 10_000, "alpha": 0.05, "sets": ["TST3", "TST4"],
        "systems_1992": list(MUC4_1992_SYSTEMS), "modern": list(MUC4_MODERN),
        "nugget_systems": True, "nugget_rates": [0.1, 0.2, 0.3, 0.4], "nugget_seeds": 2,
        "amr": True, "temporal": True, "smatch_restarts": 4}
QUICK = {**FULL, "samples": 2_000, "sets": ["TST3"], "systems_1992": ["GE", "NYU", "UMASS"],
         "modern": ["GTT", "DyGIE++", "IterX-bert-base"], "nugget_rates": [0.2, 0.4],
         "nugget_seeds": 1, "amr": False, "temporal": False}

COLUMNS = ("kind", "panel", "metric", "alignment", "system", "system_b", "documents", "f1",
           "f1_exact", "delta", "delta_exact", "ci_lo", "ci_hi", "p_bootstrap",
           "p_randomization", "p_exact", "significant", "significant_exact", "holm_exact",
           "flipped", "verdict_changed", "rank", "rank_exact", "docs_below", "secondary",
           "value", "range_min", "range_max", "docs_tied", "document", "gap", "changes",
           "removed", "added", "proven", "samples", "seed", "error")
FIGURES = ("robustness.png",)

TOL = 1e-9
#: The nugget attribute combinations tested (v1.8's plain and the combined type+realis score).
NUGGET_COMBINATIONS = ("plain", "mention_type+realis_status")
NUGGET_HEURISTICS = ("kbp", "kbp-gold-order", "pilot2015")
#: Attribute scores on the exact span mapping whose co-optimal range is reported.
SPAN_FIRST_SECONDARY = {"mention_type": "type TP", "realis_status": "realis TP",
                        "mention_type+realis_status": "type+realis TP"}


# --------------------------------------------------------------------------------------------
# per-document counts of each system under each alignment (one unit per system)
# --------------------------------------------------------------------------------------------
def _entry(panel, metric, system, documents, counts, heuristics, proven, **extra) -> dict:
    """One system of one data set: ``counts[alignment]`` is its ``(n, 4)`` per-document count
    list (:mod:`exactalign.significance`), ``documents`` their ids (the same for every
    system of the panel)."""
    return {"panel": panel, "metric": metric, "system": system, "documents": list(documents),
            "counts": {a: np.asarray(c, dtype=np.float64).reshape(-1, 4).tolist()
                       for a, c in counts.items()},
            "heuristics": list(heuristics), "proven": bool(proven),
            "ranges": extra.get("ranges", []), "witnesses": extra.get("witnesses", [])}


def _pairs_text(pairs) -> str:
    return " ".join(f"{int(i)}:{int(j)}" for i, j in np.asarray(pairs).reshape(-1, 2))


def _muc1992(root: Path, test_set: str, system: str) -> list[dict]:
    """A 1992 system on a test set: per-message (credit, ACT, credit, POS) under the scorer's
    greedy mapping (``muc1992``) and the alignment of maximum message F; the COR/PAR range of
    each message over its optimal alignments; a witness per message below the optimum."""
    from exactalign.io import muc4 as io
    from exactalign.metrics import muc4
    from exactalign.metrics.muc4.guidelines import Judge

    key_p, _, hist_p, _ = muc4_1992_paths(root, test_set, "GE")
    keys, history = muc4_1992_keys(key_p, hist_p)
    _, resp_p, _, _ = muc4_1992_paths(root, test_set, system)
    resps = io.by_message(io.read_templates(resp_p))
    counts = {"muc1992": [], "exact": []}
    lo = dict.fromkeys(("COR", "PAR"), 0.0)
    hi, own = dict(lo), dict(lo)
    tied, witnesses, proven = 0, [], True
    for msg, ks in keys.items():
        full = muc4.message_table(msg, ks, resps.get(msg, []), Judge(msg, history), "muc1992",
                                  content=False)
        t = muc4.restrict_content(full)
        greedy = muc4.align_muc1992(t)
        exact, status, _ = muc4.align_exact(t)
        proven &= status is Status.OPTIMAL
        cg, cx = full.counts(greedy), full.counts(exact)
        if cg.f1 > cx.f1 + TOL:
            raise ExperimentError(f"{system} {test_set} {msg}: the 1992 mapping's F {cg.f1} "
                                  f"beats the proven optimum {cx.f1}")
        counts["muc1992"].append((cg.credit, cg.ACT, cg.credit, cg.POS))
        counts["exact"].append((cx.credit, cx.ACT, cx.credit, cx.POS))
        rng = muc4.co_optimal_counts(t, exact)
        tied += any(a != b for a, b in rng.values())
        for f, (a, b) in rng.items():
            if not a - TOL <= getattr(cx, f) <= b + TOL:
                raise ExperimentError(f"{system} {test_set} {msg}: the optimum's {f} "
                                      f"{getattr(cx, f)} outside its co-optimal range {a, b}")
            lo[f] += a
            hi[f] += b
            own[f] += getattr(cx, f)
        if cx.f1 - cg.f1 > TOL:
            w = muc4.witness(t, exact, greedy)
            if abs(full.counts([tuple(p) for p in w.optimal]).f1 - cx.f1) > TOL:
                raise ExperimentError(f"{system} {test_set} {msg}: the witness is not optimal")
            witnesses.append({"document": msg, "alignment": "muc1992",
                              "gap": 100 * (cx.f1 - cg.f1), "changes": w.changes,
                              "removed": _pairs_text(w.remove), "added": _pairs_text(w.add)})
    ranges = [{"secondary": f, "value": own[f], "range_min": lo[f], "range_max": hi[f],
               "docs_tied": tied} for f in ("COR", "PAR")]
    return [_entry(f"muc4-1992 {test_set}", "MUC F (ALL TEMPLATES)", system, list(keys),
                   counts, ["muc1992"], proven, ranges=ranges, witnesses=witnesses)]


def _gtt(root: Path, system: str) -> list[dict]:
    """A GTT-format system: per-document counts of GTT template F1 (GTT's search, greedy,
    exact) and CEAF-RME φ_subset (IterX's assignment, greedy, exact)."""
    from exactalign.io import gtt
    from exactalign.metrics import templates

    gold = gtt_gold(root / GTT_TEST)
    pred = gtt.read_predictions(root / "muc4" / MUC4_MODERN[system])
    out = []
    for panel, metric, score_fn, methods in (
            ("muc4-gtt template F1", "GTT template F1",
             functools.partial(templates.score_gtt, gold, pred), templates.GTT_METHODS),
            ("muc4-gtt CEAF-RME", "CEAF-RME φ_subset F1",
             functools.partial(templates.ceaf_rme, gold, pred), templates.RME_METHODS)):
        res = {m: score_fn(m) for m in methods}
        exact = res["exact"]
        docs = [d.docid for d in exact.docs]
        counts = {m: [(d.counts.precision_num, d.counts.precision_den, d.counts.recall_num,
                       d.counts.recall_den) for d in s.docs] for m, s in res.items()}
        witnesses = []
        for m, s in res.items():
            for a, b in zip(s.docs, exact.docs, strict=True):
                if a.f1 > b.f1 + TOL:
                    raise ExperimentError(f"{system} {a.docid}: {m} F1 beats exact")
                if m != "exact" and b.f1 - a.f1 > TOL:
                    # F1 is a ratio: the changes to the solver's optimum (an upper bound on
                    # the fewest changes to some optimum)
                    mine = {tuple(p) for p in np.asarray(a.alignment).reshape(-1, 2).tolist()}
                    best = {tuple(p) for p in np.asarray(b.alignment).reshape(-1, 2).tolist()}
                    witnesses.append({"document": a.docid, "alignment": m,
                                      "gap": 100 * (b.f1 - a.f1),
                                      "changes": len(mine ^ best),
                                      "removed": _pairs_text(sorted(mine - best)),
                                      "added": _pairs_text(sorted(best - mine))})
        out.append(_entry(panel, metric, system, docs, counts,
                          [m for m in methods if m != "exact"],
                          exact.status is Status.OPTIMAL, witnesses=witnesses))
    return out


def _nugget(unit: dict) -> list[dict]:
    """A nugget system (ACE-2005 dev system, a perturbed system or a seeded perturbation of
    the gold): per-document (TP, N_S, TP, N_G) of each combination under v1.8's greedy, the
    gold-order and pilot-study mappings and exact; the attribute scores of the exact span
    mapping over its ties; a witness per document below the optimum (plain)."""
    from exactalign.metrics import nugget
    from exactalign.problems import bipartite

    gold, system, tables = nugget_gap.load(unit)
    mappings = (*NUGGET_HEURISTICS, "exact")
    ev = nugget.evaluate(gold, system, mappings=mappings, token_tables=tables)
    exact = ev.scores["exact"]
    docs = [d for d in exact.documents if d.valid]
    ids = [d.doc_id for d in docs]
    out = []
    for c in NUGGET_COMBINATIONS:
        counts, witnesses = {}, []
        for m in mappings:
            sc = ev.scores[m]
            counts[m] = []
            for dx in docs:
                d = sc.document(dx.doc_id)
                tp, etp = d.tp(c), dx.tp(c)
                if dx.results[c].status is not Status.OPTIMAL:
                    raise ExperimentError(f"{unit['system']} {dx.doc_id}: exact not proven")
                if tp > etp + TOL:
                    raise ExperimentError(f"{unit['system']} {dx.doc_id}: {m} beats exact")
                counts[m].append((tp, d.n_system, tp, d.n_gold))
                if m != "exact" and etp - tp > TOL and c == "plain":
                    w = bipartite.witness(dx.instances[c], d.results[c].alignment)
                    if abs(w.gain - (etp - tp)) > 1e-6:
                        raise ExperimentError(f"{dx.doc_id}: witness gain {w.gain} is not the "
                                              f"gap {etp - tp}")
                    f, ef = d.prf(c).f1, dx.prf(c).f1
                    witnesses.append({"document": dx.doc_id, "alignment": m,
                                      "gap": 100 * (ef - f), "changes": w.changes,
                                      "removed": _pairs_text(w.remove),
                                      "added": _pairs_text(w.add)})
        ranges = _span_first_ranges(docs) if c == "plain" else []
        out.append(_entry(f"nugget {unit['group']} ({c})", "TAC KBP v1.8 F1", unit["system"],
                          ids, counts, NUGGET_HEURISTICS, True, ranges=ranges,
                          witnesses=witnesses))
    return out


def _span_first_ranges(docs) -> list[dict]:
    """Attribute TP scored on the exact span mapping (each gold mention keeps the Dice of its
    mapped system mention when the attributes agree): its value on the solver's mapping and
    ``[min, max]`` over every maximum-Dice span mapping, summed over documents."""
    from exactalign.problems import bipartite

    out = []
    for combo, label in SPAN_FIRST_SECONDARY.items():
        value = lo = hi = 0.0
        tied = 0
        for d in docs:
            plain, inst = d.instances["plain"], d.instances[combo]
            agree = set(zip(inst.rows.tolist(), inst.cols.tolist(), strict=True))
            sec = np.array([w if (r, c) in agree else 0.0 for r, c, w in
                            zip(plain.rows.tolist(), plain.cols.tolist(),
                                plain.weights.tolist(), strict=True)])
            al = np.asarray(d.results["plain"].alignment, dtype=np.int64).reshape(-1, 2)
            v = float(sec[plain.pair_index(al)].sum()) if len(al) else 0.0
            a, b = bipartite.co_optimal_range(plain, sec) if plain.num_pairs else (0.0, 0.0)
            if not a - 1e-6 <= v <= b + 1e-6:
                raise ExperimentError(f"{d.doc_id}: {label} {v} outside its range {a, b}")
            value, lo, hi = value + v, lo + a, hi + b
            tied += b - a > 1e-9
        out.append({"secondary": f"{label} (span-first)", "value": value, "range_min": lo,
                    "range_max": hi, "docs_tied": tied})
    return out


def _amr_temporal(root: Path, kind: str, seed: int, restarts: int) -> list[dict]:
    """The entries of the AMR parser (``kind="amr"``) or TimeML system panels; Smatch's
    documents below the optimum become witness rows (their gap; the variable mapping's changes
    are not listed)."""
    panels = (smatch_panels(root, seed=seed, restarts=restarts) if kind == "amr"
              else temporal_panels(root))
    out = []
    for p in panels:
        heur = p["heuristics"][0]
        for s in p["systems"]:
            witnesses = []
            for doc, got, best in p["witness"].get("below_optimum", {}).get(s, []):
                c = p["alignments"]["exact"][s][p["documents"].index(doc)]
                witnesses.append({"document": doc, "alignment": heur,
                                  "gap": 100 * float(score(np.array([got, c[1], got, c[3]]))
                                                     - score(np.array([best, c[1], best, c[3]])))
                                  * -1})
            out.append(_entry(p["dataset"], p["metric"], s, p["documents"],
                              {a: c[s] for a, c in p["alignments"].items()}, p["heuristics"],
                              p["proven"][s], witnesses=witnesses))
    return out


# --------------------------------------------------------------------------------------------
# AMR parsers and TimeML systems: whole data sets (one unit each)
# --------------------------------------------------------------------------------------------
SMATCH_DATASETS = {
    # dataset -> (gold file, [(system, test file)], interleave)
    # interleave=False: one test file per system, parallel to the gold file;
    # interleave=True: one test file whose graph 2k+j is system j's parse of sentence k, and a
    # gold file holding each gold graph once per system (Heidelberg-NLP/AMRParseEval: "first
    # parse is of BART based parser, second parse by T5 based parser").
    "amr/lpp-test-jamr-camr": ("lpp-test-jamr-camr/lp_test.txt",
                               [("JAMR", "lpp-test-jamr-camr/jamr.txt"),
                                ("CAMR", "lpp-test-jamr-camr/wang.txt")], False),
    "amr/lpp-two-parsers": ("lpp-two-parsers/tgt.test.amr",
                            [("BART", "lpp-two-parsers/src.test.amr"),
                             ("T5", "lpp-two-parsers/src.test.amr")], True),
}

TEMPORAL_DATASETS = {
    # dataset -> (gold dir, [(system, system dir)]); same runs as experiments/temporal_gap.SYSTEMS
    "temporal/tbdense-test": ("tbdense/td-test-gold-timeml",
                              [("CAEVO", "tbdense/td-test-sys-caevo"),
                               ("Ning17-CoDL", "tbdense/td-test-sys-ning17-codl")]),
    "temporal/te3-platinum": ("te3-platinum/gold",
                              [("ning17_SP+ILP", "te3-platinum/sys_ning17_SP+ILP"),
                               ("ning17_20_0.01_0.0", "te3-platinum/sys_ning17_20_0.01_0.0"),
                               ("ning17_0.6_1.4_1", "te3-platinum/sys_ning17_0.6_1.4_1")]),
}


def micro_f1(counts: np.ndarray) -> float:
    """Micro F1 of summed ``(n, 4)`` counts (as :func:`exactalign.significance.score`)."""
    return float(score(np.asarray(counts, np.float64).sum(0), "f1"))


# ------------------------------------------------------------------------------------- Smatch
_ID = re.compile(r"::id\s+(\S+)")


def _amr_ids(path: Path, graphs) -> list[str]:
    """The ``# ::id`` of each graph of an AMR file: from the comment lines just above the
    graph's first line (``AmrGraph.line``, the first non-comment line of its block), else
    ``#k`` (1-based graph number; JAMR and CAMR outputs carry no usable id)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    ids = []
    for k, g in enumerate(graphs):
        found = None
        i = g.line - 2  # 0-based index of the line above the graph
        while i >= 0 and lines[i].strip().startswith("#"):
            m = _ID.search(lines[i])
            if m:
                found = m.group(1)
            i -= 1
        ids.append(found if found is not None else f"#{k + 1}")
    return ids


def _unique(ids: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for i in ids:
        seen[i] = seen.get(i, 0) + 1
        out.append(i if seen[i] == 1 else f"{i}~{seen[i]}")
    return out


def _smatch_counts(pairs, restarts: int, seed: int):
    """``(exact counts (n, 4), hill-climbing counts (n, 4), proven (n,))`` of (test, gold)
    pairs, hill-climbing with one ``random.Random(seed)`` over the pairs in order."""
    from exactalign.metrics import smatch

    sc = smatch.score_pairs(pairs, method="both", restarts=restarts, seed=seed)
    test = np.array([p.test_triples for p in sc.pairs], np.float64)
    gold = np.array([p.gold_triples for p in sc.pairs], np.float64)
    ex = np.array([p.exact.objective for p in sc.pairs], np.float64)
    hc = np.array([p.hillclimb.objective for p in sc.pairs], np.float64)
    proven = np.array([p.exact.proven_optimal for p in sc.pairs], bool)
    # the project's corpus score: the summed (matched, test, gold), as smatch 1.0.4 sums them
    for method, m in (("exact", ex), ("hillclimb", hc)):
        want = sc.scores(method).f1
        got = micro_f1(np.stack([m, test, m, gold], 1))
        if abs(want - got) > 1e-12:
            raise ExperimentError(f"Smatch {method}: summed counts give {got}, not {want}")
    return np.stack([ex, test, ex, gold], 1), np.stack([hc, test, hc, gold], 1), proven


def smatch_panels(root: Path, seed: int = 0, restarts: int = 4) -> list[dict]:
    """One panel per AMR data set with >= 2 systems against one gold (module docstring)."""
    from exactalign.io.amr import read_amr

    amr = Path(root) / "amr"
    heur = f"hill-climbing -r{restarts}"
    panels = []
    for name, (gold_file, systems, interleave) in SMATCH_DATASETS.items():
        gold_graphs = read_amr(amr / gold_file)
        gold_ids = _amr_ids(amr / gold_file, gold_graphs)
        per_sys: dict[str, tuple] = {}
        if interleave:
            k = len(systems)
            test_graphs = read_amr(amr / systems[0][1])
            if len(test_graphs) != len(gold_graphs) or len(gold_graphs) % k:
                raise ExperimentError(f"{name}: {len(test_graphs)} test vs {len(gold_graphs)} gold "
                                 f"graphs, not {k} per sentence")
            for j in range(len(gold_graphs) // k):  # the gold repeated once per system
                if len({gold_graphs[k * j + s][:4] for s in range(k)}) != 1:
                    raise ExperimentError(f"{name}: the gold graphs of sentence {j} differ")
            ex, hc, pv = _smatch_counts(list(zip(test_graphs, gold_graphs, strict=True)),
                                        restarts, seed)
            docs = _unique(gold_ids[::k])
            for s, (sys_name, _) in enumerate(systems):
                per_sys[sys_name] = (ex[s::k], hc[s::k], pv[s::k])
        else:
            docs = _unique(gold_ids)
            for sys_name, test_file in systems:
                test_graphs = read_amr(amr / test_file)
                per_sys[sys_name] = _smatch_counts(
                    list(zip(test_graphs, gold_graphs, strict=True)), restarts, seed)
        exact, heuristic, proven, witness = {}, {}, {}, {}
        for sys_name, (ex, hc, pv) in per_sys.items():
            above = np.flatnonzero(hc[:, 0] > ex[:, 0])
            if len(above):
                k = int(above[0])
                raise ExperimentError(f"{name} {sys_name} {docs[k]}: hill-climbing matched "
                                     f"{hc[k, 0]:g} > exact {ex[k, 0]:g}")
            exact[sys_name] = np.ascontiguousarray(ex, np.float64)
            heuristic[sys_name] = np.ascontiguousarray(hc, np.float64)
            proven[sys_name] = bool(pv.all())
            witness[sys_name] = [(docs[k], float(hc[k, 0]), float(ex[k, 0]))
                                 for k in np.flatnonzero(hc[:, 0] < ex[:, 0])]
        panels.append({"dataset": name, "metric": "Smatch F1", "documents": docs,
                       "systems": [s for s, _ in systems],
                       "alignments": {"exact": exact, heur: heuristic},
                       "heuristics": [heur], "proven": proven,
                       "witness": {"below_optimum": witness,
                                   "note": "(document, hill-climbing matched, exact matched) "
                                           "where hill-climbing ends below the optimum",
                                   "seed": seed, "restarts": restarts}})
    return panels


# ----------------------------------------------------------------------------------- temporal
def temporal_panels(root: Path) -> list[dict]:
    """One panel per TimeML gold set with >= 2 systems (module docstring)."""
    from exactalign.io.timeml import read_timeml_dir
    from exactalign.metrics import temporal as tm

    base = Path(root) / "temporal"
    panels = []
    for name, (gold_dir, systems) in TEMPORAL_DATASETS.items():
        gold = read_timeml_dir(base / gold_dir)
        docs = sorted(gold)  # score_corpus's order
        counts = {"te3": {}, "exact": {}}
        proven, witness, notes = {}, {}, {}
        for sys_name, sys_dir in systems:
            system = read_timeml_dir(base / sys_dir)
            per_mode = {}
            for mode in ("te3", "exact"):
                sc = tm.score_corpus(gold, system, mode)
                if [d.doc_id for d in sc.documents] != docs:
                    raise ExperimentError(f"{name} {sys_name} {mode}: documents out of order")
                c = np.array([[d.prec_matched, d.sys_total, d.rec_matched, d.gold_total]
                              for d in sc.documents], np.float64)
                got = micro_f1(c)
                if abs(got - sc.f1) > 1e-12:
                    raise ExperimentError(f"{name} {sys_name} {mode}: summed counts give "
                                          f"{got}, not {sc.f1}")
                counts[mode][sys_name] = c
                per_mode[mode] = sc
            proven[sys_name] = all(d.notes.get("gold_status") == "optimal"
                                   and d.notes.get("system_status") == "optimal"
                                   for d in per_mode["exact"].documents)
            diff = np.flatnonzero((counts["te3"][sys_name] != counts["exact"][sys_name])
                                  .any(1))
            witness[sys_name] = [docs[k] for k in diff]
            notes[sys_name] = {
                "te3_set_aside": sum(d.notes.get("system_set_aside", 0)
                                     for d in per_mode["te3"].documents),
                "exact_dropped": sum(d.notes.get("system_dropped", 0)
                                     for d in per_mode["exact"].documents)}
        panels.append({"dataset": name,
                       "metric": "temporal awareness F1 (te3: the toolkit's link sets)",
                       "documents": docs, "systems": [s for s, _ in systems],
                       "alignments": {"exact": counts["exact"], "te3": counts["te3"]},
                       "heuristics": ["te3"], "proven": proven,
                       "witness": {"counts_differ": witness,
                                   "system_links_set_aside_or_dropped": notes,
                                   "note": "documents whose te3 and exact counts differ; "
                                           "system links te3 sets aside vs exact drops"}})
    return panels


def units(config: dict) -> list[dict]:
    data = resolve_data_dir()
    pilot = data.available
    root = str(data.path) if pilot else None
    out: list[dict] = []
    if pilot and (data.path / "muc4").is_dir():
        out += [{"source": "muc1992", "test_set": t, "system": s, "root": root}
                for t in config["sets"] for s in config["systems_1992"]]
        out += [{"source": "gtt", "system": s, "root": root} for s in config["modern"]]
    nug = pilot and (data.path / "nugget").is_dir()
    if nug and config["nugget_systems"]:
        out.append({"source": "nugget", "group": "ace-dev", "system": "system",
                    "gold": "nugget/ace-dev/gold.tbf", "sys": "nugget/ace-dev/system.tbf",
                    "tkn": None})
        out += [{"source": "nugget", "group": "ace-dev", "system": f"perturbed{k}",
                 "gold": "nugget/ace-dev/gold.tbf",
                 "sys": f"nugget/ace-dev/perturbed/system{k}.tbf", "tkn": None}
                for k in (1, 2, 3)  # made by the recipe ace-perturbed (exactalign.data.recipes)
                if (data.path / "nugget" / "ace-dev" / "perturbed" / f"system{k}.tbf").is_file()]
    group = "ace-dev-perturbed" if nug else "synthetic-perturbed"
    for rate in config["nugget_rates"]:
        for k in range(config["nugget_seeds"]):
            out.append({"source": "nugget", "group": group, "system": f"rate{rate:g}-seed{k}",
                        "gold": "nugget/ace-dev/gold.tbf" if nug else None, "profile": "all",
                        "rate": float(rate), "perturb_seed": config["seed"] * 1000 + k})
    if pilot and config["amr"] and (data.path / "amr").is_dir():
        out.append({"source": "amr", "system": "all", "root": root})
    if pilot and config["temporal"] and (data.path / "temporal").is_dir():
        out.append({"source": "temporal", "system": "all", "root": root})
    for u in out:
        u["seed"] = config["seed"]
        u["restarts"] = config["smatch_restarts"]
    return out


def run_unit(unit: dict) -> list[dict]:
    src = unit["source"]
    if src == "muc1992":
        return _muc1992(Path(unit["root"]), unit["test_set"], unit["system"])
    if src == "gtt":
        return _gtt(Path(unit["root"]), unit["system"])
    if src == "nugget":
        return _nugget(unit)
    return _amr_temporal(Path(unit["root"]), src, unit["seed"], unit["restarts"])


# --------------------------------------------------------------------------------------------
# the tests
# --------------------------------------------------------------------------------------------
def _holm(p: list[float], alpha: float) -> list[bool]:
    """Holm's step-down rejections of a family of p-values at level ``alpha``."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    out = [False] * len(p)
    for k, i in enumerate(order):
        if p[i] >= alpha / (len(p) - k):
            break
        out[i] = True
    return out


def _ranks(f1: dict[str, float]) -> dict[str, int]:
    return {s: k for k, s in enumerate(sorted(f1, key=lambda s: (-f1[s], s)), 1)}


def _panel_rows(entries: list[dict], config: dict) -> list[dict]:
    """The system, pair, range and witness rows of one data set."""
    seed, n, alpha = config["seed"], config["samples"], config["alpha"]
    first = entries[0]
    panel, metric = first["panel"], first["metric"]
    for e in entries:
        if e["documents"] != first["documents"]:
            raise ExperimentError(f"{panel}: {e['system']} is scored on other documents")
    by = {e["system"]: {a: np.asarray(c, dtype=np.float64).reshape(-1, 4)
                        for a, c in e["counts"].items()} for e in entries}
    systems = sorted(by)
    docs = len(first["documents"])
    base = {"panel": panel, "metric": metric, "documents": docs, "samples": n, "seed": seed}
    rows: list[dict] = []
    f1 = {a: {s: float(score(by[s][a].sum(0))) for s in systems}
          for a in ("exact", *first["heuristics"])}
    rank_x = _ranks(f1["exact"])
    for h in first["heuristics"]:
        rank_h = _ranks(f1[h])
        for e in entries:
            s = e["system"]
            a, x = by[s][h], by[s]["exact"]
            below = int(np.count_nonzero(score(x) - score(a) > TOL))
            boot = paired_bootstrap(a, x, n_resamples=n, seed=seed)
            ar = approximate_randomization(a, x, n_trials=n, seed=seed)
            rows.append({**base, "kind": "system", "alignment": h, "system": s,
                         "f1": boot.a, "f1_exact": boot.b, "delta": boot.delta,
                         "ci_lo": boot.ci[3][0], "ci_hi": boot.ci[3][1],
                         "p_bootstrap": boot.p_value, "p_randomization": ar.p_value,
                         "significant": max(boot.p_value, ar.p_value) < alpha,
                         "rank": rank_h[s], "rank_exact": rank_x[s], "docs_below": below,
                         "proven": e["proven"]})
        pairs = []
        for i, sa in enumerate(systems):
            for sb in systems[i + 1:]:
                th = approximate_randomization(by[sa][h], by[sb][h], n_trials=n, seed=seed)
                tx = approximate_randomization(by[sa]["exact"], by[sb]["exact"], n_trials=n,
                                               seed=seed)
                flipped = np.sign(round(th.delta, 12)) != np.sign(round(tx.delta, 12))
                sig_h, sig_x = th.p_value < alpha, tx.p_value < alpha
                pairs.append({**base, "kind": "pair", "alignment": h, "system": sa,
                              "system_b": sb, "f1": th.a, "f1_exact": tx.a, "delta": th.delta,
                              "delta_exact": tx.delta, "p_randomization": th.p_value,
                              "p_exact": tx.p_value, "significant": sig_h,
                              "significant_exact": sig_x, "flipped": bool(flipped),
                              "verdict_changed": bool(flipped and (sig_h or sig_x))
                              or sig_h != sig_x})
        for r, holm in zip(pairs, _holm([r["p_exact"] for r in pairs], alpha), strict=True):
            r["holm_exact"] = holm
        rows += pairs
    for e in entries:
        for r in e["ranges"]:
            rows.append({**base, "kind": "range", "system": e["system"], **r})
        for w in e["witnesses"]:
            rows.append({**base, "kind": "witness", "system": e["system"], "documents": 1,
                         **w})
    return rows


def run(config: dict, *, jobs: int = 1, quiet: bool = False) -> list[dict]:
    per_unit = parallel_map(run_unit, units(config), jobs=jobs, desc=NAME, quiet=quiet,
                            key=lambda u: (u["source"], u.get("test_set"), u.get("group"),
                                           u["system"]))
    panels: dict[str, list[dict]] = {}
    for entries in per_unit:
        for e in entries:
            panels.setdefault(e["panel"], []).append(e)
    rows = []
    for entries in panels.values():
        if len(entries) < 2:
            continue
        rows += _panel_rows(entries, config)
    return [{c: r.get(c) for c in COLUMNS} for r in rows]


# --------------------------------------------------------------------------------------------
# summary, headline, figure (from the CSV alone)
# --------------------------------------------------------------------------------------------
def _by_kind(rows: list[dict], kind: str) -> list[dict]:
    return [r for r in rows if r["kind"] == kind]


def _groups(rows: list[dict]) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = {}
    for r in rows:
        out.setdefault((r["panel"], r["alignment"]), []).append(r)
    return out


def _p(x) -> str:
    return "–" if x is None else ("<0.001" if x < 0.001 else f"{x:.3f}")


def _trim(s, n: int = 40) -> str:
    s = "" if s is None else str(s)
    return s if len(s) <= n else s[:n - 1] + "…"


def summary(rows: list[dict]) -> str:
    systems, pairs = _by_kind(rows, "system"), _by_kind(rows, "pair")
    if not systems:
        return "No data set with two or more systems was scored."
    n, seed = systems[0]["samples"], systems[0]["seed"]
    out = [f"Paired tests over documents ({n:,} bootstrap resamples and {n:,} "
           f"approximate-randomization trials each, seed {seed}, α = 0.05, unadjusted unless "
           "said). *Below exact*: the system's corpus F under the heuristic is lower than under "
           "the proven optimum; *significant*: both tests give p < 0.05. A pair *flips* when "
           "the two systems' order differs between the heuristic and the exact alignment; its "
           "*verdict changes* when it flips or is significant under one alignment only.", "",
           "| data set | heuristic | systems | documents | below exact (significant) | "
           "mean ΔF, heuristic − exact (points) | largest shortfall | system pairs | flips | "
           "flips significant under exact | verdicts changed | significant under exact "
           "(Holm) |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    pg = _groups(pairs)
    for (panel, h), rs in _groups(systems).items():
        deltas = [100 * r["delta"] for r in rs]
        below = [r for r in rs if r["delta"] < -TOL]
        short = max(0.0, -min(deltas))
        ps = pg.get((panel, h), [])
        flips = [r for r in ps if r["flipped"]]
        out.append(f"| {panel} | {h} | {len(rs)} | {rs[0]['documents']:,} | {len(below)} "
                   f"({sum(1 for r in below if r['significant'])}) | "
                   f"{sum(deltas) / len(deltas) + 0.0:+.3f} | {short:.3f} | {len(ps)} | "
                   f"{len(flips)} "
                   f"| {sum(1 for r in flips if r['significant_exact'])} | "
                   f"{sum(1 for r in ps if r['verdict_changed'])} | "
                   f"{sum(1 for r in ps if r['significant_exact'])} "
                   f"({sum(1 for r in ps if r['holm_exact'])}) |")
    flips = [r for r in pairs if r["flipped"]]
    out += ["", f"**Rankings changed by the alignment: {len(flips)} of {len(pairs)} system pairs"
            f"** ({sum(1 for r in flips if r['significant_exact'])} of the flipped pairs differ "
            "significantly under the exact alignment)."]
    changed = [r for r in pairs if r["flipped"] or r["verdict_changed"]]
    if changed:
        out += ["", "Every pair whose order or significance (approximate randomization, "
                "p < 0.05) changes with the alignment:", "",
                "| data set | heuristic | A | B | ΔF(A−B) heuristic | p | ΔF(A−B) exact | p | "
                "order flips |", "|---|---|---|---|---:|---:|---:|---:|---|"]
        out += [f"| {r['panel']} | {r['alignment']} | {r['system']} | {r['system_b']} | "
                f"{100 * r['delta']:+.3f} | {_p(r['p_randomization'])} | "
                f"{100 * r['delta_exact']:+.3f} | {_p(r['p_exact'])} | "
                f"{'yes' if r['flipped'] else 'no'} |" for r in changed]
    ranges = _by_kind(rows, "range")
    if ranges:
        tied = [r for r in ranges if r["range_max"] - r["range_min"] > 1e-9]
        out += ["", "Secondary numbers over all co-optimal alignments (summed over documents; "
                "each document's [min, max] from two lexicographic solves): "
                f"{len(tied)} of {len(ranges)} (system, number) cells are not decided by the "
                "metric's optimum; those are listed (the rest have min = max).", "",
                "| data set | system | number | solver's optimum | min | max | spread | "
                "documents with a tie |", "|---|---|---|---:|---:|---:|---:|---:|"]
        for r in sorted(tied, key=lambda r: (r["panel"], r["secondary"], r["system"])):
            spread = r["range_max"] - r["range_min"]
            rel = f" ({100 * spread / r['range_max']:.1f}%)" if r["range_max"] else ""
            out.append(f"| {r['panel']} | {r['system']} | {r['secondary']} | {r['value']:.2f} "
                       f"| {r['range_min']:.2f} | {r['range_max']:.2f} | {spread:.2f}{rel} | "
                       f"{r['docs_tied']} |")
    wit = _by_kind(rows, "witness")
    if wit:
        worst = sorted(wit, key=lambda r: (-r["gap"], r["panel"], r["system"],
                                           str(r["document"])))[:12]
        out += ["", f"Worst documents ({len(wit):,} documents below the optimum in all; "
                "*changes*: the fewest pairs removed plus added that make the heuristic's "
                "alignment optimal, as (reference, system) item indices; GTT-format F1: the "
                "changes to the solver's optimum, an upper bound; Smatch: not listed):", "",
                "| data set | heuristic | system | document | F1 gap (points) | changes | "
                "removed | added |", "|---|---|---|---|---:|---:|---|---|"]
        out += [f"| {r['panel']} | {r['alignment']} | {r['system']} | {r['document']} | "
                f"{r['gap']:.2f} | {'–' if r['changes'] is None else r['changes']} | "
                f"{_trim(r['removed'])} | {_trim(r['added'])} |" for r in worst]
    return "\n".join(out)


def headline(rows: list[dict], meta: dict | None = None) -> dict:
    """The summary's line: system scores under each heuristic against exact, system pairs
    reordered."""
    from .runner import headline_record

    systems, pairs = _by_kind(rows, "system"), _by_kind(rows, "pair")
    gaps = [-100 * r["delta"] for r in systems if r["delta"] < -TOL]
    flips = [r for r in pairs if r["flipped"]]
    sig = sum(1 for r in systems if r["delta"] < -TOL and r["significant"])
    ranges = _by_kind(rows, "range")
    tied = sum(1 for r in ranges if r["range_max"] - r["range_min"] > 1e-9)
    panels = len({r["panel"] for r in systems})
    finding = (f"On {panels} multi-system data sets the heuristic alignment reorders "
               f"{len(flips)} of {len(pairs)} system pairs "
               f"({sum(1 for r in flips if r['significant_exact'])} of them significantly "
               f"different under exact); {sig} of {len(systems)} system scores are "
               f"significantly below their optimum; {tied} of {len(ranges)} secondary numbers "
               "are not decided by the optimum (co-optimal alignments differ).")
    return headline_record("each data set's heuristic", finding, unit="system scores",
                           instances=len(systems), below=len(gaps),
                           gap_mean=float(np.mean(gaps)) if gaps else None,
                           gap_max=max(gaps) if gaps else 0.0, gap_unit="F points",
                           rankings_changed=len(flips), rankings=len(pairs),
                           ranking_unit="system pairs")


def _short(panel: str) -> str:
    return (panel.replace("mention_type+realis_status", "type+realis")
            .replace("hill-climbing ", "hc "))


def figures(csv_path: Path, out_dir: Path) -> list[Path]:
    """Left: each system's ΔF (heuristic − exact, points) with its paired-bootstrap 95%
    interval, one row per (data set, heuristic). Right: the system pairs closest to a tie
    (|ΔF| under exact below 2 points), their difference under the heuristic against under
    exact; a pair off the shaded quadrants is ordered differently by the two alignments."""
    from . import plot
    from .runner import completed_rows

    rows = completed_rows(csv_path)
    systems, pairs = _by_kind(rows, "system"), _by_kind(rows, "pair")
    if not systems:
        return []
    plt = plot.pyplot()
    groups = list(_groups(systems).items())
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(plot.TEXT_WIDTH, max(3.0, 0.2 * len(groups))),
                                 gridspec_kw={"width_ratios": [1.25, 1]})
    labels = []
    for y, ((panel, h), rs) in enumerate(groups):
        d = np.array([100 * r["delta"] for r in rs])
        lo = np.array([100 * r["ci_lo"] for r in rs])
        hi = np.array([100 * r["ci_hi"] for r in rs])
        sig = np.array([bool(r["significant"]) for r in rs])
        yy = np.full(len(rs), len(groups) - 1 - y, dtype=float)
        a1.hlines(yy, lo, hi, color=plot.OKABE_ITO["sky blue"], lw=0.8, zorder=1)
        a1.scatter(d[~sig], yy[~sig], s=10, facecolor="white", edgecolor=plot.OKABE_ITO["blue"],
                   lw=0.8, zorder=2, label="not significant" if y == 0 else None)
        a1.scatter(d[sig], yy[sig], s=12, color=plot.OKABE_ITO["vermillion"], marker="D",
                   zorder=3, label="significant (p < 0.05)" if y == 0 else None)
        labels.append(f"{_short(panel)} · {_short(h)}")
    a1.axvline(0, color="0.5", lw=0.6)
    a1.set_yticks(range(len(groups)))
    a1.set_yticklabels(labels[::-1], fontsize=5.5)
    a1.set_ylim(-0.7, len(groups) - 0.3)
    a1.set_xlabel("ΔF = heuristic − exact (F points)\nwith 95% bootstrap interval")
    a1.set_title("a) each system", loc="left", fontsize=8)
    fig.legend(*a1.get_legend_handles_labels(), loc="lower left", ncol=2, fontsize=6,
               frameon=False, bbox_to_anchor=(0.0, 0.0))
    if pairs:
        lim = 2.0
        x = np.array([100 * r["delta_exact"] for r in pairs])
        y = np.array([100 * r["delta"] for r in pairs])
        near = np.abs(x) < lim
        fl = np.array([bool(r["flipped"]) for r in pairs])
        a2.fill_between([0, lim], 0, lim, color="0.92", lw=0)
        a2.fill_between([-lim, 0], -lim, 0, color="0.92", lw=0)
        a2.scatter(x[near & ~fl], y[near & ~fl], s=9, color=plot.OKABE_ITO["blue"], alpha=0.7,
                   label=f"same order ({int((near & ~fl).sum())})")
        a2.scatter(x[fl], y[fl], s=24, color=plot.OKABE_ITO["vermillion"], marker="X",
                   label=f"flipped ({int(fl.sum())})")
        for r, xi, yi in zip(pairs, x, y, strict=True):
            if r["flipped"]:
                a2.annotate(f"{r['system']}/{r['system_b']}", (xi, yi), fontsize=5.5,
                            xytext=(4, -8), textcoords="offset points")
        a2.plot([-lim, lim], [-lim, lim], color="0.6", lw=0.6)
        a2.axhline(0, color="0.5", lw=0.6)
        a2.axvline(0, color="0.5", lw=0.6)
        a2.set_xlim(-lim, lim)
        a2.set_ylim(-lim, lim)
        a2.set_xlabel("F(A) − F(B) under exact (points)")
        a2.set_ylabel("F(A) − F(B) under the heuristic (points)")
        a2.set_title(f"b) pairs within {lim:g} F points under exact", loc="left",
                     fontsize=8)
        a2.legend(loc="upper left", fontsize=6)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return [plot.save(fig, out_dir / FIGURES[0])]
