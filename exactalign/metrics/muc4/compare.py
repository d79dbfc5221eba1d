"""Comparison with an official 1992 score report: the report's own mapping scored line by line
with the 1992 rules, every slot row that differs (:func:`compare_report`)."""

from __future__ import annotations

from dataclasses import dataclass

from ...io.muc4 import SLOTS, MucTemplate
from .alignment import align_muc1992, message_table, restrict_content
from .counts import FIELDS, Counts
from .guidelines import Judge
from .pairs import history_entries
from .scorer1992 import Scorer1992, SlotTally

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
    entries = history_entries(history)
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
            t = restrict_content(message_table(p.message, ks, rs, judge, "muc1992",
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
