"""The pilot data's sets, named once: which files pair with which, independent of the recorded
reference values (``amr/reference/*.json`` are recorded, not fetchable: a fetched cache has the
AMR files but not them, and the pairs must not depend on them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple


class AmrPair(NamedTuple):
    name: str
    test: Path
    gold: Path
    pairs: int  # graphs in each file
    reference: dict | None  # amr/reference/NAME.json, when present


#: name -> (test file, gold file, graphs in each), under ``amr/``; each name is also that of its
#: recorded reference values, ``amr/reference/NAME.json`` (a test pins the two together).
AMR_PAIRS = {
    "bamboo_sts_test": ("bamboo-sts-test/src.test.amr", "bamboo-sts-test/tgt.test.amr", 1380),
    "lp_bart_t5_vs_gold": ("lpp-two-parsers/src.test.amr", "lpp-two-parsers/tgt.test.amr", 400),
    "lp_camr_vs_gold": ("lpp-test-jamr-camr/wang.txt", "lpp-test-jamr-camr/lp_test.txt", 103),
    "lp_jamr_vs_camr": ("lpp-test-jamr-camr/jamr.txt", "lpp-test-jamr-camr/wang.txt", 103),
    "lp_jamr_vs_gold": ("lpp-test-jamr-camr/jamr.txt", "lpp-test-jamr-camr/lp_test.txt", 103),
}


def amr_pairs(amr: Path, names=None) -> list[AmrPair]:
    """The AMR file pairs present under ``amr`` (both files there), in name order, restricted
    to ``names`` (file names ``NAME.json`` or bare names) when given; each with its reference
    values when ``amr/reference/NAME.json`` is there."""
    wanted = None if not names else {Path(n).stem for n in names}
    out = []
    for name, (test, gold, n) in sorted(AMR_PAIRS.items()):
        if wanted is not None and name not in wanted:
            continue
        if not ((amr / test).is_file() and (amr / gold).is_file()):
            continue
        ref = amr / "reference" / f"{name}.json"
        out.append(AmrPair(name, amr / test, amr / gold, n,
                           json.loads(ref.read_text()) if ref.is_file() else None))
    return out


#: The CoNLL reference scorer's test cases, under ``coref/``.
CONLL_TESTS = "conll-reference-scorer-tests"


def conll_test_pairs(base: Path) -> list[tuple[str, str]]:
    """``(key file, response file)`` of every test case in ``base`` (the folder
    :data:`CONLL_TESTS`), paths relative to it, in case order (``TC-A-1`` ... ``TC-A-13``,
    ``TC-B-1``, ...): each ``DataFiles/TC-X-N.response`` with its ``TC-X.key``. The harness's
    expected values (``expected_values.json``, recorded) list the same pairs in the same order
    (a test pins it); the pairs do not depend on them."""
    pairs = []
    for resp in (base / "DataFiles").glob("*.response"):
        case, _, n = resp.stem.rpartition("-")
        if case and n.isdigit() and (base / "DataFiles" / f"{case}.key").is_file():
            pairs.append((f"DataFiles/{case}.key", f"DataFiles/{resp.name}", int(n)))
    return [(k, r) for k, r, _ in sorted(pairs, key=lambda p: (p[0], p[2]))]
