"""Reading DRSs in clause format (Parallel Meaning Bank), the input of Counter (DRS parsing).

A file holds DRSs separated by blank lines; each DRS is one clause a line, fields separated by
whitespace::

    %%% Tom carried the bag .          <- a comment line (first non-space character ``%``)
    b1 REF x1                          % Tom [0...3]
    b1 Name x1 "tom"
    b2 REF e1
    b2 carry "v.01" e1                 <- a concept: name, quoted WordNet sense, variable
    b2 Agent e1 x1                     <- a role: box, role, two terms
    b2 TPR t1 "now"                    <- a comparison operator with a quoted constant
    b3 NOT b4                          <- an operator over boxes

    b1 REF x1                          <- the next DRS
    ...

The fields are split exactly as Counter (``evaluation/counter.py`` of RikVN/DRS_parsing) splits
them, so that a file reads into the clauses Counter scores:

* lines are split at ``\\n``, ``\\r\\n`` and a lone ``\\r`` (Python's universal newlines);
* a line whose first non-space character is ``%`` is a comment: skipped, it does not end a DRS;
* a line of only whitespace ends the DRS (several in a row are one separator);
* any other line is a clause: the text before its first ``" %"`` (a space, then ``%``) split at
  runs of whitespace (:func:`tokenise`). Quotes do not group: ``"new york"`` is two fields, as in
  Counter, and ``"50 %"`` ends at the ``" %"``, leaving ``"50`` -- a clause Counter's referee
  then calls ill-formed. ``%`` not after a space stays in its field (``"50%"``).

Reading is lenient by default: a clause with other than 3 or 4 fields, or a field with a stray
quote, is kept as Counter keeps it, and the referee (:mod:`exactalign.io.drs_referee`) reports
it as ill-formed with its file, DRS and line -- or replaces the DRS, as Counter's ``-ill dummy``
and ``-ill spar`` do. ``strict=True`` raises :class:`~exactalign.core.errors.InputError` on such
a clause instead (:func:`field_problem`). A file that cannot be read, is not UTF-8 or holds a
NUL byte is always an :class:`InputError` naming the file (and the line).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import InputError
from .text import read_text

__all__ = ["Drs", "field_problem", "format_drs", "parse_drs", "read_drs_file", "tokenise",
           "write_drs_file"]

#: A field as Counter's referee accepts it: in double quotes with no quote inside, or no quote.
FIELD = re.compile(r'"[^"]+"|[^"]+')


@dataclass(frozen=True)
class Drs:
    """One DRS of a file.

    ``clauses``: its clauses, each a tuple of fields as Counter splits them (:func:`tokenise`);
    ``lines``: the 1-based line of each clause in the file (0 for a clause the referee put in,
    :func:`exactalign.io.drs_referee.replace_ill`); ``index``: its 0-based position in the file;
    ``path``: the file it was read from (``"<string>"`` for text); ``comments``: the ``%``
    comment lines read since the previous DRS ended, as ``(line, text)``; ``trailing``: the
    ``% ...`` comment after each clause (``""`` when none), parallel to ``clauses``;
    ``replaced``: ``""``, or ``"dummy"`` / ``"spar"`` when the referee replaced an ill-formed
    DRS (:func:`~exactalign.io.drs_referee.replace_ill`)."""

    index: int
    clauses: tuple[tuple[str, ...], ...]
    lines: tuple[int, ...]
    path: str = "<string>"
    comments: tuple[tuple[int, str], ...] = ()
    trailing: tuple[str, ...] = ()
    replaced: str = ""

    @property
    def line(self) -> int:
        """The line of its first clause (0 when it has none)."""
        return self.lines[0] if self.lines else 0

    def __len__(self) -> int:
        return len(self.clauses)


def tokenise(line: str) -> tuple[tuple[str, ...], str]:
    """``(fields, trailing comment)`` of a clause line, as Counter splits it: the text before
    the first ``" %"`` split at whitespace; the comment is the rest from the ``%`` on
    (``""`` when none)."""
    head, sep, rest = line.partition(" %")
    return tuple(head.split()), ("%" + rest).strip() if sep else ""


def field_problem(clause: tuple[str, ...]) -> str | None:
    """Why ``clause`` cannot be a clause (``None`` when its shape is fine): other than 3 or 4
    fields, or a field with a quote that is not one ``"..."`` (a stray or unbalanced quote).
    The message says what Counter's splitting likely did (a quoted constant with a space, a
    ``" %"`` inside quotes)."""
    text = " ".join(clause)
    if len(clause) not in (3, 4):
        hint = ""
        if len(clause) > 4 and '"' in text:
            hint = (" (a quoted constant with a space? fields are split at whitespace, quotes or "
                    "not, as Counter splits them)")
        return f"a clause has 3 or 4 fields, this one has {len(clause)}: {text!r}{hint}"
    for f in clause:
        if '"' in f and not FIELD.fullmatch(f):
            return (f"field {f!r} has a stray or unbalanced double quote: {text!r} (fields are "
                    "split at whitespace and a clause ends at ' %', quotes or not, as Counter "
                    "reads them)")
    return None


def parse_drs(text: str, label: str = "<string>", *, strict: bool = False) -> list[Drs]:
    """The DRSs of ``text`` (the content of file ``label``), in order; see the module's
    docstring for the format. ``strict``: raise :class:`InputError` (``label``, line) on a
    clause :func:`field_problem` refuses, instead of keeping it for the referee."""
    out: list[Drs] = []
    clauses: list[tuple[str, ...]] = []
    lines: list[int] = []
    trailing: list[str] = []
    comments: list[tuple[int, str]] = []

    def close() -> None:
        out.append(Drs(len(out), tuple(clauses), tuple(lines), label, tuple(comments),
                       tuple(trailing)))
        clauses.clear()
        lines.clear()
        trailing.clear()
        comments.clear()

    for no, raw in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        s = raw.strip()
        if s.startswith("%"):
            comments.append((no, raw))
        elif not s:
            if clauses:
                close()
        else:
            fields, note = tokenise(raw)
            if strict:
                problem = field_problem(fields)
                if problem:
                    raise InputError(problem, path=label, line=no)
            clauses.append(fields)
            lines.append(no)
            trailing.append(note)
    if clauses:
        close()
    return out


def read_drs_file(path, *, strict: bool = False) -> list[Drs]:
    """The DRSs of the clause file ``path`` (``"-"``: standard input), in order
    (:func:`parse_drs`). An unreadable file, bytes that are not UTF-8 or a NUL byte raise
    :class:`InputError` naming the file (and line)."""
    try:
        label, text = read_text(path)
    except OSError as e:
        raise InputError(f"cannot read the file: {e.strerror or e}", path=str(path)) from None
    return parse_drs(text, label, strict=strict)


def format_drs(drss, *, comments: bool = True) -> str:
    """The clause-format text of ``drss`` (:class:`Drs` objects, or sequences of clauses):
    fields joined by one space, DRSs separated by a blank line; with ``comments`` a
    :class:`Drs`'s comment lines before it and its trailing comments after its clauses. A DRS
    without clauses is left out (it would not read back); a clause that cannot be written as
    it is raises :class:`ValueError`."""
    blocks = []
    for d in drss:
        if not len(d):
            continue
        rows = []
        if isinstance(d, Drs):
            if comments:
                rows.extend(t.strip() for _, t in d.comments)
            notes = d.trailing if comments and d.trailing else ("",) * len(d.clauses)
            rows.extend(_join(c) + (f" {n}" if n else "")
                        for c, n in zip(d.clauses, notes, strict=True))
        else:
            rows.extend(_join(c) for c in d)
        blocks.append("\n".join(rows) + "\n")
    return "\n".join(blocks)


def _join(clause) -> str:
    """A clause's line: fields joined by a space, but by a tab before a field that starts with
    ``%`` (after a space it would start a comment). A clause that cannot be read back as
    written -- no field, an empty field or one with whitespace, a first field starting with
    ``%`` (a comment line) -- is a :class:`ValueError`."""
    if not clause or clause[0].startswith("%") or any(
            not f or f != "".join(f.split()) for f in clause):
        raise ValueError(f"clause {clause!r} cannot be written in clause format (fields are "
                         "non-empty, without whitespace, and the first does not start with %)")
    return "".join(("\t" if f.startswith("%") else " ") + f if i else f
                   for i, f in enumerate(clause))


def write_drs_file(drss, path, *, comments: bool = True) -> None:
    """Write ``drss`` to ``path`` in clause format (:func:`format_drs`); :func:`read_drs_file`
    reads the same clauses back."""
    Path(path).write_text(format_drs(drss, comments=comments), encoding="utf-8")
