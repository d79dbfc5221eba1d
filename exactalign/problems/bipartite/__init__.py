"""Weighted bipartite matching between reference and predicted items.

Given non-negative similarities ``w[i, j]`` between reference item ``i`` and predicted item ``j``
(sparse: only the candidate pairs with ``w > 0`` exist) and a *kind* of matching constraint, find
the alignment of maximum total weight. Kinds, written reference:predicted as in the "unified view"
of structured-prediction metrics (Chen et al. 2023):

========  =====================================  =====================================
kind      a reference item is matched to          a predicted item is matched to
========  =====================================  =====================================
``1:1``   at most one predicted item               at most one reference item
``1:N``   any number of predicted items            at most one reference item
``N:1``   at most one predicted item               any number of reference items
``N:N``   any number                               any number
========  =====================================  =====================================

The four faces of the problem (:mod:`exactalign.registry` lists every problem's):

* exact: :func:`ilp_model` (every kind, through any backend) and :func:`exact_special` (the
  assignment problem for 1:1 -- one item on a side by its best pair, ``linear_sum_assignment``
  when the dense matrix is small (:data:`DENSE_CELLS`), the sparse Jonker-Volgenant matching of
  ``scipy.sparse.csgraph`` otherwise, on the whole instance -- and closed forms for the other
  kinds); :func:`solve`'s ``exact`` tries the :func:`greedy` alignment first for 1:1 and keeps
  it when its dual certificate (:func:`certify`) proves it optimal;
* heuristics reproducing published procedures, with their tie-breaking: :func:`greedy`,
  :func:`pilot2015`, :func:`ref_order`;
* :func:`brute_force` for tiny inputs (enumerates matchings, independent of the ILP);
* :func:`check`, which re-verifies any alignment and recomputes its objective.

:func:`solve` runs any method by name and returns a verified :class:`~exactalign.Result`.
An alignment is an ``(k, 2)`` int64 array of ``(reference, predicted)`` pairs sorted ascending.

One idea per module; each imports only those listed before it:

* :mod:`~exactalign.problems.bipartite.instance` -- :data:`KINDS`, :class:`BipartiteInstance`,
  :func:`check`, :func:`trivial_bound`;
* :mod:`~exactalign.problems.bipartite.assignment` -- the certified assignment path
  (:func:`exact_special`, :func:`certify`, the exchange test and the residual pass);
* :mod:`~exactalign.problems.bipartite.heuristics` -- the published heuristics and
  :func:`brute_force`;
* :mod:`~exactalign.problems.bipartite.ilp` -- the ILP and its solve per component;
* :mod:`~exactalign.problems.bipartite.methods` -- :func:`solve` and :func:`solve_many`;
* :mod:`~exactalign.problems.bipartite.optima` -- among the optimal alignments
  (:func:`lexicographic`, :func:`co_optimal_range`, :func:`witness`).

Every name is handed on here (``from exactalign.problems import bipartite`` then
``bipartite.solve``, ...), and the package stays one namespace as the module it was: setting a
name on it (``monkeypatch.setattr(bipartite, "DENSE_CELLS", 0)``) sets it in every module of
the package that uses it. The helpers the module kept private before its split are handed on
under their old names too (``_improvable`` is :func:`improvable`, ...).
"""

from __future__ import annotations

from ...core.namespace import one_namespace
from . import assignment, heuristics, ilp, instance, methods, optima
from .assignment import (
    DENSE_CELLS,
    GREEDY_ROUNDS,
    SMALL_PASS_PAIRS,
    Certificate,
    assignment_edges,
    block_distances,
    certificate_rounds,
    certify,
    dual_bound,
    duals,
    exact_special,
    improvable,
    residual_distances,
    small_distances,
)
from .heuristics import (
    BRUTE_MAX_PAIRS,
    HEURISTICS,
    brute_force,
    greedy,
    pilot2015,
    pilot2015_mapping,
    ref_order,
)
from .ilp import ilp_model, lp_bound, pair_names, solve_ilp
from .instance import KINDS, BipartiteInstance, alignment_from_edges, check, trivial_bound
from .methods import EXACT_METHODS, METHODS, solve, solve_many
from .optima import Witness, co_optimal_range, lexicographic, witness

__all__ = [
    "BRUTE_MAX_PAIRS", "DENSE_CELLS", "EXACT_METHODS", "GREEDY_ROUNDS", "HEURISTICS", "KINDS",
    "METHODS", "SMALL_PASS_PAIRS", "BipartiteInstance", "Certificate", "Witness",
    "alignment_from_edges", "assignment_edges", "block_distances", "brute_force",
    "certificate_rounds", "certify", "check", "co_optimal_range", "dual_bound", "duals",
    "exact_special", "greedy", "ilp_model", "improvable", "lexicographic", "lp_bound",
    "pair_names", "pilot2015", "pilot2015_mapping", "ref_order", "residual_distances",
    "small_distances", "solve", "solve_ilp", "solve_many", "trivial_bound", "witness",
]

#: The old private names of the helpers the split made public: old name -> public name.
LEGACY_NAMES = {
    "_alignment_from_edges": "alignment_from_edges",
    "_assignment_edges": "assignment_edges",
    "_block_distances": "block_distances",
    "_certificate_rounds": "certificate_rounds",
    "_duals": "duals",
    "_improvable": "improvable",
    "_residual_distances": "residual_distances",
    "_small_distances": "small_distances",
    "_solve_ilp": "solve_ilp",
}

#: The package's modules, in import order.
PARTS = (instance, assignment, heuristics, ilp, methods, optima)

one_namespace(__name__, PARTS, LEGACY_NAMES)
