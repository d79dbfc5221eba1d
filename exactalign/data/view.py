"""A data directory as its recipes make it today.

A copy of the pilot folder made earlier (the developers' ``../shared/pilot``, or an old
``$EXACTALIGN_DATA``) can hold *derived* files whose recipe now makes other bytes -- the three
perturbed ACE systems, say, once they were made by :mod:`exactalign.data.recipes` instead of
recorded. The recipe's output wins: :func:`current` finds such files (:func:`stale_files`),
rebuilds them into the fetch cache when their recipe can run here (its downloads already in
the cache from an earlier ``exactalign data fetch``, or none needed), and returns a *view* --
a folder of symbolic links to the copy's files and to the rebuilt ones, under
``<cache>/.rebuilt/`` -- so that a run on the copy and a run on a fetched cache read the same
bytes. A stale file that cannot be rebuilt here is left out of the view, as it is absent from a
fetch that could not run its recipe; the data layer says so once per process on stderr.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from .registry import Registry, check, load

#: Under the cache: the rebuilt files (``files/``) and the views (``views/KEY/``).
REBUILT = ".rebuilt"
_told: set[str] = set()  # views announced in this process (one notice each)


def _derived(reg: Registry) -> list:
    return [reg.files[p] for p in sorted(reg.pilot) if reg.files[p].kind == "derived"]


@functools.lru_cache(maxsize=16)
def _stale(root: str, stamp: tuple) -> tuple[str, ...]:
    entries = _derived(load())
    return tuple(p for p, state in check(Path(root), entries).items() if state == "mismatch")


def stale_files(root: Path, reg: Registry | None = None) -> tuple[str, ...]:
    """The derived registry files present in ``root`` whose bytes are not the registry's (what
    their recipes make today), in path order; hashed again only when one's size or time
    changes."""
    reg = reg or load()
    stamp = []
    for e in _derived(reg):
        try:
            st = (root / e.path).stat()
            stamp.append((e.path, st.st_size, st.st_mtime_ns))
        except OSError:
            stamp.append((e.path, None, None))
    return _stale(str(root), (reg.digest(), *stamp))


def current(path: Path, source: str, cache: Path):
    """``(path, rebuilt, left_out)``: ``path`` itself when none of its derived files is stale;
    else a view of it in which the stale files are the recipes' output (``rebuilt``), or absent
    where the recipe cannot run here (``left_out``). Never raises for a cache it cannot write:
    then the copy is used as it is and the notice says so."""
    reg = load()
    stale = stale_files(path, reg)
    if not stale:
        return path, (), ()
    store = cache / REBUILT
    try:
        from .fetch import rebuild

        with _locked(store):  # one process rebuilds; the others then find the files in place
            # a recipe that failed once with this registry is not run again by every process
            record = store / "failed.json"
            try:
                before = json.loads(record.read_text()) if record.is_file() else {}
            except ValueError:
                before = {}
            failed: set[str] = set()
            built = rebuild(store / "files", path, stale, downloads=cache, registry=reg,
                            progress=lambda msg: print(f"exactalign: {source}: {msg}",
                                                       file=sys.stderr, flush=True),
                            skip=frozenset(before.get(reg.digest(), [])), failed=failed)
            if failed:
                record.write_text(json.dumps(
                    {reg.digest(): sorted(failed | set(before.get(reg.digest(), [])))}))
        view = _view(path, store, reg, built)
    except OSError as exc:
        _notice(f"exactalign: {source}: {len(stale)} derived files differ from what their "
                f"recipes make today ({stale[0]}, ...), and the cache {cache} cannot hold the "
                f"rebuilt ones ({exc}): reading them as they are", key=f"{path}:error")
        return path, (), ()
    left = tuple(p for p in stale if p not in built)
    msg = (f"exactalign: {source}: {len(stale)} derived files differ from what their recipes "
           f"make today; reading {len(built)} rebuilt ones from {store / 'files'}")
    if left:
        msg += (f"; {len(left)} left out (their recipe cannot run here, e.g. {left[0]}; "
                "docs/data.md says what each recipe needs)")
    _notice(msg, key=str(view))
    return view, tuple(built), left


@contextlib.contextmanager
def _locked(store: Path):
    """An exclusive lock on ``store`` (a file lock: processes wait for each other)."""
    store.mkdir(parents=True, exist_ok=True)
    with open(store / ".lock", "w") as fh:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no lock
            yield
            return
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _notice(msg: str, key: str) -> None:
    if key not in _told:
        _told.add(key)
        print(msg, file=sys.stderr, flush=True)


def _view(root: Path, store: Path, reg: Registry, built: list[str]) -> Path:
    """The view of ``root`` with ``built`` (under ``store/files``) in place of its own: one
    folder per content, made once (in a temporary folder, then renamed: safe when several
    processes make it at once)."""
    files = store / "files"
    key = hashlib.sha256(json.dumps(
        [str(root), reg.digest(), sorted(built)]).encode()).hexdigest()[:16]
    view = store / "views" / key
    if view.is_dir():
        return view
    view.parent.mkdir(parents=True, exist_ok=True)
    stale = set(stale_files(root, reg))
    tmp = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=view.parent))
    try:
        for rel in sorted(reg.files):
            if rel in stale:
                if rel not in built:
                    continue
                target = files / rel
            else:
                target = root / rel
                if not target.is_file():
                    continue
            link = tmp / rel
            link.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(target.resolve(), link)
        try:
            os.rename(tmp, view)
        except OSError:
            if not view.is_dir():  # not another process's view in place: a real failure
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return view
