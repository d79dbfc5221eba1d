"""Event-nugget scoring: hand-derived cases (fractions written out), every v1.8 quirk we
reproduce, the counterexamples, heuristics <= exact on random documents, the command line."""

from __future__ import annotations

import heapq
import json
import math

import pytest
from hypothesis import given, target
from hypothesis import strategies as st

from exactalign import InputError, Status, cli
from exactalign.cli import nugget as nugget_cli
from exactalign.io.tbf import parse_tbf
from exactalign.metrics import nugget
from exactalign.metrics.nugget import (
    attribute_combinations,
    evaluate,
    format_v18,
    parse_v18_report,
    v18_numbers,
)

ALL = tuple(nugget.MAPPINGS)
COMBOS = ("plain", "mention_type", "realis_status", "mention_type+realis_status")


def tbf_text(docs: dict, run="run") -> str:
    """``{doc_id: [(mention id, span, type, realis), ...]}`` -> TBF text."""
    out = []
    for d, mentions in docs.items():
        out.append(f"#BeginOfDocument {d}")
        out += ["\t".join([run, d, mid, span, "x", typ, realis])
                for mid, span, typ, realis in mentions]
        out.append("#EndOfDocument")
    return "\n".join(out) + "\n"


def score(gold: dict, system: dict, mode="token", mappings=ALL, **kw):
    g = parse_tbf(tbf_text(gold, "gold"), path="gold.tbf", mode=mode)
    s = parse_tbf(tbf_text(system, "sys"), path="sys.tbf", mode=mode)
    return evaluate(g, s, mappings=mappings, **kw)


def tps(ev, mapping, doc="d1"):
    d = ev.scores[mapping].document(doc)
    return {c: d.tp(c) for c in COMBOS}


# --------------------------------------------------------------------------------------------
# hand-derived cases
# --------------------------------------------------------------------------------------------
def test_attribute_combinations_hand_derived():
    # g1 {t1,t2} A/Actual, g2 {t3} B/NOT_ANNOTATED; s1 {t2} A/Generic, s2 {t3} C/Other,
    # s3 {t9} B/Actual. Dice(g1,s1) = 2*1/(2+1) = 2/3, Dice(g2,s2) = 2*1/(1+1) = 1.
    gold = {"d1": [("g1", "t1,t2", "A", "Actual"), ("g2", "t3", "B", "NOT_ANNOTATED")]}
    system = {"d1": [("s1", "t2", "A", "Generic"), ("s2", "t3", "C", "Other"),
                     ("s3", "t9", "B", "Actual")]}
    ev = score(gold, system)
    expected = {"plain": 2 / 3 + 1,
                "mention_type": 2 / 3,              # g2-s2: B != C
                "realis_status": 1,                 # g1-s1: Actual != Generic; g2 NOT_ANNOTATED
                "mention_type+realis_status": 0}
    for m in ALL:
        assert tps(ev, m) == pytest.approx(expected), m
    d = ev.scores["kbp"].document("d1")
    assert (d.n_gold, d.n_system) == (2, 3)
    assert d.prf("plain").precision == pytest.approx((2 / 3 + 1) / 3)
    assert d.prf("plain").recall == pytest.approx((2 / 3 + 1) / 2)
    assert ev.combinations == COMBOS
    assert attribute_combinations(2) == [(), (0,), (1,), (0, 1)]


def test_character_mode_list_quirk_inflates_the_dice_denominator():
    # gold pieces 0..3 and 2..5 overlap: v1.8's list has 8 characters (6 distinct);
    # system 0..5 has 6. Dice = 2*6 / (8+6) = 6/7 (a set reading would give 1).
    ev = score({"d1": [("g1", "0,4;2,6", "A", "X")]}, {"d1": [("s1", "0,6", "A", "X")]},
               mode="char")
    assert tps(ev, "kbp")["plain"] == pytest.approx(2 * 6 / (8 + 6))


def test_paper_counterexample_pilot2015_vs_exact():
    # gold {t1,t2}, {t3,t4,t5}; system {t2,t3}, {t1,t2}. Dice: g1-s1 1/2, g1-s2 1, g2-s1 2/5.
    # The pilot's Algorithm 1 lets g1 collect s2 (1.0) and then s1 (0.5): g2 is left with
    # nothing, TP 1.0; the optimum g1-s2 + g2-s1 = 1.4.
    gold = {"d1": [("g1", "t1,t2", "A", "X"), ("g2", "t3,t4,t5", "A", "X")]}
    system = {"d1": [("s1", "t2,t3", "A", "X"), ("s2", "t1,t2", "A", "X")]}
    ev = score(gold, system)
    for c in COMBOS:
        assert tps(ev, "pilot2015")[c] == pytest.approx(1.0)
        assert tps(ev, "exact")[c] == pytest.approx(1.0 + 2 / 5)
        assert tps(ev, "kbp")[c] == pytest.approx(1.0 + 2 / 5)
        assert tps(ev, "kbp-gold-order")[c] == pytest.approx(1.0 + 2 / 5)
    assert ev.scores["pilot2015"].micro().recall == pytest.approx(1.0 / 2)
    assert ev.scores["exact"].micro().recall == pytest.approx(1.4 / 2)


def test_tie_breaking_counterexample_kbp_below_exact():
    # gold {t2,t3}, {t1,t3}; system {t3}, {t2}: Dice g1-s1 = g1-s2 = g2-s1 = 2/3, g2-s2 = 0.
    # v1.8 pops (-2/3, s1, g1) first and keeps it: TP 2/3; the optimum g1-s2 + g2-s1 = 4/3.
    gold = {"d1": [("g1", "t2,t3", "A", "X"), ("g2", "t1,t3", "A", "X")]}
    system = {"d1": [("s1", "t3", "A", "X"), ("s2", "t2", "A", "X")]}
    ev = score(gold, system)
    for m in ("kbp", "kbp-gold-order", "pilot2015"):
        assert tps(ev, m)["plain"] == pytest.approx(2 / 3), m
    assert tps(ev, "exact")["plain"] == pytest.approx(4 / 3)
    res = ev.scores["exact"].document("d1").results["plain"]
    assert res.status is Status.OPTIMAL and res.bound == pytest.approx(4 / 3)
    assert ev.scores["kbp"].document("d1").results["plain"].status is Status.FEASIBLE
    g = ev.gaps("kbp")["plain"]
    assert [d.doc_id for d in g.with_gap] == ["d1"]
    assert g.max_tp_gap == pytest.approx(4 / 3 - 2 / 3)
    # F1: exact P = R = (4/3)/2 = 2/3; kbp P = R = (2/3)/2 = 1/3.
    assert g.max_f1_gap == pytest.approx(2 / 3 - 1 / 3)
    assert (g.micro_f1, g.exact_micro_f1) == pytest.approx((1 / 3, 2 / 3))
    # the ILP agrees with the assignment algorithm
    ilp = score(gold, system, mappings=["exact"], exact_method="ilp")
    r = ilp.scores["exact"].document("d1").results["plain"]
    assert r.method == "ilp" and r.status is Status.OPTIMAL
    assert r.objective == pytest.approx(4 / 3)


def test_span_first_mappings_lose_what_the_joint_objective_keeps():
    # g1 {t1,t2} type A, g2 {t2,t3,t4} type B; s1 {t1,t2} type B.
    # Dice(g1,s1) = 1, Dice(g2,s1) = 2*1/(3+2) = 2/5. Spans first: s1 goes to g1, whose type
    # differs, and g2 has nothing: type TP 0. Per combination (v1.8) and exact: g2-s1 = 2/5.
    gold = {"d1": [("g1", "t1,t2", "A", "X"), ("g2", "t2,t3,t4", "B", "X")]}
    system = {"d1": [("s1", "t1,t2", "B", "X")]}
    ev = score(gold, system, mappings=[*ALL, *nugget.SPAN_FIRST])
    for m in nugget.SPAN_FIRST:
        assert tps(ev, m) == pytest.approx({"plain": 1.0, "mention_type": 0.0,
                                            "realis_status": 1.0,
                                            "mention_type+realis_status": 0.0}), m
    for m in ALL:
        assert tps(ev, m)["mention_type"] == pytest.approx(2 / 5), m
    assert ev.gaps("pilot2015-alg4")["mention_type"].max_tp_gap == pytest.approx(2 / 5)


def test_algorithm4_takes_the_best_mapped_mention_with_matching_attributes():
    # The paper's example (section 2.5): gold "carried out the assassination" {t2..t5}
    # Life_Die; system "carried" {t2} Business_Merge and "the assassination" {t4,t5} Life_Die.
    # Algorithm 1 maps both to the gold mention (Dice 2*2/(4+2) = 2/3 first, then 2/(4+1) =
    # 2/5); Algorithm 4 scores the type by the best mapped mention of the right type: 2/3.
    gold = {"d1": [("g1", "t2,t3,t4,t5", "Life_Die", "X")]}
    system = {"d1": [("s1", "t2", "Business_Merge", "X"), ("s2", "t4,t5", "Life_Die", "X")]}
    ev = score(gold, system, mappings=["pilot2015-alg4", "kbp-span-first", "exact"])
    assert tps(ev, "pilot2015-alg4")["mention_type"] == pytest.approx(2 / 3)
    assert tps(ev, "kbp-span-first")["mention_type"] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="unknown mapping 'nope'.*kbp-span-first"):
        score(gold, system, mappings=["nope"])


def test_each_combination_has_its_own_mapping():
    # plain maps g1-s1 (Dice 1); for mention_type s1 has the wrong type, so v1.8's greedy
    # (with that combination's own used-sets) maps g1-s2: Dice 2*1/(2+1) = 2/3.
    gold = {"d1": [("g1", "t1,t2", "A", "X")]}
    system = {"d1": [("s1", "t1,t2", "B", "X"), ("s2", "t1", "A", "X")]}
    t = tps(score(gold, system), "kbp")
    assert t["plain"] == pytest.approx(1.0) and t["mention_type"] == pytest.approx(2 / 3)
    assert t["realis_status"] == pytest.approx(1.0)


def test_duplicate_system_ids_fp_quirk():
    # Two system mentions with the same id E1 (a warning). Span-only FP counts distinct ids:
    # 1 - TP = 0, so P over TP+FP is 1/1; the printed precision is TP/N_S = 1/2. For the
    # attribute combinations FP = N_S - TP = 1.
    ev = score({"d1": [("g1", "t1", "A", "X")]},
               {"d1": [("E1", "t1", "A", "X"), ("E1", "t5", "A", "X")]})
    assert any("mention id E1 repeats" in w.message for w in ev.warnings)
    d = ev.scores["kbp"].document("d1")
    assert (d.n_system, d.n_system_ids) == (2, 1)
    assert d.fp("plain") == 0 and d.prf_tp_fp("plain").precision == 1.0
    assert d.prf("plain").precision == 1 / 2
    assert d.fp("mention_type") == 1 and d.prf_tp_fp("mention_type").precision == 1 / 2
    assert ev.scores["kbp"].micro_tp_fp("plain").precision == 1.0


def test_documents_without_gold_are_left_out_of_every_average():
    # d2 has no gold mentions: its two system mentions count nowhere (v1.8), not even against
    # micro precision. Its row shows P = 0/2 = 0, R and F1 nan.
    ev = score({"d1": [("g1", "t1", "A", "X")], "d2": []},
               {"d1": [("s1", "t1", "A", "X")],
                "d2": [("s1", "t1", "A", "X"), ("s2", "t2", "A", "X")]})
    sc = ev.scores["kbp"]
    assert sc.excluded_system_mentions == 2 and [d.doc_id for d in sc.valid_documents] == ["d1"]
    assert sc.micro().precision == 1.0 and sc.macro()["precision"] == 1.0
    v = v18_numbers(sc)
    p, r, f = v["documents"]["d2"]["plain"]
    assert p == 0.0 and math.isnan(r) and math.isnan(f)
    assert v["micro"]["plain"] == (100.0, 100.0, 100.0)


def test_macro_f1_is_the_f1_of_the_mean_precision_and_recall():
    # d1: gold {a, b}, system {a}: P 1, R 1/2. d2: gold {c}, system {c, x}: P 1/2, R 1.
    # Macro P = R = 3/4, so v1.8's macro F1 = 3/4; the mean of per-document F1s would be 2/3.
    ev = score({"d1": [("a", "t1", "A", "X"), ("b", "t2", "A", "X")],
                "d2": [("c", "t1", "A", "X")]},
               {"d1": [("a", "t1", "A", "X")],
                "d2": [("c", "t1", "A", "X"), ("x", "t9", "A", "X")]})
    sc = ev.scores["kbp"]
    assert sc.macro()["f1_of_means"] == pytest.approx(3 / 4)
    assert sc.macro()["f1"] == pytest.approx(2 / 3)
    assert v18_numbers(sc)["macro"]["plain"] == pytest.approx((75.0, 75.0, 75.0))
    # micro: TP 2 over 3 gold and 3 system mentions
    assert v18_numbers(sc)["micro"]["plain"] == pytest.approx((200 / 3, 200 / 3, 200 / 3))


def test_missing_documents_warn_and_strict_refuses():
    gold = {"d1": [("g1", "t1", "A", "X")], "d2": [("g2", "t1", "A", "X")]}
    system = {"d1": [("s1", "t1", "A", "X")], "d9": [("s9", "t1", "A", "X")]}
    ev = score(gold, system, mappings=["kbp"])
    msgs = [str(w) for w in ev.warnings]
    assert "sys.tbf:4: system document d9 is not in the gold standard; ignored" in msgs[0]
    assert "gold.tbf:4: gold document d2 has no system document; scored as empty" in msgs[1]
    sc = ev.scores["kbp"]
    assert [d.doc_id for d in sc.documents] == ["d1", "d2"]
    assert sc.micro().recall == 1 / 2 and sc.macro()["precision"] == 1 / 2
    with pytest.raises(InputError, match="d9 is not in the gold") as e:
        score(gold, system, mappings=["kbp"], strict=True)
    assert (e.value.path, e.value.line) == ("sys.tbf", 4)


def test_type_whitelist_drops_mentions_first():
    ev = score({"d1": [("g1", "t1", "Conflict_Attack", "X"), ("g2", "t2", "Life_Die", "X")]},
               {"d1": [("s1", "t1", "Conflict_Attack", "X"), ("s2", "t3", "Life_Die", "X")]},
               mappings=["kbp"], type_whitelist=["conflict attack"])
    d = ev.scores["kbp"].document("d1")
    assert (d.n_gold, d.n_system, d.tp()) == (1, 1, 1.0)


def test_per_type_table_compat_and_corrected():
    # g1 A/X; s1 same span A/Y (realis wrong); s2 elsewhere C/X.
    gold = {"d1": [("g1", "t1", "A", "X")]}
    system = {"d1": [("s1", "t1", "A", "Y"), ("s2", "t5", "C", "X")]}
    compat = score(gold, system, mappings=["kbp"], compat=True).scores["kbp"]
    fixed = score(gold, system, mappings=["kbp"]).scores["kbp"]
    # v1.8: the type+realis mapping leaves g1 unmapped; only gold types are listed
    assert compat.type_combination == "mention_type+realis_status"
    assert {t: (x.tp, x.n_gold, x.n_system) for t, x in compat.per_type.items()} == {
        "a": (0.0, 1, 1)}
    # corrected: the mention_type mapping (g1-s1), and the system-only type c
    assert fixed.type_combination == "mention_type"
    assert {t: (x.tp, x.n_gold, x.n_system) for t, x in fixed.per_type.items()} == {
        "a": (1.0, 1, 1), "c": (0.0, 0, 1)}
    assert v18_numbers(fixed)["types"]["c"] == (0.0, 0.0, 0.0, 0, 1)


def test_report_round_trip_and_parse_errors():
    ev = score({"d1": [("g1", "t1,t2", "A", "X")], "d2": [("g2", "t1", "B", "Y")]},
               {"d1": [("s1", "t2", "A", "X")]}, compat=True)
    for m in ALL:
        sc = ev.scores[m]
        text = format_v18(sc)
        parsed, v = parse_v18_report(text), v18_numbers(sc)
        assert list(parsed["documents"]) == ["d1", "d2"]
        assert text.count("nan") == 8  # d2: no system mentions -> P and F1 nan, 4 combinations
        for section in ("micro", "macro"):
            for c in COMBOS:
                assert parsed[section][c] == pytest.approx(
                    tuple(round(x, 2) for x in v[section][c]), nan_ok=True)
        assert parsed["types"] == {t: pytest.approx(tuple(round(x, 2) for x in row))
                                   for t, row in v["types"].items()}
    with pytest.raises(InputError, match="section .* not found"):
        parse_v18_report("nothing here", path="x.scores")


# --------------------------------------------------------------------------------------------
# random documents: heuristics <= exact, and kbp = an independent v1.8 loop
# --------------------------------------------------------------------------------------------
def v18_loop(gold, system, combos):
    """v1.8's get_tp_greedy, written independently of exactalign.problems.bipartite: one heap
    of (-Dice, system index, gold index), per-combination used-sets."""
    heap = []
    for si, s in enumerate(system):
        for gi, g in enumerate(gold):
            inter = len(g.units & s.units)
            dice = 2.0 * inter / (g.size + s.size) if g.size + s.size else 0.0
            if dice > 0:
                heapq.heappush(heap, (-dice, si, gi))
    out = [0.0] * len(combos)
    used = [(set(), set()) for _ in combos]
    while heap:
        neg, si, gi = heapq.heappop(heap)
        for k, combo in enumerate(combos):
            us, ug = used[k]
            if si in us or gi in ug:
                continue
            ga, sa = gold[gi].canonical_attributes, system[si].canonical_attributes
            if all(ga[a] in ("notannotated", sa[a]) for a in combo):
                out[k] += -neg
                us.add(si)
                ug.add(gi)
    return out


SPANS = st.lists(st.sampled_from([f"t{i}" for i in range(1, 7)]), min_size=1, max_size=3)


@st.composite
def documents(draw):
    def mentions(prefix, realis):
        n = draw(st.integers(0, 5))
        return [(f"{prefix}{i}", ",".join(draw(SPANS)), draw(st.sampled_from("AB")),
                 draw(st.sampled_from(realis))) for i in range(n)]

    return ({"d1": mentions("g", ("X", "Y", "NOT_ANNOTATED"))},
            {"d1": mentions("s", ("X", "Y"))})


@given(documents())
def test_heuristics_never_beat_exact_and_kbp_is_v18(doc):
    gold, system = doc
    ev = score(gold, system, mappings=[*ALL, *nugget.SPAN_FIRST])
    exact = ev.scores["exact"].document("d1")
    for c in COMBOS:
        assert exact.results[c].status is Status.OPTIMAL
        for m in (*nugget.HEURISTIC_MAPPINGS, *nugget.SPAN_FIRST):
            assert ev.scores[m].document("d1").tp(c) <= exact.tp(c) + 1e-9, (m, c)
        # a combination only removes candidates
        assert exact.tp(c) <= exact.tp("plain") + 1e-9
    target(exact.tp("plain") - ev.scores["kbp"].document("d1").tp("plain"))
    g = parse_tbf(tbf_text(gold), mode="token").documents["d1"].mentions
    s = parse_tbf(tbf_text(system), mode="token").documents["d1"].mentions
    loop = v18_loop(g, s, attribute_combinations(2))
    assert [ev.scores["kbp"].document("d1").tp(c) for c in COMBOS] == pytest.approx(loop)


# --------------------------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------------------------
@pytest.fixture
def files(tmp_path):
    gold = {"d1": [("g1", "t2,t3", "A", "X"), ("g2", "t1,t3", "A", "X")]}
    system = {"d1": [("s1", "t3", "A", "X"), ("s2", "t2", "A", "Y")]}
    g, s = tmp_path / "gold.tbf", tmp_path / "sys.tbf"
    g.write_text(tbf_text(gold))
    s.write_text(tbf_text(system))
    tkn = tmp_path / "tkn"
    tkn.mkdir()
    (tkn / "d1.tab").write_text("".join(f"t{i}\tw{i}\t{2 * i}\t{2 * i + 1}\n"
                                        for i in range(1, 7)))
    return str(g), str(s), str(tkn)


def run(capsys, *argv):
    code = cli.main(["nugget", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_text_is_the_v18_report(capsys, files):
    g, s, t = files
    code, out, err = run(capsys, "-g", g, "-s", s, "-t", t, "--compat")
    assert (code, err) == (0, "")
    ev = nugget.evaluate_files(g, s, token_dir=t, compat=True)
    assert out == format_v18(ev.scores["kbp"])
    assert out.startswith("========Document Mention Detection Results==========\n")


def test_cli_all_mappings_prints_the_gap_table(capsys, files):
    g, s, t = files
    code, out, _ = run(capsys, "-g", g, "-s", s, "-t", t, "--mapping", "all")
    assert code == 0
    for m in ALL:
        assert f"######## mapping: {m} ########" in out
    assert "=======Mappings vs exact=========" in out
    assert "worst status optimal" in out
    row = next(x for x in out.splitlines() if x.startswith("kbp ") and " plain " in x)
    assert row.split()[2:5] == ["0.6667", "1.3333", "0.6667"]
    assert ("kbp plain: worst document d1 (TP -0.6667): remove 1 and add 2 mention pair(s) to "
            "reach the optimum") in out.splitlines()


def test_cli_json(capsys, files):
    g, s, t = files
    code, out, err = run(capsys, "-g", g, "-s", s, "-t", t, "--mapping", "all", "--json")
    assert (code, err) == (0, "")
    d = json.loads(out)
    assert set(d) == {"command", "version", "inputs", "options",  # the envelope
                      "gold", "system", "mode", "scheme", "attribute_credits", "attributes",
                      "combinations", "compat", "warnings", "overall", "solves", "documents",
                      "mappings", "vs_exact"}
    assert d["scheme"] == "dice" and d["attribute_credits"] == {}
    assert d["mode"] == "token" and d["combinations"] == list(COMBOS)
    assert list(d["mappings"]) == [*ALL, *nugget.SPAN_FIRST]
    names = [f"{m}/{c}" for m in [*ALL, *nugget.SPAN_FIRST] for c in COMBOS]
    assert list(d["overall"]) == list(d["solves"]) == names
    micro = d["overall"]["kbp/plain"]  # v1.8's micro average
    assert set(micro) == {"precision", "recall", "f1", "counts"}
    assert micro["recall"] == pytest.approx((2 / 3) / 2)
    assert micro["counts"]["recall_den"] == 2  # gold mentions
    assert set(d["mappings"]["kbp"]["macro"]) == set(COMBOS)
    [row] = d["documents"]
    assert row["id"] == "d1" and list(row["scores"]) == names
    assert row["solves"]["kbp/plain"]["status"] == "feasible"
    assert row["solves"]["kbp/plain"]["bound"] is None
    assert row["details"]["kbp/plain"]["exact_tp"] == pytest.approx(4 / 3)
    assert row["details"]["kbp/plain"]["gap_to_exact"] == pytest.approx(2 / 3)
    # greedy took g1-s1 first (Dice 2/3 each way: g1-s1, g1-s2, g2-s1); the optimum swaps it
    # for g1-s2 and g2-s1
    w = row["details"]["kbp/plain"]["witness"]
    assert w["remove"] == [["g1", "s1"]] and w["add"] == [["g1", "s2"], ["g2", "s1"]]
    assert w["changes"] == 3 and w["gain"] == pytest.approx(2 / 3)
    assert row["details"]["exact/plain"]["witness"] is None
    ex = row["solves"]["exact/plain"]
    assert ex["status"] == "optimal" and ex["bound"] == pytest.approx(4 / 3)
    assert d["solves"]["exact/plain"]["status"] == "optimal"
    assert d["vs_exact"]["kbp"]["plain"]["documents_with_gap"] == ["d1"]
    assert "exact" not in d["vs_exact"]


def test_cli_input_errors_name_file_and_line(capsys, files, tmp_path):
    g, s, t = files
    bad = tmp_path / "bad.tbf"
    bad.write_text("#BeginOfDocument d1\nrun\td1\tE1\tt1\tx\tA\n#EndOfDocument\n")
    code, out, err = run(capsys, "-g", g, "-s", str(bad), "-t", t)
    assert code == 2 and out == ""
    assert err.startswith(f"exactalign: error: {bad}:2: mention line has 6 tab-separated")
    bad.write_text("#BeginOfDocument d1\nrun\td1\tE1\tt1,t99\tx\tA\tX\n#EndOfDocument\n")
    code, _, err = run(capsys, "-g", g, "-s", str(bad), "-t", t)
    assert code == 2 and f"{bad}:2: token id 't99' of mention E1 is not in the token" in err
    code, _, err = run(capsys, "-g", g, "-s", s, "-t", str(tmp_path / "nope"))
    assert code == 2 and "token directory" in err and "does not exist" in err


def test_cli_warnings_on_stderr_and_strict(capsys, files, tmp_path):
    g, _, t = files
    dup = tmp_path / "dup.tbf"
    dup.write_text(tbf_text({"d1": [("E1", "t1", "A", "X"), ("E1", "t2", "A", "X")]}))
    code, out, err = run(capsys, "-g", g, "-s", str(dup), "-t", t)
    assert code == 0 and out
    assert err == (f"exactalign: warning: {dup}:3: mention id E1 repeats the one at line 2 in "
                   "document d1; both mentions are kept (as v1.8 does)\n")
    code, out, err = run(capsys, "-g", g, "-s", str(dup), "-t", t, "--strict")
    assert code == 2 and out == "" and "strict" in err


def test_cli_mapping_names_match_the_library():
    assert nugget_cli.MAPPING_NAMES == tuple(nugget.MAPPINGS)
    assert nugget_cli.SPAN_FIRST_NAMES == tuple(nugget.SPAN_FIRST)
    assert "nugget" in [c.name for c in cli.COMMANDS]


def test_missing_token_table_warns_and_known_ids_pass():
    g = parse_tbf(tbf_text({"d1": [("g1", "t1", "A", "X")]}), path="g.tbf", mode="token")
    s = parse_tbf(tbf_text({"d1": [("s1", "t1", "A", "X")]}), path="s.tbf", mode="token")
    ev = evaluate(g, s, token_tables={"d1": None})
    assert [str(w) for w in ev.warnings] == [
        "g.tbf:1: no token table for document d1; its token ids are not checked"]
    assert ev.scores["kbp"].micro().f1 == 1.0
    with pytest.raises(ValueError, match="char mode"):
        evaluate(parse_tbf("", mode="char"), s)


def test_span_overlap_equals_the_incidence_product():
    """Unit overlaps are counted through an index from unit to gold mentions (no scipy on
    one-document runs); they equal the product of the two unit-incidence matrices, pair for
    pair, in (gold, system) order."""
    import numpy as np
    import scipy.sparse as sp

    from exactalign.io.tbf import Mention
    from exactalign.metrics.nugget.instances import span_overlap

    rng = np.random.default_rng(3)
    vocab = {f"t{t}": t for t in range(12)}
    for _ in range(100):
        def mentions(k):
            return [Mention(f"m{i}", tuple(f"t{t}" for t in rng.choice(12, int(rng.integers(1, 4)),
                                                                     replace=False)), ("E", "R"))
                    for i in range(k)]
        gold, system = mentions(int(rng.integers(0, 6))), mentions(int(rng.integers(0, 6)))
        r, c, inter = span_overlap(gold, system)

        def incidence(side):
            rows = [i for i, m in enumerate(side) for _ in m.units]
            cols = [vocab[u] for m in side for u in m.units]
            return sp.csr_array((np.ones(len(rows)), (rows, cols)), shape=(len(side), 12))

        want = (incidence(gold) @ incidence(system).T).todok()
        pairs = list(zip(r.tolist(), c.tolist(), strict=True))
        assert dict(zip(pairs, inter.tolist(), strict=True)) == {
            (int(i), int(j)): float(v) for (i, j), v in want.items() if v}
        assert pairs == sorted(pairs)


def test_span_overlap_of_character_spans_equals_the_unit_sets(monkeypatch):
    """Character spans: one piece each (intersections computed for all pairs at once), or some
    with several pieces (the unit index); both equal the sizes of the unit-set intersections,
    in (gold, system) order, and the dense path equals the unit index's on the same spans."""
    import numpy as np

    from exactalign.io.tbf import Mention
    from exactalign.metrics.nugget import instances

    rng = np.random.default_rng(11)

    def mentions(k, pieces):
        out = []
        for i in range(k):
            ps = []
            for _ in range(int(rng.integers(1, pieces + 1))):
                b = int(rng.integers(0, 30))
                ps.append((b, b + int(rng.integers(-1, 8))))  # empty and reversed spans too
            out.append(Mention(f"m{i}", tuple(ps), ("E", "R"), mode="char"))
        return out

    for t in range(200):
        pieces = 1 if t % 2 else 3
        gold, system = mentions(int(rng.integers(0, 7)), pieces), mentions(
            int(rng.integers(0, 7)), pieces)
        r, c, inter = instances.span_overlap(gold, system)
        want = {(i, j): float(len(g.units & s.units)) for i, g in enumerate(gold)
                for j, s in enumerate(system) if g.units & s.units}
        pairs = list(zip(r.tolist(), c.tolist(), strict=True))
        assert dict(zip(pairs, inter.tolist(), strict=True)) == want
        assert pairs == sorted(pairs) and r.dtype == c.dtype == np.int64
        with monkeypatch.context() as m:
            m.setattr(instances, "DENSE_OVERLAP_CELLS", 0)
            r2, c2, inter2 = instances.span_overlap(gold, system)
        for a, b in ((r, r2), (c, c2), (inter, inter2)):
            np.testing.assert_array_equal(a, b)
            assert a.dtype == b.dtype


def test_document_instances_equal_the_checked_instances():
    """document_instances builds its instances without the constructor's checks
    (BipartiteInstance._canonical); they equal the checked ones, and each combination keeps
    exactly the pairs whose canonical attributes agree (gold NOT_APPLICABLE agrees with all)."""
    import numpy as np

    from exactalign.io.tbf import Mention
    from exactalign.metrics.nugget.hierarchy import NOT_APPLICABLE
    from exactalign.metrics.nugget.instances import attribute_combinations, document_instances
    from exactalign.problems.bipartite import BipartiteInstance

    rng = np.random.default_rng(12)
    values = ["Attack", "attack", "Die", NOT_APPLICABLE, "Actual", "Other"]

    def mentions(k):
        out = []
        for i in range(k):
            b = int(rng.integers(0, 40))
            attrs = tuple(values[int(rng.integers(len(values)))] for _ in range(2))
            out.append(Mention(f"m{i}", ((b, b + int(rng.integers(1, 8))),), attrs,
                               mode="char"))
        return out

    combos = attribute_combinations(2)
    for _ in range(150):
        gold, system = mentions(int(rng.integers(0, 8))), mentions(int(rng.integers(0, 8)))
        for combo, got in zip(combos, document_instances(gold, system, combos), strict=True):
            checked = BipartiteInstance(got.n_ref, got.n_pred, got.rows, got.cols, got.weights)
            for name in ("rows", "cols", "weights"):
                np.testing.assert_array_equal(getattr(got, name), getattr(checked, name))
                assert not getattr(got, name).flags.writeable
            for i, j in zip(got.rows.tolist(), got.cols.tolist(), strict=True):
                g, s = gold[i].canonical_attributes, system[j].canonical_attributes
                assert all(g[a] == s[a] or g[a] == NOT_APPLICABLE for a in combo)
            kept = set(zip(got.rows.tolist(), got.cols.tolist(), strict=True))
            for i, g in enumerate(gold):
                for j, s in enumerate(system):
                    agree = all(g.canonical_attributes[a] in (s.canonical_attributes[a],
                                                              NOT_APPLICABLE) for a in combo)
                    assert ((i, j) in kept) == (agree and bool(g.units & s.units))
