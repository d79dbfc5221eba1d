"""MUC-4 1992 readers and scoring (:mod:`exactalign.io.muc4`, :mod:`exactalign.metrics.muc4`):
hand-derived slot counts, the guidelines' automatic partial rules (the alternatives-based
``exact``/``first-fit`` slot scoring), the content rule, and the exact (Dinkelbach) template
alignment against brute force and the muc1992 greedy. The 1992 scorer's own rules:
tests/test_muc4_rules.py."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactalign import InputError
from exactalign.core.result import Status
from exactalign.io import muc4 as io
from exactalign.metrics import muc4 as S
from exactalign.metrics.muc4.guidelines import _first_fit

NAMES = [line.split(maxsplit=1) for line in """\
0.  MESSAGE: ID
1.  MESSAGE: TEMPLATE
2.  INCIDENT: DATE
3.  INCIDENT: LOCATION
4.  INCIDENT: TYPE
5.  INCIDENT: STAGE OF EXECUTION
6.  INCIDENT: INSTRUMENT ID
7.  INCIDENT: INSTRUMENT TYPE
8.  PERP: INCIDENT CATEGORY
9.  PERP: INDIVIDUAL ID
10. PERP: ORGANIZATION ID
11. PERP: ORGANIZATION CONFIDENCE
12. PHYS TGT: ID
13. PHYS TGT: TYPE
14. PHYS TGT: NUMBER
15. PHYS TGT: FOREIGN NATION
16. PHYS TGT: EFFECT OF INCIDENT
17. PHYS TGT: TOTAL NUMBER
18. HUM TGT: NAME
19. HUM TGT: DESCRIPTION
20. HUM TGT: TYPE
21. HUM TGT: NUMBER
22. HUM TGT: FOREIGN NATION
23. HUM TGT: EFFECT OF INCIDENT
24. HUM TGT: TOTAL NUMBER""".splitlines()]


def template_text(msg: str, number: str, fills: dict[int, list[str]]) -> str:
    lines = []
    for k, (num, name) in enumerate(NAMES):
        values = [msg] if k == 0 else [number] if k == 1 else fills.get(k, ["-"])
        lines.append(f"{num:<4}{name:<31}{values[0]}")
        lines += [" " * 35 + v for v in values[1:]]
    return "\n".join(lines) + "\n\n"


KEY = template_text("TST3-MUC4-0001", "1", {
    2: ["- 26 AUG 89"], 3: ["COLOMBIA: MEDELLIN (CITY)"], 4: ["BOMBING"],
    9: ['"URBAN TERRORISTS" / "TERRORISTS"'], 12: ['"BANK"', '? "OFFICE"'],
    13: ['COMMERCIAL: "BANK"'], 19: ['"MAYOR OF ACHI": "TORRES" / "MAYOR"']})


def test_read_templates_fills_alternatives_optional_and_xrefs(tmp_path):
    p = tmp_path / "key"
    p.write_text(KEY + template_text("TST3-MUC4-0002", "*", {}) +
                 template_text("TST3-MUC4-0003", "2 (OPTIONAL)", {4: ["ATTACK"]}))
    temps = io.read_templates(p)
    assert [(t.message, t.number, t.optional) for t in temps] == [
        ("TST3-MUC4-0001", "1", False), ("TST3-MUC4-0002", None, False),
        ("TST3-MUC4-0003", "2", True)]
    t = temps[0]
    assert t.slots[9] == (io.Fill(('"URBAN TERRORISTS"', '"TERRORISTS"')),)
    assert t.slots[12] == (io.Fill(('"BANK"',)), io.Fill(('"OFFICE"',), optional=True))
    assert t.slots[13] == (io.Fill((("COMMERCIAL", '"BANK"'),)),)
    # In HUM TGT: DESCRIPTION a bare string is another description of the same name.
    assert t.slots[19] == (io.Fill((('"MAYOR OF ACHI"', '"TORRES"'), ('"MAYOR"', '"TORRES"'))),)
    assert io.by_message(temps)["TST3-MUC4-0002"] == []


def test_read_templates_errors(tmp_path):
    p = tmp_path / "bad"
    p.write_text(KEY.replace("4.  INCIDENT: TYPE", "44. INCIDENT: TYPE"))
    with pytest.raises(InputError, match="slot number 44") as e:
        io.read_templates(p)
    assert e.value.line == 5
    q = tmp_path / "bad2"
    q.write_text("garbage line\n")
    with pytest.raises(InputError, match="not a slot line"):
        io.read_templates(q)
    r = tmp_path / "bad3"
    r.write_text("".join(KEY.splitlines(keepends=True)[:10]))
    with pytest.raises(InputError, match="slots 0-24"):
        io.read_templates(r)


def test_sexpr_and_history(tmp_path):
    assert io.parse_sexpr('(a "\\"X\\"" (b nil))') == ((":a", '"X"', (":b", ":nil")),)
    with pytest.raises(InputError, match="unbalanced"):
        io.parse_sexpr("(a (b)")
    h = tmp_path / "hist"
    h.write_text('(("TST3-MUC4-0001" ("1" (inc-date ((range nil "04 MAY 1988") match '
                 '(range nil "04 MAY 88"))) (hum-tgt-desc ("\\"DEAD\\"" partial (all-of '
                 '"\\"REBELS\\"" "\\"SOLDIERS\\""))))))')
    hist = io.read_history(h)
    (j,) = hist[("TST3-MUC4-0001", "inc-date", "- 04 MAY 1988")]
    assert j.verdict == "match" and j.key_strings == {"- 04 MAY 88"}
    (d,) = hist[("TST3-MUC4-0001", "hum-tgt-desc", '"DEAD"')]
    assert d.spread == 2 and d.key_strings == {'"REBELS"', '"SOLDIERS"'}


def test_score_report_reader(tmp_path):
    row = "{}\t        2   1|  1   0   0|  0   0|  0   1   0|100 100   0"
    text = "\n".join([
        "TST3-MUC4-0001\t     key: 1  response: 2", "", row.format("inc-date"),
        row.format("TOTAL\t"), "TST3-MUC4-0002\t     key: *  response: *\t [irrelevant]",
        "TST3-MUC4-0003\t     key: <NONE>  response: 1\t [spurious]", row.format("TOTAL\t"),
        row.format("ALL TEMPLATES")])
    p = tmp_path / "scores"
    p.write_text(text)
    rep = io.read_score_report(p)
    assert [(x.message, x.key, x.response, x.tag) for x in rep.pairs] == [
        ("TST3-MUC4-0001", "1", "2", ""), ("TST3-MUC4-0002", None, None, "irrelevant"),
        ("TST3-MUC4-0003", None, "1", "spurious")]
    assert rep.pairs[0].slots["inc-date"]["MIS"] == 1
    assert rep.all_templates["POS"] == 2
    # every template line, unmapped sides as None; the irrelevant message has none
    assert S.recorded_mapping(rep) == {"TST3-MUC4-0001": [("1", "2")],
                                       "TST3-MUC4-0003": [(None, "1")]}
    (tmp_path / "empty").write_text("nothing\n")
    with pytest.raises(InputError, match="ALL TEMPLATES"):
        io.read_score_report(tmp_path / "empty")


def fill(*alts, optional=False):
    return io.Fill(tuple(alts), optional)


def test_slot_counts_by_hand():
    judge = S.Judge("M", {("M", "perp-ind-id", '"LEFTIST GROUP"'): (
        io.Judgement("partial", frozenset({'"FMLN"'})),)})
    keys = (fill('"FMLN"'), fill('"ARMY"'), fill('"POLICE"', optional=True))
    resp = (fill('"THE ARMY"'), fill('"LEFTIST GROUP"'), fill('"X"'), fill('"Y"'))
    c = S.slot_counts(9, keys, resp, judge)
    # THE ARMY = ARMY (article ignored): COR; LEFTIST GROUP ~ FMLN: PAR; X pairs with the
    # optional POLICE as INC (counted in POS); Y is SPU.
    assert c == S.Counts(POS=3, ACT=4, COR=1, PAR=1, INC=1, SPU=1, MIS=0)
    assert (c.recall, c.precision) == (1.5 / 3, 1.5 / 4)


def test_xref_rules_and_first_fit():
    judge = S.Judge("M")
    keys = (fill(("POLITICAL FIGURE", '"OQUELI"')),
            fill(("CIVILIAN", '"FLORES"'), ("POLITICAL FIGURE", '"FLORES"')))
    resp = (fill(("CIVILIAN", '"OQUELI"')), fill(("POLITICAL FIGURE", '"FLORES"')))
    # CIVILIAN: OQUELI pairs only with the OQUELI key fill (wrong value: 0); the second is COR.
    for matching in S.SLOT_MATCHING:
        c = S.slot_counts(20, keys, resp, judge, matching)
        assert (c.COR, c.PAR, c.INC) == (1, 0, 1)
    # value right, reference only partially judged -> PAR (§3.1.2)
    j2 = S.Judge("M", {("M", "hum-tgt-name", '"HECTOR"'): (
        io.Judgement("partial", frozenset({'"OQUELI"'})),)})
    assert j2.score(20, keys[0], ("POLITICAL FIGURE", '"HECTOR"')) == 0.5
    # first-fit takes COR pairs first: exact and first-fit can still differ on PAR chains
    S2 = [[0.5, 0.5], [0.5, 0.0]]
    import numpy as np
    assert _first_fit(np.array(S2)) == [(0, 0)]


@pytest.mark.parametrize("slot,resp,key,value", [
    (4, "ATTACK", "BOMBING", 0.5), (4, "BOMBING", "ATTACK", 0.0),
    (7, "GUN", "MACHINE GUN", 0.5), (7, "EXPLOSIVE", "VEHICLE BOMB", 0.5),
    (7, "MACHINE GUN", "GUN", 0.0), (11, "SUSPECTED OR ACCUSED",
                                     "SUSPECTED OR ACCUSED BY AUTHORITIES", 0.5),
    (16, "DESTROYED", "SOME DAMAGE", 0.5), (20, "ACTIVE MILITARY", "FORMER ACTIVE MILITARY", 0.5),
    (23, "NO DEATH", "NO INJURY OR DEATH", 0.5), (3, "COLOMBIA", "COLOMBIA: CALI (CITY)", 0.5),
    (2, "26 AUG 89", "25 AUG 89 - 26 AUG 89", 0.5), (2, "25 AUG 89", "- 26 AUG 89", 0.5),
    (2, "16 AUG 89", "- 26 AUG 89", 0.0), (2, "- 26 AUG 89", "26 AUG 89", 0.5),
    (2, "- 26 AUG 89", "16 AUG 89", 0.0), (5, "ACCOMPLISHED", "ACCOMPLISHED", 1.0)])
def test_value_score_follows_the_guidelines(slot, resp, key, value):
    assert S.value_score(slot, resp, key) == value


def _template(number, fills, optional=False):
    slots = [()] * 25
    for k, v in fills.items():
        slots[k] = tuple(io.parse_fill(k, a) for a in v)
    return io.MucTemplate("M", number, optional, tuple(slots), 1)


def test_content_rule_and_alignments_by_hand():
    keys = [_template("1", {4: ["BOMBING"], 12: ['"BANK"'], 2: ["01 JAN 90"]}),
            _template("2", {4: ["ATTACK"], 9: ['"ARMY"']}, optional=True)]
    resps = [_template("1", {4: ["ATTACK"], 12: ['"BANK"']}),
             _template("2", {4: ["ATTACK"], 9: ['"ARMY"'], 2: ["02 JAN 90"]})]
    t = S.message_table("M", keys, resps, S.Judge("M"))
    # key 1 / resp 1: ATTACK for BOMBING is PAR and BANK is COR (allowed); the crossed pairs
    # share no perpetrator/target fill: refused by the content rule.
    assert t.pairs == ((0, 0), (1, 1))
    assert S.align_muc1992(t) == [(0, 0), (1, 1)]
    al, status, bound = S.align_exact(t)
    c = t.counts(al)
    assert status is Status.OPTIMAL and bound == pytest.approx(c.f1)
    # Mapped: key1/resp1 POS 3 (date MIS) ACT 2, credit 1.5; key2/resp2 POS 2 ACT 3 credit 2.
    assert t.counts(S.align_muc1992(t)) == S.Counts(POS=5, ACT=5, COR=3, PAR=1, INC=0,
                                                   SPU=1, MIS=1)
    # Leaving the optional key 2 unmapped: POS 3, ACT 5, credit 1.5, F 3/8 < 7/10.
    assert t.counts([(0, 0)]).f1 == pytest.approx(3 / 8)
    assert c.f1 == pytest.approx(7 / 10) and al == [(0, 0), (1, 1)]


@st.composite
def message_tables(draw):
    n_k, n_r = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    values = ["ATTACK", "BOMBING"]
    strings = ['"A"', '"B"', '"C"']
    keys = [_template(str(i + 1), {4: [draw(st.sampled_from(values))],
                                   12: draw(st.lists(st.sampled_from(strings), max_size=2)),
                                   9: draw(st.lists(st.sampled_from(strings), max_size=2))},
                      optional=draw(st.booleans())) for i in range(n_k)]
    resps = [_template(str(j + 1), {4: [draw(st.sampled_from(values))],
                                    12: draw(st.lists(st.sampled_from(strings), max_size=2)),
                                    9: draw(st.lists(st.sampled_from(strings), max_size=2))})
             for j in range(n_r)]
    return S.message_table("M", keys, resps, S.Judge("M"))


@given(message_tables())
def test_exact_alignment_is_the_brute_force_maximum(t):
    al, status, _ = S.align_exact(t)
    assert status is Status.OPTIMAL
    best = 0.0
    for k in range(len(t.pairs) + 1):
        for sub in itertools.combinations(t.pairs, k):
            if len({i for i, _ in sub}) == k and len({j for _, j in sub}) == k:
                best = max(best, t.counts(sub).f1)
    assert t.counts(al).f1 == pytest.approx(best, abs=1e-12)
    assert t.counts(S.align_muc1992(t)).f1 <= t.counts(al).f1 + 1e-12


def test_unknown_alignment_is_refused():
    with pytest.raises(ValueError, match="unknown alignment"):
        S.score_messages({}, {}, {}, ("hungarian",))


def test_exact_leaves_a_poor_optional_template_unmapped():
    """F is a ratio: mapping the optional key 2 adds credit 2 but POS 10 -- the muc1992 greedy
    maps it (F 10/18), the exact alignment does not (F 6/8)."""
    keys = [_template("1", {4: ["BOMBING"], 9: ['"ARMY"'], 12: ['"BANK"']}),
            _template("2", {4: ["ATTACK"], 9: ['"A"'], 12: [f'"T{i}"' for i in range(8)]},
                      optional=True)]
    resps = [_template("1", {4: ["BOMBING"], 9: ['"ARMY"'], 12: ['"BANK"']}),
             _template("2", {4: ["ATTACK"], 9: ['"A"']})]
    t = S.message_table("M", keys, resps, S.Judge("M"))
    assert S.align_muc1992(t) == [(0, 0), (1, 1)]
    assert t.counts(S.align_muc1992(t)).f1 == pytest.approx(10 / 18)
    al, status, bound = S.align_exact(t)
    assert (al, status) == ([(0, 0)], Status.OPTIMAL)
    assert t.counts(al).f1 == pytest.approx(6 / 8) and bound == pytest.approx(6 / 8)


def _table(name, pair, miss, spur):
    """A one-key, one-response message whose single pair is allowed, from its counts."""
    return S.MessageTable(name, (None,), (None,), ((0, 0),), (pair,), (miss,), (spur,), (True,))


def test_corpus_optimum_can_leave_a_message_below_its_own_optimum():
    """Message A's optional key template, mapped, earns credit 1 for POS 4 (message F 2/6 > 0 =
    unmapped), so the per-message optimum maps it; but next to message B (F 1) the corpus F is
    higher without it: 20/22 > 22/26. Hand-derived counts."""
    a = _table("A", S.Counts(POS=4, ACT=2, COR=1, INC=1, MIS=2), S.Counts(),
               S.Counts(ACT=2, SPU=2))
    b = _table("B", S.Counts(POS=10, ACT=10, COR=10), S.Counts(POS=10, MIS=10),
               S.Counts(ACT=10, SPU=10))
    assert S.align_exact(a)[0] == [(0, 0)] and S.align_exact(b)[0] == [(0, 0)]
    per_message = a.counts([(0, 0)]) + b.counts([(0, 0)])
    assert per_message.f1 == pytest.approx(22 / 26)
    als, status, bound = S.align_exact_corpus([a, b])
    assert (als, status) == ([[], [(0, 0)]], Status.OPTIMAL)
    total = a.counts(als[0]) + b.counts(als[1])
    assert total.f1 == pytest.approx(20 / 22) and bound == pytest.approx(20 / 22)


@given(st.lists(message_tables(), min_size=1, max_size=3))
def test_corpus_optimum_is_the_brute_force_maximum(tables):
    def matchings(t):
        for k in range(len(t.pairs) + 1):
            for sub in itertools.combinations(t.pairs, k):
                if len({i for i, _ in sub}) == k and len({j for _, j in sub}) == k:
                    yield sub

    def corpus(als):
        total = S.Counts()
        for t, al in zip(tables, als, strict=True):
            total = total + t.counts(al)
        return total.f1

    # every combination of per-message matchings, from each matching's (credit, POS + ACT)
    parts = [[(c.credit, c.POS + c.ACT) for c in map(t.counts, matchings(t))] for t in tables]
    best = max(2 * sum(p[0] for p in combo) / den if (den := sum(p[1] for p in combo)) else 0.0
               for combo in itertools.product(*parts))
    als, status, bound = S.align_exact_corpus(tables)
    assert status is Status.OPTIMAL
    assert corpus(als) == pytest.approx(best, abs=1e-12)
    assert bound == pytest.approx(best, abs=1e-9)
    # per message, exact and greedy are feasible corpus alignments: never above the optimum
    assert corpus([S.align_exact(t)[0] for t in tables]) <= corpus(als) + 1e-12
    assert corpus([S.align_muc1992(t) for t in tables]) <= corpus(als) + 1e-12
