"""``python -m experiments``: list, run and draw the experiments of :data:`REGISTRY`.

    python -m experiments list
    python -m experiments run --all|NAME... [--quick] [--out DIR] [--jobs N] [--seed S] [--quiet]
                              [--fresh] [--scheduler local|tcp://HOST:PORT]
    python -m experiments figures [--out DIR] [--quiet] [NAME...]

``run`` writes ``<out>/<name>/rows.csv`` and ``meta.json`` per experiment and regenerates
``<out>/SUMMARY.md``. ``<out>`` (:func:`default_out`): ``results``, with ``--quick``
``results-quick``; with no pilot data (synthetic instances only) ``results-synthetic``, so that
a run without data never overwrites the committed findings (``--out`` overrides, and ``figures``
takes the same default); ``figures`` draws the figures (PNG, with PDF and SVG beside each) from the
CSVs alone and regenerates the summary (so it links the figures). Progress: a bar on a terminal;
otherwise (``make``, CI, a pipe) one log line per experiment and progress lines with an ETA
(:class:`experiments.runner.ProgressLog`); ``--quiet`` silences both. ``--jobs N`` spreads
independent instances over N processes with joblib (``-1``: every CPU). ``--scheduler local``
runs them on a Dask ``LocalCluster`` instead (``--jobs`` worker processes, 2 by default);
``--scheduler tcp://HOST:PORT`` on the workers of a running Dask scheduler, started from this
checkout (:func:`experiments.runner.scheduler_session`). Dask is imported only then; without it
the run stops with exit status 2, naming the install command. ``rows.csv`` is the same either
way (timing columns aside), ``meta.json`` names the scheduler, and a journal written without
(or with another) scheduler is resumed as usual. An experiment that finds a violated invariant
stops the run with exit status 1.

An instance that raises becomes a row with an ``error`` and the run goes on; when any instance
failed, the exit status is 1 after every file is written. Finished instances are journaled in
``<out>/<name>/.partial/``: run the same command again after an interruption (or failures) and
it resumes where it stopped, recomputing only what did not finish (``--fresh`` ignores the
journal and recomputes everything). An interrupt exits with status 130.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time

from . import REGISTRY
from .runner import (
    ExperimentError,
    SchedulerError,
    failed_instances,
    local_workers,
    make_figures,
    present,
    run_experiment,
    scheduler_session,
    write_summary,
)


def _jobs(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--jobs takes an integer, not {text!r}") from None
    if n == 0:
        raise argparse.ArgumentTypeError("--jobs must be >= 1, or negative for all CPUs (-1)")
    return n


def _seed(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seed takes an integer, not {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"--seed must be >= 0, not {n}")
    return n


def _scheduler(text: str) -> str:
    if text == "local" or ("://" in text and text.split("://", 1)[1]):
        return text
    raise argparse.ArgumentTypeError(f"--scheduler takes 'local' or a scheduler address such as "
                                     f"tcp://host:8786, not {text!r}")


def default_out(quick: bool = False, env: dict | None = None) -> str:
    """The results folder when ``--out`` is not given: ``results-quick`` for a quick run;
    ``results`` when pilot data is in use, else ``results-synthetic`` -- ``results/`` holds the
    published findings and changes only from real data."""
    from exactalign.data import resolve_data_dir

    if quick:
        return "results-quick"
    return "results" if resolve_data_dir(env).path is not None else "results-synthetic"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m experiments",
                                description="Run exactalign's experiments and draw their figures.")
    sub = p.add_subparsers(dest="command", required=True)

    sub.add_parser("list", help="list the registered experiments")

    r = sub.add_parser("run", help="run experiments, writing rows.csv and meta.json")
    which = r.add_mutually_exclusive_group(required=True)
    which.add_argument("--all", action="store_true",
                       help="run every registered experiment but the benchmarks that want a "
                            "machine of their own (performance: make bench-peers)")
    which.add_argument("names", nargs="*", default=[], metavar="NAME",
                       help=f"experiments to run ({', '.join(REGISTRY)})")
    r.add_argument("--quick", action="store_true", help="the small QUICK configs")
    r.add_argument("--out", default=None,
                   help="output folder (default: results, with --quick results-quick: a quick "
                        "slice never overwrites the full results; without pilot data "
                        "results-synthetic: a synthetic run never overwrites the findings)")
    r.add_argument("--jobs", type=_jobs, default=1,
                   help="processes for independent instances (default 1; -1 = all CPUs); "
                        "with --scheduler local, its worker processes (default 2)")
    r.add_argument("--seed", type=_seed, default=None, help="override each config's base seed")
    r.add_argument("--quiet", action="store_true",
                   help="no progress (bars on a terminal, log lines with an ETA otherwise) "
                        "or messages")
    r.add_argument("--fresh", action="store_true",
                   help="ignore (and delete) the journal of an interrupted run: recompute "
                        "every instance")
    r.add_argument("--scheduler", type=_scheduler, default=None,
                   metavar="local|tcp://HOST:PORT",
                   help="run independent instances on Dask instead of joblib's processes: "
                        "'local' starts a LocalCluster of --jobs worker processes (default 2), "
                        "an address uses the workers of a running scheduler (started from this "
                        "checkout); needs dask[distributed] (the experiments extra)")

    f = sub.add_parser("figures", help="draw figures and SUMMARY.md from the CSVs")
    f.add_argument("--out", default=None,
                   help="results folder (default: results, or results-synthetic without pilot "
                        "data, as for run)")
    f.add_argument("names", nargs="*", default=[], metavar="NAME",
                   help="experiments to draw (default: every one with a rows.csv)")
    f.add_argument("--quiet", action="store_true", help="no messages")
    return p


def _run(args: argparse.Namespace) -> int:
    """``run``: every experiment of ``args`` in turn, on a Dask cluster with ``--scheduler``."""
    if args.out is None:
        args.out = default_out(args.quick)
        if args.out == "results-synthetic" and not args.quiet:
            print("no pilot data (synthetic instances only): writing results-synthetic/, not "
                  "results/ (the published findings come from real data; `exactalign data "
                  "fetch` gets it, --out chooses another folder)", file=sys.stderr)
    if args.scheduler not in (None, "local") and args.jobs != 1:
        print(f"--jobs sets the workers of --scheduler local; the workers of {args.scheduler} "
              "are the cluster's own (leave out --jobs)", file=sys.stderr)
        return 2
    names = ([n for n, m in REGISTRY.items() if getattr(m, "IN_ALL", True)] if args.all
             else list(dict.fromkeys(args.names)))
    with contextlib.ExitStack() as stack:
        jobs, on = args.jobs, ""
        if args.scheduler is not None:
            workers = local_workers(args.jobs)
            try:
                label = stack.enter_context(scheduler_session(args.scheduler, workers=workers))
            except SchedulerError as e:
                print(f"--scheduler {args.scheduler}: {e}", file=sys.stderr)
                return 2
            # every experiment that runs instances in parallel uses the whole cluster
            jobs, on = (workers if args.scheduler == "local" else -1), f", scheduler {label}"
        failed: dict[str, int] = {}
        t_all = time.perf_counter()
        for k, name in enumerate(names, 1):
            t0 = time.perf_counter()
            if not args.quiet:
                print(f"[{time.strftime('%H:%M:%S')}] experiment {k}/{len(names)}: {name} "
                      f"({'quick' if args.quick else 'full'} config, jobs={jobs}{on})",
                      file=sys.stderr, flush=True)
            try:
                folder = run_experiment(name, quick=args.quick, out=args.out, jobs=jobs,
                                        seed=args.seed, quiet=args.quiet, fresh=args.fresh)
            except ExperimentError as e:
                print(f"experiment {name} FAILED: {e}", file=sys.stderr)
                return 1
            except KeyboardInterrupt:
                print(f"experiment {name} interrupted: its finished instances are kept in "
                      f"{args.out}/{name}/.partial/; run the same command again to resume",
                      file=sys.stderr)
                return 130
            n_failed = failed_instances(folder)
            if n_failed:
                failed[name] = n_failed
                print(f"{name}: {n_failed} instance(s) FAILED (rows with an error in "
                      f"{folder / 'rows.csv'})", file=sys.stderr)
            if not args.quiet:
                print(f"{name}: done in {time.perf_counter() - t0:.1f} s -> {folder}",
                      flush=True)
    path = write_summary(args.out)
    if not args.quiet:
        print(f"summary -> {path} ({len(names)} experiment(s) in "
              f"{time.perf_counter() - t_all:.1f} s)")
    if failed:
        print("failed instances: " + ", ".join(f"{n} in {k}" for k, n in failed.items()),
              file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "list":
        width = max(map(len, REGISTRY))
        for name, module in REGISTRY.items():
            print(f"{name:<{width}}  {module.DESCRIPTION}")
        return 0

    unknown = [n for n in args.names if n not in REGISTRY]
    if unknown:
        print(f"unknown experiment(s): {', '.join(unknown)}; known: {', '.join(REGISTRY)}",
              file=sys.stderr)
        return 2

    if args.command == "run":
        return _run(args)

    # figures
    if args.out is None:
        args.out = default_out()
    if not args.names and not present(args.out):
        print(f"no experiment results (*/rows.csv) under {args.out}: run "
              f"`python -m experiments run --all --out {args.out}` first", file=sys.stderr)
        return 2
    try:
        written = make_figures(args.out, args.names or None)
    except FileNotFoundError as e:
        print(str(e), file=sys.stderr)
        return 2
    path = write_summary(args.out)
    if not args.quiet:
        for w in written:
            print(f"figure -> {w}")
        print(f"summary -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
