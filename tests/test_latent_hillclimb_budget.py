"""smatch's hill-climber under the command's budgets (issue 36): two 250-variable AMR graphs
with ``exactalign smatch --method both --time-limit 5`` ran on for minutes and ended in a
``MemoryError`` (its memo grew by ~70 MB a step). Now the climb stops at the deadline with the
best mapping reached (status ``time_limit``) and the memo stops memoising at its cap, without
changing any result.

No test here depends on timing: the deadlines run on a clock that advances one second per
reading (:func:`ticking`), so a deadline of N seconds expires after about N checks however
loaded the machine is."""

from __future__ import annotations

import json
import random

import pytest

from exactalign.cli import main
from exactalign.core import deadline as deadline_module
from exactalign.core.deadline import Deadline
from exactalign.core.result import Status
from exactalign.metrics.smatch import instance_of
from exactalign.problems import latent
from exactalign.problems.latent import hillclimb
from experiments.performance import amr_pair


class TickingClock:
    """A ``perf_counter`` that advances one second per reading."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def ticking(monkeypatch):
    """Every :class:`Deadline` (the command's budget included) reads the ticking clock."""
    clock = TickingClock()
    monkeypatch.setattr(deadline_module, "time", clock)
    return clock


def _instance(n: int, seed: int = 0):
    test, gold = amr_pair(n, seed)
    return instance_of(test, gold)


def _valid(inst, rows) -> int:
    """The count of a mapping after checking it is one-to-one between existing variables."""
    left = [a for a, _ in rows]
    right = [b for _, b in rows]
    assert len(set(left)) == len(left) and len(set(right)) == len(right)
    assert all(0 <= a < inst.n_left for a in left) and all(0 <= b < inst.n_right for b in right)
    return latent.count_matches(inst, rows)


def _smart_start(inst, seed: int) -> int:
    c = hillclimb.Climber.of(inst)
    return c.match(c.smart_init(random.Random(seed)))


def test_a_climb_out_of_time_keeps_the_best_mapping_it_reached(ticking):
    inst = _instance(45)
    r = hillclimb.hillclimb_result(inst, 4, seed=0, deadline=Deadline(120))
    assert r.status is Status.TIME_LIMIT and r.details["stopped"] == "time limit"
    assert r.bound is None
    assert len(r.details["rounds"]) < 5  # the rounds left were skipped
    assert _valid(inst, r.alignment) == r.objective
    full = hillclimb.hillclimb_result(inst, 4, seed=0)  # no deadline: smatch's climb
    assert full.status is Status.FEASIBLE and "stopped" not in full.details
    assert len(full.details["rounds"]) == 5
    # the climb only gains: stopped in round 0, it is between its start and its end
    assert _smart_start(inst, 0) <= r.objective <= full.details["rounds"][0] <= full.objective


def test_a_climb_with_no_time_returns_its_smart_initial_mapping():
    inst = _instance(40)
    r = hillclimb.hillclimb_result(inst, 4, seed=3, deadline=Deadline(0.0))
    assert r.status is Status.TIME_LIMIT
    assert r.details["rounds"] == (_smart_start(inst, 3),) == (r.objective,)
    assert _valid(inst, r.alignment) == r.objective


@pytest.mark.parametrize("n, seed", [(20, 0), (30, 1), (40, 2)])
def test_a_full_memo_changes_nothing(n, seed):
    """The memo is a cache of exact counts: capped at 0, at 50 entries or not at all, the
    climb returns the same mapping, counts and random draws."""
    inst = _instance(n, seed)
    outs = []
    for cap in (0, 50, None):
        rng = random.Random(seed)
        r = hillclimb.hillclimb_result(inst, 4, rng=rng, seed=seed, memo_cap=cap)
        outs.append((r.alignment, r.objective, r.details["rounds"], rng.getstate()))
        assert r.status is Status.FEASIBLE
        assert r.details["memo_full"] is (cap is not None)
    assert outs[0] == outs[1] == outs[2]


def test_the_memo_stops_memoising_at_its_cap():
    inst = _instance(45)
    c = hillclimb.Climber.of(inst)
    c.memo_cap = 50
    c.climb(c.smart_init(random.Random(0)))
    assert len(c.memo) == 50 and c.memo_full


def test_memo_capacity(monkeypatch):
    assert hillclimb.memo_capacity(250, budget=2 ** 20) == 2 ** 20 // (8 * 250 + 176)
    assert hillclimb.memo_capacity(10, budget=0) == 0
    monkeypatch.setenv("EXACTALIGN_MEMORY_LIMIT", "80M")  # a share of the memory limit ...
    assert hillclimb.memo_capacity(250) == int(0.125 * 80 * 2 ** 20) // (8 * 250 + 176)
    monkeypatch.setenv("EXACTALIGN_MEMORY_LIMIT", "1T")  # ... and never more than 512 MiB
    assert hillclimb.memo_capacity(250) == 512 * 2 ** 20 // (8 * 250 + 176)


def _penman(g) -> str:
    """An :class:`~exactalign.io.amr.AmrGraph` in PENMAN notation (the synthetic graphs are
    connected from variable 0)."""
    import penman

    names = [f"v{i}" for i in range(len(g.variables))]
    triples = [(names[i], ":instance", c) for _, i, c in g.instances]
    triples += [(names[i], ":" + r, c) for r, i, c in g.attributes if r != "TOP"]
    triples += [(names[i], ":" + r, names[j]) for r, i, j in g.relations]
    return penman.encode(penman.Graph(triples, top=names[0])) + "\n"


def _files(tmp_path, n: int):
    test, gold = amr_pair(n, 0)
    t, g = tmp_path / "test.amr", tmp_path / "gold.amr"
    t.write_text(_penman(test))
    g.write_text(_penman(gold))
    return str(t), str(g)


def test_a_full_memo_climbs_like_smatch_call_for_call(tmp_path, monkeypatch):
    """With its memo capped at 10 entries the climber still returns smatch 1.0.4's count and
    makes its random draws (a 30-variable pair, where smatch's own memo is unbounded)."""
    from tests.test_smatch import _patched_smatch

    sm = _patched_smatch(5, monkeypatch)
    t, g = _files(tmp_path, 30)
    sm.match_triple_dict.clear()
    with open(t) as ft, open(g) as fg:
        theirs, _, _ = sm.get_amr_match(ft.read().replace("\n", " "),
                                        fg.read().replace("\n", " "))
    from exactalign.io.amr import read_pairs

    ((tg, gg),) = read_pairs(t, g)
    rng = random.Random(5)
    r = hillclimb.hillclimb_result(instance_of(tg, gg), 4, rng=rng, memo_cap=10)
    assert r.details["memo_full"] and r.objective == theirs
    assert rng.getstate() == sm.random.getstate()


def test_the_issue_250_variable_pair_stops_at_the_time_limit(tmp_path, capsys, ticking):
    """The issue's case, hill-climbing only: the command's budget (1,000 readings of the
    ticking clock, two steps of the climb) stops it with a valid mapping, one clear line and
    status ``time_limit``; exit 0."""
    t, g = _files(tmp_path, 250)
    args = ["smatch", "-f", t, g, "--method", "hillclimb", "--time-limit", "1000"]
    assert main(args + ["--json", "--pairs"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["solves"]["hillclimb"]["status"] == "time_limit"
    solve = doc["documents"][0]["solves"]["hillclimb"]
    assert solve["status"] == "time_limit"
    from exactalign.io.amr import read_pairs

    ((tg, gg),) = read_pairs(t, g)
    inst = instance_of(tg, gg)
    assert _valid(inst, [tuple(row) for row in solve["alignment"]]) == solve["matched"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "hill-climbing stopped by the time limit on 1 of 1 pairs" in out


def test_the_declared_smatch_greedy_twin_stops_at_the_time_limit(tmp_path, capsys, ticking):
    """``exactalign score --metric smatch --method greedy`` climbs through
    :func:`~exactalign.problems.latent.solve`: the command's budget stops it too."""
    t, g = _files(tmp_path, 40)
    assert main(["score", "--metric", "smatch", "--format", "amr", g, t, "--method", "greedy",
                 "--time-limit", "200", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (metric,) = doc["metrics"]
    assert metric["greedy"]["status"] == "time_limit"
    assert 0 < metric["greedy"]["value"] <= 1
