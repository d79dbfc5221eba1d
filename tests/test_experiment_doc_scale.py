"""The ``doc_scale`` benchmark (``make bench-doc``): its quick path's plumbing, the documents it
builds, its targets and its score invariant. A benchmark, not a timed test: nothing here asserts
a time."""

import json

import penman
import pytest

from experiments import REGISTRY, doc_scale
from experiments.runner import ExperimentError, read_rows, run_experiment
from experiments.smatch_walltime import _constant, amr_text


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("doc-scale-quick")
    run_experiment("doc_scale", quick=True, out=out, quiet=True)
    return out / "doc_scale"


def test_registered_as_a_benchmark():
    assert REGISTRY["doc_scale"] is doc_scale and doc_scale.IN_ALL is False


def test_quick_rows(quick):
    rows = read_rows(quick / "rows.csv")
    cfg = doc_scale.QUICK
    assert rows and list(rows[0]) == list(doc_scale.COLUMNS)
    assert json.loads((quick / "meta.json").read_text())["quick"] is True
    kinds = [c["name"] for c in cfg["constructions"]]
    assert list(dict.fromkeys(r["construction"] for r in rows)) == kinds == ["apart", "any"]
    pairs = [r for r in rows if r["kind"] == "pair" and r["construction"] == "apart"]
    corpus = [r for r in rows if r["kind"] == "corpus" and r["construction"] == "apart"]
    assert {r["size"] for r in pairs} == set(cfg["pair_variables"])
    assert {r["tool"] for r in pairs} == set(cfg["tools"])
    assert [r["tool"] for r in corpus] == ["exactalign"] * len(cfg["corpus_jobs"])
    # a construction's own sizes; its documents are merged, so fewer variables a sentence
    anys = [r for r in rows if r["kind"] == "pair" and r["construction"] == "any"]
    assert {r["size"] for r in anys} == {40} and {r["tool"] for r in anys} == set(cfg["tools"])
    apart40 = next(r for r in pairs if r["size"] == 40 and r["tool"] == "exactalign")
    any40 = next(r for r in anys if r["tool"] == "exactalign")
    assert any40["sentences"] >= apart40["sentences"]
    for r in rows:
        assert r["status"] == "ok" and not r["error"], r
        assert r["runs"] == cfg["rounds"] and 0 < r["wall_s"]
        assert 0 < r["score"] <= 1
        if r["role"] == "ours":  # no time limit: every pair proven
            assert r["proven_pairs"] == r["documents"]
        if r["kind"] == "pair":  # the fewest sentences reaching the size
            assert r["documents"] == 1 and r["variables_gold"] >= r["size"]
    assert corpus[0]["documents"] == cfg["corpus_docs"]
    assert corpus[0]["variables_gold"] >= cfg["corpus_docs"] * cfg["corpus_variables"]
    for size in cfg["pair_variables"]:  # smatch's hill-climbing never above the optimum
        ours, peer = (next(r for r in pairs if r["size"] == size and r["tool"] == t)
                      for t in ("exactalign", "smatch-r1"))
        assert peer["score"] <= round(ours["score"], 2) + 1e-9
    text = doc_scale.summary(rows)
    assert text.count("\n| apart | pair |") == len(pairs) and "| apart | corpus |" in text
    assert text.count("\n| any | pair |") == len(anys) and "`apart`: variables renamed" in text
    rec = doc_scale.headline(rows)
    assert rec["finding"].startswith("Exact Smatch on held-out documents: largest pair proven")
    (png,) = doc_scale.figures(quick / "rows.csv", quick)
    assert png.name == "doc_scale.png" and png.stat().st_size > 0


def test_window_is_the_fewest_sentences_reaching_the_size():
    from exactalign import synthetic

    sents = synthetic.random_amr_sentences(60, seed=[0, 41])
    for n in (10, 35, 90):
        doc = doc_scale.window(sents, sents, 0, n, 0.5, ("k", n))
        k = doc["sentences"]
        assert len(doc["gold"].variables) >= n
        if k > 1:  # one sentence fewer does not reach n
            fewer = doc_scale._join(sents[:k - 1], 0.5, doc_scale.crc_seed("k", n, "gold"))
            assert len(fewer.variables) < n
    assert doc_scale.window(sents, sents, 0, 10 ** 6, 0.5, ("k",)) is None
    assert doc_scale.window(sents, sents, 60, 1, 0.5, ("k",)) is None


def test_without_the_banks_the_sentences_are_synthetic(monkeypatch):
    monkeypatch.setenv("EXACTALIGN_DATA", "none")
    bk = doc_scale.banks(0, {"concept": 0.1, "role": 0.1}, 30)
    assert list(bk) == ["synthetic"]
    gold, system = bk["synthetic"]
    assert len(gold) == len(system) == 30 and gold != system


def test_constructions_merge_as_named():
    from exactalign import synthetic

    sents = synthetic.random_amr_sentences(40, seed=[0, 41])
    apart = doc_scale.window(sents, sents, 0, 150, 0.0, ("k",))
    merged = doc_scale.window(sents, sents, 0, 150, 0.3, ("k",))
    n = apart["sentences"]  # no merge: every sentence's variables, and the document top
    assert len(apart["gold"].variables) == 1 + sum(len(g.variables()) for g in sents[:n])
    assert merged["sentences"] >= n  # merges take variables away: as many sentences or more
    same = doc_scale._join(sents[:n], 0.3, doc_scale.crc_seed("k", "gold"))
    assert len(same.variables) < len(apart["gold"].variables)
    assert set(doc_scale.CONSTRUCTIONS) == {c["name"] for c in doc_scale.FULL["constructions"]}
    with pytest.raises(ExperimentError, match="unknown construction"):
        doc_scale.units({**doc_scale.QUICK, "constructions": [
            {"name": "bogus", "merge": 0.0, "mentions_only": False}], "corpus_docs": 0})


def test_a_construction_without_peers_runs_ours_alone():
    cfg = doc_scale.FULL
    assert [t["name"] for t in doc_scale.tools(cfg, "pair", peers=False)] == ["exactalign"]
    assert [t["name"] for t in doc_scale.tools(cfg, "pair")] == cfg["tools"]
    assert [t["name"] for t in doc_scale.tools(cfg, "corpus")] == ["exactalign"]
    mentions = next(c for c in cfg["constructions"] if c["name"] == "mentions")
    assert mentions["peers"] is False


def test_targets_are_the_issues():
    assert doc_scale.target_of("pair", 1500, 1) == (15.0, None)
    assert doc_scale.target_of("pair", "3000", 2) == (60.0, 2048.0)
    assert doc_scale.target_of("corpus", 1000, 1) == (600.0, None)
    assert doc_scale.target_of("corpus", 1000, 2) == (None, None)
    assert doc_scale.target_of("pair", 1000, 1) == (None, None)


def test_check_refuses_a_peer_above_the_optimum():
    ours = {"tool": "exactalign", "role": "ours", "status": "ok", "score": 0.7449}
    ok = {"tool": "smatch-r4", "role": "peer", "status": "ok", "score": 0.74}
    doc_scale.check("x", [ours, ok])  # smatch prints two decimals: 0.74 is not above 0.7449
    doc_scale.check("x", [ours, {**ok, "tool": "smatchpp-ilp", "score": 0.9}])  # own triples
    with pytest.raises(ExperimentError, match="above the proven optimum"):
        doc_scale.check("x", [ours, {**ok, "score": 0.75}])


def test_constants_that_are_not_symbols_are_written_as_strings():
    from exactalign.io.amr import graph_from_tree, parse_graph

    assert _constant("ERK1/2") == '"ERK1/2"' and _constant("Paris") == "Paris"
    assert _constant('a"b') == '"a\\"b"'
    g = graph_from_tree(penman.configure(penman.decode(
        '(p / protein :name (n / name :op1 "ERK1/2" :op2 "Ras"))')))
    text = amr_text([g])
    assert '"ERK1/2_"' in text  # smatch's reading of the quoted name, quoted again
    back = parse_graph(text)  # it parses (unquoted, the slash broke it), the same triples
    assert back.num_triples == g.num_triples == 6  # TOP counts too
