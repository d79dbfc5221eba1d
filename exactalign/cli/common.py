"""What every sub-command writes with: the solver options from the shared arguments
(:func:`solve_options`), the JSON object of a P/R/F (:func:`prf`), one JSON document on stdout
(:func:`print_json`), plain-text tables (:func:`table`, :func:`fmt`) and the exit status of
a solve that failed on a problem that cannot fail (:func:`failed_solves`). Imports nothing
heavy (:mod:`exactalign.metrics.aggregation` is standard library only)."""

from __future__ import annotations

import argparse
import os
import sys

from ..metrics.aggregation import PRECISION_FIRST, prf_counts_dict


def solve_options(args: argparse.Namespace) -> dict:
    """Keyword arguments of a problem's ``solve`` from the shared options."""
    return {"backend": args.backend, "time_limit": args.time_limit, "seed": args.seed}


#: The statuses a solve of a problem that is feasible by construction (the empty alignment is
#: always one) cannot rightly end in: the solver failed, or its numerics did.
FAILED_STATUSES = ("error", "infeasible")


def failed_solves(results: dict, where: str, feasible: str) -> int:
    """0, or 1 after one error line on stderr naming every solve of ``results`` (method ->
    :class:`~exactalign.core.result.Result`) whose status is in :data:`FAILED_STATUSES`:
    ``feasible`` says why the problem has a solution. Called after the report is printed, so
    the statuses stay visible in it."""
    bad = [(m, r) for m, r in results.items() if r.status.value in FAILED_STATUSES]
    if not bad:
        return 0
    parts = []
    for m, r in bad:
        raw = (r.details or {}).get("raw_status")
        parts.append(f"method {m}: the solver reported status '{r.status.value}'"
                     + (f" ({raw})" if raw else ""))
    print(f"exactalign: error: {where}: " + "; ".join(parts) + f" on a problem feasible by "
          f"construction ({feasible}): no result, the solver or its numerics failed",
          file=sys.stderr)
    return 1


def prf(recall: float | None, precision: float | None, f1: float | None,
        counts: dict | None = None) -> dict:
    """The JSON object every P/R/F is written as (non-finite numbers become ``null``): the
    shared :func:`~exactalign.metrics.aggregation.prf_dict`, keys ``precision``, ``recall``,
    ``f1`` (the output schema's ``prf``), with ``counts`` when given."""
    return prf_counts_dict(precision, recall, f1, counts)


def prf_of(score, counts: bool | dict = True, f1: float | None = None) -> dict:
    """:func:`prf` of a :class:`~exactalign.metrics.aggregation.PRF` (or anything with
    ``recall``, ``precision``, ``f1``): its four counts under ``counts`` when ``counts`` is true
    and the score has them, ``counts`` itself when it is a dict; ``f1`` overrides the score's
    own F1 (a scorer whose F1 is computed its own way, as GTT's)."""
    if isinstance(counts, dict):
        c = counts
    elif counts and hasattr(score, "counts") and callable(score.counts):
        c = score.counts()
    else:
        c = None
    return prf(score.recall, score.precision, score.f1 if f1 is None else f1, c)


def combined_solve(results, method: str) -> dict:
    """One corpus-level solve (``Result.to_dict()``) of per-document results:
    :func:`~exactalign.core.result.combine_results` (worst status, summed objectives and
    bounds, ``bound`` ``null`` if any document has none)."""
    from ..core.result import combine_results

    return combine_results(list(results), method).to_dict()


#: The key order of every P/R/F object in the JSON output (the text tables' column order).
_PRF_KEYS = PRECISION_FIRST


def precision_first(obj):
    """``obj`` with every P/R/F object (a dict with ``recall``, ``precision`` and ``f1``)
    rewritten with those three keys first, in the order ``precision``, ``recall``, ``f1``
    (one order everywhere, whichever module built the object); nothing else changes."""
    if isinstance(obj, dict):
        items = {k: precision_first(v) for k, v in obj.items()}
        if all(k in items for k in _PRF_KEYS):
            return {**{k: items[k] for k in _PRF_KEYS}, **items}
        return items
    if isinstance(obj, list):
        return [precision_first(v) for v in obj]
    return obj


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
        obj = {**_ENVELOPE, **precision_first(obj)}
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


#: Per command, the arguments naming the paths it reads: files, or directories whose files it
#: reads (a list value, ``nargs``, names several). ``-o FILE`` may be none of these files nor a
#: file directly in one of these directories (issue 36: ``-o`` onto the gold file replaced it).
#: A test checks every command is here.
INPUT_PATHS = {
    "bipartite": ("file",),
    "nugget": ("gold", "system", "type_whitelist", "token_dir"),
    "coref": ("key", "response"),
    "muc4": ("keys", "responses", "history", "report"),
    "ere": ("a", "b"),
    "monotone": ("a", "b"),
    "timeline": ("gold", "system"),
    "temporal": ("paths",),
    "score": ("reference", "system", "spec"),
    "validate": ("reference", "system", "spec"),
    "smatch": ("f",),
    "grits": ("gold", "pred"),
    "umr": ("pred", "gold"),
    "drs": ("pred", "gold"),
    "info": (),
    "data": (),
}


def input_paths(args: argparse.Namespace):
    """Every path the command's arguments name as an input (``-``, standard input, is none)."""
    for dest in INPUT_PATHS.get(args.command, ()):
        value = getattr(args, dest, None)
        for v in value if isinstance(value, list | tuple) else (value,):
            if isinstance(v, str | os.PathLike) and str(v) != "-":
                yield str(v)
