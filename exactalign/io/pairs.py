"""Reading and writing bipartite matching instances (candidate pairs with weights).

Two formats; :func:`read_pairs` picks JSON for a ``.json`` file or text starting with ``{``, the
text format otherwise.

Text format (TSV or any whitespace)
-----------------------------------
::

    # ref spans {t1,t2} {t3,t4,t5}; pred spans {t2,t3} {t1,t2}; Dice similarity
    n_ref 2 n_pred 2 kind 1:1
    0   0   0.5
    0   1   1.0
    1   0   0.4

* ``#`` starts a comment (a whole line or the end of a line); blank lines are ignored.
* An optional header, before the first pair: ``n_ref N n_pred M``, optionally followed by
  ``kind K`` (``1:1``, ``1:N``, ``N:1`` or ``N:N``; default ``1:1``). Each key is optional; a size
  not declared is 1 + the largest index seen on that side (0 if none).
* Then one candidate pair per line: ``ref_index pred_index weight`` -- two 0-based integer
  indices and a finite weight ``>= 0`` (pairs of weight 0 are not candidates and are dropped).
  A pair may appear only once.

Limits
------
A side has at most :data:`MAX_ITEMS` (10**7) items: ``n_ref``, ``n_pred`` and every index
stay below it (a header of 2**31 would allocate 16 GiB). A nonzero weight lies in
``[1e-5, 1e12]`` (:data:`MIN_WEIGHT`, :data:`MAX_WEIGHT`) and the largest is at most
``1e12`` times the smallest (:data:`MAX_WEIGHT_RATIO`): outside that range the solvers'
tolerances (1e-7, and exactalign's certificate tolerance 1e-6) or their infinity (1e20) make a
proof of optimality meaningless, so the file is refused; scale the weights (the optimal
alignment does not change when every weight is multiplied by the same factor).

JSON format
-----------
::

    {"n_ref": 2, "n_pred": 2, "kind": "1:1",
     "pairs": [[0, 0, 0.5], [0, 1, 1.0], [1, 0, 0.4]]}

Only ``pairs`` is required; ``n_ref``, ``n_pred`` and ``kind`` mean what they mean in the
header. No other key is allowed (a misspelt key is an error, not ignored).

Errors
------
Every problem raises :class:`~exactalign.InputError` naming the file and line
(``file.tsv:7: ...``): a wrong number of fields, an index that is not an integer, negative, or
not below the declared size, a size or index past :data:`MAX_ITEMS`, a weight that is not a
number, negative, not finite or outside the range above, a pair given twice (both lines named), malformed JSON (the JSON decoder's line), an unknown kind or key, a
file with neither header nor pairs. Everything is validated before the instance is built.
A kind passed to :func:`read_pairs` overrides the file's (the command line's ``--kind``).
"""

from __future__ import annotations

import bisect
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import InputError
from .text import TOO_DEEP, read_text

if TYPE_CHECKING:
    from ..problems.bipartite import BipartiteInstance

#: The kinds the reader accepts (the keys of ``bipartite.KINDS``; kept here so that reading a
#: file's header does not import numpy -- a test pins the two together).
KINDS = ("1:1", "1:N", "N:1", "N:N")

#: Most items a side may have (``n_ref``, ``n_pred``, 1 + an index). An instance is stored
#: sparsely, but its arrays indexed by item (the CSR row pointers, the per-item marks of the
#: solvers) take 8 bytes an item: 10**7 items is 80 MB, while a header of 2**31 allocated
#: 16 GiB and was killed for memory (issue 36). No alignment task comes near it.
MAX_ITEMS = 10**7
#: Largest index accepted.
MAX_INDEX = MAX_ITEMS - 1

#: The range of a nonzero weight, and the most the largest may exceed the smallest by.
#: A proof of optimality is checked to :data:`exactalign.core.result.OBJ_TOL` (1e-6, absolute
#: below an objective of 1, relative above), and HiGHS works to feasibility and optimality
#: tolerances of 1e-7: a weight near them is lost in the rounding, and a solver then "proves"
#: an objective below the true optimum (measured: every 8 x 8 instance of weights in
#: [1e-9, 1e-6] certified "optimal" below the optimum, some near 1e-6 too, none from 1e-5 on).
#: The smallest weight is therefore ten times that tolerance. The largest, 1e12, keeps an
#: objective of 10**7 such weights (:data:`MAX_ITEMS`) below HiGHS' infinity (1e20, past which a
#: cost *is* infinite: weights of 1e300 ended in status error with HiGHS and "infeasible" with
#: CBC). A ratio of 1e12 keeps the smallest weight 4,500 times above the float64 rounding of a
#: sum of the largest (2.2e-16); past it the smallest weights change nothing a solver can see.
MIN_WEIGHT = 1e-5
MAX_WEIGHT = 1e12
MAX_WEIGHT_RATIO = 1e12
WEIGHT_RANGE = (f"nonzero weights lie in [{MIN_WEIGHT:g}, {MAX_WEIGHT:g}], the largest at most "
                f"{MAX_WEIGHT_RATIO:g} times the smallest")

_INT = re.compile(r"[+-]?[0-9]+")
_WS = re.compile(r"\s*")
_SIDES = (("reference", "n_ref"), ("predicted", "n_pred"))


@dataclass
class _Pairs:
    """Validated raw content of a file, before it becomes a :class:`BipartiteInstance`."""

    rows: list[int]
    cols: list[int]
    weights: list[float]
    n_ref: int | None
    n_pred: int | None
    kind: str | None


def read_pairs(path, *, kind: str | None = None, format: str = "auto") -> BipartiteInstance:
    """Read a bipartite instance from ``path`` (``"-"`` reads standard input).

    ``format`` is ``"auto"`` (JSON for a ``.json`` suffix or text starting with ``{``),
    ``"text"`` or ``"json"``. ``kind`` (if given) overrides the file's kind. Raises
    :class:`InputError` (with file and line) for bad content and ``OSError`` when the file
    cannot be read."""
    label, text = read_text(path)
    if format == "auto":
        format = "json" if label.lower().endswith(".json") or text.lstrip().startswith("{") \
            else "text"
    return parse_pairs(text, path=label, kind=kind, format=format)


def parse_pairs(text: str, *, path: str = "<string>", kind: str | None = None,
                format: str = "text") -> BipartiteInstance:
    """As :func:`read_pairs`, from a string; ``path`` is the name errors give."""
    if format == "text":
        raw = _parse_text(text, path)
    elif format == "json":
        raw = _parse_json(text, path)
    else:
        raise ValueError(f"unknown format {format!r}; choose 'auto', 'text' or 'json'")
    if kind is not None:
        if kind not in KINDS:
            raise InputError(f"unknown kind {kind!r}; choose one of {', '.join(KINDS)}")
        raw.kind = kind
    return _build(raw)


def format_pairs(inst: BipartiteInstance) -> str:
    """``inst`` in the text format (header with sizes and kind; weights written exactly)."""
    lines = [f"n_ref {inst.n_ref} n_pred {inst.n_pred} kind {inst.kind}"]
    lines += [f"{r}\t{c}\t{w!r}" for r, c, w in
              zip(inst.rows.tolist(), inst.cols.tolist(), inst.weights.tolist(), strict=True)]
    return "\n".join(lines) + "\n"


def write_pairs(inst: BipartiteInstance, path) -> None:
    """Write ``inst`` to ``path`` in the text format (:func:`read_pairs` reads it back)."""
    Path(path).write_text(format_pairs(inst), encoding="utf-8")


# --------------------------------------------------------------------------------------------
# shared checks
# --------------------------------------------------------------------------------------------
def _check_kind(value, path, line) -> str:
    if value not in KINDS:
        raise InputError(f"unknown kind {value!r}; choose one of {', '.join(KINDS)}",
                         path=path, line=line)
    return value


def _check_size(key, value, path, line) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"{key} must be a non-negative integer, got {value!r}",
                         path=path, line=line)
    if value > MAX_ITEMS:
        raise InputError(f"{key} {value} is too large (at most {MAX_ITEMS} items a side)",
                         path=path, line=line)
    return value


def _check_weight(w: float, shown, path, line) -> float:
    if not math.isfinite(w):
        raise InputError(f"weight {shown} is not finite", path=path, line=line)
    if w < 0:
        raise InputError(f"weight {shown} is negative; weights must be >= 0",
                         path=path, line=line)
    return w


def _check_range(w: float, shown, path, line) -> None:
    """A nonzero weight ``w`` (written ``shown``) within [MIN_WEIGHT, MAX_WEIGHT]."""
    if w < MIN_WEIGHT:
        raise InputError(f"weight {shown} is below {MIN_WEIGHT:g}: {WEIGHT_RANGE} (the solvers' "
                         "tolerances would swamp it and a proof of optimality mean nothing); "
                         "scale the weights up, or write 0 for no candidate",
                         path=path, line=line)
    raise InputError(f"weight {shown} is above {MAX_WEIGHT:g}: {WEIGHT_RANGE} (near the "
                     "solvers' infinity, 1e20, a proof of optimality means nothing); scale the "
                     "weights down", path=path, line=line)


class _Collector:
    """Accumulates pairs, checking ranges against the declared sizes (fixed when the collector
    is made) and duplicates."""

    def __init__(self, path, sizes: dict, size_lines: dict):
        self.path, self.sizes, self.size_lines = path, dict(sizes), dict(size_lines)
        self.limits = tuple(min(self.sizes.get(key, MAX_INDEX + 1), MAX_INDEX + 1)
                            for _, key in _SIDES)
        self.rows: list[int] = []
        self.cols: list[int] = []
        self.weights: list[float] = []
        self.seen: dict[int, int] = {}  # (r << 32 | c) -> line
        self.low = self.high = None  # (weight, line) of the smallest and largest nonzero weight

    def add(self, r: int, c: int, w: float, line: int, shown: str | None = None) -> None:
        if w:
            if not MIN_WEIGHT <= w <= MAX_WEIGHT:
                _check_range(w, repr(w) if shown is None else shown, self.path, line)
            if self.low is None or w < self.low[0]:
                self.low = (w, line)
            if self.high is None or w > self.high[0]:
                self.high = (w, line)
        if 0 <= r < self.limits[0] and 0 <= c < self.limits[1]:
            first = self.seen.setdefault(r << 32 | c, line)
            if first == line:
                self.rows.append(r)
                self.cols.append(c)
                self.weights.append(w)
                return
            raise InputError(f"pair ({r}, {c}) is given twice (first on line {first})",
                             path=self.path, line=line)
        for (side, key), i in zip(_SIDES, (r, c), strict=True):
            if i < 0:
                raise InputError(f"{side} index {i} is negative", path=self.path, line=line)
            if i > MAX_INDEX:
                raise InputError(f"{side} index {i} is too large (at most {MAX_INDEX}: "
                                 f"{MAX_ITEMS} items a side)", path=self.path, line=line)
            n = self.sizes.get(key)
            if n is not None and i >= n:
                raise InputError(f"{side} index {i} is out of range: {key} is {n} "
                                 f"(declared on line {self.size_lines[key]})",
                                 path=self.path, line=line)
        raise AssertionError("unreachable")  # pragma: no cover

    def result(self, kind) -> _Pairs:
        if self.low is not None and self.high[0] > MAX_WEIGHT_RATIO * self.low[0]:
            (lo, lo_line), (hi, hi_line) = self.low, self.high
            raise InputError(f"the weights span {hi / lo:.3g} (largest {hi!r} on line "
                             f"{hi_line}, smallest {lo!r} on line {lo_line}): {WEIGHT_RANGE} "
                             "(past it the smallest weights are below the solvers' precision "
                             "and a proof of optimality means nothing); scale or drop the "
                             "smallest", path=self.path, line=max(lo_line, hi_line))
        return _Pairs(self.rows, self.cols, self.weights, self.sizes.get("n_ref"),
                      self.sizes.get("n_pred"), kind)


def _build(raw: _Pairs) -> BipartiteInstance:
    import numpy as np

    from ..problems.bipartite import BipartiteInstance

    n_ref = raw.n_ref if raw.n_ref is not None else max(raw.rows, default=-1) + 1
    n_pred = raw.n_pred if raw.n_pred is not None else max(raw.cols, default=-1) + 1
    pairs = np.empty((len(raw.rows), 2), dtype=np.int64)
    pairs[:, 0] = raw.rows
    pairs[:, 1] = raw.cols
    return BipartiteInstance.from_pairs(pairs, np.array(raw.weights, dtype=np.float64),
                                        n_ref, n_pred, kind=raw.kind or "1:1")


# --------------------------------------------------------------------------------------------
# text
# --------------------------------------------------------------------------------------------
def _parse_text(text: str, path) -> _Pairs:
    sizes: dict[str, int] = {}
    size_lines: dict[str, int] = {}
    kind = None
    header_line = None
    pairs = None  # made at the first pair, once the header (if any) is known
    inf = math.inf
    for lineno, line in enumerate(text.split("\n"), start=1):  # lines as editors count them
        if "#" in line:
            line = line.split("#", 1)[0]
        fields = line.split()
        if len(fields) == 3:  # fast path: a well-formed pair
            r, c, w = fields
            if r.isdigit() and c.isdigit() and r.isascii() and c.isascii():
                try:
                    weight = float(w)
                except ValueError:
                    weight = -1.0
                if 0.0 <= weight < inf:
                    if pairs is None:
                        pairs = _Collector(path, sizes, size_lines)
                    pairs.add(int(r), int(c), weight, lineno, w)
                    continue
        if not fields:
            continue
        if fields[0] in ("n_ref", "n_pred", "kind"):
            if header_line is not None:
                raise InputError(f"a second header line (the first is line {header_line})",
                                 path=path, line=lineno)
            if pairs is not None:
                raise InputError("the header must come before the first pair",
                                 path=path, line=lineno)
            header_line = lineno
            kind = _parse_header(fields, sizes, path, lineno)
            size_lines.update(dict.fromkeys(sizes, lineno))
            continue
        # Not a well-formed pair: find what is wrong (or a negative index / range error).
        if len(fields) != 3:
            raise InputError(f"expected 3 fields 'ref_index pred_index weight', got "
                             f"{len(fields)}", path=path, line=lineno)
        idx = []
        for (side, _), tok in zip(_SIDES, fields[:2], strict=False):
            if not _INT.fullmatch(tok):
                raise InputError(f"{side} index {tok!r} is not an integer",
                                 path=path, line=lineno)
            idx.append(int(tok))
        try:
            weight = float(fields[2])
        except ValueError:
            raise InputError(f"weight {fields[2]!r} is not a number",
                             path=path, line=lineno) from None
        _check_weight(weight, fields[2], path, lineno)
        if pairs is None:
            pairs = _Collector(path, sizes, size_lines)
        pairs.add(idx[0], idx[1], weight, lineno, fields[2])
    if header_line is None and pairs is None:
        raise InputError("empty file: no header and no candidate pairs", path=path)
    return (pairs or _Collector(path, sizes, size_lines)).result(kind)


def _parse_header(fields, sizes, path, lineno) -> str | None:
    if len(fields) % 2:
        raise InputError("a header is 'n_ref N n_pred M [kind K]' (key value pairs), got "
                         f"{len(fields)} fields", path=path, line=lineno)
    kind = None
    seen = set()
    for key, value in zip(fields[::2], fields[1::2], strict=True):
        if key in seen:
            raise InputError(f"header key {key!r} is given twice", path=path, line=lineno)
        seen.add(key)
        if key == "kind":
            kind = _check_kind(value, path, lineno)
        elif key in ("n_ref", "n_pred"):
            if not _INT.fullmatch(value) or int(value) < 0:
                raise InputError(f"{key} must be a non-negative integer, got {value!r}",
                                 path=path, line=lineno)
            sizes[key] = _check_size(key, int(value), path, lineno)
        else:
            raise InputError(f"unknown header key {key!r} (expected n_ref, n_pred, kind)",
                             path=path, line=lineno)
    return kind


# --------------------------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------------------------
_JSON_KEYS = ("n_ref", "n_pred", "kind", "pairs")


def _parse_json(text: str, path) -> _Pairs:
    if not text.strip():
        raise InputError("empty file: no JSON object", path=path)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"malformed JSON: {e.msg} (column {e.colno})",
                         path=path, line=e.lineno) from None
    except RecursionError:
        raise InputError(TOO_DEEP, path=path) from None
    loc = _JsonLines(text)
    if not isinstance(doc, dict):
        raise InputError(f"expected a JSON object with 'pairs', got {type(doc).__name__}",
                         path=path, line=loc.start)
    for key in doc:
        if key not in _JSON_KEYS:
            raise InputError(f"unknown key {key!r} (expected {', '.join(_JSON_KEYS)})",
                             path=path, line=loc.keys.get(key))
    if loc.duplicate:
        key, first, second = loc.duplicate
        raise InputError(f"key {key!r} is given twice (first on line {first})",
                         path=path, line=second)
    if "pairs" not in doc:
        raise InputError("missing key 'pairs'", path=path, line=loc.start)
    sizes = {k: _check_size(k, doc[k], path, loc.keys[k]) for k in ("n_ref", "n_pred")
             if doc.get(k) is not None}
    kind = _check_kind(doc["kind"], path, loc.keys["kind"]) if "kind" in doc else None
    items = doc["pairs"]
    if not isinstance(items, list):
        raise InputError(f"'pairs' must be a list of [ref_index, pred_index, weight], got "
                         f"{type(items).__name__}", path=path, line=loc.keys["pairs"])
    pairs = _Collector(path, sizes, {k: loc.keys[k] for k in sizes})
    for item, line in zip(items, loc.pairs, strict=True):
        if not isinstance(item, list) or len(item) != 3:
            raise InputError(f"expected a pair [ref_index, pred_index, weight], got "
                             f"{json.dumps(item)}", path=path, line=line)
        r, c, w = item
        for (side, _), i in zip(_SIDES, (r, c), strict=True):
            if isinstance(i, bool) or not isinstance(i, int):
                raise InputError(f"{side} index {json.dumps(i)} is not an integer",
                                 path=path, line=line)
        if isinstance(w, bool) or not isinstance(w, int | float):
            raise InputError(f"weight {json.dumps(w)} is not a number", path=path, line=line)
        try:
            w = float(w)
        except OverflowError:
            w = math.inf
        _check_weight(w, json.dumps(item[2]), path, line)
        pairs.add(r, c, w, line, json.dumps(item[2]))
    return pairs.result(kind)


class _JsonLines:
    """Line numbers of the top-level keys and of each element of ``pairs`` in a JSON text that
    :func:`json.loads` has already accepted (so the walk below needs no error handling)."""

    def __init__(self, text: str):
        self._newlines = [m.start() for m in re.finditer("\n", text)]
        self.keys: dict[str, int] = {}
        self.pairs: list[int] = []
        self.duplicate: tuple[str, int, int] | None = None  # key, first line, second line
        dec = json.JSONDecoder()
        i = _WS.match(text, 0).end()
        self.start = self.line(i)
        if text[i] != "{":
            return
        i = _WS.match(text, i + 1).end()
        while text[i] != "}":
            key, i = dec.raw_decode(text, i)
            i = _WS.match(text, _WS.match(text, i).end() + 1).end()  # skip ':'
            if key in self.keys and self.duplicate is None:
                self.duplicate = (key, self.keys[key], self.line(i))
            self.keys[key] = self.line(i)
            if key == "pairs" and text[i] == "[":
                self.pairs = []
                i = _WS.match(text, i + 1).end()
                while text[i] != "]":
                    self.pairs.append(self.line(i))
                    _, i = dec.raw_decode(text, i)
                    i = _WS.match(text, i).end()
                    if text[i] == ",":
                        i = _WS.match(text, i + 1).end()
                i += 1
            else:
                _, i = dec.raw_decode(text, i)
            i = _WS.match(text, i).end()
            if text[i] == ",":
                i = _WS.match(text, i + 1).end()

    def line(self, offset: int) -> int:
        return bisect.bisect_left(self._newlines, offset) + 1
