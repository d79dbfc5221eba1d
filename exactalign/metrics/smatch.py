"""Smatch (Cai & Knight 2013): the best F1 of triple overlap over one-to-one variable mappings.

For a test graph with ``T`` triples and a gold graph with ``G`` triples (built as smatch 1.0.4
builds them, :mod:`exactalign.io.amr`), a mapping of test variables to gold variables *matches*
``M`` (test triple, gold triple) pairs (:mod:`exactalign.problems.latent`); smatch 1.0.4 reports
``P = M / T``, ``R = M / G``, ``F = 2PR / (P + R)`` (all 0 when ``T`` or ``G`` is 0) with ``M``
the best its hill-climbing finds. Over a corpus it sums ``M``, ``T`` and ``G`` over the pairs
first (``score_amr_pairs``), then computes P/R/F once.

Triple compatibility (``smatch.compute_pool``): instance triples match when their concepts are
equal after :func:`~exactalign.io.amr.normalize` (lower case, trailing ``_`` removed), attribute
triples when their roles and constants are, relation triples when their roles are.

Duplicate triples (:data:`DUPLICATES`): a graph can state one triple twice (``(a / x :ARG0 b
:ARG0 (b / y))``). smatch 1.0.4 keeps both copies and counts every (test copy, gold copy) pair,
so a graph against itself can score above 1 (``F = 1.25``). Here triples are a set by default
(``duplicates="set"``: each graph keeps the first copy of every triple, compared as smatch
compares them, after :func:`~exactalign.io.amr.normalize`; :func:`distinct`), so ``F <= 1`` and a
graph against itself scores 1; each dropped copy is reported (``CorpusScore.warnings``).
``duplicates="keep"`` reproduces smatch 1.0.4's counts, the bug included.

Variants (:data:`VARIANTS`):

``full``           every triple, as ``smatch -f``.
``unlabeled``      relation triples match whatever their roles (instances and attributes as
                   in ``full``).
``no-attributes``  attribute triples (with the ``TOP`` triple) are left out on both sides, in
                   the counts too (instances and relations, as ``smatch --justinstance`` and
                   ``--justrelation`` together would if they could be combined).
``concept-only``   instance triples only (``smatch --justinstance``).

Speed (``results/smatch_walltime``: one machine, fresh processes in alternating rounds, bytecode
cached): numpy, scipy and HiGHS take about 0.35-0.6 s to import, more than scoring 103 small AMR
pairs, so :func:`score_pairs` proves pairs with the pure-Python branch and bound first and
imports them only for pairs it does not finish; the command line's smatch path also avoids
``dataclasses`` (about 15 ms of start-up). ``exactalign smatch`` on the Little Prince files (103
pairs): median 0.11-0.14 s, 0.79-0.98 of smatch 1.0.4's (Python's start-up, about 0.035 s, is in
both; penman's import, about 0.02 s, only in ours); on the 400- and 1,380-pair files 0.67 s and
1.15 s against 1.6 s and 2.6 s.
"""

from __future__ import annotations

from typing import NamedTuple

from ..core.batch import batch_indices
from ..core.errors import InputError
from ..io.amr import AmrGraph, normalize, parse_graph, read_pairs
from ..problems import latent
from .aggregation import PRECISION_FIRST, PRF

VARIANTS = ("full", "unlabeled", "no-attributes", "concept-only")
#: How duplicate triples count: once (``set``, the default) or as smatch 1.0.4 counts them.
DUPLICATES = ("set", "keep")

METHODS = ("exact", "hillclimb", "both")


#: Candidate restrictions of :func:`score_pairs`: none (Smatch), or docSmatch's sentence buckets.
RESTRICTIONS = ("none", "sentence")


def reachable(adj: dict, start) -> set:
    """The variables reachable from ``start`` (itself included) along ``adj``."""
    seen, todo = {start}, [start]
    while todo:
        for w in adj.get(todo.pop(), ()):
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def sentence_buckets(g: AmrGraph) -> list[set]:
    """docSmatch's sentence buckets of a document graph (IBM/docAMR, ``docSmatch/amr.py``,
    ``categorize_nodes_by_sentence``): bucket 0 holds the top variable alone; bucket ``n`` every
    variable reachable from the target of the top's ``:sntN`` edge. Reachability follows the
    relations as smatch stores them (``R(x, y)``): ``x -> y`` unless ``R`` is ``coref`` or the
    edge was written ``:mod``; ``y -> x`` too when the edge was written inverted (``:R-of``) or
    ``R`` is ``part``, ``subset`` or ``coref``; then, for each ``coref(x, y)`` in order, ``x ->
    y`` when ``y`` is not yet reachable from the top and ``x`` is. A graph without ``:snt``
    edges on its top is one bucket of every variable. The ``:snt`` numbers must run 1..K
    (docSmatch drops such a document silently; here it is an error)."""
    n = len(g.variables)
    roots = {}
    for r, i, j in g.relations:
        if i == 0 and r.startswith("snt"):
            try:
                roots[int(r[3:])] = j
            except ValueError:
                raise InputError(f"a sentence edge :{r} has no sentence number",
                                 line=g.line or None) from None
    if not roots:
        return [set(range(n))]
    if sorted(roots) != list(range(1, len(roots) + 1)):
        raise InputError("sentence edges must be numbered :snt1 .. :snt"
                         f"{len(roots)}, not " + ", ".join(f":snt{k}" for k in sorted(roots)),
                         line=g.line or None)
    inverted = g.inverted or (False,) * len(g.relations)
    adj: dict = {}
    coref = []
    for (r, x, y), inv in zip(g.relations, inverted, strict=True):
        if r != "coref" and not (r == "domain" and inv):
            adj.setdefault(x, []).append(y)
        if r == "coref":
            coref.append((x, y))
        if inv or r in ("part", "subset", "coref"):
            adj.setdefault(y, []).append(x)
    top = reachable(adj, 0)
    for x, y in coref:
        if y not in top and x in top:
            adj.setdefault(x, []).append(y)
            top |= reachable(adj, y)
    return [{0}] + [reachable(adj, roots[k]) for k in range(1, len(roots) + 1)]


def allowed_pairs(test: AmrGraph, gold: AmrGraph, paths=(None, None)) -> frozenset | None:
    """docSmatch's candidate pairs (``compute_pool``): test variable ``i`` may map to gold
    variable ``j`` when some bucket ``n`` holds ``i`` on the test side and ``j`` on the gold
    side (:func:`sentence_buckets`, buckets matched by number; gold buckets past the test's are
    ignored, test buckets past the gold's get no partner). None -- no restriction -- when neither
    graph has sentence edges: each is one bucket of all its variables, every pair allowed."""
    buckets = []
    for g, path in zip((test, gold), paths, strict=True):
        try:
            buckets.append(sentence_buckets(g))
        except InputError as e:
            raise InputError(e.message, path=path, line=e.line) from None
    b1, b2 = buckets
    if len(b1) == len(b2) == 1:
        return None
    out = set()
    for n, bucket in enumerate(b1):
        if n < len(b2):
            out.update((i, j) for i in bucket for j in b2[n])
    return frozenset(out)


def instance_of(test: AmrGraph, gold: AmrGraph, variant: str = "full",
                allowed: frozenset | None = None):
    """The latent-variable matching instance of a (test, gold) pair under ``variant``: unary
    triples ``(("instance", concept), v)`` and ``((role, constant), v)`` with normalised keys,
    binary triples ``(role, v1, v2)``, instance triples first (smatch's pool order)."""
    left, right = side_of(test, variant, "left"), side_of(gold, variant, "right")
    return latent.LatentInstance.from_sides(left, right, allowed)


def side_of(g: AmrGraph, variant: str = "full", side: str = "left"):
    """One graph's half of :func:`instance_of` (a
    :class:`~exactalign.problems.latent.instance.LatentSide`, checked once): the test graph is
    the ``left`` side, the gold graph the ``right``."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown smatch variant {variant!r}; choose one of "
                         + ", ".join(VARIANTS))
    unary = [(("instance", normalize(c)), v) for _, v, c in g.instances]
    binary = []
    if variant != "concept-only":
        if variant != "no-attributes":
            unary += [((normalize(r), normalize(c)), v) for r, v, c in g.attributes]
        lab = (lambda r: "") if variant == "unlabeled" else normalize
        binary = [(lab(r), v1, v2) for r, v1, v2 in g.relations]
    return latent.LatentSide(len(g.variables), unary, binary, tuple(c for _, _, c in g.instances),
                      side=side)


class Duplicate(NamedTuple):
    """A triple a graph states more than once (``duplicates="set"`` counts it once)."""

    side: str        # "test" or "gold"
    pair: int        # index of the pair
    line: int        # line where the graph starts
    triple: tuple    # (role, source variable name, target variable name or constant)
    copies: int      # how many times the graph states it

    def message(self, path=None) -> str:
        """One line: ``PATH:LINE: graph N states (a :ARG0 b) 2 times; counted once (...)``."""
        r, a, b = self.triple
        where = f"{path}:{self.line}: " if path is not None else f"{self.side} "
        return (f"{where}graph {self.pair + 1} states ({a} :{r} {b}) {self.copies} times; "
                "counted once (--duplicates keep counts every copy, as smatch 1.0.4 does)")


def distinct(g: AmrGraph) -> tuple[AmrGraph, list[tuple[tuple, int]]]:
    """``g`` with every triple kept once (its first copy), triples compared as smatch compares
    them (:func:`~exactalign.io.amr.normalize` on concepts, roles and constants; relations by
    role and both variables); and the duplicated triples, readable ``(role, variable name,
    concept, constant or variable name)``, with their copy counts."""
    names = g.variables
    kinds = ((g.instances, lambda t: (normalize(t[2]), t[1]), lambda t: t[2]),
             (g.attributes, lambda t: (normalize(t[0]), t[1], normalize(t[2])), lambda t: t[2]),
             (g.relations, lambda t: (normalize(t[0]), t[1], t[2]), lambda t: names[t[2]]))
    out, dup = [], []
    for triples, key, target in kinds:
        seen: dict = {}
        for t in triples:
            seen.setdefault(key(t), []).append(t)
        out.append(tuple(copies[0] for copies in seen.values()))
        dup += [((c[0][0], names[c[0][1]], target(c[0])), len(c))
                for c in seen.values() if len(c) > 1]
    if not dup:
        return g, []
    inverted = g.inverted
    if inverted:  # one flag per relation kept: its first copy's
        first: dict = {}
        for t, inv in zip(g.relations, inverted, strict=True):
            first.setdefault(kinds[2][1](t), inv)
        inverted = tuple(first[kinds[2][1](t)] for t in out[2])
    return g._replace(instances=out[0], attributes=out[1], relations=out[2],
                      inverted=inverted), dup


class PairScore(NamedTuple):
    """One pair: triple counts, the matched counts of the methods run, and the exact solve."""

    index: int
    test_triples: int
    gold_triples: int
    exact: object | None = None       # Result of the exact solve
    hillclimb: object | None = None   # Result of smatch's hill-climbing
    graphs: tuple | None = None       # (test, gold) AmrGraph

    def result(self, method: str):
        """The Result of ``method`` (``exact`` or ``hillclimb``), ``None`` when not run."""
        return self.exact if method == "exact" else self.hillclimb

    def scores(self, method: str) -> PRF:
        """The pair's counts under ``method`` (:func:`smatch_scores`)."""
        return smatch_scores(self.result(method).objective, self.test_triples,
                             self.gold_triples)


def smatch_scores(match: float, test: float, gold: float) -> PRF:
    """``smatch.compute_f`` as counts: precision ``match / test``, recall ``match / gold``; all
    scores 0 when ``test`` or ``gold`` is 0 (then the matched count is taken as 0)."""
    match, test, gold = float(match), float(test), float(gold)
    if test == 0 or gold == 0:
        match = 0.0
    return PRF.from_tp(match, gold, test)


class CorpusScore(NamedTuple):
    pairs: tuple
    variant: str
    methods: tuple
    wall_time: dict
    duplicates: tuple = ()  # Duplicate records of the triples counted once

    def totals(self, method: str) -> tuple[float, int, int]:
        """Summed (matched, test, gold) triple counts over the pairs."""
        m = sum(float(p.result(method).objective) for p in self.pairs)
        return m, sum(p.test_triples for p in self.pairs), sum(p.gold_triples for p in self.pairs)

    def scores(self, method: str) -> PRF:
        """Corpus counts under ``method``: the pairs' counts summed first, as
        ``score_amr_pairs`` sums them (:func:`smatch_scores` of :meth:`totals`)."""
        return smatch_scores(*self.totals(method))


def _count(g: AmrGraph, variant: str) -> int:
    """The triples of ``g`` that ``variant`` counts."""
    if variant == "concept-only":
        return len(g.instances)
    if variant == "no-attributes":
        return len(g.instances) + len(g.relations)
    return g.num_triples


def _counts(test: AmrGraph, gold: AmrGraph, variant: str) -> tuple[int, int]:
    return _count(test, variant), _count(gold, variant)


def score_pairs(pairs, *, method: str = "exact", variant: str = "full",
                restarts: int = 4, seed: int = 0, time_limit: float | None = None,
                linking: str = "aggregated", backend: str = "highs",
                bnb_work: int | None = None, duplicates: str = "set",
                restrict: str = "none", paths=(None, None), jobs: int = 1) -> CorpusScore:
    """Score (test, gold) graph pairs with ``method`` (``exact``, ``hillclimb`` or ``both``),
    duplicate triples counted once (``duplicates="set"``) or as smatch 1.0.4 counts them
    (``"keep"``; module docstring).

    The pairs' instances go down once, to
    :func:`~exactalign.problems.latent.corpus.solve_corpus`, which says how each method runs:
    the exact path tries the pure-Python branch and bound on every pair (budget ``bnb_work``,
    0 skips it) and solves the pairs it did not finish through their LPs in batches
    (``backend``: the solver of the rare MIPs); ``time_limit`` is the budget of the whole exact
    computation, and with ``both`` of the hill-climbing after it too (past it, pairs keep their
    incumbent and a valid bound, status ``time_limit``); the hill-climber draws from one
    ``random.Random(seed)`` across the pairs in order, as smatch would from its global generator
    were it not reseeded at every initial mapping; ``jobs`` (``-1``: one per CPU) spreads the
    exact path over worker processes (joblib, so an enclosing
    ``joblib.parallel_config(backend="dask")`` sends it to a Dask cluster). numpy, scipy and
    HiGHS are imported only when a pair needs them, which on the small pilot files is never
    (module docstring). ``restrict="sentence"``: only docSmatch's candidate pairs
    (:func:`allowed_pairs`) may be mapped, and a triple counts only when every variable pair it
    needs is one of them -- the exact optimum and the hill-climbing of docSmatch's search space.

    Every mapping (``Result.alignment``) is a sorted tuple of ``(test variable, gold variable)``
    rows, and every objective is recounted from the triples
    (:func:`~exactalign.problems.latent.matches.count_matches`)."""
    _check_options(method, duplicates, restrict)
    pairs = list(pairs)
    allowed = [allowed_pairs(t, g, paths) if restrict == "sentence" else None
               for t, g in pairs]
    dups: list[Duplicate] = []
    if duplicates == "set":
        for k, pair in enumerate(pairs):
            kept = []
            for side, g in zip(("test", "gold"), pair, strict=True):
                d, found = distinct(g)
                kept.append(d)
                dups += [Duplicate(side, k, g.line, t, c) for t, c in found]
            pairs[k] = tuple(kept)
    counts = [_counts(t, g, variant) for t, g in pairs]
    insts = [instance_of(t, g, variant, allowed=a) for (t, g), a in zip(pairs, allowed,
                                                                        strict=True)]
    return _score_instances(insts, counts, pairs, dups, variant=variant, method=method,
                            restarts=restarts, seed=seed, time_limit=time_limit,
                            linking=linking, backend=backend, bnb_work=bnb_work, jobs=jobs)


def _check_options(method: str, duplicates: str, restrict: str) -> None:
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of " + ", ".join(METHODS))
    if duplicates not in DUPLICATES:
        raise ValueError(f"unknown duplicates rule {duplicates!r}; choose one of "
                         + ", ".join(DUPLICATES))
    if restrict not in RESTRICTIONS:
        raise ValueError(f"unknown restriction {restrict!r}; choose one of "
                         + ", ".join(RESTRICTIONS))


def _score_instances(insts, counts, pairs, dups, *, variant, method, jobs=1,
                     **options) -> CorpusScore:
    """The methods of :func:`score_pairs` run on the pairs' instances, handed down once
    (:func:`~exactalign.problems.latent.corpus.solve_corpus`; ``options``: its own);
    ``counts``: (test, gold) triples per pair; ``pairs``: the graphs, duplicates already
    dropped when counted once; ``dups``: the :class:`Duplicate` records. What
    :func:`score_pairs` and :class:`SmatchScorer` share, so that both give the same numbers."""
    solved = latent.solve_corpus(insts, method, jobs=jobs, **options)
    scores = tuple(PairScore(k, c[0], c[1], e, h, tuple(pr)) for k, (c, e, h, pr)
                   in enumerate(zip(counts, solved.exact, solved.hillclimb, pairs, strict=True)))
    methods = ("exact", "hillclimb") if method == "both" else (method,)
    return CorpusScore(scores, variant, methods, solved.times, tuple(dups))


def exact_results(insts, **kwargs) -> list:
    """Deprecated (kept for one release): :func:`exactalign.problems.latent.corpus.
    exact_results`, where the exact path of a corpus of latent instances now lives."""
    import warnings

    warnings.warn("exactalign.metrics.smatch.exact_results moved to "
                  "exactalign.problems.latent.exact_results", DeprecationWarning, stacklevel=2)
    return latent.exact_results(insts, **kwargs)


def score_files(test_path, gold_path, **kwargs) -> CorpusScore:
    """:func:`score_pairs` on the graphs of two parallel files (``smatch -f TEST GOLD``);
    ``Duplicate.message(path)`` names the file of each duplicated triple."""
    pairs = read_pairs(test_path, gold_path)
    return score_pairs(pairs, paths=(str(test_path), str(gold_path)), **kwargs)


class SmatchScorer:
    """Smatch inside a training or tuning loop: the gold graphs parsed, deduplicated and
    compiled once, then scored against predictions again and again.

        >>> from exactalign.metrics.smatch import SmatchScorer
        >>> scorer = SmatchScorer(["(w / want-01 :ARG0 (b / boy))", "(g / go-02)"])
        >>> c = scorer.score(["(w / want-01 :ARG0 (g / girl))"], indices=[0])
        >>> c.totals("exact"), round(c.scores("exact").f1, 4), c.pairs[0].exact.status.value
        ((3.0, 4, 4), 0.75, 'optimal')

    ``references``: gold graphs, :class:`~exactalign.io.amr.AmrGraph` or PENMAN strings. The
    options are :func:`score_pairs`'s and fixed for the scorer's life (``jobs`` aside: a loop
    scores in its own process). What :meth:`score` does once per call is only what depends on
    the predictions; each gold graph's duplicate triples, triple count and half of the matching
    instance (a :class:`~exactalign.problems.latent.instance.LatentSide`, checked once) are
    kept. :meth:`score` returns what :func:`score_pairs` returns on the same pairs and options
    -- the same counts, statuses, bounds and mappings (``tests/test_inprocess.py``), the
    hill-climber's generator seeded afresh at every call as :func:`score_pairs` seeds it."""

    def __init__(self, references, *, method: str = "exact", variant: str = "full",
                 duplicates: str = "set", restrict: str = "none", restarts: int = 4,
                 seed: int = 0, time_limit: float | None = None, linking: str = "aggregated",
                 backend: str = "highs", bnb_work: int | None = None):
        _check_options(method, duplicates, restrict)
        if variant not in VARIANTS:
            raise ValueError(f"unknown smatch variant {variant!r}; choose one of "
                             + ", ".join(VARIANTS))
        self.method, self.variant, self.duplicates, self.restrict = (method, variant,
                                                                     duplicates, restrict)
        self._options = {"restarts": restarts, "seed": seed, "time_limit": time_limit,
                         "linking": linking, "backend": backend, "bnb_work": bnb_work}
        #: the gold graphs as given (parsed)
        self.references = tuple(_as_graph(g, "reference", k) for k, g in enumerate(references))
        self._gold = []  # per reference: (graph counted, duplicates found, side, triples)
        for g in self.references:
            kept, found = distinct(g) if duplicates == "set" else (g, [])
            self._gold.append((kept, tuple(found), side_of(kept, variant, "right"),
                               _count(kept, variant)))

    def __len__(self) -> int:
        return len(self.references)

    def score(self, predictions, indices=None) -> CorpusScore:
        """Score ``predictions`` (graphs or PENMAN strings), the ``k``-th against reference
        ``indices[k]`` (default: every reference in order; then there must be as many
        predictions as references). A batch of one is a one-pair corpus: ``score([p],
        indices=[i])``. Returns the :class:`CorpusScore` of :func:`score_pairs`, pairs
        numbered by their position in the batch."""
        predictions = list(predictions)
        indices = batch_indices(len(predictions), len(self._gold), indices)
        insts, counts, pairs, dups = [], [], [], []
        for k, (p, i) in enumerate(zip(predictions, indices, strict=True)):
            test = _as_graph(p, "prediction", k)
            gold, gold_dups, gold_side, gold_count = self._gold[i]
            if self.duplicates == "set":
                test_kept, found = distinct(test)
                dups += [Duplicate("test", k, test.line, t, c) for t, c in found]
                dups += [Duplicate("gold", k, self.references[i].line, t, c)
                         for t, c in gold_dups]
            else:
                test_kept = test
            allowed = (allowed_pairs(test, self.references[i]) if self.restrict == "sentence"
                       else None)
            insts.append(latent.LatentInstance.from_sides(side_of(test_kept, self.variant, "left"),
                                                   gold_side, allowed))
            counts.append((_count(test_kept, self.variant), gold_count))
            pairs.append((test_kept, gold))
        return _score_instances(insts, counts, pairs, dups, variant=self.variant,
                                method=self.method, **self._options)


def _as_graph(g, what: str, k: int) -> AmrGraph:
    """``g`` itself when it is an :class:`AmrGraph`, else ``g`` parsed as PENMAN text (an
    error names the ``what`` and its index ``k``)."""
    if isinstance(g, AmrGraph):
        return g
    if not isinstance(g, str):
        raise InputError(f"{what} {k}: an AMR graph is an AmrGraph or PENMAN text, not "
                         f"{type(g).__name__}")
    try:
        return parse_graph(g)
    except InputError as e:
        raise InputError(f"{what} {k}: {e.message}") from None


def matched_triples(test: AmrGraph, gold: AmrGraph, mapping, variant: str = "full") -> list:
    """The (test triple, gold triple) pairs matching under ``mapping`` (rows ``(test variable,
    gold variable)``), as readable tuples with variable names."""
    from ..problems.latent.matches import matched_pairs

    tu = _unary_triples(test, variant)
    gu = _unary_triples(gold, variant)
    inst = instance_of(test, gold, variant)
    un, bi = matched_pairs(inst, mapping)
    out = [(tu[i], gu[j]) for i, j in un]
    if variant != "concept-only":
        out += [(_named(test, test.relations[i]), _named(gold, gold.relations[j]))
                for i, j in bi]
    return out


def _unary_triples(g: AmrGraph, variant: str) -> list:
    ts = list(g.instances)
    if variant in ("full", "unlabeled"):
        ts += list(g.attributes)
    return [(r, g.variables[v], c) for r, v, c in ts]


def _named(g: AmrGraph, t) -> tuple:
    return (t[0], g.variables[t[1]], g.variables[t[2]])


def pair_report(p: PairScore, variant: str = "full") -> dict:
    """Per-pair JSON: counts, P/R/F per method, status/bound/gap of the exact solve with the
    matched (test triple, gold triple) pairs of its mapping (:func:`matched_triples`), and the
    hill-climber's shortfall (triples and F1 points) when both ran."""
    out = {"pair": p.index, "test_triples": p.test_triples, "gold_triples": p.gold_triples}
    for name, res in (("exact", p.exact), ("hillclimb", p.hillclimb)):
        if res is None:
            continue
        d = res.to_dict(alignment=True)
        d.update(matched=res.objective,
                 score=p.scores(name).to_dict(counts=False, order=PRECISION_FIRST))
        if name == "exact":
            d["proven_by"] = dict(res.details.get("proven_by", {}))
            if p.graphs is not None:
                d["matched_triples"] = [list(map(list, m)) for m in
                                        matched_triples(*p.graphs, res.alignment, variant)]
        out[name] = d
    if p.exact is not None and p.hillclimb is not None:
        gap = p.exact.objective - p.hillclimb.objective
        f_ex, f_hc = p.scores("exact").f1, p.scores("hillclimb").f1
        out["gap"] = {"triples": gap, "f1_points": 100 * (f_ex - f_hc)}
    return out
