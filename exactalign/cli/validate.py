"""``exactalign validate``: a user's heuristic against a declared metric's certified optimum.

    exactalign validate --metric coref-ceafe --heuristic mypkg.align:greedy
    exactalign validate --spec my_metric.toml --heuristic mypkg.align:fast GOLD.jsonl SYSTEM.jsonl

The heuristic is ``module:function``, called as ``function(reference, prediction)`` on two
documents in a worker process (``--time-limit`` per call, ``--memory``); it returns the root
alignment (pairs ``(i, j)``) or the root score it reaches (see
:mod:`exactalign.declared.validate`). It is held against the proven optimum on your documents,
every instance of the exhaustive tiers (``--exhaustive`` budget), ``--guided`` targeted and
``--examples`` random ones. Exit status 0 when it reaches the optimum on every instance checked
-- the verdict says which --, 1 when it falls short, claims more than the optimum, crashes or
times out anywhere: then the smallest counterexample, shrunk, is printed as a pytest case; 2
when nothing could be checked. ``--json`` prints one object
(:meth:`~exactalign.declared.validate.Report.to_dict`, plus ``pytest_case``).
"""

from __future__ import annotations

import argparse

#: The defaults of :func:`exactalign.declared.validate.validate` and its sandbox (a test
#: keeps them equal; not imported, so that building the parser stays cheap).
EXHAUSTIVE, GUIDED, RANDOM, TIME_LIMIT, MEMORY_MB = 3000, 300, 200, 10.0, 4096


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
    p.add_argument("--exhaustive", type=int, default=EXHAUSTIVE, metavar="N",
                   help="budget of the exhaustive search: every instance up to the largest "
                        "sizes whose instances fit N together is checked (0: none) "
                        "(default: %(default)s)")
    p.add_argument("--guided", type=int, default=GUIDED, metavar="N",
                   help="instances of the guided search (hypothesis targeting the shortfall "
                        "and the competition between items; 0: none) (default: %(default)s)")
    p.add_argument("--examples", type=int, default=RANDOM, metavar="N",
                   help="random instances generated from the declaration (0: none) "
                        "(default: %(default)s)")
    p.add_argument("--time-limit", type=float, default=TIME_LIMIT, metavar="SECONDS",
                   help="limit of one call of the heuristic; a call past it is killed and "
                        "counted as a failure (0: none) (default: %(default)s)")
    p.add_argument("--memory", type=int, default=MEMORY_MB, metavar="MB",
                   help="address-space limit of the heuristic's worker process (0: none) "
                        "(default: %(default)s)")


def run_validate(args: argparse.Namespace) -> int:
    import math
    import os
    import sys

    from ..core.errors import InputError
    from ..declared.files import missing_warning
    from ..declared.validate import pytest_case, validate
    from .common import fmt, print_json, table
    from .score import read_documents, selected_metrics

    if os.getcwd() not in sys.path:  # `--heuristic mymodule:f` finds ./mymodule.py, as
        sys.path.insert(0, os.getcwd())  # `python -m` would
    if args.metric:
        args.metric = [args.metric]
    for name in ("exhaustive", "guided", "examples", "memory"):
        if getattr(args, name) < 0:
            raise InputError(f"--{name} must be >= 0, not {getattr(args, name)}")
    if not (math.isfinite(args.time_limit) and args.time_limit >= 0):
        raise InputError(f"--time-limit must be a finite number >= 0, not {args.time_limit}")
    metrics = selected_metrics(args)
    if len(metrics) != 1:
        raise InputError("validate takes one metric; the spec file declares "
                         f"{len(metrics)}")
    metric = metrics[0]
    refs = preds = ids = sources = pairing = None
    if args.reference or args.system:
        if not (args.reference and args.system):
            raise InputError("give both GOLD and SYSTEM, or neither")
        pairing = read_documents(args, metric)
        ids, preds, refs = pairing
        warning = missing_warning(pairing)
        if warning is not None:
            print(f"exactalign: warning: {warning}", file=sys.stderr)
        sources = [pairing.reference_path + (f":{line}" if line else "")
                   for line in pairing.reference_lines]
    if not refs and not (args.exhaustive or args.guided or args.examples):
        raise InputError("nothing to check: no documents, and --exhaustive, --guided and "
                         "--examples are all 0")
    import tempfile

    from hypothesis.configuration import set_hypothesis_home_dir

    with tempfile.TemporaryDirectory(prefix="exactalign-validate-") as tmp:
        set_hypothesis_home_dir(tmp)  # hypothesis's caches, not a .hypothesis/ in the cwd
        try:
            report = validate(metric, args.heuristic, refs, preds, examples=args.examples,
                              guided=args.guided, exhaustive=args.exhaustive,
                              seed=args.seed, ids=ids, sources=sources,
                              time_limit=args.time_limit or None,
                              memory_mb=args.memory or None)
        except InputError as e:
            raise (pairing.locate(e) if refs else e) from None
        finally:  # hypothesis's default again: a later use in this process (a caller's tests)
            set_hypothesis_home_dir(None)  # would re-create the removed directory and leak it
    if report.checked == 0:
        raise InputError("nothing could be checked: " + "; ".join(
            dict.fromkeys(n.split(": ", 1)[-1] for n in report.notes)))
    case = None
    if report.counterexample is not None:
        case = pytest_case(metric, report.heuristic, report.counterexample)
    if args.json:
        print_json({**report.to_dict(), "pytest_case": case})
        return 0 if report.ok else 1
    d = report.to_dict()
    rows = []
    for phase, s in d["phases"].items():
        if not s["instances"] and (phase != "documents" or refs is None):
            continue
        rows.append([phase, str(s["instances"]), str(s["short"]), str(s["invalid"]),
                     fmt(s["total_shortfall"], ".6g"), fmt(100 * s["relative_shortfall"], ".3f"),
                     fmt(s["largest_shortfall"], ".6g")])
    print(f"{report.heuristic} against the optimum of {report.metric}:")
    print(table(["instances", "n", "short", "invalid", "lost", "lost %", "largest"], rows))
    for note in report.notes:
        print(f"({note})")
    for row in report.documents[:10]:
        print(f"  document {row['id']}" + (f" ({row['source']})" if row["source"] else "")
              + f": optimum {row['optimum']:.6g}, heuristic {row['heuristic']:.6g}"
              + (f" ({row['problem']})" if row["problem"] else ""))
    if len(report.documents) > 10:
        print(f"  ... and {len(report.documents) - 10} more documents (--json lists them all)")
    if case is not None:
        c = report.counterexample
        print(f"\nsmallest counterexample found ({c.phase}; "
              + (c.problem or f"optimum {c.optimum:.6g}, heuristic {c.heuristic:.6g}")
              + "), as a test case:\n")
        print(case)
    print(report.verdict())
    return 0 if report.ok else 1
