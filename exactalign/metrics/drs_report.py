"""Counter's F-score of two DRS files under the proven-optimal mapping and under Counter's own
hill-climbing: :func:`score_files` (what ``exactalign drs PRED GOLD`` prints) and
:func:`score_drss` (clause lists in memory), both returning a :class:`DrsReport`.

Per DRS pair (the n-th DRS of each file): Counter's clauses (:func:`~.drs.counter_drs`), then

* ``exact``: the optimum of Counter's objective over every one-to-one mapping
  (:func:`~.drs.counter_instance`, solved by :func:`~exactalign.problems.latent.
  solve_exact_many`; status ``optimal`` when proven);
* ``counter``: Counter's hill-climbing, reproduced call for call (:mod:`.drs_counter`), drawing
  from one ``random.Random(seed)`` across the pairs in file order, as Counter (``-p 1``) draws
  from the global generator across them; its mapping recounted on the instance. ``runs`` (Counter's
  ``-runs``) repeats the whole pass, the generator running on; the rows are the first run's.

The corpus scores are Counter's: the pairs' matched, produced and gold clauses summed, then
``compute_f`` (:func:`~.drs.counter_f`, ``digits`` as ``-sig``). Two differences from Counter's
command line, both on purpose: files with different numbers of DRSs are an input error (Counter
prints a line and exits with status 0, scoring nothing); and Counter's ``-ill`` default,
``error``, names the file, line and DRS of the first ill-formed DRS (its referee, ours:
:mod:`exactalign.io.drs_referee`) -- Counter raises a ``ValueError`` without them.
"""

from __future__ import annotations

import random
import time
from typing import NamedTuple

from ..core.errors import InputError, VerificationError
from .aggregation import prf_counts_dict
from .drs import (
    COUNTER_VERSIONS,
    DEFAULT_OPTIONS,
    SIGNATURE_OPTIONS,
    V220_OPTIONS,
    CounterOptions,
    counter_drs,
    counter_f,
    counter_instance,
)
from .drs_counter import DEFAULT_RESTARTS, CounterMatch, counter_match

#: The methods ``score_*`` accepts.
DRS_METHODS = ("exact", "hillclimb", "both")
#: Other names of the methods: ``counter`` is Counter's hill-climbing (``hillclimb``).
METHOD_ALIASES = {"counter": "hillclimb"}


class DrsPair(NamedTuple):
    """One DRS pair: its position ``index`` (from 0), the lines its DRSs start on (0 when not
    read from a file), Counter's ``produced`` and ``gold`` clause counts, and per method what it
    found: ``exact`` a :class:`~exactalign.core.result.Result`, ``counter`` a
    :class:`~.drs_counter.CounterMatch` (first run), ``runs`` Counter's matched count in
    every run."""

    index: int
    pred_line: int
    gold_line: int
    produced: int
    gold: int
    exact: object | None
    counter: CounterMatch | None
    runs: tuple

    def matched(self, method: str):
        """The clauses ``method`` (``exact``, ``hillclimb``) matched on this pair."""
        if method == "exact":
            return None if self.exact is None else self.exact.objective
        return None if self.counter is None else self.counter.matched


class DrsReport(NamedTuple):
    """A DRS scoring run (module docstring): ``methods`` (``exact``, ``hillclimb`` or both, in
    that order), the settings, ``pairs`` (:class:`DrsPair`), ``ill`` (ill-formed DRSs handled,
    per side), ``wall_time`` per method, ``warnings``."""

    pred: str | None
    gold: str | None
    methods: tuple
    options: CounterOptions
    restarts: int
    seed: int
    smart: bool
    runs: int
    digits: int
    ill_mode: str
    ill: dict
    pairs: tuple
    wall_time: dict
    warnings: tuple
    #: what the command shows, built once by :func:`report` (the command only formats it):
    #: per method, Counter's P/R/F of the summed counts with ``counts`` (``matched``,
    #: ``produced``, ``gold``)
    overall: dict = {}
    #: the pairs proven optimal, and the F no mapping exceeds (the bounds summed) when some
    #: pair is not proven and every pair has a bound (else ``None``)
    proven_pairs: int | None = None
    bound_f1: float | None = None
    #: Counter's settings and, per run, its P/R/F (``runs``), with both methods the pairs
    #: where it falls below the optimum (``below``), the clauses (``short``) and F1 points
    #: (``f1_points``) it misses; ``None`` without the counter method
    counter: dict | None = None
    #: Counter's (P, R, F) per run and their average (``--runs`` above 1)
    per_run: tuple = ()
    run_average: tuple | None = None
    #: one row per pair: ``id``, ``scores`` per method, ``solves``, ``line``, ``pred_line``,
    #: ``counter`` (found_idx, smart, rounds, runs)
    documents: tuple = ()
    #: the corpus solve of the exact method (the pairs' results combined)
    solves: dict = {}

    def to_dict(self) -> dict:
        """What ``exactalign drs --json`` prints after its envelope (``command``, ``version``,
        ``inputs``, ``options``): ``pred``, ``gold``, ``pairs_scored``, ``overall`` (per method
        P, R, F with ``counts``), ``counter``, ``ill``, ``documents`` (one row per pair),
        ``warnings``, ``wall_time``, and ``solves`` when the exact method ran."""
        out = {"pred": self.pred, "gold": self.gold, "pairs_scored": len(self.pairs),
               "overall": self.overall, "counter": self.counter,
               "ill": {"mode": self.ill_mode, **self.ill}, "documents": list(self.documents),
               "warnings": list(self.warnings), "wall_time": self.wall_time}
        if self.solves:
            out["solves"] = self.solves
        return out

    def totals(self, method: str) -> tuple:
        """``(matched, produced, gold)`` summed over the pairs."""
        return (sum(p.matched(method) for p in self.pairs),
                sum(p.produced for p in self.pairs), sum(p.gold for p in self.pairs))

    def scores(self, method: str) -> tuple:
        """Counter's ``(P, R, F)`` of the totals."""
        return counter_f(*self.totals(method), self.digits)

    def pair_scores(self, pair: DrsPair, method: str) -> tuple:
        """Counter's ``(P, R, F)`` of one pair (``-ms``)."""
        return counter_f(pair.matched(method), pair.produced, pair.gold, self.digits)

    def proven(self) -> int:
        """Pairs whose exact mapping is proven optimal."""
        return sum(1 for p in self.pairs if p.exact is not None and p.exact.proven_optimal)

    def bound(self) -> float | None:
        """The most clauses any mapping can match over the corpus (the bounds summed, each at
        most the pair's smaller clause count: a clause matches one clause at most), ``None``
        if some pair has no bound."""
        bounds = [p.exact.bound for p in self.pairs]
        if any(b is None for b in bounds):
            return None
        return sum(min(b, p.produced, p.gold) for b, p in zip(bounds, self.pairs, strict=True))

    def below(self) -> int:
        """Pairs where Counter's mapping matches fewer clauses than the optimum (both methods
        run, else ``ValueError``)."""
        if len(self.methods) < 2:
            raise ValueError("below() compares both methods; this report ran only "
                             + self.methods[0])
        return sum(1 for p in self.pairs if p.counter.matched < p.exact.objective)

    def run_scores(self) -> list:
        """Counter's ``(P, R, F)`` of every run (``-runs``)."""
        prod = sum(p.produced for p in self.pairs)
        gold = sum(p.gold for p in self.pairs)
        return [counter_f(sum(p.runs[r] for p in self.pairs), prod, gold, self.digits)
                for r in range(self.runs)]


def _check_method(method: str) -> tuple:
    method = METHOD_ALIASES.get(method, method)
    if method not in DRS_METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of " + ", ".join(DRS_METHODS))
    return ("exact", "hillclimb") if method == "both" else (method,)


def score_drss(pred, gold, *, method: str = "both", restarts: int = DEFAULT_RESTARTS,
               seed: int = 0, smart: bool = True, runs: int = 1,
               options: CounterOptions | None = None, sense_map=None, digits: int = 4,
               time_limit: float | None = None, backend: str = "highs", lines=None,
               paths=(None, None), ill_mode: str = "score", ill=None,
               warnings=(), jobs: int = 1) -> DrsReport:
    """Score two parallel lists of DRSs, each a list of clauses (tuples of string fields as
    Counter splits a line). ``options``: Counter's clause options (default
    :data:`~.drs.SIGNATURE_OPTIONS`, Counter with ``-g clf_signature.yaml``); ``sense_map``:
    the WordNet map of concept normalisation (``None``: none). ``lines``: the start line of
    every DRS per side (for the rows). ``jobs``: worker processes of the exact path (-1: one
    per CPU; the results are the same as with one, :data:`CHUNK_PAIRS`; the hill-climbing runs
    in this process, its one generator across the pairs in order). Raises :class:`InputError`
    when the lists differ in length."""
    methods = _check_method(method)
    if len(pred) != len(gold):
        raise InputError(f"{len(pred)} DRSs in the produced file but {len(gold)} in the gold "
                         "file: the n-th DRS of each is a pair (Counter stops here too, with "
                         "exit status 0)", path=paths[0])
    if restarts < 1:
        raise ValueError(f"restarts must be at least 1, not {restarts!r}")
    if runs < 1:
        raise ValueError(f"runs must be at least 1, not {runs!r}")
    if not isinstance(jobs, int) or jobs == 0 or jobs < -1:
        raise ValueError(f"jobs must be -1 (one per CPU) or at least 1, not {jobs!r}")
    options = SIGNATURE_OPTIONS if options is None else options
    t0 = time.perf_counter()
    sides = []
    for n, (p, g) in enumerate(zip(pred, gold, strict=True)):
        try:
            sides.append((counter_drs(p, options, sense_map), counter_drs(g, options, sense_map)))
        except ValueError as e:
            raise InputError(f"DRS {n + 1}: {e}", path=paths[0]) from None
    return _score_sides(sides, time.perf_counter() - t0, methods, restarts=restarts, seed=seed,
                        smart=smart, runs=runs, options=options, digits=digits,
                        time_limit=time_limit, backend=backend, lines=lines, paths=paths,
                        ill_mode=ill_mode, ill=ill, warnings=warnings, jobs=jobs)


def _score_sides(sides, prep: float, methods: tuple, *, restarts, seed, smart, runs, options,
                 digits, time_limit, backend, lines, paths, ill_mode, ill, warnings,
                 jobs: int = 1) -> DrsReport:
    """:func:`score_drss` on the pairs' Counter clause lists (``prep``: the seconds their
    building took, counted in every method's time)."""
    wall = {}
    exact = [None] * len(sides)
    insts = None
    if "exact" in methods:
        t = time.perf_counter()
        exact, insts = _solve_exact(sides, time_limit, seed, backend, jobs)
        wall["exact"] = prep + time.perf_counter() - t
    counter = [None] * len(sides)
    matched_runs = [() for _ in sides]
    if "hillclimb" in methods:
        t = time.perf_counter()
        rng = random.Random(seed)
        per_run = []
        for _ in range(runs):
            per_run.append([counter_match(a, b, rng, restarts, smart) for a, b in sides])
        counter = per_run[0]
        matched_runs = [tuple(r[n].matched for r in per_run) for n in range(len(sides))]
        wall["hillclimb"] = prep + time.perf_counter() - t
        _verify_counter(sides, counter, insts, exact)
    lp, lg = lines if lines is not None else ([0] * len(sides), [0] * len(sides))
    pairs = tuple(DrsPair(n, lp[n], lg[n], a.n_clauses, b.n_clauses, exact[n], counter[n],
                          matched_runs[n])
                  for n, (a, b) in enumerate(sides))
    return report(DrsReport(paths[0], paths[1], methods, options, restarts, seed, smart, runs,
                            digits, ill_mode, dict(ill or {}), pairs, wall, tuple(warnings)))


class DrsScorer:
    """DRS scoring inside a training or tuning loop: the gold DRSs' Counter clause lists
    (operators, concept normalisation, types) built once, predictions scored against them again
    and again; :meth:`score` returns what :func:`score_drss` returns on the same pairs and
    options (the hill-climbing's generator seeded afresh at every call, as there).

        >>> from exactalign.metrics.drs_report import DrsScorer
        >>> gold = [[("b1", "REF", "x1"), ("b1", "dog", '"n.01"', "x1")],
        ...         [("b1", "REF", "e1"), ("b1", "run", '"v.01"', "e1")]]
        >>> scorer = DrsScorer(gold, method="exact")
        >>> rep = scorer.score([[("b1", "REF", "x1"), ("b1", "cat", '"n.01"', "x1")]],
        ...                    indices=[0])
        >>> rep.totals("exact"), rep.pairs[0].exact.status.value
        ((0.0, 1, 1), 'optimal')

    ``references``: the gold DRSs, each a list of clauses (tuples of string fields as Counter
    splits a line). The options are :func:`score_drss`'s and fixed for the scorer's life."""

    def __init__(self, references, *, method: str = "both", restarts: int = DEFAULT_RESTARTS,
                 seed: int = 0, smart: bool = True, runs: int = 1,
                 options: CounterOptions | None = None, sense_map=None, digits: int = 4,
                 time_limit: float | None = None, backend: str = "highs"):
        self.methods = _check_method(method)
        if restarts < 1 or runs < 1:
            raise ValueError("restarts and runs must be at least 1")
        self.options = SIGNATURE_OPTIONS if options is None else options
        self.sense_map = sense_map
        self._kw = {"restarts": restarts, "seed": seed, "smart": smart, "runs": runs,
                    "options": self.options, "digits": digits, "time_limit": time_limit,
                    "backend": backend}
        self._gold = []
        for n, g in enumerate(references):
            try:
                self._gold.append(counter_drs(g, self.options, sense_map))
            except ValueError as e:
                raise InputError(f"gold DRS {n + 1}: {e}") from None

    def __len__(self) -> int:
        return len(self._gold)

    def score(self, predictions, indices=None) -> DrsReport:
        """The :class:`DrsReport` of ``predictions`` against the gold DRSs ``indices`` (default
        the first ``len(predictions)``, in order)."""
        predictions = list(predictions)
        indices = list(range(len(predictions))) if indices is None else list(indices)
        if len(indices) != len(predictions):
            raise ValueError(f"{len(predictions)} predictions but {len(indices)} indices")
        t0 = time.perf_counter()
        sides = []
        for n, (p, k) in enumerate(zip(predictions, indices, strict=True)):
            if not 0 <= k < len(self._gold):
                raise IndexError(f"gold DRS {k} out of range (0..{len(self._gold) - 1})")
            try:
                sides.append((counter_drs(p, self.options, self.sense_map), self._gold[k]))
            except ValueError as e:
                raise InputError(f"DRS {n + 1}: {e}") from None
        return _score_sides(sides, time.perf_counter() - t0, self.methods, lines=None,
                            paths=(None, None), ill_mode="score", ill=None, warnings=(),
                            **self._kw)


def _counts(mt, t, g) -> dict:
    return {"matched": mt, "test_clauses": t, "gold_clauses": g}


def report(rep: DrsReport) -> DrsReport:
    """``rep`` (its pairs scored) with what the command shows filled in (:class:`DrsReport`'s
    fields from :attr:`~DrsReport.overall` on): the corpus summaries first, then the pairs'
    rows and the corpus solve."""
    from ..core.result import combine_results

    methods = rep.methods
    overall = {m: prf_counts_dict(*rep.scores(m), _counts(*rep.totals(m))) for m in methods}
    proven = bound_f1 = None
    if "exact" in methods:
        proven = rep.proven()
        bound = rep.bound()
        if proven < len(rep.pairs) and bound is not None:
            bound_f1 = counter_f(bound, *rep.totals("exact")[1:], rep.digits)[2]
    counter = None
    runs, average = (), None
    if "hillclimb" in methods:
        runs = tuple(rep.run_scores())
        counter = {"restarts": rep.restarts, "smart": rep.smart,
                   "runs": [prf_counts_dict(p, r, f) for p, r, f in runs],
                   "below": None, "short": None, "f1_points": None}
        if "exact" in methods:
            counter["below"] = rep.below()
            counter["short"] = rep.totals("exact")[0] - rep.totals("hillclimb")[0]
            counter["f1_points"] = 100 * (rep.scores("exact")[2] - rep.scores("hillclimb")[2])
        if rep.runs > 1:
            average = tuple(sum(s[i] for s in runs) / len(runs) for i in range(3))
    cells = [{m: prf_counts_dict(*rep.pair_scores(pair, m),
                      _counts(pair.matched(m), pair.produced, pair.gold)) for m in methods}
             for pair in rep.pairs]
    # what goes down to the solvers' layer last: the pairs' and the corpus's solves
    docs = []
    for pair, scores in zip(rep.pairs, cells, strict=True):
        solves = {} if pair.exact is None else {"exact": pair.exact.to_dict()}
        row = {"id": pair.index, "scores": scores, "solves": solves, "line": pair.gold_line,
               "pred_line": pair.pred_line}
        if pair.counter is not None:
            c = pair.counter
            row["counter"] = {"found_idx": c.found_idx, "smart": c.smart,
                              "rounds": list(c.rounds), "runs": list(pair.runs)}
        docs.append(row)
    solves = {}
    if "exact" in methods:
        solves["exact"] = combine_results([p.exact for p in rep.pairs], "exact").to_dict()
    return rep._replace(overall=overall, proven_pairs=proven, bound_f1=bound_f1,
                        counter=counter, per_run=runs, run_average=average,
                        documents=tuple(docs), solves=solves)


#: The exact path solves the pairs in contiguous chunks of this many, whatever ``jobs``: the
#: chunks (and so the batches of :func:`~exactalign.problems.latent.solve_exact_many` within
#: them) are the same in one process and in many, and so is every result.
CHUNK_PAIRS = 128


def _solve_exact(sides, time_limit, seed, backend, jobs: int = 1):
    """The exact results of the pairs (:data:`CHUNK_PAIRS` at a time, in this process or over
    ``jobs`` joblib workers, -1: one per CPU), and their instances (``None`` when built in
    workers)."""
    chunks = [sides[k:k + CHUNK_PAIRS] for k in range(0, len(sides), CHUNK_PAIRS)]
    from ..core.workers import worker_count

    workers = worker_count(jobs)
    if workers == 1 or len(chunks) == 1:
        t0 = time.perf_counter()
        res, insts = [], []
        for chunk in chunks:
            r, i = exact_chunk(chunk, time_limit, seed, backend, spent=time.perf_counter() - t0)
            res += r
            insts += i
        return res, insts
    import joblib

    from ..core.deadline import Deadline

    end = Deadline(time_limit).left()  # one budget, counted from now in every worker
    end = None if end is None else time.time() + end
    out = joblib.Parallel(n_jobs=min(workers, len(chunks)))(
        joblib.delayed(_worker_chunk)(chunk, end, seed, backend) for chunk in chunks)
    return [r for chunk in out for r in chunk], None


def exact_chunk(sides, time_limit, seed, backend, spent: float = 0.0) -> tuple:
    """``(results, instances)`` of the exact path on the pairs ``sides`` (Counter clause
    lists), within what is left of ``time_limit`` after ``spent`` seconds."""
    from ..core.solve import SolveOptions, remaining
    from ..problems import latent

    insts = [counter_instance(a, b) for a, b in sides]
    opts = SolveOptions(time_limit=remaining(time_limit, spent), seed=seed)
    return latent.solve_exact_many(insts, options=opts, backend=backend), insts


def _worker_chunk(sides, end, seed, backend) -> list:
    """:func:`exact_chunk` in a worker process, its budget ending at ``end`` (``time.time()``,
    ``None``: no limit)."""
    left = None if end is None else max(0.0, end - time.time())
    return exact_chunk(sides, left, seed, backend)[0]


def _verify_counter(sides, counter, insts, exact=None) -> None:
    """Recount every Counter mapping on its instance: the climber's own count must agree, and
    never exceed a proven optimum of the same pair (the exact search space holds every mapping
    Counter can reach; a Counter count above it would mean the model is wrong)."""
    from ..problems.latent import count_matches, mapping_rows

    for n, ((a, b), m) in enumerate(zip(sides, counter, strict=True)):
        inst = insts[n] if insts is not None else counter_instance(a, b)
        got = count_matches(inst, mapping_rows(list(m.mapping)))
        if got != m.matched:
            raise VerificationError(f"DRS {n + 1}: Counter's hill-climbing counted "
                                    f"{m.matched} clauses, its mapping matches {got}")
        ex = exact[n] if exact is not None else None
        if ex is not None and ex.proven_optimal and got > ex.objective + 1e-9:
            raise VerificationError(f"DRS {n + 1}: Counter's mapping matches {got} clauses, "
                                    f"above the proven optimum {ex.objective:g}")


class CounterRules(NamedTuple):
    """What one Counter version decides before any matching (:func:`counter_rules`): its
    referee (``judge``: a DRS -> its ``(message, line)`` problems; ``None``: today's referee
    under ``signature``), the DRS its ``-ill spar`` puts in, and its clause options."""

    judge: object
    signature: object
    spar: tuple
    options: CounterOptions

    def replace_ill(self, drss, mode: str, side: str) -> tuple[list, int]:
        """:func:`~exactalign.io.drs_referee.replace_ill` under these rules."""
        from ..io.drs_referee import replace_ill

        return replace_ill(drss, mode, signature=self.signature, side=side, judge=self.judge,
                           spar=self.spar)


def counter_rules(counter: str = "190838f", signature: bool = True) -> CounterRules:
    """The rules of Counter ``counter`` (:data:`~.drs.COUNTER_VERSIONS`) with or without its
    signature file (``-g``): today's (``190838f``), or the one of DRS_parsing's tag
    ``v.2.2.0`` -- its referee (:mod:`exactalign.io.drs_referee_v220`), SPAR DRS and
    operators over boxes (:data:`~.drs.V220_OPTIONS`, whatever ``-g``)."""
    from ..io.drs_referee import SIGNATURE, SPAR_DRS

    if counter not in COUNTER_VERSIONS:
        raise ValueError(f"unknown Counter {counter!r}; choose one of "
                         + ", ".join(COUNTER_VERSIONS))
    if counter == "v.2.2.0":
        from functools import partial

        from ..io.drs_referee_v220 import SIGNATURE_V220, SPAR_DRS_V220, problems_v220

        return CounterRules(partial(problems_v220, signature=SIGNATURE_V220 if signature
                                    else None), None, SPAR_DRS_V220, V220_OPTIONS)
    return CounterRules(None, SIGNATURE if signature else None, SPAR_DRS,
                        SIGNATURE_OPTIONS if signature else DEFAULT_OPTIONS)


def score_files(pred_path, gold_path, *, ill: str = "error", signature: bool = True,
                include_ref: bool = False, default_sense: bool = False,
                default_role: bool = False, default_concept: bool = False, sense_map=None,
                counter: str = "190838f", **kwargs) -> DrsReport:
    """:func:`score_drss` of two clause files (:func:`exactalign.io.drs.read_drs_file`), their
    ill-formed DRSs handled as Counter's ``-ill`` (``error``: an :class:`InputError` naming
    the first; ``dummy``, ``spar``: replaced; ``score``: kept) by the referee, with Counter's
    signature (``signature=False``: Counter without ``-g``, operators typed by their form and
    no operator over boxes). The other flags are Counter's ``-ic``, ``-dse``, ``-dr``,
    ``-dc``. ``counter``: whose rules (:data:`~.drs.COUNTER_VERSIONS`): today's Counter
    (``190838f``), or the one of DRS_parsing's tag ``v.2.2.0`` -- its referee
    (:mod:`exactalign.io.drs_referee_v220`), SPAR DRS and operators over boxes
    (:data:`~.drs.V220_OPTIONS`), with which PMB 2.2.0's results were published."""
    from ..io.drs import read_drs_file

    if ill not in ("error", "dummy", "spar", "score"):
        raise ValueError(f"unknown -ill mode {ill!r}")
    rules = counter_rules(counter, signature)
    sides, ill_counts, lines = [], {}, []
    for path, side in ((pred_path, "prod"), (gold_path, "gold")):
        drss = read_drs_file(path)
        n_ill = 0
        if ill != "score":  # -ill score: no judgement, every DRS scored as it is
            drss, n_ill = rules.replace_ill(drss, ill, side)
        ill_counts["pred" if side == "prod" else "gold"] = n_ill
        if not drss:
            raise InputError("no DRS in the file (Counter prints 'Both DRSs empty' or scores "
                             "nothing)", path=str(path))
        for d in drss:
            for clause, line in zip(d.clauses, d.lines, strict=True):
                if len(clause) < 3:
                    raise InputError(f"DRS {d.index + 1}: a clause of {len(clause)} "
                                     "field(s): not even -ill score can score it",
                                     path=str(path), line=line or None)
        sides.append([d.clauses for d in drss])
        lines.append([d.line for d in drss])
    options = rules.options._replace(
        include_ref=include_ref, default_sense=default_sense, default_role=default_role,
        default_concept=default_concept)
    warnings = [f"{n} ill-formed DRS{'s' if n != 1 else ''} in {path} replaced by "
                f"{'a dummy' if ill == 'dummy' else 'the SPAR'} DRS"
                for path, n in ((pred_path, ill_counts["pred"]), (gold_path, ill_counts["gold"]))
                if n and ill in ("dummy", "spar")]
    warnings += [f"{n} ill-formed DRS{'s' if n != 1 else ''} in {path} scored anyway "
                 "(unofficial, as Counter's -ill score)"
                 for path, n in ((pred_path, ill_counts["pred"]),
                                 (gold_path, ill_counts["gold"])) if n and ill == "score"]
    return score_drss(sides[0], sides[1], options=options, sense_map=sense_map, lines=lines,
                      paths=(str(pred_path), str(gold_path)), ill_mode=ill, ill=ill_counts,
                      warnings=warnings, **kwargs)

