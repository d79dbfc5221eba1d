"""Reading TBF event-nugget files and token tables, as the TAC KBP scorer v1.8 reads them.

The TBF format (EvmEval, ``scorer_v1.8.py``) -- one block per document::

    #BeginOfDocument example2
    sys1	example2	E1	32,33	nominating	Personnel_Nominate	Actual
    sys1	example2	E2	45,57;60,62	created jobs	Personnel_Start-Position	Generic	0.8
    @Coreference	R1	E1,E2
    @After	A1	E1,E2
    #EndOfDocument

A UTF-8 byte order mark at the start of the file is dropped (v1.8 would take it for part of the
first line). Every line is stripped of surrounding white space first (as v1.8 does); blank lines
are skipped; a line starting with ``#`` other than the two markers is a comment. A **mention
line** has at least ``5 + len(attributes)`` tab-separated fields: system (run) id, document id,
mention id, span, text, then one field per attribute (default ``mention_type``,
``realis_status``); further fields (confidences) are kept in :attr:`Mention.extra` and never
scored. The document id field is ignored by v1.8 (the ``#BeginOfDocument`` id is used); we warn
when it differs. A **relation
line** is ``@Name<TAB>relation id<TAB>arg1,arg2,...`` with ``Name`` one of ``Coreference``,
``After``, ``Subevent``; relations are parsed and checked here; ``Coreference`` clusters are
scored by v1.8's coreference evaluation (:func:`exactalign.metrics.nugget.coref_evaluate`),
``After``/``Subevent`` by its event sequencing (``-a``; :mod:`exactalign.metrics.sequencing`).

Spans
-----
*Character mode* (the scorer run without ``-t``): ``begin,end`` with ``end`` exclusive, several
pieces joined by ``;``. v1.8 expands every piece into a **list** of characters and uses the
length of that list in the Dice denominator, while intersecting *sets*: pieces that overlap (or
repeat) inflate the denominator. We keep the pieces and reproduce that in :attr:`Mention.size`.
*Token mode* (``-t TOKEN_DIR``): a comma-separated list of token ids (``t3,t4,t5``; a list,
not a range); v1.8 turns it into a set, so a repeated id counts once. ``;`` has no meaning in
token mode (v1.8 would read ``t1;t2`` as one id; with a token table that id is unknown).

Token tables
------------
``<token_dir>/<doc id>.tab`` (v1.8's default extension; ``-te`` changes it): tab-separated
``token id, token string, begin, end`` (offset columns 2 and 3 by default). v1.8 uses token
tables for nothing but an (empty since v1.7.2) list of invisible words, so they never change a
score; we use them, as the official validator does, to reject token ids that are not in the
table. A first line whose offsets are not integers is a header and skipped.

Canonical strings
-----------------
Types and attributes are compared after :func:`canonical`: lower case, keeping only ASCII
letters and digits (v1.8 under Python 2 keeps the characters ``str.isalnum`` accepts on byte
strings: ASCII only). ``NOT_ANNOTATED`` in the gold -- canonically ``notannotated`` -- gives full
credit on that attribute (see :mod:`exactalign.metrics.nugget`).

Errors and warnings
-------------------
Our rule: where v1.8 crashes, or silently loses or misreads data, we raise
:class:`~exactalign.InputError` naming the file and line; where v1.8 reports the problem and
carries on with a defined behaviour, we carry on the same way and record a :class:`TbfWarning`
(file and line too), which the command line prints on stderr; ``strict=True`` turns every warning
into an error.

Errors: a mention or relation line outside a document (v1.8 would silently attach it to the next
document); ``#BeginOfDocument`` without an id or while a document is open (v1.8 merges the two);
``#EndOfDocument`` outside a document; a document without ``#EndOfDocument`` (v1.8 silently drops
it); a document id given twice in one file (v1.8 keeps the last); a mention line with too few
fields (v1.8 exits); a malformed span -- empty, an empty token id, a character piece that is not
two integers, a negative offset or ``begin > end`` (v1.8 crashes on most, misreads the rest); a
relation line without three fields, a non-coreference relation with fewer than two arguments, or
an argument that is no mention of the document (the official validator's checks); in token mode
with a token table, a token id missing from it (the validator's check; ``check_token_ids``).

Warnings (v1.8 continues): a mention id repeated in a document (v1.8 keeps both mentions and only
its span-only false-positive count sees distinct ids); a character piece with ``begin == end``
and a mention whose span covers nothing (it can match nothing); a document id field that differs
from the ``#BeginOfDocument`` id; a singleton coreference cluster; an unknown relation name; a
token-table line with fewer than four fields or non-integer offsets; bytes that are not UTF-8 in
a TBF file or token table (kept as they are and compared byte for byte; the first one is named);
and, when scoring, a system document absent from the gold (ignored), a gold document absent from
the system (scored as empty) and a missing token table (ids not checked).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import InputError
from .text import check_no_nul, not_utf8

BEGIN = "#BeginOfDocument"
END = "#EndOfDocument"
COMMENT = "#"
RELATION = "@"
#: The attributes v1.8 scores, in the order of their columns.
DEFAULT_ATTRIBUTES = ("mention_type", "realis_status")
#: A gold attribute with this value (canonically) matches every system value.
NOT_ANNOTATED = "NOT_ANNOTATED"
RELATION_NAMES = ("Coreference", "After", "Subevent")
TOKEN_FILE_EXT = ".tab"
TOKEN_OFFSET_FIELDS = (2, 3)
MODES = ("char", "token")


@functools.lru_cache(maxsize=4096)
def canonical(text: str) -> str:
    """``text`` lower-cased, keeping only ASCII letters and digits (v1.8's
    ``canonicalize_string`` under Python 2): ``Personnel_Start-Position`` -> ``personnelstartposition``.
    Cached: a corpus repeats a few dozen type and realis values over every mention."""
    return "".join(c.lower() for c in text if c.isascii() and c.isalnum())


@dataclass(frozen=True)
class TbfWarning:
    """A problem v1.8 reports and survives; we survive it the same way."""

    message: str
    path: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        return str(InputError(self.message, path=self.path, line=self.line))


@dataclass(frozen=True)
class Mention:
    """One mention line. ``pieces`` is ``((begin, end), ...)`` in character mode and the
    distinct token ids in order of first appearance in token mode."""

    mention_id: str
    pieces: tuple
    attributes: tuple[str, ...]
    text: str = ""
    system_id: str = ""
    doc_field: str = ""
    span: str = ""
    extra: tuple[str, ...] = ()
    line: int | None = None
    mode: str = "token"

    @property
    def units(self) -> frozenset:
        """The set of characters (``int``) or token ids (``str``) the span covers."""
        if self.mode == "char":
            return frozenset(c for b, e in self.pieces for c in range(b, e))
        return frozenset(self.pieces)

    @property
    def size(self) -> int:
        """This mention's term in the Dice denominator, as v1.8 counts it: the number of token
        ids of the set in token mode; in character mode the length of the character *list*,
        i.e. the sum of the piece lengths (overlapping pieces count twice)."""
        if self.mode == "char":
            return sum(e - b for b, e in self.pieces if e > b)
        return len(self.pieces)

    @property
    def canonical_attributes(self) -> tuple[str, ...]:
        return tuple(canonical(a) for a in self.attributes)

    @property
    def type(self) -> str:
        """The canonical first attribute (v1.8's mention type)."""
        return canonical(self.attributes[0]) if self.attributes else ""


@dataclass(frozen=True)
class Relation:
    name: str
    relation_id: str
    arguments: tuple[str, ...]
    line: int | None = None


@dataclass
class TbfDocument:
    doc_id: str
    mentions: list[Mention] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    begin_line: int | None = None
    end_line: int | None = None


@dataclass
class TbfFile:
    """A parsed TBF file: documents in file order (a dict keyed by document id)."""

    path: str
    documents: dict[str, TbfDocument]
    mode: str
    attributes: tuple[str, ...] = DEFAULT_ATTRIBUTES
    warnings: list[TbfWarning] = field(default_factory=list)

    @property
    def run_id(self) -> str:
        """v1.8 names a run after the file's base name."""
        return os.path.basename(self.path)

    @property
    def num_mentions(self) -> int:
        return sum(len(d.mentions) for d in self.documents.values())


@dataclass(frozen=True)
class Token:
    token_id: str
    text: str
    begin: int | None
    end: int | None
    line: int


@dataclass
class TokenTable:
    path: str
    tokens: dict[str, Token]
    warnings: list[TbfWarning] = field(default_factory=list)

    def __contains__(self, token_id: str) -> bool:
        return token_id in self.tokens


class _Sink:
    """Collects warnings for one file; raises on the first one when strict."""

    def __init__(self, path: str, strict: bool):
        self.path, self.strict, self.items = path, strict, []

    def error(self, message: str, line: int | None) -> InputError:
        return InputError(message, path=self.path, line=line)

    def warn(self, message: str, line: int | None) -> None:
        if self.strict:
            raise self.error(message + " (an error under strict checking)", line)
        self.items.append(TbfWarning(message, self.path, line))


# --------------------------------------------------------------------------------------------
# spans
# --------------------------------------------------------------------------------------------
#: A character span of one piece ``begin,end`` (ASCII digits, optional blanks around each).
_ONE_PIECE = re.compile(r"\s*\+?(\d+)\s*,\s*\+?(\d+)\s*", re.ASCII)


def _int(text: str) -> int | None:
    t = text.strip()
    if t[:1] in "+-":
        return int(t) if t[1:].isdigit() and t[1:].isascii() else None
    return int(t) if t.isdigit() and t.isascii() else None


def parse_span(span: str, mode: str, *, path: str | None = None, line: int | None = None,
               sink: _Sink | None = None) -> tuple:
    """The pieces of a span field: ``((begin, end), ...)`` in ``char`` mode, the distinct token
    ids in ``token`` mode. Raises :class:`InputError` on a malformed span (see the module
    docstring); an empty character piece is a warning when ``sink`` is given."""
    if mode not in MODES:
        raise ValueError(f"unknown span mode {mode!r}; choose one of {', '.join(MODES)}")
    if span.strip() == "":
        raise InputError("empty span field", path=path, line=line)
    if mode == "token":
        ids = span.split(",")
        if any(t == "" for t in ids):
            raise InputError(f"malformed token span {span!r}: an empty token id "
                             "(expected comma-separated token ids such as t3,t4)",
                             path=path, line=line)
        return tuple(dict.fromkeys(ids))
    one = _ONE_PIECE.fullmatch(span)
    if one:  # the common case, one well-formed non-empty piece: what the loop below returns
        b, e = int(one.group(1)), int(one.group(2))
        if b < e:
            return ((b, e),)
    pieces = []
    for piece in span.split(";"):
        parts = piece.split(",")
        nums = [_int(p) for p in parts] if len(parts) == 2 else [None]
        if None in nums:
            raise InputError(f"malformed character span {span!r}: each ';'-separated piece "
                             "must be two integers begin,end", path=path, line=line)
        b, e = nums
        if b < 0 or e < 0:
            raise InputError(f"malformed character span {span!r}: negative offset",
                             path=path, line=line)
        if b > e:
            raise InputError(f"malformed character span {span!r}: begin {b} > end {e}",
                             path=path, line=line)
        pieces.append((b, e))
    if sink is not None and any(b < e for b, e in pieces):  # a wholly empty span: see caller
        for b, e in pieces:
            if b == e:
                sink.warn(f"empty character piece '{b},{e}' in span {span!r} (covers nothing)",
                          line)
    return tuple(pieces)


# --------------------------------------------------------------------------------------------
# TBF files
# --------------------------------------------------------------------------------------------
def read_tbf(path, *, mode: str = "char", attributes: Sequence[str] = DEFAULT_ATTRIBUTES,
             strict: bool = False) -> TbfFile:
    """Read a TBF file (``"-"``: standard input; see the module docstring for every rule,
    error and warning)."""
    if str(path) == "-":
        import sys

        data, path = sys.stdin.buffer.read(), "<stdin>"
    else:
        data = Path(path).read_bytes()
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16: no line of it could be read
        raise not_utf8(data, 0, str(path))
    check_no_nul(data, path)
    try:
        data.decode("utf-8")
        bad = None
    except UnicodeDecodeError as e:
        bad = e.start
    # Bytes that are not UTF-8 are kept as they are (surrogate escapes) and compared byte for
    # byte, as v1.8 compares the lines it reads; a warning names the first one.
    text = data.decode("utf-8", errors="surrogateescape").replace("\r\n", "\n")
    text = text.replace("\r", "\n").removeprefix("\ufeff")  # a UTF-8 byte order mark
    out = parse_tbf(text, path=str(path), mode=mode, attributes=attributes, strict=strict,
                    _undecodable=bad if bad is None else (bad, data.count(b"\n", 0, bad) + 1,
                                                          data[bad]))
    return out


def parse_tbf(text: str, *, path: str = "<string>", mode: str = "char",
              attributes: Sequence[str] = DEFAULT_ATTRIBUTES, strict: bool = False,
              _undecodable=None) -> TbfFile:
    """Parse the content of a TBF file (``path`` only names it in messages)."""
    if mode not in MODES:
        raise ValueError(f"unknown span mode {mode!r}; choose one of {', '.join(MODES)}")
    attributes = tuple(attributes)
    n_fields = 5 + len(attributes)
    sink = _Sink(path, strict)
    if _undecodable is not None:
        offset, line, byte = _undecodable
        sink.warn(f"not UTF-8 text (byte {byte:#04x} at offset {offset}); such bytes are "
                  "compared as they are", line)
    docs: dict[str, TbfDocument] = {}
    doc: TbfDocument | None = None
    seen_ids: dict[str, int] = {}
    field_warned = False
    lines = text.split("\n")  # as Python's readline: only \n ends a line
    if lines and lines[-1] == "":
        lines.pop()
    for lineno, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith(COMMENT):
            if line.startswith(BEGIN):
                doc_id = line[len(BEGIN):].strip()
                if not doc_id:
                    raise sink.error(f"{BEGIN} without a document id", lineno)
                if doc is not None:
                    raise sink.error(f"{BEGIN} {doc_id} while document {doc.doc_id} (opened at "
                                     f"line {doc.begin_line}) has no {END}", lineno)
                if doc_id in docs:
                    raise sink.error(f"document {doc_id} appears twice in the file (first at "
                                     f"line {docs[doc_id].begin_line})", lineno)
                doc = TbfDocument(doc_id, begin_line=lineno)
                seen_ids, field_warned = {}, False
            elif line.startswith(END):
                if doc is None:
                    raise sink.error(f"{END} outside a document (no open {BEGIN})", lineno)
                _check_relations(doc, sink)
                doc.end_line = lineno
                docs[doc.doc_id] = doc
                doc = None
            continue
        if doc is None:
            what = "relation" if line.startswith(RELATION) else "mention"
            raise sink.error(f"{what} line outside a document (before {BEGIN} or after "
                             f"{END})", lineno)
        if line.startswith(RELATION):
            doc.relations.append(_parse_relation(line[len(RELATION):].strip(), lineno, sink))
            continue
        fields = line.split("\t")
        if len(fields) < n_fields:
            names = "system id, document id, mention id, span, text, " + ", ".join(attributes)
            raise sink.error(f"mention line has {len(fields)} tab-separated fields, at least "
                             f"{n_fields} are needed ({names})", lineno)
        pieces = parse_span(fields[3], mode, path=path, line=lineno, sink=sink)
        m = Mention(mention_id=fields[2], pieces=pieces,
                    attributes=tuple(fields[5:n_fields]), text=fields[4], system_id=fields[0],
                    doc_field=fields[1], span=fields[3], extra=tuple(fields[n_fields:]),
                    line=lineno, mode=mode)
        if m.size == 0:
            sink.warn(f"mention {m.mention_id} covers nothing (span {fields[3]!r}); it can "
                      "match no mention", lineno)
        if m.mention_id in seen_ids:
            sink.warn(f"mention id {m.mention_id} repeats the one at line "
                      f"{seen_ids[m.mention_id]} in document {doc.doc_id}; both mentions are "
                      "kept (as v1.8 does)", lineno)
        else:
            seen_ids[m.mention_id] = lineno
        if fields[1] != doc.doc_id and not field_warned:
            sink.warn(f"document id field {fields[1]!r} differs from the {BEGIN} id "
                      f"{doc.doc_id!r}; the {BEGIN} id is used (as v1.8 does)", lineno)
            field_warned = True
        doc.mentions.append(m)
    if doc is not None:
        raise sink.error(f"document {doc.doc_id} has no {END} (the file ends at line "
                         f"{len(lines)})", doc.begin_line)
    return TbfFile(path, docs, mode, attributes, sink.items)


def _parse_relation(body: str, lineno: int, sink: _Sink) -> Relation:
    parts = body.split("\t")
    if len(parts) != 3:
        raise sink.error(f"relation line has {len(parts)} tab-separated fields; expected 3 "
                         "(@Name, relation id, comma-separated mention ids)", lineno)
    name, rid, args = parts[0], parts[1], tuple(parts[2].split(","))
    if name not in RELATION_NAMES:
        sink.warn(f"unknown relation {name!r} (known: {', '.join(RELATION_NAMES)})", lineno)
    if len(args) < 2:
        if name == "Coreference":
            sink.warn(f"coreference cluster {rid} has a single mention", lineno)
        else:
            raise sink.error(f"relation {name} {rid} needs at least two mention ids, got "
                             f"{parts[2]!r}", lineno)
    return Relation(name, rid, args, lineno)


def _check_relations(doc: TbfDocument, sink: _Sink) -> None:
    ids = {m.mention_id for m in doc.mentions}
    for r in doc.relations:
        for a in r.arguments:
            if a not in ids:
                raise sink.error(f"relation {r.name} {r.relation_id} names mention {a!r}, "
                                 f"which is not in document {doc.doc_id}", r.line)


def format_tbf(tbf: TbfFile) -> str:
    """``tbf`` as TBF text that :func:`parse_tbf` reads back to the same documents, mentions
    (id, span, text, attributes, extra fields) and relations. Each mention's ``span`` field is
    written as read (or, when empty, rebuilt from its pieces)."""
    out = []
    for doc_id, d in tbf.documents.items():
        out.append(f"{BEGIN} {doc_id}")
        for m in d.mentions:
            span = m.span or (";".join(f"{b},{e}" for b, e in m.pieces) if m.mode == "char"
                              else ",".join(m.pieces))
            out.append("\t".join([m.system_id or "system", doc_id, m.mention_id, span, m.text,
                                  *m.attributes, *m.extra]))
        out += [f"{RELATION}{r.name}\t{r.relation_id}\t{','.join(r.arguments)}"
                for r in d.relations]
        out.append(END)
    return "".join(line + "\n" for line in out)


# --------------------------------------------------------------------------------------------
# token tables and type lists
# --------------------------------------------------------------------------------------------
def token_table_path(token_dir, doc_id: str, ext: str = TOKEN_FILE_EXT) -> Path:
    """Where v1.8 looks for a document's token table: ``token_dir/<doc id><ext>``."""
    return Path(token_dir) / (doc_id + ext)


def read_token_table(path, *, offset_fields: tuple[int, int] = TOKEN_OFFSET_FIELDS,
                     strict: bool = False) -> TokenTable:
    """Read a token table (token id, string, begin, end; tab-separated)."""
    sink = _Sink(str(path), strict)
    tokens: dict[str, Token] = {}
    data = Path(path).read_bytes()
    check_no_nul(data, path)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:  # kept as they are, as in TBF files; the first one named
        sink.warn(f"not UTF-8 text (byte {data[e.start]:#04x} at offset {e.start}); such bytes "
                  "are compared as they are", data.count(b"\n", 0, e.start) + 1)
    text = data.decode("utf-8", errors="surrogateescape").removeprefix("\ufeff")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")  # as open() reads it
    need = max(4, max(offset_fields) + 1)
    for lineno, raw in enumerate(lines, start=1):
        line = raw.rstrip()
        if not line:
            continue
        fields = line.split("\t")
        if len(fields) < need:
            sink.warn(f"token line has {len(fields)} tab-separated fields, {need} expected "
                      "(token id, token, begin, end); skipped", lineno)
            continue
        b, e = (_int(fields[i]) for i in offset_fields)
        if b is None or e is None:
            if lineno == 1:
                continue  # a header
            sink.warn(f"token offsets {fields[offset_fields[0]]!r}, "
                      f"{fields[offset_fields[1]]!r} are not integers", lineno)
        tokens[fields[0]] = Token(fields[0], fields[1], b, e, lineno)
    return TokenTable(str(path), tokens, sink.items)


def check_token_ids(doc: TbfDocument, table: TokenTable, path: str) -> None:
    """Raise :class:`InputError` at the first mention of ``doc`` (read from ``path``) that uses
    a token id missing from ``table`` (the official validator's check)."""
    for m in doc.mentions:
        for t in m.pieces:
            if t not in table:
                raise InputError(f"token id {t!r} of mention {m.mention_id} is not in the token "
                                 f"table {table.path}", path=path, line=m.line)


def read_type_whitelist(path) -> frozenset[str]:
    """A type white list (v1.8's ``-wl``): one type per line, compared canonically
    (``conflict attack`` = ``Conflict_Attack``)."""
    data = Path(path).read_bytes()
    check_no_nul(data, path)
    text = data.decode("utf-8-sig", errors="surrogateescape")
    return whitelist_from_lines(text.splitlines())


def whitelist_from_lines(lines: Iterable[str]) -> frozenset[str]:
    """The canonical form of every line, as v1.8 adds them: a blank line adds ``""`` (which
    matches no real type), so a file of blank lines keeps nothing, while a file without any
    line gives the empty set -- which v1.8 takes for "no white list" (see
    :func:`exactalign.metrics.nugget.document_pairs`)."""
    return frozenset(canonical(x) for x in lines)
