"""GTT template F1 and CEAF-REE (:mod:`exactalign.metrics.templates`): hand-derived counts,
GTT's exhaustive search == exact on every document, greedy <= exact, and the published numbers
on the pilot data (GTT P 61.69 / R 42.36 / F1 50.23; GRIT CEAF-REE F1 54.50)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactalign.core.result import Status
from exactalign.data import resolve_data_dir
from exactalign.io.gtt import ROLES, Template
from exactalign.metrics import templates as T


def tmpl(itype, **roles):
    return Template(itype, tuple(tuple(tuple(e) for e in roles.get(r, ())) for r in ROLES))


# A document with two gold and two predicted templates (hand-derived below).
GOLD = [tmpl("attack", PerpInd=[["army", "soldiers"]], Victim=[["priest"], ["maid"]]),
        tmpl("bombing / attack", Target=[["bank"]])]
PRED = [tmpl("attack", PerpInd=[["army"]], Victim=[["priest"]], Target=[["bank"]]),
        tmpl("bombing", Target=[["bank"]], Weapon=[["bomb"]])]


def test_pair_table_by_hand():
    t = T.gtt_pair_table(GOLD, PRED)
    # p_den = (1 + 3) + (1 + 2) = 7; r_den = (1 + 3) + (1 + 1) = 6.
    assert (t.p_den, t.r_den) == (7.0, 6.0)
    # (g0, p0): type + army ⊆ {army, soldiers} + priest: P 3, R 3 (army entity, priest).
    # (g1, p0): "attack" in "bombing / attack": type + bank: P 2, R 2.
    # (g1, p1): type + bank: P 2, R 2. (g0, p1): "bombing" not in "attack": no pair.
    rows = {tuple(p): (a, b) for p, a, b in zip(t.pairs.tolist(), t.p_num, t.r_num,
                                                 strict=True)}
    assert rows == {(0, 0): (3, 3), (1, 0): (2, 2), (1, 1): (2, 2)}


def test_search_greedy_exact_by_hand():
    t = T.gtt_pair_table(GOLD, PRED)
    best = T.align_gtt_search(t)
    assert best.tolist() == [[0, 0], [1, 1]]
    c = t.counts(best)
    assert (c.precision_num, c.recall_num) == (5, 5)  # F1 = 2·(5/7)(5/6)/(5/7 + 5/6)
    al, status, bound = T.align_exact_f1(t)
    assert status is Status.OPTIMAL and al.tolist() == [[0, 0], [1, 1]]
    assert bound == pytest.approx(2 * (5 / 7) * (5 / 6) / (5 / 7 + 5 / 6))
    assert T.align_greedy(t).tolist() == [[0, 0], [1, 1]]


def test_subset_credit_is_not_one_to_one():
    # Two predicted entities inside one gold entity both earn precision (GTT's matching()).
    g = [tmpl("attack", PerpInd=[["army", "soldiers"]])]
    p = [tmpl("attack", PerpInd=[["army"], ["soldiers"]])]
    t = T.gtt_pair_table(g, p)
    assert (t.p_num[0], t.r_num[0]) == (3, 2)


def _random_doc(draw_ints, n_gold, n_pred):
    mentions = ["a", "b", "c", "d"]
    types = ["attack", "bombing", "kidnapping"]
    it = iter(draw_ints)

    def ent():
        k = next(it) % 3 + 1
        return [mentions[(next(it) + i) % 4] for i in range(k)]

    def temp():
        roles = {r: [ent() for _ in range(next(it) % 3)] for r in ROLES[:3]}
        return tmpl(types[next(it) % 3], **roles)

    return [temp() for _ in range(n_gold)], [temp() for _ in range(n_pred)]


@given(st.integers(0, 3), st.integers(0, 3), st.lists(st.integers(0, 50), min_size=200,
                                                      max_size=200))
def test_exact_equals_gtt_search_and_beats_greedy(n_gold, n_pred, ints):
    gold, pred = _random_doc(itertools.cycle(ints), n_gold, n_pred)
    t = T.gtt_pair_table(gold, pred)
    search = t.counts(T.align_gtt_search(t))
    exact_al, status, bound = T.align_exact_f1(t)
    exact = t.counts(exact_al)
    greedy = t.counts(T.align_greedy(t))
    f = T._f1_of
    assert status is Status.OPTIMAL
    assert f(exact) == pytest.approx(f(search), abs=1e-12)
    assert f(greedy) <= f(exact) + 1e-12
    assert bound == pytest.approx(f(exact))
    # brute force over every 1:1 map of candidate pairs
    best = 0.0
    for k in range(len(t.pairs) + 1):
        for sub in itertools.combinations(range(len(t.pairs)), k):
            P = t.pairs[list(sub)]
            if len(set(P[:, 0])) == k and len(set(P[:, 1])) == k:
                best = max(best, f(t.counts(P)))
    assert f(exact) == pytest.approx(best, abs=1e-12)


def test_ceaf_ree_by_hand():
    g = {"D": tmpl("x", PerpInd=[["army", "soldiers"], ["police"]]).slots}
    p = {"D": tmpl("x", PerpInd=[["army"], ["police", "guard"], ["soldiers"]]).slots}
    strict = T.ceaf_ree(g, p, "strict", "exact").overall
    # φ_strict: army ⊆ g0 (1), soldiers ⊆ g0 (1), {police, guard} ⊄ g1: best matching 1.
    assert (strict.recall_num, strict.recall_den, strict.precision_den) == (1, 2, 3)
    prop = T.ceaf_ree(g, p, "prop", "exact").overall
    # φ_prop: g0-army 1/1, g1-{police,guard} 1/2, g0-soldiers 1/1: best 1 + 1/2.
    assert prop.recall_num == pytest.approx(1.5)
    greedy = T.ceaf_ree(g, p, "prop", "greedy").overall
    assert greedy.recall_num <= prop.recall_num + 1e-12


def test_unknown_methods_are_refused():
    t = T.gtt_pair_table(GOLD, PRED)
    with pytest.raises(ValueError, match="unknown GTT alignment"):
        T.align_doc(t, "hungarian")
    with pytest.raises(ValueError, match="unknown CEAF-REE method"):
        T.ceaf_ree({}, {}, "strict", "ilp")


def _pilot(*parts):
    data = resolve_data_dir()
    if not data.available or not data.path.joinpath("muc4", *parts).exists():
        pytest.skip("pilot data muc4/ not available")
    return data.path.joinpath("muc4", *parts)


@pytest.mark.pilot
def test_gtt_reproduction_and_exact():
    from exactalign.io import gtt

    gold = gtt.read_gold(_pilot("gtt", "test.json"))
    pred = gtt.read_predictions(_pilot("gtt", "preds_gtt.out"))
    ref = T.score_gtt(gold, pred, "gtt").overall
    assert (round(100 * ref.precision, 2), round(100 * ref.recall, 2),
            round(100 * ref.f1, 2)) == (61.69, 42.36, 50.23)
    assert (ref.precision_num, ref.precision_den, ref.recall_num, ref.recall_den) == \
        (343, 556, 344, 812)
    exact = T.score_gtt(gold, pred, "exact")
    assert exact.status is Status.OPTIMAL
    docs = {d.docid: d.f1 for d in T.score_gtt(gold, pred, "gtt").docs}
    assert all(d.f1 == pytest.approx(docs[d.docid], abs=1e-12) for d in exact.docs)
    greedy = T.score_gtt(gold, pred, "greedy").overall
    assert (greedy.precision_num, greedy.recall_num) == (341, 342)  # 49.94: two docs worse


@pytest.mark.pilot
def test_grit_ceaf_ree_reproduction():
    from exactalign.io import gtt

    gold = gtt.read_ree_gold(_pilot("grit", "test_ree.json"))
    pred = gtt.read_ree_predictions(_pilot("grit", "preds_s_t.out"))
    s = T.ceaf_ree(gold, pred, "strict", "exact")
    assert round(100 * s.overall.f1, 2) == 54.50
    assert s.status is Status.OPTIMAL
    g = T.ceaf_ree(gold, pred, "strict", "greedy").overall
    assert np.isclose(g.f1, s.overall.f1) or g.f1 < s.overall.f1


def test_ceaf_rme_phi_subset_by_hand():
    g = [tmpl("attack", PerpOrg=[["fmln", "farabundo"]], Target=[["bank"], ["office"]])]
    p = [tmpl("attack", PerpOrg=[["fmln"], ["farabundo"]], Target=[["office", "x"]]),
         tmpl("bombing", Target=[["bank"]])]
    # pair (g0, p0): fmln and farabundo both hit the one gold PerpOrg entity (one-sided):
    # precision side 3 (three predicted entities hit), recall side 2 (PerpOrg, office).
    assert T.rme_pair_counts(g[0], p[0]) == (3, 2)
    assert T.rme_pair_counts(g[0], p[1]) == (0, 0)  # types differ
    for method in T.RME_METHODS:
        c = T.ceaf_rme({"D": g}, {"D": p}, method).overall
        assert (c.precision_num, c.precision_den, c.recall_num, c.recall_den) == (3, 4, 2, 3)


def test_ceaf_rme_multilabel_gold():
    """IterX keeps one label of an "a / b" gold template (largest row sum); exact lets a
    prediction of either label match, so it can only do better."""
    g = [tmpl("attack / bombing", Target=[["bank"]], Weapon=[["bomb"]])]
    p = [tmpl("bombing", Target=[["bank"]]), tmpl("attack", Target=[["bank"]],
                                                  Weapon=[["bomb"]])]
    al, c = T.rme_iterx(g, p)
    assert al.tolist() == [[0, 1]] and (c.precision_num, c.recall_num) == (2, 2)
    exact = T.ceaf_rme({"D": g}, {"D": p}, "exact")
    assert exact.status is Status.OPTIMAL
    assert exact.overall.f1 >= c.f1 - 1e-12


@pytest.mark.pilot
def test_ceaf_rme_matches_iterx_per_document():
    import re

    from exactalign.io import gtt

    gold = gtt.read_gold(_pilot("gtt", "test.json"))
    pred = gtt.read_predictions(_pilot("iterx", "bert-base", "preds.test.jsonlines"))
    ref = {}
    for line in _pilot("iterx", "bert-base", "test.rme.subset.txt").read_text().splitlines():
        m = re.match(r"doc_id=(\S+)\s.*prec=([\d.]+)\s+rec=([\d.]+)", line)
        if m:
            ref[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    s = T.ceaf_rme(gold, pred, "iterx")
    assert len(ref) == len(s.docs) == 200
    for d in s.docs:
        assert (d.counts.precision, d.counts.recall) == pytest.approx(ref[d.docid], abs=5e-5)
    exact = T.ceaf_rme(gold, pred, "exact")
    assert exact.status is Status.OPTIMAL
    assert all(b.f1 >= a.f1 - 1e-12 for a, b in zip(s.docs, exact.docs, strict=True))


@pytest.mark.parametrize("backend", ["scipy", "pulp"])
def test_exact_f1_backends_agree(backend):
    gold, pred = _random_doc(itertools.cycle(range(7, 60, 3)), 3, 3)
    t = T.gtt_pair_table(gold + GOLD, pred + PRED)
    a, s_a, _ = T.align_exact_f1(t, "highs")
    b, s_b, _ = T.align_exact_f1(t, backend)
    assert s_a is s_b is Status.OPTIMAL
    assert T._f1_of(t.counts(a)) == pytest.approx(T._f1_of(t.counts(b)), abs=1e-12)


@given(st.lists(st.integers(0, 50), min_size=120, max_size=120))
def test_ceaf_ree_exact_at_least_greedy(ints):
    gold, pred = _random_doc(itertools.cycle(ints), 1, 1)
    g, p = {"D": gold[0].slots}, {"D": pred[0].slots}
    for phi in T.PHIS:
        e = T.ceaf_ree(g, p, phi, "exact")
        assert e.status is Status.OPTIMAL
        assert T.ceaf_ree(g, p, phi, "greedy").overall.recall_num <= \
            e.overall.recall_num + 1e-12
