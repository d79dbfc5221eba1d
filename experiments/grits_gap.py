"""GriTS: how far grits-metric's factored 2D-MSS falls from the proven optimum, how tight its
bound is, and the exact solve's time against table size.

Three parts (column ``part``), one row per (table pair, variant):

* ``pilot``: the 20 PubTabNet predictions of the pilot (``tables/pubtabnet/sample_pred.json``)
  against their gold tables (Top, Con);
* ``perturbed``: every gold table of the pilot (the 20 of ``sample_gt.json`` and the 20 annotated
  ones of ``PubTabNet_Examples.jsonl``, which carry boxes: Top, Con and Loc) against seeded
  structural perturbations of itself (:mod:`exactalign.perturb.tables`, every error class at
  ``rate``), ``replicates`` per rate; without pilot data, synthetic gold tables instead
  (:func:`synthetic_table`);
* ``scale``: synthetic tables of ``rows x cols`` (up to the issue's 50 x 15) against their
  perturbations at ``scale_rate``: the time of the factored and the exact solution against the
  number of grid positions.

Columns: the shapes, ``cells`` (true positions), the factored ``tp`` (grits-metric 0.7.0, bit
for bit), the proven optimum ``exact_tp`` (branch and bound, :mod:`exactalign.problems.mss2d`),
the bound GriTS reports (``bound_tp``, always ``min(row score, column score)`` or, after a
shortcut, the factored ``tp``) and the F1 of each, ``gap_f1 = exact_f1 - factored_f1`` (F1
points x 100 in the summary), ``slack_f1 = bound_f1 - exact_f1``; ``shortcut`` (which early exit
of grits-metric ended the factored solution), ``nodes``, times.

Invariants (:class:`~experiments.runner.ExperimentError`): every exact solve is proven optimal;
``factored <= exact <= bound`` on every row (the ceiling rule).

Ranking: the pilot model and the perturbation rates are "systems" over the 20 gold tables of
``sample_gt.json``; the summary ranks them by corpus (micro) GriTS, factored and exact, and
counts the system pairs whose order differs.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from exactalign.data import resolve_data_dir
from exactalign.io.tables import Cell, Table, make_table, read_tables
from exactalign.metrics import grits as gm
from exactalign.perturb.tables import TableErrors, perturb

from . import plot
from .runner import ExperimentError, parallel_map

NAME = "grits_gap"
DESCRIPTION = ("GriTS (table structure): grits-metric's factored 2D-MSS vs the proven optimum "
               "on the pilot PubTabNet predictions and seeded structural perturbations; the "
               "bound's slack; exact vs factored time against table size up to 50 x 15.")
DATA_SOURCE = ("pilot tables/pubtabnet (20 predictions, 40 gold tables) when present, else "
               "synthetic gold tables; synthetic tables for the scale part (always)")
#: The pilot paths read (their provenance digest goes into meta.json).
#: runner's provenance digest selects registry files, and the registry has no tables yet).
DATA_READS = ("tables/pubtabnet",)
SEEDING = ("perturbation of gold table t of source s at rate r, replicate k: "
           "numpy.random.default_rng([seed, s, t, round(1000 r), k]); synthetic gold tables "
           "default_rng([seed, 7, rows, cols, k]); scale perturbations default_rng([seed, 8, "
           "rows, cols, k])")

FULL = {"seed": 0, "rates": [0.05, 0.1, 0.2, 0.3], "replicates": 3,
        "scale_shapes": [[10, 5], [20, 8], [30, 10], [40, 12], [50, 15]],
        "scale_replicates": 3, "scale_rate": 0.1, "synthetic_tables": 20,
        "exact_time_limit": 600.0}
QUICK = {**FULL, "rates": [0.1], "replicates": 1, "scale_shapes": [[10, 5], [50, 15]],
         "scale_replicates": 1, "synthetic_tables": 4}

COLUMNS = ("part", "source", "table", "rate", "replicate", "variant", "true_rows", "true_cols",
           "pred_rows", "pred_cols", "cells", "factored_tp", "exact_tp", "bound_tp",
           "factored_f1", "exact_f1", "bound_f1", "gap_f1", "slack_f1", "shortcut", "status",
           "proven_optimal", "nodes", "factored_s", "exact_s", "applied", "error")

TOL = 1e-9
PILOT = "tables/pubtabnet"
SOURCES = ("sample_gt.json", "PubTabNet_Examples.jsonl")


def synthetic_table(rows: int, cols: int, rng: np.random.Generator, name: str) -> Table:
    """A numeric table: a header row of column names, a first column of row labels, numbers
    elsewhere; some header cells span two columns."""
    cells = []
    j = 0
    while j < cols:
        span = 2 if j > 0 and j + 1 < cols and rng.random() < 0.2 else 1
        cells.append(Cell(0, 1, j, j + span, f"col {j}", None, True))
        j += span
    for i in range(1, rows):
        cells.append(Cell(i, i + 1, 0, 1, f"row {i}"))
        for j in range(1, cols):
            cells.append(Cell(i, i + 1, j, j + 1, f"{rng.random() * 100:.{1 + i % 3}f}"))
    return make_table(name, cells)


def _rows_of(unit, gold: Table, pred: Table, variants, applied="") -> list[dict]:
    cfg = unit["config"]
    out = []
    for v in variants:
        W = gm.reward_tensor(gold.grid(v), pred.grid(v), v)
        t0 = time.perf_counter()
        fac = gm.factored(W)
        tf = time.perf_counter() - t0
        from exactalign.problems import mss2d

        t0 = time.perf_counter()
        ex = mss2d.solve(mss2d.Mss2dInstance(W), "bnb", incumbent=(fac.rows, fac.cols),
                         bound=fac.bound, time_limit=cfg["exact_time_limit"])
        te = time.perf_counter() - t0
        label = f"{unit['part']} {unit.get('source')} {gold.name} {v}"
        if not ex.proven_optimal:
            raise ExperimentError(f"{label}: exact 2D-MSS not proven ({ex.status.value})")
        if fac.tp > ex.objective + TOL * max(1, ex.objective) or \
                ex.objective > fac.package_bound + TOL * max(1, ex.objective):
            raise ExperimentError(f"{label}: ceiling rule broken: factored {fac.tp!r}, exact "
                                  f"{ex.objective!r}, bound {fac.package_bound!r}")
        f_f = gm.fscore(fac.tp, gold.size, pred.size)[0]
        f_e = gm.fscore(ex.objective, gold.size, pred.size)[0]
        f_b = gm.fscore(fac.package_bound, gold.size, pred.size)[0]
        out.append({"part": unit["part"], "source": unit.get("source"), "table": gold.name,
                    "rate": unit.get("rate"), "replicate": unit.get("replicate"), "variant": v,
                    "true_rows": gold.n_rows, "true_cols": gold.n_cols,
                    "pred_rows": pred.n_rows, "pred_cols": pred.n_cols, "cells": gold.size,
                    "factored_tp": fac.tp, "exact_tp": ex.objective,
                    "bound_tp": fac.package_bound, "factored_f1": f_f, "exact_f1": f_e,
                    "bound_f1": f_b, "gap_f1": _clean(f_e - f_f), "slack_f1": _clean(f_b - f_e),
                    "shortcut": fac.shortcut or "", "status": ex.status.value,
                    "proven_optimal": ex.proven_optimal, "nodes": ex.nodes,
                    "factored_s": tf, "exact_s": te, "applied": applied})
    return out


def _clean(x: float) -> float:
    """``x``, with float noise around 0 (|x| < 1e-12: sums in different orders) as 0."""
    return 0.0 if abs(x) < 1e-12 else x


def _golds(config) -> list[tuple[str, list[Table]]]:
    d = resolve_data_dir()
    if d.available and (d.path / PILOT / SOURCES[0]).is_file():
        return [(s, list(read_tables(d.path / PILOT / s).values())) for s in SOURCES]
    rng_tables = [synthetic_table(int(4 + k % 9), int(3 + k % 5),
                                  np.random.default_rng([config["seed"], 7, k]), f"syn{k}")
                  for k in range(config["synthetic_tables"])]
    return [("synthetic", rng_tables)]


def _unit(unit: dict) -> list[dict]:
    cfg = unit["config"]
    if unit["part"] == "pilot":
        d = resolve_data_dir().path / PILOT
        gold = read_tables(d / "sample_gt.json")[unit["table"]]
        pred = read_tables(d / "sample_pred.json")[unit["table"]]
        return _rows_of(unit, gold, pred, gm.variants_of("all", gold, pred))
    if unit["part"] == "perturbed":
        golds = dict(_golds(cfg))[unit["source"]]
        gold = golds[unit["index"]]
        s = SOURCES.index(unit["source"]) if unit["source"] in SOURCES else 9
        rng = np.random.default_rng([cfg["seed"], s, unit["index"],
                                     round(1000 * unit["rate"]), unit["replicate"]])
        p = perturb(gold, TableErrors.structural(unit["rate"]), rng)
        applied = " ".join(f"{k}={v}" for k, v in sorted(p.applied.items()))
        return _rows_of(unit, gold, p.table, gm.variants_of("all", gold, p.table), applied)
    rows_, cols_ = unit["shape"]
    gold = synthetic_table(rows_, cols_, np.random.default_rng(
        [cfg["seed"], 7, rows_, cols_, unit["replicate"]]), f"syn{rows_}x{cols_}")
    p = perturb(gold, TableErrors.structural(cfg["scale_rate"]),
                np.random.default_rng([cfg["seed"], 8, rows_, cols_, unit["replicate"]]))
    applied = " ".join(f"{k}={v}" for k, v in sorted(p.applied.items()))
    return _rows_of(unit, gold, p.table, ("top", "con"), applied)


def units(config: dict) -> list[dict]:
    out = []
    d = resolve_data_dir()
    if d.available and (d.path / PILOT / SOURCES[0]).is_file():
        names = list(read_tables(d.path / PILOT / "sample_gt.json"))
        out += [{"part": "pilot", "source": "sample_pred.json", "table": n, "config": config}
                for n in names]
    for source, tables in _golds(config):
        out += [{"part": "perturbed", "source": source, "index": k, "rate": r,
                 "replicate": rep, "config": config}
                for r in config["rates"] for k in range(len(tables))
                for rep in range(config["replicates"])]
    out += [{"part": "scale", "source": "synthetic", "shape": list(s), "replicate": rep,
             "config": config}
            for s in config["scale_shapes"] for rep in range(config["scale_replicates"])]
    return out


def _cells(unit: dict) -> dict:
    return {k: unit.get(k) for k in ("part", "source", "rate", "replicate")}


def run(config: dict, *, jobs: int = 1, quiet: bool = False) -> list[dict]:
    per_unit = parallel_map(_unit, units(config), jobs=jobs, desc=NAME, quiet=quiet,
                            cells=_cells)
    return [{c: r.get(c) for c in COLUMNS} for u in per_unit for r in u]


# ------------------------------------------------------------------------------------------
# summary, headline, figures (from the CSV rows only)
# ------------------------------------------------------------------------------------------
def _groups(rows):
    key = {}
    for r in rows:
        if r["part"] == "scale":
            continue
        rate = "real" if r["part"] == "pilot" else f"{r['rate']:g}"
        key.setdefault((r["part"], r["source"] if r["part"] == "perturbed" else "pilot model",
                        rate, r["variant"]), []).append(r)
    return key


def _system_scores(rows) -> dict:
    """(system, method) -> micro F1 over the sample_gt tables, for each variant."""
    out: dict = {}
    for r in rows:
        if r["part"] == "pilot":
            system = "pilot model"
        elif r["part"] == "perturbed" and r["source"] == SOURCES[0] and r["replicate"] == 0:
            system = f"perturbed {r['rate']:g}"
        else:
            continue
        for m in ("factored", "exact"):
            acc = out.setdefault((r["variant"], system, m), [0.0, 0, 0])
            acc[0] += r[f"{m}_tp"]
            acc[1] += r["cells"]
            acc[2] += r["pred_rows"] * r["pred_cols"]
    return {k: gm.fscore(*v)[0] for k, v in out.items()}


def rankings(rows) -> tuple[int, int, list[str]]:
    """(system pairs ordered differently by factored and exact GriTS, system pairs, lines)."""
    sc = _system_scores(rows)
    changed = total = 0
    lines = []
    for v in dict.fromkeys(k[0] for k in sc):
        systems = sorted({k[1] for k in sc if k[0] == v})
        for i, a in enumerate(systems):
            for b in systems[i + 1:]:
                total += 1
                df = sc[(v, a, "factored")] - sc[(v, b, "factored")]
                de = sc[(v, a, "exact")] - sc[(v, b, "exact")]
                if np.sign(df) != np.sign(de):
                    changed += 1
                    lines.append(f"{v}: {a} vs {b}")
    return changed, total, lines


def summary(rows: list[dict]) -> str:
    out = ["Factored 2D-MSS (grits-metric 0.7.0) against the proven optimum, per table pair "
           "and variant: pairs where factored < exact, the gap in F1 points (mean over those "
           "pairs, max), the slack of GriTS's bound over the optimum (mean, max, F1 points), "
           "and pairs proven.", "",
           "| part | source | rate | variant | pairs | factored < exact | gap mean | gap max "
           "| bound slack mean | slack max | proven |", "|---|---|---:|---|" + "---:|" * 7]
    for (part, source, rate, v), sel in _groups(rows).items():
        below = [100 * r["gap_f1"] for r in sel if r["gap_f1"] > TOL]
        slack = [100 * r["slack_f1"] for r in sel]
        out.append(f"| {part} | {source} | {rate} | {v} | {len(sel)} | {len(below)} | "
                   f"{np.mean(below) if below else 0:.3f} | {max(below, default=0):.3f} | "
                   f"{np.mean(slack):.3f} | {max(slack):.3f} | "
                   f"{sum(bool(r['proven_optimal']) for r in sel)}/{len(sel)} |")
    changed, total, lines = rankings(rows)
    if total:
        out += ["", f"Systems ranked by corpus GriTS (micro, the 20 gold tables of "
                f"sample_gt.json; the pilot model and one perturbation per rate): "
                f"{changed} of {total} system pairs ordered differently by factored and exact"
                + (": " + "; ".join(lines) if lines else ".")]
    sc = [r for r in rows if r["part"] == "scale"]
    if sc:
        out += ["", "Time against table size (synthetic tables and their perturbations at the "
                "scale rate): mean and max seconds of the factored and the exact solution.", "",
                "| shape | variant | pairs | factored s | exact s (mean) | exact s (max) | "
                "nodes (max) |", "|---|---|---:|---:|---:|---:|---:|"]
        for shape in dict.fromkeys((r["true_rows"], r["true_cols"]) for r in sc):
            for v in ("top", "con"):
                s = [r for r in sc if (r["true_rows"], r["true_cols"]) == shape
                     and r["variant"] == v]
                if s:
                    out.append(f"| {shape[0]} x {shape[1]} | {v} | {len(s)} | "
                               f"{np.mean([r['factored_s'] for r in s]):.3f} | "
                               f"{np.mean([r['exact_s'] for r in s]):.3f} | "
                               f"{max(r['exact_s'] for r in s):.3f} | "
                               f"{max(r['nodes'] for r in s)} |")
    return "\n".join(out) + "\n"


def headline(rows: list[dict], meta: dict | None = None) -> dict:
    main = [r for r in rows if r["part"] in ("pilot", "perturbed")]
    below = [100 * r["gap_f1"] for r in main if r["gap_f1"] > TOL]
    pilot = [r for r in rows if r["part"] == "pilot"]
    pb = sum(1 for r in pilot if r["gap_f1"] > TOL)
    changed, total, _ = rankings(rows)
    sc = [r for r in rows if r["part"] == "scale"]
    big = max((r["exact_s"] for r in sc if r["true_rows"] * r["true_cols"] >= 750),
              default=None)
    finding = (f"The factored 2D-MSS is below the proven optimum on {len(below)} of "
               f"{len(main)} table pairs x variants ({pb} of {len(pilot)} on the pilot model's "
               "real predictions); every pair proven, none above GriTS's bound")
    if big is not None:
        finding += f"; 50 x 15 tables proven in at most {big:.2f} s"
    return {"heuristic": "factored 2D-MSS (grits-metric)", "unit": "table pairs x variants",
            "instances": len(main), "below": len(below),
            "gap_mean": float(np.mean(below)) if below else None,
            "gap_max": max(below) if below else 0.0, "gap_unit": "F1 points",
            "rankings_changed": changed, "rankings": total, "ranking_unit": "system pairs",
            "finding": finding + "."}


FIGURES = ("gap_vs_rate.png", "time_vs_cells.png")
PILOT_FIGURES = ()


def figures(csv_path: Path, out_dir: Path) -> list[Path]:
    """``gap_vs_rate``: per variant, the share of perturbed pairs where factored < exact and
    the mean gap, against the perturbation rate; ``time_vs_cells``: factored and exact time
    against the number of true grid positions (every row)."""
    from .runner import completed_rows

    plt = plot.pyplot()
    rows = completed_rows(csv_path)
    out_dir = Path(out_dir)
    written = []
    pert = [r for r in rows if r["part"] == "perturbed"]
    fig, axes = plot.panels(plt, 2, ncols=2, height=2.4)
    rates = sorted({r["rate"] for r in pert})
    for k, v in enumerate(("top", "con", "loc")):
        share, gap = [], []
        for rate in rates:
            sel = [r for r in pert if r["variant"] == v and r["rate"] == rate]
            g = [100 * r["gap_f1"] for r in sel if r["gap_f1"] > TOL]
            share.append(100 * len(g) / len(sel) if sel else np.nan)
            gap.append(np.mean(g) if g else 0.0)
        if any(np.isfinite(share)):
            st = plot.series_style(k)
            axes[0].plot(rates, share, label=f"GriTS-{v.capitalize()}", **st)
            axes[1].plot(rates, gap, label=f"GriTS-{v.capitalize()}", **st)
    axes[0].set_ylabel("pairs with factored < exact [%]")
    axes[1].set_ylabel("mean gap where below [F1 points]")
    for ax in axes:
        ax.set_xlabel("perturbation rate")
        ax.set_ylim(bottom=0)
    plot.legend_below(fig, ax=axes[0], ncol=3)
    written.append(plot.save(fig, out_dir / "gap_vs_rate.png"))
    fig, ax = plt.subplots(figsize=(plot.COLUMN_WIDTH, 2.6), layout="constrained")
    for k, (col, label) in enumerate((("factored_s", "factored (grits-metric)"),
                                      ("exact_s", "exact (branch and bound)"))):
        ax.scatter([r["cells"] for r in rows], [max(r[col], 1e-4) for r in rows], s=6,
                   label=label, color=plot.colour(k), alpha=0.6)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("true grid positions (cells)")
    ax.set_ylabel("time per table pair [s]")
    plot.legend_below(fig, ax=ax, ncol=2)
    written.append(plot.save(fig, out_dir / "time_vs_cells.png"))
    return written
