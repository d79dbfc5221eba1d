"""A wall-clock budget shared by every step of one exact computation.

``--time-limit`` bounds the whole computation, not each solver call: model building, warm starts
and pure-Python searches check the same :class:`Deadline` between units of work, and the solver
gets what is left (:meth:`Deadline.left`). A step that runs out raises :class:`TimeLimitReached`,
which the problem's ``solve`` turns into a ``TIME_LIMIT`` result with its incumbent and a valid
bound."""

from __future__ import annotations

import time

from .errors import ExactAlignError


class TimeLimitReached(ExactAlignError):
    """Raised inside a computation when its :class:`Deadline` has passed."""


class Deadline:
    """``time_limit`` seconds from now (``None``: never)."""

    __slots__ = ("start", "limit")

    def __init__(self, time_limit: float | None, start: float | None = None):
        self.start = time.perf_counter() if start is None else start
        self.limit = time_limit

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
