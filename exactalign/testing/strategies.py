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


# --------------------------------------------------------------------------------------------
# AMR graphs in PENMAN notation
# --------------------------------------------------------------------------------------------
AMR_ROLES = ("ARG0", "ARG1", "ARG0-of", "ARG1-of", "mod", "domain", "mod-of", "consist-of",
             "prep-out-of", "prep-on-behalf-of", "op1", "name", "polarity", "quant", "wiki")
AMR_CONSTANTS = ("-", "5", "+", "interrogative", '"New York"', '"x:y"', '"Pat"', '"(paren)"',
                 '"a / b"', "2.5")
AMR_VARIABLES = ("a", "b", "c", "x1", "n2", "w", "zz", "s3")
AMR_CONCEPTS = ("want-01", "boy", "city", "name", "and", "Thing", "go-02")


@st.composite
def penman_graphs(draw, max_nodes: int = 7):
    """A random AMR in PENMAN text with the notation's quirks that smatch 1.0.4 treats specially:
    a tree of up to ``max_nodes`` nodes (each with its parent among the earlier ones), plus
    edges to constants (quoted strings with spaces, colons, slashes, parentheses) and to any
    variable (re-entrancies, forward references), with inverted, ``:mod`` and never-inverted
    ``-of`` roles. At most ``len(AMR_VARIABLES)`` nodes."""
    n = draw(st.integers(1, min(max_nodes, len(AMR_VARIABLES))))
    names = draw(st.lists(st.sampled_from(AMR_VARIABLES), min_size=n, max_size=n, unique=True))
    parent = [None] + [draw(st.integers(0, k - 1)) for k in range(1, n)]
    concept = [draw(st.sampled_from(AMR_CONCEPTS)) for _ in range(n)]
    extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.sampled_from(AMR_ROLES),
                                    st.one_of(st.sampled_from(AMR_CONSTANTS),
                                              st.integers(0, n - 1))), max_size=6))
    child_role = [draw(st.sampled_from(AMR_ROLES)) for _ in range(n)]

    def node(i):
        parts = [f"({names[i]} / {concept[i]}"]
        for j in range(1, n):
            if parent[j] == i:
                parts.append(f":{child_role[j]} {node(j)}")
        for src, role, tgt in extra:
            if src == i:
                parts.append(f":{role} {names[tgt] if isinstance(tgt, int) else tgt}")
        return " ".join(parts) + ")"

    return node(0)


# --------------------------------------------------------------------------------------------
# documents of the shipped declared metrics (exactalign.declared.library): small pools, so
# values collide and matchings have choices
# --------------------------------------------------------------------------------------------
#: a span ``[start, end)`` from four that overlap
SPANS = st.sampled_from([[0, 1], [0, 2], [1, 2], [3, 5]])
#: a dependency edge (``dependency-uas``/``-las``)
EDGES = st.fixed_dictionaries({"dep": st.integers(1, 3), "head": st.integers(0, 3),
                               "label": st.sampled_from(["l", "m"])})
#: a role-filler entity (``ceaf-ree*``)
REE_ENTITIES = st.fixed_dictionaries({
    "role": st.sampled_from(["PerpInd", "Target"]),
    "mentions": st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=3,
                         unique=True)})



# --------------------------------------------------------------------------------------------
# mention alignments scored by a coreference metric
# --------------------------------------------------------------------------------------------
def _clusters(draw, n: int, max_clusters: int, shared: bool) -> tuple:
    labels = [draw(st.integers(0, max_clusters - 1)) for _ in range(n)]
    clusters = [[m for m in range(n) if labels[m] == c] for c in range(max_clusters)]
    clusters = [c for c in clusters if c]
    if shared and len(clusters) >= 2 and draw(st.booleans()):
        # one mention also in another cluster (the scorers' "last cluster" rule applies)
        m = draw(st.integers(0, n - 1))
        others = [c for c in clusters if m not in c]
        draw(st.sampled_from(others)).append(m)
    return tuple(tuple(c) for c in clusters)


@st.composite
def mention_alignment_instances(draw, max_mentions: int = 6, max_pairs: int = 10,
                                shared: bool = True):
    """Random :class:`~exactalign.problems.coref_alignment.MentionAlignmentInstance` s: key and
    response mentions in up to three clusters a side (``shared``: sometimes one mention in two
    clusters), at most ``max_pairs`` allowed pairs (brute force needs few), tied weights and
    three stages."""
    from ..problems.coref_alignment import MentionAlignmentInstance

    nk = draw(st.integers(1, max_mentions))
    nr = draw(st.integers(1, max_mentions))
    kc = _clusters(draw, nk, 3, shared)
    rc = _clusters(draw, nr, 3, shared)
    cells = [(i, j) for i in range(nk) for j in range(nr)]
    chosen = draw(st.lists(st.sampled_from(cells), unique=True,
                           max_size=min(len(cells), max_pairs)))
    pairs = np.array(chosen, dtype=np.int64).reshape(-1, 2)
    weights = [draw(st.sampled_from(DICE_VALUES)) for _ in chosen]
    stages = [draw(st.integers(0, 2)) for _ in chosen]
    return MentionAlignmentInstance(nk, nr, kc, rc, pairs[:, 0], pairs[:, 1], weights, stages)
