"""The list of problems and their four faces, as a plain dict for tests and experiments to
iterate over (no dispatch framework)."""

from __future__ import annotations

from types import SimpleNamespace


def problems() -> dict[str, SimpleNamespace]:
    """``name -> namespace(instance, ilp_model, heuristics, brute_force, check, solve, methods)``."""
    from ..problems import bipartite

    return {
        "bipartite": SimpleNamespace(
            instance=bipartite.BipartiteInstance, ilp_model=bipartite.ilp_model,
            heuristics=bipartite.HEURISTICS, brute_force=bipartite.brute_force,
            check=bipartite.check, solve=bipartite.solve, methods=bipartite.METHODS,
        ),
    }
