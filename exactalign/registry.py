"""The list of problems and their four faces, as a plain dict for tests and experiments to
iterate over (no dispatch framework)."""

from __future__ import annotations

from types import SimpleNamespace


def problems() -> dict[str, SimpleNamespace]:
    """``name -> namespace(instance, ilp_model, heuristics, brute_force, check, solve, methods)``."""
    from .problems import bipartite, coref_alignment, ere, latent, monotone, temporal

    return {
        "bipartite": SimpleNamespace(
            instance=bipartite.BipartiteInstance, ilp_model=bipartite.ilp_model,
            heuristics=bipartite.HEURISTICS, brute_force=bipartite.brute_force,
            check=bipartite.check, solve=bipartite.solve, methods=bipartite.METHODS,
        ),
        "coref_alignment": SimpleNamespace(
            instance=coref_alignment.MentionAlignmentInstance,
            ilp_model=coref_alignment.ilp_model, heuristics=coref_alignment.HEURISTICS,
            brute_force=coref_alignment.brute_force, check=coref_alignment.check,
            solve=coref_alignment.solve, methods=coref_alignment.METHODS,
        ),
        "ere_mapping": SimpleNamespace(
            instance=ere.SpanPairs, ilp_model=ere.ilp_model, heuristics=ere.HEURISTICS,
            brute_force=ere.brute_force, check=ere.check, solve=ere.solve, methods=ere.METHODS,
        ),
        "latent": SimpleNamespace(
            instance=latent.LatentInstance, ilp_model=latent.ilp_model,
            heuristics=latent.HEURISTICS, brute_force=latent.brute_force,
            check=latent.check, solve=latent.solve, methods=latent.METHODS,
        ),
        "monotone": SimpleNamespace(
            instance=monotone.MonotoneInstance, ilp_model=monotone.ilp_model,
            heuristics=monotone.HEURISTICS, brute_force=monotone.brute_force,
            check=monotone.check, solve=monotone.solve, methods=monotone.METHODS,
        ),
        "temporal_consistency": SimpleNamespace(
            instance=temporal.TemporalInstance, ilp_model=temporal.ilp_rank_model,
            heuristics=temporal.HEURISTICS, brute_force=temporal.brute_force,
            check=temporal.check, solve=temporal.solve, methods=temporal.METHODS,
        ),
    }
