"""The ``exactalign`` command.

Each sub-command is a :class:`Command` in :data:`COMMANDS`: a name, a one-line help, a function
that adds its own arguments to its parser and a function that runs it and returns the exit code.
Adding one (``nugget``, ``coref``, ...) is two functions and one line in :data:`COMMANDS`; the
shared options (``--json`` on every command; ``--backend``, ``--time-limit`` and ``--seed`` on
the commands where they act, :attr:`Command.shared`) come from one parent parser.

Conventions every sub-command keeps:

* ``--json`` prints one JSON object with stable keys (``exactalign/output.schema.json``):
  every solve is ``Result.to_dict()`` (``status``, ``objective``, ``bound``, ``gap``, ...),
  the command's certificates under ``solves`` (name -> solve); every P/R/F is an object built
  by :func:`prf` (``precision``, ``recall``, ``f1``, ``counts``); the corpus scores go under
  ``overall`` (score name -> P/R/F), the per-document rows under ``documents`` (a list, each
  row with its ``id`` and its ``scores``, shaped as ``overall``). Text tables print P, R, F1
  in that order.
* Errors are one line on stderr, ``exactalign: error: <file>:<line>: <message>``, exit status 2
  for usage and input errors (including a file that cannot be read), 1 for other exactalign
  errors (a solver failing, a solution failing verification). Only unexpected exceptions show a
  traceback.
* Start-up stays fast: this module imports no numpy, scipy or solver; a sub-command imports what
  it needs when it runs.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable
from typing import NamedTuple

from .. import __version__
from ..core.backend import backend_names
from ..core.deadline import command_budget
from ..core.errors import ExactAlignError, InputError, ModelTooLargeError
from . import coref as coref_cli  # argument parsing only: no numpy at start-up
from . import data as data_cli
from . import drs as drs_cli
from . import ere as ere_cli
from . import grits as grits_cli
from . import monotone as monotone_cli
from . import muc4 as muc4_cli
from . import nugget as nugget_cli
from . import score as score_cli
from . import smatch as smatch_cli
from . import temporal as temporal_cli
from . import umr as umr_cli
from . import validate as validate_cli
from .common import (  # noqa: F401  (used by tests)
    INPUT_PATHS,
    failed_solves,
    fmt,
    input_paths,
    prf,
    print_json,
    solve_options,
    table,
)

PROG = "exactalign"

#: The solvers ``--backend`` offers: the registry's (:mod:`exactalign.core.backend`, numpy-free).
BACKENDS = backend_names()
# The choices below mirror the library (``bipartite.KINDS``, ``bipartite.METHODS``/
# ``HEURISTICS``), which cannot be imported here without numpy; a test pins them together.
BIPARTITE_KINDS = ("1:1", "1:N", "N:1", "N:N")
BIPARTITE_EXACT = ("exact", "ilp", "brute")
BIPARTITE_HEURISTICS = ("greedy", "pilot2015", "ref-order")


# --------------------------------------------------------------------------------------------
# the registry
# --------------------------------------------------------------------------------------------
#: The shared options a command may take besides ``--json``.
SHARED = ("backend", "time-limit", "seed")


class Command(NamedTuple):
    name: str
    help: str  # one line, listed by ``exactalign --help``
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    description: str | None = None  # the sub-command's --help text (default: ``help``)
    shared: tuple[str, ...] = SHARED  # the shared options that act on this command


# --------------------------------------------------------------------------------------------
# helpers shared by sub-commands
# --------------------------------------------------------------------------------------------
class _UsageError(Exception):
    def __init__(self, message: str, prog: str):
        super().__init__(message)
        self.prog = prog


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (and leave the exit to :func:`main`)."""

    def error(self, message):
        raise _UsageError(message, self.prog)


def _non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (value >= 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, not {text!r}")
    return value


def _int_at_least(low: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}, not {value}")
        return value

    return parse


def _shared_options(which: tuple[str, ...] = SHARED) -> argparse.ArgumentParser:
    """The parent parser of a sub-command: ``--json`` and the shared options in ``which``."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("shared options")
    g.add_argument("--json", action="store_true",
                   help="print one JSON object (stable keys) instead of a table")
    g.add_argument("-o", "--output", default=None, metavar="FILE",
                   help="write what would go to standard output to FILE instead; FILE is "
                        "written (atomically) only when the command finishes, so an earlier "
                        "FILE is never left half written or emptied by a failed run; a "
                        "symlink is written through, a FIFO or device directly, an existing "
                        "file keeps its permissions; one of the command's inputs is refused")
    if "backend" in which:
        g.add_argument("--backend", choices=BACKENDS, default="highs",
                       help="solver for ILP methods (default: %(default)s)")
    if "time-limit" in which:
        g.add_argument("--time-limit", type=_non_negative_float, metavar="SECONDS",
                       default=None,
                       help="time budget, in seconds, of the command's exact computations "
                            "together (model building and search included; past it each "
                            "computation reports its incumbent and a valid bound with status "
                            "time_limit) (default: none)")
    if "seed" in which:
        g.add_argument("--seed", type=_int_at_least(0), metavar="N", default=0,
                       help="random seed of solvers and randomised heuristics (default: "
                            "%(default)s)")
    return p


# --------------------------------------------------------------------------------------------
# exactalign bipartite
# --------------------------------------------------------------------------------------------
def _bipartite_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE",
                   help="instance file: text 'ref_index pred_index weight' lines with an "
                        "optional 'n_ref N n_pred M [kind K]' header, or JSON (.json); "
                        "'-' reads standard input")
    p.add_argument("--kind", choices=BIPARTITE_KINDS, default=None,
                   help="matching constraint reference:predicted (default: the file's, "
                        "else 1:1)")
    p.add_argument("--method", action="append", metavar="M",
                   choices=BIPARTITE_EXACT + BIPARTITE_HEURISTICS,
                   help="method to run; repeat for several. Exact: "
                        + ", ".join(BIPARTITE_EXACT) + "; heuristics: "
                        + ", ".join(BIPARTITE_HEURISTICS)
                        + " (default: exact and every heuristic)")
    p.add_argument("--alignment", action="store_true",
                   help="also print each method's alignment (in JSON: an 'alignment' list of "
                        "[ref, pred] pairs per result)")


#: Why every bipartite (and monotone) instance has a solution.
FEASIBLE_MATCHING = "the empty matching is feasible"


def _bipartite_run(args: argparse.Namespace) -> int:
    from ..io.pairs import read_pairs
    from ..problems import bipartite

    inst = read_pairs(args.file, kind=args.kind)
    methods = list(dict.fromkeys(args.method or ("exact", *bipartite.HEURISTICS)))
    results = {m: bipartite.solve(inst, m, **solve_options(args)) for m in methods}
    optimum = next(((m, r.objective) for m, r in results.items()
                    if m in bipartite.EXACT_METHODS and r.proven_optimal), None)
    vs_exact = {}
    if optimum is not None:
        for m, r in results.items():
            if m in bipartite.HEURISTICS:
                short = optimum[1] - r.objective
                vs_exact[m] = {"shortfall": short,
                               "relative": short / optimum[1] if optimum[1] > 0 else 0.0}
    file = "<stdin>" if args.file == "-" else args.file
    if args.json:
        print_json({
            "instance": {"file": file, "n_ref": inst.n_ref, "n_pred": inst.n_pred,
                         "pairs": inst.num_pairs, "kind": inst.kind},
            "solves": {m: r.to_dict(alignment=args.alignment) for m, r in results.items()},
            "vs_exact": None if optimum is None else
            {"method": optimum[0], "optimum": optimum[1], "heuristics": vs_exact},
        })
        return failed_solves(results, file, FEASIBLE_MATCHING)
    print(f"{file}: {inst.n_ref} reference x {inst.n_pred} predicted items, "
          f"{inst.num_pairs} candidate pairs, kind {inst.kind}")
    header = ["method", "status", "objective", "bound", "gap", "time(s)"]
    if vs_exact:
        header.append(f"vs {optimum[0]}")
    rows = []
    for m, r in results.items():
        row = [m, r.status.value, fmt(r.objective), fmt(r.bound), fmt(r.gap, ".3g"),
               f"{r.wall_time:.4f}"]
        if vs_exact:
            v = vs_exact.get(m)
            if v is None:
                row.append("")
            elif v["shortfall"] <= 1e-9 * max(1.0, abs(optimum[1])):
                row.append("optimal")
            else:
                row.append(f"-{fmt(v['shortfall'])} (-{100 * v['relative']:.2f}%)")
        rows.append(row)
    print(table(header, rows))
    if optimum is None and any(m in bipartite.HEURISTICS for m in results):
        print("(no proven optimum among the methods run: heuristics not compared)")
    if args.alignment:
        for m, r in results.items():
            pairs = [] if r.alignment is None else r.alignment.tolist()
            print(f"\nalignment of {m} ({len(pairs)} pairs):")
            if pairs:
                w = inst.weights[inst.pair_index(r.alignment)].tolist()
                print(table(["ref", "pred", "weight"],
                             [[str(a), str(b), fmt(x)] for (a, b), x in
                              zip(pairs, w, strict=True)]))
    return failed_solves(results, file, FEASIBLE_MATCHING)


# --------------------------------------------------------------------------------------------
# exactalign info
# --------------------------------------------------------------------------------------------
#: import name -> distribution name of the packages `info` reports.
INFO_PACKAGES = {"numpy": "numpy", "scipy": "scipy", "highspy": "highspy", "pulp": "PuLP",
                 "penman": "Penman"}


def _info_arguments(p: argparse.ArgumentParser) -> None:
    pass


def _info_run(args: argparse.Namespace) -> int:
    import platform
    from importlib import metadata

    from ..data import resolve_data_dir

    versions = {}
    for name, dist in INFO_PACKAGES.items():
        try:
            versions[name] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[name] = None
    try:
        d = resolve_data_dir()
        data = {"path": None if d.path is None else str(d.path), "source": d.source,
                "available": d.available, "description": d.describe(), "error": None}
    except InputError as e:
        data = {"path": None, "source": None, "available": False, "description": str(e),
                "error": str(e)}
    if args.json:
        print_json({"exactalign": __version__, "python": platform.python_version(),
                    "packages": versions, "data": data})
        return 0
    print(f"exactalign {__version__} (Python {platform.python_version()})")
    for name, v in versions.items():
        print(f"  {name:<8} {v or 'not installed'}")
    print(f"data: {data['description']}")
    return 0


# --------------------------------------------------------------------------------------------
# the list of sub-commands (add new ones here)
# --------------------------------------------------------------------------------------------
COMMANDS: list[Command] = [
    Command("bipartite", "weighted bipartite matching of one instance: exact vs heuristics",
            _bipartite_arguments, _bipartite_run,
            description="Solve one bipartite matching instance with the exact method(s) and "
                        "the heuristics, and compare. --time-limit and --backend apply to the "
                        "'ilp' method, --seed to the ILP solver."),
    Command("info", "versions of exactalign and its dependencies, and the data directory",
            _info_arguments, _info_run, shared=()),
    Command("data", "the pilot data: fetch it from its public sources (verified), or its status",
            data_cli.add_data_arguments, data_cli.run_data, shared=(),
            description="fetch: download every pilot file from its public source (the "
                        "repositories and commits of exactalign's registry), check its sha256, "
                        "extract the archived ones and rebuild the derived ones, into the cache "
                        "or --dest (exit 1 when a file could not be had: each one named on "
                        "stderr; files already in place are kept). status: which data directory "
                        "is in use ($EXACTALIGN_DATA, ../shared/pilot, the cache, or synthetic) "
                        "and how many registry files it holds, verified."),
    Command("nugget", "event nuggets: TAC KBP v1.8 scores, heuristic and exact mappings",
            nugget_cli.add_nugget_arguments, nugget_cli.run_nugget),
    Command("coref", "coreference: MUC, B3, CEAF (exact vs greedy), BLANC, LEA of CoNLL files; "
            "CorefUD files as the CorefUD scorer (--format corefud)",
            coref_cli.add_coref_arguments, coref_cli.run_coref),
    Command("muc4", "MUC-4 templates: 1992 scores and GTT metrics, greedy vs exact alignment",
            muc4_cli.add_muc4_arguments, muc4_cli.run_muc4, shared=("backend", "time-limit")),
    Command("ere", "ERE agreement: mention mapping (procedure vs exact) and match categories",
            ere_cli.add_ere_arguments, ere_cli.run_ere),
    Command("monotone", "order-preserving matching of two sequences or DAGs (JSON): exact vs "
            "heuristics", monotone_cli.add_monotone_arguments, monotone_cli.run_monotone),
    Command("timeline", "event timelines of TimeML matched without ids under the order "
            "constraint", monotone_cli.add_timeline_arguments, monotone_cli.run_timeline),
    Command("grits", "table structure: GriTS-Top/Con/Loc, grits-metric's factored 2D-MSS vs "
            "the proven optimum", grits_cli.add_grits_arguments, grits_cli.run_grits,
            description="GriTS of predicted tables against gold ones (PubTabNet HTML, "
                        "PubTabNet JSONL, GriTS cell lists): the factored solution of "
                        "grits-metric 0.7.0 and the exact most similar substructures, proven. "
                        "--backend and --time-limit apply to the exact solves."),
    Command("temporal", "temporal awareness of TimeML (--mode te3: the TempEval-3 score; "
            "default exact); check consistency",
            temporal_cli.add_temporal_arguments, temporal_cli.run_temporal,
            shared=("backend", "time-limit")),
    Command("score", "a declared metric (shipped, or your own TOML/JSON spec) on JSONL "
            "documents: exact vs its greedy twin", score_cli.add_score_arguments,
            score_cli.run_score,
            description="Score JSONL documents with a declared metric (Chen et al. 2023's "
                        "algebra: --list shows the shipped ones, --spec FILE reads yours): "
                        "every matching proven optimal, its greedy twin, and the gap. --seed "
                        "seeds the latent hill-climber, --backend is the solver of --method ilp "
                        "and --time-limit its budget."),
    Command("validate", "a heuristic of yours (module:function) against a declared metric's "
            "certified optimum, with the smallest counterexample", validate_cli.add_validate_arguments,
            validate_cli.run_validate,
            description="Run your aligner against the proven optimum of a declared metric on "
                        "your documents and on documents generated from the declaration; "
                        "exit 1 with the smallest counterexample (a pytest case) when it falls "
                        "short. --seed seeds the generation.",
            shared=("seed",)),
    Command("smatch", "Smatch of two AMR files: proven optimal vs smatch's hill-climbing",
            smatch_cli.add_smatch_arguments, smatch_cli.run_smatch,
            description="Smatch of two AMR files: proven optimal vs smatch's hill-climbing. "
                        "--time-limit is the budget of the whole exact computation (past it, "
                        "pairs left keep their incumbent and a valid bound), --backend the "
                        "solver of its rare MIPs, --seed seeds the hill-climbing and HiGHS."),
    Command("umr", "UMR graphs as AnCast scores them: proven optimal mapping vs AnCast's "
            "anchor-and-broadcast", umr_cli.add_umr_arguments, umr_cli.run_umr),
    Command("drs", "DRS clauses (PMB) as Counter scores them: proven optimal mapping vs "
            "Counter's hill-climbing", drs_cli.add_drs_arguments, drs_cli.run_drs),
]


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every sub-command; with ``only``, of that sub-command alone (a run names
    its sub-command, and building all of them costs about 7 ms of a run's start-up)."""
    parser = _Parser(
        prog=PROG,
        description="Exact (proven-optimal) and heuristic alignments for NLP evaluation "
                    "metrics.",
        epilog="Run 'exactalign COMMAND --help' for a command's options. Exit status: 0 on "
               "success, 2 for usage and input errors, 1 for other errors.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for cmd in COMMANDS:
        if only is not None and cmd.name != only:
            continue
        p = sub.add_parser(cmd.name, help=cmd.help, description=cmd.description or cmd.help,
                           parents=[_shared_options(cmd.shared)])
        cmd.add_arguments(p)
        p.set_defaults(_run=cmd.run)
    return parser


#: Per command, the names its input files go by in the JSON envelope (``inputs``): the
#: reference first, then the system output, whatever the command's own argument names are.
INPUTS = {
    "bipartite": {"instance": "file"},
    "nugget": {"reference": "gold", "system": "system"},
    "coref": {"reference": "key", "system": "response"},
    "muc4": {"reference": "keys", "system": "responses"},
    "ere": {"a": "a", "b": "b"},
    "monotone": {"reference": "a", "system": "b"},
    "timeline": {"reference": "gold", "system": "system"},
    "temporal": {"paths": "paths"},
    "score": {"reference": "reference", "system": "system"},
    "validate": {"reference": "reference", "system": "system"},
    "smatch": {"system": ("f", 0), "reference": ("f", 1)},
    "grits": {"reference": "gold", "system": "pred"},
    "umr": {"reference": "gold", "system": "pred"},
    "drs": {"reference": "gold", "system": "pred"},
    "info": {},
    "data": {},
}


def envelope(args: argparse.Namespace) -> dict:
    """``command``, ``version``, ``inputs`` and ``options`` of a parsed command line: what
    every ``--json`` document starts with."""
    names = INPUTS.get(args.command, {})
    inputs, used = {}, {"command", "json", "_run"}
    for name, dest in names.items():
        if isinstance(dest, tuple):
            value = getattr(args, dest[0], None)
            inputs[name] = None if value is None else value[dest[1]]
            used.add(dest[0])
        else:
            inputs[name] = getattr(args, dest, None)
            used.add(dest)
    command = args.command
    if command == "data":
        command = f"data {args.action}"
        used.add("action")
    if command == "temporal" and inputs.get("paths") and inputs["paths"][0] == "check":
        command, inputs = "temporal check", {"directories": inputs["paths"][1:]}
    elif command == "temporal" and inputs.get("paths"):
        paths = inputs.pop("paths")
        inputs = {"reference": paths[0], "system": paths[1] if len(paths) > 1 else None}
    options = {k: v for k, v in sorted(vars(args).items())
               if k not in used and not k.startswith("_")}
    return {"command": command, "version": __version__, "inputs": inputs,
            "options": options}


def _refuse_an_input(args: argparse.Namespace) -> None:
    """Raise :class:`InputError` when ``-o FILE`` is (through symbolic links too) one of the
    command's input files, or an existing file directly in one of its input directories."""
    out = args.output
    if not os.path.exists(out):
        return
    parent = os.path.dirname(os.path.realpath(out))
    for path in input_paths(args):
        try:
            if os.path.isdir(path):
                if os.path.samefile(parent, path):
                    inside = os.path.join(path, os.path.basename(os.path.realpath(out)))
                    raise InputError(f"-o {out}: would overwrite {inside}, a file of the "
                                     f"input directory {path}; write the output elsewhere")
            elif os.path.samefile(out, path):
                raise InputError(f"-o {out}: would overwrite {path}, an input file of this "
                                 "command (the same file); write the output elsewhere")
        except FileNotFoundError:  # an input that does not exist: the command says so
            continue


def _run_to_file(args: argparse.Namespace) -> int:
    """Run the command with its standard output collected, then write it to ``args.output``.

    A regular file (or a new one) is written atomically (:func:`exactalign.io.atomic.atomic_open`):
    an exception leaves an existing file as it was; a symbolic link is written through (its
    target replaced, the link kept) and an existing file keeps its permission bits. A FIFO or a
    character device (``/dev/null``, ``/dev/stdout``) is no file to replace: it is opened and
    written directly. ``FILE`` may not be one of the command's inputs
    (:data:`INPUT_PATHS`). Exit statuses 0 and 1 are outcomes (a lint that found something),
    so both write."""
    import contextlib
    import io
    import stat

    from ..io.atomic import atomic_open

    _refuse_an_input(args)
    out = os.path.abspath(args.output)
    try:
        mode = os.stat(out).st_mode  # through symbolic links
    except FileNotFoundError:  # a new file (or a link to one)
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise InputError(f"-o {args.output}: is a directory")
    direct = mode is not None and (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode))
    if mode is not None and not direct and not stat.S_ISREG(mode):
        raise InputError(f"-o {args.output}: is neither a regular file, a FIFO nor a character "
                         "device")
    if not direct:
        real = os.path.realpath(out)
        if not os.path.isdir(os.path.dirname(real)):
            raise InputError(f"-o {args.output}: no such directory {os.path.dirname(real)}")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = args._run(args)
    if direct:
        with open(out, "w", encoding="utf-8") as fh:
            fh.write(buf.getvalue())
    else:
        with atomic_open(out, "w") as fh:
            fh.write(buf.getvalue())
    return code


#: The longest error message printed whole: a message quoting a line or value of the input (a
#: token of megabytes, a JSON document on one line) is cut in its middle to this many characters.
MAX_MESSAGE = 1000


def shorten(message: str, limit: int = MAX_MESSAGE) -> str:
    """``message`` when at most ``limit`` characters, else its start and end around a note of
    how many characters were left out (the file and line, at the start, are kept)."""
    if len(message) <= limit:
        return message
    keep = (limit - 40) // 2
    return f"{message[:keep]} ...[{len(message) - 2 * keep} characters]... {message[-keep:]}"


def _error(message: str) -> None:
    print(f"{PROG}: error: {shorten(message)}", file=sys.stderr)


#: The command computes on one core: HiGHS runs with one thread, and nothing it does needs
#: multi-threaded dense linear algebra. numpy's OpenBLAS would start a thread per core at import
#: all the same, and those threads spin: measured here, ``import numpy`` took 0.25 s of CPU for
#: 0.15 s of wall time (0.12 s / 0.12 s on one thread), and a 58-variable Smatch pair 0.45 s of
#: CPU. :func:`entry` sets these to 1 unless the user set them.
ONE_CORE = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")


def entry() -> int:
    """The ``exactalign`` command (its console script and ``python -m exactalign``): the
    variables of :data:`ONE_CORE` default to 1 in this process, then :func:`main`."""
    for name in ONE_CORE:
        os.environ.setdefault(name, "1")
    return main()


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    names = {c.name for c in COMMANDS}
    named = [a for a in argv if a in names]  # the sub-command is the first non-option word
    parser = build_parser(named[0] if named else None)
    try:
        args = parser.parse_args(argv)
    except _UsageError as e:
        _error(f"{e} (see '{e.prog} --help')")
        return 2
    except SystemExit as e:  # --help, --version
        return e.code if isinstance(e.code, int) else 0
    if getattr(args, "_run", None) is None:
        _error("no command given; choose one of " + ", ".join(c.name for c in COMMANDS)
               + f" (see '{PROG} --help')")
        return 2
    from .common import set_envelope

    set_envelope(envelope(args))
    try:
        with command_budget(getattr(args, "time_limit", None)):
            if getattr(args, "output", None) is None:
                return args._run(args)
            return _run_to_file(args)
    except (InputError, ModelTooLargeError) as e:
        _error(str(e))
        return 2
    except ExactAlignError as e:
        _error(str(e))
        return 1
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that the exit's flush does not fail again
        return 1
    except OSError as e:
        _error(f"{e.filename}: {e.strerror}" if e.filename and e.strerror else str(e))
        return 2
    except KeyboardInterrupt:
        _error("interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())
