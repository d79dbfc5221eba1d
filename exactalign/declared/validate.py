"""Validate a user's heuristic against the certified optimum of a declared metric.

A *heuristic* is any function ``h(reference, prediction)`` of two documents (the metric's
document shape) returning either

* an alignment of the root collections: pairs ``(i, j)`` of reference item ``i`` and predicted
  item ``j`` -- it is checked against the root's constraint and scored with the declaration
  (nested levels solved exactly, as the metric defines them); or
* a number: the root score ``S(X, Y)`` it claims (cannot be checked for feasibility, only
  against the proven optimum).

:func:`validate` runs it on given documents (your pilot data) and on documents generated from
the declaration itself (hypothesis strategies derived node by node), and reports how often and
by how much it falls short of the optimum -- or claims more than the optimum, which no feasible
alignment can. When it ever does, hypothesis shrinks the instance to a smallest counterexample,
printed as a ready-to-paste pytest case.
"""

from __future__ import annotations

import math
import pprint
from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.errors import InputError
from .engine import Evaluator
from .metric import Metric
from .nodes import Eq, Func, Hierarchy, Latent, Match, Node, Record, Span, resolve_callable

TOL = 1e-9


@dataclass
class Case:
    """One document pair: the optimum, what the heuristic reached, and why not more."""

    source: str
    reference: object
    prediction: object
    optimum: float
    heuristic: float
    problem: str | None = None  # infeasible alignment, or a claim above the optimum

    @property
    def shortfall(self) -> float:
        return max(0.0, self.optimum - self.heuristic)

    @property
    def failed(self) -> bool:
        return self.problem is not None or self.shortfall > TOL * max(1.0, self.optimum)


@dataclass
class Report:
    metric: str
    heuristic: str
    data: list[Case] = field(default_factory=list)
    generated: list[Case] = field(default_factory=list)
    counterexample: Case | None = None
    generation_note: str | None = None

    @staticmethod
    def _summary(cases: list[Case]) -> dict:
        short = [c for c in cases if c.failed]
        opt = sum(c.optimum for c in cases)
        lost = sum(c.shortfall for c in cases)
        return {"instances": len(cases), "short": len(short),
                "invalid": sum(1 for c in cases if c.problem),
                "total_optimum": opt, "total_shortfall": lost,
                "relative_shortfall": lost / opt if opt else 0.0,
                "largest_shortfall": max((c.shortfall for c in cases), default=0.0)}

    @property
    def ok(self) -> bool:
        return not any(c.failed for c in self.data + self.generated) \
            and self.counterexample is None

    def to_dict(self) -> dict:
        d = {"metric": self.metric, "heuristic": self.heuristic, "ok": self.ok,
             "data": self._summary(self.data), "generated": self._summary(self.generated),
             "generation_note": self.generation_note, "counterexample": None}
        if self.counterexample is not None:
            c = self.counterexample
            d["counterexample"] = {"reference": c.reference, "prediction": c.prediction,
                                   "optimum": c.optimum, "heuristic": c.heuristic,
                                   "problem": c.problem}
        return d


def _name(fn) -> str:
    return f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', repr(fn))}"


def evaluate_case(metric: Metric, heuristic: Callable, reference, prediction,
                  source: str = "") -> Case:
    """Optimum vs the heuristic on one document pair."""
    doc = metric.score_document(prediction, reference, "exact")
    optimum = float(doc.results[0].objective)
    try:
        out = heuristic(reference, prediction)
    except Exception as e:
        raise InputError(f"the heuristic {_name(heuristic)} failed on {source or 'a case'}: "
                         f"{type(e).__name__}: {e}") from None
    problem = None
    if isinstance(out, int | float) and not isinstance(out, bool):
        value = float(out)
        if not math.isfinite(value):
            problem = f"returned {value!r}"
            value = 0.0
    else:
        value, problem = _score_alignment(metric, reference, prediction, out)
    if problem is None and value > optimum + TOL * max(1.0, optimum):
        problem = (f"claims {value!r}, above the proven optimum {optimum!r}: no feasible "
                   "alignment scores that")
    return Case(source, reference, prediction, optimum, value, problem)


def _score_alignment(metric: Metric, reference, prediction, pairs) -> tuple[float, str | None]:
    spec = metric.spec
    if not isinstance(spec, Match):
        raise InputError("a heuristic for a latent-variable metric must return its score")
    X, Y = spec.items(metric._root(reference)), spec.items(metric._root(prediction))
    try:
        pairs = [(int(i), int(j)) for i, j in pairs]
    except (TypeError, ValueError):
        return 0.0, f"returned {pairs!r}: neither a number nor (reference, predicted) pairs"
    cap_x = 1 if spec.constraint in ("1:1", "N:1") else None
    cap_y = 1 if spec.constraint in ("1:1", "1:N") else None
    seen_x, seen_y = {}, {}
    for i, j in pairs:
        if not (0 <= i < len(X) and 0 <= j < len(Y)):
            return 0.0, f"pair ({i}, {j}) is outside the {len(X)} x {len(Y)} items"
        seen_x[i] = seen_x.get(i, 0) + 1
        seen_y[j] = seen_y.get(j, 0) + 1
        if cap_x and seen_x[i] > cap_x:
            return 0.0, f"reference item {i} is matched twice under {spec.constraint}"
        if cap_y and seen_y[j] > cap_y:
            return 0.0, f"predicted item {j} is matched twice under {spec.constraint}"
    if len(set(pairs)) != len(pairs):
        return 0.0, "a pair is given twice"
    if spec.order == "sequence":
        ordered = sorted(pairs)
        if any(b[1] < a[1] for a, b in zip(ordered, ordered[1:], strict=False)):
            return 0.0, "the alignment crosses (the metric preserves the order)"
    ev = Evaluator("exact")
    return math.fsum(spec.element.sim(X[i], Y[j], ev) for i, j in pairs), None


# --------------------------------------------------------------------------------------------
# documents generated from the declaration
# --------------------------------------------------------------------------------------------
def strategy(node: Node, size: int = 3):
    """A hypothesis strategy for values ``node`` compares (small pools, so values collide)."""
    from hypothesis import strategies as st

    def wrap(field_name, inner):
        if field_name is None:
            return inner
        return st.fixed_dictionaries({field_name: inner})

    if isinstance(node, Match):
        unique = {"unique_by": repr} if type(node.element) is Eq else {}
        return wrap(node.field, st.lists(strategy(node.element, size), max_size=size, **unique))
    if isinstance(node, Record):
        return st.fixed_dictionaries({k: strategy(v, size) for k, v in node.fields.items()})
    if isinstance(node, Span):
        spans = st.tuples(st.integers(0, 4), st.integers(1, 3)).map(
            lambda t: [t[0], t[0] + t[1] - (1 if node.inclusive else 0)])
        return wrap(node.field, spans)
    if isinstance(node, Hierarchy):
        return wrap(node.field, st.lists(st.sampled_from("ab"), min_size=1, max_size=3).map(
            node.sep.join))
    if isinstance(node, Eq):
        return wrap(node.field, st.sampled_from(["a", "b", "c", "d"]))
    if isinstance(node, Latent):
        return _graphs(node)
    if isinstance(node, Func):
        raise InputError(f"cannot generate values for the user similarity {node.name}; "
                         "validate on your documents (GOLD SYSTEM) instead")
    raise InputError(f"cannot generate values for a {node.kind}")


def _graphs(node: Latent):
    from hypothesis import strategies as st

    @st.composite
    def graph(draw):
        names = [f"v{k}" for k in range(draw(st.integers(1, 3)))]
        triples = [["instance", v, draw(st.sampled_from(["x", "y"]))] for v in names]
        triples += [[r, a, b] for r, a, b in draw(st.lists(st.tuples(
            st.sampled_from(["r", "s"]), st.sampled_from(names),
            st.sampled_from([*names, "c"])), max_size=3))]
        return {node.triples: triples, node.variables: names}

    return graph()


def document_strategy(metric: Metric):
    from hypothesis import strategies as st

    if metric.transform is not None:
        raise InputError(f"metric {metric.name} transforms its documents; validate it on your "
                         "documents (GOLD SYSTEM)")
    inner = strategy(metric.spec)
    return inner if metric.field is None else st.fixed_dictionaries({metric.field: inner})


def validate(metric: Metric, heuristic: Callable | str, references=None, predictions=None, *,
             examples: int = 200, seed: int = 0, ids=None) -> Report:
    """Run ``heuristic`` against ``metric``'s optimum on the given documents and on
    ``examples`` generated ones; shrink the first failure found to a smallest counterexample."""
    from hypothesis import HealthCheck, Phase, given, settings, target
    from hypothesis import seed as hseed

    if isinstance(heuristic, str):
        heuristic = resolve_callable(heuristic)
    report = Report(metric.name, _name(heuristic))
    if references is not None:
        references, predictions = list(references), list(predictions)
        if len(references) != len(predictions):
            raise InputError(f"{len(references)} reference but {len(predictions)} predicted "
                             "documents")
        for k, (r, p) in enumerate(zip(references, predictions, strict=True)):
            report.data.append(evaluate_case(metric, heuristic, r, p,
                                             str(ids[k]) if ids is not None else str(k)))
    if examples <= 0:
        return report
    try:
        docs = document_strategy(metric)
    except InputError as e:
        report.generation_note = e.message
        return report

    def run(record_only: bool):
        found: list[Case] = []

        @hseed(seed)
        @settings(max_examples=examples, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck),
                  phases=[Phase.generate, Phase.target, Phase.shrink] if not record_only
                  else [Phase.generate])
        @given(reference=docs, prediction=docs)
        def probe(reference, prediction):
            case = evaluate_case(metric, heuristic, reference, prediction, "generated")
            if record_only:
                report.generated.append(case)
                return
            target(case.shortfall)
            if case.failed:
                found.append(case)
                raise AssertionError("short of the optimum")

        try:
            probe()
        except AssertionError:
            return found[-1] if found else None  # hypothesis replays the shrunk case last
        return None

    run(record_only=True)
    if any(c.failed for c in report.generated):
        report.counterexample = run(record_only=False)
    return report


def pytest_case(metric: Metric, heuristic: str, case: Case) -> str:
    """A ready-to-paste pytest function pinning ``case``."""
    spec = pprint.pformat(metric.to_dict(), indent=4, width=92, sort_dicts=False)
    ref, pred = repr(case.reference), repr(case.prediction)
    return f'''def test_heuristic_reaches_the_optimum():
    """Found by exactalign validate: the optimum is {case.optimum!r}, the heuristic reaches
    {case.heuristic!r}{'; ' + case.problem if case.problem else ''}."""
    from exactalign.declared import Metric
    from exactalign.declared.validate import evaluate_case, resolve_callable

    metric = Metric.from_dict({spec})
    reference = {ref}
    prediction = {pred}
    case = evaluate_case(metric, resolve_callable("{heuristic}"), reference, prediction)
    assert not case.failed, (case.optimum, case.heuristic, case.problem)
'''
