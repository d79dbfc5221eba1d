"""A key/response template pair: its counts under each slot matching (:func:`pair_counts`),
the counts of an unmapped key or response template, and the content rule that decides which
pairs may map (guidelines §3.2.1; :func:`content_rule_1992`, the 1992 scorer's test, with the
score its automatic mapping ranks pairs by)."""

from __future__ import annotations

from ...io.muc4 import MucTemplate
from .config1992 import fill_value
from .counts import Counts, normalized_percent
from .guidelines import Judge, counts_of_pairs, slot_counts, slot_pairs, strings_of
from .scorer1992 import Scorer1992

#: Slot matchings of :func:`pair_counts`: the 1992 scorer's own, or the guidelines' rules over
#: the fills' alternatives matched by assignment or in order.
SLOT_MATCHING = ("muc1992", "exact", "first-fit")

#: The perpetrator and target slots of the content rule as the guidelines state it.
PERP_TARGET_SLOTS = (9, 10, 12, 13, 18, 19, 20)


def pair_counts(key: MucTemplate, resp: MucTemplate, judge: Judge,
                matching: str = "muc1992") -> tuple[Counts, tuple[Counts, ...]]:
    """Counts of a mapped key/response pair (slots 2-24), and per slot. ``muc1992``: the 1992
    scorer's own procedure (:class:`Scorer1992`). ``exact``/``first-fit`` (an approximation
    of the 1992 rules over the fills' alternatives, kept for comparison): the string slots are
    scored first; the string fills they pair (COR, PAR or INC) are the links through which the
    cross-referenced set fills are then paired (:meth:`Judge.reference`)."""
    if matching == "muc1992":
        per92 = tuple(t.counts() for t in _scorer(judge, key).template(key, resp))
        total92 = Counts()
        for c in per92:
            total92 = total92 + c
        return total92, per92
    per: dict[int, Counts] = {}
    links: dict[str, dict[str, float]] = {}
    for s in (6, 9, 10, 12, 18, 19):  # DESCRIPTION last: its references are to NAME
        rs, S, pairs, inc = slot_pairs(s, key.slots[s], resp.slots[s],
                                       Judge(judge.message, judge.history, links), matching)
        per[s] = counts_of_pairs(key.slots[s], rs, S, pairs, inc)
        for i, j in pairs + inc:
            for r in strings_of(rs[j]):
                for k in (x for a in key.slots[s][i].alternatives for x in strings_of(a)):
                    links.setdefault(r, {})[k] = max(links.get(r, {}).get(k, 0.0), S[i, j])
    linked = Judge(judge.message, judge.history, links)
    for s in range(2, 25):
        if s not in per:
            per[s] = slot_counts(s, key.slots[s], resp.slots[s], linked, matching)
    total = Counts()
    for s in range(2, 25):
        total = total + per[s]
    return total, tuple(per[s] for s in range(2, 25))


def missing_counts(key: MucTemplate) -> Counts:
    """Counts of an unmapped key template (nothing for an optional one)."""
    if key.optional:
        return Counts()
    n = sum(1 for s in key.slots[2:] for f in s if not f.optional)
    return Counts(POS=n, MIS=n)


def spurious_counts(resp: MucTemplate) -> Counts:
    """Counts of an unmapped response template: every fill spurious (but an optional one --
    ``?`` in a response -- which the 1992 scorer counts nowhere: SYNCH TST3 0016)."""
    n = sum(1 for s in resp.slots[2:] for f in s if not f.optional)
    return Counts(ACT=n, SPU=n)


def content_rule(per: tuple[Counts, ...]) -> bool:
    """Incident type with COR or PAR and some perpetrator/target slot with COR or PAR (the
    rule as the guidelines state it, over a pair's slot counts; the 1992 scorer's own test is
    :func:`content_rule_1992`)."""
    return per[4 - 2].credit > 0 and any(per[s - 2].credit > 0 for s in PERP_TARGET_SLOTS)


#: The official configuration's mapping restriction (``:restrict-map-slots``): INCIDENT: TYPE
#: and (any of these, or all of them empty on both sides).
MAP_RESTRICTION = (4, (12, 13, 18, 19, 20, 9, 10))


def history_entries(history) -> dict:
    return getattr(history, "entries", {}) if history is not None else {}


def _scorer(judge: Judge, key: MucTemplate | None, ignore_fail: bool = False) -> Scorer1992:
    return Scorer1992(history_entries(judge.history), judge.message,
                      key.number if key is not None else None, ignore_fail)


def content_rule_1992(key: MucTemplate, resp: MucTemplate, judge: Judge,
                      lenient: bool = False) -> bool:
    """The 1992 scorer's content-based mapping test (``score-restricted-mapping``, guidelines
    §3.2.1): INCIDENT: TYPE must match at least partially and so must one of PERP: INDIVIDUAL
    ID, ORGANIZATION ID, PHYS TGT: ID, TYPE, HUM TGT: NAME, DESCRIPTION, TYPE -- unless all
    seven are empty in both templates. Each slot is scored without questions and with the
    scorer's mapping leniency (:class:`Scorer1992` ``substring``): a string slot, or any slot
    with several fills, also matches partially when one word is shared (after the quotes and
    premodifiers are deleted). Far wider than the rule as stated: what the official scorer let
    map.

    ``lenient``: the history's ``fail`` judgements are ignored. The official mapping of a
    message was decided before its slots were judged, with the history as it stood then: a
    ``fail`` recorded later (in that very session) did not yet stop a shared word from
    letting the pair map (BBN TST3 0091 key 1 / response 1: HUM TGT: DESCRIPTION "THE
    GOVERNMENT", failed in the final history). A ``fail`` can only refuse a pair, so the
    lenient rule admits every pair the strict one does, and every recorded pair of the 33
    reports."""
    sc = _scorer(judge, key, ignore_fail=lenient)

    def status(s):
        t = sc.slot(s, [fill_value(f) for f in key.slots[s]],
                    [fill_value(f) for f in resp.slots[s]], query=False, substring=True)
        return "null" if t.NON else (t.COR > 0 or t.PAR > 0)

    inc, group = MAP_RESTRICTION
    if status(inc) is not True:
        return False
    st = [status(s) for s in group]
    return any(x is True for x in st) or all(x == "null" for x in st)


def mapping_score_1992(key: MucTemplate, resp: MucTemplate, judge: Judge) -> int:
    """The score by which the 1992 scorer's automatic mapping ranks a pair: its recall as a
    rounded integer percentage (``compute-recall``; 100 when the key has nothing possible),
    slots scored without questions."""
    cor = par = pos = 0
    for t in _scorer(judge, key).template(key, resp, query=False):
        if not t.NON:
            cor, par, pos = cor + t.COR, par + t.PAR, pos + t.POS
    return normalized_percent(cor, par, pos) if pos else 100
