"""The TimeML-Normalizer of the TempEval-3 toolkit (``TimeML-Normalizer.jar``, class
``timemlnormalizer.TimeML_Normalizer``), re-implemented token for token: the ids it gives the
entities of both files so that aligned entities share one (:func:`te3_entity_ids`), and the
ids it writes in their TLINKs (:func:`te3_link_ids`)."""

from __future__ import annotations

from ...core.errors import InputError
from ...io.timeml import TimeMLDocument
from .elements import file_elements
from .tokenizer import toolkit_tokens

__all__ = ["te3_entity_ids", "te3_link_ids"]


def _entity_tags(doc: TimeMLDocument) -> list[tuple[int, int, str, str]]:
    """``(offset, rank, tag, id)`` of every EVENT/TIMEX3 opening and closing tag inside
    ``<TEXT>``, in document order (rank: 0 closes an entity begun earlier, 1 opens, 2 closes
    an empty entity; ``tag`` is ``EVENT``, ``TIMEX3``, ``/EVENT`` or ``/TIMEX3``)."""
    spans = {}
    for e in doc.events.values():
        if e.start is not None:
            spans.setdefault(("EVENT", e.eid), (e.start, e.end))
    for t in doc.timexes.values():
        if t.start is not None:
            spans[("TIMEX3", t.tid)] = (t.start, t.end)
    tags = []
    for (tag, ident), (start, end) in spans.items():
        tags.append((start, 1, -end, tag, ident))
        tags.append((end, 0 if end > start else 2, 0, "/" + tag, ident))
    return [(off, rank, tag, ident) for off, rank, _, tag, ident in sorted(tags)]


def _token_labels(tokens: list[tuple[int, int]], tags) -> list[tuple[str, str, str | None]]:
    """The normaliser's ``merge_tok_n_tml``: each token's ``(B|I|O, EVENT|TIMEX3|'', id)``.

    A tag is read while the token holding the character after it is matched (at the token's
    start, or inside it). An opening tag makes the token ``B`` with that tag's id (the last one
    wins when several open in one token); a closing tag read at a token's start makes that
    token ``O``; one read inside the token where its entity opened closes after the token
    (``delayed_closing``), one read inside a later token makes that token ``O``."""
    labels = []
    bio, in_tag, in_id = "O", "", None
    k = 0
    for ts, te in tokens:
        opened_here = delayed = False
        while k < len(tags) and tags[k][0] < te:
            off, _, tag, ident = tags[k]
            k += 1
            if not tag.startswith("/"):
                opened_here, in_tag, in_id, bio = True, tag, ident, "B"
            elif tag[1:] == in_tag:
                if opened_here and off > ts:
                    delayed = True
                elif opened_here:
                    bio, in_tag, in_id, opened_here = "O", "", None, False
                else:
                    bio, in_tag = "O", ""
        labels.append((bio, in_tag if bio != "O" else "", in_id if bio == "B" else None))
        if bio == "B":
            bio, in_id = "I", None
        if delayed:
            bio, in_tag, in_id = "O", "", None
    return labels


def te3_entity_ids(gold: TimeMLDocument, system: TimeMLDocument
                   ) -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], str]]:
    """The ids the TimeML-Normalizer gives the entities of ``<TEXT>`` (``TimeML_Normalizer.
    normalize`` with the reference first, as ``TE3-evaluation.py`` runs it): ``{("EVENT", eid)
    | ("TIMEX3", tid): new id}`` for the reference and for the system. Entities of the two
    files with the same new id are aligned.

    Both files' tokens (:func:`toolkit_tokens`) are walked together. An EVENT gets a new id
    ``eN`` at the token where it begins, shared with the other file's EVENT beginning at the
    same token: events align when they begin in the same token, whatever their ends. A TIMEX3
    beginning at a token takes the id of the other file's TIMEX3 still *open* there (begun at
    this or an earlier token) unless its own previous TIMEX3 already had that id or a later
    one, else a new ``tN``: timexes align when one begins inside the other, one to one, in text
    order (of two system timexes inside one reference timex only the first is aligned). A
    file's TIMEX3 stays open until a token of that file labelled ``O`` or ``B-TIMEX3``: a
    token inside an EVENT does not close it. An entity that labels no token (empty, or
    superseded by a later tag in the same token) gets no id."""
    labels = []
    for doc in (gold, system):
        labels.append(_token_labels(toolkit_tokens(doc.text), _entity_tags(doc)))
    if len(labels[0]) != len(labels[1]):
        raise InputError(f"{gold.doc_id}: the reference and the system texts differ",
                         path=system.path)
    maps: tuple[dict, dict] = ({}, {})
    last_eid = last_tid = 1
    open_t, last_local = [0, 0], [0, 0]
    for line in zip(*labels, strict=True):
        open_event = 0
        for a, (bio, tag, ident) in enumerate(line):
            if bio == "B" and tag == "EVENT":
                if open_event == 0:
                    open_event, last_eid = last_eid, last_eid + 1
                maps[a][("EVENT", ident)] = f"e{open_event}"
            if bio == "O" or (bio == "B" and tag == "TIMEX3"):
                open_t[a] = 0
        for a, (bio, tag, ident) in enumerate(line):
            if bio == "B" and tag == "TIMEX3":
                open_t[a] = last_tid
                other = open_t[1 - a]
                if other != 0 and last_local[a] < other:
                    open_t[a] = other
                last_local[a] = open_t[a]
                if open_t[a] == last_tid:
                    last_tid += 1
                maps[a][("TIMEX3", ident)] = f"t{open_t[a]}"
    return maps


def te3_link_ids(gold: TimeMLDocument, system: TimeMLDocument
                 ) -> tuple[dict[str, str], dict[str, str]]:
    """The ids the TimeML-Normalizer writes in the TLINKs of the reference and of the system
    (``TimeML_Normalizer.normalize``, reference first, as ``TE3-evaluation.py`` runs it before
    ``temporal_evaluation.py`` reads the links): ``{id a TLINK uses (eiid, the eid of an
    event without instance, tid): normalised id}`` for each file. Link endpoints with the same
    normalised id are one entity for the link scores.

    * The DCT (the first TIMEX3 of ``<DCT>``) is ``t0`` in both files.
    * A TIMEX3 of ``<TEXT>`` has its :func:`te3_entity_ids` id ``tN`` (overlap, one to one in
      text order).
    * An event instance: the first MAKEINSTANCE (file order) of an EVENT with id ``eN``
      (:func:`te3_entity_ids`: same first token) is ``eiN``; each further instance of that
      EVENT ``ei`` + the first number from 1000000 + N not yet used in the file. So the
      *second* instance of a system event aligns with the second instance of the reference
      event, whatever the eiids. An EVENT without MAKEINSTANCE (a TLINK naming its eid) is
      ``eiN`` here; the normaliser has no instance id for it.
    * A system entity without reference counterpart keeps a number of its own (the counters
      are shared by both files, so it never collides with a reference id): its links stay in
      the system graph, counted in the precision denominator, matchable by nothing.
    * No id: entities outside ``<TEXT>`` other than the DCT (TimeBank's headline EVENTs), and
      entities that label no token (see :func:`te3_entity_ids`). The normaliser stops with an
      exception on a TLINK or MAKEINSTANCE naming one of them, and no score is printed.
    """
    ents = te3_entity_ids(gold, system)
    out: tuple[dict[str, str], dict[str, str]] = ({}, {})
    for doc, ent, ids in zip((gold, system), ents, out, strict=True):
        dct = _dct_tid(doc)
        for k, t in doc.timexes.items():
            if k == dct:
                ids[k] = "t0"
            elif (n := ent.get(("TIMEX3", t.tid))) is not None:
                ids[k] = n
        seen, used = set(), set()
        for k, e in doc.events.items():     # MAKEINSTANCE order, then events without one
            n = ent.get(("EVENT", e.eid))
            if n is None:
                continue
            num = int(n[1:])
            if e.eiid is not None and n in seen:
                num += 1000000
                while num in used:
                    num += 1
            seen.add(n)
            used.add(num)
            ids[k] = f"ei{num}"
    return out


def _dct_tid(doc: TimeMLDocument) -> str | None:
    """The tid the normaliser renames ``t0``: the first TIMEX3 of ``<DCT>`` (for a document
    without file, or without ``<DCT>``: :attr:`TimeMLDocument.dct` when outside ``<TEXT>``)."""
    dct = file_elements(doc).dct
    if dct is None and doc.dct in doc.timexes and doc.timexes[doc.dct].start is None:
        dct = doc.dct
    return dct

