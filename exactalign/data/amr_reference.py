"""The recipe ``amr-reference``: ``amr/reference/NAME.json`` for each AMR file pair of
:data:`exactalign.data.pilot.AMR_PAIRS`, computed by the peers themselves (the ``peers`` extra),
independently of exactalign's own solvers:

* ``test_triples``, ``gold_triples``: smatch 1.0.4's triple counts (``smatch -f TEST GOLD``: its
  AMR reader, ``rename_node``, ``get_triples``);
* ``smatch_r4_match_per_seed``: the matched triples smatch 1.0.4's hill-climber finds with 4
  restarts (``-r 4``) under the seeds 0-9 -- smatch's own ``get_amr_match``, with its module
  generator replaced by a seeded one whose argument-less ``seed()`` (smatch reseeds from system
  entropy at every initial mapping) does nothing; one generator per seed for the whole file,
  the pairs in file order, smatch's mapping cache cleared between pairs as its main loop does;
* ``optimal_match``: the maximum of smatch 1.0.4's own objective (the match counts of its
  ``compute_pool``, duplicated triples and self-loops counted as smatch counts them) over
  one-to-one mappings, solved by Smatch++'s ILP (its MIP model, CBC through ``mip``) and
  proven: the solver's bound equals its objective, else the recipe fails.

The corpus block sums the pairs (``optimal_match`` a float, as smatch's F is computed from it).
The output is deterministic (seeded climbs, proven optima, a fixed JSON layout), so the registry
pins its sha256. Without smatch, smatchpp or a working CBC the recipe is skipped and says so.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

from .pilot import AMR_PAIRS

SEEDS = tuple(range(10))
RESTARTS = 4
NOTE = ("Computed by the recipe amr-reference (exactalign.data.amr_reference) with the peers "
        "themselves. test_triples/gold_triples: smatch 1.0.4's triple counts (smatch -f TEST "
        "GOLD). smatch_r4_match_per_seed: matched triples found by smatch 1.0.4's "
        "hill-climbing with 4 restarts under the seeds 0-9 (its generator seeded, its reseeding "
        "from system entropy disabled). optimal_match: the proven maximum of smatch 1.0.4's "
        "objective (its compute_pool match counts) over one-to-one variable mappings, solved by "
        "Smatch++'s ILP (mip/CBC), independent of exactalign's solvers.")


def requires() -> str | None:
    """Why the recipe cannot run here (``None``: it can)."""
    why = ("needs the peers extra (smatch 1.0.4, smatchpp and mip with its CBC library): "
           "pip install 'exactalign[peers]'")
    try:
        import mip
        import smatch  # noqa: F401
        import smatchpp.solvers  # noqa: F401

        mip.Model()
    except Exception:  # noqa: BLE001 -- any import or CBC loading failure means "cannot run"
        return why
    return None


class _NoReseed(random.Random):
    """A seeded generator whose argument-less ``seed()`` does nothing (smatch calls it at every
    initial mapping to draw fresh entropy)."""

    def seed(self, *args, **kwargs):
        if args or kwargs:
            super().seed(*args, **kwargs)


def _amr_lines(path: Path) -> list[str]:
    import smatch

    out = []
    with open(path, encoding="utf-8") as fh:
        while True:
            line = smatch.amr.AMR.get_amr_line(fh)
            if not line:
                return out
            out.append(line)


def _triples(line: str, prefix: str):
    import smatch

    g = smatch.amr.AMR.parse_AMR_line(line)
    g.rename_node(prefix)
    return g.get_triples()


def _optimum(test: str, gold: str, ilp) -> tuple[int, int, int]:
    """(optimal match, test triples, gold triples) of one pair: smatch's objective, solved by
    Smatch++'s ILP and proven."""
    import smatch

    i1, a1, r1 = _triples(test, "a")
    i2, a2, r2 = _triples(gold, "b")
    _, weights = smatch.compute_pool(i1, a1, r1, i2, a2, r2, "a", "b")
    unary, binary = Counter(), Counter()
    for (i, j), row in weights.items():
        for key, w in row.items():
            if key == -1:
                unary[(i, j)] += w
            elif key[0] > i:  # each relation match is stored both ways: counted once
                binary[(i, j, key[0], key[1])] += w
    size = max(len(i1), len(i2), 1)
    _, value, bound = ilp.solve(unary, binary, size)
    if round(value) != round(bound) or abs(value - round(value)) > 1e-6:
        raise ValueError(f"Smatch++'s ILP did not prove the optimum (objective {value}, "
                         f"bound {bound})")
    return int(round(value)), len(i1) + len(a1) + len(r1), len(i2) + len(a2) + len(r2)


def _climbs(tests: list[str], golds: list[str]) -> list[list[int]]:
    """Per pair, smatch's ``-r 4`` match under each seed of :data:`SEEDS`."""
    import smatch

    saved = smatch.random, smatch.iteration_num
    per_pair: list[list[int]] = [[] for _ in tests]
    try:
        smatch.iteration_num = RESTARTS + 1
        for seed in SEEDS:
            smatch.random = _NoReseed(seed)
            for k, (t, g) in enumerate(zip(tests, golds, strict=True)):
                smatch.match_triple_dict.clear()
                per_pair[k].append(int(smatch.get_amr_match(t, g)[0]))
    finally:
        smatch.random, smatch.iteration_num = saved
        smatch.match_triple_dict.clear()
    return per_pair


def reference(amr: Path, name: str) -> dict:
    """The reference rows of the pair ``name`` of :data:`AMR_PAIRS` (files under ``amr``)."""
    from smatchpp import solvers

    test_file, gold_file, n = AMR_PAIRS[name]
    tests, golds = _amr_lines(amr / test_file), _amr_lines(amr / gold_file)
    if len(tests) != n or len(golds) != n:
        raise ValueError(f"{name}: {len(tests)} and {len(golds)} graphs, not {n}")
    ilp = solvers.ILP(max_seconds=3600)
    climbs = _climbs(tests, golds)
    rows, m_sum, t_sum, g_sum = [], 0, 0, 0
    for k, (t, g) in enumerate(zip(tests, golds, strict=True)):
        opt, nt, ng = _optimum(t, g, ilp)
        if max(climbs[k]) > opt:
            raise ValueError(f"{name} pair {k}: smatch matched {max(climbs[k])} triples, above "
                             f"the optimum {opt}")
        rows.append({"pair": k, "test_triples": nt, "gold_triples": ng,
                     "optimal_match": float(opt), "smatch_r4_match_per_seed": climbs[k]})
        m_sum, t_sum, g_sum = m_sum + opt, t_sum + nt, g_sum + ng
    p = m_sum / t_sum if t_sum else 0.0
    r = m_sum / g_sum if g_sum else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"test_file": test_file, "gold_file": gold_file, "pairs": n, "note": NOTE,
            "corpus": {"test_triples": t_sum, "gold_triples": g_sum,
                       "optimal_match": float(m_sum), "precision": p, "recall": r, "f1": f},
            "per_pair": rows}


def reference_path(name: str) -> str:
    return f"amr/reference/{name}.json"


def needs() -> tuple[str, ...]:
    """The pilot files the recipe reads."""
    return tuple(sorted({f"amr/{p}" for test, gold, _ in AMR_PAIRS.values()
                         for p in (test, gold)}))


def build(root: Path) -> dict[str, bytes]:
    """Every pair's reference file, from the AMR files under ``root``."""
    return {reference_path(name): (json.dumps(reference(root / "amr", name), indent=1)
                                   + "\n").encode("utf-8")
            for name in sorted(AMR_PAIRS)}
