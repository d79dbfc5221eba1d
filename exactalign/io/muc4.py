"""Reading the 1992 MUC-4 evaluation files: templates, score reports, judgement histories.

Templates (answer keys ``key-tst3.v2``, system responses)
--------------------------------------------------------
A template is a block of numbered slot lines ``N.  SLOT NAME   value`` (slots 0-24, see
:data:`SLOTS`), blocks separated by blank lines or starting at a slot-0 line (MDC's files have no
blank lines between some); a line that starts with white space continues the previous slot with
one more *fill*. As the official scores show, the 1992 scorer did not read a line inside a
template that is neither a slot line nor indented (MITRE's responses have some): we skip it too.
Lines starting with ``;`` are comments (BBN's), a ``* * *`` line between templates a separator
(UMICH's). Slot 0 is the message id, slot 1 the template number:
``*`` marks an irrelevant message (no template), ``N (OPTIONAL)`` an optional key template. A fill
is ``-`` (empty) or ``*`` (not applicable; both mean no fill), otherwise one value, optionally
preceded by ``?`` (an optional fill, keys only), with alternatives separated by ``/`` outside
quotes and parentheses (``"MILITARY" / "ARMED FORCES"``, ``(- 03 NOV 89) / (- 17 OCT 89)``).
In the set-fill slots with a cross-reference (:data:`XREF_SLOTS`) a value is ``SET: "STRING"``,
each side possibly with its own alternatives (``CIVILIAN: "A" / "B"``): we expand them into the
alternative ``(set value, string)`` pairs. Every other value is kept as its text (quotes
included, outer parentheses of an alternative removed, white space collapsed).

Score reports (``scores-pass1.*.nrad``)
---------------------------------------
Per message and template pair a header ``MSGID  key: K  response: R  [tag]`` (``<NONE>`` for an
unmapped side, ``*`` for an irrelevant-message mark) followed by a slot table; its ``TOTAL`` row
holds ``POS ACT | COR PAR INC | ICR IPA | SPU MIS NON``. At the end ``ALL TEMPLATES`` holds the
official totals. :func:`read_score_report` returns the pairs (the mapping the official scoring
used) with their TOTAL rows, and the ALL TEMPLATES row.

Judgement histories (``final-history-nrad.tst3``, ``final-cumulative-hist.tst4``)
----------------------------------------------------------------------------------
A Lisp s-expression ``((MSGID (TEMPLATE (SLOT (RESPONSE-FILL JUDGEMENT KEY-FILL?) ...) ...)
...) ...)`` recording the human ``match`` / ``partial`` / ``fail`` judgements of the interactive
scoring. :func:`read_history` indexes them by (message, slot, response fill) with the strings of
the key fill they were judged against.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import InputError

#: Slot number -> the score reports' slot name (0 is the message id).
SLOTS = ("message-id", "template-id", "inc-date", "inc-loc", "inc-type", "inc-stage",
         "inc-instr-id", "inc-instr-type", "perp-inc-cat", "perp-ind-id", "perp-org-id",
         "perp-org-conf", "phys-tgt-id", "phys-tgt-type", "phys-tgt-num", "phys-tgt-nation",
         "phys-tgt-effect", "phys-tgt-total-num", "hum-tgt-name", "hum-tgt-desc",
         "hum-tgt-type", "hum-tgt-num", "hum-tgt-nation", "hum-tgt-effect",
         "hum-tgt-total-num")

#: Set-fill slots whose fills carry a cross-reference to a string fill (``VALUE: "STRING"``).
XREF_SLOTS = frozenset({7, 11, 13, 14, 15, 16, 19, 20, 21, 22, 23})

#: String-fill slots (judged by humans when they mismatch; the rest are set fills or dates).
STRING_SLOTS = frozenset({6, 9, 10, 12, 18, 19})

_SLOT_LINE = re.compile(r"^(\d+)\.\s+([A-Z][A-Z :]*?[A-Z])\s{2,}(.*)$")
_SLOT_LINE_EMPTY = re.compile(r"^(\d+)\.\s+([A-Z][A-Z :]*?[A-Z])\s*$")

Alt = str | tuple  # a text value, or (set value, string) for a cross-referenced set fill


@dataclass(frozen=True)
class Fill:
    """One fill: its alternatives (any one matches) and whether it is optional (``?``).
    ``value`` is the fill as the 1992 scorer reads it (:func:`parse_value`; not compared)."""

    alternatives: tuple[Alt, ...]
    optional: bool = False
    value: object = field(default=None, compare=False)


@dataclass(frozen=True)
class MucTemplate:
    """One template: message id, template number (``None`` for a ``*`` message), optional flag,
    and per slot 2-24 a tuple of fills (``slots[k]`` is slot ``k``; 0 and 1 are empty)."""

    message: str
    number: str | None
    optional: bool
    slots: tuple[tuple[Fill, ...], ...]
    line: int

    @property
    def irrelevant(self) -> bool:
        return self.number is None


def _split_top(text: str, sep: str) -> list[str]:
    """Split on ``sep`` outside double quotes and parentheses."""
    out, depth, quoted, start, i = [], 0, False, 0, 0
    while i < len(text):
        ch = text[i]
        if ch == '"' and (i == 0 or text[i - 1] != "\\"):
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth -= 1
        elif not quoted and depth == 0 and text.startswith(sep, i):
            out.append(text[start:i])
            start = i + len(sep)
            i = start
            continue
        i += 1
    out.append(text[start:])
    return [s.strip() for s in out]


def _clean(alt: str) -> str:
    """White space collapsed; outer parentheses around a whole alternative removed
    (``(- 03 NOV 89)``), not those of ``(A) B (C)``.

    >>> _clean("(GUATEMALA:  MIXCO (MUNICIPALITY))"), _clean("(A) B (C)")
    ('GUATEMALA: MIXCO (MUNICIPALITY)', '(A) B (C)')
    """
    alt = " ".join(alt.split())
    if alt.startswith("(") and alt.endswith(")") and _closing(alt) == len(alt) - 1:
        alt = alt[1:-1].strip()
    return alt


def _closing(text: str) -> int:
    """Index of the parenthesis closing the one at ``text[0]`` (outside quotes), or -1."""
    depth, quoted = 0, False
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def parse_fill(slot: int, text: str, *, path=None, line=None) -> Fill | None:
    """One fill from its text (``None`` for ``-`` and ``*``)."""
    text = text.strip()
    optional = text.startswith("?")  # the 1992 scorer: "?" then optional blanks
    if optional:
        text = text[1:].strip()
    if not text.replace("*", "").replace("-", "").strip():  # "-", "*", UMICH's "* * *"
        return None
    value = parse_value(slot, text)
    if slot not in XREF_SLOTS:
        return Fill(tuple(_clean(a) for a in _split_top(text, " / ")), optional, value)
    alts: list[Alt] = []
    for part in _split_top(text, "/"):
        bits = _split_top(part, ":")
        if len(bits) == 1:
            alts.append(_clean(bits[0]))
            continue
        if len(bits) != 2:
            raise InputError(f"slot {slot}: cannot read cross-referenced fill {text!r}",
                             path=path, line=line)
        alts.append((_clean(bits[0]), _clean(bits[1])))
    return Fill(_expand_xref(alts, strings_are_values=slot == 19), optional, value)


def _expand_xref(alts: list[Alt], strings_are_values: bool) -> tuple[Alt, ...]:
    """``V1 / V2: "X" / "Y"`` splits into ``V1``, ``(V2, "X")``, ``"Y"``: a bare set value is
    another value of the pair, a bare string another cross-referenced string -- except in HUM
    TGT: DESCRIPTION, whose values are strings: there every bare string is another value
    (``"D1": "NAME" / "D2"``: D2 is a description of NAME)."""
    pair = [a for a in alts if isinstance(a, tuple)]
    if not pair:
        return tuple(alts)
    bare = [a for a in alts if isinstance(a, str)]
    values = [a for a in bare if strings_are_values or not a.startswith('"')]
    strings = [a for a in bare if a not in values]
    vs = list(dict.fromkeys([p[0] for p in pair] + values))
    ss = list(dict.fromkeys([p[1] for p in pair] + strings))
    return tuple((v, s) for v in vs for s in ss)


def _label(path: str | Path) -> Path:
    """How errors name ``path``: ``<stdin>`` for ``-`` (standard input)."""
    return Path(STDIN if str(path) in ("-", STDIN) else path)


#: The name of standard input in messages.
STDIN = "<stdin>"


def read_latin1(path: Path) -> str:
    """The 1992 files' text: bytes read as Latin-1, as the 1992 scorer (Emacs Lisp on 8-bit
    text) read them -- every byte is a character, nothing is replaced, so no warning is due. A
    leading UTF-8 byte order mark is dropped; a UTF-16 file is an :class:`InputError`. ``-``
    (or ``<stdin>``) reads standard input."""
    try:
        data = (sys.stdin.buffer.read() if str(path) in ("-", STDIN)
                else Path(path).read_bytes())
    except OSError as e:
        raise InputError(f"cannot read ({e.strerror})", path=path) from None
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise InputError("UTF-16 text (it starts with a UTF-16 byte order mark): the 1992 files "
                         "are 8-bit text; save it as Latin-1 or UTF-8", path=path, line=1)
    return data.removeprefix(b"\xef\xbb\xbf").decode("latin-1")


def read_templates(path: str | Path) -> list[MucTemplate]:
    """Every template of a key or response file, in file order (:func:`read_latin1`)."""
    path = _label(path)
    lines = read_latin1(path).splitlines()
    out: list[MucTemplate] = []
    block: list[tuple[int, int, str]] = []
    for lineno, text in enumerate(lines + [""], 1):
        stripped = text.rstrip()
        if not stripped.strip():
            if block:
                out.append(_template(block, path))
                block = []
            continue
        m = _SLOT_LINE.match(stripped) or _SLOT_LINE_EMPTY.match(stripped)
        if m and int(m.group(1)) == 0 and block:  # MDC's files: no blank line between
            out.append(_template(block, path))
            block = []
        if m:
            slot = int(m.group(1))
            if slot > 24:
                raise InputError(f"slot number {slot} (slots are 0-24)", path=path,
                                 line=lineno)
            block.append((lineno, slot, m.group(3) if m.lastindex == 3 else ""))
        elif stripped.lstrip().startswith(";") or (not block and not stripped.replace("*", "").strip()):
            continue  # a comment (BBN's responses), a "* * *" separator (UMICH's)
        elif block and text[:1].isspace():
            block.append((lineno, block[-1][1], stripped))
        elif block:  # not indented: the 1992 scorer did not read it (MITRE's responses)
            continue
        else:
            raise InputError(f"not a slot line: {stripped[:60]!r}", path=path, line=lineno)
    return out


def _template(block, path) -> MucTemplate:
    first = block[0][0]
    numbers = [s for _, s, _ in block]
    if numbers[0] != 0 or sorted(set(numbers)) != list(range(25)):
        missing = sorted(set(range(25)) - set(numbers))
        raise InputError(f"a template needs slots 0-24 in order (missing {missing})",
                         path=path, line=first)
    texts: list[list[tuple[int, str]]] = [[] for _ in range(25)]
    for lineno, s, t in block:
        texts[s].append((lineno, t))
    message = texts[0][0][1].strip()
    num = texts[1][0][1].strip()
    optional = "(OPTIONAL)" in num
    num = num.replace("(OPTIONAL)", "").strip()
    if num != "*" and not num.isdigit():
        raise InputError(f"template number {num!r} is neither a number nor '*'", path=path,
                         line=texts[1][0][0])
    slots: list[tuple[Fill, ...]] = [(), ()]
    for s in range(2, 25):
        fills = [parse_fill(s, t, path=path, line=ln) for ln, t in texts[s]]
        slots.append(tuple(f for f in fills if f is not None))
    return MucTemplate(message, None if num == "*" else num, optional, tuple(slots), first)


def by_message(templates: list[MucTemplate]) -> dict[str, list[MucTemplate]]:
    """Templates grouped by message id, file order kept; ``*`` templates give an empty list."""
    out: dict[str, list[MucTemplate]] = {}
    for t in templates:
        out.setdefault(t.message, [])
        if not t.irrelevant:
            out[t.message].append(t)
    return out


# --------------------------------------------------------------------------------------------
# fill values as the 1992 scorer reads them
# --------------------------------------------------------------------------------------------
#: Slot types of the 1992 scorer's slot configuration (``slotconfig-tst3.el``/``-tst4.el``):
#: the reader of each fill and how mismatches are scored.
SLOT_TYPES = {2: "date", 3: "location", 4: "element", 5: "element", 6: "string", 7: "element",
              8: "element", 9: "string", 10: "string", 11: "element", 12: "string",
              13: "element", 14: "number", 15: "element", 16: "element", 17: "number",
              18: "string", 19: "string", 20: "element", 21: "number", 22: "element",
              23: "element", 24: "number"}

_WS = " \t\n\f\r"


class _ParseError(Exception):
    pass


def _atomic(obj) -> bool:
    return obj is None or isinstance(obj, str) or (
        isinstance(obj, tuple) and obj[0] == "or" and all(_atomic(o) for o in obj[1:]))


def _flatten_ors(obj):
    """Nested alternatives spliced into one ``("or", ...)``; a single alternative is itself."""
    if not (isinstance(obj, tuple) and obj and obj[0] == "or"):
        return obj
    out: list = []
    for c in obj[1:]:
        c = _flatten_ors(c)
        out.extend(c[1:] if isinstance(c, tuple) and c and c[0] == "or" else [c])
    return out[0] if len(out) == 1 else None if not out else ("or", *out)


def _merge(choices, choice):
    """``choices`` is ``None``, a string or a list, newest first (the scorer's merge-choices)."""
    if choices is None:
        return choice if isinstance(choice, str) else [choice]
    if isinstance(choices, str):
        return [choice, choices]
    return [choice, *choices]


def _reduce(choices):
    if isinstance(choices, list):
        choices = choices[0] if len(choices) == 1 else ("or", *reversed(choices))
    return _flatten_ors(choices)


class _Reader:
    """A port of the 1992 scorer's fill parser (``parse.el``: parse-choices, parse-xrefs,
    parse-ranges, parse-locations, parse-simple) over one line of text. Values: a string
    (upper case; quoted strings keep their quotes), ``None``, or a tuple ``("or", ...)``,
    ``("xref", value, tag)``, ``("range", low, high)``, ``("location", country, place...)``,
    ``("qualified", name, type)``, ``("between", place, place)``."""

    def __init__(self, text: str):
        self.s = text
        self.pos = 0

    def _skip(self, chars: str, end: int) -> None:
        while self.pos < end and self.s[self.pos] in chars:
            self.pos += 1

    def choices(self, end: int, valfn, tokens: str):
        """Slash-separated alternatives up to ``end`` or one of ``tokens``: ``(value, token,
        token position)`` (token ``None``: input exhausted)."""
        stop = re.compile(r"[" + _WS + r"]*([/" + re.escape(tokens) + r"])[" + _WS + r"]*")
        choices, trailing_null, term, term_pos = None, False, None, None
        valpoint = self.pos
        while valpoint < end:
            ch = self.s[self.pos] if self.pos < end else ""
            if ch == "(":
                choice, tok = self.sexp(end, valfn, stop)
            elif ch == '"':
                choice, tok = self.string(end, stop)
            else:
                m = stop.search(self.s, self.pos, end)
                if m:
                    choice, tok = self.s[valpoint:m.start()].upper(), (m.group(1), m.start(1))
                    self.pos = m.end()
                else:
                    choice, tok = self.s[valpoint:end].upper(), None
                    self.pos = end
            choices = _merge(choices, None if choice == "" else choice)
            if tok is None:
                valpoint = end
            elif tok[0] == "/":
                trailing_null = self.pos >= end
                valpoint = self.pos
            else:
                valpoint, (term, term_pos) = end, tok
        if trailing_null:
            choices = _merge(choices, None)
        if isinstance(choices, list):
            choices = choices[0] if len(choices) == 1 else ("or", *reversed(choices))
        return choices, term, term_pos

    def _after(self, end: int, stop):
        self._skip(" \t", end)
        m = stop.match(self.s, self.pos, end)
        if m:
            self.pos = m.end()
            return (m.group(1), m.start(1))
        if self.pos >= end:
            return None
        raise _ParseError("unexpected input")

    def sexp(self, end: int, valfn, stop):
        depth, quoted, i, pend = 0, False, self.pos, None
        while i < end:
            ch = self.s[i]
            if quoted:
                if ch == "\\":
                    i += 1
                elif ch == '"':
                    quoted = False
            elif ch == '"':
                quoted = True
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    pend = i + 1
                    break
            i += 1
        if pend is None:
            raise _ParseError("unmatched parenthesis")
        self.pos += 1
        self._skip(" \t", pend)
        inner = pend - 1
        while inner > self.pos and self.s[inner - 1] in " \t":
            inner -= 1
        value = valfn(inner)
        self.pos = pend
        return value, self._after(end, stop)

    _STRING = re.compile(r'"(\\"|[^"\n])*"')

    def string(self, end: int, stop):
        m = self._STRING.match(self.s, self.pos)
        if not m:
            raise _ParseError("unterminated string")
        self.pos = m.end()
        return m.group(0).upper(), self._after(end, stop)

    @staticmethod
    def pop_right(choices):
        """The rightmost atomic alternatives of ``choices`` and what is left of it."""
        if choices is None:
            raise _ParseError("missing component")
        if isinstance(choices, str):
            return choices, None
        c0 = choices[0]
        if _atomic(c0):
            return c0, (choices[1:] or None)
        if not (isinstance(c0, tuple) and c0[0] == "or"):
            raise _ParseError("missing component")
        opts, atoms = list(c0[1:]), []
        while opts and _atomic(opts[-1]):
            atoms.insert(0, opts.pop())
        if not atoms:
            raise _ParseError("missing component")
        return (atoms[0] if len(atoms) == 1 else ("or", *atoms)), [("or", *opts), *choices[1:]]

    @staticmethod
    def pop_left(tree):
        """The leftmost atomic alternatives of ``tree`` and what is left of it."""
        if _atomic(tree):
            return tree, None
        if not (isinstance(tree, tuple) and tree[0] == "or"):
            raise _ParseError("missing component")
        opts, atoms = list(tree[1:]), []
        while opts and _atomic(opts[0]):
            atoms.append(opts.pop(0))
        if not atoms:
            raise _ParseError("missing component")
        return (atoms[0] if len(atoms) == 1 else ("or", *atoms)), ("or", *opts)

    def simple(self, end: int):
        return _flatten_ors(self.choices(end, self.simple, "")[0])

    def xrefs(self, end: int):
        choices, term = None, None
        while self.pos < end:
            if term == ":":
                value, choices = self.pop_right(choices)
                nxt, term, _ = self.choices(end, self.xrefs, ":")
                tag, nxt = self.pop_left(nxt)
                choices = _merge(choices, ("xref", value, tag))
                if nxt is not None:
                    choices = _merge(choices, nxt)
            else:
                r, term, _ = self.choices(end, self.xrefs, ":")
                choices = _merge(choices, r)
        out = _reduce(choices)
        if not (_atomic(out) or (isinstance(out, tuple) and out[0] == "xref")):
            raise _ParseError("unsupported complex cross-reference")
        return out

    def ranges(self, end: int):
        choices, term = None, None
        m = re.compile(r"[" + _WS + r"]*(-)[" + _WS + r"]*").match(self.s, self.pos, end)
        if m:
            term, choices, self.pos = "-", [None], m.end()
        while self.pos < end:
            if term == "-":
                low, choices = self.pop_right(choices)
                nxt, term, _ = self.choices(end, self.ranges, "-")
                high, nxt = self.pop_left(nxt)
                choices = _merge(choices, _range(low, high))
                if nxt is not None:
                    choices = _merge(choices, nxt)
            else:
                r, term, _ = self.choices(end, self.ranges, "-")
                choices = _merge(choices, r)
        if term == "-":
            low, choices = self.pop_right(choices)
            choices = _merge(choices, _range(low, None))
        return _reduce(choices)

    def xrefs_ranges(self, end: int):
        start = self.pos
        out = self.xrefs(end)
        if isinstance(out, tuple) and out[0] in ("xref", "or"):
            return out
        self.pos = start
        return self.ranges(end)

    def locations(self, end: int):
        choices, term, term_pos = None, None, None
        while self.pos < end:
            if term != ":":
                r, term, term_pos = self.choices(end, self.locations, ":(-")
                choices = _merge(choices, r)
                continue
            country, choices = self.pop_right(choices)
            places, between, done = [country], False, False
            nxt, term, term_pos = self.choices(end, self.locations, ":(-")
            while not done:
                if term in (":", "-"):
                    if term == "-" and between:
                        raise _ParseError("missing colon")
                    place, nxt = self.pop_left(nxt)
                    between = _add_place(places, between, place) or term == "-"
                    if nxt is not None:
                        done = True
                    else:
                        nxt, term, term_pos = self.choices(end, self.locations, ":(-")
                elif term == "(":
                    name, nxt = self.pop_left(nxt)
                    if nxt is not None:
                        raise _ParseError("missing colon")
                    self.pos = term_pos
                    kind, tok = self.sexp(end, self.simple, re.compile(
                        r"[" + _WS + r"]*([:/-])[" + _WS + r"]*"))
                    between = _add_place(places, between, ("qualified", name, kind))
                    if tok is not None and tok[0] in ":-":
                        nxt, term, term_pos = self.choices(end, self.locations, ":(-")
                        between = tok[0] == "-"
                    else:
                        term, done = None, True
                else:
                    place, nxt = self.pop_left(nxt)
                    between = _add_place(places, between, place)
                    done = True
            choices = _merge(choices, ("location", *places))
            if nxt is not None:
                choices = _merge(choices, nxt)
        return _reduce(choices)


def _add_place(places: list, between: bool, place) -> bool:
    """The scorer's add-place: ``place`` closes a pending ``A - B`` or follows; returns
    ``False`` (no range pending any more)."""
    if between:
        places[-1] = ("between", places[-1], place)
    else:
        places.append(place)
    return False


def _range(low, high):
    return None if low is None and high is None else ("range", low, high)


def parse_value(slot: int, text: str):
    """A fill (without its ``?``) as the 1992 scorer reads it (:class:`_Reader`): dates as
    ranges, locations, numbers as cross-references or ranges, everything else as
    cross-referenced values; ``-`` and ``*`` are ``None``; what its parser refuses is the
    string ``"<ERROR>"``, as in the scorer.

    >>> parse_value(20, 'CIVILIAN: "A" / "B"')
    ('xref', 'CIVILIAN', ('or', '"A"', '"B"'))
    >>> parse_value(2, "- 26 AUG 89"), parse_value(3, "PERU: LIMA (CITY)")
    (('range', None, '26 AUG 89'), ('location', 'PERU', ('qualified', 'LIMA', 'CITY')))
    """
    text = text.strip(" \t")
    r = _Reader(text)
    kind = SLOT_TYPES.get(slot, "string")
    fn = {"date": r.ranges, "location": r.locations, "number": r.xrefs_ranges}.get(kind, r.xrefs)
    try:
        value = fn(len(text))
    except _ParseError:
        return "<ERROR>"
    return None if value in ("*", "-") else value


# --------------------------------------------------------------------------------------------
# score reports
# --------------------------------------------------------------------------------------------
COUNT_NAMES = ("POS", "ACT", "COR", "PAR", "INC", "ICR", "IPA", "SPU", "MIS", "NON")

_PAIR = re.compile(r"^(\S+-MUC4-\d+)(?:\s+key:\s*(\S+)\s+response:\s*(\S+)\s*(\[[a-z]+\])?)?\s*$")
_ROW = re.compile(r"^(TOTAL|ALL TEMPLATES|[a-z][a-z-]+)\s+(\d+)\s+(\d+)\|\s*(\d+)\s+(\d+)\s+(\d+)\|\s*(\d+)"
                  r"\s+(\d+)\|\s*(\d+)\s+(\d+)\s+(\d+)\|")


@dataclass(frozen=True)
class ReportPair:
    """One key/response pair of a score report (``None`` for ``<NONE>`` and ``*``)."""

    message: str
    key: str | None
    response: str | None
    tag: str
    counts: dict
    slots: dict = field(default_factory=dict)  # slot name -> counts of its row


@dataclass(frozen=True)
class ScoreReport:
    pairs: tuple[ReportPair, ...]
    all_templates: dict


def _pair(header, counts, slots=None) -> ReportPair:
    msg, k, resp, tag = header
    if k is None:  # SRI's TST4 report: one table per message, no mapping recorded
        return ReportPair(msg, None, None, "unrecorded", counts, dict(slots or {}))
    return ReportPair(msg, None if k in ("<NONE>", "*") else k,
                      None if resp in ("<NONE>", "*") else resp, (tag or "").strip("[]"), counts,
                      dict(slots or {}))


def read_score_report(path: str | Path) -> ScoreReport:
    """The recorded mapping with each pair's TOTAL row (and slot rows), and the ALL TEMPLATES
    totals. A report of message tables without mapping lines (SRI's TST4 report) gives one
    ``unrecorded`` pair per message, its counts the message's ALL TEMPLATES row."""
    path = _label(path)
    pairs, header, all_t, slots = [], None, None, {}
    for text in read_latin1(path).splitlines():
        m = _PAIR.match(text)
        if m or "TOTAL SLOT SCORES" in text:
            if header is not None:  # an irrelevant message (key * response *): no table
                pairs.append(_pair(header, dict.fromkeys(COUNT_NAMES, 0)))
            header, slots = (m.groups() if m else None), {}
            continue
        r = _ROW.match(text.replace("\t", " "))
        if not r:
            continue
        counts = dict(zip(COUNT_NAMES, map(int, r.groups()[1:]), strict=True))
        if r.group(1) == "ALL TEMPLATES" and header is not None and header[1] is None:
            pairs.append(_pair(header, counts, slots))  # a message table (no mapping lines)
            header = None
        elif r.group(1) == "ALL TEMPLATES":
            all_t = counts
        elif header is not None and r.group(1) == "TOTAL":
            pairs.append(_pair(header, counts, slots))
            header = None
        elif header is not None:
            slots[r.group(1)] = counts
    if all_t is None:
        raise InputError("no ALL TEMPLATES row: not a MUC-4 score report", path=path)
    return ScoreReport(tuple(pairs), all_t)


# --------------------------------------------------------------------------------------------
# judgement histories
# --------------------------------------------------------------------------------------------
_TOKEN = re.compile(r'\s*(?:(\()|(\))|"((?:[^"\\]|\\.)*)"|([^\s()"]+))')


def parse_sexpr(text: str, *, path=None):
    """A Lisp s-expression: lists become tuples; a string literal ``"\\"X\\""`` becomes the
    Python string ``'"X"'``; a symbol stays a string (prefixed with ``:`` to tell it apart)."""
    stack: list[list] = [[]]
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            if text[pos:].strip() == "":
                break
            raise InputError(f"unreadable s-expression near {text[pos:pos + 40]!r}", path=path,
                             line=text.count("\n", 0, pos) + 1)
        pos = m.end()
        if m.group(1):
            stack.append([])
        elif m.group(2):
            if len(stack) == 1:
                raise InputError("unbalanced ')'", path=path, line=text.count("\n", 0, pos) + 1)
            done = tuple(stack.pop())
            stack[-1].append(done)
        elif m.group(3) is not None:
            stack[-1].append(re.sub(r"\\(.)", r"\1", m.group(3)))
        elif m.group(4):
            stack[-1].append(":" + m.group(4))
    if len(stack) != 1:
        raise InputError("unbalanced '(' at end of file", path=path)
    return tuple(stack[0])


def _text(expr) -> str | None:
    """The template-file text of a history expression: a string literal is itself,
    ``(range A B)`` is ``A - B`` (``- B`` when A is ``nil``), ``(qualified N T)`` is ``N (T)``,
    ``(location A B ...)`` is ``A: B: ...``; ``None`` for anything else."""
    if isinstance(expr, str):
        return None if expr.startswith(":") else " ".join(expr.split())
    head, args = (expr[0], expr[1:]) if expr else (None, ())
    parts = [_text(a) for a in args]
    if head == ":range" and len(args) == 2 and parts[1] is not None:
        return f"- {parts[1]}" if args[0] == ":nil" else f"{parts[0]} - {parts[1]}"
    if head == ":qualified" and len(args) == 2 and None not in parts:
        return f"{parts[0]} ({parts[1]})"
    if head == ":location" and args and None not in parts:
        return ": ".join(parts)
    return None


def fill_key(expr) -> Alt | None:
    """The history's form of a fill as our :data:`Alt`: text as :func:`_text` writes it,
    ``(xref V S)`` as the pair ``(V, S)``."""
    if not isinstance(expr, str) and expr and expr[0] == ":xref" and len(expr) == 3:
        v, t = _text(expr[1]), _text(expr[2])
        return None if v is None or t is None else (v, t)
    return _text(expr)


def _key_alts(expr) -> set:
    """Every alternative a judged key expression names (through ``or``, ``all-of``,
    ``optional``)."""
    k = fill_key(expr)
    if k is not None:
        return {k}
    if not isinstance(expr, str) and len(expr) == 3 and expr[0] == ":xref":
        return {(v, t) for v in _key_alts(expr[1]) if isinstance(v, str)
                for t in _key_alts(expr[2]) if isinstance(t, str)}
    out: set = set()
    if not isinstance(expr, str):
        for e in expr[1:] if expr and expr[0] in (":or", ":all-of", ":optional") else expr:
            out |= _key_alts(e)
    return out


@dataclass(frozen=True)
class Judgement:
    verdict: str  # "match", "partial", "fail"
    key_strings: frozenset  # every alternative the judged key expression names
    spread: int = 1  # key fills a "distributed" judgement (all-of) credits


class History(dict):
    """A judgement history: ``(message, slot name, response fill) -> judgements`` (any key
    template), and in ``entries`` the history as the 1992 scorer reads it: ``(message, key
    template number, slot name) -> ((response value, verdict, key value), ...)`` in file order,
    values in :func:`parse_value`'s form (``"all-of"`` and ``"optional"`` heads included;
    ``verdict`` ``"match"``, ``"partial"`` or ``"fail"``, whose key value is ``None``). Only the
    first entry of a message, template or slot counts, as in the scorer's lookup."""

    def __init__(self, *args, entries=None, **kw):
        super().__init__(*args, **kw)
        self.entries = {} if entries is None else entries


def lisp_value(expr):
    """A history expression in :func:`parse_value`'s form: ``nil`` is ``None``, a list
    ``(head ...)`` the tuple ``("head", ...)``, a string itself.

    >>> lisp_value((":xref", "1", (":or", '"A"', '"B"')))
    ('xref', '1', ('or', '"A"', '"B"'))
    """
    if isinstance(expr, str):
        if expr.startswith(":"):
            return None if expr == ":nil" else expr[1:]
        return expr
    if not expr:
        return None
    return (lisp_value(expr[0]), *(lisp_value(e) for e in expr[1:]))


def read_history(path: str | Path) -> History:
    """The judgements of a history file (:class:`History`)."""
    path = _label(path)
    tree = parse_sexpr(read_latin1(path), path=path)
    if len(tree) != 1:
        raise InputError("a history is one list of messages", path=path)
    out: dict[tuple[str, str, Alt], list[Judgement]] = {}
    entries: dict[tuple[str, str, str], tuple] = {}
    for msg in tree[0]:
        message = msg[0]
        for tmpl in msg[1:]:
            for slot in tmpl[1:]:
                if not isinstance(slot, tuple) or not slot:
                    continue
                ekey = (message, tmpl[0], slot[0].lstrip(":"))
                if ekey not in entries:
                    entries[ekey] = tuple(
                        (lisp_value(e[0]), lisp_value(e[1]),
                         lisp_value(e[2]) if len(e) > 2 else None)
                        for e in slot[1:] if isinstance(e, tuple) and len(e) >= 2)
        for tmpl in msg[1:]:
            for slot in tmpl[1:]:
                name = slot[0].lstrip(":")
                for entry in slot[1:]:
                    if len(entry) < 2:
                        continue
                    resp = fill_key(entry[0])
                    if resp is None:
                        continue
                    verdict = entry[1].lstrip(":")
                    keys: set = set()
                    spread = 1
                    for e in entry[2:]:
                        keys |= _key_alts(e)
                        if isinstance(e, tuple) and e and e[0] == ":all-of":
                            spread = max(spread, len(e) - 1)
                    out.setdefault((message, name, resp), []).append(
                        Judgement(verdict, frozenset(keys), spread))
    return History({k: tuple(v) for k, v in out.items()}, entries=entries)
