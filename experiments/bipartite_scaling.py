"""How exact 1:1 bipartite matching scales against the greedy heuristics scorers use.

Random sparse instances from :func:`exactalign.synthetic.random_bipartite` (``size`` items a
side, about ``degree`` candidates per item, weights ``uniform`` on (0, 1] or ``dice`` values of
random token spans), several seeds per size, kind 1:1. Every instance is solved by

* ``exact``      ``bipartite.solve(inst, "exact")`` -- the assignment special path (LSA / sparse
                 Jonker-Volgenant per component), proven optimal by the algorithm;
* ``ilp``        ``bipartite.solve(inst, "ilp", backend=...)`` -- HiGHS, one thread, seed 0,
                 warm-started from greedy; skipped (and recorded as skipped) above
                 ``ilp_max_size``;
* each heuristic of ``bipartite.HEURISTICS`` (``greedy``, ``pilot2015``, ``ref-order``).

One row per (instance, method). ``time_s`` is the wall time of the whole ``bipartite.solve``
call (verification by the checker included, the same for every method), the best of ``repeats``
runs for sizes up to ``repeat_max_size`` and a single run above; ``ilp_build_s`` is the time of
``bipartite.ilp_model(inst)`` alone (on every row of the instance, measured even when the ILP
solve is skipped). ``abs_gap = exact - objective`` and ``rel_gap = abs_gap / exact``.
``fallback`` is the number of solver routes that failed verification before the method's answer
(``Result.fallback``; 0 normally). An instance that raises is one row with its ``error``.

Invariants checked on every instance (a violation raises :class:`ExperimentError`, so the run
fails and writes nothing): no heuristic exceeds the exact value by more than :data:`TOL`; the
ILP's objective equals the exact value within :data:`TOL` when it proves optimality (and never
exceeds it, nor its bound falls below it, otherwise); the exact result is proven optimal; every
repeat returns the same objective.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from exactalign import synthetic
from exactalign.problems import bipartite

from . import plot
from .runner import ExperimentError, fallback_count, parallel_map

NAME = "bipartite_scaling"
DESCRIPTION = ("Exact 1:1 matching (assignment special path and HiGHS ILP) vs the greedy "
               "heuristics on random sparse instances of 10 to 5,000 items a side: time and "
               "optimality gap.")
DATA_SOURCE = ("synthetic only: exactalign.synthetic.random_bipartite (this experiment never "
               "reads pilot data, even when a data directory is present)")
#: The paths under the data directory this experiment reads (its meta.json records their digest).
DATA_READS = ()
SEEDING = ("instance (weights, size, replicate) is drawn from numpy.random.default_rng([seed, "
           "size, replicate]) -- pairs first, then weights, so both weight distributions share "
           "the candidate graph of a (size, replicate); the ILP runs with solver seed 0 and "
           "threads=1")

#: Absolute tolerance of the invariants (objectives are recomputed sums of float weights).
TOL = 1e-6

HEURISTICS = tuple(bipartite.HEURISTICS)
METHODS = ("exact", "ilp", *HEURISTICS)

FULL = {
    "seed": 0,
    "sizes": [10, 30, 100, 300, 1000, 2000, 5000],
    "replicates": 3,
    "degree": 10.0,
    "weights": ["uniform", "dice"],
    "weight_params": {"dice": {"max_span": 6}},
    "kind": "1:1",
    "repeats": 5,
    "repeat_max_size": 300,
    "ilp_backend": "highs",
    "ilp_max_size": 5000,
    "ilp_time_limit": 600.0,
}

QUICK = {**FULL, "sizes": [10, 100, 300], "replicates": 2}

COLUMNS = (
    "weights", "size", "n_ref", "n_pred", "degree", "kind", "replicate", "seed", "instance_seed",
    "num_pairs", "components", "ilp_rows", "ilp_build_s",
    "method", "family", "backend", "skipped", "skip_reason", "status", "proven_optimal",
    "objective", "bound", "nodes", "matched", "exact_objective", "abs_gap", "rel_gap",
    "time_s", "repeats", "fallback", "error",
)

FIGURES = ("time_vs_size.png", "gap_vs_size.png")


# ------------------------------------------------------------------------------------------
# one unit = one instance
# ------------------------------------------------------------------------------------------
def make_instance(unit: dict) -> bipartite.BipartiteInstance:
    """The instance of ``unit`` (keys ``seed``, ``size``, ``replicate``, ``degree``,
    ``weights``, ``weight_params``, ``kind``), reproducible from those alone."""
    rng = np.random.default_rng([unit["seed"], unit["size"], unit["replicate"]])
    return synthetic.random_bipartite(unit["size"], unit["size"], degree=unit["degree"],
                                      weights=unit["weights"], kind=unit["kind"], seed=rng,
                                      **unit["weight_params"])


def _best_of(fn, repeats: int, label: str):
    """(best wall time, result) of ``repeats`` calls; the objective must not change."""
    best, result = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        res = fn()
        best = min(best, time.perf_counter() - t0)
        obj = getattr(res, "objective", None)
        if result is not None and obj is not None and abs(obj - result.objective) > TOL:
            raise ExperimentError(f"{label}: repeated solves disagree ({result.objective!r} "
                                  f"then {obj!r})")
        result = res
    return best, result


def check_invariants(label: str, exact, ilp, heuristics: dict) -> None:
    """Raise :class:`ExperimentError` if ``exact`` (a Result) is not proven optimal, if the ILP
    Result (``None`` when skipped) disagrees with it, or a heuristic Result beats it."""
    if not exact.proven_optimal or exact.objective is None:
        raise ExperimentError(f"{label}: exact path returned status {exact.status.value}")
    e = exact.objective
    if ilp is not None:
        if ilp.objective is not None and ilp.objective > e + TOL:
            raise ExperimentError(f"{label}: ILP objective {ilp.objective!r} exceeds the exact "
                                  f"optimum {e!r}")
        if ilp.bound is not None and ilp.bound < e - TOL:
            raise ExperimentError(f"{label}: ILP bound {ilp.bound!r} is below the exact "
                                  f"optimum {e!r}")
        if ilp.proven_optimal and abs(ilp.objective - e) > TOL:
            raise ExperimentError(f"{label}: ILP optimum {ilp.objective!r} != exact optimum "
                                  f"{e!r} (difference {ilp.objective - e:.3g} > {TOL})")
    for name, res in heuristics.items():
        if res.objective > e + TOL:
            raise ExperimentError(f"{label}: heuristic {name} reaches {res.objective!r} > exact "
                                  f"optimum {e!r}")


def _warm_up(unit: dict) -> None:
    """Solve a tiny instance with every method so that imports and first-call costs never land
    in a measurement (each worker process runs this once per unit)."""
    tiny = synthetic.random_bipartite(6, 6, degree=3, weights="uniform", seed=0)
    big = synthetic.random_bipartite(250, 250, degree=3, weights="uniform", seed=0)
    for inst in (tiny, big):  # ``big`` exercises the sparse assignment path
        bipartite.solve(inst, "exact")
        for h in HEURISTICS:
            bipartite.solve(inst, h)
    bipartite.solve(tiny, "ilp", backend=unit["ilp_backend"])


def run_unit(unit: dict) -> list[dict]:
    """All rows of one instance (one per method)."""
    _warm_up(unit)
    inst = make_instance(unit)
    size = unit["size"]
    label = (f"{unit['weights']} size {size} replicate {unit['replicate']} "
             f"(instance seed {unit['seed']}-{size}-{unit['replicate']})")
    repeats = unit["repeats"] if size <= unit["repeat_max_size"] else 1
    build_s, model = _best_of(lambda: bipartite.ilp_model(inst), repeats, label)

    results, times = {}, {}
    times["exact"], results["exact"] = _best_of(lambda: bipartite.solve(inst, "exact"),
                                                repeats, label + " exact")
    ilp_skip = size > unit["ilp_max_size"]
    if not ilp_skip:
        times["ilp"], results["ilp"] = _best_of(
            lambda: bipartite.solve(inst, "ilp", backend=unit["ilp_backend"],
                                    time_limit=unit["ilp_time_limit"], threads=1, seed=0),
            repeats, label + " ilp")
    for h in HEURISTICS:
        times[h], results[h] = _best_of(lambda h=h: bipartite.solve(inst, h), repeats,
                                        f"{label} {h}")
    check_invariants(label, results["exact"], results.get("ilp"),
                     {h: results[h] for h in HEURISTICS})

    exact_obj = results["exact"].objective
    base = {
        "weights": unit["weights"], "size": size, "n_ref": inst.n_ref, "n_pred": inst.n_pred,
        "degree": unit["degree"], "kind": unit["kind"], "replicate": unit["replicate"],
        "seed": unit["seed"], "instance_seed": f"{unit['seed']}-{size}-{unit['replicate']}",
        "num_pairs": inst.num_pairs, "components": _components(inst),
        "ilp_rows": model.A.shape[0], "ilp_build_s": build_s, "exact_objective": exact_obj,
        "repeats": repeats, "error": None,
    }
    rows = []
    for m in METHODS:
        row = dict(base, method=m, family="heuristic" if m in HEURISTICS else "exact",
                   backend=unit["ilp_backend"] if m == "ilp" else None)
        res = results.get(m)
        if res is None:
            row.update(skipped=True, skip_reason=f"size {size} > ilp_max_size "
                       f"{unit['ilp_max_size']}", status=None, proven_optimal=None,
                       objective=None, bound=None, nodes=None, matched=None, abs_gap=None,
                       rel_gap=None, time_s=None, repeats=None, fallback=None)
        else:
            abs_gap = exact_obj - res.objective
            rel_gap = abs_gap / exact_obj if exact_obj > 0 else 0.0
            row.update(skipped=False, skip_reason=None, status=res.status.value,
                       proven_optimal=res.proven_optimal, objective=res.objective,
                       bound=res.bound, nodes=res.nodes, matched=len(res.alignment),
                       abs_gap=abs_gap, rel_gap=rel_gap, time_s=times[m],
                       fallback=fallback_count(res))
        rows.append(row)
    return rows


# ------------------------------------------------------------------------------------------
# run
# ------------------------------------------------------------------------------------------
def _components(inst: bipartite.BipartiteInstance) -> int:
    """The connected components of ``inst``'s candidate graph that hold a pair."""
    from exactalign.core.decompose import bipartite_components

    comps = bipartite_components(inst.n_ref, inst.n_pred, inst.rows, inst.cols)
    return int((comps.sizes()[2] > 0).sum())


def units(config: dict) -> list[dict]:
    """The independent units (instances) of ``config``, largest first (better load balance)."""
    for w in config["weights"]:
        if w not in synthetic.WEIGHTS:
            raise ValueError(f"unknown weight distribution {w!r} in the config; choose from "
                             + ", ".join(synthetic.WEIGHTS))
    out = []
    for size in sorted(config["sizes"], reverse=True):
        for w in config["weights"]:
            for rep in range(config["replicates"]):
                out.append({
                    "seed": config["seed"], "size": int(size), "replicate": rep,
                    "degree": float(config["degree"]), "weights": w,
                    "weight_params": dict(config.get("weight_params", {}).get(w, {})),
                    "kind": config["kind"], "repeats": int(config["repeats"]),
                    "repeat_max_size": int(config["repeat_max_size"]),
                    "ilp_backend": config["ilp_backend"],
                    "ilp_max_size": int(config["ilp_max_size"]),
                    "ilp_time_limit": config["ilp_time_limit"],
                })
    return out


def _cells(unit: dict) -> dict:
    """The identifying columns of an instance's error row."""
    return {k: unit[k] for k in ("weights", "size", "degree", "kind", "replicate", "seed")} | {
        "n_ref": unit["size"], "n_pred": unit["size"],
        "instance_seed": f"{unit['seed']}-{unit['size']}-{unit['replicate']}"}


def run(config: dict, *, jobs: int = 1, quiet: bool = False) -> list[dict]:
    """Rows of every (instance, method), sorted by weights (config order), size, replicate and
    method (:data:`METHODS` order). Instances are spread over ``jobs`` processes."""
    per_unit = parallel_map(run_unit, units(config), jobs=jobs, desc=NAME, quiet=quiet,
                            cells=_cells)
    rows = [r for unit_rows in per_unit for r in unit_rows]
    w_order = {w: i for i, w in enumerate(config["weights"])}
    m_order = {m: i for i, m in enumerate(METHODS)}
    rows.sort(key=lambda r: (w_order[r["weights"]], r["size"], r["replicate"],
                             m_order[r["method"]]))
    return rows


# ------------------------------------------------------------------------------------------
# summary and figures (from CSV rows only)
# ------------------------------------------------------------------------------------------
def _ms(seconds: float | None) -> str:
    if seconds is None or not np.isfinite(seconds):
        return "–"
    ms = 1000.0 * seconds
    if ms >= 100:
        return f"{ms:,.0f}"
    if ms >= 10:
        return f"{ms:.1f}"
    if ms >= 1:
        return f"{ms:.2f}"
    return f"{ms:.3f}"


def _mean(values) -> float | None:
    vals = [v for v in values if v is not None]
    return float(np.mean(vals)) if vals else None


def summary(rows: list[dict]) -> str:
    """Per (weights, size): mean times of exact, ILP and greedy, the time ratios exact/greedy and
    ILP/exact, and the mean relative gap of every heuristic (max over seeds in parentheses)."""
    heuristics = [h for h in HEURISTICS if any(r["method"] == h for r in rows)]
    header = (["weights", "n a side", "pairs", "seeds", "exact ms", "ILP ms", "greedy ms",
               "exact/greedy", "ILP/exact"] + [f"gap {h}" for h in heuristics])
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(["---"] * 2 + ["---:"] * (len(header) - 2)) + "|"]
    keys = sorted({(r["weights"], r["size"]) for r in rows},
                  key=lambda k: ([r["weights"] for r in rows].index(k[0]), k[1]))
    notes = set()
    for w, n in keys:
        sel = [r for r in rows if r["weights"] == w and r["size"] == n]
        by = {m: [r for r in sel if r["method"] == m] for m in METHODS}
        t = {m: _mean(r["time_s"] for r in by[m] if not r["skipped"]) for m in METHODS}
        ilp_rows = [r for r in by["ilp"] if not r["skipped"]]
        if by["ilp"] and not ilp_rows:
            ilp_cell = "skipped"
            notes.add("ILP skipped above `ilp_max_size` (see rows.csv `skip_reason`).")
        else:
            ilp_cell = _ms(t["ilp"])
            if any(r["status"] != "optimal" for r in ilp_rows):
                ilp_cell += "*"
                notes.add("\\* some ILP solves did not prove optimality (time limit).")
        ratio = (f"{t['exact'] / t['greedy']:.1f}x" if t["exact"] and t["greedy"] else "–")
        ilp_ratio = (f"{t['ilp'] / t['exact']:.0f}x" if t["ilp"] and t["exact"] else "–")
        gaps = []
        for h in heuristics:
            g = [r["rel_gap"] for r in by[h] if r["rel_gap"] is not None]
            gaps.append(f"{100 * np.mean(g):.2f}% ({100 * np.max(g):.2f}%)" if g else "–")
        pairs = _mean(r["num_pairs"] for r in by["exact"])
        cells = [w, f"{n:,}", f"{pairs:,.0f}", str(len(by["exact"])), _ms(t["exact"]), ilp_cell,
                 _ms(t["greedy"]), ratio, ilp_ratio] + gaps
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Times are means over seeds of the whole `bipartite.solve` call (verification "
                 "included). Gap = (exact − heuristic) / exact, mean over seeds (max in "
                 "parentheses).")
    lines += sorted(notes)
    return "\n".join(lines) + "\n"


def headline(rows: list[dict], meta: dict | None = None) -> dict:
    """The summary's line: greedy against the exact optimum over every instance (gap in % of
    the optimum); the other heuristics' mean gaps and the time at the largest size in the
    finding."""
    inst = [r for r in rows if r["method"] == "exact"]
    greedy = [r for r in rows if r["method"] == "greedy" and r["rel_gap"] is not None]
    below = [100 * r["rel_gap"] for r in greedy if r["rel_gap"] > TOL]
    others = [f"{h} {100 * np.mean(g):.1f}%" for h in HEURISTICS if h != "greedy"
              for g in [[r["rel_gap"] for r in rows if r["method"] == h
                         and r["rel_gap"] is not None]] if g]
    n = max(r["size"] for r in inst)
    big = [r for r in rows if r["size"] == n]
    t_ex = _mean(r["time_s"] for r in big if r["method"] == "exact")
    t_gr = _mean(r["time_s"] for r in big if r["method"] == "greedy")
    finding = (f"Greedy 1:1 matching loses {100 * np.mean([r['rel_gap'] for r in greedy]):.1f}% "
               f"of the optimum per instance on average (other heuristics: {', '.join(others)}); the exact "
               "assignment path "
               f"proves the optimum of {n:,} items a side in {_ms(t_ex)} ms"
               + (f", {t_ex / t_gr:.0f}x greedy's time." if t_ex and t_gr else "."))
    return {"heuristic": "greedy", "unit": "instances", "instances": len(inst),
            "below": len(below), "gap_mean": float(np.mean(below)) if below else None,
            "gap_max": max(below) if below else 0.0, "gap_unit": "%", "finding": finding}


def _size_axis(ax, sizes, degrees) -> None:
    """Log x axis labelled with the sizes actually run."""
    from matplotlib.ticker import NullLocator

    ax.set_xscale("log")
    ax.set_xticks(sizes, [f"{s:,}" for s in sizes])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.tick_params(axis="x", labelrotation=45)
    deg = "/".join(f"{d:g}" for d in degrees)
    ax.set_xlabel(f"items per side (≈{deg} candidates each)")


def figures(csv_path: Path, out_dir: Path) -> list[Path]:
    """``time_vs_size.png`` (log-log, one panel per weight distribution, mean over seeds with a
    min..max band, ILP model build time dashed) and ``gap_vs_size.png`` (relative gap of each
    heuristic, mean with min..max band), from ``rows.csv`` alone; each with a PDF and SVG."""
    from .runner import completed_rows

    plt = plot.pyplot()
    rows = completed_rows(csv_path)
    out_dir = Path(out_dir)
    dists = list(dict.fromkeys(r["weights"] for r in rows))
    sizes = sorted({r["size"] for r in rows})
    degrees = sorted({r["degree"] for r in rows})
    labels = {"exact": "exact (assignment)", "ilp": "ILP (HiGHS)"}
    written = []

    fig, axes = plot.panels(plt, len(dists), ncols=2, height=2.6, sharey=True)
    for ax, w in zip(axes, dists, strict=True):
        sel = [r for r in rows if r["weights"] == w and not r["skipped"]]
        for m in METHODS:
            st = plot.stats_by((r for r in sel if r["method"] == m), lambda r: r["size"],
                               lambda r: r["time_s"])
            plot.line_with_band(ax, sizes, st, labels.get(m, m), plot.STYLE.get(m))
        st = plot.stats_by((r for r in sel if r["method"] == "exact"), lambda r: r["size"],
                           lambda r: r["ilp_build_s"])
        plot.line_with_band(ax, sizes, st, "ILP model build", plot.STYLE["ilp-build"])
        ax.set_yscale("log")
        _size_axis(ax, sizes, degrees)
        ax.set_title(f"weights: {w}")
    axes[0].set_ylabel("wall time per instance [s]")
    plot.legend_below(fig, ax=axes[0], ncol=3)
    written.append(plot.save(fig, out_dir / "time_vs_size.png"))

    fig, axes = plot.panels(plt, len(dists), ncols=2, height=2.4, sharey=True)
    for ax, w in zip(axes, dists, strict=True):
        sel = [r for r in rows if r["weights"] == w and not r["skipped"]]
        for h in HEURISTICS:
            st = plot.stats_by((r for r in sel if r["method"] == h), lambda r: r["size"],
                               lambda r: None if r["rel_gap"] is None else 100 * r["rel_gap"])
            plot.line_with_band(ax, sizes, st, h, plot.STYLE.get(h))
        _size_axis(ax, sizes, degrees)
        ax.set_title(f"weights: {w}")
    axes[0].set_ylim(bottom=0)  # once, after every panel: the shared top covers all bands
    axes[0].set_ylabel("gap to the optimum [% of exact]")
    plot.legend_below(fig, ax=axes[0], title="heuristic (mean over seeds, min–max band)")
    written.append(plot.save(fig, out_dir / "gap_vs_size.png"))
    return written
