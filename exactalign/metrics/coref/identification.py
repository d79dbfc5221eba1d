"""The reference scorer's mention identification (``IdentifMentions``): one key/response
document pair turned into chains of mention ids (:func:`identify`, :class:`Identified`), with
the repeated-mention rule described in :mod:`exactalign.metrics.coref`."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ...io.conll import Document, Mention
from ..aggregation import PRF
from .memberships import Members, by_chain_of, incidence, last_chain, members, shared

if TYPE_CHECKING:
    import scipy.sparse as sp

#: The reference scorer v8.01 refuses a response with more repeated key mentions than this.
MAX_REPEATED = 10


@dataclass(frozen=True, eq=False)
class Identified:
    """One document after the reference scorer's mention identification (see
    :mod:`exactalign.metrics.coref`).

    ``spans[i]`` is the span of mention id ``i``; ids ``0 .. n_key - 1`` are the key's distinct
    mentions, the rest the response's mentions that are not in the key. ``key_chains`` and
    ``response_chains`` are int64 arrays of ids, one per cluster (the reference's
    ``kChainsOrig``/``rChainsOrig``). ``repeated`` lists the response mentions dropped by the
    repeated-mention rule as ``(mention, response cluster index)``."""

    name: str
    spans: tuple[Mention, ...]
    n_key: int
    key_chains: tuple[np.ndarray, ...]
    response_chains: tuple[np.ndarray, ...]
    mentions: PRF
    repeated: tuple[tuple[Mention, int], ...] = ()

    @property
    def n_ids(self) -> int:
        return len(self.spans)

    # -- incidence (chains x ids) -----------------------------------------------------------
    @cached_property
    def key_members(self) -> Members:
        """``(chain, id, count)``: id ``id`` occurs ``count`` times in key chain ``chain``, for
        every pair with a positive count, sorted by chain then id
        (:func:`~exactalign.metrics.coref.memberships.members`)."""
        return members(self.key_chains, self.n_ids)

    @cached_property
    def response_members(self) -> Members:
        return members(self.response_chains, self.n_ids)

    @cached_property
    def key_counts(self) -> sp.csr_array:
        """``C[k, i]`` = how many times id ``i`` occurs in key chain ``k`` (the
        :attr:`key_members` as a ``scipy.sparse`` matrix; the metrics do not use it)."""
        return incidence(self.key_members, len(self.key_chains), self.n_ids)

    @cached_property
    def response_counts(self) -> sp.csr_array:
        return incidence(self.response_members, len(self.response_chains), self.n_ids)

    @cached_property
    def key_sizes(self) -> np.ndarray:
        return np.array([len(c) for c in self.key_chains], dtype=np.int64)

    @cached_property
    def response_sizes(self) -> np.ndarray:
        return np.array([len(c) for c in self.response_chains], dtype=np.int64)

    @cached_property
    def key_of(self) -> np.ndarray:
        """Per id, the last key chain containing it (-1: none) -- the Perl ``Indexa``."""
        return last_chain(self.key_members, self.n_ids)

    @cached_property
    def response_of(self) -> np.ndarray:
        return last_chain(self.response_members, self.n_ids)

    # -- joins several metrics take (computed once per document) -------------------------------
    @cached_property
    def response_by_key(self):
        """:func:`~exactalign.metrics.coref.memberships.by_chain_of` of the response's
        memberships by key chain (``R x K``: how many of a response chain's mentions have each
        key chain as theirs): MUC, B³ and LEA's precision take it."""
        return by_chain_of(self.response_members, self.key_of, len(self.key_chains))

    @cached_property
    def key_response_shared(self):
        """:func:`~exactalign.metrics.coref.memberships.shared` of the key's memberships with
        the response's (``K x R``, the key's counts of the mentions they share): both CEAFs'
        weights."""
        return shared(self.key_members, self.response_members, self.n_ids,
                      len(self.response_chains))


def identify(key: Document, response: Document) -> Identified:
    """Mention identification of the reference scorer (``IdentifMentions``) for one document.

    Also computes the identification-of-mentions counts the reference prints first: recall
    ``found / distinct key mentions``, precision ``found / distinct response mentions``, where
    ``found`` counts the distinct key mentions the response contains."""
    return identify_prepared(PreparedKey(key), response)


class PreparedKey:
    """The key's half of :func:`identify`, done once for a key document scored against many
    responses (:func:`identify_prepared`): its mention ids, chains and memberships."""

    __slots__ = ("name", "ids", "n_key", "chains", "members", "sizes")

    def __init__(self, key: Document):
        ids: dict[Mention, int] = {}
        for cluster in key.clusters:
            for m in cluster:
                ids.setdefault(m, len(ids))
        self.name = key.name
        self.ids = ids
        self.n_key = len(ids)
        self.chains = tuple(_read_only(np.array([ids[m] for m in c], dtype=np.int64))
                            for c in key.clusters)
        # the key's memberships do not depend on the response's ids (numbered after the key's)
        self.members = tuple(_read_only(a) for a in members(self.chains, self.n_key))
        self.sizes = _read_only(np.array([len(c) for c in self.chains], dtype=np.int64))


def identify_prepared(key: PreparedKey, response: Document) -> Identified:
    """:func:`identify` with the key's half done beforehand (the same :class:`Identified`)."""
    ids = dict(key.ids)
    n_key = key.n_key
    met: set[Mention] = set()     # key mentions already met in the response
    kept: list[list[Mention]] = []
    repeated: list[tuple[Mention, int]] = []
    for ci, cluster in enumerate(response.clusters):
        out = []
        for m in cluster:
            if m in met:
                repeated.append((m, ci))
                continue
            if m in ids:
                met.add(m)
            out.append(m)
        if out:
            kept.append(out)
    for cluster in kept:          # response-only mentions get new ids, in order
        for m in cluster:
            ids.setdefault(m, len(ids))
    response_chains = tuple(np.array([ids[m] for m in c], dtype=np.int64) for c in kept)
    n_response = len(met) + (len(ids) - n_key)
    spans = tuple(ids)  # insertion order is id order
    out = Identified(key.name, spans, n_key, key.chains, response_chains,
                     PRF(float(len(met)), float(n_key), float(len(met)), float(n_response)),
                     tuple(repeated))
    out.__dict__["key_members"] = key.members  # the cached properties, computed once
    out.__dict__["key_sizes"] = key.sizes
    return out


def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False  # shared by every response scored against the key
    return a
