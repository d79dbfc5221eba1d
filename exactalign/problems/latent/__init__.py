"""Latent-variable matching: the problem behind Smatch (Cai & Knight 2013).

Two sets of *triples* -- the left (test) and the right (gold) side -- whose fields are constants
or *variables*. A triple is either unary, ``(key, v)`` (a label and a constant, one variable:
AMR instance and attribute triples), or binary, ``(key, v1, v2)`` (a label, two variables: AMR
relation triples); ``key`` is any hashable, compared for equality (for AMR the normalised
label and constant), or -- DRS clauses (Counter, PMB) -- ternary, ``(key, v1, v2, v3)`` (``b2
Agent e1 x1``, ``b1 IMP b2 b3``, ``b1 EQU x1 x2``; a concept ``b2 carry "v.01" e1`` is a binary
clause with key ``("carry", "v.01")``). A *mapping* pairs left variables with right variables
one-to-one (a variable may stay unmapped); an instance may restrict it to an ``allowed`` set of
``(left, right)`` variable pairs (docSmatch's sentence buckets, DRS boxes onto boxes only): a
pair outside it credits nothing. Under a mapping ``m`` a left triple and a right triple of equal
key and arity *match* when every variable field is mapped onto the corresponding field: ``m(v)
= w`` for unary triples, ``m(v1) = w1`` and ``m(v2) = w2`` for binary ones, and ``m(v3) = w3``
too for ternary ones. The objective is the number of
matching (left triple, right triple) pairs -- every pair counts, so a triple repeated on both
sides counts as often as smatch 1.0.4's ``compute_match`` counts it. Smatch is the F1 of that
maximum against the two triple counts.

Compiled form (:class:`LatentInstance`): the *useful variable pairs* ``p = (a, b)`` -- those some
triple pair needs -- with ``unary[p]``, the number of triple pairs that need ``p`` alone (unary
triples, and binary ones whose two variables coincide on both sides), and the *pair-of-pairs*
``(p, q)``, ``p < q``, with ``bin_w``, the number of binary triple pairs needing both. A binary
pair needing two variable pairs that share exactly one variable can never match and is dropped.
Ternary clause pairs (``tri_p < tri_q < tri_r``, ``tri_w``: the *triples of pairs*) need
``(a_i, b_i)`` for ``i = 1, 2, 3``: when ``a_i == a_j`` and ``b_i != b_j`` for some fields (or
the reverse: a variable repeated on one side only) it can never match and is dropped; otherwise
its distinct pairs make it a unary term (one pair: the same variable in all three fields on
both sides), a pair of pairs (two) or a triple of pairs (three, pairwise distinct on both
sides). A clause pair some of whose pairs ``allowed`` excludes is dropped too. Smatch instances
have no triples of pairs; their compiled form and every result are unchanged.

Building one (:class:`LatentInstance`): ``LatentInstance.from_clauses(n_left, n_right, left,
right, allowed=None)``, ``left`` and ``right`` lists of clauses of mixed arity (``(key, v)``,
``(key, v1, v2)``, ``(key, v1, v2, v3)``, variables ``0..n - 1``), ``allowed`` ``None``, a set of
``(left, right)`` pairs or a predicate ``allowed(v, w)``; or the constructor with
``left_ternary=`` / ``right_ternary=``. ``solve(inst)`` (or ``solve_exact_many(instances)``)
returns a verified :class:`~exactalign.Result`: ``objective``, ``status`` (``OPTIMAL`` when
proven), ``bound``, ``alignment`` (the mapping array).

Faces (every problem has the same four; see :mod:`exactalign.registry`):

* :func:`ilp_model` -- the ILP of Chen et al. (2023, App. A.1, Eqs. 43-45; their optional
  Eqs. 46-47, each triple matched at most once, are left out: smatch 1.0.4 counts every matching
  pair, and its optimum is what is computed here): ``x_p`` per useful variable pair,
  ``y_pq`` per pair of pairs (aggregated over triple pairs with the same ``(p, q)``), objective
  ``sum unary_p x_p + sum bin_w y_pq``, ``sum_b x_ab <= 1`` per left variable ``a`` and
  ``sum_a x_ab <= 1`` per right variable ``b`` (rows only where two or more pairs compete), and
  linking. ``linking="simple"``: ``y_pq <= x_p``, ``y_pq <= x_q``. ``linking="aggregated"``
  (default, measured faster: tighter LP, fewer branches): for every pair ``p`` and every variable
  ``a'`` on the left (``b'`` on the right) of its partners, ``sum_{q: left(q) = a'} y_pq <= x_p``
  (and the same per right variable) -- valid because ``a'`` maps to at most one variable, and
  each such row implies the simple ones. Triples of pairs add columns ``z_pqr`` (objective
  ``+ sum tri_w z_pqr``): simple, ``z_pqr <= x_p, x_q, x_r``; aggregated, for every pair ``e``
  of a triple and the set ``{a', a''}`` of its two partners' left variables (right likewise),
  ``sum z <= x_e`` over the triples holding ``e`` and pairs on ``a'`` and ``a''``
  (:func:`~.model._ternary_blocks`).
* :func:`solve` with ``method="exact"`` (:func:`solve_exact_many` for many instances):
  independent components (left and right variables connected by useful pairs and pairs of
  pairs); the LP relaxation of a batch of instances in one HiGHS call; the objective is an
  integer, so a component whose LP value ``v`` satisfies ``floor(v + 1e-6) ==`` incumbent is
  proven optimal without branching (the incumbent is the LP point when integral -- always for
  components without pairs of pairs, whose LP is an assignment LP -- else its assignment
  rounding, through :mod:`exactalign.problems.bipartite`, improved by the hill-climber's moves);
  the others go to the MIP, warm-started from that incumbent. Instances with triples of pairs
  take :func:`~.ternary.solve_ternary_many`, the same steps without column generation, PDLP and
  the Lagrangian tightening (:mod:`.colgen` and :mod:`.lagrange` know only pairs of pairs; a
  batch LP that does not finish leaves its components to their MIPs, bounded by the sum of
  their weights), the rounding improved by :func:`~.ternary.improve` (smatch's moves, ternary
  terms counted) instead of the hill-climber.
* :func:`branch_and_bound` (``solve(..., "bnb")``) -- a pure-Python exact search for small
  instances, cross-checked against the ILP and brute force; the Smatch metric tries it first.
  Instances with ternary clauses go to :func:`~.bnb3.branch_and_bound3` (its own, simpler
  bound: every live term's weight split among its undecided pairs).
* :func:`hillclimb_mapping` -- smatch 1.0.4's ``get_best_match`` reproduced exactly (candidate pool,
  smart initial mapping, random restarts, best move or swap, stop when no gain, tie-breaking).
  It knows no ternary clauses: ``solve(..., "hillclimb")`` refuses instances with them.
* :func:`brute_force` (tiny instances) and :func:`check` (re-verifies a mapping and recomputes
  its objective).

A mapping (the alignment of a :class:`~exactalign.Result`) is a ``(k, 2)`` int64 array of
``(left variable, right variable)`` rows sorted ascending.

One idea per module; each imports only those listed before it:

* :mod:`~exactalign.problems.latent.arrays` -- the compiled form as read-only arrays
  (:func:`compile_arrays`);
* :mod:`~exactalign.problems.latent.instance` -- the problem, :class:`LatentInstance`;
* :mod:`~exactalign.problems.latent.matches` -- a mapping's objective counted from the triples
  (:func:`count_matches`, :func:`matched_pairs`, :func:`mapping_rows`);
* :mod:`~exactalign.problems.latent.hillclimb` -- smatch 1.0.4's hill-climber;
* :mod:`~exactalign.problems.latent.bnb` -- the pure-Python branch and bound;
* :mod:`~exactalign.problems.latent.model` -- mapping arrays, :func:`check` and the ILP;
* :mod:`~exactalign.problems.latent.brute` -- :func:`brute_force`;
* :mod:`~exactalign.problems.latent.colgen` -- the LP of a big model by column generation;
* :mod:`~exactalign.problems.latent.lagrange` -- the bound of an LP stopped by the time limit,
  lowered by the Lagrangian dual of the linking rows;
* :mod:`~exactalign.problems.latent.exact` -- the ``exact`` method (:func:`solve_exact_many`);
* :mod:`~exactalign.problems.latent.ternary` -- its path for instances with ternary terms, and
  the improving moves (:func:`~.ternary.improve`);
* :mod:`~exactalign.problems.latent.bnb3` -- the branch and bound of instances with ternary
  clauses;
* :mod:`~exactalign.problems.latent.methods` -- every method by name (:func:`solve`);
* :mod:`~exactalign.problems.latent.corpus` -- a metric's pairs solved as one job
  (:func:`solve_corpus`: the branch and bound first, the LPs of the rest, worker processes, the
  hill-climbing's one generator).

Every name is handed on here: ``from exactalign.problems import latent`` then ``latent.solve``,
``latent.LatentInstance``, ... :mod:`.instance`, :mod:`.matches`, :mod:`.hillclimb` and
:mod:`.bnb` are pure Python and imported at once; the names of the others are imported on first
use (PEP 562), so that ``exactalign smatch`` on a small file, which needs only the pure-Python
half, pays neither numpy nor scipy nor a solver at start-up (their imports cost more than
scoring a hundred small AMR pairs; measured in the module docstring of
:mod:`exactalign.metrics.smatch`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .bnb import (
    BNB_MAX_DEPTH,
    BNB_MAX_SIZE,
    BNB_WORK_LIMIT,
    UNDECIDED,
    BnbOutcome,
    bnb_result,
    branch_and_bound,
)
from .hillclimb import (
    DEFAULT_RESTARTS,
    Climber,
    hillclimb_mapping,
    hillclimb_result,
    smatch_pool,
)
from .instance import LatentInstance, LatentSide, compiled_view
from .matches import count_matches, mapping_rows, matched_pairs, matched_ternary

#: name -> module (relative to this package) of the names imported on first use (numpy).
_LAZY = {
    "compile_arrays": ".arrays",
    "as_mapping_array": ".model",
    "check": ".model",
    "decode_point": ".model",
    "ilp_model": ".model",
    "mapping_array": ".model",
    "model_point": ".model",
    "BRUTE_MAX_PAIRS": ".brute",
    "brute_force": ".brute",
    "BATCH_COLUMNS": ".exact",
    "BYTES_PER_COLUMN": ".exact",
    "BYTES_PER_COLGEN_COLUMN": ".exact",
    "memory_estimate": ".exact",
    "INT_TOL": ".exact",
    "LARGE_LP_COLUMNS": ".exact",
    "component_labels": ".exact",
    "solve_exact_many": ".exact",
    "solve_ternary_many": ".ternary",
    "improve": ".ternary",
    "branch_and_bound3": ".bnb3",
    "trivial_bound": ".exact",
    "EXACT_METHODS": ".methods",
    "HEURISTICS": ".methods",
    "METHODS": ".methods",
    "solve": ".methods",
    "CorpusSolve": ".corpus",
    "exact_results": ".corpus",
    "hillclimb_results": ".corpus",
    "solve_corpus": ".corpus",
}

__all__ = ["BNB_MAX_DEPTH", "BNB_MAX_SIZE", "BNB_WORK_LIMIT", "UNDECIDED", "BnbOutcome",
           "bnb_result", "branch_and_bound", "DEFAULT_RESTARTS", "Climber", "hillclimb_mapping",
           "hillclimb_result", "smatch_pool", "LatentInstance", "LatentSide", "compiled_view",
           "count_matches", "mapping_rows", "matched_pairs", "matched_ternary", "compile_arrays", "as_mapping_array",
           "check", "decode_point", "ilp_model", "mapping_array", "model_point", "BRUTE_MAX_PAIRS",
           "brute_force", "BATCH_COLUMNS", "BYTES_PER_COLUMN", "BYTES_PER_COLGEN_COLUMN", "INT_TOL",
           "LARGE_LP_COLUMNS", "component_labels", "memory_estimate", "solve_exact_many",
           "trivial_bound", "solve_ternary_many", "improve", "branch_and_bound3", "EXACT_METHODS", "HEURISTICS", "METHODS", "solve",
           "CorpusSolve", "exact_results", "hillclimb_results", "solve_corpus"]

if TYPE_CHECKING:  # static analysers and IDEs see the eager imports
    from .arrays import compile_arrays
    from .bnb3 import branch_and_bound3
    from .brute import BRUTE_MAX_PAIRS, brute_force
    from .corpus import CorpusSolve, exact_results, hillclimb_results, solve_corpus
    from .exact import (
        BATCH_COLUMNS,
        BYTES_PER_COLGEN_COLUMN,
        BYTES_PER_COLUMN,
        INT_TOL,
        LARGE_LP_COLUMNS,
        component_labels,
        memory_estimate,
        solve_exact_many,
        trivial_bound,
    )
    from .methods import EXACT_METHODS, HEURISTICS, METHODS, solve
    from .model import (
        as_mapping_array,
        check,
        decode_point,
        ilp_model,
        mapping_array,
        model_point,
    )
    from .ternary import improve, solve_ternary_many


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # later look-ups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
