"""A declared metric: a matching declaration at the root, normalised into precision, recall and
F1 per document, averaged over a corpus.

    >>> from exactalign.declared import Metric, Match, Record, Span, Eq
    >>> triggers = Metric(Match(Record({"span": Span(), "type": Eq()})), field="events",
    ...                   name="trigger classification")
    >>> gold = [{"events": [{"span": [0, 1], "type": "Attack"}, {"span": [4, 5], "type": "Die"}]}]
    >>> pred = [{"events": [{"span": [0, 1], "type": "Attack"}]}]
    >>> r = triggers.compute(predictions=pred, references=gold)
    >>> (r.score.precision, r.score.recall)
    (1.0, 0.5)
    >>> r.status.value
    'optimal'

The root's score ``S(X, Y)`` over the self-scores gives the counts of a
:class:`~exactalign.metrics.aggregation.PRF` (recall ``S / S(X, X)``, precision
``S / S(Y, Y)``), so micro-averaging sums counts and macro-averaging averages the per-document
ratios exactly as every other exactalign metric does. A declaration with a ``directional``
normaliser inside (B³) is evaluated twice, once per direction.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..core.batch import batch_indices
from ..core.errors import InputError, VerificationError
from ..core.result import Result, Status, close, combine_results, worst_status
from ..metrics.aggregation import PRF, macro
from .engine import METHODS, Evaluator, Outcome
from .nodes import Latent, Match, Node, from_dict, get_field, resolve_callable

AVERAGES = ("micro", "macro")
#: The default of :meth:`Metric.compute`'s required keywords (so that a positional call can be
#: told apart and answered with the keyword form).
_REQUIRED = object()


@dataclass(frozen=True)
class DocumentScore:
    """One document: its counts, and per direction the verified root solve."""

    id: str
    prf: PRF
    results: tuple[Result, ...]

    @property
    def status(self) -> Status:
        return worst_status([r.status for r in self.results])

    @property
    def bound(self) -> float | None:
        """Upper bound on the root score ``S(X, Y)`` (None when the method proves nothing)."""
        bounds = [r.bound for r in self.results]
        return None if any(b is None for b in bounds) else max(bounds)

    def to_dict(self, alignment: bool = False) -> dict:
        d = {"id": self.id, **self.prf.to_dict(), "status": self.status.value}
        d["solves"] = [r.to_dict(alignment=alignment) for r in self.results]
        return d


@dataclass(frozen=True)
class MetricResult:
    """What :meth:`Metric.compute` returns and ``exactalign score --json`` prints."""

    metric: str
    method: str
    average: str
    spec: dict
    documents: tuple[DocumentScore, ...]
    wall_time: float

    @property
    def score(self) -> PRF:
        """Micro-averaged counts (sum over documents)."""
        total = PRF()
        for d in self.documents:
            total = total + d.prf
        return total

    @property
    def macro(self) -> dict:
        return macro(d.prf for d in self.documents)

    @property
    def status(self) -> Status:
        return worst_status([d.status for d in self.documents]) if self.documents \
            else Status.OPTIMAL

    @property
    def proven_optimal(self) -> bool:
        return self.status is Status.OPTIMAL

    @property
    def value(self) -> float:
        """The headline number: micro F1, or the mean per-document F1 under ``macro``."""
        return self.score.f1 if self.average == "micro" else self.macro["f1"]

    @property
    def f1_bound(self) -> float | None:
        """A proven upper bound on micro F1 (every document's root score at its bound)."""
        if self.average != "micro" or any(d.bound is None for d in self.documents):
            return None
        s = self.score
        rgain = pgain = 0.0
        for d in self.documents:
            rec, pre = d.results[0], d.results[-1]
            rgain += rec.bound - (rec.objective or 0.0)
            pgain += pre.bound - (pre.objective or 0.0)
        r = (s.recall_num + rgain) / s.recall_den if s.recall_den else 0.0
        p = (s.precision_num + pgain) / s.precision_den if s.precision_den else 0.0
        return 2 * p * r / (p + r) if p + r else 0.0

    def solve_summary(self) -> dict:
        """The corpus as one solve (``Result.to_dict()``, :func:`combine_results`):
        ``objective`` and ``bound`` sum the root matching scores of every document (and
        direction)."""
        results = [r for d in self.documents for r in d.results]
        combined = combine_results(results, self.method).replace(wall_time=self.wall_time)
        return combined.to_dict()

    def to_dict(self, documents: bool = True, alignment: bool = False) -> dict:
        d = {"metric": self.metric, "average": self.average, **self.solve_summary(),
             "value": self.value, "micro": self.score.to_dict(), "macro": self.macro,
             "f1_bound": self.f1_bound, "n_documents": len(self.documents), "spec": self.spec}
        if documents:
            d["documents"] = [doc.to_dict(alignment) for doc in self.documents]
        return d


class Metric:
    """A metric declared once and computed exactly, by its greedy twin, or by brute force.

    ``spec``: the root declaration, a :class:`~exactalign.declared.nodes.Match` (or
    :class:`~exactalign.declared.nodes.Latent`); its normaliser only names the headline, since
    the result carries precision, recall and F1. ``field``: where a document keeps the
    collection the root matches (``None``: the document is the collection). ``average``:
    ``micro`` (sum counts over documents) or ``macro``. ``recall_denominator`` /
    ``precision_denominator``: a path of fields counted under the root's reference /
    predicted items (:func:`count_path`) instead of the self-score -- for scorers whose
    denominators are not a matching (IterX's CEAF-RME divides recall by gold entities)."""

    def __init__(self, spec: Node, *, field: str | None = None, name: str | None = None,
                 average: str = "micro", transform: Callable | str | None = None,
                 recall_denominator: str | None = None,
                 precision_denominator: str | None = None):
        if not isinstance(spec, Match | Latent):
            raise InputError("the root of a metric must be a match (or a latent triple "
                             f"matching), not a {spec.kind}")
        if average not in AVERAGES:
            raise InputError(f"average must be 'micro' or 'macro', not {average!r}")
        if name is not None and not isinstance(name, str):
            raise InputError(f"a metric's name must be a string, not {name!r}")
        if field is not None and (isinstance(field, bool) or not isinstance(field, str | int)):
            raise InputError(f"a metric's field must be a string, not {field!r}")
        if transform is not None and not (isinstance(transform, str) or callable(transform)):
            raise InputError("a transform is a function or its 'module:function' name, not "
                             f"{transform!r}")
        if isinstance(spec, Match) and spec.normalizer == "directional":
            raise InputError("the root's normalizer cannot be 'directional' (the root gives "
                             "precision, recall and F1 anyway)")
        self.spec = spec
        self.field = field
        self.name = name or "declared"
        self.average = average
        self.transform_ref = transform if isinstance(transform, str) else None
        self.transform = resolve_callable(transform) if isinstance(transform, str) else transform
        for which, path in (("recall", recall_denominator),
                            ("precision", precision_denominator)):
            if path is not None and (not isinstance(path, str) or not isinstance(spec, Match)):
                raise InputError(f"a {which} denominator is a path of fields ('entities', "
                                 "'slots.entities') counted under a root match")
        self.recall_denominator = recall_denominator
        self.precision_denominator = precision_denominator
        self.directional = any(isinstance(n, Match) and n.normalizer == "directional"
                               for n in spec.walk())

    # -- construction from files ---------------------------------------------------------------
    @classmethod
    def from_dict(cls, d: Mapping, where: str = "metric") -> Metric:
        if not isinstance(d, Mapping):
            raise InputError(f"{where}: a metric is a table, not {d!r}")
        d = dict(d)
        spec = d.pop("spec", None)
        if spec is None:
            raise InputError(f"{where}: no 'spec' (the root similarity)")
        keys = {"name", "field", "average", "transform", "recall_denominator",
                "precision_denominator"}
        unknown = set(d) - keys
        if unknown:
            raise InputError(f"{where}: unknown keys {sorted(unknown)}; a metric has "
                             f"{', '.join(sorted(keys))} and spec")
        root = from_dict(spec, f"{where}.spec")
        try:
            return cls(root, **{k: d[k] for k in keys if k in d and k != "average"},
                       average=d.get("average", "micro"))
        except InputError as e:  # a metric key: said where it is, as the spec's errors are
            raise InputError(f"{where}: {e.message}") from None

    def to_dict(self) -> dict:
        d: dict = {"name": self.name}
        if self.field is not None:
            d["field"] = self.field
        d["average"] = self.average
        if self.transform is not None:
            d["transform"] = self.transform_ref or _qualname(self.transform)
        for key in ("recall_denominator", "precision_denominator"):
            if getattr(self, key) is not None:
                d[key] = getattr(self, key)
        d["spec"] = self.spec.to_dict()
        return d

    def __repr__(self) -> str:
        return f"Metric({self.name!r}, {json.dumps(self.to_dict()['spec'])})"

    # -- computing -------------------------------------------------------------------------------
    def _root(self, doc):
        root = self._field(doc)
        if self.transform is None:
            return root
        try:
            return self.transform(root)
        except InputError:
            raise
        except Exception as e:
            raise InputError(f"transform {self.transform_ref or _qualname(self.transform)} "
                             f"failed: {type(e).__name__}: {e}") from None

    def _field(self, doc):
        if self.field is None:
            return doc
        if not isinstance(doc, Mapping):
            raise InputError(f"a document must be a table with a {self.field!r} field, not "
                             f"{type(doc).__name__}")
        if self.field not in doc:
            raise InputError(f"a document has no {self.field!r} field (keys: "
                             f"{', '.join(map(str, doc)) or 'none'})")
        return doc[self.field]

    def score_document(self, *, prediction, reference, method: str = "exact", seed: int = 0,
                       doc_id: str = "0", backend: str = "highs") -> DocumentScore:
        """One document's counts (:class:`DocumentScore`); the documents by keyword, as
        :meth:`compute` takes them."""
        if method not in METHODS:
            raise InputError(f"unknown method {method!r}; choose one of " + ", ".join(METHODS))
        return self._score_roots(self._root(reference), self._root(prediction), method, seed,
                                 doc_id, backend, None)

    def _directions(self) -> tuple:
        return ("recall", "precision") if self.directional else (None,)

    def _reference_state(self, ref, method: str, seed: int, backend: str) -> tuple:
        """Per direction, what scoring against reference root ``ref`` computes about ``ref``
        alone -- its self-score with the memos it filled (every nested self-score and key of
        the reference's items) and the statuses and solve count that took -- for
        :class:`PreparedMetric` to start every call from."""
        out = []
        for direction in self._directions():
            ev = Evaluator(method, direction, seed, backend)
            if isinstance(self.spec, Match):
                ev.self_score(self.spec, ref)
            else:
                ev._latent_self(self.spec, ref)
            out.append(ev.snapshot())
        return tuple(out)

    def _score_roots(self, ref, pred, method, seed, doc_id, backend, state) -> DocumentScore:
        outs = []
        for k, direction in enumerate(self._directions()):
            ev = Evaluator(method, direction, seed, backend)
            if state is not None:  # the reference's half, computed once (PreparedMetric)
                ev.resume(state[k])
            if isinstance(self.spec, Match):
                out = ev.match(self.spec, ref, pred, want_alignment=True)
                sx = ev.self_score(self.spec, ref)
                sy = ev.self_score(self.spec, pred)
            else:
                out = ev.latent(self.spec, ref, pred)
                sx, sy = ev._latent_self(self.spec, ref), ev._latent_self(self.spec, pred)
            out = Outcome(out.value, out.normalized, sx, sy, _with_status(out.result, ev))
            self._verify(out, ref, pred, direction, seed, None if state is None else state[k])
            outs.append(out)
        if self.directional:
            rec, pre = outs
            prf = PRF(rec.value, rec.self_ref, pre.value, pre.self_pred)
        else:
            (o,) = outs
            prf = PRF(o.value, o.self_ref, o.value, o.self_pred)
        if self.recall_denominator or self.precision_denominator:
            rd = (prf.recall_den if not self.recall_denominator
                  else count_path(self.spec.items(ref), self.recall_denominator))
            pd = (prf.precision_den if not self.precision_denominator
                  else count_path(self.spec.items(pred), self.precision_denominator))
            prf = PRF(prf.recall_num, rd, prf.precision_num, pd)
        return DocumentScore(str(doc_id), prf, tuple(o.result for o in outs))

    def prepare(self, references, *, method: str = "exact", seed: int = 0,
                backend: str = "highs", ids: Sequence[str] | None = None) -> PreparedMetric:
        """The metric bound to ``references`` for scoring many predictions against them
        (:class:`PreparedMetric`): a training or tuning loop's entry point."""
        return PreparedMetric(self, references, method=method, seed=seed, backend=backend,
                              ids=ids)

    def witness(self, *, prediction, reference, alignment, backend: str = "highs"):
        """The fewest root pair changes that turn ``alignment`` (say, the greedy twin's) into
        an optimal root alignment (:func:`exactalign.problems.bipartite.witness`, with the
        exact inner similarities), or ``None`` where the root is not a plain matching
        (latent variables, an order constraint). Every argument is a keyword, as in
        :meth:`compute`."""
        from ..problems import bipartite

        spec = self.spec
        if not isinstance(spec, Match) or spec.order is not None:
            return None
        ev = Evaluator("exact", "recall" if self.directional else None, 0, backend)
        X, Y = spec.items(self._root(reference)), spec.items(self._root(prediction))
        rows, cols = ev._candidates(spec.element, X, Y)
        w = np.array([spec.element.sim(X[i], Y[j], ev) for i, j in zip(rows, cols,
                                                                       strict=True)])
        inst = bipartite.BipartiteInstance(len(X), len(Y), rows, cols, w, spec.constraint)
        return bipartite.witness(inst, alignment, backend=backend)

    def _verify(self, out: Outcome, ref, pred, direction, seed, reference=None) -> None:
        """Recompute the root score from the returned alignment, pair by pair, through the
        declaration's plain similarity (no candidate index, no special algorithm).
        ``reference``: the reference's :meth:`Evaluator.snapshot` (:class:`PreparedMetric`),
        whose self-scores and keys the check may take instead of computing them again."""
        res = out.result
        if not isinstance(self.spec, Match) or res.alignment is None:
            return
        X, Y = self.spec.items(ref), self.spec.items(pred)
        check = Evaluator("greedy" if res.method in ("greedy", "hillclimb") else "exact",
                          direction, seed)
        if reference is not None:
            check.resume(reference, memos_only=True)
        total = math.fsum(self.spec.element.sim(X[i], Y[j], check)
                          for i, j in res.alignment.tolist())
        if not close(total, out.value):
            raise VerificationError(f"the alignment of metric {self.name!r} scores {total!r} "
                                    f"pair by pair but the matching reported {out.value!r}")
        if res.bound is not None and res.bound < out.value - 1e-6 * max(1.0, out.value):
            raise VerificationError(f"metric {self.name!r}: bound {res.bound!r} below the "
                                    f"objective {out.value!r}")

    def compute(self, *args, predictions=_REQUIRED, references=_REQUIRED,
                method: str = "exact", seed: int = 0, ids: Sequence[str] | None = None,
                backend: str = "highs") -> MetricResult:
        """Score a corpus: ``predictions[k]`` against ``references[k]`` (documents, paired by
        position; ``ids`` names them). Every argument is a keyword (``compute(predictions=...,
        references=...)``, as Hugging Face evaluate's ``compute``): two positional lists of
        documents would swap precision and recall without a word when swapped. Returns a
        :class:`MetricResult` -- the object whose ``to_dict()`` the command line prints with
        ``--json``.

        An :class:`InputError` in a document names it (``document 'd2': ...``) and carries
        ``document`` (its index) and ``side`` (``"reference"``, ``"prediction"``, or ``None``
        when neither document alone is at fault), which
        :meth:`exactalign.declared.files.Pairing.locate` turns into a file and line."""
        if args or predictions is _REQUIRED or references is _REQUIRED:
            raise TypeError("Metric.compute takes the documents by keyword: "
                            "compute(predictions=..., references=...) (positional lists "
                            "would swap precision and recall when swapped)")
        predictions, references = list(predictions), list(references)
        if len(predictions) != len(references):
            raise InputError(f"{len(predictions)} predicted documents but "
                             f"{len(references)} reference documents")
        if ids is not None and len(ids) != len(references):
            raise InputError(f"{len(ids)} ids for {len(references)} documents")
        t0 = time.perf_counter()
        docs = []
        for k, (p, r) in enumerate(zip(predictions, references, strict=True)):
            doc_id = ids[k] if ids is not None else str(k)
            try:
                docs.append(self.score_document(prediction=p, reference=r, method=method,
                                                seed=seed, doc_id=doc_id, backend=backend))
            except (InputError, RecursionError) as e:
                message = (e.message if isinstance(e, InputError) else
                           "nested too deeply to score (a value inside lists or tables "
                           "hundreds of levels deep)")
                err = InputError(f"document {str(doc_id)!r}: {message}",
                                 path=getattr(e, "path", None), line=getattr(e, "line", None))
                err.document, err.side = k, self._side_at_fault(p, r)
                raise err from None
        return MetricResult(self.name, method, self.average, self.to_dict(), tuple(docs),
                            time.perf_counter() - t0)

    def _side_at_fault(self, prediction, reference) -> str | None:
        """Which document of a pair that failed is malformed on its own: ``"reference"`` or
        ``"prediction"`` (its self-score fails too), else ``None``."""
        for side, doc in (("reference", reference), ("prediction", prediction)):
            ev = Evaluator("exact", "recall" if self.directional else None, 0, "highs")
            try:
                root = self._root(doc)
                if isinstance(self.spec, Match):
                    ev.self_score(self.spec, root)
                else:
                    ev._latent_self(self.spec, root)
            except (InputError, RecursionError):
                return side
            except Exception:  # noqa: BLE001 - only a diagnosis; the first error stands
                return None
        return None


class PreparedMetric:
    """A declared metric bound to its reference documents, for a training or tuning loop
    (:meth:`Metric.prepare`).

        >>> import exactalign
        >>> gold = [{"entities": [["a", "b", "c"], ["d"]]}, {"entities": [["x"], ["y"]]}]
        >>> prepared = exactalign.prepare("coref-ceafe", references=gold)
        >>> r = prepared.compute(predictions=[{"entities": [["b"], ["a", "c", "d"]]}],
        ...                      indices=[0])
        >>> round(r.score.f1, 4), r.status.value
        (0.5, 'optimal')

    Made once: each reference document's root (its ``field``, through the metric's
    ``transform``) and, per direction, what scoring against it computes about it alone -- its
    self-score and the memos that filled (the self-scores and keys of the items inside it).
    Each :meth:`compute` starts from those and computes only what involves the predictions.
    The result is :meth:`Metric.compute`'s on the same documents and options, the same in
    every count, status, bound, alignment and solve count (``tests/test_inprocess.py``): the
    reference's part is computed by the same code, once. The references must not change while
    the prepared metric is in use (it keeps them, and its memos know them by identity)."""

    def __init__(self, metric: Metric, references, *, method: str = "exact", seed: int = 0,
                 backend: str = "highs", ids: Sequence[str] | None = None):
        if method not in METHODS:
            raise InputError(f"unknown method {method!r}; choose one of " + ", ".join(METHODS))
        self.metric, self.method, self.seed, self.backend = metric, method, seed, backend
        self.references = list(references)
        if ids is not None and len(ids) != len(self.references):
            raise InputError(f"{len(ids)} ids for {len(self.references)} documents")
        self.ids = None if ids is None else [str(i) for i in ids]
        self._roots, self._states = [], []
        for k, doc in enumerate(self.references):
            try:
                root = metric._root(doc)
                state = metric._reference_state(root, method, seed, backend)
            except (InputError, RecursionError) as e:
                message = e.message if isinstance(e, InputError) else "nested too deeply"
                err = InputError(f"reference document {self._id(k)!r}: {message}")
                err.document, err.side = k, "reference"
                raise err from None
            self._roots.append(root)
            self._states.append(state)

    def _id(self, k: int) -> str:
        return self.ids[k] if self.ids is not None else str(k)

    def __len__(self) -> int:
        return len(self.references)

    def compute(self, *args, predictions=_REQUIRED, indices=None) -> MetricResult:
        """Score ``predictions``, the ``k``-th against reference ``indices[k]`` (default: every
        reference in order; then as many predictions as references). Documents are named by
        the reference's id (``ids`` of :meth:`Metric.prepare`, else its index)."""
        if args or predictions is _REQUIRED:
            raise TypeError("PreparedMetric.compute takes the documents by keyword: "
                            "compute(predictions=...)")
        m = self.metric
        predictions = list(predictions)
        indices = batch_indices(len(predictions), len(self._roots), indices)
        t0 = time.perf_counter()
        docs = []
        for k, (p, i) in enumerate(zip(predictions, indices, strict=True)):
            try:
                docs.append(m._score_roots(self._roots[i], m._root(p), self.method, self.seed,
                                           self._id(i), self.backend, self._states[i]))
            except (InputError, RecursionError) as e:
                message = (e.message if isinstance(e, InputError) else
                           "nested too deeply to score (a value inside lists or tables "
                           "hundreds of levels deep)")
                err = InputError(f"document {self._id(i)!r}: {message}")
                err.document, err.side = k, m._side_at_fault(p, self.references[i])
                raise err from None
        return MetricResult(m.name, self.method, m.average, m.to_dict(), tuple(docs),
                            time.perf_counter() - t0)


def count_path(items, path: str) -> float:
    """How many values ``path`` reaches under ``items``: ``"entities"`` counts the entities of
    every item, ``"entities.mentions"`` the mentions of those (a denominator that is not the
    root's self-score, e.g. IterX's CEAF-RME recall over gold entities)."""
    head, _, rest = path.partition(".")
    total = 0.0
    for item in items:
        value = get_field(item, head)
        if not isinstance(value, list | tuple):
            raise InputError(f"denominator path {path!r}: {head!r} is not a list")
        total += count_path(value, rest) if rest else len(value)
    return total


def _qualname(fn) -> str:
    return f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', repr(fn))}"


def _with_status(res: Result, ev: Evaluator) -> Result:
    """The root result carries the worst status met anywhere below it, and its bound only when
    that is the root's own status: the root's bound assumes exact inner similarities, so a
    nested level left unproven voids it (whatever the root's own solve says)."""
    status = worst_status([res.status, ev.worst()])
    bound = res.bound if status is res.status else None
    return res.replace(status=status, bound=bound,
                       details={**dict(res.details), "solves": ev.solves})
