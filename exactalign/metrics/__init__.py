"""Task metrics built on the matching problems. Every metric returns counts (numerators and
denominators, :class:`~exactalign.metrics.aggregation.PRF`); aggregation is explicit and shared,
so exact and heuristic scores are always aggregated the same way."""
