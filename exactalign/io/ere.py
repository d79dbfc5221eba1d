"""Two annotations of the same documents for ERE-style agreement (Kulick, Bies & Mott 2014):
a JSON schema of our own, its reader, and a converter from TBF event mentions.

Schema
------
One JSON object per annotation (File A, File B)::

    {"documents": [
      {"id": "doc1",
       "text": "THE EAST AND SOUTH OF IRAN ...",            (optional)
       "mentions": [
         {"id": "m-502", "span": [0, 8], "level": "NOM"},  (level optional: NAM, NOM, PRO...)
         {"id": "m-463", "span": [13, 26]}],
       "entities": [
         {"id": "e-1", "type": "LOC", "mentions": ["m-502"]},
         {"id": "e-2", "type": "GPE", "mentions": ["m-463"]}],
       "relations": [
         {"id": "r-1", "type": "Physical", "subtype": "Located",
          "args": ["m-502", "m-463"], "trigger": [9, 12]}],  (trigger optional)
       "events": [
         {"id": "ev-1", "type": "Justice", "subtype": "Arrest-Jail", "trigger": [30, 42],
          "args": [{"role": "person", "mention": "m-463"},
                   {"role": "date", "span": [50, 63]}]}]}]}

Rules (each violation is an :class:`~exactalign.InputError` naming the file, the JSON line for
syntax errors, and otherwise the element, e.g. ``documents[0] (doc1).mentions[3] (m-4)``):

* A **span** is ``[begin, end]`` -- character offsets, ``end`` exclusive,
  ``0 <= begin < end <= 2**53`` (:data:`MAX_OFFSET`, TBF offsets too) -- or a list of such
  pieces ``[[b1, e1], [b2, e2]]`` for a discontinuous span (TBF event mentions). Pieces are
  kept sorted; overlapping pieces are an error. Two spans are at the *same location* when they
  cover the same characters; they *overlap* by the number of characters they share.
* ``documents``: a non-empty list; document ids are distinct. ``mentions``: ids distinct within
  the document. ``entities``, ``relations`` and ``events`` default to empty lists; ``type``,
  ``subtype`` and ``level`` to ``""``.
* Every mention belongs to **exactly one** entity (an ERE entity is a group of coreferenced
  mentions; give a singleton entity for a mention that corefers with nothing). An entity has at
  least one mention.
* A relation has exactly two ``args``, mention ids (each argument mention stands in for its
  entity, as in the paper's Section 4), in order (arg1, arg2), and an optional ``trigger``
  span. An event has a ``trigger`` span (obligatory, Section 5) and one or more ``args``, each
  ``{"role": ..., "mention": id}`` or ``{"role": ..., "span": span}`` (a date argument).
* ``text``, when given, must cover every span; it is used only to describe the edge
  differences of overlapping mentions.

:func:`pair_annotations` pairs the documents of A and B by id and refuses a document present
in only one of them, or present in both with different texts.

TBF event mentions
------------------
:func:`ere_from_tbf` turns a TBF file read in character mode (:mod:`exactalign.io.tbf`) into an
annotation whose *mentions* are the event mentions (span = the TBF character pieces, ``level``
= the realis attribute) and whose *entities* are the ``@Coreference`` clusters (event hoppers),
every mention outside a cluster a singleton entity; an entity's ``type`` is its first mention's
type (canonical TBF form). Relations and events are left empty: TBF has no arguments. A mention
in two coreference clusters (v1.8's format forbids it) is an error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..core.errors import InputError
from .text import TOO_DEEP, read_text

#: A span: sorted, non-overlapping ``(begin, end)`` pieces, ``end`` exclusive.
Span = tuple[tuple[int, int], ...]

#: Largest character offset accepted (2**53: every offset, length and overlap is then exact as
#: an int64 and as a float64; an offset past it is a corrupted file, and numpy could not hold
#: it -- an OverflowError traceback before this limit).
MAX_OFFSET = 2**53


@dataclass(frozen=True)
class EreMention:
    id: str
    span: Span
    level: str = ""
    entity: str = ""  # id of its entity (filled by the reader)


@dataclass(frozen=True)
class EreEntity:
    id: str
    type: str
    mentions: tuple[str, ...]


@dataclass(frozen=True)
class EreRelation:
    id: str
    type: str
    subtype: str
    args: tuple[str, str]
    trigger: Span | None = None


@dataclass(frozen=True)
class EventArgument:
    """An event argument: a mention (``mention`` set) or a date (``date`` span set)."""

    role: str
    mention: str | None = None
    date: Span | None = None


@dataclass(frozen=True)
class EreEvent:
    id: str
    type: str
    subtype: str
    trigger: Span
    args: tuple[EventArgument, ...]


@dataclass(frozen=True)
class EreDocument:
    id: str
    mentions: tuple[EreMention, ...]
    entities: tuple[EreEntity, ...] = ()
    relations: tuple[EreRelation, ...] = ()
    events: tuple[EreEvent, ...] = ()
    text: str | None = None

    def mention_index(self) -> dict[str, int]:
        """Mention id -> position in :attr:`mentions`."""
        return {m.id: i for i, m in enumerate(self.mentions)}


@dataclass(frozen=True)
class EreAnnotation:
    path: str
    documents: dict[str, EreDocument] = field(default_factory=dict)


# --------------------------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------------------------
def read_ere(path) -> EreAnnotation:
    """Read an annotation file (``"-"``: standard input) in the schema of the module."""
    label, text = read_text(path)
    return parse_ere(text, path=label)


def parse_ere(text: str, *, path: str = "<string>") -> EreAnnotation:
    """Parse the JSON text of an annotation (``path`` only names it in errors)."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        hint = (" -- it looks like TBF: name the file *.tbf to read it as TBF"
                if text.lstrip().startswith("#BeginOfDocument") else "")
        raise InputError(f"not valid JSON: {e.msg} (column {e.colno}){hint}", path=path,
                         line=e.lineno) from None
    except RecursionError:
        raise InputError(TOO_DEEP, path=path) from None
    return ere_from_dict(obj, path=path)


def ere_from_dict(obj, *, path: str = "<dict>") -> EreAnnotation:
    """An annotation from an already decoded JSON object."""
    if not isinstance(obj, dict) or not isinstance(obj.get("documents"), list):
        raise InputError('the top level must be an object with a "documents" list', path=path)
    if not obj["documents"]:
        raise InputError('"documents" is empty', path=path)
    docs: dict[str, EreDocument] = {}
    for k, d in enumerate(obj["documents"]):
        doc = _document(d, f"documents[{k}]", path)
        if doc.id in docs:
            raise InputError(f"documents[{k}]: document id {doc.id!r} is given twice", path=path)
        docs[doc.id] = doc
    return EreAnnotation(path, docs)


class _Where:
    """Builds element paths for messages: ``documents[0] (doc1).mentions[3] (m-4)``."""

    def __init__(self, path: str):
        self.path = path

    def error(self, where: str, message: str) -> InputError:
        return InputError(f"{where}: {message}", path=self.path)


def _obj(x, where: str, w: _Where) -> dict:
    if not isinstance(x, dict):
        raise w.error(where, f"expected an object, got {type(x).__name__}")
    return x


def _str(o: dict, key: str, where: str, w: _Where, *, required: bool = True) -> str:
    if key not in o:
        if required:
            raise w.error(where, f'"{key}" is missing')
        return ""
    v = o[key]
    if not isinstance(v, str) or (required and not v):
        raise w.error(where, f'"{key}" must be a non-empty string, got {v!r}')
    return v


def _list(o: dict, key: str, where: str, w: _Where) -> list:
    v = o.get(key, [])
    if not isinstance(v, list):
        raise w.error(where, f'"{key}" must be a list, got {type(v).__name__}')
    return v


def parse_span(value, where: str, w: _Where) -> Span:
    """A span from ``[b, e]`` or ``[[b1, e1], ...]`` (see the module)."""
    if isinstance(value, list) and len(value) == 2 and all(_is_int(x) for x in value):
        pieces = [value]
    elif isinstance(value, list) and value and all(isinstance(p, list) for p in value):
        pieces = value
    else:
        raise w.error(where, f"a span is [begin, end] or a list of [begin, end] pieces, got "
                             f"{value!r}")
    out = []
    for p in pieces:
        if len(p) != 2 or not all(_is_int(x) for x in p):
            raise w.error(where, f"span piece {p!r} is not two integers [begin, end]")
        b, e = p
        for name, x in (("begin", b), ("end", e)):
            if x > MAX_OFFSET:
                raise w.error(where, f"span {name} {x} is too large (character offsets are at "
                                     f"most {MAX_OFFSET})")
        if b < 0 or e <= b:
            raise w.error(where, f"span piece [{b}, {e}] must have 0 <= begin < end (end is "
                                 "exclusive)")
        out.append((int(b), int(e)))
    out.sort()
    for (b1, e1), (b2, e2) in zip(out, out[1:], strict=False):
        if b2 < e1:
            raise w.error(where, f"span pieces [{b1}, {e1}] and [{b2}, {e2}] overlap")
    return tuple(out)


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _document(d, where: str, path: str) -> EreDocument:
    w = _Where(path)
    d = _obj(d, where, w)
    doc_id = _str(d, "id", where, w)
    where = f"{where} ({doc_id})"
    text = d.get("text")
    if text is not None and not isinstance(text, str):
        raise w.error(where, f'"text" must be a string, got {type(text).__name__}')

    mentions_raw = []
    seen: dict[str, str] = {}
    for k, m in enumerate(_list(d, "mentions", where, w)):
        mw = f"{where}.mentions[{k}]"
        m = _obj(m, mw, w)
        mid = _str(m, "id", mw, w)
        mw = f"{mw} ({mid})"
        if mid in seen:
            raise w.error(mw, f"mention id {mid!r} repeats {seen[mid]}")
        seen[mid] = mw
        span = parse_span(m.get("span"), mw, w)
        _within(span, text, mw, w)
        mentions_raw.append((mid, span, _str(m, "level", mw, w, required=False), mw))

    entity_of: dict[str, str] = {}
    entities = []
    for k, e in enumerate(_list(d, "entities", where, w)):
        ew = f"{where}.entities[{k}]"
        e = _obj(e, ew, w)
        eid = _str(e, "id", ew, w)
        ew = f"{ew} ({eid})"
        ms = _list(e, "mentions", ew, w)
        if not ms:
            raise w.error(ew, "an entity needs at least one mention")
        for mid in ms:
            if mid not in seen:
                raise w.error(ew, f"mention {mid!r} is not a mention of the document")
            if mid in entity_of:
                raise w.error(ew, f"mention {mid!r} is already in entity {entity_of[mid]!r} "
                                  "(a mention belongs to exactly one entity)")
            entity_of[mid] = eid
        entities.append(EreEntity(eid, _str(e, "type", ew, w, required=False), tuple(ms)))
    if len({e.id for e in entities}) != len(entities):
        dup = next(e.id for i, e in enumerate(entities) if e.id in {x.id for x in entities[:i]})
        raise w.error(where, f"entity id {dup!r} is given twice")
    for mid, _, _, mw in mentions_raw:
        if mid not in entity_of:
            raise w.error(mw, "the mention belongs to no entity (give it a singleton entity)")
    mentions = tuple(EreMention(mid, span, level, entity_of[mid])
                     for mid, span, level, _ in mentions_raw)

    relations = []
    for k, r in enumerate(_list(d, "relations", where, w)):
        rw = f"{where}.relations[{k}]"
        r = _obj(r, rw, w)
        rid = _str(r, "id", rw, w)
        rw = f"{rw} ({rid})"
        args = r.get("args")
        if not isinstance(args, list) or len(args) != 2:
            raise w.error(rw, f'"args" must be a list of two mention ids, got {args!r}')
        for a in args:
            if a not in seen:
                raise w.error(rw, f"argument {a!r} is not a mention of the document")
        trig = r.get("trigger")
        trigger = None if trig is None else parse_span(trig, rw + ".trigger", w)
        if trigger is not None:
            _within(trigger, text, rw + ".trigger", w)
        relations.append(EreRelation(rid, _str(r, "type", rw, w, required=False),
                                     _str(r, "subtype", rw, w, required=False),
                                     (args[0], args[1]), trigger))

    events = []
    for k, ev in enumerate(_list(d, "events", where, w)):
        vw = f"{where}.events[{k}]"
        ev = _obj(ev, vw, w)
        vid = _str(ev, "id", vw, w)
        vw = f"{vw} ({vid})"
        if "trigger" not in ev:
            raise w.error(vw, '"trigger" is missing (an event trigger is obligatory)')
        trigger = parse_span(ev["trigger"], vw + ".trigger", w)
        _within(trigger, text, vw + ".trigger", w)
        args_raw = _list(ev, "args", vw, w)
        if not args_raw:
            raise w.error(vw, "an event needs at least one argument")
        events.append(EreEvent(vid, _str(ev, "type", vw, w, required=False),
                               _str(ev, "subtype", vw, w, required=False), trigger,
                               tuple(_argument(a, f"{vw}.args[{j}]", seen, text, w)
                                     for j, a in enumerate(args_raw))))
    return EreDocument(doc_id, mentions, tuple(entities), tuple(relations), tuple(events), text)


def _argument(a, where: str, seen: dict, text: str | None, w: _Where) -> EventArgument:
    a = _obj(a, where, w)
    role = _str(a, "role", where, w)
    if ("mention" in a) == ("span" in a):
        raise w.error(where, 'an argument has exactly one of "mention" (a mention id) and '
                             '"span" (a date)')
    if "mention" in a:
        if a["mention"] not in seen:
            raise w.error(where, f"argument {a['mention']!r} is not a mention of the document")
        return EventArgument(role, mention=a["mention"])
    span = parse_span(a["span"], where, w)
    _within(span, text, where, w)
    return EventArgument(role, date=span)


def _within(span: Span, text: str | None, where: str, w: _Where) -> None:
    if text is not None and span[-1][1] > len(text):
        raise w.error(where, f"span ends at {span[-1][1]}, after the end of the document text "
                             f"({len(text)} characters)")


# --------------------------------------------------------------------------------------------
# pairing and writing
# --------------------------------------------------------------------------------------------
def pair_annotations(a: EreAnnotation, b: EreAnnotation) -> list[tuple[EreDocument, EreDocument]]:
    """The documents of ``a`` with their namesakes in ``b``, in ``a``'s order."""
    for x, y in ((a, b), (b, a)):
        missing = [d for d in x.documents if d not in y.documents]
        if missing:
            raise InputError(f"document {missing[0]!r} is not in {y.path} (both annotations "
                             "must hold the same documents)", path=x.path)
    pairs = []
    for name, da in a.documents.items():
        db = b.documents[name]
        if da.text is not None and db.text is not None and da.text != db.text:
            raise InputError(f"document {name!r} has a different text in {b.path}", path=a.path)
        pairs.append((da, db))
    return pairs


def span_json(span: Span) -> list:
    """``[b, e]`` for one piece, else the list of pieces."""
    return list(span[0]) if len(span) == 1 else [list(p) for p in span]


def ere_to_dict(ann: EreAnnotation) -> dict:
    """The JSON object of an annotation (the inverse of :func:`ere_from_dict`)."""
    docs = []
    for d in ann.documents.values():
        o: dict = {"id": d.id}
        if d.text is not None:
            o["text"] = d.text
        o["mentions"] = [{"id": m.id, "span": span_json(m.span), "level": m.level}
                         for m in d.mentions]
        o["entities"] = [{"id": e.id, "type": e.type, "mentions": list(e.mentions)}
                         for e in d.entities]
        o["relations"] = [{"id": r.id, "type": r.type, "subtype": r.subtype,
                           "args": list(r.args),
                           **({} if r.trigger is None else {"trigger": span_json(r.trigger)})}
                          for r in d.relations]
        o["events"] = [{"id": v.id, "type": v.type, "subtype": v.subtype,
                        "trigger": span_json(v.trigger),
                        "args": [{"role": x.role, "mention": x.mention} if x.mention is not None
                                 else {"role": x.role, "span": span_json(x.date)}
                                 for x in v.args]}
                       for v in d.events]
        docs.append(o)
    return {"documents": docs}


# --------------------------------------------------------------------------------------------
# TBF event mentions
# --------------------------------------------------------------------------------------------
def ere_from_tbf(tbf) -> EreAnnotation:
    """An annotation from a :class:`~exactalign.io.tbf.TbfFile` read in character mode (see the
    module docstring for the correspondence)."""
    if tbf.mode != "char":
        raise InputError("ERE mapping needs character offsets: read the TBF file in character "
                         "mode (token ids carry no offsets)", path=tbf.path)
    docs = {}
    for doc_id, d in tbf.documents.items():
        mentions, seen = [], {}
        for m in d.mentions:
            if m.mention_id in seen:
                raise InputError(f"mention id {m.mention_id} repeats the one at line "
                                 f"{seen[m.mention_id]}: ERE mentions need distinct ids",
                                 path=tbf.path, line=m.line)
            seen[m.mention_id] = m.line
            big = [x for piece in m.pieces for x in piece if x > MAX_OFFSET]
            if big:
                raise InputError(f"mention {m.mention_id}: character offset {big[0]} is too "
                                 f"large (at most {MAX_OFFSET})", path=tbf.path, line=m.line)
            pieces = _merge_pieces(m.pieces)
            if not pieces:
                raise InputError(f"mention {m.mention_id} covers no character", path=tbf.path,
                                 line=m.line)
            realis = m.attributes[1] if len(m.attributes) > 1 else ""
            mentions.append((m.mention_id, pieces, realis, m.type))
        entity_of: dict[str, str] = {}
        entities = []
        for r in d.relations:
            if r.name != "Coreference":
                continue
            for a in r.arguments:
                if a in entity_of:
                    raise InputError(f"mention {a} is in coreference clusters {entity_of[a]} "
                                     f"and {r.relation_id}", path=tbf.path, line=r.line)
                entity_of[a] = r.relation_id
            entities.append([r.relation_id, list(dict.fromkeys(r.arguments))])
        for mid, *_ in mentions:
            if mid not in entity_of:
                entity_of[mid] = f"{mid}(singleton)"
                entities.append([entity_of[mid], [mid]])
        types = {mid: t for mid, _, _, t in mentions}
        docs[doc_id] = EreDocument(
            doc_id,
            tuple(EreMention(mid, span, realis, entity_of[mid])
                  for mid, span, realis, _ in mentions),
            tuple(EreEntity(eid, types[ms[0]], tuple(ms)) for eid, ms in entities))
    return EreAnnotation(tbf.path, docs)


def _merge_pieces(pieces) -> Span:
    """TBF pieces as a span: empty pieces dropped, overlapping or touching ones merged."""
    out: list[list[int]] = []
    for b, e in sorted(p for p in pieces if p[1] > p[0]):
        if out and b <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([b, e])
    return tuple((b, e) for b, e in out)


__all__ = [
    "EreAnnotation", "EreDocument", "EreEntity", "EreEvent", "EreMention", "EreRelation",
    "EventArgument", "Span", "ere_from_dict", "ere_from_tbf", "ere_to_dict", "pair_annotations",
    "parse_ere", "parse_span", "read_ere", "span_json",
]
