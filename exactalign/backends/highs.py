"""HiGHS through ``highspy`` (the default backend).

Honours every option: time limit, relative gap, threads, random seed, presolve, and a warm start
(``setSolution``; HiGHS checks it and keeps it as incumbent if feasible).

Every option is set explicitly on every solve, never inherited from an earlier one in the same
process. HiGHS keeps one global thread scheduler per process: a solve asking for another thread
count than the scheduler was started with fails with status "Not Set" (highspy 1.16), so the
scheduler is reset whenever the count changes. highspy 1.16 prints its banner on the process's
standard output (file descriptor 1, from C++) when a ``Highs`` object is first used, before
``output_flag`` can be set: :func:`new_highs` builds and silences the object with descriptor 1
pointed at standard error, so ``--json`` output stays one JSON document."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from functools import lru_cache

import numpy as np

from ..core.model import LinearModel
from ..core.outcome import BackendOutcome, SolveOptions, finalize_status
from ..core.result import Status

NAME = "highs"

#: HiGHS' ``kkt_tolerance`` on a PDLP solve (``SolveOptions(lp_method="pdlp")``) unless
#: ``SolveOptions.lp_tolerance`` says otherwise.
PDLP_KKT_TOLERANCE = 1e-8

#: HiGHS' ``mip_abs_gap`` on a MIP whose objective is an integer at every feasible point
#: (:func:`integral_objective`): a gap under 1 then proves the incumbent optimal, and the dual
#: bound is rounded to the integer it certifies. HiGHS knows the objective is integral ("Objective
#: function is integral with scale 1") but prunes the root node only after its separation rounds
#: and restarts, so a root bound already under the next integer does not stop it. Measured on the
#: MIP that proves a held-out 1,000-variable document pair (AMR Bio test bank; 22,332 pairs, the
#: optimum 1,865 warm-started, LP 1,866.10): its cuts take the bound to 1,865.89 after 8 s, and
#: with a gap of 1e-9 HiGHS restarts twice more and stops at 23.4 s; with this gap it stops at 6.5 s.
INTEGRAL_GAP = 0.99

#: HiGHS' ``simplex_strategy`` of :class:`IncrementalLP` given more than one thread: the
#: parallel dual simplex (PAMI). Measured on a held-out 1,500-variable document pair (AMR Bio test
#: bank, column generation alone): 22.9 s serial, 18.6 s with two threads, the same rounds and
#: simplex iterations.
PARALLEL_DUAL = 2

#: The most HiGHS' ``simplex_max_concurrency`` takes (it refuses more).
MAX_CONCURRENCY = 8

#: Thread count the process-wide HiGHS scheduler was last used with (``None``: not yet).
_scheduler_threads: int | None = None


@contextlib.contextmanager
def _stdout_to_stderr():
    """Point file descriptor 1 at standard error for the duration (C++ output included)."""
    try:
        out_fd, err_fd = sys.__stdout__.fileno(), sys.__stderr__.fileno()
    except (AttributeError, ValueError, OSError):  # no real descriptors (embedded, captured)
        yield
        return
    sys.stdout.flush()
    saved = os.dup(out_fd)
    try:
        os.dup2(err_fd, out_fd)
        yield
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        os.dup2(saved, out_fd)
        os.close(saved)


def new_highs(verbose: bool = False):
    """A fresh ``highspy.Highs`` with logging off (unless ``verbose``): its banner goes to stderr."""
    import highspy

    with _stdout_to_stderr():
        h = highspy.Highs()
        h.setOptionValue("output_flag", bool(verbose))
        h.setOptionValue("log_to_console", bool(verbose))
    return h


@lru_cache(maxsize=1)
def _version() -> str:
    try:
        from importlib.metadata import version

        return f"highspy {version('highspy')}"
    except Exception:  # pragma: no cover - not installed as a distribution
        return "highspy"


def to_highs(model: LinearModel, options: SolveOptions | None = None):
    """A ``highspy.Highs`` object holding ``model`` (column-wise arrays, no Python loops)."""
    import highspy

    h = new_highs(bool(options and options.verbose))
    starts, rows, vals = model.A.csc_arrays()
    inf = highspy.kHighsInf
    n, m = model.num_vars, model.num_rows

    def clip(a):
        return np.clip(np.asarray(a, dtype=np.float64), -inf, inf)

    status = h.passModel(
        n, m, int(model.A.nnz), 1, -1 if model.maximize else 1, float(model.offset),
        model.c.astype(np.float64), clip(model.col_lo), clip(model.col_hi),
        clip(model.row_lo), clip(model.row_hi),
        starts[:-1].astype(np.int32), rows.astype(np.int32),
        vals.astype(np.float64), model.integrality.astype(np.int32),
    )
    if status == highspy.HighsStatus.kError:
        raise ValueError(f"HiGHS rejected the model {model.name!r}")
    return h


def integral_objective(model: LinearModel) -> bool:
    """Whether ``model``'s objective is an integer at every point that satisfies its
    integrality: every column of nonzero cost is integer, and the costs and the offset are
    integers."""
    if not model.is_mip:
        return False
    c = np.asarray(model.c, dtype=np.float64)
    on = c != 0
    return bool(model.integrality[on].all() and np.array_equal(c[on], np.round(c[on]))
                and float(model.offset).is_integer())


def _configure(h, model: LinearModel, options: SolveOptions) -> bool:
    """Set every option this backend honours, explicitly, on this solve. Returns
    :func:`integral_objective` of ``model`` (the gap it set follows it)."""
    global _scheduler_threads
    import highspy

    threads = int(options.threads)
    if _scheduler_threads is not None and _scheduler_threads != threads:
        highspy.Highs.resetGlobalScheduler(True)
    _scheduler_threads = threads
    h.setOptionValue("threads", threads)
    h.setOptionValue("random_seed", int(options.seed))
    h.setOptionValue("mip_rel_gap", float(options.mip_rel_gap))
    # HiGHS' default absolute gap (1e-6) would let it stop short of a proof on tiny objectives;
    # with an integral objective a gap under 1 is a proof (INTEGRAL_GAP).
    integral = integral_objective(model)
    h.setOptionValue("mip_abs_gap", INTEGRAL_GAP if integral else 1e-9)
    h.setOptionValue("presolve", "on" if options.presolve else "off")
    h.setOptionValue("mip_allow_restart", bool(options.restart))
    h.setOptionValue("time_limit", float("inf") if options.time_limit is None
                     else float(options.time_limit))
    h.setOptionValue("solver", options.lp_method if options.lp_method is not None
                     and not model.is_mip else "choose")
    if options.lp_method == "pdlp" and not model.is_mip:
        # PDLP's default KKT tolerance (1e-7, relative) leaves rows violated by ~2e-6 on big
        # Smatch LPs, over the 1e-6 that solve_model's check allows; 1e-8 costs ~10% more
        # iterations (measured on an 800-variable pair: 1,320 against 1,200, the same time).
        h.setOptionValue("kkt_tolerance", PDLP_KKT_TOLERANCE if options.lp_tolerance is None
                         else float(options.lp_tolerance))
    if options.warm_start is not None and model.is_mip:
        ws = np.asarray(options.warm_start, dtype=np.float64)
        h.setSolution(int(ws.shape[0]), np.arange(ws.shape[0], dtype=np.int32), ws)
    return integral


def solve(model: LinearModel, options: SolveOptions) -> BackendOutcome:
    import highspy

    t0 = time.perf_counter()
    h = to_highs(model, options)
    integral = _configure(h, model, options)
    run = h.run()
    if run == highspy.HighsStatus.kError and \
            h.getModelStatus() == highspy.HighsModelStatus.kNotset:
        # The global scheduler was started elsewhere in this process with another thread count.
        highspy.Highs.resetGlobalScheduler(True)
        h = to_highs(model, options)
        _configure(h, model, options)
        h.run()
    wall = time.perf_counter() - t0
    ms = h.getModelStatus()
    info = h.getInfo()
    S = highspy.HighsModelStatus
    has_x = info.primal_solution_status == 2  # kSolutionStatusFeasible
    x = np.asarray(h.getSolution().col_value, dtype=np.float64) if has_x else None
    obj = float(info.objective_function_value) if has_x else None
    if model.is_mip:
        bound = float(info.mip_dual_bound)
        nodes = int(info.mip_node_count)
        if not np.isfinite(bound):
            bound = None
        elif integral:  # the integer it certifies (INTEGRAL_GAP)
            bound = (np.floor(bound + 1e-6) if model.maximize else np.ceil(bound - 1e-6))
    else:  # LP: at optimality strong duality makes the objective its own bound
        bound = obj if ms == S.kOptimal else None
        nodes = 0
    raw = h.modelStatusToString(ms)
    if ms == S.kOptimal:
        status = finalize_status(True, obj, bound, time_limited=False)
    elif ms in (S.kTimeLimit, S.kInterrupt, S.kHighsInterrupt, S.kIterationLimit,
                S.kSolutionLimit):
        status = Status.TIME_LIMIT
    elif ms in (S.kInfeasible, S.kUnboundedOrInfeasible, S.kUnbounded):
        status, x, obj = Status.INFEASIBLE, None, None
    else:
        status = Status.ERROR
    duals = iterate = None
    pdlp = options.lp_method == "pdlp" and not model.is_mip
    if not model.is_mip and info.dual_solution_status != 0 and (ms == S.kOptimal or pdlp):
        # PDLP has no basis: HiGHS' check of its duals after postsolve can turn "Optimal" into
        # "Unknown" although they bound the LP within 1e-5 (measured on Smatch LPs). They are
        # returned all the same, for a caller that certifies a bound from them by weak duality
        # -- also when PDLP stopped at its time limit (HiGHS then has duals only with presolve
        # off: it does not postsolve an unfinished solve).
        duals = np.asarray(h.getSolution().row_dual, dtype=np.float64)
    if pdlp and x is None and info.primal_solution_status != 0:
        iterate = np.asarray(h.getSolution().col_value, dtype=np.float64)
    return BackendOutcome(status=status, x=x, objective=obj, bound=bound, nodes=nodes,
                          wall_time=wall, backend=NAME, solver_version=_version(),
                          raw_status=raw, row_dual=duals, presolve=options.presolve,
                          iterate=iterate)


def write_lp_file(model: LinearModel, path) -> None:
    """Write ``model`` in CPLEX LP format (through HiGHS' writer), for inspection."""
    h = to_highs(model)
    for j, name in enumerate(model.names()):  # debugging aid: a loop is fine here
        h.passColName(j, name)
    h.writeModel(str(path))


class IncrementalLP:
    """The LP relaxation of ``model`` held in one HiGHS object, to which rows and columns are
    added between solves: each :meth:`solve` starts from the last basis (new columns nonbasic at
    their lower bound, new rows' slacks basic), so a few added columns cost a few simplex
    iterations, not a solve from scratch (column generation:
    :mod:`exactalign.problems.latent.colgen`). Presolve is off (it would discard the basis);
    every other option as :func:`solve` sets it, except that ``cost_perturbation=False`` turns
    off the dual simplex's own cost perturbation, which HiGHS draws afresh at every solve (the
    caller then perturbs the costs itself, once: :meth:`set_costs`)."""

    def __init__(self, model: LinearModel, options: SolveOptions,
                 cost_perturbation: bool = True) -> None:
        relaxed = model.relax()
        self._h = to_highs(relaxed, options)
        _configure(self._h, relaxed, options)
        self._h.setOptionValue("presolve", "off")
        if int(options.threads) > 1:  # the dual simplex's parallel variant (PAMI)
            import highspy

            for name, value in (("parallel", "on"), ("simplex_strategy", PARALLEL_DUAL),
                                ("simplex_max_concurrency",
                                 min(int(options.threads), MAX_CONCURRENCY))):
                if self._h.setOptionValue(name, value) != highspy.HighsStatus.kOk:
                    raise ValueError(f"HiGHS refused {name} = {value!r}")
        self.set_cost_perturbation(cost_perturbation)
        self.num_rows, self.num_vars = relaxed.num_rows, relaxed.num_vars
        self.version = _version()
        self.iterations = 0  # simplex iterations of the last solve

    def add_rows(self, lo, hi, A) -> None:
        """Rows ``lo <= A x <= hi``, ``A`` (scipy CSR) on the columns already held."""
        import highspy

        inf = highspy.kHighsInf
        n = A.shape[0]
        if n == 0:
            return
        self._h.addRows(n, np.clip(lo, -inf, inf).astype(np.float64),
                        np.clip(hi, -inf, inf).astype(np.float64), int(A.nnz),
                        A.indptr[:-1].astype(np.int32), A.indices.astype(np.int32),
                        A.data.astype(np.float64))
        self.num_rows += n

    def add_cols(self, c, lo, hi, A) -> None:
        """Columns of objective ``c`` within ``[lo, hi]``, ``A`` (scipy CSC) on the rows held."""
        n = A.shape[1]
        if n == 0:
            return
        self._h.addCols(n, np.asarray(c, np.float64), np.asarray(lo, np.float64),
                        np.asarray(hi, np.float64), int(A.nnz), A.indptr[:-1].astype(np.int32),
                        A.indices.astype(np.int32), A.data.astype(np.float64))
        self.num_vars += n

    def set_costs(self, c) -> None:
        """Replace the objective coefficients of every column held."""
        c = np.asarray(c, np.float64)
        self._h.changeColsCost(len(c), np.arange(len(c), dtype=np.int32), c)

    def set_cost_perturbation(self, on: bool) -> None:
        """Turn the dual simplex's cost perturbation on (HiGHS' default) or off."""
        self._h.setOptionValue("dual_simplex_cost_perturbation_multiplier", 1.0 if on else 0.0)

    def solve(self, time_limit: float | None = None) -> BackendOutcome:
        """Solve from the current basis: an OPTIMAL outcome carries the point, the objective and
        the row duals; any other has no point."""
        import highspy

        t0 = time.perf_counter()
        h = self._h
        # HiGHS' time limit counts the object's run time over every run() so far
        h.setOptionValue("time_limit", float("inf") if time_limit is None
                         else h.getRunTime() + float(time_limit))
        h.run()
        ms = h.getModelStatus()
        S = highspy.HighsModelStatus
        raw = h.modelStatusToString(ms)
        wall = time.perf_counter() - t0
        if ms != S.kOptimal:
            status = Status.TIME_LIMIT if ms in (S.kTimeLimit, S.kIterationLimit) \
                else Status.ERROR
            return BackendOutcome(status=status, x=None, objective=None, bound=None, nodes=0,
                                  wall_time=wall, backend=NAME, solver_version=_version(),
                                  raw_status=raw, presolve=False)
        sol, info = h.getSolution(), h.getInfo()
        self.iterations = int(info.simplex_iteration_count)
        obj = float(info.objective_function_value)
        return BackendOutcome(status=Status.OPTIMAL, x=np.asarray(sol.col_value, np.float64),
                              objective=obj, bound=obj, nodes=0, wall_time=wall, backend=NAME,
                              solver_version=_version(), raw_status=raw,
                              row_dual=np.asarray(sol.row_dual, np.float64), presolve=False)
