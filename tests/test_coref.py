"""Coreference metrics: hand-derived fractions on tiny documents (coval style), the reference
scorer's repeated-mention rule, micro aggregation (BLANC's two link kinds summed first), the
vectorised metrics against plain transliterations of the reference loops, CEAF exact == ILP ==
brute force and greedy <= exact, and the ``exactalign coref`` command."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, target
from hypothesis import strategies as st

from exactalign import InputError, cli
from exactalign.core.result import Status
from exactalign.io.conll import parse_conll
from exactalign.metrics import coref
from exactalign.metrics.aggregation import PRF
from exactalign.problems import bipartite


def doc(name: str, cols: list[str]) -> str:
    """A CoNLL-2012 document whose coreference column is ``cols``, one token per entry."""
    lines = [f"{name}\t0\t{t}\tw{t}\t{c}" for t, c in enumerate(cols)]
    return f"#begin document ({name}); part 000\n" + "\n".join(lines) + "\n#end document\n"


def pair(key_cols, resp_cols, name="d"):
    (k,) = parse_conll(doc(name, key_cols), path="key")
    (r,) = parse_conll(doc(name, resp_cols), path="resp")
    return k, r


def rpf(score):
    return score.recall, score.precision, score.f1


def F(r, p):
    return 2 * p * r / (p + r) if p + r else 0.0


# --------------------------------------------------------------------------------------------
# the hand-derived example
# --------------------------------------------------------------------------------------------
# Tokens a=0 b=1 c=2..3 d=4 e=5 f=6 g=7 h=8.
# key:      K1 = {a, b, c}  K2 = {d, e}     K3 = {g}
# response: R1 = {a, b}     R2 = {c, d, f}  R3 = {g}  R4 = {h}   (f, h twinless)
KEY = ["(1)", "(1)", "(1", "1)", "(2)", "(2)", "-", "(3)", "-", "-"]
RESP = ["(7)", "(7)", "(5", "5)", "(5)", "-", "(5)", "(9)", "(4)", "-"]

EXPECTED = {
    # 5 of the 6 key mentions found, 7 response mentions
    "mentions": (5 / 6, 5 / 7),
    # links: key (3-1)+(2-1)+0 = 3, response (2-1)+(3-1) = 3; correct: {a,b} = 1
    "muc": (1 / 3, 1 / 3),
    # recall: a,b 2/3 each, c 1/3, d 1/2, g 1; precision: a,b 2/2 each, c,d 1/3 each, f 0,
    # g 1, h 0
    "bcub": ((2 / 3 + 2 / 3 + 1 / 3 + 1 / 2 + 1) / 6, (1 + 1 + 1 / 3 + 1 / 3 + 1) / 7),
    # φ3: K1-R1 2, K2-R2 1, K3-R3 1
    "ceafm": (4 / 6, 4 / 7),
    # φ4: K1-R1 2*2/(3+2), K2-R2 2*1/(2+3), K3-R3 2*1/(1+1)
    "ceafe": ((4 / 5 + 2 / 5 + 1) / 3, (4 / 5 + 2 / 5 + 1) / 4),
    # recall: K1 3 * 1/3 (ab of ab,ac,bc), K2 0, K3 1 * 1 (g a singleton in R3 too);
    # precision: R1 2 * 1/1, R2 0 of 3 links, R3 1, R4 0
    "lea": ((1 + 0 + 1) / 6, (2 + 0 + 1 + 0) / 7),
}
# BLANC. Key coref: ab ac bc de (4); key non-coref: C(6,2) - 4 = 11. Response coref:
# ab cd cf df (4); non-coref: C(7,2) - 4 = 17. Both coref: ab. Both non-coref, among the common
# mentions a b c d g: ad ag bd bg cg dg (6).
BLANC_COREF = (1 / 4, 1 / 4)
BLANC_NONCOREF = (6 / 11, 6 / 17)
BLANC = ((1 / 4 + 6 / 11) / 2, (1 / 4 + 6 / 17) / 2, (1 / 4 + F(6 / 11, 6 / 17)) / 2)


@pytest.fixture(scope="module")
def example():
    return coref.score_document(*pair(KEY, RESP))


@pytest.mark.parametrize("metric", list(EXPECTED))
def test_hand_derived_example(example, metric):
    score = example.mentions if metric == "mentions" else example.scores[metric]
    r, p = EXPECTED[metric]
    assert rpf(score) == pytest.approx((r, p, F(r, p)), abs=1e-12)


def test_hand_derived_counts(example):
    s = example.scores
    assert s["muc"] == PRF(1, 3, 1, 3)
    assert (s["ceafm"].recall_den, s["ceafm"].precision_den) == (6, 7)
    assert (s["ceafe"].recall_den, s["ceafe"].precision_den) == (3, 4)
    assert s["bcub"].recall_num == pytest.approx(19 / 6)
    assert s["bcub"].precision_num == pytest.approx(11 / 3)


def test_hand_derived_blanc(example):
    b = example.scores["blanc"]
    assert (b.coref.recall_num, b.coref.recall_den, b.coref.precision_den) == (1, 4, 4)
    assert (b.noncoref.recall_num, b.noncoref.recall_den, b.noncoref.precision_den) == (6, 11, 17)
    assert rpf(b.coref)[:2] == pytest.approx(BLANC_COREF)
    assert rpf(b.noncoref)[:2] == pytest.approx(BLANC_NONCOREF)
    assert rpf(b) == pytest.approx(BLANC, abs=1e-12)


def test_hand_derived_conll_average(example):
    expected = (F(*EXPECTED["muc"]) + F(*EXPECTED["bcub"]) + F(*EXPECTED["ceafe"])) / 3
    assert example.conll == pytest.approx(expected)
    assert coref.conll_average({"muc": PRF()}) is None


def test_ceaf_solves_are_proven_optimal_and_agree(example):
    for m in ("ceafm", "ceafe"):
        res = example.ceaf[m]
        assert res.status is Status.OPTIMAL and res.proven_optimal
        assert res.objective == pytest.approx(example.scores[m].recall_num)
        assert res.bound == pytest.approx(res.objective) and res.gap == 0.0


# --------------------------------------------------------------------------------------------
# CEAF: a document where the greedy alignment falls short
# --------------------------------------------------------------------------------------------
# key K1 = tokens 0-4, K2 = 5-6; response R1 = {0,1,2,5,6}, R2 = {3,4}.
# φ3: K1-R1 3, K1-R2 2, K2-R1 2 (K2-R2 0). Greedy takes K1-R1 (3) and nothing else;
# the optimum is K1-R2 + K2-R1 = 4. φ4: K1-R1 2*3/10, K1-R2 2*2/7, K2-R1 2*2/7.
GAP_KEY = ["(1)"] * 5 + ["(2)"] * 2
GAP_RESP = ["(1)"] * 3 + ["(2)"] * 2 + ["(1)"] * 2


@pytest.mark.parametrize("metric,exact,greedy,dens", [
    ("ceafm", 2 + 2, 3, (7, 7)),
    ("ceafe", 4 / 7 + 4 / 7, 3 / 5, (2, 2)),
])
def test_greedy_ceaf_falls_short(metric, exact, greedy, dens):
    k, r = pair(GAP_KEY, GAP_RESP)
    g = coref.score_document(k, r, [metric], ceaf_method="greedy", compare_exact=True)
    e = coref.score_document(k, r, [metric], ceaf_method="exact")
    i = coref.score_document(k, r, [metric], ceaf_method="ilp")
    assert rpf(e.scores[metric])[:2] == pytest.approx((exact / dens[0], exact / dens[1]))
    assert rpf(i.scores[metric]) == pytest.approx(rpf(e.scores[metric]))
    assert rpf(g.scores[metric])[:2] == pytest.approx((greedy / dens[0], greedy / dens[1]))
    assert g.ceaf[metric].status is Status.FEASIBLE and g.ceaf[metric].bound is None
    assert g.ceaf_exact[metric].objective == pytest.approx(exact)
    assert i.ceaf[metric].status is Status.OPTIMAL and i.ceaf[metric].backend == "highs"
    assert e.ceaf[metric].alignment.tolist() == [[0, 1], [1, 0]]
    assert g.ceaf[metric].alignment.tolist() == [[0, 0]]
    # the witness: drop K1-R1, add K1-R2 and K2-R1 -- chains by their mentions' tokens
    K1, K2 = [[t, t] for t in range(5)], [[5, 5], [6, 6]]
    R1, R2 = [[t, t] for t in (0, 1, 2, 5, 6)], [[3, 3], [4, 4]]
    w = g.ceaf_witness[metric]
    assert w["remove"] == [{"key": K1, "response": R1}]
    assert w["add"] == [{"key": K1, "response": R2}, {"key": K2, "response": R1}]
    assert w["changes"] == 3 and w["gain"] == pytest.approx(exact - greedy)
    assert e.ceaf_witness == i.ceaf_witness == {}
    corpus = coref.score_documents([(k, r), (k, k)], [metric], ceaf_method="greedy",
                                   compare_exact=True)
    gap = corpus.ceaf_gap(metric)
    assert gap["documents"] == 2 and gap["documents_with_gap"] == 1
    assert gap["largest_gap"] == pytest.approx(exact - greedy)
    assert gap["largest_gap_document"] == "(d); part 000"
    assert gap["shortfall"] == pytest.approx(exact - greedy)
    assert [bool(d.ceaf_witness) for d in corpus.documents] == [True, False]
    total = corpus.ceaf_result(metric)
    assert total.status is Status.FEASIBLE and total.bound is None
    # the key against itself: every mention (CEAFm, 7) or every entity (CEAFe, 2) aligned
    assert total.objective == pytest.approx(greedy + {"ceafm": 7, "ceafe": 2}[metric])
    assert corpus.ceaf_result(metric, exact=True).status is Status.OPTIMAL
    assert coref.score_documents([(k, r)], [metric]).ceaf_gap(metric) is None


# --------------------------------------------------------------------------------------------
# BLANC's special cases and the corpus aggregation
# --------------------------------------------------------------------------------------------
def test_blanc_key_without_coreference_links():
    # key {a} {b} {c}: non-coref ab ac bc; response {a, b} {c}: coref ab, non-coref ac bc
    b = coref.score_document(*pair(["(1)", "(2)", "(3)"], ["(1)", "(1)", "(2)"]),
                             ["blanc"]).scores["blanc"]
    assert b.coref == PRF(0, 0, 0, 1)
    assert b.noncoref == PRF(2, 3, 2, 2)
    assert rpf(b) == pytest.approx((2 / 3, 2 / 2, F(2 / 3, 1)))


def test_blanc_key_without_non_coreference_links():
    # key {a, b, c}: coref ab ac bc; response {a, b} {c}
    b = coref.score_document(*pair(["(1)", "(1)", "(1)"], ["(1)", "(1)", "(2)"]),
                             ["blanc"]).scores["blanc"]
    assert b.coref == PRF(1, 3, 1, 1)
    assert b.noncoref == PRF(0, 0, 0, 2)
    assert rpf(b) == pytest.approx((1 / 3, 1 / 1, F(1 / 3, 1)))


def test_blanc_empty_key_scores_zero():
    b = coref.score_document(*pair(["-", "-"], ["(1)", "(1)"]), ["blanc"]).scores["blanc"]
    assert b.coref == PRF(0, 0, 0, 1) and rpf(b) == (0.0, 0.0, 0.0)


def test_corpus_sums_counts_then_combines():
    d1 = pair(["(1)", "(2)", "(3)"], ["(1)", "(1)", "(2)"], name="one")
    d2 = pair(["(1)", "(1)", "(1)"], ["(1)", "(1)", "(2)"], name="two")
    s = coref.score_documents([d1, d2])
    # BLANC: coref (0+1)/(0+3), (0+1)/(1+1); non-coref (2+0)/(3+0), (2+0)/(2+2): both kinds
    # are now in the key, so the corpus BLANC averages them -- not the documents' BLANCs.
    b = s.overall["blanc"]
    assert b.coref == PRF(1, 3, 1, 2) and b.noncoref == PRF(2, 3, 2, 4)
    assert rpf(b) == pytest.approx(((1 / 3 + 2 / 3) / 2, (1 / 2 + 2 / 4) / 2,
                                    (F(1 / 3, 1 / 2) + F(2 / 3, 2 / 4)) / 2))
    assert b.f1 != pytest.approx((s.documents[0].scores["blanc"].f1
                                  + s.documents[1].scores["blanc"].f1) / 2)
    # B³ (micro): recall (1+1+1)/3 and (2/3+2/3+1/3)/3 summed: (3 + 5/3) / 6.
    assert s.overall["bcub"].recall == pytest.approx((3 + 5 / 3) / 6)
    for m in coref.METRICS:
        if m != "blanc":
            total = s.documents[0].scores[m] + s.documents[1].scores[m]
            assert s.overall[m] == total
    assert s.mentions == PRF(6, 6, 6, 6)
    assert s.conll == pytest.approx((s.overall["muc"].f1 + s.overall["bcub"].f1
                                     + s.overall["ceafe"].f1) / 3)


def test_empty_documents():
    s = coref.score_document(*pair(["-"], ["-"]))
    for m in coref.METRICS:
        assert rpf(s.scores[m]) == (0.0, 0.0, 0.0), m
    assert s.ceaf["ceafe"].status is Status.OPTIMAL and s.ceaf["ceafe"].objective == 0.0
    # a response without mentions: recall 0, precision 0/0 = 0
    s = coref.score_document(*pair(["(1)", "(1)"], ["-", "-"]))
    assert s.scores["muc"] == PRF(0, 1, 0, 0) and s.scores["ceafm"] == PRF(0, 2, 0, 0)


def test_unknown_metric_and_method():
    k, r = pair(["(1)"], ["(1)"])
    with pytest.raises(ValueError, match="unknown coreference metric 'bogus'"):
        coref.score_document(k, r, ["bogus"])
    with pytest.raises(ValueError, match="unknown CEAF method 'fast'"):
        coref.score_document(k, r, ceaf_method="fast")
    with pytest.raises(ValueError, match="unknown CEAF similarity"):
        coref.ceaf_instance(coref.identify(k, r), "token")


# --------------------------------------------------------------------------------------------
# the reference scorer's identification of mentions and its repeated-mention rule
# --------------------------------------------------------------------------------------------
def test_repeated_key_mention_in_two_response_clusters_stays_in_the_first():
    # key {0, 1} {2}. Response entity 8 appears first (token 0), entity 3 second; token 2 is
    # in both: kept in cluster 0 (entity 8, the lower cluster index, though 3 < 8).
    k, r = pair(["(1)", "(1)", "(2)"], ["(8)", "(3)", "(8)|(3)"])
    assert r.cluster_ids == ("8", "3")
    d = coref.identify(k, r)
    assert d.repeated == (((2, 2), 1),)
    assert [d.spans[i] for i in d.response_chains[0]] == [(0, 0), (2, 2)]
    assert [d.spans[i] for i in d.response_chains[1]] == [(1, 1)]
    assert d.mentions == PRF(3, 3, 3, 3)


def test_repeated_key_mention_within_a_cluster_and_emptied_cluster():
    # "(1(1" ... "1)1)": the same key mention twice in cluster 1 -> kept once; cluster 2 holds
    # only a repeated key mention -> dropped.
    k, r = pair(["(1", "-", "1)", "(1)"], ["(1(1", "-", "1)1)", "(1)|(2)"])
    d = coref.identify(k, r)
    assert d.repeated == (((0, 2), 0), ((3, 3), 1))
    assert len(d.response_chains) == 1 and d.response_chains[0].tolist() == [0, 1]


def test_repeated_response_mention_not_in_the_key_is_kept_twice():
    k, r = pair(["(1)", "(1)", "-", "-"], ["(1)", "(1)", "(1)|(2)", "(2)"])
    d = coref.identify(k, r)
    assert d.repeated == ()
    assert [c.tolist() for c in d.response_chains] == [[0, 1, 2], [2, 3]]
    assert d.mentions == PRF(2, 2, 2, 4)   # distinct response mentions: 4
    # MUC counts the repetition as a response link: (3-1) + (2-1)
    assert coref.muc(d) == PRF(1, 1, 1, 3)


def test_repeated_key_mention_is_kept_in_both_key_clusters():
    # key {0, 1} and {0, 2} (token 0 twice); response {0, 1, 2}. Mention 0's key cluster is
    # the last one, {0, 2}: MUC correct = (|{0,2}| - 1) + (|{1}| - 1) = 1 of 2 key links.
    k, r = pair(["(1)|(2)", "(1)", "(2)"], ["(1)", "(1)", "(1)"])
    d = coref.identify(k, r)
    assert [c.tolist() for c in d.key_chains] == [[0, 1], [0, 2]]
    assert d.key_of.tolist() == [1, 0, 1]
    assert coref.muc(d) == PRF(1, 2, 1, 2)
    assert d.mentions == PRF(3, 3, 3, 3)


def test_more_than_ten_repeated_mentions_are_refused():
    key = ["(1)"] * 2
    k, r = pair(key, ["(1)|(2)|(3)|(4)|(5)|(6)", "(1)|(2)|(3)|(4)|(5)|(6)"])
    assert len(coref.identify(k, r).repeated) == 10
    coref.score_documents([(k, r)])                        # 10: scored, as v8.01 does
    k2, r2 = pair(key, ["(1)|(2)", "-"], name="e")
    with pytest.raises(InputError) as info:
        coref.score_documents([(k, r), (k2, r2)])
    e = info.value
    assert (e.path, e.line) == ("resp", 1)
    assert "repeats 11 key mentions" in e.message and "(more than 10)" in e.message
    assert "refuses to score" in e.message
    s = coref.score_documents([(k, r), (k2, r2)], max_repeated=None)
    assert [d.repeated for d in s.documents] == [10, 1]


# --------------------------------------------------------------------------------------------
# the vectorised metrics against plain transliterations of the reference loops
# --------------------------------------------------------------------------------------------
def _last(chains):
    return {m: i for i, c in enumerate(chains) for m in c}


def naive_muc(K, R):
    kidx = _last(K)
    correct = 0
    for c in R:
        for i in range(len(c)):
            for j in range(i + 1, len(c)):
                if c[i] in kidx and c[j] in kidx and kidx[c[i]] == kidx[c[j]]:
                    correct += 1
                    break
    return PRF(correct, sum(len(c) - 1 for c in K), correct, sum(len(c) - 1 for c in R))


def naive_bcub(K, R):
    kidx = _last(K)
    acc_r = acc_p = 0.0
    for rc in R:
        for m in rc:
            kc = K[kidx[m]] if m in kidx else []
            ci = sum(1 for x in rc if x in kc)
            acc_p += ci / len(rc)
            acc_r += ci / len(kc) if kc else 0.0
    return PRF(acc_r, sum(map(len, K)), acc_p, sum(map(len, R)))


def naive_links(C):
    coref_links, non = set(), set()
    for c in C:
        for a, b in itertools.combinations(c, 2):
            coref_links.add((min(a, b), max(a, b)))
    for c1, c2 in itertools.combinations(C, 2):
        for a, b in itertools.product(c1, c2):
            non.add((min(a, b), max(a, b)))
    return coref_links, non


def naive_blanc(K, R):
    kc, kn = naive_links(K)
    rc, rn = naive_links(R)
    return coref.Blanc(PRF(len(kc & rc), len(kc), len(kc & rc), len(rc)),
                       PRF(len(kn & rn), len(kn), len(kn & rn), len(rn)))


def naive_lea_side(inp, out):
    to = _last(out)
    num = den = 0.0
    for c in inp:
        if len(c) == 1:
            links = 1
            common = int(c[0] in to and len(out[to[c[0]]]) == 1)
        else:
            links = len(c) * (len(c) - 1) / 2
            common = sum(1 for i, m in enumerate(c) if m in to for m2 in c[i + 1:]
                         if m2 in to and to[m] == to[m2])
        num += len(c) * common / links
        den += len(c)
    return num, den


def naive_lea(K, R):
    rn, rd = naive_lea_side(K, R)
    pn, pd = naive_lea_side(R, K)
    return PRF(rn, rd, pn, pd)


def naive_ceaf(K, R, phi):
    def sim(a, b):
        inter = sum(1 for x in a if x in b)
        return inter if phi == "mention" else 2 * inter / (len(a) + len(b))

    n = max(len(K), len(R))
    return max((sum(sim(K[i], R[j]) for i, j in enumerate(p) if j < len(R))
                for p in itertools.permutations(range(n), len(K))), default=0.0)


def identified(K, R, n_ids):
    return coref.Identified("rnd", tuple((i, i) for i in range(n_ids)), n_ids,
                            tuple(np.array(c, dtype=np.int64) for c in K),
                            tuple(np.array(c, dtype=np.int64) for c in R), PRF())


def random_chains(rng, n_ids, repeats):
    return [rng.choice(n_ids, size=int(rng.integers(1, 5)), replace=repeats).tolist()
            for _ in range(int(rng.integers(0, 5)))]


def random_partition(rng, n_ids):
    """Disjoint chains over a random subset of the ids."""
    ids = rng.permutation(n_ids)[: int(rng.integers(0, n_ids + 1))]
    labels = rng.integers(0, 4, size=len(ids))
    return [ids[labels == k].tolist() for k in range(4) if (labels == k).any()]


def random_key_response(rng, n_ids, repeats):
    """``(K, R)``: chains that may repeat ids (``repeats``), else two random partitions."""
    if repeats:
        return random_chains(rng, n_ids, True), random_chains(rng, n_ids, True)
    return random_partition(rng, n_ids), random_partition(rng, n_ids)


def assert_prf(actual, expected):
    got = (actual.recall_num, actual.recall_den, actual.precision_num, actual.precision_den)
    want = (expected.recall_num, expected.recall_den, expected.precision_num,
            expected.precision_den)
    assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("repeats", [False, True], ids=["disjoint", "with-repeats"])
def test_vectorised_metrics_match_the_reference_loops(repeats):
    rng = np.random.default_rng(7 + repeats)
    for _ in range(150):
        n_ids = int(rng.integers(1, 9))
        K, R = random_key_response(rng, n_ids, repeats)
        d = identified(K, R, n_ids)
        assert_prf(coref.muc(d), naive_muc(K, R))
        assert_prf(coref.b_cubed(d), naive_bcub(K, R))
        assert_prf(coref.lea(d), naive_lea(K, R))
        b, nb = coref.blanc(d), naive_blanc(K, R)
        assert_prf(b.coref, nb.coref)
        assert_prf(b.noncoref, nb.noncoref)
        for m, phi in coref.CEAF_PHI.items():
            assert coref.ceaf(d, phi).prf.recall_num == pytest.approx(naive_ceaf(K, R, phi)), m


# --------------------------------------------------------------------------------------------
# CEAF: exact == ILP == brute force; greedy <= exact
# --------------------------------------------------------------------------------------------
def test_ceaf_exact_ilp_and_brute_force_agree():
    rng = np.random.default_rng(11)
    for t in range(40):
        n_ids = int(rng.integers(2, 10))
        K, R = random_key_response(rng, n_ids, t % 2)
        d = identified(K, R, n_ids)
        for phi in ("mention", "entity"):
            inst = coref.ceaf_instance(d, phi)
            exact = bipartite.solve(inst, "exact")
            ilp = coref.ceaf(d, phi, "ilp")
            brute = bipartite.solve(inst, "brute")
            greedy = coref.ceaf(d, phi, "greedy")
            assert exact.proven_optimal and ilp.result.proven_optimal
            assert ilp.result.objective == pytest.approx(exact.objective, abs=1e-9)
            assert brute.objective == pytest.approx(exact.objective, abs=1e-9)
            assert naive_ceaf(K, R, phi) == pytest.approx(exact.objective, abs=1e-9)
            assert greedy.result.objective <= exact.objective + 1e-9
            assert greedy.result.status is Status.FEASIBLE


def test_ceaf_instance_is_already_canonical():
    """ceaf_instance skips the constructor's checks (BipartiteInstance._canonical): on random
    chains, repeated and missing mentions included, it equals the checked instance."""
    rng = np.random.default_rng(5)
    for t in range(60):
        n_ids = int(rng.integers(4, 14))
        K, R = random_chains(rng, n_ids, bool(t % 2)), random_chains(rng, n_ids, bool(t % 3))
        d = identified(K, R, n_ids)
        for phi in ("mention", "entity"):
            got = coref.ceaf_instance(d, phi)
            checked = bipartite.BipartiteInstance(got.n_ref, got.n_pred, got.rows, got.cols,
                                                  got.weights)
            assert (got.n_ref, got.n_pred) == (len(d.key_chains), len(d.response_chains))
            for name in ("rows", "cols", "weights"):
                np.testing.assert_array_equal(getattr(got, name), getattr(checked, name))
                assert not getattr(got, name).flags.writeable


chains = st.lists(st.lists(st.integers(0, 7), min_size=1, max_size=5, unique=True),
                  max_size=5)


@given(K=chains, R=chains)
def test_greedy_ceaf_never_beats_exact(K, R):
    d = identified(K, R, 8)
    for phi in ("mention", "entity"):
        exact = coref.ceaf(d, phi, "exact").result.objective
        greedy = coref.ceaf(d, phi, "greedy").result.objective
        target(exact - greedy, label=f"greedy shortfall ({phi})")
        assert greedy <= exact + 1e-9


# --------------------------------------------------------------------------------------------
# exactalign coref
# --------------------------------------------------------------------------------------------
@pytest.fixture
def files(tmp_path):
    key = tmp_path / "key.conll"
    resp = tmp_path / "resp.conll"
    key.write_text(doc("ex", KEY) + doc("gap", GAP_KEY))
    resp.write_text(doc("gap", GAP_RESP) + doc("ex", RESP))
    return str(key), str(resp)


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_table(capsys, files):
    code, out, err = run(capsys, "coref", *files)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"{files[0]} vs {files[1]}: 2 document(s), 13 key and 14 response mentions"
    rows = {ln.split()[0]: ln.split() for ln in lines[2:12]}
    assert set(rows) >= {"mentions", "MUC", "B3", "CEAFm", "CEAFe", "BLANC", "LEA"}
    # MUC: the example 1 of 3 links; the gap document: key links 4 + 1, response links 4 + 1,
    # correct (3-1) + (2-1) + (2-1) = 4. Together 5 of 8 both ways.
    assert rows["MUC"][1:] == ["62.50%", "(5", "/", "8)", "62.50%", "(5", "/", "8)", "62.50%"]
    # mentions: 6 + 7 key, 7 + 7 response, 5 + 7 found; precision first, then recall
    assert rows["mentions"][1:9] == [f"{100 * 12 / 14:.2f}%", "(12", "/", "14)",
                                     f"{100 * 12 / 13:.2f}%", "(12", "/", "13)"]
    assert lines[1].split() == ["metric", "precision", "recall", "F1"]
    assert any(ln.startswith("CoNLL average (MUC, B3, CEAFe F1): ") for ln in lines)
    ceaf = [ln.split() for ln in lines if ln.startswith(("CEAFm ", "CEAFe "))]
    assert [r[1:3] for r in ceaf[-2:]] == [["exact", "optimal"], ["exact", "optimal"]]


def test_cli_greedy_reports_the_gap(capsys, files):
    code, out, _ = run(capsys, "coref", *files, "--metric", "ceafm", "--ceaf-method", "greedy")
    assert code == 0
    row = next(ln for ln in out.splitlines() if ln.startswith("CEAFm ") and "greedy" in ln)
    # exact: example 4 + gap document 4 = 8; greedy 4 + 3 = 7
    assert row.split()[1:4] == ["greedy", "feasible", "7"]
    assert row.split()[7:] == "8 -1 (1 of 2 documents; largest -1 in (gap); part 000)".split()
    assert ("  CEAFm witness, (gap); part 000: -1; remove 1 and add 2 entity pair(s) to reach "
            "the optimum") in out.splitlines()


def test_cli_json(capsys, files):
    code, out, err = run(capsys, "coref", *files, "--json", "--ceaf-method", "greedy",
                         "--metric", "muc", "--metric", "ceafe", "bcub")
    assert (code, err) == (0, "")
    doc_ = json.loads(out)
    assert set(doc_) == {"command", "version", "inputs", "options",  # the envelope
                         "key", "response", "metrics", "ceaf_method", "overall", "solves",
                         "vs_exact", "documents"}
    assert doc_["inputs"] == {"reference": files[0], "system": files[1]}
    assert doc_["metrics"] == ["muc", "bcub", "ceafe"]
    overall = doc_["overall"]
    assert set(overall) == {"mentions", "muc", "bcub", "ceafe", "conll"}
    assert list(overall["muc"]) == ["precision", "recall", "f1", "counts"]
    assert overall["conll"]["recall"] is None
    solve, exact = doc_["solves"]["ceafe"], doc_["solves"]["ceafe/exact"]
    assert solve["method"] == "greedy" and solve["status"] == "feasible"
    assert solve["bound"] is None and exact["status"] == "optimal"
    assert exact["objective"] == pytest.approx(11 / 5 + 8 / 7)
    vs = doc_["vs_exact"]["ceafe"]
    assert vs["documents_with_gap"] == 1
    assert vs["largest_gap"] == pytest.approx(8 / 7 - 3 / 5)
    ids = [d["id"] for d in doc_["documents"]]
    assert ids == ["(ex); part 000", "(gap); part 000"]   # key order
    ex = doc_["documents"][0]
    assert ex["scores"]["muc"]["recall"] == pytest.approx(1 / 3)
    assert ex["vs_exact"]["ceafe"] == {"shortfall": 0.0, "relative": 0.0, "witness": None}
    w = doc_["documents"][1]["vs_exact"]["ceafe"]["witness"]
    assert (len(w["remove"]), len(w["add"]), w["changes"]) == (1, 2, 3)
    assert w["gain"] == pytest.approx(8 / 7 - 3 / 5)
    assert ex["solves"]["ceafe"]["method"] == "greedy"
    assert ex["repeated"] == 0


def test_cli_json_blanc_and_ilp(capsys, files):
    code, out, _ = run(capsys, "coref", *files, "--json", "--metric", "blanc", "ceafm",
                       "--ceaf-method", "ilp")
    assert code == 0
    doc_ = json.loads(out)
    overall = doc_["overall"]
    assert set(overall["blanc"]) == {"recall", "precision", "f1"}
    assert set(overall["blanc/coref"]) == set(overall["blanc/noncoref"]) == {
        "recall", "precision", "f1", "counts"}
    assert "conll" not in overall
    solve = doc_["solves"]["ceafm"]
    assert solve["status"] == "optimal" and solve["backend"] == "highs"
    assert solve["objective"] == solve["bound"] == 8.0
    assert set(doc_["solves"]) == {"ceafm"} and doc_["vs_exact"] is None


def test_cli_input_error_names_file_and_line(capsys, tmp_path, files):
    bad = tmp_path / "bad.conll"
    bad.write_text(doc("ex", ["(1", "-"]))
    code, out, err = run(capsys, "coref", files[0], str(bad))
    assert (code, out) == (2, "")
    assert err == (f"exactalign: error: {bad}:2: a mention of entity 1 opens here (token 0) "
                   "but is not closed before '#end document' (line 4)\n")


def test_cli_documents_and_usage_errors(capsys, files):
    code, out, _ = run(capsys, "coref", *files, "--documents", "--metric", "lea")
    assert code == 0
    assert "document (ex); part 000" in out and "all documents (counts summed)" in out
    code, _, err = run(capsys, "coref", *files, "--metric", "f1")
    assert code == 2 and "invalid choice: 'f1'" in err


@pytest.mark.parametrize("repeats", [False, True], ids=["disjoint", "with-repeats"])
def test_membership_joins_equal_the_sparse_products_bit_for_bit(repeats):
    """The metrics join memberships with numpy instead of multiplying scipy.sparse incidence
    matrices (scipy stays unimported on small inputs); every number, B³'s order-dependent float
    sums included, is the one the sparse products gave."""
    import scipy.sparse as sp

    def one_hot(of, n_chains):
        ids = np.flatnonzero(of >= 0)
        return sp.csr_array((np.ones(len(ids), dtype=np.int64), (ids, of[ids])),
                            shape=(len(of), n_chains))

    rng = np.random.default_rng(11 + repeats)
    for _ in range(300):
        n_ids = int(rng.integers(1, 30))
        K, R = random_key_response(rng, n_ids, repeats)
        d = identified(K, R, n_ids)
        Kc, Rc = d.key_counts, d.response_counts
        n = Rc @ one_hot(d.key_of, len(K))
        c = Rc @ (Kc > 0).astype(np.int64).T
        nc = (n * c).tocoo()
        b = coref.b_cubed(d)
        assert b.recall_num == (float((nc.data / d.key_sizes[nc.col]).sum()) if nc.nnz else 0.0)
        assert b.precision_num == (float((nc.data / d.response_sizes[nc.row]).sum())
                                   if nc.nnz else 0.0)
        m = n.tocoo()
        assert coref.muc(d).recall_num == float(np.maximum(m.data - 1, 0).sum())
        inter = (Kc @ (Rc > 0).astype(np.int64).T).tocoo()
        inst = coref.ceaf_instance(d, "mention")
        got = dict(zip(zip(inst.rows.tolist(), inst.cols.tolist(), strict=True),
                       inst.weights.tolist(), strict=True))
        assert got == {(int(i), int(j)): float(v)
                       for i, j, v in zip(inter.row, inter.col, inter.data, strict=True)}


@pytest.mark.parametrize("repeats", [False, True], ids=["disjoint", "with-repeats"])
def test_blanc_from_the_contingency_equals_the_link_sets(repeats):
    """BLANC's partition path (no id twice: counts from chain sizes and the key x response
    contingency) gives the counts of the link-set path, bit for bit."""
    from exactalign.metrics.coref import links
    rng = np.random.default_rng(11 + repeats)
    for _ in range(400):
        n_ids = int(rng.integers(1, 12))
        K, R = random_key_response(rng, n_ids, repeats)
        d = identified(K, R, n_ids)
        got, want = coref.blanc(d), links._blanc_sets(d)
        assert (got.coref, got.noncoref) == (want.coref, want.noncoref)
