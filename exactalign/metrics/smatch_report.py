"""The report of a Smatch run: everything ``exactalign smatch`` prints, as text or ``--json``,
built once in one pass over the pairs (:func:`report`, :func:`report_files`).

The command asks for the report and only formats it; a Python caller gets the same object::

    >>> from exactalign.metrics.smatch_report import report
    >>> from exactalign.metrics.smatch import SmatchScorer
    >>> scorer = SmatchScorer(["(w / want-01 :ARG0 (b / boy))"], method="both")
    >>> rep = report(scorer.score(["(w / want-01 :ARG0 (g / girl))"]))
    >>> rep.overall["exact"].matched, rep.overall["exact"].proven_pairs, rep.below
    (3.0, 1, 0)
    >>> round(rep.overall["exact"].score.f1, 4), rep.pairs[0].solves["exact"]["status"]
    (0.75, 'optimal')

Named tuples rather than dataclasses, as in :mod:`exactalign.metrics.smatch`: the command line's
smatch path keeps ``dataclasses`` out of its start-up.
"""

from __future__ import annotations

from typing import NamedTuple

from ..core.result import combine_results
from . import smatch
from .aggregation import PRF


class MethodSummary(NamedTuple):
    """One method over the corpus: the pairs' counts summed first, then P/R/F (as
    ``score_amr_pairs``), the pairs proven optimal (``exact`` only), the wall time, and the
    corpus solve (``Result.to_dict()`` of the pairs' results combined: worst status, summed
    objectives and bounds)."""

    score: PRF
    matched: float
    test_triples: int
    gold_triples: int
    proven_pairs: int | None
    wall_time: float
    solve: dict


class PairRow(NamedTuple):
    """One pair: its position (``id``, from 0), triple counts, and per method its P/R/F, the
    triples matched and its solve (``Result.to_dict()``; with the pairs' details, that of
    :func:`~exactalign.metrics.smatch.pair_report`: the mapping, ``matched``, ``proven_by``
    and the matched triples); ``gap`` (``triples``, ``f1_points``) when both methods ran."""

    id: int
    test_triples: int
    gold_triples: int
    scores: dict
    matched: dict
    solves: dict
    gap: dict | None


class SmatchReport(NamedTuple):
    """A Smatch run, as ``exactalign smatch`` shows it.

    ``warnings``: one line per duplicated triple counted once (naming its file and line when
    the paths are known); ``overall``: :class:`MethodSummary` per method, in ``methods`` order;
    ``bound`` and ``bound_f1``: when some pair is not proven optimal, the most triples the pairs
    can match (their bounds summed) and the F-score that would give (else ``None``);
    ``hillclimb_stopped``: pairs whose hill-climbing the time limit stopped; with both methods,
    ``below`` (pairs where the hill-climbing ends below the optimum), ``short`` (triples it
    misses over the corpus) and ``f1_points`` (corpus F1 points it loses), else ``None``;
    ``pairs_scored``: the pairs; ``pairs``: :class:`PairRow` per pair (empty when not asked
    for); ``corpus``: the
    :class:`~exactalign.metrics.smatch.CorpusScore` it was built from."""

    test: str | None
    gold: str | None
    variant: str
    duplicates: str
    methods: tuple
    warnings: tuple
    duplicate_triples: int
    overall: dict
    bound: float | None
    bound_f1: float | None
    hillclimb_stopped: int
    below: int | None
    short: float | None
    f1_points: float | None
    pairs_scored: int
    pairs: tuple
    corpus: smatch.CorpusScore


def _pair_row(p: smatch.PairScore, methods: tuple, details: bool, variant: str) -> PairRow:
    scores = {m: p.scores(m) for m in methods}
    matched = {m: p.result(m).objective for m in methods}
    rep = smatch.pair_report(p, variant) if details else None
    solves = {m: (p.result(m).to_dict() if rep is None
                  else {k: v for k, v in rep[m].items() if k != "score"}) for m in methods}
    gap = None
    if p.exact is not None and p.hillclimb is not None:
        gap = {"triples": p.exact.objective - p.hillclimb.objective,
               "f1_points": 100 * (scores["exact"].f1 - scores["hillclimb"].f1)}
    return PairRow(p.index, p.test_triples, p.gold_triples, scores, matched, solves, gap)


def report(corpus: smatch.CorpusScore, *, paths=(None, None), duplicates: str = "set",
           rows: bool = True, details: bool = False) -> SmatchReport:
    """The :class:`SmatchReport` of ``corpus`` (:func:`~exactalign.metrics.smatch.score_pairs`'s
    or :meth:`~exactalign.metrics.smatch.SmatchScorer.score`'s result). ``paths``: the test and
    gold files (named in the warnings); ``duplicates``: the rule the corpus was counted under;
    ``rows``: build the per-pair rows (the command skips them when it prints neither ``--json``
    nor ``--pairs``: they are two thirds of the report's 0.09 s on the 1,380 bamboo STS pairs);
    ``details``: every pair's mapping and matched triples in its solves (``--pairs``)."""
    test, gold = paths
    pairs = corpus.pairs
    warnings = tuple(d.message(test if d.side == "test" else gold) for d in corpus.duplicates)
    methods = corpus.methods
    totals = {m: corpus.totals(m) for m in methods}  # (matched, test triples, gold triples)
    scores = {m: corpus.scores(m) for m in methods}
    proven = sum(1 for x in pairs if x.exact is not None and x.exact.proven_optimal)
    bound = bound_f1 = None
    if "exact" in methods and proven < len(pairs):  # the optimum lies between the two
        bound = sum(x.exact.bound for x in pairs)
        bound_f1 = smatch.smatch_scores(bound, *totals["exact"][1:]).f1
    stopped = (sum(1 for x in pairs if x.hillclimb.details.get("stopped"))
               if "hillclimb" in methods else 0)
    below = short = points = None
    if len(methods) > 1:
        below = sum(1 for x in pairs if x.hillclimb.objective < x.exact.objective)
        short = totals["exact"][0] - totals["hillclimb"][0]
        points = 100 * (scores["exact"].f1 - scores["hillclimb"].f1)
    # what goes down to the solvers' layers last: the rows' matched triples, the solves
    table = tuple(_pair_row(x, methods, details, corpus.variant) for x in pairs) if rows else ()
    overall = {m: MethodSummary(scores[m], *totals[m], proven if m == "exact" else None,
                                corpus.wall_time[m],
                                combine_results([x.result(m) for x in pairs], m).to_dict())
               for m in methods}
    return SmatchReport(test, gold, corpus.variant, duplicates, corpus.methods, warnings,
                        len(corpus.duplicates), overall, bound, bound_f1, stopped, below, short,
                        points, len(pairs), table, corpus)


def report_files(test_path, gold_path, *, rows: bool = True, details: bool = False,
                 **kwargs) -> SmatchReport:
    """:func:`report` of :func:`~exactalign.metrics.smatch.score_files` on two parallel files
    (``exactalign smatch -f TEST GOLD``; ``kwargs``: :func:`~exactalign.metrics.smatch.
    score_pairs`'s options)."""
    corpus = smatch.score_files(test_path, gold_path, **kwargs)
    return report(corpus, paths=(str(test_path), str(gold_path)),
                  duplicates=kwargs.get("duplicates", "set"), rows=rows, details=details)
