"""exactalign: exact (proven-optimal) and heuristic alignments for NLP evaluation metrics.

Every matching problem is stated as an ILP solved to proven optimality and as the heuristic
practice uses; every solve returns a verified :class:`Result`.

    >>> from exactalign import bipartite
    >>> inst = bipartite.BipartiteInstance.from_dense([[1.0, 0.5], [0.0, 0.4]])
    >>> bipartite.solve(inst).objective
    1.4

The public names are imported on first use (PEP 562), so that ``import exactalign`` -- and the
``exactalign`` command's start-up -- does not pay for numpy, scipy or a solver until needed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

#: public name -> module (relative to this package) that defines it; a name mapped to a module
#: of its own name is that module.
_LAZY = {
    "BackendError": ".core.errors",
    "ExactAlignError": ".core.errors",
    "InfeasibleAlignmentError": ".core.errors",
    "InputError": ".core.errors",
    "ModelTooLargeError": ".core.errors",
    "VerificationError": ".core.errors",
    "LinearModel": ".core.model",
    "Result": ".core.result",
    "Status": ".core.result",
    "SolveOptions": ".core.solve",
    "solve_model": ".core.solve",
    "bipartite": ".problems.bipartite",
    "Metric": ".declared.metric",
    "MetricResult": ".declared.metric",
    "score": ".declared.api",
    "prepare": ".declared.api",
    "PreparedMetric": ".declared.metric",
    "SmatchScorer": ".metrics.smatch",
    "CorefScorer": ".metrics.coref",
    "DrsScorer": ".metrics.drs_report",
    "drs": ".drs",
}

__all__ = [
    "BackendError", "ExactAlignError", "InfeasibleAlignmentError", "InputError",
    "CorefScorer", "DrsScorer", "LinearModel", "Metric", "MetricResult", "ModelTooLargeError",
    "PreparedMetric", "Result", "SmatchScorer", "SolveOptions", "Status", "prepare", "score",
    "VerificationError", "bipartite", "drs", "solve_model", "__version__",
]

if TYPE_CHECKING:  # static analysers and IDEs see the eager imports
    from . import drs
    from .core.errors import (
        BackendError,
        ExactAlignError,
        InfeasibleAlignmentError,
        InputError,
        ModelTooLargeError,
        VerificationError,
    )
    from .core.model import LinearModel
    from .core.result import Result, Status
    from .core.solve import SolveOptions, solve_model
    from .declared.api import prepare, score
    from .declared.metric import Metric, MetricResult, PreparedMetric
    from .metrics.coref import CorefScorer
    from .metrics.drs_report import DrsScorer
    from .metrics.smatch import SmatchScorer
    from .problems import bipartite


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = importlib.import_module(module, __name__)
    if not module.endswith("." + name):
        value = getattr(value, name)
    globals()[name] = value  # later look-ups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
