"""The shared experiment runner: config -> rows -> ``rows.csv`` + ``meta.json`` -> figures/summary.

An experiment is a module registered in :data:`experiments.REGISTRY` with

``NAME``, ``DESCRIPTION``   its name and a one-line description (``python -m experiments list``);
``QUICK``, ``FULL``         configs (plain dicts; ``seed`` is the base seed, keys containing
                            ``time_limit`` are reported as time limits in ``meta.json``);
``COLUMNS``                 the columns of its rows, in CSV order, ending with ``error`` (the
                            runner fills it: empty on a completed row, ``Type: message`` on a
                            failed instance's row); where a row records solver ``Result``
                            objects, ``fallback`` counts their fallback routes
                            (:func:`fallback_count`);
``FIGURES``                 the PNG file names its ``figures`` writes;
``DATA_SOURCE``             a sentence saying which data it uses (synthetic, pilot, ...);
``SEEDING``                 a sentence saying how per-unit seeds derive from ``config["seed"]``;
``run(config, *, jobs=1, quiet=False) -> list[dict]``  the rows (one dict per row, keys
                            ``COLUMNS``), its instances dispatched by :func:`parallel_map`
                            (which leaves failed ones out of its result); raises
                            :class:`ExperimentError` when it finds a violated invariant -- an
                            experiment never hides one;
``summary(rows) -> str``    one headline markdown table from the rows as :func:`read_rows`
                            returns them (that is, from the CSV alone), failed instances'
                            rows left out (:func:`completed_rows`);
``figures(csv_path, out_dir) -> list[Path]``  PNG figures from the CSV alone (its completed
                            rows, :func:`completed_rows`), each saved by
                            :func:`experiments.plot.save` (a PDF and an SVG beside the PNG);
``headline(rows, meta) -> dict``  optional: the experiment's line in the table that opens
                            ``SUMMARY.md`` (:data:`HEADLINE_KEYS`, :func:`headline_of`), from
                            its completed rows and its ``meta.json`` (``None`` when absent).
                            An experiment without it still gets a line, saying so.

:func:`run_experiment` writes ``<out>/<name>/rows.csv`` and ``<out>/<name>/meta.json``;
:func:`make_figures` and :func:`write_summary` (``<out>/SUMMARY.md``) read only those files, so
figures and the summary can be regenerated without re-running anything.

Parallelism: :func:`parallel_map` spreads independent units (instances) over ``jobs`` processes
with ``joblib.Parallel(n_jobs=jobs)``; ``jobs=1`` always runs them in this process (experiments
that time command lines or want one process pass ``jobs=1`` themselves). For ``jobs != 1`` it
names no backend, so the same code path runs on a cluster when the caller selects a joblib
backend. :func:`scheduler_session` does that for Dask (``python -m experiments run --scheduler
local|tcp://HOST:PORT``)::

    with scheduler_session("local", workers=4):          # a LocalCluster of 4 processes
        run_experiment("bipartite_scaling", out="results", jobs=-1)
    with scheduler_session("tcp://scheduler-host:8786"):  # a running `dask scheduler`
        run_experiment("bipartite_scaling", out="results", jobs=-1)

Inside it, every :func:`parallel_map` with ``jobs != 1`` goes through joblib's ``"dask"`` backend
to all the cluster's workers; results are put back in input order, so ``rows.csv`` is the same as
a serial run's (timing columns aside). Dask (``dask[distributed]``, in the ``experiments``
extra) is imported only there. A scheduler at an address and its workers (the scheduler
unpickles the tasks too) must run this checkout's code with the same library versions, Python
and data directory (:func:`environment`, checked on connecting): start them with the checkout
on their path, e.g. ``PYTHONPATH=/path/to/checkout .venv/bin/dask scheduler`` and ``... dask
worker tcp://scheduler-host:8786 --nthreads 1``. Ray works the same way by hand: ``from
ray.util.joblib import register_ray; register_ray()``, then
``joblib.parallel_config(backend="ray")`` (Ray is not a dependency).

Timings measured under ``jobs > 1`` share the machine with other units; ``meta.json`` records
``jobs`` and the Dask ``scheduler`` (``null`` without one) so such numbers can be told apart.
Neither is part of the :func:`fingerprint`: a run resumes from a journal written with other
``jobs`` or another scheduler.

Failures, journal and resume. Every experiment hands its independent units (instances) to
:func:`parallel_map`, the one place all instances go through. Under :func:`run_experiment`:

* an instance that raises (anything but :class:`ExperimentError`, which still stops the
  experiment: a violated invariant is never hidden) becomes one row whose ``error`` column says
  ``Type: message`` (one line) and whose measured columns are empty; its identifying columns
  come from the unit (``cells=``). The unit is left out of what :func:`parallel_map` returns, the
  other instances run on, the error rows follow the experiment's own rows (in instance order),
  ``meta.json`` and ``SUMMARY.md`` count the failures, and ``python -m experiments run`` exits 1
  at the end -- after writing everything;
* each finished instance is appended (and flushed) to the journal
  ``<out>/<name>/.partial/rows.jsonl``, keyed by a stable instance key (``key=`` or a hash of the
  unit) and the run's :func:`fingerprint` (experiment, quick flag, config, code version and
  commit, library versions, data directory). A run interrupted or stopped picks up the
  journal entries of the same fingerprint and computes only the missing instances (failed ones
  are retried); the results are put back in instance order, so ``rows.csv`` is byte-identical
  to an uninterrupted run's. The journal is removed once ``rows.csv`` and ``meta.json`` are
  written -- unless some instance failed: then it stays, and the same command run again
  recomputes only the failed instances; ``fresh=True`` (``--fresh``) ignores and removes it
  first;
* ``rows.csv``, ``meta.json``, ``SUMMARY.md`` and figures are written to a temporary file in the
  same folder and moved onto the target with :func:`os.replace` (:func:`atomic_open`), so an
  interrupted run never leaves a half-written file and never destroys the previous results.

Outside :func:`run_experiment` (calling an experiment's ``run`` directly) :func:`parallel_map`
neither catches nor journals: exceptions propagate.

One idea per module; each imports only those listed before it:

* :mod:`~experiments.runner.protocol` -- the experiment registry (:func:`set_registry`,
  :func:`registry`, :func:`resolve_names`) and what every experiment shares with the runner:
  :class:`ExperimentError`, :data:`ERROR_COLUMN`, :func:`columns_of`, :func:`describe_error`,
  :func:`fallback_count`;
* :mod:`~experiments.runner.files` -- text and JSON written atomically (:func:`write_text`,
  :func:`write_json`);
* :mod:`~experiments.runner.rows` -- ``rows.csv`` (:func:`write_rows`, :func:`read_rows`,
  :func:`completed_rows`, :func:`read_header`);
* :mod:`~experiments.runner.meta` -- ``meta.json`` and provenance (:data:`CHECKOUT`,
  :func:`versions`, :func:`git_info`, :func:`machine`, :func:`data_description`, :func:`data_provenance`,
  :func:`build_meta`);
* :mod:`~experiments.runner.journal` -- resumable runs (:func:`code_digest`,
  :func:`environment`, :func:`fingerprint`, :class:`Journal`, :func:`unit_key`, and the
  state of the run in progress);
* :mod:`~experiments.runner.parallel` -- progress and :func:`parallel_map`;
* :mod:`~experiments.runner.scheduler` -- the Dask cluster (:func:`scheduler_session`);
* :mod:`~experiments.runner.run` -- :func:`config_for`, :func:`run_experiment`,
  :func:`make_figures`;
* :mod:`~experiments.runner.summary` -- headlines, :func:`provenance` and
  :func:`write_summary`.

Every public name is handed on here: ``from experiments.runner import run_experiment``,
``runner.CHECKOUT``, ... A name is looked up in the module that defines it: to replace a
function in a test, patch it there (``experiments.runner.journal.code_digest``), not here.
"""

from __future__ import annotations

from exactalign.io.atomic import atomic_open

from .files import write_json, write_text
from .journal import (
    JOURNAL_DIR,
    JOURNAL_FILE,
    Journal,
    code_digest,
    environment,
    fingerprint,
    unit_key,
)
from .meta import (
    CHECKOUT,
    META_KEYS,
    VERSIONED,
    build_meta,
    data_description,
    data_provenance,
    git_info,
    machine,
    versions,
)
from .parallel import (
    LOG_INTERVAL_S,
    LOG_MIN_INTERVAL_S,
    ProgressLog,
    parallel_map,
    progress_enabled,
    progress_logged,
)
from .protocol import (
    ERROR_COLUMN,
    ExperimentError,
    columns_of,
    describe_error,
    fallback_count,
    registry,
    resolve_names,
    set_registry,
)
from .rows import completed_rows, read_header, read_rows, write_rows
from .run import config_for, failed_instances, make_figures, present, run_experiment
from .scheduler import (
    DASK_INSTALL,
    SchedulerError,
    active_scheduler,
    local_workers,
    scheduler_session,
)
from .summary import (
    HEADLINE_KEYS,
    headline_cells,
    headline_of,
    headline_record,
    provenance,
    write_summary,
)

__all__ = [
    # protocol
    "ERROR_COLUMN", "ExperimentError", "set_registry", "registry", "resolve_names",
    "columns_of", "describe_error", "fallback_count",
    # files
    "atomic_open", "write_text", "write_json",
    # rows
    "write_rows", "read_rows", "completed_rows", "read_header",
    # meta
    "CHECKOUT", "VERSIONED", "META_KEYS", "versions", "git_info", "machine", "data_description",
    "data_provenance",
    "build_meta",
    # journal
    "JOURNAL_DIR", "JOURNAL_FILE", "code_digest", "environment", "fingerprint", "Journal",
    "unit_key",
    # parallel
    "progress_enabled", "progress_logged", "LOG_INTERVAL_S", "LOG_MIN_INTERVAL_S",
    "ProgressLog", "parallel_map",
    # scheduler
    "DASK_INSTALL", "SchedulerError", "active_scheduler", "local_workers", "scheduler_session",
    # run
    "config_for", "run_experiment", "failed_instances", "present", "make_figures",
    # summary
    "HEADLINE_KEYS", "headline_record", "headline_of", "headline_cells", "provenance",
    "write_summary",
]
