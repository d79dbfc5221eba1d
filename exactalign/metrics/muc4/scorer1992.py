"""The 1992 scorer's slot scoring of a key/response template pair (:class:`Scorer1992`, a port of
``score.el`` and ``history.el`` of the MUC scorer v3.2 under the official configuration, with
the rules where the official v3.4 reports decide otherwise), one :class:`SlotTally` per slot."""

from __future__ import annotations

from dataclasses import dataclass

from ...io.muc4 import SLOT_TYPES, SLOTS, MucTemplate
from .config1992 import (
    HIERARCHIES,
    XREF_TARGETS,
    fill_value,
    is_ancestor,
    is_optional,
    muc_equal,
    shared_word,
    xref_p,
    xref_tag,
    xref_val,
)
from .counts import Counts


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
        tag = xref_tag(actual)
        for k in expected:
            keytag = xref_tag(k) if xref_p(k) else None
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
            return pred(xref_val(expected[0]) if xrefs else expected[0], actual)
        for k in expected:
            f = pred(xref_val(k) if xrefs else k, actual)
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
            return self._find(lambda k, a: "auto-partial" if is_ancestor(a, k, trees) else None,
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
        if xref_p(response):
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
                status2 = self.partially_matching(s, xkeys, xref_val(response), True)
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
        if not xref_p(key):
            return None
        trees = HIERARCHIES.get(s, ())
        kv = key[1]

        def vmatch(a):
            return self._full(kv, a) or ("auto-partial" if is_ancestor(a, kv, trees) else None)

        m = (xref_p(resp) and vmatch(resp[1])) or vmatch(resp)
        if m == "auto-match" and xref_p(resp):
            return self.ask(s, [key], resp) if query else None
        if m == "auto-match":
            return "auto-partial"
        return m

    def ask(self, s: int, keyvals, response):
        """``prompt-for-keyval``: the question put to the human, answered from the history
        (first about the key fills whose tags correspond)."""
        if xref_p(response):
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
                      if (xref_p(k) and self._full(k[1], resp)) or self._full(k, resp)), None)
        if found is None:
            found = next((k for k in keyvals
                          if (xref_p(k) and is_ancestor(resp, k[1], trees))
                          or is_ancestor(resp, k, trees)), None)
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
        key_optional, res_optional = is_optional(keyval), is_optional(sysval)
        keyslot = keyval[1] if key_optional else keyval
        respslot = sysval[1] if res_optional else sysval
        match = muc_equal(keyslot, respslot)
        if not match and keyslot is not None and respslot is not None:
            match = self.match_keyval(s, [keyslot], respslot)
            if not match:
                if SLOT_TYPES[s] == "element":
                    match = self.set_fill(s, keyslot, respslot, query)
                elif substring and SLOT_TYPES[s] == "string":
                    match = shared_word(keyslot, respslot)
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
        if substring and shared_word(keyvals, sysvals):
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
        kopts = sum(1 for k in keyvals if is_optional(k))
        sopts = sum(1 for v in sysvals if is_optional(v))
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
            kv = [fill_value(f) for f in key.slots[s]] if key is not None else []
            sv = [fill_value(f) for f in resp.slots[s]] if resp is not None else []
            out.append(self.slot(s, kv, sv, query, substring))
        return tuple(out)
