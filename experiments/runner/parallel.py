"""Progress (tqdm bars on a terminal, :class:`ProgressLog` lines in logs) and
:func:`parallel_map`, the one place every experiment's instances go through: joblib processes
or a cluster backend, results in input order; under :func:`run_experiment`, journaled and
resumed, failures turned into error rows (:class:`~experiments.runner.journal.RunState`)."""

from __future__ import annotations

import datetime as _dt
import sys
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .journal import active_run
from .protocol import ExperimentError, describe_error


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

    Under :func:`run_experiment` (see :mod:`experiments.runner`) each unit is an instance: units
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
    run = active_run()
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
