"""``exactalign score``: a declared metric on JSONL documents, exact, greedy or both.

    exactalign score --metric coref-ceafe GOLD.jsonl SYSTEM.jsonl
    exactalign score --spec my_metric.toml GOLD.jsonl SYSTEM.jsonl --method both --json
    exactalign score --list
    exactalign score --metric event-argument-cls --schema
    exactalign score --metric smatch --format amr GOLD.amr SYSTEM.amr

Registered in :data:`exactalign.cli.COMMANDS`. ``--metric`` (repeatable) and ``--spec`` may
be combined: the ``--metric`` metrics first, then the spec file's. GOLD and SYSTEM pair as
:mod:`exactalign.declared.files` says (by ``id``, or by position when neither file has ids and
they hold as many documents); GOLD documents missing from SYSTEM are scored as empty
predictions and named in a warning on stderr (and ``missing`` in JSON). The text table prints
each metric under its own average (micro, or the mean P, R, F1 of a ``macro`` metric), as
``overall`` and the gap row do. ``--json`` prints one object
(``exactalign/output.schema.json``): ``reference``, ``system``, ``n_documents``, ``missing``
(the ids of the GOLD documents not in SYSTEM); ``overall``, ``METRIC/METHOD`` -> the corpus
P/R/F (micro, with its counts; a metric averaged ``macro``: the mean P, R and F1, counts ``{"n"}``);
``solves``, ``METRIC/METHOD`` -> the corpus solve (:meth:`MetricResult.solve_summary`);
``documents``, a list of ``{"id", "scores", "solves"}`` by the same names (a root solved from
both sides: ``METRIC/METHOD/recall`` and ``.../precision``; ``--alignment`` adds each solve's
alignment); and ``metrics``, a list with one entry per metric, each ``{"name", "spec",
"exact", "greedy", "brute", "gap"}`` where ``exact``, ``greedy`` and ``brute`` are
:meth:`~exactalign.declared.metric.MetricResult.to_dict` without its documents (or ``null``
when not run) and ``gap`` the F1 the greedy twin loses (exact minus greedy, in points of F1 x
100) and the documents where it falls short.
"""

from __future__ import annotations

import argparse

METHOD_CHOICES = ("exact", "ilp", "greedy", "brute", "both")


def add_score_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("reference", metavar="GOLD", nargs="?",
                   help="reference documents, JSONL (one JSON object per line, with an 'id')")
    p.add_argument("system", metavar="SYSTEM", nargs="?", help="system documents, JSONL")
    p.add_argument("--metric", action="append", metavar="NAME",
                   help="a shipped metric (see --list); repeat for several")
    p.add_argument("--spec", metavar="FILE",
                   help="a metric declared in a TOML or JSON file (see docs/commands.md); with "
                        "--metric, scored after the --metric ones")
    p.add_argument("--format", choices=("jsonl", "amr", "conll", "ree", "gtt"), default="jsonl",
                   help="the files' format: jsonl (one document per line, see --schema), or a "
                        "native one converted for the shipped metrics: amr (two AMR files, "
                        "graphs paired by position; for smatch), conll (CoNLL-2012 key and "
                        "response; for coref-*), ree (GRIT's role-filler entity files; for "
                        "ceaf-ree*), gtt (GTT gold JSON and GTT/IterX predictions; for "
                        "ceaf-rme-phi3) (default: %(default)s)")
    p.add_argument("--method", choices=METHOD_CHOICES, default="both",
                   help="exact (every matching proven optimal by its special algorithm), ilp "
                        "(every matching as an ILP through --backend: the cross-check), greedy "
                        "(the usual scorer's twin), brute (enumeration; tiny inputs), or both "
                        "exact and greedy with their gap (default: %(default)s)")
    p.add_argument("--documents", action="store_true",
                   help="also print each document's scores (JSON always has them)")
    p.add_argument("--alignment", action="store_true",
                   help="with --json, include each document's root alignment")
    p.add_argument("--list", action="store_true", help="list the shipped metrics and exit")
    p.add_argument("--schema", action="store_true",
                   help="print the JSON Schema of a document line for the metric and exit")


def selected_metrics(args):
    from ..core.errors import InputError
    from ..declared.files import load_spec
    from ..declared.library import LIBRARY

    names = args.metric or []
    if not names and not args.spec:
        raise InputError("name a metric with --metric NAME (see --list) or declare one with "
                         "--spec FILE")
    unknown = [n for n in names if n not in LIBRARY]
    if unknown:
        raise InputError(f"unknown metric {unknown[0]!r}; shipped: " + ", ".join(LIBRARY))
    return [LIBRARY[n]() for n in names] + (load_spec(args.spec) if args.spec else [])


def _files(args):
    """The two files' documents as ``(id, line, document)`` lists."""
    from ..core.errors import InputError
    from ..declared.files import read_jsonl

    if args.reference == "-" and args.system == "-":
        raise InputError("GOLD and SYSTEM cannot both be '-' (standard input can be read "
                         "once)")
    if args.format == "jsonl":
        return read_jsonl(args.reference), read_jsonl(args.system)
    from ..declared.convert import read_native

    return read_native(args.format, args.reference, args.system)


def read_documents(args, metric, files=None):
    """``(ids, predictions, references)`` of the two files for ``metric``, paired by id (or
    by position when neither file has ids): a :class:`~exactalign.declared.files.Pairing`,
    which also names the missing documents and places a document's error in its file."""
    from ..declared.files import pair_documents

    reference, system = files if files is not None else _files(args)
    return pair_documents(metric, reference, system, args.reference, args.system)


def run_score(args: argparse.Namespace) -> int:
    import sys

    from ..core.errors import InputError
    from ..declared.files import missing_warning
    from .common import fmt, prf_of, print_json, table

    if args.list:
        from ..declared.library import LIBRARY

        rows = [[name, (f.__doc__ or "").strip().splitlines()[0] if f.__doc__ else ""]
                for name, f in LIBRARY.items()]
        if args.json:
            print_json({"metrics": [{"name": n, "spec": LIBRARY[n]().to_dict(),
                                     "doc": d} for n, d in rows]})
        else:
            print(table(["metric", "description"], rows))
        return 0
    metrics = selected_metrics(args)
    if args.schema:
        from ..declared.files import document_schema

        schemas = [document_schema(m) for m in metrics]
        print_json(schemas[0] if len(schemas) == 1 else {"schemas": schemas},
                   envelope=False)
        return 0
    if not args.reference or not args.system:
        raise InputError("give the GOLD and SYSTEM JSONL files")
    from ..problems import bipartite  # noqa: F401  (imported before any timing starts)

    methods = ("exact", "greedy") if args.method == "both" else (args.method,)
    out, rows = [], []
    overall, solves, documents = {}, {}, {}
    files = _files(args)
    missing = None
    for m in metrics:
        pairing = read_documents(args, m, files)
        ids, preds, refs = pairing
        if missing is None:  # the same for every metric: say it once
            missing = pairing.missing
            warning = missing_warning(pairing)
            if warning is not None:
                print(f"exactalign: warning: {warning}", file=sys.stderr)
        runs = {}
        for method in methods:
            try:
                runs[method] = m.compute(predictions=preds, references=refs, method=method,
                                         seed=args.seed, ids=ids, backend=args.backend)
            except InputError as e:
                raise pairing.locate(e) from None
        gap = None
        if "exact" in runs and "greedy" in runs:
            e, g = runs["exact"], runs["greedy"]
            short = [(d, h, k) for k, (d, h) in enumerate(zip(e.documents, g.documents,
                                                               strict=True))
                     if h.prf.f1 < d.prf.f1 - 1e-12]
            worst = []
            for d, h, k in sorted(short, key=lambda t: t[1].prf.f1 - t[0].prf.f1)[:10]:
                w = m.witness(prediction=preds[k], reference=refs[k],
                              alignment=h.results[0].alignment, backend=args.backend)
                worst.append({"id": d.id, "exact_f1": d.prf.f1, "greedy_f1": h.prf.f1,
                              "witness": None if w is None else w.to_dict()})
            gap = {"f1_points": 100 * (e.value - g.value), "documents_short": len(short),
                   "documents": len(ids), "short_ids": [d.id for d, _, _ in short],
                   "worst_documents": worst}
        out.append({"name": m.name, "spec": m.to_dict(),
                    **{k: (runs[k].to_dict(documents=False) if k in runs else None)
                       for k in ("exact", "greedy", "brute")},
                    "gap": gap})
        for method, r in runs.items():
            name = f"{m.name}/{method}"
            overall[name] = _headline(r)
            solves[name] = r.solve_summary()
            for d in r.documents:
                row = documents.setdefault(d.id, {"id": d.id, "scores": {}, "solves": {}})
                row["scores"][name] = prf_of(d.prf)
                row["solves"].update(_document_solves(name, d, args.alignment))
        for method, r in runs.items():
            s = overall[f"{m.name}/{method}"]  # the metric's own average, as in the JSON
            rows.append([m.name, method, fmt(100 * s["precision"], ".2f"),
                         fmt(100 * s["recall"], ".2f"), fmt(100 * s["f1"], ".2f"),
                         fmt(None if r.f1_bound is None else 100 * r.f1_bound, ".2f"),
                         r.status.value, f"{r.wall_time:.3f}"])
            if args.documents and not args.json:
                for d in r.documents:
                    rows.append([f"  {d.id}", method, fmt(100 * d.prf.precision, ".2f"),
                                 fmt(100 * d.prf.recall, ".2f"), fmt(100 * d.prf.f1, ".2f"),
                                 "", d.status.value, ""])
        if gap is not None:
            rows.append([m.name, "gap", "", "", fmt(gap["f1_points"], ".2f"), "",
                         f"{gap['documents_short']}/{gap['documents']} docs short", ""])
            for wd in gap["worst_documents"][:3]:
                wt = wd["witness"]
                how = "" if wt is None else (f"{len(wt['remove'])} pairs out, "
                                             f"{len(wt['add'])} in")
                rows.append([f"  {wd['id']}", "witness", "", "",
                             fmt(100 * (wd["greedy_f1"] - wd["exact_f1"]), ".2f"), "", how,
                             ""])
    if args.json:
        print_json({"reference": args.reference, "system": args.system,
                    "n_documents": len(files[0]), "missing": missing or [],
                    "overall": overall, "solves": solves,
                    "documents": list(documents.values()), "metrics": out})
    else:
        print(table(["metric", "method", "P", "R", "F1", "F1 bound", "status", "time s"],
                    rows))
    return 0


def _headline(r) -> dict:
    """A metric's corpus score: the micro P/R/F with its counts, or under ``average =
    "macro"`` the mean per-document precision, recall and F1 (``counts``: ``{"n"}``)."""
    from .common import prf, prf_of

    if r.average == "micro":
        return prf_of(r.score)
    m = r.macro
    return prf(m["recall"], m["precision"], m["f1"], {"n": m["n"]})


def _document_solves(name: str, d, alignment: bool) -> dict:
    """A document's root solves under ``name``: one, or one per direction (``NAME/recall``,
    ``NAME/precision``) when the root is solved once from each side."""
    results = [r.to_dict(alignment=alignment) for r in d.results]
    if len(results) == 1:
        return {name: results[0]}
    if len(results) == 2:
        return {f"{name}/recall": results[0], f"{name}/precision": results[1]}
    return {f"{name}/{k}": r for k, r in enumerate(results)}
