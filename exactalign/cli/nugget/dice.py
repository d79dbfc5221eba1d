"""``exactalign nugget``'s default scheme, ``--scheme dice``: v1.8's scores of the chosen
mapping(s). The run is one call, :func:`exactalign.metrics.nugget_report.report_files`, whose
:class:`~exactalign.metrics.nugget_report.NuggetReport` holds everything shown; this module
writes it out: the warnings, the files v1.8 writes (``-c PREFIX``'s CoNLL files, ``-d``'s
comparison, ``-a DIR``'s TimeML directory), then v1.8's report of each mapping
(:mod:`~exactalign.cli.nugget.report`) with the gaps to the exact mapping
(:mod:`~exactalign.cli.nugget.gaps`), or the ``--json`` document."""

from __future__ import annotations

import argparse
import sys

from .gaps import format_gaps
from .inputs import offsets
from .report import format_coref_by_mapping


def run_dice(args: argparse.Namespace, mappings: list[str]) -> int:
    """v1.8's scores of ``mappings`` (the options already checked): the report of each mapping,
    the gaps to the exact one and coreference by mapping (``--mapping all``), or ``--json``'s
    document; the files of ``-c PREFIX``/``--coref-conll``, ``-d`` and ``-a DIR`` on the way."""
    from ...metrics.nugget_report import report_files
    from ..common import solve_options

    rep = report_files(
        args.gold, args.system, token_dir=args.token_dir, token_ext=args.token_ext,
        type_whitelist=args.type_whitelist, strict=args.strict, doc_id=args.doc_id,
        **offsets(args), mappings=mappings, compat=args.compat,
        exact_method=args.exact_method,
        solve_options=solve_options(args) if args.exact_method == "ilp" else {},
        type_credit=args.type_credit, coref=args.coref, coref_combination=args.coref_mapping,
        coref_threshold=args.coref_threshold, sequencing=args.sequencing is not None,
        validate=not args.no_script_validation, rows=args.json,
        conll=args.coref_conll is not None, comparison=args.comparison_output is not None,
        timeml=isinstance(args.sequencing, str))
    for w in rep.warnings:
        print(f"exactalign: warning: {w}", file=sys.stderr)
    if rep.conll is not None:
        for suffix, text in zip(("_gold.conll", "_sys.conll"), rep.conll, strict=True):
            with open(args.coref_conll + suffix, "w", encoding="utf-8",
                      errors="surrogateescape", newline="\n") as f:
                f.write(text)
    if rep.comparison is not None:
        _write_text(args.comparison_output, rep.comparison)
    if rep.timeml is not None:
        from ...metrics.sequencing import write_v18_files

        write_v18_files(args.sequencing, rep.timeml)
    if args.json:
        from ..common import print_json

        print_json(rep.json)
        return 0
    if len(mappings) == 1:
        sys.stdout.write(rep.texts[mappings[0]])
        return 0
    for m in mappings:
        sys.stdout.write(f"######## mapping: {m} ########\n")
        sys.stdout.write(rep.texts[m])
        sys.stdout.write("\n")
    if rep.exact_solves is not None:
        sys.stdout.write(format_gaps(rep))
    if args.coref:
        sys.stdout.write(format_coref_by_mapping(rep))
    return 0


def _write_text(path: str, text: str) -> None:
    import os

    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="\n") as f:
        f.write(text)
