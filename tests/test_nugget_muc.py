"""The MUC-style scheme on nuggets: hand-derived cases (fractions written out), the greedy
counterexample, optional gold mentions solved exactly by Dinkelbach's method, and exact == brute
force over every alignment on random documents."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, target
from hypothesis import strategies as st
from test_nugget import tbf_text

from exactalign import Status, cli
from exactalign.io.tbf import parse_tbf
from exactalign.metrics import nugget
from exactalign.metrics.nugget import muc_evaluate

ALL = tuple(nugget.MAPPINGS)


def muc(gold, system, **kw):
    g = parse_tbf(tbf_text(gold, "gold"), path="gold.tbf", mode="token")
    s = parse_tbf(tbf_text(system, "sys"), path="sys.tbf", mode="token")
    return muc_evaluate(g, s, mappings=ALL, **kw)


def test_cor_par_act_pos_hand_derived():
    # g1 {t1,t2} = s1 (COR); g2 {t3} overlaps s2 {t3,t4} (PAR); s3 spurious.
    # credit = 1 + 1/2; P = (3/2)/3 = 1/2, R = (3/2)/2 = 3/4, F = 2 (3/2) / (3 + 2) = 3/5.
    ev = muc({"d1": [("g1", "t1,t2", "A", "X"), ("g2", "t3", "A", "X")]},
             {"d1": [("s1", "t1,t2", "A", "X"), ("s2", "t3,t4", "A", "X"),
                     ("s3", "t9", "A", "X")]})
    for m in ALL:
        t = ev.scores[m].totals()
        assert (t.cor, t.par, t.credit, t.act, t.pos) == (1, 1, 1.5, 3, 2)
        p = ev.scores[m].micro()
        assert (p.precision, p.recall, p.f1) == pytest.approx((1 / 2, 3 / 4, 3 / 5))
    assert ev.scores["exact"].status() == "optimal"
    # Dice credit: the partial pair is worth Dice({t3}, {t3,t4}) = 2/3
    ev = muc({"d1": [("g1", "t3", "A", "X")]}, {"d1": [("s1", "t3,t4", "A", "X")]},
             partial="dice")
    assert ev.scores["exact"].totals().credit == pytest.approx(2 / 3)


def test_attribute_combination_filters_muc_pairs():
    # same span, wrong realis: COR for plain and mention_type, nothing for realis
    ev = muc({"d1": [("g1", "t1", "A", "X")]}, {"d1": [("s1", "t1", "A", "Y")]})
    sc = ev.scores["exact"]
    assert sc.totals("plain").cor == 1 and sc.totals("mention_type").cor == 1
    assert sc.totals("realis_status").credit == 0 and sc.micro("realis_status").f1 == 0


def test_greedy_on_half_credits_misses_the_best_alignment():
    # g1 {t1,t2,t3}, g2 {t4,t5}; s1 {t3,t4} overlaps both, s2 {t1} only g1: all PAR (1/2).
    # The heap pops (-1/2, s1, g1) first: credit 1/2, F = 2 (1/2) / (2 + 2) = 1/4.
    # Best: g1-s2, g2-s1: credit 1, F = 2 / 4 = 1/2.
    ev = muc({"d1": [("g1", "t1,t2,t3", "A", "X"), ("g2", "t4,t5", "A", "X")]},
             {"d1": [("s1", "t3,t4", "A", "X"), ("s2", "t1", "A", "X")]})
    for m in nugget.HEURISTIC_MAPPINGS:
        assert ev.scores[m].micro().f1 == pytest.approx(1 / 4), m
    ex = ev.scores["exact"]
    assert ex.micro().f1 == pytest.approx(1 / 2) and ex.totals().par == 2
    r = ex.ratio["plain"]
    assert r.status is Status.OPTIMAL and r.bound == pytest.approx(2 / 4)


GOLD_OPT = {"d1": [("g1", "t1", "A", "X"), ("g3", "t2", "A", "X"),
                   ("g2", "t5,t6,t7,t8,t9", "A", "Other")]}
SYS_OPT = {"d1": [("s1", "t1", "A", "X"), ("s3", "t2", "A", "X"), ("s2", "t5", "A", "X")]}


def test_optional_gold_mention_with_dice_credit_is_better_left_unaligned():
    # g2 is optional (realis Other). Its only candidate s2 has Dice 2*1/(5+1) = 1/3.
    # Aligned: credit 2 + 1/3, ACT 3, POS 3: F = 2 (7/3) / 6 = 7/9.
    # Unaligned: credit 2, ACT 3, POS 2: F = 4/5 > 7/9 -- the ratio optimum (Dinkelbach).
    ev = muc(GOLD_OPT, SYS_OPT, partial="dice", optional_values=["Other"])
    for m in nugget.HEURISTIC_MAPPINGS:
        assert ev.scores[m].micro().f1 == pytest.approx(7 / 9), m
        assert ev.scores[m].totals().optional_aligned == 1
    ex = ev.scores["exact"]
    t = ex.totals()
    assert (t.credit, t.act, t.pos, t.optional_aligned) == (2, 3, 2, 0)
    r = ex.ratio["plain"]
    assert r.status is Status.OPTIMAL and r.ratio == pytest.approx(4 / 5)
    assert r.bound == pytest.approx(4 / 5) and r.iterations == 2
    assert ex.micro().precision == pytest.approx(2 / 3) and ex.micro().recall == 1.0
    # with MUC's 1/2 credit aligning it pays: F = 2 (5/2) / 6 = 5/6 > 4/5
    ev = muc(GOLD_OPT, SYS_OPT, partial="half", optional_values=["other"])
    assert ev.scores["exact"].micro().f1 == pytest.approx(5 / 6)
    # without optional values every gold mention counts: F = 2 (2 + 1/3) / 6 = 7/9
    assert muc(GOLD_OPT, SYS_OPT, partial="dice").scores["exact"].micro().f1 == \
        pytest.approx(7 / 9)


def brute_force_f(instances, valid):
    """max over every combination of per-document 1:1 alignments of corpus F (tiny only)."""
    per_doc = []
    for inst, v in zip(instances, valid, strict=True):
        if not v:
            continue
        pairs = list(zip(inst.credits.rows.tolist(), inst.credits.cols.tolist(), strict=True))
        options = []
        for k in range(len(pairs) + 1):
            for sub in itertools.combinations(pairs, k):
                if len({a for a, _ in sub}) == k and len({b for _, b in sub}) == k:
                    c = inst.counts(sub)
                    options.append((c.credit, c.act + c.pos))
        per_doc.append(options)
    best = 0.0
    for choice in itertools.product(*per_doc):
        num, den = sum(x for x, _ in choice), sum(y for _, y in choice)
        best = max(best, 2 * num / den if den else 0.0)
    return best


SPANS = st.lists(st.sampled_from([f"t{i}" for i in range(1, 6)]), min_size=1, max_size=3,
                 unique=True)


@st.composite
def corpora(draw):
    def mentions(prefix, realis, n_max):
        n = draw(st.integers(0, n_max))
        return [(f"{prefix}{i}", ",".join(draw(SPANS)), "A", draw(st.sampled_from(realis)))
                for i in range(n)]

    gold = {f"d{k}": mentions("g", ("X", "Other"), 3) for k in range(2)}
    system = {f"d{k}": mentions("s", ("X",), 3) for k in range(2)}
    return gold, system


@given(corpora(), st.sampled_from(nugget.PARTIAL_CREDITS))
def test_exact_equals_brute_force_and_bounds_heuristics(corpus, partial):
    gold, system = corpus
    ev = muc(gold, system, partial=partial, optional_values=["Other"])
    ex = ev.scores["exact"]
    r = ex.ratio["plain"]
    assert r.status is Status.OPTIMAL
    insts = [d.instances["plain"] for d in ex.documents]
    best = brute_force_f(insts, [d.valid for d in ex.documents])
    assert ex.micro().f1 == pytest.approx(best, abs=1e-9)
    for m in nugget.HEURISTIC_MAPPINGS:
        for c in ev.combinations:
            assert ev.scores[m].micro(c).f1 <= ex.micro(c).f1 + 1e-9
    target(best - ev.scores["kbp"].micro().f1)


def test_cli_muc_scheme(capsys, tmp_path):
    g, s = tmp_path / "g.tbf", tmp_path / "s.tbf"
    g.write_text(tbf_text(GOLD_OPT, "gold"))
    s.write_text(tbf_text(SYS_OPT, "sys"))
    tkn = tmp_path / "tkn"
    tkn.mkdir()
    (tkn / "d1.tab").write_text("".join(f"t{i}\tw{i}\t{2 * i}\t{2 * i + 1}\n"
                                        for i in range(1, 10)))
    base = ["nugget", "-g", str(g), "-s", str(s), "-t", str(tkn), "--scheme", "muc",
            "--partial-credit", "dice", "--optional-value", "Other"]
    assert cli.main([*base, "--mapping", "all"]) == 0
    out = capsys.readouterr().out
    row = next(x for x in out.splitlines() if x.startswith("exact ") and " plain " in x)
    # COR PAR credit ACT POS opt, then Prec Rec F1 (P = 2/3, R = 2/2)
    assert row.split()[2:11] == ["2", "0", "2.0000", "3", "2", "0", "66.67", "100.00", "80.00"]
    assert row.split()[-1] == "optimal"
    assert cli.main([*base, "--mapping", "all", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["scheme"] == "muc" and d["partial_credit"] == "dice"
    assert d["overall"]["exact/plain"]["f1"] == pytest.approx(4 / 5)
    ex = d["mappings"]["exact"]["plain"]
    assert ex["status"] == "optimal" and ex["bound"] == pytest.approx(4 / 5)
    assert d["overall"]["kbp/plain"]["f1"] == pytest.approx(7 / 9)
    [row] = d["documents"]
    assert row["id"] == "d1" and row["scores"]["kbp/plain"]["counts"]["pos"] == 3
    assert cli.main([*base[:7], "--optional-value", "Other"]) == 2
    assert "apply to --scheme muc only" in capsys.readouterr().err


@pytest.mark.parametrize("backend", ["highs", "scipy"])
def test_assignment_oracle_agrees_with_dinkelbach_on_the_ilp(backend):
    # The same ratio through the generic path: the matching ILP of the credits, numerator
    # 2 * credit, denominator ACT + required POS + aligned optional gold mentions.
    from exactalign.core.fractional import dinkelbach
    from exactalign.problems import bipartite

    ev = muc(GOLD_OPT, SYS_OPT, partial="dice", optional_values=["Other"])
    inst = ev.scores["exact"].documents[0].instances["plain"]
    model = bipartite.ilp_model(inst.credits)
    den = inst.optional[inst.credits.rows].astype(float)
    r = dinkelbach(model, (2 * inst.credits.weights, 0.0),
                   (den, float(inst.n_system + inst.n_required)), backend=backend)
    assert r.status is Status.OPTIMAL
    assert r.ratio == pytest.approx(ev.scores["exact"].ratio["plain"].ratio) == \
        pytest.approx(4 / 5)
