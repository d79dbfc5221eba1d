"""The summary, headline and figures of the performance benchmark, from its CSV alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from . import plot
from .peers import FAMILIES, LOOP_FAMILIES
from .runner import headline_record


# --------------------------------------------------------------------------------------------
# summary, headline and figure (from the CSV alone)
# --------------------------------------------------------------------------------------------
def exponents(rows: list[dict]) -> dict[tuple[str, str], tuple[float, int]]:
    """``(family, tool) -> (slope, points)``: least squares of log(median s) on log(size) over
    the tool's completed rows (at least two distinct sizes)."""
    out = {}
    for fam in dict.fromkeys(r["family"] for r in rows):
        for tool in dict.fromkeys(r["tool"] for r in rows if r["family"] == fam):
            pts = [(float(r["size"]), float(r["median_s"])) for r in rows
                   if r["family"] == fam and r["tool"] == tool and r["status"] == "ok"
                   and r["median_s"] and r["size"]]
            if len({x for x, _ in pts}) >= 2:
                out[(fam, tool)] = (fitted_exponent([p[0] for p in pts],
                                                    [p[1] for p in pts]), len(pts))
    return out


def memory_growth(rows: list[dict]) -> dict[tuple[str, str], tuple[float, float, int]]:
    """``(family, tool) -> (memory slope, non-zeros slope, points)`` for our rows that carry
    ``model_nnz``: least squares on log size of log(peak MB above the tool's smallest peak --
    the interpreter and its imports) and of log(model non-zeros), over the sizes where the
    excess is at least 1 MB. Memory grows no faster than the model when the first slope is at
    most the second."""
    out = {}
    for fam in dict.fromkeys(r["family"] for r in rows):
        for tool in dict.fromkeys(r["tool"] for r in rows if r["family"] == fam
                                  and r["role"] == "ours" and r.get("model_nnz")):
            sel = [r for r in rows if r["family"] == fam and r["tool"] == tool
                   and r["status"] == "ok" and r.get("peak_mb") and r.get("model_nnz")]
            if not sel:
                continue
            floor = min(float(r["peak_mb"]) for r in sel)
            pts = [(float(r["size"]), float(r["peak_mb"]) - floor, float(r["model_nnz"]))
                   for r in sel if float(r["peak_mb"]) - floor >= 1.0]
            if len({x for x, _, _ in pts}) >= 2:
                xs = [p[0] for p in pts]
                out[(fam, tool)] = (fitted_exponent(xs, [p[1] for p in pts]),
                                    fitted_exponent(xs, [p[2] for p in pts]), len(pts))
    return out


def _secs(r: dict) -> str:
    if r["status"] == "ok":
        return f"{r['median_s']:.3g}"
    if r["status"] == "timeout":
        return f"> {r['min_s']:g} (timeout)" if r.get("min_s") else "timeout"
    return r["status"]


def _mb(r: dict) -> str:
    return f"{r['peak_mb']:.0f}" if r.get("peak_mb") is not None else "–"


def _yn(v) -> str:
    return "yes" if v is True else "no" if v is False else "–"


def pairs(rows: list[dict], loop: bool = False):
    """``(ours row, peer row)`` per unit, every ours tool against every peer tool that ran;
    the in-process (training loop) families only with ``loop``, else the others."""
    keyed: dict = {}
    for r in _loop(rows, loop):
        keyed.setdefault((r["family"], r["dataset"]), []).append(r)
    for sel in keyed.values():
        ours = [r for r in sel if r["role"] == "ours" and r["status"] == "ok"]
        peers = [r for r in sel if r["role"] == "peer" and r["status"] != "skipped"]
        for o in ours:
            for p in peers:
                yield o, p


def _loop(rows: list[dict], loop: bool) -> list[dict]:
    """The rows of the in-process (training loop) families (``loop``), or the others."""
    return [r for r in rows if (r["family"] in LOOP_FAMILIES) == loop]


def _ms(seconds) -> str:
    return "–" if seconds in (None, "") else f"{1000 * float(seconds):.3g}"


def loop_summary(rows: list[dict]) -> str:
    """The in-process table: per family and batch size, ours against each peer -- CPU time
    per call in the steady state and on the first call, our one-off preparation, the ratios,
    proven, peak memory -- and where each peer's answer is a heuristic's."""
    rows = _loop(rows, True)
    if not rows:
        return ""
    lines = ["| family | input | docs | ours | ours steady ms | ours first ms | ours prepare ms "
             "| ours to first ms | peer | peer steady ms | peer first ms | peer to first ms | "
             "ratio steady | ratio first | ratio to first | proven (ours/peer) | "
             "peak MB (ours/peer) |",
             "|---|---|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---:|"]

    def ratio(a, b):
        return f"{a / b:.3g}" if a not in (None, "") and b else "–"

    for o, p in pairs(rows, loop=True):
        ok = p["status"] == "ok"
        lines.append(f"| {o['family']} | {o['dataset'].rsplit('[', 1)[0]} | {o['size']} | "
                     f"{o['tool']} | {_ms(o['median_s'])} | {_ms(o['first_call_s'])} | "
                     f"{_ms(o['prepare_s'])} | {_ms(o.get('to_first_s'))} | {p['tool']} | "
                     f"{_ms(p['median_s']) if ok else p['status']} | "
                     f"{_ms(p['first_call_s'])} | {_ms(p.get('to_first_s'))} | "
                     f"{ratio(o['median_s'], p['median_s']) if ok else '–'} | "
                     f"{ratio(o['first_call_s'], p['first_call_s']) if ok else '–'} | "
                     f"{ratio(o.get('to_first_s'), p.get('to_first_s')) if ok else '–'} | "
                     f"{_yn(o['proven'])}/{_yn(p['proven'])} | {_mb(o)}/{_mb(p)} |")
    heur = sorted({r["tool"] for r in rows if r["role"] == "peer" and r["proven"] is False
                   and r["status"] != "skipped"})
    lines += ["", "In-process: each tool in a process of its own, importing only its library, "
              "its inputs built before the clock starts; CPU time (``time.process_time``) of "
              "one call scoring the first ``docs`` documents: ``first`` the first call (lazy "
              "imports and caches included), ``steady`` the median of the calls after it "
              "(until 0.5 s of CPU, at least 3), each the median over the recorded processes; "
              "``prepare`` our one-off set-up of the references (peers have none: their "
              "every call parses and prepares both sides); ``to first`` everything before the "
              "first score: the imports, building the inputs, prepare and the first call (a "
              "library that imports scipy at import pays it there, one that imports it lazily "
              "in its first call). Ratio < 1: exactalign is faster."]
    lines += _versions_timed(rows)
    if heur:
        lines += ["", "Heuristic peers (proven no: their score is a hill-climber's, not a "
                  "proven optimum, so their time buys a weaker answer than exactalign's exact "
                  "rows): " + ", ".join(heur) + "."]
    return "\n".join(lines) + "\n"


def summary(rows: list[dict]) -> str:
    """One line per (input, our tool, peer tool): median time of each, their ratio, proven,
    peak memory; then the fitted growth exponents and the skipped peers; then the in-process
    table (:func:`loop_summary`)."""
    loop = loop_summary(rows)
    main = _loop(rows, False)
    return _main_summary(main) + ("\n### In-process (a training loop's calls)\n\n" + loop
                                  if loop else "")


def _main_summary(rows: list[dict]) -> str:
    lines = ["| family | dataset | size | ours | ours s | peer | peer s | ratio ours/peer | "
             "proven (ours/peer) | peak MB (ours/peer) | timing |",
             "|---|---|---:|---|---:|---|---:|---:|---|---:|---|"]
    for o, p in pairs(rows):
        if p["status"] == "ok" and p["median_s"]:
            ratio = f"{o['median_s'] / p['median_s']:.3g}"
        elif p["status"] == "timeout" and p.get("min_s"):
            ratio = f"< {o['median_s'] / p['min_s']:.3g}"
        else:
            ratio = "–"
        lines.append(f"| {o['family']} | {o['dataset']} | {o['size']} {o['size_unit']} | "
                     f"{o['tool']} | {_secs(o)} | {p['tool']} | {_secs(p)} | {ratio} | "
                     f"{_yn(o['proven'])}/{_yn(p['proven'])} | {_mb(o)}/{_mb(p)} | "
                     f"{o['timing']} |")
    lonely = [r for r in rows if r["role"] == "ours" and r["status"] != "ok"]
    for r in lonely:
        lines.append(f"| {r['family']} | {r['dataset']} | {r['size']} {r['size_unit']} | "
                     f"{r['tool']} | {_secs(r)} | – | – | – | {_yn(r['proven'])}/– | "
                     f"{_mb(r)}/– | {r['timing']} |")
    big = largest_pair(rows)
    if big:
        lines += ["", big + "."]
    exps = exponents(rows)
    if exps:
        lines += ["", "Growth exponents (least squares of log median time on log size): "
                  + "; ".join(f"{fam} {tool} {s:.2f} ({k} sizes)"
                              for (fam, tool), (s, k) in exps.items()) + "."]
    cores = cores_used(rows)
    if cores:
        lines += ["", "CPU time over wall time (median process, whole command or task; above 1: "
                  "more than one core at a time): "
                  + "; ".join(f"{tool} {lo:.2f}–{hi:.2f}" for tool, (lo, hi) in cores.items())
                  + "."]
    mem = memory_growth(rows)
    if mem:
        lines += ["", "Memory against the model (slopes on log size of the peak MB above the "
                  "smallest run's, and of the ILP's non-zeros): "
                  + "; ".join(f"{fam} {tool} memory {m:.2f}, non-zeros {z:.2f} ({k} sizes)"
                              for (fam, tool), (m, z, k) in mem.items()) + "."]
    skipped = {(r["tool"], r["note"]) for r in rows if r["status"] == "skipped"
               and not str(r["note"]).startswith("not run")}
    if skipped:
        lines += ["", "Skipped: " + "; ".join(f"{t} ({why})" for t, why in sorted(skipped))
                  + "."]
    lines += _versions_timed(rows)
    lines += ["", "Median over the recorded runs (each a fresh process, tools alternating); "
              "``command``: whole-command wall time; ``in-process``: the computation timed "
              "inside its own process. Ratio < 1: exactalign is faster. Peak MB: the process's "
              "own peak resident memory (interpreter and imports included)."]
    return "\n".join(lines) + "\n"


def cores_used(rows: list[dict]) -> dict[str, tuple[float, float]]:
    """Per tool, the range over its rows of CPU time over wall time of the median process
    (``cpu_median_s`` / ``process_median_s``): whether it computed on one core, as every
    ratio in the table assumes, or on several."""
    out: dict[str, list[float]] = {}
    for r in rows:
        cpu, wall = r.get("cpu_median_s"), r.get("process_median_s")
        if r["status"] == "ok" and cpu not in (None, "") and wall:
            out.setdefault(r["tool"], []).append(float(cpu) / float(wall))
    return {t: (min(v), max(v)) for t, v in out.items()}


def largest_pair(rows: list[dict]) -> str | None:
    """The largest single AMR pair exactalign proved (``smatch-pair``): its size, median time
    and peak memory -- the issue's target is 1,000 variables in at most 60 s and 1 GB."""
    ok = [r for r in rows if r["family"] == "smatch-pair" and r["role"] == "ours"
          and r["status"] == "ok" and r["proven"] and r["median_s"] is not None]
    if not ok:
        return None
    r = max(ok, key=lambda r: float(r["size"]))
    return (f"Largest single AMR pair proven optimal: {int(float(r['size'])):,} variables in "
            f"{float(r['median_s']):.3g} s (median), peak {_mb(r)} MB")


def headline(rows: list[dict], meta: dict | None = None) -> dict:
    """The summary's line: per family, the range of exactalign's time over the peer's."""
    parts = []
    for fam in FAMILIES:
        loop = fam in LOOP_FAMILIES
        ratios = [o["median_s"] / p["median_s"] for o, p in pairs(rows, loop)
                  if o["family"] == fam and p["status"] == "ok" and p["median_s"]
                  and o["tool"] not in ("exactalign-kbp", "exactalign-hillclimb")]
        if ratios:
            parts.append(f"{fam} {min(ratios):.2g}–{max(ratios):.2g}x"
                         + (" per call (steady)" if loop else ""))
    timeouts = sorted({f"{r['tool']} ({r['family']}, {r['size']} {r['size_unit']})"
                       for r in rows if r["role"] == "peer" and r["status"] in
                       ("timeout", "memory")})
    finding = ("exactalign's median time over the peer's, per family: " + "; ".join(parts)
               + "." if parts else "No pair of tools timed.")
    big = largest_pair(rows)
    if big:
        finding += f" {big}."
    if timeouts:
        finding += " Peers stopped at their limit: " + ", ".join(timeouts) + "."
    # a benchmark: no heuristic against an optimum, so no "below the optimum" count
    return headline_record("none: speed against each family's peer", finding)


def figures(csv_path: Path, out_dir: Path) -> list[Path]:
    """``cost_vs_size.png``: per family, median time against size on log-log axes, one line per
    tool, the fitted growth exponent in its label; timeouts marked at the limit (x)."""
    from .runner import completed_rows

    plt = plot.pyplot()
    everything = completed_rows(csv_path)
    rows = _loop(everything, False)
    fams = [f for f in FAMILIES if any(r["family"] == f and r["status"] != "skipped"
                                       for r in rows)]
    fig, axes = plot.panels(plt, max(1, len(fams)), ncols=3, height=2.4)
    exps = exponents(rows)
    for ax, fam in zip(axes, fams, strict=False):
        tools = list(dict.fromkeys(r["tool"] for r in rows if r["family"] == fam
                                   and r["status"] != "skipped"))
        for i, tool in enumerate(tools):
            sel = sorted((r for r in rows if r["family"] == fam and r["tool"] == tool),
                         key=lambda r: r["size"] or 0)
            ok = [r for r in sel if r["status"] == "ok" and r["median_s"]]
            style = plot.series_style(i)
            label = tool + (f" (slope {exps[(fam, tool)][0]:.2f})" if (fam, tool) in exps
                            else "")
            if ok:
                ax.plot([r["size"] for r in ok], [r["median_s"] for r in ok], label=label,
                        **style)
            over = [r for r in sel if r["status"] in ("timeout", "memory")]
            if over:
                ax.scatter([r["size"] for r in over],
                           [r["min_s"] or max((x["median_s"] or 0 for x in ok), default=1)
                            for r in over], marker="x", color=style["color"], s=40,
                           label=None if ok else f"{tool} (stopped)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        lo, hi = ax.get_ylim()  # room above the lines for the legend (a line per tool)
        ax.set_ylim(lo, hi * (hi / lo) ** (0.12 * len(tools)))
        _log_ticks(ax)
        unit = next((r["size_unit"] for r in rows if r["family"] == fam), "")
        ax.set_xlabel(f"size [{unit}]")
        ax.set_ylabel("median time [s]")
        ax.set_title(fam)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, loc="upper left")
    if not fams:
        axes[0].text(0.5, 0.5, "no timed rows", ha="center", va="center")
    return [plot.save(fig, Path(out_dir) / "cost_vs_size.png"),
            loop_figure(plt, _loop(everything, True), Path(out_dir))]


def loop_figure(plt, rows: list[dict], out_dir: Path) -> Path:
    """``inprocess.png``: per in-process family, CPU time per call against the documents a
    call scores (log-log), one colour per tool: steady state solid, first call dashed."""
    fams = [f for f in LOOP_FAMILIES if any(r["family"] == f and r["status"] == "ok"
                                            for r in rows)]
    fig, axes = plot.panels(plt, max(1, len(fams)), ncols=3, height=2.6)
    for ax, fam in zip(axes, fams, strict=False):
        tools = list(dict.fromkeys(r["tool"] for r in rows if r["family"] == fam
                                   and r["status"] == "ok"))
        for i, tool in enumerate(tools):
            ok = sorted((r for r in rows if r["family"] == fam and r["tool"] == tool
                         and r["status"] == "ok" and r["median_s"]), key=lambda r: r["size"])
            style = plot.series_style(i)
            proven = "" if ok[0]["proven"] else " (heuristic)"
            ax.plot([r["size"] for r in ok], [r["median_s"] for r in ok],
                    label=tool + proven, **style)
            first = [r for r in ok if r["first_call_s"]]
            ax.plot([r["size"] for r in first], [r["first_call_s"] for r in first],
                    color=style["color"], linestyle="--", linewidth=0.8, alpha=0.7)
        ax.set_xscale("log")
        ax.set_yscale("log")
        lo, hi = ax.get_ylim()
        ax.set_ylim(lo, hi * (hi / lo) ** (0.12 * len(tools)))
        _log_ticks(ax)
        ax.set_xlabel("documents per call")
        ax.set_ylabel("CPU s per call")
        ax.set_title(f"{fam} (dashed: first call)", fontsize=8)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, loc="upper left")
    if not fams:
        axes[0].text(0.5, 0.5, "no in-process rows", ha="center", va="center")
    return plot.save(fig, out_dir / "inprocess.png")


def _log_ticks(ax, narrow: float = 100.0) -> None:
    """Readable log axes: labels at powers of ten only (minor labels collide), except on an
    axis spanning less than ``narrow`` (two decades), which may hold no power of ten at all:
    there ticks and plain-number labels at 1, 2 and 5 times each power of ten."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        if 0 < lo < hi and hi / lo < narrow:
            axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        axis.set_minor_formatter(NullFormatter())


def fitted_exponent(sizes, times) -> float:
    """Slope of the least-squares line of log(times) on log(sizes)."""
    return float(np.polyfit(np.log(sizes), np.log(times), 1)[0])


def _versions_timed(rows: list[dict]) -> list[str]:
    """The SUMMARY's "Versions timed" paragraph (a blank line first): each tool's versions
    among the rows that ran; nothing when none names one."""
    timed: dict = {}
    for r in rows:
        if r["status"] != "skipped" and r.get("version"):
            timed.setdefault(r["tool"], set()).add(r["version"])
    if not timed:
        return []
    return ["", "Versions timed: " + "; ".join(f"{t}: {', '.join(sorted(v))}"
                                               for t, v in timed.items()) + "."]
