"""Hypothesis strategies for exactalign instances.

Weights are drawn from a small set of fractions by default so that ties -- where heuristics'
tie-breaking decides the outcome -- are common, as they are with Dice scores on short spans."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from ..problems.bipartite import KINDS, BipartiteInstance

#: Dice values of short spans (1-3 tokens): many ties, as in real event-nugget data.
DICE_VALUES = (1.0, 2 / 3, 0.5, 0.4, 0.8, 1 / 3, 0.25)


@st.composite
def bipartite_instances(draw, max_ref: int = 6, max_pred: int = 6, kinds=tuple(KINDS),
                        max_pairs: int | None = None, tied: bool | None = None):
    """Random sparse instances. ``tied=None`` mixes Dice-like tied weights and continuous ones;
    ``max_pairs`` caps the candidate pairs (brute force needs few)."""
    n_ref = draw(st.integers(0, max_ref))
    n_pred = draw(st.integers(0, max_pred))
    kind = draw(st.sampled_from(kinds))
    cells = [(i, j) for i in range(n_ref) for j in range(n_pred)]
    chosen = draw(st.lists(st.sampled_from(cells), unique=True,
                           max_size=min(len(cells), max_pairs or len(cells)))) if cells else []
    use_ties = draw(st.booleans()) if tied is None else tied
    if use_ties:
        weight = st.sampled_from(DICE_VALUES)
    else:
        weight = st.floats(0.01, 10.0, allow_nan=False, allow_infinity=False)
    weights = [draw(weight) for _ in chosen]
    pairs = np.array(chosen, dtype=np.int64).reshape(-1, 2)
    return BipartiteInstance(n_ref, n_pred, pairs[:, 0], pairs[:, 1], weights, kind)
