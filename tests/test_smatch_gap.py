"""The smatch_gap experiment without pilot data, wherever the suite runs: the synthetic bank's
rows, summary and figures (fast; the quick run of every experiment is in
tests/test_experiments.py)."""

from __future__ import annotations

import pytest

from exactalign.data import DataDir
from experiments import smatch_gap as exp
from experiments.runner import read_rows, write_rows

TINY = {**exp.QUICK, "restarts": [0, 4], "seeds": [0], "sample": 8, "sizes": [1, 2],
        "size_instances": 1}


@pytest.fixture
def no_pilot(monkeypatch):
    monkeypatch.setattr(exp, "resolve_data_dir", lambda: DataDir(None, "synthetic"))


def test_synthetic_fallback_rows_summary_and_figures(no_pilot, tmp_path):
    rows = exp.run(TINY, quiet=True)
    assert rows and all(set(r) == set(exp.COLUMNS) for r in rows)
    assert {r["group"] for r in rows} == {"perturbed", "size"}  # no pilot-file rows
    # the CSV alone says the graphs are synthetic, not the gold bank's
    assert {r["dataset"] for r in rows} == {"synthetic-rename@0", "synthetic-relabel@0.3",
                                            "synthetic-size1", "synthetic-size2"}
    write_rows(tmp_path / "rows.csv", rows, exp.COLUMNS)
    back = read_rows(tmp_path / "rows.csv")
    assert "| synthetic-rename@0 |" in exp.summary(back)
    assert "% of synthetic AMR-like pairs" in exp.headline(back)["finding"]
    hc = [r for r in back if r["method"] == "hillclimb" and r["group"] != "size"]
    assert exp._panel_groups(hc) == [("perturbed synthetic trees, rate 0.3",
                                      ["synthetic-rename@0", "synthetic-relabel@0.3"])]
    # without pilot rows the first column of gap_vs_restarts is a perturbed one (it raised
    # ValueError: 'rename' is not in list)
    figs = exp.figures(tmp_path / "rows.csv", tmp_path)
    assert [f.name for f in figs] == list(exp.FIGURES)
    for f in figs:
        data = f.read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000, f.name


def test_panel_groups_with_pilot_files_title_the_gold_bank():
    hc = [{"dataset": n, "group": g} for n, g in (
        ("lp_jamr_vs_gold", "pilot"), ("rename@0", "perturbed"), ("drop@0.1", "perturbed"),
        ("drop@0.5", "perturbed"))]
    assert exp._panel_groups(hc) == [("pilot AMR files", ["lp_jamr_vs_gold"]),
                                     ("perturbed gold, rate 0.1", ["rename@0", "drop@0.1"]),
                                     ("perturbed gold, rate 0.5", ["drop@0.5"])]
