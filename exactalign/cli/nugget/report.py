"""The text of ``exactalign nugget``'s dice scheme beyond v1.8's report of each mapping (which
the :class:`~exactalign.metrics.nugget_report.NuggetReport` holds as text): the coreference of
every mapping side by side (``--mapping all -c``). v1.8's ``-d`` comparison of gold and system
mentions is :func:`exactalign.metrics.nugget.format_v18_comparison` and the text of one mapping
:func:`exactalign.metrics.nugget_report.report_text`, both handed on here under their former
names."""

from __future__ import annotations

from ...metrics.nugget.report import format_v18_comparison
from ...metrics.nugget_report import report_text as format_report

__all__ = ["format_coref_by_mapping", "format_report", "format_v18_comparison"]


def format_coref_by_mapping(rep) -> str:
    """Coreference under each mention mapping of the report ``rep``: rows aligned, v1.8's
    average, the CoNLL-2012 average and each metric's F1 (percent, untruncated)."""
    from ...metrics.coref import METRICS

    metrics = [m for m in METRICS if m != "lea"]
    header = ["mapping", "aligned", "v1.8 average", "CoNLL-2012", *metrics]
    rows = []
    for m, sc in rep.evaluation.scores.items():
        c = sc.coref
        rows.append([m, str(sum(r.aligned for r in c.documents)), f"{c.v18_average():.2f}",
                     f"{100 * c.conll:.2f}",
                     *(f"{100 * c.scores.overall[x].f1:.2f}" for x in metrics)])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(x.ljust(w) for x, w in zip(r, widths, strict=True)).rstrip()
             for r in [header, *rows]]
    return "\n=======Coreference by mapping=========\n" + "\n".join(lines) + "\n"
