"""The Lagrangian bound of an unfinished exact run (:mod:`exactalign.problems.latent.lagrange`):
the assignment's potentials are its optimal duals, the tightened multipliers bound between the
optimum and the multipliers they start from, and an exact run whose LP stops reports the lower
bound (and says so)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.optimize import linear_sum_assignment, linprog

from exactalign import synthetic
from exactalign.core.deadline import Deadline
from exactalign.core.model import dual_bound_terms
from exactalign.core.outcome import SolveOptions
from exactalign.core.result import Status
from exactalign.io.amr import graph_from_tree
from exactalign.io.docamr import join_sentences
from exactalign.metrics import smatch
from exactalign.perturb.amr import PROFILES, AmrInventory, perturb_graphs
from exactalign.problems import latent
from exactalign.problems.latent import colgen, corpus, lagrange
from exactalign.problems.latent import exact as latent_exact
from tests.test_latent import instances as latent_instances

penman = pytest.importorskip("penman")


def _bound(model, y) -> float:
    return sum(float(t.sum()) for t in dual_bound_terms(model, y))


def _stopped(mp: pytest.MonkeyPatch) -> None:
    """Column generation on any model, one pair per variable to start and per round, stopped
    after its first round (as a time limit stops it)."""
    mp.setattr(colgen, "FIRST_PER_VARIABLE", 1)
    mp.setattr(colgen, "BATCH", 1)
    mp.setattr(colgen, "MAX_ROUNDS", 1)
    mp.setattr(latent_exact, "COLGEN_COLUMNS", 0)


@settings(max_examples=80, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 6)),
              elements=st.sampled_from([0.0, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 7.25])))
def test_the_potentials_are_optimal_duals_of_the_assignment(W):
    r, c = linear_sum_assignment(W, maximize=True)
    u, v = lagrange._potentials(W, r, c, Deadline(None))
    assert (u >= 0).all() and (v >= 0).all()
    assert (u[:, None] + v[None, :] >= W - 1e-12).all()
    assert u.sum() + v.sum() == pytest.approx(W[r, c].sum(), abs=1e-9)
    # the assignment LP's dual optimum, by HiGHS
    a, b = W.shape
    A = np.zeros((a + b, a * b))
    for i in range(a):
        A[i, i * b:(i + 1) * b] = 1
    for j in range(b):
        A[a + j, j::b] = 1
    lp = linprog(-W.ravel(), A_ub=A, b_ub=np.ones(a + b), bounds=(0, 1), method="highs")
    assert u.sum() + v.sum() == pytest.approx(-lp.fun, abs=1e-7)


@settings(max_examples=60, deadline=None)
@given(latent_instances(max_vars=5), st.integers(1, 30))
def test_tightened_multipliers_bound_between_the_optimum_and_where_they_started(inst, steps):
    assume(inst.num_pairs <= 12)
    model = latent.ilp_model(inst)
    assume(model.num_vars > inst.num_pairs)  # linking rows to tighten
    brute, _ = latent.brute_force(inst)
    with pytest.MonkeyPatch.context() as mp:
        _stopped(mp)
        cg = colgen.column_generation(model, inst, SolveOptions())
    y = cg.row_dual
    label = np.zeros(model.num_vars, np.int64)
    tight = lagrange.tighten(model, inst, y, label, [0], np.array([0.0]), SolveOptions(),
                             max_steps=steps)
    assert (tight >= 0).all()
    assert brute <= _bound(model, tight) + 1e-9
    assert _bound(model, tight) <= _bound(model, y) + 1e-6


def test_without_linking_rows_the_multipliers_are_left_as_they_are():
    inst = latent.LatentInstance(2, 2, [("a", 0), ("a", 1)], [], [("a", 0), ("a", 1)], [])
    model = latent.ilp_model(inst)
    y = np.ones(model.num_rows)
    out = lagrange.tighten(model, inst, y, np.zeros(model.num_vars, np.int64), [0],
                           np.array([0.0]), SolveOptions())
    assert (out == y).all()


def _documents():
    """A synthetic document pair (penman graphs, test and gold): twelve random sentences joined
    with merges, against their lexically perturbed copy."""
    bank = synthetic.random_amr_sentences(12, seed=3)
    system = [p.graph for p in perturb_graphs(bank, PROFILES["lexical"],
                                              AmrInventory.from_graphs(bank), seed=1)]
    return join_sentences(system, merge=0.3, seed=2), join_sentences(bank, merge=0.3, seed=1)


def _document_pair():
    test, gold = (graph_from_tree(penman.configure(g)) for g in _documents())
    return smatch.instance_of(smatch.distinct(test)[0], smatch.distinct(gold)[0])


def test_an_exact_run_whose_lp_stops_reports_the_lagrangian_bound():
    inst = _document_pair()
    best = latent.solve(inst, "exact")
    assert best.proven_optimal
    runs = {}
    for tightening in (False, True):
        with pytest.MonkeyPatch.context() as mp:
            _stopped(mp)
            if not tightening:
                mp.setattr(latent_exact, "tighten", lambda model, inst, y, *a, **k: y)
            runs[tightening] = latent.solve(inst, "exact", time_limit=600.0)
    plain, tight = runs[False], runs[True]
    assert plain.status is Status.TIME_LIMIT
    assert "Lagrangian" not in plain.details["stopped"]
    assert best.objective <= tight.bound < plain.bound
    assert tight.objective == latent.check(inst, tight.alignment) <= best.objective
    if tight.status is Status.TIME_LIMIT:
        assert "tightened by the Lagrangian dual" in tight.details["stopped"]
    else:
        assert tight.details["proven_by"] == {"Lagrangian bound": 1}


def test_a_component_too_big_for_its_dense_assignment_is_left_as_it_was(monkeypatch):
    inst = _document_pair()
    model = latent.ilp_model(inst)
    with pytest.MonkeyPatch.context() as mp:
        _stopped(mp)
        y = colgen.column_generation(model, inst, SolveOptions()).row_dual
    monkeypatch.setattr(lagrange, "MAX_DENSE", 0)
    out = lagrange.tighten(model, inst, y, np.zeros(model.num_vars, np.int64), [0],
                           np.array([0.0]), SolveOptions())
    assert (out == np.maximum(y, 0.0)).all()


def test_the_command_gives_the_bound_of_a_corpus_it_did_not_prove(tmp_path, capsys):
    from exactalign.cli import main
    from exactalign.problems.latent import bnb

    paths = [tmp_path / "test.amr", tmp_path / "gold.amr"]
    for path, g in zip(paths, _documents(), strict=True):
        path.write_text(penman.encode(g) + "\n")
    args = ["smatch", "-f", *map(str, paths)]
    assert main(args + ["--json"]) == 0
    optimum = json.loads(capsys.readouterr().out)["overall"]["exact"]["counts"]["matched"]
    assert main(args) == 0
    assert "at most" not in capsys.readouterr().out  # proven: no bound to give
    with pytest.MonkeyPatch.context() as mp:
        _stopped(mp)
        mp.setattr(bnb, "BNB_WORK_LIMIT", 0)
        assert main(args + ["--time-limit", "600"]) == 0
        out = capsys.readouterr().out.splitlines()
        assert out[1].startswith("exact: 0/1 pairs proven optimal")
        bound = int(out[2].split("at most ")[1].split()[0])
        assert out[2] == (f"exact: at most {bound} triples can be matched (the pairs' bounds), "
                          f"F-score at most {out[2].rsplit(' ', 1)[1]}")
        assert optimum <= bound
        assert float(out[0].split()[1]) <= float(out[2].rsplit(" ", 1)[1])
        assert main(args + ["--time-limit", "600", "--json"]) == 0
        json.loads(capsys.readouterr().out)  # one JSON document, nothing else


def test_batches_before_others_take_only_the_first_step():
    """Under a time limit the batches after a stopped one, and the hill-climbing after the last
    with ``--method both``, need the time: only the last batch of a lone exact run steps on."""
    inst = _document_pair()
    seen = []
    real = latent_exact._tighten_open
    with pytest.MonkeyPatch.context() as mp:
        _stopped(mp)
        mp.setattr(latent_exact, "BATCH_COLUMNS", 1)  # one instance a batch
        mp.setattr(latent_exact, "_tighten_open",
                   lambda *a, **k: seen.append(k.get("max_steps")) or real(*a, **k))
        opts = SolveOptions(time_limit=600.0)
        latent.solve_exact_many([inst, inst], options=opts)
        latent.solve_exact_many([inst, inst], options=opts, spare=True)
    assert seen == [1, None, 1, 1]


def test_the_hill_climbing_after_the_exact_path_spares_its_time(monkeypatch):
    from exactalign.problems.latent import bnb

    pair = tuple(graph_from_tree(penman.configure(g)) for g in _documents())
    seen = []
    real = latent_exact.solve_exact_many
    monkeypatch.setattr(latent_exact, "solve_exact_many",
                        lambda *a, **k: seen.append(k.get("spare")) or real(*a, **k))
    monkeypatch.setattr(bnb, "BNB_WORK_LIMIT", 0)
    for method in ("exact", "both"):
        smatch.score_pairs([pair], method=method, restarts=0)
    assert seen == [False, True]


def test_equal_pairs_on_as_many_workers_get_one_each():
    assert [list(p) for p in corpus.chunks([5, 5], 2)] == [[0], [1]]
    for size, workers in (([1, 100, 1], 2), ([1] * 10, 2), ([3], 4), ([2, 2, 2], 1)):
        parts = corpus.chunks(size, workers)
        assert [k for p in parts for k in p] == list(range(len(size)))
        assert len(parts) <= min(len(size), 4 * workers)
    assert len(corpus.chunks([1] * 10, 2)) == 8
