"""Document AMR graphs built from sentence graphs, as DocAMR represents documents.

DocAMR (Naseem et al. 2022; IBM/docAMR ``doc_amr.py``) joins a document's sentence graphs under
a ``document`` node with ``:snt1 ... :sntK`` edges, renames every variable ``s<k>.<var>``, and
merges coreferent nodes into one (its ``merge-names`` / ``docAMR`` / ``merge-all`` variants
differ in which mentions are merged). The coreference annotation (MS-AMR) is LDC-only; to build
document graphs from the public sentence banks, :func:`join_sentences` merges, with a seeded
probability, a node into an earlier sentence's node of the same concept -- what a coreference
merge does to the graph (one node, edges from several sentences).
"""

from __future__ import annotations

import random

from ..core.errors import InputError


def join_sentences(graphs, *, merge: float = 0.0, seed: int = 0, top: str = "document",
                   mergeable=None):
    """One document graph (:class:`penman.Graph`) of ``graphs`` (penman graphs, in order):
    a ``top`` node ``d`` with ``:snt<k>`` to the k-th graph's top, variables renamed
    ``s<k>.<var>``; each non-top variable whose concept an earlier sentence already has is
    merged into the earliest such node with probability ``merge`` (``random.Random(seed)``).
    ``mergeable(graph, variable) -> bool``, when given, limits the merges to the variables of
    a sentence graph it accepts (e.g. entity mentions, not predicates); a variable it refuses
    draws no random number."""
    import penman

    if not graphs:
        raise InputError("a document needs at least one sentence graph")
    if not 0.0 <= merge <= 1.0:
        raise InputError(f"merge must be a probability, not {merge!r}")
    rng = random.Random(seed)
    triples = [("d", ":instance", top)]
    first_of: dict[str, str] = {}  # concept -> the earliest variable with it
    for k, g in enumerate(graphs, 1):
        concept = {v: c for v, _, c in g.instances()}
        rename = {v: f"s{k}.{v}" for v in g.variables()}
        for v in sorted(g.variables()):
            c = concept.get(v)
            if (v != g.top and c in first_of and (mergeable is None or mergeable(g, v))
                    and rng.random() < merge):
                rename[v] = first_of[c]
        triples.append(("d", f":snt{k}", rename[g.top]))
        for s, role, t in g.triples:
            if role == ":instance":
                if rename[s] == f"s{k}.{s}":
                    triples.append((rename[s], role, t))
                continue
            triples.append((rename.get(s, s), role, rename.get(t, t)))
        for v in sorted(g.variables()):
            if rename[v] == f"s{k}.{v}" and concept.get(v) is not None:
                first_of.setdefault(concept[v], rename[v])
    return penman.Graph(triples, top="d")
