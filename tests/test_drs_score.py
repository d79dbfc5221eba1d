"""Counter's DRS scoring (exactalign.metrics.drs, drs_counter, drs_report): clauses as Counter
builds them, hand-derived small pairs, the exact optimum against brute force over every
one-to-one mapping with Counter's count written out independently here, Counter's
hill-climbing never above it; and on the pilot files (skipped without them) Counter's
published per-DRS counts (``output1.prf``, ``output1.idv``) and Counter's own runs, recorded.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import os
import random
import sys

import pytest

from exactalign.core.errors import InputError
from exactalign.data import resolve_data_dir
from exactalign.metrics.drs import (
    DEFAULT_OPTIONS,
    INV_BOXES,
    SIGNATURE_OPTIONS,
    CounterOptions,
    counter_drs,
    counter_f,
    counter_instance,
    rewrite_concept,
    split_clause,
)
from exactalign.metrics.drs_counter import counter_match
from exactalign.metrics.drs_report import score_drss
from exactalign.problems import latent


def C(text: str) -> list:
    """A DRS from text, one clause a line."""
    return [split_clause(line) for line in text.strip().splitlines()]


def exact(pred, gold, options=SIGNATURE_OPTIONS, sense_map=None):
    a, b = counter_drs(pred, options, sense_map), counter_drs(gold, options, sense_map)
    r = latent.solve(counter_instance(a, b), "exact")
    assert r.proven_optimal
    return r.objective, a.n_clauses, b.n_clauses


# -- Counter's clauses -------------------------------------------------------------------------
def test_clauses_ref_removal_inversion_kinds_and_types():
    d = counter_drs(C('''
        b1 REF x1
        b1 Name x1 "tom"
        b1 REF x2
        b1 PartOf x1 x2
        b2 REF e1
        b2 EQU "now" t1
        b2 eat "v.01" e1
        b2 eat "v.01" e1
        b1 PRESUPPOSITION b2
    '''), SIGNATURE_OPTIONS)
    # b1 REF x1 and b1 REF x2 dropped (x1, x2 occur again in b1); b2 REF e1 kept? e1 occurs in
    # b2 eat ... e1: dropped too. The duplicate concept counts once.
    assert d.lists["op_two_vars"] == ((0, "PRESUPPOSITION", 3),)
    assert d.n_clauses == 5
    assert d.lists["roles_abs2"] == ((0, "Name", 1, '"tom"'),)
    # PartOf x1 x2 -> Part x2 x1
    assert d.lists["roles"] == ((0, "Part", 2, 1),)
    # EQU "now" t1 -> EQU t1 "now"
    assert d.lists["op_two_vars_abs2"] == ((3, "EQU", 4, '"now"'),)
    assert d.names == ("b1", "x1", "x2", "b2", "t1", "e1")
    assert d.types == ("b", "x", "x", "b", "x", "x")
    with_ref = counter_drs(C("b1 REF x1\nb1 Name x1 \"tom\""), SIGNATURE_OPTIONS._replace(
        include_ref=True))
    assert with_ref.n_clauses == 2
    alone = counter_drs(C("b1 REF x1\nb2 Name x1 \"tom\""))  # x1 not again in b1: kept
    assert alone.n_clauses == 2


def test_box_type_from_first_occurrence_and_signature():
    drs = C('''
        b1 PRESUPPOSITION b2
        b2 REF x1
        b2 dog "n.01" x1
    ''')
    # without -g no operator takes boxes: b2, first seen as PRESUPPOSITION's argument, is an x
    assert counter_drs(drs, DEFAULT_OPTIONS).types[1] == "x"
    assert counter_drs(drs, SIGNATURE_OPTIONS).types[1] == "b"
    gold = C('''
        b3 REF y1
        b3 dog "n.01" y1
        b4 PRESUPPOSITION b3
    ''')
    # with -g both b2 and b3 are boxes: everything matches; without, b2 (x) never maps to b3
    assert exact(drs, gold, SIGNATURE_OPTIONS)[0] == 2
    assert exact(drs, gold, DEFAULT_OPTIONS)[0] == 0


def test_defaults_and_sense_map():
    sense = {"marvelous.a.01": "wonderful.s.01", "wonderful.a.01": "wonderful.s.01"}
    assert rewrite_concept("marvelous", '"a.01"', sense) == ("wonderful", '"s.01"')
    assert rewrite_concept("cat", '"n.01"', sense) == ("cat", '"n.01"')
    p, g = C('b1 marvelous "a.01" x1'), C('b1 wonderful "a.01" x1')
    assert exact(p, g)[0] == 0
    assert exact(p, g, sense_map=sense)[0] == 1
    p, g = C('b1 cat "n.01" x1\nb1 Agent x1 x2'), C('b1 dog "n.02" x1\nb1 Theme x1 x2')
    assert exact(p, g)[0] == 0
    assert exact(p, g, SIGNATURE_OPTIONS._replace(default_sense=True))[0] == 0
    assert exact(p, g, SIGNATURE_OPTIONS._replace(default_concept=True))[0] == 1
    assert exact(p, g, SIGNATURE_OPTIONS._replace(default_concept=True,
                                                  default_role=True))[0] == 2


def test_counter_f_rounds_precision_and_recall_first():
    assert counter_f(7, 8, 8) == (0.875, 0.875, 0.875)
    assert counter_f(0, 0, 3) == (0.0, 0.0, 0.0)
    p, r, f = counter_f(2, 3, 7)
    assert (p, r) == (0.6667, 0.2857) and f == round(2 * p * r / (p + r), 4)


# -- the objective on small hand-made pairs ----------------------------------------------------
def test_symmetric_operators_match_either_way_and_at_most_once():
    assert exact(C("b1 NEQ x1 x2"), C("b1 NEQ y2 y1"))[0] == 1
    # both orientations produced, one gold clause: Counter credits the gold clause once
    assert exact(C("b1 NEQ x1 x2\nb1 NEQ x2 x1"), C("b1 NEQ y1 y2"))[0] == 1
    assert exact(C("b1 NEQ x1 x2\nb1 NEQ x2 x1"), C("b1 NEQ y1 y2\nb1 NEQ y2 y1"))[0] == 2
    assert exact(C("b1 NEQ x1 x2"), C("b1 NEQ y1 y2\nb1 NEQ y2 y1"))[0] == 1
    # a role is not symmetric
    assert exact(C("b1 Agent x1 x2\nb1 dog \"n.01\" x2"),
                 C("b1 Agent y2 y1\nb1 dog \"n.01\" y2"))[0] == 1


def test_ternary_clause_repeating_a_variable_never_matches_but_counts():
    assert exact(C("b1 Theme x1 x1"), C("b1 Theme y1 y1")) == (0, 1, 1)
    assert exact(C("b1 Theme x1 x2"), C("b1 Theme y1 y2")) == (1, 1, 1)


def test_role_with_two_constants_needs_only_its_box():
    assert exact(C('b1 PartOf "a" "b"'), C('b2 PartOf "a" "b"'))[0] == 1
    assert exact(C('b1 PartOf "a" "b"'), C('b2 PartOf "b" "a"'))[0] == 0


# -- Counter's count, written out independently: the brute-force oracle ------------------------
def _counter_count(a, b, mapping) -> int:
    """Counter's compute_match on its nine lists: per kind, every produced clause against
    every gold clause (straight, or swapped for a symmetric operator) with equal label and
    constants, variable types agreeing position by position (not for roles_two_abs) and
    three distinct variable pairs for a clause of three variables; each clause used once
    (greedy in Counter's order)."""
    from exactalign.metrics.drs import EDGE_POS, KINDS, TYPED, VAR_POS

    used_p, used_g, n = set(), set(), 0
    for kind in KINDS:
        for i, c in enumerate(a.lists[kind]):
            for j, g in enumerate(b.lists[kind]):
                if any(c[e] != g[e] for e in EDGE_POS[kind]):
                    continue
                pv, gv = [c[p] for p in VAR_POS[kind]], [g[p] for p in VAR_POS[kind]]
                if kind in TYPED and any(a.types[x] != b.types[y] for x, y in zip(pv, gv, strict=True)):
                    continue
                ways = [gv]
                if kind == "op_three_vars" and c[1] in INV_BOXES:
                    ways.append([gv[0], gv[2], gv[1]])
                ok = False
                for w in ways:
                    pairs = list(zip(pv, w, strict=True))
                    if len(pv) == 3 and len(set(pairs)) < 3:
                        continue
                    if all(mapping.get(x) == y for x, y in pairs):
                        ok = True
                if ok and (kind, i) not in used_p and (kind, j) not in used_g:
                    used_p.add((kind, i))
                    used_g.add((kind, j))
                    n += 1
    return n


def _brute(a, b) -> int:
    best = 0
    nl, nr = a.n_vars, b.n_vars
    for k in range(min(nl, nr) + 1):
        for left in itertools.combinations(range(nl), k):
            for right in itertools.permutations(range(nr), k):
                best = max(best, _counter_count(a, b, dict(zip(left, right, strict=True))))
    return best


LABELS = ["REF", "NEQ", "EQU", "Agent", "Theme", "NOT", "dog", "Name"]


def _random_drs(rng: random.Random, boxes, refs) -> list:
    out = []
    for _ in range(rng.randint(1, 6)):
        lab = rng.choice(LABELS)
        b = rng.choice(boxes)
        if lab == "REF":
            out.append([b, lab, rng.choice(refs)])
        elif lab == "NOT":
            out.append([b, lab, rng.choice(boxes)])
        elif lab == "dog":
            out.append([b, lab, rng.choice(['"n.01"', '"n.02"']), rng.choice(refs)])
        elif lab == "Name":
            out.append([b, lab, rng.choice(refs), rng.choice(['"tom"', '"ann"'])])
        else:
            out.append([b, lab, rng.choice(refs), rng.choice(refs + ['"now"'])])
    return out


@pytest.mark.parametrize("seed", range(60))
def test_exact_equals_brute_force_and_counter_is_never_above(seed):
    rng = random.Random(seed)
    p = _random_drs(rng, ["b1", "b2"], ["x1", "x2", "x3"])
    g = _random_drs(rng, ["c1", "c2"], ["y1", "y2", "y3"])
    for options in (SIGNATURE_OPTIONS, DEFAULT_OPTIONS._replace(include_ref=True)):
        a, b = counter_drs(p, options), counter_drs(g, options)
        inst = counter_instance(a, b)
        r = latent.solve(inst, "exact")
        assert r.proven_optimal
        assert r.objective == _brute(a, b)
        m = counter_match(a, b, random.Random(seed), restarts=3)
        assert m.matched <= r.objective
        assert m.matched == _counter_count(a, b, {i: v for i, v in enumerate(m.mapping)
                                                  if v != -1})


def _symmetric_drs(rng: random.Random, boxes, refs) -> list:
    """Symmetric operators over referents and boxes (types that differ within a clause), both
    orientations often, a role and a concept to type the names first."""
    out = [[rng.choice(boxes), "Agent", rng.choice(refs), rng.choice(refs)]]
    for _ in range(rng.randint(2, 6)):
        op = rng.choice(["NEQ", "EQU", "APX"])
        x, y = rng.sample(refs + boxes[1:], 2)
        b = rng.choice(boxes)
        out.append([b, op, x, y])
        if rng.random() < 0.5:
            out.append([b, op, y, x])
    rng.shuffle(out)
    return out


@pytest.mark.parametrize("seed", range(40))
def test_symmetric_orbits_and_mixed_types_equal_brute_force(seed):
    rng = random.Random(1000 + seed)
    p = _symmetric_drs(rng, ["b1", "b2"], ["x1", "x2"])
    g = _symmetric_drs(rng, ["c1", "c2"], ["y1", "y2"])
    a, b = counter_drs(p, SIGNATURE_OPTIONS), counter_drs(g, SIGNATURE_OPTIONS)
    r = latent.solve(counter_instance(a, b), "exact")
    assert r.proven_optimal and r.objective == _brute(a, b)
    m = counter_match(a, b, random.Random(seed), restarts=4)
    assert m.matched <= r.objective
    assert m.matched == _counter_count(a, b, {i: v for i, v in enumerate(m.mapping) if v != -1})


def test_report_counts_and_unequal_lengths():
    pred = [C('b1 REF x1\nb1 dog "n.01" x1'), C("b1 NEQ x1 x2")]
    gold = [C('b1 REF x1\nb1 dog "n.01" x1'), C("b1 NEQ y1 y2\nb1 LES y1 y2")]
    rep = score_drss(pred, gold, method="both", seed=3)
    assert rep.methods == ("exact", "hillclimb")
    # the REF clauses are left out: 1 + 1 produced, 1 + 2 gold
    assert rep.totals("exact") == (2, 2, 3) == rep.totals("counter")
    assert rep.scores("exact") == counter_f(2, 2, 3)
    assert rep.proven() == 2 and rep.below() == 0
    assert [rep.pair_scores(p, "exact")[2] for p in rep.pairs] == [1.0, counter_f(1, 1, 2)[2]]
    with pytest.raises(InputError, match="1 DRSs in the produced file but 2"):
        score_drss(pred[:1], gold)
    rep = score_drss(pred, gold, method="counter", runs=3)  # hillclimb's other name
    assert rep.methods == ("hillclimb",)
    assert len(rep.run_scores()) == 3 and rep.pairs[0].runs == (1, 1, 1)


def test_counter_match_uses_only_its_generator():
    a = counter_drs(C('b1 REF x1\nb1 dog "n.01" x1\nb1 Agent x1 x2\nb1 Theme x2 x3'))
    b = counter_drs(C('b2 REF y1\nb2 dog "n.01" y1\nb2 Agent y1 y2\nb2 Theme y3 y2'))
    random.seed(123)
    before = random.getstate()
    m1 = counter_match(a, b, random.Random(9))
    assert random.getstate() == before
    assert counter_match(a, b, random.Random(9)) == m1
    assert m1.matched == 2 and m1.smart == 2 and m1.found_idx == 0  # Theme cannot also match


def test_options_default_is_counter_without_signature():
    assert CounterOptions() == DEFAULT_OPTIONS and not DEFAULT_OPTIONS.op_boxes
    assert "PRESUPPOSITION" in SIGNATURE_OPTIONS.op_boxes


# -- the pilot files ---------------------------------------------------------------------------
BERT = "systems/pmb-3.0.0/en/dev/bert_only"
#: Counter itself (RikVN/DRS_parsing @190838f, with -g clf_signature.yaml, no WordNet map, -r
#: 20, -ill score) run in-process on bert_only output1 against the gold dev set with the global
#: generator seeded: sha256 (16 hex digits) of repr([(mapping, matched, found_idx), ...]) over
#: the 885 pairs, matched clauses summed, found_idx summed, and random.random() right after
#: (the number of draws).
RECORDED = {0: ("cd754dce2f036cee", 7949, 19, 0.7825004228452564),
            1: ("cb772319afd75b51", 7949, 25, 0.8913751714432561),
            5: ("2946efc5c9c38d67", 7949, 19, 0.8754865459392658)}
#: The bert_only output1 pairs whose published counts need the WordNet normalisation (a
#: synonym: wonderful/marvelous, save/save_up, talented/gifted, goodbye/good-bye): without it
#: each matches one clause less.
NEEDS_WORDNET = {7, 174, 419, 706}


def _pilot():
    d = resolve_data_dir()
    root = None if d.path is None else d.path / "drs"
    if root is None or not (root / BERT / "output1.prf").is_file():
        pytest.skip("DRS pilot files absent (../shared/pilot/drs or $EXACTALIGN_DATA)")
    return root


def _sense_map():
    """The WordNet 3.0 sense map when fetched (``python -m exactalign.data.wordnet``)."""
    from exactalign.data.wordnet import load_sense_map

    return load_sense_map()


def _read(root, name):
    from exactalign.io.drs import read_drs_file

    return [d.clauses for d in read_drs_file(root / name)]


def _published(root, name):
    return [tuple(int(x) for x in line.split()) for line in
            (root / BERT / name).read_text().splitlines() if line.strip()]


def test_pilot_exact_reproduces_published_counts_per_drs():
    root = _pilot()
    pred, gold = _read(root, f"{BERT}/output1.txt"), _read(root, "gold/pmb-3.0.0/dev.txt")
    sense = _sense_map()
    rep = score_drss(pred, gold, method="exact", sense_map=sense)
    prf = _published(root, "output1.prf")
    assert len(rep.pairs) == len(prf) == 885
    assert rep.proven() == 885
    for p, (m, t, g) in zip(rep.pairs, prf, strict=True):
        assert (p.produced, p.gold) == (t, g)
        if sense is None and p.index in NEEDS_WORDNET:
            assert p.exact.objective == m - 1
        else:
            assert p.exact.objective == m, p.index
    idv = [float(x) for x in (root / BERT / "output1.idv").read_text().split()]
    for (m, t, g), f in zip(prf, idv, strict=True):
        assert counter_f(m, t, g)[2] == f
    if sense is not None:  # eval.txt, run 1: P 0.8895, R 0.8659, F 0.8775
        assert rep.scores("exact") == (0.8895, 0.8659, 0.8775)


def _eval_txt(root):
    """Counter's published P, R, F of the five bert_only runs (eval.txt)."""
    scores = {}
    kind = None
    for line in (root / BERT / "eval.txt").read_text().splitlines():
        if line.startswith("For score-type:"):
            kind = line.split(":", 1)[1].strip()
        elif line.startswith("All scores:"):
            scores[kind] = [float(x) for x in line.split(":", 1)[1].split(",")]
    return list(zip(scores["Precision"], scores["Recall"], scores["F-score"], strict=True))


@pytest.mark.slow
@pytest.mark.parametrize("run", [1, 2, 3, 4, 5])
def test_pilot_exact_reproduces_eval_txt(run, tmp_path):
    """The command's report on bert_only run N with Counter's official settings (-g, -ill
    dummy, the WordNet map): exactly Counter's published P, R, F, every pair proven optimal
    (run 1 without the referee is in the default run: the .prf test)."""
    from exactalign.metrics.drs_report import score_files

    root = _pilot()
    sense = _sense_map()
    if sense is None:
        pytest.skip("the WordNet 3.0 sense map is not fetched (python -m exactalign.data.wordnet)")
    rep = score_files(root / BERT / f"output{run}.txt", root / "gold/pmb-3.0.0/dev.txt",
                      ill="dummy", sense_map=sense, method="exact")
    assert rep.proven() == 885
    assert rep.scores("exact") == _eval_txt(root)[run - 1]


def test_pilot_counter_replica_equals_counter_recorded_seed_0():
    _check_recorded(0)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 5])
def test_pilot_counter_replica_equals_counter_recorded(seed):
    _check_recorded(seed)


def _check_recorded(seed):
    root = _pilot()
    pred, gold = _read(root, f"{BERT}/output1.txt"), _read(root, "gold/pmb-3.0.0/dev.txt")
    rng = random.Random(seed)
    got = [counter_match(counter_drs(p, SIGNATURE_OPTIONS), counter_drs(g, SIGNATURE_OPTIONS),
                         rng) for p, g in zip(pred, gold, strict=True)]
    digest = hashlib.sha256(repr([(list(m.mapping), m.matched, m.found_idx)
                                  for m in got]).encode()).hexdigest()[:16]
    assert (digest, sum(m.matched for m in got), sum(m.found_idx for m in got),
            rng.random()) == RECORDED[seed]


@pytest.mark.slow
def test_counter_itself_in_process_when_available():
    """``$EXACTALIGN_COUNTER``: Counter's ``evaluation/`` directory (with psutil and yaml
    importable); its get_best_match on the first 200 pilot pairs, seed 11, against ours."""
    where = os.environ.get("EXACTALIGN_COUNTER")
    if not where:
        pytest.skip("$EXACTALIGN_COUNTER (Counter's evaluation/ directory) not set")
    root = _pilot()
    sys.path.insert(0, where)
    try:
        import argparse

        import counter as cnt
        import hill_climbing as hc
    finally:
        sys.path.remove(where)
    args = argparse.Namespace(restarts=20, smart="conc", mem_limit=10**6, partial=False,
                              prin=False, default_sense=False, default_role=False,
                              default_concept=False, include_ref=False)
    cnt.args = args
    sig = cnt.get_signature(os.path.join(where, "clf_signature.yaml"))
    with contextlib.redirect_stdout(io.StringIO()):
        cp = cnt.get_clauses(str(root / BERT / "output1.txt"), sig, "score")[0]
        cg = cnt.get_clauses(str(root / "gold/pmb-3.0.0/dev.txt"), sig, "score")[0]
    pred, gold = _read(root, f"{BERT}/output1.txt"), _read(root, "gold/pmb-3.0.0/dev.txt")
    random.seed(11)
    rng = random.Random(11)
    for n in range(200):
        pd, gd = cnt.DRS(sig), cnt.DRS(sig)
        pd.prefix, gd.prefix = "a", "b"
        pd.get_specific_clauses(cp[n], {}, args)
        gd.get_specific_clauses(cg[n], {}, args)
        best, num, idx, _, _ = hc.get_best_match(pd, gd, args, False)
        ours = counter_match(counter_drs(pred[n], SIGNATURE_OPTIONS),
                             counter_drs(gold[n], SIGNATURE_OPTIONS), rng)
        assert (list(ours.mapping), ours.matched, ours.found_idx) == (best, num, idx)


def test_the_f_bound_of_a_run_cut_short_is_never_above_one():
    """Pairs the time limit never reaches keep no mapping and a loose bound; the corpus bound
    takes each at most the pair's smaller clause count (a clause matches once at most), so
    'F at most' stays a number an F can be, whatever the machine reached in the time."""
    from experiments.drs_gap import perturbed, synthetic_drs

    gold = [synthetic_drs(random.Random(k)) for k in range(30)]
    pred = [perturbed(g, random.Random(100 + k), 0.5) for k, g in enumerate(gold)]
    rep = score_drss(pred, gold, method="exact", time_limit=0.0)
    assert rep.bound() <= sum(min(p.produced, p.gold) for p in rep.pairs)
    assert rep.bound_f1 is None or rep.bound_f1 <= 1.0
    assert all(p.exact.objective <= min(p.produced, p.gold) for p in rep.pairs)
    # a pair left with a loose bound (as the time limit leaves the pairs it never reaches:
    # on the pilot, 7 for 7 produced and 6 gold clauses) counts its smaller side at most
    first = rep.pairs[0]
    loose = rep._replace(pairs=[first._replace(exact=first.exact.replace(bound=1000.0)),
                                *rep.pairs[1:]])
    assert loose.bound() == rep.bound() - min(first.exact.bound, first.produced, first.gold) \
        + min(first.produced, first.gold)
