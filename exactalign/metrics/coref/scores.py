"""Documents and corpora: every metric of one document (:func:`score_document`,
:func:`score_identified`), a corpus scored as the reference aggregates it -- counts summed over
documents (:func:`score_documents`, :func:`score_files`) -- and the CoNLL average."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from ...core.batch import batch_indices
from ...core.errors import InputError
from ...core.result import Result, combine_results
from ...io.conll import Document, pair_documents, read_conll
from ...problems import bipartite
from ..aggregation import PRF
from .alignment import (
    CEAF_HEURISTICS,
    CEAF_METHODS,
    CEAF_PHI,
    GAP_TOL,
    ceaf,
    ceaf_instance,
    ceaf_witness,
)
from .identification import MAX_REPEATED, Identified, PreparedKey, identify, identify_prepared
from .links import Blanc, blanc
from .muc_bcub_lea import b_cubed, lea, muc

#: The metrics, in the reference scorer's names and order (plus LEA).
METRICS = ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea")


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
                     ceaf_results: Mapping[str, Result] | None = None,
                     **solve_options) -> DocumentScores:
    """As :func:`score_document`, on a document already through :func:`identify`;
    ``ceaf_results``: CEAF metric -> the solve of its alignment already done."""
    metrics = _check_metrics(metrics, ceaf_method)
    scores, solves, exact, witnesses = {}, {}, {}, {}
    for m in metrics:
        if m in CEAF_PHI:
            c = ceaf(d, CEAF_PHI[m], ceaf_method,
                     result=(ceaf_results or {}).get(m), **solve_options)
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
    docs = _score_all(identified, metrics, ceaf_method, compare_exact, solve_options)
    return CorefScores(docs, metrics, ceaf_method)


def _score_all(identified: Sequence[Identified], metrics: tuple[str, ...], ceaf_method: str,
               compare_exact: bool, solve_options: Mapping) -> tuple[DocumentScores, ...]:
    """:func:`score_identified` of every document, each CEAF's alignments over all of them in
    one call (:func:`~exactalign.problems.bipartite.solve_many`: one greedy pass and one
    residual pass for exact, one pass for greedy, every document decided as its own solve
    decides it; the other methods document by document)."""
    solved = {m: bipartite.solve_many([ceaf_instance(d, CEAF_PHI[m]) for d in identified],
                                      ceaf_method, **solve_options)
              for m in metrics if m in CEAF_PHI}
    return tuple(score_identified(d, metrics, ceaf_method=ceaf_method,
                                  compare_exact=compare_exact,
                                  ceaf_results={m: r[k] for m, r in solved.items()},
                                  **solve_options)
                 for k, d in enumerate(identified))


def score_files(key_path, response_path, metrics: Iterable[str] = METRICS,
                **options) -> CorefScores:
    """Read, pair and score a key and a response CoNLL-2012 file (options as
    :func:`score_documents`)."""
    pairs = pair_documents(read_conll(key_path), read_conll(response_path))
    return score_documents(pairs, metrics, **options)


class CorefScorer:
    """Coreference metrics inside a training or tuning loop: the key documents prepared once
    (mention ids, chains, memberships), then scored against responses again and again.

        >>> from exactalign.metrics.coref import CorefScorer
        >>> scorer = CorefScorer([[[(0, 0), (2, 2)], [(5, 6)]]], metrics=("muc", "ceafe"))
        >>> s = scorer.score([[[(0, 0), (2, 2), (5, 6)]]])
        >>> round(s.overall["muc"].f1, 4), round(s.overall["ceafe"].f1, 4)
        (0.6667, 0.5333)
        >>> s.documents[0].ceaf["ceafe"].status.value
        'optimal'

    ``keys``: key documents, each an :class:`~exactalign.io.conll.Document` or a list of
    clusters (a cluster: a list of hashable mentions, e.g. ``(start, end)`` token spans).
    ``metrics``, ``ceaf_method``, ``max_repeated`` and ``solve_options`` as
    :func:`score_documents`, fixed for the scorer's life. :meth:`score` returns what
    :func:`score_documents` returns on the same pairs with the same options: the same
    :class:`CorefScores`, mention counts, MUC, B³, BLANC and LEA counts
    (``tests/test_inprocess.py``), CEAF's alignments included."""

    def __init__(self, keys, metrics=METRICS, *, ceaf_method: str = "exact",
                 max_repeated: int | None = MAX_REPEATED, **solve_options):
        self.metrics = _check_metrics(metrics, ceaf_method)
        self.ceaf_method = ceaf_method
        self.max_repeated = max_repeated
        self._options = dict(solve_options)
        self.keys = tuple(_document(k, "key", i) for i, k in enumerate(keys))
        self._prepared = tuple(PreparedKey(k) for k in self.keys)

    def __len__(self) -> int:
        return len(self.keys)

    def score(self, responses, indices=None) -> CorefScores:
        """Score ``responses`` (documents or lists of clusters), the ``k``-th against key
        ``indices[k]`` (default: every key in order; then as many responses as keys)."""
        responses = list(responses)
        indices = batch_indices(len(responses), len(self._prepared), indices, "response", "key")
        identified = []
        for k, (r, i) in enumerate(zip(responses, indices, strict=True)):
            identified.append(identify_prepared(self._prepared[i],
                                                _document(r, "response", k)))
        if self.max_repeated is not None:
            found = [(d, m) for d in identified for m, _ in d.repeated]
            if len(found) > self.max_repeated:
                d, m = found[0]
                raise InputError(f"the response repeats {len(found)} key mentions in two "
                                 f"clusters or twice in one (more than {self.max_repeated}), "
                                 f"the first {m} in document {d.name!r}: the reference scorer "
                                 "v8.01 refuses to score it")
        docs = _score_all(identified, self.metrics, self.ceaf_method, False, self._options)
        return CorefScores(docs, self.metrics, self.ceaf_method)


def _document(d, what: str, k: int) -> Document:
    """``d`` itself when it is a :class:`Document`, else a document of the clusters ``d``."""
    if isinstance(d, Document):
        return d
    try:
        clusters = tuple(tuple(c) for c in d)
    except TypeError:
        raise InputError(f"{what} {k}: a document is a Document or a list of clusters (lists "
                         f"of mentions), not {type(d).__name__}") from None
    return Document(str(k), clusters)
