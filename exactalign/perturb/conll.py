"""Seeded CoNLL-2012 documents **with parse trees** and realistic system errors on them, written
as CoNLL-2012 text (:func:`synthetic_pair`): what the tests of coval's options (``NP_only``,
``min_span``, ``remove_nested``, ``remove_singletons``) score, since no pilot file has a parse
column.

A sentence is a random constituency tree from a small English-like grammar -- noun phrases with
determiners, adjectives, possessives, flat proper names, numbers and percentages (``QP``),
``NML`` modifiers, coordination, PP and relative-clause (``SBAR``/``WHNP``) attachments,
parentheses and commas; clauses with ``VP``\\ s, PPs and ``that``-clauses -- written as the
CoNLL-2012 columns (document, part, position, word, part of speech, parse bit, then ``-``
columns, then the coreference column). The key's mentions are noun phrases (nested ones
included) and some verb phrases, grouped into entities (singletons included); within one entity
two mentions are nested or disjoint, as the CoNLL column can only say so.

:func:`perturb` applies, each with probability ``rate``: dropped mentions, spurious mentions
(constituents or arbitrary spans), boundary errors (a word more or less at either end, within
the sentence), a mention's head noun phrase added to its entity (same minimum span), mentions
moved to another entity, split and merged entities.
"""

from __future__ import annotations

import numpy as np

LEXICON = {
    "DT": ("the", "a", "this", "that", "those", "some", "every"),
    "NN": ("man", "report", "company", "court", "plan", "city", "year", "deal"),
    "NNS": ("shares", "officials", "talks", "people", "1990s"),
    "NNP": ("Gao", "Smith", "U.S.", "Taiwan", "Boeing", "Monday"),
    "PRP": ("he", "she", "it", "they", "we"),
    "PRP$": ("his", "her", "its", "their"),
    "JJ": ("new", "former", "big", "local", "top"),
    "CD": ("3", "1990", "two", "12.5"),
    "IN": ("of", "in", "for", "with", "on"),
    "CC": ("and", "or", "but"),
    "VBD": ("said", "made", "saw", "approved", "left"),
    "VBZ": ("is", "says", "has"),
    "WDT": ("which", "that"),
    "WP": ("who",),
    "RB": ("also", "not", "quickly"),
    "POS": ("'s",),
}


class _T:
    """A tree node: ``label`` a phrase tag, or a part of speech with ``word`` for a leaf."""

    __slots__ = ("label", "word", "children")

    def __init__(self, label, children=(), word=None):
        self.label, self.children, self.word = label, list(children), word


def _leaf(rng, pos):
    return _T(pos, word=str(rng.choice(LEXICON[pos])))


def _np(rng, depth):
    r = rng.random()
    if depth > 2 or r < 0.3:
        kind = rng.choice(["dt_nn", "prp", "nnp", "dt_jj_nn", "cd_nns", "pct", "dem"])
        if kind == "dt_nn":
            return _T("NP", [_leaf(rng, "DT"), _leaf(rng, "NN")])
        if kind == "prp":
            return _T("NP", [_leaf(rng, "PRP")])
        if kind == "nnp":
            return _T("NP", [_leaf(rng, "NNP") for _ in range(int(rng.integers(1, 3)))])
        if kind == "dt_jj_nn":
            return _T("NP", [_leaf(rng, "DT"), _leaf(rng, "JJ"), _leaf(rng, "NN")])
        if kind == "cd_nns":
            return _T("NP", [_leaf(rng, "CD"), _leaf(rng, "NNS")])
        if kind == "pct":
            return _T("NP", [_T("QP", [_leaf(rng, "CD"), _T("NN", word="%")])])
        return _T("NP", [_leaf(rng, "DT")])            # "that" alone: no valid terminal
    if r < 0.45:
        return _T("NP", [_np(rng, depth + 1), _T("PP", [_leaf(rng, "IN"), _np(rng, depth + 1)])])
    if r < 0.55:
        rel = _T("WHNP", [_leaf(rng, "WDT" if rng.random() < 0.5 else "WP")])
        return _T("NP", [_np(rng, depth + 1),
                         _T("SBAR", [rel, _T("S", [_vp(rng, depth + 1)])])])
    if r < 0.65:
        return _T("NP", [_np(rng, depth + 1), _leaf(rng, "CC"), _np(rng, depth + 1)])
    if r < 0.72:
        poss = _T("NP", [_leaf(rng, "NNP"), _leaf(rng, "POS")])
        return _T("NP", [poss, _leaf(rng, "NN")])
    if r < 0.8:
        return _T("NP", [_leaf(rng, "PRP$"), _leaf(rng, "NN")])
    if r < 0.86:
        return _T("NP", [_leaf(rng, "DT"), _T("NML", [_leaf(rng, "NNP"), _leaf(rng, "NNP")]),
                         _leaf(rng, "NN")])
    if r < 0.92:
        return _T("NP", [_np(rng, depth + 1), _T(",", word=","), _np(rng, depth + 1),
                         _T(",", word=",")])
    return _T("NP", [_np(rng, depth + 1), _T("-LRB-", word="-LRB-"), _np(rng, depth + 1),
                     _T("-RRB-", word="-RRB-")])


def _vp(rng, depth):
    r = rng.random()
    verb = _leaf(rng, "VBD" if rng.random() < 0.7 else "VBZ")
    if depth > 2 or r < 0.35:
        return _T("VP", [verb, _np(rng, depth + 1)])
    if r < 0.55:
        return _T("VP", [verb, _np(rng, depth + 1),
                         _T("PP", [_leaf(rng, "IN"), _np(rng, depth + 1)])])
    if r < 0.7:
        return _T("VP", [_leaf(rng, "RB"), _T("VP", [verb, _np(rng, depth + 1)])])
    if r < 0.85:
        return _T("VP", [verb, _T("SBAR", [_T("IN", word="that"),
                                            _T("S", [_np(rng, depth + 1), _vp(rng, depth + 1)])])])
    return _T("VP", [_T("VP", [verb, _np(rng, depth + 1)]), _leaf(rng, "CC"),
                     _T("VP", [_leaf(rng, "VBD"), _np(rng, depth + 1)])])


def random_sentence(rng) -> _T:
    return _T("TOP", [_T("S", [_np(rng, 0), _vp(rng, 0), _T(".", word=".")])])


def _layout(tree: _T):
    """Leaves ``(word, pos)``, parse bits, and every phrase as ``(label, first, last)``."""
    leaves, opens, closes, phrases = [], [], [], []

    def walk(t):
        if t.word is not None:
            leaves.append((t.word, t.label))
            opens.append("")
            closes.append(0)
            return len(leaves) - 1, len(leaves) - 1
        first = last = None
        for c in t.children:
            a, b = walk(c)
            first = a if first is None else first
            last = b
        opens[first] = f"({t.label}" + opens[first]
        closes[last] += 1
        phrases.append((t.label, first, last))
        return first, last

    walk(tree)
    bits = [o + "*" + ")" * c for o, c in zip(opens, closes, strict=True)]
    return leaves, bits, phrases


def _nested_or_disjoint(a, b) -> bool:
    (s1, x1, y1), (s2, x2, y2) = a, b
    if s1 != s2:
        return True
    return y1 < x2 or y2 < x1 or (x1 <= x2 and y2 <= y1) or (x2 <= x1 and y1 <= y2)


def _fits(entity, m) -> bool:
    return all(_nested_or_disjoint(m, x) and m != x for x in entity)


def random_document(seed, name: str = "d1", *, sentences: tuple[int, int] = (2, 5)) -> dict:
    """A document: ``{"name", "sentences": [(leaves, bits, phrases)], "entities": [[(sentence,
    first, last), ...]]}`` -- positions within the sentence."""
    rng = np.random.default_rng(seed) if not isinstance(seed, np.random.Generator) else seed
    sents = [_layout(random_sentence(rng))
             for _ in range(int(rng.integers(sentences[0], sentences[1] + 1)))]
    candidates = []
    for s, (_, _, phrases) in enumerate(sents):
        for label, a, b in phrases:
            if label == "NP" and rng.random() < 0.7:
                candidates.append((s, a, b))
            elif label == "VP" and rng.random() < 0.15:
                candidates.append((s, a, b))
    rng.shuffle(candidates)
    entities: list[list] = []
    for m in candidates:
        options = [e for e in entities if _fits(e, m)]
        if options and rng.random() < 0.6:
            options[int(rng.integers(len(options)))].append(m)
        else:
            entities.append([m])
    return {"name": name, "sentences": sents, "entities": entities}


def _random_span(doc, rng):
    s = int(rng.integers(len(doc["sentences"])))
    n = len(doc["sentences"][s][0])
    a = int(rng.integers(n))
    return (s, a, int(min(n - 1, a + rng.integers(0, 4))))


def perturb(doc: dict, seed, rate: float = 0.3) -> dict:
    """A system's output for ``doc``: each error applied with probability ``rate`` per mention
    or entity (see the module docstring)."""
    rng = np.random.default_rng(seed) if not isinstance(seed, np.random.Generator) else seed
    ents = [list(e) for e in doc["entities"]]
    out: list[list] = []
    for e in ents:
        new = []
        for m in e:
            if rng.random() < rate / 2:
                continue                                   # dropped
            s, a, b = m
            n = len(doc["sentences"][s][0])
            if rng.random() < rate / 2:                    # boundary error
                a = int(np.clip(a + rng.choice([-1, 1]), 0, b))
            if rng.random() < rate / 2:
                b = int(np.clip(b + rng.choice([-1, 1]), a, n - 1))
            new.append((s, a, b))
            if rng.random() < rate / 3:                    # the head NP too
                inner = [(s, x, y) for lab, x, y in doc["sentences"][s][2]
                         if lab == "NP" and a <= x and y <= b and (x, y) != (a, b)]
                if inner:
                    new.append(inner[int(rng.integers(len(inner)))])
        if len(new) > 2 and rng.random() < rate:           # split
            k = int(rng.integers(1, len(new)))
            out.extend([new[:k], new[k:]])
        elif new:
            out.append(new)
    if len(out) > 1 and rng.random() < rate:               # merge
        i, j = sorted(rng.choice(len(out), 2, replace=False).tolist())
        out[i] += out.pop(j)
    for e in out:                                          # move a mention
        if len(e) > 1 and len(out) > 1 and rng.random() < rate / 2:
            m = e.pop(int(rng.integers(len(e))))
            out[int(rng.integers(len(out)))].append(m)
    for _ in range(int(rng.poisson(rate * 3))):            # spurious
        if rng.random() < 0.5:
            s = int(rng.integers(len(doc["sentences"])))
            phrases = doc["sentences"][s][2]
            lab, a, b = phrases[int(rng.integers(len(phrases)))]
            m = (s, a, b)
        else:
            m = _random_span(doc, rng)
        if out and rng.random() < 0.5:
            out[int(rng.integers(len(out)))].append(m)
        else:
            out.append([m])
    clean: list[list] = []       # keep what the CoNLL column can say
    for e in out:
        kept: list = []
        for m in e:
            if _fits(kept, m):
                kept.append(m)
        if kept:
            clean.append(kept)
    return {"name": doc["name"], "sentences": doc["sentences"], "entities": clean}


def to_conll(docs: list[dict]) -> str:
    """The documents as one CoNLL-2012 file (12 columns; entity ``i`` written as ``i``)."""
    out = []
    for doc in docs:
        out.append(f"#begin document ({doc['name']}); part 000")
        for s, (leaves, bits, _) in enumerate(doc["sentences"]):
            cols = [[] for _ in leaves]
            for eid, ent in enumerate(doc["entities"]):
                for (ms, a, b) in ent:
                    if ms != s:
                        continue
                    if a == b:
                        cols[a].append(f"({eid})")
                    else:
                        cols[a].append(f"({eid}")
                        cols[b].append(f"{eid})")
            for i, ((word, pos), bit) in enumerate(zip(leaves, bits, strict=True)):
                coref = "|".join(cols[i]) or "-"
                out.append("\t".join([doc["name"], "0", str(i), word, pos, bit, "-", "-", "-",
                                      "Speaker#1", "*", coref]))
            out.append("")
        out.append("#end document")
    return "\n".join(out) + "\n"


def synthetic_pair(seed, documents: int = 2, rate: float = 0.3) -> tuple[str, str]:
    """A key and a response file (CoNLL-2012 text with parse bits): ``documents`` random
    documents and their perturbed copies, all from ``seed``."""
    rng = np.random.default_rng(seed)
    keys = [random_document(rng, f"doc{i}") for i in range(documents)]
    resps = [perturb(d, rng, rate) for d in keys]
    return to_conll(keys), to_conll(resps)
