"""The report of a temporal-awareness run: what ``exactalign temporal GOLD_DIR SYS_DIR`` prints,
read and scored once (:func:`report_dirs`), and what ``exactalign temporal check DIR`` prints
(:func:`check_dir`); the command only formats them."""

from __future__ import annotations

from typing import NamedTuple

from .consistency import check_document
from .corpus import CorpusScore
from .entities import EntityScores, entity_scores
from .modes import score_corpus


class TemporalReport(NamedTuple):
    """Two TimeML folders scored: ``scores`` in ``mode`` (:func:`~.modes.score_corpus`) and,
    when asked for, the toolkit's EVENT and TIMEX3 extraction scores (``entities``)."""

    gold: str
    system: str
    mode: str
    scores: CorpusScore
    entities: EntityScores | None = None


def report_dirs(gold, system, mode: str = "exact", *, backend: str = "highs",
                time_limit: float | None = None, entities: bool = False) -> TemporalReport:
    """Read the TimeML files of the folders ``gold`` and ``system`` (one document per file,
    the same documents on both sides) and score them in ``mode``; ``entities``: also the
    extraction scores."""
    from ...io.timeml import read_timeml_dir

    gold_docs, sys_docs = read_timeml_dir(gold), read_timeml_dir(system)
    scores = score_corpus(gold_docs, sys_docs, mode, backend=backend, time_limit=time_limit)
    ent = entity_scores(gold_docs, sys_docs) if entities else None
    return TemporalReport(str(gold), str(system), mode, scores, ent)


def check_dir(directory, *, backend: str = "highs", time_limit: float | None = None) -> tuple:
    """``exactalign temporal check DIR``: the consistency report of every TimeML document of
    ``directory`` (:func:`~.consistency.check_document`), in the folder's order."""
    from ...io.timeml import read_timeml_dir

    return tuple(check_document(doc, backend=backend, time_limit=time_limit)
                 for doc in read_timeml_dir(directory).values())
