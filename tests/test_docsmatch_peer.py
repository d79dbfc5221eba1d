"""exactalign against docSmatch itself (docAMR 0.1.1 from PyPI, the ``peers`` extra): its
sentence buckets, and its hill-climbing call for call (with docSmatch's reseeding from system
entropy disabled and its generator seeded as ours), on DocAMR-style document graphs built from
sentence graphs (:func:`exactalign.io.docamr.join_sentences`) -- the repository's examples
always, the Little Prince bank and JAMR's parses of it with the pilot data."""

from __future__ import annotations

import random

import pytest

from exactalign.io.amr import parse_graph
from exactalign.io.docamr import join_sentences
from exactalign.metrics import smatch
from exactalign.problems import latent
from exactalign.testing import pilot_path
from tests.test_smatch import patched_climber
from tests.test_smatch_restrict import DOC, TRICKY

penman = pytest.importorskip("penman")
ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def _docsmatch(seed, monkeypatch):
    return patched_climber("docSmatch.smatch", seed, monkeypatch,
                           "docAMR (peers extra) not installed")


def _documents(path, k, n, merge, seed):
    graphs = penman.load(str(path))
    out = []
    for d in range(min(n, len(graphs) // k)):
        g = join_sentences(graphs[d * k:(d + 1) * k], merge=merge, seed=seed + d)
        try:
            out.append(penman.encode(g, indent=None))
        except Exception:  # noqa: BLE001 - a layout penman cannot write (an inverted attribute)
            continue
    return out


def _pairs():
    """(test, gold) one-line documents: the inline ones, and the docs/examples graphs joined."""
    out = [(" ".join(DOC.split()), " ".join(DOC.replace("London", "Paris").split())),
           (" ".join(TRICKY.split()), " ".join(TRICKY.replace("alpha", "gamma").split()))]
    test = _documents(ROOT / "docs" / "examples" / "test.amr", 2, 1, 0.5, 1)
    gold = _documents(ROOT / "docs" / "examples" / "gold.amr", 2, 1, 0.5, 1)
    out += list(zip(test, gold, strict=False))
    return out


def _pilot_pairs():
    base = pilot_path("amr", "lpp-test-jamr-camr")
    if base is None:
        return []
    test = _documents(base / "jamr.txt", 4, 12, 0.6, 3)
    gold = _documents(base / "lp_test.txt", 4, 12, 0.6, 3)
    return list(zip(test, gold, strict=False))


def _check(ds, pairs, seed):
    rng = random.Random(seed)
    for rt, rg in pairs:
        a, b = ds.amr.AMR.parse_AMR_line(rt), ds.amr.AMR.parse_AMR_line(rg)
        t, g = parse_graph(rt), parse_graph(rg)
        for theirs, ours in ((a, t), (b, g)):
            assert [sorted(x) for x in theirs.nodes_by_sentence] == [
                sorted(ours.variables[i] for i in bucket)
                for bucket in smatch.sentence_buckets(ours)]
        ds.match_triple_dict.clear()
        (num, nt, ng), _ = ds.get_amr_match(rt, rg)
        inst = smatch.instance_of(t, g, allowed=smatch.allowed_pairs(t, g))
        _, count, _ = latent.hillclimb_mapping(inst, 4, rng=rng)
        assert (count, t.num_triples, g.num_triples) == (num, nt, ng)
        assert rng.getstate() == ds.random.getstate()  # the same draws, in the same order
        exact = smatch.score_pairs([(t, g)], duplicates="keep", restrict="sentence")
        free = smatch.score_pairs([(t, g)], duplicates="keep")
        assert num <= exact.pairs[0].exact.objective <= free.pairs[0].exact.objective


@pytest.mark.parametrize("seed", [0, 5])
def test_buckets_and_hillclimbing_are_docsmatchs(seed, monkeypatch):
    _check(_docsmatch(seed, monkeypatch), _pairs(), seed)


@pytest.mark.pilot
@pytest.mark.parametrize("seed", [0, 5])
def test_on_little_prince_documents(seed, monkeypatch):
    pairs = _pilot_pairs()
    if not pairs:
        pytest.skip("pilot data not available")
    _check(_docsmatch(seed, monkeypatch), pairs, seed)
