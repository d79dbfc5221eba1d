"""The shared experiment runner: config -> rows -> ``rows.csv`` + ``meta.json`` -> figures/summary.

An experiment is a module registered in :data:`experiments.REGISTRY` with

``NAME``, ``DESCRIPTION``   its name and a one-line description (``python -m experiments list``);
``QUICK``, ``FULL``         configs (plain dicts; ``seed`` is the base seed, keys containing
                            ``time_limit`` are reported as time limits in ``meta.json``);
``COLUMNS``                 the columns of its rows, in CSV order;
``FIGURES``                 the PNG file names its ``figures`` writes;
``DATA_SOURCE``             a sentence saying which data it uses (synthetic, pilot, ...);
``SEEDING``                 a sentence saying how per-unit seeds derive from ``config["seed"]``;
``run(config, *, jobs=1, quiet=False) -> list[dict]``  the rows (one dict per row, keys
                            ``COLUMNS``); raises :class:`ExperimentError` when it finds a
                            violated invariant -- an experiment never hides one;
``summary(rows) -> str``    one headline markdown table from the rows as :func:`read_rows`
                            returns them (that is, from the CSV alone);
``figures(csv_path, out_dir) -> list[Path]``  PNG figures from the CSV alone.

:func:`run_experiment` writes ``<out>/<name>/rows.csv`` and ``<out>/<name>/meta.json``;
:func:`make_figures` and :func:`write_summary` (``<out>/SUMMARY.md``) read only those files, so
figures and the summary can be regenerated without re-running anything.

Parallelism: :func:`parallel_map` spreads independent units (instances) over ``jobs`` processes
with ``joblib.Parallel(n_jobs=jobs)``. Because it names no backend, the same code path runs on a
cluster when the caller selects a joblib backend, e.g.::

    import joblib
    from dask.distributed import Client
    client = Client("scheduler-address:8786")   # registers joblib's "dask" backend
    with joblib.parallel_config(backend="dask"):
        run_experiment("bipartite_scaling", out="results", jobs=-1)

    # Ray: from ray.util.joblib import register_ray; register_ray(); then backend="ray".

Neither Dask nor Ray is a dependency of exactalign; install them only on the cluster side.

Timings measured under ``jobs > 1`` share the machine with other units; ``meta.json`` records
``jobs`` so such numbers can be told apart.
"""

from __future__ import annotations

import copy
import csv
import datetime as _dt
import importlib.metadata
import json
import math
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

#: The checkout the experiments belong to (``git rev-parse HEAD`` runs here).
CHECKOUT = Path(__file__).resolve().parent.parent

#: Distributions whose versions every ``meta.json`` records (``None`` when not installed).
VERSIONED = ("exactalign", "highspy", "scipy", "pulp", "numpy", "joblib", "matplotlib")

#: Keys of every ``meta.json``.
META_KEYS = ("experiment", "description", "quick", "config", "seeds", "seeding", "time_limits",
             "versions", "python", "git", "machine", "jobs", "data", "rows", "columns",
             "started", "wall_time_s", "argv")


class ExperimentError(RuntimeError):
    """An experiment found a violated invariant (e.g. a heuristic beating the exact optimum)."""


# ------------------------------------------------------------------------------------------
# registry access
# ------------------------------------------------------------------------------------------
def registry() -> dict:
    """The experiment registry (imported lazily: the experiment modules import this one)."""
    from . import REGISTRY

    return REGISTRY


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
# progress and parallelism
# ------------------------------------------------------------------------------------------
def progress_enabled(quiet: bool) -> bool:
    """Progress bars only on an interactive terminal and never with ``--quiet``."""
    return not quiet and sys.stderr.isatty()


def _indexed(fn: Callable, i: int, unit: Any) -> tuple[int, Any]:
    return i, fn(unit)


def parallel_map(fn: Callable[[Any], Any], units: Sequence[Any], *, jobs: int = 1,
                 desc: str | None = None, quiet: bool = False) -> list:
    """``[fn(u) for u in units]``, computed by ``joblib.Parallel(n_jobs=jobs)``, in input order.

    ``fn`` must be a module-level function (it is pickled to the workers) and each unit
    independent. Results arrive as they complete (a tqdm bar counts them when
    :func:`progress_enabled`); they are returned in the order of ``units``. With ``jobs=1``
    everything runs in this process. No backend is named, so an enclosing
    ``joblib.parallel_config(backend="dask"|"ray"|...)`` moves the units to a cluster."""
    import joblib
    from tqdm.auto import tqdm

    if jobs == 0:
        raise ValueError("jobs must be a positive number of processes or negative (joblib "
                         "semantics: -1 = all CPUs), not 0")
    units = list(units)
    out: list = [None] * len(units)
    par = joblib.Parallel(n_jobs=jobs, return_as="generator_unordered")
    gen = par(joblib.delayed(_indexed)(fn, i, u) for i, u in enumerate(units))
    with tqdm(total=len(units), desc=desc, disable=not progress_enabled(quiet),
              unit="unit", leave=False) as bar:
        for i, res in gen:
            out[i] = res
            bar.update(1)
    return out


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

    ``None`` and NaN become empty cells; floats are written round-trip exact."""
    cols = list(columns)
    for k, row in enumerate(rows):
        if set(row) != set(cols):
            extra = sorted(set(row) - set(cols))
            missing = sorted(set(cols) - set(row))
            raise ExperimentError(f"row {k} does not match the declared columns "
                                  f"(extra: {extra}, missing: {missing})")
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        for row in rows:
            w.writerow({c: _cell(row[c]) for c in cols})
    os.replace(tmp, path)


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
               wall_time: float, rows: int) -> dict[str, Any]:
    """The ``meta.json`` record of one run (keys :data:`META_KEYS`)."""
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
        "data": {"used": module.DATA_SOURCE, "data_dir": data_description()},
        "rows": rows,
        "columns": list(module.COLUMNS),
        "started": started,
        "wall_time_s": wall_time,
        "argv": list(sys.argv),
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
                   reg: dict | None = None) -> Path:
    """Run experiment ``name`` and write ``<out>/<name>/rows.csv`` and ``meta.json``.

    Figures left by an earlier run in that folder are removed (they no longer match the CSV);
    :func:`make_figures` draws new ones. Returns the experiment's folder."""
    reg = registry() if reg is None else reg
    module = reg[resolve_names([name], reg)[0]]
    config = config_for(module, quick=quick, seed=seed)
    started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    rows = module.run(config, jobs=jobs, quiet=quiet)
    wall = time.perf_counter() - t0
    if not rows:
        raise ExperimentError(f"experiment {name} produced no rows")
    folder = Path(out) / name
    folder.mkdir(parents=True, exist_ok=True)
    for fig in module.FIGURES:
        (folder / fig).unlink(missing_ok=True)
    write_rows(folder / "rows.csv", rows, module.COLUMNS)
    meta = build_meta(name, module, config, quick=quick, jobs=jobs, started=started,
                      wall_time=wall, rows=len(rows))
    with open(folder / "meta.json", "w", encoding="utf-8") as fh:
        json.dump(meta, fh, indent=2, sort_keys=False)
        fh.write("\n")
    return folder


def present(out: str | Path, reg: dict | None = None) -> list[str]:
    """Registered experiments that have a ``rows.csv`` under ``out``."""
    reg = registry() if reg is None else reg
    return [n for n in reg if (Path(out) / n / "rows.csv").is_file()]


def make_figures(out: str | Path = "results", names: Iterable[str] | None = None,
                 reg: dict | None = None) -> list[Path]:
    """Draw every figure of the experiments present under ``out`` (or of ``names``) from their
    ``rows.csv`` alone, into ``<out>/<name>/``. Returns the files written."""
    reg = registry() if reg is None else reg
    names = present(out, reg) if names is None else resolve_names(list(names), reg)
    written: list[Path] = []
    for n in names:
        csv_path = Path(out) / n / "rows.csv"
        if not csv_path.is_file():
            raise FileNotFoundError(f"{csv_path} does not exist: run `python -m experiments run "
                                    f"{n} --out {out}` first")
        written += [Path(p) for p in reg[n].figures(csv_path, csv_path.parent)]
    return written


def write_summary(out: str | Path = "results", reg: dict | None = None) -> Path:
    """Regenerate ``<out>/SUMMARY.md``: one headline table per experiment present, each from its
    ``rows.csv`` (plus run facts from ``meta.json`` when there)."""
    reg = registry() if reg is None else reg
    out = Path(out)
    parts = ["# Experiment summary", "",
             f"Regenerated from `{out.name}/*/rows.csv` by `python -m experiments`; each table "
             "is computed from its CSV alone.", ""]
    names = present(out, reg)
    if not names:
        parts.append("No experiment results found.")
    for n in names:
        folder = out / n
        rows = read_rows(folder / "rows.csv")
        parts += [f"## {n}", "", reg[n].DESCRIPTION, ""]
        meta_path = folder / "meta.json"
        if meta_path.is_file():
            with open(meta_path, encoding="utf-8") as fh:
                meta = json.load(fh)
            commit = (meta.get("git") or {}).get("commit") or "unknown"
            dirty = " (uncommitted changes)" if (meta.get("git") or {}).get("dirty") else ""
            parts += [f"Run: {'quick' if meta.get('quick') else 'full'} config, seed "
                      f"{meta.get('config', {}).get('seed')}, {meta.get('rows')} rows in "
                      f"{meta.get('wall_time_s', float('nan')):.1f} s with jobs="
                      f"{meta.get('jobs')}, commit `{commit[:12]}`{dirty}, "
                      f"{meta.get('machine', {}).get('cpu_count')} CPUs. "
                      f"Data: {meta.get('data', {}).get('used')}", ""]
        parts += [reg[n].summary(rows).rstrip(), ""]
        figs = [f for f in reg[n].FIGURES if (folder / f).is_file()]
        if figs:
            parts += ["Figures: " + ", ".join(f"[{f}]({n}/{f})" for f in figs), ""]
    path = out / "SUMMARY.md"
    out.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(parts), encoding="utf-8")
    return path
