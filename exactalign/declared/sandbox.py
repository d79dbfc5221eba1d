"""Run a user's heuristic without trusting it.

``exactalign validate`` calls code it did not write thousands of times. :class:`Sandbox` runs
it so that nothing the code does can take the command down or corrupt its output:

* a heuristic named ``"module:function"`` runs in a worker process (``python -m
  exactalign.declared.sandbox``) with a per-call time limit (the worker is killed and restarted
  when a call overruns) and an address-space limit (``RLIMIT_AS``, so a runaway allocation is a
  ``MemoryError`` in the worker, not the machine's memory); the worker's standard output goes to
  standard error, so a ``print`` cannot corrupt ``--json``;
* every ``BaseException`` the code raises -- ``SystemExit``, ``KeyboardInterrupt`` included -- is
  caught and reported with where it was raised; a worker that dies (``os._exit``, a crash, the
  kernel's OOM killer) is reported with its exit status and restarted for the next call;
* the answer is checked, never coerced: a number must be a finite non-negative real, an
  alignment an iterable of pairs of integers (``operator.index``: ``0.9``, ``1.0`` and ``True``
  are refused) with at most ``n_reference * n_predicted`` pairs -- an endless generator is cut
  there and named.

A plain callable (a lambda, a closure) cannot be sent to another process; it runs in-process
with its standard output sent to standard error, exceptions caught, and the time limit enforced
by ``SIGALRM`` where the platform and thread allow (pure-Python loops only).

An :class:`Answer` is what came back: ``kind`` is ``"score"`` (``value`` a float),
``"pairs"`` (``value`` a list of ``(int, int)``) or a failure -- ``"invalid"``, ``"raised"``,
``"timeout"`` or ``"died"`` -- with ``message`` saying what happened.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import math
import numbers
import operator
import os
import pickle
import struct
import subprocess
import sys
import traceback
from collections.abc import Callable, Iterable, Mapping, Sized
from dataclasses import dataclass

from ..core.errors import InputError

#: Default per-call time limit, seconds.
TIME_LIMIT = 10.0
#: Default address-space limit of the worker process, MiB.
MEMORY_MB = 4096
FAILURES = ("invalid", "raised", "timeout", "died")


@dataclass(frozen=True)
class Answer:
    kind: str  # "score", "pairs", or one of FAILURES
    value: object = None
    message: str | None = None

    @property
    def failed(self) -> bool:
        return self.kind in FAILURES


def describe(value, n: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= n else text[: n - 3] + "..."


def _index(v) -> int:
    if isinstance(v, bool):
        raise TypeError
    return operator.index(v)


def check_answer(out, n_ref: int | None, n_pred: int | None) -> Answer:
    """What the heuristic returned, as an :class:`Answer` (nothing coerced)."""
    if isinstance(out, bool) or out is None:
        return Answer("invalid", message=f"returned {out!r}: neither a score nor (reference, "
                                         "predicted) pairs")
    if isinstance(out, numbers.Real):
        value = float(out)
        if not math.isfinite(value) or value < 0:
            return Answer("invalid", message=f"returned the score {out!r}: a score is a "
                                             "finite number >= 0")
        return Answer("score", value)
    if isinstance(out, str | bytes | Mapping) or not isinstance(out, Iterable):
        return Answer("invalid", message=f"returned {describe(out)}: neither a score nor "
                                         "(reference, predicted) pairs")
    cap = None if n_ref is None or n_pred is None or isinstance(out, Sized) \
        else n_ref * n_pred  # an iterator is cut past every possible pair
    pairs = []
    for k, pair in enumerate(itertools.islice(out, None if cap is None else cap + 1)):
        if cap is not None and k == cap:
            return Answer("invalid", message=f"returned more than {cap} pairs (there are "
                                             f"{n_ref} x {n_pred} items): an endless "
                                             "generator?")
        try:
            i, j = pair
        except (TypeError, ValueError):
            return Answer("invalid", message=f"pair #{k} is {describe(pair)}, not a "
                                             "(reference index, predicted index) pair")
        try:
            pairs.append((_index(i), _index(j)))
        except TypeError:
            bad = i if not _is_index(i) else j
            return Answer("invalid", message=f"pair #{k} {describe(pair)}: the index "
                                             f"{describe(bad)} is not an integer")
    return Answer("pairs", pairs)


def _is_index(v) -> bool:
    try:
        _index(v)
    except TypeError:
        return False
    return True


def _raised(e: BaseException) -> Answer:
    """``raised``: the exception and the innermost frame it came from."""
    frames = traceback.extract_tb(e.__traceback__)
    where = f" ({os.path.basename(frames[-1].filename)}:{frames[-1].lineno})" if frames else ""
    text = str(e)
    if isinstance(e, SystemExit):
        text = f"sys.exit({e.code!r})"
    return Answer("raised", message=f"raised {type(e).__name__}"
                                    f"{': ' + text if text else ''}{where}")


def call_checked(fn: Callable, reference, prediction, n_ref, n_pred) -> Answer:
    try:
        return check_answer(fn(reference, prediction), n_ref, n_pred)
    except BaseException as e:  # noqa: BLE001 - user code: SystemExit and all
        return _raised(e)


def importable(fn: Callable) -> str | None:
    """``"module:qualname"`` when importing it gives back ``fn`` itself (so a worker process
    can run it), else None."""
    module, name = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
    if not module or module == "__main__" or "<" in name:
        return None
    try:
        obj = importlib.import_module(module)
        for part in name.split("."):
            obj = getattr(obj, part)
    except Exception:  # noqa: BLE001
        return None
    return f"{module}:{name}" if obj is fn else None


class _TimeUp(BaseException):
    pass


class Sandbox:
    """Calls ``heuristic(reference, prediction)`` safely; use as a context manager.

    ``heuristic`` is ``"module:function"`` or a callable; ``isolate`` (default: whenever the
    heuristic can be imported by name) runs it in a worker process. ``time_limit`` (seconds per
    call, None: none) and ``memory_mb`` (the worker's address space, None: none) bound it."""

    def __init__(self, heuristic: str | Callable, *, time_limit: float | None = TIME_LIMIT,
                 memory_mb: int | None = MEMORY_MB, isolate: bool | None = None):
        self.time_limit = time_limit
        self.memory_mb = memory_mb
        if isinstance(heuristic, str):
            self.ref, self.fn = heuristic, None
        else:
            self.ref, self.fn = importable(heuristic), heuristic
        self.isolate = (self.ref is not None) if isolate is None else isolate
        if self.isolate and self.ref is None:
            raise InputError(f"{describe(heuristic)} cannot be run in a worker process: give "
                             "it as 'module:function'")
        if not self.isolate and self.fn is None:
            from .nodes import resolve_callable

            with contextlib.redirect_stdout(sys.stderr):
                self.fn = resolve_callable(self.ref)
        self.name = self.ref or (f"{getattr(self.fn, '__module__', '?')}:"
                                 f"{getattr(self.fn, '__qualname__', repr(self.fn))}")
        self._proc: subprocess.Popen | None = None
        self.restarts = 0

    # -- context manager -----------------------------------------------------------------
    def __enter__(self) -> Sandbox:
        if self.isolate:
            self._start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            with contextlib.suppress(OSError):
                proc.stdout.close()

    # -- calls ---------------------------------------------------------------------------
    def __call__(self, reference, prediction, n_ref: int | None = None,
                 n_pred: int | None = None) -> Answer:
        if not self.isolate:
            return self._in_process(reference, prediction, n_ref, n_pred)
        if self._proc is None:
            self._start()
        try:
            _send(self._proc.stdin, (reference, prediction, n_ref, n_pred))
            reply = self._receive(self.time_limit)
        except _Died as e:
            self._restart()
            return Answer("died", message=str(e))
        if reply is None:
            self._restart()
            return Answer("timeout", message=f"did not return within {self.time_limit:g} s "
                                             "(--time-limit)")
        return Answer(*reply)

    def _in_process(self, reference, prediction, n_ref, n_pred) -> Answer:
        import signal
        import threading

        alarm = (self.time_limit and hasattr(signal, "setitimer")
                 and threading.current_thread() is threading.main_thread())
        if alarm:
            def up(signum, frame):
                raise _TimeUp

            old = signal.signal(signal.SIGALRM, up)
            signal.setitimer(signal.ITIMER_REAL, self.time_limit)
        try:
            with contextlib.redirect_stdout(sys.stderr):
                try:
                    out = self.fn(reference, prediction)
                except KeyboardInterrupt:
                    raise  # in-process, Ctrl-C is the user's: it stops validate
                except _TimeUp:
                    return Answer("timeout", message=f"did not return within "
                                                     f"{self.time_limit:g} s (--time-limit)")
                except BaseException as e:  # noqa: BLE001 - user code
                    return _raised(e)
                return check_answer(out, n_ref, n_pred)
        except _TimeUp:
            return Answer("timeout", message=f"did not return within {self.time_limit:g} s "
                                             "(--time-limit)")
        finally:
            if alarm:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, old)

    # -- the worker ----------------------------------------------------------------------
    def _start(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p) or os.getcwd()
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "exactalign.declared.sandbox", self.ref,
             str(self.memory_mb or 0)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        try:
            reply = self._receive(max(60.0, self.time_limit or 0.0))
        except _Died as e:
            self._proc = None
            raise InputError(f"cannot load the heuristic {self.ref}: {e}") from None
        if reply is None or reply[0] != "ready":
            self.close()
            why = "did not start" if reply is None else reply[2]
            raise InputError(f"cannot load the heuristic {self.ref}: {why}")

    def _restart(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.kill()
            proc.wait()
            for f in (proc.stdin, proc.stdout):
                with contextlib.suppress(OSError):
                    f.close()
        self.restarts += 1
        self._start()

    def _receive(self, timeout: float | None):
        import select

        fd = self._proc.stdout
        if timeout is not None:
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                return None
        try:
            return _recv(fd)
        except (EOFError, OSError, pickle.UnpicklingError, struct.error):
            status = self._proc.wait()
            raise _Died(f"the heuristic's process ended (exit status {status})") from None


class _Died(Exception):
    pass


def _send(f, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    try:
        f.write(struct.pack("<Q", len(data)) + data)
        f.flush()
    except (BrokenPipeError, OSError):
        raise _Died("the heuristic's process ended") from None


def _recv(f):
    head = f.read(8)
    if len(head) < 8:
        raise EOFError
    (n,) = struct.unpack("<Q", head)
    data = f.read(n)
    if len(data) < n:
        raise EOFError
    return pickle.loads(data)  # noqa: S301 - our own worker's replies


def _worker(ref: str, memory_mb: int) -> None:  # pragma: no cover - runs in the worker
    """The worker process: load ``ref``, then answer calls until standard input closes."""
    channel = os.fdopen(os.dup(1), "wb")  # replies; the user's prints go to stderr
    requests = os.fdopen(os.dup(0), "rb")  # calls; the user's code reads an empty stdin
    os.dup2(2, 1)
    empty, w = os.pipe()  # an empty standard input (no /dev/null needed)
    os.close(w)
    os.dup2(empty, 0)
    os.close(empty)
    sys.stdout = sys.stderr
    if memory_mb > 0:
        import resource

        limit = memory_mb * 2**20
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        from .nodes import resolve_callable

        fn = resolve_callable(ref)
    except InputError as e:
        _send(channel, ("error", None, e.message))
        return
    except BaseException as e:  # noqa: BLE001 - a syntax error, an import that exits
        frames = traceback.extract_tb(e.__traceback__)
        text, where = str(e), ""
        if isinstance(e, SyntaxError) and e.filename:
            text, where = e.msg, f" ({e.filename}:{e.lineno})"
        elif frames:
            where = f" ({frames[-1].filename}:{frames[-1].lineno})"
        _send(channel, ("error", None, f"importing it raised {type(e).__name__}: {text}{where}"))
        return
    _send(channel, ("ready", None, None))
    while True:
        try:
            reference, prediction, n_ref, n_pred = _recv(requests)
        except EOFError:
            return
        a = call_checked(fn, reference, prediction, n_ref, n_pred)
        try:
            _send(channel, (a.kind, a.value, a.message))
        except _Died:
            return


if __name__ == "__main__":  # pragma: no cover - the worker's entry point
    _worker(sys.argv[1], int(sys.argv[2]))
