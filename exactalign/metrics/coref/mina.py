"""Minimum spans (MINA; Moosavi, Born, Poesio and Strube, ACL 2019) as coval computes them on
CoNLL-2012 files: the subtree a mention's parse bits describe (:func:`mention_tree`) and its
minimum span (:func:`minimum_span`).

Both reproduce coval (ns-moosavi/coval at 87071a6, ``coval/conll/reader.py:
extract_annotated_parse`` and ``coval/conll/mention.py: set_min_span``) step for step, including
what is peculiar to reading a tree from the parse bits of the mention's own lines only:

* The tree is read from the parse bits (column 6) of the mention's tokens, character by
  character: ``(`` and letters open a labelled node (the label keeps letters only), ``*`` is a
  word, ``)`` closes the innermost open node. Words met one after another without a bracket
  between them form **one terminal** whose label is the words joined by spaces, whose
  part-of-speech tags are theirs, and whose index is the position (in the sentence) of the line
  where the terminal is closed -- so the flat NP ``(NP* * *)`` "the big man" is one terminal
  "the big man" at the position of "man", and the verb of ``(VP* (SBAR* ...`` is closed by the
  next line's ``(``, so indexed one word to the right of itself. A pending group is dropped when a ``(`` follows it
  and none of its words is all letters or all digits (commas, quotes). Brackets that close nodes
  opened before the mention are ignored, nodes still open at the mention's end are closed, and
  when that leaves several top nodes they become the children of a new ``NP``.
* The minimum span is a set of ``(terminal label, index)`` pairs. The phrase tags that count are
  NP-like (``NP``, ``NM``, ``QP``, ``NX``: compared on their first two letters, so ``NML`` is
  ``NM``) or ``VP``, chosen from the root's tag or else its children's. A root that is itself a
  valid terminal is its own minimum span; else the valid terminals among the root's children
  are; else each top-level phrase of a valid tag is searched breadth first for its shallowest
  valid terminals (terminals are only taken from nodes of a valid tag); else the whole tree is
  searched, the valid tags fixed by the first NP-like or VP node met. A terminal is valid when
  one of its words has a letter or a digit or is ``%``, is not ``-LRB-``/``-RRB-``, and is not
  tagged ``CC``, ``DT`` or ``IN``.
* When nothing is found the minimum span is every word of the mention paired with its position
  **within the mention** (0, 1, ...), not in the sentence: coval's fallback. Two such mentions
  with the same words in one sentence therefore have one minimum span, wherever they are.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

#: Phrase tags (first two letters) of NP-like and verbal minimum spans.
NP_TAGS = ("NP", "NM", "QP", "NX")
VP_TAGS = ("VP",)
#: A minimum span: ``(terminal label, index)`` pairs (see the module docstring).
MinSpan = frozenset


@dataclass(eq=False)
class Node:
    """A node of a mention's tree. A terminal's ``tag`` is its words joined by spaces, ``pos``
    their part-of-speech tags and ``index`` the position (in the sentence) where it closed."""

    tag: str
    pos: tuple[str, ...] | None
    index: int
    terminal: bool
    children: list[Node] = field(default_factory=list)

    def terminals(self) -> list[str]:
        """The terminals' labels, left to right."""
        if self.terminal:
            return [self.tag]
        return [t for c in self.children for t in c.terminals()]


def _has_word_character(words: Sequence[str]) -> bool:
    return any(w.isalpha() or w.isdigit() for w in words)


def mention_tree(tokens: Sequence[tuple[str, str, str]], start: int) -> Node | None:
    """The tree coval reads from a mention's tokens, each ``(word, part-of-speech, parse bit)``;
    ``start`` is the position of the first one in its sentence. ``None`` when the bits describe
    no node at all (none has a ``*``)."""
    stack: list[Node] = []       # open nodes, outermost first
    tops: list[Node] = []        # nodes closed with nothing open around them
    label: list[str] = []        # letters of the label being read
    opening = False              # a "(" was read, its node not made yet
    words: list[str] = []        # words since the last bracket: one terminal to be
    tags: list[str] = []
    last: Node | None = None     # the node closed last: what a single tree returns

    def hang(node: Node) -> None:
        if stack:
            stack[-1].children.append(node)

    def flush(i: int, only_words: bool) -> None:
        nonlocal words, tags
        if words and (not only_words or _has_word_character(words)):
            node = Node(" ".join(words), tuple(tags), start + i, True)
            if stack:
                stack[-1].children.append(node)
            else:
                stack.append(node)
        words, tags = [], []

    final = len(tokens) - 1
    for i, (word, pos, bits) in enumerate(tokens):
        for j, c in enumerate(bits):
            if c == "(":
                if opening:
                    node = Node("".join(label), None, start + i, False)
                    hang(node)
                    stack.append(node)
                    label = []
                flush(i, only_words=True)
                opening = True
            elif c == "*":
                words.append(word)
                tags.append(pos)
                node = Node("".join(label), None, start + i, False)
                if opening:
                    hang(node)
                    stack.append(node)
                    label = []
                    opening = False
                elif label:          # a label without "(": coval keeps it as a top node
                    tops.append(node)
            elif c == ")":
                flush(i, only_words=False)
                if stack:
                    last = stack.pop()
                    if not stack:
                        tops.append(last)
                opening = False
            elif c.isalpha():
                label.append(c)
            if i == final and j == len(bits) - 1:
                flush(i, only_words=False)
    while stack:
        last = stack.pop()
        if not stack:
            tops.append(last)
    if len(tops) > 1:
        return Node("NP", None, start, False, list(tops))
    return last


def _valid_terminal(tag: str, pos: Sequence[str]) -> bool:
    parts = tag.split()
    if len(parts) != 1:
        return any(_valid_terminal(w, (pos[k],)) for k, w in enumerate(parts))
    return ((any(c.isalpha() for c in tag) or any(c.isdigit() for c in tag) or tag == "%")
            and tag not in ("-LRB-", "-RRB-") and pos[0] not in ("CC", "DT", "IN"))


def _valid_tags(root: Node) -> tuple[str, ...] | None:
    head = root.tag[:2]
    if head == "VP":
        return VP_TAGS
    if head in ("NP", "NM"):
        return NP_TAGS
    if not root.children:
        return None
    below = [c.tag[:2] for c in root.children]
    if "NP" in below or "NM" in below:
        return NP_TAGS
    return VP_TAGS if "VP" in below else NP_TAGS


def _shallowest(root: Node, found: set, tags: tuple[str, ...] | None, fix_tags: bool) -> None:
    """Breadth first from ``root``: add the valid terminals of the shallowest depth where any
    is found to ``found``. Nodes below the root are entered only when their tag is valid, and
    terminals are taken only from nodes of a valid tag; ``fix_tags``: ``tags`` is unknown and
    set by the first NP-like or VP node met."""
    depth_found = float("inf")
    queue = deque([(root, 0)])
    while queue:
        node, depth = queue.popleft()
        if fix_tags and not tags:
            if node.tag[:2] in ("NP", "NM"):
                tags = NP_TAGS
            elif node.tag[:2] == "VP":
                tags = VP_TAGS
        if node.terminal and depth <= depth_found:
            if _valid_terminal(node.tag, node.pos):
                found.add((node.tag, node.index))
                depth_found = min(depth_found, depth)
        elif ((not found or depth < depth_found) and node.children
              and (depth == 0 or not tags or node.tag[:2] in tags)):
            valid_here = bool(tags) and node.tag[:2] in tags
            for child in node.children:
                if not child.terminal or valid_here:
                    queue.append((child, depth + 1))


def minimum_span(tree: Node | None, words: Sequence[str]) -> frozenset:
    """The minimum span of a mention whose tree is ``tree`` and whose words are ``words`` (for
    coval's fallback): a frozenset of ``(terminal label, index)``; empty when ``tree`` is
    ``None``."""
    if tree is None:
        return frozenset()
    found: set = set()
    tags = _valid_tags(tree)
    tops: list[Node] = []
    if tree.terminal and _valid_terminal(tree.tag, tree.pos):
        found.add((tree.tag, tree.index))
    elif tree.children:
        for node in tree.children:
            if node.terminal and _valid_terminal(node.tag, node.pos):
                found.add((node.tag, node.index))
        if not found:
            tops = [n for n in tree.children if n.children and n.tag[:2] in tags]
    if found:
        return frozenset(found)
    if tops:
        for node in tops:
            _shallowest(node, found, tags, fix_tags=False)
    else:
        _shallowest(tree, found, None, fix_tags=True)
    if not found:
        found = {(w, k) for k, w in enumerate(words)}
    return frozenset(found)
