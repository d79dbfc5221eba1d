"""Reading TimeML (``.tml``) documents: events with their instances, TIMEX3s and TLINKs.

One pass of the standard library's expat parser (no regexes) over each file; every element's line
is known, so every error names file and line.

What is read
------------
* ``<EVENT eid=.. class=..>text</EVENT>`` and ``<MAKEINSTANCE eventID=.. eiid=../>``: one
  :class:`Event` per instance, keyed by its ``eiid``; an EVENT without any MAKEINSTANCE is kept
  under its ``eid`` (``eiid`` None). An event with several instances gives several entries (same
  span, same text).
* ``<TIMEX3 tid=.. type=.. value=.. functionInDocument=..>text</TIMEX3>``: one :class:`Timex`,
  anywhere in the document (the document-creation time usually sits in ``<DCT>``, outside
  ``<TEXT>``). :attr:`TimeMLDocument.dct` is the ``tid`` of the TIMEX3 with
  ``functionInDocument="CREATION_TIME"`` (else of the first TIMEX3 inside ``<DCT>``), or None.
* ``<TLINK lid=.. relType=.. (eventInstanceID=..|timeID=..)
  (relatedToEventInstance=..|relatedToTime=..)/>``: one :class:`TLink` in file order, with its
  line. ``relType`` is upper-cased and stripped; its value is not checked here (unknown labels
  such as VAGUE are the metric's business). SLINK, ALINK, SIGNAL are not read.

Offsets
-------
:attr:`TimeMLDocument.text` is the character data of the ``<TEXT>`` element (entities decoded,
tags removed; the whole document's character data when there is no ``<TEXT>``).
``Event.start``/``end`` and ``Timex.start``/``end`` are offsets into it (``end`` exclusive);
elements outside ``<TEXT>`` (the DCT) have ``None``.

Errors (:class:`~exactalign.core.errors.InputError`, with file and line)
-----------------------------------------------------------------------
Malformed XML (bytes that are not UTF-8 in a file declaring no other encoding are named as
such); an EVENT without ``eid``, a TIMEX3 without ``tid``, a MAKEINSTANCE without
``eiid`` or ``eventID``, or one whose ``eventID`` is no EVENT of the file; an id (eid, eiid,
tid) defined twice; a TLINK without ``relType`` or without exactly one source attribute and one
target attribute; a TLINK whose source or target is no event instance / timex of the file (with
``strict=False`` such a TLINK is dropped and reported in :attr:`TimeMLDocument.warnings`).
A MAKEINSTANCE may precede its EVENT (ids are resolved at the end of the file).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat

from ..core.errors import InputError
from .text import not_utf8

__all__ = ["Event", "Timex", "TLink", "TimeMLDocument", "read_timeml", "read_timeml_dir",
           "parse_timeml"]


@dataclass(frozen=True)
class Event:
    """One EVENT joined with one of its MAKEINSTANCEs (``eiid`` None when it has none)."""

    eid: str
    eiid: str | None
    text: str
    eclass: str | None
    start: int | None
    end: int | None
    line: int | None = None
    attributes: tuple[tuple[str, str], ...] = ()  # MAKEINSTANCE attributes (tense, aspect, ...)

    @property
    def key(self) -> str:
        """The id TLINKs use for this event: ``eiid``, else ``eid``."""
        return self.eiid if self.eiid is not None else self.eid


@dataclass(frozen=True)
class Timex:
    """One TIMEX3."""

    tid: str
    text: str
    type: str | None
    value: str | None
    function_in_document: str | None
    start: int | None
    end: int | None
    line: int | None = None


@dataclass(frozen=True)
class TLink:
    """One TLINK; ``source``/``target`` are the eiid or tid written in the file."""

    lid: str
    source: str
    target: str
    rel_type: str
    line: int | None


@dataclass(frozen=True)
class TimeMLDocument:
    """A parsed TimeML file. ``doc_id`` is the ``<DOCID>`` text, else the file name without
    ``.tml``. ``events`` is keyed by eiid (by eid for an event without instance)."""

    path: Path
    doc_id: str
    text: str
    events: dict[str, Event]
    timexes: dict[str, Timex]
    tlinks: list[TLink]
    dct: str | None
    warnings: tuple[str, ...] = field(default=())

    def node_kind(self, ident: str) -> str | None:
        """``"event"``, ``"timex"`` or None for an id a TLINK may use."""
        if ident in self.events:
            return "event"
        if ident in self.timexes:
            return "timex"
        return None


_SOURCES = ("eventInstanceID", "timeID")
_TARGETS = ("relatedToEventInstance", "relatedToTime")


class _Reader:
    """expat handlers collecting the elements of one file (see the module docstring)."""

    def __init__(self, label: str):
        self.label = label
        self.parser = expat.ParserCreate()
        self.parser.buffer_text = True
        self.parser.StartElementHandler = self.start
        self.parser.EndElementHandler = self.end
        self.parser.CharacterDataHandler = self.data
        self.stack: list[str] = []
        self.text_parts: list[str] = []      # character data inside <TEXT>
        self.all_parts: list[str] = []       # character data of the whole document
        self.offset = 0                      # length of text_parts so far
        self.in_text = 0                     # depth inside <TEXT>
        self.saw_text = False
        self.open: list[dict] = []           # EVENT / TIMEX3 / DOCID being read
        self.event_rows: dict[str, dict] = {}
        self.timex_rows: dict[str, dict] = {}
        self.instances: list[tuple[dict, int]] = []
        self.tlinks: list[tuple[dict, int]] = []
        self.docid: str | None = None
        self.in_dct = 0

    def fail(self, message: str, line: int | None = None):
        raise InputError(message, path=self.label,
                         line=self.parser.CurrentLineNumber if line is None else line)

    def start(self, name: str, attrs: dict) -> None:
        line = self.parser.CurrentLineNumber
        self.stack.append(name)
        if name == "TEXT":
            self.in_text += 1
            self.saw_text = True
        elif name == "DCT":
            self.in_dct += 1
        elif name in ("EVENT", "TIMEX3", "DOCID"):
            self.open.append({"tag": name, "attrs": attrs, "line": line, "parts": [],
                              "start": self.offset if self.in_text else None,
                              "in_dct": self.in_dct > 0})
        elif name == "MAKEINSTANCE":
            self.instances.append((attrs, line))
        elif name == "TLINK":
            self.tlinks.append((attrs, line))

    def end(self, name: str) -> None:
        self.stack.pop()
        if name == "TEXT":
            self.in_text -= 1
        elif name == "DCT":
            self.in_dct -= 1
        elif name in ("EVENT", "TIMEX3", "DOCID"):
            row = self.open.pop()
            row["text"] = "".join(row["parts"])
            row["end"] = self.offset if row["start"] is not None else None
            self.close(row)

    def close(self, row: dict) -> None:
        tag, attrs, line = row["tag"], row["attrs"], row["line"]
        if tag == "DOCID":
            self.docid = row["text"].strip()
            return
        key = "eid" if tag == "EVENT" else "tid"
        ident = attrs.get(key)
        if not ident:
            self.fail(f"<{tag}> without a {key} attribute", line)
        table = self.event_rows if tag == "EVENT" else self.timex_rows
        if ident in table:
            self.fail(f"{key} {ident!r} defined twice (first on line {table[ident]['line']})",
                      line)
        table[ident] = row

    def data(self, text: str) -> None:
        self.all_parts.append(text)
        if self.in_text:
            self.text_parts.append(text)
            self.offset += len(text)
        for row in self.open:
            row["parts"].append(text)


def _events(r: _Reader) -> dict[str, Event]:
    events: dict[str, Event] = {}
    instanced: set[str] = set()
    for attrs, line in r.instances:
        eiid, eid = attrs.get("eiid"), attrs.get("eventID")
        if not eiid or not eid:
            r.fail("<MAKEINSTANCE> needs both eiid and eventID", line)
        if eid not in r.event_rows:
            r.fail(f"<MAKEINSTANCE eiid={eiid!r}> refers to unknown event {eid!r}", line)
        if eiid in events or eiid in r.event_rows:
            r.fail(f"eiid {eiid!r} defined twice", line)
        row = r.event_rows[eid]
        extra = tuple(sorted((k, v) for k, v in attrs.items() if k not in ("eiid", "eventID")))
        events[eiid] = Event(eid, eiid, row["text"], row["attrs"].get("class"), row["start"],
                             row["end"], line, extra)
        instanced.add(eid)
    for eid, row in r.event_rows.items():
        if eid not in instanced and eid not in events:
            events[eid] = Event(eid, None, row["text"], row["attrs"].get("class"), row["start"],
                                row["end"], row["line"])
    return events


def _timexes(r: _Reader) -> tuple[dict[str, Timex], str | None]:
    timexes: dict[str, Timex] = {}
    dct = first_in_dct = None
    for tid, row in r.timex_rows.items():
        a = row["attrs"]
        timexes[tid] = Timex(tid, row["text"], a.get("type"), a.get("value"),
                             a.get("functionInDocument"), row["start"], row["end"], row["line"])
        if dct is None and a.get("functionInDocument") == "CREATION_TIME":
            dct = tid
        if first_in_dct is None and row["in_dct"]:
            first_in_dct = tid
    return timexes, dct if dct is not None else first_in_dct


def _one_of(r: _Reader, attrs: dict, names: tuple[str, str], what: str, line: int) -> str:
    given = [attrs[n] for n in names if attrs.get(n)]
    if len(given) != 1:
        r.fail(f"<TLINK lid={attrs.get('lid')!r}> needs exactly one {what} attribute "
               f"({' or '.join(names)})", line)
    return given[0].strip()


def _tlinks(r: _Reader, events, timexes, strict: bool) -> tuple[list[TLink], list[str]]:
    links: list[TLink] = []
    warnings: list[str] = []
    for attrs, line in r.tlinks:
        rel = (attrs.get("relType") or "").strip().upper()
        if not rel:
            r.fail(f"<TLINK lid={attrs.get('lid')!r}> without relType", line)
        src = _one_of(r, attrs, _SOURCES, "source", line)
        tgt = _one_of(r, attrs, _TARGETS, "target", line)
        unknown = [x for x in (src, tgt) if x not in events and x not in timexes]
        if unknown:
            msg = f"<TLINK lid={attrs.get('lid')!r}> refers to unknown id {unknown[0]!r}"
            if strict:
                r.fail(msg, line)
            warnings.append(f"{r.label}:{line}: {msg} (link ignored)")
            continue
        links.append(TLink(attrs.get("lid") or f"line{line}", src, tgt, rel, line))
    return links, warnings


def parse_timeml(data: bytes | str, label: str = "<string>", *, strict: bool = True,
                 path: Path | None = None) -> TimeMLDocument:
    """Parse TimeML from bytes or text; ``label`` names the source in errors.

    >>> doc = parse_timeml('<TimeML><DOCID>d</DOCID><TEXT>He <EVENT eid="e1" class="OCCURRENCE">'
    ...     'left</EVENT> <TIMEX3 tid="t1" type="DATE" value="1998">in 1998</TIMEX3>.</TEXT>'
    ...     '<MAKEINSTANCE eventID="e1" eiid="ei1"/>'
    ...     '<TLINK lid="l1" relType="before" eventInstanceID="ei1" relatedToTime="t1"/></TimeML>')
    >>> ev = doc.events["ei1"]; ev.text, doc.text[ev.start:ev.end], doc.tlinks[0].rel_type
    ('left', 'left', 'BEFORE')
    """
    r = _Reader(label)
    try:
        r.parser.Parse(data, True)
    except expat.ExpatError as e:
        _not_utf8(data, label)  # expat's "invalid token" for a stray byte: name the byte instead
        raise InputError(f"malformed XML: {expat.ErrorString(e.code)} (column {e.offset + 1})",
                         path=label, line=e.lineno) from None
    events = _events(r)
    timexes, dct = _timexes(r)
    clash = sorted(set(events) & set(timexes))
    if clash:
        r.fail(f"id {clash[0]!r} is both an event and a timex", r.timex_rows[clash[0]]["line"])
    tlinks, warnings = _tlinks(r, events, timexes, strict)
    text = "".join(r.text_parts if r.saw_text else r.all_parts)
    p = Path(label) if path is None else path
    doc_id = r.docid or (p.name[:-4] if p.name.endswith(".tml") else p.name)
    return TimeMLDocument(p, doc_id, text, events, timexes, tlinks, dct, tuple(warnings))


_DECLARED = re.compile(rb"""\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)""")


def _not_utf8(data: bytes | str, label: str) -> None:
    """Raise the reader's one-line error for bytes that are not UTF-8 when ``data`` is meant to be
    UTF-8 (no UTF-16 byte order mark, no other encoding declared); return otherwise."""
    if isinstance(data, str) or data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return
    declared = _DECLARED.match(data.removeprefix(b"\xef\xbb\xbf"))
    if declared and declared.group(1).lower().replace(b"_", b"-") not in (b"utf-8", b"utf8"):
        return
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise not_utf8(data, e.start, label) from None


def read_timeml(path, *, strict: bool = True) -> TimeMLDocument:
    """Read one ``.tml`` file (see the module docstring for every rule and error)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", path=str(p)) from None
    return parse_timeml(data, str(p), strict=strict, path=p)


def read_timeml_dir(path, *, strict: bool = True) -> dict[str, TimeMLDocument]:
    """Every ``*.tml`` file directly in ``path``, keyed by document id, sorted by id. Two files
    with the same document id are an error."""
    p = Path(path)
    if not p.is_dir():
        raise InputError("not a directory (a directory of .tml files is expected)"
                         if p.exists() else "not a directory: no such file or directory",
                         path=str(p))
    docs: dict[str, TimeMLDocument] = {}
    for name in sorted(os.listdir(p)):
        if not name.endswith(".tml"):
            continue
        doc = read_timeml(p / name, strict=strict)
        if doc.doc_id in docs:
            raise InputError(f"document id {doc.doc_id!r} also in {docs[doc.doc_id].path.name}",
                             path=str(p / name))
        docs[doc.doc_id] = doc
    if not docs:
        raise InputError("no .tml files in this directory", path=str(p))
    return dict(sorted(docs.items()))
