"""The report of a MUC-4 run: everything ``exactalign muc4`` prints, read and scored once.

:func:`report_files` reads the keys and responses (the 1992 format, or GTT's and GRIT's JSON),
checks that they belong together, scores every alignment asked for and, with a 1992 score
report, its recorded mapping and the row-by-row comparison; the command only formats the
:class:`Muc4Report`. A Python caller gets the same object::

    >>> from exactalign.metrics.muc4.report import report_files
    >>> rep = report_files("docs/examples/key-tst3", "docs/examples/response-tst3",
    ...                    alignment="exact")
    >>> list(rep.scores), rep.scores["exact"].status.value, rep.warnings
    (['exact'], 'optimal', ())

Only the key documents are scored, as the reference scorers do (the 1992 scorer, GTT's and
GRIT's ``eval.py``, IterX): a response document outside the keys is named in a warning, and a
response file none of whose documents is in the keys is an error (:func:`check_documents`).
"""

from __future__ import annotations

from typing import NamedTuple

from ...core.errors import InputError


class Muc4Report(NamedTuple):
    """A MUC-4 run. ``scores``: alignment name -> its corpus score, in the order run (1992
    format: :class:`~exactalign.metrics.muc4.MucScore`, with ``total`` and ``messages``; GTT
    format: the :mod:`~exactalign.metrics.templates` score, with ``overall`` and ``docs``);
    ``warnings``: one line each (files that score nothing, documents not in the keys, a report
    without a mapping); ``compare``: the :class:`~exactalign.metrics.muc4.ReportComparison` of
    the report's mapping, when asked for."""

    keys: str
    responses: str
    format: str
    scores: dict
    warnings: tuple
    compare: object | None = None


def report_files(keys, responses, *, format: str = "muc1992", alignment: str = "all",
                 metric: str = "gtt-f1", slot_matching: str = "muc1992", history=None,
                 report=None, compare: bool = False, backend: str = "highs") -> Muc4Report:
    """Read, check and score ``keys`` against ``responses`` (``exactalign muc4``'s options:
    ``alignment`` ``muc1992``/``greedy``/``exact``/``exact-corpus``/``all``; GTT format:
    ``metric`` ``gtt-f1``/``ceaf-rme``/``all``/``ceaf-ree``; 1992 format: ``slot_matching``,
    the judgement ``history`` file, the official score ``report`` file and ``compare``)."""
    warnings: list[str] = []
    gold, pred = _read(keys, responses, format, metric, warnings)
    check_documents(gold, pred, responses, warnings)
    cmp = None
    if format == "gtt" and metric == "ceaf-ree":
        scores = _score_ree(gold, pred, alignment)
    elif format == "gtt":
        scores = _score_gtt(gold, pred, alignment, metric, backend)
    else:
        from ...io import muc4 as io

        judged = io.read_history(history) if history else io.History()
        official = io.read_score_report(report) if report else None
        scores = _score_1992(gold, pred, judged, official, report, alignment, slot_matching,
                             warnings)
        if compare:
            from . import compare_report

            cmp = compare_report(gold, pred, judged, official)
    return Muc4Report(str(keys), str(responses), format, scores, tuple(warnings), cmp)


def _read(keys, responses, format: str, metric: str, warnings: list[str]) -> tuple:
    """``(keys, responses)`` by document. 1992 format: a key file without templates is an
    error (nothing to score). A response file without any document or template is scored
    (every key template missing, as GTT's ``eval.py`` scores it) with a warning."""
    from ...io import gtt
    from ...io import muc4 as io

    if format == "gtt" and metric == "ceaf-ree":
        gold, pred = gtt.read_ree_gold(keys), gtt.read_ree_predictions(responses)
    elif format == "gtt":
        gold, pred = gtt.read_gold(keys), gtt.read_predictions(responses)
    else:
        gold = io.by_message(io.read_templates(keys))
        if not gold:
            raise InputError("no template in the file (is it a key file?)", path=keys)
        pred = io.by_message(io.read_templates(responses))
    if not pred:
        what = "template" if format == "muc1992" else "document"
        warnings.append(f"{responses}: no {what} in the file: every key template counts as "
                        "missing")
    return gold, pred


def check_documents(keys, responses, path, warnings: list[str]) -> None:
    """Only the key documents are scored. A response document outside the keys is reported in
    ``warnings``; a non-empty response file of which no document is in the keys is an error
    (mismatched files would otherwise score 0 silently)."""
    extra = [d for d in responses if d not in keys]
    if not extra:
        return
    if len(extra) == len(responses):
        raise InputError(f"none of its {len(responses)} document(s) is in the keys (first: "
                         f"{extra[0]}); are these the right files?", path=path)
    more = ", ..." if len(extra) > 5 else ""
    warnings.append(f"{path}: {len(extra)} document(s) not in the keys are not scored: "
                    f"{', '.join(extra[:5])}{more}")


def _gtt_methods(choice: str, reference: str) -> list[str]:
    return {"muc1992": [reference], "greedy": ["greedy"], "exact": ["exact"],
            "all": [reference, "greedy", "exact"]}[choice]


def _muc_methods(choice: str) -> list[str]:
    if choice == "greedy":
        return ["muc1992"]
    return ["muc1992", "exact", "exact-corpus"] if choice == "all" else [choice]


def _score_gtt(gold, pred, alignment, metric, backend) -> dict:
    from .. import templates

    scores = {}
    if metric in ("gtt-f1", "all"):
        for m in _gtt_methods(alignment, "gtt"):
            scores[m] = templates.score_gtt(gold, pred, m, backend=backend)
    if metric in ("ceaf-rme", "all"):
        for m in _gtt_methods(alignment, "iterx"):
            scores[f"ceaf-rme-{m}"] = templates.ceaf_rme(gold, pred, m, backend=backend)
    return scores


def _score_ree(gold, pred, alignment) -> dict:
    from .. import templates

    methods = {"muc1992": ["exact"], "greedy": ["greedy"], "exact": ["exact"],
               "all": ["exact", "greedy"]}[alignment]
    scores = {}
    for phi in templates.PHIS:
        for m in methods:
            s = templates.ceaf_ree(gold, pred, phi, m)
            scores[s.method] = s
    return scores


def _score_1992(keys, resps, judged, official, report_path, alignment, slot_matching,
                warnings) -> dict:
    """Every alignment asked for under the judgement history ``judged``, with the recorded
    mapping of the ``official`` score report when it records one."""
    from . import recorded_mapping, score_messages

    names = _muc_methods(alignment)
    recorded = None
    if official is not None:
        if any(p.tag != "unrecorded" for p in official.pairs):
            recorded = recorded_mapping(official)
            names = ["recorded", *names]
        else:  # e.g. SRI's TST4 report: one table per message, no mapping -- never a silent 0
            warnings.append(f"{report_path}: the report records no template mapping (no "
                            "mapping lines), so the recorded alignment is not scored")
    return score_messages(keys, resps, judged, tuple(names), slot_matching, recorded=recorded,
                          witnesses=True)
