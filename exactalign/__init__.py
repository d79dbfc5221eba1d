"""exactalign: exact (proven-optimal) and heuristic alignments for NLP evaluation metrics.

Every matching problem is stated as an ILP solved to proven optimality and as the heuristic
practice uses; every solve returns a verified :class:`Result`.

    >>> from exactalign import bipartite
    >>> inst = bipartite.BipartiteInstance.from_dense([[1.0, 0.5], [0.0, 0.4]])
    >>> bipartite.solve(inst).objective
    1.4
"""

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
from .problems import bipartite

__version__ = "0.1.0"

__all__ = [
    "BackendError", "ExactAlignError", "InfeasibleAlignmentError", "InputError",
    "LinearModel", "ModelTooLargeError", "Result", "SolveOptions", "Status",
    "VerificationError", "bipartite", "solve_model", "__version__",
]
