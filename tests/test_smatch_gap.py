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
    write_rows(tmp_path / "rows.csv", rows, exp.COLUMNS)
    back = read_rows(tmp_path / "rows.csv")
    assert "| rename@0 |" in exp.summary(back)
    # without pilot rows the first column of gap_vs_restarts is a perturbed one (it raised
    # ValueError: 'rename' is not in list)
    figs = exp.figures(tmp_path / "rows.csv", tmp_path)
    assert [f.name for f in figs] == list(exp.FIGURES)
    for f in figs:
        data = f.read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000, f.name
