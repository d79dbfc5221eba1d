"""BLANC on one identified document: the sets of coreference and non-coreference links of key
and response (``BLANC_Internal``), and the counts that combine them (:class:`Blanc`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..aggregation import PRF, prf_dict
from .identification import Identified
from .memberships import Members


@dataclass(frozen=True)
class Blanc:
    """BLANC counts: coreference links and non-coreference links, each a :class:`PRF`.

    Summing is the reference's corpus aggregation (each of the eight counts summed);
    :attr:`recall`, :attr:`precision` and :attr:`f1` combine the two kinds as
    ``ComputeBLANCFromCounts`` does: their means (the F1 is the mean of the two F1s, not the F1
    of the mean recall and precision) when the key has links of both kinds, the one kind alone
    when it has links of only one kind, 0 when it has none."""

    coref: PRF = field(default_factory=PRF)
    noncoref: PRF = field(default_factory=PRF)

    def __add__(self, other: Blanc) -> Blanc:
        return Blanc(self.coref + other.coref, self.noncoref + other.noncoref)

    def _parts(self) -> list[PRF]:
        return [p for p in (self.coref, self.noncoref) if p.recall_den]

    @property
    def recall(self) -> float:
        parts = self._parts()
        return sum(p.recall for p in parts) / len(parts) if parts else 0.0

    @property
    def precision(self) -> float:
        parts = self._parts()
        return sum(p.precision for p in parts) / len(parts) if parts else 0.0

    @property
    def f1(self) -> float:
        parts = self._parts()
        return sum(p.f1 for p in parts) / len(parts) if parts else 0.0

    def to_dict(self, counts: bool = True) -> dict:
        """The combined ``{"recall", "precision", "f1"}`` (:func:`prf_dict`), plus each kind's
        :meth:`PRF.to_dict` under ``coref`` and ``noncoref``."""
        d = prf_dict(self.recall, self.precision, self.f1)
        if counts:
            d["coref"] = self.coref.to_dict()
            d["noncoref"] = self.noncoref.to_dict()
        return d


def blanc(d: Identified) -> Blanc:
    """BLANC as ``BLANC_Internal``: link *sets* (a pair of ids counts once however many chains
    produce it); a chain holding an id twice links it to itself, and an id in two chains has a
    non-coreference link to itself -- which only repeated mentions can cause."""
    if _partition(d.key_members, d.key_sizes) and _partition(d.response_members,
                                                             d.response_sizes):
        return _blanc_partition(d)
    return _blanc_sets(d)


def _partition(members: Members, sizes: np.ndarray) -> bool:
    """Whether no id occurs twice in the chains (once in each of two, or twice in one)."""
    ids = members[1]
    return len(ids) == int(sizes.sum()) and (not len(ids) or int(np.bincount(ids).max()) == 1)


def _blanc_sets(d: Identified) -> Blanc:
    """:func:`blanc` from the link sets themselves (any document)."""
    n = d.n_ids
    k, r = _links(d.key_members, n), _links(d.response_members, n)
    common = k.present & r.present
    m = int(common.sum())

    def restricted(codes):
        return codes[common[codes // max(n, 1)] & common[codes % max(n, 1)]]

    blocked = np.unique(np.concatenate((restricted(k.blocked), restricted(r.blocked)))).size
    isect_nc = m * (m - 1) // 2 - blocked + int((k.self_noncoref & r.self_noncoref).sum())
    isect_c = np.intersect1d(k.coref, r.coref, assume_unique=True).size
    return Blanc(PRF(float(isect_c), float(k.coref.size), float(isect_c), float(r.coref.size)),
                 PRF(float(isect_nc), float(k.n_noncoref), float(isect_nc),
                     float(r.n_noncoref)))


def _blanc_partition(d: Identified) -> Blanc:
    """:func:`blanc` when no id occurs twice in key or response (each side a partition of its
    ids; the common case): every count from the chain sizes and the key x response
    contingency ``n_kr`` (shared ids; :attr:`Identified.key_response_shared`), whole numbers
    exact in any order. Coreference links: ``sum C(size, 2)``; the common ones
    ``sum C(n_kr, 2)``. Non-coreference links: ``C(ids, 2)`` minus the coreference links; the
    common ones, among the ``m`` ids of both sides, ``C(m, 2)`` minus the pairs sharing a key
    chain or a response chain (inclusion-exclusion over the contingency's row and column
    sums)."""
    ks, rs = d.key_sizes, d.response_sizes
    k_coref = int((ks * (ks - 1)).sum()) // 2
    r_coref = int((rs * (rs - 1)).sum()) // 2
    codes, c, _ = d.key_response_shared
    w = max(len(rs), 1)
    rows = np.bincount(codes // w, weights=c, minlength=0).astype(np.int64)
    cols = np.bincount(codes % w, weights=c, minlength=0).astype(np.int64)
    m = int(c.sum())
    both = int((c * (c - 1)).sum()) // 2
    isect_nc = (m * (m - 1) - int((rows * (rows - 1)).sum())
                - int((cols * (cols - 1)).sum())) // 2 + both
    pk, pr = len(d.key_members[1]), len(d.response_members[1])
    return Blanc(PRF(float(both), float(k_coref), float(both), float(r_coref)),
                 PRF(float(isect_nc), float(pk * (pk - 1) // 2 - k_coref), float(isect_nc),
                     float(pr * (pr - 1) // 2 - r_coref)))


@dataclass(frozen=True)
class _LinkSets:
    coref: np.ndarray          # sorted codes a*n+b (a <= b) of coreference links
    blocked: np.ndarray        # codes (a < b, both present) that are NOT non-coreference links
    present: np.ndarray        # bool per id
    self_noncoref: np.ndarray  # bool per id: in two chains (a non-coreference self-link)
    n_noncoref: int


def _links(members: Members, n: int) -> _LinkSets:
    """Coreference links: pairs (a < b) sharing a chain, plus (a, a) for an id twice in one
    chain. Non-coreference links: pairs (a < b) with ``a`` in some chain and ``b`` in another --
    i.e. all present pairs except those where every chain holding one holds the other
    (``c(a) c(b) == M[a, b]``, ``c`` = chains per id, ``M`` = chains holding both) -- plus
    (a, a) for an id in two chains."""
    chain, ids, count = members
    c = np.bincount(ids, minlength=n).astype(np.int64)
    # every pair a < b of ids within a chain (ids ascending within each chain), then per pair
    # the number of chains holding both: M off the diagonal
    size = np.bincount(chain, minlength=int(chain.max()) + 1 if len(chain) else 0)
    start = np.cumsum(size) - size
    after = size[chain] - 1 - (np.arange(len(chain)) - start[chain])  # later ids, same chain
    src = np.repeat(np.arange(len(chain)), after)
    dst = src + np.arange(int(after.sum())) - np.repeat(np.cumsum(after) - after, after) + 1
    codes, both = np.unique(ids[src] * n + ids[dst], return_counts=True)
    a, b = codes // max(n, 1), codes % max(n, 1)
    twice = np.unique(ids[count >= 2])
    coref = np.unique(np.concatenate((codes, twice * n + twice)))
    blocked = np.sort(codes[both == c[a] * c[b]])
    present = c > 0
    p = int(present.sum())
    self_nc = c >= 2
    n_noncoref = p * (p - 1) // 2 - blocked.size + int(self_nc.sum())
    return _LinkSets(coref, blocked, present, self_nc, n_noncoref)
