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
    t_un, t_b1, t_b2, t3 = _ternary_terms(inst, nr)
    if len(t_un) or len(t_b1) or len(t3):  # ternary clause pairs: appended, else unchanged
        un_keys = np.concatenate([un_keys, t_un])
        k1, k2 = np.concatenate([k1, t_b1]), np.concatenate([k2, t_b2])
    n_un, n_bi = len(un_keys), len(k1)
    keys, inv = np.unique(np.concatenate([un_keys, k1, k2, t3.ravel()]), return_inverse=True)
    unary = np.bincount(inv[:n_un], minlength=len(keys)).astype(np.float64)
    p, q = inv[n_un:n_un + n_bi], inv[n_un + n_bi:n_un + 2 * n_bi]
    p, q = np.minimum(p, q), np.maximum(p, q)
    pq, pinv = np.unique(p * max(len(keys), 1) + q, return_inverse=True)
    bin_w = np.bincount(pinv, minlength=len(pq)).astype(np.float64)
    n_pairs = max(len(keys), 1)
    out = dict(pair_left=frozen(keys // nr), pair_right=frozen(keys % nr),
               unary=frozen(unary), bin_p=frozen(pq // n_pairs),
               bin_q=frozen(pq % n_pairs), bin_w=frozen(bin_w))
    t = np.sort(inv[n_un + 2 * n_bi:].reshape(-1, 3), axis=1)  # p < q < r: distinct pairs
    pqr, tinv = np.unique(t, axis=0, return_inverse=True)
    pqr = pqr.reshape(-1, 3)
    out.update(tri_p=frozen(pqr[:, 0]), tri_q=frozen(pqr[:, 1]), tri_r=frozen(pqr[:, 2]),
               tri_w=frozen(np.bincount(tinv.ravel(), minlength=len(pqr)).astype(np.float64)))
    return out


def _ternary_terms(inst, nr: int):
    """The terms of the ternary clause pairs (equal keys; the package docstring), as pair keys
    ``left * nr + right``: ``(unary keys, first and second keys of the binary terms, (k, 3)
    keys of the ternary terms)``. A clause pair needs ``(a_i, b_i)`` for ``i = 1, 2, 3``; it can
    match only when ``a_i == a_j`` exactly when ``b_i == b_j`` (else one variable would map to
    two, or two to one: dropped), and only when every pair it needs is allowed (``allowed``).
    Its distinct pairs make it a unary term (all three fields the same variable on both sides),
    a binary term (two distinct pairs: a variable repeated on both sides in the same fields) or
    a ternary term (three distinct pairs)."""
    lt, rt = inst.left_ternary, inst.right_ternary
    empty = np.zeros(0, np.int64)
    if not lt or not rt:
        return empty, empty, empty, np.zeros((0, 3), np.int64)
    kl, kr = _codes([t[0] for t in lt], [t[0] for t in rt])
    jl, jr = _join(kl, kr)
    a = np.array([t[1:] for t in lt], np.int64).reshape(-1, 3)[jl]
    b = np.array([t[1:] for t in rt], np.int64).reshape(-1, 3)[jr]
    keep = np.ones(len(a), dtype=bool)
    for i, j in ((0, 1), (0, 2), (1, 2)):
        keep &= (a[:, i] == a[:, j]) == (b[:, i] == b[:, j])
    k = a * nr + b
    if inst.allowed is not None:
        ok_keys = np.array(sorted(v * nr + w for v, w in inst.allowed), np.int64)
        keep &= np.isin(k, ok_keys).all(axis=1)
    k = k[keep]
    e01, e02, e12 = k[:, 0] == k[:, 1], k[:, 0] == k[:, 2], k[:, 1] == k[:, 2]
    one = e01 & e02
    two = (e01 | e02 | e12) & ~one
    three = ~(e01 | e02 | e12)
    # two distinct pairs: k0 and whichever of k1, k2 differs from it (k1 when k0 == k2 or
    # k1 == k2, k2 when k0 == k1)
    second = np.where(e01[two], k[two, 2], k[two, 1])
    return k[one, 0], k[two, 0], second, k[three]
