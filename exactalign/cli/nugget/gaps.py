"""How far the heuristic mappings of ``exactalign nugget --mapping all`` fall below the exact
one: the text table (with, per mapping and combination, the worst document's witness: how many
mention pairs to change to reach the optimum) and the ``--json`` document's ``vs_exact``."""

from __future__ import annotations


def format_gaps(ev) -> str:
    """The heuristics against the exact mapping, per attribute combination (TP summed over the
    valid documents, F1 in percent)."""
    from ...core.result import worst_status

    exact = ev.scores["exact"]
    statuses = [r.status for d in exact.documents for r in d.results.values()]
    status = worst_status(statuses).value if statuses else "optimal"
    header = ["mapping", "attributes", "TP", "exact TP", "shortfall", "docs with gap",
              "max doc TP gap", "max doc F1 gap", "micro F1", "exact micro F1"]
    rows = []
    for m in ev.scores:
        if m == "exact":
            continue
        for c, g in ev.gaps(m).items():
            rows.append([m, c, f"{g.tp:.4f}", f"{g.exact_tp:.4f}", f"{g.exact_tp - g.tp:.4f}",
                         str(len(g.with_gap)), f"{g.max_tp_gap:.4f}",
                         f"{100 * g.max_f1_gap:.2f}", f"{100 * g.micro_f1:.2f}",
                         f"{100 * g.exact_micro_f1:.2f}"])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(x.ljust(w) for x, w in zip(r, widths, strict=True)).rstrip()
             for r in [header, *rows]]
    return ("=======Mappings vs exact=========\n"
            f"exact mapping: {len(statuses)} solves, worst status {status}\n"
            + "\n".join(lines) + "\n" + _worst_documents(ev))


def _worst_documents(ev) -> str:
    """Per heuristic mapping and combination below the exact one, its document furthest below
    (by TP) and the witness there: how many mention pairs to remove and add to reach an
    optimal mapping (``--json`` has every document's witness)."""
    exact = ev.scores["exact"]
    lines = []
    for m, sc in ev.scores.items():
        if m == "exact":
            continue
        for c, g in ev.gaps(m).items():
            if not g.with_gap:
                continue
            worst = max(g.with_gap, key=lambda d: d.tp_gap)
            w = sc.document(worst.doc_id).witness(c, exact.document(worst.doc_id).tp(c))
            lines.append(f"{m} {c}: worst document {worst.doc_id} (TP -{worst.tp_gap:.4f}): "
                         f"remove {len(w['remove'])} and add {len(w['add'])} mention pair(s) "
                         "to reach the optimum")
    return "".join(ln + "\n" for ln in lines)


def vs_exact_to_json(ev) -> dict | None:
    """``vs_exact`` of the ``--json`` document: heuristic mapping -> combination -> ``tp``,
    ``exact_tp``, ``shortfall``, ``documents_with_gap`` and the F1s (``None`` without the exact
    mapping)."""
    exact = ev.scores.get("exact")
    vs_exact = None
    if exact is not None:
        vs_exact = {}
        for m in ev.scores:
            if m == "exact":
                continue
            vs_exact[m] = {}
            for c, g in ev.gaps(m).items():
                vs_exact[m][c] = {
                    "tp": g.tp, "exact_tp": g.exact_tp, "shortfall": g.exact_tp - g.tp,
                    "documents_with_gap": [d.doc_id for d in g.with_gap],
                    "max_document_tp_gap": g.max_tp_gap, "max_document_f1_gap": g.max_f1_gap,
                    "micro_f1": g.micro_f1, "exact_micro_f1": g.exact_micro_f1,
                    "macro_f1": g.macro_f1, "exact_macro_f1": g.exact_macro_f1,
                }
    return vs_exact
