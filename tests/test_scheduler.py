"""``python -m experiments run --scheduler``: instances on a Dask cluster give the serial run's
``rows.csv``, in the same order; ``meta.json`` names the scheduler without changing the
fingerprint; progress is logged; without Dask the run stops with one line and exit status 2.

The cluster tests start two local clusters of 2 worker processes each (about 20 s in all); they
skip where ``distributed`` is not installed (the ``experiments`` extra installs it)."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from experiments import REGISTRY, bipartite_scaling
from experiments.__main__ import main
from experiments.runner import (
    DASK_INSTALL,
    active_scheduler,
    local_workers,
    parallel_map,
    scheduler_session,
)

ROOT = Path(__file__).resolve().parent.parent

#: bipartite_scaling on 8 small instances (sizes 10 and 30, both weight distributions, 2
#: replicates, one timed run each): a few seconds serially.
TINY = {**bipartite_scaling.QUICK, "sizes": [10, 30], "replicates": 2, "repeats": 1}
#: Its wall-time columns, which differ between any two runs (serial or not); every other column
#: -- the instances, statuses, objectives, bounds, gaps, node counts, matched pairs -- is
#: deterministic and compared byte for byte.
TIMING = ("time_s", "ilp_build_s")

#: Units of the order probe: the first takes far longer (a few tenths of a second) than the
#: others together, so on a cluster the results arrive out of input order.
PROBE_SIZES = [20_000_000, 1, 2, 3, 4, 5, 6, 7]


def _probe_run(config: dict, *, jobs: int = 1, quiet: bool = False) -> list[dict]:
    """One row per unit, in the order :func:`parallel_map` returns them (no sorting)."""
    units = [range(n) for n in config["sizes"]]
    totals = parallel_map(sum, units, jobs=jobs, desc="order_probe", quiet=quiet)
    return [{"unit": i, "total": t, "error": None} for i, t in enumerate(totals)]


def _probe_module() -> types.ModuleType:
    """A registered experiment whose rows are in exactly the order :func:`parallel_map` returns
    its results (``sum`` is pickled to the workers by reference: the module needs no import)."""
    m = types.ModuleType("order_probe")
    m.NAME = "order_probe"
    m.DESCRIPTION = "parallel_map's result order (tests/test_scheduler.py)"
    m.DATA_SOURCE = "none"
    m.SEEDING = "none"
    m.FULL = m.QUICK = {"seed": 0, "sizes": PROBE_SIZES}
    m.COLUMNS = ("unit", "total", "error")
    m.FIGURES = ()
    m.run = _probe_run
    m.summary = lambda rows: f"{len(rows)} units"
    m.figures = lambda csv_path, out_dir: []
    return m


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    """bipartite_scaling (:data:`TINY`) and the order probe through the CLI, serially and on
    ``--scheduler local --jobs 2`` (progress on, stderr captured: not a terminal)."""
    pytest.importorskip("distributed")
    out = tmp_path_factory.mktemp("scheduler")
    serial, dask = out / "serial", out / "dask"
    names = ["bipartite_scaling", "order_probe"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bipartite_scaling, "QUICK", TINY)
        mp.setitem(REGISTRY, "order_probe", _probe_module())
        assert main(["run", *names, "--quick", "--out", str(serial), "--quiet"]) == 0
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = main(["run", *names, "--quick", "--out", str(dask), "--scheduler", "local",
                       "--jobs", "2"])
        assert rc == 0, err.getvalue()
    return {"serial": serial, "dask": dask, "stderr": err.getvalue()}


def _cells(path: Path, drop: tuple[str, ...] = ()) -> list[list[str]]:
    """The cells of a CSV as written (strings, not parsed), without the columns ``drop``."""
    with open(path, newline="", encoding="utf-8") as fh:
        table = list(csv.reader(fh))
    keep = [i for i, c in enumerate(table[0]) if c not in drop]
    return [[row[i] for i in keep] for row in table]


def _meta(folder: Path) -> dict:
    return json.loads((folder / "meta.json").read_text(encoding="utf-8"))


def test_rows_on_a_local_cluster_equal_the_serial_rows(runs):
    serial = runs["serial"] / "bipartite_scaling" / "rows.csv"
    dask = runs["dask"] / "bipartite_scaling" / "rows.csv"
    header = _cells(serial)[0]
    assert set(TIMING) <= set(header)  # the columns left out exist (and only those are)
    assert _cells(serial, TIMING) == _cells(dask, TIMING)
    assert len(_cells(serial)) == 1 + 8 * len(bipartite_scaling.METHODS)


def test_results_come_back_in_input_order(runs):
    """The probe's rows are parallel_map's results as returned: byte-identical files mean the
    cluster's out-of-order completions were put back in input order."""
    serial = (runs["serial"] / "order_probe" / "rows.csv").read_bytes()
    assert serial == (runs["dask"] / "order_probe" / "rows.csv").read_bytes()
    totals = [row[1] for row in _cells(runs["dask"] / "order_probe" / "rows.csv")[1:]]
    assert totals == [str(n * (n - 1) // 2) for n in PROBE_SIZES]


@pytest.mark.parametrize("name", ["bipartite_scaling", "order_probe"])
def test_meta_names_the_scheduler_but_the_fingerprint_ignores_it(runs, name):
    serial, dask = _meta(runs["serial"] / name), _meta(runs["dask"] / name)
    assert (serial["scheduler"], serial["jobs"]) == (None, 1)
    assert (dask["scheduler"], dask["jobs"]) == ("local (2 workers)", 2)
    assert dask["fingerprint"] == serial["fingerprint"]  # a journal is resumed either way
    assert dask["instances"]["failed"] == 0


def test_summary_names_the_scheduler(runs):
    assert "with jobs=2 on the Dask scheduler local (2 workers)," in (
        runs["dask"] / "SUMMARY.md").read_text(encoding="utf-8")
    assert "Dask" not in (runs["serial"] / "SUMMARY.md").read_text(encoding="utf-8")


def test_progress_is_logged_under_dask(runs):
    """stderr is not a terminal: log lines, the experiment line naming the scheduler, no bar."""
    err = runs["stderr"]
    assert "(quick config, jobs=2, scheduler local (2 workers))" in err
    assert "] order_probe: 0/8 units to do" in err
    assert "] order_probe: 8/8 units (100%), elapsed" in err and " -- done" in err
    assert "\r" not in err  # no tqdm bar


def test_parallel_map_on_a_cluster_restores_order_and_jobs_1_stays_here():
    pytest.importorskip("distributed")
    import joblib

    units = [range(n) for n in PROBE_SIZES]
    expected = [sum(u) for u in units]
    with scheduler_session("local", workers=2) as label:
        assert label == active_scheduler() == "local (2 workers)"
        arrived = list(joblib.Parallel(n_jobs=-1, return_as="generator_unordered")(
            joblib.delayed(sum)(u) for u in units))
        assert sorted(arrived) == sorted(expected)
        assert arrived != expected  # the cluster does finish out of order...
        assert parallel_map(sum, units, jobs=2, quiet=True) == expected  # ...not parallel_map
        # /proc/self names the process that reads it: workers for jobs != 1, this one for 1
        if Path("/proc/self").exists():
            here = str(os.getpid())
            assert here not in parallel_map(os.readlink, ["/proc/self"] * 4, jobs=2, quiet=True)
            assert parallel_map(os.readlink, ["/proc/self"] * 2, jobs=1, quiet=True) == [here] * 2
    assert active_scheduler() is None


def test_without_dask_one_line_and_exit_status_2(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` fails
    rc = main(["run", "bipartite_scaling", "--quick", "--out", str(tmp_path), "--scheduler",
               "local"])
    err = capsys.readouterr().err
    assert rc == 2
    assert len(err.strip().splitlines()) == 1, err
    assert DASK_INSTALL == "pip install 'exactalign[experiments]'" and DASK_INSTALL in err
    assert "Traceback" not in err
    assert not any(tmp_path.iterdir())  # nothing ran


def test_scheduler_arguments(capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        main(["run", "bipartite_scaling", "--scheduler", "localhost"])
    assert exc.value.code == 2 and "--scheduler takes 'local'" in capsys.readouterr().err
    # the workers of a running scheduler are its own: --jobs is for --scheduler local only
    assert main(["run", "bipartite_scaling", "--scheduler", "tcp://127.0.0.1:8786", "--jobs",
                 "3", "--out", str(tmp_path)]) == 2
    assert "--jobs sets the workers of --scheduler local" in capsys.readouterr().err
    assert [local_workers(j) for j in (1, 2, 5)] == [2, 2, 5]
    assert local_workers(-1) == max(2, os.cpu_count() or 1)


def test_help_lists_scheduler_and_dask_is_imported_lazily():
    run = subprocess.run([sys.executable, "-m", "experiments", "run", "--help"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=True)
    assert "--scheduler local|tcp://HOST:PORT" in run.stdout
    probe = ("import sys, experiments.__main__; "
             "print(sorted({'dask', 'distributed'} & set(sys.modules)))")
    run = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=True)
    assert run.stdout.strip() == "[]"
