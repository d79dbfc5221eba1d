"""Reading AMR graphs (PENMAN notation) into the triples ``smatch`` 1.0.4 builds.

The text is parsed by the ``penman`` library (:func:`penman.parse`, which keeps every symbol as
written); the *triples* are then built from the parse tree by exactly the rules of smatch 1.0.4
(``amr.py``: ``AMR.get_amr_line``, ``AMR.parse_AMR_line``, ``AMR.get_triples``; ``smatch.py``:
``get_amr_match``), so that triple counts, labels and the order of the triples equal smatch's:

Files
    Graphs are blocks of non-blank lines separated by blank lines; a line whose stripped text
    starts with ``#`` is skipped wherever it is (metadata). A block with only ``#`` lines is no
    graph. (smatch joins a block's lines with no separator; here they are joined with a space,
    which differs only for a symbol split across two lines.)

Variables
    Numbered ``0, 1, ...`` in the order their ``(var / concept`` opens in the text (smatch renames
    them ``a0, a1, ...`` and ``b0, b1, ...``). Variable 0 is the top.

Instance triples
    ``("instance", i, concept)``, one per variable, in variable order.

Attribute and relation triples
    Every branch ``:role value`` is read in text order. A role ending in ``-of`` -- except
    ``prep-on-behalf-of``, ``prep-out-of`` and ``consist-of`` (case-sensitive) -- is inverted:
    ``(u :R-of v)`` gives ``R(v, u)``; ``:mod`` is rewritten ``domain(v, u)``; every other role is
    kept as written, without its colon (``ARG0``, ``consist-of``, ``mod-of`` becomes ``mod``).
    A value is a *variable* when it is the name of any variable of the graph (also one defined
    later), otherwise a *constant*: a relation triple ``(R, i, j)`` links two variables, an
    attribute triple ``(R, i, constant)`` a variable and a constant. An attribute whose role is
    inverted (``:mod 5``, ``:ARG1-of "x"``) is dropped, as smatch files it under the constant.
    Duplicate triples are kept (and each counts).

Constants
    smatch drops a double quote that opens a string and turns the one that closes it into
    ``_``; inside a string, text after whitespace is lost (``"New York"`` becomes ``New``,
    ``"Prince"`` becomes ``Prince_``). Comparisons use :func:`normalize` (lower case, trailing
    ``_`` removed), as ``smatch.normalize`` does, so ``"Prince"`` matches ``prince``.

Order
    Per variable, in variable order: its relation triples to variables already opened at that
    point of the text, then those to variables opened later; its attribute triples in text
    order; the top variable gets the attribute ``("TOP", 0, "top")`` last. smatch stores them in
    this order, and the order matters for reproducing its hill-climbing exactly (it fixes the
    insertion order of Python sets whose iteration order the climber's tie-breaking follows).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..core.errors import InputError
from .text import read_text

#: Roles ending in ``-of`` that smatch 1.0.4 does not invert (``amr.py``, ``exceptions``).
NOT_INVERTED = frozenset({"prep-on-behalf-of", "prep-out-of", "consist-of"})

_TOO_DEEP = ("unreadable AMR graph: nodes nested too deeply (past Python's recursion limit; "
             "is a closing parenthesis missing?)")

#: A parenthesis, or a quoted string (skipped whole, with its escapes, as penman lexes it).
_PARENS = re.compile(r'"(?:[^"\\]|\\.)*"|[()]')


def normalize(item: str) -> str:
    """``smatch.normalize``: lower case, trailing ``_`` (smatch's closing-quote mark) removed."""
    return item.lower().rstrip("_")


class AmrGraph(NamedTuple):
    """One AMR graph as smatch 1.0.4 sees it.

    ``variables``: names as written, in smatch's order; ``instances``: ``("instance", i,
    concept)``; ``attributes``: ``(role, i, constant)``; ``relations``: ``(role, i, j)``. Indices
    refer to ``variables``. ``line``: 1-based line where the graph's block starts. (A named
    tuple, not a dataclass, to keep ``dataclasses`` out of the command line's start-up.)"""

    variables: tuple
    instances: tuple
    attributes: tuple
    relations: tuple
    line: int = 0
    #: per relation, whether it was written inverted (``:R-of``, ``:mod``): docSmatch's
    #: sentence buckets follow edges as written (:func:`exactalign.metrics.smatch.
    #: sentence_buckets`); empty when unknown
    inverted: tuple = ()

    @property
    def num_triples(self) -> int:
        return len(self.instances) + len(self.attributes) + len(self.relations)


def _smatch_quotes(value: str) -> str:
    """smatch's quote rule: an opening double quote dropped, a closing one turned into ``_``."""
    if '"' not in value:  # the common case, without the character loop
        return value
    out, in_quote = [], False
    for c in value:
        if c == '"':
            if in_quote:
                out.append("_")
            in_quote = not in_quote
        else:
            out.append(c)
    return "".join(out)


def _smatch_constant(value: str) -> str:
    """A value as smatch's character scanner leaves it: :func:`_smatch_quotes`, then only the
    first whitespace-separated token kept."""
    parts = _smatch_quotes(value).split()
    return parts[0] if parts else ""


def _concept(value) -> str:
    """A concept as smatch reads it: :func:`_smatch_quotes`, whitespace dropped."""
    return "".join(_smatch_quotes(value).split())


def graph_from_tree(tree, *, path=None, line=None) -> AmrGraph:
    """The smatch 1.0.4 triples of a parsed :class:`penman.Tree` (rules: module docstring).

    One walk over the tree (variables numbered as their nodes open, branches read in text
    order), then one loop in variable order: measured about 30% faster than a first walk
    collecting the variables and a second reading the branches (1,500 bamboo graphs)."""
    index: dict[str, int] = {}
    concepts: list = []
    early: dict[str, list] = {}         # smatch's node_relation_dict1
    late: dict[str, list] = {}          # smatch's node_relation_dict2
    no_concept: list = []               # variables without a concept, as their nodes close

    def walk(node):
        var, branches = node
        if var in index:
            raise InputError(f"variable {var!r} is defined twice", path=path, line=line)
        index[var] = i = len(concepts)
        concepts.append(None)
        for role, target in branches:
            if role == "/":
                concepts[i] = _concept(target) if target is not None else None
                continue
            r = role[1:] if role[:1] == ":" else role
            nested = isinstance(target, tuple)
            if nested:
                v, store = target[0], early
            else:
                v = _smatch_constant(str(target))
                store = early if v in index else late
            if r[-3:] == "-of" and r not in NOT_INVERTED:
                store.setdefault(v, []).append((r[:-3], var, True))
            elif r == "mod":
                store.setdefault(v, []).append(("domain", var, True))
            else:
                store.setdefault(var, []).append((r, v, False))
            if nested:
                walk(target)
        if concepts[i] is None:
            no_concept.append(var)

    walk(tree.node)
    walk = None  # the recursive closure's cycle broken: refcounting frees it, not the GC
    if no_concept:
        raise InputError(f"variable {no_concept[0]!r} has no concept", path=path, line=line)
    names = list(index)
    instances, attributes, relations, inverted = [], [], [], []
    for i, v in enumerate(names):
        instances.append(("instance", i, concepts[i]))
        for role, w, inv in early.get(v, ()):
            relations.append((role, i, index[w]))
            inverted.append(inv)
        for role, w, inv in late.get(v, ()):
            if w in index:
                relations.append((role, i, index[w]))
                inverted.append(inv)
            else:
                attributes.append((role, i, w))
        if i == 0:
            attributes.append(("TOP", 0, "top"))
    return AmrGraph(tuple(names), tuple(instances), tuple(attributes), tuple(relations),
                    line or 0, tuple(inverted))


def _blocks(text: str):
    """``(first line, text)`` of every graph block (smatch's ``get_amr_line`` rules)."""
    cur, start = [], 0
    for no, raw in enumerate(text.splitlines(), start=1):
        s = raw.strip()
        if not s:
            if cur:
                yield start, " ".join(cur)
                cur = []
            continue
        if s.startswith("#"):
            continue
        if not cur:
            start = no
        cur.append(s)
    if cur:
        yield start, " ".join(cur)


def parse_graph(text: str, *, path=None, line=None) -> AmrGraph:
    """Parse one PENMAN graph with ``penman`` and build its smatch triples; a penman error or
    text after the graph (which penman would silently drop: ``(a / b)) :ARG1 (c / d)`` would
    lose ``c``) becomes an :class:`InputError` naming ``path`` and ``line``."""
    import penman
    from penman.exceptions import PenmanError

    try:
        trees = list(penman.iterparse(text))
    except RecursionError:  # penman parses recursively: two frames per level of nesting
        raise InputError(_TOO_DEEP, path=path, line=line) from None
    except PenmanError as e:
        msg = getattr(e, "message", None) or " ".join(str(e).split())
        offset = getattr(e, "offset", None)
        if isinstance(offset, int) and 0 <= offset <= len(text):  # penman's DecodeError
            near = text[max(0, offset - 30):offset + 10]
            msg += f" (penman, at character {offset + 1} of the graph: ...{near!r}...)"
        raise InputError(f"unparsable AMR graph: {msg}", path=path, line=line) from None
    if not trees:
        raise InputError(f"not an AMR graph (a graph starts with '('): {text[:40]!r}",
                         path=path, line=line)
    try:
        g = graph_from_tree(trees[0], path=path, line=line)
    except RecursionError:
        raise InputError(_TOO_DEEP, path=path, line=line) from None
    # penman stops at the graph's closing parenthesis and ignores what follows. Every '(' opens
    # a node, so without quotes, as many '(' and ')' as nodes and a final ')' mean nothing
    # follows; otherwise scan for the closing parenthesis.
    n = len(g.variables)
    if not ('"' not in text and text.count("(") == n == text.count(")")
            and text.rstrip().endswith(")")):
        rest = after_graph(text)
        if rest:
            raise InputError(f"text after the graph's closing parenthesis: {rest[:40]!r} (an "
                             "unbalanced ')'?)", path=path, line=line)
    return g


def after_graph(text: str) -> str:
    """What follows the parenthesis that closes the block's first graph (stripped; quoted
    strings skipped, as penman's lexer reads them)."""
    depth = 0
    for m in _PARENS.finditer(text):
        c = m.group()
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return text[m.end():].strip()
    return ""


def read_amr(path) -> list[AmrGraph]:
    """Every graph of an AMR file (``"-"``: standard input), with smatch's triples. An error in a
    graph names the file, the line its block starts on and its index (1-based, the pair number
    ``smatch`` would report)."""
    label, text = read_text(path)
    graphs = []
    for k, (no, block) in enumerate(_blocks(text), start=1):
        try:
            graphs.append(parse_graph(block, path=label, line=no))
        except InputError as e:
            raise InputError(f"graph {k}: {e.message}", path=e.path, line=e.line) from None
    return graphs


def read_pairs(test_path, gold_path) -> list[tuple[AmrGraph, AmrGraph]]:
    """The (test, gold) graph pairs of two parallel files, as ``smatch -f TEST GOLD`` pairs them.

    Unlike smatch (which warns and scores the common prefix), files with different numbers of
    graphs are an :class:`InputError` -- naming the file without any graph when one of them has
    none. Two files without any graph are an error too (smatch prints an F-score of 0.00: a
    score of nothing)."""
    test, gold = read_amr(test_path), read_amr(gold_path)
    if not test and not gold:
        raise InputError(f"no AMR graph in the file, nor in {gold_path} (both are empty or hold "
                         "only comments): nothing to score",
                         path="<stdin>" if str(test_path) == "-" else str(test_path))
    if bool(test) != bool(gold):
        path = test_path if not test else gold_path
        raise InputError(f"no AMR graph in the file (it is empty or holds only comments), but "
                         f"{len(test) or len(gold)} in {gold_path if not test else test_path}",
                         path="<stdin>" if str(path) == "-" else str(path))
    if len(test) != len(gold):
        raise InputError(f"{len(test)} graphs in {test_path} but {len(gold)} in {gold_path}: "
                         "the files must hold the same number of graphs", path=str(test_path))
    return list(zip(test, gold, strict=True))

