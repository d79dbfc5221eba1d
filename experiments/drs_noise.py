"""The five-run part of :mod:`experiments.drs_gap`: systems published as five training runs, their
5-run means and confidence intervals under Counter's hill-climbing and under the proven optimum,
the system rankings and paired significance under both, and the scorer's own restart noise.

Computed from the rows of :mod:`experiments.drs_gap` (``kind`` ``file`` and ``noise``) and the
per-DRS counts of each system's first run; nothing here reads data or runs a scorer.

* ``system`` rows, one per system with runs ``output1`` ... ``output5`` (one folder of
  ``drs/systems``): the 5-run mean, standard deviation (``ddof=1``) and 95% t-interval of the
  mean (``mean +- t(0.975, 4) * sd / sqrt(5)``, the interval Neural_DRS publishes in
  ``eval.txt``; its "Standard deviation" line is the ``ddof=0`` one) of the corpus F under
  Counter's ``-r 20`` (the replica, one seeded generator per file), under the optimum, and as
  published; the system's rank under each; the restart noise: the SD of a run's corpus F over
  ``noise_seeds`` seeds of Counter's ``-r 20`` (smart mapping on), pooled over the runs scored
  (``noise_runs``: the root of the mean of the runs' variances, each ``ddof=1``) -- the part of
  a 5-run variance that scoring each run once with some seed adds -- and that variance as a
  share of the published 5-run variance (``noise_share``) and of the replica's
  (``noise_share_replica``).
* ``pair`` rows, two systems of one release and split: run 1 of each, paired over DRSs
  (:func:`exactalign.significance.paired_bootstrap` and
  :func:`~exactalign.significance.approximate_randomization`, per-DRS ``(matched, produced,
  matched, gold)``), Counter-scored and optimum-scored; *significant*: both tests p < ``alpha``;
  whether the order of run 1 or of the 5-run means changes, and whether the verdict changes
  (significant under one scoring only, or the order flips while one of them is significant).
"""

from __future__ import annotations

import re

import numpy as np

from exactalign.significance import approximate_randomization, paired_bootstrap

#: The runs of a five-run system, by file stem.
RUNS = 5
MAIN_RESTARTS = 20
_RUN = re.compile(r"output(\d+)$")


def run_number(path: str) -> int | None:
    """``n`` of a run file ``.../outputN.txt`` (or ``outputN.seq.drs.res``), else ``None``."""
    m = _RUN.match(path.rsplit("/", 1)[-1].split(".")[0])
    return int(m.group(1)) if m else None


def five_run_systems(files: list[str]) -> dict[str, list[str]]:
    """The folders of ``files`` holding runs ``output1`` ... ``output5`` (each once), mapped to
    those five files in run order; folders in path order."""
    by: dict = {}
    for f in files:
        n = run_number(f)
        if n is not None and "/" in f:
            by.setdefault(f.rsplit("/", 1)[0], {}).setdefault(n, []).append(f)
    out = {}
    for folder in sorted(by):
        runs = by[folder]
        if sorted(runs) == list(range(1, RUNS + 1)) and all(len(v) == 1 for v in runs.values()):
            out[folder] = [runs[n][0] for n in range(1, RUNS + 1)]
    return out


def t_interval(values, level: float = 0.95) -> tuple[float, float, float, float]:
    """Mean, sample SD (``ddof=1``) and the ``level`` t-interval of the mean of ``values``:
    ``mean +- t((1 + level) / 2, n - 1) * sd / sqrt(n)``."""
    from scipy.stats import t

    x = np.asarray(values, dtype=np.float64)
    if x.size < 2:
        raise ValueError(f"a t-interval needs two values or more, not {x.size}")
    mean, sd = float(x.mean()), float(x.std(ddof=1))
    half = float(t.ppf((1 + level) / 2, x.size - 1) * sd / np.sqrt(x.size))
    return mean, sd, mean - half, mean + half


def order_changes(a: dict, b: dict) -> tuple[int, int]:
    """Pairs of keys (of both maps) ordered differently by the scores ``a`` and ``b`` (a tie in
    one and not the other is a change), and the pairs compared."""
    keys = sorted(set(a) & set(b))
    changed = total = 0
    for i, x in enumerate(keys):
        for y in keys[i + 1:]:
            total += 1
            changed += int(np.sign(round(a[x] - a[y], 12)) != np.sign(round(b[x] - b[y], 12)))
    return changed, total


def _ranks(scores: dict) -> dict:
    """Rank 1 for the highest score (ties share the better rank)."""
    return {k: 1 + sum(1 for v in scores.values() if v > s + 1e-12) for k, s in scores.items()}


def system_rows(rows: list[dict], level: float = 0.95) -> list[dict]:
    """The ``system`` rows (module docstring) from the ``file`` rows (``-r 20``, smart mapping)
    and the ``noise`` rows; systems without their five runs' rows are left out."""
    runs: dict = {}
    for r in rows:
        if (r.get("kind") or "file") == "file" and bool(r["smart"]) \
                and int(r["restarts"]) == MAIN_RESTARTS and run_number(r["file"]) is not None:
            runs.setdefault(r["file"].rsplit("/", 1)[0], {})[run_number(r["file"])] = r
    noise: dict = {}
    for r in rows:
        if r.get("kind") == "noise":
            noise.setdefault(r["file"].rsplit("/", 1)[0], []).append(r)
    out = []
    for folder, by in sorted(runs.items()):
        if sorted(by) != list(range(1, RUNS + 1)):
            continue
        sel = [by[n] for n in range(1, RUNS + 1)]
        first = sel[0]
        row = {"kind": "system", "release": first["release"], "split": first["split"],
               "system": first["system"].rsplit("/", 1)[0], "file": folder, "runs": RUNS,
               "pairs": first["pairs"], "wordnet": first["wordnet"], "scorer": first.get("scorer"),
               "restarts": MAIN_RESTARTS,
               "smart": True}
        for name, col in (("counter", "counter_f1"), ("exact", "exact_f1"),
                          ("published", "published_f1")):
            vals = [x[col] for x in sel]
            if any(v is None for v in vals):
                continue
            m, sd, lo, hi = t_interval(vals, level)
            row.update({f"mean_{name}": m, f"sd_{name}": sd, f"ci_lo_{name}": lo,
                        f"ci_hi_{name}": hi})
        per_run: dict = {}
        for x in noise.get(folder, []):
            per_run.setdefault(x["file"], []).append(x["counter_f1"])
        var = [float(np.var(f, ddof=1)) if len(set(f)) > 1 else 0.0  # no rounding residue
               for f in per_run.values() if len(f) >= 2]
        if var:
            ns = noise[folder]
            sd = float(np.sqrt(np.mean(var)))
            row.update({"noise_runs": len(var), "noise_sd": sd,
                        "noise_seeds": min(len(f) for f in per_run.values()),
                        "noise_below": max(x["below"] for x in ns),
                        "noise_share": sd ** 2 / row["sd_published"] ** 2
                        if row.get("sd_published") else None,
                        "noise_share_replica": sd ** 2 / row["sd_counter"] ** 2
                        if row.get("sd_counter") else None})
        out.append(row)
    groups: dict = {}
    for r in out:
        groups.setdefault((r["release"], r["split"]), []).append(r)
    for sel in groups.values():
        for name in ("counter", "exact", "published"):  # among the systems with the score
            ranks = _ranks({r["file"]: r[f"mean_{name}"] for r in sel
                            if r.get(f"mean_{name}") is not None})
            for r in sel:
                r[f"rank_{name}"] = ranks.get(r["file"])
    return out


def pair_rows(systems: list[dict], counts: dict, *, samples: int, seed: int,
              alpha: float = 0.05) -> list[dict]:
    """The ``pair`` rows (module docstring) of the ``system`` rows ``systems``; ``counts[folder]``
    holds run 1's per-DRS ``[matched, produced, gold]`` under ``"counter"`` and ``"exact"``
    (systems without them are left out)."""
    groups: dict = {}
    for r in systems:
        if r["file"] in counts:
            groups.setdefault((r["release"], r["split"]), []).append(r)
    out = []
    for (release, split), sel in sorted(groups.items()):
        for i, a in enumerate(sel):
            for b in sel[i + 1:]:
                tests = {}
                for how in ("counter", "exact"):
                    ca, cb = (np.asarray(counts[x["file"]][how], dtype=np.float64)[:, [0, 1, 0, 2]]
                              for x in (a, b))
                    tests[how] = (paired_bootstrap(ca, cb, n_resamples=samples, seed=seed),
                                  approximate_randomization(ca, cb, n_trials=samples, seed=seed))
                (bc, rc), (bx, rx) = tests["counter"], tests["exact"]
                sig_c = max(bc.p_value, rc.p_value) < alpha
                sig_x = max(bx.p_value, rx.p_value) < alpha
                flipped = bool(np.sign(round(bc.delta, 12)) != np.sign(round(bx.delta, 12)))
                row = {"kind": "pair", "release": release, "split": split,
                       "system": a["system"], "system_b": b["system"], "file": a["file"],
                       "pairs": a["pairs"], "restarts": MAIN_RESTARTS, "smart": True,
                       "wordnet": a["wordnet"], "scorer": a.get("scorer"), "delta": bc.delta, "delta_exact": bx.delta,
                       "p_bootstrap": bc.p_value, "p_randomization": rc.p_value,
                       "p_bootstrap_exact": bx.p_value, "p_randomization_exact": rx.p_value,
                       "significant": sig_c, "significant_exact": sig_x, "flipped": flipped,
                       "verdict_changed": sig_c != sig_x or (flipped and sig_c),
                       "samples": samples, "seed": seed}
                for name in ("counter", "exact", "published"):
                    ma, mb = a.get(f"mean_{name}"), b.get(f"mean_{name}")
                    key = "mean_delta" if name == "counter" else f"mean_delta_{name}"
                    row[key] = None if ma is None or mb is None else ma - mb
                if row["mean_delta_exact"] is not None:
                    sx = np.sign(round(row["mean_delta_exact"], 12))
                    row["mean_flipped"] = bool(np.sign(round(row["mean_delta"], 12)) != sx)
                    if row["mean_delta_published"] is not None:
                        row["published_flipped"] = bool(
                            np.sign(round(row["mean_delta_published"], 12)) != sx)
                out.append(row)
    return out


# ------------------------------------------------------------------------------------------
# summary, headline and figure (from the CSV rows only)
# ------------------------------------------------------------------------------------------
def _pts(v) -> str:
    return "–" if v is None else f"{100 * v:.2f}"


def summary_lines(rows: list[dict]) -> list[str]:
    """The five-run part of :func:`experiments.drs_gap.summary`."""
    systems = [r for r in rows if r.get("kind") == "system"]
    pairs = [r for r in rows if r.get("kind") == "pair"]
    if not systems:
        return []
    out = ["", "Systems with five runs (F in points; mean and 95% t-interval of the 5-run mean "
           "under Counter's -r 20 replica and under the proven optimum; published: eval.txt's "
           "five F; SD with ddof=1). Restart noise: SD of a run's corpus F over the seeds of "
           "Counter's -r 20, pooled over the runs scored (root mean variance), and its variance "
           "as a share of the published (else the replica's) 5-run variance.", "",
           "| release | split | system | mean Counter [CI] | mean optimum [CI] | mean published "
           "[CI] | SD published | SD replica | noise SD (runs x seeds) | noise share | "
           "rank C/O/P |",
           "|---|---|---|---|---|---|---:|---:|---:|---:|---|"]
    def ci(r, name):
        m = r.get(f"mean_{name}")
        if m is None:
            return "–"
        return f"{100 * m:.2f} [{100 * r[f'ci_lo_{name}']:.2f}, {100 * r[f'ci_hi_{name}']:.2f}]"

    for r in systems:
        share = r.get("noise_share")
        share = r.get("noise_share_replica") if share is None else share
        noise = "–" if r.get("noise_sd") is None else \
            f"{100 * r['noise_sd']:.4f} ({r['noise_runs']} x {r['noise_seeds']})"
        ranks = "/".join("–" if r.get(f"rank_{n}") is None else str(r[f"rank_{n}"])
                         for n in ("counter", "exact", "published"))
        out.append(f"| {r['release']} | {r['split']} | {r['system']} | {ci(r, 'counter')} | "
                   f"{ci(r, 'exact')} | {ci(r, 'published')} | {_pts(r.get('sd_published'))} | "
                   f"{_pts(r.get('sd_counter'))} | {noise} | "
                   f"{'–' if share is None else f'{100 * share:.2f}%'} | {ranks} |")
    moved = sum(1 for r in systems if r.get("mean_exact") is not None
                and abs(r["mean_exact"] - r["mean_counter"]) > 1e-12)
    out += ["", f"5-run means changed by the optimum: {moved} of {len(systems)} systems "
            f"(largest {100 * max_mean_change(systems):.3f} points)."]
    if pairs:
        out += ["", f"System pairs of one release and split ({len(pairs)}): ordered differently "
                f"by the 5-run means under Counter and the optimum: "
                f"{sum(1 for r in pairs if r.get('mean_flipped'))}; by the published means and "
                f"the optimum's: {sum(1 for r in pairs if r.get('published_flipped'))} of "
                f"{sum(1 for r in pairs if r.get('published_flipped') is not None)}. Run 1 "
                f"paired over DRSs (bootstrap and approximate randomization, "
                f"{pairs[0]['samples']:,} samples, seed {pairs[0]['seed']}): significant "
                f"(both p < 0.05) under Counter {sum(1 for r in pairs if r['significant'])}, "
                f"under the optimum {sum(1 for r in pairs if r['significant_exact'])}; order "
                f"flipped {sum(1 for r in pairs if r['flipped'])}, verdict changed "
                f"{sum(1 for r in pairs if r['verdict_changed'])}."]
    return out


def max_mean_change(systems: list[dict]) -> float:
    return max((abs(r["mean_exact"] - r["mean_counter"]) for r in systems
                if r.get("mean_exact") is not None), default=0.0)


def finding(rows: list[dict]) -> str:
    """The five-run clause of the headline finding ('' without ``system`` rows)."""
    systems = [r for r in rows if r.get("kind") == "system" and r.get("noise_sd") is not None]
    pairs = [r for r in rows if r.get("kind") == "pair"]
    if not systems:
        return ""
    pub = [r for r in systems if r.get("noise_share") is not None]
    sel, what = (pub, "published") if pub else (systems, "replica's")
    key = "noise_share" if pub else "noise_share_replica"
    shares = [r[key] for r in sel if r.get(key) is not None]
    seeds, runs = systems[0]["noise_seeds"], sum(r["noise_runs"] for r in systems)
    k = f"{len(systems)} five-run system{'s' if len(systems) != 1 else ''}"
    if max(r["noise_sd"] for r in systems) == 0:
        text = (f"; no restart noise: each of {runs} runs of {k} scores the same F under "
                f"{seeds} seeds (0% of the {what} 5-run variance)")
    else:
        noisy = sum(1 for r in systems if r["noise_sd"] > 0)
        text = (f"; the scorer's restart noise ({runs} runs of {k}, {seeds} seeds each) is "
                f"nil for {len(systems) - noisy} systems and at most "
                f"{100 * max(r['noise_sd'] for r in systems):.4f} F1 points, "
                f"{100 * max(shares, default=0.0):.2f}% at most of a {what} 5-run variance "
                f"({len(sel)} systems)")
    if pairs:
        text += (f"; 5-run-mean order changes {sum(1 for r in pairs if r.get('mean_flipped'))} "
                 f"of {len(pairs)} system pairs, significance verdicts "
                 f"{sum(1 for r in pairs if r['verdict_changed'])}")
    return text


def noise_figure(ax, rows: list[dict]) -> bool:
    """One line a five-run system scored under the noise seeds: its 5-run SD of F as published
    and as the replica scores the runs, and its restart-noise SD, on ``ax``;
    ``False`` when there is nothing to draw."""
    from . import plot

    systems = [r for r in rows if r.get("kind") == "system" and r.get("noise_sd") is not None]
    if not systems:
        return False
    ys = list(range(len(systems)))[::-1]  # the first system on top
    series = (("sd_published", "5-run SD, published (eval.txt)"),
              ("sd_counter", "5-run SD, replica -r 20"),
              ("noise_sd", f"restart noise ({systems[0]['noise_seeds']} seeds a run)"))
    for k, (col, label) in enumerate(series):
        pts = [(100 * r[col], y) for r, y in zip(systems, ys, strict=True)
               if r.get(col) is not None]
        hollow = {"markerfacecolor": "none", "markersize": 8, "markeredgewidth": 1.4}
        if pts:  # the published SD hollow: the replica's shows through where they coincide
            ax.plot(*zip(*pts, strict=True), linestyle="none", label=label,
                    **plot.series_style(k, **(hollow if k == 0 else {})))
    ax.set_yticks(ys, [f"{r['release'].removeprefix('pmb-')} {r['split']} {r['system']}"
                       .replace(" - ", " ") for r in systems])
    ax.set_xlim(left=-0.02 * max(100 * (r.get("sd_counter") or 0) for r in systems) - 0.01)
    ax.set_xlabel("SD of the corpus F [F1 points]")
    ax.legend(loc="lower right")
    return True
