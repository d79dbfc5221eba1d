"""Reading the 1992 MUC-4 judgement histories (``final-history-nrad.tst3``,
``final-cumulative-hist.tst4``).

A Lisp s-expression ``((MSGID (TEMPLATE (SLOT (RESPONSE-FILL JUDGEMENT KEY-FILL?) ...) ...)
...) ...)`` recording the human ``match`` / ``partial`` / ``fail`` judgements of the interactive
scoring. :func:`read_history` indexes them by (message, slot, response fill) with the strings of
the key fill they were judged against.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ...core.errors import InputError
from .files import label, read_latin1
from .templates import Alt

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
    path = label(path)
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
