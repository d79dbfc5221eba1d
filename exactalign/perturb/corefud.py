"""Seeded CorefUD documents and realistic system errors on them, written as CorefUD 1.x text
(:func:`synthetic_pair`): what the side-by-side tests against the CorefUD scorer and the
``corefud`` experiments score.

A document is plain data: ``{"name", "sentences": [{"words": n, "empties": {"5.1": "5:nsubj"}}],
"entities": [[mention, ...], ...]}``, a mention ``{"sent": i, "start": id, "end": id, "head":
id}`` with CoNLL-U node ids as strings (``"3"``, ``"5.1"`` for an empty node); a zero is a
mention whose head is an empty node. :func:`perturb` applies, each with probability ``rate``
and several times over, the errors a system makes: boundary errors (a word more or less at either
end), head shifts (to another word of the mention, an empty node included), split and merged
entities, dropped and spurious mentions, dropped and spurious zeros (the empty node goes or
comes), changed zero dependencies, and repeated mentions (one span in two entities, or with
another head). :func:`to_corefud` writes documents as one CorefUD file; :func:`read_documents`
reads a real CorefUD file into documents of this form, so that real gold annotation (e.g. GUM's,
``coref/ud-english-gum`` of the data registry) can be perturbed and scored.
"""

from __future__ import annotations

import copy
import functools

import numpy as np

DEPRELS = ("nsubj", "obj", "iobj", "obl")


def _rng(seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _key(node: str) -> tuple[int, int]:
    a, _, b = node.partition(".")
    return (int(a), int(b) if b else 0)


def _nodes(sent: dict) -> list[str]:
    return [n for n, _ in _sorted_nodes(sent["words"], tuple(sent["empties"]))]


@functools.lru_cache(maxsize=4096)
def _sorted_nodes(words: int, empties: tuple[str, ...]) -> tuple[tuple[str, tuple], ...]:
    """A sentence's node ids in order, each with its sort key (cached: real documents have
    hundreds of mentions per sentence list)."""
    ids = [str(i) for i in range(1, words + 1)] + list(empties)
    return tuple(sorted(((n, _key(n)) for n in ids), key=lambda t: t[1]))


def _span(sent: dict, m: dict) -> list[str]:
    lo, hi = _key(m["start"]), _key(m["end"])
    return [n for n, k in _sorted_nodes(sent["words"], tuple(sent["empties"])) if lo <= k <= hi]


def random_document(seed, name: str = "d1", *, sentences: tuple[int, int] = (2, 4),
                    entities: tuple[int, int] = (3, 7)) -> dict:
    """A key document: a few sentences of 6-14 words, some empty nodes with dependencies, and
    entities of 1-4 mentions (contiguous spans of 1-4 words with a head, or zeros)."""
    rng = _rng(seed)
    sents = []
    for _ in range(int(rng.integers(*sentences, endpoint=True))):
        n = int(rng.integers(6, 15))
        empties = {}
        for i in sorted(rng.choice(np.arange(1, n + 1), size=int(rng.integers(0, 3)),
                                   replace=False).tolist()):
            parents = rng.choice(np.arange(1, n + 1), size=int(rng.integers(1, 3)),
                                 replace=False)
            empties[f"{i}.1"] = "|".join(f"{int(p)}:{rng.choice(DEPRELS)}"
                                         for p in sorted(parents.tolist()))
        sents.append({"words": n, "empties": empties})
    doc = {"name": name, "sentences": sents, "entities": []}
    zeros = [(s, e) for s, sent in enumerate(sents) for e in sent["empties"]]
    rng.shuffle(zeros)
    for _ in range(int(rng.integers(*entities, endpoint=True))):
        ms = []
        for _ in range(int(rng.integers(1, 5))):
            if zeros and rng.random() < 0.25:
                s, e = zeros.pop()
                ms.append({"sent": s, "start": e, "end": e, "head": e})
            else:
                ms.append(_random_span(doc, rng))
        doc["entities"].append(ms)
    return _clean(doc)


def _random_span(doc: dict, rng) -> dict:
    s = int(rng.integers(len(doc["sentences"])))
    n = doc["sentences"][s]["words"]
    a = int(rng.integers(1, n + 1))
    b = min(n, a + int(rng.integers(0, 4)))
    h = int(rng.integers(a, b + 1))
    return {"sent": s, "start": str(a), "end": str(b), "head": str(h)}


def _clean(doc: dict) -> dict:
    """Drop what CorefUD cannot write unambiguously: mentions of one entity that cross (an
    entity's closing bracket closes its innermost open mention), a repeated mention within an
    entity, mentions of removed empty nodes, and empty entities."""
    out = []
    for ms in doc["entities"]:
        kept = []
        for m in ms:
            sent = doc["sentences"][m["sent"]]
            nodes = set(_nodes(sent))
            if not {m["start"], m["end"], m["head"]} <= nodes:
                continue
            if m["head"] not in _span(sent, m):
                continue
            lo, hi = _key(m["start"]), _key(m["end"])
            bad = False
            for o in kept:
                if o["sent"] != m["sent"]:
                    continue
                olo, ohi = _key(o["start"]), _key(o["end"])
                if (olo, ohi) == (lo, hi) or (olo < lo <= ohi < hi) or (lo < olo <= hi < ohi) \
                        or (lo == olo and hi != ohi) or (hi == ohi and lo != olo) \
                        or (ohi == lo) or (hi == olo):
                    bad = True
                    break
            if not bad:
                kept.append(m)
        if kept:
            out.append(kept)
    doc["entities"] = out
    return doc


def perturb(doc: dict, seed, rate: float = 0.3, rounds: int = 3) -> dict:
    """A system's output for key ``doc``: the errors of the module docstring, each tried
    ``rounds`` times with probability ``rate``."""
    rng = _rng(seed)
    doc = copy.deepcopy(doc)
    ents = doc["entities"]
    sents = doc["sentences"]
    for _ in range(rounds):
        mentions = [(e, k) for e, ms in enumerate(ents) for k in range(len(ms))]
        if mentions and rng.random() < rate:                     # boundary error
            e, k = mentions[int(rng.integers(len(mentions)))]
            m = ents[e][k]
            if "." not in m["start"] and "." not in m["end"]:
                n = sents[m["sent"]]["words"]
                a, b = int(m["start"]), int(m["end"])
                if rng.random() < 0.5:
                    a = min(max(1, a + int(rng.choice([-1, 1]))), b)
                else:
                    b = max(min(n, b + int(rng.choice([-1, 1]))), a)
                m["start"], m["end"] = str(a), str(b)
                if not (a <= _key(m["head"])[0] <= b) or "." in m["head"]:
                    m["head"] = str(min(max(int(m["head"].split(".")[0]), a), b))
        if mentions and rng.random() < rate:                     # head shift
            e, k = mentions[int(rng.integers(len(mentions)))]
            m = ents[e][k]
            span = _span(sents[m["sent"]], m)
            if span:                                             # (its empty node may be gone)
                m["head"] = span[int(rng.integers(len(span)))]
        if rng.random() < rate:                                  # split an entity
            big = [e for e, ms in enumerate(ents) if len(ms) >= 2]
            if big:
                e = big[int(rng.integers(len(big)))]
                moved = [m for m in ents[e] if rng.random() < 0.5]
                if moved and len(moved) < len(ents[e]):
                    ents[e] = [m for m in ents[e] if m not in moved]
                    ents.append(moved)
        if len(ents) >= 2 and rng.random() < rate:               # merge two entities
            i, j = sorted(rng.choice(len(ents), size=2, replace=False).tolist())
            ents[i] = ents[i] + ents.pop(j)
        if mentions and rng.random() < rate:                     # drop a mention
            e = int(rng.integers(len(ents)))
            if ents[e]:
                ents[e].pop(int(rng.integers(len(ents[e]))))
        if rng.random() < rate:                                  # spurious mention
            m = _random_span(doc, rng)
            if ents and rng.random() < 0.7:
                ents[int(rng.integers(len(ents)))].append(m)
            else:
                ents.append([m, _random_span(doc, rng)])
        zeros = [(s, z) for s, sent in enumerate(sents) for z in sent["empties"]]
        if zeros and rng.random() < rate:                        # dropped zero
            s, z = zeros[int(rng.integers(len(zeros)))]
            del sents[s]["empties"][z]
        if rng.random() < rate:                                  # spurious zero
            s = int(rng.integers(len(sents)))
            i = int(rng.integers(1, sents[s]["words"] + 1))
            z = f"{i}.{1 + sum(1 for e in sents[s]['empties'] if e.startswith(f'{i}.'))}"
            sents[s]["empties"][z] = f"{i}:{rng.choice(DEPRELS)}"
            m = {"sent": s, "start": z, "end": z, "head": z}
            if ents and rng.random() < 0.8:
                ents[int(rng.integers(len(ents)))].append(m)
            else:
                ents.append([m])
        if zeros and rng.random() < rate:                        # changed zero dependencies
            s, z = zeros[int(rng.integers(len(zeros)))]
            if z in sents[s]["empties"]:
                i = int(rng.integers(1, sents[s]["words"] + 1))
                sents[s]["empties"][z] = f"{i}:{rng.choice(DEPRELS)}"
        if mentions and len(ents) >= 2 and rng.random() < rate / 2:   # repeated mention
            e, k = mentions[int(rng.integers(len(mentions)))]
            if e < len(ents) and k < len(ents[e]):
                m = dict(ents[e][k])
                span = _span(sents[m["sent"]], m)
                if span and rng.random() < 0.5:
                    m["head"] = span[int(rng.integers(len(span)))]
                other = [x for x in range(len(ents)) if x != e]
                ents[other[int(rng.integers(len(other)))]].append(m)
    return _clean(doc)


def to_corefud(docs: list[dict]) -> str:
    """Documents as one CorefUD 1.x file (``# newdoc id``, ``# global.Entity``, 10 columns,
    every word's HEAD 0, empty nodes with their DEPS)."""
    lines = []
    eid = 0
    for d in docs:
        ids = []
        for _ in d["entities"]:
            ids.append(f"e{eid}")
            eid += 1
        at: dict[tuple[int, str], tuple[list, list]] = {}
        for e, ms in zip(ids, d["entities"], strict=True):
            for m in ms:
                sent = d["sentences"][m["sent"]]
                span = _span(sent, m)
                h = span.index(m["head"]) + 1
                opening = f"({e}-x-{h}-"
                if m["start"] == m["end"]:
                    at.setdefault((m["sent"], m["start"]), ([], []))[0].append(
                        (0, 0, opening + ")"))
                else:
                    at.setdefault((m["sent"], m["start"]), ([], []))[0].append(
                        (-len(span), 1, opening))
                    at.setdefault((m["sent"], m["end"]), ([], []))[1].append(
                        (-_key(m["start"])[0], -_key(m["start"])[1], f"{e})"))
        for s, sent in enumerate(d["sentences"]):
            if s == 0:
                lines.append(f"# newdoc id = {d['name']}")
                lines.append("# global.Entity = eid-etype-head-other")
            lines.append(f"# sent_id = {d['name']}-{s + 1}")
            for node in _nodes(sent):
                opens, closes = at.get((s, node), ([], []))
                ent = "".join(c for _, _, c in sorted(closes)) + "".join(
                    c for _, _, c in sorted(opens, key=lambda t: (t[0], t[1])))
                misc = f"Entity={ent}" if ent else "_"
                if "." in node:
                    lines.append(f"{node}\tw\t_\t_\t_\t_\t_\t_\t{sent['empties'][node]}\t{misc}")
                else:
                    lines.append(f"{node}\tw{node}\t_\t_\t_\t_\t0\t_\t_\t{misc}")
            lines.append("")
    return "\n".join(lines) + "\n"


#: ``read_documents(heads=...)``: where a mention's head comes from.
HEADS = ("auto", "annotated", "tree")


def read_documents(path, heads: str = "auto") -> list[dict]:
    """The documents of a real CorefUD 1.x file (read through udapi) in this module's form:
    every sentence's number of words and its empty nodes (with their DEPS), every entity's
    mentions per document (an entity used in two documents is one per document, as the scorer
    counts it), in udapi's order.

    A mention's head is, with ``heads="annotated"``, the one the file names (udapi takes the
    first word when its ``# global.Entity`` has no ``head`` field); with ``"tree"`` the one
    udapi's ``corefud.MoveHead`` block finds (the mention's highest node in the dependency tree;
    its first candidate in word order where the mention is no treelet); ``"auto"`` (default) is
    ``"annotated"`` when the file's ``# global.Entity`` has a ``head`` field, else ``"tree"``
    (GUM's UD release names ``minspan``, no head). A discontinuous mention becomes its hull (this
    form holds spans). What :func:`to_corefud` cannot write unambiguously (crossing or repeated
    mentions of one entity) is dropped, as for generated documents: compare the mention counts
    when it matters."""
    import bisect
    import logging

    from udapi.block.corefud.movehead import MoveHead
    from udapi.block.read.conllu import Conllu
    from udapi.core.document import Document as UdapiDocument

    from ..io.text import read_text

    if heads not in HEADS:
        raise ValueError(f"unknown heads {heads!r}; choose from " + ", ".join(HEADS))
    label, text = read_text(path)
    import io

    udoc = UdapiDocument()
    Conllu(filehandle=io.StringIO(text)).apply_on_document(udoc)
    fields = str(udoc.meta.get("global.Entity", "")).split("-")
    use_tree = heads == "tree" or (heads == "auto" and "head" not in fields)
    mover = MoveHead(bugs="")
    trees = list(udoc.trees)
    index = {id(t): i for i, t in enumerate(trees)}
    docs: list[dict] = []
    first: list[int] = []
    for i, t in enumerate(trees):
        if t.newdoc or not docs:
            docs.append({"name": str(t.newdoc) if t.newdoc not in (None, True, "")
                         else f"d{len(docs) + 1}", "sentences": [], "entities": []})
            first.append(i)
        docs[-1]["sentences"].append({
            "words": len(t.descendants),
            "empties": {_ord(n): (n.raw_deps if n.raw_deps not in ("", "_") else
                                  f"{n.parent.ord if n.parent else 0}:dep")
                        for n in t.empty_nodes}})
    log = logging.getLogger()
    level = log.level
    log.setLevel(logging.ERROR)       # MoveHead's and udapi's notes on odd mentions
    try:
        entities = udoc.coref_entities
        for entity in entities:
            by_doc: dict[int, list[dict]] = {}
            for m in entity.mentions:
                words = sorted(m.words, key=lambda w: (index[id(w.root)], _key(_ord(w))))
                s = index[id(words[0].root)]
                d = bisect.bisect_right(first, s) - 1
                head = m.head
                if use_tree and len(words) > 1:
                    head = mover.find_head(m)[0]
                by_doc.setdefault(d, []).append({
                    "sent": s - first[d], "start": _ord(words[0]), "end": _ord(words[-1]),
                    "head": _ord(head)})
            for d, ms in by_doc.items():
                docs[d]["entities"].append(ms)
    finally:
        log.setLevel(level)
    return [_clean(d) for d in docs]


def _ord(node) -> str:
    """A node's CoNLL-U id as this module writes it (``"3"``, ``"5.1"``)."""
    o = node.ord
    return str(o) if isinstance(o, int) else f"{o:g}"


def synthetic_pair(seed, documents: int = 2, rate: float = 0.3) -> tuple[str, str]:
    """A key file of ``documents`` random documents and a perturbed response, as CorefUD
    text."""
    rng = _rng(seed)
    keys = [random_document(rng, f"d{i + 1}") for i in range(documents)]
    responses = [perturb(k, rng, rate) for k in keys]
    return to_corefud(keys), to_corefud(responses)
