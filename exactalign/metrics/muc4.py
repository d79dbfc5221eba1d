"""MUC-4 (1992) template scoring with partial credit, and the template alignment behind it.

Slot scoring: ``muc1992`` (the default) -- the 1992 scorer itself
------------------------------------------------------------------
:class:`Scorer1992` ports the slot scoring of the MUC scorer v3.2 (SAIC, 1992: ``score.el``,
``history.el``, ``slots.el``, ``parse.el``; distributed with the MUC-3/4 data, xinyadu/gtt
``data/muc/raw_files/muc34/TEST/SCORER``) under the official configuration (``config-tst3.el``,
``slotconfig-tst3.el``): fills read as the scorer reads them (:func:`exactalign.io.muc4.parse_value`),
strings equal after its premodifier deletion (:func:`strip_premodifiers`), the judgement history
looked up per message, **key template**, slot and response value (modulo premodifiers), the
slot hierarchies of the configuration (:data:`HIERARCHIES`), cross-referenced tags
corresponding by equality or by the history of the slot they point to, the guidelines' table
for cross-referenced set fills (§3.1.2), distributed judgements (``all-of``: POS and ACT + n),
and the scorer's order -- equal fills first, then each response fill by the automatic rules and
the history, then the questions it put to the human (answered here from the history), then
INC/SPU/MIS. Where the official reports (produced with v3.4, which is not public) show
otherwise, the report rows decide; each such rule says which rows: a tag judged a match makes an
ancestor value COR (:meth:`Scorer1992._conform`), a tag failed in one pointed-to slot only
stops that key fill (:meth:`Scorer1992.tags_correspond`).

:func:`compare_report` scores a report's own mapping line by line and lists every slot row
that differs from the report. With the final judgement histories it reproduces 13 of the 34
ALL TEMPLATES rows exactly; every other difference lies in slots whose official row shows a
human judgement (ICR/IPA) other than the final history's, or follows from one (a tag judged
in another slot): the reports were made while the history was still being written and revised.

``exact`` and ``first-fit`` (kept for comparison) approximate the rules over the fills'
alternatives: a score ``s(k, r)`` per key/response fill (1 for an equal alternative or a history
``match``, ½ for ``partial`` or :func:`value_score`'s automatic rules, cross-referenced fills
through :meth:`Judge.reference`), fills matched 1:1 by an assignment (``exact``) or in order
(``first-fit``), the rest INC/SPU/MIS. ``POS = COR+PAR+INC+MIS``, ``ACT = COR+PAR+INC+SPU``.
The template-id row of the reports is not part of their TOTAL and ALL TEMPLATES rows, nor of
ours. An unmapped response template counts every fill SPU (but ``?`` ones), an unmapped
non-optional key template every non-optional fill MIS, an unmapped optional key template
nothing.

Template alignment (per message)
--------------------------------
Pairs may map only under the **content rule** (guidelines §3.2.1): at least a partial match on
INCIDENT: TYPE plus at least a partial match on a perpetrator slot (INDIV ID, ORG ID), a physical
target slot (ID, TYPE) or a human target slot (NAME, DESCRIPTION, TYPE) -- as the scorer tests it
(:func:`content_rule_1992`: a shared word is a partial match, and all seven slots empty on both
sides also passes), leniently for the candidates (the history's ``fail`` judgements ignored:
they may postdate the mapping), so that every recorded pair of the 33 reports is a candidate.
``recorded``  the mapping an official score report used, its lines counted as listed;
``muc1992``   the scorer's automatic mapping: the pairs its (strict) rule allows, by decreasing
              integer recall percentage scored without questions (ties: key order, then
              response order), taken while both templates are free;
``exact``     the mapping maximising the message's ``F = 2(COR + ½PAR)/(POS + ACT)``. ACT is
              fixed; POS depends on the mapping when an optional key template stays unmapped, so
              F is a ratio, maximised by Dinkelbach's method (:mod:`exactalign.core.fractional`)
              whose parametric problems are assignments (certified exact); proven per message.
``exact-corpus`` the mappings of all messages together maximising the corpus F that the ALL
              TEMPLATES row reports, 2 Σ credit / Σ (POS + ACT) (:func:`align_exact_corpus`):
              Dinkelbach again, its parametric problem one assignment per message. Per-message
              optima need not reach it (a message may give up some of its own F for the
              corpus's: an optional key template earning little credit for many fills), so it
              is the one alignment whose corpus F no other alignment under the content rule
              can beat -- the recorded mapping included.
"""

from __future__ import annotations

import functools
import re
import time
from dataclasses import dataclass, field

import numpy as np

from ..core.fractional import dinkelbach_oracle
from ..core.result import Status
from ..io.muc4 import SLOT_TYPES, SLOTS, STRING_SLOTS, Fill, MucTemplate
from ..problems import bipartite

#: The counts of a MUC score row.
FIELDS = ("POS", "ACT", "COR", "PAR", "INC", "SPU", "MIS")

PERP_TARGET_SLOTS = (9, 10, 12, 13, 18, 19, 20)
ALIGNMENTS = ("muc1992", "exact", "exact-corpus")
SLOT_MATCHING = ("muc1992", "exact", "first-fit")


@dataclass(frozen=True)
class Counts:
    """MUC slot counts; ``+`` adds them."""

    POS: float = 0
    ACT: float = 0
    COR: float = 0
    PAR: float = 0
    INC: float = 0
    SPU: float = 0
    MIS: float = 0

    def __add__(self, o: Counts) -> Counts:
        return Counts(*(getattr(self, f) + getattr(o, f) for f in FIELDS))

    @property
    def credit(self) -> float:
        return self.COR + 0.5 * self.PAR

    @property
    def recall(self) -> float:
        return self.credit / self.POS if self.POS else 0.0

    @property
    def precision(self) -> float:
        return self.credit / self.ACT if self.ACT else 0.0

    @property
    def f1(self) -> float:
        return 2 * self.credit / (self.POS + self.ACT) if self.POS + self.ACT else 0.0

    def to_dict(self) -> dict:
        return {**{f: getattr(self, f) for f in FIELDS}, "recall": self.recall,
                "precision": self.precision, "f1": self.f1}


# --------------------------------------------------------------------------------------------
# slot scoring
# --------------------------------------------------------------------------------------------
#: Automatic partial credit for mismatching set fills (guidelines §3.2.11-3.2.23): slot ->
#: {(response value, key value)}.
AUTO_PARTIAL = {
    11: {("SUSPECTED OR ACCUSED", "SUSPECTED OR ACCUSED BY AUTHORITIES")},
    13: {("POLITICAL FIGURE OFFICE OR RESIDENCE", "GOVERNMENT OFFICE OR RESIDENCE")},
    16: {("DESTROYED", "SOME DAMAGE")},
    20: {(r, k) for r in ("GOVERNMENT OFFICIAL", "ACTIVE MILITARY")
         for k in ("FORMER GOVERNMENT OFFICIAL", "FORMER ACTIVE MILITARY")}
    | {("POLITICAL FIGURE", "GOVERNMENT OFFICIAL")},
    23: {("NO INJURY", "NO INJURY OR DEATH"), ("NO DEATH", "NO INJURY OR DEATH")},
}

#: The shallow hierarchy of INCIDENT: INSTRUMENT TYPE (template documentation, slot 7):
#: child -> parent.
INSTRUMENT_PARENT = {
    "MACHINE GUN": "GUN", "MORTAR": "GUN", "HANDGUN": "GUN", "RIFLE": "GUN",
    "BOMB": "EXPLOSIVE", "VEHICLE BOMB": "BOMB", "DYNAMITE": "BOMB", "MINE": "BOMB",
    "AERIAL BOMB": "BOMB", "GRENADE": "EXPLOSIVE", "MOLOTOV COCKTAIL": "EXPLOSIVE",
    "MISSILE": "PROJECTILE", "ROCKET": "PROJECTILE"}


def value_score(slot: int, resp: str, key: str) -> float:
    """Automatic score of a (set or location) value: 1 if equal; ½ under the guidelines'
    automatic partial rules -- §3.2.4 response ATTACK for another incident type, §3.2.7 an
    instrument type that is an ancestor of the key's, §3.2.3 a location that is just the key's
    country, :data:`AUTO_PARTIAL`; else 0."""
    if resp == key:
        return 1.0
    if slot == 4 and resp == "ATTACK":
        return 0.5
    if slot == 7:
        k = INSTRUMENT_PARENT.get(key)
        while k is not None:
            if k == resp:
                return 0.5
            k = INSTRUMENT_PARENT.get(k)
    if slot == 3 and key.split(":")[0].strip() == resp.split(":")[0].strip():
        return 0.5
    if slot == 2 and _date_partial(resp, key):
        return 0.5
    if slot in NUMBER_SLOTS:
        return _number_score(resp, key)
    return 0.5 if (resp, key) in AUTO_PARTIAL.get(slot, ()) else 0.0


#: Nonessential modifiers the scorer ignores in string fills (guidelines §3.1.1.1: articles,
#: quantifiers, numbers; its own list is not published, this one is ours).
NONESSENTIAL = frozenset(
    "A AN THE SOME SEVERAL MANY FEW ALL BOTH EACH OTHER ANOTHER ONE TWO THREE FOUR FIVE SIX "
    "SEVEN EIGHT NINE TEN ELEVEN TWELVE DOZEN DOZENS HUNDREDS THEIR HIS HER ITS OUR".split())


def core_string(s: str) -> str:
    """A string fill without its quotes and nonessential modifiers (words of
    :data:`NONESSENTIAL` and numbers).

    >>> core_string('"THE 3 PEASANTS"')
    'PEASANTS'
    """
    words = s.strip('"').split()
    return " ".join(w for w in words if w not in NONESSENTIAL and not w.isdigit())


def _same_string(r: str, k: str) -> bool:
    return r == k or (r.startswith('"') and k.startswith('"') and core_string(r) != ""
                      and core_string(r) == core_string(k))


#: Numeric slots (PHYS/HUM TGT: NUMBER and TOTAL NUMBER).
NUMBER_SLOTS = frozenset({14, 17, 21, 24})


def _number_score(resp: str, key: str) -> float:
    """Numbers compare without spaces (``60-`` is ``60 -``, "60 or more"); §3.2.14/21: a single
    number that is an anchor of a key range ``A - B``, or equals a key ``~N``, is partial."""
    r, k = resp.replace(" ", ""), key.replace(" ", "")
    if r == k:
        return 1.0
    if r.isdigit() and (k == f"~{r}" or ("-" in k and r in k.split("-"))):
        return 0.5
    return 0.0


_MONTHS = {m: k for k, m in enumerate("JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC".split())}


def _day(text: str) -> int | None:
    """``DD MON YY`` as a day number (30-day months suffice to compare nearby dates)."""
    bits = text.split()
    if len(bits) != 3 or bits[1] not in _MONTHS or not (bits[0].isdigit() and bits[2].isdigit()):
        return None
    return (int(bits[2]) % 100) * 372 + _MONTHS[bits[1]] * 31 + int(bits[0])


def _date_partial(resp: str, key: str) -> bool:
    """§3.2.2 partial credit for dates: a simple date that is an anchor of a key range
    ``A - B``, or, against a default key ``- B``, B itself or the day before (the guidelines'
    example: 25 AUG 89 for - 26 AUG 89; the reports give INCORRECT further away); a
    default-looking response ``- B`` against a key whose upper anchor or simple value is B."""
    r_lo, _, r_hi = resp.rpartition("-")
    k_lo, k_dash, k_hi = key.rpartition("-")
    if "-" not in resp and k_dash:
        if k_lo.strip():
            return resp.strip() in (k_lo.strip(), k_hi.strip())
        r, k = _day(resp), _day(k_hi)
        return r is not None and k is not None and 0 <= k - r <= 1
    if "-" in resp and r_lo.strip() == "":
        return r_hi.strip() == (k_hi.strip() if k_dash else key.strip())
    return False


@dataclass(frozen=True)
class Judge:
    """Fill scores of one message: automatic rules plus its judgement history entries."""

    message: str
    history: dict = field(default_factory=dict)
    #: response string -> {key string: score} of the string fills paired in the string slots of
    #: the template pair being scored (see :func:`pair_counts`)
    links: dict = field(default_factory=dict)

    def score(self, slot: int, key: Fill, r) -> float:
        if r in key.alternatives:
            return 1.0
        best = 0.0
        for j in self.history.get((self.message, SLOTS[slot], r), ()):
            if any(a in j.key_strings for a in key.alternatives):
                best = max(best, {"match": 1.0, "partial": 0.5}.get(j.verdict, 0.0))
        for a in key.alternatives:
            best = max(best, self._auto(slot, a, r))
        return best

    def spread(self, slot: int, r) -> int:
        """How many key fills response fill ``r`` is credited against: more than one after a
        "distributed" judgement (guidelines §3.1.1.3; the history's ``all-of``)."""
        return max([j.spread for j in self.history.get((self.message, SLOTS[slot], r), ())
                    if j.verdict in ("match", "partial")] + [1])

    def _auto(self, slot: int, a, r) -> float:
        if isinstance(a, tuple) and isinstance(r, tuple):
            ref = self.reference(r[1], a[1])
            if ref is None:  # the cross-references point to unrelated strings: no pairing
                return 0.0
            v = 1.0 if _same_string(r[0], a[0]) else value_score(slot, r[0], a[0])
            return 0.5 if v == 1.0 and ref != "match" else v
        if isinstance(a, tuple):  # a bare set value against a key value with a reference
            v = value_score(slot, r, a[0])
            return v if a[1] == '"-"' else min(v, 0.5)
        if isinstance(r, tuple):
            return min(value_score(slot, r[0], a), 0.5)
        if slot in STRING_SLOTS:
            return 1.0 if _same_string(r, a) else 0.0
        return value_score(slot, r, a)

    def reference(self, resp: str, key: str) -> str | None:
        """How the cross-referenced string ``resp`` relates to the key's ``key``: ``"match"``
        when equal (up to nonessential modifiers), paired with it as COR in a string slot of the
        template pair, or judged a match in the message's history; ``"partial"`` when paired with
        it as PAR or INC, or judged partial; else ``None``. A set fill pairs with a key fill only
        through related references (§3.1.2: correct value + incorrect reference = partial)."""
        if _same_string(resp, key):
            return "match"
        if key in self.links.get(resp, {}):  # paired in a string slot of this template pair
            return "match" if self.links[resp][key] == 1.0 else "partial"
        best = None
        for name in ("inc-instr-id", "perp-ind-id", "perp-org-id", "phys-tgt-id",
                     "hum-tgt-name", "hum-tgt-desc"):
            for j in self.history.get((self.message, name, resp), ()):
                if key in j.key_strings or any(isinstance(k, tuple) and k[1] == key
                                               for k in j.key_strings):
                    if j.verdict == "match":
                        return "match"
                    if j.verdict == "partial":
                        best = "partial"
        return best


def slot_pairs(slot: int, keys: tuple[Fill, ...], resp: tuple[Fill, ...], judge: Judge,
               matching: str = "exact"):
    """The fill pairing of one slot: ``(rs, S, pairs, inc)`` -- the response fills (first
    alternative; a fill with a distributed judgement once per key fill it is credited against),
    the score matrix key x response, the scoring pairs (score > 0) and the INC pairs (the
    remaining response fills in order with the remaining key fills, non-optional first)."""
    rs = [f.alternatives[0] for f in resp
          for _ in range(judge.spread(slot, f.alternatives[0]))]
    S = np.array([[judge.score(slot, k, r) for r in rs] for k in keys]).reshape(len(keys),
                                                                                 len(rs))
    if not keys or not rs:
        pairs = []
    elif matching == "exact":  # maximum credit; among those, most COR (the 1e-6)
        inst = bipartite.BipartiteInstance.from_dense(S + 1e-6 * (S == 1.0))
        pairs = [(int(inst.rows[e]), int(inst.cols[e])) for e in bipartite.exact_special(inst)]
    else:
        pairs = _first_fit(S)
    used_k = {i for i, _ in pairs}
    used_r = {j for _, j in pairs}
    free_k = sorted((i for i in range(len(keys)) if i not in used_k),
                    key=lambda i: (keys[i].optional, i))
    free_r = [j for j in range(len(rs)) if j not in used_r]
    return rs, S, pairs, list(zip(free_k, free_r, strict=False))


def slot_counts(slot: int, keys: tuple[Fill, ...], resp: tuple[Fill, ...], judge: Judge,
                matching: str = "exact") -> Counts:
    """Counts of one slot of a mapped pair (see :func:`slot_pairs`)."""
    rs, S, pairs, inc = slot_pairs(slot, keys, resp, judge, matching)
    return _counts(keys, rs, S, pairs, inc)


def _counts(keys, rs, S, pairs, inc) -> Counts:
    cor = sum(1 for i, j in pairs if S[i, j] == 1.0)
    par = sum(1 for i, j in pairs if S[i, j] == 0.5)
    used = {i for i, _ in pairs} | {i for i, _ in inc}
    mis = sum(1 for i, k in enumerate(keys) if i not in used and not k.optional)
    spu = len(rs) - len(pairs) - len(inc)
    return Counts(POS=cor + par + len(inc) + mis, ACT=len(rs), COR=cor, PAR=par, INC=len(inc),
                  SPU=spu, MIS=mis)


def _first_fit(S: np.ndarray) -> list[tuple[int, int]]:
    """Response fills in order take the first free key fill scoring 1; then the still
    unmatched ones, in order, the first free key fill scoring ½."""
    used, done, pairs = set(), set(), []
    for level in (1.0, 0.5):
        for j in range(S.shape[1]):
            if j in done:
                continue
            i = next((i for i in range(S.shape[0]) if i not in used and S[i, j] == level), None)
            if i is not None:
                used.add(i)
                done.add(j)
                pairs.append((i, j))
    return pairs


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
        per[s] = _counts(key.slots[s], rs, S, pairs, inc)
        for i, j in pairs + inc:
            for r in _strings_of(rs[j]):
                for k in (x for a in key.slots[s][i].alternatives for x in _strings_of(a)):
                    links.setdefault(r, {})[k] = max(links.get(r, {}).get(k, 0.0), S[i, j])
    linked = Judge(judge.message, judge.history, links)
    for s in range(2, 25):
        if s not in per:
            per[s] = slot_counts(s, key.slots[s], resp.slots[s], linked, matching)
    total = Counts()
    for s in range(2, 25):
        total = total + per[s]
    return total, tuple(per[s] for s in range(2, 25))


def _strings_of(fill) -> tuple[str, ...]:
    """The strings a fill offers to cross-references: itself, or both parts of a description
    ``("DESC", "NAME")`` (a reference to the victim may name either)."""
    return fill if isinstance(fill, tuple) else (fill,)


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


def _history_entries(history) -> dict:
    return getattr(history, "entries", {}) if history is not None else {}


def _scorer(judge: Judge, key: MucTemplate | None, ignore_fail: bool = False) -> Scorer1992:
    return Scorer1992(_history_entries(judge.history), judge.message,
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
        t = sc.slot(s, [_fill_value(f) for f in key.slots[s]],
                    [_fill_value(f) for f in resp.slots[s]], query=False, substring=True)
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


def normalized_percent(num: int, num2: int, den: int) -> int:
    """``(num + ½ num2) / den`` as the scorer's rounded percentage (half to even).

    >>> normalized_percent(1, 0, 3), normalized_percent(1, 1, 4)
    (33, 38)
    """
    permil = (500 * (2 * num + num2)) // den
    q, r = divmod(permil, 10)
    return q + (1 if r > 5 or (r == 5 and q % 2) else 0)


# --------------------------------------------------------------------------------------------
# the 1992 scorer's slot scoring (a port of its score.el, history.el and slots.el)
# --------------------------------------------------------------------------------------------
#: String premodifiers of the official configuration (``config-tst3.el``, ``config-tst4.el``):
#: the scorer deletes each, followed by white space, anywhere in a string -- as a regular
#: expression, case-insensitive and not anchored at a word start ("12 JAN 90" loses "2 " and
#: "AN ", so 12 and 13 JAN 90 are equal, 12 and 22 JAN 90 not) --
#: before comparing two strings, a response with the history, or words for the content rule.
PREMODIFIERS = ("a", "the", "an", "this", "that", "these", "those", "one", "two", "three",
                "four", "five", "six", "seven", "eight", "nine", "ten", "1", "2", "3", "4",
                "5", "6", "7", "8", "9", "10", "more", "most", "many", "several", "some", "all",
                "few", "any", "another", "other", "certain", "of")
_PREMOD_RE = tuple(re.compile(re.escape(m) + r"[ \t\n]+", re.IGNORECASE) for m in PREMODIFIERS)


@functools.lru_cache(maxsize=65536)
def strip_premodifiers(s: str) -> str:
    """``s`` after the scorer's premodifier deletion (each modifier in turn, repeatedly).

    >>> strip_premodifiers('"THE 3 PEASANTS"'), strip_premodifiers("12 JAN 90")
    ('"PEASANTS"', '1J90')
    """
    for rx in _PREMOD_RE:
        while True:
            m = rx.search(s)
            if not m:
                break
            s = s[:m.start()] + s[m.end():]
    return s


def muc_equal(key, resp):
    """The scorer's ``muc-value-equal``: ``False``, ``True``, or (key alternatives) the list of
    alternatives from the matching one on. Strings are equal after
    :func:`strip_premodifiers`; ``("or", ...)`` matches any alternative (two of them: the same
    set); ``("optional", v)`` also matches nothing; other forms compare part by part."""
    if (isinstance(resp, tuple) and resp[0] in ("optional", "or")
            and not isinstance(key, tuple)):
        return muc_equal(resp, key)
    if key is None:
        return resp is None or resp == ""
    if isinstance(key, str):
        if key == "":
            return resp is None
        return isinstance(resp, str) and (
            resp == key or strip_premodifiers(key) == strip_premodifiers(resp))
    head = key[0]
    if head == "or":
        if isinstance(resp, tuple) and resp[0] == "or":
            return _set_equal(key[1:], resp[1:])
        for i, c in enumerate(key[1:], 1):
            if muc_equal(resp, c):
                return list(key[i:])
        return False
    if head == "optional":
        return (resp is None or muc_equal(
            key[1], resp[1] if isinstance(resp, tuple) and resp[0] == "optional" else resp))
    if not isinstance(resp, tuple) or resp[0] != head:
        return False
    if head in ("xref", "qualified", "range", "between"):
        return bool(muc_equal(key[1], resp[1])) and muc_equal(key[2], resp[2])
    if head == "location":
        return len(key) == len(resp) and all(muc_equal(a, b)
                                            for a, b in zip(key[1:], resp[1:], strict=True))
    if head == "all-of":
        return _set_equal(key[1:], resp[1:])
    raise ValueError(f"cannot compare {head!r} values")


def _set_equal(a, b) -> bool:
    return (all(any(muc_equal(x, y) for y in b) for x in a)
            and all(any(muc_equal(y, x) for x in a) for y in b))


def _xref_p(v) -> bool:
    return isinstance(v, tuple) and (v[0] == "xref" or (
        v[0] == "optional" and isinstance(v[1], tuple) and v[1][0] == "xref"))


def _xref_val(v):
    return v[1] if v[0] == "xref" else v[1][1]


def _xref_tag(v):
    return v[2] if v[0] == "xref" else v[1][2]


def _is_optional(v) -> bool:
    return isinstance(v, tuple) and v[0] == "optional"


#: The slot hierarchies of the official slot configuration (``slotconfig-tst3.el``): a node is
#: a value or ``(value, child, ...)``; a response value that is an ancestor of the key's earns
#: automatic partial credit (guidelines §3.2.4, 3.2.7, 3.2.11, 3.2.13, 3.2.16, 3.2.20, 3.2.23 --
#: the tree, not the guidelines' prose, is what the scorer applies: ACTIVE MILITARY is no
#: ancestor of FORMER GOVERNMENT OFFICIAL; POLITICAL FIGURE is one of FORMER GOVERNMENT OFFICIAL).
HIERARCHIES = {
    4: (("ATTACK", "ARSON", "BOMBING", "KIDNAPPING", "HIJACKING", "ROBBERY",
         "FORCED WORK STOPPAGE"),),
    7: (("GUN", "MACHINE GUN", "MORTAR", "HANDGUN", "RIFLE"),
        ("EXPLOSIVE", ("BOMB", "VEHICLE BOMB", "DYNAMITE", "MINE", "AERIAL BOMB"), "GRENADE",
         "MOLOTOV COCKTAIL"),
        ("PROJECTILE", "MISSILE", "ROCKET"), "CUTTING DEVICE", "FIRE", "STONE", "TORTURE"),
    11: ("REPORTED AS FACT", "ACQUITTED", "CLAIMED OR ADMITTED",
         ("SUSPECTED OR ACCUSED", "SUSPECTED OR ACCUSED BY AUTHORITIES"), "POSSIBLE"),
    13: (("POLITICAL FIGURE OFFICE OR RESIDENCE", "GOVERNMENT OFFICE OR RESIDENCE"),),
    16: (("DESTROYED", "SOME DAMAGE"),),
    20: (("POLITICAL FIGURE", ("GOVERNMENT OFFICIAL", "FORMER GOVERNMENT OFFICIAL")),
         ("ACTIVE MILITARY", "FORMER ACTIVE MILITARY")),
    23: (("NO INJURY", ("NO DEATH", "NO INJURY OR DEATH")),),
}

#: Cross-referenced slots of the slot configuration: slot -> the slot names its tags point to.
XREF_TARGETS = {7: ("inc-instr-id",), 10: ("perp-ind-id",), 11: ("perp-org-id",),
                13: ("phys-tgt-id",), 14: ("phys-tgt-id",), 15: ("phys-tgt-id",),
                16: ("phys-tgt-id",), 19: ("hum-tgt-name",),
                **{s: ("hum-tgt-name", "hum-tgt-desc") for s in (20, 21, 22, 23)}}


class _Abort(Exception):
    pass



def _ancestor(obj1, obj2, trees) -> bool:
    """``obj1`` is an ancestor of ``obj2`` in ``trees`` (the scorer's ``ancestor-p``: depth
    first, giving up when it meets ``obj2`` before ``obj1``)."""
    def find(tree):
        if isinstance(tree, tuple):
            if tree[0] == obj1:
                return tree
            if tree[0] == obj2:
                raise _Abort
            for c in tree[1:]:
                r = find(c)
                if r is not None:
                    return r
            return None
        if tree == obj1:
            return tree
        if tree == obj2:
            raise _Abort
        return None

    def member(tree):
        if isinstance(tree, tuple):
            return tree[0] == obj2 or any(member(c) for c in tree[1:])
        return tree == obj2

    try:
        for t in trees:
            sub = find(t)
            if sub is not None:
                return isinstance(sub, tuple) and any(member(c) for c in sub[1:])
    except _Abort:
        return False
    return False


@dataclass
class SlotTally:
    """The tallies of one slot as the scorer keeps them (the report's columns)."""

    POS: int = 0
    ACT: int = 0
    COR: int = 0
    PAR: int = 0
    INC: int = 0
    ICR: int = 0
    IPA: int = 0
    SPU: int = 0
    MIS: int = 0
    NON: int = 0

    def counts(self) -> Counts:
        return Counts(self.POS, self.ACT, self.COR, self.PAR, self.INC, self.SPU, self.MIS)


class Scorer1992:
    """The 1992 scorer's slot scoring of one key/response template pair (a port of
    ``score-muc-template-slot`` and what it calls, MUC scorer v3.2, the procedure behind the
    official reports): in each slot the fills equal to a key fill first (key order), then each
    remaining response fill (response order) through the automatic rules and the judgement
    history of the **key template** (cross-referenced tags corresponding by equality or by the
    history of the slot they point to), then -- ``query`` -- the questions the scorer put to
    the human (answered here from the history, when it judged the fill against a key fill
    still free; set fills: against the first remaining key fill), then the rest as INC/SPU/MIS.
    A fill matched by a distributed judgement (``all-of``) counts n times in POS, ACT and
    COR/PAR; one judged against an optional key fill when no key fill is left counts nowhere
    (GE-CMU TST3 0094 perp-ind-id: ACT 1 for two fills).

    ``history`` is :attr:`exactalign.io.muc4.History.entries`. ``substring`` is the scorer's
    template-mapping mode (the content rule): a string slot, or any slot with several fills,
    also matches when a word is shared. ``ignore_fail``: history ``fail`` judgements are
    treated as absent (:func:`content_rule_1992` ``lenient``)."""

    def __init__(self, history: dict, message: str, key_id: str | None,
                 ignore_fail: bool = False):
        self.history = history
        self.message = message
        self.key_id = key_id
        self.ignore_fail = ignore_fail

    # -- history --------------------------------------------------------------------------
    def retrieve(self, slot_name: str, value):
        """``None``, ``"fail"`` or ``[verdict, key value]`` of the first history entry of
        this key template and slot whose response value equals ``value``."""
        for v, verdict, kv in self.history.get((self.message, self.key_id, slot_name), ()):
            if muc_equal(value, v):
                if verdict == "fail":
                    return None if self.ignore_fail else "fail"
                return [verdict, kv]
        return None

    def user_response(self, s: int, expected, actual):
        """``user-mismatch-response-exists``: a history judgement of ``actual`` against one of
        ``expected`` (all of them for an ``all-of``)."""
        m = self.retrieve(SLOTS[s], actual)
        if m is None or m == "fail":
            return m
        status, hk = m
        if isinstance(hk, tuple) and hk and hk[0] == "all-of":
            out = []
            for h in hk[1:]:
                k = next((k for k in expected if muc_equal(k, h)), None)
                if k is None:
                    return None
                out.append(k)
            return [status, *out]
        if len(expected) <= 1:  # none left: compared with nil, which an optional value
            # matches -- the response fill then counts nowhere (GE-CMU TST3 0094 perp-ind-id)
            return status if muc_equal(expected[0] if expected else None, hk) else None
        k = next((k for k in expected if muc_equal(k, hk)), None)
        return None if k is None else [status, k]

    # -- cross-references -----------------------------------------------------------------
    def tags_correspond(self, s: int, keytag, tag):
        r = muc_equal(keytag, tag)
        if r:
            return r
        for name in XREF_TARGETS.get(s, ()):
            ts = self.retrieve(name, tag)
            if ts is None:
                continue
            if ts == "fail":
                # v3.2 gives up on every key fill here ("a failed response means this tag can
                # never match any key tags"); the official reports keep the key fills already
                # found: LSI TST3 0032 and 0091 hum-tgt-num (PAR, IPA 0) -- the name "GALAN"
                # judged partial for one key, failed in hum-tgt-desc for the next
                return None
            htag = ts[1]
            if (any(muc_equal(v, keytag) for v in htag[1:])
                    if isinstance(htag, tuple) and htag and htag[0] == "all-of"
                    else muc_equal(htag, keytag)):
                return ts
        return None

    def xref_status(self, s: int, expected, actual):
        """``find-corresponding-xref-status`` (with its values): ``(keys, statuses)`` of the key
        fills whose tags correspond to ``actual``'s, both in reverse key order as the scorer
        conses them."""
        keys, stats = [], []
        tag = _xref_tag(actual)
        for k in expected:
            keytag = _xref_tag(k) if _xref_p(k) else None
            if keytag is None:
                continue
            st = self.tags_correspond(s, keytag, tag)
            if st:
                keys.insert(0, k)
                stats.insert(0, [st[0], k] if isinstance(st, list) else st)
        return keys, stats

    # -- automatic rules ------------------------------------------------------------------
    @staticmethod
    def _find(pred, expected, actual, xrefs: bool):
        if len(expected) <= 1:
            if not expected:
                return None
            return pred(_xref_val(expected[0]) if xrefs else expected[0], actual)
        for k in expected:
            f = pred(_xref_val(k) if xrefs else k, actual)
            if f:
                return [f, k]
        return None

    @staticmethod
    def _full(e1, e2):
        return "auto-match" if muc_equal(e1, e2) else None

    @staticmethod
    def _country(location, country):
        if not isinstance(location, tuple):
            return None
        if location[0] == "location":
            ok = muc_equal(location[1], country)
        elif location[0] == "or":
            ok = any(Scorer1992._country(x, country) for x in location[1:])
        else:
            ok = False
        return "auto-partial" if ok else None

    def partially_matching(self, s: int, expected, actual, xrefs: bool = False):
        """``find-partially-matching-keyval``: value match (cross-referenced values), a
        location's country, an ancestor in the slot's hierarchy."""
        if xrefs:
            r = self._find(self._full, expected, actual, True)
            if r:
                return r
        if SLOT_TYPES[s] == "location" and (isinstance(actual, str) or (
                isinstance(actual, tuple) and actual[0] == "location")):
            return self._find(self._country, expected,
                              actual if isinstance(actual, str) else actual[1], xrefs)
        if s in HIERARCHIES:
            trees = HIERARCHIES[s]
            return self._find(lambda k, a: "auto-partial" if _ancestor(a, k, trees) else None,
                              expected, actual, xrefs)
        return None

    @staticmethod
    def _conform(tag_status, value_status):
        """The guidelines' table for cross-referenced set fills (§3.1.2), as the scorer
        applies it (``conform-to-scoring-guidelines``)."""
        if not value_status:
            return None
        if not tag_status:
            return value_status
        tag = tag_status[0] if isinstance(tag_status, list) else tag_status
        vs = value_status
        if isinstance(vs, list):
            status = vs
        elif vs == "match":
            status = tag
        elif vs == "auto-match":
            status = ("auto-match" if tag in ("match", "auto-match") else
                      "auto-partial" if tag in ("partial", "auto-partial") else tag)
        elif vs == "partial":
            status = "auto-partial" if tag in ("auto-match", "auto-partial") else "partial"
        elif vs == "auto-partial":
            # the official reports (v3.4) credit a value that is an ancestor of the key's in
            # full when the tag was judged a match in the history (tag status auto-match):
            # HUGHES TST3 0024 inc-instr-type, NYU TST3 0024 / TST4 0042 phys-tgt-effect
            # (COR, ICR 0); an equal tag leaves it partial (27 slots agree)
            status = "auto-match" if tag == "auto-match" else "auto-partial"
        else:
            status = vs
        if status == "fail":
            return status
        return [status, *tag_status[1:]] if isinstance(tag_status, list) else status

    def match_keyval(self, s: int, keyvals, response):
        """``match-keyval``: the automatic and history match of one response fill."""
        if _xref_p(response):
            xkeys, stats = self.xref_status(s, keyvals, response)
            if xkeys:
                s0 = stats[0]
                if s0 is True:
                    status1 = True
                elif isinstance(s0, list):
                    sym = s0[0]
                    status1 = [{"partial": "auto-partial", "match": "auto-match"}.get(sym, sym)
                               if isinstance(sym, str) else sym, s0[1]]
                else:
                    status1 = None
                status2 = self.partially_matching(s, xkeys, _xref_val(response), True)
                status = self._conform(status1, status2)
                if (not isinstance(status, list) and status != "fail"
                        and len(xkeys) < len(keyvals)):
                    status = [status, *xkeys]
                if status:
                    return status
        r = self.user_response(s, keyvals, response)
        if r:
            return r
        return self.partially_matching(s, keyvals, response)

    def set_fill(self, s: int, key, resp, query: bool):
        """``score-set-fill``: a cross-referenced set fill whose value is right is asked about
        (its tag), one whose tag is missing is partial."""
        if not _xref_p(key):
            return None
        trees = HIERARCHIES.get(s, ())
        kv = key[1]

        def vmatch(a):
            return self._full(kv, a) or ("auto-partial" if _ancestor(a, kv, trees) else None)

        m = (_xref_p(resp) and vmatch(resp[1])) or vmatch(resp)
        if m == "auto-match" and _xref_p(resp):
            return self.ask(s, [key], resp) if query else None
        if m == "auto-match":
            return "auto-partial"
        return m

    def ask(self, s: int, keyvals, response):
        """``prompt-for-keyval``: the question put to the human, answered from the history
        (first about the key fills whose tags correspond)."""
        if _xref_p(response):
            xkeys, _ = self.xref_status(s, keyvals, response)
            if xkeys:
                r = self._answer(s, xkeys, response)
                if r:
                    return r
        return self._answer(s, keyvals, response)

    def _answer(self, s: int, expected, actual):
        if not expected:
            return None
        r = self.user_response(s, expected, actual)
        if isinstance(r, list) and len(expected) == 1 and len(r) == 2:
            return r[0]
        return r

    def multi_set_fill(self, s: int, keyvals: list, resp):
        """``score-multi-set-fill``: a set fill still unmatched is scored against the first key
        fill of equal (then ancestor) value, else the first remaining key fill."""
        if not keyvals:
            return [None]
        trees = HIERARCHIES.get(s, ())
        found = next((k for k in keyvals
                      if (_xref_p(k) and self._full(k[1], resp)) or self._full(k, resp)), None)
        if found is None:
            found = next((k for k in keyvals
                          if (_xref_p(k) and _ancestor(resp, k[1], trees))
                          or _ancestor(resp, k, trees)), None)
        if found is None:
            found = keyvals[0]
        elif found is not keyvals[0]:
            keyvals.remove(found)  # the scorer's delq splices it out of the slot's key list
        return [self.set_fill(s, found, resp, True), found]

    # -- slots ----------------------------------------------------------------------------
    def slot(self, s: int, keyvals, sysvals, query: bool = True,
             substring: bool = False) -> SlotTally:
        """The tallies of slot ``s``: ``keyvals`` and ``sysvals`` are the fills' values
        (optional key fills as ``("optional", v)``)."""
        t = SlotTally()
        if len(keyvals) <= 1 and len(sysvals) <= 1:
            self._single(s, t, keyvals[0] if keyvals else None,
                         sysvals[0] if sysvals else None, query, substring)
        else:
            self._multi(s, t, list(keyvals), list(sysvals), query, substring)
        return t

    def _single(self, s, t, keyval, sysval, query, substring):
        key_optional, res_optional = _is_optional(keyval), _is_optional(sysval)
        keyslot = keyval[1] if key_optional else keyval
        respslot = sysval[1] if res_optional else sysval
        match = muc_equal(keyslot, respslot)
        if not match and keyslot is not None and respslot is not None:
            match = self.match_keyval(s, [keyslot], respslot)
            if not match:
                if SLOT_TYPES[s] == "element":
                    match = self.set_fill(s, keyslot, respslot, query)
                elif substring and SLOT_TYPES[s] == "string":
                    match = _shared_word(keyslot, respslot)
                elif query:
                    match = self.ask(s, [keyval], sysval)
        if isinstance(match, list):
            match = match[0]
        if ((sysval is None and keyval is None) or (key_optional and sysval is None)
                or (res_optional and keyval is None)):
            t.NON = 1
        elif match == "fail":
            t.INC = 1
        elif match == "auto-partial":
            t.PAR = 1
        elif match == "auto-match":
            t.COR = 1
        elif match == "partial":
            t.PAR = t.IPA = 1
        elif match == "match":
            t.COR = t.ICR = 1
        elif match:
            t.COR = 1
        elif keyval is None:
            t.SPU = 1
        elif sysval is None:
            t.MIS = 1
        else:
            t.INC = 1
        t.ACT = int(sysval is not None and not (res_optional and keyval is None))
        t.POS = int(keyval is not None and not (key_optional and t.ACT == 0))

    def _multi(self, s, t, keyvals, sysvals, query, substring):
        for k in list(keyvals):  # score-trivial-matches
            j = next((j for j, v in enumerate(sysvals) if muc_equal(k, v)), None)
            if j is not None:
                del sysvals[j]
                keyvals.remove(k)
                t.POS += 1
                t.ACT += 1
                t.COR += 1
        failed: list = []
        if sysvals and keyvals:
            self._nontrivial(s, t, keyvals, sysvals, failed, False)
        if substring and _shared_word(keyvals, sysvals):
            t.PAR += 1
        if sysvals and keyvals and query:
            self._nontrivial(s, t, keyvals, sysvals, failed, True)
        if keyvals or sysvals or failed:
            self._remaining(t, keyvals, sysvals + failed)

    def _nontrivial(self, s, t, keyvals, sysvals, failed, query):
        i = 0
        while i < len(sysvals):
            sv = sysvals[i]
            if not query:
                matchp = self.match_keyval(s, keyvals, sv)
            elif SLOT_TYPES[s] == "element":
                matchp = self.multi_set_fill(s, keyvals, sv)
            else:
                matchp = self.ask(s, keyvals, sv)
            if not matchp:
                i += 1
                continue
            status = matchp[0] if isinstance(matchp, list) else matchp
            mkeys = matchp[1:] if isinstance(matchp, list) else list(keyvals)
            if not status or status == "fail":
                failed.append(sv)
            else:
                n = len(mkeys)  # a distributed judgement credits n key fills: POS and ACT + n
                t.POS += n
                t.ACT += n
                if status == "auto-partial":
                    t.PAR += n
                elif status == "auto-match":
                    t.COR += n
                elif status == "partial":
                    t.PAR += n
                    t.IPA += n
                else:
                    t.COR += n
                    t.ICR += n
                for k in mkeys:
                    if any(k is x for x in keyvals):
                        keyvals.remove(next(x for x in keyvals if x is k))
            del sysvals[i]

    @staticmethod
    def _remaining(t, keyvals, sysvals):
        """``score-remaining-values``: INC pairs, then SPU or MIS (optional key fills only
        to pair with surplus response fills)."""
        numkeys, numsys = len(keyvals), len(sysvals)
        kopts = sum(1 for k in keyvals if _is_optional(k))
        sopts = sum(1 for v in sysvals if _is_optional(v))
        kreq, sreq = numkeys - kopts, numsys - sopts
        pairs = min(kopts, sopts)
        numkeys -= pairs
        numsys -= pairs
        kopts -= pairs
        sopts -= pairs
        if not sopts:
            t.ACT += numsys
            if numkeys < numsys:
                t.POS += numkeys
                t.INC += numkeys
                t.SPU += numsys - numkeys
            elif numsys <= kreq:
                t.POS += kreq
                t.INC += numsys
                t.MIS += kreq - numsys
            else:
                t.POS += numsys
                t.INC += numsys
        else:
            t.POS += numkeys
            if numsys < numkeys:
                t.ACT += numsys
                t.INC += numsys
                t.MIS += numkeys - numsys
            elif numkeys <= sreq:
                t.ACT += sreq
                t.INC += numkeys
                t.SPU += sreq - numkeys
            else:
                t.ACT += numkeys
                t.INC += numkeys

    def template(self, key: MucTemplate | None, resp: MucTemplate | None, query: bool = True,
                 substring: bool = False) -> tuple[SlotTally, ...]:
        """The tallies of slots 2-24 of a template pair (``None``: the other side unmapped)."""
        out = []
        for s in range(2, 25):
            kv = [_fill_value(f) for f in key.slots[s]] if key is not None else []
            sv = [_fill_value(f) for f in resp.slots[s]] if resp is not None else []
            out.append(self.slot(s, kv, sv, query, substring))
        return tuple(out)


def _fill_value(f: Fill):
    return ("optional", f.value) if f.optional else f.value


def _words(v) -> list[str]:
    """``make-string-list``: the words of every string in ``v``, quotes and premodifiers
    deleted."""
    if v is None:
        return []
    if isinstance(v, str):
        return re.split(r"[ \t\n]+", strip_premodifiers(v.replace('"', "")))
    if isinstance(v, list):
        return [w for x in v for w in _words(x)]
    return [w for x in v[1:] for w in _words(x)]


def _shared_word(keyval, sysval) -> bool:
    """``score-string-fill-mapping``: a word in common (the content rule's partial match)."""
    kw = set(_words(keyval))
    return any(w in kw for w in _words(sysval))


# --------------------------------------------------------------------------------------------
# template alignment of one message
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MessageTable:
    """Allowed pairs of a message with their counts, and the unmapped counts of each side."""

    message: str
    keys: tuple[MucTemplate, ...]
    resps: tuple[MucTemplate, ...]
    pairs: tuple[tuple[int, int], ...]
    pair_total: tuple[Counts, ...]
    miss: tuple[Counts, ...]
    spur: tuple[Counts, ...]
    allowed: tuple[bool, ...]  # the content rule, per pair (the candidates of ``exact``)
    #: per pair, the 1992 scorer's mapping score (:func:`mapping_score_1992`); empty: the
    #: ``muc1992`` alignment ranks by the pair's recall instead
    rank: tuple = ()
    #: per pair, whether the scorer's automatic mapping could take it with the final history
    #: (:func:`content_rule_1992`, strict); empty: every allowed pair
    auto: tuple = ()

    def counts(self, alignment) -> Counts:
        mapped = dict(((i, j), c) for (i, j), c in zip(self.pairs, self.pair_total, strict=True))
        total = Counts()
        ki, rj = set(), set()
        for i, j in alignment:
            total = total + mapped[(int(i), int(j))]
            ki.add(int(i))
            rj.add(int(j))
        for i, c in enumerate(self.miss):
            if i not in ki:
                total = total + c
        for j, c in enumerate(self.spur):
            if j not in rj:
                total = total + c
        return total


def message_table(message: str, keys, resps, judge: Judge, matching: str = "muc1992",
                  content: bool = True) -> MessageTable:
    """Every key/response pair of a message with its counts; ``content=True`` keeps only the
    pairs the content rule allows (``muc1992``: the official scorer's,
    :func:`content_rule_1992` -- lenient for the candidates, strict for the automatic
    mapping; otherwise :func:`content_rule`)."""
    pairs, totals, allowed, rank, auto = [], [], [], [], []
    for i, k in enumerate(keys):
        for j, r in enumerate(resps):
            total, per = pair_counts(k, r, judge, matching)
            if matching == "muc1992":
                ok = content_rule_1992(k, r, judge, lenient=True)
                strict = ok and content_rule_1992(k, r, judge)
            else:
                ok = strict = content_rule(per)
            if ok or not content:
                pairs.append((i, j))
                totals.append(total)
                allowed.append(ok)
                if matching == "muc1992":
                    rank.append(mapping_score_1992(k, r, judge))
                    auto.append(strict)
    return MessageTable(message, tuple(keys), tuple(resps), tuple(pairs), tuple(totals),
                        tuple(missing_counts(k) for k in keys),
                        tuple(spurious_counts(r) for r in resps), tuple(allowed), tuple(rank),
                        tuple(auto))


def align_muc1992(t: MessageTable) -> list[tuple[int, int]]:
    """The 1992 scorer's automatic mapping (``create-system-mapped-template-pairs``): the
    allowed pairs by decreasing mapping score (:attr:`MessageTable.rank`, else the pair's
    recall (COR + ½PAR)/POS), ties in key then response order, each taken while both its
    templates are free."""
    score = t.rank if t.rank else tuple(c.recall for c in t.pair_total)
    order = sorted((e for e in range(len(t.pairs)) if not t.auto or t.auto[e]),
                   key=lambda e: (-score[e], t.pairs[e]))
    used_k, used_r, out = set(), set(), []
    for e in order:
        i, j = t.pairs[e]
        if i not in used_k and j not in used_r:
            used_k.add(i)
            used_r.add(j)
            out.append((i, j))
    return sorted(out)


@dataclass(frozen=True, eq=False)
class _Parametric:
    """A message's F as a ratio of linear functions of its alignment, for Dinkelbach's method:
    credit = ``n0 + dn @ x`` and ``POS + ACT`` = ``d0 + dd @ x`` over the indicator ``x`` of the
    mapped pairs (mapping ``(i, j)`` replaces key ``i``'s and response ``j``'s unmapped counts by
    the pair's); ``den_min`` is a lower bound on ``POS + ACT`` over every alignment (a mapped
    response counts at least its fills, so the unmapped ACT is one; and ``d0`` plus every
    negative ``dd``). ``base``: the counts of the empty alignment (its credit ``n0``, its POS +
    ACT ``d0``)."""

    table: MessageTable
    pairs: np.ndarray
    dn: np.ndarray
    dd: np.ndarray
    base: Counts
    den_min: float

    @property
    def fixed(self) -> bool:
        """No allowed pair: nothing to choose."""
        return not len(self.pairs)

    @classmethod
    def of(cls, t: MessageTable) -> _Parametric:
        base = t.counts([])
        d0 = base.POS + base.ACT
        dn = np.array([c.credit - t.miss[i].credit - t.spur[j].credit
                       for (i, j), c in zip(t.pairs, t.pair_total, strict=True)])
        dd = np.array([(c.POS + c.ACT) - (t.miss[i].POS + t.miss[i].ACT)
                       - (t.spur[j].POS + t.spur[j].ACT)
                       for (i, j), c in zip(t.pairs, t.pair_total, strict=True)])
        den_min = max(base.ACT, d0 + float(np.minimum(dd, 0).sum()))
        return cls(t, np.array(t.pairs, dtype=np.int64).reshape(-1, 2), dn, dd, base, den_min)

    def solve(self, lam: float):
        """``max credit - lam (POS + ACT)``: ``(alignment, value, bound, proven)`` through the
        certified assignment path (pairs of non-positive weight dropped)."""
        off = self.base.credit - lam * (self.base.POS + self.base.ACT)
        if self.fixed:
            return [], off, off, True
        w = self.dn - lam * self.dd
        keep = w > 1e-12
        inst = bipartite.BipartiteInstance.from_pairs(self.pairs[keep], w[keep],
                                                      len(self.table.keys),
                                                      len(self.table.resps))
        res = bipartite.solve(inst, "exact")
        return ([tuple(map(int, p)) for p in res.alignment], res.objective + off,
                res.bound + off, res.proven_optimal)

    def ratio(self, al) -> tuple[float, float]:
        c = self.table.counts(al)
        return c.credit, c.POS + c.ACT


def align_exact(t: MessageTable) -> tuple[list[tuple[int, int]], Status, float | None]:
    """The mapping of maximum message F, by Dinkelbach over assignments (proven); returns
    ``(alignment, status, bound on the message F)``."""
    par = _Parametric.of(t)
    if par.fixed or not par.base.ACT:  # no choice, or no response fill: F is fixed (0)
        return [], Status.OPTIMAL, par.base.f1
    rr = dinkelbach_oracle(par.solve, par.ratio, x0=align_muc1992(t), den_min=par.den_min)
    return sorted(rr.x), rr.status, None if rr.bound is None else 2 * rr.bound


def align_exact_corpus(tables: list[MessageTable], x0=None):
    """The mappings of every message together maximising **corpus** F = 2 Σ credit / Σ (POS +
    ACT), the number the ALL TEMPLATES row reports (per-message optima need not reach it: a
    message may trade its own F for the corpus's). Dinkelbach's method; its parametric problem
    ``max Σ credit - λ Σ (POS + ACT)`` separates into one certified assignment per message, so
    the final ``P(λ) <= 0`` proves λ optimal over every combination of per-message alignments.
    ``x0``: a start (one alignment per table; default: the ``muc1992`` greedy's). Returns
    ``(alignments, status, bound on the corpus F)``."""
    pars = [_Parametric.of(t) for t in tables]
    if not pars:
        return [], Status.OPTIMAL, 0.0
    den_min = sum(p.den_min for p in pars)

    def param_solve(lam):
        out = [p.solve(lam) for p in pars]
        return ([o[0] for o in out], sum(o[1] for o in out), sum(o[2] for o in out),
                all(o[3] for o in out))

    def ratio_of(x):
        rs = [p.ratio(a) for p, a in zip(pars, x, strict=True)]
        return sum(r[0] for r in rs), sum(r[1] for r in rs)

    if den_min <= 0:  # no fill anywhere: every alignment is empty and F is 0
        return [[] for _ in pars], Status.OPTIMAL, 0.0
    x0 = [align_muc1992(t) for t in tables] if x0 is None else x0
    rr = dinkelbach_oracle(param_solve, ratio_of, x0=x0, den_min=den_min)
    return ([sorted(a) for a in rr.x], rr.status,
            None if rr.bound is None else 2 * rr.bound)


# --------------------------------------------------------------------------------------------
# corpus scoring
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MessageScore:
    message: str
    alignment: tuple[tuple[int, int], ...]
    counts: Counts
    status: Status
    bound: float | None


@dataclass(frozen=True)
class MucScore:
    """A corpus under one alignment: ``total`` (the ALL TEMPLATES counts), the messages, the
    status (OPTIMAL when the alignment is proven to maximise what it maximises: every message's
    F for ``exact``, the corpus F for ``exact-corpus``), and for ``exact-corpus`` the proven
    ``bound`` on the corpus F."""

    alignment: str
    total: Counts
    messages: tuple[MessageScore, ...]
    status: Status
    wall_time: float
    bound: float | None = None


def score_messages(keys: dict[str, list[MucTemplate]], resps: dict[str, list[MucTemplate]],
                   history: dict, alignments=("muc1992", "exact"), matching: str = "muc1992",
                   recorded: dict | None = None) -> dict[str, MucScore]:
    """Score every key message under each of ``alignments`` (names of :data:`ALIGNMENTS` or
    ``recorded``, which needs ``recorded[message]``: the (key number, response number) pairs of
    a score report). The pair tables are computed once per message and shared. ``matching``
    is the slot scoring (:data:`SLOT_MATCHING`; ``muc1992``: the 1992 scorer's, whose
    ``history`` is a :class:`exactalign.io.muc4.History`).

    ``exact`` maximises each message's F; ``exact-corpus`` the corpus F of the ALL TEMPLATES row
    (:func:`align_exact_corpus`; its messages carry the corpus status and no bound of their
    own). Both are proven; ``exact-corpus`` >= every alignment's corpus F under the content
    rule, ``exact`` need not be."""
    if matching not in SLOT_MATCHING:
        raise ValueError(f"unknown slot matching {matching!r}; choose one of "
                         + ", ".join(SLOT_MATCHING))
    for a in alignments:
        if a not in ALIGNMENTS + ("recorded",):
            raise ValueError(f"unknown alignment {a!r}; choose one of "
                             + ", ".join(ALIGNMENTS + ("recorded",)))
    per: dict[str, list[MessageScore]] = {a: [] for a in alignments}
    times = dict.fromkeys(alignments, 0.0)
    tables: list[tuple[MessageTable, MessageTable]] = []
    for msg, ks in keys.items():
        t0 = time.perf_counter()
        judge = Judge(msg, history)
        full = message_table(msg, ks, resps.get(msg, []), judge, matching, content=False)
        t = _restrict_content(full)
        tables.append((full, t))
        shared = time.perf_counter() - t0
        for a in alignments:
            t1 = time.perf_counter()
            status, bound = Status.FEASIBLE, None
            if a == "exact-corpus":
                times[a] += shared
                continue
            if a == "recorded":
                al, counts = _recorded(full, (recorded or {}).get(msg, ()))
            else:
                if a == "muc1992":
                    al = align_muc1992(t)
                else:
                    al, status, bound = align_exact(t)
                counts = full.counts(al)
            per[a].append(MessageScore(msg, tuple(al), counts, status, bound))
            times[a] += shared + time.perf_counter() - t1
    corpus_bound = None
    if "exact-corpus" in alignments:
        t1 = time.perf_counter()
        als, status, corpus_bound = align_exact_corpus([t for _, t in tables])
        per["exact-corpus"] = [MessageScore(full.message, tuple(al), full.counts(al), status,
                                            None)
                               for (full, _), al in zip(tables, als, strict=True)]
        times["exact-corpus"] += time.perf_counter() - t1
    out = {}
    for a, msgs in per.items():
        total = Counts()
        for m in msgs:
            total = total + m.counts
        ok = msgs and all(m.status is Status.OPTIMAL for m in msgs)
        out[a] = MucScore(a, total, tuple(msgs), Status.OPTIMAL if ok else Status.FEASIBLE,
                          times[a], corpus_bound if a == "exact-corpus" else None)
    return out


def _restrict_content(t: MessageTable) -> MessageTable:
    keep = [e for e in range(len(t.pairs)) if t.allowed[e]]
    return MessageTable(t.message, t.keys, t.resps, tuple(t.pairs[e] for e in keep),
                        tuple(t.pair_total[e] for e in keep), t.miss, t.spur,
                        tuple(True for _ in keep),
                        tuple(t.rank[e] for e in keep) if t.rank else (),
                        tuple(t.auto[e] for e in keep) if t.auto else ())


def _recorded(t: MessageTable, lines) -> tuple[list[tuple[int, int]], Counts]:
    """The mapped pairs of a report's lines for one message, and the counts of the lines as
    the report lists them: a line ``(key, response)`` counts the pair, ``(key, None)`` the
    unmapped key, ``(None, response)`` the unmapped response -- a line listed twice twice,
    a template not listed not at all (the official scoring sessions were resumed: LSI TST3
    scores messages 0005-0006 twice, NYU TST3 leaves key 3 and response 6 of 0046 out, and
    their ALL TEMPLATES rows count them so)."""
    kn = {k.number: i for i, k in enumerate(t.keys)}
    rn = {r.number: j for j, r in enumerate(t.resps)}
    mapped = dict(zip(t.pairs, t.pair_total, strict=True))
    al, total = [], Counts()
    for k, r in lines:
        i, j = kn.get(k), rn.get(r)
        if i is not None and j is not None and (i, j) in mapped:
            al.append((i, j))
            total = total + mapped[(i, j)]
        elif i is not None and r is None:
            total = total + t.miss[i]
        elif j is not None and k is None:
            total = total + t.spur[j]
    return sorted(al), total


def recorded_mapping(report) -> dict[str, list[tuple[str | None, str | None]]]:
    """``message -> [(key number, response number)]``: every template line of a
    :class:`ScoreReport` in its order, ``None`` for an unmapped side (``<NONE>``); irrelevant
    messages (``*`` both sides) have none."""
    out: dict[str, list[tuple[str | None, str | None]]] = {}
    for p in report.pairs:
        if p.key is not None or p.response is not None:
            out.setdefault(p.message, []).append((p.key, p.response))
    return out


# --------------------------------------------------------------------------------------------
# comparison with an official score report
# --------------------------------------------------------------------------------------------
#: The columns compared: the seven of the ALL TEMPLATES row, and the interactive ones.
REPORT_FIELDS = FIELDS + ("ICR", "IPA")


@dataclass(frozen=True)
class SlotDiff:
    """One slot row of a report that ours does not reproduce: message, key and response
    template numbers (``None``: unmapped side, or -- SRI's TST4 report -- the message's
    row), slot name, and both rows (:data:`REPORT_FIELDS`)."""

    message: str
    key: str | None
    response: str | None
    slot: str
    ours: dict
    official: dict

    @property
    def interactive(self) -> bool:
        """The rows differ in their interactive judgements (ICR, IPA): the human judgement
        behind the official row is not the final history's."""
        return any(self.ours[f] != self.official[f] for f in ("ICR", "IPA"))

    @property
    def delta(self) -> dict:
        return {f: self.ours[f] - self.official[f] for f in REPORT_FIELDS
                if self.ours[f] != self.official[f]}


@dataclass(frozen=True)
class ReportComparison:
    """Our scoring of a report's mapping next to the report: ``official`` and ``ours`` are
    the ALL TEMPLATES counts, ``recorded`` whether the report records its mapping (else ours
    follows the automatic mapping, :func:`align_muc1992`, message by message), ``slot_diffs``
    every slot row that differs."""

    official: dict
    ours: Counts
    recorded: bool
    slot_diffs: tuple[SlotDiff, ...]

    @property
    def exact(self) -> bool:
        return all(getattr(self.ours, f) == self.official[f] for f in FIELDS)

    @property
    def delta(self) -> dict:
        return {f: getattr(self.ours, f) - self.official[f] for f in FIELDS
                if getattr(self.ours, f) != self.official[f]}


def _tally_dict(t: SlotTally) -> dict:
    return {f: getattr(t, f) for f in REPORT_FIELDS}


def compare_report(keys: dict[str, list[MucTemplate]], resps: dict[str, list[MucTemplate]],
                   history, report) -> ReportComparison:
    """Score a report's own mapping with the 1992 rules (:class:`Scorer1992`) line by line
    and compare every slot row and the ALL TEMPLATES row with the report. Lines are counted
    as listed (:func:`_recorded`); an unmapped optional key template counts nothing. A report
    without mapping lines (SRI's TST4 report) is compared message by message under the
    automatic mapping. ``history``: an :class:`exactalign.io.muc4.History`."""
    entries = _history_entries(history)
    diffs: list[SlotDiff] = []
    total = Counts()
    recorded = any(p.tag != "unrecorded" for p in report.pairs)

    def add(msg, k_id, r_id, tallies, official_slots):
        nonlocal total
        for s, t in zip(range(2, 25), tallies, strict=True):
            total = total + t.counts()
            off = official_slots.get(SLOTS[s])
            if off is not None and any(getattr(t, f) != off[f] for f in REPORT_FIELDS):
                diffs.append(SlotDiff(msg, k_id, r_id, SLOTS[s], _tally_dict(t),
                                      {f: off[f] for f in REPORT_FIELDS}))

    for p in report.pairs:
        if recorded and (p.key is not None or p.response is not None):
            k = next((x for x in keys.get(p.message, []) if x.number == p.key), None)
            r = next((x for x in resps.get(p.message, []) if x.number == p.response), None)
            if (p.key is not None and k is None) or (p.response is not None and r is None):
                raise ValueError(f"{p.message}: the report's key {p.key} / response "
                                 f"{p.response} is not in the templates")
            if k is not None and r is None and k.optional:
                tallies = tuple(SlotTally() for _ in range(2, 25))
            else:
                tallies = Scorer1992(entries, p.message, p.key).template(k, r)
            add(p.message, p.key, p.response, tallies, p.slots)
        elif not recorded and p.tag == "unrecorded":
            judge = Judge(p.message, history)
            ks, rs = keys.get(p.message, []), resps.get(p.message, [])
            t = _restrict_content(message_table(p.message, ks, rs, judge, "muc1992",
                                                content=False))
            al = align_muc1992(t)
            sums = [SlotTally() for _ in range(2, 25)]
            done_k, done_r = {i for i, _ in al}, {j for _, j in al}
            parts = [(ks[i], rs[j]) for i, j in al]
            parts += [(k, None) for i, k in enumerate(ks) if i not in done_k and not k.optional]
            parts += [(None, r) for j, r in enumerate(rs) if j not in done_r]
            for k, r in parts:
                sc = Scorer1992(entries, p.message, k.number if k is not None else None)
                for acc, x in zip(sums, sc.template(k, r), strict=True):
                    for f in REPORT_FIELDS + ("NON",):
                        setattr(acc, f, getattr(acc, f) + getattr(x, f))
            add(p.message, None, None, tuple(sums), p.slots)
    return ReportComparison(dict((f, report.all_templates[f]) for f in FIELDS), total,
                            recorded, tuple(diffs))
