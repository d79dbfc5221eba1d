"""A wall-clock budget shared by every step of one exact computation.

``--time-limit`` bounds the whole computation, not each solver call: model building, warm starts
and pure-Python searches check the same :class:`Deadline` between units of work, and the solver
gets what is left (:meth:`Deadline.left`). A step that runs out raises :class:`TimeLimitReached`,
which the problem's ``solve`` turns into a ``TIME_LIMIT`` result with its incumbent and a valid
bound.

A command that scores a corpus runs many computations; :func:`command_budget` makes its
``--time-limit`` the budget of all of them together: inside it every :class:`Deadline`, every
:func:`~exactalign.core.solve.remaining` and every :func:`~exactalign.core.solve.solve_model`
ends no later than the command's budget (:func:`clamp`). Once it is spent, the computations
left return their incumbents (the heuristics' or the assignment's) with valid bounds, marked
``time_limit``. The budget is a context variable, set for the extent of one command."""

from __future__ import annotations

import contextlib
import contextvars
import time

from .errors import ExactAlignError

_COMMAND: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar(
    "exactalign_command_budget", default=None)


@contextlib.contextmanager
def command_budget(time_limit: float | None):
    """Within this block, no computation runs past ``time_limit`` seconds from now
    (``None``: no budget beyond each computation's own)."""
    token = _COMMAND.set(None if time_limit is None else Deadline(time_limit))
    try:
        yield
    finally:
        _COMMAND.reset(token)


def command_left() -> float | None:
    """Seconds left of the enclosing :func:`command_budget` (``None``: none is set)."""
    d = _COMMAND.get()
    return None if d is None else d.left()


def clamp(time_limit: float | None) -> float | None:
    """``time_limit``, or what is left of the command's budget if that is less."""
    left = command_left()
    if left is None:
        return time_limit
    return left if time_limit is None else min(time_limit, left)


class TimeLimitReached(ExactAlignError):
    """Raised inside a computation when its :class:`Deadline` has passed."""


class Deadline:
    """``time_limit`` seconds from now (``None``: never)."""

    __slots__ = ("start", "limit")

    def __init__(self, time_limit: float | None, start: float | None = None):
        self.start = time.perf_counter() if start is None else start
        self.limit = time_limit
        cmd = _COMMAND.get()
        if cmd is not None and cmd.limit is not None:  # end no later than the command's budget
            end = cmd.start + cmd.limit - self.start
            self.limit = end if time_limit is None else min(time_limit, end)

    def left(self) -> float | None:
        """Seconds left (``None`` without a limit, never negative)."""
        if self.limit is None:
            return None
        return max(0.0, self.limit - (time.perf_counter() - self.start))

    def expired(self) -> bool:
        return self.limit is not None and time.perf_counter() - self.start >= self.limit

    def check(self, what: str = "") -> None:
        """Raise :class:`TimeLimitReached` if the deadline has passed."""
        if self.expired():
            raise TimeLimitReached(f"time limit of {self.limit:g} s reached"
                                   + (f" while {what}" if what else ""))
