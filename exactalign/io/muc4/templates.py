"""Reading the 1992 MUC-4 templates: answer keys (``key-tst3.v2``) and system responses.

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
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ...core.errors import InputError
from .files import label, read_latin1
from .values import parse_value

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


def read_templates(path: str | Path) -> list[MucTemplate]:
    """Every template of a key or response file, in file order (:func:`read_latin1`)."""
    path = label(path)
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
