r"""Seeded, realistic event-nugget system errors made from gold TBF documents.

:func:`perturb` turns a gold :class:`~exactalign.io.tbf.TbfFile` into a system file with the
errors event-nugget detectors make (the error classes of the ACE/TAC KBP perturbed systems in the
pilot data, and of Liu, Mitamura & Hovy 2015, section 2.5), each at its own rate
(:class:`ErrorRates`):

``miss``      a gold mention is not output at all;
``merge``     a gold mention and the next one (in text order, at most ``merge_gap`` units after
              its end) are output as one mention covering both (attributes of the first);
``split``     a mention of two or more units is output as two mentions, cut at a random interior
              unit (both with its attributes);
``shift``     a boundary of an output mention moves by 1..``max_shift`` units, outward or inward
              (the span never becomes empty);
``type``      the type becomes another type of the gold file's inventory;
``realis``    the realis becomes another value of the inventory (the gold values plus
              ``Actual``, ``Generic``, ``Other``);
``double``    the mention is also output a second time on the same span with another type
              (double tagging);
``spurious``  per gold mention, one extra mention at a random place (length drawn from the gold
              lengths of the document, random type and realis).

Units are characters (character mode) or token positions (token mode: token ids in the order of
``token_order[doc]``, e.g. a token table, else the document's gold token ids in natural order
``t2 < t10``). The decisions of gold mention ``k`` of document ``d`` use
``numpy.random.default_rng([seed, d, k])`` and always draw the same eight uniforms first
(common random numbers): raising the rate of one class, the others fixed, keeps every error the
lower rate made and adds more, so curves over rates are smooth; a rate of 0 leaves that class
out entirely. Rates of 0
everywhere give the gold mentions back unchanged (new ids ``E1, E2, ...`` aside).

The result (:class:`Perturbation`) holds the system file -- the structures
:func:`exactalign.metrics.nugget.evaluate` scores, writable with
:func:`exactalign.io.tbf.format_tbf` -- and a log of every error applied, with the number of
opportunities each error class had (so that tests and experiments can check the rates).

    >>> from exactalign.io.tbf import format_tbf, parse_tbf
    >>> gold = parse_tbf("#BeginOfDocument d1\n"
    ...                  "gold\td1\tT1\t0,5\tstorm\tConflict_Attack\tActual\n"
    ...                  "#EndOfDocument\n")
    >>> p = perturb(gold, ErrorRates(realis=1.0), seed=0)
    >>> dict(p.applied), p.opportunities["realis"]
    ({'realis': 1}, 1)
    >>> print(format_tbf(p.system), end="")  # doctest: +NORMALIZE_WHITESPACE
    #BeginOfDocument d1
    perturbed  d1  E1  0,5  storm  Conflict_Attack  Other
    #EndOfDocument
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields

import numpy as np

from ..core.errors import InputError
from ..io.tbf import Mention, TbfDocument, TbfFile

#: The error classes, in the order their uniforms are drawn for every gold mention.
ERROR_KINDS = ("miss", "merge", "split", "shift", "type", "realis", "double", "spurious")
#: Realis values always available for realis errors (TAC KBP 2015).
REALIS_VALUES = ("Actual", "Generic", "Other")
SYSTEM_ID = "perturbed"
#: The text field of a mention whose span the generator changed (the gold text no longer fits).
CHANGED = "_"


@dataclass(frozen=True)
class ErrorRates:
    """The probability of each error class per opportunity (see the module docstring), and the
    size parameters ``max_shift`` (units a boundary moves at most) and ``merge_gap`` (largest
    distance, in units, between two mentions that can be merged)."""

    miss: float = 0.0
    merge: float = 0.0
    split: float = 0.0
    shift: float = 0.0
    type: float = 0.0
    realis: float = 0.0
    double: float = 0.0
    spurious: float = 0.0
    max_shift: int = 2
    merge_gap: int = 10

    def __post_init__(self):
        for k in ERROR_KINDS:
            v = getattr(self, k)
            if not (0.0 <= v <= 1.0):
                raise ValueError(f"error rate {k} must be in [0, 1], not {v!r}")
        if self.max_shift < 1 or self.merge_gap < 0:
            raise ValueError("max_shift must be >= 1 and merge_gap >= 0")

    @classmethod
    def uniform(cls, rate: float, **kwargs) -> ErrorRates:
        """Every error class at ``rate`` (keywords override single classes)."""
        return cls(**{**dict.fromkeys(ERROR_KINDS, rate), **kwargs})

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class AppliedError:
    doc_id: str
    kind: str
    gold_id: str  # the gold mention the error was drawn for ("" for none)


@dataclass
class Perturbation:
    """A perturbed system file and the log of the errors it contains."""

    system: TbfFile
    rates: ErrorRates
    seed: int
    errors: list[AppliedError] = field(default_factory=list)
    opportunities: Counter = field(default_factory=Counter)

    @property
    def applied(self) -> Counter:
        """Errors applied, per class."""
        return Counter(e.kind for e in self.errors)


# --------------------------------------------------------------------------------------------
# units <-> spans
# --------------------------------------------------------------------------------------------
def _natural_key(token_id: str):
    m = re.match(r"^(.*?)(\d+)$", token_id)
    return (m.group(1), int(m.group(2)), token_id) if m else (token_id, -1, token_id)


class _Units:
    """Positions of a document's units: characters are their own positions; token ids map to
    their index in the token order."""

    def __init__(self, mode: str, order: Sequence[str] | None):
        self.mode = mode
        self.order = list(order) if order is not None else None
        self.index = None if order is None else {t: i for i, t in enumerate(self.order)}

    def positions(self, m: Mention, path: str) -> list[int]:
        if self.mode == "char":
            return sorted({c for b, e in m.pieces for c in range(b, e)})
        try:
            return sorted(self.index[t] for t in m.pieces)
        except KeyError as e:
            raise InputError(f"token id {e.args[0]!r} of mention {m.mention_id} is not in the "
                             "token order", path=path, line=m.line) from None

    @property
    def limit(self) -> int | None:
        """One past the last position (None: unbounded, character mode)."""
        return None if self.order is None else len(self.order)

    def pieces(self, pos: Sequence[int]) -> tuple:
        """The span pieces of a set of positions: ``((b, e), ...)`` runs in character mode,
        token ids in order in token mode."""
        if self.mode == "token":
            return tuple(self.order[p] for p in pos)
        runs, start = [], pos[0]
        for a, b in zip(pos, pos[1:], strict=False):
            if b != a + 1:
                runs.append((start, a + 1))
                start = b
        runs.append((start, pos[-1] + 1))
        return tuple(runs)


def span_text(pieces: tuple, mode: str) -> str:
    """The TBF span field of ``pieces`` (``b,e;b,e`` or ``t1,t2``)."""
    if mode == "char":
        return ";".join(f"{b},{e}" for b, e in pieces)
    return ",".join(pieces)


# --------------------------------------------------------------------------------------------
# the generator
# --------------------------------------------------------------------------------------------
def _seed_int(seed) -> int:
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**63 - 1))
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be an int >= 0 or a numpy Generator, not {seed!r}")
    return int(seed)


def _inventories(gold: TbfFile) -> tuple[list[str], list[str]]:
    types, realis = {}, dict.fromkeys(REALIS_VALUES)
    for d in gold.documents.values():
        for m in d.mentions:
            if m.attributes:
                types.setdefault(m.attributes[0])
            if len(m.attributes) > 1:
                realis.setdefault(m.attributes[1])
    return list(types), list(realis)


def _other(rng, values: Sequence[str], current: str) -> str | None:
    """A value of ``values`` other than ``current`` (None if there is none)."""
    choices = [v for v in values if v != current]
    return choices[int(rng.integers(len(choices)))] if choices else None


def perturb(gold: TbfFile, rates: ErrorRates, seed, *,
            token_order: Mapping[str, Sequence[str]] | None = None,
            system_id: str = SYSTEM_ID, path: str | None = None) -> Perturbation:
    """A system file made from ``gold`` with errors at ``rates`` (see the module docstring).

    ``seed``: an int >= 0 (or a numpy Generator, from which one int is drawn). ``token_order``
    (token mode): document id -> token ids in text order. ``path`` names the result (default
    ``<gold path>.perturbed``)."""
    s = _seed_int(seed)
    types, realis_values = _inventories(gold)
    out = Perturbation(TbfFile(path or f"{gold.path}.perturbed", {}, gold.mode, gold.attributes),
                       rates, s)
    for d_idx, (doc_id, doc) in enumerate(gold.documents.items()):
        order = None
        if gold.mode == "token":
            order = (token_order or {}).get(doc_id)
            if order is None:
                order = sorted({t for m in doc.mentions for t in m.pieces}, key=_natural_key)
        units = _Units(gold.mode, order)
        mentions = _perturb_document(doc, units, rates, s, d_idx, types, realis_values, out,
                                     gold.path)
        sys_doc = TbfDocument(doc_id, begin_line=doc.begin_line)
        for k, (pos, attrs, text, raw) in enumerate(mentions, start=1):
            pieces = units.pieces(pos) if raw is None else raw.pieces
            span = span_text(pieces, gold.mode) if raw is None else raw.span
            sys_doc.mentions.append(Mention(
                mention_id=f"E{k}", pieces=pieces, attributes=attrs, text=text,
                system_id=system_id, doc_field=doc_id, span=span, mode=gold.mode))
        out.system.documents[doc_id] = sys_doc
    return out


def _perturb_document(doc: TbfDocument, units: _Units, rates: ErrorRates, seed: int,
                      d_idx: int, types, realis_values, out: Perturbation, path: str) -> list:
    """The output mentions of one document in text order: ``(positions, attributes, text,
    raw)``, ``raw`` the gold mention itself when it covers nothing and is passed through."""
    gold = [(units.positions(m, path), k, m) for k, m in enumerate(doc.mentions)]
    gold.sort(key=lambda x: (x[0][0] if x[0] else -1, x[1]))
    produced: list[tuple[list[int], tuple, str, Mention | None]] = []
    consumed: set[int] = set()
    log, opp = out.errors, out.opportunities

    def err(kind, m):
        log.append(AppliedError(doc.doc_id, kind, m.mention_id))

    for i, (pos, k, m) in enumerate(gold):
        rng = np.random.default_rng([seed, d_idx, k])
        u = dict(zip(ERROR_KINDS, rng.random(len(ERROR_KINDS)), strict=True))
        opp["spurious"] += 1
        if u["spurious"] < rates.spurious:
            err("spurious", m)
            produced.append(_spurious(rng, gold, units, types, realis_values, m))
        if i in consumed:
            continue
        if not pos:  # a gold mention covering nothing is passed through unchanged
            produced.append((pos, m.attributes, m.text, m))
            continue
        opp["miss"] += 1
        if u["miss"] < rates.miss:
            err("miss", m)
            continue
        spans, text = [pos], m.text
        nxt = gold[i + 1] if i + 1 < len(gold) else None
        can_merge = (nxt is not None and i + 1 not in consumed and nxt[0]
                     and nxt[0][0] - pos[-1] - 1 <= rates.merge_gap and nxt[0][0] > pos[-1])
        if can_merge:
            opp["merge"] += 1
        if can_merge and u["merge"] < rates.merge:
            err("merge", m)
            consumed.add(i + 1)
            spans, text = [list(range(pos[0], max(pos[-1], nxt[0][-1]) + 1))], CHANGED
        elif len(pos) >= 2:
            opp["split"] += 1
            if u["split"] < rates.split:
                err("split", m)
                cut = int(rng.integers(1, len(pos)))
                spans, text = [pos[:cut], pos[cut:]], CHANGED
        opp["shift"] += 1
        if u["shift"] < rates.shift:
            j = int(rng.integers(len(spans)))
            moved = _shift(rng, spans[j], units.limit, rates.max_shift)
            if moved != spans[j]:
                err("shift", m)
                spans[j], text = moved, CHANGED
        attrs = list(m.attributes)
        for a, kind, values in ((0, "type", types), (1, "realis", realis_values)):
            if a < len(attrs):
                opp[kind] += 1
                if u[kind] < getattr(rates, kind):
                    new = _other(rng, values, attrs[a])
                    if new is not None:
                        err(kind, m)
                        attrs[a] = new
        attrs = tuple(attrs)
        produced.extend((sp, attrs, text, None) for sp in spans)
        opp["double"] += 1
        if u["double"] < rates.double and attrs:
            new = _other(rng, types, attrs[0])
            if new is not None:
                err("double", m)
                produced.append((spans[0], (new, *attrs[1:]), text, None))
    produced.sort(key=lambda x: x[0][0] if x[0] else -1)
    return produced


def _shift(rng, pos: list[int], limit: int | None, max_shift: int) -> list[int]:
    """Move the start or the end of ``pos`` (drawn at random) by 1..``max_shift`` units, outward
    or inward, so that the span stays non-empty and within ``[0, limit)``; when clipping leaves
    the span unchanged the other direction, then the other boundary, is tried."""
    d = int(rng.integers(1, max_shift + 1)) * (1 if rng.random() < 0.5 else -1)
    first = rng.random() < 0.5
    for start, step in ((first, d), (first, -d), (not first, d), (not first, -d)):
        moved = _move(pos, start, step, limit)
        if moved != pos:
            return moved
    return pos


def _move(pos: list[int], start: bool, d: int, limit: int | None) -> list[int]:
    lo, hi = pos[0], pos[-1]
    if start:
        new = min(max(0, lo + d), hi)
        return [*range(new, lo), *(p for p in pos if p >= new)]
    new = max(lo, hi + d if limit is None else min(limit - 1, hi + d))
    return [*(p for p in pos if p <= new), *range(hi + 1, new + 1)]


def _spurious(rng, gold, units: _Units, types, realis_values, m: Mention) -> tuple:
    """A mention at a random place of the document, as long as a random gold mention."""
    lengths = [len(p) for p, _, _ in gold if p] or [1]
    length = lengths[int(rng.integers(len(lengths)))]
    extent = units.limit
    if extent is None:
        extent = max((p[-1] + 1 for p, _, _ in gold if p), default=length) + 50
    length = min(length, extent)
    start = int(rng.integers(0, extent - length + 1))
    attrs = list(m.attributes)
    if attrs:
        attrs[0] = types[int(rng.integers(len(types)))]
    if len(attrs) > 1:
        attrs[1] = realis_values[int(rng.integers(len(realis_values)))]
    return list(range(start, start + length)), tuple(attrs), CHANGED, None
