"""Side by side with the CorefUD scorer itself (ufal/corefud-scorer, a checkout named by
``EXACTALIGN_COREFUD_SCORER``; skipped without it): its own test suites (``tests/tests-corefud``:
exact-match, head-match, partial-corefud-match, zeros) under four option sets, and generated
documents with system errors (:mod:`exactalign.perturb.corefud`) under all twelve (three
matchings, with and without singletons, two zero methods). Every number -- recall, precision and
F1 of the eight metrics and the CoNLL score -- must be the scorer's float bit for bit, and a run
the scorer fails on must be one :class:`InputError` here.

The scorer runs in one subprocess (``EXACTALIGN_COREFUD_PYTHON``, default this interpreter: it
needs udapi, scipy and numpy) that imports the checkout's modules and records what its
``evaluate_documents`` returns, so all runs cost one start-up.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from exactalign.core.errors import InputError
from exactalign.metrics.coref import corefud
from exactalign.perturb.corefud import synthetic_pair

SCORER = os.environ.get("EXACTALIGN_COREFUD_SCORER")
pytestmark = pytest.mark.skipif(not SCORER, reason="EXACTALIGN_COREFUD_SCORER not set")

#: Run in the scorer's checkout: one JSON job per line in, one result per line out.
DRIVER = r"""
import contextlib, importlib, io, json, os, sys
sys.path.insert(0, sys.argv[1]); os.chdir(sys.argv[1])
ua = importlib.import_module("ua-scorer")
cud = importlib.import_module("corefud-scorer")
from scorer.eval import evaluator
original = evaluator.evaluate_documents
for line in sys.stdin:
    job = json.loads(line)
    got = []
    def recording(*a, **k):
        r = original(*a, **k)
        got.append([float(x) for x in r])
        return r
    evaluator.evaluate_documents = recording
    args = cud.corefud_to_ua_args({"key_file": job["key"], "sys_file": job["sys"],
                                   "metrics": ["all"], "keep_singletons": job["s"],
                                   "match": job["match"], "exact_match": False,
                                   "zero_match_method": job["z"]})
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            ua.process_arguments(args)
            names = [n for n, _ in args["metrics"]]
            ua.evaluate(args)
        out = dict(zip(names, got))
    except Exception as e:
        out = {"error": f"{type(e).__name__}: {e}"}
    print(json.dumps(out), flush=True)
"""

SUITE_OPTIONS = [("head", False, "dependent"), ("partial", True, "linear"),
                 ("exact", True, "dependent"), ("head", True, "linear")]
ALL_OPTIONS = list(itertools.product(corefud.MATCHES, (False, True), corefud.ZERO_MATCHES))


def _jobs(tmp: Path) -> list[dict]:
    jobs = []
    suites = Path(SCORER) / "tests" / "tests-corefud"
    for key in sorted(suites.rglob("*.key")):
        for resp in sorted(key.parent.glob(key.stem + "-*.response")):
            for match, s, z in SUITE_OPTIONS:
                jobs.append({"key": str(key), "sys": str(resp), "match": match, "s": s, "z": z})
    for seed in range(100, 130):
        k, r = synthetic_pair(seed, documents=2, rate=0.4)
        (tmp / f"{seed}.key").write_text(k, encoding="utf-8")
        (tmp / f"{seed}.sys").write_text(r, encoding="utf-8")
        for match, s, z in ALL_OPTIONS:
            jobs.append({"key": str(tmp / f"{seed}.key"), "sys": str(tmp / f"{seed}.sys"),
                         "match": match, "s": s, "z": z})
    return jobs


def test_every_number_is_the_scorers(tmp_path):
    jobs = _jobs(tmp_path)
    assert len(jobs) > 400, "the scorer's test suites were not found in the checkout"
    python = os.environ.get("EXACTALIGN_COREFUD_PYTHON", sys.executable)
    run = subprocess.run([python, "-c", DRIVER, SCORER],
                         input="".join(json.dumps(j) + "\n" for j in jobs),
                         capture_output=True, text=True, timeout=1800, check=True)
    peer = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(peer) == len(jobs)
    compared = failed = 0
    for job, theirs in zip(jobs, peer, strict=True):
        where = f"{job} (scorer: {theirs.get('error', 'scored')})"
        try:
            s = corefud.score_files(job["key"], job["sys"], match=job["match"],
                                    keep_singletons=job["s"], zero_match=job["z"])
        except InputError:
            assert "error" in theirs, where
            failed += 1
            continue
        assert "error" not in theirs, where
        overall = s.overall
        for m in corefud.METRICS:
            ours = [overall[m].recall, overall[m].precision, overall[m].f1]
            assert ours == theirs[m], (where, m, ours, theirs[m])
            compared += 3
    assert compared > 10_000 and failed < len(jobs) / 10, (compared, failed)
