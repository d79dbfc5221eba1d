"""Example user heuristics for ``exactalign validate`` (and the shape yours must have).

A heuristic is ``h(reference, prediction)`` on two documents of the metric's shape, returning
the alignment of the root collections as ``(reference index, predicted index)`` pairs -- or the
root score it reaches. These are the quick aligners people write for entity-level scores:

    exactalign validate --metric coref-ceafe --heuristic exactalign.declared.heuristics:first_fit
"""

from __future__ import annotations


def _key(v):
    return tuple(_key(x) for x in v) if isinstance(v, list | tuple) else v


def first_fit(reference, prediction) -> list[tuple[int, int]]:
    """Each reference entity, in order, takes the first unused predicted entity sharing a
    mention with it (documents ``{"entities": [[mention, ...], ...]}``)."""
    used, pairs = set(), []
    predicted = [set(map(_key, e)) for e in prediction["entities"]]
    for i, entity in enumerate(reference["entities"]):
        mentions = set(map(_key, entity))
        for j, other in enumerate(predicted):
            if j not in used and mentions & other:
                pairs.append((i, j))
                used.add(j)
                break
    return pairs


def largest_overlap(reference, prediction) -> list[tuple[int, int]]:
    """Each reference entity, in order, takes the unused predicted entity with the most
    common mentions (first on ties) -- optimal for CEAFm far more often than first fit, still
    not always."""
    used, pairs = set(), []
    predicted = [set(map(_key, e)) for e in prediction["entities"]]
    for i, entity in enumerate(reference["entities"]):
        mentions = set(map(_key, entity))
        best, best_j = 0, None
        for j, other in enumerate(predicted):
            common = len(mentions & other)
            if j not in used and common > best:
                best, best_j = common, j
        if best_j is not None:
            pairs.append((i, best_j))
            used.add(best_j)
    return pairs
