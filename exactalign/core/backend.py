"""The **registry** of solver backends by name (:func:`get_backend`, :func:`register_backend`).

It names each built-in backend's module (``exactalign.backends.<module>``, imported on first use,
so that a run imports only the solver it calls); a user can register another
``solve(model, options) -> BackendOutcome`` (:mod:`.outcome`) under a new name. The core imports
no backend (:mod:`exactalign.core.solve` routes through :func:`get_backend`). Light on purpose:
the command line imports it at start-up (no numpy, no dataclasses).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from .errors import BackendError

if TYPE_CHECKING:  # annotations only
    from .model import LinearModel
    from .outcome import BackendOutcome, SolveOptions

BACKENDS = ("highs", "scipy", "pulp", "brute")

#: Backends tried, in this order, after the requested one fails verification twice (as asked and
#: with presolve off). ``brute`` comes last and refuses all but tiny pure-integer models.
FALLBACK_ORDER = ("highs", "scipy", "pulp", "brute")

#: Backends with a presolve switch (``SolveOptions.presolve``; a route :mod:`.solve` retries).
PRESOLVE_BACKENDS = ("highs", "scipy", "pulp")


#: Built-in backends: name -> module under :mod:`exactalign.backends` defining ``solve``.
_BUILT_IN = {"highs": "highs", "scipy": "scipy_milp", "pulp": "pulp_cbc", "brute": "brute"}
_REGISTERED: dict[str, Callable] = {}


def register_backend(name: str, solve: Callable[[LinearModel, SolveOptions], BackendOutcome]
                     ) -> None:
    """Make ``solve`` available as backend ``name`` (in every routine that takes a backend).
    A built-in name cannot be replaced."""
    if name in _BUILT_IN:
        raise BackendError(f"{name!r} is a built-in backend")
    _REGISTERED[name] = solve


def backend_names() -> tuple[str, ...]:
    """The built-in backends, then the registered ones."""
    return BACKENDS + tuple(_REGISTERED)


def get_backend(name: str) -> Callable[[LinearModel, SolveOptions], BackendOutcome]:
    """The ``solve(model, options)`` function of backend ``name`` (a built-in one's module is
    imported on first use)."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    if name not in _BUILT_IN:
        raise BackendError(f"unknown backend {name!r}; choose one of "
                           f"{', '.join(backend_names())}")
    return importlib.import_module(f"exactalign.backends.{_BUILT_IN[name]}").solve
