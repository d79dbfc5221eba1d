"""``exactalign temporal``: temporal awareness of TimeML directories, and their consistency.

* ``exactalign temporal GOLD_DIR SYS_DIR [--mode exact|te3|plain]`` -- precision, recall and F1 per
  document and overall (micro-averaged), see :mod:`exactalign.metrics.temporal`. ``te3``
  reproduces the TempEval-3 toolkit (the number to compare with published TempEval-3 scores);
  ``exact`` (default) uses maximum consistent subsets, a different number, and its text output
  says so on its first line; ``plain`` uses no closure at all.
* ``exactalign temporal check DIR`` -- every document whose TLINKs are inconsistent, with a
  witness cycle (``lid:LABEL`` in cycle order), the fewest links to drop (exact, with status) and
  what each greedy heuristic drops. (A data directory literally named ``check`` is ``./check``.)
  Exit status 1 when some document is inconsistent, 0 when all are consistent (a lint's
  convention), after the full report.
* ``--entities`` (scoring): also the TempEval-3 toolkit's EVENT and TIMEX3 extraction scores
  (strict and relaxed P/R/F1, attribute accuracy and "Attribute F1"), per document and
  overall, see :func:`exactalign.metrics.temporal.entity_scores`; independent of ``--mode``.

Registered in :data:`exactalign.cli.COMMANDS`; importing this module is cheap (no numpy).
``--json`` prints one object (``exactalign/output.schema.json``): scoring -- ``{"gold",
"system", "mode", "overall": {"awareness": PRF}, "documents": [{"id", "scores": {"awareness":
PRF}, "notes"}]}``, the PRF's ``counts`` being ``prec_matched``, ``sys_total``,
``rec_matched``, ``gold_total``; with ``--entities`` ``overall`` and each document's
``scores`` also hold ``events/strict``, ``events/relaxed``, ``timexes/strict`` and
``timexes/relaxed``, and ``"entities": {"overall": {"events": E, "timexes": E}, "documents":
[{"id", "events": E, "timexes": E, "unaligned"}]}`` the rest, ``E = {"counts": {"gold",
"system", "strict", "relaxed", "attributes": {name: n}}, "attributes": {name: {"accuracy",
**PRF}}}``; check -- ``{"directory", "inconsistent": n, "solves": {"exact" and each
heuristic: the corpus solve}, "documents": [{"id", "links", "consistent", "witness",
"min_drop", "dropped": {heuristic: n}, "solves": {"exact" and each heuristic: solve}}]}``.
The exact mode's maximum consistent subsets report their statuses in each document's
``notes`` (``gold_status``, ``system_status``).
"""

from __future__ import annotations

import argparse

MODES = ("exact", "te3", "plain")
#: The name of the temporal awareness score in ``overall`` and each document's ``scores``.
SCORE = "awareness"


def add_temporal_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="DIR",
                   help="GOLD_DIR SYS_DIR (score), or: check DIR (consistency)")
    p.add_argument("--mode", choices=MODES, default="exact",
                   help="te3: the TempEval-3 score (its toolkit's temporal awareness, "
                        "reproduced to the digit; ask for this to compare with published TE3 "
                        "numbers). exact (default): the same awareness measure on maximum "
                        "consistent subsets of each graph's links, closed exactly -- a different "
                        "number (TE3-Platinum, ning17 SP+ILP: exact F1 63.52, te3 F1 67.24). "
                        "plain: no closure, a link counts only where the other side states it "
                        "(TempEval-1/2; UzZaman & Allen's contrast)")
    p.add_argument("--entities", action="store_true",
                   help="also the TempEval-3 toolkit's EVENT and TIMEX3 extraction scores: "
                        "strict and relaxed P/R/F1, attribute accuracy and 'Attribute F1' "
                        "(accuracy x relaxed F1), per document and overall (any --mode)")


def run_temporal(args: argparse.Namespace) -> int:
    from ..core.errors import InputError

    if args.paths[0] == "check" and len(args.paths) == 2:
        if getattr(args, "entities", False):
            raise InputError("--entities scores GOLD_DIR SYS_DIR; check has no entity scores")
        return _run_check(args, args.paths[1])
    if len(args.paths) != 2:
        raise InputError("expected GOLD_DIR SYS_DIR, or: check DIR")
    return _run_score(args, *args.paths)


def _run_score(args, gold: str, system: str) -> int:
    from ..metrics import temporal
    from .common import print_json

    rep = temporal.report_dirs(gold, system, args.mode, backend=args.backend,
                               time_limit=args.time_limit,
                               entities=getattr(args, "entities", False))
    scores, entities = rep.scores, rep.entities
    if args.json:
        out = {"gold": gold, "system": system, "mode": args.mode,
               "overall": {SCORE: _awareness(scores.prf)},
               "documents": [_doc_json(d) for d in scores.documents]}
        if entities is not None:
            _add_entities(out, entities.to_dict())
        print_json(out)
        return 0
    print(f"{gold} vs {system}: {len(scores.documents)} document(s), mode {args.mode}"
          + {"exact": " (not the TempEval-3 score: that is --mode te3)",
             "te3": " (the TempEval-3 toolkit's score)",
             "plain": " (no closure: links stated on both sides)"}[args.mode])
    print(f"{'document':<36} {'P':>8} {'R':>8} {'F1':>8}  matched/total (P; R)")
    for d in scores.documents:
        print(f"{d.doc_id:<36} {100 * d.precision:8.4f} {100 * d.recall:8.4f} "
              f"{100 * d.f1:8.4f}  {d.prec_matched:g}/{d.sys_total}; "
              f"{d.rec_matched:g}/{d.gold_total}")
    print(f"{'overall':<36} {100 * scores.precision:8.4f} {100 * scores.recall:8.4f} "
          f"{100 * scores.f1:8.4f}")
    for line in _notes_lines(scores):
        print(line)
    if entities is not None:
        for line in _entity_lines(entities):
            print(line)
    return 0


def _entity_lines(ent) -> list[str]:
    """The entity table: per document, counts; overall, P/R/F1 and attribute scores in
    percent with two decimals, as the toolkit prints them."""
    def counts(c, width):
        return f"{f'{c.gold}/{c.system}':>{width}} {c.strict:>7} {c.relaxed:>7}"

    out = ["", "entities: the TempEval-3 toolkit's EVENT and TIMEX3 extraction scores "
               "(evaluate_entities.py, ids aligned as its TimeML-Normalizer does)",
           f"{'document':<36} {'EVENT gold/sys':>14} {'strict':>7} {'relaxed':>7} | "
           f"{'TIMEX3 gold/sys':>15} {'strict':>7} {'relaxed':>7}"]
    docs = list(ent.documents) + [None]
    for d in docs:
        name, ev, tx = ("overall", ent.events, ent.timexes) if d is None else \
            (d.doc_id, d.events, d.timexes)
        out.append(f"{name:<36} {counts(ev, 14)} | {counts(tx, 15)}")
    out.append(f"{'':<8} {'strict P':>8} {'R':>7} {'F1':>7}   {'relaxed P':>9} {'R':>7} "
               f"{'F1':>7}")
    for label, c in (("EVENT", ent.events), ("TIMEX3", ent.timexes)):
        out.append(f"{label:<8} {100 * c.precision('strict'):8.2f} "
                   f"{100 * c.recall('strict'):7.2f} {100 * c.f1('strict'):7.2f}   "
                   f"{100 * c.precision():9.2f} {100 * c.recall():7.2f} {100 * c.f1():7.2f}")
    out.append("attribute F1 = accuracy over relaxed matches x relaxed F1 (accuracy)")
    for label, c in (("EVENT", ent.events), ("TIMEX3", ent.timexes)):
        out.append(f"{label:<8} " + "  ".join(
            f"{n} {100 * c.attribute_f1(n):.2f} ({100 * c.accuracy(n):.2f})"
            for n, _ in c.attributes))
    unaligned = sum(len(d.unaligned) for d in ent.documents)
    if unaligned:
        out.append(f"entities the normaliser gives no id (empty, or sharing a token with a "
                   f"later tag): {unaligned}")
    return out


def _notes_lines(scores) -> list[str]:
    """What the input held that the metric treats specially, summed over documents."""
    out = []
    for side in ("gold", "system"):
        tot = {k: sum(d.notes[side][k] for d in scores.documents)
               for k in ("links", "duplicates", "self")}
        labels = sorted({lab for d in scores.documents for lab in d.notes[side]["unknown_labels"]})
        head = f"{side}: {tot['links']} links, {tot['duplicates']} duplicate(s), " \
               f"{tot['self']} self link(s)"
        if scores.mode != "plain":  # plain mode closes nothing: nothing is set aside
            key = f"{side}_set_aside" if scores.mode == "te3" else f"{side}_dropped"
            what = "set aside by the Timegraph" if scores.mode == "te3" else \
                "dropped by the maximum consistent subset"
            head += f", {sum(d.notes[key] for d in scores.documents)} {what}"
        out.append(head + (f"; labels without point semantics: {', '.join(labels)}"
                           if labels else ""))
    unaligned = sum(len(d.notes["unaligned"]) for d in scores.documents)
    if unaligned:
        out.append(f"system entities not aligned to the reference: {unaligned}")
    differ = sum(bool(d.notes.get("texts_differ")) for d in scores.documents)
    if differ:
        out.append(f"documents whose <TEXT> differs from the reference's: {differ} (the "
                   "toolkit stops on them; their ids are aligned by span)")
    return out


def _awareness(p) -> dict:
    """The temporal awareness P/R/F of a :class:`~exactalign.metrics.aggregation.PRF` (a
    document's or the corpus's), its counts named as the toolkit's: credited system links /
    system links (precision), credited reference links / reference links (recall)."""
    from .common import prf_of

    return prf_of(p, {"prec_matched": p.precision_num, "sys_total": p.precision_den,
                      "rec_matched": p.recall_num, "gold_total": p.recall_den})


def _doc_json(d) -> dict:
    return {"id": d.doc_id, "scores": {SCORE: _awareness(d.prf)}, "notes": d.notes}


#: ``--entities``: the names, in ``overall`` and each document's ``scores``, of the
#: TempEval-3 toolkit's extraction scores (kind/matching).
ENTITY_SCORES = tuple(f"{kind}/{match}" for kind in ("events", "timexes")
                      for match in ("strict", "relaxed"))


def _add_entities(out: dict, ent: dict) -> None:
    """``--entities``: the strict and relaxed extraction scores join ``overall`` and each
    document's ``scores`` (as ``events/strict``, ...); ``entities`` keeps the rest (counts,
    attribute scores, unaligned entities), its document rows keyed by ``id``."""
    def split(row: dict) -> dict:
        return {name: row[name.split("/")[0]][name.split("/")[1]] for name in ENTITY_SCORES}

    out["overall"].update(split(ent["overall"]))
    rows = {d["document"]: d for d in ent["documents"]}
    for doc in out["documents"]:
        if doc["id"] in rows:
            doc["scores"].update(split(rows[doc["id"]]))

    def rest(e: dict) -> dict:
        return {k: v for k, v in e.items() if k not in ("strict", "relaxed")}

    out["entities"] = {
        "overall": {k: rest(v) for k, v in ent["overall"].items()},
        "documents": [{"id": d["document"], **{k: (rest(v) if k in ("events", "timexes") else v)
                                               for k, v in d.items() if k != "document"}}
                      for d in ent["documents"]]}


def _run_check(args, directory: str) -> int:
    from ..metrics import temporal
    from .common import combined_solve, print_json

    reports = temporal.check_dir(directory, backend=args.backend, time_limit=args.time_limit)
    bad = [r for r in reports if not r.consistent]
    if args.json:
        names = dict.fromkeys(n for r in reports for n in r.heuristics)  # inconsistent ones
        solves = {"exact": combined_solve((r.exact for r in reports), "exact")}
        solves.update({n: combined_solve((r.heuristics[n] for r in reports
                                          if n in r.heuristics), n) for n in names})
        print_json({"directory": directory, "inconsistent": len(bad), "solves": solves,
                    "documents": [_check_json(r) for r in reports]})
        return 1 if bad else 0
    print(f"{directory}: {len(reports)} document(s), {len(bad)} inconsistent")
    for r in bad:
        heur = ", ".join(f"{name} {r.links - round(h.objective)}"
                         for name, h in r.heuristics.items())
        print(f"\n{r.doc_id}: {r.links} links; drop at least {r.min_drop} "
              f"({r.exact.status.value}); greedy drops: {heur}")
        print("  witness cycle: " + " -> ".join(r.witness))
    return 1 if bad else 0


def _check_json(r) -> dict:
    return {"id": r.doc_id, "links": r.links, "consistent": r.consistent,
            "witness": list(r.witness), "min_drop": r.min_drop,
            "dropped": {name: r.links - round(h.objective) for name, h in r.heuristics.items()},
            "solves": {"exact": r.exact.to_dict(),
                       **{name: h.to_dict() for name, h in r.heuristics.items()}}}
