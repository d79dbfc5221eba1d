"""UMR scored inside a training or tuning loop: the gold sentence graphs read and compiled
once, then predictions scored against them again and again, exactly (the objective of
:mod:`exactalign.metrics.umr`, sentence level; AnCast is not run).

    >>> from exactalign.metrics.umr_scorer import UmrScorer
    >>> scorer = UmrScorer(["(s1w / want-01 :ARG0 (s1b / boy))", "(s2g / go-02)"])
    >>> rep = scorer.score(["(s1w / want-01 :ARG0 (s1g / girl))"], indices=[0])
    >>> rep.totals("exact"), round(rep.scores("exact")[2], 4), rep.proven()
    ((3.0, 4, 4), 0.75, 1)

``references``: gold sentence graphs, as PENMAN strings or :class:`penman.Tree` objects, or a
UMR file (path) or :class:`~exactalign.io.umr.UmrDocument` whose sentences are the references.
:meth:`UmrScorer.score` returns the :class:`~exactalign.metrics.umr.UmrReport` that
``score_files(..., method="exact")`` returns on the same sentences (a test checks it).
"""

from __future__ import annotations

from ..core.batch import batch_indices
from ..core.errors import InputError
from .umr import UmrReport, UnitScore, gold_side, instance_of_sides, side_of


def _tree(g, what: str, k: int):
    from ..io.umr import parse_tree

    if isinstance(g, str):
        try:
            return parse_tree(g.strip(), path=None, line=None)
        except InputError as e:
            raise InputError(f"{what} {k}: {e.message}") from None
    if hasattr(g, "node"):
        return g
    raise InputError(f"{what} {k}: a graph is PENMAN text or a penman.Tree, not "
                     f"{type(g).__name__}")


class UmrScorer:
    """Exact UMR scores (AnCast's Smatch-format objective) against fixed references."""

    def __init__(self, references, *, use_smatch_top: bool = True,
                 time_limit: float | None = None, seed: int = 0, backend: str = "highs"):
        from pathlib import Path

        from ..io.umr import UmrDocument, read_umr

        if isinstance(references, str | Path) and Path(references).is_file():
            references = read_umr(references)
        if isinstance(references, UmrDocument):
            self.amr = references.amr
            trees = [s.tree for s in references.sentences]
        else:
            self.amr = False
            trees = [_tree(g, "reference", k) for k, g in enumerate(references)]
        self.use_top = use_smatch_top
        self._options = {"time_limit": time_limit, "seed": seed, "backend": backend}
        self._gold = [gold_side(side_of(t, amr=self.amr, use_top=use_smatch_top))
                      for t in trees]

    def __len__(self) -> int:
        return len(self._gold)

    def score(self, predictions, indices=None) -> UmrReport:
        """Score ``predictions`` (PENMAN strings or trees), the ``k``-th against reference
        ``indices[k]`` (default: every reference in order)."""
        import time

        from ..problems import latent
        from .umr import lr_sums, report
        from .umr_lr import micro_f

        predictions = list(predictions)
        indices = batch_indices(len(predictions), len(self._gold), indices)
        pis = [instance_of_sides(side_of(_tree(p, "prediction", k), amr=self.amr,
                                         use_top=self.use_top), self._gold[i])
               for k, (p, i) in enumerate(zip(predictions, indices, strict=True))]
        t0 = time.perf_counter()
        ex = latent.exact_results([p.instance for p in pis], linking="aggregated",
                                  bnb_work=None, **self._options)
        units = tuple(UnitScore(k, 0, p.test_size, p.gold_size, p.fixed, r)
                      for k, (p, r) in enumerate(zip(pis, ex, strict=True)))
        counts = {"exact": lr_sums(pis, [{int(a): int(b) for a, b in r.alignment} for r in ex])}
        return report(UmrReport("<predictions>", "<references>", "snt", ("exact",), units, {},
                                None, {"exact": time.perf_counter() - t0}, (),
                                {m: micro_f([c]) for m, c in counts.items()}, counts))
