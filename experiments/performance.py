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
``drs``            ``exactalign drs --method exact --ill dummy`` (every DRS pair proven
                   optimal, else :class:`ExperimentError`) against Counter (RikVN/DRS_parsing's
                   ``evaluation/counter.py -g clf_signature.yaml -ill dummy -r 20``, the PMB
                   results' settings; optional) on the pilot PMB 3.0.0 ``bert_only`` run 1
                   against the gold dev set (``drs_pairs``: its first DRSs, ``None`` the whole
                   file, 885 pairs), else seeded synthetic DRSs against perturbed copies
                   (:func:`drs_corpus`); size = DRS pairs. Counter's wall time includes the
                   3-second pause after its ``-ill dummy`` warning; its CPU time does not.

Optional peers are never part of exactalign: each is the user's own checkout, named by an
environment variable, and skipped (one row saying so) when absent: ``EXACTALIGN_EVMEVAL``
(EvmEval, the folder with ``scorer_v1.8.py``), ``EXACTALIGN_CONLL_SCORER``
(reference-coreference-scorers, with ``scorer.pl``), ``EXACTALIGN_TE3_TOOLKIT`` (with
``TE3-evaluation.py``; it calls ``python`` and ``java``, so its runs get a PATH whose ``python``
is Python 2.7), ``EXACTALIGN_COUNTER`` (Counter's ``evaluation/`` folder, or a checkout of
RikVN/DRS_parsing holding it, with its ``wordnet_dict_en.py``; run by this interpreter, and
skipped when our WordNet sense map is not fetched, as its scores would not be comparable); ``EXACTALIGN_PYTHON2`` names Python 2.7 when ``python2.7``/``python2`` is not on
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
against ``--mapping exact``; in ``loop-smatch`` smatch -r 1/-r 4 and our hill-climber; Counter
against ``exactalign drs``), and
every exact in-process call of ours is proven optimal.

The benchmark's machinery lives in modules of its own, each importing only those before it:
:mod:`experiments.peers` (the families and their tools: command lines, versions timed, output
parsers), :mod:`experiments.perf_inputs` (seeded synthetic inputs and pilot slices),
:mod:`experiments.perf_tasks` (the in-process tasks) and :mod:`experiments.perf_report`
(summary, headline and figures from the CSV); this module holds the configuration, the units
and their run, and hands on every name of the four.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from exactalign.data import resolve_data_dir
from exactalign.data.pilot import amr_pairs

from . import timing
from .peers import (  # noqa: F401  (handed on: the benchmark's names in one place)
    COREF_METRICS,
    CORPUS_FAMILIES,
    FAMILIES,
    LOOP_FAMILIES,
    checkout,
    coref_ceafe,
    coref_tools,
    counter_dir,
    counter_f1,
    dist,
    drs_argv,
    drs_f1,
    drs_tools,
    importable,
    interpreter,
    nugget_f1,
    nugget_tools,
    ours_version,
    scorch_ceafe,
    scorch_json,
    smatch_argv,
    smatch_tools,
    te3_tools,
    tool_spec,
)
from .perf_inputs import (  # noqa: F401  (handed on: the benchmark's names in one place)
    DRS_PILOT,
    amr_pair,
    amr_triples,
    coref_clusters,
    coref_corpus,
    cycled,
    drs_corpus,
    drs_source,
    first_documents,
    model_nnz,
    nugget_corpus,
    smatch_corpus,
    synthetic_tbf,
    te3_corpus,
    write_conll,
)
from .perf_report import (  # noqa: F401  (handed on: the benchmark's names in one place)
    cores_used,
    exponents,
    figures,
    fitted_exponent,
    headline,
    largest_pair,
    loop_figure,
    loop_summary,
    memory_growth,
    pairs,
    summary,
)
from .perf_tasks import (  # noqa: F401  (handed on: the benchmark's names in one place)
    amr_lines,
    library_tools,
    loop_inputs,
    loop_tools,
)
from .runner import ExperimentError

#: The private names of the helpers that moved to modules of their own, handed on.
_checkout, _dist, _interpreter, _cycled = checkout, dist, interpreter, cycled

NAME = "performance"
DESCRIPTION = ("Speed and peak memory against each family's peer, same machine, same run: "
               "Smatch (corpus and single pairs of growing size), nuggets vs EvmEval, "
               "coreference vs the CoNLL scorer, CEAF, sequence and latent matching vs "
               "metametric, te3 vs the TempEval-3 toolkit, DRS vs Counter.")
DATA_SOURCE = ("pilot data (amr/reference file pairs, nugget/ace-dev and evmeval demo, coref "
               "reference-scorer test cases, temporal/te3-platinum, drs PMB 3.0.0 "
               "bert_only run 1 and gold dev) where present; seeded "
               "synthetic inputs of growing size always")
#: The paths under the data directory this experiment reads (its meta.json records their digest).
DATA_READS = ("amr", "nugget/ace-dev", "nugget/evmeval/scoring_demo",
              "coref/conll-reference-scorer-tests/DataFiles", "temporal/te3-platinum",
              *DRS_PILOT)
SEEDING = ("synthetic inputs from config seed: AMR pairs random.Random(f'{seed}-perf-{n}') over "
           "synthetic_bank(seed); coreference and sequences numpy.random.default_rng([seed, "
           "size]); synthetic DRSs random.Random(f'{seed}-perf-drs-{n}'); exactalign's exact "
           "paths draw no random numbers; smatch.py reseeds from system entropy; Counter "
           "draws from its unseeded global generator")

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
    "drs_pairs": [None],         # DRS pairs of the pilot file (None: all 885)
    "drs_restarts": 20,          # Counter's -r, its default
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
         "coref_cases": ["TC-A-1"], "coref_sizes": [], "ceaf_sizes": [30], "drs_pairs": [20],
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
    source = drs_source(data)
    for n in config.get("drs_pairs", ()):
        size = 885 if n is None else n  # the pilot file, and the synthetic stand-in, hold 885
        out.append({"family": "drs", "dataset": source if n is None else f"{source}[:{n}]",
                    "n": n, "size": size, "size_unit": "DRS pairs"})
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
            size = amr_triples(paths[0]) + amr_triples(paths[1])
        return size, smatch_tools(config), lambda t: smatch_argv(t, *paths)
    if fam == "nugget":
        nug = resolve_data_dir().require("nugget")
        extra: list[str] = []
        if "docs" in unit:
            g, s = work / "gold.tbf", work / "system.tbf"
            first_documents(nug / "ace-dev" / "gold.tbf", g, unit["docs"])
            first_documents(nug / "ace-dev" / "system.tbf", s, unit["docs"])
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
    if fam == "drs":
        paths = drs_corpus(unit["n"], seed, work)[:2]
        return unit["size"], drs_tools(config), lambda t: drs_argv(t, *paths)
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
    "drs": [("exactalign-exact", f"counter-r{FULL['drs_restarts']}", "le", 1e-9)],
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
