"""The scoring guidelines' rules over the fills' alternatives -- slot matching ``exact`` and
``first-fit``, an approximation of the 1992 scorer kept for comparison: automatic partial
credit (:func:`value_score`), string fills without nonessential modifiers, the message's
:class:`Judge` (automatic rules plus its judgement history), and one slot's fill pairing
(:func:`slot_pairs`, by assignment or in order)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...io.muc4 import SLOTS, STRING_SLOTS, Fill
from ...problems import bipartite
from .counts import Counts

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
    return counts_of_pairs(keys, rs, S, pairs, inc)


def counts_of_pairs(keys, rs, S, pairs, inc) -> Counts:
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


def strings_of(fill) -> tuple[str, ...]:
    """The strings a fill offers to cross-references: itself, or both parts of a description
    ``("DESC", "NAME")`` (a reference to the victim may name either)."""
    return fill if isinstance(fill, tuple) else (fill,)
