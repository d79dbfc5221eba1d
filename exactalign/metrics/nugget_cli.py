"""``exactalign nugget``: event-nugget scoring as the TAC KBP scorer v1.8, and exactly.

::

    exactalign nugget -g gold.tbf -s system.tbf [-t TOKEN_DIR] [--mapping M|all] [--compat]
                      [--json] [--strict] [--type-whitelist FILE] [--exact-method exact|ilp]

Without ``-t`` spans are character offsets (v1.8's default); with it, token ids checked against
``TOKEN_DIR/<doc id>.tab``. Text output is v1.8's report (per-document table, per-type table,
micro/macro table) for the chosen mapping; with ``--compat`` and the default ``kbp`` mapping it
is byte for byte the official output up to its coreference section (not produced: a later
issue). Without ``--compat`` only the per-type table differs (corrected: it uses the
``mention_type`` mapping and lists system-only types; see :mod:`exactalign.metrics.nugget`).
``--mapping all`` prints the report of every mapping and then how far each heuristic falls below
the exact optimum. Warnings (problems v1.8 survives) go to standard error.

This module imports no numpy at start-up (the command line's start-up rule).
"""

from __future__ import annotations

import argparse
import sys

#: The mapping names of :data:`exactalign.metrics.nugget.MAPPINGS` (kept here so that building
#: the parser does not import numpy; a test pins the two together).
MAPPING_NAMES = ("kbp", "kbp-gold-order", "pilot2015", "exact")
EXACT_METHODS = ("exact", "ilp")


def add_nugget_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-g", "--gold", required=True, metavar="GOLD.tbf", help="gold standard TBF")
    p.add_argument("-s", "--system", required=True, metavar="SYS.tbf", help="system TBF")
    p.add_argument("-t", "--token-dir", metavar="TOKEN_DIR", default=None,
                   help="token mode: spans are token ids, checked against "
                        "TOKEN_DIR/<doc id><ext> (default: character mode)")
    p.add_argument("--token-ext", default=".tab", metavar="EXT",
                   help="token table extension (default: %(default)s)")
    p.add_argument("--mapping", choices=(*MAPPING_NAMES, "all"), default="kbp",
                   help="mention mapping: kbp (v1.7-1.8 global greedy), kbp-gold-order (v1.6), "
                        "pilot2015 (2015 pilot), exact (maximum-weight matching), all "
                        "(default: %(default)s)")
    p.add_argument("--compat", action="store_true",
                   help="per-type table exactly as v1.8 (type+realis mapping, gold types only)")
    p.add_argument("--strict", action="store_true",
                   help="turn every warning (a problem v1.8 survives) into an error")
    p.add_argument("--type-whitelist", metavar="FILE", default=None,
                   help="score only the types listed in FILE, one per line (v1.8's -wl)")
    p.add_argument("--exact-method", choices=EXACT_METHODS, default="exact",
                   help="how the exact mapping is solved: exact (assignment algorithm) or ilp "
                        "(--backend, --time-limit, --seed apply) (default: %(default)s)")


def run_nugget(args: argparse.Namespace) -> int:
    from ..cli import solve_options
    from . import nugget

    mappings = list(nugget.MAPPINGS) if args.mapping == "all" else [args.mapping]
    opts = solve_options(args) if args.exact_method == "ilp" else {}
    ev = nugget.evaluate_files(args.gold, args.system, token_dir=args.token_dir,
                               token_ext=args.token_ext, type_whitelist=args.type_whitelist,
                               mappings=mappings, compat=args.compat, strict=args.strict,
                               exact_method=args.exact_method, solve_options=opts)
    for w in ev.warnings:
        print(f"exactalign: warning: {w}", file=sys.stderr)
    if args.json:
        from ..cli import print_json

        print_json(to_json(ev))
        return 0
    if len(mappings) == 1:
        sys.stdout.write(nugget.format_v18(ev.scores[mappings[0]]))
        return 0
    for m in mappings:
        sys.stdout.write(f"######## mapping: {m} ########\n")
        sys.stdout.write(nugget.format_v18(ev.scores[m]))
        sys.stdout.write("\n")
    if "exact" in ev.scores:
        sys.stdout.write(format_gaps(ev))
    return 0


def _prf(x, f1: float | None = None) -> dict:
    from ..cli import prf

    if isinstance(x, dict):  # aggregation.macro: v1.8's macro F1 is the F1 of the means
        return prf(x["recall"], x["precision"], x["f1_of_means"])
    return prf(x.recall, x.precision, x.f1 if f1 is None else f1)


def to_json(ev) -> dict:
    """The ``--json`` object. Stable keys: ``gold``, ``system``, ``mode``, ``attributes``,
    ``combinations``, ``compat``, ``warnings`` (strings ``file:line: message``), ``mappings``
    and ``vs_exact``. ``mappings[m]``: ``overall[combination]`` (``micro``, ``macro`` -- its
    ``f1`` is v1.8's F1 of the mean P and R -- and ``micro_tp_fp``, each a P/R/F object, with
    ``tp``, ``n_gold``, ``n_system``), ``valid_documents``, ``excluded_system_mentions``,
    ``documents[doc_id]`` (``n_gold``, ``n_system``, ``n_system_ids``, ``valid``,
    ``combinations[c]``: ``tp``, ``fp``, ``prf``, ``prf_tp_fp``, ``solve`` -- the
    :meth:`Result.to_dict` of that solve -- and, when the exact mapping ran, ``exact_tp`` and
    ``gap_to_exact``) and ``per_type`` (``combination``, ``types[type]``: ``tp``, ``n_gold``,
    ``n_system``, ``recall``, ``precision``, ``f1``). ``vs_exact[heuristic][combination]``:
    ``tp``, ``exact_tp``, ``shortfall``, ``documents_with_gap``, ``max_document_tp_gap``,
    ``max_document_f1_gap``, ``micro_f1``, ``exact_micro_f1``, ``macro_f1``,
    ``exact_macro_f1`` (``null`` without the exact mapping). Ratios with a zero denominator are
    0, not v1.8's ``nan``."""
    exact = ev.scores.get("exact")
    mappings = {}
    for m, sc in ev.scores.items():
        overall = {}
        for c in sc.combinations:
            mic = sc.micro(c)
            overall[c] = {
                "micro": _prf(mic), "macro": _prf(sc.macro(c)),
                "micro_tp_fp": _prf(sc.micro_tp_fp(c)),
                "tp": mic.recall_num, "n_gold": int(mic.recall_den),
                "n_system": int(mic.precision_den),
            }
        docs = {}
        for d in sc.documents:
            combos = {}
            for c in sc.combinations:
                entry = {"tp": d.tp(c), "fp": d.fp(c), "prf": _prf(d.prf(c)),
                         "prf_tp_fp": _prf(d.prf_tp_fp(c)), "solve": d.results[c].to_dict()}
                if exact is not None:
                    x = exact.document(d.doc_id).tp(c)
                    entry["exact_tp"] = x
                    entry["gap_to_exact"] = x - d.tp(c)
                combos[c] = entry
            docs[d.doc_id] = {"n_gold": d.n_gold, "n_system": d.n_system,
                              "n_system_ids": d.n_system_ids, "valid": d.valid,
                              "combinations": combos}
        mappings[m] = {
            "overall": overall,
            "valid_documents": len(sc.valid_documents),
            "excluded_system_mentions": sc.excluded_system_mentions,
            "documents": docs,
            "per_type": {"combination": sc.type_combination,
                         "types": {t: {"tp": ts.tp, "n_gold": ts.n_gold,
                                       "n_system": ts.n_system, **_prf(ts.prf)}
                                   for t, ts in sc.per_type.items()}},
        }
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
    return {"gold": ev.gold_path, "system": ev.system_path, "mode": ev.mode,
            "attributes": list(ev.attributes), "combinations": list(ev.combinations),
            "compat": ev.compat, "warnings": [str(w) for w in ev.warnings],
            "mappings": mappings, "vs_exact": vs_exact}


def format_gaps(ev) -> str:
    """The heuristics against the exact mapping, per attribute combination (TP summed over the
    valid documents, F1 in percent)."""
    from ..core.result import worst_status

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
            + "\n".join(lines) + "\n")
