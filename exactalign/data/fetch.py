"""``exactalign data fetch``: the pilot data from its public sources, verified, in a cache.

Every download goes through :mod:`pooch` (its registry of sha256 hashes, its retries, its
temporary file moved into place only once the hash matches); archive members and recipe outputs
are checked against the registry and written atomically. So a fetch that fails half-way leaves
every file already in the cache as it was, and a file is in place only when its bytes are the
registry's.

Layout of a destination: the pilot files at their registry paths (``nugget/...``, ``amr/...``),
the archives and recipe inputs under ``.downloads/REPO/COMMIT/PATH``, and ``.fetch.json``: what
the last fetch did.
"""

from __future__ import annotations

import gzip
import io
import json
import shutil
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from ..core.errors import InputError
from ..io.atomic import atomic_open
from . import recipes
from .registry import Entry, Registry, base_url, check, load, select

DOWNLOADS = ".downloads"
STAMP = ".fetch.json"
#: Retries of a failed download (pooch waits 1 s, 2 s, ... between them).
RETRIES = 2


@dataclass
class Report:
    dest: Path
    base_url: str
    selected: int = 0
    present: int = 0  # already in place and verified
    placed: dict = field(default_factory=lambda: {"fetched": 0, "extracted": 0, "derived": 0})
    recorded: list = field(default_factory=list)  # recorded files selected (not fetchable)
    failed: list = field(default_factory=list)  # (pilot path, message)
    #: (archive or recipe input, message): downloads that are not pilot files themselves
    downloads_failed: list = field(default_factory=list)
    skipped: list = field(default_factory=list)  # (pilot path, why its recipe cannot run here)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {"dest": str(self.dest), "base_url": self.base_url, "selected": self.selected,
                "present": self.present, "placed": dict(self.placed),
                "recorded": list(self.recorded),
                "failed": [{"file": f, "problem": m} for f, m in self.failed],
                "downloads_failed": [{"file": f, "problem": m}
                                     for f, m in self.downloads_failed],
                "skipped": [{"file": f, "reason": m} for f, m in self.skipped],
                "seconds": round(self.seconds, 3)}


def _file_downloader(url: str, output_file, pooch) -> None:
    """pooch downloader for ``file://`` URLs (a mirror on disk)."""
    src = Path(unquote(urlparse(url).path))
    if not src.is_file():
        raise FileNotFoundError(f"no such file {src}")
    with open(src, "rb") as fin:
        if hasattr(output_file, "write"):
            shutil.copyfileobj(fin, output_file)
        else:
            with open(output_file, "wb") as fout:
                shutil.copyfileobj(fin, fout)


def _downloader(url: str, timeout: float):
    import pooch

    if url.startswith("file://"):
        return _file_downloader
    if url.startswith(("http://", "https://")):
        return pooch.HTTPDownloader(timeout=timeout, progressbar=False)
    raise InputError(f"unsupported URL {url!r}: $EXACTALIGN_DATA_URL must start with "
                     "http://, https:// or file://")


def _problem(exc: BaseException) -> str:
    """One line for a failed download: HTTP status, hash mismatch or network error."""
    import requests

    if isinstance(exc, requests.HTTPError) and exc.response is not None:
        return f"HTTP {exc.response.status_code} {exc.response.reason}"
    if isinstance(exc, requests.ConnectionError | requests.Timeout):
        return "cannot connect (no network, or the host is unreachable)"
    if isinstance(exc, ValueError) and "hash" in str(exc).lower():
        return "its bytes do not match the registry's sha256 (corrupted or changed at the source)"
    if isinstance(exc, FileNotFoundError):
        return "not found"
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:300]


def _decompress(data: bytes, name: str) -> bytes:
    if data[:2] == b"\x1f\x9d":  # Unix compress (.Z, LZW)
        import unlzw3

        return unlzw3.unlzw(data)
    if data[:2] == b"\x1f\x8b":
        return gzip.decompress(data)
    raise InputError(f"{name}: neither a .Z nor a gzip archive")


def _member(raw: bytes, name: str, member: str | None) -> bytes:
    """``member`` of the decompressed archive ``raw`` (``None``: ``raw`` itself)."""
    if member is None:
        return raw
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        try:
            fh = tar.extractfile(member)
        except KeyError:
            fh = None
        if fh is None:
            raise InputError(f"{name}: no member {member}")
        return fh.read()


def _place(dest: Path, entry: Entry, data: bytes) -> None:
    """Write ``data`` at ``entry``'s path atomically once it matches the registry."""
    import hashlib

    got = hashlib.sha256(data).hexdigest()
    if got != entry.sha256:
        raise InputError(f"rebuilt bytes do not match the registry's sha256 ({got[:12]} "
                         f"instead of {entry.sha256[:12]})")
    target = dest / entry.path
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(target, "wb") as fh:
        fh.write(data)


def fetch(dest: Path, *, only: list[str] | None = None, base: str | None = None,
          jobs: int = 8, retries: int = RETRIES, timeout: float = 60.0,
          registry: Registry | None = None,
          progress: Callable[[str], None] | None = None) -> Report:
    """Fetch, verify and build the registry's files (or those under the prefixes ``only``)
    into ``dest``. Failures are collected in the report, not raised: every file that can be
    had is placed."""
    import pooch

    pooch.get_logger().setLevel("WARNING")
    reg = registry or load()
    base = base_url(reg) if base is None else base
    started = time.perf_counter()
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    report = Report(dest, base)
    entries = select(reg, only)
    report.selected = len(entries)
    report.recorded = [e.path for e in entries if e.kind == "recorded"]
    wanted = [e for e in entries if e.kind != "recorded"]
    status = check(dest, wanted)
    todo = [e for e in wanted if status[e.path] != "verified"]
    report.present = len(wanted) - len(todo)
    say = progress or (lambda msg: None)

    # why a recipe cannot run here (None: it can), asked once per recipe (it may start a process)
    cannot = {name: (r.requires() if r.requires is not None else None)
              for name, r in recipes.RECIPES.items()
              if any(e.kind == "derived" and e.recipe == name for e in todo)}
    # what to download: the fetched files to their own place, archives and recipe inputs to
    # .downloads/REPO/COMMIT/PATH
    names: dict[str, tuple[str, str, str]] = {}  # pooch name -> (url, sha256, what it is for)
    for e in todo:
        if e.kind == "fetched":
            names[e.path] = (reg.url(e.repo, e.source, base), e.sha256, e.path)
        elif e.kind == "extracted":
            names[_download_name(reg, e.repo, e.source)] = (
                reg.url(e.repo, e.source, base), reg.downloads[f"{e.repo}:{e.source}"].sha256,
                f"{e.repo}:{e.source} (archive of {e.path} and others)")
        else:
            recipe = recipes.RECIPES[e.recipe]
            if cannot[e.recipe] is not None:
                continue  # skipped below, with the reason
            for p in recipe.reads:
                names[_download_name(reg, recipe.repo, p)] = (
                    reg.url(recipe.repo, p, base), reg.downloads[f"{recipe.repo}:{p}"].sha256,
                    f"{recipe.repo}:{p} (input of recipe {e.recipe})")
    if names:
        say(f"downloading {len(names)} files from {base}")
        pup = pooch.create(path=dest, base_url=base.rstrip("/") + "/", retry_if_failed=retries,
                           registry={n: f"sha256:{sha}" for n, (_, sha, _) in names.items()},
                           urls={n: url for n, (url, _, _) in names.items()})
        failed_names: dict[str, str] = {}

        def one(name: str) -> None:
            url = names[name][0]
            # pooch's own makedirs is not safe against threads racing on one folder
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            try:
                pup.fetch(name, downloader=_downloader(url, timeout))
            except InputError:
                raise
            except Exception as exc:  # one line per file, collected below
                failed_names[name] = f"{_problem(exc)} ({url})"

        order = list(names)
        one(order[0])  # alone first: when the host cannot be reached, say so once and stop
        if order[0] in failed_names and "cannot connect" in failed_names[order[0]]:
            msg = failed_names[order[0]]
            for n in order[1:]:
                failed_names[n] = f"not tried: the first download failed ({msg})"
        else:
            with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
                list(pool.map(one, order[1:]))
        for name, msg in sorted(failed_names.items()):
            (report.failed if name in reg.files else report.downloads_failed).append(
                (names[name][2], msg))
    else:
        failed_names = {}

    unpacked: dict[str, bytes] = {}  # each archive decompressed once
    for e in todo:
        if e.kind == "fetched":
            if e.path not in failed_names:
                report.placed["fetched"] += 1
            continue
        try:
            if e.kind == "extracted":
                name = _download_name(reg, e.repo, e.source)
                if name in failed_names:
                    raise InputError(("not tried: " if "not tried:" in failed_names[name] else "")
                                     + f"its archive {e.repo}:{e.source} could not be fetched")
                if name not in unpacked:
                    unpacked[name] = _decompress((dest / name).read_bytes(), e.source)
                _place(dest, e, _member(unpacked[name], e.source, e.member))
                report.placed["extracted"] += 1
        except (InputError, OSError, tarfile.TarError, EOFError, ValueError) as exc:
            report.failed.append((e.path, f"{exc} ({reg.origin(e)})"))
    derived = [e for e in todo if e.kind == "derived"]
    for name in [n for n in recipes.RECIPES if any(e.recipe == n for e in derived)]:
        recipe = recipes.RECIPES[name]  # in RECIPES' order: a recipe may need another's output
        targets = [e for e in derived if e.recipe == name]
        if cannot[name] is not None:
            report.skipped += [(e.path, cannot[name]) for e in targets]
            continue
        try:
            missing = [p for p in recipe.reads
                       if _download_name(reg, recipe.repo, p) in failed_names]
            if missing:
                first = failed_names[_download_name(reg, recipe.repo, missing[0])]
                raise InputError(("not tried: " if "not tried:" in first else "")
                                 + f"{len(missing)} of its inputs could not be fetched "
                                 f"(first: {recipe.repo}:{missing[0]})")
            needed = select(reg, list(recipe.needs)) if recipe.needs else []
            absent = [p for p, state in check(dest, needed).items() if state != "verified"]
            if absent:
                raise InputError(f"needs {len(absent)} pilot files not in place (first: "
                                 f"{absent[0]})")
            built = recipe.build(
                lambda p, r=recipe: (dest / _download_name(reg, r.repo, p)).read_bytes(), dest)
            for e in targets:
                _place(dest, e, built[e.path])
                report.placed["derived"] += 1
        except (InputError, OSError, KeyError, ValueError, subprocess.SubprocessError) as exc:
            for e in targets:
                report.failed.append((e.path, f"{exc} ({reg.origin(e)})"))
    report.seconds = time.perf_counter() - started
    _prune_empty(dest)
    _stamp(dest, reg, report)
    return report


def _prune_empty(dest: Path) -> None:
    """Remove the folders a failed download left empty (an empty tree must not look like data:
    :func:`exactalign.data.resolve_data_dir` uses the cache once it holds files)."""
    for folder in sorted((p for p in dest.rglob("*") if p.is_dir()),
                         key=lambda p: len(p.parts), reverse=True):
        try:
            folder.rmdir()  # only succeeds when empty
        except OSError:
            pass


def _download_name(reg: Registry, repo: str, path: str) -> str:
    return f"{DOWNLOADS}/{repo}/{reg.commit(repo)}/{path}"


def _stamp(dest: Path, reg: Registry, report: Report) -> None:
    record = {"registry_sha256": reg.digest(), "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
              **report.to_dict()}
    with atomic_open(dest / STAMP, "w") as fh:
        json.dump(record, fh, indent=1)
        fh.write("\n")


def stamp_of(dest: Path) -> dict | None:
    """The record of the last fetch into ``dest`` (``None``: none, or unreadable)."""
    try:
        return json.loads((dest / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def status(root: Path | None, registry: Registry | None = None,
           extra_places: list[Path] | None = None) -> dict:
    """Counts of the pilot folder's files (the registry's files but the extras) in ``root`` by
    kind and state (verified, mismatch, missing), the paths that are not verified, and under
    ``extras`` the same for the extra files, each looked for in ``extra_places`` in order
    (default: ``root``; verified in the first place that holds it with the registry's bytes, and
    where that is under ``found_in``)."""
    reg = registry or load()
    by_kind = {k: {"verified": 0, "mismatch": 0, "missing": 0} for k in
               ("fetched", "extracted", "derived", "recorded")}
    bad: dict[str, list[str]] = {"mismatch": [], "missing": []}
    entries = [reg.files[p] for p in sorted(reg.pilot)]
    states = check(root, entries) if root is not None else {e.path: "missing" for e in entries}
    for e in entries:
        by_kind[e.kind][states[e.path]] += 1
        if states[e.path] != "verified":
            bad[states[e.path]].append(e.path)
    total = {s: sum(v[s] for v in by_kind.values()) for s in ("verified", "mismatch", "missing")}
    extras = [reg.files[p] for p in sorted(reg.extras)]
    places = [p for p in (extra_places if extra_places is not None else [root]) if p is not None]
    ex_state = {e.path: "missing" for e in extras}
    found_in: dict[str, str] = {}
    for place in dict.fromkeys(places):
        for path, state in check(place, [e for e in extras
                                         if ex_state[e.path] != "verified"]).items():
            if state == "verified":
                ex_state[path] = "verified"
                found_in[path] = str(place)
            elif state == "mismatch":
                ex_state[path] = "mismatch"
    ex_total = {s: sum(v == s for v in ex_state.values())
                for s in ("verified", "mismatch", "missing")}
    return {"files": len(entries), **total, "by_kind": by_kind, "mismatched": bad["mismatch"],
            "missing_files": bad["missing"],
            "extras": {"files": len(extras), **ex_total, "found_in": found_in,
                       "mismatched": [p for p, v in ex_state.items() if v == "mismatch"]}}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def rebuild(dest: Path, root: Path, paths, *, downloads: Path,
            registry: Registry | None = None,
            progress: Callable[[str], None] | None = None,
            skip: frozenset = frozenset(), failed: set | None = None) -> list[str]:
    """The derived registry files ``paths`` in ``dest`` (a folder in the fetch layout), built
    by their recipes where each can run here without the network: its ``requires`` met, the
    files it ``needs`` verified in ``dest`` (another recipe's output) or in ``root``, and its
    downloads verified under ``downloads`` (the cache an earlier fetch filled). Files already
    in ``dest`` and verified are kept. Returns the paths of ``paths`` in place and verified; a
    recipe that cannot run, fails, or makes other bytes leaves its files out
    (:mod:`exactalign.data.view` says so). ``progress`` is told, before each recipe runs, what
    it rebuilds; recipes named in ``skip`` are not run, and the names of those that fail are
    added to ``failed``."""
    import hashlib
    import os
    import tempfile

    reg = registry or load()
    entries = [reg.files[p] for p in paths]
    done = {p for p, s in check(dest, entries).items() if s == "verified"}
    for name, recipe in recipes.RECIPES.items():  # in order: a recipe may need another's output
        targets = [e for e in entries if e.recipe == name and e.path not in done]
        if not targets or name in skip or not all((downloads / _download_name(reg, recipe.repo, p)).is_file()
                                  for p in recipe.reads):
            continue
        if recipe.requires is not None and recipe.requires() is not None:
            continue

        def read(p: str, r=recipe) -> bytes:
            data = (downloads / _download_name(reg, r.repo, p)).read_bytes()
            if hashlib.sha256(data).hexdigest() != reg.downloads[f"{r.repo}:{p}"].sha256:
                raise ValueError(f"{r.repo}:{p}: not the registry's bytes")
            return data

        needed = select(reg, list(recipe.needs)) if recipe.needs else []
        in_dest = {p for p, s in check(dest, needed).items() if s == "verified"}
        in_root = {p for p, s in check(root, needed).items() if s == "verified"}
        if any(e.path not in in_dest | in_root for e in needed):
            continue
        if progress is not None:
            progress(f"rebuilding {len(targets)} derived files with the recipe {name} "
                     f"({targets[0].path}{', ...' if len(targets) > 1 else ''}) into {dest}, "
                     "once")
        try:
            with tempfile.TemporaryDirectory(prefix="exactalign-rebuild-") as tmp:
                for e in needed:  # the recipe's root: what it needs, from dest or root
                    link = Path(tmp, e.path)
                    link.parent.mkdir(parents=True, exist_ok=True)
                    os.symlink((dest if e.path in in_dest else root).joinpath(e.path).resolve(),
                               link)
                built = recipe.build(read, Path(tmp))
            for e in targets:
                _place(dest, e, built[e.path])
                done.add(e.path)
        except (InputError, OSError, KeyError, ValueError, subprocess.SubprocessError):
            if failed is not None:
                failed.add(name)
    return [p for p in paths if p in done]
