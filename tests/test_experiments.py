"""Smoke tests of the experiment runner: the quick path of every registered experiment, in
process, into a temporary folder; plus the runner's pieces and the synthetic generator."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from exactalign import data, synthetic
from exactalign.core.errors import InputError
from exactalign.core.result import Result, Status
from exactalign.data import DataDir, resolve_data_dir
from experiments import REGISTRY, bipartite_scaling, smatch_walltime
from experiments.__main__ import main
from experiments.runner import (
    META_KEYS,
    ExperimentError,
    config_for,
    git_info,
    make_figures,
    parallel_map,
    read_header,
    read_rows,
    write_rows,
)

ROOT = Path(__file__).resolve().parent.parent
#: What ``run --all`` runs: every experiment but the benchmarks that want the machine alone
#: (``performance``: make bench-peers; its quick path is tests/test_experiment_performance.py).
IN_ALL = [n for n, m in REGISTRY.items() if getattr(m, "IN_ALL", True)]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def quick_out(tmp_path_factory) -> Path:
    """Every experiment of ``--all``: its quick path plus figures, through the CLI."""
    out = tmp_path_factory.mktemp("results-quick")
    assert main(["run", "--all", "--quick", "--out", str(out), "--quiet"]) == 0
    assert main(["figures", "--out", str(out), "--quiet"]) == 0
    return out


#: ``make experiments-synthetic`` (CI runs it) writes every experiment's quick path with the
#: pilot data switched off into a folder, then checks it with the no-data test below named by
#: this variable: the suite need not run the same experiments a second time.
NO_DATA_RESULTS = "EXACTALIGN_NO_DATA_RESULTS"
#: Where the pilot data is here and no such folder is named, the no-data run would repeat every
#: quick experiment (about a minute of CPU): ``slow`` then, as ``make experiments-synthetic``
#: (CI) and every clone without the data (where it is ``quick_out`` itself) check it.
NO_DATA_MARKS = ([pytest.mark.slow] if resolve_data_dir().available
                 and not os.environ.get(NO_DATA_RESULTS) else [])


@pytest.fixture(scope="module")
def quick_out_no_data(request, tmp_path_factory) -> Path:
    """The same as a user's clone without pilot data gets it, wherever the suite runs: no
    ``$EXACTALIGN_DATA``, no ``../shared/pilot`` beside the checkout (``quick_out`` itself when
    there is no pilot data here either; the folder ``$EXACTALIGN_NO_DATA_RESULTS`` names when
    ``make experiments-synthetic`` wrote it)."""
    named = os.environ.get(NO_DATA_RESULTS)
    if named:
        out = Path(named)
        assert (out / "SUMMARY.md").is_file(), f"{NO_DATA_RESULTS}={named}: no SUMMARY.md there"
        assert not resolve_data_dir().available, "name the folder with the data switched off"
        return out
    if not resolve_data_dir().available:
        return request.getfixturevalue("quick_out")
    out = tmp_path_factory.mktemp("results-quick-no-data")
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv(data.ENV_VAR, raising=False)
        clone = tmp_path_factory.mktemp("fresh-clone")
        mp.setattr(data, "SHARED", clone.parent / "shared" / "pilot")
        mp.setenv(data.CACHE_VAR, str(clone / "empty-cache"))  # nothing fetched either
        assert not resolve_data_dir().available
        assert main(["run", "--all", "--quick", "--out", str(out), "--quiet"]) == 0
        assert main(["figures", "--out", str(out), "--quiet"]) == 0
    return out


# ------------------------------------------------------------------------------------------
# the quick path of every experiment
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", IN_ALL)
def test_rows_csv_has_declared_columns_and_rows(quick_out, name):
    csv_path = quick_out / name / "rows.csv"
    assert read_header(csv_path) == list(REGISTRY[name].COLUMNS)
    rows = read_rows(csv_path)
    assert len(rows) > 0
    assert all(set(r) == set(REGISTRY[name].COLUMNS) for r in rows)


@pytest.mark.parametrize("name", IN_ALL)
def test_meta_json_records_the_run(quick_out, name):
    meta = json.loads((quick_out / name / "meta.json").read_text())
    assert set(META_KEYS) <= set(meta)
    assert meta["experiment"] == name
    assert meta["quick"] is True
    assert meta["config"] == json.loads(json.dumps(REGISTRY[name].QUICK))
    assert meta["seeds"]["seed"] == REGISTRY[name].QUICK["seed"]
    for dist in ("exactalign", "highspy", "scipy", "pulp"):
        assert meta["versions"][dist], dist
    assert meta["python"]["version"].count(".") == 2
    assert "commit" in meta["git"]  # may be None outside a checkout, but the key is there
    assert meta["machine"]["platform"] and meta["machine"]["cpu_count"] >= 1
    assert meta["wall_time_s"] > 0
    assert meta["data"]["data_dir"] == resolve_data_dir().describe()
    assert meta["data"]["used"] == REGISTRY[name].DATA_SOURCE
    assert meta["rows"] == len(read_rows(quick_out / name / "rows.csv"))
    assert meta["jobs"] == 1


def test_summary_mentions_every_experiment_with_a_table(quick_out):
    text = (quick_out / "SUMMARY.md").read_text()
    for name in IN_ALL:
        assert f"## {name}" in text
        for fig in REGISTRY[name].FIGURES:
            assert f"({name}/{fig})" in text
    assert "|---" in text


def test_summary_opens_with_one_headline_line_per_experiment(quick_out):
    text = (quick_out / "SUMMARY.md").read_text()
    opening = text[:text.index("\n## ")]
    table = [ln for ln in opening.splitlines() if ln.startswith("| [")]
    assert [ln.split("]")[0][3:] for ln in table] == IN_ALL
    assert "performance" in REGISTRY and "performance" not in IN_ALL
    for ln in table:
        if "No headline" in ln:  # optional for a new experiment: still its line
            continue
        assert "headline() failed" not in ln, ln
        assert ln.count(" | ") == 5, ln  # six cells: name, heuristic, below, gap, ranks, finding
    assert "Every section was produced at commit" in opening or "different commits" in opening
    assert "Versions: " in opening and "Configs: quick" in opening


@pytest.mark.parametrize("name", IN_ALL)
def test_figures_exist_and_are_png(quick_out, name):
    assert REGISTRY[name].FIGURES
    # Figures of pilot-only parts (PILOT_FIGURES) say "pilot data absent" when it is.
    placeholders = () if resolve_data_dir().available else getattr(REGISTRY[name],
                                                                   "PILOT_FIGURES", ())
    for fig in REGISTRY[name].FIGURES:
        data = (quick_out / name / fig).read_bytes()
        assert data.startswith(PNG_MAGIC), fig
        if fig not in placeholders:
            assert len(data) > 10_000, fig  # a real plot, not an empty canvas
        pdf, svg = (quick_out / name / fig).with_suffix(".pdf"), \
            (quick_out / name / fig).with_suffix(".svg")
        assert pdf.read_bytes().startswith(b"%PDF"), pdf  # vector files beside every PNG
        assert b"<svg" in svg.read_bytes()[:2000], svg


@pytest.mark.parametrize("name", [pytest.param(n, marks=NO_DATA_MARKS) for n in IN_ALL])
def test_without_pilot_data_every_experiment_runs_and_says_so(quick_out_no_data, name):
    folder = quick_out_no_data / name
    rows = read_rows(folder / "rows.csv")
    assert rows and not any(r["error"] for r in rows), name
    meta = json.loads((folder / "meta.json").read_text())
    # (switched off by ``$EXACTALIGN_DATA=none`` when make experiments-synthetic wrote it)
    assert meta["data"]["data_dir"] == (resolve_data_dir() if os.environ.get(NO_DATA_RESULTS)
                                        else DataDir(None, "synthetic")).describe()
    # its SUMMARY section says so beyond the description and the Run line's Data sentence
    # (which names both cases), unless the experiment never reads pilot data
    text = (quick_out_no_data / "SUMMARY.md").read_text()
    section = text.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]
    body = "\n".join(ln for ln in section.splitlines()
                     if ln != REGISTRY[name].DESCRIPTION and not ln.startswith("Run: "))
    if not REGISTRY[name].DATA_SOURCE.startswith("synthetic only"):
        assert any(s in body for s in ("synthetic", "no pilot data", "pilot data absent")), name
    for fig in REGISTRY[name].FIGURES:
        png = (folder / fig).read_bytes()
        assert png.startswith(PNG_MAGIC), fig
        if fig not in getattr(REGISTRY[name], "PILOT_FIGURES", ()):
            assert len(png) > 10_000, fig  # a real plot, not an empty canvas


def test_cli_list_subprocess():
    p = subprocess.run([sys.executable, "-m", "experiments", "list"], cwd=ROOT,
                       capture_output=True, text=True, timeout=60, check=False)
    assert p.returncode == 0, p.stderr
    for name in REGISTRY:
        assert name in p.stdout


def test_cli_rejects_unknown_experiment_and_missing_results(tmp_path, capsys):
    assert main(["run", "no_such_experiment", "--out", str(tmp_path)]) == 2
    assert "no_such_experiment" in capsys.readouterr().err
    assert main(["figures", "--out", str(tmp_path / "absent")]) == 2
    assert not (tmp_path / "absent").exists()
    with pytest.raises(SystemExit):
        main(["run", "--all", "bipartite_scaling"])  # --all and names are exclusive
    with pytest.raises(SystemExit):
        main(["run", "--all", "--jobs", "0"])


# ------------------------------------------------------------------------------------------
# bipartite_scaling contents
# ------------------------------------------------------------------------------------------
def test_bipartite_scaling_quick_rows_are_consistent(quick_out):
    rows = read_rows(quick_out / "bipartite_scaling" / "rows.csv")
    cfg = bipartite_scaling.QUICK
    n_inst = len(cfg["sizes"]) * cfg["replicates"] * len(cfg["weights"])
    assert len(rows) == n_inst * len(bipartite_scaling.METHODS)
    assert {r["size"] for r in rows} == set(cfg["sizes"])
    by_inst: dict = {}
    for r in rows:
        by_inst.setdefault((r["weights"], r["instance_seed"]), {})[r["method"]] = r
    assert len(by_inst) == n_inst
    for methods in by_inst.values():
        assert set(methods) == set(bipartite_scaling.METHODS)
        ex, ilp = methods["exact"], methods["ilp"]
        assert ex["status"] == "optimal" and ex["proven_optimal"] is True
        assert ex["bound"] == pytest.approx(ex["objective"])
        assert ilp["skipped"] is False and ilp["status"] == "optimal"
        assert ilp["objective"] == pytest.approx(ex["objective"], abs=1e-6)
        for h in bipartite_scaling.HEURISTICS:
            r = methods[h]
            assert r["objective"] <= ex["objective"] + 1e-6
            assert r["rel_gap"] == pytest.approx((ex["objective"] - r["objective"])
                                                 / ex["objective"])
            assert r["time_s"] > 0
        assert ex["num_pairs"] > 0 and ex["ilp_build_s"] > 0
    # The heuristics are not optimal on these instances: some gap must show up.
    assert max(r["rel_gap"] for r in rows if r["method"] == "greedy") > 0


def test_ilp_skipped_above_limit_is_recorded():
    cfg = {**bipartite_scaling.QUICK, "sizes": [10, 30], "replicates": 1,
           "weights": ["uniform"], "ilp_max_size": 10, "repeats": 1}
    rows = bipartite_scaling.run(cfg, quiet=True)
    ilp = {r["size"]: r for r in rows if r["method"] == "ilp"}
    assert ilp[10]["skipped"] is False and ilp[10]["status"] == "optimal"
    assert ilp[30]["skipped"] is True and ilp[30]["time_s"] is None
    assert "ilp_max_size" in ilp[30]["skip_reason"]
    assert "skipped" in bipartite_scaling.summary(rows)


def _result(obj, status=Status.FEASIBLE, bound=None):
    return Result(status, obj, bound, np.zeros((0, 2)), "x")


def test_invariant_violations_raise():
    exact = _result(10.0, Status.OPTIMAL, 10.0)
    ok_ilp = _result(10.0 + 1e-9, Status.OPTIMAL, 10.0)
    bipartite_scaling.check_invariants("ok", exact, ok_ilp, {"greedy": _result(9.0)})
    with pytest.raises(ExperimentError, match="greedy"):
        bipartite_scaling.check_invariants("i", exact, None, {"greedy": _result(10.1)})
    with pytest.raises(ExperimentError, match="ILP optimum"):
        bipartite_scaling.check_invariants("i", exact, _result(9.9, Status.OPTIMAL, 10.0), {})
    with pytest.raises(ExperimentError, match="bound"):
        bipartite_scaling.check_invariants("i", exact, _result(9.0, Status.TIME_LIMIT, 9.5),
                                           {})
    with pytest.raises(ExperimentError, match="exact path"):
        bipartite_scaling.check_invariants("i", _result(10.0), None, {})


def test_smatch_walltime_rows_and_invariants(quick_out):
    rows = read_rows(quick_out / "smatch_walltime" / "rows.csv")
    ours = [r for r in rows if r["tool"] == "exactalign"]
    assert len(ours) == smatch_walltime.QUICK["rounds"] * len({r["file"] for r in rows})
    assert all(r["returncode"] == 0 and r["wall_s"] > 0 and not r["skipped"] for r in ours)
    for tool, cmd in smatch_walltime.commands().items():  # a missing peer is a skipped row
        assert any(r["tool"] == tool and r["skipped"] for r in rows) == (cmd is None)
    row = {"file": "f", "tool": "exactalign", "f_score": 0.55, "skipped": False}
    smatch_walltime._check("f", [row, {**row, "tool": "smatch", "f_score": 0.54}])
    with pytest.raises(ExperimentError, match="above the proven optimum"):
        smatch_walltime._check("f", [row, {**row, "tool": "smatch", "f_score": 0.56}])
    with pytest.raises(ExperimentError, match="printed F-scores"):
        smatch_walltime._check("f", [row, {**row, "f_score": 0.54}])


def test_a_violation_fails_the_run_and_writes_nothing(tmp_path, monkeypatch, capsys):
    def violated(label, *args):
        raise ExperimentError(f"{label}: planted violation")

    monkeypatch.setattr(bipartite_scaling, "check_invariants", violated)
    monkeypatch.setattr(bipartite_scaling, "QUICK", {**bipartite_scaling.QUICK, "sizes": [10],
                                                     "replicates": 1, "weights": ["uniform"]})
    assert main(["run", "bipartite_scaling", "--quick", "--out", str(tmp_path), "--quiet"]) == 1
    assert "planted violation" in capsys.readouterr().err
    assert not (tmp_path / "bipartite_scaling" / "rows.csv").exists()


def test_units_are_reproducible_and_seeded():
    (unit,) = [u for u in bipartite_scaling.units(bipartite_scaling.QUICK)
               if u["size"] == 10 and u["replicate"] == 0 and u["weights"] == "dice"]
    a, b = bipartite_scaling.make_instance(unit), bipartite_scaling.make_instance(unit)
    assert np.array_equal(a.weights, b.weights) and np.array_equal(a.cols, b.cols)
    other = bipartite_scaling.make_instance({**unit, "seed": unit["seed"] + 1})
    assert not np.array_equal(a.weights, other.weights)
    assert config_for(bipartite_scaling, quick=True, seed=7)["seed"] == 7
    assert bipartite_scaling.QUICK["seed"] == 0  # config_for copies, never mutates


# ------------------------------------------------------------------------------------------
# runner pieces
# ------------------------------------------------------------------------------------------
def test_csv_round_trip_and_column_check(tmp_path):
    rows = [{"a": 1, "b": 0.1 + 0.2, "c": None, "d": True, "e": "x"}]
    write_rows(tmp_path / "r.csv", rows, ["a", "b", "c", "d", "e"])
    assert read_rows(tmp_path / "r.csv") == rows
    with pytest.raises(ExperimentError, match="missing"):
        write_rows(tmp_path / "r.csv", [{"a": 1}], ["a", "b"])


def test_make_figures_needs_the_csv(tmp_path):
    with pytest.raises(FileNotFoundError, match="rows.csv"):
        make_figures(tmp_path, ["bipartite_scaling"])


def test_parallel_map_keeps_input_order():
    units = [-3, 1, -2, 5]
    assert parallel_map(abs, units, jobs=1, quiet=True) == [3, 1, 2, 5]
    assert parallel_map(abs, units, jobs=2, quiet=True) == [3, 1, 2, 5]
    with pytest.raises(ValueError, match="jobs"):
        parallel_map(abs, units, jobs=0)


# ------------------------------------------------------------------------------------------
# exactalign.synthetic
# ------------------------------------------------------------------------------------------
def test_synthetic_is_seeded_and_refuses_no_seed():
    a = synthetic.random_bipartite(50, 40, degree=5, seed=3)
    b = synthetic.random_bipartite(50, 40, degree=5, seed=np.random.default_rng(3))
    assert np.array_equal(a.rows, b.rows) and np.array_equal(a.weights, b.weights)
    assert (a.n_ref, a.n_pred, a.num_pairs) == (50, 40, 250)
    with pytest.raises(InputError, match="seed is required"):
        synthetic.random_bipartite(5, seed=None)
    with pytest.raises(InputError, match="unknown weight distribution"):
        synthetic.random_bipartite(5, weights="normal", seed=0)


def test_synthetic_weight_distributions():
    u = synthetic.random_bipartite(200, degree=10, weights="uniform", seed=1)
    assert u.num_pairs == 2000 and np.all((u.weights > 0) & (u.weights <= 1))
    assert np.bincount(u.rows, minlength=200).mean() == 10
    d = synthetic.random_bipartite(200, degree=10, weights="dice", seed=1, max_span=3)
    spans = range(1, 4)
    allowed = {2 * o / (x + y) for x in spans for y in spans for o in range(1, min(x, y) + 1)}
    assert set(np.round(d.weights, 12)) <= {round(v, 12) for v in allowed}
    full = synthetic.random_bipartite(4, degree=10, seed=0)  # degree beyond the grid: all pairs
    assert full.num_pairs == 16


def test_git_info_ignores_results_but_not_code(tmp_path):
    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "rows.csv").write_text("a\n")
    (tmp_path / "code.py").write_text("x = 1\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    assert git_info(tmp_path)["dirty"] is False
    (tmp_path / "results" / "rows.csv").write_text("b\n")  # an experiment rewriting results
    assert git_info(tmp_path)["dirty"] is False
    (tmp_path / "code.py").write_text("x = 2\n")
    assert git_info(tmp_path)["dirty"] is True


def test_a_quick_run_never_writes_over_the_full_results(tmp_path, monkeypatch):
    """``run --quick`` without ``--out`` writes ``results-quick/``: a user's full
    ``results/`` (rows, figures) stays as it was."""
    monkeypatch.chdir(tmp_path)
    full = tmp_path / "results" / "bipartite_scaling"
    full.mkdir(parents=True)
    (full / "rows.csv").write_text("full,rows\n", encoding="utf-8")
    (full / "gap_vs_size.png").write_bytes(b"figure")
    monkeypatch.setattr(bipartite_scaling, "QUICK", {**bipartite_scaling.QUICK, "sizes": [10],
                                                     "replicates": 1, "weights": ["uniform"]})
    assert main(["run", "bipartite_scaling", "--quick", "--quiet"]) == 0
    assert (tmp_path / "results-quick" / "bipartite_scaling" / "rows.csv").exists()
    assert (full / "rows.csv").read_text(encoding="utf-8") == "full,rows\n"
    assert (full / "gap_vs_size.png").read_bytes() == b"figure"
    assert not (tmp_path / "results" / "SUMMARY.md").exists()


def test_a_run_without_pilot_data_never_writes_over_the_findings(tmp_path, monkeypatch, capsys):
    """With no pilot data, ``run`` and ``figures`` without ``--out`` write
    ``results-synthetic/`` and say so: the committed ``results/`` (the findings on real data)
    stays as it was. With pilot data the default is ``results``."""
    from experiments.__main__ import default_out

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EXACTALIGN_DATA", "none")
    full = tmp_path / "results" / "bipartite_scaling"
    full.mkdir(parents=True)
    (full / "rows.csv").write_text("full,rows\n", encoding="utf-8")
    monkeypatch.setattr(bipartite_scaling, "FULL", {**bipartite_scaling.QUICK, "sizes": [10],
                                                    "replicates": 1, "weights": ["uniform"]})
    assert main(["run", "bipartite_scaling"]) == 0
    assert "writing results-synthetic/" in capsys.readouterr().err
    assert (tmp_path / "results-synthetic" / "bipartite_scaling" / "rows.csv").exists()
    assert main(["figures", "--quiet"]) == 0
    assert (tmp_path / "results-synthetic" / "SUMMARY.md").exists()
    assert (full / "rows.csv").read_text(encoding="utf-8") == "full,rows\n"
    assert not (tmp_path / "results" / "SUMMARY.md").exists()
    assert default_out(env={"EXACTALIGN_DATA": "none"}) == "results-synthetic"
    assert default_out(quick=True, env={"EXACTALIGN_DATA": "none"}) == "results-quick"
    assert default_out(env={"EXACTALIGN_DATA": str(tmp_path)}) == "results"
