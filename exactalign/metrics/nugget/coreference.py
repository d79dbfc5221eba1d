"""v1.8's coreference evaluation (its ``-c``; ``conll_coref.py`` scored by the CoNLL reference
scorer v8.01): the mentions put on CoNLL rows through a mapping (:func:`coref_rows`), scored in
memory by :mod:`exactalign.metrics.coref` (:func:`coref_evaluate`), with the reference's
truncation and floating-point order where v1.8 prints them (:class:`CorefEvaluation`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...core.errors import InputError
from ...io.conll import Document as ConllDocument
from ...io.tbf import Mention, Relation, TbfDocument, TbfFile
from .. import coref as corefm
from ..aggregation import PRF
from .instances import PLAIN

#: The metrics v1.8 has the reference scorer compute (``scorer.pl all``), in the scorer's order.
COREF_METRICS = ("muc", "bcub", "ceafm", "ceafe", "blanc")

#: The order v1.8 prints them in: Python 2.7's iteration order of the dict ``get_conll_scores``
#: fills in the order above (checked against Python 2.7.18; insertion-order dependent).
V18_COREF_ORDER = ("bcub", "ceafe", "ceafm", "muc", "blanc")

#: Printed with ``*`` and left out of v1.8's average (``Config.skipped_metrics``).
V18_COREF_SKIPPED = frozenset({"ceafm"})


def resolve_coref_combination(name: str | None, names: Sequence[str]) -> str:
    """v1.8's ``Config.coref_criteria``: the first attribute alone (``mention_type``) unless
    another combination is named (``plain``: v1.8's ``-m 0``, span only)."""
    if name is None:
        return names[1] if len(names) > 1 else PLAIN
    if name not in names:
        raise ValueError(f"unknown attribute combination {name!r} for the coreference mapping; "
                         f"choose one of {', '.join(names)}")
    return name


def check_threshold(threshold: float) -> None:
    # v1.8 with -ct <= 0 takes an unmapped gold mention's placeholder (-1, 0) as a match with
    # system mention -1 (the last one): a crash-free but meaningless table we do not reproduce.
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"coreference mapping threshold must be in (0, 1], got {threshold}")


def coref_chains(doc: TbfDocument | None, kept: set[str] | None, path: str
                 ) -> list[frozenset[str]]:
    """The ``@Coreference`` clusters of one document as v1.8 takes them
    (``utils.parse_relation_lines``): in file order, each the *set* of its mention ids; with a
    type white list (``kept`` = the ids of the mentions kept) reduced to kept ids and dropped
    when fewer than two remain -- without one, a single-mention cluster stays a cluster. A
    mention in two clusters is an error (v1.8: ``transitive_not_resolved``, it quits); ``doc``
    ``None`` (a gold document absent from the system) has none."""
    if doc is None:
        return []
    out: list[frozenset[str]] = []
    first: dict[str, Relation] = {}
    for r in doc.relations:
        if r.name != "Coreference":
            continue
        ids = r.arguments
        if kept is not None:
            ids = tuple(a for a in ids if a in kept)
            if len(ids) < 2:
                continue
        for a in dict.fromkeys(ids):
            if a in first:
                f = first[a]
                raise InputError(f"mention {a} of document {doc.doc_id} is in coreference "
                                 f"clusters {f.relation_id} (line {f.line}) and "
                                 f"{r.relation_id}: the transitive closure must be resolved "
                                 "(v1.8 refuses to score)", path=path, line=r.line)
            first[a] = r
        out.append(frozenset(ids))
    return out


def document_chains(gold: TbfFile, system: TbfFile, doc_id: str, g: Sequence[Mention],
                     s: Sequence[Mention], filtered: bool):
    """Gold and system clusters of one document (reduced to the scored mentions ``g``, ``s``
    when a type white list ``filtered`` them, as v1.8's ``filter_relations``)."""
    return (coref_chains(gold.documents[doc_id],
                         {m.mention_id for m in g} if filtered else None, gold.path),
            coref_chains(system.documents.get(doc_id),
                         {m.mention_id for m in s} if filtered else None, system.path))


@dataclass(frozen=True, eq=False)
class CorefRows:
    """One document as v1.8 writes it to its key and response CoNLL files
    (``ConllEvaluator.prepare_conll_lines``): row ``i`` holds gold mention ``gold[i]`` and system
    mention ``system[i]`` (indices into the document's mention lists; ``None``: nothing, v1.8's
    ``None (-)`` line). ``key`` and ``response`` are those files' documents, every mention the
    one-token span ``(i, i)`` of its row, so a key and a response mention are the same mention
    exactly when they share a row."""

    doc_id: str
    gold: tuple[int | None, ...]
    system: tuple[int | None, ...]
    key: ConllDocument
    response: ConllDocument
    #: per row, the text column v1.8 writes for each side: the mention text with white space
    #: runs replaced by ``_``, ``None`` on a row without mention
    texts: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())

    @property
    def aligned(self) -> int:
        """Rows with both a gold and a system mention."""
        return sum(g is not None and s is not None
                   for g, s in zip(self.gold, self.system, strict=True))


def coref_rows(doc_id: str, gold: Sequence[Mention], system: Sequence[Mention],
               gold_chains: Sequence[frozenset[str]], system_chains: Sequence[frozenset[str]],
               alignment: np.ndarray, weights: np.ndarray, threshold: float = 1.0
               ) -> CorefRows:
    """v1.8's conversion of one document (``create_aligned_tables`` + ``prepare_lines``).

    Rows: first every gold mention in file order, with the system mention the mapping aligns
    to it when the pair's weight (Dice) is at least ``threshold`` (v1.8's default 1.0: identical
    spans; partially overlapping mapped pairs are split); then every system mention left over,
    in file order, on a row of its own. Clusters: a mention takes the first ``@Coreference``
    cluster (in file order) holding its id, else a fresh singleton cluster -- so two mentions
    sharing an id share a cluster only through a relation. CoNLL entity numbers play no part in
    the scores, only which rows share one."""
    sys_of: list[int | None] = [None] * len(gold)
    used: set[int] = set()
    for (gi, si), w in zip(np.asarray(alignment).reshape(-1, 2).tolist(),
                           np.asarray(weights).tolist(), strict=True):
        if w >= threshold:
            sys_of[gi] = si
            used.add(si)
    extra = [j for j in range(len(system)) if j not in used]
    g_rows = (*range(len(gold)), *([None] * len(extra)))
    s_rows = (*sys_of, *extra)
    name = f"({doc_id}); part 000"
    key = _conll_document(name, [None if i is None else gold[i].mention_id for i in g_rows],
                          gold_chains)
    response = _conll_document(name, [None if j is None else system[j].mention_id
                                      for j in s_rows], system_chains)
    texts = (tuple("None" if i is None else "_".join(gold[i].text.split()) for i in g_rows),
             tuple("None" if j is None else "_".join(system[j].text.split()) for j in s_rows))
    return CorefRows(doc_id, g_rows, s_rows, key, response, texts)


def format_v18_conll(rows: Sequence[CorefRows]) -> tuple[str, str]:
    """The key and response CoNLL files v1.8 writes for ``rows`` (``<-c>_gold.conll`` and
    ``<-c>_sys.conll``), byte for byte: one ``doc<TAB>row<TAB>text<TAB>(entity)`` line per row,
    ``(-)`` on a row without mention, entity numbers as v1.8 gives them (the cluster's index
    among the document's ``@Coreference`` clusters, singletons numbered on from there)."""
    files = []
    for side in (0, 1):
        out = []
        for r in rows:
            doc = (r.key, r.response)[side]
            label = {row: cid for c, cid in zip(doc.clusters, doc.cluster_ids, strict=True)
                     for row, _ in c}
            out.append(f"#begin document ({r.doc_id}); part 000\n")
            for row, text in enumerate(r.texts[side]):
                out.append(f"{r.doc_id}\t{row}\t{text}\t({label.get(row, '-')})\n")
            out.append("#end document\n")
        files.append("".join(out))
    return files[0], files[1]


def _conll_document(name: str, ids: Sequence[str | None], chains: Sequence[frozenset[str]]
                    ) -> ConllDocument:
    """The CoNLL document of one side: row ``r`` is a one-token mention of the cluster of
    ``ids[r]`` (no mention when ``None``); clusters in order of their first row, as the
    reference scorer numbers entities."""
    chain_of: dict[str, int] = {}
    for k, c in enumerate(chains):
        for a in c:
            chain_of.setdefault(a, k)
    fresh = len(chains)
    clusters: dict[int, list[tuple[int, int]]] = {}
    for row, mid in enumerate(ids):
        if mid is None:
            continue
        label = chain_of.get(mid)
        if label is None:
            label, fresh = fresh, fresh + 1
        clusters.setdefault(label, []).append((row, row))
    return ConllDocument(name, tuple(tuple(c) for c in clusters.values()),
                         tuple(str(k) for k in clusters), len(ids))


@dataclass(frozen=True, eq=False)
class CorefEvaluation:
    """v1.8's coreference evaluation of a corpus under one mention mapping.

    ``scores``: :func:`exactalign.metrics.coref.score_documents` on the rows' key/response
    documents, every metric of :data:`COREF_METRICS`, CEAF aligned exactly (the reference's
    Munkres); ``greedy``: CEAFm and CEAFe with the greedy entity alignment, compared with the
    exact one (:meth:`~exactalign.metrics.coref.CorefScores.ceaf_gap`)."""

    combination: str
    threshold: float
    documents: tuple[CorefRows, ...]
    scores: corefm.CorefScores
    greedy: corefm.CorefScores

    def v18_scores(self) -> dict[str, float]:
        """The score v1.8 prints per metric, in its order (:data:`V18_COREF_ORDER`): the corpus
        F1 as the reference scorer prints it -- **truncated** to two decimals of a percentage,
        ``int(F1 * 10000) / 100`` (``CorScorer.pm``'s ``ShowRPF``; BLANC's F1 as its TOTALS
        combine it) -- which v1.8 parses back from the scorer's output.

        Truncation makes the last digit sensitive to rounding when an F1 is exactly on a
        0.01 % step (e.g. B³ F1 = 1/4 computed as 0.2499999...). MUC, CEAFm and BLANC counts
        are integers, so their F1 is the reference's to the bit; for B³ and CEAFe the document
        numerators are computed the Perl way (:func:`_perl_numerators`). Across documents the
        reference adds them in Perl's hash order, which changes from run to run (Perl >= 5.18
        randomises it), so on such a step the official scorer itself prints either value; we
        take the correctly rounded sum (``math.fsum``), independent of order: on the 5 such
        corpora met among 1,140 random ones run through ``scorer_v1.8.py``, it printed what
        most of 10 Perl hash seeds print in 4; every other number was equal."""
        out = {}
        for m in V18_COREF_ORDER:
            x = self.scores.overall[m]
            if m in ("bcub", "ceafe"):
                nums = [_perl_numerators(m, d, ds)
                        for d, ds in zip(self._identified, self.scores.documents, strict=True)]
                x = PRF(math.fsum(a for a, _ in nums), x.recall_den,
                        math.fsum(b for _, b in nums), x.precision_den)
            out[m] = _truncated(x.f1)
        return out

    @cached_property
    def _identified(self) -> list[corefm.Identified]:
        return [corefm.identify(r.key, r.response) for r in self.documents]

    def v18_average(self) -> float:
        """v1.8's "Overall Average CoNLL score": the mean of the printed (truncated) scores of
        every metric but CEAFm -- **BLANC included** (MUC, B³, CEAFe, BLANC), summed in printing
        order. Not the CoNLL-2012 average (:attr:`conll`)."""
        total, n = 0.0, 0
        for m, x in self.v18_scores().items():
            if m not in V18_COREF_SKIPPED:
                total += x
                n += 1
        return total / n

    @property
    def conll(self) -> float:
        """The CoNLL-2012 average: mean F1 (fraction, untruncated) of MUC, B³ and CEAFe."""
        return self.scores.conll


def _truncated(f1: float) -> float:
    return math.trunc(f1 * 10000) / 100


def _perl_numerators(metric: str, d: corefm.Identified, ds: corefm.DocumentScores
                     ) -> tuple[float, float]:
    """The recall and precision numerators of B³ or CEAFe of one document, with the reference
    scorer's floating-point operations in its order (``CorScorer.pm``): B³ adds ``c/|R|`` and
    ``c/|K|`` mention by mention, response chain by response chain (``BCUBED``); CEAFe adds,
    key entity by key entity, ``1 - (1 - phi4)`` of its aligned entity (``CEAF`` minimises
    ``1 - phi4`` and converts back), the alignment being our exact one."""
    if metric == "bcub":
        key = [set(c.tolist()) for c in d.key_chains]
        acc_r = acc_p = 0.0
        for chain in d.response_chains:
            ids = chain.tolist()
            for m in ids:
                k = int(d.key_of[m])
                if k < 0:
                    continue  # c = 0: adds 0/|R| to precision and nothing to recall
                c = sum(1 for x in ids if x in key[k])
                acc_p += c / len(ids)
                acc_r += c / len(d.key_chains[k])
        return acc_r, acc_p
    inst = corefm.ceaf_instance(d, "entity")
    res = ds.ceaf[metric]
    al = np.asarray(res.alignment, dtype=np.int64).reshape(-1, 2)
    w = inst.weights[inst.pair_index(al)]
    phi = dict(zip(al[:, 0].tolist(), w.tolist(), strict=True))
    num = 0.0
    for i in range(len(d.key_chains)):
        num += 1 - (1 - phi.get(i, 0.0))
    return num, num


def coref_evaluate(rows: Sequence[CorefRows], combination: str = "mention_type",
                   threshold: float = 1.0) -> CorefEvaluation:
    """Score the converted documents (:func:`coref_rows`) with the reference scorer's metrics,
    in memory: the corpus counts are summed over all documents, as ``scorer.pl all`` does over
    v1.8's concatenated files (a document without mentions adds nothing; one without
    coreference has only singletons, so its MUC counts are 0/0)."""
    pairs = [(r.key, r.response) for r in rows]
    scores = corefm.score_documents(pairs, COREF_METRICS)
    greedy = corefm.score_documents(pairs, tuple(corefm.CEAF_PHI), ceaf_method="greedy",
                                    compare_exact=True)
    return CorefEvaluation(combination, threshold, tuple(rows), scores, greedy)
