"""The 1992 scorer's configuration and value comparison (``config-tst3.el``,
``slotconfig-tst3.el``; ``slots.el`` and ``parse.el`` of the MUC scorer v3.2): the string
premodifiers it deletes (:func:`strip_premodifiers`), its value equality (:func:`muc_equal`),
the slot hierarchies (:data:`HIERARCHIES`) with its ancestor test, the cross-referenced slots
(:data:`XREF_TARGETS`) and the shared-word test of its template mapping."""

from __future__ import annotations

import functools
import re

from ...io.muc4 import Fill

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


def xref_p(v) -> bool:
    return isinstance(v, tuple) and (v[0] == "xref" or (
        v[0] == "optional" and isinstance(v[1], tuple) and v[1][0] == "xref"))


def xref_val(v):
    return v[1] if v[0] == "xref" else v[1][1]


def xref_tag(v):
    return v[2] if v[0] == "xref" else v[1][2]


def is_optional(v) -> bool:
    return isinstance(v, tuple) and v[0] == "optional"


def fill_value(f: Fill):
    return ("optional", f.value) if f.optional else f.value


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


def is_ancestor(obj1, obj2, trees) -> bool:
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


def shared_word(keyval, sysval) -> bool:
    """``score-string-fill-mapping``: a word in common (the content rule's partial match)."""
    kw = set(_words(keyval))
    return any(w in kw for w in _words(sysval))
