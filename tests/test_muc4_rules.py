"""The 1992 scorer's rules, one hand-derived case each (:class:`exactalign.metrics.muc4.Scorer1992`,
the default ``muc1992`` slot scoring). Each rule names its source: the scorer's code (MUC scorer
v3.2, ``score.el``/``history.el``/``parse.el``), its official configuration (``config-tst3.el``,
``slotconfig-tst3.el``), the scoring guidelines v7, or the official report rows that show the
official runs (v3.4) doing otherwise."""

from __future__ import annotations

import pytest
from test_muc4 import template_text  # tests/ is on sys.path (pytest rootdir insertion)

from exactalign.io import muc4 as io
from exactalign.metrics import muc4 as S

FIELDS = ("POS", "ACT", "COR", "PAR", "INC", "SPU", "MIS", "ICR", "IPA")


def vals(slot: int, *texts: str) -> list:
    """Fill values as the scorer reads them (``? `` marks an optional fill)."""
    out = []
    for t in texts:
        f = io.parse_fill(slot, t)
        out.append(("optional", f.value) if f.optional else f.value)
    return out


def history(*entries) -> dict:
    """``(message, key template, slot, response text, verdict, key text)`` -> History.entries
    (texts in the template syntax of ``slot``'s type, key text ``None`` for a fail)."""
    out: dict = {}
    for msg, tid, name, resp, verdict, key in entries:
        slot = io.SLOTS.index(name)
        kv = None
        if key is not None:
            kv = (("all-of", *(io.parse_value(slot, k) for k in key))
                  if isinstance(key, tuple) else vals(slot, key)[0])
        out.setdefault((msg, tid, name), []).append(
            (io.parse_value(slot, resp), verdict, kv))
    return {k: tuple(v) for k, v in out.items()}


def score(slot: int, keys, resps, hist=None, key_id="1", query=True, substring=False) -> dict:
    t = S.Scorer1992(hist or {}, "M", key_id).slot(slot, vals(slot, *keys), vals(slot, *resps),
                                                   query, substring)
    return {f: getattr(t, f) for f in FIELDS}


def counts(**kw) -> dict:
    return {f: kw.get(f, 0) for f in FIELDS}


# --- reading fills (parse.el) ---------------------------------------------------------------
@pytest.mark.parametrize("slot,text,value", [
    (2, "- 26 AUG 89", ("range", None, "26 AUG 89")),
    (2, "25 AUG 89 - 26 AUG 89", ("range", "25 AUG 89", "26 AUG 89")),
    (2, "(11 OCT 88) / (11 OCT 88 - 12 OCT 88)",
     ("or", "11 OCT 88", ("range", "11 OCT 88", "12 OCT 88"))),
    (3, "COLOMBIA: MEDELLIN (CITY)", ("location", "COLOMBIA", ("qualified", "MEDELLIN", "CITY"))),
    (3, "(HONDURAS: TEGUCIGALPA (CITY)) / (HONDURAS)",
     ("or", ("location", "HONDURAS", ("qualified", "TEGUCIGALPA", "CITY")), "HONDURAS")),
    (3, "CHILE: ITAHUA (AREA) - ALTO JAHUEL (AREA)",
     ("location", "CHILE", ("between", ("qualified", "ITAHUA", "AREA"),
                            ("qualified", "ALTO JAHUEL", "AREA")))),
    (11, 'REPORTED AS FACT / POSSIBLE: "ARMY" / "ARMED FORCES"',
     ("xref", ("or", "REPORTED AS FACT", "POSSIBLE"), ("or", '"ARMY"', '"ARMED FORCES"'))),
    (14, '5 - 7: "PYLONS"', ("xref", "5 - 7", '"PYLONS"')),
    (17, "5 - 7", ("range", "5", "7")),
    (9, '"URBAN TERRORISTS" / "TERRORISTS"', ("or", '"URBAN TERRORISTS"', '"TERRORISTS"')),
])
def test_fills_are_read_as_the_scorer_reads_them(slot, text, value):
    assert io.parse_value(slot, text) == value


# --- equality: string premodifiers (config :string-premodifiers, score.el match-substring) ---
def test_premodifiers_are_deleted_as_a_regular_expression():
    # "THE " and "3 " are premodifiers; deleted anywhere, case-insensitive, not at word starts:
    # "12 JAN 90" loses "2 " and "AN " -- 12 and 13 JAN 90 compare equal, 12 and 22 not.
    assert S.strip_premodifiers('"THE 3 PEASANTS"') == '"PEASANTS"'
    assert S.muc_equal('"PEASANTS"', '"THE 3 PEASANTS"')
    assert S.muc_equal("12 JAN 90", "13 JAN 90") and not S.muc_equal("12 JAN 90", "22 JAN 90")
    assert score(2, ["12 JAN 90"], ["13 JAN 90"]) == counts(POS=1, ACT=1, COR=1)
    assert score(2, ["12 JAN 90"], ["22 JAN 90"]) == counts(POS=1, ACT=1, INC=1)


def test_alternatives_and_optional_fills():
    # "/" alternatives: any one matches; a "?" key fill left unmatched counts nowhere, but one
    # paired as INC with a surplus response fill counts in POS (score-remaining-values).
    assert score(9, ['"URBAN TERRORISTS" / "TERRORISTS"'], ['"TERRORISTS"']) == counts(
        POS=1, ACT=1, COR=1)
    assert score(12, ['"BANK"', '? "OFFICE"'], ['"BANK"']) == counts(POS=1, ACT=1, COR=1)
    assert score(12, ['"BANK"', '? "OFFICE"'], ['"BANK"', '"X"', '"Y"']) == counts(
        POS=2, ACT=3, COR=1, INC=1, SPU=1)


# --- the judgement history (history.el) --------------------------------------------------------
def test_history_is_per_key_template_and_modulo_premodifiers():
    h = history(("M", "2", "hum-tgt-desc", '"THE WIVES"', "match", '"WOMEN"'))
    # judged for key template 2: not for template 1
    assert score(19, ['"WOMEN"'], ['"WIVES"'], h, key_id="1") == counts(POS=1, ACT=1, INC=1)
    # found for "WIVES" although recorded for "THE WIVES": a human match (ICR)
    assert score(19, ['"WOMEN"'], ['"WIVES"'], h, key_id="2") == counts(
        POS=1, ACT=1, COR=1, ICR=1)


def test_history_fail_beats_automatic_partial_credit_and_dates_have_none():
    key = ["COLOMBIA: MEDELLIN (CITY)"]
    # the key's country in a location: automatic partial (find-partially-matching-keyval)
    assert score(3, key, ["COLOMBIA: CALI (CITY)"]) == counts(POS=1, ACT=1, PAR=1)
    # ... unless the history failed it: the history is consulted first
    h = history(("M", "1", "inc-loc", "COLOMBIA: CALI (CITY)", "fail", None))
    assert score(3, key, ["COLOMBIA: CALI (CITY)"], h) == counts(POS=1, ACT=1, INC=1)
    # dates earn partial credit only from a human (guidelines §3.2.2 "may"; the scorer asks)
    assert score(2, ["- 26 AUG 89"], ["25 AUG 89"]) == counts(POS=1, ACT=1, INC=1)
    h = history(("M", "1", "inc-date", "25 AUG 89", "partial", "- 26 AUG 89"))
    assert score(2, ["- 26 AUG 89"], ["25 AUG 89"], h) == counts(POS=1, ACT=1, PAR=1, IPA=1)


def test_distributed_judgement_counts_each_key_fill():
    # guidelines §3.1.1.3: "VEHICLES" partially matches all three key fills -> POS, ACT, PAR 3
    h = history(("M", "1", "phys-tgt-id", '"VEHICLES"', "partial",
                 ('"AMBULANCE"', '"FUEL TRUCK"', '"STATION WAGON"')))
    assert score(12, ['"AMBULANCE"', '"FUEL TRUCK"', '"STATION WAGON"'], ['"VEHICLES"'], h) == \
        counts(POS=3, ACT=3, PAR=3, IPA=3)


def test_fill_judged_against_an_optional_key_fill_when_none_is_left_counts_nowhere():
    # score.el: with no key fill left the history's optional key value is compared with nil,
    # which an optional value matches: the fill is consumed uncounted (GE-CMU TST3 0094
    # perp-ind-id: POS 1 ACT 1 COR 1 for two response fills)
    key = '? "TERRORIST SQUADS"'
    h = history(("M", "1", "perp-ind-id", '"FMLN TERRORIST GROUPS"', "match", key),
                ("M", "1", "perp-ind-id", '"TERRORISTS"', "partial", key))
    assert score(9, [key], ['"FMLN TERRORIST GROUPS"', '"TERRORISTS"'], h) == counts(
        POS=1, ACT=1, COR=1, ICR=1)


def test_optional_response_fill_counts_nowhere():
    # score-single-valued-slot: a "?" response fill without a key fill is noncommittal
    # (SYNCH TST3 0016 hum-tgt-type: "???" counts ACT 0)
    assert score(20, [], ["???"])["ACT"] == 0
    resp = io.MucTemplate("M", "1", False, tuple(
        [()] * 20 + [(io.parse_fill(20, "???"),)] + [()] * 4), 1)
    assert S.spurious_counts(resp) == S.Counts()


# --- set fills: hierarchies (slotconfig) and cross-references (§3.1.2) --------------------
def test_hierarchy_of_the_slot_configuration():
    key = ['FORMER GOVERNMENT OFFICIAL: "X"']
    # POLITICAL FIGURE is an ancestor of GOVERNMENT OFFICIAL and FORMER GOVERNMENT OFFICIAL
    assert score(20, key, ['POLITICAL FIGURE: "X"']) == counts(POS=1, ACT=1, PAR=1)
    # the guidelines' prose also names ACTIVE MILITARY, the tree does not: incorrect
    assert score(20, key, ['ACTIVE MILITARY: "X"']) == counts(POS=1, ACT=1, INC=1)
    assert score(16, ['SOME DAMAGE: "X"'], ['DESTROYED: "X"']) == counts(POS=1, ACT=1, PAR=1)
    assert score(16, ['DESTROYED: "X"'], ['SOME DAMAGE: "X"']) == counts(POS=1, ACT=1, INC=1)


def test_cross_reference_tags_correspond_through_the_pointed_slot():
    key = ['DEATH: "JUAN PEREZ"']
    # no relation between the tags: the value alone does not pair them
    assert score(23, key, ['DEATH: "PEREZ"']) == counts(POS=1, ACT=1, INC=1)
    # HUM TGT: NAME judged "PEREZ" partial for "JUAN PEREZ": correct value, partial tag
    h = history(("M", "1", "hum-tgt-name", '"PEREZ"', "partial", '"JUAN PEREZ"'))
    assert score(23, key, ['DEATH: "PEREZ"'], h) == counts(POS=1, ACT=1, PAR=1)
    h = history(("M", "1", "hum-tgt-name", '"PEREZ"', "match", '"JUAN PEREZ"'))
    assert score(23, key, ['DEATH: "PEREZ"'], h) == counts(POS=1, ACT=1, COR=1)
    # a bare value without its tag: partial (score-set-fill)
    assert score(7, ['BOMB: "BOMB"'], ["BOMB"]) == counts(POS=1, ACT=1, PAR=1)


def test_tag_judged_a_match_makes_an_ancestor_value_correct():
    # official rows (HUGHES TST3 0024 inc-instr-type, NYU TST3 0024 and TST4 0042
    # phys-tgt-effect: COR with ICR 0) -- v3.2 would give PAR; an equal tag stays PAR
    key = ['SOME DAMAGE: "OIL PIPELINE"']
    h = history(("M", "1", "phys-tgt-id", '"PIPELINE"', "match", '"OIL PIPELINE"'))
    assert score(16, key, ['DESTROYED: "PIPELINE"'], h) == counts(POS=1, ACT=1, COR=1)
    assert score(16, key, ['DESTROYED: "OIL PIPELINE"'], h) == counts(POS=1, ACT=1, PAR=1)


def test_tag_failed_in_one_pointed_slot_only_stops_that_key_fill():
    # official rows (LSI TST3 0032 and 0091 hum-tgt-num: PAR, IPA 0): the name "GALAN" is
    # partial for key 1 in HUM TGT: NAME and failed in HUM TGT: DESCRIPTION, where the scorer
    # looks next for key 2; v3.2 then gave up on every key fill (INC 1, MIS 1)
    h = history(("M", "1", "hum-tgt-name", '"GALAN"', "partial", '"LUIS CARLOS GALAN"'),
                ("M", "1", "hum-tgt-desc", '"GALAN"', "fail", None))
    assert score(21, ['1: "LUIS CARLOS GALAN"', '1: "JUDGE"'], ['1: "GALAN"'], h) == counts(
        POS=2, ACT=1, PAR=1, MIS=1)


# --- the content rule and the automatic mapping (score.el restricted mapping, map.el) -----------
def _tmpl(number, fills, optional=False, msg="M"):
    slots = [()] * 25
    for k, v in fills.items():
        slots[k] = tuple(io.parse_fill(k, a) for a in v)
    return io.MucTemplate(msg, number, optional, tuple(slots), 1)


def test_content_rule_as_the_scorer_tests_it():
    key = _tmpl("1", {4: ["BOMBING"], 12: ['"CENTRAL BANK BUILDING"']})
    judge = S.Judge("M", io.History())
    # a shared word is a partial match in mapping mode (score-string-fill-mapping)
    assert S.content_rule_1992(key, _tmpl("1", {4: ["ATTACK"], 12: ['"THE BANK"']}), judge)
    assert not S.content_rule_1992(key, _tmpl("1", {4: ["ATTACK"], 12: ['"CAR"']}), judge)
    # INCIDENT: TYPE must match (BOMBING is no ancestor of ATTACK)
    ok = _tmpl("1", {4: ["ATTACK"], 12: ['"BANK"']})
    assert not S.content_rule_1992(_tmpl("1", {4: ["ATTACK"], 12: ['"BANK"']}),
                                   _tmpl("1", {4: ["BOMBING"], 12: ['"BANK"']}), judge)
    assert S.content_rule_1992(key, ok, judge)
    # all seven perpetrator/target slots empty on both sides: allowed
    assert S.content_rule_1992(_tmpl("1", {4: ["ARSON"]}), _tmpl("1", {4: ["ARSON"]}), judge)
    # a history fail stops the shared word -- unless lenient (the fail may postdate the mapping)
    failed = io.History(entries=history(("M", "1", "phys-tgt-id", '"THE BANK"', "fail", None)))
    resp = _tmpl("1", {4: ["ATTACK"], 12: ['"THE BANK"']})
    assert not S.content_rule_1992(key, resp, S.Judge("M", failed))
    assert S.content_rule_1992(key, resp, S.Judge("M", failed), lenient=True)


def test_mapping_score_is_a_rounded_integer_percentage():
    assert S.normalized_percent(1, 0, 3) == 33 and S.normalized_percent(1, 1, 4) == 38
    assert S.normalized_percent(1, 1, 12) == 12  # 12.5 -> 12 (half to even)
    key = _tmpl("1", {4: ["BOMBING"], 9: ['"ARMY"'], 12: ['"BANK"']})
    resp = _tmpl("1", {4: ["ATTACK"], 12: ['"BANK"']})
    # type PAR, target COR, perpetrator MIS: (1 + 0.5) / 3 = 50 %
    assert S.mapping_score_1992(key, resp, S.Judge("M", io.History())) == 50
    assert S.mapping_score_1992(_tmpl("1", {}), _tmpl("1", {4: ["ARSON"]}),
                                S.Judge("M", io.History())) == 100  # nothing possible


def test_recorded_lines_are_counted_as_listed(tmp_path):
    """A report line listed twice counts twice, a template not listed not at all (resumed
    official sessions: LSI TST3, NYU TST3)."""
    key = tmp_path / "key"
    key.write_text(template_text("TST3-MUC4-0001", "1", {4: ["BOMBING"], 12: ['"BANK"']})
                   + template_text("TST3-MUC4-0001", "2", {4: ["ARSON"], 12: ['"HOUSE"']}))
    resp = tmp_path / "resp"
    resp.write_text(template_text("TST3-MUC4-0001", "1", {4: ["BOMBING"], 12: ['"BANK"']}))
    keys = io.by_message(io.read_templates(key))
    resps = io.by_message(io.read_templates(resp))
    lines = {"TST3-MUC4-0001": [("1", "1"), ("1", "1")]}
    res = S.score_messages(keys, resps, io.History(), ("recorded", "exact"), recorded=lines)
    assert res["recorded"].total == S.Counts(POS=4, ACT=4, COR=4)  # key 2 not listed
    assert res["exact"].total == S.Counts(POS=4, ACT=2, COR=2, MIS=2)


def test_compare_report_localises_a_difference(tmp_path):
    key = tmp_path / "key"
    key.write_text(template_text("TST3-MUC4-0001", "1", {4: ["BOMBING"], 12: ['"BANK"']}))
    resp = tmp_path / "resp"
    resp.write_text(template_text("TST3-MUC4-0001", "1", {4: ["BOMBING"], 12: ['"BANKS"']}))
    row = "{}\t        {}|  {}|  {}|  {}|100 100   0"
    report = tmp_path / "scores"
    report.write_text("\n".join([
        "TST3-MUC4-0001\t     key: 1  response: 1", "",
        row.format("inc-type", "1   1", "1   0   0", "0   0", "0   0   0"),
        # the official row: "BANKS" judged partial by a human (IPA 1)
        row.format("phys-tgt-id", "1   1", "0   1   0", "0   1", "0   0   0"),
        row.format("TOTAL\t", "2   2", "1   1   0", "0   1", "0   0   0"),
        row.format("ALL TEMPLATES", "2   2", "1   1   0", "0   1", "0   0   0")]))
    keys = io.by_message(io.read_templates(key))
    resps = io.by_message(io.read_templates(resp))
    c = S.compare_report(keys, resps, io.History(), io.read_score_report(report))
    assert not c.exact and c.delta == {"PAR": -1, "INC": 1}
    (d,) = c.slot_diffs
    assert (d.message, d.key, d.response, d.slot) == ("TST3-MUC4-0001", "1", "1", "phys-tgt-id")
    assert d.interactive and d.delta == {"PAR": -1, "INC": 1, "IPA": -1}
    h = io.History(entries=history(("TST3-MUC4-0001", "1", "phys-tgt-id", '"BANKS"', "partial",
                                    '"BANK"')))
    c = S.compare_report(keys, resps, h, io.read_score_report(report))
    assert c.exact and not c.slot_diffs
