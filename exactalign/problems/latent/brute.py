"""The oracle the tests compare with: :func:`brute_force` enumerates every one-to-one set of
useful pairs of a tiny instance (ternary terms too), independently of the ILP."""

from __future__ import annotations

import numpy as np

from ...core.errors import ModelTooLargeError
from .instance import LatentInstance
from .model import mapping_array

#: :func:`brute_force` refuses instances with more useful variable pairs than this.
BRUTE_MAX_PAIRS = 16


def brute_force(inst: LatentInstance) -> tuple[float, np.ndarray]:
    """Enumerate every one-to-one set of useful pairs (at most 2^:data:`BRUTE_MAX_PAIRS`; pairs
    no triple pair needs earn nothing, so they can be left out) and score each from the
    compiled weights directly. Independent of the ILP: the oracle the tests compare with."""
    P = inst.num_pairs
    if P > BRUTE_MAX_PAIRS:
        raise ModelTooLargeError(f"brute_force enumerates at most {BRUTE_MAX_PAIRS} useful "
                                 f"variable pairs; this instance has {P}")
    pl, pr, un = inst.pair_left.tolist(), inst.pair_right.tolist(), inst.unary.tolist()
    bins = list(zip(inst.bin_p.tolist(), inst.bin_q.tolist(), inst.bin_w.tolist(),
                    strict=True))
    tris = list(zip(inst.tri_p.tolist(), inst.tri_q.tolist(), inst.tri_r.tolist(),
                    inst.tri_w.tolist(), strict=True))
    best, best_set, chosen = -1.0, [], []
    used_l, used_r = set(), set()

    def rec(k: int):
        nonlocal best, best_set
        if k == P:
            on = set(chosen)
            val = sum(un[p] for p in on) + sum(w for p, q, w in bins if p in on and q in on)
            val += sum(w for p, q, r, w in tris if p in on and q in on and r in on)
            if val > best:
                best, best_set = val, list(chosen)
            return
        if pl[k] not in used_l and pr[k] not in used_r:
            used_l.add(pl[k])
            used_r.add(pr[k])
            chosen.append(k)
            rec(k + 1)
            chosen.pop()
            used_l.discard(pl[k])
            used_r.discard(pr[k])
        rec(k + 1)

    rec(0)
    sel = np.array(best_set, dtype=np.int64)
    return max(best, 0.0), mapping_array(inst.pair_left[sel], inst.pair_right[sel])
