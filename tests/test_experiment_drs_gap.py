"""The drs_gap experiment: synthetic rows (no pilot data), their invariants, summary, headline
and figures; the five-run part (experiments.drs_noise) on handmade numbers; the quick pilot rows
(skipped without the pilot's drs/ files)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from exactalign import data
from exactalign.data import resolve_data_dir
from experiments import REGISTRY, drs_gap, drs_noise
from experiments.runner import completed_rows, write_rows


def _kind(rows, kind):
    return [r for r in rows if r["kind"] == kind]


def _check(all_rows, config):
    assert all_rows and REGISTRY["drs_gap"] is drs_gap
    assert all(set(r) == set(drs_gap.COLUMNS) for r in all_rows)
    rows = _kind(all_rows, "file")
    for r in rows + _kind(all_rows, "noise"):
        assert r["counter"] <= r["exact"] <= min(r["produced"], r["gold"])
        assert r["proven"] == r["pairs"]
        assert (r["below"] > 0) == (r["short"] > 0) == (r["counter"] < r["exact"])
        assert r["gap_f1"] >= 0 and r["pair_gap_max"] >= 0
    assert {(r["restarts"], r["smart"]) for r in rows} == {
        (k, s) for k in config["restarts"] for s in config["smart"]}
    systems = _kind(all_rows, "system")
    assert len(systems) == len(drs_noise.five_run_systems(sorted({r["file"] for r in rows})))
    for r in systems:
        assert r["mean_counter"] <= r["mean_exact"]
        assert r["ci_lo_exact"] < r["mean_exact"] < r["ci_hi_exact"]
    noisy = [r for r in systems if r["noise_seeds"]]
    assert len(noisy) == min(config["noise_systems"] or len(systems), len(systems))
    assert all(r["noise_seeds"] == config["noise_seeds"] for r in noisy)
    assert all(r["noise_runs"] == len(config["noise_runs"]) for r in noisy)
    assert len(_kind(all_rows, "noise")) == config["noise_seeds"] * len(noisy) * len(
        config["noise_runs"])
    k = len(systems)  # every five-run system is of one release and split here
    assert len(_kind(all_rows, "pair")) == k * (k - 1) // 2


@pytest.fixture(scope="module")
def synthetic_rows():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(data.ENV_VAR, "none")
        return drs_gap.run(drs_gap.QUICK, quiet=True)


def test_synthetic_rows(synthetic_rows, tmp_path):
    _check(synthetic_rows, drs_gap.QUICK)
    files = _kind(synthetic_rows, "file")
    assert {r["file"] for r in files} == set(drs_gap.synthetic_files(drs_gap.QUICK))
    assert len(files) == 2 * 5 * len(drs_gap.QUICK["restarts"])
    assert {r["pairs"] for r in files} == {drs_gap.QUICK["synthetic_pairs"]}
    assert [r["system"] for r in _kind(synthetic_rows, "system")] == ["rate0.2", "rate0.3"]
    (pair,) = _kind(synthetic_rows, "pair")  # a system with more noise scores lower
    assert pair["delta"] > 0 and pair["mean_delta"] > 0 and pair["significant"]
    with pytest.MonkeyPatch.context() as mp:  # seeded: the same rows again
        mp.setenv(data.ENV_VAR, "none")
        again = drs_gap.run(drs_gap.QUICK, quiet=True)
    keys = ("exact", "counter", "produced", "gold", "below", "mean_counter", "noise_sd",
            "p_bootstrap")
    assert [[r[k] for k in keys] for r in again] == [[r[k] for k in keys]
                                                    for r in synthetic_rows]
    text = drs_gap.summary(synthetic_rows)
    assert "| yes | 20 | 10 |" in text and "| synthetic | - | rate0.2 |" in text
    head = drs_gap.headline(synthetic_rows)
    assert head["instances"] == 10 * drs_gap.QUICK["synthetic_pairs"]
    assert "restart noise" in head["finding"] or "no restart noise" in head["finding"]
    csv = tmp_path / "rows.csv"
    write_rows(csv, synthetic_rows, drs_gap.COLUMNS)
    assert drs_gap.summary(completed_rows(csv)) == text  # the summary is the CSV's
    pngs = drs_gap.figures(csv, tmp_path)
    assert [p.name for p in pngs] == list(drs_gap.FIGURES)
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in pngs)


def test_restart_noise_is_zero_when_every_seed_reaches_the_optimum():
    # lightly perturbed small DRSs: Counter's -r 20 reaches the optimum on every pair under
    # every seed, so run 1's corpus F is the same under all of them
    cfg = {**drs_gap.QUICK, "synthetic_pairs": 15, "noise_seeds": 4}
    out = drs_gap._noise_unit({"file": "synthetic/rate0.1/output1.txt", "config": cfg,
                               "noise": True, "seeds": 4, "counts": True})
    assert len(out["rows"]) == 4
    assert all(r["counter"] == r["exact"] and r["below"] == 0 for r in out["rows"])
    assert [m for m, _, _ in out["counts"]["counter"]] == [m for m, _, _ in
                                                          out["counts"]["exact"]]
    files = [{"kind": "file", "release": "synthetic", "split": "-", "system": f"s/output{n}.txt",
              "file": f"synthetic/s/output{n}.txt", "smart": True, "restarts": 20, "pairs": 15,
              "wordnet": False, "counter_f1": f, "exact_f1": f, "published_f1": f + 0.01}
             for n, f in enumerate([0.80, 0.82, 0.81, 0.83, 0.84], 1)]
    noise = [{**r, "file": "synthetic/s/output1.txt"} for r in out["rows"]]
    (row,) = drs_noise.system_rows(files + noise)
    assert row["noise_sd"] == 0 and row["noise_share"] == 0 and row["noise_below"] == 0
    # an F whose float SD is not 0 (np.std of 20 x 0.8775 is 1.1e-16): exactly 0 all the same
    noise = [{"kind": "noise", "file": "synthetic/s/output1.txt", "counter_f1": 0.8775,
              "below": 0}] * 20
    assert drs_noise.system_rows(files + noise)[0]["noise_sd"] == 0.0


def test_system_rows_by_hand():
    # five runs, F 0.80 ... 0.84: mean 0.82, SD (ddof=1) sqrt(0.001/4) = 0.0158114, t(0.975, 4)
    # = 2.776445, half-width 2.776445 * 0.0158114 / sqrt(5) = 0.0196324
    files = [{"kind": "file", "release": "r", "split": "dev", "system": f"{s}/output{n}.txt",
              "file": f"r/dev/{s}/output{n}.txt", "smart": True, "restarts": 20, "pairs": 9,
              "wordnet": True, "counter_f1": f - d, "exact_f1": f, "published_f1": f}
             for s, d, fs in (("a", 0.0, [0.80, 0.82, 0.81, 0.83, 0.84]),
                              ("b", 0.03, [0.815, 0.825, 0.82, 0.83, 0.82]))
             for n, f in enumerate(fs, 1)]
    # restart noise: run 1's F 0.80, 0.79, 0.80 (variance 3.3333e-5), run 2's 0.81 three times
    # (0): pooled SD sqrt(1.6667e-5) = 0.0040825
    noise = [{"kind": "noise", "file": f"r/dev/a/output{n}.txt", "counter_f1": f, "below": b}
             for n, f, b in ((1, 0.80, 0), (1, 0.79, 1), (1, 0.80, 0), (2, 0.81, 0),
                             (2, 0.81, 0), (2, 0.81, 0))]
    a, b = drs_noise.system_rows(files + noise)
    assert a["mean_exact"] == pytest.approx(0.82)
    assert a["sd_exact"] == pytest.approx(0.0158114, abs=1e-7)
    assert (a["ci_lo_exact"], a["ci_hi_exact"]) == pytest.approx((0.8003676, 0.8396324),
                                                                 abs=1e-7)
    assert a["noise_sd"] == pytest.approx(0.0040825, abs=1e-7) and a["noise_below"] == 1
    assert (a["noise_runs"], a["noise_seeds"]) == (2, 3)
    assert a["noise_share"] == pytest.approx((0.0040825 / 0.0158114) ** 2, rel=1e-5)
    assert b.get("noise_sd") is None and "noise_share" not in b
    # b: 0.822 under the optimum (above a's 0.82), 0.792 under Counter (below a's)
    assert (a["rank_exact"], b["rank_exact"], a["rank_counter"], b["rank_counter"]) == (
        2, 1, 1, 2)
    assert drs_noise.order_changes({"a": a["mean_counter"], "b": b["mean_counter"]},
                                   {"a": a["mean_exact"], "b": b["mean_exact"]}) == (1, 1)


def test_t_interval_is_the_published_one():
    # PMB 2.2.0 dev bert_only, eval.txt: "Confidence interval: [0.8502, 0.8584]"
    _, sd, lo, hi = drs_noise.t_interval([0.8487, 0.8557, 0.8571, 0.856, 0.8539])
    assert (round(lo, 4), round(hi, 4)) == (0.8502, 0.8584)
    assert sd * np.sqrt(4 / 5) == pytest.approx(0.002973482806407319)  # its SD line: ddof=0
    with pytest.raises(ValueError):
        drs_noise.t_interval([0.8])


def test_order_changes_and_five_run_systems():
    a = {"x": 1.0, "y": 2.0, "z": 3.0}
    assert drs_noise.order_changes(a, {"x": 1.0, "y": 3.0, "z": 2.0}) == (1, 3)
    assert drs_noise.order_changes(a, {"x": 2.0, "y": 2.0, "z": 3.0}) == (1, 3)  # a tie
    assert drs_noise.order_changes(a, {**a, "w": 0.0}) == (0, 3)  # keys of both only
    files = ["r/dev/boxer.txt", *(f"r/dev/s/output{n}.txt" for n in (3, 1, 2, 5, 4)),
             *(f"r/dev/m/output{n}.seq.drs.res" for n in range(1, 6)),
             *(f"r/dev/four/output{n}.txt" for n in range(1, 5))]
    assert drs_noise.five_run_systems(files) == {
        "r/dev/m": [f"r/dev/m/output{n}.seq.drs.res" for n in range(1, 6)],
        "r/dev/s": [f"r/dev/s/output{n}.txt" for n in range(1, 6)]}


def test_pair_rows_flip_a_significance_verdict():
    # 40 DRSs of 10 gold clauses: a matches 8 on each under Counter and the optimum; b matches
    # 6 under Counter but 9 under the optimum -- the order flips and both verdicts are
    # significant, so the verdict changes
    a = {"kind": "system", "release": "r", "split": "dev", "system": "a", "file": "r/dev/a",
         "pairs": 40, "wordnet": True, "mean_counter": 0.8, "mean_exact": 0.8}
    b = {**a, "system": "b", "file": "r/dev/b", "mean_counter": 0.6, "mean_exact": 0.9}
    counts = {"r/dev/a": {"counter": [[8, 10, 10]] * 40, "exact": [[8, 10, 10]] * 40},
              "r/dev/b": {"counter": [[6, 10, 10]] * 40, "exact": [[9, 10, 10]] * 40}}
    (row,) = drs_noise.pair_rows([a, b], counts, samples=500, seed=1)
    assert row["delta"] == pytest.approx(0.2) and row["delta_exact"] == pytest.approx(-0.1)
    assert row["significant"] and row["significant_exact"]
    assert row["flipped"] and row["verdict_changed"] and row["mean_flipped"]
    assert row["mean_delta_published"] is None and "published_flipped" not in row


def test_synthetic_drss_are_perturbed_and_renamed():
    rng = random.Random(5)
    for _ in range(30):
        g = drs_gap.synthetic_drs(rng)
        assert all(len(c) in (3, 4) for c in g)
        p = drs_gap.perturbed(g, rng)
        assert all(f[0] not in "bx" or not f[1:].isdigit() for c in p for f in (c[0], *c[2:]))


def test_pilot_rows():
    d = resolve_data_dir()
    if d.path is None or not (d.path / "drs" / "systems").is_dir():
        pytest.skip("DRS pilot files absent")
    all_rows = drs_gap.run(drs_gap.QUICK, quiet=True)
    _check(all_rows, drs_gap.QUICK)
    rows = _kind(all_rows, "file")
    assert {r["file"] for r in rows} == set(drs_gap.QUICK["files"])
    r20 = {r["file"]: r["below"] for r in rows if r["restarts"] == 20}
    # -r 20 reaches the optimum on every pair here; the smart mapping alone (-r 1) does not
    assert set(r20.values()) == {0}
    r1 = {r["file"]: r["below"] for r in rows if r["restarts"] == 1}
    assert r1["pmb-2.2.0/en/dev/bert_char_1enc/output2.txt"] == 2
    assert sum(r1.values()) == 17
    # PMB 2.2.0 by the Counter that published it (tag v.2.2.0), 3.0.0 and 2.1.0 by today's
    assert {(r["release"], r["scorer"]) for r in rows} == {
        ("pmb-2.2.0", "v.2.2.0"), ("pmb-3.0.0", "190838f"), ("pmb-2.1.0", "190838f")}
    assert all(r["published_f1"] is None for r in rows)  # a part of the file: not comparable
    a, b = _kind(all_rows, "system")
    assert (a["system"], b["system"]) == ("bert_char_1enc", "bert_only")
    assert a["mean_exact"] == a["mean_counter"] and b["mean_exact"] == b["mean_counter"]
    # restart noise: runs 1 and 2 reach the optimum under each of the 3 seeds (an SD of 0,
    # not NumPy's 1e-16 of equal values)
    assert (a["noise_runs"], a["noise_below"], a["noise_sd"]) == (2, 0, 0.0)
    (pair,) = _kind(all_rows, "pair")
    assert not pair["flipped"] and not pair["verdict_changed"]
    full = drs_gap.published_f1(d.path / "drs", "pmb-3.0.0/en/dev/bert_only/output3.txt")
    assert full == 0.8772
    assert drs_gap._where("pmb-2.2.0/en/test/bert_only/output2.txt") == (
        "pmb-2.2.0", "test", "bert_only/output2.txt")
