"""Reading tables (PubTabNet HTML, PubTabNet's token format, GriTS cell lists) into the grid
matrices GriTS compares.

A table is a list of cells, each covering a rectangle of grid positions (rows ``r0..r1-1``,
columns ``c0..c1-1``) with its text and, when known, its box ``[x0, y0, x1, y1]``.
:class:`Table` builds the three matrices of GriTS (grits-metric 0.7.0, ``conversion.py``), a
spanning cell repeated over every grid position it covers:

``top``  the cell's span relative to the position, ``[c0 - j, r0 - i, c1 - j, r1 - i]``;
         a position no cell covers holds ``[0, 0, 1, 1]`` (a 1x1 cell), as grits-metric fills it;
``con``  the cell's text (``""`` where no cell is);
``loc``  the cell's box (``[0, 0, 0, 0]`` where no cell is, and for a cell without a box --
         PubTabNet gives none to empty cells; grits-metric would stop on one).

The grid has ``max row + 1`` rows and ``max column + 1`` columns over the cells.

HTML (:func:`parse_html`)
    Parsed with the standard library's :class:`html.parser.HTMLParser` into a small element tree
    (end tags the HTML standard lets a table omit -- ``</td>``, ``</tr>``, ``</thead>`` -- are
    implied), then cells are placed as grits-metric's ``html_to_cell_list`` places them: the
    first ``<table>`` is walked in document order; every ``<tr>`` starts a row (a ``<td>`` or
    ``<th>`` outside a ``<tr>`` starts an implied row for its run of siblings); a cell takes the
    first column of its row not yet occupied (by a cell to its left or a ``rowspan`` from above)
    and occupies ``colspan`` x ``rowspan`` positions; its text is the text pieces under it joined
    with one space (``" ".join(itertext())``; comments are dropped and the text on either side
    of one joins). ``colspan`` and ``rowspan`` must be positive integers (browsers read
    ``"2px"`` as 2 and ``"0"`` as 1; here they are errors).

Bad input is one :class:`~exactalign.core.errors.InputError` naming the file, the table and the
cell (``file: table NAME: cell 3 (row 1, column 2): ...``): no table in the HTML, an empty table,
a span that is not a positive integer or is huge (:data:`MAX_SPAN`, :data:`MAX_POSITIONS`), a
``rowspan`` past the table's last row, and two cells that cover one grid position (GriTS would
let the later overwrite the earlier, silently). Positions no cell covers (ragged rows) are
allowed and filled as above, as GriTS fills them; :attr:`Table.holes` counts them.

Files (:func:`read_tables`)
    ``.jsonl``: PubTabNet annotations, one table a line (``filename``, ``html.structure.tokens``,
    ``html.cells[].tokens`` and ``bbox``): the HTML is rebuilt by putting each cell's tokens
    (single characters escaped) after its ``<td>`` token, then read as above, boxes in cell
    order. ``.json``: ``{name: html}``, ``{name: {"html": html}}`` (the PubTabNet/TEDS sample
    files), ``{name: [cells]}`` or a bare list of cells (one table, named after the file), where
    a cell is a GriTS cell dict (``row_nums``, ``column_nums``, ``cell_text``, ``bbox``). Anything
    else is read as one HTML document.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html import escape
from html.parser import HTMLParser
from pathlib import Path

from ..core.errors import InputError
from .text import TOO_DEEP, read_text

#: The largest colspan / rowspan accepted (the HTML standard's limits: 1000 and 65534).
MAX_SPAN = {"colspan": 1000, "rowspan": 65534}
#: The largest grid (rows x columns) accepted: GriTS's matrices are dense.
MAX_POSITIONS = 250_000

#: Elements without content (no end tag).
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "param", "source", "track", "wbr"})
#: start tag -> the open elements it closes (up to the nearest table), as the HTML standard's
#: implied end tags.
_CLOSES = {"td": ("td", "th"), "th": ("td", "th"), "tr": ("td", "th", "tr"),
           "thead": ("td", "th", "tr", "thead", "tbody", "tfoot"),
           "tbody": ("td", "th", "tr", "thead", "tbody", "tfoot"),
           "tfoot": ("td", "th", "tr", "thead", "tbody", "tfoot")}


@dataclass(frozen=True)
class Cell:
    """One table cell: rows ``r0..r1-1``, columns ``c0..c1-1``, its text, its box (or
    ``None``) and whether it is a column header (``<th>`` or inside ``<thead>``)."""

    r0: int
    r1: int
    c0: int
    c1: int
    text: str = ""
    bbox: tuple | None = None
    header: bool = False

    @property
    def row_nums(self) -> list[int]:
        return list(range(self.r0, self.r1))

    @property
    def column_nums(self) -> list[int]:
        return list(range(self.c0, self.c1))


@dataclass(frozen=True)
class Table:
    """A table read from ``path``: its cells and grid size (module docstring)."""

    name: str
    cells: tuple[Cell, ...]
    n_rows: int
    n_cols: int
    path: str | None = None
    holes: int = field(default=0)

    @property
    def size(self) -> int:
        """Grid positions (the number of entries of each matrix)."""
        return self.n_rows * self.n_cols

    @property
    def has_boxes(self) -> bool:
        return any(c.bbox is not None for c in self.cells)

    def _fill(self, default, value):
        grid = [[default] * self.n_cols for _ in range(self.n_rows)]
        for c in self.cells:
            for i in range(c.r0, c.r1):
                row = grid[i]
                for j in range(c.c0, c.c1):
                    row[j] = value(c, i, j)
        return grid

    def grid_top(self) -> list[list[tuple]]:
        return self._fill((0, 0, 1, 1),
                          lambda c, i, j: (c.c0 - j, c.r0 - i, c.c1 - j, c.r1 - i))

    def grid_con(self) -> list[list[str]]:
        return self._fill("", lambda c, i, j: c.text)

    def grid_loc(self) -> list[list[tuple]]:
        zero = (0.0, 0.0, 0.0, 0.0)
        return self._fill(zero, lambda c, i, j: zero if c.bbox is None else c.bbox)

    def grid(self, variant: str):
        return {"top": self.grid_top, "con": self.grid_con, "loc": self.grid_loc}[variant]()


# --------------------------------------------------------------------------------------------
# building a table from placed cells, with the checks
# --------------------------------------------------------------------------------------------
def _where(path, name, k=None, cell=None) -> str:
    out = f"table {name}"
    if k is not None:
        out += f": cell {k}"
        if cell is not None:
            out += f" (row {cell[0]}, column {cell[1]})"
    return out


def make_table(name: str, cells, *, path=None, n_tr: int | None = None) -> Table:
    """A :class:`Table` of ``cells`` (a sequence of :class:`Cell`), checked: not empty, no two
    cells on one position, not past :data:`MAX_POSITIONS`, and -- when ``n_tr``, the number of
    rows the source declares, is given -- no rowspan past its last row."""
    cells = tuple(cells)
    if not cells:
        raise InputError(f"{_where(path, name)}: the table has no cells", path=path)
    n_rows = max(c.r1 for c in cells)
    n_cols = max(c.c1 for c in cells)
    if n_rows * n_cols > MAX_POSITIONS:
        raise InputError(f"{_where(path, name)}: the grid has {n_rows} rows x {n_cols} columns "
                         f"= {n_rows * n_cols:,} positions, more than {MAX_POSITIONS:,}",
                         path=path)
    if n_tr is not None:
        for k, c in enumerate(cells):
            if c.r1 > n_tr:
                raise InputError(f"{_where(path, name, k, (c.r0, c.c0))}: rowspan "
                                 f"{c.r1 - c.r0} reaches row {c.r1 - 1}, past the table's "
                                 f"last row ({n_tr - 1})", path=path)
    owner: dict[tuple[int, int], int] = {}
    for k, c in enumerate(cells):
        for i in range(c.r0, c.r1):
            for j in range(c.c0, c.c1):
                other = owner.setdefault((i, j), k)
                if other != k:
                    raise InputError(f"{_where(path, name, k, (c.r0, c.c0))}: overlaps cell "
                                     f"{other} at row {i}, column {j}", path=path)
    return Table(name, cells, n_rows, n_cols, path, n_rows * n_cols - len(owner))


# --------------------------------------------------------------------------------------------
# HTML
# --------------------------------------------------------------------------------------------
class _Element:
    __slots__ = ("tag", "attrs", "children", "parent", "line")

    def __init__(self, tag, attrs, parent, line):
        self.tag, self.attrs, self.parent, self.line = tag, attrs, parent, line
        self.children: list = []  # _Element or str


class _TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = _Element("#document", {}, None, 1)
        self.stack = [self.root]
        self.last_was_text = False

    def handle_starttag(self, tag, attrs):
        closes = _CLOSES.get(tag)
        if closes:
            # close the open elements the tag implies closed, inside the innermost table
            tags = [e.tag for e in self.stack]
            t = len(tags) - 1 - tags[::-1].index("table") if "table" in tags else 0
            for k in range(t + 1, len(tags)):
                if tags[k] in closes:
                    del self.stack[k:]
                    break
        el = _Element(tag, dict(attrs), self.stack[-1], self.getpos()[0])
        self.stack[-1].children.append(el)
        self.last_was_text = False
        if tag not in _VOID:
            self.stack.append(el)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in _VOID and self.stack[-1].tag == tag:
            self.stack.pop()

    def handle_endtag(self, tag):
        for k in range(len(self.stack) - 1, 0, -1):
            if self.stack[k].tag == tag:
                del self.stack[k:]
                break
        self.last_was_text = False

    def handle_data(self, data):
        kids = self.stack[-1].children
        if self.last_was_text and kids and isinstance(kids[-1], str):
            kids[-1] += data  # text on either side of a comment joins
        else:
            kids.append(data)
        self.last_was_text = True

    def handle_comment(self, data):
        pass  # keeps last_was_text: the text after the comment joins the text before it


def _itertext(el: _Element):
    """The text pieces under ``el`` in document order (iterative: any nesting depth)."""
    stack = [iter(el.children)]
    while stack:
        for ch in stack[-1]:
            if isinstance(ch, str):
                yield ch
            elif ch.tag not in ("script", "style"):
                stack.append(iter(ch.children))
                break
        else:
            stack.pop()


def _find(el: _Element, tag: str):
    """The first element named ``tag`` under ``el`` in document order, or ``None``."""
    stack = [iter(el.children)]
    while stack:
        for ch in stack[-1]:
            if isinstance(ch, _Element):
                if ch.tag == tag:
                    return ch
                stack.append(iter(ch.children))
                break
        else:
            stack.pop()
    return None


def _span(el: _Element, attr: str, path, name, k, line_of) -> int:
    value = el.attrs.get(attr)
    if value is None:
        return 1
    text = str(value).strip()
    if not text.isdigit() or int(text) < 1:
        raise InputError(f"{_where(path, name, k)}: {attr}={value!r} is not a positive integer",
                         path=path, line=line_of(el))
    n = int(text)
    if n > MAX_SPAN[attr]:
        raise InputError(f"{_where(path, name, k)}: {attr}={n} is past the largest span "
                         f"accepted ({MAX_SPAN[attr]})", path=path, line=line_of(el))
    return n


def parse_html(html: str, *, name: str = "table", path=None, boxes=None,
               line_offset: int = 0) -> Table:
    """The :class:`Table` of the first ``<table>`` of ``html`` (module docstring); ``boxes``,
    when given, is one box (or ``None``) per cell in document order."""
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    table = _find(builder.root, "table")
    if table is None:
        raise InputError(f"{_where(path, name)}: no <table> element in the HTML", path=path,
                         line=line_offset or None)

    def line_of(el):
        return line_offset or el.line

    occupied: dict[int, set[int]] = {}
    cells = []
    tds = []
    row = -1
    n_tr = 0
    implied = None
    stack = [(table, False)]
    while stack:
        el, in_header = stack.pop()
        if el.tag == "tr":
            row += 1
            n_tr += 1
            implied = None
        if el.tag in ("td", "th"):
            if el.parent.tag != "tr" and el.parent is not implied:
                row += 1
                n_tr += 1
                implied = el.parent
            k = len(cells)
            colspan = _span(el, "colspan", path, name, k, line_of)
            rowspan = _span(el, "rowspan", path, name, k, line_of)
            taken = occupied.setdefault(row, set())
            col = 0
            while col in taken:
                col += 1
            if row + rowspan > 65535 or col + colspan > 65535:
                raise InputError(f"{_where(path, name, k, (row, col))}: the cell reaches past "
                                 "the largest grid accepted", path=path, line=line_of(el))
            for i in range(row, row + rowspan):
                occupied.setdefault(i, set()).update(range(col, col + colspan))
            box = None
            if boxes is not None and k < len(boxes):
                box = boxes[k]
            cells.append(Cell(row, row + rowspan, col, col + colspan,
                              " ".join(_itertext(el)), box,
                              el.tag == "th" or in_header))
            tds.append(el)
        for ch in reversed(el.children):
            if isinstance(ch, _Element):
                stack.append((ch, in_header or el.tag in ("th", "thead")))
    if boxes is not None and len(boxes) != len(cells):
        raise InputError(f"{_where(path, name)}: {len(boxes)} cell annotations for "
                         f"{len(cells)} cells in the structure", path=path,
                         line=line_offset or None)
    try:
        return make_table(name, cells, path=path, n_tr=n_tr)
    except InputError as e:
        if e.line is None and (line_offset or tds):
            k = _cell_of(e.message)
            line = line_offset or (tds[k].line if k is not None and k < len(tds) else None)
            raise InputError(e.message, path=path, line=line) from None
        raise


def _cell_of(message: str) -> int | None:
    import re

    m = re.search(r": cell (\d+)", message)
    return int(m.group(1)) if m else None


# --------------------------------------------------------------------------------------------
# PubTabNet tokens and GriTS cell lists
# --------------------------------------------------------------------------------------------
def pubtabnet_html(structure_tokens, cells, *, name="table", path=None, line=None) -> str:
    """The HTML of a PubTabNet annotation: each cell's tokens (single characters escaped) put
    after the ``<td>`` (or the ``>`` closing a ``<td ...``) that opens it."""
    out = []
    k = 0
    opening = False
    for tok in structure_tokens:
        if not isinstance(tok, str):
            raise InputError(f"{_where(path, name)}: structure token {tok!r} is not a string",
                             path=path, line=line)
        out.append(tok)
        if tok == "<td":
            opening = True
        if tok == "<td>" or (opening and tok == ">"):
            opening = False
            if k >= len(cells):
                raise InputError(f"{_where(path, name)}: the structure has more cells than "
                                 f"the {len(cells)} annotated", path=path, line=line)
            toks = cells[k].get("tokens", []) if isinstance(cells[k], dict) else None
            if not isinstance(toks, list):
                raise InputError(f"{_where(path, name, k)}: 'tokens' is not a list",
                                 path=path, line=line)
            out.extend(escape(t) if len(t) == 1 else t for t in toks)
            k += 1
    if k != len(cells):
        raise InputError(f"{_where(path, name)}: {len(cells)} cells annotated, {k} in the "
                         "structure", path=path, line=line)
    return "<table>" + "".join(out) + "</table>"


def _box(value, path, name, k, line=None):
    if value is None:
        return None
    if (not isinstance(value, list | tuple) or len(value) != 4
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)):
        raise InputError(f"{_where(path, name, k)}: bbox {value!r} is not four numbers",
                         path=path, line=line)
    x0, y0, x1, y1 = (float(v) if isinstance(v, float) else v for v in value)
    if x0 > x1 or y0 > y1:
        raise InputError(f"{_where(path, name, k)}: bbox {list(value)} has x0 > x1 or y0 > y1",
                         path=path, line=line)
    return (x0, y0, x1, y1)


def _span_list(value, what, path, name, k):
    if (not isinstance(value, list) or not value
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                       for v in value)):
        raise InputError(f"{_where(path, name, k)}: {what} must be a non-empty list of "
                         f"non-negative integers, not {value!r}", path=path)
    lo, hi = min(value), max(value)
    if sorted(value) != list(range(lo, hi + 1)):
        raise InputError(f"{_where(path, name, k)}: {what} {value} are not consecutive",
                         path=path)
    return lo, hi + 1


def cells_table(cells, *, name="table", path=None) -> Table:
    """A :class:`Table` of GriTS cell dicts (``row_nums``, ``column_nums``, ``cell_text``,
    ``bbox``)."""
    if not isinstance(cells, list):
        raise InputError(f"{_where(path, name)}: a table's cells must be a list", path=path)
    out = []
    for k, c in enumerate(cells):
        if not isinstance(c, dict):
            raise InputError(f"{_where(path, name, k)}: a cell must be an object", path=path)
        for key in ("row_nums", "column_nums"):
            if key not in c:
                raise InputError(f"{_where(path, name, k)}: no '{key}'", path=path)
        r0, r1 = _span_list(c["row_nums"], "row_nums", path, name, k)
        c0, c1 = _span_list(c["column_nums"], "column_nums", path, name, k)
        if r1 - r0 > MAX_SPAN["rowspan"] or c1 - c0 > MAX_SPAN["colspan"]:
            raise InputError(f"{_where(path, name, k, (r0, c0))}: span of {r1 - r0} rows x "
                             f"{c1 - c0} columns is past the largest accepted", path=path)
        text = c.get("cell_text", "")
        if not isinstance(text, str):
            raise InputError(f"{_where(path, name, k, (r0, c0))}: cell_text is not a string",
                             path=path)
        out.append(Cell(r0, r1, c0, c1, text, _box(c.get("bbox"), path, name, k),
                        bool(c.get("is_column_header", False))))
    return make_table(name, out, path=path)


# --------------------------------------------------------------------------------------------
# files
# --------------------------------------------------------------------------------------------
def read_tables(path) -> dict[str, Table]:
    """Every table of the file at ``path``, by name, in file order (module docstring)."""
    label, text = read_text(path)
    suffix = Path(label).suffix.lower()
    if suffix == ".jsonl":
        return _read_jsonl(label, text)
    if suffix == ".json":
        return _read_json(label, text)
    return {Path(label).stem: parse_html(text, name=Path(label).stem, path=label)}


def _loads(text, label, line=None):
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"not valid JSON: {e.msg}", path=label,
                         line=line if line is not None else e.lineno) from None
    except RecursionError:
        raise InputError(TOO_DEEP, path=label, line=line) from None


def _read_jsonl(label, text) -> dict[str, Table]:
    out: dict[str, Table] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        rec = _loads(line, label, n)
        if not isinstance(rec, dict) or not isinstance(rec.get("html"), dict):
            raise InputError("a PubTabNet line is an object with an 'html' object",
                             path=label, line=n)
        name = str(rec.get("filename", f"line{n}"))
        h = rec["html"]
        tokens = (h.get("structure") or {}).get("tokens") if isinstance(h.get("structure"),
                                                                         dict) else None
        cells = h.get("cells")
        if not isinstance(tokens, list) or not isinstance(cells, list):
            raise InputError(f"table {name}: needs html.structure.tokens and html.cells lists",
                             path=label, line=n)
        html = pubtabnet_html(tokens, cells, name=name, path=label, line=n)
        boxes = [_box(c.get("bbox"), label, name, k, n) for k, c in enumerate(cells)]
        _add(out, parse_html(html, name=name, path=label, boxes=boxes, line_offset=n), label, n)
    return out


def _add(out, table, label, line=None):
    if table.name in out:
        raise InputError(f"table {table.name} appears twice", path=label, line=line)
    out[table.name] = table


def _read_json(label, text) -> dict[str, Table]:
    data = _loads(text, label)
    stem = Path(label).stem
    if isinstance(data, list):
        return {stem: cells_table(data, name=stem, path=label)}
    if not isinstance(data, dict):
        raise InputError("a tables file is a JSON object {name: table} or a list of cells",
                         path=label)
    out: dict[str, Table] = {}
    for name, value in data.items():
        if isinstance(value, dict) and "html" in value:
            value = value["html"]
        elif isinstance(value, dict) and "cells" in value:
            value = value["cells"]
        if isinstance(value, str):
            _add(out, parse_html(value, name=name, path=label), label)
        elif isinstance(value, list):
            _add(out, cells_table(value, name=name, path=label), label)
        else:
            raise InputError(f"table {name}: expected HTML text or a list of cells, not "
                             f"{type(value).__name__}", path=label)
    if not out:
        raise InputError("the file holds no table", path=label)
    return out
