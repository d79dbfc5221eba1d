"""Validate a user's heuristic against the certified optimum of a declared metric.

A *heuristic* is any function ``h(reference, prediction)`` of two documents (the metric's
document shape) returning either

* an alignment of the root collections: pairs ``(i, j)`` of reference item ``i`` and predicted
  item ``j`` -- it is checked against the root's constraint and scored with the declaration
  (nested levels solved exactly, as the metric defines them); or
* a number: the root score ``S(X, Y)`` it claims (cannot be checked for feasibility, only
  against the proven optimum).

:func:`validate` holds it against the optimum on four sources of instances, and its verdict
says exactly what was checked (:attr:`Report.scope`):

1. **your documents** (GOLD SYSTEM), each one;
2. **exhaustive**: every instance up to a size derived from the declaration
   (:mod:`exactalign.declared.search`);
3. **guided**: hypothesis' targeted search, maximising the shortfall and the competition
   between items;
4. **random**: generated documents.

The heuristic runs in a :class:`~exactalign.declared.sandbox.Sandbox` (a worker process with a
time and memory limit; its prints go to standard error); a crash, a time-out or an invalid
answer is a failure of the instance it happened on, never of ``validate``. Every failure is
shrunk (:func:`~exactalign.declared.search.shrink`) to a minimal failing instance, printed as a
ready-to-paste pytest case -- for your documents too, keeping the document's id and file.
"""

from __future__ import annotations

import math
import pprint
from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.errors import InputError
from .engine import Evaluator
from .metric import Metric
from .nodes import Latent, Match
from .sandbox import MEMORY_MB, TIME_LIMIT, Answer, Sandbox
from .search import enumerate_tier, observe, pair_strategy, shrink, size, tiers, using

TOL = 1e-9
PHASES = ("documents", "exhaustive", "guided", "random")
#: Defaults: exhaustive budget (instances), guided and random examples.
EXHAUSTIVE, GUIDED, RANDOM = 3000, 300, 200
#: Time-outs after which the search stops (each costs the whole time limit).
MAX_TIMEOUTS = 3
#: Failing documents shrunk to a minimal sub-document (the rest are listed).
SHRINK_DOCUMENTS = 5


@dataclass
class Case:
    """One document pair: the optimum, what the heuristic reached, and why not more."""

    source: str
    reference: object
    prediction: object
    optimum: float
    heuristic: float
    problem: str | None = None  # infeasible alignment, a claim above the optimum, a crash
    kind: str = "ok"  # ok, short, invalid, raised, timeout, died, above
    phase: str = ""

    @property
    def shortfall(self) -> float:
        return max(0.0, self.optimum - self.heuristic)

    @property
    def failed(self) -> bool:
        return self.kind != "ok"

    def to_dict(self) -> dict:
        return {"source": self.source, "phase": self.phase, "kind": self.kind,
                "optimum": self.optimum, "heuristic": self.heuristic,
                "shortfall": self.shortfall, "problem": self.problem,
                "reference": self.reference, "prediction": self.prediction}


@dataclass
class Report:
    metric: str
    heuristic: str
    cases: dict[str, list[Case]] = field(default_factory=lambda: {p: [] for p in PHASES})
    exhaustive: list[str] = field(default_factory=list)  # the tiers run in full
    counterexample: Case | None = None  # the smallest failing instance, shrunk
    documents: list[dict] = field(default_factory=list)  # every document that fell short
    notes: list[str] = field(default_factory=list)

    # compatibility: the user's documents and the generated ones
    @property
    def data(self) -> list[Case]:
        return self.cases["documents"]

    @property
    def generated(self) -> list[Case]:
        return [c for p in PHASES[1:] for c in self.cases[p]]

    @property
    def checked(self) -> int:
        return sum(len(v) for v in self.cases.values())

    @property
    def ok(self) -> bool:
        return self.checked > 0 and not any(c.failed for v in self.cases.values() for c in v)

    def scope(self) -> str:
        """What was checked, in words."""
        parts = []
        if self.cases["exhaustive"]:
            what = "; ".join(self.exhaustive) if self.exhaustive else \
                "stopped before a tier was complete"
            parts.append(f"{len(self.cases['exhaustive'])} exhaustive ({what})")
        for p in ("guided", "random"):
            if self.cases[p]:
                parts.append(f"{len(self.cases[p])} {p}")
        if self.cases["documents"]:
            parts.append(f"{len(self.cases['documents'])} of your documents")
        return ", ".join(parts) or "nothing"

    def verdict(self) -> str:
        if self.ok:
            return (f"OK: no counterexample in {self.checked} instances: {self.scope()}. "
                    "Beyond these the heuristic is unchecked.")
        bad = sum(1 for v in self.cases.values() for c in v if c.failed)
        return (f"FAILED: {bad} of {self.checked} instances fall short of the optimum or got "
                f"no valid answer ({self.scope()})")

    @staticmethod
    def _summary(cases: list[Case]) -> dict:
        failed = [c for c in cases if c.failed]
        opt = sum(c.optimum for c in cases)
        lost = sum(c.shortfall for c in cases)
        kinds: dict[str, int] = {}
        for c in failed:
            kinds[c.kind] = kinds.get(c.kind, 0) + 1
        return {"instances": len(cases), "failed": len(failed),
                "short": sum(1 for c in failed if c.kind == "short"),
                "invalid": len(failed) - sum(1 for c in failed if c.kind == "short"),
                "by_kind": kinds, "total_optimum": opt, "total_shortfall": lost,
                "relative_shortfall": lost / opt if opt else 0.0,
                "largest_shortfall": max((c.shortfall for c in cases), default=0.0)}

    def to_dict(self) -> dict:
        return {"metric": self.metric, "heuristic": self.heuristic, "ok": self.ok,
                "verdict": self.verdict(),
                "scope": {"instances": self.checked,
                          **{p: len(self.cases[p]) for p in PHASES},
                          "exhaustive_tiers": list(self.exhaustive)},
                "phases": {p: self._summary(self.cases[p]) for p in PHASES},
                "counterexample": None if self.counterexample is None
                else self.counterexample.to_dict(),
                "documents_short": self.documents, "notes": list(self.notes)}


def _optimum(metric: Metric, reference, prediction) -> float:
    doc = metric.score_document(prediction=prediction, reference=reference, method="exact")
    return float(doc.results[0].objective)


def _sides(metric: Metric, reference, prediction) -> tuple[int | None, int | None]:
    spec = metric.spec
    if not isinstance(spec, Match):
        return None, None
    return len(spec.items(metric._root(reference))), len(spec.items(metric._root(prediction)))


def evaluate_case(metric: Metric, heuristic: Callable | str | Sandbox, reference, prediction,
                  source: str = "", phase: str = "") -> Case:
    """The optimum vs the heuristic on one document pair (the heuristic run in a sandbox)."""
    if isinstance(heuristic, Sandbox):
        return _evaluate(metric, heuristic, reference, prediction, source, phase)
    with Sandbox(heuristic, isolate=False if not isinstance(heuristic, str) else None) as sb:
        return _evaluate(metric, sb, reference, prediction, source, phase)


def _evaluate(metric: Metric, sandbox: Sandbox, reference, prediction, source: str,
              phase: str) -> Case:
    optimum = _optimum(metric, reference, prediction)
    n_ref, n_pred = _sides(metric, reference, prediction)
    answer = sandbox(reference, prediction, n_ref, n_pred)
    value, problem, kind = 0.0, None, "ok"
    if answer.failed:
        problem, kind = answer.message, answer.kind
    elif answer.kind == "score":
        value = float(answer.value)
    else:
        value, problem = _score_alignment(metric, reference, prediction, answer)
        kind = "invalid" if problem else "ok"
    if kind == "ok" and value > optimum + TOL * max(1.0, optimum):
        problem, kind = (f"claims {value!r}, above the proven optimum {optimum!r}: no "
                         "feasible alignment scores that"), "above"
    if kind == "ok" and optimum - value > TOL * max(1.0, optimum):
        kind = "short"
    return Case(source, reference, prediction, optimum, value, problem, kind, phase)


def _score_alignment(metric: Metric, reference, prediction,
                     answer: Answer) -> tuple[float, str | None]:
    spec = metric.spec
    if not isinstance(spec, Match):
        return 0.0, "returned pairs, but a latent-variable metric's heuristic returns its score"
    X, Y = spec.items(metric._root(reference)), spec.items(metric._root(prediction))
    pairs = answer.value
    cap_x = 1 if spec.constraint in ("1:1", "N:1") else None
    cap_y = 1 if spec.constraint in ("1:1", "1:N") else None
    seen_x: dict[int, int] = {}
    seen_y: dict[int, int] = {}
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
    if spec.order == "dag":
        return 0.0, "alignments of DAG-ordered collections cannot be checked: return the score"
    ev = Evaluator("exact")
    return math.fsum(spec.element.sim(X[i], Y[j], ev) for i, j in pairs), None


def _contention(metric: Metric, reference, prediction) -> float:
    """Candidate pairs beyond one per item: how much the items compete for partners (what
    makes an aligner choose); the guided search climbs it."""
    spec = metric.spec
    if isinstance(spec, Latent):
        return float(sum(len(d.get(spec.triples, [])) for d in (
            metric._root(reference), metric._root(prediction)) if isinstance(d, dict)))
    X, Y = spec.items(metric._root(reference)), spec.items(metric._root(prediction))
    ev = Evaluator("exact")
    sims = [s for x in X for y in Y if (s := spec.element.sim(x, y, ev)) > 0]
    return len(sims) - max(len(X), len(Y), 1) + len({round(s, 9) for s in sims})


def validate(metric: Metric, heuristic: Callable | str, references=None, predictions=None, *,
             examples: int = RANDOM, guided: int = GUIDED, exhaustive: int = EXHAUSTIVE,
             seed: int = 0, ids=None, sources=None, time_limit: float | None = TIME_LIMIT,
             memory_mb: int | None = MEMORY_MB, isolate: bool | None = None,
             shrink_calls: int = 2000) -> Report:
    """Hold ``heuristic`` against ``metric``'s optimum: on the given documents (``ids`` and
    ``sources`` -- ``"file:line"`` -- name them), every instance of the exhaustive tiers that
    fit ``exhaustive`` instances, ``guided`` targeted and ``examples`` random generated ones.
    The smallest failure is shrunk to :attr:`Report.counterexample`; failing documents to
    minimal sub-documents (:attr:`Report.documents`)."""
    with Sandbox(heuristic, time_limit=time_limit, memory_mb=memory_mb,
                 isolate=isolate) as sb:
        report = Report(metric.name, sb.name)
        timeouts = 0

        def run(reference, prediction, source, phase) -> Case:
            nonlocal timeouts
            case = _evaluate(metric, sb, reference, prediction, source, phase)
            report.cases[phase].append(case)
            if case.kind == "timeout":
                timeouts += 1
            return case

        def stop() -> bool:
            if timeouts >= MAX_TIMEOUTS:
                note = (f"stopped after {timeouts} time-outs (each costs --time-limit "
                        f"{time_limit:g} s); later phases were not run")
                if note not in report.notes:
                    report.notes.append(note)
                return True
            return False

        # 1. the user's documents
        if references is not None:
            references, predictions = list(references), list(predictions)
            if len(references) != len(predictions):
                raise InputError(f"{len(references)} reference but {len(predictions)} "
                                 "predicted documents")
            for k, (r, p) in enumerate(zip(references, predictions, strict=True)):
                name = str(ids[k]) if ids is not None else str(k)
                where = sources[k] if sources is not None else None
                try:
                    case = run(r, p, name, "documents")
                except InputError as e:  # the metric cannot read it: where it is
                    if getattr(e, "document", None) is None:
                        e.document, e.side = k, getattr(e, "side", None)
                        if not e.message.startswith("document "):
                            e.message = f"document {name!r}: {e.message}"
                    raise
                if case.failed:
                    report.documents.append({"id": name, "source": where, "kind": case.kind,
                                             "optimum": case.optimum,
                                             "heuristic": case.heuristic,
                                             "shortfall": case.shortfall,
                                             "problem": case.problem, "minimal": None})
                if stop():
                    break

        pools = observe(metric, [*(references or []), *(predictions or [])])
        with using(pools):
            _generated(metric, report, run, stop, exhaustive, guided, examples, seed)
        raised = [c for p in PHASES[1:] for c in report.cases[p] if c.kind in ("raised", "died")]
        if raised and not any(c.kind in ("raised", "died") for c in report.cases["documents"]):
            report.notes.append(
                "the heuristic raised only on generated documents: they hold the metric's "
                "fields alone, with " + ("values drawn from your documents" if pools else
                                         "labels 'a', 'b', 'c' and small integer spans")
                + "; if it needs more, validate it on your documents (GOLD SYSTEM) with "
                  "--exhaustive 0 --guided 0 --examples 0")
        _minimise(metric, sb, report, shrink_calls)
    return report


def _generated(metric: Metric, report: Report, run, stop, exhaustive: int, guided: int,
               examples: int, seed: int) -> None:
    """Phases 2-4: exhaustive tiers, guided and random search."""
    # 2. exhaustive
    if exhaustive > 0 and not stop():
        try:
            chosen = tiers(metric, exhaustive)
        except InputError as e:
            chosen = []
            report.notes.append(f"no exhaustive search: {e.message}")
        for tier in chosen:
            complete = True
            for x, y in enumerate_tier(metric, tier):
                if stop():
                    complete = False
                    break
                run(x, y, "exhaustive", "exhaustive")
            if complete:
                report.exhaustive.append(tier.describe(metric))
        if not chosen and not report.notes:
            report.notes.append(f"no exhaustive tier fits {exhaustive} instances")

    # 3. guided, 4. random
    for phase, n, s in (("guided", guided, seed), ("random", examples, seed + 1)):
        if n > 0 and not stop():
            _hypothesis(metric, run, stop, phase, n, s, report)


def _hypothesis(metric: Metric, run, stop, phase: str, n: int, seed: int,
                report: Report) -> None:
    from hypothesis import HealthCheck, Phase, given, settings, target
    from hypothesis import seed as hseed

    try:
        pairs = pair_strategy(metric)
    except InputError as e:
        note = f"no generated documents: {e.message}"
        if note not in report.notes:
            report.notes.append(note)
        return
    phases = [Phase.generate, Phase.target] if phase == "guided" else [Phase.generate]

    @hseed(seed)
    @settings(max_examples=n, deadline=None, database=None, phases=phases,
              suppress_health_check=list(HealthCheck))
    @given(pair=pairs)
    def probe(pair):
        reference, prediction = pair
        if stop():
            return
        case = run(reference, prediction, phase, phase)
        if phase == "guided":
            target(case.shortfall, label="shortfall")
            target(_contention(metric, reference, prediction), label="contention")

    probe()


def _minimise(metric: Metric, sb: Sandbox, report: Report, calls: int) -> None:
    """The smallest failing generated instance, shrunk; failing documents, shrunk."""
    def fails_like(kind):
        def fails(x, y) -> bool:
            return _evaluate(metric, sb, x, y, "shrinking", "").kind == kind
        return fails

    generated = [c for p in PHASES[1:] for c in report.cases[p] if c.failed]
    if generated:
        first = min(generated, key=lambda c: (c.kind == "timeout",
                                              size(c.reference) + size(c.prediction)))
        report.counterexample = _shrunk(metric, sb, first, fails_like(first.kind), calls)
    documents = [c for c in report.cases["documents"] if c.failed]
    for row, case in zip(report.documents, documents, strict=True):
        if len([r for r in report.documents if r["minimal"] is not None]) >= SHRINK_DOCUMENTS:
            break
        small = _shrunk(metric, sb, case, fails_like(case.kind), calls)
        row["minimal"] = {"reference": small.reference, "prediction": small.prediction,
                          "optimum": small.optimum, "heuristic": small.heuristic,
                          "problem": small.problem}
        if report.counterexample is None:
            report.counterexample = small


def _shrunk(metric: Metric, sb: Sandbox, case: Case, fails, calls: int) -> Case:
    if case.kind == "timeout":  # every try could cost the whole limit: kept as found
        return case
    (x, y), _ = shrink((case.reference, case.prediction), fails, field=metric.field,
                       max_calls=calls)
    small = _evaluate(metric, sb, x, y, case.source, case.phase)
    return small if small.kind == case.kind else case


def pytest_case(metric: Metric, heuristic: str, case: Case) -> str:
    """A ready-to-paste pytest function pinning ``case``."""
    spec = pprint.pformat(metric.to_dict(), indent=4, width=92, sort_dicts=False)
    ref = pprint.pformat(case.reference, width=80, sort_dicts=False)
    pred = pprint.pformat(case.prediction, width=80, sort_dicts=False)
    found = f" (document {case.source})" if case.phase == "documents" else ""
    return f'''def test_heuristic_reaches_the_optimum():
    """Found by exactalign validate{found}: the optimum is {case.optimum!r}, the heuristic
    reaches {case.heuristic!r}{'; ' + case.problem if case.problem else ''}."""
    from exactalign.declared import Metric
    from exactalign.declared.validate import evaluate_case

    metric = Metric.from_dict({spec})
    reference = {ref}
    prediction = {pred}
    case = evaluate_case(metric, "{heuristic}", reference, prediction)
    assert not case.failed, (case.optimum, case.heuristic, case.problem)
'''


