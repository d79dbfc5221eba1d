"""Similarities between items, built as sparse matrices (vectorised, no pairwise loops)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import scipy.sparse as sp


def _incidence(sets: Sequence[Iterable], vocab: dict) -> sp.csr_array:
    rows, cols = [], []
    for i, s in enumerate(sets):
        for t in set(s):
            rows.append(i)
            cols.append(vocab.setdefault(t, len(vocab)))
    return rows, cols


def dice_matrix(ref_sets: Sequence[Iterable], pred_sets: Sequence[Iterable]) -> sp.csr_array:
    """Token-set Dice ``2|R ∩ P| / (|R| + |P|)`` for every pair with a shared token (sparse;
    pairs that share nothing are absent, i.e. 0). Shape ``(len(ref_sets), len(pred_sets))``."""
    vocab: dict = {}
    rr, rc = _incidence(ref_sets, vocab)
    pr, pc = _incidence(pred_sets, vocab)
    V = len(vocab)
    R = sp.csr_array((np.ones(len(rr)), (rr, rc)), shape=(len(ref_sets), V))
    P = sp.csr_array((np.ones(len(pr)), (pr, pc)), shape=(len(pred_sets), V))
    inter = (R @ P.T).tocoo()
    rsize = np.asarray(R.sum(axis=1)).ravel()
    psize = np.asarray(P.sum(axis=1)).ravel()
    val = 2.0 * inter.data / (rsize[inter.row] + psize[inter.col])
    return sp.csr_array((val, (inter.row, inter.col)), shape=(len(ref_sets), len(pred_sets)))
