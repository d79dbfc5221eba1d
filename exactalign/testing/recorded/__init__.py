"""Official peer outputs recorded outside the pilot data (the peer run on pilot files by a
maintainer, its printout copied here): the reference values of the conformance tests and the
"recorded run" rows of ``experiments/fidelity``. One copy, imported by both.

The values live in modules of one source each (this package hands every name on):
:mod:`.official` (EvmEval, the TempEval-3 toolkit, the official numbers of TE3, GTT and GRIT),
:mod:`.corefud` (the CorefUD scorer), :mod:`.coval` (coval).
"""

from __future__ import annotations

from .corefud import COREFUD_GENERATED
from .coval import COVAL_CONLL_TESTS, COVAL_GENERATED
from .official import (
    ACE_COREF,
    GRIT_CEAF_REE_F1,
    GTT_OFFICIAL,
    TBDENSE,
    TE3_MODALITY,
    TE3_OFFICIAL,
    TE3_PER_DOC,
    TE3_PER_DOC_RUN,
)

__all__ = [
    "COREFUD_GENERATED",
    "COVAL_CONLL_TESTS",
    "COVAL_GENERATED",
    "ACE_COREF",
    "TE3_PER_DOC_RUN",
    "TE3_PER_DOC",
    "TE3_MODALITY",
    "TBDENSE",
    "TE3_OFFICIAL",
    "GTT_OFFICIAL",
    "GRIT_CEAF_REE_F1",
]
