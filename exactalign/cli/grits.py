"""``exactalign grits GOLD PRED``: GriTS of predicted tables, factored (grits-metric 0.7.0) and
exact (the proven 2D-MSS).

GOLD and PRED are table files (:mod:`exactalign.io.tables`: PubTabNet HTML as ``{name: html}``
JSON, PubTabNet's JSONL annotations, GriTS cell lists, or one HTML file), paired by table name
(a file of one table pairs with a file of one table). ``--variant top|con|loc|all`` (``all``:
Top and Con, and Loc where both tables have boxes), ``--method exact|factored|both``,
``--exact-method bnb|ilp|brute`` (default bnb, the branch and bound; ilp goes through
``--backend``), ``--no-shortcuts`` (the factored solution without grits-metric's two early exits:
table-transformer's algorithm), ``--time-limit`` per exact solve.

Text: one line per table and score (``VARIANT/METHOD``: P, R, F1, and for exact its status and
the bound on F1), then the corpus (micro) scores. ``--json``: ``overall`` (score name
``VARIANT/METHOD`` -> P/R/F with counts ``tp``, ``true_cells``, ``pred_cells``: micro, as
grits-metric's ``compute_grits``), ``macro`` (the same names: the mean of the tables' P, R, F1),
``solves`` (per score name, the tables' solves combined), ``documents`` (one row per table:
``id``, ``scores``, ``solves``, ``true_shape``, ``pred_shape``, ``bounds``: per score name the
bound on ``tp`` and on F1 -- for ``factored`` the bound grits-metric reports -- and ``shortcut``:
which of grits-metric's early exits ended the factored solution), and ``gaps``: per variant,
the tables where the factored solution is below the proven optimum.

Argument parsing only at import (no numpy).
"""

from __future__ import annotations

import argparse

VARIANTS = ("top", "con", "loc", "all")
METHODS = ("exact", "factored", "both")
EXACT_METHODS = ("bnb", "ilp", "brute")
FEASIBLE = "the empty alignment is feasible"


def add_grits_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("gold", metavar="GOLD", help="gold tables (HTML JSON, PubTabNet JSONL, "
                                                "GriTS cell lists, or one HTML file)")
    p.add_argument("pred", metavar="PRED", help="predicted tables (same formats)")
    p.add_argument("--variant", choices=VARIANTS, default="all",
                   help="GriTS-Top, -Con, -Loc or all (Loc where both tables have boxes) "
                        "(default: %(default)s)")
    p.add_argument("--method", choices=METHODS, default="both",
                   help="factored (grits-metric's), exact (proven 2D-MSS) or both "
                        "(default: %(default)s)")
    p.add_argument("--exact-method", choices=EXACT_METHODS, default="bnb",
                   help="the exact solver: branch and bound, the ILP through --backend, or "
                        "brute force on tiny tables (default: %(default)s)")
    p.add_argument("--no-shortcuts", action="store_true",
                   help="the factored solution without grits-metric 0.7.0's two early exits "
                        "(table-transformer's algorithm)")


def _name(side) -> str:
    return f"{side.variant}/{side.method}"


def run_grits(args: argparse.Namespace) -> int:
    from ..metrics import grits
    from .common import failed_solves, print_json

    rep = grits.score_files(args.gold, args.pred, variant=args.variant, method=args.method,
                            shortcuts=not args.no_shortcuts, exact_method=args.exact_method,
                            backend=args.backend, time_limit=args.time_limit)
    if args.json:
        print_json(_json(rep))
        return failed_solves(rep.results, args.gold, FEASIBLE)
    for t in rep.tables:
        shape = f"{t.true_shape[0]}x{t.true_shape[1]} vs {t.pred_shape[0]}x{t.pred_shape[1]}"
        for s in t.sides:
            extra = ""
            if s.method == "exact":
                extra = f"  {s.result.status.value}"
                if s.bound_f1 is not None and s.bound_f1 > s.f1 + 1e-12:
                    extra += f" (F1 at most {s.bound_f1:.4f})"
            elif s.bound_f1 is not None:
                extra = f"  bound {s.bound_f1:.4f}"
            print(f"{t.name}  {shape}  {_name(s):<14} P {s.precision:.4f}  R {s.recall:.4f}  "
                  f"F1 {s.f1:.4f}{extra}")
    print("overall (micro):")
    for (v, m), (f, p, r, tp, nt, npred) in rep.micro.items():
        print(f"  {v}/{m:<10} P {p:.4f}  R {r:.4f}  F1 {f:.4f}  "
              f"(tp {tp:.4f} of {nt} true, {npred} predicted positions)")
    for v, names in rep.gaps.items():
        if names:
            print(f"{v}: the factored solution is below the proven optimum on {len(names)} of "
                  f"{len(rep.tables)} tables: " + ", ".join(names))
    return failed_solves(rep.results, args.gold, FEASIBLE)


def _json(rep) -> dict:
    return {"gold": rep.gold, "pred": rep.pred, "tables": len(rep.tables),
            "overall": rep.overall, "macro": rep.macro_prf, "solves": rep.solves,
            "documents": list(rep.documents), "gaps": rep.gaps}
