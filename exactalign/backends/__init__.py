"""Solver backends. Each module exposes ``solve(model, options) -> BackendOutcome`` and knows
nothing about alignment problems. Use :func:`exactalign.core.solve.get_backend` to pick one."""
