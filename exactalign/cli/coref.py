"""``exactalign coref KEY RESPONSE``: the coreference metrics of a CoNLL-2012 key/response pair.

Registered in :data:`exactalign.cli.COMMANDS`. Importing this module is cheap (no numpy): the
scoring modules are imported when the command runs.

Output: a table like the reference scorer's summary -- precision and recall with their counts,
F1 (P, R, F1: the column order of every exactalign table) -- for the identification of
mentions and each metric, the CoNLL average when MUC, B³ and CEAFe were computed, and the CEAF
alignment solves (status, objective, bound, gap; for the greedy heuristic, how far it falls
short of the exact alignment). ``--json`` prints one object (``exactalign/output.schema.json``):

* ``overall`` -- corpus level, score name -> ``{"precision", "recall", "f1", "counts"}``:
  ``mentions``, each metric, ``blanc/coref`` and ``blanc/noncoref`` (``blanc``, their
  average, has no counts) and ``conll`` (the CoNLL average; precision and recall ``null``);
* ``solves`` -- per CEAF metric its entity alignment's corpus solve (``Result.to_dict()``),
  and with ``--ceaf-method greedy`` also ``ceafm/exact``, ``ceafe/exact``: the exact solves it
  is compared with;
* ``vs_exact`` -- with ``--ceaf-method greedy``, per CEAF metric the heuristic's shortfall
  (``{"documents", "documents_with_gap", "shortfall", "relative", "largest_gap",
  "largest_gap_document"}``), else ``null``;
* ``documents`` -- a list, in key order, of ``{"id", "scores", "solves", "repeated",
  "vs_exact"}``: the same per document (``vs_exact``: ``{"shortfall", "relative", "witness"}``
  per CEAF metric, ``witness`` -- ``null`` unless the heuristic is short here -- the fewest
  entity pairs to remove and add to make its alignment optimal, each pair given by its key and
  response chains' mentions as ``[start, end]`` token offsets, with ``changes`` and ``gain``),
  ``repeated`` counting the response mentions dropped by the reference's repeated-mention
  rule;
* ``key``, ``response``, ``metrics``, ``ceaf_method``.

``--format corefud`` reads CorefUD 1.x files (CoNLL-U with ``Entity=`` in MISC) and scores them
as the CorefUD scorer (ufal/corefud-scorer v1.2, the CRAC shared tasks' scorer) does
(:mod:`exactalign.metrics.coref.corefud`): mentions matched by ``--match head|partial|exact``
(default head), zeros by ``--zero-match dependent|linear`` (default dependent), singletons
ignored unless ``--keep-singletons``; the metrics add MOR and ``zero`` (the anaphor-decomposable
score of zeros). The table prints every metric as the scorer does (recall, precision, F1 to two
decimals) with its counts, the CoNLL score, and how the staged alignment paired the mentions
(zeros by dependencies, exact, by match score). ``--json``: ``overall`` (each metric,
``blanc/coref``, ``blanc/noncoref``, ``conll``), ``solves`` (``mor``: the certified assignment
behind MOR), ``alignment`` (pairs made by each stage, mentions per side), ``documents`` (``id``,
``scores``, ``alignment``), ``warnings`` (udapi's, e.g. a mention never closed) and ``key``,
``response``, ``format``, ``match``, ``zero_match``, ``keep_singletons``, ``metrics``.
"""

from __future__ import annotations

import argparse

METRIC_CHOICES = ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea", "mor", "zero", "all")
#: Metrics of the CorefUD scorer only (``--format corefud``).
COREFUD_ONLY = ("mor", "zero")
FORMATS = ("conll", "corefud")
#: Mirrors :data:`exactalign.metrics.coref.corefud.MATCHES` / ``ZERO_MATCHES`` (a test pins them).
MATCHES = ("head", "partial", "exact")
ZERO_MATCHES = ("dependent", "linear")
CEAF_METHOD_CHOICES = ("exact", "ilp", "greedy")
#: Mirrors :data:`exactalign.metrics.coref.corefud_exact.METHODS` (a test pins them).
ALIGNMENT_METHODS = ("staged", "exact", "both")
LABELS = {"mentions": "mentions", "muc": "MUC", "bcub": "B3", "ceafm": "CEAFm",
          "ceafe": "CEAFe", "blanc": "BLANC", "lea": "LEA", "mor": "MOR", "zero": "zero"}


def _max_repeated(text: str) -> int | None:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < -1:
        raise argparse.ArgumentTypeError(f"must be >= 0, or -1 for no limit, not {value}")
    return None if value == -1 else value


def add_coref_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("key", metavar="KEY", help="key (gold) file; '-' reads stdin")
    p.add_argument("response", metavar="RESPONSE", help="response (system) file")
    p.add_argument("--format", choices=FORMATS, default="conll",
                   help="conll: CoNLL-2012 files scored as the reference scorer v8.01; "
                        "corefud: CorefUD 1.x files (CoNLL-U, Entity= in MISC) scored as the "
                        "CorefUD scorer v1.2 (default: %(default)s)")
    p.add_argument("--match", choices=MATCHES, default="head",
                   help="corefud: how key and response mentions match -- head (same head "
                        "word), partial (the response inside the key and holding its head), "
                        "exact (same words) (default: %(default)s)")
    p.add_argument("--zero-match", choices=ZERO_MATCHES, default="dependent",
                   help="corefud: how zeros are matched first -- dependent (by their enhanced "
                        "dependencies), linear (as other mentions, by position) "
                        "(default: %(default)s)")
    p.add_argument("--keep-singletons", action="store_true",
                   help="corefud: score entities of one mention too (the scorer's -s)")
    p.add_argument("--method", choices=ALIGNMENT_METHODS, default="staged",
                   help="corefud: the mention alignment MUC, B3, CEAFe, CEAFm and LEA are "
                        "computed on -- staged (the scorer's: zeros, identical mentions, then "
                        "by match score), exact (per metric the alignment of largest F1 over "
                        "every 1:1 alignment the matching allows, solved and certified), both "
                        "(the scorer's numbers, the exact ones and the gap) "
                        "(default: %(default)s)")
    p.add_argument("--metric", action="extend", nargs="+", choices=METRIC_CHOICES,
                   metavar="M", help="metrics to compute: " + ", ".join(METRIC_CHOICES)
                   + " (several, or repeat the option; default: all)")
    p.add_argument("--ceaf-method", choices=CEAF_METHOD_CHOICES, default="exact",
                   help="how CEAF aligns entities: exact (assignment, proven optimal), ilp "
                        "(through --backend), greedy (best remaining pair; then also solved "
                        "exactly to report the gap) (default: %(default)s)")
    p.add_argument("--documents", action="store_true",
                   help="also print each document's scores (JSON always has them)")
    p.add_argument("--max-repeated", type=_max_repeated, default=10, metavar="N",
                   help="refuse a response repeating more than N key mentions, as the "
                        "reference scorer v8.01 does (default: %(default)s; -1: no limit)")
    g = p.add_argument_group(
        "coval's options (conll; any of them scores as coval does: its metrics mentions, "
        "MUC, B3, CEAFm, CEAFe, LEA, on the mentions the options leave)")
    g.add_argument("--remove-singletons", action="store_true",
                   help="drop clusters of one mention, before the other options (coval's "
                        "remove_singletons)")
    g.add_argument("--remove-nested", action="store_true",
                   help="drop mentions nested in another mention of their cluster (coval's "
                        "remove_nested)")
    g.add_argument("--np-only", action="store_true",
                   help="drop mentions whose parse-tree root is a VP; needs the key's parse "
                        "column (coval's NP_only)")
    g.add_argument("--min-span", action="store_true",
                   help="identify mentions by their minimum spans (MINA) from the key's parse "
                        "trees (coval's min_span)")


def run_coref(args: argparse.Namespace) -> int:
    if args.format == "corefud":
        return _run_corefud(args)
    from ..metrics import coref
    from .common import solve_options

    metrics = list(args.metric or ["all"])
    only = [m for m in metrics if m in COREFUD_ONLY]
    if only:
        raise _usage(f"--metric {only[0]} needs --format corefud")
    if args.match != "head" or args.zero_match != "dependent" or args.keep_singletons \
            or args.method != "staged":
        raise _usage("--match, --zero-match, --keep-singletons and --method need --format "
                     "corefud (for CoNLL files, --ceaf-method)")
    options = _coval_options(args)
    if options.any:
        return _run_coval(args, metrics, options)
    metrics = [m for m in coref.METRICS if m in metrics or "all" in metrics]
    scores = coref.score_files(args.key, args.response, metrics, ceaf_method=args.ceaf_method,
                               compare_exact=True, max_repeated=args.max_repeated,
                               **solve_options(args))
    return _print_conll(args, scores)


def _print_conll(args: argparse.Namespace, scores, note: str = "") -> int:
    from ..metrics import coref
    from .common import print_json

    key = "<stdin>" if args.key == "-" else args.key
    response = "<stdin>" if args.response == "-" else args.response
    if args.json:
        print_json(_json(scores, key, response))
        return 0
    n_key = int(scores.mentions.recall_den)
    n_resp = int(scores.mentions.precision_den)
    print(f"{key} vs {response}: {len(scores.documents)} document(s), {n_key} key and "
          f"{n_resp} response mentions{note}")
    if args.documents:
        for d in scores.documents:
            print(f"\ndocument {d.name}" + (f" ({d.repeated} repeated response mention(s) "
                                            "dropped)" if d.repeated else ""))
            print(_score_table(d.mentions, d.scores, d.conll))
        print("\nall documents (counts summed)")
    print(_score_table(scores.mentions, scores.overall, scores.conll))
    ceaf_metrics = [m for m in scores.metrics if m in coref.CEAF_PHI]
    if ceaf_metrics:
        print(f"\nCEAF entity alignment, {scores.ceaf_method}, summed over "
              f"{len(scores.documents)} document(s):")
        print(_ceaf_table(scores, ceaf_metrics))
    return 0


def _coval_options(args: argparse.Namespace):
    from ..metrics.coref.coval import CovalOptions

    return CovalOptions(remove_singletons=args.remove_singletons,
                        remove_nested=args.remove_nested, np_only=args.np_only,
                        min_span=args.min_span)


def _run_coval(args: argparse.Namespace, metrics: list[str], options) -> int:
    """The CoNLL path with coval's options: scored as coval does (metrics.coref.coval)."""
    from ..metrics.coref import coval
    from .common import solve_options

    if "blanc" in metrics:
        raise _usage("--metric blanc is not one of coval's metrics: with --remove-singletons, "
                     "--remove-nested, --np-only or --min-span choose from "
                     + ", ".join(coval.METRICS))
    metrics = [m for m in coval.METRICS if m in metrics or "all" in metrics]
    scores = coval.score_files(args.key, args.response, metrics, options=options,
                               ceaf_method=args.ceaf_method, compare_exact=True,
                               **solve_options(args))
    return _print_conll(args, scores,
                        note="; scored as coval does with " + ", ".join(options.words()))


# --------------------------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------------------------
def _scores_json(mentions, scores: dict, conll) -> dict:
    """Score name -> P/R/F (``precision``, ``recall``, ``f1``, ``counts``): ``mentions`` (unless
    None), each
    metric, BLANC's two link kinds as ``blanc/coref`` and ``blanc/noncoref`` (``blanc`` is their
    average, without counts) and ``conll``, the CoNLL average -- a mean of F1s, so its
    precision and recall are ``null``."""
    from .common import prf, prf_of

    out = {} if mentions is None else {"mentions": prf_of(mentions)}
    for m, s in scores.items():
        if m == "blanc":
            out[m] = prf_of(s, counts=False)
            out["blanc/coref"] = prf_of(s.coref)
            out["blanc/noncoref"] = prf_of(s.noncoref)
        else:
            out[m] = prf_of(s)
    if conll is not None:
        out["conll"] = prf(None, None, conll)
    return out


def _solves_json(ceaf: dict, ceaf_exact: dict) -> dict:
    """CEAF metric -> its entity alignment's solve, and ``METRIC/exact`` -> the exact solve it
    was compared with (the greedy method only)."""
    out = {m: r.to_dict() for m, r in ceaf.items() if r is not None}
    out.update({f"{m}/exact": r.to_dict() for m, r in ceaf_exact.items() if r is not None})
    return out


def _json(scores, key: str, response: str) -> dict:
    ceaf = [m for m in scores.metrics if m in ("ceafm", "ceafe")]
    greedy = scores.ceaf_method == "greedy"
    return {
        "key": key, "response": response, "metrics": list(scores.metrics),
        "ceaf_method": scores.ceaf_method,
        "overall": _scores_json(scores.mentions, scores.overall, scores.conll),
        "solves": _solves_json({m: scores.ceaf_result(m) for m in ceaf},
                               {m: scores.ceaf_result(m, exact=True) for m in ceaf}),
        "vs_exact": {m: scores.ceaf_gap(m) for m in ceaf} if greedy else None,
        "documents": [_document_json(d, greedy) for d in scores.documents],
    }


def _document_json(d, greedy: bool) -> dict:
    vs = None
    if greedy:
        vs = {}
        for m, solve in d.ceaf.items():
            exact = d.ceaf_exact.get(m)
            if exact is not None:
                short = exact.objective - solve.objective
                vs[m] = {"shortfall": short,
                         "relative": short / exact.objective if exact.objective else 0.0,
                         "witness": d.ceaf_witness.get(m)}
    return {"id": d.name, "scores": _scores_json(d.mentions, d.scores, d.conll),
            "solves": _solves_json(d.ceaf, d.ceaf_exact), "repeated": d.repeated,
            "vs_exact": vs}


# --------------------------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------------------------
def _num(x) -> str:
    if x is None:
        return "-"
    x = float(x)
    return str(int(x)) if x.is_integer() else format(x, ".6g")


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def _score_table(mentions, scores: dict, conll) -> str:
    from .common import table

    rows = [["metric", "precision", "", "recall", "", "F1"]]

    def row(label, s, counts=True):
        if counts:
            rows.append([label, _pct(s.precision),
                         f"({_num(s.precision_num)} / {_num(s.precision_den)})",
                         _pct(s.recall), f"({_num(s.recall_num)} / {_num(s.recall_den)})",
                         _pct(s.f1)])
        else:
            rows.append([label, _pct(s.precision), "", _pct(s.recall), "", _pct(s.f1)])

    row("mentions", mentions)
    for m, s in scores.items():
        if m == "blanc":
            row(LABELS[m], s, counts=False)
            row("  coref links", s.coref)
            row("  non-coref links", s.noncoref)
        else:
            row(LABELS[m], s)
    out = table(rows[0], rows[1:])
    if conll is not None:
        out += f"\nCoNLL average (MUC, B3, CEAFe F1): {_pct(conll)}"
    return out


def _ceaf_table(scores, metrics: list[str]) -> str:
    from .common import table

    heuristic = scores.ceaf_method == "greedy"
    head = ["metric", "method", "status", "objective", "bound", "gap", "time(s)"]
    if heuristic:
        head += ["exact", "vs exact"]
    rows = [head]
    for m in metrics:
        r = scores.ceaf_result(m)
        row = [LABELS[m], r.method, r.status.value, _num(r.objective), _num(r.bound),
               _num(r.gap), f"{r.wall_time:.4f}"]
        if heuristic:
            ex = scores.ceaf_result(m, exact=True)
            gap = scores.ceaf_gap(m)
            row.append(_num(ex.objective))
            if gap["documents_with_gap"] == 0:
                row.append("optimal in every document")
            else:
                row.append(f"-{_num(gap['shortfall'])} ({gap['documents_with_gap']} of "
                           f"{gap['documents']} documents; largest -{_num(gap['largest_gap'])} "
                           f"in {gap['largest_gap_document']})")
        rows.append(row)
    out = table(rows[0], rows[1:])
    if heuristic:
        out += _witness_lines(scores, metrics)
    return out


def _witness_lines(scores, metrics: list[str], limit: int = 3) -> str:
    """The documents where the heuristic falls furthest short, each with its witness: how many
    entity pairs to remove and add to make the alignment optimal (``--json`` lists them)."""
    lines = []
    for m in metrics:
        short = [(d.ceaf_exact[m].objective - d.ceaf[m].objective, d.name, d.ceaf_witness[m])
                 for d in scores.documents if m in d.ceaf_witness]
        short.sort(key=lambda t: -t[0])
        for gap, name, w in short[:limit]:
            lines.append(f"  {LABELS[m]} witness, {name}: -{_num(gap)}; remove "
                         f"{len(w['remove'])} and add {len(w['add'])} entity pair(s) to reach "
                         "the optimum")
        if len(short) > limit:
            lines.append(f"  {LABELS[m]}: {len(short) - limit} more document(s) short "
                         "(--json lists every witness)")
    return "".join("\n" + ln for ln in lines)



def _usage(message: str):
    """An option used where it does not apply: one error line, exit status 2."""
    from ..core.errors import InputError

    return InputError(message)


# --------------------------------------------------------------------------------------------
# --format corefud
# --------------------------------------------------------------------------------------------
def _run_corefud(args: argparse.Namespace) -> int:
    import sys

    from ..metrics.coref import corefud
    from .common import print_json

    if args.ceaf_method != "exact":
        raise _usage("--ceaf-method applies to --format conll: with corefud, CEAF is the "
                     "scorer's exact assignment")
    if _coval_options(args).any:
        raise _usage("--remove-singletons, --remove-nested, --np-only and --min-span are "
                     "coval's options for --format conll (corefud: --keep-singletons)")
    metrics = list(args.metric or ["all"])
    metrics = [m for m in corefud.METRICS if m in metrics or "all" in metrics]
    if args.method != "staged":
        return _run_corefud_exact(args, metrics)
    scores = corefud.score_files(args.key, args.response, metrics, match=args.match,
                                 zero_match=args.zero_match,
                                 keep_singletons=args.keep_singletons)
    for w in scores.warnings:
        print(f"exactalign: warning: {w}", file=sys.stderr)
    key = "<stdin>" if args.key == "-" else args.key
    response = "<stdin>" if args.response == "-" else args.response
    if args.json:
        print_json(_corefud_json(scores, key, response))
        return 0
    a = _alignment_totals(scores.documents)
    print(f"{key} vs {response}: {len(scores.documents)} document(s), {a['key_mentions']} key "
          f"and {a['response_mentions']} response mentions; CorefUD scorer v1.2, "
          f"{scores.match} match, {scores.zero_match} zeros, singletons "
          f"{'kept' if scores.keep_singletons else 'ignored'}")
    print(f"staged alignment: {a['zeros']} zero pair(s) by dependencies, {a['exact']} exact, "
          f"{a['scored']} by match score; {a['key_mentions'] - a['aligned']} key and "
          f"{a['response_mentions'] - a['aligned']} response mention(s) left unaligned")
    if args.documents:
        for d in scores.documents:
            print(f"\ndocument {d.name}")
            print(_corefud_table(d.scores(), None))
        print("\nall documents (counts summed)")
    print(_corefud_table(scores.overall, scores.conll))
    return 0


def _alignment_totals(documents) -> dict:
    out = {"zeros": 0, "exact": 0, "scored": 0, "aligned": 0, "key_mentions": 0,
           "response_mentions": 0}
    for d in documents:
        for k, v in _alignment_json(d).items():
            out[k] += v
    return out


def _alignment_json(d) -> dict:
    a = d.alignment
    return {"zeros": a.zeros, "exact": a.exact, "scored": a.scored, "aligned": len(a.pairs),
            "key_mentions": d.key_mentions, "response_mentions": d.response_mentions}


def _corefud_json(scores, key: str, response: str) -> dict:
    from ..core.result import combine_results

    mor = [d.solves["mor"] for d in scores.documents if "mor" in d.solves]
    return {
        "key": key, "response": response, "format": "corefud", "match": scores.match,
        "zero_match": scores.zero_match, "keep_singletons": scores.keep_singletons,
        "metrics": list(scores.metrics),
        "overall": _scores_json(None, scores.overall, scores.conll),
        "solves": {"mor": combine_results(mor, mor[0].method).to_dict()} if mor else {},
        "alignment": _alignment_totals(scores.documents),
        "documents": [{"id": d.name,
                       "scores": _scores_json(None, d.scores(), _conll_of(d.scores())),
                       "solves": {m: r.to_dict() for m, r in d.solves.items()},
                       "alignment": _alignment_json(d)} for d in scores.documents],
        "warnings": list(scores.warnings),
    }


def _conll_of(scores: dict):
    if not all(m in scores for m in ("muc", "bcub", "ceafe")):
        return None
    total = 0
    for m in ("muc", "bcub", "ceafe"):
        total += scores[m].f1
    return total / 3


def _corefud_table(scores: dict, conll) -> str:
    """The scorer's numbers (recall, precision, F1 as it prints them, ``%.2f`` of the
    percentage) with their counts, in exactalign's column order (P, R, F1)."""
    from .common import table

    rows = []

    def row(label, s, counts=True):
        rows.append([label, f"{100 * s.precision:.2f}",
                     f"({_num(s.precision_num)} / {_num(s.precision_den)})" if counts else "",
                     f"{100 * s.recall:.2f}",
                     f"({_num(s.recall_num)} / {_num(s.recall_den)})" if counts else "",
                     f"{100 * s.f1:.2f}"])

    for m, s in scores.items():
        if m == "blanc":
            row(LABELS[m], s, counts=False)
            row("  coref links", s.coref)
            row("  non-coref links", s.noncoref)
        else:
            row(LABELS[m], s)
    out = table(["metric", "precision", "", "recall", "", "F1"], rows)
    if conll is not None:
        out += f"\nCoNLL score (mean F1 of MUC, B3, CEAFe): {100 * conll:.2f}"
    return out


# --------------------------------------------------------------------------------------------
# --format corefud --method exact|both: the metric-optimal alignment
# --------------------------------------------------------------------------------------------
def _run_corefud_exact(args: argparse.Namespace, metrics: list[str]) -> int:
    import sys

    from ..metrics.coref import corefud_exact
    from .common import print_json, solve_options

    exact_metrics = [m for m in corefud_exact.EXACT_METRICS if m in metrics]
    if not exact_metrics:
        raise _usage("--method exact/both optimises MUC, B3, CEAFe, CEAFm or LEA: name one "
                     "with --metric")
    ex = corefud_exact.compare_files(args.key, args.response, exact_metrics,
                                     scorer_metrics=metrics if args.method == "both" else (),
                                     match=args.match, zero_match=args.zero_match,
                                     keep_singletons=args.keep_singletons, method=args.method,
                                     **solve_options(args))
    staged = ex.scorer
    for w in ex.warnings:
        print(f"exactalign: warning: {w}", file=sys.stderr)
    key = "<stdin>" if args.key == "-" else args.key
    response = "<stdin>" if args.response == "-" else args.response
    if args.json:
        print_json(_exact_json(ex, staged, key, response, metrics))
        return 0
    docs = ex.documents
    nk = sum(d.staged.key_mentions for d in docs)
    nr = sum(d.staged.response_mentions for d in docs)
    print(f"{key} vs {response}: {len(docs)} document(s), {nk} key and {nr} response mentions; "
          f"CorefUD scorer v1.2, {ex.match} match, {ex.zero_match} zeros, singletons "
          f"{'kept' if ex.keep_singletons else 'ignored'}")
    if staged is not None:
        a = _alignment_totals(staged.documents)
        print(f"staged alignment (the scorer's): {a['zeros']} zero pair(s) by dependencies, "
              f"{a['exact']} exact, {a['scored']} by match score")
        if args.documents:
            for d in staged.documents:
                print(f"\ndocument {d.name}")
                print(_corefud_table(d.scores(), None))
            print("\nall documents (counts summed)")
        print(_corefud_table(staged.overall, staged.conll))
        print()
    print("metric-optimal alignment (per metric, the 1:1 alignment of largest F1 the matching "
          "allows; B3 and LEA: corpus optimum):")
    if args.documents:
        for d in docs:
            print(f"\ndocument {d.name}")
            print(_corefud_table({m: c.exact_prf for m, c in d.metrics.items()}, None))
        print("\nall documents (counts summed)")
    print(_corefud_table(ex.overall("exact"), ex.conll("exact")).replace(
        "CoNLL score", "CoNLL score, each metric on its own alignment"))
    print()
    print(_exact_solve_table(ex, staged is not None))
    quirks = sum(1 for d in docs for c in d.metrics.values() if c.quirk)
    if staged is not None and quirks:
        print(f"note: in {quirks} document/metric(s) the scorer counts its staged alignment "
              "through its one dict for both directions (a zero aligned by dependencies that "
              "is also, by position, a mention of the other side): the gap is measured on the "
              "staged pairs themselves")
    return 0


def _gap_summary(ex, m: str) -> dict:
    gaps = [(d.metrics[m].gap, d.name) for d in ex.documents]
    short = [(g, n) for g, n in gaps if g > 1e-9]
    largest = max(short, default=(0.0, None))
    return {"documents": len(gaps), "documents_with_gap": len(short),
            "largest_gap": largest[0], "largest_gap_document": largest[1],
            "mean_gap": sum(g for g, _ in gaps) / len(gaps) if gaps else 0.0,
            "staged_f1": ex.overall("staged")[m].f1, "exact_f1": ex.overall("exact")[m].f1,
            "corpus_gap": ex.overall("exact")[m].f1 - ex.overall("staged")[m].f1}


def _exact_solve_table(ex, both: bool) -> str:
    from .common import table

    head = ["metric", "status", "exact F1", "bound", "bound - F1", "time(s)"]
    if both:
        head += ["staged", "exact - staged"]
    rows = []
    for m in ex.metrics:
        r, _ = ex.corpus[m]
        proven = sum(1 for d in ex.documents if d.metrics[m].exact.proven_optimal)
        row = [LABELS[m], f"{r.status.value} ({proven}/{len(ex.documents)} doc)",
               f"{100 * r.objective:.2f}", "-" if r.bound is None else f"{100 * r.bound:.2f}",
               "-" if r.bound is None else f"{100 * (r.bound - r.objective):.2f}",
               f"{r.wall_time:.3f}"]
        if both:
            g = _gap_summary(ex, m)
            row.append(f"{100 * g['staged_f1']:.2f}")
            if g["documents_with_gap"] == 0:
                row.append("staged optimal in every document")
            else:
                row.append(f"+{100 * g['corpus_gap']:.2f} ({g['documents_with_gap']} of "
                           f"{g['documents']} documents; largest +{100 * g['largest_gap']:.2f} "
                           f"in {g['largest_gap_document']})")
        rows.append(row)
    return table(head, rows)


def _words(ws) -> list:
    return [[s, o] for s, o in ws]


def _exact_json(ex, staged, key: str, response: str, metrics: list[str]) -> dict:
    from ..core.result import combine_results
    from .common import prf_of

    exact_overall = {m: prf_of(s) for m, s in ex.overall("exact").items()}
    exact_conll = ex.conll("exact")
    solves = {m: ex.corpus[m][0].to_dict() for m in ex.metrics}
    if staged is not None:
        mor = [d.solves["mor"] for d in staged.documents if "mor" in d.solves]
        if mor:
            solves["mor"] = combine_results(mor, mor[0].method).to_dict()
    docs = []
    staged_docs = staged.documents if staged is not None else [None] * len(ex.documents)
    for d, sd in zip(ex.documents, staged_docs, strict=True):
        row = {"id": d.name}
        exact_scores = {m: c.exact_prf for m, c in d.metrics.items()}
        if sd is not None:
            row["scores"] = _scores_json(None, sd.scores(), _conll_of(sd.scores()))
        else:
            row["scores"] = {m: prf_of(s) for m, s in exact_scores.items()}
        row["solves"] = {m: c.exact.to_dict() for m, c in d.metrics.items()}
        row["exact"] = {m: {"scores": prf_of(exact_scores[m]),
                            "alignment": [{"key": _words(d.words[k]),
                                           "response": _words(d.words[r])}
                                          for k, r in c.exact_pairs]}
                        for m, c in d.metrics.items()}
        if sd is not None:
            row["gap"] = {m: c.gap for m, c in d.metrics.items()}
            row["staged_counted_by_scorer"] = {m: not c.quirk for m, c in d.metrics.items()}
        docs.append(row)
    out = {
        "key": key, "response": response, "format": "corefud", "match": ex.match,
        "zero_match": ex.zero_match, "keep_singletons": ex.keep_singletons,
        "metrics": list(metrics), "method": ex.method,
        "overall": (_scores_json(None, staged.overall, staged.conll) if staged is not None
                    else {**exact_overall, **({"conll": _conll_prf(exact_conll)}
                                              if exact_conll is not None else {})}),
        "staged": None if staged is None else {
            "overall": _scores_json(None, staged.overall, staged.conll),
            "alignment": _alignment_totals(staged.documents)},
        "exact": {"overall": {**exact_overall, **({"conll": _conll_prf(exact_conll)}
                                                   if exact_conll is not None else {})}},
        "solves": solves,
        "gap": None if staged is None else {m: _gap_summary(ex, m) for m in ex.metrics},
        "documents": docs,
        "warnings": list(ex.warnings),
    }
    return out


def _conll_prf(v: float) -> dict:
    from .common import prf

    return prf(None, None, v)
