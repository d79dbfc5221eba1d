"""Shared plotting helpers. Figures are drawn from CSV rows only (never from live objects), with
matplotlib's non-interactive Agg backend, as PNG files.

Each experiment module owns its ``figures(csv_path, out_dir)``; this module gives them the
backend setup, grouping statistics and a consistent style per method.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

#: One colour and marker per method, shared by every figure.
STYLE = {
    "exact": dict(color="#1b7837", marker="o"),
    "ilp": dict(color="#2166ac", marker="s"),
    "ilp-build": dict(color="#2166ac", marker="s", linestyle="--", markerfacecolor="none"),
    "greedy": dict(color="#d6604d", marker="^"),
    "pilot2015": dict(color="#762a83", marker="v"),
    "ref-order": dict(color="#e08214", marker="D"),
}


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend (safe without a display, and in workers)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


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


def line_with_band(ax, xs, stats: dict, label: str, style: dict | None = None) -> None:
    """Plot the mean of ``stats[x]`` over ``xs`` with a shaded min..max band (missing x skipped)."""
    xs = [x for x in xs if x in stats]
    if not xs:
        return
    mean = [stats[x][0] for x in xs]
    lo = [stats[x][1] for x in xs]
    hi = [stats[x][2] for x in xs]
    style = dict(style or {})
    (line,) = ax.plot(xs, mean, label=label, linewidth=1.6, markersize=5, **style)
    ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.18, linewidth=0)  # the line's


def save(fig, path: Path) -> Path:
    """Write ``fig`` as PNG (150 dpi, tight) and close it."""
    from .runner import atomic_open

    path = Path(path)
    with atomic_open(path, "wb") as fh:  # never a half-written PNG in place of the last one
        fig.savefig(fh, format="png", dpi=150, bbox_inches="tight")
    pyplot().close(fig)
    return path
