"""Reference values: every number the official TAC KBP scorer v1.8 printed on the pilot inputs
(``pilot/nugget``, see its MANIFEST) is reproduced -- one test per official ``.scores`` file,
number by number, and the report text itself byte for byte up to the coreference section (not
produced by exactalign yet). Skipped without the pilot data."""

from __future__ import annotations

import math

import pytest

from exactalign.core.result import Status
from exactalign.data import resolve_data_dir
from exactalign.metrics import nugget

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

#: A printed number x.xx stands for the interval +-0.005 around it.
TOL = 0.005 + 1e-9

pytestmark = pytest.mark.skipif(NUGGET is None or not NUGGET.is_dir(),
                                reason="pilot data (nugget/) not available")


def _path(rel):
    return None if rel is None else str(NUGGET / rel)


def _evaluate(official, mappings=("kbp",)):
    gold, system, tkn = CASES[official]
    return nugget.evaluate_files(_path(gold), _path(system), token_dir=_path(tkn),
                                 compat=True, mappings=mappings)


def _same(ours: float, theirs: float) -> bool:
    if math.isnan(theirs) or math.isnan(ours):
        return math.isnan(theirs) and math.isnan(ours)
    return abs(ours - theirs) <= TOL


def test_every_official_file_is_covered():
    found = {p.relative_to(NUGGET).as_posix() for p in NUGGET.rglob("*.scores")}
    assert found == set(CASES)


@pytest.mark.parametrize("official", sorted(CASES), ids=lambda p: p.rsplit("/", 1)[-1])
def test_reproduces_official_v18(official):
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
    # and the report text, byte for byte, up to the coreference section
    expected = text.split(nugget.COREF_SECTION, 1)[0]
    assert nugget.format_v18(ev.scores["kbp"]) == expected


@pytest.mark.parametrize("official", sorted(CASES), ids=lambda p: p.rsplit("/", 1)[-1])
def test_exact_bounds_every_heuristic_on_pilot_data(official):
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
    ev = nugget.evaluate_files(_path(gold), _path(system), scheme="muc", partial=partial,
                               optional_values=["lifeinjure"], mappings=nugget.MAPPINGS)
    exact = ev.scores["exact"]
    for c in ev.combinations:
        r = exact.ratio[c]
        assert r.status is Status.OPTIMAL and r.bound == pytest.approx(r.ratio)
        assert exact.micro(c).f1 == pytest.approx(r.ratio)
        for m in nugget.HEURISTIC_MAPPINGS:
            assert ev.scores[m].micro(c).f1 <= r.ratio + 1e-12, (m, c)
