"""UMR graphs scored as AnCast 0.1.1 counts them, under AnCast's mapping and under the optimum.

AnCast (Sun & Xue 2024; umr4nlp/ancast) does not search mappings: it fixes *anchors* (nodes of
one concept that occurs once in each graph and in the sentence's text, or, with
``--use-alignment``, nodes aligned to the same token span), *broadcasts* similarity to
neighbours, and resolves the rest greedily. It reports, per sentence, a *Smatch-format* F under
that mapping, and prints the corpus's *labeled relation* (LR) micro F (``Sent Micro``), whose
weights are fuzzy concept similarities. This module states the Smatch-format objective as a
latent-variable matching (:mod:`exactalign.problems.latent`) and computes its optimum.

What AnCast counts (read from its ``sentence.py``, ``word.py``, ``matches.py``; our own code):

Concepts
    Per variable, its concept lower-cased, split at the first ``-NN`` (two digits) into name
    and sense number (0 when none; the pattern takes two digits, so Czech's ``být-007`` is
    ``být`` sense 0 and ``být-017`` sense 1, as AnCast reads them); the *concept key* is the
    name followed by the values of the variable's ``:opN`` constants (in order: ``name`` with
    ``:op1 "Lindsay"`` becomes ``namelindsay``) and the sense. A mapped pair of variables
    *matches* when the keys are equal (AnCast's ``name_idt``). Every variable counts one.

Structural triples (a *set*, duplicates counted once)
    Every edge is turned to predicate-argument order: a role ending in ``-of`` (except
    ``mod-of``) and ``:mod`` are inverted (``(x :ARG0-of y)`` is ``arg0(y, x)``, ``(x :mod y)``
    is ``mod-of(y, x)``); roles lower-cased. Between two variables: ``(p, role, a)``; to a
    constant: ``(v, role, constant)`` (the constant lower-cased, quotes dropped); ``(x :mod
    c)`` with a constant: ``(c, mod-of, x)``; and ``TOP(root)`` (``--use-smatch-top``, the
    default). A triple matches when the mapping carries it onto a triple of the other graph.

    An inverted role to a constant other than ``:mod`` (``:ARG0-of "x"``) is where AnCast
    fails: its triple is ``None``, which counts one on each side and matches ``None``
    (reproduced as a constant triple).

Score
    ``P = M / T``, ``R = M / G`` and ``F = 2PR / (P + R)``, with ``M`` the matched concepts and
    triples and ``T``, ``G`` the variables plus triples of each side. The mapping is one-to-one
    (AnCast's resolution pairs each variable at most once), so ``M`` is the same both ways.

Document level
    A document (a file) is one instance over all its sentences: each sentence's triples on
    its own variables, plus the document-level triples (``:temporal``, ``:modal``, ``:coref``;
    ``(head :relation tail)``, as AnCast keeps them: one relation per (head, tail) and kind, the
    last written), which name variables of any sentence, or constants (``author``, ``root``,
    ``document-creation-time``). AnCast maps sentence by sentence: its candidate space is the
    pairs within one sentence (``restrict="sentence"``); the unrestricted optimum may map
    across sentences.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..core.errors import InputError
from ..problems import latent
from .aggregation import prf_counts_dict

_SENSE = re.compile(r"-[0-9]{2}")
_UMR_VAR = re.compile(r"s[0-9]+[a-z]+[0-9]*")
_AMR_NUMBER = re.compile(r"^[0-9.:+-]+$")
#: AMR constants AnCast reads as constants though they are not numbers
_AMR_WORDS = frozenset({"imperative", "expressive"})
METHODS = ("exact", "ancast", "both")
#: Past this many (test x gold) variable pairs in one of its documents, the unrestricted
#: document-level solves skip the pure-Python branch and bound (:func:`score_files`).
BNB_CELLS = 40_000
SCOPES = ("snt", "doc")


def is_reverse(role: str) -> bool:
    """AnCast's inverted roles: ``mod`` and any ``-of`` role but ``mod-of``."""
    return role == "mod" or (role != "mod-of" and role.endswith("-of"))


def flip(role: str) -> str:
    return role[:-3] if role.endswith("-of") else role + "-of"


class Side(NamedTuple):
    """One graph as AnCast counts it: ``variables`` (names, in order: ``prefix`` + name when
    several sentences share an instance), ``concepts`` (concept keys), ``triples`` (the set:
    ``("rel", role, i, j)``, ``("attr", role, i, constant)``, ``("modc", constant, i)``,
    ``("top", i)``, ``None``), ``top``."""

    variables: tuple
    concepts: tuple
    triples: frozenset
    top: int
    #: per variable, its concept's name and sense number (``("leave", 2)``), without the
    #: ``:opN`` values the concept key adds (AnCast's LR score compares these)
    names: tuple = ()

    @property
    def size(self) -> int:
        """``T``: variables plus triples."""
        return len(self.variables) + len(self.triples)


def _concept_name(concept: str) -> tuple[str, int]:
    m = _SENSE.search(concept)
    if m:
        return concept[:m.start()].lower(), int(concept[m.start() + 1:m.end()])
    return concept.lower(), 0


def _constant(value: str) -> str:
    v = value.lower()
    if len(v) >= 2 and v[0] == v[-1] == '"':
        return v[1:-1]
    return v


def side_of(tree, *, amr: bool = False, use_top: bool = True, offset: int = 0,
            names: dict | None = None) -> Side:
    """AnCast's view of one :class:`penman.Tree` (rules: module docstring). ``offset`` numbers
    the variables from ``offset``; ``names``, when given, receives ``name -> index``."""
    index: dict = {} if names is None else names
    order, concepts, ops = [], [], []
    edges = []                                  # (i, role, target, quoted, nested)
    todo = [tree.node]
    while todo:
        var, branches = todo.pop()
        i = offset + len(order)
        index[var] = i
        order.append(var)
        concept, op_values = "", {}
        for role, target in branches:
            if role == "/":
                concept = str(target)
                continue
            r = (role[1:] if role.startswith(":") else role).lower()
            nested = isinstance(target, tuple)
            tv = target[0] if nested else str(target)
            quoted = not nested and tv.startswith('"')
            edges.append((i, r, tv, quoted))
            if not nested and not is_reverse(r) and r not in op_values:
                op_values[r] = None  # AnCast's per-role dict keeps the role's first slot
        concepts.append(concept)
        ops.append(op_values)
        todo.extend(reversed([t for _, t in branches if isinstance(t, tuple)]))
    triples = set()
    op_text: list = [dict(o) for o in ops]
    for i, r, tv, quoted in edges:
        if not quoted and tv in index:  # a variable
            j = index[tv]
            triples.add(("rel", flip(r), j, i) if is_reverse(r) else ("rel", r, i, j))
            continue
        if not quoted and (_UMR_VAR.fullmatch(tv) if not amr else (
                tv not in _AMR_WORDS and not _AMR_NUMBER.fullmatch(tv))):
            continue  # AnCast waits for a variable of this name that never comes: dropped
        c = _constant(tv)
        if r == "mod":
            triples.add(("modc", c, i))
        elif is_reverse(r):
            triples.add(None)  # AnCast's AttributeError: the triple is None
        else:
            triples.add(("attr", r, i, c))
            slot = op_text[i - offset]
            if r in slot:
                slot[r] = c  # the last value of a role wins its slot
    keys, names = [], []
    for k, concept in enumerate(concepts):
        name, sense = _concept_name(concept)
        opv = "".join(v for r, v in op_text[k].items() if r[:2] == "op" and v is not None)
        keys.append((name + opv, sense))
        names.append((name, sense))
    if use_top:
        triples.add(("top", offset))
    return Side(tuple(order), tuple(keys), frozenset(triples), offset, tuple(names))


def _side_lists(side: Side, extra=()) -> tuple[list, list, int, tuple]:
    """The triples of ``side`` as a latent side holds them: unary concept and attribute
    triples, binary relation triples; the count of ``None`` triples and the constant document
    triples (both matched whatever the mapping)."""
    unary = [(("concept",) + tuple(side.concepts[k]), side.top + k)
             for k in range(len(side.concepts))] if side.concepts else []
    binary = []
    nones = 0
    for t in list(side.triples) + list(extra):
        if t is None:
            nones += 1
        elif t[0] == "rel":
            binary.append((("rel", t[1]), t[2], t[3]))
        elif t[0] == "attr":
            unary.append((("attr", t[1], t[3]), t[2]))
        elif t[0] == "modc":
            unary.append((("modc", t[1]), t[2]))
        elif t[0] == "top":
            unary.append((("top",), t[1]))
        elif t[0] == "doc":  # ("doc", kind, rel, head, tail): head/tail ("v", i) or ("c", s)
            _, kind, rel, h, tl = t
            if h[0] == "v" and tl[0] == "v":
                binary.append((("doc", kind, rel), h[1], tl[1]))
            elif h[0] == "v":
                unary.append((("doc", kind, rel, "tail", tl[1]), h[1]))
            elif tl[0] == "v":
                unary.append((("doc", kind, rel, "head", h[1]), tl[1]))
            else:
                unary.append((("docc", kind, rel, h[1], tl[1]), None))
    consts = [u for u in unary if u[1] is None]
    unary = [u for u in unary if u[1] is not None]
    unary.sort(key=lambda u: (u[1], repr(u[0])))
    binary.sort(key=lambda b: (b[1], b[2], repr(b[0])))
    return unary, binary, nones, tuple(sorted(c[0] for c in consts))


class PairInstance(NamedTuple):
    """One scored unit (a sentence, or a document): the instance, the triple counts ``T`` and
    ``G`` and the matches no mapping changes (``None`` triples, constant document triples)."""

    instance: latent.LatentInstance
    test_size: int
    gold_size: int
    fixed: int
    test: tuple      # the test Sides (one per sentence)
    gold: tuple


class _Parts(NamedTuple):
    """One unit before its instance: the test and gold Sides, each side's latent lists
    (variables, unary, binary triples), the candidate pairs (``None``: all), ``T``, ``G`` and
    the fixed matches (:class:`PairInstance`)."""

    test: tuple
    gold: tuple
    left: tuple
    right: tuple
    allowed: frozenset | None
    test_size: int
    gold_size: int
    fixed: int


def _fixed(nones0, nones1, c0, c1) -> int:
    return min(1, nones0) * min(1, nones1) + len(set(c0) & set(c1))


def _instance(parts: _Parts) -> PairInstance:
    """The :class:`PairInstance` of ``parts``: the one step down to the latent layer."""
    inst = latent.LatentInstance.from_sides(latent.LatentSide(*parts.left, side="left"),
                                            latent.LatentSide(*parts.right, side="right"),
                                            parts.allowed)
    return PairInstance(inst, parts.test_size, parts.gold_size, parts.fixed, parts.test,
                        parts.gold)


def _sentence_parts(test_tree, gold_tree, *, amr=False, use_top=True) -> _Parts:
    t = side_of(test_tree, amr=amr, use_top=use_top)
    g = side_of(gold_tree, amr=amr, use_top=use_top)
    lu, lb, n0, c0 = _side_lists(t)
    ru, rb, n1, c1 = _side_lists(g)
    return _Parts((t,), (g,), (len(t.variables), lu, lb), (len(g.variables), ru, rb), None,
                  t.size, g.size, _fixed(n0, n1, c0, c1))


def sentence_instance(test_tree, gold_tree, *, amr=False, use_top=True) -> PairInstance:
    """The instance of one sentence pair."""
    return _instance(_sentence_parts(test_tree, gold_tree, amr=amr, use_top=use_top))


def gold_side(g: Side) -> tuple:
    """A gold sentence's half of :func:`instance_of_sides`, built (and checked) once."""
    u, b, nones, consts = _side_lists(g)
    return (g, latent.LatentSide(len(g.variables), u, b, side="right"), nones, consts)


def instance_of_sides(t: Side, gold: tuple) -> PairInstance:
    """The instance of a test :class:`Side` against a gold half (:func:`gold_side`)."""
    g, rt, n1, c1 = gold
    u, b, n0, c0 = _side_lists(t)
    fixed = _fixed(n0, n1, c0, c1)
    lt = latent.LatentSide(len(t.variables), u, b, side="left")
    return PairInstance(latent.LatentInstance.from_sides(lt, rt), t.size, g.size, fixed, (t,),
                        (g,))


def _doc_triples(doc, names: dict) -> list:
    """AnCast's document triples of one document: per kind, one relation per (head, tail)
    (the last written); heads and tails resolved to variables or kept as constants."""
    last: dict = {}
    for s in doc.sentences:
        for kind, head, rel, tail, _ in s.doc:
            last[(kind, head, tail)] = rel.lower()
    out = []
    for (kind, head, tail), rel in last.items():
        h = ("v", names[head]) if head in names else ("c", head)
        tl = ("v", names[tail]) if tail in names else ("c", tail)
        out.append(("doc", kind, rel, h, tl))
    return out


def document_instance(test_doc, gold_doc, *, use_top=True, restrict: str = "none"
                      ) -> PairInstance:
    """One instance over every sentence of a document pair (module docstring); ``restrict=
    "sentence"``: AnCast's candidate space (a variable maps only within its sentence). The
    documents must hold as many sentences, each variable defined in one sentence
    (:func:`~exactalign.io.umr.check_unique_variables`; an :class:`InputError` otherwise)."""
    if len(test_doc.sentences) != len(gold_doc.sentences):
        raise InputError(f"{len(test_doc.sentences)} sentences but {len(gold_doc.sentences)} "
                         f"in {gold_doc.path}",
                         path=test_doc.path)
    from ..io.umr import check_unique_variables

    check_unique_variables(test_doc)
    check_unique_variables(gold_doc)
    return _instance(_document_parts(test_doc, gold_doc, use_top=use_top, restrict=restrict))


def _document_parts(test_doc, gold_doc, *, use_top=True, restrict: str = "none") -> _Parts:
    """:func:`document_instance`'s parts, of documents already checked."""
    sides = []
    for doc in (test_doc, gold_doc):
        names: dict = {}
        ss, off = [], 0
        for s in doc.sentences:
            side = side_of(s.tree, amr=doc.amr, use_top=use_top, offset=off, names=names)
            ss.append(side)
            off += len(side.variables)
        sides.append((ss, off, _doc_triples(doc, names)))
    lists = []
    for ss, n, docs in sides:
        merged = Side(tuple(v for s in ss for v in s.variables),
                      tuple(c for s in ss for c in s.concepts),
                      frozenset(t for s in ss for t in s.triples), 0)
        lists.append((n, _side_lists(merged, extra=docs), sum(s.size for s in ss) + len(docs)))
    (n0, (lu, lb, _, c0), tsize), (n1, (ru, rb, _, c1), gsize) = lists
    allowed = None
    if restrict == "sentence":
        allowed = frozenset((i, j) for a, b in zip(sides[0][0], sides[1][0], strict=True)
                            for i in range(a.top, a.top + len(a.variables))
                            for j in range(b.top, b.top + len(b.variables)))
    # None triples: one per sentence side at most (a set per sentence)
    nones = sum(min(1, int(None in a.triples)) * min(1, int(None in b.triples))
                for a, b in zip(sides[0][0], sides[1][0], strict=True))
    fixed = nones + len(set(c0) & set(c1))
    return _Parts(tuple(sides[0][0]), tuple(sides[1][0]), (n0, lu, lb), (n1, ru, rb), allowed,
                  tsize, gsize, fixed)


def f_score(m: float, t: float, g: float) -> tuple[float, float, float]:
    """AnCast's ``protected_divide`` P, R and F of ``m`` matched out of ``t`` and ``g``."""
    p = m / t if t else 0.0
    r = m / g if g else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def count_under(pi: PairInstance, mapping) -> int:
    """The matched count ``M`` of a one-to-one ``mapping`` (rows (test, gold) variable), fixed
    matches included."""

    return latent.count_matches(pi.instance, latent.mapping_rows(mapping)) + pi.fixed


# -- scoring files ------------------------------------------------------------------------------
class UnitScore(NamedTuple):
    """One scored unit (a sentence at ``snt`` scope, the document at ``doc`` scope): triple
    counts, the exact solve (and, at ``doc`` scope, the solve within AnCast's candidate space,
    ``exact_sentence``), and the count under AnCast's mapping (``ancast``: matched test-to-gold
    and gold-to-test, which differ only for a mapping that is not one-to-one)."""

    index: int
    line: int
    test_size: int
    gold_size: int
    fixed: int = 0
    exact: object | None = None
    exact_sentence: object | None = None
    ancast: tuple | None = None
    ancast_smatch_f: float | None = None  # AnCast's own Smatch-format F (snt scope)
    #: variables AnCast counted twice (an anchor it withdrew: :func:`_ancast_counts`); its own
    #: Smatch-format F then differs from the count under its mapping
    ancast_twice: int = 0

    def matched(self, method: str) -> float | None:
        if method == "ancast":
            return None if self.ancast is None else self.ancast[0]
        r = self.exact if method == "exact" else self.exact_sentence
        return None if r is None else float(r.objective) + self.fixed

    def bound(self, method: str) -> float | None:
        r = self.exact if method == "exact" else self.exact_sentence
        return None if r is None or r.bound is None else float(r.bound) + self.fixed


def _name_index(sides) -> dict:
    out: dict = {}
    for s in sides:
        for k, v in enumerate(s.variables):
            out[v] = s.top + k
    return out


def _ancast_rows(test_sides, gold_sides, sents) -> list | None:
    """AnCast's mapping of the sentences ``sents``
    (:class:`~exactalign.metrics.umr_peer.AncastSentence`) as sorted rows (test, gold) of the
    unit's variables (its Sides ``test_sides``, ``gold_sides``); ``None`` when it is not
    one-to-one (AnCast's anchors by alignment can pair one variable twice)."""
    n0, n1 = _name_index(test_sides), _name_index(gold_sides)
    rows, inverse = [], True
    for a in sents:
        for k, v in a.map01.items():
            inverse &= a.map10.get(v) == k
            rows.append((n0[k], n1[v]))
        inverse &= len(a.map01) == len(a.map10)
    return sorted(rows) if inverse else None


def _ancast_check(sents, m, test_size: int, gold_size: int, check: bool = True) -> tuple:
    """The matched counts under AnCast's mapping of the sentences ``sents``: test-to-gold,
    gold-to-test, and the variables AnCast counted twice. ``m``: the count of its mapping
    (:func:`_ancast_rows`) on our triples (:func:`count_under`), ``None`` when the mapping is
    not one-to-one (AnCast's own counts are taken then). The count must equal AnCast's own (a
    :class:`~exactalign.core.errors.VerificationError` otherwise) -- but for one residual,
    explained: when AnCast withdraws an anchor in a later round of broadcasting, the variable
    keeps the count its anchoring added and is counted again when it is matched afresh
    (``iterate_anchor_and_match`` deletes the pair, not its count), so its totals exceed ours
    by the same number ``d`` on both sides and its matched count by at most ``d``. Ours is the
    objective under its final mapping; ``d`` is reported."""
    from ..core.errors import VerificationError

    if m is None:
        return sum(a.matched01 for a in sents), sum(a.matched10 for a in sents), 0
    twice = 0
    if check and len(sents) == 1:
        a = sents[0]
        twice = int(a.total01 - test_size)
        explained = (twice >= 0 and a.total10 - gold_size == twice
                     and a.matched01 == a.matched10 and 0 <= a.matched01 - m <= twice)
        if not explained:
            raise VerificationError(f"sentence {a.index}: AnCast counts {a.matched01:g} of "
                                    f"{a.total01:g} / {a.total10:g} under its mapping, our "
                                    f"triples {m} of {test_size} / {gold_size}")
    return float(m), float(m), twice


class UmrReport(NamedTuple):
    """Everything ``exactalign umr`` shows, built once by :func:`score_files`."""

    test: str
    gold: str
    scope: str
    methods: tuple
    units: tuple
    ancast_printed: dict
    ancast_failure: str | None
    wall_time: dict
    warnings: tuple
    #: AnCast's LR micro (P, R, F) (its printed ``Sent Micro``) computed by our code, under
    #: AnCast's mapping (``ancast``) and under the (within-sentence) optimum (``exact``)
    lr: dict = {}
    #: the sums behind :attr:`lr`: (precision score, test count, recall score, gold count)
    lr_counts: dict = {}
    #: what the command shows, built once by :func:`report` (the command only formats it):
    #: the methods shown (``ancast`` left out when AnCast failed)
    shown: tuple = ()
    #: per method shown, its micro P/R/F with ``counts`` (``matched``, ``test_triples``,
    #: ``gold_triples``); per LR score, ``lr/METHOD``: its P/R/F (the JSON ``overall``)
    overall: dict = {}
    #: per exact method shown, the units proven optimal
    proven_units: dict = {}
    #: per exact method shown, the F of the summed bounds when some unit is not proven
    bound_f1: dict = {}
    #: AnCast's printed numbers as P/R/F objects (``sent``; ``modal``, ``temporal``,
    #: ``coref``, ``comp``: F only)
    printed: dict = {}
    #: with ``exact`` and ``ancast`` shown: the units where AnCast's mapping is below the
    #: optimum, the triples it misses and the F1 points it loses (else ``None``)
    below_units: int | None = None
    short: float | None = None
    f1_points: float | None = None
    #: the variables AnCast counted twice: their sum, and the units where it did
    twice: tuple = (0, 0)
    #: per exact method shown, the corpus solve (the units' results combined)
    solves: dict = {}
    #: one row per unit: ``id``, ``scores`` per method, ``line``, ``solves``,
    #: ``fixed_matches``, ``ancast_counted_twice``
    documents: tuple = ()

    def totals(self, method: str) -> tuple[float, int, int]:
        """Summed (matched, test, gold) over the units (AnCast's micro average)."""
        m = sum(u.matched(method) or 0.0 for u in self.units)
        return m, sum(u.test_size for u in self.units), sum(u.gold_size for u in self.units)

    def scores(self, method: str) -> tuple[float, float, float]:
        """Micro P, R, F of ``method`` (``exact``, ``exact_sentence`` or ``ancast``)."""
        if method == "ancast" and any(u.ancast is not None and u.ancast[0] != u.ancast[1]
                                      for u in self.units):
            m01 = sum(u.ancast[0] for u in self.units)
            m10 = sum(u.ancast[1] for u in self.units)
            _, t, g = self.totals(method)
            p, r = (m01 / t if t else 0.0), (m10 / g if g else 0.0)
            return p, r, (2 * p * r / (p + r) if p + r else 0.0)
        return f_score(*self.totals(method))

    def bound_f(self, method: str = "exact") -> float:
        """The F of the summed bounds (the F no mapping can exceed)."""
        b = sum(u.bound(method) or 0.0 for u in self.units)
        _, t, g = self.totals(method)
        return f_score(b, t, g)[2]

    def proven(self, method: str = "exact") -> int:
        res = [u.exact if method == "exact" else u.exact_sentence for u in self.units]
        return sum(r is not None and r.proven_optimal for r in res)

    def below(self) -> int:
        """Units where AnCast's mapping matches fewer than the optimum."""
        return sum(u.ancast is not None and u.exact is not None
                   and u.ancast[0] < u.matched("exact") for u in self.units)


def score_files(test_path, gold_path, *, scope: str = "snt", method: str = "exact",
                use_alignment: bool = False, allow_reify: bool = False,
                use_smatch_top: bool = True, time_limit: float | None = None,
                seed: int = 0, backend: str = "highs") -> UmrReport:
    """Score two UMR (or AMR) files: ``exact`` (the optimum over one-to-one mappings of the
    objective AnCast's Smatch-format F counts), ``ancast`` (AnCast run on the files, and its
    mapping counted by our triples, sentence by sentence checked against AnCast's own count),
    or ``both``. ``scope="doc"``: a document per run of sentence numbers (a file restarting at
    ``snt1`` holds several; :func:`~exactalign.io.umr.document_starts`; AnCast itself reads a
    file as one document, but maps sentence by sentence all the same). ``use_alignment`` and
    ``allow_reify`` are AnCast's and act on its run only: the first changes its anchors, the
    second, in AnCast 0.1.1, loads its reification resources but reifies nothing
    (``evaluate`` hands the flag to the match, never to ``Sentence``), so the graphs compared,
    and the exact optimum, are the same."""
    import time

    from ..io.umr import check_unique_variables, document_starts, read_pair, split_documents
    from .umr_lr import micro_f

    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of " + ", ".join(METHODS))
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; choose one of " + ", ".join(SCOPES))
    # the files read first; at doc scope a document per run of sentence numbers (a file may
    # hold several), each checked
    td, gd = read_pair(test_path, gold_path)
    if scope == "doc" and td.amr:
        raise InputError("--scope doc needs UMR files (sections '# sentence level graph:', "
                         "'# document level annotation:'), not AMR", path=td.path)
    starts, docs = list(range(len(td.sentences))), []
    if scope == "doc":
        starts = document_starts(td, gd)
        docs = list(zip(split_documents(td, starts), split_documents(gd, starts),
                        strict=True))
        for a, b in docs:
            check_unique_variables(a)
            check_unique_variables(b)
    warnings = tuple(str(w) for w in td.warnings + gd.warnings)
    # AnCast on the files, then every unit's parts, AnCast's mappings on them and its LR score
    printed, failure, by_index, ancast_time = {}, None, None, None
    if method in ("ancast", "both"):
        from .umr_peer import available, run_ancast

        if not available():
            failure = "AnCast is not installed (pip install 'exactalign[peers]')"
        else:
            run = run_ancast(test_path, gold_path, scope=scope,
                             data_format="amr" if td.amr else "umr",
                             use_alignment=use_alignment, allow_reify=allow_reify,
                             use_smatch_top=use_smatch_top)
            ancast_time = run.wall_time
            printed, failure = run.printed, run.failure
            if failure is None:
                by_index = {a.index: a for a in run.sentences}
    t0 = time.perf_counter()
    if scope == "snt":
        parts = [_sentence_parts(a.tree, b.tree, amr=td.amr, use_top=use_smatch_top)
                 for a, b in zip(td.sentences, gd.sentences, strict=True)]
        lines = [s.line for s in td.sentences]
        units_of = parts  # the units AnCast's mapping is counted on
    else:
        parts = [_document_parts(a, b, use_top=use_smatch_top) for a, b in docs]
        units_of = [_document_parts(a, b, use_top=use_smatch_top, restrict="sentence")
                    for a, b in docs]
        lines = [a.sentences[0].line if a.sentences else 0 for a, _ in docs]
    todo = parts + (units_of if scope == "doc" else [])  # the parts to instantiate
    n = len(parts)
    an, anf, twice = [None] * n, [None] * n, [0] * n
    jobs = []  # (unit, position in todo, AnCast's sentences, kind), counted below
    lr_ancast = None
    if by_index is not None:
        for k, (start, p) in enumerate(zip(starts, units_of, strict=True)):
            sents = [by_index[i] for i in range(start + 1, start + 1 + len(p.test))
                     if i in by_index]
            if scope == "snt" and not sents:  # AnCast skipped it (it could not parse it)
                an[k] = (float(p.fixed), float(p.fixed))
            elif scope == "snt":
                anf[k] = sents[0].smatch_f
                jobs.append((k, k, sents, "unit"))
            else:  # each sentence's count checked against AnCast's, the document's counted
                for a in sents:
                    todo.append(_sentence_parts(td.sentences[a.index - 1].tree,
                                                gd.sentences[a.index - 1].tree,
                                                use_top=use_smatch_top))
                    jobs.append((k, len(todo) - 1, [a], "sentence"))
                jobs.append((k, n + k, sents, "document"))
        maps = []
        for start, p in zip(starts, units_of, strict=True):
            sents = [by_index[i] for i in range(start + 1, start + 1 + len(p.test))
                     if i in by_index]
            n0, n1 = _name_index(p.test), _name_index(p.gold)
            maps.append({n0[i]: n1[v] for a in sents for i, v in a.map01.items()})
        lr_ancast = lr_sums(units_of, maps)  # ours under AnCast's mapping: its printed number
    rows = [_ancast_rows(todo[i].test, todo[i].gold, sents) for _, i, sents, _ in jobs]
    # the one step down: every instance, and AnCast's mappings counted on theirs
    insts = [latent.LatentInstance.from_sides(latent.LatentSide(*p.left, side="left"),
                                              latent.LatentSide(*p.right, side="right"),
                                              p.allowed)
             for p in todo]
    matched = [None if r is None
               else latent.count_matches(insts[i], latent.mapping_rows(r)) + todo[i].fixed
               for (_, i, _, _), r in zip(jobs, rows, strict=True)]
    times: dict = {"read": time.perf_counter() - t0}
    # back up: the solves, AnCast's counts checked, the LR scores, the report
    pis = [PairInstance(inst, p.test_size, p.gold_size, p.fixed, p.test, p.gold)
           for inst, p in zip(insts, todo, strict=True)]
    restricted = pis[n:2 * n] if scope == "doc" else None
    pis = pis[:n]
    ex = exs = [None] * n
    if method in ("exact", "both"):
        t0 = time.perf_counter()
        # a document's unrestricted instance is large (the pilot's six English documents:
        # up to 55,117 useful pairs): the branch and bound does not finish such ones, and its
        # attempts cost more than the LPs (measured 4.8 s against 3.0 s without it)
        big = scope == "doc" and any(p.instance.n_left * p.instance.n_right > BNB_CELLS
                                     for p in pis)
        ex = latent.exact_results([p.instance for p in pis], time_limit=time_limit, seed=seed,
                                  backend=backend, linking="aggregated",
                                  bnb_work=0 if big else None)
        times["exact"] = time.perf_counter() - t0
        if restricted is not None:  # timed apart: AnCast's own candidate space
            t0 = time.perf_counter()
            exs = latent.exact_results([p.instance for p in restricted],
                                       time_limit=time_limit, seed=seed, backend=backend,
                                       linking="aggregated", bnb_work=None)
            times["exact_sentence"] = time.perf_counter() - t0
    if ancast_time is not None:
        times["ancast"] = ancast_time
    for (k, i, sents, kind), m in zip(jobs, matched, strict=True):
        m01, m10, tw = _ancast_check(sents, m, todo[i].test_size, todo[i].gold_size,
                                     check=kind != "document")
        if kind != "sentence":
            an[k] = (m01, m10)
        twice[k] += tw
    units = tuple(UnitScore(k, lines[k], pi.test_size, pi.gold_size, pi.fixed, ex[k], exs[k],
                            an[k], anf[k], twice[k]) for k, pi in enumerate(pis))
    lr_counts: dict = {}
    if method in ("exact", "both"):  # AnCast's LR under the (within-sentence) optimum
        sol = ex if scope == "snt" else exs
        sides = pis if scope == "snt" else restricted
        lr_counts["exact" if scope == "snt" else "exact_sentence"] = lr_sums(
            sides, [{int(a): int(b) for a, b in r.alignment} for r in sol])
    if printed and failure is None:
        lr_counts["ancast"] = lr_ancast
    methods = {"exact": ("exact",), "ancast": ("ancast",), "both": ("exact", "ancast")}[method]
    if scope == "doc" and method != "ancast":
        methods = ("exact", "exact_sentence") + methods[1:]
    return report(UmrReport(str(test_path), str(gold_path), scope, methods, units, printed,
                            failure, times, warnings,
                            {m: micro_f([c]) for m, c in lr_counts.items()}, lr_counts))


def _counts(mt, t, g) -> dict:
    return {"matched": mt, "test_triples": t, "gold_triples": g}


def report(rep: UmrReport) -> UmrReport:
    """``rep`` (its units scored) with what the command shows filled in (:class:`UmrReport`'s
    fields from :attr:`~UmrReport.shown` on): the summaries first, then the units' rows and
    the corpus solves."""
    from ..core.result import combine_results

    failed = rep.ancast_failure is not None
    shown = tuple(m for m in rep.methods if not (m == "ancast" and failed))
    exact = [m for m in shown if m != "ancast"]
    n = len(rep.units)
    overall = {}
    for m in shown:
        p, r, f = rep.scores(m)
        overall[m] = prf_counts_dict(p, r, f, _counts(*rep.totals(m)))
    for m, (p, r, f) in rep.lr.items():
        overall[f"lr/{m}"] = prf_counts_dict(p, r, f)
    proven = {m: rep.proven(m) for m in exact}
    bound_f1 = {m: rep.bound_f(m) if proven[m] < n else None for m in exact}
    printed = {}
    if rep.ancast_printed:
        ps, rs, fs = rep.ancast_printed["sent"]
        printed["sent"] = prf_counts_dict(ps, rs, fs)
        for key in ("modal", "temporal", "coref", "comp"):
            if key in rep.ancast_printed:
                printed[key] = prf_counts_dict(None, None, rep.ancast_printed[key])
    below = short = points = None
    if "exact" in shown and "ancast" in shown:
        below = rep.below()
        short = rep.totals("exact")[0] - rep.totals("ancast")[0]
        points = 100 * (rep.scores("exact")[2] - rep.scores("ancast")[2])
    twice = [u.ancast_twice for u in rep.units if u.ancast_twice]
    cells = []
    for u in rep.units:
        scores = {}
        for m in shown:
            mt = u.matched(m)
            if mt is not None:
                p, r, f = f_score(mt, u.test_size, u.gold_size)
                scores[m] = prf_counts_dict(p, r, f, _counts(mt, u.test_size, u.gold_size))
        cells.append(scores)
    # what goes down to the solvers' layer last: the units' and the corpus's solves
    docs = []
    for u, scores in zip(rep.units, cells, strict=True):
        usolves = {}
        for m in scores:
            res = u.exact if m == "exact" else u.exact_sentence if m != "ancast" else None
            if res is not None:
                usolves[m] = res.to_dict()
        docs.append({"id": u.index, "scores": scores, "line": u.line, "solves": usolves,
                     "fixed_matches": u.fixed, "ancast_counted_twice": u.ancast_twice})
    solves = {m: combine_results([u.exact if m == "exact" else u.exact_sentence
                                  for u in rep.units], m).to_dict() for m in exact}
    return rep._replace(shown=shown, overall=overall, proven_units=proven, bound_f1=bound_f1,
                        printed=printed, below_units=below, short=short, f1_points=points,
                        twice=(sum(twice), len(twice)), solves=solves, documents=tuple(docs))


def lr_sums(instances, mappings) -> tuple[float, int, float, int]:
    """AnCast's LR sums (:mod:`exactalign.metrics.umr_lr`) of the sentences of ``instances``
    under ``mappings`` (one dict per instance, test index -> gold index)."""
    from .umr_lr import lr_counts

    rows = [lr_counts(a, b, m) for pi, m in zip(instances, mappings, strict=True)
            for a, b in zip(pi.test, pi.gold, strict=True)]
    return tuple(sum(r[k] for r in rows) for k in range(4))
