"""Coreference scored as the CorefUD scorer scores it (ufal/corefud-scorer v1.2, commit 4fd7b0e;
the official scorer of the CRAC 2022-2024 shared tasks): its mention matching -- ``head``
(default), ``partial`` or ``exact``, zeros matched ``dependent`` (default) or ``linear`` -- its
staged mention alignment, and every metric it prints: MUC, B³, CEAFe, CEAFm, BLANC, LEA, MOR
(mention overlap ratio) and the anaphor-decomposable score of zeros, with or without singletons
(``keep_singletons``), reproduced to the digit (``tests/test_corefud.py``,
``tests/test_corefud_peer.py``).

Mentions and their identity
---------------------------
A mention is a set of word positions (:mod:`exactalign.io.corefud`) with a head. Two mentions
are *the same mention* (the scorer's ``__eq__``/``__hash__``) when they have the same words --
and, under ``head`` matching, the same head too. Within an entity a repeated mention is kept once;
without ``keep_singletons`` an entity left with one mention is dropped (zeros always stay). A
mention in two entities of one side stays in both; where one entity is needed (``key_of``,
``response_of``) it is the last one, as the scorer's dict keeps it.

The staged alignment (:func:`staged_alignment`, the scorer's ``find_mention_alignment``)
---------------------------------------------------------------------------------------------
1. with ``dependent`` zero matching: key zeros and response zeros (mentions whose head is an empty
   node) are aligned by a maximum-weight assignment (``scipy.optimize.linear_sum_assignment``) on
   a *dependency score*: 0 across sentences, else ``10 F(deps) + F(parents)``, ``F(A, B)`` the
   F1 of ``|A∩B|/|A|`` and ``|A∩B|/|B|`` over the heads' enhanced dependencies (parent,
   relation) and over their parents alone; a pair of score 0 is dropped. (An empty-node head
   without DEPS makes the scorer divide by zero when it meets another zero of its sentence:
   :class:`~exactalign.InputError` here.)
2. every remaining key mention that is the same mention as a remaining response mention is
   aligned to it ("exact", under ``head`` matching also the same head);
3. the rest by a maximum-weight assignment on the *match score* (key ``k``, response ``r``,
   ``W`` the word sets): ``partial``: ``|W(k)∩W(r)|/|W(k)|`` when ``W(r) ⊆ W(k)`` and the key
   head is in ``W(r)``, else 0; ``head``: 1 for the same mention, ``|W(k)∩W(r)|/|W(k)|`` for the
   same head, else 0; ``exact``: nothing more. Pairs of score 0 are dropped.

In both assignments the rows are the key mentions and the columns the response mentions, each
sorted by (first word, last word, number of words) -- ties in the order Python iterates the
scorer's ``set`` of mentions, which this module reproduces by building the same sets, in the
same order, of stand-ins with the same hashes (:class:`_Same`) -- so scipy returns the scorer's
assignment, ties included.

Metrics on the aligned mentions
-------------------------------
An aligned key mention counts as its response mention and vice versa (the scorer's
``mention_alignment_dict``, one dict for both directions: where a zero aligned in stage 1 is also
the same mention as another response mention, the later entry wins, as there). Then MUC, B³,
CEAFe, CEAFm, BLANC and LEA are the textbook metrics computed as the scorer (``scorer/eval``)
computes them -- B³ and LEA summed cluster by cluster in its order, CEAF through scipy's
assignment of the same matrix and numpy's sum of it, so every float is the scorer's -- and:

* BLANC: coreference and non-coreference links each give a P/R/F (counts summed over documents);
  BLANC is the mean of the recalls, of the precisions and of the F1s of the kinds that have links
  in key or response (the scorer's rule, not v8.01's: a kind is left out only when it has no link
  on either side);
* MOR (mention overlap ratio, CRAC 2022): the key and response mentions matched 1:1 to maximise
  the total number of shared words (independently of the matching mode); recall
  ``overlap / Σ|W(k)|``, precision ``overlap / Σ|W(r)|`` -- solved exactly by
  :mod:`exactalign.problems.bipartite`;
* zero (anaphor-decomposable score of zeros, CRAC 2022): over key zeros that are not the first
  mention of their entity: a true positive when the aligned response mention is not first in its
  entity and its entity holds the response counterpart of an earlier key mention of the same
  entity, a *wrong link* when only the first holds, a false negative otherwise; every response zero
  that is neither first nor counterpart of a key anaphor is a false positive. Recall
  ``tp / (tp + fn + wl)``, precision ``tp / (tp + fp + wl)``.

The CoNLL score is the mean of the MUC, B³ and CEAFe F1s. Corpus scores sum each metric's counts
over documents (BLANC: per kind).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from ...core.errors import InputError
from ...io.corefud import Document, Mention, pair_corefud, read_corefud
from ..aggregation import PRF

#: Mention matching modes (the scorer's ``-a``), zero matching methods (``-z``) and metrics
#: (``-m all``, in its order).
MATCHES = ("head", "partial", "exact")
ZERO_MATCHES = ("dependent", "linear")
METRICS = ("muc", "bcub", "ceafe", "ceafm", "blanc", "lea", "mor", "zero")


class _Same:
    """A stand-in for one of the scorer's mention objects in a ``set``: equal when the mentions
    are the same, hashed as the scorer hashes it -- so that sets of them iterate in the
    scorer's order."""

    __slots__ = ("id", "_hash")

    def __init__(self, ident: int, h: int):
        self.id, self._hash = ident, h

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other) -> bool:
        return self.id == other.id


@dataclass
class Prepared:
    """One document, key and response, as the scorer holds it before aligning: mentions by id
    (the same id for the same mention on both sides), each side's clusters as lists of ids,
    and per occurrence whether it is a zero. ``key_rep[i]``/``response_rep[i]`` is the first
    occurrence of mention ``i`` on that side (what the scorer's sets hold)."""

    name: str
    words: list[tuple]                    # id -> sorted word positions
    key_clusters: list[list[int]]
    response_clusters: list[list[int]]
    key_zero: list[list[bool]]
    response_zero: list[list[bool]]
    key_rep: dict[int, Mention]
    response_rep: dict[int, Mention]
    hashes: list[int]
    key_path: str = ""
    response_path: str = ""

    @property
    def key_of(self) -> dict[int, int]:
        return _last_cluster(self.key_clusters)

    @property
    def response_of(self) -> dict[int, int]:
        return _last_cluster(self.response_clusters)


def _last_cluster(clusters) -> dict[int, int]:
    out = {}
    for ci, c in enumerate(clusters):
        for m in c:
            out[m] = ci
    return out


def prepare(key: Document, response: Document, match: str = "head",
            keep_singletons: bool = False) -> Prepared:
    """The scorer's clusters of one document pair (module docstring: identity, repeated
    mentions, singletons)."""
    if match not in MATCHES:
        raise ValueError(f"unknown matching {match!r}; choose from " + ", ".join(MATCHES))
    ids: dict[tuple, int] = {}
    words: list[tuple] = []
    hashes: list[int] = []

    def side(doc: Document):
        clusters, zeros, rep = [], [], {}
        for entity in doc.entities:
            c, kept = [], []
            for m in entity.mentions:
                ident = (m.words, m.head) if match == "head" else m.words
                i = ids.get(ident)
                if i is None:
                    i = ids[ident] = len(words)
                    words.append(m.words)
                    ws = frozenset(m.words)
                    hashes.append(hash((ws, frozenset((m.head,)))) if match == "head"
                                  else hash(ws))
                if i not in c:
                    c.append(i)
                    kept.append(m)
            if len(c) == 1 and not keep_singletons:
                continue
            clusters.append(c)
            zeros.append([m.zero for m in kept])
            for i, m in zip(c, kept, strict=True):
                rep.setdefault(i, m)
        return clusters, zeros, rep

    kc, kz, krep = side(key)
    rc, rz, rrep = side(response)
    return Prepared(key.name, words, kc, rc, kz, rz, krep, rrep, hashes, key.path,
                    response.path)


# ------------------------------------------------------------------------------------------------
# the staged alignment
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Alignment:
    """The scorer's mention alignment of one document: ``(key id, response id)`` pairs, in its
    order (exact, then by match score, then zeros), and how many each stage made."""

    pairs: tuple[tuple[int, int], ...]
    zeros: int = 0
    exact: int = 0
    scored: int = 0

    def mapping(self) -> dict[int, int]:
        """The scorer's ``mention_alignment_dict``: for every pair of two different mentions,
        key -> response, then response -> key (a later entry overwrites an earlier one)."""
        out: dict[int, int] = {}
        for k, r in self.pairs:
            if k != r:
                out[k] = r
        for k, r in self.pairs:
            if k != r:
                out[r] = k
        return out


def _order(p: Prepared, i: int) -> tuple:
    """The scorer's mention order (``Mention.__lt__``): first word, last word, size."""
    w = p.words[i]
    return (w[0], w[-1], len(w))


class _NoDeps(Exception):
    """A zero without DEPS met another zero of its sentence (the scorer divides by zero)."""


def _f(a: set, b: set) -> float:
    if not a or not b:
        raise _NoDeps
    common = a & b
    p = len(common) / len(a)
    r = len(common) / len(b)
    if p > 0 and r > 0:
        return 2 * p * r / (p + r)
    return 0


def zero_score(k: Mention, r: Mention) -> float:
    """The dependency score of key zero ``k`` and response zero ``r`` (module docstring)."""
    if k.head[0] != r.head[0]:
        return 0.0
    score = 0.0
    score += 10 * _f(set(k.head_deps), set(r.head_deps))
    score += _f({d for d, _ in k.head_deps}, {d for d, _ in r.head_deps})
    return score


def match_score(k: Mention, r: Mention, match: str) -> float:
    """The match score of key mention ``k`` and response mention ``r`` (module docstring);
    0 means they may not be aligned."""
    if match == "partial":
        kw, rw = set(k.words), set(r.words)
        if k.head in rw and rw <= kw:
            return len(kw & rw) * 1.0 / len(kw)
        return 0.0
    if match == "head":
        if k.words == r.words and k.head == r.head:
            return 1.0
        if k.head == r.head:
            kw = set(k.words)
            return len(kw & set(r.words)) * 1.0 / len(kw)
        return 0.0
    return 1.0 if k.words == r.words else 0.0


def _assign(p: Prepared, keys: set, responses: set, score) -> list[tuple[int, int]]:
    from scipy.optimize import linear_sum_assignment

    rows = sorted(keys, key=lambda o: _order(p, o.id))
    cols = sorted(responses, key=lambda o: _order(p, o.id))
    sim = np.zeros((len(rows), len(cols)))
    for i, k in enumerate(rows):
        km = p.key_rep[k.id]
        for j, r in enumerate(cols):
            sim[i, j] = score(km, p.response_rep[r.id])
    ri, ci = linear_sum_assignment(-sim)
    return [(rows[i].id, cols[j].id) for i, j in zip(ri, ci, strict=True) if sim[i, j] > 0]


def _no_deps_error(p: Prepared, kz: set, rz: set) -> InputError:
    sides = [(p.key_rep[m.id], p.key_path, rz, p.response_rep) for m in kz] + \
        [(p.response_rep[m.id], p.response_path, kz, p.key_rep) for m in rz]
    for zero, path, others, rep in sides:
        if not zero.head_deps and any(rep[o.id].head[0] == zero.head[0] for o in others):
            return InputError("a zero mention whose empty node has no enhanced dependencies "
                              "(DEPS is _) shares its sentence with a zero of the other file: "
                              "the CorefUD scorer's dependent zero matching divides by zero "
                              "here (it fails); use the linear zero matching",
                              path=path or None, line=zero.line)
    return InputError("zero mentions without DEPS: the CorefUD scorer's dependent zero "
                      "matching fails here")  # pragma: no cover


def staged_alignment(p: Prepared, match: str = "head",
                     zero_match: str = "dependent") -> Alignment:
    """The CorefUD scorer's mention alignment (``find_mention_alignment``) of one prepared
    document -- the heuristic (module docstring)."""
    if zero_match not in ZERO_MATCHES:
        raise ValueError(f"unknown zero matching {zero_match!r}; choose from "
                         + ", ".join(ZERO_MATCHES))
    key_set = {_Same(i, p.hashes[i]) for c in p.key_clusters for i in c}
    resp_set = {_Same(i, p.hashes[i]) for c in p.response_clusters for i in c}
    key_left, resp_left = key_set.copy(), resp_set.copy()
    zero_pairs: list[tuple[int, int]] = []
    if zero_match == "dependent":
        kz = {m for m in key_set if p.key_rep[m.id].zero}
        rz = {m for m in resp_set if p.response_rep[m.id].zero}
        if kz and rz:
            try:
                zero_pairs = _assign(p, kz, rz, zero_score)
            except _NoDeps:
                raise _no_deps_error(p, kz, rz) from None
            key_left = key_left - {_Same(k, p.hashes[k]) for k, _ in zero_pairs}
            resp_left = resp_left - {_Same(r, p.hashes[r]) for _, r in zero_pairs}
    exact_k = {m: m for m in key_left if m in resp_left}
    exact_r = {m: m for m in resp_left if m in key_left}
    exact_pairs = [(m.id, m.id) for m in exact_k]
    key_left = key_left - set(exact_k.values())
    resp_left = resp_left - set(exact_r.values())
    key_left = {m for m in key_left}      # the scorer rebuilds both (split antecedents out)
    resp_left = {m for m in resp_left}
    scored: list[tuple[int, int]] = []
    if key_left and resp_left and match != "exact":
        scored = _assign(p, key_left, resp_left,
                         lambda k, r: match_score(k, r, match))
    return Alignment(tuple(exact_pairs + scored + zero_pairs), len(zero_pairs),
                     len(exact_pairs), len(scored))


def allowed_pairs(p: Prepared, match: str = "head", zero_match: str = "dependent"
                  ) -> list[tuple[int, int, int, float]]:
    """Every key/response pair the matching allows -- what an alignment may pair, the staged
    one or the metric-optimal one (:mod:`exactalign.metrics.coref.corefud_exact`) -- as
    ``(key id, response id, stage, weight)``: stage 0, two zeros of one sentence with a
    positive dependency score (``dependent`` zero matching; the score as weight); stage 1, the
    same mention on both sides (weight 1); stage 2, a positive match score (the score). The
    stages are those of :func:`staged_alignment`; a pair is listed once, at its first stage."""
    if zero_match not in ZERO_MATCHES:
        raise ValueError(f"unknown zero matching {zero_match!r}; choose from "
                         + ", ".join(ZERO_MATCHES))
    keys = list(dict.fromkeys(i for c in p.key_clusters for i in c))
    resps = list(dict.fromkeys(i for c in p.response_clusters for i in c))
    by_sentence: dict = defaultdict(list)
    for r in resps:
        by_sentence[p.response_rep[r].head[0]].append(r)
    out = []
    for k in keys:
        km = p.key_rep[k]
        for r in by_sentence.get(km.head[0], ()):
            rm = p.response_rep[r]
            if zero_match == "dependent" and km.zero and rm.zero:
                try:
                    z = zero_score(km, rm)
                except _NoDeps:
                    kz = {_Same(i, p.hashes[i]) for i in keys if p.key_rep[i].zero}
                    rz = {_Same(i, p.hashes[i]) for i in resps if p.response_rep[i].zero}
                    raise _no_deps_error(p, kz, rz) from None
                if z > 0:
                    out.append((k, r, 0, float(z)))
                    continue
            if k == r:
                out.append((k, r, 1, 1.0))
            elif match != "exact":
                s = match_score(km, rm, match)
                if s > 0:
                    out.append((k, r, 2, float(s)))
    return out


# ------------------------------------------------------------------------------------------------
# metrics
# ------------------------------------------------------------------------------------------------
def _groups(clusters, mapping, other_of):
    """Per cluster, ``{other cluster: how many of its mentions, mapped through the alignment,
    have it as theirs}`` (insertion order: first met), and how many have none."""
    out = []
    for c in clusters:
        g: dict[int, int] = {}
        missing = 0
        for m in c:
            m = mapping.get(m, m)
            if m in other_of:
                o = other_of[m]
                g[o] = g.get(o, 0) + 1
            else:
                missing += 1
        out.append((g, missing))
    return out


def _muc_side(clusters, groups) -> tuple[int, int]:
    tp = links = 0
    for c, (g, missing) in zip(clusters, groups, strict=True):
        links += len(c) - 1
        tp += len(c) - missing - len(g)
    return tp, links


def _bcub_side(clusters, groups) -> tuple[float, int]:
    num, den = 0, 0
    for c, (g, _) in zip(clusters, groups, strict=True):
        correct = 0
        for n in g.values():
            correct += float(n) * float(n)
        num += correct / float(len(c))
        den += len(c)
    return num, den


def _lea_side(clusters, groups, other_clusters) -> tuple[float, int]:
    num, den = 0, 0
    for c, (g, _) in zip(clusters, groups, strict=True):
        if len(c) == 1:
            all_links = 1
            common = 1 if g and len(other_clusters[next(iter(g))]) == 1 else 0
        else:
            all_links = len(c) * (len(c) - 1) / 2.0
            common = 0.0
            for n in g.values():
                common += float(n * (n - 1) // 2)
        num += len(c) * common / float(all_links)
        den += len(c)
    return num, den


def _ceaf(p: Prepared, mapping, entity: bool) -> tuple[float, float, float, float]:
    from scipy.optimize import linear_sum_assignment

    K, R = p.key_clusters, p.response_clusters
    scores = np.zeros((len(K), len(R)))
    col_of: dict[int, list[int]] = defaultdict(list)
    for j, c in enumerate(R):
        for m in set(c):
            col_of[m].append(j)
    for i, c in enumerate(K):
        overlap: dict[int, int] = {}
        for m in c:
            for j in col_of.get(mapping.get(m, m), ()):
                overlap[j] = overlap.get(j, 0) + 1
        for j, ov in overlap.items():
            scores[i, j] = 2 * ov / float(len(c) + len(R[j])) if entity else ov
    ri, ci = linear_sum_assignment(-scores)
    sim = scores[ri, ci].sum()
    if entity:
        return sim, len(R), sim, len(K)
    return sim, sum(len(c) for c in R), sim, sum(len(c) for c in K)


def _blanc(p: Prepared, key_groups) -> tuple[tuple, tuple]:
    K, R = p.key_clusters, p.response_clusters
    coref = 0
    a, by_other, sq_other = [], defaultdict(int), defaultdict(int)
    for g, _ in key_groups:
        ak = 0
        for o, n in g.items():
            coref += n * (n - 1) // 2
            ak += n
            by_other[o] += n
            sq_other[o] += n * n
        a.append(ak)
    total = (sum(a) ** 2 - sum(x * x for x in a)) // 2
    same = sum((by_other[o] ** 2 - sq_other[o]) // 2 for o in by_other)
    noncoref = total - same
    rd_c = sum([len(c) * (len(c) - 1) / 2 for c in K])
    pd_c = sum([len(c) * (len(c) - 1) / 2 for c in R])
    nk = sum([len(c) for c in K])
    nr = sum([len(c) for c in R])
    rd_n = nk * (nk - 1) / 2 - rd_c
    pd_n = nr * (nr - 1) / 2 - pd_c
    return (coref, pd_c, coref, rd_c), (noncoref, pd_n, noncoref, rd_n)


def _mor(p: Prepared, solves: dict | None = None) -> tuple[float, float, float, float]:
    from ...problems import bipartite

    keys = [p.words[m] for c in p.key_clusters for m in c]
    resps = [p.words[m] for c in p.response_clusters for m in c]
    by_word: dict = defaultdict(list)
    for j, w in enumerate(resps):
        for x in w:
            by_word[x].append(j)
    rows, cols, ws = [], [], []
    for i, w in enumerate(keys):
        ov: dict[int, int] = {}
        for x in w:
            for j in by_word.get(x, ()):
                ov[j] = ov.get(j, 0) + 1
        for j, n in sorted(ov.items()):
            rows.append(i)
            cols.append(j)
            ws.append(float(n))
    overlap = 0.0
    if ws:
        inst = bipartite.BipartiteInstance(len(keys), len(resps), np.array(rows, dtype=np.int64),
                                           np.array(cols, dtype=np.int64), np.array(ws), "1:1")
        res = bipartite.solve(inst, "exact")
        overlap = float(res.objective)
        if solves is not None:
            solves["mor"] = res
    return (overlap, float(sum(len(w) for w in resps)), overlap,
            float(sum(len(w) for w in keys)))


def _zero(p: Prepared, mapping, response_of) -> tuple[int, int, int, int]:
    def ordered(clusters, zeros):
        return [sorted(zip(c, z, strict=True), key=lambda t: _order(p, t[0]))
                for c, z in zip(clusters, zeros, strict=True)]

    K = ordered(p.key_clusters, p.key_zero)
    R = ordered(p.response_clusters, p.response_zero)
    firsts = {c[0][0] for c in R if c}
    tp = fp = fn = wl = 0
    covered = set()
    for c in K:
        prev = set()
        for i, (k, zero) in enumerate(c):
            r = cid = None
            if k in response_of:
                r = k
            elif k in mapping:
                r = mapping[k]
            if r is not None:
                if r not in response_of:
                    raise InputError(f"document {p.name!r}: a key mention aligned with a zero "
                                     "is also the same mention as another response mention; "
                                     "the CorefUD scorer fails on it (KeyError)")
                cid = response_of[r]
            if i and zero:
                if r is None or r in firsts:
                    fn += 1
                elif cid not in prev:
                    wl += 1
                else:
                    tp += 1
                if r is not None:
                    covered.add(r)
            if cid is not None:
                prev.add(cid)
    for c in R:
        for r, zero in c:
            if r not in firsts and r not in covered and zero:
                fp += 1
    return tp, tp + fp + wl, tp, tp + fn + wl


def document_counts(p: Prepared, alignment: Alignment, metrics: Iterable[str] = METRICS,
                    solves: dict | None = None) -> dict[str, tuple]:
    """Each metric's ``(precision num, precision den, recall num, recall den)`` of one document
    under ``alignment`` (BLANC: a pair of them, coreference and non-coreference links), as the
    scorer's evaluator computes them; ``solves`` (a dict) receives MOR's certified solve under
    ``"mor"`` when there was one to make."""
    mapping = alignment.mapping()
    key_of, resp_of = p.key_of, p.response_of
    kg = _groups(p.key_clusters, mapping, resp_of)
    rg = _groups(p.response_clusters, mapping, key_of)
    out = {}
    for m in metrics:
        if m == "muc":
            pn, pd = _muc_side(p.response_clusters, rg)
            rn, rd = _muc_side(p.key_clusters, kg)
            out[m] = (pn, pd, rn, rd)
        elif m == "bcub":
            out[m] = _bcub_side(p.response_clusters, rg) + _bcub_side(p.key_clusters, kg)
        elif m == "lea":
            out[m] = (_lea_side(p.response_clusters, rg, p.key_clusters)
                      + _lea_side(p.key_clusters, kg, p.response_clusters))
        elif m in ("ceafe", "ceafm"):
            out[m] = _ceaf(p, mapping, m == "ceafe")
        elif m == "blanc":
            out[m] = _blanc(p, kg)
        elif m == "mor":
            out[m] = _mor(p, solves)
        elif m == "zero":
            out[m] = _zero(p, mapping, resp_of)
        else:
            raise ValueError(f"unknown metric {m!r}; choose from " + ", ".join(METRICS))
    return out


# ------------------------------------------------------------------------------------------------
# corpora
# ------------------------------------------------------------------------------------------------
def _prf(counts) -> PRF:
    pn, pd, rn, rd = counts
    return PRF(rn, rd, pn, pd)


@dataclass(frozen=True)
class BlancUD:
    """BLANC as the CorefUD scorer combines its two kinds: the mean recall, precision and F1 of
    the kinds with a link in key or response."""

    coref: PRF = field(default_factory=PRF)
    noncoref: PRF = field(default_factory=PRF)

    def _parts(self):
        return [x for x in (self.coref, self.noncoref)
                if not (x.precision_den == 0 and x.recall_den == 0)]

    def _mean(self, attr):
        parts = self._parts()
        if not parts:
            return 0
        total = 0
        for x in parts:
            total += getattr(x, attr)
        return total / len(parts)

    @property
    def recall(self) -> float:
        return self._mean("recall")

    @property
    def precision(self) -> float:
        return self._mean("precision")

    @property
    def f1(self) -> float:
        return self._mean("f1")


@dataclass(frozen=True)
class DocumentResult:
    """One document: each metric's counts (:func:`document_counts`), the staged alignment, the
    numbers of key and response mentions the metrics see, and the solves made (MOR's)."""

    name: str
    counts: dict
    alignment: Alignment
    key_mentions: int
    response_mentions: int
    solves: dict = field(default_factory=dict)

    def scores(self) -> dict:
        """Metric -> :class:`PRF` (BLANC: :class:`BlancUD`) of this document alone."""
        return _scores({m: [c] for m, c in self.counts.items()})


def _scores(counts: dict) -> dict:
    out = {}
    for m, cs in counts.items():
        if m == "blanc":
            sums = [[0, 0, 0, 0], [0, 0, 0, 0]]
            for c in cs:
                for kind in (0, 1):
                    for x in range(4):
                        sums[kind][x] += c[kind][x]
            out[m] = BlancUD(_prf(sums[0]), _prf(sums[1]))
        else:
            s = [0, 0, 0, 0]
            for c in cs:
                for x in range(4):
                    s[x] += c[x]
            out[m] = _prf(s)
    return out


@dataclass(frozen=True)
class CorefUDScores:
    """A corpus scored as the CorefUD scorer scores it: per document the counts and the
    alignment, and :attr:`overall` (counts summed over documents, in document order)."""

    documents: tuple[DocumentResult, ...]
    metrics: tuple[str, ...]
    match: str
    zero_match: str
    keep_singletons: bool
    warnings: tuple[str, ...] = ()

    @property
    def overall(self) -> dict:
        """Metric -> :class:`PRF` (BLANC: :class:`BlancUD`), the counts summed over documents
        in document order (the scorer's ``Evaluator``)."""
        return _scores({m: [d.counts[m] for d in self.documents] for m in self.metrics})

    @property
    def conll(self) -> float | None:
        o = self.overall
        if not all(m in o for m in ("muc", "bcub", "ceafe")):
            return None
        total = 0
        for m in ("muc", "bcub", "ceafe"):
            total += o[m].f1
        return total / 3

    def printed(self) -> dict[str, tuple[str, str, str]]:
        """Each metric's recall, precision and F1 as the scorer prints them (``%.2f`` of the
        percentage), and ``conll``'s CoNLL score."""
        out = {}
        for m, s in self.overall.items():
            out[m] = tuple("%.2f" % (v * 100) for v in (s.recall, s.precision, s.f1))
        if self.conll is not None:
            out["conll"] = ("%.2f" % (self.conll * 100),)
        return out


def score_documents(pairs, metrics: Iterable[str] = METRICS, *, match: str = "head",
                    zero_match: str = "dependent", keep_singletons: bool = False,
                    warnings: tuple[str, ...] = ()) -> CorefUDScores:
    """Score paired CorefUD documents (:func:`~exactalign.io.corefud.pair_corefud`) with the
    scorer's staged alignment."""
    metrics = tuple(m for m in METRICS if m in set(metrics))
    docs = []
    for k, r in pairs:
        p = prepare(k, r, match, keep_singletons)
        a = staged_alignment(p, match, zero_match)
        solves: dict = {}
        docs.append(DocumentResult(p.name, document_counts(p, a, metrics, solves), a,
                                   sum(len(c) for c in p.key_clusters),
                                   sum(len(c) for c in p.response_clusters), solves))
    return CorefUDScores(tuple(docs), metrics, match, zero_match, keep_singletons, warnings)


def score_files(key_path, response_path, metrics: Iterable[str] = METRICS,
                **options) -> CorefUDScores:
    """Read, pair and score a key and a response CorefUD file (options as
    :func:`score_documents`)."""
    key = read_corefud(key_path)
    response = read_corefud(response_path)
    pairs = pair_corefud(key, response)
    warnings = tuple(f"{key.path}: {w}" for w in key.warnings) + tuple(
        f"{response.path}: {w}" for w in response.warnings)
    return score_documents(pairs, metrics, warnings=warnings, **options)
