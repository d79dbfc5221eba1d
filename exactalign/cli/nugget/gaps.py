"""How far the heuristic mappings of ``exactalign nugget --mapping all`` fall below the exact
one, as text: the table of the report's ``vs_exact`` (with, per mapping and combination, the
worst document's witness: how many mention pairs to change to reach the optimum). The JSON's
``vs_exact`` is :func:`exactalign.metrics.nugget_report.vs_exact_to_json`, handed on here."""

from __future__ import annotations

from ...metrics.nugget_report import vs_exact_to_json

__all__ = ["format_gaps", "vs_exact_to_json"]


def format_gaps(rep) -> str:
    """The heuristics against the exact mapping of the report ``rep``, per attribute
    combination (TP summed over the valid documents, F1 in percent)."""
    solves, status = rep.exact_solves
    header = ["mapping", "attributes", "TP", "exact TP", "shortfall", "docs with gap",
              "max doc TP gap", "max doc F1 gap", "micro F1", "exact micro F1"]
    rows = []
    for m, by_combination in rep.json["vs_exact"].items():
        for c, g in by_combination.items():
            rows.append([m, c, f"{g['tp']:.4f}", f"{g['exact_tp']:.4f}",
                         f"{g['shortfall']:.4f}", str(len(g["documents_with_gap"])),
                         f"{g['max_document_tp_gap']:.4f}",
                         f"{100 * g['max_document_f1_gap']:.2f}", f"{100 * g['micro_f1']:.2f}",
                         f"{100 * g['exact_micro_f1']:.2f}"])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(x.ljust(w) for x, w in zip(r, widths, strict=True)).rstrip()
             for r in [header, *rows]]
    worst = [f"{m} {c}: worst document {doc_id} (TP -{gap:.4f}): remove {remove} and add "
             f"{add} mention pair(s) to reach the optimum\n"
             for m, c, doc_id, gap, remove, add in rep.worst]
    return ("=======Mappings vs exact=========\n"
            f"exact mapping: {solves} solves, worst status {status}\n"
            + "\n".join(lines) + "\n" + "".join(worst))
