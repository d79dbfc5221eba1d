"""Structural perturbations of tables: seeded, valid, each error class doing what it says."""

from __future__ import annotations

import numpy as np
import pytest

from exactalign.io.tables import parse_html
from exactalign.perturb.tables import TableErrors, perturb
from experiments import grits_gap

GOLD = parse_html("<table><tr><td colspan=2>h</td><td>x</td></tr>"
                  "<tr><td>a</td><td>b</td><td>c</td></tr>"
                  "<tr><td rowspan=2>d</td><td>e</td><td>f</td></tr>"
                  "<tr><td>g</td><td>i</td></tr></table>", name="g")


def test_rate_zero_is_the_gold_table():
    p = perturb(GOLD, TableErrors(), 0)
    assert p.table.cells == GOLD.cells and not p.applied


def test_seeded_and_independent_of_global_state():
    a = perturb(GOLD, TableErrors.structural(0.3), np.random.default_rng(5))
    np.random.seed(1)  # global state must not matter
    b = perturb(GOLD, TableErrors.structural(0.3), np.random.default_rng(5))
    assert a.table.cells == b.table.cells and a.applied == b.applied


@pytest.mark.parametrize("kind, check", [
    ("drop_row", lambda t: t.n_rows == 3),
    ("insert_row", lambda t: t.n_rows == 5 and any(c.text == "" for c in t.cells)),
    ("drop_col", lambda t: t.n_cols == 2),
    ("insert_col", lambda t: t.n_cols == 4),
    ("merge", lambda t: len(t.cells) == len(GOLD.cells) - 1),
    ("split", lambda t: len(t.cells) == len(GOLD.cells) + 1),
    ("text", lambda t: [c.text for c in t.cells] != [c.text for c in GOLD.cells]),
])
def test_each_error_class(kind, check):
    # a rate that gives exactly one error of the class on this table
    n = {"drop_row": 4, "insert_row": 4, "drop_col": 3, "insert_col": 3}.get(kind, 10)
    for seed in range(5):
        p = perturb(GOLD, TableErrors(**{kind: 1.0 / n}), seed)
        assert p.applied[kind] == 1 and sum(p.applied.values()) == 1
        assert check(p.table), (kind, p.table)
        assert p.table.holes == 0  # the gold has none; no error class makes one


def test_many_errors_keep_a_valid_table():
    for seed in range(30):
        p = perturb(GOLD, TableErrors.structural(0.5), seed)
        t = p.table
        covered = sum((c.r1 - c.r0) * (c.c1 - c.c0) for c in t.cells)
        assert covered + t.holes == t.size  # make_table checked no overlap


def test_experiment_unit_keeps_the_ceiling_rule():
    cfg = {**grits_gap.QUICK, "scale_rate": 0.3}
    rows = grits_gap._unit({"part": "scale", "source": "synthetic", "shape": [12, 6],
                            "replicate": 0, "config": cfg})
    assert {r["variant"] for r in rows} == {"top", "con"}
    for r in rows:
        assert r["proven_optimal"] and r["factored_tp"] <= r["exact_tp"] + 1e-9
        assert r["exact_tp"] <= r["bound_tp"] + 1e-9
        assert r["gap_f1"] >= 0 and r["slack_f1"] >= 0
