"""The timing harness shared by the benchmark experiments (:mod:`experiments.smatch_walltime`,
:mod:`experiments.performance`): one fresh child process per run, its wall time and its own
peak memory, and rounds that alternate the tools' order.

:func:`measure` runs one command as a child process (its own session, so a timeout kills the
whole process group) and returns a :class:`Measured`:

* ``wall_s`` -- wall time from just before the child is started to the moment it is reaped
  (``time.perf_counter``): the whole command, interpreter start and imports included;
* ``peak_mb`` -- the command's own peak resident set size. The command is started by a small
  launcher (a bare ``python -S -c`` program, :data:`_LAUNCHER`) that forks it, reaps it with
  ``os.wait4(pid)`` and reports the resource usage of *that* child (with any descendants it
  waited for itself). Not ``getrusage(RUSAGE_CHILDREN)`` deltas: that is the maximum over every
  child ever waited for, not per child. Not a direct fork from the experiment either: Linux
  hands an exec'd process the high-water mark of the process it was forked from, so every
  child would report at least the experiment's own tens of MB; through the launcher the floor
  is the launcher's few MB (:func:`floor_mb`, recorded in ``meta.json``). POSIX only (Linux,
  macOS, the BSDs; ``ru_maxrss`` is KiB on Linux and bytes on macOS; MB here is 2**20 bytes);
  where ``os.wait4`` does not exist (Windows) the command runs under ``subprocess.run`` and
  ``peak_mb`` is None. The wall time is taken by the launcher around fork and reap;
* ``cpu_s`` -- the command's CPU time, user plus system, from the same ``os.wait4``: above
  ``wall_s`` only when it ran on more than one core at a time (None without ``os.wait4``);
* ``mem_limit_mb`` caps the child's address space (``RLIMIT_AS``, set in the child before it
  executes the command): a child that needs more fails with its own MemoryError or
  allocation failure instead of taking the machine's memory. Address space, not resident
  memory: it must leave room for what the interpreter and its libraries map without touching
  (a Python with numpy and HiGHS starts fine under 2 GB; a JVM does not, so Java runs
  uncapped);
* the child's standard output and error go to temporary files (no pipe can fill up), and are
  returned as text.

:func:`python_task` runs a small Python program (``python -c``) that imports only what it
needs, times one computation inside the process and prints one JSON line; the library-vs-library
benchmarks use it, so that each library is timed in a process of its own (and its peak memory is
its own), the computation itself timed in-process.

:func:`alternating` runs rounds over the tools: every tool once per round, the order reversed
every other round (so that a drift of the machine's speed hits all tools alike), after
``warmup`` unrecorded rounds; a tool whose run is not ``keep``-able (a timeout, say) is
dropped from the later rounds.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field


@dataclass
class Measured:
    """One child process: wall time, peak memory, exit status and output."""

    wall_s: float
    peak_mb: float | None
    returncode: int | None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    result: dict = field(default_factory=dict)  # python_task: the JSON line the child printed
    cpu_s: float | None = None  # user + system CPU time of the child (os.wait4)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def last_error(self) -> str:
        lines = self.stderr.strip().splitlines()
        return lines[-1] if lines else f"exit status {self.returncode}"


def child_env(extra: dict | None = None) -> dict[str, str]:
    """The environment of a timed child: this one, without ``PYTHONDONTWRITEBYTECODE`` (a
    user's normal setting: installed modules are compiled once and their bytecode cached)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(extra or {})
    return env


def _maxrss_mb(ru) -> float:
    scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB elsewhere
    return ru.ru_maxrss * scale / 2**20


#: The launcher: a bare interpreter (``-S -c``) that forks the command, sets its address-space
#: limit, times it and reaps it with ``os.wait4``, writing ``[wall_s, maxrss, status, cpu_s]`` as JSON
#: to the file named by its first argument. It exists because Linux hands an exec'd process the
#: peak RSS of the process it was forked from (``fork`` copies the memory map's high-water mark
#: and ``exec`` keeps it): forked straight from the experiment's process (tens of MB with numpy
#: loaded), every child would report at least that. The launcher's own footprint (a bare
#: interpreter, about 10 MB) is the floor instead; it is measured once (:func:`floor_mb`) and
#: recorded with the rows.
_LAUNCHER = """\
import json, os, sys, time
out, limit, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        if limit > 0:
            import resource
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        os.execvp(argv[0], argv)
    except OSError as e:
        sys.stderr.write("cannot run %s: %s\\n" % (argv[0], e))
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
wall = time.perf_counter() - t0
with open(out, "w") as f:
    json.dump([wall, ru.ru_maxrss, os.waitstatus_to_exitcode(status),
               ru.ru_utime + ru.ru_stime], f)
"""


def measure(argv: Sequence[str], *, timeout: float | None = None,
            mem_limit_mb: float | None = None, env: dict | None = None,
            cwd: str | os.PathLike | None = None) -> Measured:
    """Run ``argv`` once as a fresh child process (see the module docstring)."""
    env = child_env() if env is None else env
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.TemporaryDirectory(prefix="exactalign-timing-") as tmp:
        peak = cpu = None
        if not hasattr(os, "wait4"):  # no per-child resource usage: wall time only
            t0 = time.perf_counter()
            try:
                proc = subprocess.run(list(argv), stdout=out, stderr=err, env=env, cwd=cwd,
                                      timeout=timeout)
                code, timed_out = proc.returncode, False
            except subprocess.TimeoutExpired:
                code, timed_out = None, True
            wall = time.perf_counter() - t0
        else:
            report = os.path.join(tmp, "measured.json")
            limit = int(mem_limit_mb * 2**20) if mem_limit_mb else 0
            t0 = time.perf_counter()
            # its own session: a timeout kills the launcher and the command together
            proc = subprocess.Popen([sys.executable, "-S", "-c", _LAUNCHER, report, str(limit),
                                     *argv], stdout=out, stderr=err, env=env, cwd=cwd,
                                    start_new_session=True)
            try:
                proc.wait(timeout=timeout)
                timed_out = False
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
                timed_out = True
            wall = time.perf_counter() - t0
            code = None
            if not timed_out:
                try:
                    with open(report) as f:
                        wall, maxrss, code, cpu = json.load(f)
                    peak = maxrss * (1 if sys.platform == "darwin" else 1024) / 2**20
                except (OSError, ValueError):  # the launcher itself failed
                    code = proc.returncode or -1
        out.seek(0)
        err.seek(0)
        return Measured(wall, peak, code, out.read().decode("utf-8", "replace"),
                        err.read().decode("utf-8", "replace"), timed_out, cpu_s=cpu)


_FLOOR: list[float] = []


def floor_mb() -> float | None:
    """The peak memory :func:`measure` reports for a command that allocates nothing (``true``
    run by a bare interpreter): what the launcher's fork leaves in every child's number."""
    if not _FLOOR:
        import shutil

        true = shutil.which("true")
        argv = [true] if true else [sys.executable, "-S", "-c", "pass"]
        _FLOOR.append(measure(argv).peak_mb or 0.0)
    return _FLOOR[0] or None


#: Wraps a task's code, which defines ``compute()`` (returning a dict: ``score`` and anything
#: else) from ``inputs`` (the JSON named by argv[1]); the wrapper times the calls.
_TASK = """\
import json, sys, time
inputs = json.load(open(sys.argv[1], encoding="utf-8"))
{code}
t = time.perf_counter()
result = compute()
first = time.perf_counter() - t
seconds = first
if first < {warm_below!r}:
    t = time.perf_counter()
    result = compute()
    seconds = time.perf_counter() - t
result.update(seconds=seconds, first_seconds=first)
print("@@RESULT " + json.dumps(result))
"""


def python_task(code: str, inputs_path, *, timeout: float | None = None,
                mem_limit_mb: float | None = None, python: str | None = None,
                warm_below: float = 1.0) -> Measured:
    """Run ``code`` under ``python -c`` (this interpreter by default) in a child of its own:
    the code reads ``inputs`` (the JSON in ``inputs_path``) and defines ``compute()``, which
    returns a dict (``score``, anything else). ``Measured.result`` is that dict plus
    ``first_seconds`` (the first call, lazy imports and caches included) and ``seconds``: the
    time of a second, warm call when the first took less than ``warm_below`` seconds (the
    steady-state cost a caller scoring many inputs sees), else the first call's."""
    m = measure([python or sys.executable, "-c",
                 _TASK.format(code=code, warm_below=float(warm_below)), str(inputs_path)],
                timeout=timeout, mem_limit_mb=mem_limit_mb)
    for line in m.stdout.splitlines():
        if line.startswith("@@RESULT "):
            m.result = json.loads(line[len("@@RESULT "):])
    if m.ok and not m.result:  # exited 0 without its result line: a failed run
        m.returncode = -1
        m.stderr += "\nno result line printed"
    return m


#: Wraps a loop task's code, which defines ``prepare()`` (the references' part, done once;
#: returns a state) and ``compute(state, n)`` (one call on the first ``n`` documents, returning
#: a dict: ``score`` and anything else) from ``inputs``; the wrapper times in CPU time
#: (``time.process_time``) the code itself, ``prepare``, the first call, then calls until
#: ``min_seconds`` of CPU or ``max_calls`` calls (at least ``min_calls``): :func:`loop_task`.
_LOOP_TASK = """\
import json, statistics, sys, time
inputs = json.load(open(sys.argv[1], encoding="utf-8"))
n = int(sys.argv[2])
clock = time.process_time
t = clock()
{code}
setup_s = clock() - t
t = clock()
state = prepare()
prepare_s = clock() - t
t = clock()
result = compute(state, n)
first = clock() - t
calls, total, scores = [], 0.0, [result.get("score")]
while len(calls) < {max_calls} and (len(calls) < {min_calls} or total < {min_seconds}):
    t = clock()
    again = compute(state, n)
    calls.append(clock() - t)
    total += calls[-1]
    scores.append(again.get("score"))
    if scores[-1] != scores[0] and result.get("proven"):
        raise SystemExit("a proven call scored %r, the first %r" % (scores[-1], scores[0]))
if len(set(scores)) > 1:  # an unseeded heuristic (smatch's restarts)
    result.update(score_min=min(scores), score_max=max(scores))
result.update(setup_seconds=setup_s, prepare_seconds=prepare_s, first_seconds=first,
              seconds=statistics.median(calls),
              min_seconds=min(calls), mean_seconds=total / len(calls), calls=len(calls))
print("@@RESULT " + json.dumps(result))
"""


def loop_task(code: str, inputs_path, n: int, *, timeout: float | None = None,
              mem_limit_mb: float | None = None, python: str | None = None,
              min_seconds: float = 0.5, min_calls: int = 5, max_calls: int = 2000) -> Measured:
    """The in-process (training loop) benchmark of one tool: ``code`` (run under ``python -c``
    in a child of its own, importing only its library) reads ``inputs`` and defines
    ``prepare()`` and ``compute(state, n)``; the child times, in CPU time
    (``time.process_time``, so that another process on the machine does not count),
    the code itself (``setup_seconds``: its imports and building its inputs),
    ``prepare()`` once, the first ``compute`` call (``first_seconds``: lazy imports and caches
    included) and then the steady state: calls until ``min_seconds`` of CPU (at least
    ``min_calls``, at most ``max_calls``), ``seconds`` their median, ``min_seconds`` and
    ``mean_seconds``. A call that says it is ``proven`` must return the first call's
    ``score``; where the scores of the calls differ (an unseeded heuristic) ``score_min`` and
    ``score_max`` give their range. ``Measured.result`` holds these and what ``compute``
    returned (``score``: the first call's); ``peak_mb`` is the child's own peak memory."""
    m = measure([python or sys.executable, "-c",
                 _LOOP_TASK.format(code=code, min_seconds=float(min_seconds),
                                   min_calls=int(min_calls), max_calls=int(max_calls)),
                 str(inputs_path), str(int(n))],
                timeout=timeout, mem_limit_mb=mem_limit_mb)
    for line in m.stdout.splitlines():
        if line.startswith("@@RESULT "):
            m.result = json.loads(line[len("@@RESULT "):])
    if m.ok and not m.result:
        m.returncode = -1
        m.stderr += "\nno result line printed"
    return m


def alternating(tools: Sequence[str], rounds: int, warmup: int,
                run_one: Callable[[str, int], Measured | None], *,
                keep: Callable[[Measured], bool] = lambda m: True) -> list[tuple[int, str, Measured]]:
    """``warmup + rounds`` rounds, each running every tool once (``run_one(tool, round)``, the
    round negative during the warmup; it returns None to sit a round out), the order of the
    tools reversed every other round. Returns ``(round, tool, Measured)`` of the recorded rounds
    (``round >= 0``), plus any run that was not ``keep``-able (whatever its round): such a tool
    is dropped from the later rounds."""
    present = list(tools)
    out = []
    for k in range(warmup + rounds):
        rnd = k - warmup
        for tool in (list(present) if k % 2 == 0 else present[::-1]):
            m = run_one(tool, rnd)
            if m is None:
                continue
            if not keep(m):
                out.append((max(rnd, 0), tool, m))
                present.remove(tool)
            elif rnd >= 0:
                out.append((rnd, tool, m))
    return out


def min_median(values: Sequence[float]) -> tuple[float | None, float | None]:
    """``(min, median)`` of ``values``, ``(None, None)`` when empty."""
    vals = [v for v in values if v is not None]
    return (min(vals), statistics.median(vals)) if vals else (None, None)


def one_at_a_time(name: str, units: Sequence[dict], run_unit: Callable, config: dict, *,
                  key: Callable[[dict], str], cells: Callable[[dict], dict],
                  quiet: bool = False) -> list[dict]:
    """The rows of a benchmark's ``units``, one unit after another in this process (concurrent
    runs would disturb the timing): ``run_unit(unit, config, tmp, stopped)`` each, ``tmp`` a
    temporary directory and ``stopped`` a dict (where a tool passed its limit) shared by all;
    a progress line per unit unless ``quiet``; a failed unit becomes an error row
    (:func:`experiments.runner.parallel_map`)."""
    from pathlib import Path

    from .runner import parallel_map

    stopped: dict = {}

    def rows_of(unit: dict, tmp: Path) -> list[dict]:
        t0 = time.perf_counter()
        rows = run_unit(unit, config, tmp, stopped)
        if not quiet:
            print(f"  {name}: {key(unit)} {time.perf_counter() - t0:.1f}s", flush=True)
        return rows

    with tempfile.TemporaryDirectory(prefix=f"exactalign-{name}-") as tmp:
        per_unit = parallel_map(lambda u: rows_of(u, Path(tmp)), units, jobs=1, desc=name,
                                quiet=True, key=key, cells=cells)
    return [r for rows in per_unit for r in rows]
