"""Fidelity: every official scorer output we have, next to exactalign's reproduction of it.

One row per reproduced number: the official value as the peer tool printed it, ours computed
the way that tool computes it, their difference and whether it lies within the printed precision
of the official value (``tolerance``: half a unit of its last printed digit; for the CoNLL
reference scorer's test suite the harness's own 1e-4), and the known reason of any residual.
Official outputs compared (each row's ``source`` names the file):

* **EvmEval scorer v1.8** (``nugget/``): every number of the 9 official ``.scores`` reports
  (scoring demo, token and character based; ACE-2005 dev and its perturbed systems) -- micro
  and macro P/R/F1 of the four attribute combinations, the coreference section (``-c`` run),
  with ``detail`` also every document and type row; the number of report lines our
  :func:`~exactalign.metrics.nugget.format_v18` reproduces byte for byte; and the totals of the
  CoNLL reference scorer's log that v1.8 ran (``char_based.system_A.coref``);
* **CoNLL reference coreference scorer v8.01** test suite (``coref/conll-reference-scorer-tests``,
  ``expected_values.json``): the 91 active (R, P, F1) triples; a row matches when its triple
  passes the harness's check (the sum of the three absolute differences below 1e-4);
* **TempEval-3 toolkit** temporal awareness on TE3-Platinum (F1/P/R of four runs, as printed in
  the pilot ``MANIFEST.md``, transcribed in :mod:`exactalign.testing.recorded`);
* **MUC-4 1992 scorer** (``muc4/muc4_1992/results/extracted``): the ALL TEMPLATES row of each of
  the 34 NRaD score reports (POS ACT COR PAR INC SPU MIS, REC PRE as the scorer's rounded
  integer percentages, and its three F-measures computed from those), against our scoring of the
  report's own mapping with the final judgement history
  (:func:`exactalign.metrics.muc4.compare_report`); the note gives the residual of a report and
  counts its differing slot rows by cause: a pass-1 human judgement (ICR/IPA) other than the final
  history's, a follow-on of one in the same template pair (no judgement difference in the row
  itself), or unexplained;
* **GTT's evaluation** (template P/R/F1 of GTT on the MUC-4 test set) and **GRIT's** (CEAF-REE
  F1, φ_strict), as printed in ``MANIFEST.md`` (transcribed there too);
* **smatch 1.0.4** triple counts (``amr/reference/*.json``, built by ``smatch -f``): corpus test
  and gold triples and the pairs whose per-pair counts we reproduce. (The ``optimal_match``
  values there come from an independent ILP, not from a peer tool, and smatch's hill-climbing
  counts are lower bounds, not a score we reproduce: neither is compared here.)

With ``recorded``: official outputs of runs made outside the pilot, recorded in the tests
(``source`` says which): EvmEval v1.8 ``-c`` on the four ACE pairs, the TempEval-3 toolkit's
per-document counts of one TE3-Platinum run and its entity counters on the four runs.

Missing data: a family whose pilot folder is absent gives one row ``(data absent)`` saying so
(``match`` empty); without any pilot data there is a single such row -- there is nothing
official to compare with, and no synthetic stand-in would mean anything. Official outputs known
to exist but not in the pilot data nor the tests (TimeBank-Dense, the smatch repository's test
expectations) are named in the summary. Nothing here is random (``seed`` is unused); a unit (one
report, run or reference file) that raises is one row with its ``error``. Rows record no solver
``Result``, hence no ``fallback`` column.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path

from exactalign.data import resolve_data_dir
from exactalign.data.pilot import MUC4_1992_SYSTEMS
from exactalign.testing import recorded as peer_runs

from . import plot
from .runner import parallel_map

NAME = "fidelity"
DESCRIPTION = ("Fidelity: every official scorer output in the pilot data (EvmEval v1.8, CoNLL "
               "reference scorer tests, TempEval-3 toolkit, MUC-4 1992 reports, GTT, GRIT, "
               "IterX CEAF-RME, smatch triple counts) next to exactalign's reproduction, number "
               "by number.")
DATA_SOURCE = ("pilot data: the official outputs in nugget/, coref/, temporal/, muc4/ (1992 "
               "score reports, IterX's per-document CEAF-RME outputs) and amr/reference/ (the "
               "amr-reference recipe), with the official numbers the manifest states kept in "
               "exactalign.testing.recorded; without it, one row saying there is nothing to "
               "compare")
#: The paths under the data directory this experiment reads (its meta.json records their digest).
DATA_READS = ("nugget", "coref/conll-reference-scorer-tests",
              "temporal/te3-platinum", "temporal/tbdense", "muc4", "amr/reference",
              "amr/lpp-test-jamr-camr", "amr/lpp-two-parsers", "amr/bamboo-sts-test")
SEEDING = "deterministic: no randomness (config['seed'] is not used)"

#: config name -> (family as shown, pilot folder it needs).
FAMILIES = {
    "evmeval": ("EvmEval v1.8", "nugget"),
    "conll": ("CoNLL scorer v8.01", "coref/conll-reference-scorer-tests"),
    "te3": ("TempEval-3 toolkit", "temporal/te3-platinum"),
    "muc4": ("MUC-4 1992 scorer", "muc4/muc4_1992/results/extracted"),
    "gtt": ("GTT eval", "muc4/gtt"),
    "grit": ("GRIT eval", "muc4/grit"),
    "iterx": ("IterX CEAF-RME", "muc4/iterx"),
    "smatch": ("smatch 1.0.4", "amr/reference"),
}
#: IterX's per-document CEAF-RME outputs: file -> (metric, how exactalign computes it).
ITERX_OUTPUTS = {"test.rme.subset.txt": "phi_subset", "test.rme.phi3.txt": "phi3"}

#: ``muc4_reports``: [test set, system] pairs (``None``: all 34); ``detail``: the EvmEval
#: document and type rows too; ``recorded``: the runs recorded in the tests, of which
#: ``ace_coref`` ACE systems (``None``: all four); ``smatch``: reference files (``None``: all).
FULL = {"seed": 0, "families": list(FAMILIES), "muc4_reports": None, "detail": True,
        "recorded": True, "ace_coref": None, "smatch": None, "iterx": None}
QUICK = {"seed": 0, "families": list(FAMILIES),
         "muc4_reports": [["TST4", "GE"], ["TST3", "MDC"], ["TST3", "NYU"], ["TST4", "SRI"]],
         "detail": False, "recorded": True, "ace_coref": ["system"],
         "smatch": ["lp_camr_vs_gold", "lp_jamr_vs_gold"], "iterx": ["bert-base"]}

COLUMNS = ("family", "dataset", "system", "metric", "official", "ours", "difference",
           "tolerance", "match", "note", "source", "error")
FIGURES = ("fidelity.png",)
#: Without pilot data the figure is a labelled placeholder.
PILOT_FIGURES = FIGURES

#: Slack added to every tolerance (float noise in ours).
EPS = 1e-9
#: The CoNLL reference harness: sum of |expected - actual| over (R, P, F1) below this.
CONLL_TOLERANCE = 1e-4

NUGGET_DEMO = "evmeval/scoring_demo"
NUGGET_OFFICIAL = "evmeval/official-v1.8"
#: official .scores (under nugget/) -> (dataset, system, gold, system file, token dir, -c run).
NUGGET_CASES = {
    **{f"{NUGGET_OFFICIAL}/token_based.sample_system_{x}.scores":
       ("scoring_demo/token_based", f"sample_system_{x}", f"{NUGGET_DEMO}/token_based/gold.tbf",
        f"{NUGGET_DEMO}/token_based/sample_system_{x}.tbf", f"{NUGGET_DEMO}/token_based/tkn",
        False) for x in "ABCD"},
    f"{NUGGET_OFFICIAL}/char_based.system_A.scores":
        ("scoring_demo/char_based", "system_A", f"{NUGGET_DEMO}/char_based/gold.tbf",
         f"{NUGGET_DEMO}/char_based/system_A.tbf", None, True),
    "ace-dev/official-v1.8.scores":
        ("ace-dev", "system", "ace-dev/gold.tbf", "ace-dev/system.tbf", None, False),
    **{f"ace-dev/perturbed/system{k}.official-v1.8.scores":
       ("ace-dev", f"perturbed/system{k}", "ace-dev/gold.tbf",
        f"ace-dev/perturbed/system{k}.tbf", None, False) for k in (1, 2, 3)},
}

# ------------------------------------------------------------------------------------------
# official outputs recorded in the tests (runs made outside the pilot data; the tests are the
# authority, tests/test_experiment_fidelity.py checks these copies against them)
# ------------------------------------------------------------------------------------------
#: Peer runs recorded outside the pilot (:mod:`exactalign.testing.recorded`, the tests' own
#: reference values): EvmEval -c on the ACE pairs, the TE3 toolkit per document, its entity
#: counters.
RECORDED_ACE_COREF = peer_runs.ACE_COREF
SOURCE_ACE_COREF = ("scorer_v1.8.py -c, run outside the pilot; recorded in "
                    "exactalign/testing/recorded/official.py")
RECORDED_TE3_RUN = peer_runs.TE3_PER_DOC_RUN
RECORDED_TE3_PER_DOC = peer_runs.TE3_PER_DOC
SOURCE_TE3_PER_DOC = ("TempEval-3 toolkit evaluate_two_files, run outside the pilot; recorded "
                      "in exactalign/testing/recorded/official.py")
RECORDED_TE3_MODALITY = peer_runs.TE3_MODALITY
SOURCE_TE3_ENTITIES = ("TempEval-3 toolkit evaluate_entities.py counters, run outside the "
                       "pilot; recorded in exactalign/testing/recorded/official.py")

TE3_RUNS = ("gold", "sys_ning17_SP+ILP", "sys_ning17_20_0.01_0.0", "sys_ning17_0.6_1.4_1")

#: Official outputs that exist but are in neither the pilot data nor the tests.
NOT_COMPARED = (
    "TempEval-3 entity scores of perturbed TE3-Platinum copies (tests/test_temporal_entities.py): "
    "made by a test-only perturbation, not compared here",
    "smatch's own test expectations (amr/smatch-tests holds its inputs only)",
    "MUC-4 1992 per-message and per-slot rows: counted in the notes (differing slot rows), "
    "not one row per number",
)


# ------------------------------------------------------------------------------------------
# rows
# ------------------------------------------------------------------------------------------
def _decimals(text: str) -> int:
    """Digits after the decimal point of a printed number."""
    text = text.strip()
    return len(text.split(".", 1)[1]) if "." in text else 0


def half_unit(text: str) -> float:
    """Half a unit of the last printed digit of ``text`` (``"67.2406"`` -> 5e-5)."""
    return 0.5 * 10.0 ** -_decimals(text)


def _num(v):
    if v is None or (isinstance(v, int) and not isinstance(v, bool)):
        return v
    v = float(v)
    return None if math.isnan(v) else v


def row(family: str, dataset: str, system: str, metric: str, official, ours, tolerance: float,
        source: str, note: str | None = None, match: bool | None = None) -> dict:
    """One compared number. ``nan`` on both sides (a rate over nothing, printed ``nan``) is a
    match with empty values; ``match`` overrides the tolerance test (the CoNLL harness)."""
    o, u = _num(official), _num(ours)
    nan_o = official is not None and o is None
    nan_u = ours is not None and u is None
    diff = None if o is None or u is None else u - o
    if match is None:
        if nan_o or nan_u:
            match = nan_o and nan_u
        else:
            match = diff is not None and abs(diff) <= tolerance + EPS
    if nan_o and nan_u and not note:
        note = "nan on both sides (a rate over nothing)"
    return {"family": family, "dataset": dataset, "system": system, "metric": metric,
            "official": o, "ours": u, "difference": diff, "tolerance": tolerance,
            "match": bool(match), "note": note or None, "source": source, "error": None}


#: Pilot files the official numbers of a family are read from; a data directory without one
#: (a partial fetch) gives the family an absent row. (The TE3, GTT and GRIT numbers stated in the
#: recorded MANIFEST.md are transcribed in exactalign.testing.recorded.)
OFFICIAL_FILES = {"conll": "coref/conll-reference-scorer-tests/expected_values.json"}


def absent_row(family: str, folder: str | None) -> dict:
    what = (f"pilot file {folder} absent"
            if folder in OFFICIAL_FILES.values() else f"pilot folder {folder} absent"
            if folder else "no pilot data ($EXACTALIGN_DATA unset, no ../shared/pilot)")
    return {"family": family, "dataset": None, "system": None, "metric": "(data absent)",
            "official": None, "ours": None, "difference": None, "tolerance": None,
            "match": None, "note": f"{what}: nothing official to compare with",
            "source": folder, "error": None}


# ---------------------------------------------------------------- EvmEval v1.8
def _rows_evmeval(root: Path, official: str, detail: bool) -> list[dict]:
    from exactalign.metrics import nugget

    fam = FAMILIES["evmeval"][0]
    base = root / "nugget"
    dataset, system, gold, sysf, tkn, coref = NUGGET_CASES[official]
    text = (base / official).read_text()
    ev = nugget.evaluate_files(str(base / gold), str(base / sysf),
                               token_dir=None if tkn is None else str(base / tkn), compat=True,
                               coref=coref)
    score = ev.scores["kbp"]
    theirs = nugget.parse_v18_report(text, path=official)
    ours = nugget.v18_numbers(score)
    src = f"nugget/{official}"
    tol = 0.005  # v1.8 prints every rate with two decimals
    out = []

    def add(metric, o, u, t=tol):
        out.append(row(fam, dataset, system, metric, o, u, t, src))

    for section in ("micro", "macro"):
        for comb, nums in theirs[section].items():
            for name, o, u in zip(("P", "R", "F1"), nums, ours[section].get(comb, (None,) * 3),
                                  strict=True):
                add(f"{section} {comb} {name}", o, u)
    if detail:
        for doc, by in theirs["documents"].items():
            for comb, nums in by.items():
                mine = ours["documents"].get(doc, {}).get(comb, (None,) * 3)
                for name, o, u in zip(("P", "R", "F1"), nums, mine, strict=True):
                    add(f"document {doc} {comb} {name}", o, u)
        for typ, nums in theirs["types"].items():
            mine = ours["types"].get(typ, (None,) * 5)
            for name, o, u in zip(("P", "R", "F1", "#gold", "#sys"), nums, mine, strict=True):
                add(f"type {typ} {name}", o, u, tol if name[0] != "#" else 0.5)
    c_theirs = nugget.parse_v18_coref(text, path=official)
    if c_theirs is not None:
        c = score.coref
        # v1.8 prints the reference scorer's F1 truncated to 0.01 %: ours are truncated alike
        mine = c.v18_scores()
        for m, o in c_theirs["scores"].items():
            add(f"coref {m}", o, mine.get(m))
        add("coref CoNLL average (v1.8)", c_theirs["average"], round(c.v18_average(), 2))
        log = base / official.replace(".scores", ".coref")
        if log.is_file():
            out += _rows_conll_log(fam, dataset, system, log, c, f"nugget/{log.relative_to(base)}")
    lines = text.split("\n")
    mine_lines = nugget.format_v18(score).split("\n")
    same = sum(a == b for a, b in zip(lines, mine_lines, strict=False))
    note = None if len(lines) == len(mine_lines) else (
        f"ours has {len(mine_lines)} lines, the report {len(lines)}")
    out.append(row(fam, dataset, system, "report lines reproduced byte for byte", len(lines),
                   same, 0.5, src, note=note))
    return out


_LOG_RPF = re.compile(r"Recall: \(([0-9.]+) / ([0-9.]+)\).*Precision: \(([0-9.]+) / ([0-9.]+)\)")


def _rows_conll_log(fam, dataset, system, log: Path, c, src: str) -> list[dict]:
    """The TOTALS of the CoNLL reference scorer's log written by v1.8 -c: per metric the
    recall and precision numerators and denominators (BLANC: of its coreference and
    non-coreference links)."""
    out = []
    names = ("R num", "R den", "P num", "P den")
    for block in log.read_text().split("\nMETRIC ")[1:]:
        metric = block.split(":", 1)[0]
        totals = block.split("====== TOTALS =======", 1)[-1]
        total = c.scores.overall[metric]
        for line in totals.split("\n"):
            m = _LOG_RPF.search(line)
            if m is None or line.startswith("Identification of Mentions"):
                continue
            if line.startswith("Coreference links"):
                label, p = "coreference links", total.coref
            elif line.startswith("Non-coreference links"):
                label, p = "non-coreference links", total.noncoref
            elif line.startswith("Coreference:"):
                label, p = "", total
            else:
                continue
            mine = (p.recall_num, p.recall_den, p.precision_num, p.precision_den)
            for name, o, u in zip(names, m.groups(), mine, strict=True):
                out.append(row(fam, dataset, system,
                               f"CoNLL log {metric} {label + ' ' if label else ''}{name}",
                               float(o), u, max(half_unit(o), EPS), src))
    return out


def _rows_ace_coref(root: Path, system: str) -> list[dict]:
    from exactalign.metrics import nugget

    base = root / "nugget" / "ace-dev"
    ev = nugget.evaluate_files(str(base / "gold.tbf"), str(base / f"{system}.tbf"),
                               compat=True, coref=True)
    c = ev.scores["kbp"].coref
    mine = [*c.v18_scores().values(), round(c.v18_average(), 2)]
    names = [f"coref {m}" for m in nugget.V18_COREF_ORDER] + ["coref CoNLL average (v1.8)"]
    return [row(FAMILIES["evmeval"][0], "ace-dev", system, name, o, u, 0.005, SOURCE_ACE_COREF)
            for name, o, u in zip(names, RECORDED_ACE_COREF[system], mine, strict=True)]


# ---------------------------------------------------------------- CoNLL reference scorer
def _rows_conll(root: Path) -> list[dict]:
    from exactalign.io.conll import read_pair
    from exactalign.metrics import coref

    fam = FAMILIES["conll"][0]
    base = root / "coref" / "conll-reference-scorer-tests"
    cases = json.loads((base / "expected_values.json").read_text())
    src = "coref/conll-reference-scorer-tests/expected_values.json"
    cache: dict = {}
    out = []
    for case in cases:
        k = (case["key_file"], case["response_file"])
        if k not in cache:
            cache[k] = coref.score_documents(read_pair(base / k[0], base / k[1]), coref.METRICS)
        for metric, expected in case["expected_metrics"].items():
            s = cache[k].overall[metric]
            actual = (s.recall, s.precision, s.f1)
            total = sum(abs(e - a) for e, a in zip(expected, actual, strict=True))
            ok = total < CONLL_TOLERANCE
            note = None if ok else (f"the triple's summed difference {total:.3g} is not below "
                                    f"the harness's {CONLL_TOLERANCE:g}")
            for name, e, a in zip(("R", "P", "F1"), expected, actual, strict=True):
                out.append(row(fam, "reference test suite", f"{case['id']} "
                               f"({Path(case['response_file']).name})", f"{metric} {name}",
                               e, a, CONLL_TOLERANCE, src, note=note, match=ok))
    return out


# ---------------------------------------------------------------- TempEval-3 toolkit
def _rows_te3(root: Path, run: str, recorded: bool) -> list[dict]:
    from exactalign.io.timeml import read_timeml_dir
    from exactalign.metrics.temporal import entity_scores, score_corpus

    fam = FAMILIES["te3"][0]
    base = root / "temporal" / "te3-platinum"
    official = peer_runs.TE3_OFFICIAL  # MANIFEST.md's numbers (a test pins the transcription)
    if run not in official:
        raise ValueError(f"MANIFEST.md gives no TempEval-3 toolkit score for {run}")
    gold = read_timeml_dir(base / "gold")
    system = read_timeml_dir(base / run)
    s = score_corpus(gold, system, "te3")
    out = [row(fam, "TE3-Platinum", run, f"temporal awareness {name}", float(o), 100 * u,
               half_unit(o), "MANIFEST.md (TempEval-3 toolkit)")
           for name, o, u in zip(("F1", "P", "R"), official[run],
                                 (s.f1, s.precision, s.recall), strict=True)]
    if not recorded:
        return out
    if run == RECORDED_TE3_RUN:
        docs = {d.doc_id: d for d in s.documents}
        for doc, nums in RECORDED_TE3_PER_DOC.items():
            d = docs.get(doc)
            mine = (None,) * 4 if d is None else (d.prec_matched, d.sys_total, d.rec_matched,
                                                  d.gold_total)
            for name, o, u in zip(("precision matched", "system links", "recall matched",
                                   "gold links"), nums, mine, strict=True):
                out.append(row(fam, "TE3-Platinum", run, f"document {doc} {name}", o, u, 0.5,
                               SOURCE_TE3_PER_DOC))
    e = entity_scores(gold, system)
    for label, counts, n in (("EVENT", e.events, 746), ("TIMEX3", e.timexes, 138)):
        want = {"gold": n, "system": n, "strict": n, "relaxed": n}
        mine = {"gold": counts.gold, "system": counts.system, "strict": counts.strict,
                "relaxed": counts.relaxed}
        for name, v in counts.attributes:
            want[name] = RECORDED_TE3_MODALITY[run] if name == "modality" else n
            mine[name] = v
        for name, o in want.items():
            out.append(row(fam, "TE3-Platinum", run, f"entities {label} {name}", o,
                           mine[name], 0.5, SOURCE_TE3_ENTITIES))
    return out


def _rows_tbdense(root: Path, run: str) -> list[dict]:
    """TimeBank-Dense: the toolkit's printout on the pilot runs, recorded outside the pilot."""
    from exactalign.io.timeml import read_timeml_dir
    from exactalign.metrics.temporal import score_corpus

    base = root / "temporal" / "tbdense"
    s = score_corpus(read_timeml_dir(base / "td-test-gold-timeml"), read_timeml_dir(base / run),
                     "te3")
    return [row(FAMILIES["te3"][0], "TimeBank-Dense", run, f"temporal awareness {name}", o,
                100 * u, 5e-5, "TempEval-3 toolkit, run outside the pilot; recorded in "
                "exactalign/testing/recorded/official.py")
            for name, o, u in zip(("F1", "P", "R"), peer_runs.TBDENSE[run],
                                  (s.f1, s.precision, s.recall), strict=True)]


# ---------------------------------------------------------------- MUC-4 1992
MUC_SYSTEMS = tuple(MUC4_1992_SYSTEMS)
_ALL_T = re.compile(r"^ALL TEMPLATES\s+(.*)$")
_F_MEASURES = re.compile(r"^F-MEASURES\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s*$")
#: The scorer's F-measures: (label, beta) -- "2P&R" weighs precision twice (beta 1/2).
F_MEASURES = (("F (P&R)", 1.0), ("F (2P&R)", 0.5), ("F (P&2R)", 2.0))


def muc_printed_totals(text: str) -> dict[str, str]:
    """REC, PRE and the three F-measures of a report's last ALL TEMPLATES row (the totals;
    SRI's TST4 report has one per message before them), as printed."""
    rec = pre = None
    f = None
    for line in text.splitlines():
        if m := _ALL_T.match(line.replace("\t", " ")):
            cells = m.group(1).replace("|", " ").split()
            rec, pre = cells[-3], cells[-2]
        elif m := _F_MEASURES.match(line.replace("\t", " ")):
            f = m.groups()
    if rec is None or f is None:
        raise ValueError("no ALL TEMPLATES / F-MEASURES totals in the report")
    return {"REC": rec, "PRE": pre, **{name: v for (name, _), v in zip(F_MEASURES, f,
                                                                      strict=True)}}


def f_measure(recall: float, precision: float, beta: float) -> float:
    """The scorer's F from its (integer) percentages."""
    den = beta * beta * precision + recall
    return (beta * beta + 1) * precision * recall / den if den else 0.0


def slot_causes(comparison) -> tuple[Counter, list[str]]:
    """The differing slot rows of a :class:`~exactalign.metrics.muc4.ReportComparison` by
    cause: ``judgement`` (the row's ICR/IPA differ: the report's pass-1 human judgement is not
    the final history's), ``follow-on`` (no judgement difference in the row, but one in another
    slot of the same template pair -- a cross-referenced slot), ``unexplained``; and the
    unexplained rows as ``message slot``."""
    causes: Counter = Counter()
    unexplained = []
    judged = {(d.message, d.key, d.response) for d in comparison.slot_diffs if d.interactive}
    for d in comparison.slot_diffs:
        if d.interactive:
            causes["judgement"] += 1
        elif (d.message, d.key, d.response) in judged:
            causes["follow-on"] += 1
        else:
            causes["unexplained"] += 1
            unexplained.append(f"{d.message} {d.slot}")
    return causes, unexplained


def muc_note(comparison) -> str | None:
    """The residual of one report and its reason, or ``None`` when every slot row agrees:
    ``ours-official <deltas>; <n> slot rows differ: <by cause>``."""
    from exactalign.metrics import muc4

    c = comparison
    if not c.slot_diffs and c.exact:
        return None
    causes, unexplained = slot_causes(c)
    parts = []
    if causes["judgement"]:
        parts.append(f"{causes['judgement']} pass-1 human judgement (ICR/IPA) != final history")
    if causes["follow-on"]:
        parts.append(f"{causes['follow-on']} follow-on of one in the same template pair")
    if causes["unexplained"]:
        parts.append(f"{causes['unexplained']} unexplained ({', '.join(unexplained)})")
    n = len(c.slot_diffs)
    rows = f"{n} slot row{'s differ' if n != 1 else ' differs'}: " + ", ".join(parts)
    if c.exact:
        counts_moved = any(d.ours[f] != d.official[f] for d in c.slot_diffs
                           for f in muc4.FIELDS)
        text = ("ALL TEMPLATES equal, but " + rows
                + (" (the count differences cancel out)" if counts_moved
                   else " (in ICR/IPA only)"))
    else:
        text = ("ours-official " + " ".join(f"{f}{v:+d}" for f, v in c.delta.items()
                                            if f in muc4.FIELDS) + "; " + rows)
    if not c.recorded:
        text += "; the report records no mapping: compared under the automatic mapping"
    return text


def _rows_muc4(root: Path, test_set: str, system: str) -> list[dict]:
    from exactalign.data.pilot import muc4_1992_keys, muc4_1992_paths
    from exactalign.io import muc4 as io
    from exactalign.metrics import muc4

    key_p, resp_p, hist_p, rep_p = muc4_1992_paths(root, test_set, system)
    keys, history = muc4_1992_keys(key_p, hist_p)
    report = io.read_score_report(rep_p)
    c = muc4.compare_report(keys, io.by_message(io.read_templates(resp_p)), history, report)
    printed = muc_printed_totals(rep_p.read_text(encoding="latin-1"))
    note = muc_note(c)
    fam = FAMILIES["muc4"][0]
    src = rep_p.relative_to(root).as_posix()
    out = []
    for f in muc4.FIELDS:
        o, u = c.official[f], getattr(c.ours, f)
        out.append(row(fam, test_set, system, f, o, u, 0.5, src,
                       note=note if (o != u or c.exact) else None))
    rec = muc4.normalized_percent(c.ours.COR, c.ours.PAR, c.ours.POS) if c.ours.POS else 0
    pre = muc4.normalized_percent(c.ours.COR, c.ours.PAR, c.ours.ACT) if c.ours.ACT else 0
    mine = {"REC": rec, "PRE": pre,
            **{name: f_measure(rec, pre, beta) for name, beta in F_MEASURES}}
    for name, o in printed.items():
        # REC/PRE: integers; the F-measures: rounded to two decimals, trailing zeros dropped
        tol = 0.5 if name in ("REC", "PRE") else 0.005
        match = abs(mine[name] - float(o)) <= tol + EPS
        out.append(row(fam, test_set, system, name, float(o), mine[name], tol, src,
                       note=note if (not match or c.exact) else None))
    return out


# ------------------------------------------------ GTT, GRIT (MANIFEST.md, as transcribed)
def _rows_gtt(root: Path) -> list[dict]:
    from exactalign.io import gtt
    from exactalign.metrics import templates

    d = root / "muc4" / "gtt"
    o = templates.score_gtt(gtt.read_gold(d / "test.json"),
                            gtt.read_predictions(d / "preds_gtt.out"), "gtt").overall
    return [row(FAMILIES["gtt"][0], "MUC-4 test (gtt/test.json)", "GTT", f"template {name}",
                float(v), 100 * u, half_unit(v), "MANIFEST.md (GTT eval.py)")
            for name, v, u in zip(("P", "R", "F1"), peer_runs.GTT_OFFICIAL,
                                  (o.precision, o.recall, o.f1), strict=True)]


def _rows_grit(root: Path) -> list[dict]:
    from exactalign.io import gtt
    from exactalign.metrics import templates

    f1 = peer_runs.GRIT_CEAF_REE_F1
    d = root / "muc4" / "grit"
    s = templates.ceaf_ree(gtt.read_ree_gold(d / "test_ree.json"),
                           gtt.read_ree_predictions(d / "preds_s_t.out"), "strict", "exact")
    return [row(FAMILIES["grit"][0], "MUC-4 test (grit/test_ree.json)", "GRIT",
                "CEAF-REE F1 (phi_strict)", float(f1), 100 * s.overall.f1,
                half_unit(f1), "MANIFEST.md (GRIT eval.py)")]


_RME = re.compile(r"doc_id=(\S+)\s.*prec=([\d.]+)\s+rec=([\d.]+)")


def _rows_iterx(root: Path, encoder: str) -> list[dict]:
    """IterX's per-document CEAF-RME outputs (precision and recall, 4 decimals) against
    exactalign: φ_subset by the IterX alignment of :func:`exactalign.metrics.templates.
    ceaf_rme`, φ3 by the declared metric ``ceaf-rme-phi3`` (exact)."""
    from exactalign.declared.convert import read_gtt
    from exactalign.declared.library import LIBRARY
    from exactalign.io import gtt
    from exactalign.metrics import templates

    d = root / "muc4" / "iterx" / encoder
    gold_path, pred_path = root / "muc4" / "gtt" / "test.json", d / "preds.test.jsonlines"
    fam = FAMILIES["iterx"][0]
    rows = []
    for fname, phi in ITERX_OUTPUTS.items():
        official = {}
        for line in (d / fname).read_text().splitlines():
            m = _RME.match(line)
            if m:
                official[m.group(1)] = (m.group(2), m.group(3))
        if phi == "phi_subset":
            s = templates.ceaf_rme(gtt.read_gold(gold_path), gtt.read_predictions(pred_path),
                                   "iterx")
            ours = {doc.docid: (doc.counts.precision, doc.counts.recall) for doc in s.docs}
        else:
            ids, g, p = read_gtt(gold_path, pred_path)
            r = LIBRARY["ceaf-rme-phi3"]().compute(predictions=p, references=g, ids=ids)
            ours = {doc.id: (doc.prf.precision, doc.prf.recall) for doc in r.documents}
        src = f"muc4/iterx/{encoder}/{fname}"
        for doc, (op, orc) in official.items():
            up, ur = ours.get(doc, (None, None))
            rows.append(row(fam, f"MUC-4 test ({phi})", encoder, f"{doc} precision", float(op),
                            up, half_unit(op), src))
            rows.append(row(fam, f"MUC-4 test ({phi})", encoder, f"{doc} recall", float(orc),
                            ur, half_unit(orc), src))
    return rows


# ---------------------------------------------------------------- smatch 1.0.4
def _rows_smatch(root: Path, name: str) -> list[dict]:
    from exactalign.io.amr import read_pairs

    ref = root / "amr" / "reference" / f"{name}.json"
    d = json.loads(ref.read_text())
    pairs = read_pairs(root / "amr" / d["test_file"], root / "amr" / d["gold_file"])
    fam, src = FAMILIES["smatch"][0], f"amr/reference/{name}.json"
    mine = [(t.num_triples, g.num_triples) for t, g in pairs]
    want = [(p["test_triples"], p["gold_triples"]) for p in d["per_pair"]]
    same = sum(a == b for a, b in zip(mine, want, strict=False))
    ds = "amr/reference"
    return [row(fam, ds, name, "pairs", d["pairs"], len(pairs), 0.5, src),
            row(fam, ds, name, "test triples", d["corpus"]["test_triples"],
                sum(t for t, _ in mine), 0.5, src),
            row(fam, ds, name, "gold triples", d["corpus"]["gold_triples"],
                sum(g for _, g in mine), 0.5, src),
            row(fam, ds, name, "pairs with both triple counts reproduced", len(want), same, 0.5,
                src)]


# ------------------------------------------------------------------------------------------
# units
# ------------------------------------------------------------------------------------------
def units(config: dict) -> list[dict]:
    """One unit per official report, run or reference file; a family whose pilot folder is
    absent is one ``absent`` unit, and without pilot data there is a single one."""
    data = resolve_data_dir()
    if not data.available:
        return [{"kind": "absent", "family": "(all)", "folder": None}]
    root = data.path
    out: list[dict] = []
    for fam in config["families"]:
        family, folder = FAMILIES[fam]
        if not (root / folder).is_dir():
            out.append({"kind": "absent", "family": family, "folder": folder})
            continue
        r = str(root)
        if fam == "evmeval":
            out += [{"kind": fam, "root": r, "family": family, "dataset": v[0], "system": v[1],
                     "official": k, "detail": bool(config["detail"])}
                    for k, v in NUGGET_CASES.items() if (root / "nugget" / k).is_file()]
            if config["recorded"]:
                out += [{"kind": "ace-coref", "root": r, "family": family, "dataset": "ace-dev",
                         "system": s} for s in config["ace_coref"] or RECORDED_ACE_COREF]
        elif fam in OFFICIAL_FILES and not (root / OFFICIAL_FILES[fam]).is_file():
            out.append({"kind": "absent", "family": family, "folder": OFFICIAL_FILES[fam]})
        elif fam == "conll":
            out.append({"kind": fam, "root": r, "family": family,
                        "dataset": "reference test suite"})
        elif fam == "te3":
            out += [{"kind": fam, "root": r, "family": family, "dataset": "TE3-Platinum",
                     "system": run, "recorded": bool(config["recorded"])} for run in TE3_RUNS]
            if config["recorded"] and (root / "temporal" / "tbdense").is_dir():
                out += [{"kind": "tbdense", "root": r, "family": family,
                         "dataset": "TimeBank-Dense", "system": run}
                        for run in peer_runs.TBDENSE]
        elif fam == "muc4":
            reports = config["muc4_reports"] or [[t, s] for t in ("TST3", "TST4")
                                                 for s in MUC_SYSTEMS]
            out += [{"kind": fam, "root": r, "family": family, "dataset": t, "system": s}
                    for t, s in reports]
        elif fam in ("gtt", "grit"):
            out.append({"kind": fam, "root": r, "family": family})
        elif fam == "iterx":
            encoders = sorted(p.name for p in (root / folder).iterdir()
                              if (p / "preds.test.jsonlines").is_file())
            out += [{"kind": fam, "root": r, "family": family, "system": e}
                    for e in (encoders if config.get("iterx") is None else
                              [e for e in encoders if e in config["iterx"]])]
        elif fam == "smatch":
            out += [{"kind": fam, "root": r, "family": family, "dataset": "amr/reference",
                     "system": p.stem} for p in sorted((root / folder).glob("*.json"))
                    if config["smatch"] is None or p.stem in config["smatch"]]
    return out


def run_unit(unit: dict) -> list[dict]:
    kind = unit["kind"]
    if kind == "absent":
        return [absent_row(unit["family"], unit["folder"])]
    root = Path(unit["root"])
    if kind == "evmeval":
        return _rows_evmeval(root, unit["official"], unit["detail"])
    if kind == "ace-coref":
        return _rows_ace_coref(root, unit["system"])
    if kind == "conll":
        return _rows_conll(root)
    if kind == "tbdense":
        return _rows_tbdense(root, unit["system"])
    if kind == "te3":
        return _rows_te3(root, unit["system"], unit["recorded"])
    if kind == "muc4":
        return _rows_muc4(root, unit["dataset"], unit["system"])
    if kind == "gtt":
        return _rows_gtt(root)
    if kind == "grit":
        return _rows_grit(root)
    if kind == "iterx":
        return _rows_iterx(root, unit["system"])
    if kind == "smatch":
        return _rows_smatch(root, unit["system"])
    raise ValueError(f"unknown unit kind {kind!r}")


def _key(unit: dict) -> str:
    return "/".join(str(unit.get(k)) for k in ("kind", "family", "dataset", "system",
                                                "official", "folder"))


def _cells(unit: dict) -> dict:
    return {k: unit.get(k) for k in ("family", "dataset", "system")}


def run(config: dict, *, jobs: int = 1, quiet: bool = False) -> list[dict]:
    """The rows of every unit, in :func:`units` order."""
    per_unit = parallel_map(run_unit, units(config), jobs=jobs, desc=NAME, quiet=quiet,
                            key=_key, cells=_cells)
    return [r for rs in per_unit for r in rs]


# ------------------------------------------------------------------------------------------
# summary and figure (from the CSV rows alone)
# ------------------------------------------------------------------------------------------
def _groups(rows: list[dict]) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = {}
    for r in rows:
        if r["match"] is None:
            continue
        recorded = "recorded in tests" in str(r["source"] or "")
        out.setdefault((r["family"], r["dataset"], recorded), []).append(r)
    return out


def _fmt(v) -> str:
    if v in (None, ""):
        return ""
    return f"{v:.4g}" if isinstance(v, float) and v != int(v) else f"{v:g}"


def summary(rows: list[dict]) -> str:
    """Per family and dataset: numbers matched / compared, the exactly equal ones, max
    |difference| (and max |difference| / tolerance); then every residual with its reason."""
    lines = ["| family | dataset | source | matched / numbers | equal | max abs. difference "
             "| max diff. / tolerance |", "|---|---|---|---|---|---|---|"]
    tot = ok = equal = 0
    for (fam, ds, recorded), rs in _groups(rows).items():
        diffs = [abs(r["difference"]) for r in rs if r["difference"] not in (None, "")]
        ratio = [abs(r["difference"]) / r["tolerance"] for r in rs
                 if r["difference"] not in (None, "") and r["tolerance"]]
        n_ok = sum(bool(r["match"]) for r in rs)
        n_eq = sum(r["difference"] == 0 or (r["official"] is None and r["match"]) for r in rs)
        tot, ok, equal = tot + len(rs), ok + n_ok, equal + n_eq
        mark = "" if n_ok == len(rs) else "**"
        lines.append(f"| {fam} | {ds} | {'recorded run' if recorded else 'pilot'} | "
                     f"{mark}{n_ok} / {len(rs)}{mark} | {n_eq} | "
                     f"{_fmt(max(diffs, default=0.0))} | {max(ratio, default=0.0):.2f} |")
    out = [f"**{ok} of {tot} official numbers reproduced within their printed precision** "
           f"({equal} exactly equal); per family and dataset:", "", *lines, ""]
    absent = [r for r in rows if r["match"] is None]
    if absent:
        out += ["Not compared (data absent): " + "; ".join(
            f"{r['family']}: {r['note']}" for r in absent) + ".", ""]
    out += _muc_line(rows)
    if any(r["family"] == FAMILIES["iterx"][0] for r in rows):
        out += ["IterX CEAF-RME: phi_subset is IterX's own alignment (exactalign.metrics."
                "templates.ceaf_rme 'iterx'); phi3 is the declared metric ceaf-rme-phi3, solved "
                "exactly. IterX's phi3 outputs divide recall by the number of gold *entities*; "
                "its released code (ceaf_rme.py @65fd64c) divides by gold mentions, which does "
                "not reproduce them -- we follow the outputs.", ""]
    out += ["Residuals (official vs ours, and the known reason):", ""]
    res = _residuals(rows)
    out += res if res else ["- none"]
    out += ["", "Known official outputs not compared: " + "; ".join(NOT_COMPARED) + ".", ""]
    return "\n".join(out)


def headline(rows: list[dict], meta: dict | None = None) -> dict:
    """The summary's line: no heuristic here -- how many official numbers exactalign
    reproduces within their printed precision, and the families with residuals."""
    compared = [r for r in rows if r["match"] is not None]
    ok = sum(bool(r["match"]) for r in compared)
    off = sorted({r["family"] for r in compared if not r["match"]})
    families = len({r["family"] for r in compared})
    if not compared:
        finding = "No official output compared (pilot data absent)."
    else:
        unexplained = sum(1 for r in compared if not r["match"] and not r["note"])
        finding = (f"{ok:,} of {len(compared):,} official numbers from {families} peer "
                   f"scorers are reproduced within their printed precision"
                   + (f"; the residuals are in {', '.join(off)}" if off else "")
                   + (f", {unexplained} of them without a known reason." if unexplained
                      else ", each with its known reason." if off else "."))
    return {"heuristic": "none: reproduces the official scorers", "finding": finding}


_CAUSES = (("judgement", r"(\d+) pass-1 human judgement"), ("follow-on", r"(\d+) follow-on"),
           ("unexplained", r"(\d+) unexplained"))


def _muc_line(rows: list[dict]) -> list[str]:
    """Reports whose ALL TEMPLATES counts are reproduced, and the differing slot rows by cause
    (read back from the notes, one per report)."""
    fam = FAMILIES["muc4"][0]
    fields = ("POS", "ACT", "COR", "PAR", "INC", "SPU", "MIS")
    reports: dict[tuple, list[dict]] = {}
    for r in rows:
        if r["family"] == fam and r["metric"] in fields:
            reports.setdefault((r["dataset"], r["system"]), []).append(r)
    if not reports:
        return []
    exact = sum(all(r["match"] for r in rs) for rs in reports.values())
    causes: Counter = Counter()
    slot_rows = 0
    for rs in reports.values():
        note = next((r["note"] for r in rs if r["note"]), None) or ""
        if m := re.search(r"(\d+) slot rows? differ", note):
            slot_rows += int(m.group(1))
        for cause, pattern in _CAUSES:
            if m := re.search(pattern, note):
                causes[cause] += int(m.group(1))
    return [f"MUC-4 1992: ALL TEMPLATES counts (POS ACT COR PAR INC SPU MIS) reproduced exactly "
            f"for **{exact} of {len(reports)}** official reports. The reports are pass-1 "
            f"judgements, our histories final: {slot_rows} slot rows differ, "
            f"{causes['judgement']} with a pass-1 human judgement (ICR/IPA) other than the final "
            f"history's, {causes['follow-on']} following from one in the same template pair, "
            f"{causes['unexplained']} unexplained.", ""]


def _residuals(rows: list[dict]) -> list[str]:
    """One line per (family, dataset, system, note): the note, and the numbers that differ,
    official -> ours (for MUC-4 reports the printed REC/PRE/F: their counts are in the note);
    reports whose slot rows differ under an equal ALL TEMPLATES row are listed too."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        if r["match"] is False or (r["match"] and r["note"] and "differ" in str(r["note"])):
            groups.setdefault((r["family"], r["dataset"], r["system"], r["note"]), []).append(r)
    fields = ("POS", "ACT", "COR", "PAR", "INC", "SPU", "MIS")
    out = []
    for (fam, ds, system, note), rs in groups.items():
        bad = [r for r in rs if r["match"] is False
               and not (note and fam == FAMILIES["muc4"][0] and r["metric"] in fields)]
        shown = ", ".join(f"{r['metric']} {_fmt(r['official'])}->{_fmt(r['ours'])}"
                          for r in bad[:6]) + (f", ... ({len(bad)} in all)" if len(bad) > 6
                                               else "")
        reason = note or "**UNEXPECTED: no known reason**"
        out.append(f"- {fam} {ds} {system}: {reason}" + (f" [{shown}]" if shown else ""))
    return out


def figures(csv_path: Path, out_dir: Path) -> list[Path]:
    """Per family and dataset: the share of official numbers reproduced within their printed
    precision (blue) and not (vermillion), with the counts; PNG, PDF and SVG."""
    from .runner import completed_rows

    plt = plot.pyplot()
    groups = _groups(completed_rows(csv_path))
    fig, ax = plt.subplots(figsize=(plot.TEXT_WIDTH, 0.24 * max(len(groups), 4) + 1.0),
                           layout="constrained")
    if not groups:
        ax.text(0.5, 0.5, "no official outputs compared (pilot data absent)", ha="center")
        ax.set_axis_off()
        return [plot.save(fig, out_dir / FIGURES[0])]
    labels, good, bad = [], [], []
    for (fam, ds, recorded), rs in groups.items():
        labels.append(f"{fam} · {ds}" + (" (recorded run)" if recorded else ""))
        n_ok = sum(bool(r["match"]) for r in rs)
        good.append(n_ok)
        bad.append(len(rs) - n_ok)
    y = range(len(labels))
    share = [100 * g / (g + b) for g, b in zip(good, bad, strict=True)]
    ax.barh(y, share, color=plot.OKABE_ITO["blue"], label="within the printed precision")
    ax.barh(y, [100 - s for s in share], left=share, color=plot.OKABE_ITO["vermillion"],
            label="differs (reason in SUMMARY.md)")
    for k, (g, b) in enumerate(zip(good, bad, strict=True)):
        ax.text(101, k, f"{g:,}/{g + b:,}", va="center", fontsize=7)
    ax.set_yticks(list(y), labels, fontsize=7)
    ax.invert_yaxis()
    ax.grid(False, axis="y")
    ax.set_xlim(0, 112)
    ax.set_xticks(range(0, 101, 20))
    ax.set_xlabel("official numbers reproduced [%] (label: reproduced / compared)")
    plot.legend_below(fig, ax=ax, ncol=2)
    return [plot.save(fig, out_dir / FIGURES[0])]
