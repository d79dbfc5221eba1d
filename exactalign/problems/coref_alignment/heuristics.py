"""The oracle and the heuristic: :func:`brute_force` (tiny instances) and :func:`stagewise`
(the similarity heuristic; :data:`HEURISTICS` by name)."""

from __future__ import annotations

import numpy as np

from ...core.errors import ModelTooLargeError
from .evaluation import check
from .instance import MentionAlignmentInstance, as_alignment

#: Largest number of allowed pairs :func:`brute_force` enumerates.
BRUTE_MAX_PAIRS = 16


# --------------------------------------------------------------------------------------------
# brute force and the heuristic
# --------------------------------------------------------------------------------------------
def brute_force(inst: MentionAlignmentInstance, metric: str = "ceafe"
                ) -> tuple[float, np.ndarray]:
    """The best F1 over every alignment (each subset of allowed pairs with no mention twice),
    by enumeration; at most :data:`BRUTE_MAX_PAIRS` pairs. Independent of the model: the oracle
    the tests compare it with."""
    E = inst.num_pairs
    if E > BRUTE_MAX_PAIRS:
        raise ModelTooLargeError(f"brute_force enumerates at most {BRUTE_MAX_PAIRS} allowed "
                                 f"pairs; this instance has {E}")
    rows, cols = inst.rows.tolist(), inst.cols.tolist()
    best_val, best = -1.0, []
    chosen: list[tuple[int, int]] = []
    used_k, used_r = set(), set()

    def rec(e: int):
        nonlocal best_val, best
        if e == E:
            v = check(inst, chosen, metric)
            if v > best_val + 1e-12:
                best_val, best = v, list(chosen)
            return
        k, r = rows[e], cols[e]
        if k not in used_k and r not in used_r:
            used_k.add(k)
            used_r.add(r)
            chosen.append((k, r))
            rec(e + 1)
            chosen.pop()
            used_k.discard(k)
            used_r.discard(r)
        rec(e + 1)

    rec(0)
    return best_val, as_alignment(best)


def stagewise(inst: MentionAlignmentInstance) -> np.ndarray:
    """The similarity heuristic: stage by stage (``stage`` ascending), a maximum-weight 1:1
    assignment of the stage's pairs among the mentions still unpaired (what scorers that align
    by similarity do; :func:`exactalign.metrics.coref.corefud.staged_alignment` is the CorefUD
    scorer's own, ties included)."""
    from .. import bipartite

    used_k, used_r, out = set(), set(), []
    for s in sorted(set(inst.stage.tolist())):
        idx = [e for e in np.flatnonzero(inst.stage == s).tolist()
               if inst.rows[e] not in used_k and inst.cols[e] not in used_r
               and inst.weight[e] > 0]
        if not idx:
            continue
        bi = bipartite.BipartiteInstance(inst.n_key, inst.n_response,
                                         inst.rows[idx].copy(), inst.cols[idx].copy(),
                                         inst.weight[idx].copy(), "1:1")
        res = bipartite.solve(bi, "exact")
        for k, r in np.asarray(res.alignment).reshape(-1, 2).tolist():
            out.append((k, r))
            used_k.add(k)
            used_r.add(r)
    return as_alignment(out)


HEURISTICS = {"stagewise": stagewise}
