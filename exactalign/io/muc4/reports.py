"""Reading the 1992 MUC-4 official score reports (``scores-pass1.*.nrad``).

Per message and template pair a header ``MSGID  key: K  response: R  [tag]`` (``<NONE>`` for an
unmapped side, ``*`` for an irrelevant-message mark) followed by a slot table; its ``TOTAL`` row
holds ``POS ACT | COR PAR INC | ICR IPA | SPU MIS NON``. At the end ``ALL TEMPLATES`` holds the
official totals. :func:`read_score_report` returns the pairs (the mapping the official scoring
used) with their TOTAL rows, and the ALL TEMPLATES row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ...core.errors import InputError
from .files import label, read_latin1

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
    """The recorded mapping with each pair's TOTAL row (and slot rows), and the ALL TEMPLATES
    totals. A report of message tables without mapping lines (SRI's TST4 report) gives one
    ``unrecorded`` pair per message, its counts the message's ALL TEMPLATES row."""
    path = label(path)
    pairs, header, all_t, slots = [], None, None, {}
    for text in read_latin1(path).splitlines():
        m = _PAIR.match(text)
        if m or "TOTAL SLOT SCORES" in text:
            if header is not None:  # an irrelevant message (key * response *): no table
                pairs.append(_pair(header, dict.fromkeys(COUNT_NAMES, 0)))
            header, slots = (m.groups() if m else None), {}
            continue
        r = _ROW.match(text.replace("\t", " "))
        if not r:
            continue
        counts = dict(zip(COUNT_NAMES, map(int, r.groups()[1:]), strict=True))
        if r.group(1) == "ALL TEMPLATES" and header is not None and header[1] is None:
            pairs.append(_pair(header, counts, slots))  # a message table (no mapping lines)
            header = None
        elif r.group(1) == "ALL TEMPLATES":
            all_t = counts
        elif header is not None and r.group(1) == "TOTAL":
            pairs.append(_pair(header, counts, slots))
            header = None
        elif header is not None:
            slots[r.group(1)] = counts
    if all_t is None:
        raise InputError("no ALL TEMPLATES row: not a MUC-4 score report", path=path)
    return ScoreReport(tuple(pairs), all_t)
