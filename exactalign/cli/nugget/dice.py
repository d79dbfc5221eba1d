"""``exactalign nugget``'s default scheme, ``--scheme dice``: v1.8's scores of the chosen
mapping(s) -- the gold and system files read (``-dn``: one document), scored, with ``-a`` the
event sequencing, then v1.8's report (:mod:`~exactalign.cli.nugget.report`), the gaps to the
exact mapping (:mod:`~exactalign.cli.nugget.gaps`) or the ``--json`` document
(:mod:`~exactalign.cli.nugget.payload`), and the files v1.8 writes: ``-c PREFIX``'s CoNLL
files, ``-d``'s comparison and ``-a DIR``'s TimeML directory."""

from __future__ import annotations

import argparse
import sys

from .gaps import format_gaps
from .inputs import check_whitelist, offsets
from .payload import sequencing_to_json, to_json
from .report import format_coref_by_mapping, format_report, format_v18_comparison


def run_dice(args: argparse.Namespace, mappings: list[str]) -> int:
    """v1.8's scores of ``mappings`` (the options already checked): the report of each mapping,
    the gaps to the exact one and coreference by mapping (``--mapping all``), or ``--json``'s
    document; the files of ``-c PREFIX``/``--coref-conll``, ``-d`` and ``-a DIR`` on the way."""
    from ...metrics import nugget
    from ..common import solve_options

    opts = solve_options(args) if args.exact_method == "ilp" else {}
    credits = None
    if args.type_credit is not None:
        credits = {0: nugget.LevelCredit(levels=(0.0, args.type_credit),
                                         families=nugget.KBP_EVENT_FAMILIES)}
    gold, system, tables, whitelist = nugget.read_pair(
        args.gold, args.system, token_dir=args.token_dir, token_ext=args.token_ext,
        type_whitelist=args.type_whitelist, strict=args.strict, **offsets(args))
    if args.doc_id is not None:
        gold, system, tables = _one_document(args.doc_id, gold, system, tables)
    ev = nugget.evaluate(gold, system, token_tables=tables, type_whitelist=whitelist,
                         mappings=mappings, compat=args.compat, strict=args.strict,
                         exact_method=args.exact_method, solve_options=opts,
                         attribute_credits=credits, coref=args.coref,
                         coref_combination=args.coref_mapping,
                         coref_threshold=args.coref_threshold)
    check_whitelist(args, ev)
    seq = _sequencing(args, ev, gold, system, whitelist)
    for w in ev.warnings:
        print(f"exactalign: warning: {w}", file=sys.stderr)
    if args.coref_conll is not None:
        _write_conll(args.coref_conll, ev.scores[mappings[0]].coref)
    if args.comparison_output is not None:
        _write_text(args.comparison_output,
                    format_v18_comparison(ev.scores[mappings[0]], gold, system, whitelist))
    if isinstance(args.sequencing, str):
        from ...metrics import sequencing

        sequencing.write_v18_directory(args.sequencing, seq[mappings[0]])
    if args.json:
        from ..common import print_json

        doc = to_json(ev)
        for m, entry in doc["mappings"].items():
            entry["sequencing"] = sequencing_to_json(seq[m]) if seq else None
        print_json(doc)
        return 0
    if len(mappings) == 1:
        sys.stdout.write(format_report(ev.scores[mappings[0]], args.compat,
                                       seq.get(mappings[0])))
        return 0
    for m in mappings:
        sys.stdout.write(f"######## mapping: {m} ########\n")
        sys.stdout.write(format_report(ev.scores[m], args.compat, seq.get(m)))
        sys.stdout.write("\n")
    if "exact" in ev.scores:
        sys.stdout.write(format_gaps(ev))
    if args.coref:
        sys.stdout.write(format_coref_by_mapping(ev))
    return 0


def _one_document(doc_id: str, gold, system, tables):
    """v1.8's ``-dn``: the gold and system files reduced to ``doc_id`` (a document missing
    from the gold is an error -- v1.8 crashes --; one missing from the system scores empty)."""
    from dataclasses import replace

    from ...core.errors import InputError

    if doc_id not in gold.documents:
        raise InputError(f"-dn {doc_id}: no such document in the gold standard",
                         path=gold.path)
    gold = replace(gold, documents={doc_id: gold.documents[doc_id]})
    system = replace(system, documents={k: v for k, v in system.documents.items()
                                        if k == doc_id})
    if tables is not None:
        tables = {doc_id: tables.get(doc_id)}
    return gold, system, tables


def _sequencing(args: argparse.Namespace, ev, gold, system, whitelist) -> dict:
    """``-a``: mapping name -> :class:`~exactalign.metrics.sequencing.SequencingScore` (its
    warnings joined to ``ev``'s), or ``{}`` without ``-a``."""
    if args.sequencing is None:
        return {}
    from ...metrics import nugget, sequencing

    out = {}
    for m, sc in ev.scores.items():
        combination = nugget.resolve_coref_combination(args.coref_mapping, sc.combinations)
        out[m] = sequencing.sequencing_evaluate(gold, system, sc, combination,
                                                type_whitelist=whitelist,
                                                validate=not args.no_script_validation)
    first = next(iter(out.values()))
    if args.strict and first.warnings:
        from ...core.errors import InputError

        w = first.warnings[0]
        raise InputError(w.message + " (an error under strict checking)", path=w.path,
                         line=w.line)
    ev.warnings.extend(first.warnings)
    return out


def _write_conll(prefix: str, c) -> None:
    from ...metrics import nugget

    for suffix, text in zip(("_gold.conll", "_sys.conll"), nugget.format_v18_conll(c.documents),
                            strict=True):
        with open(prefix + suffix, "w", encoding="utf-8", errors="surrogateescape",
                  newline="\n") as f:
            f.write(text)


def _write_text(path: str, text: str) -> None:
    import os

    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="\n") as f:
        f.write(text)
