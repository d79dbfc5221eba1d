"""Memberships -- ``(chain, mention id, count)`` arrays, the incidence matrices chains x ids in
sparse form -- and their products as joins by mention id, vectorised with numpy (no Python
loop over pairs of entities or of mentions; scipy only imported by :func:`incidence`).

The joins return the groups of pairs of a sparse product together with the position where each
pair first occurs in the sequence the product's traversal would meet them, so that a sum whose
value depends on the order of its terms (B³) can be taken in scipy's order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import scipy.sparse as sp

#: ``(chain, id, count)`` int64 arrays, sorted by chain then id (:func:`members`).
Members = tuple[np.ndarray, np.ndarray, np.ndarray]


def members(chains: Sequence[np.ndarray], n: int) -> Members:
    """``(chain, id, count)`` of the incidence matrix chains x ids (``count`` the repetitions
    of ``id`` in ``chain``), its nonzeros in the canonical sparse order: by chain, then id."""
    if not chains:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    w = max(n, 1)
    rows = np.repeat(np.arange(len(chains), dtype=np.int64), [len(c) for c in chains])
    codes, counts = np.unique(rows * w + np.concatenate(chains), return_counts=True)
    return codes // w, codes % w, counts.astype(np.int64)


def incidence(members: Members, n_chains: int, n: int) -> sp.csr_array:
    """The memberships as a ``scipy.sparse`` matrix chains x ids (scipy imported here only)."""
    import scipy.sparse as sp

    chain, ids, count = members
    return sp.csr_array((count, (chain, ids)), shape=(n_chains, n))


def last_chain(members: Members, n: int) -> np.ndarray:
    """Per id, the last chain containing it (-1: none)."""
    chain, ids, _ = members
    last = np.full(n, -1, dtype=np.int64)
    np.maximum.at(last, ids, chain)
    return last


def grouped(a: np.ndarray, b: np.ndarray, values: np.ndarray, n_b: int):
    """The sum of ``values`` over each distinct pair ``(a[e], b[e])``: ``(codes, sums,
    first)``, ``codes`` ``a * max(n_b, 1) + b`` ascending and ``first`` the position where the
    pair first occurs in the sequence."""
    codes, first, inverse = np.unique(a * max(n_b, 1) + b, return_index=True,
                                      return_inverse=True)
    sums = np.zeros(len(codes), dtype=np.int64)
    np.add.at(sums, inverse.ravel(), values)
    return codes, sums, first


def by_chain_of(members: Members, of: np.ndarray, n_other: int):
    """``C @ H`` as :func:`grouped` pairs (chain, other chain): ``C`` the incidence counts
    of ``members``, ``H`` the ids x other chains matrix with a 1 at ``(i, of[i])`` for every id
    that has one (``of[i] >= 0``) -- how many of a chain's mentions have each chain as theirs.
    The sequence is that of the sparse product's traversal: memberships in order."""
    chain, ids, count = members
    other = of[ids]
    ok = other >= 0
    return grouped(chain[ok], other[ok], count[ok], n_other)


def shared(a: Members, b: Members, n_ids: int, n_b: int):
    """``A @ (B > 0).T`` as :func:`grouped` pairs (a chain, b chain): for every pair of
    chains sharing an id, the sum of ``A``'s counts of the shared ids. The sequence is that of
    the sparse product's traversal: ``a``'s memberships in order, each id's ``b`` chains
    ascending."""
    a_chain, a_id, a_count = a
    b_chain, b_id, _ = b
    b_by_id = b_chain[np.lexsort((b_chain, b_id))]
    ptr = np.zeros(n_ids + 1, dtype=np.int64)
    np.cumsum(np.bincount(b_id, minlength=n_ids), out=ptr[1:])
    deg = ptr[a_id + 1] - ptr[a_id]
    src = np.repeat(np.arange(len(a_id)), deg)
    pos = np.repeat(ptr[a_id] - (np.cumsum(deg) - deg), deg) + np.arange(int(deg.sum()))
    return grouped(a_chain[src], b_by_id[pos], a_count[src], n_b)


def descending_first_touch(codes: np.ndarray, first: np.ndarray, n_b: int) -> bool:
    """Whether, in every row, the columns of a sparse product stand in descending order of
    first occurrence -- i.e. whether scipy's product (which stores a row's columns in reverse
    order of first occurrence) came out in canonical, column-sorted form."""
    seq = codes[np.argsort(first, kind="stable")]
    w = max(n_b, 1)
    rows, cols = seq // w, seq % w
    return bool(np.all((rows[1:] != rows[:-1]) | (cols[1:] < cols[:-1])))
