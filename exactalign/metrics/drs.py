"""DRS clauses as Counter scores them (RikVN/DRS_parsing @190838f, ``evaluation/counter.py``,
the official scorer of DRS parsing on the Parallel Meaning Bank): the clauses it matches, and the
matching problem behind its F-score as a :class:`~exactalign.problems.latent.LatentInstance`.

Counter is Smatch over DRS clauses. What it does to a DRS before matching, reproduced here
(:func:`counter_drs`), read from its ``get_clauses`` and ``DRS.get_specific_clauses``:

* a clause is its line up to `` %`` split on whitespace (``get_clauses``);
* a role ending in ``Of`` (``is_role``, longer than two characters, four fields) is inverted:
  its two arguments swapped and the ``Of`` dropped -- ``PartOf`` too becomes ``Part``; an
  operator of :data:`INV_BOXES` (``APX``, ``NEQ``, ``EQU``, ``TAB``) whose first argument alone
  is quoted gets its arguments swapped (``b1 EQU "now" t1`` is ``b1 EQU t1 "now"``);
* ``REF`` clauses are dropped (default; kept with ``-ic``, :attr:`CounterOptions.include_ref`)
  unless their referent occurs in no other clause of the same box (as the last or second to last
  field);
* every field in a variable position is a variable unless it is between quotes (``"..."`` or
  ``'...'``): the box (field 0) always; fields 2 and 3 of an operator or a role unless quoted;
  field 3 of a concept (field 2, the sense, is a constant even without quotes); field 2 of a
  three-field clause always. Variables are numbered in order of first occurrence (box first,
  then the arguments left to right) and typed by that first occurrence: ``b`` in a box position
  (field 0, and the arguments of operators whose signature is ``bb``/``bbb`` -- with Counter's
  default signature, none: ``-g`` is empty, :attr:`CounterOptions.op_boxes`), ``x`` elsewhere;
  a variable pair of different types never matches (Counter checks the type of every variable
  position of a clause pair, except the box of a role with two constants);
* a clause is an operator when its second field is all upper case (or ``SY1``/``SY2``; not at
  tag ``v.2.2.0``, :data:`V220_OPTIONS`), a role
  when ``is_role`` (upper-case initial, some lower case, letters and ``-`` only), else a concept;
  its kind (:data:`KINDS`) follows from that and from which arguments are quoted; identical
  clauses (after renaming) are counted once, per kind;
* a concept ``b x concept "pos.nn" v`` becomes its WordNet 3.0 synset's lemma and sense when the
  sense map (Counter's ``wordnet_dict_en.py``) has ``concept.pos.nn`` (``rewrite_concept``); then
  ``-dc`` makes every concept ``work "n.01"``, ``-dse`` every sense ``"n.01"``, and ``-dr`` every
  role ``Role``.

Counter counts the produced and gold clauses as the sum of its nine lists (duplicates once, the
dropped ``REF`` clauses not at all); its F-score of a pair is ``compute_f``: precision and recall
each rounded to ``-sig`` (4) digits, then F from the rounded values, rounded (:func:`counter_f`).

The objective Counter's ``compute_match`` counts under a one-to-one mapping, and the instance
here (:func:`counter_instance`) whose every mapping scores the same:

* a produced and a gold clause of the same kind match when their labels and constants are equal,
  the types of the variables at each position agree, and the mapping carries each produced
  variable onto the gold one at the same position; each clause matches at most once (its
  ``check_dict_for_adding``). The key of a clause here holds its kind, label, constants and
  variable types, so equal keys are exactly Counter's matchable pairs;
* a clause of three variables that repeats a variable never matches (Counter's
  ``add_node_pairs`` drops a clause pair whose three variable pairs are not distinct, and a
  one-to-one mapping cannot satisfy pairs that share one variable): it is left out of the
  instance, but counted;
* ``APX``/``NEQ``/``EQU``/``TAB`` clauses of three variables are symmetric: Counter also lets
  ``b APX x y`` match the gold ``b' APX y' x'`` (crediting the gold clause once). Here the gold
  side gets both orientations; and since a clause matches at most once, when one side holds both
  orientations of the same clause the two produced clauses match at most as many gold ones:
  per such *orbit* ``{b OP x y, b OP y x}`` both sides carry one clause per orientation present,
  at levels ``1..k`` of the key, the produced side in one orientation, the gold side in both, so
  an aligned orbit pair counts ``min(k_produced, k_gold)`` -- the size of every maximal
  matching of Counter's clause pairs there. (When the two arguments' types differ, each clause is
  its own orbit at level 1: only one orientation of the other side can agree in type.)
* ``allowed``: Counter's candidate pool (``compute_pool``), the variable pairs some matchable
  clause pair needs (the swapped orientations included).

No clause field is compared by anything but string equality (Counter's ``normalize`` is the
identity).
"""

from __future__ import annotations

from typing import NamedTuple

#: Operators whose two arguments are unordered (``DRS.inv_boxes``).
INV_BOXES = ("APX", "NEQ", "EQU", "TAB")
#: Counter's clause lists, in its order (``compute_pool`` walks them in this order).
KINDS = ("op_two_vars", "op_two_vars_abs1", "op_two_vars_abs2", "op_three_vars",
         "roles_two_abs", "roles_abs1", "roles_abs2", "roles", "concepts")
#: Per kind: the positions of its variables in the clause (box first) and of the fields that
#: must be equal (label, constants).
VAR_POS = {"op_two_vars": (0, 2), "op_two_vars_abs1": (0, 3), "op_two_vars_abs2": (0, 2),
           "op_three_vars": (0, 2, 3), "roles_two_abs": (0,), "roles_abs1": (0, 3),
           "roles_abs2": (0, 2), "roles": (0, 2, 3), "concepts": (0, 3)}
EDGE_POS = {"op_two_vars": (1,), "op_two_vars_abs1": (1, 2), "op_two_vars_abs2": (1, 3),
            "op_three_vars": (1,), "roles_two_abs": (1, 2, 3), "roles_abs1": (1, 2),
            "roles_abs2": (1, 3), "roles": (1,), "concepts": (1, 2)}
#: Kinds whose variable types Counter compares (all but ``roles_two_abs``).
TYPED = frozenset(KINDS) - {"roles_two_abs"}


class CounterOptions(NamedTuple):
    """Counter's options that change the clauses: ``-ic`` (:attr:`include_ref`), ``-dse``,
    ``-dr``, ``-dc``, and the operators whose arguments are boxes (``op_boxes``: from the
    signature file of ``-g``; Counter's default, no file, has none)."""

    include_ref: bool = False
    default_sense: bool = False
    default_role: bool = False
    default_concept: bool = False
    op_boxes: frozenset = frozenset()
    #: ``SY1``/``SY2`` are operators (Counter since 2020; at ``v.2.2.0`` only all-capital
    #: labels were, and ``b SY1 x y`` was read as a concept)
    sy_operators: bool = True


#: Counter's defaults (no ``-g``: no operator takes boxes).
DEFAULT_OPTIONS = CounterOptions()
#: The operators whose arguments are all boxes (signature ``bb`` or ``bbb``) in Counter's
#: ``clf_signature.yaml``: what ``-g clf_signature.yaml`` -- the way the PMB results are
#: published (Neural_DRS runs Counter with it; PMB 3.0.0's with this Counter, 2.2.0's with
#: the one of :data:`V220_OPTIONS`) -- makes :attr:`CounterOptions.op_boxes`.
SIGNATURE_BOX_OPERATORS = frozenset((
    "ALTERNATION", "ATTRIBUTION", "BACKGROUND", "COMMENTARY", "CONDITION", "CONSEQUENCE",
    "CONTINUATION", "CONTRAST", "DIS", "DUP", "ELABORATION", "EXPLANATION", "IMP", "INSTANCE",
    "NARRATION", "NEC", "NECESSITY", "NEGATION", "NOT", "PARALLEL", "POS", "POSSIBILITY",
    "PRECONDITION", "PRESUPPOSITION", "RESULT", "SOURCE", "TOPIC"))
#: Counter with ``-g clf_signature.yaml`` (its other defaults).
SIGNATURE_OPTIONS = CounterOptions(op_boxes=SIGNATURE_BOX_OPERATORS)
#: The Counters whose clause rules we reproduce: RikVN/DRS_parsing @190838f (today's, PMB
#: 3.0.0's published results) and its tag ``v.2.2.0`` (ec4eb07, 2019-11-18), with which the
#: published PMB 2.2.0 results were scored (Neural_DRS's setup of that release checks it out).
COUNTER_VERSIONS = ("190838f", "v.2.2.0")
#: Counter at ``v.2.2.0``: its hard-coded operators over boxes, with or without ``-g``
#: (``DRS``, ``PRP`` and a few discourse relations; not ``DUP`` or ``PRESUPPOSITION``).
V220_BOX_OPERATORS = frozenset((
    "NOT", "POS", "NEC", "IMP", "DIS", "PRP", "DRS", "ANSWER", "PARALLEL", "CONTINUATION",
    "CONTRAST", "RESULT", "EXPLANATION"))
#: Counter at ``v.2.2.0`` (its other defaults).
V220_OPTIONS = CounterOptions(op_boxes=V220_BOX_OPERATORS, sy_operators=False)


def between_quotes(s: str) -> bool:
    """Counter's ``between_quotes``."""
    return (s.startswith('"') and s.endswith('"')) or (s.startswith("'") and s.endswith("'"))


def all_upper(s: str) -> bool:
    """Counter's ``all_upper`` (true for the empty string, as ``all``)."""
    return all(c.isupper() for c in s)


def is_role(s: str) -> bool:
    """Counter's ``is_role``: upper-case initial, some lower case after it, letters and ``-``."""
    return (s[0].isupper() and any(c.islower() for c in s[1:])
            and all(c.islower() or c.isupper() or c == "-" for c in s))


def is_operator(label: str) -> bool:
    return all_upper(label) or label in ("SY1", "SY2")


def split_clause(line: str) -> list[str]:
    """A clause line as Counter tokenises it: the text before `` %``, split on whitespace."""
    return line.split(" %", 1)[0].strip().split()


def invert(clauses) -> list[list[str]]:
    """``get_clauses``' rewriting (on copies): ``-Of`` roles inverted, a quoted first argument of
    an :data:`INV_BOXES` operator moved last."""
    out = []
    for c in clauses:
        c = list(c)
        if len(c) == 4 and is_role(c[1]) and c[1].endswith("Of") and len(c[1]) > 2:
            c[2], c[3] = c[3], c[2]
            c[1] = c[1][:-2]
        elif (c[1] in INV_BOXES and len(c) == 4 and between_quotes(c[2])
              and not between_quotes(c[3])):
            c[2], c[3] = c[3], c[2]
        out.append(c)
    return out


def remove_refs(clauses) -> list[int]:
    """The positions ``remove_refs`` keeps: every clause but a ``REF`` whose referent occurs
    in another clause of the same box (as its last or second to last field)."""
    keep = []
    for idx, c in enumerate(clauses):
        if c[1] == "REF":
            var, box = c[2], c[0]
            if any(k != idx and o[0] == box and (var == o[-1] or var == o[-2])
                   for k, o in enumerate(clauses)):
                continue
        keep.append(idx)
    return keep


def rewrite_concept(concept: str, sense: str, sense_map) -> tuple[str, str]:
    """``rewrite_concept``: the synset's lemma and ``"pos.nn"`` when ``sense_map`` (WordNet 3.0's
    ``lemma.pos.nn`` -> synset name, Counter's ``en_sense_dict``) has the concept, else as is."""
    if not sense_map:
        return concept, sense
    key = concept + "." + sense.replace('"', "")
    syn = sense_map.get(key)
    if syn is None:
        return concept, sense
    parts = syn.split(".")
    return ".".join(parts[:-2]), '"' + ".".join(parts[-2:]) + '"'


class CounterDrs(NamedTuple):
    """One DRS as Counter matches it: ``lists`` (kind -> tuple of clauses, variables replaced by
    their numbers, in Counter's order, duplicates once), ``names`` (the variable of each
    number), ``types`` (``"b"`` or ``"x"`` per variable), ``sources`` (kind -> the position,
    in the DRS as given, of the clause each entry came from first) and ``rewritten``
    (``(concept.sense, synset)`` per concept the sense map changed)."""

    lists: dict
    names: tuple
    types: tuple
    sources: dict
    rewritten: tuple

    @property
    def n_vars(self) -> int:
        return len(self.names)

    @property
    def n_clauses(self) -> int:
        """Counter's ``total_clauses``."""
        return sum(len(v) for v in self.lists.values())

    @property
    def concepts(self) -> tuple:
        return self.lists["concepts"]


def counter_drs(clauses, options: CounterOptions | None = None,
                sense_map=None) -> CounterDrs:
    """``clauses`` (lists of string fields, as :func:`split_clause` gives them, three or four
    fields) as Counter matches them (module docstring). A clause of more than four fields (which
    Counter's referee rejects, but ``-ill score`` keeps) is read as Counter reads it: its first
    four fields (but ``REF`` removal looks at its last two); one of fewer than three fields
    raises ``ValueError`` (Counter fails on it with an ``IndexError``)."""
    for c in clauses:
        if len(c) < 3:
            raise ValueError(f"clause {' '.join(c)!r} has {len(c)} field"
                             f"{'s' if len(c) != 1 else ''}, fewer than 3")
    options = options or DEFAULT_OPTIONS
    inv = invert(clauses)
    keep = range(len(inv)) if options.include_ref else remove_refs(inv)
    index: dict = {}
    names: list = []
    types: list = []

    def var(name: str, vtype: str) -> int:
        n = index.get(name)
        if n is None:
            n = index[name] = len(names)
            names.append(name)
            types.append(vtype)
        return n

    lists: dict = {k: [] for k in KINDS}
    seen: dict = {k: set() for k in KINDS}
    sources: dict = {k: [] for k in KINDS}
    rewritten = []
    boxes = options.op_boxes

    def add(kind, clause, pos):
        if clause not in seen[kind]:
            seen[kind].add(clause)
            lists[kind].append(clause)
            sources[kind].append(pos)

    for pos in keep:
        c = inv[pos]
        op = c[1]
        if len(c) == 3:
            v0 = var(c[0], "b")
            v2 = var(c[2], "b" if op in boxes else "x")
            add("op_two_vars", (v0, op, v2), pos)
            continue
        v0 = var(c[0], "b")
        if all_upper(op) or (options.sy_operators and op in ("SY1", "SY2")):
            vt = "b" if op in boxes and op != "PRP" else "x"
            if between_quotes(c[2]):
                add("op_two_vars_abs1", (v0, op, c[2], var(c[3], vt)), pos)
            elif between_quotes(c[3]):
                add("op_two_vars_abs2", (v0, op, var(c[2], vt), c[3]), pos)
            else:
                v2 = var(c[2], vt)
                v3 = var(c[3], "b" if op in boxes else "x")
                add("op_three_vars", (v0, op, v2, v3), pos)
        elif is_role(op):
            role = "Role" if options.default_role else op
            if between_quotes(c[2]) and between_quotes(c[3]):
                add("roles_two_abs", (v0, role, c[2], c[3]), pos)
            elif between_quotes(c[2]):
                add("roles_abs1", (v0, role, c[2], var(c[3], "x")), pos)
            elif between_quotes(c[3]):
                add("roles_abs2", (v0, role, var(c[2], "x"), c[3]), pos)
            else:
                v2 = var(c[2], "x")
                add("roles", (v0, role, v2, var(c[3], "x")), pos)
        else:
            v3 = var(c[3], "x")
            concept, sense = rewrite_concept(op, c[2], sense_map)
            before = op + "." + c[2].replace('"', "")
            after = concept + "." + sense.replace('"', "")
            if before != after:  # the map named another synset (Counter's rewritten_values)
                rewritten.append((before, after))
            if options.default_concept:
                concept, sense = "work", '"n.01"'
            elif options.default_sense:
                sense = '"n.01"'
            add("concepts", (v0, concept, sense, v3), pos)
    return CounterDrs({k: tuple(v) for k, v in lists.items()}, tuple(names), tuple(types),
                      {k: tuple(v) for k, v in sources.items()}, tuple(rewritten))


def clause_key(drs: CounterDrs, kind: str, clause: tuple) -> tuple:
    """The matching key of a clause: its kind, label and constants, and (but for
    ``roles_two_abs``) the types of its variables."""
    key = (kind,) + tuple(clause[p] for p in EDGE_POS[kind])
    if kind in TYPED:
        key += tuple(drs.types[clause[p]] for p in VAR_POS[kind])
    return key


def _repeats(vs) -> bool:
    return len(set(vs)) < len(vs)


def instance_clauses(drs: CounterDrs, side: str) -> list[tuple]:
    """The clauses of ``drs`` for :meth:`LatentInstance.from_clauses` (module docstring):
    ``(key, v...)`` per clause, ternary clauses repeating a variable left out, the symmetric
    operators' orbits by level, the gold side (``side="right"``) in both orientations."""
    out = []
    orbits: dict = {}
    for kind in KINDS:
        for c in drs.lists[kind]:
            vs = tuple(c[p] for p in VAR_POS[kind])
            if len(vs) == 3 and _repeats(vs):
                continue  # never matches in Counter
            key = clause_key(drs, kind, c)
            if kind == "op_three_vars" and c[1] in INV_BOXES:
                t = drs.types
                if t[vs[1]] == t[vs[2]]:
                    orbits.setdefault((c[1], vs[0], frozenset(vs[1:])), []).append((key, vs))
                    continue
                orbits[(c[1], vs)] = [(key, vs)]  # types differ: its own orbit
                continue
            out.append((key,) + vs)
    for members in orbits.values():
        key, (b, x, y) = members[0]
        for level in range(1, len(members) + 1):
            k = key + (level,)
            out.append((k, b, x, y))
            if side == "right":
                out.append((k, b, y, x))
    return out


def counter_pool(prod: CounterDrs, gold: CounterDrs) -> list[set]:
    """Counter's ``compute_pool`` candidates: per produced variable the set of gold variables
    it may map to, filled in Counter's order (kinds in :data:`KINDS` order, produced clause by
    produced clause, gold clauses in order; the swapped orientation of a symmetric operator
    right after the straight one), so that each set iterates as Counter's does -- its random
    initial mappings draw from ``list(set)``."""
    cands = [set() for _ in range(prod.n_vars)]
    tp, tg = prod.types, gold.types
    for kind in KINDS:
        vpos, epos = VAR_POS[kind], EDGE_POS[kind]
        typed = kind in TYPED
        for c in prod.lists[kind]:
            edge = tuple(c[p] for p in epos)
            pv = [c[p] for p in vpos]
            for g in gold.lists[kind]:
                if tuple(g[p] for p in epos) != edge:
                    continue
                gv = [g[p] for p in vpos]
                if typed and any(tp[a] != tg[b] for a, b in zip(pv, gv, strict=True)):
                    continue
                for a, b in zip(pv, gv, strict=True):
                    cands[a].add(b)
                if kind == "op_three_vars" and c[1] in INV_BOXES:
                    cands[pv[0]].add(gv[0])
                    cands[pv[1]].add(gv[2])
                    cands[pv[2]].add(gv[1])
    return cands


def counter_instance(prod: CounterDrs, gold: CounterDrs):
    """The :class:`~exactalign.problems.latent.LatentInstance` of a pair (module docstring):
    left the produced DRS, right the gold one, ``allowed`` Counter's candidate pool. Its
    objective under every one-to-one mapping is the number of clauses Counter's
    ``compute_match`` counts under it."""
    from ..problems.latent import LatentInstance

    pool = counter_pool(prod, gold)
    allowed = frozenset((a, b) for a, s in enumerate(pool) for b in s)
    return LatentInstance.from_clauses(prod.n_vars, gold.n_vars, instance_clauses(prod, "left"),
                                       instance_clauses(gold, "right"), allowed=allowed)


def counter_f(matched, produced: int, gold: int, digits: int = 4) -> tuple:
    """Counter's ``compute_f``: precision and recall rounded to ``digits``, F from the rounded
    values, rounded; ``(0, 0, 0)`` when either side has no clause."""
    if produced == 0 or gold == 0:
        return 0.0, 0.0, 0.0
    p = round(float(matched) / float(produced), digits)
    r = round(float(matched) / float(gold), digits)
    if p + r == 0:
        return p, r, 0.0
    return p, r, round(2 * p * r / (p + r), digits)
