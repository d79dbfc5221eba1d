"""Monotone (order-preserving) matching: formulation size and time, and the heuristics' gap, on
random DAGs and on the pilot event timelines.

Two parts (column ``part``).

* ``synthetic``: random pairs of DAGs from :func:`make_instance` -- ``n`` items a side, an edge
  between two reference items with probability ``density`` (oriented by a hidden random total
  order), the predicted DAG the image of the same edges under a hidden bijection, oriented by a
  noisy copy of the hidden order (position + ``noise * n`` Gaussian jitter, so some pairs
  cross); candidates: the hidden partner (weight U(0.5, 1)) and ``degree - 1`` random predicted
  items (U(0, 1)) per reference item. One row per (instance, method): ``ilp-compact`` (the exact
  method), ``ilp-grid`` (up to ``grid_max_n``), ``ilp-pairwise`` (skipped above
  ``pairwise_max_rows`` pair rows; its size is still recorded), and the heuristics ``greedy``,
  ``linext``, ``local``. ``model_rows``/``model_nnz`` is the formulation's size;
  ``metametric_rows`` the number of rows the public implementation (metametric
  ``MonotonicityConstraintBuilder``: one row per *ordered* pair of candidates whose reflexive
  reachabilities differ) would build, and ``metametric_dense_cells`` its dense matrix
  (rows x ``n*n`` columns). ``lp_compact``/``lp_pairwise`` are the LP bounds.
* ``timeline``: the pilot TimeML timelines (:mod:`exactalign.metrics.timeline`), one row per
  (system run, document, method): the exact monotone matching of the event partial orders
  (``dag``, must be proven optimal), the monotone heuristics, the sequence DP and the
  unconstrained assignment; ``recovered`` of the ``truth`` id-based pairs. ``gold`` runs are
  each reference against itself (a sanity check: every event matched).

``time_s`` is the wall time of one ``solve`` call (model building and verification included);
``fallback`` the number of solver routes that failed verification before its answer
(``Result.fallback``; 0 normally). A unit (synthetic instance, timeline run) that raises is one
row with its ``error``.
``abs_gap = exact - objective``, ``rel_gap = abs_gap / exact``.

Invariants (:class:`~experiments.runner.ExperimentError`): every formulation that proves
optimality agrees with the compact one; no heuristic beats a proven optimum; the compact LP bound
is at least the optimum and at most the pairwise LP bound; each reference matched against itself
scores its number of events; the exact timeline matching is proven optimal on every document.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from exactalign.core.errors import ModelTooLargeError
from exactalign.data import resolve_data_dir
from exactalign.io.timeml import read_timeml_dir
from exactalign.metrics import timeline as tl
from exactalign.problems import monotone as mo
from exactalign.problems.bipartite import BipartiteInstance

from . import plot
from .runner import ExperimentError, fallback_count, parallel_map

NAME = "monotone_gap"
DESCRIPTION = ("Order-preserving matching: compact chain ILP vs the pairwise crossing ILP (size, "
               "time) and greedy/linear-extension/local-search gaps on random DAGs (n = 20..200) "
               "and on pilot event timelines matched without ids.")
DATA_SOURCE = ("synthetic random DAG pairs (always); pilot temporal/ TimeML (te3-platinum and "
               "tbdense gold and system runs) for the timeline part, skipped without pilot data")
#: The paths under the data directory this experiment reads (its meta.json records their digest).
DATA_READS = ("temporal/te3-platinum", "temporal/tbdense")
SEEDING = ("instance (n, density, replicate) from numpy.random.default_rng([seed, n, "
           "round(1000 * density), replicate]); timeline system events shuffled with "
           "default_rng([seed, document index]); local search seeded with `seed`; HiGHS "
           "threads=1, seed 0")

TOL = 1e-6
FORMULATION_METHODS = {"ilp-compact": "compact", "ilp-grid": "grid",
                       "ilp-pairwise": "pairwise"}
HEURISTICS = ("greedy", "linext", "local")
SYN_METHODS = (*FORMULATION_METHODS, *HEURISTICS)

#: Timeline sets: run -> (reference directory, system directory), under the pilot temporal/.
RUNS = {
    "te3-platinum/gold": ("te3-platinum/gold", "te3-platinum/gold"),
    "te3-platinum/ning17_SP+ILP": ("te3-platinum/gold", "te3-platinum/sys_ning17_SP+ILP"),
    "te3-platinum/ning17_20_0.01_0.0": ("te3-platinum/gold",
                                        "te3-platinum/sys_ning17_20_0.01_0.0"),
    "te3-platinum/ning17_0.6_1.4_1": ("te3-platinum/gold", "te3-platinum/sys_ning17_0.6_1.4_1"),
    "tbdense/gold": ("tbdense/td-test-gold-timeml", "tbdense/td-test-gold-timeml"),
    "tbdense/caevo": ("tbdense/td-test-gold-timeml", "tbdense/td-test-sys-caevo"),
    "tbdense/ning17_codl": ("tbdense/td-test-gold-timeml", "tbdense/td-test-sys-ning17-codl"),
}

FULL = {
    "seed": 0,
    "sizes": [20, 50, 100, 200],
    "densities": [0.05, 0.2],
    "replicates": 2,
    "degree": 5,
    "noise": 0.1,
    "ilp_time_limit": 60.0,
    "grid_max_n": 50,
    "pairwise_max_rows": 40_000,
    "runs": list(RUNS),
}
QUICK = {**FULL, "sizes": [20, 50], "replicates": 1,
         "runs": ["te3-platinum/gold", "te3-platinum/ning17_SP+ILP"]}

COLUMNS = (
    "part", "run", "document", "n", "density", "replicate", "instance_seed", "n_ref", "n_pred",
    "num_pairs", "ref_links", "pred_links", "method", "formulation", "skipped", "skip_reason",
    "status", "proven_optimal", "objective", "bound", "exact_objective", "abs_gap", "rel_gap",
    "time_s", "model_rows", "model_cols", "model_nnz", "lp_compact", "lp_pairwise",
    "metametric_rows", "metametric_dense_cells", "matched", "recovered", "truth",
    "truth_monotone", "fallback", "error",
)


# ------------------------------------------------------------------------------------------
# synthetic instances
# ------------------------------------------------------------------------------------------
def make_instance(n: int, density: float, degree: int, noise: float,
                  rng: np.random.Generator) -> mo.MonotoneInstance:
    """A random pair of DAGs on ``n`` items each (module docstring)."""
    hidden = rng.permutation(n)  # hidden[i]: position of reference item i
    iu, ju = np.triu_indices(n, 1)
    keep = rng.random(len(iu)) < density
    pos_order = np.argsort(hidden)  # item at each position
    ea = np.stack([pos_order[iu[keep]], pos_order[ju[keep]]], axis=1)
    partner = rng.permutation(n)  # hidden bijection reference -> predicted
    pos_b = np.empty(n)
    pos_b[partner] = hidden + noise * n * rng.standard_normal(n)
    eb = partner[ea]
    flip = pos_b[eb[:, 0]] > pos_b[eb[:, 1]]
    eb[flip] = eb[flip][:, ::-1]
    rows = np.concatenate([np.arange(n), np.repeat(np.arange(n), degree - 1)])
    cols = np.concatenate([partner, rng.integers(0, n, n * (degree - 1))])
    w = np.concatenate([rng.uniform(0.5, 1.0, n), rng.uniform(0.0, 1.0, n * (degree - 1))])
    first = np.unique(rows * n + cols, return_index=True)[1]  # a partner drawn twice: first
    pairs = BipartiteInstance(n, n, rows[first], cols[first], w[first])
    return mo.MonotoneInstance(mo.Order.from_edges(n, ea), mo.Order.from_edges(n, eb), pairs)


def metametric_rows(inst: mo.MonotoneInstance) -> int:
    """Rows of metametric's monotonicity constraint: ordered pairs of distinct candidates with
    ``reach_x[u0, u1] != reach_y[v0, v1]`` (reachability reflexive)."""
    p = inst.pairs
    total = 0
    step = max(1, 2_000_000 // max(inst.num_pairs, 1))
    for lo in range(0, inst.num_pairs, step):
        e = np.arange(lo, min(lo + step, inst.num_pairs))[:, None]
        f = np.arange(inst.num_pairs)[None, :]
        ra = inst.ref.less[p.rows[e], p.rows[f]] | (p.rows[e] == p.rows[f])
        rb = inst.pred.less[p.cols[e], p.cols[f]] | (p.cols[e] == p.cols[f])
        total += int(((ra != rb) & (e != f)).sum())
    return total


def _model_size(inst, formulation, max_rows):
    try:
        m = (mo.pairwise_model(inst, max_rows=max_rows) if formulation == "pairwise"
             else mo.ilp_model(inst, formulation))
    except ModelTooLargeError:
        return None
    return m


def run_synthetic(unit: dict) -> list[dict]:
    n, d, rep, cfg = unit["n"], unit["density"], unit["replicate"], unit["config"]
    seed = [cfg["seed"], n, round(1000 * d), rep]
    inst = make_instance(n, d, cfg["degree"], cfg["noise"], np.random.default_rng(seed))
    label = f"synthetic n={n} density={d} replicate={rep}"
    base = {"part": "synthetic", "run": "synthetic", "n": n, "density": d, "replicate": rep,
            "instance_seed": "-".join(map(str, seed)), "n_ref": n, "n_pred": n,
            "num_pairs": inst.num_pairs, "ref_links": len(inst.ref.hasse),
            "pred_links": len(inst.pred.hasse), "metametric_rows": metametric_rows(inst)}
    base["metametric_dense_cells"] = base["metametric_rows"] * n * n
    results, models, skip = {}, {}, {}
    for method, f in FORMULATION_METHODS.items():
        model = _model_size(inst, f, cfg["pairwise_max_rows"] * 50)
        models[method] = model
        too_big = model is None or (f == "pairwise" and
                                    model.num_rows > cfg["pairwise_max_rows"])
        if f == "grid" and n > cfg["grid_max_n"]:
            skip[method] = f"n {n} > grid_max_n {cfg['grid_max_n']}"
        elif too_big:
            rows = "more than 50x the limit" if model is None else f"{model.num_rows:,}"
            skip[method] = f"{rows} rows > pairwise_max_rows {cfg['pairwise_max_rows']:,}"
        else:
            results[method] = mo.solve(inst, "ilp", formulation=f,
                                       time_limit=cfg["ilp_time_limit"], seed=0)
    for h in HEURISTICS:
        results[h] = mo.solve(inst, h, seed=cfg["seed"])
    exact = results["ilp-compact"]
    lp_c = mo.lp_bound(inst, "compact")
    lp_p = mo.lp_bound(inst, "pairwise") if "ilp-pairwise" in results else None
    _check_synthetic(label, results, lp_c, lp_p)
    base.update(exact_objective=exact.objective if exact.proven_optimal else None,
                lp_compact=lp_c, lp_pairwise=lp_p)
    rows = []
    for method in SYN_METHODS:
        row = dict(base, method=method, formulation=FORMULATION_METHODS.get(method))
        model = models.get(method)
        if model is not None:
            row.update(model_rows=model.num_rows, model_cols=model.num_vars,
                       model_nnz=int(model.A.nnz))
        r = results.get(method)
        if r is None:
            row.update(skipped=True, skip_reason=skip[method])
        else:
            row.update(_result_cells(r, base["exact_objective"]), skipped=False)
        rows.append(row)
    return rows


def _result_cells(r, exact_objective) -> dict:
    gap = None if exact_objective is None else exact_objective - r.objective
    return {"status": r.status.value, "proven_optimal": r.proven_optimal,
            "objective": r.objective, "bound": r.bound, "abs_gap": gap,
            "rel_gap": None if gap is None else (gap / exact_objective if exact_objective
                                                 else 0.0),
            "time_s": r.wall_time, "matched": len(r.alignment), "fallback": fallback_count(r)}


def _check_synthetic(label, results, lp_c, lp_p) -> None:
    exact = results["ilp-compact"]
    opt = exact.objective if exact.proven_optimal else None
    for m, r in results.items():
        if opt is None:
            continue
        if m in FORMULATION_METHODS and r.proven_optimal and abs(r.objective - opt) > TOL:
            raise ExperimentError(f"{label}: {m} optimum {r.objective!r} != compact {opt!r}")
        if m in HEURISTICS and r.objective > opt + TOL:
            raise ExperimentError(f"{label}: {m} reaches {r.objective!r} > optimum {opt!r}")
    if opt is not None and lp_c < opt - TOL:
        raise ExperimentError(f"{label}: compact LP bound {lp_c!r} below the optimum {opt!r}")
    if lp_p is not None and lp_c > lp_p + TOL:
        raise ExperimentError(f"{label}: compact LP bound {lp_c!r} above pairwise {lp_p!r}")


# ------------------------------------------------------------------------------------------
# pilot timelines
# ------------------------------------------------------------------------------------------
def run_timelines(unit: dict) -> list[dict]:
    cfg, run = unit["config"], unit["run"]
    base_dir = resolve_data_dir().require("temporal")
    gold_dir, sys_dir = RUNS[run]
    gold = read_timeml_dir(base_dir / gold_dir)
    system = read_timeml_dir(base_dir / sys_dir)
    corpus = tl.match_corpus(gold, system, time_limit=cfg["ilp_time_limit"], seed=cfg["seed"])
    rows = []
    for d in corpus.documents:
        exact = d.results["dag"]
        label = f"timeline {run} {d.doc_id}"
        if not exact.proven_optimal:
            raise ExperimentError(f"{label}: exact matching not proven ({exact.status.value})")
        if run.endswith("/gold") and abs(exact.objective - d.gold.n) > TOL:
            raise ExperimentError(f"{label}: reference against itself scores "
                                  f"{exact.objective!r}, not {d.gold.n}")
        base = {"part": "timeline", "run": run, "document": d.doc_id, "n_ref": d.gold.n,
                "n_pred": d.system.n, "num_pairs": d.pairs.num_pairs,
                "ref_links": d.gold.links, "pred_links": d.system.links,
                "exact_objective": exact.objective, "truth": len(d.truth),
                "truth_monotone": d.truth_monotone, "model_rows": exact.details.get("rows"),
                "model_cols": exact.details.get("cols"),
                "model_nnz": exact.details.get("nonzeros")}
        for m, r in d.results.items():
            if m.startswith("dag-") and r.objective > exact.objective + TOL:
                raise ExperimentError(f"{label}: {m} beats the exact matching")
            row = dict(base, method=m, skipped=False, recovered=d.recovered[m],
                       formulation="compact" if m == "dag" else None)
            row.update(_result_cells(r, exact.objective if m.startswith("dag") else None))
            rows.append(row)
    return rows


# ------------------------------------------------------------------------------------------
# run
# ------------------------------------------------------------------------------------------
def _unit(unit: dict) -> list[dict]:
    return run_synthetic(unit) if unit["part"] == "synthetic" else run_timelines(unit)


def units(config: dict) -> list[dict]:
    out = [{"part": "synthetic", "n": n, "density": d, "replicate": rep, "config": config}
           for n in sorted(config["sizes"], reverse=True) for d in config["densities"]
           for rep in range(config["replicates"])]
    if resolve_data_dir().available:
        unknown = [r for r in config["runs"] if r not in RUNS]
        if unknown:
            raise ValueError(f"unknown timeline run {unknown[0]!r}; known: " + ", ".join(RUNS))
        out += [{"part": "timeline", "run": r, "config": config} for r in config["runs"]]
    return out


def _cells(unit: dict) -> dict:
    """The identifying columns of a unit's error row."""
    if unit["part"] == "synthetic":
        return {"part": "synthetic", "run": "synthetic", "n": unit["n"],
                "density": unit["density"], "replicate": unit["replicate"]}
    return {"part": "timeline", "run": unit["run"]}


def run(config: dict, *, jobs: int = 1, quiet: bool = False) -> list[dict]:
    """Rows of both parts: synthetic sorted by (density, n, replicate, method), then the
    timeline runs in config order."""
    per_unit = parallel_map(_unit, units(config), jobs=jobs, desc=NAME, quiet=quiet,
                            cells=_cells)
    rows = [{c: r.get(c) for c in COLUMNS} for u in per_unit for r in u]
    m_order = {m: i for i, m in enumerate((*SYN_METHODS, *tl.METHODS))}
    r_order = {r: i for i, r in enumerate(config["runs"])}
    rows.sort(key=lambda r: (r["part"] != "synthetic", r_order.get(r["run"], -1),
                             r["density"] or 0, r["n"] or 0, r["replicate"] or 0,
                             r["document"] or "", m_order[r["method"]]))
    return rows


# ------------------------------------------------------------------------------------------
# summary and figures (from CSV rows only)
# ------------------------------------------------------------------------------------------
def _mean(vals):
    vals = [v for v in vals if v is not None and v != ""]
    return float(np.mean(vals)) if vals else None


def _fmt(v, spec=",.0f"):
    return "–" if v is None else format(v, spec)


def summary(rows: list[dict]) -> str:
    out = []
    syn = [r for r in rows if r["part"] == "synthetic"]
    if syn:
        out += ["Random DAG pairs: model size (rows / nonzeros, mean over seeds), relative gap "
                "of the LP bound to the optimum, and solve time [s] of the compact chain ILP vs "
                "the pairwise crossing ILP (and metametric's dense rows); relative gap of the "
                "heuristics (mean, max).", "",
                "| density | n | pairs | compact rows/nnz | pairwise rows/nnz | metametric rows "
                "(dense cells) | LP gap compact | LP gap pairwise | compact s | pairwise s | "
                "grid s | greedy gap | linext gap | local gap |", "|" + "---:|" * 14]
        for d in sorted({r["density"] for r in syn}):
            for n in sorted({r["n"] for r in syn}):
                sel = [r for r in syn if r["density"] == d and r["n"] == n]
                by = {m: [r for r in sel if r["method"] == m] for m in SYN_METHODS}

                def size(m, by=by):
                    return (f"{_fmt(_mean(r['model_rows'] for r in by[m]))} / "
                            f"{_fmt(_mean(r['model_nnz'] for r in by[m]))}")

                def secs(m, by=by):
                    done = [r for r in by[m] if not r["skipped"]]
                    if not done:
                        return "skipped"
                    t = _fmt(_mean(r["time_s"] for r in done), ".2f")
                    return t + ("*" if any(not r["proven_optimal"] for r in done) else "")

                def gap(m, by=by):
                    g = [r["rel_gap"] for r in by[m] if r["rel_gap"] not in (None, "")]
                    return f"{100 * np.mean(g):.2f}% ({100 * np.max(g):.2f}%)" if g else "–"

                def lp_gap(col, by=by):
                    g = [(r[col] - r["exact_objective"]) / r["exact_objective"]
                         for r in by["ilp-compact"] if r[col] not in (None, "")
                         and r["exact_objective"] not in (None, "", 0)]
                    return f"{100 * np.mean(g):.2f}%" if g else "–"

                mm = by["greedy"][0]
                out.append(f"| {d:g} | {n} | {_fmt(_mean(r['num_pairs'] for r in by['greedy']))}"
                           f" | {size('ilp-compact')} | {size('ilp-pairwise')} | "
                           f"{_fmt(mm['metametric_rows'])} ({mm['metametric_dense_cells']:.2g})"
                           f" | {lp_gap('lp_compact')} | {lp_gap('lp_pairwise')}"
                           f" | {secs('ilp-compact')} | {secs('ilp-pairwise')} | "
                           f"{secs('ilp-grid')} | {gap('greedy')} | {gap('linext')} | "
                           f"{gap('local')} |")
        out += ["", "`*` not proven optimal within the time limit; `skipped`: see "
                "`skip_reason` in rows.csv (the pairwise model's size is still recorded).", ""]
    tim = [r for r in rows if r["part"] == "timeline"]
    if tim:
        out += ["Pilot timelines, events matched by text and class without ids: order-aware "
                "P/R/F1 (exact monotone weight over system / reference events, micro), "
                "documents proven optimal, and id-based pairs recovered by each method.", "",
                "| run | docs | P | R | F1 | proven | " + " | ".join(tl.METHODS)
                + " | truth monotone |", "|---|" + "---:|" * (6 + len(tl.METHODS))]
        for run_ in dict.fromkeys(r["run"] for r in tim):
            sel = [r for r in tim if r["run"] == run_]
            ex = [r for r in sel if r["method"] == "dag"]
            score = sum(r["objective"] for r in ex)
            p = score / max(1, sum(r["n_pred"] for r in ex))
            rc = score / max(1, sum(r["n_ref"] for r in ex))
            f = 2 * p * rc / (p + rc) if p + rc else 0.0
            truth = sum(r["truth"] for r in ex)
            rec = [f"{100 * sum(r['recovered'] for r in sel if r['method'] == m) / truth:.1f}%"
                   if truth else "–" for m in tl.METHODS]
            out.append(f"| {run_} | {len(ex)} | {100 * p:.2f} | {100 * rc:.2f} | {100 * f:.2f} "
                       f"| {sum(bool(r['proven_optimal']) for r in ex)}/{len(ex)} | "
                       + " | ".join(rec)
                       + f" | {sum(bool(r['truth_monotone']) for r in ex)}/{len(ex)} |")
        out.append("")
        out += _timeline_gaps(tim)
    elif out:
        out += ["No pilot timeline rows (pilot data absent): only the synthetic random DAG "
                "pairs above.", ""]
    return "\n".join(out) + "\n" if out else "No rows.\n"


#: The heuristics of the DAG timelines, whose shortfall on the pilot documents is tabulated.
TIMELINE_HEURISTICS = ("dag-greedy", "dag-linext", "dag-local")


def _timeline_gaps(tim: list[dict]) -> list[str]:
    """Per pilot run: for each heuristic on the DAG timelines, the documents where it ends below
    the proven optimum, the corpus shortfall (summed objective) and the largest relative gap of
    a document."""
    out = ["Pilot timelines, the heuristics against the proven optimum (DAG order): documents "
           "below it, corpus shortfall (1 - heuristic / exact, summed monotone weight) and the "
           "largest relative gap of a document.", "",
           "| run | docs | " + " | ".join(TIMELINE_HEURISTICS) + " |",
           "|---|---:|" + "---:|" * len(TIMELINE_HEURISTICS)]
    for run_ in dict.fromkeys(r["run"] for r in tim):
        sel = [r for r in tim if r["run"] == run_]
        exact = {r["document"]: r["objective"] for r in sel if r["method"] == "dag"}
        total = sum(exact.values())
        cells = []
        for m in TIMELINE_HEURISTICS:
            hs = [r for r in sel if r["method"] == m]
            below = sum(1 for r in hs if r["objective"] < exact[r["document"]] - 1e-9)
            short = 1 - sum(r["objective"] for r in hs) / total if total else 0.0
            worst = max((r["rel_gap"] or 0.0 for r in hs), default=0.0)
            cells.append(f"{below}/{len(hs)}, {100 * short:.1f}% (max {100 * worst:.1f}%)")
        out.append(f"| {run_} | {len(exact)} | " + " | ".join(cells) + " |")
    return out + [""]


def headline(rows: list[dict], meta: dict | None = None) -> dict:
    """The summary's line: greedy against the proven optimum on the random DAG pairs (gap in %
    of the optimum); local search, linear extension and the pilot timelines in the finding."""
    syn = [r for r in rows if r["part"] == "synthetic"]
    greedy = [r for r in syn if r["method"] == "greedy" and r["rel_gap"] is not None]
    below = [100 * r["rel_gap"] for r in greedy if r["rel_gap"] > TOL]

    def mean_gap(m):
        g = [r["rel_gap"] for r in syn if r["method"] == m and r["rel_gap"] is not None]
        return f"{m} {100 * np.mean(g):.1f}%" if g else None

    parts = []
    if greedy:
        parts.append(f"Greedy order-preserving matching loses "
                     f"{100 * np.mean([r['rel_gap'] for r in greedy]):.1f}% of the optimum on "
                     "random DAG pairs on average ("
                     + ", ".join(x for x in map(mean_gap, HEURISTICS[1:]) if x) + ")")
    tim = [r for r in rows if r["part"] == "timeline"]
    if tim:
        exact = {(r["run"], r["document"]): r["objective"] for r in tim if r["method"] == "dag"}
        dg = [r for r in tim if r["method"] == "dag-greedy"]
        n_below = sum(1 for r in dg if r["objective"] < exact[(r["run"], r["document"])] - 1e-9)
        worst = max((r["rel_gap"] or 0.0 for r in dg), default=0.0)
        parts.append(f"on pilot event timelines it falls short on {n_below} of {len(dg)} "
                     f"documents (up to {100 * worst:.1f}%)")
    finding = "; ".join(parts) + "." if parts else "No heuristic rows."
    return {"heuristic": "greedy (random DAGs)", "unit": "instances",
            "instances": len(greedy), "below": len(below),
            "gap_mean": float(np.mean(below)) if below else None,
            "gap_max": max(below) if below else 0.0, "gap_unit": "%",
            "finding": finding[0].upper() + finding[1:]}


_OI = plot.OKABE_ITO
STYLE = {"ilp-compact": dict(color=_OI["blue"], marker="o"),
         "ilp-pairwise": dict(color=_OI["sky blue"], marker="s"),
         "ilp-grid": dict(color=_OI["bluish green"], marker="P"),
         "greedy": plot.STYLE["greedy"], "linext": plot.STYLE["pilot2015"],
         "local": plot.STYLE["ref-order"],
         "metametric": dict(color=_OI["black"], marker="x", linestyle=":")}
#: Legend labels of the methods.
LABELS = {"ilp-compact": "compact chain ILP", "ilp-pairwise": "pairwise crossing ILP",
          "ilp-grid": "grid ILP", "greedy": "greedy", "linext": "linear extension",
          "local": "local search", "metametric": "metametric (dense rows)"}
#: Timeline methods: exact ones blue, heuristics warm, the unordered reference black.
TIMELINE_STYLE = {"dag": _OI["blue"], "dag-greedy": _OI["vermillion"],
                  "dag-linext": _OI["reddish purple"], "dag-local": _OI["orange"],
                  "sequence": _OI["sky blue"], "unconstrained": _OI["black"]}

FIGURES = ("time_vs_n.png", "size_vs_n.png", "gap_vs_n.png", "timeline_recovery.png")
#: Figures of the pilot-only timeline part: a labelled placeholder when the data is absent.
PILOT_FIGURES = ("timeline_recovery.png",)


def figures(csv_path: Path, out_dir: Path) -> list[Path]:
    """``time_vs_n``, ``size_vs_n`` and ``gap_vs_n`` (random DAG pairs, one panel per edge
    density, mean over seeds with a min..max band) and ``timeline_recovery`` (pilot timelines:
    id-based pairs each method recovers), each as PNG, PDF and SVG."""
    from matplotlib.ticker import NullLocator

    from .runner import completed_rows

    plt = plot.pyplot()
    rows = completed_rows(csv_path)
    syn = [r for r in rows if r["part"] == "synthetic"]
    out_dir = Path(out_dir)
    written = []
    if syn:
        dens = sorted({r["density"] for r in syn})
        sizes = sorted({r["n"] for r in syn})
        for fname, methods, value, ylabel, log in (
                ("time_vs_n.png", SYN_METHODS, lambda r: None if r["skipped"] else r["time_s"],
                 "solve time per instance [s]", True),
                ("size_vs_n.png", tuple(FORMULATION_METHODS) + ("metametric",), None,
                 "constraint rows of the model", True),
                ("gap_vs_n.png", HEURISTICS,
                 lambda r: None if r["rel_gap"] is None else 100 * r["rel_gap"],
                 "gap to the optimum [% of exact]", False)):
            fig, axes = plot.panels(plt, len(dens), ncols=2, height=2.4, sharey=True)
            for ax, d in zip(axes, dens, strict=True):
                sel = [r for r in syn if r["density"] == d]
                for m in methods:
                    if m == "metametric":
                        st = plot.stats_by((r for r in sel if r["method"] == "greedy"),
                                           lambda r: r["n"], lambda r: r["metametric_rows"])
                    elif value is None:
                        st = plot.stats_by((r for r in sel if r["method"] == m),
                                           lambda r: r["n"], lambda r: r["model_rows"])
                    else:
                        st = plot.stats_by((r for r in sel if r["method"] == m),
                                           lambda r: r["n"], value)
                    plot.line_with_band(ax, sizes, st, LABELS.get(m, m), STYLE.get(m))
                if log:
                    ax.set_yscale("log")
                else:
                    ax.set_ylim(bottom=0)
                ax.set_xscale("log")
                ax.set_xticks(sizes, [str(s) for s in sizes])
                ax.xaxis.set_minor_locator(NullLocator())
                ax.set_xlabel("events per DAG (n)")
                ax.set_title(f"edge density {d:g}")
            axes[0].set_ylabel(ylabel)
            plot.legend_below(fig, ax=axes[0], ncol=3)
            written.append(plot.save(fig, out_dir / fname))
    tim = [r for r in rows if r["part"] == "timeline"]
    if not tim:
        fig, ax = plt.subplots(figsize=(plot.COLUMN_WIDTH, 1.2))
        ax.axis("off")
        ax.text(0.5, 0.5, "no pilot timeline rows (pilot data absent)", ha="center")
        written.append(plot.save(fig, out_dir / "timeline_recovery.png"))
    else:
        runs = list(dict.fromkeys(r["run"] for r in tim))
        fig, ax = plt.subplots(figsize=(plot.TEXT_WIDTH, 3.0), layout="constrained")
        width = 0.8 / len(tl.METHODS)
        for k, m in enumerate(tl.METHODS):
            vals = []
            for run_ in runs:
                sel = [r for r in tim if r["run"] == run_ and r["method"] == m]
                truth = sum(r["truth"] for r in sel)
                vals.append(100 * sum(r["recovered"] for r in sel) / truth if truth else 0.0)
            ax.bar(np.arange(len(runs)) + (k - len(tl.METHODS) / 2 + 0.5) * width, vals,
                   width, label=m, color=TIMELINE_STYLE.get(m, plot.colour(k)))
        ax.set_xticks(np.arange(len(runs)), [r.replace("/", " / ", 1) for r in runs],
                      rotation=20, ha="right", rotation_mode="anchor", fontsize=7.5)
        ax.grid(False, axis="x")
        ax.set_ylabel("id-based event pairs recovered [%]")
        ax.set_ylim(0, 100)
        plot.legend_below(fig, ax=ax, ncol=6, title="matching method")
        written.append(plot.save(fig, out_dir / "timeline_recovery.png"))
    return written
