"""A corpus scored in one of the modes (:data:`MODES`): :func:`score_corpus`."""

from __future__ import annotations

from ...core.errors import InputError
from ...io.timeml import TimeMLDocument
from .corpus import CorpusScore, check_same_documents
from .exact import exact_document
from .plain import plain_document
from .te3 import te3_document

__all__ = ["MODES", "score_corpus"]


MODES = ("exact", "te3", "plain")


def score_corpus(gold_docs: dict[str, TimeMLDocument], sys_docs: dict[str, TimeMLDocument],
                 mode: str = "exact", *, backend: str = "highs",
                 time_limit: float | None = None) -> CorpusScore:
    """Score every reference document (a reference document without system output is an
    error, as is a system document without reference) in ``mode`` (:data:`MODES`)."""
    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    check_same_documents(gold_docs, sys_docs)
    docs = []
    for d in sorted(gold_docs):
        if mode == "te3":
            docs.append(te3_document(gold_docs[d], sys_docs[d]))
        elif mode == "plain":
            docs.append(plain_document(gold_docs[d], sys_docs[d]))
        else:
            docs.append(exact_document(gold_docs[d], sys_docs[d], backend=backend,
                                       time_limit=time_limit))
    return CorpusScore(mode, tuple(docs))

