"""The corefud_gap experiment: its units are seeded and pilot-free, its rows keep the invariants
(exact proven, staged never above), rankings count reordered system pairs, and the scorer's own
test documents join only through EXACTALIGN_COREFUD_SCORER."""

from __future__ import annotations

import os

import pytest

from exactalign.core.errors import InputError
from experiments import corefud_gap as cg

#: A checkout of the scorer, as tests/test_corefud_peer.py takes it (read before any test
#: changes the variable).
SCORER = os.environ.get("EXACTALIGN_COREFUD_SCORER")
SMALL = {**cg.QUICK, "corpora": 1, "documents": 2, "system_rates": [0.3, 0.5],
         "matches": ["head", "exact"], "zero_matches": ["linear"]}


def test_units_are_seeded_and_pilot_free(monkeypatch):
    monkeypatch.delenv(cg.ENV_VAR, raising=False)
    us = cg.units(SMALL)
    assert len(us) == 1 * 2 * 2 * 1
    assert {u["source"] for u in us} == {"generated"}
    assert cg.DATA_READS == () and cg.DATA_SOURCE.startswith("synthetic only")
    # the same gold for every system of a corpus, the same system on every run
    g1, g2 = cg.gold_corpus(SMALL, 0), cg.gold_corpus(SMALL, 0)
    assert g1 == g2
    assert cg.system_corpus(SMALL, 0, 1, g1) == cg.system_corpus(SMALL, 0, 1, g2)
    assert cg.system_corpus(SMALL, 0, 0, g1) != cg.system_corpus(SMALL, 0, 1, g1)


def test_rows_keep_the_invariants(monkeypatch):
    monkeypatch.delenv(cg.ENV_VAR, raising=False)
    rows = cg.run(SMALL, quiet=True)
    docs = [r for r in rows if r["level"] == "document"]
    corpus = [r for r in rows if r["level"] == "corpus"]
    assert len(corpus) == 4 * len(cg.METRICS)
    assert docs and all(r["status"] == "optimal" for r in rows)
    assert all(r["staged_f1"] <= r["exact_f1"] + 1e-7 for r in rows)
    assert all(r["gap"] == pytest.approx(0, abs=1e-9) for r in rows
               if r["match"] == "exact")            # exact matching, linear zeros
    assert all(not r["quirk"] for r in docs)         # linear zeros: the scorer counts as we do
    text = cg.summary(rows)
    assert "Pilot-free" in text and "EXACTALIGN_COREFUD_SCORER unset" in text
    h = cg.headline(rows)
    assert h["instances"] == len(docs) and h["ranking_unit"] == "system pairs"


def test_rankings_count_reordered_pairs():
    def row(system, metric, staged, exact):
        return dict(level="corpus", source="generated", corpus="c0", match="head",
                    zero_match="linear", system=system, metric=metric, staged_f1=staged,
                    exact_f1=exact)

    rows = [row("s0", "muc", 50, 60), row("s1", "muc", 55, 58), row("s2", "muc", 40, 40)]
    (muc,) = [x for x in cg.rankings(rows) if x["metric"] == "muc"]
    assert (muc["pairs"], muc["changed"]) == (3, 1)   # s0/s1 swap; s2 stays last


def test_the_scorers_documents_join_only_through_the_variable(monkeypatch, tmp_path):
    monkeypatch.setenv(cg.ENV_VAR, str(tmp_path))
    with pytest.raises(InputError, match="tests-corefud"):
        cg.units(SMALL)
    if not SCORER:
        pytest.skip("EXACTALIGN_COREFUD_SCORER not set")
    monkeypatch.setenv(cg.ENV_VAR, SCORER)
    extra = [u for u in cg.units(SMALL) if u["source"] == "scorer-tests"]
    assert extra and all(u["key"].endswith(".key") for u in extra)
    zeros = [u for u in extra if "zeros" in u["corpus"]][:2]
    for u in zeros:   # some have zeros without DEPS: skipped rows under dependent matching
        rows = cg.run_unit(dict(u, zero_match="dependent"))
        assert rows and all(r["skipped"] or r["status"] == "optimal" for r in rows)
