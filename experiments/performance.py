"""Performance: exactalign against each family's peer, side by side in one run, on the pilot data
and on seeded synthetic inputs of growing size (issue 23, "A benchmark a reader can trust").
``make bench-peers`` installs the ``peers`` extra and runs it. A benchmark, not a timed test:
nothing here asserts a time; the invariants are about the scores.

Every run of every tool is a fresh child process started by :mod:`experiments.timing` (the
harness :mod:`experiments.smatch_walltime` uses too): its wall time and its *own* peak resident
memory (``os.wait4`` through a small launcher; see that module), ``warmup`` unrecorded rounds
then ``rounds`` recorded ones, every tool once per round, the order reversed every other round.
A tool that runs past ``timeout_s`` (or past its memory cap) is stopped, recorded as one row
with ``status`` ``timeout`` (``memory``) and not run again on that or any larger input of the
family. Two kinds of timing (column ``timing``):

* ``command`` -- whole-command wall time, as a user runs each tool (interpreter start, imports,
  reading the files, printing): the command-line families;
* ``in-process`` -- library against library (CEAF, sequence matching, latent matching): each
  tool runs in a child of its own (``python -c``, importing only its library), and the
  computation itself -- inputs already built in memory -- is timed inside the child with
  ``time.perf_counter``: ``min_s``/``median_s`` of a second, warm call when the first took
  under a second (else of the first call), ``first_call_s`` the first call (lazy imports
  included); ``process_median_s`` is still the whole child's wall time;
* ``loop`` -- the in-process table (issue 39): metrics called inside a training or tuning loop,
  one call scoring a batch of 1, 10 or 100 documents, each tool through its own Python entry
  point in a child of its own (:func:`experiments.timing.loop_task`), inputs built in the
  API's own form before the clock starts, in CPU time (``time.process_time``): ``prepare_s``
  our one-off set-up of the references (:class:`~exactalign.metrics.smatch.SmatchScorer`,
  :class:`~exactalign.metrics.coref.CorefScorer`, :meth:`Metric.prepare
  <exactalign.declared.metric.Metric.prepare>`; peers have none), ``first_call_s`` the first
  call, ``min_s``/``median_s`` the steady state (the median call after the first, until
  ``loop_min_seconds`` of CPU, at least 3 calls; min and median over the processes).

Every row names what was timed (column ``version``): the distribution and release of a PyPI
tool, the git commit of a peer's own checkout (``modified`` when tracked sources differ) and
the interpreter that ran it; the summary lists them under the table.

Families (column ``family``) and tools (``role`` ``ours``/``peer``):

``smatch-corpus``  every pilot AMR file pair with a reference (without pilot data: one
                   synthetic pair of files); size = triples of both files.
                   ``exactalign smatch --method exact --duplicates keep`` against smatch 1.0.4
                   ``-r 1`` and ``-r 4`` (hill-climbing) and Smatch++ ``-solver ilp`` and
                   ``-solver hillclimber`` (micro, no standardisation: Smatch++ scores its own
                   triples, so its F is not compared).
``smatch-pair``    one AMR pair of ``n`` variables per size (``pair_sizes``): consecutive trees of
                   :func:`experiments.smatch_gap.synthetic_bank` joined under one root against a
                   ``relabel`` perturbation (rate 0.3); the same tools.
``nugget``         ``exactalign nugget`` (``--mapping kbp``: v1.8's greedy mapping, the same
                   number; ``--mapping exact``: the maximum-weight mapping) against EvmEval's
                   ``scorer_v1.8.py`` (Python 2.7; optional) on the first 1, 10, 30 documents of
                   the pilot ``nugget/ace-dev`` pair and on EvmEval's token-based demo
                   (``nugget/evmeval/scoring_demo``, system A, 2 documents); size = documents.
``coref``          ``exactalign coref`` (MUC, B³, CEAFm, CEAFe, BLANC) against the CoNLL
                   reference scorer v8.01 (``scorer.pl all KEY RESPONSE none``; Perl; optional)
                   and against scorch (``scorch KEY.json RESPONSE.json``; Python, the peers
                   extra: the coreference peer that is always there; its JSON input is written
                   untimed) on pilot test cases and synthetic one-document files of growing
                   size (one mention per token); size = key mentions; score = CEAFe F1. scorch
                   adds the response's spurious mentions to the key as singletons, so its score
                   equals v8.01's only without them and is not checked against ours.
``corpus-smatch``  whole commands at corpus scale (issue 39, item 2): ``corpus_smatch_pairs``
                   (100 to 1,500) AMR pairs -- the pilot bamboo STS test file's 1,380 pairs in
                   turn (:func:`smatch_corpus`), else seeded synthetic trees against their
                   ``relabel`` perturbation; the ``smatch-corpus`` tools; size = pairs.
``corpus-nugget``  ``corpus_nugget_docs`` (100 to 1,500) documents: the pilot ACE-2005 dev pair's
                   30 documents in turn, copies renamed ``ID__k`` (:func:`nugget_corpus`), else
                   seeded synthetic documents (:func:`synthetic_tbf`); the ``nugget`` tools.
``corpus-coref``   ``corpus_coref_docs`` (100 to 1,000) synthetic documents of
                   ``corpus_coref_mentions`` key mentions in one CoNLL-2012 file
                   (:func:`coref_corpus`); the ``coref`` tools, scorch on a directory of one
                   JSON file per document (it scores the corpus as the sum over its files).
``corpus-te3``     ``corpus_te3_docs`` (100 to 1,000) TimeML documents: the pilot TE3-Platinum
                   gold and ``sys_ning17_SP+ILP`` files in turn, renamed (:func:`te3_corpus`),
                   else seeded synthetic ones; the ``te3`` tools (the toolkit takes 0.5-0.9 s
                   a document, so it meets its time limit from a few hundred on).
``ceaf``           in-process: declared ``coref-ceafe`` against metametric's ``ceaf_phi4``
                   (score and both self-scores) on synthetic documents; size = key mentions.
``sequence``       in-process: exactalign's sequence DP (``monotone.solve``) against metametric's
                   ``SequenceMatchingMetric`` (its DP) and its ``GraphMatchingMetric`` on the two
                   sequences as chains (its ILP with one monotonicity row per conflicting pair
                   of candidates: the route that took 163 s at n = 50 on the issue's machine),
                   capped at ``sequence_ilp_mem_mb`` (2.5 GB resident at n = 50); size = items
                   a side.
``latent``         in-process: declared ``smatch`` (latent variable matching) against
                   metametric's ``s_match``, memory capped at ``latent_mem_mb`` (its ILP is dense;
                   peak memory grows about as n³); size = variables a side.
``loop-smatch``    in-process: ``SmatchScorer`` (``exact``, and ``hillclimb`` with 4 restarts;
                   duplicates counted as smatch counts them) against smatch's
                   ``get_amr_match`` per pair (``-r 1`` and ``-r 4``, counts summed as
                   ``score_amr_pairs`` sums them) and Smatch++'s ``Smatchpp.process_pair``
                   (hill-climber and ILP) on one-line PENMAN strings: the pilot Little Prince
                   BART/T5 parses against gold, else synthetic trees; size = documents.
``loop-coref``     in-process: ``CorefScorer`` (MUC, B³, CEAFm, CEAFe, BLANC; each CEAF
                   optimum proven by its dual certificate, and once more with
                   ``certify_exact=False``: proven by the algorithm, as scorch's) against scorch's
                   functions (``muc``, ``b_cubed``, ``ceaf_m``, ``ceaf_e``, ``blanc``) on
                   synthetic documents of ``loop_mentions`` key mentions; size = documents;
                   score = mean per-document CEAFe F1.
``loop-declared``  in-process: ``Metric.prepare`` of the declared ``coref-ceafe`` against
                   metametric's ``ceaf_phi4`` (score and both self-scores), the same documents.
``te3``            ``exactalign temporal --mode te3`` against the TempEval-3 toolkit
                   (``TE3-evaluation.py GOLD SYS``, Python 2.7 and Java; optional) on the pilot
                   TE3-Platinum runs; size = documents.

Optional peers are never part of exactalign: each is the user's own checkout, named by an
environment variable, and skipped (one row saying so) when absent: ``EXACTALIGN_EVMEVAL``
(EvmEval, the folder with ``scorer_v1.8.py``), ``EXACTALIGN_CONLL_SCORER``
(reference-coreference-scorers, with ``scorer.pl``), ``EXACTALIGN_TE3_TOOLKIT`` (with
``TE3-evaluation.py``; it calls ``python`` and ``java``, so its runs get a PATH whose ``python``
is Python 2.7); ``EXACTALIGN_PYTHON2`` names Python 2.7 when ``python2.7``/``python2`` is not on
PATH. smatch, Smatch++ and metametric come with the ``peers`` extra.

One row per (family, dataset, tool): ``runs``, ``min_s``/``median_s`` (per ``timing``),
``process_median_s``, ``cpu_median_s`` (the process's CPU time, user plus system, median over
the runs: above ``process_median_s`` only for a tool that ran on more than one core at a time),
``peak_mb`` (the largest over the runs), ``model_nnz`` (``smatch-pair``
and ``latent``: the non-zeros of exactalign's ILP for that pair, to compare memory's growth
with the model's), every run's time (``runs_s``),
``proven`` (the tool's answer is a proven optimum: exactalign's exact paths, and exact peers --
an ILP solved to optimality, the Hungarian algorithm; hill-climbing and greedy mappings: no),
``score`` (F1, or the matched weight for ``sequence``), ``status`` (``ok``, ``timeout``,
``memory``, ``failed``, ``skipped``) and ``note``.

Invariants (:class:`ExperimentError`): exactalign's runs succeed (a timeout is recorded, not an
error); where the tools compute the same number their scores are equal -- exact ``latent``,
``sequence``, ``ceaf`` and ``loop-declared`` against metametric (1e-9), ``loop-coref``'s CEAFe
against scorch (1e-9), CEAFe against the reference scorer (1e-4), ``exactalign nugget
--mapping kbp`` against EvmEval (as printed), te3 against the toolkit (1e-4), and the same at corpus
scale (``corpus-*``); exactalign's proven score is never below a heuristic peer's (smatch -r 1/-r 4, the kbp mapping and EvmEval
against ``--mapping exact``; in ``loop-smatch`` smatch -r 1/-r 4 and our hill-climber), and
every exact in-process call of ours is proven optimal.
"""

from __future__ import annotations

import functools
import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from exactalign.data import resolve_data_dir
from exactalign.data.pilot import amr_pairs
from exactalign.data.recipes import python2  # a Python 2.7 that runs (pyenv shims may not)

from . import plot, timing
from .runner import ExperimentError, git_info, headline_record
from .runner.meta import version_of

NAME = "performance"
DESCRIPTION = ("Speed and peak memory against each family's peer, same machine, same run: "
               "Smatch (corpus and single pairs of growing size), nuggets vs EvmEval, "
               "coreference vs the CoNLL scorer, CEAF, sequence and latent matching vs "
               "metametric, te3 vs the TempEval-3 toolkit.")
DATA_SOURCE = ("pilot data (amr/reference file pairs, nugget/ace-dev and evmeval demo, coref "
               "reference-scorer test cases, temporal/te3-platinum) where present; seeded "
               "synthetic inputs of growing size always")
#: The paths under the data directory this experiment reads (its meta.json records their digest).
DATA_READS = ("amr", "nugget/ace-dev", "nugget/evmeval/scoring_demo",
              "coref/conll-reference-scorer-tests/DataFiles", "temporal/te3-platinum")
SEEDING = ("synthetic inputs from config seed: AMR pairs random.Random(f'{seed}-perf-{n}') over "
           "synthetic_bank(seed); coreference and sequences numpy.random.default_rng([seed, "
           "size]); exactalign's exact paths draw no random numbers; smatch.py reseeds from "
           "system entropy")

#: Not part of ``run --all`` (``make experiments``): a benchmark wants a quiet machine and one
#: process at a time; ``make bench-peers`` runs it alone.
IN_ALL = False

FULL = {
    "seed": 0,
    "rounds": 3,
    "warmup": 1,
    "timeout_s": 120.0,
    "mem_limit_mb": 4096,        # every Python/Perl child (Java runs uncapped)
    "latent_mem_mb": 2048,       # metametric's latent ILP
    "sequence_ilp_mem_mb": 8192,  # metametric's sequence ILP: 2.5 GB resident at n = 50
    "smatch_tools": ["exactalign", "smatch-r1", "smatch-r4", "smatchpp-ilp",
                     "smatchpp-hillclimb"],
    "corpus_files": None,        # None: every pilot reference file
    "synthetic_graphs": 100,
    "pair_sizes": [20, 50, 100, 200, 400, 800, 1000],  # the target: 1,000 in <= 60 s
    "nugget_docs": [1, 10, 30],
    "nugget_demo": True,
    "coref_cases": ["TC-A-1", "TC-B-1", "TC-C-1"],
    "coref_sizes": [100, 300, 1000],
    "ceaf_sizes": [60, 120, 240, 480, 960],
    "sequence_sizes": [10, 20, 50],
    "latent_sizes": [10, 20, 30, 40, 50],
    "te3_runs": ["sys_ning17_SP+ILP"],
    # corpus scale (issue 39): whole commands on hundreds to thousands of documents or pairs
    "corpus_smatch_pairs": [100, 300, 1000, 1500],
    "corpus_nugget_docs": [100, 300, 1000, 1500],
    "corpus_coref_docs": [100, 300, 1000],
    "corpus_coref_mentions": 50,  # key mentions per document (CoNLL-2012 dev: about 56)
    "corpus_te3_docs": [100, 300, 1000],
    # in-process (training loop) table: documents per call, mentions per coreference document
    "loop_docs": [1, 10, 100],
    "loop_families": ["loop-smatch", "loop-coref", "loop-declared"],
    "loop_mentions": 60,
    "loop_min_seconds": 0.5,   # steady state: calls until this much CPU (at least 3 calls)
    "loop_tools": None,        # None: every tool of the in-process families
}

QUICK = {**FULL, "rounds": 3, "warmup": 0, "timeout_s": 60.0,
         "smatch_tools": ["exactalign", "smatch-r1"], "corpus_files": [],
         "pair_sizes": [20], "nugget_docs": [1], "nugget_demo": False,
         "coref_cases": ["TC-A-1"], "coref_sizes": [], "ceaf_sizes": [30],
         "sequence_sizes": [10], "latent_sizes": [8], "te3_runs": [],
         "loop_docs": [2], "loop_min_seconds": 0.05,
         "corpus_smatch_pairs": [], "corpus_nugget_docs": [], "corpus_coref_docs": [],
         "corpus_te3_docs": [],
         "loop_tools": ["exactalign-exact", "smatch-r1", "exactalign", "scorch",
                        "exactalign-declared", "metametric"]}

COLUMNS = ("family", "dataset", "size", "size_unit", "tool", "version", "role", "timing", "runs",
           "min_s", "median_s", "first_call_s", "prepare_s", "to_first_s", "process_median_s",
           "cpu_median_s",
           "peak_mb", "model_nnz", "runs_s", "proven", "score", "status", "note", "error")

FIGURES = ("cost_vs_size.png", "inprocess.png")

#: The in-process (training loop) families: one call scores 1, 10, 100 documents.
LOOP_FAMILIES = ("loop-smatch", "loop-coref", "loop-declared")

#: The corpus-scale families (issue 39): one whole command on 100 to 1,500 documents or pairs.
CORPUS_FAMILIES = ("corpus-smatch", "corpus-nugget", "corpus-coref", "corpus-te3")

FAMILIES = ("smatch-corpus", "smatch-pair", "nugget", "coref", "ceaf", "sequence", "latent",
            "te3") + CORPUS_FAMILIES + LOOP_FAMILIES
COREF_METRICS = ["muc", "bcub", "ceafm", "ceafe", "blanc"]


# --------------------------------------------------------------------------------------------
# the tools
# --------------------------------------------------------------------------------------------
def _exactalign() -> list[str]:
    script = Path(sys.executable).parent / "exactalign"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "exactalign"]




def _peer_dir(var: str, marker: str) -> tuple[Path | None, str]:
    """The checkout named by ``var`` when it holds ``marker``, else ``(None, reason)``."""
    path = os.environ.get(var)
    if not path:
        return None, f"optional peer: set {var} to your checkout"
    if not (Path(path) / marker).is_file():
        return None, f"{var}={path} has no {marker}"
    return Path(path), ""


def _importable(module: str) -> bool:
    from importlib.util import find_spec

    return find_spec(module) is not None


def _tool(name, role, proven, timing_kind="command", *, argv=None, code=None, cwd=None,
          env=None, mem=None, parse=None, skip="", version=None):
    return {"name": name, "role": role, "proven": proven, "timing": timing_kind, "argv": argv,
            "code": code, "cwd": cwd, "env": env, "mem": mem, "parse": parse, "skip": skip,
            "version": version}


# Versions of what was timed (column ``version``): a reader must know which release or commit
# of each peer the ratios are against.
@functools.cache
def _dist(name: str) -> str:
    """``"name X.Y.Z"`` of an installed distribution, ``"name (not installed)"`` otherwise."""
    v = version_of(name)
    return f"{name} {v}" if v else f"{name} (not installed)"


def _output(argv: list[str]) -> str:
    """The first line a command prints (stdout, else stderr: ``python2 --version`` and ``java
    -version`` write there); ``""`` when it cannot run."""
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return ((p.stdout.strip() or p.stderr.strip()).splitlines() or [""])[0]


@functools.cache
def _checkout(path: str) -> str:
    """The git commit of a peer's checkout (12 digits; ``modified`` when tracked files other
    than compiled ``*.pyc`` differ: the TE3 toolkit tracks one that Python 2 rewrites at every
    run), or ``"not a git checkout"``."""
    info = git_info(Path(path), exclude=("*.pyc",))
    if not info["commit"]:
        return "not a git checkout"
    return f"git {info['commit'][:12]}" + (" (modified)" if info["dirty"] else "")


@functools.cache
def _interpreter(kind: str, exe: str) -> str:
    """``"Python 2.7.18"``, ``"Perl v5.36.0"``, ``"Java 17.0.15"`` of an interpreter."""
    if kind == "perl":
        return "Perl " + _output([exe, "-e", "print $^V"])
    if kind == "java":
        m = re.search(r'version "([^"]+)"', _output([exe, "-version"]))
        return "Java " + (m.group(1) if m else "?")
    return _output([exe, "--version"]) or "Python ?"


def ours_version() -> str:
    """``"exactalign X.Y.Z"``: the release timed as ours."""
    return _dist("exactalign")


def smatch_tools(config: dict) -> list[dict]:
    from .smatch_walltime import commands, f_score

    cmds = commands()
    py = sys.executable
    have_pp = _importable("smatchpp")
    no_pp = "" if have_pp else "not installed (the peers extra)"
    smatch_py = cmds["smatch"][1] if cmds["smatch"] else None
    no_sm = "" if smatch_py else "not installed (the peers extra)"
    pp = [py, "-m", "smatchpp", "-score_type", "micro", "-solver"]
    tools = {
        "exactalign": _tool("exactalign", "ours", True, argv=cmds["exactalign"],
                            parse=functools.partial(f_score, "exactalign"), version=ours_version()),
        "smatch-r1": _tool("smatch-r1", "peer", False, argv=[py, smatch_py, "-r", "1", "-f"],
                           parse=functools.partial(f_score, "smatch"), skip=no_sm,
                           version=_dist("smatch")),
        "smatch-r4": _tool("smatch-r4", "peer", False, argv=[py, smatch_py, "-r", "4", "-f"],
                           parse=functools.partial(f_score, "smatch"), skip=no_sm,
                           version=_dist("smatch")),
        "smatchpp-ilp": _tool("smatchpp-ilp", "peer", True, argv=pp + ["ilp", "-a"],
                              parse=functools.partial(f_score, "smatchpp-ilp"),
                              skip=no_pp or ("" if _importable("mip") else "mip not installed"),
                              version=f"{_dist('smatchpp')}, {_dist('mip')}"),
        "smatchpp-hillclimb": _tool("smatchpp-hillclimb", "peer", False,
                                    argv=pp + ["hillclimber", "-a"],
                                    parse=functools.partial(f_score, "smatchpp-ilp"),
                                    skip=no_pp, version=_dist("smatchpp")),
    }
    for t in tools.values():
        t["mem"] = config["mem_limit_mb"]
    return [tools[n] for n in config["smatch_tools"]]


def smatch_argv(tool: dict, test: Path, gold: Path) -> list[str]:
    """The command line of a :func:`smatch_tools` tool on ``test`` and ``gold``."""
    if tool["name"].startswith("smatchpp"):
        return tool["argv"] + [str(test), "-b", str(gold)]
    return tool["argv"] + [str(test), str(gold)]


_NUGGET_PLAIN = re.compile(r"Final Mention Detection Results.*?^\s*plain\s+([0-9.]+)\s+"
                           r"([0-9.]+)\s+([0-9.na]+)", re.S | re.M)


def nugget_f1(stdout: str) -> float | None:
    """The plain micro F1 of the final table (v1.8's layout, which exactalign prints too)."""
    m = _NUGGET_PLAIN.search(stdout)
    if not m or m.group(3) == "nan":
        return None
    return float(m.group(3)) / 100


def nugget_tools(config: dict) -> list[dict]:
    ours = _exactalign() + ["nugget"]
    evm, why = _peer_dir("EXACTALIGN_EVMEVAL", "scorer_v1.8.py")
    py2 = python2()
    argv = None
    if evm and not py2:
        why = "Python 2.7 not found (EXACTALIGN_PYTHON2, python2.7 or python2 on PATH)"
    elif evm:
        argv = [py2, str(evm / "scorer_v1.8.py")]
    mem = config["mem_limit_mb"]
    version = (f"EvmEval {_checkout(str(evm))} (scorer_v1.8.py), {_interpreter('python', py2)}"
               if argv else None)
    return [_tool("exactalign-kbp", "ours", False, argv=ours + ["--mapping", "kbp"],
                  parse=nugget_f1, mem=mem, version=ours_version()),
            _tool("exactalign-exact", "ours", True, argv=ours + ["--mapping", "exact"],
                  parse=nugget_f1, mem=mem, version=ours_version()),
            _tool("evmeval-v1.8", "peer", False, argv=argv, parse=nugget_f1, mem=mem,
                  skip="" if argv else why, version=version)]


def _fraction_f1(rn, rd, pn, pd) -> float:
    r = float(rn) / float(rd) if float(rd) else 0.0
    p = float(pn) / float(pd) if float(pd) else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


_OURS_CEAFE = re.compile(r"^CEAFe\s+\S+\s+\(([0-9.e+-]+) / ([0-9.e+-]+)\)\s+\S+\s+"
                         r"\(([0-9.e+-]+) / ([0-9.e+-]+)\)", re.M)
_PERL_CEAFE = re.compile(r"METRIC ceafe:.*?^Coreference: Recall: \(([0-9.e+-]+) / "
                         r"([0-9.e+-]+)\).*?Precision: \(([0-9.e+-]+) / ([0-9.e+-]+)\)",
                         re.S | re.M)


def coref_ceafe(stdout: str, pattern=_OURS_CEAFE) -> float | None:
    m = pattern.search(stdout)
    return _fraction_f1(*m.groups()) if m else None


_SCORCH_CEAFE = re.compile(r"^CEAF_e:\s+R=\S+\s+P=\S+\s+F\S*=([0-9.e+-]+)", re.M)


def scorch_ceafe(stdout: str) -> float | None:
    """scorch's printed CEAFe F1."""
    m = _SCORCH_CEAFE.search(stdout)
    return float(m.group(1)) if m else None


def coref_tools(config: dict) -> list[dict]:
    scorer, why = _peer_dir("EXACTALIGN_CONLL_SCORER", "scorer.pl")
    perl = shutil.which("perl")
    if scorer and not perl:
        scorer, why = None, "perl not found on PATH"
    mem = config["mem_limit_mb"]
    scorch = Path(sys.executable).parent / "scorch"
    return [_tool("exactalign", "ours", True, argv=_exactalign() + ["coref"], parse=coref_ceafe,
                  mem=mem, version=ours_version()),
            _tool("conll-scorer-v8.01", "peer", True,
                  argv=[perl, str(scorer / "scorer.pl"), "all"] if scorer else None,
                  parse=functools.partial(coref_ceafe, pattern=_PERL_CEAFE), mem=mem,
                  skip=why,
                  version=(f"reference-coreference-scorers {_checkout(str(scorer))} "
                           f"(scorer.pl), {_interpreter('perl', perl)}" if scorer else None)),
            _tool("scorch", "peer", True, argv=[str(scorch)] if scorch.is_file() else None,
                  parse=scorch_ceafe, mem=mem,
                  skip="" if scorch.is_file() else "not installed (the peers extra)",
                  version=_dist("scorch"))]


def scorch_json(path: Path, out: Path) -> None:
    """The one document of a CoNLL file as scorch's input: ``{"type": "clusters", "clusters":
    {entity: [mention, ...]}}``, mentions named ``start-end`` by token."""
    from exactalign.io.conll import read_conll

    doc, = read_conll(path)
    clusters = {str(i): [f"{a}-{b}" for a, b in c] for i, c in enumerate(doc.clusters)}
    out.write_text(json.dumps({"type": "clusters", "clusters": clusters}), encoding="utf-8")


_TE3_F1 = re.compile(r"^overall\s+[0-9.]+\s+[0-9.]+\s+([0-9.]+)", re.M)
_TOOLKIT_F1 = re.compile(r"Temporal Score\s+F1\s+P\s+R\s*\n\s*([0-9.]+)", re.M)


def te3_tools(config: dict, tmp: Path) -> list[dict]:
    kit, why = _peer_dir("EXACTALIGN_TE3_TOOLKIT", "TE3-evaluation.py")
    py2, java = python2(), shutil.which("java")
    env = None
    if kit and not (py2 and java):
        kit, why = None, "the TE3 toolkit needs Python 2.7 and java"
    elif kit:  # the toolkit runs `python` (2.7) and `java` from PATH
        bindir = tmp / "py2bin"
        bindir.mkdir(exist_ok=True)
        if not (bindir / "python").exists():
            (bindir / "python").symlink_to(py2)
        env = timing.child_env({"PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"})

    def parse(stdout):
        m = _TOOLKIT_F1.search(stdout)
        return float(m.group(1)) / 100 if m else None

    return [_tool("exactalign", "ours", True, argv=_exactalign() + ["temporal", "--mode", "te3"],
                  parse=lambda s: (float(m.group(1)) / 100 if (m := _TE3_F1.search(s)) else None),
                  mem=config["mem_limit_mb"], version=ours_version()),
            _tool("te3-toolkit", "peer", False,
                  argv=[py2, "TE3-evaluation.py"] if kit else None, cwd=kit, env=env,
                  parse=parse, skip=why,
                  version=(f"tempeval3_toolkit {_checkout(str(kit))} (TE3-evaluation.py), "
                           f"{_interpreter('python', py2)}, {_interpreter('java', java)}"
                           if kit else None))]


# in-process tasks (timing.python_task): each defines compute() -> {"score", ...}
_CEAF_OURS = """\
from exactalign.declared.library import LIBRARY
metric = LIBRARY["coref-ceafe"]()
gold, pred = {"entities": inputs["gold"]}, {"entities": inputs["pred"]}
def compute():
    r = metric.compute(predictions=[pred], references=[gold])
    return {"score": r.score.f1, "proven": bool(r.proven_optimal)}
"""
_CEAF_METAMETRIC = """\
from metametric.metrics.coref import ceaf_phi4
from metametric.structures.ie import Entity, EntitySet, Mention
def entity_set(d):
    return EntitySet([Entity([Mention(*m) for m in e]) for e in d])
gold, pred = entity_set(inputs["gold"]), entity_set(inputs["pred"])
def compute():  # what metametric's coref suite computes per document: score and self-scores
    sxy = ceaf_phi4.score(pred, gold)
    sxx, syy = ceaf_phi4.score_self(pred), ceaf_phi4.score_self(gold)
    r, p = sxy / syy, sxy / sxx
    return {"score": 2 * p * r / (p + r) if p + r else 0.0}
"""
_SEQ_OURS = """\
import numpy as np
from exactalign.problems import monotone
a, b = np.array(inputs["a"]), np.array(inputs["b"])
def compute():
    W = (a[:, None] == b[None, :]).astype(float)
    r = monotone.solve(monotone.MonotoneInstance.sequences(W))
    return {"score": float(r.objective), "proven": bool(r.proven_optimal)}
"""
_SEQ_METAMETRIC_DP = """\
from metametric.core.matching_metrics import SequenceMatchingMetric
from metametric.core.metric import DiscreteMetric
metric = SequenceMatchingMetric(DiscreteMetric(str), "1:1")
def compute():
    return {"score": float(metric.compute(inputs["a"], inputs["b"])[0])}
"""
_SEQ_METAMETRIC_ILP = """\
from metametric.core.matching_metrics import GraphMatchingMetric
from metametric.core.metric import Metric
class Chain:  # a sequence as a graph: item i -> item i + 1 (nodes (position, label))
    def __init__(self, labels):
        self.items = list(enumerate(labels))
    def nodes(self):
        return self.items
    def successors(self, x):
        return [self.items[x[0] + 1]] if x[0] + 1 < len(self.items) else []
    def predecessors(self, x):
        return [self.items[x[0] - 1]] if x[0] > 0 else []
class Label(Metric):  # equal labels score 1
    def score(self, x, y):
        return float(x[1] == y[1])
    def score_self(self, x):
        return 1.0
metric = GraphMatchingMetric(Label(), "1:1")
a, b = Chain(inputs["a"]), Chain(inputs["b"])
def compute():
    return {"score": float(metric.compute(a, b)[0])}
"""
_LATENT_OURS = """\
from exactalign.declared.library import LIBRARY
metric = LIBRARY["smatch"]()
def compute():
    r = metric.compute(predictions=[inputs["pred"]], references=[inputs["gold"]])
    return {"score": r.score.f1, "proven": bool(r.proven_optimal)}
"""
_LATENT_METAMETRIC = """\
from metametric.core.metric import Variable
from metametric.metrics.semantic_parsing import s_match
from metametric.structures.amr import AMR, Prop
def amr(doc):
    v = set(doc["variables"])
    return AMR([Prop(Variable(s), r, Variable(t) if t in v else t) for r, s, t in doc["triples"]])
gold, pred = amr(inputs["gold"]), amr(inputs["pred"])
def compute():
    return {"score": float(s_match.score(pred, gold))}
"""


def library_tools(family: str, config: dict) -> list[dict]:
    mm = "" if _importable("metametric") else "not installed (the peers extra)"
    mem = config["mem_limit_mb"]
    ours, peer = ours_version(), _dist("metametric")
    if family == "ceaf":
        return [_tool("exactalign-declared", "ours", True, "in-process", code=_CEAF_OURS,
                      mem=mem, version=ours),
                _tool("metametric", "peer", True, "in-process", code=_CEAF_METAMETRIC,
                      mem=mem, skip=mm, version=peer)]
    if family == "sequence":
        return [_tool("exactalign-dp", "ours", True, "in-process", code=_SEQ_OURS, mem=mem,
                      version=ours),
                _tool("metametric-dp", "peer", True, "in-process", code=_SEQ_METAMETRIC_DP,
                      mem=mem, skip=mm, version=peer),
                _tool("metametric-ilp", "peer", True, "in-process", code=_SEQ_METAMETRIC_ILP,
                      mem=config["sequence_ilp_mem_mb"], skip=mm, version=peer)]
    return [_tool("exactalign-declared", "ours", True, "in-process", code=_LATENT_OURS,
                  mem=mem, version=ours),
            _tool("metametric", "peer", True, "in-process", code=_LATENT_METAMETRIC,
                  mem=config["latent_mem_mb"], skip=mm, version=peer)]


# in-process loop tasks (timing.loop_task): each defines prepare() -> state and
# compute(state, n) -> {"score", ...}, scoring the first n documents of the inputs. Inputs are
# built into each API's own form before the clock starts; the score of a call is the corpus F1
# (smatch) or the mean per-document CEAFe F1 (coreference, declared).
_LOOP_SMATCH_OURS = """\
from exactalign.metrics.smatch import SmatchScorer
METHOD = "@METHOD@"
def prepare():  # the dev set's gold graphs, parsed and compiled once
    return SmatchScorer(inputs["gold"], method=METHOD, duplicates="keep", restarts=4)
def compute(scorer, n):
    c = scorer.score(inputs["pred"][:n], indices=list(range(n)))
    return {"score": c.scores(METHOD).f1,
            "proven": all(p.result(METHOD).proven_optimal for p in c.pairs)}
"""
_LOOP_SMATCH_PEER = """\
import smatch
smatch.iteration_num = @RESTARTS@ + 1  # smatch.py -r R sets R + 1
def prepare():
    return None
def compute(_, n):  # score_amr_pairs's loop: get_amr_match per pair, counts summed
    M = T = G = 0
    for test, gold in zip(inputs["pred"][:n], inputs["gold"][:n]):
        m, t, g = smatch.get_amr_match(test, gold)
        smatch.match_triple_dict.clear()
        M, T, G = M + m, T + t, G + g
    return {"score": smatch.compute_f(M, T, G)[2]}
"""
_LOOP_SMATCHPP = """\
from smatchpp import Smatchpp, solvers
def prepare():
    return Smatchpp(alignmentsolver=solvers.get_solver("@SOLVER@"))
def compute(scorer, n):  # process_pair per pair, its (match, match, test, gold) summed
    M = T = G = 0.0
    for test, gold in zip(inputs["pred"][:n], inputs["gold"][:n]):
        match = scorer.process_pair(test, gold)[0]["main"]
        M, T, G = M + float(match[0]), T + float(match[2]), G + float(match[3])
    return {"score": 2 * M / (T + G) if T + G else 0.0}
"""
_LOOP_COREF_OURS = """\
from exactalign.metrics.coref import CorefScorer
keys = [[[tuple(m) for m in c] for c in doc] for doc in inputs["keys"]]
responses = [[[tuple(m) for m in c] for c in doc] for doc in inputs["responses"]]
METRICS = ("muc", "bcub", "ceafm", "ceafe", "blanc")  # scorch's set
def prepare():
    return CorefScorer(keys, METRICS, certify_exact=@CERTIFY@)
def compute(scorer, n):
    s = scorer.score(responses[:n], indices=list(range(n)))
    return {"score": sum(d.scores["ceafe"].f1 for d in s.documents) / n,
            "proven": all(d.ceaf[m].proven_optimal for d in s.documents
                          for m in ("ceafm", "ceafe"))}
"""
_LOOP_COREF_SCORCH = """\
import scorch.scores as sc
keys = [[set(map(tuple, c)) for c in doc] for doc in inputs["keys"]]
responses = [[set(map(tuple, c)) for c in doc] for doc in inputs["responses"]]
def prepare():
    return None
def compute(_, n):  # what scorch's main computes per document, less its conll2012 average
    f = 0.0
    for k, r in zip(keys[:n], responses[:n]):
        sc.muc(k, r)
        sc.b_cubed(k, r)
        sc.ceaf_m(k, r)
        f += sc.ceaf_e(k, r)[2]
        sc.blanc(k, r)
    return {"score": f / n}
"""
_LOOP_DECLARED_OURS = """\
from exactalign.declared.library import LIBRARY
metric = LIBRARY["coref-ceafe"]()
gold = [{"entities": doc} for doc in inputs["keys"]]
pred = [{"entities": doc} for doc in inputs["responses"]]
def prepare():
    return metric.prepare(gold)
def compute(prepared, n):
    r = prepared.compute(predictions=pred[:n], indices=list(range(n)))
    return {"score": sum(d.prf.f1 for d in r.documents) / n, "proven": r.proven_optimal}
"""
_LOOP_DECLARED_METAMETRIC = """\
from metametric.metrics.coref import ceaf_phi4
from metametric.structures.ie import Entity, EntitySet, Mention
def entity_set(doc):
    return EntitySet([Entity([Mention(*m) for m in e]) for e in doc])
gold = [entity_set(doc) for doc in inputs["keys"]]
pred = [entity_set(doc) for doc in inputs["responses"]]
def prepare():
    return None
def compute(_, n):  # per document: score and both self-scores, as its coref suite computes
    f = 0.0
    for x, y in zip(pred[:n], gold[:n]):
        sxy = ceaf_phi4.score(x, y)
        sxx, syy = ceaf_phi4.score_self(x), ceaf_phi4.score_self(y)
        r, p = sxy / syy, sxy / sxx
        f += 2 * p * r / (p + r) if p + r else 0.0
    return {"score": f / n}
"""


def loop_tools(family: str, config: dict) -> list[dict]:
    """The tools of an in-process family (timing ``loop``): ours, then each peer's own Python
    entry point (those named in ``loop_tools`` when it is not None)."""
    keep = config.get("loop_tools")
    return [t for t in _loop_tools(family, config) if keep is None or t["name"] in keep]


def _loop_tools(family: str, config: dict) -> list[dict]:
    mem, ours = config["mem_limit_mb"], ours_version()

    def tool(name, role, proven, code, skip="", version=ours):
        return _tool(name, role, proven, "loop", code=code, mem=mem, skip=skip,
                     version=version)

    missing = "not installed (the peers extra)"
    if family == "loop-smatch":
        pp = "" if _importable("smatchpp") else missing
        return [tool("exactalign-exact", "ours", True,
                     _LOOP_SMATCH_OURS.replace("@METHOD@", "exact")),
                tool("exactalign-hillclimb", "ours", False,
                     _LOOP_SMATCH_OURS.replace("@METHOD@", "hillclimb")),
                tool("smatch-r1", "peer", False, _LOOP_SMATCH_PEER.replace("@RESTARTS@", "1"),
                     "" if _importable("smatch") else missing, _dist("smatch")),
                tool("smatch-r4", "peer", False, _LOOP_SMATCH_PEER.replace("@RESTARTS@", "4"),
                     "" if _importable("smatch") else missing, _dist("smatch")),
                tool("smatchpp-hillclimb", "peer", False,
                     _LOOP_SMATCHPP.replace("@SOLVER@", "hillclimber"), pp, _dist("smatchpp")),
                tool("smatchpp-ilp", "peer", True, _LOOP_SMATCHPP.replace("@SOLVER@", "ilp"),
                     pp or ("" if _importable("mip") else "mip not installed"),
                     f"{_dist('smatchpp')}, {_dist('mip')}")]
    if family == "loop-coref":
        return [tool("exactalign", "ours", True, _LOOP_COREF_OURS.replace("@CERTIFY@", "True")),
                # the same, each CEAF optimum proven by the algorithm (as scorch's) instead of
                # a dual certificate: what the certificate costs
                tool("exactalign-no-certificate", "ours", True,
                     _LOOP_COREF_OURS.replace("@CERTIFY@", "False")),
                tool("scorch", "peer", True, _LOOP_COREF_SCORCH,
                     "" if _importable("scorch") else missing, _dist("scorch"))]
    return [tool("exactalign-declared", "ours", True, _LOOP_DECLARED_OURS),
            tool("metametric", "peer", True, _LOOP_DECLARED_METAMETRIC,
                 "" if _importable("metametric") else missing, _dist("metametric"))]


def amr_lines(path: Path) -> list[str]:
    """The graphs of an AMR file as one-line strings, as smatch's ``generate_amr_lines``
    builds them (comment lines dropped, lines stripped and joined by a space)."""
    out = []
    for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
        lines = [ln.strip() for ln in block.splitlines()
                 if ln.strip() and not ln.lstrip().startswith("#")]
        if lines:
            out.append(" ".join(lines))
    return out


def loop_inputs(family: str, config: dict) -> tuple[dict, str]:
    """The documents of an in-process family (the largest batch; a unit scores its first
    ``n``) and where they come from. ``loop-smatch``: the pilot Little Prince BART/T5 parses
    against their gold (``lp_bart_t5_vs_gold``, the first pairs in file order), else
    synthetic trees (:func:`~experiments.smatch_gap.synthetic_bank`) against their ``relabel``
    perturbation (rate 0.3); the coreference families: seeded synthetic documents of
    ``loop_mentions`` key mentions (:func:`coref_clusters`, one seed per document)."""
    n, seed = max(config["loop_docs"]), config["seed"]
    if family == "loop-smatch":
        data = resolve_data_dir()
        if data.available:
            pair = next((p for p in amr_pairs(data.require("amr"), ["lp_bart_t5_vs_gold"])),
                        None)
            if pair is not None:
                return ({"pred": amr_lines(pair.test)[:n], "gold": amr_lines(pair.gold)[:n]},
                        "lp_bart_t5_vs_gold")
        from .smatch_gap import SYNTHETIC_CONCEPTS, SYNTHETIC_ROLES, perturb, synthetic_bank
        from .smatch_walltime import amr_text

        bank = synthetic_bank(n, seed)
        rng = random.Random(f"{seed}-perf-loop")
        pred = [perturb(g, "relabel", 0.3, rng, list(SYNTHETIC_CONCEPTS),
                        list(SYNTHETIC_ROLES)) for g in bank]
        one_line = [" ".join(t.split()) for t in amr_text(bank).strip().split("\n\n")]
        pred_line = [" ".join(t.split()) for t in amr_text(pred).strip().split("\n\n")]
        return {"pred": pred_line, "gold": one_line}, "synthetic"
    keys, responses = [], []
    for d in range(n):
        k, r = coref_clusters(config["loop_mentions"], seed * 1_000_003 + d)
        keys.append([[[m, m] for m in e] for e in k])
        responses.append([[[m, m] for m in e] for e in r])
    return {"keys": keys, "responses": responses}, f"synthetic-{config['loop_mentions']}"


# --------------------------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------------------------
def amr_pair(n: int, seed: int):
    """(test, gold) :class:`~exactalign.io.amr.AmrGraph`: consecutive trees of
    :func:`~experiments.smatch_gap.synthetic_bank` joined under one root until the gold has at
    least ``n`` variables, against a ``relabel`` perturbation (rate 0.3)."""
    from .smatch_gap import join, perturb, synthetic_bank

    bank = synthetic_bank(max(50, n // 4), seed)
    graphs, total = [], 1
    while total < n:
        g = bank[len(graphs) % len(bank)]
        graphs.append(g)
        total += len(g.variables)
    gold = join(graphs)
    concepts = sorted({c for g in bank for _, _, c in g.instances})
    roles = sorted({r for g in bank for r, _, _ in g.relations})
    return perturb(gold, "relabel", 0.3, random.Random(f"{seed}-perf-{n}"), concepts, roles), gold


def model_nnz(unit: dict, config: dict) -> int | None:
    """Non-zeros of exactalign's ILP for a single synthetic AMR pair (``smatch-pair`` and
    ``latent``: :func:`exactalign.problems.latent.ilp_model` on the pair's triples, the model
    whose LP the exact path solves when branch and bound does not finish), built untimed; None
    for the other families."""
    if unit["family"] not in ("smatch-pair", "latent"):
        return None
    from exactalign.metrics.smatch import instance_of
    from exactalign.problems.latent.model import ilp_model

    test, gold = amr_pair(unit["n"], config["seed"])
    return int(ilp_model(instance_of(test, gold, "full")).A.nnz)


def memory_growth(rows: list[dict]) -> dict[tuple[str, str], tuple[float, float, int]]:
    """``(family, tool) -> (memory slope, non-zeros slope, points)`` for our rows that carry
    ``model_nnz``: least squares on log size of log(peak MB above the tool's smallest peak --
    the interpreter and its imports) and of log(model non-zeros), over the sizes where the
    excess is at least 1 MB. Memory grows no faster than the model when the first slope is at
    most the second."""
    out = {}
    for fam in dict.fromkeys(r["family"] for r in rows):
        for tool in dict.fromkeys(r["tool"] for r in rows if r["family"] == fam
                                  and r["role"] == "ours" and r.get("model_nnz")):
            sel = [r for r in rows if r["family"] == fam and r["tool"] == tool
                   and r["status"] == "ok" and r.get("peak_mb") and r.get("model_nnz")]
            if not sel:
                continue
            floor = min(float(r["peak_mb"]) for r in sel)
            pts = [(float(r["size"]), float(r["peak_mb"]) - floor, float(r["model_nnz"]))
                   for r in sel if float(r["peak_mb"]) - floor >= 1.0]
            if len({x for x, _, _ in pts}) >= 2:
                xs = [p[0] for p in pts]
                out[(fam, tool)] = (fitted_exponent(xs, [p[1] for p in pts]),
                                    fitted_exponent(xs, [p[2] for p in pts]), len(pts))
    return out


def coref_clusters(n: int, seed: int) -> tuple[list[list[int]], list[list[int]]]:
    """(key, response) entities over token positions (one mention per token): ``n`` key
    mentions in ``n // 3`` entities; the response moves 15% of the mentions, drops 5%, splits
    10% of the entities, merges ``n // 60`` pairs and adds ``n // 20`` spurious mentions."""
    rng = np.random.default_rng([seed, n])
    k = max(1, n // 3)
    label = np.concatenate([np.arange(min(k, n)), rng.integers(0, k, max(0, n - k))])
    rng.shuffle(label)
    plabel = label.copy()
    moved = rng.random(n) < 0.15
    plabel[moved] = rng.integers(0, k, int(moved.sum()))
    fresh = k
    for e in range(k):
        if rng.random() < 0.10:
            half = np.flatnonzero((plabel == e) & (rng.random(n) < 0.5))
            plabel[half] = fresh
            fresh += 1
    for _ in range(n // 60):
        a, b = rng.integers(0, fresh, 2)
        plabel[plabel == b] = a
    kept = rng.random(n) >= 0.05
    key: dict = {}
    for m, e in enumerate(label):
        key.setdefault(int(e), []).append(m)
    resp: dict = {}
    for m in np.flatnonzero(kept):
        resp.setdefault(int(plabel[m]), []).append(int(m))
    entities = list(resp.values())
    for j in range(n // 20):
        entities[int(rng.integers(0, len(entities)))].append(n + j)
    return list(key.values()), entities


def write_conll(path: Path, entities: list[list[int]], tokens: int, doc: str = "synthetic"):
    """A one-document CoNLL-2012 file of ``tokens`` lines (document name and coreference
    column), each mention one token."""
    col = ["-"] * tokens
    for eid, ent in enumerate(entities, start=1):
        for m in ent:
            col[m] = f"({eid})"
    lines = [f"#begin document ({doc}); part 000"] + [f"{doc} {c}" for c in col]
    path.write_text("\n".join(lines + ["", "#end document", ""]), encoding="utf-8")


def _first_documents(src: Path, dst: Path, docs: list[str]) -> None:
    keep, out = False, []
    for line in src.read_text(encoding="utf-8").splitlines():
        if line.startswith("#BeginOfDocument"):
            keep = line.split()[1] in docs
        if keep:
            out.append(line)
        if line.startswith("#EndOfDocument"):
            keep = False
    dst.write_text("\n".join(out) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------------------------
# corpus inputs (families ``corpus-*``): hundreds to thousands of documents or pairs
# --------------------------------------------------------------------------------------------
def _tbf_documents(path: Path) -> list[list[str]]:
    """The documents of a TBF file, each its lines from ``#BeginOfDocument`` to
    ``#EndOfDocument``."""
    out, cur = [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#BeginOfDocument"):
            cur = [line]
        elif cur is not None:
            cur.append(line)
            if line.startswith("#EndOfDocument"):
                out.append(cur)
                cur = None
    return out


def _cycled(docs: list[list[str]], n: int) -> list[str]:
    """The lines of ``n`` documents: ``docs`` in turn, copy ``k >= 1`` of document ``d``
    renamed ``d__k`` (the first copy keeps its id)."""
    lines = []
    for i in range(n):
        doc = docs[i % len(docs)]
        old = doc[0].split()[1]
        k = i // len(docs)
        if not k:
            lines += doc
            continue
        new = f"{old}__{k}"
        for ln in doc:
            if ln.startswith("#BeginOfDocument"):
                ln = f"#BeginOfDocument {new}"
            elif not ln.startswith("#") and ln.count("\t") >= 1:
                fields = ln.split("\t")  # mention and relation lines: field 2 is the id
                if fields[1] == old:
                    fields[1] = new
                ln = "\t".join(fields)
            lines.append(ln)
    return lines


def synthetic_tbf(n_docs: int, seed: int, per_doc: int = 17) -> tuple[str, str]:
    """``(gold, system)`` TBF texts (character mode) of ``n_docs`` seeded documents shaped like
    the ACE-2005 dev sample (:func:`experiments.nugget_gap.synthetic_gold`'s layout: about
    ``per_doc`` triggers of 3-9 characters, 8 types); the system keeps 80% of the triggers
    (a quarter of them shifted by 1-2 characters, 15% of types and 15% of realis values
    changed) and adds 10% spurious ones."""
    rng = np.random.default_rng([seed, 2015, n_docs])
    types = ["lifedie", "lifeinjure", "conflictattack", "movementtransport", "contactmeet",
             "justicearrestjail", "transactiontransfermoney", "personnelelect"]
    realis = ("Actual", "Actual", "Generic", "Other")
    gold, system = [], []
    for d in range(n_docs):
        doc = f"doc{d:05d}"
        gold.append(f"#BeginOfDocument {doc}")
        system.append(f"#BeginOfDocument {doc}")
        pos, s = int(rng.integers(50, 200)), 0
        for k in range(per_doc):
            n = int(rng.integers(3, 10))
            t, r = types[int(rng.integers(len(types)))], realis[int(rng.integers(4))]
            gold.append("\t".join(["gold", doc, f"T{k + 1}", f"{pos},{pos + n}", "x", t, r]))
            if rng.random() < 0.8:
                a = pos + (int(rng.integers(-2, 3)) if rng.random() < 0.25 else 0)
                t2 = types[int(rng.integers(len(types)))] if rng.random() < 0.15 else t
                r2 = realis[int(rng.integers(4))] if rng.random() < 0.15 else r
                s += 1
                system.append("\t".join(["sys", doc, f"E{s}", f"{max(0, a)},{a + n}", "x",
                                         t2, r2]))
            if rng.random() < 0.1:
                s += 1
                b = pos + n + 2
                system.append("\t".join(["sys", doc, f"E{s}", f"{b},{b + 4}", "x",
                                         types[int(rng.integers(len(types)))], "Actual"]))
            pos += n + int(rng.integers(8, 120))
        gold.append("#EndOfDocument")
        system.append("#EndOfDocument")
    return "\n".join(gold) + "\n", "\n".join(system) + "\n"


def nugget_corpus(n: int, seed: int, work: Path) -> tuple[Path, Path, str]:
    """``(gold, system, source)`` TBF files of ``n`` documents: the pilot ACE-2005 dev pair's
    30 documents in turn, copies renamed (:func:`_cycled`), else :func:`synthetic_tbf`."""
    g, s = work / "gold.tbf", work / "system.tbf"
    data = resolve_data_dir()
    ace = data.path / "nugget" / "ace-dev" if data.available else None
    if ace is not None and (ace / "gold.tbf").is_file():
        gd, sd = _tbf_documents(ace / "gold.tbf"), _tbf_documents(ace / "system.tbf")
        by_id = {d[0].split()[1]: d for d in sd}
        # the system's documents in the gold's order (an id missing there: an empty one)
        sd = [by_id.get(d[0].split()[1], [d[0], "#EndOfDocument"]) for d in gd]
        g.write_text("\n".join(_cycled(gd, n)) + "\n", encoding="utf-8")
        s.write_text("\n".join(_cycled(sd, n)) + "\n", encoding="utf-8")
        return g, s, "ace-dev-cycled"
    gold, system = synthetic_tbf(n, seed)
    g.write_text(gold, encoding="utf-8")
    s.write_text(system, encoding="utf-8")
    return g, s, "synthetic"


def coref_corpus(n: int, mentions: int, seed: int, work: Path) -> tuple[Path, Path, Path, Path]:
    """``(key, response, scorch key dir, scorch response dir)``: a CoNLL-2012 file of ``n``
    documents (``doc00000``, ...), each :func:`coref_clusters` of ``mentions`` key mentions
    seeded ``[seed, n, d]``, and the same documents as scorch's input (one JSON file per
    document; scorch reads a directory and sums over its files)."""
    key_lines, resp_lines = [], []
    dirs = work / "scorch-key", work / "scorch-response"
    for d in dirs:
        d.mkdir(exist_ok=True)
    tokens = mentions + mentions // 20
    for d in range(n):
        name = f"doc{d:05d}"
        k, r = coref_clusters(mentions, int(np.random.SeedSequence([seed, n, d])
                                            .generate_state(1)[0]))
        for ents, out, folder in ((k, key_lines, dirs[0]), (r, resp_lines, dirs[1])):
            col = ["-"] * tokens
            for eid, ent in enumerate(ents, start=1):
                for m in ent:
                    col[m] = f"({eid})"
            out += ([f"#begin document ({name}); part 000"] + [f"{name} {c}" for c in col]
                    + ["", "#end document"])
            clusters = {str(i): [f"{m}-{m}" for m in e] for i, e in enumerate(ents)}
            (folder / f"{name}.json").write_text(
                json.dumps({"type": "clusters", "clusters": clusters}), encoding="utf-8")
    key, resp = work / "key.conll", work / "response.conll"
    key.write_text("\n".join(key_lines) + "\n", encoding="utf-8")
    resp.write_text("\n".join(resp_lines) + "\n", encoding="utf-8")
    return key, resp, dirs[0], dirs[1]


def _amr_blocks(path: Path) -> list[str]:
    """The graphs of an AMR file as text blocks (comments kept), in file order."""
    return [b.strip("\n") for b in re.split(r"\n\s*\n", path.read_text(encoding="utf-8"))
            if any(ln.strip() and not ln.lstrip().startswith("#") for ln in b.splitlines())]


def smatch_corpus(n: int, seed: int, work: Path) -> tuple[Path, Path, str]:
    """``(test, gold, source)`` AMR files of ``n`` pairs: the pilot bamboo STS test pairs
    (1,380) in turn, else ``n`` synthetic trees (:func:`~experiments.smatch_gap.synthetic_bank`)
    against their ``relabel`` perturbation (rate 0.3)."""
    test, gold = work / "test.amr", work / "gold.amr"
    data = resolve_data_dir()
    bamboo = data.path / "amr" / "bamboo-sts-test" if data.available else None
    if bamboo is not None and (bamboo / "src.test.amr").is_file():
        t, g = _amr_blocks(bamboo / "src.test.amr"), _amr_blocks(bamboo / "tgt.test.amr")
        test.write_text("\n\n".join(t[i % len(t)] for i in range(n)) + "\n", encoding="utf-8")
        gold.write_text("\n\n".join(g[i % len(g)] for i in range(n)) + "\n", encoding="utf-8")
        return test, gold, "bamboo-cycled"
    from .smatch_gap import perturb, synthetic_bank
    from .smatch_walltime import amr_text

    bank = synthetic_bank(n, seed)
    rng = random.Random(f"{seed}-perf-corpus-{n}")
    concepts = sorted({c for g in bank for _, _, c in g.instances})
    roles = sorted({r for g in bank for r, _, _ in g.relations})
    test.write_text(amr_text([perturb(g, "relabel", 0.3, rng, concepts, roles) for g in bank]),
                    encoding="utf-8")
    gold.write_text(amr_text(bank), encoding="utf-8")
    return test, gold, "synthetic"


_RELTYPE = re.compile(r'relType="([A-Z_]+)"')


def _relabel_fourth(text: str, labels: list[str]) -> str:
    """``text`` with every fourth TLINK relation that is one of ``labels`` replaced by the
    next label of the list."""
    seen = 0

    def swap(m):
        nonlocal seen
        if m.group(1) not in labels:
            return m.group(0)
        seen += 1
        if seen % 4:
            return m.group(0)
        return f'relType="{labels[(labels.index(m.group(1)) + 1) % len(labels)]}"'

    return _RELTYPE.sub(swap, text)


def te3_corpus(n: int, seed: int, work: Path) -> tuple[Path, Path, str]:
    """``(gold dir, system dir, source)`` of ``n`` TimeML documents: the pilot TE3-Platinum
    gold and ``sys_ning17_SP+ILP`` files in turn, copies renamed (file and ``DOCID``
    ``name__k``), else seeded :func:`exactalign.synthetic.random_timeml` documents (10-30
    events, 2-4 timexes, 20-60 links) against a copy with every fourth TLINK's relation
    replaced."""
    from exactalign import synthetic

    gdir, sdir = work / "gold", work / "system"
    gdir.mkdir(exist_ok=True)
    sdir.mkdir(exist_ok=True)
    data = resolve_data_dir()
    te3 = data.path / "temporal" / "te3-platinum" if data.available else None
    if te3 is not None and (te3 / "gold").is_dir():
        names = sorted(p.name for p in (te3 / "gold").iterdir() if p.suffix == ".tml")
        names = [x for x in names if (te3 / "sys_ning17_SP+ILP" / x).is_file()]
        for i in range(n):
            name, k = names[i % len(names)], i // len(names)
            stem = name[:-len(".tml")]
            new = f"{stem}__{k}" if k else stem
            for src, dst in ((te3 / "gold", gdir), (te3 / "sys_ning17_SP+ILP", sdir)):
                text = (src / name).read_text(encoding="utf-8")
                if k:
                    text = text.replace(f"<DOCID>{stem}</DOCID>", f"<DOCID>{new}</DOCID>")
                (dst / f"{new}.tml").write_text(text, encoding="utf-8")
        return gdir, sdir, "te3-platinum-cycled"
    rng = np.random.default_rng([seed, 8, n])
    others = ["BEFORE", "AFTER", "INCLUDES", "IS_INCLUDED", "SIMULTANEOUS"]
    for k in range(n):
        doc = f"synthetic{k:05d}"
        text = synthetic.random_timeml(doc, int(rng.integers(10, 31)), int(rng.integers(2, 5)),
                                       int(rng.integers(20, 61)), seed=[seed, 8, n, k])
        (gdir / f"{doc}.tml").write_text(text, encoding="utf-8")
        (sdir / f"{doc}.tml").write_text(_relabel_fourth(text, others), encoding="utf-8")
    return gdir, sdir, "synthetic"


def _amr_triples(path: Path) -> int:
    from exactalign.io.amr import read_amr

    return sum(g.num_triples for g in read_amr(path))


# --------------------------------------------------------------------------------------------
# units (one per family and input)
# --------------------------------------------------------------------------------------------
def units(config: dict) -> list[dict]:
    """``{"family", "dataset", "size", "size_unit", ...}`` per input, in run order (sizes
    growing within a family)."""
    data = resolve_data_dir()
    out = []
    corpus = config["corpus_files"]
    if corpus is None or corpus:
        if data.available:
            amr = data.require("amr")
            for pair in amr_pairs(amr, corpus):
                out.append({"family": "smatch-corpus", "dataset": pair.name,
                            "test": str(pair.test), "gold": str(pair.gold),
                            "size_unit": "triples"})
        else:
            out.append({"family": "smatch-corpus", "dataset": "synthetic",
                        "size_unit": "triples"})
    out += [{"family": "smatch-pair", "dataset": f"synthetic-{n}", "n": n,
             "size_unit": "variables"} for n in config["pair_sizes"]]
    if data.available:
        nug = data.require("nugget")
        ids = [ln.split()[1] for ln in (nug / "ace-dev" / "gold.tbf").read_text().splitlines()
               if ln.startswith("#BeginOfDocument")]
        out += [{"family": "nugget", "dataset": f"ace-dev[:{k}]", "docs": ids[:k],
                 "size": len(ids[:k]), "size_unit": "documents"}
                for k in config["nugget_docs"]]
        if config["nugget_demo"]:
            out.append({"family": "nugget", "dataset": "evmeval-demo-A", "size": 2,
                        "size_unit": "documents"})
        cases = data.require("coref") / "conll-reference-scorer-tests" / "DataFiles"
        for case in config["coref_cases"]:
            key = cases / (case.rsplit("-", 1)[0] + ".key")
            out.append({"family": "coref", "dataset": case, "key": str(key),
                        "response": str(cases / f"{case}.response"), "size_unit": "mentions"})
    out += [{"family": "coref", "dataset": f"synthetic-{n}", "n": n, "size": n,
             "size_unit": "mentions"} for n in config["coref_sizes"]]
    out += [{"family": "ceaf", "dataset": f"synthetic-{n}", "n": n, "size": n,
             "size_unit": "mentions"} for n in config["ceaf_sizes"]]
    out += [{"family": "sequence", "dataset": f"synthetic-{n}", "n": n, "size": n,
             "size_unit": "items"} for n in config["sequence_sizes"]]
    out += [{"family": "latent", "dataset": f"synthetic-{n}", "n": n, "size_unit": "variables"}
            for n in config["latent_sizes"]]
    for fam, key, unit in (("corpus-smatch", "corpus_smatch_pairs", "pairs"),
                           ("corpus-nugget", "corpus_nugget_docs", "documents"),
                           ("corpus-coref", "corpus_coref_docs", "documents"),
                           ("corpus-te3", "corpus_te3_docs", "documents")):
        out += [{"family": fam, "dataset": f"{_corpus_source(fam, data)}-{n}", "n": n,
                 "size": n, "size_unit": unit} for n in config.get(key, ())]
    for fam in config.get("loop_families", ()):
        source = loop_inputs(fam, config)[1]
        out += [{"family": fam, "dataset": f"{source}[:{n}]", "n": n, "size": n,
                 "size_unit": "documents"} for n in config["loop_docs"]]
    if data.available:
        te3 = data.require("temporal") / "te3-platinum"
        out += [{"family": "te3", "dataset": f"te3-platinum/{run}", "gold": str(te3 / "gold"),
                 "system": str(te3 / run), "size": len(list((te3 / "gold").iterdir())),
                 "size_unit": "documents"} for run in config["te3_runs"]]
    return out


def _corpus_source(family: str, data) -> str:
    """Where a corpus family's documents come from: the pilot files it cycles through when
    present (see :func:`smatch_corpus` and the others), else ``synthetic``."""
    pilot = {"corpus-smatch": ("amr/bamboo-sts-test/src.test.amr", "bamboo-cycled"),
             "corpus-nugget": ("nugget/ace-dev/gold.tbf", "ace-dev-cycled"),
             "corpus-te3": ("temporal/te3-platinum/gold", "te3-platinum-cycled")}
    if family in pilot and data.available and (data.path / pilot[family][0]).exists():
        return pilot[family][1]
    return "synthetic" if family != "corpus-coref" else "synthetic-docs"


def _key(unit: dict) -> str:
    return f"{unit['family']}/{unit['dataset']}"


def _cells(unit: dict) -> dict:
    return {"family": unit["family"], "dataset": unit["dataset"], "size": unit.get("size"),
            "size_unit": unit["size_unit"]}


def _prepare(unit: dict, config: dict, tmp: Path) -> tuple[int, list[dict], callable]:
    """``(size, tools, argv_or_inputs(tool))`` of one unit; inputs are written under ``tmp``."""
    fam, seed = unit["family"], config["seed"]
    work = tmp / re.sub(r"[^A-Za-z0-9_.+-]", "_", _key(unit))
    work.mkdir(parents=True, exist_ok=True)
    if fam in ("smatch-corpus", "smatch-pair"):
        from .smatch_walltime import amr_text, synthetic_files

        if fam == "smatch-pair":
            test, gold = amr_pair(unit["n"], seed)
            paths = (work / "test.amr", work / "gold.amr")
            paths[0].write_text(amr_text([test]), encoding="utf-8")
            paths[1].write_text(amr_text([gold]), encoding="utf-8")
            size = len(gold.variables)
        else:
            if "test" in unit:
                paths = (Path(unit["test"]), Path(unit["gold"]))
            else:
                f = synthetic_files({"seed": seed,
                                      "synthetic_graphs": config["synthetic_graphs"]}, work)
                paths = (f["test"], f["gold"])
            size = _amr_triples(paths[0]) + _amr_triples(paths[1])
        return size, smatch_tools(config), lambda t: smatch_argv(t, *paths)
    if fam == "nugget":
        nug = resolve_data_dir().require("nugget")
        extra: list[str] = []
        if "docs" in unit:
            g, s = work / "gold.tbf", work / "system.tbf"
            _first_documents(nug / "ace-dev" / "gold.tbf", g, unit["docs"])
            _first_documents(nug / "ace-dev" / "system.tbf", s, unit["docs"])
        else:
            demo = nug / "evmeval" / "scoring_demo" / "token_based"
            g, s = demo / "gold.tbf", demo / "sample_system_A.tbf"
            extra = ["-t", str(demo / "tkn")]
        return unit["size"], nugget_tools(config), \
            lambda t: t["argv"] + ["-g", str(g), "-s", str(s)] + extra
    if fam == "coref":
        if "key" in unit:
            key, resp = Path(unit["key"]), Path(unit["response"])
            size = _conll_mentions(key)
        else:
            k, r = coref_clusters(unit["n"], seed)
            tokens = unit["n"] + unit["n"] // 20
            key, resp = work / "key.conll", work / "response.conll"
            write_conll(key, k, tokens)
            write_conll(resp, r, tokens)
            size = unit["n"]

        scorch_in = work / "key.scorch.json", work / "response.scorch.json"
        scorch_json(key, scorch_in[0])
        scorch_json(resp, scorch_in[1])

        def coref_argv(t):
            if t["role"] == "ours":
                return t["argv"] + [str(key), str(resp), "--metric", *COREF_METRICS]
            if t["name"] == "scorch":
                return t["argv"] + [str(scorch_in[0]), str(scorch_in[1])]
            return t["argv"] + [str(key), str(resp), "none"]

        return size, coref_tools(config), coref_argv
    if fam == "te3":
        return unit["size"], te3_tools(config, tmp), \
            lambda t: t["argv"] + [unit["gold"], unit["system"]]
    if fam == "corpus-smatch":
        paths = smatch_corpus(unit["n"], seed, work)[:2]
        return unit["n"], smatch_tools(config), lambda t: smatch_argv(t, *paths)
    if fam == "corpus-nugget":
        g, s, _ = nugget_corpus(unit["n"], seed, work)
        return unit["n"], nugget_tools(config), lambda t: t["argv"] + ["-g", str(g), "-s", str(s)]
    if fam == "corpus-coref":
        key, resp, skey, sresp = coref_corpus(unit["n"], config["corpus_coref_mentions"], seed,
                                              work)

        def corpus_coref_argv(t):
            if t["role"] == "ours":
                return t["argv"] + [str(key), str(resp), "--metric", *COREF_METRICS]
            if t["name"] == "scorch":
                return t["argv"] + [str(skey), str(sresp)]
            return t["argv"] + [str(key), str(resp), "none"]

        return unit["n"], coref_tools(config), corpus_coref_argv
    if fam == "corpus-te3":
        gdir, sdir, _ = te3_corpus(unit["n"], seed, work)
        return unit["n"], te3_tools(config, tmp), lambda t: t["argv"] + [str(gdir), str(sdir)]
    if fam in LOOP_FAMILIES:
        path = work / "inputs.json"
        path.write_text(json.dumps(loop_inputs(fam, config)[0]), encoding="utf-8")
        return unit["n"], loop_tools(fam, config), lambda t: path
    # in-process families: the inputs as JSON
    n = unit["n"]
    if fam == "ceaf":
        k, r = coref_clusters(n, seed)
        inputs = {"gold": [[[m, m] for m in e] for e in k],
                  "pred": [[[m, m] for m in e] for e in r]}
    elif fam == "sequence":
        rng = np.random.default_rng([seed, n])
        alphabet = list("abcdefghij")
        a = [str(x) for x in rng.choice(alphabet, n)]
        b = [x if rng.random() < 0.7 else str(rng.choice(alphabet)) for x in a]
        inputs = {"a": a, "b": b}
    else:
        from exactalign.declared.convert import amr_document

        test, gold = amr_pair(n, seed)
        inputs = {"gold": amr_document(gold), "pred": amr_document(test)}
        n = len(gold.variables)
    path = work / "inputs.json"
    path.write_text(json.dumps(inputs), encoding="utf-8")
    return n, library_tools(fam, config), lambda t: path


def _conll_mentions(path: Path) -> int:
    """Mentions (opening brackets of the coreference column) in a CoNLL file."""
    n = 0
    for ln in path.read_text(encoding="utf-8").splitlines():
        if ln.strip() and not ln.startswith("#"):
            n += ln.split()[-1].count("(")
    return n


# --------------------------------------------------------------------------------------------
# run
# --------------------------------------------------------------------------------------------
def run_status(m: timing.Measured) -> tuple[str, str]:
    """``(status, note)`` of a finished run: ``ok``, ``timeout``, ``memory`` (the child's
    allocation failed under its cap) or ``failed``, the note its last error line."""
    if m.timed_out:
        return "timeout", ""
    if m.ok:
        return "ok", ""
    err = m.last_error()
    if "MemoryError" in err or "std::bad_alloc" in err or "Cannot allocate" in err \
            or "Out of memory" in err:
        return "memory", err
    return "failed", err


def run_unit(unit: dict, config: dict, tmp: Path, stopped: dict) -> list[dict]:
    """The rows of one unit: every available tool in alternating rounds. ``stopped`` maps
    ``(family, tool)`` to the size where the tool timed out or ran out of memory (it is not
    run on larger inputs of the family)."""
    size, tools, what = _prepare(unit, config, tmp)
    base = {"family": unit["family"], "dataset": unit["dataset"], "size": size,
            "size_unit": unit["size_unit"], "model_nnz": model_nnz(unit, config)}
    rows, live = [], {}
    for t in tools:
        row = {**base, "tool": t["name"], "version": t["version"], "role": t["role"],
               "timing": t["timing"], "proven": t["proven"]}
        where = stopped.get((unit["family"], t["name"]))
        if t["skip"]:
            rows.append({**row, "runs": 0, "status": "skipped", "note": t["skip"]})
        elif where is not None:
            rows.append({**row, "runs": 0, "status": "skipped",
                         "note": f"not run: {where}"})
        else:
            live[t["name"]] = (t, row)

    def one(name: str, rnd: int):
        t = live[name][0]
        if t["timing"] == "loop":
            return timing.loop_task(t["code"], what(t), unit["n"], timeout=config["timeout_s"],
                                    mem_limit_mb=t["mem"],
                                    min_seconds=config["loop_min_seconds"], min_calls=3)
        if t["code"] is not None:
            return timing.python_task(t["code"], what(t), timeout=config["timeout_s"],
                                      mem_limit_mb=t["mem"])
        return timing.measure(what(t), timeout=config["timeout_s"], mem_limit_mb=t["mem"],
                              env=t["env"], cwd=t["cwd"] or tmp)

    runs = timing.alternating(list(live), config["rounds"], config["warmup"], one,
                              keep=lambda m: m.ok)
    for name, (t, row) in live.items():
        ms = [m for _, tool, m in runs if tool == name]
        bad = [m for m in ms if not m.ok]
        if bad:
            status, note = run_status(bad[0])
            limit = (f"{config['timeout_s']:g} s" if status == "timeout"
                     else f"{t['mem']} MB" if status == "memory" else "")
            note = note or f"stopped at the {limit} limit"
            if t["role"] == "ours" and status == "failed":
                raise ExperimentError(f"{_key(unit)}: {name} failed: {note}")
            if status in ("timeout", "memory"):
                stopped[(unit["family"], name)] = f"{status} at {size} {unit['size_unit']}"
            rows.append({**row, "runs": len(ms) - 1, "status": status, "note": note,
                         "min_s": config["timeout_s"] if status == "timeout" else None,
                         "peak_mb": _max(m.peak_mb for m in ms)})
            continue
        if t["timing"] in ("in-process", "loop"):
            secs = [m.result.get("seconds") for m in ms]
            scores = {m.result.get("score") for m in ms}
            proven = all(m.result.get("proven", t["proven"]) for m in ms)
        else:
            secs = [m.wall_s for m in ms]
            scores = {t["parse"](m.stdout) for m in ms}
            proven = t["proven"]
        lo, med = timing.min_median(secs)
        score = sorted(scores, key=lambda x: (x is None, x))[0] if scores else None
        note = "" if len(scores) <= 1 else f"scores vary over the runs: {sorted(scores)}"
        if t["timing"] == "loop":
            every = [v for m in ms for v in (m.result.get("score_min", m.result.get("score")),
                                             m.result.get("score_max", m.result.get("score")))
                     if v is not None]
            if every and min(every) != max(every):  # an unseeded heuristic: its best call
                score = max(every)                  # is what "never above ours" checks
                note = (f"scores vary over the calls: {min(every):.6g} to {max(every):.6g} "
                        "(score: the highest)")
        rows.append({**row, "runs": len(ms), "min_s": lo, "median_s": med,
                     "first_call_s": (timing.min_median([m.result.get("first_seconds")
                                                          for m in ms])[1]
                                      if t["timing"] in ("in-process", "loop") else None),
                     "prepare_s": (timing.min_median([m.result.get("prepare_seconds")
                                                      for m in ms])[1]
                                   if t["timing"] == "loop" else None),
                     "to_first_s": (timing.min_median([_to_first(m.result) for m in ms])[1]
                                    if t["timing"] == "loop" else None),
                     "process_median_s": timing.min_median([m.wall_s for m in ms])[1],
                     "cpu_median_s": timing.min_median([m.cpu_s for m in ms])[1],
                     "peak_mb": _max(m.peak_mb for m in ms),
                     "runs_s": ";".join(f"{x:.6g}" for x in secs), "proven": proven,
                     "score": score, "status": "ok", "note": note})
    _check(_key(unit), unit["family"], rows)
    return [{c: r.get(c) for c in COLUMNS} for r in rows]


def _to_first(result: dict) -> float | None:
    """CPU time from the start of a loop task's code to its first score: imports, building the
    inputs, preparing the references, the first call."""
    parts = [result.get(k) for k in ("setup_seconds", "prepare_seconds", "first_seconds")]
    return None if any(p is None for p in parts) else sum(parts)


def _max(values):
    vals = [v for v in values if v is not None]
    return max(vals) if vals else None


#: Per family: (ours, peer, relation, tolerance); relation "eq" (same number) or "le" (the
#: peer's score never above ours).
CHECKS = {
    "smatch-corpus": [("exactalign", "smatch-r1", "le", 1e-9),
                      ("exactalign", "smatch-r4", "le", 1e-9)],
    "smatch-pair": [("exactalign", "smatch-r1", "le", 1e-9),
                    ("exactalign", "smatch-r4", "le", 1e-9)],
    "nugget": [("exactalign-kbp", "evmeval-v1.8", "eq", 1e-9),
               ("exactalign-exact", "evmeval-v1.8", "le", 1e-9),
               ("exactalign-exact", "exactalign-kbp", "le", 1e-9)],
    "coref": [("exactalign", "conll-scorer-v8.01", "eq", 1e-4)],
    "ceaf": [("exactalign-declared", "metametric", "eq", 1e-9)],
    "sequence": [("exactalign-dp", "metametric-dp", "eq", 1e-9),
                 ("exactalign-dp", "metametric-ilp", "eq", 1e-6)],
    "latent": [("exactalign-declared", "metametric", "eq", 1e-9)],
    "te3": [("exactalign", "te3-toolkit", "eq", 1e-4)],
    "loop-smatch": [("exactalign-exact", "smatch-r1", "le", 1e-9),
                    ("exactalign-exact", "smatch-r4", "le", 1e-9),
                    ("exactalign-exact", "exactalign-hillclimb", "le", 1e-9)],
    "loop-coref": [("exactalign", "scorch", "eq", 1e-9),
                   ("exactalign-no-certificate", "scorch", "eq", 1e-9)],
    "loop-declared": [("exactalign-declared", "metametric", "eq", 1e-9)],
}
# a corpus family checks its scores as the family of one input does
CHECKS.update({f"corpus-{f}": CHECKS[g] for f, g in (("smatch", "smatch-corpus"),
                                                     ("nugget", "nugget"), ("coref", "coref"),
                                                     ("te3", "te3"))})


def _check(name: str, family: str, rows: list[dict]) -> None:
    done = {r["tool"]: r for r in rows if r["status"] == "ok"}
    for r in done.values():
        if r["role"] == "ours" and r["proven"] is False and (r["tool"].endswith(
                ("-dp", "-declared")) or (r.get("timing") == "loop"
                                          and r["tool"] != "exactalign-hillclimb")):
            raise ExperimentError(f"{name}: {r['tool']} did not prove its answer optimal")
    for ours, peer, rel, tol in CHECKS.get(family, []):
        if ours not in done or peer not in done:
            continue
        a, b = done[ours]["score"], done[peer]["score"]
        if a is None or b is None:
            raise ExperimentError(f"{name}: no score printed by {ours if a is None else peer}")
        if rel == "eq" and abs(a - b) > tol:
            raise ExperimentError(f"{name}: {ours} scored {a!r}, {peer} {b!r} (the same "
                                  f"number, to {tol:g})")
        if rel == "le" and b > a + tol:
            raise ExperimentError(f"{name}: {peer} scored {b!r}, above {ours}'s proven {a!r}")


def run(config: dict, *, jobs: int = 1, quiet: bool = False) -> list[dict]:
    """Every unit in turn (``jobs`` is ignored: concurrent runs would disturb the timing)."""
    return timing.one_at_a_time(NAME, units(config), run_unit, config, key=_key, cells=_cells,
                                quiet=quiet)


# --------------------------------------------------------------------------------------------
# summary, headline and figure (from the CSV alone)
# --------------------------------------------------------------------------------------------
def exponents(rows: list[dict]) -> dict[tuple[str, str], tuple[float, int]]:
    """``(family, tool) -> (slope, points)``: least squares of log(median s) on log(size) over
    the tool's completed rows (at least two distinct sizes)."""
    out = {}
    for fam in dict.fromkeys(r["family"] for r in rows):
        for tool in dict.fromkeys(r["tool"] for r in rows if r["family"] == fam):
            pts = [(float(r["size"]), float(r["median_s"])) for r in rows
                   if r["family"] == fam and r["tool"] == tool and r["status"] == "ok"
                   and r["median_s"] and r["size"]]
            if len({x for x, _ in pts}) >= 2:
                out[(fam, tool)] = (fitted_exponent([p[0] for p in pts],
                                                    [p[1] for p in pts]), len(pts))
    return out


def _secs(r: dict) -> str:
    if r["status"] == "ok":
        return f"{r['median_s']:.3g}"
    if r["status"] == "timeout":
        return f"> {r['min_s']:g} (timeout)" if r.get("min_s") else "timeout"
    return r["status"]


def _mb(r: dict) -> str:
    return f"{r['peak_mb']:.0f}" if r.get("peak_mb") is not None else "–"


def _yn(v) -> str:
    return "yes" if v is True else "no" if v is False else "–"


def pairs(rows: list[dict], loop: bool = False):
    """``(ours row, peer row)`` per unit, every ours tool against every peer tool that ran;
    the in-process (training loop) families only with ``loop``, else the others."""
    keyed: dict = {}
    for r in _loop(rows, loop):
        keyed.setdefault((r["family"], r["dataset"]), []).append(r)
    for sel in keyed.values():
        ours = [r for r in sel if r["role"] == "ours" and r["status"] == "ok"]
        peers = [r for r in sel if r["role"] == "peer" and r["status"] != "skipped"]
        for o in ours:
            for p in peers:
                yield o, p


def _loop(rows: list[dict], loop: bool) -> list[dict]:
    """The rows of the in-process (training loop) families (``loop``), or the others."""
    return [r for r in rows if (r["family"] in LOOP_FAMILIES) == loop]


def _ms(seconds) -> str:
    return "–" if seconds in (None, "") else f"{1000 * float(seconds):.3g}"


def loop_summary(rows: list[dict]) -> str:
    """The in-process table: per family and batch size, ours against each peer -- CPU time
    per call in the steady state and on the first call, our one-off preparation, the ratios,
    proven, peak memory -- and where each peer's answer is a heuristic's."""
    rows = _loop(rows, True)
    if not rows:
        return ""
    lines = ["| family | input | docs | ours | ours steady ms | ours first ms | ours prepare ms "
             "| ours to first ms | peer | peer steady ms | peer first ms | peer to first ms | "
             "ratio steady | ratio first | ratio to first | proven (ours/peer) | "
             "peak MB (ours/peer) |",
             "|---|---|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---:|"]

    def ratio(a, b):
        return f"{a / b:.3g}" if a not in (None, "") and b else "–"

    for o, p in pairs(rows, loop=True):
        ok = p["status"] == "ok"
        lines.append(f"| {o['family']} | {o['dataset'].rsplit('[', 1)[0]} | {o['size']} | "
                     f"{o['tool']} | {_ms(o['median_s'])} | {_ms(o['first_call_s'])} | "
                     f"{_ms(o['prepare_s'])} | {_ms(o.get('to_first_s'))} | {p['tool']} | "
                     f"{_ms(p['median_s']) if ok else p['status']} | "
                     f"{_ms(p['first_call_s'])} | {_ms(p.get('to_first_s'))} | "
                     f"{ratio(o['median_s'], p['median_s']) if ok else '–'} | "
                     f"{ratio(o['first_call_s'], p['first_call_s']) if ok else '–'} | "
                     f"{ratio(o.get('to_first_s'), p.get('to_first_s')) if ok else '–'} | "
                     f"{_yn(o['proven'])}/{_yn(p['proven'])} | {_mb(o)}/{_mb(p)} |")
    heur = sorted({r["tool"] for r in rows if r["role"] == "peer" and r["proven"] is False
                   and r["status"] != "skipped"})
    lines += ["", "In-process: each tool in a process of its own, importing only its library, "
              "its inputs built before the clock starts; CPU time (``time.process_time``) of "
              "one call scoring the first ``docs`` documents: ``first`` the first call (lazy "
              "imports and caches included), ``steady`` the median of the calls after it "
              "(until 0.5 s of CPU, at least 3), each the median over the recorded processes; "
              "``prepare`` our one-off set-up of the references (peers have none: their "
              "every call parses and prepares both sides); ``to first`` everything before the "
              "first score: the imports, building the inputs, prepare and the first call (a "
              "library that imports scipy at import pays it there, one that imports it lazily "
              "in its first call). Ratio < 1: exactalign is faster."]
    lines += _versions_timed(rows)
    if heur:
        lines += ["", "Heuristic peers (proven no: their score is a hill-climber's, not a "
                  "proven optimum, so their time buys a weaker answer than exactalign's exact "
                  "rows): " + ", ".join(heur) + "."]
    return "\n".join(lines) + "\n"


def summary(rows: list[dict]) -> str:
    """One line per (input, our tool, peer tool): median time of each, their ratio, proven,
    peak memory; then the fitted growth exponents and the skipped peers; then the in-process
    table (:func:`loop_summary`)."""
    loop = loop_summary(rows)
    main = _loop(rows, False)
    return _main_summary(main) + ("\n### In-process (a training loop's calls)\n\n" + loop
                                  if loop else "")


def _main_summary(rows: list[dict]) -> str:
    lines = ["| family | dataset | size | ours | ours s | peer | peer s | ratio ours/peer | "
             "proven (ours/peer) | peak MB (ours/peer) | timing |",
             "|---|---|---:|---|---:|---|---:|---:|---|---:|---|"]
    for o, p in pairs(rows):
        if p["status"] == "ok" and p["median_s"]:
            ratio = f"{o['median_s'] / p['median_s']:.3g}"
        elif p["status"] == "timeout" and p.get("min_s"):
            ratio = f"< {o['median_s'] / p['min_s']:.3g}"
        else:
            ratio = "–"
        lines.append(f"| {o['family']} | {o['dataset']} | {o['size']} {o['size_unit']} | "
                     f"{o['tool']} | {_secs(o)} | {p['tool']} | {_secs(p)} | {ratio} | "
                     f"{_yn(o['proven'])}/{_yn(p['proven'])} | {_mb(o)}/{_mb(p)} | "
                     f"{o['timing']} |")
    lonely = [r for r in rows if r["role"] == "ours" and r["status"] != "ok"]
    for r in lonely:
        lines.append(f"| {r['family']} | {r['dataset']} | {r['size']} {r['size_unit']} | "
                     f"{r['tool']} | {_secs(r)} | – | – | – | {_yn(r['proven'])}/– | "
                     f"{_mb(r)}/– | {r['timing']} |")
    big = largest_pair(rows)
    if big:
        lines += ["", big + "."]
    exps = exponents(rows)
    if exps:
        lines += ["", "Growth exponents (least squares of log median time on log size): "
                  + "; ".join(f"{fam} {tool} {s:.2f} ({k} sizes)"
                              for (fam, tool), (s, k) in exps.items()) + "."]
    cores = cores_used(rows)
    if cores:
        lines += ["", "CPU time over wall time (median process, whole command or task; above 1: "
                  "more than one core at a time): "
                  + "; ".join(f"{tool} {lo:.2f}–{hi:.2f}" for tool, (lo, hi) in cores.items())
                  + "."]
    mem = memory_growth(rows)
    if mem:
        lines += ["", "Memory against the model (slopes on log size of the peak MB above the "
                  "smallest run's, and of the ILP's non-zeros): "
                  + "; ".join(f"{fam} {tool} memory {m:.2f}, non-zeros {z:.2f} ({k} sizes)"
                              for (fam, tool), (m, z, k) in mem.items()) + "."]
    skipped = {(r["tool"], r["note"]) for r in rows if r["status"] == "skipped"
               and not str(r["note"]).startswith("not run")}
    if skipped:
        lines += ["", "Skipped: " + "; ".join(f"{t} ({why})" for t, why in sorted(skipped))
                  + "."]
    lines += _versions_timed(rows)
    lines += ["", "Median over the recorded runs (each a fresh process, tools alternating); "
              "``command``: whole-command wall time; ``in-process``: the computation timed "
              "inside its own process. Ratio < 1: exactalign is faster. Peak MB: the process's "
              "own peak resident memory (interpreter and imports included)."]
    return "\n".join(lines) + "\n"


def cores_used(rows: list[dict]) -> dict[str, tuple[float, float]]:
    """Per tool, the range over its rows of CPU time over wall time of the median process
    (``cpu_median_s`` / ``process_median_s``): whether it computed on one core, as every
    ratio in the table assumes, or on several."""
    out: dict[str, list[float]] = {}
    for r in rows:
        cpu, wall = r.get("cpu_median_s"), r.get("process_median_s")
        if r["status"] == "ok" and cpu not in (None, "") and wall:
            out.setdefault(r["tool"], []).append(float(cpu) / float(wall))
    return {t: (min(v), max(v)) for t, v in out.items()}


def largest_pair(rows: list[dict]) -> str | None:
    """The largest single AMR pair exactalign proved (``smatch-pair``): its size, median time
    and peak memory -- the issue's target is 1,000 variables in at most 60 s and 1 GB."""
    ok = [r for r in rows if r["family"] == "smatch-pair" and r["role"] == "ours"
          and r["status"] == "ok" and r["proven"] and r["median_s"] is not None]
    if not ok:
        return None
    r = max(ok, key=lambda r: float(r["size"]))
    return (f"Largest single AMR pair proven optimal: {int(float(r['size'])):,} variables in "
            f"{float(r['median_s']):.3g} s (median), peak {_mb(r)} MB")


def headline(rows: list[dict], meta: dict | None = None) -> dict:
    """The summary's line: per family, the range of exactalign's time over the peer's."""
    parts = []
    for fam in FAMILIES:
        loop = fam in LOOP_FAMILIES
        ratios = [o["median_s"] / p["median_s"] for o, p in pairs(rows, loop)
                  if o["family"] == fam and p["status"] == "ok" and p["median_s"]
                  and o["tool"] not in ("exactalign-kbp", "exactalign-hillclimb")]
        if ratios:
            parts.append(f"{fam} {min(ratios):.2g}–{max(ratios):.2g}x"
                         + (" per call (steady)" if loop else ""))
    timeouts = sorted({f"{r['tool']} ({r['family']}, {r['size']} {r['size_unit']})"
                       for r in rows if r["role"] == "peer" and r["status"] in
                       ("timeout", "memory")})
    finding = ("exactalign's median time over the peer's, per family: " + "; ".join(parts)
               + "." if parts else "No pair of tools timed.")
    big = largest_pair(rows)
    if big:
        finding += f" {big}."
    if timeouts:
        finding += " Peers stopped at their limit: " + ", ".join(timeouts) + "."
    # a benchmark: no heuristic against an optimum, so no "below the optimum" count
    return headline_record("none: speed against each family's peer", finding)


def figures(csv_path: Path, out_dir: Path) -> list[Path]:
    """``cost_vs_size.png``: per family, median time against size on log-log axes, one line per
    tool, the fitted growth exponent in its label; timeouts marked at the limit (x)."""
    from .runner import completed_rows

    plt = plot.pyplot()
    everything = completed_rows(csv_path)
    rows = _loop(everything, False)
    fams = [f for f in FAMILIES if any(r["family"] == f and r["status"] != "skipped"
                                       for r in rows)]
    fig, axes = plot.panels(plt, max(1, len(fams)), ncols=3, height=2.4)
    exps = exponents(rows)
    for ax, fam in zip(axes, fams, strict=False):
        tools = list(dict.fromkeys(r["tool"] for r in rows if r["family"] == fam
                                   and r["status"] != "skipped"))
        for i, tool in enumerate(tools):
            sel = sorted((r for r in rows if r["family"] == fam and r["tool"] == tool),
                         key=lambda r: r["size"] or 0)
            ok = [r for r in sel if r["status"] == "ok" and r["median_s"]]
            style = plot.series_style(i)
            label = tool + (f" (slope {exps[(fam, tool)][0]:.2f})" if (fam, tool) in exps
                            else "")
            if ok:
                ax.plot([r["size"] for r in ok], [r["median_s"] for r in ok], label=label,
                        **style)
            over = [r for r in sel if r["status"] in ("timeout", "memory")]
            if over:
                ax.scatter([r["size"] for r in over],
                           [r["min_s"] or max((x["median_s"] or 0 for x in ok), default=1)
                            for r in over], marker="x", color=style["color"], s=40,
                           label=None if ok else f"{tool} (stopped)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        lo, hi = ax.get_ylim()  # room above the lines for the legend (a line per tool)
        ax.set_ylim(lo, hi * (hi / lo) ** (0.12 * len(tools)))
        _log_ticks(ax)
        unit = next((r["size_unit"] for r in rows if r["family"] == fam), "")
        ax.set_xlabel(f"size [{unit}]")
        ax.set_ylabel("median time [s]")
        ax.set_title(fam)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, loc="upper left")
    if not fams:
        axes[0].text(0.5, 0.5, "no timed rows", ha="center", va="center")
    return [plot.save(fig, Path(out_dir) / "cost_vs_size.png"),
            loop_figure(plt, _loop(everything, True), Path(out_dir))]


def loop_figure(plt, rows: list[dict], out_dir: Path) -> Path:
    """``inprocess.png``: per in-process family, CPU time per call against the documents a
    call scores (log-log), one colour per tool: steady state solid, first call dashed."""
    fams = [f for f in LOOP_FAMILIES if any(r["family"] == f and r["status"] == "ok"
                                            for r in rows)]
    fig, axes = plot.panels(plt, max(1, len(fams)), ncols=3, height=2.6)
    for ax, fam in zip(axes, fams, strict=False):
        tools = list(dict.fromkeys(r["tool"] for r in rows if r["family"] == fam
                                   and r["status"] == "ok"))
        for i, tool in enumerate(tools):
            ok = sorted((r for r in rows if r["family"] == fam and r["tool"] == tool
                         and r["status"] == "ok" and r["median_s"]), key=lambda r: r["size"])
            style = plot.series_style(i)
            proven = "" if ok[0]["proven"] else " (heuristic)"
            ax.plot([r["size"] for r in ok], [r["median_s"] for r in ok],
                    label=tool + proven, **style)
            first = [r for r in ok if r["first_call_s"]]
            ax.plot([r["size"] for r in first], [r["first_call_s"] for r in first],
                    color=style["color"], linestyle="--", linewidth=0.8, alpha=0.7)
        ax.set_xscale("log")
        ax.set_yscale("log")
        lo, hi = ax.get_ylim()
        ax.set_ylim(lo, hi * (hi / lo) ** (0.12 * len(tools)))
        _log_ticks(ax)
        ax.set_xlabel("documents per call")
        ax.set_ylabel("CPU s per call")
        ax.set_title(f"{fam} (dashed: first call)", fontsize=8)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, loc="upper left")
    if not fams:
        axes[0].text(0.5, 0.5, "no in-process rows", ha="center", va="center")
    return plot.save(fig, out_dir / "inprocess.png")


def _log_ticks(ax, narrow: float = 100.0) -> None:
    """Readable log axes: labels at powers of ten only (minor labels collide), except on an
    axis spanning less than ``narrow`` (two decades), which may hold no power of ten at all:
    there ticks and plain-number labels at 1, 2 and 5 times each power of ten."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        if 0 < lo < hi and hi / lo < narrow:
            axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        axis.set_minor_formatter(NullFormatter())


def fitted_exponent(sizes, times) -> float:
    """Slope of the least-squares line of log(times) on log(sizes)."""
    return float(np.polyfit(np.log(sizes), np.log(times), 1)[0])


def _versions_timed(rows: list[dict]) -> list[str]:
    """The SUMMARY's "Versions timed" paragraph (a blank line first): each tool's versions
    among the rows that ran; nothing when none names one."""
    timed: dict = {}
    for r in rows:
        if r["status"] != "skipped" and r.get("version"):
            timed.setdefault(r["tool"], set()).add(r["version"])
    if not timed:
        return []
    return ["", "Versions timed: " + "; ".join(f"{t}: {', '.join(sorted(v))}"
                                               for t, v in timed.items()) + "."]
