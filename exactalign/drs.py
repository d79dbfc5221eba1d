"""DRS parsing scored as Counter scores it, from Python: the family's front door.

:func:`score_files` takes what ``exactalign drs PRODUCED GOLD`` takes, with the same defaults,
and returns the very report the command prints -- a
:class:`~exactalign.metrics.drs_report.DrsReport`, whose :meth:`~exactalign.metrics.
drs_report.DrsReport.to_dict` is the command's ``--json`` document after its envelope::

    >>> from exactalign import drs
    >>> rep = drs.score_files("output1.txt", "dev.txt", ill="dummy")   # doctest: +SKIP
    >>> rep.overall["exact"]["f1"], rep.proven_pairs                    # doctest: +SKIP
    (0.8775, 885)

The rest of the family, handed on from where it lives: :func:`score_drss` (clause lists in
memory), :class:`DrsScorer` (the gold DRSs built once, for a training or tuning loop), the
reader (:func:`read_drs_file`, :func:`parse_drs`, :class:`Drs`), Counter's clauses and options
(:func:`counter_drs`, :class:`CounterOptions`, :data:`SIGNATURE_OPTIONS`,
:data:`DEFAULT_OPTIONS`, :func:`counter_f`) and the WordNet sense map
(:func:`load_sense_map`).
"""

from __future__ import annotations

from .data.wordnet import NOT_NORMALISED, load_sense_map
from .io.drs import Drs, parse_drs, read_drs_file
from .metrics import drs_report
from .metrics.drs import (
    DEFAULT_OPTIONS,
    SIGNATURE_OPTIONS,
    CounterOptions,
    counter_drs,
    counter_f,
)
from .metrics.drs_counter import DEFAULT_RESTARTS
from .metrics.drs_report import DrsPair, DrsReport, DrsScorer, score_drss

__all__ = ["DEFAULT_OPTIONS", "DEFAULT_RESTARTS", "SIGNATURE_OPTIONS", "SMART", "CounterOptions",
           "Drs", "DrsPair", "DrsReport", "DrsScorer", "counter_drs", "counter_f",
           "load_sense_map", "parse_drs", "read_drs_file", "score_drss", "score_files"]

#: Counter's ``-s``: the smart concept mapping first (``conc``) or random mappings only (``no``).
SMART = ("conc", "no")


def smart_flag(smart) -> bool:
    """``smart`` (Counter's ``-s`` value, ``"conc"`` or ``"no"``, or a bool) as a bool."""
    if isinstance(smart, bool):
        return smart
    if smart not in SMART:
        raise ValueError(f"unknown smart mapping {smart!r}; choose one of "
                         + ", ".join(SMART) + " (Counter's -s)")
    return smart == "conc"


def score_files(produced, gold, *, method: str = "both", restarts: int = DEFAULT_RESTARTS,
                seed: int = 0, smart="conc", runs: int = 1, include_ref: bool = False,
                default_sense: bool = False, default_role: bool = False,
                default_concept: bool = False, signature: bool = True, wordnet: bool = True,
                ill: str = "error", digits: int = 4, time_limit: float | None = None,
                backend: str = "highs", jobs: int = 1, counter: str = "190838f") -> DrsReport:
    """The report ``exactalign drs PRODUCED GOLD`` prints (Counter's ``-f1 PRODUCED -f2
    GOLD``), each keyword the command's option of that name: ``method`` (``exact``,
    ``hillclimb``, ``both``), ``restarts`` (``-r``), ``seed``, ``smart`` (``conc`` or ``no``,
    Counter's ``-s``), ``runs`` (``-runs``), ``include_ref`` (``-ic``), ``default_sense``,
    ``default_role``, ``default_concept`` (``-dse``, ``-dr``, ``-dc``), ``signature``
    (``False``: ``--no-signature``), ``wordnet`` (``False``: ``--no-wordnet``; when the sense
    map is not fetched, concepts are compared as written and a warning in
    :attr:`~DrsReport.warnings` says so), ``ill`` (``-ill``), ``digits`` (``-sig``),
    ``time_limit``, ``backend``, ``jobs``, ``counter`` (whose rules: ``190838f``, today's, or
    ``v.2.2.0``, with which PMB 2.2.0's results were published). Raises :class:`~exactalign.core.errors.InputError`
    on a file that cannot be scored (naming it and the line), ``ValueError`` on a bad option."""
    on = smart_flag(smart)
    senses, warnings = None, ()
    if wordnet:
        senses = load_sense_map()
        if senses is None:
            warnings = (NOT_NORMALISED,)
    rep = drs_report.score_files(produced, gold, ill=ill, signature=signature,
                                 include_ref=include_ref, default_sense=default_sense,
                                 default_role=default_role, default_concept=default_concept,
                                 sense_map=senses, method=method, restarts=restarts, seed=seed,
                                 smart=on, runs=runs, digits=digits, time_limit=time_limit,
                                 backend=backend, jobs=jobs, counter=counter)
    return rep._replace(warnings=warnings + rep.warnings) if warnings else rep
