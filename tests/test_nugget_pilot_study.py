"""The event nugget pilot study's own scores (Liu, Mitamura & Hovy 2015): Algorithm 2 with its
original and its fixed precision, Algorithm 3's attribute accuracies, section 2.6's product,
Algorithm 4 -- hand-derived fractions, the paper's example, and properties on random
documents."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactalign.io.tbf import parse_tbf
from exactalign.metrics import nugget
from exactalign.metrics.nugget import evaluate, pilot_study
from tests.test_nugget import COMBOS, tbf_text


def files(gold: dict, system: dict, mode="token"):
    return (parse_tbf(tbf_text(gold, "gold"), path="gold.tbf", mode=mode),
            parse_tbf(tbf_text(system, "sys"), path="sys.tbf", mode=mode))


def pilot(gold: dict, system: dict, **kw):
    return pilot_study(*files(gold, system), **kw)


# --------------------------------------------------------------------------------------------
# the paper's example (section 2.5)
# --------------------------------------------------------------------------------------------
# "He carried out the assassination": He t1, carried t2, out t3, the t4, assassination t5.
PAPER_GOLD = {"d1": [("g1", "t2,t3,t4,t5", "Life.Die", "Actual")]}


@pytest.mark.parametrize("first_type, accuracy", [("Life.Die", 1.0),
                                                  ("Business.MERGE", 0.5)])
def test_paper_example_algorithm3(first_type, accuracy):
    # Both systems report "carried" and "the assassination", omitting "out". Algorithm 1 maps
    # both to the gold mention ("the assassination" first: Dice 2*2/(4+2) = 2/3; then
    # "carried": 2*1/(4+1) = 2/5). Algorithm 3: System 1 (both Life.Die) gets 1, System 2
    # (Business.MERGE, Life.Die) 1/2.
    system = {"d1": [("s1", "t2", first_type, "Actual"),
                     ("s2", "t4,t5", "Life.Die", "Actual")]}
    sc = pilot(PAPER_GOLD, system)
    d = sc.documents[0]
    assert d.mapping == ((1, 0),)
    assert d.tp == pytest.approx(2 / 3)
    assert sc.accuracy("mention_type") == pytest.approx(accuracy)
    assert sc.accuracy("realis_status") == pytest.approx(1.0)
    assert sc.accuracy("mention_type+realis_status") == pytest.approx(accuracy)
    # "designed this way to prevent a system being penalized again for its span error": the
    # span error costs the span score only
    assert sc.span("fixed").precision == pytest.approx((2 / 3) / 2)
    # Algorithm 4 takes the best mapped mention of the right type, "the assassination", for both
    assert sc.alg4("mention_type").recall_num == pytest.approx(2 / 3)
    # section 2.6's product: F1 (fixed) = 2 TP / (N_S + N_G) = (4/3) / 3 = 4/9, times accuracy
    assert sc.multiplied("mention_type") == pytest.approx(4 / 9 * accuracy)


# --------------------------------------------------------------------------------------------
# Algorithm 2: original vs fixed precision, hand-derived on 3 gold / 4 system mentions
# --------------------------------------------------------------------------------------------
# g1 {t1,t2} A/X, g2 {t4} A/X, g3 {t8} A/X (nothing overlaps it);
# s1 {t1,t2} A/X: Dice(g1) = 1; s2 {t2} B/Y: Dice(g1) = 2/3; s3 {t4,t5} A/Y: Dice(g2) = 2/3;
# s4 {t10} A/X: spurious.
# Algorithm 1: s1 -> g1 (1), s2 -> g1 (2/3), s3 -> g2 (2/3): M_g1 = [s1, s2], M_g2 = [s3],
# M_g3 = []. TP = 1 + 2/3 = 5/3; N_G = 3, N_S = 4.
H_GOLD = {"d1": [("g1", "t1,t2", "A", "X"), ("g2", "t4", "A", "X"), ("g3", "t8", "A", "X")]}
H_SYSTEM = {"d1": [("s1", "t1,t2", "A", "X"), ("s2", "t2", "B", "Y"), ("s3", "t4,t5", "A", "Y"),
                   ("s4", "t10", "A", "X")]}


def test_algorithm2_original_and_fixed_precision_hand_derived():
    sc = pilot(H_GOLD, H_SYSTEM)
    d = sc.documents[0]
    assert d.mapping == ((0, 1), (2,), ())
    assert (d.n_gold, d.n_system, d.n_mapped_gold) == (3, 4, 2)
    assert d.tp == pytest.approx(5 / 3)
    # original (lines 3-4 literally): FP = 1 (g3 has no mapped mention); s4 costs nothing.
    # P = (5/3) / (8/3) = 5/8, R = 5/9, F1 = 2 TP / (TP + FP + N_G) = (10/3) / (17/3) = 10/17
    assert d.fp("original") == 1
    o = sc.span("original")
    assert (o.precision, o.recall, o.f1) == pytest.approx((5 / 8, 5 / 9, 10 / 17))
    # the pilot's scorer (EvmEval v1.1): FP = N_S - mapped gold = 4 - 2 = 2: P = 5/11, F1 = 1/2
    assert d.fp("evmeval") == 2
    e = sc.span("evmeval")
    assert (e.precision, e.recall, e.f1) == pytest.approx((5 / 11, 5 / 9, 1 / 2))
    # fixed: P = TP / N_S = 5/12, F1 = (10/3) / 7 = 10/21
    assert d.fp("fixed") == pytest.approx(4 - 5 / 3)
    f = sc.span("fixed")
    assert (f.precision, f.recall, f.f1) == pytest.approx((5 / 12, 5 / 9, 10 / 21))
    # the original formula ignores the spurious s4: dropping it changes nothing there
    no_s4 = pilot(H_GOLD, {"d1": H_SYSTEM["d1"][:3]})
    assert no_s4.span("original").precision == pytest.approx(5 / 8)
    assert no_s4.span("fixed").precision == pytest.approx(5 / 9)
    # and a system that maps every gold mention has original precision 1, however poor its
    # spans: here g3 is found by a 1-of-3 overlap (Dice 2*1/(1+3) = 1/2)
    full = pilot(H_GOLD, {"d1": [*H_SYSTEM["d1"], ("s5", "t7,t8,t9", "A", "X")]})
    assert full.span("original").precision == 1.0
    assert full.span("fixed").precision == pytest.approx((5 / 3 + 1 / 2) / 5)
    with pytest.raises(ValueError, match="unknown precision 'nope'"):
        sc.span("nope")


def test_algorithm3_and_the_product_hand_derived():
    sc = pilot(H_GOLD, H_SYSTEM)
    # type: g1 1/2 (s1 A, s2 B), g2 1 (s3 A), g3 0 -> 3/2 over 3 gold mentions = 1/2
    # realis: g1 1/2 (s1 X, s2 Y), g2 0 (s3 Y), g3 0 -> 1/6; both: g1 1/2, g2 0 -> 1/6
    assert sc.accuracy("mention_type") == pytest.approx(1 / 2)
    assert sc.accuracy("realis_status") == pytest.approx(1 / 6)
    assert sc.accuracy("mention_type+realis_status") == pytest.approx(1 / 6)
    assert sc.accuracy("plain") == pytest.approx(2 / 3)  # no attribute: mapped gold share
    # the alternative reading: over the 2 mapped gold mentions only
    assert sc.accuracy("mention_type", over="mapped") == pytest.approx(3 / 4)
    assert sc.accuracy("realis_status", over="mapped") == pytest.approx(1 / 4)
    # section 2.6: F1 (fixed 10/21, original 10/17) times the attributes' accuracies
    assert sc.multiplied("mention_type") == pytest.approx(10 / 21 / 2)
    assert sc.multiplied("mention_type", "original") == pytest.approx(10 / 17 / 2)
    assert sc.multiplied("mention_type+realis_status") == pytest.approx(10 / 21 / 12)
    assert sc.multiplied("mention_type+realis_status", product="joint") == pytest.approx(
        10 / 21 / 6)
    assert sc.multiplied("plain") == pytest.approx(10 / 21)
    # Algorithm 4: type g1 s1 (1) + g2 s3 (2/3); realis g1 s1 (1); both g1 s1 (1)
    assert [sc.alg4(c).recall_num for c in COMBOS] == pytest.approx([5 / 3, 5 / 3, 1, 1])
    assert sc.alg4("realis_status").precision == pytest.approx(1 / 4)
    with pytest.raises(ValueError, match="unknown accuracy denominator"):
        sc.accuracy("mention_type", over="nope")
    with pytest.raises(ValueError, match="unknown product"):
        sc.multiplied("mention_type", product="nope")


def test_micro_over_documents_and_the_documents_v18_leaves_out():
    # d1 as above; d2: one gold, one exact system mention of the wrong type; d3: no gold, two
    # system mentions (out of every average, as in v1.8); d4: gold without a system document.
    gold = {**H_GOLD, "d2": [("g1", "t1", "A", "X")], "d3": [],
            "d4": [("g1", "t1", "A", "X"), ("g2", "t3", "B", "X")]}
    system = {**H_SYSTEM, "d2": [("s1", "t1", "B", "X")],
              "d3": [("s1", "t1", "A", "X"), ("s2", "t2", "A", "X")]}
    sc = pilot(gold, system)
    assert [d.doc_id for d in sc.valid_documents] == ["d1", "d2", "d4"]
    assert sc.excluded_system_mentions == 2
    assert any("d4 has no system document" in w.message for w in sc.warnings)
    tp, n_g, n_s = 5 / 3 + 1, 3 + 1 + 2, 4 + 1
    o = sc.span("original")  # FP: 1 (d1) + 0 (d2) + 2 (d4)
    assert (o.precision, o.recall) == pytest.approx((tp / (tp + 3), tp / n_g))
    f = sc.span("fixed")
    assert (f.precision, f.recall) == pytest.approx((tp / n_s, tp / n_g))
    # type accuracy over all 6 gold mentions: 3/2 (d1) + 0 (d2) + 0 (d4)
    assert sc.accuracy("mention_type") == pytest.approx(3 / 2 / 6)
    # macro: the mean of the documents' ratios
    m = sc.span_macro("fixed")
    assert m["precision"] == pytest.approx((5 / 12 + 1 + 0) / 3)
    assert m["recall"] == pytest.approx((5 / 9 + 1 + 0) / 3)
    d = sc.to_dict()
    assert d["span"]["original"]["fp"] == 3 and d["valid_documents"] == 3
    assert d["accuracy"]["gold"]["mention_type"] == pytest.approx(1 / 4)
    assert [x["doc_id"] for x in d["documents"]] == ["d1", "d2", "d3", "d4"]
    assert "Pilot study" in nugget.format_pilot_study(sc)


def test_fixed_precision_is_not_v18s_when_algorithm1_collects():
    # g1 {t1,t2}, g2 {t1,t3,t4,t5}; s1 {t1,t2}: Dice(g1) = 1, Dice(g2) = 2/6; s2 {t1}:
    # Dice(g1) = 2/3, Dice(g2) = 2/5. Algorithm 1 gives g1 both (TP 1); v1.8's 1:1 greedy
    # gives s2 to g2 (TP 1 + 2/5): the fixed precision is TP/N_S of a different TP.
    gold = {"d1": [("g1", "t1,t2", "A", "X"), ("g2", "t1,t3,t4,t5", "A", "X")]}
    system = {"d1": [("s1", "t1,t2", "A", "X"), ("s2", "t1", "A", "X")]}
    sc = pilot(gold, system)
    assert not sc.one_to_one
    assert sc.span("fixed").precision == pytest.approx(1 / 2)
    assert evaluate(*files(gold, system)).scores["kbp"].micro().precision == pytest.approx(0.7)
    # with v1.8's greedy as M (kbp-span-first) the TP is v1.8's
    assert pilot(gold, system, mapping="kbp-span-first").span("fixed").precision == \
        pytest.approx(0.7)
    with pytest.raises(ValueError, match="unknown span-first mapping"):
        pilot(gold, system, mapping="kbp")


# --------------------------------------------------------------------------------------------
# properties on random documents
# --------------------------------------------------------------------------------------------
SPANS = st.lists(st.sampled_from([f"t{i}" for i in range(1, 7)]), min_size=1, max_size=3)


@st.composite
def corpora(draw):
    def mentions(prefix, realis):
        n = draw(st.integers(0, 5))
        return [(f"{prefix}{i}", ",".join(draw(SPANS)), draw(st.sampled_from("AB")),
                 draw(st.sampled_from(realis))) for i in range(n)]

    docs = [f"d{k}" for k in range(draw(st.integers(1, 3)))]
    return ({d: mentions("g", ("X", "Y", "NOT_ANNOTATED")) for d in docs},
            {d: mentions("s", ("X", "Y")) for d in docs})


@given(corpora())
def test_properties(corpus):
    gold, system = corpus
    g, s = files(gold, system)
    sc = pilot_study(g, s)
    ev = evaluate(g, s, mappings=["kbp", "pilot2015-alg4"])
    kbp, alg4 = ev.scores["kbp"], ev.scores["pilot2015-alg4"]
    for d in sc.documents:
        # Algorithm 2's TP is the plain TP of the existing span-first mapping; Algorithm 4's TP
        # is that mapping's, and at most the span TP (it maximises over a subset of M_G)
        ref = alg4.document(d.doc_id)
        assert d.tp == pytest.approx(ref.tp("plain"))
        for c in COMBOS:
            assert d.alg4_tp[c] == pytest.approx(ref.tp(c))
            assert d.alg4_tp[c] <= d.tp + 1e-9
            assert 0.0 <= d.correct[c] <= d.n_mapped_gold + 1e-9
        assert d.n_mapped_gold <= min(d.n_gold, d.n_system)
        # when Algorithm 1's mapping is 1:1 it is v1.8's greedy, pair for pair
        if d.one_to_one:
            assert d.tp == pytest.approx(kbp.document(d.doc_id).tp("plain"))
    # ... so then the fixed precision is v1.8's precision
    if sc.one_to_one:
        assert sc.span("fixed").precision == pytest.approx(kbp.micro().precision)
        assert sc.span("fixed").f1 == pytest.approx(kbp.micro().f1)
    # v1.1's FP (N_S - mapped gold) is at most the fixed one (N_S - TP): TP <= mapped gold
    assert sc.span("evmeval").precision >= sc.span("fixed").precision - 1e-12
    f1 = sc.span("fixed").f1
    for c in COMBOS:
        acc = sc.attribute_accuracies(c)
        assert all(0.0 <= x <= 1.0 for x in acc.values())
        assert sc.accuracy(c) <= sc.accuracy(c, over="mapped") + 1e-12
        # the product shrinks: at most the F1 and each accuracy
        m = sc.multiplied(c)
        assert m <= min([f1, *acc.values()]) + 1e-12
        assert sc.multiplied(c, product="joint") <= min(f1, sc.accuracy(c)) + 1e-12
        assert sc.alg4(c).recall_num <= sc.span().recall_num + 1e-9
    # the joint set is at most as accurate as each of its attributes
    both = sc.accuracy("mention_type+realis_status")
    assert both <= min(sc.accuracy("mention_type"), sc.accuracy("realis_status")) + 1e-12


# --------------------------------------------------------------------------------------------
# the nugget_gap experiment's pilot-study rows and summary
# --------------------------------------------------------------------------------------------
def test_experiment_pilot_rows_rank_and_summary():
    from experiments import nugget_gap

    base = {"group": "g", "system": "x", "rate": None, "profile": None, "perturb_seed": None,
            "rank": None, "exact_rank": None, "error": None,
            **{c: None for c in nugget_gap.PILOT_COLUMNS}}
    g, s = files(H_GOLD, H_SYSTEM)
    row = nugget_gap._pilot_row(base, g, s, None)
    assert set(row) == set(nugget_gap.COLUMNS) and row["level"] == "pilot-study"
    assert (row["p_original"], row["p_evmeval"], row["p_fixed"]) == pytest.approx(
        (5 / 8, 5 / 11, 5 / 12))
    assert (row["f1_original"], row["f1_evmeval"], row["f1_fixed"]) == pytest.approx(
        (10 / 17, 1 / 2, 10 / 21))
    assert (row["tp"], row["n_gold"], row["n_system"]) == (pytest.approx(5 / 3), 3, 4)
    assert (row["accuracy_type"], row["accuracy_realis"]) == pytest.approx((1 / 2, 1 / 6))
    assert row["product_type_realis"] == pytest.approx(10 / 21 / 12)
    assert row["alg4_f1_type"] == pytest.approx(2 * (5 / 3) / 7)
    # a second system: fewer, exact mentions -- better under the fixed precision, worse under
    # the original one (its unmapped gold mentions count as false positives there)
    g2, s2 = files(H_GOLD, {"d1": [("s1", "t1,t2", "A", "X")]})
    other = nugget_gap._pilot_row({**base, "system": "y"}, g2, s2, None)
    # y: TP 1, P orig 1/(1+2) = 1/3, F1 orig 2/(1+2+3) = 1/3 < 10/17; P fixed 1, F1 fixed
    # 2/(1+3) = 1/2 > 10/21
    rows = [row, other]
    nugget_gap._rank_pilot(rows)
    assert [(r["rank_original"], r["rank_fixed"]) for r in rows] == [(1, 2), (2, 1)]
    text = "\n".join(nugget_gap._pilot_summary(rows))
    assert "| g | x | 62.50 | 45.45 | 41.67 |" in text
    assert "original precision vs the fixed one: changed in 1 of 1 groups" in text
    assert nugget_gap._pilot_summary([{**row, "level": "corpus"}]) == []


def test_cli_pilot_study(tmp_path, capsys):
    """``nugget --pilot-study``: the pilot study's table (JSON: the score's to_dict in the output schema's shape), and one
    error line for options that belong to other scorings."""
    import json

    from exactalign.cli import main
    from tests.test_json_every_command import GOLD_TBF, SYS_TBF

    g, s = tmp_path / "g.tbf", tmp_path / "s.tbf"
    g.write_text(GOLD_TBF)
    s.write_text(SYS_TBF)
    assert main(["nugget", "-g", str(g), "-s", str(s), "--pilot-study", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["mapping"] == "pilot2015-alg4" and "span/original" in d["overall"]
    assert d["documents"][0]["id"] == "d1" and "span/fixed" in d["documents"][0]["scores"]
    assert main(["nugget", "-g", str(g), "-s", str(s), "--pilot-study"]) == 0
    assert capsys.readouterr().out.startswith("=======Pilot study (Liu et al. 2015)")
    assert main(["nugget", "-g", str(g), "-s", str(s), "--pilot-study", "kbp-span-first",
                 "-c"]) == 2
    assert "drop -c/--coref" in capsys.readouterr().err
