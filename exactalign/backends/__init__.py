"""Solver backends. Each module exposes ``solve(model, options) -> BackendOutcome`` and knows
nothing about alignment problems. They are reached by name through the registry of :mod:`exactalign.core.backend`
(:func:`~exactalign.core.backend.get_backend`); the core imports none of them."""
