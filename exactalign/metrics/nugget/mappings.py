"""The mention mappings by name: v1.8's global greedy and its predecessors, the exact
maximum-weight matching (:data:`MAPPINGS`), and the pilot study's span-first mappings
(:data:`SPAN_FIRST`: one mapping on spans, attributes scored on it)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import numpy as np

from ...core.result import Result, Status
from ...problems import bipartite
from .instances import PLAIN

#: mapping name -> method of :func:`exactalign.problems.bipartite.solve`.
MAPPINGS = {
    "kbp": "greedy",
    "kbp-gold-order": "ref-order",
    "pilot2015": "pilot2015",
    "exact": "exact",
}

HEURISTIC_MAPPINGS = ("kbp", "kbp-gold-order", "pilot2015")

#: Span-first mappings (:func:`span_first_results`): mapping name -> heuristic of
#: :data:`exactalign.problems.bipartite.HEURISTICS` run on the span-only candidates.
SPAN_FIRST = {"pilot2015-alg4": "pilot2015", "kbp-span-first": "greedy"}


def method_for(mapping: str, exact_method: str) -> str:
    if mapping in SPAN_FIRST:
        return mapping
    if mapping not in MAPPINGS:
        raise ValueError(f"unknown mapping {mapping!r}; choose one of "
                         + ", ".join([*MAPPINGS, *SPAN_FIRST]))
    return exact_method if mapping == "exact" else MAPPINGS[mapping]


def span_first_mapping(mapping: str, plain: bipartite.BipartiteInstance) -> list[list[int]]:
    """The span mapping M of a span-first mapping (:data:`SPAN_FIRST`) on the ``plain``
    instance: per gold mention, the system mentions mapped to it, best first.
    ``pilot2015-alg4``: Algorithm 1 of Liu et al. 2015 (:func:`bipartite.pilot2015_mapping`; a
    gold mention may collect several); ``kbp-span-first``: v1.8's 1:1 greedy on spans."""
    if SPAN_FIRST[mapping] == "pilot2015":
        return bipartite.pilot2015_mapping(plain)
    collected: list[list[int]] = [[] for _ in range(plain.n_ref)]
    for r, c in bipartite.greedy(plain).tolist():
        collected[r].append(c)
    return collected


def span_first_results(mapping: str, instances: Mapping[str, bipartite.BipartiteInstance],
                       collected: Sequence[Sequence[int]] | None = None) -> dict[str, Result]:
    """The pilot study's way of scoring attributes (Liu et al. 2015, Algorithms 1 and 4): the
    mapping M is computed **once, on spans alone** (the ``plain`` instance), and for each
    attribute combination every gold mention G scores the system mention of highest Dice in
    M_G whose attributes agree (ties: the one mapped first). ``pilot2015-alg4``: M from
    Algorithm 1 (a gold mention collects several system mentions); ``kbp-span-first``: M is
    v1.8's 1:1 greedy span mapping. Each combination's alignment is feasible for that
    combination's instance, so its TP is at most the exact mapping's, which chooses the mapping
    to maximise the attribute-augmented TP directly (the joint objective); the difference is
    what fixing the mapping on spans costs. ``collected``: M, when already computed
    (:func:`span_first_mapping`)."""
    t0 = time.perf_counter()
    if collected is None:
        collected = span_first_mapping(mapping, instances[PLAIN])
    pairs = np.array([(r, c) for r, cs in enumerate(collected) for c in cs],
                     dtype=np.int64).reshape(-1, 2)
    out = {}
    for name, inst in instances.items():
        idx = inst.pair_index(pairs)
        ok = idx >= 0
        best: dict[int, tuple[float, int]] = {}
        for (r, c), e in zip(pairs[ok].tolist(), idx[ok].tolist(), strict=True):
            w = float(inst.weights[e])
            if r not in best or w > best[r][0]:
                best[r] = (w, c)
        al = np.array(sorted((r, c) for r, (_, c) in best.items()),
                      dtype=np.int64).reshape(-1, 2)
        out[name] = Result(Status.FEASIBLE, bipartite.check(inst, al), None, al, mapping,
                           time.perf_counter() - t0)
    return out
