"""The ``--json`` document of ``exactalign nugget``'s dice scheme
(``exactalign/output.schema.json``), built by the report
(:mod:`exactalign.metrics.nugget_report`): its functions handed on here under their former
names -- :func:`to_json`, with :func:`coref_to_json` (``-c``) and :func:`sequencing_to_json`
(``-a``); :func:`score_name` and :func:`document_rows`, which name the scores and group the
documents of every mapping, serve the MUC scheme's document too
(:mod:`~exactalign.cli.nugget.muc`)."""

from __future__ import annotations

from ...metrics.nugget_report import (
    coref_to_json,
    document_rows,
    score_name,
    sequencing_to_json,
    to_json,
)

__all__ = ["to_json", "coref_to_json", "sequencing_to_json", "score_name", "document_rows"]
