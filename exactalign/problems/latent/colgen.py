"""The LP relaxation of a big latent model by column generation (:func:`column_generation`).

Document-level AMR pairs have hundreds of thousands of candidate pairs and pairs of pairs (a
1,500-variable pair: 530,456 pairs, 471,772 pairs of pairs), of which an optimal LP point uses a
few thousand. Column generation solves the LP on a small set ``S`` of pairs (their columns, the
pairs of pairs between them, and the rows these touch), then prices every pair outside ``S``
with the LP's duals and adds the most attractive, until none is.

Pricing is weak duality on the *whole* model (:func:`~exactalign.core.model.dual_bound_terms`):
the restricted LP's row duals, extended to the rows it does not hold (:func:`_extend`), are
multipliers of the full model's rows, so ``sum(terms)`` bounds the full LP whatever they are.
When that bound meets the restricted LP's value, the restricted point (zero outside ``S``) is an
optimal point of the full LP and the extended duals an optimal dual -- the answer the full LP
would give, which :func:`~.exact._solve_batch` certifies again per component from the duals.
Stopped earlier (time limit), the point is feasible and the duals still bound: the caller treats
them as an unfinished LP's.

The extension: a row of the full model that the restricted LP does not hold links a pair of
pairs ``y`` (both ends needed) to one end ``q`` outside ``S``; its multiplier ``g`` lowers the
reduced cost of every ``y`` in the row by ``g`` and raises ``q``'s by ``g``. A pair of pairs with
positive reduced cost ``r`` (under the restricted duals) is covered by its ends outside ``S`` (all
of ``r`` by the one end outside, half each when both are); per end, the rows grouped by the
other end's left variable or those grouped by its right variable (the two aggregated linking
rows), whichever set costs less. A pair ``q`` outside ``S`` then prices at its reduced cost with
those multipliers: positive, it may improve the LP.

Two refinements, both measured to matter. The restricted LP holds only the rows its columns need
(a linking row without a pair of pairs inside is ``-x <= 0``: two thirds of the rows on a
600-variable pair). And each round's extended duals are also *balanced* (:func:`_balance`): a
degenerate LP pays a mapped pair's weight by its column bound rather than by its variables' rows,
and moved onto the rows the same payment prices out the pairs that compete for the variable. The
balanced duals bound the whole LP far lower in early rounds (a 1,000-variable pair, round 1:
2,611 against 79,490, the LP at 1,339), which ends the search as soon as the bound is below the
next integer (``integral``); the pairs added are the most attractive under the plain extension
(they converge in fewer rounds) and every pair the balanced duals price in.

Measured (AMR Bio test bank, held out: consecutive sentences joined with
:mod:`~exactalign.io.docamr`, any variable merged at 0.3 -- ``doc_scale``'s ``any``
construction, every measurement below --, the system side perturbed, 10%), the LP alone: 600
variables, 86,435 pairs: 11 rounds, 19,608 pairs generated, the LP optimum 1,044 certified in
3.0 s (the whole LP: PDLP 14 s, dual simplex 81 s); 1,000 variables, 241,051 pairs: 20 rounds,
40,366 pairs, 35 s with 2,000 pairs a round (two thirds of it in HiGHS' re-solves, 4,000-8,000 dual
simplex iterations each: the hot start saves little once 2,000 columns come in). Primal simplex
re-solves were slower (600 variables: 20 s; 1,000: over 10 minutes), as were interior-point
duals (600: 43 s), smaller batches, one pair per variable and round, and spending the slack of
pairs inside on their missing rows (no fewer pairs generated).

Measured since, none kept but a larger :data:`BATCH` (same held-out pairs, LP alone, CPU seconds
on a loaded two-core machine; the 1,000-variable pair takes 31 s and 20 rounds, the 600-variable
one 2.5 s and 11 rounds, with 2,000 pairs a round). The rounds follow the bound, not the LP
value: every round adds its 2,000 pairs until the balanced duals' bound falls within a unit of
the LP, whatever the first set. So the primal side does not help: the sentence-restricted
optimum (docSmatch's space, ``--restrict sentence``) in the first set lifts the first restricted
LP from 1,339 to 1,747 at 1,000 variables, and it still takes 21 rounds and 40,886 pairs (the
restricted optimum, 1,676, is far below the unrestricted 1,808 when the two sides merge
coreference differently, and costs 10 s itself); 6 or 10 first pairs per variable: 20 and 17
rounds, 38 s and 40 s. On the dual side: Wentges smoothing towards the best-bound multipliers so
far is void when the round's balanced duals are that centre (they always are), and from the
plain duals (weights 0.5, 0.8) it prices in a few dozen pairs a round: 45-50 rounds and the
bound still at 2,042-2,054 after 100 s; eight balancing sweeps instead of two change nothing;
interior-point duals without crossover (central, not degenerate) generate 14,554 pairs instead
of 19,608 at 600 variables, but 13 s. Smaller restricted LPs: dropping pairs that stayed
nonbasic with a negative reduced cost for one or two rounds cycles (the extension prices them in
again: it charges them more than the rows they had inside; 1,000 rounds without closing the
gap); a cap of 2 or 5 added pairs per variable and round: 125 and 42 rounds, 16 s and 6.6 s (600
variables). The re-solves: primal simplex after rounds that add under 500 pairs cuts the last
rounds' iterations (3,976 to 5-1,215) but takes 25 rounds, 30.8 s against 31.3 s; re-solving
from scratch with presolve costs 21,000 iterations a round and lands on another dual vertex each
time (77 rounds, 187 s); HiGHS' Devex dual edge weights 16 s, Dantzig's over 270 s, no cost
perturbation 6.3 s, no scaling 2.4 s (600 variables). Kept: 4,000 pairs a round instead of 2,000
(:data:`BATCH`; fewer rounds, 13 instead of 20 at 1,000 variables, each costing little more):
whole exact runs 5-20% less CPU, most on the biggest pair (1,500 variables: 106-112 s against
130-134 s).

Kept since: the restricted LP without the pairs of pairs' bounds ``y <= 1``
(:func:`restricted_col_hi`; implied by the linking rows it holds, so the same LP), whose duals
then pay a pair of pairs' weight by linking rows that also price the pairs outside rather than by
a column bound nothing else sees. Same held-out pairs, LP alone: 600 variables 8 -> 7 rounds,
21,282 -> 21,416 pairs; 1,000 variables 13 rounds both, 44,743 -> 41,870 pairs, 24.0, 24.3 ->
17.9, 17.8 s; 1,500 variables 22 -> 20 rounds, 79,249 -> 70,235 pairs, 90.2 -> 74.2 s. Whole
exact runs (``bench``, CPU seconds, alternating): 600 variables 2.8, 2.7 -> 2.5, 2.5; 1,000
variables 25.3, 23.8 -> 17.8, 17.6; 1,500 variables 96.1, 105.1 -> 87.1, 83.5; other held-out
pairs (``bench N none START``, later sentences of the bank): 600 variables from sentence 100
2.7 -> 2.1, from 200 1.7 -> 1.3; 1,000 variables 33.4 -> 20.6 and 10.0 -> 9.9; 1,500 variables
from 100 203.4 -> 192.2. Then, not kept (LP alone, 1,000 variables unless said, against 17.5-17.9
s): dropping the pairs' ``x <= 1`` as well where a one-to-one row implies it (14 rounds, 33.6
s); primal simplex once a round adds under 500 pairs (17.3 s, 14 rounds; 1,500 variables 26
rounds, 93.6 s against 74.2), under 4,000 (one 14.5 s re-solve); no cost perturbation in such
rounds (a quarter of the iterations, each slower: 21.7 s; multiplier 0.1 or 0.02: 18.1, 19.1
s), multiplier 3 or 0.3 throughout (23.7, 22.8 s); 2 first pairs per variable (15.8 s, but
20.6 -> 23.2 and 9.9 -> 10.3 s whole runs on the other two pairs), 4 (20.6 s); 3,000 or 6,000
pairs a round (19.8, 17.7 s); leaving out a linking row grouped by the other end's right
variable while it holds one pair of pairs inside (implied by that pair of pairs' row grouped by
the left variable): whole runs 600 variables 2.5, 2.1, 1.4 -> 2.0, 1.7, 1.5, 1,000 variables
18.6, 19.3, 10.1 -> 17.0, 26.4, 9.4 (the three pairs above).

The certificate depends on the dual vertex the path of re-solves reaches, not on the set alone:
the restricted LP on the final 44,743 pairs of the 1,000-variable pair, solved from scratch
(25,435 iterations, 8.6 s), lands on duals whose balanced extension bounds 2,097.6 (LP 1,808.75)
and prices 4,014 more pairs in (4 rounds, 52,533 pairs, 12.6 s in all).

Measured and not kept, Lagrangian duals (held-out pairs; LP optimum 1,044 at 600 variables,
1,808.75 at 1,000). The one-to-one multipliers that minimise the bound for the round's linking
multipliers (an assignment problem on ``u_p + sum of p's linking multipliers``, exact by
``scipy.optimize.linear_sum_assignment``) bound lower than balancing (1,000 variables, rounds 1,
5, 10: 2,268 / 1,981 / 1,843 against 2,611 / 2,117 / 1,877) but not before the same round
(1,809.25 both at round 12). The Lagrangian dual of the one-to-one rows with each pair of pairs'
weight split between its ends (per end the better of its left- and right-grouped maxima, the
assignment exact), by subgradient steps (Polyak, target the LP value): 600 variables 1,201.5 at
the split in halves, 1,055.0 after 200 steps (2.9 s), 1,047.0 after 2,000 (35 s); 1,000
variables 2,124.5, 1,862 after 50 steps, 1,827.8 after 300 (27 s): far better than the rounds'
bounds early, far too slow to come within a unit. Its reduced costs price nothing in (at the
assignment's optimal duals every pair's is at most 0); Wentges smoothing towards it (weights
0.5, 0.8; 600 variables) 34 and 45 rounds, about the same 20,400-21,000 pairs, 7.2 and 9.3 s;
its convex combinations with the round's balanced duals bound no lower than the better of the
two. The final set is not its near-tight pairs (600 variables: 38,701 pairs within 1 of zero
reduced cost hold 17,262 of the 21,282). Subgradient steps on every linking multiplier from the
round's balanced duals (the assignment exact for the one-to-one rows; 100 steps, 1.5-2 s at 600
variables): rounds 3, 5, 7 bound 1,062.1, 1,051.0, 1,045.6 (balanced 1,214.5, 1,112.3, 1,046.5),
none below 1,045 before the rounds themselves. Even the best duals with the restricted LP's
linking multipliers fixed (every other multiplier optimised: an LP, HiGHS) bound 1,111.7,
1,066.3, 1,051.2 at rounds 1, 3, 5 (600 variables; 1,408.5, 1,201.0, 1,102.8 with its one-to-one
multipliers fixed too): the restricted LP's multipliers of its own rows, not the extension, keep
the bound up. Handing the multiplier of two identical restricted linking rows (a pair of pairs
alone in both of its end's groups) to the one whose group outside weighs more: 13 and 14 rounds,
20.0 and 22.0 s (1,000 variables).

Kept since: jittered costs (:data:`JITTER`; integer objectives only). HiGHS draws a new cost
perturbation at every solve; on these dual-degenerate LPs (thousands of zero reduced costs) it
leaves 1,300-3,400 columns dual infeasible at the start of each hot-started re-solve, and with
unbounded pairs of pairs and one-sided rows the dual simplex then runs a phase 1 over the whole
LP: 3,400-6,100 iterations for a round that adds 2 to 6 pairs. Now the restricted LP's cost of
each column is raised once by a seeded draw from ``[2e-6, 2e-5]``, HiGHS' own perturbation is
off, and every column and slack is boxed by bounds that cannot bind (:func:`boxed_bounds`): a
re-solve starts dual feasible except on the new columns, and the last rounds take 3-70
iterations. The duals are optimal for the jittered costs; the bound, computed with the true
ones, exceeds the LP by 0.02-0.1 at 1,000-1,500 variables, which still decides the next
integer; when it does not (the jittered duals price nothing in but bound at or above the next
integer), the true costs are restored and solved again. Measured on the held-out pairs, base
and new run side by side, CPU seconds: LP alone, 1,000 variables, seeds 1, 2, 3, from sentence
0 21.9, 16.2, 15.6 -> 13.3, 13.8, 15.3, from 100 27.7, 34.6, 28.7 -> 19.9, 18.7, 22.3, from
200 13.0, 8.4, 12.2 -> 9.9, 10.5, 9.2 (178.4 -> 133.0 s in all); whole exact runs, 1,500
variables 85.4 -> 54.9, 600 variables 3.1, 2.8, 1.8 -> 2.9, 2.5, 2.0 (from sentences 0, 100,
200), 1,000 variables 22.3, 22.5, 10.9 -> 21.0, 22.3, 9.7. Not kept (LP alone): the jitter
without the boxes (a phase 1 is still run when a new pair of pairs is dual infeasible): 51.5
against 59.5 s on six pairs of 600 and 1,000 variables, where with the boxes it is 106.7
against 159.2 s with the 1,500-variable pair added; the boxes with HiGHS' perturbation (147.7
against 153.1 s on four pairs); neither perturbation (164.6 s for a 1,000-variable pair that
takes 20); the jitter and HiGHS' perturbation together (59.8 s against 17-20).

Kept since: the restricted LP leaves out the linking rows that another row it holds implies
(:func:`implied_rows`), fewer rows for the same LP. Measured since, not kept: stopping the
dual simplex of a round that adds a full :data:`BATCH` after 1,000 or 2,000 iterations and
pricing with its (dual feasible, not optimal) duals generates more pairs (1,000 variables:
69,588 and 56,972 pairs, 28.0 and 25.6 s against 44,508 and 17.2 s); leaving out also the
left-grouped row of a pair of pairs alone in it when its right-grouped row holds others (31.0
against 31.3 s on three pairs). HiGHS clears its factorisation and its dual steepest-edge
weights whenever columns are added (``HEkk::updateStatus``), so every re-solve starts with an
INVERT and the exact weights of every basic row (``DSE_IZ``: 3.45 s of 26 s of simplex at 1,500
variables, 0.4 s of a last round's 0.41 s); Devex weights instead cost more iterations (13,100
against 5,687 in a middle round at 1,000 variables). 16,000 pairs a round instead of 4,000 at
3,000 variables (the exact path, two runs side by side each): 371 and 365 s against 411 and 405
s, but a peak of 2.16 and 2.03 GB against 2.03 and 1.90 (a bigger restricted LP): not kept while
the memory target (2 GB) is the one met. At 1,500 variables 8,000 a round is no faster."""

from __future__ import annotations

import logging
import time
from dataclasses import replace

import numpy as np

from ...core.deadline import Deadline
from ...core.model import LinearModel, dual_bound_terms
from ...core.outcome import BackendOutcome, SolveOptions
from ...core.result import Status
from .instance import LatentInstance
from .model import one_to_one_rows

log = logging.getLogger(__name__)

#: Pairs per variable (on each side) in the first restricted LP, by :func:`potentials`.
FIRST_PER_VARIABLE = 3

#: Pairs added per round at most: the most attractive (measured on the 600-variable pair: 1,000
#: 6.4 s, 2,000 5.8 s, 5,000 5.6 s, 10,000 7.3 s; one per variable and round: 27 s). Whole exact
#: runs, CPU seconds on one core of a loaded machine, 2,000 against 4,000: 600 variables 3.3,
#: 3.1 / 2.8, 2.8; 1,000 variables 31.0, 35.5 / 30.3, 31.3 (13 rounds instead of 20; 8,000: 9
#: rounds, no faster); 1,500 variables 130, 134 / 106, 112.
BATCH = 4000

#: A pair prices as attractive when its reduced cost exceeds this (HiGHS' dual tolerance is
#: 1e-7: smaller values are noise).
PRICE_TOL = 1e-7

#: The LP is solved when the duals bound it within this (relative) of the restricted optimum.
GAP_TOL = 1e-9

#: Rounds at most; past them the answer is returned as unfinished (a feasible point and a bound).
MAX_ROUNDS = 1000

#: With an integer objective (``integral``), the restricted LP's cost of each column is raised
#: once by a draw from ``[JITTER / 10, JITTER]`` (seeded), and HiGHS' own cost perturbation is
#: off (:func:`column_generation`); 0 turns this off.
JITTER = 2e-5

#: With an integer objective the rounds stop once the bound is below the next integer *and*
#: within this of the restricted optimum (or once nothing prices in). The first alone proves
#: the LP's floor, but when no mapping reaches that floor, :func:`~.exact._settle` fixes pairs
#: by reduced cost against the same duals, and a bound just under the next integer keeps
#: nearly every pair: on a held-out 1,000-variable pair (LP 1,844.12, optimum 1,843) the round
#: that stopped at a bound of 1,844.99 left 105,462 of 248,565 pairs and an 86 s MIP; one more
#: round (0.3 s) bounds 1,844.14 and leaves 32,243 pairs, a 14.5 s MIP (the whole run 124.6 ->
#: 36.9 s). With the jitter the last rounds cost little.
SETTLE_SLACK = 0.1


def potentials(inst: LatentInstance) -> np.ndarray:
    """Per pair, what it can earn at most in a one-to-one mapping, counting each pair of pairs
    half at each end and, per end, only the best of those whose other end has the same left
    variable: its unary weight plus, over the other ends' left variables, the best half weight."""
    pot = np.asarray(inst.unary, np.float64).copy()
    width = inst.n_left + 1
    for ends, others in ((inst.bin_p, inst.bin_q), (inst.bin_q, inst.bin_p)):
        key = ends * width + inst.pair_left[others]
        uk, inv = np.unique(key, return_inverse=True)
        best = np.zeros(len(uk))
        np.maximum.at(best, inv, inst.bin_w / 2)
        np.add.at(pot, uk // width, best)
    return pot


def first_pairs(inst: LatentInstance, k: int | None = None) -> np.ndarray:
    """The first restricted set: per left and per right variable its ``k`` pairs (default
    :data:`FIRST_PER_VARIABLE`) of highest :func:`potentials` (ties by pair order). A boolean
    mask over the pairs."""
    k = FIRST_PER_VARIABLE if k is None else k
    pot = potentials(inst)
    keep = np.zeros(inst.num_pairs, dtype=bool)
    for side in (inst.pair_left, inst.pair_right):
        order = np.lexsort((-pot, side))
        s = side[order]
        first = np.r_[True, s[1:] != s[:-1]] if len(s) else np.zeros(0, bool)
        idx = np.arange(len(s))
        rank = idx - np.maximum.accumulate(np.where(first, idx, 0))
        keep[order[rank < k]] = True
    return keep


def restricted_col_hi(model: LinearModel, num_pairs: int, cols: np.ndarray | None = None
                      ) -> np.ndarray:
    """The upper bounds of the columns ``cols`` (default: all) in the restricted LP: the
    model's, except that a pair of pairs
    has none. Its ``y <= 1`` is implied by the linking rows ``y <= x_p <= 1``, all of which the
    restricted LP holds for every pair of pairs it holds, so the restricted optimum is the same;
    but with the bound a degenerate restricted LP may pay a pair of pairs' weight by that bound
    (a column dual no other column sees) instead of by its linking rows, whose multipliers also
    price the pairs outside that compete with its ends (:func:`_extend`). Measured (held-out
    pairs, LP alone, CPU seconds): 1,000 variables 24.0, 24.3 -> 17.9, 17.8 s (13 rounds both,
    44,743 -> 41,870 pairs generated); dropping the pairs' ``x <= 1`` too where a one-to-one
    row implies it: 33.6 s, 14 rounds."""
    cols = np.arange(model.num_vars) if cols is None else cols
    return np.where(cols < num_pairs, model.col_hi[cols], np.inf)


def boxed_bounds(model: LinearModel, num_pairs: int, row_end: np.ndarray,
                 cols: np.ndarray | None = None, rows: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``(col_hi, row_lo)`` of the columns ``cols`` and rows ``rows`` (default: all) of the
    restricted LP when its costs are jittered: a pair of pairs
    bounded by 2, a linking row (``row_end >= 0``: its end pair's column) from below by -2, a
    one-to-one row by -1. None of these can bind (a pair of pairs is at most 1 through its
    linking rows, a linking row is at least -1, a one-to-one row at least 0), so the LP, its
    optimal points and its optimal duals are those of :func:`restricted_col_hi`'s; but every
    column and slack is boxed, so the dual simplex, hot-started after new columns come in, mends
    their dual infeasibility by moving them to their other bound instead of a phase 1 over the
    whole LP."""
    cols = np.arange(model.num_vars) if cols is None else cols
    rows = np.arange(model.num_rows) if rows is None else rows
    return (np.where(cols < num_pairs, model.col_hi[cols], 2.0),
            np.where(row_end[rows] >= 0, -2.0, -1.0))


def implied_rows(st: _Structure, rows: np.ndarray, held: np.ndarray) -> np.ndarray:
    """Which of the full model's ``rows`` the restricted LP leaves out although a pair of
    pairs it holds is in them: a linking row grouped by the other end's right variable that
    holds one pair of pairs (``held``), ``y <= x_end``, is implied by that pair of pairs' row
    grouped by the other end's left variable, which the restricted LP holds (``y`` plus the
    others of its group, all >= 0, at most ``x_end``). So the restricted LP and its optimum are
    the same; its dual simplex works on fewer rows, and the left-out row's multiplier is 0.
    When a second pair of pairs of the group comes in, the row does too. Measured (held-out
    pairs, LP alone, CPU seconds, base and new side by side): 1,000 variables from sentences 0,
    100 and 200, seeds 1-3, 126.6 -> 102.0 s (11.6, 13.8, 15.7 -> 9.2, 11.8, 12.1 from sentence
    0); earlier, without the jittered costs, mixed (18.6, 19.3, 10.1 -> 17.0, 26.4, 9.4 s)."""
    return (st.row_end[rows] >= 0) & ~st.left_row[rows] & (held[rows] == 1)


class _Structure:
    """The full model's rows as column generation needs them, read off its compressed rows
    (``model.A``'s own arrays, shared: no column-wise copy) into ``int32`` arrays: a
    3,000-variable pair has 17.8 million non-zeros, 7.7 million of them in the pairs of pairs'
    columns."""

    def __init__(self, model: LinearModel, inst: LatentInstance) -> None:
        P = inst.num_pairs
        self.A = model.A.to_scipy()
        indptr, cols, vals = self.A.indptr, self.A.indices, self.A.data
        m = self.A.shape[0]
        row = np.repeat(np.arange(m, dtype=np.int32), np.diff(indptr))  # each entry's row
        neg = vals < 0  # a linking row's end pair (coefficient -1)
        self.row_end = np.full(m, -1, np.int32)
        self.row_end[row[neg]] = cols[neg]
        # the pairs of pairs' entries, grouped by row (the rows' order)
        of_y = cols >= P
        self.y_rows = row[of_y]
        self.y_b = (cols[of_y] - P).astype(np.int32)
        self.y_end = self.row_end[self.y_rows]
        bp, bq = inst.bin_p[self.y_b], inst.bin_q[self.y_b]
        self.y_other = np.where(self.y_end == bp, bq, bp).astype(np.int32)
        del bp, bq
        # each pair of pairs' four rows (two per end), its entries in the rows' order
        if len(self.y_b) != 4 * len(inst.bin_w):
            raise ValueError("column generation solves the model of aggregated linking")
        by_y = np.argsort(self.y_b, kind="stable")
        self.rows_by_y = self.y_rows[by_y].reshape(-1, 4)
        # of the two rows linking a pair of pairs to one end, the first is grouped by the other
        # end's left variable (ilp_model builds the left block first), the second by its right
        ends = self.y_end[by_y].reshape(-1, 4)
        del by_y
        first = np.ones(ends.shape, dtype=bool)  # the first row of its end among the four
        for j in range(1, 4):
            first[:, j] = (ends[:, :j] != ends[:, j:j + 1]).all(axis=1)
        self.left_row = np.zeros(m, dtype=bool)
        self.left_row[self.rows_by_y[first]] = True
        del ends, first
        # the linking rows, each once (:func:`_extend`): where each row's entries start, the
        # row's end pair and whether it is grouped by the left variable
        change = np.flatnonzero(np.r_[True, self.y_rows[1:] != self.y_rows[:-1]]) \
            if len(self.y_rows) else np.zeros(0, np.int64)
        self.link_starts = change
        self.link_rows = self.y_rows[change]
        self.link_end = self.row_end[self.link_rows]
        self.link_left = self.left_row[self.link_rows]
        del row
        # each variable's one-to-one row (-1: a variable of one pair has none)
        self.one_row_left, self.one_row_right = one_to_one_rows(self.A, model.row_hi, inst)

    def reduced_costs(self, c: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``c - A^T y``."""
        return c - self.A.T @ y


def _extend(model: LinearModel, inst: LatentInstance, st: _Structure, inside: np.ndarray,
            y: np.ndarray) -> np.ndarray:
    """The multipliers ``y`` (the restricted LP's duals, zero on the rows it does not hold) with
    the rows linking pairs of pairs to ends outside ``inside`` given their share (module
    docstring), in place."""
    P = inst.num_pairs
    d = st.reduced_costs(model.c, y)
    share = np.maximum(d[P:], 0.0)[st.y_b]  # each entry's pair of pairs' positive part
    del d
    share[inside[st.y_end]] = 0.0  # all of it on the end outside, half when both are
    share[~inside[st.y_other]] *= 0.5
    rows, end, left = st.link_rows, st.link_end, st.link_left
    if len(rows) == 0:
        return y
    g = np.maximum.reduceat(share, st.link_starts)  # each linking row's largest share (>= 0)
    del share
    cost_l = np.bincount(end[left], weights=g[left], minlength=P)
    cost_r = np.bincount(end[~left], weights=g[~left], minlength=P)
    use_left = cost_l <= cost_r
    chosen = np.where(left, use_left[end], ~use_left[end]) & ~inside[end]
    y[rows[chosen]] = g[chosen]
    return y


def _balance(model: LinearModel, inst: LatentInstance, st: _Structure, y: np.ndarray,
             sweeps: int = 2) -> np.ndarray:
    """``y`` with each one-to-one row's multiplier raised, where that lowers the bound, by the
    second largest positive reduced cost among its variable's pairs: the bound's terms of that
    variable, ``y_row + sum(max(d_p, 0))``, are convex in ``y_row`` with slope ``1 - #{d_p >
    0}``, flat between the second largest and the largest ``d_p``. A degenerate LP's duals often
    pay a mapped pair's weight by its column bound (``x <= 1``) rather than its variables' rows;
    moved onto the rows, the same payment prices out the pairs that compete for the variable."""
    P = inst.num_pairs
    for _ in range(sweeps):
        for side in (inst.pair_left, inst.pair_right):
            d = st.reduced_costs(model.c, y)[:P]
            pos = np.flatnonzero(d > 0)
            if len(pos) == 0:
                return y
            v = side[pos]
            o = np.lexsort((-d[pos], v))
            v, dv = v[o], d[pos][o]
            first = np.r_[True, v[1:] != v[:-1]]
            second = np.flatnonzero(~first[1:] & first[:-1]) + 1  # the second of each group
            rows = st.one_row_left if side is inst.pair_left else st.one_row_right
            r = rows[v[second]]  # every variable of two pairs or more has its row
            y[r] += dv[second]
    return y


def _bound(model: LinearModel, y: np.ndarray, d: np.ndarray) -> float:
    """:func:`~exactalign.core.model.dual_bound_terms`' bound (the same terms, summed the same
    way) of multipliers ``y >= 0`` of the latent model (maximised, columns in ``[0, 1]``, rows
    bounded above) whose reduced costs ``d = c - A^T y`` are at hand: no second product."""
    return float((y * model.row_hi).sum()) + float(np.maximum(d, 0.0).sum())


def column_generation(model: LinearModel, inst: LatentInstance, options: SolveOptions,
                      integral: bool = False) -> BackendOutcome:
    """The LP relaxation of ``model`` (:func:`~.model.ilp_model` of ``inst``, aggregated
    linking) by column generation (module docstring), within ``options.time_limit``.

    Returns a :class:`~exactalign.core.outcome.BackendOutcome` over the full model: converged,
    status OPTIMAL with the point ``x`` (zero outside the generated columns), ``objective`` and
    ``row_dual`` (the extended duals, maximisation sign); stopped by the time limit or
    :data:`MAX_ROUNDS`, status TIME_LIMIT with the last restricted optimum as ``iterate`` (a
    feasible point) and the extended duals (a valid bound by weak duality); no restricted LP
    solved at all, no duals.

    ``integral`` (an integer objective: the exact path) jitters the restricted LP's costs
    (:data:`JITTER`) and converges once the duals bound the whole LP below the next integer and
    within :data:`SETTLE_SLACK` of the restricted optimum: the point is then optimal for the
    jittered costs (within their total, a few hundredths, of the LP) and ``objective`` is its
    true value; without it the point is the LP's optimum and the duals certify it within
    :data:`GAP_TOL`."""
    from ...backends.highs import IncrementalLP

    t0 = time.perf_counter()
    deadline = Deadline(options.time_limit, t0)
    P = inst.num_pairs
    if not (model.maximize and (model.col_lo == 0).all() and (model.col_hi == 1).all()
            and np.isfinite(model.row_hi).all()):
        raise ValueError("column generation solves the latent model: maximised, columns in "
                         "[0, 1], rows bounded above")
    st = _Structure(model, inst)
    A = st.A
    inside = first_pairs(inst)
    col_at = np.full(model.num_vars, -1, np.int32)  # (2**31 columns would not fit in memory)
    row_at = np.full(model.num_rows, -1, np.int32)

    def pair_cols():
        return P + np.flatnonzero(inside[inst.bin_p] & inside[inst.bin_q] & (col_at[P:] < 0))

    held = np.zeros(model.num_rows, np.int32)  # pairs of pairs held, per linking row

    def rows_of(new):
        """The rows a restricted LP with the columns ``new`` needs: the one-to-one rows of its
        pairs and the linking rows of its pairs of pairs (a linking row without one is
        ``-x <= 0``: left out, a third of the rows), except a row grouped by the other end's
        right variable that holds one pair of pairs (:func:`implied_rows`)."""
        ny = new[new >= P] - P
        y_rows = st.rows_by_y[ny].ravel()
        np.add.at(held, y_rows, 1)
        pairs = new[new < P]
        one = np.concatenate([st.one_row_left[inst.pair_left[pairs]],
                              st.one_row_right[inst.pair_right[pairs]]])
        rows = np.unique(np.concatenate([y_rows, one[one >= 0]]))
        return rows[~implied_rows(st, rows, held)]

    cols = np.concatenate([np.flatnonzero(inside), pair_cols()])
    rows = rows_of(cols)
    col_at[cols], row_at[rows] = np.arange(len(cols)), np.arange(len(rows))
    sub = LinearModel(c=model.c[cols], A=A[rows][:, cols], row_lo=model.row_lo[rows],
                      row_hi=model.row_hi[rows], col_lo=model.col_lo[cols],
                      col_hi=model.col_hi[cols], integrality=False,
                      sense=model.sense, name=f"{model.name} restricted")
    jitter = integral and JITTER > 0
    if jitter:
        cost = model.c + np.random.default_rng(options.seed).uniform(
            JITTER / 10, JITTER, model.num_vars)

        def bounds(cols, rows):  # (col_hi of cols, row_lo of rows): not kept for them all
            return boxed_bounds(model, P, st.row_end, cols, rows)
    else:
        cost = model.c

        def bounds(cols, rows):
            return restricted_col_hi(model, P, cols), model.row_lo[rows]
    hi, lo = bounds(cols, rows)
    lp = IncrementalLP(replace(sub, c=cost[cols], col_hi=hi, row_lo=lo), options,
                       cost_perturbation=not jitter)
    sign, y, best, rounds, status = None, None, None, 0, Status.TIME_LIMIT
    while True:
        res = lp.solve(deadline.left())
        if res.status is not Status.OPTIMAL:
            break
        best, rounds = res, rounds + 1
        value = float(model.c[cols] @ res.x)  # the point's objective, not the jittered one
        if sign is None:  # HiGHS' sign convention: the one under which the duals bound
            sign = min((1.0, -1.0), key=lambda s: sum(
                float(t.sum()) for t in dual_bound_terms(sub, s * res.row_dual)))
        y = np.zeros(model.num_rows)
        y[rows] = np.maximum(sign * res.row_dual, 0.0)  # any y >= 0 bounds: noise is dropped
        y = _extend(model, inst, st, inside, y)
        # the extended duals bound the whole LP at the restricted optimum plus what the pairs
        # outside price at; balanced (_balance) they may bound it lower, and price fewer pairs
        found = []
        for mult in (y, _balance(model, inst, st, y.copy())):
            d = st.reduced_costs(model.c, mult)
            price = np.where(inside, 0.0, np.maximum(d[:P], 0.0))
            hot = np.flatnonzero(d[P:] > PRICE_TOL)
            np.maximum.at(price, inst.bin_p[hot], d[P + hot])
            np.maximum.at(price, inst.bin_q[hot], d[P + hot])
            price[inside] = 0.0
            found.append((_bound(model, mult, d), mult, price,
                          np.flatnonzero(price > PRICE_TOL)))
            del d, price, hot
        bound, y = min(found, key=lambda f: f[0])[:2]
        price, cand = found[0][2], found[0][3]
        if len(cand) > BATCH:  # the balanced duals' few first, then the most attractive
            top = cand[np.argsort(-price[cand], kind="stable")[:BATCH]]
            cand = np.union1d(top, found[1][3])
        log.debug("round %d: %d pairs, %d columns, %d rows; LP %.4f (%d simplex iterations, "
                  "%.2f s), bound %.4f (balanced %.4f), %d pairs priced in, %.2f s", rounds,
                  int(inside.sum()), len(cols), len(rows), value, lp.iterations,
                  res.wall_time, found[0][0], found[1][0], len(cand), time.perf_counter() - t0)
        certified = integral and np.floor(bound + 1e-6) <= np.floor(value + 1e-6)
        if jitter and len(cand) == 0 and not certified:
            # the jittered LP's duals price nothing in, but bound above the next integer, which
            # the LP itself may not: the true costs, HiGHS' perturbation back, and solve again
            jitter, cost = False, model.c
            lp.set_costs(cost[cols])
            lp.set_cost_perturbation(True)
            continue
        if (bound <= value + GAP_TOL * max(1.0, abs(value)) or len(cand) == 0
                or certified and bound - value <= SETTLE_SLACK):
            # no pair prices in under the restricted optimum's duals: the restricted optimum is
            # the whole LP's (within the solver's tolerance); or (integral objective) the bound
            # is below the next integer above it, and close to the LP: no mapping is worth
            # more, and the reduced costs are sharp enough for the caller's fixing
            status = Status.OPTIMAL
            break
        if rounds >= MAX_ROUNDS or deadline.expired():
            break
        add = cand
        inside[add] = True
        new = np.concatenate([add, pair_cols()])
        touched = rows_of(new)
        new_rows = touched[row_at[touched] < 0]
        new_hi, new_lo = bounds(new, new_rows)
        lp.add_rows(new_lo, model.row_hi[new_rows],
                    A[new_rows][:, cols].tocsr())
        row_at[new_rows] = len(rows) + np.arange(len(new_rows))
        rows = np.concatenate([rows, new_rows])
        # the new columns on the rows held, each column's entries in the full model's row
        # order (the order HiGHS has always been given them: its pivoting follows it)
        by_row = np.sort(rows)
        block = A[by_row][:, new].tocsc()
        block.indices = row_at[by_row][block.indices]
        lp.add_cols(cost[new], model.col_lo[new], new_hi, block)
        col_at[new] = len(cols) + np.arange(len(new))
        cols = np.concatenate([cols, new])
    wall = time.perf_counter() - t0
    common = dict(nodes=0, wall_time=wall, backend="highs", solver_version=lp.version,
                  presolve=False, held=np.sort(cols))
    if best is None:
        return BackendOutcome(status=Status.TIME_LIMIT, x=None, objective=None, bound=None,
                              raw_status="column generation: no restricted LP solved", **common)
    x = np.zeros(model.num_vars)
    x[cols[:len(best.x)]] = best.x
    raw = (f"column generation: {rounds} rounds, {int(inside.sum())} of {P} pairs"
           + ("" if status is Status.OPTIMAL else ", stopped"))
    if status is Status.OPTIMAL:
        return BackendOutcome(status=status, x=x, objective=float(model.c @ x), bound=None,
                              raw_status=raw, row_dual=y, **common)
    return BackendOutcome(status=status, x=None, objective=None, bound=None, raw_status=raw,
                          row_dual=y, iterate=x, **common)
