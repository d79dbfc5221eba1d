"""Reading CoNLL-2012 coreference files, as the reference scorer v8.01 reads them.

Format
------
::

    #begin document (bc/cctv/00/cctv_0000); part 000
    bc/cctv/00/cctv_0000  0  0  In     ...  -
    bc/cctv/00/cctv_0000  0  1  the    ...  (12
    bc/cctv/00/cctv_0000  0  2  summer ...  12)
    ...                                    (3)|(12
    <blank line between sentences>
    #end document

A file holds any number of documents, each between ``#begin document NAME`` and ``#end
document``. Inside a document every non-blank line is one token (sentence breaks are blank lines
and do not count); tokens are numbered 0, 1, ... across the whole document, as the reference
scorer (``lib/CorScorer.pm``, ``GetCoreference``) numbers them. The **last** column is the
coreference column: ``-`` or ``_`` for nothing, else any concatenation (usually ``|``-joined) of
``(N`` (a mention of entity ``N`` opens), ``N)`` (one closes), ``(N)`` (a one-token mention);
``(N+M)`` (a double antecedent) is discarded.

The column is decoded exactly as the reference does it, in four passes over the string, each
removing its leftmost match and starting again until none is left: ``(N+M)`` (discarded), then
``(N)``, then ``(N``, then ``N)``. So ``(1(1`` opens two mentions of entity 1, and an ``N)`` closes
the most recently opened, still open mention of entity ``N`` (a stack per entity: nested
mentions of one entity close innermost first). The entity id is the digit string as written
(``012`` and ``12`` are two entities, as in the Perl hash).

What comes out
--------------
One :class:`Document` per document: its name, its number of tokens and its clusters. A mention
is ``(start_token, end_token)``, both inclusive, 0-based within the document. Clusters are in the
reference scorer's order -- the order in which entity ids are first met, where on one token the
one-token mentions are registered before the openings and the openings before the closings --
and each cluster lists its mentions in the order they are completed (a one-token mention at its
token, a longer one at its closing token; on one token one-token mentions first). The reader
keeps everything as written, including a mention repeated in two clusters or twice in one: the
reference scorer's rule for those depends on the key (see
:func:`exactalign.metrics.coref.identify`), so it is applied when a response is scored.

Where this reader is stricter than (or differs from) the reference scorer
-------------------------------------------------------------------------
Each of these is a clear :class:`~exactalign.InputError` naming file and line, where the Perl
scorer dies with a message without a line number, or goes on silently:

* a mention closed without being opened (Perl: dies), a mention still open at ``#end document``
  (Perl: dies; the error names the line where it opened);
* a ``#begin document`` without ``#end document`` (Perl: an unterminated last document is read
  silently, and a second ``#begin`` inside a document is taken for a token line), an ``#end
  document`` outside a document, a token line outside a document, a ``#`` line inside a document
  (Perl: a token line), a ``#begin document`` without a name;
* a coreference column with anything besides the annotations above, ``|``, ``-`` and ``_``
  (Perl: ignores the rest);
* two documents of one name in a file (Perl: scores the last one only); a file without any
  document, e.g. an empty one (Perl: scores nothing; :func:`read_conll` only);
* the pairing of key and response (:func:`pair_documents`): a document of the key missing from
  the response (Perl: scores it against an empty response), a response document not in the key
  (Perl: ignores it), and a document whose token counts differ (Perl: does not check).

Token rows (``keep_rows=True``)
-------------------------------
The metrics need only the coreference column. coval's options (:mod:`exactalign.metrics.coref.
coval`) need more: the words (column 4), part-of-speech tags (column 5), parse bits (column 6)
and the sentences. With ``keep_rows=True`` every :class:`Document` also carries ``rows``, one
:class:`Row` per token -- its columns, its sentence (0-based; a sentence is a run of non-blank
lines, as coval's ``get_doc_lines`` splits them) and its position in that sentence, and its line
in the file. Without it ``rows`` is empty and reading costs what it did.

Columns are separated by any whitespace (the reference splits on tabs; on a tab-separated file
the two agree, and the official CoNLL-2012 files are space-aligned). The document name is the
text after ``#begin document``, stripped of surrounding whitespace (the reference keeps trailing
spaces, so its key and response names must match byte for byte).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from ..core.errors import InputError
from .text import read_text

#: A mention: (first token, last token), inclusive, 0-based within its document.
Mention = tuple[int, int]

_BEGIN = re.compile(r"#\s*begin document\b[ \t]*(.*?)\s*$")
_END = re.compile(r"#\s*end document\b")
_PART = re.compile(r"^\((.*)\);\s*part\s+([0-9]+)$")
# The four passes of the reference scorer, in its order.
_DOUBLE = re.compile(r"\(([0-9]+\+[0-9])\)")
_SINGLE = re.compile(r"\(([0-9]+)\)")
_OPEN = re.compile(r"\(([0-9]+)")
_CLOSE = re.compile(r"([0-9]+)\)")
# What may be left over: separators, and the "(-)" that EvmEval's scorer_v1.8 writes on rows
# without a mention (the reference's passes find no id in it and it is ignored).
_REST = re.compile(r"(?:[|_\-]|\(-\))*")


class Row(NamedTuple):
    """One token line of a document read with ``keep_rows=True``: its whitespace-separated
    ``columns``, its ``sentence`` (0-based within the document), its ``position`` in that
    sentence (0-based) and its ``line`` in the file (1-based)."""

    columns: tuple[str, ...]
    sentence: int
    position: int
    line: int


@dataclass(frozen=True)
class Document:
    """One document of a CoNLL-2012 file.

    ``clusters[i]`` is a tuple of mentions ``(start_token, end_token)`` (inclusive, 0-based);
    ``cluster_ids[i]`` is its entity id as written in the file. ``line`` is the line of
    ``#begin document`` (1-based) and ``path`` the file; both only name places in errors."""

    name: str
    clusters: tuple[tuple[Mention, ...], ...]
    cluster_ids: tuple[str, ...] = ()
    n_tokens: int = 0
    path: str | None = None
    line: int | None = None
    #: one :class:`Row` per token when read with ``keep_rows=True``, else empty
    rows: tuple[Row, ...] = ()

    @property
    def doc_id(self) -> str:
        """``bc/cctv/00/cctv_0000`` of ``(bc/cctv/00/cctv_0000); part 000``, else the name."""
        m = _PART.match(self.name)
        return m.group(1) if m else self.name

    @property
    def part(self) -> int | None:
        """``0`` of ``(...); part 000``; ``None`` when the name has no part."""
        m = _PART.match(self.name)
        return int(m.group(2)) if m else None

    @property
    def mentions(self) -> list[Mention]:
        """Every mention of every cluster, in cluster order (repetitions kept)."""
        return [m for c in self.clusters for m in c]

    def where(self) -> str:
        """``file:line`` of the ``#begin document`` line (for messages)."""
        return f"{self.path or '<string>'}:{self.line}" if self.line else (self.path or "")


def read_conll(path, *, keep_rows: bool = False) -> list[Document]:
    """Every document of the CoNLL-2012 file ``path`` (``"-"`` reads standard input), in file
    order; ``keep_rows``: also keep every token's columns and sentence (:class:`Row`). Raises
    :class:`InputError` with file and line for malformed content (and, naming the file, for a
    file without any document) and ``OSError`` when the file cannot be read."""
    label, text = read_text(path)
    docs = parse_conll(text, path=label, keep_rows=keep_rows)
    if not docs:  # an empty file, or one of comments: the reference scorer would score nothing
        raise InputError("no document in the file (no '#begin document' line)", path=label)
    return docs


def parse_conll(text: str, *, path: str = "<string>", keep_rows: bool = False
                ) -> list[Document]:
    """As :func:`read_conll`, from a string; ``path`` is the name errors give."""
    docs: list[Document] = []
    seen: dict[str, int] = {}
    doc: _Builder | None = None
    text = text.removeprefix("\ufeff")
    # Lines end at "\n" only (as in Perl; str.splitlines would also break at U+2028 & co.).
    for lineno, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        begin = _BEGIN.match(line)
        if begin:
            if doc is not None:
                raise InputError(f"'#begin document' inside document {doc.name!r} (begun at "
                                 f"line {doc.line}): missing '#end document'",
                                 path=path, line=lineno)
            name = begin.group(1)
            if not name:
                raise InputError("'#begin document' without a document name",
                                 path=path, line=lineno)
            if name in seen:
                raise InputError(f"document {name!r} appears twice in the file (first at line "
                                 f"{seen[name]})", path=path, line=lineno)
            seen[name] = lineno
            doc = _Builder(name, path, lineno, keep_rows)
        elif _END.match(line):
            if doc is None:
                raise InputError("'#end document' without '#begin document'",
                                 path=path, line=lineno)
            docs.append(doc.finish(lineno))
            doc = None
        elif not line:
            if doc is not None:
                doc.blank()
            continue
        elif doc is None:
            if line.startswith("#"):
                continue  # a comment between documents
            raise InputError("token line outside a document (missing '#begin document'?)",
                             path=path, line=lineno)
        elif line.startswith("#"):
            raise InputError(f"unexpected '#' line inside document {doc.name!r} (only "
                             "'#end document' may start with '#' there)", path=path, line=lineno)
        else:
            doc.token(line.split(), lineno)
    if doc is not None:
        raise InputError(f"document {doc.name!r} has no '#end document'", path=path,
                         line=doc.line)
    return docs


def _take_all(pattern: re.Pattern, s: str) -> tuple[list[str], str]:
    """Remove the leftmost match of ``pattern`` from ``s`` again and again (Perl's
    ``while ($s =~ s/pattern//)``); returns the captured groups in order and what is left."""
    found = []
    while True:
        m = pattern.search(s)
        if m is None:
            return found, s
        found.append(m.group(1))
        s = s[:m.start()] + s[m.end():]


class _Builder:
    """A document being read: open mentions (a stack per entity) and finished clusters."""

    def __init__(self, name: str, path: str, line: int, keep_rows: bool = False):
        self.name, self.path, self.line = name, path, line
        self.n_tokens = 0
        self.rows: list[Row] | None = [] if keep_rows else None
        self.sentence, self.position = 0, 0
        self.index: dict[str, int] = {}          # entity id -> cluster index (first met)
        self.clusters: list[list[Mention]] = []
        self.open: dict[str, list[tuple[int, int]]] = {}  # entity id -> [(token, line)]

    def _cluster(self, eid: str) -> list[Mention]:
        k = self.index.get(eid)
        if k is None:
            k = self.index[eid] = len(self.clusters)
            self.clusters.append([])
        return self.clusters[k]

    def blank(self) -> None:
        """A blank line: the next token starts a new sentence (if this one has tokens)."""
        if self.position:
            self.sentence, self.position = self.sentence + 1, 0

    def token(self, columns: list[str], lineno: int) -> None:
        t = self.n_tokens
        self.n_tokens += 1
        if self.rows is not None:
            self.rows.append(Row(tuple(columns), self.sentence, self.position, lineno))
        self.position += 1
        col = columns[-1]
        if col == "_":
            return
        _, rest = _take_all(_DOUBLE, col)
        singles, rest = _take_all(_SINGLE, rest)
        opens, rest = _take_all(_OPEN, rest)
        closes, rest = _take_all(_CLOSE, rest)
        if _REST.fullmatch(rest) is None:
            raise InputError(f"unrecognised coreference annotation {col!r} (expected '-' or "
                             "'(N', 'N)', '(N)', joined by '|')", path=self.path, line=lineno)
        for eid in singles:
            self._cluster(eid).append((t, t))
        for eid in opens:
            self._cluster(eid)
            self.open.setdefault(eid, []).append((t, lineno))
        for eid in closes:
            cluster = self._cluster(eid)
            stack = self.open.get(eid)
            if not stack:
                raise InputError(f"a mention of entity {eid} closes here (token {t}) but none "
                                 "is open", path=self.path, line=lineno)
            start, _ = stack.pop()
            cluster.append((start, t))

    def finish(self, end_line: int) -> Document:
        pending = [(line, eid, tok) for eid, stack in self.open.items() for tok, line in stack]
        if pending:
            line, eid, tok = min(pending)
            raise InputError(f"a mention of entity {eid} opens here (token {tok}) but is not "
                             f"closed before '#end document' (line {end_line})",
                             path=self.path, line=line)
        ids = sorted(self.index, key=self.index.__getitem__)
        return Document(self.name, tuple(tuple(c) for c in self.clusters), tuple(ids),
                        self.n_tokens, self.path, self.line,
                        tuple(self.rows) if self.rows is not None else ())


def pair_documents(key: list[Document], response: list[Document]
                   ) -> list[tuple[Document, Document]]:
    """Match key and response documents by name, in key order.

    Raises :class:`InputError` when a key document is missing from the response (naming the key
    file and line), when the response has a document the key has not (naming the response file
    and line), and when a document has a different number of tokens in the two (naming the
    response document's line). The reference scorer scores a missing response document as empty
    and ignores an extra one; here both are errors, since they almost always mean the wrong
    pair of files."""
    by_name = {d.name: d for d in response}
    missing = [d for d in key if d.name not in by_name]
    if missing:
        d = missing[0]
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        where = response[0].path if response else None
        raise InputError(f"document {d.name!r} of the key is not in the response"
                         + (f" {where}" if where else "") + more, path=d.path, line=d.line)
    key_names = {d.name for d in key}
    extra = [d for d in response if d.name not in key_names]
    if extra:
        d = extra[0]
        more = f" (and {len(extra) - 1} more)" if len(extra) > 1 else ""
        where = key[0].path if key else None
        raise InputError(f"document {d.name!r} of the response is not in the key"
                         + (f" {where}" if where else "") + more, path=d.path, line=d.line)
    pairs = []
    for k in key:
        r = by_name[k.name]
        if r.n_tokens != k.n_tokens:
            raise InputError(f"document {k.name!r} has {r.n_tokens} tokens in the response but "
                             f"{k.n_tokens} in the key ({k.where()})", path=r.path, line=r.line)
        pairs.append((k, r))
    return pairs


def read_pair(key_path, response_path) -> list[tuple[Document, Document]]:
    """Read a key and a response file and pair their documents (:func:`pair_documents`)."""
    return pair_documents(read_conll(key_path), read_conll(response_path))
