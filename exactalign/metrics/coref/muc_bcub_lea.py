"""MUC, B³ and LEA of one identified document, from the joins of its memberships
(:mod:`~exactalign.metrics.coref.memberships`): closed forms, no alignment."""

from __future__ import annotations

import numpy as np

from ..aggregation import PRF
from .identification import Identified
from .memberships import Members, by_chain_of, descending_first_touch, shared


def muc(d: Identified) -> PRF:
    """MUC as ``MUCScorer``: a response chain's correct links are its mentions, grouped by
    their key chain, minus one per group."""
    _, n, _ = d.response_by_key  # R x K
    correct = float(np.maximum(n - 1, 0).sum())
    key_links = float(np.maximum(d.key_sizes - 1, 0).sum())
    response_links = float(np.maximum(d.response_sizes - 1, 0).sum())
    return PRF(correct, key_links, correct, response_links)


def b_cubed(d: Identified) -> PRF:
    """B³ as ``BCUBED``: each response mention ``m`` of chain ``R`` scores ``c/|R|`` in
    precision and ``c/|K|`` in recall, ``K`` its key chain and ``c`` how many mentions of ``R``
    are in ``K``.

    The two sums of fractions are taken in the order scipy's element-wise product ``n * c``
    (of the sparse ``R x K`` products below) stored its terms, so that they round as they did:
    by ``R``, then ascending ``K`` when both products came out column-sorted (canonical; then
    the merge keeps that order), else in the order the first product met each ``K``."""
    rows, cols, nc = _b_cubed_terms(d)
    r_num = float((nc / d.key_sizes[cols]).sum()) if len(nc) else 0.0
    p_num = float((nc / d.response_sizes[rows]).sum()) if len(nc) else 0.0
    return PRF(r_num, float(d.key_sizes.sum()), p_num, float(d.response_sizes.sum()))


def _b_cubed_terms(d: Identified) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(R, K, n c)`` for every pair of a response chain ``R`` and a key chain ``K`` that is the
    chain of some of its mentions: ``n`` those mentions (with repetitions), ``c`` the mentions
    of ``R`` in ``K`` -- in the order of scipy's ``n * c`` (see :func:`b_cubed`)."""
    nK = len(d.key_chains)
    w = max(nK, 1)
    n_codes, n, n_first = d.response_by_key   # positions by K
    c_codes, c, c_first = shared(d.response_members, d.key_members, d.n_ids, nK)  # |R ∩ K|
    nc = n * c[np.searchsorted(c_codes, n_codes)]
    if not (descending_first_touch(n_codes, n_first, nK)
            and descending_first_touch(c_codes, c_first, nK)):
        order = np.argsort(n_first, kind="stable")
        n_codes, nc = n_codes[order], nc[order]
    return n_codes // w, n_codes % w, nc


def lea(d: Identified) -> PRF:
    """LEA (coval's ``lea``): recall over key chains, precision over response chains."""
    r_num = _lea_side(d.key_members, d.key_sizes, d.response_of, d.response_sizes)
    p_num = _lea_side(d.response_members, d.response_sizes, d.key_of, d.key_sizes,
                      d.response_by_key)
    return PRF(r_num, float(d.key_sizes.sum()), p_num, float(d.response_sizes.sum()))


def _lea_side(members: Members, sizes: np.ndarray, other_of: np.ndarray,
              other_sizes: np.ndarray, by_other=None) -> float:
    if not len(sizes):
        return 0.0
    codes, n, _ = (by_chain_of(members, other_of, len(other_sizes)) if by_other is None
                   else by_other)  # positions by other chain
    common = np.zeros(len(sizes))
    # whole numbers: their float sums are exact in any order
    np.add.at(common, codes // max(len(other_sizes), 1), n * (n - 1) / 2)
    links = sizes * (sizes - 1) / 2
    single = np.flatnonzero(sizes == 1)
    if len(single):
        chain, ids, _ = members
        mention = ids[(sizes == 1)[chain]]   # the one id of each singleton chain, in order
        other = other_of[mention]
        ok = other >= 0
        common[single] = 0.0
        common[single[ok]] = other_sizes[other[ok]] == 1
        links[single] = 1
    return float((sizes * common / links).sum())
