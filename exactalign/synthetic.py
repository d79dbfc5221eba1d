"""Seeded synthetic instances: the project's own generator, used when no pilot data applies.

Every function takes its randomness explicitly -- an int (or sequence of ints, or a
``numpy.random.SeedSequence``) that seeds a fresh ``numpy.random.Generator``, or a ``Generator``
that is used (and advanced) as is. Nothing touches global random state, and a missing seed is an
error rather than a silent draw of fresh entropy.

    >>> from exactalign import synthetic
    >>> inst = synthetic.random_bipartite(100, 100, degree=10, weights="uniform", seed=0)
    >>> inst.num_pairs
    1000

Candidate structure (:func:`random_pairs`): ``round(degree * n_ref)`` distinct (reference,
predicted) cells drawn uniformly without replacement -- a random sparse bipartite graph in which
a reference item has on average ``degree`` candidates (binomial, so "about" ``degree``) and a
predicted item ``degree * n_ref / n_pred``. When that exceeds the grid every pair is a candidate.

Weight distributions (:data:`WEIGHTS`, by name):

``uniform``  independent weights uniform on (0, 1] (0 is excluded: a zero weight is no candidate).
``dice``     Dice coefficients of random token spans, as span-overlap metrics produce them: every
             reference item ``i`` gets a span length ``a_i`` and every predicted item ``j`` a
             length ``b_j``, both uniform on ``1..max_span``; a candidate pair overlaps in ``o``
             tokens, uniform on ``1..min(a_i, b_j)``; its weight is ``2 o / (a_i + b_j)``. Values
             are few and tied, like the scores of real span matchers -- ties are where greedy
             tie-breaking decides.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .core.errors import InputError
from .problems.bipartite import KINDS, BipartiteInstance

SeedLike = int | Sequence[int] | np.random.SeedSequence | np.random.Generator


def as_generator(seed: SeedLike) -> np.random.Generator:
    """A ``numpy.random.Generator`` from ``seed``; a ``Generator`` is returned unchanged.

    ``None`` is refused: every synthetic instance must be reproducible from its seed."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        raise InputError("a seed is required (an int, a sequence of ints, a SeedSequence or a "
                         "numpy.random.Generator): synthetic instances must be reproducible")
    if isinstance(seed, bool):
        raise InputError(f"a seed must be an int, not the bool {seed!r}")
    if isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    if isinstance(seed, (int, np.integer)):
        if seed < 0:
            raise InputError(f"a seed must be >= 0, got {seed}")
        return np.random.default_rng(int(seed))
    try:
        ints = [int(s) for s in seed]
    except TypeError:
        raise InputError(f"cannot seed a generator from {seed!r}") from None
    if any(s < 0 for s in ints):
        raise InputError(f"seed entries must be >= 0, got {ints}")
    return np.random.default_rng(ints)


def random_pairs(n_ref: int, n_pred: int, degree: float,
                 seed: SeedLike) -> tuple[np.ndarray, np.ndarray]:
    """``round(degree * n_ref)`` distinct candidate cells of the ``n_ref x n_pred`` grid, drawn
    uniformly without replacement (all cells when that is more than the grid). Returns
    ``(rows, cols)`` sorted by (reference, predicted)."""
    n_ref, n_pred = int(n_ref), int(n_pred)
    if n_ref < 0 or n_pred < 0:
        raise InputError(f"item counts must be >= 0, got {n_ref} x {n_pred}")
    if not (degree >= 0) or not np.isfinite(degree):
        raise InputError(f"degree must be a finite number >= 0, got {degree!r}")
    rng = as_generator(seed)
    cells = n_ref * n_pred
    m = min(int(round(degree * n_ref)), cells)
    if m == cells:
        flat = np.arange(cells, dtype=np.int64)
    else:
        flat = np.sort(rng.choice(cells, size=m, replace=False).astype(np.int64))
    return flat // max(n_pred, 1), flat % max(n_pred, 1)


def _uniform(rows, cols, n_ref, n_pred, rng: np.random.Generator) -> np.ndarray:
    return 1.0 - rng.random(len(rows))  # (0, 1]


def _dice(rows, cols, n_ref, n_pred, rng: np.random.Generator, max_span: int = 6) -> np.ndarray:
    if int(max_span) < 1:
        raise InputError(f"max_span must be >= 1, got {max_span!r}")
    a = rng.integers(1, max_span, size=n_ref, endpoint=True)
    b = rng.integers(1, max_span, size=n_pred, endpoint=True)
    la, lb = a[rows], b[cols]
    overlap = rng.integers(1, np.minimum(la, lb), endpoint=True)
    return 2.0 * overlap / (la + lb)


#: Weight distributions by name: ``f(rows, cols, n_ref, n_pred, rng, **params) -> weights > 0``.
WEIGHTS: dict[str, Callable[..., np.ndarray]] = {
    "uniform": _uniform,
    "dice": _dice,
}


def random_weights(distribution: str, rows: np.ndarray, cols: np.ndarray, n_ref: int,
                   n_pred: int, seed: SeedLike, **params) -> np.ndarray:
    """Positive weights for the candidate pairs ``(rows, cols)`` from the named distribution of
    :data:`WEIGHTS` (``params`` go to it, e.g. ``max_span`` for ``dice``)."""
    if distribution not in WEIGHTS:
        raise InputError(f"unknown weight distribution {distribution!r}; choose one of "
                         + ", ".join(WEIGHTS))
    return WEIGHTS[distribution](np.asarray(rows), np.asarray(cols), int(n_ref), int(n_pred),
                                 as_generator(seed), **params)


def random_bipartite(n_ref: int, n_pred: int | None = None, *, degree: float = 10.0,
                     weights: str = "uniform", kind: str = "1:1", seed: SeedLike,
                     **params) -> BipartiteInstance:
    """A random sparse :class:`~exactalign.bipartite.BipartiteInstance`.

    ``n_ref x n_pred`` items (``n_pred`` defaults to ``n_ref``), about ``degree`` candidates per
    reference item (:func:`random_pairs`), weights from the distribution named ``weights``
    (:data:`WEIGHTS`; ``params`` go to it), matching ``kind``. The same ``seed`` gives the same
    instance; pairs are drawn first, then weights, from one generator."""
    if kind not in KINDS:
        raise InputError(f"unknown matching kind {kind!r}; choose one of " + ", ".join(KINDS))
    if weights not in WEIGHTS:
        raise InputError(f"unknown weight distribution {weights!r}; choose one of "
                         + ", ".join(WEIGHTS))
    n_pred = n_ref if n_pred is None else n_pred
    rng = as_generator(seed)
    rows, cols = random_pairs(n_ref, n_pred, degree, rng)
    w = random_weights(weights, rows, cols, n_ref, n_pred, rng, **params)
    return BipartiteInstance(int(n_ref), int(n_pred), rows, cols, w, kind)


def _interval_relation(xs: int, xe: int, ys: int, ye: int) -> str | None:
    """The TimeML relation of interval X to Y from their endpoints (``None``: they overlap
    partially, which TimeML cannot state)."""
    if xe < ys:
        return "BEFORE"
    if ye < xs:
        return "AFTER"
    if xe == ys:
        return "IBEFORE"
    if ye == xs:
        return "IAFTER"
    if (xs, xe) == (ys, ye):
        return "SIMULTANEOUS"
    if xs == ys:
        return "BEGINS" if xe < ye else "BEGUN_BY"
    if xe == ye:
        return "ENDS" if xs > ys else "ENDED_BY"
    if ys < xs and xe < ye:
        return "IS_INCLUDED"
    if xs < ys and ye < xe:
        return "INCLUDES"
    return None


def random_timeml(doc_id: str, n_events: int = 12, n_timexes: int = 3, n_links: int = 20, *,
                  horizon: int = 10, seed: SeedLike) -> str:
    """A small, *consistent* TimeML document: events and timexes get hidden integer intervals
    ``[s, e)`` with ``0 <= s < e <= horizon`` (a small horizon makes meets, equal starts and
    ends frequent), and up to ``n_links`` random pairs get the TLINK their intervals imply
    (pairs that overlap partially are skipped). Text, ids and attributes follow the TempEval-3
    files (``eid``/``eiid`` events with MAKEINSTANCE, ``tid`` timexes, ``lid`` links); it is
    what experiments use when the pilot TimeML is absent.

    >>> doc = random_timeml("d1", 4, 1, 5, seed=0)
    >>> doc.startswith("<?xml") and doc.count("<TLINK") <= 5
    True
    """
    rng = as_generator(seed)
    n = n_events + n_timexes
    if n < 2:
        raise InputError("random_timeml needs at least two events or timexes")
    starts = rng.integers(0, horizon, n)
    ends = starts + 1 + rng.integers(0, np.maximum(1, horizon - starts), n)
    ids = [f"ei{k + 1}" for k in range(n_events)] + [f"t{k + 1}" for k in range(n_timexes)]
    words = ("said", "attack", "meeting", "election", "visit", "talks", "crash", "report")
    text = []
    for k in range(n_events):
        text.append(f'The <EVENT eid="e{k + 1}" class="OCCURRENCE">'
                    f"{words[int(rng.integers(len(words)))]}</EVENT> happened.")
    for k in range(n_timexes):
        text.append(f'It was <TIMEX3 tid="t{k + 1}" type="DATE" value="2000-01-{k + 1:02d}">'
                    f"day {k + 1}</TIMEX3>.")
    links, seen = [], set()
    for _ in range(4 * n_links):
        if len(links) == n_links:
            break
        a, b = (int(v) for v in rng.choice(n, 2, replace=False))
        rel = _interval_relation(starts[a], ends[a], starts[b], ends[b])
        if rel is None or (a, b) in seen or (b, a) in seen:
            continue
        seen.add((a, b))
        src = (f'eventInstanceID="{ids[a]}"' if a < n_events else f'timeID="{ids[a]}"')
        dst = (f'relatedToEventInstance="{ids[b]}"' if b < n_events
               else f'relatedToTime="{ids[b]}"')
        links.append(f'<TLINK lid="l{len(links) + 1}" relType="{rel}" {src} {dst}/>')
    inst = [f'<MAKEINSTANCE eventID="e{k + 1}" eiid="ei{k + 1}"/>' for k in range(n_events)]
    return ("<?xml version=\"1.0\" ?>\n<TimeML>\n"
            f"<DOCID>{doc_id}</DOCID>\n<TEXT>\n" + "\n".join(text) + "\n</TEXT>\n"
            + "\n".join(inst + links) + "\n</TimeML>\n")


#: Vocabulary of :func:`random_amr_sentences`: predicates (with senses), entity nouns and
#: pronouns (what coreference merges), modifiers, and names.
AMR_PREDICATES = ("want-01", "go-02", "go-01", "say-01", "see-01", "believe-01", "work-01",
                  "know-01", "possible-01", "live-01", "ask-01", "look-01")
AMR_ENTITIES = ("boy", "girl", "he", "she", "i", "you", "planet", "flower", "sheep", "star",
                "king", "city")
AMR_MODIFIERS = ("little", "big", "old", "very", "beautiful")
AMR_NAMES = ("Paris", "Asia", "Mars", "Tom", "Lisa")


def random_amr_sentences(n_graphs: int, seed: SeedLike) -> list:
    """``n_graphs`` random AMR-like sentence graphs (:class:`penman.Graph`, variables ``x0,
    x1, ...``): a predicate with ``:ARG0``/``:ARG1`` arguments (entities, or a nested
    predicate whose ``:ARG0`` is often the outer ``:ARG0`` again -- a reentrancy), modifiers
    (``:mod``), named entities (``:name (n / name :op1 "Paris")``), ``:polarity -``. The small
    vocabulary makes concepts repeat within and across graphs, so the matching is ambiguous and
    documents joined from them have entities to merge. Drawn from :func:`as_generator`."""
    rng = as_generator(seed)
    return [_random_amr_sentence(rng) for _ in range(n_graphs)]


def _random_amr_sentence(rng: np.random.Generator):
    """One graph of :func:`random_amr_sentences`."""
    import penman

    triples: list = []
    count = [0]

    def pick(xs):
        return xs[int(rng.integers(len(xs)))]

    def node(concept, parent=None, role=None):
        v = f"x{count[0]}"
        count[0] += 1
        if parent is not None:  # the edge first: penman lays the graph out as written
            triples.append((parent, role, v))
        triples.append((v, ":instance", concept))
        return v

    def entity(parent, role):
        v = node(pick(AMR_ENTITIES), parent, role)
        if rng.random() < 0.25:
            node(pick(AMR_MODIFIERS), v, ":mod")
        if rng.random() < 0.15:
            n = node("name", v, ":name")
            triples.append((n, ":op1", f'"{pick(AMR_NAMES)}"'))
        return v

    def clause(depth, parent=None, role=None, agent=None):
        p = node(pick(AMR_PREDICATES), parent, role)
        if agent is not None and rng.random() < 0.6:
            triples.append((p, ":ARG0", agent))
            a0 = agent
        else:
            a0 = entity(p, ":ARG0")
        if depth < 2 and rng.random() < 0.4:
            clause(depth + 1, p, ":ARG1", a0)
        elif rng.random() < 0.8:
            entity(p, ":ARG1")
        if rng.random() < 0.1:
            triples.append((p, ":polarity", "-"))
        return p

    if rng.random() < 0.2:
        top = node("and")
        clause(0, top, ":op1")
        clause(0, top, ":op2")
    else:
        top = clause(0)
    return penman.Graph(triples, top=top)
