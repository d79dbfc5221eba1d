"""Counter at DRS_parsing's tag v.2.2.0 (ec4eb07), with which PMB 2.2.0's results were published:
its referee (exactalign.io.drs_referee_v220) on hand-written SDRSs, its clause rules
(exactalign.metrics.drs.V220_OPTIONS), the published eval.txt of the pilot's PMB 2.2.0 runs
reproduced by ``--counter v.2.2.0`` (skipped without the pilot), and the old referee itself
when a checkout of ec4eb07's ``evaluation/`` is named by ``EXACTALIGN_COUNTER_V220``."""

from __future__ import annotations

import json
import os
import random
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from exactalign.cli import main
from exactalign.data import resolve_data_dir
from exactalign.io.drs import parse_drs, read_drs_file
from exactalign.io.drs_referee import check_drs
from exactalign.io.drs_referee_v220 import SIGNATURE_V220, SPAR_DRS_V220, problems_v220
from exactalign.metrics.drs import (
    COUNTER_VERSIONS,
    SIGNATURE_OPTIONS,
    V220_OPTIONS,
    counter_drs,
)

#: An SDRS as PMB 2.2.0 writes one: k0 holds b1 and b2 (``DRS``) and relates them.
SDRS = """\
k0 DRS b1
k0 DRS b2
k0 CONTINUATION b1 b2
b1 REF x1
b1 male "n.02" x1
b2 REF e1
b2 smile "v.01" e1
b2 Agent e1 x1
"""


def problems(text, sig=SIGNATURE_V220):
    (d,) = parse_drs(text, "h.txt")
    return problems_v220(d, sig)


def test_an_sdrs_is_well_formed_then_and_ill_formed_now():
    assert problems(SDRS) == []
    assert problems(SDRS, None) == []  # by the operators' form alone too
    (d,) = parse_drs(SDRS, "h.txt")
    assert "unknown operator, role or concept 'DRS'" in check_drs(d)[0]


@pytest.mark.parametrize("text, words", [
    # k0 introduces b1, b2 but relates b1 and b3
    (SDRS.replace("CONTINUATION b1 b2", "CONTINUATION b1 b3"), "differ from the boxes"),
    # the discourse relation over two boxes, as today's signature has it: an arity error then
    (SDRS.replace("CONTINUATION b1 b2", "CONTINUATION b1"), "takes 2 argument(s)"),
    # PRESUPPOSITION was not in the signature yet
    ("b1 REF x1\nb1 male \"n.02\" x1\nb2 PRESUPPOSITION b1\n", "unknown operator"),
    # two boxes of which neither subordinates the other: no main box
    ("b1 REF x1\nb1 male \"n.02\" x1\nb2 REF x2\nb2 dog \"n.01\" x2\n", "main box"),
    ("b1 REF x1\nb1 NOT b2\nb2 Agent e1 x1\nb2 sleep \"v.01\" e1\n", "unbound referents: e1"),
    ("b1 REF x1\nb1 dog \"n.01\" b1\n", "type clash"),
    ("b1 REF x1\nb1 Name x1 \"new\n", "ill-formed"),
])
def test_ill_formed_then(text, words):
    found = problems(text)
    assert len(found) == 1 and words in found[0][0], found


def test_the_signature_of_then():
    assert SIGNATURE_V220["DRS"] == ("DRS", "bb")
    assert SIGNATURE_V220["EXPLANATION"] == ("DRL", "bbb")
    assert SIGNATURE_V220["Name"] == ("CRO", "btt")
    assert SIGNATURE_V220["Part"] == ("ORO", "btt")
    for later in ("PRESUPPOSITION", "Proposition", "Bearer", "AttributeOf", "minute"):
        assert later not in SIGNATURE_V220
    assert SPAR_DRS_V220[-1] == ("k0", "smile", '"v.01"', "e1")


def test_clause_rules_then():
    """Then: DRS and PRP over boxes whatever -g, DUP and PRESUPPOSITION not; SY1/SY2 not
    operators (read as a concept: the clause compares as one)."""
    assert {"DRS", "PRP", "ANSWER"} <= V220_OPTIONS.op_boxes
    assert not {"DUP", "PRESUPPOSITION"} & V220_OPTIONS.op_boxes
    assert COUNTER_VERSIONS == ("190838f", "v.2.2.0")
    drs = [("b1", "REF", "x1"), ("b1", "REF", "x2"), ("b1", "SY1", "x1", "x2"),
           ("k0", "DRS", "b9")]
    now, then = counter_drs(drs, SIGNATURE_OPTIONS), counter_drs(drs, V220_OPTIONS)
    assert len(now.lists["roles"]) == 0 and len(now.lists["op_three_vars"]) == 1
    assert len(then.lists["op_three_vars"]) == 0 and len(then.lists["concepts"]) == 1
    # DRS's second argument a box then (its type compared), a referent now
    assert then.types[then.lists["op_two_vars"][0][2]] == "b"
    assert now.types[now.lists["op_two_vars"][0][2]] == "x"


def test_the_command_takes_the_counter_of_then(tmp_path, capsys):
    pred, gold = tmp_path / "p.txt", tmp_path / "g.txt"
    pred.write_text(SDRS.replace("smile", "grin"))
    gold.write_text(SDRS)
    assert main(["drs", str(pred), str(gold), "--counter", "v.2.2.0", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    counts = doc["overall"]["exact"]["counts"]
    assert counts == {"matched": 5, "test_clauses": 6, "gold_clauses": 6}
    assert doc["overall"]["hillclimb"]["counts"]["matched"] == 5
    # today's Counter stops at the DRS clause (-ill error, its default)
    assert main(["drs", str(pred), str(gold), "--json"]) == 2
    assert "DRS 1 is ill-formed: unknown operator, role or concept 'DRS'" in \
        capsys.readouterr().err
    assert main(["drs", str(pred), str(gold), "--counter", "v.3.1.0"]) == 2
    assert "invalid choice" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------
# the published PMB 2.2.0 results (pilot)
# ------------------------------------------------------------------------------------------
DRS = resolve_data_dir().path / "drs" if resolve_data_dir().available else None
needs_pilot = pytest.mark.skipif(DRS is None or not (DRS / "gold/pmb-2.2.0").is_dir(),
                                 reason="no pilot drs/ data")


def published(run: Path, kind: str) -> float:
    want = None
    for line in (run.parent / "eval.txt").read_text().splitlines():
        if line.startswith("For score-type:"):
            want = line.split(":", 1)[1].strip()
        elif line.startswith("All scores:") and want == kind:
            return [float(x) for x in line.split(":", 1)[1].split(",")][int(run.stem[6:]) - 1]
    raise AssertionError(f"no {kind} in {run.parent / 'eval.txt'}")


@needs_pilot
@pytest.mark.parametrize("split", ["dev", "test"])
def test_published_2_2_0_scores_are_reproduced_and_never_above_the_optimum(split):
    """bert_only run 1: eval.txt's P, R and F are the hill-climbing's and the proven
    optimum's under the Counter of then; no DRS ill-formed then (17 gold DRSs of dev, 19 of
    test are, under today's referee)."""
    from exactalign.drs import score_files

    run = DRS / f"systems/pmb-2.2.0/en/{split}/bert_only/output1.txt"
    rep = score_files(run, DRS / f"gold/pmb-2.2.0/{split}.txt", counter="v.2.2.0",
                      method="both")
    assert rep.ill == {"pred": 0, "gold": 0}
    assert rep.proven_pairs == len(rep.pairs)
    for m in ("hillclimb", "exact"):
        got = rep.overall[m]
        assert (got["precision"], got["recall"], got["f1"]) == \
            (published(run, "Precision"), published(run, "Recall"), published(run, "F-score")), m


@needs_pilot
@pytest.mark.slow
def test_every_published_2_2_0_f_is_at_most_the_optimum():
    from exactalign.drs import score_files

    runs = sorted((DRS / "systems/pmb-2.2.0/en").glob("*/*/output*.txt"))
    assert len(runs) == 40
    for run in runs:
        rep = score_files(run, DRS / f"gold/pmb-2.2.0/{run.parts[-3]}.txt", counter="v.2.2.0",
                          method="exact")
        assert published(run, "F-score") <= rep.overall["exact"]["f1"], run
        assert rep.proven_pairs == len(rep.pairs), run


# ------------------------------------------------------------------------------------------
# the referee of then itself (a checkout of DRS_parsing ec4eb07's evaluation/, optional)
# ------------------------------------------------------------------------------------------
OLD = os.environ.get("EXACTALIGN_COUNTER_V220")


@pytest.mark.skipif(not OLD, reason="EXACTALIGN_COUNTER_V220 (ec4eb07's evaluation/) not set")
@needs_pilot
def test_the_same_verdicts_as_the_referee_of_then(monkeypatch):
    """Every pilot DRS and 3,000 mutated ones, with and without the signature."""
    monkeypatch.syspath_prepend(OLD)
    monkeypatch.chdir(OLD)
    sys.modules.pop("clf_referee", None)
    import clf_referee as peer

    sig = peer.get_signature("clf_signature.yaml")
    assert {k: tuple(v) for k, v in sig.items()} == SIGNATURE_V220

    def agree(d):
        for s, ours in ((sig, SIGNATURE_V220), ({}, None)):
            try:
                peer.check_clf([tuple(c) for c in d.clauses], s, v=0)
                theirs = True
            except Exception:
                theirs = False
            assert theirs == (not problems_v220(d, ours)), (d.path, d.index, d.clauses)

    pool = [d for f in sorted(DRS.rglob("*.txt")) for d in read_drs_file(f) if d.clauses]
    for d in pool:
        agree(d)
    rng = random.Random(0)
    for _ in range(3000):
        d = rng.choice(pool)
        cl = [list(c) for c in d.clauses]
        for _ in range(rng.randint(1, 3)):
            other = rng.choice(rng.choice(pool).clauses)
            i = rng.randrange(len(cl))
            r = rng.random()
            if r < 0.4:
                cl[i][rng.randrange(len(cl[i]))] = rng.choice(other)
            elif r < 0.6 and len(cl) > 1:
                del cl[i]
            elif r < 0.8:
                cl.append(list(other))
            else:
                cl[i][0] = rng.choice(["b1", "b2", "b3", "k0", "b4"])
        agree(replace(d, clauses=tuple(tuple(c) for c in cl), lines=(1,) * len(cl)))
