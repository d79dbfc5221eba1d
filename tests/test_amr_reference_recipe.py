"""The recipe amr-reference (exactalign.data.amr_reference) on hand-written pairs: the peers'
triple counts and Smatch++'s proven optimum of smatch's objective equal exactalign's exact
score and brute force; the seeded climbs are reproducible and never above the optimum."""

from __future__ import annotations

import pytest

from exactalign.data import amr_reference as ref
from exactalign.io.amr import parse_graph
from exactalign.metrics import smatch
from exactalign.problems import latent

if ref.requires() is not None:
    pytest.skip(ref.requires(), allow_module_level=True)

from smatchpp import solvers  # noqa: E402

PAIRS = [
    ("(w / want-01 :ARG0 (b / boy) :ARG1 (g / go-01 :ARG0 b))",
     "(w / want-01 :ARG0 (g / girl) :ARG1 (g2 / go-01 :ARG0 g))"),
    # a duplicated relation and a self-loop: smatch's counting (c_test x c_gold, the loop once)
    ("(a / thing :mod (b / thing) :mod (b2 / thing) :ARG0 a)",
     "(x / thing :mod (y / thing) :mod (y2 / thing) :ARG0 x)"),
    ("(p / person :name (n / name :op1 \"Pat\") :ARG0-of (r / run-01))",
     "(r / run-01 :ARG0 (p / person :name (n / name :op1 \"Pat\")))"),
]


@pytest.mark.parametrize("test,gold", PAIRS)
def test_the_peers_optimum_is_exactaligns(test, gold):
    opt, nt, ng = ref._optimum(test, gold, solvers.ILP(max_seconds=60))
    t, g = parse_graph(test), parse_graph(gold)
    exact = smatch.score_pairs([(t, g)], duplicates="keep").pairs[0].exact
    brute, _ = latent.brute_force(smatch.instance_of(t, g))
    assert exact.proven_optimal and opt == exact.objective == brute
    assert (nt, ng) == (t.num_triples, g.num_triples)


def test_seeded_climbs_are_reproducible_and_below_the_optimum():
    tests, golds = [p[0] for p in PAIRS], [p[1] for p in PAIRS]
    first, again = ref._climbs(tests, golds), ref._climbs(tests, golds)
    assert first == again and all(len(c) == len(ref.SEEDS) for c in first)
    ilp = solvers.ILP(max_seconds=60)
    for (t, g), climbs in zip(PAIRS, first, strict=True):
        assert max(climbs) <= ref._optimum(t, g, ilp)[0]


@pytest.mark.slow
@pytest.mark.pilot
def test_the_recipe_makes_the_registry_bytes(tmp_path):
    """The whole recipe on the pilot's AMR files (about two minutes): every file's sha256 is
    the registry's (what `exactalign data fetch` and the data view check)."""
    import hashlib

    from exactalign.data.registry import load
    from exactalign.testing import pilot_path

    amr = pilot_path("amr")
    if amr is None:
        pytest.skip("no pilot AMR files")
    reg = load()
    built = ref.build(amr.parent)
    assert set(built) == {p for p in reg.files if p.startswith("amr/reference/")}
    for path, data in built.items():
        assert hashlib.sha256(data).hexdigest() == reg.files[path].sha256, path
