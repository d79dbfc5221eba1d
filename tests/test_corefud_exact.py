"""The metric-optimal mention alignment (exactalign.problems.coref_alignment) and its CorefUD
use (exactalign.metrics.coref.corefud_exact, ``exactalign coref --format corefud --method``):
exact == brute force over every allowed 1:1 alignment, the staged and the stagewise alignments
never above it, the exact alignment's metric recomputed by the CoNLL path's independent code,
staged == exact under exact matching, hand-derived gaps, time limits, the command line."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, target
from hypothesis import strategies as st

from exactalign import cli
from exactalign.core.errors import InfeasibleAlignmentError, InputError
from exactalign.core.result import Status
from exactalign.io.corefud import pair_corefud, read_corefud
from exactalign.metrics.coref import corefud
from exactalign.metrics.coref import corefud_exact as cx
from exactalign.perturb.corefud import perturb, random_document, to_corefud
from exactalign.problems import coref_alignment as ca
from exactalign.testing.strategies import mention_alignment_instances

METRICS = ca.METRICS


# ------------------------------------------------------------------------------------------------
# the problem
# ------------------------------------------------------------------------------------------------
@given(mention_alignment_instances(max_pairs=8))
def test_exact_equals_brute_force_and_bounds_the_heuristic(inst):
    for m in METRICS:
        ex = ca.solve(inst, m, "exact")
        best, _ = ca.brute_force(inst, m)
        assert ex.proven_optimal, (m, ex)
        assert ex.objective == pytest.approx(best, abs=1e-9), m
        assert ex.objective == pytest.approx(ca.check(inst, ex.alignment, m), abs=1e-12)
        assert ex.bound == pytest.approx(ex.objective, abs=1e-6)
        heur = ca.solve(inst, m, "stagewise")
        assert heur.status is Status.FEASIBLE and heur.bound is None
        assert heur.objective <= ex.objective + 1e-9
        target(ex.objective - heur.objective, label=f"exact - stagewise ({m})")


def test_hand_derived_b3_trade_off():
    """Key {k0, k1}; response {r0}, {r1, r2} (singletons kept); k0 may pair with r0 or r1, k1
    only with r2. Pairing k0-r0, k1-r2: B3 recall (1+1)/2 / 2 = 1/2, precision (1 + 1/2) / 3.
    Pairing k0-r1, k1-r2 puts both key mentions in one response entity: recall (2²/2)/2 = 1,
    precision (0 + 2²/2)/3 = 2/3 -- F1 4/5 against 1/2: the similarity heuristic prefers the
    heavier pair k0-r0 and loses."""
    inst = ca.MentionAlignmentInstance(2, 3, ((0, 1),), ((0,), (1, 2)),
                                       [0, 0, 1], [0, 1, 2], [1.0, 0.5, 1.0], [0, 0, 0])
    heur = ca.solve(inst, "bcub", "stagewise")
    assert heur.alignment.tolist() == [[0, 0], [1, 2]]
    assert heur.details["counts"] == pytest.approx((1 + 1 / 2, 3, 1, 2))
    assert heur.objective == pytest.approx(2 * (1.5 / 3) * (1 / 2) / (1.5 / 3 + 1 / 2))
    ex = ca.solve(inst, "bcub")
    assert ex.alignment.tolist() == [[0, 1], [1, 2]]
    assert ex.details["counts"] == pytest.approx((2, 3, 2, 2))
    assert ex.objective == pytest.approx(4 / 5) and ex.proven_optimal
    # MUC: one link either way; CEAFm: 2 either way (CEAF aligns k-entity to {r1, r2})
    assert ca.solve(inst, "muc").objective == pytest.approx(ca.check(inst, ex.alignment, "muc"))
    assert ca.check(inst, heur.alignment, "ceafm") < ca.solve(inst, "ceafm").objective


def test_mention_in_two_clusters_counts_in_the_last():
    # key mention 0 in clusters K0 = {0, 1} and K1 = {0}; response R0 = {0, 1}. Recall counts
    # each occurrence: K0 holds 2 mentions paired into R0 (2²/2), K1 one (1²/1): 3 of 3.
    # Precision: r0's partner k0 counts in its last cluster K1, r1's in K0: two groups of one
    # in R0, (1² + 1²)/2 = 1 of 2.
    inst = ca.MentionAlignmentInstance(2, 2, ((0, 1), (0,)), ((0, 1),), [0, 1], [0, 1],
                                       [1.0, 1.0], [0, 0])
    counts = ca.evaluate(inst, [[0, 0], [1, 1]], "bcub")
    assert counts == pytest.approx(((1 + 1) / 2, 2, 2 ** 2 / 2 + 1 / 1, 3))
    res = ca.solve(inst, "bcub")
    assert res.proven_optimal and res.details["counts"] == pytest.approx(counts)


def test_checker_refuses_infeasible_alignments():
    inst = ca.MentionAlignmentInstance(2, 2, ((0, 1),), ((0, 1),), [0, 0], [0, 1], [1, 1],
                                       [0, 0])
    with pytest.raises(InfeasibleAlignmentError):
        ca.check(inst, [[1, 1]], "muc")         # not an allowed pair
    with pytest.raises(InfeasibleAlignmentError):
        ca.check(inst, [[0, 0], [0, 1]], "muc")  # key mention 0 twice


@pytest.mark.parametrize("bad, message", [
    (dict(key_clusters=((0,), ())), "empty key cluster"),
    (dict(key_clusters=((0, 0),)), "repeats a mention"),
    (dict(key_clusters=((0,),)), "in no cluster"),
    (dict(rows=[0, 0], cols=[0, 0], weight=[1, 1], stage=[0, 0]), "listed twice"),
    (dict(rows=[5], cols=[0], weight=[1], stage=[0]), "not there"),
    (dict(rows=[0], cols=[0], weight=[1, 2], stage=[0]), "one entry per allowed pair"),
])
def test_instance_validation(bad, message):
    base = dict(n_key=2, n_response=1, key_clusters=((0, 1),), response_clusters=((0,),),
                rows=[0], cols=[0], weight=[1.0], stage=[0])
    base.update(bad)
    with pytest.raises(InputError, match=message):
        ca.MentionAlignmentInstance(**base)


def test_time_limit_keeps_an_incumbent_and_a_valid_bound():
    rng = np.random.default_rng(0)
    n = 40
    kc = tuple(tuple(range(i, i + 4)) for i in range(0, n, 4))
    rc = tuple(tuple(int(m) for m in c) for c in np.array_split(rng.permutation(n), 12))
    pairs = [(k, r) for k in range(n) for r in range(n) if rng.random() < 0.15]
    inst = ca.MentionAlignmentInstance(n, n, kc, rc, [k for k, _ in pairs],
                                       [r for _, r in pairs], [1.0] * len(pairs),
                                       [0] * len(pairs))
    res = ca.solve(inst, "bcub", time_limit=0.0)
    assert res.status is Status.TIME_LIMIT
    assert res.objective == pytest.approx(ca.check(inst, res.alignment, "bcub"))
    assert res.bound is not None and res.bound >= res.objective
    full = ca.solve(inst, "bcub", time_limit=30)
    assert full.objective >= res.objective - 1e-12 and full.objective <= res.bound + 1e-9


# ------------------------------------------------------------------------------------------------
# CorefUD documents
# ------------------------------------------------------------------------------------------------
def _pairs(seed: int, rate: float):
    rng = np.random.default_rng(seed)
    keys = [random_document(rng, f"d{i + 1}", sentences=(1, 2), entities=(2, 4))
            for i in range(2)]
    responses = [perturb(k, rng, rate) for k in keys]
    with tempfile.TemporaryDirectory() as tmp:
        kp, rp = Path(tmp) / "k.conllu", Path(tmp) / "r.conllu"
        kp.write_text(to_corefud(keys), encoding="utf-8")
        rp.write_text(to_corefud(responses), encoding="utf-8")
        return pair_corefud(read_corefud(kp), read_corefud(rp))


def _conll_path_counts(p, pairs) -> dict:
    """The five metrics of the aligned mentions computed by exactalign.metrics.coref (the CoNLL
    path's own code): a response mention paired with key mention k is renamed k, an unpaired
    one gets a fresh name."""
    from exactalign.metrics import coref
    from exactalign.metrics.aggregation import PRF

    partner = {r: k for k, r in pairs}
    keys = sorted({i for c in p.key_clusters for i in c})
    name = {("k", i): n for n, i in enumerate(keys)}
    for c in p.response_clusters:
        for r in c:
            if r in partner:
                name[("r", r)] = name[("k", partner[r])]
            else:
                name.setdefault(("r", r), len(name))
    d = coref.Identified("d", tuple((i, i) for i in range(len(name))), len(keys),
                         tuple(np.array([name[("k", i)] for i in c]) for c in p.key_clusters),
                         tuple(np.array([name[("r", i)] for i in c])
                               for c in p.response_clusters), PRF())
    return {"muc": coref.muc(d), "bcub": coref.b_cubed(d), "lea": coref.lea(d),
            "ceafe": coref.ceaf(d, "entity").prf, "ceafm": coref.ceaf(d, "mention").prf}


@settings(max_examples=20)
@given(st.integers(0, 10 ** 6), st.sampled_from([0.2, 0.4, 0.6]))
def test_staged_never_above_exact_and_exact_matches_brute_force(seed, rate):
    try:
        pairs = _pairs(seed, rate)
    except InputError:
        return
    largest = dict.fromkeys(ca.METRICS, 0.0)
    for match in corefud.MATCHES:
        for zm in corefud.ZERO_MATCHES:
            try:
                s = cx.compare_documents(pairs, match=match, zero_match=zm)
            except InputError:
                continue   # a zero without DEPS under dependent matching (the scorer fails)
            for d in s.documents:
                inst = d.problem.instance
                for m, c in d.metrics.items():
                    assert c.exact.proven_optimal, (seed, match, zm, m)
                    assert c.staged_f1 <= c.exact_f1 + 1e-9, (seed, match, zm, m)
                    largest[m] = max(largest[m], c.gap)
                    if inst.num_pairs <= 10:
                        best, _ = ca.brute_force(inst, m)
                        assert c.exact_f1 == pytest.approx(best, abs=1e-9), (seed, m)
                    if zm == "linear":    # the scorer's dict only bites on zero pairs
                        assert not c.quirk
                    if match == "exact" and zm == "linear":
                        assert c.gap == pytest.approx(0, abs=1e-12)
            for m in s.metrics:
                assert s.overall("staged")[m].f1 <= s.overall("exact")[m].f1 + 1e-9
                assert s.corpus[m][0].proven_optimal
    for m, g in largest.items():
        target(g, label=f"largest {m} gap")


@settings(max_examples=15)
@given(st.integers(0, 10 ** 6))
def test_exact_alignments_rescored_by_the_conll_path(seed):
    """The objective of every exact alignment is its metric recomputed by the CoNLL path's
    independent implementation (documents without a mention in two entities)."""
    try:
        pairs = _pairs(seed, 0.5)
    except InputError:
        return
    for match in ("head", "partial"):
        s = cx.compare_documents(pairs, match=match, zero_match="linear",
                                 keep_singletons=True)
        for (k, r), d in zip(pairs, s.documents, strict=True):
            p = corefud.prepare(k, r, match, keep_singletons=True)
            if any(len(set(sum(cl, []))) != len(sum(cl, []))
                   for cl in (p.key_clusters, p.response_clusters)):
                continue
            for m, c in d.metrics.items():
                t = _conll_path_counts(p, c.exact_pairs)[m]
                assert c.exact.objective == pytest.approx(t.f1, abs=1e-12), (seed, match, m)
                staged = _conll_path_counts(p, d.staged.alignment.pairs)[m]
                assert c.staged_f1 == pytest.approx(staged.f1, abs=1e-12)


def test_staged_alignment_counts_as_the_scorer_counts_it_without_zero_pairs():
    for seed in range(5):
        for match in corefud.MATCHES:
            s = cx.compare_documents(_pairs(seed, 0.5), match=match, zero_match="linear",
                                     method="staged")
            for d in s.documents:
                for c in d.metrics.values():
                    assert c.staged == pytest.approx(c.scorer) and c.exact is None


def test_corpus_optimum_is_at_least_the_documents_optima():
    pairs = _pairs(3, 0.6) + _pairs(4, 0.6)
    s = cx.compare_documents(pairs, match="head", zero_match="linear")
    for m in ("bcub", "lea"):
        summed = [0.0] * 4
        for d in s.documents:
            for i in range(4):
                summed[i] += d.metrics[m].exact_counts[i]
        assert s.overall("exact")[m].f1 >= ca.f1_of(summed) - 1e-12
        assert s.corpus[m][0].proven_optimal


# ------------------------------------------------------------------------------------------------
# hand-derived CorefUD example and the command line
# ------------------------------------------------------------------------------------------------
def conllu(*sentences, doc="d") -> str:
    lines = [f"# newdoc id = {doc}", "# global.Entity = eid-etype-head-other"]
    for s, toks in enumerate(sentences, 1):
        lines.append(f"# sent_id = {doc}-{s}")
        for ident, misc in toks:
            lines.append(f"{ident}\tw{ident}\t_\t_\t_\t_\t0\t_\t_\t{misc or '_'}")
        lines.append("")
    return "\n".join(lines) + "\n"


# Key: e1 = {w1-w2 (head w2), w4-w5 (head w5)}. Response: e1 = {w2, w5}, e2 = {w1-w2 (head w2)}.
# Under head matching the staged alignment pairs the identical w1-w2 first (stage 2), leaving
# w4-w5 with w5: MUC 0 (the key's two mentions land in two response entities). Pairing w1-w2
# with the response's w2 instead (same head, match score 1/2) puts both key mentions in e1:
# MUC recall 1/1, precision 1/1 (e2 is a singleton, dropped).
KEY_B = conllu([("1", "Entity=(e1-x-2-"), ("2", "Entity=e1)"), ("3", None),
                ("4", "Entity=(e1-x-2-"), ("5", "Entity=e1)")])
RESP_B = conllu([("1", "Entity=(e2-x-2-"), ("2", "Entity=(e1-x-1-)e2)"), ("3", None),
                 ("4", None), ("5", "Entity=(e1-x-1-)")])


def test_breaking_an_identical_pair_pays(tmp_path):
    k, r = tmp_path / "k.conllu", tmp_path / "r.conllu"
    k.write_text(KEY_B)
    r.write_text(RESP_B)
    s = cx.compare_files(k, r, match="head", zero_match="linear", keep_singletons=True)
    (d,) = s.documents
    muc = d.metrics["muc"]
    assert d.staged.alignment.exact == 1 and d.staged.alignment.scored == 1
    assert muc.staged == muc.scorer == pytest.approx((0, 1, 0, 1))
    assert muc.exact_counts == pytest.approx((1, 1, 1, 1)) and muc.gap == pytest.approx(1)
    # without singletons the response's e2 is gone and the staged alignment is already best
    s = cx.compare_files(k, r, match="head", zero_match="linear")
    assert s.documents[0].metrics["muc"].gap == pytest.approx(0)
    # exact matching: nothing to choose
    s = cx.compare_files(k, r, match="exact", zero_match="linear", keep_singletons=True)
    assert all(c.gap == 0 for c in s.documents[0].metrics.values())


def test_cli_both_prints_the_gap_and_json(tmp_path, capsys):
    k, r = tmp_path / "k.conllu", tmp_path / "r.conllu"
    k.write_text(KEY_B)
    r.write_text(RESP_B)
    argv = ["coref", "--format", "corefud", str(k), str(r), "--keep-singletons",
            "--zero-match", "linear"]
    assert cli.main(argv + ["--method", "both"]) == 0
    out = capsys.readouterr().out
    assert "metric-optimal alignment" in out and "MUC" in out and "optimal" in out
    assert cli.main(argv + ["--method", "both", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["method"] == "both"
    assert doc["exact"]["overall"]["muc"]["f1"] == 1.0
    assert doc["staged"]["overall"]["muc"]["f1"] == 0.0
    assert doc["gap"]["muc"]["documents_with_gap"] == 1
    assert doc["solves"]["muc"]["status"] == "optimal"
    assert doc["documents"][0]["exact"]["muc"]["alignment"]
    assert cli.main(argv + ["--method", "exact", "--json", "--time-limit", "5"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["method"] == "exact" and doc["staged"] is None
    # the default stays the scorer's own output
    assert cli.main(argv) == 0
    assert "metric-optimal" not in capsys.readouterr().out


def test_cli_methods_mirror_the_library():
    from exactalign.cli import coref as coref_cli

    assert coref_cli.ALIGNMENT_METHODS == cx.METHODS


def test_method_needs_corefud(tmp_path):
    k = tmp_path / "k.conll"
    k.write_text("#begin document (d); part 000\nd 0 0 w - - - - - - - (1)\n#end document\n")
    assert cli.main(["coref", str(k), str(k), "--method", "exact"]) == 2


@pytest.mark.parametrize("seed", range(6))
def test_entity_alignment_by_components_equals_the_dense_assignment(seed):
    """best_entity_alignment solves each connected component alone; its total equals the
    maximum-weight assignment of the full dense matrix, and it is 1:1 on positive cells."""
    from scipy.optimize import linear_sum_assignment

    rng = np.random.default_rng(seed)
    n_a, n_b = int(rng.integers(5, 40)), int(rng.integers(5, 40))
    sim = {}
    for _ in range(int(rng.integers(1, 3 * (n_a + n_b)))):
        a, b = int(rng.integers(n_a)), int(rng.integers(n_b))
        sim[(a, b)] = float(rng.choice([0.0, 0.25, 0.5, 1.0, 2.0 / 3.0, rng.random()]))
    chosen = ca.best_entity_alignment(sim)
    assert len({a for a, _ in chosen}) == len(chosen) == len({b for _, b in chosen})
    assert all(sim[ab] > 0 for ab in chosen) and chosen == sorted(chosen)
    dense = np.zeros((n_a, n_b))
    for (a, b), w in sim.items():
        dense[a, b] = w
    ri, ci = linear_sum_assignment(-dense)
    assert sum(sim[ab] for ab in chosen) == pytest.approx(float(dense[ri, ci].sum()),
                                                          rel=1e-12, abs=1e-12)


def test_ceaf_of_independent_documents_is_the_sum_of_theirs():
    """The union of documents (clusters and pairs never cross them): CEAF's numerator is the sum
    of the documents', as one block-diagonal assignment must give."""
    insts, aligns = [], []
    for seed in range(5):
        k = random_document(seed, f"d{seed}")
        p = corefud.prepare(*_pair_of(k, perturb(k, seed + 100, 0.4)), "head", True)
        prob = cx.problem(p, "head", "linear")
        insts.append(prob.instance)
        aligns.append(prob.indices(corefud.staged_alignment(p, "head", "linear").pairs))
    union, offsets = cx._union(insts)
    al = ca.as_alignment([(k + ok, r + orr) for a, (ok, orr) in zip(aligns, offsets, strict=True)
                          for k, r in np.asarray(a).reshape(-1, 2).tolist()])
    for metric in ("ceafe", "ceafm"):
        whole = ca.evaluate(union, al, metric)
        parts = [ca.evaluate(i, a, metric) for i, a in zip(insts, aligns, strict=True)]
        assert whole[0] == pytest.approx(sum(p[0] for p in parts), rel=1e-12)
        assert whole[1] == sum(p[1] for p in parts) and whole[3] == sum(p[3] for p in parts)


def _pair_of(key: dict, response: dict):
    with tempfile.TemporaryDirectory() as tmp:
        kp, rp = Path(tmp) / "k", Path(tmp) / "r"
        kp.write_text(to_corefud([key]), encoding="utf-8")
        rp.write_text(to_corefud([response]), encoding="utf-8")
        return pair_corefud(read_corefud(kp), read_corefud(rp))[0]
