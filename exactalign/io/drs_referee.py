"""Well-formedness of DRSs in clause format, judged as Counter's referee judges it, and Counter's
three ways with an ill-formed DRS (``-ill error|dummy|spar``).

Counter (RikVN/DRS_parsing, ``evaluation/counter.py``) checks every DRS it reads with its
referee (``evaluation/clf_referee.py``, by Lasha Abzianidze) and either stops (``-ill error``,
its default) or puts a dummy or the SPAR baseline DRS in its place (``-ill dummy`` is the
official setting, with the signature ``-g clf_signature.yaml``). This module is our own
implementation of the same judgement; it was compared DRS by DRS with Counter's referee on every
DRS file of the pilot (85 files, 56,943 DRSs): the same 1,258 ill-formed DRSs with the
signature, the same 1,116 without; and on 60,000 pilot DRSs mutated at random, which exercise
the structural checks (loops, unconnected boxes, unbound referents) that no pilot DRS fails: the
same verdict on every one (docs/drs-input.md).

A DRS is well-formed when

1. every clause has 3 or 4 fields (:func:`exactalign.io.drs.field_problem`) and a known kind:

   * a concept -- ``b1 dog "n.01" x1``: the third field a WordNet sense ``"[avnr].NN"`` and the
     name starting with a letter, digit, ``.`` or ``'`` (not ``_``); arguments box, constant,
     term;
   * else an operator or role of the :data:`SIGNATURE` (Counter's ``clf_signature.yaml`` as
     Python data), or a role with ``Of`` appended (``PartOf``, ``AgentOf``: a capitalised role
     whose base is in the signature and ends in a lower-case letter);
   * without a signature (``signature=None``: Counter without ``-g``) the kind comes from the
     operator's form (:func:`format_types`);

   and as many arguments (the box, then the fields after the operator) as its type string has
   letters -- ``b`` box, ``x`` discourse referent, ``c`` constant (in double quotes), ``t``
   term (a referent or a constant);
2. every field is ``"..."`` with no quote inside, or has no quote at all; a constant stands
   where a ``c`` or ``t`` may, a referent or box where a ``b``, ``x`` or ``t`` may;
3. every name has one type across the DRS (a ``t`` unifies with ``x`` or ``c``; left-over
   ``t`` are referents);
4. the boxes' subordination -- direct (``b0 NOT b1``, ``b0 IMP b1 b2`` with ``b1`` over ``b2``,
   ``b0 PRP x b1``), presupposition (``b1 PRESUPPOSITION b2``: ``b1`` over ``b2``), discourse
   relations (``b1 CONTINUATION b2``), and a box that introduces (``REF``) a referent over
   every other box whose conditions use it -- closed under transitivity and Counter's
   connectivity rule (if ``b0`` directly subordinates ``b1`` and ``b`` subordinates ``b1``, is
   not ``b0`` and is not under ``b0``, then ``b`` subordinates ``b0``) has no loop;
5. the boxes are connected by that relation (taken undirected), when it has any pair;
6. every referent a box's conditions use is introduced by that box or by a box over it.

Ill-formed DRSs (:func:`replace_ill`): ``error`` raises :class:`InputError` naming the file,
the DRS and the line; ``dummy`` puts :func:`dummy_drs` in its place -- Counter draws ten random
letters for the dummy's concept so that it matches nothing; ours takes them from a hash of the
side (``"prod"``/``"gold"``), the file and the DRS number, so that runs repeat and two dummies
of different sides or DRSs still never match; ``spar`` puts :data:`SPAR_DRS` (the SPAR DRS of
"He bragged about it.", Counter's, for PMB 3.0.0); ``score`` keeps the DRS (Counter's
unofficial ``-ill score``).

Differences from Counter: Counter checks a DRS when it meets the blank line after it, so the
last DRS of a file that does not end with a newline goes unchecked; we check every DRS. Counter
stops at the first problem of a DRS; :func:`check_drs` lists every clause-level problem (and the
first structural one when the clauses are fine): the verdict is the same.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace

from ..core.errors import InputError
from .drs import FIELD, Drs, field_problem

__all__ = ["ILL_MODES", "SIGNATURE", "SPAR_DRS", "check_drs", "closure", "dummy_drs",
           "format_types", "is_well_formed", "operator_types", "replace_ill", "unify_types"]

#: Counter's choices for an ill-formed DRS (``-ill``).
ILL_MODES = ("error", "dummy", "spar", "score")

# Counter's clf_signature.yaml, as data: argument types -> kind -> operators.
_BTT_ROLES = {
    "TRL": "EQU NEQ APX LES LEQ TPR TAB TIN",  # temporal relations
    "SRL": "SZP SZN SXP SXN STI STO SY1 SY2 SXY",  # spatial relations
    "ERO": ("Agent Asset Attribute AttributeOf Beneficiary Causer Co-Agent Co-Patient Co-Theme "
            "Consumer Destination Duration Experiencer Finish Frequency Goal Instrument Instance "
            "Location Manner Material Path Patient Pivot Product Recipient Result Source Start "
            "Stimulus Theme Time Topic Value"),  # event roles
    "CRO": ("Bearer Colour ColourOf ContentOf Content Creator Degree MadeOf Of Operand Owner "
            "Part PartOf Player Quantity Role Sub SubOf Title Unit User"),  # concept roles
    "TRO": "ClockTime DayOfMonth DayOfWeek Decade MonthOfYear YearOfCentury",  # time roles
    "ORO": "Affector Context Equal Extent Precondition Measure Cause Order Participant",
}
_GROUPS = {
    "bx": {"DRS": "REF"},
    "bbb": {"DRS": "IMP DIS DUP"},
    "bb": {"DRS": "NOT POS NEC",
           "DRL": ("ALTERNATION ATTRIBUTION BACKGROUND COMMENTARY CONDITION CONTINUATION "
                   "CONTRAST CONSEQUENCE ELABORATION EXPLANATION INSTANCE NARRATION NEGATION "
                   "NECESSITY POSSIBILITY PARALLEL PRECONDITION RESULT SOURCE TOPIC"),
           "PRE": "PRESUPPOSITION"},
    "bxb": {"DRS": "PRP", "PPS": "Proposition"},
    "btc": {"CRO": "Name"},
    "btt": _BTT_ROLES,
    "c": {"UOM": ("minute hour day week month year centimeter inch foot mile meter acre kilogram "
                  "ton kilometer pound yen dollar euro percent degree_celsius")},
}
#: operator -> (kind, argument types): Counter's ``clf_signature.yaml`` (RikVN/DRS_parsing
#: @190838f), e.g. ``"Agent": ("ERO", "btt")``, ``"NOT": ("DRS", "bb")``.
SIGNATURE: dict[str, tuple[str, str]] = {
    op: (kind, types) for types, kinds in _GROUPS.items() for kind, ops in kinds.items()
    for op in ops.split()}

#: The SPAR DRS (of "He bragged about it.") that ``-ill spar`` puts in place of an ill-formed
#: DRS, as Counter has it (for PMB 3.0.0).
SPAR_DRS: tuple[tuple[str, ...], ...] = tuple(tuple(c.split()) for c in (
    "b1 REF x1", "b1 PRESUPPOSITION b2", 'b1 male "n.02" x1', "b2 REF e1", "b2 REF t1",
    "b2 Agent e1 x1", 'b2 TPR t1 "now"', "b2 Time e1 t1", 'b2 brag "v.01" e1',
    'b2 time "n.08" t1', "b2 Theme e1 x2", "b3 REF x2", "b3 PRESUPPOSITION b2",
    'b3 entity "n.01" x2'))

_SENSE = re.compile(r'"[avnr]\.\d\d"')
_CONCEPT_START = re.compile(r"[.'\w]")
#: the kinds whose clauses Counter treats as conditions of a role (everything else that the
#: signature names, but for DRS operators, discourse relations and presuppositions)
_OWN_KINDS = ("DRL", "PRE", "PPS")


def operator_types(op: str, args: tuple[str, ...], signature) -> tuple[str, str] | None:
    """``(clause type, argument types)`` of operator ``op`` with arguments ``args`` (the box,
    then the fields after the operator), or ``None`` for an unknown operator. The clause type
    is ``LEX`` for a concept, the operator itself for a DRS operator (``REF``, ``NOT``, ...),
    ``DRL``, ``PRE``, ``PPS``, or ``ROL`` for every other kind of the signature."""
    if len(args) > 1 and _SENSE.fullmatch(args[1]) and _CONCEPT_START.match(op) \
            and not op.startswith("_"):
        return "LEX", "bct"
    if signature is None:
        return format_types(op)
    if op in signature:
        kind, types = signature[op]
        if kind == "DRS":
            return op, types
        return (kind if kind in _OWN_KINDS else "ROL"), types
    base = op[:-2]
    if op.endswith("Of") and len(op) > 2 and base in signature and op[-3].islower() \
            and op[0].isupper():
        return "ROL", signature[base][1]
    return None


def format_types(op: str) -> tuple[str, str] | None:
    """``(clause type, argument types)`` of ``op`` from its form alone, as Counter types
    clauses when it is given no signature (no ``-g``): ``REF``; ``NOT``/``POS``/``NEC``/``DRS``
    over one box; ``IMP``/``DIS``/``DUP`` over two; ``PRP``/``Proposition``; ``PRESUPPOSITION``;
    three capitals a comparison (role over two terms); other capitals a discourse relation; a
    capital then a lower-case letter a role; else unknown (``None``)."""
    if op == "REF":
        return op, "bx"
    if op in ("NOT", "POS", "NEC", "DRS"):
        return op, "bb"
    if op in ("IMP", "DIS", "DUP"):
        return op, "bbb"
    if op in ("PRP", "Proposition"):
        return op, "bxb"
    if op == "PRESUPPOSITION":
        return "PRE", "bb"
    if len(op) == 3 and op.isupper():
        return "ROL", "btt"
    if op.isupper():
        return "DRL", "bb"
    if op[0:2].istitle():
        return "ROL", "btt"
    return None


def unify_types(a: str, b: str) -> str | None:
    """The referee's unification of two argument types (``t`` with ``x`` or ``c``), ``None``
    when they clash."""
    if a == b:
        return a
    pair = {a, b}
    if pair == {"t", "c"}:
        return "c"
    if pair == {"t", "x"}:
        return "x"
    return None


def _clause_problem(clause, types: dict, signature) -> tuple[str | None, tuple]:
    """``(problem, clause type and typed arguments)`` of one clause; ``types`` (name -> type so
    far) is updated only when the clause is fine."""
    if len(clause) > 4 or len(clause) < 3:
        return field_problem(clause), ()
    op, args = clause[1], (clause[0], *clause[2:])
    found = operator_types(op, args, signature)
    if found is None:
        return f"unknown operator, role or concept {op!r}", ()
    kind, want = found
    if len(args) != len(want):
        return (f"{op!r} takes {len(want) - 1} argument(s) after it ({kind}, types "
                f"{want!r}), this clause has {len(args) - 1}"), ()
    new: dict[str, str] = {}
    for arg, t in zip(args, want, strict=True):
        if not FIELD.fullmatch(arg):
            return f"field {arg!r} is ill-formed (a stray or unbalanced double quote)", ()
        quoted = arg.startswith('"')
        if (t == "c" and not quoted) or (t in "bx" and quoted):
            what = {"b": "a box", "x": "a discourse referent", "c": "a constant in quotes"}[t]
            return f"{arg} stands where {what} must ({op} {want})", ()
        t = "c" if quoted else t
        before = new.get(arg, types.get(arg))
        u = t if before is None else unify_types(before, t)
        if u is None:
            return f"type clash: {arg} is a {_NAMES[before]} and a {_NAMES[t]}", ()
        new[arg] = u
    types.update(new)
    return None, (kind, clause)


_NAMES = {"b": "box", "x": "discourse referent", "c": "constant", "t": "term"}


def closure(rel: set) -> set:
    """Transitive closure of a set of pairs (Warshall's algorithm over rows as bit sets)."""
    nodes = sorted({a for pair in rel for a in pair})
    at = {b: i for i, b in enumerate(nodes)}
    reach = [0] * len(nodes)
    for a, b in rel:
        reach[at[a]] |= 1 << at[b]
    for k in range(len(reach)):
        bit, row = 1 << k, reach[k]
        for i, r in enumerate(reach):
            if r & bit:
                reach[i] = r | row
    return {(nodes[i], nodes[j]) for i, r in enumerate(reach)
            for j, c in enumerate(reversed(bin(r))) if c == "1"}


def _structure_problem(typed, types) -> tuple[str, int] | None:
    """The first structural problem of well-typed clauses (``(message, clause position)``,
    position -1 for the whole DRS), or ``None``."""
    refs: dict[str, set] = {}
    uses: dict[str, set] = {}
    direct: set = set()
    extra: set = set()  # presupposition and discourse-relation pairs
    boxes: set = set()
    for pos, (kind, c) in enumerate(typed):
        b = c[0]
        boxes.add(b)
        if kind == "REF":
            refs.setdefault(b, set()).add(c[2])
        elif kind in ("NOT", "POS", "NEC"):
            direct.add((b, c[2]))
            boxes.add(c[2])
        elif kind in ("IMP", "DUP", "DIS"):
            direct.update({(b, c[2]), (b, c[3])})
            boxes.update(c[2:])
            if kind != "DIS":
                direct.add((c[2], c[3]))
        elif kind in ("PRP", "PPS", "Proposition"):
            direct.add((b, c[3]))
            boxes.add(c[3])
            uses.setdefault(b, set()).add(c[2])
        elif kind in ("DRL", "PRE"):
            boxes.add(c[2])
            extra.add((b, c[2]))
        elif kind in ("LEX", "ROL"):
            uses.setdefault(b, set()).update(a for a in c[2:] if types[a] == "x")
        else:  # "DRS" without a signature: Counter has no place for it
            return f"operator {c[1]} cannot be placed in a box", pos
    rel = direct | extra
    for b2, used in uses.items():
        for x in used - refs.get(b2, set()):
            rel.update((b1, b2) for b1, r in refs.items() if b1 != b2 and x in r)
    while True:  # pairs are only ever added: a loop found on the way stays
        before = rel
        rel = closure(rel)
        above: dict = {}  # box -> the boxes over it
        for a, b in rel:
            above.setdefault(b, set()).add(a)
        rel = rel | {(b, b0) for b0, b1 in direct for b in above.get(b1, ())
                     if b != b0 and (b0, b) not in rel}
        loops = sorted(a for a, b in rel if a == b)
        if loops:
            return f"the subordination of boxes has a loop through {loops[0]}", -1
        if rel == before:
            break
    if rel:
        seen, todo = set(), [min(boxes)]
        near: dict = {}
        for a, b in rel:
            near.setdefault(a, set()).add(b)
            near.setdefault(b, set()).add(a)
        while todo:
            a = todo.pop()
            if a not in seen:
                seen.add(a)
                todo.extend(near.get(a, ()))
        if boxes - seen:
            return (f"boxes {', '.join(sorted(boxes - seen))} are not connected with "
                    f"{', '.join(sorted(seen))}"), -1
    above = {}
    for b1, b2 in rel:
        above.setdefault(b2, set()).add(b1)
    unbound = sorted(x for b, used in uses.items() for x in used - refs.get(b, set())
                     if not any(x in refs.get(b1, ()) for b1 in above.get(b, ())))
    if unbound:
        return f"unbound referents: {', '.join(dict.fromkeys(unbound))}", -1
    return None


def _problems(drs: Drs, signature) -> list[tuple[str, int]]:
    """``(message, line)`` of every problem of ``drs`` (empty: well-formed)."""
    types: dict[str, str] = {}
    typed, out = [], []
    for clause, line in zip(drs.clauses, drs.lines, strict=True):
        problem, t = _clause_problem(clause, types, signature)
        if problem:
            out.append((problem, line))
        else:
            typed.append(t)
    if out or not typed:
        return out if out or typed else [("a DRS without clauses", drs.line)]
    found = _structure_problem(typed, {a: "x" if t == "t" else t for a, t in types.items()})
    if found:
        message, pos = found
        return [(message, drs.lines[pos] if pos >= 0 else drs.line)]
    return []


def check_drs(drs: Drs, signature=SIGNATURE) -> list[str]:
    """Why ``drs`` is ill-formed, one ``FILE:LINE: DRS n: problem`` a problem (``n`` 1-based,
    as Counter numbers DRSs); empty when it is well-formed. ``signature``: :data:`SIGNATURE`
    (Counter with ``-g clf_signature.yaml``, the official setting), or ``None`` for Counter's
    typing by the operators' form (Counter without ``-g``)."""
    return [f"{drs.path}:{line}: DRS {drs.index + 1}: {message}"
            for message, line in _problems(drs, signature)]


def is_well_formed(drs: Drs, signature=SIGNATURE) -> bool:
    """Whether :func:`check_drs` finds nothing."""
    return not _problems(drs, signature)


def dummy_drs(index: int, side: str = "", path: str = "") -> tuple[tuple[str, ...], ...]:
    """The dummy DRS put in place of ill-formed DRS ``index`` (0-based) of ``path`` on ``side``
    (``"prod"``, ``"gold"``): ``b1 REF x1`` and ``b1 alwayswrongconcept<ten letters a-h>
    "n.01" x1``, as Counter's, but with letters from a hash of side, file and index (Counter
    draws them at random) -- the same on every run, different for another side, file or DRS."""
    digest = hashlib.sha256(f"{side}\0{path}\0{index}".encode()).digest()
    letters = "".join("abcdefgh"[b % 8] for b in digest[:10])
    return (("b1", "REF", "x1"), ("b1", "alwayswrongconcept" + letters, '"n.01"', "x1"))


def replace_ill(drss, mode: str = "error", *, signature=SIGNATURE, side: str = "",
                judge=None, spar=SPAR_DRS) -> tuple[list[Drs], int]:
    """``(DRSs, number ill-formed)``: ``drss`` with every ill-formed DRS handled as Counter's
    ``-ill mode`` handles it (:data:`ILL_MODES`): ``error`` raises :class:`InputError` naming
    file, line and DRS of the first; ``dummy`` / ``spar`` put :func:`dummy_drs` /
    :data:`SPAR_DRS` in its place (a :class:`Drs` with the same index and path, clause lines 0,
    ``replaced`` set); ``score`` keeps it. ``side`` (``"prod"``, ``"gold"``) keeps the
    dummies of the two files apart. ``judge``: another referee (a DRS -> its ``(message,
    line)`` problems, e.g. :func:`~exactalign.io.drs_referee_v220.problems_v220`), with its
    ``spar`` DRS."""
    if mode not in ILL_MODES:
        raise InputError(f"unknown way with ill-formed DRSs {mode!r}; choose one of "
                         + ", ".join(ILL_MODES))
    out, n_ill = [], 0
    for d in drss:
        problems = _problems(d, signature) if judge is None else judge(d)
        if not problems:
            out.append(d)
            continue
        n_ill += 1
        message, line = problems[0]
        if mode == "error":
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise InputError(f"DRS {d.index + 1} is ill-formed: {message}{more} (Counter's "
                             "referee; -ill dummy or spar replaces ill-formed DRSs)",
                             path=d.path, line=line or None)
        if mode == "score":
            out.append(d)
            continue
        clauses = dummy_drs(d.index, side, d.path) if mode == "dummy" else spar
        out.append(replace(d, clauses=clauses, lines=(0,) * len(clauses), comments=(),
                           trailing=("",) * len(clauses), replaced=mode))
    return out, n_ill
