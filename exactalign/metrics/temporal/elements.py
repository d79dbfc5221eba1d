"""What the TempEval-3 toolkit reads from a TimeML file beyond
:class:`~exactalign.io.timeml.TimeMLDocument`: its EVENT and TIMEX3 elements in file order,
the attributes of each EVENT tag, and the DCT (:func:`file_elements`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from xml.parsers import expat

from ...io.timeml import TimeMLDocument

__all__ = ["FileElements", "file_elements"]


@dataclass
class FileElements:
    """What ``get_attributes`` reads from a file beyond :class:`TimeMLDocument`: every EVENT
    and TIMEX3 element in file order as ``(tag, id, inside <TEXT>, without child element)``,
    the attributes of each EVENT tag, the DCT's tid and whether the normaliser renames it
    ``t0`` (it does only where the file writes ``<DCT><TIMEX3`` with nothing between)."""

    order: list[tuple[str, str, bool, bool]]
    event_tags: dict[str, dict[str, str]]
    dct: str | None
    dct_renamed: bool


def file_elements(doc: TimeMLDocument) -> FileElements:
    """Read ``doc``'s file again (expat, tags only): :class:`~exactalign.io.timeml.Event`
    keeps only ``class`` of the EVENT tag, and TimeML 1.1 puts tense, aspect, ... there. A
    document parsed from a string (no file) gives its entities (those outside ``<TEXT>``
    first), ``class`` only, and a renamed DCT."""
    path = doc.path
    if path is not None and path.is_file():
        data = path.read_bytes()
        order: list[tuple[str, str, bool, bool]] = []
        tags: dict[str, dict[str, str]] = {}
        state = {"text": 0, "dct": 0, "open": [], "dct_tid": None}

        def start(name, attrs):
            for k in state["open"]:
                order[k] = order[k][:3] + (False,)
            if name == "TEXT":
                state["text"] += 1
            elif name == "DCT":
                state["dct"] += 1
            elif name in ("EVENT", "TIMEX3"):
                ident = attrs.get("eid" if name == "EVENT" else "tid", "")
                if name == "EVENT":
                    tags.setdefault(ident, attrs)
                elif state["dct"] and state["dct_tid"] is None:
                    state["dct_tid"] = ident
                state["open"].append(len(order))
                order.append((name, ident, state["text"] > 0, True))

        def end(name):
            if name == "TEXT":
                state["text"] -= 1
            elif name == "DCT":
                state["dct"] -= 1
            elif name in ("EVENT", "TIMEX3") and state["open"]:
                state["open"].pop()
        parser = expat.ParserCreate()
        parser.StartElementHandler, parser.EndElementHandler = start, end
        try:
            parser.Parse(data, True)
        except expat.ExpatError:
            pass
        else:
            dct = state["dct_tid"]
            renamed = dct is not None and re.search(
                rb'<DCT><TIMEX3[^>]*tid="' + re.escape(dct.encode()) + rb'"', data) is not None
            return FileElements(order, tags, dct, renamed)
    outside = [("EVENT", e.eid) for e in doc.events.values() if e.start is None] + \
        [("TIMEX3", t.tid) for t in doc.timexes.values() if t.start is None]
    inside = sorted([(e.start, "EVENT", e.eid) for e in doc.events.values()
                     if e.start is not None] +
                    [(t.start, "TIMEX3", t.tid) for t in doc.timexes.values()
                     if t.start is not None])
    order = [(tag, ident, False, True) for tag, ident in dict.fromkeys(outside)] + \
        [(tag, ident, True, True) for _, tag, ident in dict.fromkeys(inside)]
    return FileElements(order, {e.eid: {"class": e.eclass} for e in doc.events.values()
                             if e.eclass is not None}, doc.dct, True)
