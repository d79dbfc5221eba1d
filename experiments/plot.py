"""Shared plotting helpers. Figures are drawn from CSV rows only (never from live objects), with
matplotlib's non-interactive Agg backend, and saved as PNG (for the summary) with a PDF and an
SVG of the same figure beside it (for papers).

Each experiment module owns its ``figures(csv_path, out_dir)``; this module gives them the
backend and a paper style (:func:`pyplot`), grouping statistics, one colour-blind-safe palette
(Okabe & Ito's, :data:`PALETTE`) with a fixed colour and marker per method (:data:`STYLE`), and
:func:`save`, which also checks that no panel carries more than :data:`MAX_SERIES` series.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

#: Okabe & Ito (2008), "Color Universal Design": eight colours told apart under protanopia,
#: deuteranopia and tritanopia. Ordered for use (yellow, weak on white, last).
OKABE_ITO = {
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "bluish green": "#009E73",
    "orange": "#E69F00",
    "reddish purple": "#CC79A7",
    "sky blue": "#56B4E9",
    "black": "#000000",
    "yellow": "#F0E442",
}
#: The colour cycle of every figure: the Okabe-Ito colours but yellow.
PALETTE = tuple(c for name, c in OKABE_ITO.items() if name != "yellow")
#: Markers paired with :data:`PALETTE` (so series differ by shape too, also in greyscale).
MARKERS = ("o", "s", "^", "D", "v", "P", "X")

#: At most this many labelled series per panel (:func:`save` warns above it).
MAX_SERIES = 6

#: Figure widths [inches] of a two-column paper: one column and the full text width.
COLUMN_WIDTH = 3.5
TEXT_WIDTH = 7.0

#: One colour and marker per method, shared by every figure (exact methods blue, the
#: heuristics warm colours).
STYLE = {
    "exact": dict(color=OKABE_ITO["blue"], marker="o"),
    "ilp": dict(color=OKABE_ITO["sky blue"], marker="s"),
    "ilp-build": dict(color=OKABE_ITO["sky blue"], marker="s", linestyle="--",
                      markerfacecolor="none"),
    "greedy": dict(color=OKABE_ITO["vermillion"], marker="^"),
    "pilot2015": dict(color=OKABE_ITO["reddish purple"], marker="v"),
    "ref-order": dict(color=OKABE_ITO["orange"], marker="D"),
    "other": dict(color=OKABE_ITO["bluish green"], marker="P"),
    "reference": dict(color=OKABE_ITO["black"], marker="x"),
}

#: Matplotlib settings of every figure: readable at print size (7-9 pt text on a 3.5 or 7 inch
#: wide figure), fonts embedded as TrueType in PDF and kept as text in SVG, no timestamps (the
#: same CSV gives the same PDF and SVG bytes).
RC = {
    "font.size": 8.5,
    "axes.titlesize": 9,
    "axes.labelsize": 8.5,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 8,
    "legend.title_fontsize": 8,
    "figure.titlesize": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 1.5,
    "lines.markersize": 5,
    "legend.frameon": False,
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
    "svg.fonttype": "none",
    "svg.hashsalt": "exactalign",
    "figure.dpi": 100,
}

#: The formats written by :func:`save`, besides the PNG.
VECTOR_FORMATS = ("pdf", "svg")
_METADATA = {"pdf": {"CreationDate": None, "ModDate": None, "Producer": None},
             "svg": {"Date": None}, "png": {}}


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend (safe without a display, and in workers), with
    the paper style :data:`RC` and the :data:`PALETTE` colour cycle."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    from cycler import cycler

    matplotlib.rcParams.update(RC)
    matplotlib.rcParams["axes.prop_cycle"] = cycler(color=list(PALETTE))
    return plt


def colour(i: int) -> str:
    """The ``i``-th colour of :data:`PALETTE` (cycling)."""
    return PALETTE[i % len(PALETTE)]


def series_style(i: int, **extra) -> dict:
    """Colour and marker of the ``i``-th series of a panel (both cycle together)."""
    return dict(color=colour(i), marker=MARKERS[i % len(MARKERS)], **extra)


def stats_by(rows: Iterable[dict], key: Callable[[dict], object],
             value: Callable[[dict], float | None]) -> dict:
    """``{key: (mean, min, max, count)}`` of ``value(row)`` over rows, skipping ``None``/NaN."""
    groups: dict = defaultdict(list)
    for r in rows:
        v = value(r)
        if v is None or (isinstance(v, float) and np.isnan(v)):
            continue
        groups[key(r)].append(float(v))
    return {k: (float(np.mean(v)), float(np.min(v)), float(np.max(v)), len(v))
            for k, v in groups.items()}


def line_with_band(ax, xs, stats: dict, label: str, style: dict | None = None):
    """Plot the mean of ``stats[x]`` over ``xs`` with a shaded min..max band (missing x
    skipped); returns the line (``None`` when nothing was drawn)."""
    xs = [x for x in xs if x in stats]
    if not xs:
        return None
    mean = [stats[x][0] for x in xs]
    lo = [stats[x][1] for x in xs]
    hi = [stats[x][2] for x in xs]
    style = dict(style or {})
    (line,) = ax.plot(xs, mean, label=label, **style)
    ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.15, linewidth=0)  # the line's
    return line


def panels(plt, n: int, *, ncols: int = 3, width: float = TEXT_WIDTH, height: float = 2.3,
           sharex: bool = False, sharey: bool = False):
    """A figure of ``n`` panels in rows of at most ``ncols`` (``width`` wide, ``height`` per
    row); returns ``(fig, axes)`` with ``axes`` the ``n`` panels in reading order (unused
    grid cells removed)."""
    ncols = max(1, min(ncols, n))
    nrows = -(-n // ncols)
    fig, grid = plt.subplots(nrows, ncols, figsize=(width, height * nrows + 0.5),
                             squeeze=False, sharex=sharex, sharey=sharey,
                             layout="constrained")
    axes = list(grid.flat)
    for ax in axes[n:]:
        ax.remove()
    return fig, axes[:n]


def legend_below(fig, handles=None, labels=None, *, ax=None, ncol: int | None = None,
                 title: str | None = None, **kw):
    """One legend for the whole figure, under the panels, its entries in up to ``ncol``
    columns (default: all in one row, at most 4 a row)."""
    if handles is None:
        src = ax if ax is not None else fig.axes[0]
        handles, labels = src.get_legend_handles_labels()
    if not handles:
        return None
    ncol = ncol or min(len(handles), 4)
    return fig.legend(handles, labels, loc="outside lower center", ncol=ncol, title=title,
                      **kw)


def direct_labels(ax, lines: Sequence, *, min_gap: float = 0.06, fmt=None) -> None:
    """Label each line at its last point, in its colour, instead of a legend; labels closer
    than ``min_gap`` (a share of the axes height) are pushed apart vertically. The x axis is
    widened to leave room for them."""
    pts = []
    for ln in lines:
        if ln is None or not len(ln.get_xdata()):
            continue
        x, y = ln.get_xdata()[-1], ln.get_ydata()[-1]
        pts.append((ln, x, y))
    if not pts:
        return
    ax.figure.canvas.draw()  # limits and transforms as they will be drawn
    to_axes = ax.transAxes.inverted()
    placed = []
    for ln, x, y in pts:
        ax_y = to_axes.transform(ax.transData.transform((x, y)))[1]
        placed.append([ax_y, ln, x, y])
    placed.sort(key=lambda p: p[0])
    for k in range(1, len(placed)):  # push up so neighbours keep min_gap
        placed[k][0] = max(placed[k][0], placed[k - 1][0] + min_gap)
    over = placed[-1][0] - 0.98 if placed else 0
    if over > 0:  # then shift the whole stack down to fit, keeping the gaps
        for p in placed:
            p[0] -= over
    for ax_y, ln, _x, _y in placed:
        text = fmt(ln.get_label()) if fmt else ln.get_label()
        ax.annotate(text, xy=(1.0, ax_y), xycoords=("axes fraction", "axes fraction"),
                    xytext=(4, 0), textcoords="offset points", va="center", ha="left",
                    color=ln.get_color(), fontsize=RC["legend.fontsize"],
                    annotation_clip=False)


def panel_series(ax) -> int:
    """The number of labelled series (legend entries) drawn on ``ax``."""
    return len(ax.get_legend_handles_labels()[0])


def check_series(fig, limit: int = MAX_SERIES) -> list[str]:
    """Warn (``UserWarning``) about every panel with more than ``limit`` labelled series;
    returns the warnings."""
    out = []
    for k, ax in enumerate(fig.axes):
        n = panel_series(ax)
        if n > limit:
            title = ax.get_title() or f"panel {k}"
            out.append(f"{title!r} has {n} series (at most {limit} read well)")
    for msg in out:
        warnings.warn(msg, stacklevel=3)
    return out


def sibling_paths(png: str | Path) -> list[Path]:
    """The vector files written beside ``png`` by :func:`save` (``.pdf``, ``.svg``)."""
    png = Path(png)
    return [png.with_suffix(f".{ext}") for ext in VECTOR_FORMATS]


def save(fig, path: Path) -> Path:
    """Write ``fig`` as PNG (200 dpi) and, beside it, as PDF and SVG (vector, fonts embedded /
    kept as text, no timestamps), each atomically; close it and return the PNG's path.
    Panels with more than :data:`MAX_SERIES` series are reported (:func:`check_series`)."""
    from exactalign.io.atomic import atomic_open

    path = Path(path)
    check_series(fig)
    for target, fmt in ((path, "png"), *zip(sibling_paths(path), VECTOR_FORMATS,
                                             strict=True)):
        with atomic_open(target, "wb") as fh:  # never a half-written file in place of the last
            fig.savefig(fh, format=fmt, dpi=200, bbox_inches="tight",
                        metadata=_METADATA[fmt])
    pyplot().close(fig)
    return path
