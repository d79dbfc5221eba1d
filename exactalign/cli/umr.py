"""``exactalign umr PRED GOLD``: UMR (or AMR) graphs scored as AnCast 0.1.1 counts them, under
the proven-optimal mapping and/or under AnCast's own.

Registered in :data:`exactalign.cli.COMMANDS`; importing this module is cheap (no numpy). It
only formats :class:`~exactalign.metrics.umr.UmrReport`.

Text output: one line per method, ``[exact]`` (the optimum of AnCast's Smatch-format objective
over every one-to-one mapping), at ``--scope doc`` also ``[exact, within sentences]`` (the
optimum within AnCast's candidate space: a variable maps only within its sentence), and
``[ancast]`` (the same objective under AnCast's mapping), each ``P R F`` in percent with the
counts; then AnCast's own printed numbers, as it prints them (``Sent Micro``; at ``--scope
doc`` also ``Modality``, ``Temporal``, ``Coref``, ``Comprehensive Score``); then AnCast's LR
score (what it prints as ``Sent Micro``) computed by our code under each mapping
(:mod:`exactalign.metrics.umr_lr`; under AnCast's mapping it must equal the printed number,
and the line says so); then where AnCast's mapping is below the optimum. When AnCast fails on
the files, one line says so (``ancast: failed: ...``) and the exact score stands (``--method
both``; with ``--method ancast`` alone it is an error: nothing on standard output, one line on
standard error, exit 1). Repaired defects of the input (a document-level triple left unclosed,
a stray word between triples, an alignment of an undefined variable) are warnings on stderr.

``--json``: ``{"test", "gold", "scope", "units", "overall": {method: prf, "lr/METHOD": prf of
the LR score under METHOD's mapping}, "ancast": {"printed":
{name: prf}, "failure", "below": units below the optimum}, "solves": {method: the corpus
solve, absent with --method ancast}, "documents": [one row per sentence (snt) or per
document (doc)], "warnings"}``.
"""

from __future__ import annotations

import argparse
import sys

UMR_METHODS = ("exact", "ancast", "both")
LABELS = {"exact": "exact", "exact_sentence": "exact, within sentences", "ancast": "ancast"}


def add_umr_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("pred", metavar="PRED", help="the predicted UMR (or AMR) file")
    p.add_argument("gold", metavar="GOLD", help="the gold UMR (or AMR) file, same sentences")
    p.add_argument("--scope", choices=("snt", "doc"), default="snt",
                   help="snt: every sentence its own graph (AnCast's --scope snt); doc: the "
                        "file is one document, its sentence graphs and document-level "
                        "triples under one mapping (AnCast's --scope doc) (default: "
                        "%(default)s)")
    p.add_argument("--method", choices=UMR_METHODS, default="exact",
                   help="exact (proven optimal mapping; AnCast not needed), ancast (AnCast "
                        "0.1.1 run on the files: its printed scores, and its mapping "
                        "counted), or both, with the shortfall (default: %(default)s)")
    p.add_argument("--use-alignment", action="store_true",
                   help="AnCast's --use-alignment (anchors from the token alignment)")
    p.add_argument("--allow-reify", action="store_true",
                   help="AnCast's --allow-reify (reification before comparing; --method "
                        "ancast only)")
    p.add_argument("--no-smatch-top", action="store_true",
                   help="AnCast's --use-smatch-top false: no TOP triple")
    p.add_argument("--weighted", choices=("snts", "toks"), default=None,
                   help="AnCast's --weighted (averages several documents; one file pair is "
                        "one document, so it changes nothing here)")
    p.add_argument("--units", action="store_true",
                   help="also print every sentence (snt) or document (doc)")


def _pct(x: float) -> str:
    return f"{100 * x:.2f}"


def run_umr(args: argparse.Namespace) -> int:
    from ..metrics import umr
    from .common import print_json

    rep = umr.score_files(args.pred, args.gold, scope=args.scope, method=args.method,
                          use_alignment=args.use_alignment, allow_reify=args.allow_reify,
                          use_smatch_top=not args.no_smatch_top, time_limit=args.time_limit,
                          seed=args.seed, backend=args.backend)
    for w in rep.warnings:
        print(f"exactalign: warning: {w}", file=sys.stderr)
    if rep.ancast_failure is not None and args.method == "ancast":  # nothing to report
        print(f"exactalign: error: {args.pred}: AnCast failed: {rep.ancast_failure}",
              file=sys.stderr)
        return 1
    if args.json:
        print_json(_json(rep))
    else:
        _text(rep, args)
    return 0


def _text(rep, args) -> None:
    unit = "sentences" if rep.scope == "snt" else "documents"
    n = len(rep.units)
    for m in rep.shown:
        o = rep.overall[m]
        c = o["counts"]
        line = (f"[{LABELS[m]}] Smatch-format P {_pct(o['precision'])} R {_pct(o['recall'])} "
                f"F {_pct(o['f1'])} ({c['matched']:g} of {c['test_triples']} test / "
                f"{c['gold_triples']} gold matched)")
        if m != "ancast":
            line += f"; {rep.proven_units[m]}/{n} {unit} proven optimal"
            if rep.bound_f1[m] is not None:
                line += f", F at most {_pct(rep.bound_f1[m])}"
        print(line)
    if args.method in ("ancast", "both"):
        if rep.ancast_failure is not None:
            print(f"ancast: failed: {rep.ancast_failure}"
                  + ("; the exact score above does not need it" if rep.shown else ""))
        else:
            ps, rs, fs = rep.ancast_printed["sent"]
            print(f"AnCast Sent Micro:\tPrecision: {ps:.2%}\tRecall: {rs:.2%}\tFscore: {fs:.2%}")
            if rep.scope == "doc":
                for key, name in (("modal", "Modality"), ("temporal", "Temporal"),
                                  ("coref", "Coref")):
                    print(f"AnCast {name}:\tFscore: {rep.ancast_printed[key]:.2%}")
                print(f"AnCast Comprehensive Score:\t{rep.ancast_printed['comp']:.2%}")
    for m, (p, r, f) in rep.lr.items():
        line = (f"[{LABELS.get(m, m)} mapping] AnCast's LR (its Sent Micro) P {_pct(p)} "
                f"R {_pct(r)} F {_pct(f)}")
        if m == "ancast" and rep.ancast_printed:
            same = abs(f - rep.ancast_printed["sent"][2]) <= 1e-9
            line += " (as AnCast prints it)" if same else (
                f" (AnCast prints {_pct(rep.ancast_printed['sent'][2])}: differs)")
        print(line)
    twice, where = rep.twice
    if where:
        print(f"AnCast counted {twice} variables twice in {where} {unit} (an anchor "
              "it withdrew keeps its count): its own Smatch-format F there is not the count "
              "under its mapping, which is what is shown")
    if rep.below_units is not None:
        print(f"AnCast's mapping is below the optimum on {rep.below_units} of {n} "
              f"{unit}, {rep.short:g} triples, {rep.f1_points:.2f} F1 points")
    if args.units:
        for row in rep.documents:
            u = rep.units[row["id"]]
            cells = [f"{unit[:-1]} {u.index + 1} (line {u.line}): test {u.test_size} "
                     f"gold {u.gold_size}"]
            for m, o in row["scores"].items():
                cells.append(f"{m} {o['counts']['matched']:g} F {_pct(o['f1'])}")
            print("; ".join(cells))


def _json(rep) -> dict:
    out = {"test": rep.test, "gold": rep.gold, "scope": rep.scope, "units": len(rep.units),
           "overall": rep.overall,
           "ancast": {"printed": rep.printed, "failure": rep.ancast_failure,
                      "below": rep.below_units},
           "documents": list(rep.documents), "warnings": list(rep.warnings),
           "wall_time": rep.wall_time}
    if rep.solves:  # the certificates of the exact solves (none with --method ancast)
        out["solves"] = rep.solves
    return out
