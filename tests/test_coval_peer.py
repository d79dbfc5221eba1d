"""Side by side with coval itself (ns-moosavi/coval, a checkout named by ``EXACTALIGN_COVAL``;
skipped without it): its own test files (``tests/``: the reference scorer's TC cases, boundary,
split, merge, ... -- no parse column, so under the four sets of ``remove_singletons`` and
``remove_nested``) and 40 held-out generated parsed pairs (:mod:`exactalign.perturb.conll`)
under all sixteen sets of coval's options. Every float coval's evaluator returns -- recall,
precision and F1 of mentions, MUC, B3, CEAFe and LEA -- must be ours bit for bit, except CEAFe's,
whose numerator may be the same optimum summed in another order (a few ulps; see
:mod:`exactalign.metrics.coref.coval`); CEAFm is compared on its numerator (coval's ``ceafm``
divides by the numbers of entities).

coval runs in one subprocess (``EXACTALIGN_COVAL_PYTHON``, default this interpreter: it needs
numpy and scipy) that imports the checkout's modules, so all runs cost one start-up.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from exactalign.metrics.coref import coval
from exactalign.perturb.conll import synthetic_pair

COVAL = os.environ.get("EXACTALIGN_COVAL")
pytestmark = pytest.mark.skipif(not COVAL, reason="EXACTALIGN_COVAL not set")

#: Run against the checkout: one JSON job per line in, one result per line out.
DRIVER = r"""
import contextlib, io, json, sys
sys.path.insert(0, sys.argv[1])
from coval.conll import reader
from coval.eval import evaluator
metrics = [("mentions", evaluator.mentions), ("muc", evaluator.muc),
           ("bcub", evaluator.b_cubed), ("ceafe", evaluator.ceafe),
           ("ceafm", evaluator.ceafm), ("lea", evaluator.lea)]
for line in sys.stdin:
    job = json.loads(line)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            infos = reader.get_coref_infos(job["key"], job["sys"], job["NP_only"],
                                           job["remove_nested"], not job["remove_singletons"],
                                           job["min_span"])
            out = {}
            for name, metric in metrics:
                ev = evaluator.Evaluator(metric)
                for doc in infos:
                    ev.update(infos[doc])
                out[name] = [ev.get_recall(), ev.get_precision(), ev.get_f1(),
                             float(ev.get_counts()[2])]
    except Exception as e:
        out = {"error": f"{type(e).__name__}: {e}"}
    print(json.dumps(out), flush=True)
"""
NAMES = ("remove_singletons", "remove_nested", "NP_only", "min_span")
#: CEAFe may be summed in another order than coval's: at most this many ulps apart.
CEAFE_ULPS = 4


def _jobs(tmp: Path) -> list[dict]:
    jobs = []
    tests = Path(COVAL) / "tests"
    pairs = [(k, r) for k in sorted(tests.rglob("*.key"))
             for r in sorted(k.parent.glob(k.stem + "-*.response"))]
    pairs += [(k, r) for k in sorted(tests.rglob("key"))
              for r in sorted(k.parent.iterdir()) if r.name != "key"]
    for (key, resp), flags in itertools.product(pairs, itertools.product((False, True),
                                                                          repeat=2)):
        jobs.append({"key": str(key), "sys": str(resp), **dict(zip(NAMES, flags + (False,
                                                                                    False),
                                                                    strict=True))})
    for seed in range(100, 140):
        k, r = synthetic_pair(seed, documents=2, rate=0.4)
        (tmp / f"{seed}.key").write_text(k, encoding="utf-8")
        (tmp / f"{seed}.sys").write_text(r, encoding="utf-8")
        for flags in itertools.product((False, True), repeat=4):
            jobs.append({"key": str(tmp / f"{seed}.key"), "sys": str(tmp / f"{seed}.sys"),
                         **dict(zip(NAMES, flags, strict=True))})
    return jobs


def _ulps(a: float, b: float) -> float:
    import math

    return abs(a - b) / math.ulp(max(abs(a), abs(b), 1e-300))


def test_every_number_is_covals(tmp_path):
    jobs = _jobs(tmp_path)
    assert len(jobs) > 1000, "coval's tests/ were not found in the checkout"
    python = os.environ.get("EXACTALIGN_COVAL_PYTHON", sys.executable)
    run = subprocess.run([python, "-c", DRIVER, COVAL],
                         input="".join(json.dumps(j) + "\n" for j in jobs),
                         capture_output=True, text=True, timeout=1800, check=True)
    peer = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(peer) == len(jobs)
    identical = ceafe_ulps = 0
    for job, theirs in zip(jobs, peer, strict=True):
        assert "error" not in theirs, (job, theirs)
        opts = coval.CovalOptions(job["remove_singletons"], job["remove_nested"],
                                  job["NP_only"], job["min_span"])
        s = coval.score_files(job["key"], job["sys"], options=opts)
        for m in ("mentions", "muc", "bcub", "ceafe", "lea"):
            p = s.mentions if m == "mentions" else s.overall[m]
            for ours, t in zip((p.recall, p.precision, p.f1), theirs[m][:3], strict=True):
                if ours == t:
                    identical += 1
                else:
                    assert m == "ceafe" and _ulps(ours, t) <= CEAFE_ULPS, (job, m, ours, t)
                    ceafe_ulps += 1
        assert s.overall["ceafm"].recall_num == theirs["ceafm"][3], job
    assert identical > 15_000 and ceafe_ulps < identical / 1000, (identical, ceafe_ulps)
