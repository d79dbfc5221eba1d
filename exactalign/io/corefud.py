"""Reading CorefUD 1.x coreference files, as the CorefUD scorer (ufal/corefud-scorer v1.2, the
official scorer of the CRAC shared tasks) reads them.

Format
------
A CorefUD file is CoNLL-U (10 tab-separated columns per token line, sentences separated by a
blank line, ``#`` comment lines before each sentence) with the coreference annotation in the
``Entity=`` attribute of the MISC column, in the bracket notation of the CorefUD 1.0 format
(``# global.Entity = eid-etype-head-other`` names the fields; ``(e1-person-2-`` opens a mention
of entity ``e1`` whose head is its 2nd word, ``e1)`` closes it, ``(e1-person-1-)`` is a
one-word mention, ``[1/2]`` suffixes make discontinuous mentions). Documents start at
``# newdoc`` (``# newdoc id = NAME``). Empty nodes (ID ``N.M``) carry zero mentions: a mention
whose head is an empty node is a *zero*.

The file is read with **udapi** (the format's own library, what the scorer uses:
``udapi.block.read.conllu.Conllu`` and ``Document.coref_entities``), so every mention, its
words, its head and the order of entities and mentions are exactly the scorer's. This module
then groups the entities into documents as the scorer does (``CorefUDReader.split_data_to_docs``):

* a document is everything from one ``# newdoc`` to the next; its id is the newdoc's ``id`` or,
  without one, the document's number (1, 2, ...); two documents of one id are pooled into one
  (the scorer does; a warning says so);
* an entity's mentions are split by document (an entity id used in two documents is two
  clusters, as in the scorer); within a document the clusters keep udapi's entity order (by
  first mention) and each its mentions in udapi's order.

A word is identified, as in the scorer, by its position: ``(sentence number, ord)``, the
sentence numbered in the file from 1 (udapi's bundle number: sentences whose ``sent_id`` share the
part before a ``/`` are one bundle) and ``ord`` the ID column -- an int, or a float for an empty
node (udapi reads ``5.1`` as ``5.1``).

What comes out
--------------
:func:`read_corefud` returns a :class:`CorefUDFile`: its sentences (for the key/response
alignment check) and its :class:`Document` s, each with its :class:`Entity` s of
:class:`Mention` s (words, head, whether it is a zero, the head's enhanced dependencies -- what
the scorer's dependency-based zero matching compares -- and the line where it starts).
:func:`pair_corefud` checks that a key and a response are aligned as the scorer requires and
pairs their documents.

Where this reader is stricter than the scorer
---------------------------------------------
Each is one :class:`~exactalign.InputError` naming file and line where the scorer (through
udapi) raises a traceback, or goes on silently:

* a token line with more than 10 columns, whose ID is not ``N``, ``N-M`` or ``N.M``, whose
  regular-node IDs do not run
  1, 2, ... in order, a repeated empty-node ID, a HEAD that is not an integer (or ``_``) or
  points outside the sentence, a node that is its own ancestor (udapi: ``ValueError`` or a
  silent wrong tree for a negative HEAD);
* any error of the coreference annotation udapi raises (a mention closed but not opened, a
  cross-sentence mention, no ``# global.Entity`` header, ...), with the line of the node it
  names; a mention before the first ``# newdoc`` (the scorer fails with a ``TypeError``) or one
  whose words lie in two documents;
* a mention head whose DEPS column udapi cannot read (the scorer reads every head's DEPS and
  fails);
* the pairing (:func:`pair_corefud`): besides the scorer's checks (the same ``# newdoc`` and
  ``sent_id`` on every sentence, the same word forms, empty nodes excluded), the two files must
  have the same number of sentences and each sentence the same number of words (the scorer zips
  them and ignores what is left over).

udapi's warnings (e.g. a mention opened and never closed, which it deletes) are kept in
:attr:`CorefUDFile.warnings`, not printed.
"""

from __future__ import annotations

import io
import logging
import re
from dataclasses import dataclass

from ..core.errors import InputError
from .text import read_text

#: A word: (sentence number in the file, from 1; ord -- an int, a float for an empty node).
Position = tuple[int, "int | float"]

_ID = re.compile(r"[0-9]+(?:-[0-9]+|\.[0-9]+)?")
_NODE_IN_MESSAGE = re.compile(r"<([^<>,]+#[0-9.]+), ")


@dataclass(frozen=True)
class Mention:
    """One mention as the scorer sees it: ``words`` its word positions in order, ``head`` its
    head's position (udapi: the first word when the annotation gives no head), ``zero`` whether
    the head is an empty node, ``head_deps`` the head's enhanced dependencies (DEPS) as
    ``(parent position, relation)`` pairs, ``line`` the line of its first word."""

    words: tuple[Position, ...]
    head: Position
    zero: bool
    head_deps: tuple[tuple[Position, str], ...]
    line: int


@dataclass(frozen=True)
class Entity:
    """An entity (cluster) of one document: its id and its mentions in udapi's order."""

    eid: str
    mentions: tuple[Mention, ...]


@dataclass(frozen=True)
class Document:
    """One document: ``id`` the ``# newdoc id`` (its number, an int, when there is none), ``line``
    the line of its ``# newdoc``, ``entities`` in udapi's order (by first mention)."""

    id: str | int
    line: int
    entities: tuple[Entity, ...]
    path: str = ""

    @property
    def name(self) -> str:
        return str(self.id)


@dataclass(frozen=True)
class Sentence:
    """One sentence: the line of its first line, its ``sent_id`` (``None`` without one), its
    ``# newdoc`` value (``None`` when it starts no document, ``True`` for a newdoc without id)
    and the forms of its regular words (empty nodes excluded)."""

    line: int
    sent_id: str | None
    newdoc: str | bool | None
    forms: tuple[str, ...]
    word_lines: tuple[int, ...]


@dataclass(frozen=True)
class CorefUDFile:
    path: str
    sentences: tuple[Sentence, ...]
    documents: tuple[Document, ...]
    warnings: tuple[str, ...] = ()


class _Capture(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def _scan(text: str, label: str) -> list[tuple[int, list[tuple[int, list[str]]]]]:
    """The blocks udapi turns into trees -- runs of non-empty lines with at least one token
    line -- as ``(first line, [(line, fields) of token lines])``, checking what udapi would
    fail on (module docstring)."""
    blocks, cur, start = [], [], None
    lines = text.split("\n")
    for i, raw in enumerate(lines + [""], 1):
        if raw == "":
            if start is not None and cur:
                blocks.append((start, cur))
            cur, start = [], None
            continue
        if start is None:
            start = i
        if raw[0] == "#":
            continue
        fields = raw.split("\t")
        if len(fields) > 10:
            raise InputError(f"{len(fields)} tab-separated columns, CoNLL-U has 10", path=label,
                             line=i)
        fields += ["_"] * (10 - len(fields))
        if not _ID.fullmatch(fields[0]):
            raise InputError(f"ID {fields[0]!r} is not N, N-M (a multiword token) or N.M (an "
                             "empty node)", path=label, line=i)
        cur.append((i, fields))
    for _, toks in blocks:
        _check_tree(toks, label)
    return blocks


def _check_tree(toks: list[tuple[int, list[str]]], label: str) -> None:
    words = [(ln, f) for ln, f in toks if "-" not in f[0] and "." not in f[0]]
    empties: dict[float, int] = {}
    for ln, f in toks:
        if "." in f[0]:
            if float(f[0]) in empties:
                raise InputError(f"empty node {f[0]} repeats the ID of line {empties[float(f[0])]} "
                                 "(udapi reads N.1 and N.10 as one number)", path=label, line=ln)
            empties[float(f[0])] = ln
    heads = []
    for k, (ln, f) in enumerate(words, 1):
        if int(f[0]) != k:
            raise InputError(f"word ID {f[0]} where {k} is expected: the IDs of a sentence's words "
                             "run 1, 2, ... in order", path=label, line=ln)
        h = f[6]
        if h == "_":
            heads.append(0)
            continue
        if not re.fullmatch(r"[0-9]+", h) or int(h) > len(words):
            raise InputError(f"HEAD {h!r} is not a word of this sentence (0 to {len(words)})",
                             path=label, line=ln)
        heads.append(int(h))
    for k in range(1, len(words) + 1):
        seen, j = set(), k
        while j:
            if j in seen:
                raise InputError(f"word {k} is its own ancestor (a cycle through HEAD)",
                                 path=label, line=words[k - 1][0])
            seen.add(j)
            j = heads[j - 1]


def _position(node) -> Position:
    return (node.root.bundle.number, node.ord)


def read_corefud(path) -> CorefUDFile:
    """Read a CorefUD 1.x file (``"-"``: standard input) as the CorefUD scorer does (module
    docstring); :class:`InputError` with file and line on anything it cannot score."""
    label, text = read_text(path)
    blocks = _scan(text, label)
    from udapi.block.read.conllu import Conllu
    from udapi.core.document import Document as UdapiDocument

    capture = _Capture()
    root_logger = logging.getLogger()
    root_logger.addHandler(capture)
    try:
        doc = UdapiDocument()
        try:
            Conllu(filehandle=io.StringIO(text)).apply_on_document(doc)
        except Exception as e:  # udapi raises bare ValueError/IndexError on what _scan missed
            raise InputError(f"udapi cannot read this CoNLL-U file: {e}", path=label) from None
        trees = list(doc.trees)
        if len(trees) != len(blocks):  # pragma: no cover - _scan mirrors udapi's blocks
            raise InputError(f"udapi read {len(trees)} sentences where {len(blocks)} were "
                             "expected", path=label)
        line_of: dict[int, int] = {}          # id(node) -> line
        address_line: dict[str, int] = {}
        sentences = []
        for tree, (start, toks) in zip(trees, blocks, strict=True):
            by_ord = {}
            for ln, f in toks:
                if "-" not in f[0]:
                    by_ord[float(f[0]) if "." in f[0] else int(f[0])] = ln
            for node in tree.descendants_and_empty:
                ln = by_ord.get(node.ord, start)
                line_of[id(node)] = ln
                address_line[node.address()] = ln
            words = tree.descendants
            newdoc = tree.newdoc if tree.newdoc else None
            sentences.append(Sentence(start, tree.sent_id, newdoc,
                                      tuple(n.form for n in words),
                                      tuple(line_of[id(n)] for n in words)))
        try:
            entities = doc.coref_entities
        except Exception as e:
            msg = str(e)
            m = _NODE_IN_MESSAGE.search(msg)
            line = address_line.get(m.group(1)) if m else None
            if line is None and "global.Entity" in msg:
                line = next((i for i, ln in enumerate(text.split("\n"), 1)
                             if "Entity=" in ln and not ln.startswith("#")), None)
            raise InputError(f"coreference annotation udapi cannot read: {msg}", path=label,
                             line=line) from None
        documents = _documents(trees, sentences, entities, line_of, label, capture.messages)
    finally:
        root_logger.removeHandler(capture)
    return CorefUDFile(label, tuple(sentences), documents, tuple(capture.messages))


def _documents(trees, sentences, entities, line_of, label, warnings) -> tuple[Document, ...]:
    doc_of_tree: dict[int, str | int | None] = {}
    starts: dict[str | int, int] = {}
    number, current = 0, None
    for tree, sent in zip(trees, sentences, strict=True):
        if tree.newdoc:
            number += 1
            current = tree.newdoc if tree.newdoc is not True else number
            if current in starts:
                warnings.append(f"document {current!r} starts again at line {sent.line}: its "
                                "mentions are pooled with the earlier one's (as the CorefUD "
                                "scorer does)")
            starts.setdefault(current, sent.line)
        doc_of_tree[id(tree)] = current
    clusters: dict[str | int, dict[str, list[Mention]]] = {d: {} for d in starts}
    for entity in entities:
        for m in entity.mentions:
            line = line_of.get(id(m.words[0]), 0)
            docs = {doc_of_tree[id(w.root)] for w in m.words}
            if len(docs) > 1:
                raise InputError(f"a mention of entity {entity.eid} has words in two documents",
                                 path=label, line=line)
            (d,) = docs
            if d is None:
                raise InputError(f"a mention of entity {entity.eid} comes before the first "
                                 "'# newdoc' line: it belongs to no document (the CorefUD "
                                 "scorer fails on it)", path=label, line=line)
            head = m.head
            try:
                deps = tuple((_position(dep["parent"]), dep["deprel"]) for dep in head.deps)
            except Exception as e:
                raise InputError(f"DEPS of the head of a mention of entity {entity.eid} "
                                 f"cannot be read: {e}", path=label,
                                 line=line_of.get(id(head), line)) from None
            mention = Mention(tuple(sorted(_position(w) for w in m.words)), _position(head),
                              head.is_empty(), deps, line)
            clusters[d].setdefault(entity.eid, []).append(mention)
    return tuple(Document(d, starts[d], tuple(Entity(eid, tuple(ms))
                                              for eid, ms in clusters[d].items()), label)
                 for d in starts)


def pair_corefud(key: CorefUDFile, response: CorefUDFile) -> list[tuple[Document, Document]]:
    """Check that ``key`` and ``response`` are aligned as the CorefUD scorer requires (the same
    ``# newdoc`` and ``sent_id`` on every sentence, the same word forms; empty nodes may differ)
    -- and, stricter, as many sentences and words -- and pair their documents in key order."""
    ks, rs = key.sentences, response.sentences
    for k, r in zip(ks, rs, strict=False):
        if k.newdoc != r.newdoc:
            raise InputError(f"'# newdoc' differs from the key's ({_nd(k.newdoc)} in the key at "
                             f"{key.path}:{k.line}, {_nd(r.newdoc)} here): key and response must "
                             "have the same documents", path=response.path, line=r.line)
        if k.sent_id != r.sent_id:
            raise InputError(f"sent_id {r.sent_id!r} where the key has {k.sent_id!r} "
                             f"({key.path}:{k.line})", path=response.path, line=r.line)
        for i, (a, b) in enumerate(zip(k.forms, r.forms, strict=False)):
            if a != b:
                raise InputError(f"word {i + 1} is {b!r} where the key has {a!r} "
                                 f"({key.path}:{k.word_lines[i]}): key and response must have "
                                 "the same words", path=response.path, line=r.word_lines[i])
        if len(k.forms) != len(r.forms):
            raise InputError(f"sentence {r.sent_id!r} has {len(r.forms)} words, the key's "
                             f"{len(k.forms)} ({key.path}:{k.line})", path=response.path,
                             line=r.line)
    if len(ks) != len(rs):
        raise InputError(f"{len(rs)} sentences where the key has {len(ks)}: key and response "
                         "must have the same sentences", path=response.path,
                         line=(rs[len(ks)].line if len(rs) > len(ks) else None))
    by_id = {d.id: d for d in response.documents}
    return [(d, by_id[d.id]) for d in key.documents]


def _nd(v) -> str:
    return "none" if v is None else ("'# newdoc'" if v is True else f"'# newdoc id = {v}'")
