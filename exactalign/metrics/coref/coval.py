"""coval's options on CoNLL-2012 files -- ``remove_singletons``, ``remove_nested``, ``NP_only``
and ``min_span`` -- and coval's metrics on the mentions they leave (ns-moosavi/coval at
87071a6: ``coval/conll/reader.py: get_coref_infos``, ``coval/eval/evaluator.py``).

What each option does, in coval's order (per document, key and response alike)
----------------------------------------------------------------------------------
A mention is ``(sentence, first position, last position)``, positions counted within the
sentence (for a mention that crosses a sentence break, as coval builds it: the sentence where it
closes, the position where it opened in its own sentence, the position where it closes). The
coreference column is read as coval reads it (entity ids as integers, clusters in the order
their first mention is completed). Where that differs from the reference scorer, coval is
followed: ``(1(2`` without ``|`` opens only entity 2 (a ``(`` starts the id afresh), a closing
with nothing open is skipped (coval prints "Problem in the coreference annotation"), ``(1+2)`` is
a mention of entity 12, and ``012`` is entity 12.

1. ``remove_singletons``: clusters of one mention are dropped -- first, on the clusters as
   written.
2. ``NP_only`` and ``min_span`` read each mention's tree from the **key's** parse bits (a
   response mention too: coval parses the key's lines at the response mention's positions; see
   :mod:`~exactalign.metrics.coref.mina`).

   * ``min_span``: a mention is identified by its minimum span (:func:`~exactalign.metrics.
     coref.mina.minimum_span`) and its sentence -- two mentions with one minimum span are one
     mention, for every metric and every step below.
   * ``NP_only``: a mention whose tree's root is labelled ``VP`` is removed from its cluster
     (the first mention of the cluster equal to it, as ``list.remove`` finds it: under
     ``min_span``, an earlier mention with the same minimum span goes instead); a cluster that
     lost a mention and has at most one left is dropped -- even without ``remove_singletons``.

3. ``remove_nested``: within each cluster, for every pair of mentions (not equal) in one
   sentence where one lies inside the other (by their spans, not minimum spans), the inner one
   is marked, once per pair. If the cluster has more than one mention and exactly one more than
   the marks (counted with repetitions), it would become a singleton: it is dropped with
   ``remove_singletons`` and kept **unchanged** without. Otherwise every mention equal to a
   marked one is removed (which can leave one mention, or none when marks repeat).

The metrics are coval's: ``mentions`` (distinct mentions found), MUC, B³, CEAFm, CEAFe, LEA and
the CoNLL average, with coval's arithmetic -- a mention's cluster on the other side is the last
one containing it; repeated mentions (equal minimum spans, say) count every time they occur;
sums run in coval's order, so the floats are coval's. CEAF's entity alignment is the
:class:`~exactalign.problems.bipartite.BipartiteInstance` of :func:`~exactalign.metrics.coref.
alignment.ceaf` on the identified mentions, solved by any method (exact, ilp, greedy), so the
exact alignment and its heuristic both see the mentions the options leave. Two differences:
CEAFm divides by the numbers of mentions (as the reference scorer does; coval's ``ceafm``, which
it does not print, divides by the numbers of entities), and when optimal alignments tie, or the
key has more entities than the response, the CEAF numerator may be summed in another order than
coval's and differ in its last bit or two.

Where exactalign refuses what coval would do something with
-----------------------------------------------------------
Each is one :class:`~exactalign.InputError` naming file and line:

* ``NP_only`` or ``min_span`` on a key without parse trees -- a token line with fewer than 7
  columns or a parse bit ``-`` -- or with a parse bit that is not one (exactly one ``*``,
  brackets, letters) or brackets that do not balance within a sentence. (coval looks at the first
  line only, and when it has no parse runs the Stanford parser through nltk on the key, or fails
  without it; a later ``-`` it scores as an unparsed mention, by its span.)
* ``NP_only`` or ``min_span`` with a mention that crosses a sentence break (coval reads the
  tree of a slice of another sentence);
* key and response with different sentence breaks (coval pairs mentions by sentence number
  and position, so every mention after the first difference would be missed silently);
* a cluster that the options leave empty (coval divides by zero in B³ and LEA).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ...core.errors import InputError
from ...io.conll import Document, Row, pair_documents, read_conll
from ..aggregation import PRF
from .alignment import CEAF_HEURISTICS, CEAF_PHI, GAP_TOL, ceaf, ceaf_instance, ceaf_witness
from .identification import Identified
from .mina import mention_tree, minimum_span
from .scores import CorefScores, DocumentScores

#: coval's metrics, in exactalign's order (coval prints mentions, muc, bcub, ceafe, lea; its
#: evaluator also has ceafm).
METRICS = ("muc", "bcub", "ceafm", "ceafe", "lea")
#: The columns coval reads: word, part of speech, parse bit (0-based).
WORD, POS, PARSE = 3, 4, 5
#: A parse bit: labelled openings, one ``*``, closings.
_PARSE_BIT = re.compile(r"(?:\([^()*\s]+)*\*\)*")


@dataclass(frozen=True)
class CovalOptions:
    """coval's options (its command-line words ``remove_singletons``, ``remove_nested``,
    ``NP_only``, ``min_span``)."""

    remove_singletons: bool = False
    remove_nested: bool = False
    np_only: bool = False
    min_span: bool = False

    @property
    def needs_parse(self) -> bool:
        return self.np_only or self.min_span

    @property
    def any(self) -> bool:
        return (self.remove_singletons or self.remove_nested or self.np_only
                or self.min_span)

    def words(self) -> list[str]:
        """The options as coval's command line spells them."""
        names = (("remove_singletons", self.remove_singletons),
                 ("remove_nested", self.remove_nested), ("NP_only", self.np_only),
                 ("min_span", self.min_span))
        return [n for n, on in names if on]


class _Mention:
    """A mention as coval builds it; ``identity`` is what makes two mentions one (the span, or
    under ``min_span`` the minimum span), ``tokens`` its first and last token in the
    document."""

    __slots__ = ("sentence", "start", "end", "words", "identity", "tokens", "line")

    def __init__(self, sentence: int, start: int, end: int, words: list[str],
                 tokens: tuple[int, int], line: int):
        self.sentence, self.start, self.end = sentence, start, end
        self.words = words
        self.identity: tuple = (sentence, start, end)
        self.tokens, self.line = tokens, line


def _read_column(col: str, where: Document, line: int) -> tuple[list[int], list[int], list[int]]:
    """One coreference column as coval's ``extract_coref_annotation`` reads it, character by
    character: ``(N)`` one-token mentions, ``(N`` openings (ended by ``|`` or the column's end),
    ``N)`` closings; ids are integers. Returns ``(singles, openings, closings)``."""
    singles, opens, closes = [], [], []
    digits: list[str] = []
    opened = False
    for i, c in enumerate(col):
        if c.isdigit():
            digits.append(c)
        elif c == "(":
            digits, opened = [], True
        elif c == ")":
            if digits:
                (singles if opened else closes).append(int("".join(digits)))
            digits, opened = [], False
        elif c == "|":
            if opened:
                if not digits:   # "(|": coval fails on int('')
                    raise InputError(f"coreference column {col!r}: '(' without an entity id "
                                     "before '|'", path=where.path, line=line)
                opens.append(int("".join(digits)))
                digits, opened = [], False
            elif digits:         # "1|": coval exits
                raise InputError(f"coreference column {col!r}: an entity id without '(' or "
                                 "')'", path=where.path, line=line)
        if i == len(col) - 1 and opened and digits:
            opens.append(int("".join(digits)))
    return singles, opens, closes


def _sentences(doc: Document) -> list[list[Row]]:
    out: list[list[Row]] = []
    for row in doc.rows:
        if row.sentence == len(out):
            out.append([])
        out[-1].append(row)
    return out


def _clusters(doc: Document) -> list[list[_Mention]]:
    """The clusters of ``doc`` as coval's ``get_doc_mentions`` builds them: in the order their
    first mention is completed, each in completion order (one-token mentions before closings on
    one token)."""
    clusters: dict[int, list[_Mention]] = {}
    open_at: dict[int, list[tuple[int, int]]] = {}    # id -> [(position, token)]
    token = 0
    for s, rows in enumerate(_sentences(doc)):
        words: list[str] = []
        for pos, row in enumerate(rows):
            words.append(row.columns[WORD] if len(row.columns) > WORD + 1 else "")
            singles, opens, closes = _read_column(row.columns[-1], doc, row.line)
            for c in singles:
                clusters.setdefault(c, []).append(
                    _Mention(s, pos, pos, [words[pos]], (token, token), row.line))
            for c in opens:
                open_at.setdefault(c, []).append((pos, token))
            for c in closes:
                clusters.setdefault(c, [])
                if not open_at.get(c):   # coval: "Problem in the coreference annotation"
                    continue
                start, first = open_at[c].pop()
                clusters[c].append(_Mention(s, start, pos, words[start:pos + 1], (first, token),
                                            row.line))
            token += 1
    return list(clusters.values())


def check_parse(doc: Document) -> None:
    """Raise :class:`InputError` (file:line) unless every token of ``doc`` has a parse bit
    (column 6, not the last) and the bits of each sentence balance."""
    depth = 0
    for k, row in enumerate(doc.rows):
        if row.position == 0:
            depth = 0
        cols = row.columns
        if len(cols) < PARSE + 2:
            raise InputError(f"--np-only and --min-span need the key's parse trees (column 6 "
                             f"of a CoNLL-2012 line), but this line has {len(cols)} columns "
                             "(coval would run the Stanford parser on the key)",
                             path=doc.path, line=row.line)
        bits = cols[PARSE]
        if bits == "-":
            raise InputError("--np-only and --min-span need the key's parse trees, but this "
                             "token has none (parse bit '-'; coval would score its mentions "
                             "unparsed)", path=doc.path, line=row.line)
        if not _PARSE_BIT.fullmatch(bits):
            raise InputError(f"not a parse bit: {bits!r} in column 6 (expected labelled "
                             "openings, one '*', closings, e.g. '(NP*' or '*))')",
                             path=doc.path, line=row.line)
        depth += bits.count("(") - bits.count(")")
        last = k + 1 == len(doc.rows) or doc.rows[k + 1].position == 0
        if depth < 0 or (last and depth):
            why = ("a bracket closes with none open" if depth < 0
                   else "brackets left open at its end")
            raise InputError(f"the parse bits of sentence {row.sentence + 1} do not balance "
                             f"({why})", path=doc.path, line=row.line)


def _check_sentences(key: Document, response: Document) -> None:
    for k, r in zip(key.rows, response.rows, strict=True):
        if (k.sentence, k.position) != (r.sentence, r.position):
            raise InputError(f"the response breaks sentences where the key ({key.path}:"
                             f"{k.line}) does not: coval's options compare mentions by "
                             "sentence and position", path=response.path, line=r.line)


def _apply_parse(clusters: list[list[_Mention]], key_sentences: list[list[Row]],
                 doc: Document, opts: CovalOptions) -> list[list[_Mention]]:
    """coval's ``set_annotated_parse_trees``: minimum spans, VP pruning."""
    kept: dict[int, list[_Mention]] = {}
    pruned: set[int] = set()
    for i, cluster in enumerate(clusters):
        left = list(cluster)
        for m in cluster:
            if m.tokens[1] - m.tokens[0] != m.end - m.start:
                raise InputError("--np-only and --min-span need every mention inside one "
                                 "sentence, but this one closes in another sentence than it "
                                 "opened", path=doc.path, line=m.line)
            rows = key_sentences[m.sentence][m.start:m.end + 1]
            tree = mention_tree([(r.columns[WORD], r.columns[POS], r.columns[PARSE])
                                 for r in rows], m.start)
            if opts.min_span:
                words = m.words
                if not words[0] and tree is not None:
                    words = [w for t in tree.terminals() for w in t.split()]
                span = minimum_span(tree, words)
                if span:
                    m.identity = (m.sentence, span)
            if opts.np_only and tree is not None and tree.tag == "VP":
                for j, x in enumerate(left):
                    if x is m or x.identity == m.identity:
                        del left[j]
                        break
                pruned.add(i)
        kept[i] = left
    if opts.np_only:
        for i in pruned:
            if len(kept[i]) <= 1:
                del kept[i]
    return list(kept.values())


def _remove_nested(clusters: list[list[_Mention]], keep_singletons: bool
                   ) -> list[list[_Mention]]:
    """coval's ``remove_nested_coref_mentions``."""
    out = []
    for cluster in clusters:
        marked = []
        for i, a in enumerate(cluster):
            for b in cluster[i + 1:]:
                if a.identity == b.identity or a.sentence != b.sentence:
                    continue
                if a.start >= b.start and a.end <= b.end:
                    marked.append(a)
                elif b.start >= a.start and b.end <= a.end:
                    marked.append(b)
        if len(cluster) != 1 and len(cluster) - len(marked) == 1:
            if keep_singletons:
                out.append(cluster)
            continue
        gone = {m.identity for m in marked}
        out.append([m for m in cluster if m.identity not in gone])
    return out


@dataclass(frozen=True)
class CovalDocument:
    """One document after coval's options: the clusters of mention identities (repetitions
    kept, in coval's order) and, per identity, the tokens of its first mention."""

    name: str
    key: tuple[tuple, ...]
    response: tuple[tuple, ...]
    tokens: dict

    def identified(self) -> Identified:
        """The document as :class:`Identified` chains of ids (every repetition kept), with the
        ``mentions`` counts coval prints -- for CEAF's alignment."""
        ids: dict = {}
        for c in self.key:
            for m in c:
                ids.setdefault(m, len(ids))
        n_key = len(ids)
        for c in self.response:
            for m in c:
                ids.setdefault(m, len(ids))
        key_chains = tuple(np.array([ids[m] for m in c], dtype=np.int64) for c in self.key)
        resp_chains = tuple(np.array([ids[m] for m in c], dtype=np.int64)
                            for c in self.response)
        spans = tuple(self.tokens[m] for m in ids)
        return Identified(self.name, spans, n_key, key_chains, resp_chains,
                          mentions_prf(self.key, self.response))


def apply_options(key: Document, response: Document, options: CovalOptions) -> CovalDocument:
    """One key/response pair (read with ``keep_rows=True``) through coval's options."""
    _check_sentences(key, response)
    key_sentences = _sentences(key) if options.needs_parse else []
    sides = []
    for doc in (key, response):
        clusters = _clusters(doc)
        if options.remove_singletons:
            clusters = [c for c in clusters if len(c) != 1]
        if options.needs_parse:
            clusters = _apply_parse(clusters, key_sentences, doc, options)
        if options.remove_nested:
            clusters = _remove_nested(clusters, not options.remove_singletons)
        for c in clusters:
            if not c:
                raise InputError(f"in document {doc.name!r} the options {options.words()} "
                                 "leave a cluster empty: coval divides by zero there (B3, "
                                 "LEA)", path=doc.path, line=doc.line)
        sides.append(clusters)
    tokens: dict = {}
    for clusters in sides:
        for c in clusters:
            for m in c:
                tokens.setdefault(m.identity, m.tokens)
    return CovalDocument(key.name, tuple(tuple(m.identity for m in c) for c in sides[0]),
                         tuple(tuple(m.identity for m in c) for c in sides[1]), tokens)


# --------------------------------------------------------------------------------------------
# coval's metrics (evaluator.py), on clusters of identities
# --------------------------------------------------------------------------------------------
def _cluster_of(inp: Sequence[Sequence], out: Sequence[Sequence]) -> dict:
    """coval's ``get_mention_assignments``: each mention of ``inp`` that ``out`` has, mapped to
    the last cluster of ``out`` containing it."""
    where = {m: j for j, c in enumerate(out) for m in c}
    return {m: where[m] for c in inp for m in c if m in where}


def mentions_prf(key: Sequence[Sequence], response: Sequence[Sequence]) -> PRF:
    """Distinct key mentions the response has, over distinct key and response mentions."""
    k = {m for c in key for m in c}
    r = {m for c in response for m in c}
    found = float(len(k & r))
    return PRF(found, float(len(k)), found, float(len(r)))


def _muc_side(clusters, other_of) -> tuple[float, float]:
    tp = p = 0
    for c in clusters:
        p += len(c) - 1
        tp += len(c)
        linked = set()
        for m in c:
            if m in other_of:
                linked.add(other_of[m])
            else:
                tp -= 1
        tp -= len(linked)
    return tp, p


def _bcub_side(clusters, other_of) -> tuple[float, float]:
    num, den = 0.0, 0
    for c in clusters:
        counts = Counter(other_of[m] for m in c if m in other_of)
        num += sum(n * n for n in counts.values()) / float(len(c))
        den += len(c)
    return num, den


def _lea_side(clusters, other_clusters, other_of) -> tuple[float, float]:
    num, den = 0.0, 0
    for c in clusters:
        if len(c) == 1:
            links = 1
            common = int(c[0] in other_of and len(other_clusters[other_of[c[0]]]) == 1)
        else:
            links = len(c) * (len(c) - 1) / 2.0
            common = 0
            for i, m in enumerate(c):
                if m in other_of:
                    for m2 in c[i + 1:]:
                        if m2 in other_of and other_of[m] == other_of[m2]:
                            common += 1
        num += len(c) * common / float(links)
        den += len(c)
    return num, den


def muc(d: CovalDocument) -> PRF:
    """coval's MUC (recall and precision numerators each from its own side)."""
    rn, rd = _muc_side(d.key, _cluster_of(d.key, d.response))
    pn, pd = _muc_side(d.response, _cluster_of(d.response, d.key))
    return PRF(float(rn), float(rd), float(pn), float(pd))


def b_cubed(d: CovalDocument) -> PRF:
    rn, rd = _bcub_side(d.key, _cluster_of(d.key, d.response))
    pn, pd = _bcub_side(d.response, _cluster_of(d.response, d.key))
    return PRF(rn, float(rd), pn, float(pd))


def lea(d: CovalDocument) -> PRF:
    rn, rd = _lea_side(d.key, d.response, _cluster_of(d.key, d.response))
    pn, pd = _lea_side(d.response, d.key, _cluster_of(d.response, d.key))
    return PRF(rn, float(rd), pn, float(pd))


def _coval_sum(ident: Identified, inst, alignment) -> float:
    """The alignment's weight summed as coval sums it: numpy's sum of the weights of the pairs
    of a full assignment (``linear_sum_assignment``'s), in key order. When the key has more
    entities than the response, the assignment also pairs some key entities at weight 0: taken
    here as the lowest-numbered unaligned ones (where scipy puts them, on every case measured);
    the sum's order -- and so its last bit -- depends on that only."""
    a = np.asarray(alignment, dtype=np.int64).reshape(-1, 2)
    weight = dict(zip(zip(inst.rows.tolist(), inst.cols.tolist(), strict=True),
                      inst.weights.tolist(), strict=True))
    n_key, n_resp = len(ident.key_chains), len(ident.response_chains)
    v = np.zeros(n_key)
    aligned = np.zeros(n_key, dtype=bool)
    for r, c in a.tolist():
        v[r] = weight.get((r, c), 0.0)
        aligned[r] = True
    if n_key > n_resp:
        pad = np.flatnonzero(~aligned)[:n_resp - int(aligned.sum())]
        aligned[pad] = True
        v = v[aligned]
    return float(v.sum())


def score_document(d: CovalDocument, metrics: Iterable[str] = METRICS, *,
                   ceaf_method: str = "exact", compare_exact: bool = False,
                   **solve_options) -> DocumentScores:
    """coval's metrics on one document after its options; CEAF aligned by ``ceaf_method``
    (``compare_exact``: also exactly, for the heuristic's gap)."""
    from ...problems import bipartite

    metrics = _check_metrics(metrics)
    ident = d.identified()
    scores, solves, exact, witnesses = {}, {}, {}, {}
    for m in metrics:
        if m in CEAF_PHI:
            c = ceaf(ident, CEAF_PHI[m], ceaf_method, **solve_options)
            inst = ceaf_instance(ident, CEAF_PHI[m])
            num = c.prf.recall_num
            if c.result.alignment is not None:
                num = _coval_sum(ident, inst, c.result.alignment)
            scores[m] = PRF(num, c.prf.recall_den, num, c.prf.precision_den)
            solves[m] = c.result
            if compare_exact and ceaf_method in CEAF_HEURISTICS:
                exact[m] = bipartite.solve(inst, "exact")
                best, got = exact[m].objective, c.result.objective
                if got is not None and best - got > GAP_TOL * max(1.0, best):
                    witnesses[m] = ceaf_witness(ident, inst, c.result.alignment, best)
        else:
            scores[m] = _SIMPLE[m](d)
    return DocumentScores(d.name, ident.mentions, scores, solves, exact, 0, witnesses)


_SIMPLE = {"muc": muc, "bcub": b_cubed, "lea": lea}


def _check_metrics(metrics: Iterable[str]) -> tuple[str, ...]:
    metrics = tuple(dict.fromkeys(metrics))
    for m in metrics:
        if m not in METRICS:
            raise ValueError(f"{m!r} is not one of coval's metrics; choose from "
                             + ", ".join(METRICS))
    return metrics


def score_documents(pairs: Iterable[tuple[Document, Document]],
                    metrics: Iterable[str] = METRICS, *, options: CovalOptions = CovalOptions(),
                    ceaf_method: str = "exact", compare_exact: bool = False,
                    **solve_options) -> CorefScores:
    """Score paired documents (read with ``keep_rows=True``) as coval does with ``options``;
    counts summed over documents, as coval's evaluator sums them."""
    metrics = _check_metrics(metrics)
    pairs = list(pairs)
    if options.needs_parse:
        for key, _ in pairs:
            check_parse(key)
    docs = tuple(score_document(apply_options(k, r, options), metrics, ceaf_method=ceaf_method,
                                compare_exact=compare_exact, **solve_options)
                 for k, r in pairs)
    return CorefScores(docs, metrics, ceaf_method)


def score_files(key_path, response_path, metrics: Iterable[str] = METRICS, *,
                options: CovalOptions = CovalOptions(), **kwargs) -> CorefScores:
    """Read, pair and score a key and a response CoNLL-2012 file as coval does with
    ``options`` (other keyword arguments as :func:`score_documents`)."""
    pairs = pair_documents(read_conll(key_path, keep_rows=True),
                           read_conll(response_path, keep_rows=True))
    return score_documents(pairs, metrics, options=options, **kwargs)
