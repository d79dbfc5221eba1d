"""What every sub-command writes with: the solver options from the shared arguments
(:func:`solve_options`), the JSON object of a P/R/F (:func:`prf`), one JSON document on stdout
(:func:`print_json`) and plain-text tables (:func:`table`, :func:`fmt`). Imports nothing heavy
(:mod:`exactalign.metrics.aggregation` is standard library only)."""

from __future__ import annotations

import argparse
import sys

from ..metrics.aggregation import prf_dict


def solve_options(args: argparse.Namespace) -> dict:
    """Keyword arguments of a problem's ``solve`` from the shared options."""
    return {"backend": args.backend, "time_limit": args.time_limit, "seed": args.seed}


def prf(recall: float | None, precision: float | None, f1: float | None) -> dict:
    """The JSON object every P/R/F is written as (non-finite numbers become ``null``): the
    shared :func:`~exactalign.metrics.aggregation.prf_dict`, for scores known as ratios only;
    a score with counts writes itself (:meth:`~exactalign.metrics.aggregation.PRF.to_dict`)."""
    return prf_dict(recall, precision, f1)


#: What every ``--json`` document starts with (``command``, ``version``, ``inputs``,
#: ``options``), set by :func:`exactalign.cli.main` for the command it runs (the schema:
#: ``exactalign/output.schema.json``).
_ENVELOPE: dict = {}


def set_envelope(envelope: dict) -> None:
    _ENVELOPE.clear()
    _ENVELOPE.update(envelope)


def print_json(obj, *, envelope: bool = True) -> None:
    """Print ``obj`` as indented JSON, keeping lists of numbers (alignments) on one line; a
    command's document starts with the envelope of the command being run (``envelope=False``:
    a document that is not a command's result, such as a JSON Schema)."""
    if envelope and isinstance(obj, dict) and _ENVELOPE:
        obj = {**_ENVELOPE, **obj}
    sys.stdout.write(_dumps(obj, "") + "\n")


def _dumps(obj, pad: str) -> str:
    import json  # here, not at start-up: most runs print tables

    flat = json.dumps(obj, allow_nan=False, separators=(", ", ": "))
    if not isinstance(obj, dict | list) or not obj or _is_flat(obj):
        return flat
    inner = pad + "  "
    if isinstance(obj, dict):
        items = [f"{inner}{json.dumps(k)}: {_dumps(v, inner)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    items = [inner + _dumps(v, inner) for v in obj]
    return "[\n" + ",\n".join(items) + "\n" + pad + "]"


def _is_flat(obj) -> bool:
    """A list of scalars, or of lists of scalars (an alignment)."""
    return isinstance(obj, list) and all(
        not isinstance(v, dict) and (not isinstance(v, list) or
                                     all(not isinstance(x, dict | list) for x in v))
        for v in obj)


def fmt(v, spec: str = ".6g") -> str:
    return "-" if v is None else format(v, spec)


def table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                     for r in [header, *rows])
