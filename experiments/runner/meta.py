"""``meta.json``: the provenance of one run -- config, seeds, library versions, Python, git
commit, machine, data directory, jobs and scheduler, instance counts."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

from .protocol import columns_of

#: The checkout the experiments belong to (``git rev-parse HEAD`` runs here).
CHECKOUT = Path(__file__).resolve().parents[2]

#: Distributions whose versions every ``meta.json`` records (``None`` when not installed).
VERSIONED = ("exactalign", "highspy", "scipy", "pulp", "numpy", "joblib", "matplotlib")

#: Keys of every ``meta.json``.
META_KEYS = ("experiment", "description", "quick", "config", "seeds", "seeding", "time_limits",
             "versions", "python", "git", "machine", "jobs", "scheduler", "data", "rows", "columns",
             "started", "wall_time_s", "argv", "instances", "fingerprint")


def version_of(dist: str) -> str | None:
    """The installed version of distribution ``dist``, ``None`` when it is absent."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def versions() -> dict[str, str | None]:
    """Installed versions of :data:`VERSIONED` (``None`` for an absent distribution)."""
    return {dist: version_of(dist) for dist in VERSIONED}


def git_info(repo: Path = CHECKOUT, exclude: tuple[str, ...] = ("results",)) -> dict[str, Any]:
    """``{"commit": HEAD or None, "dirty": bool or None}`` of ``repo``; ``dirty`` means tracked
    files outside the ``exclude`` pathspecs (default ``results/``) differ from HEAD (untracked
    files and results being rewritten by this very run do not count). ``None`` values when git
    or the repository is absent (never an error)."""

    def git(*args: str) -> str | None:
        try:
            p = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                               timeout=10, check=False)
        except (OSError, subprocess.SubprocessError):
            return None
        return p.stdout.strip() if p.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no", "--", ".",
                 *(f":(exclude){x}" for x in exclude)) if commit else None
    return {"commit": commit, "dirty": None if status is None else bool(status)}


def machine() -> dict[str, Any]:
    return {"platform": platform.platform(), "machine": platform.machine(),
            "processor": platform.processor() or None, "cpu_count": os.cpu_count(),
            "node": platform.node()}


def data_provenance(reads: tuple[str, ...] = ()) -> dict[str, Any]:
    """Where the data came from and what was read: ``source`` ($EXACTALIGN_DATA,
    ../shared/pilot, cache, $EXACTALIGN_DATA=none or synthetic), ``path``, and over the files
    under the paths ``reads`` (the experiment's ``DATA_READS``) their count and one sha256 of
    their paths and sha256s (``None`` when nothing was read), so two runs can be compared.
    ``reads`` that are folders of the registry's extra files (not part of the pilot folder,
    :func:`exactalign.data.extra_root`) are summarised apart, under ``extra``: per folder the
    directory it was found in (``None``: absent), its file count and digest."""
    from exactalign.data import extra_root, resolve_data_dir
    from exactalign.data.registry import digest_of, load, select

    try:
        d = resolve_data_dir()
    except Exception as e:  # a bad $EXACTALIGN_DATA must not stop a synthetic experiment
        return {"source": None, "path": None, "files": 0, "sha256": None, "error": str(e)}
    reg = load()
    extra = tuple(r for r in reads if all(e.extra for e in select(reg, [r])))
    pilot = tuple(r for r in reads if r not in extra)
    read = digest_of(d.path, pilot) if d.path is not None else {"files": 0, "sha256": None}
    out = {"source": d.source, "path": None if d.path is None else str(d.path), **read}
    if extra:
        out["extra"] = {}
        for prefix in extra:
            root = extra_root(prefix)
            out["extra"][prefix] = {"path": None if root is None else str(root),
                                    **(digest_of(root, (prefix,)) if root is not None
                                       else {"files": 0, "sha256": None})}
    return out


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
        "data": {"used": module.DATA_SOURCE, "data_dir": data_description(),
                 "reads": list(getattr(module, "DATA_READS", ())),
                 **data_provenance(getattr(module, "DATA_READS", ()))},
        "rows": rows,
        "columns": columns_of(module),
        "started": started,
        "wall_time_s": wall_time,
        "argv": list(sys.argv),
        "instances": instances,
        "fingerprint": fingerprint,
    }
