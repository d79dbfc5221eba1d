"""The in-process API (issue 39): a scorer made once on the references gives, call after call,
what the one-shot function gives on the same pairs -- :class:`~exactalign.metrics.smatch.
SmatchScorer` against :func:`~exactalign.metrics.smatch.score_pairs`,
:class:`~exactalign.metrics.coref.CorefScorer` against
:func:`~exactalign.metrics.coref.score_documents`, and :meth:`Metric.prepare` (and
:func:`exactalign.prepare`) against :meth:`Metric.compute`. Inputs are generated (hypothesis
and seeded generators), no pilot data."""

from __future__ import annotations

import math

import numpy as np
import penman
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_declared import DOCS

import exactalign
from exactalign.core.errors import InputError
from exactalign.declared.library import LIBRARY
from exactalign.io.amr import parse_graph
from exactalign.io.conll import Document
from exactalign.metrics import coref, smatch
from exactalign.synthetic import random_amr_sentences
from exactalign.testing.strategies import penman_graphs


# --------------------------------------------------------------------------------------------
# Smatch
# --------------------------------------------------------------------------------------------
def _same_result(a, b):
    if a is None or b is None:
        assert a is b
        return
    assert (a.status, a.objective, a.bound, a.method) == (b.status, b.objective, b.bound,
                                                          b.method)
    assert tuple(map(tuple, a.alignment)) == tuple(map(tuple, b.alignment))
    assert dict(a.details) == dict(b.details)


def _same_corpus(a: smatch.CorpusScore, b: smatch.CorpusScore):
    assert (a.variant, a.methods, a.duplicates) == (b.variant, b.methods, b.duplicates)
    assert len(a.pairs) == len(b.pairs)
    for p, q in zip(a.pairs, b.pairs, strict=True):
        assert (p.index, p.test_triples, p.gold_triples, p.graphs) == (
            q.index, q.test_triples, q.gold_triples, q.graphs)
        _same_result(p.exact, q.exact)
        _same_result(p.hillclimb, q.hillclimb)
    for m in a.methods:
        assert a.totals(m) == b.totals(m)
        assert a.scores(m) == b.scores(m)


def _sentences(n: int, seed: int) -> list[str]:
    return [penman.encode(g, indent=None) for g in random_amr_sentences(n, seed)]


@pytest.mark.parametrize("method", smatch.METHODS)
@pytest.mark.parametrize("variant", smatch.VARIANTS)
@pytest.mark.parametrize("duplicates", smatch.DUPLICATES)
def test_smatch_scorer_equals_score_pairs_on_generated_sentences(method, variant, duplicates):
    gold, pred = _sentences(12, 1), _sentences(12, 2)
    opts = {"method": method, "variant": variant, "duplicates": duplicates, "restarts": 2,
            "seed": 3}
    scorer = smatch.SmatchScorer(gold, **opts)
    pairs = [(parse_graph(p), parse_graph(g)) for p, g in zip(pred, gold, strict=True)]
    _same_corpus(scorer.score(pred), smatch.score_pairs(pairs, **opts))
    # a batch: any references, in any order, repeated; strings or graphs
    idx = [5, 0, 5, 11]
    batch = [pairs[k][0] for k in (3, 1, 2, 0)]
    _same_corpus(scorer.score(batch, indices=idx),
                 smatch.score_pairs([(t, pairs[i][1]) for t, i in zip(batch, idx, strict=True)],
                                    **opts))
    # called again: the same answer (nothing a call leaves behind changes the next)
    _same_corpus(scorer.score(batch, indices=idx), scorer.score(batch, indices=idx))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gold=st.lists(penman_graphs(), min_size=1, max_size=3),
       pred=st.lists(penman_graphs(), min_size=1, max_size=3),
       method=st.sampled_from(smatch.METHODS), duplicates=st.sampled_from(smatch.DUPLICATES))
def test_smatch_scorer_equals_score_pairs_on_quirky_graphs(gold, pred, method, duplicates):
    """smatch's notation quirks (inverted roles, quoted constants, re-entrancies, duplicate
    triples): the scorer and the one-shot function agree on every batch."""
    scorer = smatch.SmatchScorer(gold, method=method, duplicates=duplicates, restarts=1)
    idx = [k % len(gold) for k in range(len(pred))]
    pairs = [(parse_graph(p), parse_graph(gold[i])) for p, i in zip(pred, idx, strict=True)]
    _same_corpus(scorer.score(pred, indices=idx),
                 smatch.score_pairs(pairs, method=method, duplicates=duplicates, restarts=1))


def test_smatch_scorer_sentence_restriction_equals_score_pairs():
    doc = ("(d / document :snt1 (a / want-01 :ARG0 (b / boy)) :snt2 (g / go-02 :ARG0 (c / "
           "boy)))")
    sys_ = ("(d / document :snt1 (a / want-01 :ARG0 (b / girl)) :snt2 (g / go-02 :ARG0 (c / "
            "boy) :ARG1 (e / boy)))")
    scorer = smatch.SmatchScorer([doc], restrict="sentence")
    _same_corpus(scorer.score([sys_]),
                 smatch.score_pairs([(parse_graph(sys_), parse_graph(doc))],
                                    restrict="sentence"))


def test_smatch_scorer_errors_name_the_input():
    scorer = smatch.SmatchScorer(["(a / b)"])
    with pytest.raises(InputError, match="prediction 0: unparsable AMR graph"):
        scorer.score(["(a / b"])
    with pytest.raises(InputError, match="reference index 3 is not in 0..0"):
        scorer.score(["(a / b)"], indices=[3])
    with pytest.raises(InputError, match="2 predictions for 1 references"):
        scorer.score(["(a / b)", "(a / b)"])
    with pytest.raises(InputError, match="reference 0: an AMR graph is an AmrGraph or PENMAN"):
        smatch.SmatchScorer([3])
    with pytest.raises(ValueError, match="unknown smatch variant"):
        smatch.SmatchScorer(["(a / b)"], variant="nope")


# --------------------------------------------------------------------------------------------
# coreference
# --------------------------------------------------------------------------------------------
def _coref_document(rng: np.random.Generator, name: str, n: int) -> tuple[Document, Document]:
    """A key of ``n`` mentions and a response that moves, drops, adds and repeats some."""
    spans = [(int(s), int(s) + int(rng.integers(0, 3))) for s in rng.choice(4 * n, n, False)]
    label = rng.integers(0, max(1, n // 3), n)
    key = [tuple(spans[m] for m in np.flatnonzero(label == e)) for e in np.unique(label)]
    plabel = np.where(rng.random(n) < 0.2, rng.integers(0, max(1, n // 3) + 2, n), label)
    kept = rng.random(n) >= 0.1
    resp = [[spans[m] for m in np.flatnonzero((plabel == e) & kept)] for e in np.unique(plabel)]
    resp = [c for c in resp if c]
    for j in range(n // 8):  # spurious mentions, and now and then a repeated key mention
        resp[int(rng.integers(len(resp)))].append((5 * n + j, 5 * n + j))
    if rng.random() < 0.5 and resp:
        resp[-1].append(spans[0])
    return Document(name, tuple(key)), Document(name, tuple(tuple(c) for c in resp))


def _same_coref(a: coref.CorefScores, b: coref.CorefScores, ceaf_exact: bool):
    assert a.metrics == b.metrics and a.ceaf_method == b.ceaf_method
    for da, db in zip(a.documents, b.documents, strict=True):
        assert (da.name, da.mentions, da.repeated) == (db.name, db.mentions, db.repeated)
        for m in a.metrics:
            if m in coref.CEAF_PHI and not ceaf_exact:  # the same optimum, maybe another
                x, y = da.scores[m], db.scores[m]  # alignment: the same value to rounding
                assert (x.recall_den, x.precision_den) == (y.recall_den, y.precision_den)
                assert math.isclose(x.recall_num, y.recall_num, rel_tol=1e-12, abs_tol=1e-12)
                assert da.ceaf[m].status is db.ceaf[m].status
            else:
                assert da.scores[m] == db.scores[m], m


@pytest.mark.parametrize("seed", range(6))
def test_coref_scorer_equals_score_documents(seed):
    rng = np.random.default_rng(seed)
    docs = [_coref_document(rng, f"d{k}", int(rng.integers(1, 60))) for k in range(8)]
    keys = [k for k, _ in docs]
    responses = [r for _, r in docs]
    scorer = coref.CorefScorer(keys, max_repeated=None)
    got = scorer.score(responses)
    _same_coref(got, coref.score_documents(docs, max_repeated=None), ceaf_exact=False)
    # the one-shot path with the scorer's CEAF path: equal to the last bit
    _same_coref(got, coref.score_documents(docs, max_repeated=None, decompose=False),
                ceaf_exact=True)
    # clusters as plain lists, a batch against chosen keys, called twice
    idx = [3, 3, 0]
    batch = [[list(c) for c in responses[k].clusters] for k in (1, 3, 0)]
    want = coref.score_documents([(keys[i], Document(keys[i].name, responses[k].clusters))
                                  for i, k in zip(idx, (1, 3, 0), strict=True)],
                                 max_repeated=None, decompose=False)
    _same_coref(scorer.score(batch, indices=idx), want, ceaf_exact=True)
    _same_coref(scorer.score(batch, indices=idx), want, ceaf_exact=True)


@pytest.mark.parametrize("method", ["greedy", "ilp"])
def test_coref_scorer_equals_score_documents_other_ceaf_methods(method):
    rng = np.random.default_rng(7)
    docs = [_coref_document(rng, f"d{k}", 20) for k in range(4)]
    scorer = coref.CorefScorer([k for k, _ in docs], ceaf_method=method, max_repeated=None)
    _same_coref(scorer.score([r for _, r in docs]),
                coref.score_documents(docs, ceaf_method=method, max_repeated=None),
                ceaf_exact=True)


def test_coref_scorer_refuses_as_score_documents_refuses():
    key = Document("d", (((0, 0), (1, 1)),))
    resp = Document("d", (((0, 0), (1, 1)), ((0, 0),)))
    with pytest.raises(InputError, match="repeats 1 key mentions"):
        coref.CorefScorer([key], max_repeated=0).score([resp])
    with pytest.raises(InputError, match="repeats 1 key mentions"):
        coref.score_documents([(key, resp)], max_repeated=0)
    with pytest.raises(InputError, match="response 0: a document is a Document or a list"):
        coref.CorefScorer([key]).score([3])


# --------------------------------------------------------------------------------------------
# declared metrics
# --------------------------------------------------------------------------------------------
def _same_metric_result(a, b):
    assert (a.metric, a.method, a.average, a.spec) == (b.metric, b.method, b.average, b.spec)
    assert len(a.documents) == len(b.documents)
    for x, y in zip(a.documents, b.documents, strict=True):
        assert (x.id, x.prf, x.status) == (y.id, y.prf, y.status)
        for r, s in zip(x.results, y.results, strict=True):
            _same_result(r, s)
    assert a.score == b.score and a.status is b.status and a.f1_bound == b.f1_bound


@pytest.mark.parametrize("name", sorted(LIBRARY))
def test_prepared_metric_equals_compute(name):
    metric = LIBRARY[name]()

    @settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(gold=st.lists(DOCS[name], min_size=1, max_size=3),
           pred=st.lists(DOCS[name], min_size=1, max_size=3),
           method=st.sampled_from(["exact", "greedy"]))
    def check(gold, pred, method):
        prepared = metric.prepare(gold, method=method)
        idx = [k % len(gold) for k in range(len(pred))]
        want = metric.compute(predictions=pred, references=[gold[i] for i in idx],
                              method=method, ids=[str(i) for i in idx])
        _same_metric_result(prepared.compute(predictions=pred, indices=idx), want)
        _same_metric_result(prepared.compute(predictions=pred, indices=idx), want)

    check()


def test_exactalign_prepare_facade():
    gold = [{"entities": [["a", "b", "c"], ["d"]]}, {"entities": [["x"], ["y", "z"]]}]
    pred = [{"entities": [["b"], ["a", "c", "d"]]}, {"entities": [["x", "y"], ["z"]]}]
    prepared = exactalign.prepare("coref-ceafe", references=gold)
    _same_metric_result(prepared.compute(predictions=pred),
                        exactalign.score("coref-ceafe", references=gold, predictions=pred))
    with pytest.raises(TypeError, match="by keyword"):
        exactalign.prepare("coref-ceafe", gold)
    with pytest.raises(TypeError, match="by keyword"):
        prepared.compute(pred)
    with pytest.raises(InputError, match="reference index 2 is not in 0..1"):
        prepared.compute(predictions=pred[:1], indices=[2])
    with pytest.raises(InputError, match="reference document '0': a document has no"):
        exactalign.prepare("coref-ceafe", references=[{"nope": []}])
