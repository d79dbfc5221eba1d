"""``--time-limit`` bounds the whole exact computation (model building and searches included):
past it a solve returns its incumbent, checked, with a valid bound and status ``time_limit``;
instances too large for a formulation are refused with one clear error, not by exhausting
memory."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings

from exactalign import ModelTooLargeError
from exactalign.core.deadline import Deadline, TimeLimitReached
from exactalign.core.result import Status
from exactalign.problems import latent, monotone
from tests.test_latent import instances as latent_instances


def test_deadline():
    d = Deadline(None)
    assert d.left() is None and not d.expired()
    d.check()
    d = Deadline(0.0)
    assert d.left() == 0.0 and d.expired()
    with pytest.raises(TimeLimitReached, match="time limit of 0 s reached while building"):
        d.check("building")


def _chain_dags(n, seed):
    rng = np.random.default_rng(seed)
    W = (rng.random((n, n)) < 0.3).astype(float)
    edges = [(i, i + 1) for i in range(0, n - 1, 2)]  # many incomparable items: a large relation
    return monotone.MonotoneInstance.dags(W, edges, edges)


def test_monotone_ilp_stops_while_building_and_keeps_a_checked_incumbent(monkeypatch):
    monkeypatch.setattr(monotone, "_COMPOSE_ROWS", 16)  # deadline checks every 16 rows
    inst = _chain_dags(40, 0)
    t0 = time.perf_counter()
    res = monotone.solve(inst, "ilp", time_limit=0.0)
    assert time.perf_counter() - t0 < 5
    assert res.status is Status.TIME_LIMIT
    assert "time limit" in res.details["stopped"]
    assert res.objective == pytest.approx(monotone.check(inst, res.alignment))
    assert res.bound >= monotone.solve(inst, "exact").objective - 1e-9


def test_monotone_compact_ilp_refuses_a_relation_too_large(monkeypatch):
    monkeypatch.setattr(monotone, "COMPACT_MAX_CELLS", 100)
    inst = monotone.MonotoneInstance.sequences(np.ones((4, 4)))
    with pytest.raises(ModelTooLargeError, match="solved exactly by the DP"):
        monotone.solve(inst, "ilp")
    assert monotone.solve(inst, "exact").objective == 4.0  # the DP is unaffected


def test_monotone_cli_all_skips_a_refused_method(monkeypatch, tmp_path, capsys):
    import json

    from exactalign import cli

    monkeypatch.setattr(monotone, "COMPACT_MAX_CELLS", 100)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(list("aaaa")))  # 16 candidate pairs: 256 cells > 100
    b.write_text(json.dumps(list("aaaa")))
    assert cli.main(["monotone", str(a), str(b), "--json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert "ilp" in doc["skipped"] and "ilp" not in doc["results"]
    assert doc["results"]["exact"]["objective"] == 4.0
    assert "warning: method ilp skipped" in err


def test_local_search_honours_the_time_limit():
    inst = _chain_dags(30, 1)
    res = monotone.solve(inst, "local", time_limit=0.0)
    assert res.status is Status.FEASIBLE
    assert res.objective == pytest.approx(monotone.check(inst, res.alignment))
    # with no time the search stops at its greedy start
    assert res.objective == pytest.approx(monotone.solve(inst, "greedy").objective)


@settings(max_examples=15, deadline=None)
@given(latent_instances(max_vars=4))
def test_latent_exact_without_time_keeps_a_valid_bound(inst):
    """No time at all: the LP stops at once, the rounded start is kept, its bound holds."""
    res = latent.solve(inst, "exact", time_limit=0.0)
    best = latent.solve(inst, "brute").objective
    assert res.status in (Status.TIME_LIMIT, Status.OPTIMAL)
    assert res.objective == latent.check(inst, res.alignment)
    assert res.objective <= best + 1e-9 <= res.bound + 2e-9
    if res.status is Status.OPTIMAL:
        assert res.objective == best
