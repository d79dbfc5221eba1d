"""``exactalign monotone`` and ``exactalign timeline``.

``exactalign monotone A B [--kind sequence|dag] [--method exact|ilp|greedy|linext|local|all]``
matches two structures read from JSON files, each either a list of item labels (a sequence) or

    {"items": ["arrive", "eat", "leave"], "edges": [[0, 1], [1, 2]]}

where ``edges`` are ``[u, v]`` index pairs, ``u`` before ``v``; the order is their transitive
closure (an object without ``edges`` is an antichain: no order; a plain list is a chain). Labels are strings; the similarity of two items is 1 when their labels are
equal (``--similarity exact``, Chen et al.'s Kronecker example) or the Dice coefficient of their
lower-cased whitespace tokens (``--similarity dice``). ``--kind`` defaults to ``dag`` when either
file is an object, else ``sequence`` (``--kind sequence`` reads the items in their listed order;
it refuses an object with edges).
``--matching`` is the capacity kind (1:1, 1:N, N:1), ``--strict`` the strict order rule
(:mod:`exactalign.problems.monotone`). ``--json``: ``{"instance": {a, b, structure, n_ref,
n_pred, pairs, kind, strict}, "solves": {method: solve}, "vs_exact": {method, optimum,
heuristics: {name: {shortfall, relative}}} | null, "skipped": {method: reason}}``; with
``--method all`` a method that refuses the instance as too large (:class:`ModelTooLargeError`) is
skipped with a warning on stderr, and the others still run; so is the local search on more than
:data:`LOCAL_ALL_MAX_PAIRS` candidate pairs without ``--time-limit``. A and B may have at most
:data:`MAX_LABEL_PAIRS` label pairs together (one error).

``exactalign timeline GOLD_DIR SYS_DIR`` matches each system timeline to its reference without
ids (:mod:`exactalign.metrics.timeline`) and prints the order-aware P/R/F1 and how many id-based
pairs each method recovers. ``--json``: ``{"gold", "system", "overall": {"order-aware": PRF},
"solves": {method: corpus solve}, "recovery": {method: {"recovered", "truth", "rate"}},
"documents": [{"id", "scores": {"order-aware": PRF}, "n_gold", "n_system", "gold_links",
"system_links", "dropped_links", "truth_monotone", "recovered": {method: n}, "solves": {method:
solve}}]}``.

Argument parsing only at import (no numpy); the run functions import what they need.
"""

from __future__ import annotations

import argparse
import sys

STRUCTURES = ("sequence", "dag")
MATCHINGS = ("1:1", "1:N", "N:1")
METHODS = ("exact", "ilp", "greedy", "linext", "local")
FORMULATIONS = ("compact", "grid", "pairwise")
SIMILARITIES = ("exact", "dice")
#: The name of ``timeline``'s one score in ``overall`` and in each document's ``scores``.
SCORE = "order-aware"
#: Why every monotone instance has a solution (:func:`~exactalign.cli.common.failed_solves`).
FEASIBLE = "the empty alignment is feasible"


def add_monotone_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", metavar="A", help="reference structure (JSON: list of labels, or "
                                          "{\"items\": [...], \"edges\": [[u, v], ...]})")
    p.add_argument("b", metavar="B", help="predicted structure (same format)")
    p.add_argument("--kind", choices=STRUCTURES, default=None,
                   help="sequence (the listed order) or dag (the edges' closure); default: dag "
                        "if either file is an object with 'items'")
    p.add_argument("--method", choices=(*METHODS, "all"), default="all",
                   help="method to run (default: all)")
    p.add_argument("--matching", choices=MATCHINGS, default="1:1",
                   help="capacity kind reference:predicted (default: %(default)s)")
    p.add_argument("--strict", action="store_true",
                   help="comparable items must map to comparable items (order embedding)")
    p.add_argument("--formulation", choices=FORMULATIONS, default="compact",
                   help="ILP formulation of the exact method on DAGs (default: %(default)s)")
    p.add_argument("--similarity", choices=SIMILARITIES, default="exact",
                   help="label similarity (default: %(default)s)")
    p.add_argument("--alignment", action="store_true", help="also print the alignments")


def _read_structure(path: str) -> tuple[list[str], list | None]:
    """(labels, edges or None) of one JSON structure file."""
    import json

    from ..core.errors import InputError
    from ..io.text import TOO_DEEP, read_text

    path, text = read_text(path)  # bytes that are not UTF-8: a one-line error; "-": <stdin>
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"not valid JSON: {e.msg}", path=path, line=e.lineno) from None
    except RecursionError:
        raise InputError(TOO_DEEP, path=path) from None
    edges = None  # a list: a sequence (a chain when read as a DAG)
    if isinstance(data, dict):
        unknown = sorted(set(data) - {"items", "edges"})
        if unknown or "items" not in data:
            raise InputError("a structure is a list of labels or an object with 'items' and "
                             "optional 'edges'" + (f" (unknown key {unknown[0]!r})"
                                                   if unknown else ""), path=path)
        items, edges = data["items"], data.get("edges", [])
    else:
        items = data
    if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
        raise InputError("'items' must be a list of strings", path=path)
    if edges is not None:
        ok = isinstance(edges, list) and all(
            isinstance(e, list) and len(e) == 2 and all(type(v) is int for v in e)
            for e in edges)
        if not ok:
            raise InputError("'edges' must be a list of [u, v] integer pairs", path=path)
        for k, (u, v) in enumerate(edges):  # before numpy, which cannot hold 10**30
            if not (0 <= u < len(items) and 0 <= v < len(items)):
                raise InputError(f"edges: edge {k} ({u}, {v}) names an item outside "
                                 f"0..{len(items) - 1}", path=path)
    return items, edges


#: The most candidate pairs the local search runs on under ``--method all`` without
#: ``--time-limit``: its passes grow about cubically (measured: 11,250 pairs 2 s, 45,000
#: pairs 22 s, 180,000 pairs past a minute), and the command seemed to hang on sequences of a
#: few hundred items (issue 36). Asked for by name, or with a budget, it runs.
LOCAL_ALL_MAX_PAIRS = 20_000

#: The most label pairs (``len(A) * len(B)``) the command compares: the dense similarity
#: matrix and the candidate list are built in memory, and two sequences of 20,000 labels
#: (4*10**8 pairs) died of a MemoryError (issue 36). 10**7 pairs: sequences of 3,000 items.
MAX_LABEL_PAIRS = 10**7


def _weights(a: list[str], b: list[str], similarity: str, paths=("A", "B")):
    import numpy as np

    from ..core.errors import InputError

    if len(a) * len(b) > MAX_LABEL_PAIRS:
        raise InputError(f"{paths[0]} has {len(a):,} items and {paths[1]} {len(b):,}: "
                         f"{len(a) * len(b):,} label pairs, more than the {MAX_LABEL_PAIRS:,} "
                         "this command compares (split the structures)")
    if similarity == "exact":
        codes: dict[str, int] = {}
        ca = np.array([codes.setdefault(x, len(codes)) for x in a], dtype=np.int64)
        cb = np.array([codes.setdefault(y, len(codes)) for y in b], dtype=np.int64)
        return np.equal.outer(ca, cb).astype(np.float64).reshape(len(a), len(b))
    ta = [set(x.lower().split()) for x in a]
    tb = [set(y.lower().split()) for y in b]
    return np.array([[2 * len(x & y) / (len(x) + len(y)) if x or y else 0.0 for y in tb]
                     for x in ta]).reshape(len(a), len(b))


def run_monotone(args: argparse.Namespace) -> int:
    from ..core.errors import InputError, ModelTooLargeError
    from ..problems import bipartite, monotone
    from .common import failed_solves, fmt, print_json, table

    (la, ea), (lb, eb) = _read_structure(args.a), _read_structure(args.b)
    kind = args.kind or ("dag" if ea is not None or eb is not None else "sequence")
    pairs = bipartite.BipartiteInstance.from_dense(_weights(la, lb, args.similarity,
                                                            (args.a, args.b)),
                                                   args.matching)
    if kind == "sequence":
        for path, e in ((args.a, ea), (args.b, eb)):
            if e:
                raise InputError("has edges but --kind sequence was asked for", path=path)
        ra, rb = monotone.Order.sequence(len(la)), monotone.Order.sequence(len(lb))
    else:
        ra, rb = (monotone.Order.sequence(len(labels)) if e is None else
                  monotone.Order.from_edges(len(labels), e, path=path, what="edges")
                  for labels, e, path in ((la, ea, args.a), (lb, eb, args.b)))
    inst = monotone.MonotoneInstance(ra, rb, pairs, args.strict)
    methods = METHODS if args.method == "all" else (args.method,)
    results, skipped = {}, {}
    for m in methods:
        if (m == "local" and args.method == "all" and args.time_limit is None
                and inst.num_pairs > LOCAL_ALL_MAX_PAIRS):
            skipped[m] = (f"{inst.num_pairs:,} candidate pairs, more than the "
                          f"{LOCAL_ALL_MAX_PAIRS:,} the local search runs on under --method all "
                          "without --time-limit (ask for --method local, or give a "
                          "--time-limit)")
            print(f"exactalign: warning: method {m} skipped: {skipped[m]}", file=sys.stderr)
            continue
        try:
            results[m] = monotone.solve(inst, m, formulation=args.formulation,
                                        backend=args.backend, time_limit=args.time_limit,
                                        seed=args.seed)
        except ModelTooLargeError as exc:
            if args.method != "all":
                raise
            skipped[m] = str(exc)  # the other methods still run; the report says why
            print(f"exactalign: warning: method {m} skipped: {exc}", file=sys.stderr)
    optimum = next(((m, r.objective) for m, r in results.items()
                    if m in monotone.EXACT_METHODS and r.proven_optimal), None)
    vs = {}
    if optimum is not None:
        for m, r in results.items():
            if m in monotone.HEURISTICS:
                short = optimum[1] - r.objective
                vs[m] = {"shortfall": short,
                         "relative": short / optimum[1] if optimum[1] > 0 else 0.0}
    if args.json:
        print_json({
            "instance": {"a": args.a, "b": args.b, "structure": kind, "n_ref": inst.n_ref,
                         "n_pred": inst.n_pred, "pairs": inst.num_pairs, "kind": inst.kind,
                         "strict": inst.strict},
            "solves": {m: r.to_dict(alignment=args.alignment) for m, r in results.items()},
            "vs_exact": None if optimum is None else
            {"method": optimum[0], "optimum": optimum[1], "heuristics": vs},
            "skipped": skipped})
        return failed_solves(results, f"{args.a} vs {args.b}", FEASIBLE)
    print(f"{args.a} vs {args.b}: {kind}s of {inst.n_ref} and {inst.n_pred} items, "
          f"{inst.num_pairs} candidate pairs, kind {inst.kind}"
          + (", strict" if inst.strict else ""))
    rows = []
    for m, r in results.items():
        v = vs.get(m)
        cmp = "" if v is None else ("optimal" if v["shortfall"] <= 1e-9 else
                                    f"-{fmt(v['shortfall'])} (-{100 * v['relative']:.2f}%)")
        rows.append([m, r.status.value, fmt(r.objective), fmt(r.bound), fmt(r.gap, ".3g"),
                     f"{r.wall_time:.4f}", cmp])
    for m in skipped:
        rows.append([m, "skipped", "-", "-", "-", "-", "(see the warning)"])
    print(table(["method", "status", "objective", "bound", "gap", "time(s)", "vs exact"], rows))
    if args.alignment:
        for m, r in results.items():
            al = [] if r.alignment is None else r.alignment.tolist()
            print(f"\nalignment of {m}: " + ", ".join(f"{la[i]}={lb[j]}" for i, j in al))
    return failed_solves(results, f"{args.a} vs {args.b}", FEASIBLE)


def add_timeline_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("gold", metavar="GOLD_DIR", help="reference TimeML directory (*.tml)")
    p.add_argument("system", metavar="SYS_DIR", help="system TimeML directory (*.tml)")


def run_timeline(args: argparse.Namespace) -> int:
    from ..io.timeml import read_timeml_dir
    from ..metrics import timeline
    from .common import combined_solve, prf_of, print_json

    gold_docs, sys_docs = read_timeml_dir(args.gold), read_timeml_dir(args.system)
    missing = [k for k in gold_docs if k not in sys_docs]
    if missing:  # scored as an empty timeline (recall 0): say so, as `score` and `nugget` do
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        print(f"exactalign: warning: {len(missing)} of the {len(gold_docs)} documents of "
              f"{args.gold} have no system document in {args.system} and are scored as "
              f"empty timelines: {', '.join(missing[:5])}{more}", file=sys.stderr)
    corpus = timeline.match_corpus(gold_docs, sys_docs,
                                   backend=args.backend, time_limit=args.time_limit,
                                   seed=args.seed)
    methods = timeline.METHODS
    overall = corpus.prf
    rec = {m: corpus.recovery(m) for m in methods}
    if args.json:
        print_json({
            "gold": args.gold, "system": args.system,
            "overall": {SCORE: prf_of(overall)},
            "solves": {m: combined_solve((d.results[m] for d in corpus.documents), m)
                       for m in methods},
            "recovery": {m: {"recovered": a, "truth": t, "rate": a / t if t else None}
                         for m, (a, t) in rec.items()},
            "documents": [{
                "id": d.doc_id, "scores": {SCORE: prf_of(d.prf)},
                "n_gold": d.gold.n, "n_system": d.system.n,
                "gold_links": d.gold.links, "system_links": d.system.links,
                "dropped_links": d.gold.dropped + d.system.dropped,
                "truth_monotone": d.truth_monotone,
                "recovered": d.recovered,
                "solves": {m: r.to_dict() for m, r in d.results.items()}}
                for d in corpus.documents]})
        return 0
    print(f"{args.gold} vs {args.system}: {len(corpus.documents)} document(s); order-aware "
          "score = exact monotone matching by event text and class, without ids")
    short = {"dag": "dag", "dag-greedy": "greedy", "dag-linext": "linext", "dag-local": "local",
             "sequence": "seq", "unconstrained": "unc"}
    print(f"{'document':<28} {'events':>9} {'P':>7} {'R':>7} {'F1':>7}  id pairs recovered: "
          + " ".join(f"{short[m]:>6}" for m in methods) + "  truth")
    for d in corpus.documents:
        p = d.prf
        print(f"{d.doc_id:<28} {d.gold.n:>4}/{d.system.n:<4} {100 * p.precision:7.2f} "
              f"{100 * p.recall:7.2f} {100 * p.f1:7.2f}  {'':19}"
              + " ".join(f"{d.recovered[m]:>6}" for m in methods) + f"  {len(d.truth)}"
              + ("" if d.truth_monotone else " (crosses)"))
    print(f"{'overall':<28} {'':>9} {100 * overall.precision:7.2f} {100 * overall.recall:7.2f} "
          f"{100 * overall.f1:7.2f}  {'':19}"
          + " ".join(f"{rec[m][0]:>6}" for m in methods) + f"  {rec[methods[0]][1]}")
    proven = sum(d.results["dag"].proven_optimal for d in corpus.documents)
    print(f"exact monotone matching proven optimal on {proven}/{len(corpus.documents)} "
          "documents; '(crosses)': the id-based alignment itself violates the orders")
    return 0
