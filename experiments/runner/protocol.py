"""The experiment registry and what every experiment module shares with the runner: the
violated-invariant error, the error column of a failed instance's row, the CSV columns of a
module, one-line error descriptions and fallback counts (the protocol: :mod:`experiments.runner`)."""

from __future__ import annotations

from collections.abc import Sequence

#: The column of a failed instance's row: ``Type: message`` of its exception (empty otherwise).
ERROR_COLUMN = "error"


class ExperimentError(RuntimeError):
    """An experiment found a violated invariant (e.g. a heuristic beating the exact optimum)."""


#: The experiment registry, handed over by ``experiments/__init__.py`` when the package is
#: imported (which Python does before any of its modules): the runner never imports the
#: package that imports it (tests/test_architecture.py).
_REGISTRY: dict = {}


def set_registry(registry: dict) -> None:
    """Use ``registry`` itself (not a copy: a test that adds an experiment to the package's
    ``REGISTRY`` is seen here)."""
    global _REGISTRY
    _REGISTRY = registry


def registry() -> dict:
    """The experiment registry (:func:`set_registry`)."""
    return _REGISTRY


def resolve_names(names: Sequence[str] | None, reg: dict | None = None) -> list[str]:
    """``names`` checked against the registry (all of them, in registry order, for ``None``)."""
    reg = registry() if reg is None else reg
    if names is None:
        return list(reg)
    unknown = [n for n in names if n not in reg]
    if unknown:
        raise KeyError(f"unknown experiment(s) {', '.join(unknown)}; known: {', '.join(reg)}")
    return list(dict.fromkeys(names))


def columns_of(module) -> list[str]:
    """The CSV columns of ``module``: its ``COLUMNS``, plus :data:`ERROR_COLUMN` at the end when
    it does not declare it (every registered experiment does)."""
    cols = list(module.COLUMNS)
    return cols if ERROR_COLUMN in cols else [*cols, ERROR_COLUMN]


def describe_error(exc: BaseException) -> str:
    """``Type: message`` of ``exc`` on one line (whitespace collapsed, at most 500 characters)."""
    msg = " ".join(str(exc).split())
    if len(msg) > 500:
        msg = msg[:497] + "..."
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__


def fallback_count(*results) -> int | None:
    """The number of solver routes that failed verification before the answers of ``results``
    (solver ``Result`` objects, ``None`` entries ignored; ``Result.fallback``), or ``None`` when
    every entry is ``None``. 0 normally."""
    present_ = [r for r in results if r is not None]
    if not present_:
        return None
    return sum(len(getattr(r, "fallback", ()) or ()) for r in present_)
