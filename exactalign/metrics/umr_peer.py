"""AnCast 0.1.1 (the ``ancast`` package, the ``peers`` extra) run on two files, its mapping kept.

AnCast's API scores a file pair through ``ancast.document.SentenceMatch`` (``--scope snt``) or
``DocumentMatch`` (``--scope doc``), which build one ``MatchResolution`` per sentence and do not
keep it. :func:`run_ancast` runs the same classes on the files as ``ancast`` reads them (split
on two blank lines, on one for AMR at sentence level) and keeps every sentence's resolution
(through a subclass whose ``macro_avg`` records it), so that the mapping AnCast used and the
counts it made under it can be compared with ours. Where AnCast raises (its doc scope cannot
read an alignment of several spans: ``ValueError: invalid literal for int() with base 10: '7,
9'``), the run says so in one line (:attr:`AncastRun.failure`) instead of stopping.
"""

from __future__ import annotations

import contextlib
import io
import logging
from typing import NamedTuple


class AncastSentence(NamedTuple):
    """One sentence as AnCast resolved it: its number (1-based, AnCast's ``sent_num``), the
    mapping both ways (``test variable -> gold variable``, ``gold -> test``; unmatched variables
    left out), its Smatch-format F and the counts behind it (matched and total, both ways)."""

    index: int
    map01: dict
    map10: dict
    smatch_f: float
    matched01: float
    total01: float
    matched10: float
    total10: float


class AncastRun(NamedTuple):
    """What AnCast printed (``printed``: name -> (P, R, F) or F), its sentences, or why it
    failed (``failure``: one line)."""

    printed: dict
    sentences: tuple
    failure: str | None = None
    wall_time: float = 0.0


def available() -> bool:
    """Whether the ``ancast`` package can be imported."""
    try:
        import ancast  # noqa: F401
    except ImportError:
        return False
    return True


def _sentence(m) -> AncastSentence:
    a, b = m.Mt01.metrics, m.Mt10.metrics
    return AncastSentence(
        int(m.umr0.sent_num),
        {k: v for k, v in m.match_list01.items() if not str(v).startswith("NULL")},
        {k: v for k, v in m.match_list10.items() if not str(v).startswith("NULL")},
        float(m.smatch_format_score),
        float(a["concept"]["smatch_concept_sum"] + a["relation"]["matched"]),
        float(a["concept"]["smatch_concept_sum_count"] + a["relation"]["total"]),
        float(b["concept"]["smatch_concept_sum"] + b["relation"]["matched"]),
        float(b["concept"]["smatch_concept_sum_count"] + b["relation"]["total"]))


def run_ancast(test_path, gold_path, *, scope: str = "snt", data_format: str = "umr",
               use_alignment: bool = False, allow_reify: bool = False,
               use_smatch_top: bool = True) -> AncastRun:
    """AnCast on two files, as ``ancast -p TEST -g GOLD -s SCOPE`` with the flags given (its
    other hyper-parameters at their defaults). Its log is silenced; its numbers are returned."""
    import time

    from ancast import io_utils, resource_utils
    from ancast.document import DocumentMatch, SentenceMatch

    t0 = time.perf_counter()
    if allow_reify:
        resource_utils.load_abt_vocab(global_cache=True)
        resource_utils.load_reify_rels(global_cache=True)
    base = DocumentMatch if scope == "doc" else SentenceMatch
    kept: list = []

    class Keep(base):
        def macro_avg(self, M):  # AnCast calls it once per resolved sentence
            kept.append(M)
            super().macro_avg(M)

    options = dict(Cneighbor=1, sense_coefficient=0.1, allow_reify=allow_reify,
                   separate_1_and_2=False, use_alignment=use_alignment,
                   use_smatch_top=use_smatch_top)
    if scope == "doc":
        match = Keep(**options)
        delimiter = "\n\n\n"
    else:
        match = Keep(format=data_format, **options)
        delimiter = "\n\n" if data_format == "amr" else "\n\n\n"
    pred = io_utils.load_txt(str(test_path), delimiter=delimiter)
    gold = io_utils.load_txt(str(gold_path), delimiter=delimiter)
    log = logging.getLogger("ancast")
    level, log.level = log.level, logging.CRITICAL
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink):
            match.compute_scores(pred_inputs=pred, gold_inputs=gold)
    except Exception as e:  # AnCast's own failure, reported in one line
        first = " ".join(str(e).split())[:200]
        return AncastRun({}, tuple(_sentence(m) for m in kept),
                         f"{type(e).__name__}: {first}", time.perf_counter() - t0)
    finally:
        log.level = level
    ps = match.semantic_metric_precision.compute("lr")
    rs = match.semantic_metric_recall.compute("lr")
    printed = {"sent": (ps, rs, match.sent_fscore)}
    if scope == "doc":
        printed.update(modal=match.modal_fscore, temporal=match.temporal_fscore,
                       coref=match.coref_fscore, comp=match.comp_fscore)
    return AncastRun(printed, tuple(_sentence(m) for m in kept), None,
                     time.perf_counter() - t0)
