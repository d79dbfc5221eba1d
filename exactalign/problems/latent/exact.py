"""The ``exact`` method (:func:`solve_exact_many`): independent components, one LP for a batch
of instances, the MIP only where the LP does not prove (the package docstring of
:mod:`exactalign.problems.latent`), and the bound an instance keeps when no solver runs
(:func:`trivial_bound`)."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from ...core.backend import get_backend
from ...core.deadline import Deadline
from ...core.decompose import graph_labels
from ...core.errors import BackendError, VerificationError
from ...core.memory import over_limit
from ...core.model import dual_bound_terms
from ...core.result import Result, Status, worst_status
from ...core.solve import SolveOptions, remaining, solve_model, verified_result
from .colgen import column_generation
from .instance import LatentInstance, compiled_view
from .lagrange import tighten
from .lp_point import BATCH_COLUMNS, INT_TOL, certified_lp_bound, round_point
from .matches import count_bound
from .model import check, decode_point, ilp_model, mapping_array, model_point
from .ternary import solve_ternary_many

#: Peak memory of an exact solve per model column (one per candidate pair and pair of pairs),
#: HiGHS included, when HiGHS solves the whole LP (simple linking, or aggregated linking up to
#: :data:`COLGEN_COLUMNS`; :data:`BYTES_PER_COLGEN_COLUMN` above): measured 2.3 KB on random
#: 400- to 1,000-node AMR pairs before column generation (1.2 GB for an 800-node pair's 514,445
#: columns), rounded up. An instance whose estimate (:func:`memory_estimate`) is over
#: :func:`~exactalign.core.memory.memory_limit` is not modelled (:func:`solve_exact_many`).
BYTES_PER_COLUMN = 2500

#: The same for a model whose LP column generation solves (:data:`COLGEN_COLUMNS`, aggregated
#: linking): the whole model is held but only a few percent of it goes to HiGHS. Measured on
#: held-out document pairs (AMR Bio test bank, joined sentences; peak resident memory of the
#: whole run less the interpreter's 75 MB): 600 variables (158,785 columns) 0.13 GB, 790 bytes
#: a column; 1,000 (458,870) 0.29 GB, 620; 1,500 (1,002,228) 0.57 GB, 565; 3,000 (4,004,824)
#: 1.84 GB, 458; rounded up.
BYTES_PER_COLGEN_COLUMN = 800

#: A batch LP with more model columns than this is solved by HiGHS' first-order method PDLP
#: (:func:`_lp_relaxation`; its interior point method with crossover if PDLP gives no answer that
#: passes the checks), smaller ones by its simplex. Measured on random AMR pairs (LP time, HiGHS
#: 1.15.1, one thread, PDLP to a KKT tolerance of 1e-8): 13,409 columns (200 variables) simplex
#: 0.17 s / IPM 0.54 s / PDLP 0.37 s; 51,641 columns (400) 3.56 / 3.47 / 2.09 s; 198,873 (800)
#: IPM 25.1 / PDLP 8.8 s; 316,553 (1,000) IPM 45.2 / PDLP 20.0 s. On document-level AMR pairs
#: (Little Prince test sentences joined) simplex takes 1.7 s on 34,112 columns and 37.1 s on
#: 84,062.
LARGE_LP_COLUMNS = 50_000

#: A batch LP of aggregated linking with more model columns than this is solved by column
#: generation (:mod:`~.colgen`: the LP on a few pairs, priced against the whole model's rows,
#: HiGHS' dual simplex hot-started round after round), before :data:`LARGE_LP_COLUMNS` decides
#: between the simplex and PDLP on the whole LP (when column generation fails, or with simple
#: linking). Measured on held-out document pairs (AMR Bio test bank, :mod:`~.colgen`), the
#: whole exact solve: 600 variables (158,785 columns) 3.5 s against 14.7 s with PDLP on the
#: whole LP; 1,500 variables (1,002,228 columns) 237 s against 722 s.
COLGEN_COLUMNS = 50_000

#: Of the time an unfinished LP leaves (a time limit), the share the rounding and MIPs from its
#: last point get (:func:`_settle_unfinished`) when the model has linking rows; the rest goes to
#: tightening the bound (:func:`~.lagrange.tighten`).
SETTLE_SHARE = 0.5


def _concat(instances) -> tuple[LatentInstance, np.ndarray, np.ndarray]:
    """The disjoint union of ``instances`` (variables and pairs renumbered with offsets) and
    the offsets of their left variables and of their pairs."""
    nl = np.array([i.n_left for i in instances], np.int64)
    nr = np.array([i.n_right for i in instances], np.int64)
    npairs = np.array([i.num_pairs for i in instances], np.int64)
    loff, roff, poff = (np.concatenate([[0], np.cumsum(a)]) for a in (nl, nr, npairs))
    if len(instances) == 1:  # itself (a document pair's arrays are hundreds of megabytes)
        return instances[0], loff, poff

    def cat(name, off=None):
        parts = [getattr(i, name) + (0 if off is None else off[k])
                 for k, i in enumerate(instances)]
        return np.concatenate(parts) if parts else np.zeros(0)

    arrays = dict(pair_left=cat("pair_left", loff).astype(np.int64),
                  pair_right=cat("pair_right", roff).astype(np.int64),
                  unary=cat("unary").astype(np.float64),
                  bin_p=cat("bin_p", poff).astype(np.int64),
                  bin_q=cat("bin_q", poff).astype(np.int64),
                  bin_w=cat("bin_w").astype(np.float64))
    return compiled_view(int(loff[-1]), int(roff[-1]), arrays), loff, poff


def component_labels(inst: LatentInstance) -> tuple[int, np.ndarray]:
    """``(count, label per useful pair)``: pairs are in one component when joined through
    shared variables or pairs of pairs; a mapping's objective is the sum over components."""
    nl, nr = inst.n_left, inst.n_right
    u = np.concatenate([inst.pair_left, inst.pair_left[inst.bin_p]])
    v = np.concatenate([nl + inst.pair_right, inst.pair_left[inst.bin_q]])
    _, labels = graph_labels(nl + nr, u, v)
    used, pair_label = np.unique(labels[inst.pair_left], return_inverse=True)
    return len(used), pair_label.astype(np.int64)


def _restrict(inst: LatentInstance, pairs: np.ndarray) -> LatentInstance:
    """The view of ``inst`` on ``pairs`` (ascending; a component's, or any subset: a pair of
    pairs is kept when both its pairs are), with its variables renumbered ``0..`` in order (so
    local pair ``k`` is global pair ``pairs[k]``)."""
    local = np.full(inst.num_pairs, -1, dtype=np.int64)
    local[pairs] = np.arange(len(pairs))
    bins = np.flatnonzero((local[inst.bin_p] >= 0) & (local[inst.bin_q] >= 0))
    lu, li = np.unique(inst.pair_left[pairs], return_inverse=True)
    ru, ri = np.unique(inst.pair_right[pairs], return_inverse=True)
    return compiled_view(len(lu), len(ru), dict(
        pair_left=li, pair_right=ri, unary=inst.unary[pairs], bin_p=local[inst.bin_p[bins]],
        bin_q=local[inst.bin_q[bins]], bin_w=inst.bin_w[bins]))


def _settle(sub: LatentInstance, xp: np.ndarray, lp_bound: float, linking: str, options,
            backend, t0: float, if_one: np.ndarray | None = None,
            held: np.ndarray | None = None):
    """A component the LP did not settle. Returns ``(mapping, objective, bound, status, how,
    nodes, fallback)``, ``fallback`` the routes that failed verification before a MIP's answer.

    1. Round the LP point by an assignment (:func:`round_point` without the climb); reaching
       ``floor(LP)`` proves it. Else MIPs on growing sets of pairs around the LP point
       (:func:`_targets`: its support, then the pairs of zero reduced cost between, then at,
       the variables it leaves fractional, then those column generation held, ``held``), each
       warm-started from the best mapping so far;
       one reaching ``floor(LP)`` proves it too (``proven_by``: ``LP bound, restricted
       MIP``). On random AMR pairs whose LP is tight but
       degenerate these settle in seconds what the whole MIP took minutes for (1,000
       variables: the support's 1,325 pairs reach 1,621 of 1,622, the next set's 9,198 pairs
       1,622 in 0.5 s).
    2. Reduced-cost fixing (``if_one[p]`` bounds, by weak duality from the LP's duals, every
       mapping that uses pair ``p``): a mapping worth ``floor(LP)`` uses only pairs with
       ``floor(if_one[p]) >= floor(LP)`` -- the pairs of (near) zero reduced cost, typically a
       few per variable. The MIP on those pairs alone (:func:`_restricted_mip`) finds such a
       mapping if there is one: proven by the LP bound. If it proves there is none, every
       mapping is worth at most ``floor(LP) - 1`` (a pair outside gives at most that), which
       becomes the bound (an incumbent reaching it: ``reduced-cost MIP``).
    3. Otherwise (when step 1 had no set to try) polish the rounding by smatch's moves
       (:func:`round_point`); if still below the bound, the MIP on the pairs that can beat the
       incumbent (``floor(if_one[p])`` above its
       objective), warm-started from it. Its optimum, or the incumbent if better, is the
       component's; its bound, or the incumbent's objective if higher, bounds the component."""
    deadline = Deadline(options.time_limit, t0)
    m = round_point(sub, xp, climb=False)
    obj = check(sub, m)
    if obj >= lp_bound:
        return m, obj, lp_bound, Status.OPTIMAL, "LP bound", 0, []
    nodes, fallback = 0, []
    targets = _targets(sub, xp, lp_bound, if_one, held)
    for _, keep, complete in targets:
        found = _restricted_mip(sub, keep, m, linking, options, backend, t0)
        if found is not None:
            fm, fobj, res = found
            nodes += res.nodes or 0
            fallback += list(res.details.get("fallback", ()))
            if fobj > obj:
                m, obj = fm, fobj
            if obj >= lp_bound:
                return (m, obj, lp_bound, Status.OPTIMAL, "LP bound, restricted MIP", nodes,
                        fallback)
            if complete and res.status is Status.OPTIMAL:
                lp_bound -= 1.0  # no mapping on those pairs, so none at all, reaches floor(LP)
                if obj >= lp_bound:
                    return m, obj, lp_bound, Status.OPTIMAL, "reduced-cost MIP", nodes, fallback
    if not targets:  # else the restricted MIPs' optimum is the incumbent: climbing the
        # rounding again rarely beats it and costs O(n^2) a step (measured: the 103 Little Prince
        # sentences joined, JAMR against CAMR, 38,701 pairs: 6-14 s of climbing for nothing)
        climbed = round_point(sub, xp, deadline=deadline)
        if check(sub, climbed) > obj:
            m, obj = climbed, check(sub, climbed)
        if obj >= lp_bound:
            return m, obj, lp_bound, Status.OPTIMAL, "LP bound", nodes, fallback
    keep = (np.flatnonzero(np.floor(if_one + INT_TOL) > obj) if if_one is not None
            else np.arange(sub.num_pairs))
    if len(keep) == 0:  # no pair can take part in a better mapping
        return m, obj, obj, Status.OPTIMAL, "LP bound", nodes, fallback
    found = _restricted_mip(sub, keep, m, linking, options, backend, t0)
    if found is None:
        return m, obj, lp_bound, Status.TIME_LIMIT, "time limit", nodes, fallback
    fm, fobj, res = found
    if fobj >= obj:
        m, obj = fm, fobj
    bound = lp_bound
    if res.bound is not None:
        bound = min(bound, float(np.floor(res.bound + INT_TOL)))
    bound = max(bound, obj)
    status = Status.OPTIMAL if obj >= bound else (res.status if res.status is not Status.OPTIMAL
                                                  else Status.FEASIBLE)
    return (m, obj, bound, status, "MIP", nodes + (res.nodes or 0),
            fallback + list(res.details.get("fallback", ())))


def _settle_unfinished(sub: LatentInstance, xp: np.ndarray, bound: float, linking: str,
                       options, backend):
    """:func:`_settle` for a component whose LP stopped at the time limit (PDLP's last point
    ``xp``, which need not be feasible; ``bound`` from its duals, valid all the same), within
    ``options.time_limit``. Returns what :func:`_settle` returns.

    The point is rounded (:func:`round_point`, no climb); then, while below ``bound``, MIPs on the
    pairs the point gives more than each of :data:`ITERATE_SUPPORT` (each set larger than the one
    before, at most :data:`TARGET_SHARE` of the component's pairs: HiGHS' presolve overruns its
    time limit on big models), warm-started from the best mapping so far. Far-from-optimal duals
    give no reduced-cost sets worth solving: :func:`_settle`'s steps 2-3 are skipped. Measured on
    the 1,012-variable pair, PDLP stopped at 7.5 s: its duals bound 1,627, the rounding scores
    1,600, the MIP on the 5,716 pairs above 0.01 finds the optimum 1,622 (in 0.15-2.5 s over
    runs: HiGHS' MIP time varies with the point it starts from)."""
    t0 = time.perf_counter()
    m = round_point(sub, xp, climb=False)
    obj = check(sub, m)
    nodes, fallback, last = 0, [], 0
    for tol in ITERATE_SUPPORT:
        keep = np.flatnonzero(xp > tol)
        if obj >= bound or not last < len(keep) <= TARGET_SHARE * sub.num_pairs:
            continue
        last = len(keep)
        found = _restricted_mip(sub, keep, m, linking, options, backend, t0)
        if found is None:
            break
        fm, fobj, res = found
        nodes += res.nodes or 0
        fallback += list(res.details.get("fallback", ()))
        if fobj > obj:
            m, obj = fm, fobj
    if obj > bound:
        raise VerificationError(f"a mapping scores {obj} above the bound {bound} that PDLP's "
                                f"duals certify")
    if obj >= bound:
        return m, obj, bound, Status.OPTIMAL, "LP bound", nodes, fallback
    return m, obj, bound, Status.TIME_LIMIT, "time limit", nodes, fallback


#: :func:`_settle_unfinished` tries MIPs on the pairs an unfinished LP point gives more than each
#: of these (measured on the 1,012-variable pair, PDLP stopped at 7.5 s: 5,716 and 9,067 of
#: 250,638 pairs, both reaching the optimum, in 0.2 and 1.9 s; over later runs the first took
#: 0.2-1.9 s).
ITERATE_SUPPORT = (1e-2, 1e-6)


#: Step 1 of :func:`_settle`: the LP point's support is the pairs whose value exceeds this.
SUPPORT_TOL = 1e-6


def _targets(sub: LatentInstance, xp: np.ndarray, lp_bound: float, if_one,
             held: np.ndarray | None = None):
    """The sets of pairs :func:`_settle` tries, in order, as ``(name, pairs, complete)``,
    ``complete`` when the set holds every pair of zero reduced cost (then no later set is
    tried: a mapping worth ``floor(LP)`` uses only such pairs): ``support``
    (the LP point's), ``fractional`` (with the pairs of zero reduced cost -- those that can be
    in a mapping worth ``floor(LP)`` -- joining two variables the point leaves fractional),
    ``near fractional`` (... with at least one such end), ``held`` (... that column generation
    held: ``held``, a mask of the pairs), each kept only when larger than the one before and
    smaller than the component; then ``reduced cost`` (every pair of zero reduced cost), when at
    most :data:`TARGET_SHARE` of the pairs. When that last set is tried, a set before it is
    kept only when at most :data:`STEP_SHARE` of its size (``held``: :data:`HELD_SHARE`)."""
    out, last = [], 0
    support = xp > SUPPORT_TOL
    zero = (np.floor(if_one + INT_TOL) >= lp_bound if if_one is not None
            else np.ones(sub.num_pairs, dtype=bool))
    last_set = if_one is not None and zero.sum() <= TARGET_SHARE * sub.num_pairs
    cap = STEP_SHARE * zero.sum() if last_set else np.inf
    frac = support & (xp < 1.0 - SUPPORT_TOL)
    fl = np.zeros(sub.n_left, dtype=bool)
    fl[sub.pair_left[frac]] = True
    fr = np.zeros(sub.n_right, dtype=bool)
    fr[sub.pair_right[frac]] = True
    at_l, at_r = fl[sub.pair_left], fr[sub.pair_right]
    sets = [("support", support, cap),
            ("fractional", support | (zero & at_l & at_r), cap),
            ("near fractional", support | (zero & (at_l | at_r)), cap)]
    if held is not None:
        sets.append(("held", support | (zero & held),
                     HELD_SHARE * zero.sum() if last_set else np.inf))
    for name, mask, most in sets:
        n = int(mask.sum())
        complete = if_one is not None and not (zero & ~mask).any()
        if last < n < sub.num_pairs and (complete or n <= most):
            out.append((name, np.flatnonzero(mask), complete))
            last = n
            if complete:
                return out
    if last_set:
        out.append(("reduced cost", np.flatnonzero(zero), True))
    return out

#: Step 2 of :func:`_settle` runs when at most this share of the component's pairs can reach
#: ``floor(LP)`` (else its MIP would be nearly the full one).
TARGET_SHARE = 0.5

#: :func:`_targets` skips a set before the ``reduced cost`` one when it holds more than this
#: share of that set's size: its MIP does much of the work of the last one, which proves or
#: refutes ``floor(LP)`` anyway. Measured on the seven slowest pairs of a 50-pair held-out
#: corpus of 1,000-variable documents (AMR Bio test bank): the ``near fractional`` set held 22%
#: to 55% of the ``reduced cost`` set and never found the optimum, at 0.5-14.3 s a MIP (pair 5:
#: 25,891 of 86,856 pairs, 9.5-14.3 s); on random 1,000-variable pairs
#: (``experiments.performance.amr_pair``) the ``fractional`` set (4% of the last) finds it.
STEP_SHARE = 0.25

#: :func:`_targets` keeps the ``held`` set (the pairs of zero reduced cost that column
#: generation held) when it holds at most this share of the ``reduced cost`` set. Measured on
#: held-out 1,500-variable document pairs (AMR Bio test bank, five windows): on one the MIP on
#: the held set (50,692 pairs, 25% of the last set) found the optimum 2,755 in 13.2 s where the
#: last set's MIP (198,819 pairs) took 68.2 s (whole run 121 -> 69 s); on one whose LP floor no
#: mapping reaches, the held set was 58% of the last set and its MIP 3.0 s for nothing.
HELD_SHARE = 0.5


#: Whether :func:`_restricted_mip`'s MIPs may restart at the root (HiGHS' ``mip_allow_restart``,
#: :class:`~exactalign.core.outcome.SolveOptions`). These MIPs start from a warm start at or next
#: to the LP's floor and end at the root or a few nodes later; a restart solves the root LP again
#: from scratch (17,719 simplex iterations of 44,576 on a 46,506-pair MIP that refutes a held-out
#: 1,000-variable pair's LP floor, 1,901). Measured on held-out document pairs (AMR Bio test and
#: dev banks, rebuilt windows), MIP seconds with restarts and without: that MIP 49.9 -> 30.2,
#: others 15.1 -> 8.7, 19.4 -> 15.6, 6.9 -> 10.3 (eight pairs with MIPs: 93.3 -> 66.7 s); 22
#: windows of 1,000 variables, whole exact runs, side by side: 272.8 -> 247.2 s of CPU (MIPs
#: 67.7 -> 42.8 s), the same optima.
MIP_RESTART = False


def _restricted_mip(sub: LatentInstance, keep: np.ndarray, start, linking: str, options,
                    backend, t0: float):
    """The MIP of ``sub`` on the pairs ``keep`` and those of the mapping ``start``
    (:func:`_restrict`), warm-started from ``start``: ``(mapping of sub, its objective, the
    verified Result of the restricted MIP)``, or ``None`` when no time is left. The restricted
    MIP's bound bounds the mappings that use only those pairs (a superset of ``keep``: every
    caller's reasoning holds for it). Keeping the start whole makes it a feasible warm start at
    its full value, so the answer is never worse than the start (cut down to ``keep`` it could
    be: on the 1,012-variable pair, PDLP stopped at 7 s, the MIP on the pairs its point gives
    more than 0.01 returned 1,595 from a rounding worth 1,596)."""
    idx = sub.pair_index(np.asarray(start, dtype=np.int64).reshape(-1, 2))
    keep = np.union1d(keep, idx[idx >= 0])
    view, lu, ru = sub, None, None
    if len(keep) < sub.num_pairs:
        view = _restrict(sub, keep)
        lu, ru = np.unique(sub.pair_left[keep]), np.unique(sub.pair_right[keep])
    s = np.asarray(start, dtype=np.int64).reshape(-1, 2)
    if lu is not None:  # the start's pairs that remain, renumbered
        s = s[np.isin(s[:, 0], lu) & np.isin(s[:, 1], ru)]
        s = np.stack([np.searchsorted(lu, s[:, 0]), np.searchsorted(ru, s[:, 1])], 1)
    model = ilp_model(view, linking)
    opts = replace(options, warm_start=model_point(view, s), restart=MIP_RESTART,
                   time_limit=remaining(options.time_limit, time.perf_counter() - t0))
    if opts.time_limit == 0.0:
        return None
    res = verified_result(solve_model(model, backend, opts), model,
                          decode=lambda z: decode_point(view, z), check=lambda al: check(view, al),
                          method="exact", seed=options.seed)
    if res.alignment is None:
        return np.zeros((0, 2), dtype=np.int64), 0.0, res
    al = np.asarray(res.alignment, dtype=np.int64).reshape(-1, 2)
    if lu is not None:  # back to the component's variables
        al = mapping_array(lu[al[:, 0]], ru[al[:, 1]])
    return al, check(sub, al), res

def solve_exact_many(instances, *, options: SolveOptions | None = None, backend: str = "highs",
                     linking: str = "aggregated", spare: bool = False) -> list[Result]:
    """The ``exact`` method for many instances: consecutive instances are grouped into batches
    of about :data:`BATCH_COLUMNS` model columns, each solved by :func:`_solve_batch` (HiGHS'
    simplex is fastest on LPs of that size: one LP per pair pays a per-call overhead, one LP
    for a whole corpus of 1,380 pairs is three times slower than 14 batches). Instances with
    ternary terms go to :func:`~.ternary.solve_ternary_many` instead.

    An instance whose model would take more memory than
    :func:`~exactalign.core.memory.memory_limit` (:func:`memory_estimate`) is not modelled: it gets the assignment incumbent of :func:`round_point` and the bound that every
    candidate pair and pair of pairs earns its weight, status ``FEASIBLE``, the reason in
    ``details["stopped"]``.

    Under a time limit a batch whose LP stops spends what is left lowering its bound
    (:func:`_tighten_open`), except that the time after it is spared for what comes next -- the
    following batches, and after the last one too when ``spare`` (another method waits for the
    same budget) -- by taking only the Lagrangian's first step there."""
    options = options or SolveOptions()
    t0 = time.perf_counter()
    instances = list(instances)
    out: list[Result | None] = [None] * len(instances)
    tern = [n for n, inst in enumerate(instances) if inst.has_ternary]
    if tern:  # ternary terms (DRS clauses): their own path, :mod:`.ternary`
        for n, r in zip(tern, solve_ternary_many([instances[n] for n in tern], options=options,
                                                 backend=backend, linking=linking), strict=True):
            out[n] = r
    todo = []
    for n, inst in enumerate(instances):
        if out[n] is not None:
            continue
        why = over_limit(memory_estimate(inst, linking))
        if why is None:
            todo.append(n)
        else:
            out[n] = _unmodelled(inst, f"memory: {why}")
    start, cols = 0, 0
    for k, n in enumerate(todo):
        cols += instances[n].num_pairs + len(instances[n].bin_w)
        if cols >= BATCH_COLUMNS or k == len(todo) - 1:
            opts = replace(options, time_limit=remaining(options.time_limit,
                                                         time.perf_counter() - t0))
            batch = todo[start:k + 1]
            done = _solve_batch([instances[i] for i in batch], opts, backend, linking,
                                spare=spare or k < len(todo) - 1)
            for i, r in zip(batch, done, strict=True):
                out[i] = r
            start, cols = k + 1, 0
    return out


def memory_estimate(inst: LatentInstance, linking: str = "aggregated") -> float:
    """The peak memory, in bytes, of the exact path on ``inst`` alone: its model's columns at
    :data:`BYTES_PER_COLGEN_COLUMN` when column generation solves its LP, else at
    :data:`BYTES_PER_COLUMN`."""
    cols = inst.num_pairs + len(inst.bin_w) + len(inst.tri_w)
    colgen = cols > COLGEN_COLUMNS and linking == "aggregated"
    return float(cols * (BYTES_PER_COLGEN_COLUMN if colgen else BYTES_PER_COLUMN))


def trivial_bound(inst: LatentInstance) -> float:
    """A bound without a solver: the smaller of (1) every candidate pair and every pair of pairs
    earns its weight, and (2) the count bound of the triples' keys
    (:func:`~.matches.count_bound`)."""
    every = float(np.floor(inst.unary.clip(0).sum() + inst.bin_w.clip(0).sum()
                           + inst.tri_w.clip(0).sum() + INT_TOL))
    return min(every, float(count_bound(inst)))


def _unmodelled(inst: LatentInstance, why: str) -> Result:
    """An instance not given to a solver: the assignment incumbent and the trivial bound."""
    t = time.perf_counter()
    m = round_point(inst, np.zeros(inst.num_pairs), climb=False)
    obj = check(inst, m)
    bound = max(trivial_bound(inst), obj)
    st = Status.OPTIMAL if obj >= bound else Status.FEASIBLE
    return Result(st, obj, bound, m, "exact", time.perf_counter() - t,
                  details={"proven_by": {"trivial bound": 1} if st is Status.OPTIMAL else {},
                           "stopped": why})


def _tighten_open(model, big: LatentInstance, lp, label, col_label, lp_val, bound, status,
                  how, on, options: SolveOptions, t0: float,
                  max_steps: int | None = None) -> np.ndarray:
    """After an unfinished LP: the components left unproven get the bound of the Lagrangian
    dual of the linking rows from the LP's last multipliers (:func:`~.lagrange.tighten`, in
    the time left), recomputed by weak duality (:func:`certified_lp_bound`) and kept where it
    is lower; one that meets its mapping's value is proven (``Lagrangian bound``); at most
    ``max_steps`` steps (``1``: the exact one-to-one multipliers only). Updates ``bound``,
    ``status`` and ``how`` in place; returns the components whose bound it lowered."""
    count = len(bound)
    lowered = np.zeros(count, dtype=bool)
    open_ = np.flatnonzero([s is not Status.OPTIMAL for s in status])
    left = remaining(options.time_limit, time.perf_counter() - t0)
    if len(open_) == 0 or lp.row_dual is None or (left is not None and left <= 0):
        return lowered
    # the mappings' values per component, Polyak's targets
    val = np.bincount(label, weights=big.unary * on, minlength=count)
    val += np.bincount(label[big.bin_p], weights=big.bin_w * (on[big.bin_p] & on[big.bin_q]),
                       minlength=count)
    # the duals' sign under which they bound (maximisation sign, as column generation's)
    y = min((lp.row_dual, -lp.row_dual),
            key=lambda v: sum(float(t.sum()) for t in dual_bound_terms(model, v)))
    y2 = tighten(model, big, y, col_label, open_, val, replace(options, time_limit=left),
                 max_steps=max_steps)
    cert, _ = certified_lp_bound(model, replace(lp, row_dual=y2), col_label, lp_val, count,
                                  point_is_optimal=False)
    lower = np.floor(cert + INT_TOL)
    for k in open_:
        if lower[k] < bound[k]:
            if val[k] > lower[k]:
                raise VerificationError(f"a mapping scores {val[k]} above the bound "
                                        f"{lower[k]} of the Lagrangian dual's multipliers")
            bound[k], lowered[k] = lower[k], True
            if val[k] >= lower[k]:
                status[k], how[k] = Status.OPTIMAL, "Lagrangian bound"
    return lowered


def _batch_without_lp(instances, options: SolveOptions, backend: str, linking: str,
                      t0: float, union_vars: int) -> list[Result]:
    """When the batch's LP ran out of time: each instance's MIP, warm-started from the
    assignment on the candidates' own weights (:func:`round_point` of the empty LP point, without the
    climb), in an equal share of the time left. The result is
    the better of the two mappings and the MIP's bound (floored; without one, the bound that
    every candidate pair and every pair of pairs earns its weight), status ``TIME_LIMIT`` unless
    the MIP proved its answer.

    An instance holding at least half of the batch's columns gets no MIP: its root LP is at least
    half of the LP that did not finish in three times the time the MIP would get, so the MIP could
    not prove
    anything, and HiGHS' presolve (probing) overruns its time limit on such models by seconds
    (19 s for a 13 s limit on an 800-node pair)."""
    out = []
    for n, inst in enumerate(instances):
        start = time.perf_counter()
        m = round_point(inst, np.zeros(inst.num_pairs), climb=False)  # the climb can take minutes
        obj = check(inst, m)
        bound = trivial_bound(inst)
        status, details = Status.TIME_LIMIT, {"proven_by": {}, "stopped": "LP time limit"}
        solver = "highs"  # the LP's, unless this instance's MIP runs
        left = remaining(options.time_limit, time.perf_counter() - t0)
        share = None if left is None else left / (len(instances) - n)
        if 2 * (inst.num_pairs + len(inst.bin_w)) >= union_vars:  # its MIP's columns
            details["stopped"] = "LP time limit (no MIP: its root LP would not finish either)"
            if share is None or share > 0:  # the time left polishes the incumbent instead
                m = round_point(inst, np.zeros(inst.num_pairs),
                           deadline=Deadline(share, time.perf_counter()))
                obj = check(inst, m)
        elif inst.num_pairs and (share is None or share > 0):
            model, solver = ilp_model(inst, linking), backend
            res = verified_result(
                solve_model(model, backend, replace(options, warm_start=model_point(inst, m),
                                                    time_limit=share)), model,
                decode=lambda z, i=inst: decode_point(i, z), check=lambda al, i=inst: check(i, al),
                method="exact", seed=options.seed)
            if res.alignment is not None and res.objective >= obj:
                m, obj = res.alignment, res.objective
            if res.bound is not None:
                bound = min(bound, float(np.floor(res.bound + INT_TOL)))
            if res.fallback:
                details["fallback"] = list(res.fallback)
        bound = max(bound, obj)
        if obj >= bound:
            status, details["proven_by"] = Status.OPTIMAL, {"MIP": 1}
        out.append(Result(status, obj, bound, m, "exact", time.perf_counter() - start,
                          backend=solver, seed=options.seed, details=details))
    return out


#: PDLP's KKT tolerance on a big batch LP (:func:`_lp_relaxation`), where its point is only
#: rounded and its bound comes from its duals. Measured (HiGHS 1.15.1, presolve on; LP time and
#: how far the duals' bound lies above the LP optimum) at 1e-8 against 1e-5: 404-variable random
#: pair 2.9 / 1.6 s (+1e-6 / +0.0015), 801 variables 13.3 / 9.3 s (+2e-6 / +0.003), 1,012
#: variables 26.9 / 20.0 s (+9e-6 / +0.012). 1e-4 is no faster; 1e-3 bounds the 1,012-variable
#: pair's LP at 1,623.29 (optimum 1,622), above the next integer.
PDLP_TOLERANCE = 1e-5

#: :func:`_lp_relaxation` keeps a PDLP answer when the bound its duals certify (weak duality) and
#: the value of its point (clipped to the columns' bounds) differ by at most this: PDLP converged.
PDLP_GAP = 0.1


def _pdlp(relaxed, options: SolveOptions):
    """HiGHS' PDLP on the LP ``relaxed``, the backend called directly: its point is never taken
    as an answer (only rounded, each rounding checked) and its bound is certified from its duals
    (:func:`certified_lp_bound`), so :func:`~exactalign.core.solve.solve_model`'s check of the
    point (rows within 1e-6) does not apply."""
    return get_backend("highs")(relaxed, options)


def _lp_relaxation(model, options: SolveOptions, inst: LatentInstance | None = None,
                   linking: str = "aggregated"):
    """The LP relaxation of ``model`` on HiGHS within ``options.time_limit``: simplex up to
    :data:`LARGE_LP_COLUMNS` columns, its answer checked by
    :func:`~exactalign.core.solve.solve_model`; above, PDLP (a first-order method: no basis, a
    point and duals optimal to :data:`PDLP_TOLERANCE`) through :func:`_pdlp`. Its answer is
    returned with ``x`` empty and the point (clipped to ``[0, 1]``) in ``iterate``, status
    OPTIMAL, when its duals certify, by weak duality, a bound within :data:`PDLP_GAP` of the
    point's value, whatever HiGHS' own status says (after postsolve it may call PDLP's duals
    "Unknown": they still certify). Otherwise the interior point method with crossover solves the
    LP in the time left (the failed route in ``attempts``). The bound :func:`_solve_batch` keeps
    is recomputed from the duals in any case (:func:`certified_lp_bound`), and the point is
    rounded (:func:`_settle`).

    Under a time limit (``options.time_limit`` or the command's budget) PDLP runs with presolve
    off: HiGHS does not postsolve an unfinished solve, so with presolve on a PDLP stopped at the
    limit returns no duals and nothing to bound the LP; with it off, its duals at the limit
    certify a bound by weak duality all the same (:func:`_settle_unfinished`). The price is paid
    when the limit is not reached: measured on the 1,012-variable pair (361,415 columns, KKT
    tolerance 1e-8), PDLP takes 34.4 s with presolve off against 26.9 s with it on; stopped at
    5, 10 and 20 s its duals bound the LP at 1,635.2, 1,624.9 and 1,622.2 (optimum 1,622). Such
    an unfinished PDLP is returned with status ``TIME_LIMIT``, its duals and its last point in
    ``iterate`` (also when PDLP finished but the interior point method after it did not)."""
    attempts: tuple = ()
    if model.num_vars > COLGEN_COLUMNS and inst is not None and linking == "aggregated":
        cg = column_generation(model, inst, options, integral=True)
        if cg.row_dual is not None or cg.status is Status.TIME_LIMIT:
            return cg
        attempts = ({"backend": "highs", "presolve": False, "lp_method": "column generation",
                     "error": cg.raw_status},)
    relaxed = model.relax()  # a copy of every vector: not made while column generation runs
    if model.num_vars <= LARGE_LP_COLUMNS:
        return replace(solve_model(relaxed, "highs", options), attempts=attempts)
    t0 = time.perf_counter()
    limit = remaining(options.time_limit, 0.0)
    pdlp = replace(options, lp_method="pdlp", lp_tolerance=PDLP_TOLERANCE, time_limit=limit,
                   presolve=options.presolve and limit is None)
    lp = _pdlp(relaxed, pdlp)
    point = lp.x if lp.x is not None else lp.iterate
    guide = None  # PDLP's answer, its point a guide only
    why = f"PDLP stopped: {lp.raw_status}"
    if (lp.row_dual is not None and point is not None and np.isfinite(point).all()
            and np.isfinite(lp.row_dual).all()):
        point = np.clip(point, relaxed.col_lo, relaxed.col_hi)
        guide = replace(lp, x=None, objective=None, bound=None, iterate=point)
        if lp.status is Status.TIME_LIMIT:
            return guide  # no time is left for the interior point method either
        value = float(relaxed.c @ point)
        cert = min(sum(float(t.sum()) for t in dual_bound_terms(relaxed, y))
                   for y in (lp.row_dual, -lp.row_dual))
        if abs(cert - value) <= PDLP_GAP:
            return replace(guide, status=Status.OPTIMAL)
        why = (f"PDLP ({lp.raw_status}): its duals bound the LP at {cert:.6f}, its point "
               f"scores {value:.6f}")
    elif lp.status is Status.TIME_LIMIT:
        return replace(lp, row_dual=None)  # nothing to bound with: _batch_without_lp
    left = remaining(options.time_limit, time.perf_counter() - t0)
    ipm = solve_model(relaxed, "highs", replace(options, lp_method="ipm", time_limit=left))
    if ipm.status is Status.TIME_LIMIT and guide is not None:
        return replace(guide, status=Status.TIME_LIMIT)  # its duals still bound the LP
    failed = {"backend": "highs", "presolve": pdlp.presolve, "lp_method": "pdlp",
              "error": why}
    return replace(ipm, attempts=attempts + (failed,) + tuple(ipm.attempts))


def _solve_batch(instances, options: SolveOptions, backend: str, linking: str,
                 spare: bool = False) -> list[Result]:
    """The ``exact`` method on a batch of instances.

    1. The disjoint union of the instances is one ILP (:func:`ilp_model`); its LP relaxation is
       solved in a single HiGHS call. The LP separates into the components
       (:func:`component_labels`), so each component's share ``v`` of the LP optimum is its own
       LP optimum, and -- the objective being an integer -- ``floor(v + 1e-6)`` bounds it. ``v``
       is not taken from the solver: it is recomputed per component from HiGHS' row duals by
       weak duality (:func:`certified_lp_bound`).
    2. A component whose LP point is integral is solved by it (its objective equals ``v``).
    3. Any other is rounded and polished (:func:`round_point`); if that reaches ``floor(v)`` it is
       proven, else the component's MIP runs on ``backend`` warm-started from it (MIP
       ``bound`` floored likewise); a time limit leaves the incumbent and the bound.
    4. Under a time limit the LP gets three quarters of what is left. A PDLP stopped by it still
       bounds every component by its duals (weak duality holds for any duals; capped by the
       triples' count), and its last point is settled by :func:`_settle_unfinished` in equal
       shares of half the time left (:data:`SETTLE_SHARE`); the other half lowers the bound of
       the components still open by the Lagrangian dual of the linking rows from those duals
       (:func:`_tighten_open`; its first step only when ``spare``: the time after the batch is
       for others); without duals (simplex or the interior point method stopped),
       :func:`_batch_without_lp`.

    One :class:`Result` per instance (bound = sum of its components' bounds; ``details``:
    ``proven_by``, components per proof: ``assignment`` for a component without pairs of
    pairs, whose LP is an assignment LP and has an integral optimal vertex, ``LP integral``,
    ``LP bound``, ``MIP``, ``Lagrangian bound``); ``wall_time`` is the instance's share of the
    batch time by model size. Every mapping is re-checked with :func:`check`."""
    t0 = time.perf_counter()
    big, loff, poff = _concat(instances)
    owner = np.searchsorted(loff, big.pair_left, "right") - 1  # instance of each pair
    count, label = component_labels(big)
    P = big.num_pairs
    model = ilp_model(big, linking)
    x = np.zeros(model.num_vars)
    lp, unfinished, guided = None, False, False
    if model.num_vars:
        # The LP gets 3/4 of what is left (without its bound nothing is proven); the rest is for
        # the MIPs (or, if the LP does not finish, for each instance's own MIP from a rounded
        # start: :func:`_batch_without_lp`).
        left = remaining(options.time_limit, time.perf_counter() - t0)
        lp = _lp_relaxation(model, replace(options, warm_start=None,
                                           time_limit=None if left is None else 0.75 * left),
                            big, linking)
        unfinished = lp.status is Status.TIME_LIMIT
        if unfinished and lp.row_dual is None:
            return _batch_without_lp(instances, options, backend, linking, t0, model.num_vars)
        guided = lp.x is None and lp.iterate is not None  # PDLP: its duals bound, its point guides
        if lp.status not in (Status.OPTIMAL, Status.TIME_LIMIT) or not guided and lp.x is None:
            raise BackendError(f"the LP relaxation was not solved: {lp.raw_status}")
        x = lp.iterate if guided else lp.x
    held = None  # the pairs column generation held (its restricted LP's)
    if lp is not None and lp.held is not None:
        held = np.zeros(P, dtype=bool)
        held[lp.held[lp.held < P]] = True
    col_label = np.concatenate([label, label[big.bin_p]])
    lp_val = np.bincount(col_label, weights=model.c * x, minlength=count)
    cert, if_one = certified_lp_bound(model, lp, col_label, lp_val, count,
                                       point_is_optimal=not guided)
    bound = np.floor(cert + INT_TOL)
    if guided:  # duals far from optimal may bound a component by less than that (or inf)
        every = (np.bincount(label, weights=big.unary.clip(0), minlength=count)
                 + np.bincount(label[big.bin_p], weights=big.bin_w.clip(0), minlength=count))
        bound = np.minimum(bound, np.floor(every + INT_TOL))
    xp = x[:P]
    on = xp > 0.5
    val = np.bincount(label, weights=big.unary * on, minlength=count)
    both = on[big.bin_p] & on[big.bin_q]
    val += np.bincount(label[big.bin_p], weights=big.bin_w * both, minlength=count)
    bad = np.zeros(count, dtype=bool)
    if guided:  # its point need not even be one-to-one: such components are settled
        twice = ((np.bincount(big.pair_left[on], minlength=big.n_left) > 1)[big.pair_left]
                 | (np.bincount(big.pair_right[on], minlength=big.n_right) > 1)[big.pair_right])
        bad[label[on & twice]] = True
    else:
        bad[label[np.abs(xp - np.round(xp)) > 1e-7]] = True
    bad |= val < bound
    how = np.where(np.bincount(col_label[P:], minlength=count) > 0, "LP integral",
                   "assignment").astype(object)  # a later label may be longer
    if guided:  # a one-to-one point reaching the duals' bound: proven by that bound
        how[:] = "LP bound"
    status = np.full(count, Status.OPTIMAL, dtype=object)
    nodes = np.zeros(count, dtype=np.int64)
    fallback: dict[int, list] = {}  # component -> routes that failed before its MIP's answer
    todo = np.flatnonzero(bad)
    linked = model.num_vars > P  # pairs of pairs, so linking rows: a bound to tighten
    left = remaining(options.time_limit, time.perf_counter() - t0)
    settle_end = None if left is None else (time.perf_counter()
                                            + (SETTLE_SHARE if linked else 1.0) * left)
    for i, k in enumerate(todo):
        pairs = np.flatnonzero(label == k)
        sub = _restrict(big, pairs)
        if unfinished:  # an equal share of the settling time left
            share = None if settle_end is None else max(
                0.0, settle_end - time.perf_counter()) / (len(todo) - i)
            m, obj, b, st, hw, nd, fb = _settle_unfinished(
                sub, xp[pairs], float(bound[k]), linking, replace(options, time_limit=share),
                backend)
        else:
            m, obj, b, st, hw, nd, fb = _settle(sub, xp[pairs], float(bound[k]), linking,
                                                options, backend, t0,
                                                if_one[pairs] if len(if_one) else None,
                                                None if held is None else held[pairs])
        if fb:
            fallback[int(k)] = fb
        on[pairs] = False
        idx = sub.pair_index(m)  # a swap may leave pairs no triple needs: they earn nothing
        on[pairs[idx[idx >= 0]]] = True
        bound[k], status[k], how[k], nodes[k] = b, st, hw, nd
    tightened = np.zeros(count, dtype=bool)
    if unfinished and linked:
        tightened = _tighten_open(model, big, lp, label, col_label, lp_val, bound, status, how,
                                  on, options, t0, max_steps=1 if spare else None)
    total = time.perf_counter() - t0
    comp_owner = np.zeros(count, dtype=np.int64)
    comp_owner[label] = owner
    sizes = np.array([i.num_pairs + len(i.bin_w) for i in instances], np.float64)
    share = sizes / sizes.sum() if sizes.sum() else np.zeros(len(instances))
    results = []
    for n, inst in enumerate(instances):
        sel = np.flatnonzero(on[poff[n]:poff[n + 1]])
        m = mapping_array(inst.pair_left[sel], inst.pair_right[sel])
        obj = check(inst, m)
        comps = np.flatnonzero(comp_owner == n)
        st = worst_status(status[comps]) if len(comps) else Status.OPTIMAL
        b = float(bound[comps].sum())
        proven_by: dict = {}
        if guided and b > obj:  # far-from-optimal duals: the count bound may be lower
            b = min(b, trivial_bound(inst))
            if b <= obj:
                b, st, proven_by = obj, Status.OPTIMAL, {"trivial bound": 1}
        if st is Status.OPTIMAL and obj < b:
            raise VerificationError(f"instance {n}: components proven optimal sum to {b} but "
                                    f"the mapping scores {obj}")
        for h in how[comps] if not proven_by else ():
            proven_by[str(h)] = proven_by.get(str(h), 0) + 1
        details: dict = {"proven_by": proven_by}
        if unfinished and st is not Status.OPTIMAL:
            details["stopped"] = (
                f"LP stopped ({lp.raw_status}; bound: its last duals, extended to every row)"
                if lp.raw_status.startswith("column generation")
                else "LP time limit (bound: the duals of PDLP at the limit)")
            if tightened[comps].any():
                details["stopped"] += ("; tightened by the Lagrangian dual of the linking "
                                       "rows from them")
        if lp is not None and not lp.presolve:  # PDLP under a time limit, column generation
            details["presolve"] = False
        failed = [a for c in comps for a in fallback.get(int(c), ())]
        if lp is not None and lp.attempts:
            failed = [dict(a) for a in lp.attempts] + failed
        if failed:
            details["fallback"] = failed
        # the backend that answered: the MIPs' when one ran, else HiGHS' LP (none: no model)
        solver = (backend if "MIP" in proven_by else "highs" if lp is not None else None)
        results.append(Result(st, obj, max(b, obj), m, "exact", float(total * share[n]),
                              nodes=int(nodes[comps].sum()), backend=solver,
                              components=len(comps), details=details))
    return results
