"""``bipartite.solve_many``: a corpus of instances in one block-diagonal solve gives every
instance what its own ``solve`` gives (exact and greedy), and falls back otherwise."""

import numpy as np
import pytest

from exactalign import bipartite as B
from exactalign.io.tbf import parse_tbf
from exactalign.metrics.nugget.evaluation import evaluate
from exactalign.synthetic import random_bipartite


def _corpus(seed=0, n=120, halves=False):
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        a, b = int(rng.integers(0, 15)), int(rng.integers(0, 15))
        if not (a and b):
            out.append(B.BipartiteInstance(a, b, np.zeros(0, np.int64), np.zeros(0, np.int64),
                                           np.zeros(0)))
            continue
        inst = random_bipartite(a, b, degree=float(rng.uniform(0.5, 5)), seed=[seed, k],
                                weights="dice")
        if halves:  # many ties
            w = np.round(np.asarray(inst.weights) * 2) / 2
            keep = w > 0
            inst = B.BipartiteInstance(a, b, np.asarray(inst.rows)[keep],
                                       np.asarray(inst.cols)[keep], w[keep])
        out.append(inst)
    return out


@pytest.mark.parametrize("halves", [False, True])
@pytest.mark.parametrize("method", ["exact", "greedy"])
def test_same_results_as_one_solve_per_instance(method, halves):
    insts = _corpus(1, halves=halves)
    if method == "exact":  # both exact paths occur: greedy proven, and the assignment
        kinds = {r.details["algorithm"] for r in B.solve_many(insts, method)}
        assert kinds == {"certified greedy", "assignment"}
    for many, inst in zip(B.solve_many(insts, method), insts, strict=True):
        one = B.solve(inst, method)
        assert np.array_equal(np.asarray(many.alignment), np.asarray(one.alignment))
        assert many.objective == one.objective
        assert many.status == one.status and many.components == one.components
        if method == "exact":
            assert many.proven_optimal and many.bound == pytest.approx(one.bound, abs=1e-12)
            assert dict(many.details) == dict(one.details)
        else:
            assert many.bound is None
        assert B.check(inst, many.alignment) == many.objective


@pytest.mark.parametrize("rounds", [1, 4, 12])
def test_each_block_gets_the_rounds_of_its_own_pass(monkeypatch, rounds):
    # With few rounds, a block's greedy is proven only if its own pass settles in them: the
    # block pass must decide each block as its own solve does (not by the whole's rounds).
    monkeypatch.setattr(B, "GREEDY_ROUNDS", rounds)
    insts = _corpus(4, n=80)
    many = B.solve_many(insts)
    one = [B.solve(i) for i in insts]
    assert [r.details for r in many] == [r.details for r in one]
    assert all(np.array_equal(np.asarray(a.alignment), np.asarray(b.alignment))
               for a, b in zip(many, one, strict=True))
    if rounds == 4:  # some blocks settle in 4 rounds and some do not
        assert len({r.details["algorithm"] for r in many}) == 2


@pytest.mark.parametrize("n", [60, 900])  # the dense and (past DENSE_CELLS) sparse paths
def test_ilp_options_are_ignored_and_keep_the_optimum(n):
    insts = _corpus(2, n=n)
    many = B.solve_many(insts, "exact", backend="highs", time_limit=10.0, seed=3)
    for r, inst in zip(many, insts, strict=True):
        assert r.proven_optimal
        assert r.objective == pytest.approx(B.solve(inst, "ilp").objective, abs=1e-9)


def test_other_methods_and_kinds_fall_back_to_solve():
    insts = _corpus(3, n=6)
    ilp = B.solve_many(insts, "ilp")
    assert [r.method for r in ilp] == ["ilp"] * 6
    n1 = [B.BipartiteInstance(2, 2, [0, 1], [0, 0], [0.5, 0.7], kind="N:1")] * 2
    assert [r.objective for r in B.solve_many(n1)] == [B.solve(n1[0]).objective] * 2
    assert B.solve_many([]) == []


def test_nugget_documents_scored_together_as_one_by_one():
    lines = []
    for side, spans in (("gold", [(0, 4, "a"), (5, 9, "a"), (10, 14, "b")]),
                        ("sys", [(0, 4, "a"), (4, 9, "a"), (10, 13, "a")])):
        out = []
        for d in range(3):
            out.append(f"#BeginOfDocument d{d}")
            out += ["\t".join([side, f"d{d}", f"m{i}", f"{b + d},{e + d}", "x", t, "Actual"])
                    for i, (b, e, t) in enumerate(spans)]
            out.append("#EndOfDocument")
        lines.append(parse_tbf("\n".join(out) + "\n"))
    ev = evaluate(*lines, mappings=["kbp", "exact"])
    for m, method in (("kbp", "greedy"), ("exact", "exact")):
        for doc in ev.scores[m].documents:
            for name, inst in doc.instances.items():
                one = B.solve(inst, method)
                assert np.array_equal(np.asarray(doc.results[name].alignment),
                                      np.asarray(one.alignment))
                assert doc.results[name].objective == one.objective
