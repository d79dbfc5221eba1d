"""``exactalign muc4 KEYS RESPONSES``: MUC-4 template scores under several template alignments.

Registered in :data:`exactalign.cli.COMMANDS`; importing this module needs no numpy.

``--format muc1992``: KEYS is a 1992 answer-key file, RESPONSES a system's response file;
``--history`` names the judgement history (default: none, so only identical fills score) and
``--report`` an official score report whose recorded mapping is scored as the ``recorded``
alignment. Alignments: ``muc1992`` (greedy by recall score under the content rule; ``greedy``
is read as ``muc1992``), ``exact`` (maximum F per message, Dinkelbach, proven),
``exact-corpus`` (the mappings of all messages together maximising the corpus F of the ALL
TEMPLATES row, proven; 1992 format only), ``all`` (all three);
``--slot-matching`` picks the slot scoring: ``muc1992`` (default; the 1992 scorer's own
procedure, :class:`exactalign.metrics.muc4.Scorer1992`) or the alternatives-based approximation
with fills matched by an assignment (``exact``) or in order (``first-fit``). ``--compare``
(with ``--report``) also lists, slot row by slot row, where our scoring of the report's mapping
differs from the report (:func:`exactalign.metrics.muc4.compare_report`; ``compare`` in JSON).

``--format gtt``: KEYS is GTT gold JSON lines, RESPONSES a GTT/IterX/Das et al. prediction file;
``--metric gtt-f1`` (alignments ``gtt``: GTT's exhaustive search, ``greedy``, ``exact``: maximum
document F1, proven), ``ceaf-rme`` (alignments ``ceaf-rme-iterx``: IterX's, ``-greedy``,
``-exact``) or ``all``; ``--alignment muc1992`` selects the reference procedure (GTT's, IterX's).
``--metric ceaf-ree``: KEYS and RESPONSES are GRIT's REE gold and predictions; CEAF-REE under
φ_strict and φ_prop, alignments ``exact`` (GRIT's, an assignment) and ``greedy``.

``--backend`` selects the solver of the GTT exact method's ILPs; the 1992 exact alignment and
every slot matching are assignments (no solver); ``--time-limit`` bounds the GTT exact
method's ILPs (every solve here is small and runs to proven optimality).

Only the key documents are scored, as the reference scorers do: response documents outside the
keys are named in a warning (stderr; ``warnings`` in JSON), and a response file none of whose
documents is in the keys is an error (:func:`exactalign.metrics.muc4.report.check_documents`).

``--json`` prints (``exactalign/output.schema.json``) ``{"keys", "responses", "format",
"overall": {alignment: {"precision", "recall", "f1", "counts"}}, "alignments": {alignment:
{"status", "bound", "wall_time"}}, "documents": [{"id", "scores": {alignment: P/R/F with
counts}, "alignments": {alignment: {"status", "bound", "alignment"}}}], "warnings"}`` (and
``compare`` with ``--compare``): one document row per key message (document), in key order.
In the 1992 format, a row's ``alignments.muc1992`` also has ``witness``: where the 1992 mapping's
F is below the message's optimum (``exact`` computed too), the fewest template pairs to remove
and add to reach an optimal alignment (``{"remove", "add", "changes", "f_gain"}``, pairs as
``[key template number, response template number]``), else ``null``; the text output counts
those messages and shows the three furthest below.
The alignments' proofs are their statuses and bounds (assignments and Dinkelbach's method; no
solver certificate, so no ``solves``).
"""

from __future__ import annotations

import argparse
import sys

ALIGNMENT_CHOICES = ("muc1992", "greedy", "exact", "exact-corpus", "all")


def add_muc4_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("keys", metavar="KEYS", help="answer keys (1992 key file or GTT gold JSON; "
                                                "'-' reads standard input)")
    p.add_argument("responses", metavar="RESPONSES",
                   help="system responses ('-' reads standard input)")
    p.add_argument("--format", choices=("muc1992", "gtt"), default="muc1992",
                   help="file format (default: %(default)s)")
    p.add_argument("--alignment", choices=ALIGNMENT_CHOICES, default="all",
                   help="template alignment (default: %(default)s)")
    p.add_argument("--metric", choices=("gtt-f1", "ceaf-rme", "all", "ceaf-ree"),
                   default="gtt-f1",
                   help="GTT format: GTT template F1, CEAF-RME (phi_subset), both, or CEAF-REE "
                        "(phi_strict and phi_prop; then KEYS/RESPONSES are GRIT REE files) "
                        "(default: %(default)s)")
    p.add_argument("--slot-matching", choices=("muc1992", "exact", "first-fit"),
                   default="muc1992",
                   help="1992 format: slot scoring -- the 1992 scorer's own (muc1992), or the "
                        "alternatives-based approximation matched by assignment (exact) or in "
                        "order (first-fit) (default: %(default)s)")
    p.add_argument("--history", metavar="FILE", default=None,
                   help="1992 judgement history (match/partial judgements)")
    p.add_argument("--report", metavar="FILE", default=None,
                   help="1992 official score report: also score its recorded mapping")
    p.add_argument("--per-message", action="store_true",
                   help="1992 format: also print each message's counts and F under every "
                        "alignment, as the official report's per-message rows (JSON always has "
                        "them: 'documents')")
    p.add_argument("--compare", action="store_true",
                   help="with --report: compare our scoring of the report's mapping with the "
                        "report, slot row by slot row")


def run_muc4(args: argparse.Namespace) -> int:
    from ..core.errors import InputError
    from ..metrics.muc4.report import report_files
    from .common import prf, print_json, table

    if getattr(args, "compare", False) and (args.format != "muc1992" or not args.report):
        raise InputError("--compare needs --format muc1992 and --report")
    if args.format == "gtt":
        if args.alignment == "exact-corpus":
            raise InputError("--alignment exact-corpus is defined for --format muc1992 only "
                             "(GTT's metrics maximise each document's score)")
        if getattr(args, "per_message", False):
            raise InputError("--per-message is defined for --format muc1992")
    rep = report_files(args.keys, args.responses, format=args.format, alignment=args.alignment,
                       metric=args.metric, slot_matching=args.slot_matching,
                       history=args.history, report=args.report,
                       compare=getattr(args, "compare", False), backend=args.backend)
    if args.format == "gtt":
        rows = [(m, s.status.value, s.overall.recall, s.overall.precision, s.overall.f1,
                 _gtt_counts(s.overall), s.wall_time) for m, s in rep.scores.items()]
        details = {m: _details_gtt(s) for m, s in rep.scores.items()}
        per_message = None
    else:
        rows = [(m, s.status.value, s.total.recall, s.total.precision, s.total.f1,
                 {k: getattr(s.total, k) for k in _fields()}, s.wall_time)
                for m, s in rep.scores.items()]
        details = {m: _details_1992(s) for m, s in rep.scores.items()}
        per_message = rep.scores if getattr(args, "per_message", False) else None
    warnings, compare = list(rep.warnings), rep.compare
    for w in warnings:
        print(f"exactalign: warning: {w}", file=sys.stderr)
    if args.json:
        doc = {"keys": args.keys, "responses": args.responses, "format": args.format,
               "overall": {name: prf(r, p, f, counts)
                           for name, st, r, p, f, counts, wt in rows},
               "alignments": {name: {"status": st, "bound": details[name]["bound"],
                                     "wall_time": wt}
                              for name, st, r, p, f, counts, wt in rows},
               "documents": _documents_json(details),
               "warnings": warnings}
        if compare is not None:
            doc["compare"] = _compare_json(compare)
        print_json(doc)
        return 0
    print(f"{args.keys} vs {args.responses} ({args.format})")
    header = ["alignment", "status", "precision", "recall", "f1", "counts", "time(s)"]
    print(table(header, [[n, st, f"{100 * p:.2f}", f"{100 * r:.2f}", f"{100 * f:.2f}",
                           " ".join(f"{k}={v:g}" for k, v in c.items()), f"{wt:.3f}"]
                          for n, st, r, p, f, c, wt in rows]))
    if args.format == "muc1992":
        print(_witness_text(details), end="")
    if per_message is not None:
        print(_per_message_text(per_message))
    if compare is not None:
        print(_compare_text(compare))
    return 0


def _fields():
    from ..metrics.muc4 import FIELDS

    return FIELDS


def _details_1992(sc) -> dict:
    """A 1992 alignment's proven bound on the corpus F (``exact-corpus``; else ``None``) and
    its messages as ``(id, scores, certificate)``: P/R/F with the message's counts, and the
    message's status, bound and template pairs."""
    from .common import prf

    return {"bound": sc.bound, "documents": [
        (m.message, prf(m.counts.recall, m.counts.precision, m.counts.f1,
                        {k: getattr(m.counts, k) for k in _fields()}),
         {"status": m.status.value, "bound": m.bound,
          "alignment": [list(a) for a in m.alignment],
          **({"witness": m.witness} if sc.alignment == "muc1992" else {})})
        for m in sc.messages]}


def _details_gtt(s) -> dict:
    """A GTT-format alignment's documents, as :func:`_details_1992` (no corpus bound: every
    document's score is maximised on its own)."""
    from .common import prf

    return {"bound": None, "documents": [
        (d.docid, prf(d.counts.recall, d.counts.precision, d.f1, _gtt_counts(d.counts)),
         {"status": d.status.value, "bound": d.bound, "alignment": d.alignment.tolist()})
        for d in s.docs]}


def _gtt_counts(o) -> dict:
    return {"p_num": o.precision_num, "p_den": o.precision_den, "r_num": o.recall_num,
            "r_den": o.recall_den}


def _documents_json(details: dict) -> list[dict]:
    """One row per key document (message), in key order: ``id``, ``scores`` (alignment ->
    P/R/F with counts) and ``alignments`` (alignment -> status, bound, template pairs)."""
    rows: dict[str, dict] = {}
    for name, det in details.items():
        for doc_id, score, cert in det["documents"]:
            row = rows.setdefault(doc_id, {"id": doc_id, "scores": {}, "alignments": {}})
            row["scores"][name] = score
            row["alignments"][name] = cert
    return list(rows.values())


def _witness_text(details: dict, limit: int = 3) -> str:
    """How many messages the 1992 mapping leaves below their optimum and, for the ``limit``
    furthest below, the witness: template pairs to remove and add (``--json``: every one)."""
    if "muc1992" not in details or "exact" not in details:
        return ""
    rows = [(doc_id, cert["witness"]) for doc_id, _, cert in details["muc1992"]["documents"]
            if cert.get("witness")]
    if not rows:
        return "muc1992: every message at its optimum F\n"
    rows.sort(key=lambda r: -r[1]["f_gain"])
    out = [f"muc1992: {len(rows)} of {len(details['muc1992']['documents'])} messages below "
           "their optimum F"]
    for doc_id, w in rows[:limit]:
        pairs = "; ".join([f"remove {k}-{r}" for k, r in w["remove"]]
                          + [f"add {k}-{r}" for k, r in w["add"]])
        out.append(f"  {doc_id}: F -{100 * w['f_gain']:.2f}: {pairs} (key-response templates)")
    return "\n".join(out) + "\n"


def _per_message_text(scores: dict) -> str:
    """One row per message: F under every alignment, and the counts under the first."""
    from .common import table

    names = list(scores)
    first = scores[names[0]]
    rows = []
    for k, m in enumerate(first.messages):
        rows.append([m.message, *(f"{100 * scores[n].messages[k].counts.f1:.2f}" for n in names),
                     " ".join(f"{f}={getattr(m.counts, f):g}" for f in _fields())])
    return "\n" + table(["message", *(f"F {n}" for n in names), f"counts ({names[0]})"], rows)


def _compare_json(c) -> dict:
    from ..metrics import muc4

    return {"exact": c.exact, "recorded": c.recorded, "official": c.official,
            "ours": {f: getattr(c.ours, f) for f in muc4.FIELDS}, "delta": c.delta,
            "slot_diffs": [{"message": d.message, "key": d.key, "response": d.response,
                            "slot": d.slot, "ours": d.ours, "official": d.official,
                            "interactive": d.interactive} for d in c.slot_diffs]}


def _compare_text(c) -> str:
    from ..metrics import muc4

    head = "ALL TEMPLATES  " + "  ".join(f"{f}" for f in muc4.FIELDS)
    lines = ["", ("report's mapping" if c.recorded else "automatic mapping (the report "
                  "records none)") + f": {'reproduced' if c.exact else 'differs'}", head,
             "official       " + "  ".join(f"{c.official[f]}" for f in muc4.FIELDS),
             "ours           " + "  ".join(f"{getattr(c.ours, f):g}" for f in muc4.FIELDS)]
    if c.slot_diffs:
        lines.append(f"{len(c.slot_diffs)} slot row(s) differ ({sum(d.interactive for d in c.slot_diffs)}"
                     " with another human judgement, ICR/IPA):")
        for d in c.slot_diffs:
            lines.append(f"  {d.message} key {d.key or '-'} response {d.response or '-'} "
                         f"{d.slot}: " + " ".join(f"{f}{v:+d}" for f, v in d.delta.items()))
    return "\n".join(lines)
