"""The 1992 MUC-4 official scores from the pilot data: the ALL TEMPLATES rows of the 34 NRaD score
reports (17 systems, TST3 and TST4), reproduced by scoring each report's own mapping line by line
with the 1992 scorer's rules (:func:`exactalign.metrics.muc4.compare_report`) and the final
judgement history of the test set. Skips without the pilot data.

Measured: 13 of 34 rows reproduced exactly (POS ACT COR PAR INC SPU MIS). The others differ by
1-11 fills (:data:`RESIDUAL`), every difference localised to slot rows of the report; all but 7
of those rows show a human judgement (ICR/IPA) other than the final history's -- the reports were
made while the history was still being written and revised (PRC TST4 0099: "MILITARY JUDGE
FERNANDO TORRES SILVA" COR in the report, partial in the history; GE and GE-CMU TST3 0094: a
judgement later re-asked against another key fill) -- and 6 of the 7 follow from such a
judgement in the slot a tag points to or from a history entry recorded after the report (HUGHES
TST3 0054: "THE PRESIDENTIAL RESIDENCE"). One is unexplained: NYU TST3 0041 hum-tgt-desc (POS 3
officially, 2 here: the history's optional key value also matches key fill 2 of key-tst3.v2).
SRI's TST4 report records no mapping: it is compared message by message under the automatic
mapping."""

from __future__ import annotations

from pathlib import Path

import pytest

from exactalign.core.result import Status
from exactalign.data import resolve_data_dir
from exactalign.io import muc4 as io
from exactalign.metrics import muc4 as S

pytestmark = pytest.mark.pilot

BASE = ("muc4", "muc4_1992")
SYSTEMS = ("BBN", "GE", "GE-CMU", "HUGHES", "LSI", "MDC", "MITRE", "NMSU", "NYU", "PARAMAX", "PRC",
           "SRA", "SRI", "SYNCH", "UMASS", "UMICH", "USC")
REPORTS = [(t, s) for t in ("TST3", "TST4") for s in SYSTEMS]

#: The official ALL TEMPLATES rows, POS ACT COR PAR INC SPU MIS (the reference values).
OFFICIAL = {
    ("TST3", "BBN"): (1522, 1041, 409, 105, 81, 446, 927),
    ("TST3", "GE"): (1661, 1769, 889, 143, 100, 637, 529),
    ("TST3", "GE-CMU"): (1660, 1472, 743, 142, 100, 487, 675),
    ("TST3", "HUGHES"): (1650, 2791, 410, 186, 196, 1999, 858),
    ("TST3", "LSI"): (1627, 2392, 307, 136, 121, 1828, 1063),
    ("TST3", "MDC"): (1561, 1061, 250, 138, 71, 602, 1102),
    ("TST3", "MITRE"): (1566, 2314, 172, 39, 31, 2072, 1324),
    ("TST3", "NMSU"): (1618, 1422, 294, 122, 116, 890, 1086),
    ("TST3", "NYU"): (1584, 1380, 573, 154, 106, 547, 751),
    ("TST3", "PARAMAX"): (1693, 3264, 607, 225, 225, 2207, 636),
    ("TST3", "PRC"): (1552, 1042, 364, 128, 85, 465, 975),
    ("TST3", "SRA"): (1549, 1291, 358, 117, 85, 731, 989),
    ("TST3", "SRI"): (1648, 1308, 646, 153, 116, 393, 733),
    ("TST3", "SYNCH"): (1497, 180, 33, 9, 12, 126, 1443),
    ("TST3", "UMASS"): (1602, 1310, 678, 147, 141, 344, 636),
    ("TST3", "UMICH"): (1540, 1588, 557, 155, 141, 735, 687),
    ("TST3", "USC"): (1487, 637, 84, 29, 30, 494, 1344),
    ("TST4", "BBN"): (1153, 1059, 413, 95, 78, 473, 567),
    ("TST4", "GE"): (1251, 1480, 732, 94, 74, 580, 351),
    ("TST4", "GE-CMU"): (1170, 1171, 571, 105, 65, 430, 429),
    ("TST4", "HUGHES"): (1157, 2274, 340, 150, 153, 1631, 514),
    ("TST4", "LSI"): (1130, 2127, 195, 106, 93, 1733, 736),
    ("TST4", "MDC"): (1116, 801, 207, 95, 53, 446, 761),
    ("TST4", "MITRE"): (1134, 2351, 217, 55, 42, 2037, 820),
    ("TST4", "NMSU"): (1175, 1423, 222, 115, 103, 983, 735),
    ("TST4", "NYU"): (1200, 1198, 489, 129, 87, 493, 495),
    ("TST4", "PARAMAX"): (1253, 3148, 529, 186, 193, 2240, 345),
    ("TST4", "PRC"): (1155, 803, 278, 87, 74, 364, 716),
    ("TST4", "SRA"): (1181, 1442, 395, 114, 89, 844, 583),
    ("TST4", "SRI"): (1214, 1043, 484, 112, 95, 352, 523),
    ("TST4", "SYNCH"): (1079, 182, 31, 11, 10, 130, 1027),
    ("TST4", "UMASS"): (1151, 1218, 490, 118, 87, 523, 456),
    ("TST4", "UMICH"): (1188, 1264, 374, 121, 99, 670, 594),
    ("TST4", "USC"): (1105, 508, 124, 40, 30, 314, 911),
}

#: Reports not reproduced: (ours - official on the ALL TEMPLATES row, slot rows differing,
#: of which without an interactive-judgement difference). PRC TST3: the totals agree, one slot
#: row does not (a PAR and an INC traded between slots).
RESIDUAL = {
    ("TST3", "BBN"): ({"PAR": -1, "INC": 1}, 1, 0),
    ("TST3", "GE"): ({"PAR": -1, "INC": 1}, 1, 0),
    ("TST3", "GE-CMU"): ({"PAR": -1, "INC": 1}, 1, 0),
    ("TST3", "HUGHES"): ({"ACT": -2, "COR": -1, "PAR": 1, "SPU": -2}, 6, 1),
    ("TST3", "NMSU"): ({"ACT": -2, "COR": -1, "PAR": -2, "INC": 1, "MIS": 2}, 2, 0),
    ("TST3", "NYU"): ({"POS": -1, "COR": -1, "PAR": -1, "INC": 2, "MIS": -1}, 3, 1),
    ("TST3", "PARAMAX"): ({"ACT": -4, "COR": -1, "PAR": -8, "INC": 5, "MIS": 4}, 8, 2),
    ("TST3", "PRC"): ({}, 1, 0),
    ("TST3", "SRA"): ({"COR": 1, "PAR": -3, "INC": 2}, 6, 0),
    ("TST3", "SRI"): ({"PAR": -10, "INC": 10}, 10, 0),
    ("TST3", "UMASS"): ({"ACT": -1, "COR": -1, "MIS": 1}, 7, 0),
    ("TST3", "USC"): ({"COR": 1, "PAR": -3, "INC": 2}, 2, 0),
    ("TST4", "BBN"): ({"ACT": -1, "COR": -3, "PAR": -2, "INC": 4, "MIS": 1}, 4, 1),
    ("TST4", "GE-CMU"): ({"ACT": -4, "COR": -2, "PAR": -7, "INC": 5, "MIS": 4}, 5, 0),
    ("TST4", "HUGHES"): ({"ACT": -1, "PAR": -5, "INC": 5, "SPU": -1}, 4, 0),
    ("TST4", "MDC"): ({"POS": -1, "ACT": -3, "COR": -2, "PAR": -3, "INC": 2, "MIS": 2}, 3, 0),
    ("TST4", "NYU"): ({"ACT": -2, "COR": -1, "PAR": -5, "INC": 4, "MIS": 2}, 6, 0),
    ("TST4", "PRC"): ({"COR": -5, "PAR": 5}, 5, 0),
    ("TST4", "SRA"): ({"COR": -3, "PAR": 1, "INC": 2}, 4, 0),
    ("TST4", "SRI"): ({"COR": -3, "INC": 3}, 4, 2),
    ("TST4", "UMASS"): ({"ACT": -2, "COR": -2, "PAR": -3, "INC": 3, "MIS": 2}, 6, 0),
    ("TST4", "UMICH"): ({"COR": -1, "INC": 1}, 1, 0),
}
#: The 13 reports whose ALL TEMPLATES row is reproduced exactly (PRC TST3 included).
REPRODUCED = [r for r in REPORTS if not RESIDUAL.get(r, ({},))[0]]
QUICK = [("TST4", "GE"), ("TST3", "MDC"), ("TST4", "LSI"), ("TST4", "SYNCH")]


def _root() -> Path:
    data = resolve_data_dir()
    if not data.available or not data.path.joinpath(*BASE).is_dir():
        pytest.skip("pilot data muc4/muc4_1992 not available")
    return data.path.joinpath(*BASE)


_KEYS: dict = {}


def _load(test_set: str, system: str):
    from exactalign.data.pilot import muc4_1992_paths

    key_p, resp_p, hist_p, rep_p = muc4_1992_paths(_root().parent.parent, test_set, system)
    if test_set not in _KEYS:
        _KEYS[test_set] = (io.by_message(io.read_templates(key_p)), io.read_history(hist_p))
    keys, history = _KEYS[test_set]
    return keys, io.by_message(io.read_templates(resp_p)), history, io.read_score_report(rep_p)


def _compare(test_set: str, system: str) -> S.ReportComparison:
    keys, resps, history, report = _load(test_set, system)
    c = S.compare_report(keys, resps, history, report)
    assert tuple(c.official[f] for f in S.FIELDS) == OFFICIAL[(test_set, system)]
    return c


def _check(test_set: str, system: str) -> None:
    c = _compare(test_set, system)
    if (test_set, system) in RESIDUAL:
        delta, rows, automatic = RESIDUAL[(test_set, system)]
        assert c.delta == delta and c.exact == (not delta)
        assert len(c.slot_diffs) == rows
        assert sum(not d.interactive for d in c.slot_diffs) == automatic
    else:
        assert c.exact and not c.slot_diffs
        assert tuple(getattr(c.ours, f) for f in S.FIELDS) == OFFICIAL[(test_set, system)]


@pytest.mark.parametrize("test_set,system", QUICK)
def test_all_templates_rows_reproduced(test_set, system):
    assert (test_set, system) in REPRODUCED
    _check(test_set, system)


@pytest.mark.parametrize("test_set,system", [("TST3", "BBN"), ("TST4", "SRI")])
def test_residuals_are_localised(test_set, system):
    """BBN TST3: one slot row, PAR judged by a human in the report (IPA 1), failed in the final
    history; SRI TST4 (no mapping recorded): message by message under the automatic mapping."""
    _check(test_set, system)


@pytest.mark.slow
def test_every_report():
    for test_set, system in REPORTS:
        _check(test_set, system)
    assert len(REPRODUCED) == 13


def _ceiling(test_set: str, system: str) -> None:
    """The exact alignment's candidates contain every recorded pair (the lenient content rule),
    so exact-corpus >= recorded (corpus F) and per message exact >= recorded wherever the
    report lists every template of the message."""
    keys, resps, history, report = _load(test_set, system)
    rec = S.recorded_mapping(report)
    names = (("recorded",) if rec else ()) + ("muc1992", "exact", "exact-corpus")
    res = S.score_messages(keys, resps, history, names, recorded=rec)
    exact, corpus = res["exact"], res["exact-corpus"]
    assert exact.status is Status.OPTIMAL and corpus.status is Status.OPTIMAL
    assert corpus.bound == pytest.approx(corpus.total.f1)
    for name in names:
        assert res[name].total.f1 <= corpus.total.f1 + 1e-12, name
    for m, e in zip(res["muc1992"].messages, exact.messages, strict=True):
        assert m.counts.f1 <= e.counts.f1 + 1e-12
    if not rec:
        return
    for r, e in zip(res["recorded"].messages, exact.messages, strict=True):
        ks, rs = keys.get(r.message, []), resps.get(r.message, [])
        lines = rec.get(r.message, [])
        listed = ({k for k, _ in lines} >= {k.number for k in ks if not k.optional}
                  and {x for _, x in lines} >= {x.number for x in rs})
        if listed:
            assert r.counts.f1 <= e.counts.f1 + 1e-12, r.message
        judge = S.Judge(r.message, history)
        for i, j in r.alignment:
            assert S.content_rule_1992(ks[i], rs[j], judge, lenient=True)


@pytest.mark.parametrize("test_set,system", [("TST4", "LSI"), ("TST3", "SRA")])
def test_exact_alignment_is_a_ceiling(test_set, system):
    """LSI TST4 and SRA TST3: the recorded mapping used pairs the content rule as stated
    refuses (recorded 15.23 and 29.30 above exact 14.74 and 28.22 before)."""
    _ceiling(test_set, system)


@pytest.mark.slow
def test_exact_alignment_is_a_ceiling_on_every_report():
    for test_set, system in REPORTS:
        _ceiling(test_set, system)


def test_unmapped_templates_are_exact():
    """Spurious, missing and optional-unmapped templates need no judgement: exact counts."""
    keys, resps, _, report = _load("TST3", "NYU")
    keys = {(t.message, t.number): t for ts in keys.values() for t in ts}
    resps = {(t.message, t.number): t for ts in resps.values() for t in ts}
    n = 0
    for p in report.pairs:
        if p.response and not p.key:
            c = S.spurious_counts(resps[(p.message, p.response)])
        elif p.key and not p.response:
            c = S.missing_counts(keys[(p.message, p.key)])
        else:
            continue
        n += 1
        assert {f: getattr(c, f) for f in S.FIELDS} == {f: p.counts[f] for f in S.FIELDS}
    assert n > 20
