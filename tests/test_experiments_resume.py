"""Long experiments never lose finished work: a failing instance becomes an error row and the
others complete; an interrupted run resumes from its journal without recomputing finished
instances and writes byte-identical output; files are replaced atomically.

A tiny fake experiment (registered only inside these tests) stands in for the real ones, so
everything here runs in about a second."""

from __future__ import annotations

import json
import types
from pathlib import Path

import numpy as np
import pytest

import experiments
import experiments.runner as runner
from exactalign.core.result import Result, Status
from experiments.__main__ import main
from experiments.runner import (
    ERROR_COLUMN,
    JOURNAL_DIR,
    JOURNAL_FILE,
    ExperimentError,
    Journal,
    atomic_open,
    fallback_count,
    parallel_map,
    read_rows,
    run_experiment,
    write_rows,
    write_summary,
)

NAME = "fake_resume"
REAL_CODE_DIGEST = runner.code_digest

#: What the fake instances do, set per test: ``fail`` raise ValueError, ``violate`` raise
#: ExperimentError, ``interrupt_at`` raise KeyboardInterrupt; ``calls`` records computed units.
STATE: dict = {}


@pytest.fixture(autouse=True)
def _state(monkeypatch):
    STATE.clear()
    STATE.update(calls=[], fail=set(), violate=set(), interrupt_at=None)
    # Others may be editing the package while the suite runs: pin the code version so a
    # resumed run here always shares its interrupted run's fingerprint. (Patched where
    # fingerprint() looks it up: the runner's journal module.)
    monkeypatch.setattr("experiments.runner.journal.code_digest", lambda: "pinned-for-tests")
    monkeypatch.setitem(experiments.REGISTRY, NAME, fake_module())
    yield


def fake_unit(unit: dict) -> dict:
    i = unit["i"]
    if STATE.get("interrupt_at") == i:
        raise KeyboardInterrupt
    STATE.setdefault("calls", []).append(i)
    if i in STATE.get("fail", ()):
        raise ValueError(f"bad instance {i}\n  second line")
    if i in STATE.get("violate", ()):
        raise ExperimentError(f"instance {i}: planted violation")
    out = {"i": i, "sq": i * i, "third": i / 3, "flag": i % 3 == 0}
    if i % 2:  # a tuple does not survive JSON: the journal pickles this one
        out["pair"] = (i, 0.1 * i)
    return out


def fake_run(config: dict, *, jobs: int = 1, quiet: bool = False) -> list[dict]:
    res = parallel_map(fake_unit, [{"i": i, "tag": f"u{i}"} for i in range(config["n"])],
                       jobs=jobs, quiet=quiet)
    return [{"i": r["i"], "tag": f"u{r['i']}", "sq": r["sq"], "third": r["third"],
             "flag": r["flag"], "pair_sum": sum(r["pair"]) if "pair" in r else None}
            for r in res]


def fake_module() -> types.ModuleType:
    m = types.ModuleType(NAME)
    m.NAME = NAME
    m.DESCRIPTION = "A fake experiment of the resume tests."
    m.DATA_SOURCE = "none"
    m.SEEDING = "none"
    m.FULL = {"seed": 0, "n": 8}
    m.QUICK = {"seed": 0, "n": 4}
    m.COLUMNS = ("i", "tag", "sq", "third", "flag", "pair_sum", "error")
    m.FIGURES = ()
    m.run = fake_run
    m.summary = lambda rows: f"{len(rows)} rows, squares sum to {sum(r['sq'] for r in rows)}\n"
    m.figures = lambda csv_path, out_dir: []
    return m


def journal_path(out: Path) -> Path:
    return out / NAME / JOURNAL_DIR / JOURNAL_FILE


def run(out: Path, **kw) -> Path:
    return run_experiment(NAME, out=out, quiet=True, **kw)


# ------------------------------------------------------------------------------------------
# failing instances
# ------------------------------------------------------------------------------------------
def test_a_failing_instance_is_an_error_row_and_the_others_complete(tmp_path):
    STATE["fail"] = {2, 5}
    folder = run(tmp_path)
    rows = read_rows(folder / "rows.csv")
    assert [r["i"] for r in rows] == [0, 1, 3, 4, 6, 7, 2, 5]  # error rows last, in order
    assert STATE["calls"] == list(range(8))
    done, failed = rows[:6], rows[6:]
    assert all(r[ERROR_COLUMN] is None and r["sq"] == r["i"] ** 2 for r in done)
    assert failed[0] == {"i": 2, "tag": "u2", "sq": None, "third": None, "flag": None,
                         "pair_sum": None, "error": "ValueError: bad instance 2 second line"}
    meta = json.loads((folder / "meta.json").read_text())
    assert meta["instances"] == {"total": 8, "completed": 6, "failed": 2, "resumed": 0}
    assert meta["rows"] == 8
    assert len(journal_path(tmp_path).read_text().splitlines()) == 6  # kept: failures to retry
    summary = write_summary(tmp_path).read_text()
    assert "8 instances, 2 failed" in summary
    assert "**2 of 8 instances FAILED**" in summary
    assert "`ValueError: bad instance 2 second line`" in summary
    assert "6 rows, squares sum to 111" in summary  # the table is drawn from completed rows


def test_cli_writes_everything_then_exits_nonzero(tmp_path, capsys):
    STATE["fail"] = {0}
    assert main(["run", NAME, "--out", str(tmp_path), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "ValueError: bad instance 0" in err and "1 instance(s) FAILED" in err
    assert len(read_rows(tmp_path / NAME / "rows.csv")) == 8
    assert (tmp_path / "SUMMARY.md").is_file()
    STATE.update(fail=set(), calls=[])
    assert main(["run", NAME, "--out", str(tmp_path), "--quiet"]) == 0
    assert STATE["calls"] == [0]  # only the failed instance is computed again
    assert [r["i"] for r in read_rows(tmp_path / NAME / "rows.csv")] == list(range(8))
    assert not (tmp_path / NAME / JOURNAL_DIR).exists()  # no failure left: journal removed


def test_a_violated_invariant_still_stops_the_experiment_but_keeps_finished_work(tmp_path):
    STATE["violate"] = {3}
    with pytest.raises(ExperimentError, match="planted violation"):
        run(tmp_path)
    assert not (tmp_path / NAME / "rows.csv").exists()
    assert len(journal_path(tmp_path).read_text().splitlines()) == 3
    STATE.update(violate=set(), calls=[])
    run(tmp_path)
    assert STATE["calls"] == [3, 4, 5, 6, 7]


def test_outside_a_run_exceptions_propagate():
    STATE["fail"] = {1}
    with pytest.raises(ValueError, match="bad instance 1"):
        parallel_map(fake_unit, [{"i": 0}, {"i": 1}], quiet=True)


# ------------------------------------------------------------------------------------------
# interrupt and resume
# ------------------------------------------------------------------------------------------
def test_an_interrupted_run_resumes_without_recomputing_and_writes_the_same_bytes(tmp_path,
                                                                                   capsys):
    ref = run(tmp_path / "ref")
    STATE["calls"] = []
    out = tmp_path / "out"
    STATE["interrupt_at"] = 5
    assert main(["run", NAME, "--out", str(out), "--quiet"]) == 130  # Ctrl-C after 5 instances
    assert "run the same command again to resume" in capsys.readouterr().err
    assert STATE["calls"] == [0, 1, 2, 3, 4]
    assert not (out / NAME / "rows.csv").exists()
    assert len(journal_path(out).read_text().splitlines()) == 5

    STATE.update(interrupt_at=None, calls=[])
    assert main(["run", NAME, "--out", str(out), "--quiet"]) == 0
    assert STATE["calls"] == [5, 6, 7]  # the first five come from the journal
    assert (out / NAME / "rows.csv").read_bytes() == (ref / "rows.csv").read_bytes()
    meta = json.loads((out / NAME / "meta.json").read_text())
    assert meta["instances"] == {"total": 8, "completed": 8, "failed": 0, "resumed": 5}
    assert not (out / NAME / JOURNAL_DIR).exists()  # removed once the rows are written


def test_resume_in_parallel_keeps_instance_order(tmp_path):
    ref = run(tmp_path / "ref")
    out = tmp_path / "out"
    STATE["interrupt_at"] = 3
    with pytest.raises(KeyboardInterrupt):
        run(out)
    STATE["interrupt_at"] = None
    run(out, jobs=2)  # the rest completes in any order; rows come back in instance order
    assert (out / NAME / "rows.csv").read_bytes() == (ref / "rows.csv").read_bytes()


def test_a_previous_complete_result_survives_an_interrupted_rerun(tmp_path):
    folder = run(tmp_path)
    before = (folder / "rows.csv").read_bytes()
    STATE["interrupt_at"] = 2
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path)
    assert (folder / "rows.csv").read_bytes() == before
    assert (folder / "meta.json").is_file()


def test_fresh_and_another_config_recompute_everything(tmp_path):
    STATE["interrupt_at"] = 4
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path)
    STATE.update(interrupt_at=None, calls=[])
    run(tmp_path, seed=7)  # another fingerprint: the journal is not used (but kept)
    assert STATE["calls"] == list(range(8))
    STATE.update(interrupt_at=4, calls=[])
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path)
    STATE.update(interrupt_at=None, calls=[])
    assert main(["run", NAME, "--out", str(tmp_path), "--quiet", "--fresh"]) == 0
    assert STATE["calls"] == list(range(8))
    assert not (tmp_path / NAME / JOURNAL_DIR).exists()


def test_a_torn_journal_line_is_dropped(tmp_path):
    STATE["interrupt_at"] = 3
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path)
    with open(journal_path(tmp_path), "a", encoding="utf-8") as fh:
        fh.write('{"fingerprint": "abc", "key": "3:')  # killed in the middle of a write
    STATE.update(interrupt_at=None, calls=[])
    folder = run(tmp_path)
    assert STATE["calls"] == [3, 4, 5, 6, 7]
    assert [r["i"] for r in read_rows(folder / "rows.csv")] == list(range(8))


def test_journal_round_trips_values_exactly(tmp_path):
    j = Journal(tmp_path, "fp")
    values = {"a": [{"x": 0.1 + 0.2, "n": None, "b": True, "i": 3}],
              "b": {"t": (1, 2.5), "np": np.float64(0.5)}, "c": float("inf")}
    for k, v in values.items():
        j.append(k, v)
    again = Journal(tmp_path, "fp")
    assert len(again) == 3 and len(Journal(tmp_path, "other")) == 0
    for k, v in values.items():
        assert again.get(k) == v and type(again.get(k)) is type(v)
    assert type(again.get("b")["t"]) is tuple and type(again.get("b")["np"]) is np.float64
    assert Journal(tmp_path, "other").stale == 3


# ------------------------------------------------------------------------------------------
# atomic writes
# ------------------------------------------------------------------------------------------
class Exploding:
    def __str__(self) -> str:
        raise RuntimeError("disk full (simulated)")


def test_write_rows_failing_midway_leaves_the_old_file_intact(tmp_path):
    path = tmp_path / "rows.csv"
    write_rows(path, [{"a": 1, "b": 2.0}], ["a", "b"])
    old = path.read_bytes()
    rows = [{"a": k, "b": 0.5} for k in range(1000)] + [{"a": Exploding(), "b": 1.0}]
    with pytest.raises(RuntimeError, match="disk full"):
        write_rows(path, rows, ["a", "b"])
    assert path.read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rows.csv"]  # no temporary left


def test_atomic_open_replaces_only_on_success(tmp_path):
    path = tmp_path / "meta.json"
    path.write_text("old\n")
    with pytest.raises(KeyboardInterrupt), atomic_open(path) as fh:
        fh.write("half of the new conte")
        raise KeyboardInterrupt
    assert path.read_text() == "old\n"
    with atomic_open(path) as fh:
        fh.write("new\n")
    assert path.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["meta.json"]


# ------------------------------------------------------------------------------------------
# columns
# ------------------------------------------------------------------------------------------
def test_fallback_count():
    fb = {"backend": "highs", "presolve": True, "error": "objective mismatch"}
    plain = Result(Status.OPTIMAL, 1.0, 1.0, np.zeros((0, 2)), "ilp")
    fell = Result(Status.OPTIMAL, 1.0, 1.0, np.zeros((0, 2)), "ilp",
                  details={"fallback": [fb, {**fb, "presolve": False}]})
    assert fallback_count(plain) == 0
    assert fallback_count(fell, None, plain) == 2
    assert fallback_count(None) is None and fallback_count() is None


def test_every_experiment_declares_error_last_and_fallback_where_it_records_results():
    for name, module in experiments.REGISTRY.items():
        if name == NAME:
            continue
        assert module.COLUMNS[-1] == ERROR_COLUMN, name
    for name in ("bipartite_scaling", "coref_ere_gap", "monotone_gap", "nugget_gap",
                 "smatch_gap", "temporal_gap"):
        assert "fallback" in experiments.REGISTRY[name].COLUMNS, name


def test_fingerprint_separates_configs_and_code(monkeypatch):
    fp = runner.fingerprint("x", {"seed": 0}, quick=True)
    assert fp == runner.fingerprint("x", {"seed": 0}, quick=True)
    assert fp != runner.fingerprint("x", {"seed": 1}, quick=True)
    assert fp != runner.fingerprint("x", {"seed": 0}, quick=False)
    assert fp != runner.fingerprint("y", {"seed": 0}, quick=True)
    monkeypatch.setattr("experiments.runner.journal.code_digest", lambda: "edited")
    assert fp != runner.fingerprint("x", {"seed": 0}, quick=True)
    digest = REAL_CODE_DIGEST()  # the source of exactalign and experiments as on disk
    assert len(digest) == 16 and int(digest, 16) >= 0
