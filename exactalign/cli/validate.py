"""``exactalign validate``: a user's heuristic against a declared metric's certified optimum.

    exactalign validate --metric coref-ceafe --heuristic mypkg.align:greedy
    exactalign validate --spec my_metric.toml --heuristic mypkg.align:fast GOLD.jsonl SYSTEM.jsonl

The heuristic is ``module:function``, called as ``function(reference, prediction)`` on two
documents; it returns the root alignment (pairs ``(i, j)``) or the root score it reaches (see
:mod:`exactalign.declared.validate`). Exit status 0 when it reaches the optimum everywhere, 1
when it falls short (or claims more than the optimum) anywhere: then the smallest
counterexample found is printed as a pytest case. ``--json`` prints one object
(:meth:`~exactalign.declared.validate.Report.to_dict`, plus ``pytest_case``).
"""

from __future__ import annotations

import argparse


def add_validate_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("reference", metavar="GOLD", nargs="?",
                   help="reference documents to validate on (JSONL, or --format)")
    p.add_argument("system", metavar="SYSTEM", nargs="?", help="system documents")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--metric", metavar="NAME", help="a shipped metric (score --list)")
    which.add_argument("--spec", metavar="FILE", help="a metric declared in TOML or JSON")
    p.add_argument("--heuristic", required=True, metavar="MODULE:FUNCTION",
                   help="the aligner to validate: function(reference, prediction) -> pairs or "
                        "score")
    p.add_argument("--format", choices=("jsonl", "amr", "conll", "ree", "gtt"), default="jsonl",
                   help="format of GOLD and SYSTEM (as for 'score') (default: %(default)s)")
    p.add_argument("--examples", type=int, default=200, metavar="N",
                   help="documents pairs generated from the declaration (0: none) "
                        "(default: %(default)s)")


def run_validate(args: argparse.Namespace) -> int:
    import os
    import sys

    from ..core.errors import InputError
    from ..declared.validate import pytest_case, validate
    from .common import fmt, print_json, table
    from .score import read_documents, selected_metrics

    if os.getcwd() not in sys.path:  # `--heuristic mymodule:f` finds ./mymodule.py, as
        sys.path.insert(0, os.getcwd())  # `python -m` would
    if args.metric:
        args.metric = [args.metric]
    metrics = selected_metrics(args)
    if len(metrics) != 1:
        raise InputError("validate takes one metric; the spec file declares "
                         f"{len(metrics)}")
    metric = metrics[0]
    refs = preds = ids = None
    if args.reference or args.system:
        if not (args.reference and args.system):
            raise InputError("give both GOLD and SYSTEM, or neither")
        ids, preds, refs = read_documents(args, metric)
    import tempfile

    from hypothesis.configuration import set_hypothesis_home_dir

    with tempfile.TemporaryDirectory(prefix="exactalign-validate-") as tmp:
        set_hypothesis_home_dir(tmp)  # hypothesis's caches, not a .hypothesis/ in the cwd
        report = validate(metric, args.heuristic, refs, preds,
                          examples=max(args.examples, 0), seed=args.seed, ids=ids)
    case = None
    if report.counterexample is not None:
        case = pytest_case(metric, args.heuristic, report.counterexample)
    if args.json:
        print_json({**report.to_dict(), "pytest_case": case})
    else:
        d = report.to_dict()
        rows = []
        for where in ("data", "generated"):
            s = d[where]
            rows.append([where, str(s["instances"]), str(s["short"]), str(s["invalid"]),
                         fmt(s["total_shortfall"], ".6g"),
                         fmt(100 * s["relative_shortfall"], ".3f"),
                         fmt(s["largest_shortfall"], ".6g")])
        print(f"{report.heuristic} against the optimum of {report.metric}:")
        print(table(["instances", "n", "short", "invalid", "lost", "lost %", "largest"], rows))
        if report.generation_note:
            print(f"(no generated documents: {report.generation_note})")
        bad = [c for c in report.data if c.failed]
        for c in bad[:10]:
            print(f"  document {c.source}: optimum {c.optimum:.6g}, heuristic "
                  f"{c.heuristic:.6g}" + (f" ({c.problem})" if c.problem else ""))
        if case is not None:
            print("\nsmallest counterexample found, as a test case:\n")
            print(case)
        print("OK: the heuristic reached the optimum everywhere" if report.ok
              else "FAILED: the heuristic is not optimal everywhere (short of the optimum, "
                   "or an invalid answer)")
    return 0 if report.ok else 1
