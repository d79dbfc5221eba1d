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

The package, one module per idea (each imports only modules below it in this list):

* ``exactalign.cli.nugget`` itself -- the command: its arguments, their checks, and which
  scheme runs; the only module of the package imported at start-up (it imports no numpy, the
  command line's start-up rule, and its siblings only when the command runs);
* :mod:`~exactalign.cli.nugget.dice` -- v1.8's scores (``--scheme dice``): one call for the
  report (:func:`exactalign.metrics.nugget_report.report_files`: reading, ``-dn``, ``-a``, the
  text, the JSON and the files of ``-c PREFIX``, ``-d`` and ``-a DIR``), written out;
* :mod:`~exactalign.cli.nugget.muc` -- ``--scheme muc``: the run, its table and its JSON;
* :mod:`~exactalign.cli.nugget.pilot` -- ``--pilot-study``: the run and its JSON;
* :mod:`~exactalign.cli.nugget.report` -- the text of the dice scheme beyond v1.8's report of
  each mapping: coreference by mapping (``--mapping all -c``);
* :mod:`~exactalign.cli.nugget.payload` -- the former home of the ``--json`` document's
  functions (now :mod:`exactalign.metrics.nugget_report`), their names handed on;
* :mod:`~exactalign.cli.nugget.gaps` -- the heuristic mappings against the exact one: the gap
  table and the worst documents' witnesses, from the report;
* :mod:`~exactalign.cli.nugget.inputs` -- what the three runs share about their inputs: ``-of``'s
  keyword arguments, the check of a type white list that keeps nothing (the MUC scheme's).

Every public name of the former single module is importable from ``exactalign.cli.nugget``
itself (the output functions on first use, PEP 562).
"""

from __future__ import annotations

import argparse

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
                        "the wrong subtype earns C (0, or in [1e-5, 1)) of the pair's Dice "
                        "instead of 0 (levels split at '.', '_', ':' or after a TAC KBP family "
                        "prefix such as 'conflict'); default: exact type equality, as v1.8")
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
    from ...io.pairs import MIN_WEIGHT  # the bipartite reader's floor; no numpy

    if 0.0 < value < MIN_WEIGHT:
        raise argparse.ArgumentTypeError(
            f"a nonzero partial credit must be at least {MIN_WEIGHT:g}, not {text}: the pair "
            "weights it scales would be below the solvers' tolerances, and the exact mapping "
            "could not be proven (give 0 for no credit)")
    return value


def run_nugget(args: argparse.Namespace) -> int:
    """The command (``-o FILE``, v1.8's output file, is the shared option of every command:
    :func:`exactalign.cli.main` writes standard output to FILE when the run succeeds)."""
    from ...core.errors import InputError

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
    """The checks of the options together, then the scheme's run: ``--pilot-study``
    (:mod:`~exactalign.cli.nugget.pilot`), ``--scheme muc`` (:mod:`~exactalign.cli.nugget.muc`)
    or v1.8's scores (:mod:`~exactalign.cli.nugget.dice`)."""
    from ...core.errors import InputError
    from ...metrics import nugget

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
        from .pilot import run_pilot_study

        return run_pilot_study(args)
    if args.scheme == "muc":
        if args.type_credit is not None or args.coref:
            raise InputError("--type-credit and -c/--coref apply to --scheme dice only")
        from .muc import run_muc

        return run_muc(args, mappings)
    if args.mapping == "all":
        mappings += list(nugget.SPAN_FIRST)
    if args.optional_value or args.partial_credit != "half":
        raise InputError("--optional-value and --partial-credit apply to --scheme muc only")
    from .dice import run_dice

    return run_dice(args, mappings)


def _check_coref_options(args: argparse.Namespace) -> None:
    from ...core.errors import InputError
    from ...io.tbf import DEFAULT_ATTRIBUTES
    from ...metrics import nugget

    names = [nugget.combination_name(c, DEFAULT_ATTRIBUTES)
             for c in nugget.attribute_combinations(len(DEFAULT_ATTRIBUTES))]
    if args.coref_mapping is not None and args.coref_mapping not in names:
        raise InputError(f"--coref-mapping {args.coref_mapping!r} is not one of "
                         + ", ".join(names))
    if not 0.0 < args.coref_threshold <= 1.0:
        raise InputError(f"--coref-threshold must be in (0, 1], not {args.coref_threshold}")


def _check_paths(args: argparse.Namespace) -> None:
    """A token directory that is a file: one line naming it (v1.8 falls back to the current
    directory; a missing one is refused by :func:`~exactalign.metrics.nugget.evaluate_files`)."""
    from pathlib import Path

    from ...core.errors import InputError

    if args.token_dir is not None and Path(args.token_dir).exists() \
            and not Path(args.token_dir).is_dir():
        raise InputError("not a directory (-t names the directory of the token tables "
                         f"<doc id>{args.token_ext})", path=args.token_dir)


def _check_v18_outputs(args: argparse.Namespace) -> None:
    """-a, -nv, -d and -dn go with v1.8's scores (the dice scheme), -d with one mapping."""
    from ...core.errors import InputError

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
    _check_side_outputs(args)


def _side_outputs(args: argparse.Namespace):
    """``(option, path)`` of every file the run writes besides standard output: -d FILE,
    --coref-conll's (or -c PREFIX's) two CoNLL files, -a DIR's seq.out files."""
    import os

    if args.comparison_output is not None:
        yield "-d/--comparison-output", args.comparison_output
    if args.coref_conll is not None:
        for suffix in ("_gold.conll", "_sys.conll"):
            yield "--coref-conll", args.coref_conll + suffix
    if isinstance(args.sequencing, str):
        from ...metrics.sequencing import EVAL_TYPES

        for t in EVAL_TYPES:
            yield "-a", os.path.join(args.sequencing, t, "seq.out")


def _check_side_outputs(args: argparse.Namespace) -> None:
    """An output file (-d, --coref-conll, -a) that is one of the run's inputs or its -o FILE
    is refused before anything is read (issue 36: ``-d gold.tbf`` replaced the gold file with
    the comparison, exit 0); a -a DIR that exists as a file too."""
    import os

    from ...core.errors import InputError
    from ..common import input_paths

    if isinstance(args.sequencing, str) and os.path.exists(args.sequencing) \
            and not os.path.isdir(args.sequencing):
        raise InputError("-a DIR: not a directory (it names where the TimeML files go)",
                         path=args.sequencing)
    inputs = [p for p in input_paths(args) if os.path.isfile(p)]
    if args.output is not None and os.path.exists(args.output):
        inputs.append(args.output)
    for option, path in _side_outputs(args):
        if not os.path.exists(path):
            continue
        if os.path.isdir(path):
            raise InputError(f"{option} {path}: is a directory")
        for other in inputs:
            if os.path.samefile(path, other):
                what = "the -o FILE" if other == args.output else "an input file"
                raise InputError(f"{option} {path}: would overwrite {other}, {what} of this "
                                 "command; write it elsewhere")


# --------------------------------------------------------------------------------------------
# the output functions, imported on first use (start-up imports this module alone)
# --------------------------------------------------------------------------------------------
#: Public name -> the module of the package that defines it.
_LAZY = {
    "to_json": "payload", "coref_to_json": "payload", "sequencing_to_json": "payload",
    "format_coref_by_mapping": "report", "format_v18_comparison": "report",
    "format_gaps": "gaps", "format_muc": "muc", "muc_to_json": "muc",
    "pilot_study_json": "pilot",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip __getattr__
    return value
