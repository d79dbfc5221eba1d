"""``exactalign.score``: one call for any declared metric, on documents in memory or on files.

    >>> import exactalign
    >>> gold = [{"entities": [["a", "b", "c"], ["d"]]}]
    >>> pred = [{"entities": [["a", "b"], ["c", "d"]]}]
    >>> r = exactalign.score("coref-ceafm", references=gold, predictions=pred)
    >>> (r.score.recall, r.score.precision, r.status.value)
    (0.75, 0.75, 'optimal')
    >>> exactalign.score("coref-ceafm", references=gold, predictions=pred,
    ...                  method="greedy").status.value
    'feasible'

The result is the :class:`~exactalign.declared.metric.MetricResult` whose ``to_dict()`` is what
``exactalign score --json`` prints for that metric and method.
"""

from __future__ import annotations

from pathlib import Path

from ..core.errors import InputError
from .metric import Metric, MetricResult


def _metric(metric) -> Metric:
    if isinstance(metric, Metric):
        return metric
    if isinstance(metric, Path) or (isinstance(metric, str) and
                                    metric.endswith((".toml", ".json"))):
        from .files import load_spec

        metrics = load_spec(metric)
        if len(metrics) != 1:
            raise InputError(f"{metric} declares {len(metrics)} metrics; load them with "
                             "exactalign.declared.files.load_spec and score each")
        return metrics[0]
    from .library import LIBRARY

    if metric not in LIBRARY:
        raise InputError(f"unknown metric {metric!r}; shipped: " + ", ".join(LIBRARY))
    return LIBRARY[metric]()


_REQUIRED = object()


def score(metric, *args, references=_REQUIRED, predictions=_REQUIRED, method: str = "exact",
          format: str = "jsonl", seed: int = 0, backend: str = "highs") -> MetricResult:
    """Score ``predictions`` against ``references`` with ``metric``; the documents are given
    by keyword (``score(metric, references=..., predictions=...)``, as
    :meth:`Metric.compute`), so that they cannot be swapped without a word.

    ``metric``: a shipped metric's name (``exactalign score --list``), a :class:`Metric`, or a
    spec file (``.toml``/``.json``). ``references`` / ``predictions``: lists of documents
    (paired by position), or two paths -- JSONL files (paired as ``exactalign score`` pairs
    them: by ``id``, or by position when neither file has ids; reference documents missing
    from the system file are scored as empty predictions, with a :class:`UserWarning` naming
    them) or, with ``format``, native files (``amr``, ``conll``, ``ree``, ``gtt``).
    ``method``: ``exact``, ``ilp``, ``greedy`` or ``brute``."""
    if args or references is _REQUIRED or predictions is _REQUIRED:
        raise TypeError("exactalign.score takes the documents by keyword: "
                        "score(metric, references=..., predictions=...) (positional lists "
                        "would swap precision and recall when swapped)")
    m = _metric(metric)
    if isinstance(references, str | Path) != isinstance(predictions, str | Path):
        raise InputError("give references and predictions both as paths or both as lists")
    if not isinstance(references, str | Path):
        return m.compute(predictions=predictions, references=references, method=method,
                         seed=seed, backend=backend)
    import warnings

    from .files import missing_warning, pair_documents, read_jsonl

    if str(references) == "-" and str(predictions) == "-":
        raise InputError("references and predictions cannot both be '-' (standard input can "
                         "be read once)")
    if format == "jsonl":
        ref_docs, sys_docs = read_jsonl(references), read_jsonl(predictions)
    else:
        from .convert import READERS, read_native

        if format not in READERS:
            raise InputError(f"unknown format {format!r}; choose jsonl, " + ", ".join(READERS))
        ref_docs, sys_docs = read_native(format, references, predictions)
    pairing = pair_documents(m, ref_docs, sys_docs, str(references), str(predictions))
    warning = missing_warning(pairing)
    if warning is not None:
        warnings.warn(warning, UserWarning, stacklevel=2)
    try:
        return m.compute(predictions=pairing.predictions, references=pairing.references,
                         method=method, seed=seed, ids=pairing.ids, backend=backend)
    except InputError as e:
        raise pairing.locate(e) from None


def prepare(metric, *args, references=_REQUIRED, method: str = "exact", seed: int = 0,
            backend: str = "highs", ids=None):
    """``metric`` (a name, a :class:`Metric` or a spec file, as :func:`score`) bound to
    ``references`` (a list of documents) for a training or tuning loop: returns a
    :class:`~exactalign.declared.metric.PreparedMetric`, whose ``compute(predictions=...,
    indices=...)`` gives what :func:`score` gives on the same documents, the references'
    part computed once."""
    if args or references is _REQUIRED:
        raise TypeError("exactalign.prepare takes the references by keyword: "
                        "prepare(metric, references=...)")
    if isinstance(references, str | Path):
        raise InputError("prepare takes the reference documents as a list (read a file with "
                         "exactalign.declared.files.read_jsonl)")
    return _metric(metric).prepare(references, method=method, seed=seed, backend=backend,
                                   ids=ids)
