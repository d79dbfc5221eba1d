"""exactalign experiments: each one maps a config to rows, written as ``<out>/<name>/rows.csv``
plus ``meta.json``; figures and ``<out>/SUMMARY.md`` are made from the CSVs alone.

Command line (see :mod:`experiments.__main__`)::

    python -m experiments list
    python -m experiments run --all|NAME... [--quick] [--out DIR] [--jobs N] [--seed S] [--quiet]
                              [--fresh]
    python -m experiments figures [--out DIR] [NAME...]

:data:`REGISTRY` maps each name to its module; the module protocol is described in
:mod:`experiments.runner`.
"""

from __future__ import annotations

from . import (
    bipartite_scaling,
    coref_ere_gap,
    corefud_gap,
    declared_metrics,
    doc_scale,
    doc_smatch,
    drs_gap,
    fidelity,
    grits_gap,
    monotone_gap,
    muc4_gap,
    nugget_gap,
    performance,
    robustness,
    runner,
    smatch_gap,
    smatch_walltime,
    temporal_gap,
    umr_gap,
)

#: Experiment name -> module (``run``, ``QUICK``, ``FULL``, ``summary``, ``figures``, ...).
REGISTRY = {
    bipartite_scaling.NAME: bipartite_scaling,
    coref_ere_gap.NAME: coref_ere_gap,
    corefud_gap.NAME: corefud_gap,
    nugget_gap.NAME: nugget_gap,
    muc4_gap.NAME: muc4_gap,
    monotone_gap.NAME: monotone_gap,
    grits_gap.NAME: grits_gap,
    smatch_gap.NAME: smatch_gap,
    smatch_walltime.NAME: smatch_walltime,
    doc_smatch.NAME: doc_smatch,
    temporal_gap.NAME: temporal_gap,
    fidelity.NAME: fidelity,
    declared_metrics.NAME: declared_metrics,
    robustness.NAME: robustness,
    performance.NAME: performance,
    doc_scale.NAME: doc_scale,
    umr_gap.NAME: umr_gap,
    drs_gap.NAME: drs_gap,
}

runner.set_registry(REGISTRY)  # the runner is handed the registry; it never imports this package

__all__ = ["REGISTRY"]
