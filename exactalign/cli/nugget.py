"""``exactalign nugget``: event-nugget scoring as the TAC KBP scorer v1.8, and exactly.

::

    exactalign nugget -g gold.tbf -s system.tbf [-t TOKEN_DIR] [--mapping M|all] [--compat]
                      [--json] [--strict] [--type-whitelist FILE] [--exact-method exact|ilp]
                      [--pilot-study [pilot2015-alg4|kbp-span-first]]
                      [--type-credit C] [--scheme dice|muc] [--partial-credit half|dice]
                      [--optional-value VALUE ...] [-c [--coref-mapping COMBINATION]
                      [--coref-threshold T] [--coref-conll PREFIX]] [-a [DIR] [-nv]]
                      [-d FILE] [-dn DOC_ID]

Without ``-t`` spans are character offsets (v1.8's default); with it, token ids checked against
``TOKEN_DIR/<doc id>.tab``. Text output is v1.8's report (per-document table, per-type table,
micro/macro table and, with ``-c``, its coreference section) for the chosen mapping; with
``--compat`` and the default ``kbp`` mapping it is byte for byte the official output. Without
``--compat`` the per-type table differs (corrected: it uses the ``mention_type`` mapping and
lists system-only types; see :mod:`exactalign.metrics.nugget`) and, with ``-c``, a block of
coreference details follows (untruncated P/R/F1, the CoNLL-2012 average, greedy against exact
CEAF alignment; :func:`exactalign.metrics.nugget.format_coref_details`).
``--mapping all`` prints the report of every mapping and then how far each heuristic falls below
the exact optimum (``all`` includes the span-first mappings ``pilot2015-alg4`` and
``kbp-span-first``). ``--type-credit C`` gives level-based partial credit to a type of the
right family with the wrong subtype (:class:`~exactalign.metrics.nugget.LevelCredit`).
``-a [DIR]`` adds v1.8's event sequencing scores (``After``/``Subevent`` links through the
TempEval-3 temporal awareness; :mod:`exactalign.metrics.sequencing`) after the coreference
section, and with ``DIR`` writes v1.8's TimeML files and ``seq.out`` there; ``-d FILE`` writes
v1.8's comparison of gold and system mentions; ``-dn DOC_ID`` scores that document alone.
``--scheme muc`` prints one MUC table instead (COR, PAR, credit, ACT, POS, P/R/F and status per
mapping and combination; :func:`~exactalign.metrics.nugget.muc_evaluate`). Warnings (problems
v1.8 survives) go to standard error; among them, a ``--type-whitelist`` that keeps no mention at
all (every score 0, which v1.8 prints without a word).

This module imports no numpy at start-up (the command line's start-up rule).
"""

from __future__ import annotations

import argparse
import sys

#: The mapping names of :data:`exactalign.metrics.nugget.MAPPINGS` (kept here so that building
#: the parser does not import numpy; a test pins the two together).
MAPPING_NAMES = ("kbp", "kbp-gold-order", "pilot2015", "exact")
#: The names of :data:`exactalign.metrics.nugget.SPAN_FIRST` (pinned by a test too).
SPAN_FIRST_NAMES = ("pilot2015-alg4", "kbp-span-first")
EXACT_METHODS = ("exact", "ilp")
SCHEMES = ("dice", "muc")
PARTIAL_CREDITS = ("half", "dice")


def add_nugget_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-g", "--gold", required=True, metavar="GOLD.tbf", help="gold standard TBF")
    p.add_argument("-s", "--system", required=True, metavar="SYS.tbf", help="system TBF")
    p.add_argument("-t", "--token-dir", metavar="TOKEN_DIR", default=None,
                   help="token mode: spans are token ids, checked against "
                        "TOKEN_DIR/<doc id><ext> (default: character mode)")
    p.add_argument("--token-ext", "-te", default=".tab", metavar="EXT",
                   help="token table extension (v1.8's -te) (default: %(default)s)")
    p.add_argument("--offset-field", "-of", type=_offset_fields, default=None, metavar="B,E",
                   help="token mode: the token table's columns of the begin and end offsets, "
                        "from 0 (v1.8's -of) (default: 2,3)")
    p.add_argument("--mapping", choices=(*MAPPING_NAMES, *SPAN_FIRST_NAMES, "all"),
                   default="kbp",
                   help="mention mapping: kbp (v1.7-1.8 global greedy), kbp-gold-order (v1.6), "
                        "pilot2015 (2015 pilot), exact (maximum-weight matching), "
                        "pilot2015-alg4 / kbp-span-first (mapping fixed on spans, attributes "
                        "scored on it: the pilot's Algorithm 4), all (every one; the muc scheme "
                        "has no span-first mappings) (default: %(default)s)")
    p.add_argument("--compat", action="store_true",
                   help="per-type table exactly as v1.8 (type+realis mapping, gold types only)")
    p.add_argument("--strict", action="store_true",
                   help="turn every warning (a problem v1.8 survives) into an error")
    p.add_argument("--type-whitelist", "-wl", metavar="FILE", default=None,
                   help="score only the types listed in FILE, one per line (v1.8's -wl)")
    p.add_argument("--scheme", choices=SCHEMES, default="dice",
                   help="partial-credit scheme: dice (v1.8: Dice of the spans, TP/N) or muc "
                        "(exact span COR, overlap PAR; P=(COR+c*PAR)/ACT, R=(COR+c*PAR)/POS; "
                        "the exact mapping maximises corpus F) (default: %(default)s)")
    p.add_argument("--partial-credit", choices=PARTIAL_CREDITS, default="half",
                   help="muc scheme: credit of a partial match, half (MUC's 0.5) or dice "
                        "(default: %(default)s)")
    p.add_argument("--optional-value", action="append", default=[], metavar="VALUE",
                   help="muc scheme: gold mentions with an attribute equal to VALUE (compared "
                        "canonically) are optional, counted in POS only if aligned; repeatable")
    p.add_argument("--type-credit", type=_credit, default=None, metavar="C",
                   help="hierarchical types (dice scheme): a system type of the right family but "
                        "the wrong subtype earns C in [0, 1) of the pair's Dice instead of 0 "
                        "(levels split at '.', '_', ':' or after a TAC KBP family prefix such "
                        "as 'conflict'); default: exact type equality, as v1.8")
    p.add_argument("-c", "--coref", nargs="?", const=True, default=False, metavar="PREFIX",
                   help="also score event coreference as v1.8's -c (with PREFIX, as v1.8's "
                        "-c PREFIX, also write PREFIX_gold.conll and PREFIX_sys.conll, as "
                        "--coref-conll does): mentions put on rows "
                        "through the mapping (v1.8: identical spans mapped on mention_type), "
                        "@Coreference clusters scored by the CoNLL reference scorer v8.01's "
                        "metrics (in memory), printed as v1.8's 'Final Mention Coreference "
                        "Results'")
    p.add_argument("-m", type=int, choices=range(4), default=None, dest="coref_mapping_index",
                   metavar="N",
                   help="v1.8's -m: the coreference mapping by number, 0 span only, 1 "
                        "mention_type, 2 realis_status, 3 both (as --coref-mapping)")
    p.add_argument("--coref-mapping", default=None, metavar="COMBINATION",
                   help="with -c: the attribute combination whose mapping places the mentions "
                        "(plain, mention_type, realis_status, mention_type+realis_status; "
                        "v1.8's -m) (default: mention_type)")
    p.add_argument("--coref-threshold", "-ct", type=float, default=1.0, metavar="T",
                   help="with -c: keep a mapped pair on one row when its Dice is >= T, in "
                        "(0, 1] (v1.8's -ct) (default: %(default)s)")
    p.add_argument("--coref-conll", default=None, metavar="PREFIX",
                   help="with -c and one mapping: also write the CoNLL key and response files "
                        "v1.8 would hand to the reference scorer, PREFIX_gold.conll and "
                        "PREFIX_sys.conll (byte for byte v1.8's)")
    p.add_argument("-a", "--sequencing", nargs="?", const=True, default=None, metavar="DIR",
                   help="also score event sequencing as v1.8's -a: @After and @Subevent links, "
                        "propagated through the @Coreference clusters and put on gold mentions "
                        "by the coreference mapping (-m), scored by the TempEval-3 toolkit's "
                        "temporal awareness with implicit relations in recall, per type "
                        "(Subevent, After, All); with DIR, as v1.8's -a DIR, also write the "
                        "TimeML files and seq.out v1.8 leaves in DIR")
    p.add_argument("-nv", "--no-script-validation", action="store_true",
                   help="with -a: score links that go both ways between two mentions instead "
                        "of refusing them (v1.8's -nv)")
    p.add_argument("-d", "--comparison-output", default=None, metavar="FILE",
                   help="write v1.8's comparison of gold and system mentions to FILE (its -d): "
                        "per document, each gold mention beside the system mention the span "
                        "mapping gives it, with their Dice, then the unmapped system mentions "
                        "(and, with -c, the clusters)")
    p.add_argument("-dn", "--doc-id", default=None, metavar="DOC_ID",
                   help="score the document DOC_ID alone (v1.8's -dn)")
    p.add_argument("--exact-method", choices=EXACT_METHODS, default="exact",
                   help="how the exact mapping is solved: exact (assignment algorithm) or ilp "
                        "(--backend, --time-limit, --seed apply) (default: %(default)s)")
    p.add_argument("--pilot-study", choices=("pilot2015-alg4", "kbp-span-first"), nargs="?",
                   const="pilot2015-alg4", default=None, metavar="MAPPING",
                   help="score as the 2015 pilot study (Liu, Mitamura & Hovy): Algorithms 1-4 "
                        "on the span mapping MAPPING (pilot2015-alg4, the default, or "
                        "kbp-span-first): the original (Algorithm 2), EvmEval v1.0 and fixed "
                        "precision, attribute accuracy (Algorithm 3), the multiplied scores "
                        "(section 2.6) and Algorithm 4's F1")


#: v1.8's -m numbers: its ``possible_coref_mapping`` (config.py), by combination name.
V18_COREF_MAPPINGS = ("plain", "mention_type", "realis_status", "mention_type+realis_status")


def _offsets(args: argparse.Namespace) -> dict:
    """``offset_fields`` for the library when ``-of`` was given."""
    return {} if args.offset_field is None else {"offset_fields": args.offset_field}


def _offset_fields(text: str) -> tuple[int, int]:
    parts = text.split(",")
    try:
        begin, end = (int(x) for x in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not two column numbers like 2,3") from None
    if begin < 0 or end < 0:
        raise argparse.ArgumentTypeError(f"column numbers start at 0, not {text}")
    return begin, end


def _credit(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"a partial credit must be in [0, 1), not {text}")
    return value


def run_nugget(args: argparse.Namespace) -> int:
    """The command (``-o FILE``, v1.8's output file, is the shared option of every command:
    :func:`exactalign.cli.main` writes standard output to FILE when the run succeeds)."""
    from ..core.errors import InputError

    if isinstance(args.coref, str):  # v1.8's -c PREFIX
        if args.coref_conll is not None and args.coref_conll != args.coref:
            raise InputError(f"-c {args.coref} and --coref-conll {args.coref_conll} name two "
                             "prefixes")
        args.coref_conll, args.coref = args.coref, True
    if args.coref_mapping_index is not None:
        name = V18_COREF_MAPPINGS[args.coref_mapping_index]
        if args.coref_mapping not in (None, name):
            raise InputError(f"-m {args.coref_mapping_index} ({name}) and --coref-mapping "
                             f"{args.coref_mapping} disagree")
        args.coref_mapping = name
    return _run_nugget(args)


def _run_nugget(args: argparse.Namespace) -> int:
    from ..core.errors import InputError
    from ..metrics import nugget
    from .common import solve_options

    mappings = list(nugget.MAPPINGS) if args.mapping == "all" else [args.mapping]
    if not args.coref and (args.coref_threshold != 1.0 or args.coref_conll is not None
                           or (args.coref_mapping is not None and args.sequencing is None)):
        raise InputError("--coref-mapping, --coref-threshold and --coref-conll apply with "
                         "-c/--coref only (--coref-mapping/-m also with -a/--sequencing)")
    if args.coref_conll is not None and args.mapping == "all":
        raise InputError("--coref-conll writes the files of one mapping, not of --mapping all")
    _check_coref_options(args)
    _check_paths(args)
    _check_v18_outputs(args)
    if args.pilot_study is not None:
        return _run_pilot_study(args)
    if args.scheme == "muc":
        if args.type_credit is not None or args.coref:
            raise InputError("--type-credit and -c/--coref apply to --scheme dice only")
        return _run_muc(args, mappings)
    if args.mapping == "all":
        mappings += list(nugget.SPAN_FIRST)
    if args.optional_value or args.partial_credit != "half":
        raise InputError("--optional-value and --partial-credit apply to --scheme muc only")
    opts = solve_options(args) if args.exact_method == "ilp" else {}
    credits = None
    if args.type_credit is not None:
        credits = {0: nugget.LevelCredit(levels=(0.0, args.type_credit),
                                         families=nugget.KBP_EVENT_FAMILIES)}
    gold, system, tables, whitelist = nugget.read_pair(
        args.gold, args.system, token_dir=args.token_dir, token_ext=args.token_ext,
        type_whitelist=args.type_whitelist, strict=args.strict, **_offsets(args))
    if args.doc_id is not None:
        gold, system, tables = _one_document(args.doc_id, gold, system, tables)
    ev = nugget.evaluate(gold, system, token_tables=tables, type_whitelist=whitelist,
                         mappings=mappings, compat=args.compat, strict=args.strict,
                         exact_method=args.exact_method, solve_options=opts,
                         attribute_credits=credits, coref=args.coref,
                         coref_combination=args.coref_mapping,
                         coref_threshold=args.coref_threshold)
    _check_whitelist(args, ev)
    seq = _sequencing(args, ev, gold, system, whitelist)
    for w in ev.warnings:
        print(f"exactalign: warning: {w}", file=sys.stderr)
    if args.coref_conll is not None:
        _write_conll(args.coref_conll, ev.scores[mappings[0]].coref)
    if args.comparison_output is not None:
        _write_text(args.comparison_output,
                    format_v18_comparison(ev.scores[mappings[0]], gold, system, whitelist))
    if isinstance(args.sequencing, str):
        from ..metrics import sequencing

        sequencing.write_v18_directory(args.sequencing, seq[mappings[0]])
    if args.json:
        from .common import print_json

        doc = to_json(ev)
        for m, entry in doc["mappings"].items():
            entry["sequencing"] = sequencing_to_json(seq[m]) if seq else None
        print_json(doc)
        return 0
    if len(mappings) == 1:
        sys.stdout.write(_report(ev.scores[mappings[0]], args.compat, seq.get(mappings[0])))
        return 0
    for m in mappings:
        sys.stdout.write(f"######## mapping: {m} ########\n")
        sys.stdout.write(_report(ev.scores[m], args.compat, seq.get(m)))
        sys.stdout.write("\n")
    if "exact" in ev.scores:
        sys.stdout.write(format_gaps(ev))
    if args.coref:
        sys.stdout.write(format_coref_by_mapping(ev))
    return 0


def _write_conll(prefix: str, c) -> None:
    from ..metrics import nugget

    for suffix, text in zip(("_gold.conll", "_sys.conll"), nugget.format_v18_conll(c.documents),
                            strict=True):
        with open(prefix + suffix, "w", encoding="utf-8", errors="surrogateescape",
                  newline="\n") as f:
            f.write(text)


def _check_coref_options(args: argparse.Namespace) -> None:
    from ..core.errors import InputError
    from ..io.tbf import DEFAULT_ATTRIBUTES
    from ..metrics import nugget

    names = [nugget.combination_name(c, DEFAULT_ATTRIBUTES)
             for c in nugget.attribute_combinations(len(DEFAULT_ATTRIBUTES))]
    if args.coref_mapping is not None and args.coref_mapping not in names:
        raise InputError(f"--coref-mapping {args.coref_mapping!r} is not one of "
                         + ", ".join(names))
    if not 0.0 < args.coref_threshold <= 1.0:
        raise InputError(f"--coref-threshold must be in (0, 1], not {args.coref_threshold}")


def _run_pilot_study(args: argparse.Namespace) -> int:
    """``--pilot-study``: the pilot study's own scores (:func:`nugget.pilot_study`)."""
    from ..core.errors import InputError
    from ..metrics import nugget
    from .common import print_json

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
                                  **_offsets(args),
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


def _check_paths(args: argparse.Namespace) -> None:
    """A token directory that is a file: one line naming it (v1.8 falls back to the current
    directory; a missing one is refused by :func:`~exactalign.metrics.nugget.evaluate_files`)."""
    from pathlib import Path

    from ..core.errors import InputError

    if args.token_dir is not None and Path(args.token_dir).exists() \
            and not Path(args.token_dir).is_dir():
        raise InputError("not a directory (-t names the directory of the token tables "
                         f"<doc id>{args.token_ext})", path=args.token_dir)


def _check_v18_outputs(args: argparse.Namespace) -> None:
    """-a, -nv, -d and -dn go with v1.8's scores (the dice scheme), -d with one mapping."""
    from ..core.errors import InputError

    if args.no_script_validation and args.sequencing is None:
        raise InputError("-nv/--no-script-validation applies with -a/--sequencing only")
    given = [name for name, on in (("-a/--sequencing", args.sequencing is not None),
                                   ("-d/--comparison-output", args.comparison_output is not None),
                                   ("-dn/--doc-id", args.doc_id is not None)) if on]
    if given and (args.pilot_study is not None or args.scheme == "muc"):
        raise InputError(f"{', '.join(given)} apply to v1.8's scores (--scheme dice) only, not "
                         "to --pilot-study or --scheme muc")
    if args.comparison_output is not None and args.mapping == "all":
        raise InputError("-d/--comparison-output writes the comparison of one mapping, not of "
                         "--mapping all")
    if isinstance(args.sequencing, str) and args.mapping == "all":
        raise InputError("-a DIR writes the TimeML files of one mapping, not of --mapping all "
                         "(-a without DIR scores every mapping)")


def _one_document(doc_id: str, gold, system, tables):
    """v1.8's ``-dn``: the gold and system files reduced to ``doc_id`` (a document missing
    from the gold is an error -- v1.8 crashes --; one missing from the system scores empty)."""
    from dataclasses import replace

    from ..core.errors import InputError

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
    from ..metrics import nugget, sequencing

    out = {}
    for m, sc in ev.scores.items():
        combination = nugget.resolve_coref_combination(args.coref_mapping, sc.combinations)
        out[m] = sequencing.sequencing_evaluate(gold, system, sc, combination,
                                                type_whitelist=whitelist,
                                                validate=not args.no_script_validation)
    first = next(iter(out.values()))
    if args.strict and first.warnings:
        from ..core.errors import InputError

        w = first.warnings[0]
        raise InputError(w.message + " (an error under strict checking)", path=w.path,
                         line=w.line)
    ev.warnings.extend(first.warnings)
    return out


def _write_text(path: str, text: str) -> None:
    import os

    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="\n") as f:
        f.write(text)


def format_v18_comparison(score, gold, system, whitelist) -> str:
    """v1.8's ``-d`` file: per document, ``#BeginOfDocument <id>``, one line per gold mention
    (run id, gold id, span as v1.8 lists it -- every character, or the token ids as written --,
    canonical attributes, text, ``|``, the same for the system mention the span mapping gives
    it and the pair's Dice, or ``-``), one per unmapped system mention, with ``-c`` the gold and
    system clusters (``@coref``), then ``#EndOfDocument `` (sic)."""
    from ..io.tbf import canonical
    from ..metrics import nugget

    keep = nugget.type_filter(whitelist)
    run = system.run_id

    def info(m):
        if m.mode == "char":
            span = ",".join(str(c) for b, e in m.pieces for c in range(b, e))
        else:
            span = m.span
        return "\t".join([m.mention_id, span, *(canonical(a) for a in m.attributes), m.text])

    def clusters(doc, mentions, side):
        text = {m.mention_id: m.text for m in mentions}
        kept = None if keep is None else set(text)
        lines = []
        for r in (doc.relations if doc is not None else []):
            if r.name != "Coreference":
                continue
            args = r.arguments if kept is None else tuple(a for a in r.arguments if a in kept)
            if kept is not None and len(args) < 2:
                continue
            lines.append(f"@coref\t{side}\t"
                         + ",".join(f"{a}:{text[a].replace(',', '')}" for a in args) + "\n")
        return lines

    out = []
    for d in score.documents:
        g_doc, s_doc = gold.documents[d.doc_id], system.documents.get(d.doc_id)
        g = [m for m in g_doc.mentions if keep is None or m.type in keep]
        s = [] if s_doc is None else [m for m in s_doc.mentions if keep is None or m.type in keep]
        al, w = d.pair_weights(nugget.PLAIN)
        to_sys = {int(gi): (int(si), float(x)) for (gi, si), x in zip(al.tolist(), w.tolist(),
                                                                      strict=True)}
        out.append(f"#BeginOfDocument {d.doc_id}\n")
        for gi, m in enumerate(g):
            if gi in to_sys:
                si, x = to_sys[gi]
                out.append(f"{run}\t{info(m)}\t|\t{info(s[si])}\t{x:.2f}\n")
            else:
                out.append(f"{run}\t{info(m)}\t|\t-\t-\n")
        mapped = {si for si, _ in to_sys.values()}
        out += [f"{run}\t-\t|\t{info(m)}\t-\n" for si, m in enumerate(s) if si not in mapped]
        if score.coref is not None:
            out += clusters(g_doc, g, "gold") + clusters(s_doc, s, "system")
        out.append("#EndOfDocument \n")
    return "".join(out)


def sequencing_to_json(sc) -> dict:
    """``-a``'s scores of one mapping: ``combination`` (the mapping's attribute combination
    that places system mentions on gold ones), ``types[type]`` for Subevent, After and All
    (``precision``, ``recall``, ``f1`` as fractions, with the summed ``counts``
    ``prec_matched``, ``system_links``, ``rec_credit``, ``gold_links``, and ``v18`` -- the
    strings v1.8 prints for P, R and F1) and ``documents`` (a list of ``{"id", "types": {type: counts}}``, the
    toolkit's counts of that document:
    ``prec_matched``, ``system_links``, ``rec_matched``, ``implicit_matched``,
    ``common_entities``, ``weight``, ``rec_credit``, ``gold_links``)."""
    from ..metrics import sequencing
    from .common import prf

    types = {}
    for t in sequencing.EVAL_TYPES:
        p, r, f = sc.scores(t)
        types[t] = {**prf(r, p, f, dict(sc.totals(t))),
                    "v18": {"precision": sequencing.py2_percent(p),
                            "recall": sequencing.py2_percent(r),
                            "f1": sequencing.py2_percent(f)}}
    return {"combination": sc.combination, "types": types,
            "documents": [{"id": d.doc_id, "types": {t: c.to_dict() for t, c in d.counts.items()}}
                          for d in sc.documents]}


def _check_whitelist(args: argparse.Namespace, ev) -> None:
    """Warn (an error with ``--strict``) when the type white list keeps no gold and no system
    mention -- a file of blank lines, of other types, or not a type list at all: every score is
    then 0, which v1.8 reports without a word."""
    from ..core.errors import InputError
    from ..io.tbf import TbfWarning

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


def _report(score, compat: bool, seq=None) -> str:
    """v1.8's report (with ``seq``, its event sequencing section); without ``--compat``, the
    coreference details follow it."""
    from ..metrics import nugget

    text = nugget.format_v18(score)
    if seq is not None:
        from ..metrics import sequencing

        text += sequencing.format_v18_sequencing(seq)
    if score.coref is not None and not compat:
        text += nugget.format_coref_details(score.coref)
    return text


def _prf(x, f1: float | None = None) -> dict:
    from .common import prf

    if isinstance(x, dict):  # aggregation.macro: v1.8's macro F1 is the F1 of the means
        return prf(x["recall"], x["precision"], x["f1_of_means"])
    return prf(x.recall, x.precision, x.f1 if f1 is None else f1)


def _name(mapping: str, combination: str) -> str:
    """The name of a (mapping, attribute combination) score in ``overall``, ``solves`` and the
    document rows: ``MAPPING/COMBINATION``, grouped as the text report groups them."""
    return f"{mapping}/{combination}"


def _rows(scores: dict) -> list:
    """The documents of every mapping, by document: ``[(doc_id, {mapping: document})]`` in
    the gold's order (every mapping scores the same documents)."""
    rows: dict = {}
    for m, sc in scores.items():
        for d in sc.documents:
            rows.setdefault(d.doc_id, {})[m] = d
    return list(rows.items())


def to_json(ev) -> dict:
    """The ``--json`` object (``exactalign/output.schema.json``). Stable keys: ``gold``,
    ``system``, ``mode``, ``scheme`` (``"dice"``; see :func:`muc_to_json` for ``muc``),
    ``attribute_credits`` (attribute name -> ``{levels, separators, families}`` of the
    hierarchical partial credit used instead of equality; ``{}``: v1.8's equality),
    ``attributes``, ``combinations``, ``compat``, ``warnings`` (strings ``file:line:
    message``), and

    * ``overall``: ``MAPPING/COMBINATION`` -> the micro P/R/F over the valid documents (v1.8's
      headline), with its counts (``recall_num`` = ``precision_num`` = TP, ``recall_den`` =
      gold mentions, ``precision_den`` = system mentions);
    * ``solves``: ``MAPPING/COMBINATION`` -> the corpus solve (every document's
      :meth:`Result.to_dict` combined: worst status, summed objectives = TP);
    * ``documents``: a list, in gold order, of ``{"id", "scores", "solves", "n_gold",
      "n_system", "n_system_ids", "valid", "details"}`` -- ``scores`` and ``solves``
      by ``MAPPING/COMBINATION`` as above, ``details`` by the same names: ``tp``, ``fp``,
      ``prf_tp_fp`` (precision over TP + FP) and, when the exact mapping ran, ``exact_tp``,
      ``gap_to_exact`` and ``witness``: where the mapping is below the exact one, the fewest
      (gold, system) mention pairs to remove and add to make it optimal (``{"remove", "add",
      "changes", "gain"}``, pairs as ``[gold mention id, system mention id]``), else ``null``;
    * ``mappings[m]``: ``valid_documents``, ``excluded_system_mentions``, ``macro`` and
      ``micro_tp_fp`` (combination -> P/R/F; the macro F1 is v1.8's F1 of the mean P and R),
      ``per_type`` (``combination``, ``types[type]``: P/R/F with counts ``tp``, ``n_gold``,
      ``n_system``), ``coreference`` (:func:`coref_to_json` with ``-c``, else ``null``) and,
      added by the CLI, ``sequencing`` (:func:`sequencing_to_json` with ``-a``, else
      ``null``);
    * ``vs_exact[heuristic][combination]``: ``tp``, ``exact_tp``, ``shortfall``,
      ``documents_with_gap``, ``max_document_tp_gap``, ``max_document_f1_gap``, ``micro_f1``,
      ``exact_micro_f1``, ``macro_f1``, ``exact_macro_f1`` (``null`` without the exact
      mapping).

    Ratios with a zero denominator are 0, not v1.8's ``nan``."""
    from ..metrics.nugget.scores import GapSummary
    from .common import combined_solve, prf, prf_of

    exact = ev.scores.get("exact")
    overall, solves, mappings = {}, {}, {}
    for m, sc in ev.scores.items():
        for c in sc.combinations:
            overall[_name(m, c)] = prf_of(sc.micro(c))
            results = [d.results[c] for d in sc.documents]
            solves[_name(m, c)] = combined_solve(
                results, results[0].method if results else m)
        mappings[m] = {
            "valid_documents": len(sc.valid_documents),
            "excluded_system_mentions": sc.excluded_system_mentions,
            "macro": {c: _prf(sc.macro(c)) for c in sc.combinations},
            "micro_tp_fp": {c: _prf(sc.micro_tp_fp(c)) for c in sc.combinations},
            "per_type": {"combination": sc.type_combination,
                         "types": {t: prf(ts.prf.recall, ts.prf.precision, ts.prf.f1,
                                          {"tp": ts.tp, "n_gold": ts.n_gold,
                                           "n_system": ts.n_system})
                                   for t, ts in sc.per_type.items()}},
            "coreference": None if sc.coref is None else coref_to_json(sc.coref),
        }
    documents = []
    for doc_id, by_mapping in _rows(ev.scores):
        first = next(iter(by_mapping.values()))
        row = {"id": doc_id, "scores": {}, "solves": {}, "n_gold": first.n_gold,
               "n_system": first.n_system, "n_system_ids": first.n_system_ids,
               "valid": first.valid, "details": {}}
        for m, d in by_mapping.items():
            for c in ev.scores[m].combinations:
                name = _name(m, c)
                row["scores"][name] = prf_of(d.prf(c))
                row["solves"][name] = d.results[c].to_dict()
                detail = {"tp": d.tp(c), "fp": d.fp(c), "prf_tp_fp": _prf(d.prf_tp_fp(c))}
                if exact is not None:
                    x = exact.document(d.doc_id).tp(c)
                    detail["exact_tp"] = x
                    detail["gap_to_exact"] = x - d.tp(c)
                    detail["witness"] = (d.witness(c, x) if m != "exact"
                                         and x - d.tp(c) > GapSummary.TOL else None)
                row["details"][name] = detail
        documents.append(row)
    vs_exact = None
    if exact is not None:
        vs_exact = {}
        for m in ev.scores:
            if m == "exact":
                continue
            vs_exact[m] = {}
            for c, g in ev.gaps(m).items():
                vs_exact[m][c] = {
                    "tp": g.tp, "exact_tp": g.exact_tp, "shortfall": g.exact_tp - g.tp,
                    "documents_with_gap": [d.doc_id for d in g.with_gap],
                    "max_document_tp_gap": g.max_tp_gap, "max_document_f1_gap": g.max_f1_gap,
                    "micro_f1": g.micro_f1, "exact_micro_f1": g.exact_micro_f1,
                    "macro_f1": g.macro_f1, "exact_macro_f1": g.exact_macro_f1,
                }
    credits = {ev.attributes[a]: {"levels": list(lc.levels), "separators": lc.separators,
                                  "families": list(lc.families)}
               for a, lc in ev.attribute_credits.items()}
    return {"gold": ev.gold_path, "system": ev.system_path, "mode": ev.mode, "scheme": "dice",
            "attribute_credits": credits,
            "attributes": list(ev.attributes), "combinations": list(ev.combinations),
            "compat": ev.compat, "warnings": [str(w) for w in ev.warnings],
            "overall": overall, "solves": solves, "documents": documents,
            "mappings": mappings, "vs_exact": vs_exact}


def _metric_json(x) -> dict:
    """A coreference metric: P/R/F (fractions) and its counts (BLANC: of both link kinds)."""
    d = x.to_dict()
    return {**_prf(x, x.f1), **{k: v for k, v in d.items() if k not in ("recall", "precision",
                                                                        "f1")}}


def _documents_list(docs: dict) -> list[dict]:
    """``{doc_id: entry}`` as the output's document rows: ``[{"id": doc_id, **entry}]``."""
    return [{"id": doc_id, **entry} for doc_id, entry in docs.items()]


def coref_to_json(c) -> dict:
    """The coreference evaluation of one mapping: ``combination`` and ``threshold`` of the
    mapping that placed the mentions; ``v18`` (``scores`` -- metric -> the truncated percentage
    v1.8 prints, in its order -- and ``average``, v1.8's average including BLANC); ``metrics``
    (metric -> ``recall``, ``precision``, ``f1`` as fractions, untruncated, with ``counts`` or,
    for BLANC, ``coref`` and ``noncoref`` link counts); ``conll_average`` (CoNLL-2012: MUC, B³,
    CEAFe; a fraction); ``mentions`` (``rows``, ``gold``, ``system``, ``aligned``); ``ceaf``
    (``ceafm``/``ceafe`` -> ``exact``: the corpus solve, ``greedy``: the metric with the greedy
    entity alignment, and ``gap``: :meth:`~exactalign.metrics.coref.CorefScores.ceaf_gap`);
    ``documents`` (a list of ``{"id", "rows", "aligned", "metrics"`` as above, ``"conll_average"}``)."""
    from ..metrics.coref import CEAF_PHI

    docs = {}
    for r, d in zip(c.documents, c.scores.documents, strict=True):
        docs[r.doc_id] = {"rows": len(r.gold), "aligned": r.aligned,
                          "metrics": {m: _metric_json(x) for m, x in d.scores.items()},
                          "conll_average": d.conll}
    ceaf = {}
    for m in CEAF_PHI:
        res = c.scores.ceaf_result(m)
        ceaf[m] = {"exact": None if res is None else res.to_dict(),
                   "greedy": _metric_json(c.greedy.overall[m]), "gap": c.greedy.ceaf_gap(m)}
    return {
        "combination": c.combination, "threshold": c.threshold,
        "v18": {"scores": c.v18_scores(), "average": c.v18_average()},
        "metrics": {m: _metric_json(x) for m, x in c.scores.overall.items()},
        "conll_average": c.conll,
        "mentions": {"rows": sum(len(r.gold) for r in c.documents),
                     "gold": sum(len(r.key.mentions) for r in c.documents),
                     "system": sum(len(r.response.mentions) for r in c.documents),
                     "aligned": sum(r.aligned for r in c.documents)},
        "ceaf": ceaf,
        "documents": _documents_list(docs),
    }


def format_coref_by_mapping(ev) -> str:
    """Coreference under each mention mapping: rows aligned, v1.8's average, the CoNLL-2012
    average and each metric's F1 (percent, untruncated)."""
    from ..metrics.coref import METRICS

    metrics = [m for m in METRICS if m != "lea"]
    header = ["mapping", "aligned", "v1.8 average", "CoNLL-2012", *metrics]
    rows = []
    for m, sc in ev.scores.items():
        c = sc.coref
        rows.append([m, str(sum(r.aligned for r in c.documents)), f"{c.v18_average():.2f}",
                     f"{100 * c.conll:.2f}",
                     *(f"{100 * c.scores.overall[x].f1:.2f}" for x in metrics)])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(x.ljust(w) for x, w in zip(r, widths, strict=True)).rstrip()
             for r in [header, *rows]]
    return "\n=======Coreference by mapping=========\n" + "\n".join(lines) + "\n"


def format_gaps(ev) -> str:
    """The heuristics against the exact mapping, per attribute combination (TP summed over the
    valid documents, F1 in percent)."""
    from ..core.result import worst_status

    exact = ev.scores["exact"]
    statuses = [r.status for d in exact.documents for r in d.results.values()]
    status = worst_status(statuses).value if statuses else "optimal"
    header = ["mapping", "attributes", "TP", "exact TP", "shortfall", "docs with gap",
              "max doc TP gap", "max doc F1 gap", "micro F1", "exact micro F1"]
    rows = []
    for m in ev.scores:
        if m == "exact":
            continue
        for c, g in ev.gaps(m).items():
            rows.append([m, c, f"{g.tp:.4f}", f"{g.exact_tp:.4f}", f"{g.exact_tp - g.tp:.4f}",
                         str(len(g.with_gap)), f"{g.max_tp_gap:.4f}",
                         f"{100 * g.max_f1_gap:.2f}", f"{100 * g.micro_f1:.2f}",
                         f"{100 * g.exact_micro_f1:.2f}"])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(x.ljust(w) for x, w in zip(r, widths, strict=True)).rstrip()
             for r in [header, *rows]]
    return ("=======Mappings vs exact=========\n"
            f"exact mapping: {len(statuses)} solves, worst status {status}\n"
            + "\n".join(lines) + "\n" + _worst_documents(ev))


def _worst_documents(ev) -> str:
    """Per heuristic mapping and combination below the exact one, its document furthest below
    (by TP) and the witness there: how many mention pairs to remove and add to reach an
    optimal mapping (``--json`` has every document's witness)."""
    exact = ev.scores["exact"]
    lines = []
    for m, sc in ev.scores.items():
        if m == "exact":
            continue
        for c, g in ev.gaps(m).items():
            if not g.with_gap:
                continue
            worst = max(g.with_gap, key=lambda d: d.tp_gap)
            w = sc.document(worst.doc_id).witness(c, exact.document(worst.doc_id).tp(c))
            lines.append(f"{m} {c}: worst document {worst.doc_id} (TP -{worst.tp_gap:.4f}): "
                         f"remove {len(w['remove'])} and add {len(w['add'])} mention pair(s) "
                         "to reach the optimum")
    return "".join(ln + "\n" for ln in lines)


# --------------------------------------------------------------------------------------------
# the MUC-style scheme
# --------------------------------------------------------------------------------------------
def _run_muc(args: argparse.Namespace, mappings: list[str]) -> int:
    from ..metrics import nugget

    ev = nugget.evaluate_files(args.gold, args.system, token_dir=args.token_dir,
                               token_ext=args.token_ext, type_whitelist=args.type_whitelist,
                               **_offsets(args), scheme="muc", mappings=mappings, partial=args.partial_credit,
                               optional_values=args.optional_value, strict=args.strict)
    _check_whitelist(args, ev)
    for w in ev.warnings:
        print(f"exactalign: warning: {w}", file=sys.stderr)
    if args.json:
        from .common import print_json

        print_json(muc_to_json(ev))
    else:
        sys.stdout.write(format_muc(ev))
    return 0


def format_muc(ev) -> str:
    """One row per (mapping, combination): corpus COR, PAR, credit, ACT, POS, aligned optional
    gold mentions, P, R and F1 in percent and the status (``optimal`` only for a proven exact
    mapping)."""
    header = ["mapping", "attributes", "COR", "PAR", "credit", "ACT", "POS", "opt", "Prec",
              "Rec", "F1", "status"]
    rows = []
    for m, sc in ev.scores.items():
        for c in sc.combinations:
            t, p = sc.totals(c), sc.micro(c)
            rows.append([m, c, str(t.cor), str(t.par), f"{t.credit:.4f}", str(t.act),
                         str(t.pos), str(t.optional_aligned), f"{100 * p.precision:.2f}",
                         f"{100 * p.recall:.2f}", f"{100 * p.f1:.2f}", sc.status(c)])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(x.ljust(w) for x, w in zip(r, widths, strict=True)).rstrip()
             for r in [header, *rows]]
    return (f"=======MUC-style scores (partial credit: {ev.partial})=========\n"
            + "\n".join(lines) + "\n")


def muc_to_json(ev) -> dict:
    """The ``--json`` object of ``--scheme muc`` (``exactalign/output.schema.json``): ``gold``,
    ``system``, ``mode``, ``scheme`` (``"muc"``), ``partial_credit``, ``attributes``,
    ``combinations``, ``warnings``; ``overall``: ``MAPPING/COMBINATION`` -> P/R/F with the
    corpus counts ``cor``, ``par``, ``credit``, ``act``, ``pos``, ``optional_aligned``;
    ``documents``: a list of ``{"id", "scores"}``, the same per document; ``mappings[m]
    [combination]``: ``status`` (``optimal`` only for a proven exact mapping) and, for the
    exact mapping, ``bound`` and ``iterations`` of Dinkelbach's method (no solver certificate:
    no ``solves``)."""
    from .common import prf

    def counts(t):
        return {"cor": t.cor, "par": t.par, "credit": t.credit, "act": t.act, "pos": t.pos,
                "optional_aligned": t.optional_aligned}

    overall, mappings = {}, {}
    for m, sc in ev.scores.items():
        mappings[m] = {}
        for c in sc.combinations:
            p = sc.micro(c)
            overall[_name(m, c)] = prf(p.recall, p.precision, p.f1, counts(sc.totals(c)))
            entry = {"status": sc.status(c)}
            r = sc.ratio.get(c)
            if r is not None:
                entry.update(bound=r.bound, iterations=r.iterations)
            mappings[m][c] = entry
    documents = []
    for doc_id, by_mapping in _rows(ev.scores):
        documents.append({"id": doc_id, "scores": {
            _name(m, c): prf(d.counts[c].prf.recall, d.counts[c].prf.precision,
                             d.counts[c].prf.f1, counts(d.counts[c]))
            for m, d in by_mapping.items() for c in ev.scores[m].combinations}})
    return {"gold": ev.gold_path, "system": ev.system_path, "mode": ev.mode, "scheme": "muc",
            "partial_credit": ev.partial, "attributes": list(ev.attributes),
            "combinations": list(ev.combinations), "warnings": [str(w) for w in ev.warnings],
            "overall": overall, "documents": documents, "mappings": mappings}
