"""The corefud_gap experiment: its units are seeded and pilot-free, its rows keep the invariants
(exact proven, staged never above), rankings count reordered system pairs, the scorer's own
test documents join only through EXACTALIGN_COREFUD_SCORER, and real documents (UD
English-GUM, extra data) only when their files are there -- the section says which."""

from __future__ import annotations

import os

import pytest

from exactalign.core.errors import InputError
from experiments import corefud_gap as cg

#: A checkout of the scorer, as tests/test_corefud_peer.py takes it (read before any test
#: changes the variable).
SCORER = os.environ.get("EXACTALIGN_COREFUD_SCORER")
SMALL = {**cg.QUICK, "corpora": 1, "documents": 2, "system_rates": [0.3, 0.5],
         "matches": ["head", "exact"], "zero_matches": ["linear"], "real": None}


def test_units_are_seeded_and_pilot_free(monkeypatch):
    monkeypatch.delenv(cg.ENV_VAR, raising=False)
    us = cg.units(SMALL)
    assert len(us) == 1 * 2 * 2 * 1
    assert {u["source"] for u in us} == {"generated"}
    assert cg.DATA_READS == (cg.GUM,) and cg.DATA_SOURCE.startswith("seeded CorefUD")
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


def _fake_gum(tmp_path):
    """A data directory whose GUM dev file holds two generated documents (with heads)."""
    from exactalign.perturb.corefud import random_document, to_corefud

    folder = tmp_path / cg.GUM
    folder.mkdir(parents=True)
    docs = [random_document(seed, f"GUM_fake_{seed}", sentences=(4, 6), entities=(6, 9))
            for seed in (1, 2)]
    (folder / "en_gum-ud-dev.conllu").write_text(to_corefud(docs), encoding="utf-8")
    return tmp_path


def test_real_documents_join_when_present_and_the_summary_says_which(monkeypatch, tmp_path):
    monkeypatch.delenv(cg.ENV_VAR, raising=False)
    cfg = {**SMALL, "real": {"files": ["en_gum-ud-dev.conllu"], "documents": None}}
    monkeypatch.setattr(cg, "gum_root", lambda: None)
    assert {u["source"] for u in cg.units(cfg)} == {"generated"}
    rows = cg.run(cfg, quiet=True)
    assert "Real documents (UD English-GUM, extra data `coref/ud-english-gum`): not present" \
        in cg.summary(rows)
    assert "real GUM documents not present" in cg.headline(rows)["finding"]

    root = _fake_gum(tmp_path)
    monkeypatch.setattr(cg, "gum_root", lambda: root)
    cfg = {**cfg, "corpora": 0}  # the generated corpora were run above: the GUM units alone
    us = [u for u in cg.units(cfg) if u["source"] == "gum"]
    assert len(us) == 2 * 2 * 1 and {u["corpus"] for u in us} == {"dev"}
    both = [u for u in cg.units({**cfg, "zero_matches": ["dependent", "linear"]})
            if u["source"] == "gum"]
    assert {u["zero_match"] for u in both} == {"dependent"}   # GUM has no zeros
    rows = cg.run(cfg, quiet=True)
    real = [r for r in rows if r["source"] == "gum"]
    docs = [r for r in real if r["level"] == "document"]
    assert {r["document"] for r in docs} == {"GUM_fake_1", "GUM_fake_2"}
    assert all(r["status"] == "optimal" and r["staged_f1"] <= r["exact_f1"] + 1e-7
               for r in real)
    # the same seeded system on every run, another for another rate
    again = cg.run(cfg, quiet=True)
    assert [r["exact_f1"] for r in again if r["source"] == "gum"] == \
        [r["exact_f1"] for r in real]
    text = cg.summary(rows)
    assert "Real documents (UD English-GUM dev, extra data `coref/ud-english-gum`): 2 " \
        "documents" in text and "| gum | head |" in text
    assert "on real UD English-GUM documents (2 documents of up to" in cg.headline(rows)["finding"]
    # documents: only the first N of the file
    cfg1 = {**cfg, "real": {"files": ["en_gum-ud-dev.conllu"], "documents": 1}}
    rows1 = cg.run(cfg1, quiet=True)
    assert {r["document"] for r in rows1 if r["source"] == "gum"
            and r["level"] == "document"} == {"GUM_fake_1"}
