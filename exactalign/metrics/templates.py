"""Template-filling metrics on the GTT format: GTT template F1, CEAF-REE, CEAF-RME; greedy/exact.

GTT template F1 (``eval.py`` of Du, Rush & Cardie 2021, ``xinyadu/gtt`` @d829ed8)
---------------------------------------------------------------------------------
Per document, predicted templates are mapped to gold templates (each at most once). A pair
``(gold i, predicted j)`` counts only when the predicted incident type is a *substring* of the
gold one (``"attack" in "attack / bombing"``; GTT's test ``pred_type in gold_type``); a mapped pair
earns one precision and one recall point for the incident type, plus

* precision: each predicted entity of a role that is a subset (as a set of normalised mention
  strings) of *some* gold entity of the same role in gold template ``i``;
* recall: each gold entity of which *some* predicted entity of the role is a subset.

Entities are not matched 1:1 (two predicted entities may both be subsets of one gold entity and
both score). Denominators do not depend on the mapping: ``p_den`` = Σ over predicted templates of
1 + their entities, ``r_den`` likewise over gold templates. GTT enumerates every mapping
(``itertools.product``) and keeps the first with the largest *document* F1 (strict ``>``); the
documents' counts are then summed (micro average). Methods here:

``gtt``     that exhaustive search, in GTT's order and with its tie-breaking (the reference the
            published numbers come from; refused above :data:`GTT_MAX_MAPPINGS` mappings);
``greedy``  global greedy on the pair weight ``p_num + r_num`` (the TAC KBP heap order of
            :func:`exactalign.problems.bipartite.greedy`);
``exact``   the mapping of maximum document F1, proven. With fixed denominators F1 is an
            increasing function of the two counts ``(P, R)``; for each recall level ``r`` from the
            largest reachable one down, an ILP (assignment + one row ``R ≥ r``, through the core)
            gives the largest ``P``; the best F1 over these points is the optimum, and the loop
            stops once even the unconstrained largest ``P`` cannot beat it at level ``r``.

Exact and ``gtt`` agree on every document's F1; they may pick different mappings of equal F1 and
then different counts, so the corpus numbers may differ slightly (reported, not hidden).

CEAF-REE (``eval.py`` of GRIT, Du, Cardie & Rush 2021, ``xinyadu/grit_doc_event_entity``)
------------------------------------------------------------------------------------------
Role-filler entity extraction has no templates: per document and role, gold and predicted
entities are aligned 1:1 maximising Σ φ (GRIT: ``linear_sum_assignment``); precision = Σφ / #pred,
recall = Σφ / #gold, micro over documents and roles. ``φ_strict(g, p)`` = 1 if ``p ⊆ g`` else 0;
``φ_prop(g, p)`` = |{m ∈ g : m ∈ p}| / |p| (GRIT's order of arguments and counting). Alignments:
``exact`` (assignment, certified) and ``greedy`` (best remaining pair first).

CEAF-RME (IterX, Chen et al. 2023, ``wanmok/iterx`` @65fd64c, ``ceaf_rme.py``, φ_subset)
--------------------------------------------------------------------------------------
Templates are the "clusters", entities their "mentions"; a mention carries its template's
incident type and its role, so entities only match within the same type and role. For a
(gold, predicted) template pair, ``φ_subset`` counts the predicted entities having a mention in
some gold entity (precision side) and the distinct gold entities hit -- for each predicted
entity, the first gold entity containing its first matching mention (recall side): the entity
matching is *one-sided* (several predicted entities may hit one gold entity). Denominators: all
predicted and all gold entities. Alignments:

``iterx``   IterX's: ``linear_sum_assignment`` on the precision-side scores (predicted templates
            without entities left out), recall summed along that alignment. A gold template of
            type ``"a / b"`` is split into one copy per label, the copy with the largest
            precision-side row sum kept (first on ties), and the assignment redone;
``greedy``  global greedy on ``p + r`` (:func:`exactalign.problems.bipartite.greedy`), a
            gold template of type ``"a / b"`` compatible with both labels;
``exact``   the alignment of maximum document F1 (as for the GTT F1), same compatibility.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment

from ..core.errors import InfeasibleAlignmentError, InputError, ModelTooLargeError
from ..core.model import binary_model
from ..core.result import Status, worst_status
from ..core.solve import solve_model, verified_result
from ..io.gtt import ROLES, Template
from ..problems import bipartite
from .aggregation import PRF

#: The ``gtt`` method refuses documents with more mappings than this.
GTT_MAX_MAPPINGS = 5_000_000

GTT_METHODS = ("gtt", "greedy", "exact")
CEAF_METHODS = ("exact", "greedy")


# --------------------------------------------------------------------------------------------
# GTT template F1
# --------------------------------------------------------------------------------------------
def _subset(pred: tuple, gold: tuple) -> bool:
    return all(m in gold for m in pred)


def _compatible(gold: Template, pred: Template) -> bool:
    """GTT's incident-type test: the predicted type is a substring of the gold type."""
    return pred.incident_type in gold.incident_type


def _pair_counts(gold: Template, pred: Template) -> tuple[int, int]:
    """(precision points, recall points) of mapping ``pred`` to ``gold`` (incident type incl.)."""
    p = r = 1
    for g_ents, p_ents in zip(gold.slots, pred.slots, strict=True):
        hit = np.array([[_subset(pe, ge) for pe in p_ents] for ge in g_ents], dtype=bool)
        if hit.size:
            p += int(hit.any(axis=0).sum())
            r += int(hit.any(axis=1).sum())
    return p, r


@dataclass(frozen=True, eq=False)
class PairTable:
    """A document's template-alignment data: candidate ``pairs`` (gold, predicted) with the
    precision and recall points each earns when mapped; fixed denominators."""

    n_gold: int
    n_pred: int
    pairs: np.ndarray
    p_num: np.ndarray
    r_num: np.ndarray
    p_den: float
    r_den: float

    def counts(self, alignment) -> PRF:
        """The PRF counts of ``alignment`` (rows index :attr:`pairs` by value), checked 1:1."""
        a = np.asarray(alignment, dtype=np.int64).reshape(-1, 2)
        idx = self.index(a)
        return PRF(float(self.r_num[idx].sum()), self.r_den, float(self.p_num[idx].sum()),
                   self.p_den)

    def index(self, alignment: np.ndarray) -> np.ndarray:
        """Positions of the alignment's pairs in :attr:`pairs`; raises on a non-candidate or a
        template used twice."""
        key = {(int(g), int(p)): k for k, (g, p) in enumerate(self.pairs)}
        idx = []
        for g, p in alignment.tolist():
            if (g, p) not in key:
                raise InfeasibleAlignmentError(f"pair (gold {g}, predicted {p}) may not be "
                                               "mapped")
            idx.append(key[(g, p)])
        if len(set(alignment[:, 0].tolist())) < len(alignment) or \
                len(set(alignment[:, 1].tolist())) < len(alignment):
            raise InfeasibleAlignmentError("a template is mapped twice")
        return np.array(idx, dtype=np.int64)


def gtt_pair_table(gold: list[Template], pred: list[Template]) -> PairTable:
    """The :class:`PairTable` of a document under the GTT template F1."""
    pairs, pn, rn = [], [], []
    for i, g in enumerate(gold):
        for j, p in enumerate(pred):
            if _compatible(g, p):
                a, b = _pair_counts(g, p)
                pairs.append((i, j))
                pn.append(a)
                rn.append(b)
    return PairTable(len(gold), len(pred), np.array(pairs, dtype=np.int64).reshape(-1, 2),
                     np.array(pn, dtype=np.float64), np.array(rn, dtype=np.float64),
                     float(sum(1 + t.num_entities for t in pred)),
                     float(sum(1 + t.num_entities for t in gold)))


def gtt_f1(p_num, p_den, r_num, r_den):
    """GTT's ``f1`` (β = 1) with its operation order, so that ties are the same floats;
    vectorised over numpy arrays of numerators."""
    p = np.where(p_num == 0, 0.0, p_num / p_den) if p_den else np.zeros_like(p_num, float)
    r = np.where(r_num == 0, 0.0, r_num / r_den) if r_den else np.zeros_like(r_num, float)
    s = p + r
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(s == 0, 0.0, 2.0 * p * r / np.where(s == 0, 1.0, s))


def align_gtt_search(t: PairTable) -> np.ndarray:
    """GTT's exhaustive search: every map predicted -> gold ∪ {-1} in ``itertools.product``
    order, invalid (non-injective) ones skipped, the first of largest document F1 kept."""
    K, G = t.n_pred, t.n_gold
    if K == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if (G + 1) ** K > GTT_MAX_MAPPINGS:
        raise ModelTooLargeError(f"GTT's search would enumerate {(G + 1) ** K} mappings "
                                 f"(> {GTT_MAX_MAPPINGS}); use the exact method")
    maps = np.indices((G + 1,) * K, dtype=np.int32).reshape(K, -1).T  # value G means -1
    valid = np.ones(len(maps), dtype=bool)
    for g in range(G):
        valid &= (maps == g).sum(axis=1) <= 1
    maps = maps[valid]
    P = np.zeros((G + 1, K))
    R = np.zeros((G + 1, K))
    P[t.pairs[:, 0], t.pairs[:, 1]] = t.p_num
    R[t.pairs[:, 0], t.pairs[:, 1]] = t.r_num
    cols = np.arange(K)
    pn = P[maps, cols].sum(axis=1)
    rn = R[maps, cols].sum(axis=1)
    best = maps[int(np.argmax(gtt_f1(pn, t.p_den, rn, t.r_den)))]
    al = [(int(best[j]), j) for j in range(K) if best[j] < G and P[best[j], j] > 0]
    return _sorted(al)


def _sorted(pairs) -> np.ndarray:
    return np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)


def _instance(t: PairTable, weights: np.ndarray) -> bipartite.BipartiteInstance:
    return bipartite.BipartiteInstance.from_pairs(t.pairs, weights, t.n_gold, t.n_pred)


def align_greedy(t: PairTable) -> np.ndarray:
    """Global greedy on ``p_num + r_num`` (TAC KBP heap order, :func:`bipartite.greedy`)."""
    return bipartite.greedy(_instance(t, t.p_num + t.r_num))


def _max_p_given_r(t: PairTable, r_min: float, backend: str):
    """Max Σ p_num·x over 1:1 maps with Σ r_num·x ≥ r_min, an ILP through the core (solved,
    re-checked and its optimality verified by :func:`verified_result`): (alignment, proven)."""
    E = len(t.pairs)
    rows = np.concatenate([t.pairs[:, 0], t.n_gold + t.pairs[:, 1],
                           np.full(E, t.n_gold + t.n_pred)])
    cols = np.concatenate([np.arange(E)] * 3)
    vals = np.concatenate([np.ones(2 * E), t.r_num])
    n_rows = t.n_gold + t.n_pred + 1
    A = sp.csr_array((vals, (rows, cols)), shape=(n_rows, E))
    lo = np.full(n_rows, -np.inf)
    hi = np.ones(n_rows)
    lo[-1], hi[-1] = r_min, np.inf
    model = binary_model(t.p_num, A, lo, hi, name="max P s.t. R >= r")

    def decode(x):
        return _sorted(map(tuple, t.pairs[np.flatnonzero(x > 0.5)].tolist()))

    def check(al):
        c = t.counts(al)
        if c.recall_num < r_min - 1e-9:
            raise InfeasibleAlignmentError(f"recall points {c.recall_num} < {r_min}")
        return c.precision_num

    res = verified_result(solve_model(model, backend), model, decode=decode, check=check,
                          method="ilp", seed=0)
    return res.alignment, res.proven_optimal


def align_exact_f1(t: PairTable, backend: str = "highs") -> tuple[np.ndarray, Status, float]:
    """The mapping of maximum GTT document F1 with its proof status and an upper bound on F1."""
    if len(t.pairs) == 0:
        return np.zeros((0, 2), dtype=np.int64), Status.OPTIMAL, _f1_of(t.counts([]))
    p_max = bipartite.solve(_instance(t, t.p_num), "exact").objective
    r_best = bipartite.solve(_instance(t, t.r_num), "exact")
    best_al = r_best.alignment
    best = _f1_of(t.counts(best_al))
    proven = True
    for r in range(int(round(r_best.objective)), -1, -1):
        if _f1_of(PRF(r, t.r_den, p_max, t.p_den)) <= best + 1e-12:
            break
        al, ok = _max_p_given_r(t, r, backend)
        proven &= ok
        if al is not None:
            f = _f1_of(t.counts(al))
            if f > best + 1e-12:
                best, best_al = f, al
    status = Status.OPTIMAL if proven else Status.FEASIBLE
    return best_al, status, best if proven else 1.0


def _f1_of(c: PRF) -> float:
    return float(gtt_f1(np.float64(c.precision_num), c.precision_den,
                        np.float64(c.recall_num), c.recall_den))


@dataclass(frozen=True)
class DocScore:
    """One document under one alignment method."""

    docid: str
    alignment: np.ndarray
    counts: PRF
    f1: float
    status: Status
    bound: float | None

    @property
    def n_pairs(self) -> int:
        return len(self.alignment)


@dataclass(frozen=True)
class CorpusScore:
    """Summed counts of every document (micro average) under one method, with the documents."""

    method: str
    overall: PRF
    docs: tuple[DocScore, ...]
    status: Status
    wall_time: float

    def to_dict(self) -> dict:
        return {"method": self.method, "status": self.status.value,
                "overall": self.overall.to_dict(), "wall_time": self.wall_time,
                "documents": len(self.docs)}


def align_doc(t: PairTable, method: str, backend: str = "highs"):
    """``(alignment, status, bound on document F1)`` of ``method`` on one document."""
    if method == "gtt":
        return align_gtt_search(t), Status.FEASIBLE, None
    if method == "greedy":
        return align_greedy(t), Status.FEASIBLE, None
    if method == "exact":
        return align_exact_f1(t, backend)
    raise ValueError(f"unknown GTT alignment method {method!r}; choose one of "
                     + ", ".join(GTT_METHODS))


def score_gtt(gold: dict[str, list[Template]], pred: dict[str, list[Template]],
              method: str = "gtt", *, backend: str = "highs", docids=None) -> CorpusScore:
    """GTT template F1 over the gold documents (a document without predictions has none)."""
    t0 = time.perf_counter()
    docs, total = [], PRF()
    for docid in (docids if docids is not None else gold):
        table = gtt_pair_table(gold[docid], pred.get(docid, []))
        al, status, bound = align_doc(table, method, backend)
        c = table.counts(al)
        docs.append(DocScore(docid, al, c, _f1_of(c), status, bound))
        total = total + c
    status = worst_status([d.status for d in docs]) if docs else Status.OPTIMAL
    return CorpusScore(method, total, tuple(docs), status, time.perf_counter() - t0)


# --------------------------------------------------------------------------------------------
# CEAF-REE
# --------------------------------------------------------------------------------------------
def phi_strict(gold: tuple, pred: tuple) -> float:
    """GRIT's φ_strict: 1 if every predicted mention is in the gold entity."""
    return 1.0 if _subset(pred, gold) else 0.0


def phi_prop(gold: tuple, pred: tuple) -> float:
    """GRIT's φ_prop: gold mentions found in the predicted entity over its size."""
    if not pred:
        raise InputError("φ_prop is undefined for a predicted entity without mentions")
    return sum(1 for m in gold if m in pred) / len(pred)


PHIS = {"strict": phi_strict, "prop": phi_prop}


def ceaf_ree(gold: dict, pred: dict, phi: str = "strict", method: str = "exact") -> CorpusScore:
    """CEAF-REE micro counts over the gold documents and the five roles."""
    if method not in CEAF_METHODS:
        raise ValueError(f"unknown CEAF-REE method {method!r}; choose one of "
                         + ", ".join(CEAF_METHODS))
    f = PHIS[phi]
    t0 = time.perf_counter()
    docs, total = [], PRF()
    for docid, g_slots in gold.items():
        p_slots = pred.get(docid, ((),) * len(ROLES))
        c, statuses = PRF(), []
        for g_ents, p_ents in zip(g_slots, p_slots, strict=True):
            W = np.array([[f(g, p) for p in p_ents] for g in g_ents]).reshape(len(g_ents),
                                                                                len(p_ents))
            res = bipartite.solve(bipartite.BipartiteInstance.from_dense(W), method)
            statuses.append(res.status)
            c = c + PRF.from_tp(res.objective, len(g_ents), len(p_ents))
        docs.append(DocScore(docid, np.zeros((0, 2), dtype=np.int64), c, c.f1,
                             worst_status(statuses), None))
        total = total + c
    status = worst_status([d.status for d in docs]) if docs else Status.OPTIMAL
    return CorpusScore(f"ceaf-ree-{phi}-{method}", total, tuple(docs), status,
                       time.perf_counter() - t0)


# --------------------------------------------------------------------------------------------
# CEAF-RME (φ_subset)
# --------------------------------------------------------------------------------------------
RME_METHODS = ("iterx", "greedy", "exact")


def _labels(itype: str) -> list[str]:
    return [x.strip() for x in itype.split("/")]


def rme_pair_counts(gold: Template, pred: Template, gold_type: str | None = None):
    """IterX's ``phi_subset`` of one template pair: (predicted entities with a mention in a gold
    entity, distinct gold entities first hit). ``gold_type`` overrides the gold type (a split)."""
    if pred.incident_type != (gold.incident_type if gold_type is None else gold_type):
        return 0, 0
    count, hit = 0, set()
    for r, (g_ents, p_ents) in enumerate(zip(gold.slots, pred.slots, strict=True)):
        for pe in p_ents:
            for m in pe:
                gi = next((i for i, ge in enumerate(g_ents) if m in ge), None)
                if gi is not None:
                    count += 1
                    hit.add((r, gi))
                    break
    return count, len(hit)


def rme_pair_table(gold: list[Template], pred: list[Template]) -> PairTable:
    """CEAF-RME pairs for the greedy and exact alignments: a gold template of type ``"a / b"``
    is compatible with predictions of either label (the better one counts)."""
    pairs, pn, rn = [], [], []
    for i, g in enumerate(gold):
        for j, p in enumerate(pred):
            a, b = max(rme_pair_counts(g, p, lab) for lab in _labels(g.incident_type))
            if a or b:
                pairs.append((i, j))
                pn.append(a)
                rn.append(b)
    return PairTable(len(gold), len(pred), np.array(pairs, dtype=np.int64).reshape(-1, 2),
                     np.array(pn, dtype=np.float64), np.array(rn, dtype=np.float64),
                     float(sum(t.num_entities for t in pred)),
                     float(sum(t.num_entities for t in gold)))


def rme_iterx(gold: list[Template], pred: list[Template]) -> tuple[np.ndarray, PRF]:
    """IterX's CEAF-RME (``CEAFRMEPhiSubsetScorer``) of one document: (alignment, counts)."""
    clusters = [j for j, p in enumerate(pred) if p.num_entities >= 1]
    p_den = float(sum(pred[j].num_entities for j in clusters))
    r_den = float(sum(t.num_entities for t in gold))
    multi = [i for i, g in enumerate(gold) if "/" in g.incident_type and g.num_entities]
    if not multi or not clusters:
        S = np.array([[rme_pair_counts(g, pred[j]) for j in clusters] for g in gold],
                     dtype=np.float64).reshape(len(gold), len(clusters), 2)
        rows, cols = linear_sum_assignment(-S[:, :, 0])
        al = _sorted((int(r), clusters[c]) for r, c in zip(rows, cols, strict=True)
                     if S[r, c, 0] or S[r, c, 1])
        return al, PRF(float(S[rows, cols, 1].sum()), r_den, float(S[rows, cols, 0].sum()),
                       p_den)
    split, owner = [], []
    for i, g in enumerate(gold):
        for lab in (_labels(g.incident_type) if i in multi else [None]):
            split.append([rme_pair_counts(g, pred[j], lab) for j in clusters])
            owner.append(i)
    S = np.array(split, dtype=np.float64).reshape(len(split), len(clusters), 2)
    for i in multi:
        ids = [k for k, o in enumerate(owner) if o == i]
        keep = ids[int(S[ids, :, 0].sum(axis=1).argmax())]
        S[[k for k in ids if k != keep]] = 0.0
    rows, cols = linear_sum_assignment(-S[:, :, 0])
    al = _sorted((owner[r], clusters[c]) for r, c in zip(rows, cols, strict=True)
                 if S[r, c, 0] or S[r, c, 1])
    return al, PRF(float(S[rows, cols, 1].sum()), r_den, float(S[rows, cols, 0].sum()), p_den)


def ceaf_rme(gold: dict[str, list[Template]], pred: dict[str, list[Template]],
             method: str = "iterx", *, backend: str = "highs") -> CorpusScore:
    """CEAF-RME (φ_subset) micro counts over the gold documents."""
    if method not in RME_METHODS:
        raise ValueError(f"unknown CEAF-RME method {method!r}; choose one of "
                         + ", ".join(RME_METHODS))
    t0 = time.perf_counter()
    docs, total = [], PRF()
    for docid, g in gold.items():
        p = pred.get(docid, [])
        if method == "iterx":
            al, c = rme_iterx(g, p)
            status, bound = Status.FEASIBLE, None
        else:
            table = rme_pair_table(g, p)
            al, status, bound = align_doc(table, method, backend)
            c = table.counts(al)
        docs.append(DocScore(docid, al, c, c.f1, status, bound))
        total = total + c
    status = worst_status([d.status for d in docs]) if docs else Status.OPTIMAL
    return CorpusScore(f"ceaf-rme-{method}", total, tuple(docs), status,
                       time.perf_counter() - t0)
