"""Reference values: every number the official TAC KBP scorer v1.8 printed on the pilot inputs
(``pilot/nugget``, see its MANIFEST) is reproduced -- one test per official ``.scores`` file,
number by number, and the whole report text byte for byte, coreference section included for the
run made with ``-c``; that run's CoNLL reference-scorer log (``.coref``) is checked document by
document against our in-memory conversion (entities, mention counts, every metric's counts).
Skipped without the pilot data; a case whose files are absent is skipped, naming them (the
official outputs and the perturbed ACE systems are recorded files, not in a directory that
``exactalign data fetch`` filled)."""

from __future__ import annotations

import math
import re

import pytest

from exactalign.core.result import Status
from exactalign.data import SHARED, resolve_data_dir
from exactalign.data.registry import load as load_registry
from exactalign.metrics import nugget
from exactalign.testing import recorded

DATA = resolve_data_dir()
NUGGET = None if DATA.path is None else DATA.path / "nugget"

DEMO = "evmeval/scoring_demo"
OFFICIAL = "evmeval/official-v1.8"
#: official .scores -> (gold, system, token directory or None); from MANIFEST.md.
CASES = {
    **{f"{OFFICIAL}/token_based.sample_system_{x}.scores":
       (f"{DEMO}/token_based/gold.tbf", f"{DEMO}/token_based/sample_system_{x}.tbf",
        f"{DEMO}/token_based/tkn") for x in "ABCD"},
    f"{OFFICIAL}/char_based.system_A.scores":
        (f"{DEMO}/char_based/gold.tbf", f"{DEMO}/char_based/system_A.tbf", None),
    "ace-dev/official-v1.8.scores": ("ace-dev/gold.tbf", "ace-dev/system.tbf", None),
    **{f"ace-dev/perturbed/system{k}.official-v1.8.scores":
       ("ace-dev/gold.tbf", f"ace-dev/perturbed/system{k}.tbf", None) for k in (1, 2, 3)},
}

#: The official runs made with v1.8's -c (coreference), per MANIFEST.md.
COREF_CASES = {f"{OFFICIAL}/char_based.system_A.scores"}

#: A printed number x.xx stands for the interval +-0.005 around it.
TOL = 0.005 + 1e-9

pytestmark = pytest.mark.skipif(NUGGET is None or not NUGGET.is_dir(),
                                reason="pilot data (nugget/) not available")


def _path(rel):
    return None if rel is None else str(NUGGET / rel)


def _need(*rels):
    """Skip unless every file of ``rels`` (under ``nugget/``; ``None`` ignored) is present: the
    recorded ones are absent from a directory filled by ``exactalign data fetch``."""
    missing = [f"nugget/{r}" for r in rels if r is not None and not (NUGGET / r).exists()]
    if missing:
        pytest.skip(f"pilot file(s) absent from {DATA.path}: {', '.join(missing)} (recorded files "
                    "are not fetched)")


def _evaluate(official, mappings=("kbp",)):
    gold, system, tkn = CASES[official]
    return nugget.evaluate_files(_path(gold), _path(system), token_dir=_path(tkn),
                                 compat=True, mappings=mappings,
                                 coref=official in COREF_CASES)


def _same(ours: float, theirs: float) -> bool:
    if math.isnan(theirs) or math.isnan(ours):
        return math.isnan(theirs) and math.isnan(ours)
    return abs(ours - theirs) <= TOL


def test_every_official_file_is_covered():
    # every official output the registry lists is a case, whether or not it is present here
    listed = {p.removeprefix("nugget/") for p in load_registry().files
              if p.startswith("nugget/") and p.endswith(".scores")}
    assert listed == set(CASES)
    found = {p.relative_to(NUGGET).as_posix() for p in NUGGET.rglob("*.scores")}
    assert found <= set(CASES)
    if DATA.path == SHARED:  # the complete copy: every case is there, none skipped
        assert found == set(CASES)


@pytest.mark.parametrize("official", sorted(CASES), ids=lambda p: p.rsplit("/", 1)[-1])
def test_reproduces_official_v18(official):
    _need(official, *CASES[official])
    text = (NUGGET / official).read_text()
    theirs = nugget.parse_v18_report(text, path=official)
    ev = _evaluate(official)
    ours = nugget.v18_numbers(ev.scores["kbp"])
    bad, checked = [], 0
    assert list(ours["documents"]) == list(theirs["documents"]), "document rows differ"
    for doc, row in theirs["documents"].items():
        for comb, nums in row.items():
            for name, o, t in zip(("P", "R", "F1"), ours["documents"][doc][comb], nums,
                                  strict=True):
                checked += 1
                if not _same(o, t):
                    bad.append(f"document {doc} {comb} {name}: ours {o:.4f}, official {t}")
    assert list(ours["types"]) == list(theirs["types"]), "type rows differ"
    for typ, nums in theirs["types"].items():
        for name, o, t in zip(("P", "R", "F1", "#gold", "#sys"), ours["types"][typ], nums,
                              strict=True):
            checked += 1
            if not _same(o, t):
                bad.append(f"type {typ} {name}: ours {o}, official {t}")
    for section in ("micro", "macro"):
        assert list(ours[section]) == list(theirs[section]), f"{section} rows differ"
        for comb, nums in theirs[section].items():
            for name, o, t in zip(("P", "R", "F1"), ours[section][comb], nums, strict=True):
                checked += 1
                if not _same(o, t):
                    bad.append(f"{section} {comb} {name}: ours {o:.4f}, official {t}")
    assert not bad, f"{len(bad)} of {checked} numbers differ:\n" + "\n".join(bad)
    assert checked >= 4 * 3 * 2 + 2 * 4 * 3
    # the coreference section exactly when v1.8 ran with -c, and the report text byte for byte
    theirs_coref = nugget.parse_v18_coref(text, path=official)
    assert (theirs_coref is not None) == (official in COREF_CASES)
    if theirs_coref is not None:
        c = ev.scores["kbp"].coref
        assert theirs_coref == {"scores": c.v18_scores(), "average": round(c.v18_average(), 2)}
    assert nugget.format_v18(ev.scores["kbp"]) == text


#: scorer_v1.8.py -c (Python 2.7.18, Perl 5.36, EvmEval @9f60e17) run by us on the ACE pairs
#: (the pilot's official outputs were made without -c): bcub, ceafe, ceafm, muc, blanc and the
#: average as printed. The ACE gold has no @Coreference: every mention is a singleton, so MUC
#: is 0 and B3 = CEAFe = CEAFm.
ACE_COREF = {f"{k}.tbf": v for k, v in recorded.ACE_COREF.items()}  # scorer_v1.8.py -c


@pytest.mark.parametrize("system", sorted(ACE_COREF))
def test_ace_coreference_as_scorer_v18_prints_it(system):
    _need("ace-dev/gold.tbf", f"ace-dev/{system}")
    ev = nugget.evaluate_files(_path("ace-dev/gold.tbf"), _path(f"ace-dev/{system}"),
                               compat=True, coref=True)
    c = ev.scores["kbp"].coref
    ours = (*c.v18_scores().values(), round(c.v18_average(), 2))
    assert ours == ACE_COREF[system]
    assert nugget.parse_v18_coref(nugget.format_v18(ev.scores["kbp"])) == {
        "scores": dict(zip(nugget.V18_COREF_ORDER, ACE_COREF[system], strict=False)),
        "average": ACE_COREF[system][-1]}


def _perl_log(text: str) -> dict:
    """The reference scorer's verbose log: ``{metric: {"documents": {name: {"key": [entity
    mention lists], "response": [...], "counts": {...}, "rpf": (nr, dr, np, dp)}},
    "totals": {...}}}`` (BLANC has no per-document ``rpf``; its totals are the link counts)."""
    out: dict = {}
    num = r"\(([0-9.]+) / ([0-9.]+)\)"
    rpf = re.compile(rf"Recall: {num} .*Precision: {num}")
    for block in text.split("\nMETRIC ")[1:]:
        metric = block.split(":", 1)[0]
        docs: dict = {}
        totals: dict = {}
        cur, side = None, None
        for line in block.split("\n")[1:]:
            if line.startswith("====> "):  # the key's entities, then the response's
                name = line[6:].rstrip(":")
                side = "response" if name in docs else "key"
                cur = docs.setdefault(name, {"key": [], "response": [], "counts": {}})
            elif line.startswith("Entity ") and cur is not None:
                cur[side].append([tuple(map(int, x.split(",")))
                                  for x in re.findall(r"\(([0-9,]+)\)", line)])
            elif m := re.match(r"(Total key mentions|Total response mentions|Strictly correct "
                               r"identified mentions): ([0-9]+)", line):
                cur["counts"][m.group(1)] = int(m.group(2))
            elif line.startswith("Recall: ") and cur is not None:
                cur["rpf"] = tuple(float(x) for x in rpf.search(line).groups())
            elif line.startswith("====== TOTALS"):
                cur = None
            elif (m := re.match(r"(Coreference|Coreference links|Non-coreference links): ",
                                line)) and rpf.search(line):
                totals[m.group(1)] = tuple(float(x) for x in rpf.search(line).groups())
        out[metric] = {"documents": docs, "totals": totals}
    return out


def test_conversion_matches_the_reference_scorer_log():
    official = f"{OFFICIAL}/char_based.system_A.scores"
    _need(official.replace(".scores", ".coref"), *CASES[official])
    log = _perl_log((NUGGET / official.replace(".scores", ".coref")).read_text())
    assert list(log) == list(nugget.COREF_METRICS)
    c = _evaluate(official).scores["kbp"].coref
    rows = {f"({r.doc_id}); part 000": r for r in c.documents}
    checked = 0
    for metric, entry in log.items():
        assert set(entry["documents"]) == set(rows), metric
        for name, d in entry["documents"].items():
            r, ours = rows[name], c.scores.documents[list(rows).index(name)]
            assert d["key"] == [list(x) for x in r.key.clusters], (metric, name)
            assert d["response"] == [list(x) for x in r.response.clusters], (metric, name)
            assert d["counts"] == {
                "Total key mentions": int(ours.mentions.recall_den),
                "Total response mentions": int(ours.mentions.precision_den),
                "Strictly correct identified mentions": int(ours.mentions.recall_num)}
            if metric != "blanc":
                p = ours.scores[metric]
                assert d["rpf"] == pytest.approx((p.recall_num, p.recall_den,
                                                  p.precision_num, p.precision_den))
            checked += 1
        total = c.scores.overall[metric]
        if metric == "blanc":
            for kind, p in (("Coreference links", total.coref),
                            ("Non-coreference links", total.noncoref)):
                assert entry["totals"][kind] == pytest.approx(
                    (p.recall_num, p.recall_den, p.precision_num, p.precision_den))
        else:
            assert entry["totals"]["Coreference"] == pytest.approx(
                (total.recall_num, total.recall_den, total.precision_num, total.precision_den))
    assert checked == 5 * 2


@pytest.mark.parametrize("official", sorted(CASES), ids=lambda p: p.rsplit("/", 1)[-1])
def test_exact_bounds_every_heuristic_on_pilot_data(official):
    _need(*CASES[official])
    ev = _evaluate(official, mappings=(*nugget.MAPPINGS, *nugget.SPAN_FIRST))
    exact = ev.scores["exact"]
    for d in exact.documents:
        for c in ev.combinations:
            assert d.results[c].status is Status.OPTIMAL
            for m in (*nugget.HEURISTIC_MAPPINGS, *nugget.SPAN_FIRST):
                assert ev.scores[m].document(d.doc_id).tp(c) <= d.tp(c) + 1e-9, (m, d.doc_id, c)


@pytest.mark.parametrize("partial", nugget.PARTIAL_CREDITS)
def test_muc_exact_is_proven_and_bounds_the_heuristics_on_pilot_data(partial):
    # ACE-2005 dev, perturbed system 2, with Life.Injure gold mentions optional: corpus F is a
    # ratio, maximised by Dinkelbach's method (proven); no greedy alignment reaches more.
    gold, system, _ = CASES["ace-dev/perturbed/system2.official-v1.8.scores"]
    _need(gold, system)
    ev = nugget.evaluate_files(_path(gold), _path(system), scheme="muc", partial=partial,
                               optional_values=["lifeinjure"], mappings=nugget.MAPPINGS)
    exact = ev.scores["exact"]
    for c in ev.combinations:
        r = exact.ratio[c]
        assert r.status is Status.OPTIMAL and r.bound == pytest.approx(r.ratio)
        assert exact.micro(c).f1 == pytest.approx(r.ratio)
        for m in nugget.HEURISTIC_MAPPINGS:
            assert ev.scores[m].micro(c).f1 <= r.ratio + 1e-12, (m, c)
