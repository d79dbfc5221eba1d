r"""The mention alignment that maximises a coreference metric: key and response mentions paired
1:1 over the pairs a matching allows, chosen so that MUC, B³, CEAFe, CEAFm or LEA -- computed on
the aligned mentions -- has the highest F1 (the exact counterpart of scorers that first align
mentions by similarity and then compute the metric on top, such as the CorefUD scorer's staged
alignment, :mod:`exactalign.metrics.coref.corefud`).

The instance (:class:`MentionAlignmentInstance`)
------------------------------------------------
Key mentions ``0..n_key-1`` in key clusters ``K_a`` (tuples of mention indices), response
mentions ``0..n_response-1`` in response clusters ``R_b``, and the *allowed pairs* ``(k, r)``
(``rows``, ``cols``) with a similarity ``weight`` and a ``stage`` (what the heuristic uses). A
mention may lie in two clusters of its side; where one cluster is needed it is the *last* one
holding it (``last(k)``, ``last(r)``: the CorefUD and CoNLL scorers' dicts).

The metric on an alignment (:func:`evaluate`, the checker)
----------------------------------------------------------
An alignment ``π`` is a set of allowed pairs, no mention in two. A key mention counts as the
response mention it is paired with and vice versa; an unpaired mention is twinless. With
``n(a, b)`` the number of mentions of ``K_a`` paired into ``last = R_b`` and ``n'(b, a)`` the
number of mentions of ``R_b`` paired with a mention whose last key cluster is ``K_a``
(``n = n'`` when no mention lies in two clusters):

* MUC: recall ``Σ_a (Σ_b n(a,b) − #{b : n(a,b) > 0}) / Σ_a (|K_a| − 1)``, precision the same
  on ``n'``;
* B³: recall ``Σ_a Σ_b n(a,b)² / |K_a| / Σ_a |K_a|``, precision on ``n'`` over ``|R_b|``;
* LEA: recall ``Σ_a |K_a| · Σ_b C(n(a,b), 2) / C(|K_a|, 2) / Σ_a |K_a|``, a singleton ``K_a``
  resolved (1) when its mention is paired into a singleton response cluster; precision mirrored;
* CEAFm / CEAFe: ``o(a, b)`` the mentions of ``K_a`` paired with a mention of ``R_b`` (any
  cluster holding it); the best 1:1 entity alignment ``σ`` of ``Σ φ(a, σ(a))``, ``φ = o``
  (CEAFm; denominators ``Σ|K_a|``, ``Σ|R_b|``) or ``2o/(|K_a| + |R_b|)`` (CEAFe; the numbers of
  clusters).

F1 is ``2PR/(P+R)`` (0 when both are 0; a ratio with denominator 0 is 0). Every denominator is
fixed by the clusters; only the numerators depend on ``π``.

The model (:func:`ilp_model`, :func:`solve`)
--------------------------------------------
Binary ``x_e`` per allowed pair, ``Σ x ≤ 1`` per mention. The numerators are linear in ``x``
and auxiliary variables, per *cell* ``(a, b)`` of the pairs that count towards ``n(a, b)``
(``n'``'s cells share the variables where they hold the same pairs):

* MUC: ``y_ab ∈ [0, 1]`` with ``y_ab ≥ x_e`` for each pair of the cell: numerator
  ``Σ x − Σ y`` (maximising pushes ``y`` down to ``[n(a,b) > 0]``);
* B³ and LEA: binaries ``z_ab,1 ≥ z_ab,2 ≥ ... ≥ z_ab,J`` with ``Σ_j z_ab,j = n(a, b)`` (so
  ``z_ab,j = [n(a,b) ≥ j]``, ``J`` the most pairs the cell can hold), ``n² = Σ (2j − 1) z_j``
  and ``C(n, 2) = Σ (j − 1) z_j``; LEA's singletons are sums of ``x`` directly;
* CEAF: binary ``s_ab`` (a 1:1 entity alignment) and ``t_e,ab ∈ [0, 1]`` with ``t ≤ x_e``,
  and per mention and cell ``Σ t ≤ s_ab``: ``Σ φ_ab t`` is the entity alignment's similarity,
  so the model chooses the mention and the entity alignments together.

With ``u = pn(x)`` and ``v = rn(x)`` the precision and recall numerators and ``pd``, ``rd`` their
denominators, ``F1 = 2 / (pd/u + rd/v)``.

* When ``u`` is a multiple of ``v`` (CEAF always: one similarity; MUC when no mention lies in two
  clusters) F1 is linear in ``v``: one MILP maximises it.
* Otherwise (B³, LEA) F1 is maximised by minimising the convex ``g = pd/u + rd/v`` by
  outer approximation (Kelley's cutting planes): the MILP minimises ``α + β`` subject to
  tangents ``α ≥ pd (2/t − u/t²)`` at points ``t`` met so far (and ``β`` likewise in ``v``),
  and ``u ≥ δ_u``, ``v ≥ δ_v`` (the smallest positive values the numerators can take: an
  alignment with ``u = 0`` or ``v = 0`` has F1 0). Tangents under-estimate ``g``, so the MILP's
  optimum (or its dual bound, when cut short) is a lower bound ``L`` on ``g`` and ``2/L`` an
  upper bound on F1; its solution is a feasible alignment. A tangent is added at each new
  ``(u, v)`` until ``g`` of the best alignment meets ``L``: finitely many steps, as ``u, v``
  take finitely many values (an iterate met again satisfies its own tangents, which closes the
  gap). When no alignment has ``u, v > 0`` the optimum is 0.

Every answer is re-verified: the alignment is checked (allowed, 1:1), the metric recomputed by
:func:`evaluate` (independent of the model), and the model's ``u(x)``, ``v(x)`` must equal the
recomputed numerators. The result (:class:`~exactalign.core.result.Result`) carries the F1 as
``objective``, the bound, the status, and in ``details`` the counts, the iterations and the MILP
nodes. :func:`brute_force` enumerates every alignment of a tiny instance; :func:`stagewise` is
the similarity heuristic (stage by stage a maximum-weight assignment, as such scorers align).

One idea per module; each imports only those listed before it:

* :mod:`~exactalign.problems.coref_alignment.instance` -- :class:`MentionAlignmentInstance`;
* :mod:`~exactalign.problems.coref_alignment.evaluation` -- the metric on an alignment
  (:func:`evaluate`, :func:`check`);
* :mod:`~exactalign.problems.coref_alignment.heuristics` -- :func:`brute_force` and
  :func:`stagewise`;
* :mod:`~exactalign.problems.coref_alignment.model` -- :class:`Formulation` and
  :func:`ilp_model`;
* :mod:`~exactalign.problems.coref_alignment.methods` -- :func:`solve`.

Every name is handed on here (``from exactalign.problems import coref_alignment as ca`` then
``ca.solve``, ...), and the package stays one namespace as the module it was
(:func:`exactalign.core.namespace.one_namespace`).
"""

from __future__ import annotations

from ...core.namespace import one_namespace
from . import evaluation, heuristics, instance, methods, model
from .evaluation import best_entity_alignment, check, check_alignment, evaluate, f1_of
from .heuristics import BRUTE_MAX_PAIRS, HEURISTICS, brute_force, stagewise
from .instance import METRICS, MentionAlignmentInstance, as_alignment
from .methods import METHODS, OA_MAX_ITER, OA_TOL, solve
from .model import Formulation, decode, formulation, ilp_model, linear_objective, master

__all__ = [
    "BRUTE_MAX_PAIRS", "HEURISTICS", "METHODS", "METRICS", "OA_MAX_ITER", "OA_TOL",
    "Formulation", "MentionAlignmentInstance", "as_alignment", "best_entity_alignment",
    "brute_force", "check", "check_alignment", "decode", "evaluate", "f1_of", "formulation",
    "ilp_model", "linear_objective", "master", "solve", "stagewise",
]

#: The old private names of the helpers the split made public: old name -> public name.
LEGACY_NAMES = {"_decode": "decode", "_linear_objective": "linear_objective",
                "_master": "master"}

#: The package's modules, in import order.
PARTS = (instance, evaluation, heuristics, model, methods)

one_namespace(__name__, PARTS, LEGACY_NAMES)
