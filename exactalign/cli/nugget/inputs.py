"""What the three runs of ``exactalign nugget`` (v1.8's scores, ``--scheme muc``,
``--pilot-study``) share about their inputs: the keyword arguments of ``-of`` and the check of a
``--type-whitelist`` that keeps no mention."""

from __future__ import annotations

import argparse


def offsets(args: argparse.Namespace) -> dict:
    """``offset_fields`` for the library when ``-of`` was given."""
    return {} if args.offset_field is None else {"offset_fields": args.offset_field}


def check_whitelist(args: argparse.Namespace, ev) -> None:
    """Warn (an error with ``--strict``) when the type white list keeps no gold and no system
    mention -- a file of blank lines, of other types, or not a type list at all: every score is
    then 0, which v1.8 reports without a word."""
    from ...core.errors import InputError
    from ...io.tbf import TbfWarning

    if args.type_whitelist is None:
        return
    docs = next(iter(ev.scores.values())).documents
    if any(d.n_gold or d.n_system for d in docs):
        return
    message = ("the type white list keeps no gold and no system mention (no mention has a type "
               "it lists): every score is 0")
    if args.strict:
        raise InputError(message + " (an error under strict checking)", path=args.type_whitelist)
    ev.warnings.append(TbfWarning(message, args.type_whitelist, None))
