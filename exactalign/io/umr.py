"""Reading UMR files (Uniform Meaning Representation, UMR 1.0-3.0 release format).

A UMR file is a sequence of sentence *blocks*, separated by a line of ``#`` characters (five or
more) or by two or more blank lines. A block holds, in this order:

* a header: meta lines (``# meta-info ...``, ``# :: snt3`` -- possibly followed on the same line
  by the sentence's text, as in AnCast's samples), and the ``Index:`` / ``Words:`` lines of the
  tokenised sentence (when present);
* ``# sentence level graph:`` and the sentence's graph in PENMAN notation (parsed by ``penman``);
* ``# alignment:`` and one line ``variable: i-j`` per variable (1-based token spans, ``0-0``: no
  token; several spans separated by commas, ``7-7, 9-9``);
* ``# document level annotation:`` and the document-level graph of the sentence,
  ``(s1s0 / sentence :temporal ((a :before b) ...) :modal (...) :coref (...))``: lists of
  ``(head :relation tail)`` triples, whose heads and tails are variables of this or an earlier
  sentence, or constants (``author``, ``root``, ``document-creation-time``, ...).

A file is one document (as AnCast's ``--scope doc`` reads it) unless its sentence numbers
restart (``snt1`` again: :func:`document_starts`), as in the pilot's ``gold_total_1-5.umr``,
five documents in one file. An AMR file (blocks of
PENMAN separated by blank lines, ``# ::snt`` metadata, no ``# sentence level graph:`` line) is
read by the same :func:`read_umr` as blocks with a graph and nothing else.

Every problem is one :class:`~exactalign.core.errors.InputError` naming the file and the line:
a block without a graph, a graph ``penman`` cannot parse or with text after it, a variable
defined twice, an alignment line that is not ``var: i-j``, a span outside the sentence's
tokens or naming a variable the graph does not define, a document-level annotation that is not
a list of ``(head :relation tail)`` triples or that names a variable no sentence so far defines.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..core.errors import InputError
from .text import read_text

_SEPARATOR = re.compile(r"^#{5,}\s*$")
_SNT = re.compile(r"^#\s*::\s*snt(\d+)\b[ \t]*(.*)$")
_AMR_SNT = re.compile(r"^#\s*::snt\s(.*)$")
_SPAN = re.compile(r"^(\d+)-(\d+)$")
#: a token of the document-level annotation: a parenthesis, or a run of other non-space text
_DOC_TOKEN = re.compile(r'[()]|"[^"]*"|[^\s()]+')
#: the three lists a document-level annotation holds (AnCast reads these, in this order)
DOC_KINDS = ("temporal", "modal", "coref")
SECTIONS = {"sentence level graph": "graph", "alignment": "alignment",
            "document level annotation": "doc"}


class UmrSentence(NamedTuple):
    """One sentence block.

    ``tree``: the sentence graph as :class:`penman.Tree`; ``variables``: its variables in the
    order their nodes open; ``words``: the tokens (``Words:`` line, else the text after
    ``# :: sntN`` split on whitespace); ``alignment``: ``variable -> ((i, j), ...)`` as written
    (``0-0`` kept); ``doc``: ``(kind, head, relation, tail, line)`` per document-level triple,
    ``kind`` in :data:`DOC_KINDS`, ``relation`` without its colon. ``*_line``: 1-based lines
    (0 when the section is absent)."""

    index: int
    line: int
    text: str
    words: tuple
    tree: object
    variables: tuple
    graph_line: int
    alignment: dict
    alignment_line: int
    doc: tuple
    doc_line: int
    graph_text: str = ""
    #: repaired defects (:class:`InputError`, file and line), for the command to print
    warnings: tuple = ()
    #: the N of ``# :: sntN`` (0 when absent): where it restarts, a new document begins
    number: int = 0


class UmrDocument(NamedTuple):
    """A UMR file: its sentences, in order, and whether it was read as AMR (no sections)."""

    path: str
    sentences: tuple
    amr: bool = False

    @property
    def warnings(self) -> tuple:
        """Every repaired defect of the file (:attr:`UmrSentence.warnings`)."""
        return tuple(w for s in self.sentences for w in s.warnings)


def _blocks(lines):
    """``[(line number, text), ...]`` of every non-empty block: split at the lines of ``#``
    when the file has any (UMR releases, whose blocks may hold two blank lines in a row), else
    at two blank lines (AnCast's samples)."""
    separators = any(_SEPARATOR.match(ln.strip()) for ln in lines)
    cur, blanks = [], 0
    for no, raw in enumerate(lines, start=1):
        s = raw.rstrip("\r\n")
        if _SEPARATOR.match(s.strip()) or (not separators and not s.strip() and blanks >= 1
                                           and cur):
            if any(t.strip() for _, t in cur):
                yield cur
            cur, blanks = [], 0
            continue
        if not s.strip():
            blanks += 1
            cur.append((no, s))
            continue
        blanks = 0
        cur.append((no, s))
    if any(t.strip() for _, t in cur):
        yield cur


def _amr_blocks(lines):
    """AMR: blocks of non-blank lines separated by blank lines."""
    cur = []
    for no, raw in enumerate(lines, start=1):
        if raw.strip():
            cur.append((no, raw.rstrip("\r\n")))
        elif cur:
            yield cur
            cur = []
    if cur:
        yield cur


def parse_tree(text: str, *, path, line):
    """The :class:`penman.Tree` of one PENMAN graph; an error, or text after the graph, is an
    :class:`InputError` at ``path:line``."""
    import penman
    from penman.exceptions import PenmanError

    from .amr import after_graph

    hidden = "#" in text
    if hidden:  # a '#' inside a graph is text (Czech UMR's '#Rcp'), not penman's comment
        text = text.replace("#", _HASH)
    try:
        trees = list(penman.iterparse(text))
    except RecursionError:
        raise InputError("unreadable graph: nodes nested too deeply", path=path,
                         line=line) from None
    except PenmanError as e:
        msg = getattr(e, "message", None) or " ".join(str(e).split())
        lno = line
        offset = getattr(e, "offset", None)
        if isinstance(offset, int) and 0 <= offset <= len(text) and line is not None:
            lno = line + text.count("\n", 0, offset)
        raise InputError(f"unparsable graph: {msg}", path=path, line=lno) from None
    if not trees or not text.lstrip().startswith("("):
        raise InputError(f"not a graph (a graph starts with '('): {text.strip()[:40]!r}",
                         path=path, line=line)
    rest = after_graph(text)
    if rest:
        raise InputError(f"text after the graph's closing parenthesis: "
                         f"{rest[:40].replace(_HASH, '#')!r} (an unbalanced ')'?)", path=path,
                         line=line)
    return penman.Tree(_unhide(trees[0].node)) if hidden else trees[0]


#: What a '#' inside a graph is read as by penman (a private-use character), and restored.
_HASH = "\ue023"


def _unhide(node):
    var, branches = node
    return (var.replace(_HASH, "#"),
            [(role.replace(_HASH, "#"), _unhide(t) if isinstance(t, tuple) else
              None if t is None else t.replace(_HASH, "#")) for role, t in branches])


def tree_variables(tree, *, path, line) -> tuple:
    """The variables of ``tree`` in the order their nodes open (a variable defined twice, or a
    node without a concept, is an error)."""
    seen: dict = {}
    todo = [tree.node]
    while todo:
        var, branches = todo.pop()
        if var in seen:
            raise InputError(f"variable {var!r} is defined twice", path=path, line=line)
        seen[var] = True
        if not any(role == "/" and t is not None for role, t in branches):
            raise InputError(f"variable {var!r} has no concept", path=path, line=line)
        todo.extend(reversed([t for _, t in branches if isinstance(t, tuple)]))
    return tuple(seen)


def _parse_alignment(rows, variables, n_words, *, path, warnings: list) -> dict:
    out: dict = {}
    known = set(variables)
    for no, s in rows:
        if not s.strip() or s.lstrip().startswith("#"):
            continue
        var, colon, spans = s.partition(":")
        var = var.strip()
        if not colon or not var:
            raise InputError(f"an alignment line is 'variable: i-j', not {s.strip()!r}",
                             path=path, line=no)
        if var not in known:
            # AnCast's own test sample aligns one: ignored (as AnCast ignores it), and said
            warnings.append(InputError(f"alignment of {var!r}, which the sentence graph does "
                                       "not define; ignored", path=path, line=no))
            continue
        if var in out:
            raise InputError(f"{var!r} is aligned twice", path=path, line=no)
        got = []
        for part in spans.split(","):
            if part.strip() == "-1--1":  # the English and Sanapana releases' "no token"
                got.append((0, 0))
                continue
            m = _SPAN.match(part.strip())
            if not m:
                raise InputError(f"an alignment span is 'i-j' (token numbers), not "
                                 f"{part.strip()!r}", path=path, line=no)
            i, j = int(m.group(1)), int(m.group(2))
            if (i == 0) != (j == 0) or i > j or (n_words and j > n_words):
                raise InputError(f"alignment span {i}-{j} of {var!r} is outside the sentence's "
                                 f"{n_words} tokens" if n_words and j > n_words else
                                 f"alignment span {i}-{j} of {var!r} is not a span (i <= j, "
                                 "0-0 for none)", path=path, line=no)
            got.append((i, j))
        out[var] = tuple(got)
    return out


def _parse_doc(rows, *, path, warnings: list) -> tuple:
    """``(kind, head, relation, tail, line)`` of a document-level annotation; a repaired
    defect is appended to ``warnings`` (an :class:`InputError` naming its line)."""
    toks = []
    for no, s in rows:
        if s.lstrip().startswith("#"):
            continue
        toks += [(m.group(), no) for m in _DOC_TOKEN.finditer(s)]
    if not toks:
        return ()
    pos = 0

    def take(what):
        nonlocal pos
        if pos >= len(toks):
            raise InputError(f"document-level annotation ends where {what} was expected",
                             path=path, line=toks[-1][1])
        pos += 1
        return toks[pos - 1]

    def expect(tok):
        t, no = take(repr(tok))
        if t != tok:
            raise InputError(f"document-level annotation: expected {tok!r}, found {t!r}",
                             path=path, line=no)

    expect("(")
    take("the sentence variable")
    expect("/")
    take("the concept 'sentence'")
    out, debt = [], 0
    while True:
        t, no = take("')' or ':temporal', ':modal', ':coref'")
        if t == ")":
            if debt and pos < len(toks):  # the parenthesis an unclosed triple lacked
                debt -= 1
                continue
            break
        kind = t[1:] if t.startswith(":") else ""
        if kind not in DOC_KINDS:
            raise InputError(f"document-level annotation: expected :temporal, :modal or :coref,"
                             f" found {t!r}", path=path, line=no)
        expect("(")
        while True:
            t, no = take("'(' or ')'")
            if t == ")":
                break
            if t != "(" and t not in "()" and not t.startswith(":") and pos < len(toks):
                # a stray word between triples (the English gold has two): skipped, and said
                warnings.append(InputError(f"document-level :{kind}: {t!r} between triples, "
                                           "skipped", path=path, line=no))
                continue
            if t != "(":
                raise InputError(f"document-level :{kind} holds (head :relation tail) triples; "
                                 f"found {t!r}", path=path, line=no)
            head, _ = take("a head")
            rel, rno = take("a relation")
            tail, _ = take("a tail")
            if not rel.startswith(":") or head in "()" or tail in "()" or len(rel) < 2:
                raise InputError(f"document-level :{kind}: not a (head :relation tail) triple "
                                 f"at {head!r} {rel!r} {tail!r}", path=path, line=rno)
            if pos < len(toks) and toks[pos][0] == "(":
                # a triple left unclosed before the next one opens (the UMR 2.0/3.0 English
                # gold has one): read as closed, and said (AnCast's pattern drops the list)
                warnings.append(InputError(f"document-level :{kind} triple ({head} {rel} "
                                           f"{tail} is not closed; read as closed", path=path,
                                           line=rno))
                debt += 1
            else:
                expect(")")
            out.append((kind, head, rel[1:], tail, no))
    if pos != len(toks):
        raise InputError(f"text after the document-level annotation: {toks[pos][0]!r}",
                         path=path, line=toks[pos][1])
    return tuple(out)


def _umr_sentence(block, index, *, path, n_amr: bool = False) -> UmrSentence:
    sections: dict = {"head": []}
    cur = "head"
    heads = {}
    for no, s in block:
        st = s.strip()
        if st.startswith("#"):
            name = st.lstrip("#").strip().rstrip(":").strip().lower()
            if name in SECTIONS:
                cur = SECTIONS[name]
                if cur in heads:
                    raise InputError(f"a second '# {name}:' section in one block", path=path,
                                     line=no)
                heads[cur] = no
                sections[cur] = []
                continue
        sections[cur].append((no, s))
    start = block[0][0]
    if "graph" not in sections:
        raise InputError(f"sentence block {index} has no '# sentence level graph:' section",
                         path=path, line=start)
    text, words, number = "", None, 0
    for _, s in sections["head"]:
        st = s.strip()
        m = _SNT.match(st)
        if m:
            number, text = int(m.group(1)), m.group(2).strip()
        elif st.startswith("Words:"):
            words = tuple(st[len("Words:"):].split())
    if words is None:
        words = tuple(text.split())
    elif not text:
        text = " ".join(words)
    rows = [(no, s) for no, s in sections["graph"] if not s.strip().startswith("#")]
    glines = [r for r in rows if r[1].strip()]
    if not glines:
        raise InputError(f"sentence block {index}: the sentence level graph is empty",
                         path=path, line=heads["graph"])
    gline = glines[0][0]
    gtext = "\n".join(s for _, s in rows)
    tree = parse_tree(gtext.strip(), path=path, line=gline)
    variables = tree_variables(tree, path=path, line=gline)
    warnings: list = []
    alignment = _parse_alignment(sections.get("alignment", ()), variables, len(words),
                                 path=path, warnings=warnings)
    doc = _parse_doc(sections.get("doc", ()), path=path, warnings=warnings)
    return UmrSentence(index, start, text, words, tree, variables, gline, alignment,
                       heads.get("alignment", 0), doc, heads.get("doc", 0), gtext.strip(),
                       tuple(warnings), number)


def _amr_sentence(block, index, *, path) -> UmrSentence:
    text = ""
    rows = []
    for no, s in block:
        st = s.strip()
        if st.startswith("#"):
            m = _AMR_SNT.match(st)
            if m:
                text = m.group(1).strip()
            continue
        rows.append((no, s))
    gline = rows[0][0]
    gtext = "\n".join(s for _, s in rows)
    tree = parse_tree(gtext, path=path, line=gline)
    variables = tree_variables(tree, path=path, line=gline)
    return UmrSentence(index, block[0][0], text, tuple(text.split()), tree, variables, gline,
                       {}, 0, (), 0, gtext.strip())


def parse_umr(text: str, path: str = "<string>") -> UmrDocument:
    """The sentences of UMR (or AMR) text; see the module docstring. Document-level triples
    must name variables of their sentence or an earlier one (or constants: a name that is not
    the variable of any sentence and does not look like one, ``s<N><letters><digits>``)."""
    lines = text.splitlines()
    is_umr = any(ln.lstrip("#").strip().rstrip(":").strip().lower() in SECTIONS
                 for ln in lines if ln.lstrip().startswith("#"))
    sentences = []
    if is_umr:
        for block in _blocks(lines):
            content = [(no, s) for no, s in block if s.strip()]
            if all(s.strip().startswith("#") for _, s in content) and not any(
                    SECTIONS.get(s.lstrip("#").strip().rstrip(":").strip().lower())
                    for _, s in content):
                continue  # a comment-only block (a file header)
            sentences.append(_umr_sentence(content, len(sentences) + 1, path=path))
        late = _check_doc_variables(sentences, path)
        if late:
            first = sentences[0]
            sentences[0] = first._replace(warnings=first.warnings + tuple(late))
    else:
        for block in _amr_blocks(lines):
            if all(s.strip().startswith("#") for _, s in block):
                continue
            sentences.append(_amr_sentence(block, len(sentences) + 1, path=path))
    return UmrDocument(path, tuple(sentences), not is_umr)


_VARLIKE = re.compile(r"^s\d+[a-z]+\d*$")


def _check_doc_variables(sentences, path) -> list:
    """An error for a document-level triple naming a variable no sentence defines (and looking
    like one); a warning for one naming a variable of a later sentence (the releases have a
    few; the triple is kept: variables are named once per document)."""
    known: set = set()
    everywhere = {v for s in sentences for v in s.variables}
    warnings = []
    for s in sentences:
        known.update(s.variables)
        for kind, head, _rel, tail, no in s.doc:
            for v in (head, tail):
                if v in known:
                    continue
                if v in everywhere:
                    warnings.append(InputError(f"document-level :{kind} names {v!r} before "
                                               "the sentence that defines it; kept",
                                               path=path, line=no))
                    continue
                if _VARLIKE.match(v):
                    raise InputError(f"document-level :{kind} names {v!r}, which no sentence "
                                     "graph defines", path=path, line=no)
    return warnings


def document_starts(*docs) -> list[int]:
    """The sentence positions where a document starts, in files holding several (the pilot's
    ``gold_total_1-5.umr`` is five documents, each numbering its sentences from ``snt1``): 0,
    and every sentence whose number does not exceed the one before it in any of ``docs``
    (files of the same sentences: a pair is cut where either restarts)."""
    starts = {0}
    for doc in docs:
        for k in range(1, len(doc.sentences)):
            a, b = doc.sentences[k - 1].number, doc.sentences[k].number
            if a and b and b <= a:
                starts.add(k)
    return sorted(starts)


def split_documents(doc: UmrDocument, starts: list[int]) -> list[UmrDocument]:
    """``doc`` cut at the sentence positions ``starts`` (:func:`document_starts`)."""
    ends = [*starts[1:], len(doc.sentences)]
    return [doc._replace(sentences=doc.sentences[a:b]) for a, b in zip(starts, ends,
                                                                       strict=True)]


def check_unique_variables(doc: UmrDocument) -> None:
    """An :class:`InputError` (file, line of the second sentence's graph) when two sentences
    of ``doc`` define the same variable: the document level names variables across sentences,
    so a document needs them apart (Kukama's UMR 3.0 file 2 defines ``s17a`` in sentences 16
    and 17)."""
    seen: dict = {}
    for s in doc.sentences:
        for v in s.variables:
            first = seen.setdefault(v, s)
            if first is not s:
                raise InputError(f"variable {v!r} is defined in sentence {first.index} (line "
                                 f"{first.graph_line}) and again in sentence {s.index}: a "
                                 "document needs its variables apart", path=doc.path,
                                 line=s.graph_line)


def read_umr(path) -> UmrDocument:
    """Every sentence of a UMR (or AMR) file (``"-"``: standard input)."""
    label, text = read_text(path)
    return parse_umr(text, label)


def read_pair(test_path, gold_path) -> tuple[UmrDocument, UmrDocument]:
    """The test and gold documents; different sentence counts are an :class:`InputError`."""
    test, gold = read_umr(test_path), read_umr(gold_path)
    if not test.sentences and not gold.sentences:
        raise InputError("no sentence graph in the file, nor in the gold file: nothing to score",
                         path=test.path)
    if len(test.sentences) != len(gold.sentences):
        raise InputError(f"{len(test.sentences)} sentences here but {len(gold.sentences)} in "
                         f"{gold.path}: the files must hold the same sentences", path=test.path)
    return test, gold


def format_sentence(index: int, text: str, graph: str, alignment: dict, doc: tuple) -> str:
    """One sentence block as AnCast's samples write it (read back by :func:`parse_umr`, and by
    AnCast at both scopes): ``# :: sntN`` and the text, the three sections, the alignment one
    ``variable: i-j[, k-l]`` line per variable, the document-level triples ``(kind, head,
    relation, tail, ...)`` one per line under their kind."""
    lines = [f"# :: snt{index}\t{text}", "", "# sentence level graph:", graph.strip(), "",
             "# alignment:"]
    for var, spans in alignment.items():
        lines.append(f"{var}: " + ", ".join(f"{i}-{j}" for i, j in spans))
    lines += ["", "# document level annotation:"]
    by_kind: dict = {}
    for t in doc:
        by_kind.setdefault(t[0], []).append(t)
    parts = [f"(s{index}s0 / sentence"]
    for kind in DOC_KINDS:
        triples = by_kind.get(kind)
        if not triples:
            continue
        body = "\n            ".join(f"({h} :{r} {t})" for _, h, r, t, *_ in triples)
        parts.append(f"    :{kind} ({body})")
    lines.append("\n".join(parts) + ")")
    return "\n".join(lines) + "\n"


def format_document(blocks) -> str:
    """Sentence blocks (:func:`format_sentence`) joined by two blank lines, as AnCast splits
    them."""
    return "\n\n".join(b.rstrip("\n") + "\n" for b in blocks)
