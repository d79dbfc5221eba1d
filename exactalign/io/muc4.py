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
    """One fill: its alternatives (any one matches) and whether it is optional (``?``)."""

    alternatives: tuple[Alt, ...]
    optional: bool = False


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
    optional = text.startswith("? ") or text == "?"
    if optional:
        text = text[1:].strip()
    if not text.replace("*", "").replace("-", "").strip():  # "-", "*", UMICH's "* * *"
        return None
    if slot not in XREF_SLOTS:
        return Fill(tuple(_clean(a) for a in _split_top(text, " / ")), optional)
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
    return Fill(_expand_xref(alts, strings_are_values=slot == 19), optional)


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
    """Every template of a key or response file, in file order."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="latin-1").splitlines()
    except OSError as e:
        raise InputError(f"cannot read ({e.strerror})", path=path) from None
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
    """The recorded mapping with each pair's TOTAL row, and the ALL TEMPLATES totals."""
    path = Path(path)
    pairs, header, all_t, slots = [], None, None, {}
    for text in path.read_text(encoding="latin-1").splitlines():
        m = _PAIR.match(text)
        if m:
            if header is not None:  # an irrelevant message (key * response *): no table
                pairs.append(_pair(header, dict.fromkeys(COUNT_NAMES, 0)))
            header, slots = m.groups(), {}
            continue
        r = _ROW.match(text.replace("\t", " "))
        if not r:
            continue
        counts = dict(zip(COUNT_NAMES, map(int, r.groups()[1:]), strict=True))
        if r.group(1) == "ALL TEMPLATES":
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


def read_history(path: str | Path) -> dict[tuple[str, str, Alt], tuple[Judgement, ...]]:
    """``(message, slot name, response fill) -> judgements`` of a history file."""
    path = Path(path)
    tree = parse_sexpr(path.read_text(encoding="latin-1"), path=path)
    if len(tree) != 1:
        raise InputError("a history is one list of messages", path=path)
    out: dict[tuple[str, str, Alt], list[Judgement]] = {}
    for msg in tree[0]:
        message = msg[0]
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
    return {k: tuple(v) for k, v in out.items()}
