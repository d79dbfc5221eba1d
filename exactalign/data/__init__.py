"""Where the pilot data lives, and how a user gets it.

Resolution order (:func:`resolve_data_dir`):

1. ``$EXACTALIGN_DATA``: a directory, or ``none`` to switch pilot data off (synthetic instances
   only, e.g. to check that everything runs without it);
2. ``../shared/pilot`` next to the checkout (the developers' copy);
3. the cache that ``exactalign data fetch`` fills from the public sources (:func:`cache_dir`:
   ``$EXACTALIGN_CACHE``, else the per-user cache of :mod:`platformdirs`), once it holds files;
4. none -- callers then fall back to the project's own synthetic generators and say so.

Extra files -- public data registered after the pilot folder was assembled (the registry's
``"extra": true`` entries, e.g. ``coref/ud-english-gum``) -- are not in ``../shared/pilot``;
:func:`extra_root` finds them in the data directory in use, else in the fetch cache.

The pilot files are never copied into the project: :mod:`exactalign.data.registry` lists each
one with its public source (repository, commit, path), sha256 and licence, and
:mod:`exactalign.data.fetch` downloads, verifies and rebuilds them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import InputError

ENV_VAR = "EXACTALIGN_DATA"
#: Relocates the fetched cache (default: the per-user cache directory, :func:`cache_dir`).
CACHE_VAR = "EXACTALIGN_CACHE"
#: Values of ``$EXACTALIGN_DATA`` that switch the pilot data off.
OFF = ("none", "off", "synthetic")
CHECKOUT = Path(__file__).resolve().parents[2]
SHARED = CHECKOUT.parent / "shared" / "pilot"


@dataclass(frozen=True)
class DataDir:
    path: Path | None
    source: str  # "$EXACTALIGN_DATA", "../shared/pilot", "cache", "$EXACTALIGN_DATA=none", "synthetic"
    #: The copy ``path`` views, when it is a view (:mod:`exactalign.data.view`): ``rebuilt``
    #: its derived files read from what their recipes make today, ``left_out`` those whose
    #: recipe cannot run here.
    base: Path | None = None
    rebuilt: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()

    @property
    def available(self) -> bool:
        return self.path is not None

    def describe(self) -> str:
        if self.path is None:
            if self.source != "synthetic":
                return (f"pilot data switched off ({self.source}): experiments use their "
                        "synthetic instances where they have them")
            return ("no pilot data found ($EXACTALIGN_DATA unset, no ../shared/pilot next to the "
                    "checkout, nothing fetched: run `exactalign data fetch`): experiments use "
                    "their synthetic instances where they have them")
        if self.base is not None:
            return (f"pilot data from {self.base} (via {self.source}), {len(self.rebuilt)} "
                    f"derived files as their recipes make them today"
                    + (f", {len(self.left_out)} left out (their recipe cannot run here)"
                       if self.left_out else "") + f": the view {self.path}")
        return f"pilot data from {self.path} (via {self.source})"

    def require(self, *parts: str) -> Path:
        """Path of a file or folder in the data directory, or a clear error."""
        if self.path is None:
            raise InputError("this needs the pilot data: run `exactalign data fetch`, set "
                             "$EXACTALIGN_DATA, or place ../shared/pilot next to the checkout")
        p = self.path.joinpath(*parts)
        if not p.exists():
            raise InputError(f"{p} does not exist in the pilot data directory ({self.source})")
        return p


def cache_dir(env: dict | None = None) -> Path:
    """Where ``exactalign data fetch`` puts the pilot data by default: ``$EXACTALIGN_CACHE``,
    else ``<the user's cache directory>/exactalign/pilot`` (:func:`platformdirs.user_cache_dir`).
    """
    env = os.environ if env is None else env
    value = env.get(CACHE_VAR)
    if value:
        return Path(value).expanduser().resolve()
    import platformdirs

    return Path(platformdirs.user_cache_dir("exactalign", appauthor=False)) / "pilot"


def _has_files(path: Path) -> bool:
    """Whether ``path`` holds a file outside dot-folders (a fetch's downloads and stamp do not
    count, nor do empty folders)."""
    try:
        return any(p.is_file() for top in path.iterdir() if not top.name.startswith(".")
                   for p in ([top] if top.is_file() else top.rglob("*")))
    except OSError:
        return False


def resolve_data_dir(env: dict | None = None) -> DataDir:
    env = os.environ if env is None else env
    value = env.get(ENV_VAR)
    if value:
        if value.strip().lower() in OFF:
            return DataDir(None, f"${ENV_VAR}={value.strip()}")
        p = Path(value).expanduser()
        if not p.is_dir():
            raise InputError(f"${ENV_VAR} is set to {value!r}, which is not a directory "
                             f"(or 'none' to use synthetic instances only)")
        return _current(p.resolve(), f"${ENV_VAR}", env)
    if SHARED.is_dir():
        return _current(SHARED, "../shared/pilot", env)
    cache = cache_dir(env)
    if cache.is_dir() and _has_files(cache):
        return DataDir(cache, "cache")
    return DataDir(None, "synthetic")


def _current(path: Path, source: str, env) -> DataDir:
    """``path`` as its recipes make it today (:func:`exactalign.data.view.current`)."""
    from .view import current

    view, rebuilt, left = current(path, source, cache_dir(env))
    if view == path:
        return DataDir(path, source)
    return DataDir(view, source, path, rebuilt, left)


def extra_root(prefix: str, env: dict | None = None) -> Path | None:
    """The directory that holds every registry file under ``prefix`` (a folder of extra files,
    e.g. ``coref/ud-english-gum``), each with the registry's size: the data directory in use
    (:func:`resolve_data_dir`), else -- unless ``$EXACTALIGN_DATA`` names a directory, which is
    then the only place looked at -- the fetch cache (:func:`cache_dir`). ``None`` when pilot
    data is switched off (``$EXACTALIGN_DATA=none``) or neither holds them all. (The sha256s
    are checked by ``exactalign data fetch`` and ``data status``, not on every lookup.)"""
    from .registry import load, select

    env = os.environ if env is None else env
    entries = select(load(), [prefix])
    data = resolve_data_dir(env)
    if not data.available:  # switched off, or nothing anywhere (an empty cache included)
        return None
    if data.source == f"${ENV_VAR}":
        places = [data.path]
    else:
        places = [data.path, cache_dir(env)]
    for root in dict.fromkeys(places):
        if all((root / e.path).is_file() and (root / e.path).stat().st_size == e.size
               for e in entries):
            return root
    return None
