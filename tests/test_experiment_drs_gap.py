"""The drs_gap experiment: synthetic rows (no pilot data), their invariants, summary, headline
and figure; the quick pilot rows (skipped without the pilot's drs/ files)."""

from __future__ import annotations

import random

import pytest

from exactalign import data
from exactalign.data import resolve_data_dir
from experiments import REGISTRY, drs_gap
from experiments.runner import write_rows


def _check(rows, config):
    assert rows and REGISTRY["drs_gap"] is drs_gap
    for r in rows:
        assert set(r) == set(drs_gap.COLUMNS)
        assert r["counter"] <= r["exact"] <= min(r["produced"], r["gold"])
        assert r["proven"] == r["pairs"]
        assert (r["below"] > 0) == (r["short"] > 0) == (r["counter"] < r["exact"])
        assert r["gap_f1"] >= 0 and r["pair_gap_max"] >= 0
    assert {(r["restarts"], r["smart"]) for r in rows} == {
        (k, s) for k in config["restarts"] for s in config["smart"]}


@pytest.fixture(scope="module")
def synthetic_rows():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(data.ENV_VAR, "none")
        return drs_gap.run(drs_gap.QUICK, quiet=True)


def test_synthetic_rows(synthetic_rows, tmp_path):
    _check(synthetic_rows, drs_gap.QUICK)
    assert {r["file"] for r in synthetic_rows} == {"synthetic"}
    assert synthetic_rows[0]["pairs"] == drs_gap.QUICK["synthetic_pairs"]
    with pytest.MonkeyPatch.context() as mp:  # seeded: the same rows again
        mp.setenv(data.ENV_VAR, "none")
        again = drs_gap.run(drs_gap.QUICK, quiet=True)
    keys = ("exact", "counter", "produced", "gold", "below")
    assert [[r[k] for k in keys] for r in again] == [[r[k] for k in keys]
                                                    for r in synthetic_rows]
    text = drs_gap.summary(synthetic_rows)
    assert "| yes | 20 | 1 |" in text
    head = drs_gap.headline(synthetic_rows)
    assert head["instances"] == drs_gap.QUICK["synthetic_pairs"]
    csv = tmp_path / "rows.csv"
    write_rows(csv, synthetic_rows, drs_gap.COLUMNS)
    (png,) = drs_gap.figures(csv, tmp_path)
    assert png.read_bytes().startswith(b"\x89PNG")


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
    rows = drs_gap.run(drs_gap.QUICK, quiet=True)
    _check(rows, drs_gap.QUICK)
    assert {r["file"] for r in rows} == set(drs_gap.QUICK["files"])
    r20 = [r for r in rows if r["restarts"] == 20]
    assert all(r["below"] == 0 for r in r20)  # -r 20 reaches the optimum on these pairs
    assert all(r["published_f1"] is None for r in rows)  # a part of the file: not comparable
    full = drs_gap.published_f1(d.path / "drs", "pmb-3.0.0/en/dev/bert_only/output3.txt")
    assert full == 0.8772
    assert drs_gap._where("pmb-2.2.0/en/test/bert_only/output2.txt") == (
        "pmb-2.2.0", "test", "bert_only/output2.txt")
