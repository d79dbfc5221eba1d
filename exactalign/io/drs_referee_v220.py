"""Well-formedness of DRSs as Counter's referee judged it at DRS_parsing's tag ``v.2.2.0``.

The published PMB 2.2.0 results (the Neural_DRS runs of the pilot's ``pmb-2.2.0/``) were scored
by the Counter of RikVN/DRS_parsing at tag ``v.2.2.0`` (commit ec4eb07, 2019-11-18): Neural_DRS's
setup of that release checks it out. Its referee and signature differ from today's
(:mod:`exactalign.io.drs_referee`, @190838f) in what decides those scores: the signature lists
``DRS`` (``k DRS b``, an SDRS formula: box ``k`` holds box ``b``) and takes the discourse
relations over three boxes (``k EXPLANATION b1 b2``), where today's referee rejects every
``DRS`` clause -- 17 gold DRSs of PMB 2.2.0 dev, 19 of test. This module is our own
implementation of the old judgement (read, never copied):

1. a clause's kind: a concept when its third field is a WordNet sense ``"[avnr].NN"`` (any
   name); else the operator's entry in :data:`SIGNATURE_V220` (no ``...Of`` inverses, no
   ``PRESUPPOSITION``); without a signature the operator's form (:func:`format_types_v220`:
   discourse relations over three boxes);
2. as many arguments as its type string; quotes and types as today (a ``c`` in double quotes,
   ``b``/``x`` not; one type per name, ``t`` unifying with ``x`` or ``c``);
3. boxes: ``NOT``/``POS``/``NEC``/``DRS`` subordinate their box, ``IMP``/``DUP``/``DIS`` their
   two (``IMP``/``DUP``: the first over the second), ``PRP`` its box; a discourse relation
   ``k REL b1 b2`` relates ``b1`` and ``b2`` inside ``k`` without subordinating them, and the
   boxes a box introduces with ``DRS`` must be exactly the boxes of its relations;
4. a box introducing a referent subordinates every other box whose conditions use it; closed
   under transitivity and the connectivity rule (as today); no loop;
5. exactly one main box: among the boxes no other box holds (by subordination or relation),
   one subordinated by all the others;
6. every referent used in a box is introduced there or in a box subordinating it.

Compared DRS by DRS with the referee of ec4eb07 on every DRS file of the pilot
(docs/drs-input.md). Its ``-ill spar`` DRS is :data:`SPAR_DRS_V220` ("He smiled").
"""

from __future__ import annotations

import re

from .drs import FIELD, Drs
from .drs_referee import closure, unify_types

__all__ = ["SIGNATURE_V220", "SPAR_DRS_V220", "format_types_v220", "problems_v220"]

_GROUPS = {
    "bx": {"DRS": "REF"},
    "bb": {"DRS": "NOT POS NEC DRS"},
    "bbb": {"DRS": "IMP DIS DUP",
            "DRL": ("BACKGROUND COMMENTARY CONTINUATION CONTRAST ELABORATION EXPLANATION "
                    "INSTANCE NARRATION PARALLEL PRECONDITION RESULT TOPIC")},
    "bxb": {"DRS": "PRP"},
    "btt": {
        "TRL": "EQU NEQ APX LES LEQ TPR TAB TIN",
        "SRL": "SZP SZN SXP SXN STI STO SY1 SY2 SXY",
        "ERO": ("Agent Asset Attribute Beneficiary Causer Co-Agent Co-Patient Co-Theme "
                "Destination Duration Experiencer Finish Frequency Goal Instrument Location "
                "Manner Material Path Patient Pivot Product Recipient Result Source Start "
                "Stimulus Theme Time Topic Value"),
        "CRO": "Colour Creator ContentOf Content MadeOf Name Of Owner PartOf Quantity Role "
               "Title Unit User",
        "TRO": "ClockTime DayOfMonth DayOfWeek Decade MonthOfYear YearOfCentury",
        "ORO": "Affector Context Equal Extent Precondition Part Measure Cause Order Participant",
    },
}
#: operator -> (kind, argument types): ``evaluation/clf_signature.yaml`` of DRS_parsing at tag
#: ``v.2.2.0`` (ec4eb07), e.g. ``"DRS": ("DRS", "bb")``, ``"EXPLANATION": ("DRL", "bbb")``.
SIGNATURE_V220: dict[str, tuple[str, str]] = {
    op: (kind, types) for types, kinds in _GROUPS.items() for kind, ops in kinds.items()
    for op in ops.split()}

#: The SPAR DRS (of "He smiled") that ``-ill spar`` put in place of an ill-formed DRS then.
SPAR_DRS_V220: tuple[tuple[str, ...], ...] = tuple(tuple(c.split()) for c in (
    "b1 REF x1", 'b1 male "n.02" x1', "b3 REF t1", 'b3 TPR t1 "now"', 'b3 time "n.08" t1',
    "k0 Agent e1 x1", "k0 REF e1", "k0 Time e1 t1", 'k0 smile "v.01" e1'))

_SENSE = re.compile(r'"[avnr]\.\d\d"')


def format_types_v220(op: str) -> tuple[str, str] | None:
    """``(clause kind, argument types)`` of ``op`` from its form alone (no signature)."""
    if op == "REF":
        return op, "bx"
    if op in ("NOT", "POS", "NEC", "DRS"):
        return op, "bb"
    if op in ("IMP", "DIS", "DUP"):
        return op, "bbb"
    if op == "PRP":
        return op, "bxb"
    if len(op) == 3 and op.isupper():
        return "ROL", "btt"
    if op.isupper():
        return "REL", "bbb"
    if op[0:2].istitle():
        return "ROL", "btt"
    return None


def _kind(clause, signature) -> tuple[str, str] | None:
    if len(clause) > 2 and _SENSE.fullmatch(clause[2]):
        return "LEX", "bct"
    op = clause[1]
    if not signature:
        return format_types_v220(op)
    if op not in signature:
        return None
    kind, types = signature[op]
    return (op if kind == "DRS" else "REL" if kind == "DRL" else "ROL"), types


def _typing(drs: Drs, signature) -> tuple[list, dict, tuple[str, int] | None]:
    """``(kinds, types, None)`` of the clauses, or ``([], {}, (problem, line))`` at the first
    clause that cannot be typed."""
    types: dict[str, str] = {}
    kinds = []
    for clause, line in zip(drs.clauses, drs.lines, strict=True):
        if len(clause) < 3:
            return [], {}, (f"a clause of {len(clause)} field(s)", line)
        found = _kind(clause, signature)
        if found is None:
            return [], {}, (f"unknown operator, role or concept {clause[1]!r}", line)
        kind, want = found
        args = (clause[0], *clause[2:])
        if len(args) != len(want):
            return [], {}, (f"{clause[1]!r} takes {len(want) - 1} argument(s) after it, this "
                            f"clause has {len(args) - 1}", line)
        for arg, t in zip(args, want, strict=True):
            if not FIELD.fullmatch(arg):
                return [], {}, (f"field {arg!r} is ill-formed (a stray or unbalanced double "
                                "quote)", line)
            quoted = arg.startswith('"') and arg.endswith('"')
            if (t == "c" and not quoted) or (quoted and unify_types(t, "c") != "c"):
                return [], {}, (f"type clash: {arg} stands where a {t} must", line)
            t = "c" if quoted else "x" if t == "t" else t
            u = t if arg not in types else unify_types(types[arg], t)
            if u is None:
                return [], {}, (f"type clash: {arg} is of type {types[arg]} and {t}", line)
            types[arg] = u
        kinds.append(kind)
    return kinds, types, None


def problems_v220(drs: Drs, signature=SIGNATURE_V220) -> list[tuple[str, int]]:
    """``(message, line)`` of the first problem of ``drs`` as the referee of ``v.2.2.0`` finds
    it (empty: well-formed); ``signature=None``: Counter of then without ``-g``."""
    if not drs.clauses:
        return [("a DRS without clauses", drs.line)]
    kinds, types, problem = _typing(drs, signature)
    if problem:
        return [problem]
    boxes: set = set()
    subs: dict = {}
    refs: dict = {}
    used: dict = {}
    box_refs: dict = {}
    rel_boxes: dict = {}
    for kind, c in zip(kinds, drs.clauses, strict=True):
        b = c[0]
        boxes.add(b)
        if kind == "REF":
            refs.setdefault(b, set()).add(c[2])
        elif kind in ("NOT", "POS", "NEC", "DRS", "IMP", "DUP", "DIS"):
            inner = c[2:]
            subs.setdefault(b, set()).update(inner)
            boxes.update(inner)
            if kind == "DRS":
                box_refs.setdefault(b, set()).add(c[2])
            if kind in ("IMP", "DUP"):
                subs.setdefault(c[2], set()).add(c[3])
        elif kind == "PRP":
            subs.setdefault(b, set()).add(c[3])
            boxes.add(c[3])
            used.setdefault(b, set()).add(c[2])
        elif kind == "REL":
            rel_boxes.setdefault(b, set()).update(c[2:])
        else:  # LEX, ROL
            used.setdefault(b, set()).update(a for a in c[2:] if types[a] == "x")
    for b in boxes:
        if box_refs.get(b, set()) != rel_boxes.get(b, set()):
            return [(f"the boxes {b} introduces with DRS differ from the boxes of its "
                     "relations", drs.line)]
    rel = {(a, b) for a, bs in subs.items() for b in bs}
    for b2, xs in used.items():
        for x in xs - refs.get(b2, set()):
            rel.update((b1, b2) for b1, r in refs.items() if b1 != b2 and x in r)
    direct = {(a, b) for a, bs in subs.items() for b in bs}
    while True:
        before = rel
        rel = closure(rel)
        rel = rel | {(b, b0) for b0, b1 in direct for b, b3 in rel
                     if b3 == b1 and b != b0 and (b0, b) not in rel}
        if rel == before:
            break
    loops = sorted(a for a, b in rel if a == b)
    if loops:
        return [(f"the subordination of boxes has a loop through {loops[0]}", drs.line)]
    held = {b for bs in subs.values() for b in bs} | {b for bs in rel_boxes.values() for b in bs}
    free = boxes - held
    main = [b for b in free if sum(1 for a, c in rel if c == b and a in free) == len(free) - 1]
    if len(main) != 1:
        return [(f"{'no' if not main else len(main)} main box(es)", drs.line)]
    unbound = sorted(x for b, xs in used.items() for x in xs - refs.get(b, set())
                     if not any(c == b and x in refs.get(a, ()) for a, c in rel))
    if unbound:
        return [(f"unbound referents: {', '.join(dict.fromkeys(unbound))}", drs.line)]
    return []
