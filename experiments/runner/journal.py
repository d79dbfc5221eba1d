"""The journal of finished instances, which makes runs resumable: each finished instance is
appended under a stable key (:func:`unit_key`) and the run's :func:`fingerprint` (experiment,
quick flag, config and the :func:`environment`: code digest, commit, library versions, Python,
data directory); a run of the same fingerprint reuses those entries. :class:`RunState` holds
the journal, the failures and the counts of the :func:`run_experiment` in progress
(:func:`active_run`)."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import pickle
import platform
import shutil
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from .files import write_text
from .meta import data_description, git_info, versions
from .protocol import ERROR_COLUMN

#: Where the journal of finished instances lives, under ``<out>/<name>/``.
JOURNAL_DIR = ".partial"
JOURNAL_FILE = "rows.jsonl"


def _source_files() -> list[tuple[str, Path]]:
    import exactalign

    roots = {"exactalign": Path(exactalign.__file__).resolve().parent,
             "experiments": Path(__file__).resolve().parents[1]}
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


class RunState:
    """The state of one :func:`run_experiment` while its experiment runs: the journal, the
    failed instances and the counts. :func:`parallel_map` finds it with :func:`active_run`."""

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


#: The run in progress in this process (set by :func:`running`), or ``None``.
_ACTIVE: RunState | None = None


def active_run() -> RunState | None:
    """The run in progress in this process (inside :func:`running`), or ``None``."""
    return _ACTIVE


@contextlib.contextmanager
def running(run: RunState) -> Iterator[RunState]:
    """Make ``run`` the run in progress (:func:`active_run`) inside the block; the previous
    one (normally ``None``) is restored on leaving it, also on an exception."""
    global _ACTIVE
    previous, _ACTIVE = _ACTIVE, run
    try:
        yield run
    finally:
        _ACTIVE = previous
