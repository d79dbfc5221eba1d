"""The seeded mention-error generator: determinism, rate 0 = identity, rates respected, each error
class doing what it says, output scorable and writable as TBF."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactalign.io.tbf import format_tbf, parse_tbf
from exactalign.metrics import nugget
from exactalign.perturb.mentions import ERROR_KINDS, ErrorRates, perturb


def gold_file(n_docs=3, per_doc=40, mode="char", seed_types=("Life_Die", "Conflict_Attack",
                                                              "Movement_Transport")):
    """Documents of ``per_doc`` non-overlapping mentions, 1-3 units long, 5 units apart."""
    out = []
    for d in range(n_docs):
        out.append(f"#BeginOfDocument d{d}")
        pos = 3
        for k in range(per_doc):
            n = 1 + (k + d) % 3
            if mode == "char":
                span = f"{pos},{pos + n}"
            else:
                span = ",".join(f"t{pos + i}" for i in range(n))
            typ = seed_types[(k * 7 + d) % len(seed_types)]
            out.append("\t".join(["gold", f"d{d}", f"T{k}", span, "w", typ,
                                  ("Actual", "Generic")[k % 2]]))
            pos += n + 5
        out.append("#EndOfDocument")
    return parse_tbf("\n".join(out) + "\n", path="gold.tbf", mode=mode)


def summary(tbf):
    return {d: [(m.pieces, m.attributes) for m in doc.mentions]
            for d, doc in tbf.documents.items()}


@pytest.mark.parametrize("mode", ["char", "token"])
def test_rate_zero_is_the_identity(mode):
    gold = gold_file(mode=mode)
    p = perturb(gold, ErrorRates(), seed=7)
    assert summary(p.system) == summary(gold)
    assert p.errors == [] and p.opportunities["miss"] == 3 * 40
    ev = nugget.evaluate(gold, p.system, mappings=["kbp", "exact"])
    for m in ("kbp", "exact"):
        for c in ev.combinations:
            assert ev.scores[m].micro(c).f1 == 1.0


@given(st.floats(0, 1), st.integers(0, 2**32), st.sampled_from(["char", "token"]))
def test_same_seed_same_output_and_written_tbf_reads_back(rate, seed, mode):
    gold = gold_file(n_docs=2, per_doc=12, mode=mode)
    a = perturb(gold, ErrorRates.uniform(rate), seed)
    b = perturb(gold, ErrorRates.uniform(rate), seed)
    assert summary(a.system) == summary(b.system) and a.errors == b.errors
    back = parse_tbf(format_tbf(a.system), path="sys.tbf", mode=mode)
    assert summary(back) == summary(a.system)
    assert back.warnings == []
    assert format_tbf(back) == format_tbf(a.system)


def test_different_seeds_differ_and_higher_rates_add_errors():
    gold = gold_file()
    low = perturb(gold, ErrorRates.uniform(0.1), 1)
    assert summary(perturb(gold, ErrorRates.uniform(0.1), 2).system) != summary(low.system)
    # common random numbers: raising one rate (the others fixed) repeats the lower rate's errors
    high = perturb(gold, ErrorRates.uniform(0.1, miss=0.3), 1)
    missed = {(e.doc_id, e.gold_id) for e in low.errors if e.kind == "miss"}
    assert missed and missed <= {(e.doc_id, e.gold_id) for e in high.errors if e.kind == "miss"}


@pytest.mark.parametrize("kind", ERROR_KINDS)
def test_each_rate_is_respected(kind):
    # 3 x 400 gold mentions; the applied fraction of the opportunities is within 4 binomial
    # standard deviations of the rate (the run is seeded, so this is deterministic).
    gold = gold_file(n_docs=3, per_doc=400)
    rate = 0.25
    p = perturb(gold, ErrorRates(**{kind: rate}), seed=11)
    n = p.opportunities[kind]
    k = p.applied[kind]
    assert n >= 300
    assert abs(k / n - rate) <= 4 * math.sqrt(rate * (1 - rate) / n), (k, n)
    assert set(p.applied) == {kind}  # no other class fires


def test_error_classes_change_what_they_say():
    gold = gold_file(n_docs=1, per_doc=200)
    g = gold.documents["d0"].mentions
    n = len(g)

    def sys_of(**r):
        p = perturb(gold, ErrorRates(**r), seed=3)
        return p, p.system.documents["d0"].mentions

    p, s = sys_of(miss=1.0)
    assert s == [] and p.applied["miss"] == n
    p, s = sys_of(spurious=1.0)
    assert len(s) == 2 * n
    p, s = sys_of(double=1.0)
    assert len(s) == 2 * n
    assert sorted(m.pieces for m in s) == sorted(m.pieces for m in g for _ in (0, 1))
    p, s = sys_of(type=1.0)
    assert all(a.attributes[0] != b.attributes[0] and a.pieces == b.pieces
               and a.attributes[1] == b.attributes[1] for a, b in zip(g, s, strict=True))
    p, s = sys_of(realis=1.0)
    assert all(a.attributes[1] != b.attributes[1] for a, b in zip(g, s, strict=True))
    p, s = sys_of(split=1.0)
    multi = sum(1 for m in g if m.size >= 2)
    assert len(s) == n + multi and p.applied["split"] == multi
    p, s = sys_of(shift=1.0)
    assert len(s) == n and all(a.units != b.units for a, b in zip(g, s, strict=True))
    p, s = sys_of(merge=1.0)  # mentions are 5 apart (merge_gap 10): pairs of neighbours merge
    assert len(s) == n // 2 and p.applied["merge"] == n // 2
    assert s[0].pieces == ((g[0].pieces[0][0], g[1].pieces[0][1]),)


def test_token_mode_uses_the_token_order_and_rejects_unknown_ids():
    gold = gold_file(n_docs=1, per_doc=5, mode="token")
    order = [f"t{i}" for i in range(0, 60)]
    p = perturb(gold, ErrorRates(shift=1.0, spurious=1.0), 5, token_order={"d0": order})
    for m in p.system.documents["d0"].mentions:
        assert set(m.pieces) <= set(order)
        idx = [order.index(t) for t in m.pieces]
        assert idx == list(range(idx[0], idx[0] + len(idx)))  # contiguous, in order
    with pytest.raises(ValueError, match="not in the token order"):
        perturb(gold, ErrorRates(), 5, token_order={"d0": ["t3"]})


def test_bad_rates_and_seeds():
    with pytest.raises(ValueError, match="miss must be in"):
        ErrorRates(miss=1.5)
    with pytest.raises(ValueError, match="seed"):
        perturb(gold_file(1, 1), ErrorRates(), -1)


def test_a_gold_mention_covering_nothing_is_passed_through():
    gold = parse_tbf("#BeginOfDocument d1\n"
                     "gold\td1\tT1\t5,5\tx\tLife_Die\tActual\n"
                     "gold\td1\tT2\t7,9\tx\tLife_Die\tActual\n"
                     "#EndOfDocument\n", path="g.tbf")
    assert gold.warnings  # v1.8 keeps such a mention; it can match nothing
    p = perturb(gold, ErrorRates.uniform(1.0, spurious=0.0, double=0.0), seed=1)
    s = p.system.documents["d1"].mentions
    assert [(m.span, m.attributes) for m in s][0] == ("5,5", ("Life_Die", "Actual"))
    assert p.opportunities["miss"] == 1 and p.applied["miss"] == 1  # T2 missed
