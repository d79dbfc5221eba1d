"""Scoring a corpus of messages under each alignment (:func:`score_messages`; ``recorded``: the
mapping of an official score report, :func:`recorded_mapping`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from ...core.result import Status
from ...io.muc4 import MucTemplate
from .alignment import (
    ALIGNMENTS,
    MessageTable,
    align_exact,
    align_exact_corpus,
    align_muc1992,
    message_table,
    restrict_content,
    witness,
)
from .counts import Counts
from .guidelines import Judge
from .pairs import SLOT_MATCHING


@dataclass(frozen=True)
class MessageScore:
    message: str
    alignment: tuple[tuple[int, int], ...]
    counts: Counts
    status: Status
    bound: float | None
    #: where this (heuristic) alignment's F is below the message's optimum, the fewest template
    #: pairs to change to reach an optimal alignment (:func:`message_witness`), else ``None``
    witness: dict | None = None


#: A message's F below its optimum by more than this has a witness.
WITNESS_TOL = 1e-9


def message_witness(t: MessageTable, optimum, alignment, f_gain: float) -> dict:
    """The fewest template pairs to remove and add to turn ``alignment`` into an alignment of
    maximum message F (:func:`exactalign.metrics.muc4.witness`), each pair ``[key template
    number, response template number]``; ``f_gain`` the F it gains (``optimum``'s F minus
    ``alignment``'s)."""
    w = witness(t, optimum, alignment)

    def numbers(pairs):
        return [[t.keys[i].number, t.resps[j].number] for i, j in pairs.tolist()]

    return {"remove": numbers(w.remove), "add": numbers(w.add), "changes": w.changes,
            "f_gain": f_gain}


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
                   recorded: dict | None = None, witnesses: bool = False
                   ) -> dict[str, MucScore]:
    """Score every key message under each of ``alignments`` (names of :data:`ALIGNMENTS` or
    ``recorded``, which needs ``recorded[message]``: the (key number, response number) pairs of
    a score report). The pair tables are computed once per message and shared. ``matching``
    is the slot scoring (:data:`SLOT_MATCHING`; ``muc1992``: the 1992 scorer's, whose
    ``history`` is a :class:`exactalign.io.muc4.History`).

    ``exact`` maximises each message's F; ``exact-corpus`` the corpus F of the ALL TEMPLATES row
    (:func:`align_exact_corpus`; its messages carry the corpus status and no bound of their
    own). Both are proven; ``exact-corpus`` >= every alignment's corpus F under the content
    rule, ``exact`` need not be. ``witnesses`` (with ``muc1992`` and ``exact``): each message
    where the 1992 mapping's F is below the optimum gets its :attr:`MessageScore.witness`."""
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
        t = restrict_content(full)
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
        if witnesses and "muc1992" in per and "exact" in per:
            g, x = per["muc1992"][-1], per["exact"][-1]
            if x.counts.f1 - g.counts.f1 > WITNESS_TOL:
                per["muc1992"][-1] = replace(g, witness=message_witness(
                    t, x.alignment, g.alignment, x.counts.f1 - g.counts.f1))
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
