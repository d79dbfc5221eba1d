"""``exactalign nugget --scheme muc``: the MUC-style scheme -- one table of COR, PAR, credit,
ACT, POS, P/R/F and status per mapping and combination (:func:`format_muc`), or its ``--json``
document (:func:`muc_to_json`)."""

from __future__ import annotations

import argparse
import sys

from .inputs import check_whitelist, offsets
from .payload import document_rows, score_name


def run_muc(args: argparse.Namespace, mappings: list[str]) -> int:
    """``--scheme muc`` on ``mappings`` (the options already checked): its table or JSON."""
    from ...metrics import nugget

    ev = nugget.evaluate_files(args.gold, args.system, token_dir=args.token_dir,
                               token_ext=args.token_ext, type_whitelist=args.type_whitelist,
                               **offsets(args), scheme="muc", mappings=mappings,
                               partial=args.partial_credit,
                               optional_values=args.optional_value, strict=args.strict)
    check_whitelist(args, ev)
    for w in ev.warnings:
        print(f"exactalign: warning: {w}", file=sys.stderr)
    if args.json:
        from ..common import print_json

        print_json(muc_to_json(ev))
    else:
        sys.stdout.write(format_muc(ev))
    return 0


def format_muc(ev) -> str:
    """One row per (mapping, combination): corpus COR, PAR, credit, ACT, POS, aligned optional
    gold mentions, P, R and F1 in percent and the status (``optimal`` only for a proven exact
    mapping)."""
    header = ["mapping", "attributes", "COR", "PAR", "credit", "ACT", "POS", "opt", "Prec",
              "Rec", "F1", "status"]
    rows = []
    for m, sc in ev.scores.items():
        for c in sc.combinations:
            t, p = sc.totals(c), sc.micro(c)
            rows.append([m, c, str(t.cor), str(t.par), f"{t.credit:.4f}", str(t.act),
                         str(t.pos), str(t.optional_aligned), f"{100 * p.precision:.2f}",
                         f"{100 * p.recall:.2f}", f"{100 * p.f1:.2f}", sc.status(c)])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(x.ljust(w) for x, w in zip(r, widths, strict=True)).rstrip()
             for r in [header, *rows]]
    return (f"=======MUC-style scores (partial credit: {ev.partial})=========\n"
            + "\n".join(lines) + "\n")


def muc_to_json(ev) -> dict:
    """The ``--json`` object of ``--scheme muc`` (``exactalign/output.schema.json``): ``gold``,
    ``system``, ``mode``, ``scheme`` (``"muc"``), ``partial_credit``, ``attributes``,
    ``combinations``, ``warnings``; ``overall``: ``MAPPING/COMBINATION`` -> P/R/F with the
    corpus counts ``cor``, ``par``, ``credit``, ``act``, ``pos``, ``optional_aligned``;
    ``documents``: a list of ``{"id", "scores"}``, the same per document; ``mappings[m]
    [combination]``: ``status`` (``optimal`` only for a proven exact mapping) and, for the
    exact mapping, ``bound`` and ``iterations`` of Dinkelbach's method (no solver certificate:
    no ``solves``)."""
    from ..common import prf

    def counts(t):
        return {"cor": t.cor, "par": t.par, "credit": t.credit, "act": t.act, "pos": t.pos,
                "optional_aligned": t.optional_aligned}

    overall, mappings = {}, {}
    for m, sc in ev.scores.items():
        mappings[m] = {}
        for c in sc.combinations:
            p = sc.micro(c)
            overall[score_name(m, c)] = prf(p.recall, p.precision, p.f1, counts(sc.totals(c)))
            entry = {"status": sc.status(c)}
            r = sc.ratio.get(c)
            if r is not None:
                entry.update(bound=r.bound, iterations=r.iterations)
            mappings[m][c] = entry
    documents = []
    for doc_id, by_mapping in document_rows(ev.scores):
        documents.append({"id": doc_id, "scores": {
            score_name(m, c): prf(d.counts[c].prf.recall, d.counts[c].prf.precision,
                                  d.counts[c].prf.f1, counts(d.counts[c]))
            for m, d in by_mapping.items() for c in ev.scores[m].combinations}})
    return {"gold": ev.gold_path, "system": ev.system_path, "mode": ev.mode, "scheme": "muc",
            "partial_credit": ev.partial, "attributes": list(ev.attributes),
            "combinations": list(ev.combinations), "warnings": [str(w) for w in ev.warnings],
            "overall": overall, "documents": documents, "mappings": mappings}
