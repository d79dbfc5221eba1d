"""``exactalign nugget --pilot-study``: the 2015 pilot study's own scores (Algorithms 1-4 on
a span mapping), printed as :func:`~exactalign.metrics.nugget.format_pilot_study` prints them or
as the ``--json`` document of :func:`pilot_study_json`."""

from __future__ import annotations

import argparse
import sys

from .inputs import offsets


def run_pilot_study(args: argparse.Namespace) -> int:
    """``--pilot-study``: the pilot study's own scores (:func:`nugget.pilot_study`)."""
    from ...core.errors import InputError
    from ...metrics import nugget
    from ..common import print_json

    others = [name for name, on in (("--scheme muc", args.scheme == "muc"),
                                    ("-c/--coref", args.coref),
                                    ("--type-credit", args.type_credit is not None),
                                    ("--compat", args.compat),
                                    ("--mapping", args.mapping != "kbp")) if on]
    if others:
        raise InputError(f"--pilot-study scores the pilot study's mapping alone: drop "
                         f"{', '.join(others)}")
    sc = nugget.pilot_study_files(args.gold, args.system, token_dir=args.token_dir,
                                  token_ext=args.token_ext, type_whitelist=args.type_whitelist,
                                  **offsets(args),
                                  strict=args.strict, mapping=args.pilot_study)
    for w in sc.warnings:
        print(f"exactalign: warning: {w}", file=sys.stderr)
    if args.json:
        print_json(pilot_study_json(sc.to_dict()))
    else:
        sys.stdout.write(nugget.format_pilot_study(sc))
    return 0


def pilot_study_json(d: dict) -> dict:
    """``--pilot-study --json``: :meth:`~exactalign.metrics.nugget.PilotStudyScore.to_dict`
    in the output schema's shape. ``overall``: ``span/original``, ``span/evmeval``,
    ``span/fixed`` (Algorithm 2's span scores under the three precisions, their ``fp`` among
    the counts) and ``algorithm4/COMBINATION`` (Algorithm 4's F1 per attribute combination);
    ``documents``: ``{"id", "scores"}`` (the span scores) with the rest of each document's
    entry; ``span_macro``, ``accuracy``, ``multiplied`` and the counts as they were."""
    out = {k: v for k, v in d.items() if k not in ("span", "algorithm4", "documents")}
    overall = {}
    for p, x in d["span"].items():
        x = dict(x)
        fp = x.pop("fp")
        overall[f"span/{p}"] = {**x, "counts": {**x.get("counts", {}), "fp": fp}}
    overall.update({f"algorithm4/{c}": x for c, x in d["algorithm4"].items()})
    out["overall"] = overall
    out["documents"] = [
        {"id": doc["doc_id"], "scores": {f"span/{p}": x for p, x in doc["span"].items()},
         **{k: v for k, v in doc.items() if k not in ("doc_id", "span")}}
        for doc in d["documents"]]
    return out
