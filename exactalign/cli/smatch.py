"""``exactalign smatch -f TEST GOLD``: Smatch of two parallel AMR files, exact and/or smatch's
hill-climbing.

Registered in :data:`exactalign.cli.COMMANDS`; importing this module is cheap (no numpy). It
asks :func:`exactalign.metrics.smatch_report.report_files` for the run's report and only
formats it.
Flags shared with ``smatch`` 1.0.4: ``-f``, ``-r`` (restarts, default 4), ``--pr``,
``--significant``. ``--seed`` seeds the hill-climbing (one ``random.Random`` over the pairs) and
HiGHS; ``--backend`` solves the rare MIPs (LPs always on HiGHS); ``--time-limit`` bounds the
whole command: the exact path runs first (a component whose MIP it cuts short keeps its rounded
incumbent and its LP bound, status ``time_limit``, and a line gives the corpus's bound on the
triples matched and the F-score), then the hill-climbing in what is left (a
pair it stops keeps the best mapping reached, status ``time_limit``, and a line says on how many
pairs it stopped); everything runs in one process (faster than starting workers) unless
``--jobs`` spreads the exact path over worker processes (document corpora). Output as smatch prints it (``Precision:`` and
``Recall:`` with ``--pr``, then ``F-score:``), one block per method; with ``--method both`` a line on the hill-climber's shortfall;
with ``--pairs`` one line per pair. ``--json`` prints (``exactalign/output.schema.json``)
``{"test", "gold", "variant", "duplicates", "duplicate_triples", "pairs_scored", "overall":
{method: {"precision", "recall", "f1", "counts": {"matched", "test_triples",
"gold_triples"}}}, "methods": {method: {"proven_pairs", "wall_time"}}, "solves": {method: the
corpus solve}, "documents": [...]}``, one document row per pair (``id``: its position from
0; ``scores`` and ``solves`` per method, ``gap`` with both methods; with ``--pairs`` each solve
also has :func:`~exactalign.metrics.smatch.pair_report`'s mapping, matched triples and
``proven_by``). A file without any
graph is an error naming it (smatch 1.0.4 prints F 0.00 for two such files).
"""

from __future__ import annotations

import argparse
import sys

from . import argtypes

SMATCH_METHODS = ("exact", "hillclimb", "both")
SMATCH_VARIANTS = ("full", "unlabeled", "no-attributes", "concept-only")


def _restarts(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {value}")
    return value


#: The most digits ``--significant`` prints: a float64 holds 17 significant digits, and past
#: some 10**9 Python's formatting fails ("precision too big": a traceback, issue 36).
MAX_DIGITS = 100


#: The most random restarts ``-r`` asks of the hill-climbing: -r 10**20 ran until killed with
#: no output (issue 36); 10**5 restarts take seconds on small pairs (its memo), and
#: ``--time-limit`` bounds any number.
MAX_RESTARTS = 10**5


def _restart_count(text: str) -> int:
    value = _restarts(text)
    if value > MAX_RESTARTS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_RESTARTS}, not {value} (give "
                                         "--time-limit to bound the hill-climbing's time)")
    return value


def _digits(text: str) -> int:
    value = _restarts(text)
    if value > MAX_DIGITS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_DIGITS}, not {value}")
    return value


def add_smatch_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-f", nargs=2, required=True, metavar=("TEST", "GOLD"),
                   help="two files of AMR graphs in PENMAN notation, separated by blank lines, "
                        "the i-th graph of TEST scored against the i-th of GOLD")
    p.add_argument("--method", choices=SMATCH_METHODS, default="exact",
                   help="exact (proven optimal mapping), hillclimb (smatch 1.0.4's "
                        "hill-climbing), or both, with the shortfall (default: %(default)s)")
    p.add_argument("-r", type=_restart_count, default=4, metavar="RESTARTS",
                   help=f"random restarts of the hill-climbing, 0 to {MAX_RESTARTS} "
                        "(default: %(default)s)")
    p.add_argument("--variant", choices=SMATCH_VARIANTS, default="full",
                   help="which triples count (default: %(default)s)")
    p.add_argument("--duplicates", choices=("set", "keep"), default="set",
                   help="a triple a graph states twice counts once (set: F <= 1, each dropped "
                        "copy named on standard error) or as smatch 1.0.4 counts it (keep: "
                        "every test copy with every gold copy, so F can exceed 1) "
                        "(default: %(default)s)")
    p.add_argument("--restrict", choices=("none", "sentence"), default="none",
                   help="candidate variable pairs: none (Smatch), or sentence (docSmatch's "
                        "search space for document graphs: a variable maps only within the "
                        "sentences, :sntN of the top, it is reachable from; the exact optimum "
                        "and the hill-climbing of that space) (default: %(default)s)")
    p.add_argument("--pr", action="store_true", help="also print precision and recall")
    p.add_argument("--significant", type=_digits, default=2, metavar="DIGITS",
                   help=f"digits after the decimal point, 0 to {MAX_DIGITS} "
                        "(default: %(default)s)")
    p.add_argument("--pairs", action="store_true",
                   help="also report every pair (counts, scores, status, bound, gap)")
    p.add_argument("--jobs", type=argtypes.jobs, default=1, metavar="N",
                   help="worker processes for the exact path (-1: one per CPU); with fewer "
                        "pairs than workers the spare ones become HiGHS threads (one pair: "
                        "solved in this process, its LP on the parallel dual simplex); the "
                        "hill-climbing stays in one process, as smatch draws its restarts from "
                        "one generator across the pairs (default: %(default)s)")


def run_smatch(args: argparse.Namespace) -> int:
    """Ask :mod:`exactalign.metrics.smatch_report` for the run's report, then format it: text
    as smatch prints it, or the ``--json`` object."""
    from ..metrics.smatch_report import report_files
    from .common import print_json

    test, gold = args.f
    rep = report_files(test, gold, rows=args.json or args.pairs, details=args.pairs,
                       method=args.method, variant=args.variant, restarts=args.r,
                       seed=args.seed, time_limit=args.time_limit, backend=args.backend,
                       duplicates=args.duplicates, restrict=args.restrict, jobs=args.jobs)
    for w in rep.warnings:
        print(f"exactalign: warning: {w}", file=sys.stderr)
    if args.json:
        print_json(_json(rep))
        return 0
    fmt = f"%.{args.significant}f"
    for m in rep.methods:
        score = rep.overall[m].score
        if len(rep.methods) > 1:
            print(f"[{m}]")
        if args.pr:
            print("Precision: " + fmt % score.precision)
            print("Recall: " + fmt % score.recall)
        print("F-score: " + fmt % score.f1)
    ex = rep.overall.get("exact")
    if ex is not None:
        print(f"exact: {ex.proven_pairs}/{rep.pairs_scored} pairs proven optimal, "
              f"{int(ex.matched)} of {ex.test_triples} test / {ex.gold_triples} gold "
              f"triples matched")
        if rep.bound is not None:
            print(f"exact: at most {int(rep.bound)} triples can be matched (the pairs' bounds), "
                  "F-score at most " + fmt % rep.bound_f1)
    if rep.hillclimb_stopped:
        print(f"hill-climbing stopped by the time limit on {rep.hillclimb_stopped} of "
              f"{rep.pairs_scored} pairs (each keeps the best mapping it reached)")
    if rep.below is not None:
        print(f"hill-climbing (-r {args.r}, seed {args.seed}) is below the optimum on "
              f"{rep.below} of {rep.pairs_scored} pairs, {int(rep.short)} triples, "
              f"{rep.f1_points:.4f} F1 points")
    if args.pairs:
        for x in rep.pairs:
            cells = [f"pair {x.id}: test {x.test_triples} gold {x.gold_triples}"]
            for m in rep.methods:
                d = x.solves[m]
                cells.append(f"{m} {int(x.matched[m])} F {fmt % x.scores[m].f1}"
                             + (f" {d['status']} bound {d['bound']:g}" if m == "exact" else "")
                             + (f" {d['status']}" if m == "hillclimb"
                                and d["status"] == "time_limit" else ""))
            print("; ".join(cells))
    return 0


def _counts(matched, test: int, gold: int) -> dict:
    return {"matched": matched, "test_triples": test, "gold_triples": gold}


def _json(rep) -> dict:
    """The ``--json`` object (module docstring) of a
    :class:`~exactalign.metrics.smatch_report.SmatchReport`."""
    from .common import prf

    return {
        "test": rep.test, "gold": rep.gold, "variant": rep.variant,
        "duplicates": rep.duplicates, "duplicate_triples": rep.duplicate_triples,
        "pairs_scored": rep.pairs_scored,
        "overall": {m: prf(o.score.recall, o.score.precision, o.score.f1,
                           _counts(o.matched, o.test_triples, o.gold_triples))
                    for m, o in rep.overall.items()},
        "methods": {m: {"proven_pairs": o.proven_pairs, "wall_time": o.wall_time}
                    for m, o in rep.overall.items()},
        "solves": {m: o.solve for m, o in rep.overall.items()},
        "documents": [_pair_json(x, prf) for x in rep.pairs],
    }


def _pair_json(x, prf) -> dict:
    """One pair as a document row: ``id`` (its 0-based position in the files), triple counts,
    ``scores`` and ``solves`` per method, ``gap`` (both methods); with ``--pairs`` each solve
    also carries :func:`~exactalign.metrics.smatch.pair_report`'s ``alignment``, ``matched``,
    ``proven_by`` and ``matched_triples``."""
    scores = {m: prf(s.recall, s.precision, s.f1,
                     _counts(s.recall_num, x.test_triples, x.gold_triples))
              for m, s in x.scores.items()}
    row = {"id": x.id, "scores": scores, "solves": dict(x.solves),
           "test_triples": x.test_triples, "gold_triples": x.gold_triples}
    if x.gap is not None:
        row["gap"] = dict(x.gap)
    return row
