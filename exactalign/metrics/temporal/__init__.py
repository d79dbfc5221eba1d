"""Temporal awareness (UzZaman & Allen 2011): the TempEval-3 toolkit's score and an exact one.

A system TLINK counts for precision when the reference graph's closure entails it, a reference
TLINK counts for recall when the system graph's closure entails it; P and R are micro-averaged
over documents, F1 is their harmonic mean. :func:`score_corpus` scores a corpus in one of three
modes: ``te3`` (the toolkit's score, reproduced to the digit), ``exact`` (the same measure on
maximum consistent subsets, closed exactly) and ``plain`` (no closure); :func:`entity_scores`
gives the toolkit's EVENT and TIMEX3 extraction scores; :func:`check_document` whether one
document's links are consistent.

One idea per module; each imports only those listed before it:

* :mod:`~exactalign.metrics.temporal.corpus` -- a document's link counts, their micro average,
  and the reference and system holding the same documents;
* :mod:`~exactalign.metrics.temporal.links` -- the steps common to every mode: ids, orientation
  and labels of a document's TLINKs;
* :mod:`~exactalign.metrics.temporal.timegraph` -- the toolkit's Timegraph and the reduced graph
  it builds;
* :mod:`~exactalign.metrics.temporal.tokenizer` -- the tokens the toolkit's normaliser labels;
* :mod:`~exactalign.metrics.temporal.elements` -- what the toolkit reads from a file beyond the
  parsed document;
* :mod:`~exactalign.metrics.temporal.normaliser` -- the TimeML-Normalizer's ids for entities and
  links;
* :mod:`~exactalign.metrics.temporal.te3`, :mod:`~exactalign.metrics.temporal.exact`,
  :mod:`~exactalign.metrics.temporal.plain` -- one document scored in each mode;
* :mod:`~exactalign.metrics.temporal.modes` -- a corpus scored in one mode (:func:`score_corpus`);
* :mod:`~exactalign.metrics.temporal.consistency` -- one document's consistency;
* :mod:`~exactalign.metrics.temporal.entities` -- EVENT and TIMEX3 extraction scores;
* :mod:`~exactalign.metrics.temporal.report` -- two folders read and scored once, what
  ``exactalign temporal`` prints (:func:`report_dirs`, :func:`check_dir`).

Every name is handed on here: ``from exactalign.metrics import temporal`` then
``temporal.score_corpus``, ``temporal.te3_graph``, ...
"""

from __future__ import annotations

from .consistency import ConsistencyReport, check_document, document_instance
from .corpus import CorpusScore, DocScore
from .entities import (
    EVENT_ATTRIBUTES,
    TIMEX_ATTRIBUTES,
    DocEntities,
    EntityCounts,
    EntityScores,
    entity_document,
    entity_scores,
)
from .exact import exact_document, exact_graph
from .links import align_ids, document_links
from .modes import MODES, score_corpus
from .normaliser import te3_entity_ids, te3_link_ids
from .plain import plain_document
from .report import TemporalReport, check_dir, report_dirs
from .te3 import te3_document
from .timegraph import Timegraph, te3_graph
from .tokenizer import toolkit_tokens

__all__ = ["DocScore", "CorpusScore", "align_ids", "document_links", "te3_document",
           "exact_document", "score_corpus", "Timegraph", "te3_graph", "EVENT_ATTRIBUTES",
           "TIMEX_ATTRIBUTES", "EntityCounts", "DocEntities", "EntityScores", "toolkit_tokens",
           "te3_entity_ids", "te3_link_ids", "entity_document", "entity_scores",
           "exact_graph", "plain_document", "MODES", "document_instance", "ConsistencyReport",
           "check_document", "TemporalReport", "check_dir", "report_dirs"]
