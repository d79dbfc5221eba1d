"""The ``performance`` experiment (``make bench-peers``): its quick path's plumbing and score
invariants. A benchmark, not a timed test: nothing here asserts a time."""

import json
import math
import sys

import numpy as np
import pytest

from experiments import REGISTRY, performance, timing
from experiments.runner import ExperimentError, read_rows, run_experiment


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("performance-quick")
    run_experiment("performance", quick=True, out=out, quiet=True)
    return out / "performance"


def test_registered():
    assert REGISTRY["performance"] is performance


def test_quick_rows_columns_and_runs(quick):
    rows = read_rows(quick / "rows.csv")
    assert rows and list(rows[0]) == list(performance.COLUMNS)
    assert json.loads((quick / "meta.json").read_text())["quick"] is True
    cfg = performance.QUICK
    for r in rows:
        assert r["family"] in performance.FAMILIES
        assert r["role"] in ("ours", "peer")
        assert r["status"] in ("ok", "timeout", "memory", "failed", "skipped")
        if r["status"] == "ok":
            assert r["runs"] == cfg["rounds"]
            assert len(str(r["runs_s"]).split(";")) == cfg["rounds"]
            assert 0 <= r["min_s"] <= r["median_s"]
            assert r["peak_mb"] is None or r["peak_mb"] > 0
            assert r["cpu_median_s"] is None or r["cpu_median_s"] >= 0
            assert r["score"] is not None
        if r["status"] == "skipped":
            assert r["note"]  # says why (an optional peer not configured, say)
    ours = [r for r in rows if r["role"] == "ours" and r["status"] == "ok"]
    assert {r["family"] for r in ours} >= {"smatch-pair", "ceaf", "sequence", "latent"}
    import importlib.metadata

    release = importlib.metadata.version("exactalign")
    assert {r["version"] for r in ours} == {f"exactalign {release}"}
    for r in rows:  # every tool timed says which release or checkout it was
        if r["status"] == "ok" and r["role"] == "peer":
            assert r["version"] and "not installed" not in r["version"], r
    text = performance.summary(rows)
    assert f"Versions timed: exactalign: exactalign {release}" in text


def test_peer_versions_name_the_checkout_commit_and_interpreter(tmp_path):
    import subprocess

    assert performance._dist("no-such-distribution-xyz") == \
        "no-such-distribution-xyz (not installed)"
    assert performance._checkout(str(tmp_path)) == "not a git checkout"
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "scorer.pl").write_text("1;\n")
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git + ["add", "scorer.pl"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "x"], check=True)
    head = subprocess.run(git + ["rev-parse", "--short=12", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    performance._checkout.cache_clear()  # cached per path for a run; the checkout changed
    assert performance._checkout(str(tmp_path)) == f"git {head}"
    (tmp_path / "tracked.pyc").write_bytes(b"\0")
    subprocess.run(git + ["add", "tracked.pyc"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "y"], check=True)
    head = subprocess.run(git + ["rev-parse", "--short=12", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    (tmp_path / "tracked.pyc").write_bytes(b"\1")  # a peer's interpreter rewrote its bytecode
    performance._checkout.cache_clear()
    assert performance._checkout(str(tmp_path)) == f"git {head}"
    (tmp_path / "scorer.pl").write_text("2;\n")
    performance._checkout.cache_clear()
    assert performance._checkout(str(tmp_path)) == f"git {head} (modified)"
    assert performance._interpreter("python", sys.executable).startswith("Python 3.")


def test_quick_invariants_hold_in_the_rows(quick):
    rows = [r for r in read_rows(quick / "rows.csv") if r["status"] == "ok"]
    by = {(r["family"], r["dataset"], r["tool"]): r for r in rows}
    for (fam, ds, tool), r in by.items():
        for ours, peer, rel, tol in performance.CHECKS.get(fam, []):
            if tool != peer or (fam, ds, ours) not in by:
                continue
            a, b = by[(fam, ds, ours)]["score"], r["score"]
            assert (abs(a - b) <= tol) if rel == "eq" else (b <= a + tol), (fam, ds, tool)
    for r in rows:
        if r["tool"] in ("exactalign", "exactalign-dp", "exactalign-declared",
                         "exactalign-exact"):
            assert r["proven"] is True


def test_quick_summary_and_figure(quick):
    rows = read_rows(quick / "rows.csv")
    text = performance.summary([r for r in rows if not r.get("error")])
    assert "| family | dataset | size | ours |" in text and "ratio ours/peer" in text
    assert "CPU time over wall time" in text and "exactalign" in text.split(
        "CPU time over wall time")[1].split("\n")[0]
    head = performance.headline(rows)
    assert head["finding"]
    paths = performance.figures(quick / "rows.csv", quick)
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in paths)


def test_quick_rows_carry_the_models_nonzeros(quick):
    rows = read_rows(quick / "rows.csv")
    pair = [r for r in rows if r["family"] in ("smatch-pair", "latent")]
    assert pair and all(r["model_nnz"] > 0 for r in pair)
    assert all(r["model_nnz"] is None for r in rows
               if r["family"] not in ("smatch-pair", "latent"))
    # the same pair, the same model: smatch-pair's 20 variables as built by hand
    n20 = {r["model_nnz"] for r in rows if r["family"] == "smatch-pair"}
    assert n20 == {performance.model_nnz({"family": "smatch-pair", "n": 20},
                                         performance.QUICK)}


def test_memory_growth_compares_excess_memory_with_the_models_nonzeros():
    def row(size, mb, nnz, tool="exactalign", status="ok"):
        return {"family": "smatch-pair", "tool": tool, "role": "ours", "size": size,
                "status": status, "peak_mb": mb, "model_nnz": nnz}

    # 40 MB of interpreter, then 1 kB per non-zero; the non-zeros grow as size^2
    rows = [row(n, 40 + n * n / 1000, n * n) for n in (10, 100, 200, 400, 800)]
    rows.append(row(1000, None, 10**6, status="memory"))  # not ok: left out
    (mem, nnz, k), = performance.memory_growth(rows).values()
    assert k == 4  # size 10 is the floor itself (excess 0 MB), dropped
    assert mem == pytest.approx(2.0, abs=0.02) and nnz == pytest.approx(2.0)
    assert "memory 2.00, non-zeros 2.00 (4 sizes)" in performance.summary(
        [{**r, "dataset": f"s{r['size']}", "size_unit": "variables", "timing": "command",
          "median_s": 1.0, "min_s": 1.0, "proven": True} for r in rows])
    # rows without non-zeros (the other families) give nothing
    assert performance.memory_growth([{**r, "model_nnz": None} for r in rows]) == {}


def test_scorch_input_and_score(tmp_path):
    from exactalign.io.conll import read_conll

    conll = tmp_path / "key.conll"
    performance.write_conll(conll, [[0, 2], [3]], 5)
    out = tmp_path / "key.json"
    performance.scorch_json(conll, out)
    doc, = read_conll(conll)
    assert json.loads(out.read_text()) == {
        "type": "clusters", "clusters": {str(i): [f"{a}-{b}" for a, b in c]
                                         for i, c in enumerate(doc.clusters)}}
    assert sorted(map(sorted, json.loads(out.read_text())["clusters"].values())) == \
        [["0-0", "2-2"], ["3-3"]]
    assert performance.scorch_ceafe("MUC:\tR=1\tP=1\tF₁=1\nCEAF_e:\tR=0.5\tP=0.25\t"
                                    "F₁=0.3333333333333333\n") == pytest.approx(1 / 3)
    assert performance.scorch_ceafe("nothing") is None


def test_fitted_exponent_recovers_a_power_law():
    sizes = [10, 20, 40, 80]
    assert performance.fitted_exponent(sizes, [3e-4 * n ** 2.5 for n in sizes]) == \
        pytest.approx(2.5)


def test_measure_reports_each_childs_own_peak_memory_and_timeouts():
    # Timing by nature (it tests the benchmark harness's clocks and its timeout), so every
    # timed assertion keeps a wide margin: a sleeping child's CPU (interpreter start, ~20 ms)
    # against half its 0.5 s of wall time; a child killed at 0.5 s against 10 s.
    import sys

    big = timing.measure([sys.executable, "-c", "x = bytearray(200 * 2**20)"])
    small = timing.measure([sys.executable, "-S", "-c", "pass"])
    assert big.ok and small.ok
    assert big.peak_mb > 190 and small.peak_mb < 100  # per child, not the largest so far
    # CPU time is the child's own, not wall time: a sleeping child uses almost none
    nap = timing.measure([sys.executable, "-S", "-c", "import time; time.sleep(0.5)"])
    busy = timing.measure([sys.executable, "-S", "-c", "sum(range(3 * 10**6))"])
    assert nap.ok and busy.ok and 0 <= nap.cpu_s < 0.5 * nap.wall_s and busy.cpu_s > 0
    slow = timing.measure([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.5)
    assert slow.timed_out and not slow.ok and slow.wall_s < 10
    capped = timing.measure([sys.executable, "-c", "x = bytearray(800 * 2**20)"],
                            mem_limit_mb=400)
    assert not capped.ok and "MemoryError" in capped.last_error()


def test_alternating_reverses_order_and_drops_a_stopped_tool():
    calls = []

    def one(tool, rnd):
        calls.append((rnd, tool))
        return timing.Measured(0.0, None, 1 if tool == "b" and rnd == 0 else 0)

    out = timing.alternating(["a", "b", "c"], 3, 1, one, keep=lambda m: m.ok)
    assert calls[:3] == [(-1, "a"), (-1, "b"), (-1, "c")]
    assert calls[3:6] == [(0, "c"), (0, "b"), (0, "a")]
    assert [t for r, t in calls if r > 0] == ["a", "c", "c", "a"]  # b dropped after failing
    assert [(r, t) for r, t, _ in out if t == "b"] == [(0, "b")]


def test_check_raises_on_unequal_scores():
    rows = [{"tool": "exactalign-declared", "role": "ours", "status": "ok", "score": 0.5,
             "proven": True},
            {"tool": "metametric", "role": "peer", "status": "ok", "score": 0.4,
             "proven": True}]
    with pytest.raises(ExperimentError):
        performance._check("latent/x", "latent", rows)
    rows[1]["score"] = 0.5
    performance._check("latent/x", "latent", rows)
    smatch = [{"tool": "exactalign", "role": "ours", "status": "ok", "score": 0.8,
               "proven": True},
              {"tool": "smatch-r1", "role": "peer", "status": "ok", "score": 0.81,
               "proven": False}]
    with pytest.raises(ExperimentError):
        performance._check("smatch-pair/x", "smatch-pair", smatch)


def test_synthetic_inputs_are_seeded_and_sized():
    t1, g1 = performance.amr_pair(50, 0)
    t2, g2 = performance.amr_pair(50, 0)
    assert g1 == g2 and t1 == t2 and len(g1.variables) >= 50
    key, resp = performance.coref_clusters(100, 0)
    assert sum(map(len, key)) == 100 and not math.isnan(len(resp))
    assert sorted(m for e in key for m in e) == list(np.arange(100))


def test_cores_used_is_cpu_over_wall_per_tool():
    rows = [{"tool": "a", "status": "ok", "cpu_median_s": 0.5, "process_median_s": 1.0},
            {"tool": "a", "status": "ok", "cpu_median_s": 3.0, "process_median_s": 2.0},
            {"tool": "b", "status": "ok", "cpu_median_s": None, "process_median_s": 1.0},
            {"tool": "c", "status": "timeout", "cpu_median_s": 9.0, "process_median_s": 1.0}]
    assert performance.cores_used(rows) == {"a": (0.5, 1.5)}


def test_loop_task_times_prepare_first_call_and_steady_state(tmp_path):
    inputs = tmp_path / "inputs.json"
    inputs.write_text(json.dumps({"docs": [1, 2, 3]}))
    code = ("def prepare():\n    return sum(inputs['docs'])\n"
            "def compute(state, n):\n    return {'score': state + sum(inputs['docs'][:n])}\n")
    m = timing.loop_task(code, inputs, 2, timeout=60, min_seconds=0.0, min_calls=4)
    assert m.ok, m.stderr
    r = m.result
    assert r["score"] == 6 + 3 and r["calls"] == 4
    for k in ("setup_seconds", "prepare_seconds", "first_seconds", "seconds", "min_seconds",
              "mean_seconds"):
        assert r[k] >= 0
    assert r["min_seconds"] <= r["seconds"]
    # an unseeded heuristic's scores vary: their range is kept; a proven call's may not vary
    flaky = ("import itertools\nk = itertools.count()\ndef prepare():\n    return None\n"
             "def compute(state, n):\n    return {'score': next(k), 'proven': PROVEN}\n")
    m = timing.loop_task(flaky.replace("PROVEN", "False"), inputs, 1, timeout=60,
                         min_seconds=0.0, min_calls=3)
    assert m.ok and (m.result["score"], m.result["score_min"], m.result["score_max"]) == (0, 0, 3)
    assert not timing.loop_task(flaky.replace("PROVEN", "True"), inputs, 1, timeout=60,
                                min_seconds=0.0).ok


def test_loop_summary_table_ratios_and_heuristic_peers():
    base = {"family": "loop-smatch", "dataset": "x[:10]", "size": 10, "size_unit": "documents",
            "timing": "loop", "status": "ok", "peak_mb": 20.0, "version": "v"}
    rows = [{**base, "tool": "exactalign-exact", "role": "ours", "median_s": 0.001,
             "first_call_s": 0.002, "prepare_s": 0.01, "to_first_s": 0.3, "proven": True},
            {**base, "tool": "smatch-r4", "role": "peer", "median_s": 0.004,
             "first_call_s": 0.004, "prepare_s": None, "to_first_s": 0.1, "proven": False},
            {**base, "family": "coref", "dataset": "c", "tool": "exactalign", "role": "ours",
             "timing": "command", "median_s": 0.2, "first_call_s": None, "proven": True}]
    text = performance.loop_summary(rows)
    line = next(ln for ln in text.splitlines() if ln.startswith("| loop-smatch"))
    assert ("| 10 | exactalign-exact | 1 | 2 | 10 | 300 | smatch-r4 | 4 | 4 | 100 | 0.25 | 0.5 "
            "| 3 |") in line
    assert "Heuristic peers" in text and "smatch-r4" in text.split("Heuristic peers")[1]
    assert "coref" not in text.split("\n\n")[0]  # the command-line rows stay in the main table
    full = performance.summary(rows)
    assert "### In-process" in full and "loop-smatch" not in full.split("### In-process")[0]
    assert "loop-smatch 0.25–0.25x per call" in performance.headline(rows)["finding"]


def test_loop_inputs_are_seeded_and_sized():
    cfg = {**performance.QUICK, "loop_docs": [1, 4], "loop_mentions": 30}
    a, source = performance.loop_inputs("loop-coref", cfg)
    b, _ = performance.loop_inputs("loop-declared", cfg)
    assert a == b and source == "synthetic-30"
    assert len(a["keys"]) == len(a["responses"]) == 4
    assert all(sum(map(len, k)) == 30 for k in a["keys"])
    tools = [t["name"] for t in performance.loop_tools("loop-smatch", cfg)]
    assert tools == ["exactalign-exact", "smatch-r1"]


def test_corpus_families_reach_a_thousand_outside_quick():
    for key in ("corpus_smatch_pairs", "corpus_nugget_docs", "corpus_coref_docs",
                "corpus_te3_docs"):
        assert max(performance.FULL[key]) >= 1000
        assert performance.QUICK[key] == []
    assert set(performance.CORPUS_FAMILIES) <= set(performance.FAMILIES)
    assert set(performance.CORPUS_FAMILIES) <= set(performance.CHECKS)


def test_corpus_inputs_without_pilot_data_are_seeded_and_sized(tmp_path, monkeypatch):
    monkeypatch.setenv("EXACTALIGN_DATA", "none")
    from exactalign.io.amr import read_amr
    from exactalign.io.conll import read_conll
    from exactalign.io.tbf import read_tbf

    cfg = {**performance.FULL, "corpus_smatch_pairs": [7], "corpus_nugget_docs": [9],
           "corpus_coref_docs": [5], "corpus_te3_docs": [4], "loop_families": []}
    corpus = [u for u in performance.units(cfg) if u["family"] in performance.CORPUS_FAMILIES]
    assert [(u["family"], u["size"], u["dataset"].rsplit("-", 1)[0]) for u in corpus] == [
        ("corpus-smatch", 7, "synthetic"), ("corpus-nugget", 9, "synthetic"),
        ("corpus-coref", 5, "synthetic-docs"), ("corpus-te3", 4, "synthetic")]
    texts = []
    for run in ("a", "b"):
        work = tmp_path / run
        work.mkdir()
        test, gold, src = performance.smatch_corpus(7, 0, work)
        assert src == "synthetic" and len(read_amr(test)) == len(read_amr(gold)) == 7
        g, s, src = performance.nugget_corpus(9, 0, work)
        assert src == "synthetic" and len(read_tbf(g).documents) == 9
        assert set(read_tbf(s).documents) == set(read_tbf(g).documents)
        key, resp, skey, sresp = performance.coref_corpus(5, 40, 0, work)
        assert len(read_conll(key)) == len(read_conll(resp)) == 5
        assert len(list(skey.iterdir())) == len(list(sresp.iterdir())) == 5
        gdir, sdir, src = performance.te3_corpus(4, 0, work)
        assert sorted(p.name for p in gdir.iterdir()) == sorted(p.name for p in sdir.iterdir())
        assert len(list(gdir.iterdir())) == 4
        texts.append([p.read_text() for p in (test, gold, g, s, key, resp)]
                     + [p.read_text() for p in sorted(sdir.iterdir())])
    assert texts[0] == texts[1]  # seeded
    assert any(a != b for a, b in zip(
        [p.read_text() for p in sorted((tmp_path / "a" / "gold").iterdir())], texts[0][6:],
        strict=True))  # the system's relations differ from the gold's


def test_cycled_documents_get_new_ids():
    docs = [["#BeginOfDocument A", "s\tA\tm1\t0,3\tx\tt\tActual", "#EndOfDocument"],
            ["#BeginOfDocument B", "#EndOfDocument"]]
    lines = performance._cycled(docs, 5)
    ids = [ln.split()[1] for ln in lines if ln.startswith("#BeginOfDocument")]
    assert ids == ["A", "B", "A__1", "B__1", "A__2"]
    assert "s\tA__2\tm1\t0,3\tx\tt\tActual" in lines


def test_quick_drs_row_proves_every_pair(quick):
    """The ``drs`` family in quick mode: ``exactalign drs --method exact`` on the first 20 DRS
    pairs (the pilot's, else synthetic ones), every pair proven; Counter, when its checkout is
    named, never above it."""
    rows = [r for r in read_rows(quick / "rows.csv") if r["family"] == "drs"]
    by = {r["tool"]: r for r in rows}
    assert set(by) == {"exactalign-exact", "counter-r20"}
    ours = by["exactalign-exact"]
    assert ours["status"] == "ok" and ours["proven"] is True and 0 < ours["score"] <= 1
    assert ours["size"] == 20 and ours["size_unit"] == "DRS pairs"
    peer = by["counter-r20"]
    if peer["status"] == "skipped":
        assert "EXACTALIGN_COUNTER" in peer["note"] or "sense map" in peer["note"]
    else:
        assert peer["status"] == "ok" and peer["score"] <= ours["score"] + 1e-9


def test_drs_outputs_are_parsed_and_every_pair_must_be_proven():
    text = ("[exact] P 0.9078 R 0.8821 F 0.8948 (187 of 206 produced / 212 gold clauses "
            "matched); 20/20 DRS pairs proven optimal\n")
    assert performance.drs_f1(text) == 0.8948
    assert performance.drs_f1("nothing") is None
    with pytest.raises(ExperimentError, match="proved 19 of 20 DRS pairs"):
        performance.drs_f1(text.replace("20/20", "19/20"))
    assert performance.counter_f1("Precision: 0.9078\nRecall   : 0.8821\n"
                                  "F-score  : 0.8948\n") == 0.8948
    assert performance.counter_f1("Comparing 20 DRSs...") is None
    assert performance.CHECKS["drs"] == [("exactalign-exact", "counter-r20", "le", 1e-9)]
    rows = [{"tool": "exactalign-exact", "role": "ours", "status": "ok", "score": 0.8,
             "proven": True},
            {"tool": "counter-r20", "role": "peer", "status": "ok", "score": 0.81,
             "proven": False}]
    with pytest.raises(ExperimentError, match="above exactalign-exact's proven"):
        performance._check("drs/x", "drs", rows)


def test_counter_checkout_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("EXACTALIGN_COUNTER", raising=False)
    assert performance.counter_dir() == (None, "optional peer: set EXACTALIGN_COUNTER to your "
                                               "checkout")
    (tmp_path / "evaluation").mkdir()
    (tmp_path / "evaluation" / "counter.py").write_text("")
    for named in (tmp_path, tmp_path / "evaluation"):  # the checkout, or its evaluation/
        monkeypatch.setenv("EXACTALIGN_COUNTER", str(named))
        assert performance.counter_dir() == (tmp_path / "evaluation", "")
    monkeypatch.setenv("EXACTALIGN_COUNTER", str(tmp_path / "nowhere"))
    path, why = performance.counter_dir()
    assert path is None and "has no counter.py" in why
    monkeypatch.setenv("EXACTALIGN_COUNTER", str(tmp_path))
    monkeypatch.setattr("exactalign.data.wordnet.load_sense_map", lambda: {})
    ours, counter = performance.drs_tools(performance.QUICK)
    p, g = str(tmp_path / "p"), str(tmp_path / "g")
    assert performance.drs_argv(ours, p, g)[-7:] == ["drs", "--method", "exact", "--ill",
                                                     "dummy", p, g]
    assert not counter["skip"] and counter["cwd"] == tmp_path / "evaluation"
    assert performance.drs_argv(counter, p, g)[1:] == [
        str(tmp_path / "evaluation" / "counter.py"), "-g", "clf_signature.yaml", "-ill",
        "dummy", "-r", "20", "-f1", p, "-f2", g]
    # without our sense map Counter's scores are not comparable: skipped, saying why
    monkeypatch.setattr("exactalign.data.wordnet.load_sense_map", lambda: None)
    assert "sense map is not fetched" in performance.drs_tools(performance.QUICK)[1]["skip"]


def test_drs_inputs_without_pilot_data_are_seeded_and_sized(tmp_path, monkeypatch):
    monkeypatch.setenv("EXACTALIGN_DATA", "none")
    from exactalign.io.drs import read_drs_file

    units = [u for u in performance.units({**performance.QUICK, "loop_families": []})
             if u["family"] == "drs"]
    assert units == [{"family": "drs", "dataset": "synthetic[:20]", "n": 20, "size": 20,
                      "size_unit": "DRS pairs"}]
    texts = []
    for run in ("a", "b"):
        work = tmp_path / run
        work.mkdir()
        pred, gold, source = performance.drs_corpus(12, 0, work)
        assert source == "synthetic"
        assert len(read_drs_file(pred)) == len(read_drs_file(gold)) == 12
        texts.append((pred.read_text(), gold.read_text()))
    assert texts[0] == texts[1] and texts[0][0] != texts[0][1]
