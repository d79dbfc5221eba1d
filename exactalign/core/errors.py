"""Exceptions raised by exactalign.

Every error a user can cause is an :class:`ExactAlignError`; input problems additionally carry the
file and line they come from, so the command line can print one precise sentence.
"""

from __future__ import annotations


class ExactAlignError(Exception):
    """Base class of every error exactalign raises on purpose."""


class InputError(ExactAlignError, ValueError):
    """Malformed or inconsistent input, with the place it was found (file, line) when known."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None):
        self.message = message
        self.path = None if path is None else str(path)
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path if self.line is None else f"{self.path}:{self.line}"
            where += ": "
        elif self.line is not None:
            where = f"line {self.line}: "
        return where + self.message


class ModelTooLargeError(ExactAlignError, ValueError):
    """A method that enumerates (brute force) was asked to solve something too large for it."""


class BackendError(ExactAlignError, RuntimeError):
    """A solver backend is unknown, unavailable, or failed in a way that is not a model status."""


class VerificationError(ExactAlignError, RuntimeError):
    """A returned solution failed re-verification: infeasible, or its recomputed objective differs
    from what the solver reported, or the reported bound contradicts the solution."""


class InfeasibleAlignmentError(ExactAlignError, ValueError):
    """An alignment violates the constraints of its problem (raised by the problems' ``check``)."""
