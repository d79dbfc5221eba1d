"""GriTS: the table readers, the factored solution against grits-metric 0.7.0 (bit for bit) and
hand-derived fractions, and the exact 2D-MSS (brute force = branch and bound = ILP; factored <=
exact <= bound)."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactalign.core.errors import InputError
from exactalign.data import resolve_data_dir
from exactalign.io.tables import cells_table, parse_html, read_tables
from exactalign.metrics import grits as M
from exactalign.problems import mss2d


def pubtabnet():
    d = resolve_data_dir()
    p = None if d.path is None else d.path / "tables" / "pubtabnet"
    if p is None or not (p / "sample_gt.json").is_file():
        pytest.skip("needs the pilot data's tables/pubtabnet (run `exactalign data fetch`)")
    return p


def pilot_pairs():
    p = pubtabnet()
    gold, pred = read_tables(p / "sample_gt.json"), read_tables(p / "sample_pred.json")
    ex = list(read_tables(p / "PubTabNet_Examples.jsonl").values())
    pairs = [(gold[n], pred[n]) for n in gold]
    # the 20 annotated tables against one another (they carry boxes: GriTS-Loc)
    pairs += [(ex[i], ex[(i + 1) % len(ex)]) for i in range(len(ex))]
    return pairs


# --------------------------------------------------------------------------------------------
# readers
# --------------------------------------------------------------------------------------------
def test_html_spans_headers_and_text():
    t = parse_html("<table><thead><tr><th colspan='2'>A <b>b</b></th></tr></thead>"
                   "<tbody><tr><td rowspan=2>x<!-- c -->y</td><td>1</td></tr>"
                   "<tr><td>2&amp;3</td></tr></tbody></table>")
    assert (t.n_rows, t.n_cols, t.holes) == (3, 2, 0)
    c = t.cells
    assert [(x.r0, x.r1, x.c0, x.c1) for x in c] == [(0, 1, 0, 2), (1, 3, 0, 1), (1, 2, 1, 2),
                                                     (2, 3, 1, 2)]
    assert [x.text for x in c] == ["A  b", "xy", "1", "2&3"]
    assert [x.header for x in c] == [True, False, False, False]
    assert t.grid_top()[0] == [(0, 0, 2, 1), (-1, 0, 1, 1)]
    assert t.grid_top()[2][0] == (0, -1, 1, 1)
    assert t.grid_con()[2] == ["xy", "2&3"]


def test_html_implied_end_tags_and_ragged_rows():
    t = parse_html("<table><tr><td>a<td>b<tr><td>c</table>")
    assert [(x.r0, x.c0, x.text) for x in t.cells] == [(0, 0, "a"), (0, 1, "b"), (1, 0, "c")]
    assert t.holes == 1
    assert t.grid_con()[1] == ["c", ""]
    assert t.grid_top()[1][1] == (0, 0, 1, 1)  # a hole, filled as grits-metric fills it


@pytest.mark.parametrize("html, message", [
    ("<p>no table here</p>", "no <table>"),
    ("<table></table>", "has no cells"),
    ("<table><tr><td rowspan=3>a</td></tr><tr><td>b</td></tr></table>",
     "cell 0 (row 0, column 0): rowspan 3 reaches row 2, past the table's last row (1)"),
    ("<table><tr><td colspan=x>a</td></tr></table>", "colspan='x' is not a positive integer"),
    ("<table><tr><td colspan=0>a</td></tr></table>", "colspan='0' is not a positive integer"),
    ("<table><tr><td colspan=5000>a</td></tr></table>", "colspan=5000 is past the largest"),
    ("<table><tr><td>a</td><td rowspan=2>b</td></tr><tr><td colspan=2>c</td></tr></table>",
     "cell 2 (row 1, column 0): overlaps cell 1 at row 1, column 1"),
])
def test_html_bad_input_names_file_table_and_cell(html, message):
    with pytest.raises(InputError) as e:
        parse_html(html, name="T", path="f.html")
    assert e.value.path == "f.html"
    assert message in str(e.value)
    assert str(e.value).startswith("f.html")
    assert "table T" in str(e.value)


def test_cell_list_reader_and_errors(tmp_path):
    cells = [{"row_nums": [0], "column_nums": [0, 1], "cell_text": "h", "bbox": [0, 0, 10, 5]},
             {"row_nums": [1], "column_nums": [0], "cell_text": "a", "bbox": [0, 5, 5, 10]},
             {"row_nums": [1], "column_nums": [1], "cell_text": "b"}]
    f = tmp_path / "t.json"
    f.write_text(json.dumps(cells))
    t = read_tables(f)["t"]
    assert t.has_boxes and t.grid_loc()[1] == [(0, 5, 5, 10), (0.0, 0.0, 0.0, 0.0)]
    with pytest.raises(InputError, match=r"cell 1 \(row 0, column 1\): overlaps cell 0"):
        cells_table([cells[0], {"row_nums": [0], "column_nums": [1]}], name="x", path="p")
    with pytest.raises(InputError, match="not consecutive"):
        cells_table([{"row_nums": [0, 2], "column_nums": [0]}], name="x", path="p")
    with pytest.raises(InputError, match="has no cells"):
        cells_table([], name="x", path="p")
    with pytest.raises(InputError, match="x0 > x1"):
        cells_table([{"row_nums": [0], "column_nums": [0], "bbox": [5, 0, 1, 1]}])


def test_pubtabnet_jsonl_reader(tmp_path):
    rec = {"filename": "x.png", "html": {
        "structure": {"tokens": ["<thead>", "<tr>", "<td", ' colspan="2"', ">", "</td>",
                                 "</tr>", "</thead>", "<tbody>", "<tr>", "<td>", "</td>",
                                 "<td>", "</td>", "</tr>", "</tbody>"]},
        "cells": [{"tokens": ["<b>", "H", "</b>"], "bbox": [0, 0, 9, 3]},
                  {"tokens": ["<", "1"], "bbox": [0, 4, 3, 7]}, {"tokens": []}]}}
    f = tmp_path / "t.jsonl"
    f.write_text(json.dumps(rec) + "\n")
    t = read_tables(f)["x.png"]
    assert [c.text for c in t.cells] == ["H", "<1", ""]
    assert [c.bbox for c in t.cells] == [(0, 0, 9, 3), (0, 4, 3, 7), None]
    rec["html"]["cells"].pop()
    f.write_text("\n" + json.dumps(rec) + "\n")
    with pytest.raises(InputError, match="more cells than the 2 annotated") as e:
        read_tables(f)
    assert e.value.line == 2


def test_reader_equals_grits_metric_cells_on_the_pilot():
    grits = pytest.importorskip("grits")
    p = pubtabnet()
    for fname in ("sample_gt.json", "sample_pred.json"):
        raw = json.loads((p / fname).read_text())
        tables = read_tables(p / fname)
        for name, v in raw.items():
            html = v["html"] if isinstance(v, dict) else v
            ref = [(c.row_nums, c.column_nums, c.cell_text, c.is_column_header)
                   for c in grits.html_to_cell_list(html)]
            mine = [(c.row_nums, c.column_nums, c.text, c.header) for c in tables[name].cells]
            assert mine == ref, (fname, name)


# --------------------------------------------------------------------------------------------
# the factored solution
# --------------------------------------------------------------------------------------------
def _table(rows):
    """A table of 1x1 cells from a list of rows of texts."""
    return parse_html("<table>" + "".join("<tr>" + "".join(f"<td>{x}</td>" for x in r)
                                          + "</tr>" for r in rows) + "</table>")


def test_hand_derived_fractions():
    # GriTS-Con: gold 2x1 ["ab", "cd"], pred 1x1 ["ab"]: tp 1, P 1, R 1/2, F 2/3
    rep = M.score(_table([["ab"], ["cd"]]), _table([["ab"]]), variant="con")
    s = rep.get("con", "factored")
    assert (s.tp, s.precision, s.recall) == (1.0, 1.0, 0.5)
    assert s.f1 == pytest.approx(float(Fraction(2, 3)), abs=1e-15)
    assert rep.get("con", "exact").tp == 1.0
    # LCS: "abcd" vs "abd": 2 * 3 / 7
    assert M.lcs_similarity("abcd", "abd") == 6 / 7
    assert M.lcs_similarity("", "") == 1.0 and M.lcs_similarity("a", "") == 0.0
    # GriTS-Top: a colspan-2 header against two 1x1 cells: IoU 1/2 at both positions;
    # tp = 1/2 + 1/2 + 1 + 1 = 3 of 4 positions each side: F = 3/4
    gold = parse_html("<table><tr><td colspan=2>h</td></tr><tr><td>a</td><td>b</td></tr>"
                      "</table>")
    s = M.score(gold, _table([["h", "h"], ["a", "b"]]), variant="top").get("top", "factored")
    assert s.tp == 3.0 and s.f1 == 0.75 and s.shortcut == "equal shapes"
    # IoU of boxes: [0,0,2,2] and [1,1,3,3]: 1 / 7; touching boxes: 0
    assert M.iou_matrix([(0, 0, 2, 2)], [(1, 1, 3, 3), (2, 0, 4, 2)]).tolist() == [[1 / 7, 0]]


def test_fscore_conventions():
    assert M.fscore(0.0, 0, 0) == (1.0, 1.0, 1.0)  # nothing to find, nothing found
    assert M.fscore(0.0, 3, 4) == (0.0, 0.0, 0.0)
    assert M.fscore(2.0, 4, 2) == (2 / 3, 1.0, 0.5)


def _grits_matching(grits, variant, ga, gb):
    if variant == "con":
        return grits.grits_con_matching([list(r) for r in ga], [list(r) for r in gb])
    f = grits.grits_top_matching if variant == "top" else grits.grits_loc_matching
    return f([[list(c) for c in r] for r in ga], [[list(c) for c in r] for r in gb])


def test_factored_equals_grits_metric_on_every_pilot_table():
    grits = pytest.importorskip("grits")
    n = 0
    for a, b in pilot_pairs():
        for v in M.variants_of("all", a, b):
            ga, gb = a.grid(v), b.grid(v)
            ref = _grits_matching(grits, v, ga, gb)
            fac = M.factored(M.reward_tensor(ga, gb, v))
            assert fac.tp == ref.true_positive_score, (a.name, v)
            assert fac.package_bound == ref.true_positive_score_upper_bound, (a.name, v)
            assert M.fscore(fac.tp, a.size, b.size) == grits.compute_fscore(
                ref.true_positive_score, a.size, b.size)
            n += 1
    assert n == 20 * 2 + 20 * 3


def _random_rows(rng, n_rows, n_cols, alphabet):
    return [[rng.choice(alphabet) for _ in range(n_cols)] for _ in range(n_rows)]


def test_factored_equals_grits_metric_on_random_tables():
    """Small random tables with many ties (a tiny alphabet), both shortcuts and neither: the
    tie-breaking and the summation order must be the package's."""
    grits = pytest.importorskip("grits")
    rng = random.Random(7)
    shortcuts = set()
    for _ in range(300):
        shape = [rng.randint(1, 4) for _ in range(4)]
        if rng.random() < 0.3:
            shape[3] = shape[1]
        a = _table(_random_rows(rng, shape[0], shape[1], ["a", "ab", "b", "", "ba"]))
        b = _table(_random_rows(rng, shape[2], shape[3], ["a", "ab", "b", "", "bb"]))
        ga, gb = a.grid("con"), b.grid("con")
        ref = _grits_matching(grits, "con", ga, gb)
        fac = M.factored(M.reward_tensor(ga, gb, "con"))
        assert fac.tp == ref.true_positive_score
        assert fac.package_bound == ref.true_positive_score_upper_bound
        shortcuts.add(fac.shortcut)
    assert shortcuts == {None, "equal shapes", "equal column counts"}


def test_without_shortcuts_is_table_transformers_algorithm():
    rng = random.Random(3)
    a = _table(_random_rows(rng, 3, 3, ["a", "b", "ab"]))
    W = M.reward_tensor(a.grid("con"), a.grid("con"), "con")
    assert M.factored(W).shortcut == "equal shapes"
    full = M.factored(W, shortcuts=False)
    assert full.shortcut is None and full.tp == 9.0 and full.bound == 9.0


# --------------------------------------------------------------------------------------------
# the exact 2D-MSS
# --------------------------------------------------------------------------------------------
tensors = st.tuples(*[st.integers(1, 3)] * 4).flatmap(
    lambda s: st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=int(np.prod(s)),
                       max_size=int(np.prod(s))).map(lambda v: np.array(v).reshape(s)))


@given(tensors)
def test_brute_force_equals_bnb_and_ceiling_rule(W):
    inst = mss2d.Mss2dInstance(W)
    brute = mss2d.solve(inst, "brute")
    fac = M.factored(W)
    res = mss2d.solve(inst, "bnb", incumbent=(fac.rows, fac.cols), bound=fac.bound)
    assert res.proven_optimal
    assert res.objective == pytest.approx(brute.objective, abs=1e-9)
    assert mss2d.check(inst, res.alignment) == pytest.approx(res.objective, abs=1e-12)
    assert fac.tp <= brute.objective + 1e-9
    assert brute.objective <= fac.bound + 1e-9
    assert brute.objective <= fac.package_bound + 1e-9  # both shortcuts are proven
    assert fac.bound == pytest.approx(mss2d.bound(inst), abs=1e-9)


def test_ilp_equals_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(12):
        s = tuple(int(x) for x in rng.integers(1, 4, size=4))
        W = rng.random(s) * (rng.random(s) < 0.6)
        inst = mss2d.Mss2dInstance(W)
        fac = M.factored(W)
        ilp = mss2d.solve(inst, "ilp", incumbent=(fac.rows, fac.cols))
        assert ilp.proven_optimal
        assert ilp.objective == pytest.approx(mss2d.solve(inst, "brute").objective, abs=1e-6)


def test_factored_can_fall_below_exact():
    """The smallest case: true (0, 0) is like predicted (1, 0) and true (0, 1) like predicted
    (0, 0), nothing else is alike. Row pairs (0, 0) and (0, 1) each score 1 and the row DP keeps
    the diagonal (0, 0), (1, 1) on the tie; the column DP keeps (0, 0), (1, 1) likewise; their
    cross product holds neither similar pair: factored 0, while rows [(0, 1)] x columns
    [(0, 0)] score 1 = the bound."""
    W = np.zeros((2, 2, 2, 2))
    W[0, 0, 1, 0] = W[0, 1, 0, 0] = 1.0
    inst = mss2d.Mss2dInstance(W)
    for shortcuts in (True, False):
        fac = M.factored(W, shortcuts=shortcuts)
        assert (fac.tp, fac.rows, fac.cols, fac.bound) == (0.0, ((0, 0), (1, 1)),
                                                          ((0, 0), (1, 1)), 1.0)
    res = mss2d.solve(inst, "bnb", incumbent=(fac.rows, fac.cols), bound=fac.bound)
    assert res.proven_optimal and res.objective == 1.0 and res.bound == 1.0
    assert mss2d.solve(inst, "brute").objective == 1.0


def test_check_rejects_crossing_and_repeats():
    inst = mss2d.Mss2dInstance(np.ones((2, 2, 2, 2)))
    assert mss2d.check(inst, ([(0, 0), (1, 1)], [(0, 1)])) == 2.0
    with pytest.raises(Exception, match="not strictly increasing"):
        mss2d.check(inst, ([(0, 1), (1, 0)], [(0, 0)]))
    with pytest.raises(Exception, match="out of range"):
        mss2d.check(inst, ([(0, 2)], [(0, 0)]))


def test_ceiling_rule_and_proofs_on_every_pilot_table():
    for a, b in pilot_pairs():
        rep = M.score(a, b, variant="all", method="both")
        for v in M.variants_of("all", a, b):
            fac, ex = rep.get(v, "factored"), rep.get(v, "exact")
            assert ex.result.proven_optimal, (a.name, v)
            assert fac.tp <= ex.tp + 1e-9, (a.name, v)
            assert ex.tp <= fac.package_bound + 1e-9, (a.name, v)
            assert ex.f1 <= fac.bound_f1 + 1e-9


def test_time_limit_keeps_a_valid_certificate():
    """Stopped at once, the branch and bound reports the factored incumbent and a bound that is
    still valid (at least the optimum), with status time_limit."""
    rng = np.random.default_rng(4)
    W = rng.random((6, 5, 6, 5)) * (rng.random((6, 5, 6, 5)) < 0.5)
    inst = mss2d.Mss2dInstance(W)
    fac = M.factored(W)
    full = mss2d.solve(inst, "bnb", incumbent=(fac.rows, fac.cols), bound=fac.bound)
    cut = mss2d.solve(inst, "bnb", incumbent=(fac.rows, fac.cols), bound=fac.bound,
                      time_limit=0.0)
    assert full.proven_optimal and full.nodes > 0
    assert cut.status.value == "time_limit"
    assert cut.objective == pytest.approx(fac.tp, abs=1e-12)
    assert cut.bound >= full.objective - 1e-9
    assert mss2d.check(inst, cut.alignment) == pytest.approx(cut.objective, abs=1e-12)


def test_ilp_equals_bnb_on_small_pilot_pairs():
    small = [(a, b) for a, b in pilot_pairs()
             if a.n_rows * b.n_rows <= 30 and a.n_cols * b.n_cols <= 40]
    assert small
    for a, b in small[:4]:
        W = M.reward_tensor(a.grid("con"), b.grid("con"), "con")
        inst = mss2d.Mss2dInstance(W)
        ilp, bb = mss2d.solve(inst, "ilp"), mss2d.solve(inst, "bnb")
        assert ilp.proven_optimal and bb.proven_optimal
        assert ilp.objective == pytest.approx(bb.objective, abs=1e-6), a.name


def test_too_many_position_pairs_is_refused():
    from exactalign.core.errors import ModelTooLargeError

    big = [["x"] * 100 for _ in range(100)]
    with pytest.raises(ModelTooLargeError, match="more than 20,000,000"):
        M.reward_tensor(big, big * 3, "con")


def test_factored_equals_grits_metric_on_perturbed_pilot_tables():
    """The 40 pilot gold tables against seeded structural perturbations (spans merged and
    split, rows and columns dropped and inserted, text edited): grits-metric's numbers."""
    grits = pytest.importorskip("grits")
    from exactalign.perturb.tables import TableErrors, perturb

    p = pubtabnet()
    golds = list(read_tables(p / "sample_gt.json").values()) + list(
        read_tables(p / "PubTabNet_Examples.jsonl").values())
    n = 0
    for k, g in enumerate(golds):
        pred = perturb(g, TableErrors.structural(0.2), np.random.default_rng([11, k])).table
        for v in M.variants_of("all", g, pred):
            ga, gb = g.grid(v), pred.grid(v)
            ref = _grits_matching(grits, v, ga, gb)
            fac = M.factored(M.reward_tensor(ga, gb, v))
            assert (fac.tp, fac.package_bound) == (ref.true_positive_score,
                                                   ref.true_positive_score_upper_bound), \
                (g.name, v)
            n += 1
    assert n == 20 * 2 + 20 * 3


def test_ilp_with_no_time_keeps_the_incumbent_and_the_bound():
    rng = np.random.default_rng(4)
    W = rng.random((4, 3, 4, 3)) * (rng.random((4, 3, 4, 3)) < 0.5)
    inst = mss2d.Mss2dInstance(W)
    fac = M.factored(W)
    res = mss2d.solve(inst, "ilp", incumbent=(fac.rows, fac.cols), bound=fac.bound,
                      time_limit=0.0)
    best = mss2d.solve(inst, "brute").objective
    assert res.objective is not None and res.objective >= fac.tp - 1e-12
    assert mss2d.check(inst, res.alignment) == pytest.approx(res.objective, abs=1e-12)
    assert res.objective - 1e-9 <= best <= res.bound + 1e-9
