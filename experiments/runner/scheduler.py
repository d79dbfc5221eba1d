"""A Dask cluster for :func:`parallel_map`: :func:`scheduler_session` runs every
``parallel_map(..., jobs != 1)`` inside it through joblib's ``"dask"`` backend, on a local
cluster or a running scheduler whose processes report this process's :func:`environment`.
dask.distributed is imported only there."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator

from .journal import environment
from .meta import CHECKOUT
from .protocol import describe_error

#: How to install what :func:`scheduler_session` needs.
DASK_INSTALL = "pip install 'exactalign[experiments]'"

#: The Dask scheduler of the :func:`scheduler_session` in progress (its label), or ``None``.
_SCHEDULER: str | None = None


class SchedulerError(RuntimeError):
    """A Dask scheduler cannot be used: dask.distributed is not installed, the address does not
    answer, or its workers cannot run this checkout's experiments (message: one line)."""


def active_scheduler() -> str | None:
    """The label of the Dask scheduler in use (``"local (2 workers)"``, ``"tcp://host:8786 (3
    workers)"``), or ``None`` outside :func:`scheduler_session`."""
    return _SCHEDULER


def local_workers(jobs: int) -> int:
    """The number of worker processes of a local cluster for ``--jobs jobs``: ``jobs`` when it is
    above 1, every CPU but ``-jobs - 1`` when negative (joblib's convention: -1 = all; at
    least 2), else 2."""
    if jobs > 1:
        return jobs
    if jobs < 0:
        return max(2, (os.cpu_count() or 1) + 1 + jobs)
    return 2


def _check_cluster(client, address: str) -> int:
    """The number of ``client``'s workers, after checking that the scheduler and each worker
    report this process's :func:`environment` (the scheduler unpickles the tasks, so it needs
    this checkout too); :class:`SchedulerError` otherwise."""
    start = (f"run the scheduler and its workers with this checkout on their path, its lock "
             f"installed and the same data directory (PYTHONPATH={CHECKOUT} .venv/bin/dask "
             f"scheduler, and ... dask worker {address} --nthreads 1)")
    try:
        reports = {"the scheduler": client.run_on_scheduler(environment)}
        reports |= {f"worker {w}": env for w, env in
                    sorted(client.run(environment).items())}
    except Exception as e:  # e.g. a process that cannot import the experiments package
        raise SchedulerError(f"{address} cannot run the experiments ({describe_error(e)}): "
                             f"{start}") from e
    if len(reports) == 1:
        raise SchedulerError(f"the scheduler at {address} has no workers: {start}")
    here = environment()
    for who, env in reports.items():
        differ = sorted(k for k in here.keys() | env.keys() if here.get(k) != env.get(k))
        if differ:
            raise SchedulerError(f"{who} differs from this process in {', '.join(differ)}: "
                                 f"{start}")
    return len(reports) - 1


@contextlib.contextmanager
def scheduler_session(scheduler: str, *, workers: int = 2) -> Iterator[str]:
    """Run every :func:`parallel_map` with ``jobs != 1`` inside it on a Dask cluster, through
    joblib's ``"dask"`` backend; yields the scheduler's label, which :func:`run_experiment`
    records in ``meta.json`` (``"scheduler"``).

    ``scheduler`` is ``"local"`` -- a ``LocalCluster`` of ``workers`` processes of one thread
    each, no dashboard, its logging at WARNING, shut down on exit -- or the address of a running
    scheduler (``tcp://host:8786``), which, like its workers, must report the same
    :func:`environment` as this process (checked once, on connecting). dask.distributed is
    imported here only; :class:`SchedulerError` (one line) when it is missing, the address does
    not answer or the scheduler or a worker differs."""
    global _SCHEDULER
    try:
        import joblib
        from distributed import Client, LocalCluster
    except ImportError as e:
        raise SchedulerError(f"--scheduler needs dask.distributed, which is not installed "
                             f"({describe_error(e)}): {DASK_INSTALL}") from e
    with contextlib.ExitStack() as stack:
        if scheduler == "local":
            cluster = stack.enter_context(LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True,
                dashboard_address=None, silence_logs=logging.WARNING))
            client = stack.enter_context(Client(cluster))
        else:
            try:
                client = stack.enter_context(Client(scheduler))
            except (OSError, ValueError) as e:  # refused, timed out, unknown protocol
                raise SchedulerError(f"cannot connect to the Dask scheduler at {scheduler} "
                                     f"({describe_error(e)})") from e
        n = _check_cluster(client, "the local cluster" if scheduler == "local" else scheduler)
        label = f"{scheduler} ({n} worker{'s' if n != 1 else ''})"
        stack.enter_context(joblib.parallel_config(backend="dask"))
        previous, _SCHEDULER = _SCHEDULER, label
        try:
            yield label
        finally:
            _SCHEDULER = previous
