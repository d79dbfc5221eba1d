"""Temporal graphs: point algebra, closure, consistency, maximum-weight consistent subsets and
relabelling under transitivity.

One idea per module, each importing only those above it in this list:

* :mod:`~exactalign.problems.temporal.algebra` -- TimeML relations as point relations
  (UzZaman & Allen 2011, Table 2), the closure of a graph of them, transitive reduction, and a
  witness cycle of an inconsistent graph;
* :mod:`~exactalign.problems.temporal.subset` -- the maximum-weight consistent subset of a
  graph's links, with its four faces (exact ILPs, greedy heuristics, brute force, checker);
* :mod:`~exactalign.problems.temporal.relabelling` -- choosing one label per interval pair,
  consistent and of maximum score (global inference), with its four faces.

Every name is handed on here: ``from exactalign.problems import temporal as tp`` then
``tp.solve``, ``tp.Closure``, ``tp.relabel``, ...
"""

from __future__ import annotations

from .algebra import (
    INVERSE,
    POINT_RELATIONS,
    Closure,
    Reach,
    TemporalInstance,
    canonical_relation,
    find_inconsistency,
    is_known,
    transitive_reduction,
    witness,
)
from .relabelling import (
    RELABEL_METHODS,
    RelabelInstance,
    brute_relabel,
    check_labels,
    greedy_relabel,
    relabel,
    relabel_model,
    triangle_model,
)
from .subset import (
    HEURISTICS,
    METHODS,
    brute_force,
    check,
    greedy_confidence,
    greedy_cycles,
    greedy_order,
    ilp_rank_model,
    solve,
)

__all__ = ["POINT_RELATIONS", "INVERSE", "canonical_relation", "is_known", "TemporalInstance",
           "Closure", "find_inconsistency", "check", "ilp_rank_model", "solve", "brute_force",
           "HEURISTICS", "METHODS", "Reach", "RelabelInstance", "relabel", "relabel_model",
           "triangle_model", "greedy_relabel", "brute_relabel", "check_labels",
           "RELABEL_METHODS", "transitive_reduction", "witness", "greedy_order",
           "greedy_confidence", "greedy_cycles"]
