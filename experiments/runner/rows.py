"""``rows.csv``: an experiment's rows written with exactly its columns (atomically) and read back
with their types restored; summaries and figures read only the completed rows."""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from exactalign.io.atomic import atomic_open

from .protocol import ERROR_COLUMN, ExperimentError


def _cell(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, float) and not math.isfinite(v):
        return "" if math.isnan(v) else repr(v)
    if isinstance(v, float):
        return repr(v)  # shortest round-trip representation
    return v


def write_rows(path: Path, rows: Sequence[dict], columns: Sequence[str]) -> None:
    """Write ``rows`` as CSV with exactly ``columns`` (a row with other keys is an error).

    ``None`` and NaN become empty cells; floats are written round-trip exact. The file is
    written atomically (:func:`atomic_open`): on any failure the previous file stays intact."""
    cols = list(columns)
    for k, row in enumerate(rows):
        if set(row) != set(cols):
            extra = sorted(set(row) - set(cols))
            missing = sorted(set(cols) - set(row))
            raise ExperimentError(f"row {k} does not match the declared columns "
                                  f"(extra: {extra}, missing: {missing})")
    with atomic_open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        for row in rows:
            w.writerow({c: _cell(row[c]) for c in cols})


def _parse(s: str) -> Any:
    if s == "":
        return None
    if s in ("True", "False"):
        return s == "True"
    try:
        return int(s)
    except ValueError:
        pass
    try:
        return float(s)
    except ValueError:
        return s


def read_rows(path: Path) -> list[dict]:
    """Rows of a CSV written by :func:`write_rows`, with types restored: empty -> ``None``,
    ``True``/``False`` -> bool, integers -> int, other numbers -> float, the rest str."""
    with open(path, newline="", encoding="utf-8") as fh:
        return [{k: _parse(v) for k, v in row.items()} for row in csv.DictReader(fh)]


def completed_rows(path: Path) -> list[dict]:
    """:func:`read_rows` without the rows of failed instances (a non-empty ``error``): what
    summaries and figures are drawn from."""
    return [r for r in read_rows(path) if not r.get(ERROR_COLUMN)]


def read_header(path: Path) -> list[str]:
    with open(path, newline="", encoding="utf-8") as fh:
        return next(csv.reader(fh), [])
