"""Declared metrics: write a metric once as a similarity declaration (Chen et al. 2023's
algebra) and get its certified exact score, its greedy twin and a brute-force oracle.

    >>> from exactalign.declared import Metric, Match, Eq
    >>> ceafm = Metric(Match(Match(Eq())), field="entities", name="CEAFm")
    >>> gold = {"entities": [["a", "b", "c"], ["d"]]}
    >>> pred = {"entities": [["a", "b"], ["c", "d"]]}
    >>> ceafm.compute(predictions=[pred], references=[gold]).score.f1
    0.75

:mod:`~exactalign.declared.nodes` holds the declarations, :mod:`~exactalign.declared.engine`
their evaluation, :mod:`~exactalign.declared.metric` the corpus-level metric and result, and
:mod:`~exactalign.declared.library` the shipped metrics (coreference, relations, events,
dependencies, templates, Smatch).
"""

from .engine import METHODS, Evaluator, Outcome
from .metric import DocumentScore, Metric, MetricResult, PreparedMetric
from .nodes import Eq, Func, Hierarchy, Latent, Match, Node, Record, Span, from_dict

__all__ = [
    "METHODS", "DocumentScore", "Eq", "Evaluator", "Func", "Hierarchy", "Latent", "Match",
    "Metric", "MetricResult", "Node", "Outcome", "PreparedMetric", "Record", "Span", "from_dict",
]
