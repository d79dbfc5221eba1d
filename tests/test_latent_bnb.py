"""The numpy-free half of latent-variable matching: the branch and bound equals brute force and
the LP/MIP path, its bound is valid when it is cut short, the pure objective count equals the
compiled checker, and the small-file Smatch path never imports numpy."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from exactalign.core.errors import InfeasibleAlignmentError
from exactalign.core.result import Status
from exactalign.metrics import smatch
from exactalign.problems import latent
from exactalign.problems.latent import LatentInstance, bnb, corpus, hillclimb, matches
from tests.test_latent import SQUARE, instances


@given(instances(max_vars=5))
def test_bnb_equals_brute_force(inst):
    assume(inst.num_pairs <= 14)
    brute, _ = latent.brute_force(inst)
    out = bnb.branch_and_bound(inst)
    assert out.proven and out.objective == out.bound == brute
    assert matches.count_matches(inst, out.mapping) == latent.check(inst, out.mapping) == brute


@settings(max_examples=60)
@given(instances(max_vars=6), st.integers(1, 6))
def test_bnb_cut_short_keeps_a_valid_bound(inst, limit):
    opt = latent.solve(inst, "exact")
    assert opt.proven_optimal
    out = bnb.branch_and_bound(inst, node_limit=limit)
    assert out.objective <= opt.objective <= out.bound
    assert out.proven == (out.nodes <= limit)
    if out.proven:
        assert out.objective == opt.objective


@given(instances(max_vars=5), st.randoms(use_true_random=False))
def test_count_matches_equals_check(inst, rnd):
    left = list(range(inst.n_left))
    right = list(range(inst.n_right))
    rnd.shuffle(right)
    mapping = [(a, b) for a, b in zip(left, right, strict=False) if rnd.random() < 0.7]
    assert matches.count_matches(inst, mapping) == latent.check(inst, mapping)
    un, bi = matches.matched_pairs(inst, mapping)
    assert len(un) + len(bi) == matches.count_matches(inst, mapping)


@given(instances(max_vars=5))
def test_start_mapping_does_not_change_the_optimum(inst):
    hc, _, _ = hillclimb.hillclimb_mapping(inst, 1)
    a = bnb.branch_and_bound(inst)
    b = bnb.branch_and_bound(inst, matches.mapping_rows(hc))
    assert a.objective == b.objective and a.proven and b.proven


def _pool_form(inst):
    """The compiled form read off smatch's pool, as the branch and bound once built it."""
    _, weights = hillclimb.smatch_pool(inst)
    links = {ab: {q: w for q, w in d.items() if q != -1 and q[0] != ab[0] and q[1] != ab[1]}
             for ab, d in weights.items()}
    pairs = [ab for ab, d in weights.items() if d[-1] or links[ab]]
    index = {ab: p for p, ab in enumerate(pairs)}
    return (pairs, [weights[ab][-1] for ab in pairs],
            [list({index[q]: w for q, w in links[ab].items()}.items()) for ab in pairs])


@given(instances(max_vars=6))
def test_the_compiled_form_is_the_pools_in_its_order(inst):
    # pairs, weights and the order of every partner list drive the search's tie-breaking
    pairs, unary, adj = bnb._pure_pairs(inst)
    assert (pairs, unary, [list(d.items()) for d in adj]) == _pool_form(inst)


@given(instances(max_vars=6))
def test_components_are_the_connected_parts_in_pair_order(inst):
    from scipy.sparse import coo_array
    from scipy.sparse.csgraph import connected_components

    pairs, _, adj = bnb._pure_pairs(inst)
    cand, rcand = bnb._by_variable(pairs)
    assert sorted(p for ps in cand.values() for p in ps) == list(range(len(pairs)))
    assert all(pairs[p][1] == b for b, ps in rcand.items() for p in ps)
    comps = bnb._components(pairs, adj, cand, rcand)
    assert sorted(p for c in comps for p in c) == list(range(len(pairs)))
    assert all(c == sorted(c) for c in comps) and [c[0] for c in comps] == sorted(
        c[0] for c in comps)
    # the same partition as scipy's components of the graph on pairs (shared variable or link)
    edges = [(p, q) for p, d in enumerate(adj) for q in d]
    edges += [(ps[0], q) for grp in (cand, rcand) for ps in grp.values() for q in ps]
    n = len(pairs)
    if n:
        g = coo_array(([1] * len(edges), ([e[0] for e in edges], [e[1] for e in edges])),
                      shape=(n, n))
        k, label = connected_components(g, directed=False)
        assert len(comps) == k
        assert all(len({label[p] for p in c}) == 1 for c in comps)


def test_square_and_errors():
    out = bnb.branch_and_bound(SQUARE)
    assert (out.objective, out.bound, out.proven) == (3, 3, True)
    with pytest.raises(InfeasibleAlignmentError, match="mapped twice"):
        matches.count_matches(SQUARE, [(0, 0), (1, 0)])
    with pytest.raises(InfeasibleAlignmentError, match="outside"):
        matches.count_matches(SQUARE, [(0, 5)])


def test_independent_components_are_searched_separately():
    # two copies of SQUARE side by side (variables 0-1 and 2-3): 3 + 3, no interaction
    un = [("a", 0), ("a", 1), ("b", 2), ("b", 3)]
    inst = LatentInstance(4, 4, un, [("r", 0, 1), ("r", 1, 0), ("s", 2, 3), ("s", 3, 2)],
                          un, [("r", 0, 1), ("s", 2, 3)])
    pairs, _, adj = bnb._pure_pairs(inst)
    assert bnb._components(pairs, adj, *bnb._by_variable(pairs)) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    out = bnb.branch_and_bound(inst)
    assert out.proven and out.objective == 6 == latent.solve(inst).objective


def test_solve_bnb_method_and_unproven_status():
    r = latent.solve(SQUARE, "bnb")
    assert r.proven_optimal and r.objective == 3.0 and r.details["proven_by"] == {
        "branch and bound": 1}
    assert r.alignment.shape == (2, 2)  # the problem-level API keeps (k, 2) arrays
    hard = LatentInstance(3, 3, [], [("r", 0, 1), ("r", 1, 2), ("r", 2, 0)], [],
                          [("r", 0, 1), ("r", 1, 2), ("r", 2, 0)])
    cut = bnb.bnb_result(hard, work_limit=1)
    assert cut.status is Status.FEASIBLE and cut.bound >= 3 >= cut.objective


PAIRS = [("(a / alpha :ARG0 (b / beta) :ARG1 (c / gamma))",
          "(x / alpha :ARG0 (y / gamma) :ARG1 (z / beta))"),
         ("(a / alpha :mod (b / beta :polarity -))", "(x / alpha :mod (y / beta))"),
         ("(a / alpha)", "(x / omega)")]


def _graphs():
    from exactalign.io.amr import parse_graph
    return [(parse_graph(t), parse_graph(g)) for t, g in PAIRS]


def test_score_pairs_paths_agree():
    """The branch and bound, the LP path (``bnb_work=0``) and a budget so small that every pair
    falls back give the same optima; every alignment is a tuple of rows."""
    graphs = _graphs()
    runs = [smatch.score_pairs(graphs, bnb_work=w) for w in (None, 0, 1)]
    for sc in runs:
        for p in sc.pairs:
            assert p.exact.proven_optimal and isinstance(p.exact.alignment, tuple)
    objs = [[p.exact.objective for p in sc.pairs] for sc in runs]
    # by hand: pair 1, either three concepts + TOP, or alpha + TOP + both relations (4);
    # pair 2, two concepts + TOP + :mod, the polarity has no partner (4); pair 3, TOP only (1)
    assert objs[0] == objs[1] == objs[2] == [4.0, 4.0, 1.0]
    assert runs[0].pairs[0].exact.details["proven_by"] == {"branch and bound": 1}
    assert "branch and bound" not in runs[1].pairs[0].exact.details["proven_by"]


def test_failures_stop_the_branch_and_bound(monkeypatch):
    graphs = _graphs() * 3
    monkeypatch.setattr(corpus, "BNB_MAX_FAILURES", 2)
    calls = []
    real = bnb.bnb_result

    def spy(inst, **kw):  # every attempt fails: not proven, a bound above its objective
        calls.append(kw["work_limit"])
        r = real(inst, **kw)
        return r.replace(status=Status.FEASIBLE, bound=r.objective + 1)

    monkeypatch.setattr(bnb, "bnb_result", spy)
    sc = smatch.score_pairs(graphs)
    assert len(calls) == 2  # two failures, then the LP path for the rest
    assert all(p.exact.proven_optimal for p in sc.pairs)


def test_small_file_path_imports_no_numpy(tmp_path):
    """The reason the branch and bound is pure Python: ``exactalign smatch`` on pairs it proves
    never imports numpy, scipy or highspy (their imports cost more than the whole run), nor
    dataclasses (with inspect and the classes it generates, about 15 ms of a 0.1 s run)."""
    a, b = tmp_path / "t.amr", tmp_path / "g.amr"
    a.write_text("\n\n".join(t for t, _ in PAIRS) + "\n")
    b.write_text("\n\n".join(g for _, g in PAIRS) + "\n")
    code = ("import sys; from exactalign.cli import main; "
            f"rc = main(['smatch', '-f', {str(a)!r}, {str(b)!r}, '--pairs', '--method', 'both']); "
            "heavy = sorted(m for m in ('numpy', 'scipy', 'highspy', 'dataclasses') "
            "if m in sys.modules); "
            "print('HEAVY', heavy, rc)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "HEAVY [] 0" in out, out


def test_deep_component_is_left_to_the_lp_path():
    """A chain of 450 variables is one component deeper than the search recurses: the branch
    and bound declines it (with a valid bound), and the Smatch path proves it by the LP."""
    n = 450
    un = [(f"c{i}", i) for i in range(n)]
    rel = [(f"r{i}", i, i + 1) for i in range(n - 1)]
    inst = LatentInstance(n, n, un, rel, un, rel)
    out = bnb.branch_and_bound(inst)
    assert not out.proven and out.nodes == 0 and out.bound >= 2 * n - 1 >= out.objective
    r = latent.solve(inst)
    assert r.proven_optimal and r.objective == 2 * n - 1


def test_oversized_instance_is_declined_at_once(monkeypatch):
    monkeypatch.setattr(bnb, "BNB_MAX_SIZE", 3)
    out = bnb.branch_and_bound(SQUARE, [(0, 0)])
    assert (out.proven, out.nodes, out.objective) == (False, 0, 1)
    assert out.bound >= 3  # the trivial bound: every credit once


def test_many_candidate_links_are_declined_before_the_set_up(monkeypatch):
    """More binary triple pairs of equal key than BNB_MAX_SIZE: no pool is built, and the bound
    is the key count bound."""
    monkeypatch.setattr(bnb, "BNB_MAX_SIZE", 1)
    monkeypatch.setattr(bnb, "_pure_pairs", lambda inst: pytest.fail("the set-up ran"))
    assert matches.binary_candidates(SQUARE) == 2  # ("r", 0, 1) against both right triples
    out = bnb.branch_and_bound(SQUARE, [(0, 0), (1, 1)])
    assert (out.proven, out.nodes, out.objective) == (False, 0, 3)
    assert out.bound == matches.count_bound(SQUARE) == 3  # 2 unary + min(2, 1) binary


@settings(max_examples=200, deadline=None)
@given(instances())
def test_key_counts_bound_every_mapping(inst):
    """count_bound is at least the optimum; every pair of pairs comes from a candidate."""
    assert matches.count_bound(inst) >= latent.solve(inst, "brute").objective
    assert matches.binary_candidates(inst) >= len(inst.bin_w)
