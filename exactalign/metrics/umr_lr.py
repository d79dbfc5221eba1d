"""AnCast's labeled relation (LR) score under a mapping: the number AnCast 0.1.1 prints as
``Sent Micro`` (read from its ``MatchResolution.weighted_relational_overlap``; our own code).

The structural triples of a graph (:func:`exactalign.metrics.umr.side_of`, without ``TOP``)
are grouped by their two ends, ``(head, tail) -> {roles}`` (an end is a variable or a
constant). A test group ``(h, t)`` is carried by the mapping to ``(m(h), m(t))`` (a constant to
itself, an unmapped variable nowhere); when the gold graph has that group, it scores

    (sim(h, m(h)) + sim(t, m(t))) / 2 * |roles ∩ gold roles|

and every group counts its number of roles. ``sim`` compares the concept names (without sense
and without the ``:opN`` values; a constant is its own name, sense 0): ``a`` a substring of ``b``
gives ``len(a) / len(b)`` (and the other way round), anything else 0, times 0.9 when the sense
numbers differ. Precision sums the test groups, recall the gold groups under the inverse
mapping; over a corpus the scores and counts are summed first (micro), then ``F = 2PR /
(P + R)``. The weights are fractions of concept similarity, so this objective is not the
Smatch-format count the exact optimum maximises (:mod:`exactalign.metrics.umr`): the mapping
optimal for one need not be for the other.
"""

from __future__ import annotations

from collections import defaultdict


def string_sim(a: str, b: str) -> float:
    """AnCast's containment ratio of two names (lower-cased)."""
    a, b = a.lower(), b.lower()
    if a in b:
        return len(a) / len(b) if b else 1.0
    if b in a:
        return len(b) / len(a)
    return 0.0


def name_sim(a: tuple, b: tuple, sense_coefficient: float = 0.1) -> float:
    """``string_sim`` of two (name, sense) pairs, times ``1 - sense_coefficient`` when the
    senses differ."""
    return string_sim(a[0], b[0]) * (1.0 if a[1] == b[1] else 1.0 - sense_coefficient)


def groups(side) -> dict:
    """``(head, tail) -> set of roles`` of a side's structural triples (ends ``("v", index)``
    or ``("c", constant)``)."""
    out: dict = defaultdict(set)
    for t in side.triples:
        if t is None or t[0] == "top":
            continue
        if t[0] == "rel":
            out[(("v", t[2]), ("v", t[3]))].add(t[1])
        elif t[0] == "attr":
            out[(("v", t[2]), ("c", t[3]))].add(t[1])
        elif t[0] == "modc":
            out[(("c", t[1]), ("v", t[2]))].add("mod-of")
    return out


def _name(side, end) -> tuple:
    return side.names[end[1] - side.top] if end[0] == "v" else (end[1], 0)


def directed(me, you, mapping: dict, sense_coefficient: float = 0.1) -> tuple[float, int]:
    """(score, count) of ``me``'s groups against ``you`` under ``mapping`` (``me``'s variable
    index -> ``you``'s)."""
    g_you = groups(you)
    score, count = 0.0, 0
    for (h, t), roles in groups(me).items():
        count += len(roles)
        th = ("v", mapping[h[1]]) if h[0] == "v" and h[1] in mapping else h
        tt = ("v", mapping[t[1]]) if t[0] == "v" and t[1] in mapping else t
        if (h[0] == "v" and h[1] not in mapping) or (t[0] == "v" and t[1] not in mapping):
            continue
        other = g_you.get((th, tt))
        if other is None:
            continue
        sim = (name_sim(_name(you, th), _name(me, h), sense_coefficient)
               + name_sim(_name(you, tt), _name(me, t), sense_coefficient)) / 2
        score += sim * len(roles & other)
    return score, count


def lr_counts(test, gold, mapping: dict) -> tuple[float, int, float, int]:
    """(precision score, test count, recall score, gold count) of one sentence under a
    one-to-one ``mapping`` (test index -> gold index)."""
    ps, pc = directed(test, gold, mapping)
    rs, rc = directed(gold, test, {v: k for k, v in mapping.items()})
    return ps, pc, rs, rc


def micro_f(rows) -> tuple[float, float, float]:
    """AnCast's micro P, R, F over ``(ps, pc, rs, rc)`` rows (0 for a zero denominator)."""
    ps = sum(r[0] for r in rows)
    pc = sum(r[1] for r in rows)
    rs = sum(r[2] for r in rows)
    rc = sum(r[3] for r in rows)
    p = ps / pc if pc else 0.0
    r = rs / rc if rc else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)
