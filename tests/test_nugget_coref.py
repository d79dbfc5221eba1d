"""Event coreference as the TAC KBP scorer v1.8 scores it (its ``-c``): hand-derived cases
where the score is not 100 (fractions written out; the printed scores are the CoNLL reference
scorer's F1 *truncated* to two decimals), the conversion to CoNLL rows, the equivalence with
scoring the CoNLL files v1.8 writes, its errors, and the command line."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactalign import InputError, cli
from exactalign.io.conll import parse_conll
from exactalign.io.tbf import parse_tbf
from exactalign.metrics import coref, nugget
from exactalign.metrics.nugget import evaluate, format_v18, format_v18_coref, parse_v18_coref
from exactalign.metrics.nugget.coreference import _perl_numerators


def tbf(docs: dict, run: str) -> str:
    """``{doc: ([(id, "b,e", type), ...], [cluster ids, ...])}`` -> TBF text (realis Actual)."""
    out = []
    for d, (mentions, clusters) in docs.items():
        out.append(f"#BeginOfDocument {d}")
        out += ["\t".join([run, d, mid, span, "x", typ, "Actual"]) for mid, span, typ in mentions]
        out += [f"@Coreference\tR{k}\t{','.join(c)}" for k, c in enumerate(clusters, 1)]
        out.append("#EndOfDocument")
    return "\n".join(out) + "\n"


def run_coref(gold: dict, system: dict, mappings=("kbp",), **kw):
    g = parse_tbf(tbf(gold, "gold"), path="gold.tbf", mode="char")
    s = parse_tbf(tbf(system, "sys"), path="sys.tbf", mode="char")
    return evaluate(g, s, mappings=mappings, coref=True, **kw)


COREF_TITLE = "=======Final Mention Coreference Results========="
SPANS = tuple(f"{10 * i},{10 * i + 5}" for i in range(8))


def same_spans(prefix: str, types: str) -> list:
    return [(f"{prefix}{i + 1}", SPANS[i], t) for i, t in enumerate(types)]


# Four mentions, identical spans and types; gold {E1,E2} {E3,E4}, the system merges them.
MERGE = ({"d1": (same_spans("E", "AADD"), [["E1", "E2"], ["E3", "E4"]])},
         {"d1": (same_spans("S", "AADD"), [["S1", "S2", "S3", "S4"]])})


def test_merging_two_gold_clusters_hand_derived():
    c = run_coref(*MERGE).scores["kbp"].coref
    o = c.scores.overall
    # MUC: key links 1 + 1; the response chain covers both key chains: 4 - 2 = 2 correct links
    # of its 3. R = 2/2, P = 2/3, F1 = 0.8.
    assert (o["muc"].recall, o["muc"].precision) == (1.0, pytest.approx(2 / 3))
    # B3: every mention has |K∩R| = 2, |K| = 2, |R| = 4: R = 1, P = 1/2, F1 = 2/3.
    assert (o["bcub"].recall, o["bcub"].precision) == (1.0, 0.5)
    # CEAFm: one key chain aligned to R, phi3 = 2: R = P = 2/4. CEAFe: phi4 = 2*2/(2+4) = 2/3
    # over 2 key and 1 response entities: R = 1/3, P = 2/3, F1 = 4/9.
    assert (o["ceafm"].recall, o["ceafm"].precision) == (0.5, 0.5)
    assert o["ceafe"].recall == pytest.approx(1 / 3)
    assert o["ceafe"].precision == pytest.approx(2 / 3)
    # BLANC: coreference links key {12, 34}, response all 6 pairs: R 2/2, P 2/6, F 1/2;
    # non-coreference links key 4, response 0: R 0, P 0, F 0. BLANC F1 = (1/2 + 0) / 2.
    assert o["blanc"].f1 == pytest.approx(0.25)
    # printed truncated: B3 66.666.. -> 66.66 (not 66.67), CEAFe 44.44.., and v1.8's average
    # is over B3, CEAFe, MUC *and BLANC* (CEAFm starred): (66.66 + 44.44 + 80 + 25) / 4.
    assert c.v18_scores() == {"bcub": 66.66, "ceafe": 44.44, "ceafm": 50.0, "muc": 80.0,
                              "blanc": 25.0}
    assert c.v18_average() == pytest.approx(216.1 / 4)
    assert c.conll == pytest.approx((0.8 + 2 / 3 + 4 / 9) / 3)   # CoNLL-2012, no BLANC
    assert format_v18_coref(c) == (
        "\n=======Final Mention Coreference Results=========\n"
        "Metric : bcub\tScore\t66.66\n"
        "Metric : ceafe\tScore\t44.44\n"
        "Metric : ceafm\tScore\t50.00 *\n"
        "Metric : muc\tScore\t80.00\n"
        "Metric : blanc\tScore\t25.00\n"
        "Overall Average CoNLL score\t54.02\n"
        "\n* Score not included for final CoNLL score.\n")


def test_truncation_sees_the_floating_point_f1():
    # Key {1,2,3,5} {4}; response {1,5} {2,3} {4} (identical spans). B3: recall per mention
    # 2/4, 2/4, 2/4, 2/4, 1/1 -> R = 3/5, precision 1 each -> P = 1; F1 = 2*1*0.6/1.6, which
    # is 0.7499999999999999 in floating point: the reference prints 74.99 (checked against
    # scorer_v1.8.py with its Perl scorer). CEAFe: phi4 2/3 (K1-R1) + 1 (K2-R3): R = 5/6,
    # P = 5/9, F1 = 2/3. CEAFm 3/5. MUC: 2 of 3 key links, 2 of 2 response links: 0.8. BLANC:
    # coreference links R 2/6, P 2/2 (F 1/2); non-coreference R 4/4, P 4/8 (F 2/3).
    gold = {"d1": (same_spans("E", "AAAAA"), [["E1", "E2", "E3", "E5"]])}
    system = {"d1": (same_spans("S", "AAAAA"), [["S1", "S5"], ["S2", "S3"]])}
    c = run_coref(gold, system).scores["kbp"].coref
    assert c.v18_scores() == {"bcub": 74.99, "ceafe": 66.66, "ceafm": 60.0, "muc": 80.0,
                              "blanc": 58.33}
    assert f"{c.v18_average():.2f}" == "69.99"  # (74.99 + 66.66 + 80 + 58.33) / 4


def test_b_cubed_numerators_are_summed_in_the_reference_order():
    # Key {1,7} {2,4,5} {3,6} {8}; response {1,2,3} {4,6} {5,8} {7}. B3 recall = precision =
    # 4/8 exactly, F1 = 1/2. The reference adds c/|K| mention by mention, response chain by
    # response chain, and reaches 4.0 exactly: it prints 50.00 (checked against scorer_v1.8.py;
    # other summation orders give 3.9999999999999996 and print 49.99).
    gold = {"d1": (same_spans("E", "AAAAAAAA"),
                   [["E1", "E7"], ["E2", "E4", "E5"], ["E3", "E6"]])}
    system = {"d1": (same_spans("S", "AAAAAAAA"),
                     [["S1", "S2", "S3"], ["S4", "S6"], ["S5", "S8"]])}
    c = run_coref(gold, system).scores["kbp"].coref
    assert c.v18_scores() == {"bcub": 50.0, "ceafe": 54.16, "ceafm": 50.0, "muc": 0.0,
                              "blanc": 39.13}
    d = c._identified[0]
    assert _perl_numerators("bcub", d, c.scores.documents[0]) == (4.0, 4.0)


def test_the_same_as_scoring_the_conll_files_v18_writes():
    # What conll_coref.py writes for MERGE (the text column does not matter), read and scored
    # by the CoNLL reader and coref.py: the same counts as the in-memory conversion.
    key = ("#begin document (d1); part 000\n"
           "d1\t0\tx\t(0)\nd1\t1\tx\t(0)\nd1\t2\tx\t(1)\nd1\t3\tx\t(1)\n#end document\n")
    response = key.replace("(1)", "(0)")
    expected = coref.score_documents(list(zip(parse_conll(key), parse_conll(response),
                                              strict=True)), nugget.COREF_METRICS)
    c = run_coref(*MERGE).scores["kbp"].coref
    assert c.scores.overall == expected.overall
    r = c.documents[0]
    assert r.key.clusters == (((0, 0), (1, 1)), ((2, 2), (3, 3)))
    assert r.response.clusters == (((0, 0), (1, 1), (2, 2), (3, 3)),)


def v18_conll_text(doc_id, gold_ids, gold_clusters, system_ids, system_clusters, mapping):
    """A literal transcription of v1.8's ``create_aligned_tables`` + ``prepare_lines`` (ids
    instead of mention tables; ``mapping[g]`` = (system index, score) or None)."""
    gold_rows, sys_rows, used = [], [], set()
    for gi, mid in enumerate(gold_ids):
        gold_rows.append(mid)
        if mapping[gi] is not None and mapping[gi][1] >= 1.0:
            sys_rows.append(system_ids[mapping[gi][0]])
            used.add(mapping[gi][0])
        else:
            sys_rows.append(None)
    for si, mid in enumerate(system_ids):
        if si not in used:
            gold_rows.append(None)
            sys_rows.append(mid)

    def lines(rows, clusters):
        single = len(clusters)
        out = [f"#begin document ({doc_id}); part 000"]
        for index, mid in enumerate(rows):
            if mid is None:
                out.append(f"{doc_id}\t{index}\tNone\t(-)")
                continue
            cid = next((k for k, c in enumerate(clusters) if mid in c), None)
            if cid is None:
                cid, single = single, single + 1
            out.append(f"{doc_id}\t{index}\tx\t({cid})")
        return "\n".join([*out, "#end document"]) + "\n"

    return lines(gold_rows, gold_clusters), lines(sys_rows, system_clusters)


def partition(draw, ids):
    labels = draw(st.lists(st.integers(0, 2), min_size=len(ids), max_size=len(ids)))
    return [[i for i, lab in zip(ids, labels, strict=True) if lab == k] for k in range(3)]


@st.composite
def corpora(draw):
    n_g, n_s = draw(st.integers(0, 5)), draw(st.integers(0, 5))
    g_spans = draw(st.lists(st.integers(0, 6), min_size=n_g, max_size=n_g))
    s_spans = draw(st.lists(st.integers(0, 6), min_size=n_s, max_size=n_s))
    g_types = draw(st.text("AB", min_size=n_g, max_size=n_g))
    s_types = draw(st.text("AB", min_size=n_s, max_size=n_s))
    wide = draw(st.lists(st.booleans(), min_size=n_s, max_size=n_s))  # [b, b+8) vs [b, b+5)
    gold = [(f"E{i}", f"{10 * b},{10 * b + 5}", t)
            for i, (b, t) in enumerate(zip(g_spans, g_types, strict=True))]
    system = [(f"S{i}", f"{10 * b},{10 * b + (8 if w else 5)}", t)
              for i, (b, t, w) in enumerate(zip(s_spans, s_types, wide, strict=True))]
    g_cl = [c for c in partition(draw, [m[0] for m in gold]) if len(c) > 1]
    s_cl = [c for c in partition(draw, [m[0] for m in system]) if len(c) > 1]
    return {"d1": (gold, g_cl)}, {"d1": (system, s_cl)}


@given(corpora())
def test_in_memory_conversion_equals_v18_conll_files(corpus):
    gold, system = corpus
    ev = run_coref(gold, system)
    c, d = ev.scores["kbp"].coref, ev.scores["kbp"].documents[0]
    al, w = d.pair_weights("mention_type")
    mapping = [None] * len(gold["d1"][0])
    for (gi, si), x in zip(al.tolist(), w.tolist(), strict=True):
        mapping[gi] = (si, x)
    key, response = v18_conll_text("d1", [m[0] for m in gold["d1"][0]], gold["d1"][1],
                                   [m[0] for m in system["d1"][0]], system["d1"][1], mapping)
    # v1.8 writes "(-)" on a row without mention; the reference ignores it, our reader wants "-"
    (k,), (r,) = (parse_conll(x.replace("\t(-)", "\t-")) for x in (key, response))
    assert (c.documents[0].key.clusters, c.documents[0].response.clusters) == (k.clusters,
                                                                               r.clusters)
    expected = coref.score_documents([(k, r)], nugget.COREF_METRICS)
    assert c.scores.overall == expected.overall
    for m, x in c.v18_scores().items():
        assert 0.0 <= x <= 100 * expected.overall[m].f1 + 1e-9


@given(st.lists(corpora(), min_size=2, max_size=3))
def test_printed_scores_do_not_depend_on_the_document_order(docs):
    # the reference adds documents in Perl's (random) hash order; we use an exact sum
    def corpus(order):
        return tuple({f"d{k}": docs[i][side]["d1"] for k, i in enumerate(order)}
                     for side in (0, 1))

    order = list(range(len(docs)))
    forward = run_coref(*corpus(order)).scores["kbp"].coref
    backward = run_coref(*corpus(order[::-1])).scores["kbp"].coref
    assert forward.v18_scores() == backward.v18_scores()


def test_partial_overlap_puts_the_two_mentions_on_separate_rows():
    # E2 [10,15) and S2 [10,14) are mapped (Dice 8/9 < 1): v1.8 splits them, S2 goes to a row
    # of its own after the gold rows. Key {0,1}, response {0,2}.
    gold = {"d1": (same_spans("E", "AA"), [["E1", "E2"]])}
    system = {"d1": ([("S1", "0,5", "A"), ("S2", "10,14", "A")], [["S1", "S2"]])}
    c = run_coref(gold, system).scores["kbp"].coref
    r = c.documents[0]
    assert (r.gold, r.system, r.aligned) == ((0, 1, None), (0, None, 1), 1)
    assert r.key.clusters == (((0, 0), (1, 1)),)
    assert r.response.clusters == (((0, 0), (2, 2)),)
    # MUC: no key link recovered, 0. B3: R = (1/2 + 0)/2, P = (1/2 + 0)/2. CEAFm: 1/2, 1/2.
    # CEAFe: phi4 = 2/4. BLANC: the key has coreference links only: R = P = 0.
    assert c.v18_scores() == {"bcub": 25.0, "ceafe": 50.0, "ceafm": 50.0, "muc": 0.0,
                              "blanc": 0.0}
    assert c.v18_average() == pytest.approx(75 / 4)
    # the files v1.8 writes (its -c PATH: PATH_gold.conll, PATH_sys.conll)
    assert nugget.format_v18_conll(c.documents) == (
        "#begin document (d1); part 000\nd1\t0\tx\t(0)\nd1\t1\tx\t(0)\nd1\t2\tNone\t(-)\n"
        "#end document\n",
        "#begin document (d1); part 000\nd1\t0\tx\t(0)\nd1\t1\tNone\t(-)\nd1\t2\tx\t(0)\n"
        "#end document\n")
    # v1.8's -ct 0.5 keeps the pair on one row: everything is right.
    c = run_coref(gold, system, coref_threshold=0.5).scores["kbp"].coref
    assert c.documents[0].system == (0, 1)
    assert set(c.v18_scores().values()) == {100.0}


def test_without_coreference_muc_is_zero_and_blanc_counts():
    # A perfect system on a gold without clusters: MUC has no link (0/0 -> 0), B3 and CEAF
    # 100, BLANC only non-coreference links (1 of 1): the average is (100 + 100 + 0 + 100) / 4.
    docs = {"d1": (same_spans("E", "AA"), [])}
    c = run_coref(docs, docs).scores["kbp"].coref
    assert c.v18_scores() == {"bcub": 100.0, "ceafe": 100.0, "ceafm": 100.0, "muc": 0.0,
                              "blanc": 100.0}
    assert c.v18_average() == 75.0


def test_type_mismatch_separates_mentions_unless_mapping_on_spans():
    # S2 has the right span but the wrong type: the mention_type mapping (v1.8's default)
    # leaves E2 and S2 on separate rows; v1.8's -m 0 (plain) puts them together.
    gold = {"d1": (same_spans("E", "AA"), [["E1", "E2"]])}
    system = {"d1": (same_spans("S", "AB"), [["S1", "S2"]])}
    typed = run_coref(gold, system).scores["kbp"].coref
    assert typed.documents[0].system == (0, None, 1)
    assert typed.v18_scores()["muc"] == 0.0
    spans = run_coref(gold, system, coref_combination="plain").scores["kbp"].coref
    assert spans.documents[0].system == (0, 1)
    assert set(spans.v18_scores().values()) == {100.0}
    with pytest.raises(ValueError, match="unknown attribute combination"):
        run_coref(gold, system, coref_combination="nope")
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        run_coref(gold, system, coref_threshold=0.0)


def test_missing_system_document_and_empty_gold_document():
    # d1 is missing from the system (all its gold mentions unmatched); d2 has no mention at
    # all. Corpus: key {E1,E2} and nothing in the response.
    gold = {"d1": (same_spans("E", "AA"), [["E1", "E2"]]), "d2": ([], [])}
    system = {"d2": ([], [])}
    c = run_coref(gold, system).scores["kbp"].coref
    assert [r.doc_id for r in c.documents] == ["d1", "d2"]
    assert c.documents[0].system == (None, None)
    assert c.documents[1].key.clusters == ()
    assert set(c.v18_scores().values()) == {0.0}
    assert c.scores.overall["muc"].recall_den == 1


def test_corpus_edges_as_v18():
    # No document at all: v1.8 writes no CoNLL file, the scorer reads nothing, no section. A
    # document without mentions: the files hold an empty document, every score 0.
    ev = run_coref({}, {})
    assert COREF_TITLE not in format_v18(ev.scores["kbp"])
    c = run_coref({"d1": ([], [])}, {"d1": ([], [])}).scores["kbp"].coref
    assert set(c.v18_scores().values()) == {0.0} and c.v18_average() == 0.0


def test_singleton_cluster_and_white_list():
    # Without a white list a one-mention @Coreference cluster is kept as a cluster (it changes
    # nothing); with one, clusters shrink to the kept mentions and go when fewer than 2 remain.
    gold = {"d1": (same_spans("E", "AAB"), [["E1", "E3"], ["E2"]])}
    c = run_coref(gold, gold).scores["kbp"].coref
    assert c.documents[0].key.clusters == (((0, 0), (2, 2)), ((1, 1),))
    assert set(c.v18_scores().values()) == {100.0}
    c = run_coref(gold, gold, type_whitelist=["A"]).scores["kbp"].coref
    assert c.documents[0].key.clusters == (((0, 0),), ((1, 1),))
    assert c.v18_scores()["muc"] == 0.0


def test_empty_white_list_filters_nothing_as_v18(tmp_path):
    # v1.8 tests its white-list set for truth: a file without lines filters nothing (we warn);
    # a file of blank lines holds "" and keeps no mention.
    empty, blank = tmp_path / "empty.txt", tmp_path / "blank.txt"
    empty.write_text("")
    blank.write_text("\n\n")
    g, s = tmp_path / "g.tbf", tmp_path / "s.tbf"
    g.write_text(tbf(MERGE[0], "gold"))
    s.write_text(tbf(MERGE[1], "sys"))
    ev = nugget.evaluate_files(str(g), str(s), coref=True, type_whitelist=str(empty))
    assert ev.scores["kbp"].coref.v18_scores()["muc"] == 80.0
    assert [w.message for w in ev.warnings] == [
        "the type white list is empty: every type is scored (as v1.8 does)"]
    ev = nugget.evaluate_files(str(g), str(s), coref=True, type_whitelist=str(blank))
    assert ev.scores["kbp"].documents[0].n_gold == 0
    assert set(ev.scores["kbp"].coref.v18_scores().values()) == {0.0}


def test_a_mention_in_two_clusters_is_an_error_naming_the_line():
    gold = {"d1": (same_spans("E", "AAA"), [["E1", "E2"], ["E2", "E3"]])}
    with pytest.raises(InputError, match="E2 of document d1 is in coreference clusters R1"
                                         r" \(line 5\) and R2") as e:
        run_coref(gold, gold)
    assert (e.value.path, e.value.line) == ("gold.tbf", 6)
    nugget.evaluate(parse_tbf(tbf(gold, "g"), mode="char"), parse_tbf(tbf(gold, "s"),
                                                                      mode="char"))  # no -c


def test_greedy_ceaf_alignment_falls_short_of_the_exact_one():
    # Key {1..5} {6,7}; response {1,2,3,6,7} {4,5}. phi3: K1-R1 3, K1-R2 2, K2-R1 2. Greedy
    # takes K1-R1 (3) and nothing else; the optimum K1-R2 + K2-R1 = 4 (what Munkres finds).
    gold = {"d1": (same_spans("E", "AAAAAAA"), [["E1", "E2", "E3", "E4", "E5"], ["E6", "E7"]])}
    system = {"d1": (same_spans("S", "AAAAAAA"), [["S1", "S2", "S3", "S6", "S7"], ["S4", "S5"]])}
    c = run_coref(gold, system).scores["kbp"].coref
    assert c.scores.overall["ceafm"].recall_num == 4.0
    assert c.v18_scores()["ceafm"] == 57.14  # 4/7
    assert c.greedy.overall["ceafm"].recall_num == 3.0
    gap = c.greedy.ceaf_gap("ceafm")
    assert (gap["shortfall"], gap["documents_with_gap"]) == (1.0, 1)
    assert c.scores.ceaf_result("ceafm").status.value == "optimal"


def test_every_mapping_gets_its_coreference_and_the_report_shows_it():
    ev = run_coref(*MERGE, mappings=(*nugget.MAPPINGS, *nugget.SPAN_FIRST))
    for sc in ev.scores.values():
        assert sc.coref.v18_scores()["muc"] == 80.0
        text = format_v18(sc)
        assert text.endswith(format_v18_coref(sc.coref))
        assert parse_v18_coref(text) == {"scores": sc.coref.v18_scores(),
                                         "average": round(sc.coref.v18_average(), 2)}
    plain = evaluate(parse_tbf(tbf(MERGE[0], "g"), mode="char"),
                     parse_tbf(tbf(MERGE[1], "s"), mode="char")).scores["kbp"]
    assert plain.coref is None and parse_v18_coref(format_v18(plain)) is None


# --------------------------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------------------------
@pytest.fixture
def merge_files(tmp_path):
    g, s = tmp_path / "gold.tbf", tmp_path / "sys.tbf"
    g.write_text(tbf(MERGE[0], "gold"))
    s.write_text(tbf(MERGE[1], "sys"))
    return str(g), str(s)


def run(capsys, *argv):
    code = cli.main(["nugget", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_coref_text(capsys, merge_files):
    g, s = merge_files
    code, out, err = run(capsys, "-g", g, "-s", s, "-c", "--compat")
    assert (code, err) == (0, "")
    ev = nugget.evaluate_files(g, s, compat=True, coref=True)
    assert out == format_v18(ev.scores["kbp"])
    assert out.endswith("Overall Average CoNLL score\t54.02\n\n"
                        "* Score not included for final CoNLL score.\n")
    code, out, _ = run(capsys, "-g", g, "-s", s, "-c")
    assert code == 0 and "=======Coreference details (exactalign)=========" in out
    assert "CoNLL-2012 average (muc, bcub, ceafe)\t63.7037\n" in out
    code, out, _ = run(capsys, "-g", g, "-s", s)
    assert code == 0 and "Coreference" not in out


def test_cli_coref_by_mapping(capsys, merge_files):
    g, s = merge_files
    code, out, _ = run(capsys, "-g", g, "-s", s, "-c", "--mapping", "all")
    assert code == 0 and out.count(COREF_TITLE) == len(nugget.MAPPINGS) + len(nugget.SPAN_FIRST)
    table = out.split("=======Coreference by mapping=========\n", 1)[1].splitlines()
    assert table[0].split() == ["mapping", "aligned", "v1.8", "average", "CoNLL-2012", "muc",
                                "bcub", "ceafm", "ceafe", "blanc"]
    assert table[1].split() == ["kbp", "4", "54.02", "63.70", "80.00", "66.67", "50.00",
                                "44.44", "25.00"]


def test_cli_coref_json(capsys, merge_files):
    g, s = merge_files
    code, out, err = run(capsys, "-g", g, "-s", s, "-c", "--json", "--mapping", "all")
    assert (code, err) == (0, "")
    d = json.loads(out)
    c = d["mappings"]["kbp"]["coreference"]
    assert c["combination"] == "mention_type" and c["threshold"] == 1.0
    assert list(c["v18"]["scores"]) == list(nugget.V18_COREF_ORDER)
    assert c["v18"]["scores"]["bcub"] == 66.66
    assert c["metrics"]["muc"]["precision"] == pytest.approx(2 / 3)
    assert c["metrics"]["blanc"]["coref"]["counts"]["precision_den"] == 6
    assert c["conll_average"] == pytest.approx((0.8 + 2 / 3 + 4 / 9) / 3)
    assert c["mentions"] == {"rows": 4, "gold": 4, "system": 4, "aligned": 4}
    assert c["ceaf"]["ceafe"]["exact"]["status"] == "optimal"
    assert c["ceaf"]["ceafe"]["gap"]["shortfall"] == 0.0
    assert c["documents"][0]["id"] == "d1"
    assert c["documents"][0]["metrics"]["bcub"]["f1"] == pytest.approx(2 / 3)
    assert d["mappings"]["exact"]["coreference"]["v18"]["average"] == pytest.approx(54.025)
    code, out, _ = run(capsys, "-g", g, "-s", s, "--json")
    assert json.loads(out)["mappings"]["kbp"]["coreference"] is None


def test_cli_writes_v18_conll_files(capsys, merge_files, tmp_path):
    # entity numbers: the index of the mention's @Coreference cluster in its document
    g, s = merge_files
    prefix = str(tmp_path / "out")
    code, _, err = run(capsys, "-g", g, "-s", s, "-c", "--coref-conll", prefix)
    assert (code, err) == (0, "")
    rows = "".join(f"d1\t{i}\tx\t({k})\n" for i, k in enumerate((0, 0, 1, 1)))
    assert (tmp_path / "out_gold.conll").read_text() == (
        f"#begin document (d1); part 000\n{rows}#end document\n")
    assert (tmp_path / "out_sys.conll").read_text() == (
        f"#begin document (d1); part 000\n{rows.replace('(1)', '(0)')}#end document\n")
    code, _, err = run(capsys, "-g", g, "-s", s, "-c", "--coref-conll", prefix, "--mapping",
                       "all")
    assert code == 2 and "one mapping" in err


def test_cli_coref_option_errors(capsys, merge_files):
    g, s = merge_files
    for argv, msg in ((["--coref-mapping", "plain"], "apply with -c/--coref only"),
                      (["-c", "--coref-mapping", "type"], "is not one of plain"),
                      (["-c", "--coref-threshold", "0"], "must be in (0, 1]"),
                      (["-c", "--scheme", "muc"], "apply to --scheme dice only")):
        code, out, err = run(capsys, "-g", g, "-s", s, *argv)
        assert code == 2 and out == "" and msg in err, argv
