"""MUC-4 (1992) template scoring with partial credit, and the template alignment behind it.

Slot scoring: ``muc1992`` (the default) -- the 1992 scorer itself
------------------------------------------------------------------
:class:`Scorer1992` ports the slot scoring of the MUC scorer v3.2 (SAIC, 1992: ``score.el``,
``history.el``, ``slots.el``, ``parse.el``; distributed with the MUC-3/4 data, xinyadu/gtt
``data/muc/raw_files/muc34/TEST/SCORER``) under the official configuration (``config-tst3.el``,
``slotconfig-tst3.el``): fills read as the scorer reads them (:func:`exactalign.io.muc4.parse_value`),
strings equal after its premodifier deletion (:func:`strip_premodifiers`), the judgement history
looked up per message, **key template**, slot and response value (modulo premodifiers), the
slot hierarchies of the configuration (:data:`HIERARCHIES`), cross-referenced tags
corresponding by equality or by the history of the slot they point to, the guidelines' table
for cross-referenced set fills (§3.1.2), distributed judgements (``all-of``: POS and ACT + n),
and the scorer's order -- equal fills first, then each response fill by the automatic rules and
the history, then the questions it put to the human (answered here from the history), then
INC/SPU/MIS. Where the official reports (produced with v3.4, which is not public) show
otherwise, the report rows decide; each such rule says which rows: a tag judged a match makes an
ancestor value COR (:meth:`Scorer1992._conform`), a tag failed in one pointed-to slot only
stops that key fill (:meth:`Scorer1992.tags_correspond`).

:func:`compare_report` scores a report's own mapping line by line and lists every slot row
that differs from the report. With the final judgement histories it reproduces 13 of the 34
ALL TEMPLATES rows exactly; every other difference lies in slots whose official row shows a
human judgement (ICR/IPA) other than the final history's, or follows from one (a tag judged
in another slot): the reports were made while the history was still being written and revised.

``exact`` and ``first-fit`` (kept for comparison) approximate the rules over the fills'
alternatives: a score ``s(k, r)`` per key/response fill (1 for an equal alternative or a history
``match``, ½ for ``partial`` or :func:`value_score`'s automatic rules, cross-referenced fills
through :meth:`Judge.reference`), fills matched 1:1 by an assignment (``exact``) or in order
(``first-fit``), the rest INC/SPU/MIS. ``POS = COR+PAR+INC+MIS``, ``ACT = COR+PAR+INC+SPU``.
The template-id row of the reports is not part of their TOTAL and ALL TEMPLATES rows, nor of
ours. An unmapped response template counts every fill SPU (but ``?`` ones), an unmapped
non-optional key template every non-optional fill MIS, an unmapped optional key template
nothing.

Template alignment (per message)
--------------------------------
Pairs may map only under the **content rule** (guidelines §3.2.1): at least a partial match on
INCIDENT: TYPE plus at least a partial match on a perpetrator slot (INDIV ID, ORG ID), a physical
target slot (ID, TYPE) or a human target slot (NAME, DESCRIPTION, TYPE) -- as the scorer tests it
(:func:`content_rule_1992`: a shared word is a partial match, and all seven slots empty on both
sides also passes), leniently for the candidates (the history's ``fail`` judgements ignored:
they may postdate the mapping), so that every recorded pair of the 33 reports is a candidate.
``recorded``  the mapping an official score report used, its lines counted as listed;
``muc1992``   the scorer's automatic mapping: the pairs its (strict) rule allows, by decreasing
              integer recall percentage scored without questions (ties: key order, then
              response order), taken while both templates are free;
``exact``     the mapping maximising the message's ``F = 2(COR + ½PAR)/(POS + ACT)``. ACT is
              fixed; POS depends on the mapping when an optional key template stays unmapped, so
              F is a ratio, maximised by Dinkelbach's method (:mod:`exactalign.core.fractional`)
              whose parametric problems are assignments (certified exact); proven per message.
``exact-corpus`` the mappings of all messages together maximising the corpus F that the ALL
              TEMPLATES row reports, 2 Σ credit / Σ (POS + ACT) (:func:`align_exact_corpus`):
              Dinkelbach again, its parametric problem one assignment per message. Per-message
              optima need not reach it (a message may give up some of its own F for the
              corpus's: an optional key template earning little credit for many fills), so it
              is the one alignment whose corpus F no other alignment under the content rule
              can beat -- the recorded mapping included.

The package, one module per idea (each imports only modules above it in this list)
--------------------------------------------------------------------------------------
* :mod:`~exactalign.metrics.muc4.counts` -- the counts of a score row, P/R/F, the scorer's
  rounded percentage;
* :mod:`~exactalign.metrics.muc4.config1992` -- the official configuration's tables and the
  scorer's value comparison (premodifiers, equality, hierarchies, cross-references);
* :mod:`~exactalign.metrics.muc4.scorer1992` -- the 1992 scorer's slot scoring
  (:class:`Scorer1992`);
* :mod:`~exactalign.metrics.muc4.guidelines` -- the guidelines' rules over alternatives (slot
  matching ``exact`` and ``first-fit``);
* :mod:`~exactalign.metrics.muc4.pairs` -- a template pair's counts, unmapped templates, the
  content rule;
* :mod:`~exactalign.metrics.muc4.alignment` -- the template alignments of a message;
* :mod:`~exactalign.metrics.muc4.corpus` -- scoring a corpus under each alignment;
* :mod:`~exactalign.metrics.muc4.compare` -- comparison with an official score report.

Every public name is importable from ``exactalign.metrics.muc4`` itself.
"""

from __future__ import annotations

from .alignment import (
    ALIGNMENTS,
    MessageTable,
    align_exact,
    align_exact_corpus,
    align_muc1992,
    co_optimal_counts,
    message_table,
    restrict_content,
    witness,
)
from .compare import REPORT_FIELDS, ReportComparison, SlotDiff, compare_report
from .config1992 import HIERARCHIES, PREMODIFIERS, XREF_TARGETS, muc_equal, strip_premodifiers
from .corpus import MessageScore, MucScore, recorded_mapping, score_messages
from .counts import FIELDS, Counts, normalized_percent
from .guidelines import (
    AUTO_PARTIAL,
    INSTRUMENT_PARENT,
    NONESSENTIAL,
    NUMBER_SLOTS,
    Judge,
    core_string,
    slot_counts,
    slot_pairs,
    value_score,
)
from .pairs import (
    MAP_RESTRICTION,
    PERP_TARGET_SLOTS,
    SLOT_MATCHING,
    content_rule,
    content_rule_1992,
    mapping_score_1992,
    missing_counts,
    pair_counts,
    spurious_counts,
)
from .scorer1992 import Scorer1992, SlotTally

__all__ = [
    "FIELDS", "PERP_TARGET_SLOTS", "ALIGNMENTS", "SLOT_MATCHING", "Counts", "AUTO_PARTIAL",
    "INSTRUMENT_PARENT", "value_score", "NONESSENTIAL", "core_string", "NUMBER_SLOTS", "Judge",
    "slot_pairs", "slot_counts", "pair_counts", "missing_counts", "spurious_counts",
    "content_rule", "MAP_RESTRICTION", "content_rule_1992", "mapping_score_1992",
    "normalized_percent", "PREMODIFIERS", "strip_premodifiers", "muc_equal", "HIERARCHIES",
    "XREF_TARGETS", "SlotTally", "Scorer1992", "MessageTable", "message_table", "align_muc1992",
    "align_exact", "align_exact_corpus", "restrict_content", "co_optimal_counts", "witness", "MessageScore", "MucScore", "score_messages",
    "recorded_mapping", "REPORT_FIELDS", "SlotDiff", "ReportComparison", "compare_report",
]
