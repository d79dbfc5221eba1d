"""Running an experiment: its config (:func:`config_for`), :func:`run_experiment` writing
``<out>/<name>/rows.csv`` and ``meta.json`` (instances journaled, failures as error rows), and
:func:`make_figures` drawing figures from ``rows.csv`` alone."""

from __future__ import annotations

import copy
import datetime as _dt
import json
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from .files import write_json
from .journal import Journal, RunState, fingerprint, running
from .meta import build_meta
from .protocol import ERROR_COLUMN, ExperimentError, columns_of, registry, resolve_names
from .rows import completed_rows, write_rows
from .scheduler import active_scheduler


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
    first); see :mod:`experiments.runner`. An
    :class:`ExperimentError` (a violated invariant) or an interrupt propagates and writes
    nothing but the journal. Figures left by an earlier run in that folder are removed once
    the new CSV is written (they no longer match it); :func:`make_figures` draws new ones.
    Returns the experiment's folder."""
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
    run = RunState(name, columns, journal, quiet)
    t0 = time.perf_counter()
    with running(run):
        rows = list(module.run(config, jobs=jobs, quiet=quiet))
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
                      scheduler=active_scheduler())
    write_json(folder / "meta.json", meta)
    for fig in module.FIGURES:
        for path in (folder / fig, *plot_module().sibling_paths(folder / fig)):
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
            written += [Path(p), *(v for v in plot_module().sibling_paths(p) if v.is_file())]
    return written


def plot_module():
    """:mod:`experiments.plot`, imported on first use (it imports matplotlib)."""
    from .. import plot

    return plot
