"""Fill values as the 1992 scorer reads them: :func:`parse_value`, a port of its fill parser
(``parse.el``), with the slot types of its slot configuration (:data:`SLOT_TYPES`)."""

from __future__ import annotations

import re

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
