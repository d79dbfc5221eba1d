"""The pilot data's registry (``registry.json``, shipped in the package): every file of the pilot
folder with its sha256, size and where it comes from, and the checks of a data directory
against it.

Kinds (:data:`KINDS`): ``fetched`` (a file of a public repository at a pinned commit, as is),
``extracted`` (a member of an archive there, or the archive decompressed), ``derived`` (built by
a recipe of :mod:`exactalign.data.recipes` from files there) and ``recorded`` (no public source
gives it: a peer's output recorded when the pilot was assembled; ``why`` says what it is). A
file's URL is ``base_url + REPO/COMMIT/PATH``: ``$EXACTALIGN_DATA_URL`` replaces the base, so a
mirror is a plain directory tree served over HTTP (or a ``file://`` path).

Extra files (``"extra": true``): public data added after the pilot folder was assembled, not part
of ``../shared/pilot`` (:attr:`Registry.pilot` excludes them, :attr:`Registry.extras` lists
them). ``exactalign data fetch`` gets them like every other file; readers find them with
:func:`exactalign.data.extra_root` (the data directory in use, then the fetch cache).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import InputError

REGISTRY_FILE = Path(__file__).with_name("registry.json")
#: Replaces the registry's ``base_url`` (a mirror: ``OWNER/REPO/COMMIT/PATH`` under it).
URL_VAR = "EXACTALIGN_DATA_URL"
KINDS = ("fetched", "extracted", "derived", "recorded")
#: Files of the pilot folder that are not data: its provenance notes, written for the developers'
#: copy. The registry is the provenance (``exactalign data manifest`` prints it file by file).
NOT_DATA = ("MANIFEST.md",)


@dataclass(frozen=True)
class Entry:
    """One pilot file: ``path`` relative to the data directory."""

    path: str
    sha256: str
    size: int
    kind: str
    repo: str | None = None
    source: str | None = None  # the path in ``repo`` (fetched; extracted: the archive)
    member: str | None = None  # extracted: the archive member (None: the archive decompressed)
    recipe: str | None = None  # derived
    why: str | None = None  # recorded
    extra: bool = False  # not part of the pilot folder (module docstring)


@dataclass(frozen=True)
class Download:
    """A file fetched only to build pilot files (an archive, a recipe's input)."""

    repo: str
    path: str
    sha256: str
    size: int


@dataclass(frozen=True)
class Registry:
    base_url: str
    sources: dict  # repo -> {"commit": 40 hex, "licence": str | None}
    downloads: dict  # "repo:path" -> Download
    files: dict  # pilot path -> Entry

    @property
    def pilot(self) -> dict:
        """The files of the pilot folder (``../shared/pilot``): every file but the extras."""
        return {p: e for p, e in self.files.items() if not e.extra}

    @property
    def extras(self) -> dict:
        """The extra files: in the registry, not in the pilot folder (module docstring)."""
        return {p: e for p, e in self.files.items() if e.extra}

    def commit(self, repo: str) -> str:
        return self.sources[repo]["commit"]

    def url(self, repo: str, path: str, base: str | None = None) -> str:
        """The URL of ``path`` in ``repo`` at its pinned commit, under ``base`` (default
        :func:`base_url`)."""
        base = base_url(self) if base is None else base
        return f"{base.rstrip('/')}/{repo}/{self.commit(repo)}/{path}"

    def origin(self, entry: Entry) -> str:
        """Where ``entry`` comes from, in words (for messages and the docs' table)."""
        if entry.kind == "recorded":
            return "recorded (no public source)"
        at = f"{entry.repo}@{self.commit(entry.repo)[:7]}"
        if entry.kind == "fetched":
            return f"{at}:{entry.source}"
        if entry.kind == "extracted":
            return f"{at}:{entry.source}" + (f" member {entry.member}" if entry.member else "")
        return f"recipe {entry.recipe} from {at}"

    def digest(self) -> str:
        """sha256 of the registry's file list (path and sha256 of every file)."""
        h = hashlib.sha256()
        for path in sorted(self.files):
            h.update(f"{path}\t{self.files[path].sha256}\n".encode())
        return h.hexdigest()


@functools.cache
def load(path: Path = REGISTRY_FILE) -> Registry:
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    files = {}
    for rel, e in raw["files"].items():
        if e["kind"] not in KINDS:
            raise InputError(f"{path}: {rel}: unknown kind {e['kind']!r}")
        if e.get("extra") and e["kind"] == "recorded":
            raise InputError(f"{path}: {rel}: an extra file must have a public source")
        files[rel] = Entry(rel, e["sha256"], e["size"], e["kind"], e.get("repo"), e.get("path"),
                           e.get("member"), e.get("recipe"), e.get("why"),
                           bool(e.get("extra", False)))
    downloads = {}
    for key, d in raw["downloads"].items():
        repo, _, p = key.partition(":")
        downloads[key] = Download(repo, p, d["sha256"], d["size"])
    return Registry(raw["base_url"], raw["sources"], downloads, files)


def base_url(registry: Registry | None = None, env: dict | None = None) -> str:
    """``$EXACTALIGN_DATA_URL`` if set, else the registry's ``base_url``."""
    env = os.environ if env is None else env
    return env.get(URL_VAR) or (registry or load()).base_url


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check(root: Path, entries) -> dict[str, str]:
    """``{path: "verified" | "mismatch" | "missing"}`` of ``entries`` in ``root``."""
    out = {}
    for e in entries:
        p = root / e.path
        if not p.is_file():
            out[e.path] = "missing"
        elif p.stat().st_size != e.size or sha256_of(p) != e.sha256:
            out[e.path] = "mismatch"
        else:
            out[e.path] = "verified"
    return out


def select(registry: Registry, only: list[str] | None = None) -> list[Entry]:
    """The entries under any of the path prefixes ``only`` (all for ``None``), in path order; a
    prefix that matches nothing is an error."""
    entries = [registry.files[p] for p in sorted(registry.files)]
    if not only:
        return entries
    out = []
    for prefix in only:
        prefix = prefix.strip("/")
        hit = [e for e in entries if e.path == prefix or e.path.startswith(prefix + "/")]
        if not hit:
            raise InputError(f"--only {prefix}: no registry file under it (top folders: "
                             f"{', '.join(sorted({p.split('/')[0] for p in registry.files}))})")
        out += hit
    return sorted(set(out), key=lambda e: e.path)


def digest_of(root: Path, prefixes: tuple[str, ...]) -> dict:
    """The data an experiment read, summarised: ``{"files": n, "sha256": digest}`` over the
    path and sha256 of every file under ``prefixes`` in ``root`` (dot-files skipped)."""
    h = hashlib.sha256()
    n = 0
    for prefix in sorted(set(prefixes)):
        base = root / prefix
        paths = [base] if base.is_file() else sorted(
            p for p in base.rglob("*") if p.is_file()) if base.is_dir() else []
        for p in paths:
            rel = p.relative_to(root).as_posix()
            if any(part.startswith(".") for part in rel.split("/")):
                continue
            h.update(f"{rel}\t{sha256_of(p)}\n".encode())
            n += 1
    return {"files": n, "sha256": h.hexdigest() if n else None}
