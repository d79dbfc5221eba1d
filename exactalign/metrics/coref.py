"""Coreference metrics -- MUC, B³, CEAFm, CEAFe, BLANC, LEA and the CoNLL average -- as the
CoNLL reference scorer v8.01 computes them (``conll/reference-coreference-scorers``,
``lib/CorScorer.pm``), with CEAF's entity alignment solved exactly through
:mod:`exactalign.problems.bipartite` and also by the greedy heuristic, to measure the gap.

Pipeline
--------
1. :func:`exactalign.io.conll.read_conll` reads the files; :func:`~exactalign.io.conll.pair_documents`
   pairs key and response documents.
2. :func:`identify` turns one key/response pair into chains of mention ids, applying the
   reference scorer's mention identification (``IdentifMentions``):

   * mentions are identified by their exact span ``(start_token, end_token)`` (heads play no
     part);
   * **repeated mentions in the response**: walking the response clusters in order (the
     reader's order, i.e. the order in which entity ids first appear) and each cluster's mentions
     in order, a mention *that is in the key* and was already met is dropped -- so a key mention
     the response puts in two clusters stays in the lower-indexed one, and one it repeats within
     a cluster is kept once; a cluster left empty is dropped. A repeated response mention that
     is *not* in the key is kept every time (the reference only tracks key mentions in that
     pass). :func:`score_documents` refuses, as v8.01 does, a response with more than
     :data:`MAX_REPEATED` such repetitions (in all its documents);
   * **repeated mentions in the key** are kept in every cluster (the scorer only warns), under
     one id: a mention's key cluster, where one is needed, is the last one containing it (the
     Perl ``Indexa`` hash), and counts of mentions count the repetitions.

   Without repetitions (every well-formed file) all this reduces to the textbook definitions.
3. Each metric returns counts (:class:`~exactalign.metrics.aggregation.PRF`; :class:`Blanc` for
   BLANC); a corpus is scored by summing the counts over documents (micro average), as the
   reference scorer's ``Score`` sums ``(recall_num, recall_den, precision_num, precision_den)``
   -- and, for BLANC, the coreference-link and non-coreference-link counts separately, combining
   them only at the end (:class:`Blanc`).

The metrics, on chains of ids (``K`` a key chain, ``R`` a response chain, ``|.|`` counting
repetitions)
---------------------------------------------------------------------------------------------
* MUC (Vilain et al. 1995): recall ``sum (|K∩R| - 1) / sum (|K| - 1)`` over non-empty
  intersections, precision the same numerator over ``sum (|R| - 1)``.
* B³ (Bagga & Baldwin 1998) without Cai & Strube's changes (v8.01's ``bcub``): recall
  ``sum |K∩R|²/|K| / sum |K|``, precision ``sum |K∩R|²/|R| / sum |R|``; twinless mentions
  contribute 0 to the numerators and count in the denominators.
* CEAF (Luo 2005): the maximum-weight 1:1 alignment of key and response entities under
  ``φ3 = |K∩R|`` (CEAFm; denominators ``sum |K|``, ``sum |R|``) or ``φ4 = 2|K∩R|/(|K|+|R|)``
  (CEAFe; denominators the numbers of entities). The alignment is a
  :class:`~exactalign.problems.bipartite.BipartiteInstance` (kind 1:1) solved by ``method``:
  ``exact`` (the assignment problem, proven optimal: what the reference's Munkres computes),
  ``ilp`` (the ILP through a backend; must agree), or ``greedy`` (repeatedly take the best
  remaining entity pair: the heuristic; status FEASIBLE, no bound).
* BLANC (Recasens & Hovy 2011; Luo et al. 2014 for system mentions): the sets of coreference
  links (pairs of mentions in one chain) and non-coreference links (pairs in two different
  chains) of key and response; recall and precision of each; BLANC averages the two
  recalls, the two precisions and the two F1s -- or takes one kind alone when the key has no
  link of the other kind (``ComputeBLANCFromCounts``). Corpus BLANC sums the eight counts over
  documents first.
* LEA (Moosavi & Strube 2016; not in v8.01 -- as coval implements it): recall
  ``sum |K| * (common links of K) / link(K) / sum |K|`` with ``link(n) = n(n-1)/2``, the common
  links of ``K`` the pairs of its mentions that the response puts in one chain; a singleton
  ``K`` has one (self-)link, resolved when its mention is a singleton in the response too.
  Precision swaps key and response. Computed on the identified chains above.
* The CoNLL average: the mean of the MUC, B³ and CEAFe F1s (corpus level: of the corpus F1s).

Everything between documents' chains is computed on memberships -- ``(chain, mention id,
count)`` arrays, the incidence matrices chains x ids in sparse form -- whose products are
joins by mention id, vectorised with numpy; no Python loop runs over pairs of entities or of
mentions, and scipy is not imported (a third of a second at every start of the command). Where
a sum of floats depends on the order of its terms (B³), the terms are summed in the order
``scipy.sparse`` produced them when it computed these products, so every number is the one it
gave (``tests/test_coref.py`` compares the two on random chains).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ..core.errors import InputError
from ..core.result import Result, combine_results
from ..io.conll import Document, Mention, pair_documents, read_conll
from ..problems import bipartite
from .aggregation import PRF, prf_dict

if TYPE_CHECKING:
    import scipy.sparse as sp

#: ``(chain, id, count)`` int64 arrays, sorted by chain then id (:func:`_members`).
Members = tuple[np.ndarray, np.ndarray, np.ndarray]

#: The metrics, in the reference scorer's names and order (plus LEA).
METRICS = ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea")
#: The CEAF variants and their similarity.
CEAF_PHI = {"ceafm": "mention", "ceafe": "entity"}
#: Ways to align CEAF entities: exact methods first, then the heuristic.
CEAF_METHODS = ("exact", "ilp", "greedy")
CEAF_HEURISTICS = ("greedy",)
#: The reference scorer v8.01 refuses a response with more repeated key mentions than this.
MAX_REPEATED = 10


# --------------------------------------------------------------------------------------------
# identification of mentions
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Identified:
    """One document after the reference scorer's mention identification (see the module).

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
        every pair with a positive count, sorted by chain then id (:func:`_members`)."""
        return _members(self.key_chains, self.n_ids)

    @cached_property
    def response_members(self) -> Members:
        return _members(self.response_chains, self.n_ids)

    @cached_property
    def key_counts(self) -> sp.csr_array:
        """``C[k, i]`` = how many times id ``i`` occurs in key chain ``k`` (the
        :attr:`key_members` as a ``scipy.sparse`` matrix; the metrics do not use it)."""
        return _incidence(self.key_members, len(self.key_chains), self.n_ids)

    @cached_property
    def response_counts(self) -> sp.csr_array:
        return _incidence(self.response_members, len(self.response_chains), self.n_ids)

    @cached_property
    def key_sizes(self) -> np.ndarray:
        return np.array([len(c) for c in self.key_chains], dtype=np.int64)

    @cached_property
    def response_sizes(self) -> np.ndarray:
        return np.array([len(c) for c in self.response_chains], dtype=np.int64)

    @cached_property
    def key_of(self) -> np.ndarray:
        """Per id, the last key chain containing it (-1: none) -- the Perl ``Indexa``."""
        return _last_chain(self.key_members, self.n_ids)

    @cached_property
    def response_of(self) -> np.ndarray:
        return _last_chain(self.response_members, self.n_ids)


# --------------------------------------------------------------------------------------------
# memberships and the products of incidence matrices, as groups of pairs
# --------------------------------------------------------------------------------------------
def _members(chains: Sequence[np.ndarray], n: int) -> Members:
    """``(chain, id, count)`` of the incidence matrix chains x ids (``count`` the repetitions
    of ``id`` in ``chain``), its nonzeros in the canonical sparse order: by chain, then id."""
    if not chains:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    w = max(n, 1)
    rows = np.repeat(np.arange(len(chains), dtype=np.int64), [len(c) for c in chains])
    codes, counts = np.unique(rows * w + np.concatenate(chains), return_counts=True)
    return codes // w, codes % w, counts.astype(np.int64)


def _incidence(members: Members, n_chains: int, n: int) -> sp.csr_array:
    import scipy.sparse as sp

    chain, ids, count = members
    return sp.csr_array((count, (chain, ids)), shape=(n_chains, n))


def _last_chain(members: Members, n: int) -> np.ndarray:
    chain, ids, _ = members
    last = np.full(n, -1, dtype=np.int64)
    np.maximum.at(last, ids, chain)
    return last


def _grouped(a: np.ndarray, b: np.ndarray, values: np.ndarray, n_b: int):
    """The sum of ``values`` over each distinct pair ``(a[e], b[e])``: ``(codes, sums,
    first)``, ``codes`` ``a * max(n_b, 1) + b`` ascending and ``first`` the position where the
    pair first occurs in the sequence."""
    codes, first, inverse = np.unique(a * max(n_b, 1) + b, return_index=True,
                                      return_inverse=True)
    sums = np.zeros(len(codes), dtype=np.int64)
    np.add.at(sums, inverse.ravel(), values)
    return codes, sums, first


def _by_chain_of(members: Members, of: np.ndarray, n_other: int):
    """``C @ H`` as :func:`_grouped` pairs (chain, other chain): ``C`` the incidence counts
    of ``members``, ``H`` the ids x other chains matrix with a 1 at ``(i, of[i])`` for every id
    that has one (``of[i] >= 0``) -- how many of a chain's mentions have each chain as theirs.
    The sequence is that of the sparse product's traversal: memberships in order."""
    chain, ids, count = members
    other = of[ids]
    ok = other >= 0
    return _grouped(chain[ok], other[ok], count[ok], n_other)


def _shared(a: Members, b: Members, n_ids: int, n_b: int):
    """``A @ (B > 0).T`` as :func:`_grouped` pairs (a chain, b chain): for every pair of
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
    return _grouped(a_chain[src], b_by_id[pos], a_count[src], n_b)


def _descending_first_touch(codes: np.ndarray, first: np.ndarray, n_b: int) -> bool:
    """Whether, in every row, the columns of a sparse product stand in descending order of
    first occurrence -- i.e. whether scipy's product (which stores a row's columns in reverse
    order of first occurrence) came out in canonical, column-sorted form."""
    seq = codes[np.argsort(first, kind="stable")]
    w = max(n_b, 1)
    rows, cols = seq // w, seq % w
    return bool(np.all((rows[1:] != rows[:-1]) | (cols[1:] < cols[:-1])))


def identify(key: Document, response: Document) -> Identified:
    """Mention identification of the reference scorer (``IdentifMentions``) for one document.

    Also computes the identification-of-mentions counts the reference prints first: recall
    ``found / distinct key mentions``, precision ``found / distinct response mentions``, where
    ``found`` counts the distinct key mentions the response contains."""
    ids: dict[Mention, int] = {}
    for cluster in key.clusters:
        for m in cluster:
            ids.setdefault(m, len(ids))
    n_key = len(ids)
    key_chains = tuple(np.array([ids[m] for m in c], dtype=np.int64) for c in key.clusters)

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
    return Identified(key.name, spans, n_key, key_chains, response_chains,
                      PRF(float(len(met)), float(n_key), float(len(met)), float(n_response)),
                      tuple(repeated))


# --------------------------------------------------------------------------------------------
# the metrics (one document)
# --------------------------------------------------------------------------------------------
def muc(d: Identified) -> PRF:
    """MUC as ``MUCScorer``: a response chain's correct links are its mentions, grouped by
    their key chain, minus one per group."""
    _, n, _ = _by_chain_of(d.response_members, d.key_of, len(d.key_chains))  # R x K
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
    n_codes, n, n_first = _by_chain_of(d.response_members, d.key_of, nK)   # positions by K
    c_codes, c, c_first = _shared(d.response_members, d.key_members, d.n_ids, nK)  # |R ∩ K|
    nc = n * c[np.searchsorted(c_codes, n_codes)]
    if not (_descending_first_touch(n_codes, n_first, nK)
            and _descending_first_touch(c_codes, c_first, nK)):
        order = np.argsort(n_first, kind="stable")
        n_codes, nc = n_codes[order], nc[order]
    return n_codes // w, n_codes % w, nc


def lea(d: Identified) -> PRF:
    """LEA (coval's ``lea``): recall over key chains, precision over response chains."""
    r_num = _lea_side(d.key_members, d.key_sizes, d.response_of, d.response_sizes)
    p_num = _lea_side(d.response_members, d.response_sizes, d.key_of, d.key_sizes)
    return PRF(r_num, float(d.key_sizes.sum()), p_num, float(d.response_sizes.sum()))


def _lea_side(members: Members, sizes: np.ndarray, other_of: np.ndarray,
              other_sizes: np.ndarray) -> float:
    if not len(sizes):
        return 0.0
    codes, n, _ = _by_chain_of(members, other_of, len(other_sizes))  # positions by other chain
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


def ceaf_instance(d: Identified, phi: str) -> bipartite.BipartiteInstance:
    """The CEAF alignment problem: key entities (reference side) x response entities, weight
    ``φ3 = |K∩R|`` (``phi="mention"``) or ``φ4 = 2|K∩R|/(|K|+|R|)`` (``"entity"``); ``|K∩R|``
    counts the mentions of ``K`` that ``R`` contains (the Perl ``SIMEntityBased``)."""
    nR = len(d.response_chains)
    codes, inter, _ = _shared(d.key_members, d.response_members, d.n_ids, nR)  # K x R
    rows, cols = codes // max(nR, 1), codes % max(nR, 1)
    if phi == "mention":
        w = inter.astype(np.float64)
    elif phi == "entity":
        w = 2.0 * inter / (d.key_sizes[rows] + d.response_sizes[cols])
    else:
        raise ValueError(f"unknown CEAF similarity {phi!r}; choose 'mention' or 'entity'")
    return bipartite.BipartiteInstance(len(d.key_chains), nR, rows, cols, w, "1:1")


@dataclass(frozen=True)
class Ceaf:
    """A CEAF score: the counts and the solve of the entity alignment (its objective is the
    numerator of both recall and precision)."""

    prf: PRF
    result: Result


def ceaf(d: Identified, phi: str = "entity", method: str = "exact", **solve_options) -> Ceaf:
    """CEAFe (``phi="entity"``) or CEAFm (``"mention"``) of one document, the alignment solved
    by ``method`` (``exact``, ``ilp``, ``greedy``, or any other :func:`bipartite.solve` method);
    ``solve_options`` (``backend``, ``time_limit``, ``seed``...) go to :func:`bipartite.solve`.
    When an ILP stops on its time limit the numerator is its incumbent (a lower bound) and the
    result carries the bound."""
    res = bipartite.solve(ceaf_instance(d, phi), method, **solve_options)
    num = 0.0 if res.objective is None else float(res.objective)
    if phi == "mention":
        dens = float(d.key_sizes.sum()), float(d.response_sizes.sum())
    else:
        dens = float(len(d.key_chains)), float(len(d.response_chains))
    return Ceaf(PRF(num, dens[0], num, dens[1]), res)


# -- BLANC ----------------------------------------------------------------------------------
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
    n = d.n_ids
    k, r = _links(d.key_members, n), _links(d.response_members, n)
    common = k.present & r.present
    m = int(common.sum())

    def restricted(codes):
        return codes[common[codes // max(n, 1)] & common[codes % max(n, 1)]]

    blocked = np.union1d(restricted(k.blocked), restricted(r.blocked)).size
    isect_nc = m * (m - 1) // 2 - blocked + int((k.self_noncoref & r.self_noncoref).sum())
    isect_c = np.intersect1d(k.coref, r.coref, assume_unique=True).size
    return Blanc(PRF(float(isect_c), float(k.coref.size), float(isect_c), float(r.coref.size)),
                 PRF(float(isect_nc), float(k.n_noncoref), float(isect_nc),
                     float(r.n_noncoref)))


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
    coref = np.union1d(codes, twice * n + twice)
    blocked = np.sort(codes[both == c[a] * c[b]])
    present = c > 0
    p = int(present.sum())
    self_nc = c >= 2
    n_noncoref = p * (p - 1) // 2 - blocked.size + int(self_nc.sum())
    return _LinkSets(coref, blocked, present, self_nc, n_noncoref)


# --------------------------------------------------------------------------------------------
# documents and corpora
# --------------------------------------------------------------------------------------------
def conll_average(scores: dict) -> float | None:
    """Mean F1 of MUC, B³ and CEAFe (``None`` unless all three are in ``scores``)."""
    if not all(m in scores for m in ("muc", "bcub", "ceafe")):
        return None
    return (scores["muc"].f1 + scores["bcub"].f1 + scores["ceafe"].f1) / 3


@dataclass(frozen=True)
class DocumentScores:
    """The scores of one document: ``scores[metric]`` is a :class:`PRF` (a :class:`Blanc` for
    ``blanc``); ``ceaf[metric]`` the alignment solve of ``ceafm``/``ceafe`` by the chosen
    method and ``ceaf_exact[metric]`` the exact solve when the method is a heuristic and the
    comparison was asked for."""

    name: str
    mentions: PRF
    scores: dict
    ceaf: dict = field(default_factory=dict)
    ceaf_exact: dict = field(default_factory=dict)
    repeated: int = 0
    #: per CEAF metric where the heuristic fell short of the exact alignment: the fewest entity
    #: pairs to change to make its alignment optimal (:func:`ceaf_witness`)
    ceaf_witness: dict = field(default_factory=dict)

    @property
    def conll(self) -> float | None:
        return conll_average(self.scores)


@dataclass(frozen=True)
class CorefScores:
    """The scores of a corpus: per document, and overall as the reference aggregates them
    (counts summed over documents)."""

    documents: tuple[DocumentScores, ...]
    metrics: tuple[str, ...]
    ceaf_method: str = "exact"

    @cached_property
    def overall(self) -> dict:
        out = {}
        for m in self.metrics:
            total = Blanc() if m == "blanc" else PRF()
            for doc in self.documents:
                total = total + doc.scores[m]
            out[m] = total
        return out

    @cached_property
    def mentions(self) -> PRF:
        total = PRF()
        for doc in self.documents:
            total = total + doc.mentions
        return total

    @property
    def conll(self) -> float | None:
        return conll_average(self.overall)

    def ceaf_result(self, metric: str, exact: bool = False) -> Result | None:
        """The corpus-level solve of ``ceafm``/``ceafe`` (``exact=True``: the exact comparison
        solve, when it was made)."""
        results = [(d.ceaf_exact if exact else d.ceaf).get(metric) for d in self.documents]
        if not results or any(r is None for r in results):
            return None
        return combine_results(results, results[0].method)

    def ceaf_gap(self, metric: str) -> dict | None:
        """The heuristic against the exact alignment, or ``None`` when no comparison was made:
        ``documents``, ``documents_with_gap`` (shortfall > 1e-9), ``shortfall`` (exact minus
        heuristic objective, summed over documents), ``relative`` (over the summed exact
        objective), ``largest_gap`` and ``largest_gap_document`` (``None`` when no gap)."""
        pairs = [(d.name, d.ceaf[metric].objective, d.ceaf_exact[metric].objective)
                 for d in self.documents if metric in d.ceaf_exact]
        if not pairs:
            return None
        gaps = [(ex - h, name) for name, h, ex in pairs]
        tol = 1e-9
        largest = max(gaps)
        shortfall = float(sum(g for g, _ in gaps))
        optimum = float(sum(ex for _, _, ex in pairs))
        return {"documents": len(pairs),
                "documents_with_gap": sum(g > tol for g, _ in gaps),
                "shortfall": shortfall,
                "relative": shortfall / optimum if optimum else 0.0,
                "largest_gap": float(largest[0]) if largest[0] > tol else 0.0,
                "largest_gap_document": largest[1] if largest[0] > tol else None}


def score_document(key: Document, response: Document, metrics: Iterable[str] = METRICS, *,
                   ceaf_method: str = "exact", compare_exact: bool = False,
                   **solve_options) -> DocumentScores:
    """Every metric of ``metrics`` on one key/response document pair (options as
    :func:`score_documents`)."""
    return score_identified(identify(key, response), metrics, ceaf_method=ceaf_method,
                            compare_exact=compare_exact, **solve_options)


def score_identified(d: Identified, metrics: Iterable[str] = METRICS, *,
                     ceaf_method: str = "exact", compare_exact: bool = False,
                     **solve_options) -> DocumentScores:
    """As :func:`score_document`, on a document already through :func:`identify`."""
    metrics = _check_metrics(metrics, ceaf_method)
    scores, solves, exact, witnesses = {}, {}, {}, {}
    for m in metrics:
        if m in CEAF_PHI:
            c = ceaf(d, CEAF_PHI[m], ceaf_method, **solve_options)
            scores[m], solves[m] = c.prf, c.result
            if compare_exact and ceaf_method in CEAF_HEURISTICS:
                inst = ceaf_instance(d, CEAF_PHI[m])
                exact[m] = bipartite.solve(inst, "exact")
                best, got = exact[m].objective, c.result.objective
                if got is not None and best - got > GAP_TOL * max(1.0, best):
                    witnesses[m] = ceaf_witness(d, inst, c.result.alignment, best)
        else:
            scores[m] = _SIMPLE[m](d)
    return DocumentScores(d.name, d.mentions, scores, solves, exact, len(d.repeated),
                          witnesses)


#: A heuristic CEAF alignment is short of the optimum when it is lighter by more than this
#: (relative to ``max(1, optimum)``).
GAP_TOL = 1e-9


def ceaf_witness(d: Identified, inst: bipartite.BipartiteInstance, alignment,
                 optimum: float) -> dict:
    """The heuristic's shortfall on one document attributed to entity pairs: the optimal
    alignment nearest to ``alignment`` (:func:`exactalign.problems.bipartite.witness`) as
    ``{"remove", "add", "changes", "gain"}``, each pair ``{"key", "response"}`` given by its
    two chains' mentions (``[start, end]`` token offsets, as the chains list them)."""
    w = bipartite.witness(inst, alignment, optimum=optimum)

    def chain(c):
        return [list(d.spans[i]) for i in c.tolist()]

    def pairs(a):
        return [{"key": chain(d.key_chains[i]), "response": chain(d.response_chains[j])}
                for i, j in a.tolist()]

    return {"remove": pairs(w.remove), "add": pairs(w.add), "changes": w.changes,
            "gain": w.gain}


_SIMPLE = {"muc": muc, "bcub": b_cubed, "blanc": blanc, "lea": lea}


def _check_metrics(metrics: Iterable[str], ceaf_method: str) -> tuple[str, ...]:
    metrics = tuple(dict.fromkeys(metrics))
    for m in metrics:
        if m not in METRICS:
            raise ValueError(f"unknown coreference metric {m!r}; choose from "
                             + ", ".join(METRICS))
    if ceaf_method not in bipartite.METHODS:
        raise ValueError(f"unknown CEAF method {ceaf_method!r}; choose from "
                         + ", ".join(CEAF_METHODS))
    return metrics


def score_documents(pairs: Iterable[tuple[Document, Document]],
                    metrics: Iterable[str] = METRICS, *, ceaf_method: str = "exact",
                    compare_exact: bool = False, max_repeated: int | None = MAX_REPEATED,
                    **solve_options) -> CorefScores:
    """Score paired documents (see :func:`~exactalign.io.conll.pair_documents`).

    ``compare_exact`` also solves CEAF exactly when ``ceaf_method`` is a heuristic (for
    :meth:`CorefScores.ceaf_gap`). ``max_repeated``: raise :class:`InputError` when the
    response repeats more key mentions than this in all (the reference scorer v8.01 refuses to
    score such a response; ``None`` scores anyway)."""
    metrics = _check_metrics(metrics, ceaf_method)
    pairs = list(pairs)
    identified = [identify(k, r) for k, r in pairs]
    if max_repeated is not None:
        found = [(r, m) for (_, r), d in zip(pairs, identified, strict=True)
                 for m, _ in d.repeated]
        if len(found) > max_repeated:
            r, m = found[0]
            raise InputError(f"the response repeats {len(found)} key mentions in two clusters "
                             f"or twice in one (more than {max_repeated}), the first {m} in "
                             f"document {r.name!r}: the reference scorer v8.01 refuses to "
                             "score it", path=r.path, line=r.line)
    docs = tuple(score_identified(d, metrics, ceaf_method=ceaf_method,
                                  compare_exact=compare_exact, **solve_options)
                 for d in identified)
    return CorefScores(docs, metrics, ceaf_method)


def score_files(key_path, response_path, metrics: Iterable[str] = METRICS,
                **options) -> CorefScores:
    """Read, pair and score a key and a response CoNLL-2012 file (options as
    :func:`score_documents`)."""
    pairs = pair_documents(read_conll(key_path), read_conll(response_path))
    return score_documents(pairs, metrics, **options)


__all__ = [
    "CEAF_METHODS", "CEAF_PHI", "MAX_REPEATED", "METRICS", "Blanc", "Ceaf", "CorefScores",
    "DocumentScores", "Identified", "b_cubed", "blanc", "ceaf", "ceaf_instance",
    "conll_average", "identify", "lea", "muc", "score_document",
    "score_documents", "score_files", "score_identified",
]
