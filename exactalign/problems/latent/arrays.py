"""The compiled (numpy) form of a latent-variable matching instance: its useful variable pairs,
their unary weights and the weighted pairs of pairs (the package docstring of
:mod:`exactalign.problems.latent`). :class:`~.instance.LatentInstance` builds it on first use."""

from __future__ import annotations

import numpy as np

from ...core.arrays import frozen


def _join(kl: np.ndarray, kr: np.ndarray):
    """All index pairs ``(i, j)`` with ``kl[i] == kr[j]``, ordered by ``i`` then ``j``."""
    order = np.argsort(kr, kind="stable")
    srt = kr[order]
    lo = np.searchsorted(srt, kl, "left")
    cnt = np.searchsorted(srt, kl, "right") - lo
    total = int(cnt.sum())
    il = np.repeat(np.arange(len(kl)), cnt)
    offs = np.arange(total) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    return il, order[np.repeat(lo, cnt) + offs]


def _codes(left_keys, right_keys):
    """Integer codes of the keys of both sides (equal keys, equal codes)."""
    table: dict = {}
    cl = np.fromiter((table.setdefault(k, len(table)) for k in left_keys), np.int64,
                     len(left_keys))
    cr = np.fromiter((table.setdefault(k, len(table)) for k in right_keys), np.int64,
                     len(right_keys))
    return cl, cr


def compile_arrays(inst) -> dict:
    """The compiled form of ``inst`` (a :class:`~.instance.LatentInstance`; the package
    docstring of :mod:`exactalign.problems.latent`), as read-only arrays."""
    nr = max(inst.n_right, 1)
    cl, cr = _codes([t[0] for t in inst.left_unary], [t[0] for t in inst.right_unary])
    il, ir = _join(cl, cr)
    ua = np.array([t[1] for t in inst.left_unary], np.int64)[il] if len(il) else il
    ub = np.array([t[1] for t in inst.right_unary], np.int64)[ir] if len(ir) else ir
    bl = np.array([t[1:] for t in inst.left_binary], np.int64).reshape(-1, 2)
    br = np.array([t[1:] for t in inst.right_binary], np.int64).reshape(-1, 2)
    kl, kr = _codes([t[0] for t in inst.left_binary], [t[0] for t in inst.right_binary])
    jl, jr = _join(kl, kr)
    a1, a2 = bl[jl, 0], bl[jl, 1]
    b1, b2 = br[jr, 0], br[jr, 1]
    if inst.allowed is not None:  # restricted candidate pairs: a triple pair needs them all
        ok_keys = np.array(sorted(v * nr + w for v, w in inst.allowed), np.int64)
        keep = np.isin(ua * nr + ub, ok_keys)
        ua, ub = ua[keep], ub[keep]
        keep = np.isin(a1 * nr + b1, ok_keys) & np.isin(a2 * nr + b2, ok_keys)
        a1, a2, b1, b2 = a1[keep], a2[keep], b1[keep], b2[keep]
    loop = (a1 == a2) & (b1 == b2)  # a self-loop on both sides: needs one pair
    ok = (a1 != a2) & (b1 != b2)    # needs two compatible pairs; the rest can never match
    un_keys = np.concatenate([ua * nr + ub, a1[loop] * nr + b1[loop]])
    k1, k2 = a1[ok] * nr + b1[ok], a2[ok] * nr + b2[ok]
    keys, inv = np.unique(np.concatenate([un_keys, k1, k2]), return_inverse=True)
    n_un, n_bi = len(un_keys), int(ok.sum())
    unary = np.bincount(inv[:n_un], minlength=len(keys)).astype(np.float64)
    p, q = inv[n_un:n_un + n_bi], inv[n_un + n_bi:]
    p, q = np.minimum(p, q), np.maximum(p, q)
    pq, pinv = np.unique(p * max(len(keys), 1) + q, return_inverse=True)
    bin_w = np.bincount(pinv, minlength=len(pq)).astype(np.float64)
    n_pairs = max(len(keys), 1)
    return dict(pair_left=frozen(keys // nr), pair_right=frozen(keys % nr),
                unary=frozen(unary), bin_p=frozen(pq // n_pairs),
                bin_q=frozen(pq % n_pairs), bin_w=frozen(bin_w))
