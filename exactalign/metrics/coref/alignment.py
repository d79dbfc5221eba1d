"""CEAF's entity alignment on one identified document: the problem
(:func:`ceaf_instance`, a :class:`~exactalign.problems.bipartite.BipartiteInstance`), its solve
by exact or heuristic methods (:func:`ceaf`), and a heuristic's shortfall attributed to entity
pairs (:func:`ceaf_witness`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.result import Result
from ...problems import bipartite
from ..aggregation import PRF
from .identification import Identified

#: The CEAF variants and their similarity.
CEAF_PHI = {"ceafm": "mention", "ceafe": "entity"}
#: Ways to align CEAF entities: exact methods first, then the heuristic.
CEAF_METHODS = ("exact", "ilp", "greedy")
CEAF_HEURISTICS = ("greedy",)
#: A heuristic CEAF alignment is short of the optimum when it is lighter by more than this
#: (relative to ``max(1, optimum)``).
GAP_TOL = 1e-9


def ceaf_instance(d: Identified, phi: str) -> bipartite.BipartiteInstance:
    """The CEAF alignment problem: key entities (reference side) x response entities, weight
    ``φ3 = |K∩R|`` (``phi="mention"``) or ``φ4 = 2|K∩R|/(|K|+|R|)`` (``"entity"``); ``|K∩R|``
    counts the mentions of ``K`` that ``R`` contains (the Perl ``SIMEntityBased``)."""
    nR = len(d.response_chains)
    codes, inter, _ = d.key_response_shared  # K x R
    rows, cols = codes // max(nR, 1), codes % max(nR, 1)
    if phi == "mention":
        w = inter.astype(np.float64)
    elif phi == "entity":
        w = 2.0 * inter / (d.key_sizes[rows] + d.response_sizes[cols])
    else:
        raise ValueError(f"unknown CEAF similarity {phi!r}; choose 'mention' or 'entity'")
    # the joins' codes are distinct and ascending, each a positive overlap: canonical already
    return bipartite.BipartiteInstance._canonical(len(d.key_chains), nR, rows, cols, w)


@dataclass(frozen=True)
class Ceaf:
    """A CEAF score: the counts and the solve of the entity alignment (its objective is the
    numerator of both recall and precision)."""

    prf: PRF
    result: Result


def ceaf(d: Identified, phi: str = "entity", method: str = "exact", *,
         result: Result | None = None, **solve_options) -> Ceaf:
    """CEAFe (``phi="entity"``) or CEAFm (``"mention"``) of one document, the alignment solved
    by ``method`` (``exact``, ``ilp``, ``greedy``, or any other :func:`bipartite.solve` method);
    ``solve_options`` (``backend``, ``time_limit``, ``seed``...) go to :func:`bipartite.solve`.
    When an ILP stops on its time limit the numerator is its incumbent (a lower bound) and the
    result carries the bound. ``result``: the solve of :func:`ceaf_instance` already done (by
    :func:`~exactalign.problems.bipartite.solve_many` over a corpus)."""
    res = result if result is not None else bipartite.solve(ceaf_instance(d, phi), method,
                                                            **solve_options)
    num = 0.0 if res.objective is None else float(res.objective)
    if phi == "mention":
        dens = float(d.key_sizes.sum()), float(d.response_sizes.sum())
    else:
        dens = float(len(d.key_chains)), float(len(d.response_chains))
    return Ceaf(PRF(num, dens[0], num, dens[1]), res)


def ceaf_witness(d: Identified, inst: bipartite.BipartiteInstance, alignment,
                 optimum: float) -> dict:
    """The heuristic's shortfall on one document attributed to entity pairs: the optimal
    alignment nearest to ``alignment`` (:func:`exactalign.problems.bipartite.witness`) as
    ``{"remove", "add", "changes", "gain"}``, each pair ``{"key", "response"}`` given by its
    two chains' mentions (``[start, end]`` token offsets, as the chains list them)."""
    w = bipartite.witness(inst, alignment, optimum=optimum)

    def chain(c):
        return [list(d.spans[i]) for i in c.tolist()]

    def pairs(a):
        return [{"key": chain(d.key_chains[i]), "response": chain(d.response_chains[j])}
                for i, j in a.tolist()]

    return {"remove": pairs(w.remove), "add": pairs(w.add), "changes": w.changes,
            "gain": w.gain}
