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
    mention (:func:`~exactalign.metrics.nugget_report.whitelist_warning`)."""
    from ...metrics.nugget_report import whitelist_warning

    whitelist_warning(ev, args.type_whitelist, args.strict)
