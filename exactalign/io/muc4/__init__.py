"""Reading the 1992 MUC-4 evaluation files: templates, score reports, judgement histories.

One module per format, every name re-exported here:

``templates``  answer keys (``key-tst3.v2``) and system responses: :func:`read_templates`,
               :func:`by_message`, :func:`parse_fill`, :class:`MucTemplate`, :class:`Fill`, the
               slot tables (:data:`SLOTS`, :data:`XREF_SLOTS`, :data:`STRING_SLOTS`);
``values``     fill values as the 1992 scorer reads them (a port of its ``parse.el``):
               :func:`parse_value`, :data:`SLOT_TYPES`;
``reports``    the official score reports (``scores-pass1.*.nrad``): :func:`read_score_report`;
``histories``  the judgement histories (``final-history-nrad.tst3``,
               ``final-cumulative-hist.tst4``): :func:`read_history`, :func:`parse_sexpr`;
``files``      what the three readers share: the files' text as Latin-1, ``-`` for standard
               input (:func:`read_latin1`, :data:`STDIN`).
"""

from __future__ import annotations

from .files import STDIN, read_latin1
from .histories import History, Judgement, fill_key, lisp_value, parse_sexpr, read_history
from .reports import COUNT_NAMES, ReportPair, ScoreReport, read_score_report
from .templates import (
    SLOTS,
    STRING_SLOTS,
    XREF_SLOTS,
    Alt,
    Fill,
    MucTemplate,
    by_message,
    parse_fill,
    read_templates,
)
from .values import SLOT_TYPES, parse_value

__all__ = [
    # templates
    "SLOTS", "XREF_SLOTS", "STRING_SLOTS", "Alt", "Fill", "MucTemplate", "parse_fill",
    "read_templates", "by_message",
    # fill values
    "SLOT_TYPES", "parse_value",
    # files
    "STDIN", "read_latin1",
    # score reports
    "COUNT_NAMES", "ReportPair", "ScoreReport", "read_score_report",
    # judgement histories
    "parse_sexpr", "fill_key", "Judgement", "History", "lisp_value", "read_history",
]
