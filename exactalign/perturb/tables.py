"""Seeded structural perturbations of gold tables: the errors table structure recognisers make.

:func:`perturb` applies, to a :class:`~exactalign.io.tables.Table`, each error class at its own
rate (:class:`TableErrors`), drawing every choice from one ``numpy.random.Generator``:

``drop_row``     a row is missed: its own cells vanish, a cell spanning it loses one row;
``insert_row``   a spurious row of empty 1x1 cells is inserted (a cell spanning across the
                 insertion point grows by one row);
``drop_col``     / ``insert_col``: the same for columns;
``merge``        two horizontally adjacent cells with the same rows become one spanning cell
                 (texts joined with a space, boxes united);
``split``        a spanning cell becomes 1x1 cells (its text and box stay in the first);
``text``         a character of a cell's text is deleted, substituted or inserted.

The number of errors of a class is ``rate`` times its opportunities (rows for the row classes,
columns for the column classes, cells for the others), rounded with a random draw (so a small
rate still sometimes errs on a small table). Errors are applied in the order of the list above.
The result is a valid table (no overlaps, no empty grid: a drop that would empty the table is
skipped), with the log of what was applied.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, fields, replace

import numpy as np

from ..io.tables import Cell, Table, make_table

_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789 .,-%"


@dataclass(frozen=True)
class TableErrors:
    """The rate of each error class (module docstring)."""

    drop_row: float = 0.0
    insert_row: float = 0.0
    drop_col: float = 0.0
    insert_col: float = 0.0
    merge: float = 0.0
    split: float = 0.0
    text: float = 0.0

    @classmethod
    def structural(cls, rate: float) -> TableErrors:
        """Every class at ``rate`` (text edits too)."""
        return cls(**{f.name: rate for f in fields(cls)})


@dataclass(frozen=True)
class TablePerturbation:
    table: Table
    applied: Counter


def _count(rng: np.random.Generator, rate: float, n: int) -> int:
    x = rate * n
    return int(np.floor(x) + (rng.random() < x - np.floor(x)))


def _rebuild(table: Table, cells) -> Table:
    return make_table(table.name, cells, path=table.path)


def _drop(cells, k: int, axis: int):
    out = []
    for c in cells:
        lo, hi = (c.r0, c.r1) if axis == 0 else (c.c0, c.c1)
        if lo <= k < hi:
            if hi - lo == 1:
                continue
            hi -= 1
        elif lo > k:
            lo, hi = lo - 1, hi - 1
        out.append(replace(c, r0=lo, r1=hi) if axis == 0 else replace(c, c0=lo, c1=hi))
    return out


def _insert(cells, k: int, axis: int, other: int):
    out = []
    for c in cells:
        lo, hi = (c.r0, c.r1) if axis == 0 else (c.c0, c.c1)
        if lo < k < hi:
            hi += 1
        elif lo >= k:
            lo, hi = lo + 1, hi + 1
        out.append(replace(c, r0=lo, r1=hi) if axis == 0 else replace(c, c0=lo, c1=hi))
    # the new row (column): empty 1x1 cells where no grown cell covers it
    covered = set()
    for c in out:
        if axis == 0 and c.r0 <= k < c.r1:
            covered.update(range(c.c0, c.c1))
        if axis == 1 and c.c0 <= k < c.c1:
            covered.update(range(c.r0, c.r1))
    for j in range(other):
        if j not in covered:
            out.append(Cell(k, k + 1, j, j + 1) if axis == 0 else Cell(j, j + 1, k, k + 1))
    return out


def _union(a, b):
    if a is None or b is None:
        return a if b is None else b
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _edit(text: str, rng: np.random.Generator) -> str:
    op = int(rng.integers(3)) if text else 2
    ch = _ALPHABET[int(rng.integers(len(_ALPHABET)))]
    k = int(rng.integers(len(text) + (op == 2))) if text or op == 2 else 0
    if op == 0:
        return text[:k] + text[k + 1:]
    if op == 1:
        return text[:k] + ch + text[k + 1:]
    return text[:k] + ch + text[k:]


def perturb(table: Table, errors: TableErrors, rng) -> TablePerturbation:
    """``table`` with the errors of ``errors`` (module docstring); ``rng`` a
    ``numpy.random.Generator`` or a seed."""
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    applied: Counter = Counter()
    cur = table
    for axis, drop_rate, ins_rate in ((0, errors.drop_row, errors.insert_row),
                                      (1, errors.drop_col, errors.insert_col)):
        n = cur.n_rows if axis == 0 else cur.n_cols
        for _ in range(_count(rng, drop_rate, n)):
            n = cur.n_rows if axis == 0 else cur.n_cols
            if n <= 1:
                break
            cells = _drop(cur.cells, int(rng.integers(n)), axis)
            if not cells:
                continue
            cur = _rebuild(cur, cells)
            applied["drop_row" if axis == 0 else "drop_col"] += 1
        n = cur.n_rows if axis == 0 else cur.n_cols
        for _ in range(_count(rng, ins_rate, n)):
            n = cur.n_rows if axis == 0 else cur.n_cols
            other = cur.n_cols if axis == 0 else cur.n_rows
            cur = _rebuild(cur, _insert(cur.cells, int(rng.integers(n + 1)), axis, other))
            applied["insert_row" if axis == 0 else "insert_col"] += 1
    for _ in range(_count(rng, errors.merge, len(cur.cells))):
        cells = list(cur.cells)
        pos = {(c.r0, c.r1, c.c0): k for k, c in enumerate(cells)}
        cand = [(k, pos[(c.r0, c.r1, c.c1)]) for k, c in enumerate(cells)
                if (c.r0, c.r1, c.c1) in pos]
        if not cand:
            break
        a, b = cand[int(rng.integers(len(cand)))]
        ca, cb = cells[a], cells[b]
        text = " ".join(t for t in (ca.text, cb.text) if t)
        cells[a] = replace(ca, c1=cb.c1, text=text, bbox=_union(ca.bbox, cb.bbox))
        del cells[b]
        cur = _rebuild(cur, cells)
        applied["merge"] += 1
    for _ in range(_count(rng, errors.split, len(cur.cells))):
        cells = list(cur.cells)
        spanning = [k for k, c in enumerate(cells) if (c.r1 - c.r0) * (c.c1 - c.c0) > 1]
        if not spanning:
            break
        k = spanning[int(rng.integers(len(spanning)))]
        c = cells.pop(k)
        parts = [Cell(i, i + 1, j, j + 1) for i in range(c.r0, c.r1) for j in range(c.c0, c.c1)]
        parts[0] = replace(parts[0], text=c.text, bbox=c.bbox, header=c.header)
        cur = _rebuild(cur, cells[:k] + parts + cells[k:])
        applied["split"] += 1
    n_edits = _count(rng, errors.text, len(cur.cells))
    if n_edits:
        cells = list(cur.cells)
        for _ in range(n_edits):
            k = int(rng.integers(len(cells)))
            cells[k] = replace(cells[k], text=_edit(cells[k].text, rng))
            applied["text"] += 1
        cur = _rebuild(cur, cells)
    return TablePerturbation(replace(cur, name=table.name), applied)
