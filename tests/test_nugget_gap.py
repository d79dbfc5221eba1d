"""The nugget_gap experiment: units, ranks, the synthetic fallback and one unit's rows (fast;
the quick run of every experiment is in tests/test_experiments.py)."""

from __future__ import annotations

import pytest

from exactalign.perturb.mentions import ErrorRates
from experiments import nugget_gap
from experiments.runner import ExperimentError


def test_ranks_share_ties():
    assert nugget_gap._ranks([0.5, 0.7, 0.5, 0.1]) == [2, 1, 2, 4]


def test_profiles():
    assert nugget_gap.rates_for("all", 0.2) == ErrorRates.uniform(0.2)
    span = nugget_gap.rates_for("span", 0.2)
    assert span.type == 0.0 and span.realis == 0.0 and span.shift == 0.2
    with pytest.raises(ValueError, match="unknown perturbation profile"):
        nugget_gap.rates_for("nope", 0.1)


def test_synthetic_unit_rows_are_consistent():
    unit = {"group": "synthetic-perturbed-all-0.3", "system": "seed0", "gold": None,
            "profile": "all", "rate": 0.3, "perturb_seed": 0, "repeats": 1,
            "muc_partial": ["half"], "type_credit": [0.5]}
    rows = nugget_gap.run_unit(unit)
    assert all(set(r) == set(nugget_gap.COLUMNS) for r in rows)
    corpus = [r for r in rows if r["level"] == "corpus"]
    # 6 dice mappings twice (equality, type credit 0.5) and 4 MUC ones, 4 combinations each
    assert len(corpus) == (2 * len(nugget_gap.DICE_MAPPINGS) + len(nugget_gap.MUC_MAPPINGS)) * 4
    assert {r["scheme"] for r in corpus} == {"dice", "dice-type0.5", "muc-half"}
    for r in corpus:
        assert r["documents"] == 30 and r["f1"] <= r["exact_f1"] + 1e-9
        if r["mapping"] == "exact":
            assert r["documents_with_gap"] == 0 and r["max_tp_gap"] == 0
    docs = [r for r in rows if r["level"] == "document"]
    for r in docs:
        assert r["exact_tp"] - r["tp"] > nugget_gap.TOL and r["mapping"] != "exact"
    for r in corpus:
        n = sum(1 for d in docs if (d["scheme"], d["mapping"], d["combination"]) ==
                (r["scheme"], r["mapping"], r["combination"]))
        assert n == r["documents_with_gap"]


def test_a_heuristic_above_exact_is_an_error():
    with pytest.raises(ExperimentError, match="beats exact"):
        nugget_gap._gap_rows({}, "x", "kbp", "plain", [("d", 1.0, 0.5, 0.5, 0.4, 1, 1)], {})
