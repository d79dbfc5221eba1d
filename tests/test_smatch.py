"""Smatch: the exact score reproduces the reference optimum of every pilot pair (all proven);
the hill-climber is smatch 1.0.4's, call for call (checked against the real smatch with its
reseeding disabled); corpus aggregation and variants; the command line."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactalign.cli import main
from exactalign.io.amr import parse_graph, read_pairs
from exactalign.metrics import smatch
from exactalign.problems import latent
from exactalign.problems.latent import corpus
from exactalign.problems.latent import exact as latent_exact
from exactalign.testing import pilot_path
from exactalign.testing.strategies import penman_graphs

TEST = "(w / want-01 :ARG0 (b / boy) :ARG1 (g / go-02 :ARG0 b))"
GOLD = "(w / want-01 :ARG0 (b / boy) :ARG1 (g / go-01 :ARG0 b :polarity -))"


def test_hand_derived_pair():
    # test: 3 instances + TOP + 3 relations = 7; gold: 3 + TOP + polarity + 3 = 8; everything
    # but go-02/go-01 and polarity matches: 6.
    sc = smatch.score_pairs([(parse_graph(TEST), parse_graph(GOLD))], method="both")
    assert sc.totals("exact") == (6.0, 7, 8)
    s = sc.scores("exact")
    assert (s.precision, s.recall) == (6 / 7, 6 / 8) and s.f1 == pytest.approx(2 * 6 / 15)
    assert sc.totals("hillclimb")[0] == 6.0


def test_variants_by_hand():
    pair = [(parse_graph(TEST), parse_graph(GOLD))]
    assert smatch.score_pairs(pair, variant="concept-only").totals("exact") == (2.0, 3, 3)
    assert smatch.score_pairs(pair, variant="no-attributes").totals("exact") == (5.0, 6, 6)
    t2 = parse_graph("(w / want-01 :ARG1 (b / boy) :ARG0 (g / go-01 :ARG0 b))")
    un = smatch.score_pairs([(t2, parse_graph(GOLD))], variant="unlabeled")
    full = smatch.score_pairs([(t2, parse_graph(GOLD))], variant="full")
    assert un.totals("exact")[0] == 7.0  # instances 3, TOP, 3 unlabeled edges
    assert full.totals("exact")[0] == 5.0  # w, b and g mapped in order: only g :ARG0 b


def test_matched_triples_report():
    t, g = parse_graph(TEST), parse_graph(GOLD)
    res = smatch.score_pairs([(t, g)]).pairs[0].exact
    pairs = smatch.matched_triples(t, g, res.alignment)
    assert len(pairs) == 6
    assert (("ARG0", "g", "b"), ("ARG0", "g", "b")) in pairs


class NoReseed(random.Random):
    """A seeded generator whose argument-less ``seed()`` (smatch's reseeding from system
    entropy at every initial mapping) does nothing."""

    def seed(self, *args, **kwargs):
        if args or kwargs:
            super().seed(*args, **kwargs)


def patched_climber(module: str, seed, monkeypatch, reason: str):
    """The peer's smatch module (smatch, or docSmatch's copy) with its global generator
    replaced by a seeded :class:`NoReseed` and ``-r 4`` (undone after the test)."""
    sm = pytest.importorskip(module, reason=reason)
    monkeypatch.setattr(sm, "random", NoReseed(seed))
    monkeypatch.setattr(sm, "iteration_num", 5)  # -r 4
    return sm


def _patched_smatch(seed, monkeypatch):
    """The real smatch module, reseeding disabled, generator seeded."""
    return patched_climber("smatch", seed, monkeypatch, "smatch (peers extra) not installed")


def _pilot(*parts):
    return pilot_path("amr", *parts)


def _raw_blocks(path):
    import amr

    with open(path) as f:
        while True:
            line = amr.AMR.get_amr_line(f)
            if not line:
                return
            yield line


@pytest.mark.pilot
@pytest.mark.parametrize("files", [("lpp-test-jamr-camr", "jamr.txt", "lp_test.txt"),
                                   ("bamboo-sts-test", "src.test.amr", "tgt.test.amr")])
@pytest.mark.parametrize("seed", [0, 7])
def test_hillclimb_is_smatch_call_for_call(files, seed, monkeypatch):
    folder, a, b = files
    if _pilot(folder) is None:
        pytest.skip("pilot data not available")
    sm = _patched_smatch(seed, monkeypatch)
    test, gold = _pilot(folder, a), _pilot(folder, b)
    pairs = read_pairs(test, gold)[:60]
    raw = list(zip(_raw_blocks(test), _raw_blocks(gold), strict=False))[:60]
    rng = random.Random(seed)
    for (t, g), (rt, rg) in zip(pairs, raw, strict=True):
        sm.match_triple_dict.clear()
        theirs, nt, ng = sm.get_amr_match(rt, rg)
        inst = smatch.instance_of(t, g)
        _, ours, _ = latent.hillclimb_mapping(inst, 4, rng=rng)
        assert (ours, t.num_triples, g.num_triples) == (theirs, nt, ng)
        assert rng.getstate() == sm.random.getstate()  # the same draws, in the same order


@given(penman_graphs(max_nodes=5), penman_graphs(max_nodes=5), st.integers(0, 2**16))
@settings(max_examples=150, deadline=None)
def test_random_pairs_hillclimb_call_for_call_and_exact_is_brute_force(test, gold, seed):
    """Random PENMAN pairs: our hill-climber draws exactly smatch 1.0.4's random numbers and
    returns its count; the exact optimum equals brute force over every one-to-one mapping and is never
    below the hill-climber."""
    mp = pytest.MonkeyPatch()
    try:
        sm = _patched_smatch(seed, mp)
        sm.match_triple_dict.clear()
        theirs, nt, ng = sm.get_amr_match(test, gold)
        their_state = sm.random.getstate()
    finally:
        mp.undo()
    t, g = parse_graph(test), parse_graph(gold)
    inst = smatch.instance_of(t, g)
    rng = random.Random(seed)
    _, ours, _ = latent.hillclimb_mapping(inst, 4, rng=rng)
    assert (ours, t.num_triples, g.num_triples) == (theirs, nt, ng)
    assert rng.getstate() == their_state  # the same random draws, in the same order
    exact = smatch.score_pairs([(t, g)], duplicates="keep").pairs[0].exact
    brute, _ = latent.brute_force(inst)
    assert exact.proven_optimal and exact.objective == brute >= ours


def _references():
    base = _pilot("reference")
    return sorted(base.glob("*.json")) if base else []


@pytest.mark.pilot
@pytest.mark.parametrize("bnb_work", [None, 0], ids=["branch-and-bound", "lp-path"])
@pytest.mark.parametrize("ref", _references(), ids=lambda p: p.stem)
def test_pilot_optimum_proven(ref, bnb_work):
    """Both exact paths: the pure-Python branch and bound first (the default), and the LP/MIP
    path alone (``bnb_work=0``). The references are smatch 1.0.4's counts: duplicate triples
    (in the bamboo STS files) count as smatch counts them."""
    d = json.loads(ref.read_text())
    base = ref.parent.parent
    sc = smatch.score_files(base / d["test_file"], base / d["gold_file"], method="exact",
                            bnb_work=bnb_work, duplicates="keep")
    for pair, want in zip(sc.pairs, d["per_pair"], strict=True):
        res = pair.exact
        assert res.proven_optimal, pair.index
        assert res.objective == round(want["optimal_match"])
        assert res.objective >= max(want["smatch_r4_match_per_seed"])
        assert res.bound == res.objective
    m, t, g = sc.totals("exact")
    assert (m, t, g) == (d["corpus"]["optimal_match"], d["corpus"]["test_triples"],
                         d["corpus"]["gold_triples"])
    assert sc.scores("exact").f1 == pytest.approx(d["corpus"]["f1"], abs=1e-12)


def test_cli_prints_like_smatch(tmp_path, capsys):
    a, b = tmp_path / "test.amr", tmp_path / "gold.amr"
    a.write_text("# ::id 1\n" + TEST + "\n\n(x / xx)\n")
    b.write_text(GOLD + "\n\n# ::id 2\n(y / xx)\n")
    assert main(["smatch", "-f", str(a), str(b), "--pr"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == ["Precision: 0.89", "Recall: 0.80", "F-score: 0.84"]  # 8/9, 8/10
    assert main(["smatch", "-f", str(a), str(b), "--method", "both", "--pairs", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["overall"]["exact"]["counts"]["matched"] == 8
    assert d["methods"]["exact"]["proven_pairs"] == 2
    pair = d["documents"][1]
    assert pair["id"] == 1 and pair["solves"]["exact"]["status"] == "optimal"
    assert pair["scores"]["exact"]["counts"] == {"matched": 2.0, "test_triples": 2,
                                                 "gold_triples": 2}
    assert pair["gap"] == {"triples": 0.0, "f1_points": 0.0}
    assert pair["solves"]["exact"]["matched_triples"] == [
        [["instance", "x", "xx"], ["instance", "y", "xx"]], [["TOP", "x", "top"],
                                                             ["TOP", "y", "top"]]]
    b.write_text(GOLD + "\n")
    assert main(["smatch", "-f", str(a), str(b)]) == 2
    assert "same number of graphs" in capsys.readouterr().err


def test_empty_files_are_an_error(tmp_path, capsys):
    """smatch 1.0.4 prints F 0.00 for two files without graphs; a score of nothing is an error
    here (one line naming the file, exit 2, nothing on stdout)."""
    a = tmp_path / "empty.amr"
    a.write_text("# ::id only metadata\n\n")
    assert main(["smatch", "-f", str(a), str(a), "--json", "--method", "both"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"exactalign: error: {a}: no AMR graph in the file, nor in {a}")


def test_exact_over_worker_processes_is_the_same_optimum(tmp_path, capsys):
    """``jobs=2`` (and ``--jobs 2``): the pairs cut into chunks solved in two worker processes
    give the same proven optima as one process, pair by pair, and the same corpus score."""
    from experiments.performance import amr_pair

    pairs = [amr_pair(n, seed) for n, seed in ((12, 0), (40, 1), (25, 2), (60, 3), (8, 4))]
    one = smatch.score_pairs(pairs, bnb_work=0)
    two = smatch.score_pairs(pairs, bnb_work=0, jobs=2)
    assert [p.exact.objective for p in two.pairs] == [p.exact.objective for p in one.pairs]
    assert all(p.exact.proven_optimal for p in two.pairs)
    assert two.totals("exact") == one.totals("exact")


def test_jobs_on_one_pair_become_highs_threads(monkeypatch):
    """One pair and ``jobs=2``: no worker process, the pair solved here with two HiGHS threads
    (column generation's parallel dual simplex), to the same proven optimum as one thread."""
    from experiments.performance import amr_pair

    pair = amr_pair(60, 3)
    seen = []
    real = corpus.exact_results
    monkeypatch.setattr(corpus, "exact_results",
                        lambda insts, **kw: seen.append(kw.get("threads", 1)) or real(insts, **kw))
    one = smatch.score_pairs([pair], bnb_work=0)
    two = smatch.score_pairs([pair], bnb_work=0, jobs=2)
    assert seen == [1, 2]
    assert two.pairs[0].exact.proven_optimal
    assert two.pairs[0].exact.objective == one.pairs[0].exact.objective


def test_jobs_on_the_command_line(capsys):
    from exactalign import cli

    gold = "docs/examples/gold.amr"
    outs = []
    for jobs in ("1", "2"):
        assert cli.main(["smatch", "--json", "--jobs", jobs, "-f", gold, gold]) == 0
        outs.append(json.loads(capsys.readouterr().out)["overall"]["exact"]["f1"])
    assert outs == [1.0, 1.0]
    assert cli.main(["smatch", "--jobs", "0", "-f", gold, gold]) == 2
    assert "at least 1" in capsys.readouterr().err


def test_lp_path_mapping_is_recounted_from_the_triples(monkeypatch):
    """A mapping from the LP/MIP path whose claimed objective the triples do not give is a
    VerificationError naming the pair; the branch and bound's mappings are recounted inside
    :func:`~exactalign.problems.latent.bnb.branch_and_bound` (its claimed, summed and counted
    values must agree)."""
    from exactalign.core.errors import VerificationError

    pair = (parse_graph(TEST), parse_graph(GOLD))
    good = smatch.score_pairs([pair], bnb_work=0).pairs[0].exact
    real = latent_exact.solve_exact_many

    def inflated(insts, **kwargs):
        return [r.replace(objective=r.objective + 1) for r in real(insts, **kwargs)]

    monkeypatch.setattr(latent_exact, "solve_exact_many", inflated)
    with pytest.raises(VerificationError, match=f"pair 0: .* does not score {good.objective + 1}"):
        smatch.score_pairs([pair], bnb_work=0)
    # the branch and bound's path never calls the LP: the same pair is proven as before
    assert smatch.score_pairs([pair]).pairs[0].exact.objective == good.objective
