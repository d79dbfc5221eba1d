"""Hierarchical attributes: level-based partial credit for the right type with the wrong
subtype (hand-derived), reducing to v1.8's equality, and through the command line."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_nugget import ALL, score, tbf_text, tps

from exactalign import Status, cli
from exactalign.metrics import nugget
from exactalign.metrics.nugget import KBP_EVENT_FAMILIES, LevelCredit


def test_paths_and_credits():
    lc = LevelCredit(levels=(0.0, 0.5), families=KBP_EVENT_FAMILIES)
    assert lc.path("Conflict_Attack") == ("conflict", "attack")
    assert lc.path("ORG:Commercial") == ("org", "commercial")
    assert lc.path("conflictattack") == ("conflict", "attack")
    assert lc.path("Personnel_Start-Position") == ("personnel", "startposition")
    assert lc.path("conflict") == ("conflict",)
    assert lc.credit("Conflict_Attack", "conflictattack") == 1.0
    assert lc.credit("Conflict_Attack", "Conflict.Demonstrate") == 0.5
    assert lc.credit("Conflict_Attack", "Life_Die") == 0.0
    assert lc.credit("NOT_ANNOTATED", "Life_Die") == 1.0
    # three levels: credit by the number of leading levels in common
    deep = LevelCredit(levels=(0.0, 0.25, 0.75))
    assert deep.credit("a.b.c", "a.b.d") == 0.75 and deep.credit("a.b.c", "a.x.y") == 0.25
    with pytest.raises(ValueError, match="in \\[0, 1\\)"):
        LevelCredit(levels=(0.0, 1.0))


GOLD = {"d1": [("g1", "t1,t2", "Conflict_Attack", "Actual"), ("g2", "t5", "Life_Die", "Actual")]}
SYSTEM = {"d1": [("s1", "t2", "Conflict_Demonstrate", "Actual"),
                 ("s2", "t5", "Life_Injure", "Generic"), ("s3", "t6", "Life_Die", "Actual")]}


def test_right_family_wrong_subtype_earns_level_credit():
    # Dice(g1,s1) = 2*1/(2+1) = 2/3; Dice(g2,s2) = 1. Types: s1 right family (conflict), s2
    # right family (life). Half credit: mention_type TP = 2/3 * 1/2 + 1 * 1/2 = 5/6;
    # type+realis: s2 realis wrong -> only g1-s1: 1/3. v1.8 equality: 0 and 0.
    credits = {"mention_type": LevelCredit(levels=(0.0, 0.5), families=KBP_EVENT_FAMILIES)}
    ev = score(GOLD, SYSTEM, attribute_credits=credits)
    for m in ALL:
        t = tps(ev, m)
        assert t["plain"] == pytest.approx(2 / 3 + 1), m
        assert t["mention_type"] == pytest.approx(5 / 6), m
        assert t["mention_type+realis_status"] == pytest.approx(1 / 3), m
        assert t["realis_status"] == pytest.approx(2 / 3), m
    plain = score(GOLD, SYSTEM)
    assert tps(plain, "exact")["mention_type"] == 0.0
    # all-zero level credits are v1.8's equality
    zero = score(GOLD, SYSTEM, attribute_credits={0: LevelCredit(levels=(0.0,))})
    for m in ALL:
        assert tps(zero, m) == pytest.approx(tps(plain, m))
    with pytest.raises(ValueError, match="unknown attribute 'subtype'"):
        score(GOLD, SYSTEM, attribute_credits={"subtype": LevelCredit()})


SPANS = st.lists(st.sampled_from([f"t{i}" for i in range(1, 6)]), min_size=1, max_size=3)
TYPES = st.sampled_from(["Conflict_Attack", "Conflict_Demonstrate", "Life_Die", "NOT_ANNOTATED"])


@st.composite
def documents(draw):
    def mentions(prefix, types):
        return [(f"{prefix}{i}", ",".join(draw(SPANS)), draw(types), "X")
                for i in range(draw(st.integers(0, 4)))]

    return {"d1": mentions("g", TYPES)}, {"d1": mentions("s", TYPES.filter(
        lambda t: t != "NOT_ANNOTATED"))}


@given(documents(), st.sampled_from([0.25, 0.5, 0.9]))
def test_partial_credit_lies_between_equality_and_span_only(doc, c):
    # Credit multiplies Dice by a factor in [0, 1] that is 1 on equal types: per combination,
    # exact TP under equality <= exact TP with credit <= exact span-only TP; heuristics <= exact.
    gold, system = doc
    lc = LevelCredit(levels=(0.0, c), families=KBP_EVENT_FAMILIES)
    ev = score(gold, system, mappings=[*ALL, *nugget.SPAN_FIRST], attribute_credits={0: lc})
    eq = score(gold, system, mappings=["exact"])
    t = tps(ev, "exact")
    assert tps(eq, "exact")["mention_type"] <= t["mention_type"] + 1e-9
    assert t["mention_type"] <= t["plain"] + 1e-9
    for m in (*nugget.HEURISTIC_MAPPINGS, *nugget.SPAN_FIRST):
        for comb, v in tps(ev, m).items():
            assert v <= t[comb] + 1e-9, (m, comb)
    for r in ev.scores["exact"].document("d1").results.values():
        assert r.status is Status.OPTIMAL


def test_cli_type_credit(capsys, tmp_path):
    g, s = tmp_path / "g.tbf", tmp_path / "s.tbf"
    g.write_text(tbf_text({"d1": [("g1", "0,4", "Conflict_Attack", "Actual")]}, "gold"))
    s.write_text(tbf_text({"d1": [("s1", "0,4", "Conflict_Demonstrate", "Actual")]}, "sys"))
    args = ["nugget", "-g", str(g), "-s", str(s), "--mapping", "exact", "--json"]
    assert cli.main([*args, "--type-credit", "0.5"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["overall"]["exact/mention_type"]["f1"] == 0.5
    assert d["attribute_credits"]["mention_type"]["levels"] == [0.0, 0.5]
    assert cli.main(args) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["overall"]["exact/mention_type"]["f1"] == 0.0
    assert cli.main([*args, "--type-credit", "1.5"]) == 2
    assert "[0, 1)" in capsys.readouterr().err
    assert nugget.KBP_EVENT_FAMILIES[0] == "business"
