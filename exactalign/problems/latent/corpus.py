"""A corpus of latent instances solved as one job: what a metric hands down once and gets back.

Smatch, docSmatch and UMR (AnCast's objective) state each of their pairs as a
:class:`~exactalign.problems.latent.instance.LatentInstance`; :func:`solve_corpus` runs the
methods on all of them and returns every pair's results with the wall time of each method.

* The exact path (:func:`exact_results`): the pure-Python branch and bound
  (:func:`~exactalign.problems.latent.bnb.bnb_result`, budget ``bnb_work``, default
  :data:`~exactalign.problems.latent.bnb.BNB_WORK_LIMIT`; 0 skips it) on every pair -- after
  :data:`BNB_MAX_FAILURES` pairs it did not finish, the remaining pairs skip it -- then the LPs of
  the pairs it did not finish in batches (:func:`~exactalign.problems.latent.exact.
  solve_exact_many`: LPs on HiGHS, the rare MIPs on ``backend``). ``time_limit`` is the budget of
  the whole exact computation, branch and bound included. Every mapping is recounted from the
  triples (:func:`~exactalign.problems.latent.matches.count_matches`).
* Over worker processes (:func:`exact_parallel`, ``jobs`` other than 1): contiguous chunks of
  about equal model size (:func:`chunks`), joblib's default backend (an enclosing
  ``joblib.parallel_config(backend="dask")`` sends them to a Dask cluster).
* The hill-climbing (:func:`hillclimb_results`): smatch 1.0.4's, one ``random.Random(seed)``
  drawn from across the pairs in order, within the same budget (the pair being climbed when it
  passes keeps its best mapping, the pairs left their smart initial mappings).

numpy, scipy and HiGHS are imported only when a pair needs the LP path (the small files of the
command line never do: :mod:`exactalign.metrics.smatch`).
"""

from __future__ import annotations

import random
import time
from typing import NamedTuple

from . import bnb, hillclimb

#: :func:`exact_results` stops trying the branch and bound after it failed on this many pairs.
BNB_MAX_FAILURES = 8

#: the methods of :func:`solve_corpus`
CORPUS_METHODS = ("exact", "hillclimb", "both")


class CorpusSolve(NamedTuple):
    """:func:`solve_corpus`'s answer: per pair the exact and the hill-climbing
    :class:`~exactalign.Result` (``None`` where the method did not run) and the wall time of
    each method run (seconds)."""

    exact: tuple
    hillclimb: tuple
    times: dict


def solve_corpus(insts, method: str = "exact", *, restarts: int = 4, seed: int = 0,
                 time_limit: float | None = None, linking: str = "aggregated",
                 backend: str = "highs", bnb_work: int | None = None,
                 jobs: int = 1) -> CorpusSolve:
    """Every instance of ``insts`` by ``method`` (``exact``, ``hillclimb`` or ``both``; the
    exact path first, then the hill-climbing, which ``time_limit`` bounds too). ``jobs``
    (``-1``: one per CPU) spreads the exact path over worker processes; the hill-climbing
    stays in this process, its generator drawn from across the pairs in order."""
    if method not in CORPUS_METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of "
                         + ", ".join(CORPUS_METHODS))
    insts = list(insts)
    times = {}
    ex = hc = (None,) * len(insts)
    if method in ("exact", "both"):
        t0 = time.perf_counter()
        kwargs = {"time_limit": time_limit, "seed": seed, "backend": backend,
                  "linking": linking, "bnb_work": bnb_work, "spare": method == "both"}
        ex = tuple(exact_parallel(insts, jobs, **kwargs) if jobs != 1
                   else exact_results(insts, **kwargs))
        times["exact"] = time.perf_counter() - t0
    if method in ("hillclimb", "both"):
        t0 = time.perf_counter()
        hc = tuple(hillclimb_results(insts, restarts, seed=seed, time_limit=time_limit))
        times["hillclimb"] = time.perf_counter() - t0
    return CorpusSolve(ex, hc, times)


def hillclimb_results(insts, restarts: int, *, seed: int = 0,
                      time_limit: float | None = None) -> list:
    """smatch 1.0.4's hill-climbing on every instance in order, one generator
    ``random.Random(seed)`` across them (:func:`~exactalign.problems.latent.hillclimb.
    hillclimb_result`), all within ``time_limit``."""
    from ...core.deadline import Deadline

    rng = random.Random(seed)
    deadline = Deadline(time_limit)
    return [hillclimb.hillclimb_result(inst, restarts, rng=rng, seed=seed, deadline=deadline)
            for inst in insts]


def exact_results(insts, *, time_limit, seed, backend, linking, bnb_work, threads: int = 1,
                  spare: bool = False) -> list:
    """The exact path on ``insts``: the branch and bound on every pair, then the LPs of the
    pairs it did not finish, within ``time_limit`` together. Every mapping is recounted from
    the triples as smatch counts them: the branch and bound's by
    :func:`~exactalign.problems.latent.bnb.branch_and_bound` itself, the LPs' here (their
    checker counts on the compiled model), each returned as sorted ``(left, right)`` rows.
    ``threads``: HiGHS' threads (:class:`~exactalign.core.outcome.SolveOptions`); ``spare``:
    the hill-climbing waits for the same budget (``solve_exact_many``'s ``spare``)."""
    t0 = time.perf_counter()
    work = bnb.BNB_WORK_LIMIT if bnb_work is None else bnb_work
    ex, failed = [], 0
    for inst in insts:
        r = bnb.bnb_result(inst, work_limit=work) if work > 0 else None
        failed += r is not None and not r.proven_optimal
        if failed >= BNB_MAX_FAILURES:
            work = 0  # a corpus of hard pairs: the LP path is faster for the rest
        ex.append(r)
    todo = [k for k, r in enumerate(ex) if r is None or not r.proven_optimal]
    if todo:
        from ...core.errors import VerificationError
        from ...core.solve import SolveOptions, remaining
        from . import exact, matches

        # The budget covers the whole exact computation, the branch and bound included.
        opts = SolveOptions(time_limit=remaining(time_limit, time.perf_counter() - t0),
                            seed=seed, threads=threads)
        rest = exact.solve_exact_many([insts[k] for k in todo], options=opts,
                                      backend=backend, linking=linking, spare=spare)
        for k, r in zip(todo, rest, strict=True):  # recounted from the triples, as smatch
            m = matches.mapping_rows(r.alignment)
            if matches.count_matches(insts[k], m) != r.objective:
                raise VerificationError(f"pair {k}: the exact mapping does not score "
                                        f"{r.objective}")
            ex[k] = r.replace(alignment=m)
    return ex


def _exact_chunk(insts, memory: int | None, **kwargs) -> list:
    """:func:`exact_results` in a worker process, its model memory limited to ``memory``
    bytes."""
    import os

    from ...core.memory import ENV

    if memory is not None:
        os.environ[ENV] = str(memory)
    return exact_results(insts, **kwargs)


def chunks(size, workers: int) -> list:
    """Contiguous chunks of the pairs (their indices) of about equal total ``size``: at least
    one chunk a worker, at most four, never more than pairs. A pair ends the chunk its
    cumulative size reaches the chunk's share in (two equal pairs on two workers: one each)."""
    import numpy as np

    size = np.asarray(size, np.float64)
    n = max(1, min(len(size), 4 * workers))
    edges = np.searchsorted(np.cumsum(size), np.linspace(0, size.sum(), n + 1)[1:-1],
                            side="right")
    return [p for p in np.split(np.arange(len(size)), np.unique(edges)) if len(p)]


def exact_parallel(insts, jobs: int, **kwargs) -> list:
    """:func:`exact_results` over joblib workers: the pairs cut into contiguous chunks of about
    equal model size (variable pairs, the columns of their LPs: :func:`chunks`), each worker's
    memory limit a share of the whole (:func:`~exactalign.core.memory.memory_limit`), the time
    limit counted from now in every worker. With fewer chunks than workers (fewer pairs), each
    chunk's HiGHS gets the spare workers as threads (``workers // chunks``: column generation's
    dual simplex runs in parallel); one chunk is solved in this process."""
    import joblib
    import numpy as np

    from ...core.deadline import Deadline
    from ...core.memory import memory_limit
    from ...core.workers import worker_count

    workers = worker_count(jobs)
    size = np.array([max(1, len(i.left_binary) * len(i.right_binary) + i.n_left * i.n_right)
                     for i in insts], np.float64)
    parts = chunks(size, workers)
    threads = max(1, workers // len(parts))
    if len(parts) == 1:
        return exact_results(insts, threads=threads, **kwargs)
    limit = memory_limit()
    share = None if limit is None else limit // min(workers, len(parts))
    left = Deadline(kwargs.pop("time_limit")).left()
    out = joblib.Parallel(n_jobs=min(workers, len(parts)))(
        joblib.delayed(_exact_chunk)([insts[k] for k in part], share, time_limit=left,
                                     threads=threads, **kwargs)
        for part in parts)
    return [r for chunk in out for r in chunk]
