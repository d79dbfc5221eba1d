"""Modules of one idea (docs/architecture.md): no module of ``exactalign/`` over 800 lines, none of
``experiments/`` over 1,000, but the few listed by name as not yet split; and a module split into
a package (or into modules of its own) still hands on every name it had, so no importer changes.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIMITS = {"exactalign": 800, "experiments": 1000}

#: Modules over their package's limit, not yet split (path -> why): a debt, not a licence.
#: (The last, problems/latent/exact.py, left when an LP point's bound and rounding moved to
#: lp_point.py: 847 -> 770 lines.)
KNOWN_EXCEPTIONS: dict[str, str] = {}


def _lines(path: Path) -> int:
    with path.open(encoding="utf-8") as f:
        return sum(1 for _ in f)


def oversized(root: Path = ROOT) -> list[str]:
    """``path (lines > limit)`` of every module over its package's limit."""
    out = []
    for pkg, limit in LIMITS.items():
        for path in sorted((root / pkg).rglob("*.py")):
            n = _lines(path)
            if n > limit:
                out.append(f"{path.relative_to(root).as_posix()} ({n} lines > {limit})")
    return out


def test_no_module_over_its_limit():
    over = [o for o in oversized() if o.split(" (")[0] not in KNOWN_EXCEPTIONS]
    assert not over, "split by idea (docs/architecture.md):\n" + "\n".join(over)


def test_the_exceptions_are_real_files_still_too_long():
    """An exception split, shortened or removed leaves the list (it names debts, not wishes)."""
    over = {o.split(" (")[0] for o in oversized()}
    stale = [p for p in KNOWN_EXCEPTIONS if p not in over]
    assert not stale, stale


def test_the_size_check_sees_a_long_module(tmp_path):
    (tmp_path / "exactalign").mkdir()
    (tmp_path / "experiments").mkdir()
    (tmp_path / "exactalign" / "short.py").write_text("x = 1\n" * 800)
    (tmp_path / "exactalign" / "long.py").write_text("x = 1\n" * 801)
    (tmp_path / "experiments" / "long.py").write_text("x = 1\n" * 1001)
    assert oversized(tmp_path) == ["exactalign/long.py (801 lines > 800)",
                                   "experiments/long.py (1001 lines > 1000)"]


#: The public names of each module before its split (and the private ones tests reach), all of
#: which the old import path still hands on.
BEFORE_SPLIT = {
    "exactalign.testing.recorded": (
        "ACE_COREF COREFUD_GENERATED COVAL_CONLL_TESTS COVAL_GENERATED GRIT_CEAF_REE_F1 "
        "GTT_OFFICIAL TBDENSE TE3_MODALITY TE3_OFFICIAL TE3_PER_DOC TE3_PER_DOC_RUN"),
    "exactalign.problems.bipartite": (
        "BRUTE_MAX_PAIRS BipartiteInstance Certificate DENSE_CELLS EXACT_METHODS GREEDY_ROUNDS "
        "HEURISTICS KINDS METHODS SMALL_PASS_PAIRS Witness brute_force certify check "
        "co_optimal_range dual_bound exact_special greedy ilp_model lexicographic lp_bound "
        "pair_names pilot2015 pilot2015_mapping ref_order solve solve_many trivial_bound witness "
        "_alignment_from_edges _assignment_edges _block_distances _certificate_rounds _duals "
        "_improvable _residual_distances _small_distances _solve_ilp"),
    "exactalign.problems.monotone": (
        "BRUTE_MAX_PAIRS COMPACT_MAX_CELLS EXACT_METHODS FORMULATIONS HEURISTICS KINDS METHODS "
        "MonotoneInstance Order PAIRWISE_MAX_ROWS brute_force check conflict_pairs conflicts "
        "greedy ilp_model linext local_search lp_bound pairwise_model sequence_dp solve "
        "InfeasibleAlignmentError _COMPOSE_ROWS _alignment _compose _filter_pairwise "
        "_filter_sequences _score_order _solve_ilp"),
    "exactalign.problems.coref_alignment": (
        "BRUTE_MAX_PAIRS Formulation HEURISTICS METHODS METRICS MentionAlignmentInstance "
        "OA_MAX_ITER OA_TOL as_alignment best_entity_alignment brute_force check "
        "check_alignment evaluate f1_of formulation ilp_model solve stagewise"),
    "experiments.performance": (
        "CHECKS COLUMNS COREF_METRICS CORPUS_FAMILIES DATA_READS DATA_SOURCE DESCRIPTION "
        "FAMILIES FIGURES FULL IN_ALL LOOP_FAMILIES NAME QUICK SEEDING amr_lines amr_pair "
        "coref_ceafe coref_clusters coref_corpus coref_tools cores_used exponents figures "
        "fitted_exponent headline largest_pair library_tools loop_figure loop_inputs "
        "loop_summary loop_tools memory_growth model_nnz nugget_corpus nugget_f1 nugget_tools "
        "ours_version pairs run run_status run_unit scorch_ceafe scorch_json smatch_argv "
        "smatch_corpus smatch_tools summary synthetic_tbf te3_corpus te3_tools units "
        "write_conll _checkout _cycled _dist _interpreter"),
    "experiments.declared_metrics": (
        "COLUMNS CONLL CONLL_TOLERANCE DATA_READS DATA_SOURCE DEP_LABELS DESCRIPTION "
        "ENTITY_TYPES EVENT_TYPES FAMILIES FAMILY_COLORS FAMILY_INDEX FIGURES FULL GRIT GRIT_F1 "
        "GTT_GOLD INCIDENT_TYPES NAME QUICK REE_ROLES REE_WORDS RELATION_TYPES ROLES SEEDING "
        "SMATCH_SETS TEMPLATE_SYSTEMS TOL TYPES figures headline measure perturb_dependencies "
        "perturb_events perturb_ree perturb_relations perturb_templates pilot_corpus pooled run "
        "run_unit summary synthetic_coref_gold synthetic_corpus synthetic_dependency_gold "
        "synthetic_event_gold synthetic_ree_gold synthetic_relation_gold synthetic_templates "
        "units"),
}


@pytest.mark.parametrize("module", sorted(BEFORE_SPLIT))
def test_a_split_module_hands_on_every_name(module):
    mod = importlib.import_module(module)
    missing = [n for n in BEFORE_SPLIT[module].split() if not hasattr(mod, n)]
    assert not missing, f"{module} no longer has {missing}"


@pytest.mark.parametrize("package, name, home", [
    ("exactalign.problems.bipartite", "DENSE_CELLS", "assignment"),
    ("exactalign.problems.bipartite", "_improvable", "methods"),
    ("exactalign.problems.monotone", "_COMPOSE_ROWS", "ilp"),
    ("exactalign.problems.monotone", "COMPACT_MAX_CELLS", "ilp"),
])
def test_a_split_package_stays_one_namespace(monkeypatch, package, name, home):
    """Setting a name on the package sets it where the package's functions read it (as on the
    module it was), and undoing the setting restores it there."""
    pkg = importlib.import_module(package)
    part = importlib.import_module(f"{package}.{home}")
    public = pkg.LEGACY_NAMES.get(name, name)
    before = getattr(part, public)
    marker = object()
    monkeypatch.setattr(pkg, name, marker)
    assert getattr(part, public) is marker and getattr(pkg, public) is marker
    monkeypatch.undo()
    assert getattr(part, public) is before and getattr(pkg, name) is before
