"""The robustness experiment: Holm's procedure, the pair/flip logic on hand-made counts, the
co-optimal ranges and witnesses of MUC messages against brute force, the span-first attribute
range of event nuggets on a hand-made tie (the quick run of every experiment is in
tests/test_experiments.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from exactalign.data import resolve_data_dir
from exactalign.data.pilot import muc4_1992_keys, muc4_1992_paths
from exactalign.io.tbf import read_tbf
from exactalign.metrics import muc4, nugget
from experiments import robustness

CONFIG = {"seed": 0, "samples": 2_000, "alpha": 0.05}


def test_holm_steps_down():
    # sorted p: 0.001 < 0.05/4, 0.012 < 0.05/3, 0.03 >= 0.05/2 stops: the last two kept
    assert robustness._holm([0.03, 0.001, 0.04, 0.012], 0.05) == [False, True, False, True]
    assert robustness._holm([], 0.05) == []
    assert robustness._holm([0.2, 0.01], 0.05) == [False, True]


def _entry(system, heuristic, exact):
    return robustness._entry("toy", "F1", system, [f"d{i}" for i in range(len(exact))],
                             {"h": heuristic, "exact": exact}, ["h"], True)


def test_a_heuristic_that_reorders_two_systems_is_a_flip():
    # per document (P num, P den, R num, R den); 40 documents each
    a_h = [[1, 2, 1, 2]] * 40                 # A: F 0.5 under the heuristic ...
    a_x = [[2, 2, 2, 2]] * 40                 # ... and 1.0 under exact
    b = [[3, 4, 3, 4]] * 40                   # B: 0.75 under both
    rows = robustness._panel_rows([_entry("A", a_h, a_x), _entry("B", b, b)], CONFIG)
    sys_rows = {r["system"]: r for r in rows if r["kind"] == "system"}
    assert sys_rows["A"]["delta"] == pytest.approx(-0.5)
    assert sys_rows["A"]["docs_below"] == 40 and sys_rows["A"]["significant"]
    assert (sys_rows["A"]["rank"], sys_rows["A"]["rank_exact"]) == (2, 1)
    assert sys_rows["B"]["delta"] == 0 and sys_rows["B"]["docs_below"] == 0
    assert not sys_rows["B"]["significant"]
    (pair,) = [r for r in rows if r["kind"] == "pair"]
    assert (pair["system"], pair["system_b"]) == ("A", "B")
    assert pair["delta"] == pytest.approx(-0.25) and pair["delta_exact"] == pytest.approx(0.25)
    assert pair["flipped"] and pair["significant_exact"] and pair["verdict_changed"]
    assert pair["holm_exact"]


def test_identical_alignments_change_nothing():
    rng = np.random.default_rng(1)
    entries = []
    for s in "ABC":
        c = rng.integers(1, 9, size=(25, 4)).astype(float)
        c[:, 0] = np.minimum(c[:, 0], c[:, 1])
        c[:, 2] = c[:, 0]
        entries.append(_entry(s, c, c))
    rows = robustness._panel_rows(entries, CONFIG)
    pairs = [r for r in rows if r["kind"] == "pair"]
    assert len(pairs) == 3
    for r in pairs:
        assert not r["flipped"] and not r["verdict_changed"]
        assert r["delta"] == r["delta_exact"] and r["p_randomization"] == r["p_exact"]
    for r in rows:
        if r["kind"] == "system":
            assert r["delta"] == 0 and r["p_randomization"] == 1 and r["rank"] == r["rank_exact"]


def test_systems_on_other_documents_are_refused():
    with pytest.raises(robustness.ExperimentError, match="other documents"):
        robustness._panel_rows([_entry("A", [[1, 1, 1, 1]], [[1, 1, 1, 1]]),
                                _entry("B", [[1, 1, 1, 1]] * 2, [[1, 1, 1, 1]] * 2)], CONFIG)


# -- event nuggets: a tie between two system mentions of the same span ------------------------
GOLD = """#BeginOfDocument d1
gold\td1\tE1\t0,5\tattack\tConflict_Attack\tActual
gold\td1\tE2\t10,15\tdied\tLife_Die\tActual
#EndOfDocument
"""
SYSTEM = """#BeginOfDocument d1
sys\td1\tS1\t0,5\tattack\tConflict_Demonstrate\tActual
sys\td1\tS2\t0,5\tattack\tConflict_Attack\tOther
sys\td1\tS3\t10,15\tdied\tLife_Die\tActual
#EndOfDocument
"""


def test_span_first_attribute_range_covers_both_tied_span_mappings(tmp_path):
    (tmp_path / "g.tbf").write_text(GOLD)
    (tmp_path / "s.tbf").write_text(SYSTEM)
    ev = nugget.evaluate(read_tbf(tmp_path / "g.tbf"), read_tbf(tmp_path / "s.tbf"),
                         mappings=["exact"])
    docs = [d for d in ev.scores["exact"].documents if d.valid]
    ranges = {r["secondary"]: r for r in robustness._span_first_ranges(docs)}
    # E1 may take S1 (type wrong, realis right) or S2 (type right, realis wrong); E2 takes S3
    t, re_, both = (ranges[f"{x} (span-first)"] for x in ("type TP", "realis TP",
                                                          "type+realis TP"))
    assert (t["range_min"], t["range_max"]) == (1.0, 2.0)
    assert (re_["range_min"], re_["range_max"]) == (1.0, 2.0)
    assert (both["range_min"], both["range_max"]) == (1.0, 1.0)
    assert t["docs_tied"] == 1 and both["docs_tied"] == 0
    assert t["range_min"] <= t["value"] <= t["range_max"]


# -- MUC-4 1992 messages: co-optimal COR/PAR and witnesses against enumeration -----------------
def _tables(test_set: str, system: str):
    data = resolve_data_dir()
    if not data.available or not (data.path / "muc4" / "muc4_1992").is_dir():
        pytest.skip("pilot data muc4/muc4_1992 not available")
    from exactalign.io import muc4 as io
    from exactalign.metrics.muc4.guidelines import Judge

    key_p, _, hist_p, _ = muc4_1992_paths(data.path, test_set, "GE")
    keys, history = muc4_1992_keys(key_p, hist_p)
    _, resp_p, _, _ = muc4_1992_paths(data.path, test_set, system)
    resps = io.by_message(io.read_templates(resp_p))
    for msg, ks in keys.items():
        full = muc4.message_table(msg, ks, resps.get(msg, []), Judge(msg, history), "muc1992",
                                  content=False)
        yield full, muc4.restrict_content(full)


def _alignments(t):
    for r in range(min(len(t.keys), len(t.resps)) + 1):
        for sub in itertools.combinations(t.pairs, r):
            if len({i for i, _ in sub}) == r == len({j for _, j in sub}):
                yield sub


@pytest.mark.parametrize("test_set,system", [("TST3", "UMASS"), ("TST3", "SRI"), ("TST4", "GE")])
def test_muc_co_optimal_counts_and_witness_match_enumeration(test_set, system):
    checked = 0
    for full, t in _tables(test_set, system):
        if len(t.pairs) > 9:
            continue
        exact, _, _ = muc4.align_exact(t)
        best = full.counts(exact).f1
        optimal = [a for a in _alignments(t) if abs(full.counts(a).f1 - best) <= 1e-12]
        assert optimal, t.message
        rng = muc4.co_optimal_counts(t, exact)
        for f in ("COR", "PAR"):
            vals = [getattr(full.counts(a), f) for a in optimal]
            assert rng[f] == (min(vals), max(vals)), (t.message, f)
        greedy = {tuple(p) for p in muc4.align_muc1992(t)}
        w = muc4.witness(t, exact, sorted(greedy))
        assert abs(full.counts([tuple(p) for p in w.optimal]).f1 - best) <= 1e-12
        fewest = min(len(greedy ^ set(a)) for a in optimal)
        assert w.changes == fewest, t.message
        assert {tuple(p) for p in w.remove} == greedy - {tuple(p) for p in w.optimal}
        checked += 1
    assert checked > 50
