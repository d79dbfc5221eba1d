"""``exactalign drs PRED GOLD``: Counter's F-score of DRS parsing (clause format, Parallel
Meaning Bank) under the proven-optimal mapping and under Counter's own hill-climbing.

Registered in :data:`exactalign.cli.COMMANDS`; importing this module is cheap (no numpy). It
only formats the :class:`~exactalign.metrics.drs_report.DrsReport` that
:func:`exactalign.drs.score_files` returns (the same object Python users get).

Counter's settings by default, as the PMB results are published: ``-r 20`` restarts
(``--restarts``), the smart concept mapping first (``--smart conc``; ``--smart no``, Counter's
``-s no``, also spelled ``--no-smart``: random initial mappings only), the
signature ``clf_signature.yaml`` (``-g``; ``--no-signature``: Counter's bare default, operators
typed by their form, no operator over boxes), ``REF`` clauses left out (``--include-ref``:
``-ic``), ill-formed DRSs an error (``--ill``: ``-ill``; ``dummy`` is the official setting),
four digits (``--digits``: ``-sig``). ``--default-sense``, ``--default-role``,
``--default-concept``: ``-dse``, ``-dr``, ``-dc`` (Counter's long spellings, ``--include_ref``,
``--default_sense``, ``--significant``, ..., are accepted too). ``--runs``: Counter's ``-runs`` (the
hill-climbing repeated, its generator running on; every run's scores printed). ``--seed`` seeds
the hill-climbing (one ``random.Random`` over the pairs in file order, as Counter's global
generator) and HiGHS; ``--time-limit`` bounds the exact path (a pair it cuts short keeps its
incumbent and bound, status ``time_limit``; the hill-climbing has no budget: DRS pairs are
small). ``--jobs N`` spreads the exact path over worker processes (-1: one per CPU), in chunks
that do not depend on ``N``, so that the output is the same as in one process; the
hill-climbing stays in this one (one generator across the pairs in order, as Counter's).

Text output: one line per method, ``P R F`` as Counter prints them (its rounding) with the
clause counts, the exact line saying how many pairs are proven optimal; with ``--runs`` above
1 Counter's scores per run and their average; with both methods, where Counter's mapping falls
below the optimum; with ``--pairs`` one line per DRS pair (as ``exactalign smatch --pairs``:
the clauses matched, P, R, F per method, the exact one's status and bound; Counter's ``-ms``,
which prints its P, R, F per pair, is another name for it). Different numbers of DRSs in the two files are an input error (Counter prints a line and
exits 0).

``--json``: ``{"pred", "gold", "pairs_scored", "overall": {method ("exact", "hillclimb"): prf
with counts {"matched", "test_clauses", "gold_clauses"}}, "counter" (Counter's settings): {"restarts", "smart", "runs": [prf per run], "below",
"short", "f1_points"}, "solves": {"exact": the corpus solve}, "ill": {"mode", "pred",
"gold"}, "documents": [one row per pair: "id", "scores" per method, "solves", "line",
"pred_line", "counter" (found_idx, smart count, rounds)], "warnings", "wall_time"}``.
"""

from __future__ import annotations

import argparse
import sys

from . import argtypes

DRS_METHODS = ("exact", "hillclimb", "counter", "both")
#: Counter's ``-s``: the smart concept mapping first (``conc``) or not (``no``).
SMART = ("conc", "no")
ILL_MODES = ("error", "dummy", "spar", "score")
#: :data:`exactalign.metrics.drs.COUNTER_VERSIONS` (here for a quick ``--help``).
COUNTER_VERSIONS = ("190838f", "v.2.2.0")
LABELS = {"exact": "exact", "hillclimb": "hillclimb"}
#: The most restarts or runs asked for (as ``exactalign smatch -r``): beyond, a typo.
MAX_RESTARTS = 10**5


def _count(low: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if not low <= value <= MAX_RESTARTS:
            raise argparse.ArgumentTypeError(f"must be between {low} and {MAX_RESTARTS}, not "
                                             f"{value}")
        return value
    return parse


def _digits(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 1 <= value <= 15:
        raise argparse.ArgumentTypeError(f"must be between 1 and 15, not {value}")
    return value


def add_drs_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("pred", metavar="PRED", help="the produced DRSs (clause format)")
    p.add_argument("gold", metavar="GOLD", help="the gold DRSs, in the same order")
    p.add_argument("--method", choices=DRS_METHODS, default="both",
                   help="exact (proven optimal mapping), hillclimb (Counter's hill-climbing, "
                        "reproduced; 'counter' is another name for it), or both, with Counter's "
                        "shortfall (default: %(default)s)")
    p.add_argument("-r", "--restarts", type=_count(1), default=20,
                   help="Counter's -r: initial mappings, the smart one included (default: "
                        "%(default)s)")
    p.add_argument("-runs", "--runs", type=_count(1), default=1,
                   help="Counter's -runs: repeat the hill-climbing, its generator running on "
                        "(default: %(default)s)")
    p.add_argument("-s", "--smart", choices=SMART, default="conc",
                   help="Counter's -s: the first initial mapping is the smart concept mapping "
                        "(conc) or a random one too (no) (default: %(default)s)")
    p.add_argument("--no-smart", dest="smart", action="store_const", const="no",
                   help="the same as --smart no (an older spelling)")
    p.add_argument("-ic", "--include-ref", "--include_ref", action="store_true",
                   help="Counter's -ic: keep the REF clauses")
    p.add_argument("-dse", "--default-sense", "--default_sense", action="store_true",
                   help="Counter's -dse: every sense \"n.01\"")
    p.add_argument("-dr", "--default-role", "--default_role", action="store_true",
                   help="Counter's -dr: every role Role")
    p.add_argument("-dc", "--default-concept", "--default_concept", action="store_true",
                   help="Counter's -dc: every concept work \"n.01\"")
    p.add_argument("--no-signature", action="store_true",
                   help="Counter without -g: no signature file (operators typed by their "
                        "form, none over boxes); default: Counter's clf_signature.yaml")
    p.add_argument("--counter", choices=COUNTER_VERSIONS, default=COUNTER_VERSIONS[0],
                   help="whose rules: today's Counter (DRS_parsing @190838f; PMB 3.0.0's "
                        "published results) or the one of its tag v.2.2.0 (referee, "
                        "signature, SPAR DRS, operators over boxes), with which PMB 2.2.0's "
                        "results were published; default %(default)s")
    p.add_argument("--no-wordnet", action="store_true",
                   help="do not normalise concepts to WordNet 3.0 synsets (Counter always "
                        "does, with its wordnet_dict_en.py; here when the sense map is "
                        "fetched: python -m exactalign.data.wordnet)")
    p.add_argument("-ill", "--ill", choices=ILL_MODES, default="error",
                   help="Counter's -ill: an ill-formed DRS is an error, is replaced by a dummy "
                        "or the SPAR DRS, or is scored anyway (default: %(default)s)")
    p.add_argument("--pairs", "-ms", "--ms", dest="pairs", action="store_true",
                   help="also print every DRS pair: its clauses, and per method the clauses "
                        "matched, P, R, F (the exact one with its status and bound), as "
                        "Counter's -ms prints its P, R, F per pair")
    p.add_argument("-sig", "--digits", "--significant", type=_digits, default=4,
                   help="Counter's -sig: digits P, R and F are rounded to (default: "
                        "%(default)s)")
    p.add_argument("--jobs", type=argtypes.jobs, default=1, metavar="N",
                   help="worker processes for the exact path (-1: one per CPU); the output "
                        "is the same as with one; the hill-climbing stays in one process, as "
                        "Counter draws from one generator across the pairs (default: "
                        "%(default)s)")


def run_drs(args: argparse.Namespace) -> int:
    from ..drs import score_files
    from .common import print_json

    rep = score_files(args.pred, args.gold, ill=args.ill, signature=not args.no_signature,
                      include_ref=args.include_ref, default_sense=args.default_sense,
                      default_role=args.default_role, default_concept=args.default_concept,
                      wordnet=not args.no_wordnet, method=args.method, restarts=args.restarts,
                      seed=args.seed, smart=args.smart, runs=args.runs, digits=args.digits,
                      time_limit=args.time_limit, backend=args.backend, jobs=args.jobs,
                      counter=args.counter)
    for w in rep.warnings:
        print(f"exactalign: warning: {w}", file=sys.stderr)
    if args.json:
        print_json(rep.to_dict())
    else:
        _text(rep, args)
    return 0


def _num(x, digits: int) -> str:
    return f"{round(x, digits)}"


def _text(rep, args) -> None:
    d = rep.digits
    n = len(rep.pairs)
    for m in rep.methods:
        o = rep.overall[m]
        c = o["counts"]
        line = (f"[{LABELS[m]}] P {_num(o['precision'], d)} R {_num(o['recall'], d)} "
                f"F {_num(o['f1'], d)} ({c['matched']:g} of {c['test_clauses']} produced / "
                f"{c['gold_clauses']} gold clauses matched)")
        if m == "exact":
            line += f"; {rep.proven_pairs}/{n} DRS pairs proven optimal"
            if rep.bound_f1 is not None:
                line += f", F at most {_num(rep.bound_f1, d)}"
        else:
            line += f"; -r {rep.restarts}, seed {rep.seed}"
        print(line)
    if rep.run_average is not None:
        for k, (p, r, f) in enumerate(rep.per_run, 1):
            print(f"[counter run {k}] P {_num(p, d)} R {_num(r, d)} F {_num(f, d)}")
        p, r, f = rep.run_average
        print(f"[counter, average of {rep.runs} runs] P {_num(p, d)} R {_num(r, d)} "
              f"F {_num(f, d)}")
    if len(rep.methods) == 2:
        c = rep.counter
        print(f"Counter's mapping is below the optimum on {c['below']} of {n} DRS pairs, "
              f"{c['short']:g} clauses, {c['f1_points']:.2f} F1 points")
    if args.pairs:
        for pair, row in zip(rep.pairs, rep.documents, strict=True):
            cells = [f"DRS {pair.index + 1} (line {pair.gold_line}): produced {pair.produced} "
                     f"gold {pair.gold}"]
            for m, o in row["scores"].items():
                cell = (f"{m} {o['counts']['matched']:g} P {_num(o['precision'], d)} "
                        f"R {_num(o['recall'], d)} F {_num(o['f1'], d)}")
                if m == "exact":  # as smatch --pairs: the status and the bound
                    solve = row["solves"]["exact"]
                    bound = "-" if solve["bound"] is None else f"{solve['bound']:g}"
                    cell += f" {solve['status']} bound {bound}"
                cells.append(cell)
            print("; ".join(cells))
