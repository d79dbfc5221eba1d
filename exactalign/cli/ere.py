"""``exactalign ere A B [--mapping procedure|exact] [--json]``: ERE inter-annotator agreement
(Kulick, Bies & Mott 2014) of two annotations of the same documents.

``A`` and ``B`` are annotation files in the JSON schema of :mod:`exactalign.io.ere`, or TBF
files (``.tbf``: event mentions with character offsets, ``@Coreference`` clusters as entities;
what the TBF reader survives with a warning, such as bytes that are not UTF-8, is printed on
standard error).
Both mappings are always computed -- the paper's procedure and the exact lexicographic optimum
(most mapped mentions, then most overlapping characters; proven by a dual certificate) -- and
the report shows the one chosen with ``--mapping``, the procedure's shortfall, and every
mention pair and category that differs between the two.

JSON keys (``exactalign/output.schema.json``; agreement counts, no P/R/F, so no ``overall``):
``a``, ``b``, ``mapping``; ``counts`` (summed over documents under the chosen mapping:
``mentions`` {exact, overlap, unmatched_a, unmatched_b, total_overlap}, ``entities_a``,
``entities_b``, ``relations_a``, ``relations_b``, ``events_a``, ``events_b``,
``entity_type_mismatches``); ``other_counts`` (the same under the other mapping);
``vs_exact`` {documents, documents_below, count_shortfall, overlap_shortfall}; ``solves``
(``exact``: the summed weighted-matching solves, ``Result.to_dict()``); ``documents`` (a list,
per document: ``id``, ``counts``, ``overlap_categories``, ``level_mismatches``,
``entity_type_mismatches``, ``gap``); ``differences`` (a list of {document, kind, item,
procedure, exact}).
"""

from __future__ import annotations

import argparse
import sys

MAPPING_CHOICES = ("procedure", "exact")


def add_ere_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", metavar="A", help="File A: annotation JSON (see exactalign.io.ere) or "
                                          "a .tbf file (event mentions, character offsets); "
                                          "'-' reads standard input (TBF when it starts with "
                                          "#BeginOfDocument)")
    p.add_argument("b", metavar="B", help="File B, same documents")
    p.add_argument("--mapping", choices=MAPPING_CHOICES, default="procedure",
                   help="mention mapping to report: the paper's procedure or the exact "
                        "lexicographic optimum (default: %(default)s); the other is computed "
                        "too and the differences listed")
    p.add_argument("--documents", action="store_true",
                   help="also print each document's counts (JSON always has them)")


def _read(path: str):
    from ..io import ere as ere_io

    if str(path) == "-":  # no name to go by: TBF when it starts as TBF does, else JSON
        from ..io.tbf import BEGIN, parse_tbf
        from ..io.text import read_text

        label, text = read_text(path)
        if not text.lstrip().startswith(BEGIN):
            return ere_io.parse_ere(text, path=label)
        tbf = parse_tbf(text, path=label, mode="char")
        for w in tbf.warnings:
            print(f"exactalign: warning: {w}", file=sys.stderr)
        return ere_io.ere_from_tbf(tbf)
    if str(path).lower().endswith(".tbf"):
        from ..io.tbf import read_tbf

        tbf = read_tbf(path, mode="char")
        for w in tbf.warnings:  # what the reader survived (as `nugget` prints them)
            print(f"exactalign: warning: {w}", file=sys.stderr)
        return ere_io.ere_from_tbf(tbf)
    return ere_io.read_ere(path)


def run_ere(args: argparse.Namespace) -> int:
    from ..core.result import combine_results
    from ..io.ere import pair_annotations
    from ..metrics import ere
    from ..problems.ere import mapping_gap
    from .common import print_json, solve_options

    pairs = pair_annotations(_read(args.a), _read(args.b))
    opts = solve_options(args)
    method = "exact" if args.backend == "highs" and args.time_limit is None else "ilp"
    exact_opts = {"method": method, **({} if method == "exact" else opts)}
    proc = [ere.compare_document(a, b, "procedure") for a, b in pairs]
    exact = [ere.compare_document(a, b, "exact", **exact_opts) for a, b in pairs]
    chosen, other = (proc, exact) if args.mapping == "procedure" else (exact, proc)
    gaps = [mapping_gap(p.mentions, e.mentions) for p, e in zip(proc, exact, strict=True)]
    diffs = [d for p, e in zip(proc, exact, strict=True) for d in ere.differences(p, e)]
    vs = {"documents": len(gaps), "documents_below": sum(g["below_optimum"] for g in gaps),
          "count_shortfall": sum(g["count_shortfall"] for g in gaps),
          "overlap_shortfall": sum(g["overlap_shortfall"] for g in gaps)}
    solve = combine_results([e.mentions.result for e in exact], f"exact/{method}")
    if args.json:
        print_json({
            "a": args.a, "b": args.b, "mapping": args.mapping,
            "counts": ere.sum_counts(chosen), "other_counts": ere.sum_counts(other),
            "vs_exact": vs, "solves": {"exact": solve.to_dict()},
            "documents": [{"id": d.name, "counts": d.counts(),
                           "overlap_categories": d.mention_report["overlap_categories"],
                           "level_mismatches": d.mention_report["level_mismatches"],
                           "entity_type_mismatches": d.entities["type_mismatches"],
                           "gap": g} for d, g in zip(chosen, gaps, strict=True)],
            "differences": diffs,
        })
        return 0
    print(f"{args.a} vs {args.b}: {len(pairs)} document(s), mapping: {args.mapping}")
    if args.documents:
        for d in chosen:
            print(f"\ndocument {d.name}")
            print(_counts_table(d.counts()))
        print("\nall documents")
    print(_counts_table(ere.sum_counts(chosen)))
    cats: dict = {}
    for d in chosen:
        for k, v in d.mention_report["overlap_categories"].items():
            cats[k] = cats.get(k, 0) + v
    if cats:
        print("\noverlap matches by edge difference:")
        for k, v in sorted(cats.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {v:>5}  {k}")
    print(f"\nprocedure vs exact optimum: below it in {vs['documents_below']} of "
          f"{vs['documents']} document(s) (mapped mentions {vs['count_shortfall']} short, "
          f"overlapping characters {vs['overlap_shortfall']} short); exact solve "
          f"{solve.status.value} ({solve.details.get('documents', 0)} document(s), "
          f"{solve.wall_time:.4f} s)")
    if diffs:
        print(f"\n{len(diffs)} difference(s) (procedure -> exact):")
        for d in diffs:
            print(f"  {d['document']}  {d['kind']}  {d['item']}: {d['procedure']} -> "
                  f"{d['exact']}")
    return 0


def _counts_table(c: dict) -> str:
    m = c["mentions"]
    lines = [f"mentions   exact {m['exact']}, overlap {m['overlap']}, unmatched in A "
             f"{m['unmatched_a']}, unmatched in B {m['unmatched_b']} (overlapping characters "
             f"{m['total_overlap']})"]
    for kind in ("entities", "relations", "events"):
        for side in ("a", "b"):
            v = c[f"{kind}_{side}"]
            lines.append(f"{kind:<10} {side.upper()}: " + ", ".join(f"{k.replace('_', ' ')} {n}"
                                                                   for k, n in v.items()))
    lines.append(f"entity type mismatches {c['entity_type_mismatches']}")
    return "\n".join(lines)
