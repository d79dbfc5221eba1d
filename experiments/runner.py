"""The shared experiment runner: config -> rows -> ``rows.csv`` + ``meta.json`` -> figures/summary.

An experiment is a module registered in :data:`experiments.REGISTRY` with

``NAME``, ``DESCRIPTION``   its name and a one-line description (``python -m experiments list``);
``QUICK``, ``FULL``         configs (plain dicts; ``seed`` is the base seed, keys containing
                            ``time_limit`` are reported as time limits in ``meta.json``);
``COLUMNS``                 the columns of its rows, in CSV order, ending with ``error`` (the
                            runner fills it: empty on a completed row, ``Type: message`` on a
                            failed instance's row); where a row records solver ``Result``
                            objects, ``fallback`` counts their fallback routes
                            (:func:`fallback_count`);
``FIGURES``                 the PNG file names its ``figures`` writes;
``DATA_SOURCE``             a sentence saying which data it uses (synthetic, pilot, ...);
``SEEDING``                 a sentence saying how per-unit seeds derive from ``config["seed"]``;
``run(config, *, jobs=1, quiet=False) -> list[dict]``  the rows (one dict per row, keys
                            ``COLUMNS``), its instances dispatched by :func:`parallel_map`
                            (which leaves failed ones out of its result); raises
                            :class:`ExperimentError` when it finds a violated invariant -- an
                            experiment never hides one;
``summary(rows) -> str``    one headline markdown table from the rows as :func:`read_rows`
                            returns them (that is, from the CSV alone), failed instances'
                            rows left out (:func:`completed_rows`);
``figures(csv_path, out_dir) -> list[Path]``  PNG figures from the CSV alone (its completed
                            rows, :func:`completed_rows`), each saved by
                            :func:`experiments.plot.save` (a PDF and an SVG beside the PNG);
``headline(rows, meta) -> dict``  optional: the experiment's line in the table that opens
                            ``SUMMARY.md`` (:data:`HEADLINE_KEYS`, :func:`headline_of`), from
                            its completed rows and its ``meta.json`` (``None`` when absent).
                            An experiment without it still gets a line, saying so.

:func:`run_experiment` writes ``<out>/<name>/rows.csv`` and ``<out>/<name>/meta.json``;
:func:`make_figures` and :func:`write_summary` (``<out>/SUMMARY.md``) read only those files, so
figures and the summary can be regenerated without re-running anything.

Parallelism: :func:`parallel_map` spreads independent units (instances) over ``jobs`` processes
with ``joblib.Parallel(n_jobs=jobs)``; ``jobs=1`` always runs them in this process (experiments
that time command lines or want one process pass ``jobs=1`` themselves). For ``jobs != 1`` it
names no backend, so the same code path runs on a cluster when the caller selects a joblib
backend. :func:`scheduler_session` does that for Dask (``python -m experiments run --scheduler
local|tcp://HOST:PORT``)::

    with scheduler_session("local", workers=4):          # a LocalCluster of 4 processes
        run_experiment("bipartite_scaling", out="results", jobs=-1)
    with scheduler_session("tcp://scheduler-host:8786"):  # a running `dask scheduler`
        run_experiment("bipartite_scaling", out="results", jobs=-1)

Inside it, every :func:`parallel_map` with ``jobs != 1`` goes through joblib's ``"dask"`` backend
to all the cluster's workers; results are put back in input order, so ``rows.csv`` is the same as
a serial run's (timing columns aside). Dask (``dask[distributed]``, in the ``experiments``
extra) is imported only there. A scheduler at an address and its workers (the scheduler
unpickles the tasks too) must run this checkout's code with the same library versions, Python
and data directory (:func:`environment`, checked on connecting): start them with the checkout
on their path, e.g. ``PYTHONPATH=/path/to/checkout .venv/bin/dask scheduler`` and ``... dask
worker tcp://scheduler-host:8786 --nthreads 1``. Ray works the same way by hand: ``from
ray.util.joblib import register_ray; register_ray()``, then
``joblib.parallel_config(backend="ray")`` (Ray is not a dependency).

Timings measured under ``jobs > 1`` share the machine with other units; ``meta.json`` records
``jobs`` and the Dask ``scheduler`` (``null`` without one) so such numbers can be told apart.
Neither is part of the :func:`fingerprint`: a run resumes from a journal written with other
``jobs`` or another scheduler.

Failures, journal and resume. Every experiment hands its independent units (instances) to
:func:`parallel_map`, the one place all instances go through. Under :func:`run_experiment`:

* an instance that raises (anything but :class:`ExperimentError`, which still stops the
  experiment: a violated invariant is never hidden) becomes one row whose ``error`` column says
  ``Type: message`` (one line) and whose measured columns are empty; its identifying columns
  come from the unit (``cells=``). The unit is left out of what :func:`parallel_map` returns, the
  other instances run on, the error rows follow the experiment's own rows (in instance order),
  ``meta.json`` and ``SUMMARY.md`` count the failures, and ``python -m experiments run`` exits 1
  at the end -- after writing everything;
* each finished instance is appended (and flushed) to the journal
  ``<out>/<name>/.partial/rows.jsonl``, keyed by a stable instance key (``key=`` or a hash of the
  unit) and the run's :func:`fingerprint` (experiment, quick flag, config, code version and
  commit, library versions, data directory). A run interrupted or stopped picks up the
  journal entries of the same fingerprint and computes only the missing instances (failed ones
  are retried); the results are put back in instance order, so ``rows.csv`` is byte-identical
  to an uninterrupted run's. The journal is removed once ``rows.csv`` and ``meta.json`` are
  written -- unless some instance failed: then it stays, and the same command run again
  recomputes only the failed instances; ``fresh=True`` (``--fresh``) ignores and removes it
  first;
* ``rows.csv``, ``meta.json``, ``SUMMARY.md`` and figures are written to a temporary file in the
  same folder and moved onto the target with :func:`os.replace` (:func:`atomic_open`), so an
  interrupted run never leaves a half-written file and never destroys the previous results.

Outside :func:`run_experiment` (calling an experiment's ``run`` directly) :func:`parallel_map`
neither catches nor journals: exceptions propagate.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import csv
import datetime as _dt
import hashlib
import importlib.metadata
import json
import logging
import math
import os
import pickle
import platform
import shutil
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from exactalign.io.atomic import atomic_open

#: The checkout the experiments belong to (``git rev-parse HEAD`` runs here).
CHECKOUT = Path(__file__).resolve().parent.parent

#: Distributions whose versions every ``meta.json`` records (``None`` when not installed).
VERSIONED = ("exactalign", "highspy", "scipy", "pulp", "numpy", "joblib", "matplotlib")

#: Keys of every ``meta.json``.
META_KEYS = ("experiment", "description", "quick", "config", "seeds", "seeding", "time_limits",
             "versions", "python", "git", "machine", "jobs", "scheduler", "data", "rows", "columns",
             "started", "wall_time_s", "argv", "instances", "fingerprint")

#: The column of a failed instance's row: ``Type: message`` of its exception (empty otherwise).
ERROR_COLUMN = "error"

#: Where the journal of finished instances lives, under ``<out>/<name>/``.
JOURNAL_DIR = ".partial"
JOURNAL_FILE = "rows.jsonl"


class ExperimentError(RuntimeError):
    """An experiment found a violated invariant (e.g. a heuristic beating the exact optimum)."""


# ------------------------------------------------------------------------------------------
# registry access
# ------------------------------------------------------------------------------------------
#: The experiment registry, handed over by ``experiments/__init__.py`` when the package is
#: imported (which Python does before any of its modules): the runner never imports the
#: package that imports it (tests/test_architecture.py).
_REGISTRY: dict = {}


def set_registry(registry: dict) -> None:
    """Use ``registry`` itself (not a copy: a test that adds an experiment to the package's
    ``REGISTRY`` is seen here)."""
    global _REGISTRY
    _REGISTRY = registry


def registry() -> dict:
    """The experiment registry (:func:`set_registry`)."""
    return _REGISTRY


def resolve_names(names: Sequence[str] | None, reg: dict | None = None) -> list[str]:
    """``names`` checked against the registry (all of them, in registry order, for ``None``)."""
    reg = registry() if reg is None else reg
    if names is None:
        return list(reg)
    unknown = [n for n in names if n not in reg]
    if unknown:
        raise KeyError(f"unknown experiment(s) {', '.join(unknown)}; known: {', '.join(reg)}")
    return list(dict.fromkeys(names))


# ------------------------------------------------------------------------------------------
# atomic files
# ------------------------------------------------------------------------------------------
def write_text(path: str | Path, text: str) -> None:
    """``Path(path).write_text(text)``, atomically (:func:`atomic_open`)."""
    with atomic_open(path, "w") as fh:
        fh.write(text)


def write_json(path: str | Path, obj: Any) -> None:
    """``obj`` as indented JSON plus a newline, atomically (:func:`atomic_open`)."""
    with atomic_open(path, "w") as fh:
        json.dump(obj, fh, indent=2, sort_keys=False)
        fh.write("\n")


# ------------------------------------------------------------------------------------------
# failed instances and the journal of finished ones
# ------------------------------------------------------------------------------------------
def columns_of(module) -> list[str]:
    """The CSV columns of ``module``: its ``COLUMNS``, plus :data:`ERROR_COLUMN` at the end when
    it does not declare it (every registered experiment does)."""
    cols = list(module.COLUMNS)
    return cols if ERROR_COLUMN in cols else [*cols, ERROR_COLUMN]


def describe_error(exc: BaseException) -> str:
    """``Type: message`` of ``exc`` on one line (whitespace collapsed, at most 500 characters)."""
    msg = " ".join(str(exc).split())
    if len(msg) > 500:
        msg = msg[:497] + "..."
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__


def fallback_count(*results) -> int | None:
    """The number of solver routes that failed verification before the answers of ``results``
    (solver ``Result`` objects, ``None`` entries ignored; ``Result.fallback``), or ``None`` when
    every entry is ``None``. 0 normally."""
    present_ = [r for r in results if r is not None]
    if not present_:
        return None
    return sum(len(getattr(r, "fallback", ()) or ()) for r in present_)


def _source_files() -> list[tuple[str, Path]]:
    import exactalign

    roots = {"exactalign": Path(exactalign.__file__).resolve().parent,
             "experiments": Path(__file__).resolve().parent}
    out = []
    for label, root in roots.items():
        for f in sorted(root.rglob("*.py")):
            if "__pycache__" not in f.parts:
                out.append((f"{label}/{f.relative_to(root).as_posix()}", f))
    return out


def code_digest() -> str:
    """SHA-256 (16 hex digits) of the source of the ``exactalign`` and ``experiments`` packages
    as they are on disk: the code version a journal entry was computed with, committed or not."""
    h = hashlib.sha256()
    for name, f in _source_files():
        h.update(name.encode())
        h.update(b"\0")
        h.update(f.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]


def environment() -> dict[str, Any]:
    """What results depend on besides the experiment and its config: the exactalign version,
    :func:`code_digest`, git commit, library versions, Python and the data directory. Part of
    every :func:`fingerprint`; the workers of a Dask scheduler must report the same
    (:func:`scheduler_session`)."""
    import exactalign

    return {"exactalign": getattr(exactalign, "__version__", None), "code": code_digest(),
            "commit": git_info().get("commit"), "versions": versions(),
            "python": platform.python_version(), "data": data_description()}


def fingerprint(name: str, config: dict, *, quick: bool) -> str:
    """The identity of a run's results (16 hex digits): experiment, quick flag, config (seed
    included) and the :func:`environment` (code digest, git commit, library versions, Python,
    data directory). Journal entries are reused only under the same fingerprint. ``jobs`` and
    the Dask scheduler are not part of it."""
    payload = {"experiment": name, "quick": bool(quick), "config": config, **environment()}
    text = json.dumps(payload, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _plain(x: Any) -> bool:
    """Whether ``x`` survives a JSON round trip unchanged, types included."""
    t = type(x)
    if x is None or t in (str, int, float, bool):
        return True
    if t is list:
        return all(_plain(v) for v in x)
    if t is dict:
        return all(type(k) is str and _plain(v) for k, v in x.items())
    return False


class Journal:
    """The finished instances of one experiment's runs, one JSON line each (appended, flushed and
    synced as each instance finishes): ``{"fingerprint", "key", "value"}``, or ``"pickle"``
    (base64) instead of ``"value"`` when the result would not survive JSON unchanged (tuples,
    numpy scalars...). Entries of other fingerprints are kept (another config may resume later)
    but never used; a line torn by a kill is dropped when the journal is opened."""

    def __init__(self, folder: str | Path, fingerprint: str):
        self.dir = Path(folder) / JOURNAL_DIR
        self.path = self.dir / JOURNAL_FILE
        self.fingerprint = fingerprint
        self.stale = 0
        self._done: dict[str, dict] = {}
        self._load()

    def _load(self) -> None:
        if not self.path.is_file():
            return
        keep, torn = [], 0
        with open(self.path, encoding="utf-8") as fh:
            for line in fh:
                try:
                    if not line.endswith("\n"):
                        raise ValueError("torn line")
                    rec = json.loads(line)
                    key, fp = rec["key"], rec["fingerprint"]
                    if "value" not in rec and "pickle" not in rec:
                        raise KeyError("value")
                except (ValueError, KeyError, TypeError):
                    torn += 1
                    continue
                keep.append(line)
                if fp == self.fingerprint:
                    self._done[key] = rec
                else:
                    self.stale += 1
        if torn:  # rewrite without the torn line, so that appends start on a fresh line
            write_text(self.path, "".join(keep))

    def __contains__(self, key: str) -> bool:
        return key in self._done

    def __len__(self) -> int:
        return len(self._done)

    def get(self, key: str) -> Any:
        rec = self._done[key]
        if "value" in rec:
            return rec["value"]
        return pickle.loads(base64.b64decode(rec["pickle"]))

    def append(self, key: str, value: Any) -> None:
        rec: dict[str, Any] = {"fingerprint": self.fingerprint, "key": key}
        if _plain(value):
            rec["value"] = value
        else:
            rec["pickle"] = base64.b64encode(pickle.dumps(value, protocol=4)).decode("ascii")
        line = json.dumps(rec, separators=(",", ":")) + "\n"
        self.dir.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())
        self._done[key] = rec

    def remove(self) -> None:
        """Delete the journal (every fingerprint's entries) and its folder."""
        shutil.rmtree(self.dir, ignore_errors=True)


def _key_default(o: Any) -> Any:
    if isinstance(o, Path):
        return o.as_posix()
    if isinstance(o, (set, frozenset)):
        return sorted(repr(v) for v in o)
    if hasattr(o, "tolist") and type(o).__module__ == "numpy":  # arrays and numpy scalars
        return o.tolist()
    raise TypeError(f"no stable key for {type(o).__name__}")


def unit_key(unit: Any) -> str | None:
    """A stable key of a unit made of plain data (SHA-256 of its canonical JSON, 16 hex
    digits), or ``None`` when it holds objects without one."""
    try:
        text = json.dumps(unit, sort_keys=True, default=_key_default)
    except (TypeError, ValueError):
        return None
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _fn_name(fn: Callable) -> str:
    inner = getattr(fn, "func", fn)  # functools.partial
    return f"{getattr(inner, '__module__', '')}.{getattr(inner, '__qualname__', type(inner).__name__)}"


class _Run:
    """The state of one :func:`run_experiment` while its experiment runs: the journal, the
    failed instances and the counts. :func:`parallel_map` finds it in :data:`_ACTIVE`."""

    def __init__(self, name: str, columns: Sequence[str], journal: Journal, quiet: bool):
        self.name = name
        self.columns = list(columns)
        self.journal = journal
        self.quiet = quiet
        self.calls = 0
        self.total = 0
        self.resumed = 0
        self.failures: list[tuple[int, int, dict]] = []

    def keys(self, call: int, fn: Callable, units: Sequence[Any],
             key: Callable[[Any], Any] | None) -> list[str]:
        name, seen, out = _fn_name(fn), {}, []
        for i, u in enumerate(units):
            k = str(key(u)) if key is not None else unit_key(u)
            k = f"#{i}" if k is None else k  # index: stable under the same fingerprint
            n = seen[k] = seen.get(k, 0) + 1
            out.append(f"{call}:{name}:{k}" + (f"~{n - 1}" if n > 1 else ""))
        return out

    def fail(self, call: int, i: int, unit: Any, key: str, error: str, tb: str,
             cells: Callable[[Any], Mapping] | None) -> None:
        ident = cells(unit) if cells is not None else (
            {k: v for k, v in unit.items() if v is None or type(v) in (str, int, float, bool)}
            if isinstance(unit, Mapping) else {})
        row = {c: None for c in self.columns}
        row.update({k: v for k, v in ident.items() if k in row})
        row[ERROR_COLUMN] = error
        self.failures.append((call, i, row))
        from tqdm.auto import tqdm

        text = f"{self.name}: instance {key} FAILED: {error}"
        tqdm.write(text if self.quiet else f"{text}\n{tb.rstrip()}", file=sys.stderr)

    def error_rows(self) -> list[dict]:
        return [row for _, _, row in sorted(self.failures, key=lambda f: (f[0], f[1]))]

    def counts(self) -> dict[str, int]:
        failed = len(self.failures)
        return {"total": self.total, "completed": self.total - failed, "failed": failed,
                "resumed": self.resumed}


#: The run in progress in this process (set by :func:`run_experiment`), or ``None``.
_ACTIVE: _Run | None = None


# ------------------------------------------------------------------------------------------
# progress and parallelism
# ------------------------------------------------------------------------------------------
def progress_enabled(quiet: bool) -> bool:
    """Progress bars only on an interactive terminal and never with ``--quiet``."""
    return not quiet and sys.stderr.isatty()


def progress_logged(quiet: bool) -> bool:
    """Progress as log lines (:class:`ProgressLog`) when stderr is not a terminal (``make``,
    CI, ``nohup``, a pipe) and not ``--quiet``."""
    return not quiet and not sys.stderr.isatty()


#: Seconds between two progress log lines at most (a line also marks every 10% done).
LOG_INTERVAL_S = 30.0
#: Seconds between two progress log lines at least (but the last one).
LOG_MIN_INTERVAL_S = 2.0


class ProgressLog:
    """Progress of ``total`` units as plain lines on ``stream`` (default stderr), for logs:

        [09:41:30] nugget_gap: 12/49 units (24%), elapsed 0:14, ETA 0:43

    one when it starts, then every :data:`LOG_INTERVAL_S` seconds or 10% of the units
    (whichever comes first, never closer than :data:`LOG_MIN_INTERVAL_S`), and one when it
    ends. The ETA extrapolates the rate of the units finished in this run (units ``initial``,
    resumed from a journal, do not count towards the rate)."""

    def __init__(self, total: int, desc: str | None = None, *, initial: int = 0,
                 unit: str = "units", stream=None, clock: Callable[[], float] = time.monotonic,
                 interval: float | None = None):
        self.total, self.n, self.initial = int(total), int(initial), int(initial)
        self.desc = desc or "progress"
        self.unit = unit
        self.stream = stream
        self.clock = clock
        self.interval = LOG_INTERVAL_S if interval is None else interval
        self.start = self.last = clock()
        self.last_step = self._step()
        self.closed = False
        resumed = f", {initial} resumed from the journal" if initial else ""
        self._write(f"{self.n}/{self.total} {self.unit} to do{resumed}")

    def _step(self) -> int:
        return (10 * self.n) // self.total if self.total else 10

    def _write(self, text: str) -> None:
        stream = self.stream if self.stream is not None else sys.stderr
        stamp = _dt.datetime.now().strftime("%H:%M:%S")
        print(f"[{stamp}] {self.desc}: {text}", file=stream, flush=True)

    def line(self) -> str:
        """The current state: done/total, share, elapsed time and ETA."""
        from tqdm import tqdm

        now = self.clock()
        elapsed = now - self.start
        done = self.n - self.initial
        pct = 100 * self.n / self.total if self.total else 100.0
        text = (f"{self.n}/{self.total} {self.unit} ({pct:.0f}%), elapsed "
                f"{tqdm.format_interval(elapsed)}")
        if self.n >= self.total:
            return text
        if done > 0 and elapsed > 0:
            eta = (self.total - self.n) * elapsed / done
            return text + f", ETA {tqdm.format_interval(eta)}"
        return text + ", ETA unknown (no unit finished yet)"

    def update(self, n: int = 1) -> None:
        self.n += n
        now = self.clock()
        step = self._step()
        due = (now - self.last >= self.interval
               or (step > self.last_step and now - self.last >= LOG_MIN_INTERVAL_S))
        if self.n >= self.total:
            self.close()
        elif due:
            self._write(self.line())
            self.last, self.last_step = now, step

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._write(self.line() + (" -- done" if self.n >= self.total else
                                       " -- stopped"))

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _indexed(fn: Callable, i: int, unit: Any) -> tuple[int, bool, Any]:
    return i, True, fn(unit)


def _guarded(fn: Callable, i: int, unit: Any) -> tuple[int, bool, Any]:
    """``(i, True, fn(unit))``, or ``(i, False, (error, traceback))`` when ``fn`` raises an
    exception other than :class:`ExperimentError` (that one, and interrupts, propagate)."""
    try:
        return i, True, fn(unit)
    except ExperimentError:
        raise
    except Exception as e:
        return i, False, (describe_error(e), traceback.format_exc())


def parallel_map(fn: Callable[[Any], Any], units: Sequence[Any], *, jobs: int = 1,
                 desc: str | None = None, quiet: bool = False,
                 key: Callable[[Any], Any] | None = None,
                 cells: Callable[[Any], Mapping] | None = None) -> list:
    """``[fn(u) for u in units]``, computed by ``joblib.Parallel(n_jobs=jobs)``, in input order.

    ``fn`` must be a module-level function (it is pickled to the workers) and each unit
    independent. Results arrive as they complete (a tqdm bar counts them when
    :func:`progress_enabled`, log lines with an ETA when :func:`progress_logged`); they are
    returned in the order of ``units`` whatever order they finish in. With ``jobs=1``
    everything runs in this process, whatever joblib backend is configured around it. Otherwise
    no backend is named, so an enclosing ``joblib.parallel_config(backend="dask"|"ray"|...)``
    (:func:`scheduler_session`) moves the units to a cluster.

    Under :func:`run_experiment` (see the module docstring) each unit is an instance: units
    finished by an earlier, interrupted run of the same fingerprint are taken from the journal
    instead of being recomputed, each new result is journaled as it arrives, and a unit whose
    ``fn`` raises (other than :class:`ExperimentError`) becomes an error row and is *left out*
    of the returned list. ``key(unit)`` names a unit stably (default: a hash of the unit when it
    is plain data, else its position); ``cells(unit)`` gives the identifying columns of its error
    row (default: the unit's own plain entries that are columns)."""
    import joblib
    from tqdm.auto import tqdm

    if jobs == 0:
        raise ValueError("jobs must be a positive number of processes or negative (joblib "
                         "semantics: -1 = all CPUs), not 0")
    units = list(units)
    n = len(units)
    run = _ACTIVE
    out: list = [None] * n
    ok = [False] * n
    todo = list(range(n))
    if run is not None:
        call = run.calls
        run.calls += 1
        keys = run.keys(call, fn, units, key)
        todo = []
        for i in range(n):
            if keys[i] in run.journal:
                out[i], ok[i] = run.journal.get(keys[i]), True
            else:
                todo.append(i)
        run.resumed += n - len(todo)
    worker = _indexed if run is None else _guarded
    if progress_logged(quiet) and n:
        bar = ProgressLog(n, desc, initial=n - len(todo))
    else:
        bar = tqdm(total=n, initial=n - len(todo), desc=desc,
                   disable=not progress_enabled(quiet), unit="unit", leave=False)
    with bar:
        if todo:
            # jobs=1 names the sequential backend: it stays here even under a cluster backend
            par = joblib.Parallel(n_jobs=jobs, backend="sequential" if jobs == 1 else None,
                                  return_as="generator_unordered")
            for i, good, res in par(joblib.delayed(worker)(fn, i, units[i]) for i in todo):
                if good:
                    out[i], ok[i] = res, True
                    if run is not None:
                        run.journal.append(keys[i], res)
                else:
                    run.fail(call, i, units[i], keys[i], res[0], res[1], cells)
                bar.update(1)
    if run is not None:
        run.total += n
    return [r for r, good in zip(out, ok, strict=True) if good]


# ------------------------------------------------------------------------------------------
# a Dask cluster
# ------------------------------------------------------------------------------------------
#: How to install what :func:`scheduler_session` needs.
DASK_INSTALL = "pip install 'exactalign[experiments]'"

#: The Dask scheduler of the :func:`scheduler_session` in progress (its label), or ``None``.
_SCHEDULER: str | None = None


class SchedulerError(RuntimeError):
    """A Dask scheduler cannot be used: dask.distributed is not installed, the address does not
    answer, or its workers cannot run this checkout's experiments (message: one line)."""


def active_scheduler() -> str | None:
    """The label of the Dask scheduler in use (``"local (2 workers)"``, ``"tcp://host:8786 (3
    workers)"``), or ``None`` outside :func:`scheduler_session`."""
    return _SCHEDULER


def local_workers(jobs: int) -> int:
    """The number of worker processes of a local cluster for ``--jobs jobs``: ``jobs`` when it is
    above 1, every CPU but ``-jobs - 1`` when negative (joblib's convention: -1 = all; at
    least 2), else 2."""
    if jobs > 1:
        return jobs
    if jobs < 0:
        return max(2, (os.cpu_count() or 1) + 1 + jobs)
    return 2


def _check_cluster(client, address: str) -> int:
    """The number of ``client``'s workers, after checking that the scheduler and each worker
    report this process's :func:`environment` (the scheduler unpickles the tasks, so it needs
    this checkout too); :class:`SchedulerError` otherwise."""
    start = (f"run the scheduler and its workers with this checkout on their path, its lock "
             f"installed and the same data directory (PYTHONPATH={CHECKOUT} .venv/bin/dask "
             f"scheduler, and ... dask worker {address} --nthreads 1)")
    try:
        reports = {"the scheduler": client.run_on_scheduler(environment)}
        reports |= {f"worker {w}": env for w, env in
                    sorted(client.run(environment).items())}
    except Exception as e:  # e.g. a process that cannot import the experiments package
        raise SchedulerError(f"{address} cannot run the experiments ({describe_error(e)}): "
                             f"{start}") from e
    if len(reports) == 1:
        raise SchedulerError(f"the scheduler at {address} has no workers: {start}")
    here = environment()
    for who, env in reports.items():
        differ = sorted(k for k in here.keys() | env.keys() if here.get(k) != env.get(k))
        if differ:
            raise SchedulerError(f"{who} differs from this process in {', '.join(differ)}: "
                                 f"{start}")
    return len(reports) - 1


@contextlib.contextmanager
def scheduler_session(scheduler: str, *, workers: int = 2) -> Iterator[str]:
    """Run every :func:`parallel_map` with ``jobs != 1`` inside it on a Dask cluster, through
    joblib's ``"dask"`` backend; yields the scheduler's label, which :func:`run_experiment`
    records in ``meta.json`` (``"scheduler"``).

    ``scheduler`` is ``"local"`` -- a ``LocalCluster`` of ``workers`` processes of one thread
    each, no dashboard, its logging at WARNING, shut down on exit -- or the address of a running
    scheduler (``tcp://host:8786``), which, like its workers, must report the same
    :func:`environment` as this process (checked once, on connecting). dask.distributed is
    imported here only; :class:`SchedulerError` (one line) when it is missing, the address does
    not answer or the scheduler or a worker differs."""
    global _SCHEDULER
    try:
        import joblib
        from distributed import Client, LocalCluster
    except ImportError as e:
        raise SchedulerError(f"--scheduler needs dask.distributed, which is not installed "
                             f"({describe_error(e)}): {DASK_INSTALL}") from e
    with contextlib.ExitStack() as stack:
        if scheduler == "local":
            cluster = stack.enter_context(LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True,
                dashboard_address=None, silence_logs=logging.WARNING))
            client = stack.enter_context(Client(cluster))
        else:
            try:
                client = stack.enter_context(Client(scheduler))
            except (OSError, ValueError) as e:  # refused, timed out, unknown protocol
                raise SchedulerError(f"cannot connect to the Dask scheduler at {scheduler} "
                                     f"({describe_error(e)})") from e
        n = _check_cluster(client, "the local cluster" if scheduler == "local" else scheduler)
        label = f"{scheduler} ({n} worker{'s' if n != 1 else ''})"
        stack.enter_context(joblib.parallel_config(backend="dask"))
        previous, _SCHEDULER = _SCHEDULER, label
        try:
            yield label
        finally:
            _SCHEDULER = previous


# ------------------------------------------------------------------------------------------
# CSV
# ------------------------------------------------------------------------------------------
def _cell(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, float) and not math.isfinite(v):
        return "" if math.isnan(v) else repr(v)
    if isinstance(v, float):
        return repr(v)  # shortest round-trip representation
    return v


def write_rows(path: Path, rows: Sequence[dict], columns: Sequence[str]) -> None:
    """Write ``rows`` as CSV with exactly ``columns`` (a row with other keys is an error).

    ``None`` and NaN become empty cells; floats are written round-trip exact. The file is
    written atomically (:func:`atomic_open`): on any failure the previous file stays intact."""
    cols = list(columns)
    for k, row in enumerate(rows):
        if set(row) != set(cols):
            extra = sorted(set(row) - set(cols))
            missing = sorted(set(cols) - set(row))
            raise ExperimentError(f"row {k} does not match the declared columns "
                                  f"(extra: {extra}, missing: {missing})")
    with atomic_open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        for row in rows:
            w.writerow({c: _cell(row[c]) for c in cols})


def _parse(s: str) -> Any:
    if s == "":
        return None
    if s in ("True", "False"):
        return s == "True"
    try:
        return int(s)
    except ValueError:
        pass
    try:
        return float(s)
    except ValueError:
        return s


def read_rows(path: Path) -> list[dict]:
    """Rows of a CSV written by :func:`write_rows`, with types restored: empty -> ``None``,
    ``True``/``False`` -> bool, integers -> int, other numbers -> float, the rest str."""
    with open(path, newline="", encoding="utf-8") as fh:
        return [{k: _parse(v) for k, v in row.items()} for row in csv.DictReader(fh)]


def completed_rows(path: Path) -> list[dict]:
    """:func:`read_rows` without the rows of failed instances (a non-empty ``error``): what
    summaries and figures are drawn from."""
    return [r for r in read_rows(path) if not r.get(ERROR_COLUMN)]


def read_header(path: Path) -> list[str]:
    with open(path, newline="", encoding="utf-8") as fh:
        return next(csv.reader(fh), [])


# ------------------------------------------------------------------------------------------
# meta.json
# ------------------------------------------------------------------------------------------
def versions() -> dict[str, str | None]:
    """Installed versions of :data:`VERSIONED` (``None`` for an absent distribution)."""
    out: dict[str, str | None] = {}
    for dist in VERSIONED:
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = None
    return out


def git_info(repo: Path = CHECKOUT) -> dict[str, Any]:
    """``{"commit": HEAD or None, "dirty": bool or None}`` of ``repo``; ``dirty`` means tracked
    files outside ``results/`` differ from HEAD (untracked files and results being rewritten by
    this very run do not count). ``None`` values when git or the repository is absent (never an
    error)."""

    def git(*args: str) -> str | None:
        try:
            p = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                               timeout=10, check=False)
        except (OSError, subprocess.SubprocessError):
            return None
        return p.stdout.strip() if p.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no", "--", ".",
                 ":(exclude)results") if commit else None
    return {"commit": commit, "dirty": None if status is None else bool(status)}


def machine() -> dict[str, Any]:
    return {"platform": platform.platform(), "machine": platform.machine(),
            "processor": platform.processor() or None, "cpu_count": os.cpu_count(),
            "node": platform.node()}


def data_description() -> str:
    """``exactalign.data.resolve_data_dir().describe()``, or why it could not be resolved."""
    from exactalign.data import resolve_data_dir

    try:
        return resolve_data_dir().describe()
    except Exception as e:  # a bad $EXACTALIGN_DATA must not stop a synthetic experiment
        return f"data directory unresolved: {e}"


def build_meta(name: str, module, config: dict, *, quick: bool, jobs: int, started: str,
               wall_time: float, rows: int, instances: dict | None = None,
               fingerprint: str | None = None, scheduler: str | None = None) -> dict[str, Any]:
    """The ``meta.json`` record of one run (keys :data:`META_KEYS`). ``instances``: counts of
    the units :func:`parallel_map` ran (``total``, ``completed``, ``failed``, ``resumed`` from
    the journal); ``wall_time_s`` is this invocation's, without the time of a resumed run's
    earlier part; ``scheduler`` the Dask scheduler the instances ran on
    (:func:`scheduler_session`), ``None`` for joblib's own processes."""
    return {
        "experiment": name,
        "description": module.DESCRIPTION,
        "quick": quick,
        "config": config,
        "seeds": {k: v for k, v in config.items() if "seed" in k},
        "seeding": module.SEEDING,
        "time_limits": {k: v for k, v in config.items() if "time_limit" in k},
        "versions": versions(),
        "python": {"version": platform.python_version(),
                   "implementation": platform.python_implementation(),
                   "executable": sys.executable},
        "git": git_info(),
        "machine": machine(),
        "jobs": jobs,
        "scheduler": scheduler,
        "data": {"used": module.DATA_SOURCE, "data_dir": data_description()},
        "rows": rows,
        "columns": columns_of(module),
        "started": started,
        "wall_time_s": wall_time,
        "argv": list(sys.argv),
        "instances": instances,
        "fingerprint": fingerprint,
    }


# ------------------------------------------------------------------------------------------
# run / figures / summary
# ------------------------------------------------------------------------------------------
def config_for(module, *, quick: bool = False, seed: int | None = None) -> dict:
    """A fresh copy of the module's ``QUICK`` or ``FULL`` config, ``seed`` overriding its seed."""
    config = copy.deepcopy(module.QUICK if quick else module.FULL)
    if seed is not None:
        if isinstance(seed, bool) or int(seed) != seed or seed < 0:
            raise ValueError(f"seed must be an int >= 0, not {seed!r}")
        config["seed"] = int(seed)
    return config


def run_experiment(name: str, *, quick: bool = False, out: str | Path = "results",
                   jobs: int = 1, seed: int | None = None, quiet: bool = False,
                   reg: dict | None = None, fresh: bool = False) -> Path:
    """Run experiment ``name`` and write ``<out>/<name>/rows.csv`` and ``meta.json``.

    Inside :func:`scheduler_session` its instances run on that Dask cluster (``jobs != 1``)
    and ``meta.json`` names it. Instances that fail become error rows (counted in
    ``meta.json``'s ``instances``); finished instances are journaled and an interrupted run
    resumes from the journal of the same :func:`fingerprint` (``fresh=True`` discards it
    first); see the module docstring. An
    :class:`ExperimentError` (a violated invariant) or an interrupt propagates and writes
    nothing but the journal. Figures left by an earlier run in that folder are removed once
    the new CSV is written (they no longer match it); :func:`make_figures` draws new ones.
    Returns the experiment's folder."""
    global _ACTIVE
    reg = registry() if reg is None else reg
    module = reg[resolve_names([name], reg)[0]]
    config = config_for(module, quick=quick, seed=seed)
    columns = columns_of(module)
    folder = Path(out) / name
    fp = fingerprint(name, config, quick=quick)
    if fresh:
        Journal(folder, fp).remove()
    journal = Journal(folder, fp)
    if not quiet and (len(journal) or journal.stale):
        parts = []
        if len(journal):
            parts.append(f"resuming: {len(journal)} finished instance(s) in {journal.path} "
                         "are not recomputed (--fresh recomputes everything)")
        if journal.stale:
            parts.append(f"{journal.stale} journal entr{'y' if journal.stale == 1 else 'ies'} "
                         "of another config or code version ignored")
        print(f"{name}: " + "; ".join(parts), file=sys.stderr, flush=True)
    started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    run = _Run(name, columns, journal, quiet)
    t0 = time.perf_counter()
    previous, _ACTIVE = _ACTIVE, run
    try:
        rows = list(module.run(config, jobs=jobs, quiet=quiet))
    finally:
        _ACTIVE = previous
    wall = time.perf_counter() - t0
    rows += run.error_rows()
    for row in rows:
        row.setdefault(ERROR_COLUMN, None)
    if not rows:
        raise ExperimentError(f"experiment {name} produced no rows")
    folder.mkdir(parents=True, exist_ok=True)
    write_rows(folder / "rows.csv", rows, columns)
    meta = build_meta(name, module, config, quick=quick, jobs=jobs, started=started,
                      wall_time=wall, rows=len(rows), instances=run.counts(), fingerprint=fp,
                      scheduler=_SCHEDULER)
    write_json(folder / "meta.json", meta)
    for fig in module.FIGURES:
        for path in (folder / fig, *_plot().sibling_paths(folder / fig)):
            path.unlink(missing_ok=True)
    if run.failures:  # keep the finished work: the same command again retries only the failed
        if not quiet:
            print(f"{name}: journal kept in {journal.path}: running the same command again "
                  f"retries only the {len(run.failures)} failed instance(s)", file=sys.stderr)
    else:
        journal.remove()
    return folder


def failed_instances(folder: str | Path) -> int:
    """The number of failed instances recorded in ``<folder>/meta.json`` (0 without one)."""
    path = Path(folder) / "meta.json"
    if not path.is_file():
        return 0
    with open(path, encoding="utf-8") as fh:
        meta = json.load(fh)
    return int((meta.get("instances") or {}).get("failed") or 0)


def present(out: str | Path, reg: dict | None = None) -> list[str]:
    """Registered experiments that have a ``rows.csv`` under ``out``."""
    reg = registry() if reg is None else reg
    return [n for n in reg if (Path(out) / n / "rows.csv").is_file()]


def make_figures(out: str | Path = "results", names: Iterable[str] | None = None,
                 reg: dict | None = None) -> list[Path]:
    """Draw every figure of the experiments present under ``out`` (or of ``names``) from their
    ``rows.csv`` alone, into ``<out>/<name>/``. Returns the files written (each PNG followed by
    its PDF and SVG)."""
    reg = registry() if reg is None else reg
    names = present(out, reg) if names is None else resolve_names(list(names), reg)
    written: list[Path] = []
    for n in names:
        csv_path = Path(out) / n / "rows.csv"
        if not csv_path.is_file():
            raise FileNotFoundError(f"{csv_path} does not exist: run `python -m experiments run "
                                    f"{n} --out {out}` first")
        if not completed_rows(csv_path):  # every instance failed: nothing to draw
            continue
        for p in reg[n].figures(csv_path, csv_path.parent):
            written += [Path(p), *(v for v in _plot().sibling_paths(p) if v.is_file())]
    return written


#: Keys of an experiment's ``headline(rows, meta)``. ``heuristic`` (what is held against the
#: proven optimum) and ``finding`` (one sentence) are required; the others may be ``None``
#: (shown as "–", e.g. a timing experiment has no gap):
#:
#: ``unit``            what an instance is ("documents", "pairs", ...);
#: ``instances``       the instances compared; ``below`` those where the heuristic ends below
#:                     the optimum (worse than it, for a minimisation);
#: ``gap_mean``, ``gap_max``  the gap over the instances below the optimum (mean, largest), in
#:                     ``gap_unit`` ("%" of the optimum, "F1 points", "links", ...);
#: ``rankings_changed``, ``rankings``  where the experiment measures rankings: how many of
#:                     ``rankings`` (counted in ``ranking_unit``, e.g. "system pairs") the
#:                     exact alignment changes; ``rankings`` ``None``: not measured.
HEADLINE_KEYS = ("heuristic", "unit", "instances", "below", "gap_mean", "gap_max", "gap_unit",
                 "rankings_changed", "rankings", "ranking_unit", "finding")


def headline_record(heuristic: str, finding: str, **values) -> dict:
    """A headline record (:data:`HEADLINE_KEYS`, missing values ``None``); unknown keys are an
    error."""
    unknown = set(values) - set(HEADLINE_KEYS)
    if unknown:
        raise KeyError(f"unknown headline keys: {', '.join(sorted(unknown))}")
    out = dict.fromkeys(HEADLINE_KEYS)
    out.update(values, heuristic=heuristic, finding=finding)
    return out


def headline_of(module, rows: list[dict], meta: dict | None) -> dict:
    """``module.headline(rows, meta)`` checked against :data:`HEADLINE_KEYS`; for a module
    without ``headline`` (it is optional), or one that raises, a record saying so (never an
    exception: the summary of the other experiments is still written)."""
    fn = getattr(module, "headline", None)
    if fn is None:
        return headline_record("–", "_No headline: the experiment module defines no "
                        "`headline(rows, meta)`; see its section below._")
    if not rows:
        return headline_record("–", "_No completed instance._")
    try:
        rec = fn(rows, meta)
        missing = {"heuristic", "finding"} - {k for k, v in rec.items() if v}
        if missing:
            raise KeyError(f"headline lacks {', '.join(sorted(missing))}")
        return headline_record(**rec)
    except Exception as e:  # shown in the table, where a reader sees it first
        return headline_record("–", f"**headline() failed: {describe_error(e)}**")


def _num(v: float) -> str:
    """A gap for the headline table: 3 significant digits, thousands separated."""
    if v == 0:
        return "0"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.3g}"


def headline_cells(h: dict) -> list[str]:
    """The table cells of a headline record: heuristic, below the optimum, gap, rankings,
    finding."""
    below = "–"
    if h["instances"]:
        unit = f" {h['unit']}" if h["unit"] else ""
        below = (f"{100 * (h['below'] or 0) / h['instances']:.1f}% ({h['below'] or 0:,} of "
                 f"{h['instances']:,}{unit})")
    gap = "–"
    if h["instances"] and not h["below"]:
        gap = "none below"
    elif h["gap_max"] is not None:
        unit = {None: "", "": "", "%": "%"}.get(h["gap_unit"], f" {h['gap_unit']}")
        mean = "–" if h["gap_mean"] is None else _num(h["gap_mean"])
        gap = f"{mean} / {_num(h['gap_max'])}{unit}"
    ranks = "not measured"
    if h["rankings"] is not None:
        unit = f" {h['ranking_unit']}" if h["ranking_unit"] else ""
        ranks = f"{h['rankings_changed'] or 0} of {h['rankings']:,}{unit}"
    return [h["heuristic"], below, gap, ranks, " ".join(str(h["finding"]).split())]


def _read_meta(folder: Path) -> dict | None:
    path = folder / "meta.json"
    if not path.is_file():
        return None
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _commit_label(meta: dict | None) -> str:
    git = (meta or {}).get("git") or {}
    commit = git.get("commit")
    if not commit:
        return "unknown"
    return commit[:12] + (" with uncommitted changes" if git.get("dirty") else "")


def provenance(metas: dict[str, dict | None]) -> list[str]:
    """The lines under the title of ``SUMMARY.md``: the commit, library versions, Python and
    configs the sections were produced with; what differs between sections is flagged in bold,
    naming the sections."""

    def groups(value) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for n, m in metas.items():
            out.setdefault(value(m), []).append(n)
        return out

    def listed(g: dict[str, list[str]], fmt) -> str:
        return "; ".join(f"{fmt(k)} ({', '.join(ns)})" for k, ns in g.items())

    commits = groups(_commit_label)
    lines = []
    if len(commits) == 1:
        (label,) = commits
        clean = "" if "uncommitted" in label or label == "unknown" else " (clean tree)"
        lines.append(f"Every section was produced at commit `{label.split()[0]}`"
                     f"{label[12:]}{clean}.")
    else:
        lines.append("**Sections produced at different commits** -- regenerate them at one "
                     "before quoting them together: " + listed(commits, lambda k: f"`{k}`")
                     + ".")
    dists = sorted({d for m in metas.values() for d in ((m or {}).get("versions") or {})})
    same, differ = [], []
    for d in dists:
        g = groups(lambda m, d=d: str(((m or {}).get("versions") or {}).get(d)))
        if len(g) == 1:
            same.append(f"{d} {next(iter(g))}")
        else:
            differ.append(f"{d}: " + listed(g, str))
    py = groups(lambda m: str(((m or {}).get("python") or {}).get("version")))
    if len(py) == 1:
        same.append(f"Python {next(iter(py))}")
    else:
        differ.append("Python: " + listed(py, str))
    if same:
        lines.append("Versions: " + ", ".join(same) + ".")
    if differ:
        lines.append("**Versions differ between sections**: " + " | ".join(differ) + ".")
    configs = groups(lambda m: "no meta.json" if m is None else
                     ("quick" if m.get("quick") else "full"))
    if len(configs) == 1:
        lines.append(f"Configs: {next(iter(configs))} (per section below: seed, instances, "
                     "time, jobs, machine, data).")
    else:
        lines.append("**Configs differ between sections**: " + listed(configs, str) + ".")
    return lines


def write_summary(out: str | Path = "results", reg: dict | None = None) -> Path:
    """Regenerate ``<out>/SUMMARY.md``: first one screen -- provenance (:func:`provenance`) and a
    table with one line per experiment present (:func:`headline_of`) -- then one section per
    experiment with its headline table, each from its ``rows.csv`` (plus run facts from
    ``meta.json`` when there)."""
    reg = registry() if reg is None else reg
    out = Path(out)
    names = present(out, reg)
    data = {}
    for n in names:
        all_rows = read_rows(out / n / "rows.csv")
        data[n] = (all_rows, _read_meta(out / n))
    parts = ["# Experiment summary", ""]
    if not names:
        parts.append("No experiment results found.")
    else:
        metas = {n: meta for n, (_, meta) in data.items()}
        parts += [f"- {line}" for line in provenance(metas)] + [""]
        parts += ["| experiment | heuristic vs proven optimum | below the optimum | gap when "
                  "below: mean / max | rankings changed | finding |",
                  "|---|---|---:|---:|---:|---|"]
        for n, (all_rows, meta) in data.items():
            rows = [r for r in all_rows if not r.get(ERROR_COLUMN)]
            cells = headline_cells(headline_of(reg[n], rows, meta))
            failed = len(all_rows) - len(rows)
            name = f"[{n}](#{n})" + (f" ({failed} failed)" if failed else "")
            parts.append("| " + " | ".join([name, *(c.replace("|", "\\|") for c in cells)])
                         + " |")
        parts += ["", f"Regenerated from `{out.name}/*/rows.csv` and `meta.json` by `python -m "
                  "experiments`; each line and table is computed from its CSV alone. An "
                  "instance below the optimum: the heuristic's own objective (or score) is "
                  "lower than the proven optimum's; gaps are over those instances. Details "
                  "per experiment follow.", ""]
    majority = None
    if names:
        labels = [_commit_label(meta) for _, meta in data.values()]
        majority = max(dict.fromkeys(labels), key=labels.count)
    for n in names:
        folder = out / n
        all_rows, meta = data[n]
        rows = [r for r in all_rows if not r.get(ERROR_COLUMN)]
        failed = [r for r in all_rows if r.get(ERROR_COLUMN)]
        parts += [f"## {n}", "", reg[n].DESCRIPTION, ""]
        instances = None
        if meta is not None:
            commit = (meta.get("git") or {}).get("commit") or "unknown"
            dirty = " (uncommitted changes)" if (meta.get("git") or {}).get("dirty") else ""
            other = (" -- **a different commit from the other sections**"
                     if _commit_label(meta) != majority else "")
            instances = meta.get("instances")
            counted = ""
            if instances:
                counted = (f"{instances.get('total')} instances, {instances.get('failed')} "
                           "failed")
                if instances.get("resumed"):
                    counted += f", {instances['resumed']} resumed from an interrupted run"
                counted += "; "
            on_scheduler = (f" on the Dask scheduler {meta['scheduler']}"
                            if meta.get("scheduler") else "")
            parts += [f"Run: {'quick' if meta.get('quick') else 'full'} config, seed "
                      f"{meta.get('config', {}).get('seed')}, {counted}{meta.get('rows')} rows "
                      f"in {meta.get('wall_time_s', float('nan')):.1f} s with jobs="
                      f"{meta.get('jobs')}{on_scheduler}, commit `{commit[:12]}`{dirty}{other}, "
                      f"{meta.get('machine', {}).get('cpu_count')} CPUs. "
                      f"Data: {meta.get('data', {}).get('used')}", ""]
        if failed:
            total = f" of {instances['total']}" if instances and instances.get("total") else ""
            reasons = list(dict.fromkeys(r[ERROR_COLUMN] for r in failed))
            shown = "; ".join(f"`{e}`" for e in reasons[:3])
            more = f" (and {len(reasons) - 3} other errors)" if len(reasons) > 3 else ""
            parts += [f"**{len(failed)}{total} instances FAILED** (rows with an `error` in "
                      f"rows.csv; left out of the table below): {shown}{more}.", ""]
        parts += [reg[n].summary(rows).rstrip() if rows else "No completed instance.", ""]
        figs = [f for f in reg[n].FIGURES if (folder / f).is_file()]
        if figs:
            links = []
            for f in figs:
                vec = [p for p in _plot().sibling_paths(folder / f) if p.is_file()]
                links.append(f"[{f}]({n}/{f})" + (" (" + ", ".join(
                    f"[{p.suffix[1:].upper()}]({n}/{p.name})" for p in vec) + ")" if vec
                    else ""))
            parts += ["Figures: " + ", ".join(links), ""]
    path = out / "SUMMARY.md"
    out.mkdir(parents=True, exist_ok=True)
    write_text(path, "\n".join(parts))
    return path


def _plot():
    from . import plot

    return plot
