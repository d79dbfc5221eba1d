"""Order-preserving (monotone) matching of two sequences or two DAGs.

Chen et al. (2023), "A Unified View of Evaluation Metrics for Structured Prediction", §5 (Eq. 37)
and App. A.2: two structures whose items carry an order -- a total order for sequences, a partial
order for DAGs -- are scored by the maximum-weight matching that *preserves* the order.

Definitions
-----------
Each side is a strict partial order ``<`` on its items ``0..n-1`` (:class:`Order`): for a
sequence ``i < j`` iff ``i`` comes first; for a DAG ``u < v`` iff ``v`` is reachable from ``u``
(the transitive closure of the edges given; a cycle is an input error). Items are *comparable*
when ``u < v`` or ``v < u``, otherwise *incomparable*.

Candidate pairs ``(a, b)`` of a reference item ``a`` and a predicted item ``b`` carry a weight
``w > 0`` (sparse, as in :mod:`~exactalign.problems.bipartite`). The *kind* caps how often an item
is matched, written reference:predicted: ``1:1`` (default), ``1:N`` (a reference item may take
several predicted items, each predicted item at most one), ``N:1`` (the converse).

Two matched pairs ``(a, b)`` and ``(a', b')`` *cross* when ``a < a'`` and ``b' < b`` (or the
same with the roles exchanged). A matching is *monotone* (the default, ``strict=False``) when no
two of its pairs cross and every item respects the capacity of the kind. Incomparable items
constrain nothing: if ``a`` and ``a'`` are incomparable, their partners may be in any relation,
and a comparable pair may be mapped onto an incomparable one. Under 1:N a reference item's
several partners may be in any order among themselves (they are matched to one item, which is
not ordered against itself).

The *strict* variant (``strict=True``) requires the matching to be an order embedding on the
matched items: for every two matched pairs ``[a < a'] == [b < b']`` (and hence also
``[a' < a] == [b' < b]``), so comparable items map to comparable items in the same direction and
incomparable to incomparable. It is the rule of the metametric library's ILP (Chen et al.'s
implementation), which forbids two pairs whenever the reachability of the reference items
differs from that of the predicted items. On sequences it forbids an item to be matched twice
(two partners of one item are comparable to each other but the item is not to itself), so
strict sequence matching is 1:1 matching for every kind.

The four faces
--------------
* exact: :func:`sequence_dp` (weighted LCS, with the alignment, for two total orders) and the
  ILP of :func:`ilp_model` in two formulations:

  Pairs are ordered by ``e ◁ e'`` iff ``a ⊑ a'`` and ``b' ⊑ b`` (``⊑`` is ``<=`` on a side
  whose items have capacity 1 and ``<`` on a side with unlimited capacity). Two pairs are
  comparable under ``◁`` exactly when they cross or share a capacity-1 item whose partners are
  comparable, so a monotone matching meets every ``◁``-chain at most once: the chain (clique)
  inequalities ``sum_{e in chain} x_e <= 1`` hold, and with the capacity rows they define the
  problem. There are exponentially many chains; both compact formulations project exactly onto
  all of them with one continuous "heaviest chain below" variable per node of a small DAG:

  - ``"compact"`` (default): ``U(e) >= x[e] + U(f)`` for every cover ``f ◁ e`` of the Hasse
    diagram of ``◁`` restricted to the candidates, with ``U(f) = x[f]`` for a minimal ``f``,
    ``U(e) = 1`` for a maximal ``e`` and a continuous ``u[e] in [0, 1]`` in between. One row per
    cover; a cover between a minimal and a maximal candidate is a pairwise row.
  - ``"grid"``: ``u[a, b]`` per cell of ``A x B`` that lies between two candidates, bounding the
    heaviest chain in ``{(a', b'): a' <= a, b' >= b}``, with rows along the Hasse edges of the
    two orders (``u[a,b] >= u[p,b] (+ x[a,b])`` for a Hasse predecessor ``p`` of ``a``,
    ``u[a,b] >= u[a,s] (+ x[a,b])`` for a Hasse successor ``s`` of ``b``; ``x`` is added when
    the neighbour's region lies strictly ``◁``-below ``(a, b)``).
  - ``"pairwise"``: one row ``x_e + x_f <= 1`` per crossing (or, strict, order-mismatched)
    pair of candidates, plus the capacity rows -- the formulation of the public implementation
    (metametric ``MonotonicityConstraintBuilder``, which in addition has a dense variable per
    ``A x B`` cell and both orientations of every row). Kept as a cross-check; its size grows
    with the square of the number of candidates.

  Both compact LPs have the same bound (the chain polytope), never above the pairwise LP bound;
  on two sequences (1:1) the conflict graph is a comparability graph, hence perfect, and the LP
  is integral. Measured on random DAG pairs (``experiments/monotone_gap.py``, n = 20..200): on
  sparse orders ``"compact"`` and ``"pairwise"`` are alike in size and time; on denser ones
  ``"compact"`` is 4-20x smaller, its LP bound is within 2-6% of the optimum against 13-32% for
  ``"pairwise"``, and it proves n = 200 optimal in about 11 s where the pairwise model has 174k
  rows. ``"grid"`` is the largest. Hence ``"compact"`` is the default.
  The strict variant adds pairwise rows for the order-mismatched pairs that do not cross.
* heuristics: :func:`greedy` (by weight with an order check), :func:`linext` (the DP over one
  linear extension of each DAG -- exact on chains), :func:`local_search` (from greedy);
* :func:`brute_force` for tiny inputs (enumerates conflict-free sets; independent of the ILP);
* :func:`check`, which re-verifies any alignment and recomputes its objective.

:func:`solve` runs any method by name and returns a verified :class:`~exactalign.Result`. An
alignment is a ``(k, 2)`` int64 array of ``(reference, predicted)`` pairs sorted ascending.
Connected components of the candidate graph are *not* solved separately: crossings couple them.

One idea per module; each imports only those listed before it:

* :mod:`~exactalign.problems.monotone.orders` -- :class:`Order` and its boolean products;
* :mod:`~exactalign.problems.monotone.instance` -- :class:`MonotoneInstance`, the conflicts
  and :func:`check`;
* :mod:`~exactalign.problems.monotone.dp` -- :func:`sequence_dp`;
* :mod:`~exactalign.problems.monotone.heuristics` -- the heuristics and :func:`brute_force`;
* :mod:`~exactalign.problems.monotone.ilp` -- the three formulations and the ILP's solve;
* :mod:`~exactalign.problems.monotone.methods` -- :func:`solve`.

Every name is handed on here, and the package stays one namespace as the module it was
(:func:`exactalign.core.namespace.one_namespace`); the helpers the module kept private before
its split are handed on under their old names too.
"""

from __future__ import annotations

from ...core.errors import InfeasibleAlignmentError
from ...core.namespace import one_namespace
from . import dp, heuristics, ilp, instance, methods, orders
from .dp import sequence_dp
from .heuristics import (
    BRUTE_MAX_PAIRS,
    HEURISTICS,
    brute_force,
    filter_pairwise,
    filter_sequences,
    greedy,
    linext,
    local_search,
    score_order,
)
from .ilp import (
    COMPACT_MAX_CELLS,
    FORMULATIONS,
    PAIRWISE_MAX_ROWS,
    ilp_model,
    lp_bound,
    pairwise_model,
    solve_ilp,
)
from .instance import (
    KINDS,
    MonotoneInstance,
    alignment_from_edges,
    check,
    conflict_pairs,
    conflicts,
)
from .methods import EXACT_METHODS, METHODS, solve
from .orders import COMPOSE_ROWS, Order, compose

__all__ = [
    "BRUTE_MAX_PAIRS", "COMPACT_MAX_CELLS", "COMPOSE_ROWS", "EXACT_METHODS", "FORMULATIONS",
    "HEURISTICS", "KINDS", "METHODS", "PAIRWISE_MAX_ROWS", "InfeasibleAlignmentError",
    "MonotoneInstance", "Order", "alignment_from_edges", "brute_force", "check",
    "compose", "conflict_pairs", "conflicts", "filter_pairwise", "filter_sequences", "greedy",
    "ilp_model", "linext", "local_search", "lp_bound", "pairwise_model", "score_order",
    "sequence_dp", "solve", "solve_ilp",
]

#: The old private names of the helpers the split made public: old name -> public name.
LEGACY_NAMES = {
    "_COMPOSE_ROWS": "COMPOSE_ROWS",
    "_alignment": "alignment_from_edges",
    "_compose": "compose",
    "_filter_pairwise": "filter_pairwise",
    "_filter_sequences": "filter_sequences",
    "_score_order": "score_order",
    "_solve_ilp": "solve_ilp",
}

#: The package's modules, in import order.
PARTS = (orders, instance, dp, heuristics, ilp, methods)

one_namespace(__name__, PARTS, LEGACY_NAMES)
