"""The pilot data's layout, named once: the experiments (and tests) find and read pilot files
through this module -- which files pair with which (independent of the recorded reference
values: ``amr/reference/*.json`` and the like are not fetchable, so a fetched cache has the AMR
files without them, and the pairs must not depend on them), the MUC-4 1992 layout and systems,
the modern template fillers, and the readers that cache what several experiments read."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import NamedTuple


class AmrPair(NamedTuple):
    name: str
    test: Path
    gold: Path
    pairs: int  # graphs in each file
    reference: dict | None  # amr/reference/NAME.json, when present


#: name -> (test file, gold file, graphs in each), under ``amr/``; each name is also that of its
#: recorded reference values, ``amr/reference/NAME.json`` (a test pins the two together).
AMR_PAIRS = {
    "bamboo_sts_test": ("bamboo-sts-test/src.test.amr", "bamboo-sts-test/tgt.test.amr", 1380),
    "lp_bart_t5_vs_gold": ("lpp-two-parsers/src.test.amr", "lpp-two-parsers/tgt.test.amr", 400),
    "lp_camr_vs_gold": ("lpp-test-jamr-camr/wang.txt", "lpp-test-jamr-camr/lp_test.txt", 103),
    "lp_jamr_vs_camr": ("lpp-test-jamr-camr/jamr.txt", "lpp-test-jamr-camr/wang.txt", 103),
    "lp_jamr_vs_gold": ("lpp-test-jamr-camr/jamr.txt", "lpp-test-jamr-camr/lp_test.txt", 103),
}


def amr_pairs(amr: Path, names=None) -> list[AmrPair]:
    """The AMR file pairs present under ``amr`` (both files there), in name order, restricted
    to ``names`` (file names ``NAME.json`` or bare names) when given; each with its reference
    values when ``amr/reference/NAME.json`` is there."""
    wanted = None if not names else {Path(n).stem for n in names}
    out = []
    for name, (test, gold, n) in sorted(AMR_PAIRS.items()):
        if wanted is not None and name not in wanted:
            continue
        if not ((amr / test).is_file() and (amr / gold).is_file()):
            continue
        ref = amr / "reference" / f"{name}.json"
        out.append(AmrPair(name, amr / test, amr / gold, n,
                           json.loads(ref.read_text()) if ref.is_file() else None))
    return out


#: The Little Prince AMR bank v3.0 (1,562 sentence graphs in text order), under ``amr/``.
LITTLE_PRINCE_BANK = "gold-banks/amr-bank-struct-v3.0.txt"
#: The sentence that opens a chapter of the Little Prince bank.
_CHAPTER = re.compile(r"^Chapter \d+ \.$")


def penman_graphs(path: Path) -> list:
    """The graphs of an AMR file as :class:`penman.Graph` objects with their metadata (no
    cache: callers may keep them), penman's warnings about graphs it reads as written (an
    inverted role on a constant, as CAMR writes some) kept off the output."""
    import logging

    import penman

    log = logging.getLogger("penman")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        return penman.load(str(path))
    finally:
        log.setLevel(level)


def little_prince_chapters(amr: Path) -> list[list]:
    """The Little Prince bank v3.0 (:data:`LITTLE_PRINCE_BANK`) as its 27 chapters: lists of
    sentence graphs (:func:`penman_graphs`) in text order, each starting with the sentence
    ``Chapter N .``."""
    chapters: list[list] = []
    for g in penman_graphs(amr / LITTLE_PRINCE_BANK):
        if _CHAPTER.match(g.metadata.get("snt", "").strip()) or not chapters:
            chapters.append([])
        chapters[-1].append(g)
    return chapters


class ParserRun(NamedTuple):
    """Real parser outputs of the same sentences, in text order: the gold graphs, the graphs
    of each system (same order), and the sentence ids."""

    name: str
    gold: list
    systems: dict  # system name -> list of penman graphs
    ids: tuple


#: name -> (gold file, {system: file}), under ``amr/``: the parsers of :data:`AMR_PAIRS`.
AMR_PARSER_RUNS = {
    "lp-jamr-camr": ("lpp-test-jamr-camr/lp_test.txt",
                     {"JAMR": "lpp-test-jamr-camr/jamr.txt",
                      "CAMR": "lpp-test-jamr-camr/wang.txt"}),
    "lp-bart-t5": ("lpp-two-parsers/tgt.test.amr", {"BART": "lpp-two-parsers/src.test.amr"}),
}


def _sentence_number(sid: str) -> int:
    return int(sid.rsplit(".", 1)[1])


def amr_parser_runs(amr: Path, names=None) -> list[ParserRun]:
    """The parser runs of :data:`AMR_PARSER_RUNS` present under ``amr`` (restricted to
    ``names``), each in text order (by the number of its ``lpp_1943.N`` ids):

    * ``lp-jamr-camr`` -- JAMR and CAMR on the Little Prince v1.6 test sentences 1460-1562 (103
      consecutive sentences) with their gold;
    * ``lp-bart-t5`` -- the BART- and T5-based parsers on 200 Little Prince sentences
      (``src.test.amr`` alternates BART, T5; ``tgt.test.amr`` holds each gold twice), sorted
      into text order: not consecutive (their ids skip, e.g. 2-10, 13-16, ...)."""
    out = []
    for name, (gold, systems) in AMR_PARSER_RUNS.items():
        paths = [amr / gold, *(amr / f for f in systems.values())]
        if (names is not None and name not in names) or not all(p.is_file() for p in paths):
            continue
        g = penman_graphs(amr / gold)
        if name == "lp-bart-t5":
            src = penman_graphs(amr / systems["BART"])
            g, sys_ = g[::2], {"BART": src[::2], "T5": src[1::2]}
        else:
            sys_ = {s: penman_graphs(amr / f) for s, f in systems.items()}
        ids = [x.metadata.get("id", "") for x in g]
        order = sorted(range(len(g)), key=lambda k: _sentence_number(ids[k]))
        out.append(ParserRun(name, [g[k] for k in order],
                             {s: [xs[k] for k in order] for s, xs in sys_.items()},
                             tuple(ids[k] for k in order)))
    return out


#: The CoNLL reference scorer's test cases, under ``coref/``.
CONLL_TESTS = "conll-reference-scorer-tests"


def conll_test_pairs(base: Path) -> list[tuple[str, str]]:
    """``(key file, response file)`` of every test case in ``base`` (the folder
    :data:`CONLL_TESTS`), paths relative to it, in case order (``TC-A-1`` ... ``TC-A-13``,
    ``TC-B-1``, ...): each ``DataFiles/TC-X-N.response`` with its ``TC-X.key``. The harness's
    expected values (``expected_values.json``, recorded) list the same pairs in the same order
    (a test pins it); the pairs do not depend on them."""
    pairs = []
    for resp in (base / "DataFiles").glob("*.response"):
        case, _, n = resp.stem.rpartition("-")
        if case and n.isdigit() and (base / "DataFiles" / f"{case}.key").is_file():
            pairs.append((f"DataFiles/{case}.key", f"DataFiles/{resp.name}", int(n)))
    return [(k, r) for k, r, _ in sorted(pairs, key=lambda p: (p[0], p[2]))]


# --------------------------------------------------------------------------------------------
# MUC-4: the 1992 distribution and the modern template fillers
# --------------------------------------------------------------------------------------------
#: The 17 systems of the 1992 evaluation: TST3 directory name -> TST4 file prefix.
MUC4_1992_SYSTEMS = {
    "BBN": "bbn", "GE": "ge", "GE-CMU": "ge-cmu", "HUGHES": "hughes", "LSI": "lsi",
    "MDC": "mdc", "MITRE": "mitre", "NMSU": "nm-br", "NYU": "nyu", "PARAMAX": "pmax",
    "PRC": "prc", "SRA": "sra", "SRI": "sri", "SYNCH": "um-cq", "UMASS": "umass",
    "UMICH": "umich", "USC": "usc"}
#: Modern template fillers in GTT format: system -> prediction file under ``muc4/``.
MUC4_MODERN = {"GTT": "gtt/preds_gtt.out", "DyGIE++": "das2022/dygie_muc_preds.out",
               "GE-1992": "das2022/ge_output.json", "NYU-1992": "das2022/nyu_output.json",
               "SRI-1992": "das2022/sri_output.json", "UMass-1992": "das2022/umass_output.json",
               "IterX-bert-base": "iterx/bert-base/preds.test.jsonlines",
               "IterX-bart-base": "iterx/bart-base/preds.test.jsonlines",
               "IterX-bart-large": "iterx/bart-large/preds.test.jsonlines",
               "IterX-t5-large": "iterx/t5-large-enc/preds.test.jsonlines"}
#: The GTT-format gold of the MUC-4 test set, under the data directory.
GTT_TEST = "muc4/gtt/test.json"


def muc4_1992_paths(root: Path, test_set: str, system: str) -> tuple[Path, Path, Path, Path]:
    """``(key, response, judgement history, official score report)`` of a 1992 ``system`` on
    ``test_set`` (``TST3`` or ``TST4``) under the data directory ``root``."""
    d = root / "muc4" / "muc4_1992"
    extracted = d / "results" / "extracted"
    if test_set == "TST3":
        return (d / "keys" / "key-tst3.v2", d / "responses" / "TST3" / f"{system}.response.tst3",
                extracted / "final-history-nrad.tst3",
                extracted / "scores-pass1.tst3.nrad" / system / "scores.tst3-pass1.nrad")
    s = MUC4_1992_SYSTEMS[system]
    return (d / "keys" / "key-tst4.v2", d / "responses" / "TST4" / f"{s}-response.tst4",
            extracted / "final-cumulative-hist.tst4",
            extracted / "scores-pass1.tst4.nrad" / f"{s}-scores-pass1.tst4.nrad")


@functools.lru_cache(maxsize=4)
def muc4_1992_keys(key_p: Path, hist_p: Path):
    """``(keys by message, judgement history)`` of a test set, read once per process."""
    from ..io import muc4 as io

    return io.by_message(io.read_templates(key_p)), io.read_history(hist_p)


@functools.lru_cache(maxsize=2)
def gtt_gold(path: Path):
    """A GTT-format gold file (:data:`GTT_TEST`), read once per process."""
    from ..io import gtt

    return gtt.read_gold(path)


# --------------------------------------------------------------------------------------------
# event nuggets
# --------------------------------------------------------------------------------------------
def tbf_pair(root: Path, gold: str, system: str, tkn: str | None = None):
    """``(gold, system, token tables)`` of two TBF files under ``root`` (paths relative to it),
    read in token mode with the token tables of folder ``tkn`` when given, else in character
    mode (tables ``None``)."""
    from ..io.tbf import read_tbf, read_token_table, token_table_path

    mode = "token" if tkn else "char"
    g = read_tbf(root / gold, mode=mode)
    s = read_tbf(root / system, mode=mode)
    tables = None
    if tkn:
        tables = {d: read_token_table(token_table_path(root / tkn, d)) for d in g.documents}
    return g, s, tables


# --------------------------------------------------------------------------------------------
# DRS parsing (Parallel Meaning Bank, clause format)
# --------------------------------------------------------------------------------------------
#: The gold DRS files under ``drs/``: name -> (path under ``drs/``, DRSs in it).
DRS_GOLD = {
    "pmb-2.1.0/dev": ("gold/pmb-2.1.0/dev.txt", 557),
    "pmb-2.2.0/dev": ("gold/pmb-2.2.0/dev.txt", 682),
    "pmb-2.2.0/test": ("gold/pmb-2.2.0/test.txt", 650),
    "pmb-3.0.0/dev": ("gold/pmb-3.0.0/dev.txt", 885),
}


def drs_files(drs: Path) -> list[Path]:
    """Every DRS clause file under ``drs`` (the pilot's ``drs/`` folder): the gold files and
    the system outputs (``*.txt`` but Counter's published ``eval.txt``, and Marian's
    ``*.seq.drs.res``), in path order."""
    return sorted(p for p in drs.rglob("*") if p.is_file() and p.name != "eval.txt"
                  and (p.suffix == ".txt" or p.name.endswith(".drs.res")))
